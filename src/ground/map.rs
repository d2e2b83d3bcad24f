//! The map: a ground-class raster with its georeference, in the spirit of the ROS
//! map_server convention (a YAML manifest beside a PGM), here a JSON manifest beside an
//! 8-bit PNG of class indices, and optionally a 16-bit PNG of elevation.
//!
//! ```json
//! {"name": "farm", "image": "classes.png", "resolution_m": 0.25,
//!  "origin_m": [0.0, 0.0],
//!  "legend": {"0": "unknown", "1": "asphalt", "9": "obstacle"},
//!  "elevation": {"image": "elevation.png", "resolution_m": 4.0, "origin_m": [0.0, 0.0],
//!                "scale_m": 0.01, "offset_m": 100.0}}
//! ```
//!
//! `origin_m` is the world position (x east, y north) of the raster's lower-left corner;
//! image row 0 is the north edge. Elevation = `offset_m + scale_m × pixel`.

use crate::chain::envelope::GroundClass;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path as FsPath, PathBuf};

/// A class of the map raster: the ground classes of the envelope and three more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MapClass {
    Asphalt,
    Concrete,
    Gravel,
    GrassLane,
    Dirt,
    Grass,
    Field,
    /// The strip beside a lane: drivable in an emergency, never a route's own class.
    Verge,
    /// Buildings, trees, water, fences: never part of a corridor.
    Obstacle,
    /// Ground of no known class.
    Unknown,
}

impl MapClass {
    /// Every class, in the order of the legend of the shipped maps.
    pub const ALL: [MapClass; 10] = [
        MapClass::Unknown,
        MapClass::Asphalt,
        MapClass::Concrete,
        MapClass::Gravel,
        MapClass::GrassLane,
        MapClass::Dirt,
        MapClass::Grass,
        MapClass::Field,
        MapClass::Verge,
        MapClass::Obstacle,
    ];

    /// The ground class of the envelope, where the map class is one.
    pub fn ground(self) -> Option<GroundClass> {
        Some(match self {
            MapClass::Asphalt => GroundClass::Asphalt,
            MapClass::Concrete => GroundClass::Concrete,
            MapClass::Gravel => GroundClass::Gravel,
            MapClass::GrassLane => GroundClass::GrassLane,
            MapClass::Dirt => GroundClass::Dirt,
            MapClass::Grass => GroundClass::Grass,
            MapClass::Field => GroundClass::Field,
            _ => return None,
        })
    }

    /// Roads and lanes (the envelope's 7.8 m/s classes): asphalt, concrete, gravel,
    /// grass_lane and dirt.
    pub fn is_lane(self) -> bool {
        matches!(
            self,
            MapClass::Asphalt
                | MapClass::Concrete
                | MapClass::Gravel
                | MapClass::GrassLane
                | MapClass::Dirt
        )
    }

    /// The name in manifests.
    pub fn name(self) -> &'static str {
        match self {
            MapClass::Asphalt => "asphalt",
            MapClass::Concrete => "concrete",
            MapClass::Gravel => "gravel",
            MapClass::GrassLane => "grass_lane",
            MapClass::Dirt => "dirt",
            MapClass::Grass => "grass",
            MapClass::Field => "field",
            MapClass::Verge => "verge",
            MapClass::Obstacle => "obstacle",
            MapClass::Unknown => "unknown",
        }
    }
}

/// The elevation block of a manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElevationManifest {
    pub image: PathBuf,
    pub resolution_m: f64,
    pub origin_m: [f64; 2],
    pub scale_m: f64,
    pub offset_m: f64,
}

/// A map manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapManifest {
    #[serde(default)]
    pub name: String,
    /// The class image, relative to the manifest.
    pub image: PathBuf,
    /// The size of a cell, m.
    pub resolution_m: f64,
    /// The world position of the lower-left corner, m.
    pub origin_m: [f64; 2],
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

fn err(file: &FsPath, message: impl Into<String>) -> MapError {
    MapError {
        file: file.display().to_string(),
        message: message.into(),
    }
}

/// A georeferenced raster of any cell type: row 0 is the north edge.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid<T> {
    pub width: usize,
    pub height: usize,
    pub resolution_m: f64,
    /// The world position of the lower-left corner.
    pub origin_m: [f64; 2],
    pub cells: Vec<T>,
}

impl<T: Copy> Grid<T> {
    /// The cell (column, row) holding a world point, where it is inside.
    pub fn cell_of(&self, x: f64, y: f64) -> Option<(usize, usize)> {
        let u = (x - self.origin_m[0]) / self.resolution_m;
        let v = (y - self.origin_m[1]) / self.resolution_m;
        if !(u >= 0.0 && v >= 0.0) {
            return None;
        }
        let (i, jb) = (u as usize, v as usize);
        if i >= self.width || jb >= self.height {
            return None;
        }
        Some((i, self.height - 1 - jb))
    }

