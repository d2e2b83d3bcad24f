//! `acres bridge`: the vehicle-bridge socket, as a server (a headless simulated Polaris)
//! and as a client that drives a vehicle through it.

use crate::Global;
use acres::jobs::bridge::client::{
    BridgeConn, Control, DEMO_STEPS, DriveOptions, DriveSink, Driver, Ending, ReportRow, Tick,
    drive, parse_steps,
};
use acres::jobs::bridge::server::{ServeOptions, Server};
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8};

/// The vehicle bridge (docs/bridge.md): serve a simulated Polaris, or drive one.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    Serve(ServeArgs),
    Client(ClientArgs),
}

/// Serve a headless simulated Polaris on the vehicle-bridge socket.
///
/// TCP on 127.0.0.1 only (the same messages move the real vehicle: keep the traffic on
/// loopback), one JSON object a line, one client a port (a connection that arrives while
/// the port has a client waits in the backlog, receiving nothing, and is served as soon as
/// the client leaves), one vehicle a port in one world. Commands: dbw, steering_cmd,
/// throttle_cmd, brake_cmd, gear_cmd (an integer 0 to 5, {"value": n} or {"cmd": ...}),
/// ulc_cmd, drive_mode, reset (x, y, yaw_deg in the bridge's frame, speed 0 to 8,
/// restore_field; only yaw_deg: the vehicle turns where it stands), several in one line;
/// clear, ignore, enable_shift, enable_shift_park and header ignored, on the line and in
/// each command; hud, reward and success_pct logged. A command with a number outside its
/// field's range (docs/bridge.md "Ranges") is refused whole. No reply to a command. Output: dbw_report lines at 50 Hz and observations at 10 Hz of simulated time
/// (the bridge's frame: x east, y south, yaw_deg to the south), with our extension `scan`,
/// the shield's 360 ranges counter-clockwise from the body x axis (null: no return).
/// A subsystem disengages 0.1 s of simulated time after its last command; on disconnect
/// the bridge brakes (shown as brake_report.pressure_input) and disables the DBW; a client
/// that leaves 1 MiB unread, or sends 1 MiB without a newline, is disconnected; input is
/// read at most 128 KiB a frame, and commands due at one step are merged (the later
/// command of a subsystem wins), so no client can stall the physics or grow the server.
/// Each kind of complaint is logged once per client. Log lines on stderr: ACRES_RL_LISTENING,
/// ACRES_RL_CONNECTED, ACRES_RL_DISCONNECTED, ACRES_RL_BUSY, ACRES_RL_BAD_MESSAGE,
/// ACRES_RL_RESET, ACRES_RL_HUD, ACRES_DBW_ENABLED, ACRES_DBW_DISABLED, ACRES_DBW_REJECTED.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
Timing: in real time the physics runs at 120 Hz paced to the wall clock and a command
applies at the first physics step at or after its due time, computed from its arrival
(docs/bridge.md \"Timing and timeouts\"). With --lockstep the world advances only on the
control channel (JSON lines on --control-port): {\"op\":\"hello\"} answers the agents with
their ports; {\"op\":\"step\",\"steps\":K} runs K physics steps, each bridge then sends
{\"type\":\"barrier\",\"step\":N} after all the lines of those steps, and the reply is
{\"ok\":true,\"op\":\"step\",\"barrier\":N}. In lockstep each command applies at the next
physics step. A bad request is answered {\"ok\":false,\"error\":...} and changes nothing:
not JSON, not an object, no op, an unknown op (the error lists hello and step), a key the
op does not have (e.g. nested \"args\"), or steps not an integer from 1 to 1000000.

The vehicles start at rest at the scenario's start pose (vehicle i 5 m to the left of
vehicle i-1), the DBW disabled, the gear lever in low (gear 5, no gear command: enabling
and a ULC speed drive off, as in the reference's example); agent 0 is `polaris`, agent i
`polaris_i`. While the ULC is off, ulc_report.vel_ref is vel_meas. Port 0 picks a free
port (the ACRES_RL_LISTENING line names it).")]
struct ServeArgs {
    /// The port of the vehicle (0: a free one).
    #[arg(long, default_value_t = 5556)]
    port: u16,
    /// One vehicle per port, comma-separated (replaces --port).
    #[arg(long, value_name = "P1,P2,...", value_delimiter = ',')]
    ports: Vec<u16>,
    /// The world: ground, obstacles, map and start pose of a scenario (default: the
    /// built-in opening scenario).
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// Advance only on the control channel's step requests.
    #[arg(long)]
    lockstep: bool,
    /// The port of the control channel (with --lockstep; 0: a free one).
    #[arg(long, default_value_t = 5600)]
    control_port: u16,
    /// Also append the log lines to FILE.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Send the 10 Hz observations (`off`: only dbw_report lines and barriers, as the
    /// Core server).
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = on_off)]
    observations: bool,
}

fn on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("`{s}`: on or off")),
    }
}

/// Drive a vehicle through a vehicle bridge (ours or the simulator's).
///
/// The counterpart of dbw_client.py: enables the DBW, sends commands at 50 Hz (the ULC
/// speed, the steering and the gear), keeps every report, at the end commands a stop for
/// 3 s and then disables the DBW. Prints `connected to HOST:PORT` and `done: N DBW reports
/// received`. A drive always ends: the steps' end, the route's end or --duration (exit
/// 0); a --path drive standing 10 s before the route's end, Ctrl-C (the stop, then the
/// disable; Ctrl-C again cuts the stop short), or a bridge that closes or fails (exit 1,
/// with the cause and what was kept).
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
Steps file: a JSON list of timed entries; from its t (s) on, an entry sets the speed (m/s),
the steering wheel angle steer_deg and the gear (P, R, N, H or D, L, or 1 to 5); the other
values stay; an entry with \"end\": true ends the drive, e.g.
  [{\"t\":0,\"speed\":0,\"steer_deg\":12.5,\"gear\":\"L\"},{\"t\":1,\"speed\":2},{\"t\":6,\"end\":true}]
which is also `--steps demo`.

--path follows a route (acres route JSON or GeoJSON) with the chain (default driver and
shield) by curvature commands, from the observed scan and the observed pose (10 Hz)
carried forward by each report's vel_meas and road_wheel_rad; it needs observations
(ours or the game's; the Core server sends none).

--log CSV columns: t (of the report), x_m, y_m, yaw_rad, speed_mps (the state at the
report, in the library's frame; empty before the first observation), cmd_speed_mps,
cmd_curvature_per_m (the command sent), every field of the dbw_report, named
report.field (e.g. ulc_report.vel_meas), and scan_0 ... scan_359 (the last observed
scan; empty: no return) when the bridge sends a scan. `acres replay` reads this CSV.
--record writes JSON Lines of the ticks with an observed state: step, t, state, scan, row
(the command; null in the final stop, which is the client's, not the driver's), as `acres
replay` reads them. Both are written as the drive goes and kept whatever ends it.")]
struct ClientArgs {
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    #[arg(long, default_value_t = 5556)]
    port: u16,
    /// A steps file, or `demo`.
    #[arg(long, value_name = "FILE|demo", conflicts_with = "path")]
    steps: Option<String>,
    /// A route to follow with the chain.
    #[arg(long, value_name = "FILE")]
    path: Option<PathBuf>,
    /// Seconds to wait after connecting.
    #[arg(long, default_value_t = 0.0, value_parser = crate::output::non_negative)]
    delay: f64,
    /// Write every report to a CSV file.
    #[arg(long, value_name = "FILE.csv")]
    log: Option<PathBuf>,
    /// A status text for the HUD.
    #[arg(long, value_name = "TEXT")]
    hud: Option<String>,
    /// Write the drive as JSON Lines for `acres replay`.
    #[arg(long, value_name = "FILE.jsonl")]
    record: Option<PathBuf>,
    /// Drive a lockstep server through its control channel on this port (each tick runs
    /// 2 or 3 physics steps: 50 Hz of simulated time).
    #[arg(long, value_name = "PORT")]
    control_port: Option<u16>,
    /// Also draw the drive's DBW reports over time (.png or .svg): vel_ref against
    /// vel_meas, the road wheel angle, the throttle and brake outputs. Kept in memory
    /// (48 bytes a report, about 9 MB an hour at 50 Hz); drawn also when the drive fails.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// The plot's size in pixels, WxH (default 1100x720).
    #[arg(long, value_name = "WxH", value_parser = crate::output::size, requires = "plot")]
    size: Option<(u32, u32)>,
    /// Stop after S seconds of driving (simulated time), then the final stop.
    #[arg(long, value_name = "S", value_parser = crate::output::non_negative)]
    duration: Option<f64>,
}

pub fn run(args: Args, global: &Global) -> anyhow::Result<()> {
    let config = global.load_config()?;
    match args.command {
        Sub::Serve(a) => serve(&config, a),
        Sub::Client(a) => client(&config, a),
    }
}

fn serve(config: &acres::config::Config, a: ServeArgs) -> anyhow::Result<()> {
    let scenario = acres::formats::scenario::Scenario::load(a.scenario.as_deref())?;
    let ports = if a.ports.is_empty() {
        vec![a.port]
    } else {
        a.ports
    };
    let mut file = match &a.log {
        Some(p) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .with_context(|| format!("writing {}", p.display()))?,
        ),
        None => None,
    };
    let log = Box::new(move |line: &str| {
        eprintln!("{line}");
        if let Some(f) = &mut file {
            let _ = writeln!(f, "{line}");
        }
    });
    let opts = ServeOptions {
        ports,
        control_port: a.lockstep.then_some(a.control_port),
        observations: a.observations,
    };
    let mut server = Server::bind(config, &scenario, &opts, log).map_err(|e| anyhow::anyhow!(e))?;
    let stop = AtomicBool::new(false);
    server.run(&stop)?;
    Ok(())
}

/// A CSV row before the header is known: the leading cells, the report's named fields,
/// the scan.
type WaitingRow = (Vec<String>, Vec<(String, String)>, Option<Vec<Option<f64>>>);

/// The report CSV of a drive, written as the drive goes: the header waits for the first
/// observation (at most 100 reports), so that the scan columns are there when the bridge
/// sends a scan.
struct CsvSink {
    w: csv::Writer<Box<dyn Write + Send>>,
    /// The scan columns of the header, once it is written.
    beams: Option<usize>,
    waiting: Vec<WaitingRow>,
    rows: u64,
}

/// The sinks of a drive: the CSV and the record, each a plain file flushed every second
/// of the drive, so that what was received is kept whatever ends the drive.
struct Sinks {
    csv: Option<CsvSink>,
    record: Option<Box<dyn Write + Send>>,
    ticks: u64,
    /// The reports for --plot (empty without it).
    points: Option<Vec<acres::plot::ReportPoint>>,
}

fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, x, out);
            }
        }
        serde_json::Value::String(s) => out.push((prefix.into(), s.clone())),
        other => out.push((prefix.into(), other.to_string())),
    }
}

