//! The corridor raster and its query.
//!
//! The file format is in [`crate::formats::corridor_file`].

use crate::ground::map::Grid;

/// A corridor raster: each cell the lower bound `d_c` (m) of the distance from its centre
/// to excluded ground, with the names of the map and the route it came from. Made by
/// [`Corridor::new`], which keeps what each query needs of the grid's place at hand: the
/// grid's size, resolution and origin are not to be changed afterwards (its cells may).
#[derive(Debug, Clone, PartialEq)]
pub struct Corridor {
    pub grid: Grid<f32>,
    pub map: String,
    pub route: String,
    /// Hashes of what it was built from (none in a version 1 file).
    pub provenance: Option<Provenance>,
    /// The map's projected CRS, where it names one (none before version 3).
    pub crs: Option<crate::ground::Crs>,
    /// 1 / resolution, so that a query multiplies where it would divide.
    inv_res: f64,
    /// [`Corridor::eps`], computed once.
    eps_m: f64,
}

/// SHA-256 hashes of a corridor's inputs: the map's classes (names, grid and cells), the
/// route's points, and the corridor block of the configuration, each of its canonical
/// form (so that whitespace or key order in a file changes nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provenance {
    pub map: [u8; 32],
    pub route: [u8; 32],
    pub config: [u8; 32],
}

impl Provenance {
    /// The hashes of a build's inputs.
    pub fn of(
        map: &crate::ground::Map,
        route: &crate::chain::path::Path,
        cfg: &crate::config::CorridorConfig,
    ) -> Provenance {
        Provenance {
            map: map_hash(map),
            route: route_hash(route),
            config: sha(&serde_json::to_vec(cfg).expect("a config serializes")),
        }
    }

    /// A hash as hexadecimal.
    pub fn hex(h: &[u8; 32]) -> String {
        h.iter().map(|b| format!("{b:02x}")).collect()
    }
}

fn sha(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

/// The hash of a map's classes: its size, resolution, origin and every cell.
pub fn map_hash(map: &crate::ground::Map) -> [u8; 32] {
    use sha2::Digest;
    let g = &map.classes;
    let mut h = sha2::Sha256::new();
    h.update((g.width as u64).to_le_bytes());
    h.update((g.height as u64).to_le_bytes());
    h.update(g.resolution_m.to_le_bytes());
    h.update(g.origin_m[0].to_le_bytes());
    h.update(g.origin_m[1].to_le_bytes());
    // A piece at a time (the same digest as of the whole): a copy of a 2²⁸-cell map
    // would double the memory a build holds.
    let mut buf = Vec::with_capacity(1 << 16);
    for piece in g.cells.chunks(1 << 16) {
        buf.clear();
        buf.extend(piece.iter().map(|c| *c as u8));
        h.update(&buf);
    }
    h.finalize().into()
}

/// The hash of a route's points: position, speed, class and direction of each.
pub fn route_hash(route: &crate::chain::path::Path) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    for i in 0..route.len() {
        let p = route.point(i);
        h.update(p.x.to_le_bytes());
        h.update(p.y.to_le_bytes());
        h.update(route.speed(i).to_le_bytes());
        h.update([route.class(i).map_or(255, |c| c as u8)]);
        h.update([route.direction(i) as u8]);
    }
    h.finalize().into()
}

/// `x.floor()` for finite `x`, by truncation (the target's baseline has no rounding
/// instruction, and the call to libm showed in profiles); outside the range of i64 it
/// falls back to `f64::floor`.
#[inline]
fn floor(x: f64) -> f64 {
    if x.abs() < 9.0e15 {
        let t = x as i64 as f64;
        if t > x { t - 1.0 } else { t }
    } else {
        x.floor()
    }
}

/// What `Corridor::reaches` keeps in hand before it answers without the query, m: far
/// more than the rounding of the query's arithmetic (about 1e-14 m), far less than
/// anything a vehicle could use.
const REACH_SLACK_M: f64 = 1e-12;

