//! The chain and the plant in lockstep, in one process (ARCHITECTURE.md: `acres sim`):
//! physics at 120 Hz, the chain and the drive-by-wire commands at 50 Hz, a scenario file
//! for the ground, the route, the obstacles and the start.
//!
//! Each control step: the world's scan at the vehicle's mount point, the chain's command
//! row, then the row as drive-by-wire commands (ULC speed `|v|`, 0 while the brake holds;
//! steering by curvature; the gear), then physics until the next control step. A log
//! record is one control step: the state, the scan, the row and the DBW report.

use crate::chain::envelope::{Grip, GroundClass};
use crate::chain::path::Path;
use crate::chain::shield::MovingDecision;
use crate::chain::tracker::{MovingObject, TrackView};
use crate::chain::{Chain, ChainInput, CommandRow, VehicleState as ChainState};
use crate::config::Config;
use crate::formats::scenario::{Scenario, ScenarioError};
use crate::plant::world::{Touch, World};
use crate::plant::{Plant, StartPose};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;

/// An error of a scenario or a run; it names the key or the object.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error(transparent)]
    Path(#[from] crate::chain::path::PathError),
    #[error(transparent)]
    Chain(#[from] crate::chain::ChainError),
    /// The OS error is in the message, not a source, so that it is printed once.
    #[error("writing the log: {0}")]
    Log(std::io::Error),
    #[error("the run has ended: reset it before another step")]
    Ended,
}

impl From<std::io::Error> for SimError {
    fn from(e: std::io::Error) -> SimError {
        SimError::Log(e)
    }
}

impl Scenario {
    /// The plant of the scenario: its world (with the map where it names one) and the
    /// vehicle at the start, enabled; an obstacle over the start pose is an error.
    pub fn plant(&self, config: &Config) -> Result<Plant, SimError> {
        let mut world =
            World::new(self.ground, self.obstacles.clone()).with_actors(self.actors.clone());
        if let Some(m) = &self.map {
            world = world.with_map(self.load_map(m)?);
        }
        let st = self.start;
        let plant = Plant::new(
            config,
            world,
            StartPose {
                x_m: st.x_m,
                y_m: st.y_m,
                yaw_rad: st.yaw_rad,
                speed_mps: st.speed_mps,
            },
            true,
        );
        // One query of the world's index, not a world per obstacle.
        let (key, what, i) = match plant.touch() {
            None => return Ok(plant),
            Some(Touch::Obstacle(i)) => ("obstacles", "the obstacle".to_string(), i),
            Some(Touch::Actor(i)) => ("actors", format!("the actor {:?}", self.actors[i].name), i),
        };
        Err(SimError::Scenario(ScenarioError::Key {
            file: self.file.clone(),
            message: format!("key `{key}[{i}]`: {what} is over the start pose"),
        }))
    }
}

/// The speed below which the vehicle is at rest, m/s.
pub const REST_MPS: f64 = 0.05;

/// The summary of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub time_s: f64,
    pub distance_m: f64,
    pub collided: bool,
    /// At rest (below 0.05 m/s) through the end of the run, for at least its last second
    /// (a vehicle that stood once and moved on, or that only passes through 0, is not).
    pub stopped: bool,
    /// Since when the vehicle has been at rest without moving again, s (null: moving at
    /// the end).
    pub at_rest_since_s: Option<f64>,
    /// The gap from the footprint to the nearest obstacle at the end, m (null without
    /// obstacles).
    pub gap_m: Option<f64>,
    pub max_lateral_accel_mps2: f64,
    /// The inner wheels lifted at some time (the warning before a rollover).
    pub wheel_lift: bool,
    /// The vehicle rolled over (the run ends there; a failure like a collision).
    pub rolled_over: bool,
    /// The vehicle stood at the end of its route at some control step.
    pub finished_route: bool,
    /// Where the tires slid (asked for more than the ground's friction) while moving:
    /// when first, how far off the path, and whether the vehicle left its geofence
    /// (null: no slide).
    pub slide: Option<Slide>,
    /// Rule code → number of control steps it intervened.
    pub interventions: BTreeMap<String, u64>,
    pub final_speed_mps: f64,
    /// Each contact of the run (the run ends at the first): with what, when, and who
    /// moved into whom.
    pub contacts: Vec<Contact>,
    /// The closest the footprint came to an actor over the run, m (null without actors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closest_actor_m: Option<f64>,
    /// When the moving-object rule first acted (a cap or a pass), s, and how (null: never).
    pub moving_first_action: Option<MovingAction>,
    /// What the moving-object rule saw: `off`, `tracker`, or `oracle` (the true actor
    /// states, not a result a vehicle could have).
    pub moving_rule: crate::config::MovingMode,
    /// The ground class under the vehicle at the end (null where the map has none there).
    pub final_class: Option<GroundClass>,
    /// The obstacle margin `d_m` of that class (the smallest of all classes where it is
    /// not known), m: the gap a stop before an obstacle must keep.
    pub obstacle_margin_m: f64,
    /// The verdict in a line ([`Summary::verdict`]), ending `: ok` or `: FAIL`.
    pub verdict: String,
    /// Whether the verdict is ok (`acres sim` exits 4 where it is not).
    pub ok: bool,
}

impl Summary {
    /// One line a newcomer understands: how the run ended and whether that is right
    /// (stopped before the obstacle beyond the class's margin `d_m`, no collision), and
    /// whether the verdict is `ok`.
    pub fn verdict(&self) -> (String, bool) {
        let class = self
            .final_class
            .map_or("unknown ground".to_string(), |c| c.to_string());
        let margin = self.obstacle_margin_m;
        if let Some(c) = self.contacts.first() {
            let line = match c.by {
                ContactBy::Vehicle => format!(
                    "collided with {} {} at {:.2} s at {:.2} m/s: FAIL",
                    c.kind, c.index, c.t_s, c.ego_speed_mps
                ),
                ContactBy::Actor => format!(
                    "struck at rest by {} {} at {:.2} s (the vehicle had stopped): FAIL",
                    c.kind, c.index, c.t_s
                ),
            };
            return (line, false);
        }
        if self.collided {
            return ("collided: FAIL".to_string(), false);
        }
        if self.rolled_over {
            return (format!("rolled over at {:.2} s: FAIL", self.time_s), false);
        }
        if let Some(t) = self.slide.and_then(|s| s.left_fence_s) {
            return (format!("slid out of the geofence at {t:.2} s: FAIL"), false);
        }
        match (self.stopped, self.gap_m) {
            (true, Some(g)) if g >= margin => (
                format!(
                    "stopped {g:.2} m before the nearest obstacle, beyond the {margin:.2} m margin of {class}: ok"
                ),
                true,
            ),
            (true, Some(g)) => (
                format!(
                    "stopped {g:.2} m before the nearest obstacle, inside the {margin:.2} m margin of {class}: FAIL"
                ),
                false,
            ),
            (true, None) => ("stopped, no obstacle in the scenario: ok".to_string(), true),
            (false, Some(g)) => (
                format!(
                    "still moving at {:.2} m/s at the end, {g:.2} m from the nearest obstacle, no collision: ok",
                    self.final_speed_mps
                ),
                true,
            ),
            (false, None) => (
                format!(
                    "still moving at {:.2} m/s at the end, no collision: ok",
                    self.final_speed_mps
                ),
                true,
            ),
        }
    }
}

