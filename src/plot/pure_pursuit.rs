//! The pure-pursuit diagram (the opening figure of docs/rules.md): a simulation run with
//! its look-ahead points and arcs, the stop distances and the final gap.

use super::*;
use crate::chain::driver::{Driver, DriverState};
use crate::chain::path::Path;
use crate::formats::scenario::Scenario;
use crate::jobs::sim::{LogRecord, Summary};

/// The pure-pursuit diagram (the reference's opening figure) from a simulation run: the
/// reference path, the vehicle's trace, at a few instants the look-ahead point and the
/// pure-pursuit arc to it (blue) and the stop distance d_stop(v) along the arc the shield
/// measures (orange), the obstacles, the final footprint with the gap and the margin `d_m`
/// as dimension lines, and the formulas with the class limits (vehicle-software.md "Pure
/// pursuit", "Speed Envelope"). Without a size the image follows the aspect of the run,
/// at one scale on both axes.
pub fn pure_pursuit(
    config: &Config,
    scenario: &Scenario,
    route: &Path,
    records: &[LogRecord],
    summary: &Summary,
    spec: impl Into<ImageSpec>,
) -> Result<Vec<u8>, PlotError> {
    if records.is_empty() {
        return Err(PlotError::Input("the run has no control steps".into()));
    }
    let spec: ImageSpec = spec.into();
    // The map's classes are the background where the scenario names a map.
    let map = match &scenario.map {
        Some(name) => Some(
            scenario
                .load_map(name)
                .map_err(|e| PlotError::Input(e.to_string()))?,
        ),
        None => None,
    };
    let legend_px = LEGEND_PX + if map.is_some() { 24 } else { 0 };
    let width = spec.size.map_or(SIZE.0, |s| s.0);
    let title = title_lines(
        &format!(
            "Pure pursuit and the shield's stop rule: {}",
            summary.scenario
        ),
        width,
    );
    let caption_px = CAPTION_PX + TITLE_LINE_PX * (title.len() as u32 - 1);
    let view = View::of(
        config,
        scenario,
        records,
        spec.size,
        (caption_px, legend_px),
    );
    let fig = Figure {
        title,
        config,
        scenario,
        route,
        records,
        summary,
        view,
        map,
        legend_px,
    };
    render(spec.format, view.size, |a| fig.draw(a), |a| fig.draw(a))
}

/// The pure-pursuit diagram of a run from its log bytes (JSON Lines of `acres sim --log`).
pub fn pure_pursuit_of_log(
    config: &Config,
    scenario: &Scenario,
    route: &Path,
    log: &[u8],
    summary: &Summary,
    spec: impl Into<ImageSpec>,
) -> Result<Vec<u8>, PlotError> {
    let records: Vec<LogRecord> = log
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(serde_json::from_slice)
        .collect::<Result<_, _>>()
        .map_err(|e| PlotError::Input(format!("the run's log: {e}")))?;
    pure_pursuit(config, scenario, route, &records, summary, spec)
}

/// Pixels around the plotting area: the caption (one line; each more line of a long title
/// adds a line's height) and margins above, the tick labels and axis titles, and the
/// legend panel below the chart.
const CAPTION_PX: u32 = 44;
const TITLE_LINE_PX: u32 = 26;
/// The title's font, px, and the width of one of its characters (an estimate on the
/// safe side for the embedded sans-serif).
const TITLE_FONT: u32 = 20;
const TITLE_CHAR_PX: u32 = 11;

