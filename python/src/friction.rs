//! The frictional calls: the friction laws of a `cone` argument, `solve_friction` (local form),
//! `solve_global` (global form), and the problem they build.

use super::*;

/// The friction laws of `cone`: None (Coulomb), one `perp.Cone` for every contact, or a
/// sequence of them, one per contact.
pub(super) fn cone_specs(
    cone: &Bound<'_, PyAny>,
    contacts: usize,
    failure: &Failure,
) -> PyResult<Vec<ConeSpec>> {
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
#[allow(non_snake_case)]
pub(super) fn solve_friction(
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
    let p = friction_problem(py, [W, q, mu], dim, (cone, mu_r), &failure)?;
    let options = Options { tol, max_iter, time_limit, warm, params, history, callback };
    options.solve(py, Arc::new(p), Some(solver), failure)
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
#[allow(non_snake_case)]
pub(super) fn solve_global(
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
    let options = Options { tol, max_iter, time_limit, warm, params, history, callback };
    options.solve(py, Arc::new(Any::GlobalFriction(g)), Some(solver), new_failure())
}

/// The local frictional problem of `W`, `q`, `mu` (one, or one per contact), `dim` and
/// `cone` or `mu_r` (as `solve_friction` takes them), checked; a Python law keeps its
/// exception in `failure`.
#[allow(non_snake_case)]
pub(crate) fn friction_problem(
    py: Python<'_>,
    [W, q, mu]: [&Bound<'_, PyAny>; 3],
    dim: i64,
    (cone, mu_r): (Option<&Bound<'_, PyAny>>, Option<&Bound<'_, PyAny>>),
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
