"""The Gymnasium environment ``acres/Polaris-v0``: the simulated Polaris with the safety
chain in the loop (docs/python.md "Gymnasium").

``import acres.gym`` registers it; then ``gymnasium.make("acres/Polaris-v0", ...)`` or
``gymnasium.make_vec(...)`` make it. The shield is always in the loop: an action is a
request the chain limits, never a command sent past it.

Observation (float32): x, y, yaw (m, rad), speed, yaw rate (m/s, rad/s), station, lateral
offset and heading error on the route (m, m, rad), then the scan's ranges (m; the reach
where a beam has no return).

Actions (``action=``):
- ``"command"`` (default): Box(2) curvature (1/m) and speed (m/s) within the shield's
  actuator limits, in place of the default driver's request;
- ``"chunk"``: Box(2, K) a proposal chunk, lateral offsets (m, left of the route) and
  speeds (m/s) at K stations ``chunk_step_m`` apart from the vehicle's; the trajectory
  checker judges it and the default driver drives where it refuses.

Reward: the weighted sum of the step's terms (``reward_weights``, defaults in
``DEFAULT_WEIGHTS``): ``progress`` (m along the route), ``intervention`` (1 where the
shield limited the request), ``refused`` (1 for a refused chunk), ``collision`` (1 at a
contact, which ends the episode) and ``comfort`` (m/s^2: the change of the commanded speed
over the step plus the commanded lateral acceleration). ``info`` holds each term.

An episode ends (terminated) at a collision or at rest at the route's end or standing; it
is truncated at the scenario's duration. Episodes come from scenarios (shipped names,
files, dicts) or a suite with moving actors (``suite="crossing-person"``), one chosen at
each reset by the environment's random generator (or ``options={"scenario": i}``).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from . import _acres, suite_cases

DEFAULT_WEIGHTS: Dict[str, float] = {
    "progress": 1.0,
    "intervention": -0.1,
    "refused": -0.5,
    "collision": -100.0,
    "comfort": -0.01,
}
TERMS = ("progress", "intervention", "refused", "collision", "comfort")
ENV_ID = "acres/Polaris-v0"


def _scenarios(
    scenario: Union[str, Dict[str, Any], Sequence[Union[str, Dict[str, Any]]]],
    suite: Optional[str],
    config_dir: Optional[str],
) -> List[str]:
    if suite is not None:
        return [json.dumps(c["scenario"]) for c in suite_cases(suite, config_dir)]
    items = [scenario] if isinstance(scenario, (str, dict)) else list(scenario)
    return [json.dumps(s) if isinstance(s, dict) else str(s) for s in items]


class PolarisEnv(gymnasium.Env):
    """The simulated Polaris on a scenario with the chain in the loop."""

    metadata = {"render_modes": []}

    def __init__(
        self,
        scenario: Union[str, Dict[str, Any], Sequence[Union[str, Dict[str, Any]]]] = "opening",
        suite: Optional[str] = None,
        action: str = "command",
        moving: Optional[str] = None,
        config_dir: Optional[str] = None,
        reward_weights: Optional[Dict[str, float]] = None,
        chunk_samples: int = 20,
        chunk_step_m: float = 0.5,
        render_mode: Optional[str] = None,
    ) -> None:
        if action not in ("command", "chunk"):
            raise _acres.AcresError(f"action `{action}`: command or chunk")
        weights = dict(DEFAULT_WEIGHTS)
        for k, w in (reward_weights or {}).items():
            if k not in weights:
                raise _acres.AcresError(f"reward_weights: `{k}` is not a term ({', '.join(TERMS)})")
            weights[k] = float(w)
        self._w = np.array([weights[t] for t in TERMS])
        self._engine = _acres.Engine(_scenarios(scenario, suite, config_dir), config_dir, moving)
        self._action = action
        self._k = int(chunk_samples)
        self._step_m = float(chunk_step_m)
        self.render_mode = render_mode
        n = self._engine.obs_len
        lead = len(_acres.OBS_STATE)
        low = np.full(n, -np.inf, dtype=np.float32)
        high = np.full(n, np.inf, dtype=np.float32)
        low[lead:] = 0.0
        high[lead:] = self._engine.reach_m
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        kmax, vmin, vmax = self._engine.command_limits
        if action == "command":
            self.action_space = spaces.Box(
                np.array([-kmax, vmin], dtype=np.float32),
                np.array([kmax, vmax], dtype=np.float32),
                dtype=np.float32,
            )
        else:
            lo = np.stack([np.full(self._k, -5.0), np.zeros(self._k)]).astype(np.float32)
            hi = np.stack([np.full(self._k, 5.0), np.full(self._k, vmax)]).astype(np.float32)
            self.action_space = spaces.Box(lo, hi, dtype=np.float32)

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        n = self._engine.scenarios
        index = (options or {}).get("scenario")
        if index is None:
            index = int(self.np_random.integers(n)) if n > 1 else 0
        obs = self._engine.reset(int(index))
        return obs, {"scenario": int(index)}

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        a = np.asarray(action, dtype=np.float64)
        if self._action == "command":
            out = self._engine.step_command(float(a[0]), float(a[1]))
        else:
            out = self._engine.step_chunk(
                np.ascontiguousarray(a[0]), np.ascontiguousarray(a[1]), self._step_m
            )
        obs, terms, terminated, truncated, source = out
        reward = float(
            self._w[0] * terms[0]
            + self._w[1] * terms[1]
            + self._w[2] * terms[2]
            + self._w[3] * terms[3]
            + self._w[4] * terms[4]
        )
        info = dict(zip(TERMS, terms))
        info["source"] = source
        return obs, reward, terminated, truncated, info


def register_envs() -> None:
    """Registers ``acres/Polaris-v0`` (done on import of this module)."""
    if ENV_ID not in gymnasium.envs.registry:
        gymnasium.register(id=ENV_ID, entry_point="acres.gym:PolarisEnv")


register_envs()
