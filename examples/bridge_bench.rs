//! Bridge throughput: `cargo run --release --example bridge_bench`.
//!
//! Prints one JSON line, medians of 3 runs:
//! - `bridge_requests_per_s`: a lockstep server on a thread of this process, the client on
//!   the main thread over loopback TCP: step requests of 12 physics steps, each with every
//!   line of the bridge read to its barrier (5 dbw_reports and an observation with the
//!   360-beam scan); `without_observations_per_s` the same with `--observations off`;
//! - `echo_requests_per_s`, the peer: a server with the same readiness loop and polling
//!   policy (mio, polling without sleeping for `LOCKSTEP_SPIN` after a request) that
//!   answers each request with the reply and one barrier line on a second socket, read
//!   the same way; and the ratios;
//! - `client_parse_ns_per_line`: the client's own parsing of a line, apart;
//! - `four_ports_over_one`: four servers, each with its client, stepping at once on this
//!   machine: their total vehicle-steps per second over one server's alone (no core
//!   burnt while idle: at least 1 on a 2-core machine).

use acres::config::Config;
use acres::formats::scenario::{DEFAULT_SCENARIO, Scenario};
use acres::jobs::bridge::client::Control;
use acres::jobs::bridge::server::{LOCKSTEP_SPIN, ServeOptions, spawn};
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A lockstep client on a bridge and its control channel: requests of 12 steps, each read
/// to its barrier as text.
struct Stepper {
    ctl: Control,
    rd: BufReader<std::net::TcpStream>,
    line: String,
}

impl Stepper {
    fn connect(port: u16, control: u16) -> Stepper {
        let raw = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        raw.set_nodelay(true).unwrap();
        let mut w = raw.try_clone().unwrap();
        w.write_all(b"{\"dbw\": {\"enable\": true}, \"ulc_cmd\": {\"cmd\": 2.0, \"cmd_type\": 1, \"enable\": true}}\n")
            .unwrap();
        Stepper {
            ctl: Control::connect("127.0.0.1", control).unwrap(),
            rd: BufReader::with_capacity(1 << 16, raw),
            line: String::new(),
        }
    }

    /// Requests for `secs` of wall time: requests per second.
    fn rate_for(&mut self, secs: f64) -> f64 {
        let (t, mut n) = (Instant::now(), 0u64);
        while t.elapsed().as_secs_f64() < secs {
            self.request();
            n += 1;
        }
        n as f64 / t.elapsed().as_secs_f64()
    }

    /// One request; the lines read before the barrier.
    fn request(&mut self) -> u64 {
        let b = self.ctl.step(12).unwrap();
        let barrier = format!("{{\"type\":\"barrier\",\"step\":{b}}}");
        let mut lines = 0;
        loop {
            self.line.clear();
            assert!(self.rd.read_line(&mut self.line).unwrap() > 0, "closed");
            if self.line.trim_end() == barrier {
                return lines;
            }
            lines += 1;
        }
    }
}

/// Requests per wall second over `secs`, on a fresh server.
fn bridge(secs: f64, observations: bool) -> f64 {
    let s = Scenario::from_json_str("opening.json", DEFAULT_SCENARIO).unwrap();
    let opts = ServeOptions {
        ports: vec![0],
        control_port: Some(0),
        observations,
    };
    let (ports, control, stop, handle) =
        spawn(&Config::builtin(), &s, &opts, Box::new(|_| {})).unwrap();
    let mut c = Stepper::connect(ports[0], control.unwrap());
    let lines = c.request();
    assert!(lines >= if observations { 6 } else { 5 });
    let rate = c.rate_for(secs);
    stop.store(true, Ordering::Relaxed);
    let _ = handle.join();
    rate
}

