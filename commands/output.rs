//! Rendering helpers shared by the subcommands: output formats, stdout, files.

use anyhow::Context;
use std::io::Write;
use std::path::Path;

/// The output formats of a command: a table for people, JSON and CSV for programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns, numbers rounded to 2 decimals.
    Table,
    /// JSON, full precision.
    Json,
    /// CSV with a header row, full precision.
    Csv,
}

/// A progress bar on stderr, hidden when stderr is not a terminal or with `--quiet`.
pub fn progress(global: &crate::Global, len: u64, what: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if global.quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} [{bar:40}] {percent:>3}% {elapsed}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// Writes `text` to stdout.
pub fn print(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Writes pretty JSON and a newline to stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    let mut s = serde_json::to_string_pretty(value)?;
    s.push('\n');
    print(&s)
}

/// Prints a command's result in the format asked: on stdout, or on stderr where stdout
/// carries an output stream (a log, an image, rows) that a summary must not follow.
pub fn emit<T: serde::Serialize>(
    format: Format,
    value: &T,
    table: impl FnOnce() -> String,
    csv: impl FnOnce() -> Vec<Vec<String>>,
    stdout_taken: bool,
) -> anyhow::Result<()> {
    let text = match format {
        Format::Table => table(),
        Format::Json => serde_json::to_string_pretty(value)? + "\n",
        Format::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            for r in csv() {
                w.write_record(&r)?;
            }
            String::from_utf8(
                w.into_inner()
                    .map_err(|e| anyhow::anyhow!("{}", e.error()))?,
            )?
        }
    };
    if stdout_taken {
        eprint!("{text}");
        return Ok(());
    }
    print(&text)
}

/// A JSON object as one CSV row under a header of its keys (numbers at full precision,
/// null as an empty field, arrays and objects as compact JSON); an array of objects as a
/// row each.
pub fn csv_of<T: serde::Serialize>(value: &T) -> anyhow::Result<Vec<Vec<String>>> {
    use serde_json::Value;
    let v = serde_json::to_value(value)?;
    let objects: Vec<serde_json::Map<String, Value>> = match v {
        Value::Object(m) => vec![m],
        Value::Array(items) => items
            .into_iter()
            .filter_map(|i| match i {
                Value::Object(m) => Some(m),
                _ => None,
            })
            .collect(),
        other => anyhow::bail!("no CSV form for {other}"),
    };
    let Some(first) = objects.first() else {
        return Ok(Vec::new());
    };
    let keys: Vec<String> = first.keys().cloned().collect();
    let cell = |v: Option<&Value>| match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let mut rows = vec![keys.clone()];
    for o in &objects {
        rows.push(keys.iter().map(|k| cell(o.get(k))).collect());
    }
    Ok(rows)
}

/// Writes CSV records (the first is the header) to stdout.
pub fn print_csv(records: &[Vec<String>]) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(std::io::stdout().lock());
    for r in records {
        w.write_record(r)?;
    }
    w.flush()?;
    Ok(())
}

/// Writes `bytes` to `path` atomically, or to stdout where `path` is `-`.
pub fn write_output(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()?;
        return Ok(());
    }
    acres::formats::atomic::write_atomic(path, bytes)
        .with_context(|| format!("writing {}", path.display()))
}

/// Whether an output path means stdout.
pub fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// What an output holds: text may go to a terminal, binary data (an image, a raster) may
/// not, as it would garble the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Binary,
}

/// A usage error: something decided from the arguments alone (options that do not go
/// together, a missing input, an image name of no known format). It exits 2, as clap's
/// own usage errors do.
#[derive(Debug)]
pub struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// A usage error as an `anyhow::Error` (exit 2).
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Usage(message.into()))
}

/// Checks, before a long run, that an output can be written: a file's folder exists, is
/// a folder and takes a new file; `-` (stdout) always can, except binary data onto a
/// terminal.
pub fn check_output(option: &str, path: &Path, kind: Kind) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    if is_stdout(path) {
        if kind == Kind::Binary && std::io::stdout().is_terminal() {
            anyhow::bail!(
                "{option} -: the output is binary and stdout is a terminal; redirect it \
                 (`> FILE`) or give a file name"
            );
        }
        return Ok(());
    }
    if path.is_dir() {
        anyhow::bail!("{option} {}: is a folder, not a file", path.display());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        anyhow::bail!(
            "{option} {}: the folder {} does not exist",
            path.display(),
            dir.display()
        );
    }
    tempfile::Builder::new()
        .prefix(".acres-check-")
        .tempfile_in(dir)
        .with_context(|| {
            format!(
                "{option} {}: cannot write in the folder {}",
                path.display(),
                dir.display()
            )
        })?;
    Ok(())
}

