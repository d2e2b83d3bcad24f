//! The command chain (vehicle-software.md "What the Model Does", layers 3 to 6): the
//! default driver or an accepted proposal, the shield, then the gear logic, the launch
//! hold and the actuator limits, giving one command row per control step (50 Hz).
//!
//! The chain is deterministic: the same inputs in the same order give the same rows,
//! bit for bit. Its only memory is the driver's place on the path and the last output.

use crate::chain::checker::{Chunk, StartState, TrajectoryChecker, convert};
use crate::chain::driver::{Driver, DriverOutput, DriverState};
use crate::chain::envelope::{Grip, GroundClass};
use crate::chain::path::Path;
use crate::chain::scan::{Scan, ScanError};
use crate::chain::shield::{
    Command, Intervention, MovingDecision, Pose, Shield, ShieldInput, ShieldOutput, ShieldScratch,
};
use crate::chain::tracker::{MovingObject, Tracker};
use crate::config::{ChainConfig, Config, MovingMode};
use serde::{Deserialize, Serialize};

/// The control rate of the chain, Hz.
pub const CONTROL_HZ: u32 = 50;

/// The control period, s.
const CONTROL_DT_S: f64 = 1.0 / CONTROL_HZ as f64;

/// A gear of the Polaris, with the numbers of vehicle-bridge.md `gear_cmd`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gear {
    Park = 1,
    Reverse = 2,
    Neutral = 3,
    High = 4,
    Low = 5,
}

impl Gear {
    /// The gear of a number of the bridge protocol.
    pub fn from_number(n: u8) -> Option<Gear> {
        Some(match n {
            1 => Gear::Park,
            2 => Gear::Reverse,
            3 => Gear::Neutral,
            4 => Gear::High,
            5 => Gear::Low,
            _ => return None,
        })
    }

    /// The number of the bridge protocol.
    pub fn number(self) -> u8 {
        self as u8
    }

    /// Whether the gear drives in the direction of a speed's sign.
    fn drives(self, speed_mps: f64) -> bool {
        if speed_mps > 0.0 {
            matches!(self, Gear::High | Gear::Low)
        } else if speed_mps < 0.0 {
            self == Gear::Reverse
        } else {
            true
        }
    }
}

/// The measured state of the vehicle.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VehicleState {
    pub pose: Pose,
    /// Signed speed, m/s (negative in reverse).
    pub speed_mps: f64,
    /// Yaw rate, rad/s, positive left.
    pub yaw_rate_rps: f64,
    /// The gear engaged.
    pub gear: Gear,
    /// The grade along the heading, rise over run (uphill positive), as the vehicle
    /// measures it (its pitch) or the map gives it; 0 where unknown (logs omit it then).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub grade: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// A proposer's chunk for this step (the checker decides whether it drives). Its start
/// state is replaced by the vehicle's measured state before it is checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    pub id: u64,
    pub chunk: Chunk,
}

/// The verdict of a proposal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// The checker accepts it: it drives, and the shield still limits it.
    Accepted,
    /// The checker refuses it at `index` for `reason`; the default driver drives.
    Refused { reason: String, index: usize },
    /// No checker is loaded (the reference's ACRES_RT_REASON_NO_CHECKER); the default
    /// driver drives.
    NoChecker,
}

/// What judges proposals; the trajectory checker implements it.
pub trait Checker: std::fmt::Debug + Send + Sync {
    /// The verdict of a chunk on the route.
    fn check(&self, chunk: &Chunk, route: &Path) -> Verdict;
}

impl Checker for TrajectoryChecker {
    fn check(&self, chunk: &Chunk, route: &Path) -> Verdict {
        let r = TrajectoryChecker::check(self, chunk, route, None, &mut Vec::new());
        match (r.accepted, r.reason) {
            (true, _) => Verdict::Accepted,
            (false, reason) => Verdict::Refused {
                reason: reason.map_or("malformed", |r| r.code()).to_string(),
                index: r.first_index.unwrap_or(0),
            },
        }
    }
}

