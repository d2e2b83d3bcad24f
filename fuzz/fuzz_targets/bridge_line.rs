//! Fuzzes what a bridge client can send: any line either is refused as not a JSON object
//! or parses to commands within their ranges (a reset speed of 0 to 8 m/s, a gear of 0 to
//! 5), and applying its DBW commands to the simulated Polaris keeps every output finite.
//!
//! Run from the repository root: `RUSTC_BOOTSTRAP=1 cargo fuzz run bridge_line -s none`
//! (or `cargo +nightly fuzz run bridge_line`). Not part of CI.
#![no_main]

use acres::jobs::bridge::parse_line;
use acres::config::Config;
use acres::plant::{Plant, StartPose};
use acres::plant::world::{Plane, World};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    let Ok(m) = parse_line(&line) else { return };
    if let Some(r) = m.reset {
        assert!((0.0..=8.0).contains(&r.speed));
        assert_eq!(r.x.is_some(), r.y.is_some());
    }
    if let Some(g) = m.dbw.gear_cmd {
        assert!(g.cmd <= 5);
    }
    let cfg = Config::builtin();
    let plane = Plane {
        class: None,
        state: Default::default(),
        slope_pct: 0.0,
        slope_dir_deg: 0.0,
    };
    let start = StartPose {
        speed_mps: 3.0,
        ..StartPose::default()
    };
    let mut p = Plant::new(&cfg, World::new(plane, vec![]), start, true);
    for _ in 0..24 {
        p.apply(&m.dbw);
        p.physics();
    }
    let s = &p.vehicle.s;
    for v in [s.x_m, s.y_m, s.yaw_rad, s.vx_mps, s.vy_mps, s.yaw_rate_rps] {
        assert!(v.is_finite(), "{:?} gives {s:?}", m.dbw);
    }
    let r = p.report("polaris");
    assert!(r.ulc_report.vel_ref.is_finite() && r.steering_report.steering_wheel_angle.is_finite());
});