/// The first columns of the report CSV.
const CSV_LEAD: [&str; 7] = [
    "t",
    "x_m",
    "y_m",
    "yaw_rad",
    "speed_mps",
    "cmd_speed_mps",
    "cmd_curvature_per_m",
];

impl CsvSink {
    fn row(&mut self, r: &ReportRow) -> std::io::Result<()> {
        let mut fields = Vec::new();
        let v = serde_json::to_value(r.report).map_err(std::io::Error::other)?;
        flatten("", &v, &mut fields);
        fields.retain(|(k, _)| k != "t");
        let pose = match r.state {
            Some(s) => [s.pose.x_m, s.pose.y_m, s.pose.yaw_rad, s.speed_mps].map(|x| x.to_string()),
            None => Default::default(),
        };
        let mut lead = vec![r.report.t.to_string()];
        lead.extend(pose);
        lead.extend([r.cmd.0.to_string(), r.cmd.1.to_string()]);
        self.waiting.push((lead, fields, r.scan.map(<[_]>::to_vec)));
        if self.beams.is_none() && (r.state.is_some() || self.waiting.len() >= 100) {
            let beams = r.scan.map_or(0, <[_]>::len);
            let mut h: Vec<String> = CSV_LEAD.iter().map(|s| s.to_string()).collect();
            h.extend(self.waiting[0].1.iter().map(|(k, _)| k.clone()));
            h.extend((0..beams).map(|i| format!("scan_{i}")));
            self.w.write_record(&h)?;
            self.beams = Some(beams);
        }
        if self.beams.is_some() {
            self.drain()?;
        }
        Ok(())
    }

