//! `scouting_v1.json`: the block `driver` of the pure-pursuit default driver, with its
//! validation.

use super::{Check, ConfigError};
use serde::{Deserialize, Serialize};

/// Block `driver` of `scouting_v1.json`: the pure-pursuit default driver
/// (vehicle-software.md "Default Driver").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverConfig {
    /// `L_min`, the shortest look-ahead, m.
    pub lookahead_min_m: f64,
    /// `k_L`, the growth of the look-ahead with the speed, s.
    pub lookahead_gain_s: f64,
    /// `L_max`, the longest look-ahead, m.
    pub lookahead_max_m: f64,
    /// The constant look-ahead in reverse, m (the reference gives no value; an acres choice).
    pub reverse_lookahead_m: f64,
    /// The distance ahead of the vehicle over which the driver takes the lowest speed of
    /// the profile, m (the reference gives no value; an acres choice).
    pub speed_preview_m: f64,
}

/// `scouting_v1.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoutingConfig {
    pub driver: DriverConfig,
}

impl ScoutingConfig {
    pub(super) fn validate(&self, file: &str) -> Result<(), ConfigError> {
        let c = Check { file };
        let d = &self.driver;
        c.positive("driver.lookahead_min_m", d.lookahead_min_m, 1000.0)?;
        c.range("driver.lookahead_gain_s", d.lookahead_gain_s, 0.0, 100.0)?;
        c.positive("driver.lookahead_max_m", d.lookahead_max_m, 1000.0)?;
        c.ordered(
            "driver.lookahead_min_m",
            d.lookahead_min_m,
            "driver.lookahead_max_m",
            d.lookahead_max_m,
        )?;
        c.positive("driver.reverse_lookahead_m", d.reverse_lookahead_m, 1000.0)?;
        c.range("driver.speed_preview_m", d.speed_preview_m, 0.0, 10_000.0)?;
        Ok(())
    }
}
