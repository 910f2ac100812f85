//! Kept solvers ([`PerpSolver`]): created once, refilled in place while the problem keeps its
//! shape, solved without allocating, freed by `perp_solver_free`.

use super::*;
use perp_catalogue::Answer;

/// A solver kept across calls: the C face of "prepare once, solve many". It holds the
/// catalogue solver (its workspaces), the problem (whose storage is refilled in place while
/// the matrix keeps its shape: a dense matrix of the same size, or a CSR matrix with the same
/// `row_ptr` and `col_idx`), the solution vectors and the report. A simulator that solves a
/// problem of the same structure at every step then pays neither the conversion, the
/// solver's set-up nor an allocation per call. Create one with `perp_solver_new`, use it
/// from one thread at a time, and free it with `perp_solver_free`.
pub struct PerpSolver {
    pub(super) solver: perp_catalogue::Solver,
    pub(super) settings: Settings,
    /// The last problem, refilled in place while its shape holds.
    pub(super) problem: Option<Problem>,
    /// The answer (z, w or r, u, and the report), kept from call to call.
    pub(super) answer: Answer,
    /// M's values row by row for `Lcp::set_m_values`.
    pub(super) rows: Vec<f64>,
}

impl PerpSolver {
    /// Solves the kept problem (from `start`, checked by `warm_view`, when given) on the
    /// prepared path and writes the answer to the caller's buffers `x_out` and `y_out`
    /// (checked by `check_out`).
    pub(super) unsafe fn solve_kept(
        &mut self,
        start: Option<&[f64]>,
        x_out: *mut f64,
        y_out: *mut f64,
    ) -> Result<PerpReport, Refusal> {
        let p = self.problem.as_ref().expect("the caller has just kept or built it");
        let n = p.n();
        let a = &mut self.answer;
        if let Some(v) = start {
            a.z.clear();
            a.z.extend_from_slice(v);
        }
        self.solver.solve_into(p, start.is_some(), a, &self.settings)?;
        unsafe {
            write(x_out, &a.z[..n]);
            write(y_out, &a.w[..n]);
        }
        Ok(PerpReport::of(&a.report))
    }
}

/// The values of `m` when it has the shape of `kept` (same size, dense; or CSR with the same
/// row offsets and column indices), in `kept`'s storage order: column by column for dense, the
/// CSR data for sparse. `None` when the shapes differ (the matrix is then converted afresh).
pub(super) unsafe fn same_shape<'a>(
    m: &PerpMatrix,
    kept: &Matrix,
    name: &str,
) -> Result<Option<&'a [f64]>, Refusal> {
    let (r, c) = (m.nrows, m.ncols);
    if (r, c) != (kept.nrows(), kept.ncols()) {
        return Ok(None);
    }
    match kept {
        Matrix::Dense(_) if m.format == PerpFormat::DenseColMajor as i32 => {
            Ok(Some(unsafe { view(|| format!("{name}.values"), m.values, dense_len(m, name)?)? }))
        }
        Matrix::Sparse(k) if m.format == PerpFormat::Csr as i32 && k.is_csr() && k.nnz() == m.nnz => {
            let row_ptr = unsafe { view(|| format!("{name}.row_ptr"), m.row_ptr, r + 1)? };
            let col_idx = unsafe { view(|| format!("{name}.col_idx"), m.col_idx, m.nnz)? };
            if row_ptr != k.indptr().raw_storage() || col_idx != k.indices() {
                return Ok(None);
            }
            Ok(Some(unsafe { view(|| format!("{name}.values"), m.values, m.nnz)? }))
        }
        _ => Ok(None),
    }
}

/// Copies `values` (in `kept`'s storage order, from [`same_shape`]) into `kept`.
pub(super) fn refill(kept: &mut Matrix, values: &[f64]) {
    match kept {
        Matrix::Dense(a) => {
            let n = a.nrows();
            for j in 0..a.ncols() {
                a.col_as_slice_mut(j).copy_from_slice(&values[j * n..(j + 1) * n]);
            }
        }
        Matrix::Sparse(k) => k.data_mut().copy_from_slice(values),
    }
}

/// The handle behind `s` for a solve of `family`, or a refusal.
pub(super) unsafe fn handle<'a>(s: *mut PerpSolver, family: Family) -> Result<&'a mut PerpSolver, Refusal> {
    if s.is_null() || !s.is_aligned() {
        return Err(Refusal::Null("solver".into()));
    }
    // SAFETY: checked non-null and aligned; the caller passes a handle from
    // `perp_solver_new`, not yet freed, used by one thread at a time.
    let h = unsafe { &mut *s };
    if h.solver.family() != family {
        return Err(Error::setting(
            "solver",
            h.solver.name(),
            &format!(
                "is a {:?} solver; create one of the {family:?} family for this call",
                h.solver.family()
            ),
        )
        .into());
    }
    Ok(h)
}

