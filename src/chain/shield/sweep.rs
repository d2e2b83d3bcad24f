//! The swept corridor of the obstacle rule and the free distance inside it
//! (vehicle-software.md "Shield", "Swept corridor").
//!
//! The corridor is a band of half width `w` around a centre line that starts at the
//! vehicle's reference point (the middle of the rear axle) and runs in the direction of
//! travel: an arc of constant curvature, or the reference path. The free distance is the
//! distance along the centre line from the front of the footprint to the nearest scan
//! return inside the band, or the scan reach where there is none (no_return_is_safe).
//!
//! ```text
//!            band edge (w from the centre line)
//!        . - - - - - - - - - - - - - - - - - .
//!   +---------+                          x return, s along the centre line
//!   |  body ->|========= d_free ========>|
//!   +---------+                          |
//!   ^ rear    ^ front (ahead_m)
//!   axle (s = 0)
//!        ' - - - - - - - - - - - - - - - - - '
//! ```
//!
//! A return beside the body (its station between −behind_m and ahead_m) gives a free
//! distance of 0: the band already touches it. Returns behind the body are ignored.

use super::rough::{Kind, Rough, WORD};
use crate::chain::path::{Path, RUN};
use crate::chain::scan::Points;
use geo::Coord;
use std::f64::consts::{FRAC_PI_2, PI, TAU};
use std::ops::Range;

/// The half width of the swept corridor at the measured speed `v`:
/// `w = m_v + min(G + E, max(f, t_n (G + E) / G |v|))` (vehicle-software.md "Swept
/// corridor"). With `G = 0` the growth term is taken as the full side margin `G + E`.
pub fn half_width(
    speed_mps: f64,
    vehicle_margin_m: f64,
    geofence_margin_m: f64,
    obstacle_extra_m: f64,
    narrow_time_s: f64,
    narrow_floor_m: f64,
) -> f64 {
    let side = geofence_margin_m + obstacle_extra_m;
    let growth = if geofence_margin_m > 0.0 {
        narrow_time_s * side / geofence_margin_m * speed_mps.abs()
    } else {
        side
    };
    vehicle_margin_m + side.min(narrow_floor_m.max(growth))
}

/// The footprint along the direction of travel: how far it reaches ahead of and behind
/// the reference point, m. In reverse the rear overhang is ahead.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Footprint {
    pub ahead_m: f64,
    pub behind_m: f64,
}

/// Below this curvature (1/m) an arc is taken as straight, with the band widened by the
/// largest offset of the arc from the straight line inside the reach, `reach² κ / 2`.
const STRAIGHT_CURVATURE: f64 = 1e-6;

/// The margin of the cheap first pass, as a part of the scale of what it compares: a
/// test in single precision errs by a few parts in 2²⁴ of that scale, 256 times less.
const ROUGH: f64 = 1.0 / 65_536.0;

/// A band test of the free distances: a cheap first pass, [`Band::rough`], on the
/// points' single-precision copy (a word of bits for 64 points, eight or four lanes at
/// a time: [`Rough::words`]), and the test itself, [`Band::exact`], in double precision
/// for the lanes the first pass keeps. The first pass must keep every point the exact test
/// keeps: its bounds are widened by a margin ([`ROUGH`] of the scale of what it
/// compares, far beyond its rounding), and it rejects a lane only where a comparison
/// holds, so that a NaN passes it and the exact test decides.
trait Band {
    /// The first pass for points whose coordinates are at most `bound` in magnitude.
    fn rough(&self, bound: f64) -> Rough;
    /// Whether the point is in the band.
    fn exact(&self, x: f64, y: f64) -> bool;
}

// A padded copy of the points holds whole words of the first pass.
const _: () = assert!(crate::chain::scan::PAD % WORD == 0);

/// Below this many points the exact test alone is cheaper than setting up the first
/// pass (most beams of a sparse scan have no return).
const FEW: usize = 16;

/// Calls `body(i)` for each point `i` in `band`, in order: the exact test for the few
/// lanes the cheap first pass keeps.
#[inline(always)]
fn for_each_kept(points: &Points, band: &impl Band, mut body: impl FnMut(usize)) {
    let (xs, ys) = (points.xs(), points.ys());
    if xs.len() < FEW {
        for (k, (&x, &y)) in xs.iter().zip(ys).enumerate() {
            if band.exact(x, y) {
                body(k);
            }
        }
        return;
    }
    let rough = band.rough(points.bound());
    let (xf, yf) = (points.xf_padded(), points.yf_padded());
    // Eight words (512 points) of the first pass at a time, then their exact tests.
    let mut words = [0u64; 8];
    for start in (0..xs.len()).step_by(words.len() * WORD) {
        let lanes = (xs.len() - start).min(words.len() * WORD);
        let words = &mut words[..lanes.div_ceil(WORD)];
        rough.words(&xf[start..], &yf[start..], words);
        if lanes % WORD != 0 {
            words[lanes / WORD] &= (1 << (lanes % WORD)) - 1;
        }
        for (w, &bits) in words.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let k = start + w * WORD + bits.trailing_zeros() as usize;
                if band.exact(xs[k], ys[k]) {
                    body(k);
                }
                bits &= bits - 1;
            }
        }
    }
}

