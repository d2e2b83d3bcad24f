//! ROS map_server maps (docs/formats.md "ROS map_server maps"): a YAML file beside a
//! PGM or PNG occupancy image, read as a class raster: occupied cells are obstacles,
//! free cells a ground class (`acres_free_class` in the YAML, default `grass_lane`),
//! unknown cells unknown.
//!
//! The YAML keys of map_server: `image` (beside the YAML), `resolution` (m a pixel),
//! `origin` `[x, y, yaw]` (the pose of the lower-left pixel; a yaw turns the image about
//! it, and the map is resampled onto an axis-aligned grid), `negate` (0 or 1),
//! `occupied_thresh` (0.65), `free_thresh` (0.196) and `mode` (`trinary`, `scale` or
//! `raw`). A pixel's occupancy is `(255 − v) / 255`, or `v / 255` with `negate`; in `raw`
//! mode the value itself, in percent. An acres key `acres_crs` (`EPSG:32615`) names the
//! projected CRS the origin is in, where the map has one.

use crate::formats::map_manifest::{MapError, err};
use crate::ground::map::{Grid, Map, MapClass};
use std::path::Path as FsPath;
use yaml_rust2::{Yaml, YamlLoader};

/// How map_server reads the pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Trinary,
    Scale,
    Raw,
}

/// The YAML of a map_server map.
#[derive(Debug, Clone, PartialEq)]
struct RosYaml {
    image: String,
    resolution: f64,
    origin: [f64; 3],
    negate: bool,
    occupied: f64,
    free: f64,
    mode: Mode,
    free_class: MapClass,
    crs: Option<crate::ground::Crs>,
    /// Whether the grey 205 is unknown whatever the thresholds (`acres_grey_unknown`).
    grey_unknown: bool,
}

/// The grey map_saver writes for unknown cells. Its occupancy, 50/255 = 0.196, is below
/// ROS 2's default `free_thresh` of 0.25, so map_server reads it as free: a corridor
/// would then cover ground the robot never saw.
const MAP_SAVER_UNKNOWN: u8 = 205;

/// The acres keys of a map_server YAML (map_server ignores them): the class of free
/// ground (`acres_free_class`, grass_lane by default), the CRS (`acres_crs`) and whether
/// map_saver's grey is unknown (`acres_grey_unknown`, true by default).
fn acres_keys(
    file: &FsPath,
    doc: &Yaml,
) -> Result<(MapClass, Option<crate::ground::Crs>, bool), MapError> {
    let free_class = match doc["acres_free_class"].as_str() {
        None => MapClass::GrassLane,
        Some(c) => serde_json::from_value(serde_json::Value::String(c.into())).map_err(|_| {
            err(
                file,
                format!("key `acres_free_class`: `{c}` is not a class"),
            )
        })?,
    };
    let crs = match doc["acres_crs"].as_str() {
        None => None,
        Some(c) => Some(
            crate::ground::Crs::parse(c).map_err(|m| err(file, format!("key `acres_crs`: {m}")))?,
        ),
    };
    let grey_unknown = match &doc["acres_grey_unknown"] {
        Yaml::BadValue | Yaml::Null => true,
        Yaml::Boolean(b) => *b,
        _ => {
            return Err(err(file, "key `acres_grey_unknown`: not true or false"));
        }
    };
    Ok((free_class, crs, grey_unknown))
}

/// The largest map_server YAML read, bytes (it holds a handful of keys).
const MAX_YAML_BYTES: u64 = 1 << 20;

/// The most YAML nodes a map_server YAML may expand to, aliases followed: it holds a
/// handful of keys, and aliases nested a few deep ("billion laughs") expand a small file
/// to gigabytes.
const MAX_YAML_NODES: u64 = 10_000;

/// Counts the nodes a YAML document expands to, each alias counted as the size of what
/// it names (from the parser's events, before any node is built).
#[derive(Default)]
struct Expansion {
    sizes: std::collections::HashMap<usize, u64>,
    open: Vec<(usize, u64)>,
    total: u64,
}

impl Expansion {
    fn add(&mut self, n: u64) {
        match self.open.last_mut() {
            Some(top) => top.1 = top.1.saturating_add(n),
            None => self.total = self.total.saturating_add(n),
        }
    }
}

