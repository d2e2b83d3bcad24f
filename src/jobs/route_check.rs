//! The plan check of a route (`acres route check`, docs/rules.md "Plan check of a
//! route"): before a drive, each point of a route against the shield and the envelope.
//!
//! For each route point: the curvature against the shield's `curvature_max_per_m` (the
//! driver cannot steer a sharper bend), the ground class (a change of class, or none
//! known: the envelope's worst limits apply), the planned speed against the class's
//! speed command (the driver caps it: a note) and its vehicle speed (a fail), and, with a
//! corridor, the clearance `d(p)` of the point: below `m_v + G` the vehicle cannot stand
//! there (a fail); below `m_v + G + E` the swept corridor lets it pass only slowly, at
//! the speed where `w(v) = d(p)` (a fail where that is below the planned speed: the
//! shield would stop or slow the vehicle there). At a cusp the curvature is that of each
//! side's own points (the circle through the cusp and its neighbours mixes the two
//! directions), the larger of the two.

use crate::chain::envelope::{ClassLimits, Grip, GroundClass};
use crate::chain::path::Path;
use crate::config::Config;
use crate::ground::Corridor;
use serde::Serialize;

/// The check of one route point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointCheck {
    pub index: usize,
    pub station_m: f64,
    pub x: f64,
    pub y: f64,
    pub class: Option<GroundClass>,
    pub curvature_per_m: f64,
    pub speed_mps: f64,
    /// The class's speed command and vehicle speed (the worst over the classes where
    /// the class is not known), m/s.
    pub speed_command_mps: f64,
    pub class_speed_mps: f64,
    /// The corridor's bound at the point, m (null without a corridor).
    pub clearance_m: Option<f64>,
    /// The speed the swept corridor allows at the point, m/s (null: no limit or no
    /// corridor).
    pub corridor_speed_mps: Option<f64>,
    /// What fails here (the route cannot be driven as planned).
    pub fails: Vec<String>,
    /// What the chain will change here (it drives, but not as planned).
    pub notes: Vec<String>,
}

/// The check of a route.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteReport {
    pub route: String,
    pub points: usize,
    pub length_m: f64,
    pub failing_points: usize,
    pub noted_points: usize,
    /// Every point with a fail or a note, in order.
    pub issues: Vec<PointCheck>,
    /// Every point (for plots and `--all`).
    #[serde(skip)]
    pub all: Vec<PointCheck>,
}

impl RouteReport {
    /// Whether no point fails.
    pub fn passes(&self) -> bool {
        self.failing_points == 0
    }
}

/// The speed at which the swept corridor's half width `w(v)` reaches the clearance `d`
/// (docs/rules.md "Swept corridor"), None where no speed narrows it that far; 0 where
/// even the narrowest corridor does not fit.
pub fn corridor_speed(config: &Config, d: f64) -> Option<f64> {
    let s = &config.control.shield;
    let k = &config.control.corridor;
    let (mv, ge) = (s.vehicle_margin_m, s.geofence_margin_m + s.obstacle_extra_m);
    if d >= mv + ge {
        return None;
    }
    if d < mv + k.narrow_floor_m.min(ge) || k.narrow_time_s <= 0.0 {
        return Some(0.0);
    }
    Some((d - mv) * s.geofence_margin_m / (k.narrow_time_s * ge))
}

/// Checks every point of a route, with a corridor where one is given.
pub fn check(config: &Config, route: &Path, corridor: Option<&Corridor>) -> RouteReport {
    let table = config
        .envelope
        .table(Grip::Unknown)
        .expect("the unknown grip table always exists");
    let kmax = config.control.shield.curvature_max_per_m;
    let stand = config.control.shield.vehicle_margin_m + config.control.shield.geofence_margin_m;
    let mut all = Vec::with_capacity(route.len());
    for i in 0..route.len() {
        let class = route.class(i);
        let lim: ClassLimits = class.map_or_else(|| table.unknown_class(), |c| *table.get(c));
        let p = route.point(i);
        let mut c = PointCheck {
            index: i,
            station_m: route.station(i),
            x: p.x,
            y: p.y,
            class,
            curvature_per_m: curvature_at(route, i),
            speed_mps: route.speed(i),
            speed_command_mps: lim.speed_command_mps,
            class_speed_mps: lim.speed_mps,
            clearance_m: corridor.map(|c| c.query(p.x, p.y)),
            corridor_speed_mps: None,
            fails: Vec::new(),
            notes: Vec::new(),
        };
        if c.curvature_per_m.abs() > kmax {
            c.fails.push(format!(
                "curvature {:.3} 1/m beyond the shield's {kmax} 1/m",
                c.curvature_per_m
            ));
        }
        match (class, i.checked_sub(1).map(|j| route.class(j))) {
            (None, _) => c
                .notes
                .push("no class: the worst limits of every class apply".into()),
            (Some(a), Some(Some(b))) if a != b => {
                c.notes
                    .push(format!("class changes from {} to {}", name(b), name(a)))
            }
            _ => {}
        }
        speed_checks(&mut c);
        if let Some(d) = c.clearance_m {
            clearance_checks(config, &mut c, d, stand);
        }
        all.push(c);
    }
    let issues: Vec<PointCheck> = all
        .iter()
        .filter(|c| !c.fails.is_empty() || !c.notes.is_empty())
        .cloned()
        .collect();
    RouteReport {
        route: route.name().to_string(),
        points: route.len(),
        length_m: route.length_m(),
        failing_points: all.iter().filter(|c| !c.fails.is_empty()).count(),
        noted_points: all
            .iter()
            .filter(|c| c.fails.is_empty() && !c.notes.is_empty())
            .count(),
        issues,
        all,
    }
}

