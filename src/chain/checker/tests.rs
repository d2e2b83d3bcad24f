//! Each reason reached by a minimal change to an accepted chunk, and property tests.

use super::*;
use crate::chain::envelope::Grip;
use crate::chain::path::{Direction, Path};
use crate::config::Config;
use crate::ground::corridor::Corridor;
use proptest::prelude::*;
use std::sync::Arc;

pub(super) fn lane() -> Path {
    Path::from_json_str(
        "straight_lane.json",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/routes/straight_lane.json"
        )),
    )
    .unwrap()
}

fn checker() -> TrajectoryChecker {
    TrajectoryChecker::new(&Config::builtin(), Grip::Unknown).unwrap()
}

/// 40 samples 0.5 m apart from station 20 on the straight lane, from 4 m/s to a stop.
fn base() -> Chunk {
    let n = 40;
    Chunk {
        route: Some("straight_lane.json".into()),
        scan: None,
        start_station_m: 20.0,
        station_step_m: 0.5,
        offsets_m: vec![0.0; n],
        speeds_mps: (0..n)
            .map(|k| 4.0 * (1.0 - k as f64 / (n - 1) as f64))
            .collect(),
        direction: Direction::Forward,
        start: StartState {
            x_m: 20.0,
            y_m: 0.0,
            yaw_rad: 0.0,
            speed_mps: 4.0,
            curvature_per_m: 0.0,
        },
    }
}

fn verdict(c: &Chunk) -> CheckResult {
    checker().check(c, &lane(), None, &mut Vec::new())
}

fn assert_refused(r: &CheckResult, reason: Reason, index: usize) {
    assert!(!r.accepted, "accepted, expected {reason}");
    assert_eq!(
        (r.reason, r.first_index),
        (Some(reason), Some(index)),
        "{r:?}"
    );
    if reason != Reason::Malformed {
        assert!(r.value.is_some() && r.limit.is_some());
    }
}

#[test]
fn the_base_chunk_is_accepted() {
    let r = verdict(&base());
    assert!(r.accepted, "{r:?}");
}

#[test]
fn malformed() {
    let mut c = base();
    c.speeds_mps.pop();
    assert_refused(&verdict(&c), Reason::Malformed, 0);
    let mut c = base();
    c.offsets_m[7] = f64::NAN;
    assert_refused(&verdict(&c), Reason::Malformed, 7);
    let mut c = base();
    c.offsets_m.clear();
    c.speeds_mps.clear();
    assert_refused(&verdict(&c), Reason::Malformed, 0);
    let mut c = base();
    c.offsets_m = vec![0.0; 100_000];
    c.speeds_mps = vec![0.0; 100_000];
    assert_refused(&verdict(&c), Reason::Malformed, 0);
    let mut c = base();
    c.station_step_m = 0.0;
    assert_refused(&verdict(&c), Reason::Malformed, 0);
    let mut c = base();
    c.start_station_m = 290.0; // runs off the 300 m route at sample 21
    assert_refused(&verdict(&c), Reason::Malformed, 21);
    let mut c = base();
    c.speeds_mps[3] = -1.0;
    assert_refused(&verdict(&c), Reason::Malformed, 3);
}

#[test]
fn step() {
    let mut c = base();
    for e in &mut c.offsets_m[10..] {
        *e = 0.8;
    }
    assert_refused(&verdict(&c), Reason::Step, 9);
}

#[test]
fn speed() {
    let mut c = base();
    c.speeds_mps[5] = 7.0; // gravel speed command 6.9
    assert_refused(&verdict(&c), Reason::Speed, 5);
}

