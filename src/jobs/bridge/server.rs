//! `acres bridge serve`: a headless simulated Polaris behind the vehicle-bridge socket
//! (vehicle-bridge.md), like the ACRES Core server: TCP on 127.0.0.1, one JSON object a
//! line, one client a port, one vehicle a port in one world, `dbw_report` lines at 50 Hz
//! and observations at 10 Hz of simulated time.
//!
//! One thread and a readiness loop (mio) serve every socket, so the simulation never
//! waits on a client: output that a client does not read piles up in its buffer, and at
//! 1 MiB the client is disconnected; a line of 1 MiB without a newline disconnects it too;
//! input is read in bounded bites and waiting commands are merged, so a flood neither
//! stalls the physics nor grows the server. A connection to a port that has a client
//! waits in the listen backlog (the log line `ACRES_RL_BUSY port=`) and is taken as soon
//! as the client leaves.
//!
//! Timing (vehicle-bridge.md "Command Timing"): in real time the physics runs at 120 Hz
//! paced to the wall clock, in frames of the steps that are due (at most 12); a command
//! that arrived at the fraction `f` of the wall time between two frames is due at
//! `t0 + f T` and applies at the first physics step at or after it. With lockstep the
//! simulation advances only on `step` requests of the control channel, and each command
//! applies at the next physics step.
//!
//! The control channel (lockstep, JSON lines on its own port): `{"op": "hello"}` answers
//! `{"ok": true, "op": "hello", "step": N, "agents": [...]}` with each agent's name,
//! vehicle, index and `rl_port` as in the reference; `{"op": "step", "steps": K}` runs K
//! physics steps, sends `{"type": "barrier", "step": N}` on every bridge after all the
//! lines of those steps, and answers `{"ok": true, "op": "step", "barrier": N}`. A bad
//! request answers `{"ok": false, "error": "..."}`.

use super::conn::{self, Conn};
use super::{ClientMessage, MAX_WAITING_MESSAGES, Observation, frame, lidar_summary, parse_line};
use crate::config::Config;
use crate::formats::scenario::Scenario;
use crate::plant::dbw::commands::EnableCmd;
use crate::plant::dbw::{DbwCommands, PHYSICS_HZ};
use crate::plant::world::Touch;
use crate::plant::{Plant, StartPose};
use mio::net::TcpListener;
use mio::{Events, Interest, Poll, Token};
use std::collections::{BTreeSet, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long the lockstep loop polls without sleeping after a control request.
pub const LOCKSTEP_SPIN: Duration = Duration::from_micros(250);

/// The most read from one client in one frame (real time; in lockstep, each step request
/// and each 1/120 s of wall time): 128 KiB, some 100 times what a client at 100 Hz sends. A client that sends
/// more waits in its own socket buffers, and the physics never waits for its input.
pub const READ_BUDGET_BYTES: usize = 128 << 10;

/// The gear lever of a vehicle of the bridge at the start: low (5). The reference's
/// 6 s example enables the system and sends a ULC speed with no gear command, and the
/// vehicle drives; its report example shows gear 5.
pub const START_GEAR: u8 = 5;

/// The kinds of complaint logged for one client; further kinds are counted only.
const MAX_LOGGED_KINDS: usize = 64;

/// Where the server writes its log lines (the reference's markers).
pub type LogSink = Box<dyn FnMut(&str) + Send>;

/// What to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// One vehicle per port (0: any free port).
    pub ports: Vec<u16>,
    /// Lockstep with a control channel on this port (0: any free port); None: real time.
    pub control_port: Option<u16>,
    /// Whether observations are sent (the Core server sends none).
    pub observations: bool,
}

impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            ports: vec![5556],
            control_port: None,
            observations: true,
        }
    }
}

/// A command waiting for its physics step.
struct Pending {
    due_step: u64,
    msg: ClientMessage,
}

/// What was wrong with one client's input: each kind logged once, the rest counted.
#[derive(Default)]
struct Complaints {
    logged: BTreeSet<String>,
    unlogged: u64,
}

impl Complaints {
    /// Whether a complaint of this kind (the text before its first `:`) is new.
    fn first(&mut self, complaint: &str) -> bool {
        let kind = complaint.split(':').next().unwrap_or(complaint);
        if self.logged.contains(kind) {
            self.unlogged += 1;
            return false;
        }
        if self.logged.len() >= MAX_LOGGED_KINDS {
            self.unlogged += 1;
            return false;
        }
        self.logged.insert(kind.to_string());
        true
    }
}

