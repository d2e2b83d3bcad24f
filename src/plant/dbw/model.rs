//! The drive-by-wire state machine: commands in, actuator outputs and reports out, one
//! physics step at a time.
//!
//! - Steering follows its target with the rate limit `cmd_rate` and the acceleration
//!   limit `cmd_accel` (time-optimal: the rate toward the target is at most
//!   `√(2 A |error|)`); the road wheel angle is the steering wheel angle over the steering
//!   ratio; a curvature target is `atan(κ L)` at the road wheel; a yaw rate target is the
//!   curvature `ω / max(|v|, 1 m/s)`; percent is of `max_wheel_deg`.
//! - Throttle and brake follow their targets with the rate limits of the command; brake
//!   pressure = `bar_per_percent` × percent (0.8 bar per %, from the reference report:
//!   0.094 bar at 0.117 %).
//! - The gear changes only while the system is enabled, at standstill, after `shift_s`.
//! - The ULC moves `vel_ref` toward its command within the acceleration limits and the
//!   jerk limits, and turns `accel_ref + k_p (vel_ref − v) + k_i ∫(vel_ref − v)` into
//!   throttle or brake. At the end of a commanded stop (command and `vel_ref` 0) the brake
//!   demand grows by `stop_integral_per_s` × |v| × 100 % per (m/s) each second, never below
//!   `stop_brake_pct`, and stays while standing; below `hold_speed_mps` the stop hold is on.
//! - A subsystem is engaged while the system is enabled and its last command, at most
//!   0.1 s old, asked for it; `timeout` shows from 0.1 s to 1 s after the last command.

use super::PHYSICS_HZ;
use super::commands::{BrakeCmd, DbwCommands, DriveMode, SteeringCmd, ThrottleCmd, UlcCmd};
use super::reports::*;
use crate::config::DbwConfig;

/// A command type the model does not have: the bridge logs it once per kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{command} cmd_type {cmd_type} (not modelled)")]
pub struct DbwError {
    pub command: &'static str,
    pub cmd_type: u8,
}

/// What the actuators apply to the vehicle in one physics step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Actuation {
    /// The road wheel angle, rad, positive left.
    pub road_wheel_rad: f64,
    /// The throttle output, % of the full range.
    pub throttle_pct: f64,
    /// The brake output, bar.
    pub brake_bar: f64,
    /// The gear engaged: 1 park, 2 reverse, 3 neutral, 4 high, 5 low.
    pub gear: u8,
    /// The standstill hold of the ULC (reported; the brake and the tires hold).
    pub stop_hold: bool,
    /// The position of the drive mode switch: which axles the drive force reaches.
    pub drive_mode: DriveMode,
}

/// The state of one subsystem's command stream.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Stream {
    last_step: Option<u64>,
    enable: bool,
    cmd_type: u8,
}

impl Stream {
    fn age_s(&self, step: u64) -> Option<f64> {
        self.last_step
            .map(|s| step.saturating_sub(s) as f64 / PHYSICS_HZ as f64)
    }
}

/// The drive-by-wire model of one vehicle.
#[derive(Debug, Clone)]
pub struct Dbw {
    cfg: DbwConfig,
    wheelbase_m: f64,
    enabled: bool,
    override_: bool,
    drive_mode: DriveMode,
    steer: Stream,
    steer_target_deg: f64,
    steer_rate_lim: f64,
    steer_accel_lim: f64,
    steer_deg: f64,
    steer_rate: f64,
    throttle: Stream,
    throttle_target: f64,
    throttle_rates: (f64, f64),
    throttle_out: f64,
    brake: Stream,
    brake_target: f64,
    brake_rates: (f64, f64),
    brake_out: f64,
    gear: u8,
    gear_cmd: u8,
    shift_left_s: f64,
    ulc: Stream,
    ulc_cmd: f64,
    ulc_limits: (f64, f64, f64, f64),
    ulc_coast: bool,
    vel_ref: f64,
    accel_ref: f64,
    integral: f64,
    /// The sine of the pitch along the heading (uphill positive), as the vehicle's IMU
    /// measures it; the plant sets it before each step (the ULC's grade feed-forward).
    pub grade_sin: f64,
    stop_brake: f64,
    stop_hold: bool,
    /// The throttle output behind the engine's response ([`HOLD_LAG_S`]), %.
    throttle_est: f64,
    /// How long the ULC has stood at full throttle, asked to move and not moving, s;
    /// and whether it has given up ([`STALL_S`]).
    stall_s: f64,
    stalled: bool,
}

