//! Fuzzes the JSON Lines log reader: any bytes end in records within the bounds of
//! docs/formats.md "Bounds", or an error naming a line; never a panic.
//!
//! Run: docs/formats.md "Fuzzing". Not part of CI.
#![no_main]

use acres::formats::log::read_records;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = read_records("fuzz.jsonl", data, false, true, |_, r| {
        assert!(r.check_bounds().is_ok(), "a record out of bounds reached the replay");
        Ok(())
    });
});
