//! The prepared path of a mission: points in the world frame with a speed profile, the
//! ground class and the direction of travel at each point (vehicle-software.md "What the
//! Model Does": "the prepared path of a mission: points, speed profile, ground class").
//!
//! Route files are read in [`crate::formats::route`].
//!
//! Point `i`'s direction applies to the segment from `i` to `i + 1`; a run of segments
//! with one direction is a part. A direction change (a cusp) is a stop.

use crate::chain::envelope::GroundClass;
use geo::{Coord, LineString};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// The direction of travel on a part of the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    #[default]
    Forward,
    Reverse,
}

impl Direction {
    /// +1 forward, −1 in reverse: the sign of a speed command.
    pub fn sign(self) -> f64 {
        match self {
            Direction::Forward => 1.0,
            Direction::Reverse => -1.0,
        }
    }
}

/// One point of a route file.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathPoint {
    /// East, m.
    pub x: f64,
    /// North, m.
    pub y: f64,
    /// The speed profile at the point, m/s (a magnitude; the direction gives the sign).
    pub speed_mps: f64,
    /// The ground class at the point; absent or null where it is not known.
    #[serde(default)]
    pub class: Option<GroundClass>,
    /// The direction of travel from this point to the next.
    #[serde(default)]
    pub direction: Direction,
}

/// An error of reading or preparing a path; it names the file and the point.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct PathError {
    pub file: String,
    pub message: String,
}

/// The projection of a position onto the path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projection {
    /// The segment, from point `segment` to `segment + 1`.
    pub segment: usize,
    /// The station of the nearest path point, m.
    pub station_m: f64,
    /// The nearest path point.
    pub point: Coord<f64>,
    /// The signed lateral offset of the position, positive to the left of the path, m.
    pub lateral_m: f64,
}

/// How far behind and ahead of the last projection the windowed search looks, m.
const WINDOW_BACK_M: f64 = 3.0;
const WINDOW_AHEAD_M: f64 = 12.0;

/// A prepared path: the geometry, the stations and the per-point profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    name: String,
    line: LineString<f64>,
    station: Vec<f64>,
    speed: Vec<f64>,
    class: Vec<Option<GroundClass>>,
    direction: Vec<Direction>,
    parts: Vec<Range<usize>>,
    /// The curvature at each point: that of the circle through it and its neighbours.
    kappa: Vec<f64>,
    /// The heading of each segment (the driver reads two a step: an `atan2` each).
    heading: Vec<f64>,
    /// The bounding circle of each run of [`RUN`] segments: centre and radius.
    runs: Vec<(Coord<f64>, f64)>,
    /// The lowest speed and the classes present over any range of points in one step.
    speed_min: Sparse<f64>,
    classes: Sparse<u16>,
}

/// A sparse table over a sequence: level `k` holds the combination (`f`) of each run of
/// 2^k items, so that any range combines two overlapping runs. For the minimum and the
/// union this is exact, whatever the order; it costs n log n items.
#[derive(Debug, Clone, PartialEq)]
struct Sparse<T> {
    levels: Vec<Vec<T>>,
}

impl<T: Copy> Sparse<T> {
    fn new(items: Vec<T>, f: fn(T, T) -> T) -> Sparse<T> {
        let mut levels = vec![items];
        let mut width = 1;
        while 2 * width <= levels[0].len() {
            let prev = levels.last().expect("level 0");
            let next = (0..prev.len() - width)
                .map(|i| f(prev[i], prev[i + width]))
                .collect();
            levels.push(next);
            width *= 2;
        }
        Sparse { levels }
    }

    /// The combination of items `lo..=hi` (`lo ≤ hi`).
    fn range(&self, lo: usize, hi: usize, f: fn(T, T) -> T) -> T {
        let k = (hi - lo + 1).ilog2() as usize;
        f(self.levels[k][lo], self.levels[k][hi + 1 - (1 << k)])
    }
}

/// The bit of a point's class in [`Path::classes_in`] (bit 7: no class).
fn class_bit(c: Option<GroundClass>) -> u16 {
    let i = c.map_or(GroundClass::ALL.len(), |c| {
        GroundClass::ALL
            .iter()
            .position(|a| *a == c)
            .expect("a class of ALL")
    });
    1 << i
}

