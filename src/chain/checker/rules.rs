//! The rules of the trajectory checker (vehicle-software.md "Trajectory Checker"), in the
//! order of the reference's table. The first rule that fails gives the reason, the first
//! failing sample index, the value that broke the limit and the limit. Each rule's exact
//! definition is in the man page of `acres check` (and in [`Reason::definition`]).

use super::chunk::{Chunk, MAX_SAMPLES, STEP_RANGE_M, Sample, StartState, convert};
use super::margins::{Margins, Rule, Tally};
use crate::chain::envelope::{ClassLimits, ClassTable, Grip};
use crate::chain::path::Path;
use crate::chain::shield::sweep::half_width;
use crate::config::{Config, ShieldConfig, TrajectoryLimits, VehicleGeometry};
use crate::ground::corridor::Corridor;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The reason of a refusal, in the order the rules run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    Malformed,
    Step,
    Speed,
    Direction,
    Start,
    Stop,
    Acceleration,
    Deceleration,
    Curvature,
    CurvatureRate,
    SteeringRate,
    StartCurvature,
    LateralAcceleration,
    Obstacle,
    Point,
    Corridor,
    /// With `--strict`: a chunk the rules that ran would accept, but some rule could not
    /// run for lack of its input (no scan, no corridor).
    Unchecked,
}

impl Reason {
    /// Every reason, in the order the rules run.
    pub const ALL: [Reason; 17] = [
        Reason::Malformed,
        Reason::Step,
        Reason::Speed,
        Reason::Direction,
        Reason::Start,
        Reason::Stop,
        Reason::Acceleration,
        Reason::Deceleration,
        Reason::Curvature,
        Reason::CurvatureRate,
        Reason::SteeringRate,
        Reason::StartCurvature,
        Reason::LateralAcceleration,
        Reason::Obstacle,
        Reason::Point,
        Reason::Corridor,
        Reason::Unchecked,
    ];

