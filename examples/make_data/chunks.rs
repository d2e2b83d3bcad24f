//! The example chunks of `data/chunks/`: accepted ones, and one file per refusal reason,
//! each a minimal change to an accepted chunk (the CLI tests check every verdict).

use acres::chain::checker::{Chunk, StartState, convert};
use acres::chain::path::{Direction, Path};
use serde_json::json;

fn dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/chunks")
}

/// A chunk of `n` samples 0.5 m apart from station `s0` at offset `e`, from `v0` to a
/// stop, with the start state on its first sample.
fn on(route_name: &str, s0: f64, n: usize, v0: f64, e: f64, dir: Direction) -> Chunk {
    let route = Path::builtin(route_name).unwrap();
    let mut c = Chunk {
        route: Some(route_name.into()),
        scan: None,
        start_station_m: s0,
        station_step_m: 0.5,
        offsets_m: vec![e; n],
        speeds_mps: (0..n)
            .map(|k| round(v0 * (1.0 - k as f64 / (n - 1) as f64)))
            .collect(),
        direction: dir,
        start: StartState {
            x_m: 0.0,
            y_m: 0.0,
            yaw_rad: 0.0,
            speed_mps: v0,
            curvature_per_m: 0.0,
        },
    };
    let mut s = Vec::new();
    convert(&c, &route, &mut s);
    let flip = if dir == Direction::Reverse {
        std::f64::consts::PI
    } else {
        0.0
    };
    c.start.x_m = round(s[0].x_m);
    c.start.y_m = round(s[0].y_m);
    c.start.yaw_rad = round(s[0].heading_rad() + flip);
    c.start.curvature_per_m = round(s[0].curvature_per_m * dir.sign());
    c
}

fn round(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

fn base() -> Chunk {
    on("straight_lane.json", 20.0, 40, 4.0, 0.0, Direction::Forward)
}

fn write(name: &str, chunks: &[serde_json::Value]) {
    let text = serde_json::to_string_pretty(&json!({ "chunks": chunks })).unwrap() + "\n";
    acres::formats::atomic::write_atomic(&dir().join(name), text.as_bytes()).unwrap();
    println!("wrote data/chunks/{name}");
}

fn val(c: &Chunk) -> serde_json::Value {
    serde_json::to_value(c).unwrap()
}

pub fn write_all() {
    std::fs::create_dir_all(dir()).unwrap();
    let mut wave = base();
    for (k, e) in wave.offsets_m.iter_mut().enumerate() {
        *e = round(0.03 * (k as f64 * 0.5 * std::f64::consts::TAU / 40.0).sin());
    }
    let wave = {
        // The start state follows the wave's first sample.
        let route = Path::builtin("straight_lane.json").unwrap();
        let mut s = Vec::new();
        convert(&wave, &route, &mut s);
        let mut w = wave;
        w.start.yaw_rad = round(s[0].heading_rad());
        w.start.curvature_per_m = round(s[0].curvature_per_m);
        w
    };
    let reverse = on("yard_reverse.json", 92.5, 11, 1.0, 0.0, Direction::Reverse);
    write("accepted.json", &[val(&base()), val(&wave), val(&reverse)]);

    let mut refused: Vec<(&str, Chunk)> = Vec::new();
    let mut c = base();
    c.speeds_mps.pop();
    refused.push(("malformed", c));
    let mut c = base();
    c.offsets_m[10..].iter_mut().for_each(|e| *e = 0.8);
    refused.push(("step", c));
    let mut c = base();
    c.speeds_mps[5] = 7.0;
    refused.push(("speed", c));
    let mut c = reverse.clone();
    c.direction = Direction::Forward;
    refused.push(("direction", c));
    let mut c = base();
    c.start.x_m = 21.0;
    refused.push(("start", c));
    let mut c = base();
    *c.speeds_mps.last_mut().unwrap() = 0.3;
    refused.push(("stop", c));
    let mut c = base();
    c.speeds_mps[10] = round(c.speeds_mps[10] + 0.3);
    refused.push(("acceleration", c));
    let mut c = base();
    c.speeds_mps[20..]
        .iter_mut()
        .for_each(|v| *v = round(*v * 0.7));
    refused.push(("deceleration", c));
    let mut c = base();
    c.offsets_m[21..].iter_mut().for_each(|e| *e = 0.3);
    refused.push(("curvature", c));
    let mut c = base();
    for k in 20..40 {
        let s = (k - 20) as f64 * 0.5;
        c.offsets_m[k] = round(if s <= 3.0 {
            0.08 * s * s
        } else {
            0.72 + 0.48 * (s - 3.0)
        });
    }
    refused.push(("curvature_rate", c));
    let mut c = base();
    for k in 2..40 {
        let s = (k - 2) as f64 * 0.5;
        c.offsets_m[k] = round(0.015 * s * s);
    }
    refused.push(("steering_rate", c));
    let mut c = base();
    c.start.curvature_per_m = 0.05;
    refused.push(("start_curvature", c));
    // The field pass's turn (radius 12 m) at 4.5 m/s.
    refused.push((
        "lateral_acceleration",
        on(
            "farm_field_pass.json",
            302.0,
            30,
            4.5,
            0.0,
            Direction::Forward,
        ),
    ));
    refused.push(("obstacle", base()));
    // On the farm's gravel lane (4 m wide with verges of 1.5 m) with its corridor: the
    // first 3.4 m off the centre, the second 2.7 m.
    refused.push((
        "point",
        on(
            "farm_yard_to_east_lane.json",
            100.0,
            40,
            4.0,
            3.4,
            Direction::Forward,
        ),
    ));
    refused.push((
        "corridor",
        on(
            "farm_yard_to_east_lane.json",
            100.0,
            40,
            4.0,
            2.7,
            Direction::Forward,
        ),
    ));
    for (reason, c) in &refused {
        write(&format!("refused_{reason}.json"), &[val(c)]);
    }
    // The obstacle chunk's scan: a return 12 m ahead of the front on beam 0.
    let mut ranges = vec![serde_json::Value::Null; 360];
    ranges[0] = json!(12.0 - 1.9 + 2.56);
    let text = serde_json::to_string(&json!({ "ranges": ranges })).unwrap() + "\n";
    acres::formats::atomic::write_atomic(&dir().join("obstacle_scan.json"), text.as_bytes())
        .unwrap();
    // JSON Lines for the batch form: every example chunk above, one a line.
    let mut lines = String::new();
    for c in [base(), wave.clone(), reverse.clone()]
        .iter()
        .chain(refused.iter().map(|(_, c)| c))
    {
        if c.route.as_deref() == Some("straight_lane.json") {
            lines.push_str(&serde_json::to_string(c).unwrap());
            lines.push('\n');
        }
    }
    acres::formats::atomic::write_atomic(&dir().join("straight_lane.jsonl"), lines.as_bytes())
        .unwrap();
    println!("wrote data/chunks/obstacle_scan.json and straight_lane.jsonl");
}
