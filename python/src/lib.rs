//! The Python package `acres` (its native part, `acres._acres`): the library's envelope,
//! corridor, checker, chain and simulated Polaris on numpy arrays. Every call that works
//! releases the GIL; errors are `acres.AcresError` with the library's message (file, key,
//! line). The Python side (`python/acres/`) adds the Gymnasium environment.

use pyo3::prelude::*;

mod arrays;
mod checker;
mod engine;
mod envelope;
mod ground;
mod sim;

// Named in module `acres` (where the package exports it), so that it pickles: an error
// raised in a worker process reaches the parent with its message.
pyo3::create_exception!(
    acres,
    AcresError,
    pyo3::exceptions::PyValueError,
    "An error of acres: a bad input, file, key or value, with the library's message."
);

/// An `AcresError` with a message.
pub(crate) fn err(message: impl std::fmt::Display) -> PyErr {
    AcresError::new_err(message.to_string())
}

/// The configuration of `config_dir` (file by file over the shipped one), or the shipped.
pub(crate) fn config(config_dir: Option<std::path::PathBuf>) -> PyResult<acres::config::Config> {
    acres::config::Config::load(config_dir.as_deref()).map_err(err)
}

#[pymodule]
fn _acres(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("AcresError", m.py().get_type::<AcresError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    envelope::register(m)?;
    ground::register(m)?;
    checker::register(m)?;
    sim::register(m)?;
    engine::register(m)?;
    Ok(())
}
