//! The crossing suites of `acres sim --suite` (docs/validation.md "Moving actors"): the
//! reference's own limitation (vehicle-software.md "Limitations": the default driver
//! collides with a crossing person in 12 of 30 scenarios, with an oncoming vehicle in 1
//! of 30) as 30 generated scenarios each, run with the shield as configured.
//!
//! Both suites drive a straight 160 m route east on three grounds at the speeds of the
//! envelope (gravel 6.9 m/s, dirt 7.1, grass 4.9; the `unknown` grip table's speed
//! commands), 10 scenarios each, with the meeting point 70 m along the route. The timing
//! or the offset of each scenario is spread evenly over the window in which a collision
//! is possible if nobody yields, not chosen to give a count:
//! - `crossing-person`: a person walks across the route at 1.4 m/s from 8 m beside it to
//!   8 m beyond, from the left and the right in turn; it reaches the route's centre line
//!   Δ s after the vehicle's front would reach the crossing undisturbed, Δ spread over
//!   the window in which the two bodies would meet;
//! - `oncoming-vehicle`: a vehicle (3.0 × 1.5 m) drives west at 4 m/s in the lane, 0.3 m
//!   left and right of the centre line in turn, its front meeting the vehicle's front at
//!   the meeting point undisturbed. Its driver yields: it plans to brake at 2 m/s² after
//!   a 1 s reaction to stop 3 m short, but reacts after a time spread over the window in
//!   which the two meet if the vehicle drives on (from the longest reaction that still
//!   stops it short to the one with which it never brakes before they meet).
//!
//! A contact counts against the vehicle when the vehicle moved into it (0.05 m/s or
//! more), apart from an actor that walked or drove into the vehicle at rest.

use crate::chain::envelope::GroundClass;
use crate::config::{Config, MovingMode};
use crate::formats::scenario::Scenario;
use crate::jobs::sim::{ContactBy, SimError, Summary};
use crate::plant::actors::{
    ActorKind, ActorSpec, End, Motion, PERSON_RADIUS_M, StartWhen, Waypoint, Yield,
};
use rayon::prelude::*;
use serde::Serialize;

/// A suite of `acres sim --suite`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SuiteKind {
    CrossingPerson,
    OncomingVehicle,
}

impl SuiteKind {
    /// The suite of a name (`crossing-person`, `oncoming-vehicle`).
    pub fn from_name(name: &str) -> Option<SuiteKind> {
        match name {
            "crossing-person" => Some(SuiteKind::CrossingPerson),
            "oncoming-vehicle" => Some(SuiteKind::OncomingVehicle),
            _ => None,
        }
    }

    /// The suite's name.
    pub fn name(self) -> &'static str {
        match self {
            SuiteKind::CrossingPerson => "crossing-person",
            SuiteKind::OncomingVehicle => "oncoming-vehicle",
        }
    }

    /// The reference's count for its shipped shield (vehicle-software.md "Limitations").
    pub fn reference_collisions(self) -> usize {
        match self {
            SuiteKind::CrossingPerson => 12,
            SuiteKind::OncomingVehicle => 1,
        }
    }
}

/// The grounds and speeds of the suites: the `unknown` table's speed commands.
const GROUNDS: [(GroundClass, f64); 3] = [
    (GroundClass::Gravel, 6.9),
    (GroundClass::Dirt, 7.1),
    (GroundClass::Grass, 4.9),
];
/// Where the route meets the actor, m along the route.
const MEET_X_M: f64 = 70.0;
/// The route's length, m.
const ROUTE_M: f64 = 160.0;
/// Scenarios per ground.
const PER_GROUND: usize = 10;
/// The person's walking speed, m/s, and how far beside the route it starts and ends, m.
const WALK_MPS: f64 = 1.4;
const WALK_SIDE_M: f64 = 8.0;
/// The oncoming vehicle's size, m, and speed, m/s.
const ONCOMING_SIZE_M: (f64, f64) = (3.0, 1.5);
const ONCOMING_MPS: f64 = 4.0;
/// Its driver's braking, m/s², the gap it means to keep, m, and its place in the lane:
/// this far left or right of the route's centre line, m.
const ONCOMING_DECEL_MPS2: f64 = 2.0;
const ONCOMING_GAP_M: f64 = 3.0;
const ONCOMING_OFFSET_M: f64 = 0.3;

