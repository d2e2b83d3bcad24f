//! `acres.stop_distance` and `acres.stop_cap`: the envelope's stop rule over arrays
//! (vehicle-software.md "Speed Envelope": `d_stop(v) = v T + v² / (2 a) + d_m` and its
//! inverse, the stop cap).

use crate::{arrays, config, err};
use acres::chain::envelope::{Grip, GroundClass};
use acres::config::Config;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(stop_distance, m)?)?;
    m.add_function(wrap_pyfunction!(stop_cap, m)?)?;
    m.add_function(wrap_pyfunction!(class_limits, m)?)?;
    Ok(())
}

/// The stop rule of each element: one class for all, or one a value.
fn rules(
    config: &Config,
    classes: &[String],
    grip: &str,
    n: usize,
) -> PyResult<Vec<acres::chain::envelope::StopRule>> {
    if classes.len() != 1 && classes.len() != n {
        return Err(err(format!(
            "classes: {} given for {n} values (give one, or one a value)",
            classes.len()
        )));
    }
    let grip: Grip = grip.parse().map_err(err)?;
    let mut cache: Vec<(String, acres::chain::envelope::StopRule)> = Vec::new();
    classes
        .iter()
        .map(|c| {
            if let Some((_, r)) = cache.iter().find(|(k, _)| k == c) {
                return Ok(*r);
            }
            let class = match c.as_str() {
                "unknown" => None,
                name => Some(name.parse::<GroundClass>().map_err(err)?),
            };
            let l = config.envelope.limits(grip, class).ok_or_else(|| {
                err(format!(
                    "the envelope has no `grips.{grip}` table (only calibration gives one)"
                ))
            })?;
            let r = config.envelope.stop_rule(&l);
            cache.push((c.clone(), r));
            Ok(r)
        })
        .collect()
}

/// Applies `f` with each element's rule; values must be finite and ≥ 0.
fn over<'py>(
    py: Python<'py>,
    name: &str,
    values: PyReadonlyArray1<'py, f64>,
    classes: Vec<String>,
    grip: &str,
    config_dir: Option<std::path::PathBuf>,
    f: fn(&acres::chain::envelope::StopRule, f64) -> f64,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let v = values.as_array();
    arrays::finite1(name, &v)?;
    if let Some((i, x)) = v.indexed_iter().find(|(_, x)| **x < 0.0) {
        return Err(err(format!("{name}[{i}] is {x}: a magnitude, ≥ 0")));
    }
    let cfg = config(config_dir)?;
    let rules = rules(&cfg, &classes, grip, v.len())?;
    let v = arrays::vec1(&values);
    let out = py.detach(move || {
        v.iter()
            .enumerate()
            .map(|(i, x)| f(&rules[i.min(rules.len() - 1)], *x))
            .collect::<Vec<f64>>()
    });
    Ok(out.into_pyarray(py))
}

/// The stop distance d_stop(v), m, of each speed (m/s, ≥ 0) for its class and the grip.
#[pyfunction]
#[pyo3(signature = (speeds, classes, grip = "unknown", config_dir = None))]
fn stop_distance<'py>(
    py: Python<'py>,
    speeds: PyReadonlyArray1<'py, f64>,
    classes: Vec<String>,
    grip: &str,
    config_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    over(py, "speeds", speeds, classes, grip, config_dir, |r, v| {
        r.stop_distance(v)
    })
}

/// The stop cap, m/s, of each free distance (m, ≥ 0) for its class and the grip.
#[pyfunction]
#[pyo3(signature = (distances, classes, grip = "unknown", config_dir = None))]
fn stop_cap<'py>(
    py: Python<'py>,
    distances: PyReadonlyArray1<'py, f64>,
    classes: Vec<String>,
    grip: &str,
    config_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    over(
        py,
        "distances",
        distances,
        classes,
        grip,
        config_dir,
        |r, d| r.stop_cap(d),
    )
}

/// The limits of a class at a grip, as JSON text: speed, deceleration, obstacle margin,
/// lateral acceleration.
#[pyfunction]
#[pyo3(signature = (class_name, grip = "unknown", config_dir = None))]
fn class_limits(
    class_name: &str,
    grip: &str,
    config_dir: Option<std::path::PathBuf>,
) -> PyResult<String> {
    let cfg = config(config_dir)?;
    let class = match class_name {
        "unknown" => None,
        name => Some(name.parse::<GroundClass>().map_err(err)?),
    };
    let grip: Grip = grip.parse().map_err(err)?;
    let l = cfg
        .envelope
        .limits(grip, class)
        .ok_or_else(|| err(format!("the envelope has no `grips.{grip}` table")))?;
    let r = cfg.envelope.stop_rule(&l);
    Ok(serde_json::json!({
        "speed_command_mps": l.speed_command_mps,
        "speed_mps": l.speed_mps,
        "decel_mps2": r.decel_mps2,
        "obstacle_margin_m": r.obstacle_margin_m,
        "stop_time_s": r.stop_time_s,
        "lateral_accel_max_mps2": l.lateral_accel_max_mps2,
    })
    .to_string())
}
