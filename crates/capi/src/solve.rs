//! The one-shot solve calls in local form: default settings, matrix constructors, and
//! `perp_solve_lcp`, `_box_lcp`, `_mlcp` and `_friction` (Coulomb).

use super::*;

/// The default settings: tolerance 1e-8, the solver's own iteration limit, no time limit,
/// no parameters, no callback.
#[no_mangle]
pub extern "C" fn perp_settings_default() -> PerpSettings {
    PerpSettings {
        tol: 1e-8,
        max_iter: 0,
        time_limit: 0.0,
        params: std::ptr::null(),
        n_params: 0,
        callback: None,
        user: std::ptr::null_mut(),
    }
}

/// A dense column-major matrix over the caller's `nrows * ncols` values (not copied here).
#[no_mangle]
pub extern "C" fn perp_matrix_dense(nrows: usize, ncols: usize, values: *const f64) -> PerpMatrix {
    PerpMatrix {
        format: PerpFormat::DenseColMajor as i32,
        nrows,
        ncols,
        values,
        nnz: 0,
        row_ptr: std::ptr::null(),
        col_idx: std::ptr::null(),
    }
}

/// A CSR matrix over the caller's arrays (not copied here): `row_ptr` has `nrows + 1`
/// offsets, `col_idx` and `values` have `nnz` entries.
#[no_mangle]
pub extern "C" fn perp_matrix_csr(
    nrows: usize,
    ncols: usize,
    nnz: usize,
    row_ptr: *const usize,
    col_idx: *const usize,
    values: *const f64,
) -> PerpMatrix {
    PerpMatrix { format: PerpFormat::Csr as i32, nrows, ncols, values, nnz, row_ptr, col_idx }
}

/// Solves the LCP `0 ≤ z ⊥ w = M z + q ≥ 0` of size `n`.
///
/// * `solver`: a catalogue LCP solver name (`lemke`, `pgs`, `psor`, … — see
///   `perp_solver_names`), or NULL for `lemke`;
/// * `m`: the `n`×`n` matrix M (`n` other than its order is refused before q is read);
///   `q`: `n` values;
/// * `warm`: `n` values to start from, or NULL for a cold start;
/// * `settings`: NULL for `perp_settings_default()`;
/// * `z`, `w`: the caller's buffers of `n` values, written when the result is >= 0;
/// * `report`: written when not NULL (also when the call is refused).
///
/// Returns the status (see `PerpStatus`).
#[no_mangle]
pub unsafe extern "C" fn perp_solve_lcp(
    solver: *const c_char,
    m: *const PerpMatrix,
    q: *const f64,
    n: usize,
    warm: *const f64,
    settings: *const PerpSettings,
    z: *mut f64,
    w: *mut f64,
    report: *mut PerpReport,
) -> PerpStatus {
    guard("perp_solve_lcp", report, || unsafe {
        let name = solver_name(solver, Family::Lcp)?;
        let (m, q) = m_and_q(m, q, n)?;
        solve_into((Family::Lcp, name), (warm, settings), (n, z, w), || {
            Ok(Problem::Lcp(perp_lcp::Lcp::new(m, q)?))
        })
    })
}

/// Reads the warm start of `n` values and the settings, checks `z` and `w`, and solves the
/// problem `build` makes once by the solver `name` of `family` into them (the one-shot calls
/// of the LCP and MCP families, once M and q are read).
unsafe fn solve_into(
    (family, name): (Family, &str),
    (warm, settings): (*const f64, *const PerpSettings),
    (n, z, w): (usize, *mut f64, *mut f64),
    build: impl FnOnce() -> Result<Problem, Refusal>,
) -> Result<PerpReport, Refusal> {
    let warm = warm_start(warm, n)?;
    let (s, params) = unsafe { self::settings(settings, family, name)? };
    check_outs(&[("z", z), ("w", w)])?;
    let a = solve_once(family, name, &params, build()?, warm.as_deref(), &s)?;
    Ok(unsafe { written(&a, z, w, n) })
}

