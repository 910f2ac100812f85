//! Python input to perp's types: dense arrays (anything `numpy.asarray` takes), sparse
//! matrices (anything with `tocsr()`, or with the CSR attributes `shape`, `indptr`, `indices`,
//! `data`; scipy is not required), vectors, settings and solver parameters. Every error is a
//! `perp.Error` naming the argument and the offending value.

use crate::perp_error;
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use perp_catalogue::Params;
use perp_core::{Matrix, Settings};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

/// `numpy.ascontiguousarray(obj, dtype=float64)`, with numpy's own complaint turned into a
/// `perp.Error` naming `field`.
fn float_array<'py>(py: Python<'py>, obj: &Bound<'py, PyAny>, field: &str) -> PyResult<Bound<'py, PyAny>> {
    if obj.is_instance_of::<PyString>() {
        return Err(perp_error(format!("{field}: expected numbers, got the string {obj}")));
    }
    let np = py.import("numpy")?;
    np.call_method1("ascontiguousarray", (obj, np.getattr("float64")?))
        .map_err(|e| perp_error(format!("{field}: cannot be read as an array of floats: {e}")))
}

fn ndim(a: &Bound<'_, PyAny>) -> PyResult<usize> {
    a.getattr("ndim")?.extract()
}

/// A vector of floats: a 1-D array-like (a Python scalar is not a vector), all finite.
pub fn vector(py: Python<'_>, obj: &Bound<'_, PyAny>, field: &str) -> PyResult<Vec<f64>> {
    let v = any_vector(py, obj, field)?;
    check_finite(field, &v)?;
    Ok(v)
}

/// A vector of floats as [`vector`] reads it, ±inf allowed (bounds), NaN refused.
pub fn vector_allowing_infinity(py: Python<'_>, obj: &Bound<'_, PyAny>, field: &str) -> PyResult<Vec<f64>> {
    let v = any_vector(py, obj, field)?;
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return Err(perp_error(format!("{field}[{i}] = NaN: must be a number (±inf allowed)")));
    }
    Ok(v)
}

/// A 1-D array-like of floats, unchecked.
fn any_vector(py: Python<'_>, obj: &Bound<'_, PyAny>, field: &str) -> PyResult<Vec<f64>> {
    let a = float_array(py, obj, field)?;
    let d = ndim(&a)?;
    if d != 1 {
        return Err(perp_error(format!("{field}: must be a 1-D array, got {d} dimension(s)")));
    }
    let a: PyReadonlyArray1<f64> = a.extract()?;
    Ok(a.as_slice().map_err(|e| perp_error(format!("{field}: {e}")))?.to_vec())
}

fn check_finite(field: &str, v: &[f64]) -> PyResult<()> {
    match v.iter().position(|x| !x.is_finite()) {
        Some(i) => Err(perp_error(format!("{field}[{i}] = {}: must be finite", v[i]))),
        None => Ok(()),
    }
}

/// The friction coefficients: one number for every contact, or one per contact.
pub fn coefficients(py: Python<'_>, obj: &Bound<'_, PyAny>, contacts: usize) -> PyResult<Vec<f64>> {
    coefficients_named(py, obj, contacts, "mu")
}

/// [`coefficients`] of the argument `field` (`mu_r`).
pub fn coefficients_named(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    contacts: usize,
    field: &str,
) -> PyResult<Vec<f64>> {
    if let Ok(m) = obj.extract::<f64>() {
        return Ok(vec![m; contacts]);
    }
    vector(py, obj, field)
}

/// A square or rectangular matrix, dense (any 2-D array-like) or sparse (see the module docs).
pub fn matrix(py: Python<'_>, obj: &Bound<'_, PyAny>, field: &str) -> PyResult<Matrix> {
    let np = py.import("numpy")?;
    let is_ndarray = obj.is_instance(&np.getattr("ndarray")?)?;
    if !is_ndarray && obj.hasattr("tocsr")? {
        let csr =
            obj.call_method0("tocsr").map_err(|e| perp_error(format!("{field}: its tocsr() failed: {e}")))?;
        return sparse(py, &csr, field);
    }
    if !is_ndarray && ["shape", "indptr", "indices", "data"].iter().all(|a| obj.hasattr(*a).unwrap_or(false))
    {
        return sparse(py, obj, field);
    }
    let a = float_array(py, obj, field)?;
    let d = ndim(&a)?;
    if d != 2 {
        return Err(perp_error(format!(
            "{field}: must be a 2-D array (or a sparse matrix), got {d} dimension(s)"
        )));
    }
    let (rows, cols): (usize, usize) = a.getattr("shape")?.extract()?;
    let a: PyReadonlyArray2<f64> = a.extract()?;
    let data = a.as_slice().map_err(|e| perp_error(format!("{field}: {e}")))?;
    if let Some(k) = data.iter().position(|x| !x.is_finite()) {
        return Err(perp_error(format!("{field}[{}, {}] = {}: must be finite", k / cols, k % cols, data[k])));
    }
    Matrix::from_row_major(rows, cols, data).map_err(crate::to_py)
}

