//! `acres bridge serve` and `acres bridge client` as processes, over loopback.

use super::run;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

pub struct Server {
    pub child: Child,
    pub port: u16,
    pub control: u16,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Whether the log has a line containing `what`, waiting up to 10 s for it.
    pub fn has(&self, what: &str) -> bool {
        for _ in 0..2000 {
            if self.count(what) > 0 {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        false
    }

    /// The log lines containing `what` so far.
    pub fn count(&self, what: &str) -> usize {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains(what))
            .count()
    }
}

fn serve(scenario: Option<&str>) -> Server {
    let mut args = vec!["--lockstep", "--control-port", "0"];
    if let Some(s) = scenario {
        args.extend(["--scenario", s]);
    }
    serve_with(&args)
}

/// `acres bridge serve --port 0` with `args`; its stderr collected; the control port is
/// 0 without `--lockstep`.
pub fn serve_with(args: &[&str]) -> Server {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_acres"));
    cmd.args(["bridge", "serve", "--port", "0"]).args(args);
    let mut child = cmd.stderr(Stdio::piped()).spawn().unwrap();
    let err = BufReader::new(child.stderr.take().unwrap());
    let log = Arc::new(Mutex::new(Vec::new()));
    let l2 = log.clone();
    std::thread::spawn(move || {
        for line in err.lines().map_while(Result::ok) {
            l2.lock().unwrap().push(line);
        }
    });
    let port_of = |key: &str| -> u16 {
        for _ in 0..1000 {
            if let Some(l) = log.lock().unwrap().iter().find(|l| l.starts_with(key)) {
                return l[key.len()..].trim().parse().unwrap();
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        panic!("no {key}")
    };
    let port = port_of("ACRES_RL_LISTENING port=");
    let control = if args.contains(&"--lockstep") {
        port_of("ACRES_SIM_CONTROL_LISTENING port=")
    } else {
        0
    };
    Server {
        child,
        port,
        control,
        log,
    }
}

fn data(p: &str) -> String {
    format!("{}/data/{p}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_client_drives_a_steps_file_writes_every_report_and_ends_with_stop_and_disable() {
    let s = serve(None);
    let dir = tempfile::tempdir().unwrap();
    let steps = dir.path().join("steps.json");
    std::fs::write(
        &steps,
        r#"[{"t":0,"speed":0,"steer_deg":12.5,"gear":"H"},{"t":0.5,"speed":2},{"t":3,"end":true}]"#,
    )
    .unwrap();
    let csv_path = dir.path().join("reports.csv");
    let (code, out, err) = client(
        &s,
        &[
            "--steps",
            steps.to_str().unwrap(),
            "--log",
            csv_path.to_str().unwrap(),
            "--hud",
            "test run",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(&format!("connected to 127.0.0.1:{}\n", s.port)),
        "{out}"
    );
    let n: usize = out
        .lines()
        .find_map(|l| l.strip_prefix("done: "))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    // 3 s of steps, 3 s of stop and the disable's 0.1 s, at 50 Hz.
    assert!((300..=310).contains(&n), "{n} reports");
    let mut r = csv::Reader::from_path(&csv_path).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |k: &str| {
        h.iter()
            .position(|x| x == k)
            .unwrap_or_else(|| panic!("{k}"))
    };
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(rows.len(), n);
    let (vel, en, wheel) = (
        col("ulc_report.vel_meas"),
        col("system_report.enabled"),
        col("steering_report.steering_wheel_angle"),
    );
    let moving = rows
        .iter()
        .map(|x| x[vel].parse::<f64>().unwrap())
        .fold(0.0, f64::max);
    assert!(moving > 1.5, "it drove: {moving}");
    assert_eq!(&rows[100][wheel], "12.5");
    let last = rows.last().unwrap();
    assert_eq!(&last[en], "false", "disabled at the end");
    assert!(
        last[vel].parse::<f64>().unwrap().abs() < 0.05,
        "stopped at the end"
    );
    assert!(s.has("ACRES_DBW_ENABLED agent=polaris t=0.000"));
    assert!(s.has("ACRES_DBW_DISABLED agent=polaris"));
    assert!(s.has("ACRES_RL_HUD agent=polaris hud=\"test run\""));
}

/// The client follows a route with the chain; its record replays to the same rows.
#[test]
fn the_client_follows_a_path_and_its_record_replays() {
    let s = serve(Some(&data("scenarios/lane_downhill_wet.json")));
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("drive.jsonl");
    let csv_path = dir.path().join("reports.csv");
    let route = data("routes/straight_lane.json");
    let (code, out, err) = client(
        &s,
        &[
            "--path",
            &route,
            "--record",
            rec.to_str().unwrap(),
            "--log",
            csv_path.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("done: "), "{out}");
    let text = std::fs::read_to_string(&rec).unwrap();
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    // From x = 200 m to the end of the lane at 300 m.
    let x = last["state"]["pose"]["x_m"].as_f64().unwrap();
    assert!((x - 300.0).abs() < 1.0, "ended at x = {x}");
    assert!(s.has("ACRES_DBW_DISABLED"));
    let (code, out, err) = run(&[
        "replay",
        rec.to_str().unwrap(),
        "--route",
        &route,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["mismatches"], 0, "{out}");
    // The report CSV holds the pose columns that replay needs.
    let (code, out, err) = run(&[
        "replay",
        csv_path.to_str().unwrap(),
        "--route",
        &route,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["steps"].as_u64().unwrap() > 500, "{out}");
}

/// `acres envelope measure --bridge` against our lockstep server measures what the
/// in-process rigs measure on the same ground.
#[test]
fn measure_through_the_bridge_agrees_with_the_process() {
    let dir = tempfile::tempdir().unwrap();
    let scen = dir.path().join("flat.json");
    std::fs::write(
        &scen,
        r#"{"name": "flat gravel", "ground": {"class": "gravel", "state": "dry"},
            "route": "straight_lane.json", "start": {"x_m": 0, "y_m": 0, "yaw_rad": 0},
            "duration_s": 60}"#,
    )
    .unwrap();
    let s = serve(Some(scen.to_str().unwrap()));
    let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    let addr = format!("127.0.0.1:{}", s.port);
    let control = s.control.to_string();
    super::envelope::measure_dry_gravel(&b, &["--bridge", &addr, "--control-port", &control]);
    super::envelope::measure_dry_gravel(&a, &[]);
    let rows = |p: &std::path::Path| -> Vec<csv::StringRecord> {
        csv::Reader::from_path(p)
            .unwrap()
            .records()
            .map(|x| x.unwrap())
            .collect()
    };
    let (ra, rb) = (rows(&a), rows(&b));
    let ra: Vec<_> = ra.into_iter().filter(|r| &r[0] != "follow").collect();
    assert_eq!(ra.len(), rb.len());
    let f = |r: &csv::StringRecord, i: usize| r[i].parse::<f64>().unwrap();
    for (x, y) in ra.iter().zip(&rb) {
        assert_eq!((&x[0], &x[3]), (&y[0], &y[3]));
        if &x[0] == "stop" {
            // Odometry from the 50 Hz reports against the process's 120 Hz.
            assert!((f(x, 5) - f(y, 5)).abs() < 0.1, "stop distance {x:?} {y:?}");
            assert!((f(x, 4) - f(y, 4)).abs() < 0.05, "overshoot {x:?} {y:?}");
            assert!((f(x, 6) - f(y, 6)).abs() < 0.1, "deceleration {x:?} {y:?}");
        } else {
            assert_eq!(&x[12], &y[12], "wheel lift {x:?} {y:?}");
        }
    }
    // One class and one state only.
    let (code, _, err) = run(&[
        "envelope",
        "measure",
        "--bridge",
        &addr,
        "--out",
        b.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("one class"), "{err}");
}

/// The opening scenario without its object, at rest: as a file, and its route alone.
fn open_ground(dir: &std::path::Path) -> (String, String) {
    let text = std::fs::read_to_string(data("scenarios/opening.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["obstacles"] = serde_json::json!([]);
    v["start"]["speed_mps"] = serde_json::json!(0.0);
    let (scen, route) = (dir.join("open.json"), dir.join("route.json"));
    std::fs::write(&scen, v.to_string()).unwrap();
    std::fs::write(&route, v["route"].to_string()).unwrap();
    (
        scen.to_str().unwrap().to_string(),
        route.to_str().unwrap().to_string(),
    )
}

/// `acres bridge client` with `args` against the lockstep server `s`.
fn client(s: &Server, args: &[&str]) -> (i32, String, String) {
    let (port, control) = (s.port.to_string(), s.control.to_string());
    let mut all = vec![
        "bridge",
        "client",
        "--port",
        &port,
        "--control-port",
        &control,
    ];
    all.extend_from_slice(args);
    run(&all)
}

/// `acres bridge client --path ROUTE --log CSV` against a lockstep server.
fn path_drive(s: &Server, route: &str, csv_path: &std::path::Path) -> (i32, String, String) {
    client(s, &["--path", route, "--log", csv_path.to_str().unwrap()])
}

/// The lateral offset y of a trace at x, by linear interpolation (None off its ends).
fn y_at(trace: &[(f64, f64)], x: f64) -> Option<f64> {
    trace.windows(2).find_map(|w| {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        (x0 <= x && x <= x1 && x1 > x0).then(|| y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    })
}

/// `bridge client --path` steers from the observed pose carried forward by the 50 Hz
/// reports (observations come at 10 Hz): its trace through the bridge is the in-process
/// sim's within 0.2 m, settled on the path as the sim's.
#[test]
fn the_path_client_follows_through_the_bridge_as_the_sim_does() {
    let dir = tempfile::tempdir().unwrap();
    let (scen, route) = open_ground(dir.path());
    let s = serve(Some(&scen));
    let (csv_path, log) = (dir.path().join("drive.csv"), dir.path().join("sim.jsonl"));
    let (code, _, err) = path_drive(&s, &route, &csv_path);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&[
        "sim",
        "--scenario",
        &scen,
        "--log",
        log.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    let sim: Vec<(f64, f64)> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let p = &v["state"]["pose"];
            (p["x_m"].as_f64().unwrap(), p["y_m"].as_f64().unwrap())
        })
        .collect();
    let mut rd = csv::Reader::from_path(&csv_path).unwrap();
    let h = rd.headers().unwrap().clone();
    let (cx, cy) = (
        h.iter().position(|c| c == "x_m").unwrap(),
        h.iter().position(|c| c == "y_m").unwrap(),
    );
    let bridge: Vec<(f64, f64)> = rd
        .records()
        .map(|r| r.unwrap())
        .filter(|r| !r[cx].is_empty())
        .map(|r| (r[cx].parse().unwrap(), r[cy].parse().unwrap()))
        .collect();
    let mut compared = 0;
    for x in (0..58).map(f64::from) {
        if let (Some(a), Some(b)) = (y_at(&sim, x), y_at(&bridge, x)) {
            assert!((a - b).abs() < 0.2, "at x {x}: sim {a:.3}, bridge {b:.3}");
            compared += 1;
        }
    }
    assert!(compared > 50, "{compared} stations compared");
    for x in (26..58).map(f64::from) {
        let y = y_at(&bridge, x).unwrap();
        assert!(y.abs() < 0.2, "at x {x}: {y:.3} off the path");
    }
}

/// A path drive that stands before an object ends with the stop, the disable, an error
/// naming where it stood, and the CSV kept; --duration ends a drive early with exit 0.
#[test]
fn a_drive_always_ends() {
    let s = serve(None);
    let dir = tempfile::tempdir().unwrap();
    let (_, route) = open_ground(dir.path());
    let csv_path = dir.path().join("drive.csv");
    let (code, out, err) = path_drive(&s, &route, &csv_path);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("no progress: the vehicle stood for 10 s"),
        "{err}"
    );
    assert!(err.contains("kept") && err.contains("drive.csv"), "{err}");
    assert!(s.has("ACRES_DBW_DISABLED"));
    let rows = csv::Reader::from_path(&csv_path).unwrap().records().count();
    assert!(rows > 1000, "{rows} rows kept");
    let (code, out, err) = client(&s, &["--steps", "demo", "--duration", "2"]);
    assert_eq!(code, 0, "{err}");
    // 2 s, the 3 s stop and the disable's 0.1 s, at 50 Hz.
    assert!(out.contains("done: 255 DBW reports received"), "{out}");
}

/// A bridge that closes the connection at once (busy, or not a bridge): exit 1 with a
/// message, never a quiet success.
#[test]
fn a_connection_closed_at_once_is_a_failed_drive() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for c in l.incoming() {
            drop(c);
        }
    });
    let (code, _, err) = run(&["bridge", "client", "--port", &port.to_string()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("the bridge at 127.0.0.1:{port}")),
        "{err}"
    );
}

/// Ctrl-C in a real-time drive: the stop, the disable, the CSV kept, exit 1.
#[test]
fn ctrl_c_stops_disables_and_keeps_what_was_received() {
    let _turn = super::bridge_hostile::REAL_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let s = super::bridge::serve_with(&[]);
    let dir = tempfile::tempdir().unwrap();
    let csv_path = dir.path().join("drive.csv");
    let child = Command::new(env!("CARGO_BIN_EXE_acres"))
        .args([
            "bridge",
            "client",
            "--port",
            &s.port.to_string(),
            "--steps",
            "demo",
        ])
        .args(["--log", csv_path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(s.has("ACRES_DBW_DISABLED"));
    let mut rd = csv::Reader::from_path(&csv_path).unwrap();
    let h = rd.headers().unwrap().clone();
    let en = h.iter().position(|c| c == "system_report.enabled").unwrap();
    let rows: Vec<csv::StringRecord> = rd.records().map(|r| r.unwrap()).collect();
    // Stopped well before the demo's 6 s and its 3 s stop, disabled at the end.
    assert!((100..400).contains(&rows.len()), "{} rows", rows.len());
    assert_eq!(&rows.last().unwrap()[en], "false");
}

/// `--plot` draws the drive's reports: the speed reference and the measured speed, the
/// wheel angle, the throttle and brake outputs.
#[test]
fn the_client_plots_its_reports() {
    let s = serve(None);
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("dbw.svg");
    let (code, out, err) = client(
        &s,
        &[
            "--steps",
            "demo",
            "--duration",
            "2",
            "--plot",
            svg.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    for label in [
        "DBW reports of the drive",
        "vel_ref (ULC speed reference)",
        "vel_meas (measured)",
        "road wheel angle",
        "throttle output",
        "brake output",
    ] {
        assert!(text.contains(label), "no {label:?}");
    }
    // A folder that does not exist is refused before connecting.
    let (code, _, err) = client(&s, &["--steps", "demo", "--plot", "nodir/p.png"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("--plot") && err.contains("does not exist"),
        "{err}"
    );
}
