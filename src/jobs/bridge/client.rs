//! `acres bridge client`: drives a vehicle through a vehicle bridge (ours or the
//! simulator's), the Rust counterpart of dbw_client.py (vehicle-bridge.md): enable the
//! DBW, send commands at 50 Hz (timed steps, or the chain following a path from the
//! observed pose and scan), keep every report, then a stop for 3 s and disable.
//!
//! In real time the ticks follow the wall clock; with a control channel (a lockstep
//! server) each tick is a `step` request of 2 or 3 physics steps (12 per 5 ticks, so
//! 50 Hz of simulated time) and the client reads its bridge to the barrier.

use super::frame;
use crate::chain::envelope::Grip;
use crate::chain::path::Path;
use crate::chain::scan::Scan;
use crate::chain::shield::Pose;
use crate::chain::{Chain, ChainInput, CommandRow, Gear, VehicleState};
use crate::config::Config;
use crate::plant::dbw::DbwReport;
use serde::Deserialize;
use std::io::{self, BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::AtomicU8;
use std::time::{Duration, Instant};

/// One line from a bridge.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    Report(Box<DbwReport>),
    Barrier(u64),
    Observation(Box<ObservationIn>),
    Other(serde_json::Value),
}

/// The observation keys the client reads (the simulator's or ours; those missing are
/// defaults).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub struct ObservationIn {
    pub t: f64,
    pub x: f64,
    pub y: f64,
    pub yaw_deg: f64,
    pub vx: f64,
    pub yaw_rate: f64,
    /// The road wheel angle, rad, left positive.
    pub steer_rad: f64,
    pub gear: Option<u8>,
    /// Our extension: the grade along the heading (0 where the bridge sends none).
    pub grade: f64,
    pub scan: Option<Vec<Option<f64>>>,
    /// Our extensions: the lateral acceleration (right positive) and wheel lift.
    pub ay: Option<f64>,
    pub wheel_lift: Option<bool>,
    /// acres's bridge: the vehicle has rolled over.
    #[serde(default)]
    pub rolled_over: Option<bool>,
    /// Whether the vehicle hit a worker since the last observation, and the number of
    /// workers (vehicle-bridge.md "Observation").
    pub struck: Option<bool>,
    pub workers: Option<u64>,
}

impl ObservationIn {
    /// The state in the library's frame.
    pub fn state(&self, gear: Gear) -> VehicleState {
        let (x, y, yaw) = frame::pose_from_bridge(self.x, self.y, self.yaw_deg);
        VehicleState {
            pose: Pose {
                x_m: x,
                y_m: y,
                yaw_rad: yaw,
            },
            speed_mps: self.vx,
            yaw_rate_rps: frame::flip(self.yaw_rate),
            gear: self.gear.and_then(Gear::from_number).unwrap_or(gear),
            grade: self.grade,
        }
    }
}

/// A connection to a vehicle bridge.
pub struct BridgeConn {
    write: TcpStream,
    read: BufReader<TcpStream>,
    line: String,
    /// The read timeout in force (set only when it changes: one system call less a line).
    timeout: Option<Option<Duration>>,
}

impl BridgeConn {
    /// Connects to HOST:PORT.
    pub fn connect(host: &str, port: u16) -> io::Result<BridgeConn> {
        BridgeConn::from_stream(TcpStream::connect((host, port))?)
    }

    /// A connection on a stream already open.
    pub fn from_stream(s: TcpStream) -> io::Result<BridgeConn> {
        s.set_nodelay(true)?;
        Ok(BridgeConn {
            read: BufReader::with_capacity(1 << 16, s.try_clone()?),
            write: s,
            line: String::new(),
            timeout: None,
        })
    }

    /// Sends one JSON object as a line.
    pub fn send(&mut self, v: &serde_json::Value) -> io::Result<()> {
        let mut b = serde_json::to_vec(v).map_err(io::Error::other)?;
        b.push(b'\n');
        self.write.write_all(&b)
    }