/// The title broken at spaces into lines that fit the image's width (a word longer than
/// a line stands alone).
fn title_lines(title: &str, width: u32) -> Vec<String> {
    let fits = (width.saturating_sub(2 * MARGIN_PX) / TITLE_CHAR_PX).max(10) as usize;
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in title.split(' ') {
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > fits {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}
const MARGIN_PX: u32 = 14;
const X_AXIS_PX: u32 = 44;
const Y_AXIS_PX: u32 = 56;
const LEGEND_PX: u32 = 112;

/// The window of the figure: the image size and the world box, at one scale.
#[derive(Debug, Clone, Copy)]
struct View {
    size: (u32, u32),
    x: (f64, f64),
    y: (f64, f64),
}

impl View {
    /// The box around the trace, the obstacles, the actors' tracks and the final
    /// footprint with a margin; the image size given, or one that follows the box.
    fn of(
        config: &Config,
        scenario: &Scenario,
        records: &[LogRecord],
        size: Option<(u32, u32)>,
        (caption_px, legend_px): (u32, u32),
    ) -> View {
        let mut xs: Vec<f64> = records.iter().map(|r| r.state.pose.x_m).collect();
        let mut ys: Vec<f64> = records.iter().map(|r| r.state.pose.y_m).collect();
        for p in records.iter().flat_map(|r| r.actors.iter().flatten()) {
            xs.push(p[0]);
            ys.push(p[1]);
        }
        let last = records.last().expect("records are not empty").state.pose;
        let fp = crate::plant::world::footprint(
            last.x_m,
            last.y_m,
            last.yaw_rad,
            &config.control.vehicle,
        );
        let outlines = scenario
            .obstacles
            .iter()
            .map(|o| o.outline())
            .chain(std::iter::once(fp));
        for c in outlines.flat_map(|o| o.exterior().0.clone()) {
            xs.push(c.x);
            ys.push(c.y);
        }
        let lo = |v: &[f64]| v.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = |v: &[f64]| v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let pad = |a: f64, b: f64| {
            let m = 2.0 + 0.06 * (b - a);
            (a - m, b + m)
        };
        let (mut x, mut y) = (pad(lo(&xs), hi(&xs)), pad(lo(&ys), hi(&ys)));
        let chrome = (
            Y_AXIS_PX + 2 * MARGIN_PX,
            caption_px + X_AXIS_PX + 2 * MARGIN_PX + legend_px,
        );
        let (w, h) = match size {
            Some(s) => s,
            None => {
                // The width of the default, the height that shows the box at one scale,
                // within bounds (the box then grows to keep the scale).
                let w = SIZE.0;
                let ppm = (w - chrome.0) as f64 / (x.1 - x.0);
                let plot_h = ((y.1 - y.0) * ppm).clamp(300.0, 900.0);
                (w, plot_h.round() as u32 + chrome.1)
            }
        };
        let (pw, ph) = (
            (w.saturating_sub(chrome.0)).max(1) as f64,
            (h.saturating_sub(chrome.1)).max(1) as f64,
        );
        // One scale: the box grows along the axis with room to spare.
        let ppm = (pw / (x.1 - x.0)).min(ph / (y.1 - y.0));
        let grow = |r: (f64, f64), span: f64| {
            let c = 0.5 * (r.0 + r.1);
            (c - span / 2.0, c + span / 2.0)
        };
        x = grow(x, pw / ppm);
        y = grow(y, ph / ppm);
        View { size: (w, h), x, y }
    }
}

/// Everything the figure draws from.
struct Figure<'a> {
    /// The title's lines.
    title: Vec<String>,
    config: &'a Config,
    scenario: &'a Scenario,
    route: &'a Path,
    records: &'a [LogRecord],
    summary: &'a Summary,
    view: View,
    map: Option<std::sync::Arc<crate::ground::Map>>,
    legend_px: u32,
}

/// A run of one map class along a row of cells: the class and the run's corners.
type MapRun = (crate::ground::MapClass, (f64, f64), (f64, f64));

/// Colours of the figure.
const BLUE: RGBColor = RGBColor(30, 90, 200);
const ORANGE: RGBColor = RGBColor(240, 140, 20);
const RED: RGBColor = RGBColor(200, 30, 30);
const GREY: RGBColor = RGBColor(110, 110, 110);
const DIM: RGBColor = RGBColor(60, 60, 140);

impl Figure<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE).map_err(draw_err)?;
        let (w, h) = root.dim_in_pixel();
        let (top, bottom) = root.split_vertically(h.saturating_sub(self.legend_px));
        let View { x, y, .. } = self.view;
        // The title, centred, a line each, above the chart.
        let title_px = CAPTION_PX - MARGIN_PX + TITLE_LINE_PX * (self.title.len() as u32 - 1);
        let (head, top) = top.split_vertically(title_px);
        let font = ("sans-serif", TITLE_FONT).into_font();
        for (i, line) in self.title.iter().enumerate() {
            let style: TextStyle = font.clone().into();
            let (tw, _) = head.estimate_text_size(line, &style).map_err(draw_err)?;
            let x0 = (w as i32 - tw as i32).max(0) / 2;
            head.draw(&Text::new(
                line.clone(),
                (x0, MARGIN_PX as i32 + (TITLE_LINE_PX * i as u32) as i32),
                font.clone(),
            ))
            .map_err(draw_err)?;
        }
        let mut chart = ChartBuilder::on(&top)
            .margin(MARGIN_PX)
            .x_label_area_size(X_AXIS_PX)
            .y_label_area_size(Y_AXIS_PX)
            .build_cartesian_2d(x.0..x.1, y.0..y.1)
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .x_desc("x east (m)")
            .y_desc("y north (m)")
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 16))
            .light_line_style(RGBColor(238, 238, 238))
            .draw()
            .map_err(draw_err)?;
        self.draw_map(&mut chart)?;
        self.draw_scene(&mut chart)?;
        self.draw_instants(&mut chart)?;
        // The trace over the arcs, so that the arcs never hide it.
        let trace: Vec<(f64, f64)> = self
            .records
            .iter()
            .map(|r| (r.state.pose.x_m, r.state.pose.y_m))
            .collect();
        chart
            .draw_series(LineSeries::new(trace, INK.stroke_width(2)))
            .map_err(draw_err)?;
        self.draw_final(&mut chart)?;
        draw_actors(&mut chart, self.scenario, self.records, self.summary)?;
        draw_tracks(&mut chart, self.records)?;
        scale_bar(&mut chart)?;
        self.draw_legend(&bottom, w)
    }

    /// The map's classes under the view, in the corridor image's colours, in runs of cells
    /// of one class (about 200 columns across the view).
    fn draw_map<DB: DrawingBackend>(&self, chart: &mut Chart<'_, DB>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let runs = self
            .map_runs()
            .into_iter()
            .map(|(c, a, b)| Rectangle::new([a, b], super::corridor::class_colour(c).filled()));
        chart.draw_series(runs).map_err(draw_err)?;
        Ok(())
    }

    /// The map's classes under the view as runs of one class along rows of cells (about
    /// 200 columns across the view): the class and the run's corners.
    fn map_runs(&self) -> Vec<MapRun> {
        let Some(map) = &self.map else {
            return Vec::new();
        };
        let View { x, y, .. } = self.view;
        let cell = ((x.1 - x.0) / 200.0).max(map.classes.resolution_m);
        let (nx, ny) = (
            ((x.1 - x.0) / cell).ceil() as usize,
            ((y.1 - y.0) / cell).ceil() as usize,
        );
        let class_at = |i: usize, j: usize| {
            let (cx, cy) = (x.0 + (i as f64 + 0.5) * cell, y.0 + (j as f64 + 0.5) * cell);
            map.classes.at(cx, cy)
        };
        let mut runs = Vec::new();
        for j in 0..ny {
            let mut i = 0;
            while i < nx {
                let c = class_at(i, j);
                let start = i;
                while i < nx && class_at(i, j) == c {
                    i += 1;
                }
                if let Some(c) = c {
                    let (x0, y0) = (x.0 + start as f64 * cell, y.0 + j as f64 * cell);
                    runs.push((c, (x0, y0), (x.0 + i as f64 * cell, y0 + cell)));
                }
            }
        }
        runs
    }

    /// The reference path (dashed) and the obstacles.
    fn draw_scene<DB: DrawingBackend>(&self, chart: &mut Chart<'_, DB>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let path: Vec<(f64, f64)> = self.route.line().0.iter().map(|c| (c.x, c.y)).collect();
        for run in clip_runs(&path, self.view.x, self.view.y) {
            chart
                .draw_series(DashedLineSeries::new(run, 8, 6, GREY.stroke_width(2)))
                .map_err(draw_err)?;
        }
        for o in &self.scenario.obstacles {
            let pts: Vec<(f64, f64)> = o
                .outline()
                .exterior()
                .0
                .iter()
                .map(|c| (c.x, c.y))
                .collect();
            chart
                .draw_series(std::iter::once(Polygon::new(pts, RED.filled())))
                .map_err(draw_err)?;
        }
        Ok(())
    }

    /// Every 2 s while moving: the look-ahead point and the pure-pursuit arc to it (blue,
    /// light), and the stop distance from the front of the footprint along the arc of the
    /// command the shield judged (orange).
    fn draw_instants<DB: DrawingBackend>(&self, chart: &mut Chart<'_, DB>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let config = self.config;
        let driver = Driver::new(
            &config.scouting,
            config.control.shield.curvature_max_per_m,
            &config.envelope.grips.unknown,
        );
        let shield =
            crate::chain::shield::Shield::new(config, Grip::Unknown).expect("the unknown table");
        let front = config.control.vehicle.front_m();
        for r in self.instants() {
            let p = r.state.pose;
            let mut st = DriverState::default();
            let out = driver.step(self.route, &mut st, p, r.state.speed_mps);
            let la = out.lookahead_point;
            let len = (la.x - p.x_m).hypot(la.y - p.y_m);
            let arc = arc_points(p, out.command.curvature_per_m, 0.0, len);
            chart
                .draw_series(LineSeries::new(arc, BLUE.mix(0.55).stroke_width(2)))
                .map_err(draw_err)?;
            chart
                .draw_series(std::iter::once(Circle::new((la.x, la.y), 4, BLUE.filled())))
                .map_err(draw_err)?;
            let d = shield
                .stop_rule(r.row.class)
                .stop_distance(r.state.speed_mps);
            let stop = arc_points(p, r.row.curvature_per_m, front, front + d);
            chart
                .draw_series(LineSeries::new(stop, ORANGE.mix(0.85).stroke_width(3)))
                .map_err(draw_err)?;
        }
        Ok(())
    }

    /// The records where the figure shows the look-ahead and the stop distance: the first
    /// while moving, then each time the vehicle has come a spacing further (at least 6 m,
    /// a 24th of the run on a long one), so that markers are spaced by distance.
    fn instants(&self) -> Vec<&LogRecord> {
        let step = |a: &LogRecord, b: &LogRecord| {
            (b.state.pose.x_m - a.state.pose.x_m).hypot(b.state.pose.y_m - a.state.pose.y_m)
        };
        let total: f64 = self.records.windows(2).map(|w| step(&w[0], &w[1])).sum();
        let spacing = (total / 24.0).max(6.0);
        let mut out: Vec<&LogRecord> = Vec::new();
        let mut since = f64::INFINITY;
        let mut prev: Option<&LogRecord> = None;
        for r in self.records {
            since += prev.map_or(0.0, |p| step(p, r));
            prev = Some(r);
            if r.state.speed_mps.abs() > 0.2 && since >= spacing {
                out.push(r);
                since = 0.0;
            }
        }
        out
    }

    /// The final footprint, and below its heading the gap to the nearest obstacle and the
    /// class's margin `d_m` as dimension lines.
    fn draw_final<DB: DrawingBackend>(&self, chart: &mut Chart<'_, DB>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let v = &self.config.control.vehicle;
        let last = self
            .records
            .last()
            .expect("records are not empty")
            .state
            .pose;
        let fp = crate::plant::world::footprint(last.x_m, last.y_m, last.yaw_rad, v);
        let pts: Vec<(f64, f64)> = fp.exterior().0.iter().map(|c| (c.x, c.y)).collect();
        chart
            .draw_series(std::iter::once(PathElement::new(pts, INK.stroke_width(2))))
            .map_err(draw_err)?;
        let (Some(g), false) = (self.summary.gap_m, self.summary.collided) else {
            return Ok(());
        };
        let (sy, cy) = last.yaw_rad.sin_cos();
        let f = v.front_m();
        // Points along the heading from the rear axle, offset `side` m to the right.
        let at = |s: f64, side: f64| (last.x_m + cy * s + sy * side, last.y_m + sy * s - cy * side);
        let half = v.width_m / 2.0;
        let dm = self.summary.obstacle_margin_m;
        let (near, far) = (-(half + 0.5), -(half + 1.9));
        dimension(
            chart,
            at(f, near),
            at(f + g, near),
            &format!("gap {g:.2} m"),
            0.6,
        )?;
        dimension(
            chart,
            at(f + g - dm, far),
            at(f + g, far),
            &format!("d_m {dm:.2} m"),
            0.6,
        )?;
        Ok(())
    }

    /// The legend below the chart: a sample of each element, then the formulas and the
    /// class limits of the final ground.
    fn draw_legend<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        w: u32,
    ) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let font = ("sans-serif", 15).into_font();
        // Only what the figure draws: objects where the scenario has some, the gap where
        // the run ended before one.
        let mut entries: Vec<(&str, Sample)> = vec![
            ("reference path", Sample::Dashed(GREY)),
            ("vehicle trace (rear axle)", Sample::Line(INK, 2)),
            ("pure-pursuit arc, look-ahead point", Sample::Line(BLUE, 2)),
            ("d_stop(v) along the command arc", Sample::Line(ORANGE, 4)),
        ];
        if !self.scenario.obstacles.is_empty() {
            entries.push(("object", Sample::Block(RED)));
        }
        entries.push(("final footprint", Sample::Outline(INK)));
        if self.summary.gap_m.is_some() && !self.summary.collided {
            entries.push(("gap and d_m", Sample::Line(DIM, 1)));
        }
        use crate::chain::shield::MovingDecision;
        let tracked = self.records.iter().any(|r| {
            r.tracks.iter().any(|t| t.moving)
                || r.moving_decision.is_some_and(|d| d != MovingDecision::None)
        });
        if tracked {
            entries.push((
                "tracks; rule: ▲ cap ● pass × let go",
                Sample::Line(RGBColor(0, 140, 140), 2),
            ));
        }
        let col = (w.saturating_sub(2 * MARGIN_PX) / 4).max(1) as i32;
        for (i, (label, sample)) in entries.iter().enumerate() {
            let (cx, cy) = (
                MARGIN_PX as i32 + col * (i as i32 % 4),
                14 + 24 * (i as i32 / 4),
            );
            sample.draw(area, (cx, cy))?;
            area.draw(&Text::new(
                label.to_string(),
                (cx + 34, cy - 8),
                font.clone(),
            ))
            .map_err(draw_err)?;
        }
        let rule = crate::chain::shield::Shield::new(self.config, Grip::Unknown)
            .expect("the unknown table")
            .stop_rule(self.summary.final_class);
        let class = self
            .summary
            .final_class
            .map_or("unknown ground".into(), |c| c.to_string());
        let notes = [
            "pure pursuit: κ = 2·y_L / L²   (y_L: the look-ahead point's offset to the left, L: its distance)".to_string(),
            format!(
                "d_stop(v) = d_m + v·T + v²/(2a);  {class}: d_m = {} m, T = {} s, a = {} m/s²;  {}",
                tick(rule.obstacle_margin_m),
                tick(rule.stop_time_s),
                tick(rule.decel_mps2),
                self.summary.verdict().0
            ),
        ];
        for (i, n) in notes.iter().enumerate() {
            area.draw(&Text::new(
                n.clone(),
                (MARGIN_PX as i32, 62 + 22 * i as i32),
                font.clone(),
            ))
            .map_err(draw_err)?;
        }
        let mut shown: Vec<crate::ground::MapClass> =
            self.map_runs().into_iter().map(|r| r.0).collect();
        shown.sort_by_key(|c| *c as usize);
        shown.dedup();
        if !shown.is_empty() {
            map_legend(area, &shown, font)?;
        }
        Ok(())
    }
}

