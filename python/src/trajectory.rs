//! The `perp.Simulation` class (a recorded trajectory and views of it) and the run behind
//! `simulate` (`simulation.rs` checks the Python arguments): a scene stepped as `perp
//! simulate` steps it, with the GIL released.

use crate::result::{array, array2};
use crate::{convert, perp_error, to_py};
use perp_catalogue::Params;
use perp_dynamics::scenes::{self, Scene};
use perp_dynamics::{Activation, Directions, Formulation, Simulator, StepOptions, Trajectory};
use pyo3::prelude::*;
use std::time::Instant;

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

/// `simulate`'s choices checked while the GIL is held: the formulation's name, the
/// activation and the tolerance.
struct Choices {
    formulation: Option<String>,
    activation: Option<Activation>,
    tol: Option<f64>,
}

impl Choices {
    fn of(a: &SimArgs) -> PyResult<Choices> {
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
            Some(x) => {
                return Err(perp_error(format!("activation = {x:?}: must be \"gap\" or \"persistent\"")))
            }
        };
        let tol = match a.tol {
            Some(t) => Some(convert::settings(t, None, None)?.tol),
            None => None,
        };
        Ok(Choices { formulation, activation, tol })
    }

    /// The scene's default options with `a`'s choices, as `perp simulate` applies them (with
    /// the compliant formulation, `params` are its contact model's).
    fn options(&self, scene: &dyn Scene, a: &SimArgs) -> Result<StepOptions, perp_core::Error> {
        let mut opts = scene.default_options();
        if let Some(f) = &self.formulation {
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
        if let Formulation::Compliant(c) = &mut opts.formulation {
            *c = perp_dynamics::Compliant::from_params(&a.params)?;
        } else if !a.params.is_empty() {
            opts.params = a.params.clone();
        }
        if let Some(tol) = self.tol {
            opts.settings.tol = tol;
        }
        opts.warm_start = a.warm_start;
        if let Some(act) = self.activation {
            opts.activation = act;
        }
        Ok(opts)
    }
}

/// The recorded columns (`keep`, indices into every column `all`) and where each group
/// landed among them.
struct Layout {
    keep: Vec<usize>,
    q_cols: Vec<usize>,
    u_cols: Vec<usize>,
    p_cols: Vec<usize>,
    it_col: Option<usize>,
    fa_col: Option<usize>,
}

impl Layout {
    /// `columns=` (None: every column) among `all`, the columns of `nq` positions and `nu`
    /// velocities.
    fn new(
        all: &[String],
        nq: usize,
        nu: usize,
        columns: Option<&[String]>,
    ) -> Result<Layout, perp_core::Error> {
        let keep: Vec<usize> = match columns {
            Some(spec) => {
                let spec: Vec<&str> = spec.iter().map(String::as_str).collect();
                perp_dynamics::trajectory::select_columns(all, nq, nu, &spec)?
            }
            None => (0..all.len()).collect(),
        };
        let within = |lo: usize, hi: usize| -> Vec<usize> {
            keep.iter().enumerate().filter(|(_, &k)| (lo..hi).contains(&k)).map(|(i, _)| i).collect()
        };
        // The last two columns: iterations, factorizations.
        let (q_cols, u_cols, p_cols) =
            (within(1, 1 + nq), within(1 + nq, 1 + nq + nu), within(1 + nq + nu, all.len() - 2));
        let it_col = keep.iter().position(|&k| k == all.len() - 2);
        let fa_col = keep.iter().position(|&k| k == all.len() - 1);
        Ok(Layout { keep, q_cols, u_cols, p_cols, it_col, fa_col })
    }
}

/// Runs a scene as `perp simulate` does (`src/cmd/simulate.rs`: the same option handling).
pub fn simulate(py: Python<'_>, a: SimArgs) -> PyResult<Simulation> {
    let choices = Choices::of(&a)?;
    let failure = crate::new_failure();
    let interrupt = crate::Interrupt::new(&failure);
    let run = move || -> Result<Simulation, perp_core::Error> {
        let scene = scenes::scene(&a.scene, a.size)?;
        let mut opts = choices.options(scene.as_ref(), &a)?;
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
        let Layout { keep, q_cols, u_cols, p_cols, it_col, fa_col } =
            Layout::new(&all, nq, nu, a.columns.as_deref())?;
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
