//! The LCP, MLCP and NCP calls: `solve_lcp`, `solve_mlcp`, `solve_ncp`, and the problem
//! builders `lcp`, `mlcp`, `ncp` (an NCP's F and J may be Python callables).

use super::*;

/// Solves the LCP `0 ≤ z ⊥ w = M z + q ≥ 0`.
///
/// * `M`: n × n, a dense array-like or a sparse matrix (scipy.sparse, or any object with
///   `tocsr()` or with the CSR attributes `shape`, `indptr`, `indices`, `data`);
/// * `q`: length n;
/// * `solver`: a name of `solvers("lcp")`; default `lemke`, `fb-newton` for a box-LCP;
/// * `tol`: the error measure to reach (Siconos' measure, checked on the returned vectors);
/// * `max_iter`: iteration (pivot) limit, None for the solver's default;
/// * `time_limit`: seconds, None for none;
/// * `warm`: a starting z;
/// * `params`: solver parameters, e.g. `{"omega": 1.2}` for psor (checked against the
///   catalogue);
/// * `history`, `callback`: record the measured errors in `result.history`; call
///   `callback(iteration, error)` at each measured iteration (a true return stops the solve);
/// * `lower`, `upper`: bounds of a box-LCP, `lower ≤ z ≤ upper` with w ≥ 0 where z is at its
///   lower bound, w ≤ 0 at its upper bound, w = 0 between (a number for every entry or an
///   array; ±inf allowed; `lower` defaults to 0, `upper` to +inf).
///
/// Returns a `Result` (`z`, `w`, `status`, `error`, `iterations`, `seconds`, …); a solve
/// that does not converge returns its status, it does not raise. Raises `perp.Error` for bad
/// input (shapes, NaN, bounds with lower > upper, unknown solver or parameter).
#[pyfunction]
#[pyo3(signature = (M, q, solver=None, tol=1e-8, max_iter=None, time_limit=None, warm=None, params=None,
                    history=false, callback=None, lower=None, upper=None))]
#[allow(non_snake_case)]
pub(super) fn solve_lcp(
    py: Python<'_>,
    M: &Bound<'_, PyAny>,
    q: &Bound<'_, PyAny>,
    solver: Option<&str>,
    tol: f64,
    max_iter: Option<i64>,
    time_limit: Option<f64>,
    warm: Option<&Bound<'_, PyAny>>,
    params: Option<&Bound<'_, PyDict>>,
    history: bool,
    callback: Option<Py<PyAny>>,
    lower: Option<&Bound<'_, PyAny>>,
    upper: Option<&Bound<'_, PyAny>>,
) -> PyResult<Solution> {
    let lcp = problems::lcp_problem(py, [M, q], [lower, upper])?;
    // lemke takes no bounds: a box-LCP gets the semismooth Newton method by default.
    let boxed = matches!(&lcp, Any::Lcp(l) if l.bounds().is_some());
    let solver = solver.unwrap_or(if boxed { "fb-newton" } else { "lemke" });
    let options = Options { tol, max_iter, time_limit, warm, params, history, callback };
    options.solve(py, Arc::new(lcp), Some(solver), new_failure())
}

/// Solves the MLCP in Siconos' block notation (`MixedLinearComplementarityProblem`):
///
/// ```text
///     A u + C v + a = 0,   w = D u + B v + b,   0 ≤ v ⊥ w ≥ 0
/// ```
///
/// with u free (length `len(a)`) and v complementary (length `len(b)`). `A` (nu × nu), `C`
/// (nu × nv), `D` (nv × nu), `B` (nv × nv): dense or sparse, as `solve_lcp`'s M. `solver`: a
/// name of `solvers("mcp")`; the other arguments as for `solve_lcp` (`warm` a starting
/// `z = (u, v)`).
///
/// Returns a `Result` whose `z` is `(u, v)` and `w` is `(A u + C v + a, D u + B v + b)` (the
/// first `len(a)` entries the equations' residuals).
#[pyfunction]
#[pyo3(signature = (A, C, D, B, a, b, solver="fb-newton", tol=1e-8, max_iter=None, time_limit=None, warm=None,
                    params=None, history=false, callback=None))]
#[allow(non_snake_case)]
pub(super) fn solve_mlcp(
    py: Python<'_>,
    A: &Bound<'_, PyAny>,
    C: &Bound<'_, PyAny>,
    D: &Bound<'_, PyAny>,
    B: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    solver: &str,
    tol: f64,
    max_iter: Option<i64>,
    time_limit: Option<f64>,
    warm: Option<&Bound<'_, PyAny>>,
    params: Option<&Bound<'_, PyDict>>,
    history: bool,
    callback: Option<Py<PyAny>>,
) -> PyResult<Solution> {
    let p = problems::mlcp_problem(py, [A, C, D, B], [a, b])?;
    let options = Options { tol, max_iter, time_limit, warm, params, history, callback };
    options.solve(py, Arc::new(p), Some(solver), new_failure())
}

