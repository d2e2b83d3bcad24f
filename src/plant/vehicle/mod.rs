//! The vehicle model of the simulated Polaris Ranger: a single-track model whose two
//! axles each have one friction budget, with the load moved between them by the grade
//! and the longitudinal force, and a roll model that ends in a rollover. Fixed step of
//! 120 Hz, semi-implicit Euler (velocities first, then positions with the new
//! velocities).
//!
//! - **Friction.** Each axle's tire force (drive or brake along the wheel, cornering
//!   across it) lies within the circle `μ F_z` of the ground's class and state
//!   ([`ground`]); a demand beyond it is scaled back along its own direction, so a braked
//!   vehicle in a curve decelerates less and turns less than on its own, and no class
//!   ever grips above its μ. A sliding vehicle ploughs: it keeps its momentum and drifts
//!   wide (no trip model; see docs/validation.md).
//! - **At rest.** The brake, the park lock and rolling resistance hold like Coulomb
//!   friction: they take up to their capacity in whichever direction the vehicle would
//!   move, so a braked vehicle stands on a slope its brake and the ground can hold and
//!   slides on one they cannot (also diagonally: `tan θ ≤ μ` for the whole slope).
//! - **Low speed.** Below 0.5 m/s the lateral motion is the kinematic single track (no
//!   slip at the rear axle: the centre of gravity moves sideways at `b r`, the yaw rate
//!   is `v tan δ / L`), within the friction the longitudinal force leaves; above 1.5 m/s
//!   it is the dynamic one (linear tires of the cornering stiffness of each axle); a
//!   smooth blend between. A steered wheel at rest exerts no force.
//! - **Roll.** A second-order roll mode gives the lateral acceleration the body feels;
//!   with the body's roll it sets the inner wheels' load. At zero load the wheels lift
//!   and the body tips about the outer contact line ([`roll`]); past the angle where the
//!   centre of gravity stands over that line, the vehicle has rolled over and lies still.
//!   The roll mode starts in equilibrium with the ground it first stands on.
//!
//! Parameters: block `dynamics` of `control_v1.json` ([`VehicleDynamics`]); friction and
//! rolling resistance per ground class and state in [`ground`].

mod roll;
mod series;
mod tires;

use crate::config::{Axles, DriveAxles, DynamicsConfig};
pub use crate::ground::class::{G, GroundClass, GroundState, ground};
use crate::plant::dbw::{Actuation, DriveMode};
use serde::{Deserialize, Serialize};

/// The physics step, s.
pub const DT_S: f64 = 1.0 / crate::plant::dbw::PHYSICS_HZ as f64;
/// Its rate, 1/s (a multiplication where a division by [`DT_S`] would be).
const HZ: f64 = crate::plant::dbw::PHYSICS_HZ as f64;

/// The parameters of the vehicle model: block `dynamics` of `control_v1.json` with the
/// wheelbase of block `vehicle` and the brake pressure of full braking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VehicleDynamics {
    pub mass_kg: f64,
    pub wheelbase_m: f64,
    /// From the CG to the front axle, m.
    pub cg_to_front_m: f64,
    pub cg_height_m: f64,
    pub track_m: f64,
    pub yaw_inertia_kgm2: f64,
    /// About the longitudinal axis through the CG, kg m².
    pub roll_inertia_kgm2: f64,
    /// Cornering stiffness of the front and the rear axle, N/rad.
    pub cornering_stiffness_n_per_rad: [f64; 2],
    /// Drive force at 100 % throttle, N, and the engine power limit, W.
    pub drive_force_max_n: f64,
    pub power_max_w: f64,
    /// Brake force at full pressure (`brake_bar_max`), N.
    pub brake_force_max_n: f64,
    pub brake_bar_max: f64,
    /// First-order lags of the drive and brake forces, s.
    pub drive_lag_s: f64,
    pub brake_lag_s: f64,
    /// The roll mode: natural frequency, Hz, and damping ratio.
    pub roll_hz: f64,
    pub roll_damping: f64,
    /// Aerodynamic drag `½ ρ c_d A`, kg/m.
    pub drag_kg_per_m: f64,
    /// Body roll per lateral acceleration, rad per m/s², and the roll centre's height, m.
    pub roll_gradient_rad_per_mps2: f64,
    pub roll_centre_height_m: f64,
    /// Whether the brakes have an anti-lock system (without, a brake beyond the grip
    /// locks the wheels, [`tires`]).
    #[serde(default)]
    pub abs: bool,
    /// The axle the park lock holds, and the driven axles of each drive mode.
    pub park_axle: Axles,
    pub drive_axles: DriveAxles,
}

