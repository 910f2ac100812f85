//! `perp._perp`: the extension module behind the `perp` Python package (`python/perp/`).
//!
//! Thin over the Rust crates: every solver is picked by name through `perp_catalogue`, every
//! file is read by `perp_formats::convert::read_with_kind` (what `perp solve` reads), scenes
//! come from `perp_dynamics::scenes`. Solves run with the GIL released; a Python friction law
//! ([`cone::PyCone`]) takes it back for each call. Every error, Rust or Python, reaches Python
//! as `perp.Error` (a `ValueError`) with the Rust message.

mod cone;
mod convert;
mod kept;
mod problems;
mod result;
mod sensitivity;

use cone::{Failure, PyCone};
use perp_catalogue::{Family, Params, Problem as Any, ProblemKind};
use perp_cones::{ConeSpec, FrictionContactProblem};
use perp_core::{Control, Progress, Settings};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use result::{Problem, Simulation, Solution};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

pyo3::create_exception!(
    perp,
    Error,
    PyValueError,
    "Bad input or a failed call: the message is perp's (it names the argument and the value)."
);

/// A `perp.Error` with `msg`.
pub(crate) fn perp_error(msg: impl Into<String>) -> PyErr {
    Error::new_err(msg.into())
}

/// A Rust error as `perp.Error`.
pub(crate) fn to_py(e: perp_core::Error) -> PyErr {
    perp_error(e.to_string())
}

/// The Ctrl-C check of a call that runs with the GIL released: [`Interrupt::poll`] takes the
/// GIL at most every 50 ms to run Python's signal handlers, and keeps the exception they
/// raise (`KeyboardInterrupt`) in `failure`, to be raised when the call returns.
#[derive(Clone)]
pub(crate) struct Interrupt {
    failure: Failure,
    start: Instant,
    /// Milliseconds after `start` of the last check.
    last: Arc<AtomicU64>,
    /// Set once a signal handler raised: every later poll says stop at once.
    raised: Arc<AtomicBool>,
}

impl Interrupt {
    pub(crate) fn new(failure: &Failure) -> Interrupt {
        Interrupt {
            failure: failure.clone(),
            start: Instant::now(),
            last: Arc::new(AtomicU64::new(0)),
            raised: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Whether the call is to stop: a signal handler raised now or at an earlier poll.
    pub(crate) fn poll(&self) -> bool {
        if self.raised.load(Ordering::Relaxed) {
            return true;
        }
        let ms = self.start.elapsed().as_millis() as u64;
        if ms < self.last.load(Ordering::Relaxed) + 50 {
            return false;
        }
        self.last.store(ms, Ordering::Relaxed);
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                if let Ok(mut f) = self.failure.lock() {
                    f.get_or_insert(e);
                }
                self.raised.store(true, Ordering::Relaxed);
                true
            }
        }
    }

    /// `s` with an observer that stops the solve when [`Interrupt::poll`] says so, and
    /// otherwise asks the observer `s` had (a `callback=`).
    pub(crate) fn settings(&self, mut s: Settings) -> Settings {
        let me = self.clone();
        let inner = s.observer.take();
        s.observer = Some(Arc::new(move |p: &Progress| {
            if me.poll() {
                Control::Stop
            } else {
                inner.as_ref().map_or(Control::Continue, |f| f(p))
            }
        }));
        s
    }
}