/// The command of an accepted chunk at a station: the speed and the steering curvature
/// interpolated between the samples around it (held beyond its ends).
pub fn chunk_command(chunk: &Chunk, route: &Path, station_m: f64) -> Command {
    let mut s = Vec::new();
    convert(chunk, route, &mut s);
    let sign = chunk.direction.sign();
    let n = s.len();
    let k = s
        .partition_point(|x| x.station_m <= station_m)
        .clamp(1, n.max(1))
        - 1;
    let (a, b) = (&s[k], &s[(k + 1).min(n - 1)]);
    let t = if b.station_m > a.station_m {
        ((station_m - a.station_m) / (b.station_m - a.station_m)).clamp(0.0, 1.0)
    } else {
        0.0
    };
    Command {
        curvature_per_m: sign * (a.curvature_per_m + t * (b.curvature_per_m - a.curvature_per_m)),
        speed_mps: sign * (a.speed_mps + t * (b.speed_mps - a.speed_mps)),
    }
}

/// Who gave the command of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Driver,
    Proposal,
    /// A fixed request of a test rig (the steering step of vehicle-software.md
    /// "Validation"), in place of the driver's command.
    Fixed,
}

/// The output of one control step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandRow {
    /// The control step (50 Hz).
    pub step: u64,
    /// The time of the step, s.
    pub time_s: f64,
    pub source: Source,
    /// The command before the shield.
    pub requested: Command,
    /// The curvature of the row, 1/m.
    pub curvature_per_m: f64,
    /// The speed of the row, m/s (negative in reverse).
    pub speed_mps: f64,
    /// The gear to engage.
    pub gear: Gear,
    /// Whether the brake holds the vehicle (a stop, a shift, the launch hold).
    pub brake_hold: bool,
    /// The shield's interventions, in the order of its rules.
    pub interventions: Vec<Intervention>,
    /// The verdict of this step's proposal, where there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// The free distance of the obstacle rule, m.
    pub obstacle_distance_m: f64,
    /// The ground class under the vehicle.
    pub class: Option<GroundClass>,
    /// The vehicle's station on the path, m.
    pub station_m: f64,
    /// The lateral offset from the path, m, positive left.
    pub lateral_m: f64,
    /// Whether the vehicle stands at the end of the path.
    pub finished: bool,
}

/// An error of a chain step: an input that is not a state or a scan.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ChainError {
    #[error("vehicle state: `{0}` is not a finite number")]
    State(&'static str),
    #[error(transparent)]
    Scan(#[from] ScanError),
    #[error("the envelope has no `{0}` grip table")]
    NoGripTable(Grip),
}

/// One step's input.
#[derive(Debug, Clone, Copy)]
pub struct ChainInput<'a> {
    pub step: u64,
    pub state: VehicleState,
    pub scan: &'a Scan,
    pub proposal: Option<&'a Proposal>,
}

/// The command chain of one mission.
#[derive(Debug)]
pub struct Chain {
    path: Path,
    driver: Driver,
    shield: Shield,
    checker: Option<Box<dyn Checker>>,
    cfg: ChainConfig,
    driver_state: DriverState,
    /// The last command sent; before the first step, the vehicle's state.
    last: Option<Command>,
    scratch: ShieldScratch,
    /// The moving-object rule's source, its tracker and this step's objects.
    moving_mode: MovingMode,
    tracker: Tracker,
    moving: Vec<MovingObject>,
    /// What the moving-object rule decided at the last step (reported, never fed back:
    /// each step judges a pass anew).
    decision: MovingDecision,
    /// The time and measured speed (magnitude) of the last step, for the deceleration.
    last_speed: Option<(f64, f64)>,
    /// The time of the step being taken and of the last one, where a log gives them
    /// ([`Chain::set_time`]); else step × 1/50 s.
    time: Option<f64>,
    last_time: Option<f64>,
}

impl Chain {
    /// A chain for `path` with the configuration at a grip level.
    pub fn new(config: &Config, path: Path, grip: Grip) -> Result<Chain, ChainError> {
        let shield = Shield::new(config, grip).ok_or(ChainError::NoGripTable(grip))?;
        let table = config
            .envelope
            .table(grip)
            .ok_or(ChainError::NoGripTable(grip))?;
        Ok(Chain {
            driver: Driver::new(
                &config.scouting,
                config.control.shield.curvature_max_per_m,
                table,
            ),
            path,
            shield,
            checker: None,
            cfg: config.control.chain.clone(),
            driver_state: DriverState::default(),
            last: None,
            scratch: ShieldScratch::default(),
            moving_mode: config.control.shield.moving_obstacle,
            tracker: Tracker::new(config.control.tracker),
            moving: Vec::new(),
            decision: MovingDecision::None,
            last_speed: None,
            time: None,
            last_time: None,
        })
    }

