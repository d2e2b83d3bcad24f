//! The documentation's relative links: every link of README.md, CHANGELOG.md, docs/ and
//! the data folders' READMEs points at a file that exists, and a link to a heading of a
//! Markdown file names a heading that exists.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files whose links are checked.
fn documents() -> Vec<PathBuf> {
    let r = root();
    let mut files = vec![r.join("README.md"), r.join("CHANGELOG.md")];
    for dir in [
        "docs",
        "data/chunks",
        "data/maps",
        "data/routes",
        "data/scenarios",
        "data/stops",
    ] {
        let mut md: Vec<PathBuf> = std::fs::read_dir(r.join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        md.sort();
        files.extend(md);
    }
    files
}

/// The targets of the inline links `[text](target)` of a Markdown text, outside code.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Drop inline code spans, whose brackets are not links.
        let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            match after.find(')') {
                Some(j) => {
                    out.push(after[..j].trim().to_string());
                    rest = &after[j + 1..];
                }
                None => break,
            }
        }
    }
    out
}

/// The anchor of a heading as the usual Markdown renderers make it: lower case, spaces to
/// hyphens, punctuation other than hyphens and underscores dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| slug(l.trim_start_matches('#')))
        .collect()
}

/// The broken links of one document: (target, why).
fn broken_links(doc: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(doc).unwrap();
    let dir = doc.parent().unwrap();
    let mut bad = Vec::new();
    for target in link_targets(&text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() {
            doc.to_path_buf()
        } else {
            dir.join(path)
        };
        if !file.exists() {
            bad.push((target.clone(), "no such file".into()));
            continue;
        }
        if let Some(a) = anchor {
            if file.extension().is_some_and(|e| e == "md") && !anchors(&file).iter().any(|h| h == a)
            {
                bad.push((target.clone(), "no such heading".into()));
            }
        }
    }
    bad
}

#[test]
fn every_relative_link_of_the_docs_resolves() {
    let docs = documents();
    assert!(
        docs.iter().any(|d| d.ends_with("docs/rules.md")),
        "{docs:?}"
    );
    let mut broken = Vec::new();
    let mut links = 0;
    for doc in &docs {
        links += link_targets(&std::fs::read_to_string(doc).unwrap()).len();
        for (target, why) in broken_links(doc) {
            broken.push(format!("{}: ({target}): {why}", doc.display()));
        }
    }
    assert!(
        links >= 10,
        "only {links} links found: is the parser right?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_checker_finds_a_broken_link_and_a_missing_heading() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b.md"), "# Some heading, here\n").unwrap();
    let doc = dir.path().join("a.md");
    std::fs::write(
        &doc,
        "[ok](b.md) [ok](b.md#some-heading-here) [gone](c.md) [nohead](b.md#other)\n\
         `[code](x.md)`\n```\n[fenced](y.md)\n```\n[web](https://example.com)\n",
    )
    .unwrap();
    let bad = broken_links(&doc);
    let targets: Vec<&str> = bad.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(targets, ["c.md", "b.md#other"], "{bad:?}");
}

#[test]
fn the_architecture_names_every_folder_of_the_library() {
    let arch = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    for e in std::fs::read_dir(root().join("src")).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            let name = format!("src/{}/", p.file_name().unwrap().to_string_lossy());
            assert!(
                arch.contains(&name),
                "docs/architecture.md does not name {name}"
            );
        }
    }
}

/// One version (issue 61): the binary's, the Python package's (taken from the workspace
/// by maturin) and the CHANGELOG's newest heading.
#[test]
fn the_binary_the_python_package_and_the_changelog_say_one_version() {
    let version = env!("CARGO_PKG_VERSION");
    let changelog = std::fs::read_to_string(root().join("CHANGELOG.md")).unwrap();
    let newest = changelog
        .lines()
        .find_map(|l| l.strip_prefix("## "))
        .expect("a version heading");
    assert!(
        newest == version || newest.starts_with(&format!("{version} ")),
        "CHANGELOG's newest heading `{newest}`, the binary {version}"
    );
    let (code, out, _) = crate::run(&["--version"]);
    assert_eq!((code, out.trim()), (0, format!("acres {version}").as_str()));
    let py = std::fs::read_to_string(root().join("python/Cargo.toml")).unwrap();
    assert!(py.contains("version.workspace = true"), "python/Cargo.toml");
    let pyproject = std::fs::read_to_string(root().join("python/pyproject.toml")).unwrap();
    assert!(
        pyproject.contains("dynamic = [\"version\"]")
            && !pyproject.lines().any(|l| l.starts_with("version")),
        "python/pyproject.toml takes the version from Cargo"
    );
}

/// Every Markdown file a help text names (through the man pages, which hold every
/// subcommand's long help) is in the repository: help cites docs/, never a document the
/// user does not have (issue 61: `--help` cited the reference's documents).
#[test]
fn every_document_the_help_names_exists() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = crate::run(&["man", "--out", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let mut named = 0;
    for page in std::fs::read_dir(dir.path()).unwrap() {
        let page = page.unwrap().path();
        let text = std::fs::read_to_string(&page).unwrap().replace("\\-", "-");
        for word in text.split(|c: char| c.is_whitespace() || "()\"'`,;".contains(c)) {
            let word = word.trim_end_matches(['.', ':']);
            if !word.ends_with(".md") {
                continue;
            }
            named += 1;
            assert!(
                root().join(word).exists(),
                "{}: names `{word}`, which the repository does not hold",
                page.display()
            );
        }
    }
    assert!(named > 5, "the help names docs ({named})");
    // Nor do the docs and the data folders' READMEs send a user to the reference.
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for name in ["vehicle-software.md", "vehicle-bridge.md"] {
            assert!(
                !text.contains(name) || doc.ends_with("CHANGELOG.md"),
                "{}: {name}",
                doc.display()
            );
        }
    }
}
