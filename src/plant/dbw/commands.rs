//! The drive-by-wire commands with the keys of vehicle-bridge.md (those of ds_dbw_msgs).
//! Keys the bridge accepts and ignores (`clear`, `ignore`, `enable_shift`,
//! `enable_shift_park`) are read and dropped; other unknown keys are refused.

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer, Serialize};

/// `steering_cmd`: 2 steering wheel angle (deg), 3 curvature (1/m), 4 yaw rate (rad/s),
/// 14 percent of the wheel's range; 0 none. Type 1 (torque) is not modelled.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SteeringCmd {
    pub cmd: f64,
    pub cmd_type: u8,
    /// The rate limit of the steering wheel, deg/s; 0 selects the default.
    pub cmd_rate: f64,
    /// The acceleration limit of the steering wheel, deg/s²; 0 selects the default.
    pub cmd_accel: f64,
    pub enable: bool,
    #[serde(skip_serializing)]
    pub(crate) clear: Option<IgnoredAny>,
    #[serde(skip_serializing)]
    pub(crate) ignore: Option<IgnoredAny>,
}

/// `throttle_cmd`: 13 raw pedal percent, 14 percent of the full range; 0 none.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ThrottleCmd {
    pub cmd: f64,
    pub cmd_type: u8,
    /// The rate limit of an increase, %/s; 0 selects the default.
    pub rate_inc: f64,
    /// The rate limit of a decrease, %/s; 0 selects the default.
    pub rate_dec: f64,
    pub enable: bool,
    #[serde(skip_serializing)]
    pub(crate) clear: Option<IgnoredAny>,
    #[serde(skip_serializing)]
    pub(crate) ignore: Option<IgnoredAny>,
}

/// `brake_cmd`: 1 pressure (bar), 14 percent; 0 none. The torque and acceleration types
/// are not modelled.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrakeCmd {
    pub cmd: f64,
    pub cmd_type: u8,
    /// The rate limit of an increase, by type per second; 0 selects the default.
    pub rate_inc: f64,
    /// The rate limit of a decrease, by type per second; 0 selects the default.
    pub rate_dec: f64,
    pub enable: bool,
    #[serde(skip_serializing)]
    pub(crate) clear: Option<IgnoredAny>,
    #[serde(skip_serializing)]
    pub(crate) ignore: Option<IgnoredAny>,
}

/// `gear_cmd`: `cmd` is a number or `{"value": n}`; 0 none, 1 park, 2 reverse,
/// 3 neutral, 4 high, 5 low.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GearCmd {
    #[serde(deserialize_with = "number_or_value")]
    pub cmd: u8,
    #[serde(skip_serializing)]
    pub(crate) enable_shift: Option<IgnoredAny>,
    #[serde(skip_serializing)]
    pub(crate) enable_shift_park: Option<IgnoredAny>,
    #[serde(skip_serializing)]
    pub(crate) clear: Option<IgnoredAny>,
}

fn number_or_value<'de, D: Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        N(u8),
        V { value: u8 },
    }
    Ok(match Either::deserialize(d)? {
        Either::N(n) | Either::V { value: n } => n,
    })
}

/// `ulc_cmd`: 1 speed (m/s), 2 acceleration (m/s²); 0 none.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UlcCmd {
    pub cmd: f64,
    pub cmd_type: u8,
    /// m/s²; 0 selects the default.
    pub limit_accel: f64,
    /// m/s²; 0 selects the default.
    pub limit_decel: f64,
    /// m/s³; 0 selects the default.
    pub limit_jerk_throttle: f64,
    /// m/s³; 0 selects the default.
    pub limit_jerk_brake: f64,
    pub enable: bool,
    /// Decelerate without the brake.
    pub coast_decel: bool,
    #[serde(skip_serializing)]
    pub(crate) clear: Option<IgnoredAny>,
}

/// `drive_mode`: `awd`, `2wd` or `turf`, reported as 2, 1 and 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum DriveMode {
    #[default]
    #[serde(rename = "awd")]
    Awd,
    #[serde(rename = "2wd")]
    TwoWd,
    #[serde(rename = "turf")]
    Turf,
}

impl DriveMode {
    /// The number of the report: 0 turf, 1 two-wheel drive, 2 all-wheel drive.
    pub fn number(self) -> u8 {
        match self {
            DriveMode::Turf => 0,
            DriveMode::TwoWd => 1,
            DriveMode::Awd => 2,
        }
    }
}

/// `dbw`: `{"enable": true}` or `{"disable": true}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EnableCmd {
    pub enable: bool,
    pub disable: bool,
}

/// The drive-by-wire keys of one bridge line; every key is optional, several may come
/// in one line.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct DbwCommands {
    pub dbw: Option<EnableCmd>,
    pub steering_cmd: Option<SteeringCmd>,
    pub throttle_cmd: Option<ThrottleCmd>,
    pub brake_cmd: Option<BrakeCmd>,
    pub gear_cmd: Option<GearCmd>,
    pub ulc_cmd: Option<UlcCmd>,
    pub drive_mode: Option<DriveMode>,
}

/// A value checked against the range of its field (docs/bridge.md "Ranges"): generous
/// bounds of what the vehicle can mean, so that an absurd number (1e308) never reaches
/// the model. Returns the refusal, naming the field.
fn within(field: &str, v: f64, lo: f64, hi: f64, unit: &str) -> Result<(), String> {
    if v.is_finite() && (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(format!("{field}: {v} is outside {lo} to {hi} {unit}"))
    }
}