/// The map's classes in the legend: a swatch of each class the view shows, before its
/// name.
fn map_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    present: &[crate::ground::MapClass],
    font: FontDesc<'_>,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let present = present.iter().copied();
    let mut x = MARGIN_PX as i32;
    area.draw(&Text::new("map:".to_string(), (x, 100), font.clone()))
        .map_err(draw_err)?;
    x += 44;
    for c in present {
        let colour = super::corridor::class_colour(c);
        area.draw(&Rectangle::new([(x, 102), (x + 14, 116)], colour.filled()))
            .map_err(draw_err)?;
        area.draw(&Rectangle::new(
            [(x, 102), (x + 14, 116)],
            GREY.stroke_width(1),
        ))
        .map_err(draw_err)?;
        area.draw(&Text::new(
            c.name().to_string(),
            (x + 18, 100),
            font.clone(),
        ))
        .map_err(draw_err)?;
        x += 30 + 8 * c.name().len() as i32;
    }
    Ok(())
}

/// A legend sample.
enum Sample {
    Line(RGBColor, u32),
    Dashed(RGBColor),
    Block(RGBColor),
    Outline(RGBColor),
}

impl Sample {
    /// Draws the sample with its left end at `(x, y)`, 26 px long.
    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        (x, y): (i32, i32),
    ) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let r = match self {
            Sample::Line(c, w) => area.draw(&PathElement::new(
                vec![(x, y), (x + 26, y)],
                c.stroke_width(*w),
            )),
            Sample::Dashed(c) => {
                for k in 0..3 {
                    area.draw(&PathElement::new(
                        vec![(x + 10 * k, y), (x + 10 * k + 6, y)],
                        c.stroke_width(2),
                    ))
                    .map_err(draw_err)?;
                }
                Ok(())
            }
            Sample::Block(c) => area.draw(&Rectangle::new(
                [(x + 6, y - 6), (x + 20, y + 6)],
                c.filled(),
            )),
            Sample::Outline(c) => area.draw(&Rectangle::new(
                [(x + 2, y - 6), (x + 24, y + 6)],
                c.stroke_width(2),
            )),
        };
        r.map_err(draw_err)
    }
}