/// The direction a gear drives: 1 forward (4 high, 5 low), −1 in reverse (2), 0 in
/// park and neutral.
pub fn gear_direction(gear: u8) -> f64 {
    match gear {
        2 => -1.0,
        4 | 5 => 1.0,
        _ => 0.0,
    }
}

/// The ULC's hold on a slope (an acres choice, as Dataspeed's ULC holds a stop: the
/// brake keeps the vehicle until the drive takes the load): the brake holds this many
/// times the slope's load...
const HOLD_MARGIN: f64 = 1.25;
/// ...and on a launch uphill it lets go as the throttle's drive, behind this lag, s,
/// takes the load over (the drive force's own lag is 0.15 s).
const HOLD_LAG_S: f64 = 0.2;
/// After this long at full throttle, asked to move and standing still, the ULC gives up
/// (an acres choice: the drive cannot carry the slope): it lets the throttle go, holds
/// with the brake, and reports `stalled` until the command is a stop, s.
pub const STALL_S: f64 = 3.0;
/// Below this speed the ULC counts as standing for [`STALL_S`], m/s (a crawl the drive
/// can carry passes it within a second).
const STALL_SPEED_MPS: f64 = 0.01;
/// The throttle estimate that counts as full, % (it nears 100 behind [`HOLD_LAG_S`]).
const FULL_THROTTLE_PCT: f64 = 99.0;

fn or_default(v: f64, d: f64) -> f64 {
    if v > 0.0 && v.is_finite() { v } else { d }
}

impl Dbw {
    /// A disabled system in park, with the parameters of `control_v1.json` block `dbw`
    /// and the wheelbase of the vehicle.
    pub fn new(cfg: &DbwConfig, wheelbase_m: f64) -> Dbw {
        Dbw {
            cfg: cfg.clone(),
            wheelbase_m,
            enabled: false,
            override_: false,
            drive_mode: DriveMode::Awd,
            steer: Stream::default(),
            steer_target_deg: 0.0,
            steer_rate_lim: cfg.steering.rate_deg_s,
            steer_accel_lim: cfg.steering.accel_deg_s2,
            steer_deg: 0.0,
            steer_rate: 0.0,
            throttle: Stream::default(),
            throttle_target: 0.0,
            throttle_rates: (cfg.throttle.rate_pct_s, cfg.throttle.rate_pct_s),
            throttle_out: 0.0,
            brake: Stream::default(),
            brake_target: 0.0,
            brake_rates: (cfg.brake.rate_pct_s, cfg.brake.rate_pct_s),
            brake_out: 0.0,
            gear: 1,
            gear_cmd: 0,
            shift_left_s: 0.0,
            ulc: Stream::default(),
            ulc_cmd: 0.0,
            ulc_limits: (0.0, 0.0, 0.0, 0.0),
            ulc_coast: false,
            vel_ref: 0.0,
            accel_ref: 0.0,
            integral: 0.0,
            grade_sin: 0.0,
            stop_brake: 0.0,
            stop_hold: false,
            throttle_est: 0.0,
            stall_s: 0.0,
            stalled: false,
        }
    }

    /// Sets the gear at once (a scenario's start state).
    pub fn set_gear(&mut self, gear: u8) {
        self.gear = gear;
        self.gear_cmd = gear;
    }

    /// Puts the gear lever in `gear` by hand, with no gear command (the bridge's start:
    /// the lever stands in low).
    pub fn set_lever(&mut self, gear: u8) {
        self.gear = gear;
        self.gear_cmd = 0;
    }

    /// The gear engaged: 1 park, 2 reverse, 3 neutral, 4 high, 5 low.
    pub fn gear(&self) -> u8 {
        self.gear
    }

    /// Whether the system is enabled.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// A driver input (keyboard, pedal): an override that disables the system until the
    /// next enable.
    pub fn driver_override(&mut self) {
        self.override_ = true;
        self.enabled = false;
    }

    fn engaged(&self, s: &Stream, step: u64) -> bool {
        self.enabled && s.enable && s.age_s(step).is_some_and(|a| a < self.cfg.timeout_s)
    }

    fn timed_out(&self, s: &Stream, step: u64) -> bool {
        s.age_s(step)
            .is_some_and(|a| a >= self.cfg.timeout_s && a < self.cfg.timeout_report_s)
    }

