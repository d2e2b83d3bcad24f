//! `acres route`: the plan check of a route before a drive.

use crate::Global;
use crate::output::{self, Format, f2};
use acres::chain::path::Path;
use acres::ground::{Corridor, Map, corridor};
use acres::jobs::route_check::{self, PointCheck, RouteReport};
use std::path::PathBuf;

/// The exit status of `route check` when a point fails.
pub const EXIT_FAILS: u8 = 3;

/// Routes: the plan check before a drive.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    sub: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    Check(CheckArgs),
}

/// Check a route against the shield and the envelope before driving it.
///
/// For each route point: the curvature against the shield's curvature_max_per_m (0.2
/// 1/m; fails above), class changes and points with no class (noted: the worst limits
/// apply), the planned speed against the class's speed command (noted: the driver caps
/// it) and vehicle speed (fails above). With --corridor or --map, the corridor's
/// clearance d(p) at each point: below m_v + G (1.1 m) the vehicle cannot stand there
/// (fails); below m_v + G + E the swept corridor narrows and allows only the speed where
/// its half width equals the clearance (noted where below the planned speed). Prints the
/// points with a fail or a note (--all: every point). Exit status 3 when a point fails.
#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// The route (acres route JSON or GeoJSON, or a shipped route's name); a GeoJSON in
    /// longitude and latitude is projected onto the CRS of --map or --corridor.
    #[arg(value_name = "ROUTE")]
    route: PathBuf,
    /// Build the corridor on this map (a manifest, a ROS map_server YAML, a class GeoTIFF,
    /// or `farm` for the shipped map) and check the clearance along the route.
    #[arg(long, value_name = "MAP", conflicts_with = "corridor")]
    map: Option<String>,
    /// Check the clearance in this corridor file instead of building one.
    #[arg(long, value_name = "FILE.acor")]
    corridor: Option<PathBuf>,
    /// Print every point, not only those with a fail or a note.
    #[arg(long)]
    all: bool,
    /// Output format: `table`, `json` (the summary and the points) or `csv`.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Also draw curvature, clearance and speed along the route (.png or .svg).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// The image size in pixels, WxH (default: 1100 wide; the height of a map-like plot
    /// follows what it shows).
    #[arg(long, value_name = "WxH", value_parser = crate::output::size)]
    size: Option<(u32, u32)>,
}

/// Runs `acres route`; `Ok(false)` when a point fails.
pub fn run(args: Args, global: &Global) -> anyhow::Result<bool> {
    match args.sub {
        Sub::Check(a) => check(a, global),
    }
}

/// A route file, or a shipped route by name; a route on the Earth is placed on `crs`.
fn load_route(p: &std::path::Path, crs: acres::ground::MapCrs<'_>) -> anyhow::Result<Path> {
    Ok(Path::load_named_on(p, crs)?)
}

fn check(a: CheckArgs, global: &Global) -> anyhow::Result<bool> {
    let config = global.load_config()?;
    let format = match &a.plot {
        Some(p) => Some(crate::plot::checked_image("--plot", None, p)?),
        None => None,
    };
    let (route, corridor) = match (&a.corridor, &a.map) {
        (Some(f), _) => {
            let c = Corridor::load(f)?;
            (load_route(&a.route, c.crs.into())?, Some(c))
        }
        (None, Some(m)) => {
            let map = Map::load_named(m)?;
            let route = load_route(&a.route, map.route_crs())?;
            let c = corridor::build(&map, &route, &config.control.corridor, |_| {})?;
            (route, Some(c))
        }
        (None, None) => (load_route(&a.route, acres::ground::MapCrs::None)?, None),
    };
    let report = route_check::check(&config, &route, corridor.as_ref());
    if let (Some(p), Some(f)) = (&a.plot, format) {
        output::write_output(
            p,
            &acres::plot::route_check(
                &config,
                &report,
                acres::plot::ImageSpec {
                    format: f,
                    size: a.size,
                },
            )?,
        )?;
        if !output::is_stdout(p) {
            global.status(&format!("wrote {}", p.display()));
        }
    }
    let rows: &[PointCheck] = if a.all { &report.all } else { &report.issues };
    let mut v = serde_json::to_value(&report)?;
    v["issues"] = serde_json::to_value(rows)?;
    let stdout_taken = a.plot.as_deref().is_some_and(output::is_stdout);
    output::emit(
        a.format,
        &v,
        || table(&report, rows),
        || records(rows),
        stdout_taken,
    )?;
    Ok(report.passes())
}

fn records(rows: &[PointCheck]) -> Vec<Vec<String>> {
    let opt = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x}"));
    let mut out = vec![
        [
            "index",
            "station_m",
            "x",
            "y",
            "class",
            "curvature_per_m",
            "speed_mps",
            "speed_command_mps",
            "class_speed_mps",
            "clearance_m",
            "corridor_speed_mps",
            "fails",
            "notes",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for c in rows {
        out.push(vec![
            c.index.to_string(),
            format!("{}", c.station_m),
            format!("{}", c.x),
            format!("{}", c.y),
            c.class.map_or(String::new(), route_check::name),
            format!("{}", c.curvature_per_m),
            format!("{}", c.speed_mps),
            format!("{}", c.speed_command_mps),
            format!("{}", c.class_speed_mps),
            opt(c.clearance_m),
            opt(c.corridor_speed_mps),
            c.fails.join("; "),
            c.notes.join("; "),
        ]);
    }
    out
}

fn table(report: &RouteReport, rows: &[PointCheck]) -> String {
    let mut t = vec![
        [
            "point",
            "station m",
            "x",
            "y",
            "κ 1/m",
            "v m/s",
            "clearance m",
            "verdict",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for c in rows {
        let verdict = if c.fails.is_empty() {
            format!("note: {}", c.notes.join("; "))
        } else {
            format!(
                "FAIL: {}",
                c.fails
                    .iter()
                    .chain(&c.notes)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        };
        t.push(vec![
            c.index.to_string(),
            f2(c.station_m),
            f2(c.x),
            f2(c.y),
            format!("{:.3}", c.curvature_per_m),
            f2(c.speed_mps),
            c.clearance_m.map_or("-".into(), f2),
            verdict,
        ]);
    }
    let mut s = output::table(&t);
    s.push_str(&format!(
        "route {}: {} points, {:.1} m; {} fail, {} noted\n",
        report.route, report.points, report.length_m, report.failing_points, report.noted_points
    ));
    s
}
