#!/usr/bin/env python3
"""The simulation's rate today against the crate at a given commit:

    python3 benches/sim_against_commit.py [--commit SHA] [ROUNDS]

Builds `examples/scene_probe.rs` (today's file, copied into the old tree so that both
builds run the same scenes) against the crate at SHA (default 76d04df^, before each
obstacle was cast only against the beams of its angular span) and against today's, and
runs the two alternately ROUNDS times (default 5, each run the median of 3) on the
opening scenario and two scenes of 1,000 posts:

- `scattered`: the posts spread 5 to 1,755 m either side of the lane, about 12 within the
  scan's 40 m reach at a time;
- `in_band`: the posts 5 to 40 m beside the lane, about 570 within reach at a time.

Prints each build's median physics steps per CPU-second and the gain (today / old). The
old build is kept in a git worktree under target/at-SHA (built once, a few minutes).
Both builds read the CPU time from /proc in 10 ms ticks, over runs of at least 0.3 s.
"""

import json
import statistics

from against_commit import arguments, build_at, build_new, run

PROBE = ("examples/scene_probe.rs", "examples/common/posts.rs")
SCENES = {"scattered": 50.0, "in_band": 1.0}


def probe(binary, widen: float) -> dict:
    out = run([str(binary), "1000", str(widen), "3"], capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def entry(was: list, now: list) -> dict:
    was, now = statistics.median(was), statistics.median(now)
    return {"commit": round(was), "today": round(now), "gain": round(now / was, 2)}


def main() -> None:
    args = arguments("76d04df^")
    builds = {"commit": build_at(args.commit, "scene_probe", copy=PROBE), "today": build_new("scene_probe")}
    runs = {(b, name): [] for b in builds for name in SCENES}
    for _ in range(args.rounds):
        for name, widen in SCENES.items():
            for b, binary in builds.items():
                runs[(b, name)].append(probe(binary, widen))
    # Every probe times the opening scenario too: its figure pools them all.
    opening = {b: [r["opening"] for n in SCENES for r in runs[(b, n)]] for b in builds}
    result = {"commit": args.commit, "rounds": args.rounds, "opening": entry(opening["commit"], opening["today"])}
    for name in SCENES:
        was, now = runs[("commit", name)], runs[("today", name)]
        result[name] = entry([r["scene"] for r in was], [r["scene"] for r in now])
        result[name]["posts_in_reach_mean"] = now[0]["in_reach_mean"]
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
