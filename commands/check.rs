//! `acres check`: the trajectory checker over proposal chunks, one verdict per chunk, and
//! its batch form.

use crate::Global;
use crate::output::{self, Format};
use acres::chain::checker::batch::{
    self, BatchFormat, BatchRecord, CheckOptions, ChunkVerdict, Judge,
};
use acres::chain::checker::margins::Margins;
use acres::chain::checker::{Reason, TrajectoryChecker};
use acres::chain::path::Path;
use acres::chain::scan::{Scan, ScanGeometry};
use acres::formats::chunk::sanitize;
use acres::ground::corridor::Corridor;
use anyhow::{Context, anyhow};
use std::path::PathBuf;
use std::sync::Arc;

/// The exit status when some chunk is refused.
pub const EXIT_REFUSED: u8 = 3;

/// Check proposal chunks: a verdict, a reason and the first failing index for each.
///
/// A chunk (docs/rules.md "Proposals and chunks") holds lateral offsets from a route
/// and speeds at fixed stations along it, the direction, and the vehicle's start state.
/// The file is a JSON array of chunks or an object {"chunks": [...]}; see
/// data/chunks/README.md. A chunk that is not a chunk is a `malformed` verdict, not the
/// failure of the whole file; an unreadable file is an error.
///
/// Every verdict lists under `unchecked` the rules that could not run for lack of input
/// (obstacle without a scan; point and corridor without --corridor), and so does the
/// summary line: an acceptance claims nothing about them. --strict refuses such chunks.
///
/// Exit status: 0 when every chunk is accepted, 3 when some chunk is refused, 1 on an
/// error, 2 on a usage error.
#[derive(Debug, clap::Args)]
#[command(after_long_help = rules_help())]
pub struct Args {
    /// The chunk file (JSON).
    #[arg(
        value_name = "FILE",
        required_unless_present = "batch",
        conflicts_with = "batch"
    )]
    file: Option<PathBuf>,
    /// The route of a chunk that names none. A chunk's own `route` names a file beside the
    /// input or a shipped route (data/routes/); each route is loaded once.
    #[arg(long, value_name = "FILE")]
    route: Option<PathBuf>,
    /// A corridor file (acres corridor build): turns on the point and corridor rules.
    #[arg(long, value_name = "FILE")]
    corridor: Option<PathBuf>,
    /// The scan of a chunk that carries none: a file {"ranges": [...]} (null for no
    /// return), taken at each chunk's start state; turns on the obstacle rule. A chunk's
    /// own `scan` key takes its place.
    #[arg(long, value_name = "FILE")]
    scan: Option<PathBuf>,
    #[command(flatten)]
    grip: crate::envelope::GripArg,
    /// Output format. The single form prints a table by default; the batch form writes
    /// JSON Lines (`json`) or CSV (`csv`), by default by the extension of --out (.csv for
    /// CSV), and refuses `table`.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Each rule's smallest margin for every chunk (limit minus value, signed, in the
    /// rule's unit; value minus limit for obstacle, point and corridor) and the sample
    /// where it is: a learning signal beyond the first failing rule.
    #[arg(long)]
    margins: bool,
    /// The batch form: chunks as JSON Lines (one a line; - for stdin), read, checked on
    /// all cores and written in a pipeline, in memory flat in the input's size; needs
    /// --out.
    #[arg(long, value_name = "FILE.jsonl", requires = "out")]
    batch: Option<PathBuf>,
    /// Where the verdicts go (- for stdout), written atomically. Needed by the batch form;
    /// in the single form the output goes there instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Also draw the chunks over their route (.png or .svg; the single form): refused ones
    /// in the colour of their rule with the first failing sample crossed, accepted ones in
    /// green, the corridor's excluded ground in grey where --corridor is given.
    #[arg(long, value_name = "FILE", conflicts_with = "batch")]
    plot: Option<PathBuf>,
    /// The plot's size in pixels, WxH (default 1100x720).
    #[arg(long, value_name = "WxH", value_parser = crate::output::size, requires = "plot")]
    size: Option<(u32, u32)>,
    /// The batch form's longest line, bytes: a longer line is a `malformed` verdict and is
    /// never held whole in memory.
    #[arg(long, value_name = "BYTES", default_value_t = batch::DEFAULT_MAX_LINE_BYTES)]
    max_line_bytes: usize,
    /// Refuse a chunk that passes only because a rule could not run: the obstacle rule
    /// without a scan (--scan or the chunk's own), the point and corridor rules without
    /// --corridor. Such a chunk gets reason `unchecked` (exit 3). Without --strict it is
    /// accepted and its record lists those rules under `unchecked`.
    #[arg(long)]
    strict: bool,
}

