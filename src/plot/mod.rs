//! Diagrams, rendered to bytes (PNG or SVG) so that the caller decides where they go.
//!
//! Text is drawn with DejaVu Sans embedded in the binary (plotters' `ab_glyph` font
//! backend), so no system font library is needed.

use crate::chain::envelope::{ClassLimits, Grip, GroundClass, StopRule};
use crate::config::Config;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};
use std::path::Path;
use std::sync::Once;

mod calibration;
mod check;
mod corridor;
mod pure_pursuit;
mod replay;
mod reports;
mod route_check;
mod stop_distance;
mod suite;

pub use calibration::calibration;
pub use check::{CheckedChunk, check};
pub use corridor::{CORRIDOR_RASTER_AT, corridor_image, corridor_world_file};
pub use pure_pursuit::{pure_pursuit, pure_pursuit_of_log};
pub use replay::{ReplayPoint, replay};
pub use reports::{ReportPoint, reports};
pub use route_check::route_check;
pub use stop_distance::{StopDistanceOptions, stop_distance};
pub use suite::suite;

/// The image formats of a plot, chosen by the output file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    Png,
    Svg,
}

impl ImageFormat {
    /// The format of a file name's extension (`.png` or `.svg`, any case).
    pub fn from_path(path: &Path) -> Result<ImageFormat, PlotError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase());
        match ext.as_deref() {
            Some("png") => Ok(ImageFormat::Png),
            Some("svg") => Ok(ImageFormat::Svg),
            _ => Err(PlotError::Format(path.display().to_string())),
        }
    }
}

/// An error of drawing a plot.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("{0}: the extension must be .png or .svg")]
    Format(String),
    #[error("the envelope has no `{0}` grip table")]
    NoGripTable(Grip),
    #[error("{0}")]
    Input(String),
    #[error("drawing the plot: {0}")]
    Draw(String),
    /// The encoder's error is in the message, not a source, so that it is printed once.
    #[error("encoding the PNG: {0}")]
    Encode(png::EncodingError),
}

impl From<png::EncodingError> for PlotError {
    fn from(e: png::EncodingError) -> PlotError {
        PlotError::Encode(e)
    }
}

fn draw_err<E: std::fmt::Debug>(e: E) -> PlotError {
    PlotError::Draw(format!("{e:?}"))
}

/// The near-black of lines and text drawn over maps and images.
const INK: RGBColor = RGBColor(20, 20, 20);

/// A chart of two f64 axes.
type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Draws a chart's axes in the shared style: tick labels of `font` px, axis titles 2 px
/// larger, a light grid.
fn axes<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    x: &str,
    y: &str,
    font: u32,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_mesh()
        .x_desc(x)
        .y_desc(y)
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .label_style(("sans-serif", font))
        .axis_desc_style(("sans-serif", font + 2))
        .light_line_style(RGBColor(238, 238, 238))
        .draw()
        .map_err(draw_err)
}