    /// Reads one line; None at the timeout (None: wait for ever) or at the end.
    pub fn read_line(&mut self, timeout: Option<Duration>) -> io::Result<Option<Line>> {
        let t = timeout.map(|t| t.max(Duration::from_micros(100)));
        // Lines already buffered need no timeout; a long one is kept between calls.
        if self.timeout != Some(t) && self.read.buffer().is_empty() {
            self.read.get_ref().set_read_timeout(t)?;
            self.timeout = Some(t);
        }
        self.line.clear();
        match self.read.read_line(&mut self.line) {
            Ok(0) => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the bridge closed",
            )),
            Ok(_) => Ok(Some(classify(self.line.trim_end()))),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

/// Sorts a bridge line by its parsed `type`: a report, a barrier, an observation (no
/// `type`, with `t` and `x`), or other (a line that is not JSON is `Other(Null)`). The
/// line is parsed as JSON whatever its spacing.
pub fn classify(line: &str) -> Line {
    /// Only the `type` of a line, read without building the rest.
    #[derive(Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: Option<std::borrow::Cow<'a, str>>,
    }
    let kind = serde_json::from_str::<Kind>(line).ok().and_then(|k| k.kind);
    if kind.as_deref() == Some("dbw_report") {
        if let Ok(r) = serde_json::from_str::<DbwReport>(line) {
            return Line::Report(Box::new(r));
        }
    }
    let v: serde_json::Value = serde_json::from_str(line).unwrap_or(serde_json::Value::Null);
    match v.get("type").and_then(|t| t.as_str()) {
        Some("barrier") => match v["step"].as_u64() {
            Some(b) => Line::Barrier(b),
            None => Line::Other(v),
        },
        Some(_) => Line::Other(v),
        None if v.get("t").is_some() && v.get("x").is_some() => {
            match serde_json::from_value::<ObservationIn>(v.clone()) {
                Ok(o) => Line::Observation(Box::new(o)),
                Err(_) => Line::Other(v),
            }
        }
        None => Line::Other(v),
    }
}

/// The simulator control channel of a lockstep server.
pub struct Control {
    conn: BridgeConn,
}

impl Control {
    /// Connects to the control port.
    pub fn connect(host: &str, port: u16) -> io::Result<Control> {
        Ok(Control {
            conn: BridgeConn::connect(host, port)?,
        })
    }

    /// One request and its reply.
    pub fn call(&mut self, req: serde_json::Value) -> io::Result<serde_json::Value> {
        self.conn.send(&req)?;
        match self.conn.read_line(Some(Duration::from_secs(30)))? {
            Some(Line::Other(v)) => Ok(v),
            other => Err(io::Error::other(format!(
                "control: unexpected reply {other:?}"
            ))),
        }
    }

    /// Runs `steps` physics steps; returns the barrier step.
    pub fn step(&mut self, steps: u64) -> io::Result<u64> {
        let v = self.call(serde_json::json!({"op": "step", "steps": steps}))?;
        v["barrier"]
            .as_u64()
            .ok_or_else(|| io::Error::other(format!("control: {v}")))
    }
}

/// One entry of a steps file: from `t` on, the speed, the steering wheel angle and the
/// gear that it gives (the others keep their values); `end` ends the drive.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepEntry {
    pub t: f64,
    #[serde(default)]
    pub speed: Option<f64>,
    #[serde(default)]
    pub steer_deg: Option<f64>,
    #[serde(default)]
    pub gear: Option<GearName>,
    #[serde(default)]
    pub end: bool,
}

/// A gear as a letter (P, R, N, H or D, L) or a number (1 to 5).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum GearName {
    Number(u8),
    Letter(String),
}

impl GearName {
    /// The gear number: 1 park, 2 reverse, 3 neutral, 4 high, 5 low.
    pub fn number(&self) -> Option<u8> {
        match self {
            GearName::Number(n) if (1..=5).contains(n) => Some(*n),
            GearName::Number(_) => None,
            GearName::Letter(s) => match s.as_str() {
                "P" => Some(1),
                "R" => Some(2),
                "N" => Some(3),
                "H" | "D" => Some(4),
                "L" => Some(5),
                _ => None,
            },
        }
    }
}

/// The demonstration of dbw_client.py (vehicle-bridge.md): low gear, 12.5° at the wheel,
/// 2 m/s from 1 s, the end at 6 s.
pub const DEMO_STEPS: &str =
    r#"[{"t":0,"speed":0,"steer_deg":12.5,"gear":"L"},{"t":1,"speed":2},{"t":6,"end":true}]"#;

/// Parses a steps file (named `file` in errors).
pub fn parse_steps(file: &str, text: &str) -> Result<Vec<StepEntry>, String> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let steps: Vec<StepEntry> = serde_path_to_error::deserialize(de)
        .map_err(|e| format!("{file}: key `{}`: {}", e.path(), e.inner()))?;
    if steps.is_empty() {
        return Err(format!("{file}: no steps"));
    }
    for (i, s) in steps.iter().enumerate() {
        if !s.t.is_finite() || s.t < 0.0 || (i > 0 && s.t < steps[i - 1].t) {
            return Err(format!(
                "{file}: key `[{i}].t`: times must be finite, ≥ 0 and in order"
            ));
        }
        if let Some(g) = &s.gear
            && g.number().is_none()
        {
            return Err(format!(
                "{file}: key `[{i}].gear`: P, R, N, H, D, L or 1 to 5"
            ));
        }
        for (k, v) in [("speed", s.speed), ("steer_deg", s.steer_deg)] {
            if v.is_some_and(|x| !x.is_finite()) {
                return Err(format!("{file}: key `[{i}].{k}`: not a finite number"));
            }
        }
    }
    Ok(steps)
}