/// The exact definitions of the rules, for --help and the man page.
fn rules_help() -> String {
    let mut s = String::from(
        "Rules, in the order they run (the first failure is the reason). Samples k = 0..n−1 \
         lie at stations start_station_m + k × station_step_m; p(k) is the route point plus \
         the offset along its left normal; κ(k) the Menger curvature of p(k−1), p(k), p(k+1); \
         Δl(k) = |p(k+1) − p(k)|; limits.* are trajectory_v1.json, shield.* and vehicle.* \
         control_v1.json, the class limits envelope_v1.json.\n",
    );
    for r in Reason::ALL {
        s.push_str(&format!("\n  {}: {}\n", r.code(), r.definition()));
    }
    s.push_str(&format!(
        "\nExit status: 0 every chunk accepted, {EXIT_REFUSED} some chunk refused, 1 error, 2 usage."
    ));
    s
}

/// Runs the command; returns whether every chunk was accepted.
pub fn run(args: Args, global: &Global) -> anyhow::Result<bool> {
    let plot_kind = match &args.plot {
        Some(p) => crate::plot::image_kind(crate::plot::image_format(None, p)?),
        None => output::Kind::Text,
    };
    output::check_outputs(&[
        ("--out", args.out.as_deref(), output::Kind::Text),
        ("--plot", args.plot.as_deref(), plot_kind),
    ])?;
    let config = global.load_config()?;
    let mut checker = TrajectoryChecker::new(&config, args.grip.grip)
        .ok_or_else(|| anyhow!("the envelope has no `grips.{}` table", args.grip.grip))?;
    if let Some(c) = &args.corridor {
        checker = checker.with_corridor(Arc::new(Corridor::load(c)?));
    }
    let input = args
        .batch
        .as_ref()
        .or(args.file.as_ref())
        .expect("clap requires an input");
    let beams = config.control.corridor.beams as usize;
    let opts = CheckOptions {
        route: match &args.route {
            Some(p) => Some(Arc::new(Path::load(p)?)),
            None => None,
        },
        scan: match &args.scan {
            Some(p) => Some(Arc::new(read_scan(p, beams)?)),
            None => None,
        },
        dir: Some(input.parent().map(|p| p.to_path_buf()).unwrap_or_default()),
        margins: args.margins,
        max_line_bytes: args.max_line_bytes,
        strict: args.strict,
    };
    let v = &config.control.vehicle;
    let geometry = ScanGeometry::new(
        beams,
        (v.scan_mount_x_m, v.scan_mount_y_m),
        config.control.corridor.range_m,
    );
    let judge = Judge::new(&checker, &opts, geometry);
    match &args.batch {
        Some(b) => run_batch(&args, b, &judge, global),
        None => run_single(&args, input, &judge, global),
    }
}