/// The slides of a run: the tires asked for more than the ground's friction at 0.5 m/s
/// or more.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Slide {
    /// The first control step's time with a slide, s.
    pub first_s: f64,
    /// The largest lateral offset from the path at a control step with a slide, m.
    pub max_offset_m: f64,
    /// When the rear axle's middle first stood outside the geofence while sliding, s
    /// (null: it never did, or the run has no geofence).
    pub left_fence_s: Option<f64>,
}

/// Who made a contact: the vehicle moving (at 0.05 m/s or more), or an actor that moved
/// into the vehicle at rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactBy {
    Vehicle,
    Actor,
}

/// One contact of the vehicle's footprint with an obstacle or an actor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contact {
    /// `obstacle`, `person`, `vehicle` or `object`.
    pub kind: String,
    /// The obstacle's or the actor's index in the scenario.
    pub index: usize,
    /// The actor's name (empty for an obstacle or an unnamed actor).
    pub name: String,
    pub t_s: f64,
    pub ego_speed_mps: f64,
    pub actor_speed_mps: f64,
    pub by: ContactBy,
}

impl Contact {
    /// The contact the plant's footprint (`footprint`, as [`Plant::footprint`] gives it)
    /// makes now, if any.
    pub fn of(plant: &Plant, footprint: &geo::Polygon<f64>) -> Option<Contact> {
        let touch = plant.world.touch(footprint)?;
        let ego = plant.speed_mps();
        let (kind, index, name, actor_speed) = match touch {
            Touch::Obstacle(i) => ("obstacle".to_string(), i, String::new(), 0.0),
            Touch::Actor(i) => {
                let a = &plant.world.actors()[i];
                let v = plant.world.live_actors()[i]
                    .as_ref()
                    .map_or(0.0, |l| l.pose.speed_mps());
                (a.spec.kind_name().to_string(), i, a.spec.name.clone(), v)
            }
        };
        let by = if ego.abs() >= REST_MPS || actor_speed == 0.0 {
            ContactBy::Vehicle
        } else {
            ContactBy::Actor
        };
        Some(Contact {
            kind,
            index,
            name,
            t_s: plant.time_s(),
            ego_speed_mps: ego,
            actor_speed_mps: actor_speed,
            by,
        })
    }
}

/// One control step of the log.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LogRecord {
    pub step: u64,
    pub t: f64,
    pub state: ChainState,
    /// The scan ranges, null for no return (omitted where the scenario records none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan: Option<Vec<Option<f64>>>,
    pub row: CommandRow,
    pub dbw: crate::plant::dbw::DbwReport,
    /// Where each actor of the scenario is (null once vanished); left out without actors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actors: Vec<Option<[f64; 2]>>,
    /// The tracker's tracks, moving or not; left out where there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tracks: Vec<TrackView>,
    /// What the moving-object rule decided; left out where there are no tracks and it
    /// did nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moving_decision: Option<MovingDecision>,
    /// Whether the inner wheels left the ground in a physics step since the previous
    /// record (the warning before a rollover), and whether the vehicle has rolled over
    /// (it then lies where the model stopped it: see docs/rules.md "Rollover").
    #[serde(default)]
    pub wheel_lift: bool,
    #[serde(default)]
    pub rolled_over: bool,
}

/// Runs a scenario to its end (its duration, a collision, 1 s at rest at the route's end
/// or 3 s standing anywhere); writes the log where one is given.
pub fn run(
    config: &Config,
    scenario: &Scenario,
    route: Path,
    mut log: Option<&mut dyn Write>,
) -> Result<Summary, SimError> {
    let mut session = Session::new(config, scenario, route)?;
    while !session.ended() {
        let log = log.as_mut().map(|w| &mut **w as &mut dyn Write);
        let done = session.step(Request::Driver, log)?;
        session.recycle(done.scan);
    }
    Ok(session.summary())
}

/// What drives a control step of a [`Session`]: the chain's default driver, a fixed
/// command in its place, or a proposer's chunk (the checker decides whether it drives).
/// The shield limits each.
#[derive(Debug, Clone)]
pub enum Request {
    Driver,
    Command(crate::chain::shield::Command),
    Proposal(crate::chain::Proposal),
}

/// What a control step of a [`Session`] saw and sent.
#[derive(Debug, Clone)]
pub struct ControlStep {
    pub state: ChainState,
    pub scan: crate::chain::scan::Scan,
    pub row: CommandRow,
    /// Whether the run has ended with this step.
    pub ended: bool,
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndCause {
    /// The vehicle touched an object or an actor.
    Collision,
    /// The vehicle rolled over.
    Rollover,
    /// At rest at the route's end.
    Arrived,
    /// Standing still for 3 s with nothing about to move (where that ends the run).
    Standing,
    /// The scenario's duration ran out.
    Duration,
}

/// A scenario run one control step at a time (what [`run`] loops over, and what the
/// Python package's `Sim` and Gymnasium environment drive): each step, the chain's row on
/// the plant's state and scan, then physics to the next control step.
pub struct Session {
    config: Config,
    chain: Chain,
    plant: Plant,
    tally: Tally,
    name: String,
    record_scan: bool,
    /// The control steps so far, and the physics steps left of the scenario's duration.
    control: u64,
    physics_left: u64,
    ended: bool,
    /// Why the run ended, once it has.
    end: Option<EndCause>,
    /// Whether standing still for 3 s (with nothing about to move) ends the run: yes for
    /// `acres sim`; the Gymnasium environment turns it off, so that standing is a choice
    /// with a cost rather than an early, rewarded end.
    standing_ends: bool,
    /// The scan of the coming control step, where [`Session::observe`] has cast it.
    next_scan: Option<crate::chain::scan::Scan>,
    /// The ranges of a scan handed back by [`Session::recycle`], the memory of the next.
    spare_ranges: Vec<f64>,
    /// A factor on the true states' velocities by simulated time (tests of how the rule
    /// bears a wrong estimate).
    #[cfg(test)]
    pub(crate) oracle_scale: Option<fn(f64) -> f64>,
}

/// What the vehicle is at before a control step: its measured state, its place relative to
/// the path (as the driver projects it) and the scan.
#[derive(Debug, Clone, Copy)]
pub struct Observation<'a> {
    pub state: ChainState,
    pub station_m: f64,
    pub lateral_m: f64,
    /// The yaw less the path's heading at the projection (turned half a turn on a reverse
    /// part, where the vehicle backs along it), wrapped to (−π, π].
    pub heading_error_rad: f64,
    pub path_length_m: f64,
    /// The path's curvature 5 m ahead of the projection, 1/m, positive left.
    pub curvature_ahead_per_m: f64,
    pub scan: &'a crate::chain::scan::Scan,
}

