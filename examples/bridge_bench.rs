//! Bridge throughput (issue [bridge]): `cargo run --release --example bridge_bench`.
//!
//! A lockstep server on a thread of this process, the client on the main thread over
//! loopback TCP: step requests of 12 physics steps, each with every line of the bridge
//! read to its barrier (5 dbw_reports and an observation with the 360-beam scan). The
//! peer, in the same run: a plain lockstep round trip (one line out, one line back) over
//! loopback against a minimal echo thread. Also the time to serialize one dbw_report.

use acres::config::Config;
use acres::formats::scenario::{DEFAULT_SCENARIO, Scenario};
use acres::jobs::bridge::client::{BridgeConn, Control};
use acres::jobs::bridge::server::{ServeOptions, spawn};
use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

fn bridge(requests: u64, parse: bool) -> f64 {
    let s = Scenario::from_json_str("opening.json", DEFAULT_SCENARIO).unwrap();
    let opts = ServeOptions {
        ports: vec![0],
        control_port: Some(0),
        observations: true,
    };
    let (ports, control, stop, handle) =
        spawn(&Config::builtin(), &s, &opts, Box::new(|_| {})).unwrap();
    let mut conn = BridgeConn::connect("127.0.0.1", ports[0]).unwrap();
    let mut ctl = Control::connect("127.0.0.1", control.unwrap()).unwrap();
    conn.send(&serde_json::json!({"dbw": {"enable": true}, "gear_cmd": 4,
        "ulc_cmd": {"cmd": 2.0, "cmd_type": 1, "enable": true}}))
        .unwrap();
    drop(conn);
    // Let the server see the first client go before the second connects.
    std::thread::sleep(Duration::from_millis(100));
    ctl.step(1).unwrap();
    // The client reads every line of its bridge as text, to the barrier (parsing is the
    // client's business: `parse` also decodes each line as the library client does).
    let raw = std::net::TcpStream::connect(("127.0.0.1", ports[0])).unwrap();
    raw.set_nodelay(true).unwrap();
    let mut rd = BufReader::with_capacity(1 << 16, raw);
    std::thread::sleep(Duration::from_millis(50));
    // Enable again on this connection (the disconnect disabled the DBW).
    let mut w = rd.get_ref().try_clone().unwrap();
    w.write_all(b"{\"dbw\": {\"enable\": true}, \"ulc_cmd\": {\"cmd\": 2.0, \"cmd_type\": 1, \"enable\": true}}\n")
        .unwrap();
    let t = Instant::now();
    let mut lines = 0u64;
    let mut line = String::new();
    for _ in 0..requests {
        let b = ctl.step(12).unwrap();
        let barrier = format!("{{\"type\":\"barrier\",\"step\":{b}}}");
        loop {
            line.clear();
            assert!(rd.read_line(&mut line).unwrap() > 0, "the bridge closed");
            if line.trim_end() == barrier {
                break;
            }
            if parse {
                std::hint::black_box(acres::jobs::bridge::client::classify(line.trim_end()));
            }
            lines += 1;
        }
    }
    let rate = requests as f64 / t.elapsed().as_secs_f64();
    assert!(lines >= requests * 6);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = handle.join();
    rate
}

fn echo_round_trips(n: u64) -> f64 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let (s, _) = l.accept().unwrap();
        s.set_nodelay(true).unwrap();
        let mut w = s.try_clone().unwrap();
        let mut r = BufReader::new(s);
        let mut line = String::new();
        while r.read_line(&mut line).unwrap_or(0) > 0 {
            w.write_all(b"{\"type\":\"barrier\",\"step\":1}\n").unwrap();
            line.clear();
        }
    });
    let s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_nodelay(true).unwrap();
    let mut w = s.try_clone().unwrap();
    let mut r = BufReader::new(s);
    let mut line = String::new();
    let t = Instant::now();
    for _ in 0..n {
        w.write_all(b"{\"op\":\"step\",\"steps\":12}\n").unwrap();
        line.clear();
        r.read_line(&mut line).unwrap();
    }
    n as f64 / t.elapsed().as_secs_f64()
}

fn report_ns() -> f64 {
    let cfg = Config::builtin();
    let d = acres::plant::dbw::Dbw::new(&cfg.control.dbw, 2.06);
    let rep = d.report(1000, "polaris", 1.88, 0.73);
    let mut buf = Vec::with_capacity(1024);
    let n = 200_000;
    let t = Instant::now();
    for _ in 0..n {
        buf.clear();
        serde_json::to_writer(&mut buf, std::hint::black_box(&rep)).unwrap();
    }
    t.elapsed().as_secs_f64() * 1e9 / n as f64
}

fn main() {
    let n = 20_000;
    let bridge_rate = bridge(n, false);
    let parsed_rate = bridge(n / 4, true);
    let echo_rate = echo_round_trips(n);
    let ns = report_ns();
    println!(
        "{{\"bridge_requests_per_s\": {bridge_rate:.0}, \"with_client_parsing_per_s\": {parsed_rate:.0}, \"real_time_factor\": {:.0}, \"plain_round_trips_per_s\": {echo_rate:.0}, \"bridge_over_plain\": {:.2}, \"dbw_report_serialize_ns\": {ns:.0}}}",
        bridge_rate * 0.1,
        bridge_rate / echo_rate
    );
}
