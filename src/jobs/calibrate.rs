//! The speed envelope from measured stops (vehicle-software.md "Speed Envelope"): the
//! measurements of [`crate::jobs::measure`] as CSV rows, and the rules that turn them into the
//! class tables of `envelope_v1.json`.
//!
//! The rules, per class, over the ground states of a grip level (`unknown`: all measured
//! states, the worst of each limit; `dry`: the dry state):
//! - deceleration `a = 0.8 × min(measured stop deceleration, the controller limit)`;
//! - obstacle margin `d_m = 1.5 m + the longest tail + the follow addition`, the follow
//!   addition being what the follow test needs to keep 1.5 m from a wall:
//!   `max(0, margin used − gap − longest tail)`;
//! - speed: the lowest of the project cap (7.8 m/s on roads and lanes, 5.6 m/s on soft
//!   ground), the largest speed with `d_stop ≤` the scan reach (40 m), and the largest
//!   measured speed with no wheel lift in a steering step below the lowest that lifts;
//! - speed command = speed − the largest overshoot of the speed controller.
//!
//! Values are rounded to 0.1 in the safe direction (speeds and decelerations down,
//! margins up), as in the reference table. The lateral limit is not measured: each class
//! keeps that of the configured envelope.

use crate::chain::envelope::{
    ClassLimits, ClassTable, EnvelopeConfig, GripTables, GroundClass, StopRule,
};
use crate::config::Config;
use crate::formats::stops::{Measurement, TestKind};
use crate::jobs::measure::{FollowTest, SteeringStep, StopTest};
use crate::plant::vehicle::GroundState;
use serde::Serialize;

/// The base of the obstacle margin, m: the gap to keep from a wall.
pub const BASE_MARGIN_M: f64 = 1.5;

/// The project's speed cap of a class, m/s: 7.8 on roads and lanes, 5.6 on soft ground.
pub fn project_cap(class: GroundClass) -> f64 {
    match class {
        GroundClass::Grass | GroundClass::Field => 5.6,
        _ => 7.8,
    }
}

impl Measurement {
    /// The row of a stop test.
    pub fn stop(class: GroundClass, state: GroundState, speed: f64, r: &StopTest) -> Self {
        Measurement {
            overshoot_mps: Some(r.overshoot_mps),
            stop_distance_m: Some(r.stop_distance_m),
            decel_mps2: Some(r.decel_mps2),
            tail_m: Some(r.tail_m),
            stop_time_s: Some(r.stop_time_s),
            ..Measurement::base(TestKind::Stop, class, state, speed)
        }
    }

    /// The row of a follow test.
    pub fn follow(class: GroundClass, state: GroundState, speed: f64, r: &FollowTest) -> Self {
        Measurement {
            gap_m: Some(r.gap_m),
            margin_used_m: Some(r.margin_used_m),
            collided: Some(r.collided),
            ..Measurement::base(TestKind::Follow, class, state, speed)
        }
    }

    /// The row of a steering step.
    pub fn steer(class: GroundClass, state: GroundState, speed: f64, r: &SteeringStep) -> Self {
        Measurement {
            wheel_lift: Some(r.wheel_lift),
            max_lateral_accel_mps2: Some(r.max_lateral_accel_mps2),
            ..Measurement::base(TestKind::Steer, class, state, speed)
        }
    }
}

/// How one class row of one grip level came about.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Derivation {
    pub grip: String,
    pub class: GroundClass,
    pub stops: usize,
    pub measured_decel_mps2: f64,
    pub longest_tail_m: f64,
    pub follow_addition_m: f64,
    pub largest_overshoot_mps: f64,
    pub project_cap_mps: f64,
    pub speed_for_reach_mps: f64,
    /// The largest speed with no wheel lift below the lowest that lifts (None: none lifts).
    pub speed_no_lift_mps: Option<f64>,
    /// What bound the speed: `project cap`, `stop distance` or `wheel lift`.
    pub binding: &'static str,
    pub limits: ClassLimits,
}

fn floor1(x: f64) -> f64 {
    (x * 10.0 + 1e-9).floor() / 10.0
}

fn ceil1(x: f64) -> f64 {
    (x * 10.0 - 1e-9).ceil() / 10.0
}