impl Session {
    /// A session at the scenario's start (the vehicle placed, no step taken).
    pub fn new(config: &Config, scenario: &Scenario, route: Path) -> Result<Session, SimError> {
        let shield = crate::chain::shield::Shield::new(config, Grip::Unknown)
            .expect("the unknown grip table always exists")
            .with_rules(scenario.corner_rule, scenario.shield);
        let checker = crate::chain::checker::TrajectoryChecker::new(config, Grip::Unknown)
            .expect("the unknown grip table always exists");
        let chain = Chain::new(config, route, Grip::Unknown)?
            .with_shield(shield)
            .with_checker(Box::new(checker));
        let plant = scenario.plant(config)?;
        let steps = (scenario.duration_s * crate::plant::dbw::PHYSICS_HZ as f64).round() as u64;
        let mut session = Session {
            config: config.clone(),
            chain,
            plant,
            tally: Tally::default(),
            name: scenario.name.clone(),
            record_scan: scenario.record_scan,
            control: 0,
            physics_left: steps,
            ended: false,
            end: None,
            standing_ends: true,
            next_scan: None,
            spare_ranges: Vec::new(),
            #[cfg(test)]
            oracle_scale: None,
        };
        session.physics_to_control()?;
        Ok(session)
    }

    /// The factor on the true states' velocities now: 1 but in tests that set one.
    fn oracle_factor(&self) -> f64 {
        #[cfg(test)]
        if let Some(f) = self.oracle_scale {
            return f(self.plant.time_s());
        }
        1.0
    }

    /// Whether the run has ended (its duration, a collision, at rest at the route's end or
    /// standing); a step after the end is an error.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Whether the run ended at its duration rather than by a collision or at rest.
    pub fn timed_out(&self) -> bool {
        self.end == Some(EndCause::Duration)
    }

    /// Why the run ended (None while it runs).
    pub fn end_cause(&self) -> Option<EndCause> {
        self.end
    }

    /// Whether standing still ends the run (the default) or the run goes on to its
    /// duration.
    pub fn with_standing_end(mut self, ends: bool) -> Session {
        self.standing_ends = ends;
        self
    }

    /// Whether the vehicle has touched anything so far.
    pub fn collided(&self) -> bool {
        self.tally.collided
    }

    /// The plant (the vehicle, the world and the DBW).
    pub fn plant(&self) -> &Plant {
        &self.plant
    }

    /// The chain (its path, driver and shield).
    pub fn chain(&self) -> &Chain {
        &self.chain
    }

    /// The control steps taken.
    pub fn control_steps(&self) -> u64 {
        self.control
    }

    /// One control step: the chain's row for `request` on the plant's state and scan, the
    /// row applied, the log record written where a log is given, then physics to the next
    /// control step.
    pub fn step(
        &mut self,
        request: Request,
        log: Option<&mut dyn Write>,
    ) -> Result<ControlStep, SimError> {
        if self.ended {
            return Err(SimError::Ended);
        }
        let scan = match self.next_scan.take() {
            Some(s) => s,
            None => (self.plant).scan_into(std::mem::take(&mut self.spare_ranges)),
        };
        let scale = self.oracle_factor();
        let plant = &mut self.plant;
        let v = plant.speed_mps();
        let reach = self.config.control.corridor.range_m;
        let scaled = |o: MovingObject| {
            if scale == 1.0 {
                return o;
            }
            MovingObject {
                vx_mps: o.vx_mps * scale,
                vy_mps: o.vy_mps * scale,
                speed_lo_mps: o.speed_lo_mps * scale,
                speed_hi_mps: o.speed_hi_mps * scale,
                ..o
            }
        };
        self.chain
            .set_oracle(oracle_objects(plant, reach).map(scaled));
        // The reports as they stand before the row is applied, built only for a log.
        let report = log.is_some().then(|| plant.report("polaris"));
        let state = plant.chain_state();
        let input = ChainInput {
            step: self.control,
            state,
            scan: &scan,
            proposal: match &request {
                Request::Proposal(p) => Some(p),
                _ => None,
            },
        };
        let row = match request {
            Request::Command(c) => self.chain.step_fixed(&input, c)?,
            _ => self.chain.step(&input)?,
        };
        plant.apply_row(&row);
        // The geofence's clearance, asked only after a slide.
        let fence = self.tally.sliding.then(|| {
            let s = &plant.vehicle.s;
            let p = geo::Coord { x: s.x_m, y: s.y_m };
            self.chain.shield().fence_clearance(p)
        });
        let end = self.tally.control(plant, &row, v, fence.flatten());
        let decision = self.chain.moving_decision();
        self.tally.decided(plant.time_s(), decision);
        if let (Some(w), Some(report)) = (log, report) {
            let ranges = self.record_scan.then(|| scan_returns(&scan));
            let mut rec = record(plant, self.control, state, ranges, row.clone(), report);
            rec.wheel_lift = std::mem::take(&mut self.tally.lift_since_record);
            self.chain.tracks(&mut rec.tracks);
            if !rec.tracks.is_empty() || decision != MovingDecision::None {
                rec.moving_decision = Some(decision);
            }
            write_record(w, &rec)?;
        }
        self.control += 1;
        let end = end.filter(|c| *c != EndCause::Standing || self.standing_ends);
        if end.is_some() {
            self.tally.t_end = plant.time_s();
            self.ended = true;
            self.end = end;
        } else {
            self.physics_step();
            self.physics_to_control()?;
        }
        Ok(ControlStep {
            state,
            scan,
            row,
            ended: self.ended,
        })
    }

    /// Takes back the scan of a finished control step, so that the next one's is cast
    /// into its memory instead of a new allocation (optional).
    pub fn recycle(&mut self, scan: crate::chain::scan::Scan) {
        self.spare_ranges = scan.into_ranges();
    }

