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
    pub gear: Option<u8>,
    pub scan: Option<Vec<Option<f64>>>,
    /// Our extensions: the lateral acceleration (right positive) and wheel lift.
    pub ay: Option<f64>,
    pub wheel_lift: Option<bool>,
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
}

/// The sinks of a drive: each report (with the last observed state and the command
/// sent), each tick.
pub trait DriveSink {
    fn report(
        &mut self,
        r: &DbwReport,
        state: Option<&VehicleState>,
        cmd: (f64, f64),
    ) -> io::Result<()>;
    fn tick(&mut self, t: &Tick) -> io::Result<()>;
}

/// The outcome of a drive.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DriveSummary {
    pub reports: u64,
    pub observations: u64,
    pub ticks: u64,
    pub last_report: Option<DbwReport>,
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

/// Drives through `conn` until the steps end or the path is done, then stops for 3 s
/// and disables the DBW. With `control` the server is stepped in lockstep.
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
    let mut d = DriveState::new();
    let mut k = 0u64;
    loop {
        let t = k as f64 / 50.0;
        let (cmd, row) = d.command(&mut driver, k, t, opts)?;
        if let Some(n) = d.stop_ticks {
            // The final stop: 3 s of speed 0, then disable.
            if n >= 150 {
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
        })?;
        d.sum.ticks += 1;
        // Read until the next tick: the barrier of this tick's steps, or its wall time.
        match control.as_deref_mut() {
            Some(c) => {
                let barrier = c.step(tick_steps(k))?;
                loop {
                    let Some(l) = conn.read_line(Some(Duration::from_secs(10)))? else {
                        return Err(io::Error::other("no barrier from the bridge"));
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

/// What a drive knows between ticks: the last observation and gear, the held values of a
/// steps file, the final stop's tick count, the counts so far.
struct DriveState {
    obs: Option<ObservationIn>,
    gear_now: Gear,
    speed: f64,
    steer_deg: f64,
    gear: Option<u8>,
    stop_ticks: Option<u64>,
    sum: DriveSummary,
}

impl DriveState {
    fn new() -> DriveState {
        DriveState {
            obs: None,
            gear_now: Gear::Park,
            speed: 0.0,
            steer_deg: 0.0,
            gear: None,
            stop_ticks: None,
            sum: DriveSummary::default(),
        }
    }

    /// The observed vehicle state, with the reported gear.
    fn state(&self) -> Option<VehicleState> {
        self.obs.as_ref().map(|o| o.state(self.gear_now))
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
                let st = self.state();
                sink.report(&r, st.as_ref(), (cmd.speed_mps, cmd.curvature_per_m))?;
                self.sum.reports += 1;
                self.sum.last_report = Some(*r);
            }
            Line::Observation(o) => {
                self.sum.observations += 1;
                self.obs = Some(*o);
            }
            Line::Barrier(b) => return Ok(Some(b)),
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
        sink.report(&r, None, (0.0, 0.0))?;
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
            s.scan = o.scan.as_ref().and_then(|r| {
                Scan::new(r.iter().map(|x| x.unwrap_or(f64::INFINITY)).collect()).ok()
            });
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