impl yaml_rust2::parser::EventReceiver for Expansion {
    fn on_event(&mut self, ev: yaml_rust2::parser::Event) {
        use yaml_rust2::parser::Event;
        match ev {
            Event::Scalar(_, _, anchor, _) => {
                if anchor > 0 {
                    self.sizes.insert(anchor, 1);
                }
                self.add(1);
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                self.open.push((anchor, 1));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((anchor, n)) = self.open.pop() {
                    if anchor > 0 {
                        self.sizes.insert(anchor, n);
                    }
                    self.add(n);
                }
            }
            Event::Alias(id) => self.add(self.sizes.get(&id).copied().unwrap_or(1)),
            _ => {}
        }
    }
}

fn parse_yaml(file: &FsPath, text: &str) -> Result<RosYaml, MapError> {
    let mut count = Expansion::default();
    yaml_rust2::parser::Parser::new_from_str(text)
        .load(&mut count, true)
        .map_err(|e| err(file, format!("YAML: {e}")))?;
    if count.total > MAX_YAML_NODES {
        return Err(err(
            file,
            format!(
                "YAML: expands to {} nodes with its aliases, more than the {MAX_YAML_NODES} \
                 a map_server YAML may have",
                count.total
            ),
        ));
    }
    let docs = YamlLoader::load_from_str(text).map_err(|e| err(file, format!("YAML: {e}")))?;
    let doc = docs
        .first()
        .ok_or_else(|| err(file, "an empty YAML file"))?;
    let key = |k: &str| &doc[k];
    let num = |k: &str, default: Option<f64>| -> Result<f64, _> {
        match key(k) {
            Yaml::Real(s) => s
                .parse::<f64>()
                .map_err(|_| err(file, format!("key `{k}`: not a number"))),
            Yaml::Integer(i) => Ok(*i as f64),
            Yaml::BadValue | Yaml::Null => {
                default.ok_or_else(|| err(file, format!("key `{k}` is missing")))
            }
            _ => Err(err(file, format!("key `{k}`: not a number"))),
        }
    };
    let image = key("image")
        .as_str()
        .ok_or_else(|| err(file, "key `image`: missing or not a file name"))?
        .to_string();
    let origin = match key("origin").as_vec() {
        Some(v) if v.len() == 3 => {
            let mut o = [0.0; 3];
            for (i, y) in v.iter().enumerate() {
                o[i] = match y {
                    Yaml::Real(s) => s.parse().unwrap_or(f64::NAN),
                    Yaml::Integer(n) => *n as f64,
                    _ => f64::NAN,
                };
            }
            o
        }
        _ => return Err(err(file, "key `origin`: not a list [x, y, yaw]")),
    };
    let mode = match key("mode").as_str() {
        None | Some("trinary") => Mode::Trinary,
        Some("scale") => Mode::Scale,
        Some("raw") => Mode::Raw,
        Some(m) => {
            return Err(err(
                file,
                format!("key `mode`: `{m}`, not trinary, scale or raw"),
            ));
        }
    };
    let (free_class, crs, grey_unknown) = acres_keys(file, doc)?;
    let y = RosYaml {
        image,
        resolution: num("resolution", None)?,
        origin,
        negate: match num("negate", Some(0.0))? {
            0.0 => false,
            1.0 => true,
            v => {
                let v = crate::formats::bounds::show(v);
                return Err(err(file, format!("key `negate`: {v}, not 0 or 1")));
            }
        },
        occupied: num("occupied_thresh", Some(0.65))?,
        free: num("free_thresh", Some(0.196))?,
        mode,
        free_class,
        crs,
        grey_unknown,
    };
    use crate::formats::bounds as b;
    let key_err = |m: String| err(file, format!("key {m}"));
    b::resolution("resolution", y.resolution).map_err(key_err)?;
    b::position("origin[0]", y.origin[0]).map_err(key_err)?;
    b::position("origin[1]", y.origin[1]).map_err(key_err)?;
    b::angle_rad("origin[2]", y.origin[2]).map_err(key_err)?;
    if !(0.0..=1.0).contains(&y.free) || !(0.0..=1.0).contains(&y.occupied) || y.free > y.occupied {
        return Err(err(
            file,
            "keys `free_thresh` and `occupied_thresh`: 0 ≤ free ≤ occupied ≤ 1",
        ));
    }
    Ok(y)
}