/// The band of a straight centre line along +x (−x where `sx` is −1): |y| ≤ w, and not
/// behind the tail (x sx ≥ `tail`).
struct Straight {
    w: f64,
    tail: f64,
    sx: f64,
}

impl Band for Straight {
    fn rough(&self, bound: f64) -> Rough {
        let m = ROUGH * (1.0 + bound + self.w.abs() + self.tail.abs());
        let (w, tail) = (widened(self.w, m, 1.0), widened(self.tail, m, -1.0));
        // x sx ≥ tail: x ≥ tail ahead, x ≤ −tail in reverse (a negation is exact).
        let (x0, x1) = if self.sx < 0.0 {
            (f32::NEG_INFINITY, -tail)
        } else {
            (tail, f32::INFINITY)
        };
        Rough {
            x0,
            x1,
            y0: -w,
            y1: w,
            ..Rough::all(Kind::Strip)
        }
    }

    #[inline(always)]
    fn exact(&self, x: f64, y: f64) -> bool {
        y.abs() <= self.w && x * self.sx >= self.tail
    }
}

/// The band of an arc: the points whose squared distance from the centre `(0, cy)`
/// (|cy| = r) lies in [`lo2`, `hi2`].
struct Annulus {
    cy: f64,
    lo2: f64,
    hi2: f64,
}

impl Band for Annulus {
    fn rough(&self, bound: f64) -> Rough {
        // The same band without the large r² (it would swamp single precision on a
        // gentle arc): x² + (y − cy)² − r² = 2r (q − sy y), q = (x² + y²) / 2r.
        let r = self.cy.abs();
        let kh = 0.5 / r;
        let (qlo, qhi) = ((self.lo2 - r * r) * kh, (self.hi2 - r * r) * kh);
        let m = ROUGH * (1.0 + 2.0 * kh * bound * bound + bound + qlo.abs() + qhi.abs());
        Rough {
            a: kh as f32,
            c: -self.cy.signum() as f32,
            lo: widened(qlo, m, -1.0),
            hi: widened(qhi, m, 1.0),
            ..Rough::all(Kind::Quad)
        }
    }

    #[inline(always)]
    fn exact(&self, x: f64, y: f64) -> bool {
        let dy = y - self.cy;
        let rho2 = x * x + dy * dy;
        !(rho2 > self.hi2 || rho2 < self.lo2)
    }
}

/// The points of a box [xmin, ymin, xmax, ymax] within `lim2` squared of the origin.
struct BoxNear {
    bbox: [f64; 4],
    lim2: f64,
}

impl Band for BoxNear {
    fn rough(&self, bound: f64) -> Rough {
        let b = self.bbox;
        let m = ROUGH * (1.0 + bound + b.iter().fold(0.0, |a: f64, v| a.max(v.abs())));
        let [x0, y0] = [b[0], b[1]].map(|v| widened(v, m, -1.0));
        let [x1, y1] = [b[2], b[3]].map(|v| widened(v, m, 1.0));
        Rough {
            hi: widened(self.lim2 * (1.0 + ROUGH), ROUGH, 1.0),
            x0,
            x1,
            y0,
            y1,
            ..Rough::all(Kind::BoxNear)
        }
    }

    #[inline(always)]
    fn exact(&self, x: f64, y: f64) -> bool {
        let [x0, y0, x1, y1] = self.bbox;
        !(x < x0 || x > x1 || y < y0 || y > y1 || x * x + y * y > self.lim2)
    }
}

/// `v` widened by `m` below (`-1`) or above (`1`), in single precision.
fn widened(v: f64, m: f64, side: f64) -> f32 {
    (v + side * m) as f32
}