pub(super) struct Agent {
    pub(super) name: String,
    pub(super) port: u16,
    listener: TcpListener,
    pub(super) client: Option<Conn>,
    plant: Plant,
    spawn: StartPose,
    /// Lines read since the last frame, with their arrival (at most
    /// [`MAX_WAITING_MESSAGES`]: later ones are merged into the last).
    pub(super) arrived: Vec<(Instant, ClientMessage)>,
    queue: VecDeque<Pending>,
    /// The bytes this client may still send this frame.
    pub(super) budget: usize,
    episode: u64,
    reset_epoch: u64,
    reset_pending: Option<StartPose>,
    episode_start: u64,
    was_enabled: bool,
    rejected: BTreeSet<String>,
    complaints: Complaints,
    lift_since_obs: bool,
    /// Whether the vehicle touched a worker since the last observation.
    struck_since_obs: bool,
}

impl Agent {
    pub(super) fn wants_read(&self) -> bool {
        self.budget > 0 && self.client.as_ref().is_some_and(|c| c.readable)
    }

    /// Queues a message due at `due_step`, merged into the last one due at the same
    /// step (the queue holds at most one message per step).
    pub(super) fn enqueue(&mut self, due_step: u64, msg: ClientMessage) {
        match self.queue.back_mut() {
            Some(p) if p.due_step == due_step => p.msg.merge(msg),
            _ => self.queue.push_back(Pending { due_step, msg }),
        }
    }
}

/// The server: its sockets and the simulated world.
pub struct Server {
    pub(super) poll: Poll,
    pub(super) agents: Vec<Agent>,
    pub(super) control: Option<(TcpListener, Vec<Option<Conn>>)>,
    pub(super) step: u64,
    log: LogSink,
    scratch: Vec<u8>,
    observations: bool,
}

const CONTROL: usize = 1 << 20;
pub(super) const CONTROL_CLIENT: usize = 1 << 21;
const CLIENT: usize = 1 << 22;

fn bind(port: u16) -> io::Result<TcpListener> {
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    TcpListener::bind(addr)
}

impl Server {
    /// Binds the sockets; the vehicles start at rest at the scenario's start pose (the
    /// spawn pose), vehicle i shifted 5 m × i to its left, with the DBW disabled and the
    /// gear lever in low (5), so that enabling and a ULC speed drive off, as in the
    /// reference's example. Agent 0 is `polaris`, agent i `polaris_i`.
    pub fn bind(
        config: &Config,
        scenario: &Scenario,
        opts: &ServeOptions,
        log: LogSink,
    ) -> Result<Server, String> {
        let poll = Poll::new().map_err(|e| e.to_string())?;
        let mut agents = Vec::new();
        let world = scenario.plant(config).map_err(|e| e.to_string())?.world;
        for (i, &port) in opts.ports.iter().enumerate() {
            let mut listener = bind(port).map_err(|e| format!("port {port}: {e}"))?;
            let port = listener.local_addr().map_err(|e| e.to_string())?.port();
            poll.registry()
                .register(&mut listener, Token(i), Interest::READABLE)
                .map_err(|e| e.to_string())?;
            let st = scenario.start;
            let (s, c) = st.yaw_rad.sin_cos();
            let spawn = StartPose {
                x_m: st.x_m - s * 5.0 * i as f64,
                y_m: st.y_m + c * 5.0 * i as f64,
                yaw_rad: st.yaw_rad,
                speed_mps: 0.0,
            };
            let mut plant = Plant::new(config, world.clone(), spawn, false);
            plant.dbw.set_lever(START_GEAR);
            agents.push(Agent {
                name: if i == 0 {
                    "polaris".into()
                } else {
                    format!("polaris_{i}")
                },
                port,
                listener,
                client: None,
                plant,
                spawn,
                arrived: Vec::new(),
                queue: VecDeque::new(),
                budget: READ_BUDGET_BYTES,
                episode: 0,
                reset_epoch: 0,
                reset_pending: None,
                episode_start: 0,
                was_enabled: false,
                rejected: BTreeSet::new(),
                complaints: Complaints::default(),
                lift_since_obs: false,
                struck_since_obs: false,
            });
        }
        let control = match opts.control_port {
            Some(p) => {
                let mut l = bind(p).map_err(|e| format!("control port {p}: {e}"))?;
                poll.registry()
                    .register(&mut l, Token(CONTROL), Interest::READABLE)
                    .map_err(|e| e.to_string())?;
                Some((l, Vec::new()))
            }
            None => None,
        };
        let mut s = Server {
            poll,
            agents,
            control,
            step: 0,
            log,
            scratch: Vec::with_capacity(8192),
            observations: opts.observations,
        };
        for a in &s.agents {
            (s.log)(&format!("ACRES_RL_LISTENING port={}", a.port));
        }
        if let Some(p) = s.control_port() {
            (s.log)(&format!("ACRES_SIM_CONTROL_LISTENING port={p}"));
        }
        Ok(s)
    }

