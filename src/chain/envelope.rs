//! The speed envelope: the limits of each ground class and the stop rule.
//!
//! vehicle-software.md "Speed Envelope" gives the class table and "Trajectory Checker" /
//! "Shield" give the stop distance `d_stop(v) = d_m + |v| T + v²/(2a)` and its inverse
//! `stopCap(d)`. The checker and the shield share these two functions.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

pub use crate::ground::class::GroundClass;

/// The grip level of a table: `unknown` is the worst over all ground states (the default,
/// since the vehicle has no soil sensor), `dry` the worst over the dry states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grip {
    #[default]
    Unknown,
    Dry,
}

impl Grip {
    /// Every grip level.
    pub const ALL: [Grip; 2] = [Grip::Unknown, Grip::Dry];

    /// The name used in config files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Grip::Unknown => "unknown",
            Grip::Dry => "dry",
        }
    }
}

impl fmt::Display for Grip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Grip {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Grip::ALL
            .into_iter()
            .find(|g| g.name() == s)
            .ok_or_else(|| format!("unknown grip level `{s}` (expected unknown or dry)"))
    }
}

/// The limits of one ground class at one grip level (one row of the reference table).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassLimits {
    /// The speed command of the class: the vehicle speed less the controller overshoot, m/s.
    pub speed_command_mps: f64,
    /// The largest speed of the vehicle on the class, m/s.
    pub speed_mps: f64,
    /// The deceleration `a` of a stop, m/s².
    pub decel_mps2: f64,
    /// The obstacle margin `d_m`, m.
    pub obstacle_margin_m: f64,
    /// The lateral acceleration limit of the corner rule, m/s².
    pub lateral_accel_max_mps2: f64,
}

impl ClassLimits {
    /// The worst value of each limit over `rows`: the limits of a point with no known class.
    pub fn worst<'a>(rows: impl IntoIterator<Item = &'a ClassLimits>) -> ClassLimits {
        let mut it = rows.into_iter();
        let first = *it.next().expect("worst of an empty set of class limits");
        it.fold(first, |w, r| ClassLimits {
            speed_command_mps: w.speed_command_mps.min(r.speed_command_mps),
            speed_mps: w.speed_mps.min(r.speed_mps),
            decel_mps2: w.decel_mps2.min(r.decel_mps2),
            obstacle_margin_m: w.obstacle_margin_m.max(r.obstacle_margin_m),
            lateral_accel_max_mps2: w.lateral_accel_max_mps2.min(r.lateral_accel_max_mps2),
        })
    }
}

/// The class table of one grip level: one row for each ground class, none left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassTable {
    pub asphalt: ClassLimits,
    pub concrete: ClassLimits,
    pub gravel: ClassLimits,
    pub grass_lane: ClassLimits,
    pub dirt: ClassLimits,
    pub grass: ClassLimits,
    pub field: ClassLimits,
}

impl ClassTable {
    /// The row of one class.
    pub fn get(&self, class: GroundClass) -> &ClassLimits {
        match class {
            GroundClass::Asphalt => &self.asphalt,
            GroundClass::Concrete => &self.concrete,
            GroundClass::Gravel => &self.gravel,
            GroundClass::GrassLane => &self.grass_lane,
            GroundClass::Dirt => &self.dirt,
            GroundClass::Grass => &self.grass,
            GroundClass::Field => &self.field,
        }
    }

    /// The rows with their classes, in the order of the reference table.
    pub fn rows(&self) -> impl Iterator<Item = (GroundClass, &ClassLimits)> {
        GroundClass::ALL.into_iter().map(move |c| (c, self.get(c)))
    }

    /// The limits of a point whose class is not known: the worst of each limit.
    pub fn unknown_class(&self) -> ClassLimits {
        ClassLimits::worst(GroundClass::ALL.iter().map(|&c| self.get(c)))
    }
}

/// The tables of the grip levels: `unknown` always, `dry` where calibration gave one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GripTables {
    pub unknown: ClassTable,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dry: Option<ClassTable>,
}

/// The speed envelope file `envelope_v1.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvelopeConfig {
    /// The latency of a stop, s (0.5 in the reference).
    pub latency_s: f64,
    /// The response of the speed controller, s (0.5 in the reference).
    pub response_s: f64,
    /// The class tables by grip level.
    pub grips: GripTables,
}

