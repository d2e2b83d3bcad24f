//! The default driver: pure pursuit (vehicle-software.md "Default Driver"; Coulter 1992).
//!
//! `L_d = clamp(L_min + k_L |v|, L_min, L_max)` forward, a constant look-ahead in
//! reverse; the look-ahead point lies one `L_d` along the path ahead of the nearest path
//! point; `κ = clamp(2 y_b / (x_b² + y_b²), ±κ_max)` for the look-ahead point `(x_b, y_b)`
//! in the body frame. The speed command is the lowest value of the speed profile (and of
//! the class speed command) between the vehicle and a preview point (the end point of a
//! part excepted), and falls to 0 at
//! the end of each part with the class deceleration, `v ≤ √(2 a r)` for the distance `r`
//! that is left, so that the vehicle stands at the end of the path and at every cusp.

use crate::chain::envelope::{ClassTable, GroundClass};
use crate::chain::path::{Direction, Path, Projection};
use crate::chain::shield::{Command, Pose};
use crate::config::{DriverConfig, ScoutingConfig};
use geo::Coord;
use std::ops::Range;

/// The look-ahead distance at speed `v`: `clamp(L_min + k_L |v|, L_min, L_max)`.
pub fn lookahead_m(cfg: &DriverConfig, speed_mps: f64) -> f64 {
    (cfg.lookahead_min_m + cfg.lookahead_gain_s * speed_mps.abs())
        .clamp(cfg.lookahead_min_m, cfg.lookahead_max_m)
}

/// The pure-pursuit curvature of a look-ahead point in the body frame,
/// `2 y_b / (x_b² + y_b²)`, clamped to `±κ_max`; 0 for the origin itself.
pub fn pursuit_curvature(x_b: f64, y_b: f64, kappa_max: f64) -> f64 {
    let d2 = x_b * x_b + y_b * y_b;
    if d2 <= 0.0 {
        return 0.0;
    }
    (2.0 * y_b / d2).clamp(-kappa_max, kappa_max)
}

/// How far from the windowed projection the vehicle must be for the driver to search the
/// whole part, m: beyond any offset pure pursuit steers back from (the window reaches 3 m
/// back and 12 m ahead of the last projection).
const RELOCATE_M: f64 = 10.0;

/// The speed below which the vehicle counts as standing at the end of a part, m/s
/// (dbw.ulc.hold_speed_mps of the reference).
pub const STANDSTILL_MPS: f64 = 0.05;

/// How close to the end of a part the vehicle must stand before the next part begins, m.
pub const PART_END_TOLERANCE_M: f64 = 0.5;

/// The driver's memory between steps: the part driven and the last projection.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DriverState {
    pub part: usize,
    pub hint: Option<usize>,
}

/// One step of the driver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DriverOutput {
    /// The command: pure-pursuit curvature and the signed speed command.
    pub command: Command,
    /// The look-ahead point, world frame.
    pub lookahead_point: Coord<f64>,
    /// The look-ahead distance, m.
    pub lookahead_m: f64,
    /// The vehicle's projection onto the path.
    pub projection: Projection,
    /// The mean curvature of the path between the vehicle and the look-ahead point, 1/m.
    pub reference_curvature_per_m: f64,
    /// The ground class at the nearest path point.
    pub class: Option<GroundClass>,
    /// The distance to the end of the part driven, m.
    pub remaining_m: f64,
    /// Whether this is the last part and the vehicle stands at its end.
    pub finished: bool,
}

/// The default driver with its configuration.
#[derive(Debug, Clone)]
pub struct Driver {
    cfg: DriverConfig,
    kappa_max: f64,
    classes: ClassTable,
}

impl Driver {
    /// A driver with the look-ahead of `scouting`, the curvature limit `kappa_max` of the
    /// shield and the class table of the grip level in use.
    pub fn new(scouting: &ScoutingConfig, kappa_max: f64, classes: &ClassTable) -> Driver {
        Driver {
            cfg: scouting.driver.clone(),
            kappa_max,
            classes: classes.clone(),
        }
    }

