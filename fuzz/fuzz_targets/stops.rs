//! Fuzzes the measured-stops reader: any bytes are refused naming a row and column, or
//! give measurements whose speeds lie within the bounds.
//!
//! Run: docs/formats.md "Fuzzing". Not part of CI.
#![no_main]

use acres::formats::stops::read_csv;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(rows) = read_csv("fuzz.csv", data) else { return };
    for m in rows {
        assert!((0.0..=100.0).contains(&m.speed_mps));
    }
});
