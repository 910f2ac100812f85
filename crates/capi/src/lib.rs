//! # perp-capi — perp as a C library (`libperp.so`, `libperp.a`, header `include/perp.h`)
//!
//! Solve calls, thin over the catalogue ([`perp_catalogue::build`] and
//! [`perp_catalogue::Solver::solve`]):
//!
//! * [`perp_solve_lcp`]: the LCP `0 ≤ z ⊥ w = Mz + q ≥ 0` with any LCP solver of the catalogue;
//! * [`perp_solve_box_lcp`]: the box-LCP `lower ≤ z ≤ upper ⊥ w = Mz + q` (LCP solvers that
//!   take bounds: fb-newton, bdiff-newton, pgs, psor, rpgs, projected-newton);
//! * [`perp_solve_mlcp`]: the MLCP `M = [[A, C], [D, B]]` with its first `n_eq` rows equations
//!   (`A u + C v + a = 0`, u free) and the others `0 ≤ v ⊥ w = D u + B v + b ≥ 0`, Siconos'
//!   layout, with the MCP solvers (fb-newton, bdiff-newton, schur-lemke);
//! * [`perp_solve_friction`]: the frictional contact problem `u = W r + q`, `K ∋ r ⊥ û ∈ K*`
//!   (Coulomb, `dim` = 2 or 3) with any frictional solver of the catalogue;
//! * [`perp_solve_friction_cone`]: the same with any built-in friction law ([`PerpCone`]:
//!   Coulomb, pyramids, elliptic with torsion, Siconos' rolling cone with μ_r per contact);
//! * [`perp_solve_global`]: the global form `M v = f + H r`, `u = Hᵀ v + b` (Coulomb);
//! * kept solvers ([`perp_solver_new`], `perp_solver_lcp`, `_box_lcp`, `_mlcp`, `_friction`)
//!   that reuse their set-up from call to call.
//!
//! `PerpSettings::callback` watches (and may stop) any of them iteration by iteration.
//!
//! Matrices are given as a [`PerpMatrix`]: dense column-major, or compressed sparse rows.
//! Results are written into buffers the caller owns. Every call returns a [`PerpStatus`]:
//! `PERP_STATUS_SOLVED` (0), another non-negative status when the solver ran but did not
//! converge (the outputs then hold its best iterate), or a negative error code when the input
//! was refused (nothing written but the report). The message of the last refused call of the
//! calling thread is read with [`perp_last_error_message`]. No Rust panic crosses the
//! boundary: a panic is caught and returned as `PERP_STATUS_INTERNAL_ERROR` with its message.
//!
//! The calls may run at once on several threads: each builds its own solver and keeps nothing
//! between calls but the calling thread's last message.
//!
//! Safety rules for callers: every pointer is either NULL (refused with
//! `PERP_STATUS_NULL_POINTER`, except where an argument is documented as optional) or points
//! to at least as many readable (writable, for outputs) elements as the sizes passed say.
//! Sizes are checked before any array is read: `n` (or `dim * n_contacts`, checked for
//! overflow) against the matrix's own `nrows` and `ncols`, a dense matrix's `nrows * ncols`
//! against overflow and the address space, a CSR `nnz` against `nrows * ncols`; a size that
//! disagrees is refused with `PERP_STATUS_INVALID_INPUT` naming the argument and its value,
//! and a copy that cannot be allocated is refused the same way. A buffer shorter than its
//! stated size cannot be detected.
#![warn(missing_docs)]
// Every pointer argument is checked for NULL and alignment before use; the remaining
// contract (buffers as long as their stated sizes) is the C caller's, documented above.
#![allow(clippy::missing_safety_doc)]

use perp_catalogue::{Family, Params, Problem};
use perp_core::{Error, Matrix, Settings, SolveReport, Status};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// How a call ended. Non-negative: the solver ran (outputs written). Negative: the call was
/// refused (outputs untouched; see `perp_last_error_message`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerpStatus {
    /// The error measure is below the tolerance, checked on the returned vectors.
    Solved = 0,
    /// The iteration (or pivot) limit was reached first.
    MaxIterations = 1,
    /// The time limit was reached first.
    TimeLimit = 2,
    /// No further progress was possible (a line search failed, the iterates stopped moving).
    Stalled = 3,
    /// Lemke's method ended on a secondary ray.
    RayTermination = 4,
    /// The problem was shown to have no solution.
    Infeasible = 5,
    /// Arithmetic broke down, or the returned point failed the final accuracy check.
    NumericalFailure = 6,
    /// The solve was interrupted.
    Interrupted = 7,
    /// A status of the Rust library that this C API has no code for yet (none today).
    Other = 8,
    /// The reactions grew without bound while the residual at the data's scale did not fall:
    /// the problem most likely has no solution (the message gives the evidence).
    Diverged = 9,
    /// Bad input: an unknown solver or parameter, a value out of range, sizes that disagree,
    /// a NaN or infinite entry, a malformed CSR structure. The message names the field and
    /// the value.
    InvalidInput = -1,
    /// A required pointer argument was NULL (or misaligned); the message names it.
    NullPointer = -2,
    /// A bug of perp (a caught panic); the message says where.
    InternalError = -3,
}

impl From<Status> for PerpStatus {
    fn from(s: Status) -> PerpStatus {
        match s {
            Status::Solved => PerpStatus::Solved,
            Status::MaxIterations => PerpStatus::MaxIterations,
            Status::TimeLimit => PerpStatus::TimeLimit,
            Status::Stalled => PerpStatus::Stalled,
            Status::RayTermination => PerpStatus::RayTermination,
            Status::Infeasible => PerpStatus::Infeasible,
            Status::Diverged => PerpStatus::Diverged,
            Status::NumericalFailure => PerpStatus::NumericalFailure,
            Status::Interrupted => PerpStatus::Interrupted,
            _ => PerpStatus::Other,
        }
    }
}

/// The storage of a `PerpMatrix` (its `format` field).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerpFormat {
    /// Dense, `nrows * ncols` values listed column by column (Fortran, LAPACK, Siconos).
    DenseColMajor = 0,
    /// Compressed sparse rows: `row_ptr` (`nrows + 1` offsets, `row_ptr[0] = 0`,
    /// `row_ptr[nrows] = nnz`), `col_idx` and `values` (`nnz` each). Column indices within a
    /// row may come in any order; duplicates are refused.
    Csr = 1,
}

/// A problem family, for `perp_solver_names`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerpFamily {
    /// LCP solvers (`perp_solve_lcp`, `perp_solve_box_lcp`).
    Lcp = 0,
    /// Frictional contact solvers (`perp_solve_friction`).
    Friction = 1,
    /// For `perp_solver_new`: the family of the solver's name, when the name is of one of the
    /// two families only (`lemke`, `nsgs`; not `fb-newton`, which is of both), MCP for a name
    /// of that family only (`schur-lemke`). For `perp_solver_names`: every solver.
    Any = 2,
    /// MCP solvers (`perp_solve_mlcp`, and `perp_solver_mlcp` with a solver made by
    /// `perp_solver_new(PERP_FAMILY_MCP, …)`).
    Mcp = 3,
}