/// Checks every output of a command before its work ([`check_output`] for each; at most
/// one of them on stdout). Returns whether one goes to stdout, where a summary must then
/// not follow it.
pub fn check_outputs(outputs: &[(&str, Option<&Path>, Kind)]) -> anyhow::Result<bool> {
    let mut on_stdout: Vec<&str> = Vec::new();
    for &(option, path, kind) in outputs {
        let Some(path) = path else { continue };
        check_output(option, path, kind)?;
        if is_stdout(path) {
            on_stdout.push(option);
        }
    }
    if on_stdout.len() > 1 {
        return Err(usage(format!(
            "only one output can be `-` (stdout): {} are",
            on_stdout.join(", ")
        )));
    }
    Ok(!on_stdout.is_empty())
}

/// An output stream: stdout, or a file committed into place at the end (an error leaves
/// nothing behind).
pub enum Writer {
    Stdout(std::io::BufWriter<std::io::Stdout>),
    File(acres::formats::atomic::AtomicFile),
}

impl Writer {
    /// Opens `path` (`-`: stdout).
    pub fn create(path: &Path) -> anyhow::Result<Writer> {
        if is_stdout(path) {
            return Ok(Writer::Stdout(std::io::BufWriter::new(std::io::stdout())));
        }
        let f = acres::formats::atomic::AtomicFile::create(path)
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(Writer::File(f))
    }

    /// Flushes stdout, or renames the file into place.
    pub fn commit(self, path: &Path) -> anyhow::Result<()> {
        match self {
            Writer::Stdout(mut w) => w.flush()?,
            Writer::File(f) => f
                .commit()
                .with_context(|| format!("writing {}", path.display()))?,
        }
        Ok(())
    }
}

impl Write for Writer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Writer::Stdout(w) => w.write(buf),
            Writer::File(f) => f.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Writer::Stdout(w) => w.flush(),
            Writer::File(f) => f.flush(),
        }
    }
}

/// Whether an error is a closed stdout (`acres ... | head`), which is not a failure.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<csv::Error>().is_some_and(|e| {
                matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe)
            })
    })
}