impl Path {
    /// Prepares a path from its points: at least two, finite, no two consecutive points at
    /// the same place, speeds finite and ≥ 0.
    pub fn new(name: &str, points: &[PathPoint]) -> Result<Path, PathError> {
        let err = |message: String| PathError {
            file: name.to_string(),
            message,
        };
        if points.len() < 2 {
            return Err(err(format!(
                "a path needs at least 2 points, this one has {}",
                points.len()
            )));
        }
        let mut station = Vec::with_capacity(points.len());
        let mut s = 0.0;
        for (i, p) in points.iter().enumerate() {
            // Within the bounds of docs/formats.md "Bounds".
            use crate::formats::bounds as b;
            let bound = |m: String| err(format!("point {i}: {m}"));
            b::position("x", p.x).map_err(bound)?;
            b::position("y", p.y).map_err(bound)?;
            if !(p.speed_mps.is_finite() && p.speed_mps >= 0.0) {
                return Err(err(format!(
                    "point {i}: speed_mps must be a finite number ≥ 0, not {}",
                    p.speed_mps
                )));
            }
            b::speed("speed_mps", p.speed_mps).map_err(bound)?;
            if i > 0 {
                let q = points[i - 1];
                let d = (p.x - q.x).hypot(p.y - q.y);
                if d < 1e-6 {
                    return Err(err(format!(
                        "point {i} repeats point {} at ({}, {})",
                        i - 1,
                        p.x,
                        p.y
                    )));
                }
                s += d;
            }
            station.push(s);
        }
        let direction: Vec<Direction> = points.iter().map(|p| p.direction).collect();
        let nseg = points.len() - 1;
        let mut parts = Vec::new();
        let mut start = 0;
        for i in 1..nseg {
            if direction[i] != direction[start] {
                parts.push(start..i);
                start = i;
            }
        }
        parts.push(start..nseg);
        let c = |i: usize| Coord {
            x: points[i].x,
            y: points[i].y,
        };
        let kappa: Vec<f64> = (0..points.len())
            .map(|i| {
                if i == 0 || i + 1 == points.len() {
                    0.0
                } else {
                    menger(c(i - 1), c(i), c(i + 1))
                }
            })
            .collect();
        let speed: Vec<f64> = points.iter().map(|p| p.speed_mps).collect();
        let bits = points.iter().map(|p| class_bit(p.class)).collect();
        let mut path = Path {
            kappa,
            heading: Vec::new(),
            runs: Vec::new(),
            name: name.to_string(),
            line: points.iter().map(|p| Coord { x: p.x, y: p.y }).collect(),
            station,
            speed_min: Sparse::new(speed.clone(), f64::min),
            classes: Sparse::new(bits, |a, b| a | b),
            speed,
            class: points.iter().map(|p| p.class).collect(),
            direction,
            parts,
        };
        path.heading = (0..nseg)
            .map(|i| {
                let d = path.segment_dir(i);
                d.y.atan2(d.x)
            })
            .collect();
        path.runs = (0..nseg)
            .step_by(RUN)
            .map(|k| bounding_circle(&path.line.0[k..=(k + RUN).min(nseg)]))
            .collect();
        Ok(path)
    }

