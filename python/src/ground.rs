//! `acres.Corridor`: a corridor raster built or loaded, queried over arrays of points
//! (each value a lower bound of the distance from the point to ground the vehicle must
//! not enter, 0 outside).

use crate::{arrays, config, err};
use acres::chain::path::Path;
use acres::ground::Map;
use acres::ground::corridor::{self, Corridor};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use std::path::PathBuf;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCorridor>()?;
    Ok(())
}

/// A route: a file, else a shipped route by name.
pub fn route(name: &str, map: Option<&Map>) -> PyResult<Path> {
    let p = std::path::Path::new(name);
    if p.exists() {
        let crs = map.map_or(acres::ground::MapCrs::None, |m| m.route_crs());
        return Path::load_on(p, crs).map_err(err);
    }
    Path::builtin(name).ok_or_else(|| {
        err(format!(
            "route `{name}`: no such file, nor a shipped route (data/routes/)"
        ))
    })
}

/// A corridor raster.
#[pyclass(name = "Corridor", module = "acres._acres", frozen)]
pub struct PyCorridor {
    pub inner: std::sync::Arc<Corridor>,
}

#[pymethods]
impl PyCorridor {
    /// Loads a corridor file (`acres corridor build`).
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<PyCorridor> {
        let c = py.detach(|| Corridor::load(&path)).map_err(err)?;
        Ok(PyCorridor {
            inner: std::sync::Arc::new(c),
        })
    }

    /// Builds the corridor of a route on a map (a manifest, map_server YAML or GeoTIFF; the
    /// shipped farm by default, `farm` by name), refusing a raster over `max_cells` before allocating it.
    #[staticmethod]
    #[pyo3(signature = (route = PathBuf::from("farm_yard_to_east_lane.json"), map = None, config_dir = None, max_cells = 1 << 28))]
    fn build(
        py: Python<'_>,
        route: PathBuf,
        map: Option<PathBuf>,
        config_dir: Option<PathBuf>,
        max_cells: u64,
    ) -> PyResult<PyCorridor> {
        let cfg = config(config_dir)?;
        // A str or an os.PathLike (pathlib.Path) for either, as `Checker` takes.
        let route = route.to_string_lossy();
        let map = map.map(|m| m.to_string_lossy().into_owned());
        let map = match map {
            Some(p) => py.detach(|| Map::load_named(&p)).map_err(err)?,
            None => Map::builtin_farm(),
        };
        let path = self::route(&route, Some(&map))?;
        let c = py
            .detach(|| {
                corridor::build_limited(&map, &path, &cfg.control.corridor, max_cells, |_| {})
            })
            .map_err(err)?;
        Ok(PyCorridor {
            inner: std::sync::Arc::new(c),
        })
    }

    /// The corridor from the bytes of a corridor file (what `to_bytes` and pickling give).
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<PyCorridor> {
        let c = py
            .detach(|| Corridor::from_bytes("<corridor bytes>", &data))
            .map_err(err)?;
        Ok(PyCorridor {
            inner: std::sync::Arc::new(c),
        })
    }

    /// The bytes of the corridor file.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyBytes> {
        let b = py.detach(|| self.inner.to_bytes());
        pyo3::types::PyBytes::new(py, &b)
    }

    /// Pickles as the corridor file's bytes (for `copy.deepcopy` and worker processes).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, pyo3::types::PyBytes>,))> {
        let py = slf.py();
        let from = slf.get_type().getattr("from_bytes")?;
        Ok((from, (slf.get().to_bytes(py),)))
    }

    /// Writes the corridor file (atomically).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| self.inner.save(&path)).map_err(err)
    }

    /// The lower bound of the distance to excluded ground at each point of an (N, 2) array
    /// of world x, y, m (0 outside the corridor or the raster); on all cores.
    fn query<'py>(
        &self,
        py: Python<'py>,
        points: numpy::PyArrayLike2<'py, f64, numpy::AllowTypeChange>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        // Any numbers (float32, ints, nested lists) as f64, as `Checker` takes them.
        let a = points.as_array();
        arrays::cols("points", &a, None, Some(2))?;
        arrays::finite2("points", &a)?;
        let pts: Vec<[f64; 2]> = a.rows().into_iter().map(|r| [r[0], r[1]]).collect();
        let c = &self.inner;
        let out = py.detach(|| {
            use rayon::prelude::*;
            pts.par_iter()
                .with_min_len(4096)
                .map(|p| c.query(p[0], p[1]))
                .collect::<Vec<f64>>()
        });
        Ok(out.into_pyarray(py))
    }

    /// (width, height) in cells.
    #[getter]
    fn shape(&self) -> (usize, usize) {
        (self.inner.grid.width, self.inner.grid.height)
    }

    /// The cell size, m.
    #[getter]
    fn resolution_m(&self) -> f64 {
        self.inner.grid.resolution_m
    }

    /// The world position of the raster's lower-left corner, m.
    #[getter]
    fn origin_m(&self) -> (f64, f64) {
        (self.inner.grid.origin_m[0], self.inner.grid.origin_m[1])
    }

    /// The map's projected CRS as an EPSG code, where it has one.
    #[getter]
    fn epsg(&self) -> Option<u16> {
        self.inner.crs.map(|c| c.epsg())
    }

    fn __repr__(&self) -> String {
        let g = &self.inner.grid;
        format!(
            "Corridor({} × {} cells at {} m, route {:?}, map {:?})",
            g.width, g.height, g.resolution_m, self.inner.route, self.inner.map
        )
    }
}
