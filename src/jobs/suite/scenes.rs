//! The scenes of the suites that measure the moving-object rule's edges
//! (docs/validation.md "Running children, crossing machines, static clutter"): a child who
//! runs across from standing, a car or tractor that pulls across, and static clutter
//! beside the lane that must cost no time. Each actor case is placed in time by the
//! careful-driver search ([`super::careful`]): its onset lies in the window in which a
//! careful driver avoids contact but driving on does not.

use super::careful::{self, Body, CaseClass, Crossing, Ego, Part};
use crate::config::Config;
use crate::plant::actors::{ActorKind, ActorSpec, End, Motion, StartWhen, Waypoint};
use crate::plant::world::Obstacle;

/// Where the route meets the actor, m along the route (the crossing suites' point).
pub const MEET_X_M: f64 = super::MEET_X_M;

/// How far beyond the centre line a running child runs on before it stops, m.
const CHILD_RUNS_TO_M: f64 = 5.0;
/// How far from the centre line a machine's near end stands before it pulls across, and
/// how far beyond the centre line its rear stops, m.
const MACHINE_SIDE_M: f64 = 10.0;
/// A car's length and width, m.
const CAR_M: (f64, f64) = (4.5, 1.8);
/// A tractor's body (length, half width) ahead of its implement, m, and the implement's
/// half width, m.
const TRACTOR_BODY_M: (f64, f64) = (3.8, 1.1);
const IMPLEMENT_HALF_WIDTH_M: f64 = 1.3;
/// The time bound of a case with an actor: one stop and restart from 6.9 m/s, s.
const STOP_AND_RESTART_S: f64 = 8.0;
/// The time bound of a static-clutter scene, s.
pub const CLUTTER_BOUND_S: f64 = 3.0;

/// One generated case of a scene suite before it becomes a scenario.
#[derive(Debug, Clone)]
pub struct SceneCase {
    pub label: String,
    /// The onset less the vehicle's undisturbed arrival at the actor (s), or the clutter's
    /// distance from the centre line (m).
    pub parameter: f64,
    pub actor: Option<ActorSpec>,
    pub obstacles: Vec<Obstacle>,
    pub careful: Option<CaseClass>,
    /// The actor's onset, s of simulated time.
    pub onset_s: Option<f64>,
    pub time_bound_s: Option<f64>,
}

/// A value of `list` chosen by `i` (cycling).
fn pick<T: Copy>(list: &[T], i: usize) -> T {
    list[i % list.len()]
}

/// The vehicle as the careful driver sees it at a ground's speed, its front at the meeting
/// point at `arrival`.
fn ego(config: &Config, speed: f64, arrival: f64) -> Ego {
    let v = &config.control.vehicle;
    Ego {
        length_m: v.length_m,
        half_width_m: v.width_m / 2.0,
        speed_mps: speed,
        arrival_s: arrival,
    }
}

/// The full width of the swept corridor at speed, m: how much lane an actor must cross.
fn corridor_width(config: &Config) -> f64 {
    let s = &config.control.shield;
    2.0 * (s.vehicle_margin_m + s.geofence_margin_m + s.obstacle_extra_m)
}

/// The onset of fraction `frac` through the must-avoid window of a crossing (None where
/// there is none): searched from 1 s into the run to 1 s after the vehicle's arrival.
fn onset_in_window(e: &Ego, c: &Crossing, frac: f64) -> Option<f64> {
    let window = careful::onsets_of(e, c, 1.0, e.arrival_s + 1.0, CaseClass::MustAvoid);
    let i = ((frac * window.len() as f64) as usize).min(window.len().checked_sub(1)?);
    Some(window[i])
}

/// A child standing at the crossing's start who runs to its end from `onset` (s).
pub fn child_actor(crossing: &Crossing, radius: f64, onset: f64) -> ActorSpec {
    let (y0, y1) = (crossing.y_start_m, crossing.y_end_m);
    ActorSpec {
        name: "running child".into(),
        kind: ActorKind::Person,
        motion: Motion::Waypoints(vec![
            Waypoint {
                t_s: 0.0,
                x_m: crossing.x_m,
                y_m: y0,
            },
            Waypoint {
                t_s: (y1 - y0).abs() / crossing.speed_mps,
                x_m: crossing.x_m,
                y_m: y1,
            },
        ]),
        start: StartWhen {
            at_s: onset,
            trigger: None,
        },
        end: End::Stop,
        yields: None,
        radius_m: Some(radius),
    }
}

/// How far a running child's place may move out, in steps of 0.5 m, to find a case with a
/// must-avoid window.
const CHILD_FARTHER_STEPS: usize = 4;