/// The class of a pixel value (grey, 0 to 255; `alpha` 0 is unknown in trinary mode).
fn classify(y: &RosYaml, v: u8, alpha: u8) -> MapClass {
    let p = match y.mode {
        Mode::Raw => {
            if v > 100 {
                return MapClass::Unknown;
            }
            v as f64 / 100.0
        }
        _ if alpha == 0 => return MapClass::Unknown,
        _ if y.negate => v as f64 / 255.0,
        _ => (255.0 - v as f64) / 255.0,
    };
    if p > y.occupied {
        MapClass::Obstacle
    } else if p < y.free && !(y.grey_unknown && y.mode != Mode::Raw && v == MAP_SAVER_UNKNOWN) {
        y.free_class
    } else {
        MapClass::Unknown
    }
}

/// Loads a map_server map: its YAML and the image beside it.
pub fn load(yaml_path: &FsPath) -> Result<Map, MapError> {
    let meta = std::fs::metadata(yaml_path).map_err(|e| err(yaml_path, e.to_string()))?;
    if !meta.is_file() || meta.len() > MAX_YAML_BYTES {
        return Err(err(
            yaml_path,
            format!("a map_server YAML is a regular file of at most {MAX_YAML_BYTES} bytes"),
        ));
    }
    let text = std::fs::read_to_string(yaml_path).map_err(|e| err(yaml_path, e.to_string()))?;
    let y = parse_yaml(yaml_path, &text)?;
    let img_path = yaml_path
        .parent()
        .unwrap_or(FsPath::new("."))
        .join(&y.image);
    // One read of the file: its header is checked before the pixels are decoded.
    let bytes = crate::formats::map_manifest::read_image(&img_path)?.into_bytes(&img_path)?;
    let reader = || {
        image::ImageReader::new(std::io::Cursor::new(&bytes))
            .with_guessed_format()
            .map_err(|e| err(&img_path, e.to_string()))
    };
    let (w, h) = reader()?
        .into_dimensions()
        .map_err(|e| err(&img_path, e.to_string()))?;
    if w as u64 * h as u64 > crate::formats::map_manifest::MAX_MAP_PIXELS {
        return Err(err(
            &img_path,
            format!("the image claims {w} × {h} pixels, more than the limit"),
        ));
    }
    let img = reader()?
        .decode()
        .map_err(|e| err(&img_path, e.to_string()))?
        .into_luma_alpha8();
    let cells: Vec<MapClass> = img.pixels().map(|p| classify(&y, p.0[0], p.0[1])).collect();
    let grid = Grid {
        width: w as usize,
        height: h as usize,
        resolution_m: y.resolution,
        origin_m: [y.origin[0], y.origin[1]],
        cells,
    };
    let name = yaml_path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("map")
        .to_string();
    Ok(Map {
        name,
        classes: if y.origin[2].abs() < 1e-12 {
            grid
        } else {
            turned(&grid, y.origin[2]).map_err(|(w, h)| {
                err(
                    yaml_path,
                    format!(
                        "key `origin`: turned by its yaw, the map needs {w} × {h} cells, more \
                         than the limit of {}",
                        crate::formats::map_manifest::MAX_MAP_PIXELS
                    ),
                )
            })?
        },
        elevation: None,
        crs: y.crs,
        crs_note: None,
    })
}

