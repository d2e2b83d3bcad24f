//! The engine of the Gymnasium environment (`acres.gym.PolarisEnv`): a scenario session
//! stepped by a decision (a command, a chunk or the default driver, held for `repeat`
//! control steps), returning the observation as a float32 array, the reward's terms and
//! why the episode ended, so that a decision costs one call.

use crate::err;
use crate::sim::{config_moving, new_session, request, scenario};
use acres::chain::checker::{Chunk, StartState};
use acres::chain::path::Direction;
use acres::chain::shield::MovingDecision;
use acres::chain::{Proposal, Verdict};
use acres::config::Config;
use acres::formats::scenario::Scenario;
use acres::jobs::sim::{EndCause, Request, Session};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use std::f64::consts::PI;
use std::path::PathBuf;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Engine>()?;
    m.add("OBS_STATE", OBS_RELATIVE.map(|(n, _, _)| n).to_vec())?;
    m.add("TERMS", TERMS.to_vec())?;
    Ok(())
}

/// The observation's leading values relative to the vehicle and the route, with their
/// bounds (a value beyond is clipped to them): speed (m/s), yaw rate (rad/s), lateral
/// offset (m, left of the route), heading error (rad), the route's curvature 5 m ahead
/// (1/m) and the route left (m). The scan's ranges follow.
const OBS_RELATIVE: [(&str, f64, f64); 6] = [
    ("speed_mps", -10.0, 20.0),
    ("yaw_rate_rps", -3.0, 3.0),
    ("lateral_m", -20.0, 20.0),
    ("heading_error_rad", -PI, PI),
    ("curvature_ahead_per_m", -1.0, 1.0),
    ("remaining_m", 0.0, 2000.0),
];

/// The absolute pose, appended to the leading values on request.
const OBS_ABSOLUTE: [(&str, f64, f64); 4] = [
    ("x_m", -1e6, 1e6),
    ("y_m", -1e6, 1e6),
    ("yaw_rad", -PI, PI),
    ("station_m", 0.0, 1e6),
];

/// The reward's terms of a decision, summed over its control steps, in this order:
/// progress along the route (m, signed: the displacement along the route's heading),
/// intervention (control steps on which the shield limited the request), refused
/// (control steps with a refused chunk), collision (1 at a contact or a rollover),
/// comfort (m/s²: the change of the commanded speed over each step plus the commanded
/// lateral acceleration), standing (control steps at rest where the way is clear) and
/// arrival (1 on arriving at rest at the route's end).
const TERMS: [&str; 7] = [
    "progress",
    "intervention",
    "refused",
    "collision",
    "comfort",
    "standing",
    "arrival",
];

/// A decision's result: observation, terms, terminated, truncated, the last row's
/// source, and why the episode ended (None while it runs).
type Outcome<'py> = (
    Bound<'py, PyArray1<f32>>,
    [f64; 7],
    bool,
    bool,
    &'static str,
    Option<&'static str>,
);

/// Points in world metres.
type Xy = Vec<(f64, f64)>;

/// Below this speed, m/s, the vehicle stands (for the standing term).
const STANDING_MPS: f64 = 0.1;
/// The way is clear where the shield's stop rule allows this speed, m/s.
const CLEAR_MPS: f64 = 1.0;

/// What a decision asks of each of its control steps.
enum Decision<'a> {
    Driver,
    Command(f64, f64),
    Chunk(&'a [f64], &'a [f64], f64),
}

