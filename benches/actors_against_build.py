#!/usr/bin/env python3
"""The moving-object rule's cost against the build before issue 60's rule change.

`python3 benches/actors_against_build.py [ROUNDS [N]]` builds `examples/actors_bench.rs` (today's
file, copied into a worktree of BEFORE so that both builds run the same scene) and runs the
two builds alternately ROUNDS times (default 5) with N walkers (default 20). It prints the
medians of `tracker_and_rule_us` (the chain step with the rule on the tracker less the step
with it off, µs of CPU time) and their ratio as one JSON line. Worktree and its target live
under target/actors_before (kept between runs; `cargo clean` removes them).
"""

import json
import statistics
import sys

from against_issue_build import ROOT, build_at, build_new, run

# The last commit before the pass judged anew and the speed intervals (issue 60 step 1).
BEFORE = "018d00d"
FOLDER = ROOT / "target" / "actors_before"


def figures(binary, n: int) -> dict:
    out = run([str(binary), str(n)], capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    old = build_at(BEFORE, FOLDER, "actors_bench", copy=("examples/actors_bench.rs",))
    new = build_new("actors_bench")
    was, now = [], []
    for _ in range(rounds):
        was.append(figures(old, n)["tracker_and_rule_us"])
        now.append(figures(new, n)["tracker_and_rule_us"])
    a, b = statistics.median(was), statistics.median(now)
    print(json.dumps({"walkers": n, "rounds": rounds, "before_us": round(a, 3),
                      "today_us": round(b, 3), "ratio": round(b / a, 3),
                      "before_all": [round(x, 3) for x in was],
                      "today_all": [round(x, 3) for x in now]}))


if __name__ == "__main__":
    main()
