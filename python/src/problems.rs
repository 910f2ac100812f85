//! The problems built from arrays besides the LCP and the frictional problem (issue 34,
//! item 4): the box-LCP (`lower`/`upper` on an LCP), the MLCP in Siconos' block notation and
//! the NCP/MCP of a Python map. Each is a catalogue [`Any`] problem, so that `perp.Solver`,
//! `Problem.solve` and the `solve_*` functions solve it the one way every problem is solved.

use crate::cone::Failure;
use crate::{convert, perp_error, to_py};
use numpy::PyArray1;
use perp_catalogue::{NcpInstance, Problem as Any};
use perp_core::Matrix;
use perp_ncp::mlcp::Mlcp;
use perp_ncp::samples::Sample;
use perp_ncp::NcpFunction;
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::sync::Arc;

/// Bounds: None (every entry `default`), one number for every entry, or a 1-D array-like of
/// length `n`; ±inf allowed, NaN refused.
pub(crate) fn bounds(
    py: Python<'_>,
    obj: Option<&Bound<'_, PyAny>>,
    field: &str,
    n: usize,
    default: f64,
) -> PyResult<Vec<f64>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else { return Ok(vec![default; n]) };
    if !obj.is_instance_of::<PyString>() {
        if let Ok(x) = obj.extract::<f64>() {
            if x.is_nan() {
                return Err(perp_error(format!("{field} = NaN: a bound must be a number or ±inf")));
            }
            return Ok(vec![x; n]);
        }
    }
    let v = convert::vector_allowing_infinity(py, obj, field)?;
    if v.len() != n {
        return Err(perp_error(format!(
            "{field}: has {} entries, expected {n} (the number of unknowns)",
            v.len()
        )));
    }
    Ok(v)
}

/// Checks `lower ≤ upper` entry by entry (and no `lower = +inf`, `upper = −inf`), naming the
/// first offending index and values.
pub(crate) fn check_bounds(lower: &[f64], upper: &[f64]) -> PyResult<()> {
    for (i, (&l, &u)) in lower.iter().zip(upper).enumerate() {
        if l > u {
            return Err(perp_error(format!(
                "lower[{i}] = {l} > upper[{i}] = {u}: bounds must have lower <= upper"
            )));
        }
        if l == f64::INFINITY || u == f64::NEG_INFINITY {
            return Err(perp_error(format!(
                "lower[{i}] = {l}, upper[{i}] = {u}: lower cannot be +inf nor upper -inf"
            )));
        }
    }
    Ok(())
}

