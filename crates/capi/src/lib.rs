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
//!
//! This file holds the C types; `args` reads and checks the C arguments, `solve`, `cones` and
//! `global` are the one-shot calls, `kept` the kept solvers, `text` the strings handed to C.
//! cbindgen reads the modules in the order they are declared here, which is the header's
//! order.
#![warn(missing_docs)]
// Every pointer argument is checked for NULL and alignment before use; the remaining
// contract (buffers as long as their stated sizes) is the C caller's, documented above.
#![allow(clippy::missing_safety_doc)]

use perp_catalogue::{Family, Params, Problem};
use perp_core::{Error, Matrix, Settings, SolveReport, Status};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

mod args;
use args::*;
mod solve;
pub use solve::*;
mod cones;
pub use cones::*;
mod global;
pub use global::*;
mod kept;
pub use kept::*;
mod text;
pub use text::*;

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
