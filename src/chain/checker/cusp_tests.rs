//! Chunks beside a cusp (issue 14, defect 3): each part of a route takes its geometry
//! from its own side of a direction change, so a feasible chunk next to a cusp is judged
//! on its own part alone.

use super::*;
use crate::chain::envelope::Grip;
use crate::chain::path::{Direction, Path, PathPoint};
use crate::config::Config;
use proptest::prelude::*;

/// 20 m east on gravel, a cusp at (20, 0), then 15 m in reverse toward the south-west at
/// 30° below west: a three-point turn's V.
fn v_route() -> Path {
    let mut pts: Vec<PathPoint> = (0..=40)
        .map(|i| PathPoint {
            x: i as f64 * 0.5,
            y: 0.0,
            speed_mps: 2.0,
            class: Some(crate::chain::envelope::GroundClass::Gravel),
            direction: Direction::Forward,
        })
        .collect();
    pts[40].direction = Direction::Reverse;
    let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
    for k in 1..=30 {
        let d = k as f64 * 0.5;
        pts.push(PathPoint {
            x: 20.0 - c * d,
            y: -s * d,
            speed_mps: 1.5,
            class: Some(crate::chain::envelope::GroundClass::Gravel),
            direction: Direction::Reverse,
        });
    }
    Path::new("v", &pts).unwrap()
}

fn yard() -> Path {
    Path::from_json_str(
        "yard",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/routes/yard_reverse.json"
        )),
    )
    .unwrap()
}

/// A chunk of `n` samples 0.5 m apart from `s0`, a linear stop from `v0`, the offset
/// `e` everywhere, whose start state is its own first sample (so that the start rules
/// hold).
fn chunk(route: &Path, s0: f64, n: usize, v0: f64, e: f64, dir: Direction) -> Chunk {
    let mut c = Chunk {
        route: None,
        scan: None,
        start_station_m: s0,
        station_step_m: 0.5,
        offsets_m: vec![e; n],
        speeds_mps: (0..n)
            .map(|k| v0 * (1.0 - k as f64 / (n - 1) as f64))
            .collect(),
        direction: dir,
        start: StartState {
            x_m: 0.0,
            y_m: 0.0,
            yaw_rad: 0.0,
            speed_mps: v0,
            curvature_per_m: 0.0,
        },
    };
    let mut buf = Vec::new();
    convert(&c, route, &mut buf);
    let sign = dir.sign();
    c.start.x_m = buf[0].x_m;
    c.start.y_m = buf[0].y_m;
    c.start.yaw_rad = buf[0].heading_rad()
        + if sign < 0.0 {
            std::f64::consts::PI
        } else {
            0.0
        };
    c.start.curvature_per_m = buf[0].curvature_per_m * sign;
    c
}

fn judge(route: &Path, c: &Chunk) -> CheckResult {
    TrajectoryChecker::new(&Config::builtin(), Grip::Unknown)
        .unwrap()
        .check(c, route, None, &mut Vec::new())
}

/// The station of the first cusp of a route.
fn cusp(route: &Path) -> f64 {
    route.station(route.parts()[1].start)
}

#[test]
fn straight_reverse_chunks_just_after_a_cusp_are_accepted() {
    let r = v_route();
    let s = cusp(&r);
    assert!((s - 20.0).abs() < 1e-9);
    for after in [0.05, 0.25] {
        let c = chunk(&r, s + after, 20, 1.0, 0.0, Direction::Reverse);
        let v = judge(&r, &c);
        assert!(v.accepted, "{after} m after the cusp: {v:?}");
    }
}

#[test]
fn a_forward_stop_just_before_a_cusp_is_accepted() {
    let r = v_route();
    let end = cusp(&r) - 0.15;
    let c = chunk(&r, end - 19.0 * 0.5, 20, 1.0, 0.0, Direction::Forward);
    let v = judge(&r, &c);
    assert!(v.accepted, "{v:?}");
    // Ending exactly at the cusp is beside it too.
    let c = chunk(&r, cusp(&r) - 19.0 * 0.5, 20, 1.0, 0.0, Direction::Forward);
    let v = judge(&r, &c);
    assert!(v.accepted, "{v:?}");
}

#[test]
fn chunks_beside_the_yard_routes_cusp_are_accepted() {
    let r = yard();
    let s = cusp(&r);
    for after in [0.05, 0.25] {
        let c = chunk(&r, s + after, 12, 0.8, 0.0, Direction::Reverse);
        let v = judge(&r, &c);
        assert!(v.accepted, "{after} m after the yard cusp: {v:?}");
    }
    let c = chunk(&r, s - 0.15 - 19.0 * 0.5, 20, 1.0, 0.0, Direction::Forward);
    let v = judge(&r, &c);
    assert!(v.accepted, "before the yard cusp: {v:?}");
}

#[test]
fn a_chunk_across_a_cusp_is_refused_for_its_direction() {
    let r = v_route();
    let c = chunk(&r, cusp(&r) - 5.0, 20, 1.0, 0.0, Direction::Forward);
    let v = judge(&r, &c);
    assert_eq!(v.reason, Some(Reason::Direction), "{v:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Feasible chunks beside a cusp, on either side, with a small constant offset.
    #[test]
    fn feasible_chunks_beside_a_cusp_are_accepted(
        gap in 0.0f64..2.0,
        n in 3usize..24,
        v0 in 0.0f64..1.2,
        e in -0.3f64..0.3,
        before in any::<bool>(),
    ) {
        let r = v_route();
        let len = (n - 1) as f64 * 0.5;
        // The stop rule: v0 T + v0²/(2a) must fit in the chunk.
        let v0 = v0.min(0.9 * (-1.0 + (1.0 + 4.0 * len / 2.4).sqrt()) * 1.2);
        let c = if before {
            chunk(&r, cusp(&r) - gap - len, n, v0, e, Direction::Forward)
        } else {
            chunk(&r, cusp(&r) + gap, n, v0, e, Direction::Reverse)
        };
        let v = judge(&r, &c);
        prop_assert!(v.accepted, "{v:?} for {c:?}");
    }
}