/// One scenario of a suite with the parameter that sets it.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteCase {
    pub name: String,
    pub class: GroundClass,
    pub speed_mps: f64,
    /// Crossing: the person's arrival at the centre line less the vehicle's undisturbed
    /// arrival, s. Oncoming: the other driver's reaction, s.
    pub parameter: f64,
    #[serde(skip)]
    pub scenario: Scenario,
    /// The scenario as JSON text (what `acres sim --scenario` reads).
    #[serde(skip)]
    pub json: String,
}

/// One run of a suite's scenario.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteRun {
    pub name: String,
    pub class: GroundClass,
    pub speed_mps: f64,
    pub parameter: f64,
    pub moving: MovingMode,
    /// A contact made by the vehicle moving into the actor.
    pub collided_by_vehicle: bool,
    /// A contact made by the actor moving into the vehicle at rest.
    pub struck_by_actor: bool,
    pub closest_m: f64,
    pub summary: Summary,
}

/// The result of a suite in one mode of the moving-object rule.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteResult {
    pub suite: SuiteKind,
    pub moving: MovingMode,
    pub collisions_by_vehicle: usize,
    pub struck_by_actor: usize,
    pub scenarios: usize,
    pub reference_collisions: usize,
    pub runs: Vec<SuiteRun>,
}

/// The straight route of the suites at a ground's speed, as scenario JSON.
fn base_scenario(class: GroundClass, speed: f64) -> serde_json::Value {
    let class_name = serde_json::to_value(class).expect("a class serializes");
    let points: Vec<serde_json::Value> = (0..=(ROUTE_M / 2.0) as usize)
        .map(|i| {
            serde_json::json!({"x": 2.0 * i as f64, "y": 0.0, "speed_mps": speed,
                               "class": class_name, "direction": "forward"})
        })
        .collect();
    serde_json::json!({
        "ground": {"class": class_name, "state": "dry"},
        "route": {"name": "a straight lane, 160 m east", "points": points},
        "start": {"x_m": 0.0, "y_m": 0.0, "yaw_rad": 0.0, "speed_mps": speed},
        "duration_s": 60.0,
        "record_scan": false
    })
}

/// The time the vehicle's front reaches `x` driving the route undisturbed, s.
fn undisturbed_arrival(config: &Config, base: &serde_json::Value, x: f64) -> Result<f64, SimError> {
    let s = Scenario::from_json_str("suite", &base.to_string())?;
    let mut log = Vec::new();
    crate::jobs::sim::run(config, &s, s.route()?, Some(&mut log))?;
    let front = config.control.vehicle.front_m();
    let mut last: Option<(f64, f64)> = None;
    for line in log.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let r: crate::jobs::sim::LogRecord =
            serde_json::from_slice(line).map_err(std::io::Error::from)?;
        let xf = r.state.pose.x_m + front;
        if xf >= x {
            return Ok(match last {
                Some((t0, x0)) if xf > x0 => t0 + (r.t - t0) * (x - x0) / (xf - x0),
                _ => r.t,
            });
        }
        last = Some((r.t, xf));
    }
    Ok(f64::NAN)
}

/// The 30 scenarios of a suite.
pub fn cases(config: &Config, kind: SuiteKind) -> Result<Vec<SuiteCase>, SimError> {
    let v = &config.control.vehicle;
    let mut out = Vec::new();
    for (class, speed) in GROUNDS {
        let base = base_scenario(class, speed);
        let t_f = undisturbed_arrival(config, &base, MEET_X_M)?;
        for k in 0..PER_GROUND {
            let frac = (k as f64 + 0.5) / PER_GROUND as f64;
            let (parameter, actor, label) = match kind {
                SuiteKind::CrossingPerson => {
                    // The bodies meet while the person is within W/2 + r of the centre
                    // line and the vehicle's body (and r) spans the crossing.
                    let half = v.width_m / 2.0 + PERSON_RADIUS_M;
                    let lo = -half / WALK_MPS - PERSON_RADIUS_M / speed;
                    let hi = half / WALK_MPS + (v.length_m + PERSON_RADIUS_M) / speed;
                    let delta = lo + frac * (hi - lo);
                    let side = if k % 2 == 0 { 1.0 } else { -1.0 };
                    (
                        delta,
                        crossing_person(t_f + delta, side),
                        if side > 0.0 { "left" } else { "right" },
                    )
                }
                SuiteKind::OncomingVehicle => {
                    let (lo, hi) = reaction_window(speed);
                    let reaction = lo + frac * (hi - lo);
                    let offset = if k % 2 == 0 {
                        ONCOMING_OFFSET_M
                    } else {
                        -ONCOMING_OFFSET_M
                    };
                    let side = if offset > 0.0 { "left" } else { "right" };
                    (reaction, oncoming(t_f, offset, reaction), side)
                }
            };
            let mut sc = base.clone();
            let name = format!(
                "{} {:?} {:.1} m/s #{k} ({label}, {} {parameter:+.2})",
                kind.name(),
                class,
                speed,
                if kind == SuiteKind::CrossingPerson {
                    "Δ s"
                } else {
                    "reaction s"
                }
            );
            sc["name"] = name.clone().into();
            sc["actors"] = serde_json::json!([actor]);
            let json = sc.to_string();
            let scenario = Scenario::from_json_str(&name, &json)?;
            out.push(SuiteCase {
                name,
                class,
                speed_mps: speed,
                parameter,
                scenario,
                json,
            });
        }
    }
    Ok(out)
}

