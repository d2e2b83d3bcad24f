//! The vehicle bridge (vehicle-bridge.md): the JSON-lines socket of a simulated Polaris.
//! This module holds the protocol: the frame conversion, the client messages and the
//! observation; [`server`] serves a headless simulated Polaris, [`client`] drives a
//! vehicle through any such bridge.

pub mod client;
pub mod conn;
mod control;
pub use control::parse_request;
pub mod server;

use crate::plant::dbw::{DbwCommands, GearCmd};
use serde::Serialize;

/// The one place where the bridge's Unreal convention (x east, y south, yaw in degrees
/// increasing to the south; lateral speed and yaw rate positive to the right) meets the
/// library's frame (x east, y north, yaw counter-clockwise from east in radians; lateral
/// speed and yaw rate positive to the left). Each function has its inverse beside it.
pub mod frame {
    /// A library pose as the bridge's (x, y, yaw_deg); yaw_deg in (−180, 180].
    pub fn pose_to_bridge(x_m: f64, y_m: f64, yaw_rad: f64) -> (f64, f64, f64) {
        (x_m, -y_m, wrap_deg(-yaw_rad.to_degrees()))
    }

    /// A bridge pose (x, y, yaw_deg) as the library's (x, y, yaw_rad); yaw_rad in (−π, π].
    pub fn pose_from_bridge(x: f64, y: f64, yaw_deg: f64) -> (f64, f64, f64) {
        (x, -y, wrap_deg(-yaw_deg).to_radians())
    }

    /// A lateral speed or a yaw rate: positive left (library) ↔ positive right (bridge).
    /// The map is its own inverse.
    pub fn flip(left_positive: f64) -> f64 {
        -left_positive
    }

    /// An angle in degrees wrapped to (−180, 180].
    pub fn wrap_deg(a: f64) -> f64 {
        let w = a.rem_euclid(360.0);
        if w > 180.0 { w - 360.0 } else { w }
    }
}

/// A `reset` command, in the bridge's frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Reset {
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub yaw_deg: Option<f64>,
    /// The start speed, 0 to 8 m/s.
    pub speed: f64,
    pub restore_field: bool,
}

/// One client line, parsed: the drive-by-wire commands, a reset, the session keys, and
/// what was wrong with it (each bad key is named; the good keys still apply).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClientMessage {
    pub dbw: DbwCommands,
    pub reset: Option<Reset>,
    pub hud: Option<String>,
    pub reward: Option<f64>,
    pub success_pct: Option<f64>,
    /// `workers`: standing persons at these points of the bridge's frame, replacing the
    /// bridge's workers.
    pub workers: Option<Vec<[f64; 2]>>,
    /// Keys with a value of the wrong shape, with the reason.
    pub bad: Vec<String>,
    /// Keys the Polaris bridge does not have (the Maxxum's, or none at all).
    pub unknown: Vec<String>,
}

impl ClientMessage {
    /// Whether the line carried any drive-by-wire command.
    pub fn has_dbw(&self) -> bool {
        self.dbw != DbwCommands::default()
    }
}

/// The keys accepted and ignored (vehicle-bridge.md "Polaris"), on the line and inside
/// each command object, with the `header` that ds_dbw_msgs messages carry.
pub const IGNORED_KEYS: [&str; 5] = [
    "clear",
    "ignore",
    "enable_shift",
    "enable_shift_park",
    "header",
];

/// Commands waiting for their step are merged beyond this many, so a flooding client
/// cannot grow the server (the later command of a subsystem wins).
pub const MAX_WAITING_MESSAGES: usize = 256;

impl ClientMessage {
    /// Lays a later message over this one: each command, the reset and the session keys
    /// of `later` replace these (a subsystem keeps its last command). The complaints were
    /// logged when the lines were read and are dropped.
    pub fn merge(&mut self, later: ClientMessage) {
        self.dbw.merge(later.dbw);
        self.reset = later.reset.or(self.reset);
        self.hud = later.hud.or(self.hud.take());
        self.reward = later.reward.or(self.reward);
        self.success_pct = later.success_pct.or(self.success_pct);
        self.workers = later.workers.or(self.workers.take());
    }
}

/// A command object without the keys the bridge ignores in it.
fn without_ignored(mut v: serde_json::Value) -> serde_json::Value {
    if let serde_json::Value::Object(o) = &mut v {
        for k in IGNORED_KEYS {
            o.remove(k);
        }
    }
    v
}