    fn class_limits(&self, class: Option<GroundClass>) -> crate::chain::envelope::ClassLimits {
        match class {
            Some(c) => *self.classes.get(c),
            None => self.classes.unknown_class(),
        }
    }

    /// The speed of the preview: the lowest of the speed profile and the class speed
    /// commands between `station_m` and the preview point. The end point of a part is no
    /// limit: the stop ramp replaces it (a route that ends at 0 m/s would otherwise stop one
    /// preview distance early).
    fn preview_speed(&self, path: &Path, part: &std::ops::Range<usize>, proj: &Projection) -> f64 {
        let station_m = proj.station_m;
        let s_last = path.station(part.end - 1).max(station_m);
        let s_pre = (station_m + self.cfg.speed_preview_m).min(s_last);
        let first = path.segment_near(part, station_m, proj.segment);
        let lastp = path.segment_near(part, s_pre, first);
        let mut v = path.min_speed_on(first, station_m, lastp, s_pre);
        for c in path.classes_in(first, lastp.max(first)) {
            v = v.min(self.class_limits(c).speed_command_mps);
        }
        v
    }

    /// One step: the command for the vehicle at `pose` with the measured speed.
    pub fn step(
        &self,
        path: &Path,
        state: &mut DriverState,
        pose: Pose,
        speed_mps: f64,
    ) -> DriverOutput {
        let here = Coord {
            x: pose.x_m,
            y: pose.y_m,
        };
        let mut part = path.parts()[state.part].clone();
        let mut proj = match state.hint {
            Some(_) => project_near(path, &part, state.hint, here),
            None => first_projection(path, &part, here),
        };
        let mut remaining = path.station(part.end) - proj.station_m;
        // At a cusp: once the vehicle stands at the end of its part, the next one begins.
        if state.part + 1 < path.parts().len()
            && remaining <= PART_END_TOLERANCE_M
            && speed_mps.abs() < STANDSTILL_MPS
        {
            state.part += 1;
            part = path.parts()[state.part].clone();
            proj = path.project(here, &part, None);
            remaining = path.station(part.end) - proj.station_m;
        }
        state.hint = Some(proj.segment);
        let dir = path.direction(part.start);
        let last = state.part + 1 == path.parts().len();

        let ld = match dir {
            Direction::Forward => lookahead_m(&self.cfg, speed_mps),
            Direction::Reverse => self.cfg.reverse_lookahead_m,
        };
        let s_la = proj.station_m + ld;
        let seg_la = path.segment_near(&part, s_la, proj.segment);
        let target = path.point_on(seg_la, s_la);
        let (sy, cy) = pose.yaw_rad.sin_cos();
        let (dx, dy) = (target.x - pose.x_m, target.y - pose.y_m);
        let xb = cy * dx + sy * dy;
        let yb = -sy * dx + cy * dy;
        let kappa = pursuit_curvature(xb, yb, self.kappa_max);

        // The reference curvature: the heading change from here to the look-ahead point.
        let dh = wrap(path.segment_heading(seg_la) - path.segment_heading(proj.segment));
        let span = (s_la.min(path.station(part.end)) - proj.station_m).max(1e-6);
        let kappa_ref = if seg_la == proj.segment {
            0.0
        } else {
            dh / span
        };

        let class = path.class(nearest_point(path, &proj));
        let mut v = self.preview_speed(path, &part, &proj);
        let a = self.class_limits(class).decel_mps2;
        v = v.min((2.0 * a * remaining.max(0.0)).sqrt());
        let finished =
            last && remaining <= PART_END_TOLERANCE_M && speed_mps.abs() < STANDSTILL_MPS;
        if remaining <= 0.0 {
            v = 0.0;
        }
        // In reverse the look-ahead point lies behind the vehicle; the circle through it,
        // tangent to the body x axis, has the same curvature formula.
        DriverOutput {
            command: Command {
                curvature_per_m: kappa,
                speed_mps: v * dir.sign(),
            },
            lookahead_point: target,
            lookahead_m: ld,
            projection: proj,
            reference_curvature_per_m: kappa_ref,
            class,
            remaining_m: remaining,
            finished,
        }
    }
}

