//! The ranges of the numbers an input file may carry (docs/formats.md "Bounds"). Each is
//! a physical bound far beyond any vehicle, map or log acres is for, so that a number
//! outside it is a damaged or hostile file, refused naming its key, not a value that
//! overflows, loses all precision or takes unbounded work further on.

use std::ops::RangeInclusive;

/// Positions (x, y, a map's origin and edges, a route's points): Web Mercator's 2·10⁷ m
/// with room, and f64 still resolves 15 nm there.
pub const MAX_POSITION_M: f64 = 1e8;
/// Speeds, measured, logged or commanded: beyond any ground vehicle.
pub const MAX_SPEED_MPS: f64 = 100.0;
/// Headings and other angles, in radians: unwrapped headings of a long run stay far
/// inside it, and f64 still resolves 10⁻¹⁰ rad there.
pub const MAX_ANGLE_RAD: f64 = 1e6;
/// The same bound in degrees.
pub const MAX_ANGLE_DEG: f64 = MAX_ANGLE_RAD * 180.0 / std::f64::consts::PI;
/// Accelerations and decelerations, m/s² (about 10 g).
pub const MAX_ACCEL_MPS2: f64 = 100.0;
/// Yaw rates.
pub const MAX_YAW_RATE_RPS: f64 = 100.0;
/// Grades, rise over run (10 is 84 degrees).
pub const MAX_GRADE: f64 = 10.0;
/// Times of a log or a scenario, s: over 300 years, so that Unix time stamps fit.
pub const MAX_TIME_S: f64 = 1e10;
/// Curvatures, 1/m (a radius of 1 mm).
pub const MAX_CURVATURE_PER_M: f64 = 1e3;
/// A map's or corridor's cell size, m.
pub const RESOLUTION_M: RangeInclusive<f64> = 1e-4..=1e4;
/// The vertices of one polygon (a scenario's obstacle or an object actor's shape).
pub const MAX_POLYGON_VERTICES: usize = 10_000;
/// The most bytes one compressed piece of a bag may unpack to (a ROS 1 chunk, a zstd
/// message): 256 MiB, far above a recorder's chunk (rosbag's default is 768 KiB), so that
/// a small file cannot ask for gigabytes.
pub const MAX_UNPACKED_BYTES: usize = 1 << 28;

/// A number as a reader would write it: exponent form where it is very large or small.
pub fn show(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-3..1e6).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// `v` if it lies in `range`, else a message naming `key` (in backquotes; the caller says
/// whether it is a key or a column), the value and the range.
pub fn within(key: &str, v: f64, range: RangeInclusive<f64>, unit: &str) -> Result<f64, String> {
    if range.contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "`{key}`: {} is outside {} to {} {unit}",
            show(v),
            show(*range.start()),
            show(*range.end())
        ))
    }
}

/// `v` if `|v| <= max`.
pub fn magnitude(key: &str, v: f64, max: f64, unit: &str) -> Result<f64, String> {
    within(key, v, -max..=max, unit)
}

/// A position, m.
pub fn position(key: &str, v: f64) -> Result<f64, String> {
    magnitude(key, v, MAX_POSITION_M, "m")
}

/// A speed, m/s (either sign).
pub fn speed(key: &str, v: f64) -> Result<f64, String> {
    magnitude(key, v, MAX_SPEED_MPS, "m/s")
}

/// An angle, rad.
pub fn angle_rad(key: &str, v: f64) -> Result<f64, String> {
    magnitude(key, v, MAX_ANGLE_RAD, "rad")
}

/// An angle, degrees.
pub fn angle_deg(key: &str, v: f64) -> Result<f64, String> {
    magnitude(key, v, MAX_ANGLE_DEG.round(), "degrees")
}

/// A cell size, m.
pub fn resolution(key: &str, v: f64) -> Result<f64, String> {
    within(key, v, RESOLUTION_M, "m")
}

/// A polygon's vertex count.
pub fn vertices(key: &str, n: usize) -> Result<usize, String> {
    if n <= MAX_POLYGON_VERTICES {
        Ok(n)
    } else {
        Err(format!(
            "`{key}`: {n} vertices, more than {MAX_POLYGON_VERTICES}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bounds_hold_their_ends_and_refuse_just_beyond() {
        assert!(position("x", 1e8).is_ok() && position("x", -1e8).is_ok());
        let e = position("x", 1.000_000_1e8).unwrap_err();
        assert_eq!(e, "`x`: 1.0000001e8 is outside -1e8 to 1e8 m");
        assert!(position("x", f64::NAN).is_err() && position("x", f64::INFINITY).is_err());
        assert!(speed("v", -100.0).is_ok() && speed("v", 100.000_01).is_err());
        assert!(resolution("r", 1e-4).is_ok() && resolution("r", 1e4).is_ok());
        assert!(resolution("r", 0.99e-4).is_err() && resolution("r", 5e-324).is_err());
        assert!(resolution("r", 1.01e4).is_err() && resolution("r", -1.0).is_err());
        assert!(angle_rad("yaw", 1e300).is_err() && angle_rad("yaw", -1e6).is_ok());
        assert!(angle_deg("yaw_deg", 5.7e7).is_ok() && angle_deg("yaw_deg", 5.8e7).is_err());
        assert!(vertices("p", 10_000).is_ok() && vertices("p", 10_001).is_err());
    }
}