/// A person who reaches the centre line at `t_c`, walking from the side `side` (1 left).
fn crossing_person(t_c: f64, side: f64) -> ActorSpec {
    let walk = 2.0 * WALK_SIDE_M / WALK_MPS;
    ActorSpec {
        name: "person".into(),
        kind: ActorKind::Person,
        motion: Motion::Waypoints(vec![
            Waypoint {
                t_s: 0.0,
                x_m: MEET_X_M,
                y_m: side * WALK_SIDE_M,
            },
            Waypoint {
                t_s: walk,
                x_m: MEET_X_M,
                y_m: -side * WALK_SIDE_M,
            },
        ]),
        start: StartWhen {
            at_s: (t_c - WALK_SIDE_M / WALK_MPS).max(0.0),
            trigger: None,
        },
        end: End::Stop,
        yields: None,
        radius_m: None,
    }
}

/// The window of the oncoming driver's reaction in which the two meet if the ego vehicle
/// drives on at `v_e`: from the longest reaction with which the other still stops short
/// (its braking trigger less its own stop and the ego's travel meanwhile, over the
/// closing speed) to the reaction at which it never brakes before they meet (the trigger
/// over the closing speed).
pub fn reaction_window(v_e: f64) -> (f64, f64) {
    let (v, a) = (ONCOMING_MPS, ONCOMING_DECEL_MPS2);
    let closing = v_e + v;
    let trigger = closing * (crate::plant::actors::ANTICIPATION_S + v / a) + ONCOMING_GAP_M;
    let lo = (trigger - v * v / (2.0 * a) - v_e * v / a) / closing;
    (lo.max(0.0), trigger / closing)
}

/// A vehicle driving west along `y = offset` whose front meets the ego's at the meeting
/// point at `t_f`, and that yields after `reaction` s.
fn oncoming(t_f: f64, offset: f64, reaction: f64) -> ActorSpec {
    let half = ONCOMING_SIZE_M.0 / 2.0;
    let x0 = MEET_X_M + half + ONCOMING_MPS * t_f;
    ActorSpec {
        name: "oncoming vehicle".into(),
        kind: ActorKind::Vehicle {
            length_m: ONCOMING_SIZE_M.0,
            width_m: ONCOMING_SIZE_M.1,
        },
        motion: Motion::Straight {
            x_m: x0,
            y_m: offset,
            heading_rad: std::f64::consts::PI,
            speed_mps: ONCOMING_MPS,
            distance_m: x0 + 20.0,
        },
        start: StartWhen::default(),
        end: End::Vanish,
        yields: Some(Yield {
            decel_mps2: ONCOMING_DECEL_MPS2,
            reaction_s: reaction,
            gap_m: ONCOMING_GAP_M,
        }),
        radius_m: None,
    }
}

