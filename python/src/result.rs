//! The Python classes `perp.Result` (an answer and its report) and `perp.Problem` (a problem
//! read from a file); `perp.Simulation` is in `trajectory.rs`.

use crate::cone::Failure;
use crate::sensitivity::Sensitivity;
use numpy::{PyArray1, PyArrayMethods};
use perp_catalogue::{Answer, Family, Problem as Any};
use perp_core::SolveReport;
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

pub(crate) fn array(py: Python<'_>, v: Vec<f64>) -> Py<PyAny> {
    PyArray1::from_vec(py, v).into_any().unbind()
}

/// `rows × cols` values, row by row, as a 2-D numpy array.
pub(crate) fn array2(py: Python<'_>, rows: usize, cols: usize, v: Vec<f64>) -> PyResult<Py<PyAny>> {
    Ok(PyArray1::from_vec(py, v).reshape([rows, cols])?.into_any().unbind())
}

/// The answer of a solve: `z`, `w` (LCP, MLCP, NCP) or `r`, `u` (frictional contact, where
/// `z` and `w` are the same arrays), with the solver's report.
#[pyclass(module = "perp", name = "Result", frozen)]
pub struct Solution {
    friction: bool,
    /// What `sensitivity()` needs: the problem solved, the answer (copies that numpy cannot
    /// change), the report, and where a Python friction law keeps its exception.
    problem: Arc<Any>,
    answer: (Vec<f64>, Vec<f64>, SolveReport),
    failure: Failure,
    z: Py<PyAny>,
    w: Py<PyAny>,
    v: Option<Py<PyAny>>,
    /// The problem kind: `lcp`, `mlcp`, `ncp`, `fc2d`, `fc3d`, `gfc3d`, ….
    #[pyo3(get)]
    kind: String,
    /// The solver's name.
    #[pyo3(get)]
    solver: String,
    /// `solved`, `max_iterations`, `time_limit`, `stalled`, `ray_termination`, `infeasible`, `diverged`,
    /// `numerical_failure` or `interrupted`.
    #[pyo3(get)]
    status: String,
    /// The peer-compatible error measure of the returned vectors (Siconos' measure).
    #[pyo3(get)]
    error: f64,
    /// The natural-map residual, max-norm.
    #[pyo3(get)]
    residual: f64,
    /// The physical check in the problem's own scales: frictional problems, LCPs, MLCPs, NCPs
    /// and MCPs; None otherwise (box-LCP).
    #[pyo3(get)]
    physical_error: Option<f64>,
    /// Iterations (pivots for pivoting methods).
    #[pyo3(get)]
    iterations: usize,
    /// Wall time of the solve, in seconds.
    #[pyo3(get)]
    seconds: f64,
    /// The solver's note, if any (why it stopped).
    #[pyo3(get)]
    message: Option<String>,
    /// `history=True`: the iterations whose error the solver measured and those errors.
    history: Option<(Vec<usize>, Vec<f64>)>,
}

impl Solution {
    pub fn new(py: Python<'_>, problem: Arc<Any>, a: Answer, failure: Failure) -> Solution {
        let r = a.report;
        Solution {
            friction: problem.family() == Family::Friction,
            z: array(py, a.z.clone()),
            w: array(py, a.w.clone()),
            answer: (a.z, a.w, r.clone()),
            v: a.v.map(|v| array(py, v)),
            kind: problem.kind_name(),
            solver: r.solver,
            status: r.status.as_str().to_string(),
            error: r.error,
            residual: r.residual_inf,
            physical_error: r.physical_error,
            iterations: r.iterations,
            seconds: r.elapsed.as_secs_f64(),
            message: r.message.filter(|m| !m.is_empty()),
            history: (!r.history_iterations.is_empty()).then(|| (r.history_iterations.clone(), r.history)),
            problem,
            failure,
        }
    }

    fn friction_only(&self, py: Python<'_>, x: &Py<PyAny>, name: &str) -> PyResult<Py<PyAny>> {
        if self.friction {
            Ok(x.clone_ref(py))
        } else {
            Err(PyAttributeError::new_err(format!(
                "{name}: this is the result of a {} problem, which has z and w",
                self.kind
            )))
        }
    }
}

