//! GeoTIFF rasters read as maps (docs/formats.md "GeoTIFF maps"): one band of integer class
//! values or of elevation, placed by its GeoTIFF georeference (a pixel scale with a tie
//! point, or a model transformation without rotation) and its CRS from the GeoKeys.
//!
//! The GeoTIFF 1.1 keys read: GTModelTypeGeoKey (1024), GTRasterTypeGeoKey (1025: a
//! PixelIsPoint tie point names a pixel's centre, half a pixel in from its corner),
//! GeographicTypeGeoKey (2048), ProjectedCSTypeGeoKey (3072) and ProjLinearUnitsGeoKey
//! (3076). GDAL's nodata tag (42113) marks missing elevation.

use crate::formats::map_manifest::{Image, MAX_MAP_PIXELS, MapError, err};
use crate::ground::Crs;
use crate::ground::map::{Grid, MapClass};
use std::path::Path as FsPath;
use tiff::decoder::{Decoder, DecodingResult, Limits};
use tiff::tags::Tag;

/// A source the decoder can seek in: a file, or bytes in memory.
pub trait ReadSeek: std::io::Read + std::io::Seek {}
impl<T: std::io::Read + std::io::Seek> ReadSeek for T {}

/// A band of a GeoTIFF with its place, its pixels still in the file: they are decoded a
/// strip or tile at a time straight into the grid that is built of them, so that a map's
/// peak memory is its grid and one chunk, not the file's pixels as well (a 16384² float64
/// elevation took 3.15 GB; issue 63). Row 0 is the north edge.
pub struct GeoBand {
    pub width: usize,
    pub height: usize,
    pub resolution_m: f64,
    /// The world position of the lower-left corner.
    pub origin_m: [f64; 2],
    pub crs: Option<Crs>,
    /// Why the CRS the file names cannot be used (a user-defined projection, a datum acres
    /// cannot shift): the map still reads, in its own metres, and a route on the Earth is
    /// refused with this reason.
    pub crs_note: Option<String>,
    pub nodata: Option<f64>,
    integer: bool,
    dec: Decoder<Box<dyn ReadSeek>>,
}

impl std::fmt::Debug for GeoBand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeoBand")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("resolution_m", &self.resolution_m)
            .field("origin_m", &self.origin_m)
            .field("crs", &self.crs)
            .field("crs_note", &self.crs_note)
            .field("nodata", &self.nodata)
            .finish_non_exhaustive()
    }
}

/// The values of a decoded chunk as f64, in order: every integer and float type of the
/// file fits exactly, up to 2⁵³.
fn chunk_values(data: &DecodingResult) -> Box<dyn ExactSizeIterator<Item = f64> + '_> {
    match data {
        DecodingResult::U8(v) => Box::new(v.iter().map(|&x| f64::from(x))),
        DecodingResult::U16(v) => Box::new(v.iter().map(|&x| f64::from(x))),
        DecodingResult::U32(v) => Box::new(v.iter().map(|&x| f64::from(x))),
        DecodingResult::U64(v) => Box::new(v.iter().map(|&x| x as f64)),
        DecodingResult::I8(v) => Box::new(v.iter().map(|&x| f64::from(x))),
        DecodingResult::I16(v) => Box::new(v.iter().map(|&x| f64::from(x))),
        DecodingResult::I32(v) => Box::new(v.iter().map(|&x| f64::from(x))),
        DecodingResult::I64(v) => Box::new(v.iter().map(|&x| x as f64)),
        DecodingResult::F32(v) => Box::new(v.iter().map(|&x| f64::from(x))),
        DecodingResult::F64(v) => Box::new(v.iter().copied()),
    }
}

impl GeoBand {
    /// Whether the pixels are of an integer type (a class raster must be).
    pub fn is_integer(&self) -> bool {
        self.integer
    }

