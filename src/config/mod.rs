//! The configuration files: `control_v1.json`, `trajectory_v1.json`, `envelope_v1.json`
//! and `scouting_v1.json`, with the key names, units and defaults of vehicle-software.md
//! "Parameters", "Speed Envelope" and "Default Driver".
//!
//! The shipped files are embedded in the library, so that every command works from any
//! directory. A config directory overrides them file by file: a file it holds replaces
//! the shipped one, a file it lacks keeps the shipped one. Parsing is strict (unknown
//! keys, missing keys and missing blocks are refused) and every value is validated;
//! errors name the file and the key.

use crate::chain::envelope::{ClassTable, EnvelopeConfig, Grip};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// Block `shield` of `control_v1.json` (vehicle-software.md "Parameters").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShieldConfig {
    /// The curvature limit of the command, 1/m; also the driver's κ_max.
    pub curvature_max_per_m: f64,
    /// The lowest speed of the command (reverse), m/s.
    pub speed_min_mps: f64,
    /// The highest speed of the command, m/s.
    pub speed_max_mps: f64,
    /// Half of the vehicle width with a margin, `m_v`, m.
    pub vehicle_margin_m: f64,
    /// The side margin of the geofence rule, `G`, m.
    pub geofence_margin_m: f64,
    /// The extra side margin of the obstacle rule, `E`, m.
    pub obstacle_extra_m: f64,
    /// The lateral limit of the corner rule, m/s²; the envelope's class limit replaces it.
    pub lateral_accel_max_mps2: f64,
    /// The base obstacle margin of the stop rule, m; the class limits replace it.
    pub obstacle_margin_m: f64,
    /// The base latency of the stop rule, s; the class limits replace it.
    pub latency_s: f64,
    /// The base deceleration of the stop rule, m/s²; the class limits replace it.
    pub brake_decel_mps2: f64,
}

/// The source of the shield's scan in the simulator (`corridor.scan_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScanSource {
    /// The simulated LiDAR sweep through the scan filter of the vehicle (the reference's
    /// default).
    Sweep,
    /// One ideal ray per beam, cast straight into the world (an acres choice, for tests).
    Rays,
}

/// Block `corridor` of `control_v1.json` (vehicle-software.md "Parameters").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorridorConfig {
    /// The number of beams of the planar scan.
    pub beams: u32,
    /// The reach of the scan, m.
    pub range_m: f64,
    /// The growth time of the side margin with the speed, `t_n`, s.
    pub narrow_time_s: f64,
    /// The floor of the side margin, `f`, m.
    pub narrow_floor_m: f64,
    /// The response time of the speed controller in the free distance, s.
    pub response_s: f64,
    /// The source of the scan in the simulator.
    pub scan_source: ScanSource,
    /// Whether the simulator crops the scan.
    pub scan_crops: bool,
    /// Corridor building (an acres extension, default 20 m): lane and verge cells join
    /// the corridor within this distance of the route.
    #[serde(default = "default_lane_reach")]
    pub lane_reach_m: f64,
    /// Corridor building (an acres extension, default 4 m): cells of other classes join
    /// within this distance of the route where the route's class at the nearest route
    /// point is that class.
    #[serde(default = "default_local_reach")]
    pub local_reach_m: f64,
}

fn default_lane_reach() -> f64 {
    20.0
}

fn default_local_reach() -> f64 {
    4.0
}

/// Block `vehicle` of `control_v1.json` (an acres extension; the reference names no
/// vehicle geometry): the footprint and the scan mount, in the body frame of the
/// reference point, the middle of the rear axle. The defaults are the published
/// dimensions of a Polaris Ranger XP 1000 (wheelbase 81 in, length 120 in, width
/// 62.5 in). A file without the block gets these defaults, so reference configs load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VehicleGeometry {
    /// The distance between the axles, m.
    pub wheelbase_m: f64,
    /// The overall length of the body, m.
    pub length_m: f64,
    /// The overall width of the body, m.
    pub width_m: f64,
    /// How far the body reaches behind the rear axle, m.
    pub rear_overhang_m: f64,
    /// The scan's mount point ahead of the rear axle, m.
    pub scan_mount_x_m: f64,
    /// The scan's mount point left of the centre line, m.
    pub scan_mount_y_m: f64,
}

impl Default for VehicleGeometry {
    fn default() -> Self {
        VehicleGeometry {
            wheelbase_m: 2.06,
            length_m: 3.05,
            width_m: 1.59,
            rear_overhang_m: 0.49,
            scan_mount_x_m: 1.9,
            scan_mount_y_m: 0.0,
        }
    }
}

impl VehicleGeometry {
    /// How far the front of the footprint is ahead of the reference point, m.
    pub fn front_m(&self) -> f64 {
        self.length_m - self.rear_overhang_m
    }
}