/// The limits of one class from its measurements in the given states.
pub fn derive(
    config: &Config,
    rows: &[Measurement],
    class: GroundClass,
    states: &[GroundState],
    grip: &str,
) -> Result<Derivation, String> {
    let mine = |k: TestKind| {
        rows.iter()
            .filter(move |m| m.test == k && m.class == class && states.contains(&m.state))
    };
    let stops: Vec<&Measurement> = mine(TestKind::Stop).collect();
    if stops.is_empty() {
        return Err(format!(
            "class `{class}` has no stop tests in the {} state(s)",
            states
                .iter()
                .map(|s| if *s == GroundState::Dry { "dry" } else { "wet" })
                .collect::<Vec<_>>()
                .join(" and ")
        ));
    }
    let measured = stops
        .iter()
        .filter_map(|m| m.decel_mps2)
        .fold(f64::INFINITY, f64::min);
    let decel = deceleration(measured, config.control.dbw.ulc.limit_decel_mps2)
        .ok_or_else(|| format!("class `{class}`: the measured deceleration is not positive"))?;
    let tail = stops.iter().filter_map(|m| m.tail_m).fold(0.0, f64::max);
    let follow_add = mine(TestKind::Follow)
        .filter_map(|m| Some(m.margin_used_m? - m.gap_m? - tail))
        .fold(0.0, f64::max);
    let margin = ceil1(BASE_MARGIN_M + tail + follow_add);
    let overshoot = stops
        .iter()
        .filter_map(|m| m.overshoot_mps)
        .fold(0.0, f64::max);
    let rule = StopRule {
        obstacle_margin_m: margin,
        stop_time_s: config.envelope.stop_time_s(),
        decel_mps2: decel,
    };
    let reach = rule.stop_cap(config.control.corridor.range_m);
    let steers: Vec<&Measurement> = mine(TestKind::Steer).collect();
    let no_lift = speed_no_lift(&steers);
    let cap = project_cap(class);
    let (speed, binding) = lowest_speed(cap, reach, no_lift);
    if speed <= 0.0 {
        // The loader refuses a class whose speed is 0: say why instead of writing it.
        return Err(format!(
            "class `{class}` ({grip} grip): {}",
            no_speed(binding, &steers)
        ));
    }
    let lateral = config
        .envelope
        .grips
        .unknown
        .get(class)
        .lateral_accel_max_mps2;
    Ok(Derivation {
        grip: grip.to_string(),
        class,
        stops: stops.len(),
        measured_decel_mps2: measured,
        longest_tail_m: tail,
        follow_addition_m: follow_add,
        largest_overshoot_mps: overshoot,
        project_cap_mps: cap,
        speed_for_reach_mps: reach,
        speed_no_lift_mps: no_lift,
        binding,
        limits: ClassLimits {
            speed_command_mps: floor1((speed - overshoot).max(0.0)),
            speed_mps: speed,
            decel_mps2: decel,
            obstacle_margin_m: margin,
            lateral_accel_max_mps2: lateral,
        },
    })
}

/// Why a class has no speed, by what bound it: every steering step lifting a wheel, or a
/// bound that rounds down to 0.
fn no_speed(binding: &str, steers: &[&Measurement]) -> String {
    if binding == "wheel lift" {
        let slowest = steers
            .iter()
            .map(|m| m.speed_mps)
            .fold(f64::INFINITY, f64::min);
        return format!(
            "every steering step lifts a wheel (the slowest at {slowest} m/s), so no speed \
             without wheel lift is known; add steering steps at lower speeds"
        );
    }
    format!("the speed rounds down to 0 m/s (bound by the {binding})")
}

/// The deceleration rule: `a = 0.8 × min(measured, controller limit)`, rounded down to
/// 0.1; `None` where it is not positive.
fn deceleration(measured: f64, controller: f64) -> Option<f64> {
    let decel = floor1(0.8 * measured.min(controller));
    (decel > 0.0).then_some(decel)
}

/// The largest measured speed with no wheel lift below the lowest speed that lifts a
/// wheel in a steering step; `None` where no step lifts one.
fn speed_no_lift(steers: &[&Measurement]) -> Option<f64> {
    let lowest_lift = steers
        .iter()
        .filter(|m| m.wheel_lift == Some(true))
        .map(|m| m.speed_mps)
        .fold(f64::INFINITY, f64::min);
    lowest_lift.is_finite().then(|| {
        steers
            .iter()
            .filter(|m| m.wheel_lift == Some(false) && m.speed_mps < lowest_lift)
            .map(|m| m.speed_mps)
            .fold(0.0, f64::max)
    })
}

/// The speed rule: the lowest of the project cap, the speed that stops inside the scan
/// reach and the speed with no wheel lift, rounded down to 0.1; with what bound it.
fn lowest_speed(cap: f64, reach: f64, no_lift: Option<f64>) -> (f64, &'static str) {
    let mut speed = cap;
    let mut binding = "project cap";
    if reach < speed {
        speed = reach;
        binding = "stop distance";
    }
    if let Some(v) = no_lift
        && v < speed
    {
        speed = v;
        binding = "wheel lift";
    }
    (floor1(speed), binding)
}

