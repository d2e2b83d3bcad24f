//! ROS 1 bags (format 2.0, what `rosbag record` writes; docs/formats.md "ROS bags"): a
//! magic line, then records, each a header of `name=value` fields and a data block.
//! Chunks (uncompressed, bz2, or lz4 frames) hold the connection and message records;
//! each connection's header carries its type's full definition, so any message a bag
//! describes is decoded (by [`super::cdr::decode_kept`]) into the same alignment as a
//! ROS 2 bag's ([`super::bag`]). The file is read in order, without its index: a bag
//! never closed (index position 0) or cut inside a record reads up to where it stops.

use super::bag::{BagInfo, Feed, Reading, Topics, Vehicle, topic_defs};
use super::msg::Defs;
use crate::formats::bounds::MAX_UNPACKED_BYTES;
use crate::formats::log::{LogError, Record};
use rustc_hash::FxHashMap as HashMap;
use std::io::Read;

/// The first line of a bag of format 2.0.
pub const MAGIC: &[u8] = b"#ROSBAG V2.0\n";
const OP_MESSAGE: u8 = 0x02;
const OP_BAG_HEADER: u8 = 0x03;
const OP_CHUNK: u8 = 0x05;
const OP_CONNECTION: u8 = 0x07;

/// The fields of a record's header that the reader uses (the others are skipped).
#[derive(Default)]
struct Header<'a> {
    op: Option<u8>,
    conn: Option<u32>,
    /// A message's receive time, ns.
    time: Option<u64>,
    compression: &'a [u8],
    size: Option<u32>,
    topic: &'a [u8],
    ty: &'a [u8],
    definition: &'a [u8],
    index_pos: Option<u64>,
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// The `name=value` fields of a header (a record's, or a connection's in its data), each
/// a u32 length and its bytes.
fn fields(h: &[u8]) -> Result<Header<'_>, String> {
    let mut out = Header::default();
    let mut at = 0;
    while at < h.len() {
        let n = le32(h, at).ok_or("a header field's length is cut short")? as usize;
        let f = h
            .get(at + 4..)
            .and_then(|rest| rest.get(..n))
            .ok_or_else(|| format!("a header field of {n} bytes is longer than its header"))?;
        at += 4 + n;
        let eq = memchr::memchr(b'=', f).ok_or("a header field without `=`")?;
        let (name, v) = (&f[..eq], &f[eq + 1..]);
        match name {
            b"op" => out.op = v.first().copied(),
            b"conn" => out.conn = le32(v, 0),
            b"time" => {
                out.time = le32(v, 0)
                    .zip(le32(v, 4))
                    .map(|(s, ns)| u64::from(s) * 1_000_000_000 + u64::from(ns))
            }
            b"compression" => out.compression = v,
            b"size" => out.size = le32(v, 0),
            b"topic" => out.topic = v,
            b"type" => out.ty = v,
            b"message_definition" => out.definition = v,
            b"index_pos" => {
                out.index_pos = v
                    .get(..8)
                    .map(|s| u64::from_le_bytes(s.try_into().unwrap()))
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The record at `*at` of `b` (its header and data), `*at` moved past it; an error where
/// the bytes end inside it.
fn record<'a>(b: &'a [u8], at: &mut usize) -> Result<(&'a [u8], &'a [u8]), String> {
    let mut block = |what: &str| -> Result<&'a [u8], String> {
        let n = le32(b, *at).ok_or_else(|| format!("the file ends inside a record's {what}"))?;
        let s = b
            .get(*at + 4..)
            .and_then(|rest| rest.get(..n as usize))
            .ok_or_else(|| format!("a record's {what} of {n} bytes runs past the end"))?;
        *at += 4 + n as usize;
        Ok(s)
    };
    let h = block("header")?;
    let d = block("data")?;
    Ok((h, d))
}

/// A chunk's records: its data itself, or unpacked into `out` (at most
/// [`MAX_UNPACKED_BYTES`], and exactly the size its header gives).
fn unpack<'a>(h: &Header, data: &'a [u8], out: &'a mut Vec<u8>) -> Result<&'a [u8], String> {
    let size = h.size.ok_or("a chunk without its size")? as usize;
    let name = String::from_utf8_lossy(h.compression);
    let reader: Box<dyn Read + 'a> = match h.compression {
        b"none" => return Ok(data),
        b"bz2" => Box::new(bzip2::read::BzDecoder::new(data)),
        b"lz4" => Box::new(lz4::Decoder::new(data).map_err(|e| format!("a bad lz4 chunk: {e}"))?),
        _ => {
            return Err(format!(
                "chunk compression `{name}` is not read (none, bz2 and lz4 are)"
            ));
        }
    };
    if size > MAX_UNPACKED_BYTES {
        return Err(format!(
            "a {name} chunk says it unpacks to {size} bytes, more than the {MAX_UNPACKED_BYTES} read"
        ));
    }
    out.clear();
    out.reserve(size);
    reader
        .take(size as u64 + 1)
        .read_to_end(out)
        .map_err(|e| format!("a bad {name} chunk: {e}"))?;
    if out.len() != size {
        return Err(format!(
            "a {name} chunk unpacks to {}{} bytes, not the {size} its header gives",
            out.len(),
            if out.len() > size { " or more" } else { "" }
        ));
    }
    Ok(out)
}