    /// Decodes the pixels a chunk at a time and hands each to `f` with its index in the
    /// grid (row-major from the north edge); the chunks must tile the image exactly.
    fn each_value(
        &mut self,
        path: &FsPath,
        mut f: impl FnMut(usize, f64) -> Result<(), MapError>,
    ) -> Result<(), MapError> {
        let t = |e: tiff::TiffError| tiff_error(path, e);
        let (w, h) = (self.width, self.height);
        let (cw, ch) = self.dec.chunk_dimensions();
        let (cw, ch) = ((cw as usize).min(w), (ch as usize).min(h));
        let count = match self.dec.get_chunk_type() {
            tiff::decoder::ChunkType::Strip => self.dec.strip_count(),
            tiff::decoder::ChunkType::Tile => self.dec.tile_count(),
        }
        .map_err(t)? as usize;
        if cw == 0 || ch == 0 || count != w.div_ceil(cw) * h.div_ceil(ch) {
            return Err(err(path, "the image's chunks do not tile its size"));
        }
        let across = w.div_ceil(cw);
        for i in 0..count {
            let (x0, y0) = ((i % across) * cw, (i / across) * ch);
            let (dw, dh) = (cw.min(w - x0), ch.min(h - y0));
            let data = self.dec.read_chunk(i as u32).map_err(t)?;
            let values = chunk_values(&data);
            if values.len() != dw * dh {
                return Err(err(path, "the image's pixels do not match its size"));
            }
            for (n, v) in values.enumerate() {
                f((y0 + n / dw) * w + x0 + n % dw, v)?;
            }
        }
        Ok(())
    }

    /// A grid of `cells` in the band's place.
    fn grid<T>(&self, cells: Vec<T>) -> Grid<T> {
        Grid {
            width: self.width,
            height: self.height,
            resolution_m: self.resolution_m,
            origin_m: self.origin_m,
            cells,
        }
    }
}

/// Where the raster lies: its cell size and the world position of its lower-left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Place {
    resolution_m: f64,
    origin_m: [f64; 2],
}

/// Reads the first image of a GeoTIFF as one band with its georeference; `path` names the
/// file in errors. A file without a georeference, with rotated or non-square pixels, more
/// than one sample a pixel, or more than [`MAX_MAP_PIXELS`] pixels is refused.
pub fn read_band(path: &FsPath, image: Image) -> Result<GeoBand, MapError> {
    let t = |e: tiff::TiffError| tiff_error(path, e);
    let mut limits = Limits::default();
    limits.decoding_buffer_size = (MAX_MAP_PIXELS * 8) as usize;
    limits.intermediate_buffer_size = (MAX_MAP_PIXELS * 8) as usize;
    let input: Box<dyn ReadSeek> = match image {
        Image::Bytes(b) => Box::new(std::io::Cursor::new(b)),
        Image::File(f) => Box::new(f),
    };
    let mut dec = Decoder::new(input).map_err(t)?.with_limits(limits);
    let (w, h) = dec.dimensions().map_err(t)?;
    if w as u64 * h as u64 > MAX_MAP_PIXELS {
        return Err(err(
            path,
            format!("the image claims {w} × {h} pixels, more than the limit of {MAX_MAP_PIXELS}"),
        ));
    }
    // The band count first, from its tag: the decoder refuses many multi-band layouts
    // (4 bands of 16 bits) with a message of its own that says nothing of bands.
    let bands = dec
        .find_tag_unsigned::<u32>(Tag::SamplesPerPixel)
        .ok()
        .flatten()
        .unwrap_or(1);
    if bands != 1 {
        return Err(err(
            path,
            format!(
                "a map GeoTIFF must have one band, this one has {bands} (take one out with \
                 `gdal_translate -b 1 IN OUT`)"
            ),
        ));
    }
    match dec.colortype().map_err(t)? {
        tiff::ColorType::Gray(_) => {}
        other => {
            return Err(err(
                path,
                format!("a map GeoTIFF must have one band, this one is {other:?}"),
            ));
        }
    }
    let keys = geo_keys(&mut dec);
    // The CRS first: a raster in degrees is refused as such, not for its tiny pixels.
    let (crs, crs_note) = crs_of(path, &keys, &user_keys(&mut dec))?;
    let place = place(path, &mut dec, &keys, h)?;
    let nodata = dec
        .get_tag_ascii_string(Tag::GdalNodata)
        .ok()
        .and_then(|s| s.trim().trim_end_matches('\0').parse::<f64>().ok());
    let integer = !is_float(&mut dec);
    Ok(GeoBand {
        width: w as usize,
        height: h as usize,
        resolution_m: place.resolution_m,
        origin_m: place.origin_m,
        crs,
        crs_note,
        nodata,
        integer,
        dec,
    })
}

