//! The configuration files: `control_v1.json`, `trajectory_v1.json`, `envelope_v1.json`
//! and `scouting_v1.json`, with the key names, units and defaults of vehicle-software.md
//! "Parameters", "Speed Envelope" and "Default Driver".
//!
//! The shipped files are embedded in the library, so that every command works from any
//! directory. A config directory overrides them file by file: a file it holds replaces
//! the shipped one, a file it lacks keeps the shipped one. Parsing is strict (unknown
//! keys, missing keys and missing blocks are refused) and every value is validated;
//! errors name the file and the key.

mod control;
pub mod dynamics;
mod envelope;
mod scouting;
mod trajectory;

pub use control::*;
pub use dynamics::{Axles, DriveAxles, DynamicsConfig};
pub use envelope::validate_envelope;
pub use scouting::{DriverConfig, ScoutingConfig};
pub use trajectory::{TrajectoryConfig, TrajectoryLimits};

use crate::chain::envelope::EnvelopeConfig;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt;
use std::path::{Path, PathBuf};

/// One of the four configuration files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigFile {
    Control,
    Trajectory,
    Envelope,
    Scouting,
}

impl ConfigFile {
    /// Every file, in the order `config show` prints them.
    pub const ALL: [ConfigFile; 4] = [
        ConfigFile::Control,
        ConfigFile::Trajectory,
        ConfigFile::Envelope,
        ConfigFile::Scouting,
    ];

    /// The file's name in a config directory.
    pub fn file_name(self) -> &'static str {
        match self {
            ConfigFile::Control => "control_v1.json",
            ConfigFile::Trajectory => "trajectory_v1.json",
            ConfigFile::Envelope => "envelope_v1.json",
            ConfigFile::Scouting => "scouting_v1.json",
        }
    }

    /// The shipped text of the file, embedded at build time.
    pub fn builtin_text(self) -> &'static str {
        match self {
            ConfigFile::Control => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/configs/control_v1.json"
            )),
            ConfigFile::Trajectory => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/configs/trajectory_v1.json"
            )),
            ConfigFile::Envelope => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/configs/envelope_v1.json"
            )),
            ConfigFile::Scouting => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/configs/scouting_v1.json"
            )),
        }
    }
}

/// Where the effective text of a config file came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "path", rename_all = "snake_case")]
pub enum ConfigSource {
    /// The shipped file embedded in the binary.
    Builtin,
    /// A file of the config directory.
    File(PathBuf),
}

impl ConfigSource {
    /// The label that errors use for the file.
    fn label(&self, file: ConfigFile) -> String {
        match self {
            ConfigSource::Builtin => format!("{} (built-in)", file.file_name()),
            ConfigSource::File(p) => p.display().to_string(),
        }
    }
}

impl fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigSource::Builtin => f.write_str("built-in"),
            ConfigSource::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// An error of loading or validating the configuration; each names the file and, where it
/// has one, the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The OS error is in the message, not a source, so that it is printed once.
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("config directory {0}: not a directory")]
    NotADirectory(PathBuf),
    #[error(
        "config directory {0} holds none of control_v1.json, trajectory_v1.json, \
         envelope_v1.json, scouting_v1.json"
    )]
    EmptyDirectory(PathBuf),
    #[error("{file}: {}{message} (line {line}, column {column})", key_prefix(.key))]
    Parse {
        file: String,
        key: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: key `{key}`: {reason}")]
    Invalid {
        file: String,
        key: String,
        reason: String,
    },
    #[error("{0} exists already (use --force to overwrite)")]
    Exists(PathBuf),
}

fn key_prefix(key: &str) -> String {
    if key.is_empty() || key == "." {
        String::new()
    } else {
        format!("key `{key}`: ")
    }
}

/// Parses one config text strictly, with the path of the failing key in the error.
fn parse<T: DeserializeOwned>(label: &str, text: &str) -> Result<T, ConfigError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(de).map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        ConfigError::Parse {
            file: label.to_string(),
            key,
            line: inner.line(),
            column: inner.column(),
            message: strip_position(&inner.to_string()),
        }
    })?;
    Ok(value)
}

