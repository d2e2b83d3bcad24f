//! `acres corridor`: corridor rasters from the map's ground-class raster and a route
//! (docs/rules.md "Corridor rasters and the clearance bound").

use crate::Global;
use crate::output::{self, Format, f2};
use acres::chain::path::Path;
use acres::ground::Map;
use acres::ground::corridor::{self, Corridor, Provenance};
use anyhow::{Context, anyhow, bail};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

/// Build, query and inspect corridor rasters: each cell a lower bound of the distance
/// from its centre to ground the vehicle must not enter.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    Build(BuildArgs),
    Query(QueryArgs),
    Info(InfoArgs),
    Export(ExportArgs),
}

/// Write a corridor in the formats other tools read.
///
/// --geotiff: d_c as a float32 GeoTIFF (one band, the georeference as pixel scale and
/// tie point, the map's CRS where it names one, excluded cells as nodata -9999) that GDAL,
/// QGIS and rasterio open at the corridor's place. --nav2: a nav2 keepout filter mask, a
/// map_server YAML (trinary, with acres_crs where the map has a CRS) and a PGM of the
/// same name beside it: free inside the corridor, occupied outside.
#[derive(Debug, clap::Args)]
struct ExportArgs {
    /// The corridor file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Write d_c as a GeoTIFF.
    #[arg(long, value_name = "FILE.tif")]
    geotiff: Option<PathBuf>,
    /// Write a nav2 keepout mask: this YAML and a PGM of the same stem beside it.
    #[arg(long, value_name = "FILE.yaml")]
    nav2: Option<PathBuf>,
}

/// Build the corridor raster of a route on a map.
///
/// Lane cells (asphalt, concrete, gravel, grass_lane, dirt) and verge cells join within
/// corridor.lane_reach_m of the route; cells of other classes join within
/// corridor.local_reach_m where the route's class at the nearest route point is that
/// class (the class of either end of the nearest route segment); obstacle and unknown
/// cells never join (a map_server map's grey 205 and a class GeoTIFF's nodata are
/// unknown), and the cells of unknown ground within reach are counted on stderr. The
/// raster covers the route's bounding box grown by the larger reach
/// and the scan reach corridor.range_m, clipped to the map, at the map's resolution. Each
/// cell stores d_c, the exact distance from its centre to the nearest excluded cell's
/// square or the raster's edge, rounded down to f32: a true lower bound. A route entirely
/// outside the map, or a raster above --max-cells, is an error before anything is
/// allocated; the output folders are checked before the build. The file is written
/// atomically.
#[derive(Debug, clap::Args)]
struct BuildArgs {
    /// The map: a manifest (JSON), a ROS map_server YAML, a class GeoTIFF, or `farm`;
    /// default: the shipped farm map (data/maps/farm/farm.json).
    #[arg(long, value_name = "FILE")]
    map: Option<PathBuf>,
    /// The route (acres route JSON or GeoJSON; a GeoJSON in longitude and latitude is
    /// projected onto the map's CRS), or a shipped route's name (data/routes/); default:
    /// the shipped data/routes/farm_yard_to_east_lane.json.
    #[arg(long, value_name = "FILE")]
    route: Option<PathBuf>,
    /// The corridor file to write (`-`: stdout, not onto a terminal).
    #[arg(long, short, value_name = "FILE")]
    out: PathBuf,
    /// Also draw the corridor (PNG or SVG by the extension): d_c on a ramp of blues, the
    /// map's classes outside it, the route, axes in map metres, a legend and a scale bar;
    /// one pixel a cell (sampled above 2400 cells a side; a square of pixels a cell below
    /// 600, so that small rasters read). A PNG gets a world file (.pgw)
    /// beside it that places it on the map.
    #[arg(long, value_name = "FILE.png|svg")]
    image: Option<PathBuf>,
    /// The most cells the raster may have (default 2^28, 1 GiB of d_c).
    #[arg(long, value_name = "N", default_value_t = corridor::MAX_CELLS)]
    max_cells: u64,
}