    /// The state, the place on the path and the scan the coming control step sees (the
    /// scan is cast once: the step uses it).
    pub fn observe(&mut self) -> Observation<'_> {
        let state = self.plant.chain_state();
        let path = self.chain.path();
        let (part, hint) = self.chain.place();
        let part = &path.parts()[part.min(path.parts().len() - 1)];
        let ahead_seg = |station: f64| path.segment_at(part, station + 5.0);
        let here = geo::Coord {
            x: state.pose.x_m,
            y: state.pose.y_m,
        };
        // As the driver projects (its first projection prefers the part's start).
        let p = match hint {
            Some(_) => path.project(here, part, hint),
            None => crate::chain::driver::first_projection(path, part, here),
        };
        let (a, b) = (path.point(p.segment), path.point(p.segment + 1));
        // The heading of travel: against the points' order on a reverse part, where the
        // vehicle's yaw points the other way.
        let heading = (b.y - a.y).atan2(b.x - a.x)
            + match path.direction(p.segment) {
                crate::chain::path::Direction::Forward => 0.0,
                crate::chain::path::Direction::Reverse => std::f64::consts::PI,
            };
        let e = state.pose.yaw_rad - heading;
        let heading_error_rad = e.sin().atan2(e.cos());
        if self.next_scan.is_none() {
            let spare = std::mem::take(&mut self.spare_ranges);
            self.next_scan = Some(self.plant.scan_into(spare));
        }
        Observation {
            state,
            station_m: p.station_m,
            lateral_m: p.lateral_m,
            heading_error_rad,
            path_length_m: path.length_m(),
            curvature_ahead_per_m: path.curvature(ahead_seg(p.station_m)),
            scan: self.next_scan.as_ref().expect("cast above"),
        }
    }

    /// Physics until the plant is at a control step; the end of the duration ends the run.
    fn physics_to_control(&mut self) -> Result<(), SimError> {
        while !self.plant.is_control_step() {
            if self.physics_left == 0 {
                self.ended = true;
                self.end = Some(EndCause::Duration);
                return Ok(());
            }
            self.physics_step();
        }
        if self.physics_left == 0 {
            self.ended = true;
            self.end = Some(EndCause::Duration);
        }
        Ok(())
    }

    /// One physics step, counted against the steps the run has left.
    fn physics_step(&mut self) {
        let info = self.plant.physics();
        self.tally.physics(&self.plant, &info);
        self.physics_left -= 1;
    }

    /// The summary of the run so far.
    pub fn summary(&self) -> Summary {
        let t = &self.tally;
        let mut s = Summary {
            scenario: self.name.clone(),
            time_s: t.t_end,
            distance_m: t.distance,
            collided: t.collided,
            stopped: t.rest_since.is_some_and(|r| t.t_end - r >= 1.0 - 1e-9),
            at_rest_since_s: t.rest_since,
            gap_m: self.plant.gap_m(),
            max_lateral_accel_mps2: t.max_ay,
            wheel_lift: t.lift,
            rolled_over: t.rolled_over,
            finished_route: t.finished_route,
            slide: t.slide,
            interventions: t.interventions.clone(),
            final_speed_mps: self.plant.speed_mps(),
            contacts: t.contacts.clone(),
            closest_actor_m: t.closest_actor,
            moving_first_action: t.moving_first,
            moving_rule: self.config.control.shield.moving_obstacle,
            final_class: self.plant.ground().class,
            obstacle_margin_m: self
                .chain
                .shield()
                .class_limits(self.plant.ground().class)
                .obstacle_margin_m,
            verdict: String::new(),
            ok: false,
        };
        (s.verdict, s.ok) = s.verdict();
        s
    }
}

/// The true states of the world's actors within the scan's reach of the vehicle, as the
/// moving-object rule's objects (its `oracle` mode: what a perfect tracker would give).
pub fn oracle_objects(plant: &Plant, reach_m: f64) -> impl Iterator<Item = MovingObject> + '_ {
    let s = &plant.vehicle.s;
    let (x, y) = (s.x_m, s.y_m);
    let world = &plant.world;
    world
        .actors()
        .iter()
        .zip(world.live_actors())
        .enumerate()
        .filter_map(move |(k, (a, l))| {
            let l = l.as_ref()?;
            let r = a.radius_m();
            if (l.pose.x_m - x).hypot(l.pose.y_m - y) > reach_m + r {
                return None;
            }
            let o = MovingObject::known(
                l.pose.x_m,
                l.pose.y_m,
                l.pose.vx_mps,
                l.pose.vy_mps,
                a.radius_m(),
            );
            Some(MovingObject {
                id: k as u64 + 1,
                ..o
            })
        })
}

/// The moving-object rule's first action in a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MovingAction {
    pub t_s: f64,
    /// `cap` or `pass`.
    pub kind: &'static str,
}

/// What a run counts as it goes, and when it ends.
#[derive(Default)]
struct Tally {
    distance: f64,
    max_ay: f64,
    lift: bool,
    /// A wheel lift since the last log record.
    lift_since_record: bool,
    rolled_over: bool,
    finished_route: bool,
    /// The tires slid in a physics step since the last control step.
    sliding: bool,
    slide: Option<Slide>,
    collided: bool,
    contacts: Vec<Contact>,
    closest_actor: Option<f64>,
    moving_first: Option<MovingAction>,
    interventions: BTreeMap<String, u64>,
    /// Control steps at the route's end after a whole second at rest.
    standing_at_end: u64,
    /// Control steps standing with a stop commanded.
    standing: u64,
    t_end: f64,
    rest_since: Option<f64>,
}

impl Tally {
    /// The moving-object rule's decision at a control step of time `t_s`.
    fn decided(&mut self, t_s: f64, d: MovingDecision) {
        let kind = match d {
            MovingDecision::None => return,
            MovingDecision::Cap { .. } => "cap",
            MovingDecision::Pass => "pass",
        };
        self.moving_first.get_or_insert(MovingAction { t_s, kind });
    }

    /// A control step with the chain's row (`v` the speed it saw); whether the run ends:
    /// a collision, 1 s at rest at the route's end, or 3 s standing.
    fn control(
        &mut self,
        plant: &crate::plant::Plant,
        row: &crate::chain::CommandRow,
        v: f64,
        fence: Option<f64>,
    ) -> Option<EndCause> {
        for i in &row.interventions {
            // The rule's name is copied only the first time it counts.
            let code = i.rule.code();
            match self.interventions.get_mut(code) {
                Some(n) => *n += 1,
                None => {
                    self.interventions.insert(code.to_string(), 1);
                }
            }
        }
        if std::mem::take(&mut self.sliding) {
            self.slid(plant, row, fence);
        }
        // One footprint for the actors' gap and the contact test.
        let footprint = plant.footprint();
        if let Some(g) = plant.world.actor_gap(&footprint) {
            self.closest_actor = Some(self.closest_actor.map_or(g, |c| c.min(g)));
        }
        if let Some(c) = Contact::of(plant, &footprint) {
            self.collided = true;
            self.contacts.push(c);
        }
        let rested = self
            .rest_since
            .is_some_and(|t| plant.time_s() - t >= 1.0 - 1e-9);
        self.finished_route |= row.finished;
        self.standing_at_end = if row.finished && rested {
            self.standing_at_end + 1
        } else {
            0
        };
        self.standing = if v.abs() < 0.05 && row.speed_mps == 0.0 {
            self.standing + 1
        } else {
            0
        };
        // Standing does not end a run while an actor is still to start or moving.
        let waiting = plant.world.actors_active();
        if self.collided {
            Some(EndCause::Collision)
        } else if self.rolled_over {
            Some(EndCause::Rollover)
        } else if self.standing_at_end >= 1 {
            Some(EndCause::Arrived)
        } else if self.standing >= 150 && !waiting {
            Some(EndCause::Standing)
        } else {
            None
        }
    }

