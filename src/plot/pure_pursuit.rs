//! The pure-pursuit diagram (the opening figure of docs/rules.md): a simulation run with
//! its look-ahead points and arcs, the stop distances and the final gap.

use super::*;
use crate::chain::driver::{Driver, DriverState};
use crate::chain::path::Path;
use crate::formats::scenario::Scenario;
use crate::jobs::sim::{LogRecord, Summary};
use crate::plant::world::Obstacle;

/// The pure-pursuit diagram (the reference's opening figure) from a simulation run: the
/// reference path, the vehicle's trace, at a few instants the look-ahead point and the
/// pure-pursuit arc to it (blue) and the stop distance d_stop(v) ahead of the front of the
/// footprint (orange), the obstacles, and the final stop with its gap annotated.
pub fn pure_pursuit(
    config: &Config,
    scenario: &Scenario,
    route: &Path,
    records: &[LogRecord],
    summary: &Summary,
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

/// The pure-pursuit diagram of a run from its log bytes (JSON Lines of `acres sim --log`).
pub fn pure_pursuit_of_log(
    config: &Config,
    scenario: &Scenario,
    route: &Path,
    log: &[u8],
    summary: &Summary,
    format: ImageFormat,
) -> Result<Vec<u8>, PlotError> {
    let records: Vec<LogRecord> = log
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(serde_json::from_slice)
        .collect::<Result<_, _>>()
        .map_err(|e| PlotError::Input(format!("the run's log: {e}")))?;
    pure_pursuit(config, scenario, route, &records, summary, format)
}

fn draw_pure_pursuit<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    config: &Config,
    scenario: &Scenario,
    route: &Path,
    records: &[LogRecord],
    summary: &Summary,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let ((x0, x1), (y0, y1)) = view(scenario, records);
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
    draw_scene(&mut chart, scenario, route, records)?;
    draw_instants(&mut chart, config, route, records)?;
    draw_final(&mut chart, config, records, summary)?;
    draw_actors(&mut chart, scenario, records, summary)?;
    legend(&mut chart, SeriesLabelPosition::UpperLeft, 16)?;
    Ok(())
}

/// The view: the trace, the obstacles and the actors' tracks with a margin, at one scale
/// on both axes.
fn view(scenario: &Scenario, records: &[LogRecord]) -> ((f64, f64), (f64, f64)) {
    let mut xs: Vec<f64> = records.iter().map(|r| r.state.pose.x_m).collect();
    let mut ys: Vec<f64> = records.iter().map(|r| r.state.pose.y_m).collect();
    for p in records.iter().flat_map(|r| r.actors.iter().flatten()) {
        xs.push(p[0]);
        ys.push(p[1]);
    }
    for o in &scenario.obstacles {
        if let Obstacle::Circle { x_m, y_m, .. } | Obstacle::Box { x_m, y_m, .. } = o {
            xs.push(*x_m);
            ys.push(*y_m);
        }
    }
    let lo = |v: &[f64]| v.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = |v: &[f64]| v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let (mut x0, mut x1) = (lo(&xs) - 3.0, hi(&xs) + 5.0);
    let (w, h) = SIZE;
    // Metres per pixel alike on both axes; the window widens where the trace runs
    // further north or south than east or west, so that nothing is cut off.
    let aspect = (h as f64 - 120.0) / (w as f64 - 120.0);
    let (y_lo, y_hi) = (lo(&ys) - 4.0, hi(&ys) + 4.0);
    let wide = (y_hi - y_lo) / aspect;
    if wide > x1 - x0 {
        let xc = 0.5 * (x0 + x1);
        (x0, x1) = (xc - wide / 2.0, xc + wide / 2.0);
    }
    let yc = 0.5 * (y_lo + y_hi);
    let half_h = (x1 - x0) * aspect / 2.0;
    ((x0, x1), (yc - half_h, yc + half_h))
}

/// The reference path (dashed), the vehicle's trace and the obstacles.
fn draw_scene<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    scenario: &Scenario,
    route: &Path,
    records: &[LogRecord],
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
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
    Ok(())
}

/// Every 2 s while moving: the look-ahead point and the pure-pursuit arc to it (blue), and
/// the stop distance ahead of the front of the footprint (orange).
fn draw_instants<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    config: &Config,
    route: &Path,
    records: &[LogRecord],
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let v = &config.control.vehicle;
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
    Ok(())
}

/// The final footprint, and its gap to the nearest obstacle.
fn draw_final<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    config: &Config,
    records: &[LogRecord],
    summary: &Summary,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let v = &config.control.vehicle;
    let (black, red) = (RGBColor(20, 20, 20), RGBColor(200, 30, 30));
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
        let text = if summary.collided {
            "collided".to_string()
        } else {
            format!("stopped, gap {g:.2} m")
        };
        chart
            .draw_series(std::iter::once(Text::new(
                text,
                (front.0 - 4.0, front.1 + 1.6),
                ("sans-serif", 18).into_font().color(&red),
            )))
            .map_err(draw_err)?;
    }
    Ok(())
}

/// Each actor's track (purple, a dot where it is at the end), and each contact of the
/// run (a cross at the actor's place or the vehicle's front, with who made it).
fn draw_actors<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    scenario: &Scenario,
    records: &[LogRecord],
    summary: &Summary,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let purple = RGBColor(130, 50, 170);
    for (k, a) in scenario.actors.iter().enumerate() {
        let track: Vec<(f64, f64)> = records
            .iter()
            .filter_map(|r| r.actors.get(k).copied().flatten())
            .map(|p| (p[0], p[1]))
            .collect();
        let Some(end) = track.last().copied() else {
            continue;
        };
        let series = chart
            .draw_series(LineSeries::new(track, purple.stroke_width(2)))
            .map_err(draw_err)?;
        if k == 0 {
            series
                .label("actor tracks (dot: at the end)")
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], purple.stroke_width(2))
                });
        }
        chart
            .draw_series([
                Circle::new(end, 6, purple.filled()).into_dyn(),
                Text::new(
                    a.name.clone(),
                    (end.0 + 0.6, end.1 + 0.6),
                    ("sans-serif", 14),
                )
                .into_dyn(),
            ])
            .map_err(draw_err)?;
    }
    let black = RGBColor(20, 20, 20);
    for c in &summary.contacts {
        let at = records
            .iter()
            .min_by(|a, b| (a.t - c.t_s).abs().total_cmp(&(b.t - c.t_s).abs()))
            .map(|r| {
                r.actors
                    .get(c.index)
                    .copied()
                    .flatten()
                    .filter(|_| c.kind != "obstacle")
                    .map_or((r.state.pose.x_m, r.state.pose.y_m), |p| (p[0], p[1]))
            });
        let Some(at) = at else { continue };
        // The label to the left of a contact in the right third of the view.
        let x = chart.x_range();
        let shift = if at.0 > x.start + 0.66 * (x.end - x.start) {
            -0.3 * (x.end - x.start)
        } else {
            0.8
        };
        let who = match c.by {
            crate::jobs::sim::ContactBy::Vehicle => "by the vehicle",
            crate::jobs::sim::ContactBy::Actor => "by the actor",
        };
        chart
            .draw_series([
                Cross::new(at, 10, black.stroke_width(3)).into_dyn(),
                Text::new(
                    format!("contact {who}, {:.1} s", c.t_s),
                    (at.0 + shift, at.1 - 1.2),
                    ("sans-serif", 15),
                )
                .into_dyn(),
            ])
            .map_err(draw_err)?;
    }
    Ok(())
}
