//! The cheap first pass of the shield's band tests as one bit per point: whether the
//! point may lie in the band, from its single-precision copy, 64 points to a word.
//!
//! A band is one of three kinds ([`Kind`]), each a few of these tests: a point is kept
//! unless `q < lo` or `q > hi`, where `q = a (x² + y²) + c y` (an arc), unless it lies
//! outside the box `[x0, x1] × [y0, y1]` (a straight band), or unless it lies outside
//! the box or `x² + y² > hi` (the path's box near the vehicle). A comparison with a NaN
//! holds for none of these, so a NaN point is kept and the exact test decides. The pass
//! runs eight lanes at a time where the processor has AVX2 (found at run time) and four
//! lanes (SSE2, the baseline x86-64 target) elsewhere. Both make the same
//! single-precision operations in the same order (no fused multiply-add), so they keep
//! the same points, to the bit.

use wide::{CmpGt, CmpLt, f32x4};

/// How many points one word of the first pass covers.
pub const WORD: usize = 64;

/// Which of the test's parts a band uses: the fewer, the cheaper each lane (a lane's
/// products and comparisons share two of the processor's pipes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The quadratic band alone (an arc), with `c` either 1 or −1.
    Quad,
    /// The box alone (a straight band).
    Strip,
    /// The box and `x² + y² ≤ hi` (the path's box near the vehicle).
    BoxNear,
}

/// The first pass's test of a band (single precision, margins already applied).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rough {
    /// Which parts of the test apply (the others must keep every point).
    pub kind: Kind,
    /// The weight of x² + y² in q.
    pub a: f32,
    /// The weight of y in q: 1 or −1 for [`Kind::Quad`] (unused by the other kinds).
    pub c: f32,
    /// The bounds of q (`hi` bounds x² + y² for [`Kind::BoxNear`]).
    pub lo: f32,
    pub hi: f32,
    /// The box: x in [x0, x1], y in [y0, y1].
    pub x0: f32,
    pub x1: f32,
    pub y0: f32,
    pub y1: f32,
}

/// The kinds as the kernels' constant parameter.
const QUAD: u8 = 0;
const STRIP: u8 = 1;
const BOX_NEAR: u8 = 2;

impl Rough {
    /// A test of `kind` that keeps every point, to fill in.
    pub const fn all(kind: Kind) -> Rough {
        Rough {
            kind,
            a: 0.0,
            c: 0.0,
            lo: f32::NEG_INFINITY,
            hi: f32::INFINITY,
            x0: f32::NEG_INFINITY,
            x1: f32::INFINITY,
            y0: f32::NEG_INFINITY,
            y1: f32::INFINITY,
        }
    }

    /// Whether one point passes (the lane-by-lane meaning of the words).
    #[cfg(test)]
    pub fn keeps(&self, x: f32, y: f32) -> bool {
        let r2 = x * x + y * y;
        let q = self.a * r2 + self.c * y;
        // Each test keeps a lane unless a comparison holds (a NaN is kept).
        let in_box = !(x < self.x0 || x > self.x1 || y < self.y0 || y > self.y1);
        let far = r2 > self.hi;
        match self.kind {
            Kind::Quad => !(q < self.lo || q > self.hi),
            Kind::Strip => in_box,
            Kind::BoxNear => in_box && !far,
        }
    }

