//! `acres replay`: recorded logs through the chain (the default driver and the shield)
//! again, with other limits if asked, or two configurations side by side.

use crate::Global;
use crate::output;
use acres::formats::log::{LogError, Record, read_records};
use acres::formats::ros::bag;
use acres::formats::scenario::Scenario;
use acres::jobs::replay::{Difference, ReplayRow, Replayer, Summary, rule_codes, rules};
use acres::plot::ReplayPoint;
use anyhow::Context;
use serde::Serialize;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// Replay recorded control steps through the shield and the default driver.
///
/// Reads the JSON Lines log of `acres sim --log` or `acres bridge client --record`, a
/// CSV log with the columns t, x_m, y_m, yaw_rad, speed_mps (and optionally yaw_rate_rps,
/// gear, cmd_speed_mps, cmd_curvature_per_m, scan_0 … scan_359; without scan columns the
/// scan is empty), or a ROS bag (ROS 2 in MCAP or sqlite3 storage, zstd-compressed or not;
/// ROS 1, chunks plain, bz2 or lz4): odometry, a LaserScan resampled to the
/// shield's beams, the ULC and steering commands and the gear report, aligned to 50 Hz
/// control steps by their stamps (see --topics). Each step's state, scan and route position go through the chain; the
/// output is one command row per step with the shield's interventions, the difference
/// from the logged command, and the rules the logged command broke. Streams in constant
/// memory (--plot keeps 56 bytes a step).
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
Rows (--out): CSV columns step, t, vehicle_speed_mps, requested_speed_mps,
requested_curvature_per_m, speed_mps, curvature_per_m, gear, brake_hold, cap_mps (the
lowest speed a rule allowed, empty where none acted), rules (the rule codes that
intervened, ';'-separated), obstacle_distance_m, logged_speed_mps,
logged_curvature_per_m, d_speed_mps, d_curvature_per_m (replayed minus logged),
logged_breaks (the rules the logged command broke), relocated (the pose jumped: the
vehicle found on the path anew), scan_missing (no scan: the obstacle rule saw nothing). JSON Lines rows hold the whole
replayed command row. With --compare: step, t, speed_a_mps, speed_b_mps,
curvature_a_per_m, curvature_b_per_m, rules_a, rules_b, differ.

