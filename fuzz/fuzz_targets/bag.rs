//! Fuzzes the bag reader (an MCAP file, or a ROS 1 bag where the bytes start as one: seed
//! the corpus with both; the sqlite3 form is SQLite's own): any
//! bytes end in records within the bounds, or an error; never a panic, an allocation
//! the file did not earn or a hang.
//!
//! Run: docs/formats.md "Fuzzing". Not part of CI.
#![no_main]

use acres::config::Config;
use acres::formats::ros::bag::{Topics, Vehicle, read_bag};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("acres-fuzz-{}.mcap", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let topics = Topics::parse("").expect("the default topics");
    let vehicle = Vehicle::of(&Config::builtin());
    let _ = read_bag(&path, &topics, vehicle, |r| {
        assert!(r.check_bounds().is_ok());
        Ok(())
    });
    let _ = std::fs::remove_file(&path);
});