    /// Fills `words[w]` with the bits of points `64 w .. 64 (w + 1)` of `xf`, `yf` (bit
    /// `i` for point `64 w + i`), for as many words as `words` holds; `xf` and `yf` must
    /// hold `64 words.len()` values. The bits past the points the caller has are not
    /// meaningful and must be masked off.
    pub fn words(&self, xf: &[f32], yf: &[f32], words: &mut [u64]) {
        let n = WORD * words.len();
        assert!(xf.len() >= n && yf.len() >= n, "a word's worth of lanes");
        let (xf, yf) = (&xf[..n], &yf[..n]);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, and the slices hold every lane read.
            unsafe {
                match self.kind {
                    Kind::Quad => avx2::words::<QUAD>(self, xf, yf, words),
                    Kind::Strip => avx2::words::<STRIP>(self, xf, yf, words),
                    Kind::BoxNear => avx2::words::<BOX_NEAR>(self, xf, yf, words),
                }
            }
            return;
        }
        self.words_baseline(xf, yf, words);
    }

    /// [`Rough::words`] four lanes at a time on the baseline target.
    pub fn words_baseline(&self, xf: &[f32], yf: &[f32], words: &mut [u64]) {
        match self.kind {
            Kind::Quad => self.baseline::<QUAD>(xf, yf, words),
            Kind::Strip => self.baseline::<STRIP>(xf, yf, words),
            Kind::BoxNear => self.baseline::<BOX_NEAR>(xf, yf, words),
        }
    }

    /// [`Rough::words_baseline`] for the kind `K`.
    fn baseline<const K: u8>(&self, xf: &[f32], yf: &[f32], words: &mut [u64]) {
        let s = f32x4::splat;
        let (a, lo, hi) = (s(self.a), s(self.lo), s(self.hi));
        // c y for c = ±1 is y with c's sign bit: the same value, to the bit.
        let sign = s(if self.c < 0.0 { -0.0 } else { 0.0 });
        let (x0, x1, y0, y1) = (s(self.x0), s(self.x1), s(self.y0), s(self.y1));
        let (xb, yb) = (xf.chunks_exact(WORD), yf.chunks_exact(WORD));
        for ((xw, yw), word) in xb.zip(yb).zip(words.iter_mut()) {
            let mut bits = 0u64;
            for (j, (x, y)) in xw.chunks_exact(4).zip(yw.chunks_exact(4)).enumerate() {
                let x = f32x4::new(x.try_into().expect("four lanes"));
                let y = f32x4::new(y.try_into().expect("four lanes"));
                let out = match K {
                    QUAD => {
                        let q = a * (x * x + y * y) + (y ^ sign);
                        q.cmp_lt(lo) | q.cmp_gt(hi)
                    }
                    _ => {
                        let out = x.cmp_lt(x0) | x.cmp_gt(x1) | y.cmp_lt(y0) | y.cmp_gt(y1);
                        if K == BOX_NEAR {
                            out | (x * x + y * y).cmp_gt(hi)
                        } else {
                            out
                        }
                    }
                };
                bits |= ((out.move_mask() ^ 0b1111) as u64) << (4 * j);
            }
            *word = bits;
        }
    }
}

