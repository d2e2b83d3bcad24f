//! Recorded logs for `acres replay` (docs/formats.md "Logs"): the JSON Lines logs of
//! `acres sim --log` and `acres bridge client --record` (one [`Record`] per line; other
//! keys are ignored), and CSV files with the columns of [`CSV_COLUMNS`] (a report CSV of
//! `acres bridge client --log` holds them; a CSV without scan columns replays with an
//! empty scan, so the obstacle rule sees nothing; rows with no pose at all, the reports
//! before a client's first observation, are skipped). Read in bounded memory: a record at a
//! time (CSV), or batches of lines parsed on a thread of their own (JSON Lines).

use crate::chain::shield::Pose;
use crate::chain::{Gear, VehicleState};
use crate::formats::skim;
use serde::{Deserialize, Serialize};
use std::io::BufRead;

/// One recorded control step: what the chain saw, and what was sent where the log has it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Record {
    pub step: u64,
    pub t: f64,
    pub state: VehicleState,
    /// The scan ranges, +∞ for a beam with no return (null in a JSON line, an empty cell
    /// in a CSV); absent: an empty scan. Held as the chain's [`crate::chain::scan::Scan`]
    /// takes them, so that a replay copies them with no conversion.
    #[serde(default, deserialize_with = "no_return_as_infinite")]
    pub scan: Option<Vec<f64>>,
    /// The command row that was sent (only its curvature and speed are read).
    #[serde(default, rename = "row")]
    pub logged: Option<LoggedCommand>,
}

/// The keys of a JSON Lines record's numbers, in the order [`Record::check_bounds`] takes.
const JSON_KEYS: [&str; 9] = [
    "t",
    "state.pose.x_m",
    "state.pose.y_m",
    "state.pose.yaw_rad",
    "state.speed_mps",
    "state.yaw_rate_rps",
    "state.grade",
    "row.speed_mps",
    "row.curvature_per_m",
];

/// The same numbers' columns in a CSV log.
const CSV_KEYS: [&str; 9] = [
    "t",
    "x_m",
    "y_m",
    "yaw_rad",
    "speed_mps",
    "yaw_rate_rps",
    "grade",
    "cmd_speed_mps",
    "cmd_curvature_per_m",
];

impl Record {
    /// Whether every number lies in its range (docs/formats.md "Bounds"); a message naming
    /// the JSON key where one does not.
    pub fn check_bounds(&self) -> Result<(), String> {
        self.check_bounds_named(&JSON_KEYS)
            .map_err(|m| format!("key {m}"))
    }

    fn check_bounds_named(&self, k: &[&str; 9]) -> Result<(), String> {
        use crate::formats::bounds as b;
        let s = &self.state;
        b::magnitude(k[0], self.t, b::MAX_TIME_S, "s")?;
        b::position(k[1], s.pose.x_m)?;
        b::position(k[2], s.pose.y_m)?;
        b::angle_rad(k[3], s.pose.yaw_rad)?;
        b::speed(k[4], s.speed_mps)?;
        b::magnitude(k[5], s.yaw_rate_rps, b::MAX_YAW_RATE_RPS, "rad/s")?;
        b::magnitude(k[6], s.grade, b::MAX_GRADE, "(rise over run)")?;
        let beyond = |r: &f64| *r != f64::INFINITY && !(0.0..=b::MAX_POSITION_M).contains(r);
        let scan = self.scan.as_deref().unwrap_or(&[]);
        if let Some((k, &v)) = scan.iter().enumerate().find(|(_, r)| beyond(r)) {
            let v = b::show(v);
            return Err(format!(
                "`scan[{k}]`: {v} is outside 0 to 1e8 m (or null for no return)"
            ));
        }
        if let Some(c) = &self.logged {
            b::speed(k[7], c.speed_mps)?;
            b::magnitude(k[8], c.curvature_per_m, b::MAX_CURVATURE_PER_M, "1/m")?;
        }
        Ok(())
    }
}

