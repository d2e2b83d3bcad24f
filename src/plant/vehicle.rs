//! The vehicle model of the simulated Polaris Ranger (groundwork for [sim]): a dynamic
//! single-track model with tire forces limited by the ground's friction, rolling
//! resistance, the grade force, lateral load transfer through a roll mode and the body's
//! roll, the trip of a sliding tire on deformable ground, and wheel-lift detection; drive
//! and brake forces with actuator lag. On pavement a wheel lifts only where the grip
//! exceeds the rollover threshold (dry); wet pavement slides; soft ground trips. Fixed step of 120 Hz,
//! semi-implicit Euler (velocities first, then positions with the new velocities).
//!
//! The tire model has no static friction at zero speed (vehicle-software.md "Stop and
//! Hold on a Slope"): the brake force fades to 0 as the speed does, `F_b tanh(v / v_ε)`,
//! so a braked vehicle creeps on a slope unless the ULC's standstill hold removes the
//! horizontal chassis velocity, which [`Vehicle::step`] does when told to.
//!
//! Parameters and their sources are in [`VehicleDynamics`]; friction and rolling
//! resistance per ground class and state in [`ground`].

use crate::chain::envelope::GroundClass;
use crate::plant::dbw::Actuation;
use serde::{Deserialize, Serialize};

/// The physics step, s.
pub const DT_S: f64 = 1.0 / crate::plant::dbw::PHYSICS_HZ as f64;
/// Gravity, m/s².
pub const G: f64 = 9.81;

/// The state of the ground under the vehicle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroundState {
    #[default]
    Dry,
    Wet,
}

/// Friction coefficient and rolling resistance of a class in a state. Typical values of
/// the tire–ground literature for off-road tires (peak friction: dry asphalt 0.9, wet 0.6;
/// loose gravel 0.6; grass 0.55 dry, 0.35 wet); rolling resistance from 0.015 on
/// pavement to 0.08 on a tilled field. They are model inputs, not measurements of the
/// Ranger: the limits of the envelope come from the stops measured on the model.
pub fn ground(class: Option<GroundClass>, state: GroundState) -> (f64, f64) {
    use GroundClass::*;
    let (dry, wet, crr) = match class {
        Some(Asphalt) => (0.90, 0.60, 0.015),
        Some(Concrete) => (0.85, 0.60, 0.015),
        Some(Gravel) => (0.65, 0.50, 0.030),
        Some(GrassLane) => (0.60, 0.40, 0.050),
        Some(Dirt) => (0.65, 0.45, 0.040),
        Some(Grass) => (0.55, 0.35, 0.060),
        Some(Field) => (0.50, 0.35, 0.080),
        None => (0.50, 0.35, 0.080),
    };
    (if state == GroundState::Dry { dry } else { wet }, crr)
}

/// Whether a class gives under a sliding tire (all but pavement): the soil that builds up
/// against the sidewall of a tire sliding sideways trips the vehicle, the common way
/// off-road vehicles roll over (NHTSA: most rollovers are tripped).
pub fn deformable(class: Option<GroundClass>) -> bool {
    !matches!(
        class,
        Some(GroundClass::Asphalt) | Some(GroundClass::Concrete)
    )
}

/// The dynamic parameters of the Ranger (an acres choice where no source is named):
/// mass with the sensor rig and one occupant on a curb mass of about 860 kg (Polaris);
/// the CG 45 % of the wheelbase behind the front axle, 0.8 m high with the roof sensor
/// rig and an occupant, on a 1.27 m track (a rollover threshold near 0.76 g with the
/// body roll, in the range of the dynamic thresholds measured on ROVs, 0.6 to 0.8 g)
/// (Ranger XP 1000: 50 in); yaw inertia from the radius of gyration √(a b); the drive and
/// brake forces consistent with the ULC's inverse map in `dbw.ulc` (20 % throttle and
/// 15 % brake per m/s²); a roll mode of 1.4 Hz with damping 0.3; a roll gradient of 6°
/// per g about a roll centre 0.3 m high, typical of a long-travel UTV suspension; the trip
/// on deformable ground: the lateral grip rises to 1.0 as an axle's sideways slide grows
/// from 0.2 to 0.6 m/s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VehicleDynamics {
    pub mass_kg: f64,
    pub wheelbase_m: f64,
    /// From the CG to the front axle, m.
    pub cg_to_front_m: f64,
    pub cg_height_m: f64,
    pub track_m: f64,
    pub yaw_inertia_kgm2: f64,
    /// Cornering stiffness of each axle, N/rad.
    pub cornering_stiffness_n_per_rad: f64,
    /// Drive force at 100 % throttle, N, and the engine power limit, W.
    pub drive_force_max_n: f64,
    pub power_max_w: f64,
    /// Brake force at 80 bar (100 %), N.
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
    /// Body roll per lateral acceleration, rad per m/s², and the roll centre's height, m:
    /// the rolled body shifts the CG toward the outer wheels.
    pub roll_gradient_rad_per_mps2: f64,
    pub roll_centre_height_m: f64,
    /// The lateral grip of a tripped tire on deformable ground, and the sideways slide
    /// speeds of an axle over which the trip builds up, m/s.
    pub trip_mu: f64,
    pub trip_slide_mps: [f64; 2],
}

