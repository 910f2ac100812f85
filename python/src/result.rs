//! The Python classes: `perp.Result` (an answer and its report), `perp.Problem` (a problem
//! read from a file) and `perp.Simulation` (a recorded trajectory), and `simulate`.

use crate::cone::Failure;
use crate::sensitivity::Sensitivity;
use crate::{convert, perp_error, to_py};
use numpy::{PyArray1, PyArrayMethods};
use perp_catalogue::{Answer, Family, Params, Problem as Any};
use perp_core::SolveReport;
use perp_dynamics::scenes;
use perp_dynamics::{Activation, Directions, Formulation, Simulator, Trajectory};
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;
use std::time::Instant;

fn array(py: Python<'_>, v: Vec<f64>) -> Py<PyAny> {
    PyArray1::from_vec(py, v).into_any().unbind()
}

/// `rows × cols` values, row by row, as a 2-D numpy array.
fn array2(py: Python<'_>, rows: usize, cols: usize, v: Vec<f64>) -> PyResult<Py<PyAny>> {
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
    #[allow(clippy::too_many_arguments)]
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
        let failure = self.failure.clone();
        let settings =
            crate::watch(convert::settings(tol, max_iter, time_limit)?, history, callback, &failure);
        let params = convert::params(params)?;
        let warm = convert::warm(py, warm, self.p.n())?;
        crate::solve_problem(py, self.p.clone(), solver, &params, warm, settings, failure)
    }

    fn __repr__(&self) -> String {
        format!("perp.Problem(kind={:?}, n={})", self.p.kind_name(), self.p.n())
    }
}

/// A recorded trajectory: `data` (steps × columns) with its `columns` names, and views of it.
#[pyclass(module = "perp", name = "Simulation", frozen)]
pub struct Simulation {
    /// Column names: `t`, the positions, the velocities, the impulses `P<i>_<n|t|o|r>` of each
    /// contact, `iterations`, `factorizations`.
    #[pyo3(get)]
    columns: Vec<String>,
    rows: Vec<Vec<f64>>,
    /// Where the positions, velocities and impulses are among the kept columns, and the
    /// iterations (all of them unless `columns=` chose).
    q_cols: Vec<usize>,
    u_cols: Vec<usize>,
    p_cols: Vec<usize>,
    it_col: Option<usize>,
    fa_col: Option<usize>,
    /// The scene's name.
    #[pyo3(get)]
    scene: String,
    /// Time steps taken.
    #[pyo3(get)]
    steps: usize,
    /// Contact problems solved.
    #[pyo3(get)]
    solves: usize,
    /// Solves that did not end `solved`.
    #[pyo3(get)]
    unsolved: usize,
    /// The largest error measure of a solve.
    #[pyo3(get)]
    max_error: f64,
    /// Wall time of the run, in seconds.
    #[pyo3(get)]
    seconds: f64,
}

impl Simulation {
    fn block(&self, py: Python<'_>, cols: &[usize]) -> PyResult<Py<PyAny>> {
        let v: Vec<f64> = self.rows.iter().flat_map(|r| cols.iter().map(|&k| r[k])).collect();
        array2(py, self.rows.len(), cols.len(), v)
    }

    /// Column `col` of every row, or an empty array when `columns=` left it out.
    fn optional_column(&self, py: Python<'_>, col: Option<usize>) -> Py<PyAny> {
        array(py, col.map_or_else(Vec::new, |k| self.rows.iter().map(|r| r[k]).collect()))
    }
}

#[pymethods]
impl Simulation {
    /// Every recorded value: one row per recorded step, one column per name in `columns`.
    #[getter]
    fn data(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let all: Vec<usize> = (0..self.columns.len()).collect();
        self.block(py, &all)
    }

    /// The recorded times.
    #[getter]
    fn t(&self, py: Python<'_>) -> Py<PyAny> {
        array(py, self.rows.iter().map(|r| r[0]).collect())
    }

    /// Positions, one row per recorded step (those kept by `columns=`).
    #[getter]
    fn q(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.block(py, &self.q_cols)
    }

    /// Velocities, one row per recorded step (those kept by `columns=`).
    #[getter]
    fn u(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.block(py, &self.u_cols)
    }

    /// Contact impulses (normal first, per contact), one row per recorded step.
    #[getter]
    fn impulses(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.block(py, &self.p_cols)
    }

    /// Solver iterations of each recorded step (empty when `columns=` left them out).
    #[getter]
    fn iterations(&self, py: Python<'_>) -> Py<PyAny> {
        self.optional_column(py, self.it_col)
    }

    /// Matrix factorizations of each recorded step's solves (empty when `columns=` left them
    /// out).
    #[getter]
    fn factorizations(&self, py: Python<'_>) -> Py<PyAny> {
        self.optional_column(py, self.fa_col)
    }

    /// One column by name, e.g. `sim["t"]`.
    fn __getitem__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        match self.columns.iter().position(|c| c == name) {
            Some(k) => Ok(array(py, self.rows.iter().map(|r| r[k]).collect())),
            None => Err(pyo3::exceptions::PyKeyError::new_err(format!(
                "{name}: no such column (columns: {})",
                self.columns.join(", ")
            ))),
        }
    }

    fn __len__(&self) -> usize {
        self.rows.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "perp.Simulation(scene={:?}, steps={}, rows={}, unsolved={})",
            self.scene,
            self.steps,
            self.rows.len(),
            self.unsolved
        )
    }
}

