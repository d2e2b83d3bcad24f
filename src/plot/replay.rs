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
