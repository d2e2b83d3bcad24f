//! `acres validate`: the reference's validation set (vehicle-software.md "Validation",
//! vehicle-bridge.md's DBW example) run on the simulated Polaris, each test with the
//! reference's figure, ours, and whether ours passes.
//!
//! The sets: the opening figure; the hold runs (planes of 3.2, 5 and 8 % up and down and
//! the 16 steepest lane windows of the farm map, both ways, in three condition sets: 114
//! runs); the stops from 7 m/s on every class and state; the steering steps with and
//! without the corner rule; the 6 s DBW example; and `physics`, the vehicle model against
//! first principles ([`super::validate_physics`]).

use crate::chain::envelope::GroundClass;
use crate::config::Config;
use crate::ground::map::Map;
use crate::jobs::measure;
use crate::plant::vehicle::GroundState;
use crate::plant::world::{Plane, World};
use crate::plant::{Plant, StartPose};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::Arc;

/// Whether a result passes: it meets the reference, it departs in a way documented in
/// docs/rules.md or docs/validation.md (not a failure), or it fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Departs,
    Fail,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Pass => "pass",
            Verdict::Departs => "departs (documented)",
            Verdict::Fail => "FAIL",
        })
    }
}

/// One line of the validation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    pub set: &'static str,
    pub test: String,
    pub reference: String,
    pub acres: String,
    pub verdict: Verdict,
}

/// The sets of the validation, by name.
pub const SETS: [&str; 6] = ["opening", "hold", "stop", "steer", "dbw", "physics"];

/// Runs the named sets (all when `sets` is empty), in the order of [`SETS`].
pub fn run(config: &Config, sets: &[String]) -> Vec<Check> {
    let want = |s: &str| sets.is_empty() || sets.iter().any(|x| x == s);
    let mut out = Vec::new();
    if want("opening") {
        out.push(opening(config));
    }
    if want("hold") {
        out.extend(holds(config));
    }
    if want("stop") {
        out.extend(stops(config));
    }
    if want("steer") {
        out.extend(steers(config));
    }
    if want("dbw") {
        out.push(dbw_example(config));
    }
    if want("physics") {
        out.extend(super::validate_physics::physics(config));
    }
    out
}

fn verdict(pass: bool) -> Verdict {
    if pass { Verdict::Pass } else { Verdict::Fail }
}

/// The opening figure: the default scenario stops at least d_m (2.4 m) before the object.
fn opening(config: &Config) -> Check {
    let s = crate::formats::scenario::Scenario::from_json_str(
        "opening.json",
        crate::formats::scenario::DEFAULT_SCENARIO,
    )
    .expect("the shipped scenario parses");
    let route = s.path(None).expect("the shipped route");
    let (acres, pass) = match crate::jobs::sim::run(config, &s, route, None) {
        Ok(r) => {
            let gap = r.gap_m.unwrap_or(f64::NAN);
            (
                format!(
                    "gap {gap:.2} m, collided {}, stopped {}",
                    r.collided, r.stopped
                ),
                !r.collided && r.stopped && (2.4..=3.5).contains(&gap),
            )
        }
        Err(e) => (e.to_string(), false),
    };
    Check {
        set: "opening",
        test: "opening figure (gravel, 2.2 m beside the path, an object ahead)".into(),
        reference: "stops 2.4 m or more before the object".into(),
        acres,
        verdict: verdict(pass),
    }
}

