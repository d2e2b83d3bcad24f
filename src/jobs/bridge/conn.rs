//! One TCP connection of the bridge server: line reading in bounded bites, and output
//! that waits in a buffer of bounded size (vehicle-bridge.md "Control and Timeouts").

use mio::net::TcpStream;
use std::io::{self, Read, Write};

/// The output a client may leave unread, counted with the kernel's send buffer, and the
/// longest line it may send.
pub const MAX_PENDING_BYTES: usize = 1 << 20;

/// The kernel send buffer asked for each client, so that the 1 MiB of waiting output is
/// about 1 MiB (Linux doubles the figure for its bookkeeping; the size granted is read
/// back and counted).
pub const SEND_BUFFER_BYTES: usize = 64 << 10;

/// The most read from one socket in one pass of the loop.
pub const READ_BITE_BYTES: usize = 64 << 10;

/// A connection: the socket, the partial input line, the output not yet written.
pub struct Conn {
    pub stream: TcpStream,
    inbuf: Vec<u8>,
    pub out: Vec<u8>,
    sent: usize,
    /// Whether the socket may hold more input: readiness is edge-triggered, so a socket
    /// left with unread bytes gets no new event and must be read again by the loop.
    pub readable: bool,
    /// The kernel send buffer granted, bytes.
    kernel_out: usize,
}

impl Conn {
    /// A connection, with the kernel's send buffer made small (see
    /// [`SEND_BUFFER_BYTES`]) and Nagle's algorithm off.
    pub fn new(stream: TcpStream) -> Conn {
        let _ = stream.set_nodelay(true);
        let sock = socket2::SockRef::from(&stream);
        let _ = sock.set_send_buffer_size(SEND_BUFFER_BYTES);
        let kernel_out = sock.send_buffer_size().unwrap_or(SEND_BUFFER_BYTES);
        Conn {
            stream,
            inbuf: Vec::new(),
            out: Vec::new(),
            sent: 0,
            readable: true,
            kernel_out,
        }
    }

    /// The output in this buffer not yet handed to the kernel.
    pub fn pending(&self) -> usize {
        self.out.len() - self.sent
    }

    /// Whether more than 1 MiB waits for the client: what this buffer holds and, once
    /// that is not empty (the kernel's buffer is full), the kernel's send buffer.
    pub fn over_limit(&self) -> bool {
        self.pending() > 0 && self.pending() + self.kernel_out > MAX_PENDING_BYTES
    }

    /// Writes what it can without blocking.
    pub fn flush(&mut self) -> io::Result<()> {
        while self.sent < self.out.len() {
            match self.stream.write(&self.out[self.sent..]) {
                Ok(0) => return Err(io::Error::new(io::ErrorKind::WriteZero, "closed")),
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if self.sent == self.out.len() {
            self.out.clear();
            self.sent = 0;
        } else if self.sent > (1 << 16) {
            self.out.drain(..self.sent);
            self.sent = 0;
        }
        Ok(())
    }

    /// Reads at most `max_bytes` of what has arrived and appends the complete lines;
    /// returns the bytes read, or why the client goes (closed, a line of 1 MiB without a
    /// newline, an error). Leaves `readable` set where it stopped at the limit.
    pub fn read_lines(
        &mut self,
        lines: &mut Vec<String>,
        max_bytes: usize,
    ) -> Result<usize, String> {
        let mut buf = [0u8; READ_BITE_BYTES];
        let mut total = 0;
        while total < max_bytes {
            let want = (max_bytes - total).min(buf.len());
            match self.stream.read(&mut buf[..want]) {
                Ok(0) => return Err("peer closed".into()),
                Ok(n) => {
                    total += n;
                    self.take_lines(&buf[..n], lines)?;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.readable = false;
                    return Ok(total);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        Ok(total)
    }

    fn take_lines(&mut self, bytes: &[u8], lines: &mut Vec<String>) -> Result<(), String> {
        self.inbuf.extend_from_slice(bytes);
        let mut start = 0;
        while let Some(i) = memchr::memchr(b'\n', &self.inbuf[start..]) {
            let line = &self.inbuf[start..start + i];
            lines.push(String::from_utf8_lossy(line).trim().to_string());
            start += i + 1;
        }
        self.inbuf.drain(..start);
        if self.inbuf.len() >= MAX_PENDING_BYTES {
            return Err("line of 1 MiB without a newline".into());
        }
        Ok(())
    }
}
