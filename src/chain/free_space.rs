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
        self.reach = geometry.reach_m();
        self.step = std::f64::consts::TAU / geometry.beams().max(1) as f64;
    }

    /// Whether `p` (world frame) lay in the free space of some remembered scan at least
    /// `m.min_age_s` older than `t`: every ray within `m.lateral_m` beside it passed at
    /// least `m.radial_m` beyond it, inside the reach.
    pub fn is_free(&self, p: (f64, f64), t: f64, m: Margins) -> bool {
        self.slots[..self.len]
            .iter()
            .filter(|s| t - s.t >= m.min_age_s && !s.ranges.is_empty())
            .any(|s| self.free_in(s, p, m))
    }

    fn free_in(&self, s: &PastScan, p: (f64, f64), m: Margins) -> bool {
        let (dx, dy) = (p.0 - s.ox, p.1 - s.oy);
        let d = dx.hypot(dy);
        if !(d.is_finite() && d > m.lateral_m && d + m.radial_m < self.reach) {
            return false;
        }
        let n = s.ranges.len() as i64;
        let angle = dy.atan2(dx) - s.yaw;
        let centre = (angle / self.step).round() as i64;
        let half = (m.lateral_m.atan2(d) / self.step).ceil() as i64;
        let beyond = (d + m.radial_m) as f32;
        (centre - half..=centre + half).all(|j| s.ranges[j.rem_euclid(n) as usize] > beyond)
    }
}

#[cfg(test)]
mod tests {
    use crate::chain::scan::ScanGeometry;
    use crate::chain::shield::Pose;
    use crate::chain::tracker::{MotionTest, MovingObject, Tracker, TrackerConfig, scan_of};
    use crate::plant::world::{Obstacle, Plane, World};

    /// A box `l` long (along y) and 2.2 m wide centred at `(x, y0)`, still until `onset`
    /// s, then moving north at `v`; the vehicle drives east along y = 0 at `ego` m/s from
    /// x = 0. Runs `secs` s at 50 Hz with the motion test `test`; returns the first time
    /// a moving object lies within 5 m of the box's centre (None: never).
    fn first_moving(
        test: MotionTest,
        (x, y0, l): (f64, f64, f64),
        (onset, v): (f64, f64),
        ego: f64,
        secs: f64,
    ) -> Option<f64> {
        let g = ScanGeometry::new(360, (1.9, 0.0), 40.0);
        let cfg = TrackerConfig {
            motion_test: test,
            ..TrackerConfig::default()
        };
        let mut tr = Tracker::new(cfg);
        let mut out: Vec<MovingObject> = Vec::new();
        for i in 0..(secs * 50.0) as usize {
            let t = i as f64 * 0.02;
            let y = y0 + v * (t - onset).max(0.0);
            let w = World::new(
                Plane {
                    class: None,
                    state: Default::default(),
                    slope_pct: 0.0,
                    slope_dir_deg: 0.0,
                },
                vec![Obstacle::Box {
                    x_m: x,
                    y_m: y,
                    half_length_m: l / 2.0,
                    half_width_m: 1.1,
                    yaw_rad: std::f64::consts::FRAC_PI_2,
                }],
            );
            let pose = Pose {
                x_m: ego * t,
                y_m: 0.0,
                yaw_rad: 0.0,
            };
            let scan = scan_of(&w, pose);
            tr.update(t, pose, &scan, &g);
            tr.moving(&mut out);
            if out
                .iter()
                .any(|o| (o.x_m - x).hypot(o.y_m - y) < l / 2.0 + 2.0)
            {
                return Some(t);
            }
        }
        None
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
}