/// Creates a solver kept across calls (see `PerpSolver`): `family` a `PerpFamily` value,
/// `solver` a catalogue name of that family (NULL: `lemke` for LCPs, `prox` for frictional
/// problems, `fb-newton` for `PERP_FAMILY_MCP`, whose solvers take `perp_solver_mlcp`; with
/// `PERP_FAMILY_ANY` the name decides the family, LCP or frictional, MCP for `schur-lemke`), `settings` (NULL: `perp_settings_default()`) fixed for its lifetime. Returns
/// NULL when refused (an unknown family, name or parameter, bad settings; see
/// `perp_last_error_message`).
#[no_mangle]
pub unsafe extern "C" fn perp_solver_new(
    family: i32,
    solver: *const c_char,
    settings: *const PerpSettings,
) -> *mut PerpSolver {
    let mut made = std::ptr::null_mut();
    guard("perp_solver_new", std::ptr::null_mut(), || unsafe {
        let family = if family == PerpFamily::Lcp as i32 {
            Family::Lcp
        } else if family == PerpFamily::Friction as i32 {
            Family::Friction
        } else if family == PerpFamily::Any as i32 {
            family_of_name(solver)?
        } else if family == PerpFamily::Mcp as i32 {
            Family::Mcp
        } else {
            return Err(Error::setting(
                "family",
                family,
                "must be PERP_FAMILY_LCP (0), PERP_FAMILY_FRICTION (1), PERP_FAMILY_ANY (2) or PERP_FAMILY_MCP (3)",
            )
            .into());
        };
        let name = solver_name(solver, family)?;
        let (settings, params) = self::settings(settings, family, name)?;
        let solver = perp_catalogue::build(family, name, &params)?;
        let h = PerpSolver { solver, settings, problem: None, answer: Answer::empty(), rows: Vec::new() };
        made = Box::into_raw(Box::new(h));
        Ok(PerpReport::refused(PerpStatus::Solved))
    });
    made
}

/// Frees a solver from `perp_solver_new` (NULL is ignored). The handle must not be used
/// afterwards.
#[no_mangle]
pub unsafe extern "C" fn perp_solver_free(s: *mut PerpSolver) {
    if !s.is_null() && s.is_aligned() {
        // SAFETY: a pointer from `perp_solver_new` (Box::into_raw), freed once.
        drop(unsafe { Box::from_raw(s) });
    }
}

/// `perp_solve_lcp` with a kept solver of the LCP family (its solver name and settings):
/// M, q and the warm start as there. While M keeps its shape the problem is refilled in place
/// and, once the solver has solved a problem of that structure, the call allocates nothing
/// (dense M; see the solver's notes). A solver with memory of earlier answers (bdiff-newton's
/// hot start) uses it.
#[no_mangle]
pub unsafe extern "C" fn perp_solver_lcp(
    s: *mut PerpSolver,
    m: *const PerpMatrix,
    q: *const f64,
    n: usize,
    warm: *const f64,
    z: *mut f64,
    w: *mut f64,
    report: *mut PerpReport,
) -> PerpStatus {
    guard("perp_solver_lcp", report, || unsafe {
        let h = handle(s, Family::Lcp)?;
        let mm = ordered_matrix(m, "M", "n", n)?;
        let qs = view(|| "q".into(), q, n)?;
        let start = warm_view(warm, n)?;
        check_outs(&[("z", z), ("w", w)])?;
        let kept = match &mut h.problem {
            Some(Problem::Lcp(p)) if p.n() == n && mm.nrows == n && p.bounds().is_none() => {
                refill_lcp(p, &mut h.rows, &mm, qs)?
            }
            _ => false,
        };
        if !kept {
            h.problem = None;
            let lcp = perp_lcp::Lcp::new(matrix(&mm, "M")?, qs.to_vec())?;
            h.keep_lcp(lcp);
        }
        h.solve_kept(start, z, w)
    })
}

/// Refills the kept LCP `p` (of order n) with M's values and q when M has the shape of the
/// kept one (then `true`); `false` when it does not (nothing changed).
pub(super) unsafe fn refill_lcp(
    p: &mut perp_lcp::Lcp,
    rows: &mut Vec<f64>,
    mm: &PerpMatrix,
    qs: &[f64],
) -> Result<bool, Refusal> {
    let n = p.n();
    Ok(match unsafe { same_shape(mm, p.m(), "M")? } {
        Some(values) => {
            if let Matrix::Dense(_) = p.m() {
                // `set_m_values` takes a dense M row by row.
                rows.clear();
                rows.extend((0..n * n).map(|k| values[(k % n) * n + k / n]));
                p.set_m_values(rows).map_err(|e| rename(e, "M"))?;
            } else {
                p.set_m_values(values).map_err(|e| rename(e, "M"))?;
            }
            p.set_q(qs)?;
            true
        }
        None => false,
    })
}

