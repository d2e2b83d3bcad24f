//! The `physics` set of `acres validate`: the simulated Polaris against first principles
//! where a farm is dangerous, each row with the figure the physics gives beside the
//! model's. The vehicle is the one of the configuration (block `dynamics`), so a user's
//! own parameters are checked too.
//!
//! - the friction limit `μ g` of each class and state in a circle asked for more;
//! - braking in a curve: the resultant within `μ g`, the stop longer than straight;
//! - a diagonal slope held by the brake only where `tan θ ≤ μ`;
//! - the side slope at which the uphill wheels lift: the static stability factor
//!   `t / 2h` less the roll shift;
//! - the kinematic turn radius `L / tan δ` at low speed;
//! - the ULC's stop and hold on 20 to 40 % of gravel: no roll-back over 1 cm;
//! - the park lock on the rear axle: `tan θ ≤ μ a / (L + μ h)` facing downhill;
//! - two-wheel drive on wet grass: `a_x = μ g a / (L − μ h)` less rolling resistance.

use super::validate::{Check, Verdict};
use crate::chain::envelope::GroundClass;
use crate::config::Config;
use crate::ground::class::{G, GroundState, ground};
use crate::plant::dbw::{Actuation, DbwCommands, DriveMode, UlcCmd};
use crate::plant::vehicle::{Ground, Vehicle, VehicleDynamics};
use crate::plant::world::{Plane, World};
use crate::plant::{Plant, StartPose};
use rayon::prelude::*;

fn pedals(throttle: f64, brake_bar: f64, delta: f64, gear: u8, mode: DriveMode) -> Actuation {
    Actuation {
        road_wheel_rad: delta,
        throttle_pct: throttle,
        brake_bar,
        gear,
        stop_hold: false,
        drive_mode: mode,
    }
}

fn drive(throttle: f64, brake_bar: f64, delta: f64) -> Actuation {
    pedals(throttle, brake_bar, delta, 4, DriveMode::Awd)
}

fn plane(class: GroundClass, state: GroundState, grade: f64, cross: f64) -> Ground {
    Ground {
        class: Some(class),
        state,
        grade,
        cross_grade: cross,
    }
}

/// Every class in both states.
pub(crate) fn every_ground() -> Vec<(GroundClass, GroundState)> {
    GroundClass::ALL
        .iter()
        .flat_map(|c| [(*c, GroundState::Dry), (*c, GroundState::Wet)])
        .collect()
}

/// A throttle that holds `speed` against the losses.
fn governor(v: &Vehicle, speed: f64) -> f64 {
    (6.0 + (speed - v.speed_mps()) * 80.0).clamp(0.0, 100.0)
}

fn row(test: String, reference: String, acres: String, pass: bool) -> Check {
    Check {
        set: "physics",
        test,
        reference,
        acres,
        verdict: if pass { Verdict::Pass } else { Verdict::Fail },
    }
}

/// Runs the set.
pub fn physics(config: &Config) -> Vec<Check> {
    let p = VehicleDynamics::of_config(config);
    vec![
        friction_limit(&p),
        curve_braking(&p),
        diagonal_hold(&p),
        side_slope_lift(&p),
        kinematic_radius(&p, config),
        hill_hold(config),
        park_axle(&p),
        two_wheel_drive(&p),
    ]
}

/// A 7 m circle at 7.8 m/s asks 8.7 m/s²: on each class and state the largest lateral
/// acceleration over μ g.
fn friction_limit(p: &VehicleDynamics) -> Check {
    let delta = (p.wheelbase_m / 7.0).atan();
    let worst = every_ground()
        .par_iter()
        .map(|&(c, s)| {
            let g = plane(c, s, 0.0, 0.0);
            let (mu, _) = ground(g.class, g.state);
            let mut v = Vehicle::new(p.clone(), 0.0, 0.0, 0.0);
            v.s.vx_mps = 7.8;
            let mut peak = 0.0f64;
            for _ in 0..240 {
                let th = governor(&v, 7.8);
                if v.step(&drive(th, 0.0, delta), &g).rolled_over {
                    break;
                }
                peak = peak.max(v.s.ay_mps2.abs());
            }
            peak / (mu * G)
        })
        .reduce(|| 0.0, f64::max);
    row(
        "friction limit: a 7 m circle at 7.8 m/s, 7 classes, dry and wet".into(),
        "lateral acceleration at most μ g of the class and state".into(),
        format!("largest a_y / (μ g) {worst:.3}"),
        worst <= 1.02,
    )
}

