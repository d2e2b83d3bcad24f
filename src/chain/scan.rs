//! The planar scan of the shield (vehicle-software.md "Scan of the shield"): `beams`
//! ranges, beam `i` at the bearing `i × 360° / beams` counter-clockwise from the body x
//! axis, measured from the scan's mount point. A beam with no return (infinite, or at or
//! beyond the reach `range_m`) is free to the reach: the reference's no_return_is_safe.

use serde::{Deserialize, Serialize};
use wide::{CmpLt, f64x4};

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

    /// The returns of a scan as [`ScanGeometry::points`] gives them, in order, written
    /// into `out` (emptied first): four beams at a time, a block with no return skipped.
    pub fn points_into(&self, scan: &Scan, out: &mut Points) {
        out.clear();
        let n = scan.ranges.len().min(self.cos.len());
        let (r, c, s) = (&scan.ranges[..n], &self.cos[..n], &self.sin[..n]);
        let (mx, my) = (f64x4::splat(self.mount.0), f64x4::splat(self.mount.1));
        let reach = f64x4::splat(self.reach_m);
        let whole = n - n % 4;
        for i in (0..whole).step_by(4) {
            let rv = four(&r[i..i + 4]);
            let mask = rv.cmp_lt(reach).move_mask();
            if mask == 0 {
                continue;
            }
            let x = (mx + rv * four(&c[i..i + 4])).to_array();
            let y = (my + rv * four(&s[i..i + 4])).to_array();
            if mask == 0b1111 {
                out.xs.extend_from_slice(&x);
                out.ys.extend_from_slice(&y);
            } else {
                for j in (0..4).filter(|j| mask & (1 << j) != 0) {
                    out.push(x[j], y[j]);
                }
            }
        }
        for i in whole..n {
            if r[i] < self.reach_m {
                out.push(self.mount.0 + r[i] * c[i], self.mount.1 + r[i] * s[i]);
            }
        }
    }
}

/// Points of the body frame in two plain arrays, x and y, so that the shield's band
/// tests read them four at a time. Reused from step to step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Points {
    xs: Vec<f64>,
    ys: Vec<f64>,
}

impl Points {
    /// Empties the arrays, keeping their memory.
    pub fn clear(&mut self) {
        self.xs.clear();
        self.ys.clear();
    }

    /// Adds a point.
    pub fn push(&mut self, x: f64, y: f64) {
        self.xs.push(x);
        self.ys.push(y);
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.xs.len()
    }

    /// Whether there is no point.
    pub fn is_empty(&self) -> bool {
        self.xs.is_empty()
    }

    /// The x coordinates, m.
    pub fn xs(&self) -> &[f64] {
        &self.xs
    }

    /// The y coordinates, m.
    pub fn ys(&self) -> &[f64] {
        &self.ys
    }

    /// The points as pairs.
    pub fn iter(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.xs.iter().copied().zip(self.ys.iter().copied())
    }
}

impl FromIterator<(f64, f64)> for Points {
    fn from_iter<I: IntoIterator<Item = (f64, f64)>>(iter: I) -> Points {
        let mut p = Points::default();
        for (x, y) in iter {
            p.push(x, y);
        }
        p
    }
}

/// Four values from the start of `v` as one four-lane value (`v` has at least four).
pub(crate) fn four(v: &[f64]) -> f64x4 {
    f64x4::new([v[0], v[1], v[2], v[3]])
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
        let mut arrays = Points::default();
        g.points_into(&s, &mut arrays);
        assert_eq!(arrays.iter().collect::<Vec<_>>(), pts);
        assert_eq!(pts.len(), 2);
        assert!((pts[0].0 - 6.0).abs() < 1e-12 && pts[0].1.abs() < 1e-12);
        assert!((pts[1].0 - 1.0).abs() < 1e-12 && (pts[1].1 - 2.0).abs() < 1e-12);
    }

    use proptest::prelude::*;

    proptest! {
        /// The arrays hold the points the iterator gives, in order, bit for bit, for any
        /// beam count (whole blocks of four or not) and ranges about the reach.
        #[test]
        fn the_arrays_hold_the_iterators_points(
            ranges in prop::collection::vec(
                prop_oneof![Just(f64::INFINITY), 0.0f64..45.0, 39.9f64..40.1, Just(40.0)],
                0..41,
            ),
        ) {
            let g = ScanGeometry::new(ranges.len(), (1.9, -0.1), 40.0);
            let scan = Scan::new(ranges).unwrap();
            let mut out = Points::default();
            out.push(7.0, 7.0); // emptied first
            g.points_into(&scan, &mut out);
            let want: Vec<(u64, u64)> = g.points(&scan).map(|(x, y)| (x.to_bits(), y.to_bits())).collect();
            let got: Vec<(u64, u64)> = out.iter().map(|(x, y)| (x.to_bits(), y.to_bits())).collect();
            prop_assert_eq!(got, want);
        }
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