    /// The stable code of the reason.
    pub fn code(self) -> &'static str {
        match self {
            Reason::Malformed => "malformed",
            Reason::Step => "step",
            Reason::Speed => "speed",
            Reason::Direction => "direction",
            Reason::Start => "start",
            Reason::Stop => "stop",
            Reason::Acceleration => "acceleration",
            Reason::Deceleration => "deceleration",
            Reason::Curvature => "curvature",
            Reason::CurvatureRate => "curvature_rate",
            Reason::SteeringRate => "steering_rate",
            Reason::StartCurvature => "start_curvature",
            Reason::LateralAcceleration => "lateral_acceleration",
            Reason::Obstacle => "obstacle",
            Reason::Point => "point",
            Reason::Corridor => "corridor",
            Reason::Unchecked => "unchecked",
        }
    }

    /// The exact definition of the rule, as in the man page of `acres check`.
    pub fn definition(self) -> &'static str {
        match self {
            Reason::Malformed => {
                "the offsets and speeds have the same length n with 2 ≤ n ≤ 4096; every number is finite; speeds ≥ 0; 0.05 m ≤ station_step_m ≤ 5 m; every station lies on the route [0, length]; the route is known. The first index is the first bad sample (0 for the shape)."
            }
            Reason::Step => {
                "the path length between samples k and k+1, |p(k+1) − p(k)|, lies within [0.5, 1.5] × station_step_m."
            }
            Reason::Speed => {
                "v(k) ≤ the class speed command at the route point nearest sample k (the worst over the classes where it has none), and ≤ shield.speed_max_mps forward or |shield.speed_min_mps| in reverse."
            }
            Reason::Direction => {
                "every sample lies on a route segment whose direction is the chunk's (a chunk lies on the part of the route of its first station; a station at a cusp belongs to both sides): one direction of travel; a direction change needs separate chunks."
            }
            Reason::Start => {
                "sample 0 is the start state: |p(0) − start| ≤ limits.start_position_m; the vehicle yaw of sample 0 (the heading, + π in reverse) within limits.start_heading_deg of start.yaw_rad; |v(0) − start.speed_mps| ≤ limits.start_speed_mps."
            }
            Reason::Stop => {
                "the chunk ends with a possible stop: from every sample, v T + v²/(2a) ≤ the path length left to the last sample, with T and a of the class (the envelope's stop rule without the obstacle margin); thus the last speed is 0."
            }
            Reason::Acceleration => "(v(k+1)² − v(k)²) / (2 Δl(k)) ≤ limits.accel_max_mps2.",
            Reason::Deceleration => "(v(k)² − v(k+1)²) / (2 Δl(k)) ≤ limits.decel_max_mps2.",
            Reason::Curvature => "|κ(k)| ≤ shield.curvature_max_per_m.",
            Reason::CurvatureRate => "|κ(k+1) − κ(k)| / Δl(k) ≤ limits.curvature_rate_max_per_m2.",
            Reason::SteeringRate => {
                "|κ(k+1) − κ(k)| / Δt(k) ≤ limits.steering_rate_max_per_m_s, with Δt(k) = Δl(k) / ((v(k) + v(k+1)) / 2)."
            }
            Reason::StartCurvature => {
                "the steering curvature of sample 0 (κ(0), − κ(0) in reverse) is within limits.steering_rate_max_per_m_s × Δt(0) of start.curvature_per_m."
            }
            Reason::LateralAcceleration => "v(k)² |κ(k)| ≤ the class lateral limit at sample k.",
            Reason::Obstacle => {
                "with a scan (ranges in the body frame of the start state): the centre line is the chunk's polyline, extended past the last sample along the final heading (and before the first along the first heading); for every sample k, including samples at rest, the first return within w(v(k)) of the centre line, measured along it from the leading end of the footprint (the front, or the rear in reverse), is at least d_stop(v(k)) = d_m + v T + v²/(2a) away. A return beside the body (between its trailing and leading ends) leaves 0, so a final footprint that overlaps a return is refused; returns behind the body are ignored. Value: the free distance; limit: d_stop(v(k))."
            }
            Reason::Point => {
                "with a corridor: every sample's reference point has a corridor clearance d(p(k)) ≥ limits.follower_error_m, the side margin of the follower on narrow lanes."
            }
            Reason::Corridor => {
                "with a corridor: the footprint cover of every sample, 3 circles along the body (length vehicle.length_m, half width shield.vehicle_margin_m) of radius r = √((length/6)² + m_v²), has d(c) ≥ r for every circle centre c. Value: d(c); limit: r."
            }
            Reason::Unchecked => {
                "with --strict (strict=True in Python): the chunk passes every rule that ran, but the obstacle rule had no scan or the point and corridor rules had no corridor. Without --strict such a chunk is accepted and its record lists the rules in `unchecked`."
            }
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// The verdict of one chunk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    pub accepted: bool,
    pub reason: Option<Reason>,
    pub first_index: Option<usize>,
    /// The value that broke the limit.
    pub value: Option<f64>,
    /// The limit it broke.
    pub limit: Option<f64>,
    /// What is wrong, in words, where the numbers alone do not say it (a malformed chunk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl CheckResult {
    pub(super) fn ok() -> CheckResult {
        CheckResult {
            accepted: true,
            reason: None,
            first_index: None,
            value: None,
            limit: None,
            note: None,
        }
    }

    /// A refusal.
    pub fn refused(reason: Reason, index: usize, value: f64, limit: f64) -> CheckResult {
        CheckResult {
            accepted: false,
            reason: Some(reason),
            first_index: Some(index),
            value: Some(value),
            limit: Some(limit),
            note: None,
        }
    }

    /// A `malformed` refusal at sample `index` that says why.
    pub fn malformed(index: usize, note: impl Into<String>) -> CheckResult {
        CheckResult {
            note: Some(note.into()),
            value: None,
            limit: None,
            ..CheckResult::refused(Reason::Malformed, index, f64::NAN, f64::NAN)
        }
    }

    /// Why the chunk was refused, in words (empty when it was accepted): the note, or the
    /// rule, the sample, the value and the limit.
    pub fn why(&self) -> String {
        if let Some(n) = &self.note {
            return n.clone();
        }
        let (Some(r), Some(k)) = (self.reason, self.first_index) else {
            return String::new();
        };
        let num = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.4}"));
        let lower_bound = matches!(r, Reason::Obstacle | Reason::Point | Reason::Corridor);
        let cmp = if lower_bound { "below" } else { "beyond" };
        format!(
            "{r} at sample {k}: {} {cmp} the limit {}",
            num(self.value),
            num(self.limit)
        )
    }
}

