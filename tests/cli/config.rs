use super::run;

#[test]
fn show_names_each_file_and_its_source() {
    let (code, out, _) = run(&["config", "show"]);
    assert_eq!(code, 0);
    assert!(out.contains("# control_v1.json (built-in)"), "{out}");
    assert!(out.contains("shield.curvature_max_per_m = 0.2"), "{out}");
    assert!(
        out.contains("limits.steering_rate_max_per_m_s = 0.059"),
        "{out}"
    );
    assert!(
        out.contains("grips.unknown.field.speed_command_mps = 5.0"),
        "{out}"
    );
    assert!(out.contains("driver.lookahead_max_m = 9.0"), "{out}");
}

#[test]
fn write_then_edit_then_show_uses_the_edited_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("cfg");
    let ds = d.to_str().unwrap();
    let (code, _, err) = run(&["config", "write", ds]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 4);
    // A second write refuses to overwrite.
    let (code, _, err) = run(&["config", "write", ds]);
    assert_eq!(code, 1);
    assert!(err.contains("exists") && err.contains("--force"), "{err}");

    let path = d.join("trajectory_v1.json");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("0.059", "0.07");
    std::fs::write(&path, text).unwrap();
    std::fs::remove_file(d.join("control_v1.json")).unwrap();
    let (code, out, err) = run(&["--config-dir", ds, "config", "show", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["files"]["trajectory_v1.json"]["limits"]["steering_rate_max_per_m_s"],
        0.07
    );
    assert_eq!(v["sources"]["control_v1.json"], "built-in");
    assert!(
        v["sources"]["trajectory_v1.json"]
            .as_str()
            .unwrap()
            .ends_with("trajectory_v1.json")
    );
}

#[test]
fn a_missing_config_dir_is_an_error() {
    let (code, _, err) = run(&["--config-dir", "/no/such/dir", "config", "show"]);
    assert_eq!(code, 1);
    assert!(err.contains("/no/such/dir"), "{err}");
}

#[test]
fn a_broken_file_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("scouting_v1.json"),
        "{\n  \"driver\": {\n    \"lookahead_min_m\": 4.0,,\n",
    )
    .unwrap();
    let (code, _, err) = run(&[
        "--config-dir",
        dir.path().to_str().unwrap(),
        "config",
        "show",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("scouting_v1.json") && err.contains("line 3"),
        "{err}"
    );
}

/// The free-space test's keys are checked like every other: a memory of no scan, a
/// negative margin or no return to count is an error naming the key.
#[test]
fn free_space_keys_out_of_range_name_the_key() {
    for (key, bad) in [
        ("free_every_s", serde_json::json!(0.0)),
        ("free_history_s", serde_json::json!(0.05)),
        ("free_radial_m", serde_json::json!(-0.1)),
        ("free_min_returns", serde_json::json!(0)),
        ("structure_size_m", serde_json::json!(1e9)),
        ("free_lone_spacings", serde_json::json!(-1.0)),
        ("free_fragment_spacings", serde_json::json!(1e6)),
    ] {
        let dir = super::config_dir_with("control_v1.json", |v| {
            v["tracker"][key] = bad.clone();
        });
        let (code, _, err) = run(&["--config-dir", dir.path().to_str().unwrap(), "sim"]);
        assert_eq!(code, 1, "{key}: {err}");
        assert!(err.contains(&format!("tracker.{key}")), "{key}: {err}");
    }
}
