//! The simulated Polaris's steady turns, for a peer to compare (tests/peers/
//! commonroad_models.py runs it against CommonRoad's single-track models).
//!
//! `steady_turn params` prints the vehicle's parameters as JSON (the shipped block
//! `dynamics` with the wheelbase); `steady_turn turns` reads lines `SPEED DELTA` (m/s at
//! the CG along the body, road wheel angle in rad) from stdin and prints for each
//! `SPEED DELTA VX YAW_RATE AY BETA`: the speed the governor held, m/s, and the steady
//! yaw rate, rad/s, lateral acceleration, m/s², and slip angle at the CG, rad, after 20 s
//! at that speed on dry asphalt.
//! `steady_turn turns PARAMS` uses the parameters of the JSON `PARAMS` (as `params`
//! prints them) instead of the shipped ones.
//! `steady_turn sine SPEED AMP_RAD FREQ_HZ SECONDS [PARAMS]` steers `AMP sin(2π f t)`
//! from straight running at `SPEED` (held by the governor) and prints the CG's final
//! `X Y YAW` (m, m, rad) from where it started, heading along x.

use acres::plant::dbw::{Actuation, DriveMode};
use acres::plant::vehicle::{Ground, GroundClass, GroundState, Vehicle, VehicleDynamics};
use std::io::BufRead;

/// Flat dry asphalt.
const FLAT: Ground = Ground {
    class: Some(GroundClass::Asphalt),
    state: GroundState::Dry,
    grade: 0.0,
    cross_grade: 0.0,
};

/// One physics step with the road wheels at `delta` and a governor that holds `speed`
/// (its force is small against the tires' lateral).
fn governed_step(v: &mut Vehicle, speed: f64, delta: f64) {
    let throttle = (6.0 + (speed - v.speed_mps()) * 200.0).clamp(0.0, 100.0);
    let act = Actuation {
        road_wheel_rad: delta,
        throttle_pct: throttle,
        brake_bar: 0.0,
        gear: 4,
        stop_hold: false,
        drive_mode: DriveMode::Awd,
    };
    v.step(&act, &FLAT);
}

fn steady(p: &VehicleDynamics, speed: f64, delta: f64) -> [f64; 4] {
    let mut v = Vehicle::new(p.clone(), 0.0, 0.0, 0.0);
    v.s.vx_mps = speed;
    for _ in 0..120 * 20 {
        governed_step(&mut v, speed, delta);
    }
    let s = &v.s;
    [
        s.vx_mps,
        s.yaw_rate_rps,
        s.ay_mps2,
        s.vy_mps.atan2(s.vx_mps),
    ]
}

/// The sine steer: the CG's final place and heading.
fn sine(p: &VehicleDynamics, speed: f64, amp: f64, freq: f64, seconds: f64) -> [f64; 3] {
    let b = p.wheelbase_m - p.cg_to_front_m;
    // The rear axle b behind the CG, so that the CG starts at the origin.
    let mut v = Vehicle::new(p.clone(), -b, 0.0, 0.0);
    v.s.vx_mps = speed;
    let n = (seconds * 120.0).round() as usize;
    for k in 0..n {
        let t = k as f64 / 120.0;
        governed_step(
            &mut v,
            speed,
            amp * (std::f64::consts::TAU * freq * t).sin(),
        );
    }
    let (x, y) = v.cg_position();
    [x, y, v.s.yaw_rad]
}

/// The shipped parameters, or those of the JSON `text` (as `params` prints them).
fn params(text: Option<&String>) -> VehicleDynamics {
    match text {
        None => VehicleDynamics::default(),
        Some(text) => serde_json::from_str(text).unwrap_or_else(|e| {
            eprintln!("steady_turn: PARAMS is not the parameters' JSON: {e}");
            std::process::exit(2);
        }),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("sine") {
        let num = |k: usize| -> f64 {
            args.get(k).and_then(|a| a.parse().ok()).unwrap_or_else(|| {
                eprintln!("usage: steady_turn sine SPEED AMP_RAD FREQ_HZ SECONDS [PARAMS]");
                std::process::exit(2);
            })
        };
        let p = params(args.get(6));
        let [x, y, yaw] = sine(&p, num(2), num(3), num(4), num(5));
        println!("{x} {y} {yaw}");
        return;
    }
    let p = params(args.get(2));
    match args.get(1).map(String::as_str) {
        Some("params") => println!(
            "{}",
            serde_json::to_string(&p).expect("the parameters serialise")
        ),
        Some("turns") => {
            for line in std::io::stdin().lock().lines() {
                let line = line.expect("stdin reads");
                let mut it = line.split_whitespace().map(|w| w.parse::<f64>());
                let (Some(Ok(speed)), Some(Ok(delta))) = (it.next(), it.next()) else {
                    eprintln!("steady_turn: a line `SPEED DELTA` expected, got {line:?}");
                    std::process::exit(2);
                };
                let [vx, r, ay, beta] = steady(&p, speed, delta);
                println!("{speed} {delta} {vx} {r} {ay} {beta}");
            }
        }
        _ => {
            eprintln!("usage: steady_turn params | steady_turn turns < LINES");
            std::process::exit(2);
        }
    }
}
