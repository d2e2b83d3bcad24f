//! The checker over many chunks, one code path for both forms of `acres check`: a
//! [`Judge`] resolves each chunk's route (its own, or the default, loaded once and cached)
//! and scan (its own, or the default), and turns a chunk, a JSON value or a line into a
//! verdict that says why. The batch form streams JSON Lines through a pipeline: a reader
//! thread cuts lines (each capped in length), the blocks are parsed and checked on all
//! cores, and a writer thread writes them, so that reading, checking and writing overlap
//! and memory stays flat in the size of the input.

use super::chunk::{Chunk, Sample};
use super::margins::Margins;
use super::rules::{CheckResult, TrajectoryChecker, Unchecked};
use super::world_returns;
use crate::chain::path::Path;
use crate::chain::scan::{Scan, ScanGeometry};
use crate::formats::chunk::{LineRead, read_line_capped, sanitize};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Lines checked per block: enough to keep every core busy, small enough to stay flat.
pub const BLOCK: usize = 4096;
/// The bytes of lines per block, at most (a single longer line makes a block alone).
pub const BLOCK_BYTES: usize = 8 << 20;
/// The default cap on the length of a line of the batch form, bytes.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 << 20;

/// What the checker is given besides the chunks.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// The route of a chunk that names none.
    pub route: Option<Arc<Path>>,
    /// The scan of a chunk that carries none (taken at each chunk's start state).
    pub scan: Option<Arc<Scan>>,
    /// Where a route a chunk names is looked for first (then among the shipped routes).
    pub dir: Option<PathBuf>,
    /// Whether each verdict carries every rule's smallest margin.
    pub margins: bool,
    /// The longest line of the batch form, bytes.
    pub max_line_bytes: usize,
    /// Refuse a chunk that only passed because a rule lacked its input (reason
    /// `unchecked`).
    pub strict: bool,
}

/// The verdict of one chunk, with its 0-based index in the input.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkVerdict {
    pub index: usize,
    pub result: CheckResult,
    pub margins: Option<Margins>,
    /// The rules that could not run for lack of input.
    pub unchecked: Unchecked,
}

/// One output record of either form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchRecord {
    /// The 0-based index of the chunk (in the batch form, its line number − 1).
    pub index: usize,
    pub verdict: &'static str,
    pub reason: Option<&'static str>,
    pub first_index: Option<usize>,
    pub value: Option<f64>,
    pub limit: Option<f64>,
    /// Why, in words; empty for an accepted chunk.
    pub note: String,
    /// The rules that did not run for lack of input (no scan, no corridor): the verdict
    /// claims nothing about them.
    pub unchecked: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margins: Option<Margins>,
}

impl BatchRecord {
    /// The record of a verdict.
    pub fn of(v: &ChunkVerdict) -> BatchRecord {
        let r = &v.result;
        BatchRecord {
            index: v.index,
            verdict: if r.accepted { "accepted" } else { "refused" },
            reason: r.reason.map(|r| r.code()),
            first_index: r.first_index,
            value: r.value.filter(|v| v.is_finite()),
            limit: r.limit.filter(|v| v.is_finite()),
            note: r.why(),
            unchecked: v.unchecked.codes(),
            margins: v.margins.clone(),
        }
    }

    /// The CSV header: the record's columns, then two per margin with `--margins`.
    pub fn csv_header(margins: bool) -> Vec<String> {
        let mut h: Vec<String> = [
            "index",
            "verdict",
            "reason",
            "first_index",
            "value",
            "limit",
            "note",
            "unchecked",
        ]
        .map(String::from)
        .to_vec();
        if margins {
            for key in Margins::KEYS {
                h.push(format!("margin_{key}"));
                h.push(format!("margin_{key}_index"));
            }
        }
        h
    }

    /// The CSV fields, in the order of [`BatchRecord::csv_header`]; empty where none.
    pub fn csv_fields(&self) -> Vec<String> {
        let opt = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
        let mut f = vec![
            self.index.to_string(),
            self.verdict.to_string(),
            self.reason.unwrap_or("").to_string(),
            self.first_index.map_or(String::new(), |v| v.to_string()),
            opt(self.value),
            opt(self.limit),
            self.note.clone(),
            self.unchecked.join(";"),
        ];
        if let Some(m) = &self.margins {
            for key in Margins::KEYS {
                let e = m.get(key);
                f.push(opt(e.map(|e| e.margin)));
                f.push(e.map_or(String::new(), |e| e.index.to_string()));
            }
        }
        f
    }
}

