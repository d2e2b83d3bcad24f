#!/usr/bin/env python3
"""The chain's step costs beside peers installable from the package index, in one run:

    python3 benches/peers.py

Makes a virtual environment in target/peers with numpy, shapely and
commonroad-vehicle-models, runs `examples/chain_costs.rs` (the acres side, CPU time,
medians of 5) pinned to one core, times each peer on the same input in the same way, and
prints one JSON object with each pair and its ratio (peer / acres). The distance
transform's peers have their own scripts (benches/edt_vs_opencv.py, edt_vs_scipy.py);
F1TENTH gym and Nav2 are not on the index and are cited in docs/performance.md.

Peers:
- a vehicle step: CommonRoad's single-track model (`vehicle_dynamics_st`, vehicle 2) and
  one explicit Euler step at 120 Hz, beside acres's physics step of the plant;
- pure pursuit: a numpy pure pursuit on the same 10,000-point path (nearest point over the
  whole path, the first point one look-ahead beyond it, the curvature 2y/d^2), beside the
  default driver;
- the swept corridor: shapely's buffer of the path ahead by the band's half width and the
  stations of the returns inside it (`contains_xy`, `line_locate_point`) for a 360-beam
  ring, beside the shield's step (which measures three such distances, two on arcs).
"""

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / "target" / "peers"
PEERS = ["numpy", "shapely", "commonroad-vehicle-models"]


def ensure_venv():
    py = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if not py.exists():
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
    subprocess.check_call([str(py), "-m", "pip", "install", "--quiet", *PEERS])
    os.execv(str(py), [str(py), __file__, *sys.argv[1:]])


def per_call(n, f, repeats=5):
    out = []
    for _ in range(repeats):
        t = time.process_time()
        for i in range(n):
            f(i)
        out.append((time.process_time() - t) / n * 1e6)
    return statistics.median(out)


def commonroad_step():
    from vehiclemodels.init_st import init_st
    from vehiclemodels.parameters_vehicle2 import parameters_vehicle2
    from vehiclemodels.vehicle_dynamics_st import vehicle_dynamics_st

    p = parameters_vehicle2()
    x = init_st([0.0, 0.0, 0.05, 3.0, 0.0, 0.0, 0.0])
    dt = 1.0 / 120.0

    def step(_):
        nonlocal x
        f = vehicle_dynamics_st(x, [0.01, 0.2], p)
        x = [a + dt * b for a, b in zip(x, f)]

    return per_call(20_000, step)


def winding(n, step):
    import numpy as np

    x = np.arange(n) * step
    return np.column_stack([x, 3.0 * np.sin(x * 2 * np.pi / 40.0)])


def numpy_pursuit():
    import numpy as np

    path = winding(10_000, 0.5)
    poses = [(5.0 + (i * 0.1) % 4970.0, 0.3) for i in range(2000)]

    def step(i):
        x, yaw = poses[i % len(poses)]
        y = 3.0 * np.sin(x * 2 * np.pi / 40.0) + 0.3
        d2 = (path[:, 0] - x) ** 2 + (path[:, 1] - y) ** 2
        k = int(np.argmin(d2))
        ld = 2.5
        ahead = np.nonzero(d2[k:] >= ld * ld)[0]
        j = k + int(ahead[0]) if len(ahead) else len(path) - 1
        dx, dy = path[j, 0] - x, path[j, 1] - y
        yb = -np.sin(yaw) * dx + np.cos(yaw) * dy
        return 2.0 * yb / (dx * dx + dy * dy)

    return per_call(5_000, step)


def shapely_corridor():
    import numpy as np
    import shapely

    path = winding(10_000, 0.5)
    i0 = 2000
    window = shapely.LineString(path[i0 - 2 : i0 + 90])
    band = window.buffer(1.42)
    shapely.prepare(band)
    beams = np.radians(np.arange(360))
    r = 12.0 + 8.0 * np.abs(np.sin(np.arange(360) * 0.1))
    ox, oy, yaw = path[i0, 0], path[i0, 1], 0.44
    px, py = ox + r * np.cos(beams + yaw), oy + r * np.sin(beams + yaw)

    def step(_):
        inside = shapely.contains_xy(band, px, py)
        if not inside.any():
            return 40.0
        pts = shapely.points(px[inside], py[inside])
        return float(shapely.line_locate_point(window, pts).min())

    return per_call(5_000, step)


def main():
    ensure_venv()
    subprocess.check_call(["cargo", "build", "--quiet", "--release", "--example", "chain_costs"], cwd=ROOT)
    ours = json.loads(subprocess.check_output(
        ["taskset", "-c", "0", str(ROOT / "target/release/examples/chain_costs")], cwd=ROOT, text=True))
    rows = {
        "vehicle step (CommonRoad ST + Euler vs acres plant physics)": (commonroad_step(), ours["plant_physics_us"]),
        "pure pursuit, 10,000 points (numpy vs acres driver)": (numpy_pursuit(), ours["driver_us_0_5m"]),
        "swept corridor, 360 returns (shapely one distance vs acres shield, three)": (shapely_corridor(), ours["shield_us_360"]),
    }
    out = {k: {"peer_us": round(p, 3), "acres_us": round(a, 3), "ratio": round(p / a, 1)} for k, (p, a) in rows.items()}
    out["acres"] = ours
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