#[pymethods]
impl Solution {
    /// With `history=True`: `{"iterations": …, "errors": …}` as numpy arrays, the iterations
    /// whose error the solver measured (every one for most solvers; PGS's and NSGS's exact
    /// checks) and those errors. `None` when no history was recorded.
    #[getter]
    fn history<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some((k, e)) = &self.history else { return Ok(None) };
        let d = PyDict::new(py);
        d.set_item("iterations", PyArray1::from_vec(py, k.iter().map(|&x| x as i64).collect()))?;
        d.set_item("errors", array(py, e.clone()))?;
        Ok(Some(d))
    }

    /// z (LCP, MLCP, NCP), or the reactions r of a frictional problem.
    #[getter]
    fn z(&self, py: Python<'_>) -> Py<PyAny> {
        self.z.clone_ref(py)
    }

    /// w = M z + q (LCP), F(z) (NCP), or the local velocities u of a frictional problem.
    #[getter]
    fn w(&self, py: Python<'_>) -> Py<PyAny> {
        self.w.clone_ref(py)
    }

    /// The reactions (frictional problems only).
    #[getter]
    fn r(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.friction_only(py, &self.z, "r")
    }

    /// The local velocities u = W r + q (frictional problems only).
    #[getter]
    fn u(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.friction_only(py, &self.w, "u")
    }

    /// The global velocities of a global frictional problem, else None.
    #[getter]
    fn v(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.v.as_ref().map(|v| v.clone_ref(py))
    }

    /// `status == "solved"`.
    #[getter]
    fn solved(&self) -> bool {
        self.status == "solved"
    }

    /// The derivatives of this solution with respect to the problem's data (LCP, box-LCP,
    /// MLCP: q and M; local frictional problems: q, μ and W), by implicit differentiation on
    /// the active set (one factorization here, two triangular solves per product after).
    /// `tol` is the relative threshold under which an index (a contact) counts as degenerate.
    /// Raises `perp.Error` when the result is not solved, when the reduced system is singular
    /// (the solution is not locally unique), or for another kind of problem.
    #[pyo3(signature = (tol=perp_core::sensitivity::DEGENERACY_TOL))]
    fn sensitivity(&self, py: Python<'_>, tol: f64) -> PyResult<Sensitivity> {
        let (z, w, report) = &self.answer;
        crate::sensitivity::make(py, &self.problem, z, w, report, tol, &self.failure)
    }

    fn __repr__(&self) -> String {
        format!(
            "perp.Result(kind={:?}, solver={:?}, status={:?}, error={:.3e}, iterations={}, seconds={:.3e})",
            self.kind, self.solver, self.status, self.error, self.iterations, self.seconds
        )
    }
}

/// A problem read by `perp.read`: its kind, size and data (`q`, `mu`, `dense_matrix()`), and
/// `solve(...)` with any solver of its family.
#[pyclass(module = "perp", name = "Problem", frozen)]
pub struct Problem {
    pub(crate) p: Arc<Any>,
    /// Where a Python map (an NCP's F and J) keeps its exception during a solve.
    pub(crate) failure: Failure,
}

impl Problem {
    pub fn new(p: Any) -> Problem {
        Problem::with_failure(p, crate::new_failure())
    }

    /// A problem whose Python callables keep their exceptions in `failure`.
    pub fn with_failure(p: Any, failure: Failure) -> Problem {
        Problem { p: Arc::new(p), failure }
    }
}

#[pymethods]
impl Problem {
    /// `lcp`, `mlcp`, `ncp`, `fc2d`, `fc3d` (`fcNd`), `gfc2d`, `gfc3d`.
    #[getter]
    fn kind(&self) -> String {
        self.p.kind_name()
    }

    /// Number of unknowns (z, or the reactions r).
    #[getter]
    fn n(&self) -> usize {
        self.p.n()
    }

