//! Replay (ARCHITECTURE.md: `acres replay`): recorded control steps through the chain
//! (the default driver and the shield) again, one command row per recorded step, with
//! the shield's interventions, the difference from the logged command and the rules the
//! logged command broke. Streaming: one record at a time, in constant memory.
//!
//! The logs are read in [`crate::formats::log`].

use crate::chain::envelope::Grip;
use crate::chain::path::Path;
use crate::chain::scan::Scan;
use crate::chain::shield::{Command, Intervention, Rule, Shield};
use crate::chain::{Chain, ChainError, ChainInput, CommandRow};
use crate::config::Config;
use crate::formats::log::{LoggedCommand, Record};
use serde::Serialize;
use std::collections::BTreeMap;

/// The replayed row of one step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayRow {
    pub step: u64,
    pub t: f64,
    /// The measured speed of the record, m/s.
    pub vehicle_speed_mps: f64,
    /// The replayed command row.
    pub row: CommandRow,
    /// The command of the log, where it has one.
    pub logged: Option<LoggedCommand>,
    /// Replayed minus logged speed and curvature (0 where the log has no command).
    pub d_speed_mps: f64,
    pub d_curvature_per_m: f64,
    /// The interventions the shield makes to the logged command: the rules it broke.
    pub logged_breaks: Vec<Intervention>,
    /// Whether the pose jumped here (the vehicle was found on the path anew).
    pub relocated: bool,
    /// Whether the record had no scan: the obstacle rule saw nothing and is not judged.
    pub scan_missing: bool,
    /// Whether the record's `t` is not after the last record's (duplicated or backward):
    /// the step then takes one control period.
    pub time_fault: bool,
}

impl ReplayRow {
    /// The lowest speed an intervention allowed (the shield's cap), where one acted.
    pub fn cap_mps(&self) -> Option<f64> {
        self.row
            .interventions
            .iter()
            .filter(|i| i.rule != Rule::ActuatorCurvature)
            .map(|i| i.after.abs())
            .reduce(f64::min)
    }

    /// Whether the replayed command differs from the logged one.
    pub fn mismatch(&self) -> bool {
        self.logged.is_some() && (self.d_speed_mps != 0.0 || self.d_curvature_per_m != 0.0)
    }

    /// A difference a missing scan can explain: the logged speed below the replayed one at
    /// a step without a scan (the logged obstacle rule may have seen what the log lacks).
    pub fn unjudged(&self) -> bool {
        self.scan_missing && self.mismatch() && self.d_speed_mps > 0.0
    }
}

/// A pose that moves further than its speed explains by more than this, m, is a jump.
pub const JUMP_M: f64 = 2.0;

/// The chain of one replay.
#[derive(Debug)]
pub struct Replayer {
    chain: Chain,
    beams: usize,
    ranges: Vec<f64>,
    /// The last record's time, pose and speed.
    prev: Option<(f64, crate::chain::shield::Pose, f64)>,
}

impl Replayer {
    /// A replay on `route` with the configuration, the shield's corner and obstacle rules
    /// switched as given (as in the scenario that was recorded).
    pub fn new(
        config: &Config,
        route: Path,
        corner_rule: bool,
        obstacle_rule: bool,
    ) -> Result<Replayer, ChainError> {
        let shield = Shield::new(config, Grip::Unknown)
            .ok_or(ChainError::NoGripTable(Grip::Unknown))?
            .with_rules(corner_rule, obstacle_rule);
        Ok(Replayer {
            chain: Chain::new(config, route, Grip::Unknown)?.with_shield(shield),
            beams: config.control.corridor.beams as usize,
            ranges: Vec::new(),
            prev: None,
        })
    }