/// Renders rows as aligned columns (comfy-table): the first row is the header, underlined;
/// columns of numbers right-aligned, the first column and text columns left-aligned; no
/// borders, so that the text stays easy to grep and to paste.
pub fn table(rows: &[Vec<String>]) -> String {
    use comfy_table::{CellAlignment, ContentArrangement, Table, TableComponent};
    let Some((head, body)) = rows.split_first() else {
        return String::new();
    };
    // A column of numbers (blanks and `-` allowed) is right-aligned, its header too; text
    // columns (names, notes) read from the left.
    let cells = |i: usize| body.iter().filter_map(move |r| r.get(i)).map(|c| c.trim());
    let numeric = |i: usize| {
        i > 0
            && cells(i).any(|c| c.parse::<f64>().is_ok())
            && cells(i).all(|c| c.is_empty() || c == "-" || c.parse::<f64>().is_ok())
    };
    let align = |i: usize| {
        if numeric(i) {
            CellAlignment::Right
        } else {
            CellAlignment::Left
        }
    };
    let mut t = Table::new();
    t.load_preset(comfy_table::presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_style(TableComponent::HeaderLines, '-')
        .set_style(TableComponent::MiddleHeaderIntersections, ' ')
        .set_header(
            head.iter()
                .enumerate()
                .map(|(i, h)| comfy_table::Cell::new(h).set_alignment(align(i))),
        );
    for r in body {
        t.add_row(r.clone());
    }
    let ncol = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    for i in 0..ncol {
        if let Some(c) = t.column_mut(i) {
            c.set_padding((0, if i + 1 < ncol { 2 } else { 0 }));
            c.set_cell_alignment(align(i));
        }
    }
    let mut out: String = t.lines().map(|l| l.trim_end().to_string() + "\n").collect();
    if out.is_empty() {
        out.push('\n');
    }
    out
}

/// A number rounded to 2 decimals, for tables.
pub fn f2(x: f64) -> String {
    let s = format!("{x:.2}");
    // A value that rounds to zero prints as 0.00, not -0.00.
    if s == "-0.00" { "0.00".into() } else { s }
}

/// A number at full precision (the shortest text that reads back to the same f64).
pub fn full(x: f64) -> String {
    format!("{x}")
}

/// A clap value parser: a finite number ≥ 0.
pub fn non_negative(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if !v.is_finite() {
        return Err(format!("`{s}` is not a finite number"));
    }
    if v < 0.0 {
        return Err(format!("{v} is negative; give a magnitude ≥ 0"));
    }
    Ok(v)
}

/// The largest speed the command line takes, m/s: well past any ground vehicle of this
/// kind (the Polaris's envelope ends near 8 m/s), so that a typo is caught, not squared.
pub const MAX_SPEED_MPS: f64 = 50.0;

/// The largest distance the command line takes for a stop, m.
pub const MAX_DISTANCE_M: f64 = 10_000.0;

/// A clap value parser: a speed in m/s, 0 to [`MAX_SPEED_MPS`].
pub fn speed(s: &str) -> Result<f64, String> {
    let v = non_negative(s)?;
    if v > MAX_SPEED_MPS {
        return Err(format!(
            "{s} m/s is beyond {MAX_SPEED_MPS} m/s, no speed of this vehicle"
        ));
    }
    Ok(v)
}

/// A clap value parser: a speed in m/s above 0, at most [`MAX_SPEED_MPS`].
pub fn positive_speed(s: &str) -> Result<f64, String> {
    let v = speed(s)?;
    if v == 0.0 {
        return Err("must be greater than 0".to_string());
    }
    Ok(v)
}

/// A clap value parser: a distance in m, 0 to [`MAX_DISTANCE_M`].
pub fn distance(s: &str) -> Result<f64, String> {
    let v = non_negative(s)?;
    if v > MAX_DISTANCE_M {
        return Err(format!("{s} m is beyond {MAX_DISTANCE_M} m"));
    }
    Ok(v)
}

/// A clap value parser: an image size `WxH` in pixels, each side within
/// `acres::plot::SIDE_RANGE`.
pub fn size(s: &str) -> Result<(u32, u32), String> {
    let (lo, hi) = acres::plot::SIDE_RANGE;
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{s}` is not WxH (for example 1600x900)"))?;
    let side = |t: &str| -> Result<u32, String> {
        let v: u32 = t
            .trim()
            .parse()
            .map_err(|_| format!("`{t}` is not a whole number of pixels"))?;
        if !(lo..=hi).contains(&v) {
            return Err(format!("{v} px is outside {lo} to {hi}"));
        }
        Ok(v)
    };
    Ok((side(w)?, side(h)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_columns() {
        let t = table(&[
            vec!["class".into(), "v".into()],
            vec!["asphalt".into(), "7.80".into()],
            vec!["dirt".into(), "10.25".into()],
        ]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        // The header is underlined, the first column left-aligned, numbers right-aligned.
        assert!(lines[0].starts_with("class "), "{t}");
        assert!(lines[1].chars().all(|c| c == '-' || c == ' '), "{t}");
        assert!(
            lines[2].starts_with("asphalt") && lines[3].starts_with("dirt "),
            "{t}"
        );
        let end = lines[0].len();
        assert!(lines.iter().all(|l| l.len() == end), "{t}");
        assert!(
            lines[2].ends_with(" 7.80") && lines[3].ends_with("10.25"),
            "{t}"
        );
    }

    /// A column of text (a note) reads from the left, its header too; a column of numbers
    /// with blanks and `-` stays right-aligned; one of only `-` reads from the left.
    #[test]
    fn text_columns_align_left() {
        let t = table(&[
            vec!["chunk".into(), "d".into(), "note".into(), "reason".into()],
            vec![
                "a".into(),
                "-".into(),
                "obstacle at 4.2 m".into(),
                "-".into(),
            ],
            vec!["b".into(), "12.5".into(), "ok".into(), "-".into()],
        ]);
        let lines: Vec<&str> = t.lines().collect();
        let note = lines[0].find("note").unwrap();
        assert_eq!(lines[2].find("obstacle"), Some(note), "{t}");
        assert_eq!(lines[3].find("ok"), Some(note), "{t}");
        let d_end = lines[0].find('d').unwrap() + 1;
        assert_eq!(&lines[3][d_end - 4..d_end], "12.5", "{t}");
        assert_eq!(&lines[2][d_end - 1..d_end], "-", "{t}");
        // A column of only `-` is no number column.
        let reason = lines[0].find("reason").unwrap();
        assert_eq!(lines[2].rfind('-'), Some(reason), "{t}");
    }

    #[test]
    fn number_parsers() {
        assert_eq!(non_negative("7.8"), Ok(7.8));
        assert!(non_negative("-1").unwrap_err().contains("negative"));
        assert!(non_negative("nan").is_err());
        assert!(non_negative("inf").is_err());
        assert!(non_negative("x").unwrap_err().contains("not a number"));
        assert_eq!(speed("50"), Ok(50.0));
        assert!(speed("50.001").unwrap_err().contains("beyond"));
        assert!(speed("1e308").is_err());
        assert!(positive_speed("0").is_err());
        assert_eq!(distance("10000"), Ok(10_000.0));
        assert!(distance("10000.5").is_err());
        assert_eq!(size("1600x900"), Ok((1600, 900)));
        assert!(size("1600").is_err() && size("100x900").is_err() && size("ax9").is_err());
    }
}
