//! The memory of where the scan's rays passed freely, for the tracker's motion test from
//! free space (an acres extension, docs/rules.md "Moving objects", issue [machines]): a
//! return that lands where a ray of an earlier scan passed freely is on something that
//! moved there, whatever its size; a static object's newly seen faces lie where no ray
//! passed. The memory keeps the last second or so of scans, a few a second, each with the
//! pose it was taken from; slots are allocated once and then reused.

use crate::chain::scan::{Scan, ScanGeometry};
use crate::chain::shield::Pose;

/// One remembered scan: when, the sensor's place and heading in the world, the ranges
/// (infinite: no return within the reach).
#[derive(Debug, Clone, Default)]
struct PastScan {
    t: f64,
    ox: f64,
    oy: f64,
    yaw: f64,
    ranges: Vec<f32>,
}

/// How far from a past ray a return must lie to count as in its free space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Margins {
    /// The ray must have passed this far beyond the return, m.
    pub radial_m: f64,
    /// Every ray within this distance beside the return must have passed it, m.
    pub lateral_m: f64,
    /// Only scans at least this old count (the return's own recent past), s.
    pub min_age_s: f64,
    /// How much nearer, in beam spacings at its range, a surface met by one beam alone
    /// may come a beam toward the next (its slope unknown: a face seen at a grazing
    /// angle near the end of the reach gives one return).
    pub lone_spacings: f64,
}

/// The last scans, decimated, in a ring of reused slots.
#[derive(Debug, Clone, Default)]
pub struct FreeSpace {
    slots: Vec<PastScan>,
    next: usize,
    len: usize,
    t_stored: f64,
    reach: f64,
    step: f64,
    generation: u64,
}

impl FreeSpace {
    /// Keeps the scan of time `t` (taken from the vehicle's `pose`) where `every_s` has
    /// passed since the last one kept, in a ring of `slots` scans.
    pub fn remember(
        &mut self,
        t: f64,
        pose: Pose,
        scan: &Scan,
        geometry: &ScanGeometry,
        (every_s, slots): (f64, usize),
    ) {
        if self.len > 0 && t - self.t_stored < every_s - 1e-9 {
            return;
        }
        if self.slots.len() != slots.max(1) {
            self.slots = vec![PastScan::default(); slots.max(1)];
            (self.next, self.len) = (0, 0);
        }
        let (s, c) = pose.yaw_rad.sin_cos();
        let (mx, my) = geometry.mount();
        let slot = &mut self.slots[self.next];
        slot.t = t;
        slot.ox = pose.x_m + c * mx - s * my;
        slot.oy = pose.y_m + s * mx + c * my;
        slot.yaw = pose.yaw_rad;
        slot.ranges.clear();
        slot.ranges.extend(scan.ranges().iter().map(|&r| r as f32));
        self.next = (self.next + 1) % self.slots.len();
        self.len = (self.len + 1).min(self.slots.len());
        self.t_stored = t;
        self.generation += 1;
        self.reach = geometry.reach_m();
        self.step = std::f64::consts::TAU / geometry.beams().max(1) as f64;
    }

    /// How many scans have been remembered: a test of the memory gives the same answer
    /// until it changes.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Whether `p` (world frame) lay in the free space of some remembered scan at least
    /// `m.min_age_s` older than `t`: every ray within `m.lateral_m` beside it, and the two
    /// either side of it, passed at least `m.radial_m` beyond it, inside the reach, and no
    /// surface those two met reaches it.
    pub fn is_free(&self, p: (f64, f64), t: f64, m: Margins) -> bool {
        self.slots[..self.len]
            .iter()
            .filter(|s| t - s.t >= m.min_age_s && !s.ranges.is_empty())
            .any(|s| self.free_in(s, p, m))
    }

    /// Whether `p` (world frame), where a return was seen at time `t_seen`, lies in the
    /// free space of some remembered scan taken at least `m.min_age_s` after it: the
    /// place is now seen empty, so what stood there has left it (a face of a standing
    /// object is still met where it was seen).
    pub fn was_left(&self, p: (f64, f64), t_seen: f64, m: Margins) -> bool {
        self.slots[..self.len]
            .iter()
            .filter(|s| s.t - t_seen >= m.min_age_s && !s.ranges.is_empty())
            .any(|s| self.free_in(s, p, m))
    }

