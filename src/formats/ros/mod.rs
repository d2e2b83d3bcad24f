//! ROS bags (docs/formats.md "ROS bags"): the message definitions ([`msg`]), their
//! encodings ([`cdr`]: ROS 2's CDR and ROS 1's) and the replay's reading of a bag: ROS 2
//! in MCAP ([`bag`]) or sqlite3 ([`db3`]), ROS 1 ([`bag1`]).

pub mod bag;
pub mod bag1;
pub mod cdr;
pub mod db3;
pub mod msg;