/// A friction law, the `kind` of a `PerpCone`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerpConeKind {
    /// Coulomb's isotropic cone `‖r_T‖ ≤ μ r_N`; contacts of dimension 2 or 3.
    Coulomb = 0,
    /// A pyramid with `facets` faces inscribed in Coulomb's cone: dimension 3 with 3 or more
    /// facets, or dimension 2 with exactly 2 (the two-sided law `|r_T| ≤ μ r_N`).
    Pyramid = 1,
    /// The elliptic cone `Σ_k (r_k / e_k)² ≤ μ² r_N²`: dimension 3 (two tangential semi-axes
    /// e_t, e_o) or 4 (with torsion: e_t, e_o and e_r, a length, Trinkle–Tzitzouris–Pang 2001 eq. 1), also 2
    /// (one semi-axis); `data` holds `dim − 1` semi-axes (> 0) per contact.
    Elliptic = 2,
    /// Siconos' rolling friction cone `‖r_T‖ ≤ μ r_N`, `‖r_R‖ ≤ μ_r r_N` (De Saxcé's
    /// modified velocity `ũ_N = u_N + μ‖u_T‖ + μ_r‖u_R‖`): dimension 5 in 3-D (normal, two
    /// tangential, two rolling) or 3 in 2-D (normal, tangential, rolling); `data` holds one
    /// rolling coefficient μ_r (≥ 0) per contact. The report's error is Siconos'
    /// `rolling_friction_3d_compute_error`.
    Rolling = 3,
}

/// The friction law of every contact of a `perp_solve_friction_cone` call. Build one with
/// `perp_cone_coulomb`, `perp_cone_pyramid`, `perp_cone_elliptic` or `perp_cone_rolling`;
/// perp copies `data` during the call and keeps no pointer.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PerpCone {
    /// A `PerpConeKind` value; any other value is refused.
    pub kind: i32,
    /// `PERP_CONE_PYRAMID`: the number of facets; ignored for the other kinds.
    pub facets: usize,
    /// Per-contact coefficients, contact by contact: `PERP_CONE_ROLLING`, `n_contacts` values
    /// μ_r; `PERP_CONE_ELLIPTIC`, `n_contacts * (dim − 1)` semi-axes; NULL (ignored) for
    /// `PERP_CONE_COULOMB` and `PERP_CONE_PYRAMID`.
    pub data: *const f64,
}

/// Coulomb's cone at every contact (the law of `perp_solve_friction`).
#[no_mangle]
pub extern "C" fn perp_cone_coulomb() -> PerpCone {
    PerpCone { kind: PerpConeKind::Coulomb as i32, facets: 0, data: std::ptr::null() }
}

/// A pyramid of `facets` faces at every contact (3 or more in 3-D, 2 in 2-D).
#[no_mangle]
pub extern "C" fn perp_cone_pyramid(facets: usize) -> PerpCone {
    PerpCone { kind: PerpConeKind::Pyramid as i32, facets, data: std::ptr::null() }
}

/// The elliptic cone at every contact, its `dim − 1` semi-axes per contact in `e` (the
/// caller's array, `n_contacts * (dim − 1)` values; not copied here).
#[no_mangle]
pub extern "C" fn perp_cone_elliptic(e: *const f64) -> PerpCone {
    PerpCone { kind: PerpConeKind::Elliptic as i32, facets: 0, data: e }
}

/// The rolling friction cone at every contact, its coefficient μ_r per contact in `mu_r`
/// (the caller's array, `n_contacts` values; not copied here).
#[no_mangle]
pub extern "C" fn perp_cone_rolling(mu_r: *const f64) -> PerpCone {
    PerpCone { kind: PerpConeKind::Rolling as i32, facets: 0, data: mu_r }
}

/// A real matrix the caller owns; perp copies it during the call and keeps no pointer.
/// Build one with `perp_matrix_dense` or `perp_matrix_csr`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PerpMatrix {
    /// A `PerpFormat` value; any other value is refused.
    pub format: i32,
    /// Number of rows.
    pub nrows: usize,
    /// Number of columns.
    pub ncols: usize,
    /// Dense: `nrows * ncols` values, column-major. CSR: `nnz` values.
    pub values: *const f64,
    /// CSR: number of stored entries (ignored for dense).
    pub nnz: usize,
    /// CSR: `nrows + 1` row offsets (NULL for dense).
    pub row_ptr: *const usize,
    /// CSR: `nnz` column indices (NULL for dense).
    pub col_idx: *const usize,
}

/// Settings of a solve. Start from `perp_settings_default()` and change what you need.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PerpSettings {
    /// Tolerance on the problem's error measure (Siconos-compatible). Default 1e-8; valid:
    /// finite and >= 0.
    pub tol: f64,
    /// Iteration (pivot, sweep, Newton step) limit; 0 (the default) means the solver's own.
    pub max_iter: usize,
    /// Wall-clock limit in seconds; 0 (the default) means none, and so does a limit beyond
    /// what the library's clock holds (above 1.8e19 s, e.g. 1e300); valid: finite and >= 0.
    pub time_limit: f64,
    /// Solver parameters as `n_params` strings `"name=value"` (e.g. `"omega=1.3"`), checked
    /// against the solver's declared parameters and ranges (`perp list` shows them); a name
    /// given twice is refused. May be NULL when `n_params` is 0.
    pub params: *const *const c_char,
    /// Number of strings in `params`: at most the solver's number of parameters (checked
    /// before `params` is read).
    pub n_params: usize,
    /// Optional: called after every iteration whose error the solver measured (as Python's
    /// `callback=`; PGS and NSGS measure between their sweeps only at their exact checks),
    /// on the calling thread, with `user`, the 1-based iteration and the error measure
    /// (not at the iteration that meets the tolerance: the report gives that one). A
    /// nonzero return stops the solve: the call then returns `PERP_STATUS_INTERRUPTED` with
    /// the best iterate written and the report's message saying which iteration stopped it.
    /// NULL (the default): no call. The callback must not unwind (throw) into perp and must
    /// not call perp on the same kept solver.
    pub callback: Option<unsafe extern "C" fn(user: *mut c_void, iteration: usize, error: f64) -> c_int>,
    /// Passed unchanged as the callback's first argument (may be NULL).
    pub user: *mut c_void,
}

/// The type of `PerpSettings::callback` (Rust side).
type PerpCallback = unsafe extern "C" fn(user: *mut c_void, iteration: usize, error: f64) -> c_int;

/// A C callback as the Rust observer: the function and its user pointer.
#[derive(Clone, Copy)]
struct CCallback {
    f: PerpCallback,
    user: *mut c_void,
}

// SAFETY: with `Settings::threads = 1` (the C API never sets more) the observer runs on the
// thread that called perp; the user pointer is only handed back to the caller's function.
unsafe impl Send for CCallback {}
unsafe impl Sync for CCallback {}

thread_local! {
    /// The iteration at which the calling thread's C callback stopped the current solve.
    static STOPPED_AT: std::cell::Cell<Option<(usize, c_int)>> = const { std::cell::Cell::new(None) };
}

/// Bytes of `PerpReport::message`, its terminating NUL included.
pub const PERP_MESSAGE_LEN: usize = 256;