/// A tick label without needless decimals: `45`, `2.5`, `0.25`.
fn tick(v: f64) -> String {
    let r = (v * 100.0).round() / 100.0;
    let s = format!("{r:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// The largest round length (1, 2 or 5 times a power of ten) not above `most`: a scale
/// bar's length.
fn round_at_most(most: f64) -> f64 {
    let mag = 10f64.powf(most.log10().floor());
    [5.0, 2.0, 1.0]
        .into_iter()
        .map(|k| k * mag)
        .find(|l| *l <= most)
        .unwrap_or(mag)
}

/// The runs of a polyline inside the box `x` × `y`, each segment cut where it crosses the
/// box's edge (Liang–Barsky): plotters draws a point outside the chart on its edge, which
/// would trace a false line along the border.
fn clip_runs(points: &[(f64, f64)], x: (f64, f64), y: (f64, f64)) -> Vec<Vec<(f64, f64)>> {
    let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
    for w in points.windows(2) {
        let Some((a, b)) = clip_segment(w[0], w[1], x, y) else {
            continue;
        };
        match runs.last_mut() {
            Some(run) if run.last() == Some(&a) => run.push(b),
            _ => runs.push(vec![a, b]),
        }
    }
    runs
}

/// The part of the segment `p`–`q` inside the box, where there is one.
fn clip_segment(
    p: (f64, f64),
    q: (f64, f64),
    x: (f64, f64),
    y: (f64, f64),
) -> Option<((f64, f64), (f64, f64))> {
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (den, num) in [
        (-dx, p.0 - x.0),
        (dx, x.1 - p.0),
        (-dy, p.1 - y.0),
        (dy, y.1 - p.1),
    ] {
        if den == 0.0 {
            if num < 0.0 {
                return None;
            }
        } else {
            let t = num / den;
            if den < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    let at = |t: f64| {
        if t == 0.0 {
            p
        } else if t == 1.0 {
            q
        } else {
            (p.0 + t * dx, p.1 + t * dy)
        }
    };
    (t0 <= t1).then(|| (at(t0), at(t1)))
}

/// Draws a chart's legend in the shared style at `pos`.
fn legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    pos: SeriesLabelPosition,
    font: u32,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(pos)
        .label_font(("sans-serif", font))
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(draw_err)
}

/// The corner of the plotting area where a legend of `size` pixels (width, height) covers
/// the fewest of `points` (data coordinates), upper right on a tie: the legend never
/// hides data that a free corner could spare.
fn clear_corner<DB: DrawingBackend>(
    chart: &Chart<'_, DB>,
    points: impl IntoIterator<Item = (f64, f64)>,
    (w, h): (i32, i32),
) -> SeriesLabelPosition {
    use SeriesLabelPosition::*;
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let (left, right) = (
        xr.start + 10..xr.start + 10 + w,
        xr.end - 10 - w..xr.end - 10,
    );
    let (top, bottom) = (
        yr.start + 10..yr.start + 10 + h,
        yr.end - 10 - h..yr.end - 10,
    );
    let corners = [
        (UpperRight, right.clone(), top.clone()),
        (UpperLeft, left.clone(), top),
        (LowerRight, right, bottom.clone()),
        (LowerLeft, left, bottom),
    ];
    let mut counts = [0usize; 4];
    for p in points {
        let (px, py) = chart.backend_coord(&p);
        for (k, (_, xs, ys)) in corners.iter().enumerate() {
            counts[k] += (xs.contains(&px) && ys.contains(&py)) as usize;
        }
    }
    let best = (0..4).min_by_key(|&k| counts[k]).unwrap_or(0);
    match best {
        0 => UpperRight,
        1 => UpperLeft,
        2 => LowerRight,
        _ => LowerLeft,
    }
}

/// A legend's size in pixels for `entries` lines of at most `chars` characters in a font
/// of `font` px (the sample drawn before each label included).
fn legend_size(entries: usize, chars: usize, font: u32) -> (i32, i32) {
    let f = font as i32;
    (
        chars as i32 * f * 6 / 10 + 50,
        entries as i32 * (f + 5) + 12,
    )
}

/// Registers the embedded font once per process.
fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font shipped by the `dejavu` crate.
        let _ = register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
        let _ = register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold());
    });
}

/// The size of the rendered images where none is asked for, pixels.
pub const SIZE: (u32, u32) = (1100, 720);

/// The smallest and the largest side of an image, pixels.
pub const SIDE_RANGE: (u32, u32) = (320, 8000);

/// What to render: the format, and the size in pixels (None: the plot's own, which for a
/// map-like plot follows the aspect of what it shows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageSpec {
    pub format: ImageFormat,
    pub size: Option<(u32, u32)>,
}

impl From<ImageFormat> for ImageSpec {
    fn from(format: ImageFormat) -> ImageSpec {
        ImageSpec { format, size: None }
    }
}

impl ImageSpec {
    /// The size asked for, or `SIZE`.
    fn size_or_default(&self) -> (u32, u32) {
        self.size.unwrap_or(SIZE)
    }
}