/// A scale bar in the lower left of the chart: a round length near a fifth of the view.
fn scale_bar<DB: DrawingBackend>(chart: &mut Chart<'_, DB>) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let (x, y) = (chart.x_range(), chart.y_range());
    let len = round_at_most((x.end - x.start) / 5.0);
    let (x0, y0) = (
        x.start + 0.03 * (x.end - x.start),
        y.start + 0.05 * (y.end - y.start),
    );
    let end = 0.015 * (y.end - y.start);
    chart
        .draw_series([
            PathElement::new(vec![(x0, y0), (x0 + len, y0)], INK.stroke_width(3)),
            PathElement::new(vec![(x0, y0 - end), (x0, y0 + end)], INK.stroke_width(2)),
            PathElement::new(
                vec![(x0 + len, y0 - end), (x0 + len, y0 + end)],
                INK.stroke_width(2),
            ),
        ])
        .map_err(draw_err)?;
    let font = ("sans-serif", 14)
        .into_font()
        .color(&INK)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    chart
        .draw_series(std::iter::once(Text::new(
            format!("{} m", tick(len)),
            (x0 + len / 2.0, y0 + end),
            font,
        )))
        .map_err(draw_err)?;
    Ok(())
}

/// Points of the arc of curvature `k` from the pose, from arc length `s0` to `s1`.
fn arc_points(p: crate::chain::shield::Pose, k: f64, s0: f64, s1: f64) -> Vec<(f64, f64)> {
    let (sy, cy) = p.yaw_rad.sin_cos();
    (0..=40)
        .map(|i| {
            let s = s0 + (s1 - s0) * i as f64 / 40.0;
            let (bx, by) = if k.abs() < 1e-9 {
                (s, 0.0)
            } else {
                ((k * s).sin() / k, (1.0 - (k * s).cos()) / k)
            };
            (p.x_m + cy * bx - sy * by, p.y_m + sy * bx + cy * by)
        })
        .collect()
}