Determinism: replaying a log of `acres sim` with the same scenario and configuration
reproduces its command rows bit for bit.")]
pub struct Args {
    /// The log: JSON Lines (.jsonl), CSV (.csv), or a ROS bag (ROS 2: an .mcap or .db3
    /// file, perhaps .zstd, or the bag's folder; ROS 1: a .bag file); `-` reads JSON Lines
    /// from stdin.
    pub log: PathBuf,
    /// The scenario that was recorded: its route and its rule switches (default: the
    /// built-in opening scenario, as `acres sim`); a file, or a shipped scenario's name.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// The route driven, instead of the scenario's (acres route JSON or GeoJSON, or a shipped
    /// route's name).
    #[arg(long, value_name = "FILE")]
    pub route: Option<PathBuf>,
    /// Write the replayed rows to FILE (`-` for stdout); CSV, or JSON Lines for a
    /// .jsonl/.json name (see --rows).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The format of the rows: csv or jsonl (default: by the --out extension, csv).
    #[arg(long, value_name = "FORMAT", value_parser = ["csv", "jsonl"])]
    pub rows: Option<String>,
    /// Replay also with the configs of DIR2 and report the steps where the two differ
    /// (the step, the rules, the two speeds): what to look at before changing a limit.
    #[arg(long, value_name = "DIR2")]
    pub compare: Option<PathBuf>,
    /// The log's format: `jsonl`, `csv` or `bag` (default: by the name: .csv is CSV, a
    /// bag file or folder is a bag, anything else and `-` JSON Lines).
    #[arg(long, value_name = "FORMAT", value_parser = ["jsonl", "csv", "bag"])]
    pub log_format: Option<String>,
    /// The same as --log-format csv (kept for older scripts).
    #[arg(long, hide = true, conflicts_with = "log_format")]
    pub csv: bool,
    /// The topics of a ROS bag by role, over the defaults: role=/topic pairs,
    /// comma-separated. Roles: odom (/odom: nav_msgs/Odometry or geometry_msgs/PoseStamped),
    /// twist (/vehicle/twist), scan (/scan), ulc_cmd (/vehicle/ulc_cmd), steering_cmd
    /// (/vehicle/steering_cmd), gear_report (/vehicle/gear_report).
    #[arg(long, value_name = "ROLE=TOPIC,...")]
    pub topics: Option<String>,
    /// The time of a ROS bag's messages: header (each message's header stamp, where it
    /// has one) or log (the time the bag recorded it). With header, a topic whose stamps
    /// repeat or go back in more than 1 % of its messages takes the log time as a whole;
    /// repeats are counted in a warning either way.
    #[arg(long, value_name = "SOURCE", value_parser = ["header", "log"], default_value = "header")]
    pub time: String,
    /// Count and skip bad lines instead of stopping at the first.
    #[arg(long)]
    pub skip_bad: bool,
    /// The frame of the log's poses: world (x east, y north, yaw counter-clockwise: acres's
    /// logs and its bridge client's CSV) or bridge (x east, y south, yaw and yaw rate
    /// toward the south, as the vehicle bridge's socket gives them).
    #[arg(long, value_name = "FRAME", default_value = "world", value_parser = ["world", "bridge"])]
    pub frame: String,
    /// The observation log beside a report CSV that has no pose (dbw_client.py's): JSON
    /// Lines of the bridge's observations (t, x, y, yaw_deg, vx, yaw_rate, in the bridge's
    /// frame; other lines skipped). The poses come from it, the logged command and the
    /// gear from the reports (ulc_report.vel_ref, steering_report.cmd and cmd_type,
    /// gear_report.gear), aligned to 50 Hz steps.
    #[arg(long, value_name = "FILE.jsonl", conflicts_with_all = ["frame", "topics"])]
    pub observations: Option<PathBuf>,
    /// Make a record whose t is not after the previous one's an error (by default a
    /// warning naming its line, and the step takes one control period); for a bag, fail
    /// when more than 1 % of its messages were dropped for unsound header stamps or gaps
    /// of the poses (counted in the summary either way). Nothing is written on failure.
    #[arg(long)]
    pub strict: bool,
    /// Draw over time the requested speed, the shield's caps, the speed command, the
    /// logged command (crossed where it broke a rule), the --compare configuration's
    /// command and the vehicle speed, and the curvatures below (.png, .svg).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// The image size in pixels, WxH (default: 1100 wide; the height of a map-like plot
    /// follows what it shows).
    #[arg(long, value_name = "WxH", value_parser = crate::output::size)]
    pub size: Option<(u32, u32)>,
    /// The summary's format: `table`, `json` or `csv`. It goes to stderr where the rows
    /// or the plot go to stdout (`-`).
    #[arg(long, value_enum, default_value_t = output::Format::Table)]
    pub format: output::Format,
}

enum Sink {
    None,
    Csv(Box<csv::Writer<output::Writer>>),
    Jsonl(output::Writer),
}

fn fmt(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::new()
    }
}

fn join(v: &[String]) -> String {
    v.join(";")
}

const ROW_HEADER: [&str; 19] = [
    "step",
    "t",
    "vehicle_speed_mps",
    "requested_speed_mps",
    "requested_curvature_per_m",
    "speed_mps",
    "curvature_per_m",
    "gear",
    "brake_hold",
    "cap_mps",
    "rules",
    "obstacle_distance_m",
    "logged_speed_mps",
    "logged_curvature_per_m",
    "d_speed_mps",
    "d_curvature_per_m",
    "logged_breaks",
    "relocated",
    "scan_missing",
];

const COMPARE_HEADER: [&str; 9] = [
    "step",
    "t",
    "speed_a_mps",
    "speed_b_mps",
    "curvature_a_per_m",
    "curvature_b_per_m",
    "rules_a",
    "rules_b",
    "differ",
];