/// What the client drives by.
pub enum Driver {
    Steps(Vec<StepEntry>),
    Path(Box<Chain>),
}

impl Driver {
    /// The chain following `path` (default driver and shield, grip unknown).
    pub fn path(config: &Config, path: Path) -> Result<Driver, String> {
        Ok(Driver::Path(Box::new(
            Chain::new(config, path, Grip::Unknown).map_err(|e| e.to_string())?,
        )))
    }
}

/// The options of a drive.
pub struct DriveOptions {
    pub delay_s: f64,
    pub hud: Option<String>,
    /// The steering ratio and wheelbase (for the curvature of a steering wheel angle).
    pub steering_ratio: f64,
    pub wheelbase_m: f64,
    pub beams: usize,
    /// Simulated seconds after which the drive stops (None: until the steps or the path
    /// end).
    pub duration_s: Option<f64>,
    /// Set to interrupt the drive (Ctrl-C): the stop is commanded and the DBW disabled;
    /// set twice, the stop is cut short.
    pub interrupt: Option<Arc<AtomicU8>>,
}

impl DriveOptions {
    /// The options of a vehicle of `config`, no delay, HUD, duration or interrupt.
    pub fn of(config: &Config) -> DriveOptions {
        DriveOptions {
            delay_s: 0.0,
            hud: None,
            steering_ratio: config.control.dbw.steering.ratio,
            wheelbase_m: config.control.vehicle.wheelbase_m,
            beams: config.control.corridor.beams as usize,
            duration_s: None,
            interrupt: None,
        }
    }

    fn interrupts(&self) -> u8 {
        self.interrupt
            .as_ref()
            .map_or(0, |i| i.load(std::sync::atomic::Ordering::Relaxed))
    }
}

/// A drive by `--path` that stands (speed below 0.05 m/s) this long, simulated, while the
/// route is not done has no progress: it ends with the stop and an error.
pub const NO_PROGRESS_S: f64 = 10.0;

/// The final stop: 3 s of speed 0 (vehicle-bridge.md's dbw_client.py), then disable.
pub const FINAL_STOP_TICKS: u64 = 150;

/// Why a drive ended.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Ending {
    /// The steps file's end, or the route's end.
    #[default]
    Finished,
    /// `duration_s` was reached.
    Duration,
    /// The vehicle stood for [`NO_PROGRESS_S`] before the route's end.
    NoProgress(String),
    /// Interrupted (Ctrl-C).
    Interrupted,
}

impl Ending {
    /// Whether the drive did not do what it was given.
    pub fn is_early(&self) -> bool {
        matches!(self, Ending::NoProgress(_) | Ending::Interrupted)
    }
}

/// One tick of a drive, for the record and the CSV.
#[derive(Debug, Clone)]
pub struct Tick {
    pub step: u64,
    pub t: f64,
    pub state: Option<VehicleState>,
    pub scan: Option<Vec<Option<f64>>>,
    pub speed_mps: f64,
    pub curvature_per_m: f64,
    pub row: Option<CommandRow>,
    /// Whether the tick is of the final stop (the client's command, not the driver's).
    pub final_stop: bool,
}

/// One report as the sinks get it: with the state at its time (the last observation
/// carried forward; None before the first), the last observed scan and the command sent.
pub struct ReportRow<'a> {
    pub report: &'a DbwReport,
    pub state: Option<&'a VehicleState>,
    pub scan: Option<&'a [Option<f64>]>,
    /// The ULC speed and the curvature sent, m/s and 1/m.
    pub cmd: (f64, f64),
}

/// The sinks of a drive: each report, each tick.
pub trait DriveSink {
    fn report(&mut self, r: &ReportRow) -> io::Result<()>;
    fn tick(&mut self, t: &Tick) -> io::Result<()>;
}

/// The outcome of a drive.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DriveSummary {
    pub reports: u64,
    pub observations: u64,
    pub ticks: u64,
    pub last_report: Option<DbwReport>,
    pub ending: Ending,
}

fn commands(speed: f64, steering: (f64, u8), gear: Option<u8>) -> serde_json::Value {
    let mut v = serde_json::json!({
        "ulc_cmd": {"cmd": speed.abs(), "cmd_type": 1, "enable": true},
        "steering_cmd": {"cmd": steering.0, "cmd_type": steering.1, "enable": true},
    });
    if let Some(g) = gear {
        v["gear_cmd"] = serde_json::json!({"cmd": g});
    }
    v
}

