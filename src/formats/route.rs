//! Route files (docs/formats.md "Routes"), read into a prepared [`Path`]:
//! - acres route JSON: `{"name": ..., "points": [{"x", "y", "speed_mps", "class",
//!   "direction"}, ...]}`;
//! - a GeoJSON `Feature` (or a `FeatureCollection` holding one) with a `LineString`
//!   geometry; its properties `speed_mps`, `class` and `direction` are either one value
//!   for every point or an array with one value per point. Its coordinates are WGS84
//!   longitude and latitude (RFC 7946), projected onto a map's CRS ([`Crs`]), unless a
//!   2008-style `crs` member names another frame: `acres:map` (the map's own metres) or a
//!   projected `EPSG:<code>`.
//!
//! The shipped routes of `data/routes/` are built into the binary.

use crate::chain::path::{Direction, Path, PathError, PathPoint};
use crate::ground::{Crs, MapCrs};
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
    /// Reads a path from a route file (acres JSON, or GeoJSON in the map's own metres).
    /// A GeoJSON route on the Earth needs its map's CRS: see [`Path::load_on`].
    pub fn load(path: &FsPath) -> Result<Path, PathError> {
        Path::load_on(path, MapCrs::None)
    }

    /// Reads a path from a route file, placing a GeoJSON route in longitude and latitude (or
    /// another projected CRS) on a map whose CRS is `map_crs`.
    pub fn load_on(path: &FsPath, map_crs: MapCrs<'_>) -> Result<Path, PathError> {
        let label = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| PathError {
            file: label.clone(),
            message: e.to_string(),
        })?;
        Path::from_json_str_on(&label, &text, map_crs)
    }

    /// A route file, or where no file of that bare name is here, the shipped route of that
    /// name ([`Path::BUILTIN`]), so that the shipped routes are found from anywhere.
    pub fn load_named_on(path: &FsPath, map_crs: MapCrs<'_>) -> Result<Path, PathError> {
        let bare = path.parent().is_none_or(|d| d.as_os_str().is_empty());
        if bare && !path.exists() {
            let name = path.to_str().unwrap_or("");
            return Path::builtin_named(name).ok_or_else(|| PathError {
                file: path.display().to_string(),
                message: format!(
                    "no such file, nor a shipped route of that name (the shipped: {})",
                    Path::BUILTIN.join(", ")
                ),
            });
        }
        Path::load_on(path, map_crs)
    }

    /// A shipped route by its name, with or without `.json` (`straight_lane` is
    /// `straight_lane.json`; the GeoJSON form needs its `.geojson`).
    pub fn builtin_named(name: &str) -> Option<Path> {
        Path::builtin(name).or_else(|| {
            std::path::Path::new(name)
                .extension()
                .is_none()
                .then(|| Path::builtin(&format!("{name}.json")))
                .flatten()
        })
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
        Path::from_json_str_on(label, text, MapCrs::None)
    }

    /// Parses a route text, placing GeoJSON coordinates on a map whose CRS is `map_crs`.
    pub fn from_json_str_on(
        label: &str,
        text: &str,
        map_crs: MapCrs<'_>,
    ) -> Result<Path, PathError> {
        let err = |message: String| PathError {
            file: label.to_string(),
            message,
        };
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            let first = text.trim_start().chars().next();
            if matches!(first, Some('{') | Some('[')) {
                err(e.to_string())
            } else {
                // Not JSON at all: say what a route file is (a CSV, a bag, a map...).
                err(format!(
                    "not a route: a route file is acres route JSON ({{\"name\", \"points\": \
                     [{{\"x\", \"y\", \"speed_mps\", ...}}]}}) or a GeoJSON LineString \
                     (docs/formats.md \"Routes\"); this file is not JSON ({e})"
                ))
            }
        })?;
        if value.get("type").is_some() {
            let mut points = geojson_points(&value).map_err(err)?;
            let frame = frame_of(&value).map_err(err)?;
            place(&mut points, frame, map_crs).map_err(err)?;
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

/// The frame of a GeoJSON route's coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// WGS84 longitude and latitude in degrees: RFC 7946's only frame, so a file without a
    /// `crs` member is in it.
    LonLat,
    /// The map's own metres (`"crs": {"type": "name", "properties": {"name": "acres:map"}}`).
    Map,
    /// A projected CRS (`EPSG:<code>` or its URN).
    Projected(Crs),
}

