//! acres: the runtime library of the `acres` toolbox for the safety command chain of an
//! autonomous Polaris Ranger with a Dataspeed drive-by-wire.
//!
//! The library holds every formula and model; the `acres` binary (in `commands/`) only
//! parses arguments, calls it and renders the results. Its shape follows the one idea of
//! the system (docs/architecture.md):
//!
//! - [`chain`] decides: route, default driver or proposal chunk, trajectory checker,
//!   shield, gear logic and actuator limits, one command row per control step;
//! - [`plant`] obeys: the drive-by-wire model, the vehicle model and the world;
//! - [`ground`] is what both stand on: maps (classes, elevation) and corridor rasters;
//! - [`jobs`] join the two halves: sim, replay, measure, calibrate and the bridge;
//! - [`formats`] reads and writes files; [`plot`] draws; [`config`] holds the four
//!   configuration files.

pub mod chain;
pub mod config;
pub mod formats;
pub mod ground;
pub mod jobs;
pub mod plant;
pub mod plot;