impl Default for VehicleDynamics {
    fn default() -> Self {
        let m = 950.0;
        let l = 2.06;
        let a = 0.45 * l;
        VehicleDynamics {
            mass_kg: m,
            wheelbase_m: l,
            cg_to_front_m: a,
            cg_height_m: 0.8,
            track_m: 1.27,
            yaw_inertia_kgm2: m * a * (l - a),
            cornering_stiffness_n_per_rad: 30_000.0,
            drive_force_max_n: m * 100.0 / 20.0,
            power_max_w: 61_000.0,
            brake_force_max_n: m * 100.0 / 15.0,
            brake_bar_max: 80.0,
            drive_lag_s: 0.15,
            brake_lag_s: 0.1,
            roll_hz: 1.4,
            roll_damping: 0.3,
            drag_kg_per_m: 0.6 * 1.2 * 0.9 * 2.4 / 2.0,
            roll_gradient_rad_per_mps2: 6f64.to_radians() / G,
            roll_centre_height_m: 0.3,
            trip_mu: 1.0,
            trip_slide_mps: [0.2, 0.6],
        }
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
}

/// What a step tells besides the new state.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepInfo {
    /// The load of the more lightly loaded side over its static load (≤ 0: lifted).
    pub inner_load_ratio: f64,
    pub wheel_lift: bool,
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

    /// The signed speed of the rear axle along the heading, m/s.
    pub fn speed_mps(&self) -> f64 {
        self.s.vx_mps
    }

    /// One physics step with the actuators' outputs on `ground`: the actuator lags, the
    /// tire forces, the longitudinal motion with friction that holds at rest, the lateral
    /// motion (a blend of the dynamic and the kinematic single track at low speed), the
    /// pose, then the roll mode and the inner wheels' load.
    pub fn step(&mut self, act: &Actuation, ground: &Ground) -> StepInfo {
        let p = &self.p;
        let s = &mut self.s;
        let (mu, crr) = self::ground(ground.class, ground.state);
        let slope = Slope::of(ground);
        actuator_lags(p, s, act);
        let delta = act.road_wheel_rad;
        let normal = slope.normal;
        let (fyf, fyr) = lateral_forces(p, s, delta, mu * normal, deformable(ground.class));
        let (vx, vy, r) = (s.vx_mps, s.vy_mps, s.yaw_rate_rps);

        s.vx_mps = longitudinal(p, s, act.gear, mu, crr, &slope, fyf * delta.sin());
        let ax = (s.vx_mps - vx) / DT_S;

        // Lateral: the dynamic single track, and at low speed (where slip angles lose
        // their meaning) the kinematic one, whose tires hold the body sideways up to the
        // ground's friction; blended continuously from 0.5 to 1.5 m/s.
        let (a, b) = (p.cg_to_front_m, p.wheelbase_m - p.cg_to_front_m);
        let g_lat = -G * slope.cross_sin;
        let ay_tires = (fyf * delta.cos() + fyr) / p.mass_kg;
        let r_dot = (a * fyf * delta.cos() - b * fyr) / p.yaw_inertia_kgm2;
        let vy_dyn = vy + (ay_tires + g_lat - vx * r) * DT_S;
        let r_dyn = r + r_dot * DT_S;
        let r_kin = s.vx_mps * delta.tan() / p.wheelbase_m;
        let grip = mu * G * normal;
        let a_hold = (-vy / DT_S - g_lat).clamp(-grip, grip);
        let vy_kin = vy + (a_hold + g_lat) * DT_S;
        let w = dynamic_weight(vx);
        s.vy_mps = w * vy_dyn + (1.0 - w) * vy_kin;
        s.yaw_rate_rps = w * r_dyn + (1.0 - w) * r_kin;
        s.ax_mps2 = ax;
        s.ay_mps2 = (s.vy_mps - vy) / DT_S + s.vx_mps * s.yaw_rate_rps;

        // Positions: the CG moves with the body velocities; the pose is the rear axle.
        let (sy, cy) = s.yaw_rad.sin_cos();
        let (vxr, vyr) = (s.vx_mps, s.vy_mps - b * s.yaw_rate_rps);
        s.x_m += (cy * vxr - sy * vyr) * DT_S;
        s.y_m += (sy * vxr + cy * vyr) * DT_S;
        s.yaw_rad += s.yaw_rate_rps * DT_S;
        roll(p, s, G * slope.cross_sin, normal)
    }
}