/// Block `chain` of `control_v1.json` (an acres extension): the actuator limits that the
/// command chain applies after the shield. Defaults where the block is absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainConfig {
    /// The largest curvature change per second of the command, 1/(m s). The default is
    /// the checker's steering_rate_max_per_m_s (0.059, vehicle-software.md "Parameters"):
    /// the commands obey the rate a plan must obey. It keeps the steering step of
    /// "Validation" under the corner rule at 3 m/s² (0.11, 200°/s at the wheel, gave 4.9).
    pub curvature_rate_max_per_m_s: f64,
    /// The largest speed increase per second of the command, m/s²; the default is the
    /// checker's accel_max_mps2, so that the driver's commands pass its rule. A decrease
    /// is never limited: the output never exceeds what the shield allowed.
    pub accel_max_mps2: f64,
    /// Below this speed the vehicle counts as standing (a shift, the launch hold), m/s;
    /// dbw.ulc.hold_speed_mps of the reference.
    pub standstill_mps: f64,
}

impl Default for ChainConfig {
    fn default() -> Self {
        ChainConfig {
            curvature_rate_max_per_m_s: 0.059,
            accel_max_mps2: 1.1,
            standstill_mps: 0.05,
        }
    }
}

/// `dbw.steering`: the steering actuator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbwSteering {
    /// Steering wheel angle over road wheel angle: 15.137, so that 60° at the wheel gives
    /// the reference's 0.06918 rad.
    pub ratio: f64,
    /// The steering wheel's range either side, deg (percent commands scale to it).
    pub max_wheel_deg: f64,
    /// The default rate limit (`cmd_rate` 0), deg/s.
    pub rate_deg_s: f64,
    /// The default acceleration limit (`cmd_accel` 0), deg/s².
    pub accel_deg_s2: f64,
}

/// `dbw.throttle`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbwThrottle {
    /// The default rate limit (`rate_inc`, `rate_dec` 0), %/s.
    pub rate_pct_s: f64,
}

/// `dbw.brake`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbwBrake {
    /// Pressure per percent, bar/%: 0.8, from the reference report (0.094 bar at 0.117 %).
    pub bar_per_percent: f64,
    /// The default rate limit, %/s.
    pub rate_pct_s: f64,
}

/// `dbw.gear`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbwGear {
    /// The time a shift takes, s.
    pub shift_s: f64,
    /// A shift needs a speed below this, m/s.
    pub standstill_mps: f64,
}

/// `dbw.ulc`: the speed controller (vehicle-software.md "Stop and Hold on a Slope").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbwUlc {
    /// The default acceleration limit (`limit_accel` 0), m/s².
    pub limit_accel_mps2: f64,
    /// The deceleration limit and its default, m/s² (the reference: 1.5).
    pub limit_decel_mps2: f64,
    /// The default jerk limits of throttle and brake, m/s³.
    pub jerk_throttle_mps3: f64,
    pub jerk_brake_mps3: f64,
    /// The deceleration with no pedal, m/s² (and of `coast_decel`).
    pub coast_decel_mps2: f64,
    /// The gains of the speed error, 1/s, and of its integral, 1/s², and the integral's
    /// bound, m.
    pub kp_per_s: f64,
    pub ki_per_s2: f64,
    pub integral_max_m: f64,
    /// The pedal per acceleration of the inverse vehicle model, % per m/s².
    pub throttle_pct_per_mps2: f64,
    pub brake_pct_per_mps2: f64,
    /// The end of a commanded stop: the brake demand grows by this × |v| × 100 % per
    /// (m/s) each second (the reference's dbw.ulc.stop_integral_per_s, 2.0).
    pub stop_integral_per_s: f64,
    /// The stop brake, % (the reference: 20).
    pub stop_brake_pct: f64,
    /// Below this speed the standstill hold acts, m/s (the reference: 0.05).
    pub hold_speed_mps: f64,
}

/// Block `dbw` of `control_v1.json`: the drive-by-wire model (vehicle-bridge.md
/// "Polaris"). The reference names `ulc.stop_integral_per_s` and `ulc.hold_speed_mps`;
/// the other values are acres choices, documented in `src/dbw/model.rs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbwConfig {
    /// A subsystem disengages this long after its last command, s (0.1).
    pub timeout_s: f64,
    /// Its report shows `timeout` until this long after it, s (1.0).
    pub timeout_report_s: f64,
    pub steering: DbwSteering,
    pub throttle: DbwThrottle,
    pub brake: DbwBrake,
    pub gear: DbwGear,
    pub ulc: DbwUlc,
}

impl Default for DbwConfig {
    fn default() -> Self {
        serde_json::from_value(
            serde_json::from_str::<serde_json::Value>(ConfigFile::Control.builtin_text())
                .expect("the shipped control file is JSON")["dbw"]
                .clone(),
        )
        .expect("the shipped dbw block is valid")
    }
}

/// `control_v1.json`: the shield, the corridor of the obstacle rule, the vehicle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlConfig {
    pub shield: ShieldConfig,
    pub corridor: CorridorConfig,
    #[serde(default)]
    pub vehicle: VehicleGeometry,
    #[serde(default)]
    pub chain: ChainConfig,
    #[serde(default)]
    pub dbw: DbwConfig,
}

