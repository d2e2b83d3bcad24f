//! Proposal chunks (vehicle-software.md "Proposals and Chunks"): lateral offsets from the
//! route and speeds at fixed stations along it, with the vehicle's start state, and
//! their conversion into the samples the checker's rules read.
//!
//! Conversion, for sample `k` at station `s_k = start_station_m + k × station_step_m`:
//! - pose: the route point at `s_k` plus `offsets_m[k]` along the route's left normal.
//!   Between two route points the route is taken as the arc of their mean curvature
//!   `κ_s` (each point's curvature is that of the circle through it and its
//!   neighbours), not the chord: the point at the fraction `t` of a chord `c` lies
//!   `κ_s t (1 − t) c² / 2` outside it and the heading turns by `κ_s c (t − ½)`. On a
//!   route of arcs the samples then lie on the arcs, and their curvature has no kinks
//!   from the polyline;
//! - heading: the direction of travel, from the chord `k−1 → k+1` (one-sided at the ends);
//!   the vehicle's yaw is the heading, or the heading + π in reverse;
//! - curvature: the signed Menger curvature of the poses `k−1, k, k+1`,
//!   `κ = 2 ((b − a) × (c − a)) / (|b − a| |c − b| |c − a|)`, the curvature of the circle
//!   through them (exact on arcs), positive to the left of travel; the end samples take
//!   their neighbour's;
//! - path length `Δl_k = |p_{k+1} − p_k|` and time `Δt_k = Δl_k / ((v_k + v_{k+1}) / 2)`
//!   (infinite where both speeds are 0).

use crate::chain::path::{Direction, Path};
use crate::formats::chunk::{lenient_f64, lenient_ranges, lenient_vec};
use geo::Coord;
use serde::{Deserialize, Serialize};

/// The start state of the vehicle for a chunk. Numbers that are not finite are read as
/// NaN (see [`crate::formats::chunk`]): the `malformed` rule names them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartState {
    #[serde(deserialize_with = "lenient_f64")]
    pub x_m: f64,
    #[serde(deserialize_with = "lenient_f64")]
    pub y_m: f64,
    #[serde(deserialize_with = "lenient_f64")]
    pub yaw_rad: f64,
    /// The speed magnitude, m/s.
    #[serde(deserialize_with = "lenient_f64")]
    pub speed_mps: f64,
    /// The current curvature, 1/m, positive left.
    #[serde(deserialize_with = "lenient_f64")]
    pub curvature_per_m: f64,
}

/// A chunk of a proposer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chunk {
    /// The route the offsets refer to (a file name; the command line may name it instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    /// The station of the first sample, m.
    #[serde(deserialize_with = "lenient_f64")]
    pub start_station_m: f64,
    /// The station step between samples, m.
    #[serde(deserialize_with = "lenient_f64")]
    pub station_step_m: f64,
    /// The lateral offsets from the route, m, positive left of the route's direction.
    #[serde(deserialize_with = "lenient_vec")]
    pub offsets_m: Vec<f64>,
    /// The speeds (magnitudes), m/s.
    #[serde(deserialize_with = "lenient_vec")]
    pub speeds_mps: Vec<f64>,
    /// The direction of travel of the whole chunk.
    pub direction: Direction,
    /// The current state of the vehicle.
    pub start: StartState,
    /// The chunk's own scan, taken at its start state: the shield's ranges, `null` for no
    /// return (the command line's `--scan` where absent).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_ranges"
    )]
    pub scan: Option<Vec<Option<f64>>>,
}

/// The largest number of samples a chunk may have.
pub const MAX_SAMPLES: usize = 4096;
/// The range of the station step, m.
pub const STEP_RANGE_M: (f64, f64) = (0.05, 5.0);

/// One sample of a converted chunk.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Sample {
    pub station_m: f64,
    pub x_m: f64,
    pub y_m: f64,
    /// The heading of travel as a unit vector (cos, sin).
    pub heading: (f64, f64),
    /// The curvature of the offset curve, 1/m, positive left of travel.
    pub curvature_per_m: f64,
    pub speed_mps: f64,
    /// The path length to the next sample, m (0 for the last).
    pub length_m: f64,
    /// The time to the next sample, s (0 for the last, infinite for a standstill).
    pub time_s: f64,
    /// The index of the route point nearest the sample's station.
    pub route_point: usize,
    /// The route segment whose geometry placed the sample.
    pub segment: usize,
}

impl Sample {
    /// The heading of travel, rad (from [`Sample::heading`]).
    pub fn heading_rad(&self) -> f64 {
        self.heading.1.atan2(self.heading.0)
    }
}

