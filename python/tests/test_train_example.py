"""The training example's harness (examples/python/train_ppo.py) without its trainer:
stable-baselines3 and torch stay out of the tests (several GB); its environment and its
evaluation run here."""

import sys

import numpy as np

from conftest import ROOT

sys.path.insert(0, str(ROOT / "examples" / "python"))
import train_ppo  # noqa: E402


def test_the_evaluation_ranks_the_default_driver_above_standing_still():
    env = train_ppo.make_env(0)
    assert env._engine.scenarios == 31
    _, vmin, vmax = env._engine.command_limits
    stand = np.array([0.0, -1.0 + 2.0 * (0.0 - vmin) / (vmax - vmin)], dtype=np.float32)
    driver = train_ppo.evaluate(lambda o: None, 3, 1000)
    still = train_ppo.evaluate(lambda o: stand, 3, 1000)
    assert set(driver) == {"episodes", "mean_return", "mean_progress_m", "arrived", "collisions"}
    assert driver["collisions"] == 0 and driver["arrived"] >= 2
    assert driver["mean_progress_m"] > 50.0 > still["mean_progress_m"]
    assert driver["mean_return"] > still["mean_return"] + 50.0
