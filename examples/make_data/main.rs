//! Writes the shipped data: the routes of `data/routes/`, the farm map of
//! `data/maps/farm/` with its routes, and the example chunks of `data/chunks/`: `cargo run --release --example make_data`.
//!
//! Each route is built from straight lines and circular arcs at 0.5 m spacing, with the
//! speed profile capped by the corner rule (v² κ ≤ 1.5 m/s², less 10 %) and the class
//! speed command of the shipped envelope. The farm is drawn from a list of shapes
//! (rectangles, capsules along polylines, ellipses) in order of priority.

mod chunks;
mod farm;

use acres::chain::envelope::GroundClass;
use acres::chain::path::{Direction, Path, PathPoint};
use acres::config::Config;
use acres::formats::route::RouteFile;
use std::f64::consts::{FRAC_PI_2, PI};

const STEP_M: f64 = 0.5;

/// A route under construction: a pen with a position and a heading.
pub struct Pen {
    x: f64,
    y: f64,
    heading: f64,
    points: Vec<PathPoint>,
}

impl Pen {
    pub fn new(x: f64, y: f64, heading: f64) -> Pen {
        Pen {
            x,
            y,
            heading,
            points: vec![],
        }
    }

    fn push(&mut self, speed: f64, class: GroundClass, dir: Direction, curvature: f64) {
        let cmd = Config::builtin()
            .envelope
            .grips
            .unknown
            .get(class)
            .speed_command_mps;
        let corner = if curvature == 0.0 {
            f64::INFINITY
        } else {
            (0.9 * 1.5 / curvature.abs()).sqrt()
        };
        self.points.push(PathPoint {
            x: round(self.x),
            y: round(self.y),
            speed_mps: round(speed.min(cmd).min(corner)),
            class: Some(class),
            direction: dir,
        });
    }

    /// A straight line of `len` m (the start point is drawn, the end is not).
    pub fn line(&mut self, len: f64, speed: f64, class: GroundClass, dir: Direction) {
        let n = (len / STEP_M).round() as usize;
        let sign = dir.sign();
        for _ in 0..n {
            self.push(speed, class, dir, 0.0);
            self.x += sign * STEP_M * self.heading.cos();
            self.y += sign * STEP_M * self.heading.sin();
        }
    }

    /// An arc of `angle` radians (positive left) on the radius `r` m.
    pub fn arc(&mut self, r: f64, angle: f64, speed: f64, class: GroundClass, dir: Direction) {
        let len = r * angle.abs();
        let n = (len / STEP_M).round().max(1.0) as usize;
        let dth = angle / n as f64;
        let sign = dir.sign();
        for _ in 0..n {
            self.push(speed, class, dir, 1.0 / r);
            // Move along the chord of the arc step.
            let mid = self.heading + dth / 2.0;
            let chord = 2.0 * r * (dth.abs() / 2.0).sin();
            self.x += sign * chord * mid.cos();
            self.y += sign * chord * mid.sin();
            self.heading += dth;
        }
    }

    /// The last point, with speed 0.
    pub fn end(mut self, class: GroundClass, dir: Direction) -> Vec<PathPoint> {
        self.push(0.0, class, dir, 0.0);
        self.points
    }
}

fn round(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

pub fn write(name: &str, title: &str, points: Vec<PathPoint>) {
    write_in("data/routes", name, title, points);
}

/// Writes a route under `folder` of the repository.
pub fn write_in(folder: &str, name: &str, title: &str, points: Vec<PathPoint>) {
    Path::new(name, &points).expect("a valid route");
    let file = RouteFile {
        name: title.to_string(),
        points,
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = serde_json::to_string(&file).unwrap();
    // One point a line, so that diffs stay readable.
    text = text
        .replace("},{", "},\n  {")
        .replace("[{", "[\n  {")
        .replace("}]", "}\n]");
    text.push('\n');
    acres::formats::atomic::write_atomic(&dir.join(name), text.as_bytes()).unwrap();
    println!("wrote {folder}/{name} ({} points)", file.points.len());
}

fn main() {
    routes();
    farm::write_map();
    farm::routes();
    chunks::write_all();
}

fn routes() {
    use Direction::{Forward, Reverse};
    use GroundClass::*;

    // A straight gravel farm lane, 300 m east.
    let mut p = Pen::new(0.0, 0.0, 0.0);
    p.line(300.0, 6.9, Gravel, Forward);
    write(
        "straight_lane.json",
        "Straight gravel lane, 300 m east",
        p.end(Gravel, Forward),
    );

    // The same lane as GeoJSON: one LineString, the speeds per point, one class.
    let lane = Path::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/routes/straight_lane.json"),
    )
    .unwrap();
    let coords: Vec<Vec<f64>> = (0..lane.len())
        .map(|i| vec![lane.point(i).x, lane.point(i).y])
        .collect();
    let speeds: Vec<f64> = (0..lane.len()).map(|i| lane.speed(i)).collect();
    // Map metres, not RFC 7946's longitude and latitude: the 2008 `crs` member says so.
    let gj = serde_json::json!({
        "type": "Feature",
        "crs": {"type": "name", "properties": {"name": "acres:map"}},
        "geometry": {"type": "LineString", "coordinates": coords},
        "properties": {"name": "Straight gravel lane, 300 m east", "speed_mps": speeds, "class": "gravel", "direction": "forward"}
    });
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/routes");
    acres::formats::atomic::write_atomic(
        &dir.join("straight_lane.geojson"),
        format!("{gj}\n").as_bytes(),
    )
    .unwrap();
    println!("wrote data/routes/straight_lane.geojson");

    // A loop around a field: grass lanes on the long sides, field headlands at the ends,
    // corners of 12 m radius (κ = 0.083 1/m); counter-clockwise, back to the start.
    let mut p = Pen::new(0.0, 0.0, 0.0);
    for _ in 0..2 {
        p.line(150.0, 6.9, GrassLane, Forward);
        p.arc(12.0, FRAC_PI_2, 6.9, Field, Forward);
        p.line(40.0, 5.0, Field, Forward);
        p.arc(12.0, FRAC_PI_2, 6.9, Field, Forward);
    }
    write(
        "field_loop.json",
        "Loop around a field: 150 m grass lanes, 40 m headlands, 12 m corners",
        p.end(GrassLane, Forward),
    );

    // Into the farmyard and back into a shed bay: 80 m of concrete with a right turn,
    // then a cusp and 18 m in reverse through a left arc into the bay.
    let mut p = Pen::new(0.0, 0.0, FRAC_PI_2);
    p.line(40.0, 4.0, Concrete, Forward);
    p.arc(10.0, -FRAC_PI_2, 4.0, Concrete, Forward);
    p.line(30.0, 4.0, Concrete, Forward);
    p.arc(8.0, PI / 4.0, 1.5, Concrete, Reverse);
    p.line(12.0, 1.0, Concrete, Reverse);
    write(
        "yard_reverse.json",
        "Farmyard: 80 m forward on concrete, then 18 m in reverse into a shed bay",
        p.end(Concrete, Reverse),
    );
}