/// What a solve reports besides the vectors.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PerpReport {
    /// The same value the call returns.
    pub status: PerpStatus,
    /// The problem's error measure at the returned point (NaN when the call was refused).
    pub error: f64,
    /// Iterations (pivots for pivoting methods, sweeps, Newton steps).
    pub iterations: usize,
    /// Wall-clock seconds of the solve.
    pub seconds: f64,
    /// The physical check of the answer in the problem's own scales (forces relative to their
    /// size, velocities to the data's; see docs/solvers.md, "How the error is measured"); a solved
    /// answer has it at most `max(10 tol, 1e-4)`. NaN when the solver reports none (box-LCP)
    /// or the call was refused.
    pub physical_error: f64,
    /// The solver's note (why it stopped, the rescue that solved it) or, for a refused call,
    /// the message `perp_last_error_message` gives: NUL-terminated UTF-8, cut at a character
    /// boundary to fit; empty when there is none.
    pub message: [c_char; PERP_MESSAGE_LEN],
}

/// Copies `text` into `buf`, NUL-terminated, cut at a character boundary to fit.
fn set_text(buf: &mut [c_char; PERP_MESSAGE_LEN], text: &str) {
    let mut k = text.len().min(PERP_MESSAGE_LEN - 1);
    while !text.is_char_boundary(k) {
        k -= 1;
    }
    for (b, &t) in buf.iter_mut().zip(&text.as_bytes()[..k]) {
        *b = t as c_char;
    }
    buf[k] = 0;
}

impl PerpReport {
    /// The message as Rust text (up to its NUL).
    fn message_text(&self) -> String {
        let bytes: Vec<u8> = self.message.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn refused(status: PerpStatus) -> PerpReport {
        PerpReport {
            status,
            error: f64::NAN,
            iterations: 0,
            seconds: 0.0,
            physical_error: f64::NAN,
            message: [0; PERP_MESSAGE_LEN],
        }
    }

    fn of(r: &SolveReport) -> PerpReport {
        let mut out = PerpReport {
            status: r.status.into(),
            error: r.error,
            iterations: r.iterations,
            seconds: r.elapsed.as_secs_f64(),
            physical_error: r.physical_error.unwrap_or(f64::NAN),
            message: [0; PERP_MESSAGE_LEN],
        };
        if let Some(m) = &r.message {
            set_text(&mut out.message, m);
        }
        out
    }
}

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Why a call was refused.
enum Refusal {
    Null(String),
    Input(Error),
}

impl From<Error> for Refusal {
    fn from(e: Error) -> Refusal {
        Refusal::Input(e)
    }
}

/// Runs `body` for the entry point `name`: clears the thread's message, catches panics,
/// turns a refusal into its code and message, and writes `report` when it is not NULL.
fn guard(
    name: &str,
    report: *mut PerpReport,
    body: impl FnOnce() -> Result<PerpReport, Refusal>,
) -> PerpStatus {
    set_message(String::new());
    STOPPED_AT.with(|c| c.set(None));
    let mut out = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(mut r)) => {
            if let Some((k, ret)) = STOPPED_AT.with(|c| c.take()) {
                if r.status == PerpStatus::Interrupted {
                    let note = r.message_text();
                    let text = format!("stopped by settings.callback (it returned {ret} at iteration {k})");
                    let text = if note.is_empty() { text } else { format!("{text}; {note}") };
                    set_text(&mut r.message, &text);
                }
            }
            r
        }
        Ok(Err(Refusal::Null(what))) => {
            set_message(format!("{name}: {what} is a null or misaligned pointer"));
            PerpReport::refused(PerpStatus::NullPointer)
        }
        Ok(Err(Refusal::Input(e))) => {
            set_message(format!("{name}: {e}"));
            PerpReport::refused(PerpStatus::InvalidInput)
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_message(format!("{name}: internal error (please report): {what}"));
            PerpReport::refused(PerpStatus::InternalError)
        }
    };
    if (out.status as i32) < 0 {
        LAST_ERROR.with(|e| set_text(&mut out.message, &e.borrow()));
    }
    if !report.is_null() && report.is_aligned() {
        // SAFETY: non-null and aligned; the caller provides a writable PerpReport.
        unsafe { report.write(out) };
    }
    out.status
}

fn set_message(m: String) {
    LAST_ERROR.with(|e| *e.borrow_mut() = m);
}