/// Solves the NCP `0 ≤ z ⊥ F(z) ≥ 0`, or the MCP (box-constrained variational inequality)
/// `lower ≤ z ≤ upper ⊥ F(z)` when bounds are given, with `F` written in Python.
///
/// * `F`: a callable, `F(z)` (z a numpy array of length n) returns n floats;
/// * `J`: a callable returning ∇F(z), n × n (row i the gradient of Fᵢ; dense or sparse), or
///   None for central differences of F;
/// * `lower`, `upper`: a number for every entry or an array of n, ±inf allowed (defaults 0
///   and +inf: the NCP);
/// * `x0`: the starting point (default 0, projected onto the bounds); n is the length of
///   `x0`, else of `lower`, else of `upper`;
/// * `solver`: a name of `solvers("mcp")` taking a nonlinear F (`fb-newton`,
///   `bdiff-newton`); the other arguments as for `solve_lcp`.
///
/// An exception raised by F or J stops the solve and is raised as `perp.Error` (the original
/// its `__cause__`). Returns a `Result` with `z` and `w = F(z)`.
#[pyfunction]
#[pyo3(signature = (F, J=None, lower=None, upper=None, x0=None, solver="fb-newton", tol=1e-8, max_iter=None,
                    time_limit=None, params=None, history=false, callback=None))]
#[allow(non_snake_case)]
pub(super) fn solve_ncp(
    py: Python<'_>,
    F: &Bound<'_, PyAny>,
    J: Option<&Bound<'_, PyAny>>,
    lower: Option<&Bound<'_, PyAny>>,
    upper: Option<&Bound<'_, PyAny>>,
    x0: Option<&Bound<'_, PyAny>>,
    solver: &str,
    tol: f64,
    max_iter: Option<i64>,
    time_limit: Option<f64>,
    params: Option<&Bound<'_, PyDict>>,
    history: bool,
    callback: Option<Py<PyAny>>,
) -> PyResult<Solution> {
    let failure = new_failure();
    let p = problems::ncp_problem(py, (F, J), [lower, upper, x0], &failure)?;
    let options = Options { tol, max_iter, time_limit, warm: None, params, history, callback };
    options.solve(py, Arc::new(p), Some(solver), failure)
}

/// The LCP (or box-LCP, with `lower`/`upper`) of `M` and `q` as a `Problem`, to be solved by
/// `Problem.solve` or a kept `perp.Solver`; arguments as for `solve_lcp`.
#[pyfunction]
#[pyo3(signature = (M, q, lower=None, upper=None))]
#[allow(non_snake_case)]
pub(super) fn lcp(
    py: Python<'_>,
    M: &Bound<'_, PyAny>,
    q: &Bound<'_, PyAny>,
    lower: Option<&Bound<'_, PyAny>>,
    upper: Option<&Bound<'_, PyAny>>,
) -> PyResult<Problem> {
    Ok(Problem::new(problems::lcp_problem(py, [M, q], [lower, upper])?))
}

/// The MLCP `A u + C v + a = 0`, `w = D u + B v + b`, `0 ≤ v ⊥ w ≥ 0` as a `Problem`;
/// arguments as for `solve_mlcp`.
#[pyfunction]
#[allow(non_snake_case)]
pub(super) fn mlcp(
    py: Python<'_>,
    A: &Bound<'_, PyAny>,
    C: &Bound<'_, PyAny>,
    D: &Bound<'_, PyAny>,
    B: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Problem> {
    Ok(Problem::new(problems::mlcp_problem(py, [A, C, D, B], [a, b])?))
}

/// The NCP/MCP of a Python `F` (and `J`) as a `Problem`; arguments as for `solve_ncp`. An
/// exception raised by F or J during a solve is raised by that solve as `perp.Error`.
#[pyfunction]
#[pyo3(signature = (F, J=None, lower=None, upper=None, x0=None))]
#[allow(non_snake_case)]
pub(super) fn ncp(
    py: Python<'_>,
    F: &Bound<'_, PyAny>,
    J: Option<&Bound<'_, PyAny>>,
    lower: Option<&Bound<'_, PyAny>>,
    upper: Option<&Bound<'_, PyAny>>,
    x0: Option<&Bound<'_, PyAny>>,
) -> PyResult<Problem> {
    let failure = new_failure();
    let p = problems::ncp_problem(py, (F, J), [lower, upper, x0], &failure)?;
    Ok(Problem::with_failure(p, failure))
}