/// Block `limits` of `trajectory_v1.json`: the trajectory checker's limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrajectoryLimits {
    /// The largest speed increase between samples, m/s².
    pub accel_max_mps2: f64,
    /// The largest speed decrease between samples, m/s².
    pub decel_max_mps2: f64,
    /// The largest curvature change along the path, 1/m².
    pub curvature_rate_max_per_m2: f64,
    /// The largest curvature change in time, 1/(m s).
    pub steering_rate_max_per_m_s: f64,
    /// The side margin of the narrow-lane rule, m.
    pub follower_error_m: f64,
    /// The tolerance of the start position, m.
    pub start_position_m: f64,
    /// The tolerance of the start heading, degrees.
    pub start_heading_deg: f64,
    /// The tolerance of the start speed, m/s.
    pub start_speed_mps: f64,
}

/// `trajectory_v1.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrajectoryConfig {
    pub limits: TrajectoryLimits,
}

/// Block `driver` of `scouting_v1.json`: the pure-pursuit default driver
/// (vehicle-software.md "Default Driver").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverConfig {
    /// `L_min`, the shortest look-ahead, m.
    pub lookahead_min_m: f64,
    /// `k_L`, the growth of the look-ahead with the speed, s.
    pub lookahead_gain_s: f64,
    /// `L_max`, the longest look-ahead, m.
    pub lookahead_max_m: f64,
    /// The constant look-ahead in reverse, m (the reference gives no value; an acres choice).
    pub reverse_lookahead_m: f64,
    /// The distance ahead of the vehicle over which the driver takes the lowest speed of
    /// the profile, m (the reference gives no value; an acres choice).
    pub speed_preview_m: f64,
}

/// `scouting_v1.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoutingConfig {
    pub driver: DriverConfig,
}

/// One of the four configuration files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigFile {
    Control,
    Trajectory,
    Envelope,
    Scouting,
}

impl ConfigFile {
    /// Every file, in the order `config show` prints them.
    pub const ALL: [ConfigFile; 4] = [
        ConfigFile::Control,
        ConfigFile::Trajectory,
        ConfigFile::Envelope,
        ConfigFile::Scouting,
    ];

    /// The file's name in a config directory.
    pub fn file_name(self) -> &'static str {
        match self {
            ConfigFile::Control => "control_v1.json",
            ConfigFile::Trajectory => "trajectory_v1.json",
            ConfigFile::Envelope => "envelope_v1.json",
            ConfigFile::Scouting => "scouting_v1.json",
        }
    }

    /// The shipped text of the file, embedded at build time.
    pub fn builtin_text(self) -> &'static str {
        match self {
            ConfigFile::Control => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/configs/control_v1.json"
            )),
            ConfigFile::Trajectory => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/configs/trajectory_v1.json"
            )),
            ConfigFile::Envelope => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/configs/envelope_v1.json"
            )),
            ConfigFile::Scouting => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/configs/scouting_v1.json"
            )),
        }
    }
}

/// Where the effective text of a config file came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "path", rename_all = "snake_case")]
pub enum ConfigSource {
    /// The shipped file embedded in the binary.
    Builtin,
    /// A file of the config directory.
    File(PathBuf),
}

impl ConfigSource {
    /// The label that errors use for the file.
    fn label(&self, file: ConfigFile) -> String {
        match self {
            ConfigSource::Builtin => format!("{} (built-in)", file.file_name()),
            ConfigSource::File(p) => p.display().to_string(),
        }
    }
}

impl fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigSource::Builtin => f.write_str("built-in"),
            ConfigSource::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// An error of loading or validating the configuration; each names the file and, where it
/// has one, the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("config directory {0}: not a directory")]
    NotADirectory(PathBuf),
    #[error(
        "config directory {0} holds none of control_v1.json, trajectory_v1.json, \
         envelope_v1.json, scouting_v1.json"
    )]
    EmptyDirectory(PathBuf),
    #[error("{file}: {}{message} (line {line}, column {column})", key_prefix(.key))]
    Parse {
        file: String,
        key: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: key `{key}`: {reason}")]
    Invalid {
        file: String,
        key: String,
        reason: String,
    },
    #[error("{0} exists already (use --force to overwrite)")]
    Exists(PathBuf),
}

fn key_prefix(key: &str) -> String {
    if key.is_empty() || key == "." {
        String::new()
    } else {
        format!("key `{key}`: ")
    }
}

/// Parses one config text strictly, with the path of the failing key in the error.
fn parse<T: DeserializeOwned>(label: &str, text: &str) -> Result<T, ConfigError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(de).map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        ConfigError::Parse {
            file: label.to_string(),
            key,
            line: inner.line(),
            column: inner.column(),
            message: strip_position(&inner.to_string()),
        }
    })?;
    Ok(value)
}

/// serde_json appends " at line L column C"; the error prints the position itself.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// Validation of numbers, naming the file and the key of the first bad value.
struct Check<'a> {
    file: &'a str,
}

