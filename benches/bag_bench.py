#!/usr/bin/env python3
"""ROS 2 bag replay throughput: python3 benches/bag_bench.py [--seconds 600] [--repeats 3]

Writes a bag of SECONDS of the test drive (tests/data/bags/make.py: odometry, commands at
50 Hz, 720-ray scans and the gear at 10 Hz) with rosbags, installing it with pip where it is
missing, into target/bench-bags/, then runs examples/bag_bench.rs on it pinned to one core:
messages per CPU-second read and decoded, control steps per CPU-second replayed.
"""
import argparse, os, subprocess, sys
from pathlib import Path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=600.0)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    try:
        import rosbags  # noqa: F401
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "rosbags"])
    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "tests" / "data" / "bags"))
    import make
    out = root / "target" / "bench-bags" / f"drive_{int(a.seconds)}s"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        make.main(out, a.seconds)
    subprocess.check_call(["cargo", "build", "--quiet", "--release", "--example", "bag_bench"],
                          cwd=root)
    r = subprocess.check_output(["taskset", "-c", "0", str(root / "target/release/examples/bag_bench"),
                                 str(out), str(a.repeats)], cwd=root, text=True)
    print(f"bag of {a.seconds:.0f} s ({out}):")
    print(r.strip())


if __name__ == "__main__":
    main()
