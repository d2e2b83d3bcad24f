//! Recorded logs for `acres replay` (docs/formats.md "Logs"): the JSON Lines logs of
//! `acres sim --log` and `acres bridge client --record` (one [`Record`] per line; other
//! keys are ignored), and CSV files with the columns of [`CSV_COLUMNS`] (a report CSV of
//! `acres bridge client --log` holds them; a CSV without scan columns replays with an
//! empty scan, so the obstacle rule sees nothing; rows with no pose at all, the reports
//! before a client's first observation, are skipped). Read one record at a time, in constant
//! memory.

use crate::chain::shield::Pose;
use crate::chain::{Gear, VehicleState};
use serde::{Deserialize, Serialize};
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

/// The columns a CSV log needs: time, pose, speed; `yaw_rate_rps`, `grade`, `gear` (a number),
/// `cmd_speed_mps` and `cmd_curvature_per_m` (the logged command) and `scan_0` …
/// `scan_359` are read where present.
pub const CSV_COLUMNS: [&str; 5] = ["t", "x_m", "y_m", "yaw_rad", "speed_mps"];

/// An error of reading a log: it names the input and the line.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
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

/// Reads records one at a time from a JSON Lines or CSV stream (`csv` chooses) and hands
/// each to `each` with its line number. A bad line is an error naming `file` and the
/// line, or with `skip_bad` is counted and skipped; an input with no record is an error.
/// Returns the number of lines skipped.
pub fn read_records(
    file: &str,
    input: impl BufRead,
    csv: bool,
    skip_bad: bool,
    mut each: impl FnMut(u64, &Record) -> Result<(), LogError>,
) -> Result<u64, LogError> {
    let mut skipped = 0u64;
    let mut records = 0u64;
    let mut bad = |line: u64, message: String| -> Result<(), LogError> {
        if skip_bad {
            skipped += 1;
            Ok(())
        } else {
            Err(LogError::Line {
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
        read_json_lines(file, input, &mut bad, &mut |n, r| {
            records += 1;
            each(n, r)
        })?;
    }
    if records == 0 {
        return Err(LogError::File {
            file: file.to_string(),
            message: "no records to replay (an empty log)".into(),
        });
    }
    Ok(skipped)
}

type BadLine<'a> = dyn FnMut(u64, String) -> Result<(), LogError> + 'a;
type Each<'a> = dyn FnMut(u64, &Record) -> Result<(), LogError> + 'a;

/// Reads JSON Lines records; blank lines are skipped, and a last line without its newline
/// that does not parse is reported as cut off.
fn read_json_lines(
    file: &str,
    mut input: impl BufRead,
    bad: &mut BadLine,
    each: &mut Each,
) -> Result<(), LogError> {
    let mut buf = String::new();
    let mut line = 0u64;
    loop {
        buf.clear();
        let n = input
            .read_line(&mut buf)
            .map_err(|e| LogError::Io(e, file.to_string()))?;
        if n == 0 {
            return Ok(());
        }
        line += 1;
        let text = buf.trim_end();
        if text.is_empty() {
            continue;
        }
        match serde_json::from_str::<Record>(text) {
            Ok(r) if r.state.speed_mps.is_finite() => each(line, &r)?,
            Ok(_) => bad(line, "key `state.speed_mps`: not a finite number".into())?,
            Err(e) if !buf.ends_with('\n') => bad(
                line,
                format!("the last line is cut off (a truncated log): {e}"),
            )?,
            Err(e) => bad(line, e.to_string())?,
        }
    }
}

/// Where the columns of a CSV log are: the required ones in the order of [`CSV_COLUMNS`],
/// the optional ones where present.
struct CsvColumns {
    headers: csv::StringRecord,
    required: Vec<usize>,
    yaw_rate: Option<usize>,
    gear: Option<usize>,
    cmd_speed: Option<usize>,
    grade: Option<usize>,
    cmd_curvature: Option<usize>,
    scan: Vec<usize>,
}

impl CsvColumns {
    /// The columns of a header row; a missing required column is an error naming them.
    fn of(file: &str, headers: csv::StringRecord) -> Result<CsvColumns, LogError> {
        let col = |name: &str| headers.iter().position(|h| h == name);
        let missing: Vec<&str> = CSV_COLUMNS
            .iter()
            .copied()
            .filter(|c| col(c).is_none())
            .collect();
        if !missing.is_empty() {
            return Err(LogError::File {
                file: file.to_string(),
                message: format!(
                    "missing columns {} (a replay needs {}; a report CSV of dbw_report fields alone has no pose: give its observation log with --observations)",
                    missing.join(", "),
                    CSV_COLUMNS.join(", ")
                ),
            });
        }
        Ok(CsvColumns {
            required: CSV_COLUMNS.iter().filter_map(|c| col(c)).collect(),
            yaw_rate: col("yaw_rate_rps"),
            gear: col("gear"),
            cmd_speed: col("cmd_speed_mps"),
            grade: col("grade"),
            cmd_curvature: col("cmd_curvature_per_m"),
            scan: (0..).map_while(|i| col(&format!("scan_{i}"))).collect(),
            headers,
        })
    }

    /// A finite number of column `i`, or a message naming the column.
    fn num(&self, rec: &csv::StringRecord, i: usize) -> Result<f64, String> {
        let s = rec.get(i).unwrap_or("");
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| {
                format!(
                    "column `{}`: `{s}` is not a finite number",
                    &self.headers[i]
                )
            })
    }

    fn opt(&self, rec: &csv::StringRecord, c: Option<usize>) -> Result<Option<f64>, String> {
        c.map(|i| self.num(rec, i)).transpose()
    }

    /// Whether the row has no pose at all (`x_m`, `y_m` and `yaw_rad` empty): a report
    /// of a bridge client before its first observation, which is skipped.
    fn no_pose(&self, rec: &csv::StringRecord) -> bool {
        self.required[1..4]
            .iter()
            .all(|&i| rec.get(i).unwrap_or("").trim().is_empty())
    }

    /// The record of one row; an empty scan cell is no return.
    fn record(&self, rec: &csv::StringRecord, step: u64) -> Result<Record, String> {
        let v: Vec<f64> = self
            .required
            .iter()
            .map(|&i| self.num(rec, i))
            .collect::<Result<_, _>>()?;
        let g = self
            .opt(rec, self.gear)?
            .map(|g| g as u8)
            .and_then(Gear::from_number);
        let logged = match (
            self.opt(rec, self.cmd_speed)?,
            self.opt(rec, self.cmd_curvature)?,
        ) {
            (Some(s), Some(k)) => Some(LoggedCommand {
                curvature_per_m: k,
                speed_mps: s,
            }),
            _ => None,
        };
        let scan = if self.scan.is_empty() {
            None
        } else {
            let cell = |&i: &usize| {
                if rec.get(i).unwrap_or("").trim().is_empty() {
                    Ok(None)
                } else {
                    self.num(rec, i).map(Some)
                }
            };
            Some(self.scan.iter().map(cell).collect::<Result<_, _>>()?)
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
                yaw_rate_rps: self.opt(rec, self.yaw_rate)?.unwrap_or(0.0),
                gear: g.unwrap_or(if v[4] < 0.0 {
                    Gear::Reverse
                } else {
                    Gear::High
                }),
                grade: self.opt(rec, self.grade)?.unwrap_or(0.0),
            },
            scan,
            logged,
        })
    }
}

fn read_csv(
    file: &str,
    input: impl BufRead,
    bad: &mut BadLine,
    each: &mut Each,
) -> Result<(), LogError> {
    let mut rd = csv::ReaderBuilder::new().flexible(false).from_reader(input);
    let headers = rd
        .headers()
        .map_err(|e| LogError::File {
            file: file.to_string(),
            message: e.to_string(),
        })?
        .clone();
    let cols = CsvColumns::of(file, headers)?;
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
        if cols.no_pose(&rec) {
            continue;
        }
        match cols.record(&rec, step) {
            Ok(r) => {
                each(line, &r)?;
                step += 1;
            }
            Err(m) => bad(line, m)?,
        }
    }
    Ok(())
}
