use super::{acres, run};
use std::path::PathBuf;

fn chunks(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data/chunks")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn shipped_examples_get_the_verdict_they_are_named_for() {
    let dir = tempfile::tempdir().unwrap();
    let farm = dir.path().join("farm.acor");
    acres()
        .args(["corridor", "build", "-q", "--out", farm.to_str().unwrap()])
        .assert()
        .success();
    let (code, out, err) = run(&["check", &chunks("accepted.json"), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 3);
    assert!(
        v.as_array()
            .unwrap()
            .iter()
            .all(|r| r["verdict"] == "accepted")
    );
    let reasons = [
        "malformed",
        "step",
        "speed",
        "direction",
        "start",
        "stop",
        "acceleration",
        "deceleration",
        "curvature",
        "curvature_rate",
        "steering_rate",
        "start_curvature",
        "lateral_acceleration",
        "obstacle",
        "point",
        "corridor",
    ];
    for reason in reasons {
        let file = chunks(&format!("refused_{reason}.json"));
        let mut args = vec!["check".to_string(), file, "--format".into(), "json".into()];
        if reason == "obstacle" {
            args.extend(["--scan".into(), chunks("obstacle_scan.json")]);
        }
        if reason == "point" || reason == "corridor" {
            args.extend(["--corridor".into(), farm.display().to_string()]);
        }
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = run(&a);
        assert_eq!(code, 3, "{reason}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let r = &v[0];
        assert_eq!(r["verdict"], "refused");
        assert_eq!(r["reason"], reason, "{r}");
        for key in ["index", "first_index", "value", "limit"] {
            assert!(r.get(key).is_some(), "{reason}: no {key}");
        }
        if reason != "malformed" {
            assert!(
                r["value"].is_number() && r["limit"].is_number(),
                "{reason}: {r}"
            );
        }
    }
}

#[test]
fn table_and_csv_and_bad_files() {
    let (code, out, _) = run(&["check", &chunks("refused_speed.json")]);
    assert_eq!(code, 3);
    assert!(
        out.contains("speed") && out.contains("0 of 1 accepted"),
        "{out}"
    );
    let (code, out, _) = run(&["check", &chunks("accepted.json"), "--format", "csv"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("index,verdict,reason,first_index,value,limit"),
        "{out}"
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "[{\"start_station_m\": 1}, 7, {\"nonsense\": true}]").unwrap();
    let (code, out, _) = run(&["check", bad.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 3);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 3);
    assert!(
        v.as_array()
            .unwrap()
            .iter()
            .all(|r| r["reason"] == "malformed")
    );
    std::fs::write(&bad, "{not json").unwrap();
    let (code, _, err) = run(&["check", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.json"), "{err}");
    let (code, _, _) = run(&["check", "/no/such/file.json"]);
    assert_eq!(code, 1);
}

#[test]
fn batch_keeps_the_input_order_and_writes_atomically() {
    let dir = tempfile::tempdir().unwrap();
    // 3000 lines: the shipped straight-lane chunks repeated, and a bad line.
    let lines: Vec<String> = std::fs::read_to_string(chunks("straight_lane.jsonl"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let mut input = String::new();
    let mut want = Vec::new();
    for i in 0..3000 {
        if i == 1234 {
            input.push_str("{broken\n");
            want.push("malformed".to_string());
            continue;
        }
        let l = &lines[i % lines.len()];
        input.push_str(l);
        input.push('\n');
        want.push(String::new());
    }
    let inp = dir.path().join("in.jsonl");
    std::fs::write(&inp, &input).unwrap();
    let route = format!(
        "{}/data/routes/straight_lane.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = dir.path().join("out.jsonl");
    let (code, _, err) = run(&[
        "check",
        "--batch",
        inp.to_str().unwrap(),
        "--route",
        &route,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let recs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs.len(), 3000);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r["index"], i, "order");
    }
    assert_eq!(recs[1234]["reason"], "malformed");
    // The same lines one by one give the same verdicts.
    let single = dir.path().join("one.json");
    std::fs::write(&single, format!("[{}]", lines[1])).unwrap();
    let (_, o, _) = run(&[
        "check",
        single.to_str().unwrap(),
        "--route",
        &route,
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_eq!(v[0]["verdict"], recs[1]["verdict"]);
    assert_eq!(v[0]["reason"], recs[1]["reason"]);
    // A missing input leaves no output.
    let none = dir.path().join("none.csv");
    let (code, _, _) = run(&[
        "check",
        "--batch",
        "/no/such.jsonl",
        "--route",
        &route,
        "--out",
        none.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(!none.exists());
    let (code, _, _) = run(&[
        "check",
        "--batch",
        inp.to_str().unwrap(),
        "--out",
        none.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
}