/// Print d(p) = max_c (d_c − ‖p − c‖) at points, in metres.
///
/// c runs over the four cells whose centres surround p. d(p) is a lower bound of the
/// distance from p to excluded ground, within one cell diagonal of it; a point outside
/// the raster or on excluded ground gives a value ≤ 0.
#[derive(Debug, clap::Args)]
struct QueryArgs {
    /// The corridor file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// A point X,Y in the world frame, m (repeatable).
    #[arg(long = "at", value_name = "X,Y", value_parser = parse_xy, allow_hyphen_values = true)]
    at: Vec<(f64, f64)>,
    /// A CSV file of points with the columns x and y (a header row).
    #[arg(long, value_name = "FILE.csv")]
    points: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Compare the corridor's recorded map hash with this map (a manifest, a map_server
    /// YAML, a class GeoTIFF, or `farm`): a warning on stderr where the map has changed
    /// since the build.
    #[arg(long, value_name = "MAP")]
    map: Option<String>,
}

/// Print the header of a corridor file and a summary of its cells.
#[derive(Debug, clap::Args)]
struct InfoArgs {
    /// The corridor file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Output format: `table`, `json` or `csv` (one row).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

fn parse_xy(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s
        .split_once(',')
        .ok_or_else(|| format!("`{s}` is not X,Y"))?;
    let num = |t: &str| -> Result<f64, String> {
        let v: f64 = t
            .trim()
            .parse()
            .map_err(|_| format!("`{t}` is not a number"))?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(format!("`{t}` is not finite"))
        }
    };
    Ok((num(a)?, num(b)?))
}

pub fn run(args: Args, global: &Global) -> anyhow::Result<()> {
    match args.command {
        Sub::Build(a) => build(a, global),
        Sub::Query(a) => query(a, global),
        Sub::Info(a) => info(a),
        Sub::Export(a) => export(a, global),
    }
}

fn build(a: BuildArgs, global: &Global) -> anyhow::Result<()> {
    let config = global.load_config()?;
    let t0 = Instant::now();
    let map = match &a.map {
        Some(p) if p.to_str() == Some("farm") => Map::builtin_farm(),
        Some(p) => Map::load(p)?,
        None => Map::builtin_farm(),
    };
    if let Some(why) = &map.crs_note {
        // Warned even under --quiet: the corridor file will carry no CRS.
        eprintln!(
            "warning: the map's CRS cannot be used ({why}); it is read in its own metres, \
             the corridor carries no CRS, and a route must be in the map's metres"
        );
    }
    let route = match &a.route {
        Some(p) => Path::load_named_on(p, map.route_crs())?,
        None => Path::builtin("farm_yard_to_east_lane.json").expect("a shipped route"),
    };
    let image_format = match &a.image {
        Some(img) => Some(crate::plot::image_format(None, img)?),
        None => None,
    };
    let image_kind = image_format.map_or(output::Kind::Binary, crate::plot::image_kind);
    output::check_outputs(&[
        ("--out", Some(&a.out), output::Kind::Binary),
        ("--image", a.image.as_deref(), image_kind),
    ])?;
    let bar = crate::output::progress(global, 1000, "building corridor");
    let cfg = &config.control.corridor;
    let built = corridor::build_reported(&map, &route, cfg, a.max_cells, |f| {
        bar.set_position((f * 1000.0) as u64)
    });
    bar.finish_and_clear();
    let (c, report) = built?;
    if output::is_stdout(&a.out) {
        output::write_output(&a.out, &c.to_bytes())?;
    } else {
        c.save(&a.out)?;
    }
    let g = &c.grid;
    let inside = g.cells.iter().filter(|&&d| d > 0.0).count();
    global.status(&format!(
        "wrote {}: {} × {} cells at {} m, {:.1} % in the corridor, {:.2} s",
        a.out.display(),
        g.width,
        g.height,
        g.resolution_m,
        100.0 * inside as f64 / g.cells.len() as f64,
        t0.elapsed().as_secs_f64()
    ));
    if report.unknown_cells > 0 {
        global.status(&format!(
            "{} cells of unknown ground within reach of the route ({:.0} m²) left out of the corridor",
            report.unknown_cells,
            report.unknown_cells as f64 * g.resolution_m * g.resolution_m
        ));
    }
    if let (Some(img), Some(format)) = (&a.image, image_format) {
        let bytes = acres::plot::corridor_image(&c, &map, Some(&route), format)?;
        output::write_output(img, &bytes)?;
        if output::is_stdout(img) || format == acres::plot::ImageFormat::Svg {
            global.status(&format!("wrote {}", img.display()));
            return Ok(());
        }
        let pgw = img.with_extension("pgw");
        output::write_output(&pgw, acres::plot::corridor_world_file(&c).as_bytes())?;
        global.status(&format!(
            "wrote {} and its world file {}",
            img.display(),
            pgw.display()
        ));
    }
    Ok(())
}