/// The frame a GeoJSON object's `crs` member (GeoJSON 2008, kept by many tools) names.
pub fn frame_of(value: &serde_json::Value) -> Result<Frame, String> {
    let Some(crs) = value.get("crs") else {
        return Ok(Frame::LonLat);
    };
    let name = crs
        .get("properties")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .ok_or("the `crs` member must be {\"type\": \"name\", \"properties\": {\"name\": ...}}")?;
    let lower = name.to_ascii_lowercase();
    if lower == "acres:map" {
        return Ok(Frame::Map);
    }
    if lower.ends_with("crs84") || Crs::parse(name).is_err() && lower.ends_with("4326") {
        return Ok(Frame::LonLat);
    }
    Crs::parse(name)
        .map(Frame::Projected)
        .map_err(|e| format!("the `crs` member: {e}"))
}

/// Moves the points from their frame into the map's metres: longitude and latitude are
/// projected onto the map's CRS, another projected CRS is converted to it; a route on the
/// Earth with a map of no CRS, or of one acres cannot use, is refused, never read as metres.
fn place(points: &mut [PathPoint], frame: Frame, map_crs: MapCrs<'_>) -> Result<(), String> {
    let xy: Vec<(f64, f64)> = points.iter().map(|p| (p.x, p.y)).collect();
    let in_metres = "for a route in the map's own metres, add \"crs\": {\"type\": \"name\", \
                     \"properties\": {\"name\": \"acres:map\"}}";
    let moved = match (frame, map_crs) {
        (Frame::Map, _) => return Ok(()),
        (Frame::LonLat, MapCrs::Known(crs)) => crs.from_lon_lat(&xy)?,
        (Frame::Projected(from), MapCrs::Known(crs)) => crs.from_crs(from, &xy)?,
        (Frame::LonLat, MapCrs::None) => {
            return Err(format!(
                "the route is in WGS84 longitude and latitude (a GeoJSON without a `crs` \
                 member, RFC 7946) and its map names no CRS to project it onto: give a map \
                 with one (a GeoTIFF, or a manifest's `crs`), or, {in_metres}"
            ));
        }
        (Frame::Projected(from), MapCrs::None) => {
            return Err(format!(
                "the route is in {from} and its map names no CRS to convert it to"
            ));
        }
        (frame, MapCrs::Unusable(why)) => {
            let what = match frame {
                Frame::Projected(from) => from.to_string(),
                _ => "WGS84 longitude and latitude".to_string(),
            };
            return Err(format!(
                "the route is in {what}, but its map's CRS cannot be used: {why}; or, \
                 {in_metres}"
            ));
        }
    };
    for (p, (x, y)) in points.iter_mut().zip(moved) {
        (p.x, p.y) = (x, y);
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn data(name: &str) -> PathBuf {
        crate::formats::test_data(&format!("geotiff/{name}"))
    }

    /// The route PROJ wrote as longitude and latitude (tests/data/geotiff/make.py) lands on
    /// the UTM points it came from, to a millimetre, on a map in UTM zone 15N.
    /// A shipped route's name works with or without `.json`, as `--help` says (issue 64:
    /// `route check straight_lane` said "No such file"); an unknown bare name lists the
    /// shipped ones; a file of that name comes first.
    #[test]
    fn a_shipped_route_is_found_by_its_name_with_or_without_json() {
        let bare = Path::load_named_on(FsPath::new("straight_lane"), MapCrs::None).unwrap();
        let full = Path::load_named_on(FsPath::new("straight_lane.json"), MapCrs::None).unwrap();
        assert_eq!(bare.len(), full.len());
        assert!(bare.len() > 2);
        assert!(Path::builtin_named("straight_lane.geojson").is_some());
        assert!(Path::builtin_named("straight_lane.txt").is_none());
        let e = Path::load_named_on(FsPath::new("straight_lanes"), MapCrs::None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("straight_lanes")
                && e.contains("nor a shipped route")
                && e.contains("field_loop.json"),
            "{e}"
        );
    }

    #[test]
    fn a_lon_lat_route_is_projected_onto_the_maps_crs() {
        let crs = Crs::parse("EPSG:32615").ok();
        let p = Path::load_on(&data("route_lonlat.geojson"), crs.into()).unwrap();
        let want: Vec<(f64, f64)> = std::fs::read_to_string(data("route_utm.txt"))
            .unwrap()
            .lines()
            .map(|l| {
                let v: Vec<f64> = l.split(' ').map(|x| x.parse().unwrap()).collect();
                (v[0], v[1])
            })
            .collect();
        assert_eq!(p.len(), want.len());
        for (i, (x, y)) in want.iter().enumerate() {
            let q = p.point(i);
            assert!(
                (q.x - x).abs() < 1e-3 && (q.y - y).abs() < 1e-3,
                "{i}: {q:?}"
            );
        }
    }

    /// Degrees are never read as metres: without a map CRS the route is refused, and a
    /// GeoJSON in metres without its `crs` member is caught as no longitude and latitude.
    #[test]
    fn a_route_on_the_earth_without_a_map_crs_is_refused() {
        let e = Path::load(&data("route_lonlat.geojson"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("route_lonlat.geojson")
                && e.contains("longitude")
                && e.contains("acres:map"),
            "{e}"
        );
        let metres = r#"{"type": "Feature", "properties": {"speed_mps": 2.0},
            "geometry": {"type": "LineString", "coordinates": [[10, 0], [300, 0]]}}"#;
        let crs = Crs::parse("EPSG:32615").ok();
        let e = Path::from_json_str_on("m.geojson", metres, crs.into())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("m.geojson") && e.contains("point 1") && e.contains("not a longitude"),
            "{e}"
        );
        // Its crs member says map metres: read as they are, with or without a map CRS.
        let v: serde_json::Value = serde_json::from_str(metres).unwrap();
        let mut v = v.as_object().unwrap().clone();
        v.insert(
            "crs".into(),
            serde_json::json!({"type": "name", "properties": {"name": "acres:map"}}),
        );
        let text = serde_json::Value::Object(v).to_string();
        for c in [None, crs] {
            let p = Path::from_json_str_on("m.geojson", &text, c.into()).unwrap();
            assert_eq!((p.point(1).x, p.point(1).y), (300.0, 0.0));
        }
    }

    /// A route in another projected CRS (UTM 16N) is converted to the map's (15N), and
    /// the frames' names are read in their usual spellings.
    #[test]
    fn a_route_in_another_crs_is_converted_and_frames_are_named() {
        let z15 = Crs::parse("EPSG:32615").unwrap();
        let z16 = Crs::parse("EPSG:32616").unwrap();
        let a = z16.from_lon_lat(&[(-92.0, 45.0), (-91.99, 45.0)]).unwrap();
        let text = serde_json::json!({"type": "Feature",
            "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::32616"}},
            "properties": {"speed_mps": 2.0},
            "geometry": {"type": "LineString", "coordinates": [[a[0].0, a[0].1], [a[1].0, a[1].1]]}})
        .to_string();
        let p = Path::from_json_str_on("r.geojson", &text, MapCrs::Known(z15)).unwrap();
        let direct = z15.from_lon_lat(&[(-92.0, 45.0)]).unwrap()[0];
        assert!((p.point(0).x - direct.0).abs() < 1e-3 && (p.point(0).y - direct.1).abs() < 1e-3);
        let e = Path::from_json_str("r.geojson", &text)
            .unwrap_err()
            .to_string();
        assert!(e.contains("EPSG:32616") && e.contains("no CRS"), "{e}");
        let name =
            |n: &str| serde_json::json!({"crs": {"type": "name", "properties": {"name": n}}});
        assert_eq!(
            frame_of(&name("urn:ogc:def:crs:OGC:1.3:CRS84")),
            Ok(Frame::LonLat)
        );
        assert_eq!(frame_of(&name("EPSG:4326")), Ok(Frame::LonLat));
        assert_eq!(frame_of(&name("acres:map")), Ok(Frame::Map));
        assert!(
            frame_of(&name("EPSG:99999"))
                .unwrap_err()
                .contains("EPSG:99999 is not a projected CRS")
        );
        assert_eq!(frame_of(&serde_json::json!({})), Ok(Frame::LonLat));
    }
}