fn csv_row(r: &ReplayRow) -> [String; 19] {
    let w = &r.row;
    let breaks = rule_codes(&r.logged_breaks);
    let (ls, lk) = match r.logged {
        Some(l) => (fmt(l.speed_mps), fmt(l.curvature_per_m)),
        None => (String::new(), String::new()),
    };
    [
        r.step.to_string(),
        fmt(r.t),
        fmt(r.vehicle_speed_mps),
        fmt(w.requested.speed_mps),
        fmt(w.requested.curvature_per_m),
        fmt(w.speed_mps),
        fmt(w.curvature_per_m),
        w.gear.number().to_string(),
        w.brake_hold.to_string(),
        r.cap_mps().map(fmt).unwrap_or_default(),
        join(&rules(w)),
        fmt(w.obstacle_distance_m),
        ls,
        lk,
        fmt(r.d_speed_mps),
        fmt(r.d_curvature_per_m),
        join(&breaks),
        r.relocated.to_string(),
        r.scan_missing.to_string(),
    ]
}

fn point(r: &ReplayRow) -> ReplayPoint {
    ReplayPoint {
        t: r.t,
        requested_mps: r.row.requested.speed_mps,
        cap_mps: r.cap_mps(),
        command_mps: r.row.speed_mps,
        vehicle_mps: r.vehicle_speed_mps,
        requested_curvature: r.row.requested.curvature_per_m,
        curvature: r.row.curvature_per_m,
        logged_mps: r.logged.map(|l| l.speed_mps),
        logged_curvature: r.logged.map(|l| l.curvature_per_m),
        logged_broke: !r.logged_breaks.is_empty(),
        compare_mps: None,
        compare_curvature: None,
    }
}

/// The summary of a comparison.
#[derive(Debug, Serialize)]
struct CompareSummary {
    a: Summary,
    b: Summary,
    config_a: String,
    config_b: String,
    /// The number of steps where the two differ, and the first 1000 of them.
    differences: u64,
    differing_steps: Vec<Difference>,
}

pub fn run(args: Args, global: &Global) -> anyhow::Result<()> {
    let config = global.load_config()?;
    let (plot_format, stdout_taken) = check_outputs(&args)?;
    let (mut a, mut b) = replayers(&args, &config)?;
    let name = args.log.display().to_string();
    let src = Source::open(&args, global)?;
    let mut sink = Sink::open(&args, b.is_some())?;

    let mut sum_a = Summary::default();
    let mut sum_b = Summary::default();
    let mut diffs = Diffs::default();
    let mut points: Vec<ReplayPoint> = Vec::new();
    let line_err = |line: u64, m: String| LogError::Line {
        file: name.clone(),
        line,
        message: m,
    };
    let bridge_frame = args.frame == "bridge";
    let on_record = |line: u64, rec: &Record| -> Result<(), LogError> {
        let converted;
        let rec = if bridge_frame {
            converted = from_bridge_frame(rec);
            &converted
        } else {
            rec
        };
        if sum_a.steps == 0 {
            warn_if_far(&name, &a, rec);
        }
        let ra = a.step(rec).map_err(|m| line_err(line, m))?;
        if ra.time_fault {
            time_fault(&args, &name, line, rec.t, sum_a.time_faults)
                .map_err(|m| line_err(line, m))?;
        }
        sum_a.add(&ra);
        if args.plot.is_some() {
            points.push(point(&ra));
        }
        match &mut b {
            None => sink.one(&ra),
            Some(b) => {
                let rb = b.step(rec).map_err(|m| line_err(line, m))?;
                sum_b.add(&rb);
                if let Some(p) = points.last_mut().filter(|_| args.plot.is_some()) {
                    p.compare_mps = Some(rb.row.speed_mps);
                    p.compare_curvature = Some(rb.row.curvature_per_m);
                }
                let d = Difference::of(&ra, &rb);
                sink.pair(&ra, &rb, d.is_some())?;
                diffs.add(d);
                Ok(())
            }
        }
    };
    let (skipped, bag_info) = src.read(&args, &name, bag::Vehicle::of(&config), on_record)?;
    sum_a.skipped = skipped;
    sum_b.skipped = skipped;
    if let Some(i) = &bag_info {
        for s in [&mut sum_a, &mut sum_b] {
            s.bag_messages = Some(i.messages);
            s.dropped_messages = Some(i.dropped);
        }
    }
    sink.close(args.out.as_deref(), global)?;
    if let (Some(p), Some(format)) = (&args.plot, plot_format) {
        output::write_output(
            p,
            &acres::plot::replay(
                &points,
                acres::plot::ImageSpec {
                    format,
                    size: args.size,
                },
            )?,
        )?;
        if !output::is_stdout(p) {
            global.status(&format!("wrote {}", p.display()));
        }
    }
    print_summary(&args, global, sum_a, sum_b, diffs, stdout_taken)
}

