//! Diagrams, rendered to bytes (PNG or SVG) so that the caller decides where they go.
//!
//! Text is drawn with DejaVu Sans embedded in the binary (plotters' `ab_glyph` font
//! backend), so no system font library is needed.

use crate::chain::envelope::{ClassLimits, Grip, GroundClass, StopRule};
use crate::config::Config;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};
use std::path::Path;
use std::sync::Once;

/// The image formats of a plot, chosen by the output file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    Png,
    Svg,
}

impl ImageFormat {
    /// The format of a file name's extension (`.png` or `.svg`, any case).
    pub fn from_path(path: &Path) -> Result<ImageFormat, PlotError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase());
        match ext.as_deref() {
            Some("png") => Ok(ImageFormat::Png),
            Some("svg") => Ok(ImageFormat::Svg),
            _ => Err(PlotError::Format(path.display().to_string())),
        }
    }
}

/// An error of drawing a plot.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("{0}: the extension must be .png or .svg")]
    Format(String),
    #[error("the envelope has no `{0}` grip table")]
    NoGripTable(Grip),
    #[error("{0}")]
    Input(String),
    #[error("drawing the plot: {0}")]
    Draw(String),
    #[error("encoding the PNG: {0}")]
    Encode(#[from] png::EncodingError),
}

fn draw_err<E: std::fmt::Debug>(e: E) -> PlotError {
    PlotError::Draw(format!("{e:?}"))
}

/// A chart of two f64 axes.
type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Draws a chart's axes in the shared style: tick labels of `font` px, axis titles 2 px
/// larger, a light grid.
fn axes<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    x: &str,
    y: &str,
    font: u32,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_mesh()
        .x_desc(x)
        .y_desc(y)
        .label_style(("sans-serif", font))
        .axis_desc_style(("sans-serif", font + 2))
        .light_line_style(RGBColor(238, 238, 238))
        .draw()
        .map_err(draw_err)
}

/// Draws a chart's legend in the shared style at `pos`.
fn legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    pos: SeriesLabelPosition,
    font: u32,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(pos)
        .label_font(("sans-serif", font))
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(draw_err)
}

/// Registers the embedded font once per process.
fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font shipped by the `dejavu` crate.
        let _ = register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
        let _ = register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold());
    });
}

/// The size of the rendered images, pixels.
const SIZE: (u32, u32) = (1100, 720);

/// Renders with either backend and returns the encoded bytes.
fn render(
    format: ImageFormat,
    draw: impl FnOnce(&DrawingArea<BitMapBackend, Shift>) -> Result<(), PlotError>,
    draw_svg: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<(), PlotError>,
) -> Result<Vec<u8>, PlotError> {
    register_fonts();
    let (w, h) = SIZE;
    match format {
        ImageFormat::Png => {
            let mut rgb = vec![0u8; (w * h * 3) as usize];
            {
                let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
                draw(&root)?;
                root.present().map_err(draw_err)?;
            }
            encode_png(w, h, &rgb)
        }
        ImageFormat::Svg => {
            let mut s = String::new();
            {
                let root = SVGBackend::with_string(&mut s, (w, h)).into_drawing_area();
                draw_svg(&root)?;
                root.present().map_err(draw_err)?;
            }
            Ok(s.into_bytes())
        }
    }
}

/// An 8-bit RGB image as PNG bytes.
fn encode_png(w: u32, h: u32, rgb: &[u8]) -> Result<Vec<u8>, PlotError> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(out)
}

/// Options of the stop-distance diagram.
#[derive(Debug, Clone, Copy)]
pub struct StopDistanceOptions {
    /// The grip level of the table drawn.
    pub grip: Grip,
    /// The right end of the speed axis, m/s.
    pub max_speed_mps: f64,
}

/// Classes that share one stop rule share one curve.
struct Curve {
    rule: StopRule,
    classes: Vec<(GroundClass, ClassLimits)>,
}

fn curves(config: &Config, grip: Grip) -> Result<Vec<Curve>, PlotError> {
    let env = &config.envelope;
    let table = env.table(grip).ok_or(PlotError::NoGripTable(grip))?;
    let mut out: Vec<Curve> = Vec::new();
    for (class, row) in table.rows() {
        let rule = env.stop_rule(row);
        match out.iter_mut().find(|c| c.rule == rule) {
            Some(c) => c.classes.push((class, *row)),
            None => out.push(Curve {
                rule,
                classes: vec![(class, *row)],
            }),
        }
    }
    Ok(out)
}

