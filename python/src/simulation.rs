//! The built-in scenes: their names, `simulate` (a trajectory stepped by a frictional solver),
//! and the derived quantities of a simulation.

use super::*;

/// The built-in scenes' names (for `simulate`).
#[pyfunction]
pub(super) fn scenes() -> Vec<&'static str> {
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
///   `"velocities"`, `"impulses"`, `"iterations"`, `"factorizations"`) or names (`"b0_z"`); `t` always first.
///
/// Returns a `Simulation`: `data` (steps × `columns`), `t`, `q`, `u`, `impulses`,
/// `iterations`, `factorizations` as numpy arrays, and the run's statistics.
///
/// Ctrl-C (SIGINT) is checked between steps and inside the solves, at most every 50 ms: it
/// stops the run and raises `KeyboardInterrupt`; nothing is kept (the steps done so far are
/// discarded).
#[pyfunction]
#[pyo3(signature = (scene, size=None, dt=None, t_end=None, solver=None, formulation=None, every=1,
                    warm_start=true, activation=None, tol=None, params=None, columns=None))]
pub(super) fn simulate(
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
    trajectory::simulate(
        py,
        trajectory::SimArgs {
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
pub(super) fn _derived(
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
