//! The benchmarks' posts: a fixed pseudo-random pattern beside the opening scenario's
//! lane. It uses only what the crate has long had (`Scenario::from_json_str` and the
//! opening scenario), so that `scene_probe` builds against older commits of the crate as
//! well as today's.

use acres::formats::scenario::{DEFAULT_SCENARIO, Scenario};

/// `n` posts as (x, y): x from −20 to 80 m, 5 m to 5 + 35·`widen` m either side of the
/// lane (y = 0), the same posts on every call.
pub fn posts(n: usize, widen: f64) -> Vec<(f64, f64)> {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| {
            let x = -20.0 + 100.0 * next();
            let side = if next() < 0.5 { -1.0 } else { 1.0 };
            (x, side * (5.0 + 35.0 * widen * next()))
        })
        .collect()
}

/// The opening scenario with the `posts(n, widen)` as 0.2 m circles.
pub fn scene(n: usize, widen: f64) -> Scenario {
    let mut v: serde_json::Value = serde_json::from_str(DEFAULT_SCENARIO).unwrap();
    let obstacles = v["obstacles"].as_array_mut().unwrap();
    for (x, y) in posts(n, widen) {
        obstacles.push(serde_json::json!({"circle": {"x_m": x, "y_m": y, "radius_m": 0.2}}));
    }
    Scenario::from_json_str("posts", &v.to_string()).unwrap()
}
