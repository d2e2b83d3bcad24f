//! The world of the simulated Polaris: the ground (a class and state, a plane with a
//! slope, or a map's classes and elevation over the plane), static obstacles (circles,
//! boxes, polygons) in an R-tree, moving actors ([`crate::plant::actors`]),
//! the 360-beam scan of the shield by ray casting from the mount point, and the
//! collision and gap of the vehicle footprint.

use crate::chain::scan::{Scan, ceil_i64, floor_i64};
use crate::ground::class::GroundClass;
use crate::ground::map::Map;
use crate::plant::actors::{Actor, ActorPose, ActorSpec, EgoView};
use crate::plant::vehicle::{Ground, GroundState};
use geo::{Coord, Distance, Euclidean, Intersects, LineString, Polygon};
use rstar::{AABB, Envelope, RTree, RTreeObject};
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

/// Checks an obstacle's numbers: finite, a positive radius or half size, a polygon of
/// three or more corners.
pub fn validate_obstacle(o: &Obstacle) -> Result<(), String> {
    use crate::formats::bounds as b;
    // Places within the position bound; sizes positive and within it too.
    let place = |k: &str, v: f64| b::position(k, v).map(|_| ());
    let size = |k: &str, v: f64| {
        if v > 0.0 && v <= b::MAX_POSITION_M {
            Ok(())
        } else {
            let (v, max) = (b::show(v), b::show(b::MAX_POSITION_M));
            Err(format!(
                "`{k}` must be positive and at most {max} m, not {v}"
            ))
        }
    };
    match o {
        Obstacle::Circle { x_m, y_m, radius_m } => {
            place("x_m", *x_m)?;
            place("y_m", *y_m)?;
            size("radius_m", *radius_m)?;
        }
        Obstacle::Box {
            x_m,
            y_m,
            half_length_m,
            half_width_m,
            yaw_rad,
        } => {
            place("x_m", *x_m)?;
            place("y_m", *y_m)?;
            size("half_length_m", *half_length_m)?;
            size("half_width_m", *half_width_m)?;
            b::angle_rad("yaw_rad", *yaw_rad)?;
        }
        Obstacle::Polygon { points } => {
            if points.len() < 3 {
                return Err(format!(
                    "a polygon needs 3 corners or more, this one has {}",
                    points.len()
                ));
            }
            b::vertices("points", points.len())?;
            for (i, p) in points.iter().enumerate() {
                place(&format!("points[{i}][0]"), p[0])?;
                place(&format!("points[{i}][1]"), p[1])?;
            }
        }
    }
    Ok(())
}

impl Obstacle {
    /// The obstacle given in a local frame, placed at `(x, y)` turned by `yaw`.
    pub fn placed(&self, x: f64, y: f64, yaw: f64) -> Obstacle {
        let (s, c) = yaw.sin_cos();
        let at = |u: f64, v: f64| (x + c * u - s * v, y + s * u + c * v);
        match self {
            Obstacle::Circle { x_m, y_m, radius_m } => {
                let (px, py) = at(*x_m, *y_m);
                Obstacle::Circle {
                    x_m: px,
                    y_m: py,
                    radius_m: *radius_m,
                }
            }
            Obstacle::Box {
                x_m,
                y_m,
                half_length_m,
                half_width_m,
                yaw_rad,
            } => {
                let (px, py) = at(*x_m, *y_m);
                Obstacle::Box {
                    x_m: px,
                    y_m: py,
                    half_length_m: *half_length_m,
                    half_width_m: *half_width_m,
                    yaw_rad: yaw_rad + yaw,
                }
            }
            Obstacle::Polygon { points } => Obstacle::Polygon {
                points: points
                    .iter()
                    .map(|p| {
                        let (px, py) = at(p[0], p[1]);
                        [px, py]
                    })
                    .collect(),
            },
        }
    }