    /// Applies the commands of one line at `step`, the measured speed `speed_mps`.
    /// Unmodelled command types are returned (and ignored).
    pub fn apply(&mut self, step: u64, c: &DbwCommands, speed_mps: f64) -> Vec<DbwError> {
        let mut rejected = Vec::new();
        if let Some(e) = c.dbw {
            if e.enable {
                self.enabled = true;
                self.override_ = false;
            }
            if e.disable {
                self.enabled = false;
            }
        }
        if let Some(m) = c.drive_mode {
            self.drive_mode = m;
        }
        if let Some(s) = c.steering_cmd {
            self.apply_steering(step, &s, speed_mps, &mut rejected);
        }
        if let Some(t) = c.throttle_cmd {
            self.apply_throttle(step, &t, &mut rejected);
        }
        if let Some(b) = c.brake_cmd {
            self.apply_brake(step, &b, &mut rejected);
        }
        if let Some(g) = c.gear_cmd {
            if (1..=5).contains(&g.cmd) && self.enabled {
                self.gear_cmd = g.cmd;
            }
        }
        if let Some(u) = c.ulc_cmd {
            let v = self.along_gear(speed_mps);
            self.apply_ulc(step, &u, v, &mut rejected);
        }
        rejected
    }

    /// `steering_cmd`: the steering wheel target of types 2 (deg), 3 (curvature), 4 (yaw
    /// rate at the measured speed, at least 1 m/s) and 14 (percent).
    fn apply_steering(
        &mut self,
        step: u64,
        s: &SteeringCmd,
        speed_mps: f64,
        rejected: &mut Vec<DbwError>,
    ) {
        let st = &self.cfg.steering;
        let deg = match s.cmd_type {
            0 => None,
            2 => Some(s.cmd),
            3 => Some((s.cmd * self.wheelbase_m).atan().to_degrees() * st.ratio),
            4 => {
                let k = s.cmd / speed_mps.abs().max(1.0);
                Some((k * self.wheelbase_m).atan().to_degrees() * st.ratio)
            }
            14 => Some(s.cmd / 100.0 * st.max_wheel_deg),
            t => {
                rejected.push(DbwError {
                    command: "steering_cmd",
                    cmd_type: t,
                });
                None
            }
        };
        if let Some(d) = deg.filter(|d| d.is_finite()) {
            self.steer_target_deg = d.clamp(-st.max_wheel_deg, st.max_wheel_deg);
            self.steer_rate_lim = or_default(s.cmd_rate, st.rate_deg_s);
            self.steer_accel_lim = or_default(s.cmd_accel, st.accel_deg_s2);
            self.steer = Stream {
                last_step: Some(step),
                enable: s.enable,
                cmd_type: s.cmd_type,
            };
        }
    }

    /// `throttle_cmd`: types 13 and 14, percent.
    fn apply_throttle(&mut self, step: u64, t: &ThrottleCmd, rejected: &mut Vec<DbwError>) {
        match t.cmd_type {
            13 | 14 if t.cmd.is_finite() => {
                self.throttle_target = t.cmd.clamp(0.0, 100.0);
                let d = self.cfg.throttle.rate_pct_s;
                self.throttle_rates = (or_default(t.rate_inc, d), or_default(t.rate_dec, d));
                self.throttle = Stream {
                    last_step: Some(step),
                    enable: t.enable,
                    cmd_type: t.cmd_type,
                };
            }
            0 | 13 | 14 => {}
            ty => rejected.push(DbwError {
                command: "throttle_cmd",
                cmd_type: ty,
            }),
        }
    }

    /// `brake_cmd`: types 1 (bar) and 14 (percent); the rates follow the type's unit.
    fn apply_brake(&mut self, step: u64, b: &BrakeCmd, rejected: &mut Vec<DbwError>) {
        let k = self.cfg.brake.bar_per_percent;
        let (pct, scale) = match b.cmd_type {
            1 => (Some(b.cmd / k), 1.0 / k),
            14 => (Some(b.cmd), 1.0),
            0 => (None, 1.0),
            ty => {
                rejected.push(DbwError {
                    command: "brake_cmd",
                    cmd_type: ty,
                });
                (None, 1.0)
            }
        };
        if let Some(p) = pct.filter(|p| p.is_finite()) {
            self.brake_target = p.clamp(0.0, 100.0);
            let d = self.cfg.brake.rate_pct_s;
            self.brake_rates = (
                or_default(b.rate_inc * scale, d),
                or_default(b.rate_dec * scale, d),
            );
            self.brake = Stream {
                last_step: Some(step),
                enable: b.enable,
                cmd_type: b.cmd_type,
            };
        }
    }

