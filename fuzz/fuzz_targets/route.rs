//! Fuzzes the route reader (acres route JSON and GeoJSON): any text is refused or gives a
//! path of at least two points within the position and speed bounds.
//!
//! Run: docs/formats.md "Fuzzing". Not part of CI.
#![no_main]

use acres::chain::path::Path;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(p) = Path::from_json_str("fuzz.json", text) else { return };
    assert!(p.len() >= 2);
    for i in 0..p.len() {
        let q = p.point(i);
        assert!(q.x.abs() <= 1e8 && q.y.abs() <= 1e8 && p.speed(i) <= 100.0);
    }
});