/// The eight-lane pass, for processors with AVX2.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{BOX_NEAR, QUAD, Rough, WORD};
    use std::arch::x86_64::*;

    /// [`Rough::words`] eight lanes at a time for the kind `K`; `xf` and `yf` hold
    /// `64 words.len()` lanes.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn words<const K: u8>(r: &Rough, xf: &[f32], yf: &[f32], words: &mut [u64]) {
        let s = _mm256_set1_ps;
        let (a, lo, hi) = (s(r.a), s(r.lo), s(r.hi));
        let sign = s(if r.c < 0.0 { -0.0 } else { 0.0 });
        let (x0, x1, y0, y1) = (s(r.x0), s(r.x1), s(r.y0), s(r.y1));
        for (w, word) in words.iter_mut().enumerate() {
            let mut bits = 0u64;
            for j in 0..WORD / 8 {
                let i = w * WORD + 8 * j;
                // SAFETY: the caller's slices hold lanes i..i + 8 (64 a word).
                let (x, y) = unsafe {
                    (
                        _mm256_loadu_ps(xf.as_ptr().add(i)),
                        _mm256_loadu_ps(yf.as_ptr().add(i)),
                    )
                };
                let r2 = || _mm256_add_ps(_mm256_mul_ps(x, x), _mm256_mul_ps(y, y));
                let out = if K == QUAD {
                    let q = _mm256_add_ps(_mm256_mul_ps(a, r2()), _mm256_xor_ps(y, sign));
                    _mm256_or_ps(
                        _mm256_cmp_ps::<_CMP_LT_OQ>(q, lo),
                        _mm256_cmp_ps::<_CMP_GT_OQ>(q, hi),
                    )
                } else {
                    let out = _mm256_or_ps(
                        _mm256_or_ps(
                            _mm256_cmp_ps::<_CMP_LT_OQ>(x, x0),
                            _mm256_cmp_ps::<_CMP_GT_OQ>(x, x1),
                        ),
                        _mm256_or_ps(
                            _mm256_cmp_ps::<_CMP_LT_OQ>(y, y0),
                            _mm256_cmp_ps::<_CMP_GT_OQ>(y, y1),
                        ),
                    );
                    if K == BOX_NEAR {
                        _mm256_or_ps(out, _mm256_cmp_ps::<_CMP_GT_OQ>(r2(), hi))
                    } else {
                        out
                    }
                };
                let keep = !_mm256_movemask_ps(out) as u8;
                bits |= (keep as u64) << (8 * j);
            }
            *word = bits;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Values near the edges of the test's bounds, with NaN and the infinities.
    fn value() -> impl Strategy<Value = f32> {
        prop_oneof![
            -60.0f32..60.0,
            Just(f32::NAN),
            Just(f32::INFINITY),
            Just(f32::NEG_INFINITY),
            Just(0.0),
            Just(-0.0),
            (-3.0f32..3.0).prop_map(|v| 1.0 + v * f32::EPSILON),
        ]
    }

    fn rough() -> impl Strategy<Value = Rough> {
        let kind = prop_oneof![Just(Kind::Quad), Just(Kind::Strip), Just(Kind::BoxNear)];
        (
            (
                kind,
                -2.0f32..2.0,
                any::<bool>(),
                -60.0f32..60.0,
                0.0f32..400.0,
            ),
            (-60.0f32..60.0, 0.0f32..60.0, -60.0f32..60.0, 0.0f32..60.0),
        )
            .prop_map(|((kind, a, left, lo, span), (x0, dx, y0, dy))| Rough {
                kind,
                a,
                c: if left { -1.0 } else { 1.0 },
                lo,
                hi: lo + span,
                x0,
                x1: x0 + dx,
                y0,
                y1: y0 + dy,
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        /// Both passes give, lane by lane, what the scalar test gives, whichever the
        /// processor runs: the words do not depend on the lanes' width.
        #[test]
        fn the_words_are_the_scalar_test_lane_by_lane(
            r in rough(),
            pts in prop::collection::vec((value(), value()), 2 * WORD),
            edge in 0usize..4,
        ) {
            let mut r = r;
            let (x, y) = pts[0];
            match edge {
                // A point exactly on the box's corner, or on a bound of q.
                1 => (r.x0, r.y1) = (x, y),
                2 => {
                    r.hi = r.a * (x * x + y * y) + r.c * y;
                    r.lo = r.lo.min(r.hi - 1.0);
                }
                3 => {
                    r.lo = r.a * (x * x + y * y) + r.c * y;
                    r.hi = r.hi.max(r.lo + 1.0);
                }
                _ => {}
            }
            let xf: Vec<f32> = pts.iter().map(|p| p.0).collect();
            let yf: Vec<f32> = pts.iter().map(|p| p.1).collect();
            let (mut fast, mut base) = ([0u64; 2], [0u64; 2]);
            r.words(&xf, &yf, &mut fast);
            r.words_baseline(&xf, &yf, &mut base);
            for (i, (&x, &y)) in xf.iter().zip(&yf).enumerate() {
                let want = r.keeps(x, y);
                prop_assert_eq!(fast[i / WORD] >> (i % WORD) & 1 == 1, want, "point {}", i);
                prop_assert_eq!(base[i / WORD] >> (i % WORD) & 1 == 1, want, "point {}", i);
            }
        }
    }

    #[test]
    fn a_nan_point_is_kept_and_a_far_one_is_not() {
        let r = Rough {
            x1: 10.0,
            ..Rough::all(Kind::Strip)
        };
        let mut xf = vec![0.0f32; WORD];
        let yf = vec![0.0f32; WORD];
        xf[3] = f32::NAN;
        xf[5] = 10.5;
        let mut w = [0u64];
        r.words(&xf, &yf, &mut w);
        assert_eq!(w[0], !(1u64 << 5));
    }
}
