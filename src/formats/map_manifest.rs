//! The map manifest (docs/formats.md "Maps"): a JSON manifest beside an 8-bit PNG of
//! class indices and optionally a 16-bit PNG of elevation, in the spirit of the ROS
//! map_server convention (a YAML manifest beside a PGM).
//!
//! ```json
//! {"name": "farm", "image": "classes.png", "resolution_m": 0.25,
//!  "origin_m": [0.0, 0.0],
//!  "legend": {"0": "unknown", "1": "asphalt", "9": "obstacle"},
//!  "elevation": {"image": "elevation.png", "resolution_m": 4.0, "origin_m": [0.0, 0.0],
//!                "scale_m": 0.01, "offset_m": 100.0}}
//! ```
//!
//! Elevation = `offset_m + scale_m × pixel`. The shipped farm map is built into the binary.

use crate::formats::geotiff;
use crate::ground::Crs;
use crate::ground::map::{Grid, Map, MapClass};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path as FsPath, PathBuf};

/// The elevation block of a manifest. For a GeoTIFF image the place comes from the file
/// (`resolution_m` and `origin_m` may be left out, and must agree where given).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElevationManifest {
    pub image: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution_m: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin_m: Option<[f64; 2]>,
    /// Metres a pixel unit (1 by default).
    #[serde(default = "one")]
    pub scale_m: f64,
    /// Metres added to every pixel (0 by default).
    #[serde(default)]
    pub offset_m: f64,
}

fn one() -> f64 {
    1.0
}

/// A map manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapManifest {
    #[serde(default)]
    pub name: String,
    /// The class image, relative to the manifest: an 8-bit PNG or a GeoTIFF.
    pub image: PathBuf,
    /// The size of a cell, m (a GeoTIFF's own where left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution_m: Option<f64>,
    /// The world position of the lower-left corner, m (a GeoTIFF's own where left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin_m: Option<[f64; 2]>,
    /// The projected CRS of the coordinates, `EPSG:<code>` (a GeoTIFF's own where left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crs: Option<String>,
    /// Pixel value (as a string key, JSON's only kind) → class.
    pub legend: BTreeMap<String, MapClass>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elevation: Option<ElevationManifest>,
}

/// An error of reading a map; it names the file.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct MapError {
    pub file: String,
    pub message: String,
}

/// An error naming a map file.
pub(crate) fn err(file: &FsPath, message: impl Into<String>) -> MapError {
    MapError {
        file: file.display().to_string(),
        message: message.into(),
    }
}

/// The most pixels a map image may have (2²⁸, 16384 × 16384): the header's size is
/// checked before the pixels are allocated, so a small file cannot claim gigabytes.
pub const MAX_MAP_PIXELS: u64 = 1 << 28;

/// The largest map image file read, bytes: the most pixels at 8 bytes each (a float64
/// elevation), and room for a header. A compressed image is smaller than its pixels.
pub const MAX_IMAGE_BYTES: u64 = MAX_MAP_PIXELS * 8 + (64 << 20);

/// A map image to read: bytes held already (the shipped map), or a checked file, which a
/// GeoTIFF decodes a chunk at a time without holding the file.
pub enum Image {
    Bytes(Vec<u8>),
    File(std::io::BufReader<std::fs::File>),
}

impl From<Vec<u8>> for Image {
    fn from(b: Vec<u8>) -> Image {
        Image::Bytes(b)
    }
}

impl Image {
    /// The whole image as bytes (for the PNG, PGM and other decoders that take them),
    /// at most [`MAX_IMAGE_BYTES`] even if the file grows while it is read.
    pub(crate) fn into_bytes(self, path: &FsPath) -> Result<Vec<u8>, MapError> {
        use std::io::Read;
        let f = match self {
            Image::Bytes(b) => return Ok(b),
            Image::File(f) => f,
        };
        let len = f.get_ref().metadata().map_or(0, |m| m.len());
        let mut bytes = Vec::with_capacity(len.min(MAX_IMAGE_BYTES) as usize);
        f.take(MAX_IMAGE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| err(path, e.to_string()))?;
        if bytes.len() as u64 > MAX_IMAGE_BYTES {
            return Err(err(path, "the file grew past the limit while it was read"));
        }
        Ok(bytes)
    }
}

/// Opens a map image: it must be a regular file of at most [`MAX_IMAGE_BYTES`] (a device
/// such as `/dev/zero` would be read without end), checked before anything is read.
pub(crate) fn read_image(path: &FsPath) -> Result<Image, MapError> {
    let meta = std::fs::metadata(path).map_err(|e| err(path, e.to_string()))?;
    if !meta.is_file() {
        return Err(err(path, "not a regular file: a map image must be one"));
    }
    if meta.len() > MAX_IMAGE_BYTES {
        return Err(err(
            path,
            format!(
                "{} bytes, more than the limit of {MAX_IMAGE_BYTES} for a map image",
                meta.len()
            ),
        ));
    }
    let f = std::fs::File::open(path).map_err(|e| err(path, e.to_string()))?;
    Ok(Image::File(std::io::BufReader::new(f)))
}

