//! The scenario file of `acres sim`, `acres bridge serve` and `acres replay`
//! (docs/formats.md "Scenarios"): the ground, an optional map, the route, the obstacles,
//! the start and the duration. Parsing is strict; errors name the file and the key.

use crate::chain::path::{Path, PathError};
use crate::formats::route::RouteFile;
use crate::ground::Map;
use crate::plant::actors::ActorSpec;
use crate::plant::world::{Obstacle, Plane, validate_obstacle};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// An error of a scenario file: it names the file and the key.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("{file}: {message}")]
    Key { file: String, message: String },
    /// The OS error is in the message, not a source, so that it is printed once.
    #[error("reading {file}: {error}")]
    Read { file: String, error: std::io::Error },
    #[error(transparent)]
    Path(#[from] crate::chain::path::PathError),
}

/// The fastest start speed of a scenario, m/s: the vehicle bridge's reset range is 0 to 8
/// (vehicle-bridge.md, `reset.speed`).
pub const MAX_START_SPEED_MPS: f64 = 8.0;

/// The distance from the route beyond which a scenario's start is far from it, m: the
/// driver then heads for the nearest point of the whole route (a warning, not an error).
pub const FAR_START_M: f64 = 10.0;

/// The start of a scenario: the rear axle's pose and the speed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Start {
    pub x_m: f64,
    pub y_m: f64,
    pub yaw_rad: f64,
    #[serde(default)]
    pub speed_mps: f64,
}

/// The route of a scenario: a shipped route by name, a file beside the scenario, or
/// the route itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RouteRef {
    Name(String),
    Inline(RouteFile),
}

/// A scenario (`data/scenarios/*.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub name: String,
    pub ground: Plane,
    /// A map whose classes and elevation make the ground (its state stays `ground`'s):
    /// `farm` for the shipped map, or a manifest file beside the scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map: Option<String>,
    pub route: RouteRef,
    #[serde(default)]
    pub obstacles: Vec<Obstacle>,
    /// Moving persons, vehicles and objects (docs/formats.md "Actors").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actors: Vec<ActorSpec>,
    pub start: Start,
    /// The longest simulated time, s.
    pub duration_s: f64,
    /// The shield's obstacle rule on (default) or off.
    #[serde(default = "yes")]
    pub shield: bool,
    /// The shield's corner rule on (default) or off.
    #[serde(default = "yes")]
    pub corner_rule: bool,
    /// Whether the log records the scan (default yes).
    #[serde(default = "yes")]
    pub record_scan: bool,
    /// The directory of the scenario file, for files named in it.
    #[serde(skip)]
    pub dir: Option<std::path::PathBuf>,
    /// The file as named in errors.
    #[serde(skip)]
    pub file: String,
}

fn yes() -> bool {
    true
}

/// The default scenario, the reference's opening figure.
pub const DEFAULT_SCENARIO: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/scenarios/opening.json"
));

/// The shipped scenarios (data/scenarios/), built in so that the binary and the Python
/// package find them by name from anywhere.
pub const SHIPPED: [(&str, &str); 6] = [
    ("opening", DEFAULT_SCENARIO),
    (
        "opening_no_shield_collides",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/scenarios/opening_no_shield_collides.json"
        )),
    ),
    (
        "crossing_person",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/scenarios/crossing_person.json"
        )),
    ),
    (
        "farm_terrace_wet",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/scenarios/farm_terrace_wet.json"
        )),
    ),
    (
        "field_loop_dry",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/scenarios/field_loop_dry.json"
        )),
    ),
    (
        "lane_downhill_wet",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/scenarios/lane_downhill_wet.json"
        )),
    ),
];

impl Scenario {
    /// A shipped scenario by its name, with or without `.json` (None: no such scenario).
    pub fn shipped(name: &str) -> Option<Result<Scenario, ScenarioError>> {
        let name = name.strip_suffix(".json").unwrap_or(name);
        let (n, text) = SHIPPED.iter().find(|(n, _)| *n == name)?;
        Some(Scenario::from_json_str(
            &format!("data/scenarios/{n}.json"),
            text,
        ))
    }

