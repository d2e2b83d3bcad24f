//! The jobs that join the chain and the plant (docs/architecture.md):
//!
//! - [`sim`]: chain and plant in one process, in lockstep;
//! - [`replay`]: the chain fed from a recorded log, its rows compared with the log;
//! - [`measure`]: the plant through the stop, follow and steering-step test rigs;
//! - [`calibrate`]: the speed envelope derived from those measurements;
//! - [`bridge`]: the plant behind the vehicle-bridge socket, and a client in front of one.

pub mod bridge;
pub mod calibrate;
pub mod measure;
pub mod replay;
pub mod route_check;
pub mod sim;
pub mod suite;
pub mod validate;
mod validate_locked;
pub mod validate_physics;
