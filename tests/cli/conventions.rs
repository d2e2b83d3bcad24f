//! The conventions every subcommand shares (docs/cli.md): `--format`, `-` for stdin and
//! stdout, outputs checked before the work, ranges as usage errors, completions.

use super::{acres, run};

#[test]
fn sim_log_on_stdout_keeps_the_summary_off_it() {
    let out = acres()
        .args(["sim", "--log", "-", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    // Every line of stdout is a log record; the summary went to stderr.
    let mut n = 0;
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON record");
        assert!(v.get("state").is_some(), "{line}");
        n += 1;
    }
    assert!(n > 100, "{n} records");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let summary: serde_json::Value = serde_json::from_str(&stderr).expect("the summary");
    assert_eq!(summary["final_class"], "gravel");
    assert_eq!(summary["obstacle_margin_m"], 2.4);
    assert!(!std::path::Path::new("-").exists());
}

#[test]
fn sim_ends_with_a_verdict_and_prints_csv() {
    let (code, out, err) = run(&["sim"]);
    assert_eq!(code, 0, "{err}");
    let last = out.lines().last().unwrap();
    assert!(
        last.starts_with("verdict: stopped 2.4") && last.ends_with("margin of gravel: ok"),
        "{last}"
    );
    assert!(err.contains("--plot") && err.contains("--log"), "{err}");
    let (code, out, _) = run(&["sim", "--format", "csv", "--moving", "off"]);
    assert_eq!(code, 0);
    let mut r = csv::Reader::from_reader(out.as_bytes());
    let head = r.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(rows.len(), 1);
    let col = |k: &str| &rows[0][head.iter().position(|h| h == k).unwrap()];
    assert_eq!(col("ok"), "true");
    assert_eq!(col("collided"), "false");
    assert_eq!(col("moving_rule"), "off");
    assert!(col("gap_m").parse::<f64>().unwrap() >= 2.4);
}

#[test]
fn outputs_are_checked_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = |p: &str| dir.path().join(p).to_str().unwrap().to_string();
    // A log in a missing folder: refused at once, naming the option and the folder.
    let (code, _, err) = run(&["sim", "--log", &d("nodir/run.jsonl")]);
    assert_eq!(code, 1);
    assert!(
        err.contains("--log") && err.contains("does not exist"),
        "{err}"
    );
    // A good log with a plot in a missing folder: nothing is written.
    let (code, _, err) = run(&["sim", "--log", &d("ok.jsonl"), "--plot", &d("no/p.png")]);
    assert_eq!(code, 1);
    assert!(err.contains("--plot"), "{err}");
    assert!(!dir.path().join("ok.jsonl").exists());
    // A folder as the output file.
    let (code, _, err) = run(&["check", "data/chunks/accepted.json", "--out", &d("")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is a folder"), "{err}");
    let (code, _, err) = run(&["envelope", "measure", "--out", &d("nodir/m.csv")]);
    assert_eq!(code, 1);
    assert!(
        err.contains("--out") && err.contains("does not exist"),
        "{err}"
    );
    let (code, _, err) = run(&["replay", "x.jsonl", "--out", &d("nodir/r.csv")]);
    assert_eq!(code, 1);
    assert!(err.contains("--out"), "{err}");
    // Two outputs on stdout at once.
    let (code, _, err) = run(&["sim", "--log", "-", "--plot", "-"]);
    assert_eq!(code, 2);
    assert!(err.contains("only one output"), "{err}");
    // Nothing was left behind in the folder.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_corridor_built_to_stdout_is_the_file_built() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.acor");
    let (code, _, err) = run(&["corridor", "build", "-q", "--out", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let out = acres()
        .args(["corridor", "build", "-q", "--out", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, std::fs::read(&file).unwrap());
    assert!(!std::path::Path::new("-").exists());
}

#[test]
fn values_without_physical_sense_are_usage_errors() {
    for (args, option) in [
        (
            &[
                "envelope",
                "stop-distance",
                "--class",
                "gravel",
                "--speed",
                "1e308",
            ][..],
            "--speed",
        ),
        (
            &[
                "envelope",
                "stop-distance",
                "--class",
                "gravel",
                "--speed",
                "-1",
            ],
            "--speed",
        ),
        (
            &[
                "envelope",
                "stop-cap",
                "--class",
                "gravel",
                "--distance",
                "1e9",
            ],
            "--distance",
        ),
        (
            &["plot", "stop-distance", "--max-speed", "-1"],
            "--max-speed",
        ),
        (
            &["plot", "stop-distance", "--max-speed", "0"],
            "--max-speed",
        ),
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert!(err.contains(option) && !err.contains("unexpected"), "{err}");
    }
    // The limit itself is inside.
    let (code, out, _) = run(&[
        "envelope",
        "stop-distance",
        "--class",
        "gravel",
        "--speed",
        "50",
    ]);
    assert_eq!(code, 0);
    assert!(out.trim().parse::<f64>().unwrap() > 1000.0, "{out}");
}

#[test]
fn a_scenario_starting_faster_than_the_bridge_allows_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("data/scenarios/opening.json").unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["start"]["speed_mps"] = 8.5.into();
    let p = dir.path().join("fast.json");
    std::fs::write(&p, v.to_string()).unwrap();
    let (code, _, err) = run(&["sim", "--scenario", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("fast.json") && err.contains("start.speed_mps") && err.contains("[0, 8]"),
        "{err}"
    );
}

#[test]
fn completions_are_generated_for_each_shell() {
    for (shell, mark) in [
        ("bash", "complete -F _acres"),
        ("zsh", "#compdef acres"),
        ("fish", "complete -c acres"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let (code, out, err) = run(&["completions", shell]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(mark), "{shell}");
        // Every subcommand is offered.
        for sub in ["envelope", "corridor", "check", "replay", "sim", "plot"] {
            assert!(out.contains(sub), "{shell}: {sub}");
        }
    }
    let (code, _, _) = run(&["completions", "tcsh"]);
    assert_eq!(code, 2);
}

#[test]
fn formats_are_one_set_of_values() {
    // The same three values where a summary is printed.
    let (code, out, _) = run(&["corridor", "info", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("csv"), "{out}");
    for args in [
        &["envelope", "show", "--format", "csv"][..],
        &["check", "data/chunks/accepted.json", "--format", "csv"],
        &[
            "route",
            "check",
            "farm_yard_to_east_lane.json",
            "--format",
            "csv",
        ],
    ] {
        let (code, out, err) = run(args);
        assert!(code == 0 || code == 3, "{args:?}: {err}");
        let mut r = csv::Reader::from_reader(out.as_bytes());
        assert!(r.headers().unwrap().len() > 2, "{args:?}");
    }
}

#[test]
fn replay_takes_rows_and_summary_formats_apart() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.jsonl");
    let (code, _, err) = run(&["sim", "-q", "--log", log.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // Rows as JSON Lines on stdout, the summary as CSV on stderr; the log read as JSON
    // Lines whatever its name says.
    let renamed = dir.path().join("run.csv");
    std::fs::copy(&log, &renamed).unwrap();
    let out = acres()
        .args(["replay", renamed.to_str().unwrap(), "--log-format", "jsonl"])
        .args(["--out", "-", "--rows", "jsonl", "--format", "csv"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = String::from_utf8(out.stdout).unwrap();
    let n = rows.lines().count();
    assert!(n > 100, "{n}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let mut r = csv::Reader::from_reader(stderr.as_bytes());
    let head = r.headers().unwrap().clone();
    let rec = r.records().next().unwrap().unwrap();
    let steps = &rec[head.iter().position(|h| h == "steps").unwrap()];
    assert_eq!(steps.parse::<usize>().unwrap(), n);
}

#[test]
fn calibrate_warns_of_missing_tests_and_refuses_them_when_strict() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("data/stops/measurements.csv").unwrap();
    let mut lines = text.lines();
    let mut dry = lines.next().unwrap().to_string() + "\n";
    for l in lines.filter(|l| l.split(',').nth(2) == Some("dry")) {
        dry.push_str(l);
        dry.push('\n');
    }
    let p = dir.path().join("dry.csv");
    std::fs::write(&p, dry).unwrap();
    let out = dir.path().join("env.json");
    let (code, _, err) = run(&[
        "envelope",
        "calibrate",
        "--stops",
        p.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--accept-looser",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning") && err.contains("no wet measurements"),
        "{err}"
    );
    // What calibrate wrote loads.
    let cfg = dir.path().join("cfg");
    std::fs::create_dir(&cfg).unwrap();
    std::fs::copy(&out, cfg.join("envelope_v1.json")).unwrap();
    let (code, _, err) = run(&["envelope", "show", "--config-dir", cfg.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&[
        "envelope",
        "calibrate",
        "--stops",
        p.to_str().unwrap(),
        "--strict",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("--strict") && err.contains("dry.csv"), "{err}");
}

#[test]
fn binary_output_is_refused_onto_a_terminal() {
    // `script` gives the command a terminal as stdout (util-linux; on every CI machine of
    // this project). Where it is missing the test says so and checks nothing else.
    let Ok(script) = which_script() else {
        eprintln!("no `script` command: the terminal case is not exercised here");
        return;
    };
    let bin = assert_cmd::cargo::cargo_bin("acres");
    let run_on_tty = |args: &str| {
        let out = std::process::Command::new(&script)
            .args(["-qec", &format!("{} {args}", bin.display()), "/dev/null"])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, out) = run_on_tty("plot stop-distance -q -o -");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("binary") && out.contains("redirect"), "{out}");
    // Text may go there.
    let (code, out) = run_on_tty("plot stop-distance -q -o - --image-format svg");
    assert_eq!(code, Some(0));
    assert!(out.contains("<svg"), "{}", &out[..out.len().min(200)]);
}

fn which_script() -> Result<std::path::PathBuf, ()> {
    ["/usr/bin/script", "/bin/script"]
        .iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.exists())
        .ok_or(())
}

#[test]
fn calibrate_draws_every_measurement_against_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("cal.svg");
    let (code, _, err) = run(&[
        "envelope",
        "calibrate",
        "-q",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    // A dot or ring per stop and steering step of the shipped file.
    let csv = std::fs::read_to_string("data/stops/measurements.csv").unwrap();
    let drawn = csv
        .lines()
        .skip(1)
        .filter(|l| l.starts_with("stop,") || l.starts_with("steer,"))
        .count();
    assert_eq!(text.matches("<circle").count(), drawn);
    // A calibrated curve and a legend entry per class, and a bar per class speed.
    for class in [
        "asphalt",
        "concrete",
        "gravel",
        "grass_lane",
        "dirt",
        "grass",
        "field",
    ] {
        assert!(text.contains(&format!("{class}: d_m ")), "{class}");
    }
    assert!(text.contains("Steering steps: wheel lift"));
}

/// An OS error is printed once (issue 61: "No such file or directory" came twice), and
/// the shipped scenarios, routes and map are found by name from any folder.
#[test]
fn os_errors_once_and_shipped_names_from_anywhere() {
    for args in [
        &["sim", "--scenario", "nothing.json"][..],
        &["check", "nothing.json"][..],
        &["corridor", "query", "nothing.acor", "--at", "1,1"][..],
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert_eq!(err.matches("os error").count(), 1, "{args:?}: {err}");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = acres()
        .current_dir(dir.path())
        .args([
            "-q",
            "sim",
            "--scenario",
            "crossing_person.json",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["scenario"]
            .as_str()
            .unwrap()
            .starts_with("A person crosses the lane"),
        "{v}"
    );
    let acor = dir.path().join("pass.acor");
    let out = acres()
        .current_dir(dir.path())
        .args(["-q", "corridor", "build", "--map", "farm", "--route"])
        .args(["farm_field_pass.json", "--out", acor.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // A file of that name in the folder is read instead of the shipped one.
    std::fs::write(dir.path().join("crossing_person.json"), "{").unwrap();
    let out = acres()
        .current_dir(dir.path())
        .args(["sim", "--scenario", "crossing_person.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// Messages a newcomer meets (issue 61): a route given as CSV and a replay of a file that
/// is no log say what the file should be; a query off the raster warns that its 0 is
/// unknown ground; what the arguments alone decide is a usage error (exit 2).
#[test]
fn wrong_files_say_what_is_expected_and_usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("route.csv");
    std::fs::write(&csv, "x,y,speed_mps\n0,0,3\n10,0,0\n").unwrap();
    let (code, _, err) = run(&["route", "check", csv.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("route.csv: not a route") && err.contains("GeoJSON"),
        "{err}"
    );
    let scenario = format!("{}/data/scenarios/opening.json", env!("CARGO_MANIFEST_DIR"));
    let (code, _, err) = run(&["replay", &scenario]);
    assert_eq!(code, 1);
    assert!(
        err.contains("opening.json: not an acres log") && err.contains("JSON Lines"),
        "{err}"
    );
    let acor = dir.path().join("farm.acor");
    let a = acor.to_str().unwrap();
    assert_eq!(run(&["corridor", "build", "-q", "--out", a]).0, 0);
    let (code, out, err) = run(&["corridor", "query", a, "--at", "960,600"]);
    assert_eq!(code, 0);
    assert!(!err.contains("warning"), "{err}");
    assert!(out.contains("3.20"), "{out}");
    let (code, out, err) = run(&["corridor", "query", a, "--at", "99999,5"]);
    assert_eq!(code, 0);
    assert!(out.contains("0.00"), "{out}");
    assert!(
        err.contains("warning: (99999, 5) off the corridor's raster") && err.contains("unknown"),
        "{err}"
    );
    for args in [
        &["corridor", "query", a][..],
        &["corridor", "export", a][..],
        &["plot", "stop-distance", "--out", "x.jpg"][..],
        &["sim", "--log", "-", "--plot", "-"][..],
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("usage error"), "{err}");
    }
}