    /// Writes the rows waiting for the header.
    fn drain(&mut self) -> std::io::Result<()> {
        let beams = self.beams.unwrap_or(0);
        for (lead, fields, scan) in std::mem::take(&mut self.waiting) {
            let mut row = lead;
            row.extend(fields.into_iter().map(|(_, v)| v));
            let scan = scan.unwrap_or_default();
            row.extend((0..beams).map(|i| match scan.get(i) {
                Some(Some(x)) => x.to_string(),
                _ => String::new(),
            }));
            self.w.write_record(&row)?;
            self.rows += 1;
            if self.rows % 50 == 0 {
                self.w.flush()?;
            }
        }
        Ok(())
    }

    /// Writes what waits (the header too, when no observation came) and flushes.
    fn finish(&mut self) -> std::io::Result<()> {
        if self.beams.is_none() && !self.waiting.is_empty() {
            let mut h: Vec<String> = CSV_LEAD.iter().map(|s| s.to_string()).collect();
            h.extend(self.waiting[0].1.iter().map(|(k, _)| k.clone()));
            self.w.write_record(&h)?;
            self.beams = Some(0);
        }
        self.drain()?;
        self.w.flush()
    }
}

impl DriveSink for Sinks {
    fn report(&mut self, r: &ReportRow) -> std::io::Result<()> {
        if let Some(points) = &mut self.points {
            let d = r.report;
            points.push(acres::plot::ReportPoint {
                t: d.t,
                vel_ref_mps: d.ulc_report.vel_ref,
                vel_meas_mps: d.ulc_report.vel_meas,
                wheel_deg: d.road_wheel_rad.to_degrees(),
                throttle_pct: d.throttle_report.percent_output,
                brake_pct: d.brake_report.percent_output,
            });
        }
        match &mut self.csv {
            Some(c) => c.row(r),
            None => Ok(()),
        }
    }

