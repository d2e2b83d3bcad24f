//! The map: a ground-class raster with its georeference, and optionally an elevation
//! raster. `origin_m` is the world position (x east, y north) of a raster's lower-left
//! corner; row 0 is the north edge. Map files are read in [`crate::formats::map_manifest`].

use crate::ground::class::GroundClass;
use serde::{Deserialize, Serialize};

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
    /// edges), where the point is inside and its cells hold a value (a GeoTIFF's nodata
    /// cells are NaN): a smooth surface for the grade of the terrain.
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
        let z = south * (1.0 - fv) + north * fv;
        z.is_finite().then_some(z)
    }
}

/// A loaded map: the classes, the elevation where the map has one, and its coordinate
/// reference system where it names one (a GeoTIFF's, or a manifest's `crs`).
#[derive(Debug, Clone, PartialEq)]
pub struct Map {
    pub name: String,
    pub classes: Grid<MapClass>,
    pub elevation: Option<Grid<f32>>,
    pub crs: Option<crate::ground::Crs>,
    /// Why the CRS the map's files name cannot be used (a user-defined projection, a datum
    /// acres cannot shift), where so: the map is read in its own metres and a route on the
    /// Earth is refused with this reason.
    pub crs_note: Option<String>,
}

impl Map {
    /// The map's CRS as a route is placed on it.
    pub fn route_crs(&self) -> crate::ground::MapCrs<'_> {
        match (&self.crs, &self.crs_note) {
            (Some(c), _) => crate::ground::MapCrs::Known(*c),
            (None, Some(why)) => crate::ground::MapCrs::Unusable(why),
            (None, None) => crate::ground::MapCrs::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path as FsPath;

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