/// `simulate`'s arguments, owned (the run happens with the GIL released).
pub struct SimArgs {
    pub scene: String,
    pub size: Option<usize>,
    pub dt: Option<f64>,
    pub t_end: Option<f64>,
    pub solver: Option<String>,
    pub formulation: Option<String>,
    pub every: usize,
    pub warm_start: bool,
    pub activation: Option<String>,
    pub tol: Option<f64>,
    pub params: Params,
    /// `columns=`: groups or column names (see `perp_dynamics::trajectory::select_columns`).
    pub columns: Option<Vec<String>>,
}

/// Runs a scene as `perp simulate` does (`src/cmd/simulate.rs`: the same option handling).
pub fn simulate(py: Python<'_>, a: SimArgs) -> PyResult<Simulation> {
    let formulation = match a.formulation.as_deref() {
        None => None,
        Some(f @ ("gs" | "st" | "cone" | "tp" | "convex" | "compliant")) => Some(f.to_string()),
        Some(f) => {
            return Err(perp_error(format!(
                "formulation = {f:?}: must be \"gs\", \"st\", \"cone\", \"tp\", \"convex\" or \"compliant\""
            )))
        }
    };
    let activation = match a.activation.as_deref() {
        None => None,
        Some("gap") => Some(Activation::Gap),
        Some("persistent") => Some(Activation::Persistent),
        Some(x) => return Err(perp_error(format!("activation = {x:?}: must be \"gap\" or \"persistent\""))),
    };
    let settings = match a.tol {
        Some(t) => Some(convert::settings(t, None, None)?),
        None => None,
    };
    let failure = crate::new_failure();
    let interrupt = crate::Interrupt::new(&failure);
    let run = move || -> Result<Simulation, perp_core::Error> {
        let scene = scenes::scene(&a.scene, a.size)?;
        let mut opts = scene.default_options();
        if let Some(f) = &formulation {
            // As `perp simulate`: the new formulation's defaults replace a solver and a
            // fallback chain of another family.
            opts.set_formulation(match f.as_str() {
                "gs" => Formulation::GlockerStuder,
                "st" => {
                    Formulation::StewartTrinkle(scene.stewart_directions().unwrap_or(Directions::Uniform(8)))
                }
                "tp" => Formulation::TzitzourisPang,
                "convex" => Formulation::Convex,
                "compliant" => Formulation::Compliant(perp_dynamics::Compliant::default()),
                _ => Formulation::Cone,
            });
        }
        if a.solver.is_some() {
            opts.solver = a.solver.clone();
            opts.params = Params::new();
        }
        if !a.params.is_empty() {
            opts.params = a.params.clone();
        }
        if let Some(s) = settings {
            opts.settings.tol = s.tol;
        }
        opts.warm_start = a.warm_start;
        if let Some(act) = activation {
            opts.activation = act;
        }
        let dt = a.dt.unwrap_or_else(|| scene.default_dt());
        let t_end = a.t_end.unwrap_or_else(|| scene.default_t_end());
        if !(dt.is_finite() && dt > 0.0) {
            return Err(perp_core::Error::setting("dt", dt, "must be a positive time step"));
        }
        if !(t_end.is_finite() && t_end > 0.0) {
            return Err(perp_core::Error::setting("t_end", t_end, "must be a positive time"));
        }
        let (q0, u0) = scene.initial_state();
        let (nq, nu) = (q0.len(), u0.len());
        let sys: &dyn perp_dynamics::System = scene.as_ref();
        // Ctrl-C stops a long solve (the observer) and the run between steps.
        opts.settings = interrupt.settings(std::mem::take(&mut opts.settings));
        let mut sim = Simulator::new(sys, q0, u0, dt, opts)?;
        let (qn, un) = scene.state_names();
        let start = Instant::now();
        let all = sim.columns(Some((&qn, &un)));
        let keep: Vec<usize> = match &a.columns {
            Some(spec) => {
                let spec: Vec<&str> = spec.iter().map(String::as_str).collect();
                perp_dynamics::trajectory::select_columns(&all, nq, nu, &spec)?
            }
            None => (0..all.len()).collect(),
        };
        // Where each group landed among the kept columns.
        let within = |lo: usize, hi: usize| -> Vec<usize> {
            keep.iter().enumerate().filter(|(_, &k)| (lo..hi).contains(&k)).map(|(i, _)| i).collect()
        };
        // The last two columns: iterations, factorizations.
        let (q_cols, u_cols, p_cols) =
            (within(1, 1 + nq), within(1 + nq, 1 + nq + nu), within(1 + nq + nu, all.len() - 2));
        let it_col = keep.iter().position(|&k| k == all.len() - 2);
        let fa_col = keep.iter().position(|&k| k == all.len() - 1);
        let mut traj = Trajectory::new(keep.iter().map(|&k| all[k].clone()).collect());
        sim.run_observed(
            t_end,
            a.every,
            &mut |row| {
                traj.push(keep.iter().map(|&k| row[k]).collect());
                Ok(())
            },
            &mut |_, _| {
                if interrupt.poll() {
                    Err(perp_core::Error::setting("simulate", "interrupted", "KeyboardInterrupt"))
                } else {
                    Ok(())
                }
            },
        )?;
        let st = &sim.stats;
        Ok(Simulation {
            columns: traj.columns,
            rows: traj.rows,
            q_cols,
            u_cols,
            p_cols,
            it_col,
            fa_col,
            scene: scene.name().to_string(),
            steps: st.steps,
            solves: st.solves,
            unsolved: st.unsolved,
            max_error: st.max_error,
            seconds: start.elapsed().as_secs_f64(),
        })
    };
    let out = py.detach(run);
    // The KeyboardInterrupt first: the run's own error, if any, is its consequence.
    if let Some(e) = failure.lock().ok().and_then(|mut f| f.take()) {
        return Err(e);
    }
    out.map_err(to_py)
}