/// The calibrated envelope and how each row came about.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    pub envelope: EnvelopeConfig,
    pub derivations: Vec<Derivation>,
    /// Tests the measurements lack, each with the limit that is then less conservative
    /// (errors with `--strict`).
    pub warnings: Vec<String>,
}

/// The tests `rows` lack, each with the limit that is then less conservative than a
/// full set of measurements would make it.
pub fn missing_tests(rows: &[Measurement]) -> Vec<String> {
    let mut out = Vec::new();
    if !rows.iter().any(|m| m.state == GroundState::Wet) {
        out.push(
            "no wet measurements: the `unknown` grip table is calibrated on dry ground \
             only, so its decelerations and margins are less conservative on wet ground"
                .to_string(),
        );
    }
    for class in GroundClass::ALL {
        let has = |k: TestKind| rows.iter().any(|m| m.class == class && m.test == k);
        if !has(TestKind::Stop) {
            continue; // an error of its own
        }
        if !has(TestKind::Steer) {
            out.push(format!(
                "class `{class}`: no steering steps, so no wheel-lift bound: its speed is \
                 bound only by the project cap and the scan reach (less conservative)"
            ));
        }
        if !has(TestKind::Follow) {
            out.push(format!(
                "class `{class}`: no follow tests, so d_m has no follow addition: the \
                 obstacle margin may be smaller than the vehicle needs (less conservative)"
            ));
        }
    }
    out
}

fn table(rows: [ClassLimits; 7]) -> ClassTable {
    let [asphalt, concrete, gravel, grass_lane, dirt, grass, field] = rows;
    ClassTable {
        asphalt,
        concrete,
        gravel,
        grass_lane,
        dirt,
        grass,
        field,
    }
}

/// The envelope of the measurements: `unknown` over every measured state, `dry` from
/// the dry state where there are dry measurements. Latency and response are the
/// configured ones.
pub fn calibrate(config: &Config, rows: &[Measurement]) -> Result<Calibration, String> {
    let mut states: Vec<GroundState> = Vec::new();
    for m in rows {
        if !states.contains(&m.state) {
            states.push(m.state);
        }
    }
    let mut derivations = Vec::new();
    let mut level = |grip: &str, states: &[GroundState]| -> Result<ClassTable, String> {
        let mut out = Vec::new();
        for class in GroundClass::ALL {
            let d = derive(config, rows, class, states, grip)?;
            out.push(d.limits);
            derivations.push(d);
        }
        Ok(table(out.try_into().expect("seven classes")))
    };
    let unknown = level("unknown", &states)?;
    let dry = if states.contains(&GroundState::Dry) {
        Some(level("dry", &[GroundState::Dry])?)
    } else {
        None
    };
    let envelope = EnvelopeConfig {
        latency_s: config.envelope.latency_s,
        response_s: config.envelope.response_s,
        grips: GripTables { unknown, dry },
    };
    // What is written must load: the loader's own checks, before anything is written.
    crate::config::validate_envelope(
        &envelope,
        "the calibrated envelope",
        config.control.corridor.range_m,
    )
    .map_err(|e| format!("{e} (not written)"))?;
    Ok(Calibration {
        envelope,
        derivations,
        warnings: missing_tests(rows),
    })
}

/// One difference of two envelopes: the grip, the class, the key and both values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnvelopeDiff {
    pub grip: String,
    pub class: String,
    pub key: &'static str,
    pub configured: Option<f64>,
    pub calibrated: Option<f64>,
    /// Whether the calibrated value lets the vehicle do more than the configured one: a
    /// higher speed, deceleration or lateral limit, a smaller obstacle margin, or a table
    /// the configured envelope does not have.
    pub loosens: bool,
}

/// Whether going from `configured` to `calibrated` loosens the limit `key`: every limit
/// is an upper bound but the obstacle margin, a lower one; a value that appears where
/// there was none loosens (nobody vetted it), one that disappears does not (the worse
/// table then applies).
pub fn loosens(key: &str, configured: Option<f64>, calibrated: Option<f64>) -> bool {
    match (configured, calibrated) {
        (None, Some(_)) => true,
        (Some(_), None) | (None, None) => false,
        (Some(a), Some(b)) if key == "obstacle_margin_m" => b < a,
        (Some(a), Some(b)) => b > a,
    }
}