const PALETTE: [RGBColor; 7] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(140, 86, 75),
    RGBColor(23, 190, 207),
];

/// The stop-distance diagram: `d_stop(v)` of each class (vehicle-software.md "Speed
/// Envelope"), the scan reach, each class's vehicle speed marked on its curve, and the
/// fastest entry annotated with its distance to spare (the reference's worked example on
/// the shipped table: 7.8 m/s on asphalt, 35.65 m, 4.35 m to spare).
pub fn stop_distance(
    config: &Config,
    opts: StopDistanceOptions,
    format: ImageFormat,
) -> Result<Vec<u8>, PlotError> {
    if !(opts.max_speed_mps.is_finite() && opts.max_speed_mps > 0.0) {
        return Err(PlotError::Input(format!(
            "the largest speed must be positive and finite, not {}",
            opts.max_speed_mps
        )));
    }
    let curves = curves(config, opts.grip)?;
    let reach = config.control.corridor.range_m;
    render(
        format,
        |a| draw_stop_distance(a, config, &curves, reach, opts),
        |a| draw_stop_distance(a, config, &curves, reach, opts),
    )
}

fn draw_stop_distance<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    config: &Config,
    curves: &[Curve],
    reach: f64,
    opts: StopDistanceOptions,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let vmax = opts.max_speed_mps;
    let dmax_curve = curves
        .iter()
        .map(|c| c.rule.stop_distance(vmax))
        .fold(0.0f64, f64::max);
    let ymax = (dmax_curve.max(reach) * 1.08).ceil();
    root.fill(&WHITE).map_err(draw_err)?;
    let t = config.envelope.stop_time_s();
    let title = format!(
        "Stop distance d_stop(v) = d_m + |v|·T + v²/(2a)   (grip {}, T = {t} s)",
        opts.grip
    );
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 26).into_font())
        .margin(18)
        .x_label_area_size(50)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..vmax, 0.0..ymax)
        .map_err(draw_err)?;
    axes(&mut chart, "speed v (m/s)", "stop distance d_stop (m)", 17)?;

    // The scan reach: every entry of the envelope must stop inside it.
    let grey = RGBColor(90, 90, 90);
    chart
        .draw_series(DashedLineSeries::new(
            vec![(0.0, reach), (vmax, reach)],
            10,
            6,
            grey.stroke_width(2),
        ))
        .map_err(draw_err)?
        .label(format!("scan reach {reach} m"))
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], grey.stroke_width(2)));

    let n = 400;
    for (i, curve) in curves.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let pts: Vec<(f64, f64)> = (0..=n)
            .map(|k| {
                let v = vmax * k as f64 / n as f64;
                (v, curve.rule.stop_distance(v))
            })
            .collect();
        let names: Vec<&str> = curve.classes.iter().map(|(c, _)| c.name()).collect();
        let label = format!(
            "{}  (d_m {} m, a {} m/s²)",
            names.join(", "),
            curve.rule.obstacle_margin_m,
            curve.rule.decel_mps2
        );
        chart
            .draw_series(LineSeries::new(pts, color.stroke_width(2)))
            .map_err(draw_err)?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(2))
            });
        for (_, row) in curve.classes.iter().filter(|(_, r)| r.speed_mps <= vmax) {
            let d = curve.rule.stop_distance(row.speed_mps);
            chart
                .draw_series(std::iter::once(Circle::new(
                    (row.speed_mps, d),
                    6,
                    color.filled(),
                )))
                .map_err(draw_err)?;
        }
    }

    // Name the classes at each marked vehicle speed, above and left of the highest marker.
    let mut by_speed: Vec<(f64, f64, Vec<&str>)> = Vec::new();
    for curve in curves {
        for (class, row) in curve.classes.iter().filter(|(_, r)| r.speed_mps <= vmax) {
            let d = curve.rule.stop_distance(row.speed_mps);
            match by_speed.iter_mut().find(|(v, _, _)| *v == row.speed_mps) {
                Some((_, top, names)) => {
                    *top = top.max(d);
                    names.push(class.name());
                }
                None => by_speed.push((row.speed_mps, d, vec![class.name()])),
            }
        }
    }
    let right_bottom = Pos::new(HPos::Right, VPos::Bottom);
    for (v, top, names) in &by_speed {
        let style = ("sans-serif", 16)
            .into_font()
            .color(&BLACK)
            .pos(right_bottom);
        let text = format!("{}: {v} m/s", names.join(", "));
        chart
            .draw_series(std::iter::once(Text::new(
                text,
                (v - vmax * 0.01, top + ymax * 0.015),
                style,
            )))
            .map_err(draw_err)?;
    }

    // The fastest entry (first in table order on a tie), with what it has to spare.
    let fastest = curves
        .iter()
        .flat_map(|c| c.classes.iter().map(move |(cl, row)| (c, *cl, row)))
        .fold(
            None::<(&Curve, GroundClass, &ClassLimits)>,
            |best, x| match best {
                Some(b) if b.2.speed_mps >= x.2.speed_mps => Some(b),
                _ => Some(x),
            },
        );
    if let Some((curve, class, row)) = fastest.filter(|f| f.2.speed_mps <= vmax) {
        // The marker's label sits just below the reach; this one goes above it.
        let v = row.speed_mps;
        let d = curve.rule.stop_distance(v);
        let red = RGBColor(200, 0, 0);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(v, d), (v, reach)],
                red.stroke_width(2),
            )))
            .map_err(draw_err)?;
        let text = format!(
            "{v} m/s on {class}: d_stop = {d:.2} m, {:.2} m to spare",
            reach - d
        );
        let style = ("sans-serif", 19).into_font().color(&red).pos(right_bottom);
        chart
            .draw_series(std::iter::once(Text::new(
                text,
                (v - vmax * 0.01, reach + ymax * 0.012),
                style,
            )))
            .map_err(draw_err)?;
    }

    legend(&mut chart, SeriesLabelPosition::LowerRight, 17)?;
    Ok(())
}