/// The projection from the last one's window; far from it (a reset, a relocalisation) the
/// whole part is searched at once rather than the window catching up 12 m a step.
fn project_near(
    path: &Path,
    part: &Range<usize>,
    hint: Option<usize>,
    here: Coord<f64>,
) -> Projection {
    let proj = path.project(here, part, hint);
    let d = |p: &Projection| (p.point.x - here.x).hypot(p.point.y - here.y);
    // The squared distance well inside the limit spares the `hypot` of most steps; near
    // the limit the test is the same as without it.
    let d2 = (proj.point.x - here.x).powi(2) + (proj.point.y - here.y).powi(2);
    if d2 >= RELOCATE_M * RELOCATE_M * (1.0 - 1e-9) && d(&proj) > RELOCATE_M {
        let global = path.project(here, part, None);
        if d(&global) < d(&proj) {
            return global;
        }
    }
    proj
}

/// How much nearer, m, another place of the part must be than its start for a first
/// projection to take it.
const START_PREFERENCE_M: f64 = 1.0;

/// The first projection of a part (no earlier one to search near): the nearest place,
/// unless the part's start region is within [`START_PREFERENCE_M`] of as near. On a loop,
/// whose end meets its start, a vehicle placed a little beside the start was projected
/// onto the end, and its route taken as done before it began.
pub fn first_projection(path: &Path, part: &Range<usize>, here: Coord<f64>) -> Projection {
    let global = path.project(here, part, None);
    let start = path.project(here, part, Some(part.start));
    let d = |p: &Projection| (p.point.x - here.x).hypot(p.point.y - here.y);
    if d(&start) <= d(&global) + START_PREFERENCE_M {
        start
    } else {
        global
    }
}

/// The path point nearer to a projection.
fn nearest_point(path: &Path, p: &Projection) -> usize {
    let i = p.segment;
    let mid = 0.5 * (path.station(i) + path.station(i + 1));
    if p.station_m <= mid { i } else { i + 1 }
}

