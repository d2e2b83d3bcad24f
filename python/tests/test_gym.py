"""The Gymnasium environment: the checker of Gymnasium, random steps that stay finite,
the vector form, both action spaces, the suites, the reward's terms."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import acres
import acres.gym
from acres.gym import PolarisEnv


@pytest.mark.parametrize("kwargs", [{}, {"action": "chunk"}, {"suite": "crossing-person"}])
def test_check_env_passes_without_warnings(kwargs):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(PolarisEnv(**kwargs), skip_render_check=True)


@pytest.mark.parametrize("action", ["command", "chunk"])
def test_random_steps_keep_observations_finite(action):
    env = gym.make("acres/Polaris-v0", scenario=["opening", "crossing_person"], action=action)
    env.action_space.seed(3)
    obs, _ = env.reset(seed=3)
    episodes = 0
    for _ in range(1000):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert np.isfinite(obs).all() and np.isfinite(reward)
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            episodes += 1
            obs, _ = env.reset()
    assert set(info) >= set(acres.gym.TERMS)


def test_the_vector_form_steps_each_copy():
    envs = gym.make_vec("acres/Polaris-v0", num_envs=3, vectorization_mode="sync")
    obs, _ = envs.reset(seed=[1, 2, 3])
    assert obs.shape == (3, len(acres.OBS_STATE) + 360)
    for _ in range(50):
        obs, rew, term, trunc, _ = envs.step(envs.action_space.sample())
        assert np.isfinite(obs).all() and rew.shape == (3,)
    envs.close()


def test_the_shield_stops_before_the_object_and_the_terms_add_up():
    env = PolarisEnv(
        reward_weights={"progress": 2.0, "comfort": 0.0}, action_units="physical", random_start=False
    )
    obs, info = env.reset(seed=0)
    progress = total = 0.0
    w = dict(acres.gym.DEFAULT_WEIGHTS, progress=2.0, comfort=0.0)
    while True:
        # Straight on at 3 m/s: the shield stops the vehicle before the object.
        obs, r, term, trunc, info = env.step(np.array([0.0, 3.0], dtype=np.float32))
        progress += info["progress"]
        total += r
        assert r == pytest.approx(sum(w[t] * info[t] for t in acres.gym.TERMS))
        if term or trunc:
            break
    # It stands before the object to the scenario's end: a time limit, not a final state.
    assert trunc and not term and info["end"] == "duration" and info["collision"] == 0.0
    assert 15.0 < progress < 30.0, progress
    assert obs[0] == pytest.approx(0.0, abs=0.05)  # standing
    # Held by the obstacle rule, standing costs nothing.
    assert info["standing"] == 0.0
    # The object is within the scan's reach.
    assert (obs[len(acres.OBS_STATE):] < env._engine.reach_m).any()


def _episode(env, policy, index):
    env.reset(seed=0, options={"scenario": index})
    total, steps = 0.0, 0
    while True:
        obs, r, term, trunc, info = env.step(policy())
        total += r
        steps += 1
        if term or trunc:
            return total, term, trunc, info, steps


def test_episodes_end_as_gymnasium_means():
    names = acres.scenario_names()
    env = PolarisEnv(scenario=names, action_units="physical", random_start=False)
    # A collision terminates (the shield off).
    _, term, trunc, info, _ = _episode(env, lambda: None, names.index("opening_no_shield_collides"))
    assert term and not trunc and info["end"] == "collision" and info["collision"] == 1.0
    # Arriving at rest at the route's end terminates, with the bonus.
    _, term, trunc, info, _ = _episode(env, lambda: None, names.index("crossing_person"))
    assert term and not trunc and info["end"] == "arrived" and info["arrival"] == 1.0
    # Standing still does not end an episode early: the time limit truncates it.
    stand = np.array([0.0, 0.0])
    _, term, trunc, info, steps = _episode(env, lambda: stand, names.index("crossing_person"))
    assert trunc and not term and info["end"] == "duration"
    assert steps == 400  # 40 s at 10 decisions a second
    # gym.make's own limit truncates too.
    env = gym.make("acres/Polaris-v0", max_episode_steps=7)
    env.reset(seed=0)
    for k in range(7):
        _, _, term, trunc, _ = env.step(env.unwrapped.default_action())
    assert trunc and not term


def test_the_reward_ranks_the_driver_above_standing_reversing_and_random():
    # On every shipped scenario with its shield (the one without is left out) and on a
    # suite with the tracker rule, the default driver's return is above standing still,
    # backing away and random actions.
    names = [n for n in acres.scenario_names() if not n.startswith("opening_no_shield")]
    rng = np.random.default_rng(5)
    for env, indices in [
        (PolarisEnv(scenario=names), range(len(names))),
        (PolarisEnv(suite="crossing-person", moving="tracker"), range(0, 30, 5)),
    ]:
        kmax, vmin, vmax = env._engine.command_limits
        stand = -1.0 + 2.0 * (0.0 - vmin) / (vmax - vmin)
        policies = {
            "stand": lambda: np.array([0.0, stand], dtype=np.float32),
            "reverse": lambda: np.array([0.0, -1.0], dtype=np.float32),
            "random": lambda: rng.uniform(-1, 1, 2).astype(np.float32),
        }
        for i in indices:
            driver = _episode(env, lambda: None, i)[0]
            for name, policy in policies.items():
                other = _episode(env, policy, i)[0]
                assert driver > other + 10.0, (i, name, driver, other)


def test_actions_are_normalized_and_checked_at_the_door():
    env = PolarisEnv()
    assert env.action_space.low.tolist() == [-1.0, -1.0]
    assert env.action_space.high.tolist() == [1.0, 1.0]
    kmax, vmin, vmax = env._engine.command_limits
    assert env.physical([1.0, -1.0]).tolist() == [kmax, vmin]
    assert env.physical([0.0, 1.0]).tolist() == [0.0, vmax]
    env.reset(seed=0)
    with pytest.raises(acres.AcresError, match=r"shape \(3,\), expected \(2,\)"):
        env.step(np.zeros(3))
    with pytest.raises(acres.AcresError, match=r"action\[1\] is nan"):
        env.step(np.array([0.0, np.nan]))
    chunk = PolarisEnv(action="chunk")
    chunk.reset(seed=0)
    with pytest.raises(acres.AcresError, match=r"expected \(2, 20\)"):
        chunk.step(np.zeros((2, 10)))
    physical = PolarisEnv(action_units="physical")
    assert physical.action_space.high.tolist() == pytest.approx([kmax, vmax])
    with pytest.raises(ValueError, match="an index from 0 to 0"):
        env.reset(options={"scenario": -1})
    with pytest.raises(ValueError, match="an index from 0 to 0"):
        env.reset(options={"scenario": 3})


def test_the_observation_is_relative_and_bounded():
    env = PolarisEnv(random_start=False)
    assert env.obs_names == list(acres.OBS_STATE)
    assert np.isfinite(env.observation_space.low).all()
    assert np.isfinite(env.observation_space.high).all()
    obs, _ = env.reset(seed=0)
    # The opening starts 2.2 m left of the path at 3 m/s, 60 m of route ahead.
    assert obs[0] == pytest.approx(3.0) and obs[2] == pytest.approx(2.2, abs=0.01)
    pose = PolarisEnv(absolute_pose=True, random_start=False)
    assert pose.obs_names[-4:] == ["x_m", "y_m", "yaw_rad", "station_m"]
    assert pose.reset(seed=0)[0].shape == (len(acres.OBS_STATE) + 4 + 360,)


def test_a_person_crossing_the_lane_is_seen_in_the_scan():
    env = PolarisEnv(suite="crossing-person", moving="tracker")
    obs, info = env.reset(seed=0, options={"scenario": 4})
    assert info["scenario"] == 4
    reach = env._engine.reach_m
    seen = False
    while True:
        obs, r, term, trunc, info = env.step(np.array([0.0, 6.0], dtype=np.float32))
        seen |= bool((obs[len(acres.OBS_STATE):] < reach).any())
        if term or trunc:
            break
    assert seen


def test_bad_arguments_raise():
    with pytest.raises(acres.AcresError, match="action `steer`"):
        PolarisEnv(action="steer")
    with pytest.raises(acres.AcresError, match="`speed` is not a term"):
        PolarisEnv(reward_weights={"speed": 1.0})
    env = PolarisEnv()
    env.reset(seed=0)
    with pytest.raises(acres.AcresError, match="not a finite number"):
        env.step(np.array([np.nan, 1.0]))


def test_starts_are_randomised_within_their_ranges_and_seeded():
    env = PolarisEnv(suite=["crossing-person", "running-child"])
    assert env._engine.scenarios == 60
    fixed = PolarisEnv(random_start=False).reset(seed=0)[0]
    starts, seen = [], set()
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        s = info["start"]
        for k, (lo, hi) in acres.gym.START_RANGES.items():
            assert lo <= s[k] <= hi
        starts.append(tuple(s.values()))
        seen.add(info["scenario"])
        again = env.reset(seed=seed)
        assert again[1] == info and np.array_equal(again[0], obs)
    assert len(set(starts)) == 40 and len(seen) > 20
    # The opening scenario's start moved by the drawn offset, heading and speed.
    one = PolarisEnv()
    obs, info = one.reset(seed=3)
    s = info["start"]
    assert obs[0] == pytest.approx(s["speed_mps"], abs=1e-5)
    assert obs[2] == pytest.approx(fixed[2] + s["lateral_m"], abs=0.01)
    assert obs[3] == pytest.approx(fixed[3] + s["heading_rad"], abs=1e-4)
    obs, info = one.reset(seed=3, options={"random_start": False})
    assert "start" not in info and np.array_equal(obs, fixed)


def test_rgb_array_draws_the_vehicle_the_object_and_the_scan():
    env = PolarisEnv(render_mode="rgb_array", random_start=False)
    env.reset(seed=0)
    for _ in range(300):  # 30 s: at rest before the object
        obs, *_ = env.step(None)
    assert obs[0] == 0.0
    frame = env.render()
    assert frame.shape == (acres.gym.VIEW_PX, acres.gym.VIEW_PX, 3) and frame.dtype == np.uint8
    colour = acres.gym.COLOURS
    found = {k: np.argwhere((frame == v).all(axis=2)) for k, v in colour.items()}
    # The vehicle at the centre; the object it stopped before, 2.4 m or more ahead
    # (east, to the right), with the scan's returns on it; the route through the view.
    c = acres.gym.VIEW_PX / 2
    vy, vx = found["vehicle"].mean(axis=0)
    assert abs(vx - c) < 3 and abs(vy - c) < 3
    oy, ox = found["obstacle"].mean(axis=0)
    assert ox > c and abs(oy - c) < 5
    # The returns lie on the object's near face (dots of 3 pixels): the gap to the
    # vehicle's front is the stop's, 2.43 m (acres sim's gap_m).
    face = found["return"][:, 1].min() + 1
    gap_m = (face - found["vehicle"][:, 1].max()) * acres.gym.VIEW_M_PER_PX
    assert abs(gap_m - acres.run_scenario("opening")["gap_m"]) < 0.25, gap_m
    assert abs(found["return"][:, 1].mean() - ox) < 5
    assert len(found["route"]) > 300
    # An actor in view is drawn in its colour.
    env = PolarisEnv(render_mode="rgb_array", suite="crossing-person", moving="tracker", random_start=False)
    env.reset(seed=0, options={"scenario": 4})
    for _ in range(95):
        env.step(None)
    assert (env.render() == colour["actor"]).all(axis=2).any()


def test_check_env_passes_with_the_render_check():
    check_env(gym.make("acres/Polaris-v0", render_mode="rgb_array").unwrapped)
    with pytest.raises(acres.AcresError, match="rgb_array or human"):
        PolarisEnv(render_mode="ansi")