/// The connections met so far and what the replay makes of each.
struct Conns<'t> {
    topics: &'t Topics,
    fallback: Defs,
    /// Connection id → its topic and, for a topic the replay reads, its type and
    /// definitions.
    of: HashMap<u32, (String, Option<Reading>)>,
    channels: Vec<(String, String)>,
    /// Messages met, of every topic.
    k: usize,
}

impl Conns<'_> {
    /// A connection record (again after the chunks, where it is skipped).
    fn connection(&mut self, h: &Header, data: &[u8]) -> Result<(), String> {
        let id = h.conn.ok_or("a connection record without its `conn`")?;
        if self.of.contains_key(&id) {
            return Ok(());
        }
        let c = fields(data).map_err(|e| format!("connection {id}: {e}"))?;
        let topic = String::from_utf8_lossy(if h.topic.is_empty() { c.topic } else { h.topic });
        let ty = String::from_utf8_lossy(c.ty);
        if ty.is_empty() {
            return Err(format!("connection {id} ({topic}) names no type"));
        }
        let defs = topic_defs(
            &topic,
            &ty,
            Some(c.definition),
            self.topics,
            &self.fallback,
            &mut self.channels,
        );
        self.of.insert(id, (topic.into_owned(), defs));
        Ok(())
    }

    /// A message record, handed to the feed if its topic is one the replay reads.
    fn message<F: FnMut(&Record) -> Result<(), LogError>>(
        &mut self,
        feed: &mut Feed<'_, F>,
        h: &Header,
        data: &[u8],
    ) -> Result<(), LogError> {
        let this = self.k;
        self.k += 1;
        let bad = |m: String| feed.err(format!("message {this}: {m}"));
        let id = h
            .conn
            .ok_or_else(|| bad("a message without its `conn`".into()))?;
        let Some((topic, entry)) = self.of.get(&id) else {
            return Err(bad(format!(
                "a message of connection {id} before its connection"
            )));
        };
        let Some(reading) = entry else {
            return Ok(());
        };
        let time = h
            .time
            .ok_or_else(|| bad("a message without its `time`".into()))?;
        let place = || format!("topic {topic} message {this} (receive time {time} ns)");
        feed.message(topic, reading, data, time, place)
    }
}

/// Reads a ROS 1 bag's bytes (`file` names it in errors) and hands each control step's
/// record to `each`, the steps numbered from `first_step`.
pub fn read_bag1(
    file: &str,
    bytes: &[u8],
    topics: &Topics,
    vehicle: Vehicle,
    first_step: u64,
    each: impl FnMut(&Record) -> Result<(), LogError>,
) -> Result<BagInfo, LogError> {
    let mut feed = Feed::new(file, topics, vehicle, first_step, each);
    if !bytes.starts_with(MAGIC) {
        let line = bytes.split(|&b| b == b'\n').next().unwrap_or(&[]);
        let line = String::from_utf8_lossy(&line[..line.len().min(20)]).into_owned();
        return Err(feed.err(format!(
            "`{line}`: only ROS 1 bags of format 2.0 are read (`rosbag fix` converts older ones)"
        )));
    }
    let mut conns = Conns {
        topics,
        fallback: Defs::builtin_ros1(),
        of: HashMap::default(),
        channels: Vec::new(),
        k: 0,
    };
    let mut chunk = Vec::new();
    let mut notes = Vec::new();
    let mut at = MAGIC.len();
    while at < bytes.len() {
        let start = at;
        let bad = |m: &str| format!("at byte {start}: a bad ROS 1 bag: {m}");
        let (h, data) = match record(bytes, &mut at) {
            Ok(r) => r,
            // The file ends inside a record: a recording that never finished, its last
            // chunk half written. What came before it is whole, and is read.
            Err(e) if conns.k > 0 => {
                notes.push(format!(
                    "{file}: {e} after message {} (a recording that never finished?): read \
                     up to there",
                    conns.k
                ));
                break;
            }
            Err(e) => return Err(feed.err(bad(&e))),
        };
        let h = fields(h).map_err(|e| feed.err(bad(&e)))?;
        match h.op {
            Some(OP_BAG_HEADER) if h.index_pos == Some(0) => notes.push(format!(
                "{file}: the bag was never closed (no index; `rosbag reindex` writes one): \
                 read in file order"
            )),
            Some(OP_CHUNK) => {
                let inner = unpack(&h, data, &mut chunk).map_err(|e| feed.err(bad(&e)))?;
                let mut i = 0;
                while i < inner.len() {
                    let (h, data) = record(inner, &mut i).map_err(|e| feed.err(bad(&e)))?;
                    let h = fields(h).map_err(|e| feed.err(bad(&e)))?;
                    take(&mut conns, &mut feed, &h, data)?;
                }
            }
            _ => take(&mut conns, &mut feed, &h, data)?,
        }
    }
    let mut channels = std::mem::take(&mut conns.channels);
    channels.sort();
    channels.dedup();
    let mut info = feed.finish(channels)?;
    info.warnings.extend(notes);
    Ok(info)
}