/// The pure-pursuit diagram (the reference's opening figure) from a simulation run: the
/// reference path, the vehicle's trace, at a few instants the look-ahead point and the
/// pure-pursuit arc to it (blue) and the stop distance d_stop(v) ahead of the front of the
/// footprint (orange), the obstacles, and the final stop with its gap annotated.
pub fn pure_pursuit(
    config: &Config,
    scenario: &crate::jobs::sim::Scenario,
    route: &crate::chain::path::Path,
    records: &[crate::jobs::sim::LogRecord],
    summary: &crate::jobs::sim::Summary,
    format: ImageFormat,
) -> Result<Vec<u8>, PlotError> {
    if records.is_empty() {
        return Err(PlotError::Input("the run has no control steps".into()));
    }
    render(
        format,
        |a| draw_pure_pursuit(a, config, scenario, route, records, summary),
        |a| draw_pure_pursuit(a, config, scenario, route, records, summary),
    )
}

fn draw_pure_pursuit<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    config: &Config,
    scenario: &crate::jobs::sim::Scenario,
    route: &crate::chain::path::Path,
    records: &[crate::jobs::sim::LogRecord],
    summary: &crate::jobs::sim::Summary,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    use crate::chain::driver::{Driver, DriverState};
    use crate::plant::world::Obstacle;
    let v = &config.control.vehicle;
    // The view: the trace and the obstacles, with a margin, at one scale on both axes.
    let mut xs: Vec<f64> = records.iter().map(|r| r.state.pose.x_m).collect();
    let mut ys: Vec<f64> = records.iter().map(|r| r.state.pose.y_m).collect();
    for o in &scenario.obstacles {
        if let Obstacle::Circle { x_m, y_m, .. } | Obstacle::Box { x_m, y_m, .. } = o {
            xs.push(*x_m);
            ys.push(*y_m);
        }
    }
    let (x0, x1) = (
        xs.iter().cloned().fold(f64::INFINITY, f64::min) - 3.0,
        xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max) + 5.0,
    );
    let (w, h) = SIZE;
    let yc = 0.5
        * (ys.iter().cloned().fold(f64::INFINITY, f64::min)
            + ys.iter().cloned().fold(f64::NEG_INFINITY, f64::max));
    let half_h = (x1 - x0) * (h as f64 - 120.0) / (w as f64 - 120.0) / 2.0;
    let (y0, y1) = (yc - half_h, yc + half_h);
    root.fill(&WHITE).map_err(draw_err)?;
    let mut chart = ChartBuilder::on(root)
        .caption(
            "Pure pursuit and the stop rule of the shield (from acres sim)",
            ("sans-serif", 24).into_font(),
        )
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(draw_err)?;
    axes(&mut chart, "x east (m)", "y north (m)", 16)?;
    let grey = RGBColor(110, 110, 110);
    let path: Vec<(f64, f64)> = route.line().0.iter().map(|c| (c.x, c.y)).collect();
    chart
        .draw_series(DashedLineSeries::new(path, 8, 6, grey.stroke_width(2)))
        .map_err(draw_err)?
        .label("reference path")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], grey.stroke_width(2)));
    let black = RGBColor(20, 20, 20);
    let trace: Vec<(f64, f64)> = records
        .iter()
        .map(|r| (r.state.pose.x_m, r.state.pose.y_m))
        .collect();
    chart
        .draw_series(LineSeries::new(trace, black.stroke_width(2)))
        .map_err(draw_err)?
        .label("vehicle trace (rear axle)")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], black.stroke_width(2)));
    let red = RGBColor(200, 30, 30);
    for o in &scenario.obstacles {
        let pts: Vec<(f64, f64)> = o
            .outline()
            .exterior()
            .0
            .iter()
            .map(|c| (c.x, c.y))
            .collect();
        chart
            .draw_series(std::iter::once(Polygon::new(pts, red.filled())))
            .map_err(draw_err)?;
    }
    // Instants: every 2 s while moving.
    let driver = Driver::new(
        &config.scouting,
        config.control.shield.curvature_max_per_m,
        &config.envelope.grips.unknown,
    );
    let blue = RGBColor(30, 90, 200);
    let orange = RGBColor(240, 140, 20);
    let shield =
        crate::chain::shield::Shield::new(config, Grip::Unknown).expect("the unknown table");
    let mut first = true;
    for r in records
        .iter()
        .step_by(100)
        .filter(|r| r.state.speed_mps.abs() > 0.2)
    {
        let p = r.state.pose;
        let mut st = DriverState::default();
        let out = driver.step(route, &mut st, p, r.state.speed_mps);
        let la = out.lookahead_point;
        let k = out.command.curvature_per_m;
        // The arc from the rear axle to the look-ahead point.
        let (sy, cy) = p.yaw_rad.sin_cos();
        let len = (la.x - p.x_m).hypot(la.y - p.y_m);
        let arc: Vec<(f64, f64)> = (0..=40)
            .map(|i| {
                let s = len * i as f64 / 40.0;
                let (bx, by) = if k.abs() < 1e-9 {
                    (s, 0.0)
                } else {
                    ((k * s).sin() / k, (1.0 - (k * s).cos()) / k)
                };
                (p.x_m + cy * bx - sy * by, p.y_m + sy * bx + cy * by)
            })
            .collect();
        let arc_series = chart
            .draw_series(LineSeries::new(arc, blue.stroke_width(2)))
            .map_err(draw_err)?;
        if first {
            arc_series
                .label("look-ahead point and pure-pursuit arc")
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], blue.stroke_width(2))
                });
        }
        chart
            .draw_series(std::iter::once(Circle::new((la.x, la.y), 5, blue.filled())))
            .map_err(draw_err)?;
        // The stop distance ahead of the front of the footprint.
        let d = shield
            .stop_rule(r.row.class)
            .stop_distance(r.state.speed_mps);
        let f = v.front_m();
        let seg = vec![
            (p.x_m + cy * f, p.y_m + sy * f),
            (p.x_m + cy * (f + d), p.y_m + sy * (f + d)),
        ];
        let stop_series = chart
            .draw_series(LineSeries::new(seg, orange.stroke_width(4)))
            .map_err(draw_err)?;
        if first {
            stop_series
                .label("stop distance d_stop(v) = d_m + vT + v²/(2a)")
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], orange.stroke_width(4))
                });
            first = false;
        }
    }
    // The final footprint and its gap.
    let last = records.last().expect("records are not empty").state.pose;
    let fp = crate::plant::world::footprint(last.x_m, last.y_m, last.yaw_rad, v);
    let pts: Vec<(f64, f64)> = fp.exterior().0.iter().map(|c| (c.x, c.y)).collect();
    chart
        .draw_series(std::iter::once(PathElement::new(
            pts,
            black.stroke_width(2),
        )))
        .map_err(draw_err)?;
    if let Some(g) = summary.gap_m {
        let (sy, cy) = last.yaw_rad.sin_cos();
        let f = v.front_m();
        let front = (last.x_m + cy * f, last.y_m + sy * f);
        let text = format!("stopped, gap {g:.2} m");
        chart
            .draw_series(std::iter::once(Text::new(
                text,
                (front.0 - 4.0, front.1 + 1.6),
                ("sans-serif", 18).into_font().color(&red),
            )))
            .map_err(draw_err)?;
    }
    legend(&mut chart, SeriesLabelPosition::UpperLeft, 16)?;
    Ok(())
}

