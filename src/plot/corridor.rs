//! The corridor image of `acres corridor build --image`: the map's classes and the
//! clearance bound of each corridor cell, a pixel (or a square of pixels) a cell, framed
//! by coordinate axes, a legend and a scale bar.

use super::*;
use crate::ground::MapClass;
use crate::ground::corridor::Corridor;

/// The colour of a map class: distinct hues where classes share a look on the ground (the
/// greens of grass, grass lanes and verges; the greys of asphalt, concrete and obstacles),
/// so that a reader tells every class apart.
pub(super) fn class_colour(c: MapClass) -> RGBColor {
    use MapClass::*;
    match c {
        Asphalt => RGBColor(85, 85, 100),
        Concrete => RGBColor(190, 190, 182),
        Gravel => RGBColor(205, 170, 120),
        GrassLane => RGBColor(180, 210, 60),
        Dirt => RGBColor(140, 90, 50),
        Grass => RGBColor(90, 160, 75),
        Field => RGBColor(240, 220, 130),
        Verge => RGBColor(100, 200, 170),
        Obstacle => RGBColor(30, 30, 30),
        Unknown => RGBColor(255, 255, 255),
    }
}

/// The colour of `d_c` for `t = d_c / max` in [0, 1]: purple at the corridor's edge,
/// through blue to light blue at its widest, hues no map class has; the edge is far from
/// the near-black of obstacles, so that a sliver of corridor never reads as an obstacle.
fn ramp(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let stops = [
        (150.0, 40.0, 170.0),
        (40.0, 110.0, 210.0),
        (175.0, 225.0, 250.0),
    ];
    let (i, f) = if t < 0.5 {
        (0, t * 2.0)
    } else {
        (1, (t - 0.5) * 2.0)
    };
    let (a, b) = (stops[i], stops[i + 1]);
    let mix = |x: f64, y: f64| (x + (y - x) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Margins around the raster, px: the y labels at the left, the title at the top, the x
/// labels below, the legend at the right.
const LEFT: usize = 84;
const TOP: usize = 46;
const BOTTOM: usize = 62;
const RIGHT: usize = 300;
/// The pixel (column, row) of the corridor image where the raster part starts.
pub const CORRIDOR_RASTER_AT: (usize, usize) = (LEFT, TOP);
/// The legend's height: the image is at least this tall.
const LEGEND_H: usize = 640;

/// Where the raster lies in the image.
struct Layout {
    /// Cells a pixel spans (at most 2400 pixels a side).
    step: usize,
    /// Pixels a cell spans (a small raster drawn at least 600 pixels on its long side).
    zoom: usize,
    /// The raster's size in pixels.
    iw: usize,
    ih: usize,
    /// The image's size.
    w: usize,
    h: usize,
    /// A pixel's side, m, and the world position of the raster's upper-left corner.
    px_m: f64,
    left_m: f64,
    top_m: f64,
}

impl Layout {
    fn of(corridor: &Corridor) -> Layout {
        let g = &corridor.grid;
        let step = g.width.div_ceil(2400).max(g.height.div_ceil(2400)).max(1);
        let zoom = (600 / g.width.max(g.height).max(1)).clamp(1, 16);
        let (iw, ih) = (
            g.width.div_ceil(step) * zoom,
            g.height.div_ceil(step) * zoom,
        );
        Layout {
            step,
            zoom,
            iw,
            ih,
            w: LEFT + iw + RIGHT,
            h: (TOP + ih + BOTTOM).max(LEGEND_H),
            px_m: step as f64 * g.resolution_m / zoom as f64,
            left_m: g.origin_m[0],
            top_m: g.origin_m[1] + g.height as f64 * g.resolution_m,
        }
    }

    /// The pixel of a world point (fractional).
    fn to_px(&self, x: f64, y: f64) -> (f64, f64) {
        (
            LEFT as f64 + (x - self.left_m) / self.px_m,
            TOP as f64 + (self.top_m - y) / self.px_m,
        )
    }
}

/// The world file (`.pgw`) of the corridor image: six lines, the pixel's size in x, two
/// rotations (0), the pixel's size in y (negative: rows run south), and the centre of the
/// image's upper-left pixel, so that GIS tools place the raster part on the map (the
/// margins with the axes and the legend fall outside the map).
pub fn corridor_world_file(corridor: &Corridor) -> String {
    let l = Layout::of(corridor);
    let px = l.px_m;
    format!(
        "{px}\n0\n0\n{}\n{}\n{}\n",
        -px,
        l.left_m - LEFT as f64 * px + px / 2.0,
        l.top_m + TOP as f64 * px - px / 2.0
    )
}

/// The raster part: `d_c` on the blue ramp inside the corridor, the map's class colours
/// outside, as RGB rows of `iw` pixels; with the classes that appear outside and the
/// largest `d_c`.
fn raster(
    corridor: &Corridor,
    map: &crate::ground::Map,
    l: &Layout,
) -> (Vec<u8>, Vec<MapClass>, f64) {
    let g = &corridor.grid;
    let dmax = g.cells.iter().fold(0.0f32, |a, &b| a.max(b)).max(1e-3) as f64;
    let mut seen = [false; MapClass::ALL.len()];
    let mut rgb = vec![255u8; l.iw * l.ih * 3];
    for j in 0..l.ih {
        for i in 0..l.iw {
            let (ci, cj) = (i / l.zoom * l.step, j / l.zoom * l.step);
            let d = g.cells[cj * g.width + ci] as f64;
            let c = if d > 0.0 {
                ramp(d / dmax)
            } else {
                let (x, y) = g.centre(ci, cj);
                let class = map.classes.at(x, y).unwrap_or(MapClass::Unknown);
                seen[class as usize] = true;
                class_colour(class)
            };
            let o = (j * l.iw + i) * 3;
            rgb[o..o + 3].copy_from_slice(&[c.0, c.1, c.2]);
        }
    }
    let present = MapClass::ALL
        .into_iter()
        .filter(|c| seen[*c as usize])
        .collect();
    (rgb, present, dmax)
}

/// The corridor image (PNG or SVG): the raster part one pixel a cell (sampled where the
/// raster is over 2400 cells a side, a square of pixels a cell where it is under 600),
/// the route in red, coordinate axes in metres, and at the right the `d_c` ramp, the
/// classes of the excluded ground that appear, the raster's size and a scale bar. In an
/// SVG the raster part is an embedded PNG.
pub fn corridor_image(
    corridor: &Corridor,
    map: &crate::ground::Map,
    route: Option<&crate::chain::path::Path>,
    format: ImageFormat,
) -> Result<Vec<u8>, PlotError> {
    register_fonts();
    let l = Layout::of(corridor);
    let (part, present, dmax) = raster(corridor, map, &l);
    let (w, h) = (l.w as u32, l.h as u32);
    let legend = Legend {
        dmax,
        present,
        corridor,
    };
    match format {
        ImageFormat::Png => {
            let mut rgb = vec![255u8; l.w * l.h * 3];
            for j in 0..l.ih {
                let o = ((TOP + j) * l.w + LEFT) * 3;
                rgb[o..o + l.iw * 3].copy_from_slice(&part[j * l.iw * 3..(j + 1) * l.iw * 3]);
            }
            {
                let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
                decorate(&root, &l, route, &legend)?;
                root.present().map_err(draw_err)?;
            }
            encode_png(w, h, &rgb)
        }
        ImageFormat::Svg => {
            let mut s = String::new();
            {
                let root = SVGBackend::with_string(&mut s, (w, h)).into_drawing_area();
                decorate(&root, &l, route, &legend)?;
                root.present().map_err(draw_err)?;
            }
            let png = encode_png(l.iw as u32, l.ih as u32, &part)?;
            Ok(embed_font(&with_raster(&s, &l, &png)).into_bytes())
        }
    }
}

/// An SVG with a white background and the raster part (PNG bytes) placed first, under
/// everything plotters drew.
fn with_raster(svg: &str, l: &Layout, png: &[u8]) -> String {
    use base64::Engine;
    let Some(head_end) = svg.find('>').map(|i| i + 1) else {
        return svg.to_string();
    };
    format!(
        "{}\n<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#FFFFFF\"/>\n<image x=\"{LEFT}\" y=\"{TOP}\" width=\"{}\" height=\"{}\" style=\"image-rendering:pixelated\" preserveAspectRatio=\"none\" href=\"data:image/png;base64,{}\"/>{}",
        &svg[..head_end],
        l.w,
        l.h,
        l.iw,
        l.ih,
        base64::engine::general_purpose::STANDARD.encode(png),
        &svg[head_end..]
    )
}

/// What the legend shows.
struct Legend<'a> {
    dmax: f64,
    present: Vec<MapClass>,
    corridor: &'a Corridor,
}

const ROUTE: RGBColor = RGBColor(220, 30, 30);

/// Everything drawn over the raster: the title, the frame and its axes, the route, the
/// legend and the scale bar.
fn decorate<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    l: &Layout,
    route: Option<&crate::chain::path::Path>,
    legend: &Legend,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let g = &legend.corridor.grid;
    let title = format!(
        "Corridor d_c: {} × {} cells at {} m",
        g.width,
        g.height,
        tick(g.resolution_m)
    );
    let font = ("sans-serif", 22).into_font().color(&INK);
    root.draw(&Text::new(title, (LEFT as i32, 14), font))
        .map_err(draw_err)?;
    if let Some(p) = route {
        let x = (l.left_m, l.left_m + l.iw as f64 * l.px_m);
        let y = (l.top_m - l.ih as f64 * l.px_m, l.top_m);
        let pts: Vec<(f64, f64)> = p.line().0.iter().map(|c| (c.x, c.y)).collect();
        for run in clip_runs(&pts, x, y) {
            let px: Vec<(i32, i32)> = run
                .iter()
                .map(|&(x, y)| {
                    let (u, v) = l.to_px(x, y);
                    (u.round() as i32, v.round() as i32)
                })
                .collect();
            root.draw(&PathElement::new(px, ROUTE.stroke_width(2)))
                .map_err(draw_err)?;
        }
    }
    frame_axes(root, l)?;
    draw_legend(root, l, legend)
}

