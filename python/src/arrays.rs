//! Reading numpy arrays: shapes and values checked, each error naming the argument and the
//! element.

use crate::err;
use numpy::PyReadonlyArray1;
use numpy::ndarray::{ArrayView1, ArrayView2};
use pyo3::prelude::*;

/// A 2-D view with `cols` columns (any where `cols` is None), else an error naming `name`.
pub fn cols<'a>(
    name: &str,
    a: &'a ArrayView2<'a, f64>,
    rows: Option<usize>,
    cols: Option<usize>,
) -> PyResult<()> {
    let (r, c) = a.dim();
    if rows.is_some_and(|n| n != r) || cols.is_some_and(|n| n != c) {
        let want = |n: Option<usize>| n.map_or("any".to_string(), |n| n.to_string());
        return Err(err(format!(
            "{name}: shape ({r}, {c}), expected ({}, {})",
            want(rows),
            want(cols)
        )));
    }
    Ok(())
}

/// The first element that is not finite, as an error naming `name` and its index.
pub fn finite2(name: &str, a: &ArrayView2<'_, f64>) -> PyResult<()> {
    match a.indexed_iter().find(|(_, v)| !v.is_finite()) {
        Some(((i, j), v)) => Err(err(format!("{name}[{i}, {j}] is {v}, not a finite number"))),
        None => Ok(()),
    }
}

/// [`finite2`] for a 1-D array.
pub fn finite1(name: &str, a: &ArrayView1<'_, f64>) -> PyResult<()> {
    match a.indexed_iter().find(|(_, v)| !v.is_finite()) {
        Some((i, v)) => Err(err(format!("{name}[{i}] is {v}, not a finite number"))),
        None => Ok(()),
    }
}

/// A 1-D float64 array as a vector.
pub fn vec1(a: &PyReadonlyArray1<'_, f64>) -> Vec<f64> {
    a.as_array().iter().copied().collect()
}