/// The rules a check could not run for lack of their input: the obstacle rule without a
/// scan, the point and corridor rules without a corridor. A check that skipped a rule
/// claims nothing about it, so every verdict carries this and `--strict` refuses on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Unchecked {
    /// No scan: the obstacle rule did not run.
    pub no_scan: bool,
    /// No corridor: the point and corridor rules did not run.
    pub no_corridor: bool,
}

impl Unchecked {
    /// What a check lacks, from whether it had a scan and a corridor.
    pub fn of(scan: bool, corridor: bool) -> Unchecked {
        Unchecked {
            no_scan: !scan,
            no_corridor: !corridor,
        }
    }

    /// Whether every rule ran.
    pub fn is_empty(self) -> bool {
        !self.no_scan && !self.no_corridor
    }

    /// The rules that did not run, in the order the rules run.
    pub fn rules(self) -> &'static [Reason] {
        match (self.no_scan, self.no_corridor) {
            (false, false) => &[],
            (true, false) => &[Reason::Obstacle],
            (false, true) => &[Reason::Point, Reason::Corridor],
            (true, true) => &[Reason::Obstacle, Reason::Point, Reason::Corridor],
        }
    }

    /// The codes of the rules that did not run.
    pub fn codes(self) -> Vec<&'static str> {
        self.rules().iter().map(|r| r.code()).collect()
    }

    /// The rules and why, in words: "obstacle, point and corridor rules not run: no scan,
    /// no corridor"; empty when every rule ran.
    pub fn words(self) -> String {
        let codes = self.codes();
        let list = match codes.as_slice() {
            [] => return String::new(),
            [one] => format!("{one} rule"),
            [init @ .., last] => format!("{} and {last} rules", init.join(", ")),
        };
        let mut why = Vec::new();
        if self.no_scan {
            why.push("no scan");
        }
        if self.no_corridor {
            why.push("no corridor");
        }
        format!("{list} not run: {}", why.join(", "))
    }

    /// The verdict under `--strict`: a chunk the rules that ran accept is refused with
    /// reason `unchecked` where some rule did not run; any other verdict stands.
    pub fn strict(self, result: CheckResult) -> CheckResult {
        if !result.accepted || self.is_empty() {
            return result;
        }
        CheckResult {
            accepted: false,
            reason: Some(Reason::Unchecked),
            note: Some(format!("{} (--strict)", self.words())),
            ..result
        }
    }
}

/// Scan returns in the world frame, for the obstacle rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorldReturns(pub Vec<(f64, f64)>);

/// The trajectory checker with its limits.
#[derive(Debug, Clone)]
pub struct TrajectoryChecker {
    limits: TrajectoryLimits,
    shield: ShieldConfig,
    narrow: (f64, f64),
    vehicle: VehicleGeometry,
    classes: ClassTable,
    unknown: ClassLimits,
    stop_time_s: f64,
    corridor: Option<Arc<Corridor>>,
    /// Cover circles: offset along the body x axis from the reference point, radius.
    cover: [(f64, f64); 3],
}

impl TrajectoryChecker {
    /// A checker with the configuration at a grip level; `None` where the envelope has no
    /// table for it.
    pub fn new(config: &Config, grip: Grip) -> Option<TrajectoryChecker> {
        let table = config.envelope.table(grip)?.clone();
        let v = config.control.vehicle.clone();
        let mv = config.control.shield.vehicle_margin_m;
        let piece = v.length_m / 3.0;
        let r = ((piece / 2.0).powi(2) + mv * mv).sqrt();
        let cover = [0, 1, 2].map(|j| (-v.rear_overhang_m + piece * (j as f64 + 0.5), r));
        Some(TrajectoryChecker {
            limits: config.trajectory.limits.clone(),
            shield: config.control.shield.clone(),
            narrow: (
                config.control.corridor.narrow_time_s,
                config.control.corridor.narrow_floor_m,
            ),
            vehicle: v,
            unknown: table.unknown_class(),
            classes: table,
            stop_time_s: config.envelope.stop_time_s(),
            corridor: None,
            cover,
        })
    }

    /// The cover circles of the footprint: each centre's offset along the body x axis
    /// from the reference point, and the radius.
    pub fn cover(&self) -> [(f64, f64); 3] {
        self.cover
    }

    /// The corridor of the point and corridor rules, where one is set.
    pub fn corridor(&self) -> Option<&Corridor> {
        self.corridor.as_deref()
    }