    /// A control step after a slide: its time, the path offset, the fence.
    fn slid(
        &mut self,
        plant: &crate::plant::Plant,
        row: &crate::chain::CommandRow,
        fence: Option<f64>,
    ) {
        let t = plant.time_s();
        let s = self.slide.get_or_insert(Slide {
            first_s: t,
            max_offset_m: 0.0,
            left_fence_s: None,
        });
        s.max_offset_m = s.max_offset_m.max(row.lateral_m.abs());
        if fence.is_some_and(|c| c <= 0.0) && s.left_fence_s.is_none() {
            s.left_fence_s = Some(t);
        }
    }

    /// After a physics step.
    fn physics(&mut self, plant: &crate::plant::Plant, info: &crate::plant::vehicle::StepInfo) {
        self.lift |= info.wheel_lift;
        self.lift_since_record |= info.wheel_lift;
        self.rolled_over |= info.rolled_over;
        self.sliding |= info.sliding && plant.speed_mps().abs() >= 0.5;
        self.max_ay = self.max_ay.max(plant.vehicle.s.ay_mps2.abs());
        self.distance += plant.speed_mps().abs() / crate::plant::dbw::PHYSICS_HZ as f64;
        self.t_end = plant.time_s();
        if plant.speed_mps().abs() >= REST_MPS {
            self.rest_since = None;
        } else if self.rest_since.is_none() {
            self.rest_since = Some(self.t_end);
        }
    }
}

/// The log record of a control step, with where the actors are.
fn record(
    plant: &Plant,
    step: u64,
    state: ChainState,
    scan: Option<Vec<Option<f64>>>,
    row: CommandRow,
    dbw: crate::plant::dbw::DbwReport,
) -> LogRecord {
    let actors = plant
        .world
        .live_actors()
        .iter()
        .map(|l| l.as_ref().map(|l| [l.pose.x_m, l.pose.y_m]))
        .collect();
    LogRecord {
        step,
        t: plant.time_s(),
        state,
        scan,
        row,
        dbw,
        actors,
        tracks: Vec::new(),
        moving_decision: None,
        wheel_lift: false,
        rolled_over: plant.vehicle.s.rolled_over,
    }
}

/// The scan as a log has it: null for no return.
fn scan_returns(s: &crate::chain::scan::Scan) -> Vec<Option<f64>> {
    s.ranges()
        .iter()
        .map(|r| r.is_finite().then_some(*r))
        .collect()
}

