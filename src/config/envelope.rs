//! `envelope_v1.json`: the validation of the speed envelope (its types live with the
//! envelope's formulas in [`crate::chain::envelope`]).

use super::{Check, ConfigError};
use crate::chain::envelope::{ClassTable, EnvelopeConfig, Grip};

/// Validates an envelope against the scan reach `reach_m`: every entry's vehicle speed
/// must stop inside the reach (vehicle-software.md "Scan of the shield",
/// no_return_is_safe).
pub fn validate_envelope(
    env: &EnvelopeConfig,
    file: &str,
    reach_m: f64,
) -> Result<(), ConfigError> {
    let c = Check { file };
    c.range("latency_s", env.latency_s, 0.0, 10.0)?;
    c.range("response_s", env.response_s, 0.0, 10.0)?;
    let tables: [(Grip, Option<&ClassTable>); 2] = [
        (Grip::Unknown, Some(&env.grips.unknown)),
        (Grip::Dry, env.grips.dry.as_ref()),
    ];
    for (grip, table) in tables {
        let Some(table) = table else { continue };
        for (class, row) in table.rows() {
            let key = |k: &str| format!("grips.{grip}.{class}.{k}");
            c.positive(&key("speed_mps"), row.speed_mps, 40.0)?;
            c.range(&key("speed_command_mps"), row.speed_command_mps, 0.0, 40.0)?;
            c.ordered(
                &key("speed_command_mps"),
                row.speed_command_mps,
                &key("speed_mps"),
                row.speed_mps,
            )?;
            c.positive(&key("decel_mps2"), row.decel_mps2, 20.0)?;
            c.range(&key("obstacle_margin_m"), row.obstacle_margin_m, 0.0, 50.0)?;
            c.positive(
                &key("lateral_accel_max_mps2"),
                row.lateral_accel_max_mps2,
                20.0,
            )?;
            let d = env.stop_rule(row).stop_distance(row.speed_mps);
            if d > reach_m {
                return Err(c.fail(
                    &key("speed_mps"),
                    format!(
                        "d_stop({}) = {d:.2} m is beyond the scan reach of {reach_m} m \
                         (corridor.range_m): a beam with no return would not be safe",
                        row.speed_mps
                    ),
                ));
            }
        }
    }
    Ok(())
}