    /// The largest distance from the frame's origin to a point of the obstacle, m.
    pub fn reach_from_origin(&self) -> f64 {
        match self {
            Obstacle::Circle { x_m, y_m, radius_m } => x_m.hypot(*y_m) + radius_m,
            _ => self
                .outline()
                .exterior()
                .0
                .iter()
                .map(|p| p.x.hypot(p.y))
                .fold(0.0, f64::max),
        }
    }

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
                CircleRay::new(*x_m, *y_m, *radius_m, o).hit(d, reach)
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

/// A circle seen from a ray's origin: what a ray test needs that does not depend on the
/// ray's direction, computed once for all the beams that cross the circle.
struct CircleRay {
    fx: f64,
    fy: f64,
    c: f64,
}

impl CircleRay {
    fn new(x: f64, y: f64, radius: f64, o: Coord<f64>) -> CircleRay {
        let (fx, fy) = (o.x - x, o.y - y);
        CircleRay {
            fx,
            fy,
            c: fx * fx + fy * fy - radius * radius,
        }
    }

    /// The distance along the unit direction `d` to the circle, where the ray meets it
    /// within `reach` (0 from inside): the nearer root of |o + t·d − centre|² = r².
    fn hit(&self, d: Coord<f64>, reach: f64) -> Option<f64> {
        let b = self.fx * d.x + self.fy * d.y;
        let disc = b * b - self.c;
        if disc < 0.0 {
            return None;
        }
        let t = -b - disc.sqrt();
        let t = if t >= 0.0 { t } else { -b + disc.sqrt() };
        (t >= 0.0 && t <= reach).then_some(if self.c <= 0.0 { 0.0 } else { t })
    }
}

/// An angle wrapped to (−π, π].
fn wrap_pi(a: f64) -> f64 {
    use std::f64::consts::{PI, TAU};
    let w = a.rem_euclid(TAU);
    if w > PI { w - TAU } else { w }
}

/// How far any obstacle may lie beyond its box in the R-tree, m: the largest circle's
/// radius (a circle lies inside its outline's box but for rounding; a radius is a bound
/// that needs no argument about it), and 1e-12 of the largest coordinate (some 4,500
/// times the rounding of a coordinate) for the distances compared with a search's reach.
fn outline_slack(obstacles: &[Obstacle], tree: &RTree<Indexed>) -> f64 {
    if obstacles.is_empty() {
        return 0.0;
    }
    let radius = obstacles
        .iter()
        .map(|o| match o {
            Obstacle::Circle { radius_m, .. } => *radius_m,
            _ => 0.0,
        })
        .fold(0.0, f64::max);
    let e = tree.root().envelope();
    let (lo, hi) = (e.lower(), e.upper());
    let far = [lo[0], lo[1], hi[0], hi[1]].iter().fold(0.0f64, |m, v| {
        if v.is_finite() { m.max(v.abs()) } else { m }
    });
    radius + 1e-12 * (1.0 + far)
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

/// The world: ground, static obstacles and moving actors.
#[derive(Debug, Clone)]
pub struct World {
    pub ground: Plane,
    map: Option<Arc<Map>>,
    obstacles: Vec<Obstacle>,
    polygons: Vec<Polygon<f64>>,
    tree: RTree<Indexed>,
    /// How far an obstacle may reach beyond its box in the R-tree, m: a circle's radius
    /// (its box is its outline's, which holds the circle but for rounding), and the
    /// rounding of the largest coordinate's distances.
    outline_slack_m: f64,
    actors: Vec<Actor>,
    /// Each actor where it is now (None: vanished): its pose, shape and outline (an
    /// empty outline for a circle, whose tests are exact).
    live: Vec<Option<LiveActor>>,
    memo: ScanMemo,
}

/// What one scan leaves for the next: the beam directions of its heading (`cos`, `sin`
/// of heading + beam angle, each computed when a beam is first cast), kept for the next
/// scan from the same heading (a vehicle driving straight or standing casts the same beams
/// step after step); and the static obstacles whose boxes meet a square a little larger
/// than the scan's, kept while the next scans' squares lie inside it (the R-tree is asked
/// every few metres, not every scan; a candidate more than needed is hit by no beam).
#[derive(Default)]
struct ScanMemo(std::sync::Mutex<ScanCache>);

#[derive(Default)]
struct ScanCache {
    heading_bits: u64,
    /// Each beam's direction with the heading generation it was computed for: a change
    /// of heading moves `generation` on (a stale entry is recomputed when next cast)
    /// instead of clearing every beam, a write of the whole array each scan.
    dirs: Vec<(u64, Coord<f64>)>,
    generation: u64,
    /// The square the candidates were found in, [xmin, ymin, xmax, ymax]; None: none yet.
    square: Option<[f64; 4]>,
    candidates: Vec<usize>,
}

/// How much larger than the scan's the square of the kept candidates is, each side, m.
const CANDIDATE_SLACK_M: f64 = 2.0;

impl Clone for ScanMemo {
    fn clone(&self) -> Self {
        ScanMemo::default()
    }
}

impl std::fmt::Debug for ScanMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ScanMemo")
    }
}