/// Renders with either backend at `size` and returns the encoded bytes.
fn render(
    format: ImageFormat,
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<BitMapBackend, Shift>) -> Result<(), PlotError>,
    draw_svg: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<(), PlotError>,
) -> Result<Vec<u8>, PlotError> {
    register_fonts();
    let (w, h) = size;
    match format {
        ImageFormat::Png => {
            let mut rgb = vec![0u8; (w * h * 3) as usize];
            {
                let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
                draw(&root)?;
                root.present().map_err(draw_err)?;
            }
            encode_png(w, h, &rgb)
        }
        ImageFormat::Svg => {
            let mut s = String::new();
            {
                let root = SVGBackend::with_string(&mut s, (w, h)).into_drawing_area();
                draw_svg(&root)?;
                root.present().map_err(draw_err)?;
            }
            Ok(embed_font(&s).into_bytes())
        }
    }
}

/// The font family of the embedded font in an SVG.
const SVG_FONT: &str = "acres DejaVu Sans";

/// An SVG whose text is drawn in the font the PNGs use: the font (DejaVu Sans, bold too
/// where used) is embedded as an `@font-face` data URL and every text names it first, so
/// that the SVG looks the same in every viewer (one falls back to its sans-serif where it
/// ignores embedded fonts). The font is subset to the characters the SVG holds (all of
/// printable ASCII, and every other character that occurs): about a tenth of its size.
fn embed_font(svg: &str) -> String {
    use base64::Engine;
    let Some(head_end) = svg.find('>').map(|i| i + 1) else {
        return svg.to_string();
    };
    let face = |weight: &str, bytes: &[u8]| {
        let font = subset_font(bytes, svg);
        format!(
            "@font-face{{font-family:'{SVG_FONT}';font-weight:{weight};src:url(data:font/ttf;base64,{})}}",
            base64::engine::general_purpose::STANDARD.encode(&font)
        )
    };
    let mut style = face("normal", dejavu::sans::regular());
    if svg.contains("font-weight=\"bold\"") {
        style.push_str(&face("bold", dejavu::sans::bold()));
    }
    let body = svg[head_end..].replace(
        "font-family=\"sans-serif\"",
        &format!("font-family=\"'{SVG_FONT}', sans-serif\""),
    );
    format!(
        "{}\n<defs><style>{style}</style></defs>{body}",
        &svg[..head_end]
    )
}

/// The font with the outlines of the glyphs `text` needs (printable ASCII always, so that
/// escapes and digits need no care) and no others; the glyph numbers and the character
/// map stay, so the subset is a font any viewer reads. The whole font where subsetting
/// fails (it does not for the shipped font; a test holds it).
fn subset_font(font: &[u8], text: &str) -> Vec<u8> {
    use ab_glyph::Font;
    let Ok(face) = ab_glyph::FontRef::try_from_slice(font) else {
        return font.to_vec();
    };
    let mut chars: Vec<char> = (' '..='~').chain(text.chars()).collect();
    chars.sort_unstable();
    chars.dedup();
    let mut glyphs: Vec<u16> = chars.iter().map(|&c| face.glyph_id(c).0).collect();
    glyphs.push(0);
    glyphs.sort_unstable();
    glyphs.dedup();
    subsetter::subset(font, 0, subsetter::Profile::pdf(&glyphs)).unwrap_or_else(|_| font.to_vec())
}

