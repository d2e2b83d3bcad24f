//! Simulation throughput: `cargo run --release --example sim_bench`.
//!
//! Runs the default scenario (the opening figure, with the 360-beam scan at 50 Hz) 50
//! times and prints physics steps per second on one core and the real-time factor.

use acres::config::Config;
use acres::formats::scenario::{DEFAULT_SCENARIO, Scenario};
use acres::jobs::sim;
use std::time::Instant;

fn main() {
    let cfg = Config::builtin();
    let s = Scenario::from_json_str("opening.json", DEFAULT_SCENARIO).unwrap();
    let runs = 50;
    let t = Instant::now();
    let mut sim_s = 0.0;
    for _ in 0..runs {
        let p = s.path(None).unwrap();
        sim_s += sim::run(&cfg, &s, p, None).unwrap().time_s;
    }
    let wall = t.elapsed().as_secs_f64();
    let steps = sim_s * acres::plant::dbw::PHYSICS_HZ as f64;
    println!(
        "{{\"physics_steps_per_s\": {:.0}, \"real_time_factor\": {:.0}, \"simulated_s\": {sim_s:.1}}}",
        steps / wall,
        sim_s / wall
    );
}