    /// `ulc_cmd`: types 1 (speed) and 2 (acceleration); engaging starts the reference at
    /// the measured speed.
    fn apply_ulc(&mut self, step: u64, u: &UlcCmd, speed_mps: f64, rejected: &mut Vec<DbwError>) {
        match u.cmd_type {
            1 | 2 if u.cmd.is_finite() => {
                let l = &self.cfg.ulc;
                self.ulc_cmd = u.cmd;
                self.ulc_limits = (
                    or_default(u.limit_accel, l.limit_accel_mps2),
                    or_default(u.limit_decel, l.limit_decel_mps2).min(l.limit_decel_mps2),
                    or_default(u.limit_jerk_throttle, l.jerk_throttle_mps3),
                    or_default(u.limit_jerk_brake, l.jerk_brake_mps3),
                );
                self.ulc_coast = u.coast_decel;
                if !self.engaged(&self.ulc, step) {
                    // Engaging: the reference starts at the measured speed.
                    self.vel_ref = speed_mps;
                    self.accel_ref = 0.0;
                    self.integral = 0.0;
                }
                self.ulc = Stream {
                    last_step: Some(step),
                    enable: u.enable,
                    cmd_type: u.cmd_type,
                };
            }
            0..=2 => {}
            ty => rejected.push(DbwError {
                command: "ulc_cmd",
                cmd_type: ty,
            }),
        }
    }

    /// The acceleration gravity takes against the engaged gear's direction, m/s²
    /// (positive uphill), from the measured pitch.
    fn grade_accel(&self) -> f64 {
        gear_direction(self.gear) * crate::ground::class::G * self.grade_sin
    }

    /// The signed speed as the speed along the engaged gear's direction (reverse flips it).
    fn along_gear(&self, speed_mps: f64) -> f64 {
        if self.gear == 2 {
            -speed_mps
        } else {
            speed_mps
        }
    }

    /// Advances one physics step with the measured speed; returns what the actuators
    /// apply.
    pub fn step(&mut self, step: u64, speed_mps: f64) -> Actuation {
        let dt = 1.0 / PHYSICS_HZ as f64;
        self.step_steering(step, dt);

        // The ULC controls the speed in the direction of the gear: its command is a
        // magnitude, and in reverse the vehicle's signed speed is negative.
        let v = self.along_gear(speed_mps);
        let (throttle_want, brake_want) = self.pedals(step, v, dt);
        let follow = |out: f64, want: f64, (inc, dec): (f64, f64)| {
            let want = want.clamp(0.0, 100.0);
            out + (want - out).clamp(-dec * dt, inc * dt)
        };
        self.throttle_out = follow(self.throttle_out, throttle_want, self.throttle_rates);
        self.brake_out = follow(self.brake_out, brake_want, self.brake_rates);
        // The drive the throttle gives by now, behind the engine's response.
        self.throttle_est += (self.throttle_out - self.throttle_est) * (dt / HOLD_LAG_S).min(1.0);

        self.step_gear(speed_mps, dt);

        Actuation {
            road_wheel_rad: self.road_wheel_rad(),
            throttle_pct: self.throttle_out,
            brake_bar: self.brake_out * self.cfg.brake.bar_per_percent,
            gear: self.gear,
            stop_hold: self.stop_hold,
            drive_mode: self.drive_mode,
        }
    }

    /// Steering: a time-optimal approach to the target within the rate and acceleration
    /// limits, while the subsystem is engaged.
    fn step_steering(&mut self, step: u64, dt: f64) {
        if self.engaged(&self.steer, step) {
            let err = self.steer_target_deg - self.steer_deg;
            let a = self.steer_accel_lim;
            let want = err.signum() * (2.0 * a * err.abs()).sqrt().min(self.steer_rate_lim);
            let dv = (want - self.steer_rate).clamp(-a * dt, a * dt);
            self.steer_rate += dv;
            let mv = self.steer_rate * dt;
            if mv.abs() >= err.abs() {
                self.steer_deg = self.steer_target_deg;
                self.steer_rate = 0.0;
            } else {
                self.steer_deg += mv;
            }
        } else {
            self.steer_rate = 0.0;
        }
    }

    /// The pedal demands (throttle %, brake %): the ULC's while it is engaged (with the stop
    /// integral and the hold of a commanded stop), else the direct commands.
    fn pedals(&mut self, step: u64, speed_mps: f64, dt: f64) -> (f64, f64) {
        if self.engaged(&self.ulc, step) {
            return self.ulc_pedals(speed_mps, dt);
        }
        self.stop_hold = false;
        self.stop_brake = 0.0;
        // Off, the ULC's reference follows the measured speed (vehicle-bridge.md: 0.4 s
        // after the last command, vel_ref equals vel_meas).
        self.vel_ref = speed_mps;
        self.accel_ref = 0.0;
        let throttle = if self.engaged(&self.throttle, step) {
            self.throttle_target
        } else {
            0.0
        };
        let brake = if self.engaged(&self.brake, step) {
            self.brake_target
        } else {
            0.0
        };
        (throttle, brake)
    }