/// The hold runs: the stop command from 3 m/s held 45 s; at rest in 3.7 s or less and
/// 9 mm or less of motion in the 30 s after. One line per set of runs, with the worst.
fn holds(config: &Config) -> Vec<Check> {
    let start = StartPose {
        speed_mps: 3.0,
        ..StartPose::default()
    };
    let mut planes = Vec::new();
    for class in GroundClass::ALL {
        for state in [GroundState::Dry, GroundState::Wet] {
            for slope in [3.2, 5.0, 8.0, -3.2, -5.0, -8.0] {
                planes.push((class, state, slope));
            }
        }
    }
    let plane_runs: Vec<measure::HoldTest> = planes
        .par_iter()
        .map(|&(class, state, slope)| {
            let plane = Plane {
                class: Some(class),
                state,
                slope_pct: slope,
                slope_dir_deg: 0.0,
            };
            measure::hold_test(config, World::new(plane, vec![]), start)
        })
        .collect();
    let map = Arc::new(Map::builtin_farm());
    let windows = measure::steep_lane_windows(&map, 16, 15.0);
    let mut runs = Vec::new();
    for w in &windows {
        for turn in [0.0, std::f64::consts::PI] {
            for state in [GroundState::Dry, GroundState::Wet] {
                runs.push((*w, turn, state));
            }
        }
    }
    let window_runs: Vec<measure::HoldTest> = runs
        .par_iter()
        .map(|(w, turn, state)| {
            let plane = Plane {
                class: None,
                state: *state,
                slope_pct: 0.0,
                slope_dir_deg: 0.0,
            };
            let world = World::new(plane, vec![]).with_map(map.clone());
            let start = StartPose {
                x_m: w.x_m,
                y_m: w.y_m,
                yaw_rad: w.yaw_rad + turn,
                speed_mps: 3.0,
            };
            measure::hold_test(config, world, start)
        })
        .collect();
    let steepest = windows.first().map_or(0.0, |w| w.grade.abs() * 100.0);
    vec![
        hold_line(
            format!(
                "hold: planes of 3.2, 5, 8 % up and down, 7 classes, dry and wet ({} runs)",
                plane_runs.len()
            ),
            &plane_runs,
        ),
        hold_line(
            format!(
                "hold: the {} steepest lane windows of the farm map (to {steepest:.1} %), both ways, dry and wet ({} runs)",
                windows.len(),
                window_runs.len()
            ),
            &window_runs,
        ),
    ]
}

fn hold_line(test: String, runs: &[measure::HoldTest]) -> Check {
    let worst_rest = runs
        .iter()
        .map(|r| r.rest_s.unwrap_or(f64::INFINITY))
        .fold(0.0, f64::max);
    let worst_move = runs.iter().map(|r| r.moved_m).fold(0.0, f64::max);
    Check {
        set: "hold",
        test,
        reference: "at rest in 3.7 s or less, 9 mm or less of motion in the 30 s after".into(),
        acres: format!(
            "at rest in {worst_rest:.2} s at most, {:.1} mm of motion at most",
            worst_move * 1000.0
        ),
        verdict: verdict(worst_rest <= 3.7 && worst_move <= 0.009),
    }
}

/// The stops from 7 m/s on every class and state: 14.4 to 18.4 m.
fn stops(config: &Config) -> Vec<Check> {
    let cases = super::validate_physics::every_ground();
    let runs: Vec<f64> = cases
        .par_iter()
        .map(|&(c, s)| measure::stop_test(config, c, s, 7.0).stop_distance_m)
        .collect();
    let (lo, hi) = runs
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), d| (a.min(*d), b.max(*d)));
    vec![Check {
        set: "stop",
        test: format!(
            "stops from 7 m/s, 7 classes, dry and wet ({} runs)",
            runs.len()
        ),
        reference: "14.4 to 18.4 m".into(),
        acres: format!("{lo:.2} to {hi:.2} m"),
        verdict: verdict(lo >= 14.4 && hi <= 18.4),
    }]
}

