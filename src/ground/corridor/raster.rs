//! The corridor raster, its query and its file format.
//!
//! File format, version 1, all numbers little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `ACRESCOR` |
//! | 4 | version, u32 (1) |
//! | 4, 4 | width, height, u32 (cells) |
//! | 8 | resolution, f64 (m) |
//! | 8, 8 | origin x, y of the lower-left corner, f64 (m) |
//! | 4 + n | the map's name: length u32, UTF-8 |
//! | 4 + n | the route's name: length u32, UTF-8 |
//! | 4 × width × height | `d_c`, f32, row 0 the north edge |
//! | 4 | CRC-32 (IEEE) of every byte before it |

use crate::ground::map::Grid;
use std::path::Path as FsPath;

/// The magic of a corridor file.
pub const MAGIC: &[u8; 8] = b"ACRESCOR";
/// The version this library writes and reads.
pub const VERSION: u32 = 1;

/// A corridor raster: each cell the lower bound `d_c` (m) of the distance from its centre
/// to excluded ground, with the names of the map and the route it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Corridor {
    pub grid: Grid<f32>,
    pub map: String,
    pub route: String,
}

/// An error of reading a corridor file; it names the file and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum CorridorFileError {
    #[error("{file}: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}: not a corridor file (bad magic)")]
    Magic(String),
    #[error("{file}: version {found}, this acres reads version {VERSION}")]
    Version { file: String, found: u32 },
    #[error("{file}: truncated: {len} bytes, the header asks for {want}")]
    Truncated {
        file: String,
        len: usize,
        want: usize,
    },
    #[error("{file}: corrupted: the checksum is {found:08x}, the content gives {want:08x}")]
    Checksum { file: String, found: u32, want: u32 },
    #[error("{file}: bad header: {what}")]
    Header { file: String, what: String },
}

/// A margin subtracted from each query term for the rounding of `‖p − c‖`, m.
const QUERY_EPS_M: f64 = 1e-9;