    /// The world position of a cell's centre.
    pub fn centre(&self, col: usize, row: usize) -> (f64, f64) {
        (
            self.origin_m[0] + (col as f64 + 0.5) * self.resolution_m,
            self.origin_m[1] + ((self.height - 1 - row) as f64 + 0.5) * self.resolution_m,
        )
    }

    /// The value at a world point, where it is inside.
    pub fn at(&self, x: f64, y: f64) -> Option<T> {
        self.cell_of(x, y)
            .map(|(i, j)| self.cells[j * self.width + i])
    }
}

impl Grid<f32> {
    /// The bilinear interpolation of the cell centres at a world point (clamped at the
    /// edges), where the point is inside: a smooth surface for the grade of the terrain.
    pub fn bilinear(&self, x: f64, y: f64) -> Option<f64> {
        self.cell_of(x, y)?;
        let u =
            ((x - self.origin_m[0]) / self.resolution_m - 0.5).clamp(0.0, (self.width - 1) as f64);
        let v =
            ((y - self.origin_m[1]) / self.resolution_m - 0.5).clamp(0.0, (self.height - 1) as f64);
        let (i0, j0) = (u.floor() as usize, v.floor() as usize);
        let (i1, j1) = ((i0 + 1).min(self.width - 1), (j0 + 1).min(self.height - 1));
        let (fu, fv) = (u - i0 as f64, v - j0 as f64);
        // Rows count from the north edge; v from the south.
        let at = |i: usize, j: usize| self.cells[(self.height - 1 - j) * self.width + i] as f64;
        let south = at(i0, j0) * (1.0 - fu) + at(i1, j0) * fu;
        let north = at(i0, j1) * (1.0 - fu) + at(i1, j1) * fu;
        Some(south * (1.0 - fv) + north * fv)
    }
}

/// A loaded map: the classes, and the elevation where the manifest has one.
#[derive(Debug, Clone, PartialEq)]
pub struct Map {
    pub name: String,
    pub classes: Grid<MapClass>,
    pub elevation: Option<Grid<f32>>,
}