    /// The ULC's reference: `accel_ref` toward the command within the acceleration and
    /// jerk limits, `vel_ref` integrated from it and stopped at the command.
    fn ulc_reference(&mut self, speed_mps: f64, dt: f64) {
        let (la, ld, jt, jb) = self.ulc_limits;
        let target_a = match self.ulc.cmd_type {
            // Approach: the acceleration that stops the reference at the command.
            1 => ((self.ulc_cmd - self.vel_ref) / dt).clamp(-ld, la),
            _ => self.ulc_cmd.clamp(-ld, la),
        };
        let j = if target_a >= self.accel_ref { jt } else { jb };
        self.accel_ref += (target_a - self.accel_ref).clamp(-j * dt, j * dt);
        let next = self.vel_ref + self.accel_ref * dt;
        self.vel_ref = if self.ulc.cmd_type == 1
            && (self.vel_ref - self.ulc_cmd) * (next - self.ulc_cmd) <= 0.0
        {
            self.accel_ref = 0.0;
            self.ulc_cmd
        } else {
            next
        };
        // A vehicle that stands while a stop is commanded has reached the reference: on
        // an uphill grade it stops before the reference does, and must not roll back.
        if self.ulc.cmd_type == 1
            && self.ulc_cmd == 0.0
            && speed_mps.abs() < self.cfg.ulc.hold_speed_mps
            && self.accel_ref <= 0.0
        {
            self.vel_ref = 0.0;
            self.accel_ref = 0.0;
        }
    }

    /// The ULC's acceleration demand: the reference's acceleration, the PI terms of the
    /// speed error, and the grade feed-forward: the acceleration gravity takes along the
    /// gear's direction, from the measured pitch (an acres model choice: with only the
    /// integral the ULC stood short of a hill's grade, or rolled back on relaunch). The
    /// integral grows only while the demand is within what the pedals can give
    /// (conditional integration), so a long hill needs no cap that leaves it short.
    fn ulc_demand(&mut self, speed_mps: f64, dt: f64) -> f64 {
        let l = &self.cfg.ulc;
        let e = self.vel_ref - speed_mps;
        let a_ff = self.grade_accel();
        let a_des_of = |i: f64| self.accel_ref + l.kp_per_s * e + l.ki_per_s2 * i + a_ff;
        let next = (self.integral + e * dt).clamp(-l.integral_max_m, l.integral_max_m);
        let (a_lo, a_hi) = (
            -100.0 / l.brake_pct_per_mps2 - l.coast_decel_mps2,
            100.0 / l.throttle_pct_per_mps2 - l.coast_decel_mps2,
        );
        let saturated = (e > 0.0 && a_des_of(self.integral) >= a_hi)
            || (e < 0.0 && a_des_of(self.integral) <= a_lo);
        if !saturated {
            self.integral = next;
        }
        a_des_of(self.integral)
    }

    /// The ULC's pedals: the demand turned into throttle or brake (coasting first), and
    /// at the end of a commanded stop the stop brake and its integral, and the hold.
    fn ulc_pedals(&mut self, speed_mps: f64, dt: f64) -> (f64, f64) {
        self.ulc_reference(speed_mps, dt);
        let a_des = self.ulc_demand(speed_mps, dt);
        let l = &self.cfg.ulc;
        let (mut throttle_want, mut brake_want) = (0.0, 0.0);
        if a_des >= -l.coast_decel_mps2 {
            throttle_want = (a_des + l.coast_decel_mps2) * l.throttle_pct_per_mps2;
        } else if !self.ulc_coast {
            brake_want = (-a_des - l.coast_decel_mps2) * l.brake_pct_per_mps2;
        }
        let stopping = self.ulc.cmd_type == 1 && self.ulc_cmd == 0.0 && self.vel_ref == 0.0;
        let a_grade = self.grade_accel();
        if stopping {
            self.stop_brake = (self.stop_brake.max(l.stop_brake_pct)
                + l.stop_integral_per_s * speed_mps.abs() * 100.0 * dt)
                .min(100.0);
            // The brake holds the slope's whole load with a margin, and on an uphill the
            // drive stays until the brake has taken it over (no roll-back).
            let hold = HOLD_MARGIN * a_grade.abs() * l.brake_pct_per_mps2;
            brake_want = brake_want.max(self.stop_brake).max(hold);
            let braked = self.brake_out / l.brake_pct_per_mps2;
            throttle_want = (a_grade - braked).max(0.0) * l.throttle_pct_per_mps2;
            self.integral = 0.0;
        } else {
            self.stop_brake = 0.0;
            if speed_mps.abs() < l.hold_speed_mps && a_grade > 0.0 {
                // A launch uphill: the brake lets go only as the drive takes the load, with
                // the hold's margin while the throttle can still rise; at full throttle it
                // lets go of the margin, so that a drive that can carry the slope climbs it
                // (with the margin, 7.3 % of brake held a full throttle on 50 % gravel for
                // ever: issue 65).
                let driven = self.throttle_est / l.throttle_pct_per_mps2;
                let full = throttle_want >= 100.0 && self.throttle_est >= FULL_THROTTLE_PCT;
                let margin = if full { 1.0 } else { HOLD_MARGIN };
                let hold = (margin * a_grade - driven).max(0.0) * l.brake_pct_per_mps2;
                brake_want = brake_want.max(hold);
            }
        }
        let (brake_per, stop_brake_pct) = (l.brake_pct_per_mps2, l.stop_brake_pct);
        self.stall(stopping, speed_mps, throttle_want, dt);
        if self.stalled {
            throttle_want = 0.0;
            let hold = HOLD_MARGIN * a_grade.abs() * brake_per;
            brake_want = brake_want.max(hold).max(stop_brake_pct);
        }
        let l = &self.cfg.ulc;
        self.stop_hold = stopping && speed_mps.abs() < l.hold_speed_mps;
        let rate = self.cfg.brake.rate_pct_s.max(self.cfg.throttle.rate_pct_s);
        self.throttle_rates = (rate, rate);
        self.brake_rates = (rate, rate);
        (throttle_want, brake_want)
    }