/// Scenarios stepped a decision at a time.
#[pyclass(module = "acres._acres")]
pub struct Engine {
    config: Config,
    scenarios: Vec<Scenario>,
    session: Session,
    reach: f64,
    absolute: bool,
    /// The commanded speed of the last step (for the comfort term).
    speed_cmd: f64,
    /// Where the vehicle was at the last observation and the route's heading there.
    at: (f64, f64, f64),
    station: f64,
    /// The route's length, m.
    length: f64,
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (scenarios, config_dir = None, moving = None, absolute_pose = false))]
    fn new(
        scenarios: Vec<String>,
        config_dir: Option<PathBuf>,
        moving: Option<&str>,
        absolute_pose: bool,
    ) -> PyResult<Engine> {
        let config = config_moving(config_dir, moving)?;
        let scenarios = scenarios
            .iter()
            .map(|s| scenario(s))
            .collect::<PyResult<Vec<_>>>()?;
        let first = scenarios.first().ok_or_else(|| err("no scenario to run"))?;
        let session = new_session(&config, first)?.with_standing_end(false);
        let reach = config.control.corridor.range_m;
        Ok(Engine {
            config,
            scenarios,
            session,
            reach,
            absolute: absolute_pose,
            speed_cmd: 0.0,
            at: (0.0, 0.0, 0.0),
            station: 0.0,
            length: 0.0,
        })
    }

    /// The number of scenarios.
    #[getter]
    fn scenarios(&self) -> usize {
        self.scenarios.len()
    }

    /// The names of the observation's leading values (the scan's ranges follow).
    #[getter]
    fn obs_names(&self) -> Vec<&'static str> {
        self.lead().map(|(n, _, _)| n).collect()
    }

    /// The bounds of the whole observation: the leading values', then the scan's
    /// (0 to the reach).
    #[getter]
    fn obs_bounds(&self) -> (Vec<f64>, Vec<f64>) {
        let beams = self.config.control.corridor.beams as usize;
        let lo = self
            .lead()
            .map(|(_, l, _)| l)
            .chain(std::iter::repeat_n(0.0, beams));
        let hi = self
            .lead()
            .map(|(_, _, h)| h)
            .chain(std::iter::repeat_n(self.reach, beams));
        (lo.collect(), hi.collect())
    }

    /// The bounds of a fixed command: the largest |curvature| (1/m) and the speed range (m/s)
    /// of the shield's actuator limits.
    #[getter]
    fn command_limits(&self) -> (f64, f64, f64) {
        let s = &self.config.control.shield;
        (s.curvature_max_per_m, s.speed_min_mps, s.speed_max_mps)
    }

    /// The scan's reach, m (a beam without a return reads this).
    #[getter]
    fn reach_m(&self) -> f64 {
        self.reach
    }

    /// Starts scenario `index`, its start moved by `start` (lateral offset, m, left; a turn
    /// of the heading, rad; the speed, m/s) where one is given; returns the first
    /// observation.
    #[pyo3(signature = (index, start = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        index: i64,
        start: Option<(f64, f64, f64)>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let n = self.scenarios.len();
        let sc = usize::try_from(index)
            .ok()
            .and_then(|i| self.scenarios.get(i))
            .ok_or_else(|| {
                pyo3::exceptions::PyValueError::new_err(format!(
                    "scenario {index}: the environment has scenarios 0 to {}",
                    n - 1
                ))
            })?;
        let session = match start {
            None => new_session(&self.config, sc)?,
            Some((offset, turn, speed)) => {
                if ![offset, turn, speed].iter().all(|v| v.is_finite()) {
                    return Err(err(format!("start {start:?}: not finite")));
                }
                let mut sc = sc.clone();
                let s = &mut sc.start;
                let (sin, cos) = s.yaw_rad.sin_cos();
                s.x_m -= offset * sin;
                s.y_m += offset * cos;
                s.yaw_rad += turn;
                s.speed_mps = speed;
                new_session(&self.config, &sc)?
            }
        };
        self.session = session.with_standing_end(false);
        // The comfort term's first change is from the speed the scenario starts at.
        self.speed_cmd = self.session.plant().speed_mps();
        Ok(self.observe(py))
    }

    /// A decision of a fixed curvature (1/m) and speed (m/s) through the shield, held for
    /// `repeat` control steps.
    #[pyo3(signature = (curvature, speed, repeat = 1))]
    fn step_command<'py>(
        &mut self,
        py: Python<'py>,
        curvature: f64,
        speed: f64,
        repeat: usize,
    ) -> PyResult<Outcome<'py>> {
        request(Some(curvature), Some(speed), None, 0)?;
        self.advance(py, Decision::Command(curvature, speed), repeat)
    }

    /// A decision of a chunk: offsets (m, left of the route) and speeds (m/s) at stations
    /// `step_m` apart from the vehicle's, judged by the checker at each of `repeat`
    /// control steps (from the vehicle's station then).
    #[pyo3(signature = (offsets, speeds, step_m, repeat = 1))]
    fn step_chunk<'py>(
        &mut self,
        py: Python<'py>,
        offsets: PyReadonlyArray1<'py, f64>,
        speeds: PyReadonlyArray1<'py, f64>,
        step_m: f64,
        repeat: usize,
    ) -> PyResult<Outcome<'py>> {
        let (o, s) = (offsets.as_slice()?, speeds.as_slice()?);
        self.advance(py, Decision::Chunk(o, s, step_m), repeat)
    }

    /// What a top view shows, in world metres: the route's points, the vehicle's
    /// footprint, each obstacle's and each actor's outline, and the scan's returns.
    #[allow(clippy::type_complexity)]
    fn scene(&mut self) -> (Xy, Xy, Vec<Xy>, Vec<Xy>, Xy) {
        let beams = self.config.control.corridor.beams as usize;
        let g = self.config.control.vehicle.clone();
        let reach = self.reach;
        let ranges: Vec<f64> = self.session.observe().scan.ranges().to_vec();
        let path: Xy = {
            let p = self.session.chain().path();
            (0..p.len()).map(|i| (p.point(i).x, p.point(i).y)).collect()
        };
        let plant = self.session.plant();
        let ring = |poly: &geo::Polygon<f64>| -> Xy {
            poly.exterior().0.iter().map(|c| (c.x, c.y)).collect()
        };
        let vehicle = ring(&plant.footprint());
        let obstacles = plant
            .world
            .obstacles()
            .iter()
            .map(|o| ring(&o.outline()))
            .collect();
        let actors = plant
            .world
            .live_actors()
            .iter()
            .flatten()
            .map(|a| ring(&a.shape.outline()))
            .collect();
        let s = &plant.vehicle.s;
        let (sy, cy) = s.yaw_rad.sin_cos();
        let mount = (
            s.x_m + cy * g.scan_mount_x_m - sy * g.scan_mount_y_m,
            s.y_m + sy * g.scan_mount_x_m + cy * g.scan_mount_y_m,
        );
        let returns = ranges
            .iter()
            .enumerate()
            .filter(|(_, r)| r.is_finite() && **r < reach)
            .map(|(i, r)| {
                let a = s.yaw_rad + std::f64::consts::TAU * i as f64 / beams as f64;
                (mount.0 + r * a.cos(), mount.1 + r * a.sin())
            })
            .collect();
        (path, vehicle, obstacles, actors, returns)
    }

    /// A decision left to the default driver for `repeat` control steps.
    #[pyo3(signature = (repeat = 1))]
    fn step_driver<'py>(&mut self, py: Python<'py>, repeat: usize) -> PyResult<Outcome<'py>> {
        self.advance(py, Decision::Driver, repeat)
    }
}

