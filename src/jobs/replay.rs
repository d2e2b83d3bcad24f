//! Replay (ARCHITECTURE.md: `acres replay`): recorded control steps through the chain
//! (the default driver and the shield) again, one command row per recorded step, with
//! the shield's interventions, the difference from the logged command and the rules the
//! logged command broke. Streaming: one record at a time, in constant memory.
//!
//! Inputs: the JSON Lines logs of `acres sim --log` and `acres bridge client --record`
//! (one [`Record`] per line; other keys are ignored), and CSV files with the columns of
//! [`CSV_COLUMNS`] (a report CSV of `acres bridge client --log` holds them; a CSV without
//! scan columns replays with an empty scan, so the obstacle rule sees nothing).

use crate::chain::envelope::Grip;
use crate::chain::path::Path;
use crate::chain::scan::Scan;
use crate::chain::shield::{Command, Intervention, Pose, Rule, Shield};
use crate::chain::{Chain, ChainError, ChainInput, CommandRow, Gear, VehicleState};
use crate::config::Config;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::BufRead;

/// One recorded control step: what the chain saw, and what was sent where the log has it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Record {
    pub step: u64,
    pub t: f64,
    pub state: VehicleState,
    /// The scan ranges, null for no return; absent: an empty scan.
    #[serde(default)]
    pub scan: Option<Vec<Option<f64>>>,
    /// The command row that was sent (only its curvature and speed are read).
    #[serde(default, rename = "row")]
    pub logged: Option<LoggedCommand>,
}

/// The command of a log.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
pub struct LoggedCommand {
    pub curvature_per_m: f64,
    pub speed_mps: f64,
}

/// The columns a CSV log needs: time, pose, speed; `yaw_rate_rps`, `gear` (a number),
/// `cmd_speed_mps` and `cmd_curvature_per_m` (the logged command) and `scan_0` …
/// `scan_359` are read where present.
pub const CSV_COLUMNS: [&str; 5] = ["t", "x_m", "y_m", "yaw_rad", "speed_mps"];

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
}

/// An error of a replay: it names the input and the line.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{file}:{line}: {message}")]
    Line {
        file: String,
        line: u64,
        message: String,
    },
    #[error("{file}: {message}")]
    File { file: String, message: String },
    #[error("{file}: {0}", file = .1)]
    Io(std::io::Error, String),
}

