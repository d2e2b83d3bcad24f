"""Checker.check on arrays against `acres check` on the same chunks: the shipped chunk
files (one a reason) and random chunks through the batch form, verdicts and margins."""

import json
import math

import numpy as np
import pytest

import acres
from conftest import ROOT, cli


def chunks_of(path):
    d = json.loads(path.read_text())
    return d["chunks"] if isinstance(d, dict) else d


def arrays(chunks):
    return dict(
        offsets=np.array([c["offsets_m"] for c in chunks], dtype=float),
        speeds=np.array([c["speeds_mps"] for c in chunks], dtype=float),
        start=np.array(
            [[c["start"][k] for k in ("x_m", "y_m", "yaw_rad", "speed_mps", "curvature_per_m")]
             for c in chunks],
            dtype=float,
        ),
        start_station=np.array([c["start_station_m"] for c in chunks], dtype=float),
        station_step=np.array([c["station_step_m"] for c in chunks], dtype=float),
        reverse=np.array([c["direction"] == "reverse" for c in chunks]),
    )


def same(a, b):
    return (a is None and (b is None or (isinstance(b, float) and math.isnan(b)))) or a == b


def assert_verdicts(got, want, margins=False):
    for i, w in enumerate(want):
        assert got["accepted"][i] == (w["verdict"] == "accepted"), (i, w)
        reason = None if got["reason"][i] < 0 else acres.REASONS[got["reason"][i]]
        assert reason == w["reason"], (i, w)
        first = None if got["first_index"][i] < 0 else int(got["first_index"][i])
        assert first == w["first_index"], (i, w)
        assert same(w["value"], float(got["value"][i])), (i, w, got["value"][i])
        assert same(w["limit"], float(got["limit"][i])), (i, w, got["limit"][i])
        if margins:
            for j, key in enumerate(acres.MARGIN_KEYS):
                m = w["margins"].get(key)
                if m is None:
                    assert got["margin_index"][i, j] == -1, (i, key)
                else:
                    # JSON has no infinity: the CLI writes null for an unbounded margin.
                    g = float(got["margins"][i, j])
                    assert m["margin"] == g or (m["margin"] is None and not math.isfinite(g)), (i, key)
                    assert got["margin_index"][i, j] == m["index"], (i, key)


SHIPPED = sorted(p for p in (ROOT / "data" / "chunks").glob("*.json") if p.name != "obstacle_scan.json")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_chunks_get_the_cli_verdicts(path):
    scan_file = ROOT / "data" / "chunks" / "obstacle_scan.json"
    args = ["check", path, "--format", "json", "--margins", "--scan", scan_file]
    want = cli(*args, ok_codes=(0, 3))
    ranges = [math.inf if r is None else r for r in json.loads(scan_file.read_text())["ranges"]]
    chunks = chunks_of(path)
    for c, w in zip(chunks, want):
        route = c.get("route", "straight_lane.json")
        try:
            a = arrays([c])
        except (TypeError, ValueError):
            continue  # not a chunk of numbers: nothing to pass as arrays
        checker = acres.Checker(route)
        scans = np.array([ranges])
        if not (np.isfinite(a["offsets"]).all() and np.isfinite(a["speeds"]).all()
                and np.isfinite(a["start"]).all()) or a["offsets"].shape != a["speeds"].shape:
            with pytest.raises(acres.AcresError):
                checker.check(a["offsets"], a["speeds"], a["start"], scans,
                              start_station=a["start_station"])
            continue
        got = checker.check(a["offsets"], a["speeds"], a["start"], scans, margins=True,
                            start_station=a["start_station"], station_step=a["station_step"],
                            reverse=a["reverse"])
        assert_verdicts(got, [w], margins=True)


def random_chunks(n, k, rng):
    """Chunks around the shipped accepted stop (a gentle stop from 0.5 to 4.5 m/s on the
    straight lane), some left calm, some bent or sped up past a limit, each with a few
    returns."""
    out = []
    for i in range(n):
        v0 = rng.uniform(0.5, 4.5)
        v = np.linspace(v0, 0.0, k)
        off = np.zeros(k)
        s0 = rng.uniform(5, 120)
        if i % 2:
            v = np.maximum(v + np.cumsum(rng.normal(0, 0.08, k)), 0.0)
            off = np.cumsum(rng.normal(0, 0.01, k))
        c = {
            "route": "straight_lane.json",
            "start_station_m": s0,
            "station_step_m": 0.5,
            "offsets_m": off.round(6).tolist(),
            "speeds_mps": v.round(6).tolist(),
            "direction": "forward",
            "start": {"x_m": s0 + rng.normal(0, 0.05), "y_m": rng.normal(0, 0.05),
                      "yaw_rad": rng.normal(0, 0.005), "speed_mps": v0,
                      "curvature_per_m": 0.0},
        }
        ranges = [None] * 360
        for _ in range(rng.integers(0, 3)):
            ranges[int(rng.integers(0, 360))] = float(rng.uniform(1.0, 39.0))
        c["scan"] = ranges
        out.append(c)
    return out


