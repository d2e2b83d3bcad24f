//! `acres envelope`: the speed envelope of each ground class (docs/rules.md "Speed
//! envelope"): the class table, the stop distance and the stop cap.

use crate::Global;
use crate::output::{self, Format, f2, full};
use acres::chain::envelope::{ClassLimits, Grip, GroundClass};
use acres::config::Config;
use anyhow::anyhow;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use serde::Serialize;

/// The speed envelope: class limits, stop distance d_stop(v) and stop cap stopCap(d).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    Show(ShowArgs),
    StopDistance(StopDistanceArgs),
    StopCap(StopCapArgs),
    Measure(crate::calibrate::MeasureArgs),
    Calibrate(crate::calibrate::CalibrateArgs),
}

/// Print the class table of a grip level.
///
/// One row per ground class: the speed command, the vehicle speed, the deceleration a,
/// the obstacle margin d_m and the lateral limit, with d_stop at the vehicle speed and
/// what it leaves to spare inside the scan reach (corridor.range_m). The last row,
/// `unknown`, holds the limits of a path point with no known class: the worst value of
/// each limit over the classes.
#[derive(Debug, clap::Args)]
struct ShowArgs {
    #[command(flatten)]
    grip: GripArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Print the stop distance d_stop(v) = d_m + |v| T + v²/(2a), in metres.
///
/// d_m and a are the class limits of the envelope, T = latency_s + response_s of the
/// envelope file (1.0 s shipped). Example: --class asphalt --speed 7.8 gives 35.65.
#[derive(Debug, clap::Args)]
struct StopDistanceArgs {
    #[command(flatten)]
    class: ClassArg,
    /// The speed of the vehicle, m/s (a magnitude, 0 to 50).
    #[arg(long, value_name = "V", value_parser = output::speed, allow_negative_numbers = true)]
    speed: f64,
    #[command(flatten)]
    grip: GripArg,
    /// Output format: `table` prints the number rounded to 2 decimals; `json` and `csv`
    /// print the inputs, the class limits used and the result at full precision.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Print the stop cap: the largest speed that stops inside a distance, in m/s.
///
/// stopCap(d) = max{v ≥ 0 : d_m + v T + v²/(2a) ≤ d}, in closed form; 0 when d < d_m.
/// Example: --class gravel --distance 20 gives 5.41.
#[derive(Debug, clap::Args)]
struct StopCapArgs {
    #[command(flatten)]
    class: ClassArg,
    /// The free distance ahead, m (0 to 10,000).
    #[arg(long, value_name = "D", value_parser = output::distance, allow_negative_numbers = true)]
    distance: f64,
    #[command(flatten)]
    grip: GripArg,
    /// Output format: `table` prints the number rounded to 2 decimals; `json` and `csv`
    /// print the inputs, the class limits used and the result at full precision.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// The `--class` option: a ground class, or `unknown` for a point with no known class.
#[derive(Debug, clap::Args)]
struct ClassArg {
    /// The ground class; `unknown` gives the worst of each limit over the classes.
    #[arg(long, value_name = "CLASS", value_parser = class_parser())]
    class: ClassSel,
}

/// A ground class, or `None` for a point with no known class.
#[derive(Debug, Clone, Copy)]
struct ClassSel(Option<GroundClass>);

/// The `--grip` option.
#[derive(Debug, clap::Args)]
pub struct GripArg {
    /// The grip level: `unknown` (the default, the worst over all ground states) or `dry`
    /// (only where the envelope file has a dry table).
    #[arg(long, value_name = "GRIP", default_value = "unknown", value_parser = grip_parser())]
    pub grip: Grip,
}

const CLASS_NAMES: [&str; 8] = [
    "asphalt",
    "concrete",
    "gravel",
    "grass_lane",
    "dirt",
    "grass",
    "field",
    "unknown",
];

fn class_parser() -> impl TypedValueParser<Value = ClassSel> {
    PossibleValuesParser::new(CLASS_NAMES).map(|s| ClassSel(s.parse::<GroundClass>().ok()))
}

/// A clap value parser of grip levels.
pub(crate) fn grip_parser() -> impl TypedValueParser<Value = Grip> {
    PossibleValuesParser::new(["unknown", "dry"])
        .map(|s| s.parse::<Grip>().expect("a possible value"))
}

fn class_name(c: Option<GroundClass>) -> &'static str {
    c.map_or("unknown", GroundClass::name)
}

/// The limits of a class, or an error naming the missing grip table.
fn limits(config: &Config, grip: Grip, class: Option<GroundClass>) -> anyhow::Result<ClassLimits> {
    config.envelope.limits(grip, class).ok_or_else(|| {
        anyhow!(
            "{}: the envelope has no `grips.{grip}` table (only calibration gives one)",
            config.source(acres::config::ConfigFile::Envelope)
        )
    })
}

/// One row of `envelope show`, and the JSON of `stop-distance`.
#[derive(Serialize)]
struct Row {
    class: &'static str,
    speed_command_mps: f64,
    speed_mps: f64,
    decel_mps2: f64,
    obstacle_margin_m: f64,
    lateral_accel_max_mps2: f64,
    stop_distance_m: f64,
    spare_m: f64,
}

pub fn run(args: Args, global: &Global) -> anyhow::Result<()> {
    let config = global.load_config()?;
    match args.command {
        Sub::Show(a) => show(&config, a),
        Sub::StopDistance(a) => stop_distance(&config, a),
        Sub::StopCap(a) => stop_cap(&config, a),
        Sub::Measure(a) => crate::calibrate::measure(&config, a, global),
        Sub::Calibrate(a) => crate::calibrate::calibrate(&config, a, global),
    }
}

fn show(config: &Config, a: ShowArgs) -> anyhow::Result<()> {
    let grip = a.grip.grip;
    let env = &config.envelope;
    let reach = config.control.corridor.range_m;
    let rows = show_rows(config, grip, reach)?;
    match a.format {
        Format::Json => {
            #[derive(Serialize)]
            struct Show<'a> {
                grip: Grip,
                latency_s: f64,
                response_s: f64,
                stop_time_s: f64,
                scan_reach_m: f64,
                classes: &'a [Row],
            }
            output::print_json(&Show {
                grip,
                latency_s: env.latency_s,
                response_s: env.response_s,
                stop_time_s: env.stop_time_s(),
                scan_reach_m: reach,
                classes: &rows,
            })
        }
        Format::Csv => show_csv(&rows),
        Format::Table => show_table(config, grip, &rows),
    }
}

/// One row per class, and one for a point with no known class.
fn show_rows(config: &Config, grip: Grip, reach: f64) -> anyhow::Result<Vec<Row>> {
    let env = &config.envelope;
    let classes: Vec<Option<GroundClass>> = GroundClass::ALL
        .into_iter()
        .map(Some)
        .chain(std::iter::once(None))
        .collect();
    let mut rows = Vec::new();
    for class in classes {
        let l = limits(config, grip, class)?;
        let d = env.stop_rule(&l).stop_distance(l.speed_mps);
        rows.push(Row {
            class: class_name(class),
            speed_command_mps: l.speed_command_mps,
            speed_mps: l.speed_mps,
            decel_mps2: l.decel_mps2,
            obstacle_margin_m: l.obstacle_margin_m,
            lateral_accel_max_mps2: l.lateral_accel_max_mps2,
            stop_distance_m: d,
            spare_m: reach - d,
        });
    }
    Ok(rows)
}

fn show_csv(rows: &[Row]) -> anyhow::Result<()> {
    let mut recs = vec![
        [
            "class",
            "speed_command_mps",
            "speed_mps",
            "decel_mps2",
            "obstacle_margin_m",
            "lateral_accel_max_mps2",
            "stop_distance_m",
            "spare_m",
        ]
        .map(String::from)
        .to_vec(),
    ];
    recs.extend(rows.iter().map(|r| {
        let mut rec = vec![r.class.to_string()];
        rec.extend(row_numbers(r).map(full));
        rec
    }));
    output::print_csv(&recs)
}

fn show_table(config: &Config, grip: Grip, rows: &[Row]) -> anyhow::Result<()> {
    let env = &config.envelope;
    let reach = config.control.corridor.range_m;
    let mut recs = vec![
        [
            "class",
            "speed cmd",
            "speed",
            "decel a",
            "margin d_m",
            "lateral",
            "d_stop",
            "spare",
        ]
        .map(String::from)
        .to_vec(),
        ["", "m/s", "m/s", "m/s²", "m", "m/s²", "m", "m"]
            .map(String::from)
            .to_vec(),
    ];
    recs.extend(rows.iter().map(|r| {
        let mut rec = vec![r.class.to_string()];
        rec.extend(row_numbers(r).map(f2));
        rec
    }));
    let head = format!(
        "grip {grip}; T = {} s (latency {} s + response {} s); scan reach {reach} m\n",
        env.stop_time_s(),
        env.latency_s,
        env.response_s
    );
    output::print(&(head + &output::table(&recs)))
}

fn row_numbers(r: &Row) -> [f64; 7] {
    [
        r.speed_command_mps,
        r.speed_mps,
        r.decel_mps2,
        r.obstacle_margin_m,
        r.lateral_accel_max_mps2,
        r.stop_distance_m,
        r.spare_m,
    ]
}

/// The inputs and result of `stop-distance` and `stop-cap` in JSON and CSV.
#[derive(Serialize)]
struct Scalar {
    class: &'static str,
    grip: Grip,
    #[serde(skip_serializing_if = "Option::is_none")]
    speed_mps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    distance_m: Option<f64>,
    obstacle_margin_m: f64,
    stop_time_s: f64,
    decel_mps2: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop_distance_m: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop_cap_mps: Option<f64>,
}

fn print_scalar(s: &Scalar, result: f64, format: Format) -> anyhow::Result<()> {
    match format {
        Format::Table => output::print(&format!("{}\n", f2(result))),
        Format::Json => output::print_json(s),
        Format::Csv => {
            let mut w = csv::Writer::from_writer(std::io::stdout().lock());
            w.serialize(s)?;
            w.flush()?;
            Ok(())
        }
    }
}

fn stop_distance(config: &Config, a: StopDistanceArgs) -> anyhow::Result<()> {
    let grip = a.grip.grip;
    let l = limits(config, grip, a.class.class.0)?;
    let rule = config.envelope.stop_rule(&l);
    let d = rule.stop_distance(a.speed);
    let s = Scalar {
        class: class_name(a.class.class.0),
        grip,
        speed_mps: Some(a.speed),
        distance_m: None,
        obstacle_margin_m: rule.obstacle_margin_m,
        stop_time_s: rule.stop_time_s,
        decel_mps2: rule.decel_mps2,
        stop_distance_m: Some(d),
        stop_cap_mps: None,
    };
    print_scalar(&s, d, a.format)
}

fn stop_cap(config: &Config, a: StopCapArgs) -> anyhow::Result<()> {
    let grip = a.grip.grip;
    let l = limits(config, grip, a.class.class.0)?;
    let rule = config.envelope.stop_rule(&l);
    let v = rule.stop_cap(a.distance);
    let s = Scalar {
        class: class_name(a.class.class.0),
        grip,
        speed_mps: None,
        distance_m: Some(a.distance),
        obstacle_margin_m: rule.obstacle_margin_m,
        stop_time_s: rule.stop_time_s,
        decel_mps2: rule.decel_mps2,
        stop_distance_m: None,
        stop_cap_mps: Some(v),
    };
    print_scalar(&s, v, a.format)
}