/// The colour of a map class in corridor images.
/// One step of a replay for its diagram.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReplayPoint {
    pub t: f64,
    pub requested_mps: f64,
    /// The shield's cap where a rule acted.
    pub cap_mps: Option<f64>,
    pub command_mps: f64,
    pub vehicle_mps: f64,
    pub requested_curvature: f64,
    pub curvature: f64,
}

/// The replay diagram: over time the requested speed, the shield's cap (marked where a
/// rule intervened), the speed command and the vehicle's speed; below, the requested and
/// the commanded curvature.
pub fn replay(points: &[ReplayPoint], format: ImageFormat) -> Result<Vec<u8>, PlotError> {
    if points.is_empty() {
        return Err(PlotError::Input("the replay has no steps".into()));
    }
    render(
        format,
        |a| draw_replay(a, points),
        |a| draw_replay(a, points),
    )
}

fn draw_replay<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    pts: &[ReplayPoint],
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(draw_err)?;
    let (top, bottom) = root.split_vertically(SIZE.1 * 3 / 5);
    let t0 = pts[0].t;
    let t1 = pts[pts.len() - 1].t.max(t0 + 1e-3);
    let vmax = pts
        .iter()
        .map(|p| p.requested_mps.abs().max(p.vehicle_mps.abs()))
        .fold(1.0, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(&top)
        .caption(
            "Replay: speeds and the shield",
            ("sans-serif", 22).into_font(),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(t0..t1, 0.0..vmax)
        .map_err(draw_err)?;
    axes(&mut chart, "time (s)", "speed (m/s)", 14)?;
    let grey = RGBColor(150, 150, 150);
    let blue = RGBColor(31, 119, 180);
    let orange = RGBColor(255, 127, 14);
    let series = |f: &dyn Fn(&ReplayPoint) -> f64| -> Vec<(f64, f64)> {
        pts.iter().map(|p| (p.t, f(p))).collect()
    };
    chart
        .draw_series(LineSeries::new(
            series(&|p| p.requested_mps.abs()),
            grey.stroke_width(2),
        ))
        .map_err(draw_err)?
        .label("requested")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], grey.stroke_width(2)));
    chart
        .draw_series(
            pts.iter()
                .filter_map(|p| p.cap_mps.map(|c| Circle::new((p.t, c), 2, orange.filled()))),
        )
        .map_err(draw_err)?
        .label("shield cap (an intervention)")
        .legend(move |(x, y)| Circle::new((x + 9, y), 3, orange.filled()));
    chart
        .draw_series(LineSeries::new(
            series(&|p| p.command_mps.abs()),
            blue.stroke_width(2),
        ))
        .map_err(draw_err)?
        .label("speed command")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], blue.stroke_width(2)));
    chart
        .draw_series(LineSeries::new(
            series(&|p| p.vehicle_mps.abs()),
            BLACK.stroke_width(1),
        ))
        .map_err(draw_err)?
        .label("vehicle speed")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], BLACK.stroke_width(1)));
    legend(&mut chart, SeriesLabelPosition::UpperRight, 14)?;

    let kmax = pts
        .iter()
        .map(|p| p.requested_curvature.abs().max(p.curvature.abs()))
        .fold(0.01, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(&bottom)
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(t0..t1, -kmax..kmax)
        .map_err(draw_err)?;
    axes(&mut chart, "time (s)", "curvature (1/m)", 14)?;
    chart
        .draw_series(LineSeries::new(
            series(&|p| p.requested_curvature),
            grey.stroke_width(2),
        ))
        .map_err(draw_err)?
        .label("requested")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], grey.stroke_width(2)));
    chart
        .draw_series(LineSeries::new(
            series(&|p| p.curvature),
            blue.stroke_width(2),
        ))
        .map_err(draw_err)?
        .label("command")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], blue.stroke_width(2)));
    legend(&mut chart, SeriesLabelPosition::UpperRight, 14)?;
    Ok(())
}