    /// The ports of the vehicles, in agent order.
    pub fn ports(&self) -> Vec<u16> {
        self.agents.iter().map(|a| a.port).collect()
    }

    /// The port of the control channel (lockstep only).
    pub fn control_port(&self) -> Option<u16> {
        self.control
            .as_ref()
            .and_then(|(l, _)| l.local_addr().ok())
            .map(|a| a.port())
    }

    /// Serves until `stop` is set.
    pub fn run(&mut self, stop: &AtomicBool) -> io::Result<()> {
        let lockstep = self.control.is_some();
        let mut events = Events::with_capacity(256);
        let hz = PHYSICS_HZ as f64;
        let mut origin = Instant::now();
        let mut last_frame = origin;
        let mut busy_until = origin;
        while !stop.load(Ordering::Relaxed) {
            // A socket left with input to read (edge-triggered) is read on the next pass
            // without sleeping; otherwise the loop sleeps until an event, the next
            // physics step (real time) or 50 ms (lockstep, to see `stop`).
            let reread = self.agents.iter().any(Agent::wants_read) || self.control_readable();
            let timeout = if reread || (lockstep && Instant::now() < busy_until) {
                Duration::ZERO
            } else if lockstep {
                Duration::from_millis(50)
            } else {
                let next = origin + Duration::from_secs_f64((self.step + 1) as f64 / hz);
                next.saturating_duration_since(Instant::now())
                    .min(Duration::from_millis(50))
            };
            self.poll.poll(&mut events, Some(timeout))?;
            let now = Instant::now();
            let mut control_ready = false;
            for ev in events.iter() {
                match ev.token().0 {
                    i if i < self.agents.len() => self.listener_ready(i),
                    CONTROL => self.accept_control(),
                    t if (CONTROL_CLIENT..CLIENT).contains(&t) => control_ready = true,
                    t if t >= CLIENT => {
                        if let Some(c) = &mut self.agents[t - CLIENT].client {
                            c.readable = true;
                        }
                    }
                    _ => {}
                }
            }
            for i in 0..self.agents.len() {
                if self.agents[i].wants_read() {
                    self.read_agent(i, now);
                }
            }
            if lockstep {
                // Between requests the budget refills at the physics rate of the wall
                // clock, as in real time.
                if now >= last_frame + Duration::from_secs_f64(1.0 / hz) {
                    last_frame = now;
                    for a in &mut self.agents {
                        a.budget = READ_BUDGET_BYTES;
                    }
                }
                // A control connection read to its budget still holds input: no new
                // event will come for it (edge-triggered), so it is read again now.
                if control_ready || self.control_readable() {
                    self.serve_control();
                    busy_until = Instant::now() + LOCKSTEP_SPIN;
                }
            } else {
                let due = ((now - origin).as_secs_f64() * hz).floor() as u64;
                if due > self.step {
                    let n = (due - self.step).min(12);
                    self.frame(n, last_frame, now);
                    last_frame = now;
                    if due - self.step > 12 {
                        // Behind by more than a frame: the simulation slows down instead
                        // of running ahead of its clients.
                        origin = now - Duration::from_secs_f64(self.step as f64 / hz);
                    }
                }
            }
            self.flush_all();
        }
        Ok(())
    }

    /// A connection waits on a vehicle's port: taken at once when the slot is free;
    /// otherwise it stays in the listen backlog until the client leaves.
    fn listener_ready(&mut self, i: usize) {
        let a = &self.agents[i];
        if a.client.is_some() {
            (self.log)(&format!(
                "ACRES_RL_BUSY port={} (a connection waits for the client to leave)",
                a.port
            ));
            return;
        }
        self.accept(i);
    }