impl Check<'_> {
    fn fail(&self, key: &str, reason: String) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.to_string(),
            key: key.to_string(),
            reason,
        }
    }

    /// `lo ≤ v ≤ hi`, and finite.
    fn range(&self, key: &str, v: f64, lo: f64, hi: f64) -> Result<(), ConfigError> {
        if !v.is_finite() {
            return Err(self.fail(key, format!("{v} is not a finite number")));
        }
        if v < lo || v > hi {
            return Err(self.fail(key, format!("{v} is outside [{lo}, {hi}]")));
        }
        Ok(())
    }

    /// `0 < v ≤ hi`, and finite.
    fn positive(&self, key: &str, v: f64, hi: f64) -> Result<(), ConfigError> {
        self.range(key, v, f64::MIN_POSITIVE, hi)
            .map_err(|_| self.fail(key, format!("{v} must be positive and at most {hi}")))
    }

    /// `a ≤ b` for two keys of the file.
    fn ordered(&self, key_a: &str, a: f64, key_b: &str, b: f64) -> Result<(), ConfigError> {
        if a > b {
            return Err(self.fail(
                key_a,
                format!("{a} is above `{key_b}` ({b}); the minimum must not exceed the maximum"),
            ));
        }
        Ok(())
    }
}

impl ControlConfig {
    fn validate(&self, file: &str) -> Result<(), ConfigError> {
        let c = Check { file };
        let s = &self.shield;
        c.positive("shield.curvature_max_per_m", s.curvature_max_per_m, 2.0)?;
        c.range("shield.speed_min_mps", s.speed_min_mps, -20.0, 0.0)?;
        c.range("shield.speed_max_mps", s.speed_max_mps, 0.0, 40.0)?;
        c.ordered(
            "shield.speed_min_mps",
            s.speed_min_mps,
            "shield.speed_max_mps",
            s.speed_max_mps,
        )?;
        c.range("shield.vehicle_margin_m", s.vehicle_margin_m, 0.0, 10.0)?;
        c.range("shield.geofence_margin_m", s.geofence_margin_m, 0.0, 10.0)?;
        c.range("shield.obstacle_extra_m", s.obstacle_extra_m, 0.0, 10.0)?;
        c.positive(
            "shield.lateral_accel_max_mps2",
            s.lateral_accel_max_mps2,
            20.0,
        )?;
        c.range("shield.obstacle_margin_m", s.obstacle_margin_m, 0.0, 50.0)?;
        c.range("shield.latency_s", s.latency_s, 0.0, 10.0)?;
        c.positive("shield.brake_decel_mps2", s.brake_decel_mps2, 20.0)?;
        let k = &self.corridor;
        if k.beams == 0 || k.beams > 36_000 {
            return Err(c.fail(
                "corridor.beams",
                format!("{} is outside [1, 36000]", k.beams),
            ));
        }
        c.positive("corridor.range_m", k.range_m, 1000.0)?;
        c.range("corridor.narrow_time_s", k.narrow_time_s, 0.0, 10.0)?;
        c.range("corridor.narrow_floor_m", k.narrow_floor_m, 0.0, 10.0)?;
        c.range("corridor.response_s", k.response_s, 0.0, 10.0)?;
        c.range("corridor.lane_reach_m", k.lane_reach_m, 0.0, 1000.0)?;
        c.range("corridor.local_reach_m", k.local_reach_m, 0.0, 1000.0)?;
        let v = &self.vehicle;
        c.positive("vehicle.wheelbase_m", v.wheelbase_m, 20.0)?;
        c.positive("vehicle.length_m", v.length_m, 30.0)?;
        c.positive("vehicle.width_m", v.width_m, 10.0)?;
        c.range("vehicle.rear_overhang_m", v.rear_overhang_m, 0.0, 10.0)?;
        if v.rear_overhang_m + v.wheelbase_m > v.length_m {
            return Err(c.fail(
                "vehicle.length_m",
                format!(
                    "{} is shorter than wheelbase_m + rear_overhang_m ({})",
                    v.length_m,
                    v.wheelbase_m + v.rear_overhang_m
                ),
            ));
        }
        c.range("vehicle.scan_mount_x_m", v.scan_mount_x_m, -30.0, 30.0)?;
        c.range("vehicle.scan_mount_y_m", v.scan_mount_y_m, -10.0, 10.0)?;
        let ch = &self.chain;
        c.positive(
            "chain.curvature_rate_max_per_m_s",
            ch.curvature_rate_max_per_m_s,
            100.0,
        )?;
        c.positive("chain.accel_max_mps2", ch.accel_max_mps2, 20.0)?;
        c.range("chain.standstill_mps", ch.standstill_mps, 0.0, 1.0)?;
        let d = &self.dbw;
        c.positive("dbw.timeout_s", d.timeout_s, 10.0)?;
        c.positive("dbw.timeout_report_s", d.timeout_report_s, 100.0)?;
        c.positive("dbw.steering.ratio", d.steering.ratio, 100.0)?;
        c.positive(
            "dbw.steering.max_wheel_deg",
            d.steering.max_wheel_deg,
            3600.0,
        )?;
        c.positive("dbw.steering.rate_deg_s", d.steering.rate_deg_s, 10_000.0)?;
        c.positive("dbw.steering.accel_deg_s2", d.steering.accel_deg_s2, 1e6)?;
        c.positive("dbw.throttle.rate_pct_s", d.throttle.rate_pct_s, 1e5)?;
        c.positive("dbw.brake.bar_per_percent", d.brake.bar_per_percent, 10.0)?;
        c.positive("dbw.brake.rate_pct_s", d.brake.rate_pct_s, 1e5)?;
        c.range("dbw.gear.shift_s", d.gear.shift_s, 0.0, 10.0)?;
        c.positive("dbw.gear.standstill_mps", d.gear.standstill_mps, 5.0)?;
        let u = &d.ulc;
        for (k, v, hi) in [
            ("dbw.ulc.limit_accel_mps2", u.limit_accel_mps2, 20.0),
            ("dbw.ulc.limit_decel_mps2", u.limit_decel_mps2, 20.0),
            ("dbw.ulc.jerk_throttle_mps3", u.jerk_throttle_mps3, 100.0),
            ("dbw.ulc.jerk_brake_mps3", u.jerk_brake_mps3, 100.0),
            (
                "dbw.ulc.throttle_pct_per_mps2",
                u.throttle_pct_per_mps2,
                1000.0,
            ),
            ("dbw.ulc.brake_pct_per_mps2", u.brake_pct_per_mps2, 1000.0),
            ("dbw.ulc.stop_integral_per_s", u.stop_integral_per_s, 1000.0),
            ("dbw.ulc.hold_speed_mps", u.hold_speed_mps, 1.0),
            ("dbw.ulc.integral_max_m", u.integral_max_m, 1000.0),
        ] {
            c.positive(k, v, hi)?;
        }
        c.range("dbw.ulc.coast_decel_mps2", u.coast_decel_mps2, 0.0, 10.0)?;
        c.range("dbw.ulc.kp_per_s", u.kp_per_s, 0.0, 100.0)?;
        c.range("dbw.ulc.ki_per_s2", u.ki_per_s2, 0.0, 100.0)?;
        c.range("dbw.ulc.stop_brake_pct", u.stop_brake_pct, 0.0, 100.0)?;
        if s.geofence_margin_m == 0.0 && k.narrow_time_s > 0.0 {
            // w(v) divides by G (vehicle-software.md "Swept corridor").
            return Err(c.fail(
                "shield.geofence_margin_m",
                "must be positive: the swept corridor's growth t_n (G + E) / G divides by it"
                    .to_string(),
            ));
        }
        Ok(())
    }
}