/// The ground's gradient as the vehicle feels it: the sines of the grade along the
/// heading and across it (rising to the left), and the normal load per weight.
struct Slope {
    along_sin: f64,
    cross_sin: f64,
    normal: f64,
}

impl Slope {
    /// On the plane z = g_x x + g_y y (body axes): the tangent along each axis meets
    /// gravity at g/√(1 + g²) of its grade, and the normal carries 1/√(1 + g_x² + g_y²)
    /// of the weight.
    fn of(ground: &Ground) -> Slope {
        let (gx, gy) = (ground.grade, ground.cross_grade);
        Slope {
            along_sin: gx / (1.0 + gx * gx).sqrt(),
            cross_sin: gy / (1.0 + gy * gy).sqrt(),
            normal: 1.0 / (1.0 + gx * gx + gy * gy).sqrt(),
        }
    }
}

/// The weight of the dynamic single track in the lateral motion: 0 below 0.5 m/s, 1
/// above 1.5 m/s, a smooth step between (continuous, with a continuous slope).
pub fn dynamic_weight(vx: f64) -> f64 {
    let u = ((vx.abs() - 0.5) / 1.0).clamp(0.0, 1.0);
    u * u * (3.0 - 2.0 * u)
}

/// The new longitudinal speed after one step. The pushing forces (the drive within the
/// ground's friction, drag, the grade, the front tire's drag in a turn) move the vehicle;
/// the resisting ones (the brake within the friction, rolling resistance) oppose its
/// motion and, Coulomb-like, bring it to rest and hold it there while the push is within
/// them: a braked vehicle stands on a slope its brake and the ground can hold, and slides
/// on one they cannot.
fn longitudinal(
    p: &VehicleDynamics,
    s: &VehicleState,
    gear: u8,
    mu: f64,
    crr: f64,
    slope: &Slope,
    front_drag_n: f64,
) -> f64 {
    let m = p.mass_kg;
    // Gear: reverse drives backwards; park and neutral give no drive.
    let dir = match gear {
        2 => -1.0,
        4 | 5 => 1.0,
        _ => 0.0,
    };
    let vx = s.vx_mps;
    let friction = mu * m * G * slope.normal;
    let push = (dir * s.drive_n).clamp(-friction, friction)
        - p.drag_kg_per_m * vx * vx.abs()
        - m * G * slope.along_sin
        - front_drag_n;
    // A locked wheel slides: brake and rolling resistance together within the friction.
    let resist = (s.brake_n + crr * m * G * slope.normal).min(friction);
    let v_free = vx + (push / m + s.vy_mps * s.yaw_rate_rps) * DT_S;
    let dv = resist / m * DT_S;
    if v_free.abs() <= dv {
        0.0
    } else {
        v_free - dv * v_free.signum()
    }
}

/// The drive force (the throttle's, limited by the power at speed) and the brake force
/// (the brake pressure's, and the full brake in park), each behind its first-order lag.
fn actuator_lags(p: &VehicleDynamics, s: &mut VehicleState, act: &Actuation) {
    let f_drive_cmd = {
        let f = act.throttle_pct / 100.0 * p.drive_force_max_n;
        f.min(p.power_max_w / s.vx_mps.abs().max(1.0))
    };
    s.drive_n += (f_drive_cmd - s.drive_n) * (DT_S / p.drive_lag_s).min(1.0);
    let f_brake_cmd = (act.brake_bar / p.brake_bar_max).clamp(0.0, 1.0) * p.brake_force_max_n
        + if act.gear == 1 {
            p.brake_force_max_n
        } else {
            0.0
        };
    s.brake_n += (f_brake_cmd - s.brake_n) * (DT_S / p.brake_lag_s).min(1.0);
}