#[test]
fn direction_and_a_reverse_part() {
    // The yard route's reverse part: after the cusp (85.7 m) an arc to 92 m, then a
    // straight to 104 m; stations 92.5 to 97.5 lie on the straight.
    let route = Path::from_json_str(
        "yard",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/routes/yard_reverse.json"
        )),
    )
    .unwrap();
    let all = 0..route.len() - 1;
    let n = 11;
    let p0 = route.point_at(&all, 92.5);
    let heading = route.segment_heading(route.segment_at(&all, 92.5));
    let mut c = Chunk {
        route: None,
        scan: None,
        start_station_m: 92.5,
        station_step_m: 0.5,
        offsets_m: vec![0.0; n],
        speeds_mps: (0..n)
            .map(|k| 1.0 * (1.0 - k as f64 / (n - 1) as f64))
            .collect(),
        direction: Direction::Forward,
        start: StartState {
            x_m: p0.x,
            y_m: p0.y,
            yaw_rad: heading,
            speed_mps: 1.0,
            curvature_per_m: 0.0,
        },
    };
    let ch = checker();
    assert_refused(
        &ch.check(&c, &route, None, &mut Vec::new()),
        Reason::Direction,
        0,
    );
    // Declared reverse, with the vehicle facing against travel, it is accepted.
    c.direction = Direction::Reverse;
    c.start.yaw_rad = heading + std::f64::consts::PI;
    let mut buf = Vec::new();
    convert(&c, &route, &mut buf);
    c.start.curvature_per_m = -buf[0].curvature_per_m;
    let r = ch.check(&c, &route, None, &mut buf);
    assert!(r.accepted, "{r:?}");
}

#[test]
fn start() {
    let mut c = base();
    c.start.x_m = 21.0;
    assert_refused(&verdict(&c), Reason::Start, 0);
    let mut c = base();
    c.start.yaw_rad = 0.3; // 17°
    assert_refused(&verdict(&c), Reason::Start, 0);
    let mut c = base();
    c.start.speed_mps = 2.5;
    assert_refused(&verdict(&c), Reason::Start, 0);
}

#[test]
fn stop() {
    let mut c = base();
    *c.speeds_mps.last_mut().unwrap() = 0.3;
    assert_refused(&verdict(&c), Reason::Stop, 39);
}

#[test]
fn acceleration() {
    let mut c = base();
    c.speeds_mps[10] += 0.3;
    assert_refused(&verdict(&c), Reason::Acceleration, 9);
}

#[test]
fn deceleration() {
    let mut c = base();
    for v in &mut c.speeds_mps[20..] {
        *v *= 0.7;
    }
    assert_refused(&verdict(&c), Reason::Deceleration, 19);
}

#[test]
fn curvature() {
    let mut c = base();
    for e in &mut c.offsets_m[21..] {
        *e = 0.3;
    }
    assert_refused(&verdict(&c), Reason::Curvature, 20);
}

#[test]
fn curvature_rate() {
    // A parabola from sample 20: κ ≈ e'' = 0.16 1/m, reached within a sample.
    let mut c = base();
    for k in 20..40 {
        // The parabola for 3 m, then its tangent.
        let s = (k - 20) as f64 * 0.5;
        c.offsets_m[k] = if s <= 3.0 {
            0.08 * s * s
        } else {
            0.72 + 0.48 * (s - 3.0)
        };
    }
    let r = verdict(&c);
    assert_refused(&r, Reason::CurvatureRate, 19);
}

#[test]
fn steering_rate() {
    // A parabola from sample 2 with κ ≈ 0.03 1/m: slow along the path, fast in time.
    let mut c = base();
    for k in 2..40 {
        let s = (k - 2) as f64 * 0.5;
        c.offsets_m[k] = 0.015 * s * s;
    }
    assert_refused(&verdict(&c), Reason::SteeringRate, 1);
}

#[test]
fn start_curvature() {
    let mut c = base();
    c.start.curvature_per_m = 0.05;
    assert_refused(&verdict(&c), Reason::StartCurvature, 0);
}