/// A CSR matrix from its `shape`, `indptr`, `indices` and `data`, every index checked.
fn sparse(py: Python<'_>, csr: &Bound<'_, PyAny>, field: &str) -> PyResult<Matrix> {
    let (rows, cols): (usize, usize) = csr
        .getattr("shape")?
        .extract()
        .map_err(|e| perp_error(format!("{field}: shape must be a pair of sizes: {e}")))?;
    let ints = |name: &str| -> PyResult<Vec<i64>> {
        let np = py.import("numpy")?;
        let a = np
            .call_method1("asarray", (csr.getattr(name)?, np.getattr("int64")?))
            .map_err(|e| perp_error(format!("{field}.{name}: cannot be read as integers: {e}")))?;
        a.call_method0("tolist")?.extract()
    };
    let indptr = ints("indptr")?;
    let indices = ints("indices")?;
    let data = vector(py, &csr.getattr("data")?, &format!("{field}.data"))?;
    if indptr.len() != rows + 1 || indptr[0] != 0 {
        return Err(perp_error(format!(
            "{field}.indptr: must start at 0 and have {} entries (rows + 1), has {}",
            rows + 1,
            indptr.len()
        )));
    }
    let nnz = indptr[rows];
    if indptr.windows(2).any(|w| w[1] < w[0]) || nnz as usize != indices.len() || indices.len() != data.len()
    {
        return Err(perp_error(format!(
            "{field}: indptr must be nondecreasing and end at len(indices) = len(data) (got {nnz}, {}, {})",
            indices.len(),
            data.len()
        )));
    }
    let mut triplets = Vec::with_capacity(data.len());
    for i in 0..rows {
        for k in indptr[i] as usize..indptr[i + 1] as usize {
            let j = indices[k];
            if j < 0 || j as usize >= cols {
                return Err(perp_error(format!("{field}.indices[{k}] = {j}: must be in [0, {cols})")));
            }
            triplets.push((i, j as usize, data[k]));
        }
    }
    Matrix::from_triplets(rows, cols, &triplets).map_err(crate::to_py)
}

/// The solve's settings: `tol ≥ 0`, `max_iter ≥ 1` or None (the solver's default),
/// `time_limit > 0` seconds or None.
pub fn settings(tol: f64, max_iter: Option<i64>, time_limit: Option<f64>) -> PyResult<Settings> {
    if !(tol.is_finite() && tol >= 0.0) {
        return Err(perp_error(format!("tol = {tol}: must be finite and >= 0")));
    }
    let max_iter = match max_iter {
        None => 0,
        Some(m) if m >= 1 => m as usize,
        Some(m) => {
            return Err(perp_error(format!("max_iter = {m}: must be >= 1 (None for the solver's default)")))
        }
    };
    let time_limit = match time_limit {
        None => None,
        // Beyond what a `Duration` holds (2e19): no limit.
        Some(t) if t.is_finite() && t > 0.0 => {
            Settings::limit_from_secs("time_limit", t).map_err(crate::to_py)?
        }
        Some(t) => return Err(perp_error(format!("time_limit = {t}: must be a positive number of seconds"))),
    };
    Ok(Settings { tol, max_iter, time_limit, ..Settings::default() })
}

/// Solver parameters from a dict `{name: value}`; the catalogue checks names and ranges.
pub fn params(obj: Option<&Bound<'_, PyDict>>) -> PyResult<Params> {
    let mut p = Params::new();
    if let Some(d) = obj {
        for (k, v) in d.iter() {
            let k: String =
                k.extract().map_err(|_| perp_error(format!("params: key {k} must be a string")))?;
            // Python's True/False are the catalogue's true/false.
            let v = match v.extract::<bool>() {
                Ok(b) if v.is_instance_of::<pyo3::types::PyBool>() => b.to_string(),
                _ => v.str()?.to_string(),
            };
            p = p.set(&k, v);
        }
    }
    Ok(p)
}

/// A warm start of length `n`, finite.
pub fn warm(py: Python<'_>, obj: Option<&Bound<'_, PyAny>>, n: usize) -> PyResult<Option<Vec<f64>>> {
    let Some(obj) = obj else { return Ok(None) };
    let v = vector(py, obj, "warm")?;
    if v.len() != n {
        return Err(perp_error(format!("warm: has {} entries, the problem has {n} unknowns", v.len())));
    }
    Ok(Some(v))
}