    /// Adds the corridor of the point and corridor rules.
    pub fn with_corridor(mut self, corridor: Arc<Corridor>) -> TrajectoryChecker {
        self.corridor = Some(corridor);
        self
    }

    fn class(&self, route: &Path, s: &Sample) -> &ClassLimits {
        match route.class(s.route_point) {
            Some(c) => self.classes.get(c),
            None => &self.unknown,
        }
    }

    /// The verdict of a chunk on its route, with scan returns where there is a scan.
    /// `samples` is a reusable buffer. The rules run in the reference's order; the first
    /// that fails gives the verdict.
    pub fn check(
        &self,
        chunk: &Chunk,
        route: &Path,
        returns: Option<&WorldReturns>,
        samples: &mut Vec<Sample>,
    ) -> CheckResult {
        let mut t = Tally::verdict();
        let ended = self.run_rules(chunk, route, returns, samples, &mut t);
        t.finish(ended).0
    }

    /// [`TrajectoryChecker::check`], and each rule's smallest margin over the samples
    /// (none for a chunk that is malformed).
    pub fn check_with_margins(
        &self,
        chunk: &Chunk,
        route: &Path,
        returns: Option<&WorldReturns>,
        samples: &mut Vec<Sample>,
    ) -> (CheckResult, Margins) {
        let mut t = Tally::with_margins();
        let ended = self.run_rules(chunk, route, returns, samples, &mut t);
        let (r, m) = t.finish(ended);
        (r, m.unwrap_or_default())
    }

    /// Every rule in order, each reporting to `t`; `Err` ends the check.
    fn run_rules(
        &self,
        chunk: &Chunk,
        route: &Path,
        returns: Option<&WorldReturns>,
        samples: &mut Vec<Sample>,
        t: &mut Tally,
    ) -> Rule {
        malformed(chunk, route)?;
        convert(chunk, route, samples);
        let sm = &samples[..];
        let sign = chunk.direction.sign();
        step_rule(sm, chunk.station_step_m, t)?;
        self.speed_rule(route, sm, sign, t)?;
        direction_rule(chunk, route, sm, t)?;
        self.start_rule(&chunk.start, sm, sign, t)?;
        self.stop_rule(route, sm, t)?;
        self.speed_change_rules(sm, t)?;
        self.curvature_rules(sm, t)?;
        self.start_curvature_rule(&chunk.start, sm, sign, t)?;
        self.lateral_rule(route, sm, t)?;
        if let Some(ret) = returns {
            self.obstacle(route, sm, ret, sign, t)?;
        }
        if let Some(c) = &self.corridor {
            self.corridor_rules(c, sm, sign, t)?;
        }
        Ok(())
    }

    /// speed: v(k) ≤ the class speed command at its route point, and ≤ the shield's speed
    /// limit in the chunk's direction.
    fn speed_rule(&self, route: &Path, sm: &[Sample], sign: f64, t: &mut Tally) -> Rule {
        let vmax_dir = if sign > 0.0 {
            self.shield.speed_max_mps
        } else {
            -self.shield.speed_min_mps
        };
        for (k, s) in sm.iter().enumerate() {
            let lim = self.class(route, s).speed_command_mps.min(vmax_dir);
            t.upper(Reason::Speed, "speed", k, s.speed_mps, lim)?;
        }
        Ok(())
    }

    /// start: sample 0 is the start state in position, heading and speed.
    fn start_rule(&self, st: &StartState, sm: &[Sample], sign: f64, t: &mut Tally) -> Rule {
        let l = &self.limits;
        let s0 = &sm[0];
        let dp = ((s0.x_m - st.x_m).powi(2) + (s0.y_m - st.y_m).powi(2)).sqrt();
        t.upper(Reason::Start, "start_position", 0, dp, l.start_position_m)?;
        let dh = wrap(vehicle_yaw(s0, sign) - st.yaw_rad).abs().to_degrees();
        t.upper(Reason::Start, "start_heading", 0, dh, l.start_heading_deg)?;
        let dv = (s0.speed_mps - st.speed_mps).abs();
        t.upper(Reason::Start, "start_speed", 0, dv, l.start_speed_mps)?;
        Ok(())
    }