#[test]
fn lateral_acceleration() {
    // A circle of radius 12 m (κ = 1/12) with points exactly 0.5 m apart, so that every
    // sample is a route point, driven at 4.5 m/s: 4.5²/12 = 1.69 m/s² > 1.5.
    let r = 12.0;
    let a = 2.0 * (0.25f64 / r).asin();
    let pts: Vec<crate::chain::path::PathPoint> = (0..80)
        .map(|i| crate::chain::path::PathPoint {
            x: r * (i as f64 * a).sin(),
            y: r * (1.0 - (i as f64 * a).cos()),
            speed_mps: 5.0,
            class: Some(crate::chain::envelope::GroundClass::Field),
            direction: Direction::Forward,
        })
        .collect();
    let route = Path::new("circle", &pts).unwrap();
    let n = 30;
    let mut c = Chunk {
        route: None,
        scan: None,
        start_station_m: 0.0,
        station_step_m: 0.5,
        offsets_m: vec![0.0; n],
        speeds_mps: (0..n)
            .map(|k| 4.5 * (1.0 - k as f64 / (n - 1) as f64))
            .collect(),
        direction: Direction::Forward,
        start: StartState {
            x_m: 0.0,
            y_m: 0.0,
            yaw_rad: 0.0,
            speed_mps: 4.5,
            curvature_per_m: 0.0,
        },
    };
    let mut buf = Vec::new();
    convert(&c, &route, &mut buf);
    c.start.yaw_rad = buf[0].heading_rad();
    c.start.curvature_per_m = buf[0].curvature_per_m;
    let r = checker().check(&c, &route, None, &mut buf);
    assert_refused(&r, Reason::LateralAcceleration, 0);
    let v = r.value.unwrap();
    assert!((v - 4.5 * 4.5 / 12.0).abs() < 0.02, "{v}");
}

#[test]
fn obstacle() {
    let c = base();
    let cfg = Config::builtin();
    let g = crate::chain::scan::ScanGeometry::new(360, (1.9, 0.0), 40.0);
    let mut scan = crate::chain::scan::Scan::empty(360);
    scan.set(0, 12.0 - 1.9 + 2.56).unwrap(); // 12 m ahead of the front
    let ret = world_returns(&g, &scan, &c.start);
    let ch = TrajectoryChecker::new(&cfg, Grip::Unknown).unwrap();
    // d_stop(4) on gravel = 2.4 + 4 + 16/2.4 = 13.07 m > 12 m.
    let r = ch.check(&c, &lane(), Some(&ret), &mut Vec::new());
    assert_refused(&r, Reason::Obstacle, 0);
    // A return 26 m from the scanner (x = 47.9) leaves room: 5.84 m beyond the final
    // front (x = 42.06), more than d_m. (At 20 m, x = 41.9, the final footprint would
    // overlap it: see obstacle_tests.)
    scan.set(0, 26.0).unwrap();
    let ret = world_returns(&g, &scan, &c.start);
    assert!(ch.check(&c, &lane(), Some(&ret), &mut Vec::new()).accepted);
}

/// A corridor along the lane, `half` m either side of y = 0, with an optional hole.
pub(super) fn lane_corridor(half: f64, hole: Option<(f64, f64)>) -> Arc<Corridor> {
    Arc::new(Corridor::from_fn(1300, 80, 0.25, [-10.0, -10.0], |x, y| {
        let in_hole = hole.is_some_and(|(hx, hy)| (x - hx).abs() < 0.3 && (y - hy).abs() < 0.3);
        y.abs() > half || in_hole
    }))
}

#[test]
fn point_and_corridor() {
    let cfg = Config::builtin();
    let wide = checker().with_corridor(lane_corridor(3.0, None));
    assert!(wide.check(&base(), &lane(), None, &mut Vec::new()).accepted);
    // A hole on the centre line at x = 30 (sample 20).
    let holed = checker().with_corridor(lane_corridor(3.0, Some((30.0, 0.0))));
    let r = holed.check(&base(), &lane(), None, &mut Vec::new());
    assert_eq!(r.reason, Some(Reason::Point), "{r:?}");
    assert!((19..=21).contains(&r.first_index.unwrap()), "{r:?}");
    // A lane 1.8 m wide: the centre is clear of the follower margin, the body is not.
    let narrow = TrajectoryChecker::new(&cfg, Grip::Unknown)
        .unwrap()
        .with_corridor(lane_corridor(0.9, None));
    assert_refused(
        &narrow.check(&base(), &lane(), None, &mut Vec::new()),
        Reason::Corridor,
        0,
    );
}