/// Drives through `conn` until the steps end, the path is done, the duration is reached,
/// the drive makes no progress or it is interrupted; then stops (3 s, or until the
/// vehicle stands after an interrupt) and disables the DBW. With `control` the server is
/// stepped in lockstep. The summary says why it ended.
pub fn drive(
    conn: &mut BridgeConn,
    mut control: Option<&mut Control>,
    mut driver: Driver,
    opts: &DriveOptions,
    sink: &mut dyn DriveSink,
) -> io::Result<DriveSummary> {
    if opts.delay_s > 0.0 {
        std::thread::sleep(Duration::from_secs_f64(opts.delay_s));
    }
    conn.send(&serde_json::json!({"dbw": {"enable": true}}))?;
    if let Some(h) = &opts.hud {
        conn.send(&serde_json::json!({"hud": h}))?;
    }
    let start = Instant::now();
    let mut d = DriveState::new(opts.wheelbase_m);
    let path = matches!(driver, Driver::Path(_));
    let mut k = 0u64;
    loop {
        let t = k as f64 / 50.0;
        if control.is_none() {
            d.catch_up(Instant::now());
        }
        d.check_end(t, path, opts);
        let (cmd, row) = d.command(&mut driver, k, t, opts)?;
        if let Some(n) = d.stop_ticks {
            if d.stop_done(n, opts) {
                break;
            }
            d.stop_ticks = Some(n + 1);
        }
        let gear = if d.stop_ticks.is_some() { None } else { d.gear };
        conn.send(&commands(cmd.speed_mps, cmd.steering, gear))?;
        sink.tick(&Tick {
            step: k,
            t,
            state: d.state(),
            scan: d.obs.as_ref().and_then(|o| o.scan.clone()),
            speed_mps: cmd.speed_mps,
            curvature_per_m: cmd.curvature_per_m,
            row,
            final_stop: d.stop_ticks.is_some(),
        })?;
        d.sum.ticks += 1;
        // Read until the next tick: the barrier of this tick's steps, or its wall time.
        match control.as_deref_mut() {
            Some(c) => {
                let barrier = c.step(tick_steps(k))?;
                loop {
                    let Some(l) = conn.read_line(Some(Duration::from_secs(10)))? else {
                        return Err(io::Error::other(
                            "no barrier from the bridge in 10 s (does another client hold it?)",
                        ));
                    };
                    if d.on_line(l, sink, &cmd)? == Some(barrier) {
                        break;
                    }
                }
            }
            None => {
                let next = start + Duration::from_secs_f64((k + 1) as f64 / 50.0);
                loop {
                    let left = next.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    if let Some(l) = conn.read_line(Some(left))? {
                        d.on_line(l, sink, &cmd)?;
                    }
                }
            }
        }
        k += 1;
    }
    conn.send(&serde_json::json!({"dbw": {"disable": true}}))?;
    read_disable(conn, control, &mut d.sum, sink)?;
    Ok(d.sum)
}

/// The command of one tick: the ULC speed, the curvature, and the steering command
/// (value, type: 2 the steering wheel angle in deg, 3 the curvature).
struct TickCommand {
    speed_mps: f64,
    curvature_per_m: f64,
    steering: (f64, u8),
}

impl TickCommand {
    const STOP: TickCommand = TickCommand {
        speed_mps: 0.0,
        curvature_per_m: 0.0,
        steering: (0.0, 3),
    };
}

/// The vehicle's state between observations: the last observed pose carried forward by
/// the 50 Hz reports (kinematic bicycle: speed `vel_meas`, curvature
/// tan(`road_wheel_rad`) / wheelbase, each held until the next report). Observations come
/// at 10 Hz; a chain fed the pose of up to 0.1 s ago steers late and weaves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeadReckoning {
    /// The simulated time of the state, s.
    pub t: f64,
    pub state: VehicleState,
    /// The road wheel angle in force, rad.
    pub wheel_rad: f64,
    wheelbase_m: f64,
}

impl DeadReckoning {
    /// The state of an observation.
    pub fn new(o: &ObservationIn, gear: Gear, wheelbase_m: f64) -> DeadReckoning {
        DeadReckoning {
            t: o.t,
            state: o.state(gear),
            wheel_rad: o.steer_rad,
            wheelbase_m,
        }
    }

    /// Carries the state forward to `t` with the speed and wheel angle in force (a time
    /// at or before the state's changes nothing).
    pub fn advance(&mut self, t: f64) {
        let dt = t - self.t;
        if !(dt > 0.0 && dt.is_finite()) {
            return;
        }
        let s = &mut self.state;
        let yaw_rate = s.speed_mps * self.wheel_rad.tan() / self.wheelbase_m;
        let mid = s.pose.yaw_rad + 0.5 * yaw_rate * dt;
        s.pose.x_m += s.speed_mps * dt * mid.cos();
        s.pose.y_m += s.speed_mps * dt * mid.sin();
        s.pose.yaw_rad = wrap_pi(s.pose.yaw_rad + yaw_rate * dt);
        s.yaw_rate_rps = yaw_rate;
        self.t = t;
    }