/// The checker with its options and the routes it has loaded.
pub struct Judge<'a> {
    checker: &'a TrajectoryChecker,
    opts: &'a CheckOptions,
    geometry: ScanGeometry,
    routes: Mutex<HashMap<String, Result<Arc<Path>, String>>>,
}

impl<'a> Judge<'a> {
    /// A judge; `geometry` is the scan's (beams, mount, reach).
    pub fn new(
        checker: &'a TrajectoryChecker,
        opts: &'a CheckOptions,
        geometry: ScanGeometry,
    ) -> Self {
        Judge {
            checker,
            opts,
            geometry,
            routes: Mutex::new(HashMap::new()),
        }
    }

    /// The options.
    pub fn options(&self) -> &CheckOptions {
        self.opts
    }

    /// The corridor of the point and corridor rules, where one is loaded.
    pub fn corridor(&self) -> Option<&crate::ground::Corridor> {
        self.checker.corridor()
    }

    /// The verdict of a parsed chunk.
    pub fn chunk(&self, index: usize, chunk: &Chunk, buf: &mut Vec<Sample>) -> ChunkVerdict {
        let has_scan = chunk.scan.is_some() || self.opts.scan.is_some();
        let unchecked = Unchecked::of(has_scan, self.checker.corridor().is_some());
        let strict = self.opts.strict;
        let verdict = |result: CheckResult, margins| ChunkVerdict {
            index,
            result: if strict {
                unchecked.strict(result)
            } else {
                result
            },
            margins,
            unchecked,
        };
        let route = match self.route_of(chunk) {
            Ok(r) => r,
            Err(note) => return verdict(CheckResult::malformed(0, note), None),
        };
        let scan = match &chunk.scan {
            Some(ranges) => match self.own_scan(ranges) {
                Ok(s) => Some(Arc::new(s)),
                Err(note) => return verdict(CheckResult::malformed(0, note), None),
            },
            None => self.opts.scan.clone(),
        };
        let returns = scan
            .as_ref()
            .filter(|_| chunk.start.x_m.is_finite() && chunk.start.y_m.is_finite())
            .map(|s| world_returns(&self.geometry, s, &chunk.start));
        if self.opts.margins {
            let (r, m) = self
                .checker
                .check_with_margins(chunk, &route, returns.as_ref(), buf);
            verdict(r, Some(m))
        } else {
            verdict(
                self.checker.check(chunk, &route, returns.as_ref(), buf),
                None,
            )
        }
    }

    /// The verdict of a JSON value (an item of a chunk file): `malformed` with the parse
    /// error where it is not a chunk.
    pub fn value(&self, index: usize, v: serde_json::Value, buf: &mut Vec<Sample>) -> ChunkVerdict {
        match serde_json::from_value::<Chunk>(v) {
            Ok(c) => self.chunk(index, &c, buf),
            Err(e) => self.malformed(index, format!("not a chunk: {e}")),
        }
    }

    /// The verdict of one line of JSON Lines: `malformed` where it is not UTF-8 or not a
    /// chunk. Numbers that are not finite make a `malformed` verdict at their sample.
    pub fn line(&self, index: usize, line: &[u8], buf: &mut Vec<Sample>) -> ChunkVerdict {
        let text = match std::str::from_utf8(line) {
            Ok(t) => t,
            Err(e) => {
                let at = e.valid_up_to();
                return self.malformed(index, format!("the line is not UTF-8 (byte {at})"));
            }
        };
        match serde_json::from_str::<Chunk>(text) {
            Ok(c) => self.chunk(index, &c, buf),
            Err(first) => match serde_json::from_str::<Chunk>(&sanitize(text)) {
                Ok(c) => self.chunk(index, &c, buf),
                Err(_) => self.malformed(index, format!("not a chunk: {first}")),
            },
        }
    }

    /// A `malformed` verdict that says why.
    pub fn malformed(&self, index: usize, note: String) -> ChunkVerdict {
        ChunkVerdict {
            index,
            result: CheckResult::malformed(0, note),
            margins: self.opts.margins.then(Margins::default),
            unchecked: Unchecked::of(self.opts.scan.is_some(), self.checker.corridor().is_some()),
        }
    }

