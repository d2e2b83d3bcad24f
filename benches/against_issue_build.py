#!/usr/bin/env python3
"""The chain's step costs beside the build the performance issue measured, in one run:

    python3 benches/against_issue_build.py [ROUNDS]

The issue's targets are absolute (the shield's 360-beam ring at most 0.75 µs, the driver
at most 0.3 µs at 0.5 m spacing and 0.5 µs at 0.05 m), but they were measured on one
machine, and these machines differ by up to 1.7x from one session to the next. So this
script times today's `examples/chain_costs.rs` against the same benchmark as it stood at
ISSUE_COMMIT, the first commit that had it (its shield as the issue measured it, its
driver after the first change), both built here and run alternately ROUNDS times
(default 5; each run is itself the median of 5, in CPU time). It prints each figure's
medians, their ratio, and what that ratio makes of the issue-era build's figures on the
issue's machine (docs/performance.md, the first table) beside the target.

The old build is kept in a git worktree under target/issue-build (built once, a few
minutes). It reads the CPU clock's 10 ms ticks, so its driver figures move in steps of
0.025 µs and its shield's in steps of 0.04 µs.
"""

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ISSUE_COMMIT = "3f4fcab"
OLD = ROOT / "target" / "issue-build"

# The issue-era build's figures on the issue's machine (docs/performance.md, first table:
# µs, low and high) and the issue's targets.
ISSUE_MACHINE = {
    "shield_us_360": ((2.2, 2.5), 0.75),
    "driver_us_0_5m": ((0.35, 0.375), 0.3),
    "driver_us_0_05m": ((0.78, 0.80), 0.5),
}


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def build_at(commit: str, folder: Path, example: str, copy: tuple = ()) -> Path:
    """`example` as it builds at `commit`, in a worktree under `folder` (kept, built once).

    The files of `copy` (paths under ROOT) are copied into the worktree first: an example
    written to build against both the old crate and today's. An old tree that is not a
    workspace of its own is made one there (a bare `[workspace]` table), or cargo would
    take it for a member of today's, in which it lies.
    """
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


def build_old() -> Path:
    """The issue-era chain_costs, built in a worktree of ISSUE_COMMIT."""
    return build_at(ISSUE_COMMIT, OLD, "chain_costs")


def build_new(example: str = "chain_costs") -> Path:
    run(["cargo", "build", "--release", "--locked", "--example", example], cwd=ROOT)
    return ROOT / "target" / "release" / "examples" / example


def figures(binary: Path) -> dict:
    out = run([str(binary)], capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    old, new = build_old(), build_new()
    runs = {"issue_build": [], "today": []}
    for _ in range(rounds):
        runs["issue_build"].append(figures(old))
        runs["today"].append(figures(new))
    result = {}
    for key, ((low, high), target) in ISSUE_MACHINE.items():
        was = statistics.median(r[key] for r in runs["issue_build"])
        now = statistics.median(r[key] for r in runs["today"])
        ratio = was / now
        result[key] = {
            "issue_build_us": was,
            "today_us": now,
            "ratio": round(ratio, 2),
            "today_on_the_issue_machine_us": [round(low / ratio, 3), round(high / ratio, 3)],
            "target_us": target,
        }
    plant = [statistics.median(r["plant_physics_us"] for r in v) for v in runs.values()]
    result["plant_physics_us"] = {"issue_build": plant[0], "today": plant[1]}
    result["rounds"] = rounds
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