/// The chain of one replay.
#[derive(Debug)]
pub struct Replayer {
    chain: Chain,
    beams: usize,
    ranges: Vec<f64>,
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
        })
    }

    /// Replays one record.
    pub fn step(&mut self, rec: &Record) -> Result<ReplayRow, String> {
        self.ranges.clear();
        match &rec.scan {
            Some(s) => self
                .ranges
                .extend(s.iter().map(|r| r.unwrap_or(f64::INFINITY))),
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
    /// The largest reduction of the requested speed, m/s, and its step.
    pub max_speed_reduction_mps: f64,
    pub max_speed_reduction_step: Option<u64>,
    /// Rule code → the steps where the logged command broke it (the first 100).
    pub logged_breaks: BTreeMap<String, Vec<u64>>,
    /// Rule code → the number of steps where the logged command broke it.
    pub logged_break_counts: BTreeMap<String, u64>,
    /// Steps whose replayed command differs from the logged one, and the first of them.
    pub mismatches: u64,
    pub first_mismatch_step: Option<u64>,
}

impl Summary {
    /// Adds a replayed row.
    pub fn add(&mut self, r: &ReplayRow) {
        self.steps += 1;
        for code in rule_codes(&r.row.interventions) {
            *self.interventions.entry(code).or_default() += 1;
        }
        let red = r.row.requested.speed_mps.abs() - r.row.speed_mps.abs();
        if red > self.max_speed_reduction_mps {
            self.max_speed_reduction_mps = red;
            self.max_speed_reduction_step = Some(r.step);
        }
        for code in rule_codes(&r.logged_breaks) {
            *self.logged_break_counts.entry(code.clone()).or_default() += 1;
            let steps = self.logged_breaks.entry(code).or_default();
            if steps.len() < 100 {
                steps.push(r.step);
            }
        }
        if r.mismatch() {
            self.mismatches += 1;
            self.first_mismatch_step.get_or_insert(r.step);
        }
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

/// Reads records one at a time from a JSON Lines or CSV stream (`csv` chooses) and hands
/// each to `each` with its line number. A bad line is an error naming `file` and the
/// line, or with `skip_bad` is counted and skipped; an input with no record is an error.
/// Returns the number of lines skipped.
pub fn read_records(
    file: &str,
    input: impl BufRead,
    csv: bool,
    skip_bad: bool,
    mut each: impl FnMut(u64, &Record) -> Result<(), ReplayError>,
) -> Result<u64, ReplayError> {
    let mut skipped = 0u64;
    let mut records = 0u64;
    let mut bad = |line: u64, message: String| -> Result<(), ReplayError> {
        if skip_bad {
            skipped += 1;
            Ok(())
        } else {
            Err(ReplayError::Line {
                file: file.to_string(),
                line,
                message,
            })
        }
    };
    if csv {
        read_csv(file, input, &mut bad, &mut |n, r| {
            records += 1;
            each(n, r)
        })?;
    } else {
        let mut input = input;
        let mut buf = String::new();
        let mut line = 0u64;
        loop {
            buf.clear();
            let n = input
                .read_line(&mut buf)
                .map_err(|e| ReplayError::Io(e, file.to_string()))?;
            if n == 0 {
                break;
            }
            line += 1;
            let text = buf.trim_end();
            if text.is_empty() {
                continue;
            }
            match serde_json::from_str::<Record>(text) {
                Ok(r) if r.state.speed_mps.is_finite() => {
                    records += 1;
                    each(line, &r)?;
                }
                Ok(_) => bad(line, "key `state.speed_mps`: not a finite number".into())?,
                Err(e) if !buf.ends_with('\n') => bad(
                    line,
                    format!("the last line is cut off (a truncated log): {e}"),
                )?,
                Err(e) => bad(line, e.to_string())?,
            }
        }
    }
    if records == 0 {
        return Err(ReplayError::File {
            file: file.to_string(),
            message: "no records to replay (an empty log)".into(),
        });
    }
    Ok(skipped)
}

type BadLine<'a> = dyn FnMut(u64, String) -> Result<(), ReplayError> + 'a;
type Each<'a> = dyn FnMut(u64, &Record) -> Result<(), ReplayError> + 'a;

fn read_csv(
    file: &str,
    input: impl BufRead,
    bad: &mut BadLine,
    each: &mut Each,
) -> Result<(), ReplayError> {
    let mut rd = csv::ReaderBuilder::new().flexible(false).from_reader(input);
    let headers = rd
        .headers()
        .map_err(|e| ReplayError::File {
            file: file.to_string(),
            message: e.to_string(),
        })?
        .clone();
    let col = |name: &str| headers.iter().position(|h| h == name);
    let missing: Vec<&str> = CSV_COLUMNS
        .iter()
        .copied()
        .filter(|c| col(c).is_none())
        .collect();
    if !missing.is_empty() {
        return Err(ReplayError::File {
            file: file.to_string(),
            message: format!(
                "missing columns {} (a replay needs {}; a report CSV of dbw_report fields alone has no pose)",
                missing.join(", "),
                CSV_COLUMNS.join(", ")
            ),
        });
    }
    let req: Vec<usize> = CSV_COLUMNS.iter().map(|c| col(c).unwrap()).collect();
    let (yaw_rate, gear) = (col("yaw_rate_rps"), col("gear"));
    let (cmd_v, cmd_k) = (col("cmd_speed_mps"), col("cmd_curvature_per_m"));
    let scan_cols: Vec<usize> = (0..).map_while(|i| col(&format!("scan_{i}"))).collect();
    let mut rec = csv::StringRecord::new();
    let mut step = 0u64;
    loop {
        match rd.read_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(rd.position().line(), |p| p.line());
                bad(line, e.to_string())?;
                continue;
            }
        }
        let line = rec.position().map_or(0, |p| p.line());
        let num = |i: usize| -> Result<f64, String> {
            let s = rec.get(i).unwrap_or("");
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("column `{}`: `{s}` is not a finite number", &headers[i]))
        };
        let parsed = (|| -> Result<Record, String> {
            let v: Vec<f64> = req.iter().map(|&i| num(i)).collect::<Result<_, _>>()?;
            let opt = |c: Option<usize>| c.map(num).transpose();
            let g = opt(gear)?.map(|g| g as u8).and_then(Gear::from_number);
            let logged = match (opt(cmd_v)?, opt(cmd_k)?) {
                (Some(s), Some(k)) => Some(LoggedCommand {
                    curvature_per_m: k,
                    speed_mps: s,
                }),
                _ => None,
            };
            let scan = if scan_cols.is_empty() {
                None
            } else {
                Some(
                    scan_cols
                        .iter()
                        .map(|&i| {
                            let s = rec.get(i).unwrap_or("").trim();
                            if s.is_empty() {
                                Ok(None)
                            } else {
                                num(i).map(Some)
                            }
                        })
                        .collect::<Result<_, _>>()?,
                )
            };
            Ok(Record {
                step,
                t: v[0],
                state: VehicleState {
                    pose: Pose {
                        x_m: v[1],
                        y_m: v[2],
                        yaw_rad: v[3],
                    },
                    speed_mps: v[4],
                    yaw_rate_rps: opt(yaw_rate)?.unwrap_or(0.0),
                    gear: g.unwrap_or(if v[4] < 0.0 {
                        Gear::Reverse
                    } else {
                        Gear::High
                    }),
                },
                scan,
                logged,
            })
        })();
        match parsed {
            Ok(r) => {
                each(line, &r)?;
                step += 1;
            }
            Err(m) => bad(line, m)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
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
            "opening_no_shield.json",
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
}
