//! The engine of the Gymnasium environment (`acres.gym.PolarisEnv`): a scenario session
//! stepped by an action, returning the observation as a float32 array and the reward's
//! terms, so that a step costs one call.

use crate::err;
use crate::sim::{config_moving, new_session, request, scenario};
use acres::chain::checker::{Chunk, StartState};
use acres::chain::path::Direction;
use acres::chain::{Proposal, Verdict};
use acres::config::Config;
use acres::formats::scenario::Scenario;
use acres::jobs::sim::Session;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use std::path::PathBuf;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Engine>()?;
    m.add("OBS_STATE", OBS_STATE.to_vec())?;
    Ok(())
}

/// The observation's leading values, before the scan's ranges.
const OBS_STATE: [&str; 8] = [
    "x_m",
    "y_m",
    "yaw_rad",
    "speed_mps",
    "yaw_rate_rps",
    "station_m",
    "lateral_m",
    "heading_error_rad",
];

/// The reward's terms of one step, in this order: progress along the route (m), a shield
/// intervention (1/0), a refused chunk (1/0), a collision (1/0), discomfort (m/s²: the
/// change of the commanded speed over the step plus the commanded lateral acceleration).
type Terms = (f64, f64, f64, f64, f64);

/// A step's result: observation, terms, terminated, truncated, the row's source.
type Outcome<'py> = (Bound<'py, PyArray1<f32>>, Terms, bool, bool, &'static str);

/// Scenarios stepped one control step at a time.
#[pyclass(module = "acres._acres")]
pub struct Engine {
    config: Config,
    scenarios: Vec<Scenario>,
    session: Session,
    station: f64,
    speed_cmd: f64,
    reach: f64,
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (scenarios, config_dir = None, moving = None))]
    fn new(
        scenarios: Vec<String>,
        config_dir: Option<PathBuf>,
        moving: Option<&str>,
    ) -> PyResult<Engine> {
        let config = config_moving(config_dir, moving)?;
        let scenarios = scenarios
            .iter()
            .map(|s| scenario(s))
            .collect::<PyResult<Vec<_>>>()?;
        let first = scenarios.first().ok_or_else(|| err("no scenario to run"))?;
        let session = new_session(&config, first)?;
        let reach = config.control.corridor.range_m;
        Ok(Engine {
            config,
            scenarios,
            session,
            station: 0.0,
            speed_cmd: 0.0,
            reach,
        })
    }

    /// The number of scenarios.
    #[getter]
    fn scenarios(&self) -> usize {
        self.scenarios.len()
    }

    /// The number of values of an observation.
    #[getter]
    fn obs_len(&self) -> usize {
        OBS_STATE.len() + self.config.control.corridor.beams as usize
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

    /// Starts scenario `index`; returns the first observation.
    fn reset<'py>(&mut self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let sc = self
            .scenarios
            .get(index)
            .ok_or_else(|| err(format!("scenario {index} of {}", self.scenarios.len())))?;
        self.session = new_session(&self.config, sc)?;
        // The comfort term's first change is from the speed the scenario starts at.
        self.speed_cmd = self.session.plant().speed_mps();
        let (obs, station) = self.observe(py);
        self.station = station;
        Ok(obs)
    }

    /// One control step with a fixed curvature (1/m) and speed (m/s) through the shield.
    fn step_command<'py>(
        &mut self,
        py: Python<'py>,
        curvature: f64,
        speed: f64,
    ) -> PyResult<Outcome<'py>> {
        let req = request(Some(curvature), Some(speed), None, 0)?;
        self.advance(py, req)
    }

    /// One control step with a chunk: offsets (m, left of the route) and speeds (m/s) at
    /// stations `step_m` apart from the vehicle's, judged by the checker.
    fn step_chunk<'py>(
        &mut self,
        py: Python<'py>,
        offsets: PyReadonlyArray1<'py, f64>,
        speeds: PyReadonlyArray1<'py, f64>,
        step_m: f64,
    ) -> PyResult<Outcome<'py>> {
        // The start state is the vehicle's measured one: the chain puts it in.
        let chunk = Chunk {
            route: None,
            start_station_m: self.station,
            station_step_m: step_m,
            offsets_m: offsets.as_slice()?.to_vec(),
            speeds_mps: speeds.as_slice()?.to_vec(),
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
        let req = acres::jobs::sim::Request::Proposal(Proposal { id, chunk });
        self.advance(py, req)
    }
}

impl Engine {
    /// A step of the session and what it gives.
    fn advance<'py>(
        &mut self,
        py: Python<'py>,
        req: acres::jobs::sim::Request,
    ) -> PyResult<Outcome<'py>> {
        let st = py.detach(|| self.session.step(req, None)).map_err(err)?;
        let acres::jobs::sim::ControlStep { row, scan, .. } = st;
        // The next observation's scan is cast into this one's memory.
        self.session.recycle(scan);
        let row = &row;
        let dt = 1.0 / 50.0;
        let refused = matches!(row.verdict, Some(Verdict::Refused { .. }));
        let comfort = (row.speed_mps - self.speed_cmd).abs() / dt
            + (row.speed_mps * row.speed_mps * row.curvature_per_m).abs();
        self.speed_cmd = row.speed_mps;
        let collided = self.session.collided();
        let (obs, station) = self.observe(py);
        let terms = (
            station - self.station,
            (!row.interventions.is_empty()) as u8 as f64,
            refused as u8 as f64,
            collided as u8 as f64,
            comfort,
        );
        self.station = station;
        let ended = self.session.ended();
        let truncated = ended && self.session.timed_out() && !collided;
        let source = match row.source {
            acres::chain::Source::Driver => "driver",
            acres::chain::Source::Proposal => "proposal",
            acres::chain::Source::Fixed => "fixed",
        };
        Ok((obs, terms, ended && !truncated, truncated, source))
    }

    /// The observation before the coming step: the state, the place on the path and the
    /// scan's ranges (the reach where a beam has no return).
    /// Returns it with the station at full precision.
    fn observe<'py>(&mut self, py: Python<'py>) -> (Bound<'py, PyArray1<f32>>, f64) {
        let reach = self.reach;
        let o = self.session.observe();
        let s = o.state;
        let mut v: Vec<f32> = Vec::with_capacity(OBS_STATE.len() + o.scan.ranges().len());
        v.extend(
            [
                s.pose.x_m,
                s.pose.y_m,
                s.pose.yaw_rad.sin().atan2(s.pose.yaw_rad.cos()),
                s.speed_mps,
                s.yaw_rate_rps,
                o.station_m,
                o.lateral_m,
                o.heading_error_rad,
            ]
            .map(|x| x as f32),
        );
        v.extend(o.scan.ranges().iter().map(|r| r.min(reach) as f32));
        (PyArray1::from_vec(py, v), o.station_m)
    }
}
