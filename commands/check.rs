//! `acres check`: the trajectory checker over proposal chunks, one verdict per chunk, and
//! its batch form.

use crate::Global;
use crate::output::{self, Format};
use acres::chain::checker::batch::{self, BatchFormat, BatchRecord};
use acres::chain::checker::{CheckResult, Chunk, Reason, TrajectoryChecker, world_returns};
use acres::chain::path::Path;
use acres::chain::scan::{Scan, ScanGeometry};
use acres::ground::corridor::Corridor;
use anyhow::{Context, anyhow, bail};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The exit status when some chunk is refused.
pub const EXIT_REFUSED: u8 = 3;

/// Check proposal chunks: a verdict, a reason and the first failing index for each.
///
/// A chunk (vehicle-software.md "Proposals and Chunks") holds lateral offsets from a route
/// and speeds at fixed stations along it, the direction, and the vehicle's start state.
/// The file is a JSON array of chunks or an object {"chunks": [...]}; see
/// data/chunks/README.md. A chunk that is not a chunk is a `malformed` verdict, not the
/// failure of the whole file; an unreadable file is an error.
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
    /// The route of every chunk; without it each chunk's `route` names a file beside the
    /// chunk file or a shipped route (data/routes/).
    #[arg(long, value_name = "FILE")]
    route: Option<PathBuf>,
    /// A corridor file (acres corridor build): turns on the point and corridor rules.
    #[arg(long, value_name = "FILE")]
    corridor: Option<PathBuf>,
    /// A scan file {"ranges": [...]} (null for no return), taken at each chunk's start
    /// state: turns on the obstacle rule.
    #[arg(long, value_name = "FILE")]
    scan: Option<PathBuf>,
    #[command(flatten)]
    grip: crate::envelope::GripArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// The batch form: chunks as JSON Lines (one a line), checked on all cores, in
    /// constant memory; needs --route and --out.
    #[arg(long, value_name = "FILE.jsonl", requires_all = ["out", "route"])]
    batch: Option<PathBuf>,
    /// The output of the batch form: .csv for CSV, anything else (or -) for JSON Lines.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
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
    let config = global.load_config()?;
    let mut checker = TrajectoryChecker::new(&config, args.grip.grip)
        .ok_or_else(|| anyhow!("the envelope has no `grips.{}` table", args.grip.grip))?;
    if let Some(c) = &args.corridor {
        checker = checker.with_corridor(Arc::new(Corridor::load(c)?));
    }
    if let Some(input) = &args.batch {
        return run_batch(&args, input, &checker, global);
    }
    let file = args
        .file
        .as_ref()
        .expect("clap requires FILE without --batch");
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", file.display()))?;
    let items = match value {
        serde_json::Value::Array(a) => a,
        serde_json::Value::Object(mut o) => match o.remove("chunks") {
            Some(serde_json::Value::Array(a)) => a,
            _ => bail!(
                "{}: expected an array of chunks or {{\"chunks\": [...]}}",
                file.display()
            ),
        },
        _ => bail!(
            "{}: expected an array of chunks or {{\"chunks\": [...]}}",
            file.display()
        ),
    };
    let fixed_route = match &args.route {
        Some(p) => Some(Path::load(p)?),
        None => None,
    };
    let scan = match &args.scan {
        Some(p) => Some(read_scan(p, config.control.corridor.beams as usize)?),
        None => None,
    };
    let geometry = ScanGeometry::new(
        config.control.corridor.beams as usize,
        (
            config.control.vehicle.scan_mount_x_m,
            config.control.vehicle.scan_mount_y_m,
        ),
        config.control.corridor.range_m,
    );
    let dir = file.parent().map(|p| p.to_path_buf()).unwrap_or_default();
    let mut routes: HashMap<String, Option<Path>> = HashMap::new();
    let mut buf = Vec::new();
    let mut results: Vec<(CheckResult, Option<String>)> = Vec::new();
    for item in items {
        let chunk: Chunk = match serde_json::from_value(item) {
            Ok(c) => c,
            Err(e) => {
                results.push((malformed(), Some(e.to_string())));
                continue;
            }
        };
        let route = match (&fixed_route, &chunk.route) {
            (Some(r), _) => Some(r),
            (None, Some(name)) => routes
                .entry(name.clone())
                .or_insert_with(|| {
                    let beside = dir.join(name);
                    if beside.exists() {
                        Path::load(&beside).ok()
                    } else {
                        Path::builtin(name)
                    }
                })
                .as_ref(),
            (None, None) => None,
        };
        let Some(route) = route else {
            results.push((
                malformed(),
                Some("the chunk names no route that can be read".into()),
            ));
            continue;
        };
        let returns = scan
            .as_ref()
            .map(|s| world_returns(&geometry, s, &chunk.start));
        results.push((
            checker.check(&chunk, route, returns.as_ref(), &mut buf),
            None,
        ));
    }
    let all = results.iter().all(|(r, _)| r.accepted);
    let recs: Vec<BatchRecord> = results
        .iter()
        .enumerate()
        .map(|(i, (r, _))| BatchRecord::of(i, r))
        .collect();
    match args.format {
        Format::Json => output::print_json(&recs)?,
        Format::Csv => {
            let mut w = csv::Writer::from_writer(std::io::stdout().lock());
            for r in &recs {
                w.serialize(r)?;
            }
            w.flush()?;
        }
        Format::Table => {
            let opt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.4}"));
            let mut rows = vec![
                [
                    "index",
                    "verdict",
                    "reason",
                    "first index",
                    "value",
                    "limit",
                    "note",
                ]
                .map(String::from)
                .to_vec(),
            ];
            for (r, (_, note)) in recs.iter().zip(&results) {
                rows.push(vec![
                    r.index.to_string(),
                    r.verdict.to_string(),
                    r.reason.unwrap_or("-").to_string(),
                    r.first_index.map_or("-".into(), |v| v.to_string()),
                    opt(r.value),
                    opt(r.limit),
                    note.clone().unwrap_or_default(),
                ]);
            }
            let accepted = recs.iter().filter(|r| r.verdict == "accepted").count();
            let text = output::table(&rows) + &format!("{accepted} of {} accepted\n", recs.len());
            output::print(&text)?;
        }
    }
    Ok(all)
}

