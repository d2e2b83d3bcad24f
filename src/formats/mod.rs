//! Files read and written by acres, and how they are written: atomically, so that no
//! partial file is ever left behind as if complete (docs/formats.md lists every format).

pub mod atomic;
pub mod chunk;
pub mod corridor_file;
pub mod export;
pub mod geotiff;
pub mod log;
pub mod map_manifest;
pub mod ros;
pub mod ros_map;
pub mod route;
pub mod scenario;
pub mod stops;

pub use atomic::{AtomicFile, write_atomic};