    /// The stop length of a sample without the obstacle margin: v T + v²/(2a), with T and
    /// a of the class at its route point.
    fn stop_length(&self, route: &Path, s: &Sample) -> f64 {
        let c = self.class(route, s);
        let v = s.speed_mps;
        v * self.stop_time_s + v * v / (2.0 * c.decel_mps2)
    }

    /// stop: from every sample, the stop length fits in the path length left to the last
    /// sample. The rest is summed from the end (exactly 0 at the last sample), and the
    /// first failing sample is reported.
    fn stop_rule(&self, route: &Path, sm: &[Sample], t: &mut Tally) -> Rule {
        let n = sm.len();
        let mut rest = 0.0;
        for k in (0..n).rev() {
            if k + 1 < n {
                rest += sm[k].length_m;
            }
            let need = self.stop_length(route, &sm[k]);
            t.record(Reason::Stop, "stop", k, need, rest, rest - need);
        }
        t.settle()
    }

    /// acceleration and deceleration: (v(k+1)² − v(k)²) / (2 Δl(k)) within the limits.
    fn speed_change_rules(&self, sm: &[Sample], t: &mut Tally) -> Rule {
        let l = &self.limits;
        for (k, w) in sm.windows(2).enumerate() {
            let a = (w[1].speed_mps.powi(2) - w[0].speed_mps.powi(2)) / (2.0 * w[0].length_m);
            t.upper(Reason::Acceleration, "acceleration", k, a, l.accel_max_mps2)?;
        }
        for (k, w) in sm.windows(2).enumerate() {
            let a = (w[0].speed_mps.powi(2) - w[1].speed_mps.powi(2)) / (2.0 * w[0].length_m);
            t.upper(Reason::Deceleration, "deceleration", k, a, l.decel_max_mps2)?;
        }
        Ok(())
    }

    /// curvature, curvature_rate and steering_rate: |κ|, |Δκ|/Δl and |Δκ|/Δt.
    fn curvature_rules(&self, sm: &[Sample], t: &mut Tally) -> Rule {
        let l = &self.limits;
        let kmax = self.shield.curvature_max_per_m;
        for (k, s) in sm.iter().enumerate() {
            t.upper(
                Reason::Curvature,
                "curvature",
                k,
                s.curvature_per_m.abs(),
                kmax,
            )?;
        }
        for (k, w) in sm.windows(2).enumerate() {
            let r = (w[1].curvature_per_m - w[0].curvature_per_m).abs() / w[0].length_m;
            t.upper(
                Reason::CurvatureRate,
                "curvature_rate",
                k,
                r,
                l.curvature_rate_max_per_m2,
            )?;
        }
        for (k, w) in sm.windows(2).enumerate() {
            let dk = (w[1].curvature_per_m - w[0].curvature_per_m).abs();
            let r = if w[0].time_s.is_infinite() {
                0.0
            } else {
                dk / w[0].time_s
            };
            t.upper(
                Reason::SteeringRate,
                "steering_rate",
                k,
                r,
                l.steering_rate_max_per_m_s,
            )?;
        }
        Ok(())
    }

    /// start_curvature: the steering curvature of sample 0 is reachable from the start's
    /// curvature at the steering rate within the first sample's time.
    fn start_curvature_rule(
        &self,
        st: &StartState,
        sm: &[Sample],
        sign: f64,
        t: &mut Tally,
    ) -> Rule {
        let steer0 = sm[0].curvature_per_m * sign;
        let dk = (steer0 - st.curvature_per_m).abs();
        let allowed = self.limits.steering_rate_max_per_m_s * sm[0].time_s;
        t.upper(Reason::StartCurvature, "start_curvature", 0, dk, allowed)?;
        Ok(())
    }

    /// lateral_acceleration: v² |κ| ≤ the class lateral limit.
    fn lateral_rule(&self, route: &Path, sm: &[Sample], t: &mut Tally) -> Rule {
        for (k, s) in sm.iter().enumerate() {
            let a = s.speed_mps * s.speed_mps * s.curvature_per_m.abs();
            let lim = self.class(route, s).lateral_accel_max_mps2;
            t.upper(
                Reason::LateralAcceleration,
                "lateral_acceleration",
                k,
                a,
                lim,
            )?;
        }
        Ok(())
    }

