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
    // Without --route each chunk's own route (a shipped one here) gives the same verdicts.
    let own = dir.path().join("own.jsonl");
    let (code, _, err) = run(&[
        "check",
        "--batch",
        inp.to_str().unwrap(),
        "--out",
        own.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(std::fs::read_to_string(&own).unwrap(), text);
}

/// The first chunk of the shipped JSON Lines example (accepted).
fn first_example_line() -> String {
    std::fs::read_to_string(chunks("straight_lane.jsonl"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string()
}

/// All the shipped example chunks in one file, as a JSON array and as JSON Lines.
fn all_examples(dir: &std::path::Path) -> (PathBuf, PathBuf) {
    let mut items = Vec::new();
    for e in std::fs::read_dir(chunks("")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("refused_") || name == "accepted.json") {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let list = match v {
            serde_json::Value::Object(mut o) => o.remove("chunks").unwrap(),
            a => a,
        };
        items.extend(list.as_array().unwrap().iter().cloned());
    }
    items.sort_by_key(|v| v.to_string());
    let json = dir.join("all.json");
    std::fs::write(&json, serde_json::to_string(&items).unwrap()).unwrap();
    let jsonl = dir.join("all.jsonl");
    let lines: String = items.iter().map(|v| v.to_string() + "\n").collect();
    std::fs::write(&jsonl, lines).unwrap();
    (json, jsonl)
}

/// Every option of the single form gives the same records through the batch form (issue
/// 14, defect 2: --scan was dropped there), in JSON and in CSV.
#[test]
fn every_option_works_the_same_in_both_forms() {
    let dir = tempfile::tempdir().unwrap();
    let (json, jsonl) = all_examples(dir.path());
    let farm = dir.path().join("farm.acor");
    acres()
        .args(["corridor", "build", "-q", "--out", farm.to_str().unwrap()])
        .assert()
        .success();
    let route = format!(
        "{}/data/routes/straight_lane.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let scan = chunks("obstacle_scan.json");
    let option_sets: Vec<Vec<&str>> = vec![
        vec![],
        vec!["--scan", &scan],
        vec!["--corridor", farm.to_str().unwrap()],
        vec!["--route", &route],
        vec!["--grip", "dry"],
        vec!["--margins"],
        vec!["--scan", &scan, "--margins", "--grip", "dry"],
    ];
    for opts in &option_sets {
        for format in ["json", "csv"] {
            let out = dir.path().join(format!("b.{format}"));
            let mut single = vec!["check", json.to_str().unwrap(), "--format", format];
            single.extend(opts.iter().copied());
            let (c1, o1, e1) = run(&single);
            let mut batch = vec![
                "check",
                "--batch",
                jsonl.to_str().unwrap(),
                "--format",
                format,
                "--out",
                out.to_str().unwrap(),
            ];
            batch.extend(opts.iter().copied());
            let (c2, _, e2) = run(&batch);
            assert_eq!((c1, c2), (3, 3), "{opts:?}: {e1} {e2}");
            let o2 = std::fs::read_to_string(&out).unwrap();
            if format == "csv" {
                assert_eq!(o1, o2, "{opts:?}");
            } else {
                let a: Vec<serde_json::Value> = serde_json::from_str(&o1).unwrap();
                let b: Vec<serde_json::Value> = o2
                    .lines()
                    .map(|l| serde_json::from_str(l).unwrap())
                    .collect();
                assert_eq!(a, b, "{opts:?}");
            }
        }
    }
    // --scan reaches the batch form: the obstacle example is refused for its obstacle.
    let out = dir.path().join("s.jsonl");
    run(&[
        "check",
        "--batch",
        jsonl.to_str().unwrap(),
        "--scan",
        &scan,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("\"reason\":\"obstacle\"")
    );
    // What one form cannot do is refused, not dropped.
    let (code, _, err) = run(&[
        "check",
        "--batch",
        jsonl.to_str().unwrap(),
        "--format",
        "table",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--format table"), "{err}");
    let (code, _, err) = run(&["check", json.to_str().unwrap(), "--max-line-bytes", "100"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--max-line-bytes"), "{err}");
    // The single form's --out writes the file.
    let o = dir.path().join("single.csv");
    let (code, _, _) = run(&[
        "check",
        json.to_str().unwrap(),
        "--format",
        "csv",
        "--out",
        o.to_str().unwrap(),
    ]);
    assert_eq!(code, 3);
    assert!(
        std::fs::read_to_string(&o)
            .unwrap()
            .starts_with("index,verdict,reason")
    );
}

/// Numbers that are not finite (as Python writes them) and out-of-range literals are a
/// `malformed` verdict for their chunk, at their sample, in both forms; an invalid UTF-8
/// line is malformed alone (issue 14, defect 4).
#[test]
fn bad_numbers_and_bytes_stay_in_their_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let good = first_example_line();
    let nan = good.replacen(
        "\"offsets_m\":[0.0,0.0,0.0",
        "\"offsets_m\":[0.0,0.0,NaN",
        1,
    );
    let inf = good.replacen("\"x_m\":20.0", "\"x_m\":Infinity", 1);
    let big = good.replacen("\"offsets_m\":[0.0", "\"offsets_m\":[1e400", 1);
    assert!(nan != good && inf != good && big != good);
    let file = dir.path().join("bad.json");
    std::fs::write(&file, format!("[{good},{nan},{inf},{big}]")).unwrap();
    let (code, out, err) = run(&["check", file.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 3, "{err}");
    let v: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let got: Vec<(String, serde_json::Value)> = v
        .iter()
        .map(|r| {
            (
                r["verdict"].as_str().unwrap().to_string(),
                r["first_index"].clone(),
            )
        })
        .collect();
    assert_eq!(got[0].0, "accepted");
    assert_eq!(
        (got[1].1.clone(), got[2].1.clone(), got[3].1.clone()),
        (2.into(), 0.into(), 0.into())
    );
    assert!(
        v[1]["note"].as_str().unwrap().contains("offsets_m[2]"),
        "{}",
        v[1]
    );
    assert!(
        v[2]["note"].as_str().unwrap().contains("start.x_m"),
        "{}",
        v[2]
    );
    // The batch form, with an invalid UTF-8 line among them.
    let mut bytes = Vec::new();
    for l in [&good, &nan, &inf, &big] {
        bytes.extend_from_slice(l.as_bytes());
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(b"{\"route\": \"\xff\"}\n");
    bytes.extend_from_slice(good.as_bytes());
    bytes.push(b'\n');
    let inp = dir.path().join("bad.jsonl");
    std::fs::write(&inp, bytes).unwrap();
    let out = dir.path().join("v.jsonl");
    let (code, _, err) = run(&[
        "check",
        "--batch",
        inp.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{err}");
    let recs: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs.len(), 6);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r["index"], i);
        assert_eq!(r["reason"] == "malformed", (1..=4).contains(&i), "{r}");
        assert_eq!(
            r["first_index"],
            v.get(i)
                .map_or(r["first_index"].clone(), |s| s["first_index"].clone())
        );
    }
    assert!(
        recs[4]["note"].as_str().unwrap().contains("UTF-8"),
        "{}",
        recs[4]
    );
}

/// Every verdict says why, in every format (issue 14, item 5).
#[test]
fn the_note_is_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let good = first_example_line();
    let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
    v["speeds_mps"].as_array_mut().unwrap().pop();
    let file = dir.path().join("short.json");
    std::fs::write(&file, format!("[{v}]")).unwrap();
    let want = "speeds_mps has 39 samples, offsets_m 40";
    for format in ["table", "json", "csv"] {
        let (code, out, _) = run(&["check", file.to_str().unwrap(), "--format", format]);
        assert_eq!(code, 3);
        assert!(out.contains(want), "{format}: {out}");
    }
    let inp = dir.path().join("short.jsonl");
    std::fs::write(&inp, format!("{v}\n")).unwrap();
    for ext in ["jsonl", "csv"] {
        let out = dir.path().join(format!("o.{ext}"));
        run(&[
            "check",
            "--batch",
            inp.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            std::fs::read_to_string(&out).unwrap().contains(want),
            "{ext}"
        );
    }
}

#[test]
fn the_plot_colours_refused_chunks_by_their_rule() {
    let dir = tempfile::tempdir().unwrap();
    let mut chunks = Vec::new();
    for f in [
        "accepted.json",
        "refused_curvature.json",
        "refused_speed.json",
    ] {
        let text = std::fs::read_to_string(format!("data/chunks/{f}")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        chunks.push(v["chunks"][0].clone());
    }
    let file = dir.path().join("three.json");
    std::fs::write(&file, serde_json::json!({ "chunks": chunks }).to_string()).unwrap();
    let svg = dir.path().join("check.svg");
    let (code, out, err) = super::run(&[
        "check",
        file.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{out}{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    for label in [
        "acres check: 3 chunks, 2 refused",
        "refused: curvature",
        "refused: speed",
        ">\naccepted\n<",
        "first failing sample",
        ">\n#2\n<",
    ] {
        assert!(text.contains(label), "no {label:?}");
    }
    // Not with the batch form.
    let (code, _, err) = super::run(&[
        "check", "--batch", "x.jsonl", "--out", "-", "--plot", "p.png",
    ]);
    assert_eq!(code, 2, "{err}");
}

/// A chunk checked without a scan or a corridor says which rules did not run (issue 61:
/// "1 of 1 accepted" used to claim them), and --strict refuses it with reason `unchecked`.
#[test]
fn rules_without_their_input_are_named_and_strict_refuses() {
    let (code, out, err) = run(&["check", &chunks("refused_obstacle.json")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "1 of 1 accepted; obstacle, point and corridor rules not run: no --scan, no --corridor"
        ),
        "{out}"
    );
    let (code, out, _) = run(&[
        "check",
        &chunks("refused_obstacle.json"),
        "--strict",
        "--format",
        "json",
    ]);
    assert_eq!(code, 3, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["reason"], "unchecked", "{v}");
    assert_eq!(
        v[0]["unchecked"],
        serde_json::json!(["obstacle", "point", "corridor"])
    );
    // An empty scan runs the obstacle rule; the corridor rules still lack their input.
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.json");
    let ranges = vec![serde_json::Value::Null; 360];
    std::fs::write(&empty, serde_json::json!({ "ranges": ranges }).to_string()).unwrap();
    let (code, out, _) = run(&[
        "check",
        &chunks("refused_point.json"),
        "--scan",
        empty.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.lines().nth(1).unwrap().ends_with(",point;corridor"),
        "{out}"
    );
    // The batch form: the same words on stderr, and --strict refuses.
    let out_file = dir.path().join("v.jsonl");
    let (code, _, err) = run(&[
        "check",
        "--batch",
        &chunks("straight_lane.jsonl"),
        "--strict",
        "--out",
        out_file.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("0 of 14 accepted; obstacle, point and corridor rules not run"),
        "{err}"
    );
    let text = std::fs::read_to_string(&out_file).unwrap();
    assert!(
        text.lines()
            .all(|l| l.contains("\"unchecked\":[\"obstacle\",\"point\",\"corridor\"]")),
        "{text}"
    );
}

/// The check plot of a file with a malformed chunk draws the others (it panicked: the
/// malformed chunk's samples were converted for the plot), and two chunks that start at
/// one place get labels that do not print over each other.
#[test]
fn the_check_plot_skips_malformed_chunks_and_sets_labels_apart() {
    let text = std::fs::read_to_string(chunks("accepted.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let good = v["chunks"][0].clone();
    let mut bad = good.clone();
    bad["speeds_mps"].as_array_mut().unwrap().pop();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("three.json");
    std::fs::write(&file, serde_json::json!([good, good, bad]).to_string()).unwrap();
    let svg = dir.path().join("c.svg");
    let (code, _, err) = run(&[
        "check",
        file.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{err}");
    let s = std::fs::read_to_string(&svg).unwrap();
    let place = |label: &str| {
        let at = s.find(&format!(">\n{label}\n<")).expect(label);
        let tag = &s[s[..at].rfind("<text").unwrap()..at];
        let num = |key: &str| -> f64 {
            let i = tag.find(key).unwrap() + key.len();
            tag[i..].split('"').next().unwrap().parse().unwrap()
        };
        (num(" x=\""), num(" y=\""))
    };
    let (a, b) = (place("#0"), place("#1"));
    assert!((a.1 - b.1).abs() >= 12.0, "#0 at {a:?}, #1 at {b:?}");
    assert!(!s.contains(">\n#2\n<"), "the malformed chunk is not drawn");
}
