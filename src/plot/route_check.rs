//! The plan check's plot (`acres route check --plot`): curvature, clearance and speed
//! along the route's stations, with their limits, failing points in red.

use super::*;
use crate::jobs::route_check::{PointCheck, RouteReport};

/// The plot of a route's check: three panels over the station.
pub fn route_check(
    config: &Config,
    report: &RouteReport,
    spec: impl Into<ImageSpec>,
) -> Result<Vec<u8>, PlotError> {
    if report.all.len() < 2 {
        return Err(PlotError::Input("the route has fewer than 2 points".into()));
    }
    let spec: ImageSpec = spec.into();
    render(
        spec.format,
        spec.size_or_default(),
        |a| draw(a, config, report),
        |a| draw(a, config, report),
    )
}

/// A value of a point, where it has one.
type Value = fn(&PointCheck) -> Option<f64>;

/// One panel's series: a value per point, its limits (a constant line each), the y label.
struct Panel<'a> {
    title: String,
    y: &'a str,
    value: Value,
    limits: Vec<(f64, String)>,
    /// Other per-point series (label, value).
    extra: Vec<(&'a str, Value)>,
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    config: &Config,
    report: &RouteReport,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(draw_err)?;
    let (top, body) = root.split_vertically(40);
    let title = format!(
        "Plan check of {}: {} of {} points fail, {} noted ({:.0} m)",
        report.route, report.failing_points, report.points, report.noted_points, report.length_m
    );
    top.draw(&Text::new(
        title,
        (20, 12),
        ("sans-serif", 18).into_font().style(FontStyle::Bold),
    ))
    .map_err(draw_err)?;
    let kmax = config.control.shield.curvature_max_per_m;
    let s = &config.control.shield;
    let stand = s.vehicle_margin_m + s.geofence_margin_m;
    let mut panels = vec![Panel {
        title: "curvature".into(),
        y: "curvature, 1/m",
        value: |c| Some(c.curvature_per_m),
        limits: vec![
            (kmax, format!("shield limit ±{kmax}")),
            (-kmax, String::new()),
        ],
        extra: vec![],
    }];
    if report.all.iter().any(|c| c.clearance_m.is_some()) {
        panels.push(Panel {
            title: "clearance in the corridor".into(),
            y: "clearance d(p), m",
            value: |c| c.clearance_m,
            limits: vec![(stand, format!("m_v + G = {stand:.2} m"))],
            extra: vec![],
        });
    }
    panels.push(Panel {
        title: "speed".into(),
        y: "speed, m/s",
        value: |c| Some(c.speed_mps),
        limits: vec![],
        extra: vec![
            ("class speed command", |c| Some(c.speed_command_mps)),
            ("swept corridor allows", |c| c.corridor_speed_mps),
        ],
    });
    let areas = body.split_evenly((panels.len(), 1));
    for (area, p) in areas.iter().zip(&panels) {
        draw_panel(area, report, p)?;
    }
    Ok(())
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    report: &RouteReport,
    p: &Panel,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let pts: Vec<(f64, f64)> = report
        .all
        .iter()
        .filter_map(|c| (p.value)(c).map(|v| (c.station_m, v)))
        .collect();
    let x1 = report.length_m.max(1.0);
    let values = pts
        .iter()
        .map(|q| q.1)
        .chain(p.limits.iter().map(|l| l.0))
        .chain(
            report
                .all
                .iter()
                .flat_map(|c| p.extra.iter().filter_map(|e| (e.1)(c))),
        );
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| {
        (a.0.min(v), a.1.max(v))
    });
    let pad = ((hi - lo) * 0.08).max(0.05);
    // Room above the data for the legend: its lines (the route, the limits, the extras
    // and the failing points) in a panel whose plotting area is about h − 80 px high.
    let entries = 2 + p.limits.iter().filter(|l| !l.1.is_empty()).count() + p.extra.len();
    let (_, legend_h) = legend_size(entries, 0, 11);
    let plot_h = (area.dim_in_pixel().1 as f64 - 80.0).max(60.0);
    let share = ((legend_h as f64 + 12.0) / plot_h).min(0.6);
    let (y0, data_top) = (lo - pad, hi + pad);
    let y1 = y0 + (data_top - y0) / (1.0 - share);
    let mut chart = ChartBuilder::on(area)
        .caption(&p.title, ("sans-serif", 15))
        .margin(8)
        .x_label_area_size(32)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..x1, y0..y1)
        .map_err(draw_err)?;
    axes(&mut chart, "station along the route, m", p.y, 12)?;
    let blue = RGBColor(31, 119, 180);
    chart
        .draw_series(LineSeries::new(pts, blue.stroke_width(2)))
        .map_err(draw_err)?
        .label("route")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], blue.stroke_width(2)));
    let extras = [RGBColor(44, 160, 44), RGBColor(255, 127, 14)];
    for ((label, f), colour) in p.extra.iter().zip(extras) {
        let series: Vec<(f64, f64)> = report
            .all
            .iter()
            .filter_map(|c| f(c).map(|v| (c.station_m, v)))
            .collect();
        if series.is_empty() {
            continue;
        }
        chart
            .draw_series(LineSeries::new(series, colour.stroke_width(1)))
            .map_err(draw_err)?
            .label(*label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
    }
    draw_limits_and_fails(&mut chart, report, p, x1)?;
    legend(&mut chart, SeriesLabelPosition::UpperRight, 11)
}

/// A panel's limits (dashed, grey) and its failing points (red).
fn draw_limits_and_fails<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    report: &RouteReport,
    p: &Panel,
    x1: f64,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let grey = RGBColor(120, 120, 120);
    for (v, label) in &p.limits {
        let s = chart
            .draw_series(DashedLineSeries::new(
                vec![(0.0, *v), (x1, *v)],
                6,
                4,
                grey.into(),
            ))
            .map_err(draw_err)?;
        if !label.is_empty() {
            s.label(label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], grey));
        }
    }
    let red = RGBColor(214, 39, 40);
    let fails: Vec<_> = report
        .all
        .iter()
        .filter(|c| !c.fails.is_empty())
        .filter_map(|c| (p.value)(c).map(|v| Circle::new((c.station_m, v), 4, red.filled())))
        .collect();
    if !fails.is_empty() {
        chart
            .draw_series(fails)
            .map_err(draw_err)?
            .label("failing point")
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, red.filled()));
    }
    Ok(())
}