/// `history=` and `callback=` of the solve calls, on `s`: the history recorded, and an
/// observer that calls `callback(iteration, error)` (taking the GIL) at every iteration whose
/// error the solver measured; a true return stops the solve (status `interrupted`), an
/// exception stops it and is raised after it as `perp.Error` (kept in `failure`).
pub(crate) fn watch(
    mut s: Settings,
    history: bool,
    callback: Option<Py<PyAny>>,
    failure: &Failure,
) -> Settings {
    s.record_history = history;
    if let Some(cb) = callback {
        let failure = failure.clone();
        s.observer = Some(Arc::new(move |p: &Progress| {
            if !p.measured {
                return Control::Continue;
            }
            Python::attach(|py| match cb.call1(py, (p.iteration, p.error)).and_then(|r| r.is_truthy(py)) {
                Ok(true) => Control::Stop,
                Ok(false) => Control::Continue,
                Err(e) => {
                    // As perp.Error naming the callback, the original its __cause__.
                    let name = e.get_type(py).name().map(|n| n.to_string()).unwrap_or_default();
                    let err = perp_error(format!("the callback raised {name}: {}", e.value(py)));
                    err.set_cause(py, Some(e));
                    if let Ok(mut f) = failure.lock() {
                        f.get_or_insert(err);
                    }
                    Control::Stop
                }
            })
        }));
    }
    s
}

/// Adds to `s` an observer that checks for Ctrl-C every 50 ms (taking the GIL for that
/// moment) and stops the solve, keeping the `KeyboardInterrupt` in `failure`.
fn interruptible(s: Settings, failure: &Failure) -> Settings {
    Interrupt::new(failure).settings(s)
}

/// Solves `problem` with the GIL released; a Python error kept by a cone or the interrupt
/// check is raised (as `perp.Error` naming the cone, or as the `KeyboardInterrupt` itself).
pub(crate) fn solve_problem(
    py: Python<'_>,
    problem: Arc<Any>,
    solver: Option<&str>,
    params: &Params,
    warm: Option<Vec<f64>>,
    settings: Settings,
    failure: Failure,
) -> PyResult<Solution> {
    solve_with(py, problem, warm, settings, failure, |p, warm, s| {
        perp_catalogue::solve(p, solver, params, warm, s)
    })
}

/// [`solve_problem`] with the solve given: `solve(problem, warm, settings)` runs with the GIL
/// released (a kept `perp.Solver` passes its own).
pub(crate) fn solve_with(
    py: Python<'_>,
    problem: Arc<Any>,
    warm: Option<Vec<f64>>,
    settings: Settings,
    failure: Failure,
    solve: impl FnOnce(&Any, Option<&[f64]>, &Settings) -> Result<perp_catalogue::Answer, perp_core::Error> + Send,
) -> PyResult<Solution> {
    let s = interruptible(settings, &failure);
    let answer = py.detach(|| solve(&problem, warm.as_deref(), &s));
    let kept = failure.lock().ok().and_then(|mut f| f.take());
    if let Some(e) = kept {
        // The interrupt, and perp's own complaints about a law (wrong lengths, not a
        // projection), as they are; an exception raised by the law's code as perp.Error.
        if e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) || e.is_instance_of::<Error>(py) {
            return Err(e);
        }
        let err = perp_error(format!("the friction law raised {}: {}", e.get_type(py).name()?, e.value(py)));
        err.set_cause(py, Some(e));
        return Err(err);
    }
    let answer = answer.map_err(to_py)?;
    Ok(Solution::new(py, problem, answer, failure))
}

pub(crate) fn new_failure() -> Failure {
    Arc::new(Mutex::new(None))
}