/// Full brake from 0.8 of the circle's grip speed on a 10 m circle and on a straight:
/// the distance and the largest resultant acceleration.
fn braked_stop(p: &VehicleDynamics, g: &Ground, speed: f64, delta: f64) -> (f64, f64) {
    let mut v = Vehicle::new(p.clone(), 0.0, 0.0, 0.0);
    v.s.vx_mps = speed;
    for _ in 0..360 {
        let th = governor(&v, speed);
        v.step(&drive(th, 0.0, delta), g);
    }
    let (mut dist, mut peak) = (0.0, 0.0f64);
    for _ in 0..120 * 20 {
        v.step(&drive(0.0, p.brake_bar_max, delta), g);
        dist += v.speed_mps().abs() / 120.0;
        peak = peak.max(v.s.ax_mps2.hypot(v.s.ay_mps2));
        if v.speed_mps() == 0.0 {
            break;
        }
    }
    (dist, peak)
}

fn curve_braking(p: &VehicleDynamics) -> Check {
    let cases = [
        (GroundClass::Grass, GroundState::Wet),
        (GroundClass::Gravel, GroundState::Dry),
    ];
    let mut parts = Vec::new();
    let mut pass = true;
    for (c, s) in cases {
        let g = plane(c, s, 0.0, 0.0);
        let (mu, _) = ground(g.class, g.state);
        let speed = (0.8 * mu * G * 10.0).sqrt();
        let (straight, _) = braked_stop(p, &g, speed, 0.0);
        let (curve, peak) = braked_stop(p, &g, speed, (p.wheelbase_m / 10.0).atan());
        pass &= peak <= 1.02 * mu * G && curve > straight;
        parts.push(format!(
            "{c} {}: peak {:.2} μ g, stop {:.2} m against {straight:.2} m",
            format!("{s:?}").to_lowercase(),
            peak / (mu * G),
            curve
        ));
    }
    row(
        "braking in a 10 m curve from 0.8 of its grip speed, full brake".into(),
        "resultant at most μ g; longer than the straight stop (+16 % if the circle held)".into(),
        parts.join("; "),
        pass,
    )
}

/// The steepest slope, rising at 45° to the heading, that the full brake holds (moves
/// under 1 cm in 10 s), on a 0.01 grid of tan θ.
fn diagonal_limit(p: &VehicleDynamics, c: GroundClass, s: GroundState) -> f64 {
    let holds = |tan: f64| {
        let k = tan / 2f64.sqrt();
        let g = plane(c, s, k, k);
        let mut v = Vehicle::new(p.clone(), 0.0, 0.0, 0.0);
        // Placed with the brake already applied.
        v.s.brake_n = p.brake_force_max_n;
        for _ in 0..1200 {
            v.step(&drive(0.0, p.brake_bar_max, 0.0), &g);
            if v.s.rolled_over {
                return false;
            }
        }
        v.s.x_m.hypot(v.s.y_m) < 0.01
    };
    (1..=120)
        .map(|k| k as f64 / 100.0)
        .take_while(|&t| holds(t))
        .last()
        .unwrap_or(0.0)
}

fn diagonal_hold(p: &VehicleDynamics) -> Check {
    let worst = every_ground()
        .par_iter()
        .map(|&(c, s)| {
            let (mu, _) = ground(Some(c), s);
            (diagonal_limit(p, c, s) - mu).abs()
        })
        .reduce(|| 0.0, f64::max);
    row(
        "diagonal slope (45° to the heading), full brake, 7 classes, dry and wet".into(),
        "holds where tan θ ≤ μ".into(),
        format!("the steepest held slope's tan θ differs from μ by {worst:.3} at most (0.01 grid)"),
        worst <= 0.015,
    )
}

