//! The corridor image of `acres corridor build --image`: the map's classes and the
//! clearance bound of each corridor cell.

use super::*;
use crate::ground::corridor::Corridor;

pub(super) fn class_colour(c: crate::ground::MapClass) -> RGBColor {
    use crate::ground::MapClass::*;
    match c {
        Asphalt => RGBColor(90, 90, 95),
        Concrete => RGBColor(170, 170, 165),
        Gravel => RGBColor(190, 170, 130),
        GrassLane => RGBColor(140, 190, 90),
        Dirt => RGBColor(150, 110, 70),
        Grass => RGBColor(110, 170, 80),
        Field => RGBColor(215, 200, 110),
        Verge => RGBColor(160, 200, 140),
        Obstacle => RGBColor(40, 40, 40),
        Unknown => RGBColor(255, 255, 255),
    }
}

/// A blue-to-yellow ramp for `t` in [0, 1].
fn ramp(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let stops = [
        (48.0, 18.0, 120.0),
        (33.0, 145.0, 140.0),
        (250.0, 230.0, 30.0),
    ];
    let (i, f) = if t < 0.5 {
        (0, t * 2.0)
    } else {
        (1, (t - 0.5) * 2.0)
    };
    let (a, b) = (stops[i], stops[i + 1]);
    let mix = |x: f64, y: f64| (x + (y - x) * f) as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// A class colour dimmed, for excluded ground.
fn dimmed(c: crate::ground::MapClass) -> RGBColor {
    let k = class_colour(c);
    RGBColor(
        (k.0 as u16 * 3 / 5 + 60) as u8,
        (k.1 as u16 * 3 / 5 + 60) as u8,
        (k.2 as u16 * 3 / 5 + 60) as u8,
    )
}

/// The corridor image: the map's classes (dimmed) outside the corridor, `d_c` as a colour
/// ramp inside it, the route, and a legend. One pixel per cell, up to 2400 pixels wide
/// (larger rasters are sampled).
/// How many cells a pixel of the corridor image spans (at most 2400 pixels a side).
fn image_step(corridor: &Corridor) -> usize {
    let g = &corridor.grid;
    g.width.div_ceil(2400).max(g.height.div_ceil(2400)).max(1)
}

/// The world file (`.pgw`) of the corridor image: six lines, the pixel's size in x, two
/// rotations (0), the pixel's size in y (negative: rows run south), and the centre of the
/// upper-left pixel, so that GIS tools place the image's raster part on the map (the
/// legend to its right falls outside the map).
pub fn corridor_world_file(corridor: &Corridor) -> String {
    let g = &corridor.grid;
    let px = image_step(corridor) as f64 * g.resolution_m;
    let top = g.origin_m[1] + g.height as f64 * g.resolution_m;
    format!(
        "{px}\n0\n0\n{}\n{}\n{}\n",
        -px,
        g.origin_m[0] + px / 2.0,
        top - px / 2.0
    )
}

pub fn corridor_image(
    corridor: &Corridor,
    map: &crate::ground::Map,
    route: Option<&crate::chain::path::Path>,
) -> Result<Vec<u8>, PlotError> {
    register_fonts();
    let g = &corridor.grid;
    let step = image_step(corridor);
    let (iw, ih) = (g.width.div_ceil(step), g.height.div_ceil(step));
    let legend_w = 300usize;
    let (w, h) = ((iw + legend_w) as u32, ih.max(420) as u32);
    let dmax = g.cells.iter().fold(0.0f32, |a, &b| a.max(b)).max(1e-3) as f64;
    let mut rgb = vec![255u8; (w * h * 3) as usize];
    for j in 0..ih {
        for i in 0..iw {
            let (ci, cj) = (i * step, j * step);
            let d = g.cells[cj * g.width + ci] as f64;
            let (x, y) = g.centre(ci, cj);
            let c = if d > 0.0 {
                ramp(d / dmax)
            } else {
                dimmed(
                    map.classes
                        .at(x, y)
                        .unwrap_or(crate::ground::MapClass::Unknown),
                )
            };
            let o = ((j * w as usize) + i) * 3;
            rgb[o..o + 3].copy_from_slice(&[c.0, c.1, c.2]);
        }
    }
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        if let Some(p) = route {
            let to_px = |x: f64, y: f64| -> (i32, i32) {
                let u = (x - g.origin_m[0]) / g.resolution_m / step as f64;
                let v = (g.height as f64 - (y - g.origin_m[1]) / g.resolution_m) / step as f64;
                (u as i32, v as i32)
            };
            let pts: Vec<(i32, i32)> = p.line().0.iter().map(|c| to_px(c.x, c.y)).collect();
            root.draw(&PathElement::new(
                pts,
                RGBColor(220, 30, 30).stroke_width(2),
            ))
            .map_err(draw_err)?;
        }
        draw_legend(&root, iw as i32 + 16, dmax, corridor)?;
        root.present().map_err(draw_err)?;
    }
    encode_png(w, h, &rgb)
}

/// The legend at `x0`: the `d_c` ramp from 0 to `dmax`, the classes of excluded ground,
/// and the raster's size.
fn draw_legend(
    root: &DrawingArea<BitMapBackend, Shift>,
    x0: i32,
    dmax: f64,
    corridor: &Corridor,
) -> Result<(), PlotError> {
    let g = &corridor.grid;
    let text = |s: String, y: i32, size: i32| {
        Text::new(s, (x0, y), ("sans-serif", size).into_font().color(&BLACK))
    };
    root.draw(&text("Corridor d_c (m)".into(), 12, 20))
        .map_err(draw_err)?;
    for k in 0..=150 {
        let t = 1.0 - k as f64 / 150.0;
        root.draw(&Rectangle::new(
            [(x0, 44 + k), (x0 + 28, 45 + k)],
            ramp(t).filled(),
        ))
        .map_err(draw_err)?;
    }
    root.draw(&Text::new(
        format!("{:.2}", dmax),
        (x0 + 36, 40),
        ("sans-serif", 15),
    ))
    .map_err(draw_err)?;
    root.draw(&Text::new(
        "0".to_string(),
        (x0 + 36, 186),
        ("sans-serif", 15),
    ))
    .map_err(draw_err)?;
    let mut y = 214;
    root.draw(&text("Excluded ground".into(), y, 17))
        .map_err(draw_err)?;
    for c in crate::ground::MapClass::ALL {
        y += 20;
        root.draw(&Rectangle::new(
            [(x0, y), (x0 + 16, y + 14)],
            dimmed(c).filled(),
        ))
        .map_err(draw_err)?;
        root.draw(&Text::new(
            c.name().to_string(),
            (x0 + 24, y),
            ("sans-serif", 15),
        ))
        .map_err(draw_err)?;
    }
    root.draw(&text(
        format!("{} × {} cells, {} m", g.width, g.height, g.resolution_m),
        y + 30,
        14,
    ))
    .map_err(draw_err)?;
    Ok(())
}