/// The decoder's error, cut to 300 characters: it may list a tag of any length (a
/// fuzzed file's BitsPerSample of 40,000 values made a message of 260 kB).
fn tiff_error(path: &FsPath, e: tiff::TiffError) -> MapError {
    let mut m = e.to_string();
    if let Some((cut, _)) = m.char_indices().nth(300) {
        m.truncate(cut);
        m.push_str(" …");
    }
    err(path, format!("GeoTIFF: {m}"))
}

/// Whether the samples are IEEE floats (SampleFormat 3).
fn is_float<R: std::io::Read + std::io::Seek>(dec: &mut Decoder<R>) -> bool {
    dec.find_tag_unsigned_vec::<u16>(Tag::SampleFormat)
        .ok()
        .flatten()
        .is_some_and(|f| f.first() == Some(&3))
}

/// The GeoKey directory as (key, value) pairs of the keys held in the directory itself
/// (the SHORT-valued keys; the others are not needed here). No directory: no keys.
fn geo_keys<R: std::io::Read + std::io::Seek>(dec: &mut Decoder<R>) -> Vec<(u16, u16)> {
    let Ok(dir) = dec.get_tag_u16_vec(Tag::GeoKeyDirectoryTag) else {
        return Vec::new();
    };
    let n = dir.get(3).copied().unwrap_or(0) as usize;
    dir.get(4..)
        .unwrap_or(&[])
        .chunks_exact(4)
        .take(n)
        .filter(|k| k[1] == 0)
        .map(|k| (k[0], k[3]))
        .collect()
}

fn key(keys: &[(u16, u16)], id: u16) -> Option<u16> {
    keys.iter().find(|k| k.0 == id).map(|k| k.1)
}

/// The raster's place from its pixel scale and first tie point, or its model
/// transformation; refused where rotated, sheared, non-square or not finite.
fn place<R: std::io::Read + std::io::Seek>(
    path: &FsPath,
    dec: &mut Decoder<R>,
    keys: &[(u16, u16)],
    h: u32,
) -> Result<Place, MapError> {
    let (sx, sy, tie) = if let Ok(m) = dec.get_tag_f64_vec(Tag::ModelTransformationTag) {
        if m.len() < 16 || m[1] != 0.0 || m[4] != 0.0 {
            return Err(err(
                path,
                "the GeoTIFF's model transformation turns or shears the pixels; acres reads \
                 north-up rasters (warp it north-up first)",
            ));
        }
        (m[0], -m[5], [0.0, 0.0, m[3], m[7]])
    } else {
        let scale = dec.get_tag_f64_vec(Tag::ModelPixelScaleTag);
        let tie = dec.get_tag_f64_vec(Tag::ModelTiepointTag);
        match (scale, tie) {
            (Ok(s), Ok(t)) if s.len() >= 2 && t.len() >= 6 => {
                (s[0], s[1], [t[0], t[1], t[3], t[4]])
            }
            _ => {
                return Err(err(
                    path,
                    "the TIFF has no georeference (no ModelPixelScale and ModelTiepoint, nor \
                     ModelTransformation): it is not a GeoTIFF",
                ));
            }
        }
    };
    if !(sx.is_finite() && sy.is_finite() && sx > 0.0 && sy > 0.0)
        || tie.iter().any(|v| !v.is_finite())
    {
        return Err(err(
            path,
            "the GeoTIFF's pixel scale or tie point is not a positive finite number",
        ));
    }
    if ((sx - sy) / sx).abs() > 1e-9 {
        return Err(err(
            path,
            format!("the GeoTIFF's pixels are {sx} × {sy} m; acres maps need square cells"),
        ));
    }
    // PixelIsPoint: the tie point names the centre of its pixel.
    let half = if key(keys, 1025) == Some(2) { 0.5 } else { 0.0 };
    let left = tie[2] - (tie[0] + half) * sx;
    let top = tie[3] + (tie[1] + half) * sx;
    use crate::formats::bounds as b;
    let bound = |m: String| err(path, format!("the GeoTIFF's {m}"));
    b::resolution("pixel scale", sx).map_err(bound)?;
    b::position("left edge", left).map_err(bound)?;
    b::position("top edge", top).map_err(bound)?;
    b::position("bottom edge", top - h as f64 * sx).map_err(bound)?;
    Ok(Place {
        resolution_m: sx,
        origin_m: [left, top - h as f64 * sx],
    })
}

