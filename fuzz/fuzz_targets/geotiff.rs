//! Fuzzes the GeoTIFF reader: any bytes are refused, or give a band within the map limit
//! whose class and elevation grids are built (or refused) without a panic.
//!
//! Run: docs/formats.md "Fuzzing". Not part of CI.
#![no_main]

use acres::formats::geotiff::{class_grid, elevation_grid, read_band};
use acres::ground::MapClass;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.tif");
    let Ok(band) = read_band(path, data.to_vec().into()) else { return };
    assert!(band.width * band.height <= 1 << 28);
    let mut lut = [None; 256];
    lut[3] = Some(MapClass::Gravel);
    lut[9] = Some(MapClass::Obstacle);
    if band.is_integer() {
        let _ = class_grid(path, band, &lut);
    } else if let Ok(g) = elevation_grid(path, band, 1.0, 0.0) {
        assert_eq!(g.cells.len(), g.width * g.height);
    }
});
