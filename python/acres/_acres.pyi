"""Type stubs of the native part of acres (built from python/src/ by maturin)."""

from os import PathLike
from typing import Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
REASONS: List[str]
MARGIN_KEYS: List[str]
OBS_STATE: List[str]
TERMS: List[str]

class AcresError(ValueError):
    """A bad input, file, key or value, with the library's message."""

def stop_distance(
    speeds: npt.NDArray[np.float64], classes: List[str], grip: str = "unknown", config_dir: Optional[str] = None
) -> npt.NDArray[np.float64]: ...
def stop_cap(
    distances: npt.NDArray[np.float64], classes: List[str], grip: str = "unknown", config_dir: Optional[str] = None
) -> npt.NDArray[np.float64]: ...
def class_limits(class_name: str, grip: str = "unknown", config_dir: Optional[str] = None) -> str: ...

class Corridor:
    """A corridor raster: each cell a lower bound of the distance to excluded ground."""

    @staticmethod
    def load(path: Union[str, PathLike[str]]) -> Corridor: ...
    @staticmethod
    def build(
        route: Union[str, PathLike[str]] = "farm_yard_to_east_lane.json",
        map: Optional[Union[str, PathLike[str]]] = None,
        config_dir: Optional[Union[str, PathLike[str]]] = None,
        max_cells: int = 268435456,
    ) -> Corridor: ...
    def save(self, path: Union[str, PathLike[str]]) -> None: ...
    def query(self, points: npt.ArrayLike) -> npt.NDArray[np.float64]: ...
    @property
    def shape(self) -> Tuple[int, int]: ...
    @property
    def resolution_m(self) -> float: ...
    @property
    def origin_m(self) -> Tuple[float, float]: ...
    @property
    def epsg(self) -> Optional[int]: ...

class Checker:
    def __init__(
        self, route: str, corridor: Optional[Corridor] = None, config_dir: Optional[str] = None, grip: str = "unknown"
    ) -> None: ...
    @property
    def beams(self) -> int: ...
    def stations_of(self, start: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]: ...
    def check_arrays(
        self,
        offsets: npt.NDArray[np.float64],
        speeds: npt.NDArray[np.float64],
        start: npt.NDArray[np.float64],
        scans: Optional[npt.NDArray[np.float64]],
        margins: bool,
        start_station: npt.NDArray[np.float64],
        station_step: npt.NDArray[np.float64],
        reverse: npt.NDArray[np.bool_],
        strict: bool = False,
    ) -> Dict[str, object]: ...

class Chain:
    def __init__(
        self, route: str, config_dir: Optional[str] = None, moving: Optional[str] = None, grip: str = "unknown"
    ) -> None: ...
    def step_json(
        self,
        state: npt.NDArray[np.float64],
        scan: npt.NDArray[np.float64],
        chunk: Optional[str] = None,
        gear: Optional[str] = None,
        grade: float = 0.0,
    ) -> str: ...

class Sim:
    def __init__(self, scenario: str = "opening", config_dir: Optional[str] = None, moving: Optional[str] = None) -> None: ...
    def reset(self, scenario: Optional[str] = None) -> None: ...
    def step_json(self, curvature: Optional[float] = None, speed: Optional[float] = None, chunk: Optional[str] = None) -> str: ...
    @property
    def ended(self) -> bool: ...
    def summary_json(self) -> str: ...

_Outcome = Tuple[npt.NDArray[np.float32], List[float], bool, bool, str, Optional[str]]

class Engine:
    def __init__(
        self,
        scenarios: List[str],
        config_dir: Optional[str] = None,
        moving: Optional[str] = None,
        absolute_pose: bool = False,
    ) -> None: ...
    @property
    def scenarios(self) -> int: ...
    @property
    def obs_names(self) -> List[str]: ...
    @property
    def obs_bounds(self) -> Tuple[List[float], List[float]]: ...
    @property
    def command_limits(self) -> Tuple[float, float, float]: ...
    @property
    def reach_m(self) -> float: ...
    def reset(self, index: int) -> npt.NDArray[np.float32]: ...
    def step_command(self, curvature: float, speed: float, repeat: int = 1) -> _Outcome: ...
    def step_chunk(
        self, offsets: npt.NDArray[np.float64], speeds: npt.NDArray[np.float64], step_m: float, repeat: int = 1
    ) -> _Outcome: ...
    def step_driver(self, repeat: int = 1) -> _Outcome: ...

def run_scenario(scenario: str, moving: Optional[str] = None, config_dir: Optional[str] = None) -> str: ...
def suite_cases(name: str, config_dir: Optional[str] = None) -> str: ...
def scenario_names() -> List[str]: ...
