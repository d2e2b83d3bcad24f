//! Fuzzes the corridor file reader: any bytes are refused or give a corridor whose every
//! query is a number no larger than the largest cell (docs/formats.md "Corridor files").
//!
//! Run: docs/formats.md "Fuzzing". Not part of CI.
#![no_main]

use acres::ground::Corridor;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(c) = Corridor::from_bytes("fuzz.acor", data) else { return };
    let g = &c.grid;
    let top = g.cells.iter().fold(0.0f32, |m, &d| m.max(d)) as f64;
    for (x, y) in [(0.0, 0.0), (g.origin_m[0], g.origin_m[1]), (1e7, -1e7)] {
        let d = c.query(x, y);
        assert!(!d.is_nan() && d <= top + 1e-9, "({x}, {y}): {d}");
    }
});