/// `len` elements at `p`, borrowed, or a refusal naming `what()` if `p` is NULL or misaligned
/// (the name is made only then: a kept solver's call allocates nothing).
unsafe fn view<'a, T>(what: impl Fn() -> String, p: *const T, len: usize) -> Result<&'a [T], Refusal> {
    if p.is_null() || !p.is_aligned() {
        return Err(Refusal::Null(what()));
    }
    // No buffer is larger than isize::MAX bytes (a slice of more is undefined behaviour).
    if len.checked_mul(size_of::<T>()).is_none_or(|bytes| bytes > isize::MAX as usize) {
        return Err(Error::setting(
            &format!("length of {}", what()),
            len,
            "is more elements than memory holds",
        )
        .into());
    }
    // SAFETY: checked non-null and aligned; the caller promises `len` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// [`view`] copied; an allocation that fails is a refusal, not an abort.
unsafe fn read<T: Copy>(what: &str, p: *const T, len: usize) -> Result<Vec<T>, Refusal> {
    let v = unsafe { view(|| what.into(), p, len)? };
    let mut out = Vec::new();
    out.try_reserve_exact(len)
        .map_err(|_| Error::setting(&format!("length of {what}"), len, "cannot be copied: out of memory"))?;
    out.extend_from_slice(v);
    Ok(out)
}

/// The `PerpMatrix` argument behind `m` (plain data), or a refusal naming it.
unsafe fn matrix_arg(m: *const PerpMatrix, name: &str) -> Result<PerpMatrix, Refusal> {
    if m.is_null() || !m.is_aligned() {
        return Err(Refusal::Null(name.into()));
    }
    // SAFETY: checked non-null and aligned; PerpMatrix is plain data (its format is an i32).
    Ok(unsafe { *m })
}

/// The warm start at `p` (`n` finite values), or `None` for NULL.
unsafe fn warm_view<'a>(p: *const f64, n: usize) -> Result<Option<&'a [f64]>, Refusal> {
    if p.is_null() {
        return Ok(None);
    }
    let w = unsafe { view(|| "warm".into(), p, n)? };
    Error::check_finite("warm", w)?;
    Ok(Some(w))
}

/// Checks, before any array is read, that the size `n` passed as the argument `arg` is the
/// order of the square matrix `m` (named `name`), and that a dense matrix's `nrows · ncols`
/// does not overflow (a CSR matrix's own sizes are checked by [`matrix`] before it reads).
fn check_order(m: &PerpMatrix, name: &str, arg: &str, n: usize) -> Result<(), Refusal> {
    if m.nrows != m.ncols {
        return Err(Error::NotSquare { what: name.into(), rows: m.nrows, cols: m.ncols }.into());
    }
    if m.nrows != n {
        return Err(Error::setting(
            arg,
            n,
            &format!("{name} is {}x{}; {arg} must be its order", m.nrows, m.ncols),
        )
        .into());
    }
    if m.format == PerpFormat::DenseColMajor as i32 {
        dense_len(m, name)?;
    }
    Ok(())
}

/// `nrows · ncols` of `m`, or a refusal when it overflows.
fn dense_len(m: &PerpMatrix, name: &str) -> Result<usize, Refusal> {
    let (r, c) = (m.nrows, m.ncols);
    Ok(r.checked_mul(c).ok_or_else(|| {
        Error::setting(&format!("{name}.nrows * {name}.ncols"), format!("{r} * {c}"), "overflows")
    })?)
}

/// `dim · n_contacts` for a frictional call, with `dim` checked (2 or 3).
fn friction_size(dim: usize, n_contacts: usize) -> Result<usize, Refusal> {
    if !(2..=3).contains(&dim) {
        return Err(Error::setting("dim", dim, "the contact dimension must be 2 or 3").into());
    }
    Ok(dim
        .checked_mul(n_contacts)
        .ok_or_else(|| Error::setting("n_contacts", n_contacts, "dim * n_contacts overflows"))?)
}

fn check_out(what: &str, p: *mut f64) -> Result<(), Refusal> {
    if p.is_null() || !p.is_aligned() {
        return Err(Refusal::Null(what.into()));
    }
    Ok(())
}

/// Copies `v` to the caller's buffer `p` (checked by `check_out`, `v.len()` elements long).
unsafe fn write(p: *mut f64, v: &[f64]) {
    // SAFETY: `v` is perp's own vector, so it cannot overlap the caller's buffer.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
}

/// The matrix described by `m` (from [`matrix_arg`]), copied.
unsafe fn matrix(m: &PerpMatrix, name: &str) -> Result<Matrix, Refusal> {
    let (r, c) = (m.nrows, m.ncols);
    if m.format == PerpFormat::DenseColMajor as i32 {
        let len = dense_len(m, name)?;
        let values = unsafe { view(|| format!("{name}.values"), m.values, len)? };
        Ok(Matrix::from_col_major(r, c, values).map_err(|e| rename(e, name))?)
    } else if m.format == PerpFormat::Csr as i32 {
        let len = r.checked_add(1).ok_or_else(|| Error::setting(&format!("{name}.nrows"), r, "too large"))?;
        if dense_len(m, name).is_ok_and(|all| m.nnz > all) {
            return Err(Error::setting(
                &format!("{name}.nnz"),
                m.nnz,
                &format!("is more entries than a {r}x{c} matrix has"),
            )
            .into());
        }
        let row_ptr = unsafe { read(&format!("{name}.row_ptr"), m.row_ptr, len)? };
        if row_ptr[0] != 0 || row_ptr[r] != m.nnz {
            return Err(Error::setting(
                &format!("{name}.row_ptr"),
                format!("[{}, …, {}]", row_ptr[0], row_ptr[r]),
                &format!("must start at 0 and end at nnz = {}", m.nnz),
            )
            .into());
        }
        // sprs slices rows by these offsets before checking them: a decreasing pair must be
        // refused here, or it would panic there.
        if let Some(i) = (0..r).find(|&i| row_ptr[i + 1] < row_ptr[i]) {
            return Err(Error::setting(
                &format!("{name}.row_ptr[{}]", i + 1),
                row_ptr[i + 1],
                &format!("row offsets must not decrease ({name}.row_ptr[{i}] = {})", row_ptr[i]),
            )
            .into());
        }
        let col_idx = unsafe { read(&format!("{name}.col_idx"), m.col_idx, m.nnz)? };
        let values = unsafe { read(&format!("{name}.values"), m.values, m.nnz)? };
        Error::check_finite(&format!("{name}.values"), &values)?;
        let csr = sprs::CsMat::new_from_unsorted((r, c), row_ptr, col_idx, values).map_err(|(.., e)| {
            Error::setting(&format!("{name} (CSR)"), format!("{r}x{c}, nnz = {}", m.nnz), &e.to_string())
        })?;
        Ok(Matrix::Sparse(csr))
    } else {
        Err(Error::setting(
            &format!("{name}.format"),
            m.format,
            "must be PERP_FORMAT_DENSE_COL_MAJOR (0) or PERP_FORMAT_CSR (1)",
        )
        .into())
    }
}

/// Names the C argument in the core's messages ("matrix (column-major)[3]" → "M.values[3]").
fn rename(e: Error, name: &str) -> Error {
    match e {
        Error::NonFinite { index, value, .. } => {
            Error::NonFinite { what: format!("{name}.values (column-major)"), index, value }
        }
        Error::DimensionMismatch { expected, found, .. } => {
            Error::DimensionMismatch { what: format!("{name}.values"), expected, found }
        }
        other => other,
    }
}

/// The settings behind `s` for the solver `name` of `family`.
unsafe fn settings(
    s: *const PerpSettings,
    family: Family,
    name: &str,
) -> Result<(Settings, Params), Refusal> {
    if s.is_null() {
        return Ok((Settings::default(), Params::new()));
    }
    if !s.is_aligned() {
        return Err(Refusal::Null("settings".into()));
    }
    // SAFETY: checked non-null and aligned; PerpSettings is plain data.
    let s = unsafe { *s };
    if !(s.time_limit.is_finite() && s.time_limit >= 0.0) {
        return Err(Error::setting(
            "settings.time_limit",
            s.time_limit,
            "must be finite and >= 0 seconds (0: none)",
        )
        .into());
    }
    let out = Settings {
        tol: s.tol,
        max_iter: s.max_iter,
        // 0: none; beyond what a `Duration` holds (1e300): none either.
        time_limit: if s.time_limit > 0.0 {
            Settings::limit_from_secs("settings.time_limit", s.time_limit)?
        } else {
            None
        },
        observer: s.callback.map(|f| {
            let cb = CCallback { f, user: s.user };
            let observer: perp_core::Observer = std::sync::Arc::new(move |p: &perp_core::Progress| {
                if !p.measured {
                    return perp_core::Control::Continue;
                }
                let cb = cb;
                // SAFETY: the caller's function, with the caller's pointer.
                let ret = unsafe { (cb.f)(cb.user, p.iteration, p.error) };
                if ret == 0 {
                    perp_core::Control::Continue
                } else {
                    STOPPED_AT.with(|c| c.set(Some((p.iteration, ret))));
                    perp_core::Control::Stop
                }
            });
            observer
        }),
        ..Settings::default()
    };
    out.validate().map_err(|e| match e {
        Error::InvalidSetting { name, value, reason } => {
            Error::InvalidSetting { name: format!("settings.{name}"), value, reason }
        }
        other => other,
    })?;
    let mut params = Params::new();
    if s.n_params > 0 {
        // Checked before `params` is read: with each name at most once, no solver takes more
        // strings than it has parameters.
        let declared = perp_catalogue::entry(family, name)?.params.len();
        if s.n_params > declared {
            return Err(Error::setting(
                "settings.n_params",
                s.n_params,
                &format!("{name} has {declared} parameter(s), each to be given at most once"),
            )
            .into());
        }
        let texts = unsafe { view(|| "settings.params".into(), s.params, s.n_params)? };
        let mut names: Vec<&str> = Vec::with_capacity(texts.len());
        for (i, &t) in texts.iter().enumerate() {
            let what = format!("settings.params[{i}]");
            let text = unsafe { c_str(&what, t)? };
            let Some((key, _)) = text.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
                return Err(Error::setting(&what, text, "must be \"name=value\", e.g. \"omega=1.3\"").into());
            };
            let key = key.trim();
            if let Some(j) = names.iter().position(|&n| n == key) {
                return Err(Error::setting(
                    &what,
                    text,
                    &format!("parameter {key} is given twice (settings.params[{j}] too)"),
                )
                .into());
            }
            names.push(key);
            params = params.push_pair(text)?;
        }
    }
    Ok((out, params))
}