/// The free distance along an arc of curvature `kappa` (body frame, positive left) for
/// the returns `points` (body frame), with the band half width `w`. `reverse` runs the
/// arc backwards (the points are mirrored in x). At most `reach_m`. The footprint reaches
/// behind the reference point by zero or more (`behind_m` ≥ 0, as the vehicle config's
/// validation holds): the test of returns beside the body rests on it.
pub fn free_distance_arc(
    points: &Points,
    kappa: f64,
    w: f64,
    reverse: bool,
    fp: Footprint,
    reach_m: f64,
) -> f64 {
    let k = kappa.abs();
    let (xs, ys) = (points.xs(), points.ys());
    let sx = if reverse { -1.0 } else { 1.0 };
    let mut best = reach_m;
    if k < STRAIGHT_CURVATURE {
        let w = w + reach_m * reach_m * k / 2.0;
        let band = Straight {
            w,
            tail: -fp.behind_m,
            sx,
        };
        for_each_kept(points, &band, |i| {
            best = best.min((xs[i] * sx - fp.ahead_m).max(0.0));
        });
        return best;
    }
    let r = 1.0 / k;
    let lo = (r - w).max(0.0);
    let (lo2, hi2) = (lo * lo, (r + w) * (r + w));
    let th_min = -fp.behind_m * k;
    // A return at an angle θ in [th_min, 0) (beside the body) has x ≥ −(r + w) |th_min|
    // (|sin θ| ≤ |θ|); one with x < 0 further out lies past half a turn, so its arc
    // length is at least π r. Grown by a part in a billion for the rounding.
    let beside_x = -((r + w) * fp.behind_m * k * (1.0 + 1e-9) + 1e-9);
    let half_turn = PI * r * (1.0 - 1e-9);
    let sy = if kappa < 0.0 { -1.0 } else { 1.0 };
    // The centre of the arc is (0, r); travel is counter-clockwise around it. A return
    // whose distance from the centre is outside [r − w, r + w] is outside the band.
    // Measured in the points' own frame, where the centre is (0, sy r): the mirror
    // changes no square, to the bit.
    let band = Annulus {
        cy: sy * r,
        lo2,
        hi2,
    };
    // A return ahead of the centre (x > 0) lies at θ in [0, π], where no wrap applies
    // while −π/2 < θ_min ≤ 0 (a footprint reaching behind the axle, not too far); the
    // distance grows with θ, so of those only the least θ can give the least distance.
    // They are ordered by a pseudo-angle ([`pseudo_angle`]), and only the least, with
    // any within its margin, takes the `atan2`.
    let ordered = th_min > -FRAC_PI_2 && th_min <= 0.0;
    let arc = ArcStations {
        xs,
        ys,
        sx,
        sy,
        r,
        th_min,
        ahead_m: fp.ahead_m,
    };
    // The least pseudo-angle so far (+∞: none) and its return.
    let mut least = (f64::INFINITY, usize::MAX);
    for_each_kept(points, &band, |i| {
        let (x, y) = (xs[i] * sx, ys[i] * sy);
        // A return at the angle θ about the centre lies within w of the arc's point at
        // r θ, and an arc is never shorter than its chord: its chord from the
        // reference point is at most |r θ| + w. One whose chord is longer than the best
        // distance plus w cannot improve it, nor lie beside the body (θ < 0, where
        // |r θ| ≤ behind_m).
        let lim = (best + fp.ahead_m).max(fp.behind_m) + w;
        if x * x + y * y > lim * lim || (x < beside_x && half_turn >= best + fp.ahead_m) {
            return;
        }
        // The common cases inline, the rest out of line (so that this stays small
        // enough to be inlined into the band's loop).
        match ordered.then(|| pseudo_angle(x, r - y)).flatten() {
            Some(p) if p < least.0 - PSEUDO_MARGIN => least = (p, i),
            Some(p) if p > least.0 + PSEUDO_MARGIN => {}
            p => arc.rare(p, i, &mut least, &mut best),
        }
    });
    if least.1 != usize::MAX {
        best = best.min(arc.station(least.1));
    }
    best
}

/// What the distance along an arc needs of its returns (`xs`, `ys` in the body frame,
/// turned by `sx`, `sy` into the frame where travel is +x about the centre `(0, r)`).
struct ArcStations<'a> {
    xs: &'a [f64],
    ys: &'a [f64],
    sx: f64,
    sy: f64,
    r: f64,
    th_min: f64,
    ahead_m: f64,
}

impl ArcStations<'_> {
    /// The distance along the arc to return `i`.
    fn station(&self, i: usize) -> f64 {
        let (x, y) = (self.xs[i] * self.sx, self.ys[i] * self.sy);
        arc_station(x, y, self.r, self.th_min, self.ahead_m)
    }

    /// Return `i` where it is not simply ordered: with no pseudo-angle (`p` is `None`)
    /// it is measured now; within the margin of the least it may be the least too, so
    /// the greater of the two is measured now and the lesser kept.
    #[cold]
    #[inline(never)]
    fn rare(&self, p: Option<f64>, i: usize, least: &mut (f64, usize), best: &mut f64) {
        let measure = match p {
            None => i,
            Some(p) if p < least.0 => std::mem::replace(least, (p, i)).1,
            Some(_) => i,
        };
        *best = best.min(self.station(measure));
    }
}

/// The distance along the arc of radius `r` (centre `(0, r)`) from the front of the
/// footprint (`ahead_m` from the reference point) to the return `(x, y)` at its angle
/// about the centre, the angle taken in [`th_min`, `th_min` + 2π). Kept out of line: the
/// band's loop calls it rarely, and inlined it would push that loop out of line.
#[inline(never)]
fn arc_station(x: f64, y: f64, r: f64, th_min: f64, ahead_m: f64) -> f64 {
    let mut th = (y - r).atan2(x) + FRAC_PI_2;
    if th < th_min {
        th += TAU;
    } else if th >= th_min + TAU {
        th -= TAU;
    }
    (r * th - ahead_m).max(0.0)
}

