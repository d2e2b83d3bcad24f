//! The shipped routes, driven by the command chain in closed loop with a kinematic
//! bicycle that follows the command row (speed changes at most 1.5 m/s², the ULC's limit).

use acres::chain::envelope::Grip;
use acres::chain::path::Path;
use acres::chain::scan::Scan;
use acres::chain::shield::{Pose, Rule};
use acres::chain::{Chain, ChainInput, Gear, VehicleState};
use acres::config::Config;

fn route(name: &str) -> Path {
    Path::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/routes")
            .join(name),
    )
    .unwrap()
}

/// Drives a route to its end; returns (final pose, largest |lateral offset|, steps).
fn drive(path: Path) -> (Pose, f64, u64) {
    let config = Config::builtin();
    let start = path.point(0);
    let heading = path.segment_heading(0);
    let reverse_start = path.direction(0) == acres::chain::path::Direction::Reverse;
    let mut chain = Chain::new(&config, path, Grip::Unknown).unwrap();
    let scan = Scan::empty(360);
    let dt = 0.02;
    let mut st = VehicleState {
        pose: Pose {
            x_m: start.x,
            y_m: start.y,
            yaw_rad: heading
                + if reverse_start {
                    std::f64::consts::PI
                } else {
                    0.0
                },
        },
        speed_mps: 0.0,
        yaw_rate_rps: 0.0,
        gear: Gear::High,
        grade: 0.0,
    };
    let mut worst = 0.0f64;
    for step in 0..200_000u64 {
        let row = chain
            .step(&ChainInput {
                step,
                state: st,
                scan: &scan,
                proposal: None,
            })
            .unwrap();
        assert!(
            row.interventions.iter().all(|i| i.rule != Rule::Obstacle),
            "an empty scan never triggers the obstacle rule"
        );
        worst = worst.max(row.lateral_m.abs());
        if row.finished {
            return (st.pose, worst, step);
        }
        st.gear = row.gear;
        let dv = (row.speed_mps - st.speed_mps).clamp(-1.5 * dt, 1.5 * dt);
        st.speed_mps = if row.brake_hold {
            0.0
        } else {
            st.speed_mps + dv
        };
        st.pose.x_m += st.speed_mps * st.pose.yaw_rad.cos() * dt;
        st.pose.y_m += st.speed_mps * st.pose.yaw_rad.sin() * dt;
        st.yaw_rate_rps = st.speed_mps * row.curvature_per_m;
        st.pose.yaw_rad += st.yaw_rate_rps * dt;
    }
    panic!("never finished");
}

fn check(name: &str, max_lateral: f64) {
    let path = route(name);
    let end = path.point(path.len() - 1);
    let (pose, worst, steps) = drive(path);
    let gap = (pose.x_m - end.x).hypot(pose.y_m - end.y);
    assert!(
        gap < 0.5,
        "{name}: stands {gap} m from the end after {steps} steps"
    );
    eprintln!("{name}: {steps} steps, {gap:.3} m from the end, {worst:.3} m largest offset");
    assert!(worst < max_lateral, "{name}: {worst} m off the path");
}

#[test]
fn straight_lane_is_driven_to_its_end() {
    check("straight_lane.json", 0.05);
}

#[test]
fn geojson_lane_is_the_same_route() {
    let a = route("straight_lane.json");
    let b = route("straight_lane.geojson");
    assert_eq!(a.len(), b.len());
    assert_eq!(a.line(), b.line());
    assert!((0..a.len()).all(|i| a.speed(i) == b.speed(i) && a.class(i) == b.class(i)));
}

#[test]
fn field_loop_is_driven_to_its_end() {
    // Pure pursuit cuts corners by up to about L_d² κ / 8 plus the steering-rate lag.
    check("field_loop.json", 0.6);
}

#[test]
fn yard_route_with_a_reverse_part_is_driven_to_its_end() {
    check("yard_reverse.json", 0.6);
}

/// `acres route check`: a route whose corner says grass lane where it crosses the meadow
/// fails there on the shipped map (exit 3), each format says so; a route without a
/// corridor passes; bad input is an error naming the file.
#[test]
fn route_check_finds_the_corner_and_exits_3() {
    use crate::run;
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/routes/farm_corner_mislabelled.json"
    );
    let (code, text, _) = run(&["route", "check", fixture, "--map", "farm"]);
    assert_eq!(code, 3, "{text}");
    assert!(
        text.contains("FAIL: clearance") && text.contains("12 fail"),
        "{text}"
    );
    let (code, j, _) = run(&[
        "route", "check", fixture, "--map", "farm", "--format", "json",
    ]);
    assert_eq!(code, 3);
    let v: serde_json::Value = serde_json::from_str(&j).unwrap();
    assert_eq!(v["failing_points"], 12);
    assert!(
        v["issues"][0]["notes"][0]
            .as_str()
            .unwrap()
            .contains("concrete to gravel")
    );
    let (code, csv, _) = run(&[
        "route",
        "check",
        "field_loop.json",
        "--format",
        "csv",
        "--all",
    ]);
    assert_eq!(code, 0);
    assert_eq!(csv.lines().count(), 914, "a header and 913 points");
    assert!(csv.contains("grass_lane"));
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{").unwrap();
    let (code, _, err) = run(&["route", "check", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.json"), "{err}");
}

/// Every shipped route passes its own plan check (issue 61): the farm's routes on the
/// farm map, the others (drawn on no map) for curvature, class and speed.
#[test]
fn every_shipped_route_passes_route_check() {
    use crate::run;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/routes");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !(name.ends_with(".json") || name.ends_with(".geojson")) {
            continue;
        }
        let p = path.to_str().unwrap();
        let mut args = vec!["route", "check", p];
        if name.starts_with("farm_") {
            args.extend(["--map", "farm"]);
        }
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(out.contains("; 0 fail"), "{name}: {out}");
        n += 1;
    }
    assert!(n >= 6, "{n} routes");
}
