//! Fuzzes the map manifest reader with the test data's GeoTIFFs as its images: any text
//! is refused naming a key, or gives a map within the bounds.
//!
//! Run: docs/formats.md "Fuzzing". Not part of CI.
#![no_main]

use acres::ground::Map;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

const CLASSES: &[u8] = include_bytes!("../../tests/data/geotiff/classes.tif");
const ELEVATION: &[u8] = include_bytes!("../../tests/data/geotiff/elevation.tif");

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let image = |p: &Path| -> Result<Vec<u8>, acres::formats::map_manifest::MapError> {
        Ok(match p.file_name().and_then(|n| n.to_str()) {
            Some("elevation.tif") => ELEVATION.to_vec(),
            _ => CLASSES.to_vec(),
        })
    };
    let Ok(m) = Map::from_manifest(Path::new("fuzz/map.json"), text, image) else { return };
    let g = &m.classes;
    assert!((1e-4..=1e4).contains(&g.resolution_m));
    assert!(g.origin_m.iter().all(|o| o.abs() <= 1e8));
});