/// Feasible chunks on the straight lane: a gentle offset wave and a linear stop.
pub(super) fn feasible() -> impl Strategy<Value = Chunk> {
    (
        2usize..60,
        0.0f64..4.0,
        0.0f64..0.05,
        30.0f64..60.0,
        0.0f64..100.0,
    )
        .prop_map(|(n, v0, amp, wavelength, s0)| {
            let step = 0.5;
            let len = (n - 1) as f64 * step;
            // The stop rule: v0 T + v0²/(2a) must fit in the chunk.
            let vmax = (-1.0 + (1.0 + 4.0 * len / 2.4).sqrt()) * 1.2;
            let v0 = v0.min(vmax * 0.95);
            let k = std::f64::consts::TAU / wavelength;
            let offsets: Vec<f64> = (0..n).map(|i| amp * (k * i as f64 * step).sin()).collect();
            let mut c = Chunk {
                route: None,
                scan: None,
                start_station_m: s0,
                station_step_m: step,
                offsets_m: offsets,
                speeds_mps: (0..n)
                    .map(|i| v0 * (1.0 - i as f64 / (n - 1) as f64))
                    .collect(),
                direction: Direction::Forward,
                start: StartState {
                    x_m: s0,
                    y_m: 0.0,
                    yaw_rad: 0.0,
                    speed_mps: v0,
                    curvature_per_m: 0.0,
                },
            };
            let mut buf = Vec::new();
            convert(&c, &lane(), &mut buf);
            c.start.yaw_rad = buf[0].heading_rad();
            c.start.curvature_per_m = buf[0].curvature_per_m;
            c
        })
}

proptest! {
    /// The code against lemma `checker.footprint_cover_covers_the_body`
    /// (proofs/checker.py): every point of the body's rectangle (the vehicle's length from
    /// its rear overhang, half width the vehicle margin) is within the radius of a circle.
    #[test]
    fn lemma_the_cover_circles_cover_the_body(u in 0.0f64..=1.0, w in -1.0f64..=1.0) {
        let cfg = Config::builtin();
        let v = &cfg.control.vehicle;
        let mv = cfg.control.shield.vehicle_margin_m;
        let (x, y) = (-v.rear_overhang_m + u * v.length_m, w * mv);
        let cover = checker().cover();
        let near = cover.iter().map(|(c, r)| (x - c).hypot(y) - r).fold(f64::INFINITY, f64::min);
        prop_assert!(near <= 1e-12, "({x}, {y}) is {near} m outside every circle");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn feasible_chunks_are_accepted(c in feasible()) {
        let r = verdict(&c);
        prop_assert!(r.accepted, "{r:?} for {c:?}");
    }

    /// Random chunks: whatever is accepted obeys every limit, recomputed here.
    #[test]
    fn accepted_chunks_obey_every_limit(
        c in feasible(),
        dv in prop::collection::vec(-1.0f64..1.0, 60),
        de in prop::collection::vec(-0.2f64..0.2, 60),
    ) {
        let mut c = c;
        let n = c.offsets_m.len();
        for i in 1..n - 1 {
            c.speeds_mps[i] = (c.speeds_mps[i] + dv[i]).max(0.0);
            c.offsets_m[i] += de[i];
        }
        let route = lane();
        let r = verdict(&c);
        if r.accepted {
            let cfg = Config::builtin();
            let l = &cfg.trajectory.limits;
            let mut s = Vec::new();
            convert(&c, &route, &mut s);
            let gravel = cfg.envelope.grips.unknown.gravel;
            let mut rest: f64 = s[..n - 1].iter().map(|x| x.length_m).sum();
            for k in 0..n {
                let v = s[k].speed_mps;
                prop_assert!(v <= gravel.speed_command_mps);
                prop_assert!(v * 1.0 + v * v / (2.0 * gravel.decel_mps2) <= rest + 1e-12);
                prop_assert!(s[k].curvature_per_m.abs() <= 0.2);
                prop_assert!(v * v * s[k].curvature_per_m.abs() <= gravel.lateral_accel_max_mps2);
                if k + 1 < n {
                    let (a, b) = (&s[k], &s[k + 1]);
                    prop_assert!(a.length_m >= 0.25 && a.length_m <= 0.75);
                    let acc = (b.speed_mps.powi(2) - a.speed_mps.powi(2)) / (2.0 * a.length_m);
                    prop_assert!(acc <= l.accel_max_mps2 && -acc <= l.decel_max_mps2);
                    let dk = (b.curvature_per_m - a.curvature_per_m).abs();
                    prop_assert!(dk / a.length_m <= l.curvature_rate_max_per_m2);
                    if a.time_s.is_finite() {
                        prop_assert!(dk / a.time_s <= l.steering_rate_max_per_m_s);
                    }
                }
                rest -= s[k].length_m;
            }
        }
    }
}