/// The CRS of the GeoKeys: a projected CRS by EPSG code in metres, none where the file
/// names none (or a user-defined one, which has no code); a geographic model is refused.
/// The CRS a GeoTIFF names, or why it cannot be used. A CRS in degrees or in a unit other
/// than the metre is refused (the map's own cells would not be metres); an EPSG code acres
/// cannot convert, or a user-defined projection that is not a UTM zone on WGS 84, leaves
/// the map in its own metres with the reason.
fn crs_of(
    path: &FsPath,
    keys: &[(u16, u16)],
    user: &UserKeys,
) -> Result<(Option<Crs>, Option<String>), MapError> {
    if key(keys, 1024) == Some(2) {
        let code = key(keys, 2048).map_or("a geographic CRS".into(), |c| format!("EPSG:{c}"));
        return Err(err(
            path,
            format!(
                "the GeoTIFF is in {code}, in degrees; acres maps are in metres: reproject it to \
                 a projected CRS (for instance its UTM zone)"
            ),
        ));
    }
    if let Some(u) = key(keys, 3076)
        && u != 9001
    {
        return Err(err(
            path,
            format!("the GeoTIFF's linear unit is EPSG:{u}, not the metre (9001)"),
        ));
    }
    let code = match key(keys, 3072) {
        None if key(keys, 3075).is_none() => return Ok((None, None)),
        None | Some(32767) => match user.utm_zone(keys) {
            Some(code) => code,
            None => return Ok((None, Some(user.describe(keys)))),
        },
        Some(code) => u32::from(code),
    };
    Ok(match Crs::from_epsg(code) {
        Ok(c) => (Some(c), None),
        Err(m) => (None, Some(m)),
    })
}

/// What a user-defined CRS's GeoKeys hold besides short values: the GeoKey directory's
/// double parameters and its citation text.
#[derive(Default)]
struct UserKeys {
    /// GeoKey id → its double values (GeoDoubleParamsTag).
    doubles: Vec<(u16, Vec<f64>)>,
    /// The citations (GTCitation, PCSCitation, GeogCitation), joined.
    citation: String,
}

fn user_keys<R: std::io::Read + std::io::Seek>(dec: &mut Decoder<R>) -> UserKeys {
    let Ok(dir) = dec.get_tag_u16_vec(Tag::GeoKeyDirectoryTag) else {
        return UserKeys::default();
    };
    let doubles = dec
        .get_tag_f64_vec(Tag::GeoDoubleParamsTag)
        .unwrap_or_default();
    let ascii = dec
        .get_tag_ascii_string(Tag::GeoAsciiParamsTag)
        .unwrap_or_default();
    let n = dir.get(3).copied().unwrap_or(0) as usize;
    let mut out = UserKeys::default();
    for k in dir.get(4..).unwrap_or(&[]).chunks_exact(4).take(n) {
        let (id, at, count, off) = (k[0], k[1], k[2] as usize, k[3] as usize);
        if at == 34736 {
            let v = doubles.get(off..off.saturating_add(count)).unwrap_or(&[]);
            out.doubles.push((id, v.to_vec()));
        } else if at == 34737 && matches!(id, 1026 | 2049 | 3073) {
            let text = ascii.get(off..off.saturating_add(count)).unwrap_or("");
            for part in text.split('|').map(str::trim) {
                let part = esri_name(part).unwrap_or(part);
                let lower = part.to_ascii_lowercase();
                let noise = lower.ends_with("= unknown")
                    || lower.starts_with("primem =")
                    || lower.starts_with("gcs name =");
                let seen = out.citation.split("; ").any(|c| c == part);
                if part.is_empty() || lower == "unknown" || noise || seen {
                    continue;
                }
                if !out.citation.is_empty() {
                    out.citation.push_str("; ");
                }
                out.citation.push_str(part);
            }
        }
    }
    out.citation.truncate(200);
    out
}

/// The name an ESRI PE string citation gives its CRS (`ESRI PE String = PROJCS["name",...`).
fn esri_name(citation: &str) -> Option<&str> {
    let rest = citation.strip_prefix("ESRI PE String = ")?;
    let rest = rest.split_once('"')?.1;
    Some(rest.split_once('"')?.0)
}

/// GeoTIFF's projection methods (ProjCoordTransGeoKey, 3075), by name.
fn method_name(code: u16) -> String {
    match code {
        1 => "Transverse Mercator".into(),
        3 => "Oblique Mercator".into(),
        7 => "Mercator".into(),
        8 => "Lambert Conformal Conic (2 parallels)".into(),
        9 => "Lambert Conformal Conic (1 parallel)".into(),
        10 => "Lambert Azimuthal Equal Area".into(),
        11 => "Albers Equal Area".into(),
        12 => "Azimuthal Equidistant".into(),
        14 => "Stereographic".into(),
        15 => "Polar Stereographic".into(),
        16 => "Oblique Stereographic".into(),
        c => format!("projection method {c}"),
    }
}

