//! Corridor rasters (vehicle-software.md "Corridor"): built from the map's ground-class
//! raster and a route, each cell a guaranteed lower bound `d_c` of the distance from its
//! centre to excluded ground, queried as `d(p) = max_c (d_c − ‖p − c‖)`.

pub mod build;
pub mod edt;
pub mod raster;

pub use build::{BuildError, BuildReport, MAX_CELLS, build, build_limited, build_reported};
pub use raster::{Corridor, Provenance};
