//! The default farm map: 2048 m × 1536 m at 0.25 m (8192 × 6144 cells), with a public
//! road, a farmyard with buildings and silos, a gravel lane, grass lanes, a dirt track,
//! fields, meadows, tree lines and a pond, an elevation raster at 4 m, and routes over it.

use super::{Pen, write};
use acres::chain::envelope::GroundClass;
use acres::chain::path::Direction;
use acres::formats::map_manifest::{ElevationManifest, MapManifest};
use acres::ground::map::MapClass;
use std::collections::BTreeMap;
use std::f64::consts::FRAC_PI_2;
use std::path::PathBuf;

const RES: f64 = 0.25;
const W_M: f64 = 2048.0;
const H_M: f64 = 1536.0;

/// A shape of the map, in world metres.
enum Shape {
    Rect(f64, f64, f64, f64),
    /// A polyline with a half width.
    Band(Vec<(f64, f64)>, f64),
    Ellipse(f64, f64, f64, f64),
}

impl Shape {
    fn bbox(&self) -> (f64, f64, f64, f64) {
        match self {
            Shape::Rect(a, b, c, d) => (*a, *b, *c, *d),
            Shape::Band(p, hw) => {
                let xs = p.iter().map(|q| q.0);
                let ys = p.iter().map(|q| q.1);
                (
                    xs.clone().fold(f64::INFINITY, f64::min) - hw,
                    ys.clone().fold(f64::INFINITY, f64::min) - hw,
                    xs.fold(f64::NEG_INFINITY, f64::max) + hw,
                    ys.fold(f64::NEG_INFINITY, f64::max) + hw,
                )
            }
            Shape::Ellipse(cx, cy, rx, ry) => (cx - rx, cy - ry, cx + rx, cy + ry),
        }
    }

    fn contains(&self, x: f64, y: f64) -> bool {
        match self {
            Shape::Rect(a, b, c, d) => x >= *a && x < *c && y >= *b && y < *d,
            Shape::Band(p, hw) => p.windows(2).any(|s| {
                let ((ax, ay), (bx, by)) = (s[0], s[1]);
                let (ex, ey) = (bx - ax, by - ay);
                let t = (((x - ax) * ex + (y - ay) * ey) / (ex * ex + ey * ey)).clamp(0.0, 1.0);
                (x - ax - ex * t).powi(2) + (y - ay - ey * t).powi(2) <= hw * hw
            }),
            Shape::Ellipse(cx, cy, rx, ry) => {
                ((x - cx) / rx).powi(2) + ((y - cy) / ry).powi(2) <= 1.0
            }
        }
    }
}

