//! Crossings beyond the suite (docs/validation.md "Moving actors"):
//! `cargo run --release --example crossing_probe`.
//!
//! A person crosses a straight gravel lane 60 m along it (the vehicle at 6.9 m/s), walking
//! at 1.0 or 1.8 m/s from 6 or 10 m beside it, setting off at 12 times 0.4 s apart; each
//! run with the moving-object rule off, on the tracker and on the oracle. Prints the
//! collisions by the vehicle of each mode and the crossings where the tracker collides
//! and the rule off does not.

use acres::config::{Config, MovingMode};
use acres::formats::scenario::Scenario;
use acres::jobs::sim::{self, ContactBy};

fn scenario(walk_mps: f64, side_m: f64, at_s: f64) -> Scenario {
    let points: Vec<serde_json::Value> = (0..=80)
        .map(|i| {
            serde_json::json!({"x": 2.0 * i as f64, "y": 0.0, "speed_mps": 6.9,
                               "class": "gravel", "direction": "forward"})
        })
        .collect();
    let v = serde_json::json!({"name": "probe", "ground": {"class": "gravel"},
        "route": {"name": "lane", "points": points},
        "actors": [{"name": "walker", "kind": "person",
            "motion": {"waypoints": [{"t_s": 0, "x_m": 60, "y_m": -side_m},
                                     {"t_s": 2.0 * side_m / walk_mps, "x_m": 60, "y_m": side_m}]},
            "start": {"at_s": at_s}}],
        "start": {"x_m": 0, "y_m": 0, "yaw_rad": 0, "speed_mps": 6.9}, "duration_s": 40});
    Scenario::from_json_str("probe", &v.to_string()).expect("the probe scenario parses")
}

fn main() {
    let modes = [MovingMode::Off, MovingMode::Tracker, MovingMode::Oracle];
    let mut counts = [0usize; 3];
    let mut worse = Vec::new();
    for walk in [1.0, 1.8] {
        for side in [6.0, 10.0] {
            for k in 0..12 {
                let at = 3.0 + 0.4 * k as f64;
                let s = scenario(walk, side, at);
                let hit: Vec<bool> = modes
                    .iter()
                    .map(|m| {
                        let mut c = Config::builtin();
                        c.control.shield.moving_obstacle = *m;
                        let sum = sim::run(&c, &s, s.route().unwrap(), None).unwrap();
                        sum.contacts.iter().any(|x| x.by == ContactBy::Vehicle)
                    })
                    .collect();
                for (n, h) in counts.iter_mut().zip(&hit) {
                    *n += *h as usize;
                }
                if hit[1] && !hit[0] {
                    worse.push(format!("{walk} m/s from {side} m at {at:.1} s"));
                }
            }
        }
    }
    println!(
        "{{\"crossings\": 48, \"off\": {}, \"tracker\": {}, \"oracle\": {}, \"tracker_worse_than_off\": {:?}}}",
        counts[0], counts[1], counts[2], worse
    );
}