/// The catalogue's solver names: all of them (each once), or those for one kind of problem,
/// `"lcp"`, `"mcp"` (MCP, NCP, MLCP) or `"friction"`. `perp list` prints their papers and
/// parameters.
#[pyfunction]
#[pyo3(signature = (kind=None))]
fn solvers(kind: Option<&str>) -> PyResult<Vec<&'static str>> {
    let family = match kind {
        None => {
            return Ok(perp_catalogue::ENTRIES.iter().map(|e| e.name).fold(Vec::new(), |mut v, n| {
                if !v.contains(&n) {
                    v.push(n);
                }
                v
            }))
        }
        Some("lcp") => Family::Lcp,
        Some("mcp" | "ncp" | "mlcp") => Family::Mcp,
        Some("friction" | "fc" | "fc2d" | "fc3d") => Family::Friction,
        Some(k) => {
            return Err(perp_error(format!(
                "kind = {k:?}: must be one of \"lcp\", \"mcp\", \"friction\" (or None)"
            )))
        }
    };
    Ok(perp_catalogue::names(family).to_vec())
}

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
#[allow(non_snake_case, clippy::too_many_arguments)]
fn solve_lcp(
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
    let lcp = problems::lcp_problem(py, M, q, lower, upper)?;
    // lemke takes no bounds: a box-LCP gets the semismooth Newton method by default.
    let boxed = matches!(&lcp, Any::Lcp(l) if l.bounds().is_some());
    let solver = solver.unwrap_or(if boxed { "fb-newton" } else { "lemke" });
    let failure = new_failure();
    let settings = watch(convert::settings(tol, max_iter, time_limit)?, history, callback, &failure);
    let params = convert::params(params)?;
    let warm = convert::warm(py, warm, lcp.n())?;
    solve_problem(py, Arc::new(lcp), Some(solver), &params, warm, settings, failure)
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
#[allow(non_snake_case, clippy::too_many_arguments)]
fn solve_mlcp(
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
    let p = problems::mlcp_problem(py, A, C, D, B, a, b)?;
    let failure = new_failure();
    let settings = watch(convert::settings(tol, max_iter, time_limit)?, history, callback, &failure);
    let params = convert::params(params)?;
    let warm = convert::warm(py, warm, p.n())?;
    solve_problem(py, Arc::new(p), Some(solver), &params, warm, settings, failure)
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
#[allow(non_snake_case, clippy::too_many_arguments)]
fn solve_ncp(
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
    let p = problems::ncp_problem(py, F, J, lower, upper, x0, &failure)?;
    let settings = watch(convert::settings(tol, max_iter, time_limit)?, history, callback, &failure);
    let params = convert::params(params)?;
    solve_problem(py, Arc::new(p), Some(solver), &params, None, settings, failure)
}

/// The LCP (or box-LCP, with `lower`/`upper`) of `M` and `q` as a `Problem`, to be solved by
/// `Problem.solve` or a kept `perp.Solver`; arguments as for `solve_lcp`.
#[pyfunction]
#[pyo3(signature = (M, q, lower=None, upper=None))]
#[allow(non_snake_case)]
fn lcp(
    py: Python<'_>,
    M: &Bound<'_, PyAny>,
    q: &Bound<'_, PyAny>,
    lower: Option<&Bound<'_, PyAny>>,
    upper: Option<&Bound<'_, PyAny>>,
) -> PyResult<Problem> {
    Ok(Problem::new(problems::lcp_problem(py, M, q, lower, upper)?))
}

/// The MLCP `A u + C v + a = 0`, `w = D u + B v + b`, `0 ≤ v ⊥ w ≥ 0` as a `Problem`;
/// arguments as for `solve_mlcp`.
#[pyfunction]
#[allow(non_snake_case)]
fn mlcp(
    py: Python<'_>,
    A: &Bound<'_, PyAny>,
    C: &Bound<'_, PyAny>,
    D: &Bound<'_, PyAny>,
    B: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Problem> {
    Ok(Problem::new(problems::mlcp_problem(py, A, C, D, B, a, b)?))
}

/// The NCP/MCP of a Python `F` (and `J`) as a `Problem`; arguments as for `solve_ncp`. An
/// exception raised by F or J during a solve is raised by that solve as `perp.Error`.
#[pyfunction]
#[pyo3(signature = (F, J=None, lower=None, upper=None, x0=None))]
#[allow(non_snake_case)]
fn ncp(
    py: Python<'_>,
    F: &Bound<'_, PyAny>,
    J: Option<&Bound<'_, PyAny>>,
    lower: Option<&Bound<'_, PyAny>>,
    upper: Option<&Bound<'_, PyAny>>,
    x0: Option<&Bound<'_, PyAny>>,
) -> PyResult<Problem> {
    let failure = new_failure();
    let p = problems::ncp_problem(py, F, J, lower, upper, x0, &failure)?;
    Ok(Problem::with_failure(p, failure))
}

/// The friction laws of `cone`: None (Coulomb), one `perp.Cone` for every contact, or a
/// sequence of them, one per contact.
fn cone_specs(cone: &Bound<'_, PyAny>, contacts: usize, failure: &Failure) -> PyResult<Vec<ConeSpec>> {
    let one = |c: &Bound<'_, PyAny>| -> PyResult<ConeSpec> {
        Ok(ConeSpec::Custom(Arc::new(PyCone::new(c, failure.clone())?)))
    };
    if cone.is_instance_of::<PyList>() || cone.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = cone.try_iter()?.collect::<PyResult<_>>()?;
        if items.len() != contacts {
            return Err(perp_error(format!(
                "cone: {} friction laws given for {contacts} contacts",
                items.len()
            )));
        }
        return items.iter().map(one).collect();
    }
    let spec = one(cone)?;
    Ok(vec![spec; contacts])
}

/// Solves the frictional contact problem `u = W r + q`, `K ∋ r ⊥ ũ ∈ K*` in local form
/// (De Saxcé's modified velocity `ũ`; Coulomb's cone `‖r_T‖ ≤ μ r_N` unless `cone` says).
///
/// * `W`: the Delassus operator, (dim·nc) × (dim·nc), dense or sparse (as `solve_lcp`'s M);
/// * `q`: the free velocity, length dim·nc; each contact's normal component first;
/// * `mu`: one friction coefficient for every contact, or one per contact;
/// * `dim`: the contact dimension, 2 to 6 (3 for 3-D Coulomb friction);
/// * `solver`: a name of `solvers("friction")`;
/// * `cone`: None (Coulomb), a `perp.Cone` for every contact, or a list of them, one per
///   contact;
/// * `mu_r`: rolling resistance (issue 35): one rolling coefficient μ_r ≥ 0 for every
///   contact, or one per contact, making each contact's law Siconos' rolling cone
///   `‖r_T‖ ≤ μ r_N, ‖r_R‖ ≤ μ_r r_N` (`ũ_N = u_N + μ‖u_T‖ + μ_r‖u_R‖`); contacts of
///   dimension 5 (normal, 2 tangential, 2 rolling) or 3 in 2-D; not with `cone`. The
///   result's kind is `rfc3d` / `rfc2d` and its error Siconos' rolling one;
/// * `tol`, `warm` (a starting r), `max_iter`, `time_limit`, `params`: as for `solve_lcp`.
///
/// Returns a `Result` with `r`, `u` and the report. Raises `perp.Error` for bad input, and
/// for an exception raised by a Python cone (the original is its `__cause__`).
#[pyfunction]
#[pyo3(signature = (W, q, mu, dim=3, solver="prox", cone=None, tol=1e-8, warm=None, max_iter=None,
                    time_limit=None, params=None, history=false, callback=None, mu_r=None))]