    /// Loads a checker: from now on proposals get its verdicts.
    pub fn with_checker(mut self, checker: Box<dyn Checker>) -> Chain {
        self.checker = Some(checker);
        self
    }

    /// Replaces the shield (a geofence, other limits).
    pub fn with_shield(mut self, shield: Shield) -> Chain {
        self.shield = shield;
        self
    }

    /// Sets what the moving-object rule sees (the configuration's by default).
    pub fn with_moving(mut self, mode: MovingMode) -> Chain {
        self.moving_mode = mode;
        self
    }

    /// The true moving objects for the next step, in the oracle mode (ignored otherwise).
    pub fn set_oracle(&mut self, objects: impl IntoIterator<Item = MovingObject>) {
        if self.moving_mode == MovingMode::Oracle {
            self.moving.clear();
            self.moving.extend(objects);
        }
    }

    /// Sets the time of the next step, s, for a log whose steps are not 50 Hz apart (a
    /// 10 Hz log): the rate limits of the speed and the curvature and the tracker follow
    /// the time since the last step, and the row carries this time (see `step_dt`). A
    /// time not after the last step's (a duplicated or backward stamp) takes one control
    /// period.
    pub fn set_time(&mut self, t_s: f64) {
        self.time = Some(t_s);
    }

    /// The time of this step: step × 1/50 s, or the log's where it is half a period or
    /// more away from that.
    fn step_time(&self, input: &ChainInput) -> f64 {
        let nominal = input.step as f64 * CONTROL_DT_S;
        match self.time {
            Some(t) if (t - nominal).abs() >= 0.5 * CONTROL_DT_S => t,
            _ => nominal,
        }
    }

    /// The period since the last step, s: one control period, unless a log's times are
    /// more than half a period away from it (a 10 Hz or 25 Hz log). A 50 Hz log whose
    /// stamps jitter (a sim log stamps each step with the physics time at 120 Hz, 1/60 s
    /// or 1/40 s apart) keeps 1/50 s, so its replay stays bit for bit.
    fn step_dt(&self) -> f64 {
        match (self.time, self.last_time) {
            (Some(t), Some(p)) if t > p && ((t - p) - CONTROL_DT_S).abs() > 0.5 * CONTROL_DT_S => {
                t - p
            }
            _ => CONTROL_DT_S,
        }
    }

    /// Finds the vehicle on the path anew after a jump of its pose (a relocalisation, a
    /// gap in a log, two drives joined): the projection searches every part of the path
    /// instead of a window around the last one, and the tracker starts over (its tracks
    /// would have moved with the jump).
    pub fn relocate(&mut self, pose: Pose) {
        let here = geo::Coord {
            x: pose.x_m,
            y: pose.y_m,
        };
        let mut best = (f64::INFINITY, 0, None);
        for (k, part) in self.path.parts().iter().enumerate() {
            let p = self.path.project(here, part, None);
            let d = (p.point.x - here.x).hypot(p.point.y - here.y);
            if d < best.0 {
                best = (d, k, Some(p.segment));
            }
        }
        self.driver_state = DriverState {
            part: best.1,
            hint: best.2,
        };
        self.tracker = Tracker::new(self.tracker.config());
        self.decision = MovingDecision::None;
        self.last_speed = None;
    }

    /// The path driven.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The driver's part of the path and its last projection's segment (where one was made).
    pub fn place(&self) -> (usize, Option<usize>) {
        (self.driver_state.part, self.driver_state.hint)
    }

    /// The shield.
    pub fn shield(&self) -> &Shield {
        &self.shield
    }

    /// The moving objects the moving-object rule saw at the last step (the tracker's, or
    /// the true ones in the oracle mode; none with the rule off).
    pub fn moving_objects(&self) -> &[MovingObject] {
        &self.moving
    }

