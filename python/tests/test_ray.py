"""The Ray campaign on a local Ray instance equals the CLI on the same scenarios."""

import json
import sys

import pytest

from conftest import ROOT, cli, cli_code

ray = pytest.importorskip("ray")
sys.path.insert(0, str(ROOT / "examples" / "python"))
import ray_campaign  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_the_campaign_table_equals_the_cli(local_ray, tmp_path):
    runs = ray_campaign.campaign("crossing-person")
    assert len(runs) == 30 * 3 * 2 * 2
    # Dry: the CLI's own suite run, mode by mode.
    for mode in ray_campaign.MODES:
        code, want = cli_code("sim", "--suite", "crossing-person", "--moving", mode, "--format", "json")
        want = want[0] if isinstance(want, list) else want
        # A suite fails (exit 4) exactly when a judged case collides.
        assert code == (4 if want["judged_collisions"] > 0 else 0), (mode, code)
        got = {r["name"]: r for r in runs if r["moving"] == mode and r["state"] == "dry" and r["speed"] == 1.0}
        assert len(got) == 30
        for w in want["runs"]:
            assert got[w["name"]]["collided_by_vehicle"] == w["collided_by_vehicle"], w["name"]
            assert got[w["name"]]["struck_by_actor"] == w["struck_by_actor"], w["name"]
        row = next(
            r for r in ray_campaign.table(runs) if (r["moving"], r["state"], r["speed"]) == (mode, "dry", 1.0)
        )
        assert row["collisions_by_vehicle"] == want["collisions_by_vehicle"]
    # Wet, and the slower speed command (every third case): each scenario file through
    # `acres sim --scenario`.
    cases = [("wet", 1.0, c) for c in ray_campaign.scenarios("crossing-person", "wet")]
    cases += [("dry", 0.8, c) for c in ray_campaign.scenarios("crossing-person", "dry", 0.8)[::3]]
    for state, speed, c in cases:
        f = tmp_path / "case.json"
        f.write_text(json.dumps(c["scenario"]))
        for mode in ray_campaign.MODES:
            code, s = cli_code("sim", "--scenario", f, "--moving", mode, "--format", "json")
            assert code == (0 if s["ok"] else 4) and s["ok"] == s["verdict"].endswith(": ok"), s["verdict"]
            mine = next(
                r for r in runs if (r["name"], r["moving"], r["state"], r["speed"]) == (c["name"], mode, state, speed)
            )
            assert mine["collided_by_vehicle"] == any(x["by"] == "vehicle" for x in s["contacts"]), c["name"]
    rows = ray_campaign.table(runs)
    off = {(r["state"], r["speed"]): r["collisions_by_vehicle"] for r in rows if r["moving"] == "off"}
    # The sweep tests something, and its axes say what matters: the ground state alone
    # changes nothing (the chain brakes below even wet grip), the speed command does.
    assert off[("dry", 1.0)] > 0 and off[("dry", 1.0)] == off[("wet", 1.0)]
    assert off[("dry", 0.8)] < off[("dry", 1.0)]
