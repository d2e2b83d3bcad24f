use super::acres;
use std::collections::BTreeMap;
use std::path::Path;

fn pages(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "1"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// man/ must be what the code generates: regenerate with `cargo run -- man --out man`.
#[test]
fn man_pages_are_current() {
    let dir = tempfile::tempdir().unwrap();
    acres()
        .args(["man", "--out", dir.path().to_str().unwrap()])
        .assert()
        .success();
    let fresh = pages(dir.path());
    let shipped = pages(&Path::new(env!("CARGO_MANIFEST_DIR")).join("man"));
    assert!(fresh.contains_key("acres.1") && fresh.contains_key("acres-envelope-stop-cap.1"));
    let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&shipped),
        names(&fresh),
        "man/ is stale: run `cargo run -- man --out man`"
    );
    for (name, text) in &fresh {
        assert!(
            shipped[name] == *text,
            "man/{name} is stale: run `cargo run -- man --out man`"
        );
    }
}

#[test]
fn every_option_is_in_its_page() {
    let dir = tempfile::tempdir().unwrap();
    acres()
        .args(["man", "--out", dir.path().to_str().unwrap()])
        .assert()
        .success();
    let page = std::fs::read_to_string(dir.path().join("acres-plot-stop-distance.1")).unwrap();
    for opt in [
        "out",
        "image\\-format",
        "grip",
        "max\\-speed",
        "config\\-dir",
        "quiet",
    ] {
        assert!(page.contains(&format!("\\-\\-{opt}")), "--{opt} missing");
    }
}