    /// Whether the moving-object rule stood aside at the last step to let the vehicle pass
    /// in front of an object.
    pub fn passing(&self) -> bool {
        self.decision == MovingDecision::Pass
    }

    /// What the moving-object rule decided at the last step.
    pub fn moving_decision(&self) -> MovingDecision {
        self.decision
    }

    /// Every track of the tracker at the last step (none unless the rule runs on the
    /// tracker), as a log shows them.
    pub fn tracks(&self, out: &mut Vec<crate::chain::tracker::TrackView>) {
        out.clear();
        if self.moving_mode == MovingMode::Tracker {
            self.tracker.tracks(self.tracker.last_time_s(), out);
        }
    }

    /// One control step.
    pub fn step(&mut self, input: &ChainInput) -> Result<CommandRow, ChainError> {
        Ok(self.step_inner(input, None, None)?.0)
    }

    /// One control step that also judges another command (a logged one) at the same
    /// instant: the interventions the shield would have made to it, empty where it broke
    /// no rule.
    pub fn step_judging(
        &mut self,
        input: &ChainInput,
        other: Command,
    ) -> Result<(CommandRow, Vec<Intervention>), ChainError> {
        self.step_inner(input, None, Some(other))
    }

    /// One control step with a fixed request in place of the driver's and the
    /// proposal's: the shield, the actuator limits and the gear logic as in [`Chain::step`].
    pub fn step_fixed(
        &mut self,
        input: &ChainInput,
        request: Command,
    ) -> Result<CommandRow, ChainError> {
        Ok(self.step_inner(input, Some(request), None)?.0)
    }

    /// One step of the chain's layers (vehicle-software.md "What the Model Does", 3 to 6):
    /// the request (driver, proposal or a fixed command), the shield, then the actuator
    /// limits, the gear logic and the launch hold. `judge` is another command that the
    /// shield judges at the same instant.
    fn step_inner(
        &mut self,
        input: &ChainInput,
        fixed: Option<Command>,
        judge: Option<Command>,
    ) -> Result<(CommandRow, Vec<Intervention>), ChainError> {
        let st = &input.state;
        check_state(st)?;
        self.shield.geometry().check(input.scan)?;
        let last = self.start_or_last(st);

        let drv = self
            .driver
            .step(&self.path, &mut self.driver_state, st.pose, st.speed_mps);
        let (mut source, mut requested, verdict) = self.request(input, &drv, last);
        if let Some(f) = fixed {
            source = Source::Fixed;
            requested = f;
        }

        let part = self.path.parts()[self.driver_state.part].clone();
        self.see_moving(input);
        let decel = self.measured_decel(input);
        let sin = ShieldInput {
            pose: st.pose,
            speed_mps: st.speed_mps,
            scan: input.scan,
            reference_curvature_per_m: drv.reference_curvature_per_m,
            reference: Some((&self.path, &part, drv.projection.station_m)),
            class: drv.class,
            grade: st.grade,
            moving: &self.moving,
            decel_mps2: decel,
        };
        self.scratch.begin_step();
        let judged = judge
            .map(|c| {
                self.shield
                    .limit_with(c, &sin, &mut self.scratch)
                    .interventions
            })
            .unwrap_or_default();
        let dt = self.step_dt();
        let shielded = shield_and_rate(
            &self.shield,
            &mut self.scratch,
            &sin,
            requested,
            last,
            self.cfg.curvature_rate_max_per_m_s * dt,
        );
        self.decision = shielded.moving;
        let (v, gear, brake_hold) = gear_logic(&self.cfg, st, shielded.command.speed_mps, last, dt);
        let out = Command {
            curvature_per_m: shielded.command.curvature_per_m,
            speed_mps: v,
        };
        self.last = Some(out);
        let row = CommandRow {
            step: input.step,
            time_s: self.step_time(input),
            source,
            requested,
            curvature_per_m: out.curvature_per_m,
            speed_mps: out.speed_mps,
            gear,
            brake_hold,
            interventions: shielded.interventions,
            verdict,
            obstacle_distance_m: shielded.obstacle_distance_m,
            class: drv.class,
            station_m: drv.projection.station_m,
            lateral_m: drv.projection.lateral_m,
            finished: drv.finished,
        };
        self.last_time = self.time.take();
        Ok((row, judged))
    }

