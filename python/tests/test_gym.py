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
def test_check_env_passes(kwargs):
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


def test_the_driver_alone_reaches_the_object_and_the_terms_add_up():
    env = PolarisEnv(reward_weights={"progress": 2.0, "comfort": 0.0})
    obs, info = env.reset(seed=0)
    progress = total = 0.0
    steps = 0
    while True:
        # Straight on at 3 m/s: the shield stops the vehicle before the object.
        obs, r, term, trunc, info = env.step(np.array([0.0, 3.0], dtype=np.float32))
        progress += info["progress"]
        total += r
        steps += 1
        expect = 2.0 * info["progress"] - 0.1 * info["intervention"] - 0.5 * info["refused"] - 100 * info["collision"]
        assert r == pytest.approx(expect)
        if term or trunc:
            break
    assert term and not trunc and info["collision"] == 0.0
    assert 15.0 < progress < 30.0, progress
    assert obs[3] == pytest.approx(0.0, abs=0.05)  # standing
    # The object is within the scan's reach.
    assert (obs[len(acres.OBS_STATE):] < env._engine.reach_m).any()


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
    with pytest.raises(acres.AcresError, match="not finite"):
        env.step(np.array([np.nan, 1.0]))
