//! Fuzzes the config reader: the input as the control config (`control_v1.json`) in a
//! config folder; any text is refused naming the file and key, or loads; never a panic.
//!
//! Run: docs/formats.md "Fuzzing". Not part of CI.
#![no_main]

use acres::config::Config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("acres-fuzz-config-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err()
        || std::fs::write(dir.join("control_v1.json"), data).is_err()
    {
        return;
    }
    let _ = Config::load(Some(&dir));
});