/// A margin subtracted from each query term for the rounding of `‖p − c‖`, m; far
/// from the origin of the coordinates the rounding of the raster's origin adds to it
/// ([`Corridor::eps`]).
const QUERY_EPS_M: f64 = 1e-9;

impl Corridor {
    /// The raster's extent in the map's metres, its cells' outer edges: (x0, x1), (y0, y1).
    pub fn extent(&self) -> ((f64, f64), (f64, f64)) {
        let g = &self.grid;
        let (x0, y0) = (g.origin_m[0], g.origin_m[1]);
        (
            (x0, x0 + g.width as f64 * g.resolution_m),
            (y0, y0 + g.height as f64 * g.resolution_m),
        )
    }

    /// Whether (x, y) lies on the raster (its cells' outer edges included); off it the
    /// bound is 0, the ground being unknown there.
    pub fn covers(&self, x: f64, y: f64) -> bool {
        let ((x0, x1), (y0, y1)) = self.extent();
        (x0..=x1).contains(&x) && (y0..=y1).contains(&y)
    }

    /// `d(p) = max_c (d_c − ‖p − c‖)` over the four cells whose centres surround `p`
    /// (vehicle-software.md "Corridor"): a lower bound of the distance from `p` to
    /// excluded ground, since that distance changes by at most `‖p − c‖` between `p` and
    /// `c`. A point with no such cell inside the raster gives 0 (it is outside, on
    /// excluded ground).
    pub fn query(&self, x: f64, y: f64) -> f64 {
        let g = &self.grid;
        // Multiplying by the reciprocal rounds u and v by at most an ulp more than
        // dividing; the margin's 8 ulps of the coordinates cover it.
        let u = (x - g.origin_m[0]) * self.inv_res - 0.5;
        let v = (y - g.origin_m[1]) * self.inv_res - 0.5;
        // Beyond a cell outside the raster no centre surrounds p (and far beyond, the
        // cell indices would not fit): outside, 0.
        if !(u >= -1.0 && v >= -1.0 && u <= g.width as f64 && v <= g.height as f64) {
            return 0.0;
        }
        let eps = self.eps();
        // floor() without a call into libm: the casts truncate toward zero.
        let (fi, fj) = (floor(u), floor(v));
        let (fu, fv) = (u - fi, v - fj);
        let (i0, j0) = (fi as i64, fj as i64);
        let (w, h) = (g.width as i64, g.height as i64);
        let res = g.resolution_m;
        if i0 >= 0 && j0 >= 0 && i0 + 1 < w && j0 + 1 < h {
            // All four cells inside: no bounds to test. Row h − 1 − j0 is the lower pair.
            let lo = ((h - 1 - j0) * w + i0) as usize;
            let hi = lo - g.width;
            let (gu, gv) = (fu - 1.0, fv - 1.0);
            let t =
                |k: usize, du: f64, dv: f64| g.cells[k] as f64 - (du * du + dv * dv).sqrt() * res;
            // A plain comparison, not f64::max: no term is NaN (every d_c is finite, each
            // square root's argument is at least 0), so the NaN handling would be wasted.
            let max = |a: f64, b: f64| if a > b { a } else { b };
            let best = max(
                max(t(lo, fu, fv), t(lo + 1, gu, fv)),
                max(t(hi, fu, gv), t(hi + 1, gu, gv)),
            );
            return best - eps;
        }
        let mut best = f64::NEG_INFINITY;
        for (dj, dv) in [(0i64, fv), (1, fv - 1.0)] {
            let jb = j0 + dj;
            if jb < 0 || jb >= h {
                continue;
            }
            let row = ((h - 1 - jb) * w) as usize;
            for (di, du) in [(0i64, fu), (1, fu - 1.0)] {
                let i = i0 + di;
                if i < 0 || i >= w {
                    continue;
                }
                let d_c = g.cells[row + i as usize] as f64;
                let dist = (du * du + dv * dv).sqrt() * g.resolution_m;
                best = best.max(d_c - dist - eps);
            }
        }
        if best == f64::NEG_INFINITY { 0.0 } else { best }
    }

