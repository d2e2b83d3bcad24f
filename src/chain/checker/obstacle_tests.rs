//! The obstacle rule at its edges (issue 14, defect 1): the free distance runs along the
//! chunk and on past its end, a sample at rest still needs `d_m`, and the final footprint
//! must not overlap a return.

use super::*;
use crate::chain::envelope::Grip;
use crate::chain::path::{Direction, Path};
use crate::config::Config;
use proptest::prelude::*;

fn lane() -> Path {
    Path::builtin("straight_lane.json").unwrap()
}

fn checker() -> TrajectoryChecker {
    TrajectoryChecker::new(&Config::builtin(), Grip::Unknown).unwrap()
}

/// `n` samples 0.5 m apart on the straight gravel lane (along y = 0) from `x0`, a linear
/// stop from `v0`, starting at its own first sample.
fn stop(x0: f64, n: usize, v0: f64) -> Chunk {
    Chunk {
        route: None,
        scan: None,
        start_station_m: x0,
        station_step_m: 0.5,
        offsets_m: vec![0.0; n],
        speeds_mps: (0..n)
            .map(|k| v0 * (1.0 - k as f64 / (n - 1) as f64))
            .collect(),
        direction: Direction::Forward,
        start: StartState {
            x_m: x0,
            y_m: 0.0,
            yaw_rad: 0.0,
            speed_mps: v0,
            curvature_per_m: 0.0,
        },
    }
}

fn judge(c: &Chunk, returns: &[(f64, f64)]) -> CheckResult {
    let ret = WorldReturns(returns.to_vec());
    checker().check(c, &lane(), Some(&ret), &mut Vec::new())
}

/// Front of the footprint ahead of the rear axle (control.vehicle), m.
const FRONT: f64 = 3.05 - 0.49;
/// d_m of gravel in the unknown table, m.
const DM_GRAVEL: f64 = 2.4;

#[test]
fn a_final_footprint_overlapping_an_object_is_refused() {
    // 40 samples from x = 20 to x = 39.5: the final front at 42.06.
    let c = stop(20.0, 40, 2.0);
    let last_front = 39.5 + FRONT;
    let r = judge(&c, &[(last_front - 1.16, 0.3)]);
    assert_eq!(r.reason, Some(Reason::Obstacle), "{r:?}");
    // A chunk standing still with the object under its body: no free distance at all.
    let standing = stop(20.0, 2, 0.0);
    let r = judge(&standing, &[(20.5 + FRONT - 1.16, 0.3)]);
    assert_eq!(r.reason, Some(Reason::Obstacle), "{r:?}");
    assert_eq!((r.first_index, r.value), (Some(0), Some(0.0)), "{r:?}");
}

#[test]
fn a_stop_short_of_the_margin_before_an_object_is_refused() {
    let c = stop(20.0, 40, 2.0);
    let last_front = 39.5 + FRONT;
    // The front stops 2.34 m short of the object: d_m is 2.4 m.
    let r = judge(&c, &[(last_front + 2.34, 0.0)]);
    assert_eq!(r.reason, Some(Reason::Obstacle), "{r:?}");
    assert_eq!(r.first_index, Some(39), "the sample at rest: {r:?}");
    assert!((r.value.unwrap() - 2.34).abs() < 1e-9 && r.limit == Some(DM_GRAVEL));
    // Just beyond the margin it is accepted.
    let r = judge(&c, &[(last_front + 2.41, 0.0)]);
    assert!(r.accepted, "{r:?}");
}

#[test]
fn an_object_past_the_end_and_beside_the_line_is_seen() {
    // A return beyond the last sample, off the centre line but inside the band of the
    // sample at rest (w(0) = 0.9 m): the old rule measured it to the end point only.
    let c = stop(20.0, 40, 2.0);
    let last_front = 39.5 + FRONT;
    let r = judge(&c, &[(last_front + 1.5, 0.85)]);
    assert_eq!(r.reason, Some(Reason::Obstacle), "{r:?}");
    // Outside that band it is not in the way.
    assert!(judge(&c, &[(last_front + 1.5, 1.0)]).accepted);
}

