//! `acres envelope measure` and `acres envelope calibrate`: the measurements of the
//! simulated Polaris, and the speed envelope from them (docs/rules.md "Speed envelope").

use crate::Global;
use crate::output::{self, f2};
use acres::chain::envelope::GroundClass;
use acres::config::Config;
use acres::formats::stops::{self, COLUMNS, Measurement};
use acres::jobs::calibrate;
use acres::plant::vehicle::GroundState;
use anyhow::Context;
use rayon::prelude::*;
use std::path::PathBuf;

/// The measurements shipped in data/stops/ (built into the binary).
pub const SHIPPED_STOPS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/stops/measurements.csv"
));

/// Measure the simulated Polaris for the envelope: stops, follow tests, steering steps.
///
/// For each ground class and ground state, on flat ground: stop tests from 1 m/s in steps
/// of 1 m/s up to the project cap of the class (7.8 m/s on roads and lanes, 5.6 on soft
/// ground): the ULC speed command from rest until the speed settles (the overshoot),
/// then the stop command until rest (the stop distance, the largest deceleration held
/// over 0.5 s, the tail below 0.5 m/s); the follow test: the chain drives a
/// straight lane toward a wall 120 m ahead at the project cap (the gap at rest and the
/// margin the shield used); steering steps to 0.2 1/m at held speeds from 2 m/s with the
/// corner rule on (whether a wheel lifts, the largest lateral acceleration). One CSV row
/// per test; the runs are deterministic and use both cores.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
CSV columns (empty where a column does not belong to the test):
  test                    stop, follow or steer
  class, state            the ground class and the ground state (dry, wet)
  speed_mps               the speed commanded (stop, steer) or of the route (follow), m/s
  overshoot_mps           stop: the largest speed over the command, m/s
  stop_distance_m         stop: from the stop command to rest, m
  decel_mps2              stop: the largest deceleration held over 0.5 s, m/s²
  tail_m                  stop: the distance after the speed fell below 0.5 m/s, m
  stop_time_s             stop: from the stop command to rest, s
  gap_m                   follow: from the front of the footprint to the wall at rest, m
  margin_used_m           follow: the obstacle margin the shield used, m
  collided                follow: whether the vehicle touched the wall
  wheel_lift              steer: whether an inner wheel lifted
  max_lateral_accel_mps2  steer: the largest lateral acceleration after the step, m/s²

The shipped measurements (data/stops/measurements.csv) were made with
  cargo run --release -- envelope measure --out data/stops/measurements.csv")]
pub struct MeasureArgs {
    /// The classes to measure, comma-separated (default: all seven).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = class_value)]
    classes: Vec<GroundClass>,
    /// The ground states to measure, comma-separated: dry, wet (default: both).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = ["dry", "wet"])]
    grip: Vec<String>,
    /// The CSV file to write (`-` for stdout); written atomically.
    #[arg(long, value_name = "FILE.csv")]
    out: PathBuf,
    /// Measure a vehicle behind a vehicle bridge (ours or the simulator's) through reset
    /// and the DBW commands, instead of the simulated Polaris in the process. The ground
    /// is what the vehicle stands on at its spawn pose: give its one class (--classes) and
    /// state (--grip). Stop tests and steering steps only (the follow test needs a wall).
    #[arg(long, value_name = "HOST:PORT")]
    bridge: Option<String>,
    /// With --bridge: the control channel of a lockstep server (each 50 Hz tick a step
    /// request); without it the bridge runs in real time and the tests take real time.
    #[arg(long, value_name = "PORT", requires = "bridge")]
    control_port: Option<u16>,
}

fn class_value(s: &str) -> Result<GroundClass, String> {
    s.parse()
}

