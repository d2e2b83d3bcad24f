//! Deterministic mutation fuzzing of every input format (docs/formats.md "Fuzzing"): from
//! a seed file of each format, seeded mutations (a number made extreme, a bit flipped, a
//! byte set to a delimiter or 0xff, a length field set to all ones, a range deleted or
//! repeated, the file cut short) are fed to the command that reads the format, each case
//! in a child process under a 4 GiB address-space cap and a 30 s limit. Each case must
//! end, with status 0, a clear error (1 or 2) or a documented verdict (`check`'s 3 for a
//! refused chunk, its verdicts written): never a panic (101), an abort or a
//! signal (an allocation refused by the cap aborts), and where it wrote an output, the
//! output is complete or absent.
//!
//! `ACRES_FUZZ_CASES=N` sets the cases of each format (default 2000: 82 s in
//! all on two cores); `ACRES_FUZZ_SEED=S` changes the seed. A failing case is kept in
//! `target/fuzz-failures/` with the command to repeat it.

use proptest::prelude::Rng as _;
use proptest::test_runner::{RngAlgorithm, TestRng};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const ACRES: &str = env!("CARGO_BIN_EXE_acres");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The address-space cap of each case, bytes.
const MEMORY_CAP: u64 = 4 << 30;
/// The time limit of each case: a hang, not a speed.
const TIME_LIMIT: Duration = Duration::from_secs(30);

/// The text of number tokens a mutation puts in place of a number.
const EXTREMES: [&str; 16] = [
    "0",
    "-1",
    "1e308",
    "-1e308",
    "5e-324",
    "1e-300",
    "1e999",
    "4294967295",
    "18446744073709551616",
    "2147483647",
    "-0",
    "NaN",
    "100000",
    "99999999999",
    "0.5",
    "65536",
];

/// Bytes a mutation sets: delimiters of the text formats and the ends of a byte.
const BYTES: [u8; 12] = [
    0, 0xff, 0x7f, 0x80, b'"', b'{', b'[', b'\n', b',', b'-', b':', b'.',
];

struct Rng(TestRng);

impl Rng {
    fn new(format: &str) -> Rng {
        let seed: u64 = std::env::var("ACRES_FUZZ_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(63);
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        for (i, b) in format.bytes().enumerate() {
            bytes[8 + i % 8] ^= b;
        }
        Rng(TestRng::from_seed(RngAlgorithm::XorShift, &bytes))
    }

    fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n.max(1) as u64) as usize
    }
}

/// One mutation of `data`.
fn mutate_once(rng: &mut Rng, data: &mut Vec<u8>) {
    let n = data.len();
    match rng.below(8) {
        // A number token made extreme (the text formats' most telling change).
        0 | 1 => {
            let starts: Vec<usize> = (0..n)
                .filter(|&i| data[i].is_ascii_digit() && (i == 0 || !data[i - 1].is_ascii_digit()))
                .collect();
            if starts.is_empty() {
                return;
            }
            let s = starts[rng.below(starts.len())];
            let mut e = s;
            while e < n && (data[e].is_ascii_digit() || b".eE-+".contains(&data[e])) {
                e += 1;
            }
            let x = EXTREMES[rng.below(EXTREMES.len())].as_bytes();
            data.splice(s..e, x.iter().copied());
        }
        2 if n > 0 => {
            let i = rng.below(n);
            data[i] ^= 1 << rng.below(8);
        }
        3 if n > 0 => {
            let i = rng.below(n);
            data[i] = BYTES[rng.below(BYTES.len())];
        }
        // A length or count field set to all ones (the binary formats).
        4 if n >= 8 => {
            let i = rng.below(n - 7);
            let w = [2, 4, 8][rng.below(3)];
            data[i..i + w].fill(0xff);
        }
        5 if n > 0 => {
            let i = rng.below(n);
            let len = 1 + rng.below(16.min(n - i));
            data.drain(i..i + len);
        }
        6 if n > 0 => {
            let i = rng.below(n);
            let len = 1 + rng.below(64.min(n - i));
            let piece: Vec<u8> = data[i..i + len].to_vec();
            let at = rng.below(n);
            data.splice(at..at, piece);
        }
        7 if n > 0 => data.truncate(rng.below(n)),
        _ => {}
    }
}

/// A mutated copy of `seed`: one to three mutations.
fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(3) {
        mutate_once(rng, &mut data);
    }
    data
}