/// The shapes, highest priority first.
fn shapes() -> Vec<(Shape, MapClass)> {
    use MapClass::*;
    let mut s: Vec<(Shape, MapClass)> = Vec::new();
    // Buildings and silos in the yard.
    for r in [
        (915.0, 290.0, 955.0, 310.0),   // barn
        (975.0, 285.0, 1000.0, 300.0),  // machine shed
        (1005.0, 240.0, 1017.0, 255.0), // house
    ] {
        s.push((Shape::Rect(r.0, r.1, r.2, r.3), Obstacle));
    }
    s.push((Shape::Ellipse(930.0, 250.0, 4.0, 4.0), Obstacle));
    s.push((Shape::Ellipse(940.0, 250.0, 4.0, 4.0), Obstacle));
    // The pond.
    s.push((Shape::Ellipse(1300.0, 520.0, 40.0, 25.0), Obstacle));
    // Tree lines along field edges, with gaps where lanes cross.
    for (a, b) in [
        ((300.0, 806.0), (955.0, 806.0)),
        ((966.0, 806.0), (1700.0, 806.0)),
        ((300.0, 1306.0), (955.0, 1306.0)),
        ((966.0, 1306.0), (1700.0, 1306.0)),
        ((300.0, 815.0), (300.0, 1300.0)),
        ((1700.0, 815.0), (1700.0, 1300.0)),
    ] {
        s.push((Shape::Band(vec![a, b], 2.5), Obstacle));
    }
    // Lanes.
    s.push((Shape::Rect(0.0, 196.5, W_M, 203.5), Asphalt)); // public road, 7 m
    s.push((Shape::Rect(955.0, 203.5, 965.0, 230.0), Concrete)); // drive
    s.push((Shape::Rect(900.0, 230.0, 1020.0, 320.0), Concrete)); // yard
    s.push((
        Shape::Band(vec![(960.0, 320.0), (960.0, 1400.0)], 2.0),
        Gravel,
    ));
    s.push((
        Shape::Band(vec![(300.0, 800.0), (1700.0, 800.0)], 1.75),
        GrassLane,
    ));
    s.push((
        Shape::Band(vec![(300.0, 1300.0), (1700.0, 1300.0)], 1.75),
        GrassLane,
    ));
    s.push((
        Shape::Band(vec![(1200.0, 800.0), (1240.0, 620.0), (1300.0, 560.0)], 1.5),
        Dirt,
    ));
    // Verges beside the road and the gravel lane.
    s.push((Shape::Rect(0.0, 194.5, W_M, 205.5), Verge));
    s.push((
        Shape::Band(vec![(960.0, 320.0), (960.0, 1400.0)], 3.5),
        Verge,
    ));
    // Fields between the grass lanes, meadows elsewhere.
    s.push((Shape::Rect(305.0, 810.0, 955.0, 1298.0), Field));
    s.push((Shape::Rect(966.0, 810.0, 1695.0, 1298.0), Field));
    s.push((Shape::Rect(1100.0, 1310.0, 1900.0, 1500.0), Field));
    s
}

fn class_index(c: MapClass) -> u8 {
    MapClass::ALL.iter().position(|k| *k == c).expect("a class") as u8
}

fn data_dir() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/maps/farm")
}

fn encode_gray(w: u32, h: u32, depth: png::BitDepth, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(depth);
    enc.set_compression(png::Compression::High);
    let mut wr = enc.write_header().unwrap();
    wr.write_image_data(data).unwrap();
    wr.finish().unwrap();
    out
}

