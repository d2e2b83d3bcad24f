//! The diagram of `acres check --plot`: the chunks of a file over their route and the
//! corridor, each refused chunk coloured by the rule that refused it, with its first
//! failing sample marked.

use super::*;
use crate::ground::Corridor;

/// One chunk as the diagram draws it: its samples' positions, the code of the rule that
/// refused it (None: accepted) and the first failing sample.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedChunk {
    pub index: usize,
    pub points: Vec<(f64, f64)>,
    pub reason: Option<&'static str>,
    pub first_index: Option<usize>,
}

/// The check diagram: the routes (dashed), where a corridor is given its excluded ground
/// (grey) under the view, every chunk (accepted in green, refused in a colour of its
/// rule, named in the legend) with its index, and a cross at each first failing sample.
pub fn check(
    routes: &[Vec<(f64, f64)>],
    chunks: &[CheckedChunk],
    corridor: Option<&Corridor>,
    spec: impl Into<ImageSpec>,
) -> Result<Vec<u8>, PlotError> {
    let pts: Vec<(f64, f64)> = chunks
        .iter()
        .flat_map(|c| c.points.iter().copied())
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    if pts.is_empty() {
        return Err(PlotError::Input(
            "no chunk has a finite sample to draw".into(),
        ));
    }
    let spec: ImageSpec = spec.into();
    let size = spec.size_or_default();
    let view = equal_view(&pts, size);
    render(
        spec.format,
        size,
        |a| draw_check(a, routes, chunks, corridor, view),
        |a| draw_check(a, routes, chunks, corridor, view),
    )
}

/// The box around `pts` with a margin, grown to one scale on both axes for `size`.
fn equal_view(pts: &[(f64, f64)], size: (u32, u32)) -> ((f64, f64), (f64, f64)) {
    let lo = |f: fn(&(f64, f64)) -> f64| pts.iter().map(f).fold(f64::INFINITY, f64::min);
    let hi = |f: fn(&(f64, f64)) -> f64| pts.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
    let (x0, x1, y0, y1) = (lo(|p| p.0), hi(|p| p.0), lo(|p| p.1), hi(|p| p.1));
    let m = 3.0 + 0.05 * (x1 - x0).max(y1 - y0);
    let (pw, ph) = (
        (size.0.max(200) - 100) as f64,
        (size.1.max(200) - 140) as f64,
    );
    let ppm = (pw / (x1 - x0 + 2.0 * m)).min(ph / (y1 - y0 + 2.0 * m));
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let (hw, hh) = (pw / ppm / 2.0, ph / ppm / 2.0);
    ((cx - hw, cx + hw), (cy - hh, cy + hh))
}

/// The colour of a rule's code: one of the palette, the same for a code in every plot.
fn reason_colour(code: &str) -> RGBColor {
    const COLOURS: [RGBColor; 8] = [
        RGBColor(214, 39, 40),
        RGBColor(255, 127, 14),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(23, 190, 207),
        RGBColor(188, 189, 34),
        RGBColor(31, 119, 180),
    ];
    let h = code
        .bytes()
        .fold(7usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize));
    COLOURS[h % COLOURS.len()]
}

fn draw_check<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    routes: &[Vec<(f64, f64)>],
    chunks: &[CheckedChunk],
    corridor: Option<&Corridor>,
    ((x0, x1), (y0, y1)): ((f64, f64), (f64, f64)),
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(draw_err)?;
    let refused = chunks.iter().filter(|c| c.reason.is_some()).count();
    let mut chart = ChartBuilder::on(root)
        .caption(
            format!(
                "acres check: {} chunk{}, {refused} refused",
                chunks.len(),
                if chunks.len() == 1 { "" } else { "s" }
            ),
            ("sans-serif", 22).into_font(),
        )
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(draw_err)?;
    axes(&mut chart, "x east (m)", "y north (m)", 15)?;
    if let Some(c) = corridor {
        draw_excluded(&mut chart, c, (x0, x1), (y0, y1))?;
    }
    let grey = RGBColor(110, 110, 110);
    let runs = routes.iter().flat_map(|r| clip_runs(r, (x0, x1), (y0, y1)));
    for (i, r) in runs.enumerate() {
        let s = chart
            .draw_series(DashedLineSeries::new(r, 8, 6, grey.stroke_width(2)))
            .map_err(draw_err)?;
        if i == 0 {
            s.label("route").legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 24, y)], grey.stroke_width(2))
            });
        }
    }
    draw_chunks(&mut chart, chunks)?;
    // The legend goes to the corner with the least of the routes and chunks under it.
    let mut labels: Vec<String> = vec!["route".into()];
    for c in chunks {
        let l = c
            .reason
            .map_or("accepted".to_string(), |r| format!("refused: {r}"));
        if !labels.contains(&l) {
            labels.push(l);
        }
    }
    if chunks
        .iter()
        .any(|c| c.reason.is_some() && c.first_index.is_some())
    {
        labels.push("first failing sample".into());
    }
    let chars = labels.iter().map(|l| l.len()).max().unwrap_or(0);
    let points = routes
        .iter()
        .flatten()
        .chain(chunks.iter().flat_map(|c| &c.points))
        .copied()
        .filter(|p| p.0.is_finite() && p.1.is_finite());
    let corner = clear_corner(&chart, points, legend_size(labels.len(), chars, 15));
    legend(&mut chart, corner, 15)
}

