//! Building a corridor raster from a map and a route (vehicle-software.md "Corridor").
//!
//! The rules, with the reaches of `control_v1.json` block `corridor`:
//! - lane cells (asphalt, concrete, gravel, grass_lane, dirt) and verge cells join within
//!   `lane_reach_m` of the route;
//! - cells of another class (grass, field) join within `local_reach_m` of the route, and
//!   only where the route's class at the nearest route point is that class;
//! - obstacle and unknown cells never join, nor does anything outside the map.
//!
//! The raster covers the route's bounding box grown by the larger reach and the scan
//! reach `range_m`, on the map's grid. Each cell stores `d_c`, the exact distance from its
//! centre to the nearest excluded cell's square (or the raster's edge) rounded down to
//! f32 ([`super::edt`]): a true lower bound.

use super::edt;
use super::raster::Corridor;
use crate::chain::path::Path;
use crate::config::CorridorConfig;
use crate::ground::map::{Grid, Map, MapClass};
use geo::Coord;

/// The most cells a corridor raster may have by default (2²⁸: 1 GiB of `d_c` and a
/// bitset); [`build_limited`] takes another limit.
pub const MAX_CELLS: u64 = 1 << 28;

/// Why a corridor cannot be built; each names the route and the map.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    #[error(
        "the route `{route}` lies entirely outside the map `{map}` and its reach: no cell can join its corridor"
    )]
    Outside { route: String, map: String },
    #[error(
        "the corridor of the route `{route}` on the map `{map}` would have {cells} cells ({w} × {h}), more than the limit of {limit} (raise it with --max-cells)"
    )]
    TooLarge {
        route: String,
        map: String,
        cells: u64,
        w: u64,
        h: u64,
        limit: u64,
    },
}

/// Builds the corridor of `path` on `map` within the default size limit; `progress` is
/// told the fraction done.
pub fn build(
    map: &Map,
    path: &Path,
    cfg: &CorridorConfig,
    progress: impl FnMut(f64),
) -> Result<Corridor, BuildError> {
    build_limited(map, path, cfg, MAX_CELLS, progress)
}

/// [`build`] with a limit on the raster's cells, checked before anything is allocated.
pub fn build_limited(
    map: &Map,
    path: &Path,
    cfg: &CorridorConfig,
    max_cells: u64,
    progress: impl FnMut(f64),
) -> Result<Corridor, BuildError> {
    build_reported(map, path, cfg, max_cells, progress).map(|(c, _)| c)
}

/// What a build met that its user should know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BuildReport {
    /// Cells within reach of the route (the larger of the lane and local reach) that
    /// stayed out of the corridor because their ground is unknown.
    pub unknown_cells: usize,
}

/// [`build_limited`] with its [`BuildReport`].
pub fn build_reported(
    map: &Map,
    path: &Path,
    cfg: &CorridorConfig,
    max_cells: u64,
    mut progress: impl FnMut(f64),
) -> Result<(Corridor, BuildReport), BuildError> {
    let f = Frame::of(map, path, cfg, max_cells)?;
    // Pass 1 keeps the squared distance to the route in the buffer that later holds d_c
    // (peak memory: that buffer and a bitset).
    let mut cells = f.route_distances(path, cfg, &mut progress);
    progress(0.4);
    let report = BuildReport {
        unknown_cells: f.unknown_within_reach(cfg, &cells),
    };
    let joined = f.joined(path, cfg, &cells);
    progress(0.6);
    let bit = |k: usize| joined[k / 64] >> (k % 64) & 1 == 1;
    edt::border_distance(f.w, f.h, |k| !bit(k), f.res, &mut cells);
    progress(1.0);
    let grid = Grid {
        width: f.w,
        height: f.h,
        resolution_m: f.res,
        origin_m: f.origin,
        cells,
    };
    let mut c = Corridor::new(grid, map.name.clone(), path.name());
    c.provenance = Some(super::raster::Provenance::of(map, path, cfg));
    c.crs = map.crs;
    Ok((c, report))
}

/// The corridor grid: the route's box grown by the larger reach and the scan reach,
/// clipped to the map (nothing outside it can join, and the raster's edge counts as
/// excluded ground), aligned with the map's cells; `(c0, r0)` is its lower-left cell in
/// the map.
struct Frame<'a> {
    m: &'a Grid<MapClass>,
    c0: i64,
    r0: i64,
    w: usize,
    h: usize,
    res: f64,
    origin: [f64; 2],
}

