//! `acres bridge serve` in real time against clients that misbehave: after each, a fresh
//! client is served at 50 Hz; a flood neither stalls the physics nor grows the server.

use super::bridge::{Server, serve_with};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

/// The real-time tests measure rates against the wall clock: they take turns, so that two
/// of them do not share the machine's cores with each other's floods.
pub static REAL_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn real_time() -> std::sync::MutexGuard<'static, ()> {
    REAL_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

fn connect(s: &Server) -> TcpStream {
    let c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    c
}

/// The `t` of each dbw_report a client reads in `wall` of wall time, with the wall time
/// it arrived.
fn reports_for(c: TcpStream, wall: Duration) -> Vec<(f64, Duration)> {
    let start = Instant::now();
    let mut rd = BufReader::new(c);
    let mut out = Vec::new();
    let mut line = String::new();
    while start.elapsed() < wall {
        line.clear();
        if rd.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        if v["type"] == "dbw_report" {
            out.push((v["t"].as_f64().unwrap(), start.elapsed()));
        }
    }
    out
}

/// A fresh client gets dbw_reports 0.02 s of simulated time apart at about 50 a second.
fn served_at_50_hz(s: &Server, after: &str) {
    let before = s.count("ACRES_RL_CONNECTED");
    let c = connect(s);
    let reps = reports_for(c, Duration::from_secs(1));
    assert!(s.count("ACRES_RL_CONNECTED") > before, "after {after}");
    assert!(
        (35..=65).contains(&reps.len()),
        "after {after}: {} reports in 1 s",
        reps.len()
    );
    for w in reps.windows(2) {
        assert!(
            (w[1].0 - w[0].0 - 0.02).abs() < 0.011,
            "after {after}: reports at {} and {}",
            w[0].0,
            w[1].0
        );
    }
}

/// Sends `bytes`, then closes.
fn send_and_close(s: &Server, bytes: &[u8]) {
    let mut c = connect(s);
    let _ = c.write_all(bytes);
    std::thread::sleep(Duration::from_millis(100));
}

#[test]
fn after_each_hostile_client_a_fresh_one_is_served_at_50_hz() {
    let _turn = real_time();
    let s = serve_with(&[]);
    let deep_list = format!("{}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let deep_obj = format!("{}1{}\n", "{\"a\":".repeat(50_000), "}".repeat(50_000));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("bad JSON", b"{broken\n[1,2]\n\"text\"\n\xff\xfe\n".to_vec()),
        ("deep nesting", format!("{deep_list}{deep_obj}").into_bytes()),
        (
            "wrong types",
            br#"{"ulc_cmd": {"cmd": "fast", "cmd_type": 1}, "gear_cmd": 261, "dbw": 1}
{"ulc_cmd": {"cmd": 1e308, "cmd_type": 1, "enable": true}, "gear_cmd": [5]}
{"steering_cmd": {"cmd": 1e400, "cmd_type": 2}}
"#
            .to_vec(),
        ),
        (
            "unknown cmd_type",
            br#"{"dbw": {"enable": true}, "ulc_cmd": {"cmd": 1, "cmd_type": 9, "enable": true}, "steering_cmd": {"cmd": 1, "cmd_type": 1}}
"#
            .to_vec(),
        ),
        ("1 MiB line", vec![b'x'; (1 << 20) + 100]),
    ];
    for (what, bytes) in &cases {
        send_and_close(&s, bytes);
        served_at_50_hz(&s, what);
    }
    assert!(s.has("ACRES_RL_BAD_MESSAGE agent=polaris not JSON"));
    assert!(s.has("gear_cmd: 261 is not a gear"));
    assert!(s.has("ulc_cmd.cmd: 100000000000000000000"));
    assert!(s.has("ACRES_DBW_REJECTED ulc_cmd cmd_type 9"));
    assert!(s.has("line of 1 MiB without a newline"));
    // Half-close: the client ends its sending side; the bridge takes it as gone.
    let c = connect(&s);
    c.shutdown(Shutdown::Write).unwrap();
    let mut rest = Vec::new();
    let _ = (&c).read_to_end(&mut rest);
    served_at_50_hz(&s, "half-close");
    // Overlapping reconnect: the next client connects before the first has gone, waits,
    // and is served after it.
    let first = connect(&s);
    let next = connect(&s);
    std::thread::sleep(Duration::from_millis(100));
    drop(first);
    let reps = reports_for(next, Duration::from_millis(500));
    assert!(
        reps.len() >= 15,
        "the waiting client got {} reports",
        reps.len()
    );
    served_at_50_hz(&s, "overlapping reconnect");
}

#[test]
fn two_hundred_rapid_reconnects_are_all_served() {
    let _turn = real_time();
    let s = serve_with(&[]);
    for k in 0..200 {
        let c = connect(&s);
        let mut rd = BufReader::new(c);
        let mut line = String::new();
        let n = rd.read_line(&mut line).unwrap_or(0);
        assert!(n > 0, "client {k} got nothing");
        assert!(line.starts_with('{'), "client {k}: {line}");
    }
    assert!(s.count("ACRES_RL_CONNECTED") >= 200);
    served_at_50_hz(&s, "200 cycles");
}

fn peak_rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap();
    kb * 1024
}

#[test]
fn a_flood_neither_stalls_the_physics_nor_grows_the_server() {
    let _turn = real_time();
    let s = serve_with(&[]);
    let c = connect(&s);
    let mut w = c.try_clone().unwrap();
    // 2 s of commands at full speed, a fresh enable and gear among them.
    let writer = std::thread::spawn(move || {
        let line = br#"{"dbw": {"enable": true}, "gear_cmd": 4, "ulc_cmd": {"cmd": 1.0, "cmd_type": 1, "enable": true}, "hud": "flood"}
"#;
        let block: Vec<u8> = line
            .iter()
            .copied()
            .cycle()
            .take(line.len() * 2000)
            .collect();
        let start = Instant::now();
        let mut sent = 0usize;
        while start.elapsed() < Duration::from_secs(2) {
            match w.write_all(&block) {
                Ok(()) => sent += block.len(),
                Err(_) => break,
            }
        }
        sent
    });
    let reps = reports_for(c, Duration::from_millis(2200));
    let sent = writer.join().unwrap();
    assert!(sent > 1 << 20, "the flood sent only {sent} bytes");
    assert!(reps.len() >= 60, "{} reports during the flood", reps.len());
    // Simulated time keeps pace with the wall clock: no gap of more than a frame (0.1 s)
    // plus scheduling slack between reports.
    for w in reps.windows(2) {
        let wall = (w[1].1 - w[0].1).as_secs_f64();
        assert!(wall < 0.25, "reports {:.3} s apart during the flood", wall);
    }
    let rss = peak_rss_bytes(s.child.id());
    assert!(rss < 64 << 20, "the server peaked at {} MB", rss >> 20);
    served_at_50_hz(&s, "a flood");
}
