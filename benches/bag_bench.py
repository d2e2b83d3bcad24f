#!/usr/bin/env python3
"""Bag replay throughput, every form: python3 benches/bag_bench.py [--seconds 600] [--repeats 3]

Writes SECONDS of the test drive (tests/data/bags/make.py: odometry, commands at 50 Hz,
720-ray scans and the gear at 10 Hz) in each form a user may hold, into target/bench-bags/,
installing what it needs with pip where it is missing:
  mcap            rosbag2, MCAP storage as rosbags writes it (chunks uncompressed)
  mcap_zstd       the same messages rewritten by the mcap package with zstd chunks
  zstd_message    rosbag2 with each message zstd-compressed (compression_mode: message)
  zstd_file       rosbag2 with the storage file zstd-compressed whole (mode: file)
  ros1            a ROS 1 bag (rosbags' rosbag1 writer), chunks uncompressed
  ros1_lz4, ros1_bz2   the same with lz4 and bz2 chunks
then runs examples/bag_bench.rs on each, pinned to one core: messages per CPU-second read
and decoded (the median of REPEATS; by default with the first pass over the header stamps
that decides which topics take the log time, and under --time log without it), and, for
the first form, control steps per CPU-second
replayed. Issue 64's bar: ros1, ros1_lz4 and mcap_zstd at 0.8 M messages per CPU-second or
better; ros1_bz2 and zstd_file are reported, not bound (bz2 itself is the limit).
"""
import argparse, json, subprocess, sys
from pathlib import Path


def need(*packages):
    for module, package in packages:
        try:
            __import__(module)
        except ImportError:
            subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", package])


def rezip(src_dir, out):
    """The rosbag2 MCAP at `src_dir` rewritten with zstd chunks by the mcap package."""
    from mcap.reader import make_reader
    from mcap.writer import CompressionType, Writer
    src = next(src_dir.glob("*.mcap"))
    with open(src, "rb") as f, open(out, "wb") as g:
        r, w = make_reader(f), Writer(g, compression=CompressionType.ZSTD)
        w.start(profile="ros2", library="bag_bench")
        schemas, channels = {}, {}
        for schema, channel, m in r.iter_messages(log_time_order=False):
            if schema.id not in schemas:
                schemas[schema.id] = w.register_schema(schema.name, schema.encoding, schema.data)
            if channel.id not in channels:
                channels[channel.id] = w.register_channel(
                    channel.topic, channel.message_encoding, schemas[schema.id], channel.metadata)
            w.add_message(channels[channel.id], m.log_time, m.data, m.publish_time, m.sequence)
        w.finish()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=600.0)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    need(("rosbags", "rosbags"), ("lz4", "lz4"), ("mcap", "mcap"), ("zstandard", "zstandard"))
    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "tests" / "data" / "bags"))
    import make
    from rosbags.rosbag2 import CompressionMode
    base = root / "target" / "bench-bags" / f"s{int(a.seconds)}"
    base.mkdir(parents=True, exist_ok=True)
    forms = {
        "mcap": (base / "mcap", lambda p: make.main(p, a.seconds)),
        "mcap_zstd": (base / "mcap_zstd.mcap", lambda p: rezip(base / "mcap", p)),
        "zstd_message": (base / "zstd_message",
                         lambda p: make.main(p, a.seconds, compression=CompressionMode.MESSAGE)),
        "zstd_file": (base / "zstd_file",
                      lambda p: make.main(p, a.seconds, compression=CompressionMode.FILE)),
        "ros1": (base / "ros1.bag", lambda p: make.ros1(p, a.seconds)),
        "ros1_lz4": (base / "ros1_lz4.bag", lambda p: make.ros1(p, a.seconds, "lz4")),
        "ros1_bz2": (base / "ros1_bz2.bag", lambda p: make.ros1(p, a.seconds, "bz2")),
    }
    for name, (path, write) in forms.items():
        if not path.exists():
            print(f"writing {name} ({path}) ...", file=sys.stderr)
            write(path)
    subprocess.check_call(["cargo", "build", "--quiet", "--release", "--example", "bag_bench"],
                          cwd=root)
    exe = str(root / "target/release/examples/bag_bench")
    print(f"{a.seconds:.0f} s of the drive, median of {a.repeats} runs on one core:")
    print(f"{'form':<14}{'messages':>10}{'M msgs/CPU-s':>14}{'--time log':>12}")
    for k, (name, (path, _)) in enumerate(forms.items()):
        mode = [] if k == 0 else ["read"]
        out = subprocess.check_output(["taskset", "-c", "0", exe, str(path), str(a.repeats)]
                                      + mode, cwd=root, text=True)
        r = json.loads(out)
        print(f"{name:<14}{r['messages']:>10}{r['read_messages_per_cpu_s'] / 1e6:>14.3f}"
              f"{r['read_log_time_messages_per_cpu_s'] / 1e6:>12.3f}")
        if k == 0:
            print(f"  (replay {r['replay_steps_per_cpu_s']:.0f} steps/CPU-s, "
                  f"chain alone {r['chain_steps_per_cpu_s']:.0f})")


if __name__ == "__main__":
    main()