    fn free_in(&self, s: &PastScan, p: (f64, f64), m: Margins) -> bool {
        let (dx, dy) = (p.0 - s.ox, p.1 - s.oy);
        // Not `hypot`: world coordinates are far from overflow, and this runs per return
        // and remembered scan.
        let d = (dx * dx + dy * dy).sqrt();
        if !(d.is_finite() && d > m.lateral_m && d + m.radial_m < self.reach) {
            return false;
        }
        let n = s.ranges.len() as i64;
        let angle = dy.atan2(dx) - s.yaw;
        let beyond = (d + m.radial_m) as f32;
        // The rays that passed within `lateral_m` of `p`, and the two either side of it.
        let r = |j: i64| s.ranges[j.rem_euclid(n) as usize];
        let a = (angle / self.step).rem_euclid(n as f64);
        let w = m.lateral_m.atan2(d) / self.step;
        let j0 = a.floor() as i64;
        let (lo, hi) = (
            ((a - w).ceil() as i64).min(j0),
            ((a + w).floor() as i64).max(j0 + 1),
        );
        if !(lo..=hi).all(|j| r(j) > beyond) {
            return false;
        }
        // Between the two beams about `p`, the surface either of them met may reach in,
        // continuing the slope it shows with its other neighbour (a face seen at a grazing
        // angle reaches far toward its end), or, where that neighbour met nothing, coming
        // nearer by up to `lone_spacings` beam spacings (at its range) a beam.
        let reaches = |jb: i64, jn: i64, f: f64| {
            let rb = f64::from(r(jb));
            if !rb.is_finite() {
                return false;
            }
            let rn = f64::from(r(jn));
            let ext = if rn.is_finite() {
                rb + (rb - rn) * f
            } else {
                rb - m.lone_spacings * rb * self.step * f
            };
            d + m.radial_m >= ext
        };
        let f = a - j0 as f64;
        !(reaches(j0, j0 - 1, f) || reaches(j0 + 1, j0 + 2, 1.0 - f))
    }
}

#[cfg(test)]
mod tests {
    use crate::chain::scan::ScanGeometry;
    use crate::chain::shield::Pose;
    use crate::chain::tracker::{MotionTest, MovingObject, Tracker, TrackerConfig, scan_of};
    use crate::plant::world::{Obstacle, Plane, World};

    /// The first time (50 Hz, for `secs` s) a moving object lies where `watch(t)` says
    /// (a centre and how near, m), the vehicle driving east along y = 0 from x = 0 at
    /// `ego` m/s among the obstacles `scene(t)`, the tracker configured by `cfg`; None:
    /// never.
    fn first_seen(
        cfg: TrackerConfig,
        scene: impl Fn(f64) -> Vec<Obstacle>,
        watch: impl Fn(f64) -> (f64, f64, f64),
        ego: f64,
        secs: f64,
    ) -> Option<f64> {
        let g = ScanGeometry::new(360, (1.9, 0.0), 40.0);
        let mut tr = Tracker::new(cfg);
        let mut out: Vec<MovingObject> = Vec::new();
        let plane = Plane {
            class: None,
            state: Default::default(),
            slope_pct: 0.0,
            slope_dir_deg: 0.0,
        };
        for i in 0..(secs * 50.0) as usize {
            let t = i as f64 * 0.02;
            let w = World::new(plane, scene(t));
            let pose = Pose {
                x_m: ego * t,
                y_m: 0.0,
                yaw_rad: 0.0,
            };
            tr.update(t, pose, &scan_of(&w, pose), &g);
            tr.moving(&mut out);
            let (x, y, near) = watch(t);
            if out.iter().any(|o| (o.x_m - x).hypot(o.y_m - y) < near) {
                return Some(t);
            }
        }
        None
    }

    /// The tracker with motion test `test` and otherwise the shipped values.
    fn config(test: MotionTest) -> TrackerConfig {
        TrackerConfig {
            motion_test: test,
            ..TrackerConfig::default()
        }
    }