/// A grid turned by `yaw` about its origin (the lower-left corner), resampled onto an
/// axis-aligned grid of the same resolution that holds it: each new cell takes the class
/// of the turned cell under its centre, unknown where none is. The size of the new grid,
/// where it would hold more than [`MAX_MAP_PIXELS`] cells (a long thin image turned by 45
/// degrees needs the square of its length), is refused before allocating.
///
/// [`MAX_MAP_PIXELS`]: crate::formats::map_manifest::MAX_MAP_PIXELS
fn turned(g: &Grid<MapClass>, yaw: f64) -> Result<Grid<MapClass>, (usize, usize)> {
    let (s, c) = yaw.sin_cos();
    let res = g.resolution_m;
    let (wm, hm) = (g.width as f64 * res, g.height as f64 * res);
    let corners =
        [(0.0, 0.0), (wm, 0.0), (0.0, hm), (wm, hm)].map(|(u, v)| (c * u - s * v, s * u + c * v));
    let (x0, y0) = corners
        .iter()
        .fold((f64::MAX, f64::MAX), |a, p| (a.0.min(p.0), a.1.min(p.1)));
    let (x1, y1) = corners
        .iter()
        .fold((f64::MIN, f64::MIN), |a, p| (a.0.max(p.0), a.1.max(p.1)));
    let (w, h) = (
        ((x1 - x0) / res).ceil() as usize,
        ((y1 - y0) / res).ceil() as usize,
    );
    if (w as u64).saturating_mul(h as u64) > crate::formats::map_manifest::MAX_MAP_PIXELS {
        return Err((w, h));
    }
    let mut cells = vec![MapClass::Unknown; w * h];
    for j in 0..h {
        for i in 0..w {
            let (x, y) = (x0 + (i as f64 + 0.5) * res, y1 - (j as f64 + 0.5) * res);
            // Back into the image's frame, from its origin.
            let (u, v) = (c * x + s * y, -s * x + c * y);
            let (iu, iv) = ((u / res).floor(), (v / res).floor());
            if iu >= 0.0 && iv >= 0.0 && iu < g.width as f64 && iv < g.height as f64 {
                let row = g.height - 1 - iv as usize;
                cells[j * w + i] = g.cells[row * g.width + iu as usize];
            }
        }
    }
    Ok(Grid {
        width: w,
        height: h,
        resolution_m: res,
        origin_m: [g.origin_m[0] + x0, g.origin_m[1] + y0],
        cells,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(name: &str) -> std::path::PathBuf {
        FsPath::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/ros_map")
            .join(name)
    }

    /// The map written by Pillow (tests/data/ros_map/make_map.py): free ground is the
    /// YAML's class, the box an obstacle, the top strip unknown, all at their world
    /// places through the origin.
    #[test]
    fn a_map_server_map_reads_at_its_world_places() {
        let m = crate::ground::Map::load(&data("lane.yaml")).unwrap();
        let g = &m.classes;
        assert_eq!(
            (g.width, g.height, g.resolution_m, g.origin_m),
            (200, 120, 0.2, [-5.0, -3.0])
        );
        assert_eq!(m.name, "lane");
        assert_eq!(g.at(0.0, 0.0), Some(MapClass::Gravel));
        assert_eq!(g.at(14.0, 9.0), Some(MapClass::Obstacle));
        assert_eq!(g.at(12.7, 9.0), Some(MapClass::Gravel));
        assert_eq!(g.at(10.0, 20.5), Some(MapClass::Unknown));
        assert_eq!(g.at(-5.5, 0.0), None);
    }

    /// The same image turned by 0.5 rad about its lower-left corner: the box's centre
    /// (14, 9) moves to where the turn takes it; free ground takes the default class.
    /// A map saved with ROS 2's thresholds (free_thresh 0.25): its grey band (205) stays
    /// unknown and out of a corridor along it, and the build counts it; with
    /// `acres_grey_unknown: false` it reads as map_server does, free, and joins.
    #[test]
    fn map_saver_grey_is_unknown_under_ros2_thresholds_unless_told() {
        use crate::chain::path::{Path, PathPoint};
        let m = load(&data("lane_ros2.yaml")).unwrap();
        assert_eq!(m.classes.at(10.0, 20.0), Some(MapClass::Unknown));
        assert_eq!(m.classes.at(10.0, 17.0), Some(MapClass::Gravel));
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(data("lane.pgm"), dir.path().join("lane.pgm")).unwrap();
        let yaml = std::fs::read_to_string(data("lane_ros2.yaml")).unwrap();
        let free = dir.path().join("free.yaml");
        std::fs::write(&free, format!("{yaml}acres_grey_unknown: false\n")).unwrap();
        let as_map_server = load(&free).unwrap();
        assert_eq!(as_map_server.classes.at(10.0, 20.0), Some(MapClass::Gravel));
        let bad = dir.path().join("bad.yaml");
        std::fs::write(&bad, format!("{yaml}acres_grey_unknown: maybe\n")).unwrap();
        let e = load(&bad).unwrap_err().to_string();
        assert!(
            e.contains("bad.yaml") && e.contains("`acres_grey_unknown`"),
            "{e}"
        );
        // A route 2.5 m below the grey band: the band is within reach, counted, and out.
        let pt = |x: f64| PathPoint {
            x,
            y: 16.5,
            speed_mps: 3.0,
            class: Some(crate::ground::class::GroundClass::Gravel),
            direction: Default::default(),
        };
        let route = Path::new("r", &[pt(0.0), pt(30.0)]).unwrap();
        let cfg = crate::config::Config::builtin().control.corridor;
        let build = |m| crate::ground::corridor::build_reported(m, &route, &cfg, 1 << 28, |_| {});
        let (c, report) = build(&m).unwrap();
        assert!(report.unknown_cells > 100, "{report:?}");
        assert!(c.query(10.0, 19.5) <= 0.0);
        let (c, report) = build(&as_map_server).unwrap();
        assert_eq!(report.unknown_cells, 0);
        assert!(c.query(10.0, 19.5) > 0.0);
    }

    #[test]
    fn a_turned_origin_turns_the_map_about_its_corner() {
        let m = crate::ground::Map::load(&data("lane_turned.yaml")).unwrap();
        let (s, c) = 0.5f64.sin_cos();
        let (u, v) = (14.0 + 5.0, 9.0 + 3.0);
        let (x, y) = (-5.0 + c * u - s * v, -3.0 + s * u + c * v);
        assert_eq!(m.classes.at(x, y), Some(MapClass::Obstacle));
        let (u, v) = (5.0, 5.0);
        let (x, y) = (-5.0 + c * u - s * v, -3.0 + s * u + c * v);
        assert_eq!(m.classes.at(x, y), Some(MapClass::GrassLane));
        // Beside the turned image's corner, inside the new box: unknown.
        assert_eq!(m.classes.at(25.0, -2.0), Some(MapClass::Unknown));
    }

    #[test]
    fn pixels_follow_map_server_thresholds_and_modes() {
        let y = |mode, negate| RosYaml {
            image: String::new(),
            resolution: 1.0,
            origin: [0.0; 3],
            negate,
            occupied: 0.65,
            free: 0.196,
            mode,
            free_class: MapClass::Field,
            crs: None,
            grey_unknown: true,
        };
        let t = y(Mode::Trinary, false);
        assert_eq!(classify(&t, 0, 255), MapClass::Obstacle);
        assert_eq!(classify(&t, 254, 255), MapClass::Field);
        assert_eq!(classify(&t, 205, 255), MapClass::Unknown);
        assert_eq!(classify(&t, 254, 0), MapClass::Unknown);
        assert_eq!(classify(&y(Mode::Trinary, true), 0, 255), MapClass::Field);
        let raw = y(Mode::Raw, false);
        assert_eq!(classify(&raw, 100, 255), MapClass::Obstacle);
        assert_eq!(classify(&raw, 0, 255), MapClass::Field);
        assert_eq!(classify(&raw, 255, 255), MapClass::Unknown);
        // ROS 2's map_saver thresholds: map_server reads its grey 205 as free (occupancy
        // 0.196 < 0.25); acres keeps it unknown unless `acres_grey_unknown: false`.
        let ros2 = RosYaml {
            free: 0.25,
            ..y(Mode::Trinary, false)
        };
        assert_eq!(classify(&ros2, 205, 255), MapClass::Unknown);
        assert_eq!(classify(&ros2, 206, 255), MapClass::Field);
        let scale = RosYaml {
            mode: Mode::Scale,
            ..ros2.clone()
        };
        assert_eq!(classify(&scale, 205, 255), MapClass::Unknown);
        let as_map_server = RosYaml {
            grey_unknown: false,
            ..ros2
        };
        assert_eq!(classify(&as_map_server, 205, 255), MapClass::Field);
    }

    /// An image that is no regular file (/dev/zero, a directory) is refused by name
    /// before it is read (issue 63: /dev/zero was read without end), from a map_server
    /// YAML and from a manifest.
    #[test]
    fn an_image_that_is_no_regular_file_is_refused_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        for image in ["/dev/zero", sub.to_str().unwrap()] {
            let yaml = dir.path().join("z.yaml");
            let text = format!("image: {image}\nresolution: 0.1\norigin: [0, 0, 0]\n");
            std::fs::write(&yaml, text).unwrap();
            let manifest = dir.path().join("z.json");
            let legend = r#"{"0": "gravel"}"#;
            let text = format!(
                r#"{{"name": "z", "image": "{image}", "resolution_m": 0.1, "origin_m": [0, 0], "legend": {legend}}}"#
            );
            std::fs::write(&manifest, text).unwrap();
            for f in [&yaml, &manifest] {
                let e = crate::ground::Map::load(f).unwrap_err();
                assert!(
                    e.file == image && e.message.contains("not a regular file"),
                    "{f:?}: {e:?}"
                );
            }
        }
    }

    /// A 100,000 × 1 image turned by 45 degrees (100 kB) would need 70,711² cells, 5 GB:
    /// refused from its size, naming the YAML and its key (issue 63).
    #[test]
    fn a_turned_grid_is_held_to_the_map_limit() {
        let dir = tempfile::tempdir().unwrap();
        let mut pgm = b"P5\n100000 1\n255\n".to_vec();
        pgm.extend(std::iter::repeat_n(254u8, 100_000));
        std::fs::write(dir.path().join("long.pgm"), pgm).unwrap();
        let yaml = dir.path().join("long.yaml");
        let text = "image: long.pgm\nresolution: 0.05\norigin: [0, 0, 0.7853981633974483]\n";
        std::fs::write(&yaml, text).unwrap();
        let e = crate::ground::Map::load(&yaml).unwrap_err();
        assert!(
            e.file == yaml.display().to_string()
                && e.message.contains("`origin`")
                && e.message.contains("more than the limit"),
            "{e:?}"
        );
        // Unturned, the same image is a map.
        std::fs::write(&yaml, text.replace("0.7853981633974483", "0")).unwrap();
        assert_eq!(
            crate::ground::Map::load(&yaml).unwrap().classes.width,
            100_000
        );
    }

    /// Aliases nested 9 deep, ten to a level (a billion nodes from 1 kB), are refused from
    /// the parser's events before anything is expanded (issue 63: memory ran out); a
    /// YAML with a harmless alias still reads.
    #[test]
    fn yaml_aliases_that_expand_without_bound_are_refused() {
        let mut text = String::from("a0: &a0 [lol]\n");
        for k in 1..=9 {
            let refs = vec![format!("*a{}", k - 1); 10].join(", ");
            text.push_str(&format!("a{k}: &a{k} [{refs}]\n"));
        }
        text.push_str("image: a.pgm\nresolution: 0.1\norigin: [0, 0, 0]\n");
        let e = parse_yaml(FsPath::new("m.yaml"), &text).unwrap_err();
        assert!(e.message.contains("aliases"), "{e:?}");
        // Nor is a YAML that is no regular file read.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("d.yaml");
        std::fs::create_dir(&d).unwrap();
        let e = crate::ground::Map::load(&d).unwrap_err();
        assert!(e.message.contains("regular file"), "{e:?}");
        let ok = "r: &r 0.1\nimage: a.pgm\nresolution: *r\norigin: [0, 0, 0]\n";
        assert_eq!(
            parse_yaml(FsPath::new("m.yaml"), ok).unwrap().resolution,
            0.1
        );
    }

    #[test]
    fn bad_yaml_is_refused_with_the_file_and_key() {
        let f = FsPath::new("m.yaml");
        for (text, want) in [
            (
                "image: a.pgm\norigin: [0, 0, 0]\n",
                "key `resolution` is missing",
            ),
            (
                "image: a.pgm\nresolution: -1\norigin: [0, 0, 0]\n",
                "key `resolution`: -1 is outside 1e-4 to 10000 m",
            ),
            (
                "image: a.pgm\nresolution: 1e-300\norigin: [0, 0, 0]\n",
                "key `resolution`: 1e-300 is outside",
            ),
            (
                "image: a.pgm\nresolution: 1.0e300\norigin: [0, 0, 0]\n",
                "key `resolution`: 1e300 is outside",
            ),
            (
                "image: a.pgm\nresolution: 0.1\norigin: [0, 0, 0]\nnegate: 0.5\n",
                "key `negate`: 0.5, not 0 or 1",
            ),
            (
                "image: a.pgm\nresolution: 0.1\norigin: [0, 0, 0]\nnegate: 2\n",
                "key `negate`: 2, not 0 or 1",
            ),
            (
                "image: a.pgm\nresolution: 0.1\norigin: [1.0e12, 0, 0]\n",
                "key `origin[0]`: 1e12 is outside",
            ),
            (
                "image: a.pgm\nresolution: 0.1\norigin: [0, 0, 1.0e300]\n",
                "key `origin[2]`: 1e300 is outside",
            ),
            (
                "image: a.pgm\nresolution: 0.1\norigin: [0, 0]\n",
                "key `origin`",
            ),
            (
                "image: a.pgm\nresolution: 0.1\norigin: [0, 0, 0]\nmode: fancy\n",
                "`fancy`",
            ),
            (
                "image: a.pgm\nresolution: 0.1\norigin: [0, 0, 0]\nacres_free_class: lava\n",
                "`lava`",
            ),
            ("resolution: 0.1\norigin: [0, 0, 0]\n", "key `image`"),
            ("image: [unclosed\n", "YAML"),
        ] {
            let e = parse_yaml(f, text).unwrap_err().to_string();
            assert!(e.contains("m.yaml") && e.contains(want), "{text}: {e}");
        }
    }
}
