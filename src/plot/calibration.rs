//! The diagram of `acres envelope calibrate --plot`: the measurements against the limits
//! calibrated from them, so that a reader sees how much room each limit leaves.

use super::*;
use crate::formats::stops::{Measurement, TestKind};
use crate::jobs::calibrate::Calibration;

/// The calibration diagram. Above: each stop test's measured stop distance against its
/// speed (a dot per test, the colour of its class) under the calibrated stop distance
/// `d_m + v·T + v²/(2a)` of the class at grip `unknown` (a line), so that the space
/// between them is the room the envelope keeps. Below: each steering step at its speed
/// in the row of its class (a red dot where a wheel lifted, a green ring where none did),
/// with the calibrated class speed as a black bar.
pub fn calibration(
    config: &Config,
    rows: &[Measurement],
    cal: &Calibration,
    spec: impl Into<ImageSpec>,
) -> Result<Vec<u8>, PlotError> {
    if rows.is_empty() {
        return Err(PlotError::Input("no measurements to draw".into()));
    }
    let spec: ImageSpec = spec.into();
    render(
        spec.format,
        spec.size_or_default(),
        |a| draw_calibration(a, config, rows, cal),
        |a| draw_calibration(a, config, rows, cal),
    )
}

/// The colour of a class, the same in both panels.
fn class_colour(c: GroundClass) -> RGBColor {
    const COLOURS: [RGBColor; 7] = [
        RGBColor(31, 119, 180),
        RGBColor(127, 127, 127),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(140, 86, 75),
        RGBColor(148, 103, 189),
        RGBColor(188, 189, 34),
    ];
    let i = GroundClass::ALL.iter().position(|k| *k == c).unwrap_or(0);
    COLOURS[i]
}

fn draw_calibration<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    config: &Config,
    rows: &[Measurement],
    cal: &Calibration,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(draw_err)?;
    let h = root.dim_in_pixel().1;
    let (top, bottom) = root.split_vertically(h * 3 / 5);
    draw_stops(&top, config, rows, cal)?;
    draw_steps(&bottom, rows, cal)
}

/// The upper panel: measured stop distances under the calibrated stop distances.
fn draw_stops<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    config: &Config,
    rows: &[Measurement],
    cal: &Calibration,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let stops: Vec<&Measurement> = rows.iter().filter(|m| m.test == TestKind::Stop).collect();
    let vmax = rows.iter().map(|m| m.speed_mps).fold(1.0f64, f64::max) * 1.05;
    let unknown = cal.derivations.iter().filter(|d| d.grip == "unknown");
    let t = config.envelope.stop_time_s();
    let rule = |l: &ClassLimits| StopRule {
        obstacle_margin_m: l.obstacle_margin_m,
        stop_time_s: t,
        decel_mps2: l.decel_mps2,
    };
    let dmax = unknown
        .clone()
        .map(|d| rule(&d.limits).stop_distance(vmax))
        .fold(1.0f64, f64::max)
        * 1.05;
    let mut chart = ChartBuilder::on(area)
        .caption(
            "Calibration: measured stops (dots) under the calibrated d_stop(v) (lines, grip unknown)",
            ("sans-serif", 19).into_font(),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..vmax, 0.0..dmax)
        .map_err(draw_err)?;
    axes(&mut chart, "speed (m/s)", "stop distance (m)", 14)?;
    for d in unknown {
        let colour = class_colour(d.class);
        let r = rule(&d.limits);
        let curve: Vec<(f64, f64)> = (0..=100)
            .map(|k| vmax * k as f64 / 100.0)
            .map(|v| (v, r.stop_distance(v)))
            .collect();
        chart
            .draw_series(LineSeries::new(curve, colour.stroke_width(2)))
            .map_err(draw_err)?
            .label(format!(
                "{}: d_m {} m, a {} m/s², speed {} m/s",
                d.class, d.limits.obstacle_margin_m, d.limits.decel_mps2, d.limits.speed_mps
            ))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
        let dots = stops
            .iter()
            .filter(|m| m.class == d.class)
            .filter_map(|m| Some((m.speed_mps, m.stop_distance_m?)))
            .map(|p| Circle::new(p, 3, colour.filled()));
        chart.draw_series(dots).map_err(draw_err)?;
    }
    legend(&mut chart, SeriesLabelPosition::UpperLeft, 13)
}

/// The lower panel: steering steps by class and speed, with the calibrated speeds.
fn draw_steps<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[Measurement],
    cal: &Calibration,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let vmax = rows.iter().map(|m| m.speed_mps).fold(1.0f64, f64::max) * 1.05;
    let n = GroundClass::ALL.len() as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(
            "Steering steps: wheel lift (red) or none (green ring); the calibrated speed (bar)",
            ("sans-serif", 17).into_font(),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(90)
        .build_cartesian_2d(0.0..vmax, -0.5..n - 0.5)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_desc("speed (m/s)")
        .y_labels(GroundClass::ALL.len())
        .y_label_formatter(&|y| {
            let i = y.round();
            if (y - i).abs() > 0.01 || i < 0.0 || i >= n {
                return String::new();
            }
            GroundClass::ALL[i as usize].name().to_string()
        })
        .x_label_formatter(&|v| tick(*v))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .light_line_style(RGBColor(238, 238, 238))
        .draw()
        .map_err(draw_err)?;
    let row_of = |c: GroundClass| GroundClass::ALL.iter().position(|k| *k == c).unwrap_or(0) as f64;
    let (red, green) = (RGBColor(200, 30, 30), RGBColor(44, 160, 44));
    for m in rows.iter().filter(|m| m.test == TestKind::Steer) {
        let p = (m.speed_mps, row_of(m.class));
        let dot = match m.wheel_lift {
            Some(true) => Circle::new(p, 5, red.filled()),
            _ => Circle::new(p, 5, green.stroke_width(2)),
        };
        chart.draw_series(std::iter::once(dot)).map_err(draw_err)?;
    }
    for d in cal.derivations.iter().filter(|d| d.grip == "unknown") {
        let (v, y) = (d.limits.speed_mps, row_of(d.class));
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(v, y - 0.35), (v, y + 0.35)],
                BLACK.stroke_width(3),
            )))
            .map_err(draw_err)?;
    }
    Ok(())
}