/// serde_json appends " at line L column C"; the error prints the position itself.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// Validation of numbers, naming the file and the key of the first bad value.
struct Check<'a> {
    pub(super) file: &'a str,
}

impl Check<'_> {
    fn fail(&self, key: &str, reason: String) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.to_string(),
            key: key.to_string(),
            reason,
        }
    }

    /// `lo ≤ v ≤ hi`, and finite.
    fn range(&self, key: &str, v: f64, lo: f64, hi: f64) -> Result<(), ConfigError> {
        if !v.is_finite() {
            return Err(self.fail(key, format!("{v} is not a finite number")));
        }
        if v < lo || v > hi {
            return Err(self.fail(key, format!("{v:?} is outside [{lo:?}, {hi:?}]")));
        }
        Ok(())
    }

    /// `0 < v ≤ hi`, and finite.
    fn positive(&self, key: &str, v: f64, hi: f64) -> Result<(), ConfigError> {
        self.range(key, v, f64::MIN_POSITIVE, hi)
            .map_err(|_| self.fail(key, format!("{v:?} must be positive and at most {hi:?}")))
    }

    /// `a ≤ b` for two keys of the file.
    fn ordered(&self, key_a: &str, a: f64, key_b: &str, b: f64) -> Result<(), ConfigError> {
        if a > b {
            return Err(self.fail(
                key_a,
                format!(
                    "{a:?} is above `{key_b}` ({b:?}); the minimum must not exceed the maximum"
                ),
            ));
        }
        Ok(())
    }
}

/// The effective configuration: the four files, validated, with where each came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub control: ControlConfig,
    pub trajectory: TrajectoryConfig,
    pub envelope: EnvelopeConfig,
    pub scouting: ScoutingConfig,
    /// The source of each file, in the order of [`ConfigFile::ALL`].
    pub sources: [ConfigSource; 4],
}

impl Config {
    /// The shipped configuration. It is validated by the tests, so it cannot fail here.
    pub fn builtin() -> Config {
        Config::load(None).expect("the shipped configuration is valid")
    }

    /// Loads the configuration: the files of `dir` where it holds them, the shipped ones
    /// elsewhere.
    pub fn load(dir: Option<&Path>) -> Result<Config, ConfigError> {
        let mut texts: Vec<(String, ConfigSource)> = Vec::with_capacity(4);
        if let Some(dir) = dir {
            if !dir.is_dir() {
                return Err(ConfigError::NotADirectory(dir.to_path_buf()));
            }
        }
        for file in ConfigFile::ALL {
            let path = dir.map(|d| d.join(file.file_name()));
            match path {
                Some(p) if p.exists() => {
                    let text = std::fs::read_to_string(&p).map_err(|source| ConfigError::Io {
                        path: p.clone(),
                        error: source,
                    })?;
                    texts.push((text, ConfigSource::File(p)));
                }
                _ => texts.push((file.builtin_text().to_string(), ConfigSource::Builtin)),
            }
        }
        if let Some(dir) = dir {
            if texts.iter().all(|(_, s)| *s == ConfigSource::Builtin) {
                return Err(ConfigError::EmptyDirectory(dir.to_path_buf()));
            }
        }
        let [control, trajectory, envelope, scouting]: [(String, ConfigSource); 4] =
            texts.try_into().expect("four config files");
        Config::from_texts(control, trajectory, envelope, scouting)
    }

    /// Parses and validates four texts with their sources (tests need no files).
    pub fn from_texts(
        control: (String, ConfigSource),
        trajectory: (String, ConfigSource),
        envelope: (String, ConfigSource),
        scouting: (String, ConfigSource),
    ) -> Result<Config, ConfigError> {
        let labels = [
            control.1.label(ConfigFile::Control),
            trajectory.1.label(ConfigFile::Trajectory),
            envelope.1.label(ConfigFile::Envelope),
            scouting.1.label(ConfigFile::Scouting),
        ];
        let c: ControlConfig = parse(&labels[0], &control.0)?;
        c.validate(&labels[0])?;
        let t: TrajectoryConfig = parse(&labels[1], &trajectory.0)?;
        t.validate(&labels[1])?;
        let e: EnvelopeConfig = parse(&labels[2], &envelope.0)?;
        validate_envelope(&e, &labels[2], c.corridor.range_m)?;
        let s: ScoutingConfig = parse(&labels[3], &scouting.0)?;
        s.validate(&labels[3])?;
        Ok(Config {
            control: c,
            trajectory: t,
            envelope: e,
            scouting: s,
            sources: [control.1, trajectory.1, envelope.1, scouting.1],
        })
    }