impl VehicleDynamics {
    /// The model's parameters from block `dynamics`, the wheelbase, m, and the brake
    /// pressure of 100 %, bar.
    pub fn new(d: &DynamicsConfig, wheelbase_m: f64, brake_bar_max: f64) -> VehicleDynamics {
        VehicleDynamics {
            mass_kg: d.mass_kg,
            wheelbase_m,
            cg_to_front_m: d.cg_from_front_axle_m,
            cg_height_m: d.cg_height_m,
            track_m: d.track_m,
            yaw_inertia_kgm2: d.yaw_inertia_kgm2,
            roll_inertia_kgm2: d.roll_inertia_kgm2,
            cornering_stiffness_n_per_rad: [
                d.cornering_stiffness_front_n_per_rad,
                d.cornering_stiffness_rear_n_per_rad,
            ],
            drive_force_max_n: d.drive_force_max_n,
            power_max_w: d.power_max_w,
            brake_force_max_n: d.brake_force_max_n,
            brake_bar_max,
            drive_lag_s: d.drive_lag_s,
            brake_lag_s: d.brake_lag_s,
            roll_hz: d.roll_hz,
            roll_damping: d.roll_damping,
            drag_kg_per_m: d.drag_kg_per_m,
            roll_gradient_rad_per_mps2: d.roll_gradient_deg_per_g.to_radians() / G,
            roll_centre_height_m: d.roll_centre_height_m,
            abs: d.abs,
            park_axle: d.park_axle,
            drive_axles: d.drive_axles,
        }
    }

    /// The vehicle of a configuration: its block `dynamics`, the wheelbase of block
    /// `vehicle`, and the brake pressure of 100 % of block `dbw`.
    pub fn of_config(config: &crate::config::Config) -> VehicleDynamics {
        let c = &config.control;
        VehicleDynamics::new(
            &c.dynamics,
            c.vehicle.wheelbase_m,
            100.0 * c.dbw.brake.bar_per_percent,
        )
    }

    /// The quasi-static side slope (rise over run) at which the uphill wheels lift:
    /// `tan φ = e / h`, with `e` half the track less the roll shift at the felt
    /// `g sin φ` (a fixed point, from the static stability factor). The same figure is
    /// the lateral acceleration, in g, of lift on the level.
    pub fn lift_slope(&self) -> f64 {
        let mut tan = self.static_stability_factor();
        for _ in 0..50 {
            let a = G * tan.atan().sin();
            let shift = (self.cg_height_m - self.roll_centre_height_m)
                * (self.roll_gradient_rad_per_mps2 * a).sin();
            tan = (self.track_m / 2.0 - shift) / self.cg_height_m;
        }
        tan
    }

    /// From the CG to the rear axle, m.
    pub fn cg_to_rear_m(&self) -> f64 {
        self.wheelbase_m - self.cg_to_front_m
    }

    /// The driven axles in a drive mode.
    pub fn driven(&self, mode: DriveMode) -> Axles {
        match mode {
            DriveMode::Awd => self.drive_axles.awd,
            DriveMode::TwoWd => self.drive_axles.two_wd,
            DriveMode::Turf => self.drive_axles.turf,
        }
    }

    /// The static stability factor `t / (2 h)`: the lateral acceleration, in g, at which
    /// a rigid vehicle's inner wheels lift (NHTSA's rollover rating).
    pub fn static_stability_factor(&self) -> f64 {
        self.track_m / (2.0 * self.cg_height_m)
    }
}

impl Default for VehicleDynamics {
    /// The shipped parameters.
    fn default() -> Self {
        let geom = crate::config::VehicleGeometry::default();
        VehicleDynamics::new(&DynamicsConfig::default(), geom.wheelbase_m, 80.0)
    }
}

/// The ground under the vehicle in one step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ground {
    pub class: Option<GroundClass>,
    pub state: GroundState,
    /// The grade along the vehicle's heading, rise over run (0.05 = 5 % uphill).
    pub grade: f64,
    /// The grade across the heading, rising to the left (0.1: the left side 10 % higher).
    pub cross_grade: f64,
}

