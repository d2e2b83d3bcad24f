//! The suite plot of `acres sim --suite ... --plot`: per ground, the closest approach of
//! each scenario against its timing or offset, one series per mode of the moving-object
//! rule, contacts marked.

use super::*;
use crate::config::MovingMode;
use crate::jobs::suite::{SuiteKind, SuiteResult, SuiteRun};

/// The colour of a mode's series.
fn colour(m: MovingMode) -> RGBColor {
    match m {
        MovingMode::Off => RGBColor(214, 39, 40),
        MovingMode::Tracker => RGBColor(31, 119, 180),
        MovingMode::Oracle => RGBColor(44, 160, 44),
    }
}

fn label(m: MovingMode) -> &'static str {
    match m {
        MovingMode::Off => "rule off (reference shield)",
        MovingMode::Tracker => "rule with the tracker",
        MovingMode::Oracle => "rule with the oracle",
    }
}

/// The suite plot of one or more runs of the same suite.
pub fn suite(results: &[SuiteResult], spec: impl Into<ImageSpec>) -> Result<Vec<u8>, PlotError> {
    let Some(first) = results.first() else {
        return Err(PlotError::Input("no suite result to draw".into()));
    };
    if results.iter().any(|r| r.suite != first.suite) {
        return Err(PlotError::Input(
            "the results are of different suites".into(),
        ));
    }
    let spec: ImageSpec = spec.into();
    render(
        spec.format,
        spec.size_or_default(),
        |a| draw_suite(a, results),
        |a| draw_suite(a, results),
    )
}

fn draw_suite<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &[SuiteResult],
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(draw_err)?;
    let kind = results[0].suite;
    let counts: Vec<String> = results
        .iter()
        .map(|r| {
            format!(
                "{}: {}/{}",
                label(r.moving),
                r.collisions_by_vehicle,
                r.scenarios
            )
        })
        .collect();
    let reference = kind
        .reference_collisions()
        .map_or(String::new(), |n| format!(" (reference {n}/30)"));
    let title = format!(
        "{}: collisions by the vehicle, {}{reference}",
        kind.name(),
        counts.join(", "),
    );
    let (top, body) = root.split_vertically(60);
    top.draw(&Text::new(
        title,
        (20, 15),
        ("sans-serif", 17).into_font().style(FontStyle::Bold),
    ))
    .map_err(draw_err)?;
    top.draw(&Text::new(
        "each dot one scenario; × a collision by the vehicle, ▲ the actor struck the vehicle at rest",
        (20, 35),
        ("sans-serif", 13),
    ))
    .map_err(draw_err)?;
    let mut classes: Vec<GroundClass> = Vec::new();
    for r in &results[0].runs {
        if !classes.contains(&r.class) {
            classes.push(r.class);
        }
    }
    let panels = body.split_evenly((1, classes.len().max(1)));
    let y_max = results
        .iter()
        .flat_map(|r| &r.runs)
        .map(|r| metric(kind, r))
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max)
        * 1.1;
    let x_desc = kind.parameter_name();
    for (panel, class) in panels.iter().zip(&classes) {
        let (x_desc, y_desc) = (x_desc, metric_name(kind));
        draw_panel(
            panel,
            results,
            *class,
            y_max,
            (x_desc, y_desc),
            *class == classes[0],
        )?;
    }
    Ok(())
}

/// What the plot shows of a run: the time lost in the static-clutter suite (a run that
/// never finished at 60 s), else the closest approach, m.
fn metric(kind: SuiteKind, r: &SuiteRun) -> f64 {
    match kind {
        SuiteKind::StaticClutter => r.time_lost_s.unwrap_or(60.0),
        _ => r.closest_m,
    }
}

/// The y axis of [`metric`].
fn metric_name(kind: SuiteKind) -> &'static str {
    match kind {
        SuiteKind::StaticClutter => "time lost, s",
        _ => "closest approach, m",
    }
}

/// One ground's panel: each mode's closest approaches against the parameter, contacts
/// marked, the legend in the first.
fn draw_panel<DB: DrawingBackend>(
    panel: &DrawingArea<DB, Shift>,
    results: &[SuiteResult],
    class: GroundClass,
    y_max: f64,
    (x_desc, y_desc): (&str, &str),
    with_legend: bool,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let runs = || {
        results
            .iter()
            .flat_map(|r| r.runs.iter().filter(|x| x.class == class))
    };
    let (lo, hi) = runs().fold((f64::MAX, f64::MIN), |a, r| {
        (a.0.min(r.parameter), a.1.max(r.parameter))
    });
    let pad = ((hi - lo) * 0.08).max(0.1);
    let speed = runs().next().map_or(0.0, |r| r.speed_mps);
    let mut chart = ChartBuilder::on(panel)
        .caption(format!("{class:?} at {speed:.1} m/s"), ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(55)
        .build_cartesian_2d(lo - pad..hi + pad, -0.2..y_max)
        .map_err(draw_err)?;
    axes(&mut chart, x_desc, y_desc, 13)?;
    for r in results {
        let c = colour(r.moving);
        let pts: Vec<(f64, f64)> = r
            .runs
            .iter()
            .filter(|x| x.class == class)
            .map(|x| (x.parameter, metric(r.suite, x).min(y_max)))
            .collect();
        // A line joins the cases only where they follow one parameter in order.
        let ordered = pts.windows(2).all(|w| w[0].0 < w[1].0);
        let line = if ordered { pts.clone() } else { Vec::new() };
        chart
            .draw_series(LineSeries::new(line, c.mix(0.4).stroke_width(1)))
            .map_err(draw_err)?
            .label(label(r.moving))
            .legend(move |(x, y)| Circle::new((x + 10, y), 5, c.filled()));
        chart
            .draw_series(pts.iter().map(|p| Circle::new(*p, 5, c.filled())))
            .map_err(draw_err)?;
        let hits = r
            .runs
            .iter()
            .filter(|x| x.class == class && x.collided_by_vehicle);
        chart
            .draw_series(hits.map(|x| Cross::new((x.parameter, 0.0), 9, c.stroke_width(3))))
            .map_err(draw_err)?;
        let struck = r
            .runs
            .iter()
            .filter(|x| x.class == class && x.struck_by_actor);
        chart
            .draw_series(
                struck.map(|x| TriangleMarker::new((x.parameter, 0.0), 8, c.stroke_width(2))),
            )
            .map_err(draw_err)?;
    }
    if with_legend {
        legend(&mut chart, SeriesLabelPosition::UpperLeft, 12)?;
    }
    Ok(())
}