unsafe fn c_str<'a>(what: &str, p: *const c_char) -> Result<&'a str, Refusal> {
    if p.is_null() {
        return Err(Refusal::Null(what.into()));
    }
    // SAFETY: non-null; the caller promises a NUL-terminated string.
    let s = unsafe { CStr::from_ptr(p) };
    Ok(s.to_str().map_err(|_| Error::setting(what, s.to_string_lossy(), "is not valid UTF-8"))?)
}

/// The one family of the C API (LCP or frictional; MCP for a name of that family only) with
/// a solver called by the C string `p`: `PERP_FAMILY_ANY`'s rule.
unsafe fn family_of_name(p: *const c_char) -> Result<Family, Refusal> {
    if p.is_null() {
        return Err(Error::setting("solver", "NULL", "PERP_FAMILY_ANY needs a solver name").into());
    }
    let name = unsafe { c_str("solver", p) }?;
    let all = perp_catalogue::families_of(name);
    let families: Vec<Family> = all.iter().copied().filter(|f| *f != Family::Mcp).collect();
    match families.as_slice() {
        [f] => Ok(*f),
        // An MCP solver only (schur-lemke).
        [] if all.contains(&Family::Mcp) => Ok(Family::Mcp),
        [] => Err(Error::unknown_solver(name, &perp_catalogue::all_names()).into()),
        _ => Err(Error::setting(
            "solver",
            name,
            "is both an LCP and a frictional-contact solver; give PERP_FAMILY_LCP or PERP_FAMILY_FRICTION",
        )
        .into()),
    }
}

unsafe fn solver_name<'a>(p: *const c_char, family: Family) -> Result<&'a str, Refusal> {
    if p.is_null() {
        return Ok(match family {
            Family::Friction => "prox",
            Family::Mcp => "fb-newton",
            _ => "lemke",
        });
    }
    unsafe { c_str("solver", p) }
}

fn warm_start(p: *const f64, n: usize) -> Result<Option<Vec<f64>>, Refusal> {
    Ok(unsafe { warm_view(p, n)? }.map(<[f64]>::to_vec))
}

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
        let mm = matrix_arg(m, "M")?;
        check_order(&mm, "M", "n", n)?;
        let m = matrix(&mm, "M")?;
        let q = read("q", q, n)?;
        let warm = warm_start(warm, n)?;
        let (s, params) = self::settings(settings, Family::Lcp, name)?;
        check_out("z", z)?;
        check_out("w", w)?;
        let lcp = perp_lcp::Lcp::new(m, q)?;
        let a = perp_catalogue::build(Family::Lcp, name, &params)?.solve(
            &Problem::Lcp(lcp),
            warm.as_deref(),
            &s,
        )?;
        write(z, &a.z[..n]);
        write(w, &a.w[..n]);
        Ok(PerpReport::of(&a.report))
    })
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
        let mm = matrix_arg(m, "M")?;
        check_order(&mm, "M", "n", n)?;
        let m = matrix(&mm, "M")?;
        let q = read("q", q, n)?;
        let lo = read("lower", lower, n)?;
        let hi = read("upper", upper, n)?;
        Error::check_bounds(&lo, &hi)?;
        let warm = warm_start(warm, n)?;
        let (s, params) = self::settings(settings, Family::Lcp, name)?;
        check_out("z", z)?;
        check_out("w", w)?;
        let lcp = perp_lcp::Lcp::with_bounds(m, q, lo, hi)?;
        let a = perp_catalogue::build(Family::Lcp, name, &params)?.solve(
            &Problem::Lcp(lcp),
            warm.as_deref(),
            &s,
        )?;
        write(z, &a.z[..n]);
        write(w, &a.w[..n]);
        Ok(PerpReport::of(&a.report))
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
        if n_eq > n {
            return Err(Error::setting("n_eq", n_eq, &format!("must be at most n = {n}")).into());
        }
        let mm = matrix_arg(m, "M")?;
        check_order(&mm, "M", "n", n)?;
        let m = matrix(&mm, "M")?;
        let q = read("q", q, n)?;
        let warm = warm_start(warm, n)?;
        let (s, params) = self::settings(settings, Family::Mcp, name)?;
        check_out("z", z)?;
        check_out("w", w)?;
        let p = perp_ncp::mlcp::Mlcp::new(m, q, (0..n).map(|i| i < n_eq).collect())?;
        let a = perp_catalogue::build(Family::Mcp, name, &params)?.solve(
            &Problem::Mlcp(p),
            warm.as_deref(),
            &s,
        )?;
        write(z, &a.z[..n]);
        write(w, &a.w[..n]);
        Ok(PerpReport::of(&a.report))
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
        let wm = matrix_arg(w_mat, "W")?;
        check_order(&wm, "W", "dim * n_contacts", size)?;
        let w = matrix(&wm, "W")?;
        let q = read("q", q, size)?;
        let mu = read("mu", mu, n_contacts)?;
        let warm = warm_start(warm, size)?;
        let (s, params) = self::settings(settings, Family::Friction, name)?;
        check_out("r", r)?;
        check_out("u", u)?;
        let p = perp_cones::FrictionContactProblem::new(dim, w, q, mu)?;
        let a = perp_catalogue::build(Family::Friction, name, &params)?.solve(
            &Problem::Friction(p),
            warm.as_deref(),
            &s,
        )?;
        write(r, &a.z[..size]);
        write(u, &a.w[..size]);
        Ok(PerpReport::of(&a.report))
    })
}

/// The contact dimension `dim` checked against the law `cone` (NULL: Coulomb), and
/// `dim · n_contacts` (checked for overflow).
unsafe fn cone_size(cone: Option<&PerpCone>, dim: usize, n_contacts: usize) -> Result<usize, Refusal> {
    let kind = cone.map_or(PerpConeKind::Coulomb as i32, |c| c.kind);
    let dims: &[usize] = if kind == PerpConeKind::Coulomb as i32 || kind == PerpConeKind::Pyramid as i32 {
        &[2, 3]
    } else if kind == PerpConeKind::Elliptic as i32 {
        &[2, 3, 4]
    } else if kind == PerpConeKind::Rolling as i32 {
        &[3, 5]
    } else {
        return Err(Error::setting(
            "cone.kind",
            kind,
            "must be PERP_CONE_COULOMB (0), PERP_CONE_PYRAMID (1), PERP_CONE_ELLIPTIC (2) or PERP_CONE_ROLLING (3)",
        )
        .into());
    };
    if !dims.contains(&dim) {
        let (law, which) = match kind {
            1 => ("a pyramid", "2 (with 2 facets) or 3"),
            2 => ("the elliptic cone", "2, 3 or 4 (with torsion)"),
            3 => ("the rolling cone", "3 (2-D: normal, tangential, rolling) or 5 (3-D)"),
            _ => ("Coulomb's cone", "2 or 3 (for torsion use PERP_CONE_ELLIPTIC, dim 4)"),
        };
        return Err(Error::setting("dim", dim, &format!("contacts of {law} have dimension {which}")).into());
    }
    Ok(dim
        .checked_mul(n_contacts)
        .ok_or_else(|| Error::setting("n_contacts", n_contacts, "dim * n_contacts overflows"))?)
}