    /// point and corridor: the reference point's clearance is at least the follower error,
    /// and every cover circle of the footprint lies inside the corridor.
    fn corridor_rules(&self, c: &Corridor, sm: &[Sample], sign: f64, t: &mut Tally) -> Rule {
        let l = &self.limits;
        // Without margins a bound that is reached needs no exact value: `reaches` gives the
        // query's answer, mostly with one cell; the exact value is taken where it fails.
        let exact = t.wants_margins();
        let bound = |x: f64, y: f64, limit: f64| {
            if !exact && c.reaches(x, y, limit) {
                None
            } else {
                Some(c.query(x, y))
            }
        };
        for (k, s) in sm.iter().enumerate() {
            if let Some(d) = bound(s.x_m, s.y_m, l.follower_error_m) {
                t.lower(Reason::Point, "point", k, d, l.follower_error_m)?;
            }
        }
        for (k, s) in sm.iter().enumerate() {
            // The body's direction: the heading of travel, turned half a turn in reverse.
            let (cy, sy) = (s.heading.0 * sign, s.heading.1 * sign);
            for &(off, r) in &self.cover {
                if let Some(d) = bound(s.x_m + cy * off, s.y_m + sy * off, r) {
                    t.lower(Reason::Corridor, "corridor", k, d, r)?;
                }
            }
        }
        Ok(())
    }

    /// obstacle: from every sample, the free distance along the chunk's centre line (the
    /// polyline of the samples, extended past the last sample along the final heading and
    /// before the first along the first heading) to the first return within the swept half
    /// width `w(v_k)`, measured from the leading end of the footprint, must hold
    /// `d_stop(v_k)`; a sample at rest still needs `d_m`. A return beside the body (between
    /// its trailing and leading ends) leaves no free distance; returns behind it are
    /// ignored.
    fn obstacle(
        &self,
        route: &Path,
        sm: &[Sample],
        ret: &WorldReturns,
        sign: f64,
        t: &mut Tally,
    ) -> Rule {
        let s = &self.shield;
        let band = |v: f64| {
            half_width(
                v,
                s.vehicle_margin_m,
                s.geofence_margin_m,
                s.obstacle_extra_m,
                self.narrow.0,
                self.narrow.1,
            )
        };
        let hits = centre_line_hits(sm, ret, band(s.speed_max_mps));
        let (front, rear) = (self.vehicle.front_m(), self.vehicle.rear_overhang_m);
        let (lead, trail) = if sign < 0.0 {
            (rear, front)
        } else {
            (front, rear)
        };
        let mut along = 0.0;
        for (k, smp) in sm.iter().enumerate() {
            let v = smp.speed_mps;
            let w = band(v);
            let free = hits
                .iter()
                .filter(|(st, d)| *d <= w && *st >= along - trail)
                .map(|(st, _)| (st - along - lead).max(0.0))
                .fold(f64::INFINITY, f64::min);
            let c = self.class(route, smp);
            let need = c.obstacle_margin_m + v * self.stop_time_s + v * v / (2.0 * c.decel_mps2);
            t.lower(Reason::Obstacle, "obstacle", k, free, need)?;
            along += smp.length_m;
        }
        Ok(())
    }
}

/// The vehicle's yaw at a sample: the path heading, turned half a turn in reverse.
fn vehicle_yaw(s: &Sample, sign: f64) -> f64 {
    s.heading_rad()
        + if sign < 0.0 {
            std::f64::consts::PI
        } else {
            0.0
        }
}