/// A scan array as serde reads it, its nulls (no return) as +∞.
fn no_return_as_infinite<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<f64>>, D::Error> {
    let scan = Option::<Vec<Option<f64>>>::deserialize(d)?;
    Ok(scan.map(|s| s.into_iter().map(|r| r.unwrap_or(f64::INFINITY)).collect()))
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

impl LogError {
    /// The same error with `note` added to its message (an I/O error becomes a message).
    pub fn noted(self, note: &str) -> LogError {
        match self {
            LogError::Line {
                file,
                line,
                message,
            } => LogError::Line {
                file,
                line,
                message: format!("{message}; {note}"),
            },
            LogError::File { file, message } => LogError::File {
                file,
                message: format!("{message}; {note}"),
            },
            LogError::Io(e, file) => LogError::File {
                file,
                message: format!("{e}; {note}"),
            },
        }
    }
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
    let read = if csv {
        read_csv(file, input, &mut bad, &mut |n, r| {
            records += 1;
            each(n, r)
        })
    } else {
        read_json_lines(file, input, &mut bad, &mut |n, r| {
            records += 1;
            each(n, r)
        })
    };
    match read {
        // A file whose first record does not parse is most likely no log at all (a
        // route, a scenario, a text): say what a log is, not only the parser's words.
        Err(LogError::Line { line, message, .. }) if records == 0 && !csv => {
            return Err(LogError::File {
                file: file.to_string(),
                message: format!(
                    "not an acres log: a log is JSON Lines, one `acres sim --log` record a \
                     line (or a CSV log, or a ROS 2 bag with --log-format bag; docs/formats.md \
                     \"Logs\"); line {line}: {message}"
                ),
            });
        }
        r => r?,
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
/// that does not parse is reported as cut off. Where the machine has a second core, the
/// lines are parsed on a thread of their own while this one reads the next lines and runs
/// `each` (parsing is about half of a replay's time), and the two share the reading of
/// the scan values as their loads say ([`Share`]); the records, the errors and their
/// order are the same either way.
fn read_json_lines(
    file: &str,
    input: impl BufRead,
    bad: &mut BadLine,
    each: &mut Each,
) -> Result<(), LogError> {
    let threads = std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
    read_json_lines_on(file, input, threads, bad, each)
}

/// [`read_json_lines`], parsing on a thread of its own or not as `threads` says.
fn read_json_lines_on(
    file: &str,
    input: impl BufRead,
    threads: bool,
    bad: &mut BadLine,
    each: &mut Each,
) -> Result<(), LogError> {
    let mut lines = Lines {
        file,
        input,
        line: 0,
    };
    if !threads {
        return read_pipelined(&mut lines, &mut |b| Ok(b.map(alone)), bad, each);
    }
    std::thread::scope(|s| {
        let (to_parser, batches) = std::sync::mpsc::sync_channel::<Batch>(IN_FLIGHT);
        let (to_reader, parsed) = std::sync::mpsc::sync_channel::<Batch>(IN_FLIGHT);
        let parser = std::thread::Builder::new().name("acres-parse".into());
        let spawned = parser.spawn_scoped(s, move || {
            let mut share = Share::default();
            while let Some(b) = share.next(&batches) {
                // The reader stopped (an error of `each`): nothing more is wanted.
                if to_reader.send(parse_batch(b, share.deferred)).is_err() {
                    return;
                }
            }
        });
        if spawned.is_err() {
            // No thread to be had: parse on this one.
            return read_pipelined(&mut lines, &mut |b| Ok(b.map(alone)), bad, each);
        }
        // The reader keeps at most IN_FLIGHT batches out, so that neither channel ever
        // blocks the parser, and the memory stays bounded.
        let mut in_flight = 0usize;
        let mut round_trip = |b: Option<Batch>| -> Result<Option<Batch>, LogError> {
            if let Some(b) = b {
                to_parser.send(b).map_err(|_| parser_gone(file))?;
                in_flight += 1;
                if in_flight < IN_FLIGHT {
                    return Ok(None);
                }
            } else if in_flight == 0 {
                return Ok(None);
            }
            in_flight -= 1;
            parsed.recv().map(Some).map_err(|_| parser_gone(file))
        };
        read_pipelined(&mut lines, &mut round_trip, bad, each)
    })
}

/// A batch parsed on the thread that takes its records: nothing to share.
fn alone(b: Batch) -> Batch {
    parse_batch(b, 0)
}

/// How the parsing thread shares the reading of scan values with the thread that takes
/// the records: of every [`SHARE_OF`] lines, `deferred` are left to that thread. The
/// share follows which thread waits: a batch already waiting when the parser turns to
/// the next one means the parser is behind (it leaves one line more in each
/// [`SHARE_OF`]), a batch to wait for means it is ahead (one fewer). The records are
/// the same whichever thread reads the values.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Share {
    deferred: usize,
}

impl Default for Share {
    fn default() -> Share {
        Share {
            deferred: SHARE_OF / 2,
        }
    }
}

/// The lines over which [`Share`] counts.
const SHARE_OF: usize = 8;

impl Share {
    /// The next batch to parse, None once the reader is done; moves the share.
    fn next(&mut self, batches: &std::sync::mpsc::Receiver<Batch>) -> Option<Batch> {
        match batches.try_recv() {
            Ok(b) => {
                self.deferred = (self.deferred + 1).min(SHARE_OF);
                Some(b)
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {
                self.deferred = self.deferred.saturating_sub(1);
                batches.recv().ok()
            }
            Err(std::sync::mpsc::TryRecvError::Disconnected) => None,
        }
    }
}

/// The error of a parsing thread that ended before its work (it panicked).
fn parser_gone(file: &str) -> LogError {
    LogError::File {
        file: file.to_string(),
        message: "the parsing thread stopped".into(),
    }
}

/// Lines handed to the parser at a time, and bytes: a batch closes at either.
const BATCH_LINES: usize = 128;
const BATCH_BYTES: usize = 512 << 10;
/// Batches between the reader and the parser at most: bounds the memory of a replay.
const IN_FLIGHT: usize = 3;

/// Lines of a log and their records: the reader fills the lines, the parser the
/// records. A batch goes back and forth between the two threads, so that the memory of
/// its records' scans is reused on the thread that allocated it, not freed on another.
#[derive(Debug, Default)]
struct Batch {
    /// The lines' bytes, and each line's number, span (its text without the line end)
    /// and whether it ended with its newline.
    bytes: Vec<u8>,
    lines: Vec<(u64, std::ops::Range<usize>, bool)>,
    /// Each line's record or serde_json's error, in the order of `lines`.
    records: Vec<Result<Record, serde_json::Error>>,
    /// Where a record's scan values are still to be read (the bytes inside the brackets,
    /// in `bytes`): the parser leaves them to the thread that takes the records, which
    /// has time to spare (the parse of a row's other keys costs about as much as the
    /// chain's step), so that the two threads' shares are closer.
    pending: Vec<Option<std::ops::Range<usize>>>,
    /// serde_json's buffer for the line without its scan.
    rest: Vec<u8>,
}

/// How a batch's filling ended.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fill {
    /// At a batch's limits: the input may hold more.
    Full,
    /// Where the input had nothing more buffered: reading on may wait for the next line.
    Idle,
    /// At the input's end, or at the error that ends it.
    End,
}

/// Parses a batch's lines into its records, reusing the scans of its last records; of
/// every [`SHARE_OF`] lines the fast path takes, the scan values of the first `deferred`
/// are left pending (see [`read_scans`]).
fn parse_batch(mut b: Batch, deferred: usize) -> Batch {
    let mut spare: Vec<Vec<f64>> = (b.records.drain(..))
        .filter_map(|r| r.ok().and_then(|r| r.scan))
        .collect();
    b.pending.clear();
    for (i, (_, span, _)) in b.lines.iter().enumerate() {
        let scan = spare.pop().unwrap_or_else(|| Vec::with_capacity(360));
        let (mut r, values) = parse_line_rest(&b.bytes[span.clone()], &mut b.rest, scan);
        let values = values.map(|v| span.start + v.start..span.start + v.end);
        if i % SHARE_OF < deferred {
            b.pending.push(values);
        } else {
            if let Some(values) = values {
                read_scan(&mut r, &b.bytes[values], &b.bytes[span.clone()]);
            }
            b.pending.push(None);
        }
        b.records.push(r);
    }
    b
}

/// Reads a record's scan values (the bytes inside the brackets) into its scan; where the
/// fast path does not take them, the record is serde_json's of the whole `line`.
fn read_scan(r: &mut Result<Record, serde_json::Error>, values: &[u8], line: &[u8]) {
    if let Ok(Record {
        scan: Some(scan), ..
    }) = r
        && !scan_values(values, scan)
    {
        *r = serde_json::from_slice(line);
    }
}

/// Reads the pending scan values of a parsed batch into their records; a line whose
/// values the fast path does not take is parsed again by serde_json alone, as
/// [`parse_line`] does.
fn read_scans(b: &mut Batch) {
    let lines = b.lines.iter().zip(&mut b.records);
    for (((_, span, _), r), pending) in lines.zip(&mut b.pending) {
        if let Some(values) = pending.take() {
            read_scan(r, &b.bytes[values], &b.bytes[span.clone()]);
        }
    }
}

/// A log's input, read a batch at a time, and the number of the last line read.
struct Lines<'a, R> {
    file: &'a str,
    input: R,
    line: u64,
}

impl<R: BufRead> Lines<'_, R> {
    /// Fills `b` with the next lines (blank ones skipped) up to a batch's limits, or up to
    /// the end of what the input has buffered. Returns how the filling ended, and the
    /// error that ends the input (a read error, a line over [`MAX_LINE`]): the lines
    /// before it are still in `b`.
    fn fill(&mut self, b: &mut Batch) -> (Fill, Option<LogError>) {
        b.bytes.clear();
        b.lines.clear();
        if b.bytes.capacity() > 4 * BATCH_BYTES {
            // A batch that held a huge line does not keep its memory.
            b.bytes = Vec::new();
        }
        while b.lines.len() < BATCH_LINES && b.bytes.len() < BATCH_BYTES {
            let at = b.bytes.len();
            let (n, drained) = match read_line(&mut self.input, &mut b.bytes) {
                Ok((0, _)) => return (Fill::End, None),
                Ok(read) => read,
                Err(e) => return (Fill::End, Some(LogError::Io(e, self.file.to_string()))),
            };
            self.line += 1;
            if n > MAX_LINE {
                b.bytes.truncate(at);
                let message = format!("a line of over {} MiB (not a log)", MAX_LINE >> 20);
                let (file, line) = (self.file.to_string(), self.line);
                return (
                    Fill::End,
                    Some(LogError::Line {
                        file,
                        line,
                        message,
                    }),
                );
            }
            let ended = b.bytes.ends_with(b"\n");
            let text = b.bytes[at..].trim_ascii_end().len();
            if text > 0 {
                b.lines.push((self.line, at..at + text, ended));
            }
            // All that was written is read: the batch goes now, not when the next lines
            // come, so that a live stream (a recording piped in) is replayed as it comes.
            if drained && !b.lines.is_empty() {
                return (Fill::Idle, None);
            }
        }
        (Fill::Full, None)
    }
}