    /// The name (file) of the path.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.station.len()
    }

    /// Never true: a path has at least two points.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The point `i`.
    pub fn point(&self, i: usize) -> Coord<f64> {
        self.line.0[i]
    }

    /// The geometry.
    pub fn line(&self) -> &LineString<f64> {
        &self.line
    }

    /// The station (cumulative length) of point `i`, m.
    pub fn station(&self, i: usize) -> f64 {
        self.station[i]
    }

    /// The stations of all points, m.
    pub fn stations(&self) -> &[f64] {
        &self.station
    }

    /// The length of the whole path, m.
    pub fn length_m(&self) -> f64 {
        self.station[self.station.len() - 1]
    }

    /// The speed profile at point `i`, m/s.
    pub fn speed(&self, i: usize) -> f64 {
        self.speed[i]
    }

    /// The ground class at point `i`.
    pub fn class(&self, i: usize) -> Option<GroundClass> {
        self.class[i]
    }

    /// The direction of the segment that starts at point `i`.
    pub fn direction(&self, i: usize) -> Direction {
        self.direction[i.min(self.direction.len() - 2)]
    }

    /// The curvature at point `i`: the circle through it and its neighbours (0 at the
    /// ends), 1/m, positive left.
    pub fn curvature(&self, i: usize) -> f64 {
        self.kappa[i]
    }

    /// The curvature at point `i` (an end of segment `seg`) as seen from the part of
    /// `seg`: within a part the point's own; at a cusp, where the circle through the
    /// point and its neighbours would mix the two directions, that of the neighbouring
    /// point on `seg`'s side (0 where the part has no other inner point).
    pub fn curvature_on(&self, i: usize, seg: usize) -> f64 {
        let part = &self.parts[self.part_of(seg)];
        if i > part.start && i < part.end || i == 0 || i + 1 == self.len() {
            return self.kappa[i];
        }
        // `i` is a cusp: the start or the end point of `seg`'s part.
        let inner = if i == part.start { i + 1 } else { i - 1 };
        if inner > part.start && inner < part.end {
            self.kappa[inner]
        } else {
            0.0
        }
    }

    /// The index of the part that holds segment `seg`.
    pub fn part_of(&self, seg: usize) -> usize {
        self.parts
            .partition_point(|p| p.end <= seg)
            .min(self.parts.len() - 1)
    }

    /// The parts: runs of segments with one direction, as ranges of segment indices.
    pub fn parts(&self) -> &[Range<usize>] {
        &self.parts
    }

    /// The unit direction of segment `i`.
    pub fn segment_dir(&self, i: usize) -> Coord<f64> {
        let a = self.line.0[i];
        let b = self.line.0[i + 1];
        let len = self.station[i + 1] - self.station[i];
        Coord {
            x: (b.x - a.x) / len,
            y: (b.y - a.y) / len,
        }
    }

    /// The heading of segment `i`, radians counter-clockwise from east.
    pub fn segment_heading(&self, i: usize) -> f64 {
        self.heading[i]
    }

    /// The bounding circle of segments `RUN k .. RUN (k + 1)` (fewer in the last run):
    /// its centre and radius, m.
    pub fn run_circle(&self, k: usize) -> (Coord<f64>, f64) {
        self.runs[k]
    }

    /// The segment of `part` that holds station `s` (clamped to the part).
    pub fn segment_at(&self, part: &Range<usize>, s: f64) -> usize {
        let lo = part.start;
        let hi = part.end; // segments lo..hi, points lo..=hi
        // partition_point over the points lo+1..hi: first point whose station > s.
        let k = self.station[lo + 1..hi].partition_point(|&st| st <= s);
        lo + k
    }

    /// [`Path::segment_at`] searched outward from segment `near` (galloping, then
    /// bisection), so that a look-up near the last one costs a few steps, not a bisection
    /// of the whole part. The same result.
    pub fn segment_near(&self, part: &Range<usize>, s: f64, near: usize) -> usize {
        let (lo, hi) = (part.start, part.end);
        let st = &self.station;
        // Points lo+1..hi: the first whose station exceeds s, less one, is the segment.
        let below = |c: usize| st[c] <= s;
        let g = near.clamp(lo + 1, hi);
        let (mut left, mut right);
        if g < hi && below(g) {
            (left, right) = (g, (g + 1).min(hi));
            let mut step = 1;
            while right < hi && below(right) {
                left = right;
                step *= 2;
                right = (left + step).min(hi);
            }
        } else {
            right = g;
            let mut step = 1;
            loop {
                if right <= lo + step {
                    left = lo;
                    break;
                }
                left = right - step;
                if below(left) {
                    break;
                }
                right = left;
                step *= 2;
            }
        }
        let c = left + 1 + st[left + 1..right].partition_point(|&x| x <= s);
        c - 1
    }

    /// The point at station `s` on `part`; beyond the part's ends it continues along the
    /// first or last segment's direction (so that a look-ahead point never collapses onto
    /// the vehicle near the end).
    pub fn point_at(&self, part: &Range<usize>, s: f64) -> Coord<f64> {
        self.point_on(self.segment_at(part, s), s)
    }

    /// The point at station `s` along segment `seg` (extended beyond its ends).
    pub fn point_on(&self, seg: usize, s: f64) -> Coord<f64> {
        let a = self.line.0[seg];
        let d = self.segment_dir(seg);
        let t = s - self.station[seg];
        Coord {
            x: a.x + d.x * t,
            y: a.y + d.y * t,
        }
    }

    /// The lowest speed of the profile over the stations `[s0, s1]` of `part`: the points
    /// inside and the interpolated ends.
    pub fn min_speed(&self, part: &Range<usize>, s0: f64, s1: f64) -> f64 {
        self.min_speed_near(part, s0, s1, part.start)
    }

    /// [`Path::min_speed`] with its look-ups started at segment `near`.
    pub fn min_speed_near(&self, part: &Range<usize>, s0: f64, s1: f64, near: usize) -> f64 {
        let i0 = self.segment_near(part, s0, near);
        let i1 = self.segment_near(part, s1, i0);
        self.min_speed_on(i0, s0, i1, s1)
    }

    /// [`Path::min_speed`] from station `s0` on segment `i0` to `s1` on segment `i1`,
    /// where the caller has looked up the segments that hold them.
    pub fn min_speed_on(&self, i0: usize, s0: f64, i1: usize, s1: f64) -> f64 {
        let v = self.speed_at(i0, s0).min(self.speed_at(i1, s1));
        if i0 < i1 {
            v.min(self.speed_min.range(i0 + 1, i1, f64::min))
        } else {
            v
        }
    }

    /// The classes of the points `lo..=hi`, each once (`None` for points without one).
    pub fn classes_in(&self, lo: usize, hi: usize) -> impl Iterator<Item = Option<GroundClass>> {
        let mask = self.classes.range(lo, hi, |a, b| a | b);
        let all = GroundClass::ALL.iter().map(|c| Some(*c)).chain([None]);
        all.filter(move |c| mask & class_bit(*c) != 0)
    }

    /// The speed profile interpolated at station `s` on segment `seg` (held beyond it).
    fn speed_at(&self, seg: usize, s: f64) -> f64 {
        let (s0, s1) = (self.station[seg], self.station[seg + 1]);
        let t = ((s - s0) / (s1 - s0)).clamp(0.0, 1.0);
        self.speed[seg] + (self.speed[seg + 1] - self.speed[seg]) * t
    }

    /// Projects `p` onto the segments of `part`. With a `hint` (the last projection's
    /// segment) only the segments within a few metres behind and ahead of it are searched,
    /// so that a hairpin or a self-crossing never makes the projection jump to another
    /// branch, and the cost does not grow with the path. Without a hint the whole part is
    /// searched.
    pub fn project(&self, p: Coord<f64>, part: &Range<usize>, hint: Option<usize>) -> Projection {
        let (lo, hi) = match hint {
            Some(h) => {
                let h = h.clamp(part.start, part.end - 1);
                let s = self.station[h];
                // The last point at least WINDOW_BACK_M behind (or the part's start), and
                // the first at least WINDOW_AHEAD_M ahead (or the part's end), searched
                // outward from the hint (a few steps, not a bisection of the whole part).
                let lo = self.segment_near(part, s - WINDOW_BACK_M, h);
                let ahead = gallop_below(&self.station[h + 1..part.end], s + WINDOW_AHEAD_M);
                (lo, h + 1 + ahead)
            }
            None => (part.start, part.end),
        };
        let (_, i, t) = self.nearest_segment(p, lo, hi, hint.unwrap_or(usize::MAX));
        let a = self.line.0[i];
        let b = self.line.0[i + 1];
        let (ex, ey) = (b.x - a.x, b.y - a.y);
        let q = Coord {
            x: a.x + ex * t,
            y: a.y + ey * t,
        };
        let len = self.station[i + 1] - self.station[i];
        let cross = (ex * (p.y - a.y) - ey * (p.x - a.x)) / len;
        Projection {
            segment: i,
            station_m: self.station[i] + len * t,
            point: q,
            lateral_m: cross,
        }
    }
}