impl Default for Format {
    /// No files beside, no output, every case, through the acres command.
    fn default() -> Format {
        Format {
            name: "",
            seed: Vec::new(),
            file: "",
            args: &[],
            beside: Vec::new(),
            out: "",
            quarters: 4,
            in_child: false,
        }
    }
}

/// A format: its seed, the file name a case is written as, and the command that reads it
/// (`{in}` the case's file, `{dir}` its folder, `{root}` the repository, `{out}` an output
/// path whose absence or completeness is checked).
struct Format {
    name: &'static str,
    seed: Vec<u8>,
    file: &'static str,
    args: &'static [&'static str],
    /// Files beside the case (a map's images, a bag's metadata), copied as they are.
    beside: Vec<(&'static str, Vec<u8>)>,
    /// The name of the output `{out}` stands for, where the command writes one.
    out: &'static str,
    /// How many of the cases of `ACRES_FUZZ_CASES` this format runs, in quarters (a slow
    /// reader runs fewer).
    quarters: usize,
    /// Whether the reader is a function of the library, run by this test binary itself
    /// in a child (`args` then name the child's test), not the acres command.
    in_child: bool,
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(Path::new(ROOT).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn cases() -> usize {
    std::env::var("ACRES_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000)
}

/// Waits for `child` up to [`TIME_LIMIT`]; None when it had to be killed.
fn wait(child: &mut std::process::Child) -> Option<ExitStatus> {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("a child to wait on") {
            return Some(s);
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Runs `program args` under the memory cap; its status (None: killed at the time limit)
/// and stderr.
fn run_capped(
    program: &Path,
    args: &[String],
    env: &[(&str, &Path)],
) -> (Option<ExitStatus>, String) {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: MEMORY_CAP,
                rlim_max: MEMORY_CAP,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("the command starts");
    let mut stderr = child.stderr.take().expect("a stderr pipe");
    let reader = std::thread::spawn(move || {
        use std::io::Read;
        // Read to the end (a reader that stopped would make the child's writes fail),
        // keeping the first 400 bytes.
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s.truncate(400);
        String::from_utf8_lossy(&s).into_owned()
    });
    let status = wait(&mut child);
    (status, reader.join().unwrap_or_default())
}

/// Keeps a failing case's input and says how to repeat it.
fn keep(name: &str, k: usize, data: &[u8], file: &str, what: &str, command: &str) -> String {
    let dir = Path::new(ROOT).join("target/fuzz-failures");
    let _ = std::fs::create_dir_all(&dir);
    let kept = dir.join(format!("{name}-{k}-{file}"));
    let _ = std::fs::write(&kept, data);
    format!(
        "{name} case {k}: {what}; its input is kept in {} ({command})",
        kept.display()
    )
}

/// Runs the cases of a format through the acres command.
fn fuzz(f: Format) {
    let mut rng = Rng::new(f.name);
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in &f.beside {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let input = dir.path().join(f.file);
    let out_dir = dir.path().join("out");
    let out = out_dir.join(f.out);
    let args: Vec<String> = f
        .args
        .iter()
        .map(|a| {
            a.replace("{in}", input.to_str().unwrap())
                .replace("{out}", out.to_str().unwrap())
                .replace("{root}", ROOT)
                .replace("{dir}", dir.path().to_str().unwrap())
        })
        .collect();
    let writes = f.args.iter().any(|a| a.contains("{out}"));
    // The files a failed command left in the output's folder (none: each output is
    // written atomically).
    let left = || std::fs::read_dir(&out_dir).map_or(0, |d| d.count());
    let mut failures = Vec::new();
    let mut clean = 0;
    let is_check = f.args.contains(&"check");
    // Case 0 is the seed itself, which must read cleanly: the harness is sound.
    for k in 0..=(cases() * f.quarters).div_ceil(4) {
        let data = if k == 0 {
            f.seed.clone()
        } else {
            mutate(&mut rng, &f.seed)
        };
        std::fs::write(&input, &data).unwrap();
        let _ = std::fs::remove_dir_all(&out_dir);
        std::fs::create_dir_all(&out_dir).unwrap();
        let (status, stderr) = if f.in_child {
            let me = std::env::current_exe().expect("the test binary");
            run_capped(&me, &args, &[("ACRES_FUZZ_INPUT", &input)])
        } else {
            run_capped(Path::new(ACRES), &args, &[])
        };
        let command = format!("acres {}", f.args.join(" "));
        let what = match status {
            None => Some("no end within 30 s".to_string()),
            Some(s) => match s.code() {
                // A verdict of `check` (3: some chunk refused) reads as cleanly as 0.
                Some(c) if k == 0 && c != 0 && !(c == 3 && is_check) => {
                    Some(format!("the seed exits {c}: {}", stderr.trim()))
                }
                Some(0) if writes && !out.exists() => Some("exit 0 without its output".into()),
                Some(0) => {
                    clean += 1;
                    None
                }
                Some(c @ (1 | 2)) if left() > 0 => Some(format!(
                    "exit {c} but a file was left in the output's folder"
                )),
                Some(1 | 2) => None,
                // `check`: some chunk refused, its verdicts written.
                Some(3) if is_check && (!writes || out.exists()) => {
                    clean += 1;
                    None
                }
                Some(c) => Some(format!("exit {c}: {}", stderr.trim())),
                None => Some(format!("killed by {s}: {}", stderr.trim())),
            },
        };
        if let Some(what) = what {
            failures.push(keep(f.name, k, &data, f.file, &what, &command));
            if failures.len() >= 5 {
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(clean > 0, "{}: no case read cleanly", f.name);
}

#[test]
fn corridor_files() {
    fuzz(Format {
        name: "corridor",
        seed: seed_corridor(),
        file: "c.acor",
        args: &["-q", "corridor", "export", "{in}", "--geotiff", "{out}"],
        out: "c.tif",
        ..Format::default()
    });
}

/// A small corridor file (200 × 120 cells) built on the map_server test map.
fn seed_corridor() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.acor");
    let status = Command::new(ACRES)
        .args(["-q", "corridor", "build", "--map"])
        .arg(Path::new(ROOT).join("tests/data/ros_map/lane.yaml"))
        .arg("--route")
        .arg(Path::new(ROOT).join("tests/data/ros_map/past_the_box.json"))
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::read(out).unwrap()
}

#[test]
fn routes() {
    fuzz(Format {
        name: "route",
        seed: read("data/routes/farm_yard_to_east_lane.json"),
        file: "r.json",
        args: &["-q", "route", "check", "{in}"],
        ..Format::default()
    });
}

#[test]
fn geojson_routes() {
    fuzz(Format {
        name: "geojson",
        seed: read("tests/data/geotiff/route_lonlat.geojson"),
        file: "r.geojson",
        args: &[
            "-q",
            "corridor",
            "build",
            "--map",
            "{root}/tests/data/geotiff/map.json",
            "--route",
            "{in}",
            "--out",
            "{out}",
        ],
        out: "c.acor",
        quarters: 2,
        ..Format::default()
    });
}

#[test]
fn chunks() {
    fuzz(Format {
        name: "chunk",
        seed: read("data/chunks/accepted.json"),
        file: "c.json",
        args: &["-q", "check", "{in}", "--out", "{out}"],
        out: "v.json",
        ..Format::default()
    });
}

#[test]
fn chunk_batches() {
    let lines = read("data/chunks/straight_lane.jsonl");
    let text = String::from_utf8(lines).unwrap();
    let seed: String = text.lines().take(4).map(|l| format!("{l}\n")).collect();
    fuzz(Format {
        name: "batch",
        seed: seed.into_bytes(),
        file: "c.jsonl",
        args: &["-q", "check", "--batch", "{in}", "--out", "{out}"],
        out: "v.jsonl",
        ..Format::default()
    });
}

/// Forty records of the opening scenario's log.
fn seed_log() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("l.jsonl");
    let ok = Command::new(ACRES)
        .args(["-q", "sim", "--log"])
        .arg(&log)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(ok.code().is_some_and(|c| c <= 1));
    let text = std::fs::read_to_string(log).unwrap();
    text.lines()
        .skip(200)
        .take(40)
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn json_lines_logs() {
    fuzz(Format {
        name: "jsonl",
        seed: seed_log(),
        file: "l.jsonl",
        args: &["-q", "replay", "{in}", "--out", "{out}"],
        out: "r.csv",
        ..Format::default()
    });
}

#[test]
fn csv_logs() {
    // The shipped shield's 360 beams: a wall ahead at 12.5 m, no return behind.
    let beams: Vec<String> = (0..360).map(|i| format!("scan_{i}")).collect();
    let scan: Vec<&str> = (0..360)
        .map(|i| if !(90..270).contains(&i) { "12.5" } else { "" })
        .collect();
    let mut seed = format!(
        "t,x_m,y_m,yaw_rad,speed_mps,yaw_rate_rps,gear,grade,cmd_speed_mps,cmd_curvature_per_m,{}\n",
        beams.join(",")
    );
    for k in 0..20 {
        let t = f64::from(k) * 0.02;
        let x = 2.0 * t;
        let row = format!("{t},{x},0.0,0.0,2.0,0.0,4,0.0,2.0,0.0,{}\n", scan.join(","));
        seed.push_str(&row);
    }
    fuzz(Format {
        name: "csv",
        seed: seed.into_bytes(),
        file: "l.csv",
        args: &["-q", "replay", "{in}", "--out", "{out}"],
        out: "r.csv",
        ..Format::default()
    });
}

#[test]
fn mcap_bags() {
    fuzz(Format {
        name: "mcap",
        seed: read("tests/data/bags/drive/drive.mcap"),
        file: "drive.mcap",
        args: &[
            "-q",
            "replay",
            "--log-format",
            "bag",
            "{in}",
            "--out",
            "{out}",
        ],
        out: "r.csv",
        quarters: 2,
        ..Format::default()
    });
}

#[test]
fn ros1_bags() {
    for (name, seed) in [("ros1", "drive.bag"), ("ros1_lz4", "drive_lz4.bag")] {
        fuzz(Format {
            name,
            seed: read(&format!("tests/data/bags/ros1/{seed}")),
            file: "drive.bag",
            args: &["-q", "replay", "{in}", "--out", "{out}"],
            out: "r.csv",
            quarters: 1,
            ..Format::default()
        });
    }
}

#[test]
fn zstd_message_bags() {
    fuzz(Format {
        name: "zstd_message",
        seed: read("tests/data/bags/zstd_message/zstd_message.mcap"),
        file: "drive.mcap",
        args: &["-q", "replay", "{in}", "--out", "{out}"],
        out: "r.csv",
        quarters: 1,
        ..Format::default()
    });
}

#[test]
fn sqlite_bags() {
    fuzz(Format {
        name: "db3",
        seed: read("tests/data/bags/drive_db3/drive_db3.db3"),
        file: "drive.db3",
        args: &[
            "-q",
            "replay",
            "--log-format",
            "bag",
            "{in}",
            "--out",
            "{out}",
        ],
        out: "r.csv",
        quarters: 1,
        ..Format::default()
    });
}

#[test]
fn bag_metadata() {
    fuzz(Format {
        name: "metadata",
        seed: read("tests/data/bags/drive/metadata.yaml"),
        file: "metadata.yaml",
        args: &[
            "-q",
            "replay",
            "--log-format",
            "bag",
            "{dir}",
            "--out",
            "{out}",
        ],
        beside: vec![("drive.mcap", read("tests/data/bags/drive/drive.mcap"))],
        out: "r.csv",
        quarters: 1,
        ..Format::default()
    });
}

#[test]
fn measured_stops() {
    fuzz(Format {
        name: "stops",
        seed: read("data/stops/measurements.csv"),
        file: "s.csv",
        args: &[
            "-q",
            "envelope",
            "calibrate",
            "--stops",
            "{in}",
            "--out",
            "{out}",
            "--accept-looser",
        ],
        out: "e.json",
        ..Format::default()
    });
}

#[test]
fn configs() {
    fuzz(Format {
        name: "config",
        seed: read("configs/control_v1.json"),
        file: "control_v1.json",
        args: &["-q", "config", "show", "--config-dir", "{dir}"],
        ..Format::default()
    });
}

#[test]
fn map_manifests() {
    fuzz(Format {
        name: "manifest",
        seed: read("tests/data/geotiff/map.json"),
        file: "map.json",
        args: &[
            "-q",
            "corridor",
            "build",
            "--map",
            "{in}",
            "--route",
            "{root}/tests/data/geotiff/route_lonlat.geojson",
            "--out",
            "{out}",
        ],
        beside: vec![
            ("classes.tif", read("tests/data/geotiff/classes.tif")),
            ("elevation.tif", read("tests/data/geotiff/elevation.tif")),
        ],
        out: "c.acor",
        ..Format::default()
    });
}

/// `corridor build` of the GeoTIFF test map's manifest beside the case (a raster the
/// manifest names), along its lon/lat route.
const BUILD_BESIDE_MANIFEST: &[&str] = &[
    "-q",
    "corridor",
    "build",
    "--map",
    "{dir}/map.json",
    "--route",
    "{root}/tests/data/geotiff/route_lonlat.geojson",
    "--out",
    "{out}",
];

#[test]
fn geotiffs() {
    fuzz(Format {
        name: "geotiff",
        seed: read("tests/data/geotiff/classes.tif"),
        file: "classes.tif",
        args: BUILD_BESIDE_MANIFEST,
        beside: vec![
            ("map.json", read("tests/data/geotiff/map.json")),
            ("elevation.tif", read("tests/data/geotiff/elevation.tif")),
        ],
        out: "c.acor",
        ..Format::default()
    });
}

#[test]
fn elevation_geotiffs() {
    fuzz(Format {
        name: "elevation",
        seed: read("tests/data/geotiff/elevation.tif"),
        file: "elevation.tif",
        args: BUILD_BESIDE_MANIFEST,
        beside: vec![
            ("map.json", read("tests/data/geotiff/map.json")),
            ("classes.tif", read("tests/data/geotiff/classes.tif")),
        ],
        out: "c.acor",
        ..Format::default()
    });
}

#[test]
fn map_server_yamls() {
    fuzz(Format {
        name: "yaml",
        seed: read("tests/data/ros_map/lane.yaml"),
        file: "lane.yaml",
        args: &[
            "-q",
            "corridor",
            "build",
            "--map",
            "{in}",
            "--route",
            "{root}/tests/data/ros_map/past_the_box.json",
            "--out",
            "{out}",
        ],
        beside: vec![("lane.pgm", read("tests/data/ros_map/lane.pgm"))],
        out: "c.acor",
        ..Format::default()
    });
}

#[test]
fn map_server_images() {
    fuzz(Format {
        name: "pgm",
        seed: read("tests/data/ros_map/lane.pgm"),
        file: "lane.pgm",
        args: &[
            "-q",
            "corridor",
            "build",
            "--map",
            "{dir}/lane.yaml",
            "--route",
            "{root}/tests/data/ros_map/past_the_box.json",
            "--out",
            "{out}",
        ],
        beside: vec![("lane.yaml", read("tests/data/ros_map/lane.yaml"))],
        out: "c.acor",
        quarters: 2,
        ..Format::default()
    });
}

#[test]
fn scenarios() {
    fuzz(Format {
        name: "scenario",
        seed: read("data/scenarios/opening.json"),
        file: "s.json",
        args: &["-q", "sim", "--scenario", "{in}", "--log", "{out}"],
        out: "l.jsonl",
        quarters: 2,
        ..Format::default()
    });
}

#[test]
fn envelope_configs() {
    fuzz(Format {
        name: "envelope",
        seed: read("configs/envelope_v1.json"),
        file: "envelope_v1.json",
        args: &["-q", "envelope", "show", "--config-dir", "{dir}"],
        quarters: 2,
        ..Format::default()
    });
}

/// The child of [`bridge_lines`]: each line of the input through both parsers of the
/// bridge (a vehicle port's line, a control channel's request). Does nothing unless
/// `ACRES_FUZZ_INPUT` names the input.
#[test]
fn bridge_line_child() {
    let Some(path) = std::env::var_os("ACRES_FUZZ_INPUT") else {
        return;
    };
    let bytes = std::fs::read(path).expect("the case's input");
    for line in String::from_utf8_lossy(&bytes).split('\n') {
        let _ = acres::jobs::bridge::parse_line(line);
        let _ = acres::jobs::bridge::parse_request(line);
    }
}

#[test]
fn bridge_lines() {
    let seed = concat!(
        r#"{"reset": {"x": 10.5, "y": -2.0, "yaw_deg": 90.0, "speed": 1.5}}"#,
        "\n",
        r#"{"workers": [[10.0, 0.0], [0.0, 20.0]]}"#,
        "\n",
        r#"{"dbw": {"enable": true}, "gear_cmd": {"cmd": 4}}"#,
        "\n",
        r#"{"ulc_cmd": {"cmd": 2.0, "cmd_type": 1, "limit_accel": 1.0, "limit_decel": 1.5, "enable": true}, "steering_cmd": {"cmd": 60.0, "cmd_type": 2, "cmd_rate": 200.0, "enable": true}}"#,
        "\n",
        r#"{"op": "step", "steps": 12}"#,
        "\n",
        r#"{"op": "hello"}"#,
        "\n"
    );
    fuzz(Format {
        name: "bridge",
        seed: seed.as_bytes().to_vec(),
        file: "lines.txt",
        args: &[
            "--exact",
            "bridge_line_child",
            "--quiet",
            "--test-threads=1",
        ],
        in_child: true,
        ..Format::default()
    });
}