/// An actor at the present step.
#[derive(Debug, Clone)]
pub struct LiveActor {
    pub pose: ActorPose,
    pub shape: Obstacle,
    outline: Polygon<f64>,
}

/// What a footprint touches: a static obstacle, or an actor by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Touch {
    Obstacle(usize),
    Actor(usize),
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
        let tree = RTree::bulk_load(items);
        let outline_slack_m = outline_slack(&obstacles, &tree);
        World {
            ground,
            map: None,
            obstacles,
            polygons,
            tree,
            outline_slack_m,
            actors: Vec::new(),
            live: Vec::new(),
            memo: ScanMemo::default(),
        }
    }

    /// The world with moving actors, placed where they are at time 0.
    pub fn with_actors(mut self, specs: Vec<ActorSpec>) -> World {
        self.set_actors(specs, 0.0);
        self
    }

    /// Replaces the actors (the bridge's `workers`), placed at `t_s`.
    pub fn set_actors(&mut self, specs: Vec<ActorSpec>, t_s: f64) {
        self.actors = specs.into_iter().map(Actor::new).collect();
        self.live = vec![None; self.actors.len()];
        self.advance(t_s, &EgoView::nowhere());
    }

    /// Replaces the bridge's workers (vehicle-bridge.md `workers`) with standing persons
    /// at these points of the world frame; the scenario's actors stay.
    pub fn set_workers(&mut self, points: &[(f64, f64)], t_s: f64) {
        let keep: Vec<bool> = (0..self.actors.len()).map(|i| !self.is_worker(i)).collect();
        let mut k = keep.iter();
        self.actors
            .retain(|_| *k.next().expect("one flag an actor"));
        for (i, (x, y)) in points.iter().enumerate() {
            let mut a = Actor::new(ActorSpec {
                name: format!("worker {i}"),
                kind: crate::plant::actors::ActorKind::Person,
                motion: crate::plant::actors::Motion::Stand {
                    x_m: *x,
                    y_m: *y,
                    heading_rad: 0.0,
                },
                start: Default::default(),
                end: Default::default(),
                yields: None,
                radius_m: None,
            });
            a.worker = true;
            self.actors.push(a);
        }
        self.live = vec![None; self.actors.len()];
        self.advance(t_s, &EgoView::nowhere());
    }

    /// Whether actor `k` is one of the bridge's workers.
    pub fn is_worker(&self, k: usize) -> bool {
        self.actors.get(k).is_some_and(|a| a.worker)
    }

    /// Whether the world has workers.
    pub fn has_workers(&self) -> bool {
        self.actors.iter().any(|a| a.worker)
    }

    /// The number of the bridge's workers.
    pub fn worker_count(&self) -> usize {
        self.actors.iter().filter(|a| a.worker).count()
    }

    /// The actors.
    pub fn actors(&self) -> &[Actor] {
        &self.actors
    }

    /// Each actor where it is now, None once vanished.
    pub fn live_actors(&self) -> &[Option<LiveActor>] {
        &self.live
    }

    /// Moves the actors to time `t_s`, starting those whose condition holds and letting
    /// the yielding ones react, with the ego vehicle as given.
    pub fn advance(&mut self, t_s: f64, ego: &EgoView) {
        for (a, live) in self.actors.iter_mut().zip(self.live.iter_mut()) {
            a.trigger(t_s, ego);
            a.drive(t_s, ego);
            *live = a.pose(t_s).map(|pose| {
                let shape = a.spec.shape_at(&pose);
                let outline = match shape {
                    Obstacle::Circle { .. } => Polygon::new(LineString::new(vec![]), vec![]),
                    _ => shape.outline(),
                };
                LiveActor {
                    pose,
                    shape,
                    outline,
                }
            });
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
    /// is cast only against the beams of its angular span seen from `o` (with a margin
    /// each side), and a beam's direction is computed once, when first needed: the same
    /// ranges, bit for bit, as casting every beam against every obstacle.
    pub fn scan(&self, o: Coord<f64>, yaw_rad: f64, beams: usize, reach: f64) -> Scan {
        self.scan_into(o, yaw_rad, beams, reach, Vec::new())
    }

    /// [`World::scan`] written into `ranges` (emptied first), the memory of an earlier
    /// scan: a simulation casts one every control step and need not allocate it anew.
    pub fn scan_into(
        &self,
        o: Coord<f64>,
        yaw_rad: f64,
        beams: usize,
        reach: f64,
        mut ranges: Vec<f64>,
    ) -> Scan {
        let mut guard = self.memo.0.lock().unwrap_or_else(|e| e.into_inner());
        let cache = &mut *guard;
        if cache.dirs.len() != beams {
            // Generation 0 marks an entry never computed; the first heading is 1.
            cache.dirs.clear();
            cache.dirs.resize(beams, (0, Coord { x: 0.0, y: 0.0 }));
            cache.generation = 0;
        }
        if cache.generation == 0 || cache.heading_bits != yaw_rad.to_bits() {
            cache.heading_bits = yaw_rad.to_bits();
            cache.generation += 1;
        }
        let need = [o.x - reach, o.y - reach, o.x + reach, o.y + reach];
        let inside = cache.square.is_some_and(|q| {
            q[0] <= need[0] && q[1] <= need[1] && need[2] <= q[2] && need[3] <= q[3]
        });
        if !inside {
            let grow = reach + CANDIDATE_SLACK_M;
            let q = [o.x - grow, o.y - grow, o.x + grow, o.y + grow];
            let env = AABB::from_corners([q[0], q[1]], [q[2], q[3]]);
            cache.candidates.clear();
            let found = self.tree.locate_in_envelope_intersecting(&env);
            cache.candidates.extend(found.map(|i| i.index));
            cache.square = Some(q);
        }
        let mut cast = Caster {
            o,
            yaw_rad,
            reach,
            ranges: {
                ranges.clear();
                ranges.resize(beams, f64::INFINITY);
                ranges
            },
            dirs: &mut cache.dirs,
            generation: cache.generation,
        };
        for &k in &cache.candidates {
            cast.cast(&self.obstacles[k], &self.polygons[k]);
        }
        for (a, live) in self.actors.iter().zip(&self.live) {
            let Some(l) = live else { continue };
            let r = a.radius_m();
            if (l.pose.x_m - o.x).abs() <= reach + r && (l.pose.y_m - o.y).abs() <= reach + r {
                cast.cast(&l.shape, &l.outline);
            }
        }
        Scan::new(cast.ranges).expect("ray distances are ranges")
    }

    /// Whether a footprint polygon touches an obstacle or an actor.
    pub fn collides(&self, footprint: &Polygon<f64>) -> bool {
        self.touch(footprint).is_some()
    }

    /// What a footprint polygon touches first: a static obstacle, else an actor.
    pub fn touch(&self, footprint: &Polygon<f64>) -> Option<Touch> {
        if let Some(k) = self
            .near(footprint)
            .find(|k| self.polygons[*k].intersects(footprint))
        {
            return Some(Touch::Obstacle(k));
        }
        let bound = Bound::of(footprint);
        self.live
            .iter()
            .zip(&self.actors)
            .position(|(l, a)| {
                l.as_ref().is_some_and(|l| {
                    bound.lower(&l.pose, a.radius_m()) <= 0.0
                        && shape_gap(&l.shape, &l.outline, footprint) <= 0.0
                })
            })
            .map(Touch::Actor)
    }

    /// The smallest distance from a footprint polygon to an obstacle or an actor (0 in
    /// contact); exact for circles, not their outline.
    pub fn gap(&self, footprint: &Polygon<f64>) -> f64 {
        let actors = self
            .live
            .iter()
            .flatten()
            .map(|l| shape_gap(&l.shape, &l.outline, footprint));
        self.obstacle_gap(footprint)
            .into_iter()
            .chain(actors)
            .fold(f64::INFINITY, f64::min)
    }

    /// The smallest distance from a footprint polygon to a static obstacle (None without
    /// any), by the R-tree: the obstacles whose boxes meet the footprint's box grown by a
    /// reach that quadruples from 1 m until the nearest found lies within it (one whose box
    /// is beyond the reach is farther), or the grown box holds every obstacle.
    fn obstacle_gap(&self, footprint: &Polygon<f64>) -> Option<f64> {
        let all = || {
            let gaps = self.obstacles.iter().zip(&self.polygons);
            gaps.map(|(o, p)| shape_gap(o, p, footprint))
                .fold(f64::INFINITY, f64::min)
        };
        if self.obstacles.is_empty() {
            return None;
        }
        let r = geo::BoundingRect::bounding_rect(footprint).expect("a footprint has points");
        let whole = self.tree.root().envelope();
        let (lo, hi) = (r.min(), r.max());
        let mut reach = 1.0f64;
        while reach < 1e300 {
            let g = reach + self.outline_slack_m;
            let env = AABB::from_corners([lo.x - g, lo.y - g], [hi.x + g, hi.y + g]);
            let found = self.tree.locate_in_envelope_intersecting(&env);
            let best = found
                .map(|i| shape_gap(&self.obstacles[i.index], &self.polygons[i.index], footprint))
                .fold(f64::INFINITY, f64::min);
            if best <= reach || env.contains_envelope(&whole) {
                return Some(best);
            }
            reach *= 4.0;
        }
        // A footprint whose box is not finite: every obstacle.
        Some(all())
    }

    /// The smallest distance from a footprint polygon to an actor (None without actors
    /// in the world).
    pub fn actor_gap(&self, footprint: &Polygon<f64>) -> Option<f64> {
        // The exact gap only of actors whose lower bound is below the best so far.
        let bound = Bound::of(footprint);
        let mut best: Option<f64> = None;
        for (l, a) in self.live.iter().zip(&self.actors) {
            let Some(l) = l else { continue };
            if best.is_some_and(|b| bound.lower(&l.pose, a.radius_m()) >= b) {
                continue;
            }
            let g = shape_gap(&l.shape, &l.outline, footprint);
            best = Some(best.map_or(g, |b| b.min(g)));
        }
        best
    }

    /// Whether an actor still has something to do: waiting for its start, or moving.
    pub fn actors_active(&self) -> bool {
        self.actors.iter().zip(&self.live).any(|(a, l)| {
            a.started_s.is_none() || l.as_ref().is_some_and(|l| l.pose.speed_mps() > 0.0)
        })
    }

    /// Whether the world has obstacles or actors.
    pub fn has_objects(&self) -> bool {
        !self.obstacles.is_empty() || !self.actors.is_empty()
    }

    fn near<'a>(&'a self, footprint: &Polygon<f64>) -> impl Iterator<Item = usize> + 'a {
        let r = geo::BoundingRect::bounding_rect(footprint).expect("a footprint has points");
        let env = AABB::from_corners([r.min().x, r.min().y], [r.max().x, r.max().y]);
        self.tree
            .locate_in_envelope_intersecting(&env)
            .map(|i| i.index)
    }
}

