//! `perp._perp`: the extension module behind the `perp` Python package (`python/perp/`).
//!
//! Thin over the Rust crates: every solver is picked by name through `perp_catalogue`, every
//! file is read by `perp_formats::convert::read_with_kind` (what `perp solve` reads), scenes
//! come from `perp_dynamics::scenes`. Solves run with the GIL released; a Python friction law
//! ([`cone::PyCone`]) takes it back for each call. Every error, Rust or Python, reaches Python
//! as `perp.Error` (a `ValueError`) with the Rust message.
//!
//! This file holds the errors, the interrupt and solve helpers, `solvers`, `read` and the
//! module's table; the calls are in `complementarity`, `friction` and `simulation`.

mod complementarity;
mod cone;
mod convert;
mod friction;
mod kept;
mod problems;
mod result;
mod sensitivity;
mod simulation;
mod trajectory;

use cone::{Failure, PyCone};
use perp_catalogue::{Family, Params, Problem as Any, ProblemKind};
use perp_cones::{ConeSpec, FrictionContactProblem};
use perp_core::{Control, Progress, Settings};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use result::{Problem, Solution};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use trajectory::Simulation;

use complementarity::*;
pub(crate) use friction::*;
use simulation::*;

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

/// The solve options of the `solve_*` calls' keyword arguments (`tol`, `max_iter`,
/// `time_limit`, `warm`, `params`, `history`, `callback`; see `solve_lcp`).
pub(crate) struct Options<'a, 'py> {
    pub(crate) tol: f64,
    pub(crate) max_iter: Option<i64>,
    pub(crate) time_limit: Option<f64>,
    pub(crate) warm: Option<&'a Bound<'py, PyAny>>,
    pub(crate) params: Option<&'a Bound<'py, PyDict>>,
    pub(crate) history: bool,
    pub(crate) callback: Option<Py<PyAny>>,
}

impl Options<'_, '_> {
    /// Solves `problem` by `solver` (None: the default) with these options; an exception of
    /// a Python law or of the callback is kept in `failure` and raised after the solve.
    pub(crate) fn solve(
        self,
        py: Python<'_>,
        problem: Arc<Any>,
        solver: Option<&str>,
        failure: Failure,
    ) -> PyResult<Solution> {
        let settings = watch(
            convert::settings(self.tol, self.max_iter, self.time_limit)?,
            self.history,
            self.callback,
            &failure,
        );
        let params = convert::params(self.params)?;
        let warm = convert::warm(py, self.warm, problem.n())?;
        solve_problem(py, problem, solver, &params, warm, settings, failure)
    }
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