impl Frame<'_> {
    fn of<'a>(
        map: &'a Map,
        path: &Path,
        cfg: &CorridorConfig,
        max_cells: u64,
    ) -> Result<Frame<'a>, BuildError> {
        let m = &map.classes;
        let res = m.resolution_m;
        let grow = cfg.lane_reach_m.max(cfg.local_reach_m) + cfg.range_m;
        let (mut x0, mut y0, mut x1, mut y1) = (
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        );
        for i in 0..path.len() {
            let p = path.point(i);
            x0 = x0.min(p.x);
            y0 = y0.min(p.y);
            x1 = x1.max(p.x);
            y1 = y1.max(p.y);
        }
        // In cells of the map, clamped to it before any cast (a route at 1e15 m, or
        // 20 km across a 360 m map, gives a raster no larger than the map).
        let (mw, mh) = (m.width as f64, m.height as f64);
        let cell = |v: f64, o: f64, hi: f64, up: bool| {
            let c = (v - o) / res;
            let c = if up { c.ceil() } else { c.floor() };
            c.clamp(0.0, hi) as i64
        };
        let c0 = cell(x0 - grow, m.origin_m[0], mw, false);
        let r0 = cell(y0 - grow, m.origin_m[1], mh, false); // from the bottom
        let c1 = cell(x1 + grow, m.origin_m[0], mw, true);
        let r1 = cell(y1 + grow, m.origin_m[1], mh, true);
        let outside = || BuildError::Outside {
            route: path.name().to_string(),
            map: map.name.clone(),
        };
        if !(x0.is_finite() && y0.is_finite() && x1.is_finite() && y1.is_finite())
            || c1 <= c0
            || r1 <= r0
        {
            return Err(outside());
        }
        let (w, h) = ((c1 - c0) as u64, (r1 - r0) as u64);
        if w * h > max_cells {
            return Err(BuildError::TooLarge {
                route: path.name().to_string(),
                map: map.name.clone(),
                cells: w * h,
                w,
                h,
                limit: max_cells,
            });
        }
        Ok(Frame {
            m,
            c0,
            r0,
            w: w as usize,
            h: h as usize,
            res,
            origin: [
                m.origin_m[0] + c0 as f64 * res,
                m.origin_m[1] + r0 as f64 * res,
            ],
        })
    }

    /// The map class of corridor cell (i, j) (j from the top); outside the map, unknown.
    /// The cells of unknown ground (inside the map) within the larger reach of the route;
    /// `cells` holds each cell's squared distance to the route.
    fn unknown_within_reach(&self, cfg: &CorridorConfig, cells: &[f32]) -> usize {
        let reach = cfg.lane_reach_m.max(cfg.local_reach_m);
        let reach2 = (reach * reach) as f32;
        cells
            .iter()
            .enumerate()
            .filter(|&(k, &d2)| {
                let at = self.map_index(k % self.w, k / self.w);
                d2 <= reach2 && at.is_some_and(|a| self.m.cells[a] == MapClass::Unknown)
            })
            .count()
    }

    /// The map cell under raster cell (i, j), None outside the map.
    fn map_index(&self, i: usize, j: usize) -> Option<usize> {
        let m = self.m;
        let mc = self.c0 + i as i64;
        let mr = self.r0 + (self.h - 1 - j) as i64; // from the bottom
        if mc < 0 || mr < 0 || mc >= m.width as i64 || mr >= m.height as i64 {
            return None;
        }
        Some((m.height - 1 - mr as usize) * m.width + mc as usize)
    }

    /// The class under raster cell (i, j); outside the map, unknown.
    fn class_at(&self, i: usize, j: usize) -> MapClass {
        self.map_index(i, j)
            .map_or(MapClass::Unknown, |a| self.m.cells[a])
    }

    /// The cells (columns lo_i..hi_i, rows lo_jb..hi_jb from the bottom) of the box of
    /// segment a–b grown by r.
    fn cell_range(&self, a: Coord<f64>, b: Coord<f64>, r: f64) -> (usize, usize, usize, usize) {
        let (o, res) = (self.origin, self.res);
        let lo_i = (((a.x.min(b.x) - r - o[0]) / res).floor().max(0.0)) as usize;
        let hi_i = (((a.x.max(b.x) + r - o[0]) / res).ceil().max(0.0) as usize).min(self.w);
        let lo_jb = (((a.y.min(b.y) - r - o[1]) / res).floor().max(0.0)) as usize;
        let hi_jb = (((a.y.max(b.y) + r - o[1]) / res).ceil().max(0.0) as usize).min(self.h);
        (lo_i, hi_i, lo_jb, hi_jb)
    }

    /// The squared distance from the centre of cell (i, jb from the bottom) to segment a–b,
    /// and where its foot lies (t), computed the same way in both passes.
    fn seg_d2(&self, a: Coord<f64>, b: Coord<f64>, i: usize, jb: usize) -> (f32, f64) {
        let (ex, ey) = (b.x - a.x, b.y - a.y);
        let cx = self.origin[0] + (i as f64 + 0.5) * self.res;
        let cy = self.origin[1] + (jb as f64 + 0.5) * self.res;
        let t = (((cx - a.x) * ex + (cy - a.y) * ey) / (ex * ex + ey * ey)).clamp(0.0, 1.0);
        let d2 = (cx - a.x - ex * t).powi(2) + (cy - a.y - ey * t).powi(2);
        (d2 as f32, t)
    }

    /// Pass 1: the squared distance to the route of the cells that may join: lane and
    /// verge cells within the lane reach, cells of other classes within the local reach
    /// (beyond it they never join); obstacles never. Others stay infinite.
    fn route_distances(
        &self,
        path: &Path,
        cfg: &CorridorConfig,
        progress: &mut impl FnMut(f64),
    ) -> Vec<f32> {
        let reach = cfg.lane_reach_m.max(cfg.local_reach_m);
        let reach_of = |c: MapClass| -> f64 {
            match c {
                MapClass::Obstacle | MapClass::Unknown => -1.0,
                MapClass::Verge => cfg.lane_reach_m,
                c if c.is_lane() => cfg.lane_reach_m,
                _ => cfg.local_reach_m,
            }
        };
        let (w, h) = (self.w, self.h);
        let mut cells = vec![f32::INFINITY; w * h];
        let nseg = path.len() - 1;
        for s in 0..nseg {
            let (a, b) = (path.point(s), path.point(s + 1));
            let (lo_i, hi_i, lo_jb, hi_jb) = self.cell_range(a, b, reach);
            let (near_i0, near_i1, near_jb0, near_jb1) = self.cell_range(a, b, cfg.local_reach_m);
            for jb in lo_jb..hi_jb {
                let j = h - 1 - jb;
                let in_local_rows = (near_jb0..near_jb1).contains(&jb);
                for i in lo_i..hi_i {
                    let near = in_local_rows && (near_i0..near_i1).contains(&i);
                    if !near && reach_of(self.class_at(i, j)) < cfg.lane_reach_m {
                        continue;
                    }
                    let (d2, _) = self.seg_d2(a, b, i, jb);
                    let k = j * w + i;
                    if d2 < cells[k] {
                        cells[k] = d2;
                    }
                }
            }
            if s % 64 == 0 {
                progress(0.3 * s as f64 / nseg as f64);
            }
        }
        cells
    }

    /// Pass 2: the cells that join, as a bitset. Lane and verge cells by their distance;
    /// cells of other classes where a nearest segment (one whose distance is the stored
    /// minimum) has their class at either end: a segment's ground is that of both its
    /// points (a sparse route drawn only at its corners, one of them on a lane, still
    /// keeps the field it crosses).
    fn joined(&self, path: &Path, cfg: &CorridorConfig, cells: &[f32]) -> Vec<u64> {
        let (w, h) = (self.w, self.h);
        let (lane2, local2) = (
            (cfg.lane_reach_m * cfg.lane_reach_m) as f32,
            (cfg.local_reach_m * cfg.local_reach_m) as f32,
        );
        let mut joined = vec![0u64; (w * h).div_ceil(64)];
        let set = |bits: &mut [u64], k: usize| bits[k / 64] |= 1 << (k % 64);
        for (k, &d2) in cells.iter().enumerate() {
            let c = self.class_at(k % w, k / w);
            if (c.is_lane() || c == MapClass::Verge) && d2 <= lane2 {
                set(&mut joined, k);
            }
        }
        for s in 0..path.len() - 1 {
            let (a, b) = (path.point(s), path.point(s + 1));
            let (ca, cb) = (path.class(s), path.class(s + 1));
            let (lo_i, hi_i, lo_jb, hi_jb) = self.cell_range(a, b, cfg.local_reach_m);
            for jb in lo_jb..hi_jb {
                let row = (h - 1 - jb) * w;
                for i in lo_i..hi_i {
                    let k = row + i;
                    let c = self.class_at(i, h - 1 - jb);
                    if c.is_lane()
                        || matches!(c, MapClass::Verge | MapClass::Obstacle | MapClass::Unknown)
                    {
                        continue;
                    }
                    let (d2, _) = self.seg_d2(a, b, i, jb);
                    if d2 > local2 || d2 != cells[k] {
                        continue;
                    }
                    let g = c.ground();
                    if g.is_some() && (ca == g || cb == g) {
                        set(&mut joined, k);
                    }
                }
            }
        }
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::path::{Direction, PathPoint};
    use crate::config::Config;
    use crate::ground::class::GroundClass;

    /// A 60 m × 40 m map at 0.5 m: `f(x, y)` gives the class at each cell centre.
    fn map(f: impl Fn(f64, f64) -> MapClass) -> Map {
        let (w, h, res) = (120, 80, 0.5);
        let mut cells = Vec::with_capacity(w * h);
        for j in 0..h {
            for i in 0..w {
                let x = (i as f64 + 0.5) * res;
                let y = ((h - 1 - j) as f64 + 0.5) * res;
                cells.push(f(x, y));
            }
        }
        Map {
            name: "hand-made".into(),
            classes: Grid {
                width: w,
                height: h,
                resolution_m: res,
                origin_m: [0.0, 0.0],
                cells,
            },
            elevation: None,
            crs: None,
            crs_note: None,
        }
    }

    /// A route east along y = 20 from x = 10 to x = 50 on `class`.
    fn route(class: GroundClass) -> Path {
        let pts: Vec<PathPoint> = (0..=80)
            .map(|i| PathPoint {
                x: 10.0 + i as f64 * 0.5,
                y: 20.0,
                speed_mps: 3.0,
                class: Some(class),
                direction: Direction::Forward,
            })
            .collect();
        Path::new("east", &pts).unwrap()
    }

    fn cfg() -> CorridorConfig {
        Config::builtin().control.corridor
    }

    #[test]
    fn a_field_route_keeps_to_its_local_reach() {
        let m = map(|_, _| MapClass::Field);
        let c = build(&m, &route(GroundClass::Field), &cfg(), |_| {}).unwrap();
        // On the route, the nearest excluded ground is local_reach (4 m) to the side.
        let d = c.query(30.0, 20.0);
        // The query loses at most one cell diagonal (0.71 m at 0.5 m).
        assert!(d <= 4.0 && d > 4.0 - 0.71, "{d}");
        // 6 m to the side is outside the corridor.
        assert!(c.query(30.0, 26.0) <= 0.0);
    }

    #[test]
    fn a_lane_route_past_a_field_does_not_take_the_field() {
        // A gravel lane 6 m wide along y = 17..23, a field north of it.
        let m = map(|_, y| {
            if (17.0..23.0).contains(&y) {
                MapClass::Gravel
            } else if y >= 23.0 {
                MapClass::Field
            } else {
                MapClass::Verge
            }
        });
        let c = build(&m, &route(GroundClass::Gravel), &cfg(), |_| {}).unwrap();
        // North the field starts 3 m from the route; south the verge joins to 20 m.
        let d = c.query(30.0, 20.0);
        assert!(d <= 3.0 && d > 2.6, "{d}");
        assert!(c.query(30.0, 23.5) <= 0.0);
        assert!(c.query(30.0, 10.0) > 5.0);
    }

    #[test]
    fn an_obstacle_inside_the_reach_is_excluded() {
        let m = map(|x, y| {
            if (29.0..31.0).contains(&x) && (21.0..22.0).contains(&y) {
                MapClass::Obstacle
            } else {
                MapClass::Gravel
            }
        });
        let c = build(&m, &route(GroundClass::Gravel), &cfg(), |_| {}).unwrap();
        let d = c.query(30.0, 20.0);
        assert!(d <= 1.0 && d > 0.6, "{d}");
        assert!(c.query(30.0, 21.5) <= 0.0);
        // The raster covers the route's box grown by 20 m + 40 m, clipped to the map: the
        // map ends at 40 m north, so beyond it is excluded.
        assert!(c.query(30.0, 40.5) <= 0.0);
        let g = &c.grid;
        assert_eq!((g.origin_m, g.width, g.height), ([0.0, 0.0], 120, 80));
    }

    fn two_points(a: (f64, f64), b: (f64, f64), ca: GroundClass, cb: GroundClass) -> Path {
        let pt = |p: (f64, f64), c| PathPoint {
            x: p.0,
            y: p.1,
            speed_mps: 3.0,
            class: Some(c),
            direction: Direction::Forward,
        };
        Path::new("sparse", &[pt(a, ca), pt(b, cb)]).unwrap()
    }

    /// A route 20 km long over the 60 m map, and one 10^15 m away: the first gives a
    /// raster no larger than the map, the second an error naming route and map, as does
    /// a raster above the cell limit; nothing huge is allocated.
    #[test]
    fn the_raster_is_clipped_to_the_map_and_sized_before_it_is_allocated() {
        let m = map(|_, _| MapClass::Gravel);
        let g = GroundClass::Gravel;
        let long = two_points((-10_000.0, 20.0), (10_000.0, 20.0), g, g);
        let c = build(&m, &long, &cfg(), |_| {}).unwrap();
        assert_eq!((c.grid.width, c.grid.height), (120, 80));
        assert!(c.query(30.0, 20.0) > 19.0);
        // (Farther than 10^8 m a route is refused when it is read: chain::path's tests.)
        for far in [1e7, -1e7, 9e7] {
            let r = two_points((far, far), (far * 1.001, far), g, g);
            let e = build(&m, &r, &cfg(), |_| {}).unwrap_err();
            assert!(matches!(e, BuildError::Outside { .. }), "{e}");
            assert!(e.to_string().contains("sparse") && e.to_string().contains("hand-made"));
        }
        let e = build_limited(&m, &long, &cfg(), 9_599, |_| {}).unwrap_err();
        assert!(e.to_string().contains("9600 cells (120 × 80)"), "{e}");
    }

    /// A route drawn only at its ends, from a lane onto a field it then crosses: every
    /// point along it is inside its corridor (the segment's ground is both its ends').
    #[test]
    fn a_sparse_route_keeps_the_ground_of_its_segments() {
        let m = map(|x, _| {
            if x < 12.0 {
                MapClass::Gravel
            } else {
                MapClass::Field
            }
        });
        let r = two_points(
            (10.0, 20.0),
            (50.0, 20.0),
            GroundClass::Gravel,
            GroundClass::Field,
        );
        let c = build(&m, &r, &cfg(), |_| {}).unwrap();
        for k in 0..=80 {
            let x = 10.0 + 0.5 * k as f64;
            assert!(c.query(x, 20.0) > 0.0, "x {x}: {}", c.query(x, 20.0));
        }
    }

    /// A gravel lane map of 0.3 m cells (not a power of two: the raster's origin, the
    /// map's plus a cell offset, is rounded), 60 m × 30 m, with an obstacle at (31, 21)
    /// and field from 23 m north.
    fn lane_with_field(w: usize, h: usize, res: f64) -> Map {
        let class = |x: f64, y: f64| {
            if (x - 31.0).hypot(y - 21.0) < 1.0 {
                MapClass::Obstacle
            } else if y < 23.0 {
                MapClass::Gravel
            } else {
                MapClass::Field
            }
        };
        let cells = (0..w * h)
            .map(|k| {
                let (i, j) = (k % w, k / w);
                class((i as f64 + 0.5) * res, ((h - 1 - j) as f64 + 0.5) * res)
            })
            .collect();
        let mut m = map(|_, _| MapClass::Gravel);
        m.classes = Grid {
            width: w,
            height: h,
            resolution_m: res,
            origin_m: [0.0, 0.0],
            cells,
        };
        m
    }

    /// At Web-Mercator-sized coordinates the bound holds: no query above the exact
    /// distance to excluded ground, computed from the map's own cells.
    #[test]
    fn the_bound_holds_far_from_the_origin() {
        let (w, h, res) = (200, 100, 0.3);
        let mut m = lane_with_field(w, h, res);
        // Reaches of 5 m and a scan of 0.5 m: the raster is a window inside the map, its
        // origin the map's plus a cell offset, rounded.
        let mut cfg = cfg();
        (cfg.lane_reach_m, cfg.range_m) = (5.0, 0.5);
        let o = [523_456.789_123, 20_012_345.678_901];
        m.classes.origin_m = o;
        let pts: Vec<PathPoint> = (0..=80)
            .map(|i| PathPoint {
                x: o[0] + 10.0 + 0.5 * i as f64,
                y: o[1] + 20.0,
                speed_mps: 3.0,
                class: Some(GroundClass::Gravel),
                direction: Direction::Forward,
            })
            .collect();
        let c = build(&m, &Path::new("far", &pts).unwrap(), &cfg, |_| {}).unwrap();
        assert!(c.grid.origin_m[1] > o[1] + 10.0, "{:?}", c.grid.origin_m);
        // The excluded squares near the lane: the obstacle's (the field beyond y = 23 m
        // is a half plane, the map's edge a box).
        let squares: Vec<(f64, f64)> = (0..w * h)
            .filter(|k| m.classes.cells[*k] == MapClass::Obstacle)
            .map(|k| {
                (
                    o[0] + (k % w) as f64 * res,
                    o[1] + (h - 1 - k / w) as f64 * res,
                )
            })
            .collect();
        let truth = |x: f64, y: f64| {
            let (x1, y1) = (o[0] + w as f64 * res, o[1] + h as f64 * res);
            let mut best = (x - o[0]).min(x1 - x).min(y - o[1]).min(y1 - y);
            // The field's squares begin on the first row whose centre is at 23 m or more.
            best = best.min(o[1] + (23.0 / res - 0.5).ceil() * res - y);
            for &(bx, by) in &squares {
                let dx = (bx - x).max(0.0).max(x - bx - res);
                let dy = (by - y).max(0.0).max(y - by - res);
                best = best.min(dx.hypot(dy));
            }
            best
        };
        let mut worst = f64::NEG_INFINITY;
        for k in 0..20_000 {
            // A low-discrepancy walk over the lane around the obstacle, half of it on the
            // columns of cell centres, where the bound is tight against the field's edge.
            let (fx, fy) = ((k as f64 * 0.618_034) % 1.0, (k as f64 * 0.414_214) % 1.0);
            let mut x = o[0] + 20.0 + 20.0 * fx;
            if k % 2 == 0 {
                let g = &c.grid;
                let i = ((x - g.origin_m[0]) / res).floor();
                x = g.origin_m[0] + (i + 0.5) * res;
            }
            let y = o[1] + 17.0 + 6.0 * fy;
            worst = worst.max(c.query(x, y) - truth(x, y));
        }
        assert!(worst <= 0.0, "a query exceeds the truth by {worst} m");
    }

    #[test]
    fn no_stored_value_exceeds_its_f64_value() {
        let m = map(|x, y| {
            if ((x - 33.3).powi(2) + (y - 18.1).powi(2)) < 4.0 {
                MapClass::Obstacle
            } else {
                MapClass::Grass
            }
        });
        let c = build(&m, &route(GroundClass::Grass), &cfg(), |_| {}).unwrap();
        let mut out = Vec::new();
        // Recompute in f64 and compare.
        let g = &c.grid;
        let f64_cells = {
            let ex: Vec<bool> = c.grid.cells.iter().map(|&d| d == 0.0).collect();
            edt::border_distance_with(g.width, g.height, |k| ex[k], &mut out, |d2| d2 as f32);
            out.iter()
                .map(|&d2| (d2 as f64).sqrt() * g.resolution_m)
                .collect::<Vec<_>>()
        };
        for (s, e) in g.cells.iter().zip(&f64_cells) {
            assert!((*s as f64) <= *e);
        }
    }
}