    /// Whether `query(x, y) ≥ r`, usually with one square root instead of four: the cell
    /// nearest to `p` is tried first, and where its term alone reaches `r` the maximum
    /// does too; otherwise the whole query decides. The same answer as the query's.
    pub fn reaches(&self, x: f64, y: f64, r: f64) -> bool {
        let g = &self.grid;
        let u = (x - g.origin_m[0]) / g.resolution_m - 0.5;
        let v = (y - g.origin_m[1]) / g.resolution_m - 0.5;
        if u >= -1.0 && v >= -1.0 && u <= g.width as f64 && v <= g.height as f64 {
            let (fi, fj) = (floor(u), floor(v));
            let (fu, fv) = (u - fi, v - fj);
            let (i, j) = (
                fi as i64 + (fu >= 0.5) as i64,
                fj as i64 + (fv >= 0.5) as i64,
            );
            let (w, h) = (g.width as i64, g.height as i64);
            if i >= 0 && j >= 0 && i < w && j < h {
                let du = if fu >= 0.5 { fu - 1.0 } else { fu };
                let dv = if fv >= 0.5 { fv - 1.0 } else { fv };
                let k = ((h - 1 - j) * w + i) as usize;
                // The term reaches r where the distance to the cell's centre is at most
                // a = d_c − ε − r: compared in squares, with 1e-12 m to spare for the
                // rounding of the query's own arithmetic, so no square root is taken.
                let a = (g.cells[k] as f64 - self.eps()) - r - REACH_SLACK_M;
                let res = g.resolution_m;
                if a >= 0.0 && a * a >= (du * du + dv * dv) * (res * res) {
                    return true;
                }
            }
        }
        self.query(x, y) >= r
    }

    /// The margin of each query term, m: 1e-9 m for the rounding of `‖p − c‖`, and 8
    /// units in the last place of the largest coordinate inside the raster, which covers
    /// the rounding of the raster's origin (the map's origin plus the corridor's cell
    /// offset) and of `p − origin` (3.6 × 10⁻⁸ m at Web-Mercator coordinates near
    /// 2 × 10⁷ m).
    #[inline]
    pub fn eps(&self) -> f64 {
        self.eps_m
    }

    /// A corridor of a grid of `d_c`, with the names of its map and route (no provenance,
    /// no CRS: set them where known).
    pub fn new(grid: Grid<f32>, map: impl Into<String>, route: impl Into<String>) -> Corridor {
        let extent = (grid.width + grid.height) as f64 * grid.resolution_m;
        let eps_m = QUERY_EPS_M
            + 8.0 * f64::EPSILON * (grid.origin_m[0].abs() + grid.origin_m[1].abs() + extent);
        Corridor {
            inv_res: 1.0 / grid.resolution_m,
            eps_m,
            grid,
            map: map.into(),
            route: route.into(),
            provenance: None,
            crs: None,
        }
    }

