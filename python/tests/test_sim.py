"""Sim and Chain against `acres sim`: the same summary, the same log records, and the
chain's rows from the log's states and scans."""

import json

import numpy as np
import pytest

import acres
from conftest import ROOT, cli


@pytest.mark.parametrize("name", ["opening", "crossing_person", "lane_downhill_wet"])
def test_sim_summary_equals_the_cli(name):
    want = cli("sim", "--scenario", ROOT / "data" / "scenarios" / f"{name}.json", "--format", "json")
    assert acres.Sim(name).run() == want
    assert acres.run_scenario(name) == want


def test_sim_steps_are_the_cli_log(tmp_path):
    log = tmp_path / "opening.jsonl"
    cli("sim", "--log", log, "--format", "json")
    want = [json.loads(l) for l in log.read_text().splitlines()]
    s = acres.Sim()
    got = []
    while not s.ended:
        got.append(s.step())
    assert got == want
    with pytest.raises(acres.AcresError, match="ended"):
        s.step()
    s.reset()
    assert s.step() == want[0]


def test_the_chain_gives_the_logged_rows(tmp_path):
    sc = json.loads((ROOT / "data" / "scenarios" / "lane_downhill_wet.json").read_text())
    sc["record_scan"] = True
    sc["duration_s"] = 20.0
    f = tmp_path / "sc.json"
    f.write_text(json.dumps(sc))
    log = tmp_path / "lane.jsonl"
    cli("sim", "--scenario", f, "--log", log, "--format", "json")
    chain = acres.Chain("straight_lane.json")
    n = 0
    for line in log.read_text().splitlines():
        r = json.loads(line)
        st = r["state"]
        p = st["pose"]
        state = [p["x_m"], p["y_m"], p["yaw_rad"], st["speed_mps"], st["yaw_rate_rps"]]
        scan = np.array([np.inf if x is None else x for x in r["scan"]])
        row = chain.step(state, scan, gear=st["gear"], grade=st.get("grade", 0.0))
        row["step"] = r["row"]["step"]
        assert row == r["row"], n
        n += 1
    assert n > 500


def test_fixed_commands_and_chunks_stay_behind_the_shield():
    s = acres.Sim()
    rec = s.step(curvature=0.5, speed=30.0)
    row = rec["row"]
    assert row["source"] == "fixed"
    assert abs(row["curvature_per_m"]) <= 0.2 and row["speed_mps"] <= 7.8
    chunk = {"start_station_m": 0.0, "station_step_m": 0.5, "offsets_m": [0.0] * 10,
             "speeds_mps": [9.0] * 10, "direction": "forward",
             "start": {"x_m": 0, "y_m": 0, "yaw_rad": 0, "speed_mps": 0, "curvature_per_m": 0}}
    rec = s.step(chunk=chunk)
    assert rec["row"]["verdict"]["verdict"] == "refused"
    assert rec["row"]["source"] == "driver"


def test_bad_input_raises_with_the_library_message(tmp_path):
    with pytest.raises(acres.AcresError, match="nope.json"):
        acres.Sim("nope.json")
    bad = json.loads((ROOT / "data" / "scenarios" / "opening.json").read_text())
    bad["duration_s"] = -1
    with pytest.raises(acres.AcresError, match="duration_s"):
        acres.Sim(bad)
    f = tmp_path / "broken.json"
    f.write_text('{"ground": ')
    with pytest.raises(acres.AcresError, match="broken.json"):
        acres.run_scenario(str(f))
    s = acres.Sim()
    with pytest.raises(acres.AcresError, match="both curvature and speed"):
        s.step(curvature=0.1)
    with pytest.raises(acres.AcresError, match="not finite"):
        s.step(curvature=float("nan"), speed=1.0)
    with pytest.raises(acres.AcresError, match="moving"):
        acres.Sim(moving="psychic")
    c = acres.Chain("straight_lane.json")
    with pytest.raises(acres.AcresError, match=r"state\[3\] \(speed_mps\) is NaN"):
        c.step([0, 0, 0, np.nan, 0], np.full(360, np.inf))
    with pytest.raises(acres.AcresError, match="scan: 10 ranges, expected 360"):
        c.step([0, 0, 0, 1, 0], np.full(10, np.inf))
    with pytest.raises(acres.AcresError, match="gear `warp`"):
        c.step([0, 0, 0, 1, 0], np.full(360, np.inf), gear="warp")
