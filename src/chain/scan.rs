//! The planar scan of the shield (vehicle-software.md "Scan of the shield"): `beams`
//! ranges, beam `i` at the bearing `i × 360° / beams` counter-clockwise from the body x
//! axis, measured from the scan's mount point. A beam with no return (infinite, or at or
//! beyond the reach `range_m`) is free to the reach: the reference's no_return_is_safe.

use serde::{Deserialize, Serialize};
use wide::{CmpLt, f64x4};

/// An error of a scan: a value that is not a range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScanError {
    #[error("scan beam {beam}: {value:?} is not a range (NaN or negative)")]
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
        // `r >= 0` fails for NaN and for a negative range; the folds have no early exit
        // so that they run several beams at a time (the sim casts a scan every control
        // step and a search with an exit cost a tenth of its time), over groups of
        // sixteen so that each has a fixed length to unroll; the culprit is sought after.
        let groups = ranges.chunks_exact(16);
        let rest = groups
            .remainder()
            .iter()
            .fold(true, |ok, r| ok & (*r >= 0.0));
        let valid = groups.fold(rest, |ok, g| {
            ok & g.iter().fold(true, |o, r| o & (*r >= 0.0))
        });
        if !valid {
            let (beam, &value) = ranges
                .iter()
                .enumerate()
                .find(|(_, r)| r.is_nan() || **r < 0.0)
                .expect("a range that fails the check");
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

    /// Where the scanner sits on the body (x forward, y left of the rear axle), m.
    pub fn mount(&self) -> (f64, f64) {
        self.mount
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

    /// The returns of a scan with their beam index, as points of the body frame, handed
    /// to `f` in beam order; beams with no return inside the reach are left out. A group
    /// of sixteen beams where none returns is passed over in one test (most beams of an
    /// open field return nothing, and the tracker walks the scan every control step).
    pub fn for_each_indexed_point(&self, scan: &Scan, mut f: impl FnMut(usize, f64, f64)) {
        let n = scan.ranges.len().min(self.cos.len());
        let (r, c, s) = (&scan.ranges[..n], &self.cos[..n], &self.sin[..n]);
        let (mx, my) = self.mount;
        let reach = self.reach_m;
        // Sixteen beams at a time: a group without a return (most of a sparse scan) is
        // passed over in one test (a fold the compiler runs over several lanes at once).
        // Whole groups only, so that the fold has a fixed length to unroll.
        let groups = r.chunks_exact(16);
        let rest = n - groups.remainder().len();
        for (g, group) in groups.enumerate() {
            if !group.iter().fold(false, |any, v| any | (*v < reach)) {
                continue;
            }
            for (k, v) in group.iter().enumerate() {
                if *v < reach {
                    let i = 16 * g + k;
                    f(i, mx + r[i] * c[i], my + r[i] * s[i]);
                }
            }
        }
        for i in rest..n {
            if r[i] < reach {
                f(i, mx + r[i] * c[i], my + r[i] * s[i]);
            }
        }
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
    /// into `out` (emptied first): four beams at a time, a block with no return skipped,
    /// the four lanes of a block written in place and the count moved on by those kept.
    pub fn points_into(&self, scan: &Scan, out: &mut Points) {
        let n = scan.ranges.len().min(self.cos.len());
        out.clear();
        // A point is written at most at its own beam's index (the count never passes the
        // beam), so n entries hold them all.
        out.room(n);
        let whole = n - n % 4;
        let beams = Beams {
            r: &scan.ranges[..whole],
            c: &self.cos[..whole],
            s: &self.sin[..whole],
            mount: self.mount,
            reach: self.reach_m,
        };
        let into = PointsOut {
            xs: &mut out.xs[..n],
            ys: &mut out.ys[..n],
            xf: &mut out.xf[..n],
            yf: &mut out.yf[..n],
        };
        #[cfg(target_arch = "x86_64")]
        let (mut k, mut late) = if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2.
            unsafe { avx2::blocks(&beams, into) }
        } else {
            beams.blocks(into)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let (mut k, mut late) = beams.blocks(into);
        let (r, c, s) = (&scan.ranges, &self.cos, &self.sin);
        let (xs, ys) = (&mut out.xs, &mut out.ys);
        for i in whole..n {
            if r[i] < self.reach_m {
                late = late.min(k);
                xs[k] = self.mount.0 + r[i] * c[i];
                ys[k] = self.mount.1 + r[i] * s[i];
                k += 1;
            }
        }
        // The single-precision copy of the points written one lane at a time, in one
        // pass (from the first of them: a few where most beams have no return).
        let late = late.min(k);
        for (f, v) in out.xf[late..k].iter_mut().zip(&xs[late..k]) {
            *f = *v as f32;
        }
        for (f, v) in out.yf[late..k].iter_mut().zip(&ys[late..k]) {
            *f = *v as f32;
        }
        out.len = k;
        // Every point lies within the reach of the mount point.
        out.bound = self.mount.0.abs().max(self.mount.1.abs()) + self.reach_m;
    }
}

/// The whole blocks of four beams of a scan, for [`ScanGeometry::points_into`]: ranges,
/// directions, the mount point and the reach.
struct Beams<'a> {
    r: &'a [f64],
    c: &'a [f64],
    s: &'a [f64],
    mount: (f64, f64),
    reach: f64,
}

/// The arrays [`Beams::blocks`] writes, each at least as long as the beams.
struct PointsOut<'a> {
    xs: &'a mut [f64],
    ys: &'a mut [f64],
    xf: &'a mut [f32],
    yf: &'a mut [f32],
}