/// The gear of a `gear_cmd` value: a number, `{"value": n}`, or the message
/// `{"cmd": n | {"value": n}}`; a number outside 0 to 5 is refused, never wrapped.
fn parse_gear(v: &serde_json::Value) -> Result<u8, String> {
    let n = match v {
        serde_json::Value::Object(o) if o.contains_key("value") => &o["value"],
        serde_json::Value::Object(o) => {
            if let Some(k) = o.keys().find(|k| *k != "cmd") {
                return Err(format!("gear_cmd: unknown key `{k}`"));
            }
            match o.get("cmd") {
                Some(serde_json::Value::Object(inner)) => inner
                    .get("value")
                    .ok_or("gear_cmd: `cmd` without `value`")?,
                Some(c) => c,
                None => return Ok(0),
            }
        }
        n => n,
    };
    match n.as_u64() {
        Some(g) if g <= 5 => Ok(g as u8),
        _ => Err(format!(
            "gear_cmd: {n} is not a gear (an integer from 0 to 5)"
        )),
    }
}

fn number(v: &serde_json::Value, key: &str) -> Result<f64, String> {
    v.as_f64()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("{key}: not a finite number"))
}

fn parse_reset(v: &serde_json::Value) -> Result<Reset, String> {
    let obj = v.as_object().ok_or("reset: not an object")?;
    let mut r = Reset::default();
    for (k, v) in obj {
        match k.as_str() {
            "x" => r.x = Some(number(v, "reset.x")?),
            "y" => r.y = Some(number(v, "reset.y")?),
            "yaw_deg" => r.yaw_deg = Some(number(v, "reset.yaw_deg")?),
            "speed" => {
                let s = number(v, "reset.speed")?;
                if !(0.0..=8.0).contains(&s) {
                    return Err(format!("reset.speed: {s} is outside 0 to 8 m/s"));
                }
                r.speed = s;
            }
            "restore_field" => {
                r.restore_field = v.as_bool().ok_or("reset.restore_field: not a boolean")?
            }
            other => return Err(format!("reset.{other}: unknown key")),
        }
    }
    if r.x.is_some() != r.y.is_some() {
        return Err("reset: x and y go together".into());
    }
    Ok(r)
}

/// Parses one line. `Err` where it is not a JSON object (the bridge ignores it and logs
/// ACRES_RL_BAD_MESSAGE); otherwise each key is taken or named in `bad` or `unknown`.
pub fn parse_line(line: &str) -> Result<ClientMessage, String> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let serde_json::Value::Object(map) = v else {
        return Err("not a JSON object".into());
    };
    let mut m = ClientMessage::default();
    fn take<T: serde::de::DeserializeOwned>(
        v: serde_json::Value,
        key: &str,
        bad: &mut Vec<String>,
    ) -> Option<T> {
        match serde_json::from_value(v) {
            Ok(x) => Some(x),
            Err(e) => {
                bad.push(format!("{key}: {e}"));
                None
            }
        }
    }
    for (k, v) in map {
        match k.as_str() {
            "dbw" => m.dbw.dbw = take(v, &k, &mut m.bad),
            "steering_cmd" => m.dbw.steering_cmd = take(without_ignored(v), &k, &mut m.bad),
            "throttle_cmd" => m.dbw.throttle_cmd = take(without_ignored(v), &k, &mut m.bad),
            "brake_cmd" => m.dbw.brake_cmd = take(without_ignored(v), &k, &mut m.bad),
            "ulc_cmd" => m.dbw.ulc_cmd = take(without_ignored(v), &k, &mut m.bad),
            "drive_mode" => m.dbw.drive_mode = take(v, &k, &mut m.bad),
            "gear_cmd" => match parse_gear(&without_ignored(v)) {
                Ok(cmd) => {
                    m.dbw.gear_cmd = Some(GearCmd {
                        cmd,
                        ..GearCmd::default()
                    })
                }
                Err(e) => m.bad.push(e),
            },
            "reset" => match parse_reset(&v) {
                Ok(r) => m.reset = Some(r),
                Err(e) => m.bad.push(e),
            },
            "hud" => match v.as_str() {
                Some(s) => m.hud = Some(s.chars().take(160).collect()),
                None => m.bad.push("hud: not a string".into()),
            },
            "reward" => match number(&v, "reward") {
                Ok(x) => m.reward = Some(x),
                Err(e) => m.bad.push(e),
            },
            "success_pct" => match number(&v, "success_pct") {
                Ok(x) => m.success_pct = Some(x),
                Err(e) => m.bad.push(e),
            },
            "workers" => match parse_workers(&v) {
                Ok(w) => m.workers = Some(w),
                Err(e) => m.bad.push(e),
            },
            k if IGNORED_KEYS.contains(&k) => {}
            _ => m.unknown.push(k),
        }
    }
    m.bad.extend(m.dbw.refuse_out_of_range());
    Ok(m)
}