/// The local problem of `w`, `q`, `mu` with the law `cone` (NULL: Coulomb) at each of its
/// contacts; the law's data read here (`cone.data`, named so in errors).
unsafe fn cone_problem(
    cone: Option<&PerpCone>,
    dim: usize,
    w: Matrix,
    q: Vec<f64>,
    mu: Vec<f64>,
) -> Result<perp_cones::FrictionContactProblem, Refusal> {
    let nc = mu.len();
    let Some(c) = cone else {
        return Ok(perp_cones::FrictionContactProblem::new(dim, w, q, mu)?);
    };
    let specs: Vec<perp_cones::ConeSpec> = match c.kind {
        0 => return Ok(perp_cones::FrictionContactProblem::new(dim, w, q, mu)?),
        1 => {
            // Checked once here so that the error names the field, not a contact.
            perp_cones::Pyramid::new(dim, c.facets).map_err(|e| match e {
                Error::InvalidSetting { name, value, reason } if name == "facets" => {
                    Error::InvalidSetting { name: "cone.facets".into(), value, reason }
                }
                other => other,
            })?;
            vec![perp_cones::ConeSpec::Pyramid { facets: c.facets }; nc]
        }
        2 => {
            let k = dim - 1;
            let len = nc.checked_mul(k).ok_or_else(|| Error::setting("n_contacts", nc, "overflows"))?;
            let e = unsafe { read("cone.data (the semi-axes)", c.data, len)? };
            check_axes(&e, k)?;
            e.chunks(k).map(|a| perp_cones::ConeSpec::Elliptic { e: a.to_vec() }).collect()
        }
        _ => {
            let mu_r = unsafe { read("cone.data (mu_r)", c.data, nc)? };
            check_mu_r(&mu_r)?;
            return Ok(perp_cones::FrictionContactProblem::rolling(dim, w, q, mu, mu_r)?);
        }
    };
    Ok(perp_cones::FrictionContactProblem::new(dim, w, q, mu)?.with_cones(specs)?)
}

/// Refuses a semi-axis (`k` per contact) that is not finite and > 0, naming it.
fn check_axes(e: &[f64], k: usize) -> Result<(), Refusal> {
    match e.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
        Some(i) => Err(Error::setting(
            &format!("cone.data[{i}] (semi-axis {} of contact {})", i % k, i / k),
            e[i],
            "must be finite and > 0",
        )
        .into()),
        None => Ok(()),
    }
}

/// Refuses a rolling coefficient that is not finite and >= 0, naming it.
fn check_mu_r(mu_r: &[f64]) -> Result<(), Refusal> {
    match mu_r.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
        Some(i) => {
            Err(Error::setting(&format!("mu_r[{i}] (cone.data)"), mu_r[i], "must be finite and >= 0").into())
        }
        None => Ok(()),
    }
}

/// Refills the laws of the kept problem `p` from `cone` in place when they are of the same
/// kind (and, for pyramids, facets): μ_r or the semi-axes are copied (checked first).
/// `false` when the kinds differ (nothing changed).
unsafe fn refill_laws(
    p: &mut perp_cones::FrictionContactProblem,
    cone: Option<&PerpCone>,
) -> Result<bool, Refusal> {
    use perp_cones::ConeSpec;
    let nc = p.contacts();
    let k = p.dim - 1;
    let kind = cone.map_or(PerpConeKind::Coulomb as i32, |c| c.kind);
    let Some(laws) = p.cones.as_mut() else {
        return Ok(kind == PerpConeKind::Coulomb as i32);
    };
    let Some(c) = cone else { return Ok(false) };
    if kind == PerpConeKind::Pyramid as i32 {
        return Ok(laws.iter().all(|l| matches!(l, ConeSpec::Pyramid { facets } if *facets == c.facets)));
    }
    if kind == PerpConeKind::Elliptic as i32 {
        if !laws.iter().all(|l| matches!(l, ConeSpec::Elliptic { e } if e.len() == k)) {
            return Ok(false);
        }
        let e = unsafe { view(|| "cone.data (the semi-axes)".into(), c.data, nc * k)? };
        check_axes(e, k)?;
        for (law, axes) in laws.iter_mut().zip(e.chunks(k)) {
            if let ConeSpec::Elliptic { e } = law {
                e.copy_from_slice(axes);
            }
        }
        return Ok(true);
    }
    if kind == PerpConeKind::Rolling as i32 {
        if !laws.iter().all(|l| matches!(l, ConeSpec::Rolling { .. })) {
            return Ok(false);
        }
        let v = unsafe { view(|| "cone.data (mu_r)".into(), c.data, nc)? };
        check_mu_r(v)?;
        for (law, &m) in laws.iter_mut().zip(v) {
            *law = ConeSpec::Rolling { mu_r: m };
        }
        return Ok(true);
    }
    Ok(false)
}

/// `perp_solve_friction_cone` with a kept solver of the frictional family: the law, W, q, μ
/// and the warm start as there. While W keeps its shape, `dim` and `n_contacts` their values
/// and the law its kind (and facets), the problem is refilled in place (μ_r and semi-axes
/// included); otherwise it is built afresh. The answer equals `perp_solve_friction_cone`'s
/// with the same solver and settings, bit for bit (for a solver without memory of earlier
/// answers).
#[no_mangle]
pub unsafe extern "C" fn perp_solver_friction_cone(
    s: *mut PerpSolver,
    cone: *const PerpCone,
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
    guard("perp_solver_friction_cone", report, || unsafe {
        let h = handle(s, Family::Friction)?;
        if !cone.is_null() && !cone.is_aligned() {
            return Err(Refusal::Null("cone".into()));
        }
        // SAFETY: checked aligned; NULL is None. PerpCone is plain data.
        let cone = if cone.is_null() { None } else { Some(*cone) };
        let size = cone_size(cone.as_ref(), dim, n_contacts)?;
        let wm = matrix_arg(w_mat, "W")?;
        check_order(&wm, "W", "dim * n_contacts", size)?;
        let qs = view(|| "q".into(), q, size)?;
        let mus = view(|| "mu".into(), mu, n_contacts)?;
        let start = warm_view(warm, size)?;
        check_out("r", r)?;
        check_out("u", u)?;
        let kept = match &mut h.problem {
            Some(Problem::Friction(p)) if p.dim == dim && p.size() == size => {
                match same_shape(&wm, &p.w, "W")? {
                    Some(values) if refill_laws(p, cone.as_ref())? => {
                        refill(&mut p.w, values);
                        p.q.copy_from_slice(qs);
                        p.mu.copy_from_slice(mus);
                        true
                    }
                    _ => false,
                }
            }
            _ => false,
        };
        if !kept {
            h.problem = None;
            let p = cone_problem(cone.as_ref(), dim, matrix(&wm, "W")?, qs.to_vec(), mus.to_vec())?;
            h.problem = Some(Problem::Friction(p));
        }
        h.solve_kept(start, r, u)
    })
}