/// Converts a chunk on its route into samples, into `out` (reused). The chunk's shape is
/// not checked here: the `malformed` rule does that first.
pub fn convert(chunk: &Chunk, route: &Path, out: &mut Vec<Sample>) {
    out.clear();
    let n = chunk.offsets_m.len();
    let part = chunk_part(chunk, route);
    let mut seg = route.segment_at(&part, chunk.start_station_m);
    let mut geo = SegmentGeometry::of(route, seg);
    for k in 0..n {
        let s = chunk.start_station_m + k as f64 * chunk.station_step_m;
        // Samples run forward along the route: walk the segment instead of searching,
        // within the chunk's part (past its end the last segment extends).
        if seg + 1 < part.end && route.station(seg + 1) <= s {
            while seg + 1 < part.end && route.station(seg + 1) <= s {
                seg += 1;
            }
            geo = SegmentGeometry::of(route, seg);
        }
        let (a, d, c, ks) = (geo.start, geo.dir, geo.length_m, geo.curvature_per_m);
        let along = s - route.station(seg);
        let p = Coord {
            x: a.x + d.x * along,
            y: a.y + d.y * along,
        };
        let t = (along / c).clamp(0.0, 1.0);
        // The arc through the two points: out of the chord to the right of a left turn.
        let bulge = ks * t * (1.0 - t) * c * c / 2.0;
        let turn = ks * c * (t - 0.5);
        let (st, ct) = if turn == 0.0 {
            (0.0, 1.0)
        } else {
            turn.sin_cos()
        };
        let (nx, ny) = (-(d.y * ct + d.x * st), d.x * ct - d.y * st);
        let (px, py) = (p.x + d.y * bulge, p.y - d.x * bulge);
        let e = chunk.offsets_m[k];
        let mid = 0.5 * (route.station(seg) + route.station(seg + 1));
        out.push(Sample {
            station_m: s,
            x_m: px + nx * e,
            y_m: py + ny * e,
            speed_mps: chunk.speeds_mps[k],
            route_point: if s <= mid { seg } else { seg + 1 },
            segment: seg,
            ..Sample::default()
        });
    }
    if n < 2 {
        return;
    }
    let pt = |s: &Sample| Coord { x: s.x_m, y: s.y_m };
    for k in 0..n {
        let (a, c) = (pt(&out[k.saturating_sub(1)]), pt(&out[(k + 1).min(n - 1)]));
        // Travel runs along increasing station forward, and the same way in reverse
        // (the vehicle faces the other way); the heading is that of travel.
        let (hx, hy) = (c.x - a.x, c.y - a.y);
        let hl = (hx * hx + hy * hy).sqrt();
        out[k].heading = if hl > 0.0 {
            (hx / hl, hy / hl)
        } else {
            (1.0, 0.0)
        };
        if k + 1 < n {
            let b = pt(&out[k + 1]);
            let p = pt(&out[k]);
            let l = ((b.x - p.x).powi(2) + (b.y - p.y).powi(2)).sqrt();
            let vm = 0.5 * (out[k].speed_mps + out[k + 1].speed_mps);
            out[k].length_m = l;
            out[k].time_s = if vm > 0.0 { l / vm } else { f64::INFINITY };
        }
    }
    for k in 1..n - 1 {
        out[k].curvature_per_m = menger(pt(&out[k - 1]), pt(&out[k]), pt(&out[k + 1]));
    }
    if n >= 3 {
        out[0].curvature_per_m = out[1].curvature_per_m;
        out[n - 1].curvature_per_m = out[n - 2].curvature_per_m;
    }
}

/// What the conversion needs of one route segment, computed once per segment.
struct SegmentGeometry {
    start: Coord<f64>,
    dir: Coord<f64>,
    length_m: f64,
    /// The mean curvature of its ends, each from the segment's own side of a cusp.
    curvature_per_m: f64,
}

impl SegmentGeometry {
    fn of(route: &Path, seg: usize) -> SegmentGeometry {
        SegmentGeometry {
            start: route.point(seg),
            dir: route.segment_dir(seg),
            length_m: route.station(seg + 1) - route.station(seg),
            curvature_per_m: 0.5
                * (route.curvature_on(seg, seg) + route.curvature_on(seg + 1, seg)),
        }
    }
}

/// The part of the route a chunk lies on: that of its first station. A first station
/// exactly at a cusp belongs to the part whose direction is the chunk's.
pub fn chunk_part(chunk: &Chunk, route: &Path) -> std::ops::Range<usize> {
    let all = 0..route.len() - 1;
    let seg = route.segment_at(&all, chunk.start_station_m);
    let mut p = route.part_of(seg);
    let parts = route.parts();
    if p > 0
        && seg == parts[p].start
        && route.direction(seg) != chunk.direction
        && chunk.start_station_m <= route.station(seg)
    {
        p -= 1;
    }
    parts[p].clone()
}

pub use crate::chain::path::menger;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn menger_curvature_of_a_circle_is_exact() {
        let r = 20.0;
        let p = |a: f64| Coord {
            x: r * f64::cos(a),
            y: r * f64::sin(a),
        };
        let k = menger(p(0.0), p(0.05), p(0.1));
        assert!((k - 1.0 / r).abs() < 1e-12, "{k}");
        let k = menger(p(0.1), p(0.05), p(0.0));
        assert!((k + 1.0 / r).abs() < 1e-12, "{k}");
        let o = Coord { x: 0.0, y: 0.0 };
        assert_eq!(menger(o, o, p(0.0)), 0.0);
    }
}