/// An angle wrapped to (−π, π].
fn wrap(a: f64) -> f64 {
    let t = std::f64::consts::TAU;
    // `rem_euclid` without its `fmod` call where |a| < 2π (the remainder is then `a`
    // itself): the same value, the same rounding of `a + 2π`.
    let r = if (0.0..t).contains(&a) {
        a
    } else if a < 0.0 && a > -t {
        a + t
    } else {
        a.rem_euclid(t)
    };
    if r > std::f64::consts::PI { r - t } else { r }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::path::PathPoint;
    use crate::config::Config;

    fn driver() -> Driver {
        let c = Config::builtin();
        Driver::new(
            &c.scouting,
            c.control.shield.curvature_max_per_m,
            &c.envelope.grips.unknown,
        )
    }

    #[test]
    fn worked_example_lookahead_and_curvature() {
        let c = Config::builtin();
        assert_eq!(lookahead_m(&c.scouting.driver, 5.0), 7.0);
        assert_eq!(lookahead_m(&c.scouting.driver, 0.0), 4.0);
        assert_eq!(lookahead_m(&c.scouting.driver, 20.0), 9.0);
        let k = pursuit_curvature(6.9, 1.0, 0.2);
        assert_eq!(format!("{k:.3}"), "0.041");
        assert_eq!(format!("{:.1}", 1.0 / k), "24.3");
        assert_eq!(pursuit_curvature(1.0, 5.0, 0.2), 0.2);
        assert_eq!(pursuit_curvature(0.0, 0.0, 0.2), 0.0);
    }

    /// A kinematic bicycle that follows the speed command with a 1.5 m/s² limit.
    fn bicycle(pose: &mut Pose, v: &mut f64, cmd: Command, dt: f64) {
        let dv = (cmd.speed_mps - *v).clamp(-1.5 * dt, 1.5 * dt);
        *v += dv;
        pose.x_m += *v * pose.yaw_rad.cos() * dt;
        pose.y_m += *v * pose.yaw_rad.sin() * dt;
        pose.yaw_rad += *v * cmd.curvature_per_m * dt;
    }

    fn run(path: &Path, mut pose: Pose, mut v: f64, steps: usize) -> (Vec<f64>, Pose, f64) {
        let d = driver();
        let mut st = DriverState::default();
        let mut lat = Vec::new();
        for _ in 0..steps {
            let out = d.step(path, &mut st, pose, v);
            lat.push(out.projection.lateral_m);
            bicycle(&mut pose, &mut v, out.command, 0.02);
        }
        (lat, pose, v)
    }

    /// The first step of a new driver on `path` from a pose at a speed.
    fn first_step(path: &Path, x: f64, y: f64, yaw: f64, speed: f64) -> DriverOutput {
        let pose = Pose {
            x_m: x,
            y_m: y,
            yaw_rad: yaw,
        };
        driver().step(path, &mut DriverState::default(), pose, speed)
    }

    fn pts(xy: impl Iterator<Item = (f64, f64)>, speed: f64) -> Vec<PathPoint> {
        xy.map(|(x, y)| PathPoint {
            x,
            y,
            speed_mps: speed,
            class: Some(GroundClass::Gravel),
            direction: Direction::Forward,
        })
        .collect()
    }

    /// The offsets converge without oscillation. Linearised, pure pursuit on a straight
    /// path is `ÿ + (2v/L) ẏ + (2v²/L²) y = 0`, damped with ζ = 1/√2: one overshoot of
    /// e^(−π) ≈ 4.3 % of the offset and no second crossing worth the name. Asserted: at
    /// most 5 % overshoot, at most one crossing of the path by more than 1 cm, and within
    /// 5 cm after `settle_steps`.
    fn assert_converges(lat: &[f64], settle_steps: usize) {
        let side = lat[0].signum();
        let over = lat.iter().map(|l| -l * side).fold(0.0f64, f64::max);
        assert!(over < 0.05 * lat[0].abs(), "overshoot {over} m");
        let signs: Vec<f64> = lat
            .iter()
            .filter(|l| l.abs() > 0.01)
            .map(|l| l.signum())
            .collect();
        let crossings = signs.windows(2).filter(|w| w[0] != w[1]).count();
        assert!(crossings <= 1, "{crossings} crossings");
        let tail = lat[settle_steps..]
            .iter()
            .map(|l| l.abs())
            .fold(0.0f64, f64::max);
        assert!(tail < 0.05, "still {tail} m off");
    }

    #[test]
    fn converges_onto_a_straight_path_and_stands_at_its_end() {
        let p = Path::new("lane", &pts((0..=120).map(|i| (i as f64 * 0.5, 0.0)), 3.0)).unwrap();
        let start = Pose {
            x_m: 0.0,
            y_m: 2.2,
            yaw_rad: 0.0,
        };
        let (lat, end, v) = run(&p, start, 3.0, 3000);
        // Settled after 12 s: the envelope e^(−ζ ω_n t) with ω_n = √2 v / L_d is 0.2 %.
        assert_converges(&lat, 12 * 50);
        let last = p.point(p.len() - 1);
        let gap = (end.x_m - last.x).hypot(end.y_m - last.y);
        assert!(gap < 0.5, "stands {gap} m from the end");
        assert!(v.abs() < 0.01, "still moving at {v}");
    }

    /// A reset 100 m down the lane: the next step projects there at once (the window alone
    /// would catch up 12 m a step), while a vehicle 9 m beside a hairpin's other branch
    /// keeps its own.
    #[test]
    fn a_jump_is_projected_at_once() {
        let p = Path::new("lane", &pts((0..=400).map(|i| (i as f64 * 0.5, 0.0)), 3.0)).unwrap();
        let d = driver();
        let mut st = DriverState::default();
        let at = |x: f64, y: f64| Pose {
            x_m: x,
            y_m: y,
            yaw_rad: 0.0,
        };
        let out = d.step(&p, &mut st, at(10.0, 0.0), 3.0);
        assert!((out.projection.station_m - 10.0).abs() < 1e-9);
        let out = d.step(&p, &mut st, at(110.0, 0.5), 3.0);
        assert!(
            (out.projection.station_m - 110.0).abs() < 1e-9,
            "{:?}",
            out.projection
        );
        // A hairpin: out 30 m east at y = 0, back west at y = 9.
        let pin = (0..=60)
            .map(|i| (i as f64 * 0.5, 0.0))
            .chain((0..=60).map(|i| (30.0 - i as f64 * 0.5, 9.0)));
        let h = Path::new("pin", &pts(pin, 3.0)).unwrap();
        let mut st = DriverState::default();
        d.step(&h, &mut st, at(5.0, 0.0), 3.0);
        let out = d.step(&h, &mut st, at(5.2, 4.4), 3.0);
        assert!(out.projection.station_m < 10.0, "{:?}", out.projection);
    }

    #[test]
    fn converges_onto_a_circle() {
        // A circle of radius 20 m (κ = 0.05), counter-clockwise, from (20, 0).
        let n = 500;
        let xy = (0..=n).map(|i| {
            let a = std::f64::consts::TAU * 0.8 * i as f64 / n as f64;
            (20.0 * a.cos(), 20.0 * a.sin())
        });
        let p = Path::new("circle", &pts(xy, 3.0)).unwrap();
        // 2.2 m outside the circle, heading north.
        let start = Pose {
            x_m: 22.2,
            y_m: 0.0,
            yaw_rad: std::f64::consts::FRAC_PI_2,
        };
        let (lat, _, _) = run(&p, start, 3.0, 1500);
        // On a curve pure pursuit cuts inside by about L_d²κ/2 ≈ 0.8 cm... allow 10 cm.
        let side = lat[0].signum();
        let over = lat.iter().map(|l| -l * side).fold(0.0f64, f64::max);
        assert!(over < 0.1, "overshoot {over}");
        let tail = lat[1000..].iter().map(|l| l.abs()).fold(0.0f64, f64::max);
        assert!(tail < 0.1, "still {tail} m off");
    }

    #[test]
    fn reverse_part_after_a_cusp() {
        // Forward 20 m east, then reverse 15 m back west.
        let mut v: Vec<PathPoint> = pts((0..=40).map(|i| (i as f64 * 0.5, 0.0)), 2.0);
        let back = pts((1..=30).map(|i| (20.0 - i as f64 * 0.5, 0.0)), 1.0);
        v[40].direction = Direction::Reverse;
        v.extend(back.into_iter().map(|mut p| {
            p.direction = Direction::Reverse;
            p
        }));
        let p = Path::new("cusp", &v).unwrap();
        assert_eq!(p.parts().len(), 2);
        let d = driver();
        let mut st = DriverState::default();
        let mut pose = Pose::default();
        let mut speed = 0.0;
        let mut min_x_after_cusp = f64::INFINITY;
        let mut reached = false;
        for _ in 0..5000 {
            let out = d.step(&p, &mut st, pose, speed);
            bicycle(&mut pose, &mut speed, out.command, 0.02);
            if st.part == 1 {
                reached = true;
                min_x_after_cusp = min_x_after_cusp.min(pose.x_m);
                assert!(out.command.speed_mps <= 0.0);
            }
        }
        assert!(reached, "never reached the cusp");
        assert!((pose.x_m - 5.0).abs() < 0.5, "ends at x = {}", pose.x_m);
        assert!(min_x_after_cusp > 4.4);
        assert!(pose.y_m.abs() < 0.1);
    }

    #[test]
    fn speed_takes_the_lowest_value_ahead() {
        let mut v = pts((0..=100).map(|i| (i as f64 * 0.5, 0.0)), 6.0);
        v[30].speed_mps = 2.0; // 15 m ahead
        v[60].class = Some(GroundClass::Grass); // 30 m ahead
        let p = Path::new("v", &v).unwrap();
        let out = |x: f64| first_step(&p, x, 0.0, 0.0, 3.0).command.speed_mps;
        // Preview 10 m: from x = 0 the dip at 15 m is out of sight; from x = 6 it is in.
        assert_eq!(out(0.0), 6.0);
        assert_eq!(out(6.0), 2.0);
        // Grass (speed command 4.9) 30 m ahead is in sight from x = 21.
        assert_eq!(out(21.0), 4.9);
    }

    /// A loop's end meets its start: a vehicle placed a little beside the start (nearer
    /// the closing segment) begins the loop; it was projected onto the end and its route
    /// taken as done. Placed mid-route, it is still found where it is.
    #[test]
    fn a_vehicle_beside_a_loops_start_begins_the_loop() {
        // A 20 m square, counter-clockwise from (0, 0), closed back at (0, 0).
        let mut xy: Vec<(f64, f64)> = Vec::new();
        for k in 0..40 {
            xy.push((k as f64 * 0.5, 0.0));
        }
        for k in 0..40 {
            xy.push((20.0, k as f64 * 0.5));
        }
        for k in 0..40 {
            xy.push((20.0 - k as f64 * 0.5, 20.0));
        }
        for k in 0..=40 {
            xy.push((0.0, 20.0 - k as f64 * 0.5));
        }
        let p = Path::new("loop", &pts(xy.into_iter(), 3.0)).unwrap();
        let at = |x: f64, y: f64, yaw: f64| first_step(&p, x, y, yaw, 0.0);
        // 0.2 m behind and 0.3 m to the left of the start: the closing segment is nearer.
        let out = at(-0.2, 0.3, 0.0);
        assert!(out.projection.station_m < 0.5, "{:?}", out.projection);
        assert!(
            !out.finished && out.remaining_m > 79.0,
            "{}",
            out.remaining_m
        );
        assert!(out.command.speed_mps > 0.0);
        // Mid-route, the vehicle is found where it is.
        let mid = at(20.3, 7.0, std::f64::consts::FRAC_PI_2);
        assert!(
            (mid.projection.station_m - 27.0).abs() < 0.1,
            "{:?}",
            mid.projection
        );
    }
}

