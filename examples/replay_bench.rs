//! Replay throughput: `cargo run --release --example replay_bench [REPEATS]`.
//!
//! Records an hour at 50 Hz with `acres sim` on a 17 km serpentine of grass lanes lined
//! with posts (so that the 360-beam scans hold returns), kept in target/replay-bench.jsonl,
//! then times in CPU seconds, the median of REPEATS (default 3): reading and parsing the
//! log alone (both threads: the lines are parsed on a second one), the chain alone (its
//! thread's own time), and the whole replay (parse, chain, CSV rows to a sink), also in
//! wall seconds. Prints rows per wall second and per CPU-second and the share of the time
//! that parsing takes, beside the project's target for the whole replay.
//!
//! `replay_bench profile ROWS parse|replay` reads or replays the log's first ROWS rows
//! once, for a profiler (e.g. `valgrind --tool=callgrind`).

use acres::chain::envelope::GroundClass;
use acres::chain::path::{Direction, Path, PathPoint};
use acres::config::Config;
use acres::formats::log::read_records;
use acres::formats::route::RouteFile;
use acres::formats::scenario::{RouteRef, Scenario, Start};
use acres::jobs::replay::Replayer;
use acres::jobs::sim;
use acres::plant::world::{Obstacle, Plane};
use std::io::Write;
use std::time::Instant;

mod common;
use common::{cpu_s, median};

fn serpentine() -> (Vec<PathPoint>, Vec<Obstacle>) {
    let (leg, r, legs) = (600.0, 25.0, 30);
    let mut pts = Vec::new();
    let mut posts = Vec::new();
    let pt = |x: f64, y: f64| PathPoint {
        x,
        y,
        speed_mps: 5.0,
        class: Some(GroundClass::GrassLane),
        direction: Direction::Forward,
    };
    for k in 0..legs {
        let y = k as f64 * 2.0 * r;
        let east = k % 2 == 0;
        let n = (leg / 0.5) as usize;
        for i in 0..n {
            let s = i as f64 * 0.5;
            pts.push(pt(if east { s } else { leg - s }, y));
            if i % 30 == 0 && i > 0 {
                for side in [-4.5, 4.5] {
                    posts.push(Obstacle::Circle {
                        x_m: if east { s } else { leg - s },
                        y_m: y + side,
                        radius_m: 0.15,
                    });
                }
            }
        }
        // The turn to the next leg: a half circle beyond the leg's end.
        if k + 1 < legs {
            let (cx, cy) = (if east { leg } else { 0.0 }, y + r);
            let m = (std::f64::consts::PI * r / 0.5) as usize;
            for j in 0..m {
                let a = -std::f64::consts::FRAC_PI_2 + std::f64::consts::PI * j as f64 / m as f64;
                let x = if east {
                    cx + r * a.cos()
                } else {
                    cx - r * a.cos()
                };
                pts.push(pt(x, cy + r * a.sin()));
            }
        }
    }
    let last = pts.len() - 1;
    pts[last].speed_mps = 0.0;
    (pts, posts)
}

/// Where the bench's log is kept: the project's target/, wherever the bench is run from.
fn kept_log() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/replay-bench.jsonl")
}

/// The bench's log: recorded once by `acres sim` and kept in target/ (the recording takes
/// longer than the replays it feeds, and a profiler should see the replay alone).
fn recorded(cfg: &Config, scenario: &Scenario, path: &Path) -> Vec<u8> {
    let keep = &kept_log();
    if let Ok(log) = std::fs::read(keep) {
        return log;
    }
    let t = Instant::now();
    let mut log = Vec::new();
    let summary = sim::run(cfg, scenario, path.clone(), Some(&mut log)).unwrap();
    eprintln!(
        "log: {:.0} s simulated, {:.1} MB, recorded in {:.1} s, kept in {}",
        summary.time_s,
        log.len() as f64 / 1e6,
        t.elapsed().as_secs_f64(),
        keep.display()
    );
    let _ = std::fs::write(keep, &log);
    log
}

