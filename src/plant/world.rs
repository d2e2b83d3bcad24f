//! The world of the simulated Polaris: the ground (a class and state, a plane with a
//! slope, or a map's classes and elevation over the plane), static obstacles (circles, boxes, polygons) in an R-tree,
//! the 360-beam scan of the shield by ray casting from the mount point, and the
//! collision and gap of the vehicle footprint.

use crate::chain::envelope::GroundClass;
use crate::chain::scan::Scan;
use crate::ground::map::Map;
use crate::plant::vehicle::{Ground, GroundState};
use geo::{Coord, Distance, Euclidean, Intersects, LineString, Polygon};
use rstar::{AABB, RTree, RTreeObject};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A static obstacle, world frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Obstacle {
    /// A circle: centre and radius, m.
    Circle { x_m: f64, y_m: f64, radius_m: f64 },
    /// A box: centre, half length along its yaw, half width, m; yaw, rad.
    Box {
        x_m: f64,
        y_m: f64,
        half_length_m: f64,
        half_width_m: f64,
        #[serde(default)]
        yaw_rad: f64,
    },
    /// A polygon: its corners, m.
    Polygon { points: Vec<[f64; 2]> },
}

impl Obstacle {
    /// The outline as a polygon (a circle as 32 points just outside it).
    pub fn outline(&self) -> Polygon<f64> {
        match self {
            Obstacle::Circle { x_m, y_m, radius_m } => {
                let r = radius_m / (std::f64::consts::PI / 32.0).cos();
                let pts: Vec<Coord<f64>> = (0..32)
                    .map(|i| {
                        let a = std::f64::consts::TAU * i as f64 / 32.0;
                        Coord {
                            x: x_m + r * a.cos(),
                            y: y_m + r * a.sin(),
                        }
                    })
                    .collect();
                Polygon::new(LineString::from(pts), vec![])
            }
            Obstacle::Box {
                x_m,
                y_m,
                half_length_m,
                half_width_m,
                yaw_rad,
            } => {
                let (s, c) = yaw_rad.sin_cos();
                let corner = |u: f64, v: f64| Coord {
                    x: x_m + c * u - s * v,
                    y: y_m + s * u + c * v,
                };
                let (l, w) = (*half_length_m, *half_width_m);
                Polygon::new(
                    LineString::from(vec![
                        corner(l, w),
                        corner(-l, w),
                        corner(-l, -w),
                        corner(l, -w),
                    ]),
                    vec![],
                )
            }
            Obstacle::Polygon { points } => Polygon::new(
                LineString::from(
                    points
                        .iter()
                        .map(|p| Coord { x: p[0], y: p[1] })
                        .collect::<Vec<_>>(),
                ),
                vec![],
            ),
        }
    }

    /// The distance along a ray from `o` in the unit direction `d` to the obstacle's
    /// boundary, where the ray meets it within `reach`.
    fn ray(&self, poly: &Polygon<f64>, o: Coord<f64>, d: Coord<f64>, reach: f64) -> Option<f64> {
        match self {
            Obstacle::Circle { x_m, y_m, radius_m } => {
                let (fx, fy) = (o.x - x_m, o.y - y_m);
                let b = fx * d.x + fy * d.y;
                let c = fx * fx + fy * fy - radius_m * radius_m;
                let disc = b * b - c;
                if disc < 0.0 {
                    return None;
                }
                let t = -b - disc.sqrt();
                let t = if t >= 0.0 { t } else { -b + disc.sqrt() };
                (t >= 0.0 && t <= reach).then_some(if c <= 0.0 { 0.0 } else { t })
            }
            _ => {
                let mut best: Option<f64> = None;
                for w in poly.exterior().0.windows(2) {
                    let (a, b) = (w[0], w[1]);
                    let e = Coord {
                        x: b.x - a.x,
                        y: b.y - a.y,
                    };
                    let den = d.x * e.y - d.y * e.x;
                    if den.abs() < 1e-15 {
                        continue;
                    }
                    let ax = a.x - o.x;
                    let ay = a.y - o.y;
                    let t = (ax * e.y - ay * e.x) / den;
                    let u = (ax * d.y - ay * d.x) / den;
                    if (0.0..=reach).contains(&t) && (0.0..=1.0).contains(&u) {
                        best = Some(best.map_or(t, |b: f64| b.min(t)));
                    }
                }
                best
            }
        }
    }
}

