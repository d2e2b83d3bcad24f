//! ROS 2 bags (docs/formats.md "ROS 2 bags"): the message definitions ([`msg`]), their
//! CDR encoding ([`cdr`]) and the replay's reading of an MCAP bag ([`bag`]).

pub mod bag;
pub mod cdr;
pub mod msg;