/// Where `calibrated` differs from `configured`.
pub fn differences(configured: &EnvelopeConfig, calibrated: &EnvelopeConfig) -> Vec<EnvelopeDiff> {
    let mut out = Vec::new();
    for grip in crate::chain::envelope::Grip::ALL {
        let (a, b) = (configured.table(grip), calibrated.table(grip));
        if a.is_none() && b.is_none() {
            continue;
        }
        for class in GroundClass::ALL {
            let vals = |t: Option<&ClassTable>| -> [Option<f64>; 5] {
                match t.map(|t| t.get(class)) {
                    Some(l) => [
                        Some(l.speed_command_mps),
                        Some(l.speed_mps),
                        Some(l.decel_mps2),
                        Some(l.obstacle_margin_m),
                        Some(l.lateral_accel_max_mps2),
                    ],
                    None => [None; 5],
                }
            };
            let keys = [
                "speed_command_mps",
                "speed_mps",
                "decel_mps2",
                "obstacle_margin_m",
                "lateral_accel_max_mps2",
            ];
            for ((key, x), y) in keys.into_iter().zip(vals(a)).zip(vals(b)) {
                if x != y {
                    out.push(EnvelopeDiff {
                        grip: grip.name().to_string(),
                        class: class.name().to_string(),
                        key,
                        configured: x,
                        calibrated: y,
                        loosens: loosens(key, x, y),
                    });
                }
            }
        }
    }
    out
}

/// Why the `dry` and `unknown` tables came out the same, where they did: the stops never
/// braked hard enough to meet the wet grip, so wet and dry stops measured alike and the
/// worst over both states is the dry one. None where the tables differ.
pub fn same_tables_note(rows: &[Measurement], envelope: &EnvelopeConfig) -> Option<String> {
    use crate::chain::envelope::Grip;
    let (dry, unknown) = (envelope.table(Grip::Dry)?, envelope.table(Grip::Unknown)?);
    if GroundClass::ALL
        .iter()
        .any(|&c| dry.get(c) != unknown.get(c))
    {
        return None;
    }
    let hardest = rows
        .iter()
        .filter_map(|m| m.decel_mps2)
        .fold(0.0f64, f64::max);
    let (wet_mu, class) = GroundClass::ALL
        .iter()
        .map(|&c| (crate::ground::class::ground(Some(c), GroundState::Wet).0, c))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .expect("there are classes");
    Some(format!(
        "the dry and unknown tables are identical: the stops braked at most {hardest:.2} \
         m/s², below the least wet grip (μ g = {:.2} m/s² on wet {}), so wet and dry \
         stops measured alike",
        wet_mu * crate::ground::class::G,
        class.name()
    ))
}

/// One planned test of `acres envelope measure`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Planned {
    pub test: TestKind,
    pub class: GroundClass,
    pub state: GroundState,
    pub speed_mps: f64,
}

/// The speeds of the stop tests and steering steps of a class: every whole m/s from 1
/// (2 for steering steps) and the project cap.
pub fn test_speeds(class: GroundClass, from: f64) -> Vec<f64> {
    let cap = project_cap(class);
    let mut v: Vec<f64> = (0..)
        .map(|k| from + k as f64)
        .take_while(|s| *s < cap - 1e-9)
        .collect();
    v.push(cap);
    v
}

/// The tests of a measurement: for each class and state the stop tests, the follow test
/// at the project cap, and the steering steps with the corner rule on.
pub fn plan(classes: &[GroundClass], states: &[GroundState]) -> Vec<Planned> {
    let mut out = Vec::new();
    for &class in classes {
        for &state in states {
            let p = |test, speed_mps| Planned {
                test,
                class,
                state,
                speed_mps,
            };
            out.extend(
                test_speeds(class, 1.0)
                    .into_iter()
                    .map(|v| p(TestKind::Stop, v)),
            );
            out.push(p(TestKind::Follow, project_cap(class)));
            out.extend(
                test_speeds(class, 2.0)
                    .into_iter()
                    .map(|v| p(TestKind::Steer, v)),
            );
        }
    }
    out
}

/// Runs one planned stop test or steering step on a rig (a vehicle behind a bridge); the
/// follow test needs a wall in the world and runs only in the process.
pub fn run_test_on(
    config: &Config,
    rig: &mut dyn crate::jobs::measure::Rig,
    t: &Planned,
) -> Result<Measurement, String> {
    use crate::jobs::measure::{steering_step_on, stop_test_on};
    Ok(match t.test {
        TestKind::Stop => Measurement::stop(
            t.class,
            t.state,
            t.speed_mps,
            &stop_test_on(config, rig, t.speed_mps)?,
        ),
        TestKind::Steer => Measurement::steer(
            t.class,
            t.state,
            t.speed_mps,
            &steering_step_on(config, rig, t.class, t.speed_mps, 0.2, true)?,
        ),
        TestKind::Follow => return Err("the follow test runs only in the process".into()),
    })
}