/// An 8-bit RGB image as PNG bytes.
fn encode_png(w: u32, h: u32, rgb: &[u8]) -> Result<Vec<u8>, PlotError> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The subset font keeps the outlines of the characters the text holds (and of
    /// printable ASCII), drops the others, keeps its character map and is a tenth of the
    /// whole; a viewer reads it as a font (parsed here by ab_glyph, a peer of plotters).
    #[test]
    fn the_embedded_font_is_subset_to_the_text() {
        use ab_glyph::Font;
        let whole = dejavu::sans::regular();
        let sub = subset_font(whole, "d_stop(v) = v·T + v²/(2a), κ");
        assert!(
            sub.len() * 5 < whole.len(),
            "{} of {}",
            sub.len(),
            whole.len()
        );
        let face = ab_glyph::FontRef::try_from_slice(&sub).unwrap();
        for c in ['d', '²', 'κ', '·', 'Q', '~'] {
            let g = face.glyph_id(c);
            assert!(g.0 != 0, "{c} is in the character map");
            assert!(face.outline(g).is_some(), "{c} keeps its outline");
        }
        for c in ['Ж', 'ß', '€'] {
            let g = face.glyph_id(c);
            assert!(g.0 != 0, "the character map stays whole");
            assert!(face.outline(g).is_none(), "{c} was dropped");
        }
        let svg = embed_font("<svg><text font-family=\"sans-serif\">d_c 1.5 m²</text></svg>");
        assert!(svg.len() < 160_000, "{} bytes", svg.len());
    }

    #[test]
    fn round_lengths_are_at_most_the_room() {
        for (most, want) in [
            (212.0, 200.0),
            (100.0, 100.0),
            (99.9, 50.0),
            (0.3, 0.2),
            (7.0, 5.0),
        ] {
            assert_eq!(round_at_most(most), want, "{most}");
        }
    }

    #[test]
    fn format_from_extension() {
        assert_eq!(
            ImageFormat::from_path(Path::new("a.PNG")).unwrap(),
            ImageFormat::Png
        );
        assert_eq!(
            ImageFormat::from_path(Path::new("x/a.svg")).unwrap(),
            ImageFormat::Svg
        );
        let e = ImageFormat::from_path(Path::new("a.jpg")).unwrap_err();
        assert!(e.to_string().contains("a.jpg"));
    }

    #[test]
    fn polylines_are_cut_at_the_box() {
        let line = [
            (-5.0, 0.0),
            (1.0, 0.0),
            (2.0, 0.0),
            (20.0, 0.0),
            (4.0, 0.5),
            (4.0, 5.0),
        ];
        let runs = clip_runs(&line, (0.0, 10.0), (-1.0, 1.0));
        assert_eq!(
            runs,
            vec![
                vec![(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (10.0, 0.0)],
                vec![(10.0, 0.3125), (4.0, 0.5), (4.0, 1.0)],
            ]
        );
        // A segment across the whole box with both ends outside is kept, cut at both.
        assert_eq!(
            clip_runs(&[(-10.0, 0.0), (20.0, 0.0)], (0.0, 10.0), (-1.0, 1.0)),
            vec![vec![(0.0, 0.0), (10.0, 0.0)]]
        );
        assert!(clip_runs(&line, (30.0, 40.0), (0.0, 1.0)).is_empty());
        assert_eq!(tick(45.0), "45");
        assert_eq!(tick(2.5), "2.5");
        assert_eq!(tick(-0.001), "0");
        assert_eq!(tick(0.25), "0.25");
    }

    #[test]
    fn svg_has_the_annotation_and_labels() {
        let opts = StopDistanceOptions {
            grip: Grip::Unknown,
            max_speed_mps: 9.0,
        };
        let svg = stop_distance(&Config::builtin(), opts, ImageFormat::Svg).unwrap();
        let svg = String::from_utf8(svg).unwrap();
        assert!(svg.contains("7.8 m/s on asphalt: d_stop = 35.65 m, 4.35 m to spare"));
        assert!(svg.contains("scan reach 40 m"));
        assert!(svg.contains("speed v (m/s)"));
        assert!(svg.contains("gravel"));
        // The font travels with the SVG, and every text names it.
        assert!(svg.contains("@font-face{font-family:'acres DejaVu Sans'"));
        assert!(!svg.contains("font-family=\"sans-serif\""));
        // The inset near 7.8 m/s names each curve by its margin.
        assert!(svg.contains("near 7.8 m/s"));
        for dm in ["d_m 2.5 m", "d_m 2.4 m", "d_m 2.6 m", "d_m 2.1 m"] {
            assert!(svg.contains(dm), "{dm}");
        }
        // Whole-number ticks without decimals.
        assert!(svg.contains(">\n45\n<") && !svg.contains(">\n45.0\n<"));
    }

    #[test]
    fn bad_inputs_are_errors() {
        let mut c = Config::builtin();
        c.envelope.grips.dry = None;
        let opts = StopDistanceOptions {
            grip: Grip::Dry,
            max_speed_mps: 9.0,
        };
        assert!(matches!(
            stop_distance(&c, opts, ImageFormat::Svg),
            Err(PlotError::NoGripTable(Grip::Dry))
        ));
        let opts = StopDistanceOptions {
            grip: Grip::Unknown,
            max_speed_mps: f64::NAN,
        };
        assert!(matches!(
            stop_distance(&c, opts, ImageFormat::Png),
            Err(PlotError::Input(_))
        ));
    }
}
