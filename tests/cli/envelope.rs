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
    let (code, _, err) = run(&["envelope", "show", "--grip", "dry"]);
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