    /// A box `l` long (along y) and 2.2 m wide centred at `(x, y0)`, still until `onset`
    /// s, then moving north at `v`, the vehicle at `ego` m/s; the first time a moving
    /// object lies within 2 m of the box's ends (None: never).
    fn first_moving(
        test: MotionTest,
        (x, y0, l): (f64, f64, f64),
        (onset, v): (f64, f64),
        ego: f64,
        secs: f64,
    ) -> Option<f64> {
        let y = move |t: f64| y0 + v * (t - onset).max(0.0);
        let scene = |t: f64| {
            vec![Obstacle::Box {
                x_m: x,
                y_m: y(t),
                half_length_m: l / 2.0,
                half_width_m: 1.1,
                yaw_rad: std::f64::consts::FRAC_PI_2,
            }]
        };
        first_seen(config(test), scene, |t| (x, y(t), l / 2.0 + 2.0), ego, secs)
    }

    /// A wall 0.3 m thick from `x0` to `x1` along the lane, its near face `d` m to the left
    /// of the centre line.
    fn wall(x0: f64, x1: f64, d: f64) -> Obstacle {
        Obstacle::Box {
            x_m: (x0 + x1) / 2.0,
            y_m: d + 0.15,
            half_length_m: (x1 - x0) / 2.0,
            half_width_m: 0.15,
            yaw_rad: 0.0,
        }
    }

    /// A person (a 0.25 m circle) at `at(t)`, the vehicle at `ego` m/s for `secs` s: the
    /// first time a moving object lies within 1 m of it with the motion test `test`.
    fn person_seen(
        test: MotionTest,
        at: impl Fn(f64) -> (f64, f64),
        ego: f64,
        secs: f64,
    ) -> Option<f64> {
        let scene = |t: f64| {
            let (x, y) = at(t);
            vec![Obstacle::Circle {
                x_m: x,
                y_m: y,
                radius_m: 0.25,
            }]
        };
        first_seen(config(test), scene, |t| (at(t).0, at(t).1, 1.0), ego, secs)
    }

    /// A 6.5 m machine standing 4 m beside the lane, passed at 6.9 m/s: its faces come
    /// into view one by one, but none lands where a ray passed, so it never moves.
    #[test]
    fn a_standing_machine_passed_by_never_moves() {
        let seen = first_moving(
            MotionTest::FreeSpace,
            (30.0, 4.0 + 3.25, 6.5),
            (f64::INFINITY, 0.0),
            6.9,
            6.0,
        );
        assert_eq!(seen, None);
    }

    /// The same machine setting off north at 3 m/s toward the lane, 18 m ahead of a
    /// vehicle at 6.9 m/s: moving within 0.6 s of its onset. The travel test needs it to
    /// leave its own extent (2 r + 0.5 m, about 7.7 m) and, at 6.5 m, its clusters are
    /// structure: it sees it much later or never.
    #[test]
    fn a_machine_setting_off_is_moving_within_0_6_s() {
        let onset = 1.0;
        let machine = (40.0, -12.0, 6.5);
        let seen = first_moving(MotionTest::FreeSpace, machine, (onset, 3.0), 6.9, 3.0)
            .expect("seen moving");
        assert!(
            seen - onset <= 0.6,
            "moving {:.2} s after its onset",
            seen - onset
        );
        let travel = first_moving(MotionTest::Travel, machine, (onset, 3.0), 6.9, 3.0);
        assert!(
            travel.is_none_or(|t| t - onset > 0.6),
            "the travel test saw it at {travel:?}"
        );
    }

    /// The travel test still applies beside it: a walker (a 0.6 m body at 1.4 m/s crossing
    /// toward the lane) is seen no later than with the travel test alone.
    #[test]
    fn nothing_is_seen_later_than_with_the_travel_test() {
        let walker = ((35.0, -8.0, 0.6), (0.5, 1.4));
        let t = first_moving(MotionTest::Travel, walker.0, walker.1, 3.0, 4.0).unwrap();
        let f = first_moving(MotionTest::FreeSpace, walker.0, walker.1, 3.0, 4.0).unwrap();
        assert!(f <= t, "free space {f:.2} s, travel {t:.2} s");
    }