fn side_slope_lift(p: &VehicleDynamics) -> Check {
    let lifts = |cross: f64| {
        let g = plane(GroundClass::Asphalt, GroundState::Dry, 0.0, cross);
        let mut v = Vehicle::new(p.clone(), 0.0, 0.0, 0.0);
        (0..600).any(|_| v.step(&drive(0.0, p.brake_bar_max, 0.0), &g).wheel_lift)
    };
    let model = (40..=200)
        .map(|k| k as f64 * 0.005)
        .find(|&c| lifts(c))
        .unwrap_or(f64::INFINITY);
    let statics = p.lift_slope();
    let ssf = p.static_stability_factor();
    row(
        "side slope at rest, braked, dry asphalt: where the uphill wheels lift".into(),
        format!(
            "SSF t/2h = {:.0} %, less the roll shift: {:.1} %",
            ssf * 100.0,
            statics * 100.0
        ),
        format!("lifts from {:.1} % (0.5 % grid)", model * 100.0),
        (model - statics).abs() <= 0.006,
    )
}

fn kinematic_radius(p: &VehicleDynamics, config: &Config) -> Check {
    let st = &config.control.dbw.steering;
    let full = (st.max_wheel_deg / st.ratio).to_radians();
    let kin = p.wheelbase_m / full.tan();
    let radius = |speed: f64| {
        let mut v = Vehicle::new(p.clone(), 0.0, 0.0, 0.0);
        v.s.vx_mps = speed;
        let flat = plane(GroundClass::Asphalt, GroundState::Dry, 0.0, 0.0);
        for _ in 0..1200 {
            let th = governor(&v, speed);
            v.step(&drive(th, 0.0, full), &flat);
        }
        let vy_rear = v.s.vy_mps - p.cg_to_rear_m() * v.s.yaw_rate_rps;
        v.speed_mps().hypot(vy_rear) / v.s.yaw_rate_rps.abs()
    };
    let (slow, two) = (radius(0.3), radius(2.0));
    row(
        format!(
            "turn radius at full lock ({:.1}° at the road wheel), 0.3 and 2 m/s",
            full.to_degrees()
        ),
        format!("L / tan δ = {kin:.3} m"),
        format!("{slow:.3} m and {two:.3} m"),
        (slow / kin - 1.0).abs() < 0.005 && (two / kin - 1.0).abs() < 0.04,
    )
}

/// The ULC's stop from 3 m/s on a gravel plane, then 20 s held: the roll-back after the
/// furthest point and the motion at rest, m.
fn ulc_stop(config: &Config, slope_pct: f64) -> (f64, f64) {
    let plane = Plane {
        class: Some(GroundClass::Gravel),
        state: GroundState::Dry,
        slope_pct,
        slope_dir_deg: 0.0,
    };
    let start = StartPose {
        speed_mps: 3.0,
        ..StartPose::default()
    };
    let mut plant = Plant::new(config, World::new(plane, vec![]), start, true);
    let stop = DbwCommands {
        ulc_cmd: Some(UlcCmd {
            cmd: 0.0,
            cmd_type: 1,
            enable: true,
            ..UlcCmd::default()
        }),
        ..DbwCommands::default()
    };
    let (mut far, mut back, mut rest) = (
        f64::NEG_INFINITY,
        0.0f64,
        (f64::INFINITY, f64::NEG_INFINITY),
    );
    for k in 0..120 * 28 {
        if plant.is_control_step() {
            plant.apply(&stop);
        }
        plant.physics();
        let x = plant.vehicle.s.x_m;
        far = far.max(x);
        back = back.max(far - x);
        if k >= 120 * 8 {
            rest = (rest.0.min(x), rest.1.max(x));
        }
    }
    (back, rest.1 - rest.0)
}

