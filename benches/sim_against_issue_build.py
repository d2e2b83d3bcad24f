#!/usr/bin/env python3
"""The simulation's rate beside the build the performance issue measured, in one run:

    python3 benches/sim_against_issue_build.py [ROUNDS]

The issue gave the simulation's rate on the opening scenario (267 k physics steps per
CPU-second) and on a scene of 1,000 obstacles (94 k), measured before each obstacle was
cast only against the beams of its angular span (76d04df; the issue names that change
as an experiment). It did not record the scene. This script builds
`examples/scene_probe.rs` against the crate as it stood just before that change
(ISSUE_COMMIT) and against today's, and runs both alternately ROUNDS times (default 5,
each run the median of 3) on the opening scenario and on two scenes of 1,000 posts:

- `scattered`: the posts spread 5 to 1,755 m either side of the lane (WIDEN 50), about
  12 within the scan's 40 m reach at a time. There the issue-era build's opening rate is
  about 2.9 times its scene rate, as the issue's 267 k and 94 k are (2.84): the scene the
  issue measured, as far as its own figures tell;
- `in_band`: scan_bench's dense scene, the posts 5 to 40 m beside the lane, about 570
  within reach at a time.

It prints each build's medians, today's gain, and today's rate on the issue's machine
(the issue's figure times the gain) beside the target of 300 k.

The old build is kept in a git worktree under target/issue-build-sim (built once, a few
minutes). Both builds read the CPU time from /proc in 10 ms ticks, over runs of at least
0.3 s.
"""

import json
import statistics
import sys

from against_issue_build import ROOT, build_at, build_new, run

ISSUE_COMMIT = "76d04df^"
OLD = ROOT / "target" / "issue-build-sim"
PROBE = ("examples/scene_probe.rs", "examples/common/posts.rs")

# The issue's figures (physics steps per CPU-second on its machine) and its targets.
ISSUE = {"opening": (267_000, 1_000_000), "scattered": (94_000, 300_000)}
SCENES = {"scattered": 50.0, "in_band": 1.0}


def probe(binary, widen: float) -> dict:
    out = run([str(binary), "1000", str(widen), "3"], capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def entry(was: list, now: list, label: str) -> dict:
    """Medians of the two builds, today's gain, and where the issue measured the figure,
    today's rate on its machine beside the target."""
    was, now = statistics.median(was), statistics.median(now)
    out = {"issue_build": round(was), "today": round(now), "gain": round(now / was, 2)}
    if label in ISSUE:
        figure, target = ISSUE[label]
        out["today_on_the_issue_machine"] = round(figure * now / was)
        out["target"] = target
    return out


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    old = build_at(ISSUE_COMMIT, OLD, "scene_probe", copy=PROBE)
    new = build_new("scene_probe")
    builds = {"issue_build": old, "today": new}
    runs = {(b, name): [] for b in builds for name in SCENES}
    for _ in range(rounds):
        for name, widen in SCENES.items():
            for b, binary in builds.items():
                runs[(b, name)].append(probe(binary, widen))
    # Every probe times the opening scenario too: its figure pools them all.
    opening = {b: [r["opening"] for n in SCENES for r in runs[(b, n)]] for b in builds}
    result = {"opening": entry(opening["issue_build"], opening["today"], "opening")}
    for name in SCENES:
        was, now = runs[("issue_build", name)], runs[("today", name)]
        result[name] = entry([r["scene"] for r in was], [r["scene"] for r in now], name)
        result[name]["posts_in_reach_mean"] = now[0]["in_reach_mean"]
        ratio = statistics.median(r["opening"] / r["scene"] for r in was)
        result[name]["issue_build_opening_over_scene"] = round(ratio, 2)
    result["issue_opening_over_scene"] = round(ISSUE["opening"][0] / ISSUE["scattered"][0], 2)
    result["rounds"] = rounds
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