    /// A report: the state carried to its time, then its speed, wheel angle and gear.
    pub fn report(&mut self, r: &DbwReport) {
        self.advance(r.t);
        self.state.speed_mps = r.ulc_report.vel_meas;
        self.wheel_rad = r.road_wheel_rad;
        self.state.gear = Gear::from_number(r.gear_report.gear).unwrap_or(self.state.gear);
        self.state.yaw_rate_rps = self.state.speed_mps * self.wheel_rad.tan() / self.wheelbase_m;
    }
}

/// An angle wrapped to [−π, π).
fn wrap_pi(a: f64) -> f64 {
    use std::f64::consts::PI;
    (a + PI).rem_euclid(2.0 * PI) - PI
}

/// What a drive knows between ticks: the last observation and gear, the state carried
/// forward from it, the held values of a steps file, the final stop's tick count, the
/// counts so far.
struct DriveState {
    wheelbase_m: f64,
    reckoned: Option<DeadReckoning>,
    /// The wall time the last report arrived, and its simulated time (real time).
    last_report: Option<(Instant, f64)>,
    /// Since when (simulated s) a path drive has stood.
    still_since: Option<f64>,
    obs: Option<ObservationIn>,
    gear_now: Gear,
    speed: f64,
    steer_deg: f64,
    gear: Option<u8>,
    stop_ticks: Option<u64>,
    sum: DriveSummary,
}

impl DriveState {
    fn new(wheelbase_m: f64) -> DriveState {
        DriveState {
            wheelbase_m,
            reckoned: None,
            last_report: None,
            still_since: None,
            obs: None,
            gear_now: Gear::Park,
            speed: 0.0,
            steer_deg: 0.0,
            gear: None,
            stop_ticks: None,
            sum: DriveSummary::default(),
        }
    }

    /// In real time: the state carried from the last report to now, by the wall time
    /// since it arrived (at most 0.1 s: a bridge that stalls is not extrapolated).
    fn catch_up(&mut self, now: Instant) {
        if let (Some(d), Some((wall, t))) = (&mut self.reckoned, self.last_report) {
            let since = now.saturating_duration_since(wall).as_secs_f64().min(0.1);
            d.advance(t + since);
        }
    }

    /// Starts the final stop where the drive must end before its steps or route do: an
    /// interrupt, the duration, or (a path) no progress for [`NO_PROGRESS_S`].
    fn check_end(&mut self, t: f64, path: bool, opts: &DriveOptions) {
        if self.stop_ticks.is_some() {
            return;
        }
        let ending = if opts.interrupts() > 0 {
            Some(Ending::Interrupted)
        } else if opts.duration_s.is_some_and(|d| t >= d) {
            Some(Ending::Duration)
        } else if path {
            self.progress(t)
        } else {
            None
        };
        if let Some(e) = ending {
            self.sum.ending = e;
            self.stop_ticks = Some(0);
        }
    }

    /// A path drive that has stood since `still_since` for [`NO_PROGRESS_S`].
    fn progress(&mut self, t: f64) -> Option<Ending> {
        let st = self.state();
        if st.is_some_and(|s| s.speed_mps.abs() >= 0.05) {
            self.still_since = None;
            return None;
        }
        let since = *self.still_since.get_or_insert(t);
        (t - since >= NO_PROGRESS_S).then(|| {
            Ending::NoProgress(match st {
                Some(s) => format!(
                    "no progress: the vehicle stood for {NO_PROGRESS_S} s at x {:.2} m, y {:.2} m (the library's frame) before the route's end",
                    s.pose.x_m, s.pose.y_m
                ),
                None => format!(
                    "no progress: no observation in {NO_PROGRESS_S} s (--path needs the bridge's observations; the Core server sends none)"
                ),
            })
        })
    }

    /// Whether the final stop is over after `n` ticks: 3 s, or after an interrupt once the
    /// vehicle stands (at least 0.2 s) or at a second interrupt.
    fn stop_done(&self, n: u64, opts: &DriveOptions) -> bool {
        if n >= FINAL_STOP_TICKS {
            return true;
        }
        if self.sum.ending == Ending::Interrupted {
            let stands = self.state().is_none_or(|s| s.speed_mps.abs() < 0.05);
            return opts.interrupts() > 1 || (n >= 10 && stands);
        }
        false
    }

