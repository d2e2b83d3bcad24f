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
    /// Whether the brakes have an anti-lock system. Without it (the Ranger's case, the
    /// default) a brake beyond the grip locks the wheels: they slide and stop steering.
    #[serde(default)]
    pub abs: bool,
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
    /// Every number within its physical range (docs/configuration.md "dynamics"), naming
    /// the key and the range of the first that is not. The mass and the geometry have
    /// fixed ranges; the inertias, the cornering stiffnesses and the forces have ranges
    /// tied to them (the yaw inertia from `m a b`, each axle's stiffness from its static
    /// load), wide enough for any real vehicle of that size and narrow enough that the
    /// plant's 120 Hz step is stable at every combination (tested at their corners).
    pub(super) fn validate(&self, c: &Check, wheelbase_m: f64) -> Result<(), ConfigError> {
        let l = wheelbase_m;
        for (k, v, lo, hi) in [
            ("dynamics.mass_kg", self.mass_kg, MASS_KG.0, MASS_KG.1),
            ("dynamics.track_m", self.track_m, TRACK_M.0, TRACK_M.1),
            (
                "dynamics.cg_from_front_axle_m",
                self.cg_from_front_axle_m,
                CG_SHARE.0 * l,
                CG_SHARE.1 * l,
            ),
            (
                "dynamics.cg_height_m",
                self.cg_height_m,
                CG_HEIGHT_MIN_M,
                self.track_m,
            ),
            (
                "dynamics.power_max_w",
                self.power_max_w,
                POWER_W.0,
                POWER_W.1,
            ),
            ("dynamics.drive_lag_s", self.drive_lag_s, LAG_S.0, LAG_S.1),
            ("dynamics.brake_lag_s", self.brake_lag_s, LAG_S.0, LAG_S.1),
            ("dynamics.roll_hz", self.roll_hz, ROLL_HZ.0, ROLL_HZ.1),
            (
                "dynamics.roll_damping",
                self.roll_damping,
                ROLL_DAMPING.0,
                ROLL_DAMPING.1,
            ),
            (
                "dynamics.roll_gradient_deg_per_g",
                self.roll_gradient_deg_per_g,
                0.0,
                30.0,
            ),
            ("dynamics.drag_kg_per_m", self.drag_kg_per_m, 0.0, 100.0),
            (
                "dynamics.roll_centre_height_m",
                self.roll_centre_height_m,
                0.0,
                self.cg_height_m,
            ),
        ] {
            c.range(k, v, lo, hi).map_err(|_| {
                c.fail(
                    k,
                    format!(
                        "{v:?} is outside its physical range, {lo:.4} to {hi:.4}{}",
                        why(k)
                    ),
                )
            })?;
        }
        let (m, a) = (self.mass_kg, self.cg_from_front_axle_m);
        let b = l - a;
        let weight = m * crate::ground::class::G;
        let half_track = self.track_m / 2.0;
        for (k, v, unit, base, (lo, hi), what) in [
            (
                "dynamics.yaw_inertia_kgm2",
                self.yaw_inertia_kgm2,
                "kg m²",
                m * a * b,
                YAW_INDEX,
                "m a b",
            ),
            (
                "dynamics.roll_inertia_kgm2",
                self.roll_inertia_kgm2,
                "kg m²",
                m * half_track * half_track,
                ROLL_INDEX,
                "m (track / 2)²",
            ),
            (
                "dynamics.cornering_stiffness_front_n_per_rad",
                self.cornering_stiffness_front_n_per_rad,
                "N/rad",
                weight * b / l,
                CORNERING_PER_LOAD,
                "the front axle's static load",
            ),
            (
                "dynamics.cornering_stiffness_rear_n_per_rad",
                self.cornering_stiffness_rear_n_per_rad,
                "N/rad",
                weight * a / l,
                CORNERING_PER_LOAD,
                "the rear axle's static load",
            ),
            (
                "dynamics.drive_force_max_n",
                self.drive_force_max_n,
                "N",
                weight,
                DRIVE_PER_WEIGHT,
                "the weight m g",
            ),
            (
                "dynamics.brake_force_max_n",
                self.brake_force_max_n,
                "N",
                weight,
                BRAKE_PER_WEIGHT,
                "the weight m g",
            ),
        ] {
            c.range(k, v, lo * base, hi * base).map_err(|_| {
                c.fail(
                    k,
                    format!(
                        "{v:?} is outside its physical range for this vehicle, {:.0} to {:.0} \
                         {unit} ({lo} to {hi} times {what}, {base:.0}){}",
                        lo * base,
                        hi * base,
                        why(k)
                    ),
                )
            })?;
        }
        Ok(())
    }
}