#[cfg(test)]
mod wrap_tests {
    use super::wrap;

    /// The wrap as `rem_euclid` gives it, for comparison with the one that spares it.
    fn wrap_by_rem(a: f64) -> f64 {
        let t = std::f64::consts::TAU;
        let r = a.rem_euclid(t);
        if r > std::f64::consts::PI { r - t } else { r }
    }

    #[test]
    fn wrap_at_its_edges_is_rem_euclids() {
        let (pi, tau) = (std::f64::consts::PI, std::f64::consts::TAU);
        let edges = [
            0.0,
            -0.0,
            pi,
            -pi,
            tau,
            -tau,
            1e-300,
            -1e-300,
            3.0 * pi,
            -3.0 * pi,
            1e9,
            -1e9,
        ];
        for e in edges {
            for a in [e, e.next_up(), e.next_down()] {
                assert_eq!(wrap(a).to_bits(), wrap_by_rem(a).to_bits(), "{a:e}");
            }
        }
        for a in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(wrap(a).is_nan() && wrap_by_rem(a).is_nan());
        }
    }

    proptest::proptest! {
        #[test]
        fn wrap_is_rem_euclids(a in -20.0f64..20.0) {
            proptest::prop_assert_eq!(wrap(a).to_bits(), wrap_by_rem(a).to_bits());
        }
    }
}
