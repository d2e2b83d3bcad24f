//! Fuzzes the map_server reader: the input's first zero byte splits it into the YAML
//! and the PGM image; any pair is refused naming the file and key, or gives a map within
//! the bounds and the map limit.
//!
//! Run: docs/formats.md "Fuzzing". Not part of CI.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (yaml, image) = (&data[..split], data.get(split + 1..).unwrap_or(&[]));
    let dir = std::env::temp_dir().join(format!("acres-fuzz-map-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let mut text = b"image: m.pgm\n".to_vec();
    text.extend_from_slice(yaml);
    let written = std::fs::write(dir.join("m.yaml"), &text)
        .and_then(|_| std::fs::write(dir.join("m.pgm"), image));
    if written.is_err() {
        return;
    }
    if let Ok(m) = acres::formats::ros_map::load(&dir.join("m.yaml")) {
        let g = &m.classes;
        assert!((1e-4..=1e4).contains(&g.resolution_m));
        assert!(g.width * g.height <= 1 << 28);
    }
});
