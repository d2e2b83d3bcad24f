//! Per-step cost of the shield and the default driver.
//!
//! Run: `cargo bench --bench chain`. The shield target is ≤ 2 µs median for one step
//! with a full 360-beam scan and the three free distances; the driver target is ≤ 1 µs
//! per step on a 10,000-point path.

use acres::chain::driver::{Driver, DriverState};
use acres::chain::envelope::{Grip, GroundClass};
use acres::chain::path::Path;
use acres::chain::scan::Scan;
use acres::chain::shield::{Command, Pose, Shield, ShieldInput, ShieldScratch};
use acres::chain::{Chain, ChainInput, Gear, VehicleState};
use acres::config::Config;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

#[path = "../examples/common/mod.rs"]
mod common;

/// A winding route of `n` points 0.5 m apart (examples/common).
fn winding(n: usize) -> Path {
    common::winding(n, 0.5)
}

/// Every beam has a return: a ring of walls at 12 m to 20 m, and an object 15 m ahead.
fn full_scan() -> Scan {
    let r: Vec<f64> = (0..360)
        .map(|i| 12.0 + 8.0 * ((i as f64) * 0.1).sin().abs())
        .collect();
    let mut s = Scan::new(r).unwrap();
    s.set(0, 15.0).unwrap();
    s
}

fn shield_step(c: &mut Criterion) {
    let config = Config::builtin();
    let shield = Shield::new(&config, Grip::Unknown).unwrap();
    let path = winding(10_000);
    let part = path.parts()[0].clone();
    let scan = full_scan();
    let pose = Pose {
        x_m: 1000.0,
        y_m: 0.0,
        yaw_rad: 0.44,
    };
    let input = ShieldInput {
        pose,
        speed_mps: 5.0,
        scan: &scan,
        reference_curvature_per_m: 0.03,
        reference: Some((
            &path,
            &part,
            path.project(geo::Coord { x: 1000.0, y: 0.0 }, &part, None)
                .station_m,
        )),
        class: Some(GroundClass::Gravel),
        grade: 0.0,
        moving: &[],
        decel_mps2: 0.0,
    };
    let mut window = ShieldScratch::default();
    let cmd = Command {
        curvature_per_m: 0.05,
        speed_mps: 6.0,
    };
    c.bench_function("shield step, 360 returns, 3 free distances", |b| {
        b.iter(|| shield.limit_with(black_box(cmd), black_box(&input), &mut window))
    });
    let empty = Scan::empty(360);
    let open = ShieldInput {
        scan: &empty,
        ..input
    };
    c.bench_function("shield step, no returns", |b| {
        b.iter(|| shield.limit_with(black_box(cmd), black_box(&open), &mut window))
    });
}

fn driver_step(c: &mut Criterion) {
    let config = Config::builtin();
    let driver = Driver::new(
        &config.scouting,
        config.control.shield.curvature_max_per_m,
        &config.envelope.grips.unknown,
    );
    let path = winding(10_000);
    // Poses along the path, 0.1 m apart (a step at 5 m/s), cycled.
    let poses: Vec<Pose> = (0..2000)
        .map(|i| common::beside_winding(100.0 + i as f64 * 0.1))
        .collect();
    let mut state = DriverState::default();
    let mut k = 0;
    c.bench_function("driver step, 10,000-point path", |b| {
        b.iter(|| {
            k = (k + 1) % poses.len();
            if k == 0 {
                state = DriverState::default();
                driver.step(&path, &mut state, poses[0], 5.0);
            }
            driver.step(&path, &mut state, black_box(poses[k]), black_box(5.0))
        })
    });
}

fn chain_step(c: &mut Criterion) {
    let config = Config::builtin();
    let mut chain = Chain::new(&config, winding(10_000), Grip::Unknown).unwrap();
    let scan = full_scan();
    let state = VehicleState {
        pose: Pose {
            x_m: 0.0,
            y_m: 0.2,
            yaw_rad: 0.4,
        },
        speed_mps: 4.0,
        yaw_rate_rps: 0.0,
        gear: Gear::High,
        grade: 0.0,
    };
    let mut step = 0u64;
    c.bench_function("chain step, 360 returns", |b| {
        b.iter(|| {
            step += 1;
            chain.step(&ChainInput {
                step,
                state: black_box(state),
                scan: &scan,
                proposal: None,
            })
        })
    });
}

criterion_group!(benches, shield_step, driver_step, chain_step);
criterion_main!(benches);
