//! Peak memory of loading a map and building its corridor, counted by an allocator that
//! records the most bytes held at once. A test binary of its own: the count is of this
//! process, and it runs one test.
//!
//! Issue 63 found a 16384² float64 elevation GeoTIFF (a 1.07 GB float32 grid) peaking at
//! 3.15 GB: the file, its decoded float64 pixels and the grid at once. The bound here is
//! docs/formats.md's: at most 1.5 times the rasters the command holds.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = HELD.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        HELD.fetch_sub(l.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                let now = HELD.fetch_add(new - l.size(), Ordering::Relaxed) + new - l.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                HELD.fetch_sub(l.size() - new, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Writes a `n` × `n` single-band GeoTIFF of `T` at 1 m cells with its top-left corner at
/// (500000, 4990000), pixels from `value(column, row)`.
fn write_geotiff<C>(path: &std::path::Path, n: u32, value: impl Fn(u32, u32) -> C::Inner)
where
    C: tiff::encoder::colortype::ColorType,
    [C::Inner]: tiff::encoder::TiffValue,
    C::Inner: Copy,
{
    use tiff::tags::Tag;
    let f = std::fs::File::create(path).unwrap();
    let mut t = tiff::encoder::TiffEncoder::new(std::io::BufWriter::new(f)).unwrap();
    let mut img = t.new_image::<C>(n, n).unwrap();
    let enc = img.encoder();
    enc.write_tag(Tag::ModelPixelScaleTag, &[1.0, 1.0, 0.0][..])
        .unwrap();
    let tie = [0.0, 0.0, 0.0, 500_000.0, 4_990_000.0, 0.0];
    enc.write_tag(Tag::ModelTiepointTag, &tie[..]).unwrap();
    // GeoKey directory 1.1.0: projected, PixelIsArea, EPSG:32633.
    let keys: [u16; 16] = [1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32633];
    enc.write_tag(Tag::GeoKeyDirectoryTag, &keys[..]).unwrap();
    // Strip by strip, as GDAL writes them.
    img.rows_per_strip(16).unwrap();
    let mut row = Vec::with_capacity(n as usize * 16);
    for y0 in (0..n).step_by(16) {
        row.clear();
        for y in y0..(y0 + 16).min(n) {
            row.extend((0..n).map(|x| value(x, y)));
        }
        img.write_strip(&row).unwrap();
    }
    img.finish().unwrap();
}

#[test]
fn a_map_s_peak_memory_is_within_one_and_a_half_times_its_rasters() {
    use tiff::encoder::colortype::{Gray8, Gray64Float};
    let dir = tempfile::tempdir().unwrap();
    let n = 3072u32;
    write_geotiff::<Gray64Float>(&dir.path().join("elevation.tif"), n, |x, y| {
        250.0 + 0.01 * f64::from(x) - 0.002 * f64::from(y)
    });
    write_geotiff::<Gray8>(&dir.path().join("classes.tif"), n, |x, _| {
        if x % 512 < 500 { 3 } else { 9 }
    });
    let manifest = dir.path().join("map.json");
    std::fs::write(
        &manifest,
        r#"{"name": "big", "image": "classes.tif", "legend": {"3": "gravel", "9": "obstacle"},
            "elevation": {"image": "elevation.tif"}}"#,
    )
    .unwrap();
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let map = acres::ground::Map::load(&manifest).unwrap();
    let e = map.elevation.as_ref().unwrap();
    // The pixels landed where they were written: row 0 is the north edge.
    let z = e.at(500_100.5, 4_990_000.0 - 20.5).unwrap();
    assert!((z - (250.0 + 1.0 - 0.04)).abs() < 1e-3, "{z}");
    // The rasters: f32 elevation and one byte of class a cell.
    let rasters = (n as usize).pow(2) * (4 + 1);
    let peak = PEAK.load(Ordering::Relaxed) - before;
    assert!(
        peak as f64 <= 1.5 * rasters as f64,
        "the load peaked at {peak} bytes, more than 1.5 × the {rasters} of its rasters"
    );
    // And the build: the hash of the map is taken a piece at a time.
    let route = acres::chain::path::Path::from_json_str(
        "r.json",
        r#"{"name": "r", "points": [{"x": 500100, "y": 4989000, "speed_mps": 3, "class": "gravel"},
                                    {"x": 500300, "y": 4989000, "speed_mps": 3, "class": "gravel"}]}"#,
    )
    .unwrap();
    let cfg = acres::config::Config::builtin().control.corridor;
    PEAK.store(HELD.load(Ordering::Relaxed), Ordering::Relaxed);
    let held = HELD.load(Ordering::Relaxed) - before;
    let c = acres::ground::corridor::build(&map, &route, &cfg, |_| {}).unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let corridor = c.grid.cells.len() * 4;
    assert!(
        (peak - held) as f64 <= 0.1 * rasters as f64 + 8.0 * corridor as f64,
        "the build peaked {} bytes above the map's {held}",
        peak - held
    );
}
