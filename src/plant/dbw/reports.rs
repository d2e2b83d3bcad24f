//! The `dbw_report` line (vehicle-bridge.md "dbw_report"): every field of the reference's
//! tables, in its order, with ds_dbw_msgs names and units.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct SteeringReport {
    /// deg.
    pub steering_wheel_angle: f64,
    /// The steering wheel angle the actuator follows, deg.
    pub cmd: f64,
    pub cmd_type: u8,
    pub enabled: bool,
    pub override_active: bool,
    pub timeout: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ThrottleReport {
    pub percent_input: f64,
    pub percent_cmd: f64,
    pub percent_output: f64,
    pub cmd_type: u8,
    pub enabled: bool,
    pub override_active: bool,
    pub timeout: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct BrakeReport {
    /// bar.
    pub pressure_input: f64,
    /// bar.
    pub pressure_cmd: f64,
    /// bar.
    pub pressure_output: f64,
    pub percent_cmd: f64,
    pub percent_output: f64,
    pub cmd_type: u8,
    pub enabled: bool,
    pub override_active: bool,
    pub timeout: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GearReport {
    pub gear: u8,
    pub cmd: u8,
    pub driver: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct UlcReport {
    pub cmd_type: u8,
    /// m/s.
    pub vel_ref: f64,
    /// m/s.
    pub vel_meas: f64,
    /// m/s².
    pub accel_ref: f64,
    /// m/s².
    pub accel_meas: f64,
    pub enabled: bool,
    pub timeout: bool,
    /// An acres extension, present only when true: the ULC stood at full throttle asked
    /// to move for `STALL_S` and gave up (its drive cannot carry the slope); it holds
    /// with the brake until the command is a stop.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stalled: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct VehicleVelocity {
    pub vehicle_velocity_brake: f64,
    pub vehicle_velocity_propulsion: f64,
    pub dir_src: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SystemReport {
    pub enabled: bool,
    #[serde(rename = "override")]
    pub override_: bool,
}

/// One `dbw_report` line: all reports of one instant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DbwReport {
    /// `dbw_report`.
    #[serde(rename = "type")]
    pub kind: String,
    pub agent: String,
    /// The physics time, s.
    pub t: f64,
    pub steering_report: SteeringReport,
    pub throttle_report: ThrottleReport,
    pub brake_report: BrakeReport,
    pub gear_report: GearReport,
    pub ulc_report: UlcReport,
    pub vehicle_velocity: VehicleVelocity,
    pub system_report: SystemReport,
    /// 0 turf, 1 two-wheel drive, 2 all-wheel drive.
    pub drive_mode: u8,
    /// rad, positive left.
    pub road_wheel_rad: f64,
    pub stop_hold: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_report_reads_and_writes_back_the_same_keys() {
        let line = r#"{"type":"dbw_report","agent":"polaris","t":16.4667,
 "steering_report":{"steering_wheel_angle":60.0,"cmd":60.0,
  "cmd_type":2,"enabled":true,"override_active":false,
  "timeout":false},
 "throttle_report":{"percent_input":0.0,
  "percent_cmd":34.065,"percent_output":34.065,
  "cmd_type":14,"enabled":true,"override_active":false,
  "timeout":false},
 "brake_report":{"pressure_input":0.0,"pressure_cmd":0.0,
  "pressure_output":0.094,"percent_cmd":0.0,
  "percent_output":0.117,"cmd_type":1,"enabled":true,
  "override_active":false,"timeout":false},
 "gear_report":{"gear":5,"cmd":5,"driver":5},
 "ulc_report":{"cmd_type":1,"vel_ref":2.0,
  "vel_meas":1.8815,"accel_ref":0.0,"accel_meas":0.7373,
  "enabled":true,"timeout":false},
 "vehicle_velocity":{"vehicle_velocity_brake":1.8815,
  "vehicle_velocity_propulsion":1.8951,"dir_src":1},
 "system_report":{"enabled":true,"override":false},
 "drive_mode":2,"road_wheel_rad":0.06918,
 "stop_hold":false}"#;
        let r: DbwReport = serde_json::from_str(line).unwrap();
        assert_eq!(r.gear_report.gear, 5);
        let a: serde_json::Value = serde_json::from_str(line).unwrap();
        let b = serde_json::to_value(&r).unwrap();
        assert_eq!(a, b);
    }
}