fn main() {
    let cfg = Config::builtin();
    let (points, obstacles) = serpentine();
    let route = RouteFile {
        name: "serpentine".into(),
        points,
    };
    let scenario = Scenario {
        name: "replay bench".into(),
        ground: Plane {
            class: Some(GroundClass::GrassLane),
            state: Default::default(),
            slope_pct: 0.0,
            slope_dir_deg: 0.0,
        },
        map: None,
        route: RouteRef::Inline(route),
        obstacles,
        actors: vec![],
        start: Start {
            x_m: 0.0,
            y_m: 0.0,
            yaw_rad: 0.0,
            speed_mps: 5.0,
        },
        duration_s: 3600.0,
        shield: true,
        corner_rule: true,
        record_scan: true,
        dir: None,
        file: String::new(),
    };
    let path: Path = scenario.path(None).unwrap();
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("profile") {
        profile(&cfg, &scenario, &path, &args[2..]);
        return;
    }
    let log = recorded(&cfg, &scenario, &path);
    let rows = memchr::memchr_iter(b'\n', &log).count();
    let repeats: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    let (mut parse, mut chain, mut all, mut walls) = (vec![], vec![], vec![], vec![]);
    let mut scans_with_returns = 0u64;
    for _ in 0..repeats {
        parse.push(parse_only(&log));
        chain.push(chain_only(&cfg, &path, &log));
        let (s, w, n) = replay(&cfg, &path, &log);
        all.push(s);
        walls.push(w);
        scans_with_returns = n;
    }
    let (parse_s, chain_s, all_s) = (median(parse), median(chain), median(all));
    let wall_s = median(walls);
    let _ = std::io::stderr().flush();
    println!(
        "{{\"rows\": {rows}, \"rows_per_wall_s\": {:.0}, \"rows_per_cpu_s\": {:.0}, \"parse_only_rows_per_cpu_s\": {:.0}, \"chain_only_steps_per_cpu_s\": {:.0}, \"parse_share\": {:.2}, \"mb_per_cpu_s\": {:.0}, \"scans_with_returns\": {scans_with_returns}, \"targets\": {{\"rows_per_s\": 300000}}}}",
        rows as f64 / wall_s,
        rows as f64 / all_s,
        rows as f64 / parse_s,
        rows as f64 / chain_s,
        parse_s / all_s,
        log.len() as f64 / 1e6 / all_s
    );
}

/// `profile ROWS parse|replay`: reads (or replays) the log's first ROWS rows once, for a
/// profiler; the difference of two row counts under callgrind is the cost of the rows
/// between them (with `--separate-threads=yes`, each thread's).
fn profile(cfg: &Config, scenario: &Scenario, path: &Path, args: &[String]) {
    let usage = "usage: replay_bench profile ROWS parse|replay";
    let (Some(rows), Some(what)) = (
        // At least one row: a log with no record is an error of the reading.
        (args.first().and_then(|a| a.parse::<usize>().ok())).filter(|&n| n > 0),
        args.get(1),
    ) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    // Only the rows wanted are read (under a profiler, reading the whole log costs more
    // than replaying a few thousand rows).
    let kept = std::fs::File::open(kept_log()).map(std::io::BufReader::new);
    let log: Vec<u8> = match kept {
        Ok(mut f) => {
            let mut log = Vec::new();
            for _ in 0..rows {
                if std::io::BufRead::read_until(&mut f, b'\n', &mut log).unwrap() == 0 {
                    break;
                }
            }
            log
        }
        Err(_) => recorded(cfg, scenario, path),
    };
    let end = memchr::memchr_iter(b'\n', &log)
        .nth(rows - 1)
        .map_or(log.len(), |i| i + 1);
    match what.as_str() {
        "parse" => println!("{{\"parse_cpu_s\": {}}}", parse_only(&log[..end])),
        "replay" => println!("{{\"replay_cpu_s\": {}}}", replay(cfg, path, &log[..end]).0),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}

/// CPU seconds to read and parse the log alone.
fn parse_only(log: &[u8]) -> f64 {
    let c = cpu_s();
    let mut n = 0u64;
    read_records("log", log, false, false, |_, r| {
        n += r.step & 1;
        Ok(())
    })
    .unwrap();
    std::hint::black_box(n);
    cpu_s() - c
}

/// CPU seconds of the chain alone: the records parsed beforehand (in blocks, to bound the
/// memory), only the replayer's steps timed.
fn chain_only(cfg: &Config, path: &Path, log: &[u8]) -> f64 {
    let mut t = common::ChainTimer::new(Replayer::new(cfg, path.clone(), true, true).unwrap());
    read_records("log", log, false, false, |_, r| {
        t.push(r);
        Ok(())
    })
    .unwrap();
    t.finish()
}

/// CPU seconds and wall seconds of the whole replay with CSV rows into a sink, and the
/// scans with returns.
fn replay(cfg: &Config, path: &Path, log: &[u8]) -> (f64, f64, u64) {
    let (c, wall) = (cpu_s(), Instant::now());
    let mut rp = Replayer::new(cfg, path.clone(), true, true).unwrap();
    let mut w = csv::Writer::from_writer(std::io::sink());
    let mut scans_with_returns = 0u64;
    read_records("log", log, false, false, |_, r| {
        let row = rp.step(r).unwrap();
        if r.scan
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x.is_finite()))
        {
            scans_with_returns += 1;
        }
        w.write_record([
            row.step.to_string(),
            row.row.speed_mps.to_string(),
            row.row.curvature_per_m.to_string(),
        ])
        .unwrap();
        Ok(())
    })
    .unwrap();
    w.flush().unwrap();
    (
        cpu_s() - c,
        wall.elapsed().as_secs_f64(),
        scans_with_returns,
    )
}
