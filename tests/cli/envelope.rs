use super::{config_dir_with, run};

#[test]
fn stop_distance_worked_example() {
    let (code, out, err) = run(&[
        "envelope",
        "stop-distance",
        "--class",
        "asphalt",
        "--speed",
        "7.8",
    ]);
    assert_eq!((code, out.as_str()), (0, "35.65\n"), "{err}");
}

#[test]
fn stop_cap_worked_example() {
    let (code, out, err) = run(&[
        "envelope",
        "stop-cap",
        "--class",
        "gravel",
        "--distance",
        "20",
    ]);
    assert_eq!((code, out.as_str()), (0, "5.41\n"), "{err}");
}

#[test]
fn json_keeps_full_precision_and_the_inputs() {
    let (code, out, _) = run(&[
        "envelope",
        "stop-cap",
        "--class",
        "gravel",
        "--distance",
        "20",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["class"], "gravel");
    assert_eq!(v["grip"], "unknown");
    assert_eq!(v["distance_m"], 20.0);
    assert_eq!(v["obstacle_margin_m"], 2.4);
    let cap = v["stop_cap_mps"].as_f64().unwrap();
    let exact = (-1.0 + (1.0f64 + 4.0 * 17.6 / 2.4).sqrt()) / (2.0 / 2.4);
    assert!((cap - exact).abs() < 1e-12, "{cap}");

    let (_, out, _) = run(&[
        "envelope",
        "stop-distance",
        "--class",
        "dirt",
        "--speed",
        "3",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // 2.1 + 3 + 9 / 2.4
    assert!((v["stop_distance_m"].as_f64().unwrap() - 8.85).abs() < 1e-12);
}

#[test]
fn unknown_class_takes_the_worst_limits() {
    let (code, out, _) = run(&[
        "envelope",
        "stop-distance",
        "--class",
        "unknown",
        "--speed",
        "0",
    ]);
    assert_eq!((code, out.as_str()), (0, "2.60\n"));
}

#[test]
fn show_lists_every_class_in_each_format() {
    let (code, out, _) = run(&["envelope", "show"]);
    assert_eq!(code, 0);
    for c in [
        "asphalt",
        "concrete",
        "gravel",
        "grass_lane",
        "dirt",
        "grass",
        "field",
        "unknown",
    ] {
        assert!(out.lines().any(|l| l.starts_with(c)), "{c} missing:\n{out}");
    }
    let asphalt = out.lines().find(|l| l.starts_with("asphalt")).unwrap();
    assert!(
        asphalt.contains("35.65") && asphalt.contains("4.35"),
        "{asphalt}"
    );

    let (_, out, _) = run(&["envelope", "show", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["stop_time_s"], 1.0);
    assert_eq!(v["classes"].as_array().unwrap().len(), 8);
    assert_eq!(v["classes"][4]["class"], "dirt");
    assert_eq!(v["classes"][4]["speed_command_mps"], 7.1);

    let (_, out, _) = run(&["envelope", "show", "--format", "csv"]);
    let mut r = csv::Reader::from_reader(out.as_bytes());
    let headers = r.headers().unwrap().clone();
    assert_eq!(&headers[0], "class");
    assert_eq!(&headers[7], "spare_m");
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(rows.len(), 8);
    assert_eq!(&rows[5][0], "grass");
    assert_eq!(rows[5][2].parse::<f64>().unwrap(), 5.6);
}

#[test]
fn bad_arguments_are_usage_errors() {
    let (code, _, err) = run(&[
        "envelope",
        "stop-distance",
        "--class",
        "mud",
        "--speed",
        "3",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("mud") && err.contains("grass_lane"), "{err}");
    let (code, _, err) = run(&[
        "envelope",
        "stop-distance",
        "--class",
        "asphalt",
        "--speed",
        "-1",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("negative"), "{err}");
    let (code, _, err) = run(&[
        "envelope",
        "stop-cap",
        "--class",
        "asphalt",
        "--distance",
        "far",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("not a number"), "{err}");
    let (code, _, _) = run(&["envelope", "stop-cap", "--distance", "3"]);
    assert_eq!(code, 2);
}

#[test]
fn dry_grip_needs_a_dry_table() {
    let without = config_dir_with("envelope_v1.json", |v| {
        v["grips"].as_object_mut().unwrap().remove("dry");
    });
    let w = without.path().to_str().unwrap();
    let (code, _, err) = run(&["--config-dir", w, "envelope", "show", "--grip", "dry"]);
    assert_eq!(code, 1);
    assert!(err.contains("grips.dry"), "{err}");
    let dir = config_dir_with("envelope_v1.json", |v| {
        let t = v["grips"]["unknown"].clone();
        v["grips"]["dry"] = t;
        v["grips"]["dry"]["gravel"]["obstacle_margin_m"] = 2.0.into();
    });
    let d = dir.path().to_str().unwrap();
    let (code, out, err) = run(&[
        "--config-dir",
        d,
        "envelope",
        "stop-distance",
        "--class",
        "gravel",
        "--speed",
        "0",
        "--grip",
        "dry",
    ]);
    assert_eq!((code, out.as_str()), (0, "2.00\n"), "{err}");
}

#[test]
fn a_bad_config_dir_is_an_error_naming_file_and_key() {
    let dir = config_dir_with("envelope_v1.json", |v| {
        v["grips"]["unknown"]["grass"]["decel_mps2"] = (-1.0).into();
    });
    let d = dir.path().to_str().unwrap();
    let (code, out, err) = run(&["--config-dir", d, "envelope", "show"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("envelope_v1.json") && err.contains("grips.unknown.grass.decel_mps2"),
        "{err}"
    );
}

#[test]
fn calibrate_reads_the_shipped_measurements_and_writes_an_envelope_others_accept() {
    let (code, out, err) = run(&["envelope", "calibrate"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("data/stops/measurements.csv"), "{out}");
    assert!(
        out.contains("grip unknown:") && out.contains("grip dry:"),
        "{out}"
    );
    assert!(
        out.contains("differences from built-in (14 of 14 loosen a limit):"),
        "{out}"
    );
    assert!(
        out.contains("unknown gravel obstacle_margin_m: 2.40 → 1.60  LOOSER"),
        "{out}"
    );
    assert!(
        out.contains("the dry and unknown tables are identical: the stops braked at most"),
        "{out}"
    );
    // A looser envelope is not written without --accept-looser (issue 61), and nothing
    // is left behind.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("envelope_v1.json");
    let (code, _, err) = run(&["envelope", "calibrate", "--out", p.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("not written: 14 of the 14 differences loosen a limit")
            && err.contains("--accept-looser"),
        "{err}"
    );
    assert!(!p.exists());
    let (code, _, err) = run(&[
        "envelope",
        "calibrate",
        "--out",
        p.to_str().unwrap(),
        "--accept-looser",
    ]);
    assert_eq!(code, 0, "{err}");
    let d = dir.path().to_str().unwrap();
    let (code, out, err) = run(&["--config-dir", d, "envelope", "show", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["classes"][2]["class"], "gravel");
    assert_eq!(v["classes"][2]["obstacle_margin_m"], 1.6);
    assert_eq!(v["classes"][2]["decel_mps2"], 1.2);
    // With its own envelope, calibrate finds no difference, and writes without the flag;
    // an envelope that only tightens is written too.
    let (code, out, _) = run(&["--config-dir", d, "envelope", "calibrate"]);
    assert_eq!(code, 0);
    assert!(out.contains("the same as"), "{out}");
    let again = dir.path().join("again.json");
    let calibrate_out = || {
        run(&[
            "--config-dir",
            d,
            "envelope",
            "calibrate",
            "--out",
            again.to_str().unwrap(),
        ])
    };
    let (code, _, err) = calibrate_out();
    assert_eq!(code, 0, "{err}");
    let looser = std::fs::read_to_string(&p)
        .unwrap()
        .replace("\"obstacle_margin_m\": 1.6", "\"obstacle_margin_m\": 1.0");
    assert!(looser.contains("1.0"));
    std::fs::write(&p, looser).unwrap();
    let (code, out, err) = calibrate_out();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("obstacle_margin_m: 1.00 → 1.60\n"), "{out}");
    assert!(!out.contains("LOOSER"), "{out}");
}

/// `acres envelope measure` of dry gravel into `out`, with more arguments; asserts success.
pub fn measure_dry_gravel(out: &std::path::Path, more: &[&str]) {
    let mut args = vec![
        "envelope",
        "measure",
        "-q",
        "--classes",
        "gravel",
        "--grip",
        "dry",
    ];
    args.extend(more);
    args.extend(["--out", out.to_str().unwrap()]);
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn measure_writes_one_deterministic_row_per_test() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    for p in [&a, &b] {
        measure_dry_gravel(p, &[]);
    }
    let text = std::fs::read_to_string(&a).unwrap();
    assert_eq!(text, std::fs::read_to_string(&b).unwrap());
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    // Stops at 1..7 and 7.8 m/s, one follow test, steering steps at 2..7 and 7.8 m/s.
    let count = |t: &str| rows.iter().filter(|x| &x[0] == t).count();
    assert_eq!((count("stop"), count("follow"), count("steer")), (8, 1, 7));
    assert!(rows.iter().all(|x| &x[1] == "gravel" && &x[2] == "dry"));
    let follow = rows.iter().find(|x| &x[0] == "follow").unwrap();
    assert_eq!(
        &follow[11], "false",
        "the follow test does not touch the wall"
    );
    // One class only: calibrate names a class with no stops.
    let (code, _, err) = run(&["envelope", "calibrate", "--stops", a.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("a.csv") && err.contains("`asphalt` has no stop tests"),
        "{err}"
    );
    // A missing column names the file and the column.
    let cut = text.replace(",tail_m", "");
    std::fs::write(&b, cut).unwrap();
    let (code, _, err) = run(&["envelope", "calibrate", "--stops", b.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("b.csv") && err.contains("missing column `tail_m`"),
        "{err}"
    );
}