/// The running-child case `k` of ground `g`: a child standing `3 + k` m beside the lane
/// starts to run across. Where that place has no must-avoid window (a child close to the
/// lane and slow vehicle: it is across before a careful driver acts) the child stands
/// 0.5 m farther out, up to 2 m; None where none of those has one.
pub fn running_child(
    config: &Config,
    g: usize,
    k: usize,
    speed: f64,
    arrival: f64,
) -> Option<SceneCase> {
    let side = if (k + g) % 2 == 0 { 1.0 } else { -1.0 };
    let run = pick(&[2.5, 3.0, 3.5], k + g);
    let radius = pick(&[0.2, 0.25, 0.3], k + 2 * g);
    let frac = ((3 * k + g) % 10) as f64 / 10.0 + 0.05;
    let e = ego(config, speed, arrival);
    let (lateral, crossing, onset) = (0..=CHILD_FARTHER_STEPS).find_map(|i| {
        let lateral = 3.0 + k as f64 + 0.5 * i as f64;
        let crossing = Crossing {
            x_m: MEET_X_M,
            y_start_m: side * lateral,
            y_end_m: -side * CHILD_RUNS_TO_M,
            speed_mps: run,
            body: Body::Disc(radius),
        };
        let onset = onset_in_window(&e, &crossing, frac)?;
        Some((lateral, crossing, onset))
    })?;
    let actor = child_actor(&crossing, radius, onset);
    let place = if side > 0.0 { "left" } else { "right" };
    let label = format!("{place}, {lateral:.1} m, {run:.1} m/s, r {radius:.2}");
    Some(onset_case(
        config,
        &e,
        &crossing,
        actor,
        onset,
        label,
        2.0 * radius,
    ))
}

/// The case of an actor that sets off at `onset` (s): labelled with the onset less the
/// vehicle's arrival, classed by the careful driver, bound by one stop and restart and the
/// time the actor, `along` m long in its motion, holds the corridor.
fn onset_case(
    config: &Config,
    e: &Ego,
    crossing: &Crossing,
    actor: ActorSpec,
    onset: f64,
    label: String,
    along: f64,
) -> SceneCase {
    let holds = (along + corridor_width(config)) / crossing.speed_mps;
    SceneCase {
        label: format!("{label}, onset {:+.2} s", onset - e.arrival_s),
        parameter: onset - e.arrival_s,
        actor: Some(actor),
        obstacles: Vec::new(),
        careful: Some(careful::classify(e, crossing, onset)),
        onset_s: Some(onset),
        time_bound_s: Some(STOP_AND_RESTART_S + holds),
    }
}

/// A machine's outline in its own frame (x along its heading), and its parts in the
/// lane's frame when it heads along +y (`dir` 1) or −y (−1): a car's box, or a tractor's
/// body ahead of a wider implement.
fn machine_shape(length: f64, car: bool, dir: f64) -> (Obstacle, Vec<Part>) {
    let half = length / 2.0;
    let across = |lo: f64, hi: f64, w: f64| {
        let (a, b) = (dir * lo, dir * hi);
        Part {
            x0: -w,
            x1: w,
            y0: a.min(b),
            y1: a.max(b),
        }
    };
    if car {
        let o = Obstacle::Box {
            x_m: 0.0,
            y_m: 0.0,
            half_length_m: half,
            half_width_m: CAR_M.1 / 2.0,
            yaw_rad: 0.0,
        };
        return (o, vec![across(-half, half, CAR_M.1 / 2.0)]);
    }
    let (body, bw) = TRACTOR_BODY_M;
    let (joint, iw) = (half - body, IMPLEMENT_HALF_WIDTH_M);
    let points = vec![
        [half, bw],
        [joint, bw],
        [joint, iw],
        [-half, iw],
        [-half, -iw],
        [joint, -iw],
        [joint, -bw],
        [half, -bw],
    ];
    let parts = vec![across(joint, half, bw), across(-half, joint, iw)];
    (Obstacle::Polygon { points }, parts)
}

