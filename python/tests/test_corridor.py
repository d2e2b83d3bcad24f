"""Corridor.build / load / query against `acres corridor build` and `corridor query`."""

import csv
import subprocess

import numpy as np
import pytest

import acres
from conftest import acres_bin, cli


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("corridor")
    out = d / "lane.acor"
    subprocess.run(
        [str(acres_bin()), "-q", "corridor", "build", "--out", str(out)], check=True
    )
    return out


def test_build_load_and_query_equal_the_cli(built, tmp_path):
    mine = acres.Corridor.build()
    theirs = acres.Corridor.load(built)
    assert mine.shape == theirs.shape and mine.resolution_m == theirs.resolution_m
    rng = np.random.default_rng(7)
    ox, oy = theirs.origin_m
    w, h = theirs.shape
    r = theirs.resolution_m
    pts = np.column_stack(
        [rng.uniform(ox - 5, ox + w * r + 5, 300), rng.uniform(oy - 5, oy + h * r + 5, 300)]
    )
    q = theirs.query(pts)
    assert np.array_equal(q, mine.query(pts))
    f = tmp_path / "pts.csv"
    with open(f, "w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["x", "y"])
        wr.writerows(pts.tolist())
    want = cli("corridor", "query", built, "--points", f, "--format", "json")
    assert [row["d_m"] for row in want] == q.tolist()
    assert (q > 0).any() and (q == 0).any()
    # Saved and loaded again, the same raster.
    mine.save(tmp_path / "again.acor")
    assert np.array_equal(acres.Corridor.load(tmp_path / "again.acor").query(pts), q)


def test_bad_input_raises(tmp_path, built):
    c = acres.Corridor.load(built)
    with pytest.raises(acres.AcresError, match=r"points: shape \(3, 3\)"):
        c.query(np.zeros((3, 3)))
    with pytest.raises(acres.AcresError, match=r"points\[1, 0\] is NaN"):
        c.query(np.array([[0.0, 0.0], [np.nan, 1.0]]))
    with pytest.raises(acres.AcresError, match="nowhere.acor"):
        acres.Corridor.load(tmp_path / "nowhere.acor")
    with pytest.raises(acres.AcresError, match="max"):
        acres.Corridor.build(max_cells=1000)
    assert c.query(np.array([[1e19, 600.0]])).tolist() == [0.0]


def test_query_and_build_take_what_the_checker_takes(built):
    # float32, ints and nested lists as float64 points; a route and a map as
    # pathlib.Path, as the Checker takes its route.
    from pathlib import Path

    c = acres.Corridor.load(built)
    ox, oy = c.origin_m
    pts = np.array([[ox + 10.5, oy + 20.25], [ox + 30.0, oy + 5.0]])
    want = c.query(pts)
    assert np.array_equal(c.query(pts.astype(np.float32)), c.query(pts.astype(np.float32).astype(np.float64)))
    assert np.array_equal(c.query(pts.tolist()), want)
    assert np.array_equal(c.query(np.asfortranarray(pts)), want)
    assert c.query([[int(ox) + 10, int(oy) + 20]]).shape == (1,)
    root = Path(__file__).resolve().parents[2] / "data"
    by_path = acres.Corridor.build(
        route=root / "routes" / "farm_yard_to_east_lane.json"
    )
    assert np.array_equal(by_path.query(pts), acres.Corridor.build().query(pts))
    with pytest.raises(ValueError, match="points"):
        c.query([["a", "b"]])
