//! The chain decides (docs/architecture.md): route, default driver or an accepted proposal
//! chunk, trajectory checker, shield, then gear logic, launch hold and actuator limits, one
//! command row per control step. Pure and deterministic: no clock, no I/O.
//!
//! - [`path`]: the route, its parts and stations, projection and curvature;
//! - [`envelope`]: the speed envelope of each ground class, stop distance and stop cap;
//! - [`driver`]: the default driver (pure pursuit and the speed preview);
//! - [`scan`]: the shield's 360-beam planar scan;
//! - [`shield`]: the four rules that limit each command, and the swept corridor;
//! - [`checker`]: the trajectory checker over proposal chunks, single and batch;
//! - [`tracker`]: moving objects from successive scans, for the moving-object rule;
//! - [`step`]: the chain's step, which joins them into a command row.

pub mod checker;
pub mod driver;
pub mod envelope;
pub mod free_space;
pub mod path;
pub mod scan;
pub mod shield;
pub mod step;
pub mod tracker;

pub use step::{
    CONTROL_HZ, Chain, ChainError, ChainInput, Checker, CommandRow, Gear, Proposal, Source,
    VehicleState, Verdict, chunk_command,
};
