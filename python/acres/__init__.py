"""acres from Python: the speed envelope's stop rule, corridor rasters, the trajectory
checker over numpy arrays, the command chain and the simulated Polaris (docs/python.md).

Every call runs in Rust without the GIL; bad input raises :class:`AcresError` (a
``ValueError``) with the library's message naming the argument, file, key or line.
The Gymnasium environment is in :mod:`acres.gym`.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Literal, Optional, Sequence, Union

import numpy as np

from . import _acres
from ._acres import MARGIN_KEYS, OBS_STATE, REASONS, AcresError, Corridor, __version__

__all__ = [
    "AcresError",
    "Chain",
    "Checker",
    "Corridor",
    "MARGIN_KEYS",
    "OBS_STATE",
    "REASONS",
    "Sim",
    "class_limits",
    "run_scenario",
    "scenario_names",
    "stop_cap",
    "stop_distance",
    "suite_cases",
    "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]
#: The envelope's grip levels (the tables of envelope_v1.json).
Grip = Literal["unknown", "dry"]
#: The moving-object rule's modes: off, on the tracker's tracks, on the true actor states.
Moving = Literal["off", "tracker", "oracle"]


def _floats(name: str, x: Any, ndim: int, rows: Optional[int] = None) -> np.ndarray:
    """``x`` as a C-contiguous float64 array of ``ndim`` dimensions, or AcresError naming it."""
    a = np.asarray(x)
    if a.dtype.kind not in "fiub":
        raise AcresError(f"{name}: dtype {a.dtype}, expected numbers (float64)")
    if a.ndim != ndim:
        raise AcresError(f"{name}: {a.ndim} dimensions (shape {a.shape}), expected {ndim}")
    if rows is not None and a.shape[0] != rows:
        raise AcresError(f"{name}: {a.shape[0]} rows, expected {rows}")
    return np.ascontiguousarray(a, dtype=np.float64)


def _per_row(name: str, x: Any, n: int, dtype: Any) -> np.ndarray:
    """A scalar repeated ``n`` times, or an array of ``n`` values."""
    a = np.asarray(x)
    if a.ndim == 0:
        a = np.full(n, a.item())
    if a.dtype.kind not in "fiub":
        raise AcresError(f"{name}: dtype {a.dtype}, expected numbers")
    if a.shape != (n,):
        raise AcresError(f"{name}: shape {a.shape}, expected a scalar or ({n},)")
    return np.ascontiguousarray(a, dtype=dtype)


def _classes(classes: Union[str, Sequence[str]]) -> List[str]:
    return [classes] if isinstance(classes, str) else [str(c) for c in classes]


def stop_distance(
    speeds: Any,
    classes: Union[str, Sequence[str]] = "unknown",
    grip: Grip = "unknown",
    config_dir: Optional[PathLike] = None,
) -> np.ndarray:
    """The stop distance ``d_stop(v) = v T + v^2 / (2 a) + d_m`` (m) of each speed (m/s,
    a magnitude) on its ground class (one for all, or one a speed) at the grip level."""
    v = _floats("speeds", np.atleast_1d(speeds), 1)
    return _acres.stop_distance(v, _classes(classes), grip, _path(config_dir))


def stop_cap(
    distances: Any,
    classes: Union[str, Sequence[str]] = "unknown",
    grip: Grip = "unknown",
    config_dir: Optional[PathLike] = None,
) -> np.ndarray:
    """The stop cap (m/s): the largest speed whose stop distance fits each free distance (m)."""
    d = _floats("distances", np.atleast_1d(distances), 1)
    return _acres.stop_cap(d, _classes(classes), grip, _path(config_dir))


def class_limits(
    class_name: str, grip: Grip = "unknown", config_dir: Optional[PathLike] = None
) -> Dict[str, float]:
    """The limits of a ground class: speed, deceleration, obstacle margin, stop time and
    lateral acceleration."""
    return json.loads(_acres.class_limits(class_name, grip, _path(config_dir)))


def _path(p: Optional[PathLike]) -> Optional[str]:
    return None if p is None else os.fspath(p)


class Checker:
    """The trajectory checker on a route (a file or a shipped route's name), with a
    corridor for the point and corridor rules where one is given."""

    def __init__(
        self,
        route: PathLike,
        corridor: Optional[Corridor] = None,
        config_dir: Optional[PathLike] = None,
        grip: Grip = "unknown",
    ) -> None:
        self._args = (os.fspath(route), corridor, _path(config_dir), grip)
        self._inner = _acres.Checker(*self._args)

    def __reduce__(self) -> Any:
        # Built again from its arguments (the corridor pickles as its file's bytes).
        route, corridor, config_dir, grip = self._args
        return (Checker, (route, corridor, config_dir, grip))

    @property
    def beams(self) -> int:
        """The beams of a scan row."""
        return self._inner.beams

    def check(
        self,
        offsets: Any,
        speeds: Any,
        start: Any,
        scans: Any = None,
        margins: bool = False,
        *,
        start_station: Any = None,
        station_step: Any = 0.5,
        reverse: Any = False,
        strict: bool = False,
    ) -> Dict[str, Any]:
        """Checks N chunks of K samples on all cores.

        offsets, speeds: (N, K) lateral offsets from the route (m, left positive) and speeds
        (m/s) at stations ``start_station + k * station_step``; start: (N, 5) the start state
        (x, y, yaw, speed, curvature); scans: (N, beams) ranges taken at the start state
        (inf: no return) or None (the obstacle rule then sees nothing); start_station,
        station_step, reverse: a scalar or one a chunk (start_station by default the
        station of each start's projection on the route); strict: refuse (reason
        ``unchecked``) a chunk that passes only because a rule lacked its input: the
        obstacle rule without ``scans``, the point and corridor rules without a corridor.

        Returns a dict of arrays: ``accepted`` (bool), ``reason`` (an index of REASONS, -1
        where accepted), ``first_index`` (-1: none), ``value`` and ``limit`` (NaN: none),
        ``note`` (a list: the words of a malformed or unchecked verdict), ``unchecked`` (a
        list: for each chunk, the tuple of rules that did not run for lack of input, e.g.
        ``("obstacle",)`` without ``scans``; an acceptance claims nothing about them), and
        with ``margins=True`` ``margins`` and ``margin_index`` (N, len(MARGIN_KEYS)).
        """
        o = _floats("offsets", offsets, 2)
        n = o.shape[0]
        s = _floats("speeds", speeds, 2, n)
        st = _floats("start", start, 2, n)
        sc = None if scans is None else _floats("scans", scans, 2, n)
        if start_station is None:
            start_station = self._inner.stations_of(st)
        return self._inner.check_arrays(
            o,
            s,
            st,
            sc,
            bool(margins),
            _per_row("start_station", start_station, n, np.float64),
            _per_row("station_step", station_step, n, np.float64),
            _per_row("reverse", reverse, n, np.bool_),
            bool(strict),
        )


class _Replayed:
    """Pickles as its native object's arguments and the steps so far, taken again on the way
    back: the native state has no serialized form, and the simulation is deterministic, so
    the copy goes on from the same state, bit for bit."""

    _native: Any

    def _start(self, args: Sequence[Any]) -> None:
        self._args = tuple(args)
        self._inner = self._native(*self._args)
        self._steps: List[Any] = []

    def _step(self, *call: Any) -> str:
        out = self._inner.step_json(*call)
        self._steps.append(call)
        return out

    def __getstate__(self) -> Dict[str, Any]:
        return {"args": self._args, "steps": list(self._steps)}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self._start(state["args"])
        for call in state["steps"]:
            self._step(*call)


class Chain(_Replayed):
    """The command chain on a route: the default driver (or a chunk the checker accepts),
    the shield, the rate limits and the gear logic, one control step a call."""

    _native = _acres.Chain

    def __init__(
        self,
        route: PathLike,
        config_dir: Optional[PathLike] = None,
        moving: Optional[Moving] = None,
        grip: Grip = "unknown",
    ) -> None:
        self._start((os.fspath(route), _path(config_dir), moving, grip))

    def step(
        self,
        state: Any,
        scan: Any,
        chunk: Optional[Dict[str, Any]] = None,
        gear: Optional[str] = None,
        grade: float = 0.0,
    ) -> Dict[str, Any]:
        """One control step from the state (x, y, yaw, speed, yaw rate), the scan's ranges
        (inf: no return) and an optional chunk (a dict with a chunk file's keys); returns
        the command row (the keys of a log's ``row``)."""
        st = _floats("state", state, 1)
        sc = _floats("scan", scan, 1)
        text = None if chunk is None else json.dumps(chunk)
        return json.loads(self._step(st.copy(), sc.copy(), text, gear, float(grade)))


def _scenario(s: Union[PathLike, Dict[str, Any]]) -> str:
    return json.dumps(s) if isinstance(s, dict) else os.fspath(s)


class Sim(_Replayed):
    """A scenario (a shipped name, a file, JSON text or a dict) on the simulated Polaris
    with the chain in the loop, a control step a call."""

    _native = _acres.Sim

    def __init__(
        self,
        scenario: Union[PathLike, Dict[str, Any]] = "opening",
        config_dir: Optional[PathLike] = None,
        moving: Optional[Moving] = None,
    ) -> None:
        self._start((_scenario(scenario), _path(config_dir), moving))

    def reset(self, scenario: Union[PathLike, Dict[str, Any], None] = None) -> None:
        """Back to the start of the scenario, or of another."""
        if scenario is not None:
            self._args = (_scenario(scenario),) + self._args[1:]
        self._inner.reset(None if scenario is None else _scenario(scenario))
        self._steps = []

    def step(
        self,
        curvature: Optional[float] = None,
        speed: Optional[float] = None,
        chunk: Optional[Dict[str, Any]] = None,
    ) -> Dict[str, Any]:
        """One control step: the driver (no argument), a fixed curvature and speed, or a
        chunk, always through the shield; returns the log record (state, scan, row, dbw)."""
        text = None if chunk is None else json.dumps(chunk)
        return json.loads(self._step(curvature, speed, text))

    @property
    def ended(self) -> bool:
        """Whether the run has ended (its duration, a collision, or at rest)."""
        return self._inner.ended

    def summary(self) -> Dict[str, Any]:
        """The run's summary (the keys of ``acres sim --format json``)."""
        return json.loads(self._inner.summary_json())

    def run(self) -> Dict[str, Any]:
        """Steps with the driver to the end; returns the summary."""
        while not self.ended:
            self._step(None, None, None)
        return self.summary()


def run_scenario(
    scenario: Union[PathLike, Dict[str, Any]],
    moving: Optional[Moving] = None,
    config_dir: Optional[PathLike] = None,
) -> Dict[str, Any]:
    """Runs a scenario to its end with the driver; returns the summary."""
    return json.loads(_acres.run_scenario(_scenario(scenario), moving, _path(config_dir)))


def suite_cases(name: str, config_dir: Optional[PathLike] = None) -> List[Dict[str, Any]]:
    """The 30 scenarios of a suite (``crossing-person``, ``oncoming-vehicle``,
    ``running-child``, ``crossing-machine`` or ``static-clutter``): name, class, speed_mps,
    parameter and ``scenario`` (a dict, what ``acres sim --scenario`` reads)."""
    cases = json.loads(_acres.suite_cases(name, _path(config_dir)))
    for c in cases:
        c["scenario"] = json.loads(c["scenario"])
    return cases


def scenario_names() -> List[str]:
    """The shipped scenarios, by name."""
    return list(_acres.scenario_names())
