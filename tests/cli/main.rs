//! The `acres` binary run as a user runs it. One test target, one module per subcommand.

mod bridge;
mod bridge_hostile;
mod check;
mod config;
mod conventions;
mod corridor;
mod docs;
mod envelope;
mod man;
mod plot;
mod readme;
mod replay;
mod routes;
mod sim;
mod validate;

use assert_cmd::Command;

/// The built `acres` binary, run in `dir` (a fresh directory unless given).
pub fn acres() -> Command {
    Command::cargo_bin("acres").expect("the acres binary is built")
}

/// Runs `acres` with `args`; returns (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = acres().args(args).output().expect("acres runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A config directory holding one shipped file edited by `f`.
pub fn config_dir_with(file: &str, f: impl FnOnce(&mut serde_json::Value)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(format!("{}/configs/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    f(&mut v);
    std::fs::write(
        dir.path().join(file),
        serde_json::to_string_pretty(&v).unwrap(),
    )
    .unwrap();
    dir
}
