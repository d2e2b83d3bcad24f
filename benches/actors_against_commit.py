#!/usr/bin/env python3
"""The tracker and moving-object rule's cost today against a given commit:

    python3 benches/actors_against_commit.py [--commit SHA] [ROUNDS [N]]

Builds `examples/actors_bench.rs` (today's file, copied into the old tree so that both
builds run the same scene) against the crate at SHA (default 018d00d, before the pass
was judged anew each step over speed intervals) and today's, and runs the two
alternately ROUNDS times (default 5) with N walkers (default 20). Prints the medians of
`tracker_and_rule_us` (the chain step with the rule on the tracker less the step with
it off, µs of CPU time), their ratio (today / old) and every run, as one JSON line. The
old build is kept in a git worktree under target/at-SHA (`cargo clean` removes it).
"""

import json
import statistics

from against_commit import arguments, build_at, build_new, figures


def main() -> None:
    args = arguments("018d00d", extra=(("walkers", 20, "walking persons beside the lane (default 20)"),))
    old = build_at(args.commit, "actors_bench", copy=("examples/actors_bench.rs",))
    new = build_new("actors_bench")
    was, now = [], []
    for _ in range(args.rounds):
        was.append(figures(old, str(args.walkers))["tracker_and_rule_us"])
        now.append(figures(new, str(args.walkers))["tracker_and_rule_us"])
    a, b = statistics.median(was), statistics.median(now)
    print(json.dumps({"commit": args.commit, "walkers": args.walkers, "rounds": args.rounds,
                      "commit_us": round(a, 3), "today_us": round(b, 3), "ratio": round(b / a, 3),
                      "commit_all": [round(x, 3) for x in was], "today_all": [round(x, 3) for x in now]}))


if __name__ == "__main__":
    main()