/// Calibrate the speed envelope from measured stops.
///
/// Applies the rules of docs/rules.md "Speed envelope" to the measurements: the
/// deceleration 0.8 × min(measured, the controller limit dbw.ulc.limit_decel_mps2); the
/// stop time T = latency_s + response_s; the obstacle margin 1.5 m + the longest tail of
/// a stop + what the follow test needs to keep 1.5 m from a wall; the speed the lowest of
/// the project cap (7.8 m/s on roads and lanes, 5.6 on soft ground), the largest speed
/// with d_stop ≤ corridor.range_m (40 m), and the largest speed with no wheel lift in a
/// steering step; the speed command the speed less the largest overshoot. Grip `unknown`
/// is the worst of each limit over all measured ground states, `dry` the dry state; a
/// point with no class gets the worst over the classes. Values are rounded to 0.1 in the
/// safe direction. The lateral limits are the configured ones.
///
/// Without --stops it reads the shipped measurements (data/stops/), prints the table and
/// where it differs from the configured envelope_v1.json.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// The measurements (CSV of `acres envelope measure`); default: the shipped ones.
    #[arg(long, value_name = "FILE.csv")]
    stops: Option<PathBuf>,
    /// Write the calibrated envelope file (atomically); `--config-dir` of any subcommand
    /// accepts it as envelope_v1.json.
    #[arg(long, value_name = "FILE.json")]
    out: Option<PathBuf>,
    /// Also draw the measurements against the calibrated limits (.png or .svg): each stop
    /// under its class's calibrated d_stop(v), each steering step (wheel lift or none)
    /// beside its class's calibrated speed.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// The plot's size in pixels, WxH (default 1100x720).
    #[arg(long, value_name = "WxH", value_parser = output::size, requires = "plot")]
    size: Option<(u32, u32)>,
    /// Make a missing kind of test an error (no wet rows; a class with no steering steps
    /// or no follow tests): by default a warning naming the limit that is then less
    /// conservative.
    #[arg(long)]
    strict: bool,
    /// Let --out write an envelope that loosens a limit of the configured one (a higher
    /// speed, deceleration or lateral limit, a smaller obstacle margin, a new table). By
    /// default such a file is refused, and the differences that loosen are marked.
    #[arg(long, requires = "out")]
    accept_looser: bool,
    /// The output format: `table`, `json` (the envelope, the derivations and the
    /// differences, each with `loosens`) or `csv` (a row per class and grip level). On
    /// stderr with --out -.
    #[arg(long, value_enum, default_value_t = output::Format::Table)]
    format: output::Format,
}