/// Reads the batches of `lines` and hands each to `parse`, which gives back a parsed
/// batch or None (it keeps the batch for later: `parse(None)` then gives back the
/// oldest it holds, None when it holds none); the records go to `each` in the order of
/// the lines.
fn read_pipelined<R: BufRead>(
    lines: &mut Lines<R>,
    parse: &mut dyn FnMut(Option<Batch>) -> Result<Option<Batch>, LogError>,
    bad: &mut BadLine,
    each: &mut Each,
) -> Result<(), LogError> {
    let mut spare = Vec::new();
    loop {
        let mut b: Batch = spare.pop().unwrap_or_default();
        let (fill, end) = lines.fill(&mut b);
        // At the end, every batch still out is taken before the end's error; where the
        // input is idle, before reading on (which may wait for the next line).
        let drain = fill != Fill::Full;
        let mut got = if b.lines.is_empty() {
            spare.push(b);
            None
        } else {
            parse(Some(b))?
        };
        loop {
            let mut p = match got.take() {
                Some(p) => p,
                None if drain => match parse(None)? {
                    Some(p) => p,
                    None => break,
                },
                None => break,
            };
            read_scans(&mut p);
            take_records(&p, bad, each)?;
            spare.push(p);
        }
        if fill == Fill::End {
            return end.map_or(Ok(()), Err);
        }
    }
}

/// Hands a batch's records to `each` and its bad lines to `bad`.
fn take_records(b: &Batch, bad: &mut BadLine, each: &mut Each) -> Result<(), LogError> {
    for (&(line, _, ended), parsed) in b.lines.iter().zip(&b.records) {
        match parsed {
            Ok(r) => match r.check_bounds() {
                Ok(()) => each(line, r)?,
                Err(m) => bad(line, m)?,
            },
            Err(e) if !ended => bad(
                line,
                format!("the last line is cut off (a truncated log): {e}"),
            )?,
            Err(e) => bad(line, e.to_string())?,
        }
    }
    Ok(())
}

/// The longest line a log may hold: a record of 100,000 beams is under 2 MiB.
const MAX_LINE: usize = 64 << 20;

/// Appends the next line of `input` with its newline to `buf` (std's `read_until` with the
/// memchr crate's vectorised search, a tenth of the reading time of a 3.5 kB line), and
/// stops past [`MAX_LINE`] bytes so that a file without newlines is not read whole.
/// Returns the bytes read and whether the line ended where the input's buffer did (the
/// next line may not be written yet: a live stream).
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<(usize, bool)> {
    let mut n = 0;
    loop {
        let avail = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let (take, done) = match memchr::memchr(b'\n', avail) {
            Some(i) => (i + 1, true),
            None => (avail.len(), avail.is_empty()),
        };
        let drained = take == avail.len();
        buf.extend_from_slice(&avail[..take]);
        input.consume(take);
        n += take;
        if done || n > MAX_LINE {
            return Ok((n, drained));
        }
    }
}