/// Runs one planned test on the simulated Polaris.
pub fn run_test(config: &Config, t: &Planned) -> Measurement {
    use crate::jobs::measure::{follow_test, steering_step, stop_test};
    match t.test {
        TestKind::Stop => Measurement::stop(
            t.class,
            t.state,
            t.speed_mps,
            &stop_test(config, t.class, t.state, t.speed_mps),
        ),
        TestKind::Follow => Measurement::follow(
            t.class,
            t.state,
            t.speed_mps,
            &follow_test(config, t.class, t.state, t.speed_mps),
        ),
        TestKind::Steer => Measurement::steer(
            t.class,
            t.state,
            t.speed_mps,
            &steering_step(config, t.class, t.state, t.speed_mps, 0.2, true),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::stops::read_csv;

    /// A hand-made table: every class and state with stops at 2 and 7 m/s (the given
    /// deceleration, tail and overshoot), a follow test leaving `gap` of 2.5 m, and
    /// steering steps at 3 to 7 m/s that lift from `lift_from`.
    fn table(decel: f64, tail: f64, overshoot: f64, gap: f64, lift_from: f64) -> Vec<Measurement> {
        let mut rows = Vec::new();
        for class in GroundClass::ALL {
            for state in [GroundState::Dry, GroundState::Wet] {
                for v in [2.0, 7.0] {
                    let r = StopTest {
                        overshoot_mps: overshoot,
                        speed_at_stop_mps: v,
                        stop_distance_m: v * v / 3.0,
                        decel_mps2: decel,
                        tail_m: tail,
                        stop_time_s: v / 1.5,
                    };
                    rows.push(Measurement::stop(class, state, v, &r));
                }
                let f = FollowTest {
                    gap_m: gap,
                    margin_used_m: 2.5,
                    max_speed_mps: 6.9,
                    collided: false,
                };
                rows.push(Measurement::follow(class, state, 7.8, &f));
                for v in [3.0, 4.0, 5.0, 6.0, 7.0] {
                    let s = SteeringStep {
                        wheel_lift: v >= lift_from,
                        rolled_over: false,
                        max_lateral_accel_mps2: 3.0,
                        min_inner_load: 0.5,
                    };
                    rows.push(Measurement::steer(class, state, v, &s));
                }
            }
        }
        rows
    }

    fn gravel(c: &Calibration) -> &Derivation {
        c.derivations
            .iter()
            .find(|d| d.grip == "unknown" && d.class == GroundClass::Gravel)
            .unwrap()
    }

    #[test]
    fn the_rules_on_a_plain_table_give_the_reference_values() {
        let cfg = Config::builtin();
        // Deceleration above the controller limit: a = 0.8 × 1.5; tail 0.9 m, follow
        // gap at the margin: d_m = 1.5 + 0.9 = 2.4; overshoot 0.9: command 6.9.
        let c = calibrate(&cfg, &table(1.8, 0.9, 0.9, 2.5, 99.0)).unwrap();
        let d = gravel(&c);
        assert_eq!(d.binding, "project cap");
        let l = d.limits;
        assert_eq!((l.speed_mps, l.speed_command_mps), (7.8, 6.9));
        assert_eq!((l.decel_mps2, l.obstacle_margin_m), (1.2, 2.4));
        let grass = c.envelope.grips.unknown.grass;
        assert_eq!((grass.speed_mps, grass.speed_command_mps), (5.6, 4.7));
        // The stop distance at the calibrated speed: 35.55 m, inside the 40 m reach.
        let rule = c.envelope.stop_rule(&l);
        assert!((rule.stop_distance(7.8) - 35.55).abs() < 1e-9);
    }

    #[test]
    fn the_40_m_rule_binds_with_a_weak_deceleration() {
        let cfg = Config::builtin();
        // a = 0.8 × 0.9 = 0.72 → 0.7: d_stop(7.8) = 1.6 + 7.8 + 43.5 > 40.
        let c = calibrate(&cfg, &table(0.9, 0.1, 0.2, 2.5, 99.0)).unwrap();
        let d = gravel(&c);
        assert_eq!(d.binding, "stop distance");
        assert_eq!(d.limits.decel_mps2, 0.7);
        let rule = c.envelope.stop_rule(&d.limits);
        assert!(rule.stop_distance(d.limits.speed_mps) <= 40.0);
        assert!(rule.stop_distance(d.limits.speed_mps + 0.1) > 40.0);
        assert_eq!(d.limits.speed_mps, 6.6);
    }

    #[test]
    fn wheel_lift_binds_the_speed() {
        let cfg = Config::builtin();
        let c = calibrate(&cfg, &table(1.8, 0.1, 0.2, 2.5, 6.0)).unwrap();
        let d = gravel(&c);
        assert_eq!(d.binding, "wheel lift");
        assert_eq!(d.speed_no_lift_mps, Some(5.0));
        assert_eq!((d.limits.speed_mps, d.limits.speed_command_mps), (5.0, 4.8));
    }

    #[test]
    fn a_long_tail_an_overshoot_and_a_short_follow_gap_change_the_result() {
        let cfg = Config::builtin();
        let base = calibrate(&cfg, &table(1.8, 0.1, 0.2, 2.5, 99.0)).unwrap();
        let b = gravel(&base).limits;
        assert_eq!((b.obstacle_margin_m, b.speed_command_mps), (1.6, 7.6));
        // One long tail on one class and state: that class's margin grows, in both grips
        // where the state is dry, only in unknown where it is wet.
        let mut rows = table(1.8, 0.1, 0.2, 2.5, 99.0);
        for r in rows.iter_mut() {
            if r.class == GroundClass::Gravel
                && r.state == GroundState::Wet
                && r.test == TestKind::Stop
            {
                r.tail_m = Some(0.7);
                r.overshoot_mps = Some(0.9);
            }
        }
        let c = calibrate(&cfg, &rows).unwrap();
        let u = c.envelope.grips.unknown.gravel;
        let dry = c.envelope.grips.dry.as_ref().unwrap().gravel;
        assert_eq!((u.obstacle_margin_m, u.speed_command_mps), (2.2, 6.9));
        assert_eq!((dry.obstacle_margin_m, dry.speed_command_mps), (1.6, 7.6));
        assert_eq!(
            c.envelope.grips.unknown.dirt,
            base.envelope.grips.unknown.dirt
        );
        // A follow test that stopped 1.0 m from the wall with a 2.5 m margin: the addition
        // is 2.5 − 1.0 − 0.1 = 1.4 m, the margin 1.5 + 0.1 + 1.4 = 3.0 m.
        let c = calibrate(&cfg, &table(1.8, 0.1, 0.2, 1.0, 99.0)).unwrap();
        let d = gravel(&c);
        assert!((d.follow_addition_m - 1.4).abs() < 1e-9);
        assert_eq!(d.limits.obstacle_margin_m, 3.0);
    }

    #[test]
    fn the_shipped_measurements_calibrate_a_sound_table() {
        let cfg = Config::builtin();
        let text = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/stops/measurements.csv"
        ));
        let rows = read_csv("measurements.csv", text.as_bytes()).unwrap();
        let c = calibrate(&cfg, &rows).unwrap();
        let dry = c.envelope.grips.dry.as_ref().expect("dry measurements");
        let reach = cfg.control.corridor.range_m;
        for class in GroundClass::ALL {
            let u = c.envelope.grips.unknown.get(class);
            let d = dry.get(class);
            for l in [u, d] {
                assert!(
                    l.speed_mps <= project_cap(class) && l.speed_mps > 0.0,
                    "{class}"
                );
                assert!(l.speed_command_mps <= l.speed_mps, "{class}");
                assert!(
                    c.envelope.stop_rule(l).stop_distance(l.speed_mps) <= reach,
                    "{class}"
                );
            }
            assert!(d.speed_mps >= u.speed_mps && d.speed_command_mps >= u.speed_command_mps);
            assert!(d.decel_mps2 >= u.decel_mps2 && d.obstacle_margin_m <= u.obstacle_margin_m);
        }
        // Every class and state was measured.
        for class in GroundClass::ALL {
            for state in [GroundState::Dry, GroundState::Wet] {
                assert!(
                    rows.iter()
                        .any(|m| m.class == class && m.state == state && m.test == TestKind::Stop)
                );
            }
        }
        // The shipped dry table is this calibration's.
        assert_eq!(cfg.envelope.grips.dry.as_ref(), Some(dry));
    }

    #[test]
    fn bad_measurement_files_name_the_row_and_the_column() {
        let good = "test,class,state,speed_mps,overshoot_mps,stop_distance_m,decel_mps2,tail_m,stop_time_s,gap_m,margin_used_m,collided,wheel_lift,max_lateral_accel_mps2\n\
                    stop,gravel,dry,7,0.1,16,1.6,0.08,4.8,,,,,\n";
        assert_eq!(read_csv("m.csv", good.as_bytes()).unwrap().len(), 1);
        let e = read_csv(
            "m.csv",
            good.replace("tail_m,", "").replace("0.08,", "").as_bytes(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("m.csv") && e.contains("missing column `tail_m`"),
            "{e}"
        );
        let e = read_csv("m.csv", good.replace("1.6,", "fast,").as_bytes())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 2") && e.contains("`decel_mps2`") && e.contains("fast"),
            "{e}"
        );
        let e = read_csv("m.csv", good.replace(",0.08,", ",,").as_bytes())
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("`tail_m`"), "{e}");
        let e = read_csv("m.csv", good.replace("gravel", "sand").as_bytes())
            .unwrap_err()
            .to_string();
        assert!(e.contains("`class`") && e.contains("sand"), "{e}");
        // Beyond the bounds of docs/formats.md "Bounds" (a stop at 1e308 m/s was taken).
        for (from, to, want) in [
            (
                "dry,7,",
                "dry,1e308,",
                "`speed_mps`: 1e308 is beyond 100 m/s",
            ),
            (
                "dry,7,",
                "dry,100.5,",
                "`speed_mps`: 100.5 is beyond 100 m/s",
            ),
            (",16,", ",1e9,", "`stop_distance_m`: 1e9 is beyond 1e8 m"),
            (",1.6,", ",101,", "`decel_mps2`: 101 is beyond 100 m/s²"),
        ] {
            let e = read_csv("m.csv", good.replace(from, to).as_bytes())
                .unwrap_err()
                .to_string();
            assert!(e.contains("line 2") && e.contains(want), "{e}");
        }
        let at_bound = good.replace("dry,7,", "dry,100,");
        assert!(read_csv("m.csv", at_bound.as_bytes()).is_ok());
        let twice =
            good.replacen("tail_m,", "tail_m,tail_m,", 1)
                .replacen("0.08,", "0.08,0.08,", 1);
        let e = read_csv("m.csv", twice.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("column `tail_m` appears twice"), "{e}");
        // A class with no stops.
        let rows = read_csv("m.csv", good.as_bytes()).unwrap();
        let e = calibrate(&Config::builtin(), &rows).unwrap_err();
        assert!(e.contains("asphalt") && e.contains("no stop tests"), "{e}");
    }

    /// 207,000 rows (21 MB; issue 63 found 30 s and more: each row's line was counted from
    /// the start) with blank lines among them and a bad row last: its line is the file's.
    #[test]
    fn a_long_file_s_last_line_is_counted_in_one_pass() {
        let head = "test,class,state,speed_mps,overshoot_mps,stop_distance_m,decel_mps2,tail_m,stop_time_s,gap_m,margin_used_m,collided,wheel_lift,max_lateral_accel_mps2\n";
        let row = "stop,gravel,dry,7,0.1,16,1.6,0.08,4.8,,,,,\n";
        let mut text = String::from(head);
        for k in 0..207_000 {
            text.push_str(row);
            if k % 1000 == 0 {
                text.push('\n');
            }
        }
        text.push_str(&row.replace("1.6,", "x,"));
        // The header, the rows, 207 blank lines, the bad row.
        let want = 1 + 207_000 + 207 + 1;
        let e = read_csv("m.csv", text.as_bytes()).unwrap_err().to_string();
        assert!(e.contains(&format!("line {want}")), "{e}");
    }

    #[test]
    fn line_numbers_are_the_files_and_a_negative_deceleration_is_named() {
        let head = "test,class,state,speed_mps,overshoot_mps,stop_distance_m,decel_mps2,tail_m,stop_time_s,gap_m,margin_used_m,collided,wheel_lift,max_lateral_accel_mps2\n";
        let row = "stop,gravel,dry,7,0.1,16,1.6,0.08,4.8,,,,,\n";
        // Blank lines before the bad row: it is the file's line 5.
        let text = format!("{head}{row}\n\n{}", row.replace("1.6,", "x,"));
        let e = read_csv("m.csv", text.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("line 5"), "{e}");
        // Windows line ends count the same.
        let crlf = format!("{head}{row}{}", row.replace("1.6,", "x,")).replace('\n', "\r\n");
        let e = read_csv("m.csv", crlf.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("line 3"), "{e}");
        for (bad, col) in [("-1.6,", "`decel_mps2`"), ("0,", "`decel_mps2`")] {
            let text = format!("{head}{row}{}", row.replace("1.6,", bad));
            let e = read_csv("m.csv", text.as_bytes()).unwrap_err().to_string();
            assert!(e.contains("line 3") && e.contains(col), "{bad}: {e}");
        }
        let text = format!("{head}{}", row.replace(",16,", ",-16,"));
        let e = read_csv("m.csv", text.as_bytes()).unwrap_err().to_string();
        assert!(
            e.contains("line 2") && e.contains("`stop_distance_m`"),
            "{e}"
        );
    }

    #[test]
    fn a_class_whose_every_steering_step_lifts_is_an_error_naming_it() {
        let mut rows = table(1.6, 0.08, 0.1, 2.5, 9.0);
        for m in rows.iter_mut() {
            if m.class == GroundClass::Dirt && m.test == TestKind::Steer {
                m.wheel_lift = Some(true);
            }
        }
        let e = calibrate(&Config::builtin(), &rows).unwrap_err();
        assert!(
            e.contains("`dirt`") && e.contains("every steering step lifts a wheel"),
            "{e}"
        );
        // The slowest steps without lift: a speed, and an envelope that loads.
        for m in rows.iter_mut() {
            if m.class == GroundClass::Dirt && m.test == TestKind::Steer && m.speed_mps < 3.5 {
                m.wheel_lift = Some(false);
            }
        }
        let c = calibrate(&Config::builtin(), &rows).unwrap();
        assert!(c.envelope.grips.unknown.dirt.speed_mps > 0.0);
        crate::config::validate_envelope(&c.envelope, "x", 40.0).unwrap();
    }

    #[test]
    fn missing_kinds_of_test_are_warned_with_the_limit_they_loosen() {
        let full = table(1.6, 0.08, 0.1, 2.5, 9.0);
        assert!(
            calibrate(&Config::builtin(), &full)
                .unwrap()
                .warnings
                .is_empty()
        );
        let dry: Vec<Measurement> = full
            .iter()
            .copied()
            .filter(|m| m.state == GroundState::Dry)
            .filter(|m| !(m.class == GroundClass::Grass && m.test == TestKind::Steer))
            .filter(|m| !(m.class == GroundClass::Field && m.test == TestKind::Follow))
            .collect();
        let w = calibrate(&Config::builtin(), &dry).unwrap().warnings;
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].contains("no wet measurements") && w[0].contains("less conservative"));
        assert!(
            w.iter()
                .any(|x| x.contains("`grass`") && x.contains("steering"))
        );
        assert!(
            w.iter()
                .any(|x| x.contains("`field`") && x.contains("follow"))
        );
    }

    /// Every limit is an upper bound but the obstacle margin: raising a speed,
    /// deceleration or lateral limit loosens, lowering the margin loosens, and so does a
    /// table that appears; the opposite moves and a table that disappears do not.
    #[test]
    fn a_difference_loosens_in_the_unsafe_direction_only() {
        for key in [
            "speed_command_mps",
            "speed_mps",
            "decel_mps2",
            "lateral_accel_max_mps2",
        ] {
            assert!(loosens(key, Some(6.9), Some(7.0)), "{key}");
            assert!(!loosens(key, Some(6.9), Some(6.8)), "{key}");
        }
        assert!(loosens("obstacle_margin_m", Some(2.5), Some(1.6)));
        assert!(!loosens("obstacle_margin_m", Some(1.6), Some(2.5)));
        assert!(loosens("decel_mps2", None, Some(1.2)));
        assert!(!loosens("decel_mps2", Some(1.2), None));
        // The shipped measurements against the built-in envelope: the margins shrink and
        // the commands rise, and each such difference is marked.
        let cfg = Config::builtin();
        let rows = read_csv(
            "shipped",
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/data/stops/measurements.csv"
            ))
            .as_bytes(),
        )
        .unwrap();
        let cal = calibrate(&cfg, &rows).unwrap();
        let diffs = differences(&cfg.envelope, &cal.envelope);
        assert!(!diffs.is_empty());
        for d in &diffs {
            let (a, b) = (d.configured.unwrap(), d.calibrated.unwrap());
            let want = if d.key == "obstacle_margin_m" {
                b < a
            } else {
                b > a
            };
            assert_eq!(d.loosens, want, "{d:?}");
        }
        // Against itself nothing differs.
        assert!(differences(&cal.envelope, &cal.envelope).is_empty());
    }

    /// Stops that brake below every wet grip measure the same wet and dry, so the two
    /// tables agree and the note says why (with the hardest stop and the least wet grip,
    /// 0.35 g); with wet stops that brake less the tables differ and there is no note.
    #[test]
    fn identical_dry_and_unknown_tables_are_explained() {
        let cfg = Config::builtin();
        let same = table(1.6, 0.08, 0.1, 2.5, 9.0);
        let cal = calibrate(&cfg, &same).unwrap();
        let note = same_tables_note(&same, &cal.envelope).expect("the tables agree");
        assert!(
            note.contains("1.60 m/s²") && note.contains("3.43"),
            "{note}"
        );
        let mut wet_weaker = same.clone();
        for m in wet_weaker
            .iter_mut()
            .filter(|m| m.state == GroundState::Wet)
        {
            if let Some(d) = m.decel_mps2.as_mut() {
                *d = 0.9;
            }
        }
        let cal = calibrate(&cfg, &wet_weaker).unwrap();
        assert_eq!(same_tables_note(&wet_weaker, &cal.envelope), None);
    }
}
