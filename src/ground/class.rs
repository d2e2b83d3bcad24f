//! The ground classes and states that the chain and the plant share, with gravity and the
//! friction of each class: the chain's speed envelope is a table over these classes, and
//! the simulated vehicle's tires grip by them. Neither half imports the other for them.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Gravity, m/s².
pub const G: f64 = 9.81;

/// A ground class of the speed envelope (vehicle-software.md "Speed Envelope").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroundClass {
    Asphalt,
    Concrete,
    Gravel,
    GrassLane,
    Dirt,
    Grass,
    Field,
}

impl GroundClass {
    /// Every class, in the order of the reference table.
    pub const ALL: [GroundClass; 7] = [
        GroundClass::Asphalt,
        GroundClass::Concrete,
        GroundClass::Gravel,
        GroundClass::GrassLane,
        GroundClass::Dirt,
        GroundClass::Grass,
        GroundClass::Field,
    ];

    /// The name used in config files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            GroundClass::Asphalt => "asphalt",
            GroundClass::Concrete => "concrete",
            GroundClass::Gravel => "gravel",
            GroundClass::GrassLane => "grass_lane",
            GroundClass::Dirt => "dirt",
            GroundClass::Grass => "grass",
            GroundClass::Field => "field",
        }
    }
}

impl fmt::Display for GroundClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GroundClass {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GroundClass::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = GroundClass::ALL.iter().map(|c| c.name()).collect();
                format!(
                    "unknown ground class `{s}` (expected one of {})",
                    names.join(", ")
                )
            })
    }
}

/// The state of the ground under the vehicle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroundState {
    #[default]
    Dry,
    Wet,
}

/// Friction coefficient and rolling resistance of a class in a state. Typical values of
/// the tire–ground literature for off-road tires (peak friction: dry asphalt 0.9, wet 0.6;
/// loose gravel 0.6; grass 0.55 dry, 0.35 wet); rolling resistance from 0.015 on
/// pavement to 0.08 on a tilled field. They are model inputs, not measurements of the
/// Ranger: the limits of the envelope come from the stops measured on the model.
pub fn ground(class: Option<GroundClass>, state: GroundState) -> (f64, f64) {
    use GroundClass::*;
    let (dry, wet, crr) = match class {
        Some(Asphalt) => (0.90, 0.60, 0.015),
        Some(Concrete) => (0.85, 0.60, 0.015),
        Some(Gravel) => (0.65, 0.50, 0.030),
        Some(GrassLane) => (0.60, 0.40, 0.050),
        Some(Dirt) => (0.65, 0.45, 0.040),
        Some(Grass) => (0.55, 0.35, 0.060),
        Some(Field) => (0.50, 0.35, 0.080),
        None => (0.50, 0.35, 0.080),
    };
    (if state == GroundState::Dry { dry } else { wet }, crr)
}
