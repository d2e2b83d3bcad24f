//! Files read and written by acres, and how they are written: atomically, so that no
//! partial file is ever left behind as if complete (docs/formats.md lists every format).

pub mod atomic;
pub mod bounds;
pub mod bridge_log;
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
pub(crate) mod skim;
pub mod stops;

pub use atomic::{AtomicFile, write_atomic};

/// A file of the test data (`tests/data/…`), for the unit tests of the formats.
#[cfg(test)]
pub(crate) fn test_data(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}