#[derive(Serialize)]
struct Point {
    x: f64,
    y: f64,
    d_m: f64,
}

fn read_points(path: &PathBuf) -> anyhow::Result<Vec<(f64, f64)>> {
    let mut r =
        csv::Reader::from_path(path).with_context(|| format!("reading {}", path.display()))?;
    let headers = r.headers()?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| anyhow!("{}: no column `{name}` in the header", path.display()))
    };
    let (ix, iy) = (col("x")?, col("y")?);
    let mut out = Vec::new();
    for (k, rec) in r.records().enumerate() {
        let line = k + 2;
        let rec = rec.with_context(|| format!("{}: line {line}", path.display()))?;
        let num = |i: usize| -> anyhow::Result<f64> {
            let t = rec.get(i).unwrap_or("");
            let v: f64 = t
                .trim()
                .parse()
                .map_err(|_| anyhow!("{}: line {line}: `{t}` is not a number", path.display()))?;
            if !v.is_finite() {
                bail!("{}: line {line}: `{t}` is not finite", path.display());
            }
            Ok(v)
        };
        out.push((num(ix)?, num(iy)?));
    }
    Ok(out)
}

fn query(a: QueryArgs, global: &Global) -> anyhow::Result<()> {
    let c = Corridor::load(&a.file)?;
    if let Some(m) = &a.map {
        let map = Map::load_named(m)?;
        match &c.provenance {
            None => global.status(&format!(
                "warning: {} records no map hash (built by an older acres): the map cannot be compared",
                a.file.display()
            )),
            Some(p) if p.map != acres::ground::corridor::raster::map_hash(&map) => {
                global.status(&format!(
                    "warning: the map {m} has changed since {} was built from it: rebuild the corridor",
                    a.file.display()
                ))
            }
            Some(_) => {}
        }
    }
    let mut pts = a.at.clone();
    if let Some(p) = &a.points {
        pts.extend(read_points(p)?);
    }
    if pts.is_empty() {
        return Err(crate::output::usage(
            "no points: give --at X,Y or --points FILE.csv",
        ));
    }
    let rows: Vec<Point> = pts
        .iter()
        .map(|&(x, y)| Point {
            x,
            y,
            d_m: c.query(x, y),
        })
        .collect();
    warn_off_raster(&c, &pts);
    match a.format {
        Format::Json => output::print_json(&rows),
        Format::Csv => {
            let mut recs = vec![vec!["x".to_string(), "y".into(), "d_m".into()]];
            recs.extend(
                rows.iter()
                    .map(|r| vec![r.x.to_string(), r.y.to_string(), r.d_m.to_string()]),
            );
            output::print_csv(&recs)
        }
        Format::Table => {
            let mut recs = vec![vec!["x".to_string(), "y".into(), "d (m)".into()]];
            recs.extend(rows.iter().map(|r| vec![f2(r.x), f2(r.y), f2(r.d_m)]));
            output::print(&output::table(&recs))
        }
    }
}

/// A warning on stderr where some points lie off the raster: their 0 is not a measured
/// clearance but the unknown ground beyond the raster's edge.
fn warn_off_raster(c: &Corridor, pts: &[(f64, f64)]) {
    let off: Vec<&(f64, f64)> = pts.iter().filter(|(x, y)| !c.covers(*x, *y)).collect();
    let Some((x, y)) = off.first() else { return };
    let ((x0, x1), (y0, y1)) = c.extent();
    let more = match off.len() {
        1 => String::new(),
        n => format!(" and {} more points", n - 1),
    };
    eprintln!(
        "acres: warning: ({x}, {y}){more} off the corridor's raster, x {x0:.1} to {x1:.1}, y \
         {y0:.1} to {y1:.1}: d is 0 there (unknown ground), not a measured clearance"
    );
}

#[derive(Serialize)]
struct Info {
    file: String,
    version: u32,
    map: String,
    route: String,
    width: usize,
    height: usize,
    resolution_m: f64,
    origin_m: [f64; 2],
    corridor_cells: usize,
    max_d_m: f64,
    mean_d_in_corridor_m: f64,
    /// SHA-256 of the map's classes, the route's points and the corridor config (null
    /// for a version 1 file).
    map_sha256: Option<String>,
    route_sha256: Option<String>,
    config_sha256: Option<String>,
    /// The map's projected CRS (`EPSG:<code>`), null where it names none.
    crs: Option<String>,
}