/// One record of a JSON line. The scan array, nearly all of a line, is read by
/// [`scan_values`], three times faster than serde_json's generic reading of 360
/// `Option<f64>`; the members the record does not read are checked by [`skim`] and left
/// out, and the rest (copied into `rest`) is read by serde_json. A line the fast path
/// does not take in full (spaces in the scan, escapes, a number JSON does not allow) is
/// read by serde_json alone, so that the values and the errors are serde_json's.
#[cfg(test)]
fn parse_line(line: &[u8], rest: &mut Vec<u8>) -> Result<Record, serde_json::Error> {
    // The scan values read by the parser, and left to the reader: the same either way.
    let parse = |deferred: usize, rest: Vec<u8>| {
        let mut b = Batch {
            bytes: line.to_vec(),
            lines: vec![(1, 0..line.len(), true)],
            rest,
            ..Batch::default()
        };
        b = parse_batch(b, deferred);
        read_scans(&mut b);
        (b.records.pop().expect("a record a line"), b.rest)
    };
    let (here, _) = parse(0, Vec::new());
    let (there, used) = parse(SHARE_OF, std::mem::take(rest));
    *rest = used;
    assert_eq!(format!("{here:?}"), format!("{there:?}"));
    there
}

/// The first part of [`parse_line`], with the memory of an earlier scan (`scan`,
/// emptied) for this one's: the record with its scan empty and where its values are in
/// the line, still to be read by [`scan_values`]; or the record or error of serde_json
/// alone where the fast path does not take the line.
fn parse_line_rest(
    line: &[u8],
    rest: &mut Vec<u8>,
    mut scan: Vec<f64>,
) -> (
    Result<Record, serde_json::Error>,
    Option<std::ops::Range<usize>>,
) {
    scan.clear();
    if let Some(values) = skim_line(line, rest)
        && let Ok(mut r) = serde_json::from_slice::<Record>(rest)
    {
        // `rest` has no scan: the record's is the one the line has, if any.
        r.scan = values.is_some().then_some(scan);
        return (Ok(r), values);
    }
    (serde_json::from_slice(line), None)
}

/// The keys of a line's outer object that a [`Record`] reads besides `scan`, and those of
/// its command row.
const RECORD_KEYS: [&[u8]; 4] = [b"step", b"t", b"state", b"row"];
const ROW_KEYS: [&[u8]; 2] = [b"curvature_per_m", b"speed_mps"];

/// Writes into `rest` the line's outer object with only the members a [`Record`] reads
/// (`row` with only its command), every other member checked by [`skim`] and left out;
/// returns where the scan's values are (the bytes between its brackets, still to be
/// read by [`scan_values`]), if it has one. None where the line is not taken, so that
/// serde_json reads it whole: text [`skim`] is unsure of, a second `scan`, or a `scan`
/// that is not an array.
fn skim_line(line: &[u8], rest: &mut Vec<u8>) -> Option<Option<std::ops::Range<usize>>> {
    rest.clear();
    rest.push(b'{');
    let mut scan = None;
    let end = skim::members(line, 0, |key, at, value| match key {
        b"scan" => {
            let open = (line.get(value) == Some(&b'[') && scan.is_none()).then_some(value + 1)?;
            // The values are checked as they are read; where they are not taken, serde_json
            // reads the line again.
            let close = open + memchr::memchr(b']', &line[open..])?;
            scan = Some(open..close);
            Some(close + 1)
        }
        b"row" if line.get(value) == Some(&b'{') => {
            skim::push_member(rest, line, at..value);
            rest.push(b'{');
            let end = skim::members(line, value, |key, at, value| {
                keep_member(rest, line, (key, at, value), &ROW_KEYS)
            })?;
            rest.push(b'}');
            Some(end)
        }
        _ => keep_member(rest, line, (key, at, value), &RECORD_KEYS),
    })?;
    rest.push(b'}');
    (end == line.len()).then_some(scan)
}

/// Checks a member's value (its key, where it starts, where its value starts) and copies
/// the member into `rest` if its key is one of `keys`; the index past its value. Inlined
/// into both walks: called apart it cost 1.3 k instructions a row (2.9 %).
#[inline(always)]
fn keep_member(
    rest: &mut Vec<u8>,
    line: &[u8],
    (key, at, value): (&[u8], usize, usize),
    keys: &[&[u8]],
) -> Option<usize> {
    let end = skim::value_end(line, value)?;
    if keys.contains(&key) {
        skim::push_member(rest, line, at..end);
    }
    Some(end)
}

/// `item` as text where it is a number by JSON's grammar, without a UTF-8 check of its
/// own: that check cost 125 instructions a number, 3 k a replayed row.
fn number_text(item: &[u8]) -> Option<&str> {
    if !skim::json_number(item) {
        return None;
    }
    debug_assert!(item.is_ascii());
    // SAFETY: JSON's number grammar has only ASCII bytes (`-+.eE` and digits), and
    // ASCII is UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(item) })
}

/// Eight `null,` in a row, as the five words they fill.
const EIGHT_NULLS: [u64; 5] = {
    let text = b"null,null,null,null,null,null,null,null,";
    let mut words = [0; 5];
    let mut k = 0;
    while k < 5 {
        let mut w = [0; 8];
        let mut j = 0;
        while j < 8 {
            w[j] = text[8 * k + j];
            j += 1;
        }
        words[k] = u64::from_ne_bytes(w);
        k += 1;
    }
    words
};

