//! `acres.Checker`: the trajectory checker over arrays of chunks (vehicle-software.md
//! "Trajectory Checker"; the batch form a trainer calls), on all cores without the GIL.

use crate::{arrays, config, err, ground};
use acres::chain::checker::chunk::{Chunk, StartState};
use acres::chain::checker::margins::Margins;
use acres::chain::checker::{CheckResult, Reason, TrajectoryChecker, Unchecked, world_returns};
use acres::chain::path::{Direction, Path};
use acres::chain::scan::{Scan, ScanGeometry};
use numpy::ndarray::{Array2, ArrayView1, ArrayView2};
use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use std::sync::Arc;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyChecker>()?;
    let reasons: Vec<&str> = Reason::ALL.iter().map(|r| r.code()).collect();
    m.add("REASONS", reasons)?;
    m.add("MARGIN_KEYS", Margins::KEYS.to_vec())?;
    Ok(())
}

/// The trajectory checker on one route, with an optional corridor.
#[pyclass(name = "Checker", module = "acres._acres", frozen)]
pub struct PyChecker {
    checker: TrajectoryChecker,
    route: Arc<Path>,
    geometry: ScanGeometry,
}

/// The per-chunk inputs besides the arrays of samples.
struct Rows<'a> {
    offsets: ArrayView2<'a, f64>,
    speeds: ArrayView2<'a, f64>,
    start: ArrayView2<'a, f64>,
    scans: Option<ArrayView2<'a, f64>>,
    start_station: Vec<f64>,
    station_step: Vec<f64>,
    reverse: Vec<bool>,
}

/// One verdict: the result and the margins where asked.
type Verdict = (CheckResult, Option<Margins>);

#[pymethods]
impl PyChecker {
    #[new]
    #[pyo3(signature = (route, corridor = None, config_dir = None, grip = "unknown"))]
    fn new(
        route: &str,
        corridor: Option<&Bound<'_, ground::PyCorridor>>,
        config_dir: Option<std::path::PathBuf>,
        grip: &str,
    ) -> PyResult<PyChecker> {
        let cfg = config(config_dir)?;
        let grip = grip.parse().map_err(err)?;
        let mut checker = TrajectoryChecker::new(&cfg, grip)
            .ok_or_else(|| err(format!("the envelope has no `grips.{grip}` table")))?;
        if let Some(c) = corridor {
            checker = checker.with_corridor(c.get().inner.clone());
        }
        let v = &cfg.control.vehicle;
        Ok(PyChecker {
            checker,
            route: Arc::new(ground::route(route, None)?),
            geometry: ScanGeometry::new(
                cfg.control.corridor.beams as usize,
                (v.scan_mount_x_m, v.scan_mount_y_m),
                cfg.control.corridor.range_m,
            ),
        })
    }

    /// The number of beams a scan row must have.
    #[getter]
    fn beams(&self) -> usize {
        self.geometry.beams()
    }

    /// The station of each start (an (N, 5) array's x, y) on the route: its projection on
    /// the nearest part of the route, m (a chunk's default start station).
    fn stations_of<'py>(
        &self,
        py: Python<'py>,
        start: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, numpy::PyArray1<f64>>> {
        let a = start.as_array();
        arrays::cols("start", &a, None, Some(5))?;
        arrays::finite2("start", &a)?;
        let route = &self.route;
        // The projections without the GIL (a search over the route per start).
        let out: Vec<f64> = py.detach(|| {
            a.rows()
                .into_iter()
                .map(|r| {
                    let here = geo::Coord { x: r[0], y: r[1] };
                    route
                        .parts()
                        .iter()
                        .map(|part| route.project(here, part, None))
                        .min_by(|p, q| {
                            let d = |x: &acres::chain::path::Projection| {
                                (x.point.x - here.x).hypot(x.point.y - here.y)
                            };
                            d(p).total_cmp(&d(q))
                        })
                        .map_or(0.0, |p| p.station_m)
                })
                .collect()
        });
        Ok(out.into_pyarray(py))
    }

    /// Checks N chunks of K samples; see the Python stub for the arguments and the result.
    #[pyo3(signature = (offsets, speeds, start, scans, margins, start_station, station_step, reverse, strict = false))]
    #[allow(clippy::too_many_arguments)]
    fn check_arrays<'py>(
        &self,
        py: Python<'py>,
        offsets: PyReadonlyArray2<'py, f64>,
        speeds: PyReadonlyArray2<'py, f64>,
        start: PyReadonlyArray2<'py, f64>,
        scans: Option<PyReadonlyArray2<'py, f64>>,
        margins: bool,
        start_station: PyReadonlyArray1<'py, f64>,
        station_step: PyReadonlyArray1<'py, f64>,
        reverse: PyReadonlyArray1<'py, bool>,
        strict: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let rows = Rows {
            offsets: offsets.as_array(),
            speeds: speeds.as_array(),
            start: start.as_array(),
            scans: scans.as_ref().map(|s| s.as_array()),
            start_station: start_station.as_array().to_vec(),
            station_step: station_step.as_array().to_vec(),
            reverse: reverse.as_array().to_vec(),
        };
        self.validate(&rows)?;
        let unchecked = Unchecked::of(rows.scans.is_some(), self.checker.corridor().is_some());
        let mut verdicts = py.detach(|| self.run(&rows, margins));
        if strict {
            verdicts = verdicts
                .into_iter()
                .map(|(r, m)| (unchecked.strict(r), m))
                .collect();
        }
        let d = results(py, &verdicts, margins)?;
        // One tuple shared by every row: the rules that lacked input are the call's.
        let codes = pyo3::types::PyTuple::new(py, unchecked.codes())?;
        d.set_item("unchecked", vec![codes; verdicts.len()])?;
        Ok(d)
    }
}