fn read_png(path: &FsPath, bytes: Vec<u8>) -> Result<(png::OutputInfo, Vec<u8>), MapError> {
    let dec = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = dec.read_info().map_err(|e| err(path, e.to_string()))?;
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
    /// Loads a map from its manifest; the images are read relative to it.
    pub fn load(manifest_path: &FsPath) -> Result<Map, MapError> {
        let text = std::fs::read_to_string(manifest_path)
            .map_err(|e| err(manifest_path, e.to_string()))?;
        Map::from_manifest(manifest_path, &text, |p| {
            std::fs::read(p).map_err(|e| err(p, e.to_string()))
        })
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
    pub fn from_manifest(
        manifest_path: &FsPath,
        text: &str,
        read: impl Fn(&FsPath) -> Result<Vec<u8>, MapError>,
    ) -> Result<Map, MapError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let m: MapManifest = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            err(manifest_path, format!("key `{key}`: {}", e.into_inner()))
        })?;
        let dir = manifest_path.parent().unwrap_or(FsPath::new("."));
        if !(m.resolution_m.is_finite() && m.resolution_m > 0.0) {
            return Err(err(
                manifest_path,
                "key `resolution_m`: must be a positive number",
            ));
        }
        if let Some(e) = &m.elevation {
            if !(e.resolution_m.is_finite() && e.resolution_m > 0.0) {
                return Err(err(
                    manifest_path,
                    "key `elevation.resolution_m`: must be a positive number",
                ));
            }
            if !(e.scale_m.is_finite()
                && e.offset_m.is_finite()
                && e.origin_m.iter().all(|v| v.is_finite()))
            {
                return Err(err(
                    manifest_path,
                    "key `elevation`: scale_m, offset_m and origin_m must be finite",
                ));
            }
        }
        if !m.origin_m.iter().all(|v| v.is_finite()) {
            return Err(err(manifest_path, "key `origin_m`: must be finite numbers"));
        }
        let mut lut: [Option<MapClass>; 256] = [None; 256];
        for (k, c) in &m.legend {
            let v: u8 = k.parse().map_err(|_| {
                err(
                    manifest_path,
                    format!("key `legend.{k}`: not a pixel value 0 to 255"),
                )
            })?;
            lut[v as usize] = Some(*c);
        }
        let img = dir.join(&m.image);
        let (info, buf) = read_png(&img, read(&img)?)?;
        if info.color_type != png::ColorType::Grayscale || info.bit_depth != png::BitDepth::Eight {
            return Err(err(&img, "the class image must be 8-bit grayscale"));
        }
        let (w, h) = (info.width as usize, info.height as usize);
        let mut cells = Vec::with_capacity(w * h);
        for (i, &p) in buf.iter().enumerate() {
            match lut[p as usize] {
                Some(c) => cells.push(c),
                None => {
                    return Err(err(
                        &img,
                        format!(
                            "pixel ({}, {}) has the value {p}, which the legend does not name",
                            i % w,
                            i / w
                        ),
                    ));
                }
            }
        }
        let classes = Grid {
            width: w,
            height: h,
            resolution_m: m.resolution_m,
            origin_m: m.origin_m,
            cells,
        };
        let elevation = match &m.elevation {
            None => None,
            Some(e) => {
                let path = dir.join(&e.image);
                let (info, buf) = read_png(&path, read(&path)?)?;
                if info.color_type != png::ColorType::Grayscale
                    || info.bit_depth != png::BitDepth::Sixteen
                {
                    return Err(err(&path, "the elevation image must be 16-bit grayscale"));
                }
                let cells = buf
                    .chunks_exact(2)
                    .map(|b| {
                        (e.offset_m + e.scale_m * u16::from_be_bytes([b[0], b[1]]) as f64) as f32
                    })
                    .collect();
                Some(Grid {
                    width: info.width as usize,
                    height: info.height as usize,
                    resolution_m: e.resolution_m,
                    origin_m: e.origin_m,
                    cells,
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
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_farm_loads_with_its_classes_and_elevation() {
        let m = Map::builtin_farm();
        assert_eq!((m.classes.width, m.classes.height), (8192, 6144));
        assert_eq!(m.classes.resolution_m, 0.25);
        // The public road at y = 200, the yard, the barn, the pond, a field.
        assert_eq!(m.classes.at(100.0, 200.0), Some(MapClass::Asphalt));
        assert_eq!(m.classes.at(910.0, 260.0), Some(MapClass::Concrete));
        assert_eq!(m.classes.at(930.0, 300.0), Some(MapClass::Obstacle));
        assert_eq!(m.classes.at(1300.0, 520.0), Some(MapClass::Obstacle));
        assert_eq!(m.classes.at(600.0, 1000.0), Some(MapClass::Field));
        assert_eq!(m.classes.at(960.0, 600.0), Some(MapClass::Gravel));
        assert_eq!(m.classes.at(5000.0, 0.0), None);
        let e = m.elevation.as_ref().unwrap();
        // The offset 100 m, the base 10 m and the 1 % rise to the north.
        let z = e.at(1000.0, 200.0).unwrap();
        assert!((z - 112.0).abs() < 0.1, "{z}");
        // The bilinear surface between cell centres, and the terrace's 9 % at y = 600.
        let (a, b) = (
            e.bilinear(998.0, 200.0).unwrap(),
            e.bilinear(1002.0, 200.0).unwrap(),
        );
        let mid = e.bilinear(1000.0, 200.0).unwrap();
        assert!((mid - (a + b) / 2.0).abs() < 0.01, "{a} {mid} {b}");
        let rise = e.bilinear(960.0, 602.0).unwrap() - e.bilinear(960.0, 598.0).unwrap();
        assert!((rise / 4.0 - 0.09).abs() < 0.005, "{rise}");
        assert_eq!(e.bilinear(-1.0, 200.0), None);
    }

    #[test]
    fn bad_manifests_and_images_are_refused() {
        let farm = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/maps/farm/farm.json"
        ));
        let read = |_: &FsPath| {
            Ok(include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/data/maps/farm/classes.png"
            ))
            .to_vec())
        };
        let no_legend = farm.replace("\"9\": \"obstacle\"", "\"19\": \"obstacle\"");
        let e = Map::from_manifest(FsPath::new("m.json"), &no_legend, read)
            .unwrap_err()
            .to_string();
        assert!(e.contains("classes.png") && e.contains("value 9"), "{e}");
        let bad_res = farm.replace("\"resolution_m\": 0.25", "\"resolution_m\": -1");
        let e = Map::from_manifest(FsPath::new("m.json"), &bad_res, read)
            .unwrap_err()
            .to_string();
        assert!(e.contains("m.json") && e.contains("resolution_m"), "{e}");
        let unknown = farm.replacen("\"name\"", "\"nmae\"", 1);
        let e = Map::from_manifest(FsPath::new("m.json"), &unknown, read)
            .unwrap_err()
            .to_string();
        assert!(e.contains("nmae"), "{e}");
    }
}