/// The state of the vehicle. The pose is that of the rear axle's middle (the chain's
/// reference point); velocities are of the CG in the body frame.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct VehicleState {
    pub x_m: f64,
    pub y_m: f64,
    pub yaw_rad: f64,
    /// Longitudinal speed of the CG, m/s (negative backwards).
    pub vx_mps: f64,
    /// Lateral speed of the CG, m/s (positive left).
    pub vy_mps: f64,
    pub yaw_rate_rps: f64,
    /// The lateral acceleration felt by the body, m/s², after the roll mode.
    pub roll_accel_mps2: f64,
    pub roll_rate: f64,
    /// The lagged drive and brake forces, N.
    pub drive_n: f64,
    pub brake_n: f64,
    /// Longitudinal acceleration of the last step, m/s².
    pub ax_mps2: f64,
    /// Lateral acceleration `v_x r + v̇_y` of the last step, m/s².
    pub ay_mps2: f64,
    /// The tires' longitudinal force, N, behind the pitch lag: it moves load between the
    /// axles.
    #[serde(default)]
    pub fx_tires_n: f64,
    /// The angle the body has tipped about its outer wheels, rad, and its rate, rad/s.
    #[serde(default)]
    pub tip_rad: f64,
    #[serde(default)]
    pub tip_rate: f64,
    /// Whether the roll mode has been put in equilibrium with the ground.
    #[serde(default)]
    pub settled: bool,
    /// Whether the vehicle has rolled over (it then lies still).
    #[serde(default)]
    pub rolled_over: bool,
}

impl VehicleState {
    /// The CG's velocity in the ground frame, m/s: the body velocities turned by the yaw.
    pub fn ground_velocity(&self) -> (f64, f64) {
        let (sn, cs) = self.yaw_rad.sin_cos();
        (
            cs * self.vx_mps - sn * self.vy_mps,
            sn * self.vx_mps + cs * self.vy_mps,
        )
    }
}

/// What a step tells besides the new state.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepInfo {
    /// The load of the more lightly loaded side over its static load (≤ 0: lifted).
    pub inner_load_ratio: f64,
    /// The inner wheels are off the ground (the warning before a rollover).
    pub wheel_lift: bool,
    /// The vehicle has rolled over.
    pub rolled_over: bool,
    /// An axle's tires slide: the force they were asked for is beyond the friction.
    pub sliding: bool,
    /// The wheels are locked by a brake beyond the grip (no anti-lock system): they
    /// slide and do not steer.
    pub locked: bool,
}

/// The vehicle model.
#[derive(Debug, Clone)]
pub struct Vehicle {
    pub p: VehicleDynamics,
    pub s: VehicleState,
}

impl Vehicle {
    /// A vehicle at rest at a rear-axle pose.
    pub fn new(p: VehicleDynamics, x_m: f64, y_m: f64, yaw_rad: f64) -> Vehicle {
        Vehicle {
            p,
            s: VehicleState {
                x_m,
                y_m,
                yaw_rad,
                ..VehicleState::default()
            },
        }
    }

    /// Where the CG is, m: the rear axle's middle (the pose) moved `b` along the heading.
    pub fn cg_position(&self) -> (f64, f64) {
        let b = self.p.cg_to_rear_m();
        let (sn, cs) = self.s.yaw_rad.sin_cos();
        (self.s.x_m + b * cs, self.s.y_m + b * sn)
    }

    /// The signed speed of the rear axle along the heading, m/s.
    pub fn speed_mps(&self) -> f64 {
        self.s.vx_mps
    }