impl Path {
    /// The squared distance from `p` to segment `i` and the fraction of its foot.
    fn to_segment(&self, p: Coord<f64>, i: usize) -> (f64, f64) {
        let a = self.line.0[i];
        let b = self.line.0[i + 1];
        let (ex, ey) = (b.x - a.x, b.y - a.y);
        let len2 = ex * ex + ey * ey;
        let t = (((p.x - a.x) * ex + (p.y - a.y) * ey) / len2).clamp(0.0, 1.0);
        let (qx, qy) = (a.x + ex * t, a.y + ey * t);
        ((p.x - qx).powi(2) + (p.y - qy).powi(2), t)
    }

    /// The first segment of `lo..hi` nearest `p`: (squared distance, segment, fraction);
    /// `guess` is a segment likely near (the last projection's), measured first to bound
    /// the search. Segments that cannot be nearer are skipped without being measured:
    /// from a vertex `D` away the path runs on no faster than its stations, so every
    /// segment ending less than `D − bound` further along is farther than `bound` (a
    /// margin keeps rounding from skipping a tie). The result is that of measuring every
    /// segment in order; the cost no longer grows with the points per metre.
    fn nearest_segment(
        &self,
        p: Coord<f64>,
        lo: usize,
        hi: usize,
        guess: usize,
    ) -> (f64, usize, f64) {
        let mut bound = if (lo..hi).contains(&guess) {
            self.to_segment(p, guess).0.sqrt()
        } else {
            f64::INFINITY
        };
        let mut best = (f64::INFINITY, lo, 0.0);
        let mut i = lo;
        while i < hi {
            let (d2, t) = self.to_segment(p, i);
            if d2 < best.0 {
                best = (d2, i, t);
                bound = bound.min(d2.sqrt());
            }
            let next = i + 1;
            if next >= hi {
                break;
            }
            let b = self.line.0[next];
            let d_next = ((p.x - b.x).powi(2) + (p.y - b.y).powi(2)).sqrt();
            let slack = d_next - bound * (1.0 + 1e-12) - 1e-9;
            i = if slack > 0.0 {
                // Segment j ends at station[j + 1]: skip those ending below the limit.
                let limit = self.station[next] + slack;
                next + gallop_below(&self.station[next + 1..=hi], limit)
            } else {
                // Near the nearest point the bound skips nothing: measure a run of
                // segments without testing each one's end first (in order, the first
                // nearest kept, so the result is the same), then go on from its last.
                let end = (next + NEAR_RUN).min(hi);
                for j in next..end - 1 {
                    let (d2, t) = self.to_segment(p, j);
                    if d2 < best.0 {
                        best = (d2, j, t);
                    }
                }
                bound = bound.min(best.0.sqrt());
                end - 1
            };
        }
        best
    }
}