#[allow(non_snake_case, clippy::too_many_arguments)]
fn solve_friction(
    py: Python<'_>,
    W: &Bound<'_, PyAny>,
    q: &Bound<'_, PyAny>,
    mu: &Bound<'_, PyAny>,
    dim: i64,
    solver: &str,
    cone: Option<&Bound<'_, PyAny>>,
    tol: f64,
    warm: Option<&Bound<'_, PyAny>>,
    max_iter: Option<i64>,
    time_limit: Option<f64>,
    params: Option<&Bound<'_, PyDict>>,
    history: bool,
    callback: Option<Py<PyAny>>,
    mu_r: Option<&Bound<'_, PyAny>>,
) -> PyResult<Solution> {
    let failure = new_failure();
    let p = friction_problem(py, W, q, mu, dim, cone, mu_r, &failure)?;
    let settings = watch(convert::settings(tol, max_iter, time_limit)?, history, callback, &failure);
    let params = convert::params(params)?;
    let warm = convert::warm(py, warm, p.n())?;
    solve_problem(py, Arc::new(p), Some(solver), &params, warm, settings, failure)
}

/// Solves the frictional contact problem in global form (Siconos' and FCLIB's
/// `GlobalFrictionContactProblem`) without forming W:
///
/// ```text
///   M v = f + H r,   u = Hᵀ v + b,   Coulomb's law between r and u at each contact
/// ```
///
/// * `M` (n × n, symmetric positive definite) and `H` (n × dim·nc): dense numpy or any
///   scipy.sparse matrix;
/// * `f` (length n), `b` (length dim·nc, each contact's normal component first);
/// * `mu`: one friction coefficient for every contact, or one per contact; `dim` 2 or 3;
/// * `solver`: `"global-ipm"` (interior point on the convex relaxation, then Newton to exact
///   Coulomb), `"global-ac-newton"`, or a local solver's name (run on the reduction
///   `W = Hᵀ M⁻¹ H`); `tol`, `warm` (a starting r), `max_iter`, `time_limit`, `params`,
///   `history`, `callback` as for `solve_friction`.
///
/// Returns a `Result` with `r`, `u`, `v` and the report; the error is Siconos' global one.
#[pyfunction]
#[pyo3(signature = (M, H, f, b, mu, dim=3, solver="global-ipm", tol=1e-8, warm=None, max_iter=None,
                    time_limit=None, params=None, history=false, callback=None))]
