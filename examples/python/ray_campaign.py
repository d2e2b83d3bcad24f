#!/usr/bin/env python3
"""A campaign on Ray: a suite's scenarios x shield configurations x ground states x speed
commands, each run a Ray task, gathered into the collision table (docs/python.md
"Campaigns on Ray").

    python examples/python/ray_campaign.py                      # a local Ray instance
    python examples/python/ray_campaign.py --address auto       # the cluster this machine is in
    python examples/python/ray_campaign.py --address ray://head:10001 --json table.json

The shield configurations are the moving-object rule's modes (off: the reference's shield;
tracker: objects from the scans; oracle: the true actor states); the ground states are
dry and wet (the suite's scenarios with their ground's state replaced); the speed
commands are the route's, in full and scaled by 0.8. The ground state alone changes no
run: the chain brakes at 1.2 to 1.6 m/s^2, below even wet grass's grip (0.35 g), so the
dry and wet rows agree; the speed command does change them (the suite's meetings are
timed for the full speed). Each run is `acres.run_scenario`, the engine of `acres sim`.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from typing import Any, Dict, List, Optional, Sequence

import ray

import acres

MODES = ("off", "tracker", "oracle")
STATES = ("dry", "wet")
#: Factors on the route's speed commands.
SPEEDS = (1.0, 0.8)


@ray.remote
def run_case(scenario: Dict[str, Any], mode: str, state: str, speed: float, name: str) -> Dict[str, Any]:
    """One scenario in one configuration: who touched whom, and how close they came."""
    s = acres.run_scenario(scenario, moving=mode)
    by = [c["by"] for c in s["contacts"]]
    return {
        "name": name,
        "moving": mode,
        "state": state,
        "speed": speed,
        "collided_by_vehicle": "vehicle" in by,
        "struck_by_actor": "actor" in by,
        "closest_m": s.get("closest_actor_m"),
        "time_s": s["time_s"],
    }


def scenarios(suite: str, state: str, speed: float = 1.0) -> List[Dict[str, Any]]:
    """The suite's scenarios on a ground state, the route's speed commands times `speed`."""
    out = []
    for case in acres.suite_cases(suite):
        sc = copy.deepcopy(case["scenario"])
        sc["ground"]["state"] = state
        for p in sc["route"]["points"]:
            p["speed_mps"] *= speed
        out.append({"name": case["name"], "scenario": sc})
    return out


def campaign(
    suite: str = "crossing-person",
    modes: Sequence[str] = MODES,
    states: Sequence[str] = STATES,
    speeds: Sequence[float] = SPEEDS,
) -> List[Dict[str, Any]]:
    """Runs the sweep as Ray tasks (Ray must be initialised); one result a run, in order."""
    futures = [
        run_case.remote(c["scenario"], mode, state, speed, c["name"])
        for speed in speeds
        for state in states
        for c in scenarios(suite, state, speed)
        for mode in modes
    ]
    return ray.get(futures)


def table(runs: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Collisions by the vehicle and strikes by an actor, per configuration and state."""
    keys = sorted(
        {(r["moving"], r["state"], r["speed"]) for r in runs},
        key=lambda k: (MODES.index(k[0]) if k[0] in MODES else 9, k[1], -k[2]),
    )
    rows = []
    for mode, state, speed in keys:
        rs = [r for r in runs if (r["moving"], r["state"], r["speed"]) == (mode, state, speed)]
        rows.append({
            "moving": mode,
            "state": state,
            "speed": speed,
            "scenarios": len(rs),
            "collisions_by_vehicle": sum(r["collided_by_vehicle"] for r in rs),
            "struck_by_actor": sum(r["struck_by_actor"] for r in rs),
        })
    return rows


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default="crossing-person", choices=["crossing-person", "oncoming-vehicle"])
    ap.add_argument("--address", help="an existing Ray cluster (ray.init(address=...)); default: a local instance")
    ap.add_argument("--num-cpus", type=int, help="CPUs of the local instance")
    ap.add_argument("--json", help="write the runs and the table as JSON to this file")
    a = ap.parse_args(argv)
    if a.address:
        ray.init(address=a.address)
    else:
        ray.init(num_cpus=a.num_cpus, include_dashboard=False)
    runs = campaign(a.suite)
    rows = table(runs)
    print(f"{'moving':<8} {'state':<5} {'speed':>5} {'scenarios':>9} {'by vehicle':>10} {'by actor':>8}")
    for r in rows:
        print(
            f"{r['moving']:<8} {r['state']:<5} {r['speed']:>5} {r['scenarios']:>9} "
            f"{r['collisions_by_vehicle']:>10} {r['struck_by_actor']:>8}"
        )
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"suite": a.suite, "table": rows, "runs": runs}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
