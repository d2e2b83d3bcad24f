//! Moving actors' cost: `cargo run --release --example actors_bench [N]`,
//! N walkers (10 by default; 20 for a scene of 20 tracked objects, spread twice
//! as densely along the lane so that as many are in view). `ACRES_CONFIG_DIR=DIR` runs
//! with the config files of DIR (as `--config-dir`), to measure a variant.
//!
//! Prints one JSON line, medians of 5 runs, CPU time of this process (the keys name 10
//! actors whatever N is, so that runs of two builds compare key by key):
//! - `sim_steps_per_cpu_s_10_actors`: physics steps per CPU-second of `acres sim` on a
//!   160 m gravel lane at 6.9 m/s with 10 persons walking loops beside it (target
//!   200,000), and `sim_steps_per_cpu_s_opening` for the opening scenario in the same run;
//! - `tracker_and_rule_us`: the chain step with the moving-object rule on the tracker less
//!   the chain step with the rule off, per control step, over a scan with 10 walking
//!   persons in view (target 2 µs), and `chain_step_off_us` for scale.

use acres::chain::envelope::Grip;
use acres::chain::scan::Scan;
use acres::chain::shield::Pose;
use acres::chain::{Chain, ChainInput, Gear, VehicleState};
use acres::config::{Config, MovingMode};
use acres::formats::scenario::{DEFAULT_SCENARIO, Scenario};
use acres::jobs::sim;
use std::hint::black_box;

#[path = "common/mod.rs"]
mod common;

use common::{cpu_s, median};

/// The lane with `n` persons walking 8 m loops beside it, 6 to 15 m off its centre line,
/// spread over its first 140 m.
fn lane_with_walkers(n: usize) -> Scenario {
    let points: Vec<serde_json::Value> = (0..=80)
        .map(|i| {
            serde_json::json!({"x": 2.0 * i as f64, "y": 0.0, "speed_mps": 6.9,
                               "class": "gravel", "direction": "forward"})
        })
        .collect();
    let actors: Vec<serde_json::Value> = (0..n)
        .map(|k| {
            let x = 15.0 + 140.0 / n as f64 * k as f64;
            let off = (k % 10) as f64;
            let y = if k % 2 == 0 { 6.0 + off } else { -6.0 - off };
            serde_json::json!({"name": format!("walker {k}"), "kind": "person",
                "motion": {"waypoints": [{"t_s": 0, "x_m": x, "y_m": y},
                                         {"t_s": 5.7, "x_m": x + 8.0, "y_m": y},
                                         {"t_s": 11.4, "x_m": x, "y_m": y}]},
                "end": "loop"})
        })
        .collect();
    let v = serde_json::json!({"name": "lane with walkers", "ground": {"class": "gravel"},
        "route": {"name": "lane", "points": points}, "actors": actors,
        "start": {"x_m": 0, "y_m": 0, "yaw_rad": 0, "speed_mps": 6.9}, "duration_s": 30});
    Scenario::from_json_str("bench", &v.to_string()).expect("the bench scenario parses")
}

/// Physics steps per CPU-second of a scenario, over `runs` runs.
fn sim_rate(cfg: &Config, s: &Scenario, runs: usize) -> f64 {
    let c0 = cpu_s();
    let mut sim_s = 0.0;
    for _ in 0..runs {
        sim_s += sim::run(cfg, s, s.route().unwrap(), None).unwrap().time_s;
    }
    sim_s * acres::plant::dbw::PHYSICS_HZ as f64 / (cpu_s() - c0)
}

/// The chain's steps over the recorded states and scans, µs a step on CPU time.
fn chain_us(cfg: &Config, s: &Scenario, states: &[(VehicleState, Scan)], mode: MovingMode) -> f64 {
    let reps = 300;
    let c0 = cpu_s();
    for _ in 0..reps {
        let mut chain = Chain::new(cfg, s.route().unwrap(), Grip::Unknown)
            .unwrap()
            .with_moving(mode);
        for (i, (state, scan)) in states.iter().enumerate() {
            let row = chain.step(&ChainInput {
                step: i as u64,
                state: *state,
                scan,
                proposal: None,
            });
            black_box(row.unwrap());
        }
    }
    (cpu_s() - c0) / (reps * states.len()) as f64 * 1e6
}

/// The states and scans of the lane run, with the vehicle held at 6.9 m/s.
fn recorded(cfg: &Config, s: &Scenario) -> Vec<(VehicleState, Scan)> {
    let mut plant = s.plant(cfg).unwrap();
    let mut out = Vec::new();
    while plant.time_s() < 12.0 {
        if plant.is_control_step() {
            let st = plant.vehicle.s;
            let state = VehicleState {
                pose: Pose {
                    x_m: st.x_m,
                    y_m: st.y_m,
                    yaw_rad: st.yaw_rad,
                },
                speed_mps: 6.9,
                yaw_rate_rps: 0.0,
                gear: Gear::High,
                grade: 0.0,
            };
            out.push((state, plant.scan()));
        }
        plant.vehicle.s.vx_mps = 6.9;
        plant.physics();
    }
    out
}

fn main() {
    // A config directory to measure a variant (e.g. `tracker.motion_test`) with one build.
    let dir = std::env::var_os("ACRES_CONFIG_DIR").map(std::path::PathBuf::from);
    let cfg = Config::load(dir.as_deref()).expect("the config directory loads");
    let opening = Scenario::from_json_str("opening.json", DEFAULT_SCENARIO).unwrap();
    let n = match std::env::args().nth(1).map(|a| a.parse::<usize>()) {
        None => 10,
        Some(Ok(n)) if (1..=200).contains(&n) => n,
        Some(_) => {
            eprintln!("usage: actors_bench [N]  (N walkers, 1 to 200; default 10)");
            std::process::exit(2);
        }
    };
    let lane = lane_with_walkers(n);
    let mut with_actors = Vec::new();
    let mut base = Vec::new();
    let mut rule = Vec::new();
    let mut off_us = Vec::new();
    let states = recorded(&cfg, &lane);
    for _ in 0..5 {
        with_actors.push(sim_rate(&cfg, &lane, 10));
        base.push(sim_rate(&cfg, &opening, 20));
        let off = chain_us(&cfg, &lane, &states, MovingMode::Off);
        let on = chain_us(&cfg, &lane, &states, MovingMode::Tracker);
        off_us.push(off);
        rule.push(on - off);
    }
    println!(
        "{{\"sim_steps_per_cpu_s_10_actors\": {:.0}, \"sim_steps_per_cpu_s_opening\": {:.0}, \
         \"tracker_and_rule_us\": {:.3}, \"chain_step_off_us\": {:.3}}}",
        median(with_actors),
        median(base),
        median(rule),
        median(off_us)
    );
}