/// A connection or message record, wherever it lies (in a chunk, or, in a bag written
/// without chunks, at the top level); others are skipped.
fn take<F: FnMut(&Record) -> Result<(), LogError>>(
    conns: &mut Conns,
    feed: &mut Feed<'_, F>,
    h: &Header,
    data: &[u8],
) -> Result<(), LogError> {
    match h.op {
        Some(OP_CONNECTION) => conns.connection(h, data).map_err(|e| feed.err(e)),
        Some(OP_MESSAGE) => conns.message(feed, h, data),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::ros::bag::read_bag;

    fn data(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/bags")
            .join(name)
    }

    fn veh() -> Vehicle {
        Vehicle {
            beams: 72,
            steering_ratio: 16.0,
            wheelbase_m: 2.3,
        }
    }

    fn records(path: &std::path::Path) -> Result<(Vec<Record>, BagInfo), LogError> {
        let mut recs = Vec::new();
        let info = read_bag(path, &Topics::default(), veh(), |r| {
            recs.push(r.clone());
            Ok(())
        })?;
        Ok((recs, info))
    }

    /// The drive written by rosbags' ROS 1 writer (Noetic types, Header with seq; chunks
    /// plain, bz2 and lz4) gives the records of its ROS 2 MCAP twin: the same poses,
    /// scans, commands and gears, decoded by the definitions the connections carry.
    #[test]
    fn ros1_bags_read_as_their_ros2_twin() {
        let (ros2, _) = records(&data("drive")).unwrap();
        assert_eq!(ros2.len(), 301);
        for name in ["drive.bag", "drive_bz2.bag", "drive_lz4.bag"] {
            let (recs, info) = records(&data(&format!("ros1/{name}"))).unwrap();
            assert_eq!(recs, ros2, "{name}");
            assert!(info.warnings.is_empty(), "{:?}", info.warnings);
            let types: Vec<&str> = info.channels.iter().map(|(_, t)| t.as_str()).collect();
            assert!(types.contains(&"nav_msgs/Odometry"), "{types:?}");
            assert_eq!(info.channels.len(), 6, "{:?}", info.channels);
        }
    }

    /// A bag copied 14 s into a 16 s recording, the writer open: its header's index
    /// position is 0 and the chunk being filled is not in the file. What was written reads,
    /// with a warning; the poses are the drive's (x = 3 m/s × t, the 18 m again every 6 s).
    #[test]
    fn a_ros1_bag_never_closed_reads_up_to_where_it_stops() {
        let (recs, info) = records(&data("ros1/unfinished.bag")).unwrap();
        assert!((500..700).contains(&recs.len()), "{}", recs.len());
        assert!(info.warnings.iter().any(|w| w.contains("never closed")));
        for r in &recs[..300] {
            let x = 3.0 * 0.02 * r.step as f64;
            assert!((r.state.pose.x_m - x).abs() < 1e-9, "{} {}", r.step, x);
        }
    }

    /// Bags no recorder would write: each refused naming the file and what is wrong, and
    /// none asks for memory its bytes do not back.
    #[test]
    fn hostile_ros1_bags_are_refused_by_name() {
        let good = std::fs::read(data("ros1/drive.bag")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let run = |bytes: &[u8]| {
            let f = dir.path().join("h.bag");
            std::fs::write(&f, bytes).unwrap();
            records(&f).map(|(r, _)| r.len()).map_err(|e| e.to_string())
        };
        let e = run(b"#ROSBAG V1.2\nold").unwrap_err();
        assert!(e.contains("h.bag") && e.contains("format 2.0"), "{e}");

        // The first lz4 chunk's size field says 2 GiB; another's compression is unknown.
        let lz4 = std::fs::read(data("ros1/drive_lz4.bag")).unwrap();
        let at = memchr::memmem::find(&lz4, b"size=").unwrap() + 5;
        let mut big = lz4.clone();
        big[at..at + 4].copy_from_slice(&(2u32 << 30).to_le_bytes());
        let e = run(&big).unwrap_err();
        assert!(e.contains("2147483648") && e.contains("lz4 chunk"), "{e}");
        let at = memchr::memmem::find(&lz4, b"compression=lz4").unwrap() + 12;
        let mut odd = lz4.clone();
        odd[at..at + 3].copy_from_slice(b"zip");
        let e = run(&odd).unwrap_err();
        assert!(e.contains("`zip` is not read"), "{e}");

        // Cut at every 997th byte: an error or fewer records, never a panic.
        for n in (0..good.len()).step_by(997) {
            let _ = run(&good[..n]);
        }
        // A message whose connection id was never introduced.
        let at = memchr::memmem::find(&good, b"op=\x02").unwrap();
        let conn = memchr::memmem::find(&good[at - 40..at + 40], b"conn=").unwrap() + at - 40;
        let mut orphan = good.clone();
        orphan[conn + 5..conn + 9].copy_from_slice(&777u32.to_le_bytes());
        let e = run(&orphan).unwrap_err();
        assert!(e.contains("connection 777 before its connection"), "{e}");
    }
}