#[allow(non_snake_case, clippy::too_many_arguments)]
fn solve_global(
    py: Python<'_>,
    M: &Bound<'_, PyAny>,
    H: &Bound<'_, PyAny>,
    f: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    mu: &Bound<'_, PyAny>,
    dim: i64,
    solver: &str,
    tol: f64,
    warm: Option<&Bound<'_, PyAny>>,
    max_iter: Option<i64>,
    time_limit: Option<f64>,
    params: Option<&Bound<'_, PyDict>>,
    history: bool,
    callback: Option<Py<PyAny>>,
) -> PyResult<Solution> {
    if !(2..=3).contains(&dim) {
        return Err(perp_error(format!(
            "dim = {dim}: the global problem takes Coulomb contacts of dimension 2 or 3 (perp's global \
             form has no rolling or torsional cones yet: reduce to W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + b \
             and call solve_friction with mu_r= or cone=)"
        )));
    }
    let dim = dim as usize;
    let m = convert::matrix(py, M, "M")?;
    let h = convert::matrix(py, H, "H")?;
    let f = convert::vector(py, f, "f")?;
    let b = convert::vector(py, b, "b")?;
    let mu = convert::coefficients(py, mu, b.len() / dim)?;
    let g = perp_cones::GlobalFrictionContactProblem::new(dim, m, h, f, b, mu).map_err(to_py)?;
    let failure = new_failure();
    let settings = watch(convert::settings(tol, max_iter, time_limit)?, history, callback, &failure);
    let params = convert::params(params)?;
    let warm = convert::warm(py, warm, g.size())?;
    solve_problem(py, Arc::new(Any::GlobalFriction(g)), Some(solver), &params, warm, settings, failure)
}

