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
            if !(p.x.is_finite() && p.y.is_finite()) {
                return Err(err(format!("point {i}: x and y must be finite numbers")));
            }
            if !(p.speed_mps.is_finite() && p.speed_mps >= 0.0) {
                return Err(err(format!(
                    "point {i}: speed_mps must be a finite number ≥ 0, not {}",
                    p.speed_mps
                )));
            }
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
        Ok(Path {
            kappa,
            name: name.to_string(),
            line: points.iter().map(|p| Coord { x: p.x, y: p.y }).collect(),
            station,
            speed: points.iter().map(|p| p.speed_mps).collect(),
            class: points.iter().map(|p| p.class).collect(),
            direction,
            parts,
        })
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
        let d = self.segment_dir(i);
        d.y.atan2(d.x)
    }

    /// The segment of `part` that holds station `s` (clamped to the part).
    pub fn segment_at(&self, part: &Range<usize>, s: f64) -> usize {
        let lo = part.start;
        let hi = part.end; // segments lo..hi, points lo..=hi
        // partition_point over the points lo+1..hi: first point whose station > s.
        let k = self.station[lo + 1..hi].partition_point(|&st| st <= s);
        lo + k
    }

    /// The point at station `s` on `part`; beyond the part's ends it continues along the
    /// first or last segment's direction (so that a look-ahead point never collapses onto
    /// the vehicle near the end).
    pub fn point_at(&self, part: &Range<usize>, s: f64) -> Coord<f64> {
        let seg = self.segment_at(part, s);
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
        let i0 = self.segment_at(part, s0);
        let i1 = self.segment_at(part, s1);
        let mut v = self.speed_at(i0, s0).min(self.speed_at(i1, s1));
        for i in i0 + 1..=i1 {
            v = v.min(self.speed[i]);
        }
        v
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
                let mut lo = h;
                while lo > part.start && self.station[lo] > s - WINDOW_BACK_M {
                    lo -= 1;
                }
                let mut hi = h + 1;
                while hi < part.end && self.station[hi] < s + WINDOW_AHEAD_M {
                    hi += 1;
                }
                (lo, hi)
            }
            None => (part.start, part.end),
        };
        let mut best = (f64::INFINITY, lo, 0.0);
        for i in lo..hi {
            let a = self.line.0[i];
            let b = self.line.0[i + 1];
            let (ex, ey) = (b.x - a.x, b.y - a.y);
            let len2 = ex * ex + ey * ey;
            let t = (((p.x - a.x) * ex + (p.y - a.y) * ey) / len2).clamp(0.0, 1.0);
            let (qx, qy) = (a.x + ex * t, a.y + ey * t);
            let d2 = (p.x - qx).powi(2) + (p.y - qy).powi(2);
            if d2 < best.0 {
                best = (d2, i, t);
            }
        }
        let (_, i, t) = best;
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
        assert!(e.contains("point 1") && e.contains("finite"), "{e}");
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
