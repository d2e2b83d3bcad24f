//! The replay diagram: the logged speed, the replayed speed and the caps of a log
//! replayed through the chain (`acres replay --plot`).

use super::*;

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
    draw_speeds(&top, pts)?;
    draw_curvatures(&bottom, pts)
}

const GREY: RGBColor = RGBColor(150, 150, 150);
const BLUE: RGBColor = RGBColor(31, 119, 180);
const ORANGE: RGBColor = RGBColor(255, 127, 14);

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
    chart
        .draw_series(LineSeries::new(pts.iter().map(|p| (p.t, f(p))), style))
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
        .map(|p| p.requested_mps.abs().max(p.vehicle_mps.abs()))
        .fold(1.0, f64::max)
        * 1.1;
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
        .map(|p| p.requested_curvature.abs().max(p.curvature.abs()))
        .fold(0.01, f64::max)
        * 1.1;
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
    legend(&mut chart, SeriesLabelPosition::UpperRight, 14)
}