/// The lateral tire forces of the front and rear axle, N: linear in the slip angle up to
/// the friction `mu`; on deformable ground the sideways slide beyond saturation builds
/// the trip toward `trip_mu`. Slip angles take at least 1 m/s, where they are not defined.
fn lateral_forces(
    p: &VehicleDynamics,
    s: &VehicleState,
    delta: f64,
    mu: f64,
    trips: bool,
) -> (f64, f64) {
    let m = p.mass_kg;
    let (a, b) = (p.cg_to_front_m, p.wheelbase_m - p.cg_to_front_m);
    let vx = s.vx_mps;
    let vxs = vx.abs().max(1.0);
    let sgn = if vx < 0.0 { -1.0 } else { 1.0 };
    let alpha_f = ((s.vy_mps + a * s.yaw_rate_rps) / vxs) * sgn - delta;
    let alpha_r = ((s.vy_mps - b * s.yaw_rate_rps) / vxs) * sgn;
    let fz_f = m * G * b / p.wheelbase_m;
    let fz_r = m * G * a / p.wheelbase_m;
    let [s0, s1] = p.trip_slide_mps;
    let fy = |alpha: f64, fz: f64| {
        // The sideways slide of the axle beyond the tire's saturation builds the trip.
        let mu_y = if trips {
            let slide = vxs * (alpha.abs() - mu * fz / p.cornering_stiffness_n_per_rad);
            let w = ((slide - s0) / (s1 - s0)).clamp(0.0, 1.0);
            mu + (p.trip_mu - mu).max(0.0) * w * w * (3.0 - 2.0 * w)
        } else {
            mu
        };
        (-p.cornering_stiffness_n_per_rad * alpha).clamp(-mu_y * fz, mu_y * fz)
    };
    (fy(alpha_f, fz_f) * sgn, fy(alpha_r, fz_r) * sgn)
}

