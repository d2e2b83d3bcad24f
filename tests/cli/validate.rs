//! `acres validate`: the reference's validation set as a table or JSON, exit 1 on a failure.

use super::run;

#[test]
fn the_validation_set_runs_and_passes_on_the_shipped_model() {
    let (code, out, err) = run(&["validate", "--format", "json", "-q"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let lines = v.as_array().unwrap();
    let sets: Vec<&str> = lines.iter().map(|l| l["set"].as_str().unwrap()).collect();
    for s in ["opening", "hold", "stop", "steer", "dbw"] {
        assert!(sets.contains(&s), "{s} missing: {sets:?}");
    }
    for l in lines {
        assert_ne!(l["verdict"], "fail", "{l}");
        for k in ["test", "reference", "acres"] {
            assert!(!l[k].as_str().unwrap().is_empty(), "{l}");
        }
    }
    // The hold runs: 84 on planes and 64 on the map's lane windows.
    let holds: Vec<&serde_json::Value> = lines.iter().filter(|l| l["set"] == "hold").collect();
    assert!(holds[0]["test"].as_str().unwrap().contains("(84 runs)"));
    assert!(holds[1]["test"].as_str().unwrap().contains("(64 runs)"));
    // One set alone, as a table.
    let (code, out, err) = run(&["validate", "--only", "stop"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().nth(1).unwrap().starts_with("| test"), "{out}");
    assert!(
        out.contains("14.4 to 18.4 m") && out.contains("| pass"),
        "{out}"
    );
    // The whole table keeps within 120 columns (issue 61: 401), long cells wrapped.
    let (code, out, _) = run(&["validate"]);
    assert_eq!(code, 0);
    let widest = out.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest <= 120, "{widest} columns");
    assert!(out.contains("rolls over except where"), "{out}");
    let (code, _, err) = run(&["validate", "--only", "nothing"]);
    assert_eq!(code, 2, "{err}");
}

/// A model that fails a test makes the exit code 1: here a ULC whose deceleration limit
/// is far too low for a stop from 7 m/s to end within 18.4 m.
#[test]
fn a_failed_line_exits_1() {
    let dir = super::config_dir_with("control_v1.json", |v| {
        v["dbw"]["ulc"]["limit_decel_mps2"] = serde_json::json!(0.5);
    });
    let (code, out, err) = run(&[
        "validate",
        "--only",
        "stop",
        "--config-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("FAIL"), "{out}");
}