    /// A 12 m wall 2.9 m beside the lane, passed at 6.9 m/s from 20 m before it (all of
    /// it within the reach): the beams meet its face at a few degrees, returns a metre or
    /// more apart, each a fragment that slides along it as the vehicle moves (the near
    /// end's return lands where a beam passed just beside it). No moving object, anywhere
    /// along it; the same wall setting off toward the lane is seen within a second.
    #[test]
    fn a_long_wall_grazed_at_2_9_m_gives_no_moving_object() {
        let scene = |_t: f64| vec![wall(22.0, 34.0, 2.9)];
        let anywhere = |_t: f64| (28.0, 2.9, 12.0);
        let free = config(MotionTest::FreeSpace);
        assert_eq!(first_seen(free, scene, anywhere, 6.9, 6.0), None);
        // The same wall setting off toward the lane at 1.5 m/s is seen.
        let sliding = |t: f64| vec![wall(22.0, 34.0, 2.9 + 1.5 * (1.0 - t).min(0.0))];
        let seen = first_seen(free, sliding, anywhere, 6.9, 6.0);
        assert!(
            seen.is_some_and(|t| t < 2.0),
            "the moving wall seen at {seen:?}"
        );
    }

    /// Two 8 m walls with a 3 m gate between them, 2.9 m beside the lane: the gate's posts
    /// are near ends seen at a grazing angle, and nothing moves.
    #[test]
    fn a_wall_with_a_gate_stays_structure() {
        let scene = |_t: f64| vec![wall(30.0, 38.0, 2.9), wall(41.0, 49.0, 2.9)];
        let anywhere = |_t: f64| (39.5, 2.9, 14.0);
        let seen = first_seen(config(MotionTest::FreeSpace), scene, anywhere, 6.9, 8.0);
        assert_eq!(seen, None);
    }

    /// A child (0.25 m) standing 8 m to the left of the lane, 25 m ahead of a vehicle at
    /// 6.9 m/s, runs toward the lane at 2.5 m/s: one or two returns at that range. Moving
    /// within 0.25 s of setting off (0.63 m; 0.18 s when written); the travel test, which
    /// waits for twice the radius and 0.5 m, is not quicker (0.34 s).
    #[test]
    fn a_running_child_is_moving_within_a_quarter_second() {
        let onset = 1.0;
        let at = move |t: f64| (34.0, 8.0 - 2.5 * (t - onset).max(0.0));
        let free = person_seen(MotionTest::FreeSpace, at, 6.9, 3.0).expect("seen moving");
        assert!(
            free - onset <= 0.25,
            "moving {:.2} s after setting off",
            free - onset
        );
        let travel =
            person_seen(MotionTest::Travel, at, 6.9, 3.0).expect("seen moving by the travel test");
        assert!(
            free <= travel,
            "free space {free:.2} s, travel {travel:.2} s"
        );
    }

    /// A person (0.25 m) 30 m ahead and 8 m to the right of a vehicle at 3 m/s walks
    /// diagonally toward the lane at 1.5 m/s: at that range the beams are 0.5 m apart and
    /// it gives one return. It is moving within 0.5 m of its travel after its onset (the
    /// lone return's own test) and no later than with the travel test alone.
    #[test]
    fn a_lone_return_approaching_diagonally_from_30_m_is_moving() {
        let (onset, v) = (1.0, 1.5 / std::f64::consts::SQRT_2);
        let at = move |t: f64| {
            let s = v * (t - onset).max(0.0);
            (33.0 - s, -8.0 + s)
        };
        let free = person_seen(MotionTest::FreeSpace, at, 3.0, 4.0).expect("seen moving");
        let travel =
            person_seen(MotionTest::Travel, at, 3.0, 4.0).expect("seen moving by the travel test");
        assert!(
            free <= travel,
            "free space {free:.2} s, travel {travel:.2} s"
        );
        let walked = 1.5 * (free - onset);
        assert!(walked <= 0.5 + 0.1, "moving after {walked:.2} m");
    }
}