fn read_png(path: &FsPath, bytes: Vec<u8>) -> Result<(png::OutputInfo, Vec<u8>), MapError> {
    let dec = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = dec.read_info().map_err(|e| err(path, e.to_string()))?;
    let (w, h) = (reader.info().width as u64, reader.info().height as u64);
    if w * h > MAX_MAP_PIXELS {
        return Err(err(
            path,
            format!("the image claims {w} × {h} pixels, more than the limit of {MAX_MAP_PIXELS}"),
        ));
    }
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| err(path, "the image is too large"))?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| err(path, e.to_string()))?;
    buf.truncate(info.buffer_size());
    Ok((info, buf))
}

impl Map {
    /// Loads a map from its manifest, a ROS map_server map from its YAML
    /// ([`crate::formats::ros_map`]), or a class GeoTIFF on its own
    /// ([`Map::from_geotiff`]); the images are read relative to it.
    pub fn load(manifest_path: &FsPath) -> Result<Map, MapError> {
        // A ROS map_server map: its YAML beside its image.
        if matches!(
            manifest_path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        ) {
            return crate::formats::ros_map::load(manifest_path);
        }
        if is_geotiff(manifest_path) {
            return Map::from_geotiff(manifest_path);
        }
        let text = std::fs::read_to_string(manifest_path)
            .map_err(|e| err(manifest_path, e.to_string()))?;
        Map::from_manifest(manifest_path, &text, read_image)
    }

    /// A map by name: `farm` for the shipped map, else a manifest or map_server YAML.
    pub fn load_named(name: &str) -> Result<Map, MapError> {
        if name == "farm" {
            return Ok(Map::builtin_farm());
        }
        Map::load(FsPath::new(name))
    }

    /// The shipped farm map (`data/maps/farm/`), built into the binary.
    pub fn builtin_farm() -> Map {
        let text = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/maps/farm/farm.json"
        ));
        Map::from_manifest(FsPath::new("data/maps/farm/farm.json"), text, |p| {
            match p.file_name().and_then(|n| n.to_str()) {
                Some("classes.png") => Ok(include_bytes!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/data/maps/farm/classes.png"
                ))
                .to_vec()),
                Some("elevation.png") => Ok(include_bytes!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/data/maps/farm/elevation.png"
                ))
                .to_vec()),
                _ => Err(err(p, "not a file of the shipped map")),
            }
        })
        .expect("the shipped map is valid")
    }

    /// Parses a manifest (named `manifest_path` in errors) whose images `read` gives.
    pub fn from_manifest<I: Into<Image>>(
        manifest_path: &FsPath,
        text: &str,
        read: impl Fn(&FsPath) -> Result<I, MapError>,
    ) -> Result<Map, MapError> {
        let m = MapManifest::parse(manifest_path, text)?;
        Map::from_parsed(manifest_path, m, read)
    }

    /// The map of a checked manifest (named `manifest_path` in errors, its images read by
    /// `read` relative to it).
    fn from_parsed<I: Into<Image>>(
        manifest_path: &FsPath,
        m: MapManifest,
        read: impl Fn(&FsPath) -> Result<I, MapError>,
    ) -> Result<Map, MapError> {
        let dir = manifest_path.parent().unwrap_or(FsPath::new("."));
        let lut = legend_lut(manifest_path, &m.legend)?;
        let mut crs = match &m.crs {
            None => None,
            Some(c) => {
                Some(Crs::parse(c).map_err(|e| err(manifest_path, format!("key `crs`: {e}")))?)
            }
        };
        // Why a CRS a GeoTIFF names cannot be used; a manifest's own `crs` settles it.
        let mut note: Option<String> = None;
        let img = dir.join(&m.image);
        let classes = if is_geotiff(&img) {
            let band = geotiff::read_band(&img, read(&img)?.into())?;
            let at = (m.resolution_m, m.origin_m);
            agree(manifest_path, "", at, &band)?;
            crs = same_crs(manifest_path, crs, &img, band.crs)?;
            note = note.or(band.crs_note.clone());
            geotiff::class_grid(&img, band, &lut)?
        } else {
            let (res, origin) = required(manifest_path, "", m.resolution_m, m.origin_m)?;
            class_grid(
                &img,
                read(&img)?.into().into_bytes(&img)?,
                &lut,
                res,
                origin,
            )?
        };
        let elevation = match &m.elevation {
            None => None,
            Some(e) => {
                let path = dir.join(&e.image);
                Some(if is_geotiff(&path) {
                    let band = geotiff::read_band(&path, read(&path)?.into())?;
                    agree(
                        manifest_path,
                        "elevation.",
                        (e.resolution_m, e.origin_m),
                        &band,
                    )?;
                    crs = same_crs(manifest_path, crs, &path, band.crs)?;
                    note = note.or(band.crs_note.clone());
                    geotiff::elevation_grid(&path, band, e.scale_m, e.offset_m)?
                } else {
                    let (res, origin) =
                        required(manifest_path, "elevation.", e.resolution_m, e.origin_m)?;
                    elevation_grid(
                        &path,
                        read(&path)?.into().into_bytes(&path)?,
                        e,
                        res,
                        origin,
                    )?
                })
            }
        };
        Ok(Map {
            name: if m.name.is_empty() {
                manifest_path.display().to_string()
            } else {
                m.name
            },
            classes,
            elevation,
            crs_note: note.filter(|_| crs.is_none()),
            crs,
        })
    }

    /// A class GeoTIFF on its own: its pixel values are read with the shipped maps' legend
    /// (0 unknown, 1 asphalt, 2 concrete, 3 gravel, 4 grass_lane, 5 dirt, 6 grass, 7 field,
    /// 8 verge, 9 obstacle), its place and CRS its own. The map's name is the file stem.
    pub fn from_geotiff(path: &FsPath) -> Result<Map, MapError> {
        let legend: BTreeMap<String, MapClass> = MapClass::ALL
            .iter()
            .enumerate()
            .map(|(i, c)| (i.to_string(), *c))
            .collect();
        let manifest = MapManifest {
            name: path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("map")
                .to_string(),
            image: PathBuf::from(path.file_name().unwrap_or_default()),
            resolution_m: None,
            origin_m: None,
            crs: None,
            legend,
            elevation: None,
        };
        Map::from_parsed(path, manifest, read_image)
    }
}