pub fn measure(config: &Config, a: MeasureArgs, global: &Global) -> anyhow::Result<()> {
    output::check_output("--out", &a.out, output::Kind::Text)?;
    let classes = if a.classes.is_empty() {
        GroundClass::ALL.to_vec()
    } else {
        a.classes
    };
    let states: Vec<GroundState> = if a.grip.is_empty() {
        vec![GroundState::Dry, GroundState::Wet]
    } else {
        a.grip
            .iter()
            .map(|s| {
                if s == "dry" {
                    GroundState::Dry
                } else {
                    GroundState::Wet
                }
            })
            .collect()
    };
    let mut plan = calibrate::plan(&classes, &states);
    let rows: Vec<Measurement> = match &a.bridge {
        None => {
            let bar = output::progress(global, plan.len() as u64, "measure");
            let rows = plan
                .par_iter()
                .map(|t| {
                    let m = calibrate::run_test(config, t);
                    bar.inc(1);
                    m
                })
                .collect();
            bar.finish_and_clear();
            rows
        }
        Some(addr) => measure_on_bridge(
            config,
            a.control_port,
            addr,
            &classes,
            &states,
            &mut plan,
            global,
        )?,
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(COLUMNS)?;
    for m in &rows {
        w.write_record(m.fields())?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| anyhow::anyhow!("{}", e.error()))?;
    output::write_output(&a.out, &bytes)?;
    if a.out.to_str() != Some("-") {
        global.status(&format!("wrote {} ({} tests)", a.out.display(), rows.len()));
    }
    Ok(())
}

/// The stop tests and steering steps of `plan` on the vehicle behind a bridge at `addr`
/// (HOST:PORT), on the one class and state its spawn pose stands on.
fn measure_on_bridge(
    config: &Config,
    control_port: Option<u16>,
    addr: &str,
    classes: &[GroundClass],
    states: &[GroundState],
    plan: &mut Vec<calibrate::Planned>,
    global: &Global,
) -> anyhow::Result<Vec<Measurement>> {
    if classes.len() != 1 || states.len() != 1 {
        return Err(output::usage(
            "--bridge measures the ground the vehicle stands on: give one class with --classes and one state with --grip",
        ));
    }
    let (host, port) = addr
        .rsplit_once(':')
        .and_then(|(h, p)| Some((h.to_string(), p.parse::<u16>().ok()?)))
        .ok_or_else(|| output::usage(format!("--bridge {addr}: expected HOST:PORT")))?;
    let conn = acres::jobs::bridge::client::BridgeConn::connect(&host, port)
        .with_context(|| format!("connecting to {addr}"))?;
    let control = match control_port {
        Some(p) => Some(
            acres::jobs::bridge::client::Control::connect(&host, p)
                .with_context(|| format!("connecting to {host}:{p}"))?,
        ),
        None => None,
    };
    let mut rig = acres::jobs::bridge::client::BridgeRig::new(conn, control);
    plan.retain(|t| t.test != stops::TestKind::Follow);
    let bar = output::progress(global, plan.len() as u64, "measure");
    let mut rows = Vec::new();
    for t in plan.iter() {
        rows.push(
            calibrate::run_test_on(config, &mut rig, t)
                .map_err(|e| anyhow::anyhow!("{addr}: {e}"))?,
        );
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(rows)
}

pub fn calibrate(config: &Config, a: CalibrateArgs, global: &Global) -> anyhow::Result<()> {
    let plot_format = match &a.plot {
        Some(p) => Some(crate::plot::image_format(None, p)?),
        None => None,
    };
    let stdout_taken = output::check_outputs(&[
        ("--out", a.out.as_deref(), output::Kind::Text),
        (
            "--plot",
            a.plot.as_deref(),
            plot_format.map_or(output::Kind::Text, crate::plot::image_kind),
        ),
    ])?;
    let rows = match &a.stops {
        Some(p) => {
            let f = std::fs::File::open(p).with_context(|| format!("reading {}", p.display()))?;
            stops::read_csv(&p.display().to_string(), f)?
        }
        None => stops::read_csv("data/stops/measurements.csv", SHIPPED_STOPS.as_bytes())?,
    };
    let source = a
        .stops
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "data/stops/measurements.csv (shipped)".into());
    let cal = calibrate::calibrate(config, &rows).map_err(|e| anyhow::anyhow!("{source}: {e}"))?;
    for w in &cal.warnings {
        if a.strict {
            anyhow::bail!("{source}: {w} (--strict)");
        }
        eprintln!("acres: warning: {source}: {w}");
    }
    let diffs = calibrate::differences(&config.envelope, &cal.envelope);
    if let (Some(p), Some(format)) = (&a.plot, plot_format) {
        let spec = acres::plot::ImageSpec {
            format,
            size: a.size,
        };
        output::write_output(p, &acres::plot::calibration(config, &rows, &cal, spec)?)?;
        if !output::is_stdout(p) {
            global.status(&format!("wrote {}", p.display()));
        }
    }
    let configured = config
        .source(acres::config::ConfigFile::Envelope)
        .to_string();
    let looser = diffs.iter().filter(|d| d.loosens).count();
    if let Some(p) = &a.out {
        if looser > 0 && !a.accept_looser {
            let table = calibration_table(&source, rows.len(), &cal, &configured, &diffs);
            eprint!("{table}");
            anyhow::bail!(
                "{} not written: {looser} of the {} differences loosen a limit of the configured \
                 envelope, {configured} (marked LOOSER above); --accept-looser writes it anyway",
                p.display(),
                diffs.len()
            );
        }
        let mut text = serde_json::to_string_pretty(&cal.envelope)?;
        text.push('\n');
        output::write_output(p, text.as_bytes())?;
        if p.to_str() != Some("-") {
            global.status(&format!("wrote {}", p.display()));
        }
    }
    let same_tables = calibrate::same_tables_note(&rows, &cal.envelope);
    #[derive(serde::Serialize)]
    struct Out<'a> {
        measurements: &'a str,
        envelope: &'a acres::chain::envelope::EnvelopeConfig,
        derivations: &'a [calibrate::Derivation],
        configured: &'a str,
        differences: &'a [calibrate::EnvelopeDiff],
        /// Why the dry and unknown tables are the same, where they are.
        #[serde(skip_serializing_if = "Option::is_none")]
        same_tables: Option<&'a str>,
    }
    let out = Out {
        measurements: &source,
        envelope: &cal.envelope,
        derivations: &cal.derivations,
        configured: &configured,
        differences: &diffs,
        same_tables: same_tables.as_deref(),
    };
    let csv = output::csv_of(&cal.derivations)?;
    output::emit(
        a.format,
        &out,
        || {
            let mut t = calibration_table(&source, rows.len(), &cal, &configured, &diffs);
            if let Some(n) = &same_tables {
                t.push_str(&format!("\n{n}\n"));
            }
            t
        },
        || csv,
        stdout_taken,
    )
}