impl Engine {
    /// The observation's leading values and their bounds.
    fn lead(&self) -> impl Iterator<Item = (&'static str, f64, f64)> {
        let extra: &[(&str, f64, f64)] = if self.absolute { &OBS_ABSOLUTE } else { &[] };
        OBS_RELATIVE.into_iter().chain(extra.iter().copied())
    }

    /// The request of one control step of a decision.
    fn request(&self, d: &Decision) -> Request {
        match *d {
            Decision::Driver => Request::Driver,
            Decision::Command(k, v) => Request::Command(acres::chain::shield::Command {
                curvature_per_m: k,
                speed_mps: v,
            }),
            Decision::Chunk(offsets, speeds, step_m) => {
                // The start state is the vehicle's measured one: the chain puts it in.
                let chunk = Chunk {
                    route: None,
                    start_station_m: self.station,
                    station_step_m: step_m,
                    offsets_m: offsets.to_vec(),
                    speeds_mps: speeds.to_vec(),
                    direction: Direction::Forward,
                    start: StartState {
                        x_m: 0.0,
                        y_m: 0.0,
                        yaw_rad: 0.0,
                        speed_mps: 0.0,
                        curvature_per_m: 0.0,
                    },
                    scan: None,
                };
                let id = self.session.control_steps();
                Request::Proposal(Proposal { id, chunk })
            }
        }
    }

