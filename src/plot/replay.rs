//! The replay diagram: the logged speed, the replayed speed and the caps of a log
//! replayed through the chain (`acres replay --plot`).

use super::*;

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
    /// The logged command's speed and curvature, where the log has one.
    pub logged_mps: Option<f64>,
    pub logged_curvature: Option<f64>,
    /// Whether the logged command broke a rule at this step.
    pub logged_broke: bool,
    /// The speed and curvature commands of the --compare configuration.
    pub compare_mps: Option<f64>,
    pub compare_curvature: Option<f64>,
}

/// The replay diagram: over time the requested speed, the shield's cap (marked where a
/// rule intervened), the speed command, the logged command (crossed where it broke a
/// rule), the other configuration's command (with --compare) and the vehicle's speed;
/// below, the requested, the commanded, the logged and the other curvature.
pub fn replay(points: &[ReplayPoint], spec: impl Into<ImageSpec>) -> Result<Vec<u8>, PlotError> {
    if points.is_empty() {
        return Err(PlotError::Input("the replay has no steps".into()));
    }
    let spec: ImageSpec = spec.into();
    render(
        spec.format,
        spec.size_or_default(),
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
    let (top, bottom) = root.split_vertically(root.dim_in_pixel().1 * 3 / 5);
    draw_speeds(&top, pts)?;
    draw_curvatures(&bottom, pts)
}

const GREY: RGBColor = RGBColor(150, 150, 150);
const BLUE: RGBColor = RGBColor(31, 119, 180);
const ORANGE: RGBColor = RGBColor(255, 127, 14);
const GREEN: RGBColor = RGBColor(44, 160, 44);
const RED: RGBColor = RGBColor(214, 39, 40);
const PURPLE: RGBColor = RGBColor(148, 103, 189);

/// The time axis of the points.
fn time_range(pts: &[ReplayPoint]) -> (f64, f64) {
    let t0 = pts[0].t;
    (t0, pts[pts.len() - 1].t.max(t0 + 1e-3))
}

/// A chart over time with the shared margins and axes.
fn time_chart<'a, DB: DrawingBackend + 'a>(
    mut builder: ChartBuilder<'a, '_, DB>,
    (t0, t1): (f64, f64),
    (y0, y1): (f64, f64),
    y_label: &str,
) -> Result<Chart<'a, DB>, PlotError>
where
    DB::ErrorType: 'static,
{
    let mut chart = builder
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(t0..t1, y0..y1)
        .map_err(draw_err)?;
    axes(&mut chart, "time (s)", y_label, 14)?;
    Ok(chart)
}

/// A line series of the points, labelled in the legend.
fn line<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    pts: &[ReplayPoint],
    f: impl Fn(&ReplayPoint) -> f64,
    style: ShapeStyle,
    label: &str,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    some_line(chart, pts, |p| Some(f(p)), style, label)
}

/// A line series over the points that have a value; none (and no legend entry) where
/// no point has one.
fn some_line<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    pts: &[ReplayPoint],
    f: impl Fn(&ReplayPoint) -> Option<f64>,
    style: ShapeStyle,
    label: &str,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    if pts.iter().all(|p| f(p).is_none()) {
        return Ok(());
    }
    chart
        .draw_series(LineSeries::new(
            pts.iter().filter_map(|p| f(p).map(|v| (p.t, v))),
            style,
        ))
        .map_err(draw_err)?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
    Ok(())
}