    /// The corridor of a synthetic raster: `excluded(x, y)` tells, for each cell centre
    /// in the world frame, whether the cell is excluded (tests, benchmarks, made-up maps).
    pub fn from_fn(
        width: usize,
        height: usize,
        resolution_m: f64,
        origin_m: [f64; 2],
        excluded: impl Fn(f64, f64) -> bool,
    ) -> Corridor {
        let mut grid = Grid {
            width,
            height,
            resolution_m,
            origin_m,
            cells: Vec::new(),
        };
        let mask: Vec<bool> = (0..width * height)
            .map(|k| {
                let (x, y) = grid.centre(k % width, k / width);
                excluded(x, y)
            })
            .collect();
        super::edt::border_distance(width, height, |k| mask[k], resolution_m, &mut grid.cells);
        Corridor::new(grid, "synthetic", "synthetic")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::corridor::edt;
    use proptest::prelude::*;

    fn corridor_of(w: usize, h: usize, ex: &[bool], res: f64) -> Corridor {
        let mut cells = Vec::new();
        edt::border_distance(w, h, |k| ex[k], res, &mut cells);
        let grid = Grid {
            width: w,
            height: h,
            resolution_m: res,
            origin_m: [10.0, -4.0],
            cells,
        };
        Corridor::new(grid, "test map", "test route")
    }

    /// The exact distance from (x, y) to excluded ground: the excluded squares and
    /// everything outside the raster.
    fn truth(c: &Corridor, ex: &[bool], x: f64, y: f64) -> f64 {
        let g = &c.grid;
        let (x0, y0) = (g.origin_m[0], g.origin_m[1]);
        let (x1, y1) = (
            x0 + g.width as f64 * g.resolution_m,
            y0 + g.height as f64 * g.resolution_m,
        );
        if x <= x0 || x >= x1 || y <= y0 || y >= y1 {
            return 0.0;
        }
        let mut best = (x - x0).min(x1 - x).min(y - y0).min(y1 - y);
        for j in 0..g.height {
            for i in 0..g.width {
                if !ex[j * g.width + i] {
                    continue;
                }
                let bx0 = x0 + i as f64 * g.resolution_m;
                let by0 = y0 + (g.height - 1 - j) as f64 * g.resolution_m;
                let dx = (bx0 - x).max(0.0).max(x - bx0 - g.resolution_m);
                let dy = (by0 - y).max(0.0).max(y - by0 - g.resolution_m);
                best = best.min(dx.hypot(dy));
            }
        }
        best
    }

    proptest! {
        #[test]
        fn query_is_a_lower_bound_within_a_cell_diagonal(
            w in 1usize..20, h in 1usize..20,
            seed in prop::collection::vec(prop::bool::weighted(0.1), 400),
            pts in prop::collection::vec((-0.2f64..1.2, -0.2f64..1.2), 20),
        ) {
            let res = 0.25;
            let ex = &seed[..w * h];
            let c = corridor_of(w, h, ex, res);
            let (sx, sy) = (w as f64 * res, h as f64 * res);
            for (fx, fy) in pts {
                let (x, y) = (10.0 + fx * sx, -4.0 + fy * sy);
                let d = c.query(x, y);
                let t = truth(&c, ex, x, y);
                prop_assert!(d <= t, "d({x}, {y}) = {d} > {t}");
                prop_assert!(d >= t - res * std::f64::consts::SQRT_2 - 1e-6, "d = {d}, truth {t}");
            }
            // On a border and on a cell centre, too.
            let (cx, cy) = c.grid.centre(w / 2, h / 2);
            prop_assert!(c.query(cx, cy) <= truth(&c, ex, cx, cy));
            prop_assert!(c.query(10.0, cy) <= 0.0);
        }

        /// `reaches(p, r)` answers `query(p) ≥ r`, inside the raster, at its edges and
        /// outside it, for bounds around the query's own value.
        #[test]
        fn reaches_is_the_query_compared(
            w in 1usize..20, h in 1usize..20,
            seed in prop::collection::vec(prop::bool::weighted(0.1), 400),
            pts in prop::collection::vec((-0.2f64..1.2, -0.2f64..1.2, -0.3f64..0.3), 20),
        ) {
            let res = 0.25;
            let c = corridor_of(w, h, &seed[..w * h], res);
            let (sx, sy) = (w as f64 * res, h as f64 * res);
            for (fx, fy, dr) in pts {
                let (x, y) = (10.0 + fx * sx, -4.0 + fy * sy);
                let d = c.query(x, y);
                for r in [d + dr, d, d.next_up(), d.next_down(), 0.0] {
                    prop_assert_eq!(c.reaches(x, y, r), d >= r, "({}, {}) r {} d {}", x, y, r, d);
                }
            }
        }
    }

    /// Points far outside, at any magnitude, not finite: 0 and `false`, no panic.
    #[test]
    fn far_and_non_finite_points_are_outside() {
        let c = corridor_of(12, 7, &[false; 84], 0.5);
        for (x, y) in [
            (1e19, 600.0),
            (-1e19, -4.0),
            (13.0, 1e300),
            (f64::MAX, f64::MIN),
            (f64::NAN, 0.0),
            (f64::INFINITY, -1.0),
            (9.0e15, 9.0e15),
        ] {
            assert_eq!(c.query(x, y), 0.0, "({x}, {y})");
            assert!(!c.reaches(x, y, 1e-9), "({x}, {y})");
        }
        // Just inside a corner: a cell's bound, not 0.
        assert!(c.query(10.01, -3.99) > -0.5);
    }

    /// A file whose cells no build can give is refused even with a valid checksum.
    #[test]
    fn implausible_cells_are_refused_with_the_cell() {
        let base = corridor_of(6, 5, &[false; 30], 0.5);
        for (k, v, want) in [
            (7, f32::INFINITY, "cell (1, 1) holds inf"),
            (8, f32::NAN, "cell (2, 1) holds NaN"),
            (14, 1e6, "cell (2, 2) holds 1000000 m, more than the 1.25 m"),
        ] {
            let mut c = base.clone();
            c.grid.cells[k] = v;
            let e = Corridor::from_bytes("c.acor", &c.to_bytes()).unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
        }
        assert!(Corridor::from_bytes("c.acor", &base.to_bytes()).is_ok());
    }

    /// The cell size and the edges within docs/formats.md "Bounds": a resolution of
    /// 5e-324 m, or a far edge at +inf, passed `info` and `export` (issue 63).
    #[test]
    fn a_header_beyond_the_bounds_is_refused_naming_it() {
        let base = corridor_of(6, 5, &[false; 30], 0.5);
        type Change = fn(&mut Grid<f32>);
        let cases: [(Change, &str); 5] = [
            (
                |g| g.resolution_m = 5e-324,
                "the `resolution`: 5e-324 is outside",
            ),
            (
                |g| g.resolution_m = 1.5e4,
                "the `resolution`: 15000 is outside",
            ),
            (
                |g| g.origin_m[0] = 1e300,
                "the `origin x`: 1e300 is outside",
            ),
            (
                |g| g.origin_m[1] = -1.5e8,
                "the `origin y`: -1.5e8 is outside",
            ),
            (
                |g| g.origin_m[0] = 1e8 - 1.0,
                "the `right edge`: 1.00000002e8",
            ),
        ];
        for (change, want) in cases {
            let mut c = base.clone();
            change(&mut c.grid);
            let e = Corridor::from_bytes("c.acor", &c.to_bytes()).unwrap_err();
            assert!(
                e.to_string().contains("c.acor") && e.to_string().contains(want),
                "{e}"
            );
        }
        // At the ends of the bounds: taken.
        let mut c = corridor_of(6, 5, &[false; 30], 1e-4);
        c.grid.origin_m = [-1e8, 1e8 - 1.0];
        assert!(Corridor::from_bytes("c.acor", &c.to_bytes()).is_ok());
    }

    /// A built corridor records the hashes of its inputs; they survive the file, change
    /// with a map cell or a route point, and older files (without them) still load.
    #[test]
    fn provenance_is_recorded_compared_and_optional() {
        use crate::chain::path::Path;
        let cfg = crate::config::Config::builtin().control.corridor;
        let mut map = crate::ground::Map::builtin_farm();
        let route = Path::builtin("farm_yard_to_east_lane.json").unwrap();
        let c = crate::ground::corridor::build(&map, &route, &cfg, |_| {}).unwrap();
        let p = c.provenance.unwrap();
        let back = Corridor::from_bytes("c.acor", &c.to_bytes()).unwrap();
        assert_eq!(back.provenance, Some(p));
        assert_eq!(p.map, map_hash(&map));
        map.classes.cells[12345] = crate::ground::MapClass::Obstacle;
        assert_ne!(
            p.map,
            map_hash(&map),
            "a changed cell changes the map's hash"
        );
        let mut pts: Vec<crate::chain::path::PathPoint> = (0..route.len())
            .map(|i| crate::chain::path::PathPoint {
                x: route.point(i).x,
                y: route.point(i).y,
                speed_mps: route.speed(i),
                class: route.class(i),
                direction: route.direction(i),
            })
            .collect();
        assert_eq!(route_hash(&Path::new("same", &pts).unwrap()), p.route);
        pts[7].x += 0.01;
        assert_ne!(route_hash(&Path::new("moved", &pts).unwrap()), p.route);
        // The same corridor as a version 2 file (no CRS) and a version 1 file (no hashes
        // either): the same cells.
        let v3 = c.to_bytes();
        let names = 8 + 4 + 8 + 24 + 8 + c.map.len() + c.route.len();
        let older = |version: u32, keep: usize| {
            let mut b = v3[..names + keep].to_vec();
            b[8..12].copy_from_slice(&version.to_le_bytes());
            b.extend_from_slice(&v3[names + 100..v3.len() - 4]);
            let crc = crc32fast::hash(&b);
            b.extend_from_slice(&crc.to_le_bytes());
            Corridor::from_bytes("old.acor", &b).unwrap()
        };
        let v2 = older(2, 96);
        assert_eq!((v2.provenance, v2.crs, &v2.grid), (Some(p), None, &c.grid));
        let v1 = older(1, 0);
        assert_eq!((v1.provenance, &v1.grid), (None, &c.grid));
    }

    /// The map's CRS travels through the file; an unknown code in a file is refused.
    #[test]
    fn the_crs_survives_the_file() {
        let mut c = corridor_of(4, 3, &[false; 12], 0.5);
        c.crs = Some(crate::ground::Crs::parse("EPSG:32615").unwrap());
        let b = c.to_bytes();
        assert_eq!(Corridor::from_bytes("c.acor", &b).unwrap().crs, c.crs);
        let at = b.len() - 4 - 12 * 4 - 4;
        let mut bad = b[..b.len() - 4].to_vec();
        bad[at..at + 4].copy_from_slice(&4326u32.to_le_bytes());
        let crc = crc32fast::hash(&bad);
        bad.extend_from_slice(&crc.to_le_bytes());
        let e = Corridor::from_bytes("c.acor", &bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("c.acor") && e.contains("EPSG:4326"), "{e}");
    }

    #[test]
    fn file_round_trips_bit_for_bit() {
        let ex: Vec<bool> = (0..12 * 7).map(|k| k % 11 == 3).collect();
        let c = corridor_of(12, 7, &ex, 0.25);
        let b = c.to_bytes();
        let back = Corridor::from_bytes("c.acor", &b).unwrap();
        assert_eq!(back, c);
        assert_eq!(back.to_bytes(), b);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.acor");
        c.save(&p).unwrap();
        assert_eq!(Corridor::load(&p).unwrap(), c);
    }

    #[test]
    fn bad_files_are_refused_with_what_is_wrong() {
        let ex = vec![false; 30];
        let b = corridor_of(6, 5, &ex, 0.5).to_bytes();
        let e = Corridor::from_bytes("c.acor", &b[..b.len() - 10])
            .unwrap_err()
            .to_string();
        assert!(e.contains("c.acor") && e.contains("truncated"), "{e}");
        let mut bad = b.clone();
        bad[80] ^= 0x40;
        let e = Corridor::from_bytes("c.acor", &bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("corrupted"), "{e}");
        let mut v4 = b.clone();
        v4[8] = 4;
        let e = Corridor::from_bytes("c.acor", &v4).unwrap_err().to_string();
        assert!(
            e.contains("version 4") && e.contains("versions 1 to 3"),
            "{e}"
        );
        let e = Corridor::from_bytes("c.acor", b"PNG....")
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad magic"), "{e}");
        let mut long = b.clone();
        long.push(0);
        assert!(Corridor::from_bytes("c.acor", &long).is_err());
    }
}
