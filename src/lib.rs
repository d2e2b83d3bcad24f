//! acres: the runtime library of the `acres` toolbox for the safety command chain of an
//! autonomous Polaris Ranger with a Dataspeed drive-by-wire.
//!
//! The library holds every formula and model; the `acres` binary (in `commands/`) only
//! parses arguments, calls it and renders the results. The formulas follow
//! `vehicle-software.md` and `vehicle-bridge.md`; each function names its source.

pub mod bridge;
pub mod calibrate;
pub mod chain;
pub mod checker;
pub mod config;
pub mod corridor;
pub mod dbw;
pub mod driver;
pub mod envelope;
pub mod io;
pub mod measure;
pub mod path;
pub mod plant;
pub mod plot;
pub mod replay;
pub mod scan;
pub mod shield;
pub mod sim;
pub mod vehicle;
pub mod world;