fn info(a: InfoArgs) -> anyhow::Result<()> {
    let c = Corridor::load(&a.file)?;
    let g = &c.grid;
    let inside: Vec<f64> = g
        .cells
        .iter()
        .filter(|&&d| d > 0.0)
        .map(|&d| d as f64)
        .collect();
    let i = Info {
        file: a.file.display().to_string(),
        version: acres::formats::corridor_file::version_of(&a.file)?,
        map: c.map.clone(),
        route: c.route.clone(),
        width: g.width,
        height: g.height,
        resolution_m: g.resolution_m,
        origin_m: g.origin_m,
        corridor_cells: inside.len(),
        max_d_m: inside.iter().fold(0.0, |a, &b| a.max(b)),
        mean_d_in_corridor_m: if inside.is_empty() {
            0.0
        } else {
            inside.iter().sum::<f64>() / inside.len() as f64
        },
        map_sha256: c.provenance.map(|p| Provenance::hex(&p.map)),
        route_sha256: c.provenance.map(|p| Provenance::hex(&p.route)),
        config_sha256: c.provenance.map(|p| Provenance::hex(&p.config)),
        crs: c.crs.map(|c| c.to_string()),
    };
    match a.format {
        Format::Json => return output::print_json(&i),
        Format::Csv => return output::print_csv(&output::csv_of(&i)?),
        Format::Table => {}
    }
    let rows = vec![
        vec!["file".to_string(), i.file],
        vec!["format version".into(), i.version.to_string()],
        vec!["map".into(), i.map],
        vec!["route".into(), i.route],
        vec!["CRS".into(), i.crs.clone().unwrap_or("none".into())],
        vec!["cells".into(), format!("{} × {}", i.width, i.height)],
        vec!["resolution".into(), format!("{} m", i.resolution_m)],
        vec![
            "lower-left corner".into(),
            format!("({}, {}) m", i.origin_m[0], i.origin_m[1]),
        ],
        vec![
            "in the corridor".into(),
            format!(
                "{} cells ({:.1} %)",
                i.corridor_cells,
                100.0 * i.corridor_cells as f64 / (i.width * i.height).max(1) as f64
            ),
        ],
        vec!["largest d_c".into(), format!("{:.2} m", i.max_d_m)],
        vec![
            "mean d_c in the corridor".into(),
            format!("{:.2} m", i.mean_d_in_corridor_m),
        ],
        vec!["map sha256".into(), i.map_sha256.unwrap_or("-".into())],
        vec!["route sha256".into(), i.route_sha256.unwrap_or("-".into())],
        vec![
            "config sha256".into(),
            i.config_sha256.unwrap_or("-".into()),
        ],
    ];
    let text: String = rows
        .iter()
        .map(|r| format!("{}: {}\n", r[0], r[1]))
        .collect();
    output::print(&text)
}

fn export(a: ExportArgs, global: &Global) -> anyhow::Result<()> {
    if a.geotiff.is_none() && a.nav2.is_none() {
        return Err(crate::output::usage(
            "nothing to write: give --geotiff FILE.tif or --nav2 FILE.yaml",
        ));
    }
    if a.nav2.as_deref().is_some_and(output::is_stdout) {
        return Err(crate::output::usage(
            "--nav2 -: the mask is two files (YAML and PGM); give a file name",
        ));
    }
    output::check_outputs(&[
        ("--geotiff", a.geotiff.as_deref(), output::Kind::Binary),
        ("--nav2", a.nav2.as_deref(), output::Kind::Text),
    ])?;
    let c = Corridor::load(&a.file)?;
    if let Some(p) = &a.geotiff {
        output::write_output(p, &acres::formats::export::corridor_geotiff(&c)?)?;
        if !output::is_stdout(p) {
            global.status(&format!("wrote {}", p.display()));
        }
    }
    if let Some(p) = &a.nav2 {
        let pgm_path = p.with_extension("pgm");
        let pgm_name = pgm_path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| anyhow!("{}: not a file name", p.display()))?;
        let (yaml, pgm) = acres::formats::export::nav2_mask(&c, pgm_name)?;
        acres::formats::atomic::write_atomic(&pgm_path, &pgm)
            .with_context(|| format!("writing {}", pgm_path.display()))?;
        acres::formats::atomic::write_atomic(p, yaml.as_bytes())
            .with_context(|| format!("writing {}", p.display()))?;
        global.status(&format!("wrote {} and {}", p.display(), pgm_path.display()));
    }
    Ok(())
}