/// One log record as a JSON line.
fn write_record(w: &mut dyn Write, rec: &LogRecord) -> Result<(), SimError> {
    serde_json::to_writer(&mut *w, rec).map_err(std::io::Error::from)?;
    w.write_all(b"\n")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MovingMode;
    use crate::formats::scenario::DEFAULT_SCENARIO;
    use crate::plant::world::{Obstacle, Plane};
    use std::sync::Arc;

    fn default_run(log: Option<&mut dyn Write>) -> Summary {
        let s = Scenario::from_json_str("opening.json", DEFAULT_SCENARIO).unwrap();
        let p = s.path(None).unwrap();
        run(&Config::builtin(), &s, p, log).unwrap()
    }

    /// The log of a crossing with the tracker carries its tracks, numbered, moving or not,
    /// ageing as the run goes, and the rule's decision on every step with tracks; the
    /// summary's first action is the first logged cap or pass. A run with nothing to
    /// track has neither key in any line.
    #[test]
    fn the_log_shows_the_tracks_and_the_rule_s_decisions() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/scenarios/crossing_person.json");
        let s = Scenario::load(Some(&path)).unwrap();
        let c = Config::builtin();
        let mut log = Vec::new();
        let summary = run(&c, &s, s.route().unwrap(), Some(&mut log)).unwrap();
        let lines: Vec<serde_json::Value> = log
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        let mut ages: std::collections::HashMap<u64, f64> = Default::default();
        let mut first: Option<(f64, String)> = None;
        let mut moving_seen = false;
        for l in &lines {
            let tracks = l.get("tracks").and_then(|t| t.as_array());
            assert_eq!(tracks.is_some(), l.get("moving_decision").is_some(), "{l}");
            for t in tracks.into_iter().flatten() {
                let id = t["id"].as_u64().unwrap();
                let age = t["age_s"].as_f64().unwrap();
                assert!(id >= 1 && age >= 0.0, "{t}");
                assert!(ages.get(&id).is_none_or(|a| age > *a), "{t}");
                ages.insert(id, age);
                moving_seen |= t["moving"].as_bool().unwrap();
            }
            let kind = l["moving_decision"]["kind"].as_str().unwrap_or("none");
            if kind != "none" && first.is_none() {
                first = Some((l["t"].as_f64().unwrap(), kind.to_string()));
            }
        }
        assert!(moving_seen, "the person was never a moving track");
        let a = summary.moving_first_action.expect("the rule acted");
        let (t, kind) = first.expect("a logged decision");
        assert_eq!((a.t_s, a.kind), (t, kind.as_str()));
        // Nothing to track: an empty lane.
        let mut v: serde_json::Value = serde_json::from_str(DEFAULT_SCENARIO).unwrap();
        v["obstacles"] = serde_json::json!([]);
        let empty = Scenario::from_json_str("empty", &v.to_string()).unwrap();
        let mut log = Vec::new();
        let s2 = run(&c, &empty, empty.route().unwrap(), Some(&mut log)).unwrap();
        let text = String::from_utf8(log).unwrap();
        assert!(!text.contains("\"tracks\"") && !text.contains("moving_decision"));
        assert!(s2.moving_first_action.is_none());
    }

    #[test]
    fn the_opening_figure_stops_before_the_object() {
        // vehicle-software.md: the vehicle steers onto the path and stops 2.4 m or more
        // before the object (the obstacle margin of gravel), here at most 3.5 m.
        let s = default_run(None);
        assert!(!s.collided, "{s:?}");
        assert!(s.stopped, "{s:?}");
        let gap = s.gap_m.unwrap();
        assert!((2.4..=3.5).contains(&gap), "gap {gap} m: {s:?}");
        assert!(s.interventions.get("obstacle").copied().unwrap_or(0) > 0);
        // Stopped by the object, short of the route's end.
        assert!(!s.finished_route, "{s:?}");
    }

    #[test]
    fn two_runs_give_identical_logs() {
        let mut a = Vec::new();
        let mut b = Vec::new();
        default_run(Some(&mut a));
        default_run(Some(&mut b));
        assert!(!a.is_empty());
        assert_eq!(a, b);
    }

    /// A run without a log (no reports built, each scan cast into the last one's memory)
    /// ends as the same run with one, and as a session stepped without handing its scans
    /// back; a scene with a walking person, so that the moving-object rule counts too.
    #[test]
    fn a_run_without_a_log_ends_as_one_with_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let f = root.join("data/scenarios/crossing_person.json");
        let s = Scenario::load(Some(&f)).unwrap();
        let cfg = Config::builtin();
        let mut log = Vec::new();
        let logged = run(&cfg, &s, s.route().unwrap(), Some(&mut log)).unwrap();
        let quiet = run(&cfg, &s, s.route().unwrap(), None).unwrap();
        let mut by_hand = Session::new(&cfg, &s, s.route().unwrap()).unwrap();
        while !by_hand.ended() {
            by_hand.step(Request::Driver, None).unwrap();
        }
        assert!(!logged.interventions.is_empty(), "{logged:?}");
        assert_eq!(format!("{logged:?}"), format!("{quiet:?}"));
        assert_eq!(format!("{logged:?}"), format!("{:?}", by_hand.summary()));
    }

    /// A session stepped by hand: a fixed command is still limited by the shield and
    /// drives the vehicle; the end is reached and a step after it is an error.
    #[test]
    fn a_session_drives_a_fixed_command_through_the_shield() {
        let s = Scenario::from_json_str("opening.json", DEFAULT_SCENARIO).unwrap();
        let mut sess = Session::new(&Config::builtin(), &s, s.path(None).unwrap()).unwrap();
        let fast = Request::Command(crate::chain::shield::Command {
            curvature_per_m: 0.0,
            speed_mps: 20.0,
        });
        let mut top: f64 = 0.0;
        while !sess.ended() {
            let st = sess.step(fast.clone(), None).unwrap();
            assert_eq!(st.row.source, crate::chain::Source::Fixed);
            assert!(st.row.speed_mps <= 7.8 + 1e-9, "{}", st.row.speed_mps);
            top = top.max(st.state.speed_mps);
        }
        assert!(top > 2.0, "the vehicle never drove ({top} m/s)");
        assert!(!sess.summary().collided, "{:?}", sess.summary());
        assert!(matches!(
            sess.step(Request::Driver, None),
            Err(SimError::Ended)
        ));
    }

    /// Runs a scenario given as text; its summary and log records.
    fn run_logged(name: &str, text: &str) -> (Summary, Vec<LogRecord>) {
        let s = Scenario::from_json_str(name, text).unwrap();
        let mut log = Vec::new();
        let sum = run(
            &Config::builtin(),
            &s,
            s.path(None).unwrap(),
            Some(&mut log),
        )
        .unwrap();
        let recs = log
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        (sum, recs)
    }

    /// An approach to an object on a `slope_pct` grade rising toward `dir` (0: uphill)
    /// at `speed` on gravel: the vehicle stops at d_m (2.4 m) or beyond, comes to rest and
    /// stays there (no relaunch, no roll back) through the end of the run.
    fn approach_settles(slope_pct: f64, dir: f64, speed: f64) {
        let mut v: serde_json::Value = serde_json::from_str(DEFAULT_SCENARIO).unwrap();
        v["ground"]["slope_pct"] = slope_pct.into();
        v["ground"]["slope_dir_deg"] = serde_json::json!(dir);
        v["start"] = serde_json::json!({"x_m": 0, "y_m": 0, "yaw_rad": 0, "speed_mps": speed});
        for p in v["route"]["points"].as_array_mut().unwrap() {
            p["speed_mps"] = speed.into();
        }
        v["obstacles"] =
            serde_json::json!([{"circle": {"x_m": 50.0, "y_m": 0.0, "radius_m": 0.4}}]);
        v["duration_s"] = 40.0.into();
        let (sum, recs) = run_logged("grade.json", &v.to_string());
        let what = format!("{slope_pct} % toward {dir}°, {speed} m/s: {sum:?}");
        assert!(!sum.collided && sum.stopped, "{what}");
        assert!(sum.gap_m.unwrap() >= 2.4, "{what}");
        let rest = sum.at_rest_since_s.unwrap();
        assert!(rest < 30.0, "{what}");
        // Once at rest it does not relaunch (it may inch on toward d_m under the
        // shield's cap, below 0.1 m/s) nor roll back (1 mm at most).
        let xs: Vec<(f64, f64, f64)> = recs
            .iter()
            .map(|r| (r.t, r.state.pose.x_m, r.state.speed_mps))
            .collect();
        let first = xs.iter().position(|(_, _, v)| v.abs() < REST_MPS).unwrap();
        let mut far = xs[first].1;
        for (t, x, v) in &xs[first..] {
            assert!(v.abs() < 0.1, "{what}: relaunched to {v} m/s at {t} s");
            assert!(x - far > -0.001, "{what}: rolled back to {x} at {t} s");
            far = far.max(*x);
        }
    }

    /// On 9 %, up and down, at 3 and 6.9 m/s.
    #[test]
    fn approaches_on_9_percent_grades_settle_at_their_stop() {
        for (dir, speed) in [(0.0, 3.0), (0.0, 6.9), (180.0, 3.0), (180.0, 6.9)] {
            approach_settles(9.0, dir, speed);
        }
    }

    /// On a 30 % uphill (the old ULC stopped, rolled back 0.25 to 0.40 m and relaunched
    /// for the rest of the run).
    #[test]
    fn approaches_on_a_30_percent_uphill_settle_at_their_stop() {
        for speed in [3.0, 6.9] {
            approach_settles(30.0, 0.0, speed);
        }
    }

    /// The shipped farmyard route: 80 m forward, then 18 m in reverse at 1 m/s. The ULC
    /// controls the speed along the gear, so the reverse leg holds about 1 m/s (it ran
    /// away to 11 m/s backwards, and lifted a wheel, when it compared the command's
    /// magnitude with the signed speed).
    #[test]
    fn the_reverse_leg_holds_its_speed() {
        let text = r#"{"name": "yard", "ground": {"class": "concrete", "state": "dry"},
            "route": "yard_reverse.json", "start": {"x_m": 0, "y_m": 0, "yaw_rad": 1.5707963267948966},
            "duration_s": 90}"#;
        let (sum, recs) = run_logged("yard.json", text);
        assert!(sum.stopped && !sum.collided && !sum.wheel_lift, "{sum:?}");
        assert!(sum.finished_route, "{sum:?}");
        assert!((95.0..112.0).contains(&sum.distance_m), "{sum:?}");
        let slowest = recs
            .iter()
            .map(|r| r.state.speed_mps)
            .fold(0.0f64, f64::min);
        assert!(
            (-1.6..-0.8).contains(&slowest),
            "fastest backwards {slowest} m/s"
        );
    }

    /// A run across a side slope (rising to the left of the lane) on `ground`.
    fn across(class: &str, state: &str, slope_pct: f64) -> Summary {
        across_logged(class, state, slope_pct).0
    }

    fn across_logged(class: &str, state: &str, slope_pct: f64) -> (Summary, Vec<LogRecord>) {
        let text = format!(
            r#"{{"name": "side", "ground": {{"class": "{class}", "state": "{state}",
            "slope_pct": {slope_pct}, "slope_dir_deg": 90}},
            "route": "straight_lane.json", "start": {{"x_m": 0, "y_m": 0, "yaw_rad": 0, "speed_mps": 3}},
            "duration_s": 20}}"#
        );
        run_logged("side.json", &text)
    }

    /// Issue 65: a rollover is in the log, not only in the summary: a record shows the
    /// wheels lifting before the first that shows the vehicle rolled over, the last record
    /// shows it rolled over, and a run that keeps its wheels down logs neither.
    #[test]
    fn the_log_shows_the_wheels_lift_and_the_rollover() {
        let (_, recs) = across_logged("asphalt", "dry", 85.0);
        let first_roll = recs.iter().position(|r| r.rolled_over).expect("a rollover");
        let first_lift = recs.iter().position(|r| r.wheel_lift).expect("a lift");
        assert!(first_lift <= first_roll, "{first_lift} {first_roll}");
        assert!(recs.last().unwrap().rolled_over);
        assert!(recs[..first_roll].iter().all(|r| !r.rolled_over));
        let (_, fine) = across_logged("asphalt", "dry", 55.0);
        assert!(fine.iter().all(|r| !r.wheel_lift && !r.rolled_over));
    }

    /// Across an 85 % side slope (above the rollover threshold, about 75 %) the vehicle
    /// rolls over: the run ends there and the verdict fails; across 55 % of dry asphalt
    /// it drives on (no lift), and across 55 % of wet grass (μ 0.35) the tires cannot
    /// hold it and it slides off the lane downhill.
    #[test]
    fn a_rollover_ends_the_run_as_a_failure_and_a_slide_is_reported() {
        let over = across("asphalt", "dry", 85.0);
        assert!(over.rolled_over && over.wheel_lift, "{over:?}");
        assert!(over.time_s < 5.0, "{over:?}");
        let (line, ok) = over.verdict();
        assert!(!ok && line.contains("rolled over"), "{line}");
        let fine = across("asphalt", "dry", 55.0);
        assert!(
            !fine.rolled_over && !fine.wheel_lift && fine.slide.is_none(),
            "{fine:?}"
        );
        let slid = across("grass", "wet", 55.0);
        let s = slid.slide.expect("a slide");
        assert!(s.first_s < 1.0 && s.max_offset_m > 0.5, "{slid:?}");
        assert!(!slid.rolled_over, "{slid:?}");
    }

    fn assert_holds(what: &str, r: crate::jobs::measure::HoldTest) {
        let t = r.rest_s.unwrap_or_else(|| panic!("{what}: never at rest"));
        assert!(t <= 3.7, "{what}: at rest after {t} s");
        assert!(r.moved_m <= 0.009, "{what}: moved {} m", r.moved_m);
    }

    /// vehicle-software.md "Validation", hold_tests: from 3 m/s a stop command held for
    /// 45 s on planes of 3.2 %, 5 % and 8 %, uphill and downhill, on several classes: at
    /// rest in 3.7 s or less, and 9 mm or less of motion in the 30 s after.
    #[test]
    fn hold_tests_on_slopes() {
        use crate::chain::envelope::GroundClass;
        use crate::plant::vehicle::GroundState;
        let cfg = Config::builtin();
        let start = StartPose {
            speed_mps: 3.0,
            ..StartPose::default()
        };
        for class in [
            GroundClass::Asphalt,
            GroundClass::Gravel,
            GroundClass::Grass,
            GroundClass::Field,
        ] {
            for state in [GroundState::Dry, GroundState::Wet] {
                for slope in [3.2, 5.0, 8.0, -3.2, -5.0, -8.0] {
                    let plane = Plane {
                        class: Some(class),
                        state,
                        slope_pct: slope,
                        slope_dir_deg: 0.0,
                    };
                    let r = crate::jobs::measure::hold_test(&cfg, World::new(plane, vec![]), start);
                    assert_holds(&format!("{class} {state:?} {slope} %"), r);
                }
            }
        }
    }

    /// The same on the steepest windows of the shipped map's lanes (the terrace and
    /// the creek, to 9 %, as the reference's map): 8 windows, uphill and downhill, dry and wet.
    #[test]
    fn hold_tests_on_the_steep_lane_windows_of_the_map() {
        use crate::ground::map::Map;
        use crate::plant::vehicle::GroundState;
        let cfg = Config::builtin();
        let map = Arc::new(Map::builtin_farm());
        let plane = |state| Plane {
            class: None,
            state,
            slope_pct: 0.0,
            slope_dir_deg: 0.0,
        };
        let picked = crate::jobs::measure::steep_lane_windows(&map, 8, 30.0);
        assert_eq!(picked.len(), 8);
        assert!(
            (0.085..=0.0905).contains(&picked[0].grade.abs()),
            "steepest lane window {} %",
            picked[0].grade * 100.0
        );
        assert!(
            picked[7].grade.abs() >= 0.06,
            "8th window {} %",
            picked[7].grade * 100.0
        );
        for w in picked {
            let (grade, x, y, yaw) = (w.grade, w.x_m, w.y_m, w.yaw_rad);
            for dir in [0.0, std::f64::consts::PI] {
                for state in [GroundState::Dry, GroundState::Wet] {
                    let world = World::new(plane(state), vec![]).with_map(map.clone());
                    let start = StartPose {
                        x_m: x,
                        y_m: y,
                        yaw_rad: yaw + dir,
                        speed_mps: 3.0,
                    };
                    let r = crate::jobs::measure::hold_test(&cfg, world, start);
                    let what = format!("({x}, {y}) yaw {:.2} {state:?}, grade {grade}", yaw + dir);
                    assert_holds(&what, r);
                }
            }
        }
    }

    #[test]
    fn an_obstacle_over_the_start_is_refused() {
        let mut s = Scenario::from_json_str("opening.json", DEFAULT_SCENARIO).unwrap();
        s.obstacles.push(Obstacle::Circle {
            x_m: 1.0,
            y_m: 2.2,
            radius_m: 0.3,
        });
        let p = s.path(None).unwrap();
        let e = run(&Config::builtin(), &s, p, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("obstacles[1]") && e.contains("start"), "{e}");
    }

    #[test]
    fn bad_scenarios_name_the_key() {
        let bad = DEFAULT_SCENARIO.replace("\"duration_s\"", "\"duration\"");
        let e = Scenario::from_json_str("s.json", &bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("s.json") && e.contains("duration"), "{e}");
        let empty = r#"{"ground": {"class": "gravel"}, "route": {"name": "r", "points": []},
            "start": {"x_m": 0, "y_m": 0, "yaw_rad": 0}, "duration_s": 5}"#;
        let e = Scenario::from_json_str("e.json", empty)
            .unwrap()
            .path(None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("e.json") && e.contains("`route`"), "{e}");
        let bad = DEFAULT_SCENARIO.replace("\"duration_s\": 40.0", "\"duration_s\": -1");
        let e = Scenario::from_json_str("s.json", &bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("duration_s"), "{e}");
    }

    /// The opening figure with a person who walks into the side of the vehicle after it
    /// has stopped before the object: the contact is the person's, not the vehicle's.
    #[test]
    fn a_person_walking_into_the_standing_vehicle_is_told_apart() {
        let mut v: serde_json::Value = serde_json::from_str(DEFAULT_SCENARIO).unwrap();
        v["duration_s"] = 40.0.into();
        let (sum, recs) = run_logged("stop.json", &v.to_string());
        let rest = sum.at_rest_since_s.unwrap();
        // Across the body, 1 m ahead of the rear axle where it stands.
        let x = recs.last().unwrap().state.pose.x_m + 1.0;
        v["actors"] = serde_json::json!([{"name": "walker", "kind": "person",
            "motion": {"waypoints": [{"t_s": 0, "x_m": x, "y_m": -6.0}, {"t_s": 10, "x_m": x, "y_m": 8.0}]},
            "start": {"at_s": rest + 2.0}}]);
        let (hit, _) = run_logged("walk.json", &v.to_string());
        assert!(sum.contacts.is_empty());
        let c = &hit.contacts[0];
        assert_eq!(
            (c.by, c.kind.as_str(), c.name.as_str()),
            (ContactBy::Actor, "person", "walker")
        );
        assert!(c.ego_speed_mps.abs() < REST_MPS && (c.actor_speed_mps - 1.4).abs() < 1e-9);
        assert!(c.t_s > rest + 2.0 && hit.collided);
    }

    /// The tractor of issue [machines]: 6.5 x 2.2 m, standing at (70, -14) heading north,
    /// sets off across the gravel lane at 3 m/s 5.5 s into the run, timed to meet the
    /// vehicle at 6.9 m/s. With the travel test its faces are structure until a fragment
    /// shows up 3 s later and the vehicle strikes it; the free-space test sees it move
    /// within 0.6 s and the vehicle does not touch it.
    #[test]
    fn the_crossing_tractor_is_seen_at_once_with_the_free_space_test() {
        use crate::chain::tracker::MotionTest;
        let text = serde_json::json!({"name": "tractor",
            "ground": {"class": "gravel", "state": "dry"},
            "route": "straight_lane.json", "duration_s": 40.0, "record_scan": false,
            "start": {"x_m": 0.0, "y_m": 0.0, "yaw_rad": 0.0, "speed_mps": 6.9},
            "actors": [{"name": "tractor",
                "kind": {"object": {"polygon": {"points":
                    [[3.25, 1.1], [-3.25, 1.1], [-3.25, -1.1], [3.25, -1.1]]}}},
                "motion": {"straight": {"x_m": 70.0, "y_m": -14.0,
                    "heading_rad": std::f64::consts::FRAC_PI_2, "speed_mps": 3.0, "distance_m": 28.0}},
                "start": {"at_s": 5.5}, "end": "stop"}]})
        .to_string();
        let s = Scenario::from_json_str("tractor.json", &text).unwrap();
        let run_with = |test: MotionTest| {
            let mut c = Config::builtin();
            c.control.tracker.motion_test = test;
            run(&c, &s, s.path(None).unwrap(), None).unwrap()
        };
        let travel = run_with(MotionTest::Travel);
        assert!(
            travel.contacts.iter().any(|c| c.by == ContactBy::Vehicle),
            "the travel test no longer strikes it: {:?}",
            travel.contacts
        );
        let free = run_with(MotionTest::FreeSpace);
        assert!(free.contacts.is_empty(), "{:?}", free.contacts);
        let first = free.moving_first_action.expect("the rule acted");
        assert!(first.t_s - 5.5 <= 0.6, "first action at {:.2} s", first.t_s);
    }

    /// No moving object, no cost: the opening figure's gap and the field loop's time
    /// with the moving-object rule on are those of the rule off.
    #[test]
    fn static_scenes_are_the_same_with_the_moving_object_rule() {
        for file in ["opening.json", "field_loop_dry.json"] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("data/scenarios")
                .join(file);
            let s = Scenario::load(Some(&path)).unwrap();
            let summary = |mode| {
                let mut c = Config::builtin();
                c.control.shield.moving_obstacle = mode;
                run(&c, &s, s.route().unwrap(), None).unwrap()
            };
            let (off, on) = (summary(MovingMode::Off), summary(MovingMode::Tracker));
            assert!(
                (on.time_s - off.time_s).abs() <= 0.02 * off.time_s,
                "{file}: {on:?} {off:?}"
            );
            if let (Some(a), Some(b)) = (on.gap_m, off.gap_m) {
                assert!((a - b).abs() <= 0.02 * b, "{file}: gap {a} vs {b}");
            }
            assert_eq!(on.interventions.get("moving_obstacle"), None, "{file}");
        }
    }
}

