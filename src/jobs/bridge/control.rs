//! The control channel of a lockstep server: JSON lines on their own port, with the
//! reference's `hello` and `step` operations (docs/bridge.md "The control channel").

use super::conn::Conn;
use super::server::{CONTROL_CLIENT, READ_BUDGET_BYTES, Server};
use mio::{Interest, Token};
use serde_json::{Value, json};
use std::time::Instant;

/// The operations of the control channel.
pub const OPS: [&str; 2] = ["hello", "step"];

/// The most control connections open at once; a further one is answered with an error
/// and closed.
pub const MAX_CONTROL_CONNECTIONS: usize = 64;

/// The most physics steps one request may ask for.
pub const MAX_STEPS: u64 = 1_000_000;

/// The reply to a request that is not as documented.
fn refuse(error: String) -> Value {
    json!({"ok": false, "error": error})
}

/// The operation of a request, and its step count for `step`; every key is checked, so a
/// request with its arguments nested (`{"op": "step", "args": {...}}`) is refused, not
/// run with the defaults.
pub fn parse_request(line: &str) -> Result<(String, u64), String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(o) = v else {
        return Err("a request is a JSON object".into());
    };
    let op = match (o.get("op"), o.get("cmd")) {
        (Some(_), Some(_)) => return Err("give `op` or `cmd`, not both".into()),
        (Some(op), None) | (None, Some(op)) => op.as_str().ok_or("`op` is a string")?,
        (None, None) => return Err(format!("no `op` (one of: {})", OPS.join(", "))),
    };
    if !OPS.contains(&op) {
        return Err(format!("unknown op `{op}` (one of: {})", OPS.join(", ")));
    }
    let allowed: &[&str] = if op == "step" {
        &["op", "cmd", "steps"]
    } else {
        &["op", "cmd"]
    };
    if let Some(k) = o.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "{op}: unknown key `{k}` (keys: {})",
            allowed.join(", ")
        ));
    }
    let steps = match o.get("steps") {
        None => 1,
        Some(s) => s
            .as_u64()
            .filter(|k| (1..=MAX_STEPS).contains(k))
            .ok_or(format!("steps: an integer from 1 to {MAX_STEPS}"))?,
    };
    Ok((op.to_string(), steps))
}

impl Server {
    pub(super) fn accept_control(&mut self) {
        let Some((l, conns)) = &mut self.control else {
            return;
        };
        while let Ok((mut stream, _)) = l.accept() {
            let Some(slot) =
                (0..MAX_CONTROL_CONNECTIONS).find(|&k| conns.get(k).is_none_or(Option::is_none))
            else {
                let mut c = Conn::new(stream);
                c.out.extend_from_slice(
                    b"{\"ok\":false,\"error\":\"too many control connections\"}\n",
                );
                let _ = c.flush();
                continue;
            };
            let tok = Token(CONTROL_CLIENT + slot);
            if self
                .poll
                .registry()
                .register(&mut stream, tok, Interest::READABLE)
                .is_ok()
            {
                if slot == conns.len() {
                    conns.push(None);
                }
                conns[slot] = Some(Conn::new(stream));
            }
        }
    }

    /// Whether a control connection was left with input to read (its last read stopped at
    /// the budget, not at an empty socket).
    pub(super) fn control_readable(&self) -> bool {
        self.control
            .as_ref()
            .is_some_and(|(_, conns)| conns.iter().flatten().any(|c| c.readable))
    }

