//! `acres replay`.

use super::{config_dir_with, run};
use std::collections::BTreeSet;
use std::path::Path;

fn scenario(name: &str) -> String {
    format!("{}/data/scenarios/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn record(dir: &Path, scen: &str) -> String {
    let log = dir.join(format!("{scen}.jsonl"));
    let (code, _, err) = run(&[
        "sim",
        "-q",
        "--scenario",
        &scenario(scen),
        "--log",
        log.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    log.to_str().unwrap().to_string()
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// record == replay(record): the JSON Lines rows hold the logged command rows, bit for bit.
#[test]
fn replaying_sim_logs_reproduces_their_rows() {
    let dir = tempfile::tempdir().unwrap();
    for scen in [
        "opening.json",
        "field_loop_dry.json",
        "farm_terrace_wet.json",
    ] {
        let log = record(dir.path(), scen);
        let rows = dir.path().join("rows.jsonl");
        let (code, out, err) = run(&[
            "replay",
            &log,
            "--scenario",
            &scenario(scen),
            "--out",
            rows.to_str().unwrap(),
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{err}");
        let s = json(&out);
        assert_eq!(s["mismatches"], 0, "{scen}: {out}");
        assert_eq!(s["logged_break_counts"], serde_json::json!({}), "{scen}");
        let logged = std::fs::read_to_string(&log).unwrap();
        let replayed = std::fs::read_to_string(&rows).unwrap();
        assert_eq!(logged.lines().count(), replayed.lines().count());
        assert_eq!(s["steps"], logged.lines().count());
        for (l, r) in logged.lines().zip(replayed.lines()) {
            let (l, r) = (json(l), json(r));
            assert_eq!(l["row"], r["row"], "{scen} step {}", l["step"]);
        }
    }
}

/// A hand-made log on the opening route: the logged command breaks the corner rule at
/// step 10 (7 m/s at 0.1 1/m) and the obstacle rule at step 20 (5 m/s toward an object
/// 5 m ahead); replay reports both, at those steps.
#[test]
fn a_logged_command_that_breaks_rules_is_reported_at_its_steps() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hand.jsonl");
    let mut text = String::new();
    for k in 0..30u64 {
        let (v, kappa) = match k {
            10 => (7.0, 0.1),
            20 => (5.0, 0.0),
            _ => (3.0, 0.0),
        };
        let scan = if k == 20 {
            let mut s = vec![serde_json::Value::Null; 360];
            s[0] = serde_json::json!(5.0);
            serde_json::Value::Array(s)
        } else {
            serde_json::Value::Null
        };
        let rec = serde_json::json!({
            "step": k, "t": k as f64 * 0.02,
            "state": {"pose": {"x_m": 5.0 + 0.06 * k as f64, "y_m": 0.0, "yaw_rad": 0.0},
                      "speed_mps": 3.0, "yaw_rate_rps": 0.0, "gear": "high"},
            "scan": scan,
            "row": {"curvature_per_m": kappa, "speed_mps": v}
        });
        text.push_str(&rec.to_string());
        text.push('\n');
    }
    std::fs::write(&log, text).unwrap();
    let (code, out, err) = run(&["replay", log.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let s = json(&out);
    assert_eq!(
        s["logged_breaks"]["corner"],
        serde_json::json!([10]),
        "{out}"
    );
    assert_eq!(
        s["logged_breaks"]["obstacle"],
        serde_json::json!([20]),
        "{out}"
    );
    assert_eq!(s["steps"], 30);
    // The table names them too.
    let (code, out, _) = run(&["replay", log.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        out.contains("logged command broke corner: 1 steps (10)"),
        "{out}"
    );
    assert!(
        out.contains("logged command broke obstacle: 1 steps (20)"),
        "{out}"
    );
}

fn rows_csv(path: &Path) -> Vec<csv::StringRecord> {
    let mut r = csv::Reader::from_path(path).unwrap();
    r.records().map(|x| x.unwrap()).collect()
}

/// `--compare` with a lower lateral limit reports exactly the steps whose rows change
/// between two separate replays.
#[test]
fn compare_reports_exactly_the_steps_that_change() {
    let dir = tempfile::tempdir().unwrap();
    let log = record(dir.path(), "field_loop_dry.json");
    let b = config_dir_with("envelope_v1.json", |v| {
        for g in v["grips"].as_object_mut().unwrap().values_mut() {
            for c in g.as_object_mut().unwrap().values_mut() {
                c["lateral_accel_max_mps2"] = serde_json::json!(1.2);
            }
        }
    });
    let b = b.path().to_str().unwrap();
    let (a_rows, b_rows) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    let scen = scenario("field_loop_dry.json");
    for (out, cfg) in [(&a_rows, None), (&b_rows, Some(b))] {
        let mut args = vec![
            "replay",
            &log,
            "--scenario",
            &scen,
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some(c) = cfg {
            args.extend(["--config-dir", c]);
        }
        let (code, _, err) = run(&args);
        assert_eq!(code, 0, "{err}");
    }
    let (ra, rb) = (rows_csv(&a_rows), rows_csv(&b_rows));
    assert_eq!(ra.len(), rb.len());
    // Columns 5..=8: speed, curvature, gear, brake hold.
    let expected: BTreeSet<u64> = ra
        .iter()
        .zip(&rb)
        .filter(|(x, y)| (5..=8).any(|i| x[i] != y[i]))
        .map(|(x, _)| x[0].parse().unwrap())
        .collect();
    assert!(!expected.is_empty() && expected.len() < 1000);
    let (code, out, err) = run(&[
        "replay",
        &log,
        "--scenario",
        &scen,
        "--compare",
        b,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let s = json(&out);
    let got: BTreeSet<u64> = s["differing_steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["step"].as_u64().unwrap())
        .collect();
    assert_eq!(got, expected);
    assert_eq!(s["differences"], expected.len());
    // Each difference is the corner rule of the lower limit.
    for d in s["differing_steps"].as_array().unwrap() {
        assert!(
            d["rules_b"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r == "corner"),
            "{d}"
        );
        assert!(d["speed_b_mps"].as_f64() < d["speed_a_mps"].as_f64(), "{d}");
    }
}

#[test]
fn bad_logs_are_errors_naming_the_line_or_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let log = record(dir.path(), "opening.json");
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len();
    let out = dir.path().join("rows.csv");

    // A bad line in the middle: an error naming line 11, and no rows file left behind.
    let mut bad = lines.clone();
    bad[10] = "{\"step\": 10, \"t\": oops}";
    let p = dir.path().join("bad.jsonl");
    std::fs::write(&p, bad.join("\n") + "\n").unwrap();
    let (code, _, err) = run(&[
        "replay",
        p.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.jsonl:11:"), "{err}");
    assert!(!out.exists());
    // With --skip-bad it is counted and the rest replays.
    let (code, stdout, err) = run(&[
        "replay",
        p.to_str().unwrap(),
        "--skip-bad",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let s = json(&stdout);
    assert_eq!(s["skipped"], 1);
    assert_eq!(s["steps"], n - 1);

    // A truncated log: the last line cut off.
    let cut = &text[..text.len() - 40];
    let p = dir.path().join("cut.jsonl");
    std::fs::write(&p, cut).unwrap();
    let (code, _, err) = run(&["replay", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!("cut.jsonl:{n}:")) && err.contains("cut off"),
        "{err}"
    );

    // An empty file.
    let p = dir.path().join("empty.jsonl");
    std::fs::write(&p, "").unwrap();
    let (code, _, err) = run(&["replay", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("empty.jsonl") && err.contains("no records"),
        "{err}"
    );

    // A missing file, and a CSV without the pose columns.
    let (code, _, err) = run(&["replay", "/nonexistent/x.jsonl"]);
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent/x.jsonl"), "{err}");
    let p = dir.path().join("report.csv");
    std::fs::write(&p, "t,vel_meas\n0,1.0\n").unwrap();
    let (code, _, err) = run(&["replay", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("missing columns x_m, y_m, yaw_rad, speed_mps"),
        "{err}"
    );
}

/// A CSV log with the pose columns replays; a non-number names its line and column.
#[test]
fn a_csv_log_replays_and_a_bad_cell_names_its_column() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("drive.csv");
    let mut text = String::from("t,x_m,y_m,yaw_rad,speed_mps,cmd_speed_mps,cmd_curvature_per_m\n");
    for k in 0..50 {
        text.push_str(&format!(
            "{},{},0,0,3,3,0\n",
            k as f64 * 0.02,
            2.0 + 0.06 * k as f64
        ));
    }
    std::fs::write(&p, &text).unwrap();
    let (code, out, err) = run(&["replay", p.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["steps"], 50);
    std::fs::write(&p, text.replace("\n1,", "\nx,").replace("0.2,", "zz,")).unwrap();
    let (code, _, err) = run(&["replay", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("drive.csv:12:") && err.contains("column `t`"),
        "{err}"
    );
}

#[test]
fn plot_and_rows_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let log = record(dir.path(), "opening.json");
    let png = dir.path().join("r.png");
    let (code, out, err) = run(&[
        "replay",
        &log,
        "--out",
        "-",
        "--plot",
        png.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("step,t,vehicle_speed_mps,"), "{out}");
    assert!(err.contains("steps:"), "the summary goes to stderr: {err}");
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
}

/// The ROS 2 bag written by rosbags (tests/data/bags/make.py): a drive at 3 m/s toward a
/// wall 20 m ahead. Replayed from its folder, the obstacle rule alone intervenes, from
/// about 3 s (the wall 11 m away) until it holds the vehicle, and the logged 3 m/s breaks it
/// on the same steps; a topic that is not there is named.
#[test]
fn a_ros2_bag_replays_with_the_walls_interventions() {
    let bag = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bags/drive");
    let (code, out, err) = run(&["replay", bag, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["steps"], 301);
    let rules: Vec<&String> = v["interventions"].as_object().unwrap().keys().collect();
    assert_eq!(rules, ["obstacle"], "{v}");
    let breaks = v["logged_breaks"]["obstacle"].as_array().unwrap();
    let first = breaks[0].as_u64().unwrap();
    assert!((125..=175).contains(&first), "{first}");
    assert_eq!(
        v["interventions"]["obstacle"],
        v["logged_break_counts"]["obstacle"]
    );
    assert_eq!(v["max_speed_reduction_mps"], 3.0);
    // The same bag by its .mcap file, with the odometry topic renamed to one it lacks.
    let file = format!("{bag}/drive.mcap");
    let (code, _, err) = run(&["replay", &file, "--topics", "odom=/pose"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("/pose") && err.contains("/odom (nav_msgs/Odometry)"),
        "{err}"
    );
    let (code, _, err) = run(&["replay", &file, "--topics", "lidar=/x"]);
    assert_ne!(code, 0);
    assert!(err.contains("--topics") && err.contains("lidar"), "{err}");
}

/// The drive as ROS 1 bags and as zstd-compressed rosbag2 (issue 64): each replays by its
/// name alone, without --log-format, with the plain ROS 2 bag's summary; a ROS 1 bag
/// under a name without `.bag` is known by its first line.
#[test]
fn ros1_and_compressed_bags_replay_as_the_plain_one() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bags");
    let (code, plain, err) = run(&["replay", &format!("{data}/drive"), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("recording_2019");
    std::fs::copy(format!("{data}/ros1/drive_bz2.bag"), &odd).unwrap();
    for bag in [
        format!("{data}/ros1/drive.bag"),
        format!("{data}/ros1/drive_lz4.bag"),
        format!("{data}/zstd_file"),
        format!("{data}/zstd_message_db3"),
        odd.display().to_string(),
    ] {
        let (code, out, err) = run(&["replay", &bag, "--format", "json"]);
        assert_eq!(code, 0, "{bag}: {err}");
        let (mut a, mut b) = (json(&out), json(&plain));
        for v in [&mut a, &mut b] {
            v.as_object_mut().unwrap().remove("log");
        }
        assert_eq!(a, b, "{bag}");
    }
}

/// A bag's messages that no step took are counted by cause in the summary, and
/// `--strict` refuses a bag that dropped more than 1 % for unsound stamps or gaps,
/// leaving no output: the PoseStamped bag's 1.5 s gap drops 74 of its 288 messages.
#[test]
fn strict_refuses_a_bag_that_dropped_messages_and_writes_nothing() {
    let bag = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bags/pose_twist");
    let (code, out, err) = run(&["replay", bag, "--topics", "odom=/pose", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["bag_messages"], 288);
    assert_eq!(v["dropped_messages"]["gap"], 74);
    assert_eq!(v["dropped_messages"]["stamp"], 0);
    let dir = tempfile::tempdir().unwrap();
    let rows = dir.path().join("rows.csv");
    let rows_s = rows.to_str().unwrap();
    let args = [
        "replay",
        bag,
        "--topics",
        "odom=/pose",
        "--strict",
        "--out",
        rows_s,
    ];
    let (code, _, err) = run(&args);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("74 of 288") && err.contains("--strict"),
        "{err}"
    );
    assert!(!rows.exists());
    // The drive drops nothing: --strict passes it.
    let drive = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bags/drive");
    let (code, _, err) = run(&["replay", drive, "--strict", "--out", rows_s]);
    assert_eq!(code, 0, "{err}");
    assert!(rows.exists());
}

/// A log replayed against a route it is far from (a farm route for a drive at the
/// origin) is warned of, and the replay still runs.
#[test]
fn a_log_far_from_its_route_is_warned_of() {
    let bag = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bags/drive");
    let route = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/routes/farm_yard_to_east_lane.json"
    );
    let (code, _, err) = run(&["replay", bag, "--route", route]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning") && err.contains("m from the route"),
        "{err}"
    );
    let (_, _, err) = run(&["replay", bag]);
    assert!(!err.contains("from the route"), "{err}");
}

/// A CSV log with a duplicated time: a warning naming the line by default, an error
/// naming it with --strict.
#[test]
fn a_repeated_time_warns_or_with_strict_fails_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("drive.csv");
    let mut text = String::from("t,x_m,y_m,yaw_rad,speed_mps\n");
    for k in 0..20 {
        let t = if k == 10 { 9.0 * 0.02 } else { k as f64 * 0.02 };
        text.push_str(&format!("{t},{},0,0,3\n", 2.0 + 0.06 * k as f64));
    }
    std::fs::write(&p, &text).unwrap();
    let f = p.to_str().unwrap();
    let (code, out, err) = run(&["replay", f, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["time_faults"], 1);
    assert!(
        err.contains("drive.csv:12:") && err.contains("not after"),
        "{err}"
    );
    let (code, _, err) = run(&["replay", f, "--strict"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("drive.csv:12:") && err.contains("not after"),
        "{err}"
    );
}

/// A CSV in the bridge's frame (y south, yaw toward the south): with --frame bridge a
/// pose 2 m south in the bridge's numbers (y = 2) is 2 m right of the eastward route, and
/// a yaw of +0.1 rad toward the south heads right of it; read as world, it would be left.
#[test]
fn frame_bridge_reads_south_as_south() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bridge.csv");
    let mut text = String::from("t,x_m,y_m,yaw_rad,speed_mps\n");
    for k in 0..10 {
        text.push_str(&format!(
            "{},{},2,0.1,3\n",
            k as f64 * 0.02,
            5.0 + 0.06 * k as f64
        ));
    }
    std::fs::write(&p, &text).unwrap();
    let rows = dir.path().join("rows.jsonl");
    let lateral = |frame: &str| {
        let (code, _, err) = run(&[
            "replay",
            p.to_str().unwrap(),
            "--frame",
            frame,
            "--out",
            rows.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        let first = std::fs::read_to_string(&rows).unwrap();
        let v: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
        (
            v["row"]["lateral_m"].as_f64().unwrap(),
            v["row"]["requested"]["curvature_per_m"].as_f64().unwrap(),
        )
    };
    let (lb, kb) = lateral("bridge");
    let (lw, kw) = lateral("world");
    assert!(
        (lb + 2.0).abs() < 1e-9 && (lw - 2.0).abs() < 1e-9,
        "{lb} {lw}"
    );
    // Right of the route and heading further right, the driver steers left (positive).
    assert!(kb > 0.0 && kw < 0.0, "{kb} {kw}");
}

/// A report CSV without a pose (as dbw_client.py writes) replays with its observation log
/// beside it; alone, the error points at --observations.
#[test]
fn a_report_csv_replays_with_its_observation_log() {
    let dir = tempfile::tempdir().unwrap();
    let (obs, csv) = (dir.path().join("obs.jsonl"), dir.path().join("reports.csv"));
    let mut o = String::new();
    for k in 0..=30 {
        let t = k as f64 * 0.1;
        o.push_str(&format!(
            "{{\"t\":{t},\"x\":{},\"y\":-2.2,\"yaw_deg\":0.0,\"vx\":3.0,\"yaw_rate\":0.0}}\n",
            3.0 * t
        ));
    }
    std::fs::write(&obs, o).unwrap();
    let mut r = String::from("t,ulc_report.vel_ref,steering_report.cmd,steering_report.cmd_type\n");
    for k in 0..=150 {
        r.push_str(&format!("{},3.0,0.0,3\n", k as f64 * 0.02));
    }
    std::fs::write(&csv, r).unwrap();
    let c = csv.to_str().unwrap();
    let (code, out, err) = run(&[
        "replay",
        c,
        "--observations",
        obs.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["steps"], 151);
    // Logged 3 m/s straight on while the driver steers back to the path 2.2 m away.
    assert!(v["mismatches"].as_u64().unwrap() > 0, "{v}");
    let (code, _, err) = run(&["replay", c]);
    assert_eq!(code, 1);
    assert!(err.contains("--observations"), "{err}");
}