/// A round step near a seventh of `extent` (4 to 7 ticks): 1, 2, 2.5 or 5 times a power
/// of ten.
fn round_step(extent: f64) -> f64 {
    let want = extent / 7.0;
    let mag = 10f64.powf(want.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|k| k * mag)
        .find(|s| *s >= want)
        .unwrap_or(10.0 * mag)
}

/// The frame around the raster with ticks and labels of the world coordinates, m.
fn frame_axes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    l: &Layout,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let (x0, y0) = (LEFT as i32 - 1, TOP as i32 - 1);
    let (x1, y1) = ((LEFT + l.iw) as i32, (TOP + l.ih) as i32);
    root.draw(&Rectangle::new([(x0, y0), (x1, y1)], INK.stroke_width(1)))
        .map_err(draw_err)?;
    let label = |h: HPos, v: VPos| {
        ("sans-serif", 18)
            .into_font()
            .color(&INK)
            .pos(Pos::new(h, v))
    };
    let (wx, hy) = (l.iw as f64 * l.px_m, l.ih as f64 * l.px_m);
    let sx = round_step(wx);
    let mut k = (l.left_m / sx).ceil();
    while k * sx <= l.left_m + wx {
        let u = l.to_px(k * sx, 0.0).0.round() as i32;
        root.draw(&PathElement::new(vec![(u, y1), (u, y1 + 6)], INK))
            .map_err(draw_err)?;
        root.draw(&Text::new(
            tick(k * sx),
            (u, y1 + 9),
            label(HPos::Center, VPos::Top),
        ))
        .map_err(draw_err)?;
        k += 1.0;
    }
    let sy = round_step(hy);
    let bottom = l.top_m - hy;
    let mut k = (bottom / sy).ceil();
    while k * sy <= l.top_m {
        let v = l.to_px(0.0, k * sy).1.round() as i32;
        root.draw(&PathElement::new(vec![(x0 - 6, v), (x0, v)], INK))
            .map_err(draw_err)?;
        root.draw(&Text::new(
            tick(k * sy),
            (x0 - 9, v),
            label(HPos::Right, VPos::Center),
        ))
        .map_err(draw_err)?;
        k += 1.0;
    }
    let mid = ((x0 + x1) / 2, y1 + 34);
    root.draw(&Text::new("x (m)", mid, label(HPos::Center, VPos::Top)))
        .map_err(draw_err)?;
    let side = ("sans-serif", 18)
        .into_font()
        .transform(FontTransform::Rotate270)
        .color(&INK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    root.draw(&Text::new("y (m)", (8, (y0 + y1) / 2), side))
        .map_err(draw_err)?;
    Ok(())
}