    /// The vehicle state now: the last observation carried forward by the reports since.
    fn state(&self) -> Option<VehicleState> {
        self.reckoned.map(|r| r.state)
    }

    /// The command of tick `k` at `t` s, and the chain's row when the chain drives.
    fn command(
        &mut self,
        driver: &mut Driver,
        k: u64,
        t: f64,
        opts: &DriveOptions,
    ) -> io::Result<(TickCommand, Option<CommandRow>)> {
        if self.stop_ticks.is_some() {
            return Ok((TickCommand::STOP, None));
        }
        match driver {
            Driver::Steps(steps) => Ok((self.steps_command(steps, t, opts), None)),
            Driver::Path(chain) => self.chain_command(chain, k, opts),
        }
    }

    /// A steps file: each entry due by `t` updates the held speed, steering and gear; an
    /// `end` starts the final stop.
    fn steps_command(&mut self, steps: &[StepEntry], t: f64, opts: &DriveOptions) -> TickCommand {
        let mut end = false;
        for s in steps.iter().filter(|s| s.t <= t + 1e-9) {
            self.speed = s.speed.unwrap_or(self.speed);
            self.steer_deg = s.steer_deg.unwrap_or(self.steer_deg);
            self.gear = s.gear.as_ref().and_then(|g| g.number()).or(self.gear);
            end |= s.end;
        }
        if end {
            self.stop_ticks = Some(0);
            return TickCommand::STOP;
        }
        let delta = (self.steer_deg / opts.steering_ratio).to_radians();
        TickCommand {
            speed_mps: self.speed,
            curvature_per_m: delta.tan() / opts.wheelbase_m,
            steering: (self.steer_deg, 2),
        }
    }

    /// The chain from the observed pose and scan (no command before the first
    /// observation); the route's end starts the final stop.
    fn chain_command(
        &mut self,
        chain: &mut Chain,
        k: u64,
        opts: &DriveOptions,
    ) -> io::Result<(TickCommand, Option<CommandRow>)> {
        let Some(st) = self.state() else {
            return Ok((TickCommand::STOP, None));
        };
        let ranges: Vec<f64> = match self.obs.as_ref().and_then(|o| o.scan.as_ref()) {
            Some(s) => s.iter().map(|r| r.unwrap_or(f64::INFINITY)).collect(),
            None => vec![f64::INFINITY; opts.beams],
        };
        let scan = Scan::new(ranges).map_err(io::Error::other)?;
        let r = chain
            .step(&ChainInput {
                step: k,
                state: st,
                scan: &scan,
                proposal: None,
            })
            .map_err(io::Error::other)?;
        self.gear = Some(r.gear.number());
        let cmd = TickCommand {
            speed_mps: if r.brake_hold { 0.0 } else { r.speed_mps },
            curvature_per_m: r.curvature_per_m,
            steering: (r.curvature_per_m, 3),
        };
        if r.finished {
            self.stop_ticks = Some(0);
        }
        Ok((cmd, Some(r)))
    }

    /// One line from the bridge: a report goes to the sink with the state and the
    /// command; a barrier returns its step.
    fn on_line(
        &mut self,
        l: Line,
        sink: &mut dyn DriveSink,
        cmd: &TickCommand,
    ) -> io::Result<Option<u64>> {
        match l {
            Line::Report(r) => {
                self.gear_now = Gear::from_number(r.gear_report.gear).unwrap_or(self.gear_now);
                if let Some(d) = &mut self.reckoned {
                    d.report(&r);
                }
                self.last_report = Some((Instant::now(), r.t));
                let st = self.state();
                sink.report(&ReportRow {
                    report: &r,
                    state: st.as_ref(),
                    scan: self.obs.as_ref().and_then(|o| o.scan.as_deref()),
                    cmd: (cmd.speed_mps, cmd.curvature_per_m),
                })?;
                self.sum.reports += 1;
                self.sum.last_report = Some(*r);
            }
            Line::Observation(o) => {
                self.sum.observations += 1;
                let mut d = DeadReckoning::new(&o, self.gear_now, self.wheelbase_m);
                // A report of the same instant came before it: keep its speed.
                if let Some(prev) = self.reckoned.filter(|p| p.t == o.t) {
                    d.state.speed_mps = prev.state.speed_mps;
                    d.wheel_rad = prev.wheel_rad;
                }
                self.reckoned = Some(d);
                self.obs = Some(*o);
            }
            Line::Barrier(b) => {
                // The barrier's step is where the world stands: carry the state there.
                if let Some(d) = &mut self.reckoned {
                    d.advance(b as f64 / crate::plant::dbw::PHYSICS_HZ as f64);
                }
                return Ok(Some(b));
            }
            Line::Other(_) => {}
        }
        Ok(None)
    }
}