/// Segments per bounding circle of [`Path::run_circle`].
pub const RUN: usize = 8;

/// A circle about the points `pts` (the ends of a run of segments): centred between the
/// first and the last, as wide as the farthest.
fn bounding_circle(pts: &[Coord<f64>]) -> (Coord<f64>, f64) {
    let (a, b) = (pts[0], pts[pts.len() - 1]);
    let c = Coord {
        x: (a.x + b.x) / 2.0,
        y: (a.y + b.y) / 2.0,
    };
    let r2 = pts
        .iter()
        .map(|p| (p.x - c.x).powi(2) + (p.y - c.y).powi(2))
        .fold(0.0f64, f64::max);
    (c, r2.sqrt())
}

/// Segments measured in a run where the projection's bound skips none.
const NEAR_RUN: usize = 8;

/// How many of the sorted `st` lie below `limit` (`partition_point(|&s| s < limit)`),
/// searched from the front by doubling steps, then bisection: a few steps where the answer
/// is near the front, as the projection's skips usually are.
fn gallop_below(st: &[f64], limit: f64) -> usize {
    let (mut lo, mut step) = (0, 1);
    while lo + step <= st.len() && st[lo + step - 1] < limit {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(st.len());
    lo + st[lo..hi].partition_point(|&s| s < limit)
}

/// The signed curvature of the circle through `a`, `b`, `c` (positive when `c` turns
/// left of `a → b`); 0 for collinear or repeated points.
pub fn menger(a: Coord<f64>, b: Coord<f64>, c: Coord<f64>) -> f64 {
    let cross = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
    let ab2 = (b.x - a.x).powi(2) + (b.y - a.y).powi(2);
    let bc2 = (c.x - b.x).powi(2) + (c.y - b.y).powi(2);
    let ca2 = (a.x - c.x).powi(2) + (a.y - c.y).powi(2);
    let den = (ab2 * bc2 * ca2).sqrt();
    if den <= 0.0 { 0.0 } else { 2.0 * cross / den }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A straight path east from (0, 0), `n` points `step` apart.
    pub fn straight(n: usize, step: f64, speed: f64) -> Path {
        let pts: Vec<PathPoint> = (0..n)
            .map(|i| PathPoint {
                x: i as f64 * step,
                y: 0.0,
                speed_mps: speed,
                class: Some(GroundClass::Gravel),
                direction: Direction::Forward,
            })
            .collect();
        Path::new("straight", &pts).unwrap()
    }

    #[test]
    fn every_shipped_route_is_built_in() {
        for name in Path::BUILTIN {
            let p = Path::builtin(name).unwrap();
            assert!(p.len() > 100, "{name}");
        }
        assert!(Path::builtin("nope.json").is_none());
    }

    proptest::proptest! {
        /// The galloping search counts what bisection counts, ties included.
        #[test]
        fn gallop_equals_partition_point(
            mut st in proptest::collection::vec(0.0f64..50.0, 0..300),
            limit in -1.0f64..51.0,
            tie in proptest::bool::ANY,
        ) {
            st.sort_by(f64::total_cmp);
            let limit = if tie && !st.is_empty() { st[st.len() / 2] } else { limit };
            proptest::prop_assert_eq!(gallop_below(&st, limit), st.partition_point(|&s| s < limit));
        }

        /// The nearest segment, with its skips and runs, is the first nearest of measuring
        /// every segment of the range in order, from any guess, on winding paths of any
        /// spacing.
        #[test]
        fn nearest_segment_equals_measuring_every_segment(
            turns in proptest::collection::vec(-0.6f64..0.6, 2..200),
            step in 0.02f64..2.0,
            (px, py) in (-20.0f64..60.0, -20.0f64..20.0),
            guess in 0usize..220,
            (a, b) in (0usize..200, 0usize..200),
        ) {
            let (mut x, mut y, mut h) = (0.0, 0.0, 0.0f64);
            let pts: Vec<PathPoint> = std::iter::once((0.0, 0.0))
                .chain(turns.iter().map(|t| { h += t; x += step * h.cos(); y += step * h.sin(); (x, y) }))
                .map(|(x, y)| PathPoint { x, y, speed_mps: 1.0, class: None, direction: Direction::Forward })
                .collect();
            let p = Path::new("p", &pts).unwrap();
            let n = p.len() - 1;
            let (lo, hi) = (a.min(b) % n, (a.max(b) % n).max(a.min(b) % n + 1));
            let q = Coord { x: px, y: py };
            let mut want = (f64::INFINITY, lo, 0.0);
            for i in lo..hi {
                let (d2, t) = p.to_segment(q, i);
                if d2 < want.0 {
                    want = (d2, i, t);
                }
            }
            proptest::prop_assert_eq!(p.nearest_segment(q, lo, hi, guess), want);
        }

        /// Every end of a run's segments lies inside the run's circle.
        #[test]
        fn a_runs_circle_holds_its_segments(
            steps in proptest::collection::vec((0.01f64..3.0, -3.0f64..3.0), 1..40),
        ) {
            let (mut x, mut y) = (1000.0, -5000.0);
            let pts: Vec<PathPoint> = std::iter::once((x, y))
                .chain(steps.iter().map(|(dx, dy)| { x += dx; y += dy; (x, y) }))
                .map(|(x, y)| PathPoint { x, y, speed_mps: 1.0, class: None, direction: Direction::Forward })
                .collect();
            let p = Path::new("p", &pts).unwrap();
            for i in 0..p.len() - 1 {
                let (c, r) = p.run_circle(i / RUN);
                for q in [p.point(i), p.point(i + 1)] {
                    proptest::prop_assert!((q.x - c.x).hypot(q.y - c.y) <= r * (1.0 + 1e-12));
                }
            }
        }

        /// The search from a segment nearby finds what bisection finds, from anywhere.
        #[test]
        fn segment_near_equals_segment_at(
            steps in proptest::collection::vec(0.01f64..3.0, 2..60),
            s in -5.0f64..100.0,
            near in 0usize..70,
            cut in 0usize..30,
        ) {
            let mut x = 0.0;
            let pts: Vec<PathPoint> = std::iter::once(0.0)
                .chain(steps.iter().map(|d| { x += d; x }))
                .map(|x| PathPoint { x, y: 0.0, speed_mps: 1.0, class: None, direction: Direction::Forward })
                .collect();
            let p = Path::new("p", &pts).unwrap();
            let n = p.len() - 1;
            let start = cut.min(n - 1);
            let part = start..n;
            proptest::prop_assert_eq!(p.segment_near(&part, s, near), p.segment_at(&part, s));
        }
    }

    #[test]
    fn stations_and_interpolation() {
        let p = straight(11, 1.0, 3.0);
        assert_eq!(p.length_m(), 10.0);
        let part = p.parts()[0].clone();
        assert_eq!(part, 0..10);
        assert_eq!(p.point_at(&part, 2.5), Coord { x: 2.5, y: 0.0 });
        // Beyond the end it continues along the last segment.
        assert_eq!(p.point_at(&part, 12.0), Coord { x: 12.0, y: 0.0 });
        let pr = p.project(Coord { x: 3.3, y: -2.0 }, &part, None);
        assert!((pr.station_m - 3.3).abs() < 1e-12);
        assert!((pr.lateral_m + 2.0).abs() < 1e-12);
    }

    #[test]
    fn hairpin_projection_stays_on_its_branch() {
        // Out east along y = 0, a U-turn, back west along y = 3: the two branches are 3 m
        // apart, so a point at y = 1.6 is nearer the return branch.
        let mut pts = Vec::new();
        for i in 0..=40 {
            pts.push((i as f64, 0.0));
        }
        for k in 1..20 {
            let a = -std::f64::consts::FRAC_PI_2 + std::f64::consts::PI * k as f64 / 20.0;
            pts.push((40.0 + 1.5 * a.cos(), 1.5 + 1.5 * a.sin()));
        }
        for i in (0..=40).rev() {
            pts.push((i as f64, 3.0));
        }
        let pts: Vec<PathPoint> = pts
            .into_iter()
            .map(|(x, y)| PathPoint {
                x,
                y,
                speed_mps: 2.0,
                class: None,
                direction: Direction::Forward,
            })
            .collect();
        let p = Path::new("hairpin", &pts).unwrap();
        let part = p.parts()[0].clone();
        let q = Coord { x: 10.0, y: 1.6 };
        let global = p.project(q, &part, None);
        assert!(
            global.station_m > 40.0,
            "the global nearest is the return branch"
        );
        let windowed = p.project(q, &part, Some(10));
        assert!((windowed.station_m - 10.0).abs() < 1e-9);
        assert!((windowed.lateral_m - 1.6).abs() < 1e-9);
    }

    #[test]
    fn parts_split_at_a_direction_change() {
        let mk = |x: f64, d| PathPoint {
            x,
            y: 0.0,
            speed_mps: 1.0,
            class: None,
            direction: d,
        };
        let pts = [
            mk(0.0, Direction::Forward),
            mk(1.0, Direction::Forward),
            mk(2.0, Direction::Reverse),
            mk(1.5, Direction::Reverse),
            mk(1.0, Direction::Reverse),
        ];
        // Point 2 at x = 2 is the cusp; but 1.5 and 1.0 go back: not repeated points.
        let p = Path::new("cusp", &pts).unwrap();
        assert_eq!(p.parts(), &[0..2, 2..4]);
        assert_eq!(p.direction(3), Direction::Reverse);
    }

    #[test]
    fn min_speed_over_a_window() {
        let mut pts: Vec<PathPoint> = (0..10)
            .map(|i| PathPoint {
                x: i as f64,
                y: 0.0,
                speed_mps: 5.0,
                class: None,
                direction: Direction::Forward,
            })
            .collect();
        pts[6].speed_mps = 2.0;
        let p = Path::new("v", &pts).unwrap();
        let part = p.parts()[0].clone();
        assert_eq!(p.min_speed(&part, 0.0, 4.0), 5.0);
        assert_eq!(p.min_speed(&part, 0.0, 6.5), 2.0);
        assert_eq!(p.min_speed(&part, 0.0, 5.5), 3.5);
    }

    #[test]
    fn bad_paths_are_clear_errors() {
        let ok = PathPoint {
            x: 0.0,
            y: 0.0,
            speed_mps: 1.0,
            class: None,
            direction: Direction::Forward,
        };
        let e = Path::new("r.json", &[]).unwrap_err().to_string();
        assert!(e.contains("r.json") && e.contains("at least 2"), "{e}");
        let e = Path::new("r.json", &[ok]).unwrap_err().to_string();
        assert!(e.contains("has 1"), "{e}");
        let e = Path::new("r.json", &[ok, ok]).unwrap_err().to_string();
        assert!(e.contains("point 1 repeats point 0"), "{e}");
        let nan = PathPoint { x: f64::NAN, ..ok };
        let e = Path::new("r.json", &[ok, nan]).unwrap_err().to_string();
        assert!(
            e.contains("point 1") && e.contains("`x`: NaN is outside"),
            "{e}"
        );
        // Positions and speeds within their bounds (docs/formats.md "Bounds").
        for (p, want) in [
            (
                PathPoint {
                    x: 1.0000001e8,
                    ..ok
                },
                "`x`: 1.0000001e8 is outside -1e8 to 1e8 m",
            ),
            (PathPoint { y: -1e15, ..ok }, "`y`: -1e15 is outside"),
            (
                PathPoint {
                    speed_mps: 100.5,
                    ..ok
                },
                "`speed_mps`: 100.5 is outside",
            ),
        ] {
            let e = Path::new("r.json", &[ok, p]).unwrap_err().to_string();
            assert!(e.contains("point 1: ") && e.contains(want), "{e}");
        }
        let edge = PathPoint {
            x: -1e8,
            y: 1e8,
            speed_mps: 100.0,
            ..ok
        };
        assert!(Path::new("r.json", &[ok, edge]).is_ok());
        let e = Path::from_json_str("r.json", r#"{"points": [{"x": 0, "y": 0}]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("speed_mps"), "{e}");
        let e = Path::from_json_str("r.json", r#"{"points": [], "extra": 1}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("extra"), "{e}");
    }

    #[test]
    fn geojson_with_per_point_and_shared_properties() {
        let text = r#"{"type": "Feature",
            "crs": {"type": "name", "properties": {"name": "acres:map"}},
            "geometry": {"type": "LineString", "coordinates": [[0, 0], [5, 0], [10, 1]]},
            "properties": {"speed_mps": [3, 4, 0], "class": "gravel",
                           "direction": ["forward", "forward", "forward"]}}"#;
        let p = Path::from_json_str("r.geojson", text).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p.speed(1), 4.0);
        assert_eq!(p.class(2), Some(GroundClass::Gravel));
        let bad = text.replace("[3, 4, 0]", "[3, 4]");
        let e = Path::from_json_str("r.geojson", &bad)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("speed_mps") && e.contains("2 values for 3 points"),
            "{e}"
        );
    }
}