/// The legend right of the raster: the `d_c` ramp with three values, the route, the
/// classes of excluded ground that appear, and a scale bar of a round length.
fn draw_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    l: &Layout,
    legend: &Legend,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let x0 = (LEFT + l.iw + 24) as i32;
    let text = |s: String, (x, y): (i32, i32), size: u32| {
        Text::new(s, (x, y), ("sans-serif", size).into_font().color(&INK))
    };
    let mut y = TOP as i32;
    root.draw(&text("d_c (m)".into(), (x0, y), 20))
        .map_err(draw_err)?;
    y += 26;
    for k in 0..=150 {
        let t = 1.0 - k as f64 / 150.0;
        root.draw(&Rectangle::new(
            [(x0, y + k), (x0 + 28, y + k + 1)],
            ramp(t).filled(),
        ))
        .map_err(draw_err)?;
    }
    for (t, dy) in [(1.0, 0), (0.5, 75), (0.0, 150)] {
        let value = format!("{:.2}", legend.dmax * t);
        root.draw(&Text::new(
            value,
            (x0 + 36, y + dy),
            ("sans-serif", 17)
                .into_font()
                .color(&INK)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(draw_err)?;
    }
    y += 172;
    root.draw(&PathElement::new(
        vec![(x0, y + 7), (x0 + 28, y + 7)],
        ROUTE.stroke_width(2),
    ))
    .map_err(draw_err)?;
    root.draw(&text("route".into(), (x0 + 36, y), 17))
        .map_err(draw_err)?;
    y += 30;
    root.draw(&text("Excluded ground".into(), (x0, y), 20))
        .map_err(draw_err)?;
    for c in &legend.present {
        y += 26;
        root.draw(&Rectangle::new(
            [(x0, y), (x0 + 28, y + 18)],
            class_colour(*c).filled(),
        ))
        .map_err(draw_err)?;
        root.draw(&Rectangle::new(
            [(x0, y), (x0 + 28, y + 18)],
            RGBColor(120, 120, 120),
        ))
        .map_err(draw_err)?;
        root.draw(&text(c.name().to_string(), (x0 + 36, y), 17))
            .map_err(draw_err)?;
    }
    scale_bar(root, l, (x0, y + 48))
}

/// A scale bar at `(x, y)`: a round length of at most 200 px of the raster.
fn scale_bar<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    l: &Layout,
    (x, y): (i32, i32),
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let len = round_at_most(200.0 * l.px_m);
    let px = (len / l.px_m).round() as i32;
    for e in [
        vec![(x, y), (x + px, y)],
        vec![(x, y - 5), (x, y + 5)],
        vec![(x + px, y - 5), (x + px, y + 5)],
    ] {
        root.draw(&PathElement::new(e, INK.stroke_width(2)))
            .map_err(draw_err)?;
    }
    let font = ("sans-serif", 17)
        .into_font()
        .color(&INK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    root.draw(&Text::new(
        format!("{} m", tick(len)),
        (x + px / 2, y + 9),
        font,
    ))
    .map_err(draw_err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apart(a: RGBColor, b: RGBColor) -> f64 {
        let d = |x: u8, y: u8| (x as f64 - y as f64).powi(2);
        (d(a.0, b.0) + d(a.1, b.1) + d(a.2, b.2)).sqrt()
    }

    /// Every two classes differ by at least 60 of 255 in RGB, and no class is within 60
    /// of a colour of the d_c ramp, so that excluded ground never reads as corridor; the
    /// ramp's first tenth (a corridor's edge) is at least 150 from an obstacle.
    #[test]
    fn class_colours_are_told_apart() {
        for k in 0..=10 {
            let d = apart(class_colour(MapClass::Obstacle), ramp(k as f64 / 100.0));
            assert!(d >= 150.0, "the ramp at {k} % is {d:.0} from an obstacle");
        }
        let all = MapClass::ALL;
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                let d = apart(class_colour(*a), class_colour(*b));
                assert!(d >= 60.0, "{a:?} and {b:?} are {d:.0} apart");
            }
            for k in 0..=100 {
                let d = apart(class_colour(*a), ramp(k as f64 / 100.0));
                assert!(d >= 60.0, "{a:?} is {d:.0} from the ramp at {k} %");
            }
        }
    }

    /// Round steps are 1, 2, 2.5 or 5 times a power of ten and give 3 to 7 ticks an axis.
    #[test]
    fn round_steps_give_a_handful_of_ticks() {
        for extent in [0.7, 3.0, 12.5, 99.0, 530.0, 660.0, 4_000.0, 123_456.0] {
            let s = round_step(extent);
            let lead = s / 10f64.powf(s.log10().floor());
            assert!(
                [1.0, 2.0, 2.5, 5.0].iter().any(|k| (lead - k).abs() < 1e-9),
                "{s}"
            );
            let ticks = (extent / s).floor();
            assert!(
                (3.0..=7.0).contains(&ticks),
                "{extent}: {ticks} ticks of {s}"
            );
        }
    }
}