    /// The moving objects of this step: none with the rule off, the tracker's from the
    /// scan, or those the oracle set.
    fn see_moving(&mut self, input: &ChainInput) {
        match self.moving_mode {
            MovingMode::Off => self.moving.clear(),
            MovingMode::Tracker => {
                let t = self.step_time(input);
                let geometry = self.shield.geometry();
                self.tracker
                    .update(t, input.state.pose, input.scan, geometry);
                self.tracker.moving(&mut self.moving);
            }
            MovingMode::Oracle => {}
        }
    }

    /// The vehicle's deceleration since the last step, m/s² (positive slowing, 0 at the
    /// first step or after a relocation), and this step's speed kept for the next.
    fn measured_decel(&mut self, input: &ChainInput) -> f64 {
        let (t, v) = (self.step_time(input), input.state.speed_mps.abs());
        let decel = match self.last_speed {
            Some((t0, v0)) if t > t0 => ((v0 - v) / (t - t0)).max(0.0),
            _ => 0.0,
        };
        self.last_speed = Some((t, v));
        decel
    }

    /// The last command sent. The first step starts the limits from the vehicle's motion:
    /// its speed and the curvature of its yaw rate (0 when standing), so that a moving
    /// start is not braked to ramp up again.
    fn start_or_last(&mut self, st: &VehicleState) -> Command {
        let standstill = self.cfg.standstill_mps;
        *self.last.get_or_insert_with(|| {
            let moving = st.speed_mps.abs() >= standstill;
            let k = if moving {
                st.yaw_rate_rps / st.speed_mps
            } else {
                0.0
            };
            Command {
                curvature_per_m: if k.is_finite() { k } else { 0.0 },
                speed_mps: if moving { st.speed_mps } else { 0.0 },
            }
        })
    }

    /// Layers 3 and 4: the driver's command, or the proposal's where the checker accepts
    /// it; the verdict of the proposal, if there is one.
    fn request(
        &self,
        input: &ChainInput,
        drv: &DriverOutput,
        last: Command,
    ) -> (Source, Command, Option<Verdict>) {
        let st = &input.state;
        let mut source = Source::Driver;
        let mut requested = drv.command;
        let verdict = input.proposal.map(|p| {
            let Some(checker) = &self.checker else {
                return Verdict::NoChecker;
            };
            // The chunk keeps the current start state: the measured one.
            let mut chunk = p.chunk.clone();
            chunk.start = StartState {
                x_m: st.pose.x_m,
                y_m: st.pose.y_m,
                yaw_rad: st.pose.yaw_rad,
                speed_mps: st.speed_mps.abs(),
                curvature_per_m: last.curvature_per_m,
            };
            let v = checker.check(&chunk, &self.path);
            if v == Verdict::Accepted {
                source = Source::Proposal;
                requested = chunk_command(&chunk, &self.path, drv.projection.station_m);
            }
            v
        });
        (source, requested, verdict)
    }
}

/// The vehicle state must be finite: the chain refuses it otherwise, naming the field.
fn check_state(st: &VehicleState) -> Result<(), ChainError> {
    for (name, v) in [
        ("pose.x_m", st.pose.x_m),
        ("pose.y_m", st.pose.y_m),
        ("pose.yaw_rad", st.pose.yaw_rad),
        ("speed_mps", st.speed_mps),
        ("yaw_rate_rps", st.yaw_rate_rps),
    ] {
        if !v.is_finite() {
            return Err(ChainError::State(name));
        }
    }
    Ok(())
}

/// Layer 5 and the curvature-rate limit of layer 6: the shield limits the request; where
/// the rate limit (`dk` a step) changes the curvature, the shield judges the curvature that
/// is sent (it only ever lowers the speed further) and the smaller free distance stands.
fn shield_and_rate(
    shield: &Shield,
    scratch: &mut ShieldScratch,
    sin: &ShieldInput,
    requested: Command,
    last: Command,
    dk: f64,
) -> ShieldOutput {
    let mut first = shield.limit_with(requested, sin, scratch);
    let kappa = first
        .command
        .curvature_per_m
        .clamp(last.curvature_per_m - dk, last.curvature_per_m + dk);
    if kappa != first.command.curvature_per_m {
        let again = shield.limit_with(
            Command {
                curvature_per_m: kappa,
                speed_mps: first.command.speed_mps,
            },
            sin,
            scratch,
        );
        first.interventions.extend(again.interventions);
        first.command = again.command;
        first.obstacle_distance_m = first.obstacle_distance_m.min(again.obstacle_distance_m);
        if again.moving != MovingDecision::None {
            first.moving = again.moving;
        }
    }
    first
}

