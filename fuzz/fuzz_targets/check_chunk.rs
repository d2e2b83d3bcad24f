//! Fuzzes the chunk parser and the checker: any bytes either fail to parse or give a
//! verdict, never a panic; and an accepted chunk obeys the limits the rules state.
//!
//! Run: `cargo install cargo-fuzz` once, then from the repository root
//! `cargo +nightly fuzz run check_chunk` (or, on a stable toolchain,
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run check_chunk -s none`). Not part of CI.
#![no_main]

use acres::chain::checker::{Chunk, TrajectoryChecker, convert};
use acres::config::Config;
use acres::chain::envelope::Grip;
use acres::chain::path::Path;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn setup() -> &'static (TrajectoryChecker, Path) {
    static S: OnceLock<(TrajectoryChecker, Path)> = OnceLock::new();
    S.get_or_init(|| {
        (
            TrajectoryChecker::new(&Config::builtin(), Grip::Unknown).unwrap(),
            Path::builtin("straight_lane.json").unwrap(),
        )
    })
}

fuzz_target!(|data: &[u8]| {
    let (checker, route) = setup();
    let Ok(chunk) = serde_json::from_slice::<Chunk>(data) else { return };
    let r = checker.check(&chunk, route, None, &mut Vec::new());
    if r.accepted {
        let mut s = Vec::new();
        convert(&chunk, route, &mut s);
        let last = s.last().expect("an accepted chunk has samples");
        assert_eq!(last.speed_mps, 0.0, "an accepted chunk ends with a stop");
        for x in &s {
            assert!(x.speed_mps <= 7.8 && x.curvature_per_m.abs() <= 0.2);
            assert!(x.speed_mps * x.speed_mps * x.curvature_per_m.abs() <= 1.5);
        }
    }
});