/// Solves the frictional contact problem `u = W r + q` with the friction law `cone` at each
/// of the `n_contacts` contacts of dimension `dim` (normal component first),
/// `size = dim * n_contacts`: Coulomb's cone (dim 2, 3), a pyramid (dim 2, 3), the elliptic
/// cone (dim 2–4, torsion at 4) or Siconos' rolling friction cone (dim 3, 5; μ_r per
/// contact), see `PerpConeKind`.
///
/// * `cone`: the law (`perp_cone_rolling(mu_r)`, …), or NULL for Coulomb; a kind and `dim`
///   that do not fit, a negative μ_r, a semi-axis <= 0 or too few facets are refused naming
///   the field and value;
/// * the other arguments as for `perp_solve_friction`. Solvers that work from a cone's
///   projection or natural map (nsgs, prox, fb-newton, ac-newton, admm, apgd, …) take every
///   law; a solver that cannot take one refuses the call with a message saying which to use.
///
/// Returns the status (see `PerpStatus`).
#[no_mangle]
pub unsafe extern "C" fn perp_solve_friction_cone(
    solver: *const c_char,
    cone: *const PerpCone,
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
    guard("perp_solve_friction_cone", report, || unsafe {
        let name = solver_name(solver, Family::Friction)?;
        if !cone.is_null() && !cone.is_aligned() {
            return Err(Refusal::Null("cone".into()));
        }
        // SAFETY: checked aligned; NULL is None. PerpCone is plain data.
        let cone = if cone.is_null() { None } else { Some(*cone) };
        let size = cone_size(cone.as_ref(), dim, n_contacts)?;
        let wm = matrix_arg(w_mat, "W")?;
        check_order(&wm, "W", "dim * n_contacts", size)?;
        let w = matrix(&wm, "W")?;
        let q = read("q", q, size)?;
        let mu = read("mu", mu, n_contacts)?;
        let warm = warm_start(warm, size)?;
        let (s, params) = self::settings(settings, Family::Friction, name)?;
        check_out("r", r)?;
        check_out("u", u)?;
        let p = cone_problem(cone.as_ref(), dim, w, q, mu)?;
        let a = perp_catalogue::build(Family::Friction, name, &params)?.solve(
            &Problem::Friction(p),
            warm.as_deref(),
            &s,
        )?;
        write(r, &a.z[..size]);
        write(u, &a.w[..size]);
        Ok(PerpReport::of(&a.report))
    })
}

/// Solves the frictional contact problem in global form (Siconos' and FCLIB's
/// `GlobalFrictionContactProblem`), `M v = f + H r`, `u = Hᵀ v + b`, Coulomb friction at
/// `n_contacts` contacts of dimension `dim` (2 or 3; normal component first),
/// `size = dim * n_contacts`, without forming W by the global solvers.
///
/// * `solver`: `global-ipm` (NULL: interior point on the convex relaxation, then Newton to
///   the exact problem), `global-ac-newton`, or a local frictional solver's name (run on the
///   reduction `W = Hᵀ M⁻¹ H`);
/// * `m_mat`: M, `n_dof`×`n_dof` symmetric positive definite (its order gives `n_dof`);
///   `h_mat`: H, `n_dof`×`size`; `f`: `n_dof` values; `b`: `size` values; `mu`: `n_contacts`
///   friction coefficients (>= 0);
/// * `warm`: `size` reactions to start from, or NULL;
/// * `settings`: NULL for `perp_settings_default()`;
/// * `r`, `u` (`size` values) and `v` (`n_dof` values): the caller's buffers, written when
///   the result is >= 0;
/// * `report`: written when not NULL (also when the call is refused); its error is Siconos'
///   global measure.
///
/// Returns the status (see `PerpStatus`).
#[no_mangle]
pub unsafe extern "C" fn perp_solve_global(
    solver: *const c_char,
    dim: usize,
    m_mat: *const PerpMatrix,
    h_mat: *const PerpMatrix,
    f: *const f64,
    b: *const f64,
    mu: *const f64,
    n_contacts: usize,
    warm: *const f64,
    settings: *const PerpSettings,
    r: *mut f64,
    v: *mut f64,
    u: *mut f64,
    report: *mut PerpReport,
) -> PerpStatus {
    guard("perp_solve_global", report, || unsafe {
        let name = if solver.is_null() { "global-ipm" } else { solver_name(solver, Family::Friction)? };
        if !(2..=3).contains(&dim) {
            return Err(Error::setting(
                "dim",
                dim,
                "the global problem takes Coulomb contacts of dimension 2 or 3 (perp's global form \
                 has no rolling or torsional cones yet: form W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + b and call \
                 perp_solve_friction_cone)",
            )
            .into());
        }
        let size = friction_size(dim, n_contacts)?;
        let mm = matrix_arg(m_mat, "M")?;
        let n_dof = mm.nrows;
        check_order(&mm, "M", "n_dof (M's order)", n_dof)?;
        let hm = matrix_arg(h_mat, "H")?;
        if (hm.nrows, hm.ncols) != (n_dof, size) {
            return Err(Error::setting(
                "H",
                format!("{}x{}", hm.nrows, hm.ncols),
                &format!("H must be n_dof x (dim * n_contacts) = {n_dof}x{size}"),
            )
            .into());
        }
        let m = matrix(&mm, "M")?;
        let h = matrix(&hm, "H")?;
        let f = read("f", f, n_dof)?;
        let b = read("b", b, size)?;
        let mu = read("mu", mu, n_contacts)?;
        let warm = warm_start(warm, size)?;
        let (s, params) = self::settings(settings, Family::Friction, name)?;
        check_out("r", r)?;
        check_out("v", v)?;
        check_out("u", u)?;
        let g = perp_cones::GlobalFrictionContactProblem::new(dim, m, h, f, b, mu)?;
        let a = perp_catalogue::build(Family::Friction, name, &params)?.solve(
            &Problem::GlobalFriction(g),
            warm.as_deref(),
            &s,
        )?;
        write(r, &a.z[..size]);
        write(u, &a.w[..size]);
        if let Some(vel) = &a.v {
            write(v, &vel[..n_dof]);
        }
        Ok(PerpReport::of(&a.report))
    })
}

/// A solver kept across calls: the C face of "prepare once, solve many". It holds the
/// catalogue solver (its workspaces), the problem (whose storage is refilled in place while
/// the matrix keeps its shape: a dense matrix of the same size, or a CSR matrix with the same
/// `row_ptr` and `col_idx`), the solution vectors and the report. A simulator that solves a
/// problem of the same structure at every step then pays neither the conversion, the
/// solver's set-up nor an allocation per call. Create one with `perp_solver_new`, use it
/// from one thread at a time, and free it with `perp_solver_free`.
pub struct PerpSolver {
    solver: perp_catalogue::Solver,
    settings: Settings,
    /// The last problem, refilled in place while its shape holds.
    problem: Option<Problem>,
    /// The solution vectors (z, w or r, u), and M's values row by row for `Lcp::set_m_values`.
    x: Vec<f64>,
    y: Vec<f64>,
    rows: Vec<f64>,
    report: SolveReport,
}

impl PerpSolver {
    /// Solves the kept problem (from `start`, checked by `warm_view`, when given) on the
    /// prepared path and writes the answer to the caller's buffers `x_out` and `y_out`
    /// (checked by `check_out`).
    unsafe fn solve_kept(
        &mut self,
        start: Option<&[f64]>,
        x_out: *mut f64,
        y_out: *mut f64,
    ) -> Result<PerpReport, Refusal> {
        let p = self.problem.as_ref().expect("the caller has just kept or built it");
        let n = p.n();
        if let Some(v) = start {
            self.x.clear();
            self.x.extend_from_slice(v);
        }
        self.solver.solve_into(
            p,
            start.is_some(),
            &mut self.x,
            &mut self.y,
            &mut self.report,
            &self.settings,
        )?;
        unsafe {
            write(x_out, &self.x[..n]);
            write(y_out, &self.y[..n]);
        }
        Ok(PerpReport::of(&self.report))
    }
}