/// A dimension line from `a` to `b` with end ticks `tick_m` long and `label` over its
/// middle.
fn dimension<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    a: (f64, f64),
    b: (f64, f64),
    label: &str,
    tick_m: f64,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = dx.hypot(dy).max(1e-9);
    let (nx, ny) = (-dy / len * tick_m / 2.0, dx / len * tick_m / 2.0);
    let style = DIM.stroke_width(1);
    let tick_at =
        |p: (f64, f64)| PathElement::new(vec![(p.0 - nx, p.1 - ny), (p.0 + nx, p.1 + ny)], style);
    chart
        .draw_series([PathElement::new(vec![a, b], style), tick_at(a), tick_at(b)])
        .map_err(draw_err)?;
    let mid = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
    let font = ("sans-serif", 14)
        .into_font()
        .color(&DIM)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    chart
        .draw_series(std::iter::once(Text::new(label.to_string(), mid, font)))
        .map_err(draw_err)?;
    Ok(())
}

/// What the tracker saw and what the moving-object rule made of it, where the log has
/// them: the path of each track while it was a moving object (teal), and the vehicle's
/// place each time the rule's decision changed (a triangle where it began to cap, a dot
/// where it stood aside to pass, a cross where it let go).
fn draw_tracks<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    records: &[LogRecord],
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    use crate::chain::shield::MovingDecision;
    let teal = RGBColor(0, 140, 140);
    let mut paths: std::collections::BTreeMap<u64, Vec<(f64, f64)>> = Default::default();
    for r in records {
        for t in r.tracks.iter().filter(|t| t.moving) {
            paths.entry(t.id).or_default().push((t.x_m, t.y_m));
        }
    }
    for (k, path) in paths.into_values().enumerate() {
        let series = chart
            .draw_series(LineSeries::new(path, teal.stroke_width(2)))
            .map_err(draw_err)?;
        if k == 0 {
            series
                .label("tracker: moving tracks")
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], teal.stroke_width(2))
                });
        }
    }
    let kind = |d: Option<MovingDecision>| match d.unwrap_or_default() {
        MovingDecision::None => 0,
        MovingDecision::Cap { .. } => 1,
        MovingDecision::Pass => 2,
    };
    let (orange, green, grey) = (
        RGBColor(230, 120, 0),
        RGBColor(0, 150, 60),
        RGBColor(90, 90, 90),
    );
    let mut shown = [false; 3];
    let mut last = 0;
    for r in records {
        let now = kind(r.moving_decision);
        if now == last {
            continue;
        }
        last = now;
        let at = (r.state.pose.x_m, r.state.pose.y_m);
        let (marker, label, colour): (DynElement<'static, DB, (f64, f64)>, _, _) = match now {
            1 => (
                TriangleMarker::new(at, 9, orange.filled()).into_dyn(),
                "moving-object rule: caps from here",
                orange,
            ),
            2 => (
                Circle::new(at, 7, green.filled()).into_dyn(),
                "moving-object rule: passes from here",
                green,
            ),
            _ => (
                Cross::new(at, 6, grey.stroke_width(2)).into_dyn(),
                "moving-object rule: lets go here",
                grey,
            ),
        };
        let series = chart.draw_series([marker]).map_err(draw_err)?;
        if !shown[now] {
            shown[now] = true;
            series
                .label(label)
                .legend(move |(x, y)| Circle::new((x + 12, y), 5, colour.filled()));
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A run whose log has tracks draws them and the rule's decisions, with their legend
    /// entry; a run with no tracks has neither.
    #[test]
    fn a_run_with_tracks_draws_them_and_one_without_does_not() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let c = Config::builtin();
        for (file, tracked) in [("crossing_person.json", true), ("opening.json", false)] {
            let s = Scenario::load(Some(&root.join("data/scenarios").join(file))).unwrap();
            let route = s.route().unwrap();
            let mut log = Vec::new();
            let summary = crate::jobs::sim::run(&c, &s, route.clone(), Some(&mut log)).unwrap();
            let svg = pure_pursuit_of_log(&c, &s, &route, &log, &summary, ImageFormat::Svg);
            let svg = String::from_utf8(svg.unwrap()).unwrap();
            let has = svg.contains("tracks; rule:");
            assert_eq!(has, tracked, "{file}");
        }
    }
}