/// The logs of the shipped scenarios are pinned: an optimisation must leave them identical
/// byte for byte (tests/data/log_hashes.txt: SHA-256 of each log, each scenario in each
/// mode of the moving-object rule). `ACRES_BLESS=1` rewrites the file after a change that
/// is meant to change them (say why in the commit).
#[cfg(test)]
mod pinned {
    use super::*;
    use crate::config::MovingMode;
    use sha2::{Digest, Sha256};

    #[test]
    fn shipped_scenario_logs_are_unchanged() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files: Vec<_> = std::fs::read_dir(root.join("data/scenarios"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        let mut lines = String::new();
        for f in &files {
            let s = Scenario::load(Some(f)).unwrap();
            for mode in [MovingMode::Off, MovingMode::Tracker, MovingMode::Oracle] {
                let mut cfg = Config::builtin();
                cfg.control.shield.moving_obstacle = mode;
                let mut log = Vec::new();
                run(&cfg, &s, s.route().unwrap(), Some(&mut log)).unwrap();
                let name = f.file_name().unwrap().to_string_lossy();
                let hex: String = Sha256::digest(&log)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                lines.push_str(&format!("{hex}  {name} {mode:?}\n"));
            }
        }
        let pinned = root.join("tests/data/log_hashes.txt");
        if std::env::var_os("ACRES_BLESS").is_some() {
            std::fs::write(&pinned, &lines).unwrap();
        }
        let want = std::fs::read_to_string(&pinned).unwrap();
        assert_eq!(
            lines, want,
            "a shipped scenario's log changed (see the module's note)"
        );
    }
}