/// A scan being cast: its origin, heading, reach, the ranges so far and each beam's
/// direction, computed once when first needed.
struct Caster<'a> {
    o: Coord<f64>,
    yaw_rad: f64,
    reach: f64,
    ranges: Vec<f64>,
    dirs: &'a mut [(u64, Coord<f64>)],
    generation: u64,
}

impl Caster<'_> {
    /// Casts the beams of an obstacle's angular span (with a margin; all beams where it
    /// may lie all around) against it. Casting a beam more than needed changes
    /// nothing (it misses), so the span need only hold every beam that can hit.
    fn cast(&mut self, obstacle: &Obstacle, polygon: &Polygon<f64>) {
        let beams = self.ranges.len();
        let step = std::f64::consts::TAU / beams.max(1) as f64;
        let circle = match obstacle {
            Obstacle::Circle { x_m, y_m, radius_m } => {
                let c = CircleRay::new(*x_m, *y_m, *radius_m, self.o);
                // A circle wholly beyond the reach (the query's square has corners
                // beyond it) is hit by no beam: a ray meets it no nearer than d − r.
                let far = (self.reach + radius_m) * (1.0 + 1e-9) + 1e-9;
                if c.fx * c.fx + c.fy * c.fy > far * far {
                    return;
                }
                Some(c)
            }
            _ => None,
        };
        // A circle's span has a margin of its own; a polygon's is exact, a beam to
        // spare each side absorbs the rounding.
        let spare = i64::from(circle.is_none());
        let (first, count) = match span(obstacle, polygon, self.o) {
            Some((lo, hi)) => {
                let first = floor_i64((lo - self.yaw_rad) / step) - spare;
                let last = ceil_i64((hi - self.yaw_rad) / step) + spare;
                (
                    first,
                    (last.saturating_sub(first) as u64 + 1).min(beams as u64) as usize,
                )
            }
            None => (0, beams),
        };
        // The first beam's index within the turn: a turn either side needs no division
        // (a 64-bit one costs tens of cycles, once per obstacle of every scan).
        let n = beams.max(1) as i64;
        let mut i = match first {
            f if (0..n).contains(&f) => f,
            f if (-n..0).contains(&f) => f + n,
            f if (n..2 * n).contains(&f) => f - n,
            f => f.rem_euclid(n),
        } as usize;
        for _ in 0..count {
            let entry = &mut self.dirs[i];
            if entry.0 != self.generation {
                let a = self.yaw_rad + std::f64::consts::TAU * i as f64 / beams as f64;
                *entry = (
                    self.generation,
                    Coord {
                        x: a.cos(),
                        y: a.sin(),
                    },
                );
            }
            let d = entry.1;
            let hit = match &circle {
                Some(c) => c.hit(d, self.reach),
                None => obstacle.ray(polygon, self.o, d, self.reach),
            };
            if let Some(t) = hit {
                self.ranges[i] = self.ranges[i].min(t);
            }
            i += 1;
            if i == beams {
                i = 0;
            }
        }
    }
}

