//! The chain's per-step costs beside the project's speed targets, for `benches/peers.py`:
//! `cargo run --release --example chain_costs`. Prints one JSON line, µs a step, medians
//! of 5 runs in CPU time: the default driver on a 10,000-point winding path at 0.5 m and
//! at 0.05 m spacing; the shield with every beam returning (a ring 12 to 20 m away and an
//! object 15 m ahead) at 360, 1,440 and 5,760 beams, and with no return; a physics step of
//! the plant; the shield's scaling with the beams and, at 360 beams, with the returns
//! (every k-th beam returning), each with the returns inside the band of the command's
//! arc; then the project's targets (µs).
//!
//! `chain_costs ring CALLS [EVERY]` makes CALLS calls of the shield on the 360-beam ring
//! (every EVERY-th beam returning, 1 by default, 0 for none) and prints µs a call: a
//! fixed amount of work to count under a profiler, e.g. `valgrind --tool=callgrind
//! target/release/examples/chain_costs ring 2000`, whose difference from 4,000 calls is
//! the cost of 2,000. The µs printed need calls enough for the CPU clock's 10 ms ticks
//! (100,000 or more); a few thousand calls print 0.

use acres::chain::driver::{Driver, DriverState};
use acres::chain::envelope::{Grip, GroundClass};
use acres::chain::scan::Scan;
use acres::chain::shield::{Command, Pose, Shield, ShieldInput, ShieldScratch};
use acres::config::Config;
use std::hint::black_box;

#[path = "common/mod.rs"]
mod common;

use common::{cpu_s, median, winding};

/// µs a call of `f` (the median of 5 runs of `n` calls).
fn per_call(n: usize, mut f: impl FnMut(usize)) -> f64 {
    median(
        (0..5)
            .map(|_| {
                let c = cpu_s();
                for i in 0..n {
                    f(i);
                }
                (cpu_s() - c) / n as f64 * 1e6
            })
            .collect(),
    )
}

fn driver_us(config: &Config, step: f64) -> f64 {
    let driver = Driver::new(
        &config.scouting,
        config.control.shield.curvature_max_per_m,
        &config.envelope.grips.unknown,
    );
    let path = winding(10_000, step);
    let end = 10_000.0 * step - 20.0;
    let poses: Vec<Pose> = (0..20_000)
        .map(|i| common::beside_winding(5.0 + (i as f64 * 0.1) % (end - 5.0)))
        .collect();
    let mut state = DriverState::default();
    per_call(400_000, |i| {
        let p = poses[i % poses.len()];
        black_box(driver.step(&path, &mut state, black_box(p), 5.0));
    })
}

/// The benchmark's scan of `beams` beams: a ring 12 to 20 m away and an object 15 m
/// ahead, where beam `i` returns only if `i` is a multiple of `every` (none for 0).
fn ring(beams: usize, every: usize) -> Scan {
    let ranges: Vec<f64> = (0..beams)
        .map(|i| {
            let deg = i as f64 * 360.0 / beams as f64;
            if every > 0 && i % every == 0 {
                12.0 + 8.0 * (deg * 0.1).sin().abs()
            } else {
                f64::INFINITY
            }
        })
        .collect();
    let mut scan = Scan::new(ranges).unwrap();
    if every > 0 {
        scan.set(0, 15.0).unwrap();
    }
    scan
}

/// The command of the shield's benchmark.
const CMD: Command = Command {
    curvature_per_m: 0.05,
    speed_mps: 6.0,
};

/// µs a `limit_with` of [`ring`]`(beams, every)` (scan points, both arcs, the path), its
/// returns, and those inside the band of the command's arc (the ones the band test keeps
/// for the exact test).
fn shield_us(config: &Config, beams: usize, every: usize) -> (f64, usize, usize) {
    shield_calls(config, beams, every, None)
}