/// Whether an image is a GeoTIFF, by its extension.
fn is_geotiff(p: &FsPath) -> bool {
    matches!(
        p.extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .as_deref(),
        Some("tif" | "tiff")
    )
}

/// The legend as a lookup table from pixel value to class.
fn legend_lut(
    manifest_path: &FsPath,
    legend: &BTreeMap<String, MapClass>,
) -> Result<[Option<MapClass>; 256], MapError> {
    let mut lut: [Option<MapClass>; 256] = [None; 256];
    for (k, c) in legend {
        let v: u8 = k.parse().map_err(|_| {
            err(
                manifest_path,
                format!("key `legend.{k}`: not a pixel value 0 to 255"),
            )
        })?;
        lut[v as usize] = Some(*c);
    }
    Ok(lut)
}

/// The place a PNG needs from the manifest (`prefix` names the block in errors).
fn required(
    manifest_path: &FsPath,
    prefix: &str,
    resolution_m: Option<f64>,
    origin_m: Option<[f64; 2]>,
) -> Result<(f64, [f64; 2]), MapError> {
    match (resolution_m, origin_m) {
        (Some(r), Some(o)) => Ok((r, o)),
        (None, _) => Err(err(
            manifest_path,
            format!("key `{prefix}resolution_m` is missing (a PNG has no georeference)"),
        )),
        (_, None) => Err(err(
            manifest_path,
            format!("key `{prefix}origin_m` is missing (a PNG has no georeference)"),
        )),
    }
}

/// Where the manifest also gives a GeoTIFF's place, the two must agree (to a millionth
/// of a cell), so that a stale manifest cannot move the map.
fn agree(
    manifest_path: &FsPath,
    prefix: &str,
    (resolution_m, origin_m): (Option<f64>, Option<[f64; 2]>),
    g: &geotiff::GeoBand,
) -> Result<(), MapError> {
    let tol = 1e-6 * g.resolution_m;
    if let Some(r) = resolution_m
        && (r - g.resolution_m).abs() > tol
    {
        return Err(err(
            manifest_path,
            format!(
                "key `{prefix}resolution_m`: {r}, but the GeoTIFF's cells are {} m",
                g.resolution_m
            ),
        ));
    }
    if let Some(o) = origin_m
        && (0..2).any(|k| (o[k] - g.origin_m[k]).abs() > tol)
    {
        return Err(err(
            manifest_path,
            format!(
                "key `{prefix}origin_m`: {o:?}, but the GeoTIFF's lower-left corner is {:?}",
                g.origin_m
            ),
        ));
    }
    Ok(())
}

/// The map's CRS where the manifest and a GeoTIFF both may name one: they must agree.
fn same_crs(
    manifest_path: &FsPath,
    known: Option<Crs>,
    file: &FsPath,
    found: Option<Crs>,
) -> Result<Option<Crs>, MapError> {
    match (known, found) {
        (Some(a), Some(b)) if a != b => Err(err(
            manifest_path,
            format!("{} is in {b}, but the map is in {a}", file.display()),
        )),
        (a, b) => Ok(a.or(b)),
    }
}