    /// Parses a scenario; `file` names it in errors and resolves a route file beside it.
    pub fn from_json_str(file: &str, text: &str) -> Result<Scenario, ScenarioError> {
        let err = |message: String| ScenarioError::Key {
            file: file.to_string(),
            message,
        };
        let de = &mut serde_json::Deserializer::from_str(text);
        let mut s: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            err(format!("key `{key}`: {}", e.into_inner()))
        })?;
        s.file = file.to_string();
        let st = &s.start;
        use crate::formats::bounds as b;
        let key = |m: String| err(format!("key {m}"));
        b::position("start.x_m", st.x_m).map_err(key)?;
        b::position("start.y_m", st.y_m).map_err(key)?;
        b::angle_rad("start.yaw_rad", st.yaw_rad).map_err(key)?;
        if !st.speed_mps.is_finite() {
            return Err(err("key `start.speed_mps`: not a finite number".into()));
        }
        if !(0.0..=MAX_START_SPEED_MPS).contains(&st.speed_mps) {
            return Err(err(format!(
                "key `start.speed_mps`: {:?} is outside [0, {MAX_START_SPEED_MPS}] m/s (the \
                 vehicle bridge's reset range)",
                st.speed_mps
            )));
        }
        if !(s.duration_s.is_finite() && s.duration_s > 0.0 && s.duration_s <= 3600.0) {
            return Err(err("key `duration_s`: must be in (0, 3600] s".into()));
        }
        if !(s.ground.slope_pct.is_finite()
            && s.ground.slope_pct.abs() <= 100.0
            && s.ground.slope_dir_deg.abs() <= b::MAX_ANGLE_DEG)
        {
            return Err(err(
                "key `ground`: slope_pct in [−100, 100] and a finite slope_dir_deg".into(),
            ));
        }
        for (i, o) in s.obstacles.iter().enumerate() {
            validate_obstacle(o).map_err(|e| err(format!("key `obstacles[{i}]`: {e}")))?;
        }
        for (i, a) in s.actors.iter().enumerate() {
            a.validate()
                .map_err(|e| err(format!("key `actors[{i}]` ({:?}): {e}", a.name)))?;
        }
        Ok(s)
    }

    /// The map a scenario names: `farm` for the shipped map, or a manifest file beside
    /// the scenario.
    pub fn load_map(&self, name: &str) -> Result<Arc<Map>, ScenarioError> {
        if name == "farm" {
            return Ok(Arc::new(Map::builtin_farm()));
        }
        let p = self
            .dir
            .as_deref()
            .map(|d| d.join(name))
            .unwrap_or_else(|| name.into());
        Map::load(&p).map(Arc::new).map_err(|e| ScenarioError::Key {
            file: self.file.clone(),
            message: format!("key `map`: {e}"),
        })
    }

    /// The route, resolved: inline, a file beside `dir`, or a shipped route by name.
    pub fn path(&self, dir: Option<&std::path::Path>) -> Result<Path, ScenarioError> {
        match &self.route {
            RouteRef::Inline(r) => Path::new(&r.name, &r.points).map_err(|e| ScenarioError::Key {
                file: self.file.clone(),
                message: format!("key `route`: {e}"),
            }),
            RouteRef::Name(n) => {
                if let Some(p) = dir.map(|d| d.join(n)).filter(|p| p.exists()) {
                    return Path::load(&p).or_else(|e| self.route_on_map(&p, e));
                }
                Path::builtin_named(n).ok_or_else(|| ScenarioError::Key {
                    file: self.file.clone(),
                    message: format!("key `route`: no route `{n}` beside the scenario or shipped"),
                })
            }
        }
    }
}

impl Scenario {
    /// A route that did not load in map metres, tried again on the scenario's map's CRS
    /// (a GeoJSON route on the Earth); without a map, or where that fails too, the error.
    fn route_on_map(&self, p: &std::path::Path, first: PathError) -> Result<Path, ScenarioError> {
        let Some(name) = &self.map else {
            return Err(first.into());
        };
        let map = self.load_map(name)?;
        match map.crs {
            None if map.crs_note.is_none() => Err(first.into()),
            _ => Ok(Path::load_on(p, map.route_crs())?),
        }
    }

