use super::acres;

/// Decodes a PNG into (width, height, RGB bytes).
fn decode(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = dec.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn default_png_is_written_and_has_curves_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let out = acres()
        .current_dir(dir.path())
        .args(["plot", "stop-distance"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(dir.path().join("stop-distance.png")).unwrap();
    let (w, h, rgb) = decode(&bytes);
    assert_eq!((w, h), (1100, 720));
    let px = |x: u32, y: u32| {
        let i = ((y * w + x) * 3) as usize;
        (rgb[i], rgb[i + 1], rgb[i + 2])
    };
    let drawn = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| px(x, y) != (255, 255, 255))
        .count();
    assert!(drawn > (w * h / 50) as usize, "only {drawn} drawn pixels");
    // The title band holds only the caption: dark pixels there are text.
    let title_ink = (0..40)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let (r, g, b) = px(x, y);
            (r as u32 + g as u32 + b as u32) < 300
        })
        .count();
    assert!(title_ink > 500, "no title text: {title_ink} dark pixels");
    // Each curve's colour is present (the first three of the palette).
    for c in [(31, 119, 180), (214, 39, 40), (44, 160, 44)] {
        assert!(
            (0..h).any(|y| (0..w).any(|x| px(x, y) == c)),
            "no pixel of colour {c:?}"
        );
    }
}

#[test]
fn svg_by_extension_and_png_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("d.svg");
    acres()
        .args([
            "plot",
            "stop-distance",
            "--max-speed",
            "8",
            "--out",
            svg.to_str().unwrap(),
        ])
        .assert()
        .success();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert!(text.contains("4.35 m to spare"));
    let out = acres()
        .args(["plot", "stop-distance", "--out", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(&out.stdout[..8], b"\x89PNG\r\n\x1a\n");
}

#[test]
fn bad_output_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let jpg = dir.path().join("d.jpg");
    let out = acres()
        .args(["plot", "stop-distance", "--out", jpg.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("d.jpg"));
    let missing = dir.path().join("no/dir/d.png");
    let out = acres()
        .args(["plot", "stop-distance", "--out", missing.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/dir/d.png"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let out = acres()
        .args(["plot", "stop-distance", "--max-speed", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn pure_pursuit_is_drawn_from_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = acres()
        .current_dir(dir.path())
        .args(["plot", "pure-pursuit"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (w, h, rgb) = decode(&std::fs::read(dir.path().join("pure-pursuit.png")).unwrap());
    // Cropped to the run at one scale: as wide as the default, much less tall.
    assert_eq!(w, 1100);
    assert!((400..700).contains(&h), "{h}");
    // Blue arcs, orange stop distances and the red object are drawn.
    for c in [(30, 90, 200), (240, 140, 20), (200, 30, 30)] {
        assert!(
            rgb.chunks_exact(3).any(|p| (p[0], p[1], p[2]) == c),
            "no pixel of {c:?}"
        );
    }
    let svg = dir.path().join("pp.svg");
    acres()
        .args(["plot", "pure-pursuit", "--out", svg.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&svg).unwrap();
    // The gap and the margin as dimension lines, the formulas with the class limits, the
    // verdict, a scale bar and a complete legend.
    for label in [
        "gap 2.45 m",
        "d_m 2.40 m",
        "κ = 2·y_L / L²",
        "d_stop(v) = d_m + v·T + v²/(2a);  gravel: d_m = 2.4 m, T = 1 s, a = 1.2 m/s²",
        "beyond the 2.40 m margin of gravel: ok",
        ">\n5 m\n<",
        "reference path",
        "vehicle trace (rear axle)",
        "pure-pursuit arc, look-ahead point",
        "d_stop(v) along the command arc",
        ">\nobject\n<",
        "final footprint",
    ] {
        assert!(text.contains(label), "no {label:?}");
    }
    // Four instants, each an arc and a stop distance, over the trace and the path.
    assert!(text.matches("<circle").count() >= 4);
    assert!(text.matches("<polyline").count() >= 10);
    // --size sets the image's size; the run is shown at one scale within it.
    let sized = dir.path().join("s.png");
    acres()
        .args([
            "plot",
            "pure-pursuit",
            "--size",
            "800x800",
            "--out",
            sized.to_str().unwrap(),
        ])
        .assert()
        .success();
    let (w, h, _) = decode(&std::fs::read(&sized).unwrap());
    assert_eq!((w, h), (800, 800));
    let (code, _, err) = super::run(&["plot", "pure-pursuit", "--size", "80x80"]);
    assert_eq!(code, 2);
    assert!(err.contains("--size"), "{err}");
}

#[test]
fn a_long_run_is_drawn_on_its_map() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("farm.svg");
    let (code, _, err) = super::run(&[
        "sim",
        "-q",
        "--scenario",
        "data/scenarios/farm_terrace_wet.json",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    // The map's classes under the run (many runs of cells), named in the legend, a
    // scale bar of a round length, and the title on two lines that fit the width (it
    // was cut with "…").
    assert!(text.matches("<rect").count() > 100);
    for label in [
        ">\nmap:\n<",
        ">\ngravel\n<",
        ">\ngrass\n<",
        ">\n100 m\n<",
        "\nPure pursuit and the shield&apos;s stop rule: The farm map, wet: from the yard up",
        "the east grass lane\n<",
    ] {
        assert!(text.contains(label), "no {label:?}");
    }
    assert!(!text.contains('…'));
    // The legend names only what is drawn: no object in this scenario, so no gap, and
    // only the classes in view (no asphalt: the public road is outside it).
    for absent in [">\nobject\n<", ">\ngap and d_m\n<", ">\nasphalt\n<"] {
        assert!(!text.contains(absent), "{absent:?} is in the legend");
    }
}