impl MapManifest {
    /// Parses and validates a manifest's JSON; errors name the file and the key.
    fn parse(manifest_path: &FsPath, text: &str) -> Result<MapManifest, MapError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let m: MapManifest = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            err(manifest_path, format!("key `{key}`: {}", e.into_inner()))
        })?;
        use crate::formats::bounds as b;
        let key_err = |m: String| err(manifest_path, format!("key {m}"));
        let resolution = |k: &str, v: Option<f64>| v.map_or(Ok(0.0), |r| b::resolution(k, r));
        let origin = |k: &str, v: Option<[f64; 2]>| {
            v.map_or(Ok(0.0), |o| {
                b::position(&format!("{k}[0]"), o[0])?;
                b::position(&format!("{k}[1]"), o[1])
            })
        };
        resolution("resolution_m", m.resolution_m).map_err(key_err)?;
        origin("origin_m", m.origin_m).map_err(key_err)?;
        if let Some(e) = &m.elevation {
            resolution("elevation.resolution_m", e.resolution_m).map_err(key_err)?;
            origin("elevation.origin_m", e.origin_m).map_err(key_err)?;
            b::position("elevation.scale_m", e.scale_m).map_err(key_err)?;
            b::position("elevation.offset_m", e.offset_m).map_err(key_err)?;
        }
        Ok(m)
    }
}

/// The class grid of an 8-bit grayscale PNG through the legend's lookup table; a pixel the
/// legend does not name is an error naming the pixel.
fn class_grid(
    img: &FsPath,
    bytes: Vec<u8>,
    lut: &[Option<MapClass>; 256],
    resolution_m: f64,
    origin_m: [f64; 2],
) -> Result<Grid<MapClass>, MapError> {
    let (info, buf) = read_png(img, bytes)?;
    if info.color_type != png::ColorType::Grayscale || info.bit_depth != png::BitDepth::Eight {
        return Err(err(img, "the class image must be 8-bit grayscale"));
    }
    let (w, h) = (info.width as usize, info.height as usize);
    let mut cells = Vec::with_capacity(w * h);
    for (i, &p) in buf.iter().enumerate() {
        match lut[p as usize] {
            Some(c) => cells.push(c),
            None => {
                return Err(err(
                    img,
                    format!(
                        "pixel ({}, {}) has the value {p}, which the legend does not name",
                        i % w,
                        i / w
                    ),
                ));
            }
        }
    }
    Ok(Grid {
        width: w,
        height: h,
        resolution_m,
        origin_m,
        cells,
    })
}

/// The elevation grid of a 16-bit grayscale PNG: `offset_m + scale_m × pixel`.
fn elevation_grid(
    path: &FsPath,
    bytes: Vec<u8>,
    e: &ElevationManifest,
    resolution_m: f64,
    origin_m: [f64; 2],
) -> Result<Grid<f32>, MapError> {
    let (info, buf) = read_png(path, bytes)?;
    if info.color_type != png::ColorType::Grayscale || info.bit_depth != png::BitDepth::Sixteen {
        return Err(err(path, "the elevation image must be 16-bit grayscale"));
    }
    let cells = buf
        .chunks_exact(2)
        .map(|b| (e.offset_m + e.scale_m * u16::from_be_bytes([b[0], b[1]]) as f64) as f32)
        .collect();
    Ok(Grid {
        width: info.width as usize,
        height: info.height as usize,
        resolution_m,
        origin_m,
        cells,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG of a few bytes whose header claims 100000 × 100000 pixels is refused from its
    /// header, before any pixel is allocated.
    #[test]
    fn an_image_claiming_billions_of_pixels_is_refused_from_its_header() {
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        let chunk = |png: &mut Vec<u8>, kind: &[u8], data: &[u8]| {
            png.extend((data.len() as u32).to_be_bytes());
            let mut body = kind.to_vec();
            body.extend(data);
            png.extend(&body);
            png.extend(crc32fast::hash(&body).to_be_bytes());
        };
        let mut ihdr = Vec::new();
        ihdr.extend(100_000u32.to_be_bytes());
        ihdr.extend(100_000u32.to_be_bytes());
        ihdr.extend([8, 0, 0, 0, 0]); // 8-bit greyscale
        chunk(&mut png, b"IHDR", &ihdr);
        chunk(
            &mut png,
            b"IDAT",
            &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
        );
        chunk(&mut png, b"IEND", &[]);
        let e = read_png(FsPath::new("huge.png"), png).unwrap_err();
        assert!(
            e.to_string().contains("huge.png") && e.to_string().contains("100000 × 100000"),
            "{e}"
        );
    }
}
