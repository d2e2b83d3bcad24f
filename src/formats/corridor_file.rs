//! The corridor file (`.acor`), version 3, all numbers little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `ACRESCOR` |
//! | 4 | version, u32 (3; versions 1, without the hashes, and 2, without the CRS, are read too) |
//! | 4, 4 | width, height, u32 (cells) |
//! | 8 | resolution, f64 (m) |
//! | 8, 8 | origin x, y of the lower-left corner, f64 (m) |
//! | 4 + n | the map's name: length u32, UTF-8 |
//! | 4 + n | the route's name: length u32, UTF-8 |
//! | 32, 32, 32 | SHA-256 of the map's classes, the route's points, the corridor config (version 2) |
//! | 4 | the EPSG code of the map's projected CRS, u32, 0 for none (version 3) |
//! | 4 × width × height | `d_c`, f32, row 0 the north edge |
//! | 4 | CRC-32 (IEEE) of every byte before it |

use crate::ground::corridor::{Corridor, Provenance};
use crate::ground::map::Grid;
use std::path::Path as FsPath;

/// The magic of a corridor file.
pub const MAGIC: &[u8; 8] = b"ACRESCOR";
/// The version this library writes; it reads it and versions 1 and 2.
pub const VERSION: u32 = 3;

/// An error of reading a corridor file; it names the file and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum CorridorFileError {
    /// The OS error is in the message, not a source, so that it is printed once.
    #[error("{file}: {error}")]
    Io { file: String, error: std::io::Error },
    #[error("{0}: not a corridor file (bad magic)")]
    Magic(String),
    #[error("{file}: version {found}, this acres reads versions 1 to {VERSION}")]
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

impl Corridor {
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
        // A corridor built elsewhere without its inputs' hashes writes zeros.
        let p = self.provenance.unwrap_or(Provenance {
            map: [0; 32],
            route: [0; 32],
            config: [0; 32],
        });
        for h in [p.map, p.route, p.config] {
            b.extend_from_slice(&h);
        }
        let epsg = self.crs.map_or(0, |c| c.epsg() as u32);
        b.extend_from_slice(&epsg.to_le_bytes());
        for c in &g.cells {
            b.extend_from_slice(&c.to_le_bytes());
        }
        let crc = crc32fast::hash(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    /// Parses file bytes; `file` names the file in errors.
    pub fn from_bytes(file: &str, b: &[u8]) -> Result<Corridor, CorridorFileError> {
        let mut r = Reader { file, b, at: 0 };
        if b.len() < 8 || &b[..8] != MAGIC {
            return Err(CorridorFileError::Magic(file.to_string()));
        }
        r.at = 8;
        let version = r.u32()?;
        if !(1..=VERSION).contains(&version) {
            return Err(CorridorFileError::Version {
                file: file.to_string(),
                found: version,
            });
        }
        let width = r.u32()? as usize;
        let height = r.u32()? as usize;
        let (res, ox, oy) = (r.f64()?, r.f64()?, r.f64()?);
        let map = r.name()?;
        let route = r.name()?;
        let provenance = if version >= 2 {
            let mut h = [[0u8; 32]; 3];
            for x in &mut h {
                x.copy_from_slice(r.take(32)?);
            }
            (h != [[0; 32]; 3]).then_some(Provenance {
                map: h[0],
                route: h[1],
                config: h[2],
            })
        } else {
            None
        };
        let crs = match if version >= 3 { r.u32()? } else { 0 } {
            0 => None,
            code => Some(
                crate::ground::Crs::from_epsg(code)
                    .map_err(|m| r.header(format!("the CRS: {m}")))?,
            ),
        };
        // The cell size, the origin and the far edges within their bounds (docs/formats.md
        // "Bounds"): a far edge at +∞ passed as a place nothing could be queried at.
        use crate::formats::bounds as b;
        let bound = |m: String| r.header(format!("the {m}"));
        b::resolution("resolution", res).map_err(bound)?;
        let edges = [
            ("origin x", ox),
            ("origin y", oy),
            ("right edge", ox + width as f64 * res),
            ("top edge", oy + height as f64 * res),
        ];
        for (what, v) in edges {
            b::position(what, v).map_err(bound)?;
        }
        let cells = r.cells(width, height)?;
        if let Some(what) = implausible_cell(&cells, width, height, res) {
            return Err(r.header(what));
        }
        let grid = Grid {
            width,
            height,
            resolution_m: res,
            origin_m: [ox, oy],
            cells,
        };
        let mut c = Corridor::new(grid, map, route);
        c.provenance = provenance;
        c.crs = crs;
        Ok(c)
    }

    /// Writes the corridor file atomically.
    pub fn save(&self, path: &FsPath) -> Result<(), CorridorFileError> {
        crate::formats::atomic::write_atomic(path, &self.to_bytes()).map_err(|source| {
            CorridorFileError::Io {
                file: path.display().to_string(),
                error: source,
            }
        })
    }

    /// Reads and checks a corridor file.
    pub fn load(path: &FsPath) -> Result<Corridor, CorridorFileError> {
        let file = path.display().to_string();
        let b = std::fs::read(path).map_err(|source| CorridorFileError::Io {
            file: file.clone(),
            error: source,
        })?;
        Corridor::from_bytes(&file, &b)
    }
}

/// The format version of a corridor file, from its first 12 bytes.
pub fn version_of(path: &FsPath) -> Result<u32, CorridorFileError> {
    use std::io::Read;
    let file = path.display().to_string();
    let io = |source| CorridorFileError::Io {
        file: file.clone(),
        error: source,
    };
    let mut head = [0u8; 12];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .map_err(io)?;
    if &head[..8] != MAGIC {
        return Err(CorridorFileError::Magic(file));
    }
    Ok(u32::from_le_bytes([head[8], head[9], head[10], head[11]]))
}

/// A cursor over the bytes of a corridor file that names the file in its errors.
struct Reader<'a> {
    file: &'a str,
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn header(&self, what: String) -> CorridorFileError {
        CorridorFileError::Header {
            file: self.file.to_string(),
            what,
        }
    }