fn malformed() -> CheckResult {
    CheckResult::refused(Reason::Malformed, 0, f64::NAN, f64::NAN)
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
    let scan = Scan::new(
        f.ranges
            .into_iter()
            .map(|r| r.unwrap_or(f64::INFINITY))
            .collect(),
    )
    .with_context(|| format!("{}", path.display()))?;
    if scan.beams() != beams {
        bail!(
            "{}: {} beams, corridor.beams is {beams}",
            path.display(),
            scan.beams()
        );
    }
    Ok(scan)
}

fn run_batch(
    args: &Args,
    input: &PathBuf,
    checker: &TrajectoryChecker,
    global: &Global,
) -> anyhow::Result<bool> {
    let route = Path::load(args.route.as_ref().expect("clap requires --route"))?;
    let out = args.out.as_ref().expect("clap requires --out");
    let format = if out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
    {
        BatchFormat::Csv
    } else {
        BatchFormat::JsonLines
    };
    let file =
        std::fs::File::open(input).with_context(|| format!("reading {}", input.display()))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    let bar = output::progress(global, len, "checking");
    let summary = if out.to_str() == Some("-") {
        let mut w = std::io::BufWriter::new(std::io::stdout().lock());
        let s = batch::run(checker, &route, reader, &mut w, format, |b| {
            bar.set_position(b)
        })?;
        std::io::Write::flush(&mut w)?;
        s
    } else {
        let mut w = acres::formats::atomic::AtomicFile::create(out)
            .with_context(|| format!("writing {}", out.display()))?;
        let s = batch::run(checker, &route, reader, &mut w, format, |b| {
            bar.set_position(b)
        })
        .with_context(|| format!("reading {}", input.display()))?;
        w.commit()
            .with_context(|| format!("writing {}", out.display()))?;
        s
    };
    bar.finish_and_clear();
    global.status(&format!(
        "{} of {} chunks accepted",
        summary.accepted, summary.chunks
    ));
    Ok(summary.accepted == summary.chunks)
}