/// The values of `m` when it has the shape of `kept` (same size, dense; or CSR with the same
/// row offsets and column indices), in `kept`'s storage order: column by column for dense, the
/// CSR data for sparse. `None` when the shapes differ (the matrix is then converted afresh).
unsafe fn same_shape<'a>(m: &PerpMatrix, kept: &Matrix, name: &str) -> Result<Option<&'a [f64]>, Refusal> {
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
fn refill(kept: &mut Matrix, values: &[f64]) {
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
unsafe fn handle<'a>(s: *mut PerpSolver, family: Family) -> Result<&'a mut PerpSolver, Refusal> {
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
        let h = PerpSolver {
            solver,
            settings,
            problem: None,
            x: Vec::new(),
            y: Vec::new(),
            rows: Vec::new(),
            report: SolveReport::new(name),
        };
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
        let mm = matrix_arg(m, "M")?;
        check_order(&mm, "M", "n", n)?;
        let qs = view(|| "q".into(), q, n)?;
        let start = warm_view(warm, n)?;
        check_out("z", z)?;
        check_out("w", w)?;
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
unsafe fn refill_lcp(
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
    fn keep_lcp(&mut self, lcp: perp_lcp::Lcp) {
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
        let mm = matrix_arg(m, "M")?;
        check_order(&mm, "M", "n", n)?;
        let qs = view(|| "q".into(), q, n)?;
        let lo = view(|| "lower".into(), lower, n)?;
        let hi = view(|| "upper".into(), upper, n)?;
        Error::check_bounds(lo, hi)?;
        let start = warm_view(warm, n)?;
        check_out("z", z)?;
        check_out("w", w)?;
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
fn bits_eq(a: &[f64], b: &[f64]) -> bool {
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
        if n_eq > n {
            return Err(Error::setting("n_eq", n_eq, &format!("must be at most n = {n}")).into());
        }
        let mm = matrix_arg(m, "M")?;
        check_order(&mm, "M", "n", n)?;
        let mat = matrix(&mm, "M")?;
        let qs = read("q", q, n)?;
        let start = warm_view(warm, n)?;
        check_out("z", z)?;
        check_out("w", w)?;
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
        let wm = matrix_arg(w_mat, "W")?;
        check_order(&wm, "W", "dim * n_contacts", size)?;
        let qs = view(|| "q".into(), q, size)?;
        let mus = view(|| "mu".into(), mu, n_contacts)?;
        let start = warm_view(warm, size)?;
        check_out("r", r)?;
        check_out("u", u)?;
        // The values are checked by the solve (`solve_into` validates the problem).
        let kept = match &mut h.problem {
            Some(Problem::Friction(p)) if p.dim == dim && p.size() == size && p.cones.is_none() => {
                match same_shape(&wm, &p.w, "W")? {
                    Some(values) => {
                        refill(&mut p.w, values);
                        p.q.copy_from_slice(qs);
                        p.mu.copy_from_slice(mus);
                        true
                    }
                    None => false,
                }
            }
            _ => false,
        };
        if !kept {
            h.problem = None;
            let w = matrix(&wm, "W")?;
            let p = perp_cones::FrictionContactProblem::new(dim, w, qs.to_vec(), mus.to_vec())?;
            h.problem = Some(Problem::Friction(p));
        }
        h.solve_kept(start, r, u)
    })
}

/// Copies the message of the calling thread's last refused call (empty after a call that
/// was not refused) into `buf` as a NUL-terminated string of at most `len` bytes, truncated
/// at a character boundary if needed. Returns the message's full length in bytes (without
/// the NUL), so a caller can size `buf`; `buf` may be NULL (with any `len`) to ask only that.
#[no_mangle]
pub unsafe extern "C" fn perp_last_error_message(buf: *mut c_char, len: usize) -> usize {
    let msg = LAST_ERROR.with(|e| e.borrow().clone());
    unsafe { copy_text(&msg, buf, len) }
}

unsafe fn copy_text(msg: &str, buf: *mut c_char, len: usize) -> usize {
    if !buf.is_null() && len > 0 {
        let mut k = msg.len().min(len - 1);
        while !msg.is_char_boundary(k) {
            k -= 1;
        }
        // SAFETY: non-null; the caller promises `len` writable bytes, and k + 1 <= len.
        unsafe {
            std::ptr::copy_nonoverlapping(msg.as_ptr().cast::<c_char>(), buf, k);
            *buf.add(k) = 0;
        }
    }
    msg.len()
}

/// Copies the catalogue's solver names for `family` (a `PerpFamily` value), separated by
/// commas, into `buf` as `perp_last_error_message` does, and returns the full length.
/// `PERP_FAMILY_ANY` lists every solver of the catalogue once (a name of several families,
/// such as `fb-newton`, once). An unknown family gives the empty string.
#[no_mangle]
pub unsafe extern "C" fn perp_solver_names(family: i32, buf: *mut c_char, len: usize) -> usize {
    let names = if family == PerpFamily::Lcp as i32 {
        perp_catalogue::names(Family::Lcp).join(",")
    } else if family == PerpFamily::Friction as i32 {
        perp_catalogue::names(Family::Friction).join(",")
    } else if family == PerpFamily::Mcp as i32 {
        perp_catalogue::names(Family::Mcp).join(",")
    } else if family == PerpFamily::Any as i32 {
        perp_catalogue::all_names().join(",")
    } else {
        String::new()
    };
    unsafe { copy_text(&names, buf, len) }
}

/// The name of a status (`"solved"`, `"max_iterations"`, …, `"invalid_input"`,
/// `"null_pointer"`, `"internal_error"`; `"unknown"` for other values), a static string.
#[no_mangle]
pub extern "C" fn perp_status_name(status: i32) -> *const c_char {
    let s: &'static CStr = match status {
        0 => c"solved",
        1 => c"max_iterations",
        2 => c"time_limit",
        3 => c"stalled",
        4 => c"ray_termination",
        5 => c"infeasible",
        6 => c"numerical_failure",
        7 => c"interrupted",
        8 => c"other",
        9 => c"diverged",
        -1 => c"invalid_input",
        -2 => c"null_pointer",
        -3 => c"internal_error",
        _ => c"unknown",
    };
    s.as_ptr()
}

/// perp's version, a static string such as `"0.1.0"`.
#[no_mangle]
pub extern "C" fn perp_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_caught_and_reported_as_an_internal_error() {
        let mut report = PerpReport::refused(PerpStatus::Solved);
        let status = guard("perp_test", &mut report, || panic!("boom {}", 42));
        assert_eq!((status, report.status), (PerpStatus::InternalError, PerpStatus::InternalError));
        let msg = LAST_ERROR.with(|e| e.borrow().clone());
        assert_eq!(msg, "perp_test: internal error (please report): boom 42");
    }
}

// The unit tests count allocations (`api_tests`: a kept solver allocates nothing per call).
#[cfg(test)]
#[global_allocator]
static GLOBAL: perp_core::alloc_count::Counting = perp_core::alloc_count::Counting;

#[cfg(test)]
mod api_tests;
#[cfg(test)]
mod header_tests;
