//! The batch form of the checker: chunks as JSON Lines in, verdicts out in input order,
//! in blocks checked on all cores (rayon), so that memory stays flat in the batch size.

use super::chunk::{Chunk, Sample};
use super::rules::{CheckResult, Reason, TrajectoryChecker};
use crate::chain::path::Path;
use rayon::prelude::*;
use serde::Serialize;
use std::io::{BufRead, Write};

/// Lines checked per block: enough to keep every core busy, small enough to stay flat.
pub const BLOCK: usize = 8192;

/// One output record of the batch form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchRecord {
    /// The 0-based index of the chunk (its line number − 1).
    pub index: usize,
    pub verdict: &'static str,
    pub reason: Option<&'static str>,
    pub first_index: Option<usize>,
    pub value: Option<f64>,
    pub limit: Option<f64>,
}

impl BatchRecord {
    /// The record of a verdict.
    pub fn of(index: usize, r: &CheckResult) -> BatchRecord {
        BatchRecord {
            index,
            verdict: if r.accepted { "accepted" } else { "refused" },
            reason: r.reason.map(Reason::code),
            first_index: r.first_index,
            value: r.value.filter(|v| v.is_finite()),
            limit: r.limit.filter(|v| v.is_finite()),
        }
    }
}

/// Checks one line: a chunk that does not parse is `malformed`.
pub fn check_line(
    checker: &TrajectoryChecker,
    route: &Path,
    line: &str,
    buf: &mut Vec<Sample>,
) -> CheckResult {
    match serde_json::from_str::<Chunk>(line) {
        Ok(c) => checker.check(&c, route, None, buf),
        Err(_) => CheckResult::refused(Reason::Malformed, 0, f64::NAN, f64::NAN),
    }
}

/// Output formats of the batch form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchFormat {
    JsonLines,
    Csv,
}

/// Counts of a batch run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BatchSummary {
    pub chunks: usize,
    pub accepted: usize,
}

/// Streams `input` (one chunk a line; blank lines are skipped) through the checker into
/// `out`, block by block; `progress` gets the bytes read so far.
pub fn run(
    checker: &TrajectoryChecker,
    route: &Path,
    input: impl BufRead,
    out: &mut impl Write,
    format: BatchFormat,
    mut progress: impl FnMut(u64),
) -> std::io::Result<BatchSummary> {
    let mut lines = input.lines();
    let mut sum = BatchSummary::default();
    let mut index = 0usize;
    let mut bytes = 0u64;
    if format == BatchFormat::Csv {
        writeln!(out, "index,verdict,reason,first_index,value,limit")?;
    }
    loop {
        let mut block: Vec<(usize, String)> = Vec::with_capacity(BLOCK);
        for line in lines.by_ref() {
            let line = line?;
            bytes += line.len() as u64 + 1;
            let i = index;
            index += 1;
            if line.trim().is_empty() {
                continue;
            }
            block.push((i, line));
            if block.len() == BLOCK {
                break;
            }
        }
        if block.is_empty() {
            break;
        }
        let results: Vec<(usize, CheckResult)> = block
            .par_iter()
            .map_init(Vec::new, |buf, (i, l)| {
                (*i, check_line(checker, route, l, buf))
            })
            .collect();
        for (i, r) in &results {
            sum.chunks += 1;
            sum.accepted += r.accepted as usize;
            let rec = BatchRecord::of(*i, r);
            match format {
                BatchFormat::JsonLines => {
                    serde_json::to_writer(&mut *out, &rec)?;
                    out.write_all(b"\n")?;
                }
                BatchFormat::Csv => {
                    let opt = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
                    writeln!(
                        out,
                        "{},{},{},{},{},{}",
                        rec.index,
                        rec.verdict,
                        rec.reason.unwrap_or(""),
                        rec.first_index.map_or(String::new(), |v| v.to_string()),
                        opt(rec.value),
                        opt(rec.limit)
                    )?;
                }
            }
        }
        progress(bytes);
    }
    Ok(sum)
}
