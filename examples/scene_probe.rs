//! Physics steps per CPU-second of the opening scenario and of one scene of posts, in a
//! form that builds against this crate as it stood at older commits (76d04df^, before
//! each obstacle was cast only against the beams of its span, and later) as well as
//! today, so that `benches/sim_against_commit.py` can time two builds on the same
//! scenes:
//!
//! `scene_probe [N [WIDEN [ROUNDS]]]` (defaults 1000, 1, 5) prints one JSON line:
//! `opening` and `scene`, each the median of ROUNDS timed groups of runs in this
//! process's CPU time (user and system, read from /proc, whose 10 ms ticks the groups'
//! 0.3 s make small); `in_reach_mean`, the mean count of posts within the scan's reach
//! (40 m) of the lane, sampled every metre of the distance driven; and the simulated
//! seconds of a run. The scene is the opening scenario with N posts (0.2 m circles) at a
//! fixed pseudo-random pattern, x from −20 to 80 m and 5 m to 5 + 35·WIDEN m either side
//! of the lane (scan_bench's dense scene for WIDEN 1).
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
/// group at least 0.3 s of CPU time; and the summary of the last run.
fn rate(cfg: &Config, s: &Scenario, rounds: usize) -> (f64, sim::Summary) {
    let mut last = None;
    let rates = (0..rounds)
        .map(|_| {
            let c = cpu_s();
            let mut steps = 0.0;
            while cpu_s() - c < 0.3 {
                let summary = sim::run(cfg, s, s.route().unwrap(), None).unwrap();
                steps += summary.time_s * PHYSICS_HZ;
                last = Some(summary);
            }
            steps / (cpu_s() - c)
        })
        .collect();
    (median(rates), last.expect("at least one round ran"))
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

/// The arguments N, WIDEN and ROUNDS (defaults where absent), or a usage message.
fn arguments() -> Result<(usize, f64, usize), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: scene_probe [N [WIDEN [ROUNDS]]]: a count of posts, a finite \
                 WIDEN of 0 or more, ROUNDS 1 or more";
    let field = |i: usize, default: &str| args.get(i).map_or(default, |a| a.as_str()).to_owned();
    let n: usize = field(0, "1000").parse().map_err(|_| usage)?;
    let widen: f64 = field(1, "1").parse().map_err(|_| usage)?;
    let rounds: usize = field(2, "5").parse().map_err(|_| usage)?;
    if args.len() > 3 || !(widen.is_finite() && widen >= 0.0) || rounds == 0 {
        return Err(usage.to_owned());
    }
    Ok((n, widen, rounds))
}

fn main() {
    let (n, widen, rounds) = arguments().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2);
    });
    let cfg = Config::builtin();
    let opening = Scenario::from_json_str("opening", DEFAULT_SCENARIO).unwrap();
    let (open_rate, _) = rate(&cfg, &opening, rounds);
    let s = scene(n, widen);
    let (scene_rate, summary) = rate(&cfg, &s, rounds);
    println!(
        "{}",
        serde_json::json!({
            "posts": n,
            "widen": widen,
            "opening": open_rate.round(),
            "scene": scene_rate.round(),
            "in_reach_mean": (in_reach_mean(n, widen, summary.distance_m) * 10.0).round() / 10.0,
            "sim_s": summary.time_s,
        })
    );
}
