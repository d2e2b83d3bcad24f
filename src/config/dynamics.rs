//! Block `dynamics` of `control_v1.json` (an acres extension; the reference names no
//! vehicle parameters): the mass, the centre of gravity, the tires, the brakes, the
//! drive line and the roll of the simulated Polaris. Only the plant reads it; the chain
//! never does. docs/validation.md gives the source of each shipped value, or says that
//! it is an estimate.

use super::{Check, ConfigError};
use serde::{Deserialize, Serialize};

/// The axles a force acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Axles {
    Front,
    Rear,
    Both,
}

impl Axles {
    /// Whether the front (index 0) or the rear (index 1) axle is one of them.
    pub fn has(self, axle: usize) -> bool {
        matches!(
            (self, axle),
            (Axles::Both, _) | (Axles::Front, 0) | (Axles::Rear, 1)
        )
    }
}

/// `dynamics.drive_axles`: the driven axles of each position of the drive mode switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveAxles {
    pub awd: Axles,
    #[serde(rename = "2wd")]
    pub two_wd: Axles,
    pub turf: Axles,
}

/// Block `dynamics`: the parameters of the vehicle model (src/plant/vehicle.rs). The
/// defaults are those of the shipped file: a Polaris Ranger XP 1000 with the sensor rig
/// and one occupant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DynamicsConfig {
    /// The mass with the load, kg.
    pub mass_kg: f64,
    /// The centre of gravity behind the front axle, m (with the wheelbase, the weight
    /// split: the front axle carries (L − a)/L of the weight at rest).
    pub cg_from_front_axle_m: f64,
    /// The height of the centre of gravity above the ground, m.
    pub cg_height_m: f64,
    /// The distance between the left and right wheels' contact, m.
    pub track_m: f64,
    /// The moments of inertia about the vertical (yaw) and the longitudinal (roll) axis
    /// through the centre of gravity, kg m².
    pub yaw_inertia_kgm2: f64,
    pub roll_inertia_kgm2: f64,
    /// The cornering stiffness of each axle (both tires), N/rad.
    pub cornering_stiffness_front_n_per_rad: f64,
    pub cornering_stiffness_rear_n_per_rad: f64,
    /// The drive force at full throttle, N, and the power that limits it at speed, W.
    pub drive_force_max_n: f64,
    pub power_max_w: f64,
    /// The brake force of all four wheels at full pressure, N; it is shared between the
    /// axles in proportion to their loads.
    pub brake_force_max_n: f64,
    /// The first-order lags of the drive and the brake force behind the pedals, s.
    pub drive_lag_s: f64,
    pub brake_lag_s: f64,
    /// The roll mode of the body: its natural frequency, Hz, and damping ratio.
    pub roll_hz: f64,
    pub roll_damping: f64,
    /// The body's roll per lateral acceleration, deg per g, about a roll centre this high,
    /// m: the rolled body shifts the centre of gravity toward the outer wheels.
    pub roll_gradient_deg_per_g: f64,
    pub roll_centre_height_m: f64,
    /// Aerodynamic drag `½ ρ c_d A`, kg/m.
    pub drag_kg_per_m: f64,
    /// The axle the park lock holds.
    pub park_axle: Axles,
    /// The driven axles of each drive mode.
    pub drive_axles: DriveAxles,
}

impl Default for DynamicsConfig {
    fn default() -> Self {
        serde_json::from_value(
            serde_json::from_str::<serde_json::Value>(super::ConfigFile::Control.builtin_text())
                .expect("the shipped control file is JSON")["dynamics"]
                .clone(),
        )
        .expect("the shipped dynamics block is valid")
    }
}

impl DynamicsConfig {
    /// Every number within its range, naming the key of the first that is not; the centre
    /// of gravity between the axles (`wheelbase_m` of block `vehicle`) and no higher than
    /// the body could carry it.
    pub(super) fn validate(&self, c: &Check, wheelbase_m: f64) -> Result<(), ConfigError> {
        for (k, v, hi) in [
            ("dynamics.mass_kg", self.mass_kg, 100_000.0),
            ("dynamics.cg_height_m", self.cg_height_m, 10.0),
            ("dynamics.track_m", self.track_m, 10.0),
            ("dynamics.yaw_inertia_kgm2", self.yaw_inertia_kgm2, 1e7),
            ("dynamics.roll_inertia_kgm2", self.roll_inertia_kgm2, 1e7),
            (
                "dynamics.cornering_stiffness_front_n_per_rad",
                self.cornering_stiffness_front_n_per_rad,
                1e7,
            ),
            (
                "dynamics.cornering_stiffness_rear_n_per_rad",
                self.cornering_stiffness_rear_n_per_rad,
                1e7,
            ),
            ("dynamics.drive_force_max_n", self.drive_force_max_n, 1e7),
            ("dynamics.power_max_w", self.power_max_w, 1e8),
            ("dynamics.brake_force_max_n", self.brake_force_max_n, 1e7),
            ("dynamics.drive_lag_s", self.drive_lag_s, 10.0),
            ("dynamics.brake_lag_s", self.brake_lag_s, 10.0),
            ("dynamics.roll_hz", self.roll_hz, 20.0),
            ("dynamics.roll_damping", self.roll_damping, 10.0),
        ] {
            c.positive(k, v, hi)?;
        }
        c.range(
            "dynamics.roll_gradient_deg_per_g",
            self.roll_gradient_deg_per_g,
            0.0,
            30.0,
        )?;
        c.range("dynamics.drag_kg_per_m", self.drag_kg_per_m, 0.0, 100.0)?;
        c.range(
            "dynamics.roll_centre_height_m",
            self.roll_centre_height_m,
            0.0,
            self.cg_height_m,
        )?;
        c.range(
            "dynamics.cg_from_front_axle_m",
            self.cg_from_front_axle_m,
            0.0,
            wheelbase_m,
        )
        .map_err(|_| {
            c.fail(
                "dynamics.cg_from_front_axle_m",
                format!(
                    "{:?} must lie between the axles, from 0 to vehicle.wheelbase_m ({wheelbase_m:?})",
                    self.cg_from_front_axle_m
                ),
            )
        })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{Config, ConfigFile, ConfigSource};

    fn with(key: &str, value: serde_json::Value) -> String {
        let mut v: serde_json::Value =
            serde_json::from_str(ConfigFile::Control.builtin_text()).unwrap();
        v["dynamics"][key] = value;
        let t = |f: ConfigFile| (f.builtin_text().to_string(), ConfigSource::Builtin);
        match Config::from_texts(
            (v.to_string(), ConfigSource::Builtin),
            t(ConfigFile::Trajectory),
            t(ConfigFile::Envelope),
            t(ConfigFile::Scouting),
        ) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn the_shipped_block_loads_and_bad_values_name_their_key() {
        assert_eq!(with("mass_kg", 950.0.into()), "");
        let e = with("mass_kg", (-950.0).into());
        assert!(
            e.contains("dynamics.mass_kg") && e.contains("positive"),
            "{e}"
        );
        let e = with("cg_from_front_axle_m", 2.5.into());
        assert!(e.contains("between the axles"), "{e}");
        let e = with("roll_centre_height_m", 0.9.into());
        assert!(e.contains("dynamics.roll_centre_height_m"), "{e}");
        let e = with("park_axle", "middle".into());
        assert!(
            e.contains("park_axle") && e.contains("unknown variant"),
            "{e}"
        );
        let e = with("cg_height", 0.5.into());
        assert!(e.contains("unknown field"), "{e}");
    }
}