/// Solves the box-LCP `lower ≤ z ≤ upper ⊥ w = M z + q` of size `n`: `w ≥ 0` where
/// `z = lower`, `w ≤ 0` where `z = upper`, `w = 0` between.
///
/// * `solver`: a catalogue LCP solver that takes bounds (`fb-newton`, `bdiff-newton`, `pgs`,
///   `psor`, `rpgs`, `projected-newton`; `lemke` refuses them), or NULL for `fb-newton`;
/// * `lower`, `upper`: `n` values each, `-INFINITY` / `INFINITY` allowed; NaN, `lower > upper`,
///   `lower = +inf` and `upper = -inf` are refused naming the index and values;
/// * the other arguments as for `perp_solve_lcp`.
#[no_mangle]
pub unsafe extern "C" fn perp_solve_box_lcp(
    solver: *const c_char,
    m: *const PerpMatrix,
    q: *const f64,
    n: usize,
    lower: *const f64,
    upper: *const f64,
    warm: *const f64,
    settings: *const PerpSettings,
    z: *mut f64,
    w: *mut f64,
    report: *mut PerpReport,
) -> PerpStatus {
    guard("perp_solve_box_lcp", report, || unsafe {
        let name = if solver.is_null() { "fb-newton" } else { c_str("solver", solver)? };
        let (m, q) = m_and_q(m, q, n)?;
        let lo = read("lower", lower, n)?;
        let hi = read("upper", upper, n)?;
        Error::check_bounds(&lo, &hi)?;
        solve_into((Family::Lcp, name), (warm, settings), (n, z, w), || {
            Ok(Problem::Lcp(perp_lcp::Lcp::with_bounds(m, q, lo, hi)?))
        })
    })
}

/// Solves the MLCP of size `n` in Siconos' layout: M is `[[A, C], [D, B]]` and q is `(a, b)`
/// with the first `n_eq` rows equations, the others complementarity rows:
///
/// ```text
///     A u + C v + a = 0 (u free, n_eq unknowns),   0 ≤ v ⊥ w = D u + B v + b ≥ 0
/// ```
///
/// * `solver`: a catalogue MCP solver (`fb-newton`, `bdiff-newton`, `schur-lemke`; see
///   `perp_solver_names(PERP_FAMILY_MCP, …)`), or NULL for `fb-newton`; a solver of another
///   family is refused naming its family and listing these;
/// * `n_eq`: the number of equations, at most `n`;
/// * `z` receives `(u, v)`, `w` the rows' values `(A u + C v + a, D u + B v + b)`;
/// * the other arguments as for `perp_solve_lcp` (`warm`: a starting `(u, v)`).
#[no_mangle]
pub unsafe extern "C" fn perp_solve_mlcp(
    solver: *const c_char,
    m: *const PerpMatrix,
    q: *const f64,
    n: usize,
    n_eq: usize,
    warm: *const f64,
    settings: *const PerpSettings,
    z: *mut f64,
    w: *mut f64,
    report: *mut PerpReport,
) -> PerpStatus {
    guard("perp_solve_mlcp", report, || unsafe {
        let name = solver_name(solver, Family::Mcp)?;
        check_n_eq(n_eq, n)?;
        let (m, q) = m_and_q(m, q, n)?;
        solve_into((Family::Mcp, name), (warm, settings), (n, z, w), || {
            Ok(Problem::Mlcp(perp_ncp::mlcp::Mlcp::new(m, q, (0..n).map(|i| i < n_eq).collect())?))
        })
    })
}

/// Solves the frictional contact problem `u = W r + q` with Coulomb friction at `n_contacts`
/// contacts of dimension `dim` (2 or 3; normal component first), `size = dim * n_contacts`.
///
/// * `solver`: a catalogue frictional solver name (`nsgs`, `prox`, `ac-newton`, … — see
///   `perp_solver_names`), or NULL for `prox`;
/// * `w_mat`: the `size`×`size` Delassus matrix W (a `size` other than its order is refused
///   before q and mu are read); `q`: `size` values; `mu`: `n_contacts` friction coefficients
///   (>= 0);
/// * `warm`: `size` reactions to start from, or NULL for a cold start;
/// * `settings`: NULL for `perp_settings_default()`;
/// * `r`, `u`: the caller's buffers of `size` values (reactions, local velocities), written
///   when the result is >= 0;
/// * `report`: written when not NULL (also when the call is refused).
///
/// Returns the status (see `PerpStatus`).
#[no_mangle]
pub unsafe extern "C" fn perp_solve_friction(
    solver: *const c_char,
    dim: usize,
    w_mat: *const PerpMatrix,
    q: *const f64,
    mu: *const f64,
    n_contacts: usize,
    warm: *const f64,
    settings: *const PerpSettings,
    r: *mut f64,
    u: *mut f64,
    report: *mut PerpReport,
) -> PerpStatus {
    guard("perp_solve_friction", report, || unsafe {
        let name = solver_name(solver, Family::Friction)?;
        let size = friction_size(dim, n_contacts)?;
        let a = FrictionArgs { dim, size, w: w_mat, q, mu, n_contacts, warm };
        solve_friction(name, None, &a, settings, r, u)
    })
}