/// malformed: the shape, finite values, the sample count, the station step and stations
/// on the route; the note says which.
fn malformed(chunk: &Chunk, route: &Path) -> Rule {
    let n = chunk.offsets_m.len();
    if chunk.speeds_mps.len() != n {
        let m = chunk.speeds_mps.len();
        return Err(CheckResult::malformed(
            0,
            format!("speeds_mps has {m} samples, offsets_m {n}"),
        ));
    }
    if !(2..=MAX_SAMPLES).contains(&n) {
        return Err(CheckResult::malformed(
            0,
            format!("{n} samples: a chunk has 2 to {MAX_SAMPLES}"),
        ));
    }
    let step = chunk.station_step_m;
    if !(step >= STEP_RANGE_M.0 && step <= STEP_RANGE_M.1) {
        return Err(CheckResult::malformed(
            0,
            format!(
                "station_step_m {step:?} is outside [{}, {}] m",
                STEP_RANGE_M.0, STEP_RANGE_M.1
            ),
        ));
    }
    let st = &chunk.start;
    for (key, v) in [
        ("start_station_m", chunk.start_station_m),
        ("start.x_m", st.x_m),
        ("start.y_m", st.y_m),
        ("start.yaw_rad", st.yaw_rad),
        ("start.speed_mps", st.speed_mps),
        ("start.curvature_per_m", st.curvature_per_m),
    ] {
        if !v.is_finite() {
            return Err(CheckResult::malformed(
                0,
                format!("{key} is not a finite number"),
            ));
        }
    }
    for k in 0..n {
        let (e, v) = (chunk.offsets_m[k], chunk.speeds_mps[k]);
        let s = chunk.start_station_m + k as f64 * step;
        let bad = |key: &str, what: &str| CheckResult::malformed(k, format!("{key}[{k}] {what}"));
        if !e.is_finite() {
            return Err(bad("offsets_m", "is not a finite number"));
        }
        if !v.is_finite() {
            return Err(bad("speeds_mps", "is not a finite number"));
        }
        if v < 0.0 {
            return Err(bad("speeds_mps", &format!("is negative ({v})")));
        }
        if s < 0.0 || s > route.length_m() {
            return Err(CheckResult::malformed(
                k,
                format!(
                    "sample {k} at station {s} m is off the route `{}` (0 to {} m)",
                    route.name(),
                    route.length_m()
                ),
            ));
        }
    }
    Ok(())
}

/// step: the path length between samples lies within [0.5, 1.5] × the station step.
fn step_rule(sm: &[Sample], step: f64, t: &mut Tally) -> Rule {
    for (k, s) in sm[..sm.len() - 1].iter().enumerate() {
        t.within(Reason::Step, "step", k, s.length_m, 0.5 * step, 1.5 * step)?;
    }
    Ok(())
}

/// direction: every sample lies on a segment of the route whose direction is the chunk's
/// (a station at a cusp belongs to both sides); a direction change needs separate chunks.
fn direction_rule(chunk: &Chunk, route: &Path, sm: &[Sample], t: &mut Tally) -> Rule {
    let sign = chunk.direction.sign();
    for (k, s) in sm.iter().enumerate() {
        let seg = s.segment;
        let inside = s.station_m >= route.station(seg) - STATION_EPS_M
            && s.station_m <= route.station(seg + 1) + STATION_EPS_M;
        // Beyond the segment, the route's own direction there decides.
        let dir = if inside {
            route.direction(seg)
        } else {
            let all = 0..route.len() - 1;
            route.direction(route.segment_at(&all, s.station_m))
        };
        if dir != chunk.direction {
            t.fail(Reason::Direction, k, -sign, sign)?;
        }
    }
    Ok(())
}

/// Each return within `wmax` of the chunk's centre line: its station along the line (0 at
/// the first sample, negative behind it) and its distance from the line. The line is the
/// polyline of the samples with its first and last segments extended to rays.
fn centre_line_hits(sm: &[Sample], ret: &WorldReturns, wmax: f64) -> Vec<(f64, f64)> {
    let n = sm.len();
    let mut hits = Vec::new();
    for &(x, y) in &ret.0 {
        let mut best: Option<(f64, f64)> = None;
        let mut along = 0.0;
        for k in 0..n - 1 {
            let (a, b) = (&sm[k], &sm[k + 1]);
            let (ex, ey) = (b.x_m - a.x_m, b.y_m - a.y_m);
            let len2 = ex * ex + ey * ey;
            let mut t = ((x - a.x_m) * ex + (y - a.y_m) * ey) / len2;
            let lo = if k == 0 { f64::NEG_INFINITY } else { 0.0 };
            let hi = if k == n - 2 { f64::INFINITY } else { 1.0 };
            t = t.clamp(lo, hi);
            let d = (x - a.x_m - ex * t).hypot(y - a.y_m - ey * t);
            if d <= wmax && best.is_none_or(|(_, bd)| d < bd) {
                best = Some((along + t * a.length_m, d));
            }
            along += a.length_m;
        }
        hits.extend(best);
    }
    hits
}

/// The tolerance of a station at a segment's end, m.
const STATION_EPS_M: f64 = 1e-9;

/// An angle wrapped to (−π, π].
fn wrap(a: f64) -> f64 {
    let t = std::f64::consts::TAU;
    let r = a.rem_euclid(t);
    if r > std::f64::consts::PI { r - t } else { r }
}
