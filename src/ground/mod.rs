//! What the chain and the plant stand on: the map ([`map`]: ground classes and elevation)
//! and the corridor rasters built from it along a route ([`corridor`]).

pub mod class;
pub mod corridor;
pub mod crs;
pub mod map;

pub use corridor::Corridor;
pub use crs::{Crs, MapCrs};
pub use map::{Grid, Map, MapClass};