/// An angle wrapped to (−π, π].
fn wrap_pi(a: f64) -> f64 {
    use std::f64::consts::{PI, TAU};
    let w = a.rem_euclid(TAU);
    if w > PI { w - TAU } else { w }
}

/// An obstacle's box in the R-tree, with its index.
#[derive(Debug, Clone)]
struct Indexed {
    env: AABB<[f64; 2]>,
    index: usize,
}

impl RTreeObject for Indexed {
    type Envelope = AABB<[f64; 2]>;
    fn envelope(&self) -> Self::Envelope {
        self.env
    }
}

/// The ground of a world: one class and state, and a plane with a slope.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plane {
    pub class: Option<GroundClass>,
    #[serde(default)]
    pub state: GroundState,
    /// The slope, % (rise per 100 m of run), 0 for flat ground.
    #[serde(default)]
    pub slope_pct: f64,
    /// The direction of steepest rise, degrees counter-clockwise from east.
    #[serde(default)]
    pub slope_dir_deg: f64,
}

impl Plane {
    /// The grade along a heading (positive uphill).
    pub fn grade(&self, heading_rad: f64) -> f64 {
        self.slope_pct / 100.0 * (heading_rad - self.slope_dir_deg.to_radians()).cos()
    }
}

/// The world: ground and obstacles.
#[derive(Debug, Clone)]
pub struct World {
    pub ground: Plane,
    map: Option<Arc<Map>>,
    obstacles: Vec<Obstacle>,
    polygons: Vec<Polygon<f64>>,
    tree: RTree<Indexed>,
}

impl World {
    /// A world of a ground and obstacles.
    pub fn new(ground: Plane, obstacles: Vec<Obstacle>) -> World {
        let polygons: Vec<Polygon<f64>> = obstacles.iter().map(Obstacle::outline).collect();
        let items = polygons
            .iter()
            .enumerate()
            .map(|(index, p)| {
                let r = geo::BoundingRect::bounding_rect(p).expect("an obstacle has points");
                Indexed {
                    env: AABB::from_corners([r.min().x, r.min().y], [r.max().x, r.max().y]),
                    index,
                }
            })
            .collect();
        World {
            ground,
            map: None,
            obstacles,
            polygons,
            tree: RTree::bulk_load(items),
        }
    }

    /// The world with a map's ground: its classes where it has them (the plane's
    /// class outside it), and the grade of its elevation where it has one (the plane's
    /// slope elsewhere). The ground state stays the plane's.
    pub fn with_map(mut self, map: Arc<Map>) -> World {
        self.map = Some(map);
        self
    }

    /// The ground under a point with the vehicle's heading: the class, the state, the
    /// grade along the heading and across it (rising to the left), each the elevation's
    /// central difference over ±1 m where the map has an elevation, else the plane's.
    pub fn ground_at(&self, x: f64, y: f64, heading_rad: f64) -> Ground {
        let left = heading_rad + std::f64::consts::FRAC_PI_2;
        let plane = Ground {
            class: self.ground.class,
            state: self.ground.state,
            grade: self.ground.grade(heading_rad),
            cross_grade: self.ground.grade(left),
        };
        let Some(map) = &self.map else {
            return plane;
        };
        let class = match map.classes.at(x, y) {
            Some(c) => c.ground(),
            None => plane.class,
        };
        let slope = |dir: f64| {
            let e = map.elevation.as_ref()?;
            let (s, c) = dir.sin_cos();
            let ahead = e.bilinear(x + c, y + s)?;
            let behind = e.bilinear(x - c, y - s)?;
            Some((ahead - behind) / 2.0)
        };
        Ground {
            class,
            state: plane.state,
            grade: slope(heading_rad).unwrap_or(plane.grade),
            cross_grade: slope(left).unwrap_or(plane.cross_grade),
        }
    }

