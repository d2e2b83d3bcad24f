//! `trajectory_v1.json`: the block `limits` of the trajectory checker, with its validation.

use super::{Check, ConfigError};
use serde::{Deserialize, Serialize};

/// Block `limits` of `trajectory_v1.json`: the trajectory checker's limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrajectoryLimits {
    /// The largest speed increase between samples, m/s².
    pub accel_max_mps2: f64,
    /// The largest speed decrease between samples, m/s².
    pub decel_max_mps2: f64,
    /// The largest curvature change along the path, 1/m².
    pub curvature_rate_max_per_m2: f64,
    /// The largest curvature change in time, 1/(m s).
    pub steering_rate_max_per_m_s: f64,
    /// The side margin of the narrow-lane rule, m.
    pub follower_error_m: f64,
    /// The tolerance of the start position, m.
    pub start_position_m: f64,
    /// The tolerance of the start heading, degrees.
    pub start_heading_deg: f64,
    /// The tolerance of the start speed, m/s.
    pub start_speed_mps: f64,
}

/// `trajectory_v1.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrajectoryConfig {
    pub limits: TrajectoryLimits,
}

impl TrajectoryConfig {
    pub(super) fn validate(&self, file: &str) -> Result<(), ConfigError> {
        let c = Check { file };
        let l = &self.limits;
        c.positive("limits.accel_max_mps2", l.accel_max_mps2, 20.0)?;
        c.positive("limits.decel_max_mps2", l.decel_max_mps2, 20.0)?;
        c.positive(
            "limits.curvature_rate_max_per_m2",
            l.curvature_rate_max_per_m2,
            100.0,
        )?;
        c.positive(
            "limits.steering_rate_max_per_m_s",
            l.steering_rate_max_per_m_s,
            100.0,
        )?;
        c.range("limits.follower_error_m", l.follower_error_m, 0.0, 10.0)?;
        c.positive("limits.start_position_m", l.start_position_m, 100.0)?;
        c.positive("limits.start_heading_deg", l.start_heading_deg, 180.0)?;
        c.positive("limits.start_speed_mps", l.start_speed_mps, 40.0)?;
        Ok(())
    }
}
