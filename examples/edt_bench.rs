//! The corridor distance transform on a raw mask, timed, for `benches/edt_vs_scipy.py`.
//!
//! `cargo run --release --example edt_bench -- --build [ROUTE]` times the whole build of
//! the shipped farm route (or ROUTE, on the farm map) instead.
//!
//! `cargo run --release --example edt_bench -- MASK.u8 WIDTH HEIGHT [REPEATS]` reads a
//! row-major mask (1 = corridor, 0 = excluded), runs the exact border transform REPEATS
//! times (default 5) and prints one JSON line: the best and median wall ns per cell, the
//! median CPU ns per cell (all threads; rayon's, `RAYON_NUM_THREADS` sets how many), and
//! the peak memory the transform added beyond the input, in bytes and as a multiple of the
//! f32 raster's own size.

#[path = "common/mod.rs"]
mod common;

use acres::ground::corridor::edt;
use std::time::Instant;

/// The peak resident memory of this process so far, bytes (Linux `VmHWM`).
fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `edt_bench --build [ROUTE]`: the whole build (route distance, class rules, transform)
/// of the shipped farm route, or ROUTE, on the built-in farm map.
fn build_mode(route: Option<&String>) {
    let map = acres::ground::Map::builtin_farm();
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/routes/farm_yard_to_east_lane.json");
    let route = acres::chain::path::Path::load(route.map_or(shipped.as_path(), |r| r.as_ref()))
        .expect("the route");
    let cfg = acres::config::Config::builtin().control.corridor;
    let before = peak_rss().unwrap_or(0);
    let mut times = Vec::new();
    let mut cells = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let c = acres::ground::corridor::build(&map, &route, &cfg, |_| {}).unwrap();
        times.push(t.elapsed().as_secs_f64());
        cells = c.grid.cells.len();
    }
    let after = peak_rss().unwrap_or(0);
    times.sort_by(f64::total_cmp);
    println!(
        "{{\"build_cells\": {cells}, \"median_ns_per_cell\": {:.3}, \"peak_extra_over_raster\": {:.3}}}",
        times[2] * 1e9 / cells as f64,
        after.saturating_sub(before) as f64 / (cells as f64 * 4.0)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--build") {
        return build_mode(args.get(2));
    }
    if args.len() < 4 {
        eprintln!("usage: edt_bench MASK.u8 WIDTH HEIGHT [REPEATS]");
        std::process::exit(2);
    }
    let mask = std::fs::read(&args[1]).expect("the mask file");
    let (w, h): (usize, usize) = (args[2].parse().unwrap(), args[3].parse().unwrap());
    let repeats: usize = args.get(4).map_or(5, |r| r.parse().unwrap());
    assert_eq!(mask.len(), w * h, "the mask has WIDTH × HEIGHT bytes");
    let before = peak_rss().unwrap_or(0);
    let mut out: Vec<f32> = Vec::new();
    let mut times = Vec::new();
    let mut cpu = Vec::new();
    for _ in 0..repeats {
        out = Vec::new(); // each run allocates its output, as a build does
        let (t, c) = (Instant::now(), common::cpu_s());
        edt::border_distance(w, h, |k| mask[k] == 0, 0.25, &mut out);
        times.push(t.elapsed().as_secs_f64());
        cpu.push(common::cpu_s() - c);
    }
    let after = peak_rss().unwrap_or(0);
    times.sort_by(f64::total_cmp);
    let cells = (w * h) as f64;
    let own = cells * 4.0;
    let checksum: f64 = out.iter().map(|&d| d as f64).sum();
    println!(
        "{{\"best_ns_per_cell\": {:.3}, \"median_ns_per_cell\": {:.3}, \"median_cpu_ns_per_cell\": {:.3}, \"peak_extra_bytes\": {}, \"peak_extra_over_raster\": {:.3}, \"sum_d_m\": {:.3}}}",
        times[0] * 1e9 / cells,
        times[times.len() / 2] * 1e9 / cells,
        common::median(cpu) * 1e9 / cells,
        after.saturating_sub(before),
        after.saturating_sub(before) as f64 / own,
        checksum
    );
}