#[test]
fn a_return_behind_the_start_is_ignored() {
    let c = stop(20.0, 40, 2.0);
    // 1 m behind the rear bumper (rear axle at x = 20, overhang 0.49 m).
    assert!(judge(&c, &[(20.0 - 0.49 - 1.0, 0.0)]).accepted);
}

#[test]
fn in_reverse_the_rear_overhang_leads() {
    let route = Path::builtin("yard_reverse.json").unwrap();
    let s0 = route.station(route.parts()[1].start) + 8.0; // the straight reverse stretch
    let mut c = stop(s0, 20, 1.0);
    c.direction = Direction::Reverse;
    let mut buf = Vec::new();
    convert(&c, &route, &mut buf);
    c.start.x_m = buf[0].x_m;
    c.start.y_m = buf[0].y_m;
    c.start.yaw_rad = buf[0].heading_rad() + std::f64::consts::PI;
    c.start.curvature_per_m = -buf[0].curvature_per_m;
    let last = buf[buf.len() - 1];
    let ck = checker();
    assert!(ck.check(&c, &route, None, &mut Vec::new()).accepted);
    // An object 2.0 m behind the rear bumper at the end of the reverse stop: inside d_m.
    let (hx, hy) = last.heading;
    let at = |d: f64| (last.x_m + hx * d, last.y_m + hy * d);
    let near = WorldReturns(vec![at(0.49 + 2.0)]);
    let r = ck.check(&c, &route, Some(&near), &mut Vec::new());
    assert_eq!(r.reason, Some(Reason::Obstacle), "{r:?}");
    // 3 m behind the bumper is clear; measured from the front it would not be.
    let far = WorldReturns(vec![at(0.49 + 3.0)]);
    assert!(ck.check(&c, &route, Some(&far), &mut Vec::new()).accepted);
}

/// d_stop on gravel: d_m + v T + v²/(2a), T = 1 s, a = 1.2 m/s².
fn d_stop(v: f64) -> f64 {
    DM_GRAVEL + v + v * v / 2.4
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A return inside the final footprint, or nearer than d_stop(v_k) ahead of the
    /// front at some sample k (within the body's half width), is always refused.
    #[test]
    fn a_chunk_that_reaches_a_return_is_refused(
        n in 2usize..60,
        v0 in 0.0f64..3.0,
        x0 in 10.0f64..200.0,
        k in 0usize..60,
        u in 0.0f64..0.999,
        lateral in -0.79f64..0.79,
        in_footprint in any::<bool>(),
    ) {
        let len = (n - 1) as f64 * 0.5;
        let v0 = v0.min(0.9 * (-1.0 + (1.0 + 4.0 * len / 2.4).sqrt()) * 1.2);
        let c = stop(x0, n, v0);
        prop_assume!(judge(&c, &[]).accepted);
        let point = if in_footprint {
            let x_last = x0 + len;
            (x_last - 0.49 + u * 3.05, lateral)
        } else {
            let k = k % n;
            let xk = x0 + k as f64 * 0.5;
            (xk + FRONT + u * d_stop(c.speeds_mps[k]), lateral)
        };
        let r = judge(&c, &[point]);
        prop_assert_eq!(r.reason, Some(Reason::Obstacle), "{:?} with a return at {:?}", r, point);
    }

    /// A return beyond every sample's stop distance leaves the chunk accepted.
    #[test]
    fn a_return_beyond_every_stop_distance_is_accepted(
        n in 2usize..60,
        v0 in 0.0f64..3.0,
        x0 in 10.0f64..200.0,
        extra in 0.01f64..10.0,
        lateral in -0.79f64..0.79,
    ) {
        let len = (n - 1) as f64 * 0.5;
        let v0 = v0.min(0.9 * (-1.0 + (1.0 + 4.0 * len / 2.4).sqrt()) * 1.2);
        let c = stop(x0, n, v0);
        prop_assume!(judge(&c, &[]).accepted);
        let reach = (0..n)
            .map(|k| x0 + k as f64 * 0.5 + FRONT + d_stop(c.speeds_mps[k]))
            .fold(f64::NEG_INFINITY, f64::max);
        let r = judge(&c, &[(reach + extra, lateral)]);
        prop_assert!(r.accepted, "{:?}", r);
    }
}
