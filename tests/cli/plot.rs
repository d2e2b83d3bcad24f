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
    assert_eq!(out.status.code(), Some(1));
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
    assert_eq!((w, h), (1100, 720));
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
    assert!(text.contains("stopped, gap 2.4"), "the gap is annotated");
}