/// The single form: a file of chunks, its verdicts as a table, JSON or CSV.
fn run_single(
    args: &Args,
    file: &std::path::Path,
    judge: &Judge,
    global: &Global,
) -> anyhow::Result<bool> {
    if args.max_line_bytes != batch::DEFAULT_MAX_LINE_BYTES {
        return Err(output::usage(
            "--max-line-bytes is for --batch (the single form reads one JSON document)",
        ));
    }
    let out = args.out.as_ref().filter(|p| p.to_str() != Some("-"));
    let sink = match out {
        Some(p) => Some(
            acres::formats::atomic::AtomicFile::create(p)
                .with_context(|| format!("writing {}", p.display()))?,
        ),
        None => None,
    };
    let items = read_items(file)?;
    // The plot draws the items again after the verdicts: kept only for it.
    let for_plot = args.plot.as_ref().map(|_| items.clone());
    let verdicts = check_items(items, judge);
    let records: Vec<BatchRecord> = verdicts.iter().map(BatchRecord::of).collect();
    let mut summary = batch::BatchSummary::default();
    for v in &verdicts {
        summary.add(v.result.accepted, v.unchecked);
    }
    if let (Some(p), Some(items)) = (&args.plot, &for_plot) {
        let format = crate::plot::image_format(None, p)?;
        let (routes, chunks) = plot_chunks(items, judge, &records);
        let spec = acres::plot::ImageSpec {
            format,
            size: args.size,
        };
        let bytes = acres::plot::check(&routes, &chunks, judge.corridor(), spec)?;
        output::write_output(p, &bytes)?;
        if !output::is_stdout(p) {
            global.status(&format!("wrote {}", p.display()));
        }
    }
    let text = match args.format.unwrap_or(Format::Table) {
        Format::Json => {
            let mut t = serde_json::to_string_pretty(&records)?;
            t.push('\n');
            t
        }
        Format::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record(BatchRecord::csv_header(args.margins))?;
            for r in &records {
                w.write_record(r.csv_fields())?;
            }
            String::from_utf8(w.into_inner().map_err(|e| anyhow!("{}", e.error()))?)?
        }
        Format::Table => verdict_table(&records, args.margins) + &summary.line() + "\n",
    };
    if args.format.is_some_and(|f| f != Format::Table) {
        global.status(&summary.line());
    }
    match (sink, out) {
        (Some(mut f), Some(p)) => {
            std::io::Write::write_all(&mut f, text.as_bytes())?;
            f.commit()
                .with_context(|| format!("writing {}", p.display()))?;
            global.status(&format!("wrote {}", p.display()));
        }
        _ => output::print(&text)?,
    }
    Ok(records.iter().all(|r| r.verdict == "accepted"))
}

/// The items of a chunk file: an array of chunks or `{"chunks": [...]}`; a file that is
/// not JSON, or of another shape, is an error naming it. Numbers that are not finite are
/// judged later: they make that chunk `malformed`, not the file.
fn read_items(file: &std::path::Path) -> anyhow::Result<Vec<serde_json::Value>> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let value: serde_json::Value = serde_json::from_str(&sanitize(&text))
        .with_context(|| format!("{}: not JSON", file.display()))?;
    let shape = || {
        anyhow!(
            "{}: expected an array of chunks or {{\"chunks\": [...]}}",
            file.display()
        )
    };
    match value {
        serde_json::Value::Array(a) => Ok(a),
        serde_json::Value::Object(mut o) => match o.remove("chunks") {
            Some(serde_json::Value::Array(a)) => Ok(a),
            _ => Err(shape()),
        },
        _ => Err(shape()),
    }
}

/// The verdict of each item of a chunk file.
fn check_items(items: Vec<serde_json::Value>, judge: &Judge) -> Vec<ChunkVerdict> {
    let mut buf = Vec::new();
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| judge.value(i, item, &mut buf))
        .collect()
}

/// The chunks of a file as the check plot draws them (each chunk's samples on its route,
/// with its verdict), and the routes they lie on.
type PlotInput = (Vec<Vec<(f64, f64)>>, Vec<acres::plot::CheckedChunk>);

fn plot_chunks(items: &[serde_json::Value], judge: &Judge, records: &[BatchRecord]) -> PlotInput {
    let (mut routes, mut seen) = (Vec::new(), Vec::new());
    let mut chunks = Vec::new();
    let mut buf = Vec::new();
    for (item, r) in items.iter().zip(records) {
        // A malformed chunk has no samples to draw (convert assumes a sound shape).
        if r.reason == Some("malformed") {
            continue;
        }
        let Ok(chunk) = <acres::chain::checker::Chunk as serde::Deserialize>::deserialize(item)
        else {
            continue;
        };
        let Ok(route) = judge.route_of(&chunk) else {
            continue;
        };
        if chunk.offsets_m.is_empty() || !chunk.start_station_m.is_finite() {
            continue;
        }
        acres::chain::checker::convert(&chunk, &route, &mut buf);
        if !seen.iter().any(|p| std::sync::Arc::ptr_eq(p, &route)) {
            routes.push(route.line().0.iter().map(|c| (c.x, c.y)).collect());
            seen.push(route.clone());
        }
        chunks.push(acres::plot::CheckedChunk {
            index: r.index,
            points: buf.iter().map(|s| (s.x_m, s.y_m)).collect(),
            reason: r.reason,
            first_index: r.first_index,
        });
    }
    (routes, chunks)
}

