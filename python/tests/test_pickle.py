"""Objects that travel: pickling and copying of every class, an error raised in a worker
reaching the parent with its message, and a simulation that goes on from the same state,
bit for bit, after a round trip."""

import copy
import multiprocessing
import pickle

import numpy as np
import pytest

import acres
import acres.gym
from acres.gym import PolarisEnv


def _fail(_):
    raise acres.AcresError("route `nowhere`: no such file")


def test_an_error_pickles_with_its_message():
    e = pickle.loads(pickle.dumps(acres.AcresError("the message")))
    assert type(e) is acres.AcresError and str(e) == "the message"
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        with pytest.raises(acres.AcresError, match="route `nowhere`"):
            pool.map(_fail, [0])


def test_corridor_and_checker_round_trip():
    c = acres.Corridor.build()
    again = pickle.loads(pickle.dumps(c))
    ox, oy = c.origin_m
    pts = np.column_stack([np.linspace(ox, ox + 200, 50), np.linspace(oy, oy + 100, 50)])
    assert np.array_equal(again.query(pts), c.query(pts))
    ch = acres.Checker("farm_yard_to_east_lane.json", corridor=c)
    rng = np.random.default_rng(1)
    n, k = 20, 20
    offsets = rng.uniform(-1, 1, (n, k))
    speeds = rng.uniform(0, 5, (n, k))
    start = np.tile([40.0, 10.0, 0.0, 2.0, 0.0], (n, 1))
    for other in (pickle.loads(pickle.dumps(ch)), copy.deepcopy(ch)):
        a, b = ch.check(offsets, speeds, start), other.check(offsets, speeds, start)
        assert np.array_equal(a["accepted"], b["accepted"]) and np.array_equal(a["reason"], b["reason"])


def test_a_sim_goes_on_from_the_same_state_bit_for_bit():
    sim = acres.Sim("crossing_person", moving="tracker")
    for k in range(120):
        sim.step() if k % 3 else sim.step(0.01, 4.0)
    twin = pickle.loads(pickle.dumps(sim))
    for _ in range(150):
        a, b = sim.step(), twin.step()
        assert a == b
    assert sim.summary() == twin.summary()


def test_a_chain_goes_on_from_the_same_state():
    chain = acres.Chain("farm_yard_to_east_lane.json")
    scan = np.full(360, np.inf)
    state = np.array([40.0, 10.0, 0.0, 2.0, 0.0])
    for _ in range(10):
        chain.step(state, scan)
    twin = copy.deepcopy(chain)
    assert chain.step(state, scan) == twin.step(state, scan)


def test_an_environment_pickles_and_copies_independently():
    env = PolarisEnv(suite="crossing-person", moving="tracker")
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(rng.uniform(-1, 1, 2).astype(np.float32))
    twin = pickle.loads(pickle.dumps(env))
    shallow = copy.copy(env)
    actions = rng.uniform(-1, 1, (40, 2)).astype(np.float32)
    outs = [[e.step(a) for a in actions] for e in (env, twin, shallow)]
    for a, b in zip(outs[0], outs[1]):
        assert np.array_equal(a[0], b[0]) and a[1:] == b[1:]
    # The copy stepped apart: the original's steps above were not doubled by it.
    for a, b in zip(outs[0], outs[2]):
        assert np.array_equal(a[0], b[0]) and a[1:] == b[1:]
    # The random generator travels too: the next reset draws the same scenario.
    assert env.reset()[1] == twin.reset()[1]