/// A projection parameter's GeoKey by the name PROJ gives it.
fn param_name(id: u16) -> Option<&'static str> {
    Some(match id {
        3078 => "lat_1",
        3079 => "lat_2",
        3080 | 3084 | 3088 | 3095 => "lon_0",
        3081 | 3085 | 3089 => "lat_0",
        3082 | 3086 | 3090 => "x_0",
        3083 | 3087 | 3091 => "y_0",
        3092 | 3093 => "k_0",
        3094 => "alpha",
        _ => return None,
    })
}

impl UserKeys {
    fn get(&self, id: u16) -> Option<f64> {
        self.doubles
            .iter()
            .find(|d| d.0 == id)
            .and_then(|d| d.1.first().copied())
    }

    /// Whether the datum is WGS 84: GeogGeodeticDatum 6326 or GeographicType 4326, or a
    /// user-defined datum on the WGS 84 ellipsoid (7030) shifted by nothing
    /// (GeogTOWGS84 all zeros), as GDAL writes `+ellps=WGS84 +towgs84=0,0,0`.
    fn wgs84(&self, keys: &[(u16, u16)]) -> bool {
        let no_shift = self
            .doubles
            .iter()
            .find(|d| d.0 == 2062)
            .is_some_and(|d| !d.1.is_empty() && d.1.iter().all(|&v| v == 0.0));
        key(keys, 2050) == Some(6326)
            || key(keys, 2048) == Some(4326)
            || key(keys, 2056) == Some(7030) && no_shift
    }

    /// The EPSG code of a user-defined Transverse Mercator that is a UTM zone on WGS 84
    /// (scale 0.9996 at a zone's central meridian, false easting 500 km, false northing 0
    /// or 10,000 km): 326NN north, 327NN south.
    fn utm_zone(&self, keys: &[(u16, u16)]) -> Option<u32> {
        if !self.wgs84(keys) {
            return None;
        }
        // ProjectionGeoKey: 16001–16060 UTM zones north, 16101–16160 south.
        match key(keys, 3074) {
            Some(p @ 16001..=16060) => return Some(32600 + u32::from(p - 16000)),
            Some(p @ 16101..=16160) => return Some(32700 + u32::from(p - 16100)),
            _ => {}
        }
        if key(keys, 3075) != Some(1) {
            return None;
        }
        let lon0 = self.get(3080).or(self.get(3088))?;
        let zone = (lon0 + 183.0) / 6.0;
        let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
        let utm = near(zone, zone.round())
            && (1.0..=60.0).contains(&zone.round())
            && near(self.get(3081).unwrap_or(0.0), 0.0)
            && near(self.get(3092).or(self.get(3093))?, 0.9996)
            && near(self.get(3082)?, 500_000.0);
        let north = self.get(3083).unwrap_or(0.0);
        match (utm, north) {
            (true, n) if near(n, 0.0) => Some(32600 + zone.round() as u32),
            (true, n) if near(n, 10_000_000.0) => Some(32700 + zone.round() as u32),
            _ => None,
        }
    }

    /// What a user-defined CRS is, for the refusal: its method, datum, parameters and
    /// citation, and what to do.
    fn describe(&self, keys: &[(u16, u16)]) -> String {
        let method = match (key(keys, 3075), key(keys, 3074)) {
            (Some(m), _) => method_name(m),
            (None, Some(p)) if p != 32767 => format!("projection EPSG:{p}"),
            _ => "an unnamed projection".into(),
        };
        let datum = match (key(keys, 2050), key(keys, 2048)) {
            _ if self.wgs84(keys) => "WGS 84".to_string(),
            (Some(d), _) if d != 32767 => format!("datum EPSG:{d}"),
            (_, Some(g)) if g != 32767 => format!("geographic CRS EPSG:{g}"),
            _ => "a user-defined datum".to_string(),
        };
        let params: Vec<String> = self
            .doubles
            .iter()
            .filter_map(|(id, v)| Some(format!("{} {}", param_name(*id)?, v.first()?)))
            .collect();
        let cited = if self.citation.is_empty() {
            String::new()
        } else {
            format!(", cited as \"{}\"", self.citation)
        };
        format!(
            "a user-defined CRS, {method} on {datum} ({}){cited}, which is no EPSG CRS acres can \
             convert; reproject the map to a WGS 84 CRS in metres, such as its UTM zone: \
             `gdalwarp -t_srs EPSG:326NN IN.tif OUT.tif` (327NN south of the equator)",
            if params.is_empty() {
                "no parameters".into()
            } else {
                params.join(", ")
            }
        )
    }
}