    /// The next `n` bytes, or a truncation error.
    fn take(&mut self, n: usize) -> Result<&[u8], CorridorFileError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len());
        let Some(end) = end else {
            return Err(CorridorFileError::Truncated {
                file: self.file.to_string(),
                len: self.b.len(),
                want: self.at.saturating_add(n),
            });
        };
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, CorridorFileError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn f64(&mut self) -> Result<f64, CorridorFileError> {
        Ok(f64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }

    /// A name: its length, then UTF-8.
    fn name(&mut self) -> Result<String, CorridorFileError> {
        let n = self.u32()? as usize;
        let bytes = self.take(n)?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s.to_string()),
            Err(_) => Err(self.header("a name is not UTF-8".into())),
        }
    }

    /// The cells, the checksum of every byte before it, and nothing after it.
    fn cells(&mut self, width: usize, height: usize) -> Result<Vec<f32>, CorridorFileError> {
        let len = width
            .checked_mul(height)
            .and_then(|n| n.checked_mul(4))
            .ok_or_else(|| self.header(format!("{width} × {height} cells is too large")))?;
        let start = self.at;
        // The cells and the checksum must all be there before the checksum is read.
        self.take(len.saturating_add(4))?;
        let end = start + len;
        let found = u32::from_le_bytes(self.b[end..end + 4].try_into().expect("4 bytes"));
        let want = crc32fast::hash(&self.b[..end]);
        if found != want {
            return Err(CorridorFileError::Checksum {
                file: self.file.to_string(),
                found,
                want,
            });
        }
        if self.b.len() != self.at {
            let extra = self.b.len() - self.at;
            return Err(self.header(format!("{extra} bytes after the checksum")));
        }
        Ok(self.b[start..end]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }
}

/// The first cell whose `d_c` no built corridor can hold: not finite, or above the
/// distance from its centre to the raster's edge (the edge counts as excluded ground, so
/// a valid checksum over such a value means the file was not written by a build).
fn implausible_cell(cells: &[f32], width: usize, height: usize, res: f64) -> Option<String> {
    for (k, &d) in cells.iter().enumerate() {
        let (i, j) = (k % width, k / width);
        if !d.is_finite() {
            return Some(format!("cell ({i}, {j}) holds {d}, not a finite distance"));
        }
        let edge = [i, width - 1 - i, j, height - 1 - j]
            .into_iter()
            .min()
            .expect("four sides") as f64
            + 0.5;
        let limit = edge * res;
        if d as f64 > limit * (1.0 + 1e-6) {
            return Some(format!(
                "cell ({i}, {j}) holds {d} m, more than the {limit} m to the raster's edge"
            ));
        }
    }
    None
}