/// The corridor's excluded ground (d ≤ 0) under the view, light grey, in runs of cells.
fn draw_excluded<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    c: &Corridor,
    x: (f64, f64),
    y: (f64, f64),
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let cell = ((x.1 - x.0) / 220.0).max(c.grid.resolution_m);
    let (nx, ny) = (
        ((x.1 - x.0) / cell).ceil() as usize,
        ((y.1 - y.0) / cell).ceil() as usize,
    );
    let out = |i: usize, j: usize| {
        c.query(x.0 + (i as f64 + 0.5) * cell, y.0 + (j as f64 + 0.5) * cell) <= 0.0
    };
    let shade = RGBColor(215, 215, 215);
    let mut runs = Vec::new();
    for j in 0..ny {
        let mut i = 0;
        while i < nx {
            let start = i;
            let excluded = out(i, j);
            while i < nx && out(i, j) == excluded {
                i += 1;
            }
            if excluded {
                let (a, b) = (x.0 + start as f64 * cell, y.0 + j as f64 * cell);
                runs.push(Rectangle::new(
                    [(a, b), (x.0 + i as f64 * cell, b + cell)],
                    shade.filled(),
                ));
            }
        }
    }
    chart
        .draw_series(runs)
        .map_err(draw_err)?
        .label("outside the corridor (d ≤ 0)")
        .legend(move |(x, y)| Rectangle::new([(x + 4, y - 6), (x + 20, y + 6)], shade.filled()));
    Ok(())
}

/// The height of a chunk's label, px: labels closer than this are set apart.
const LABEL_LINE: i32 = 15;

/// Each chunk's line with its index, a legend entry per rule that refused one, and a
/// cross at each first failing sample.
fn draw_chunks<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    chunks: &[CheckedChunk],
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let green = RGBColor(44, 160, 44);
    let mut named: Vec<&str> = Vec::new();
    // Where labels went, in pixels: a label that would print over another moves down a
    // line until it is clear (chunks often start at one place).
    let mut placed: Vec<(i32, i32)> = Vec::new();
    for c in chunks {
        let line: Vec<(f64, f64)> = c
            .points
            .iter()
            .copied()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .collect();
        let Some(&first) = line.first() else { continue };
        let (colour, label) = match c.reason {
            None => (green, "accepted"),
            Some(code) => (reason_colour(code), code),
        };
        let s = chart
            .draw_series(LineSeries::new(line, colour.stroke_width(3)))
            .map_err(draw_err)?;
        if !named.contains(&label) {
            named.push(label);
            let text = match c.reason {
                None => "accepted".to_string(),
                Some(code) => format!("refused: {code}"),
            };
            s.label(text).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 24, y)], colour.stroke_width(3))
            });
        }
        let text = format!("#{}", c.index);
        let (px, py) = chart.backend_coord(&first);
        let width = 8 * text.len() as i32;
        let mut dy = 0;
        while placed
            .iter()
            .any(|&(x, y)| (x - px).abs() < width && (y - (py + dy)).abs() < LABEL_LINE)
        {
            dy += LABEL_LINE;
        }
        placed.push((px, py + dy));
        chart
            .draw_series(std::iter::once(
                EmptyElement::at(first)
                    + Text::new(text, (0, dy), ("sans-serif", 13).into_font().color(&colour)),
            ))
            .map_err(draw_err)?;
        let failing = c
            .first_index
            .and_then(|k| c.points.get(k))
            .filter(|p| p.0.is_finite());
        if let (Some(&p), Some(_)) = (failing, c.reason) {
            chart
                .draw_series(std::iter::once(Cross::new(p, 7, BLACK.stroke_width(2))))
                .map_err(draw_err)?;
        }
    }
    if chunks
        .iter()
        .any(|c| c.reason.is_some() && c.first_index.is_some())
    {
        chart
            .draw_series(Vec::<Cross<(f64, f64), i32>>::new())
            .map_err(draw_err)?
            .label("first failing sample")
            .legend(|(x, y)| Cross::new((x + 12, y), 6, BLACK.stroke_width(2)));
    }
    Ok(())
}