    /// Takes exactly one waiting connection, if the slot is free.
    fn accept(&mut self, i: usize) {
        let a = &mut self.agents[i];
        if a.client.is_some() {
            return;
        }
        loop {
            match a.listener.accept() {
                Ok((mut stream, _)) => {
                    let tok = Token(CLIENT + i);
                    if self
                        .poll
                        .registry()
                        .register(&mut stream, tok, Interest::READABLE)
                        .is_err()
                    {
                        continue;
                    }
                    a.client = Some(Conn::new(stream));
                    a.complaints = Complaints::default();
                    a.budget = READ_BUDGET_BYTES;
                    (self.log)(&format!("ACRES_RL_CONNECTED port={}", a.port));
                    return;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return,
            }
        }
    }

    /// The client goes: the bridge brakes and disables the drive-by-wire, and the next
    /// waiting connection is served.
    fn disconnect(&mut self, i: usize, why: &str) {
        let a = &mut self.agents[i];
        let Some(mut c) = a.client.take() else {
            return;
        };
        let _ = self.poll.registry().deregister(&mut c.stream);
        let _ = c.stream.shutdown(std::net::Shutdown::Both);
        drop(c);
        if a.complaints.unlogged > 0 {
            (self.log)(&format!(
                "ACRES_RL_BAD_MESSAGE agent={} {} more complaints of the kinds above, not logged",
                a.name, a.complaints.unlogged
            ));
        }
        (self.log)(&format!("ACRES_RL_DISCONNECTED {why}"));
        let off = DbwCommands {
            dbw: Some(EnableCmd {
                enable: false,
                disable: true,
            }),
            ..DbwCommands::default()
        };
        a.plant.apply(&off);
        a.plant.hold_brake = true;
        a.arrived.clear();
        a.queue.clear();
        self.log_enable_change(i);
        self.accept(i);
    }

    /// Logs a complaint about a client's input, once per kind.
    fn complain(&mut self, i: usize, what: &str) {
        let a = &mut self.agents[i];
        if a.complaints.first(what) {
            (self.log)(&format!("ACRES_RL_BAD_MESSAGE agent={} {what}", a.name));
        }
    }

    /// Reads an agent's socket, within its budget; the lines get the arrival time `now`.
    pub(super) fn read_agent(&mut self, i: usize, now: Instant) {
        let mut lines = Vec::new();
        let a = &mut self.agents[i];
        let res = match &mut a.client {
            Some(c) => c.read_lines(&mut lines, a.budget.min(conn::READ_BITE_BYTES)),
            None => return,
        };
        if let Ok(n) = res {
            a.budget = a.budget.saturating_sub(n);
        }
        for l in lines.iter().filter(|l| !l.is_empty()) {
            match parse_line(l) {
                Ok(m) => self.take_message(i, now, m),
                Err(e) => self.complain(i, &e),
            }
        }
        if let Err(why) = res {
            self.disconnect(i, &why);
        }
    }

    fn take_message(&mut self, i: usize, now: Instant, m: ClientMessage) {
        for b in &m.bad {
            self.complain(i, b);
        }
        for k in &m.unknown {
            self.complain(i, &format!("{k}: unknown key (ignored)"));
        }
        if m.hud.is_some() || m.reward.is_some() || m.success_pct.is_some() {
            (self.log)(&format!(
                "ACRES_RL_HUD agent={} hud={:?} reward={} success_pct={}",
                self.agents[i].name,
                m.hud.as_deref().unwrap_or(""),
                m.reward.map_or("-".into(), |r| r.to_string()),
                m.success_pct.map_or("-".into(), |r| r.to_string()),
            ));
        }
        let a = &mut self.agents[i];
        if a.arrived.len() >= MAX_WAITING_MESSAGES {
            let last = a.arrived.last_mut().expect("a message");
            last.0 = now;
            last.1.merge(m);
        } else {
            a.arrived.push((now, m));
        }
    }

    /// Moves the arrived lines into the queue with their due steps: `first` is the first
    /// step of the frame of `n` steps, `prev` and `now` the wall times of the two reads.
    fn schedule(&mut self, first: u64, n: u64, prev: Instant, now: Instant) {
        let span = (now - prev).as_secs_f64();
        for a in &mut self.agents {
            a.budget = READ_BUDGET_BYTES;
            for (t, msg) in std::mem::take(&mut a.arrived) {
                let f = if span > 0.0 {
                    ((t.saturating_duration_since(prev)).as_secs_f64() / span).clamp(0.0, 1.0)
                } else {
                    1.0
                };
                a.enqueue(first + (f * n as f64).ceil() as u64, msg);
            }
        }
    }

    fn frame(&mut self, n: u64, prev: Instant, now: Instant) {
        self.schedule(self.step, n, prev, now);
        for _ in 0..n {
            self.physics_step();
        }
    }

    fn log_enable_change(&mut self, i: usize) {
        let a = &mut self.agents[i];
        let on = a.plant.dbw.enabled();
        if on != a.was_enabled {
            a.was_enabled = on;
            let what = if on { "ENABLED" } else { "DISABLED" };
            (self.log)(&format!(
                "ACRES_DBW_{what} agent={} t={:.3}",
                a.name,
                a.plant.time_s()
            ));
            if on {
                a.plant.hold_brake = false;
            }
        }
    }

    /// Applies the commands due at step `s` to agent `i`, in the order of arrival.
    fn apply_due(&mut self, i: usize, s: u64) {
        while let Some(p) = self.agents[i].queue.front() {
            if p.due_step > s {
                break;
            }
            let p = self.agents[i].queue.pop_front().expect("a front");
            if let Some(r) = p.msg.reset {
                self.request_reset(i, r);
            }
            let a = &mut self.agents[i];
            if let Some(w) = &p.msg.workers {
                let points: Vec<(f64, f64)> = w
                    .iter()
                    .map(|p| {
                        let (x, y, _) = frame::pose_from_bridge(p[0], p[1], 0.0);
                        (x, y)
                    })
                    .collect();
                let t = a.plant.time_s();
                a.plant.world.set_workers(&points, t);
            }
            if p.msg.has_dbw() {
                for e in a.plant.apply(&p.msg.dbw) {
                    let kind = e.to_string();
                    if a.rejected.len() < MAX_LOGGED_KINDS && a.rejected.insert(kind.clone()) {
                        (self.log)(&format!("ACRES_DBW_REJECTED {kind}"));
                    }
                }
            }
            self.log_enable_change(i);
        }
    }

    /// One physics step of every vehicle: the commands due, a pending reset, the
    /// reports and observation of this instant, then the physics.
    pub(super) fn physics_step(&mut self) {
        let s = self.step;
        for i in 0..self.agents.len() {
            self.apply_due(i, s);
            let a = &mut self.agents[i];
            if let Some(pose) = a.reset_pending.take() {
                a.plant.place(pose);
                a.reset_epoch += 1;
                a.episode_start = s;
            }
            if a.client.is_some() {
                if crate::plant::dbw::Dbw::is_report_step(s) {
                    self.scratch.clear();
                    let r = a.plant.report(&a.name);
                    serde_json::to_writer(&mut self.scratch, &r).expect("a report serializes");
                    self.scratch.push(b'\n');
                    push(a, &self.scratch);
                }
                if self.observations && s % (PHYSICS_HZ as u64 / 10) == 0 {
                    self.scratch.clear();
                    observation(a, &mut self.scratch);
                    push(a, &self.scratch);
                    a.lift_since_obs = false;
                    a.struck_since_obs = false;
                }
            }
            let info = a.plant.physics();
            a.lift_since_obs |= info.wheel_lift;
            if a.plant.world.has_workers() {
                if let Some(Touch::Actor(k)) = a.plant.touch() {
                    a.struck_since_obs |= a.plant.world.is_worker(k);
                }
            }
        }
        self.step += 1;
        for i in 0..self.agents.len() {
            if self.agents[i].client.as_ref().is_some_and(Conn::over_limit) {
                self.disconnect(i, "client does not read (1 MiB of output waits)");
            }
        }
    }

    fn request_reset(&mut self, i: usize, r: super::Reset) {
        let a = &mut self.agents[i];
        let s = &a.plant.vehicle.s;
        let (x, y, yaw) = match (r.x, r.y, r.yaw_deg) {
            (Some(x), Some(y), yaw) => {
                let (_, _, spawn_yaw) = frame::pose_to_bridge(0.0, 0.0, a.spawn.yaw_rad);
                frame::pose_from_bridge(x, y, yaw.unwrap_or(spawn_yaw))
            }
            // Only yaw_deg: the vehicle turns where it stands (as in Core).
            (None, None, Some(yaw)) => {
                let (_, _, yaw) = frame::pose_from_bridge(0.0, 0.0, yaw);
                (s.x_m, s.y_m, yaw)
            }
            _ => (a.spawn.x_m, a.spawn.y_m, a.spawn.yaw_rad),
        };
        a.episode += 1;
        a.reset_pending = Some(StartPose {
            x_m: x,
            y_m: y,
            yaw_rad: yaw,
            speed_mps: r.speed,
        });
        let (bx, by, bd) = frame::pose_to_bridge(x, y, yaw);
        (self.log)(&format!(
            "ACRES_RL_RESET episode={} x={bx:.2} y={by:.2} yaw={bd:.1} speed={:.2} restored_field={}",
            a.episode, r.speed, r.restore_field as u8
        ));
    }

    pub(super) fn flush_all(&mut self) {
        for i in 0..self.agents.len() {
            let res = match &mut self.agents[i].client {
                Some(c) if c.pending() > 0 => c.flush(),
                _ => Ok(()),
            };
            if let Err(e) = res {
                self.disconnect(i, &e.to_string());
            }
        }
        if let Some((_, conns)) = &mut self.control {
            for c in conns.iter_mut().flatten() {
                let _ = c.flush();
            }
        }
    }
}

fn push(a: &mut Agent, bytes: &[u8]) {
    if let Some(c) = &mut a.client {
        c.out.extend_from_slice(bytes);
    }
}

fn observation(a: &Agent, out: &mut Vec<u8>) {
    let p = &a.plant;
    let s = &p.vehicle.s;
    let (x, y, yaw_deg) = frame::pose_to_bridge(s.x_m, s.y_m, s.yaw_rad);
    let scan = p.scan();
    let ground = p.ground();
    // Down to the right, rad: the rise toward the left of the heading.
    let left = p
        .world
        .ground_at(s.x_m, s.y_m, s.yaw_rad + std::f64::consts::FRAC_PI_2)
        .grade;
    let o = Observation {
        t: p.time_s(),
        episode_t: (p.step_index() - a.episode_start) as f64 / PHYSICS_HZ as f64,
        x,
        y,
        z: p.world.elevation_at(s.x_m, s.y_m),
        yaw_deg,
        vx: s.vx_mps,
        vy: frame::flip(s.vy_mps),
        yaw_rate: frame::flip(s.yaw_rate_rps),
        cross_slope: left.atan(),
        steer_rad: p.dbw.road_wheel_rad(),
        lidar: lidar_summary(scan.ranges()),
        episode: a.episode,
        reset_pending: a.reset_pending.is_some(),
        reset_epoch: a.reset_epoch,
        // No driving action (steer, pedal) is ever in effect on a Polaris.
        stale: true,
        struck: a.struck_since_obs,
        workers: p.world.worker_count(),
        agent: &a.name,
        vehicle: "polaris",
        ax: s.ax_mps2,
        ay: frame::flip(s.ay_mps2),
        wheel_lift: a.lift_since_obs,
        rolled_over: s.rolled_over,
        collided: p.collided(),
        ground_class: ground.class,
        gear: p.dbw.gear(),
        dbw_enabled: p.dbw.enabled(),
        grade: ground.grade,
        scan: scan
            .ranges()
            .iter()
            .map(|r| r.is_finite().then_some(*r))
            .collect(),
    };
    serde_json::to_writer(&mut *out, &o).expect("an observation serializes");
    out.push(b'\n');
}

/// A server running on its thread: its ports, the control port, the stop flag, the
/// thread.
pub type Spawned = (
    Vec<u16>,
    Option<u16>,
    Arc<AtomicBool>,
    std::thread::JoinHandle<io::Result<()>>,
);

/// Runs a server on a thread (tests, benchmarks and `acres envelope measure --bridge`).
pub fn spawn(
    config: &Config,
    scenario: &Scenario,
    opts: &ServeOptions,
    log: LogSink,
) -> Result<Spawned, String> {
    let mut server = Server::bind(config, scenario, opts, log)?;
    let ports = server.ports();
    let control = server.control_port();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let handle = std::thread::spawn(move || server.run(&flag));
    Ok((ports, control, stop, handle))
}