    /// The height of the ground at a point, m: the map's elevation where it has one,
    /// else the plane's (0 at the origin).
    pub fn elevation_at(&self, x: f64, y: f64) -> f64 {
        if let Some(z) = self
            .map
            .as_ref()
            .and_then(|m| m.elevation.as_ref())
            .and_then(|e| e.bilinear(x, y))
        {
            return z;
        }
        let d = self.ground.slope_dir_deg.to_radians();
        self.ground.slope_pct / 100.0 * (x * d.cos() + y * d.sin())
    }

    /// The obstacles.
    pub fn obstacles(&self) -> &[Obstacle] {
        &self.obstacles
    }

    /// The scan from a mount point at the world position `o` with the body yaw: `beams`
    /// evenly spaced beams counter-clockwise from the body x axis, each the distance to
    /// the first obstacle, or infinite where none is within `reach`. Each obstacle in reach
    /// is cast only against the beams of its angular span seen from `o` (with a beam to
    /// spare each side), and a beam's direction is computed once, when first needed: the
    /// same ranges, bit for bit, as casting every beam against every obstacle.
    pub fn scan(&self, o: Coord<f64>, yaw_rad: f64, beams: usize, reach: f64) -> Scan {
        let env = AABB::from_corners([o.x - reach, o.y - reach], [o.x + reach, o.y + reach]);
        let mut ranges = vec![f64::INFINITY; beams];
        let mut dirs: Vec<Option<Coord<f64>>> = vec![None; beams];
        let step = std::f64::consts::TAU / beams.max(1) as f64;
        for k in self
            .tree
            .locate_in_envelope_intersecting(&env)
            .map(|i| i.index)
        {
            let (first, count) = match self.span(k, o) {
                Some((lo, hi)) => {
                    let first = ((lo - yaw_rad) / step).floor() as i64 - 1;
                    let last = ((hi - yaw_rad) / step).ceil() as i64 + 1;
                    (first, ((last - first + 1) as usize).min(beams))
                }
                None => (0, beams),
            };
            for j in 0..count {
                let i = (first + j as i64).rem_euclid(beams as i64) as usize;
                let d = *dirs[i].get_or_insert_with(|| {
                    let a = yaw_rad + std::f64::consts::TAU * i as f64 / beams as f64;
                    Coord {
                        x: a.cos(),
                        y: a.sin(),
                    }
                });
                if let Some(t) = self.obstacles[k].ray(&self.polygons[k], o, d, reach) {
                    ranges[i] = ranges[i].min(t);
                }
            }
        }
        Scan::new(ranges).expect("ray distances are ranges")
    }

    /// The bearings (rad, `lo ≤ hi`, not wrapped) within which obstacle `k` lies seen from
    /// `o`, or None where it may lie all around (`o` inside or next to it).
    fn span(&self, k: usize, o: Coord<f64>) -> Option<(f64, f64)> {
        match &self.obstacles[k] {
            Obstacle::Circle { x_m, y_m, radius_m } => {
                let (dx, dy) = (x_m - o.x, y_m - o.y);
                let d = dx.hypot(dy);
                if d <= radius_m * (1.0 + 1e-9) + 1e-9 {
                    return None;
                }
                let half = (radius_m / d).asin();
                let c = dy.atan2(dx);
                Some((c - half, c + half))
            }
            _ => {
                // The vertices' bearings relative to the first: inside a wedge narrower
                // than a half turn, the polygon (inside their hull) is too.
                let pts = &self.polygons[k].exterior().0;
                let b0 = (pts[0].y - o.y).atan2(pts[0].x - o.x);
                let (mut lo, mut hi) = (0.0f64, 0.0f64);
                for p in pts {
                    let rel = wrap_pi((p.y - o.y).atan2(p.x - o.x) - b0);
                    lo = lo.min(rel);
                    hi = hi.max(rel);
                }
                (hi - lo < std::f64::consts::PI - 1e-6).then_some((b0 + lo, b0 + hi))
            }
        }
    }

