//! rosbag2's sqlite3 storage (`.db3`): the tables `topics` (id, name, type,
//! serialization_format), `messages` (topic_id, timestamp, data: CDR) and, from ROS 2 Iron
//! on, `message_definitions` (topic_type, encoding, encoded_message_definition). Read with
//! rusqlite, the messages streamed in timestamp order into the same alignment as an MCAP
//! bag's ([`super::bag`]); a bag without definitions is decoded by those of `data/msgs/`.

use super::bag::{BagInfo, Feed, Reading, Topics, Vehicle, shipped_defs, topic_defs};
use crate::formats::log::{LogError, Record};
use std::collections::HashMap;

/// Reads a `.db3` file of a bag at `path` (`file` names it in errors) and hands each
/// control step's record to `each`, the steps numbered from `first_step`.
pub fn read_db3(
    path: &std::path::Path,
    file: &str,
    topics: &Topics,
    vehicle: Vehicle,
    first_step: u64,
    each: impl FnMut(&Record) -> Result<(), LogError>,
) -> Result<BagInfo, LogError> {
    let mut feed = Feed::new(file, topics, vehicle, first_step, each);
    let sql = |e: rusqlite::Error| format!("not a rosbag2 sqlite3 file: {e}");
    let db =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| feed.err(sql(e)))?;
    let definitions = definitions(&db);
    let fallback = shipped_defs();
    let mut channels = Vec::new();
    let mut defs_of: HashMap<i64, Option<Reading>> = HashMap::new();
    let mut names: HashMap<i64, String> = HashMap::new();
    {
        let mut q = db
            .prepare("SELECT id, name, type, serialization_format FROM topics")
            .map_err(|e| feed.err(sql(e)))?;
        let rows = q
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .map_err(|e| feed.err(sql(e)))?;
        for row in rows {
            let (id, name, ty, format) = row.map_err(|e| feed.err(sql(e)))?;
            let def = definitions.get(&ty).map(|d| d.as_bytes());
            let entry = topic_defs(&name, &ty, def, topics, &fallback, &mut channels);
            if entry.is_some() && format != "cdr" {
                return Err(feed.err(format!("topic {name}: serialization `{format}`, not cdr")));
            }
            defs_of.insert(id, entry);
            names.insert(id, name);
        }
    }
    let mut q = db
        .prepare("SELECT topic_id, timestamp, data FROM messages ORDER BY timestamp, id")
        .map_err(|e| feed.err(sql(e)))?;
    let mut rows = q.query([]).map_err(|e| feed.err(sql(e)))?;
    let mut k = 0usize;
    while let Some(row) = rows.next().map_err(|e| feed.err(sql(e)))? {
        k += 1;
        let id: i64 = row.get(0).map_err(|e| feed.err(sql(e)))?;
        let Some(Some(reading)) = defs_of.get(&id) else {
            continue;
        };
        let time: i64 = row.get(1).map_err(|e| feed.err(sql(e)))?;
        let data = row.get_ref(2).and_then(|v| v.as_blob().map_err(Into::into));
        let data = data.map_err(|e| feed.err(sql(e)))?;
        let topic = &names[&id];
        let place = || format!("topic {topic} message {} (timestamp {time} ns)", k - 1);
        feed.message(topic, reading, data, time.max(0) as u64, place)?;
    }
    feed.finish(channels)
}

/// The `ros2msg` definitions of the bag's `message_definitions` table by type name, where
/// it has one (ROS 2 Iron and later).
fn definitions(db: &rusqlite::Connection) -> HashMap<String, String> {
    let Ok(mut q) = db.prepare(
        "SELECT topic_type, encoded_message_definition FROM message_definitions WHERE encoding = 'ros2msg'",
    ) else {
        return HashMap::new();
    };
    q.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .map(|rows| rows.filter_map(Result::ok).collect())
        .unwrap_or_default()
}
