//! Bag replay throughput, run by `python3 benches/bag_bench.py`, which writes the bag in
//! each form (ROS 2, ROS 1, compressed) with rosbags and the mcap package; by hand:
//! `cargo run --release --example bag_bench -- BAG [REPEATS] [read]`.
//!
//! Times on one core, as CPU seconds, the median of REPEATS (default 3) runs of: reading
//! the bag alone (every message decoded, the control steps aligned), the whole replay
//! (the same, each step through the chain) and the chain alone. Prints one JSON line:
//! messages and steps, messages per CPU-second read, steps per CPU-second replayed and
//! through the chain alone. With `read`, the reading alone (the replay figures are then 0).

#[path = "common/mod.rs"]
mod common;

use acres::config::Config;
use acres::formats::ros::bag::{Topics, Vehicle, read_bag};
use acres::jobs::replay::Replayer;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(bag) = args.get(1) else {
        eprintln!("usage: bag_bench BAG [REPEATS]");
        std::process::exit(2);
    };
    let repeats: usize = args.get(2).map_or(3, |r| r.parse().unwrap());
    let read_only = args.get(3).is_some_and(|a| a == "read");
    let bag = std::path::Path::new(bag);
    let config = Config::builtin();
    let topics = Topics::default();
    let (mut read, mut replay, mut chain) = (Vec::new(), Vec::new(), Vec::new());
    // The same reading with --time log: no first pass over the header stamps.
    let mut read_log = Vec::new();
    let mut log_topics = Topics::default();
    log_topics.log_time = true;
    let (mut messages, mut steps) = (0, 0u64);
    for _ in 0..repeats {
        let c = common::cpu_s();
        let mut n = 0u64;
        let info = read_bag(bag, &topics, Vehicle::of(&config), |_| {
            n += 1;
            Ok(())
        })
        .unwrap();
        read.push(common::cpu_s() - c);
        let c = common::cpu_s();
        read_bag(bag, &log_topics, Vehicle::of(&config), |_| Ok(())).unwrap();
        read_log.push(common::cpu_s() - c);
        messages = info.messages;
        steps = n;
        if read_only {
            continue;
        }
        let route = acres::chain::path::Path::builtin("straight_lane.json").unwrap();
        let mut r = Replayer::new(&config, route, true, true).unwrap();
        let c = common::cpu_s();
        read_bag(bag, &topics, Vehicle::of(&config), |rec| {
            std::hint::black_box(r.step(rec).unwrap());
            Ok(())
        })
        .unwrap();
        replay.push(common::cpu_s() - c);
        chain.push(chain_only(bag, &config, &topics));
    }
    let read = common::median(read);
    let read_log = common::median(read_log);
    let (replay, chain) = if read_only {
        (f64::INFINITY, f64::INFINITY)
    } else {
        (common::median(replay), common::median(chain))
    };
    println!(
        "{{\"messages\": {messages}, \"steps\": {steps}, \"read_messages_per_cpu_s\": {:.0}, \"read_log_time_messages_per_cpu_s\": {:.0}, \"replay_steps_per_cpu_s\": {:.0}, \"chain_steps_per_cpu_s\": {:.0}}}",
        messages as f64 / read,
        messages as f64 / read_log,
        steps as f64 / replay,
        steps as f64 / chain
    );
}

/// CPU seconds of the chain alone: the steps read beforehand in blocks (to bound the
/// memory), only the replayer's steps timed.
fn chain_only(bag: &std::path::Path, config: &Config, topics: &Topics) -> f64 {
    let route = acres::chain::path::Path::builtin("straight_lane.json").unwrap();
    let mut t = common::ChainTimer::new(Replayer::new(config, route, true, true).unwrap());
    read_bag(bag, topics, Vehicle::of(config), |rec| {
        t.push(rec);
        Ok(())
    })
    .unwrap();
    t.finish()
}
