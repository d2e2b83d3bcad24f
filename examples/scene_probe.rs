//! Physics steps per CPU-second of the opening scenario and of one scene of posts, in a
//! form that builds against this crate as it stood when the performance issue measured
//! it (3f4fcab) as well as today, so that `benches/dense_against_issue_build.py` can time
//! the two builds on the same scenes:
//!
//! `scene_probe N WIDEN ROUNDS` prints one JSON line: `opening` and `scene`, each the
//! median of ROUNDS runs of this process's CPU time (user and system, read once a run
//! from /proc, whose 10 ms ticks the runs' length makes small), `in_reach_mean`, the
//! mean over the scene's control steps of the posts within the scan's reach (40 m), and
//! the simulated seconds. The scene is the opening scenario with N posts (0.2 m
//! circles) at a fixed pseudo-random pattern, x from −20 to 80 m and 5 m to
//! 5 + 35·WIDEN m either side of the lane (scan_bench's dense scene for WIDEN 1).
//!
//! It uses only what both builds have: `sim::run`, `Scenario::from_json_str` and the
//! builtin configuration.

use acres::config::Config;
use acres::formats::scenario::{DEFAULT_SCENARIO, Scenario};
use acres::jobs::sim;

#[path = "common/posts.rs"]
mod posts;

use posts::{posts, scene};

/// Physics steps a simulated second (the plant's rate in both builds).
const PHYSICS_HZ: f64 = 120.0;

/// The scan's reach, m (the builtin configuration's in both builds).
const REACH_M: f64 = 40.0;

/// The process's CPU time so far (user and system), s.
fn cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // After the command name (which ends with ')'): utime is the 12th field, stime the
    // 13th, in ticks of 1/100 s.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    (f.get(11).unwrap_or(&0.0) + f.get(12).unwrap_or(&0.0)) / 100.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Physics steps per CPU-second: the median of `rounds` timed groups of runs, each
/// group at least 0.3 s of CPU time.
fn rate(cfg: &Config, s: &Scenario, rounds: usize) -> (f64, f64) {
    let mut sim_s = 0.0;
    let rates = (0..rounds)
        .map(|_| {
            let c = cpu_s();
            let mut steps = 0.0;
            while cpu_s() - c < 0.3 {
                sim_s = sim::run(cfg, s, s.route().unwrap(), None).unwrap().time_s;
                steps += sim_s * PHYSICS_HZ;
            }
            steps / (cpu_s() - c)
        })
        .collect();
    (median(rates), sim_s)
}

/// The mean count of posts within the reach of the vehicle's path along the lane
/// (y = 0, x from 0 to `length`), sampled every metre: what a scan considers.
fn in_reach_mean(n: usize, widen: f64, length: f64) -> f64 {
    let p = posts(n, widen);
    let samples = (length.max(1.0)) as usize;
    let total: usize = (0..samples)
        .map(|i| {
            let x0 = i as f64;
            let near = |&&(x, y): &&(f64, f64)| (x - x0).hypot(y) <= REACH_M;
            p.iter().filter(near).count()
        })
        .sum();
    total as f64 / samples as f64
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: f64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (n, widen, rounds) = (arg(0, 1000.0) as usize, arg(1, 1.0), arg(2, 5.0) as usize);
    let cfg = Config::builtin();
    let opening = Scenario::from_json_str("opening", DEFAULT_SCENARIO).unwrap();
    let (open_rate, _) = rate(&cfg, &opening, rounds);
    let s = scene(n, widen);
    let (scene_rate, sim_s) = rate(&cfg, &s, rounds);
    let summary = sim::run(&cfg, &s, s.route().unwrap(), None).unwrap();
    println!(
        "{}",
        serde_json::json!({
            "posts": n,
            "widen": widen,
            "opening": open_rate.round(),
            "scene": scene_rate.round(),
            "in_reach_mean": (in_reach_mean(n, widen, summary.distance_m) * 10.0).round() / 10.0,
            "sim_s": sim_s,
        })
    );
}
