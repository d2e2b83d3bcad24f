"""The stop rule from Python against `acres envelope stop-distance/stop-cap`."""

import numpy as np
import pytest

import acres
from conftest import cli

CLASSES = ["asphalt", "concrete", "gravel", "grass_lane", "dirt", "grass", "field", "unknown"]


@pytest.mark.parametrize("cls", CLASSES)
def test_stop_distance_and_cap_equal_the_cli(cls):
    speeds = np.array([0.0, 0.7, 3.3, 7.8])
    got = acres.stop_distance(speeds, cls)
    for v, d in zip(speeds, got):
        want = cli("envelope", "stop-distance", "--class", cls, "--speed", v, "--format", "json")
        assert d == want["stop_distance_m"]
    dists = np.array([0.0, 2.5, 20.0, 41.3])
    caps = acres.stop_cap(dists, cls)
    for d, c in zip(dists, caps):
        want = cli("envelope", "stop-cap", "--class", cls, "--distance", d, "--format", "json")
        assert c == want["stop_cap_mps"]


def test_one_class_a_value_and_the_worked_example():
    # vehicle-software.md: gravel at 7.8 m/s stops within 35.55 m (T 1 s, a 1.2, d_m 2.4).
    d = acres.stop_distance([7.8, 7.8], ["gravel", "asphalt"])
    assert d[0] == pytest.approx(7.8 + 7.8**2 / 2.4 + 2.4)
    assert d[1] == acres.stop_distance([7.8], "asphalt")[0] != d[0]
    lim = acres.class_limits("gravel")
    assert lim["obstacle_margin_m"] == 2.4 and lim["decel_mps2"] == 1.2
    # The cap inverts the distance.
    assert acres.stop_cap(d[:1], "gravel")[0] == pytest.approx(7.8)


@pytest.mark.parametrize(
    "speeds, message",
    [
        ([1.0, float("nan")], "speeds[1] is NaN"),
        ([-1.0], "speeds[0] is -1"),
        ([float("inf")], "speeds[0] is inf"),
        (np.array(["a", "b"]), "dtype <U1"),
        (np.zeros((2, 2)), "2 dimensions"),
    ],
)
def test_bad_speeds_raise_naming_the_element(speeds, message):
    with pytest.raises(acres.AcresError, match=message.replace("[", r"\[")):
        acres.stop_distance(speeds, "gravel")


def test_bad_class_grip_or_count():
    with pytest.raises(acres.AcresError, match="sand"):
        acres.stop_distance([1.0], "sand")
    with pytest.raises(acres.AcresError, match="grip"):
        acres.stop_distance([1.0], "gravel", grip="icy")
    with pytest.raises(acres.AcresError, match="2 given for 3 values"):
        acres.stop_distance([1.0, 2.0, 3.0], ["gravel", "dirt"])
    assert issubclass(acres.AcresError, ValueError)
