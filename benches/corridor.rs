//! The corridor query along a lane (the project's target: at most 15 ns a query).
//!
//! Run: `cargo bench --bench corridor`. The distance transform against OpenCV and scipy
//! is in `benches/edt_vs_opencv.py` and `benches/edt_vs_scipy.py`.

use acres::chain::path::Path;
use acres::config::Config;
use acres::ground::Map;
use acres::ground::corridor::build;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn query(c: &mut Criterion) {
    let map = Map::builtin_farm();
    let route = Path::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/routes/farm_yard_to_east_lane.json"),
    )
    .unwrap();
    let corridor = build(&map, &route, &Config::builtin().control.corridor, |_| {})
        .expect("the shipped route is on the shipped map");
    // Points along and beside the gravel lane, cycled.
    let pts: Vec<(f64, f64)> = (0..4096)
        .map(|i| (955.0 + (i % 13) as f64 * 0.77, 330.0 + i as f64 * 0.11))
        .collect();
    let mut k = 0;
    c.bench_function("corridor query", |b| {
        b.iter(|| {
            k = (k + 1) & 4095;
            let (x, y) = pts[k];
            corridor.query(black_box(x), black_box(y))
        })
    });
}

criterion_group!(benches, query);
criterion_main!(benches);