impl TrajectoryConfig {
    fn validate(&self, file: &str) -> Result<(), ConfigError> {
        let c = Check { file };
        let l = &self.limits;
        c.positive("limits.accel_max_mps2", l.accel_max_mps2, 20.0)?;
        c.positive("limits.decel_max_mps2", l.decel_max_mps2, 20.0)?;
        c.positive(
            "limits.curvature_rate_max_per_m2",
            l.curvature_rate_max_per_m2,
            100.0,
        )?;
        c.positive(
            "limits.steering_rate_max_per_m_s",
            l.steering_rate_max_per_m_s,
            100.0,
        )?;
        c.range("limits.follower_error_m", l.follower_error_m, 0.0, 10.0)?;
        c.positive("limits.start_position_m", l.start_position_m, 100.0)?;
        c.positive("limits.start_heading_deg", l.start_heading_deg, 180.0)?;
        c.positive("limits.start_speed_mps", l.start_speed_mps, 40.0)?;
        Ok(())
    }
}

impl ScoutingConfig {
    fn validate(&self, file: &str) -> Result<(), ConfigError> {
        let c = Check { file };
        let d = &self.driver;
        c.positive("driver.lookahead_min_m", d.lookahead_min_m, 1000.0)?;
        c.range("driver.lookahead_gain_s", d.lookahead_gain_s, 0.0, 100.0)?;
        c.positive("driver.lookahead_max_m", d.lookahead_max_m, 1000.0)?;
        c.ordered(
            "driver.lookahead_min_m",
            d.lookahead_min_m,
            "driver.lookahead_max_m",
            d.lookahead_max_m,
        )?;
        c.positive("driver.reverse_lookahead_m", d.reverse_lookahead_m, 1000.0)?;
        c.range("driver.speed_preview_m", d.speed_preview_m, 0.0, 10_000.0)?;
        Ok(())
    }
}