/// The most workers a `workers` command may place.
pub const MAX_WORKERS: usize = 1000;

/// The `workers` list: `[x, y]` pairs of finite numbers, at most [`MAX_WORKERS`].
fn parse_workers(v: &serde_json::Value) -> Result<Vec<[f64; 2]>, String> {
    let list = v.as_array().ok_or("workers: not a list of [x, y] points")?;
    if list.len() > MAX_WORKERS {
        return Err(format!(
            "workers: {} points, at most {MAX_WORKERS}",
            list.len()
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, p)| match p.as_array().map(|a| a.as_slice()) {
            Some([x, y]) => match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) if x.is_finite() && y.is_finite() => Ok([x, y]),
                _ => Err(format!("workers[{i}]: not two finite numbers")),
            },
            _ => Err(format!("workers[{i}]: not an [x, y] pair")),
        })
        .collect()
}

/// The 16 directions of the observation's `lidar` summary, degrees left of the body x
/// axis: 90° left to 90° right in steps of 12°.
pub fn lidar_bearings_deg() -> [f64; 16] {
    std::array::from_fn(|k| 90.0 - 12.0 * k as f64)
}

/// The `lidar` summary of a scan: the nearest beam's range at each of the 16 bearings,
/// capped at 30 m (no return: 30).
pub fn lidar_summary(ranges: &[f64]) -> [f64; 16] {
    let n = ranges.len().max(1) as f64;
    lidar_bearings_deg().map(|b| {
        let beam = ((b.rem_euclid(360.0) / 360.0 * n).round() as usize) % ranges.len().max(1);
        ranges.get(beam).copied().unwrap_or(f64::INFINITY).min(30.0)
    })
}

/// The observation line (vehicle-bridge.md "Observation", 10 Hz) of a Polaris, in the
/// bridge's frame, with the fields the model has. `scan` is our extension: the 360
/// ranges of the shield's scan, counter-clockwise from the body x axis, null for no
/// return, so that a client can run the shield.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observation<'a> {
    pub t: f64,
    pub episode_t: f64,
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub yaw_deg: f64,
    pub vx: f64,
    pub vy: f64,
    pub yaw_rate: f64,
    pub cross_slope: f64,
    pub steer_rad: f64,
    pub lidar: [f64; 16],
    pub episode: u64,
    pub reset_pending: bool,
    pub reset_epoch: u64,
    pub stale: bool,
    /// `true` when the vehicle touched a worker since the last observation.
    pub struck: bool,
    /// The number of workers of the bridge.
    pub workers: usize,
    pub agent: &'a str,
    pub vehicle: &'static str,
    /// The longitudinal and lateral (right positive) accelerations, m/s².
    pub ax: f64,
    pub ay: f64,
    /// Whether an inner wheel lifted since the last observation.
    pub wheel_lift: bool,
    /// Whether the vehicle has rolled over (it lies still from then on); added after
    /// `wheel_lift`, so clients that read by name ignore it.
    pub rolled_over: bool,
    /// Whether the footprint touches an obstacle.
    pub collided: bool,
    /// The ground class under the vehicle (null: none known).
    pub ground_class: Option<crate::chain::envelope::GroundClass>,
    pub gear: u8,
    pub dbw_enabled: bool,
    /// The grade along the heading, rise over run (uphill positive): the pitch the
    /// vehicle measures, for the chain's grade-aware stop rule.
    pub grade: f64,
    pub scan: Vec<Option<f64>>,
}

#[cfg(test)]
mod tests {
    use super::frame::*;
    use super::*;