/// The verdicts as a table; with margins, the tightest rule of each chunk.
fn verdict_table(records: &[BatchRecord], margins: bool) -> String {
    let opt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.4}"));
    let mut head = vec![
        "index",
        "verdict",
        "reason",
        "first index",
        "value",
        "limit",
        "note",
        "unchecked",
    ];
    if margins {
        head.push("tightest margin");
    }
    let mut rows = vec![head.into_iter().map(String::from).collect::<Vec<_>>()];
    for r in records {
        let mut row = vec![
            r.index.to_string(),
            r.verdict.to_string(),
            r.reason.unwrap_or("-").to_string(),
            r.first_index.map_or("-".into(), |v| v.to_string()),
            opt(r.value),
            opt(r.limit),
            r.note.clone(),
            if r.unchecked.is_empty() {
                "-".to_string()
            } else {
                r.unchecked.join(", ")
            },
        ];
        if let Some(m) = &r.margins {
            let tight = Margins::KEYS
                .iter()
                .filter_map(|k| m.get(k).map(|e| (k, e)))
                .filter(|(_, e)| !e.margin.is_nan())
                .min_by(|a, b| a.1.margin.total_cmp(&b.1.margin));
            row.push(tight.map_or("-".into(), |(k, e)| {
                format!("{k} {:.4} at {}", e.margin, e.index)
            }));
        }
        rows.push(row);
    }
    output::table(&rows)
}

/// Reads a scan file: {"ranges": [r0, r1, ...]} with null for a beam with no return.
fn read_scan(path: &PathBuf, beams: usize) -> anyhow::Result<Scan> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct ScanFile {
        ranges: Vec<Option<f64>>,
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let f: ScanFile = serde_json::from_str(&text).with_context(|| format!("{}", path.display()))?;
    acres::chain::checker::batch::scan_of(&f.ranges, beams)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

fn run_batch(args: &Args, input: &PathBuf, judge: &Judge, global: &Global) -> anyhow::Result<bool> {
    let out = args.out.as_ref().expect("clap requires --out");
    let format = match args.format {
        Some(Format::Json) => BatchFormat::JsonLines,
        Some(Format::Csv) => BatchFormat::Csv,
        Some(Format::Table) => {
            return Err(output::usage(
                "--format table is for the single form; --batch writes json (JSON Lines) or csv",
            ));
        }
        None if out
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv")) =>
        {
            BatchFormat::Csv
        }
        None => BatchFormat::JsonLines,
    };
    let stdin = input.to_str() == Some("-");
    let (reader, len): (Box<dyn std::io::BufRead + Send>, u64) = if stdin {
        (
            Box::new(std::io::BufReader::with_capacity(1 << 20, std::io::stdin())),
            0,
        )
    } else {
        let file =
            std::fs::File::open(input).with_context(|| format!("reading {}", input.display()))?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        (
            Box::new(std::io::BufReader::with_capacity(1 << 20, file)),
            len,
        )
    };
    let bar = output::progress(global, len, "checking");
    let summary = if out.to_str() == Some("-") {
        let mut w = std::io::BufWriter::new(std::io::stdout());
        batch::run(judge, reader, &mut w, format, |b| bar.set_position(b))?
    } else {
        let mut w = acres::formats::atomic::AtomicFile::create(out)
            .with_context(|| format!("writing {}", out.display()))?;
        let s = batch::run(judge, reader, &mut w, format, |b| bar.set_position(b))
            .with_context(|| format!("reading {}", input.display()))?;
        w.commit()
            .with_context(|| format!("writing {}", out.display()))?;
        s
    };
    bar.finish_and_clear();
    global.status(&summary.line());
    Ok(summary.accepted == summary.chunks)
}