/// The reports of the disable: to the barrier of one more step in lockstep, or for 0.1 s.
fn read_disable(
    conn: &mut BridgeConn,
    control: Option<&mut Control>,
    sum: &mut DriveSummary,
    sink: &mut dyn DriveSink,
) -> io::Result<()> {
    let mut report = |r: Box<DbwReport>, sum: &mut DriveSummary| -> io::Result<()> {
        sum.reports += 1;
        sink.report(&ReportRow {
            report: &r,
            state: None,
            scan: None,
            cmd: (0.0, 0.0),
        })?;
        sum.last_report = Some(*r);
        Ok(())
    };
    match control {
        Some(c) => {
            let barrier = c.step(12)?;
            while let Some(l) = conn.read_line(Some(Duration::from_secs(10)))? {
                match l {
                    Line::Barrier(b) if b == barrier => break,
                    Line::Report(r) => report(r, sum)?,
                    _ => {}
                }
            }
        }
        None => {
            let end = Instant::now() + Duration::from_millis(100);
            while let Some(left) =
                Some(end.saturating_duration_since(Instant::now())).filter(|d| !d.is_zero())
            {
                if let Some(Line::Report(r)) = conn.read_line(Some(left))? {
                    report(r, sum)?;
                }
            }
        }
    }
    Ok(())
}

/// The physics steps of control tick `k` (50 Hz over 120 Hz: 3, 2, 3, 2, 2, …), so that
/// the ticks start at the report steps of the DBW.
pub fn tick_steps(k: u64) -> u64 {
    (120 * (k + 1)).div_ceil(50) - (120 * k).div_ceil(50)
}

/// DBW commands as a bridge line: the commands present, no nulls.
pub fn commands_line(cmds: &crate::plant::dbw::DbwCommands) -> serde_json::Value {
    let mut v = serde_json::to_value(cmds).expect("commands serialize");
    if let Some(m) = v.as_object_mut() {
        m.retain(|_, x| !x.is_null());
    }
    v
}

/// The test rigs of [`crate::jobs::measure`] on a vehicle behind a bridge: the start is a
/// `reset` at the spawn pose with the speed, the speed and odometry come from the
/// reports (`ulc_report.vel_meas`, integrated), the state, scan, lateral acceleration and
/// wheel lift from the observations (ours; the game's have no scan, and an acceleration
/// estimated as vx × yaw_rate). With a control channel each tick is a lockstep step.
pub struct BridgeRig {
    conn: BridgeConn,
    control: Option<Control>,
    k: u64,
    distance: f64,
    last: Option<(f64, f64)>,
    obs: Option<ObservationIn>,
    gear: Gear,
}

impl BridgeRig {
    /// A rig on a connection, stepped through `control` where there is one.
    pub fn new(conn: BridgeConn, control: Option<Control>) -> BridgeRig {
        BridgeRig {
            conn,
            control,
            k: 0,
            distance: 0.0,
            last: None,
            obs: None,
            gear: Gear::Park,
        }
    }

    fn absorb(&mut self, l: Line, s: &mut crate::jobs::measure::Sample) {
        match l {
            Line::Report(r) => {
                let v = r.ulc_report.vel_meas;
                if let Some((t0, v0)) = self.last {
                    self.distance += (v0 + v).abs() / 2.0 * (r.t - t0).max(0.0);
                }
                self.last = Some((r.t, v));
                self.gear = Gear::from_number(r.gear_report.gear).unwrap_or(self.gear);
                s.speed_mps = v;
            }
            Line::Observation(o) => {
                let ay = o.ay.unwrap_or(o.vx * o.yaw_rate);
                s.max_abs_ay_mps2 = s.max_abs_ay_mps2.max(ay.abs());
                if o.wheel_lift == Some(true) {
                    s.wheel_lift = true;
                    s.min_inner_load = 0.0;
                }
                self.obs = Some(*o);
            }
            _ => {}
        }
    }

    fn sample(&self, mut s: crate::jobs::measure::Sample) -> crate::jobs::measure::Sample {
        s.distance_m = self.distance;
        if let Some(o) = &self.obs {
            s.state = Some(o.state(self.gear));
            s.scan = o.scan.as_ref().and_then(|r| Scan::from_returns(r).ok());
        }
        s
    }
}

impl crate::jobs::measure::Rig for BridgeRig {
    fn start(&mut self, speed_mps: f64) -> Result<crate::jobs::measure::Sample, String> {
        let e = |e: io::Error| e.to_string();
        self.conn
            .send(&serde_json::json!({"reset": {"speed": speed_mps}, "dbw": {"enable": true}, "gear_cmd": 4}))
            .map_err(e)?;
        self.distance = 0.0;
        self.last = None;
        self.obs = None;
        // A tick for the reset to apply, then until an observation shows it.
        let mut s = self.tick()?;
        for _ in 0..10 {
            if self.obs.is_some() {
                break;
            }
            s = self.tick()?;
        }
        self.distance = 0.0;
        s.distance_m = 0.0;
        Ok(s)
    }