    /// The scenario of a file, with its directory for the files it names; without a file
    /// the built-in default (the reference's opening figure).
    pub fn load(file: Option<&std::path::Path>) -> Result<Scenario, ScenarioError> {
        let Some(p) = file else {
            return Scenario::from_json_str("data/scenarios/opening.json", DEFAULT_SCENARIO);
        };
        // A bare name that is no file here: a shipped scenario of that name.
        let bare = p.parent().is_none_or(|d| d.as_os_str().is_empty());
        if bare && !p.exists() {
            if let Some(s) = p.to_str().and_then(Scenario::shipped) {
                return s;
            }
        }
        let text = std::fs::read_to_string(p).map_err(|source| ScenarioError::Read {
            file: p.display().to_string(),
            error: source,
        })?;
        let mut s = Scenario::from_json_str(&p.display().to_string(), &text)?;
        s.dir = p.parent().map(|d| d.to_path_buf());
        Ok(s)
    }

    /// The route, resolved beside the scenario's own directory.
    pub fn route(&self) -> Result<Path, ScenarioError> {
        self.path(self.dir.as_deref())
    }

    /// The distance from the start to the nearest point of `route`, m, where it is more
    /// than [`FAR_START_M`]: a start the author likely did not mean (a warning).
    pub fn far_start_m(&self, route: &Path) -> Option<f64> {
        let p = geo::Coord {
            x: self.start.x_m,
            y: self.start.y_m,
        };
        let d = route
            .parts()
            .iter()
            .map(|part| route.project(p, part, None).lateral_m.abs())
            .fold(f64::INFINITY, f64::min);
        (d > FAR_START_M && d.is_finite()).then_some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_speed_outside_the_reset_range_is_refused() {
        let text = |v: &str| {
            let mut j: serde_json::Value = serde_json::from_str(DEFAULT_SCENARIO).unwrap();
            j["start"]["speed_mps"] = serde_json::from_str(v).unwrap();
            j.to_string()
        };
        for ok in ["0", "8", "7.99"] {
            Scenario::from_json_str("s.json", &text(ok)).unwrap();
        }
        for bad in ["8.01", "-0.5", "100"] {
            let e = Scenario::from_json_str("s.json", &text(bad))
                .unwrap_err()
                .to_string();
            assert!(e.contains("s.json") && e.contains("start.speed_mps"), "{e}");
        }
    }

    /// The start's place and heading within docs/formats.md "Bounds" (issue 63: a start
    /// x of 1e12 and a yaw of 1e300 were taken).
    #[test]
    fn a_start_beyond_the_bounds_is_refused_naming_its_key() {
        let text = |k: &str, v: f64| {
            let mut j: serde_json::Value = serde_json::from_str(DEFAULT_SCENARIO).unwrap();
            j["start"][k] = v.into();
            j.to_string()
        };
        for (k, v, want) in [
            (
                "x_m",
                1e12,
                "key `start.x_m`: 1e12 is outside -1e8 to 1e8 m",
            ),
            (
                "y_m",
                -1.0000001e8,
                "key `start.y_m`: -1.0000001e8 is outside",
            ),
            (
                "yaw_rad",
                1e300,
                "key `start.yaw_rad`: 1e300 is outside -1e6 to 1e6 rad",
            ),
        ] {
            let e = Scenario::from_json_str("s.json", &text(k, v)).unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
        }
        Scenario::from_json_str("s.json", &text("yaw_rad", -1e6)).unwrap();
    }

    /// A polygon of more than 10,000 vertices is refused (issue 63: 100,000 took more than
    /// 30 s in `sim`); 10,000 are taken.
    #[test]
    fn a_polygon_of_too_many_vertices_is_refused() {
        let ring = |n: usize| {
            let pts: Vec<String> = (0..n)
                .map(|i| {
                    let a = i as f64 * std::f64::consts::TAU / n as f64;
                    format!("[{}, {}]", 60.0 + a.cos(), 30.0 + a.sin())
                })
                .collect();
            format!(r#"[{{"polygon": {{"points": [{}]}}}}]"#, pts.join(","))
        };
        with("obstacles", &ring(10_000)).unwrap();
        let e = with("obstacles", &ring(100_000)).unwrap_err().to_string();
        assert!(
            e.contains("obstacles[0]") && e.contains("`points`: 100000 vertices, more than 10000"),
            "{e}"
        );
    }

    #[test]
    fn a_start_far_from_the_route_is_found() {
        let s = Scenario::load(None).unwrap();
        let route = s.route().unwrap();
        assert_eq!(s.far_start_m(&route), None);
        let mut far = s.clone();
        far.start.y_m += 50.0;
        let d = far.far_start_m(&route).expect("50 m away");
        assert!(d > 45.0 && d < 55.0, "{d}");
    }

    /// The opening scenario with one actor or obstacle replaced by `json`.
    fn with(key: &str, json: &str) -> Result<Scenario, ScenarioError> {
        let mut v: serde_json::Value = serde_json::from_str(DEFAULT_SCENARIO).unwrap();
        v[key] = "@here@".into();
        let text = v.to_string().replace("\"@here@\"", json);
        Scenario::from_json_str("s.json", &text)
    }

    #[test]
    fn a_bad_actor_is_an_error_naming_the_actor() {
        let person = r#""kind": "person", "start": {"at_s": 1.0}"#;
        let cases = [
            (format!(r#"[{{"name": "a", {person}}}]"#), "actors[0]"),
            (
                format!(
                    r#"[{{"name": "b", {person}, "motion": {{"straight": {{"x_m": 0, "y_m": 0,
                    "heading_rad": 0, "speed_mps": -1, "distance_m": 5}}}}}}]"#
                ),
                "`actors[0]` (\"b\"): `motion.straight.speed_mps`",
            ),
            (
                r#"[{"name": "c", "kind": {"object": {"polygon": {"points": [[0, 0], [1, 0]]}}},
                   "motion": {"stand": {"x_m": 5, "y_m": 5}}}]"#
                    .to_string(),
                "`actors[0]` (\"c\"): `kind.object`: a polygon needs 3 corners or more",
            ),
            (
                format!(
                    r#"[{{"name": "ok", {person}, "motion": {{"stand": {{"x_m": 9, "y_m": 9}}}}}},
                        {{"name": "d", {person}, "motion": {{"waypoints": [
                        {{"t_s": 0, "x_m": 0, "y_m": 9}}, {{"t_s": 1e400, "x_m": 1, "y_m": 9}}]}}}}]"#
                ),
                "actors[1]",
            ),
        ];
        for (json, want) in cases {
            let e = with("actors", &json).unwrap_err().to_string();
            assert!(e.contains("s.json") && e.contains(want), "{e}\nwant {want}");
        }
        // A person over the start pose.
        let s = with(
            "actors",
            r#"[{"name": "on me", "kind": "person", "motion": {"stand": {"x_m": 1.0, "y_m": 2.2}}}]"#,
        )
        .unwrap();
        let e = s
            .plant(&crate::config::Config::builtin())
            .unwrap_err()
            .to_string();
        assert!(e.contains("actors[0]") && e.contains("on me"), "{e}");
    }

    #[test]
    fn a_bad_obstacle_is_an_error_naming_it() {
        for (json, want) in [
            (
                r#"[{"circle": {"x_m": 5, "y_m": 0, "radius_m": 0}}]"#,
                "`radius_m` must be positive and at most 1e8 m, not 0",
            ),
            (
                r#"[{"circle": {"x_m": 1e12, "y_m": 0, "radius_m": 1}}]"#,
                "`x_m`: 1e12 is outside -1e8 to 1e8 m",
            ),
            (
                r#"[{"box": {"x_m": 0, "y_m": 0, "half_length_m": 1, "half_width_m": 1, "yaw_rad": 1e300}}]"#,
                "`yaw_rad`: 1e300 is outside",
            ),
            (
                r#"[{"polygon": {"points": [[0, 0], [1, 1]]}}]"#,
                "3 corners",
            ),
        ] {
            let e = with("obstacles", json).unwrap_err().to_string();
            assert!(e.contains("obstacles[0]") && e.contains(want), "{e}");
        }
    }
}