fn hill_hold(config: &Config) -> Check {
    let slopes = [20.0, 30.0, 40.0, -20.0, -30.0, -40.0];
    let runs: Vec<(f64, f64)> = slopes.par_iter().map(|&s| ulc_stop(config, s)).collect();
    let back = runs.iter().map(|r| r.0).fold(0.0, f64::max);
    let moved = runs.iter().map(|r| r.1).fold(0.0, f64::max);
    row(
        "ULC stop from 3 m/s on 20, 30, 40 % of dry gravel, up and down, then 20 s held".into(),
        "no roll-back over 1 cm (μ 0.65 and the brake's 0.68 g can hold 40 %)".into(),
        format!(
            "roll-back {:.1} mm at most, {:.1} mm of motion at rest",
            back * 1000.0,
            moved * 1000.0
        ),
        back <= 0.01 && moved <= 0.01,
    )
}

/// The steepest downhill (nose down) the park lock holds on dry gravel, on a 0.005 grid.
fn park_axle(p: &VehicleDynamics) -> Check {
    let (mu, crr) = ground(Some(GroundClass::Gravel), GroundState::Dry);
    let holds = |tan: f64| {
        let g = plane(GroundClass::Gravel, GroundState::Dry, -tan, 0.0);
        let mut v = Vehicle::new(p.clone(), 0.0, 0.0, 0.0);
        for _ in 0..600 {
            v.step(&pedals(0.0, 0.0, 0.0, 1, DriveMode::Awd), &g);
        }
        v.s.x_m.abs() < 0.01
    };
    let model = (1..=200)
        .map(|k| k as f64 * 0.005)
        .take_while(|&t| holds(t))
        .last()
        .unwrap_or(0.0);
    let (l, h) = (p.wheelbase_m, p.cg_height_m);
    let a = p.cg_to_front_m;
    let b = p.cg_to_rear_m();
    // The locked axle's μ F_z and the free axle's rolling resistance hold; facing
    // downhill the load moves to the front by h tan θ / L of the weight.
    let statics = match p.park_axle {
        crate::config::Axles::Rear => (mu * a + crr * b) / (l + (mu - crr) * h),
        crate::config::Axles::Front => (mu * b + crr * a) / (l - (mu - crr) * h),
        crate::config::Axles::Both => mu,
    };
    row(
        format!(
            "park lock ({:?} axle) facing downhill, dry gravel (μ {mu})",
            p.park_axle
        )
        .to_lowercase(),
        format!(
            "(μ a + c_rr b) / (L + (μ − c_rr) h) = {:.1} %",
            statics * 100.0
        ),
        format!("holds to {:.1} % (0.5 % grid)", model * 100.0),
        (model - statics).abs() <= 0.006,
    )
}

fn two_wheel_drive(p: &VehicleDynamics) -> Check {
    let g = plane(GroundClass::Grass, GroundState::Wet, 0.0, 0.0);
    let (mu, crr) = ground(g.class, g.state);
    let accel = |mode: DriveMode| {
        let mut v = Vehicle::new(p.clone(), 0.0, 0.0, 0.0);
        for _ in 0..120 {
            v.step(&pedals(100.0, 0.0, 0.0, 4, mode), &g);
        }
        let v0 = v.speed_mps();
        for _ in 0..60 {
            v.step(&pedals(100.0, 0.0, 0.0, 4, mode), &g);
        }
        (v.speed_mps() - v0) / 0.5
    };
    let driven = p.driven(DriveMode::TwoWd);
    let (l, h) = (p.wheelbase_m, p.cg_height_m);
    // The driven axle's μ F_z less every wheel's rolling resistance; the load moves to the
    // rear by h a_x / L of the weight.
    let statics = match driven {
        crate::config::Axles::Rear => G * (mu * p.cg_to_front_m - crr * l) / (l - mu * h),
        crate::config::Axles::Front => G * (mu * p.cg_to_rear_m() - crr * l) / (l + mu * h),
        crate::config::Axles::Both => (mu - crr) * G,
    };
    let model = accel(DriveMode::TwoWd);
    row(
        "full throttle in 2wd on wet grass (μ 0.35)".into(),
        format!("a_x = g (μ a − c_rr L) / (L − μ h) = {statics:.2} m/s²"),
        format!("{model:.2} m/s² (awd {:.2})", accel(DriveMode::Awd)),
        (model - statics).abs() <= 0.15,
    )
}