/// The upper chart: requested speed, the shield's caps, the command and the vehicle speed.
fn draw_speeds<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    pts: &[ReplayPoint],
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let (t0, t1) = time_range(pts);
    let vmax = pts
        .iter()
        .map(|p| {
            p.requested_mps
                .abs()
                .max(p.vehicle_mps.abs())
                .max(p.logged_mps.unwrap_or(0.0).abs())
        })
        .fold(1.0, f64::max)
        // Room above the lines for the legend's seven entries.
        * 1.9;
    let mut builder = ChartBuilder::on(area);
    builder.caption(
        "Replay: speeds and the shield",
        ("sans-serif", 22).into_font(),
    );
    let mut chart = time_chart(builder, (t0, t1), (0.0, vmax), "speed (m/s)")?;
    line(
        &mut chart,
        pts,
        |p| p.requested_mps.abs(),
        GREY.stroke_width(2),
        "requested",
    )?;
    chart
        .draw_series(
            pts.iter()
                .filter_map(|p| p.cap_mps.map(|c| Circle::new((p.t, c), 2, ORANGE.filled()))),
        )
        .map_err(draw_err)?
        .label("shield cap (an intervention)")
        .legend(move |(x, y)| Circle::new((x + 9, y), 3, ORANGE.filled()));
    line(
        &mut chart,
        pts,
        |p| p.command_mps.abs(),
        BLUE.stroke_width(2),
        "speed command",
    )?;
    some_line(
        &mut chart,
        pts,
        |p| p.compare_mps.map(f64::abs),
        PURPLE.stroke_width(2),
        "speed command, --compare",
    )?;
    some_line(
        &mut chart,
        pts,
        |p| p.logged_mps.map(f64::abs),
        GREEN.stroke_width(1),
        "logged command",
    )?;
    if pts.iter().any(|p| p.logged_broke) {
        chart
            .draw_series(pts.iter().filter(|p| p.logged_broke).filter_map(|p| {
                p.logged_mps
                    .map(|v| Cross::new((p.t, v.abs()), 3, RED.stroke_width(1)))
            }))
            .map_err(draw_err)?
            .label("logged command broke a rule")
            .legend(move |(x, y)| Cross::new((x + 9, y), 3, RED.stroke_width(1)));
    }
    line(
        &mut chart,
        pts,
        |p| p.vehicle_mps.abs(),
        BLACK.stroke_width(1),
        "vehicle speed",
    )?;
    legend(&mut chart, SeriesLabelPosition::UpperRight, 14)
}

/// The lower chart: the requested and the commanded curvature.
fn draw_curvatures<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    pts: &[ReplayPoint],
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let (t0, t1) = time_range(pts);
    let kmax = pts
        .iter()
        .map(|p| {
            p.requested_curvature
                .abs()
                .max(p.curvature.abs())
                .max(p.logged_curvature.unwrap_or(0.0).abs())
        })
        .fold(0.01, f64::max)
        * 1.3;
    let mut chart = time_chart(
        ChartBuilder::on(area),
        (t0, t1),
        (-kmax, kmax),
        "curvature (1/m)",
    )?;
    line(
        &mut chart,
        pts,
        |p| p.requested_curvature,
        GREY.stroke_width(2),
        "requested",
    )?;
    line(
        &mut chart,
        pts,
        |p| p.curvature,
        BLUE.stroke_width(2),
        "command",
    )?;
    some_line(
        &mut chart,
        pts,
        |p| p.compare_curvature,
        PURPLE.stroke_width(2),
        "command, --compare",
    )?;
    some_line(
        &mut chart,
        pts,
        |p| p.logged_curvature,
        GREEN.stroke_width(1),
        "logged",
    )?;
    legend(&mut chart, SeriesLabelPosition::UpperRight, 14)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(logged: bool, compare: bool) -> Vec<ReplayPoint> {
        (0..200)
            .map(|k| {
                let t = k as f64 * 0.02;
                let cap = (3.0 - 0.5 * (t - 2.0)).clamp(0.0, 3.0);
                ReplayPoint {
                    t,
                    requested_mps: 3.0,
                    cap_mps: (t > 2.0).then_some(cap),
                    command_mps: cap,
                    vehicle_mps: 3.0,
                    requested_curvature: 0.01,
                    curvature: 0.01,
                    logged_mps: logged.then_some(3.0),
                    logged_curvature: logged.then_some(0.012),
                    logged_broke: logged && t > 2.0,
                    compare_mps: compare.then_some(cap * 0.9),
                    compare_curvature: compare.then_some(0.009),
                }
            })
            .collect()
    }

    /// The logged command, its broken rows and the other configuration are drawn: each
    /// changes the picture, and a replay of no steps is an error.
    #[test]
    fn the_logged_and_compared_commands_are_drawn() {
        let svg =
            |p: &[ReplayPoint]| String::from_utf8(replay(p, ImageFormat::Svg).unwrap()).unwrap();
        let bare = svg(&pts(false, false));
        let logged = svg(&pts(true, false));
        let both = svg(&pts(true, true));
        assert!(!bare.contains("logged command") && logged.contains("logged command broke a rule"));
        assert!(both.contains("speed command, --compare") && !logged.contains("--compare"));
        assert!(replay(&[], ImageFormat::Svg).is_err());
    }
}