/// [`shield_us`], or with `calls` the µs a call of one run of that many calls.
fn shield_calls(
    config: &Config,
    beams: usize,
    every: usize,
    calls: Option<usize>,
) -> (f64, usize, usize) {
    let mut cfg = config.clone();
    cfg.control.corridor.beams = beams as u32;
    let shield = Shield::new(&cfg, Grip::Unknown).unwrap();
    let path = winding(10_000, 0.5);
    let part = path.parts()[0].clone();
    let scan = ring(beams, every);
    let here = geo::Coord { x: 1000.0, y: 0.0 };
    let input = ShieldInput {
        pose: Pose {
            x_m: 1000.0,
            y_m: 0.0,
            yaw_rad: 0.44,
        },
        speed_mps: 5.0,
        scan: &scan,
        reference_curvature_per_m: 0.03,
        reference: Some((&path, &part, path.project(here, &part, None).station_m)),
        class: Some(GroundClass::Gravel),
        grade: 0.0,
        moving: &[],
        decel_mps2: 0.0,
    };
    let (r, w) = (
        1.0 / CMD.curvature_per_m,
        shield.half_width(input.speed_mps),
    );
    let in_band = shield
        .geometry()
        .points(&scan)
        .filter(|&(x, y)| (x.hypot(y - r) - r).abs() <= w)
        .count();
    let mut scratch = ShieldScratch::default();
    let returns = shield.geometry().points(&scan).count();
    // About half a second a run at the figures above (the CPU clock ticks every 10 ms).
    let n = 100_000_000 / (returns + 40);
    let mut call = |_| {
        black_box(shield.limit_with(black_box(CMD), black_box(&input), &mut scratch));
    };
    let us = match calls {
        Some(calls) => {
            let t = cpu_s();
            (0..calls).for_each(&mut call);
            (cpu_s() - t) / calls.max(1) as f64 * 1e6
        }
        None => per_call(n, call),
    };
    (us, returns, in_band)
}

/// A physics step of the plant (the vehicle model, the drive-by-wire, the ground under
/// it) on the opening scenario, without the scan.
fn plant_us(config: &Config) -> f64 {
    let s = acres::formats::scenario::Scenario::from_json_str(
        "opening.json",
        acres::formats::scenario::DEFAULT_SCENARIO,
    )
    .unwrap();
    let mut plant = s.plant(config).unwrap();
    per_call(1_000_000, |i| {
        if i % 2400 == 0 {
            plant = s.plant(config).unwrap();
        }
        black_box(plant.physics());
    })
}

fn main() {
    let c = Config::builtin();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("ring") {
        let number = |i: usize, default: usize| {
            args.get(i)
                .map(|a| {
                    a.parse()
                        .expect("usage: chain_costs ring CALLS [EVERY], whole numbers")
                })
                .unwrap_or(default)
        };
        let (us, returns, _) = shield_calls(&c, 360, number(2, 1), Some(number(1, 2000)));
        println!("{{\"shield_us_360\": {us:.3}, \"returns\": {returns}}}");
        return;
    }
    let by_beams: Vec<(usize, (f64, usize, usize))> = [360, 1440, 5760]
        .into_iter()
        .map(|b| (b, shield_us(&c, b, 1)))
        .collect();
    // The 360-beam ring with every k-th beam returning: the cost with the returns.
    let by_returns: Vec<(usize, (f64, usize, usize))> = [0, 16, 8, 4, 2, 1]
        .into_iter()
        .map(|k| {
            let cost = shield_us(&c, 360, k);
            (cost.1, cost)
        })
        .collect();
    let series = |v: &[(usize, (f64, usize, usize))], key: &str| {
        v.iter()
            .map(|(n, (us, _, band))| {
                format!("{{\"{key}\": {n}, \"in_band\": {band}, \"us\": {us:.3}}}")
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "{{\"plant_physics_us\": {:.3}, \"driver_us_0_5m\": {:.3}, \"driver_us_0_05m\": {:.3}, \"shield_us_360\": {:.3}, \"shield_us_1440\": {:.3}, \"shield_us_5760\": {:.3}, \"shield_us_no_returns\": {:.3}, \"shield_by_beams\": [{}], \"shield_by_returns_of_360\": [{}], \"targets\": {{\"driver_us_0_5m\": 0.3, \"driver_us_0_05m\": 0.5, \"shield_us_360\": 0.75}}}}",
        plant_us(&c),
        driver_us(&c, 0.5),
        driver_us(&c, 0.05),
        by_beams[0].1.0,
        by_beams[1].1.0,
        by_beams[2].1.0,
        by_returns[0].1.0,
        series(&by_beams, "beams"),
        series(&by_returns, "returns"),
    );
}
