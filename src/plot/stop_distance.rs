//! The stop-distance diagram: d_stop(v) of each class of the speed envelope against the
//! scan reach (docs/rules.md "Stop distance and stop cap").

use super::*;

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
    spec: impl Into<ImageSpec>,
) -> Result<Vec<u8>, PlotError> {
    if !(opts.max_speed_mps.is_finite() && opts.max_speed_mps > 0.0) {
        return Err(PlotError::Input(format!(
            "the largest speed must be positive and finite, not {:?}",
            opts.max_speed_mps
        )));
    }
    let curves = curves(config, opts.grip)?;
    let reach = config.control.corridor.range_m;
    let spec: ImageSpec = spec.into();
    render(
        spec.format,
        spec.size_or_default(),
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

    draw_curves(&mut chart, curves, reach, vmax)?;
    label_speeds(&mut chart, curves, vmax, ymax)?;
    annotate_fastest(&mut chart, curves, reach, vmax, ymax)?;
    legend(&mut chart, SeriesLabelPosition::LowerRight, 17)?;
    draw_inset(root, curves, reach, vmax)?;
    Ok(())
}

/// An inset in the empty upper left of the chart: the curves within 0.1 m/s of the
/// fastest class speed, where on the full scale they lie within a line's width of each
/// other, each named by its margin `d_m`.
fn draw_inset<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    curves: &[Curve],
    reach: f64,
    vmax: f64,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let fastest = curves
        .iter()
        .flat_map(|c| c.classes.iter().map(|(_, r)| r.speed_mps))
        .fold(0.0f64, f64::max);
    if fastest <= 0.0 || fastest > vmax || curves.len() < 2 {
        return Ok(());
    }
    let (v0, v1) = ((fastest - 0.1).max(0.0), (fastest + 0.1).min(vmax));
    let ds: Vec<f64> = curves
        .iter()
        .flat_map(|c| [c.rule.stop_distance(v0), c.rule.stop_distance(v1)])
        .collect();
    let lo = ds.iter().cloned().fold(f64::INFINITY, f64::min) - 0.3;
    let hi = ds.iter().cloned().fold(f64::NEG_INFINITY, f64::max) + 0.3;
    let (w, h) = root.dim_in_pixel();
    let (iw, ih) = (w / 3, h * 3 / 10);
    let area = root.clone().shrink((150, h * 27 / 100), (iw, ih));
    area.fill(&WHITE).map_err(draw_err)?;
    let mut inset = ChartBuilder::on(&area)
        .caption(
            format!("near {fastest} m/s"),
            ("sans-serif", 16).into_font(),
        )
        .margin(8)
        .x_label_area_size(28)
        .y_label_area_size(44)
        .build_cartesian_2d(v0..v1, lo..hi)
        .map_err(draw_err)?;
    inset
        .configure_mesh()
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .label_style(("sans-serif", 13))
        .light_line_style(RGBColor(238, 238, 238))
        .x_labels(6)
        .y_labels(6)
        .draw()
        .map_err(draw_err)?;
    inset_curves(&mut inset, curves, (v0, v1))?;
    if (lo..=hi).contains(&reach) {
        inset
            .draw_series(DashedLineSeries::new(
                vec![(v0, reach), (v1, reach)],
                8,
                5,
                RGBColor(90, 90, 90).stroke_width(2),
            ))
            .map_err(draw_err)?;
    }
    area.draw(&Rectangle::new(
        [(0, 0), (iw as i32 - 1, ih as i32 - 1)],
        BLACK.stroke_width(1),
    ))
    .map_err(draw_err)?;
    Ok(())
}

/// The inset's curves between the speeds `v0` and `v1`, a marker at each class speed in
/// it, and a legend naming each curve by its margin.
fn inset_curves<'a, DB: DrawingBackend + 'a>(
    inset: &mut Chart<'a, DB>,
    curves: &[Curve],
    (v0, v1): (f64, f64),
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    for (i, curve) in curves.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let pts: Vec<(f64, f64)> = (0..=60)
            .map(|k| v0 + (v1 - v0) * k as f64 / 60.0)
            .map(|v| (v, curve.rule.stop_distance(v)))
            .collect();
        inset
            .draw_series(LineSeries::new(pts, color.stroke_width(2)))
            .map_err(draw_err)?
            .label(format!("d_m {} m", curve.rule.obstacle_margin_m))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        class_markers(inset, curve, color, (v0, v1), 5)?;
    }
    inset
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(("sans-serif", 13))
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(160, 160, 160))
        .draw()
        .map_err(draw_err)?;
    Ok(())
}

/// The scan reach (every entry of the envelope must stop inside it), one curve per stop
/// rule, and a marker at each class's vehicle speed.
fn draw_curves<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    curves: &[Curve],
    reach: f64,
    vmax: f64,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
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
        class_markers(chart, curve, color, (0.0, vmax), 6)?;
    }

    Ok(())
}

/// A marker of `radius` px on a curve at each of its classes' vehicle speeds within
/// `speeds`.
fn class_markers<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    curve: &Curve,
    color: RGBColor,
    (v0, v1): (f64, f64),
    radius: u32,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let markers = curve
        .classes
        .iter()
        .filter(|(_, r)| (v0..=v1).contains(&r.speed_mps))
        .map(|(_, r)| {
            Circle::new(
                (r.speed_mps, curve.rule.stop_distance(r.speed_mps)),
                radius,
                color.filled(),
            )
        });
    chart.draw_series(markers).map_err(draw_err)?;
    Ok(())
}

/// The names of the classes at each marked vehicle speed, above and left of the highest
/// marker.
fn label_speeds<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    curves: &[Curve],
    vmax: f64,
    ymax: f64,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
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

    Ok(())
}

/// The fastest entry (first in table order on a tie), with its distance to spare.
fn annotate_fastest<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    curves: &[Curve],
    reach: f64,
    vmax: f64,
    ymax: f64,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let right_bottom = Pos::new(HPos::Right, VPos::Bottom);
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

    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
