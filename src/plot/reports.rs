//! The diagram of `acres bridge client --plot`: what the drive-by-wire reported over a
//! drive, from its DBW reports.

use super::*;

/// One DBW report as the diagram draws it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReportPoint {
    pub t: f64,
    /// The ULC's speed reference and the measured speed, m/s.
    pub vel_ref_mps: f64,
    pub vel_meas_mps: f64,
    /// The road wheel angle, degrees (left positive).
    pub wheel_deg: f64,
    /// The throttle and brake outputs, percent.
    pub throttle_pct: f64,
    pub brake_pct: f64,
}

/// The drive's reports over time in three panels sharing the time axis: the speed
/// reference against the measured speed, the road wheel angle, and the throttle and brake
/// outputs.
pub fn reports(points: &[ReportPoint], spec: impl Into<ImageSpec>) -> Result<Vec<u8>, PlotError> {
    let finite = |p: &&ReportPoint| p.t.is_finite();
    let pts: Vec<ReportPoint> = points.iter().filter(finite).copied().collect();
    if pts.len() < 2 {
        return Err(PlotError::Input("fewer than 2 DBW reports to draw".into()));
    }
    let spec: ImageSpec = spec.into();
    render(
        spec.format,
        spec.size_or_default(),
        |a| draw_reports(a, &pts),
        |a| draw_reports(a, &pts),
    )
}

/// One panel: `series` (label, colour, value of a point) over time in `area`.
type Series<'a> = (&'a str, RGBColor, fn(&ReportPoint) -> f64);

fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    pts: &[ReportPoint],
    caption: Option<&str>,
    y_desc: &str,
    series: &[Series<'_>],
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let (t0, t1) = (pts[0].t, pts[pts.len() - 1].t.max(pts[0].t + 1e-3));
    let values = || {
        pts.iter()
            .flat_map(|p| series.iter().map(move |s| (s.2)(p)))
    };
    let lo = values().filter(|v| v.is_finite()).fold(0.0f64, f64::min);
    let hi = values().filter(|v| v.is_finite()).fold(0.0f64, f64::max);
    let pad = ((hi - lo) * 0.08).max(0.1);
    let mut b = ChartBuilder::on(area);
    if let Some(c) = caption {
        b.caption(c, ("sans-serif", 20).into_font());
    }
    let mut chart = b
        .margin(10)
        .x_label_area_size(34)
        .y_label_area_size(60)
        .build_cartesian_2d(t0..t1, (lo - pad)..(hi + pad))
        .map_err(draw_err)?;
    axes(&mut chart, "time (s)", y_desc, 14)?;
    for &(label, colour, value) in series {
        let line: Vec<(f64, f64)> = pts
            .iter()
            .map(|p| (p.t, value(p)))
            .filter(|q| q.1.is_finite())
            .collect();
        chart
            .draw_series(LineSeries::new(line, colour.stroke_width(2)))
            .map_err(draw_err)?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight, 13)
}

fn draw_reports<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    pts: &[ReportPoint],
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(draw_err)?;
    let h = root.dim_in_pixel().1;
    let (top, rest) = root.split_vertically(h * 2 / 5);
    let (middle, bottom) = rest.split_vertically(h * 3 / 10);
    let blue = RGBColor(31, 119, 180);
    let black = RGBColor(20, 20, 20);
    panel(
        &top,
        pts,
        Some("DBW reports of the drive"),
        "speed (m/s)",
        &[
            ("vel_ref (ULC speed reference)", blue, |p| p.vel_ref_mps),
            ("vel_meas (measured)", black, |p| p.vel_meas_mps),
        ],
    )?;
    panel(
        &middle,
        pts,
        None,
        "wheel angle (°)",
        &[("road wheel angle", RGBColor(148, 103, 189), |p| p.wheel_deg)],
    )?;
    panel(
        &bottom,
        pts,
        None,
        "pedal (%)",
        &[
            ("throttle output", RGBColor(44, 160, 44), |p| p.throttle_pct),
            ("brake output", RGBColor(214, 39, 40), |p| p.brake_pct),
        ],
    )
}