/// The LCP of `M` and `q`, a box-LCP when `lower` or `upper` is given (`lower` defaults to 0,
/// `upper` to +inf), checked.
#[allow(non_snake_case)]
pub(crate) fn lcp_problem(
    py: Python<'_>,
    [M, q]: [&Bound<'_, PyAny>; 2],
    [lower, upper]: [Option<&Bound<'_, PyAny>>; 2],
) -> PyResult<Any> {
    let m = convert::matrix(py, M, "M")?;
    let q = convert::vector(py, q, "q")?;
    let given = |b: Option<&Bound<'_, PyAny>>| b.is_some_and(|b| !b.is_none());
    // Lcp::new checks M and q (and names them) before the bounds are read.
    let plain = perp_lcp::Lcp::new(m, q).map_err(to_py)?;
    if !given(lower) && !given(upper) {
        return Ok(Any::Lcp(plain));
    }
    let n = plain.n();
    let lo = bounds(py, lower, "lower", n, 0.0)?;
    let hi = bounds(py, upper, "upper", n, f64::INFINITY)?;
    check_bounds(&lo, &hi)?;
    Ok(Any::Lcp(perp_lcp::Lcp::with_bounds(plain.m().clone(), plain.q().to_vec(), lo, hi).map_err(to_py)?))
}

/// The MLCP in Siconos' block notation, `A u + C v + a = 0`, `w = D u + B v + b`,
/// `0 ≤ v ⊥ w ≥ 0`, as perp's `Mlcp` of `M = [[A, C], [D, B]]`, `q = (a, b)`, the first
/// `len(a)` rows free; every block's shape checked against `a` and `b`.
#[allow(non_snake_case)]
pub(crate) fn mlcp_problem(
    py: Python<'_>,
    [A, C, D, B]: [&Bound<'_, PyAny>; 4],
    [a, b]: [&Bound<'_, PyAny>; 2],
) -> PyResult<Any> {
    let a = convert::vector(py, a, "a")?;
    let b = convert::vector(py, b, "b")?;
    let (nu, nv) = (a.len(), b.len());
    let blocks = [
        (convert::matrix(py, A, "A")?, "A", (nu, nu)),
        (convert::matrix(py, C, "C")?, "C", (nu, nv)),
        (convert::matrix(py, D, "D")?, "D", (nv, nu)),
        (convert::matrix(py, B, "B")?, "B", (nv, nv)),
    ];
    for (m, name, (r, c)) in &blocks {
        if (m.nrows(), m.ncols()) != (*r, *c) {
            return Err(perp_error(format!(
                "{name}: has shape ({}, {}), expected ({r}, {c}) (len(a) = {nu}, len(b) = {nv})",
                m.nrows(),
                m.ncols()
            )));
        }
    }
    let n = nu + nv;
    if n == 0 {
        return Err(perp_error("a, b: both empty: the MLCP has no unknown"));
    }
    let offsets = [(0, 0), (0, nu), (nu, 0), (nu, nu)];
    let sparse = blocks.iter().any(|(m, _, _)| matches!(m, Matrix::Sparse(_)));
    let m = if sparse {
        let mut t = Vec::new();
        for ((m, _, _), (r0, c0)) in blocks.iter().zip(offsets) {
            for (x, (i, j)) in m.to_csr().iter() {
                t.push((r0 + i, c0 + j, *x));
            }
        }
        Matrix::from_triplets(n, n, &t).map_err(to_py)?
    } else {
        let mut v = vec![0.0; n * n];
        for ((m, _, _), (r0, c0)) in blocks.iter().zip(offsets) {
            for i in 0..m.nrows() {
                for j in 0..m.ncols() {
                    v[(r0 + i) * n + c0 + j] = m.get(i, j);
                }
            }
        }
        Matrix::from_row_major(n, n, &v).map_err(to_py)?
    };
    let q = [a, b].concat();
    let free = (0..n).map(|i| i < nu).collect();
    Ok(Any::Mlcp(Mlcp::new(m, q, free).map_err(to_py)?))
}

/// F (and ∇F) written in Python: `F(z)` returns n floats, `J(z)` an n × n array-like (or a
/// sparse matrix); without `J`, central differences of F. The first exception (or a wrong
/// length) is kept in `failure`, as `perp.Error` naming the callable, and every later call
/// returns NaN, so that the solve stops and the error is raised after it.
struct PyMap {
    f: Arc<Py<PyAny>>,
    j: Option<Arc<Py<PyAny>>>,
    n: usize,
    failure: Failure,
}

impl PyMap {
    fn failed(&self) -> bool {
        self.failure.lock().map(|f| f.is_some()).unwrap_or(true)
    }

    fn fail(&self, py: Python<'_>, what: &str, e: PyErr) {
        let err = if e.is_instance_of::<crate::Error>(py)
            || e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py)
        {
            e
        } else {
            let name = e.get_type(py).name().map(|n| n.to_string()).unwrap_or_default();
            let err = perp_error(format!("{what} raised {name}: {}", e.value(py)));
            err.set_cause(py, Some(e));
            err
        };
        if let Ok(mut f) = self.failure.lock() {
            f.get_or_insert(err);
        }
    }
}

impl NcpFunction for PyMap {
    fn dim(&self) -> usize {
        self.n
    }

    fn eval(&self, z: &[f64], out: &mut [f64]) {
        if !self.failed() {
            let ok = Python::attach(|py| {
                let r = self.f.bind(py).call1((PyArray1::from_slice(py, z),)).and_then(|r| {
                    convert::vector_allowing_infinity(py, &r, "F(z)")
                        .map_err(|_| perp_error(format!("F(z): must return {} floats, returned {r}", self.n)))
                });
                match r {
                    Ok(v) if v.len() == out.len() => {
                        out.copy_from_slice(&v);
                        true
                    }
                    Ok(v) => {
                        self.fail(
                            py,
                            "F",
                            perp_error(format!("F(z): returned {} values, n = {}", v.len(), self.n)),
                        );
                        false
                    }
                    Err(e) => {
                        self.fail(py, "F", e);
                        false
                    }
                }
            });
            if ok {
                return;
            }
        }
        out.iter_mut().for_each(|o| *o = f64::NAN);
    }

    fn jacobian(&self, z: &[f64], mut jac: faer::MatMut<'_, f64>) {
        let Some(j) = &self.j else {
            perp_ncp::central_differences(self, z, jac);
            return;
        };
        let n = self.n;
        if !self.failed() {
            let m = Python::attach(|py| {
                let r = j
                    .bind(py)
                    .call1((PyArray1::from_slice(py, z),))
                    .and_then(|r| convert::matrix(py, &r, "J(z)"));
                match r {
                    Ok(m) if (m.nrows(), m.ncols()) == (n, n) => Some(m),
                    Ok(m) => {
                        let e = perp_error(format!(
                            "J(z): has shape ({}, {}), expected ({n}, {n})",
                            m.nrows(),
                            m.ncols()
                        ));
                        self.fail(py, "J", e);
                        None
                    }
                    Err(e) => {
                        self.fail(py, "J", e);
                        None
                    }
                }
            });
            if let Some(m) = m {
                for c in 0..n {
                    for r in 0..n {
                        jac[(r, c)] = m.get(r, c);
                    }
                }
                return;
            }
        }
        for c in 0..n {
            for r in 0..n {
                jac[(r, c)] = f64::NAN;
            }
        }
    }
}

/// The MCP `lower ≤ z ≤ upper ⊥ F(z)` of Python callables (an NCP with the default bounds
/// 0 and +inf). `n` comes from `x0`, `lower` or `upper` (the first array given); the solves
/// start from `x0` (default 0, projected onto the bounds).
#[allow(non_snake_case)]
pub(crate) fn ncp_problem(
    py: Python<'_>,
    (F, J): (&Bound<'_, PyAny>, Option<&Bound<'_, PyAny>>),
    [lower, upper, x0]: [Option<&Bound<'_, PyAny>>; 3],
    failure: &Failure,
) -> PyResult<Any> {
    if !F.is_callable() {
        return Err(perp_error(format!("F = {F}: must be a callable F(z) returning n floats")));
    }
    let J = J.filter(|j| !j.is_none());
    if let Some(j) = J {
        if !j.is_callable() {
            return Err(perp_error(format!(
                "J = {j}: must be a callable J(z) returning an n × n array, or None"
            )));
        }
    }
    let x0 = match x0.filter(|x| !x.is_none()) {
        Some(x) => Some(convert::vector(py, x, "x0")?),
        None => None,
    };
    let array_len = |b: Option<&Bound<'_, PyAny>>, field: &str| -> PyResult<Option<usize>> {
        match b.filter(|b| !b.is_none() && b.extract::<f64>().is_err()) {
            Some(b) => Ok(Some(convert::vector_allowing_infinity(py, b, field)?.len())),
            None => Ok(None),
        }
    };
    let n = match x0.as_ref().map(Vec::len) {
        Some(n) => n,
        None => match array_len(lower, "lower")?.or(array_len(upper, "upper")?) {
            Some(n) => n,
            None => return Err(perp_error(
                "x0, lower, upper: give at least one of them as an array, to set the number of unknowns n",
            )),
        },
    };
    if n == 0 {
        return Err(perp_error("n = 0: the NCP has no unknown"));
    }
    let lo = bounds(py, lower, "lower", n, 0.0)?;
    let hi = bounds(py, upper, "upper", n, f64::INFINITY)?;
    check_bounds(&lo, &hi)?;
    let f = Arc::new(F.clone().unbind());
    let j = J.map(|j| Arc::new(j.clone().unbind()));
    let failure = failure.clone();
    let starts = x0.map(|x| vec![x]).unwrap_or_default();
    Ok(Any::Ncp(NcpInstance::new(move || Sample {
        name: "python",
        description: "an MCP whose F is a Python callable",
        f: Box::new(PyMap { f: f.clone(), j: j.clone(), n, failure: failure.clone() }),
        lower: lo.clone(),
        upper: hi.clone(),
        starts: starts.clone(),
        solutions: Vec::new(),
    })))
}