/// The curvature the vehicle steers at point `i`: the larger in size of the curvatures
/// seen from its two segments, which differ only at a cusp (where each side's is that of
/// its own part, [`Path::curvature_on`]).
pub fn curvature_at(route: &Path, i: usize) -> f64 {
    let before = i.checked_sub(1);
    let after = (i + 1 < route.len()).then_some(i);
    [before, after]
        .into_iter()
        .flatten()
        .map(|seg| route.curvature_on(i, seg))
        .max_by(|a, b| a.abs().total_cmp(&b.abs()))
        .unwrap_or(0.0)
}

/// A class's name as configs and routes spell it (`grass_lane`).
pub fn name(c: GroundClass) -> String {
    serde_json::to_value(c)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// The planned speed against the class's speed command and vehicle speed.
fn speed_checks(c: &mut PointCheck) {
    if c.speed_mps > c.class_speed_mps {
        c.fails.push(format!(
            "speed {:.2} m/s beyond the class's {:.2} m/s",
            c.speed_mps, c.class_speed_mps
        ));
    } else if c.speed_mps > c.speed_command_mps {
        c.notes.push(format!(
            "speed {:.2} m/s above the class's speed command {:.2} m/s: the driver caps it",
            c.speed_mps, c.speed_command_mps
        ));
    }
}

/// The clearance against the vehicle standing there and the swept corridor.
fn clearance_checks(config: &Config, c: &mut PointCheck, d: f64, stand: f64) {
    if d < stand {
        c.fails.push(format!(
            "clearance {d:.2} m: the corridor does not hold the vehicle (m_v + G = {stand:.2} m)"
        ));
        return;
    }
    c.corridor_speed_mps = corridor_speed(config, d);
    if let Some(v) = c.corridor_speed_mps {
        if v < c.speed_mps {
            c.fails.push(format!(
                "clearance {d:.2} m narrows the swept corridor: {v:.2} m/s at most, {:.2} m/s planned",
                c.speed_mps
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::path::{Direction, PathPoint};

    fn pt(x: f64, y: f64, v: f64, c: Option<GroundClass>) -> PathPoint {
        PathPoint {
            x,
            y,
            speed_mps: v,
            class: c,
            direction: Direction::Forward,
        }
    }

    /// A route with a sharp bend, a class change, a point of no class and a speed above
    /// gravel's: each is found at its point, and only the bend and the speed fail.
    #[test]
    fn bends_classes_and_speeds_are_found_where_they_are() {
        let g = Some(GroundClass::Gravel);
        let mut pts: Vec<PathPoint> = (0..10).map(|i| pt(i as f64, 0.0, 3.0, g)).collect();
        // A 2 m radius bend (0.5 1/m) at point 10.
        pts.push(pt(11.0, 1.0, 3.0, g));
        pts.push(pt(11.0, 3.0, 3.0, Some(GroundClass::Grass)));
        pts.push(pt(11.0, 5.0, 3.0, None));
        pts.push(pt(11.0, 7.0, 9.0, g));
        pts.push(pt(11.0, 9.0, 3.0, g));
        let r = Path::new("test", &pts).unwrap();
        let rep = check(&Config::builtin(), &r, None);
        let at = |i: usize| rep.all[i].clone();
        assert!(
            at(10).fails.iter().any(|f| f.contains("curvature")),
            "{:?}",
            at(10)
        );
        assert!(
            at(11)
                .notes
                .iter()
                .any(|n| n.contains("from gravel to grass"))
        );
        assert!(at(12).notes.iter().any(|n| n.contains("no class")));
        assert!(
            at(13)
                .fails
                .iter()
                .any(|f| f.contains("speed 9.00 m/s beyond"))
        );
        assert!(at(3).fails.is_empty() && at(3).notes.is_empty());
        assert!(!rep.passes());
        // At least the bend's neighbours and point 13 fail; nothing else.
        assert!(
            rep.failing_points >= 2 && rep.failing_points <= 4,
            "{}",
            rep.failing_points
        );
    }

    #[test]
    fn the_plot_has_its_panels_and_counts() {
        let c = Config::builtin();
        let r = Path::builtin("field_loop.json").unwrap();
        let rep = check(&c, &r, None);
        let svg = crate::plot::route_check(&c, &rep, crate::plot::ImageFormat::Svg).unwrap();
        let svg = String::from_utf8(svg).unwrap();
        for want in [
            "0 of 913 points fail, 4 noted",
            "curvature",
            "speed",
            "shield limit ±0.2",
        ] {
            assert!(svg.contains(want), "{want}");
        }
        assert!(
            !svg.contains("clearance in the corridor"),
            "no corridor, no clearance panel"
        );
    }

    /// The swept corridor's speed inverts w(v): at w(v) = d it gives back v.
    #[test]
    fn the_corridor_speed_inverts_the_half_width() {
        let c = Config::builtin();
        let s = &c.control.shield;
        let k = &c.control.corridor;
        for v in [0.7, 1.0, 2.0, 3.5] {
            let ge = s.geofence_margin_m + s.obstacle_extra_m;
            let w = s.vehicle_margin_m
                + ge.min(
                    k.narrow_floor_m
                        .max(k.narrow_time_s * ge / s.geofence_margin_m * v),
                );
            let back = corridor_speed(&c, w).unwrap();
            assert!((back - v).abs() < 1e-9, "v {v}: w {w}, back {back}");
        }
        assert_eq!(corridor_speed(&c, 1.5), None);
        assert_eq!(corridor_speed(&c, 0.85), Some(0.0));
    }

    /// The shipped route passes its own plan check on the shipped corridor; the fixture
    /// that says grass lane where its corner crosses the meadow fails at that corner
    /// alone, near (964, 798), for its clearance, and where the swept corridor allows
    /// less than the planned speed. An excluded raster fails every point.
    #[test]
    fn the_shipped_route_passes_and_the_mislabelled_corner_fails() {
        let c = Config::builtin();
        let map = crate::ground::Map::builtin_farm();
        let route = Path::builtin("farm_yard_to_east_lane.json").unwrap();
        let cor =
            crate::ground::corridor::build(&map, &route, &c.control.corridor, |_| {}).unwrap();
        let rep = check(&c, &route, Some(&cor));
        assert!(rep.passes(), "{:?}", rep.issues);
        let bad = Path::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/routes/farm_corner_mislabelled.json"
        )))
        .unwrap();
        let cor_bad =
            crate::ground::corridor::build(&map, &bad, &c.control.corridor, |_| {}).unwrap();
        let rep = check(&c, &bad, Some(&cor_bad));
        let failing: Vec<&PointCheck> = rep.issues.iter().filter(|p| !p.fails.is_empty()).collect();
        assert!(!failing.is_empty());
        for p in &failing {
            assert!((p.x - 964.0).hypot(p.y - 798.0) < 4.0, "{p:?}");
        }
        assert!(
            failing
                .iter()
                .any(|p| p.fails[0].contains("does not hold the vehicle"))
        );
        let slow = failing
            .iter()
            .find(|p| p.fails[0].contains("narrows the swept corridor"))
            .expect("a point where the corridor allows less than the plan");
        assert!(
            slow.corridor_speed_mps.unwrap() < slow.speed_mps,
            "{slow:?}"
        );
        // The plot names the failing points in its legend.
        let svg = crate::plot::route_check(&c, &rep, crate::plot::ImageFormat::Svg).unwrap();
        assert!(String::from_utf8(svg).unwrap().contains("failing point"));
        let mut p = cor.clone();
        // The whole raster excluded: every point fails for its clearance.
        p.grid.cells.iter_mut().for_each(|d| *d = 0.0);
        let rep = check(&c, &route, Some(&p));
        assert_eq!(rep.failing_points, route.len());
    }

    /// At a cusp the curvature is each side's own: the shipped reverse into the shed bay
    /// passes (across the cusp the circle gives 2.7 1/m), while a reverse part that
    /// really bends too sharply fails at the cusp and beyond.
    #[test]
    fn a_cusp_takes_the_curvature_of_each_side() {
        let c = Config::builtin();
        let yard = Path::builtin("yard_reverse.json").unwrap();
        let cusp = (1..yard.len() - 1)
            .find(|&i| yard.direction(i - 1) != yard.direction(i))
            .unwrap();
        assert!(yard.curvature(cusp).abs() > 1.0, "{}", yard.curvature(cusp));
        assert!(curvature_at(&yard, cusp).abs() <= 0.2);
        assert!(check(&c, &yard, None).passes());
        // Forward 10 m east, then in reverse on a circle of 2 m radius (0.5 1/m).
        let g = Some(GroundClass::Concrete);
        let mut pts: Vec<PathPoint> = (0..=20).map(|i| pt(i as f64 * 0.5, 0.0, 1.0, g)).collect();
        for k in 1..=10 {
            let a = k as f64 * 0.25;
            let mut q = pt(10.0 - 2.0 * a.sin(), 2.0 - 2.0 * a.cos(), 1.0, g);
            q.direction = Direction::Reverse;
            pts.push(q);
        }
        pts[20].direction = Direction::Reverse;
        let r = Path::new("sharp reverse", &pts).unwrap();
        let rep = check(&c, &r, None);
        assert!(
            rep.all[20].fails.iter().any(|f| f.contains("curvature")),
            "{:?}",
            rep.all[20]
        );
        assert!((curvature_at(&r, 20).abs() - 0.5).abs() < 0.02);
        assert!(rep.all[19].fails.is_empty(), "{:?}", rep.all[19]);
    }
}