    fn send(&mut self, cmds: &crate::plant::dbw::DbwCommands) -> Result<(), String> {
        self.conn
            .send(&commands_line(cmds))
            .map_err(|e| e.to_string())
    }

    fn tick(&mut self) -> Result<crate::jobs::measure::Sample, String> {
        let mut s = crate::jobs::measure::Sample {
            min_inner_load: 1.0,
            speed_mps: self.last.map_or(0.0, |l| l.1),
            ..Default::default()
        };
        let e = |e: io::Error| e.to_string();
        let mut end_t = None;
        match &mut self.control {
            Some(c) => {
                let barrier = c.step(tick_steps(self.k)).map_err(e)?;
                loop {
                    match self
                        .conn
                        .read_line(Some(Duration::from_secs(10)))
                        .map_err(e)?
                    {
                        Some(Line::Barrier(b)) if b == barrier => break,
                        Some(l) => self.absorb(l, &mut s),
                        None => return Err("no barrier from the bridge".into()),
                    }
                }
                end_t = Some(barrier as f64 / crate::plant::dbw::PHYSICS_HZ as f64);
            }
            None => {
                let end = Instant::now() + Duration::from_millis(20);
                loop {
                    let left = end.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    if let Some(l) = self.conn.read_line(Some(left)).map_err(e)? {
                        self.absorb(l, &mut s);
                    }
                }
            }
        }
        self.k += 1;
        let mut s = self.sample(s);
        // The odometry to the end of the tick: the last report is of its first step.
        if let (Some(t), Some((t0, v))) = (end_t, self.last) {
            s.distance_m += v.abs() * (t - t0).max(0.0);
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_sorted_by_their_parsed_type_whatever_the_spacing() {
        let cfg = Config::builtin();
        let d = crate::plant::dbw::Dbw::new(&cfg.control.dbw, 2.0);
        let rep = d.report(12, "polaris", 1.5, 0.1);
        // Python's json.dumps puts a space after each colon and comma.
        let spaced = serde_json::to_string_pretty(&rep)
            .unwrap()
            .replace('\n', " ");
        assert!(spaced.contains("\"type\": \"dbw_report\""));
        match classify(&spaced) {
            Line::Report(r) => assert_eq!(*r, rep),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            classify(r#"{"type": "barrier", "step": 85}"#),
            Line::Barrier(85)
        );
        assert!(matches!(
            classify(r#"{"t": 1.0, "x": 2.0, "y": 3.0, "yaw_deg": 90}"#),
            Line::Observation(_)
        ));
        // A text that only contains the marker is not a report.
        assert!(matches!(
            classify(r#"{"hud": "\"type\":\"dbw_report\""}"#),
            Line::Other(_)
        ));
        assert_eq!(classify("not json"), Line::Other(serde_json::Value::Null));
        assert!(matches!(
            classify(r#"{"type": "barrier", "step": "x"}"#),
            Line::Other(_)
        ));
    }

    #[test]
    fn dead_reckoning_follows_the_arc_of_speed_and_wheel_angle() {
        let o = ObservationIn {
            t: 1.0,
            x: 0.0,
            y: 0.0,
            yaw_deg: 0.0,
            vx: 2.0,
            steer_rad: 0.1,
            grade: -0.08,
            ..ObservationIn::default()
        };
        let l = 2.0;
        let mut d = DeadReckoning::new(&o, Gear::High, l);
        // 50 reports at 50 Hz of a constant speed and wheel angle: one second of arc.
        for k in 1..=50 {
            d.advance(1.0 + k as f64 / 50.0);
        }
        let k = 0.1f64.tan() / l;
        let yaw = 2.0 * k;
        let (x, y) = (yaw.sin() / k, (1.0 - yaw.cos()) / k);
        let s = d.state;
        assert!((s.pose.yaw_rad - yaw).abs() < 1e-9, "{s:?}");
        assert!(
            (s.pose.x_m - x).abs() < 1e-6 && (s.pose.y_m - y).abs() < 1e-6,
            "{s:?}"
        );
        assert!((s.yaw_rate_rps - 2.0 * k).abs() < 1e-12);
        // The bridge frame: a left wheel angle turns the library's yaw counter-clockwise.
        assert!(s.pose.y_m > 0.0);
        // The observed grade reaches the chain's state (the grade-aware stop rule).
        assert_eq!(s.grade, -0.08);
        // Time going back changes nothing.
        d.advance(0.5);
        assert_eq!(d.state, s);
    }
}