    /// Reads the control channel and answers its requests, in the order they came: every
    /// complete line gets one reply (a blank line, as any line that is no request, an
    /// error).
    pub(super) fn serve_control(&mut self) {
        let mut requests: Vec<(usize, String)> = Vec::new();
        if let Some((_, conns)) = &mut self.control {
            for (k, slot) in conns.iter_mut().enumerate() {
                let Some(c) = slot else { continue };
                let mut lines = Vec::new();
                // Read until the socket is empty or the budget is spent; `readable` stays
                // set where input is left.
                c.readable = true;
                let gone = c.read_lines(&mut lines, READ_BUDGET_BYTES).is_err();
                requests.extend(lines.into_iter().map(|l| (k, l)));
                if gone {
                    if let Some(mut c) = slot.take() {
                        let _ = self.poll.registry().deregister(&mut c.stream);
                    }
                }
            }
        }
        for (k, line) in requests {
            let reply = match parse_request(&line) {
                Ok((op, steps)) => self.control_request(&op, steps),
                Err(e) => refuse(e),
            };
            if let Some(Some(c)) = self
                .control
                .as_mut()
                .and_then(|(_, conns)| conns.get_mut(k))
            {
                c.out.extend_from_slice(reply.to_string().as_bytes());
                c.out.push(b'\n');
                let _ = c.flush();
            }
        }
    }

    fn control_request(&mut self, op: &str, steps: u64) -> Value {
        if op == "hello" {
            let agents: Vec<Value> = self
                .agents
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    json!({"name": a.name, "vehicle": "polaris", "index": i,
                           "implement": "", "sensor_stream": 0,
                           "rl_port": a.port, "can_udp": 0})
                })
                .collect();
            return json!({"ok": true, "op": "hello", "step": self.step, "agents": agents});
        }
        // Everything the clients sent before this request applies at the next step.
        let now = Instant::now();
        // On loopback a line sent before the request is in its socket before the request
        // can be read, but its readiness event may not have been seen yet (it can come in
        // a later poll than the request's): every vehicle socket is read now, until it is
        // empty, whatever its readiness flag says.
        for i in 0..self.agents.len() {
            self.agents[i].budget = READ_BUDGET_BYTES;
            if let Some(c) = &mut self.agents[i].client {
                c.readable = true;
            }
            if self.agents[i].wants_read() {
                self.read_agent(i, now);
            }
        }
        let first = self.step;
        for a in &mut self.agents {
            for (_, msg) in std::mem::take(&mut a.arrived) {
                a.enqueue(first, msg);
            }
        }
        for _ in 0..steps {
            self.physics_step();
        }
        let barrier = format!("{{\"type\":\"barrier\",\"step\":{}}}\n", self.step);
        for a in &mut self.agents {
            if let Some(c) = &mut a.client {
                c.out.extend_from_slice(barrier.as_bytes());
            }
        }
        self.flush_all();
        json!({"ok": true, "op": "step", "barrier": self.step})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_as_documented_and_anything_else_is_refused() {
        assert_eq!(parse_request(r#"{"op": "hello"}"#), Ok(("hello".into(), 1)));
        assert_eq!(parse_request(r#"{"cmd": "step"}"#), Ok(("step".into(), 1)));
        assert_eq!(
            parse_request(r#"{"op": "step", "steps": 1000000}"#),
            Ok(("step".into(), 1_000_000))
        );
        for (line, says) in [
            (
                r#"{"cmd": "step", "args": {"steps": 12}}"#,
                "unknown key `args`",
            ),
            (r#"{"op": "step", "steps": 0}"#, "steps: an integer from 1"),
            (
                r#"{"op": "step", "steps": 1000001}"#,
                "steps: an integer from 1",
            ),
            (
                r#"{"op": "step", "steps": 2.5}"#,
                "steps: an integer from 1",
            ),
            (
                r#"{"op": "step", "steps": "12"}"#,
                "steps: an integer from 1",
            ),
            (
                r#"{"op": "reset"}"#,
                "unknown op `reset` (one of: hello, step)",
            ),
            (r#"{"op": "hello", "steps": 2}"#, "unknown key `steps`"),
            (r#"{"op": "step", "cmd": "step"}"#, "not both"),
            (r#"{"op": 3}"#, "`op` is a string"),
            (r#"{}"#, "no `op`"),
            ("[1]", "a JSON object"),
            ("{broken", "not JSON"),
        ] {
            let e = parse_request(line).unwrap_err();
            assert!(e.contains(says), "{line}: {e}");
        }
    }
}
