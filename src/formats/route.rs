//! Route files (docs/formats.md "Routes"), read into a prepared [`Path`]:
//! - acres route JSON: `{"name": ..., "points": [{"x", "y", "speed_mps", "class",
//!   "direction"}, ...]}`;
//! - a GeoJSON `Feature` (or a `FeatureCollection` holding one) with a `LineString`
//!   geometry; its properties `speed_mps`, `class` and `direction` are either one value
//!   for every point or an array with one value per point.
//!
//! The shipped routes of `data/routes/` are built into the binary.

use crate::chain::path::{Direction, Path, PathError, PathPoint};
use serde::{Deserialize, Serialize};
use std::path::Path as FsPath;

/// The acres route file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteFile {
    /// A name for people.
    #[serde(default)]
    pub name: String,
    /// The points, in the order of travel.
    pub points: Vec<PathPoint>,
}

impl Path {
    /// Reads a path from a route file (acres JSON or GeoJSON).
    pub fn load(path: &FsPath) -> Result<Path, PathError> {
        let label = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| PathError {
            file: label.clone(),
            message: e.to_string(),
        })?;
        Path::from_json_str(&label, &text)
    }

    /// The names of the shipped routes of `data/routes/`, built into the binary.
    pub const BUILTIN: [&'static str; 6] = [
        "straight_lane.json",
        "field_loop.json",
        "yard_reverse.json",
        "farm_yard_to_east_lane.json",
        "farm_field_pass.json",
        "straight_lane.geojson",
    ];

    /// A shipped route by its file name (see [`Path::BUILTIN`]).
    pub fn builtin(name: &str) -> Option<Path> {
        let text = match name {
            "straight_lane.json" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/data/routes/straight_lane.json"
            )),
            "field_loop.json" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/data/routes/field_loop.json"
            )),
            "yard_reverse.json" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/data/routes/yard_reverse.json"
            )),
            "farm_yard_to_east_lane.json" => {
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/data/routes/farm_yard_to_east_lane.json"
                ))
            }
            "farm_field_pass.json" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/data/routes/farm_field_pass.json"
            )),
            "straight_lane.geojson" => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/data/routes/straight_lane.geojson"
            )),
            _ => return None,
        };
        Some(
            Path::from_json_str(&format!("data/routes/{name}"), text)
                .expect("the shipped routes are valid"),
        )
    }

    /// Parses a route text; `label` names it in errors.
    pub fn from_json_str(label: &str, text: &str) -> Result<Path, PathError> {
        let err = |message: String| PathError {
            file: label.to_string(),
            message,
        };
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| err(e.to_string()))?;
        if value.get("type").is_some() {
            let points = geojson_points(&value).map_err(err)?;
            return Path::new(label, &points);
        }
        let de = &mut serde_json::Deserializer::from_str(text);
        let file: RouteFile = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            let inner = e.into_inner();
            err(format!("key `{key}`: {inner}"))
        })?;
        Path::new(label, &file.points)
    }
}

/// The points of a GeoJSON LineString feature with per-point or per-feature properties.
fn geojson_points(value: &serde_json::Value) -> Result<Vec<PathPoint>, String> {
    let gj: geojson::GeoJson =
        serde_json::from_value(value.clone()).map_err(|e| format!("GeoJSON: {e}"))?;
    let feature = match gj {
        geojson::GeoJson::Feature(f) => f,
        geojson::GeoJson::FeatureCollection(fc) => {
            let n = fc.features.len();
            let mut it = fc.features.into_iter();
            match (it.next(), n) {
                (Some(f), 1) => f,
                _ => {
                    return Err(format!(
                        "a route FeatureCollection must hold 1 feature, not {n}"
                    ));
                }
            }
        }
        geojson::GeoJson::Geometry(_) => {
            return Err("a route needs a Feature with properties, not a bare geometry".into());
        }
    };
    let coords = match feature.geometry.map(|g| g.value) {
        Some(geojson::GeometryValue::LineString { coordinates }) => coordinates,
        _ => return Err("the route feature's geometry must be a LineString".into()),
    };
    let props = feature.properties.unwrap_or_default();
    let n = coords.len();
    let per_point = |key: &str| -> Result<Vec<serde_json::Value>, String> {
        match props.get(key) {
            None => Ok(vec![serde_json::Value::Null; n]),
            Some(serde_json::Value::Array(a)) if a.len() == n => Ok(a.clone()),
            Some(serde_json::Value::Array(a)) => Err(format!(
                "property `{key}` has {} values for {n} points",
                a.len()
            )),
            Some(v) => Ok(vec![v.clone(); n]),
        }
    };
    let speeds = per_point("speed_mps")?;
    let classes = per_point("class")?;
    let dirs = per_point("direction")?;
    let mut points = Vec::with_capacity(n);
    for (i, c) in coords.iter().enumerate() {
        if c.len() < 2 {
            return Err(format!("coordinate {i} has fewer than 2 numbers"));
        }
        let speed_mps = speeds[i]
            .as_f64()
            .ok_or_else(|| format!("property `speed_mps` of point {i} must be a number"))?;
        let class = serde_json::from_value(classes[i].clone())
            .map_err(|e| format!("property `class` of point {i}: {e}"))?;
        let direction = if dirs[i].is_null() {
            Direction::Forward
        } else {
            serde_json::from_value(dirs[i].clone())
                .map_err(|e| format!("property `direction` of point {i}: {e}"))?
        };
        points.push(PathPoint {
            x: c[0],
            y: c[1],
            speed_mps,
            class,
            direction,
        });
    }
    Ok(points)
}