/// The largest distance [`StopRule::stop_cap`] inverts, m: farther is taken as this far,
/// whose cap (about 5·10⁴ m/s) is already above every speed limit.
pub const STOP_CAP_DISTANCE_MAX_M: f64 = 1e9;

/// The parameters of the stop rule for one point: `d_m`, `T` and `a`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StopRule {
    /// Obstacle margin `d_m`, m.
    pub obstacle_margin_m: f64,
    /// Stop time `T` (latency and response), s.
    pub stop_time_s: f64,
    /// Deceleration `a`, m/s² (positive).
    pub decel_mps2: f64,
}

impl StopRule {
    /// The rule on a downhill (acres's grade-aware stop rule, docs/rules.md): the
    /// deceleration is at most what friction `mu` leaves against gravity,
    /// `0.8 g (μ cos θ − sin θ)` with θ the downhill angle of travel (`downhill_sin` its
    /// sine, 0 on the level or uphill), and never below 0.05 m/s² (a slope steeper than
    /// the friction can hold gives a stop cap near 0). The 0.8 is the envelope's own share
    /// of a measured deceleration ("Speed Envelope").
    pub fn on_grade(self, downhill_sin: f64, mu: f64) -> StopRule {
        if downhill_sin.is_nan() || downhill_sin <= 0.0 {
            return self;
        }
        let s = downhill_sin.min(1.0);
        let left = 0.8 * crate::ground::class::G * (mu * (1.0 - s * s).sqrt() - s);
        StopRule {
            decel_mps2: self.decel_mps2.min(left.max(0.05)),
            ..self
        }
    }

    /// `d_stop(v) = d_m + |v| T + v²/(2a)` (vehicle-software.md "Trajectory Checker").
    ///
    /// (See [`StopRule::stop_cap`] for the largest distance it inverts.)
    pub fn stop_distance(&self, speed_mps: f64) -> f64 {
        let v = speed_mps.abs();
        self.obstacle_margin_m + v * self.stop_time_s + v * v / (2.0 * self.decel_mps2)
    }

    /// `stopCap(d) = max{v ≥ 0 : d_stop(v) ≤ d}` (vehicle-software.md "Shield"), in closed
    /// form; 0 when `d < d_m` or `d` is NaN, so that a bad distance never allows motion.
    ///
    /// The root of `v²/(2a) + T v − (d − d_m) = 0` is taken as `2r / (T + √(T² + 2r/a))`
    /// with `r = d − d_m`, which has no cancellation; the result is then stepped down
    /// until `d_stop(v) ≤ d` holds in floating point too. A finite distance beyond
    /// [`STOP_CAP_DISTANCE_MAX_M`] is taken as that distance (a lower cap, so the safe
    /// side): near f64's end `v²` overflows and the steps down would take 10¹⁴ rounds (a
    /// scan range of 1e308 in a fuzzed bag hung `replay`).
    pub fn stop_cap(&self, distance_m: f64) -> f64 {
        let r = distance_m - self.obstacle_margin_m;
        // `!(r > 0)` also catches NaN.
        if r.is_nan() || r <= 0.0 {
            return 0.0;
        }
        if r == f64::INFINITY {
            return f64::INFINITY;
        }
        let distance_m = distance_m.min(STOP_CAP_DISTANCE_MAX_M);
        let r = distance_m - self.obstacle_margin_m;
        let t = self.stop_time_s;
        let mut v = 2.0 * r / (t + (t * t + 2.0 * r / self.decel_mps2).sqrt());
        // A few ulps at most (the root has no cancellation); bounded all the same, then
        // halved toward 0, which always satisfies the bound.
        let mut steps = 0;
        while v > 0.0 && self.stop_distance(v) > distance_m {
            v = if steps < 64 { v.next_down() } else { v * 0.5 };
            steps += 1;
        }
        v.max(0.0)
    }
}

impl EnvelopeConfig {
    /// The class table of a grip level, or `None` where the file has none (only `dry` can
    /// be missing).
    pub fn table(&self, grip: Grip) -> Option<&ClassTable> {
        match grip {
            Grip::Unknown => Some(&self.grips.unknown),
            Grip::Dry => self.grips.dry.as_ref(),
        }
    }

