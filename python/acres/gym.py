"""The Gymnasium environment ``acres/Polaris-v0``: the simulated Polaris with the safety
chain in the loop (docs/python.md "Gymnasium").

``import acres.gym`` registers it; then ``gymnasium.make("acres/Polaris-v0", ...)`` or
``gymnasium.make_vec(...)`` make it. The shield is always in the loop: an action is a
request the chain limits, never a command sent past it.

Observation (float32), relative to the vehicle and the route and within finite bounds:
speed (m/s), yaw rate (rad/s), lateral offset and heading error on the route (m, rad),
the route's curvature 5 m ahead (1/m) and the route left (m), then the scan's ranges (m;
the reach where a beam has no return); ``absolute_pose=True`` adds x, y, yaw and station.

Actions (``action=``), normalised to [-1, 1] unless ``action_units="physical"``, each held
for ``frame_skip`` control steps (default 5: decisions at 10 Hz):
- ``"command"`` (default): Box(2) curvature and speed within the shield's actuator
  limits, in place of the default driver's request;
- ``"chunk"``: Box(2, K) a proposal chunk, lateral offsets (m, left of the route) and
  speeds (m/s) at K stations ``chunk_step_m`` apart from the vehicle's; the trajectory
  checker judges it and the default driver drives where it refuses.
``step(None)`` leaves the decision to the default driver.

Reward: the weighted sum of the decision's terms (``reward_weights``, defaults in
``DEFAULT_WEIGHTS``, docs/python.md gives the reasons): ``progress`` (m along the route,
signed), ``intervention`` and ``refused`` (control steps), ``collision`` (1 at a contact
or a rollover), ``comfort`` (m/s^2), ``standing`` (control steps at rest where the way is
clear) and ``arrival`` (1 at rest at the route's end). ``info`` holds each term and, at
the end, ``end``.

An episode is terminated at a collision, a rollover or on arrival, and truncated at the
scenario's duration. Episodes come from scenarios (shipped names, files, dicts) or a suite
with moving actors (``suite="crossing-person"``), one chosen at each reset by the
environment's random generator (or ``options={"scenario": i}``).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from . import _acres, suite_cases

DEFAULT_WEIGHTS: Dict[str, float] = {
    "progress": 1.0,
    "intervention": -0.002,
    "refused": -0.02,
    "collision": -100.0,
    "comfort": -0.0002,
    "standing": -0.02,
    "arrival": 20.0,
}
TERMS = tuple(_acres.TERMS)
ENV_ID = "acres/Polaris-v0"
ACTION_UNITS = ("normalized", "physical")


#: The ranges of a randomised start (``random_start=True``), each drawn uniformly: the
#: lateral offset from the scenario's start (m, either side), the turn of its heading
#: (rad, either way) and the speed (m/s).
START_RANGES: Dict[str, Tuple[float, float]] = {
    "lateral_m": (-1.0, 1.0),
    "heading_rad": (-0.15, 0.15),
    "speed_mps": (0.0, 3.0),
}


def _scenarios(
    scenario: Union[str, Dict[str, Any], Sequence[Union[str, Dict[str, Any]]]],
    suite: Union[None, str, Sequence[str]],
    config_dir: Optional[str],
) -> List[str]:
    if suite is not None:
        names = [suite] if isinstance(suite, str) else list(suite)
        return [json.dumps(c["scenario"]) for n in names for c in suite_cases(n, config_dir)]
    items = [scenario] if isinstance(scenario, (str, dict)) else list(scenario)
    return [json.dumps(s) if isinstance(s, dict) else str(s) for s in items]


#: The top view of ``render()``: pixels a side and metres a pixel (40 m across, the
#: vehicle at the centre, north up), and the colours (RGB) of what it draws.
VIEW_PX = 400
VIEW_M_PER_PX = 0.1
COLOURS: Dict[str, Tuple[int, int, int]] = {
    "ground": (236, 234, 222),
    "route": (120, 120, 120),
    "obstacle": (70, 70, 70),
    "actor": (200, 40, 40),
    "vehicle": (30, 90, 200),
    "return": (240, 140, 0),
}


def _fill(img: np.ndarray, ring: np.ndarray, colour: Tuple[int, int, int]) -> None:
    """Fills a polygon (pixel coordinates, x right, y down) by the crossing rule at each
    pixel centre of its bounding box."""
    h, w = img.shape[:2]
    x0, y0 = np.floor(ring.min(axis=0)).astype(int)
    x1, y1 = np.ceil(ring.max(axis=0)).astype(int)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w - 1), min(y1, h - 1)
    if x0 > x1 or y0 > y1:
        return
    px, py = np.meshgrid(np.arange(x0, x1 + 1) + 0.5, np.arange(y0, y1 + 1) + 0.5)
    inside = np.zeros(px.shape, dtype=bool)
    a, b = ring, np.roll(ring, -1, axis=0)
    for (ax, ay), (bx, by) in zip(a, b):
        if ay == by:
            continue
        crosses = (ay > py) != (by > py)
        xs = ax + (py - ay) * (bx - ax) / (by - ay)
        inside ^= crosses & (px < xs)
    img[y0 : y1 + 1, x0 : x1 + 1][inside] = colour


def _dots(img: np.ndarray, pts: np.ndarray, colour: Tuple[int, int, int], r: int) -> None:
    """Squares of side 2r + 1 pixels at each point (pixel coordinates)."""
    h, w = img.shape[:2]
    c = np.round(pts).astype(int)
    for dx in range(-r, r + 1):
        for dy in range(-r, r + 1):
            x, y = c[:, 0] + dx, c[:, 1] + dy
            ok = (x >= 0) & (x < w) & (y >= 0) & (y < h)
            img[y[ok], x[ok]] = colour


class PolarisEnv(gymnasium.Env):
    """The simulated Polaris on a scenario with the chain in the loop."""

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 10}

    def __init__(
        self,
        scenario: Union[str, Dict[str, Any], Sequence[Union[str, Dict[str, Any]]]] = "opening",
        suite: Union[None, str, Sequence[str]] = None,
        action: Literal["command", "chunk"] = "command",
        moving: Optional[Literal["off", "tracker", "oracle"]] = None,
        config_dir: Optional[str] = None,
        reward_weights: Optional[Dict[str, float]] = None,
        chunk_samples: int = 20,
        chunk_step_m: float = 0.5,
        render_mode: Optional[Literal["rgb_array", "human"]] = None,
        action_units: Literal["normalized", "physical"] = "normalized",
        frame_skip: int = 5,
        absolute_pose: bool = False,
        random_start: bool = True,
    ) -> None:
        # What pickling needs to build the environment again.
        self._kwargs: Dict[str, Any] = dict(
            scenario=scenario, suite=suite, action=action, moving=moving, config_dir=config_dir,
            reward_weights=reward_weights, chunk_samples=chunk_samples, chunk_step_m=chunk_step_m,
            render_mode=render_mode, action_units=action_units, frame_skip=frame_skip,
            absolute_pose=absolute_pose, random_start=random_start,
        )
        self._random_start = bool(random_start)
        self._start: Optional[Tuple[float, float, float]] = None
        self._index: Optional[int] = None
        self._decisions: List[Tuple[Any, ...]] = []
        if action not in ("command", "chunk"):
            raise _acres.AcresError(f"action `{action}`: command or chunk")
        if action_units not in ACTION_UNITS:
            raise _acres.AcresError(f"action_units `{action_units}`: normalized or physical")
        if int(frame_skip) < 1:
            raise _acres.AcresError(f"frame_skip {frame_skip}: at least 1 control step a decision")
        if render_mode not in (None, "rgb_array", "human"):
            raise _acres.AcresError(f"render_mode `{render_mode}`: rgb_array or human")
        self._figure: Any = None
        weights = dict(DEFAULT_WEIGHTS)
        for k, w in (reward_weights or {}).items():
            if k not in weights:
                raise _acres.AcresError(f"reward_weights: `{k}` is not a term ({', '.join(TERMS)})")
            weights[k] = float(w)
        self._w = np.array([weights[t] for t in TERMS])
        self._engine = _acres.Engine(
            _scenarios(scenario, suite, config_dir), config_dir, moving, bool(absolute_pose)
        )
        self._action = action
        self._normalized = action_units == "normalized"
        self._skip = int(frame_skip)
        self._k = int(chunk_samples)
        self._step_m = float(chunk_step_m)
        self.render_mode = render_mode
        lo, hi = self._engine.obs_bounds
        self.observation_space = spaces.Box(
            np.array(lo, dtype=np.float32), np.array(hi, dtype=np.float32), dtype=np.float32
        )
        kmax, vmin, vmax = self._engine.command_limits
        if action == "command":
            # Physical: curvature (1/m) and speed (m/s).
            self._lo = np.array([-kmax, vmin])
            self._hi = np.array([kmax, vmax])
        else:
            # Physical: offsets (m, left of the route) and speeds (m/s) at K stations.
            self._lo = np.stack([np.full(self._k, -5.0), np.zeros(self._k)])
            self._hi = np.stack([np.full(self._k, 5.0), np.full(self._k, vmax)])
        if self._normalized:
            self.action_space = spaces.Box(-1.0, 1.0, self._lo.shape, dtype=np.float32)
        else:
            self.action_space = spaces.Box(
                self._lo.astype(np.float32), self._hi.astype(np.float32), dtype=np.float32
            )

    @property
    def obs_names(self) -> List[str]:
        """The names of the observation's leading values (the scan's ranges follow)."""
        return list(self._engine.obs_names)

    def render(self) -> Optional[np.ndarray]:
        """A top view (``VIEW_PX`` square, ``VIEW_M_PER_PX`` metres a pixel, north up, the
        vehicle at the centre): the route, obstacles, actors, the vehicle and the scan's
        returns. ``rgb_array``: an (H, W, 3) uint8 array; ``human``: shown with
        matplotlib."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: give render_mode='rgb_array'")
            return None
        frame = self._top_view()
        if self.render_mode == "rgb_array":
            return frame
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            if self._figure is None:
                gymnasium.logger.warn("render_mode='human' shows the view with matplotlib, which is not installed")
                self._figure = False
            return None
        if self._figure is False:
            return None

        if self._figure is None:
            self._figure = plt.figure("acres")
            self._image = self._figure.gca().imshow(frame)
            self._figure.gca().set_axis_off()
        else:
            self._image.set_data(frame)
        plt.pause(1.0 / self.metadata["render_fps"])
        return None

    def _top_view(self) -> np.ndarray:
        path, vehicle, obstacles, actors, returns = self._engine.scene()
        img = np.empty((VIEW_PX, VIEW_PX, 3), dtype=np.uint8)
        img[:] = COLOURS["ground"]
        body = np.array(vehicle)
        # The footprint's centre (its ring repeats the first corner at the end).
        centre = body[:-1].mean(axis=0) if len(body) > 1 and (body[0] == body[-1]).all() else body.mean(axis=0)

        def px(xy: Any) -> np.ndarray:
            a = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
            return np.column_stack(
                [
                    (a[:, 0] - centre[0]) / VIEW_M_PER_PX + VIEW_PX / 2,
                    VIEW_PX / 2 - (a[:, 1] - centre[1]) / VIEW_M_PER_PX,
                ]
            )

        route = np.array(path)
        if len(route) > 1:
            # The route's polyline, sampled every half pixel.
            seg = np.diff(route, axis=0)
            n = np.maximum(1, np.ceil(np.hypot(seg[:, 0], seg[:, 1]) / (VIEW_M_PER_PX / 2))).astype(int)
            pts = np.concatenate(
                [route[i] + np.outer(np.arange(k) / k, seg[i]) for i, k in enumerate(n)]
            )
            _dots(img, px(pts), COLOURS["route"], 1)
        for ring in obstacles:
            _fill(img, px(ring), COLOURS["obstacle"])
        for ring in actors:
            _fill(img, px(ring), COLOURS["actor"])
        _fill(img, px(body), COLOURS["vehicle"])
        if returns:
            _dots(img, px(returns), COLOURS["return"], 1)
        return img

    def close(self) -> None:
        if self._figure:
            import matplotlib.pyplot as plt

            plt.close(self._figure)
        self._figure = None

    def default_action(self) -> None:
        """The action that leaves the decision to the default driver: ``env.step(None)``."""
        return None

    def physical(self, action: Any) -> np.ndarray:
        """An action in the environment's units as physical units (float64), or AcresError
        naming the expected shape or the first value that is not finite."""
        a = np.asarray(action, dtype=np.float64)
        shape = self.action_space.shape
        if a.shape != shape:
            raise _acres.AcresError(f"action: shape {a.shape}, expected {shape}")
        bad = np.flatnonzero(~np.isfinite(a))
        if bad.size:
            i = tuple(int(k) for k in np.unravel_index(bad[0], shape))
            raise _acres.AcresError(f"action{list(i)} is {a[i]}, not a finite number")
        if self._normalized:
            a = self._lo + (np.clip(a, -1.0, 1.0) + 1.0) * 0.5 * (self._hi - self._lo)
        return np.clip(a, self._lo, self._hi)

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        n = self._engine.scenarios
        index = (options or {}).get("scenario")
        if index is None:
            index = int(self.np_random.integers(n)) if n > 1 else 0
        elif not isinstance(index, (int, np.integer)) or not 0 <= index < n:
            raise ValueError(f"options['scenario'] {index!r}: an index from 0 to {n - 1}")
        start = None
        if self._random_start and (options or {}).get("random_start", True):
            start = tuple(float(self.np_random.uniform(*START_RANGES[k])) for k in START_RANGES)
        obs = self._engine.reset(int(index), start)
        self._index, self._start, self._decisions = int(index), start, []
        info: Dict[str, Any] = {"scenario": int(index)}
        if start is not None:
            info["start"] = dict(zip(START_RANGES, start))
        return obs, info

    def _decide(self, d: Tuple[Any, ...]) -> Any:
        """One decision (``("driver",)``, ``("command", k, v)`` or ``("chunk", o, s)``) on
        the engine, recorded for pickling."""
        if d[0] == "driver":
            out = self._engine.step_driver(self._skip)
        elif d[0] == "command":
            out = self._engine.step_command(d[1], d[2], self._skip)
        else:
            out = self._engine.step_chunk(d[1], d[2], self._step_m, self._skip)
        self._decisions.append(d)
        return out

    def __getstate__(self) -> Dict[str, Any]:
        # The simulation has no serialized form: the arguments, the episode's scenario
        # and its decisions so far, taken again on the way back (deterministic: the same
        # state, bit for bit), and the random generator.
        return {
            "kwargs": self._kwargs,
            "index": self._index,
            "start": self._start,
            "decisions": list(self._decisions),
            "np_random": self._np_random,
            "np_random_seed": getattr(self, "_np_random_seed", None),
        }

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__init__(**state["kwargs"])  # type: ignore[misc]
        self._np_random = state["np_random"]
        self._np_random_seed = state["np_random_seed"]
        if state["index"] is not None:
            self._engine.reset(state["index"], state["start"])
            self._index, self._start = state["index"], state["start"]
            for d in state["decisions"]:
                self._decide(d)

    def __copy__(self) -> "PolarisEnv":
        # A shallow copy would share the simulation: a copy is a whole one.
        import copy

        return copy.deepcopy(self)

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        if action is None:
            out = self._decide(("driver",))
        elif self._action == "command":
            a = self.physical(action)
            out = self._decide(("command", float(a[0]), float(a[1])))
        else:
            a = self.physical(action)
            out = self._decide(("chunk", np.ascontiguousarray(a[0]), np.ascontiguousarray(a[1])))
        obs, terms, terminated, truncated, source, end = out
        reward = float(np.dot(self._w, terms))
        info: Dict[str, Any] = dict(zip(TERMS, terms))
        info["source"] = source
        if end is not None:
            info["end"] = end
        return obs, reward, terminated, truncated, info


def register_envs() -> None:
    """Registers ``acres/Polaris-v0`` (done on import of this module)."""
    if ENV_ID not in gymnasium.envs.registry:
        gymnasium.register(id=ENV_ID, entry_point="acres.gym:PolarisEnv")


register_envs()
