//! The drive-by-wire model of the Polaris (vehicle-bridge.md "Polaris", "dbw_report"):
//! the Dataspeed commands and reports with the keys and units of ds_dbw_msgs, the
//! actuators with their rate limits, the gear, enable and disable, the timeouts, and the
//! ULC's speed reference (vehicle-software.md "Stop and Hold on a Slope").
//!
//! Time is the integer physics step (120 Hz, [`PHYSICS_HZ`]); a command applies from the
//! step it is given at. A subsystem disengages 0.1 s of simulated time after its last
//! command, and its report shows `timeout` from 0.1 s to 1 s after it.

pub mod commands;
pub mod model;
pub mod reports;

pub use commands::{BrakeCmd, DbwCommands, DriveMode, GearCmd, SteeringCmd, ThrottleCmd, UlcCmd};
pub use model::{Actuation, Dbw, DbwError, gear_direction};
pub use reports::DbwReport;

/// The physics rate, Hz (ARCHITECTURE.md "Time": 12 steps per 0.1 s).
pub const PHYSICS_HZ: u32 = 120;