    /// The solver family: `lcp`, `mcp` or `friction`.
    #[getter]
    fn family(&self) -> &'static str {
        self.p.family().as_str()
    }

    /// The catalogue's solvers for this problem.
    #[getter]
    fn solvers(&self) -> Vec<&'static str> {
        self.p.solvers().to_vec()
    }

    /// The solver used when none is named.
    #[getter]
    fn default_solver(&self) -> &'static str {
        self.p.default_solver()
    }

    /// q: the LCP's or MLCP's (for an MLCP built by `perp.mlcp`, `(a, b)`), or the free
    /// velocity of a local frictional problem; None for other kinds.
    #[getter]
    fn q(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        match &*self.p {
            Any::Lcp(l) => Some(array(py, l.q().to_vec())),
            Any::Mlcp(m) => Some(array(py, m.q().to_vec())),
            Any::Friction(f) => Some(array(py, f.q.clone())),
            _ => None,
        }
    }

    /// The friction coefficients of a local frictional problem, else None.
    #[getter]
    fn mu(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        match &*self.p {
            Any::Friction(f) => Some(array(py, f.mu.clone())),
            _ => None,
        }
    }

    /// The rolling coefficients μ_r of a rolling frictional problem (`rfc2d`, `rfc3d`: a
    /// Siconos `RFC3D_*` or `rockfall_*` file, or `perp.solve_friction(..., mu_r=...)`'s), else
    /// None.
    #[getter]
    fn mu_r(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        match &*self.p {
            Any::Friction(f) => f.rolling_mu().map(|m| array(py, m)),
            _ => None,
        }
    }

    /// The contact dimension of a frictional problem, else None.
    #[getter]
    fn dim(&self) -> Option<usize> {
        match &*self.p {
            Any::Friction(f) => Some(f.dim),
            Any::GlobalFriction(g) => Some(g.dim),
            _ => None,
        }
    }

    /// `(lower, upper)` as numpy arrays for a box-LCP, an MLCP (−inf on the free rows, 0
    /// on the others; +inf) and an NCP/MCP; None for an LCP without bounds and other kinds.
    #[getter]
    fn bounds(&self, py: Python<'_>) -> Option<(Py<PyAny>, Py<PyAny>)> {
        let (lo, hi) = match &*self.p {
            Any::Lcp(l) => l.bounds().map(|(lo, hi)| (lo.to_vec(), hi.to_vec()))?,
            Any::Mlcp(m) => m.bounds(),
            Any::Ncp(n) => {
                let s = n.build();
                (s.lower, s.upper)
            }
            _ => return None,
        };
        Some((array(py, lo), array(py, hi)))
    }

    /// M (LCP, MLCP: for `perp.mlcp`, `[[A, C], [D, B]]`) or W (local frictional problem)
    /// as a dense 2-D array; None for other kinds.
    fn dense_matrix(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let m = match &*self.p {
            Any::Lcp(l) => l.m(),
            Any::Mlcp(m) => m.m(),
            Any::Friction(f) => &f.w,
            _ => return Ok(None),
        };
        let (r, c) = (m.nrows(), m.ncols());
        let v: Vec<f64> = match m {
            perp_core::Matrix::Dense(_) => (0..r).flat_map(|i| (0..c).map(move |j| m.get(i, j))).collect(),
            perp_core::Matrix::Sparse(_) => {
                let mut v = vec![0.0; r * c];
                for (x, (i, j)) in m.to_csr().iter() {
                    v[i * c + j] += *x;
                }
                v
            }
        };
        array2(py, r, c, v).map(Some)
    }

    /// Solves the problem (the default solver when `solver` is None); `history` and
    /// `callback` as for `solve_lcp`.
    #[pyo3(signature = (solver=None, tol=1e-8, max_iter=None, time_limit=None, warm=None, params=None,
                        history=false, callback=None))]
    fn solve(
        &self,
        py: Python<'_>,
        solver: Option<&str>,
        tol: f64,
        max_iter: Option<i64>,
        time_limit: Option<f64>,
        warm: Option<&Bound<'_, PyAny>>,
        params: Option<&Bound<'_, PyDict>>,
        history: bool,
        callback: Option<Py<PyAny>>,
    ) -> PyResult<Solution> {
        let options = crate::Options { tol, max_iter, time_limit, warm, params, history, callback };
        options.solve(py, self.p.clone(), solver, self.failure.clone())
    }

    fn __repr__(&self) -> String {
        format!("perp.Problem(kind={:?}, n={})", self.p.kind_name(), self.p.n())
    }
}
