#!/usr/bin/env python3
"""The Python package beside the native figures, in one run:

    target/py/bin/python benches/python_bench.py [--chunks 20000] [--repeats 5]

(the test command's virtual environment has the package; or any environment after
`pip install ./python`). Prints, as medians of REPEATS, CPU time (all threads):
- Checker.check on numpy arrays of 40-sample chunks with 360-beam scans, and the same
  chunks through `acres check --batch` (the native batch form: JSON Lines in, CSV out),
  in chunks per CPU-second, and their ratio;
- PolarisEnv.step on the opening scenario with the scan in the observation, in decisions
  (5 control steps each, the default frame skip) per
  CPU-second, beside the native simulation of the same scenario (`acres.run_scenario`: the
  chain and the simulated Polaris in one call) in control steps per CPU-second.
"""

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python" / "tests"))

import acres  # noqa: E402
from acres.gym import PolarisEnv  # noqa: E402
from test_checker import arrays, random_chunks  # noqa: E402


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def checker(n: int, repeats: int) -> dict:
    chunks = random_chunks(n, 40, np.random.default_rng(1))
    a = arrays(chunks)
    scans = np.array([[math.inf if r is None else r for r in c["scan"]] for c in chunks])
    ch = acres.Checker("straight_lane.json")
    binary = os.environ.get("ACRES_BIN", str(ROOT / "target" / "release" / "acres"))
    py, native = [], []
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "in.jsonl"
        src.write_text("".join(json.dumps(c) + "\n" for c in chunks))
        for _ in range(repeats):
            t = time.process_time()
            ch.check(a["offsets"], a["speeds"], a["start"], scans,
                     start_station=a["start_station"], station_step=0.5)
            py.append(time.process_time() - t)
            t = children_cpu()
            subprocess.run([binary, "-q", "check", "--batch", str(src), "--out", str(Path(d) / "o.csv")],
                           check=False)
            native.append(children_cpu() - t)
    p, q = n / statistics.median(py), n / statistics.median(native)
    return {"chunks": n, "python_chunks_per_cpu_s": round(p), "native_batch_chunks_per_cpu_s": round(q),
            "ratio": round(p / q, 2)}


def env(repeats: int) -> dict:
    e = PolarisEnv()  # decisions at 10 Hz: 5 control steps each
    _, vmin, vmax = e._engine.command_limits
    act = np.array([0.0, -1.0 + 2.0 * (3.0 - vmin) / (vmax - vmin)], dtype=np.float32)
    rates, native, control = [], [], []
    for _ in range(repeats):
        e.reset(seed=0)
        n = 0
        t = time.process_time()
        while n < 4000:
            _, _, term, trunc, _ = e.step(act)
            n += 1
            if term or trunc:
                e.reset()
        rates.append(n / (time.process_time() - t))
        t = time.process_time()
        steps = 0
        while steps < 20000:
            s = acres.run_scenario("opening")
            steps += round(s["time_s"] * 50)
        native.append(steps / (time.process_time() - t))
    p, q = statistics.median(rates), statistics.median(native)
    # The ratio is of control steps: a decision is 5 of them.
    return {"env_decisions_per_cpu_s": round(p), "native_control_steps_per_cpu_s": round(q),
            "ratio": round(5 * p / q, 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    print(json.dumps({"checker": checker(a.chunks, a.repeats), "gym": env(a.repeats)}))


if __name__ == "__main__":
    main()