/// Checks the rows' and the plot's outputs before the work: the plot's format, and
/// whether one of them goes to stdout.
fn check_outputs(args: &Args) -> anyhow::Result<(Option<acres::plot::ImageFormat>, bool)> {
    let plot_format = match &args.plot {
        Some(p) => Some(crate::plot::image_format(None, p)?),
        None => None,
    };
    let stdout_taken = output::check_outputs(&[
        ("--out", args.out.as_deref(), output::Kind::Text),
        (
            "--plot",
            args.plot.as_deref(),
            plot_format.map_or(output::Kind::Text, crate::plot::image_kind),
        ),
    ])?;
    Ok((plot_format, stdout_taken))
}

/// The summary as a table, JSON or CSV; with `--compare`, both summaries and the
/// differences. On stderr where stdout carries the rows or the plot.
fn print_summary(
    args: &Args,
    global: &Global,
    sum_a: Summary,
    sum_b: Summary,
    diffs: Diffs,
    stdout_taken: bool,
) -> anyhow::Result<()> {
    let Some(dir_b) = &args.compare else {
        let csv = output::csv_of(&sum_a)?;
        return output::emit(
            args.format,
            &sum_a,
            || summary_table(&sum_a),
            || csv,
            stdout_taken,
        );
    };
    let c = CompareSummary {
        a: sum_a,
        b: sum_b,
        config_a: global
            .config_dir
            .as_ref()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|| "built-in".into()),
        config_b: dir_b.display().to_string(),
        differences: diffs.count,
        differing_steps: diffs.first,
    };
    let csv = output::csv_of(&c)?;
    output::emit(args.format, &c, || compare_table(&c), || csv, stdout_taken)
}

/// The steps where two replays differ: how many, and the first 1000.
#[derive(Default)]
struct Diffs {
    count: u64,
    first: Vec<Difference>,
}

impl Diffs {
    fn add(&mut self, d: Option<Difference>) {
        if let Some(d) = d {
            self.count += 1;
            if self.first.len() < 1000 {
                self.first.push(d);
            }
        }
    }
}

/// The replay of the configuration, and of --compare's where given, on the scenario's
/// route (or --route) with its rule switches.
fn replayers(
    args: &Args,
    config: &acres::config::Config,
) -> anyhow::Result<(Replayer, Option<Replayer>)> {
    let scenario = Scenario::load(args.scenario.as_deref())?;
    let route = match &args.route {
        Some(p) => acres::chain::path::Path::load_named_on(p, acres::ground::MapCrs::None)?,
        None => scenario.route()?,
    };
    let (corner, shield) = (scenario.corner_rule, scenario.shield);
    let a = Replayer::new(config, route.clone(), corner, shield)?;
    let b = match &args.compare {
        Some(d) => {
            let other = acres::config::Config::load(Some(d))
                .with_context(|| format!("--compare {}", d.display()))?;
            Some(Replayer::new(&other, route, corner, shield)?)
        }
        None => None,
    };
    Ok((a, b))
}

/// The log to read: its kind, the bag's topics, the stream (empty for a bag, which is
/// mapped) and the progress bar.
struct Source {
    is_csv: bool,
    is_bag: bool,
    topics: bag::Topics,
    input: Box<dyn BufRead>,
    bar: indicatif::ProgressBar,
}

impl Source {
    fn open(args: &Args, global: &Global) -> anyhow::Result<Source> {
        let by_name = args
            .log
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        let is_csv = match args.log_format.as_deref() {
            Some(f) => f == "csv",
            None => args.csv || by_name,
        };
        let is_bag = match args.log_format.as_deref() {
            Some("bag") if output::is_stdout(&args.log) => {
                return Err(crate::output::usage(
                    "--log-format bag: a bag cannot be read from stdin",
                ));
            }
            Some(f) => f == "bag",
            None => !is_csv && args.log != Path::new("-") && bag::is_bag(&args.log),
        };
        // A report CSV with its observations is read by its own reader.
        let is_bag = is_bag && args.observations.is_none();
        let mut topics = bag::Topics::parse(args.topics.as_deref().unwrap_or(""))
            .map_err(|m| crate::output::usage(format!("--topics: {m}")))?;
        topics.log_time = args.time == "log";
        let (input, bar) = open_input(&args.log, is_bag || args.observations.is_some(), global)?;
        Ok(Source {
            is_csv,
            is_bag,
            topics,
            input,
            bar,
        })
    }
}