    /// Counts the time the ULC stands at full throttle asked to move; past [`STALL_S`] it
    /// has stalled, until the command is a stop (issue 65: it stood at 100 % throttle
    /// against its own brake for ever, saying nothing).
    fn stall(&mut self, stopping: bool, speed_mps: f64, throttle_want: f64, dt: f64) {
        let fighting = !stopping
            && speed_mps.abs() < STALL_SPEED_MPS
            && throttle_want >= 100.0
            && self.throttle_est >= FULL_THROTTLE_PCT;
        self.stall_s = if fighting { self.stall_s + dt } else { 0.0 };
        if stopping {
            self.stalled = false;
        } else if self.stall_s >= STALL_S {
            self.stalled = true;
        }
    }

    /// Whether the ULC has given up a launch its drive cannot carry ([`STALL_S`]).
    pub fn ulc_stalled(&self) -> bool {
        self.stalled
    }

    /// Gear: a shift only at standstill, after the shift time.
    fn step_gear(&mut self, speed_mps: f64, dt: f64) {
        if self.gear_cmd != 0 && self.gear_cmd != self.gear {
            if speed_mps.abs() < self.cfg.gear.standstill_mps {
                self.shift_left_s -= dt;
                if self.shift_left_s <= 0.0 {
                    self.gear = self.gear_cmd;
                    self.shift_left_s = self.cfg.gear.shift_s;
                }
            } else {
                self.shift_left_s = self.cfg.gear.shift_s;
            }
        } else {
            self.shift_left_s = self.cfg.gear.shift_s;
        }
    }

    /// The road wheel angle, rad.
    pub fn road_wheel_rad(&self) -> f64 {
        self.steer_deg.to_radians() / self.cfg.steering.ratio
    }

    /// Whether `step` is a report step: the first physics step at or after each 0.02 s.
    pub fn is_report_step(step: u64) -> bool {
        step == 0 || (step * 50) / PHYSICS_HZ as u64 != ((step - 1) * 50) / PHYSICS_HZ as u64
    }