impl Beams<'_> {
    /// Writes the returns of the blocks in order, a block with no return skipped and
    /// the four lanes of a block written in place with the count moved on by those
    /// kept. Gives the count and the first point whose single-precision copy is not
    /// written (its block was not whole), or the beams' number.
    fn blocks(&self, out: PointsOut) -> (usize, usize) {
        let (mx, my) = (f64x4::splat(self.mount.0), f64x4::splat(self.mount.1));
        let reach = f64x4::splat(self.reach);
        let PointsOut { xs, ys, xf, yf } = out;
        let (mut k, mut late) = (0, self.r.len());
        let blocks = (self.r.chunks_exact(4))
            .zip(self.c.chunks_exact(4))
            .zip(self.s.chunks_exact(4));
        for ((rb, cb), sb) in blocks {
            let rv = four(rb);
            let mask = rv.cmp_lt(reach).move_mask();
            if mask == 0 {
                continue;
            }
            let x = (mx + rv * four(cb)).to_array();
            let y = (my + rv * four(sb)).to_array();
            if mask == 0b1111 {
                xs[k..k + 4].copy_from_slice(&x);
                ys[k..k + 4].copy_from_slice(&y);
                xf[k..k + 4].copy_from_slice(&x.map(|v| v as f32));
                yf[k..k + 4].copy_from_slice(&y.map(|v| v as f32));
                k += 4;
            } else {
                late = late.min(k);
                for j in 0..4 {
                    (xs[k], ys[k]) = (x[j], y[j]);
                    k += (mask >> j) as usize & 1;
                }
            }
        }
        (k, late)
    }
}

/// Beams [`avx2::blocks`] tests at once for any return (four blocks of four).
#[cfg(target_arch = "x86_64")]
const GROUP: usize = 16;

