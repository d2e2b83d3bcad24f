//! Checker throughput: `cargo run --release --example check_bench`.
//!
//! Prints one JSON line: 40-sample chunks per CPU-second through the checker with
//! corridor queries on one core; the batch form (reading, JSON Lines parsing, checking and
//! writing CSV, in its pipeline) per CPU-second on one thread, and per wall-second on 1
//! and on 2 threads with their ratio (medians of 3 runs); and the peak memory of batches
//! of N and 4N lines, to show that it stays flat.

use acres::chain::checker::batch::{self, BatchFormat, CheckOptions, Judge};
use acres::chain::checker::{Chunk, TrajectoryChecker};
use acres::chain::envelope::Grip;
use acres::chain::path::Path;
use acres::chain::scan::ScanGeometry;
use acres::config::Config;
use acres::ground::corridor::Corridor;
#[path = "common/mod.rs"]
mod common;

use common::{cpu_s, median};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .unwrap_or(0)
        * 1024
}

/// A corridor 3 m either side of the straight lane (y = 0, x from −10 to 315 m).
fn lane_corridor() -> Arc<Corridor> {
    Arc::new(Corridor::from_fn(1300, 80, 0.25, [-10.0, -10.0], |_, y| {
        y.abs() > 3.0
    }))
}

fn main() {
    let cfg = Config::builtin();
    let route = Path::builtin("straight_lane.json").unwrap();
    let checker = TrajectoryChecker::new(&cfg, Grip::Unknown)
        .unwrap()
        .with_corridor(lane_corridor());
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/chunks/accepted.json"
    ));
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let base: Chunk = serde_json::from_value(v["chunks"][1].clone()).unwrap();
    // Chunks along the lane at different stations, all accepted (40 samples each).
    let chunks: Vec<Chunk> = (0..256)
        .map(|i| {
            let mut c = base.clone();
            let ds = i as f64;
            c.start_station_m += ds;
            c.start.x_m += ds;
            c
        })
        .collect();
    let mut buf = Vec::new();
    assert!(
        chunks
            .iter()
            .all(|c| checker.check(c, &route, None, &mut buf).accepted)
    );
    let n = 400_000;
    let c0 = cpu_s();
    let mut acc = 0usize;
    for i in 0..n {
        acc += checker
            .check(black_box(&chunks[i % 256]), &route, None, &mut buf)
            .accepted as usize;
    }
    let one_core = n as f64 / (cpu_s() - c0);
    assert_eq!(acc, n);
    let opts = CheckOptions {
        route: Some(Arc::new(route.clone())),
        max_line_bytes: batch::DEFAULT_MAX_LINE_BYTES,
        ..CheckOptions::default()
    };
    let v = &cfg.control.vehicle;
    let geometry = ScanGeometry::new(360, (v.scan_mount_x_m, v.scan_mount_y_m), 40.0);
    let judge = Judge::new(&checker, &opts, geometry);

    // Flat memory first, before anything else raises the peak: batches of 25,600 and
    // 102,400 lines streamed from files that are written line by line.
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = chunks
        .iter()
        .map(|c| serde_json::to_string(c).unwrap())
        .collect();
    let write = |reps: usize| -> std::path::PathBuf {
        use std::io::Write;
        let p = dir.path().join(format!("in{reps}.jsonl"));
        let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        for _ in 0..reps {
            for l in &lines {
                writeln!(f, "{l}").unwrap();
            }
        }
        p
    };
    let (p1, p4) = (write(100), write(400));
    let mem = |p: &std::path::Path| -> u64 {
        let before = peak_rss();
        let f = std::io::BufReader::new(std::fs::File::open(p).unwrap());
        batch::run(&judge, f, &mut std::io::sink(), BatchFormat::Csv, |_| {}).unwrap();
        peak_rss().saturating_sub(before)
    };
    let m1 = mem(&p1);
    let m4 = mem(&p4);
    // (wall rate, CPU rate) of one run on `threads` threads.
    let run = |threads: usize, p: &std::path::Path| -> (f64, f64) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let data = std::fs::read(p).unwrap();
        let mut sink = std::io::sink();
        let (t, c) = (Instant::now(), cpu_s());
        let s = pool.install(|| {
            batch::run(&judge, &data[..], &mut sink, BatchFormat::Csv, |_| {}).unwrap()
        });
        let n = s.chunks as f64;
        (n / t.elapsed().as_secs_f64(), n / (cpu_s() - c))
    };
    let ones: Vec<(f64, f64)> = (0..3).map(|_| run(1, &p4)).collect();
    let twos: Vec<(f64, f64)> = (0..3).map(|_| run(2, &p4)).collect();
    let b1 = median(ones.iter().map(|r| r.0).collect());
    let b1_cpu = median(ones.iter().map(|r| r.1).collect());
    let b2 = median(twos.iter().map(|r| r.0).collect());
    println!(
        "{{\"checker_one_core_chunks_per_cpu_s\": {one_core:.0}, \"batch_1_thread_chunks_per_cpu_s\": {b1_cpu:.0}, \"batch_1_thread_chunks_per_s\": {b1:.0}, \"batch_2_threads_chunks_per_s\": {b2:.0}, \"batch_2_over_1\": {:.2}, \"batch_peak_growth_25600_chunks_bytes\": {m1}, \"batch_peak_growth_102400_chunks_bytes\": {m4}}}",
        b2 / b1
    );
}
