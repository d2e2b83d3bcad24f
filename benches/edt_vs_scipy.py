#!/usr/bin/env python3
"""Corridor distance transform against scipy.ndimage.distance_transform_edt, side by side.

Run from the repository root:  python3 benches/edt_vs_scipy.py [--size 4096] [--repeats 5]

It installs numpy and scipy with pip where they are missing, makes one 4096 x 4096 mask
(benches/edt_mask.py: lanes, discs and noise; 1 = corridor, 0 = excluded), times
scipy's exact centre-to-centre EDT on it and acres' exact border transform
(examples/edt_bench.rs) on the same bytes, one core each, and prints ns per cell and
their ratio. scipy's result is not a lower bound of the distance to the excluded
squares; acres' is (see src/ground/corridor/edt.rs).
"""
import argparse, json, os, subprocess, sys, tempfile, time

def ensure(mod, pkg):
    try:
        __import__(mod)
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", pkg])

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    ensure("numpy", "numpy")
    ensure("scipy", "scipy")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import numpy as np
    from scipy import ndimage

    n = a.size
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from edt_mask import mask as make_mask
    mask = make_mask(n)

    times = []
    for _ in range(a.repeats):
        t = time.perf_counter()
        d = ndimage.distance_transform_edt(mask)
        times.append(time.perf_counter() - t)
    times.sort()
    scipy_ns = times[len(times) // 2] * 1e9 / (n * n)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mask.u8")
        mask.tofile(path)
        subprocess.check_call(["cargo", "build", "--quiet", "--release", "--example", "edt_bench"])
        out = subprocess.check_output(
            ["taskset", "-c", "0", "env", "RAYON_NUM_THREADS=1", "target/release/examples/edt_bench", path, str(n), str(n), str(a.repeats)]
        )
    r = json.loads(out)
    print(f"raster {n} x {n}, median of {a.repeats} runs, one core each")
    print(f"scipy distance_transform_edt: {scipy_ns:8.2f} ns/cell (centre to centre, not a lower bound)")
    print(f"acres border transform:       {r['median_ns_per_cell']:8.2f} ns/cell (best {r['best_ns_per_cell']:.2f})")
    print(f"throughput ratio acres/scipy: {scipy_ns / r['median_ns_per_cell']:8.2f}x")
    print(f"acres peak memory beyond the input: {r['peak_extra_bytes'] / 2**20:.1f} MiB "
          f"= {r['peak_extra_over_raster']:.2f} x the f32 raster")

if __name__ == "__main__":
    main()
