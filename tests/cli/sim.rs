use super::run;

#[test]
fn the_default_scenario_stops_before_the_object() {
    let (code, out, err) = run(&["sim", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in [
        "collided",
        "stopped",
        "gap_m",
        "max_lateral_accel_mps2",
        "wheel_lift",
        "interventions",
        "time_s",
        "distance_m",
    ] {
        assert!(v.get(key).is_some(), "no {key}");
    }
    assert_eq!(v["collided"], false);
    assert_eq!(v["stopped"], true);
    let gap = v["gap_m"].as_f64().unwrap();
    assert!((2.4..=3.5).contains(&gap), "{gap}");
    assert!(v["interventions"]["obstacle"].as_u64().unwrap() > 0);
    let (code, text, _) = run(&["sim"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("collided: false") && text.contains("gap: "),
        "{text}"
    );
}

#[test]
fn the_log_has_one_record_per_control_step_and_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    for p in [&a, &b] {
        let (code, _, err) = run(&["sim", "-q", "--log", p.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
    }
    let ta = std::fs::read_to_string(&a).unwrap();
    assert_eq!(ta, std::fs::read_to_string(&b).unwrap());
    let recs: Vec<serde_json::Value> = ta
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(recs.len() > 100);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r["step"], i);
        assert_eq!(r["scan"].as_array().unwrap().len(), 360);
        assert_eq!(r["dbw"]["type"], "dbw_report");
    }
}

#[test]
fn a_bad_scenario_is_an_error_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.json");
    let text = acres::formats::scenario::DEFAULT_SCENARIO.replace("\"obstacles\"", "\"obstacels\"");
    std::fs::write(&p, text).unwrap();
    let (code, _, err) = run(&["sim", "--scenario", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("s.json") && err.contains("obstacels"), "{err}");
}

fn scenario(name: &str) -> String {
    format!("{}/data/scenarios/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn without_the_shield_the_driver_hits_the_object() {
    let (code, out, err) = run(&[
        "sim",
        "--scenario",
        &scenario("opening_no_shield_collides.json"),
        "--format",
        "json",
    ]);
    // A failing verdict fails the command (issue 61): exit 4, the verdict in the summary.
    assert_eq!(code, 4, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["collided"], true);
    assert_eq!(v["ok"], false);
    let verdict = v["verdict"].as_str().unwrap();
    assert!(
        verdict.starts_with("collided with obstacle 0") && verdict.ends_with(": FAIL"),
        "{verdict}"
    );
    assert!(v["interventions"].get("obstacle").is_none());
}

#[test]
fn downhill_on_wet_gravel_the_vehicle_stops_at_the_route_end_and_holds() {
    let (code, out, err) = run(&[
        "sim",
        "--scenario",
        &scenario("lane_downhill_wet.json"),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["stopped"], true);
    assert_eq!(v["collided"], false);
    // From x = 200 m to the lane's end at 300 m, within 0.5 m.
    let d = v["distance_m"].as_f64().unwrap();
    assert!((d - 100.0).abs() < 0.5, "{d}");
}

#[test]
fn on_the_farm_map_the_vehicle_drives_over_the_terrace_to_the_route_end() {
    let (code, out, err) = run(&[
        "sim",
        "--scenario",
        &scenario("farm_terrace_wet.json"),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["stopped"], true);
    assert_eq!(v["collided"], false);
    assert_eq!(v["wheel_lift"], false);
    // The route is 945.5 m long (1892 points 0.5 m apart).
    let d = v["distance_m"].as_f64().unwrap();
    assert!((d - 945.5).abs() < 1.5, "{d}");
    // A map that is not there is an error naming the key.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(scenario("farm_terrace_wet.json")).unwrap();
    let p = dir.path().join("s.json");
    std::fs::write(&p, text.replace("\"farm\"", "\"nowhere.json\"")).unwrap();
    let (code, _, err) = run(&["sim", "--scenario", p.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("map") && err.contains("nowhere.json"), "{err}");
}

#[test]
fn plot_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("run.png");
    let (code, _, err) = run(&["sim", "-q", "--plot", png.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(&std::fs::read(&png).unwrap()[..8], b"\x89PNG\r\n\x1a\n");
    let (code, _, err) = run(&[
        "sim",
        "--plot",
        dir.path().join("run.jpg").to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("run.jpg"), "{err}");
}

/// A failing verdict is exit 4, in every output format and for a suite judged by the rule
/// it runs (issue 61): a script tells a collision from a clean run.
#[test]
fn failing_verdicts_exit_4_and_clean_runs_0() {
    for format in ["table", "json", "csv"] {
        let (code, out, err) = run(&[
            "sim",
            "--scenario",
            &scenario("crossing_person.json"),
            "--moving",
            "off",
            "--format",
            format,
        ]);
        assert_eq!(code, 4, "{format}: {out}{err}");
        assert!(
            out.contains("collided with person 0") && out.contains("FAIL"),
            "{out}"
        );
    }
    let (code, out, err) = run(&["sim", "--scenario", &scenario("crossing_person.json")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(": ok"), "{out}");
    // A suite: judged by the last mode run; the rule-off line is information.
    let (code, out, err) = run(&["sim", "--suite", "running-child"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("verdict (tracker): no collision by the vehicle"),
        "{out}"
    );
    let (code, out, err) = run(&[
        "sim",
        "--suite",
        "running-child",
        "--moving",
        "off",
        "--format",
        "json",
    ]);
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains("verdict (off): ") && err.contains(": FAIL"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let runs = v[0]["runs"].as_array().unwrap();
    let judged = runs
        .iter()
        .filter(|r| r["collided_by_vehicle"] == true)
        .filter(|r| r["careful"] == "must-avoid" || r["careful"] == "clear")
        .count();
    assert!(judged > 0);
    assert_eq!(v[0]["judged_collisions"], judged);
    let grey = runs
        .iter()
        .filter(|r| r["careful"] == "grey" || r["careful"] == "unavoidable")
        .filter(|r| r["collided_by_vehicle"] == true)
        .count();
    assert_eq!(
        v[0]["collisions_by_vehicle"].as_u64().unwrap() as usize,
        judged + grey,
        "grey and unavoidable collisions are reported, not judged"
    );
}