impl PyChecker {
    /// Shapes agree, numbers are finite, ranges ≥ 0 (inf: no return).
    fn validate(&self, r: &Rows) -> PyResult<()> {
        let (n, k) = r.offsets.dim();
        arrays::cols("speeds", &r.speeds, Some(n), Some(k))?;
        arrays::cols("start", &r.start, Some(n), Some(5))?;
        for (name, len) in [
            ("start_station", r.start_station.len()),
            ("station_step", r.station_step.len()),
            ("reverse", r.reverse.len()),
        ] {
            if len != n {
                return Err(err(format!("{name}: {len} values for {n} chunks")));
            }
        }
        arrays::finite2("offsets", &r.offsets)?;
        arrays::finite2("speeds", &r.speeds)?;
        arrays::finite2("start", &r.start)?;
        arrays::finite1("start_station", &ArrayView1::from(&r.start_station[..]))?;
        arrays::finite1("station_step", &ArrayView1::from(&r.station_step[..]))?;
        if let Some(s) = &r.scans {
            arrays::cols("scans", s, Some(n), Some(self.geometry.beams()))?;
            let bad = s.indexed_iter().find(|(_, v)| v.is_nan() || **v < 0.0);
            if let Some(((i, j), v)) = bad {
                return Err(err(format!(
                    "scans[{i}, {j}] is {v}: a range is ≥ 0 (inf for no return)"
                )));
            }
        }
        Ok(())
    }

    /// The verdicts of every row, in order, on all cores.
    fn run(&self, r: &Rows, margins: bool) -> Vec<Verdict> {
        let n = r.offsets.nrows();
        (0..n)
            .into_par_iter()
            .with_min_len(64)
            .map_init(Vec::new, |buf, i| self.one(r, i, margins, buf))
            .collect()
    }

    /// The verdict of row `i`.
    fn one(
        &self,
        r: &Rows,
        i: usize,
        margins: bool,
        buf: &mut Vec<acres::chain::checker::chunk::Sample>,
    ) -> Verdict {
        let s = r.start.row(i);
        let chunk = Chunk {
            route: None,
            start_station_m: r.start_station[i],
            station_step_m: r.station_step[i],
            offsets_m: r.offsets.row(i).to_vec(),
            speeds_mps: r.speeds.row(i).to_vec(),
            direction: if r.reverse[i] {
                Direction::Reverse
            } else {
                Direction::Forward
            },
            start: StartState {
                x_m: s[0],
                y_m: s[1],
                yaw_rad: s[2],
                speed_mps: s[3],
                curvature_per_m: s[4],
            },
            scan: None,
        };
        let returns = r.scans.as_ref().map(|sc| {
            let ranges = sc.row(i).to_vec();
            let scan = Scan::new(ranges).expect("ranges checked: ≥ 0 or inf");
            world_returns(&self.geometry, &scan, &chunk.start)
        });
        if margins {
            let (res, m) =
                self.checker
                    .check_with_margins(&chunk, &self.route, returns.as_ref(), buf);
            (res, Some(m))
        } else {
            let res = self
                .checker
                .check(&chunk, &self.route, returns.as_ref(), buf);
            (res, None)
        }
    }
}

/// The verdicts as a dict of arrays: `accepted`, `reason` (an index of `REASONS`, −1 where
/// accepted), `first_index` (−1 where none), `value` and `limit` (NaN where none), `note`
/// (the words of a malformed or unchecked chunk), and with margins `margins` and `margin_index`
/// (N × 16, in the order of `MARGIN_KEYS`; NaN and −1 where the rule did not run).
fn results<'py>(py: Python<'py>, v: &[Verdict], margins: bool) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let col =
        |f: &dyn Fn(&CheckResult) -> f64| -> Vec<f64> { v.iter().map(|(r, _)| f(r)).collect() };
    let accepted: Vec<bool> = v.iter().map(|(r, _)| r.accepted).collect();
    let reason: Vec<i16> = v
        .iter()
        .map(|(r, _)| {
            r.reason
                .and_then(|x| Reason::ALL.iter().position(|a| *a == x))
                .map_or(-1, |i| i as i16)
        })
        .collect();
    let first: Vec<i64> = v
        .iter()
        .map(|(r, _)| r.first_index.map_or(-1, |i| i as i64))
        .collect();
    d.set_item("accepted", accepted.into_pyarray(py))?;
    d.set_item("reason", reason.into_pyarray(py))?;
    d.set_item("first_index", first.into_pyarray(py))?;
    d.set_item(
        "value",
        col(&|r| r.value.unwrap_or(f64::NAN)).into_pyarray(py),
    )?;
    d.set_item(
        "limit",
        col(&|r| r.limit.unwrap_or(f64::NAN)).into_pyarray(py),
    )?;
    let notes: Vec<Option<String>> = v.iter().map(|(r, _)| r.note.clone()).collect();
    d.set_item("note", notes)?;
    if margins {
        let keys = Margins::KEYS.len();
        let mut m = Array2::from_elem((v.len(), keys), f64::NAN);
        let mut at = Array2::from_elem((v.len(), keys), -1i64);
        for (i, (_, mg)) in v.iter().enumerate() {
            for (j, key) in Margins::KEYS.iter().enumerate() {
                if let Some(x) = mg.as_ref().and_then(|mg| mg.get(key)) {
                    m[[i, j]] = x.margin;
                    at[[i, j]] = x.index as i64;
                }
            }
        }
        d.set_item("margins", m.into_pyarray(py))?;
        d.set_item("margin_index", at.into_pyarray(py))?;
    }
    Ok(d)
}