    /// One physics step with the actuators' outputs on `ground`: the actuator lags, the
    /// axle loads, the tire forces within each axle's friction, the longitudinal and the
    /// lateral motion, the pose, then the roll and the tip. A vehicle that has rolled over
    /// lies still.
    pub fn step(&mut self, act: &Actuation, ground: &Ground) -> StepInfo {
        let p = &self.p;
        let s = &mut self.s;
        if s.rolled_over {
            return roll::lying(s);
        }
        let (mu, crr) = self::ground(ground.class, ground.state);
        let slope = Slope::of(ground);
        if !s.settled {
            // In equilibrium on the slope it stands on: no transient of the roll mode, and
            // the load already moved by the tires' hold against the grade.
            s.roll_accel_mps2 = G * slope.cross_sin;
            s.roll_rate = 0.0;
            s.fx_tires_n = p.mass_kg * G * slope.along_sin;
            s.settled = true;
        }
        actuator_lags(p, s, act);
        let mut forces = tires::forces(p, s, act, &slope, mu, crr);
        let (vx, vy) = (s.vx_mps, s.vy_mps);
        s.vx_mps = forces.vx_mps;
        s.ax_mps2 = (s.vx_mps - vx) * HZ;
        let (vy1, r1) = forces.lateral(p, s, act.road_wheel_rad, G * slope.cross_sin);
        s.vy_mps = vy1;
        s.yaw_rate_rps = r1;
        s.ay_mps2 = (s.vy_mps - vy) * HZ + s.vx_mps * s.yaw_rate_rps;
        // The pitch lag of the load transfer (about 0.1 s).
        s.fx_tires_n += (forces.fx_total_n() - s.fx_tires_n) * (DT_S / 0.1);

        // Positions: the CG moves with the body velocities; the pose is the rear axle.
        let b = p.cg_to_rear_m();
        let (sy, cy) = s.yaw_rad.sin_cos();
        let (vxr, vyr) = (s.vx_mps, s.vy_mps - b * s.yaw_rate_rps);
        s.x_m += (cy * vxr - sy * vyr) * DT_S;
        s.y_m += (sy * vxr + cy * vyr) * DT_S;
        s.yaw_rad += s.yaw_rate_rps * DT_S;
        let mut info = roll::step(p, s, G * slope.cross_sin, slope.normal);
        info.sliding = forces.sliding;
        info.locked = forces.locked;
        info
    }
}

/// The ground's gradient as the vehicle feels it: the sines of the grade along the
/// heading and across it (rising to the left), and the normal load per weight.
pub(crate) struct Slope {
    pub along_sin: f64,
    pub cross_sin: f64,
    pub normal: f64,
}

impl Slope {
    /// On the plane z = g_x x + g_y y (x the heading): the body's x axis is the heading
    /// laid on the plane, `(1, 0, g_x) / √(1 + g_x²)`, its y axis the normal's cross
    /// product with it. Gravity's parts along them are g g_x / √(1 + g_x²) and
    /// g g_y / (√(1 + g_x²) √(1 + g_x² + g_y²)), whose squares add up to sin² θ of the
    /// whole slope; the normal carries 1/√(1 + g_x² + g_y²) of the weight.
    pub fn of(ground: &Ground) -> Slope {
        let (gx, gy) = (ground.grade, ground.cross_grade);
        let along = (1.0 + gx * gx).sqrt();
        let n = (1.0 + gx * gx + gy * gy).sqrt();
        Slope {
            along_sin: gx / along,
            cross_sin: gy / (along * n),
            normal: 1.0 / n,
        }
    }
}

/// The weight of the dynamic single track in the lateral motion: 0 below 0.5 m/s, 1
/// above 1.5 m/s, a smooth step between (continuous, with a continuous slope).
pub fn dynamic_weight(vx: f64) -> f64 {
    let u = ((vx.abs() - 0.5) / 1.0).clamp(0.0, 1.0);
    u * u * (3.0 - 2.0 * u)
}

/// The drive force (the throttle's, limited by the power at speed) and the service brake
/// force (the brake pressure's), each behind its first-order lag. The park lock is not a
/// force here: it locks its axle ([`tires`]).
fn actuator_lags(p: &VehicleDynamics, s: &mut VehicleState, act: &Actuation) {
    let f_drive_cmd = {
        let f = act.throttle_pct / 100.0 * p.drive_force_max_n;
        f.min(p.power_max_w / s.vx_mps.abs().max(1.0))
    };
    s.drive_n += (f_drive_cmd - s.drive_n) * (DT_S / p.drive_lag_s).min(1.0);
    let f_brake_cmd = (act.brake_bar / p.brake_bar_max).clamp(0.0, 1.0) * p.brake_force_max_n;
    s.brake_n += (f_brake_cmd - s.brake_n) * (DT_S / p.brake_lag_s).min(1.0);
}

#[cfg(test)]
mod tests;