/// Validates an envelope against the scan reach `reach_m`: every entry's vehicle speed
/// must stop inside the reach (vehicle-software.md "Scan of the shield",
/// no_return_is_safe).
pub fn validate_envelope(
    env: &EnvelopeConfig,
    file: &str,
    reach_m: f64,
) -> Result<(), ConfigError> {
    let c = Check { file };
    c.range("latency_s", env.latency_s, 0.0, 10.0)?;
    c.range("response_s", env.response_s, 0.0, 10.0)?;
    let tables: [(Grip, Option<&ClassTable>); 2] = [
        (Grip::Unknown, Some(&env.grips.unknown)),
        (Grip::Dry, env.grips.dry.as_ref()),
    ];
    for (grip, table) in tables {
        let Some(table) = table else { continue };
        for (class, row) in table.rows() {
            let key = |k: &str| format!("grips.{grip}.{class}.{k}");
            c.positive(&key("speed_mps"), row.speed_mps, 40.0)?;
            c.range(&key("speed_command_mps"), row.speed_command_mps, 0.0, 40.0)?;
            c.ordered(
                &key("speed_command_mps"),
                row.speed_command_mps,
                &key("speed_mps"),
                row.speed_mps,
            )?;
            c.positive(&key("decel_mps2"), row.decel_mps2, 20.0)?;
            c.range(&key("obstacle_margin_m"), row.obstacle_margin_m, 0.0, 50.0)?;
            c.positive(
                &key("lateral_accel_max_mps2"),
                row.lateral_accel_max_mps2,
                20.0,
            )?;
            let d = env.stop_rule(row).stop_distance(row.speed_mps);
            if d > reach_m {
                return Err(c.fail(
                    &key("speed_mps"),
                    format!(
                        "d_stop({}) = {d:.2} m is beyond the scan reach of {reach_m} m \
                         (corridor.range_m): a beam with no return would not be safe",
                        row.speed_mps
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The effective configuration: the four files, validated, with where each came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub control: ControlConfig,
    pub trajectory: TrajectoryConfig,
    pub envelope: EnvelopeConfig,
    pub scouting: ScoutingConfig,
    /// The source of each file, in the order of [`ConfigFile::ALL`].
    pub sources: [ConfigSource; 4],
}

impl Config {
    /// The shipped configuration. It is validated by the tests, so it cannot fail here.
    pub fn builtin() -> Config {
        Config::load(None).expect("the shipped configuration is valid")
    }

    /// Loads the configuration: the files of `dir` where it holds them, the shipped ones
    /// elsewhere.
    pub fn load(dir: Option<&Path>) -> Result<Config, ConfigError> {
        let mut texts: Vec<(String, ConfigSource)> = Vec::with_capacity(4);
        if let Some(dir) = dir {
            if !dir.is_dir() {
                return Err(ConfigError::NotADirectory(dir.to_path_buf()));
            }
        }
        for file in ConfigFile::ALL {
            let path = dir.map(|d| d.join(file.file_name()));
            match path {
                Some(p) if p.exists() => {
                    let text = std::fs::read_to_string(&p).map_err(|source| ConfigError::Io {
                        path: p.clone(),
                        source,
                    })?;
                    texts.push((text, ConfigSource::File(p)));
                }
                _ => texts.push((file.builtin_text().to_string(), ConfigSource::Builtin)),
            }
        }
        if let Some(dir) = dir {
            if texts.iter().all(|(_, s)| *s == ConfigSource::Builtin) {
                return Err(ConfigError::EmptyDirectory(dir.to_path_buf()));
            }
        }
        let [control, trajectory, envelope, scouting]: [(String, ConfigSource); 4] =
            texts.try_into().expect("four config files");
        Config::from_texts(control, trajectory, envelope, scouting)
    }

    /// Parses and validates four texts with their sources (tests need no files).
    pub fn from_texts(
        control: (String, ConfigSource),
        trajectory: (String, ConfigSource),
        envelope: (String, ConfigSource),
        scouting: (String, ConfigSource),
    ) -> Result<Config, ConfigError> {
        let labels = [
            control.1.label(ConfigFile::Control),
            trajectory.1.label(ConfigFile::Trajectory),
            envelope.1.label(ConfigFile::Envelope),
            scouting.1.label(ConfigFile::Scouting),
        ];
        let c: ControlConfig = parse(&labels[0], &control.0)?;
        c.validate(&labels[0])?;
        let t: TrajectoryConfig = parse(&labels[1], &trajectory.0)?;
        t.validate(&labels[1])?;
        let e: EnvelopeConfig = parse(&labels[2], &envelope.0)?;
        validate_envelope(&e, &labels[2], c.corridor.range_m)?;
        let s: ScoutingConfig = parse(&labels[3], &scouting.0)?;
        s.validate(&labels[3])?;
        Ok(Config {
            control: c,
            trajectory: t,
            envelope: e,
            scouting: s,
            sources: [control.1, trajectory.1, envelope.1, scouting.1],
        })
    }

    /// The effective content of one file, as JSON.
    pub fn file_value(&self, file: ConfigFile) -> serde_json::Value {
        let v = match file {
            ConfigFile::Control => serde_json::to_value(&self.control),
            ConfigFile::Trajectory => serde_json::to_value(&self.trajectory),
            ConfigFile::Envelope => serde_json::to_value(&self.envelope),
            ConfigFile::Scouting => serde_json::to_value(&self.scouting),
        };
        v.expect("config structs serialize")
    }

    /// The source of one file.
    pub fn source(&self, file: ConfigFile) -> &ConfigSource {
        let i = ConfigFile::ALL.iter().position(|f| *f == file).unwrap_or(0);
        &self.sources[i]
    }
}

/// Writes the shipped config files into `dir` (created if missing) for editing; refuses to
/// overwrite an existing file unless `force`. Each file is written atomically.
pub fn write_defaults(dir: &Path, force: bool) -> Result<Vec<PathBuf>, ConfigError> {
    std::fs::create_dir_all(dir).map_err(|source| ConfigError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let paths: Vec<PathBuf> = ConfigFile::ALL
        .iter()
        .map(|f| dir.join(f.file_name()))
        .collect();
    if !force {
        if let Some(p) = paths.iter().find(|p| p.exists()) {
            return Err(ConfigError::Exists(p.clone()));
        }
    }
    for (file, path) in ConfigFile::ALL.iter().zip(&paths) {
        crate::formats::atomic::write_atomic(path, file.builtin_text().as_bytes()).map_err(
            |source| ConfigError::Io {
                path: path.clone(),
                source,
            },
        )?;
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts_with(file: ConfigFile, text: &str) -> Result<Config, ConfigError> {
        let pick = |f: ConfigFile| {
            let t = if f == file {
                text.to_string()
            } else {
                f.builtin_text().to_string()
            };
            (
                t,
                ConfigSource::File(PathBuf::from(format!("cfg/{}", f.file_name()))),
            )
        };
        Config::from_texts(
            pick(ConfigFile::Control),
            pick(ConfigFile::Trajectory),
            pick(ConfigFile::Envelope),
            pick(ConfigFile::Scouting),
        )
    }

    fn edit(file: ConfigFile, f: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut v: serde_json::Value = serde_json::from_str(file.builtin_text()).unwrap();
        f(&mut v);
        v.to_string()
    }

    fn err_of(file: ConfigFile, f: impl FnOnce(&mut serde_json::Value)) -> String {
        texts_with(file, &edit(file, f)).unwrap_err().to_string()
    }

    #[test]
    fn shipped_configs_have_the_reference_defaults() {
        let c = Config::builtin();
        let s = &c.control.shield;
        assert_eq!(s.curvature_max_per_m, 0.2);
        assert_eq!((s.speed_min_mps, s.speed_max_mps), (-1.5, 7.8));
        assert_eq!(
            (s.vehicle_margin_m, s.geofence_margin_m, s.obstacle_extra_m),
            (0.8, 0.3, 0.32)
        );
        assert_eq!(s.lateral_accel_max_mps2, 1.5);
        assert_eq!(
            (s.obstacle_margin_m, s.latency_s, s.brake_decel_mps2),
            (1.5, 0.5, 0.8)
        );
        let k = &c.control.corridor;
        assert_eq!((k.beams, k.range_m), (360, 40.0));
        assert_eq!((k.narrow_time_s, k.narrow_floor_m), (0.075, 0.1));
        assert_eq!(k.response_s, 0.5);
        assert_eq!((k.scan_source, k.scan_crops), (ScanSource::Sweep, false));
        let l = &c.trajectory.limits;
        assert_eq!((l.accel_max_mps2, l.decel_max_mps2), (1.1, 1.5));
        assert_eq!(l.curvature_rate_max_per_m2, 0.1);
        assert_eq!(l.steering_rate_max_per_m_s, 0.059);
        assert_eq!(l.follower_error_m, 0.32);
        assert_eq!(
            (l.start_position_m, l.start_heading_deg, l.start_speed_mps),
            (0.5, 15.0, 1.0)
        );
        let d = &c.scouting.driver;
        assert_eq!(
            (d.lookahead_min_m, d.lookahead_gain_s, d.lookahead_max_m),
            (4.0, 0.6, 9.0)
        );
        assert!(c.sources.iter().all(|s| *s == ConfigSource::Builtin));
    }

    #[test]
    fn unknown_key_is_refused_with_file_and_key() {
        let e = err_of(ConfigFile::Control, |v| {
            v["shield"]["curvature_max"] = 0.2.into();
        });
        assert!(e.contains("cfg/control_v1.json"), "{e}");
        assert!(e.contains("shield") && e.contains("curvature_max"), "{e}");
        assert!(e.contains("unknown field"), "{e}");
    }

    #[test]
    fn negative_deceleration_is_refused_with_file_and_key() {
        let e = err_of(ConfigFile::Envelope, |v| {
            v["grips"]["unknown"]["gravel"]["decel_mps2"] = (-1.2).into();
        });
        assert!(e.contains("cfg/envelope_v1.json"), "{e}");
        assert!(e.contains("grips.unknown.gravel.decel_mps2"), "{e}");
        let e = err_of(ConfigFile::Control, |v| {
            v["shield"]["brake_decel_mps2"] = 0.0.into();
        });
        assert!(e.contains("shield.brake_decel_mps2"), "{e}");
    }

    #[test]
    fn min_above_max_is_refused_with_file_and_key() {
        let e = err_of(ConfigFile::Scouting, |v| {
            v["driver"]["lookahead_min_m"] = 12.0.into();
        });
        assert!(e.contains("cfg/scouting_v1.json"), "{e}");
        assert!(
            e.contains("driver.lookahead_min_m") && e.contains("driver.lookahead_max_m"),
            "{e}"
        );
        let e = err_of(ConfigFile::Envelope, |v| {
            v["grips"]["unknown"]["field"]["speed_command_mps"] = 5.7.into();
        });
        assert!(e.contains("grips.unknown.field.speed_command_mps"), "{e}");
        // Equal bounds are allowed (a vehicle that may not move).
        let still = edit(ConfigFile::Control, |v| {
            v["shield"]["speed_min_mps"] = 0.0.into();
            v["shield"]["speed_max_mps"] = 0.0.into();
        });
        assert!(texts_with(ConfigFile::Control, &still).is_ok());
    }

    #[test]
    fn missing_block_is_refused_with_file_and_key() {
        let e = err_of(ConfigFile::Control, |v| {
            v.as_object_mut().unwrap().remove("corridor");
        });
        assert!(e.contains("cfg/control_v1.json"), "{e}");
        assert!(e.contains("missing field `corridor`"), "{e}");
        let e = err_of(ConfigFile::Trajectory, |v| {
            v["limits"]
                .as_object_mut()
                .unwrap()
                .remove("follower_error_m");
        });
        assert!(
            e.contains("limits") && e.contains("missing field `follower_error_m`"),
            "{e}"
        );
    }

    #[test]
    fn wrong_type_names_the_key_and_line() {
        let text = ConfigFile::Trajectory
            .builtin_text()
            .replace("\"accel_max_mps2\": 1.1", "\"accel_max_mps2\": \"fast\"");
        let e = texts_with(ConfigFile::Trajectory, &text)
            .unwrap_err()
            .to_string();
        assert!(e.contains("key `limits.accel_max_mps2`"), "{e}");
        assert!(e.contains("line 3"), "{e}");
    }

    #[test]
    fn envelope_beyond_the_scan_reach_is_refused() {
        // 9 m/s on asphalt: 2.5 + 9 + 81/2.4 = 45.25 m > 40 m.
        let e = err_of(ConfigFile::Envelope, |v| {
            v["grips"]["unknown"]["asphalt"]["speed_mps"] = 9.0.into();
        });
        assert!(e.contains("grips.unknown.asphalt.speed_mps"), "{e}");
        assert!(e.contains("45.25") && e.contains("scan reach"), "{e}");
        // A shorter reach breaks the shipped table too.
        let e = err_of(ConfigFile::Control, |v| {
            v["corridor"]["range_m"] = 30.0.into();
        });
        assert!(
            e.contains("envelope_v1.json") && e.contains("scan reach of 30"),
            "{e}"
        );
    }

    #[test]
    fn dry_table_is_optional_and_validated() {
        let with_dry = edit(ConfigFile::Envelope, |v| {
            let t = v["grips"]["unknown"].clone();
            v["grips"]["dry"] = t;
            v["grips"]["dry"]["dirt"]["speed_command_mps"] = 7.2.into();
        });
        let c = texts_with(ConfigFile::Envelope, &with_dry).unwrap();
        assert_eq!(
            c.envelope.table(Grip::Dry).unwrap().dirt.speed_command_mps,
            7.2
        );
        // The shipped file has the calibrated dry table; without it the file still loads.
        assert!(Config::builtin().envelope.table(Grip::Dry).is_some());
        let without = edit(ConfigFile::Envelope, |v| {
            v["grips"].as_object_mut().unwrap().remove("dry");
        });
        let c = texts_with(ConfigFile::Envelope, &without).unwrap();
        assert!(c.envelope.table(Grip::Dry).is_none());
        let e = err_of(ConfigFile::Envelope, |v| {
            let t = v["grips"]["unknown"].clone();
            v["grips"]["dry"] = t;
            v["grips"]["dry"]["grass"]["lateral_accel_max_mps2"] = f64::NAN.into();
        });
        // NaN is not JSON: serde_json writes null, which the parser refuses as a type.
        assert!(e.contains("grips.dry.grass.lateral_accel_max_mps2"), "{e}");
    }

    #[test]
    fn missing_class_row_is_refused() {
        let e = err_of(ConfigFile::Envelope, |v| {
            v["grips"]["unknown"]
                .as_object_mut()
                .unwrap()
                .remove("dirt");
        });
        assert!(e.contains("missing field `dirt`"), "{e}");
    }

    #[test]
    fn directory_overrides_file_by_file() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            Config::load(Some(dir.path())),
            Err(ConfigError::EmptyDirectory(_))
        ));
        let text = edit(ConfigFile::Trajectory, |v| {
            v["limits"]["accel_max_mps2"] = 0.9.into();
        });
        std::fs::write(dir.path().join("trajectory_v1.json"), text).unwrap();
        let c = Config::load(Some(dir.path())).unwrap();
        assert_eq!(c.trajectory.limits.accel_max_mps2, 0.9);
        assert_eq!(c.control, Config::builtin().control);
        assert!(matches!(
            c.source(ConfigFile::Trajectory),
            ConfigSource::File(_)
        ));
        assert_eq!(*c.source(ConfigFile::Control), ConfigSource::Builtin);
        let missing = dir.path().join("nope");
        assert!(matches!(
            Config::load(Some(&missing)),
            Err(ConfigError::NotADirectory(_))
        ));
    }

    #[test]
    fn written_defaults_load_back_identically() {
        let dir = tempfile::tempdir().unwrap();
        let written = write_defaults(dir.path(), false).unwrap();
        assert_eq!(written.len(), 4);
        let c = Config::load(Some(dir.path())).unwrap();
        let b = Config::builtin();
        assert_eq!(
            (&c.control, &c.trajectory, &c.envelope, &c.scouting),
            (&b.control, &b.trajectory, &b.envelope, &b.scouting)
        );
        assert!(matches!(
            write_defaults(dir.path(), false),
            Err(ConfigError::Exists(_))
        ));
        assert!(write_defaults(dir.path(), true).is_ok());
    }
}