/// The margin of [`pseudo_angle`]'s order: two pseudo-angles further apart than this
/// order their angles as they are ordered, far beyond the rounding of either (a few
/// parts in 10¹⁶ of the pseudo-angle, an ulp of `atan2`).
const PSEUDO_MARGIN: f64 = 1e-9;

/// The angle of the vector `(a, b)` from +b towards +a, for `a > 0` (an angle in (0, π)),
/// as a pseudo-angle in [0, 2] that grows with it: `a / (a + b)` up to a quarter turn,
/// then `1 + (−b) / (a − b)`. Its slope is at most 1 (1/(sin θ + cos θ)² in each
/// quarter), so pseudo-angles more than [`PSEUDO_MARGIN`] apart are angles at least as
/// far apart. `None` where `a` is not positive or either is not finite (or too large to
/// sum).
fn pseudo_angle(a: f64, b: f64) -> Option<f64> {
    const LARGE: f64 = 1e300;
    if !(a > 0.0 && a < LARGE && b.abs() < LARGE) {
        return None;
    }
    Some(if b >= 0.0 {
        a / (a + b)
    } else {
        1.0 + -b / (a - b)
    })
}

/// The reference path near the vehicle in the body frame, prepared once per step for
/// [`free_distance_path`]: its segments turned into the body frame, and the bounding
/// circles of the path's runs of segments ([`Path::run_circle`], kept with the path) with
/// only their centres turned, so that a return far from a run skips its segments.
#[derive(Debug, Clone, Default)]
pub struct PathWindow {
    /// The window's segments: `first..end` of the path.
    first: usize,
    end: usize,
    /// Segment ends in the body frame, with the station of the first end relative to the
    /// vehicle's station (segment `first + i` at `i`).
    segs: Vec<([f64; 2], [f64; 2], f64)>,
    /// The runs the window touches: the run, its centre in the body frame and its
    /// radius grown by the band (and a hair for the rounding of the turn).
    runs: Vec<(usize, [f64; 2], f64)>,
    /// The bounding box of the segments grown by the band: [xmin, ymin, xmax, ymax].
    bbox: [f64; 4],
    /// The distance from the reference point to the path's point at the vehicle's
    /// station (where the path's stations count from), m.
    offset_m: f64,
    /// The order in which [`free_distance_path`] measures the returns (kept for its
    /// memory).
    order: Vec<u64>,
}

/// How much a run's circle is grown beyond the band, so that the turn into the body frame
/// never leaves a segment's end outside it: the turn rounds a point by about 1e-16 of its
/// coordinates (under a nanometre at the millions of metres of UTM).
const TURN_MARGIN_M: f64 = 1e-6;

impl PathWindow {
    /// The segments of `part` from `behind_m` before the vehicle's station to `reach_m`
    /// past it, in the body frame of the pose (`x`, `y`, `yaw`), for a band of half width
    /// `w`. Reuses its buffers.
    #[allow(clippy::too_many_arguments)]
    pub fn prepare(
        &mut self,
        path: &Path,
        part: &Range<usize>,
        station_m: f64,
        pose: (f64, f64, f64),
        behind_m: f64,
        reach_m: f64,
        w: f64,
    ) {
        let (px, py, yaw) = pose;
        let (s, c) = yaw.sin_cos();
        let to_body = |p: Coord<f64>| {
            let (dx, dy) = (p.x - px, p.y - py);
            [c * dx + s * dy, -s * dx + c * dy]
        };
        // Galloped from the last window's start: the vehicle moves little in a step (the
        // same segment as a bisection finds, from any start).
        let here_seg = path.segment_near(part, station_m, self.first);
        let here = to_body(path.point_on(here_seg, station_m));
        self.offset_m = here[0].hypot(here[1]);
        self.first = path.segment_near(part, station_m - behind_m, here_seg);
        self.segs.clear();
        let (pts, stations) = (&path.line().0[self.first + 1..], path.stations());
        let mut a = to_body(path.point(self.first));
        let mut bbox = [a[0], a[1], a[0], a[1]];
        for (&p, &st) in pts.iter().zip(&stations[self.first..part.end]) {
            let s0 = st - station_m;
            if s0 > reach_m {
                break;
            }
            let b = to_body(p);
            // Plain comparisons (a box for a cheap test: a NaN end may be left out).
            if b[0] < bbox[0] {
                bbox[0] = b[0];
            }
            if b[1] < bbox[1] {
                bbox[1] = b[1];
            }
            if b[0] > bbox[2] {
                bbox[2] = b[0];
            }
            if b[1] > bbox[3] {
                bbox[3] = b[1];
            }
            self.segs.push((a, b, s0));
            a = b;
        }
        self.end = self.first + self.segs.len();
        self.runs.clear();
        if self.segs.is_empty() {
            self.bbox = [
                f64::INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NEG_INFINITY,
            ];
            return;
        }
        self.bbox = [bbox[0] - w, bbox[1] - w, bbox[2] + w, bbox[3] + w];
        for k in self.first / RUN..=(self.end - 1) / RUN {
            let (centre, r) = path.run_circle(k);
            self.runs.push((k, to_body(centre), r + w + TURN_MARGIN_M));
        }
    }