/// A class grid of an integer band through the legend's lookup; the band's nodata value
/// is unknown ground (unless the legend names it), and a value the legend does not name
/// is an error naming the pixel.
pub fn class_grid(
    path: &FsPath,
    mut band: GeoBand,
    lut: &[Option<MapClass>; 256],
) -> Result<Grid<MapClass>, MapError> {
    if !band.is_integer() {
        return Err(err(path, "a class GeoTIFF must hold integers, not floats"));
    }
    // Every cell is written below (the chunks tile the image); obstacle until then.
    let width = band.width;
    let nodata = band.nodata;
    let mut cells = vec![MapClass::Obstacle; band.width * band.height];
    band.each_value(path, |i, v| {
        let class = (0.0..=255.0)
            .contains(&v)
            .then(|| lut[v as usize])
            .flatten()
            .or((Some(v) == nodata).then_some(MapClass::Unknown));
        match class {
            Some(c) => {
                cells[i] = c;
                Ok(())
            }
            None => Err(err(
                path,
                format!(
                    "pixel ({}, {}) has the value {v}, which the legend does not name",
                    i % width,
                    i / width
                ),
            )),
        }
    })?;
    Ok(band.grid(cells))
}

/// An elevation grid of a band: `offset_m + scale_m × value`; nodata cells (and NaN) are
/// NaN, which the elevation's readers take as no elevation there.
pub fn elevation_grid(
    path: &FsPath,
    mut band: GeoBand,
    scale_m: f64,
    offset_m: f64,
) -> Result<Grid<f32>, MapError> {
    let nodata = band.nodata;
    let mut cells = vec![f32::NAN; band.width * band.height];
    band.each_value(path, |i, v| {
        if Some(v) != nodata && !v.is_nan() {
            cells[i] = (offset_m + scale_m * v) as f32;
        }
        Ok(())
    })?;
    Ok(band.grid(cells))
}

#[cfg(test)]
mod tests {
    use crate::ground::{Map, MapClass};
    use std::path::PathBuf;

    fn data(name: &str) -> PathBuf {
        crate::formats::test_data(&format!("geotiff/{name}"))
    }

    /// The maps written by rasterio (tests/data/geotiff/make.py): the class raster's place,
    /// CRS and classes, with the lane and the barn where the script put them.
    #[test]
    fn a_class_geotiff_from_rasterio_lands_in_its_place() {
        let m = Map::load(&data("map.json")).unwrap();
        let g = &m.classes;
        assert_eq!((g.width, g.height, g.resolution_m), (80, 60, 0.5));
        assert_eq!(g.origin_m, [500_000.0, 4_983_000.0 - 30.0]);
        assert_eq!(m.crs.unwrap().epsg(), 32615);
        assert_eq!(g.at(500_010.0, 4_982_982.0), Some(MapClass::Gravel));
        assert_eq!(g.at(500_010.0, 4_982_978.0), Some(MapClass::Field));
        assert_eq!(g.at(500_032.0, 4_982_988.0), Some(MapClass::Obstacle));
        assert_eq!(g.at(500_028.0, 4_982_988.0), Some(MapClass::Field));
        assert_eq!(g.at(499_999.9, 4_982_982.0), None);
        // The same file alone, read with the shipped legend (3 gravel, 7 field, 9 obstacle).
        let alone = Map::load(&data("classes.tif")).unwrap();
        assert_eq!(alone.classes, m.classes);
        assert_eq!(alone.name, "classes");
    }