    /// Whether a footprint polygon touches an obstacle.
    pub fn collides(&self, footprint: &Polygon<f64>) -> bool {
        self.near(footprint)
            .any(|k| self.polygons[k].intersects(footprint))
    }

    /// The smallest distance from a footprint polygon to an obstacle (0 in contact);
    /// exact for circles, not their outline.
    pub fn gap(&self, footprint: &Polygon<f64>) -> f64 {
        self.obstacles
            .iter()
            .zip(&self.polygons)
            .map(|(o, p)| match o {
                Obstacle::Circle { x_m, y_m, radius_m } => {
                    let c = geo::Point::new(*x_m, *y_m);
                    (Euclidean.distance(&c, footprint) - radius_m).max(0.0)
                }
                _ => Euclidean.distance(p, footprint),
            })
            .fold(f64::INFINITY, f64::min)
    }

    fn near<'a>(&'a self, footprint: &Polygon<f64>) -> impl Iterator<Item = usize> + 'a {
        let r = geo::BoundingRect::bounding_rect(footprint).expect("a footprint has points");
        let env = AABB::from_corners([r.min().x, r.min().y], [r.max().x, r.max().y]);
        self.tree
            .locate_in_envelope_intersecting(&env)
            .map(|i| i.index)
    }
}

/// The footprint of the vehicle at a rear-axle pose: a rectangle from the rear overhang
/// to the front, of the body's width.
pub fn footprint(x: f64, y: f64, yaw: f64, v: &crate::config::VehicleGeometry) -> Polygon<f64> {
    let (s, c) = yaw.sin_cos();
    let corner = |u: f64, w: f64| Coord {
        x: x + c * u - s * w,
        y: y + s * u + c * w,
    };
    let (f, r, hw) = (v.front_m(), -v.rear_overhang_m, v.width_m / 2.0);
    Polygon::new(
        LineString::from(vec![
            corner(f, hw),
            corner(r, hw),
            corner(r, -hw),
            corner(f, -hw),
        ]),
        vec![],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat() -> Plane {
        Plane {
            class: Some(GroundClass::Gravel),
            state: GroundState::Dry,
            slope_pct: 0.0,
            slope_dir_deg: 0.0,
        }
    }

    /// Every beam cast at every obstacle in reach: what `scan` must equal.
    fn brute_scan(w: &World, o: Coord<f64>, yaw: f64, beams: usize, reach: f64) -> Vec<f64> {
        (0..beams)
            .map(|i| {
                let a = yaw + std::f64::consts::TAU * i as f64 / beams as f64;
                let d = Coord {
                    x: a.cos(),
                    y: a.sin(),
                };
                (0..w.obstacles.len())
                    .filter_map(|k| w.obstacles[k].ray(&w.polygons[k], o, d, reach))
                    .fold(f64::INFINITY, f64::min)
            })
            .collect()
    }

    fn obstacle() -> impl proptest::strategy::Strategy<Value = Obstacle> {
        use proptest::prelude::*;
        prop_oneof![
            (-30.0f64..30.0, -30.0f64..30.0, 0.05f64..5.0)
                .prop_map(|(x_m, y_m, radius_m)| Obstacle::Circle { x_m, y_m, radius_m }),
            (
                -30.0f64..30.0,
                -30.0f64..30.0,
                0.1f64..6.0,
                0.1f64..3.0,
                -4.0f64..4.0
            )
                .prop_map(|(x_m, y_m, half_length_m, half_width_m, yaw_rad)| {
                    Obstacle::Box {
                        x_m,
                        y_m,
                        half_length_m,
                        half_width_m,
                        yaw_rad,
                    }
                }),
            // An L-shaped (non-convex) polygon.
            (-30.0f64..30.0, -30.0f64..30.0, 1.0f64..8.0).prop_map(|(x, y, s)| {
                Obstacle::Polygon {
                    points: vec![
                        [x, y],
                        [x + s, y],
                        [x + s, y + s / 3.0],
                        [x + s / 3.0, y + s / 3.0],
                        [x + s / 3.0, y + s],
                        [x, y + s],
                    ],
                }
            }),
        ]
    }

    proptest::proptest! {
        /// The scan by angular spans is the brute-force scan, bit for bit, wherever the
        /// mount point is (inside an obstacle, beside it, far away) and however many beams.
        #[test]
        fn the_scan_by_spans_is_the_brute_force_scan(
            obstacles in proptest::collection::vec(obstacle(), 0..12),
            ox in -35.0f64..35.0,
            oy in -35.0f64..35.0,
            yaw in -7.0f64..7.0,
            beams in proptest::sample::select(vec![16usize, 90, 360, 1440]),
        ) {
            let w = World::new(flat(), obstacles);
            let o = Coord { x: ox, y: oy };
            let fast = w.scan(o, yaw, beams, 40.0);
            let slow = brute_scan(&w, o, yaw, beams, 40.0);
            for (i, (a, b)) in fast.ranges().iter().zip(&slow).enumerate() {
                proptest::prop_assert!(a.to_bits() == b.to_bits(), "beam {}: {} vs {}", i, a, b);
            }
        }
    }

    #[test]
    fn the_scan_sees_circles_boxes_and_polygons() {
        let w = World::new(
            flat(),
            vec![
                Obstacle::Circle {
                    x_m: 10.0,
                    y_m: 0.0,
                    radius_m: 1.0,
                },
                Obstacle::Box {
                    x_m: 0.0,
                    y_m: 5.0,
                    half_length_m: 2.0,
                    half_width_m: 0.5,
                    yaw_rad: 0.0,
                },
                Obstacle::Polygon {
                    points: vec![[-8.0, -1.0], [-6.0, -1.0], [-6.0, 1.0], [-8.0, 1.0]],
                },
            ],
        );
        let s = w.scan(Coord { x: 0.0, y: 0.0 }, 0.0, 360, 40.0);
        assert!((s.ranges()[0] - 9.0).abs() < 1e-9);
        assert!((s.ranges()[90] - 4.5).abs() < 1e-9);
        assert!((s.ranges()[180] - 6.0).abs() < 1e-9);
        assert_eq!(s.ranges()[270], f64::INFINITY);
        // Turned a quarter left, beam 270 looks east.
        let s = w.scan(
            Coord { x: 0.0, y: 0.0 },
            std::f64::consts::FRAC_PI_2,
            360,
            40.0,
        );
        assert!((s.ranges()[270] - 9.0).abs() < 1e-9);
        // Beyond the reach: no return.
        let s = w.scan(Coord { x: 0.0, y: 0.0 }, 0.0, 360, 8.0);
        assert_eq!(s.ranges()[0], f64::INFINITY);
    }

    #[test]
    fn collision_and_gap_of_the_footprint() {
        let v = crate::config::Config::builtin().control.vehicle;
        let w = World::new(
            flat(),
            vec![Obstacle::Circle {
                x_m: 5.0,
                y_m: 0.0,
                radius_m: 0.5,
            }],
        );
        let f = footprint(0.0, 0.0, 0.0, &v);
        assert!(!w.collides(&f));
        // Front at 2.56 m, circle edge at 4.5 m.
        assert!((w.gap(&f) - (4.5 - 2.56)).abs() < 1e-9, "{}", w.gap(&f));
        assert!(w.collides(&footprint(2.5, 0.0, 0.0, &v)));
    }

    #[test]
    fn grade_along_the_heading() {
        let p = Plane {
            slope_pct: 8.0,
            slope_dir_deg: 90.0,
            ..flat()
        };
        assert!((p.grade(std::f64::consts::FRAC_PI_2) - 0.08).abs() < 1e-12);
        assert!((p.grade(-std::f64::consts::FRAC_PI_2) + 0.08).abs() < 1e-12);
        assert!(p.grade(0.0).abs() < 1e-12);
    }
}
