//! The planar scan of the shield (vehicle-software.md "Scan of the shield"): `beams`
//! ranges, beam `i` at the bearing `i × 360° / beams` counter-clockwise from the body x
//! axis, measured from the scan's mount point. A beam with no return (infinite, or at or
//! beyond the reach `range_m`) is free to the reach: the reference's no_return_is_safe.

use serde::{Deserialize, Serialize};

/// An error of a scan: a value that is not a range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScanError {
    #[error("scan beam {beam}: {value} is not a range (NaN or negative)")]
    BadRange { beam: usize, value: f64 },
    #[error("the scan has {got} beams, the shield expects {want} (corridor.beams)")]
    BeamCount { got: usize, want: usize },
}

/// One scan: a range per beam, m; `f64::INFINITY` where a beam has no return.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scan {
    ranges: Vec<f64>,
}

impl Scan {
    /// A scan from its ranges; NaN or negative ranges are refused.
    pub fn new(ranges: Vec<f64>) -> Result<Scan, ScanError> {
        if let Some((beam, &value)) = ranges
            .iter()
            .enumerate()
            .find(|(_, r)| r.is_nan() || **r < 0.0)
        {
            return Err(ScanError::BadRange { beam, value });
        }
        Ok(Scan { ranges })
    }

    /// A scan from the wire and log form, null (None) for a beam with no return.
    pub fn from_returns(ranges: &[Option<f64>]) -> Result<Scan, ScanError> {
        Scan::new(ranges.iter().map(|r| r.unwrap_or(f64::INFINITY)).collect())
    }

    /// A scan with no return on any beam.
    pub fn empty(beams: usize) -> Scan {
        Scan {
            ranges: vec![f64::INFINITY; beams],
        }
    }

    /// The number of beams.
    pub fn beams(&self) -> usize {
        self.ranges.len()
    }

    /// The ranges, m.
    pub fn ranges(&self) -> &[f64] {
        &self.ranges
    }

    /// The ranges, given back for reuse (no allocation per step in a replay).
    pub fn into_ranges(self) -> Vec<f64> {
        self.ranges
    }

    /// Sets the range of one beam (tests and the simulated scan).
    pub fn set(&mut self, beam: usize, range_m: f64) -> Result<(), ScanError> {
        if range_m.is_nan() || range_m < 0.0 {
            return Err(ScanError::BadRange {
                beam,
                value: range_m,
            });
        }
        self.ranges[beam] = range_m;
        Ok(())
    }
}

/// The beam directions and the mount point: what turns ranges into points of the body
/// frame. Built once; the shield reuses it every step.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanGeometry {
    cos: Vec<f64>,
    sin: Vec<f64>,
    mount: (f64, f64),
    reach_m: f64,
}

impl ScanGeometry {
    /// The geometry of `beams` evenly spaced beams from `mount` (body frame, m) with the
    /// reach `reach_m`.
    pub fn new(beams: usize, mount: (f64, f64), reach_m: f64) -> ScanGeometry {
        let step = std::f64::consts::TAU / beams as f64;
        let (sin, cos) = (0..beams).map(|i| (i as f64 * step).sin_cos()).unzip();
        ScanGeometry {
            cos,
            sin,
            mount,
            reach_m,
        }
    }

    /// The number of beams.
    pub fn beams(&self) -> usize {
        self.cos.len()
    }

    /// The reach, m.
    pub fn reach_m(&self) -> f64 {
        self.reach_m
    }

    /// Checks that a scan has this geometry's number of beams.
    pub fn check(&self, scan: &Scan) -> Result<(), ScanError> {
        if scan.beams() != self.beams() {
            return Err(ScanError::BeamCount {
                got: scan.beams(),
                want: self.beams(),
            });
        }
        Ok(())
    }

    /// The returns of a scan with their beam index, as points of the body frame; beams
    /// with no return inside the reach are left out.
    pub fn indexed_points<'a>(
        &'a self,
        scan: &'a Scan,
    ) -> impl Iterator<Item = (usize, f64, f64)> + 'a {
        let (mx, my) = self.mount;
        let reach = self.reach_m;
        scan.ranges
            .iter()
            .zip(self.cos.iter().zip(&self.sin))
            .enumerate()
            .filter(move |(_, (r, _))| **r < reach)
            .map(move |(i, (r, (c, s)))| (i, mx + r * c, my + r * s))
    }

    /// The returns of a scan as points of the body frame; beams with no return inside the
    /// reach are left out.
    pub fn points<'a>(&'a self, scan: &'a Scan) -> impl Iterator<Item = (f64, f64)> + 'a {
        let (mx, my) = self.mount;
        let reach = self.reach_m;
        scan.ranges
            .iter()
            .zip(self.cos.iter().zip(&self.sin))
            .filter(move |(r, _)| **r < reach)
            .map(move |(r, (c, s))| (mx + r * c, my + r * s))
    }
}

/// ⌊v⌋ without a call to the library's `floor` (which the baseline x86-64 target does
/// not inline): exact for |v| < 2⁶³, saturating beyond, 0 for NaN.
pub(crate) fn floor_i64(v: f64) -> i64 {
    let t = v as i64;
    t - i64::from((t as f64) > v)
}

/// ⌈v⌉ as [`floor_i64`].
pub(crate) fn ceil_i64(v: f64) -> i64 {
    let t = v as i64;
    t + i64::from((t as f64) < v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beam_bearings_are_degrees_counter_clockwise() {
        let g = ScanGeometry::new(360, (1.0, 0.0), 40.0);
        let mut s = Scan::empty(360);
        s.set(0, 5.0).unwrap();
        s.set(90, 2.0).unwrap();
        s.set(180, 50.0).unwrap(); // beyond the reach: no return
        let pts: Vec<(f64, f64)> = g.points(&s).collect();
        assert_eq!(pts.len(), 2);
        assert!((pts[0].0 - 6.0).abs() < 1e-12 && pts[0].1.abs() < 1e-12);
        assert!((pts[1].0 - 1.0).abs() < 1e-12 && (pts[1].1 - 2.0).abs() < 1e-12);
    }

    #[test]
    fn floor_and_ceil_as_integers() {
        for v in [
            -2.5,
            -2.0,
            -1e-300,
            -0.0,
            0.0,
            1e-300,
            0.5,
            2.0,
            2.5,
            1e15 + 0.5,
        ] {
            assert_eq!(floor_i64(v), v.floor() as i64, "floor {v}");
            assert_eq!(ceil_i64(v), v.ceil() as i64, "ceil {v}");
        }
        assert_eq!(floor_i64(f64::NAN), 0);
        assert_eq!(floor_i64(1e300), i64::MAX);
        assert_eq!(ceil_i64(-1e300), i64::MIN);
    }

    #[test]
    fn bad_ranges_are_refused() {
        let e = Scan::new(vec![1.0, f64::NAN]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "scan beam 1: NaN is not a range (NaN or negative)"
        );
        assert!(Scan::new(vec![-1.0]).is_err());
        assert!(Scan::empty(3).set(2, -0.5).is_err());
        let g = ScanGeometry::new(360, (0.0, 0.0), 40.0);
        assert!(g.check(&Scan::empty(180)).is_err());
    }
}