fn steering_in_range(c: &SteeringCmd) -> Result<(), String> {
    let (lo, hi, unit) = match c.cmd_type {
        2 => (-1000.0, 1000.0, "deg"),
        3 => (-10.0, 10.0, "1/m"),
        4 => (-10.0, 10.0, "rad/s"),
        14 => (-100.0, 100.0, "%"),
        _ => (f64::MIN, f64::MAX, ""),
    };
    within("steering_cmd.cmd", c.cmd, lo, hi, unit)?;
    within("steering_cmd.cmd_rate", c.cmd_rate, 0.0, 10_000.0, "deg/s")?;
    within(
        "steering_cmd.cmd_accel",
        c.cmd_accel,
        0.0,
        100_000.0,
        "deg/s²",
    )
}

fn throttle_in_range(c: &ThrottleCmd) -> Result<(), String> {
    within("throttle_cmd.cmd", c.cmd, 0.0, 100.0, "%")?;
    within("throttle_cmd.rate_inc", c.rate_inc, 0.0, 10_000.0, "%/s")?;
    within("throttle_cmd.rate_dec", c.rate_dec, 0.0, 10_000.0, "%/s")
}

fn brake_in_range(c: &BrakeCmd) -> Result<(), String> {
    let (hi, unit) = if c.cmd_type == 1 {
        (200.0, "bar")
    } else {
        (100.0, "%")
    };
    within("brake_cmd.cmd", c.cmd, 0.0, hi, unit)?;
    within("brake_cmd.rate_inc", c.rate_inc, 0.0, 10_000.0, "per s")?;
    within("brake_cmd.rate_dec", c.rate_dec, 0.0, 10_000.0, "per s")
}

fn ulc_in_range(c: &UlcCmd) -> Result<(), String> {
    let (lo, hi, unit) = if c.cmd_type == 2 {
        (-10.0, 10.0, "m/s²")
    } else {
        (-40.0, 40.0, "m/s")
    };
    within("ulc_cmd.cmd", c.cmd, lo, hi, unit)?;
    within("ulc_cmd.limit_accel", c.limit_accel, 0.0, 10.0, "m/s²")?;
    within("ulc_cmd.limit_decel", c.limit_decel, 0.0, 10.0, "m/s²")?;
    within(
        "ulc_cmd.limit_jerk_throttle",
        c.limit_jerk_throttle,
        0.0,
        100.0,
        "m/s³",
    )?;
    within(
        "ulc_cmd.limit_jerk_brake",
        c.limit_jerk_brake,
        0.0,
        100.0,
        "m/s³",
    )
}

impl DbwCommands {
    /// Drops each command object with a number outside its field's range (a refusal, not
    /// a clamp: the subsystem keeps its previous command) and says why, one message per
    /// refused object.
    pub fn refuse_out_of_range(&mut self) -> Vec<String> {
        let mut why = Vec::new();
        fn check<T>(slot: &mut Option<T>, f: fn(&T) -> Result<(), String>, why: &mut Vec<String>) {
            if let Some(Err(e)) = slot.as_ref().map(f) {
                why.push(e);
                *slot = None;
            }
        }
        check(&mut self.steering_cmd, steering_in_range, &mut why);
        check(&mut self.throttle_cmd, throttle_in_range, &mut why);
        check(&mut self.brake_cmd, brake_in_range, &mut why);
        check(&mut self.ulc_cmd, ulc_in_range, &mut why);
        why
    }

    /// This line's commands with a later line's laid over them: each key of `later`
    /// replaces this one's (the queue keeps the last command of a subsystem due at one
    /// step).
    pub fn merge(&mut self, later: DbwCommands) {
        self.dbw = later.dbw.or(self.dbw);
        self.steering_cmd = later.steering_cmd.or(self.steering_cmd);
        self.throttle_cmd = later.throttle_cmd.or(self.throttle_cmd);
        self.brake_cmd = later.brake_cmd.or(self.brake_cmd);
        self.gear_cmd = later.gear_cmd.or(self.gear_cmd);
        self.ulc_cmd = later.ulc_cmd.or(self.ulc_cmd);
        self.drive_mode = later.drive_mode.or(self.drive_mode);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_lines_parse() {
        let c: DbwCommands = serde_json::from_str(
            r#"{"ulc_cmd": {"cmd": 2.0, "cmd_type": 1, "limit_accel": 1.0, "limit_decel": 1.5,
                            "enable": true},
                "steering_cmd": {"cmd": 60.0, "cmd_type": 2, "cmd_rate": 200.0, "enable": true}}"#,
        )
        .unwrap();
        assert_eq!(c.ulc_cmd.unwrap().cmd, 2.0);
        assert_eq!(c.steering_cmd.unwrap().cmd_rate, 200.0);
        for line in [
            r#"{"gear_cmd": {"cmd": 5}}"#,
            r#"{"gear_cmd": {"cmd": {"value": 5}}}"#,
        ] {
            let c: DbwCommands = serde_json::from_str(line).unwrap();
            assert_eq!(c.gear_cmd.unwrap().cmd, 5);
        }
        let c: DbwCommands = serde_json::from_str(r#"{"drive_mode": "2wd"}"#).unwrap();
        assert_eq!(c.drive_mode.unwrap().number(), 1);
        let c: DbwCommands = serde_json::from_str(
            r#"{"gear_cmd": {"cmd": 4, "enable_shift": true, "clear": false}}"#,
        )
        .unwrap();
        assert_eq!(c.gear_cmd.unwrap().cmd, 4);
        assert!(
            serde_json::from_str::<DbwCommands>(r#"{"steering_cmd": {"cmd": 1, "speed": 3}}"#)
                .is_err()
        );
    }
}
