//! `acres.Chain` (one step of the command chain), `acres.Sim` (a scenario on the simulated
//! Polaris, a control step at a time), the engine of the Gymnasium environment, and the
//! scenario runs a campaign fans out (`run_scenario`, `suite_cases`).

use crate::{config, err, ground};
use acres::chain::scan::Scan;
use acres::chain::shield::{Command, Pose};
use acres::chain::{Chain, ChainInput, Gear, Proposal, VehicleState};
use acres::config::{Config, MovingMode};
use acres::formats::scenario::{SHIPPED, Scenario};
use acres::jobs::sim::{Request, Session};
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use std::path::PathBuf;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyChain>()?;
    m.add_class::<PySim>()?;
    m.add_function(wrap_pyfunction!(run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(suite_cases, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_names, m)?)?;
    Ok(())
}

/// The names of the shipped scenarios.
#[pyfunction]
fn scenario_names() -> Vec<&'static str> {
    SHIPPED.iter().map(|(n, _)| *n).collect()
}

/// A scenario: JSON text (starting with `{`), a shipped scenario's name, or a file.
pub(crate) fn scenario(spec: &str) -> PyResult<Scenario> {
    if spec.trim_start().starts_with('{') {
        return Scenario::from_json_str("<scenario text>", spec).map_err(err);
    }
    if let Some(s) = Scenario::shipped(spec) {
        return s.map_err(err);
    }
    let p = std::path::Path::new(spec);
    if !p.exists() {
        return Err(err(format!(
            "scenario `{spec}`: no such file, nor a shipped scenario ({})",
            scenario_names().join(", ")
        )));
    }
    Scenario::load(Some(p)).map_err(err)
}

/// The configuration with the moving-object rule's mode where one is given.
pub(crate) fn config_moving(config_dir: Option<PathBuf>, moving: Option<&str>) -> PyResult<Config> {
    let mut cfg = config(config_dir)?;
    if let Some(m) = moving {
        cfg.control.shield.moving_obstacle = m
            .parse::<MovingMode>()
            .map_err(|e| err(format!("moving {e}")))?;
    }
    Ok(cfg)
}

/// A vehicle state from (x, y, yaw, speed, yaw rate), the gear (by the speed's sign where
/// none is named) and the grade; every number finite.
fn state(s: &[f64], gear: Option<&str>, grade: f64) -> PyResult<VehicleState> {
    if s.len() != 5 {
        return Err(err(format!(
            "state: {} values, expected 5 (x, y, yaw, speed, yaw rate)",
            s.len()
        )));
    }
    let names = ["x_m", "y_m", "yaw_rad", "speed_mps", "yaw_rate_rps"];
    if let Some(i) = s.iter().position(|v| !v.is_finite()) {
        return Err(err(format!(
            "state[{i}] ({}) is {}, not a finite number",
            names[i], s[i]
        )));
    }
    let gear = match gear {
        Some(g) => serde_json::from_value::<Gear>(serde_json::Value::String(g.into()))
            .map_err(|_| err(format!("gear `{g}`: park, reverse, neutral, high or low")))?,
        None if s[3] < 0.0 => Gear::Reverse,
        None => Gear::High,
    };
    Ok(VehicleState {
        pose: Pose {
            x_m: s[0],
            y_m: s[1],
            yaw_rad: s[2],
        },
        speed_mps: s[3],
        yaw_rate_rps: s[4],
        gear,
        grade: if grade.is_finite() {
            grade
        } else {
            return Err(err(format!("grade is {grade}, not a finite number")));
        },
    })
}

/// A scan from ranges (inf: no return), with the beam count the chain expects.
fn scan(ranges: &[f64], beams: usize) -> PyResult<Scan> {
    if ranges.len() != beams {
        return Err(err(format!(
            "scan: {} ranges, expected {beams}",
            ranges.len()
        )));
    }
    if let Some(i) = ranges.iter().position(|r| r.is_nan() || *r < 0.0) {
        return Err(err(format!(
            "scan[{i}] is {}: a range is ≥ 0 (inf for no return)",
            ranges[i]
        )));
    }
    Scan::new(ranges.to_vec()).map_err(err)
}

/// A proposal from chunk JSON (the keys of a chunk file).
fn proposal(chunk: &str, id: u64) -> PyResult<Proposal> {
    let chunk = serde_json::from_str(chunk).map_err(|e| err(format!("chunk: {e}")))?;
    Ok(Proposal { id, chunk })
}

/// The command chain on a route: the default driver (or a chunk the checker accepts), the
/// shield, the rate limits and the gear logic, one control step a call.
#[pyclass(name = "Chain", module = "acres._acres")]
pub struct PyChain {
    chain: Chain,
    beams: usize,
    step: u64,
}

#[pymethods]
impl PyChain {
    #[new]
    #[pyo3(signature = (route, config_dir = None, moving = None, grip = "unknown"))]
    fn new(
        route: &str,
        config_dir: Option<PathBuf>,
        moving: Option<&str>,
        grip: &str,
    ) -> PyResult<PyChain> {
        let cfg = config_moving(config_dir, moving)?;
        let grip = grip.parse().map_err(err)?;
        let path = ground::route(route, None)?;
        let checker = acres::chain::checker::TrajectoryChecker::new(&cfg, grip)
            .ok_or_else(|| err(format!("the envelope has no `grips.{grip}` table")))?;
        let chain = Chain::new(&cfg, path, grip)
            .map_err(err)?
            .with_checker(Box::new(checker));
        Ok(PyChain {
            chain,
            beams: cfg.control.corridor.beams as usize,
            step: 0,
        })
    }