    fn tick(&mut self, t: &Tick) -> std::io::Result<()> {
        self.ticks += 1;
        let (Some(f), Some(state)) = (&mut self.record, &t.state) else {
            return Ok(());
        };
        // The final stop is the client's command, not the driver's: no row to compare.
        let row = match &t.row {
            _ if t.final_stop => serde_json::Value::Null,
            Some(r) => serde_json::to_value(r).map_err(std::io::Error::other)?,
            None => {
                serde_json::json!({"curvature_per_m": t.curvature_per_m, "speed_mps": t.speed_mps})
            }
        };
        let rec = serde_json::json!({"step": t.step, "t": t.t, "state": state, "scan": t.scan, "row": row});
        serde_json::to_writer(&mut *f, &rec).map_err(std::io::Error::other)?;
        f.write_all(b"\n")?;
        if self.ticks % 50 == 0 {
            f.flush()?;
        }
        Ok(())
    }
}

impl Sinks {
    /// Opens the files named (each folder must exist; checked before connecting).
    fn open(a: &ClientArgs) -> anyhow::Result<Sinks> {
        let create = |p: &PathBuf| -> anyhow::Result<Box<dyn Write + Send>> {
            if crate::output::is_stdout(p) {
                return Ok(Box::new(std::io::BufWriter::new(std::io::stdout())));
            }
            let f = std::fs::File::create(p).with_context(|| format!("writing {}", p.display()))?;
            Ok(Box::new(std::io::BufWriter::new(f)))
        };
        Ok(Sinks {
            csv: match &a.log {
                Some(p) => Some(CsvSink {
                    w: csv::Writer::from_writer(create(p)?),
                    beams: None,
                    waiting: Vec::new(),
                    rows: 0,
                }),
                None => None,
            },
            record: match &a.record {
                Some(p) => Some(create(p)?),
                None => None,
            },
            ticks: 0,
            points: a.plot.as_ref().map(|_| Vec::new()),
        })
    }