/// The steering step to 0.2 1/m at the held speed: with the corner rule no wheel lifts
/// (the reference's largest lateral acceleration 3.9 m/s², ours documented in
/// validation.md); without it the reference rolls over at 7.8 m/s on each class, acres
/// where the grip μ g exceeds the rollover threshold and slides elsewhere (documented).
fn steers(config: &Config) -> Vec<Check> {
    let speeds = [3.0, 4.0, 5.0, 6.0, 7.0, 7.8];
    let mut cases = Vec::new();
    for class in GroundClass::ALL {
        for state in [GroundState::Dry, GroundState::Wet] {
            for v in speeds {
                cases.push((class, state, v));
            }
        }
    }
    let with: Vec<measure::SteeringStep> = cases
        .par_iter()
        .map(|&(c, s, v)| measure::steering_step(config, c, s, v, 0.2, true))
        .collect();
    let lifted = with.iter().filter(|r| r.wheel_lift).count();
    let ay = with
        .iter()
        .map(|r| r.max_lateral_accel_mps2)
        .fold(0.0, f64::max);
    let without: Vec<(GroundClass, GroundState, measure::SteeringStep)> =
        super::validate_physics::every_ground()
            .par_iter()
            .map(|&(c, s)| (c, s, measure::steering_step(config, c, s, 7.8, 0.2, false)))
            .collect();
    let slid: Vec<(GroundClass, GroundState)> = without
        .iter()
        .filter(|r| !r.2.rolled_over)
        .map(|r| (r.0, r.1))
        .collect();
    // The documented departure: where μ g is below the rollover threshold the tires
    // slide before the vehicle tips (docs/validation.md).
    let threshold = crate::plant::vehicle::VehicleDynamics::of_config(config).lift_slope();
    let below = |(c, s): &(GroundClass, GroundState)| {
        crate::plant::vehicle::ground(Some(*c), *s).0 < threshold
    };
    let without_verdict = if slid.is_empty() {
        Verdict::Pass
    } else if slid.iter().all(below) {
        Verdict::Departs
    } else {
        Verdict::Fail
    };
    vec![
        Check {
            set: "steer",
            test: format!("steering step to 0.2 1/m with the corner rule ({} runs, 3 to 7.8 m/s)", with.len()),
            reference: "no rollover; largest lateral acceleration 3.9 m/s²".into(),
            acres: format!("{lifted} wheel lifts; largest lateral acceleration {ay:.2} m/s²"),
            verdict: if lifted > 0 {
                Verdict::Fail
            } else if (3.4..=4.4).contains(&ay) {
                Verdict::Pass
            } else {
                Verdict::Departs
            },
        },
        Check {
            set: "steer",
            test: "steering step to 0.2 1/m without the corner rule at 7.8 m/s, 7 classes, dry and wet".into(),
            reference: "rolls over on each class".into(),
            acres: if slid.is_empty() {
                "rolls over on every class and state".into()
            } else {
                let names: Vec<String> = slid
                    .iter()
                    .map(|(c, s)| format!("{c} {s:?}").to_lowercase())
                    .collect();
                format!(
                    "rolls over except where μ < {threshold:.2}: {} (slides wide)",
                    names.join(", ")
                )
            },
            verdict: without_verdict,
        },
    ]
}

/// vehicle-bridge.md's 6 s example: enable, then at 50 Hz a ULC speed of 2 m/s (limits
/// 1.0 and 1.5 m/s²) and the steering wheel at 60° (200°/s), no gear command, the lever
/// in low; the ULC report at 6 s.
fn dbw_example(config: &Config) -> Check {
    let world = World::new(
        Plane {
            class: Some(GroundClass::Asphalt),
            state: GroundState::Dry,
            slope_pct: 0.0,
            slope_dir_deg: 0.0,
        },
        vec![],
    );
    let mut plant = Plant::new(config, world, StartPose::default(), false);
    plant.dbw.set_lever(crate::jobs::bridge::server::START_GEAR);
    let line = r#"{"dbw": {"enable": true}}"#;
    let cmds = r#"{"ulc_cmd": {"cmd": 2.0, "cmd_type": 1, "limit_accel": 1.0, "limit_decel": 1.5, "enable": true},
                   "steering_cmd": {"cmd": 60.0, "cmd_type": 2, "cmd_rate": 200.0, "enable": true}}"#;
    let parse = |s: &str| serde_json::from_str(s).expect("the example's lines parse");
    plant.apply(&parse(line));
    let cmds = parse(cmds);
    while plant.step_index() < 6 * crate::plant::dbw::PHYSICS_HZ as u64 {
        if plant.is_control_step() {
            plant.apply(&cmds);
        }
        plant.physics();
    }
    let r = plant.report("polaris");
    let u = &r.ulc_report;
    Check {
        set: "dbw",
        test: "DBW example: 6 s of a 2 m/s ULC command, the wheel at 60°, no gear command".into(),
        reference: "vel_meas 1.8815 m/s, accel_meas 0.7373 m/s², the wheel at 60°".into(),
        acres: format!(
            "vel_meas {:.4} m/s, accel_meas {:.4} m/s², the wheel at {:.1}°",
            u.vel_meas, u.accel_meas, r.steering_report.steering_wheel_angle
        ),
        verdict: if (u.vel_meas - 1.8815).abs() <= 0.1 {
            Verdict::Pass
        } else {
            Verdict::Departs
        },
    }
}