/// `dynamics.mass_kg`, kg: a small buggy to a loaded truck.
pub const MASS_KG: (f64, f64) = (100.0, 5000.0);
/// `dynamics.track_m`, m.
pub const TRACK_M: (f64, f64) = (0.5, 3.0);
/// `dynamics.cg_from_front_axle_m` as a share of the wheelbase: each axle carries 20 to
/// 80 % of the weight.
pub const CG_SHARE: (f64, f64) = (0.2, 0.8);
/// `dynamics.cg_height_m`, m, from this to the track (a static stability factor
/// `track / 2h` of 0.5 or more: a body any higher tips on a 27° side slope).
pub const CG_HEIGHT_MIN_M: f64 = 0.2;
/// `dynamics.power_max_w`, W.
pub const POWER_W: (f64, f64) = (1e3, 1e6);
/// `dynamics.drive_lag_s` and `brake_lag_s`, s: from two physics steps up.
pub const LAG_S: (f64, f64) = (0.02, 2.0);
/// `dynamics.roll_hz`, Hz, and `roll_damping`.
pub const ROLL_HZ: (f64, f64) = (0.3, 5.0);
pub const ROLL_DAMPING: (f64, f64) = (0.05, 2.0);
/// `dynamics.yaw_inertia_kgm2` over `m a b` (the dynamic index; cars 0.8 to 1.2).
pub const YAW_INDEX: (f64, f64) = (0.7, 2.0);
/// `dynamics.roll_inertia_kgm2` over `m (track / 2)²`.
pub const ROLL_INDEX: (f64, f64) = (0.2, 2.0);
/// Each axle's cornering stiffness over its static load, 1/rad (tyres 5 to 15).
pub const CORNERING_PER_LOAD: (f64, f64) = (2.0, 20.0);
/// `dynamics.drive_force_max_n` and `brake_force_max_n` over the weight.
pub const DRIVE_PER_WEIGHT: (f64, f64) = (0.05, 1.2);
pub const BRAKE_PER_WEIGHT: (f64, f64) = (0.1, 1.5);

/// Why a key's range matters, for its refusal.
fn why(key: &str) -> &'static str {
    match key {
        "dynamics.yaw_inertia_kgm2"
        | "dynamics.cornering_stiffness_front_n_per_rad"
        | "dynamics.cornering_stiffness_rear_n_per_rad"
        | "dynamics.mass_kg" => {
            "; outside it the 120 Hz physics step is not stable or the vehicle not physical"
        }
        "dynamics.drive_lag_s" | "dynamics.brake_lag_s" => {
            "; a lag shorter than two physics steps is not stable"
        }
        _ => "",
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
            e.contains("dynamics.mass_kg") && e.contains("100.0000 to 5000.0000"),
            "{e}"
        );
        let e = with("cg_from_front_axle_m", 2.5.into());
        assert!(
            e.contains("cg_from_front_axle_m") && e.contains("physical range"),
            "{e}"
        );
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

    /// Issue 65: values that were accepted and broke the plant are refused with the key
    /// and the range for this vehicle; the edges of a tied range are accepted and a hair
    /// beyond them is not.
    #[test]
    fn unphysical_dynamics_are_refused_with_the_range_for_the_vehicle() {
        let e = with("mass_kg", 1e-6.into());
        assert!(e.contains("dynamics.mass_kg"), "{e}");
        let e = with("yaw_inertia_kgm2", 100.0.into());
        assert!(
            e.contains("dynamics.yaw_inertia_kgm2") && e.contains("0.7 to 2 times m a b"),
            "{e}"
        );
        assert!(e.contains("698 to 1996 kg m²"), "{e}");
        let e = with("cornering_stiffness_front_n_per_rad", 200e3.into());
        assert!(e.contains("front axle's static load"), "{e}");
        // 150 kg with the shipped drive: more than 1.2 g of drive.
        let e = with("mass_kg", 150.0.into());
        assert!(e.contains("dynamics."), "{e}");
        let w = 950.0 * crate::ground::class::G;
        assert_eq!(with("drive_force_max_n", (1.2 * w).into()), "");
        let e = with("drive_force_max_n", (1.2 * w * 1.0001).into());
        assert!(e.contains("dynamics.drive_force_max_n"), "{e}");
        let e = with("drive_lag_s", 0.001.into());
        assert!(e.contains("two physics steps"), "{e}");
        let e = with("cg_height_m", 1.3.into());
        assert!(e.contains("dynamics.cg_height_m"), "{e}");
    }
}