/// The local frictional problem of `W`, `q`, `mu` (one, or one per contact), `dim` and
/// `cone` or `mu_r` (as `solve_friction` takes them), checked; a Python law keeps its
/// exception in `failure`.
#[allow(non_snake_case, clippy::too_many_arguments)]
pub(crate) fn friction_problem(
    py: Python<'_>,
    W: &Bound<'_, PyAny>,
    q: &Bound<'_, PyAny>,
    mu: &Bound<'_, PyAny>,
    dim: i64,
    cone: Option<&Bound<'_, PyAny>>,
    mu_r: Option<&Bound<'_, PyAny>>,
    failure: &Failure,
) -> PyResult<Any> {
    if !(2..=perp_cones::MAX_DIM as i64).contains(&dim) {
        return Err(perp_error(format!("dim = {dim}: the contact dimension must be between 2 and 6")));
    }
    let dim = dim as usize;
    let w = convert::matrix(py, W, "W")?;
    let q = convert::vector(py, q, "q")?;
    let contacts = w.nrows() / dim;
    let mu = convert::coefficients(py, mu, contacts)?;
    if let Some(m) = mu_r.filter(|m| !m.is_none()) {
        if cone.is_some_and(|c| !c.is_none()) {
            return Err(perp_error(
                "mu_r and cone: give one of them (mu_r makes every contact's law the rolling cone)"
                    .to_string(),
            ));
        }
        if dim != 3 && dim != 5 {
            return Err(perp_error(format!(
                "dim = {dim}: rolling contacts (mu_r) have dimension 5 (normal, 2 tangential, 2 rolling) \
                 or 3 in 2-D (normal, tangential, rolling)"
            )));
        }
        let mu_r = convert::coefficients_named(py, m, contacts, "mu_r")?;
        let p = FrictionContactProblem::rolling(dim, w, q, mu, mu_r).map_err(to_py)?;
        return Ok(Any::Friction(p));
    }
    let mut p = FrictionContactProblem::new(dim, w, q, mu).map_err(to_py)?;
    if let Some(c) = cone.filter(|c| !c.is_none()) {
        p = p.with_cones(cone_specs(c, contacts, failure)?).map_err(to_py)?;
    }
    Ok(Any::Friction(p))
}

/// Reads a problem file: every format `perp solve` reads (Siconos `.dat` — LCP, MLCP,
/// frictional contact local or global —, FCLIB `.hdf5`, MatrixMarket `.mtx`, JSON). `kind`
/// (`"lcp"`, `"mlcp"`, `"fc"`) skips the detection for Siconos files. Returns a `Problem`
/// with `kind`, `n` and `solve(...)`.
#[pyfunction]
#[pyo3(signature = (path, kind=None))]
fn read(py: Python<'_>, path: PathBuf, kind: Option<&str>) -> PyResult<Problem> {
    let kind = match kind {
        None => None,
        Some("lcp") => Some(ProblemKind::Lcp),
        Some("mlcp") => Some(ProblemKind::Mlcp),
        Some("fc" | "friction") => Some(ProblemKind::Friction),
        Some(k) => {
            return Err(perp_error(format!("kind = {k:?}: must be \"lcp\", \"mlcp\", \"fc\" or None")))
        }
    };
    let p = py.detach(|| perp_formats::convert::read_with_kind(&path, kind)).map_err(to_py)?;
    Ok(Problem::new(p))
}

/// The built-in scenes' names (for `simulate`).
#[pyfunction]
fn scenes() -> Vec<&'static str> {
    perp_dynamics::scenes::names()
}

/// Runs a built-in scene (see `scenes()`), as `perp simulate` does.
///
/// * `size`: the size of a scalable scene (`ball-pile`, `box-stack`);
/// * `dt`, `t_end`: time step and end time (default: the scene's paper's);
/// * `solver`, `params`: the contact solver (default: the formulation's);
/// * `formulation`: `"gs"` (Glocker–Studer LCP), `"st"` (Stewart–Trinkle LCP), `"cone"`
///   (exact cones), `"tp"` (Tzitzouris–Pang NCP), `"convex"` (Anitescu's relaxation, interior
///   point in velocity space) or `"compliant"` (SAP's regularised contact); default the
///   scene's;
/// * `every`: record every N-th step (and the first and last);
/// * `warm_start`: start each solve from the previous step's answer;
/// * `activation`: `"gap"` or `"persistent"`; `tol`: the solver's tolerance;
/// * `columns`: the columns to keep, as `perp simulate --columns`: groups (`"positions"`,
///   `"velocities"`, `"impulses"`, `"iterations"`) or names (`"b0_z"`); `t` always first.
///
/// Returns a `Simulation`: `data` (steps × `columns`), `t`, `q`, `u`, `impulses`,
/// `iterations` as numpy arrays, and the run's statistics.
///
/// Ctrl-C (SIGINT) is checked between steps and inside the solves, at most every 50 ms: it
/// stops the run and raises `KeyboardInterrupt`; nothing is kept (the steps done so far are
/// discarded).
#[pyfunction]
#[pyo3(signature = (scene, size=None, dt=None, t_end=None, solver=None, formulation=None, every=1,
                    warm_start=true, activation=None, tol=None, params=None, columns=None))]