    /// The distance from a pose to the route, m (to warn of a log far from its route).
    pub fn distance_to_route(&self, pose: crate::chain::shield::Pose) -> f64 {
        let path = self.chain.path();
        let here = geo::Coord {
            x: pose.x_m,
            y: pose.y_m,
        };
        path.parts()
            .iter()
            .map(|part| {
                let p = path.project(here, part, None);
                (p.point.x - here.x).hypot(p.point.y - here.y)
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// Whether the record's pose jumped from the last one: further than the larger of the
    /// two speeds covers in the time between them, by more than [`JUMP_M`].
    fn jumped(&self, rec: &Record) -> bool {
        let Some((t, p, v)) = self.prev else {
            return false;
        };
        let dt = (rec.t - t).abs();
        let moved = (rec.state.pose.x_m - p.x_m).hypot(rec.state.pose.y_m - p.y_m);
        moved > v.abs().max(rec.state.speed_mps.abs()) * dt + JUMP_M
    }

    /// Replays one record, whose numbers its reader has checked against the bounds of
    /// docs/formats.md "Bounds" ([`Record::check_bounds`]).
    pub fn step(&mut self, rec: &Record) -> Result<ReplayRow, String> {
        let relocated = self.jumped(rec);
        if relocated {
            self.chain.relocate(rec.state.pose);
        }
        let time_fault = self.prev.is_some_and(|p| rec.t <= p.0 || rec.t.is_nan());
        self.chain.set_time(rec.t);
        self.prev = Some((rec.t, rec.state.pose, rec.state.speed_mps));
        self.ranges.clear();
        match &rec.scan {
            Some(s) => self.ranges.extend_from_slice(s),
            None => self.ranges.resize(self.beams, f64::INFINITY),
        }
        let scan =
            Scan::new(std::mem::take(&mut self.ranges)).map_err(|e| format!("key `scan`: {e}"))?;
        let input = ChainInput {
            step: rec.step,
            state: rec.state,
            scan: &scan,
            proposal: None,
        };
        let (row, breaks) = match rec.logged {
            Some(l) => self.chain.step_judging(
                &input,
                Command {
                    curvature_per_m: l.curvature_per_m,
                    speed_mps: l.speed_mps,
                },
            ),
            None => self.chain.step(&input).map(|r| (r, Vec::new())),
        }
        .map_err(|e| e.to_string())?;
        self.ranges = scan.into_ranges();
        let (ds, dk) = match rec.logged {
            Some(l) => (
                row.speed_mps - l.speed_mps,
                row.curvature_per_m - l.curvature_per_m,
            ),
            None => (0.0, 0.0),
        };
        Ok(ReplayRow {
            step: rec.step,
            t: rec.t,
            vehicle_speed_mps: rec.state.speed_mps,
            row,
            logged: rec.logged,
            d_speed_mps: ds,
            d_curvature_per_m: dk,
            logged_breaks: breaks,
            relocated,
            scan_missing: rec.scan.is_none(),
            time_fault,
        })
    }
}

/// The summary of a replay.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Summary {
    pub steps: u64,
    /// Bad lines skipped (with `--skip-bad`).
    pub skipped: u64,
    /// Rule code → the number of steps it intervened.
    pub interventions: BTreeMap<String, u64>,
    /// The largest reduction of the requested speed by a shield intervention (the speed
    /// ramp and the launch hold are not the shield's), m/s, and its step.
    pub max_speed_reduction_mps: f64,
    pub max_speed_reduction_step: Option<u64>,
    /// Rule code → the steps where the logged command broke it (the first
    /// [`STEP_LIST_MAX`]; `logged_break_counts` has them all).
    pub logged_breaks: BTreeMap<String, Vec<u64>>,
    /// Rule code → the number of steps where the logged command broke it.
    pub logged_break_counts: BTreeMap<String, u64>,
    /// Whether every step list is whole (none was cut at [`STEP_LIST_MAX`]).
    pub step_lists_complete: bool,
    /// Steps whose replayed command differs from the logged one, and the first of them
    /// (the unjudged ones apart).
    pub mismatches: u64,
    pub first_mismatch_step: Option<u64>,
    /// Differences a missing scan can explain (the logged speed lower at a step without a
    /// scan): not counted as mismatches.
    pub unjudged: u64,
    /// Steps whose record had no scan: the obstacle rule saw nothing there.
    pub steps_without_scan: u64,
    /// Steps where the pose jumped and the vehicle was found on the path anew (the first
    /// [`STEP_LIST_MAX`]), and how many.
    pub relocations: u64,
    pub relocation_steps: Vec<u64>,
    /// Steps whose `t` is not after the last step's.
    pub time_faults: u64,
    /// For a bag: the messages of the topics read, and those no step took, by cause
    /// (absent for other logs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bag_messages: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_messages: Option<crate::formats::ros::bag::Dropped>,
}

/// The most steps a list of the summary holds.
pub const STEP_LIST_MAX: usize = 100;

impl Summary {
    /// Adds a replayed row.
    pub fn add(&mut self, r: &ReplayRow) {
        if self.steps == 0 {
            self.step_lists_complete = true;
        }
        self.steps += 1;
        for code in rule_codes(&r.row.interventions) {
            *self.interventions.entry(code).or_default() += 1;
        }
        if let Some(cap) = r.cap_mps() {
            let red = r.row.requested.speed_mps.abs() - cap;
            if red > self.max_speed_reduction_mps {
                self.max_speed_reduction_mps = red;
                self.max_speed_reduction_step = Some(r.step);
            }
        }
        for code in rule_codes(&r.logged_breaks) {
            *self.logged_break_counts.entry(code.clone()).or_default() += 1;
            let steps = self.logged_breaks.entry(code).or_default();
            self.step_lists_complete &= push_capped(steps, r.step);
        }
        self.steps_without_scan += r.scan_missing as u64;
        self.time_faults += r.time_fault as u64;
        if r.relocated {
            self.relocations += 1;
            self.step_lists_complete &= push_capped(&mut self.relocation_steps, r.step);
        }
        if r.unjudged() {
            self.unjudged += 1;
        } else if r.mismatch() {
            self.mismatches += 1;
            self.first_mismatch_step.get_or_insert(r.step);
        }
    }
}

/// Pushes a step onto a summary list while it is shorter than [`STEP_LIST_MAX`]; false
/// when the list was full.
fn push_capped(steps: &mut Vec<u64>, step: u64) -> bool {
    if steps.len() < STEP_LIST_MAX {
        steps.push(step);
        true
    } else {
        false
    }
}

/// One step where two replays differ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    pub step: u64,
    pub t: f64,
    /// The rules that intervened in each replay.
    pub rules_a: Vec<String>,
    pub rules_b: Vec<String>,
    pub speed_a_mps: f64,
    pub speed_b_mps: f64,
    pub curvature_a_per_m: f64,
    pub curvature_b_per_m: f64,
}

impl Difference {
    /// The difference of two rows of the same step, where they differ in speed,
    /// curvature, gear or brake hold.
    pub fn of(a: &ReplayRow, b: &ReplayRow) -> Option<Difference> {
        let (x, y) = (&a.row, &b.row);
        let same = x.speed_mps == y.speed_mps
            && x.curvature_per_m == y.curvature_per_m
            && x.gear == y.gear
            && x.brake_hold == y.brake_hold;
        (!same).then(|| Difference {
            step: a.step,
            t: a.t,
            rules_a: rules(x),
            rules_b: rules(y),
            speed_a_mps: x.speed_mps,
            speed_b_mps: y.speed_mps,
            curvature_a_per_m: x.curvature_per_m,
            curvature_b_per_m: y.curvature_per_m,
        })
    }
}

/// The rule codes of a row's interventions, each once, in the shield's order.
pub fn rules(row: &CommandRow) -> Vec<String> {
    rule_codes(&row.interventions)
}

/// The rule codes of interventions, each once, in their order.
pub fn rule_codes(interventions: &[Intervention]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in interventions {
        let c = i.rule.code();
        if !out.iter().any(|o| o == c) {
            out.push(c.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::log::read_records;
    use crate::formats::scenario::Scenario;
    use crate::jobs::sim;

    fn replay_all(config: &Config, log: &[u8], s: &Scenario) -> (Vec<ReplayRow>, Summary) {
        let mut r = Replayer::new(config, s.path(None).unwrap(), s.corner_rule, s.shield).unwrap();
        let mut rows = Vec::new();
        let mut sum = Summary::default();
        read_records("log", log, false, false, |_, rec| {
            let row = r.step(rec).unwrap();
            sum.add(&row);
            rows.push(row);
            Ok(())
        })
        .unwrap();
        (rows, sum)
    }

    fn record(name: &str, text: &str) -> (Scenario, Vec<u8>) {
        let s = Scenario::from_json_str(name, text).unwrap();
        let mut log = Vec::new();
        sim::run(
            &Config::builtin(),
            &s,
            s.path(None).unwrap(),
            Some(&mut log),
        )
        .unwrap();
        (s, log)
    }

    /// record == replay(record): the replayed rows are the logged rows, bit for bit.
    #[test]
    fn replaying_a_sim_log_reproduces_its_rows() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/scenarios/");
        for name in [
            "opening.json",
            "opening_no_shield_collides.json",
            "lane_downhill_wet.json",
        ] {
            let text = std::fs::read_to_string(format!("{dir}{name}")).unwrap();
            let (s, log) = record(name, &text);
            let (rows, sum) = replay_all(&Config::builtin(), &log, &s);
            let lines: Vec<&[u8]> = log
                .split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .collect();
            assert_eq!(rows.len(), lines.len());
            for (r, l) in rows.iter().zip(lines) {
                let logged: serde_json::Value = serde_json::from_slice(l).unwrap();
                assert_eq!(
                    serde_json::to_value(&r.row).unwrap(),
                    logged["row"],
                    "{name} step {}",
                    r.step
                );
                assert!(!r.mismatch());
                assert!(
                    r.logged_breaks.is_empty(),
                    "{name} step {}: {:?}",
                    r.step,
                    r.logged_breaks
                );
            }
            assert_eq!(sum.mismatches, 0);
            assert_eq!(sum.steps, rows.len() as u64);
        }
    }

    /// The opening scenario's log, its records as JSON values.
    fn opening() -> (Scenario, Vec<serde_json::Value>) {
        let text = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/scenarios/opening.json"
        ));
        let (s, log) = record("opening.json", text);
        let recs = log
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        (s, recs)
    }

    fn lines(recs: &[serde_json::Value]) -> Vec<u8> {
        recs.iter()
            .flat_map(|r| format!("{r}\n").into_bytes())
            .collect()
    }

    /// Two drives joined: the second starts back at the first's start, 30-odd m behind.
    /// The jump is found at its step alone, the vehicle is found on the path anew, and the
    /// second drive's obstacle distances are the first's (no phantom obstacle from a stale
    /// path position).
    #[test]
    fn a_pose_jump_back_is_found_and_relocated() {
        let (s, recs) = opening();
        let n = recs.len().min(400);
        let mut joined: Vec<serde_json::Value> = recs[..n].to_vec();
        for (k, r) in recs[..n].iter().enumerate() {
            let mut r = r.clone();
            r["step"] = serde_json::json!(n + k);
            r["t"] = serde_json::json!((n + k) as f64 * 0.02);
            joined.push(r);
        }
        let (rows, sum) = replay_all(&Config::builtin(), &lines(&joined), &s);
        assert_eq!(
            (sum.relocations, sum.relocation_steps.clone()),
            (1, vec![n as u64])
        );
        assert!(rows.iter().all(|r| r.relocated == (r.step == n as u64)));
        // The same poses give the same stations; the obstacle distances agree but for
        // the few centimetres of the other curvature the rate limit carries over the jump.
        for k in 0..n {
            let (a, b) = (&rows[k].row, &rows[n + k].row);
            assert_eq!(a.station_m, b.station_m, "step {k}");
            let (da, db) = (a.obstacle_distance_m, b.obstacle_distance_m);
            assert!(da == db || (da - db).abs() < 0.05, "step {k}: {da} {db}");
        }
    }

    /// The same log without its scans: every step is marked, the obstacle rule's slowing
    /// in the log is left unjudged rather than counted as mismatches.
    #[test]
    fn a_scanless_log_leaves_the_obstacle_rule_unjudged() {
        let (s, recs) = opening();
        let with = replay_all(&Config::builtin(), &lines(&recs), &s).1;
        assert!(with.interventions.contains_key("obstacle"), "{with:?}");
        let bare: Vec<serde_json::Value> = recs
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.as_object_mut().unwrap().remove("scan");
                r
            })
            .collect();
        let (rows, sum) = replay_all(&Config::builtin(), &lines(&bare), &s);
        assert_eq!(sum.steps_without_scan, rows.len() as u64);
        assert!(sum.unjudged > 0, "{sum:?}");
        assert_eq!(sum.mismatches, 0, "{sum:?}");
        assert!(!sum.interventions.contains_key("obstacle"));
    }

    /// The opening scenario's lane without its object, launched from rest on the path,
    /// recorded for `duration_s`.
    fn launch(duration_s: f64) -> (Scenario, Vec<u8>) {
        let text = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/scenarios/opening.json"
        ));
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["obstacles"] = serde_json::json!([]);
        v["start"]["speed_mps"] = serde_json::json!(0.0);
        v["start"]["y_m"] = serde_json::json!(0.0);
        v["duration_s"] = serde_json::json!(duration_s);
        record("launch.json", &v.to_string())
    }

    /// A launch from rest on an open lane: the speed ramp holds the command below the
    /// request, but no rule intervenes, so there is no largest reduction by the shield.
    #[test]
    fn the_launch_ramp_is_not_a_shield_reduction() {
        let (s, log) = launch(4.0);
        let (rows, sum) = replay_all(&Config::builtin(), &log, &s);
        assert!(
            rows.iter()
                .any(|r| r.row.speed_mps < r.row.requested.speed_mps - 0.5)
        );
        assert_eq!(sum.max_speed_reduction_step, None, "{sum:?}");
        assert!(sum.step_lists_complete);
    }

    /// A launch logged at 10 Hz (every fifth record of a 50 Hz log) replays at 10 Hz: while
    /// the speed ramp binds, the command rises by accel_max × 0.1 s a row, not × 0.02 s; a
    /// duplicated record is a time fault and takes one control period.
    #[test]
    fn a_10_hz_log_replays_at_10_hz() {
        let (s, log) = launch(3.0);
        let recs: Vec<serde_json::Value> = log
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        let mut tenth: Vec<serde_json::Value> = Vec::new();
        for (k, r) in recs.iter().step_by(5).enumerate() {
            let mut r = r.clone();
            r["step"] = serde_json::json!(k);
            r["t"] = serde_json::json!(k as f64 * 0.1);
            tenth.push(r);
        }
        let cfg = Config::builtin();
        let a = cfg.control.chain.accel_max_mps2;
        let (rows, sum) = replay_all(&cfg, &lines(&tenth), &s);
        assert_eq!(sum.time_faults, 0);
        let rising: Vec<f64> = rows
            .windows(2)
            .filter(|w| {
                w[1].row.speed_mps > 0.0 && w[1].row.speed_mps < 2.5 && w[0].row.speed_mps > 0.0
            })
            .map(|w| w[1].row.speed_mps - w[0].row.speed_mps)
            .collect();
        assert!(!rising.is_empty());
        for d in &rising {
            assert!((d - a * 0.1).abs() < 1e-9, "{d} vs {}", a * 0.1);
        }
        let mut dup = tenth.clone();
        dup.insert(5, tenth[4].clone());
        let sum = replay_all(&cfg, &lines(&dup), &s).1;
        assert_eq!(sum.time_faults, 1);
    }
}