    /// The window's segments of run `k`.
    fn run_segments(&self, k: usize) -> &[([f64; 2], [f64; 2], f64)] {
        let lo = (k * RUN).max(self.first);
        let hi = ((k + 1) * RUN).min(self.end);
        &self.segs[lo - self.first..hi - self.first]
    }
}

/// The free distance along the reference path for the returns `points` (body frame,
/// turned half a turn where `mirror`, as in reverse):
/// the smallest station at which a return lies within `w` of the path, less the
/// footprint's reach ahead; at most `bound_m` (the reach, or a smaller distance found
/// already, which lets far returns be skipped). A return's station is that of its
/// perpendicular foot on a segment, or that of a vertex where it lies in the wedge
/// outside a corner, so that a return 15 m along the path counts at 15 m, not at the
/// end of an earlier segment whose end cap it touches.
///
/// The returns the band keeps are measured nearest first, so that the first to lower
/// the distance bounds the rest early, and the measuring stops at the first one too far
/// for the bound: the least of a set does not depend on its order.
pub fn free_distance_path(
    points: &Points,
    mirror: bool,
    window: &mut PathWindow,
    w: f64,
    fp: Footprint,
    bound_m: f64,
) -> f64 {
    let (xs, ys) = (points.xs(), points.ys());
    let sign = if mirror { -1.0 } else { 1.0 };
    let mut best = bound_m;
    if window.segs.is_empty() {
        return best;
    }
    // A return within w of the path at the station s is at most
    // offset + |s| + w from the reference point (the path is never shorter than its
    // chord from its point at the vehicle's station). One farther than the best
    // distance allows cannot improve it, nor lie beside the body (|s| ≤ behind_m).
    let offset = window.offset_m;
    let reach = |best: f64| (best + fp.ahead_m).max(fp.behind_m) + w + offset;
    // The box in the points' own frame (turned back where `mirror`).
    let [bx0, by0, bx1, by1] = window.bbox;
    let bbox = if mirror {
        [-bx1, -by1, -bx0, -by0]
    } else {
        window.bbox
    };
    let band = BoxNear {
        bbox,
        lim2: reach(best).powi(2),
    };
    // Each kept return as one integer: its squared distance from the reference point (a
    // sum of squares: its bits order as its value does) with its lowest bits replaced by
    // its index. That key is never more than the distance, so the first key beyond the
    // bound stops the measuring soundly (every later return is at least as far), and a
    // sort of plain integers is cheaper than one of pairs.
    let bits = usize::BITS - xs.len().leading_zeros();
    let low = (1u64 << bits) - 1;
    let mut order = std::mem::take(&mut window.order);
    order.clear();
    for_each_kept(points, &band, |i| {
        let (x, y) = (xs[i], ys[i]);
        order.push((x * x + y * y).to_bits() & !low | i as u64);
    });
    order.sort_unstable();
    for &key in &order {
        let lim = reach(best);
        if f64::from_bits(key & !low) > lim * lim {
            break;
        }
        let i = (key & low) as usize;
        best = path_station(xs[i] * sign, ys[i] * sign, window, w, fp, best);
    }
    window.order = order;
    best
}