/// The calibration as text: one table per grip level, then the differences from the
/// configured envelope.
fn calibration_table(
    source: &str,
    tests: usize,
    cal: &calibrate::Calibration,
    configured: &str,
    diffs: &[calibrate::EnvelopeDiff],
) -> String {
    let mut t = format!("measurements: {source} ({tests} tests)\n");
    let mut grip = "";
    let mut table: Vec<Vec<String>> = Vec::new();
    let header = || {
        [
            "class",
            "command",
            "speed",
            "a",
            "d_m",
            "lateral",
            "bound by",
            "decel",
            "tail",
            "follow",
            "overshoot",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<String>>()
    };
    for d in &cal.derivations {
        if d.grip != grip {
            if !table.is_empty() {
                t.push_str(&output::table(&table));
                table.clear();
            }
            grip = &d.grip;
            t.push_str(&format!("\ngrip {grip}:\n"));
            table.push(header());
        }
        let l = &d.limits;
        table.push(vec![
            d.class.name().into(),
            f2(l.speed_command_mps),
            f2(l.speed_mps),
            f2(l.decel_mps2),
            f2(l.obstacle_margin_m),
            f2(l.lateral_accel_max_mps2),
            d.binding.into(),
            f2(d.measured_decel_mps2),
            f2(d.longest_tail_m),
            f2(d.follow_addition_m),
            f2(d.largest_overshoot_mps),
        ]);
    }
    t.push_str(&output::table(&table));
    t.push_str("\n(command, speed: m/s; a, decel: m/s²; d_m, tail, follow: m; overshoot: m/s)\n");
    if diffs.is_empty() {
        t.push_str(&format!("\nthe same as {configured}\n"));
    } else {
        let looser = diffs.iter().filter(|d| d.loosens).count();
        t.push_str(&format!(
            "\ndifferences from {configured} ({looser} of {} loosen a limit):\n",
            diffs.len()
        ));
        for d in diffs {
            let v = |x: Option<f64>| x.map(f2).unwrap_or_else(|| "-".into());
            t.push_str(&format!(
                "  {} {} {}: {} → {}{}\n",
                d.grip,
                d.class,
                d.key,
                v(d.configured),
                v(d.calibrated),
                if d.loosens { "  LOOSER" } else { "" }
            ));
        }
    }
    t
}
