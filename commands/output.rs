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

/// Checks, before a long run, that an output file can be written: its folder exists and
/// is a folder (`-`, stdout, always can).
pub fn check_output_dir(path: &Path) -> anyhow::Result<()> {
    if path == Path::new("-") {
        return Ok(());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        anyhow::bail!(
            "{}: the folder {} does not exist",
            path.display(),
            dir.display()
        );
    }
    Ok(())
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

/// Renders rows as aligned columns: the first row is the header; columns are separated
/// by two spaces, the first left-aligned, the rest right-aligned.
pub fn table(rows: &[Vec<String>]) -> String {
    let ncol = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..ncol)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (i, cell) in r.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = widths[i] - cell.chars().count();
            if i == 0 {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A number rounded to 2 decimals, for tables.
pub fn f2(x: f64) -> String {
    format!("{x:.2}")
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

/// A clap value parser: a finite number > 0.
pub fn positive(s: &str) -> Result<f64, String> {
    let v = non_negative(s)?;
    if v == 0.0 {
        return Err("must be greater than 0".to_string());
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_columns() {
        let t = table(&[
            vec!["class".into(), "v".into()],
            vec!["asphalt".into(), "7.80".into()],
        ]);
        assert_eq!(t, "class       v\nasphalt  7.80\n");
    }

    #[test]
    fn number_parsers() {
        assert_eq!(non_negative("7.8"), Ok(7.8));
        assert!(non_negative("-1").unwrap_err().contains("negative"));
        assert!(non_negative("nan").is_err());
        assert!(non_negative("inf").is_err());
        assert!(non_negative("x").unwrap_err().contains("not a number"));
        assert!(positive("0").is_err());
    }
}