/// Roll: a second-order mode driven by the lateral acceleration; the load transfer follows
/// the body's roll acceleration. The inner wheels' load over their static load comes from
/// the moments about the outer contact line: the lateral force at the CG height, and the
/// CG shifted outward by the body's roll about the roll centre.
fn roll(p: &VehicleDynamics, s: &mut VehicleState, g_cross: f64, normal: f64) -> StepInfo {
    let wn = std::f64::consts::TAU * p.roll_hz;
    // The lateral force the body feels per mass: the acceleration and, on a side slope,
    // gravity's component across it (both load the downhill, or outer, wheels).
    let felt = s.ay_mps2 + g_cross;
    let acc = wn * wn * (felt - s.roll_accel_mps2) - 2.0 * p.roll_damping * wn * s.roll_rate;
    s.roll_rate += acc * DT_S;
    s.roll_accel_mps2 += s.roll_rate * DT_S;
    let ay_body = s.roll_accel_mps2.abs();
    let shift =
        (p.cg_height_m - p.roll_centre_height_m) * (p.roll_gradient_rad_per_mps2 * ay_body).sin();
    let inner =
        1.0 - 2.0 * shift / p.track_m - 2.0 * ay_body * p.cg_height_m / (G * normal * p.track_m);
    StepInfo {
        inner_load_ratio: inner,
        wheel_lift: inner <= 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(throttle: f64, brake_bar: f64, delta: f64) -> Actuation {
        Actuation {
            road_wheel_rad: delta,
            throttle_pct: throttle,
            brake_bar,
            gear: 4,
            stop_hold: false,
        }
    }

    const FLAT: Ground = Ground {
        class: Some(GroundClass::Asphalt),
        state: GroundState::Dry,
        grade: 0.0,
        cross_grade: 0.0,
    };

    #[test]
    fn throttle_accelerates_and_the_brake_stops_without_reversing() {
        let mut v = Vehicle::new(VehicleDynamics::default(), 0.0, 0.0, 0.0);
        for _ in 0..600 {
            v.step(&act(30.0, 0.0, 0.0), &FLAT);
        }
        assert!(v.speed_mps() > 5.0, "{}", v.speed_mps());
        assert!(v.s.y_m.abs() < 1e-9 && v.s.yaw_rad.abs() < 1e-12);
        for _ in 0..1200 {
            v.step(&act(0.0, 40.0, 0.0), &FLAT);
        }
        assert!(v.speed_mps().abs() < 0.01 && v.speed_mps() >= -1e-6);
    }

    #[test]
    fn slow_steady_turn_follows_the_kinematic_radius() {
        // 0.8 m/s at a road wheel angle of 0.1 rad: R = L / tan δ = 20.6 m.
        let mut v = Vehicle::new(VehicleDynamics::default(), 0.0, 0.0, 0.0);
        v.s.vx_mps = 0.8;
        let delta = 0.1f64;
        let mut yaw_rates = Vec::new();
        for _ in 0..600 {
            // Enough throttle to hold the speed against rolling resistance.
            v.step(&act(3.0 + (0.8 - v.speed_mps()) * 50.0, 0.0, delta), &FLAT);
            yaw_rates.push(v.s.yaw_rate_rps);
        }
        let r = v.speed_mps() / v.s.yaw_rate_rps;
        assert!((r - 2.06 / delta.tan()).abs() < 0.5, "R = {r}");
    }

    #[test]
    fn a_hard_turn_at_speed_lifts_a_wheel_and_friction_caps_the_grip() {
        let mut v = Vehicle::new(VehicleDynamics::default(), 0.0, 0.0, 0.0);
        v.s.vx_mps = 7.8;
        let mut lifted = false;
        let mut max_ay = 0.0f64;
        for _ in 0..240 {
            // 0.2 1/m at the road wheel: atan(0.2 × 2.06).
            let i = v.step(&act(30.0, 0.0, (0.2f64 * 2.06).atan()), &FLAT);
            lifted |= i.wheel_lift;
            max_ay = max_ay.max(v.s.ay_mps2.abs());
        }
        assert!(lifted, "largest lateral acceleration {max_ay}");
        assert!(max_ay <= 0.9 * G * 1.2, "{max_ay}");
        // At 2.5 m/s the same turn is 1.25 m/s²: no lift.
        let mut v = Vehicle::new(VehicleDynamics::default(), 0.0, 0.0, 0.0);
        v.s.vx_mps = 2.5;
        for _ in 0..240 {
            let i = v.step(&act(5.0, 0.0, (0.2f64 * 2.06).atan()), &FLAT);
            assert!(!i.wheel_lift);
        }
    }

    /// Runs `n` steps of `a` on `g` from rest; the vehicle.
    fn at_rest_on(g: &Ground, a: &Actuation, n: usize) -> Vehicle {
        let mut v = Vehicle::new(VehicleDynamics::default(), 0.0, 0.0, 0.0);
        for _ in 0..n {
            v.step(a, g);
        }
        v
    }

    #[test]
    fn the_brake_holds_at_rest_what_the_brake_and_the_ground_can_hold() {
        // 40 % downhill, full brake, dry gravel (μ 0.6 > 0.4): held within 9 mm in 30 s.
        let down = Ground {
            class: Some(GroundClass::Gravel),
            grade: -0.4,
            ..FLAT
        };
        let v = at_rest_on(&down, &act(0.0, 80.0, 0.0), 120 * 30);
        assert!(v.s.x_m.abs() <= 0.009, "moved {} m", v.s.x_m);
        assert_eq!(v.speed_mps(), 0.0);
        // The same with 40 bar on an 8 % grade: held (it crept before, with no static
        // friction in the tire model).
        let gentle = Ground {
            grade: 0.08,
            ..FLAT
        };
        let v = at_rest_on(&gentle, &act(0.0, 40.0, 0.0), 1200);
        // (It rolls a fraction of a millimetre while the brake builds from 0.)
        assert!(v.s.x_m.abs() < 0.001 && v.speed_mps() == 0.0, "{:?}", v.s);
        // 60 % uphill on wet field (μ 0.35 < 0.6): full brake cannot hold; it slides back
        // at about g (sin θ − μ cos θ) = 2.5 m/s².
        let wet = Ground {
            class: Some(GroundClass::Field),
            state: GroundState::Wet,
            grade: 0.6,
            cross_grade: 0.0,
        };
        let (mu, _) = ground(wet.class, wet.state);
        let v = at_rest_on(&wet, &act(0.0, 80.0, 0.0), 120);
        let th = 0.6f64.atan();
        let a = G * (th.sin() - mu * th.cos());
        assert!(v.speed_mps() < -0.8 * a, "{} m/s after 1 s", v.speed_mps());
        assert!(v.speed_mps() > -1.1 * a);
        // A brake too weak for the grade (5 % brake on 40 %) does not hold either.
        let v = at_rest_on(&down, &act(0.0, 4.0, 0.0), 120);
        assert!(v.speed_mps() > 1.0, "{}", v.speed_mps());
    }

    #[test]
    fn a_side_slope_pulls_sideways_loads_the_downhill_wheels_and_can_tip() {
        // 30 % side slope rising to the left, at rest, braked: the tires hold the body
        // (μ 0.9 dry asphalt) and the felt lateral force is g sin φ toward the uphill side.
        let side = Ground {
            cross_grade: 0.3,
            ..FLAT
        };
        let mut v = at_rest_on(&side, &act(0.0, 40.0, 0.0), 600);
        assert!(v.s.y_m.abs() < 1e-9 && v.s.vy_mps.abs() < 1e-9, "{:?}", v.s);
        let phi = 0.3f64.atan();
        assert!(
            (v.s.roll_accel_mps2 - G * phi.sin()).abs() < 0.01,
            "{:?}",
            v.s
        );
        let i = v.step(&act(0.0, 40.0, 0.0), &side);
        assert!(i.inner_load_ratio < 1.0 && i.inner_load_ratio > 0.0);
        // The static stability: the inner wheels unload at the side slope where
        // 2 h tan φ / t plus the roll shift reaches 1 (60 % lifts, 40 % does not).
        let lift = |cross: f64| {
            let g = Ground {
                cross_grade: cross,
                class: Some(GroundClass::Asphalt),
                ..FLAT
            };
            let mut v = Vehicle::new(VehicleDynamics::default(), 0.0, 0.0, 0.0);
            let mut lifted = false;
            for _ in 0..600 {
                lifted |= v.step(&act(0.0, 80.0, 0.0), &g).wheel_lift;
            }
            lifted
        };
        assert!(
            !lift(0.4) && lift(0.7),
            "the rollover threshold lies between 40 and 70 %"
        );
        // 60 % across wet field: the tires cannot hold; the body slides downhill (right).
        let wet = Ground {
            class: Some(GroundClass::Field),
            state: GroundState::Wet,
            grade: 0.0,
            cross_grade: 0.6,
        };
        let v = at_rest_on(&wet, &act(0.0, 80.0, 0.0), 120);
        assert!(v.s.vy_mps < -1.0, "{:?}", v.s);
        // Driving straight across a 30 % side slope: the pull shows as a drift downhill.
        let mut v = Vehicle::new(VehicleDynamics::default(), 0.0, 0.0, 0.0);
        v.s.vx_mps = 4.0;
        for _ in 0..240 {
            v.step(&act(8.0, 0.0, 0.0), &side);
        }
        assert!(v.s.y_m < -0.1, "no drift: {:?}", v.s);
    }

    #[test]
    fn the_lateral_model_blends_continuously_at_low_speed() {
        // The steady lateral acceleration of a fixed steer against the speed, across the
        // blend from 0.5 to 1.5 m/s: no jump between neighbouring speeds.
        let steady_ay = |speed: f64| {
            let mut v = Vehicle::new(VehicleDynamics::default(), 0.0, 0.0, 0.0);
            v.s.vx_mps = speed;
            for _ in 0..360 {
                let th = 3.0 + (speed - v.speed_mps()) * 80.0;
                v.step(&act(th.max(0.0), 0.0, 0.1), &FLAT);
            }
            v.s.ay_mps2
        };
        let speeds: Vec<f64> = (0..=24).map(|k| 0.4 + 0.05 * k as f64).collect();
        let ays: Vec<f64> = speeds.iter().map(|&s| steady_ay(s)).collect();
        for (w, s) in ays.windows(2).zip(&speeds) {
            assert!(
                (w[1] - w[0]).abs() < 0.02,
                "at {s:.2} m/s: {:.4} → {:.4}",
                w[0],
                w[1]
            );
        }
        assert!(ays[24] > ays[0]);
        assert_eq!(dynamic_weight(0.5), 0.0);
        assert_eq!(dynamic_weight(1.5), 1.0);
        assert_eq!(dynamic_weight(-1.0), 0.5);
    }

    #[test]
    fn friction_and_rolling_resistance_per_class() {
        let (mu_d, crr) = ground(Some(GroundClass::Asphalt), GroundState::Dry);
        let (mu_w, _) = ground(Some(GroundClass::Asphalt), GroundState::Wet);
        assert!(mu_w < mu_d && crr > 0.0);
        let (mu_f, crr_f) = ground(Some(GroundClass::Field), GroundState::Dry);
        assert!(mu_f < mu_d && crr_f > crr);
    }
}
