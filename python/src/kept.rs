//! `perp.Solver`: a solver kept across solves ("prepare once, solve many").

use crate::problems::{lcp_problem, mlcp_problem, ncp_problem};
use crate::result::{Problem, Solution};
use crate::{convert, friction_problem, new_failure, perp_error, solve_with, to_py};
use perp_catalogue::{Family, Problem as Any, Solver};
use perp_core::Settings;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex};

/// A solver built once by name, with its settings and parameters, and kept across solves: it
/// keeps what it prepared for a problem's structure (workspaces, factor storage, a sparse W's
/// symbolic factorization, W's blocks) and `bdiff-newton` its hot start, so that a loop of
/// solves of problems of one structure (a simulation's steps) pays for that once. Its answers
/// equal `solve_lcp`'s and `solve_friction`'s with the same solver and settings.
#[pyclass(module = "perp", name = "Solver", frozen)]
pub struct KeptSolver {
    inner: Arc<Mutex<Solver>>,
    family: Family,
    settings: Settings,
    /// The solver's name.
    #[pyo3(get)]
    name: String,
}

impl KeptSolver {
    /// Solves `problem` with the kept solver, the GIL released.
    fn run(
        &self,
        py: Python<'_>,
        problem: Arc<Any>,
        warm: Option<&Bound<'_, PyAny>>,
        failure: crate::cone::Failure,
    ) -> PyResult<Solution> {
        let warm = convert::warm(py, warm, problem.n())?;
        let inner = self.inner.clone();
        solve_with(py, problem, warm, self.settings.clone(), failure, move |p, warm, s| {
            // A panic in an earlier solve leaves the solver usable: its next solve starts anew.
            let mut sv = inner.lock().unwrap_or_else(|e| e.into_inner());
            sv.solve(p, warm, s)
        })
    }
}

/// The family of `name` when `perp.Solver` is given none: its one family, the frictional one
/// for a name that has it among others (`fb-newton`, the old default), else an error.
fn family_of_name(name: &str) -> PyResult<Family> {
    let families = perp_catalogue::families_of(name);
    match families.as_slice() {
        [] => Err(to_py(perp_core::Error::unknown_solver(name, &perp_catalogue::all_names()))),
        [f] => Ok(*f),
        _ if families.contains(&Family::Friction) => Ok(Family::Friction),
        _ => Err(perp_error(format!(
            "{name} is a solver of several families ({}): give family=",
            families.iter().map(|f| format!("{:?}", f.as_str())).collect::<Vec<_>>().join(" or ")
        ))),
    }
}

#[pymethods]
impl KeptSolver {
    /// `name` a solver of the catalogue (see `solvers(family)`); `family` (`"lcp"`, `"mcp"` or
    /// `"friction"`) is needed only for a name several families have: `perp.Solver("lemke")`
    /// is the LCP solver, `perp.Solver("fb-newton")` the frictional one (as before `family`
    /// was optional), `bdiff-newton` (LCP and MCP) needs it. `tol`, `max_iter`, `time_limit`
    /// and `params` as for `solve_lcp`, fixed for the solver's lifetime.
    #[new]
    #[pyo3(signature = (name, family=None, tol=1e-8, max_iter=None, time_limit=None, params=None))]
    fn new(
        name: &str,
        family: Option<&str>,
        tol: f64,
        max_iter: Option<i64>,
        time_limit: Option<f64>,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<KeptSolver> {
        let family = match family {
            Some("lcp") => Family::Lcp,
            Some("mcp") => Family::Mcp,
            Some("friction") => Family::Friction,
            Some(other) => {
                return Err(perp_error(format!(
                    "family = {other:?}: must be \"lcp\", \"mcp\" or \"friction\""
                )))
            }
            None => family_of_name(name)?,
        };
        let settings = convert::settings(tol, max_iter, time_limit)?;
        let params = convert::params(params)?;
        let solver = perp_catalogue::build(family, name, &params).map_err(to_py)?;
        Ok(KeptSolver { inner: Arc::new(Mutex::new(solver)), family, settings, name: name.to_string() })
    }

    /// The family of problems it takes: `lcp`, `mcp` or `friction`.
    #[getter]
    fn family(&self) -> &'static str {
        self.family.as_str()
    }