    /// The limits of a class at a grip level; `None` as class gives the limits of a point
    /// with no known class (the worst of each limit over the classes). `None` where the
    /// file has no table for the grip level.
    pub fn limits(&self, grip: Grip, class: Option<GroundClass>) -> Option<ClassLimits> {
        let table = self.table(grip)?;
        Some(match class {
            Some(c) => *table.get(c),
            None => table.unknown_class(),
        })
    }

    /// The stop time `T` = latency + response of the speed controller, s.
    pub fn stop_time_s(&self) -> f64 {
        self.latency_s + self.response_s
    }

    /// The stop rule of a class row.
    pub fn stop_rule(&self, limits: &ClassLimits) -> StopRule {
        StopRule {
            obstacle_margin_m: limits.obstacle_margin_m,
            stop_time_s: self.stop_time_s(),
            decel_mps2: limits.decel_mps2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use proptest::prelude::*;

    fn envelope() -> EnvelopeConfig {
        Config::builtin().envelope
    }

    fn rule(class: GroundClass) -> StopRule {
        let env = envelope();
        env.stop_rule(env.grips.unknown.get(class))
    }

    #[test]
    fn worked_example_stop_distance_on_asphalt() {
        // vehicle-software.md "Worked Example": 2.5 + 7.8 × 1.0 + 7.8² / 2.4 = 35.65 m,
        // 4.35 m inside the 40 m scan reach.
        let d = rule(GroundClass::Asphalt).stop_distance(7.8);
        assert!((d - 35.65).abs() < 1e-9, "{d}");
        assert!((40.0 - d - 4.35).abs() < 1e-9);
    }

    #[test]
    fn worked_example_stop_cap_on_gravel() {
        // "Speed cap for an object": 20 m ahead on gravel gives 5.41 m/s.
        let v = rule(GroundClass::Gravel).stop_cap(20.0);
        assert_eq!(format!("{v:.2}"), "5.41");
        let exact = (-1.0 + (1.0f64 + 4.0 * 17.6 / 2.4).sqrt()) / (2.0 / 2.4);
        assert!((v - exact).abs() < 1e-12);
    }

    #[test]
    fn every_class_stops_inside_the_scan_reach() {
        let env = envelope();
        for (class, row) in env.grips.unknown.rows() {
            let d = env.stop_rule(row).stop_distance(row.speed_mps);
            assert!(d <= 40.0, "{class}: {d}");
        }
    }

    #[test]
    fn reference_table_values() {
        let t = envelope().grips.unknown;
        let got: Vec<(f64, f64, f64, f64, f64)> = t
            .rows()
            .map(|(_, r)| {
                (
                    r.speed_command_mps,
                    r.speed_mps,
                    r.decel_mps2,
                    r.obstacle_margin_m,
                    r.lateral_accel_max_mps2,
                )
            })
            .collect();
        let want = vec![
            (6.9, 7.8, 1.2, 2.5, 1.5),
            (6.9, 7.8, 1.2, 2.5, 1.5),
            (6.9, 7.8, 1.2, 2.4, 1.5),
            (6.9, 7.8, 1.2, 2.6, 1.5),
            (7.1, 7.8, 1.2, 2.1, 1.5),
            (4.9, 5.6, 1.2, 2.6, 1.5),
            (5.0, 5.6, 1.2, 2.6, 1.5),
        ];
        assert_eq!(got, want);
        assert_eq!(envelope().stop_time_s(), 1.0);
    }

    #[test]
    fn unknown_class_is_the_worst_of_each_limit() {
        let u = envelope().grips.unknown.unknown_class();
        assert_eq!(u.speed_command_mps, 4.9);
        assert_eq!(u.speed_mps, 5.6);
        assert_eq!(u.decel_mps2, 1.2);
        assert_eq!(u.obstacle_margin_m, 2.6);
        assert_eq!(u.lateral_accel_max_mps2, 1.5);
    }

    /// Distances up to f64's end end at once and keep `d_stop(cap) <= d` (a scan range of
    /// 1e308 hung `replay`: `v²` overflowed and `v` was stepped down an ulp at a time).
    #[test]
    fn stop_cap_of_a_huge_distance_ends_and_holds_its_bound() {
        let r = rule(GroundClass::Gravel);
        for d in [1e6, 1e9, 1e12, 1e100, 7.5e307, 1e308, f64::MAX] {
            let v = r.stop_cap(d);
            assert!(v > 0.0 && v.is_finite(), "{d}: {v}");
            assert!(r.stop_distance(v) <= d, "{d}: {v}");
            assert!(
                v >= r.stop_cap(1e6),
                "{d}: {v} is lower than the cap of 1e6 m"
            );
        }
        // Below the clamp the cap is the largest speed: a step up breaks the bound.
        let v = r.stop_cap(1e6);
        assert!(r.stop_distance(v.next_up()) > 1e6);
    }

    #[test]
    fn stop_cap_edges() {
        let r = rule(GroundClass::Gravel);
        assert_eq!(r.stop_cap(2.39), 0.0);
        assert_eq!(r.stop_cap(2.4), 0.0);
        assert_eq!(r.stop_cap(-5.0), 0.0);
        assert_eq!(r.stop_cap(f64::NAN), 0.0);
        assert_eq!(r.stop_cap(f64::INFINITY), f64::INFINITY);
        assert!(r.stop_cap(2.4 + 1e-9) > 0.0);
        // Zero stop time: pure braking, v = √(2a r).
        let r0 = StopRule {
            stop_time_s: 0.0,
            ..r
        };
        assert!((r0.stop_cap(2.4 + 6.0) - (2.0f64 * 1.2 * 6.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn class_and_grip_names_round_trip() {
        for c in GroundClass::ALL {
            assert_eq!(c.name().parse::<GroundClass>(), Ok(c));
        }
        for g in Grip::ALL {
            assert_eq!(g.name().parse::<Grip>(), Ok(g));
        }
        let err = "mud".parse::<GroundClass>().unwrap_err();
        assert!(err.contains("mud") && err.contains("grass_lane"), "{err}");
    }

    /// A stop rule with bounded, physically meaningful parameters.
    #[test]
    fn the_grade_aware_rule_takes_what_friction_leaves_on_a_downhill() {
        let r = StopRule {
            obstacle_margin_m: 2.4,
            stop_time_s: 1.0,
            decel_mps2: 1.2,
        };
        // Level ground and uphill: unchanged.
        assert_eq!(r.on_grade(0.0, 0.35), r);
        assert_eq!(r.on_grade(-0.2, 0.35), r);
        // 9 % downhill: 0.8 g (0.35 cos θ − sin θ) = 2.03 m/s², more than 1.2: unchanged.
        let s9 = 0.09 / (1.0f64 + 0.0081).sqrt();
        assert_eq!(r.on_grade(s9, 0.35), r);
        // 30 % downhill: 0.8 × 9.81 × (0.35 × 0.958 − 0.287) = 0.379 m/s².
        let s30 = 0.3 / (1.0f64 + 0.09).sqrt();
        let d = r.on_grade(s30, 0.35).decel_mps2;
        let want = 0.8 * 9.81 * (0.35 * (1.0 - s30 * s30).sqrt() - s30);
        assert!((d - want).abs() < 1e-12 && (0.37..0.39).contains(&d), "{d}");
        assert!(r.on_grade(s30, 0.35).stop_cap(20.0) < r.stop_cap(20.0));
        // Steeper than friction can hold: the floor, and a cap near 0.
        let g = r.on_grade(0.5, 0.35);
        assert_eq!(g.decel_mps2, 0.05);
        assert!(
            g.stop_cap(10.0) < 0.9 && r.stop_cap(10.0) > 3.0,
            "{}",
            g.stop_cap(10.0)
        );
        // Not a number: unchanged.
        assert_eq!(r.on_grade(f64::NAN, 0.35), r);
    }

    fn stop_rules() -> impl Strategy<Value = StopRule> {
        (0.0f64..5.0, 0.0f64..3.0, 0.05f64..10.0).prop_map(|(m, t, a)| StopRule {
            obstacle_margin_m: m,
            stop_time_s: t,
            decel_mps2: a,
        })
    }

    proptest! {
        #[test]
        fn stop_cap_stops_inside_the_distance(r in stop_rules(), d in -10.0f64..500.0) {
            let v = r.stop_cap(d);
            prop_assert!(v >= 0.0);
            if v > 0.0 {
                prop_assert!(r.stop_distance(v) <= d, "d_stop({v}) = {} > {d}", r.stop_distance(v));
            }
        }

        #[test]
        fn stop_cap_inverts_stop_distance(r in stop_rules(), v in 0.0f64..30.0) {
            let cap = r.stop_cap(r.stop_distance(v));
            prop_assert!(cap >= v - 1e-9, "stopCap(d_stop({v})) = {cap}");
        }

        #[test]
        fn stop_cap_is_non_decreasing(r in stop_rules(), d in -10.0f64..500.0, dd in 0.0f64..50.0) {
            prop_assert!(r.stop_cap(d + dd) >= r.stop_cap(d));
        }

        #[test]
        fn stop_distance_is_symmetric_in_direction(r in stop_rules(), v in 0.0f64..30.0) {
            prop_assert_eq!(r.stop_distance(v), r.stop_distance(-v));
        }

        /// The code against lemma `envelope.d_stop_increasing` (proofs/envelope.py).
        #[test]
        fn lemma_stop_distance_is_increasing(r in stop_rules(), v in 0.0f64..30.0, dv in 1e-6f64..10.0) {
            prop_assert!(r.stop_distance(v) < r.stop_distance(v + dv));
        }

        /// The code against lemmas `envelope.stop_cap_is_the_largest` and
        /// `envelope.f64_stop_cap_within_ulps` (proofs/envelope.py): the cap is the proven
        /// closed form `2r / (T + √(T² + 2r/a))` less a few ulps, and its f64 stop
        /// distance is within `d`.
        #[test]
        fn lemma_stop_cap_is_the_proven_closed_form(r in stop_rules(), d in 0.0f64..500.0) {
            let rr = d - r.obstacle_margin_m;
            prop_assume!(rr > 0.0);
            let t = r.stop_time_s;
            let c = 2.0 * rr / (t + (t * t + 2.0 * rr / r.decel_mps2).sqrt());
            let v = r.stop_cap(d);
            prop_assert!(v <= c && v >= c * (1.0 - 16.0 * f64::EPSILON), "{v} against {c}");
            prop_assert!(r.stop_distance(v) <= d);
        }

        /// The code against lemma `envelope.worst_row_no_looser`: the worst of rows is no
        /// looser than any of them.
        #[test]
        fn lemma_worst_is_no_looser_than_any_row(
            rows in prop::collection::vec((0.1f64..10.0, 0.1f64..10.0, 0.1f64..5.0, 0.0f64..5.0, 0.1f64..5.0), 1..7)
        ) {
            let rows: Vec<ClassLimits> = rows
                .into_iter()
                .map(|(c, s, a, m, l)| ClassLimits {
                    speed_command_mps: c,
                    speed_mps: s,
                    decel_mps2: a,
                    obstacle_margin_m: m,
                    lateral_accel_max_mps2: l,
                })
                .collect();
            let w = ClassLimits::worst(&rows);
            for r in &rows {
                prop_assert!(w.speed_command_mps <= r.speed_command_mps && w.speed_mps <= r.speed_mps);
                prop_assert!(w.decel_mps2 <= r.decel_mps2 && w.lateral_accel_max_mps2 <= r.lateral_accel_max_mps2);
                prop_assert!(w.obstacle_margin_m >= r.obstacle_margin_m);
            }
        }
    }

    /// The configuration the shipped binary loads against lemma
    /// `envelope.unknown_grip_no_looser_shipped` (which reads configs/envelope_v1.json).
    #[test]
    fn lemma_the_shipped_unknown_grip_is_no_looser() {
        let env = Config::builtin().envelope;
        let unknown = env.table(Grip::Unknown).unwrap();
        for grip in Grip::ALL {
            let t = env.table(grip).unwrap();
            for ((c, u), (_, r)) in unknown.rows().zip(t.rows()) {
                assert!(
                    u.speed_command_mps <= r.speed_command_mps && u.speed_mps <= r.speed_mps,
                    "{c}"
                );
                assert!(
                    u.decel_mps2 <= r.decel_mps2
                        && u.lateral_accel_max_mps2 <= r.lateral_accel_max_mps2
                );
                assert!(u.obstacle_margin_m >= r.obstacle_margin_m, "{c}");
            }
        }
    }
}