    /// The control steps of a decision (fewer where the episode ends) and what they give.
    fn advance<'py>(
        &mut self,
        py: Python<'py>,
        d: Decision,
        repeat: usize,
    ) -> PyResult<Outcome<'py>> {
        let mut terms = [0.0; 7];
        let mut source = "driver";
        for _ in 0..repeat.max(1) {
            let req = self.request(&d);
            let st = py.detach(|| self.session.step(req, None)).map_err(err)?;
            let acres::jobs::sim::ControlStep { row, scan, .. } = st;
            // The next observation's scan is cast into this one's memory.
            self.session.recycle(scan);
            let (at, station) = (self.at, self.station);
            self.track();
            terms[0] += self.progress(at, station);
            self.add_terms(&row, &mut terms);
            source = match row.source {
                acres::chain::Source::Driver => "driver",
                acres::chain::Source::Proposal => "proposal",
                acres::chain::Source::Fixed => "fixed",
            };
            if self.session.ended() {
                break;
            }
        }
        let end = self.session.end_cause();
        if matches!(end, Some(EndCause::Collision | EndCause::Rollover)) {
            terms[3] = 1.0;
        }
        terms[6] = (end == Some(EndCause::Arrived)) as u8 as f64;
        let obs = self.observe(py);
        let truncated = end == Some(EndCause::Duration);
        let terminated = end.is_some() && !truncated;
        let cause = end.map(|c| match c {
            EndCause::Collision => "collision",
            EndCause::Rollover => "rollover",
            EndCause::Arrived => "arrived",
            EndCause::Standing => "standing",
            EndCause::Duration => "duration",
        });
        Ok((obs, terms, terminated, truncated, source, cause))
    }

    /// The progress of a step from `(x, y, heading)` at `station`: the displacement along
    /// the route's heading there (signed, so that backing away costs, also before the
    /// route's start), but none past the route's end.
    fn progress(&self, (x0, y0, heading): (f64, f64, f64), station: f64) -> f64 {
        let (x1, y1, _) = self.at;
        let d = (x1 - x0) * heading.cos() + (y1 - y0) * heading.sin();
        if self.station >= self.length - 0.01 {
            d.min((self.length - station).max(0.0))
        } else {
            d
        }
    }

    /// Adds one control step's terms but progress (measured by [`Engine::progress`]),
    /// collision and arrival (which the end sets).
    fn add_terms(&mut self, row: &acres::chain::CommandRow, terms: &mut [f64; 7]) {
        let dt = 1.0 / 50.0;
        let s = &self.session.plant().vehicle.s;
        terms[1] += (!row.interventions.is_empty()) as u8 as f64;
        terms[2] += matches!(row.verdict, Some(Verdict::Refused { .. })) as u8 as f64;
        terms[4] += (row.speed_mps - self.speed_cmd).abs() / dt
            + (row.speed_mps * row.speed_mps * row.curvature_per_m).abs();
        self.speed_cmd = row.speed_mps;
        // Standing where the shield would let the vehicle go: the obstacle rule allows
        // 1 m/s and no moving object holds it below that.
        let chain = self.session.chain();
        let cap = chain
            .shield()
            .stop_rule(row.class)
            .stop_cap(row.obstacle_distance_m);
        let held = matches!(chain.moving_decision(), MovingDecision::Cap { speed_mps, .. } if speed_mps < CLEAR_MPS);
        let standing = s.vx_mps.hypot(s.vy_mps) < STANDING_MPS && !row.finished;
        terms[5] += (standing && cap >= CLEAR_MPS && !held) as u8 as f64;
    }

    /// Where the vehicle is now and the route's heading there (the next step's progress
    /// is measured along it).
    fn track(&mut self) {
        let o = self.session.observe();
        let pose = o.state.pose;
        self.at = (pose.x_m, pose.y_m, pose.yaw_rad - o.heading_error_rad);
        self.station = o.station_m;
        self.length = o.path_length_m;
    }

    /// The observation before the coming step: the leading values (clipped to their
    /// bounds) and the scan's ranges (the reach where a beam has no return).
    fn observe<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.track();
        let reach = self.reach;
        let absolute = self.absolute;
        let o = self.session.observe();
        let s = o.state;
        let yaw = s.pose.yaw_rad.sin().atan2(s.pose.yaw_rad.cos());
        let relative = [
            s.speed_mps,
            s.yaw_rate_rps,
            o.lateral_m,
            o.heading_error_rad,
            o.curvature_ahead_per_m,
            o.path_length_m - o.station_m,
        ];
        let pose = [s.pose.x_m, s.pose.y_m, yaw, o.station_m];
        let mut v: Vec<f32> = Vec::with_capacity(10 + o.scan.ranges().len());
        let clip = |x: f64, (_, lo, hi): (&str, f64, f64)| x.clamp(lo, hi) as f32;
        v.extend(relative.iter().zip(OBS_RELATIVE).map(|(x, b)| clip(*x, b)));
        if absolute {
            v.extend(pose.iter().zip(OBS_ABSOLUTE).map(|(x, b)| clip(*x, b)));
        }
        v.extend(o.scan.ranges().iter().map(|r| r.min(reach) as f32));
        PyArray1::from_vec(py, v)
    }
}