/// Layer 6 after the shield: the gear logic (a shift only at standstill, with the brake
/// held through it), the speed ramp (increases limited, decreases passed at once, no
/// reversal in one step) and the launch hold. Returns the speed, the gear and the hold.
fn gear_logic(
    cfg: &ChainConfig,
    st: &VehicleState,
    speed_mps: f64,
    last: Command,
    dt: f64,
) -> (f64, Gear, bool) {
    let standing = st.speed_mps.abs() < cfg.standstill_mps;
    let mut gear = st.gear;
    // A speed below the standstill speed is a stop: the speed controller cannot follow
    // such a crawl, and creeping up to a limit would overshoot it.
    let mut v = if speed_mps.abs() < cfg.standstill_mps {
        0.0
    } else {
        speed_mps
    };
    if !st.gear.drives(v) {
        if standing {
            gear = if v > 0.0 { Gear::High } else { Gear::Reverse };
        }
        v = 0.0;
    }
    let vmax = last.speed_mps.abs() + cfg.accel_max_mps2 * dt;
    if v.abs() > vmax {
        v = vmax.copysign(v);
    }
    if last.speed_mps != 0.0 && v != 0.0 && v.signum() != last.speed_mps.signum() {
        v = 0.0;
    }
    // Launch hold: standing with no speed asked, or during a shift.
    let brake_hold = standing && (v == 0.0 || gear != st.gear);
    if brake_hold {
        v = 0.0;
    }
    (v, gear, brake_hold)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::path::{Direction, PathPoint};
    use crate::chain::shield::Rule;

    fn lane(n: usize, speed: f64) -> Path {
        let pts: Vec<PathPoint> = (0..n)
            .map(|i| PathPoint {
                x: i as f64 * 0.5,
                y: 0.0,
                speed_mps: speed,
                class: Some(GroundClass::Gravel),
                direction: Direction::Forward,
            })
            .collect();
        Path::new("lane", &pts).unwrap()
    }

    fn state(x: f64, v: f64, gear: Gear) -> VehicleState {
        VehicleState {
            pose: Pose {
                x_m: x,
                y_m: 0.0,
                yaw_rad: 0.0,
            },
            speed_mps: v,
            yaw_rate_rps: 0.0,
            gear,
            grade: 0.0,
        }
    }

    fn chain() -> Chain {
        Chain::new(&Config::builtin(), lane(200, 5.0), Grip::Unknown).unwrap()
    }

    proptest::proptest! {
        /// The code against lemma `actuators.speed_ramp_never_raises_nor_reverses`
        /// (proofs/actuators.py): in any gear and state, the speed sent is no faster than
        /// the shield's, rises by at most `accel_max · Δt` and never has the other sign than
        /// the last speed sent.
        #[test]
        fn lemma_the_speed_ramp_never_raises_nor_reverses(
            measured in -3.0f64..3.0, shield in -8.0f64..8.0, last in -8.0f64..8.0,
            gear in 1u8..=5, dt in 0.001f64..0.1,
        ) {
            let cfg = Config::builtin().control.chain;
            let gear = [Gear::Park, Gear::Reverse, Gear::Neutral, Gear::High, Gear::Low][gear as usize - 1];
            let last = Command { curvature_per_m: 0.0, speed_mps: last };
            let (v, _, _) = gear_logic(&cfg, &state(0.0, measured, gear), shield, last, dt);
            proptest::prop_assert!(v.abs() <= shield.abs());
            proptest::prop_assert!(v.abs() <= last.speed_mps.abs() + cfg.accel_max_mps2 * dt + 1e-12);
            proptest::prop_assert!(v * last.speed_mps >= 0.0, "{v} after {}", last.speed_mps);
        }
    }

    /// The straight-lane chunk of data/chunks: 40 samples from station 20, 4 m/s to a stop.
    fn chunk() -> Chunk {
        let text = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/chunks/accepted.json"
        ));
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        serde_json::from_value(v["chunks"][0].clone()).unwrap()
    }

    fn lane_chain() -> Chain {
        let route = Path::builtin("straight_lane.json").unwrap();
        Chain::new(&Config::builtin(), route, Grip::Unknown).unwrap()
    }

    fn at_start(v: f64) -> VehicleState {
        VehicleState {
            pose: Pose {
                x_m: 20.0,
                y_m: 0.0,
                yaw_rad: 0.0,
            },
            speed_mps: v,
            yaw_rate_rps: 0.0,
            gear: Gear::High,
            grade: 0.0,
        }
    }

    #[test]
    fn proposals_without_a_checker_leave_the_driver_in_control() {
        let mut c = lane_chain();
        let scan = Scan::empty(360);
        let p = Proposal {
            id: 1,
            chunk: chunk(),
        };
        let row = c
            .step(&ChainInput {
                step: 0,
                state: at_start(4.0),
                scan: &scan,
                proposal: Some(&p),
            })
            .unwrap();
        assert_eq!(row.verdict, Some(Verdict::NoChecker));
        assert_eq!(row.source, Source::Driver);
        assert_eq!(row.requested.speed_mps, 6.9);
    }

    #[test]
    fn an_accepted_chunk_drives_and_is_still_shielded() {
        let cfg = Config::builtin();
        let checker = TrajectoryChecker::new(&cfg, Grip::Unknown).unwrap();
        let mut c = lane_chain().with_checker(Box::new(checker));
        let p = Proposal {
            id: 7,
            chunk: chunk(),
        };
        let free = Scan::empty(360);
        let row = c
            .step(&ChainInput {
                step: 3,
                state: at_start(4.0),
                scan: &free,
                proposal: Some(&p),
            })
            .unwrap();
        assert_eq!(row.verdict, Some(Verdict::Accepted));
        assert_eq!(row.source, Source::Proposal);
        assert!((row.requested.speed_mps - 4.0).abs() < 1e-9);
        assert_eq!(row.time_s, 0.06);
        // An object 5 m ahead of the front: the shield limits the accepted chunk.
        let mut near = Scan::empty(360);
        near.set(0, 5.0 + 2.56 - 1.9).unwrap();
        let row = c
            .step(&ChainInput {
                step: 4,
                state: at_start(4.0),
                scan: &near,
                proposal: Some(&p),
            })
            .unwrap();
        assert_eq!(row.source, Source::Proposal);
        assert!(row.interventions.iter().any(|i| i.rule == Rule::Obstacle));
        assert!(row.speed_mps < 4.0);
    }

    #[test]
    fn a_refused_chunk_leaves_the_driver_in_control() {
        let cfg = Config::builtin();
        let checker = TrajectoryChecker::new(&cfg, Grip::Unknown).unwrap();
        let mut c = lane_chain().with_checker(Box::new(checker));
        let mut bad = chunk();
        bad.speeds_mps[5] = 7.0;
        let p = Proposal { id: 8, chunk: bad };
        let row = c
            .step(&ChainInput {
                step: 0,
                state: at_start(4.0),
                scan: &Scan::empty(360),
                proposal: Some(&p),
            })
            .unwrap();
        assert_eq!(
            row.verdict,
            Some(Verdict::Refused {
                reason: "speed".into(),
                index: 5
            })
        );
        assert_eq!(row.source, Source::Driver);
        // The measured start replaces the chunk's: 1 m off its first sample is refused.
        let p = Proposal {
            id: 9,
            chunk: chunk(),
        };
        let mut off = at_start(4.0);
        off.pose.y_m = 1.0;
        let row = c
            .step(&ChainInput {
                step: 1,
                state: off,
                scan: &Scan::empty(360),
                proposal: Some(&p),
            })
            .unwrap();
        assert!(
            matches!(row.verdict, Some(Verdict::Refused { ref reason, .. }) if reason == "start")
        );
    }

    #[test]
    fn a_shift_waits_for_standstill_with_the_brake_held() {
        let mut c = chain();
        let scan = Scan::empty(360);
        // In reverse gear, moving backwards: the forward command must wait.
        let row = c
            .step(&ChainInput {
                step: 0,
                state: state(0.0, -0.5, Gear::Reverse),
                scan: &scan,
                proposal: None,
            })
            .unwrap();
        assert_eq!(
            (row.speed_mps, row.gear, row.brake_hold),
            (0.0, Gear::Reverse, false)
        );
        // Standing: the shift is asked with the brake held.
        let row = c
            .step(&ChainInput {
                step: 1,
                state: state(0.0, 0.0, Gear::Reverse),
                scan: &scan,
                proposal: None,
            })
            .unwrap();
        assert_eq!(
            (row.speed_mps, row.gear, row.brake_hold),
            (0.0, Gear::High, true)
        );
        // Gear confirmed and the command asks to move: the hold is released and the
        // speed ramps at accel_max (1.1 m/s² × 0.02 s).
        let row = c
            .step(&ChainInput {
                step: 2,
                state: state(0.0, 0.0, Gear::High),
                scan: &scan,
                proposal: None,
            })
            .unwrap();
        assert!(!row.brake_hold);
        assert!((row.speed_mps - 0.022).abs() < 1e-12, "{}", row.speed_mps);
    }

    #[test]
    fn speed_increases_ramp_and_decreases_pass_at_once() {
        let mut c = chain();
        let scan = Scan::empty(360);
        let mut v = 0.0;
        for k in 0..200 {
            let row = c
                .step(&ChainInput {
                    step: k,
                    state: state(0.0, v, Gear::High),
                    scan: &scan,
                    proposal: None,
                })
                .unwrap();
            v = row.speed_mps;
        }
        assert!((v - 4.4).abs() < 1e-9, "{v}");
        let mut near = Scan::empty(360);
        near.set(0, 3.0).unwrap();
        let row = c
            .step(&ChainInput {
                step: 200,
                state: state(0.0, v, Gear::High),
                scan: &near,
                proposal: None,
            })
            .unwrap();
        assert_eq!(row.speed_mps, 0.0);
        assert!(row.interventions.iter().any(|i| i.rule == Rule::Obstacle));
    }

    #[test]
    fn curvature_changes_at_most_the_rate_limit_per_step() {
        let mut c = chain();
        let scan = Scan::empty(360);
        let mut s = state(0.0, 2.0, Gear::High);
        s.pose.y_m = 2.2; // the driver asks for a sharp right turn
        let mut last = 0.0;
        for k in 0..10 {
            let row = c
                .step(&ChainInput {
                    step: k,
                    state: s,
                    scan: &scan,
                    proposal: None,
                })
                .unwrap();
            assert!(row.requested.curvature_per_m < -0.05);
            let dk = row.curvature_per_m - last;
            assert!(dk.abs() <= 0.059 / 50.0 + 1e-15, "step {k}: {dk}");
            assert!(dk < 0.0);
            last = row.curvature_per_m;
        }
    }

    #[test]
    fn bad_inputs_are_errors() {
        let mut c = chain();
        let scan = Scan::empty(360);
        let mut s = state(0.0, 1.0, Gear::High);
        s.pose.yaw_rad = f64::NAN;
        let e = c
            .step(&ChainInput {
                step: 0,
                state: s,
                scan: &scan,
                proposal: None,
            })
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "vehicle state: `pose.yaw_rad` is not a finite number"
        );
        let short = Scan::empty(90);
        assert!(matches!(
            c.step(&ChainInput {
                step: 0,
                state: state(0.0, 1.0, Gear::High),
                scan: &short,
                proposal: None,
            }),
            Err(ChainError::Scan(_))
        ));
    }

    #[test]
    fn same_inputs_give_the_same_rows() {
        let scan = Scan::empty(360);
        let run = || {
            let mut c = chain();
            let mut rows = Vec::new();
            let mut v = 0.0;
            for k in 0..100 {
                let r = c
                    .step(&ChainInput {
                        step: k,
                        state: state(k as f64 * 0.05, v, Gear::High),
                        scan: &scan,
                        proposal: None,
                    })
                    .unwrap();
                v = r.speed_mps;
                rows.push(serde_json::to_string(&r).unwrap());
            }
            rows
        };
        assert_eq!(run(), run());
    }
}