fn class_colour(c: crate::ground::MapClass) -> RGBColor {
    use crate::ground::MapClass::*;
    match c {
        Asphalt => RGBColor(90, 90, 95),
        Concrete => RGBColor(170, 170, 165),
        Gravel => RGBColor(190, 170, 130),
        GrassLane => RGBColor(140, 190, 90),
        Dirt => RGBColor(150, 110, 70),
        Grass => RGBColor(110, 170, 80),
        Field => RGBColor(215, 200, 110),
        Verge => RGBColor(160, 200, 140),
        Obstacle => RGBColor(40, 40, 40),
        Unknown => RGBColor(255, 255, 255),
    }
}

/// A blue-to-yellow ramp for `t` in [0, 1].
fn ramp(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let stops = [
        (48.0, 18.0, 120.0),
        (33.0, 145.0, 140.0),
        (250.0, 230.0, 30.0),
    ];
    let (i, f) = if t < 0.5 {
        (0, t * 2.0)
    } else {
        (1, (t - 0.5) * 2.0)
    };
    let (a, b) = (stops[i], stops[i + 1]);
    let mix = |x: f64, y: f64| (x + (y - x) * f) as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// The corridor image: the map's classes (dimmed) outside the corridor, `d_c` as a colour
/// ramp inside it, the route, and a legend. One pixel per cell, up to 2400 pixels wide
/// (larger rasters are sampled).
pub fn corridor_image(
    corridor: &crate::ground::corridor::Corridor,
    map: &crate::ground::Map,
    route: Option<&crate::chain::path::Path>,
) -> Result<Vec<u8>, PlotError> {
    register_fonts();
    let g = &corridor.grid;
    let step = g.width.div_ceil(2400).max(g.height.div_ceil(2400)).max(1);
    let (iw, ih) = (g.width.div_ceil(step), g.height.div_ceil(step));
    let legend_w = 300usize;
    let (w, h) = ((iw + legend_w) as u32, ih.max(420) as u32);
    let dmax = g.cells.iter().fold(0.0f32, |a, &b| a.max(b)).max(1e-3) as f64;
    let mut rgb = vec![255u8; (w * h * 3) as usize];
    for j in 0..ih {
        for i in 0..iw {
            let (ci, cj) = (i * step, j * step);
            let d = g.cells[cj * g.width + ci] as f64;
            let (x, y) = g.centre(ci, cj);
            let c = if d > 0.0 {
                ramp(d / dmax)
            } else {
                let k = class_colour(
                    map.classes
                        .at(x, y)
                        .unwrap_or(crate::ground::MapClass::Unknown),
                );
                RGBColor(
                    (k.0 as u16 * 3 / 5 + 60) as u8,
                    (k.1 as u16 * 3 / 5 + 60) as u8,
                    (k.2 as u16 * 3 / 5 + 60) as u8,
                )
            };
            let o = ((j * w as usize) + i) * 3;
            rgb[o..o + 3].copy_from_slice(&[c.0, c.1, c.2]);
        }
    }
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        if let Some(p) = route {
            let to_px = |x: f64, y: f64| -> (i32, i32) {
                let u = (x - g.origin_m[0]) / g.resolution_m / step as f64;
                let v = (g.height as f64 - (y - g.origin_m[1]) / g.resolution_m) / step as f64;
                (u as i32, v as i32)
            };
            let pts: Vec<(i32, i32)> = p.line().0.iter().map(|c| to_px(c.x, c.y)).collect();
            root.draw(&PathElement::new(
                pts,
                RGBColor(220, 30, 30).stroke_width(2),
            ))
            .map_err(draw_err)?;
        }
        let x0 = iw as i32 + 16;
        let text = |s: String, y: i32, size: i32| {
            Text::new(s, (x0, y), ("sans-serif", size).into_font().color(&BLACK))
        };
        root.draw(&text("Corridor d_c (m)".into(), 12, 20))
            .map_err(draw_err)?;
        for k in 0..=150 {
            let t = 1.0 - k as f64 / 150.0;
            root.draw(&Rectangle::new(
                [(x0, 44 + k), (x0 + 28, 45 + k)],
                ramp(t).filled(),
            ))
            .map_err(draw_err)?;
        }
        root.draw(&Text::new(
            format!("{:.2}", dmax),
            (x0 + 36, 40),
            ("sans-serif", 15),
        ))
        .map_err(draw_err)?;
        root.draw(&Text::new(
            "0".to_string(),
            (x0 + 36, 186),
            ("sans-serif", 15),
        ))
        .map_err(draw_err)?;
        let mut y = 214;
        root.draw(&text("Excluded ground".into(), y, 17))
            .map_err(draw_err)?;
        for c in crate::ground::MapClass::ALL {
            y += 20;
            let k = class_colour(c);
            let k = RGBColor(
                (k.0 as u16 * 3 / 5 + 60) as u8,
                (k.1 as u16 * 3 / 5 + 60) as u8,
                (k.2 as u16 * 3 / 5 + 60) as u8,
            );
            root.draw(&Rectangle::new([(x0, y), (x0 + 16, y + 14)], k.filled()))
                .map_err(draw_err)?;
            root.draw(&Text::new(
                c.name().to_string(),
                (x0 + 24, y),
                ("sans-serif", 15),
            ))
            .map_err(draw_err)?;
        }
        root.draw(&text(
            format!("{} × {} cells, {} m", g.width, g.height, g.resolution_m),
            y + 30,
            14,
        ))
        .map_err(draw_err)?;
        root.present().map_err(draw_err)?;
    }
    encode_png(w, h, &rgb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_from_extension() {
        assert_eq!(
            ImageFormat::from_path(Path::new("a.PNG")).unwrap(),
            ImageFormat::Png
        );
        assert_eq!(
            ImageFormat::from_path(Path::new("x/a.svg")).unwrap(),
            ImageFormat::Svg
        );
        let e = ImageFormat::from_path(Path::new("a.jpg")).unwrap_err();
        assert!(e.to_string().contains("a.jpg"));
    }

    #[test]
    fn classes_with_one_stop_rule_share_a_curve() {
        let c = curves(&Config::builtin(), Grip::Unknown).unwrap();
        let groups: Vec<Vec<&str>> = c
            .iter()
            .map(|c| c.classes.iter().map(|(k, _)| k.name()).collect())
            .collect();
        assert_eq!(
            groups,
            vec![
                vec!["asphalt", "concrete"],
                vec!["gravel"],
                vec!["grass_lane", "grass", "field"],
                vec!["dirt"],
            ]
        );
    }

    #[test]
    fn svg_has_the_annotation_and_labels() {
        let opts = StopDistanceOptions {
            grip: Grip::Unknown,
            max_speed_mps: 9.0,
        };
        let svg = stop_distance(&Config::builtin(), opts, ImageFormat::Svg).unwrap();
        let svg = String::from_utf8(svg).unwrap();
        assert!(svg.contains("7.8 m/s on asphalt: d_stop = 35.65 m, 4.35 m to spare"));
        assert!(svg.contains("scan reach 40 m"));
        assert!(svg.contains("speed v (m/s)"));
        assert!(svg.contains("gravel"));
    }

    #[test]
    fn bad_inputs_are_errors() {
        let mut c = Config::builtin();
        c.envelope.grips.dry = None;
        let opts = StopDistanceOptions {
            grip: Grip::Dry,
            max_speed_mps: 9.0,
        };
        assert!(matches!(
            stop_distance(&c, opts, ImageFormat::Svg),
            Err(PlotError::NoGripTable(Grip::Dry))
        ));
        let opts = StopDistanceOptions {
            grip: Grip::Unknown,
            max_speed_mps: f64::NAN,
        };
        assert!(matches!(
            stop_distance(&c, opts, ImageFormat::Png),
            Err(PlotError::Input(_))
        ));
    }
}