/// The free distance `best` lowered by the return `(x, y)` where its station along the
/// window's segments is nearer.
fn path_station(x: f64, y: f64, window: &PathWindow, w: f64, fp: Footprint, best: f64) -> f64 {
    let mut best = best;
    let w2 = w * w;
    for &(k, c, r) in &window.runs {
        if (x - c[0]).powi(2) + (y - c[1]).powi(2) > r * r {
            continue;
        }
        for &(a, b, s0) in window.run_segments(k) {
            let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
            let len2 = ex * ex + ey * ey;
            let (px, py) = (x - a[0], y - a[1]);
            let t = (px * ex + py * ey) / len2;
            let s = if (0.0..=1.0).contains(&t) {
                let cross = px * ey - py * ex;
                if cross * cross > w2 * len2 {
                    continue;
                }
                s0 + t * len2.sqrt()
            } else if t < 0.0 && px * px + py * py <= w2 {
                s0
            } else {
                continue;
            };
            if s >= -fp.behind_m && s - fp.ahead_m < best {
                best = (s - fp.ahead_m).max(0.0);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::path::tests::straight;

    const FP: Footprint = Footprint {
        ahead_m: 2.56,
        behind_m: 0.49,
    };

    fn pts_of(p: impl AsRef<[(f64, f64)]>) -> Points {
        p.as_ref().iter().copied().collect()
    }

    fn w(v: f64) -> f64 {
        half_width(v, 0.8, 0.3, 0.32, 0.075, 0.1)
    }

    proptest::proptest! {
        /// Pseudo-angles further apart than the margin order their angles (as the arc's
        /// `atan2` measures them) the same way, and they lie in [0, 2].
        #[test]
        fn pseudo_angles_order_as_atan2(
            t1 in 1e-9f64..PI - 1e-4,
            d in prop_oneof![-1e-8f64..1e-8, -0.1f64..0.1],
            (r1, r2) in (1e-3f64..1e4, 1e-3f64..1e4),
        ) {
            let t2 = (t1 + d).clamp(1e-9, PI - 1e-4);
            let (a1, b1) = (r1 * t1.sin(), r1 * t1.cos());
            let (a2, b2) = (r2 * t2.sin(), r2 * t2.cos());
            let (p1, p2) = (pseudo_angle(a1, b1).unwrap(), pseudo_angle(a2, b2).unwrap());
            proptest::prop_assert!((0.0..=2.0).contains(&p1) && (0.0..=2.0).contains(&p2));
            let (th1, th2) = ((-b1).atan2(a1), (-b2).atan2(a2));
            if p1 < p2 - PSEUDO_MARGIN {
                proptest::prop_assert!(th1 < th2, "{p1} {p2} {th1} {th2}");
            }
            if p2 < p1 - PSEUDO_MARGIN {
                proptest::prop_assert!(th2 < th1, "{p1} {p2} {th1} {th2}");
            }
        }
    }

    #[test]
    fn pseudo_angle_refuses_what_it_cannot_order() {
        for (a, b) in [
            (0.0, 1.0),
            (-0.0, 1.0),
            (-1.0, 0.5),
            (f64::NAN, 1.0),
            (1.0, f64::NAN),
            (f64::INFINITY, 1.0),
            (1.0, f64::NEG_INFINITY),
            (1e301, 1.0),
        ] {
            assert_eq!(pseudo_angle(a, b), None, "{a} {b}");
        }
        assert_eq!(pseudo_angle(1.0, 1.0), Some(0.5));
        assert_eq!(pseudo_angle(1.0, -1.0), Some(1.5));
        assert_eq!(pseudo_angle(1.0, 0.0), Some(1.0));
    }

    #[test]
    fn worked_example_half_width() {
        // vehicle-software.md: at 2 m/s w = 0.8 + min(0.62, max(0.1, 0.155 × 2)) = 1.11 m;
        // at 4 m/s and faster 1.42 m.
        assert!((w(2.0) - 1.11).abs() < 1e-12);
        assert!((w(4.0) - 1.42).abs() < 1e-12);
        assert!((w(7.8) - 1.42).abs() < 1e-12);
        assert!((w(-2.0) - 1.11).abs() < 1e-12);
        assert!((w(0.0) - 0.9).abs() < 1e-12);
    }

    #[test]
    fn straight_arc_measures_from_the_front() {
        let pts = [(12.0, 0.5), (8.0, 2.0), (-5.0, 0.0)];
        let d = free_distance_arc(&pts_of(pts), 0.0, 1.42, false, FP, 40.0);
        assert!((d - (12.0 - 2.56)).abs() < 1e-12);
        // In reverse the return behind is ahead, measured from the rear overhang.
        let back = Footprint {
            ahead_m: 0.49,
            behind_m: 2.56,
        };
        let r = free_distance_arc(&pts_of(pts), 0.0, 1.42, true, back, 40.0);
        assert!((r - (5.0 - 0.49)).abs() < 1e-12);
        // Nothing in the band: free to the reach.
        let e = free_distance_arc(&pts_of([(3.0, 5.0)]), 0.0, 1.42, false, FP, 40.0);
        assert_eq!(e, 40.0);
    }

    #[test]
    fn arc_distance_is_the_arc_length() {
        // κ = 0.1: centre (0, 10). A return a quarter turn along the arc, at (10, 10).
        let d = free_distance_arc(&pts_of([(10.0, 10.0)]), 0.1, 1.0, false, FP, 40.0);
        let quarter = 10.0 * FRAC_PI_2;
        assert!((d - (quarter - 2.56)).abs() < 1e-9, "{d}");
        // The mirror image for a right turn.
        let d = free_distance_arc(&pts_of([(10.0, -10.0)]), -0.1, 1.0, false, FP, 40.0);
        assert!((d - (quarter - 2.56)).abs() < 1e-9, "{d}");
        // A return straight ahead at 10 m is outside a band of 1 m around that arc.
        let d = free_distance_arc(&pts_of([(10.0, 0.0)]), 0.1, 1.0, false, FP, 40.0);
        assert_eq!(d, 40.0);
    }

    #[test]
    fn a_return_past_half_a_turn_counts_on_a_tight_arc() {
        // κ = 0.2 (r = 5 m, half a turn 15.7 m): a return on the arc 1.2 half-turns
        // along, behind the rear axle (x < 0), is the nearest where nothing is nearer,
        // and a farther one past half a turn does not hide it.
        for kappa in [0.2, -0.2] {
            let s = 1.2 * PI / 0.2;
            let (x, y) = on_arc(kappa, s, 0.3);
            assert!(x < -1.0, "{x}");
            let d = free_distance_arc(&pts_of([(x, y)]), kappa, 1.0, false, FP, 40.0);
            assert!((d - (s - FP.ahead_m)).abs() < 1e-9, "{d}");
            let far = on_arc(kappa, 1.5 * PI / 0.2, 0.0);
            let d2 = free_distance_arc(&pts_of([far, (x, y)]), kappa, 1.0, false, FP, 40.0);
            assert_eq!(d2, d);
            // With a return nearer than half a turn, the one past it changes nothing.
            let near = on_arc(kappa, 6.0, 0.0);
            let d3 = free_distance_arc(&pts_of([near, (x, y)]), kappa, 1.0, false, FP, 40.0);
            assert!((d3 - (6.0 - FP.ahead_m)).abs() < 1e-9, "{d3}");
        }
    }

    #[test]
    fn a_return_just_behind_the_axle_on_an_arc_gives_zero() {
        // Beside the body at a small negative angle (x < 0), inside th_min = −behind κ.
        for (kappa, reverse) in [(0.2, false), (-0.2, false), (0.2, true)] {
            let (x, y) = on_arc(kappa, -0.4, 0.5);
            assert!(x < 0.0);
            let p = if reverse { (-x, y) } else { (x, y) };
            let fp = if reverse {
                Footprint {
                    ahead_m: FP.behind_m,
                    behind_m: FP.ahead_m,
                }
            } else {
                FP
            };
            // After a return 6 m along, so that the bound of half a turn is in force.
            let (nx, ny) = on_arc(kappa, 6.0, 0.0);
            let near = if reverse { (-nx, ny) } else { (nx, ny) };
            let d = free_distance_arc(&pts_of([near, p]), kappa, 1.0, reverse, fp, 40.0);
            assert_eq!(d, 0.0, "κ {kappa} reverse {reverse}");
        }
    }

    #[test]
    fn return_beside_the_body_gives_zero() {
        let d = free_distance_arc(&pts_of([(1.0, 1.0)]), 0.0, 1.42, false, FP, 40.0);
        assert_eq!(d, 0.0);
    }

    #[test]
    fn path_distance_follows_the_path() {
        let p = straight(101, 0.5, 3.0);
        let part = p.parts()[0].clone();
        let mut win = PathWindow::default();
        // The vehicle at station 10 heading east, 0.5 m left of the path.
        win.prepare(&p, &part, 10.0, (10.0, 0.5, 0.0), 0.49, 40.0, 1.42);
        // A return 15 m ahead on the path (body x = 15, y = −0.5).
        let d = free_distance_path(&pts_of([(15.0, -0.5)]), false, &mut win, 1.42, FP, 40.0);
        assert!((d - (15.0 - 2.56)).abs() < 1e-9, "{d}");
        let d = free_distance_path(&pts_of([(15.0, 2.0)]), false, &mut win, 1.42, FP, 40.0);
        assert_eq!(d, 40.0);
    }

    use proptest::prelude::*;

    /// The body-frame point at arc length `s` and offset `e` (left) of an arc: the arc
    /// point plus `e` along the left normal `(−sin κs, cos κs)`.
    fn on_arc(kappa: f64, s: f64, e: f64) -> (f64, f64) {
        let th = kappa * s;
        let (ax, ay) = if kappa == 0.0 {
            (s, 0.0)
        } else {
            (th.sin() / kappa, (1.0 - th.cos()) / kappa)
        };
        (ax - e * th.sin(), ay + e * th.cos())
    }

    proptest! {
        #[test]
        fn farther_along_the_arc_is_never_nearer(
            k in -0.2f64..0.2, s in 0.0f64..15.0, ds in 0.0f64..10.0,
            e in -1.0f64..1.0, v in 0.0f64..8.0,
        ) {
            let w = w(v);
            let a = free_distance_arc(&pts_of([on_arc(k, s, e)]), k, w, false, FP, 40.0);
            let b = free_distance_arc(&pts_of([on_arc(k, s + ds, e)]), k, w, false, FP, 40.0);
            prop_assert!(b >= a, "{a} then {b}");
        }

        /// A set of returns gives the smallest of their distances alone, in any order:
        /// the bounds that skip returns never skip one that would lower the distance
        /// (a return outside the arc's centre line, beside the body in reverse, or
        /// seen from a vehicle beside the path).
        #[test]
        fn a_set_gives_the_least_of_its_returns_alone(
            pts in prop::collection::vec((-4.0f64..12.0, -6.0f64..6.0), 1..12),
            k in -0.25f64..0.25, v in 0.0f64..8.0, reverse in any::<bool>(),
            (lateral, yaw) in (-3.0f64..3.0, -0.6f64..0.6),
        ) {
            let fp = if reverse { Footprint { ahead_m: FP.behind_m, behind_m: FP.ahead_m } } else { FP };
            let w = w(v);
            let path = straight(101, 0.5, 3.0);
            let part = path.parts()[0].clone();
            let mut win = PathWindow::default();
            win.prepare(&path, &part, 10.0, (10.0, lateral, yaw), fp.behind_m, 40.0, w);
            let arc = |p: &[(f64, f64)]| free_distance_arc(&pts_of(p), k, w, reverse, fp, 40.0);
            let along = |p: &[(f64, f64)]| free_distance_path(&pts_of(p), false, &mut win.clone(), w, fp, 40.0);
            let mut rev = pts.clone();
            rev.reverse();
            for f in [&arc as &dyn Fn(&[(f64, f64)]) -> f64, &along] {
                let alone = pts.iter().map(|p| f(&[*p])).fold(40.0, f64::min);
                prop_assert_eq!(f(&pts), alone);
                prop_assert_eq!(f(&rev), alone);
            }
        }

        /// The cheap pass in single precision keeps every point the exact test keeps,
        /// at the bands' very edges (a few units in the last place either side): on
        /// gentle arcs (r up to 10⁶ m) and tight ones, for the straight band and the
        /// path's box.
        #[test]
        fn the_cheap_pass_keeps_every_point_of_the_band(
            log_k in -6.0f64..0.5, left in any::<bool>(), w in 0.05f64..5.0,
            outer in any::<bool>(), turn in -1.0f64..1.0, ulps in -6i64..=6,
            (bx, by, lim) in ((-50.0f64..50.0, 0.0f64..30.0), (-50.0f64..50.0, 0.0f64..30.0), 1.0f64..80.0),
            along in -60.0f64..60.0, edge in 0usize..6, tail in -3.0f64..0.0, sx in any::<bool>(),
        ) {
            let nudge = |v: f64| v * (1.0 + ulps as f64 * f64::EPSILON);
            fn kept(band: &impl Band, x: f64, y: f64) -> bool {
                band.rough(x.abs().max(y.abs())).keeps(x as f32, y as f32)
            }
            // An arc: a point on a circle of radius r ± w about (0, cy), within about
            // 100 m of the reference point (where the arc leaves it).
            let r = 10f64.powf(-log_k);
            let cy = if left { r } else { -r };
            let rho = nudge(if outer { r + w } else { (r - w).max(0.0) });
            let phi = -cy.signum() * std::f64::consts::FRAC_PI_2 + turn * (100.0 / r).min(PI);
            let (x, y) = (rho * phi.cos(), cy + rho * phi.sin());
            let band = Annulus { cy, lo2: (r - w).max(0.0).powi(2), hi2: (r + w).powi(2) };
            prop_assert!(!band.exact(x, y) || kept(&band, x, y), "arc r {r} w {w}: ({x}, {y})");
            // The straight band: on its side edge or its tail.
            let sx = if sx { 1.0 } else { -1.0 };
            let (x, y) = if edge % 2 == 0 { (along, nudge(w) * if left { 1.0 } else { -1.0 }) } else { (nudge(tail) * sx, along / 10.0) };
            let band = Straight { w, tail, sx };
            prop_assert!(!band.exact(x, y) || kept(&band, x, y), "straight w {w}: ({x}, {y})");
            // The path's box: on an edge, or on the circle of the distance limit.
            let bbox = [bx.0, by.0, bx.0 + bx.1, by.0 + by.1];
            let (x, y) = match edge {
                0 => (nudge(bbox[0]), by.0 + by.1 * turn.abs()),
                1 => (nudge(bbox[2]), by.0 + by.1 * turn.abs()),
                2 => (bx.0 + bx.1 * turn.abs(), nudge(bbox[1])),
                3 => (bx.0 + bx.1 * turn.abs(), nudge(bbox[3])),
                _ => (nudge(lim) * (turn * PI).cos(), nudge(lim) * (turn * PI).sin()),
            };
            let band = BoxNear { bbox, lim2: lim * lim };
            prop_assert!(!band.exact(x, y) || kept(&band, x, y), "box {bbox:?} lim {lim}: ({x}, {y})");
        }

        #[test]
        fn a_return_on_the_arc_is_found_at_its_arc_length(
            k in -0.2f64..0.2, s in 3.0f64..15.0, e in -0.8f64..0.8,
        ) {
            let d = free_distance_arc(&pts_of([on_arc(k, s, e)]), k, 0.9, false, FP, 40.0);
            // The perpendicular foot of an offset point lies at the same arc length.
            prop_assert!((d - (s - FP.ahead_m)).abs() < 1e-6, "{d} vs {}", s - FP.ahead_m);
        }
    }
}