    /// The chunk's route: the one it names (beside the input, or shipped), else the
    /// default; each name is loaded once.
    pub fn route_of(&self, chunk: &Chunk) -> Result<Arc<Path>, String> {
        let Some(name) = &chunk.route else {
            return self
                .opts
                .route
                .clone()
                .ok_or_else(|| "the chunk names no route, and no --route is given".into());
        };
        let mut cache = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = cache.get(name) {
            return r.clone();
        }
        cache
            .entry(name.clone())
            .or_insert_with(|| {
                let beside = self.opts.dir.as_ref().map(|d| d.join(name));
                match beside.filter(|p| p.exists()) {
                    Some(p) => Path::load(&p)
                        .map(Arc::new)
                        .map_err(|e| format!("route: {e}")),
                    None => Path::builtin(name).map(Arc::new).ok_or_else(|| {
                        format!(
                            "route `{name}`: no such file beside the input, nor a shipped route"
                        )
                    }),
                }
            })
            .clone()
    }

    /// A chunk's own scan: the configured number of beams, each range ≥ 0 or null.
    fn own_scan(&self, ranges: &[Option<f64>]) -> Result<Scan, String> {
        scan_of(ranges, self.geometry.beams())
    }
}

/// A scan given as ranges (null: no return) with the beam count the config expects; the
/// error says what is wrong (the caller names the file or line).
pub fn scan_of(ranges: &[Option<f64>], beams: usize) -> Result<Scan, String> {
    if ranges.len() != beams {
        return Err(format!(
            "scan has {} beams, corridor.beams is {beams}",
            ranges.len()
        ));
    }
    Scan::from_returns(ranges).map_err(|e| e.to_string())
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
    /// Chunks checked without a scan (the obstacle rule did not run).
    pub no_scan: usize,
    /// Chunks checked without a corridor (the point and corridor rules did not run).
    pub no_corridor: usize,
}

impl BatchSummary {
    /// Adds one verdict.
    pub fn add(&mut self, accepted: bool, unchecked: Unchecked) {
        self.chunks += 1;
        self.accepted += accepted as usize;
        self.no_scan += unchecked.no_scan as usize;
        self.no_corridor += unchecked.no_corridor as usize;
    }

    /// Adds the counts of another summary.
    pub fn merge(&mut self, o: &BatchSummary) {
        self.chunks += o.chunks;
        self.accepted += o.accepted;
        self.no_scan += o.no_scan;
        self.no_corridor += o.no_corridor;
    }

    /// The summary line: "3 of 4 accepted", then the rules that did not run and on how
    /// many chunks ("; obstacle, point and corridor rules not run: no --scan, no
    /// --corridor"), so that an acceptance never claims a rule it did not run.
    pub fn line(&self) -> String {
        let mut s = format!("{} of {} accepted", self.accepted, self.chunks);
        let all = |n: usize| n == self.chunks;
        let of = |n: usize| {
            if all(n) {
                String::new()
            } else {
                format!(" on {n} of {} chunks", self.chunks)
            }
        };
        match (self.no_scan > 0, self.no_corridor > 0) {
            (false, false) => {}
            (true, true) if self.no_scan == self.no_corridor => s.push_str(&format!(
                "; obstacle, point and corridor rules not run{}: no --scan, no --corridor",
                of(self.no_scan)
            )),
            (scan, corridor) => {
                if scan {
                    s.push_str(&format!(
                        "; obstacle rule not run{}: no --scan nor a scan of the chunk's own",
                        of(self.no_scan)
                    ));
                }
                if corridor {
                    s.push_str(&format!(
                        "; point and corridor rules not run{}: no --corridor",
                        of(self.no_corridor)
                    ));
                }
            }
        }
        s
    }
}

/// One line as the reader cut it.
enum Item {
    Line(Vec<u8>),
    TooLong(u64),
}

/// A block of lines: the index of each, and the bytes read so far.
struct Block {
    items: Vec<(usize, Item)>,
    bytes: u64,
}