impl Source {
    /// Reads the log, each record to `on_record`; the count of bad lines skipped, and
    /// what a bag's reading found.
    fn read(
        self,
        args: &Args,
        name: &str,
        vehicle: bag::Vehicle,
        mut on_record: impl FnMut(u64, &Record) -> Result<(), LogError>,
    ) -> anyhow::Result<(u64, Option<bag::BagInfo>)> {
        let read = if let Some(obs) = &args.observations {
            let each = |rec: &Record| on_record(rec.step, rec);
            acres::formats::bridge_log::read_reports(&args.log, obs, vehicle, each)?;
            (0, None)
        } else if self.is_bag {
            let info = replay_bag(&args.log, &self.topics, vehicle, args.strict, on_record)?;
            (0, Some(info))
        } else {
            let n = read_records(name, self.input, self.is_csv, args.skip_bad, on_record)?;
            (n, None)
        };
        self.bar.finish_and_clear();
        Ok(read)
    }
}

/// A record whose t does not advance: an error with --strict, else a warning naming the
/// line (the first five).
fn time_fault(args: &Args, name: &str, line: u64, t: f64, seen: u64) -> Result<(), String> {
    let m = format!("t = {t} is not after the previous record's");
    if args.strict {
        return Err(m);
    }
    if seen < 5 {
        eprintln!("warning: {name}:{line}: {m} (taken as one control period later)");
    }
    Ok(())
}

/// A record of a log in the bridge's frame (y south, yaw toward the south) in the
/// library's; the speed and the logged command (curvature positive left) are the same.
fn from_bridge_frame(rec: &Record) -> Record {
    use acres::jobs::bridge::frame;
    let mut r = rec.clone();
    let p = &mut r.state.pose;
    let (x, y, yaw) = frame::pose_from_bridge(p.x_m, p.y_m, p.yaw_rad.to_degrees());
    (p.x_m, p.y_m, p.yaw_rad) = (x, y, yaw);
    r.state.yaw_rate_rps = frame::flip(r.state.yaw_rate_rps);
    r
}

/// A log starting further than this from its route is warned of, m.
const FAR_FROM_ROUTE_M: f64 = 10.0;

/// Warns where a log starts far from the route it is replayed on (the default scenario's
/// route, say, for a log of another drive): its path positions would mean nothing.
fn warn_if_far(name: &str, a: &Replayer, rec: &Record) {
    let d = a.distance_to_route(rec.state.pose);
    if d > FAR_FROM_ROUTE_M {
        eprintln!(
            "warning: {name} starts {d:.1} m from the route it is replayed on: give the route \
             driven (--route, or --scenario)"
        );
    }
}

/// Replays a ROS bag's control steps; warns of the steps left out in gaps of its poses,
/// and with `strict` fails where more than [`bag::STRICT_DROP_SHARE`] of the messages
/// were dropped for unsound stamps or gaps.
fn replay_bag(
    log: &Path,
    topics: &bag::Topics,
    vehicle: bag::Vehicle,
    strict: bool,
    mut on_record: impl FnMut(u64, &Record) -> Result<(), LogError>,
) -> anyhow::Result<bag::BagInfo> {
    let info = bag::read_bag(log, topics, vehicle, |rec| on_record(rec.step, rec))?;
    let d = info.dropped;
    if strict && d.faults() as f64 > bag::STRICT_DROP_SHARE * info.messages as f64 {
        anyhow::bail!(
            "{}: {} of {} messages were dropped for unsound header stamps ({}) or gaps of \
             the poses ({}), more than {} % (--strict)",
            log.display(),
            d.faults(),
            info.messages,
            d.stamp,
            d.gap,
            100.0 * bag::STRICT_DROP_SHARE
        );
    }
    for w in &info.warnings {
        eprintln!("warning: {w}");
    }
    if info.gap_steps > 0 {
        eprintln!(
            "warning: {}: {} control steps left out inside gaps of the poses (over {} s)",
            log.display(),
            info.gap_steps,
            bag::GAP_S
        );
    }
    Ok(info)
}