/// [`Beams::blocks`] with four lanes of double precision in one register, for
/// processors with AVX2: the same operations in the same order (no fused multiply-add),
/// so the same points to the bit.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Beams, GROUP, PointsOut};
    use std::arch::x86_64::*;

    /// See [`Beams::blocks`].
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn blocks(b: &Beams, out: PointsOut) -> (usize, usize) {
        let (mx, my) = (_mm256_set1_pd(b.mount.0), _mm256_set1_pd(b.mount.1));
        let reach = _mm256_set1_pd(b.reach);
        let PointsOut { xs, ys, xf, yf } = out;
        let n = b.r.len();
        assert!(b.c.len() >= n && b.s.len() >= n && xs.len() >= n && ys.len() >= n);
        assert!(xf.len() >= n && yf.len() >= n && n % 4 == 0);
        let (mut k, mut late) = (0, n);
        let mut i = 0;
        while i < n {
            // A group of sixteen beams without a return (most of a sparse scan) is passed
            // over in one test, by the least of its ranges (a scan has no NaN range).
            if i % GROUP == 0 && i + GROUP <= n {
                // SAFETY: the group's sixteen values are within the n of b.r.
                let least = unsafe {
                    let at = |j| _mm256_loadu_pd(b.r.as_ptr().add(i + j));
                    _mm256_min_pd(_mm256_min_pd(at(0), at(4)), _mm256_min_pd(at(8), at(12)))
                };
                if _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(least, reach)) == 0 {
                    i += GROUP;
                    continue;
                }
            }
            // SAFETY: i + 4 <= n, and every array holds n values; the count k never
            // passes i, so the writes at k..k + 4 are in the arrays too.
            unsafe {
                let r = _mm256_loadu_pd(b.r.as_ptr().add(i));
                let mask = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(r, reach));
                if mask != 0 {
                    let c = _mm256_loadu_pd(b.c.as_ptr().add(i));
                    let s = _mm256_loadu_pd(b.s.as_ptr().add(i));
                    let x = _mm256_add_pd(mx, _mm256_mul_pd(r, c));
                    let y = _mm256_add_pd(my, _mm256_mul_pd(r, s));
                    if mask == 0b1111 {
                        _mm256_storeu_pd(xs.as_mut_ptr().add(k), x);
                        _mm256_storeu_pd(ys.as_mut_ptr().add(k), y);
                        _mm_storeu_ps(xf.as_mut_ptr().add(k), _mm256_cvtpd_ps(x));
                        _mm_storeu_ps(yf.as_mut_ptr().add(k), _mm256_cvtpd_ps(y));
                        k += 4;
                    } else {
                        late = late.min(k);
                        let (mut xa, mut ya) = ([0.0; 4], [0.0; 4]);
                        _mm256_storeu_pd(xa.as_mut_ptr(), x);
                        _mm256_storeu_pd(ya.as_mut_ptr(), y);
                        for j in 0..4 {
                            (xs[k], ys[k]) = (xa[j], ya[j]);
                            k += (mask >> j) as usize & 1;
                        }
                    }
                }
            }
            i += 4;
        }
        (k, late)
    }
}

/// The single-precision copies of [`Points`] are padded to a multiple of this many lanes.
pub const PAD: usize = 64;

/// Points of the body frame in two plain arrays, x and y, so that the shield's band
/// tests read them several at a time, with a copy in single precision for the tests'
/// cheap first pass (eight lanes a register with AVX2, four on the baseline x86-64
/// target; padded to whole words of that pass) and a bound of their coordinates for its
/// margin. Reused from step to step: the arrays keep their
/// length (the first `len` entries are the points), so that refilling them writes in
/// place.
#[derive(Clone, Default)]
pub struct Points {
    xs: Vec<f64>,
    ys: Vec<f64>,
    xf: Vec<f32>,
    yf: Vec<f32>,
    len: usize,
    /// At least the largest |x| and |y| of a point (NaN points aside), m.
    bound: f64,
}

impl Points {
    /// Empties the points, keeping their memory.
    pub fn clear(&mut self) {
        self.len = 0;
        self.bound = 0.0;
    }

    /// Makes the arrays at least `n` long, the single-precision ones to a whole number
    /// of [`PAD`] lanes (a word of the band tests' first pass reads them all).
    fn room(&mut self, n: usize) {
        if self.xs.len() < n {
            self.xs.resize(n, 0.0);
            self.ys.resize(n, 0.0);
            let padded = n.div_ceil(PAD) * PAD;
            self.xf.resize(padded, 0.0);
            self.yf.resize(padded, 0.0);
        }
    }

    /// Adds a point.
    pub fn push(&mut self, x: f64, y: f64) {
        self.room(self.len + 1);
        self.xs[self.len] = x;
        self.ys[self.len] = y;
        self.xf[self.len] = x as f32;
        self.yf[self.len] = y as f32;
        self.len += 1;
        self.bound = self.bound.max(x.abs()).max(y.abs());
    }

    /// At least the largest |x| and |y| of a point, m (a NaN coordinate is left out of
    /// it: a NaN passes every cheap test, and the exact test decides).
    pub fn bound(&self) -> f64 {
        self.bound
    }

    /// The x coordinates in single precision (each the nearest `f32` of its `f64`).
    pub fn xf(&self) -> &[f32] {
        &self.xf[..self.len]
    }

    /// The y coordinates in single precision.
    pub fn yf(&self) -> &[f32] {
        &self.yf[..self.len]
    }

    /// [`Points::xf`] with the lanes after the points to a whole number of [`PAD`]
    /// (what they hold is not meaningful).
    pub fn xf_padded(&self) -> &[f32] {
        &self.xf[..self.len.div_ceil(PAD) * PAD]
    }