    /// Completes the files and draws the plot; says what each holds.
    fn finish(&mut self, a: &ClientArgs) -> anyhow::Result<String> {
        let mut kept = Vec::new();
        if let (Some(c), Some(p)) = (&mut self.csv, &a.log) {
            c.finish()
                .with_context(|| format!("writing {}", p.display()))?;
            kept.push(format!("{} reports in {}", c.rows, p.display()));
        }
        if let (Some(f), Some(p)) = (&mut self.record, &a.record) {
            f.flush()
                .with_context(|| format!("writing {}", p.display()))?;
            kept.push(format!("the ticks in {}", p.display()));
        }
        if let (Some(points), Some(p)) = (&self.points, &a.plot) {
            if points.len() < 2 {
                kept.push(format!("no plot {} (fewer than 2 reports)", p.display()));
                return Ok(kept.join(" and "));
            }
            let format = crate::plot::image_format(None, p)?;
            let spec = acres::plot::ImageSpec {
                format,
                size: a.size,
            };
            crate::output::write_output(p, &acres::plot::reports(points, spec)?)?;
            kept.push(format!("the plot {}", p.display()));
        }
        Ok(kept.join(" and "))
    }
}

fn driver_of(config: &acres::config::Config, a: &ClientArgs) -> anyhow::Result<Driver> {
    Ok(match (&a.steps, &a.path) {
        (_, Some(p)) => Driver::path(config, acres::chain::path::Path::load(p)?)
            .map_err(|e| anyhow::anyhow!(e))?,
        (Some(s), None) => {
            let (name, text) = if s == "demo" {
                ("demo".to_string(), DEMO_STEPS.to_string())
            } else {
                (
                    s.clone(),
                    std::fs::read_to_string(s).with_context(|| format!("reading {s}"))?,
                )
            };
            Driver::Steps(parse_steps(&name, &text).map_err(|e| anyhow::anyhow!(e))?)
        }
        (None, None) => Driver::Steps(parse_steps("demo", DEMO_STEPS).expect("the demo parses")),
    })
}

/// Ctrl-C counts into the flag (the first commands the stop, the second cuts it short).
fn interrupt_flag() -> Arc<AtomicU8> {
    let flag = Arc::new(AtomicU8::new(0));
    let f = flag.clone();
    let _ = ctrlc::set_handler(move || {
        let n = f.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if n == 0 {
            eprintln!(
                "acres: interrupted: commanding the stop, then disabling the DBW (Ctrl-C again: disable now)"
            );
        }
    });
    flag
}

fn client(config: &acres::config::Config, a: ClientArgs) -> anyhow::Result<()> {
    let driver = driver_of(config, &a)?;
    let stdout_taken = crate::output::check_outputs(&[
        ("--log", a.log.as_deref(), crate::output::Kind::Text),
        ("--record", a.record.as_deref(), crate::output::Kind::Text),
        (
            "--plot",
            a.plot.as_deref(),
            match &a.plot {
                Some(p) => crate::plot::image_kind(crate::plot::image_format(None, p)?),
                None => crate::output::Kind::Text,
            },
        ),
    ])?;
    // Where a file goes to stdout, the client's own lines go to stderr.
    let say = |line: String| {
        if stdout_taken {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    };
    let mut sinks = Sinks::open(&a)?;
    let where_ = format!("{}:{}", a.host, a.port);
    let mut conn =
        BridgeConn::connect(&a.host, a.port).with_context(|| format!("connecting to {where_}"))?;
    say(format!("connected to {where_}"));
    let mut control = match a.control_port {
        Some(p) => Some(
            Control::connect(&a.host, p)
                .with_context(|| format!("connecting to {}:{p}", a.host))?,
        ),
        None => None,
    };
    let mut opts = DriveOptions::of(config);
    opts.delay_s = a.delay;
    opts.hud = a.hud.clone();
    opts.duration_s = a.duration;
    opts.interrupt = Some(interrupt_flag());
    // The bridge's errors are not ours to hide: a closed socket is a failed drive, not a
    // closed stdout (which exits quietly).
    let result = drive(&mut conn, control.as_mut(), driver, &opts, &mut sinks)
        .map_err(|e| anyhow::anyhow!("the bridge at {where_}: {e}"));
    let kept = sinks.finish(&a)?;
    let kept = if kept.is_empty() {
        String::new()
    } else {
        format!("; kept {kept}")
    };
    let sum = match result {
        Ok(sum) => sum,
        Err(e) => anyhow::bail!("{e:#}: the drive ended early{kept}"),
    };
    say(format!("done: {} DBW reports received", sum.reports));
    match sum.ending {
        Ending::NoProgress(why) => anyhow::bail!("{why}: the drive ended early{kept}"),
        Ending::Interrupted => anyhow::bail!("interrupted: the drive ended early{kept}"),
        Ending::Finished | Ending::Duration => Ok(()),
    }
}