/// The peer: a readiness loop with the server's polling policy; a request line on the
/// control socket is answered there and with a barrier on the bridge socket.
fn echo_server(stop: Arc<AtomicBool>) -> (u16, u16, std::thread::JoinHandle<()>) {
    let mut lb = TcpListener::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let mut lc = TcpListener::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let (pb, pc) = (
        lb.local_addr().unwrap().port(),
        lc.local_addr().unwrap().port(),
    );
    let h = std::thread::spawn(move || {
        let mut poll = Poll::new().unwrap();
        poll.registry()
            .register(&mut lb, Token(0), Interest::READABLE)
            .unwrap();
        poll.registry()
            .register(&mut lc, Token(1), Interest::READABLE)
            .unwrap();
        let (mut bridge, mut ctl): (Option<TcpStream>, Option<TcpStream>) = (None, None);
        let mut events = Events::with_capacity(64);
        let mut busy_until = Instant::now();
        let (mut buf, mut step) = ([0u8; 4096], 0u64);
        while !stop.load(Ordering::Relaxed) {
            let timeout = if Instant::now() < busy_until {
                Duration::ZERO
            } else {
                Duration::from_millis(50)
            };
            poll.poll(&mut events, Some(timeout)).unwrap();
            let mut ready = false;
            for ev in events.iter() {
                match ev.token().0 {
                    0 => bridge = lb.accept().ok().map(|(s, _)| s),
                    1 => {
                        if let Ok((mut s, _)) = lc.accept() {
                            poll.registry()
                                .register(&mut s, Token(2), Interest::READABLE)
                                .unwrap();
                            ctl = Some(s);
                        }
                    }
                    _ => ready = true,
                }
            }
            if let (true, Some(c), Some(b)) = (ready, &mut ctl, &mut bridge) {
                while let Ok(n) = c.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    for _ in buf[..n].iter().filter(|x| **x == b'\n') {
                        step += 12;
                        let _ = b.write_all(
                            format!("{{\"type\":\"barrier\",\"step\":{step}}}\n").as_bytes(),
                        );
                        let _ = c.write_all(
                            format!("{{\"ok\":true,\"op\":\"step\",\"barrier\":{step}}}\n")
                                .as_bytes(),
                        );
                    }
                }
                busy_until = Instant::now() + LOCKSTEP_SPIN;
            }
        }
    });
    (pb, pc, h)
}

fn echo(secs: f64) -> f64 {
    let stop = Arc::new(AtomicBool::new(false));
    let (pb, pc, h) = echo_server(stop.clone());
    let raw = std::net::TcpStream::connect(("127.0.0.1", pb)).unwrap();
    raw.set_nodelay(true).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let mut c = Stepper {
        ctl: Control::connect("127.0.0.1", pc).unwrap(),
        rd: BufReader::new(raw),
        line: String::new(),
    };
    c.request();
    let rate = c.rate_for(secs);
    stop.store(true, Ordering::Relaxed);
    let _ = h.join();
    rate
}

/// Four servers, each with its client thread, for `secs`: total requests per second.
fn four_ports(secs: f64) -> f64 {
    let s = Scenario::from_json_str("opening.json", DEFAULT_SCENARIO).unwrap();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let s = s.clone();
            std::thread::spawn(move || {
                let opts = ServeOptions {
                    ports: vec![0],
                    control_port: Some(0),
                    observations: true,
                };
                let (ports, control, stop, handle) =
                    spawn(&Config::builtin(), &s, &opts, Box::new(|_| {})).unwrap();
                let rate = Stepper::connect(ports[0], control.unwrap()).rate_for(secs);
                stop.store(true, Ordering::Relaxed);
                let _ = handle.join();
                rate
            })
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).sum()
}

/// The client's parsing of one line (a report and an observation, alternately), ns.
fn parse_ns() -> f64 {
    let cfg = Config::builtin();
    let d = acres::plant::dbw::Dbw::new(&cfg.control.dbw, 2.06);
    let rep = serde_json::to_string(&d.report(1000, "polaris", 1.88, 0.73)).unwrap();
    let n = 100_000;
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(acres::jobs::bridge::client::classify(std::hint::black_box(
            &rep,
        )));
    }
    t.elapsed().as_secs_f64() * 1e9 / n as f64
}

fn main() {
    let secs = 1.5;
    let runs = |f: &dyn Fn() -> f64| median((0..3).map(|_| f()).collect());
    let bridge_rate = runs(&|| bridge(secs, true));
    let bare_rate = runs(&|| bridge(secs, false));
    let echo_rate = runs(&|| echo(secs));
    let one = bridge_rate;
    let four = runs(&|| four_ports(secs));
    println!(
        "{{\"bridge_requests_per_s\": {bridge_rate:.0}, \"without_observations_per_s\": {bare_rate:.0}, \"echo_requests_per_s\": {echo_rate:.0}, \"bridge_over_echo\": {:.2}, \"without_observations_over_echo\": {:.2}, \"real_time_factor\": {:.0}, \"client_parse_ns_per_line\": {:.0}, \"four_ports_requests_per_s\": {four:.0}, \"four_ports_over_one\": {:.2}}}",
        bridge_rate / echo_rate,
        bare_rate / echo_rate,
        bridge_rate * 0.1,
        parse_ns(),
        four / one
    );
}