impl Corridor {
    /// `d(p) = max_c (d_c − ‖p − c‖)` over the four cells whose centres surround `p`
    /// (vehicle-software.md "Corridor"): a lower bound of the distance from `p` to
    /// excluded ground, since that distance changes by at most `‖p − c‖` between `p` and
    /// `c`. A point with no such cell inside the raster gives 0 (it is outside, on
    /// excluded ground).
    pub fn query(&self, x: f64, y: f64) -> f64 {
        let g = &self.grid;
        let u = (x - g.origin_m[0]) / g.resolution_m - 0.5;
        let v = (y - g.origin_m[1]) / g.resolution_m - 0.5;
        if !(u.is_finite() && v.is_finite()) {
            return 0.0;
        }
        let (fi, fj) = (u.floor(), v.floor());
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
            let best = t(lo, fu, fv)
                .max(t(lo + 1, gu, fv))
                .max(t(hi, fu, gv))
                .max(t(hi + 1, gu, gv));
            return best - QUERY_EPS_M;
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
                best = best.max(d_c - dist - QUERY_EPS_M);
            }
        }
        if best == f64::NEG_INFINITY { 0.0 } else { best }
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
        Corridor {
            grid,
            map: "synthetic".into(),
            route: "synthetic".into(),
        }
    }

    /// The file bytes of the corridor.
    pub fn to_bytes(&self) -> Vec<u8> {
        let g = &self.grid;
        let mut b = Vec::with_capacity(64 + g.cells.len() * 4);
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&(g.width as u32).to_le_bytes());
        b.extend_from_slice(&(g.height as u32).to_le_bytes());
        b.extend_from_slice(&g.resolution_m.to_le_bytes());
        b.extend_from_slice(&g.origin_m[0].to_le_bytes());
        b.extend_from_slice(&g.origin_m[1].to_le_bytes());
        for s in [&self.map, &self.route] {
            b.extend_from_slice(&(s.len() as u32).to_le_bytes());
            b.extend_from_slice(s.as_bytes());
        }
        for c in &g.cells {
            b.extend_from_slice(&c.to_le_bytes());
        }
        let crc = crc32fast::hash(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    /// Parses file bytes; `file` names the file in errors.
    pub fn from_bytes(file: &str, b: &[u8]) -> Result<Corridor, CorridorFileError> {
        let f = || file.to_string();
        if b.len() < 8 || &b[..8] != MAGIC {
            return Err(CorridorFileError::Magic(f()));
        }
        let mut at = 8;
        let need = |at: usize, n: usize| -> Result<(), CorridorFileError> {
            if b.len() < at + n {
                Err(CorridorFileError::Truncated {
                    file: f(),
                    len: b.len(),
                    want: at + n,
                })
            } else {
                Ok(())
            }
        };
        let u32_at = |at: &mut usize| -> Result<u32, CorridorFileError> {
            need(*at, 4)?;
            let v = u32::from_le_bytes(b[*at..*at + 4].try_into().expect("4 bytes"));
            *at += 4;
            Ok(v)
        };
        let version = u32_at(&mut at)?;
        if version != VERSION {
            return Err(CorridorFileError::Version {
                file: f(),
                found: version,
            });
        }
        let width = u32_at(&mut at)? as usize;
        let height = u32_at(&mut at)? as usize;
        need(at, 24)?;
        let f64_at = |at: usize| f64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
        let res = f64_at(at);
        let ox = f64_at(at + 8);
        let oy = f64_at(at + 16);
        at += 24;
        let mut names = Vec::new();
        for _ in 0..2 {
            let n = u32_at(&mut at)? as usize;
            need(at, n)?;
            let s = std::str::from_utf8(&b[at..at + n]).map_err(|_| CorridorFileError::Header {
                file: f(),
                what: "a name is not UTF-8".into(),
            })?;
            names.push(s.to_string());
            at += n;
        }
        let cells_len = width
            .checked_mul(height)
            .and_then(|n| n.checked_mul(4))
            .ok_or_else(|| CorridorFileError::Header {
                file: f(),
                what: format!("{width} × {height} cells is too large"),
            })?;
        need(at, cells_len + 4)?;
        let end = at + cells_len;
        let found = u32::from_le_bytes(b[end..end + 4].try_into().expect("4 bytes"));
        let want = crc32fast::hash(&b[..end]);
        if found != want {
            return Err(CorridorFileError::Checksum {
                file: f(),
                found,
                want,
            });
        }
        if b.len() != end + 4 {
            return Err(CorridorFileError::Header {
                file: f(),
                what: format!("{} bytes after the checksum", b.len() - end - 4),
            });
        }
        if !(res.is_finite() && res > 0.0 && ox.is_finite() && oy.is_finite()) {
            return Err(CorridorFileError::Header {
                file: f(),
                what: "the resolution or the origin is not a number".into(),
            });
        }
        let cells = b[at..end]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        let route = names.pop().expect("two names");
        let map = names.pop().expect("two names");
        Ok(Corridor {
            grid: Grid {
                width,
                height,
                resolution_m: res,
                origin_m: [ox, oy],
                cells,
            },
            map,
            route,
        })
    }

    /// Writes the corridor file atomically.
    pub fn save(&self, path: &FsPath) -> Result<(), CorridorFileError> {
        crate::formats::atomic::write_atomic(path, &self.to_bytes()).map_err(|source| {
            CorridorFileError::Io {
                file: path.display().to_string(),
                source,
            }
        })
    }

    /// Reads and checks a corridor file.
    pub fn load(path: &FsPath) -> Result<Corridor, CorridorFileError> {
        let file = path.display().to_string();
        let b = std::fs::read(path).map_err(|source| CorridorFileError::Io {
            file: file.clone(),
            source,
        })?;
        Corridor::from_bytes(&file, &b)
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
        Corridor {
            grid: Grid {
                width: w,
                height: h,
                resolution_m: res,
                origin_m: [10.0, -4.0],
                cells,
            },
            map: "test map".into(),
            route: "test route".into(),
        }
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
        let mut v2 = b.clone();
        v2[8] = 2;
        let e = Corridor::from_bytes("c.acor", &v2).unwrap_err().to_string();
        assert!(e.contains("version 2"), "{e}");
        let e = Corridor::from_bytes("c.acor", b"PNG....")
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad magic"), "{e}");
        let mut long = b.clone();
        long.push(0);
        assert!(Corridor::from_bytes("c.acor", &long).is_err());
    }
}
