//! Fuzzes the scenario reader: any text is refused naming a key, or gives a scenario
//! whose start lies within the bounds of docs/formats.md "Bounds".
//!
//! Run: docs/formats.md "Fuzzing". Not part of CI.
#![no_main]

use acres::formats::scenario::Scenario;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(s) = Scenario::from_json_str("fuzz.json", text) else { return };
    assert!(s.start.x_m.abs() <= 1e8 && s.start.y_m.abs() <= 1e8);
    assert!((0.0..=8.0).contains(&s.start.speed_mps));
});