    /// Solves the LCP of `M` and `q` (a box-LCP with `lower`/`upper`, as `solve_lcp`), from
    /// `warm` when given.
    #[pyo3(signature = (M, q, warm=None, lower=None, upper=None))]
    #[allow(non_snake_case)]
    fn solve_lcp(
        &self,
        py: Python<'_>,
        M: &Bound<'_, PyAny>,
        q: &Bound<'_, PyAny>,
        warm: Option<&Bound<'_, PyAny>>,
        lower: Option<&Bound<'_, PyAny>>,
        upper: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Solution> {
        let p = lcp_problem(py, [M, q], [lower, upper])?;
        self.run(py, Arc::new(p), warm, new_failure())
    }

    /// Solves the MLCP `A u + C v + a = 0`, `w = D u + B v + b`, `0 ≤ v ⊥ w ≥ 0` (as
    /// `solve_mlcp`), from `warm` (a starting `(u, v)`) when given.
    #[pyo3(signature = (A, C, D, B, a, b, warm=None))]
    #[allow(non_snake_case)]
    fn solve_mlcp(
        &self,
        py: Python<'_>,
        A: &Bound<'_, PyAny>,
        C: &Bound<'_, PyAny>,
        D: &Bound<'_, PyAny>,
        B: &Bound<'_, PyAny>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        warm: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Solution> {
        let p = mlcp_problem(py, [A, C, D, B], [a, b])?;
        self.run(py, Arc::new(p), warm, new_failure())
    }

    /// Solves the NCP/MCP of a Python `F` (as `solve_ncp`), from `warm` (else `x0`, else 0).
    #[pyo3(signature = (F, J=None, lower=None, upper=None, x0=None, warm=None))]
    #[allow(non_snake_case)]
    fn solve_ncp(
        &self,
        py: Python<'_>,
        F: &Bound<'_, PyAny>,
        J: Option<&Bound<'_, PyAny>>,
        lower: Option<&Bound<'_, PyAny>>,
        upper: Option<&Bound<'_, PyAny>>,
        x0: Option<&Bound<'_, PyAny>>,
        warm: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Solution> {
        let failure = new_failure();
        let p = ncp_problem(py, (F, J), [lower, upper, x0], &failure)?;
        self.run(py, Arc::new(p), warm, failure)
    }

    /// Solves the frictional problem of `W`, `q`, `mu`, `dim` and `cone` or `mu_r` (as
    /// `solve_friction`), from `warm` (a starting r) when given.
    #[pyo3(signature = (W, q, mu, dim=3, cone=None, warm=None, mu_r=None))]
    #[allow(non_snake_case)]
    fn solve_friction(
        &self,
        py: Python<'_>,
        W: &Bound<'_, PyAny>,
        q: &Bound<'_, PyAny>,
        mu: &Bound<'_, PyAny>,
        dim: i64,
        cone: Option<&Bound<'_, PyAny>>,
        warm: Option<&Bound<'_, PyAny>>,
        mu_r: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Solution> {
        let failure = new_failure();
        let p = friction_problem(py, [W, q, mu], dim, (cone, mu_r), &failure)?;
        self.run(py, Arc::new(p), warm, failure)
    }

    /// Solves a problem read by `perp.read` or built by `perp.lcp`, `perp.mlcp` or
    /// `perp.ncp`, from `warm` when given.
    #[pyo3(signature = (problem, warm=None))]
    fn solve(
        &self,
        py: Python<'_>,
        problem: &Problem,
        warm: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Solution> {
        self.run(py, problem.p.clone(), warm, problem.failure.clone())
    }

    fn __repr__(&self) -> String {
        format!("perp.Solver({:?}, family={:?})", self.name, self.family.as_str())
    }
}