    /// CRSs without a plain EPSG code, as rasterio writes them (make.py): UTM zone 15N as
    /// user-defined keys, or as an ESRI PE string, is mapped to EPSG:32615; a user-defined
    /// Lambert conic (also as an ESRI PE string, named by it) and NAD27 leave the map in
    /// its own metres with the reason, which refuses a lon/lat route and lets a route in
    /// the map's metres through.
    #[test]
    fn crss_without_an_epsg_code_are_mapped_or_named() {
        use crate::chain::path::Path;
        use crate::ground::MapCrs;
        let plain = Map::load(&data("classes.tif")).unwrap();
        let utm = Map::load(&data("utm_user.tif")).unwrap();
        assert_eq!(utm.crs.map(|c| c.epsg()), Some(32615));
        assert_eq!((utm.classes, utm.crs_note), (plain.classes.clone(), None));
        let esri = Map::load(&data("utm_esri.tif")).unwrap();
        assert_eq!(esri.crs.map(|c| c.epsg()), Some(32615));
        let lonlat = data("route_lonlat.geojson");
        let metres = r#"{"type": "Feature", "properties": {"speed_mps": 3.0},
            "crs": {"type": "name", "properties": {"name": "acres:map"}},
            "geometry": {"type": "LineString",
                         "coordinates": [[500002, 4982982], [500038, 4982982]]}}"#;
        for (file, says) in [
            (
                "lcc_user.tif",
                ["Lambert Conformal Conic (2 parallels)", "lat_1 33"],
            ),
            ("nad27.tif", ["EPSG:26715", "NAD27"]),
            (
                "lcc_esri.tif",
                ["Lambert Conformal Conic", "cited as \"Farm_Lambert\","],
            ),
        ] {
            let m = Map::load(&data(file)).unwrap();
            assert_eq!((m.crs, &m.classes), (None, &plain.classes), "{file}");
            let note = m.crs_note.clone().unwrap_or_default();
            assert!(says.iter().all(|w| note.contains(w)), "{file}: {note}");
            assert!(note.contains("gdalwarp -t_srs EPSG:326NN"), "{note}");
            assert!(matches!(m.route_crs(), MapCrs::Unusable(_)));
            let e = Path::load_on(&lonlat, m.route_crs())
                .unwrap_err()
                .to_string();
            assert!(e.contains("cannot be used") && e.contains(says[0]), "{e}");
            let p = Path::from_json_str_on("m.geojson", metres, m.route_crs()).unwrap();
            assert_eq!(p.point(1).x, 500_038.0);
        }
    }

    /// A user-defined Transverse Mercator is a UTM zone on WGS 84 only with all of a
    /// zone's parameters: north and south false northings give 326NN and 327NN; a
    /// meridian half a degree off, a scale of 1, or another datum give none.
    #[test]
    fn only_a_whole_utm_zone_maps_to_its_code() {
        let tm = |lon0: f64, k: f64, north: f64| super::UserKeys {
            doubles: vec![
                (3080, vec![lon0]),
                (3081, vec![0.0]),
                (3082, vec![500_000.0]),
                (3083, vec![north]),
                (3092, vec![k]),
            ],
            citation: String::new(),
        };
        let wgs = [(3075, 1), (2050, 6326)];
        assert_eq!(tm(-93.0, 0.9996, 0.0).utm_zone(&wgs), Some(32615));
        assert_eq!(tm(-93.0, 0.9996, 1e7).utm_zone(&wgs), Some(32715));
        assert_eq!(tm(177.0, 0.9996, 0.0).utm_zone(&wgs), Some(32660));
        assert_eq!(tm(-93.5, 0.9996, 0.0).utm_zone(&wgs), None);
        assert_eq!(tm(-93.0, 1.0, 0.0).utm_zone(&wgs), None);
        assert_eq!(tm(-93.0, 0.9996, 5.0).utm_zone(&wgs), None);
        assert_eq!(
            tm(-93.0, 0.9996, 0.0).utm_zone(&[(3075, 1), (2050, 6267)]),
            None
        );
    }

    /// A PixelIsPoint file's tie point names a pixel's centre: the raster lies where the
    /// PixelIsArea one does.
    #[test]
    fn a_pixel_is_point_geotiff_lies_where_its_area_twin_does() {
        let area = Map::load(&data("classes.tif")).unwrap();
        let point = Map::load(&data("point.tif")).unwrap();
        assert_eq!(point.classes.origin_m, area.classes.origin_m);
        assert_eq!(point.classes.cells, area.classes.cells);
    }

    /// The float elevation: 250 m rising 0.1 m a metre east, nodata as no elevation.
    #[test]
    fn a_float_elevation_geotiff_reads_with_its_nodata() {
        let m = Map::load(&data("map.json")).unwrap();
        let e = m.elevation.as_ref().unwrap();
        assert_eq!((e.width, e.height, e.resolution_m), (16, 12, 2.5));
        let z = e.bilinear(500_020.0, 4_982_985.0).unwrap();
        assert!((z - 252.0).abs() < 1e-3, "{z}");
        assert!(e.at(500_001.0, 4_982_999.0).unwrap().is_nan());
        assert_eq!(e.bilinear(500_001.0, 4_982_999.0), None);
    }

    /// A class raster with a declared nodata value (rasterio's 255; make.py): its holes
    /// are unknown ground, not an error ("value 255 not in the legend", issue 64).
    #[test]
    fn a_class_geotiff_s_nodata_is_unknown_ground() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(data("classes_nodata.tif"), dir.path().join("c.tif")).unwrap();
        let manifest = dir.path().join("map.json");
        std::fs::write(
            &manifest,
            r#"{"image": "c.tif", "legend": {"3": "gravel", "7": "field", "9": "obstacle"}}"#,
        )
        .unwrap();
        let m = Map::load(&manifest).unwrap();
        assert_eq!(
            m.classes.at(500_005.0, 4_982_995.0),
            Some(MapClass::Unknown)
        );
        assert_eq!(m.classes.at(500_015.0, 4_982_995.0), Some(MapClass::Field));
        assert_eq!(m.classes.at(500_015.0, 4_982_982.0), Some(MapClass::Gravel));
    }

    #[test]
    fn a_geographic_geotiff_and_disagreeing_manifests_are_refused() {
        // Four bands of 16 bits (rasterio): named as bands, not the decoder's words.
        let e = Map::load(&data("bands4.tif")).unwrap_err().to_string();
        assert!(
            e.contains("bands4.tif") && e.contains("must have one band, this one has 4"),
            "{e}"
        );
        let e = Map::load(&data("lonlat.tif")).unwrap_err().to_string();
        assert!(
            e.contains("lonlat.tif") && e.contains("EPSG:4326") && e.contains("degrees"),
            "{e}"
        );
        let dir = tempfile::tempdir().unwrap();
        for f in ["classes.tif", "elevation.tif"] {
            std::fs::copy(data(f), dir.path().join(f)).unwrap();
        }
        let write = |text: &str| {
            let p = dir.path().join("m.json");
            std::fs::write(&p, text).unwrap();
            Map::load(&p).unwrap_err().to_string()
        };
        let legend = r#""legend": {"3": "gravel", "7": "field", "9": "obstacle"}"#;
        let e = write(&format!(
            r#"{{"image": "classes.tif", "resolution_m": 0.25, {legend}}}"#
        ));
        assert!(e.contains("resolution_m") && e.contains("0.5"), "{e}");
        let e = write(&format!(
            r#"{{"image": "classes.tif", "origin_m": [0, 0], {legend}}}"#
        ));
        assert!(e.contains("origin_m") && e.contains("4982970"), "{e}");
        let e = write(&format!(
            r#"{{"image": "classes.tif", "crs": "EPSG:32616", {legend}}}"#
        ));
        assert!(e.contains("EPSG:32615") && e.contains("EPSG:32616"), "{e}");
        let e = write(r#"{"image": "classes.tif", "legend": {"3": "gravel"}}"#);
        assert!(e.contains("classes.tif") && e.contains("value 7"), "{e}");
        let e = write(&format!(r#"{{"image": "elevation.tif", {legend}}}"#));
        assert!(e.contains("integers"), "{e}");
        let e = write(&format!(
            r#"{{"image": "x.png", "origin_m": [0, 0], {legend}}}"#
        ));
        assert!(e.contains("resolution_m` is missing"), "{e}");
    }

    /// A TIFF without a georeference, and bytes that are no TIFF, are refused by name.
    #[test]
    fn a_plain_tiff_or_garbage_is_refused() {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut enc = tiff::encoder::TiffEncoder::new(&mut out).unwrap();
        enc.write_image::<tiff::encoder::colortype::Gray8>(2, 2, &[1, 2, 3, 4])
            .unwrap();
        let p = std::path::Path::new("plain.tif");
        let e = super::read_band(p, out.into_inner().into())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("plain.tif") && e.contains("no georeference"),
            "{e}"
        );
        let e = super::read_band(p, b"II*\0garbage".to_vec().into())
            .unwrap_err()
            .to_string();
        assert!(e.contains("plain.tif"), "{e}");
    }
}