/// Streams `input` (one chunk a line; blank lines are skipped but counted) through the
/// judge into `out`, in input order; `progress` gets the bytes read so far.
pub fn run(
    judge: &Judge,
    input: impl BufRead + Send,
    out: &mut (impl Write + Send),
    format: BatchFormat,
    mut progress: impl FnMut(u64),
) -> std::io::Result<BatchSummary> {
    let cap = judge.options().max_line_bytes.max(1);
    if format == BatchFormat::Csv {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(BatchRecord::csv_header(judge.options().margins))?;
        out.write_all(&w.into_inner().map_err(|e| e.into_error())?)?;
    }
    let (to_check, blocks) = std::sync::mpsc::sync_channel::<std::io::Result<Block>>(2);
    let (to_write, written) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
    std::thread::scope(|scope| {
        scope.spawn(move || read_blocks(input, cap, to_check));
        let writer = scope.spawn(move || -> std::io::Result<()> {
            for bytes in written {
                out.write_all(&bytes)?;
            }
            out.flush()
        });
        let mut sum = BatchSummary::default();
        let mut failed = None;
        for block in blocks {
            let block = match block {
                Ok(b) => b,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            let (bytes, s) = check_block(judge, &block, format)?;
            sum.merge(&s);
            if to_write.send(bytes).is_err() {
                break;
            }
            progress(block.bytes);
        }
        drop(to_write);
        let wrote = writer.join().expect("the writer thread does not panic");
        match failed {
            Some(e) => Err(e),
            None => wrote.map(|()| sum),
        }
    })
}

/// The reader: lines into blocks of at most [`BLOCK`] lines and [`BLOCK_BYTES`] bytes.
fn read_blocks(
    mut input: impl BufRead,
    cap: usize,
    to_check: std::sync::mpsc::SyncSender<std::io::Result<Block>>,
) {
    let mut index = 0usize;
    let mut bytes = 0u64;
    let mut buf = Vec::new();
    loop {
        let mut items = Vec::with_capacity(BLOCK);
        let mut size = 0usize;
        let mut end = false;
        while items.len() < BLOCK && size < BLOCK_BYTES {
            let read = match read_line_capped(&mut input, &mut buf, cap) {
                Ok(r) => r,
                Err(e) => {
                    let _ = to_check.send(Err(e));
                    return;
                }
            };
            let i = index;
            match read {
                LineRead::End => {
                    end = true;
                    break;
                }
                LineRead::TooLong(n) => {
                    bytes += n + 1;
                    items.push((i, Item::TooLong(n)));
                }
                LineRead::Line => {
                    bytes += buf.len() as u64 + 1;
                    if !buf.iter().all(u8::is_ascii_whitespace) {
                        size += buf.len();
                        items.push((i, Item::Line(std::mem::take(&mut buf))));
                    }
                }
            }
            index += 1;
        }
        if !items.is_empty() && to_check.send(Ok(Block { items, bytes })).is_err() {
            return;
        }
        if end {
            return;
        }
    }
}

/// Checks a block on all cores and formats its records, in order.
fn check_block(
    judge: &Judge,
    block: &Block,
    format: BatchFormat,
) -> std::io::Result<(Vec<u8>, BatchSummary)> {
    let cap = judge.options().max_line_bytes;
    let parts: Vec<std::io::Result<(Vec<u8>, bool, Unchecked)>> = block
        .items
        .par_iter()
        .map_init(Vec::new, |buf, (i, item)| {
            // One small CSV writer a record: its default buffer is 8 KiB.
            let v = match item {
                Item::Line(l) => judge.line(*i, l, buf),
                Item::TooLong(n) => judge.malformed(
                    *i,
                    format!(
                        "the line has {n} bytes, more than the cap of {cap} (--max-line-bytes)"
                    ),
                ),
            };
            let rec = BatchRecord::of(&v);
            let mut bytes = Vec::with_capacity(256);
            match format {
                BatchFormat::JsonLines => {
                    serde_json::to_writer(&mut bytes, &rec)?;
                    bytes.push(b'\n');
                }
                BatchFormat::Csv => {
                    let mut w = csv::WriterBuilder::new()
                        .buffer_capacity(512)
                        .from_writer(bytes);
                    w.write_record(rec.csv_fields())?;
                    bytes = w.into_inner().map_err(|e| e.into_error())?;
                }
            }
            Ok((bytes, v.result.accepted, v.unchecked))
        })
        .collect();
    let mut out = Vec::new();
    let mut sum = BatchSummary::default();
    for p in parts {
        let (bytes, accepted, unchecked) = p?;
        out.extend_from_slice(&bytes);
        sum.add(accepted, unchecked);
    }
    Ok((out, sum))
}
