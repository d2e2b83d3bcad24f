#!/usr/bin/env python3
"""The chain's step costs today against the same benchmark built at a given commit:

    python3 benches/against_commit.py [--commit SHA] [ROUNDS]

Builds `examples/chain_costs.rs` as it stood at SHA (default 3f4fcab, the first commit
that had it) and today's, and runs the two alternately ROUNDS times (default 5; each run
is itself the median of 5, in CPU time). Prints, for the shield's 360-beam ring, the
driver at 0.5 m and 0.05 m spacing and the plant's physics step, the median of each
build, µs, and their ratio (old / today: above 1, today is faster). The two builds run
on the same machine in the same minutes, so the ratio holds where absolute figures,
which move by up to 1.7x between sessions on these shared machines, do not.

The old build is kept in a git worktree under target/at-SHA (built once, a few minutes;
`cargo clean` removes it). A build of 3f4fcab reads the CPU clock's 10 ms ticks, so its
driver figures move in steps of 0.025 µs and its shield's in steps of 0.04 µs.
"""

import argparse
import json
import os
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEYS = ("shield_us_360", "driver_us_0_5m", "driver_us_0_05m", "plant_physics_us")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def build_at(commit: str, example: str, copy: tuple = ()) -> Path:
    """`example` as it builds at `commit`, in a worktree under target/at-COMMIT (kept,
    built once).

    The files of `copy` (paths under ROOT) are copied into the worktree first: an example
    written to build against both the old crate and today's. An old tree that is not a
    workspace of its own is made one there (a bare `[workspace]` table), or cargo would
    take it for a member of today's, in which it lies.
    """
    folder = ROOT / "target" / ("at-" + commit.replace("^", "-parent"))
    src = folder / "src"
    if not src.exists():
        folder.mkdir(parents=True, exist_ok=True)
        # A worktree whose folder went with `cargo clean` is still listed until pruned.
        run(["git", "-C", str(ROOT), "worktree", "prune"])
        run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(src), commit])
    manifest = src / "Cargo.toml"
    if "[workspace]" not in manifest.read_text():
        with manifest.open("a") as f:
            f.write("\n[workspace]\n")
    for name in copy:
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_bytes((ROOT / name).read_bytes())
    env = dict(os.environ, CARGO_TARGET_DIR=str(folder / "target"))
    run(["cargo", "build", "--release", "--locked", "--example", example], cwd=src, env=env)
    return folder / "target" / "release" / "examples" / example


def build_new(example: str = "chain_costs") -> Path:
    run(["cargo", "build", "--release", "--locked", "--example", example], cwd=ROOT)
    return ROOT / "target" / "release" / "examples" / example


def figures(binary: Path, *args: str) -> dict:
    out = run([str(binary), *args], capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def arguments(default_commit: str, extra: tuple = ()) -> argparse.Namespace:
    """The command line shared by the scripts that compare today with a commit."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--commit", default=default_commit, help=f"the old build's commit (default {default_commit})")
    p.add_argument("rounds", nargs="?", type=int, default=5, help="alternate runs of each build (default 5)")
    for name, default, text in extra:
        p.add_argument(name, nargs="?", type=int, default=default, help=text)
    return p.parse_args()


def compare(was: list, now: list) -> dict:
    """The medians of the two builds and their ratio, old / today."""
    a, b = statistics.median(was), statistics.median(now)
    return {"commit": a, "today": b, "ratio": round(a / b, 2) if b else None}


def main() -> None:
    args = arguments("3f4fcab")
    old, new = build_at(args.commit, "chain_costs"), build_new()
    runs = {"commit": [], "today": []}
    for _ in range(args.rounds):
        runs["commit"].append(figures(old))
        runs["today"].append(figures(new))
    result = {"commit": args.commit, "rounds": args.rounds}
    for key in KEYS:
        result[key] = compare([r[key] for r in runs["commit"]], [r[key] for r in runs["today"]])
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