    /// One control step; returns the command row as JSON text.
    #[pyo3(signature = (state, scan, chunk = None, gear = None, grade = 0.0))]
    fn step_json(
        &mut self,
        py: Python<'_>,
        state: PyReadonlyArray1<'_, f64>,
        scan: PyReadonlyArray1<'_, f64>,
        chunk: Option<&str>,
        gear: Option<&str>,
        grade: f64,
    ) -> PyResult<String> {
        let st = self::state(state.as_slice()?, gear, grade)?;
        let sc = self::scan(scan.as_slice()?, self.beams)?;
        let prop = chunk.map(|c| proposal(c, self.step)).transpose()?;
        let step = self.step;
        let row = py.detach(|| {
            self.chain.step(&ChainInput {
                step,
                state: st,
                scan: &sc,
                proposal: prop.as_ref(),
            })
        });
        let row = row.map_err(err)?;
        self.step += 1;
        serde_json::to_string(&row).map_err(err)
    }
}

/// A scenario on the simulated Polaris with the chain in the loop, a control step a call.
#[pyclass(name = "Sim", module = "acres._acres")]
pub struct PySim {
    config: Config,
    scenario: Scenario,
    session: Session,
}

#[pymethods]
impl PySim {
    #[new]
    #[pyo3(signature = (scenario = "opening", config_dir = None, moving = None))]
    fn new(scenario: &str, config_dir: Option<PathBuf>, moving: Option<&str>) -> PyResult<PySim> {
        let config = config_moving(config_dir, moving)?;
        let scenario = self::scenario(scenario)?;
        let session = new_session(&config, &scenario)?;
        Ok(PySim {
            config,
            scenario,
            session,
        })
    }

    /// Back to the scenario's start, or to another scenario's.
    #[pyo3(signature = (scenario = None))]
    fn reset(&mut self, scenario: Option<&str>) -> PyResult<()> {
        if let Some(s) = scenario {
            self.scenario = self::scenario(s)?;
        }
        self.session = new_session(&self.config, &self.scenario)?;
        Ok(())
    }

    /// One control step (the driver; a fixed curvature and speed; or a chunk as JSON);
    /// returns the log record as JSON text.
    #[pyo3(signature = (curvature = None, speed = None, chunk = None))]
    fn step_json(
        &mut self,
        py: Python<'_>,
        curvature: Option<f64>,
        speed: Option<f64>,
        chunk: Option<&str>,
    ) -> PyResult<String> {
        let req = request(curvature, speed, chunk, self.session.control_steps())?;
        let mut line = Vec::new();
        let done = py
            .detach(|| self.session.step(req, Some(&mut line)))
            .map_err(err)?;
        self.session.recycle(done.scan);
        String::from_utf8(line).map_err(err)
    }

    /// Whether the run has ended.
    #[getter]
    fn ended(&self) -> bool {
        self.session.ended()
    }

    /// The summary of the run so far, as JSON text.
    fn summary_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.session.summary()).map_err(err)
    }
}

/// A session of a scenario with its route.
pub(crate) fn new_session(config: &Config, scenario: &Scenario) -> PyResult<Session> {
    let route = scenario.route().map_err(err)?;
    Session::new(config, scenario, route).map_err(err)
}

/// What drives a step: a chunk, a fixed command (both numbers), or the driver.
pub(crate) fn request(
    curvature: Option<f64>,
    speed: Option<f64>,
    chunk: Option<&str>,
    id: u64,
) -> PyResult<Request> {
    match (curvature, speed, chunk) {
        (None, None, None) => Ok(Request::Driver),
        (None, None, Some(c)) => Ok(Request::Proposal(proposal(c, id)?)),
        (Some(k), Some(v), None) => {
            if !k.is_finite() || !v.is_finite() {
                return Err(err(format!(
                    "the command ({k}, {v}) is not finite: the shield would stop"
                )));
            }
            Ok(Request::Command(Command {
                curvature_per_m: k,
                speed_mps: v,
            }))
        }
        _ => Err(err(
            "give both curvature and speed, or a chunk, or neither (the driver)",
        )),
    }
}

/// Runs a scenario to its end; returns the summary as JSON text.
#[pyfunction]
#[pyo3(signature = (scenario, moving = None, config_dir = None))]
fn run_scenario(
    py: Python<'_>,
    scenario: &str,
    moving: Option<&str>,
    config_dir: Option<PathBuf>,
) -> PyResult<String> {
    let cfg = config_moving(config_dir, moving)?;
    let sc = self::scenario(scenario)?;
    let route = sc.route().map_err(err)?;
    let s = py
        .detach(|| acres::jobs::sim::run(&cfg, &sc, route, None))
        .map_err(err)?;
    serde_json::to_string(&s).map_err(err)
}

/// The 30 scenarios of a suite (`crossing-person`, `oncoming-vehicle`, `running-child`,
/// `crossing-machine`, `static-clutter`) as JSON text: a list
/// of {name, class, speed_mps, parameter, scenario (the scenario's JSON text)}.
#[pyfunction]
#[pyo3(signature = (name, config_dir = None))]
fn suite_cases(py: Python<'_>, name: &str, config_dir: Option<PathBuf>) -> PyResult<String> {
    use acres::jobs::suite::{SuiteKind, cases};
    let kind = SuiteKind::from_name(name).ok_or_else(|| {
        err(format!(
            "suite `{name}`: crossing-person, oncoming-vehicle, running-child, crossing-machine \
             or static-clutter"
        ))
    })?;
    let cfg = config(config_dir)?;
    let cs = py.detach(|| cases(&cfg, kind)).map_err(err)?;
    let list: Vec<serde_json::Value> = cs
        .iter()
        .map(|c| {
            serde_json::json!({"name": c.name, "class": c.class, "speed_mps": c.speed_mps,
                               "parameter": c.parameter, "scenario": c.json})
        })
        .collect();
    serde_json::to_string(&list).map_err(err)
}