/// Writes `data/maps/farm/`: `farm.json`, `classes.png`, `elevation.png`.
pub fn write_map() {
    let (w, h) = ((W_M / RES) as usize, (H_M / RES) as usize);
    let shapes = shapes();
    let bboxes: Vec<_> = shapes.iter().map(|(s, _)| s.bbox()).collect();
    let grass = class_index(MapClass::Grass);
    let mut img = vec![grass; w * h];
    for j in 0..h {
        let y = H_M - (j as f64 + 0.5) * RES;
        // The shapes that cross this row.
        let row: Vec<usize> = (0..shapes.len())
            .filter(|&k| bboxes[k].1 <= y && y <= bboxes[k].3)
            .collect();
        for i in 0..w {
            let x = (i as f64 + 0.5) * RES;
            for &k in &row {
                let b = bboxes[k];
                if x >= b.0 && x <= b.2 && shapes[k].0.contains(x, y) {
                    img[j * w + i] = class_index(shapes[k].1);
                    break;
                }
            }
        }
    }
    let dir = data_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let png = encode_gray(w as u32, h as u32, png::BitDepth::Eight, &img);
    acres::formats::atomic::write_atomic(&dir.join("classes.png"), &png).unwrap();

    // Elevation at 4 m, 0.01 m steps: a gentle rise to the north (1 %), two low hills, a
    // terrace of 6.4 m across the gravel lane and the dirt track near y = 600 m (to 9 %),
    // and a creek valley 6 m deep across the grass lanes near x = 1450 m (to 8.6 %): the
    // steep lane windows of the hold tests.
    let (ew, eh, eres) = (512usize, 384usize, 4.0);
    let mut elev = Vec::with_capacity(ew * eh * 2);
    for j in 0..eh {
        for i in 0..ew {
            let x = (i as f64 + 0.5) * eres;
            let y = H_M - (j as f64 + 0.5) * eres;
            let hill = |cx: f64, cy: f64, r: f64, z: f64| {
                z * (-((x - cx).powi(2) + (y - cy).powi(2)) / (r * r)).exp()
            };
            let terrace = 6.4 * (1.0 + ((y - 600.0) / 40.0).tanh()) / 2.0;
            let creek = -6.0 * (-((x - 1450.0) / 60.0).powi(2)).exp();
            let z = 0.01 * y
                + hill(600.0, 1100.0, 250.0, 8.0)
                + hill(1500.0, 1000.0, 180.0, 5.0)
                + terrace
                + creek
                + 10.0;
            let v = (z / 0.01).round() as u16;
            elev.extend_from_slice(&v.to_be_bytes());
        }
    }
    let png = encode_gray(ew as u32, eh as u32, png::BitDepth::Sixteen, &elev);
    acres::formats::atomic::write_atomic(&dir.join("elevation.png"), &png).unwrap();

    let legend: BTreeMap<String, MapClass> = MapClass::ALL
        .iter()
        .map(|c| (class_index(*c).to_string(), *c))
        .collect();
    let manifest = MapManifest {
        name: "farm".into(),
        image: "classes.png".into(),
        resolution_m: Some(RES),
        origin_m: Some([0.0, 0.0]),
        crs: None,
        legend,
        elevation: Some(ElevationManifest {
            image: "elevation.png".into(),
            resolution_m: Some(eres),
            origin_m: Some([0.0, 0.0]),
            scale_m: 0.01,
            offset_m: 100.0,
        }),
    };
    let text = serde_json::to_string_pretty(&manifest).unwrap() + "\n";
    acres::formats::atomic::write_atomic(&dir.join("farm.json"), text.as_bytes()).unwrap();
    println!("wrote data/maps/farm ({w} × {h} cells at {RES} m)");
}

/// Routes over the farm.
pub fn routes() {
    use Direction::Forward;
    use GroundClass::*;
    // From the yard up the gravel lane to the grass lane at y = 800, then east along it.
    // The corner (10 m radius: the lanes, 4 and 3.5 m wide, hold no turn the shield can
    // steer) cuts across the meadow between them, and says so: its points are grass, so
    // the corridor takes in the grass beside them and the plan check passes it.
    let yard_to_east = |corner: GroundClass| {
        let mut p = Pen::new(960.0, 260.0, FRAC_PI_2);
        p.line(60.0, 4.0, Concrete, Forward);
        p.line(470.0, 6.9, Gravel, Forward);
        p.arc(10.0, -FRAC_PI_2, 6.9, corner, Forward);
        p.line(400.0, 6.9, GrassLane, Forward);
        p.end(GrassLane, Forward)
    };
    write(
        "farm_yard_to_east_lane.json",
        "Farm: yard, gravel lane north, grass lane east (0.95 km)",
        yard_to_east(Grass),
    );
    // The test fixture of a failing plan check: the same corner said to be grass lane, so
    // the corridor keeps to the lanes and the corner leaves it (10 points fail).
    super::write_in(
        "tests/data/routes",
        "farm_corner_mislabelled.json",
        "Farm route whose corner says grass lane where it crosses grass (fails route check)",
        yard_to_east(GrassLane),
    );
    // A scouting pass in the field east of the lane: in at a gap, 300 m out and back.
    let mut p = Pen::new(1000.0, 830.0, 0.0);
    p.line(300.0, 5.0, Field, Forward);
    p.arc(12.0, std::f64::consts::PI, 5.0, Field, Forward);
    p.line(300.0, 5.0, Field, Forward);
    write(
        "farm_field_pass.json",
        "Farm: a scouting pass in the east field, 300 m out and back",
        p.end(Field, Forward),
    );
}