#[allow(clippy::too_many_arguments)]
fn simulate(
    py: Python<'_>,
    scene: &str,
    size: Option<i64>,
    dt: Option<f64>,
    t_end: Option<f64>,
    solver: Option<String>,
    formulation: Option<&str>,
    every: i64,
    warm_start: bool,
    activation: Option<&str>,
    tol: Option<f64>,
    params: Option<&Bound<'_, PyDict>>,
    columns: Option<Vec<String>>,
) -> PyResult<Simulation> {
    if size.is_some_and(|n| n < 1) {
        return Err(perp_error(format!("size = {}: must be >= 1", size.unwrap_or(0))));
    }
    if every < 1 {
        return Err(perp_error(format!("every = {every}: must be >= 1")));
    }
    result::simulate(
        py,
        result::SimArgs {
            scene: scene.to_string(),
            size: size.map(|n| n as usize),
            dt,
            t_end,
            solver,
            formulation: formulation.map(str::to_string),
            every: every as usize,
            warm_start,
            activation: activation.map(str::to_string),
            tol,
            params: convert::params(params)?,
            columns,
        },
    )
}

/// Test hook: the section projection `P_{S_mu(xi)}(t)` and the support point
/// `(h(v), argmax)` that a Python law gets when it defines only `project` (`cone.rs`), to be
/// compared with closed forms.
#[pyfunction]
fn _derived(
    py: Python<'_>,
    cone: &Bound<'_, PyAny>,
    t: Vec<f64>,
    xi: f64,
    v: Vec<f64>,
    mu: f64,
) -> PyResult<(Vec<f64>, f64, Vec<f64>)> {
    use perp_cones::Cone;
    let failure = new_failure();
    let c = PyCone::new(cone, failure.clone())?.projection_only();
    if t.len() + 1 != c.dim() || v.len() + 1 != c.dim() {
        return Err(perp_error(format!("t and v must have dim - 1 = {} entries", c.dim() - 1)));
    }
    let (mut p, mut s) = (vec![0.0; t.len()], vec![0.0; v.len()]);
    let h = py.detach(|| {
        c.project_section(mu, xi, &t, &mut p, None, None);
        c.support(mu, &v, &mut s)
    });
    if let Some(e) = failure.lock().ok().and_then(|mut f| f.take()) {
        return Err(e);
    }
    Ok((p, h, s))
}

#[pymodule]
fn _perp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(solvers, m)?)?;
    m.add_function(wrap_pyfunction!(solve_lcp, m)?)?;
    m.add_function(wrap_pyfunction!(solve_friction, m)?)?;
    m.add_function(wrap_pyfunction!(solve_global, m)?)?;
    m.add_function(wrap_pyfunction!(solve_mlcp, m)?)?;
    m.add_function(wrap_pyfunction!(solve_ncp, m)?)?;
    m.add_function(wrap_pyfunction!(lcp, m)?)?;
    m.add_function(wrap_pyfunction!(mlcp, m)?)?;
    m.add_function(wrap_pyfunction!(ncp, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(scenes, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(_derived, m)?)?;
    m.add_class::<Solution>()?;
    m.add_class::<kept::KeptSolver>()?;
    m.add_class::<Problem>()?;
    m.add_class::<Simulation>()?;
    m.add_class::<sensitivity::Sensitivity>()?;
    Ok(())
}