    /// [`Points::yf`] padded as [`Points::xf_padded`].
    pub fn yf_padded(&self) -> &[f32] {
        &self.yf[..self.len.div_ceil(PAD) * PAD]
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no point.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The x coordinates, m.
    pub fn xs(&self) -> &[f64] {
        &self.xs[..self.len]
    }

    /// The y coordinates, m.
    pub fn ys(&self) -> &[f64] {
        &self.ys[..self.len]
    }

    /// The points as pairs.
    pub fn iter(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.xs().iter().copied().zip(self.ys().iter().copied())
    }
}

impl PartialEq for Points {
    fn eq(&self, other: &Points) -> bool {
        self.xs() == other.xs() && self.ys() == other.ys()
    }
}

impl std::fmt::Debug for Points {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Points")
            .field("xs", &self.xs())
            .field("ys", &self.ys())
            .finish()
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
        /// beam count (whole blocks of four or not, groups of sixteen or not) and ranges
        /// about the reach, dense or sparse (only every `thin`-th beam from `offset` may
        /// return, so that whole groups of beams have none), also when they are refilled
        /// after a scan with more or fewer returns.
        #[test]
        fn the_arrays_hold_the_iterators_points(
            (before, mut ranges) in (0usize..100).prop_flat_map(|n| {
                let range = prop_oneof![Just(f64::INFINITY), 0.0f64..45.0, 39.9f64..40.1, Just(40.0)];
                (prop::collection::vec(range.clone(), n), prop::collection::vec(range, n))
            }),
            thin in prop_oneof![Just(1usize), Just(15usize), Just(16usize), Just(17usize), 2usize..60],
            offset in 0usize..20,
        ) {
            for (i, r) in ranges.iter_mut().enumerate() {
                if (i + offset) % thin != 0 {
                    *r = f64::INFINITY;
                }
            }
            let g = ScanGeometry::new(ranges.len(), (1.9, -0.1), 40.0);
            let mut out = Points::default();
            out.push(7.0, 7.0); // emptied first
            g.points_into(&Scan::new(before).unwrap(), &mut out);
            let scan = Scan::new(ranges).unwrap();
            g.points_into(&scan, &mut out);
            let want: Vec<(u64, u64)> = g.points(&scan).map(|(x, y)| (x.to_bits(), y.to_bits())).collect();
            let got: Vec<(u64, u64)> = out.iter().map(|(x, y)| (x.to_bits(), y.to_bits())).collect();
            prop_assert_eq!(out.len(), want.len());
            prop_assert_eq!((out.xs().len(), out.ys().len()), (want.len(), want.len()));
            prop_assert_eq!(got, want);
            prop_assert_eq!(&out, &g.points(&scan).collect::<Points>());
            // The indexed points, blocks of four skipped, are every return in order.
            let naive: Vec<(usize, u64, u64)> = (0..scan.beams())
                .filter(|&i| scan.ranges()[i] < 40.0)
                .map(|i| {
                    let r = scan.ranges()[i];
                    (i, (1.9 + r * g.cos[i]).to_bits(), (-0.1 + r * g.sin[i]).to_bits())
                })
                .collect();
            let mut indexed: Vec<(usize, u64, u64)> = Vec::new();
            g.for_each_indexed_point(&scan, |i, x, y| indexed.push((i, x.to_bits(), y.to_bits())));
            prop_assert_eq!(indexed, naive);
        }

        /// A scan is refused exactly when a range is NaN or negative, naming the first
        /// such beam (-0 is a range: the beam touches).
        #[test]
        fn a_scan_is_refused_at_its_first_bad_beam(
            ranges in prop::collection::vec(
                prop_oneof![Just(f64::NAN), Just(-0.0), Just(f64::INFINITY), -1.0f64..1.0, 0.0f64..50.0],
                0..40,
            ),
        ) {
            let bad = ranges.iter().position(|r| r.is_nan() || *r < 0.0);
            match (Scan::new(ranges.clone()), bad) {
                (Ok(scan), None) => prop_assert_eq!(scan.beams(), ranges.len()),
                (Err(ScanError::BadRange { beam, .. }), Some(b)) => prop_assert_eq!(beam, b),
                (got, want) => prop_assert!(false, "{:?} for a bad beam at {:?}", got.is_ok(), want),
            }
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
        // A tiny value keeps its short form: the message stays one line to read.
        let e = Scan::new(vec![-1e-300]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "scan beam 0: -1e-300 is not a range (NaN or negative)"
        );
        assert!(Scan::empty(3).set(2, -0.5).is_err());
        let g = ScanGeometry::new(360, (0.0, 0.0), 40.0);
        assert!(g.check(&Scan::empty(180)).is_err());
    }
}