def test_random_chunks_equal_the_batch_form(tmp_path):
    rng = np.random.default_rng(20)
    chunks = random_chunks(300, 40, rng)
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(c) + "\n" for c in chunks))
    out = tmp_path / "out.jsonl"
    cli("check", "--batch", src, "--out", out, "--margins", ok_codes=(0, 3))
    want = [json.loads(l) for l in out.read_text().splitlines()]
    a = arrays(chunks)
    scans = np.array([[math.inf if r is None else r for r in c["scan"]] for c in chunks])
    got = acres.Checker("straight_lane.json").check(
        a["offsets"], a["speeds"], a["start"], scans, margins=True,
        start_station=a["start_station"], station_step=0.5)
    assert_verdicts(got, want, margins=True)
    assert 0 < got["accepted"].sum() < len(chunks), "the random chunks test both verdicts"
    # Without start stations: each start's projection on the route, the chunk's own here
    # (the starts lie within 0.2 m of their stations on the straight lane, the station
    # given is the start's x).
    ch = acres.Checker("straight_lane.json")
    a["start"][:, 0] = a["start_station"]
    a["start"][:, 1] = 0.0
    given = ch.check(a["offsets"], a["speeds"], a["start"], scans, start_station=a["start_station"])
    default = ch.check(a["offsets"], a["speeds"], a["start"], scans)
    assert np.array_equal(given["reason"], default["reason"])


def test_bad_arrays_raise_and_the_interpreter_lives():
    ch = acres.Checker("straight_lane.json")
    z = np.zeros((2, 40))
    st = np.zeros((2, 5))
    with pytest.raises(acres.AcresError, match=r"speeds: shape \(2, 39\)"):
        ch.check(z, np.zeros((2, 39)), st, start_station=0.0)
    with pytest.raises(acres.AcresError, match=r"start: shape \(2, 4\)"):
        ch.check(z, z, np.zeros((2, 4)), start_station=0.0)
    bad = z.copy()
    bad[1, 7] = np.nan
    with pytest.raises(acres.AcresError, match=r"offsets\[1, 7\] is NaN"):
        ch.check(bad, z, st, start_station=0.0)
    with pytest.raises(acres.AcresError, match=r"scans: shape \(2, 90\)"):
        ch.check(z, z, st, np.zeros((2, 90)), start_station=0.0)
    sc = np.full((2, 360), np.inf)
    sc[0, 3] = -1.0
    with pytest.raises(acres.AcresError, match=r"scans\[0, 3\] is -1"):
        ch.check(z, z, st, sc, start_station=0.0)
    with pytest.raises(acres.AcresError, match="dtype"):
        ch.check(np.array([["a"] * 40] * 2), z, st, start_station=0.0)
    with pytest.raises(acres.AcresError, match=r"start_station: shape \(3,\)"):
        ch.check(z, z, st, start_station=[0.0, 1.0, 2.0])
    with pytest.raises(acres.AcresError, match="no_such_route"):
        acres.Checker("no_such_route.json")
    # A chunk of 0 samples and 0 chunks are verdicts, not crashes.
    r = ch.check(np.zeros((1, 0)), np.zeros((1, 0)), np.zeros((1, 5)), start_station=0.0)
    assert acres.REASONS[r["reason"][0]] == "malformed"
    assert len(ch.check(np.zeros((0, 40)), np.zeros((0, 40)), np.zeros((0, 5)), start_station=0.0)["accepted"]) == 0


def test_unchecked_rules_are_named_and_strict_refuses_against_the_cli(tmp_path):
    """Without scans and a corridor the verdict names the obstacle, point and corridor
    rules as not run; strict=True refuses what they would have judged, as `acres check
    --strict` does, and `unchecked` stays the last reason so older indices hold."""
    assert acres.REASONS[-1] == "unchecked"
    assert acres.REASONS[:3] == ["malformed", "step", "speed"]
    path = ROOT / "data" / "chunks" / "accepted.json"
    chunks = chunks_of(path)[:1]
    a = arrays(chunks)
    ch = acres.Checker(chunks[0].get("route", "straight_lane.json"))
    kw = dict(start_station=a["start_station"], station_step=a["station_step"], reverse=a["reverse"])
    plain = ch.check(a["offsets"], a["speeds"], a["start"], **kw)
    assert plain["accepted"].all()
    assert plain["unchecked"] == [("obstacle", "point", "corridor")] * len(chunks)
    strict = ch.check(a["offsets"], a["speeds"], a["start"], strict=True, **kw)
    want = cli("check", path, "--strict", "--format", "json", ok_codes=(3,))[:1]
    assert_verdicts(strict, want)
    assert all(acres.REASONS[r] == "unchecked" for r in strict["reason"])
    assert "obstacle, point and corridor rules not run" in strict["note"][0]
    # With scans the obstacle rule runs: only the corridor's rules are named.
    scans = np.full((len(chunks), ch.beams), np.inf)
    with_scan = ch.check(a["offsets"], a["speeds"], a["start"], scans, **kw)
    assert with_scan["unchecked"][0] == ("point", "corridor")
    # A chunk refused by a rule keeps that rule under strict.
    fast = a["speeds"] * 10.0
    r = ch.check(a["offsets"], fast, a["start"], strict=True, **kw)
    assert "unchecked" not in [acres.REASONS[i] for i in r["reason"]]