/// The crossing-machine case `k` of ground `g` (None where it has no must-avoid window):
/// a car or a tractor with its implement standing with its near end 10 m from the centre
/// line pulls across at 2 to 6 m/s and stops with its rear 10 m beyond it.
pub fn crossing_machine(
    config: &Config,
    g: usize,
    k: usize,
    speed: f64,
    arrival: f64,
) -> Option<SceneCase> {
    let car = k % 3 == 0;
    let length = if car {
        CAR_M.0
    } else {
        5.5 + 2.5 * ((7 * k + 3 * g) % 10) as f64 / 9.0
    };
    let pace = 2.0 + 4.0 * ((3 * k + g) % 10) as f64 / 9.0;
    let dir = if (k + g) % 2 == 0 { 1.0 } else { -1.0 };
    let frac = ((7 * k + 3 * g) % 10) as f64 / 10.0 + 0.05;
    let (shape, parts) = machine_shape(length, car, dir);
    let from = -dir * (MACHINE_SIDE_M + length / 2.0);
    let crossing = Crossing {
        x_m: MEET_X_M,
        y_start_m: from,
        y_end_m: -from,
        speed_mps: pace,
        body: Body::Boxes(parts),
    };
    let e = ego(config, speed, arrival);
    let onset = onset_in_window(&e, &crossing, frac)?;
    let actor = ActorSpec {
        name: if car { "car" } else { "tractor" }.into(),
        kind: ActorKind::Object(shape),
        motion: Motion::Straight {
            x_m: MEET_X_M,
            y_m: from,
            heading_rad: dir * std::f64::consts::FRAC_PI_2,
            speed_mps: pace,
            distance_m: 2.0 * from.abs(),
        },
        start: StartWhen {
            at_s: onset,
            trigger: None,
        },
        end: End::Stop,
        yields: None,
        radius_m: None,
    };
    let label = format!(
        "{} {length:.1} m from the {}, {pace:.1} m/s",
        if car { "car" } else { "tractor" },
        if dir > 0.0 { "right" } else { "left" },
    );
    Some(onset_case(
        config, &e, &crossing, actor, onset, label, length,
    ))
}

/// The kinds of static clutter, one scene each.
pub const CLUTTER: [&str; 5] = [
    "parked pickups",
    "parked tractors",
    "wall segments",
    "angled boxes",
    "posts",
];

/// A box whose face nearest the lane is `d` from the centre line on `side` (1 left), its
/// centre at `x`, half sizes `hl` (along its yaw) and `hw`, turned by `yaw`.
fn box_beside(x: f64, d: f64, side: f64, hl: f64, hw: f64, yaw: f64) -> Obstacle {
    let reach = hl * yaw.sin().abs() + hw * yaw.cos().abs();
    Obstacle::Box {
        x_m: x,
        y_m: side * (d + reach),
        half_length_m: hl,
        half_width_m: hw,
        yaw_rad: yaw,
    }
}

/// A tractor and implement 7 m long parked across (nose to the lane) or along the lane,
/// its nearest point `d` from the centre line.
fn parked_tractor(x: f64, d: f64, side: f64, across: bool) -> Obstacle {
    let (shape, _) = machine_shape(7.0, false, 1.0);
    if across {
        // Its nose, the body's end, toward the lane.
        shape.placed(x, side * (d + 3.5), -side * std::f64::consts::FRAC_PI_2)
    } else {
        shape.placed(x, side * (d + IMPLEMENT_HALF_WIDTH_M), 0.0)
    }
}

/// The obstacles of the static-clutter scene `kind` (an index of [`CLUTTER`]), the nearest
/// face of each `d` m from the centre line, between 25 and 140 m along the lane.
pub fn clutter(kind: usize, d: f64) -> Vec<Obstacle> {
    let side = |i: usize| if i % 2 == 0 { 1.0 } else { -1.0 };
    match kind {
        0 => (0..6)
            .map(|i| box_beside(30.0 + 16.0 * i as f64, d, side(i), 2.65, 1.0, 0.0))
            .collect(),
        1 => (0..5)
            .map(|i| parked_tractor(30.0 + 22.0 * i as f64, d, side(i), i % 3 != 1))
            .collect(),
        2 => (0..12)
            .map(|i| {
                // Two runs of 8 m segments with 2.5 m gaps, left then right, overlapping.
                let (x0, s) = if i < 6 { (25.0, 1.0) } else { (75.0, -1.0) };
                let x = x0 + 10.5 * (i % 6) as f64 + 4.0;
                box_beside(x, d, s, 4.0, 0.15, 0.0)
            })
            .collect(),
        3 => (0..10)
            .map(|i| {
                let yaw = pick(&[30.0f64, 45.0, 60.0, -30.0, -45.0], i).to_radians();
                box_beside(30.0 + 11.0 * i as f64, d, side(i), 1.2, 0.6, yaw)
            })
            .collect(),
        _ => (0..46)
            .map(|i| {
                let r = 0.1;
                Obstacle::Circle {
                    x_m: 25.0 + 5.0 * (i / 2) as f64,
                    y_m: side(i) * (d + r),
                    radius_m: r,
                }
            })
            .collect(),
    }
}

/// The static-clutter case `k` (of 10 a ground): kind `k % 5` at 2.4 m (k < 5) or 3.4 m
/// from the centre line.
pub fn static_clutter(k: usize) -> SceneCase {
    let kind = k % CLUTTER.len();
    let d = if k < CLUTTER.len() { 2.4 } else { 3.4 };
    SceneCase {
        label: format!("{}, {d:.1} m", CLUTTER[kind]),
        parameter: d,
        actor: None,
        obstacles: clutter(kind, d),
        careful: None,
        onset_s: None,
        time_bound_s: Some(CLUTTER_BOUND_S),
    }
}
