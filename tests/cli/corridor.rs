use super::{acres, run};

#[test]
fn build_query_info_on_the_shipped_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("farm.acor");
    let img = dir.path().join("farm.png");
    let o = out.to_str().unwrap();
    let (code, _, err) = run(&[
        "corridor",
        "build",
        "--out",
        o,
        "--image",
        img.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("in the corridor"), "{err}");
    let png = std::fs::read(&img).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // 2120 × 2640 cells of 0.25 m sampled every second cell (at most 2400 pixels a side):
    // 1060 × 1320 pixels of 0.5 m, framed. The world file maps the pixel where the raster
    // part starts to the centre of its upper-left pixel: (900.25, 859.75).
    let size = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
    let (col, row) = acres::plot::CORRIDOR_RASTER_AT;
    assert!(
        size(16) > col + 1060 && size(20) >= row + 1320,
        "{}",
        size(16)
    );
    let pgw = std::fs::read_to_string(img.with_extension("pgw")).unwrap();
    let v: Vec<f64> = pgw.lines().map(|l| l.parse().unwrap()).collect();
    let at = |p: usize, q: usize| (v[4] + p as f64 * v[0], v[5] + q as f64 * v[3]);
    assert_eq!(at(col, row), (900.25, 859.75));
    assert_eq!(at(col + 1059, row + 1319), (1429.75, 200.25));

    // On the gravel lane (4 m wide, verges of 1.5 m: 3.5 m to the grass on each side),
    // beside it on the meadow, and far away.
    let (code, out_json, err) = run(&[
        "corridor", "query", o, "--at", "960,600", "--at", "975,600", "--at", "-50,-50",
        "--format", "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out_json).unwrap();
    let d = |i: usize| v[i]["d_m"].as_f64().unwrap();
    assert!(d(0) <= 3.5 && d(0) >= 3.5 - 0.36, "{}", d(0));
    assert!(d(1) <= 0.0);
    assert!(d(2) <= 0.0);

    let (code, text, _) = run(&["corridor", "info", o]);
    assert_eq!(code, 0);
    assert!(text.contains("map: farm"), "{text}");
    assert!(text.contains("farm_yard_to_east_lane.json"), "{text}");
    let (_, j, _) = run(&["corridor", "info", o, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&j).unwrap();
    assert_eq!(v["resolution_m"], 0.25);
    assert!(v["corridor_cells"].as_u64().unwrap() > 10_000);
}

#[test]
fn query_points_from_csv_and_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("lane.acor");
    let o = out.to_str().unwrap();
    let route = format!(
        "{}/data/routes/farm_field_pass.json",
        env!("CARGO_MANIFEST_DIR")
    );
    acres()
        .args(["corridor", "build", "--route", &route, "--out", o])
        .assert()
        .success();
    let pts = dir.path().join("p.csv");
    std::fs::write(&pts, "x,y\n1100,830\n1100,900\n").unwrap();
    let (code, csv_out, err) = run(&[
        "corridor",
        "query",
        o,
        "--points",
        pts.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = csv_out.lines().collect();
    assert_eq!(lines[0], "x,y,d_m");
    assert_eq!(lines.len(), 3);
    // On the pass (field class, local reach 4 m) and 70 m north of it, off the corridor.
    let d1: f64 = lines[1].split(',').nth(2).unwrap().parse().unwrap();
    let d2: f64 = lines[2].split(',').nth(2).unwrap().parse().unwrap();
    assert!(d1 > 3.0 && d1 <= 4.0, "{d1}");
    assert!(d2 <= 0.0);

    std::fs::write(&pts, "x,y\n1,2\n3,east\n").unwrap();
    let (code, _, err) = run(&["corridor", "query", o, "--points", pts.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("line 3") && err.contains("east"), "{err}");
    let (code, _, err) = run(&["corridor", "query", o, "--at", "1,x"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&["corridor", "query", o]);
    assert_eq!(code, 2);
    assert!(err.contains("no points"), "{err}");

    // A truncated file is refused, naming the file.
    let bytes = std::fs::read(&out).unwrap();
    let cut = dir.path().join("cut.acor");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let (code, _, err) = run(&["corridor", "info", cut.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("cut.acor") && err.contains("truncated"),
        "{err}"
    );
}

#[test]
fn a_bad_route_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let route = dir.path().join("r.json");
    std::fs::write(&route, r#"{"points": [{"x": 0, "y": 0, "speed_mps": 1}]}"#).unwrap();
    let out = dir.path().join("c.acor");
    let (code, _, err) = run(&[
        "corridor",
        "build",
        "--route",
        route.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("r.json") && err.contains("at least 2 points"),
        "{err}"
    );
    assert!(!out.exists());
}

/// Output folders are checked before the build, a route far outside the map is an error
/// naming it, and a raster above --max-cells is refused before it is allocated; none
/// leaves a file.
#[test]
fn bad_outputs_and_far_routes_fail_before_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.acor");
    let o = out.to_str().unwrap();
    let img = dir.path().join("nodir").join("c.png");
    let (code, _, err) = run(&[
        "corridor",
        "build",
        "--out",
        o,
        "--image",
        img.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("nodir") && err.contains("does not exist"),
        "{err}"
    );
    assert!(
        !out.exists(),
        "the corridor was built before the image's folder was checked"
    );
    let far = dir.path().join("far.json");
    std::fs::write(
        &far,
        r#"{"name": "far away", "points": [{"x": 1e7, "y": 1e7, "speed_mps": 1},
                                           {"x": 1.1e7, "y": 1e7, "speed_mps": 1}]}"#,
    )
    .unwrap();
    let build_far = || {
        run(&[
            "corridor",
            "build",
            "--route",
            far.to_str().unwrap(),
            "--out",
            o,
        ])
    };
    let (code, _, err) = build_far();
    assert_eq!(code, 1);
    assert!(
        err.contains("far.json") && err.contains("outside the map"),
        "{err}"
    );
    // Beyond the position bound (docs/formats.md "Bounds"), refused as it is read.
    let text = std::fs::read_to_string(&far).unwrap().replace("e7", "e15");
    std::fs::write(&far, text).unwrap();
    let (code, _, err) = build_far();
    assert_eq!(code, 1);
    assert!(
        err.contains("far.json: point 0: `x`: 1e15 is outside -1e8 to 1e8 m"),
        "{err}"
    );
    let (code, _, err) = run(&["corridor", "build", "--out", o, "--max-cells", "1000"]);
    assert_eq!(code, 1);
    assert!(err.contains("more than the limit of 1000"), "{err}");
    assert!(!out.exists());
    // A query far beyond the raster is outside: 0, no panic.
    assert_eq!(run(&["corridor", "build", "--out", o]).0, 0);
    let (code, text, _) = run(&[
        "corridor", "query", o, "--at", "1e19,600", "--format", "json",
    ]);
    assert_eq!(code, 0);
    assert!(text.contains("\"d_m\": 0.0"), "{text}");
}

/// A ROS map_server map (YAML and a PGM written by Pillow) builds a corridor and checks
/// a route: the occupied box 2 m beside the route bounds the clearance there.
#[test]
fn a_map_server_map_builds_a_corridor() {
    let dir = tempfile::tempdir().unwrap();
    let route = dir.path().join("r.json");
    std::fs::write(
        &route,
        r#"{"name": "past the box", "points": [
            {"x": 0, "y": 5, "speed_mps": 3, "class": "gravel"},
            {"x": 30, "y": 5, "speed_mps": 3, "class": "gravel"}]}"#,
    )
    .unwrap();
    let map = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ros_map/lane.yaml");
    let out = dir.path().join("c.acor");
    let o = out.to_str().unwrap();
    let r = route.to_str().unwrap();
    let (code, _, err) = run(&["corridor", "build", "--map", map, "--route", r, "--out", o]);
    assert_eq!(code, 0, "{err}");
    let (_, text, _) = run(&[
        "corridor", "query", o, "--at", "14,5", "--at", "5,5", "--format", "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let (by_box, open) = (v[0]["d_m"].as_f64().unwrap(), v[1]["d_m"].as_f64().unwrap());
    assert!((1.6..=2.0).contains(&by_box), "{by_box}");
    assert!(open > by_box, "{open}");
    let (code, text, _) = run(&["route", "check", r, "--map", map, "--format", "json"]);
    assert_eq!(code, 0, "{text}");
}

/// `corridor export` writes the GeoTIFF and the nav2 mask (its PGM beside the YAML);
/// without an output it is an error, and a missing folder fails before anything.
#[test]
fn export_writes_the_geotiff_and_the_nav2_mask() {
    let dir = tempfile::tempdir().unwrap();
    let acor = dir.path().join("c.acor");
    let a = acor.to_str().unwrap();
    assert_eq!(run(&["corridor", "build", "--out", a]).0, 0);
    let tif = dir.path().join("dc.tif");
    let yaml = dir.path().join("keep.yaml");
    let (code, _, err) = run(&[
        "corridor",
        "export",
        a,
        "--geotiff",
        tif.to_str().unwrap(),
        "--nav2",
        yaml.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read(&tif).unwrap().starts_with(b"II*\0"));
    assert!(
        std::fs::read(dir.path().join("keep.pgm"))
            .unwrap()
            .starts_with(b"P5")
    );
    assert!(
        std::fs::read_to_string(&yaml)
            .unwrap()
            .contains("image: keep.pgm")
    );
    let (code, _, err) = run(&["corridor", "export", a]);
    assert_eq!(code, 2);
    assert!(err.contains("nothing to write"), "{err}");
    let (code, _, err) = run(&["corridor", "export", a, "--geotiff", "/nonexistent/x.tif"]);
    assert_eq!(code, 1);
    assert!(err.contains("does not exist"), "{err}");
}

/// A GeoTIFF map in UTM (written by rasterio) with a route in longitude and latitude:
/// the route is projected onto the map, the corridor follows the lane and records the
/// CRS; on the farm (no CRS) the same route is refused, not read as metres.
#[test]
fn a_lon_lat_route_on_a_geotiff_map_builds_a_corridor_in_its_crs() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/geotiff/");
    let map = format!("{data}map.json");
    let route = format!("{data}route_lonlat.geojson");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.acor");
    let o = out.to_str().unwrap();
    let (code, _, err) = run(&[
        "corridor", "build", "--map", &map, "--route", &route, "--out", o,
    ]);
    assert_eq!(code, 0, "{err}");
    let (_, text, _) = run(&["corridor", "info", o, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["crs"], "EPSG:32615");
    // On the lane's centre line and beside the barn, in UTM metres.
    let (_, text, _) = run(&[
        "corridor",
        "query",
        o,
        "--at",
        "500020,4982982",
        "--at",
        "500020,4982990",
        "--format",
        "json",
    ]);
    let q: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(q[0]["d_m"].as_f64().unwrap() > 1.0, "{text}");
    assert!(q[1]["d_m"].as_f64().unwrap() <= 0.0, "{text}");
    let bad = dir.path().join("bad.acor");
    let (code, _, err) = run(&[
        "corridor",
        "build",
        "--route",
        &route,
        "--out",
        bad.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("longitude") && err.contains("no CRS"), "{err}");
    assert!(!bad.exists());
}

/// The SVG corridor image holds the raster part once (an embedded PNG), axes in map
/// metres with their titles, the d_c legend, the classes of the excluded ground that
/// appear (and no other) and a scale bar; no world file is written beside an SVG.
#[test]
fn the_corridor_image_in_svg_has_axes_legend_and_scale() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("farm.acor");
    let img = dir.path().join("farm.svg");
    let (code, _, err) = run(&[
        "corridor",
        "build",
        "--out",
        out.to_str().unwrap(),
        "--image",
        img.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!img.with_extension("pgw").exists());
    let svg = std::fs::read_to_string(&img).unwrap();
    assert_eq!(svg.matches("<image").count(), 1);
    assert!(svg.contains("href=\"data:image/png;base64,"));
    let texts: Vec<String> = svg
        .split("<text")
        .skip(1)
        .filter_map(|t| t.split('>').nth(1))
        .map(|t| t.split('<').next().unwrap().trim().to_string())
        .collect();
    let has = |s: &str| texts.iter().any(|t| t == s);
    // The farm raster spans x 900–1430 and y 200–860: ticks every 100 m and 200 m.
    for s in [
        "900", "1000", "1400", "200", "400", "800", "x (m)", "y (m)", "d_c (m)",
    ] {
        assert!(has(s), "no `{s}` in {texts:?}");
    }
    assert!(!has("1500") && !has("1000 m"), "{texts:?}");
    for s in [
        "route",
        "Excluded ground",
        "grass",
        "obstacle",
        "field",
        "19.88",
        "0.00",
    ] {
        assert!(has(s), "no `{s}` in {texts:?}");
    }
    assert!(
        !has("unknown"),
        "a class that does not appear is listed: {texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.ends_with(" m") && t[..t.len() - 2].parse::<f64>().is_ok())
    );
    assert!(
        texts[0].contains("2120 × 2640 cells at 0.25 m"),
        "{}",
        texts[0]
    );
}
