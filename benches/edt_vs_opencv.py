#!/usr/bin/env python3
"""Corridor distance transform against OpenCV's distanceTransform, side by side, on the
same cores.

Run from the repository root:  python3 benches/edt_vs_opencv.py [--size 4096] [--repeats 7] [--cores 0,1]

It installs numpy and opencv-python-headless with pip where they are missing, makes the
benches/edt_mask.py mask (4096 x 4096 by default), pins itself and its children to the
same cores (two by default), gives OpenCV and rayon one thread per core, and runs them
interleaved: each round one OpenCV transform (DIST_L2, DIST_MASK_PRECISE: its exact
Euclidean transform) in this process and one acres border transform
(examples/edt_bench.rs, the same bytes read from a file, timed inside the process). It
prints the medians of wall and CPU time (all threads) per cell and the ratios: above 1,
acres is the faster. OpenCV's distances run centre to centre and are no lower bound of the
distance to the excluded squares; acres' are (src/ground/corridor/edt.rs).
"""
import argparse, json, os, subprocess, sys, tempfile, time


def ensure(mod, pkg):
    try:
        __import__(mod)
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", pkg])


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--cores", default="0,1")
    a = ap.parse_args()
    cores = {int(c) for c in a.cores.split(",")}
    os.sched_setaffinity(0, cores)
    ensure("numpy", "numpy")
    ensure("cv2", "opencv-python-headless")
    import cv2
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from edt_mask import mask as make_mask

    cv2.setNumThreads(len(cores))
    n = a.size
    mask = make_mask(n)
    cells = n * n
    subprocess.check_call(["cargo", "build", "--quiet", "--release", "--example", "edt_bench"])
    env = dict(os.environ, RAYON_NUM_THREADS=str(len(cores)))
    cv_wall, cv_cpu, ac_wall, ac_cpu = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mask.u8")
        mask.tofile(path)
        cv2.distanceTransform(mask, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)  # warm up
        for _ in range(a.repeats):
            t, c = time.perf_counter(), time.process_time()
            cv2.distanceTransform(mask, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
            cv_wall.append((time.perf_counter() - t) * 1e9 / cells)
            cv_cpu.append((time.process_time() - c) * 1e9 / cells)
            out = subprocess.check_output(
                ["target/release/examples/edt_bench", path, str(n), str(n), "3"], env=env)
            r = json.loads(out)
            ac_wall.append(r["median_ns_per_cell"])
            ac_cpu.append(r["median_cpu_ns_per_cell"])
            mem = r["peak_extra_over_raster"]
    print(f"raster {n} x {n} on cores {sorted(cores)}, {len(cores)} threads each, "
          f"medians of {a.repeats} interleaved rounds (acres: median of 3 in each)")
    print(f"OpenCV {cv2.__version__} distanceTransform: {median(cv_wall):7.2f} ns/cell wall, "
          f"{median(cv_cpu):7.2f} ns/cell CPU")
    print(f"acres border transform:        {median(ac_wall):7.2f} ns/cell wall, "
          f"{median(ac_cpu):7.2f} ns/cell CPU")
    print(f"ratio OpenCV/acres: {median(cv_wall) / median(ac_wall):.2f}x wall, "
          f"{median(cv_cpu) / median(ac_cpu):.2f}x CPU")
    print(f"acres peak memory beyond the input: {mem:.2f} x the f32 raster")


if __name__ == "__main__":
    main()