/// Runs a suite's scenarios (on all cores) with the moving-object rule in `mode`.
pub fn run(config: &Config, kind: SuiteKind, mode: MovingMode) -> Result<SuiteResult, SimError> {
    let mut cfg = config.clone();
    cfg.control.shield.moving_obstacle = mode;
    let cases = cases(&cfg, kind)?;
    let runs = cases
        .par_iter()
        .map(|c| {
            let summary = crate::jobs::sim::run(&cfg, &c.scenario, c.scenario.route()?, None)?;
            let by = |b: ContactBy| summary.contacts.iter().any(|x| x.by == b);
            Ok(SuiteRun {
                name: c.name.clone(),
                class: c.class,
                speed_mps: c.speed_mps,
                parameter: c.parameter,
                moving: mode,
                collided_by_vehicle: by(ContactBy::Vehicle),
                struck_by_actor: by(ContactBy::Actor),
                closest_m: summary.closest_actor_m.unwrap_or(f64::INFINITY),
                summary,
            })
        })
        .collect::<Result<Vec<_>, SimError>>()?;
    Ok(SuiteResult {
        suite: kind,
        moving: mode,
        collisions_by_vehicle: runs.iter().filter(|r| r.collided_by_vehicle).count(),
        struck_by_actor: runs.iter().filter(|r| r.struck_by_actor).count(),
        scenarios: runs.len(),
        reference_collisions: kind.reference_collisions(),
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each suite: 30 scenarios, every one within its window; the same counts run after
    /// run; the reference's shield collides in some, the moving-object rule with the
    /// tracker (and with the true states) in none.
    #[test]
    fn both_suites_give_no_collision_by_the_vehicle_with_the_rule() {
        let c = Config::builtin();
        for kind in [SuiteKind::CrossingPerson, SuiteKind::OncomingVehicle] {
            let off = run(&c, kind, MovingMode::Off).unwrap();
            assert_eq!(off.scenarios, 30);
            assert!(
                off.collisions_by_vehicle > 0,
                "{kind:?}: the suite tests nothing"
            );
            let on = run(&c, kind, MovingMode::Tracker).unwrap();
            let failed: Vec<&str> = on
                .runs
                .iter()
                .filter(|r| r.collided_by_vehicle)
                .map(|r| r.name.as_str())
                .collect();
            assert!(failed.is_empty(), "{kind:?} with the tracker: {failed:?}");
            let oracle = run(&c, kind, MovingMode::Oracle).unwrap();
            assert_eq!(oracle.collisions_by_vehicle, 0, "{kind:?} with the oracle");
            let again = run(&c, kind, MovingMode::Tracker).unwrap();
            let closest = |r: &SuiteResult| r.runs.iter().map(|x| x.closest_m).collect::<Vec<_>>();
            assert_eq!(closest(&on), closest(&again), "{kind:?}: not deterministic");
        }
    }

    #[test]
    fn the_suite_plot_has_its_counts_panels_and_axes() {
        let r = run(
            &Config::builtin(),
            SuiteKind::CrossingPerson,
            MovingMode::Off,
        )
        .unwrap();
        let count = format!(
            "crossing-person: collisions by the vehicle, rule off (reference shield): {}/30",
            r.collisions_by_vehicle
        );
        let svg = crate::plot::suite(&[r], crate::plot::ImageFormat::Svg).unwrap();
        let svg = String::from_utf8(svg).unwrap();
        for want in [
            count.as_str(),
            "Gravel at 6.9 m/s",
            "Grass at 4.9 m/s",
            "closest approach, m",
        ] {
            assert!(svg.contains(want), "{want}");
        }
        assert!(crate::plot::suite(&[], crate::plot::ImageFormat::Svg).is_err());
    }

    #[test]
    fn the_timings_and_reactions_span_their_windows() {
        let c = Config::builtin();
        let cases = cases(&c, SuiteKind::CrossingPerson).unwrap();
        let gravel: Vec<f64> = cases
            .iter()
            .filter(|x| x.class == GroundClass::Gravel)
            .map(|x| x.parameter)
            .collect();
        // W/2 + r = 1.095 m at 1.4 m/s and 6.9 m/s: (-0.826, 1.308) s, 10 even steps.
        let lo = -1.095 / 1.4 - 0.3 / 6.9;
        let hi = 1.095 / 1.4 + 3.35 / 6.9;
        let step = (hi - lo) / 10.0;
        for (k, d) in gravel.iter().enumerate() {
            assert!(
                (d - (lo + (k as f64 + 0.5) * step)).abs() < 1e-9,
                "{gravel:?}"
            );
        }
        // The oncoming driver on gravel: trigger 10.9 × 3 + 3 = 35.7 m at 10.9 m/s.
        let (lo, hi) = reaction_window(6.9);
        assert!((hi - 35.7 / 10.9).abs() < 1e-9, "{hi}");
        assert!((lo - (35.7 - 4.0 - 13.8) / 10.9).abs() < 1e-9, "{lo}");
    }
}