    #[test]
    fn frames_convert_both_ways() {
        // East is east; north in the library is −y and yaw −90° on the bridge.
        assert_eq!(pose_to_bridge(3.0, 4.0, 0.0), (3.0, -4.0, 0.0));
        let (x, y, yaw) = pose_to_bridge(1.0, 2.0, std::f64::consts::FRAC_PI_2);
        assert_eq!((x, y), (1.0, -2.0));
        assert!((yaw + 90.0).abs() < 1e-12);
        // Bridge yaw 90° (south) is −π/2 in the library.
        let (_, _, yaw) = pose_from_bridge(0.0, 0.0, 90.0);
        assert!((yaw + std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        for (x, y, yaw) in [(1.5, -2.5, 0.3), (-40.0, 120.0, -2.9), (0.0, 0.0, 3.1)] {
            let (bx, by, bd) = pose_to_bridge(x, y, yaw);
            let (x2, y2, yaw2) = pose_from_bridge(bx, by, bd);
            assert_eq!((x2, y2), (x, y));
            assert!((yaw2 - yaw).abs() < 1e-12, "{yaw} {yaw2}");
        }
        assert_eq!(wrap_deg(270.0), -90.0);
        assert_eq!(wrap_deg(-180.0), 180.0);
        assert_eq!(flip(flip(0.25)), 0.25);
        assert_eq!(flip(0.25), -0.25);
    }

    proptest::proptest! {
        /// The frame conversion is its own inverse on any pose (bounded, finite).
        #[test]
        fn the_frame_round_trip_holds(x in -1e4f64..1e4, y in -1e4f64..1e4, yaw in -3.0f64..3.0) {
            let (bx, by, bd) = pose_to_bridge(x, y, yaw);
            let (x2, y2, yaw2) = pose_from_bridge(bx, by, bd);
            proptest::prop_assert_eq!((x2, y2), (x, y));
            proptest::prop_assert!((yaw2 - yaw).abs() < 1e-9);
            // North is negative y on the bridge; a left turn is a negative yaw change.
            proptest::prop_assert_eq!(by, -y);
            let (_, _, bd2) = pose_to_bridge(x, y, yaw + 0.01);
            proptest::prop_assert!(wrap_deg(bd2 - bd) < 0.0);
        }
    }

    #[test]
    fn lines_parse_with_every_form_of_gear_and_bad_keys_named() {
        for line in [
            r#"{"gear_cmd": 5}"#,
            r#"{"gear_cmd": {"value": 5}}"#,
            r#"{"gear_cmd": {"cmd": 5}}"#,
            r#"{"gear_cmd": {"cmd": {"value": 5}, "enable_shift": true}}"#,
        ] {
            let m = parse_line(line).unwrap();
            assert_eq!(m.dbw.gear_cmd.unwrap().cmd, 5, "{line}");
            assert!(m.bad.is_empty(), "{line}: {:?}", m.bad);
        }
        let m = parse_line(
            r#"{"dbw": {"enable": true}, "steering_cmd": "left", "reset": {"yaw_deg": 90},
                "hud": "run 1", "reward": 4.5, "clear": true, "steer": 0.2}"#,
        )
        .unwrap();
        assert!(m.dbw.dbw.unwrap().enable);
        assert!(m.dbw.steering_cmd.is_none());
        assert!(m.bad[0].starts_with("steering_cmd"), "{:?}", m.bad);
        assert_eq!(m.reset.unwrap().yaw_deg, Some(90.0));
        assert_eq!((m.hud.as_deref(), m.reward), (Some("run 1"), Some(4.5)));
        assert_eq!(m.unknown, vec!["steer".to_string()]);
        assert!(parse_line("[1, 2]").is_err());
        assert!(parse_line("{broken").is_err());
        let m = parse_line(r#"{"reset": {"speed": 9}}"#).unwrap();
        assert!(m.reset.is_none() && m.bad[0].contains("0 to 8"));
    }

    #[test]
    fn values_are_checked_as_the_reference_types_them() {
        // A gear outside 0 to 5 is refused, never wrapped (261 mod 256 would be low).
        for line in [
            r#"{"gear_cmd": 261}"#,
            r#"{"gear_cmd": {"cmd": 6}}"#,
            r#"{"gear_cmd": {"cmd": {"value": 256}}}"#,
            r#"{"gear_cmd": -1}"#,
            r#"{"gear_cmd": 4.5}"#,
        ] {
            let m = parse_line(line).unwrap();
            assert!(m.dbw.gear_cmd.is_none(), "{line}");
            assert!(m.bad[0].starts_with("gear_cmd"), "{line}: {:?}", m.bad);
        }
        // Absurd numbers refuse their command object, naming the field; the others of
        // the line stay.
        let m = parse_line(
            r#"{"ulc_cmd": {"cmd": 1e308, "cmd_type": 1, "enable": true},
                "steering_cmd": {"cmd": 60, "cmd_type": 2, "enable": true}}"#,
        )
        .unwrap();
        assert!(m.dbw.ulc_cmd.is_none());
        assert!(m.bad[0].starts_with("ulc_cmd.cmd:"), "{:?}", m.bad);
        assert_eq!(m.dbw.steering_cmd.unwrap().cmd, 60.0);
        for (line, field) in [
            (
                r#"{"ulc_cmd": {"cmd": 2, "cmd_type": 1, "limit_accel": 1e308}}"#,
                "ulc_cmd.limit_accel",
            ),
            (
                r#"{"ulc_cmd": {"cmd": -40.5, "cmd_type": 1}}"#,
                "ulc_cmd.cmd",
            ),
            (
                r#"{"throttle_cmd": {"cmd": 101, "cmd_type": 14}}"#,
                "throttle_cmd.cmd",
            ),
            (
                r#"{"brake_cmd": {"cmd": 15, "cmd_type": 1, "rate_inc": -1}}"#,
                "brake_cmd.rate_inc",
            ),
            (
                r#"{"steering_cmd": {"cmd": 10.5, "cmd_type": 3}}"#,
                "steering_cmd.cmd",
            ),
        ] {
            let m = parse_line(line).unwrap();
            assert!(!m.has_dbw(), "{line}");
            assert!(m.bad[0].starts_with(field), "{line}: {:?}", m.bad);
        }
        // The edges of the ranges are inside.
        let m = parse_line(
            r#"{"ulc_cmd": {"cmd": 40, "cmd_type": 1, "limit_accel": 10, "limit_decel": 0},
                "throttle_cmd": {"cmd": 100, "cmd_type": 14}, "brake_cmd": {"cmd": 200, "cmd_type": 1}}"#,
        )
        .unwrap();
        assert!(m.bad.is_empty(), "{:?}", m.bad);
        // The keys ds_dbw_msgs messages carry are ignored inside each command object.
        let m = parse_line(
            r#"{"header": {"stamp": 1}, "ulc_cmd": {"cmd": 2, "cmd_type": 1, "enable_shift": true,
                "clear": false, "header": {}}, "steering_cmd": {"cmd": 1, "cmd_type": 2,
                "ignore": false, "enable_shift_park": true}, "brake_cmd": {"cmd": 0,
                "cmd_type": 14, "enable_shift": false}, "throttle_cmd": {"cmd": 0,
                "cmd_type": 14, "clear": true}}"#,
        )
        .unwrap();
        assert!(
            m.bad.is_empty() && m.unknown.is_empty(),
            "{:?} {:?}",
            m.bad,
            m.unknown
        );
        assert_eq!(m.dbw.ulc_cmd.unwrap().cmd, 2.0);
    }

    #[test]
    fn a_later_message_replaces_each_command_it_carries() {
        let mut a = parse_line(
            r#"{"ulc_cmd": {"cmd": 1, "cmd_type": 1}, "steering_cmd": {"cmd": 5, "cmd_type": 2}}"#,
        )
        .unwrap();
        let b = parse_line(r#"{"ulc_cmd": {"cmd": 2, "cmd_type": 1}, "reset": {}}"#).unwrap();
        a.merge(b);
        assert_eq!(a.dbw.ulc_cmd.unwrap().cmd, 2.0);
        assert_eq!(a.dbw.steering_cmd.unwrap().cmd, 5.0);
        assert!(a.reset.is_some());
    }

    #[test]
    fn the_lidar_summary_takes_16_bearings_capped_at_30_m() {
        let mut r = vec![f64::INFINITY; 360];
        r[90] = 5.0; // 90° left
        r[270] = 12.0; // 90° right
        r[0] = 45.0; // ahead, beyond 30 m
        let l = lidar_summary(&r);
        assert_eq!(l[0], 5.0);
        assert_eq!(l[15], 12.0);
        assert!(l.iter().all(|v| *v <= 30.0));
        assert_eq!(lidar_bearings_deg()[15], -90.0);
    }
}

#[cfg(test)]
mod tcp_tests;