/// How many times `null,` repeats at the start of `s`: eight at a time (forty bytes
/// compared as five words), then one at a time.
fn null_run(s: &[u8]) -> usize {
    let word = |c: &[u8], k: usize| {
        let bytes: [u8; 8] = c[8 * k..8 * k + 8].try_into().expect("eight bytes");
        u64::from_ne_bytes(bytes)
    };
    let eights = s
        .chunks_exact(40)
        .take_while(|c| (0..5).fold(0, |d, k| d | (word(c, k) ^ EIGHT_NULLS[k])) == 0)
        .count();
    let ones = s[40 * eights..]
        .chunks_exact(5)
        .take_while(|c| *c == b"null,")
        .count();
    8 * eights + ones
}

/// The values of a scan array's inside (`null` or a JSON number, comma-separated, no
/// spaces), a null as +∞; false where it holds anything else, a number out of f64's
/// range included.
fn scan_values(inside: &[u8], out: &mut Vec<f64>) -> bool {
    if inside.is_empty() {
        return true;
    }
    let mut i = 0;
    loop {
        // Most beams have no return: a run of `null,` is counted and written at once.
        let run = null_run(&inside[i..]);
        out.resize(out.len() + run, f64::INFINITY);
        i += 5 * run;
        let item = if inside[i..].starts_with(b"null") {
            out.push(f64::INFINITY);
            i + 4
        } else {
            let end = memchr::memchr(b',', &inside[i..]).map_or(inside.len(), |n| i + n);
            let item = &inside[i..end];
            // std's parse rounds correctly, as serde_json does.
            match number_text(item).map(str::parse::<f64>) {
                Some(Ok(v)) if v.is_finite() => out.push(v),
                _ => return false,
            }
            end
        };
        match inside.get(item) {
            None => return true,
            Some(b',') if item + 1 < inside.len() => i = item + 1,
            Some(_) => return false,
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
        // A column that acres reads, named twice: which one holds the value is a guess.
        let read = |h: &str| {
            CSV_KEYS.contains(&h)
                || h == "gear"
                || h.strip_prefix("scan_")
                    .is_some_and(|n| n.parse::<u32>().is_ok())
        };
        let mut seen = std::collections::HashSet::new();
        if let Some(h) = headers.iter().find(|&h| read(h) && !seen.insert(h)) {
            return Err(LogError::File {
                file: file.to_string(),
                message: format!("column `{h}` appears twice in the header"),
            });
        }
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
        let g = match self.opt(rec, self.gear)? {
            // 0: no gear reported (the bridge's "none"); the speed's sign decides.
            Some(0.0) => None,
            Some(g) => {
                let n = ((1.0..=5.0).contains(&g) && g.fract() == 0.0).then_some(g as u8);
                let gear = n.and_then(Gear::from_number).ok_or_else(|| {
                    let g = crate::formats::bounds::show(g);
                    format!("column `gear`: {g} is not a gear number (0 to 5, 0 for none)")
                })?;
                Some(gear)
            }
            None => None,
        };
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
                    Ok(f64::INFINITY)
                } else {
                    self.num(rec, i)
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
        let checked = cols.record(&rec, step).and_then(|r| {
            r.check_bounds_named(&CSV_KEYS)
                .map_err(|m| format!("column {m}"))?;
            Ok(r)
        });
        match checked {
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
    use proptest::prelude::*;
    use std::io::Read;

    const HEAD: &str = r#""step":3,"t":0.06,"state":{"pose":{"x_m":1.5,"y_m":-2.0,"yaw_rad":0.1},"speed_mps":2.0,"yaw_rate_rps":0.0,"gear":"high"}"#;

    /// The fast path and serde_json alone agree: the same record, or both an error.
    fn agree(line: &str) {
        let fast = parse_line(line.as_bytes(), &mut Vec::new());
        let slow = serde_json::from_str::<Record>(line);
        match (fast, slow) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{line}"),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{line}: fast {a:?}, serde_json {b:?}"),
        }
    }

    /// The first error of reading `text` whole, or None.
    fn first_error(text: &str, csv: bool) -> Option<String> {
        read_records("log", text.as_bytes(), csv, false, |_, _| Ok(()))
            .err()
            .map(|e| e.to_string())
    }

    /// Numbers beyond docs/formats.md "Bounds" are refused naming the line and the key;
    /// issue 63 found a speed of -1e300, an x of 1e308 and a yaw of 1e300 taken.
    #[test]
    fn a_record_beyond_the_bounds_is_refused_naming_its_key() {
        // A good first line, so that the error is the line's (not "not an acres log").
        let line = |from: &str, to: &str| {
            let one = |s: String| format!("{{{s}}}\n");
            one(HEAD.into()) + &one(HEAD.replace("\"step\":3", "\"step\":4").replace(from, to))
        };
        assert_eq!(first_error(&line("", ""), false), None);
        for (from, to, want) in [
            (
                "\"speed_mps\":2.0",
                "\"speed_mps\":-1e300",
                "`state.speed_mps`: -1e300 is outside -100 to 100 m/s",
            ),
            (
                "\"x_m\":1.5",
                "\"x_m\":1e308",
                "`state.pose.x_m`: 1e308 is outside -1e8 to 1e8 m",
            ),
            (
                "\"yaw_rad\":0.1",
                "\"yaw_rad\":1e300",
                "`state.pose.yaw_rad`: 1e300 is outside",
            ),
            ("\"t\":0.06", "\"t\":1e11", "`t`: 1e11 is outside"),
        ] {
            let e = first_error(&line(from, to), false).expect(want);
            assert!(e.starts_with("log:2: key ") && e.contains(want), "{e}");
        }
        // Just inside: taken.
        assert_eq!(
            first_error(&line("\"speed_mps\":2.0", "\"speed_mps\":-100"), false),
            None
        );
    }

    /// A CSV's gear must be a gear number and no column that acres reads may be named
    /// twice (issue 63: gear 1e308 and -5 were taken as the speed's direction, and of
    /// two `x_m` columns the first was read without a word).
    #[test]
    fn a_csv_gear_beyond_its_numbers_and_a_column_named_twice_are_refused() {
        let csv = |head: &str, row: &str| format!("{head}\n{row}\n");
        let head = "t,x_m,y_m,yaw_rad,speed_mps,gear";
        assert_eq!(first_error(&csv(head, "0,1,2,0,1,4"), true), None);
        assert_eq!(first_error(&csv(head, "0,1,2,0,1,0"), true), None);
        for (gear, want) in [("1e308", "1e308"), ("-5", "-5"), ("2.5", "2.5"), ("6", "6")] {
            let e = first_error(&csv(head, &format!("0,1,2,0,1,{gear}")), true).unwrap();
            assert!(
                e.starts_with("log:2: column `gear`: ") && e.contains(want),
                "{e}"
            );
        }
        let e = first_error(&csv(head, "0,1e9,2,0,1,4"), true).unwrap();
        assert!(e.contains("log:2: column `x_m`: 1e9 is outside"), "{e}");
        let twice = csv("t,x_m,y_m,yaw_rad,speed_mps,x_m", "0,1,2,0,1,5");
        let e = first_error(&twice, true).unwrap();
        assert!(e.contains("column `x_m` appears twice"), "{e}");
        // A column acres does not read may repeat.
        let other = csv("t,x_m,y_m,yaw_rad,speed_mps,note,note", "0,1,2,0,1,a,b");
        assert_eq!(first_error(&other, true), None);
    }

    #[test]
    fn the_scan_is_read_where_it_stands() {
        let first = format!(r#"{{"scan":[null,1.5,2e1],{HEAD}}}"#);
        let last = format!(r#"{{{HEAD},"scan":[null,1.5,2e1]}}"#);
        let spaced = format!(r#"{{{HEAD}, "scan": [ null , 1.5 ,2e1]}}"#);
        for line in [&first, &last, &spaced] {
            let r = parse_line(line.as_bytes(), &mut Vec::new()).unwrap();
            assert_eq!(r.scan, Some(vec![f64::INFINITY, 1.5, 20.0]), "{line}");
            agree(line);
        }
        let empty = format!(r#"{{{HEAD},"scan":[]}}"#);
        assert_eq!(
            parse_line(empty.as_bytes(), &mut Vec::new()).unwrap().scan,
            Some(vec![])
        );
    }

    /// The parser leaves more scans to the reader while batches wait for it, never more
    /// than all; it stops when the reader has gone and every batch is taken.
    #[test]
    fn the_share_follows_the_waiting_thread() {
        let (tx, rx) = std::sync::mpsc::sync_channel(16);
        for _ in 0..10 {
            tx.send(Batch::default()).unwrap();
        }
        drop(tx);
        let mut share = Share::default();
        let mut seen = Vec::new();
        while share.next(&rx).is_some() {
            seen.push(share.deferred);
        }
        assert_eq!(seen, [5, 6, 7, 8, 8, 8, 8, 8, 8, 8]);
    }

    /// A `scan` of a nested object is not the record's, and a second one is an error.
    #[test]
    fn only_the_outer_scan_counts() {
        let nested =
            format!(r#"{{{HEAD},"row":{{"scan":[1.0],"curvature_per_m":0.0,"speed_mps":1.0}}}}"#);
        let r = parse_line(nested.as_bytes(), &mut Vec::new()).unwrap();
        assert_eq!(r.scan, None);
        let in_string = format!(r#"{{{HEAD},"note":"{{\"scan\":[1.0]}}"}}"#);
        assert_eq!(
            parse_line(in_string.as_bytes(), &mut Vec::new())
                .unwrap()
                .scan,
            None
        );
        // Brackets and escaped quotes in a string before the scan do not count.
        let braced = format!(r#"{{{HEAD},"note":"{{[\"x","scan":[1.0]}}"#);
        let mut rest = Vec::new();
        assert_eq!(
            parse_line(braced.as_bytes(), &mut rest).unwrap().scan,
            Some(vec![1.0])
        );
        assert!(!rest.is_empty(), "the fast path took the line");
        let twice = format!(r#"{{{HEAD},"scan":[1.0],"scan":[2.0]}}"#);
        assert!(parse_line(twice.as_bytes(), &mut Vec::new()).is_err());
        for line in [nested, in_string, braced, twice] {
            agree(&line);
        }
    }

    /// Numbers JSON does not allow, or out of f64's range, are serde_json's errors.
    #[test]
    fn numbers_follow_json() {
        for bad in [
            "01", "1.", ".5", "+1", "-", "1e", "1e+", "NaN", "inf", "1e400", "0x1", "1,",
        ] {
            let line = format!(r#"{{{HEAD},"scan":[null,{bad}]}}"#);
            assert!(
                parse_line(line.as_bytes(), &mut Vec::new()).is_err(),
                "{bad}"
            );
        }
        for nulls in ["null,", "null,null,", "nul", "null1", "nullx,1", "null,nul"] {
            let line = format!(r#"{{{HEAD},"scan":[{nulls}]}}"#);
            assert!(
                parse_line(line.as_bytes(), &mut Vec::new()).is_err(),
                "{nulls}"
            );
        }
        agree(&format!(r#"{{{HEAD},"scan":[null,null,null,1.0,null]}}"#));
        agree(&format!(r#"{{{HEAD},"scan":[null , null]}}"#));
        for good in [
            "0",
            "-0",
            "0.25",
            "12.5e-3",
            "1E+2",
            "-7.0E2",
            "123456789.123456789",
        ] {
            agree(&format!(r#"{{{HEAD},"scan":[{good},null]}}"#));
        }
    }

    /// Members the record does not read are left out when they are JSON, and the line
    /// is serde_json's error when they are not; the row keeps only its command.
    #[test]
    fn ignored_members_are_checked_not_read() {
        let row = r#""row":{"source":"driver","requested":{"curvature_per_m":0.5},"curvature_per_m":0.1,"interventions":[],"speed_mps":2.5,"finished":false}"#;
        let good = format!(
            r#"{{{HEAD},"dbw":{{"t":0.5,"ok":[true,null,-1.5e-3,{{}}],"s":"x y"}},{row},"scan":[null,3.0]}}"#
        );
        let r = parse_line(good.as_bytes(), &mut Vec::new()).unwrap();
        assert_eq!(r.logged.map(|c| c.speed_mps), Some(2.5));
        assert_eq!(r.scan, Some(vec![f64::INFINITY, 3.0]));
        agree(&good);
        for line in [
            // Bad JSON in an ignored member, a cut-off one, trailing text.
            format!(r#"{{{HEAD},"dbw":{{"t":01}},"scan":[]}}"#),
            format!(r#"{{{HEAD},"dbw":{{"t":0.5,}},"scan":[]}}"#),
            format!(r#"{{{HEAD},"dbw":[1,2"#),
            format!(r#"{{{HEAD},"scan":[]}}x"#),
            // A row without its command, with it twice, or not an object.
            format!(r#"{{{HEAD},"row":{{"speed_mps":1.0}}}}"#),
            format!(r#"{{{HEAD},{row},"row":null}}"#),
            format!(r#"{{{HEAD},"row":{{"curvature_per_m":0.1,"speed_mps":1,"speed_mps":2}}}}"#),
            format!(r#"{{{HEAD},"row":"x"}}"#),
            format!(r#"{{{HEAD},"scan":[1.0,[2.0]],"dbw":{{}}}}"#),
        ] {
            assert!(
                parse_line(line.as_bytes(), &mut Vec::new()).is_err(),
                "{line}"
            );
            agree(&line);
        }
        for line in [
            // Escapes and text the fast path is unsure of: serde_json reads them.
            format!(r#"{{{HEAD},"dbw":{{"s":"a\"b\u00e9"}},"scan":[1.0]}}"#),
            format!(r#"{{"st\u0065p":3,{},"scan":[1.0]}}"#, &HEAD[9..]),
            format!("{{{HEAD},\"note\":\"caf\u{e9}\",\"scan\":[1.0]}}"),
            format!(r#"{{{HEAD},"row":null,"dbw":{{ "a" : [ 1 , 2 ] }}}}"#),
            format!(r#"{{{HEAD}}}"#),
            format!(r#"{{{HEAD},"scan":null}}"#),
            format!(r#"{{{HEAD},"dbw":{}{}}}"#, "[".repeat(100), "]".repeat(100)),
        ] {
            agree(&line);
        }
    }

    proptest! {
        /// Any extra members (compact or spaced, a byte changed or not) and any row: the
        /// fast path and serde_json alone give the same record, or both an error.
        #[test]
        fn extra_members_agree_with_serde_json(
            extra in prop::collection::vec(("[a-z]{1,6}", crate::formats::skim::tests::any_json()), 0..4),
            row in prop::option::of(crate::formats::skim::tests::any_json()),
            spaced in any::<bool>(),
            flip in prop::option::of((any::<prop::sample::Index>(), crate::formats::skim::tests::json_byte())),
        ) {
            let mut members = vec![HEAD.to_string(), r#""scan":[null,4.5]"#.to_string()];
            for (k, v) in &extra {
                let v = if spaced { serde_json::to_string_pretty(v) } else { serde_json::to_string(v) };
                members.push(format!(r#""{k}":{}"#, v.unwrap()));
            }
            if let Some(mut row) = row {
                if let serde_json::Value::Object(m) = &mut row {
                    m.insert("curvature_per_m".into(), 0.25.into());
                    m.insert("speed_mps".into(), 1.5.into());
                }
                members.push(format!(r#""row":{row}"#));
            }
            let mut line = format!("{{{}}}", members.join(",")).into_bytes();
            if let Some((at, byte)) = flip {
                let at = at.index(line.len());
                line[at] = byte;
            }
            let fast = parse_line(&line, &mut Vec::new());
            let slow = serde_json::from_slice::<Record>(&line);
            match (fast, slow) {
                (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
                (Err(_), Err(_)) => {}
                (a, b) => prop_assert!(false, "{}: fast {:?}, serde_json {:?}", String::from_utf8_lossy(&line), a, b),
            }
        }
    }

    proptest! {
        /// Runs of `null,` of any length, cut anywhere and with any byte changed: counted
        /// as a five-byte compare at a time counts them.
        #[test]
        fn null_runs_are_counted_as_one_at_a_time(
            nulls in 0usize..40,
            tail in prop::sample::select(vec!["", "null", "nul", "null]", "1.5,", "null1", ",", "x"]),
            cut in any::<prop::sample::Index>(),
            flip in prop::option::of((any::<prop::sample::Index>(), any::<u8>())),
        ) {
            let mut text = "null,".repeat(nulls).into_bytes();
            text.extend_from_slice(tail.as_bytes());
            text.truncate(cut.index(text.len() + 1));
            if let (Some((at, byte)), false) = (flip, text.is_empty()) {
                let at = at.index(text.len());
                text[at] = byte;
            }
            let plain = text.chunks_exact(5).take_while(|c| *c == b"null,").count();
            prop_assert_eq!(null_run(&text), plain);
        }
    }

    proptest! {
        /// Any scan, as serde_json writes it: the fast path reads the same values.
        #[test]
        fn the_fast_path_reads_what_serde_json_reads(
            scan in prop::collection::vec(prop::option::of(0.0f64..1e6), 0..400),
            first in any::<bool>(),
        ) {
            let s = serde_json::to_string(&scan).unwrap();
            let line = if first {
                format!(r#"{{"scan":{s},{HEAD}}}"#)
            } else {
                format!(r#"{{{HEAD},"scan":{s}}}"#)
            };
            let r = parse_line(line.as_bytes(), &mut Vec::new()).unwrap();
            let ranges = scan.iter().map(|r| r.unwrap_or(f64::INFINITY)).collect();
            prop_assert_eq!(r.scan, Some(ranges));
        }
    }

    /// A file without newlines is refused at the line limit, not read whole; the lines
    /// before it are handed on first, whichever thread parses them.
    #[test]
    fn a_line_has_a_limit() {
        let good: String = (1..=300)
            .map(|n| format!("{{\"step\":{n},{}}}\n", &HEAD[9..]))
            .collect();
        for threads in [false, true] {
            let big = good
                .as_bytes()
                .chain(std::io::repeat(b'x').take(MAX_LINE as u64 + 10));
            let big = std::io::BufReader::new(big);
            let (lines, _, end) = read_log(big, threads, false, usize::MAX);
            assert_eq!(lines, (1..=300).collect::<Vec<_>>());
            assert!(
                end.unwrap_err()
                    .starts_with("log:301: a line of over 64 MiB")
            );
        }
    }

    /// A stream written a line at a time (what a pipe gives).
    struct Live(std::sync::mpsc::Receiver<Vec<u8>>);

    impl std::io::Read for Live {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let wait = std::time::Duration::from_secs(3);
            let Ok(chunk) = self.0.recv_timeout(wait) else {
                return Ok(0);
            };
            out[..chunk.len()].copy_from_slice(&chunk);
            Ok(chunk.len())
        }
    }

    /// A live stream is replayed as it comes: each line reaches `each` before the next is
    /// written (a batch does not wait for lines not yet written).
    #[test]
    fn a_live_stream_is_not_held_back() {
        for threads in [false, true] {
            let (to_stream, stream) = std::sync::mpsc::channel();
            let (ack, acks) = std::sync::mpsc::channel();
            let writer = std::thread::spawn(move || {
                let wait = std::time::Duration::from_secs(3);
                for n in 1..=5u64 {
                    let line = format!("{{\"step\":{n},{}}}\n", &HEAD[9..]);
                    to_stream.send(line.into_bytes()).unwrap();
                    // The next line is written only once this one was replayed.
                    if acks.recv_timeout(wait) != Ok(n) {
                        return n - 1;
                    }
                }
                5
            });
            let input = std::io::BufReader::new(Live(stream));
            let (mut bad, mut each) = (
                |_, m| panic!("{m}"),
                |n, _: &Record| {
                    let _ = ack.send(n);
                    Ok(())
                },
            );
            read_json_lines_on("live", input, threads, &mut bad, &mut each).unwrap();
            assert_eq!(writer.join().unwrap(), 5, "lines replayed as written");
        }
    }

    /// Reads a log as `read_records` does, parsing on a thread of its own or not, with
    /// `each` failing after `stop` records: the lines of the records, the lines skipped
    /// and how the reading ended.
    fn read_log(
        input: impl BufRead,
        threads: bool,
        skip_bad: bool,
        stop: usize,
    ) -> (Vec<u64>, Vec<u64>, Result<(), String>) {
        let (mut lines, mut skipped) = (Vec::new(), Vec::new());
        let end = read_json_lines_on(
            "log",
            input,
            threads,
            &mut |n, message| {
                if skip_bad {
                    skipped.push(n);
                    return Ok(());
                }
                let file = "log".to_string();
                Err(LogError::Line {
                    file,
                    line: n,
                    message,
                })
            },
            &mut |n, r| {
                assert_eq!(r.step, n, "the record of line {n}");
                if lines.len() == stop {
                    let message = "stop".to_string();
                    return Err(LogError::File {
                        file: "each".into(),
                        message,
                    });
                }
                lines.push(n);
                Ok(())
            },
        );
        (lines, skipped, end.map_err(|e| e.to_string()))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// A log of good, bad and blank lines (more than the batches in flight hold), its
        /// last line perhaps cut off, and an `each` that may stop early: the parsing
        /// thread gives the records, the errors and their order of a reading on one
        /// thread, and both give the lines the log was made of.
        #[test]
        fn parsing_on_a_thread_changes_nothing(
            kinds in prop::collection::vec(0u8..10, 0..900),
            cut in any::<bool>(),
            skip_bad in any::<bool>(),
            stop in prop::option::of(0usize..900),
        ) {
            let mut log = String::new();
            let (mut good, mut bad) = (Vec::new(), Vec::new());
            for (i, k) in kinds.iter().enumerate() {
                let n = i as u64 + 1;
                let line = match k {
                    0 => { bad.push(n); "{\"step\":".to_string() }
                    1 => String::new(),
                    _ => { good.push(n); format!("{{\"step\":{n},{}}}", &HEAD[9..]) }
                };
                log.push_str(&line);
                log.push('\n');
            }
            if cut && !kinds.is_empty() {
                log.pop();
                log.pop();
                if good.last() == Some(&(kinds.len() as u64)) {
                    good.pop();
                    bad.push(kinds.len() as u64);
                }
            }
            let stop = stop.unwrap_or(usize::MAX);
            let one = read_log(log.as_bytes(), false, skip_bad, stop);
            let two = read_log(log.as_bytes(), true, skip_bad, stop);
            prop_assert_eq!(&one, &two);
            let (lines, skipped, end) = one;
            let first_bad = bad.first().copied().unwrap_or(u64::MAX);
            let before = |v: &Vec<u64>, n: u64| v.iter().copied().filter(|&l| l < n).collect::<Vec<_>>();
            let handed = if skip_bad { good.clone() } else { before(&good, first_bad) };
            let want: Vec<u64> = handed.iter().copied().take(stop).collect();
            prop_assert_eq!(&lines, &want);
            match end {
                Ok(()) => prop_assert!(handed.len() <= stop && (skip_bad || bad.is_empty())),
                Err(e) if e == "each: stop" => prop_assert!(handed.len() > stop),
                Err(e) => {
                    prop_assert!(!skip_bad && handed.len() <= stop);
                    prop_assert!(e.starts_with(&format!("log:{first_bad}: ")), "{}", e);
                }
            }
            // The bad lines are skipped up to where `each` stopped, and only with
            // `skip_bad`.
            let until = if skip_bad { handed.get(stop).copied().unwrap_or(u64::MAX) } else { 0 };
            prop_assert_eq!(skipped, before(&bad, until));
        }
    }
}