    /// The effective content of one file, as JSON.
    pub fn file_value(&self, file: ConfigFile) -> serde_json::Value {
        let v = match file {
            ConfigFile::Control => serde_json::to_value(&self.control),
            ConfigFile::Trajectory => serde_json::to_value(&self.trajectory),
            ConfigFile::Envelope => serde_json::to_value(&self.envelope),
            ConfigFile::Scouting => serde_json::to_value(&self.scouting),
        };
        v.expect("config structs serialize")
    }

    /// The source of one file.
    pub fn source(&self, file: ConfigFile) -> &ConfigSource {
        let i = ConfigFile::ALL.iter().position(|f| *f == file).unwrap_or(0);
        &self.sources[i]
    }
}

/// Writes the shipped config files into `dir` (created if missing) for editing; refuses to
/// overwrite an existing file unless `force`. Each file is written atomically.
pub fn write_defaults(dir: &Path, force: bool) -> Result<Vec<PathBuf>, ConfigError> {
    std::fs::create_dir_all(dir).map_err(|source| ConfigError::Io {
        path: dir.to_path_buf(),
        error: source,
    })?;
    let paths: Vec<PathBuf> = ConfigFile::ALL
        .iter()
        .map(|f| dir.join(f.file_name()))
        .collect();
    if !force {
        if let Some(p) = paths.iter().find(|p| p.exists()) {
            return Err(ConfigError::Exists(p.clone()));
        }
    }
    for (file, path) in ConfigFile::ALL.iter().zip(&paths) {
        crate::formats::atomic::write_atomic(path, file.builtin_text().as_bytes()).map_err(
            |source| ConfigError::Io {
                path: path.clone(),
                error: source,
            },
        )?;
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::envelope::Grip;

    fn texts_with(file: ConfigFile, text: &str) -> Result<Config, ConfigError> {
        let pick = |f: ConfigFile| {
            let t = if f == file {
                text.to_string()
            } else {
                f.builtin_text().to_string()
            };
            (
                t,
                ConfigSource::File(PathBuf::from(format!("cfg/{}", f.file_name()))),
            )
        };
        Config::from_texts(
            pick(ConfigFile::Control),
            pick(ConfigFile::Trajectory),
            pick(ConfigFile::Envelope),
            pick(ConfigFile::Scouting),
        )
    }

    fn edit(file: ConfigFile, f: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut v: serde_json::Value = serde_json::from_str(file.builtin_text()).unwrap();
        f(&mut v);
        v.to_string()
    }

    fn err_of(file: ConfigFile, f: impl FnOnce(&mut serde_json::Value)) -> String {
        texts_with(file, &edit(file, f)).unwrap_err().to_string()
    }

    #[test]
    fn shipped_configs_have_the_reference_defaults() {
        let c = Config::builtin();
        let s = &c.control.shield;
        assert_eq!(s.curvature_max_per_m, 0.2);
        assert_eq!((s.speed_min_mps, s.speed_max_mps), (-1.5, 7.8));
        assert_eq!(
            (s.vehicle_margin_m, s.geofence_margin_m, s.obstacle_extra_m),
            (0.8, 0.3, 0.32)
        );
        assert_eq!(s.lateral_accel_max_mps2, 1.5);
        assert_eq!(
            (s.obstacle_margin_m, s.latency_s, s.brake_decel_mps2),
            (1.5, 0.5, 0.8)
        );
        let k = &c.control.corridor;
        assert_eq!((k.beams, k.range_m), (360, 40.0));
        assert_eq!((k.narrow_time_s, k.narrow_floor_m), (0.075, 0.1));
        assert_eq!(k.response_s, 0.5);
        assert_eq!((k.scan_source, k.scan_crops), (ScanSource::Sweep, false));
        let l = &c.trajectory.limits;
        assert_eq!((l.accel_max_mps2, l.decel_max_mps2), (1.1, 1.5));
        assert_eq!(l.curvature_rate_max_per_m2, 0.1);
        assert_eq!(l.steering_rate_max_per_m_s, 0.059);
        assert_eq!(l.follower_error_m, 0.32);
        assert_eq!(
            (l.start_position_m, l.start_heading_deg, l.start_speed_mps),
            (0.5, 15.0, 1.0)
        );
        let d = &c.scouting.driver;
        assert_eq!(
            (d.lookahead_min_m, d.lookahead_gain_s, d.lookahead_max_m),
            (4.0, 0.6, 9.0)
        );
        assert!(c.sources.iter().all(|s| *s == ConfigSource::Builtin));
    }

    #[test]
    fn unknown_key_is_refused_with_file_and_key() {
        let e = err_of(ConfigFile::Control, |v| {
            v["shield"]["curvature_max"] = 0.2.into();
        });
        assert!(e.contains("cfg/control_v1.json"), "{e}");
        assert!(e.contains("shield") && e.contains("curvature_max"), "{e}");
        assert!(e.contains("unknown field"), "{e}");
    }

    #[test]
    fn negative_deceleration_is_refused_with_file_and_key() {
        let e = err_of(ConfigFile::Envelope, |v| {
            v["grips"]["unknown"]["gravel"]["decel_mps2"] = (-1.2).into();
        });
        assert!(e.contains("cfg/envelope_v1.json"), "{e}");
        assert!(e.contains("grips.unknown.gravel.decel_mps2"), "{e}");
        let e = err_of(ConfigFile::Control, |v| {
            v["shield"]["brake_decel_mps2"] = 0.0.into();
        });
        assert!(e.contains("shield.brake_decel_mps2"), "{e}");
    }

    #[test]
    fn min_above_max_is_refused_with_file_and_key() {
        let e = err_of(ConfigFile::Scouting, |v| {
            v["driver"]["lookahead_min_m"] = 12.0.into();
        });
        assert!(e.contains("cfg/scouting_v1.json"), "{e}");
        assert!(
            e.contains("driver.lookahead_min_m") && e.contains("driver.lookahead_max_m"),
            "{e}"
        );
        let e = err_of(ConfigFile::Envelope, |v| {
            v["grips"]["unknown"]["field"]["speed_command_mps"] = 5.7.into();
        });
        assert!(e.contains("grips.unknown.field.speed_command_mps"), "{e}");
        // Equal bounds are allowed (a vehicle that may not move).
        let still = edit(ConfigFile::Control, |v| {
            v["shield"]["speed_min_mps"] = 0.0.into();
            v["shield"]["speed_max_mps"] = 0.0.into();
        });
        assert!(texts_with(ConfigFile::Control, &still).is_ok());
    }

    #[test]
    fn missing_block_is_refused_with_file_and_key() {
        let e = err_of(ConfigFile::Control, |v| {
            v.as_object_mut().unwrap().remove("corridor");
        });
        assert!(e.contains("cfg/control_v1.json"), "{e}");
        assert!(e.contains("missing field `corridor`"), "{e}");
        let e = err_of(ConfigFile::Trajectory, |v| {
            v["limits"]
                .as_object_mut()
                .unwrap()
                .remove("follower_error_m");
        });
        assert!(
            e.contains("limits") && e.contains("missing field `follower_error_m`"),
            "{e}"
        );
    }

    #[test]
    fn wrong_type_names_the_key_and_line() {
        let text = ConfigFile::Trajectory
            .builtin_text()
            .replace("\"accel_max_mps2\": 1.1", "\"accel_max_mps2\": \"fast\"");
        let e = texts_with(ConfigFile::Trajectory, &text)
            .unwrap_err()
            .to_string();
        assert!(e.contains("key `limits.accel_max_mps2`"), "{e}");
        assert!(e.contains("line 3"), "{e}");
    }

    #[test]
    fn envelope_beyond_the_scan_reach_is_refused() {
        // 9 m/s on asphalt: 2.5 + 9 + 81/2.4 = 45.25 m > 40 m.
        let e = err_of(ConfigFile::Envelope, |v| {
            v["grips"]["unknown"]["asphalt"]["speed_mps"] = 9.0.into();
        });
        assert!(e.contains("grips.unknown.asphalt.speed_mps"), "{e}");
        assert!(e.contains("45.25") && e.contains("scan reach"), "{e}");
        // A shorter reach breaks the shipped table too.
        let e = err_of(ConfigFile::Control, |v| {
            v["corridor"]["range_m"] = 30.0.into();
        });
        assert!(
            e.contains("envelope_v1.json") && e.contains("scan reach of 30"),
            "{e}"
        );
    }

    #[test]
    fn dry_table_is_optional_and_validated() {
        let with_dry = edit(ConfigFile::Envelope, |v| {
            let t = v["grips"]["unknown"].clone();
            v["grips"]["dry"] = t;
            v["grips"]["dry"]["dirt"]["speed_command_mps"] = 7.2.into();
        });
        let c = texts_with(ConfigFile::Envelope, &with_dry).unwrap();
        assert_eq!(
            c.envelope.table(Grip::Dry).unwrap().dirt.speed_command_mps,
            7.2
        );
        // The shipped file has the calibrated dry table; without it the file still loads.
        assert!(Config::builtin().envelope.table(Grip::Dry).is_some());
        let without = edit(ConfigFile::Envelope, |v| {
            v["grips"].as_object_mut().unwrap().remove("dry");
        });
        let c = texts_with(ConfigFile::Envelope, &without).unwrap();
        assert!(c.envelope.table(Grip::Dry).is_none());
        let e = err_of(ConfigFile::Envelope, |v| {
            let t = v["grips"]["unknown"].clone();
            v["grips"]["dry"] = t;
            v["grips"]["dry"]["grass"]["lateral_accel_max_mps2"] = f64::NAN.into();
        });
        // NaN is not JSON: serde_json writes null, which the parser refuses as a type.
        assert!(e.contains("grips.dry.grass.lateral_accel_max_mps2"), "{e}");
    }

    #[test]
    fn missing_class_row_is_refused() {
        let e = err_of(ConfigFile::Envelope, |v| {
            v["grips"]["unknown"]
                .as_object_mut()
                .unwrap()
                .remove("dirt");
        });
        assert!(e.contains("missing field `dirt`"), "{e}");
    }

    #[test]
    fn directory_overrides_file_by_file() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            Config::load(Some(dir.path())),
            Err(ConfigError::EmptyDirectory(_))
        ));
        let text = edit(ConfigFile::Trajectory, |v| {
            v["limits"]["accel_max_mps2"] = 0.9.into();
        });
        std::fs::write(dir.path().join("trajectory_v1.json"), text).unwrap();
        let c = Config::load(Some(dir.path())).unwrap();
        assert_eq!(c.trajectory.limits.accel_max_mps2, 0.9);
        assert_eq!(c.control, Config::builtin().control);
        assert!(matches!(
            c.source(ConfigFile::Trajectory),
            ConfigSource::File(_)
        ));
        assert_eq!(*c.source(ConfigFile::Control), ConfigSource::Builtin);
        let missing = dir.path().join("nope");
        assert!(matches!(
            Config::load(Some(&missing)),
            Err(ConfigError::NotADirectory(_))
        ));
    }

    #[test]
    fn written_defaults_load_back_identically() {
        let dir = tempfile::tempdir().unwrap();
        let written = write_defaults(dir.path(), false).unwrap();
        assert_eq!(written.len(), 4);
        let c = Config::load(Some(dir.path())).unwrap();
        let b = Config::builtin();
        assert_eq!(
            (&c.control, &c.trajectory, &c.envelope, &c.scouting),
            (&b.control, &b.trajectory, &b.envelope, &b.scouting)
        );
        assert!(matches!(
            write_defaults(dir.path(), false),
            Err(ConfigError::Exists(_))
        ));
        assert!(write_defaults(dir.path(), true).is_ok());
    }
}