/// How far the fast bearing of [`span`] may be from the true one, rad: micromath's
/// `atan2` is documented within 0.1620° (2.83 mrad); a test holds this bound.
const BEARING_ERROR_RAD: f64 = 0.004;

/// Squared distances at or beyond this take the exact bearing (the fast one squares
/// single-precision coordinates).
const FAST_BEARING_MAX_D2: f64 = 1e24;

/// The bearings (rad, `lo ≤ hi`, not wrapped) within which an obstacle lies seen from
/// `o`, or None where it may lie all around (`o` inside or next to it).
fn span(obstacle: &Obstacle, polygon: &Polygon<f64>, o: Coord<f64>) -> Option<(f64, f64)> {
    match obstacle {
        Obstacle::Circle { x_m, y_m, radius_m } => {
            let (dx, dy) = (x_m - o.x, y_m - o.y);
            let d2 = dx * dx + dy * dy;
            let inside = radius_m * (1.0 + 1e-9) + 1e-9;
            if d2 <= inside * inside {
                return None;
            }
            if d2 < FAST_BEARING_MAX_D2 {
                // tan(half) ≥ half: r/√(d² − r²) bounds the half-angle asin(r/d) from
                // above (by a few parts in a million for a post 10 times its radius away).
                let half = radius_m / (d2 - radius_m * radius_m).sqrt() + BEARING_ERROR_RAD;
                let c = f64::from(micromath::F32(dy as f32).atan2(micromath::F32(dx as f32)).0);
                return Some((c - half, c + half));
            }
            let half = (radius_m / d2.sqrt()).asin();
            let c = dy.atan2(dx);
            Some((c - half, c + half))
        }
        _ => {
            // The vertices' bearings relative to the first: inside a wedge narrower
            // than a half turn, the polygon (inside their hull) is too.
            let pts = &polygon.exterior().0;
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

/// A footprint as a circle about its box's centre, for a cheap lower bound of the gap to
/// an actor (the distance of the centres less both radii).
struct Bound {
    x: f64,
    y: f64,
    r: f64,
}

impl Bound {
    fn of(footprint: &Polygon<f64>) -> Bound {
        let b = geo::BoundingRect::bounding_rect(footprint).expect("a footprint has points");
        let c = b.center();
        Bound {
            x: c.x,
            y: c.y,
            r: b.width().hypot(b.height()) / 2.0,
        }
    }

    fn lower(&self, p: &ActorPose, radius: f64) -> f64 {
        (p.x_m - self.x).hypot(p.y_m - self.y) - self.r - radius
    }
}

/// The distance from a shape to a footprint, 0 in contact; exact for a circle.
fn shape_gap(o: &Obstacle, outline: &Polygon<f64>, footprint: &Polygon<f64>) -> f64 {
    match o {
        Obstacle::Circle { x_m, y_m, radius_m } => {
            let c = geo::Point::new(*x_m, *y_m);
            (Euclidean.distance(&c, footprint) - radius_m).max(0.0)
        }
        _ => Euclidean.distance(outline, footprint),
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
    // The ring is closed here (its first corner repeated) so that `Polygon::new` finds it
    // closed and does not grow the vector: two footprints a control step, a realloc each.
    let first = corner(f, hw);
    Polygon::new(
        LineString::from(vec![
            first,
            corner(r, hw),
            corner(r, -hw),
            corner(f, -hw),
            first,
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
            // Thin posts: a beam or none at 40 m.
            (-30.0f64..30.0, -30.0f64..30.0, 0.001f64..0.1)
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
        /// mount point is (inside an obstacle, beside it, far away), however many beams,
        /// and at headings of up to three turns either way (a span's first beam then lies
        /// in the turn, one either side, or further).
        #[test]
        fn the_scan_by_spans_is_the_brute_force_scan(
            obstacles in proptest::collection::vec(obstacle(), 0..12),
            ox in -35.0f64..35.0,
            oy in -35.0f64..35.0,
            yaw in -20.0f64..20.0,
            beams in proptest::sample::select(vec![16usize, 90, 360, 1440, 5760]),
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]
        /// Scans one after another from a moving mount point (steps of up to 6 m, so that
        /// the kept candidates are reused and found anew) each equal the brute-force scan.
        #[test]
        fn successive_scans_are_the_brute_force_scans(
            obstacles in proptest::collection::vec(obstacle(), 0..16),
            steps in proptest::collection::vec((0.0f64..6.0, -2.0f64..2.0, -0.3f64..0.3), 1..12),
        ) {
            // A drive across the obstacles' field, from outside it.
            let w = World::new(flat(), obstacles);
            let (mut o, mut yaw) = (Coord { x: -40.0, y: 0.0 }, 0.2);
            for (dx, dy, dyaw) in steps {
                o = Coord { x: o.x + dx, y: o.y + dy };
                yaw += dyaw;
                let fast = w.scan(o, yaw, 360, 25.0);
                let slow = brute_scan(&w, o, yaw, 360, 25.0);
                for (i, (a, b)) in fast.ranges().iter().zip(&slow).enumerate() {
                    proptest::prop_assert!(a.to_bits() == b.to_bits(), "beam {}: {} vs {}", i, a, b);
                }
            }
        }
    }

    /// An obstacle moved by (dx, dy).
    fn shifted(mut o: Obstacle, dx: f64, dy: f64) -> Obstacle {
        match &mut o {
            Obstacle::Circle { x_m, y_m, .. } | Obstacle::Box { x_m, y_m, .. } => {
                (*x_m, *y_m) = (*x_m + dx, *y_m + dy);
            }
            Obstacle::Polygon { points } => {
                for p in points {
                    *p = [p[0] + dx, p[1] + dy];
                }
            }
        }
        o
    }

    proptest::proptest! {
        /// The gap found through the R-tree is the least over every obstacle, bit for bit:
        /// the footprint among the obstacles, touching one, or hundreds of metres away
        /// (the search's reach then grows several times), near the origin or a UTM
        /// coordinate's size or a million kilometres from it.
        #[test]
        fn the_gap_by_the_index_is_the_least_over_every_obstacle(
            obstacles in proptest::collection::vec(obstacle(), 0..40),
            (x, y, yaw) in proptest::prop_oneof![
                (-45.0f64..45.0, -45.0f64..45.0, -4.0f64..4.0),
                (-300.0f64..300.0, -300.0f64..300.0, -4.0f64..4.0),
            ],
            (dx, dy) in proptest::sample::select(vec![(0.0, 0.0), (5e5, 4.9e6), (-1e9, 1e9)]),
        ) {
            let v = crate::config::Config::builtin().control.vehicle;
            let obstacles: Vec<Obstacle> =
                obstacles.into_iter().map(|o| shifted(o, dx, dy)).collect();
            let w = World::new(flat(), obstacles.clone());
            let f = footprint(x + dx, y + dy, yaw, &v);
            let every = obstacles
                .iter()
                .zip(&w.polygons)
                .map(|(o, p)| shape_gap(o, p, &f))
                .fold(f64::INFINITY, f64::min);
            let got = w.obstacle_gap(&f);
            proptest::prop_assert_eq!(got.is_none(), obstacles.is_empty());
            if let Some(g) = got {
                proptest::prop_assert!(g.to_bits() == every.to_bits(), "{} vs {}", g, every);
            }
        }
    }

    /// The fast bearing of a circle's span is within the margin of the exact one, in
    /// every direction and at every distance from a millimetre to a thousand kilometres.
    #[test]
    fn the_fast_bearing_is_within_its_margin() {
        let mut worst = 0.0f64;
        for k in 0..200_000 {
            let a = std::f64::consts::TAU * k as f64 / 200_000.0 - std::f64::consts::PI;
            let r = 10f64.powf(-3.0 + 9.0 * ((k * 7919) % 1000) as f64 / 1000.0);
            let (dx, dy) = (r * a.cos(), r * a.sin());
            let fast = f64::from(micromath::F32(dy as f32).atan2(micromath::F32(dx as f32)).0);
            worst = worst.max(wrap_pi(fast - dy.atan2(dx)).abs());
        }
        assert!(worst < 0.75 * BEARING_ERROR_RAD, "worst {worst}");
        assert!(worst > 1e-4, "the bound is not tested: worst {worst}");
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

    /// The indexed gap's first search (its boxes grown by 1 m) finds a post off the corner,
    /// 1.27 m away, whose box is within 1 m on each axis; the nearer one straight ahead,
    /// 1.1 m away, only the next search finds, and it is the gap.
    #[test]
    fn the_gap_is_not_the_first_search_s_nearest_when_it_lies_beyond_its_reach() {
        let v = crate::config::Config::builtin().control.vehicle;
        let f = footprint(0.0, 0.0, 0.0, &v);
        let r = geo::BoundingRect::bounding_rect(&f).unwrap();
        let post = |x_m: f64, y_m: f64| Obstacle::Box {
            x_m,
            y_m,
            half_length_m: 0.1,
            half_width_m: 0.1,
            yaw_rad: 0.0,
        };
        let (x1, y1) = (r.max().x, r.max().y);
        let w = World::new(flat(), vec![post(x1 + 1.0, y1 + 1.0), post(x1 + 1.2, 0.0)]);
        assert!((w.gap(&f) - 1.1).abs() < 1e-9, "{}", w.gap(&f));
    }

    /// A person crossing 10 m ahead at 1.4 m/s: at each time the scan's nearest return is
    /// on the beam toward where the person is, at the person's distance less 0.3 m.
    #[test]
    fn the_scan_sees_a_crossing_person_where_it_is_at_each_step() {
        use crate::plant::actors::{ActorKind, ActorSpec, EgoView, Motion, Waypoint};
        let walk = ActorSpec {
            name: "walker".into(),
            kind: ActorKind::Person,
            motion: Motion::Waypoints(vec![
                Waypoint {
                    t_s: 0.0,
                    x_m: 10.0,
                    y_m: -5.0,
                },
                Waypoint {
                    t_s: 10.0,
                    x_m: 10.0,
                    y_m: 9.0,
                },
            ]),
            start: Default::default(),
            end: Default::default(),
            yields: None,
            radius_m: None,
        };
        let mut w = World::new(flat(), vec![]).with_actors(vec![walk]);
        for t in [0.0, 2.0, 3.5714285714285716, 6.0] {
            w.advance(t, &EgoView::nowhere());
            let y = -5.0 + 1.4 * t;
            let s = w.scan(Coord { x: 0.0, y: 0.0 }, 0.0, 360, 40.0);
            let (beam, r) = s
                .ranges()
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(b.1))
                .unwrap();
            let bearing = y.atan2(10.0).to_degrees().rem_euclid(360.0);
            assert!(
                (beam as f64 - bearing).abs() <= 1.0,
                "t {t}: beam {beam}, bearing {bearing}"
            );
            assert!((r - (10f64.hypot(y) - 0.3)).abs() < 0.05, "t {t}: {r}");
        }
        // The collision check sees it too: a footprint over its place at 6 s.
        let v = crate::config::Config::builtin().control.vehicle;
        let fp = footprint(8.0, -5.0 + 1.4 * 6.0, 0.0, &v);
        assert_eq!(w.touch(&fp), Some(Touch::Actor(0)));
        assert!(w.actor_gap(&footprint(0.0, -20.0, 0.0, &v)).unwrap() > 10.0);
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
