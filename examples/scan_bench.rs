//! Simulation with dense scenes: `cargo run --release --example scan_bench`
//! (`ACRES_CONFIG_DIR=DIR` runs with the config files of DIR, to measure a variant).
//!
//! Prints one JSON line, medians of 5 runs in CPU seconds of this process:
//! - `opening_steps_per_cpu_s`: physics steps per CPU-second of the opening scenario (the
//!   chain and the 360-beam scan at 50 Hz; target 1,000,000);
//! - `dense_steps_per_cpu_s`: the same with 1,000 posts (0.2 m circles) placed 5 to
//!   40 m beside the lane, all within the scan's reach at some time (about 570 at a
//!   time);
//! - `scattered_steps_per_cpu_s`: the same with the 1,000 posts spread 5 to 1,755 m
//!   either side of the lane (about 12 within reach at a time; target 300,000);
//! - `setup_us_per_obstacle`: building the plant of a scenario of 10,000 posts (the world,
//!   its index and the start check), per post;
//! - `targets`: the project's targets of the first three (300,000 for a scene of 1,000
//!   obstacles; both scenes are held to it).
//!
//! `scan_bench scaling` prints instead one JSON line per scene: physics steps per
//! CPU-second (the median of 3 runs) with 100 to 100,000 posts, either all in the band
//! above (the posts in reach grow with their number) or spread over a band widened in
//! proportion (about as many in reach as with 1,000; the rest only in the index).
//!
//! `scan_bench dense-once` runs the dense scene once and prints the simulated seconds,
//! for a profiler: `valgrind --tool=callgrind target/release/examples/scan_bench
//! dense-once` counts its instructions. `scan_bench
//! opening-once RUNS` does the same for RUNS runs of the opening scenario.

use acres::config::Config;
use acres::formats::scenario::{DEFAULT_SCENARIO, Scenario};
use acres::jobs::sim;

#[path = "common/mod.rs"]
mod common;
#[path = "common/posts.rs"]
mod posts;

use common::{cpu_s, median};

/// The opening scenario with `n` posts beside the lane (a fixed pseudo-random pattern).
fn with_posts(n: usize) -> Scenario {
    posts::scene(n, 1.0)
}

/// How far `posts::scene` widens the band for the scattered scene: about 12 posts within
/// the scan's reach at a time (`benches/sim_against_commit.py` uses the same scene).
const SCATTERED_WIDEN: f64 = 50.0;

/// Physics steps per CPU-second of a scenario (the median of 5 runs of `runs` each).
fn rate(cfg: &Config, s: &Scenario, runs: usize) -> f64 {
    rate_of(cfg, s, runs, 5)
}

/// Physics steps per CPU-second of a scenario (the median of `rounds` runs of `runs` each).
fn rate_of(cfg: &Config, s: &Scenario, runs: usize, rounds: usize) -> f64 {
    let rates = (0..rounds)
        .map(|_| {
            let c = cpu_s();
            let mut sim_s = 0.0;
            for _ in 0..runs {
                sim_s += sim::run(cfg, s, s.route().unwrap(), None).unwrap().time_s;
            }
            sim_s * acres::plant::dbw::PHYSICS_HZ as f64 / (cpu_s() - c)
        })
        .collect();
    median(rates)
}

fn main() {
    // A config directory to measure a variant (e.g. `tracker.motion_test`) with one build.
    let dir = std::env::var_os("ACRES_CONFIG_DIR").map(std::path::PathBuf::from);
    let cfg = Config::load(dir.as_deref()).expect("the config directory loads");
    if std::env::args().nth(1).as_deref() == Some("dense-once") {
        // One run of the dense scene, for a profiler (callgrind's instruction counts).
        let s = with_posts(1000);
        let run = sim::run(&cfg, &s, s.route().unwrap(), None).unwrap();
        println!("{{\"dense_simulated_s\": {}}}", run.time_s);
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("scaling") {
        scaling(&cfg);
        return;
    }
    let opening = Scenario::from_json_str("opening.json", DEFAULT_SCENARIO).unwrap();
    if std::env::args().nth(1).as_deref() == Some("opening-once") {
        // RUNS runs of the opening scenario, for a profiler.
        let runs: usize = match std::env::args().nth(2).map(|a| a.parse()) {
            Some(Ok(n)) if n > 0 => n,
            _ => {
                eprintln!("usage: scan_bench opening-once RUNS (a whole number, 1 or more)");
                std::process::exit(2);
            }
        };
        let route = opening.route().unwrap();
        let sim_s: f64 = (0..runs)
            .map(|_| {
                sim::run(&cfg, &opening, route.clone(), None)
                    .unwrap()
                    .time_s
            })
            .sum();
        println!("{{\"opening_simulated_s\": {sim_s}}}");
        return;
    }
    let open = rate(&cfg, &opening, 200);
    let dense = rate(&cfg, &with_posts(1000), 5);
    let scattered = rate(&cfg, &posts::scene(1000, SCATTERED_WIDEN), 40);
    let big = with_posts(10_000);
    let setup: Vec<f64> = (0..5)
        .map(|_| {
            let c = cpu_s();
            for _ in 0..5 {
                std::hint::black_box(big.plant(&cfg).unwrap());
            }
            (cpu_s() - c) / 5.0 / 10_000.0 * 1e6
        })
        .collect();
    println!(
        "{{\"opening_steps_per_cpu_s\": {open:.0}, \"dense_steps_per_cpu_s\": {dense:.0}, \"scattered_steps_per_cpu_s\": {scattered:.0}, \"setup_us_per_obstacle\": {:.2}, \"targets\": {{\"opening_steps_per_cpu_s\": 1000000, \"dense_steps_per_cpu_s\": 300000, \"scattered_steps_per_cpu_s\": 300000}}}}",
        median(setup)
    );
}

/// The scaling with the posts: in one band (all of them come within reach) and spread in
/// proportion (about 1,000 posts' worth in reach, the rest for the index to pass over).
/// The run's steps, its set-up (the world, its index, the start check) and its summary
/// (with the gap to the nearest obstacle) are timed apart.
fn scaling(cfg: &Config) {
    for (layout, n) in [
        ("in_band", 100),
        ("in_band", 1_000),
        ("in_band", 10_000),
        ("in_band", 100_000),
        ("spread", 10_000),
        ("spread", 100_000),
    ] {
        let widen = if layout == "spread" {
            n as f64 / 1000.0
        } else {
            1.0
        };
        let s = posts::scene(n, widen);
        let (mut rates, mut setups, mut summaries) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..3 {
            let c = cpu_s();
            let mut session = sim::Session::new(cfg, &s, s.route().unwrap()).unwrap();
            let ready = cpu_s();
            while !session.ended() {
                let done = session.step(sim::Request::Driver, None).unwrap();
                session.recycle(done.scan);
            }
            let end = cpu_s();
            let summary = session.summary();
            let steps = summary.time_s * acres::plant::dbw::PHYSICS_HZ as f64;
            rates.push(steps / (end - ready));
            setups.push((ready - c) * 1e3);
            summaries.push((cpu_s() - end) * 1e3);
        }
        println!(
            "{{\"layout\": \"{layout}\", \"posts\": {n}, \"steps_per_cpu_s\": {:.0}, \"setup_ms\": {:.1}, \"summary_ms\": {:.3}}}",
            median(rates),
            median(setups),
            median(summaries)
        );
    }
}
