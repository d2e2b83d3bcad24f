//! `control_v1.json`: the blocks `shield`, `corridor`, `vehicle`, `dynamics`, `chain` and
//! `dbw`, with
//! their validation (docs/rules.md lists every key with its unit and default).

use super::{Check, ConfigError, ConfigFile};
use serde::{Deserialize, Serialize};

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
    /// The grade-aware stop rule (an acres extension, default on; off gives the
    /// reference's rule exactly): on a downhill the stop rule's deceleration is at most
    /// what the ground's friction leaves, `0.8 g (μ cos θ − sin θ)`.
    #[serde(default = "yes")]
    pub grade_aware_stop: bool,
    /// The friction `μ` the grade-aware rule assumes: the lowest of the model's grounds
    /// (wet grass and wet field, 0.35), since the chain does not know the grip.
    #[serde(default = "default_grade_mu")]
    pub grade_mu: f64,
    /// The moving-object rule (an acres extension, default `tracker`; `off` gives the
    /// reference's shield): each moving object's predicted sweep over the vehicle's stop
    /// horizon caps the speed as a return would. `oracle` feeds the true states of the
    /// simulated actors instead of the tracker's (for measuring the tracker).
    #[serde(default)]
    pub moving_obstacle: MovingMode,
    /// The stop horizon of the moving-object rule: the stop rule's time `T`, the time to
    /// stop from the speed, and this much more, s.
    #[serde(default = "default_moving_extra")]
    pub moving_horizon_extra_s: f64,
}

/// What the moving-object rule sees (`shield.moving_obstacle`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MovingMode {
    /// No moving-object rule: the reference's shield.
    Off,
    /// The tracker's objects, from the scans.
    #[default]
    Tracker,
    /// The simulator's true actor states (labelled as such in every output).
    Oracle,
}

impl std::str::FromStr for MovingMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "off" => Ok(MovingMode::Off),
            "tracker" => Ok(MovingMode::Tracker),
            "oracle" => Ok(MovingMode::Oracle),
            _ => Err(format!("`{s}`: expected off, tracker or oracle")),
        }
    }
}

fn default_moving_extra() -> f64 {
    0.5
}

fn yes() -> bool {
    true
}

fn default_grade_mu() -> f64 {
    0.35
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
    /// The simulated vehicle's parameters (an acres extension; only the plant reads them).
    #[serde(default)]
    pub dynamics: super::DynamicsConfig,
    #[serde(default)]
    pub chain: ChainConfig,
    #[serde(default)]
    pub dbw: DbwConfig,
    /// The tracker of the moving-object rule (an acres extension).
    #[serde(default)]
    pub tracker: crate::chain::tracker::TrackerConfig,
}

impl ControlConfig {
    pub(super) fn validate(&self, file: &str) -> Result<(), ConfigError> {
        let c = Check { file };
        self.validate_shield(&c)?;
        self.validate_corridor(&c)?;
        self.validate_vehicle(&c)?;
        self.dynamics.validate(&c, self.vehicle.wheelbase_m)?;
        self.validate_chain(&c)?;
        self.validate_free_space(&c)?;
        self.validate_dbw(&c)
    }

    /// The free-space keys of block `tracker`: the memory holds at least one scan, and
    /// every distance and count is a number the test can use.
    fn validate_free_space(&self, c: &Check) -> Result<(), ConfigError> {
        let t = &self.tracker;
        c.positive("tracker.structure_size_m", t.structure_size_m, 100.0)?;
        c.positive("tracker.free_every_s", t.free_every_s, 5.0)?;
        c.positive("tracker.free_history_s", t.free_history_s, 10.0)?;
        c.ordered(
            "tracker.free_every_s",
            t.free_every_s,
            "tracker.free_history_s",
            t.free_history_s,
        )?;
        c.range("tracker.free_min_age_s", t.free_min_age_s, 0.0, 10.0)?;
        c.range("tracker.free_radial_m", t.free_radial_m, 0.0, 10.0)?;
        c.range("tracker.free_lateral_m", t.free_lateral_m, 0.0, 10.0)?;
        c.range(
            "tracker.free_lone_spacings",
            t.free_lone_spacings,
            0.0,
            1000.0,
        )?;
        c.range(
            "tracker.free_min_returns",
            f64::from(t.free_min_returns),
            1.0,
            1000.0,
        )?;
        c.range(
            "tracker.free_fragment_spacings",
            t.free_fragment_spacings,
            0.0,
            100.0,
        )?;
        c.range(
            "tracker.free_travel_max_radius_m",
            t.free_travel_max_radius_m,
            0.0,
            100.0,
        )
    }

    /// Block `shield`; the swept corridor divides by `geofence_margin_m`.
    fn validate_shield(&self, c: &Check) -> Result<(), ConfigError> {
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
        c.positive("shield.grade_mu", s.grade_mu, 2.0)?;
        c.range(
            "shield.moving_horizon_extra_s",
            s.moving_horizon_extra_s,
            0.0,
            30.0,
        )?;
        let t = &self.tracker;
        c.positive("tracker.cluster_gap_m", t.cluster_gap_m, 10.0)?;
        c.positive("tracker.max_size_m", t.max_size_m, 100.0)?;
        c.positive("tracker.gate_m", t.gate_m, 20.0)?;
        c.positive("tracker.window_s", t.window_s, 5.0)?;
        c.positive("tracker.min_speed_mps", t.min_speed_mps, 20.0)?;
        c.positive("tracker.max_missed_s", t.max_missed_s, 5.0)?;
        c.range("tracker.speed_sigmas", t.speed_sigmas, 0.0, 10.0)?;
        c.range("tracker.young_extra_s", t.young_extra_s, 0.0, 5.0)?;
        c.positive("tracker.person_radius_m", t.person_radius_m, 5.0)?;
        c.positive("tracker.person_top_speed_mps", t.person_top_speed_mps, 15.0)?;
        c.positive(
            "tracker.machine_top_speed_mps",
            t.machine_top_speed_mps,
            50.0,
        )?;
        c.range(
            "tracker.surface_tolerance_m",
            t.surface_tolerance_m,
            0.0,
            1.0,
        )?;
        c.range("tracker.quantum_share", t.quantum_share, 0.0, 5.0)?;
        let k = &self.corridor;
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

    /// Block `corridor`.
    fn validate_corridor(&self, c: &Check) -> Result<(), ConfigError> {
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
        Ok(())
    }

    /// Block `vehicle`: the footprint must hold the wheelbase and the rear overhang.
    fn validate_vehicle(&self, c: &Check) -> Result<(), ConfigError> {
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
        Ok(())
    }

    /// Block `chain`.
    fn validate_chain(&self, c: &Check) -> Result<(), ConfigError> {
        let ch = &self.chain;
        c.positive(
            "chain.curvature_rate_max_per_m_s",
            ch.curvature_rate_max_per_m_s,
            100.0,
        )?;
        c.positive("chain.accel_max_mps2", ch.accel_max_mps2, 20.0)?;
        c.range("chain.standstill_mps", ch.standstill_mps, 0.0, 1.0)?;
        Ok(())
    }

    /// Block `dbw`.
    fn validate_dbw(&self, c: &Check) -> Result<(), ConfigError> {
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
        Ok(())
    }
}
