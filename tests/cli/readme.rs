//! The README's examples run as a newcomer runs them (issue 61): every command of its
//! section "The subcommands, one example each", in order, in a scratch folder (the
//! shipped `data/` and `tests/data/` paths resolved from the repository's root, HOME the
//! scratch folder), each with the exit status its comment documents: `(exit N)` where it
//! says so, else 0. A line ending in `&` is started and left running (the bridge server),
//! on the documented port 5556 where it is free, else on a free one.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One example: the command as written (comment dropped) and its documented exit status.
#[derive(Debug)]
struct Example {
    command: String,
    exit: i32,
}

/// The commands of the README's examples section, in order.
fn examples(readme: &str) -> Vec<Example> {
    let section = readme
        .split("## The subcommands, one example each")
        .nth(1)
        .expect("the README has its examples section");
    let block = section
        .split("```sh")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the section has a sh block");
    block
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|line| {
            let (command, comment) = line.split_once(" #").unwrap_or((line, ""));
            Example {
                command: command.trim().to_string(),
                exit: documented_exit(comment),
            }
        })
        .collect()
}

/// The exit status a comment documents: the N of `(exit N`, else 0.
fn documented_exit(comment: &str) -> i32 {
    comment
        .split("(exit ")
        .nth(1)
        .and_then(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .unwrap_or(0)
}

/// The command with the shipped paths made absolute and the bridge's port set.
fn resolve(command: &str, port: u16) -> String {
    let r = root();
    command
        .split(' ')
        .map(|w| {
            if w.starts_with("data/") || w.starts_with("tests/data/") {
                r.join(w).display().to_string()
            } else if w == "5556" {
                port.to_string()
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A shell in `dir` with the built binary first on PATH and HOME at `dir`.
fn shell(dir: &Path, command: &str) -> Command {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_acres"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", dir);
    c
}

/// The documented port where it is free, else one the system gives.
fn bridge_port() -> u16 {
    if TcpListener::bind(("127.0.0.1", 5556)).is_ok() {
        return 5556;
    }
    let l = TcpListener::bind(("127.0.0.1", 0)).unwrap();
    l.local_addr().unwrap().port()
}

fn wait_for_port(port: u16) {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the bridge server did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kills the background servers however the test ends.
struct Background(Vec<Child>);

impl Drop for Background {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[test]
fn every_readme_example_runs_with_its_documented_exit_status() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let list = examples(&readme);
    assert!(list.len() >= 25, "{} examples", list.len());
    assert!(
        list.iter().any(|e| e.exit == 3) && list.iter().any(|e| e.exit == 4),
        "the README documents the failing exits it shows"
    );
    let dir = tempfile::tempdir().unwrap();
    let port = bridge_port();
    let mut background = Background(Vec::new());
    for e in &list {
        let cmd = resolve(&e.command, port);
        if let Some(bg) = cmd.strip_suffix('&') {
            // `exec`: the shell becomes the server, so killing the child kills it (a
            // shell left in between would leave the server running after the test).
            let child = shell(dir.path(), &format!("exec {}", bg.trim()))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            background.0.push(child);
            wait_for_port(port);
            continue;
        }
        let out = shell(dir.path(), &cmd).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(e.exit),
            "`{}` (as `{cmd}`):\n{}",
            e.command,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // What the examples promise to write is there.
    for f in [
        "run.jsonl",
        "run.png",
        "verdicts.csv",
        "farm.acor",
        "farm.png",
        "lane.acor",
        "plan.png",
        "m.csv",
        "reports.csv",
        "stop.png",
        ".local/share/bash-completion/completions/acres",
    ] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
}

#[test]
fn documented_exits_are_read_from_the_comment() {
    assert_eq!(documented_exit(" verdicts (exit 3: refused on purpose)"), 3);
    assert_eq!(documented_exit(" the opening figure"), 0);
    assert_eq!(
        resolve("acres x data/a.json --port 5556", 7000),
        format!("acres x {}/data/a.json --port 7000", root().display())
    );
}
