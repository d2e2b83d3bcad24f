#!/usr/bin/env python3
"""Trains a PPO policy (stable-baselines3) on `acres/Polaris-v0` and compares it with the
default driver, standing still and random actions (docs/python.md "Training").

    pip install "./python[train]"        # stable-baselines3, torch, matplotlib
    python examples/python/train_ppo.py --steps 200000 --out target/ppo

The environment is the default one (normalised actions, 10 Hz decisions, randomised
starts) on the opening scenario and the crossing-person suite with the tracker rule. The
run writes the learning curve (``curve.csv``, ``curve.png``: the return of each training
episode and its moving mean) and the evaluation (``evaluation.json``): for each policy,
on a fixed set of episodes (the same scenarios and starts for every policy), the mean
return, progress (m along the route), arrivals and collisions.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import time
from typing import Any, Callable, Dict, List, Optional

import numpy as np

import acres
import acres.gym  # noqa: F401  (registers the environment)
from acres.gym import PolarisEnv

def make_env(seed: int) -> PolarisEnv:
    """The training environment: the opening scenario and the crossing-person suite."""
    cases = [c["scenario"] for c in acres.suite_cases("crossing-person")]
    env = PolarisEnv(scenario=["opening"] + cases, moving="tracker")
    env.reset(seed=seed)
    return env


def evaluate(policy: Callable[[np.ndarray], Any], episodes: int, seed: int) -> Dict[str, float]:
    """Mean return, progress, arrivals and collisions of a policy over fixed episodes."""
    env = make_env(seed)
    n = env._engine.scenarios
    returns, progress, arrived, collided = [], [], 0, 0
    for k in range(episodes):
        obs, _ = env.reset(seed=seed + k, options={"scenario": (k * 7) % n})
        total = dist = 0.0
        while True:
            obs, r, term, trunc, info = env.step(policy(obs))
            total += r
            dist += info["progress"]
            if term or trunc:
                break
        returns.append(total)
        progress.append(dist)
        arrived += info.get("end") == "arrived"
        collided += info.get("end") in ("collision", "rollover")
    return {
        "episodes": episodes,
        "mean_return": float(np.mean(returns)),
        "mean_progress_m": float(np.mean(progress)),
        "arrived": arrived,
        "collisions": collided,
    }


def plot(curve: List[Dict[str, float]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = np.array([c["timesteps"] for c in curve])
    r = np.array([c["return"] for c in curve])
    k = min(20, len(r))
    mean = np.convolve(r, np.ones(k) / k, mode="valid")
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(t, r, ".", ms=3, alpha=0.4, label="training episode")
    ax.plot(t[k - 1 :], mean, lw=2, label=f"mean of {k}")
    ax.set_xlabel("decisions (10 Hz)")
    ax.set_ylabel("episode return")
    ax.set_title("PPO on acres/Polaris-v0 (opening + crossing-person)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: Optional[List[str]] = None) -> int:
    from stable_baselines3 import PPO
    from stable_baselines3.common.monitor import Monitor

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=200_000, help="training decisions")
    ap.add_argument("--episodes", type=int, default=31, help="evaluation episodes a policy")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="target/ppo", help="folder for the curve, the plot and the results")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)

    env = Monitor(make_env(a.seed))
    model = PPO("MlpPolicy", env, seed=a.seed, verbose=0)
    t0, c0 = time.time(), time.process_time()
    model.learn(total_timesteps=a.steps)
    wall, cpu = time.time() - t0, time.process_time() - c0
    lengths, rewards = env.get_episode_lengths(), env.get_episode_rewards()
    curve = [
        {"timesteps": int(t), "return": float(r)}
        for t, r in zip(np.cumsum(lengths), rewards)
    ]
    with open(os.path.join(a.out, "curve.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["timesteps", "return"])
        w.writeheader()
        w.writerows(curve)
    plot(curve, os.path.join(a.out, "curve.png"))
    model.save(os.path.join(a.out, "ppo_polaris"))

    probe = make_env(a.seed)
    space = probe.action_space
    rng = np.random.default_rng(a.seed)
    _, vmin, vmax = probe._engine.command_limits
    stand = np.array([0.0, -1.0 + 2.0 * (0.0 - vmin) / (vmax - vmin)], dtype=np.float32)
    policies: Dict[str, Callable[[np.ndarray], Any]] = {
        "ppo": lambda o: model.predict(o, deterministic=True)[0],
        "default driver": lambda o: None,
        "standing still": lambda o: stand,
        "random": lambda o: rng.uniform(space.low, space.high).astype(np.float32),
    }
    results = {name: evaluate(p, a.episodes, 1000 + a.seed) for name, p in policies.items()}
    report = {"training": {"decisions": a.steps, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
                           "episodes": len(rewards)}, "evaluation": results}
    with open(os.path.join(a.out, "evaluation.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(f"trained {a.steps} decisions in {wall:.0f} s ({cpu:.0f} CPU-s), {len(rewards)} episodes")
    print(f"{'policy':<16} {'return':>8} {'progress m':>11} {'arrived':>8} {'collisions':>10}")
    for name, r in results.items():
        print(f"{name:<16} {r['mean_return']:>8.1f} {r['mean_progress_m']:>11.1f} "
              f"{r['arrived']:>8} {r['collisions']:>10}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