/// The log (or stdin for `-`), with a progress bar over its bytes; nothing for a bag,
/// which is mapped by its reader.
fn open_input(
    log: &Path,
    bag: bool,
    global: &Global,
) -> anyhow::Result<(Box<dyn BufRead>, indicatif::ProgressBar)> {
    if bag {
        return Ok((Box::new(std::io::empty()), indicatif::ProgressBar::hidden()));
    }
    if log == Path::new("-") {
        return Ok((
            Box::new(BufReader::new(std::io::stdin().lock())),
            indicatif::ProgressBar::hidden(),
        ));
    }
    let f = std::fs::File::open(log).with_context(|| format!("reading {}", log.display()))?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let bar = output::progress(global, len, "replay");
    Ok((
        Box::new(BufReader::with_capacity(1 << 16, bar.wrap_read(f))),
        bar,
    ))
}

fn io_err(e: std::io::Error) -> LogError {
    LogError::Io(e, "the rows".into())
}

impl Sink {
    /// The rows' sink of `--out` (none without it): JSON Lines or CSV by `--rows` or the
    /// extension, to stdout for `-` or atomically to a file.
    fn open(args: &Args, compare: bool) -> anyhow::Result<Sink> {
        let Some(p) = &args.out else {
            return Ok(Sink::None);
        };
        let jsonl = match args.rows.as_deref() {
            Some(r) => r == "jsonl",
            None => p
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "jsonl" | "json")),
        };
        let w = output::Writer::create(p)?;
        if jsonl {
            return Ok(Sink::Jsonl(w));
        }
        let mut c = csv::Writer::from_writer(w);
        c.write_record(if compare {
            &COMPARE_HEADER[..]
        } else {
            &ROW_HEADER[..]
        })?;
        Ok(Sink::Csv(Box::new(c)))
    }

    /// The row of one replay.
    fn one(&mut self, ra: &ReplayRow) -> Result<(), LogError> {
        match self {
            Sink::None => {}
            Sink::Csv(c) => c.write_record(csv_row(ra)).map_err(|e| io_err(e.into()))?,
            Sink::Jsonl(w) => {
                serde_json::to_writer(&mut *w, ra).map_err(|e| io_err(e.into()))?;
                w.write_all(b"\n").map_err(io_err)?;
            }
        }
        Ok(())
    }

    /// The rows of two replays of one step, side by side.
    fn pair(&mut self, ra: &ReplayRow, rb: &ReplayRow, differ: bool) -> Result<(), LogError> {
        match self {
            Sink::None => {}
            Sink::Csv(c) => c
                .write_record([
                    ra.step.to_string(),
                    fmt(ra.t),
                    fmt(ra.row.speed_mps),
                    fmt(rb.row.speed_mps),
                    fmt(ra.row.curvature_per_m),
                    fmt(rb.row.curvature_per_m),
                    join(&rules(&ra.row)),
                    join(&rules(&rb.row)),
                    differ.to_string(),
                ])
                .map_err(|e| io_err(e.into()))?,
            Sink::Jsonl(w) => {
                let pair = serde_json::json!({"step": ra.step, "t": ra.t, "a": ra, "b": rb, "differ": differ});
                serde_json::to_writer(&mut *w, &pair).map_err(|e| io_err(e.into()))?;
                w.write_all(b"\n").map_err(io_err)?;
            }
        }
        Ok(())
    }

    /// Closes the rows: flush, then commit the file.
    fn close(self, out: Option<&Path>, global: &Global) -> anyhow::Result<()> {
        let w = match self {
            Sink::None => return Ok(()),
            Sink::Csv(c) => c
                .into_inner()
                .map_err(|e| anyhow::anyhow!("{}", e.error()))?,
            Sink::Jsonl(w) => w,
        };
        let p = out.expect("a file for the rows");
        w.commit(p)?;
        if !output::is_stdout(p) {
            global.status(&format!("wrote {}", p.display()));
        }
        Ok(())
    }
}

