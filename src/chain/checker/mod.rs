//! The trajectory checker (vehicle-software.md "Proposals and Chunks", "Trajectory
//! Checker"): chunks of a proposer, converted to samples and judged by the rules; a
//! refused, late or missing chunk leaves the default driver in control.

pub mod batch;
pub mod chunk;
pub mod margins;
pub mod rules;

pub use chunk::{Chunk, Sample, StartState, convert};
pub use rules::{CheckResult, Reason, TrajectoryChecker, Unchecked, WorldReturns};

use crate::chain::scan::{Scan, ScanGeometry};

/// The returns of a scan taken at a start state, in the world frame.
pub fn world_returns(geometry: &ScanGeometry, scan: &Scan, start: &StartState) -> WorldReturns {
    let (s, c) = start.yaw_rad.sin_cos();
    WorldReturns(
        geometry
            .points(scan)
            .map(|(x, y)| (start.x_m + c * x - s * y, start.y_m + s * x + c * y))
            .collect(),
    )
}

#[cfg(test)]
mod batch_tests;
#[cfg(test)]
mod cusp_tests;
#[cfg(test)]
mod obstacle_tests;
#[cfg(test)]
mod tests;
