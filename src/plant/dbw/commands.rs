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