    /// The `dbw_report` of this instant, with the measured speed and acceleration.
    pub fn report(&self, step: u64, agent: &str, speed_mps: f64, accel_mps2: f64) -> DbwReport {
        let k = self.cfg.brake.bar_per_percent;
        let ulc_on = self.engaged(&self.ulc, step);
        DbwReport {
            kind: "dbw_report".into(),
            agent: agent.into(),
            t: step as f64 / PHYSICS_HZ as f64,
            steering_report: SteeringReport {
                steering_wheel_angle: self.steer_deg,
                cmd: self.steer_target_deg,
                cmd_type: if self.engaged(&self.steer, step) {
                    self.steer.cmd_type
                } else {
                    0
                },
                enabled: self.engaged(&self.steer, step),
                override_active: self.override_,
                timeout: self.timed_out(&self.steer, step),
            },
            throttle_report: ThrottleReport {
                percent_input: 0.0,
                percent_cmd: if ulc_on {
                    self.throttle_out
                } else {
                    self.throttle_target
                },
                percent_output: self.throttle_out,
                cmd_type: if ulc_on { 14 } else { self.throttle.cmd_type },
                enabled: ulc_on || self.engaged(&self.throttle, step),
                override_active: self.override_,
                timeout: self.timed_out(&self.throttle, step),
            },
            brake_report: BrakeReport {
                pressure_input: 0.0,
                pressure_cmd: if ulc_on { 0.0 } else { self.brake_target * k },
                pressure_output: self.brake_out * k,
                percent_cmd: if ulc_on { 0.0 } else { self.brake_target },
                percent_output: self.brake_out,
                cmd_type: if ulc_on { 1 } else { self.brake.cmd_type },
                enabled: ulc_on || self.engaged(&self.brake, step),
                override_active: self.override_,
                timeout: self.timed_out(&self.brake, step),
            },
            gear_report: GearReport {
                gear: self.gear,
                cmd: self.gear_cmd,
                driver: self.gear,
            },
            ulc_report: UlcReport {
                cmd_type: if ulc_on { self.ulc.cmd_type } else { 0 },
                // Off, the reference is the measured speed (vehicle-bridge.md's report
                // 0.4 s after the last command).
                vel_ref: if ulc_on { self.vel_ref } else { speed_mps },
                vel_meas: speed_mps,
                accel_ref: self.accel_ref,
                accel_meas: accel_mps2,
                enabled: ulc_on,
                timeout: self.timed_out(&self.ulc, step),
                stalled: self.stalled,
            },
            vehicle_velocity: VehicleVelocity {
                vehicle_velocity_brake: speed_mps,
                vehicle_velocity_propulsion: speed_mps,
                dir_src: 1,
            },
            system_report: SystemReport {
                enabled: self.enabled,
                override_: self.override_,
            },
            drive_mode: self.drive_mode.number(),
            road_wheel_rad: self.road_wheel_rad(),
            stop_hold: self.stop_hold,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::plant::dbw::commands::*;

    fn dbw() -> Dbw {
        let c = Config::builtin();
        Dbw::new(&c.control.dbw, c.control.vehicle.wheelbase_m)
    }

    fn line(s: &str) -> DbwCommands {
        serde_json::from_str(s).unwrap()
    }

    /// A first-order longitudinal plant for the ULC tests: throttle and brake make an
    /// acceleration through the inverse of the ULC's own map, less a coasting drag.
    fn plant(v: &mut f64, a: &Actuation, cfg: &DbwConfig) {
        let l = &cfg.ulc;
        let dt = 1.0 / PHYSICS_HZ as f64;
        let acc = a.throttle_pct / l.throttle_pct_per_mps2
            - a.brake_bar / cfg.brake.bar_per_percent / l.brake_pct_per_mps2
            - l.coast_decel_mps2 * v.signum();
        *v = (*v + acc * dt).max(0.0);
        if a.stop_hold {
            *v = 0.0;
        }
    }

    #[test]
    fn the_reference_example_steers_to_60_degrees_and_holds_2_mps() {
        // vehicle-bridge.md "ulc_cmd": ULC 2.0 m/s (limit_accel 1.0, limit_decel 1.5) and
        // steering 60° at 200°/s, at 50 Hz for 6 s.
        let cfg = Config::builtin().control.dbw;
        let mut d = dbw();
        d.apply(0, &line(r#"{"dbw": {"enable": true}}"#), 0.0);
        let cmd = line(
            r#"{"ulc_cmd": {"cmd": 2.0, "cmd_type": 1, "limit_accel": 1.0, "limit_decel": 1.5, "enable": true},
                "steering_cmd": {"cmd": 60.0, "cmd_type": 2, "cmd_rate": 200.0, "enable": true},
                "gear_cmd": {"cmd": 5}}"#,
        );
        let mut v = 0.0;
        let mut at_03 = 0.0;
        for step in 0..6 * PHYSICS_HZ as u64 {
            // Commands at 50 Hz: at the report steps.
            if Dbw::is_report_step(step) {
                d.apply(step, &cmd, v);
            }
            let a = d.step(step, v);
            plant(&mut v, &a, &cfg);
            if step == 36 {
                at_03 = d
                    .report(step, "polaris", v, 0.0)
                    .steering_report
                    .steering_wheel_angle;
            }
        }
        let r = d.report(6 * PHYSICS_HZ as u64, "polaris", v, 0.0);
        assert_eq!(r.steering_report.steering_wheel_angle, 60.0);
        assert!(
            (r.road_wheel_rad - 0.06918).abs() < 2e-5,
            "{}",
            r.road_wheel_rad
        );
        // At 200°/s the wheel needs 0.3 s for 60° plus the acceleration ramps: at 0.3 s it
        // is on its way.
        assert!(at_03 > 30.0 && at_03 < 60.0, "{at_03}");
        assert!(
            (r.ulc_report.vel_meas - 2.0).abs() < 0.2,
            "{}",
            r.ulc_report.vel_meas
        );
        assert_eq!(r.ulc_report.vel_ref, 2.0);
        assert_eq!(r.gear_report.gear, 5);
        assert!(r.ulc_report.enabled && !r.ulc_report.timeout);
    }

    #[test]
    fn subsystems_time_out_after_a_tenth_and_report_it_until_one_second() {
        let mut d = dbw();
        d.apply(0, &line(r#"{"dbw": {"enable": true}, "steering_cmd": {"cmd": 30, "cmd_type": 2, "enable": true}}"#), 0.0);
        for s in 0..12 {
            d.step(s, 0.0);
        }
        let r = d.report(11, "p", 0.0, 0.0);
        assert!(r.steering_report.enabled && !r.steering_report.timeout);
        let r = d.report(12, "p", 0.0, 0.0);
        assert!(!r.steering_report.enabled && r.steering_report.timeout);
        let r = d.report(119, "p", 0.0, 0.0);
        assert!(r.steering_report.timeout);
        let r = d.report(120, "p", 0.0, 0.0);
        assert!(!r.steering_report.timeout);
        // A disengaged actuator holds its angle.
        let before = d.road_wheel_rad();
        d.step(200, 0.0);
        assert_eq!(d.road_wheel_rad(), before);
    }

    #[test]
    fn gear_needs_the_system_and_standstill_and_takes_time() {
        let mut d = dbw();
        d.apply(0, &line(r#"{"gear_cmd": {"cmd": 4}}"#), 0.0);
        for s in 0..240 {
            d.step(s, 0.0);
        }
        assert_eq!(
            d.report(240, "p", 0.0, 0.0).gear_report.gear,
            1,
            "disabled: no shift"
        );
        d.apply(
            240,
            &line(r#"{"dbw": {"enable": true}, "gear_cmd": {"cmd": {"value": 4}}}"#),
            0.0,
        );
        let shift = (Config::builtin().control.dbw.gear.shift_s * PHYSICS_HZ as f64) as u64;
        for s in 240..240 + shift - 2 {
            d.step(s, 0.0);
        }
        assert_eq!(
            d.report(0, "p", 0.0, 0.0).gear_report.gear,
            1,
            "still shifting"
        );
        for s in 240 + shift - 2..240 + shift + 2 {
            d.step(s, 0.0);
        }
        assert_eq!(d.report(0, "p", 0.0, 0.0).gear_report.gear, 4);
        // Moving: no shift to reverse.
        d.apply(400, &line(r#"{"gear_cmd": {"cmd": 2}}"#), 1.0);
        for s in 400..700 {
            d.step(s, 1.0);
        }
        assert_eq!(d.report(0, "p", 1.0, 0.0).gear_report.gear, 4);
    }

    #[test]
    fn commanded_stop_brakes_at_least_the_stop_brake_and_holds() {
        let cfg = Config::builtin().control.dbw;
        let mut d = dbw();
        d.apply(0, &line(r#"{"dbw": {"enable": true}}"#), 3.0);
        let stop = line(r#"{"ulc_cmd": {"cmd": 0.0, "cmd_type": 1, "enable": true}}"#);
        let mut v = 3.0;
        let mut stood = None;
        for step in 0..10 * PHYSICS_HZ as u64 {
            if step % 3 == 0 {
                d.apply(step, &stop, v);
            }
            let a = d.step(step, v);
            plant(&mut v, &a, &cfg);
            if v == 0.0 && stood.is_none() {
                stood = Some(step);
            }
        }
        let r = d.report(1200, "p", v, 0.0);
        assert!(r.stop_hold);
        assert!(r.brake_report.percent_output >= cfg.ulc.stop_brake_pct);
        let t = stood.unwrap() as f64 / PHYSICS_HZ as f64;
        // 3 m/s at the 1.5 m/s² limit is 2 s, plus the jerk ramp.
        assert!(t < 3.7, "at rest after {t} s");
    }

    #[test]
    fn unmodelled_types_are_rejected() {
        let mut d = dbw();
        let r = d.apply(0, &line(r#"{"steering_cmd": {"cmd": 1, "cmd_type": 1}, "brake_cmd": {"cmd": 1, "cmd_type": 5}}"#), 0.0);
        let names: Vec<String> = r.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            names,
            [
                "steering_cmd cmd_type 1 (not modelled)",
                "brake_cmd cmd_type 5 (not modelled)"
            ]
        );
    }

    #[test]
    fn report_steps_are_50_hz_of_120_hz_physics() {
        let n = (0..1200u64).filter(|&s| Dbw::is_report_step(s)).count();
        assert_eq!(n, 500);
    }
}