impl PerpSolver {
    /// Keeps `lcp` as the problem (after a change of shape).
    pub(super) fn keep_lcp(&mut self, lcp: perp_lcp::Lcp) {
        if let Matrix::Dense(_) = lcp.m() {
            // The next call's refill of a dense M goes through this buffer.
            self.rows.reserve(lcp.n() * lcp.n());
        }
        self.problem = Some(Problem::Lcp(lcp));
    }
}

/// `perp_solve_box_lcp` with a kept solver of the LCP family (one that takes bounds: see
/// there): M, q, the bounds and the warm start as there. While M keeps its shape and the
/// bounds their values, the problem is refilled in place as `perp_solver_lcp` does; new
/// bounds build it afresh. The answer equals `perp_solve_box_lcp`'s with the same solver
/// and settings, bit for bit (for a solver without memory of earlier answers).
#[no_mangle]
pub unsafe extern "C" fn perp_solver_box_lcp(
    s: *mut PerpSolver,
    m: *const PerpMatrix,
    q: *const f64,
    n: usize,
    lower: *const f64,
    upper: *const f64,
    warm: *const f64,
    z: *mut f64,
    w: *mut f64,
    report: *mut PerpReport,
) -> PerpStatus {
    guard("perp_solver_box_lcp", report, || unsafe {
        let h = handle(s, Family::Lcp)?;
        let mm = ordered_matrix(m, "M", "n", n)?;
        let qs = view(|| "q".into(), q, n)?;
        let lo = view(|| "lower".into(), lower, n)?;
        let hi = view(|| "upper".into(), upper, n)?;
        Error::check_bounds(lo, hi)?;
        let start = warm_view(warm, n)?;
        check_outs(&[("z", z), ("w", w)])?;
        let same_bounds =
            |p: &perp_lcp::Lcp| p.bounds().is_some_and(|(l, u)| bits_eq(l, lo) && bits_eq(u, hi));
        let kept = match &mut h.problem {
            Some(Problem::Lcp(p)) if p.n() == n && same_bounds(p) => refill_lcp(p, &mut h.rows, &mm, qs)?,
            _ => false,
        };
        if !kept {
            h.problem = None;
            let lcp = perp_lcp::Lcp::with_bounds(matrix(&mm, "M")?, qs.to_vec(), lo.to_vec(), hi.to_vec())?;
            h.keep_lcp(lcp);
        }
        h.solve_kept(start, z, w)
    })
}

/// Whether `a` and `b` hold the same values bit for bit.
pub(super) fn bits_eq(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// `perp_solve_mlcp` with a kept solver of the MCP family (`perp_solver_new(PERP_FAMILY_MCP,
/// …)`): M, q, `n_eq` and the warm start as there. The solver (and its settings) is kept;
/// the MLCP is built from the arguments at each call. The answer equals `perp_solve_mlcp`'s
/// with the same solver and settings, bit for bit (for a solver without memory of earlier
/// answers).
#[no_mangle]
pub unsafe extern "C" fn perp_solver_mlcp(
    s: *mut PerpSolver,
    m: *const PerpMatrix,
    q: *const f64,
    n: usize,
    n_eq: usize,
    warm: *const f64,
    z: *mut f64,
    w: *mut f64,
    report: *mut PerpReport,
) -> PerpStatus {
    guard("perp_solver_mlcp", report, || unsafe {
        let h = handle(s, Family::Mcp)?;
        check_n_eq(n_eq, n)?;
        let (mat, qs) = m_and_q(m, q, n)?;
        let start = warm_view(warm, n)?;
        check_outs(&[("z", z), ("w", w)])?;
        h.problem = None;
        h.problem =
            Some(Problem::Mlcp(perp_ncp::mlcp::Mlcp::new(mat, qs, (0..n).map(|i| i < n_eq).collect())?));
        h.solve_kept(start, z, w)
    })
}

/// `perp_solve_friction` with a kept solver of the frictional family (its solver name and
/// settings): W, q, μ and the warm start as there. While W keeps its shape (and `dim` and
/// `n_contacts` their values) the problem is refilled in place and, once the solver has
/// solved a problem of that structure, the call allocates nothing (dense W with nsgs,
/// ac-newton, fb-newton or prox; see each solver's notes).
#[no_mangle]
pub unsafe extern "C" fn perp_solver_friction(
    s: *mut PerpSolver,
    dim: usize,
    w_mat: *const PerpMatrix,
    q: *const f64,
    mu: *const f64,
    n_contacts: usize,
    warm: *const f64,
    r: *mut f64,
    u: *mut f64,
    report: *mut PerpReport,
) -> PerpStatus {
    guard("perp_solver_friction", report, || unsafe {
        let h = handle(s, Family::Friction)?;
        let size = friction_size(dim, n_contacts)?;
        let a = FrictionArgs { dim, size, w: w_mat, q, mu, n_contacts, warm };
        keep_friction(h, None, &a, r, u)
    })
}