fn summary_table(s: &Summary) -> String {
    let mut t = String::new();
    t.push_str(&format!("steps: {}\n", s.steps));
    if s.skipped > 0 {
        t.push_str(&format!("bad lines skipped: {}\n", s.skipped));
    }
    if s.interventions.is_empty() {
        t.push_str("interventions: none\n");
    }
    for (rule, n) in &s.interventions {
        t.push_str(&format!("interventions {rule}: {n} steps\n"));
    }
    match s.max_speed_reduction_step {
        Some(k) => t.push_str(&format!(
            "largest speed reduction: {:.2} m/s at step {k}\n",
            s.max_speed_reduction_mps
        )),
        None => t.push_str("largest speed reduction: none\n"),
    }
    if s.logged_break_counts.is_empty() {
        t.push_str("logged command broke a rule: never\n");
    }
    for (rule, n) in &s.logged_break_counts {
        let steps = &s.logged_breaks[rule];
        let list: Vec<String> = steps.iter().take(10).map(|k| k.to_string()).collect();
        let more = if *n as usize > list.len() {
            ", …"
        } else {
            ""
        };
        t.push_str(&format!(
            "logged command broke {rule}: {n} steps ({}{more})\n",
            list.join(", ")
        ));
    }
    match s.first_mismatch_step {
        Some(k) => t.push_str(&format!(
            "mismatches with the log: {} steps, the first at step {k}\n",
            s.mismatches
        )),
        None => t.push_str("mismatches with the log: none\n"),
    }
    t.push_str(&imperfections(s));
    t
}

/// The lines of the summary on what the log lacked: steps without a scan, differences
/// they leave unjudged, pose jumps.
fn imperfections(s: &Summary) -> String {
    let mut t = String::new();
    if s.steps_without_scan > 0 {
        t.push_str(&format!(
            "steps without a scan: {} (the obstacle rule not evaluated there; {} lower logged speeds unjudged)\n",
            s.steps_without_scan, s.unjudged
        ));
    }
    if s.time_faults > 0 {
        t.push_str(&format!(
            "records whose t is not after the previous one: {}\n",
            s.time_faults
        ));
    }
    if let (Some(n), Some(d)) = (s.bag_messages, s.dropped_messages)
        && d != Default::default()
    {
        t.push_str(&format!(
            "bag messages no step took: {} of {n} (unsound stamps {}, in gaps of the poses {}, \
             outside the poses {}, superseded before a step {})\n",
            d.stamp + d.gap + d.outside + d.superseded,
            d.stamp,
            d.gap,
            d.outside,
            d.superseded
        ));
    }
    if s.relocations > 0 {
        let list: Vec<String> = s
            .relocation_steps
            .iter()
            .take(10)
            .map(|k| k.to_string())
            .collect();
        let more = if s.relocations as usize > list.len() {
            ", …"
        } else {
            ""
        };
        t.push_str(&format!(
            "pose jumps (found on the path anew): {} ({}{more})\n",
            s.relocations,
            list.join(", ")
        ));
    }
    t
}

fn compare_table(c: &CompareSummary) -> String {
    let mut t = String::new();
    t.push_str(&format!(
        "steps: {}\nconfig a: {}\nconfig b: {}\n",
        c.a.steps, c.config_a, c.config_b
    ));
    for (name, s) in [("a", &c.a), ("b", &c.b)] {
        let parts: Vec<String> = s
            .interventions
            .iter()
            .map(|(r, n)| format!("{r} {n}"))
            .collect();
        let parts = if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        };
        t.push_str(&format!("interventions {name}: {parts}\n"));
    }
    t.push_str(&format!("steps that differ: {}\n", c.differences));
    if !c.differing_steps.is_empty() {
        let mut rows = vec![vec![
            "step".to_string(),
            "t (s)".into(),
            "rules a".into(),
            "rules b".into(),
            "speed a".into(),
            "speed b".into(),
        ]];
        for d in c.differing_steps.iter().take(20) {
            rows.push(vec![
                d.step.to_string(),
                output::f2(d.t),
                join(&d.rules_a),
                join(&d.rules_b),
                output::f2(d.speed_a_mps),
                output::f2(d.speed_b_mps),
            ]);
        }
        t.push_str(&output::table(&rows));
        if c.differences > 20 {
            t.push_str(&format!(
                "… {} more (all in --format json or --out)\n",
                c.differences - 20
            ));
        }
    }
    t
}
