//! ROS 2 bags (docs/formats.md "ROS 2 bags"): the message definitions ([`msg`]), their
//! CDR encoding ([`cdr`]) and the replay's reading of a bag, MCAP ([`bag`]) or sqlite3
//! ([`db3`]).

pub mod bag;
pub mod cdr;
pub mod db3;
pub mod msg;
