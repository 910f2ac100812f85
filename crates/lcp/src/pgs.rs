//! Projected Gauss–Seidel ([`Pgs`]): PGS, projected SOR and regularized (proximal) PGS for the
//! LCP and the box-LCP.
//!
//! # The method
//!
//! For the box-LCP `lo ≤ z ≤ hi`, `w = M z + q` in the normal cone (the standard LCP is
//! `lo = 0`, `hi = +∞`), one *sweep* visits the rows `i = 0, 1, …, n−1` in order and updates
//!
//! ```text
//!     w̃ᵢ = (M z)ᵢ + qᵢ + ρ (zᵢ − aᵢ)            (with the current z: Gauss–Seidel)
//!     zᵢ ← mid(loᵢ, hiᵢ, zᵢ − ω w̃ᵢ / (Mᵢᵢ + ρ))
//! ```
//!
//! where `mid(l, h, x) = min(max(x, l), h)` is the projection onto `[l, h]`.
//!
//! * **`"pgs"`** — `ω = 1`, `ρ = 0`: projected Gauss–Seidel, the splitting `B = D + L` of
//!   Cottle–Pang–Stone, *The Linear Complementarity Problem* (1992), ch. 5.
//! * **`"psor"`** — `0 < ω < 2`, `ρ = 0`: projected successive over-relaxation
//!   (Cottle–Pang–Stone ch. 5, splitting `B = D/ω + L`; Mangasarian, *Solution of symmetric
//!   linear complementarity problems by iterative methods*, JOTA 22, 1977). For symmetric M
//!   with a positive diagonal each row update is a relaxed exact coordinate minimization of
//!   `½ zᵀMz + qᵀz` over the box, so the objective never increases for `ω ∈ (0, 2)`; for
//!   symmetric positive definite M the iterates converge to the unique solution.
//! * **`"rpgs"`** — `ρ > 0`: regularized PGS, the proximal-point method (Rockafellar,
//!   *Monotone operators and the proximal point algorithm*, SIAM J. Control Optim. 14, 1976)
//!   with PGS as its inner solver. The outer step `k` solves the LCP with matrix `M + ρI` and
//!   vector `q − ρ aₖ`, anchored at `aₖ = zₖ`, by inner sweeps; the anchor moves to the current
//!   z after [`Pgs::inner_sweeps`] sweeps or as soon as the inner problem has converged
//!   ([`Pgs::inner_tol`]). Every inner matrix `M + ρI` has the diagonal `Mᵢᵢ + ρ > 0`, so a
//!   positive semidefinite M with zero diagonal entries (e.g. equality rows of an MLCP) is
//!   fine. With one inner sweep per outer step (the default) this is Siconos numerics'
//!   `lcp_rpgs` (Acary & Brogliato, *Numerical Methods for Nonsmooth Dynamical Systems*, 2008,
//!   ch. 12), whose default `ρ = 1` we keep. One sweep is then PSOR with the splitting
//!   `B = D + ρI + L`, `C = U − ρI`. For symmetric M any ρ ≥ 0 works; for a non-symmetric
//!   monotone M (e.g. `[[H, C], [−Cᵀ, 0]]`) ρ must dominate the skew coupling or the sweeps
//!   may not converge (in our tests on such a matrix with 40 + 10 rows, ρ = 1 had not
//!   converged after 10⁵ sweeps, ρ = 10 converged in 500). A good guide is to make the
//!   symmetric part of `B − C = D + 2ρI + L − U` diagonally dominant:
//!   `Mᵢᵢ + 2ρ > ½ Σ_{j≠i} |Mᵢⱼ − Mⱼᵢ|` for every row.
//!
//! # Storage and blocking
//!
//! A sweep needs the rows of M. A dense M (faer, column-major) is copied once per solve into a
//! row-major buffer of the solver's reusable workspace (a tiled transpose), so each row product
//! is contiguous; a CSR matrix is used in place; a CSC matrix is converted to CSR once per
//! solve, into reused buffers. A sweep allocates nothing, and once the workspace has been sized
//! for a structure (n, storage of M) neither does a whole solve through
//! [`LcpSolver::solve_into`] (with `record_history` off); `solve` wraps it.
//!
//! Rows are taken in blocks of 8: the products of a block's rows are formed against z before
//! any of them is updated, then each row adds its coupling to the block rows already updated,
//! `Σ_{r'<r} M[i, b₀+r'] Δz_{r'}`, and is projected. In exact arithmetic this is the row-by-row
//! Gauss–Seidel sweep; in floating point it lets the eight products run side by side (the dense
//! kernel loads each `zⱼ` once for eight rows) instead of each waiting for the row before it.
//! Every product is one running sum in increasing column order, which the sparse kernel
//! reproduces by skipping zeros (adding ±0 leaves a sum unchanged), so dense and sparse storage
//! of the same matrix give bit-identical iterates.
//!
//! # When the error is computed
//!
//! The loop ([`perp_core::iteration::run`], one sweep = one iteration) stops on the peer error
//! `report.error` ([`Lcp::errors`] at `w = M z + q`). Recomputing `w` costs one mat-vec, as much
//! as a sweep, so it is done only
//!
//! 1. before the first sweep (a warm start that already meets the tolerance costs no sweep);
//! 2. every [`Pgs::check_every`] sweeps (default [`DEFAULT_CHECK_EVERY`]);
//! 3. when a free *proxy* says convergence is likely: during the sweep, row `i`'s natural-map
//!    residual `zᵢ − mid(loᵢ, hiᵢ, zᵢ − wᵢ)` is accumulated with the `wᵢ` its update uses
//!    anyway. It is the residual just before the row's update, so it measures the step being
//!    taken (for PGS it is `Mᵢᵢ·|Δzᵢ|` on rows off their bounds), vanishes exactly at a fixed
//!    point and lags the true error by about one sweep. Its 2-norm, normalized like the peer
//!    error, is compared with a trigger, initially `2·tol`; when the exact check then fails,
//!    the trigger drops to half the proxy, so a proxy that underestimates costs a few extra
//!    mat-vecs, not one per sweep;
//! 4. when the sweep left z unchanged (see *Stagnation*), or the proxy is not finite.
//!
//! On the other sweeps the step reports the last exactly computed error, which is `> tol`
//! (or the loop would have stopped), so the loop can never stop on an estimate. The exact
//! check uses [`Matrix::mul_vec`] exactly as [`Lcp::solution`] does, so a `Solved` verdict is
//! confirmed bit for bit by the final report.
//!
//! # Stagnation
//!
//! A sweep that changes no entry of z (`Δz = 0` exactly) while the exact error is above the
//! tolerance can never make progress: the solve ends with [`Status::Stalled`] (for `rpgs`,
//! only once the anchor already equals z).
//!
//! # Requirements
//!
//! Each row divides by `Mᵢᵢ + ρ`. If it is not larger than [`DIAG_REL_TOL`] times the largest
//! `|Mᵢⱼ|` of its row (zero, negative or tiny diagonal) the solve returns
//! [`Error::Requirement`] naming the row and the value, rather than iterating on NaNs.

use crate::{Lcp, LcpSolver};
use perp_core::iteration::{self, IterativeMethod, StepResult};
use perp_core::{Error, Matrix, Settings, Solution, SolveReport, Status};
use std::time::Instant;

/// Default iteration limit: 10 000 sweeps (used when `Settings::max_iter` is 0). Siconos uses
/// 1 000; PGS on ill-conditioned contact problems often needs more.
pub const DEFAULT_MAX_ITER: usize = 10_000;

/// Default relaxation of `"psor"`: ω = 1.2 (mild over-relaxation; any ω ∈ (0, 2) is valid).
/// Siconos' `lcp_psor` stores a relaxation parameter but its sweep does not apply it, so it
/// offers no reference value; 1.2 took fewer sweeps than ω = 1 on random SPD problems and on
/// contact-like Delassus matrices in our tests.
pub const DEFAULT_PSOR_OMEGA: f64 = 1.2;

/// Default proximal weight of `"rpgs"`: ρ = 1, Siconos' `lcp_rpgs` default. ρ is absolute:
/// choose it comparable to the diagonal of M. Larger ρ slows convergence (on random SPD
/// and Delassus-like test problems ρ = 10 took 6–40 times the sweeps of ρ = 0.1), but a
/// non-symmetric M needs ρ large enough to dominate its skew part (see the module docs).
pub const DEFAULT_RPGS_RHO: f64 = 1.0;

/// Default inner sweeps per proximal step of `"rpgs"`: 1 (Siconos' `lcp_rpgs`: each sweep
/// re-anchors).
pub const DEFAULT_INNER_SWEEPS: usize = 1;

/// Default inner tolerance of `"rpgs"`: the anchor also moves once a sweep changes z by at most
/// `1e-2 · max|zᵢ|` (only matters with more than one inner sweep).
pub const DEFAULT_INNER_TOL: f64 = 1e-2;

/// Default period of the exact error check: every 10 sweeps (see the module docs).
pub const DEFAULT_CHECK_EVERY: usize = 10;

/// A diagonal `Mᵢᵢ + ρ` must exceed this times the largest `|Mᵢⱼ|` of row i.
pub const DIAG_REL_TOL: f64 = 1e-12;

/// The registry names this type answers to.
pub const NAMES: [&str; 3] = ["pgs", "psor", "rpgs"];

/// Projected Gauss–Seidel family for [`Lcp`] (standard and box): `"pgs"`, `"psor"` and
/// `"rpgs"` (see the [module docs](self) for the method, the error checks and references).
///
/// The knobs are public; [`Pgs::validate`] (called by `solve`) checks their ranges. The type
/// keeps a workspace (row-major copy of a dense M, iterate, diagonal), so reusing one `Pgs`
/// across the steps of a simulation does not reallocate.
#[derive(Clone, Debug)]
pub struct Pgs {
    /// Relaxation ω. Default 1 (`pgs`, `rpgs`), [`DEFAULT_PSOR_OMEGA`] (`psor`); valid:
    /// finite, `0 < ω < 2`.
    pub omega: f64,
    /// Proximal weight ρ added to the diagonal. Default 0 (`pgs`, `psor`),
    /// [`DEFAULT_RPGS_RHO`] (`rpgs`); valid: finite, `ρ ≥ 0` (ρ = 0 is plain PGS/PSOR).
    pub rho: f64,
    /// Inner sweeps per proximal step (only with ρ > 0). Default [`DEFAULT_INNER_SWEEPS`];
    /// valid: `≥ 1`.
    pub inner_sweeps: usize,
    /// Inner convergence test (only with ρ > 0): the anchor moves early when a sweep's
    /// `max|Δzᵢ| ≤ inner_tol · max|zᵢ|`. Default [`DEFAULT_INNER_TOL`]; valid: finite, `≥ 0`.
    pub inner_tol: f64,
    /// Exact error check at least every `check_every` sweeps. Default
    /// [`DEFAULT_CHECK_EVERY`]; valid: `≥ 1` (1 checks after every sweep).
    pub check_every: usize,
    ws: Workspace,
}

impl Default for Pgs {
    /// Plain projected Gauss–Seidel ([`Pgs::pgs`]).
    fn default() -> Self {
        Pgs::pgs()
    }
}

impl Pgs {
    /// Projected Gauss–Seidel: ω = 1, ρ = 0 (registry name `"pgs"`).
    ///
    /// ```
    /// use perp_core::{Matrix, Settings, Status};
    /// use perp_lcp::{pgs::Pgs, Lcp, LcpSolver};
    /// let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
    /// let p = Lcp::new(m, vec![-5.0, -6.0]).unwrap();
    /// let mut solver = Pgs::pgs();
    /// assert_eq!(solver.name(), "pgs");
    /// let sol = solver.solve(&p, None, &Settings { tol: 1e-12, ..Settings::default() }).unwrap();
    /// assert_eq!(sol.report.status, Status::Solved);
    /// assert!((sol.z[0] - 4.0 / 3.0).abs() < 1e-10 && (sol.z[1] - 7.0 / 3.0).abs() < 1e-10);
    /// ```
    #[allow(clippy::self_named_constructors)] // `Pgs::pgs()` names the registry entry "pgs".
    pub fn pgs() -> Self {
        Pgs {
            omega: 1.0,
            rho: 0.0,
            inner_sweeps: DEFAULT_INNER_SWEEPS,
            inner_tol: DEFAULT_INNER_TOL,
            check_every: DEFAULT_CHECK_EVERY,
            ws: Workspace::default(),
        }
    }

    /// Projected SOR with relaxation `omega` ∈ (0, 2) (registry name `"psor"`, default
    /// [`DEFAULT_PSOR_OMEGA`]). An out-of-range ω is reported by [`Pgs::validate`] /
    /// `solve` as [`Error::InvalidSetting`].
    ///
    /// ```
    /// use perp_core::{Matrix, Settings, Status};
    /// use perp_lcp::{pgs::Pgs, Lcp, LcpSolver};
    /// let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
    /// let p = Lcp::new(m, vec![-5.0, -6.0]).unwrap();
    /// let sol = Pgs::psor(1.2).solve(&p, None, &Settings::default()).unwrap();
    /// assert_eq!(sol.report.status, Status::Solved);
    /// assert!(Pgs::psor(2.0).validate().is_err());
    /// ```
    pub fn psor(omega: f64) -> Self {
        Pgs { omega, ..Pgs::pgs() }
    }

    /// Regularized (proximal-point) PGS with proximal weight `rho` > 0 (registry name
    /// `"rpgs"`, default [`DEFAULT_RPGS_RHO`]); handles zero diagonal entries when M is
    /// positive semidefinite.
    ///
    /// ```
    /// use perp_core::{Matrix, Settings, Status};
    /// use perp_lcp::{pgs::Pgs, Lcp, LcpSolver};
    /// // M = [[1, 0], [0, 0]] is PSD with a zero diagonal entry: PGS refuses it, RPGS solves it.
    /// let m = Matrix::from_row_major(2, 2, &[1.0, 0.0, 0.0, 0.0]).unwrap();
    /// let p = Lcp::new(m, vec![-1.0, 1.0]).unwrap();
    /// assert!(Pgs::pgs().solve(&p, None, &Settings::default()).is_err());
    /// let sol = Pgs::rpgs(1.0).solve(&p, None, &Settings::default()).unwrap();
    /// assert_eq!(sol.report.status, Status::Solved);
    /// assert!((sol.z[0] - 1.0).abs() < 1e-7 && sol.z[1] == 0.0);
    /// ```
    pub fn rpgs(rho: f64) -> Self {
        Pgs { rho, ..Pgs::pgs() }
    }

    /// The solver registered under `name` (one of [`NAMES`]) with its default knobs, or `None`.
    ///
    /// ```
    /// use perp_lcp::{pgs::Pgs, LcpSolver};
    /// assert_eq!(Pgs::named("psor").unwrap().name(), "psor");
    /// assert!(Pgs::named("lemke").is_none());
    /// ```
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "pgs" => Some(Pgs::pgs()),
            "psor" => Some(Pgs::psor(DEFAULT_PSOR_OMEGA)),
            "rpgs" => Some(Pgs::rpgs(DEFAULT_RPGS_RHO)),
            _ => None,
        }
    }

    /// `Err(InvalidSetting)` naming the first knob out of its documented range.
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.omega.is_finite() && self.omega > 0.0 && self.omega < 2.0) {
            return Err(Error::setting("omega", self.omega, "relaxation must satisfy 0 < omega < 2"));
        }
        if !(self.rho.is_finite() && self.rho >= 0.0) {
            return Err(Error::setting("rho", self.rho, "proximal weight must be finite and >= 0"));
        }
        if self.inner_sweeps == 0 {
            return Err(Error::setting("inner_sweeps", self.inner_sweeps, "must be >= 1"));
        }
        if !(self.inner_tol.is_finite() && self.inner_tol >= 0.0) {
            return Err(Error::setting("inner_tol", self.inner_tol, "must be finite and >= 0"));
        }
        if self.check_every == 0 {
            return Err(Error::setting("check_every", self.check_every, "must be >= 1"));
        }
        Ok(())
    }

    /// The name [`LcpSolver::name`] returns, as a `&'static str`.
    fn variant_name(&self) -> &'static str {
        if self.rho > 0.0 {
            "rpgs"
        } else if self.omega != 1.0 {
            "psor"
        } else {
            "pgs"
        }
    }

    /// The requirement error for row `i` with diagonal `mii` (+ρ) and row scale `scale`.
    fn diagonal_error(&self, i: usize, mii: f64, scale: f64) -> Error {
        let (requirement, suggestion) = if self.rho > 0.0 {
            (
                format!(
                    "M[{i},{i}] + rho > {DIAG_REL_TOL:e} * max_j |M[{i},j]|, but M[{i},{i}] = {mii:e}, \
                     rho = {:e}, max_j |M[{i},j]| = {scale:e}",
                    self.rho
                ),
                format!("increase rho (now {:e}) or use 'lemke'", self.rho),
            )
        } else {
            (
                format!(
                    "a positive diagonal (M[i,i] > {DIAG_REL_TOL:e} * max_j |M[i,j]|), but M[{i},{i}] = {mii:e} \
                     with max_j |M[{i},j]| = {scale:e}"
                ),
                "use 'rpgs' (regularized PGS; needs M positive semidefinite) or 'lemke'".to_string(),
            )
        };
        Error::Requirement { solver: self.name().to_string(), requirement, suggestion: Some(suggestion) }
    }
}

impl LcpSolver for Pgs {
    /// `"rpgs"` when ρ > 0, else `"psor"` when ω ≠ 1, else `"pgs"`: the name says what runs.
    fn name(&self) -> &str {
        self.variant_name()
    }

    fn solve(&mut self, p: &Lcp, warm: Option<&[f64]>, s: &Settings) -> Result<Solution, Error> {
        crate::solve_via_into(self, p, warm, s)
    }

    /// Allocation-free once the workspace has been sized for the structure (n, storage) of
    /// `p`; `solve` is this with fresh buffers.
    fn solve_into(
        &mut self,
        p: &Lcp,
        warm: bool,
        z_out: &mut [f64],
        w_out: &mut [f64],
        report: &mut SolveReport,
        s: &Settings,
    ) -> Result<(), Error> {
        let start = Instant::now();
        s.validate()?;
        self.validate()?;
        p.check_buffers(warm, z_out, w_out)?;
        let n = p.n();

        // Workspace: bounds, iterate, anchor, rows of M, inverse diagonal.
        self.ws.resize(n);
        let ws = &mut self.ws;
        match p.bounds() {
            Some((lo, hi)) => {
                ws.lo.copy_from_slice(lo);
                ws.hi.copy_from_slice(hi);
            }
            None => {
                ws.lo.fill(0.0);
                ws.hi.fill(f64::INFINITY);
            }
        }
        for (i, zi) in ws.z.iter_mut().enumerate() {
            *zi = mid(ws.lo[i], ws.hi[i], if warm { z_out[i] } else { 0.0 });
        }
        ws.anchor.copy_from_slice(&ws.z);
        ws.load_rows(p.m());
        for i in 0..n {
            let (mii, scale) = (self.ws.diag[i], self.ws.scale[i]);
            let d = mii + self.rho;
            // M and ρ are finite (checked by `Lcp::new` and `validate`), so d is not NaN.
            if d <= DIAG_REL_TOL * scale {
                return Err(self.diagonal_error(i, mii, scale));
            }
            self.ws.step[i] = self.omega / d;
        }

        let name = self.variant_name();
        let Workspace { dense, csr, block_start, lo, hi, z, anchor, w, step, best, spare, .. } = &mut self.ws;
        let mut sweeper = Sweeper {
            p,
            rows: rows_of(p.m(), dense, csr, block_start),
            lo,
            hi,
            step,
            z,
            anchor,
            w,
            best,
            rho: self.rho,
            inner_sweeps: self.inner_sweeps,
            inner_tol: self.inner_tol,
            check_every: self.check_every,
            tol: s.tol,
            q_scale: q_scale(p.q()),
            last_exact: f64::INFINITY,
            since_exact: 0,
            trigger: 2.0 * s.tol,
            inner_count: 0,
            anchor_fresh: true,
        };
        crate::problem::reset_report(report, name, spare);
        let history = std::mem::take(&mut report.history);
        // The loop keeps the best iterate (by exact error): a failed solve returns it, not a
        // diverged last one.
        let out = iteration::run_with(&mut sweeper, s, DEFAULT_MAX_ITER, start, history);
        let last_error = out.last_error;
        out.record(report);
        if report.status == Status::Stalled {
            report.write_message(
                spare,
                format_args!(
                    "a sweep left z unchanged while the error {:.3e} exceeds tol {:.1e}",
                    last_error, s.tol
                ),
            );
        }
        z_out.copy_from_slice(z);
        p.finish(z_out, w_out, report, s.tol, spare);
        Ok(())
    }
}

/// `mid(lo, hi, x)`: x projected onto `[lo, hi]` (the same expression as
/// [`perp_core::measures::box_residual`]).
/// Written with comparisons so that it compiles to one `max` and one `min` instruction (the
/// NaN-aware `f64::max` costs a few more on the sweep's critical path); a NaN `x` gives `lo`.
#[inline(always)]
fn mid(lo: f64, hi: f64, x: f64) -> f64 {
    let y = if x > lo { x } else { lo };
    if y < hi {
        y
    } else {
        hi
    }
}

/// `1/‖q‖₂`, or 1 when `‖q‖₂ ≤ ε` (the normalization of the peer error).
fn q_scale(q: &[f64]) -> f64 {
    let nq = perp_core::measures::norm2(q);
    if nq > f64::EPSILON {
        1.0 / nq
    } else {
        1.0
    }
}

/// Rows per block of the sweep (see [`sweep`]).
const BLOCK: usize = 8;

/// Reusable buffers of a [`Pgs`] solve.
#[derive(Clone, Default)]
struct Workspace {
    /// Row-major copy of a dense M.
    dense: Vec<f64>,
    /// CSR copy of a CSC M (empty otherwise).
    csr: CsrCopy,
    /// Sparse rows: position (in `indices`/`data`) of the first entry whose column is at least
    /// the first row of the row's block.
    block_start: Vec<usize>,
    /// `Mᵢᵢ`.
    diag: Vec<f64>,
    /// `max_j |Mᵢⱼ|`.
    scale: Vec<f64>,
    /// `ω / (Mᵢᵢ + ρ)`.
    step: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// The iterate.
    z: Vec<f64>,
    /// The proximal anchor (rpgs).
    anchor: Vec<f64>,
    /// Scratch for `w = M z + q` at exact error checks.
    w: Vec<f64>,
    /// The iterate with the smallest exactly computed error so far.
    best: Vec<f64>,
    /// Storage for the next report message (see `problem::set_message`).
    spare: String,
}

/// A CSR copy of a CSC matrix in reusable buffers: `indptr` (from 0), column `indices`
/// (increasing within a row) and `data`, as `sprs`' `to_csr` builds them.
#[derive(Clone, Default)]
struct CsrCopy {
    indptr: Vec<usize>,
    indices: Vec<usize>,
    data: Vec<f64>,
}

impl CsrCopy {
    /// Transposes the storage of the CSC matrix `c` (a counting sort by row; visiting the
    /// columns in order keeps each row's column indices increasing). Allocates only to grow.
    fn fill_from_csc(&mut self, c: &sprs::CsMat<f64>) {
        let (nrows, nnz) = (c.rows(), c.nnz());
        self.indptr.clear();
        self.indptr.resize(nrows + 1, 0);
        self.indices.clear();
        self.indices.resize(nnz, 0);
        self.data.clear();
        self.data.resize(nnz, 0.0);
        for col in c.outer_iterator() {
            for (i, _) in col.iter() {
                self.indptr[i + 1] += 1;
            }
        }
        for i in 0..nrows {
            self.indptr[i + 1] += self.indptr[i];
        }
        // `indptr[i]` serves as the insertion cursor of row i, then is shifted back.
        for (j, col) in c.outer_iterator().enumerate() {
            for (i, &v) in col.iter() {
                let at = self.indptr[i];
                self.indices[at] = j;
                self.data[at] = v;
                self.indptr[i] += 1;
            }
        }
        for i in (1..=nrows).rev() {
            self.indptr[i] = self.indptr[i - 1];
        }
        self.indptr[0] = 0;
    }
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace").field("n", &self.z.len()).finish_non_exhaustive()
    }
}

impl Workspace {
    fn resize(&mut self, n: usize) {
        for v in [&mut self.diag, &mut self.scale, &mut self.step, &mut self.lo, &mut self.hi] {
            v.clear();
            v.resize(n, 0.0);
        }
        for v in [&mut self.z, &mut self.anchor, &mut self.w, &mut self.best] {
            v.clear();
            v.resize(n, 0.0);
        }
    }

    /// Copies the rows of M where needed (dense → row-major, CSC → CSR) and fills `diag`,
    /// `scale` and (sparse) `block_start`.
    fn load_rows(&mut self, m: &Matrix) {
        let n = m.nrows();
        match m {
            Matrix::Dense(a) => {
                self.dense.clear();
                self.dense.resize(n * n, 0.0);
                // Tiled transpose (TILE × TILE tiles: contiguous column reads, contiguous row
                // writes, both within a few pages).
                const TILE: usize = 32;
                for jb in (0..n).step_by(TILE) {
                    let je = (jb + TILE).min(n);
                    for ib in (0..n).step_by(TILE) {
                        let ie = (ib + TILE).min(n);
                        for j in jb..je {
                            for (k, &v) in a.col_as_slice(j)[ib..ie].iter().enumerate() {
                                self.dense[(ib + k) * n + j] = v;
                            }
                        }
                    }
                }
                for (i, row) in self.dense.chunks_exact(n.max(1)).take(n).enumerate() {
                    self.diag[i] = row[i];
                    self.scale[i] = max_abs(row);
                }
            }
            Matrix::Sparse(s) => {
                let (indptr, indices, data) = if s.is_csr() {
                    (s.indptr().into_raw_storage(), s.indices(), s.data())
                } else {
                    self.csr.fill_from_csc(s);
                    (&self.csr.indptr[..], &self.csr.indices[..], &self.csr.data[..])
                };
                self.block_start.clear();
                self.block_start.resize(n, 0);
                for i in 0..n {
                    let (start, end) = (indptr[i], indptr[i + 1]);
                    let (cols, vals) = (&indices[start..end], &data[start..end]);
                    self.diag[i] = cols.binary_search(&i).map_or(0.0, |k| vals[k]);
                    self.scale[i] = max_abs(vals);
                    let b0 = i - i % BLOCK;
                    self.block_start[i] = start + cols.partition_point(|&j| j < b0);
                }
            }
        }
    }
}

/// `max |vᵢ|` (0 for an empty slice), in eight independent lanes so that it vectorizes.
fn max_abs(v: &[f64]) -> f64 {
    let mut m = [0.0f64; 8];
    let chunks = v.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for l in 0..8 {
            let a = c[l].abs();
            m[l] = if a > m[l] { a } else { m[l] };
        }
    }
    for (l, x) in rest.iter().enumerate() {
        m[l] = m[l].max(x.abs());
    }
    m.iter().fold(0.0, |a: f64, &b| a.max(b))
}

/// Row access for the sweep: the row-major copy of a dense M, the CSR copy of a CSC M, or a CSR
/// M itself.
fn rows_of<'a>(m: &'a Matrix, dense: &'a [f64], csr: &'a CsrCopy, block_start: &'a [usize]) -> Rows<'a> {
    match m {
        Matrix::Dense(_) => Rows::Dense(DenseRows { a: dense, n: m.nrows() }),
        Matrix::Sparse(s) if s.is_csr() => Rows::Csr(CsrRows {
            indptr: s.indptr().into_raw_storage(),
            indices: s.indices(),
            data: s.data(),
            block_start,
        }),
        Matrix::Sparse(_) => {
            Rows::Csr(CsrRows { indptr: &csr.indptr, indices: &csr.indices, data: &csr.data, block_start })
        }
    }
}

/// What a sweep needs from the rows of M, with one summation order for both storages (so dense
/// and sparse storage give bit-identical iterates).
///
/// * [`BlockRows::dots`]: `sᵣ = Σⱼ M[b₀+r, j] zⱼ` for the rows of a block, each as one running
///   sum from `+0.0` in increasing column order. The dense kernel runs the block's rows side by
///   side (independent dependency chains, one load of `zⱼ` per block); the sparse kernel skips
///   the zeros, which adds nothing (`x + 0 = x`: no running sum is ever `−0`).
/// * [`BlockRows::correct`]: `w + Σ_{r'<r} M[b₀+r, b₀+r'] Δz_{r'}` in increasing r', the
///   in-block Gauss–Seidel coupling (zeros again skipped by the sparse kernel).
trait BlockRows {
    fn dots(&self, b0: usize, len: usize, z: &[f64], s: &mut [f64; BLOCK]);
    fn correct(&self, b0: usize, r: usize, dz: &[f64], w: f64) -> f64;
}

#[derive(Clone, Copy)]
enum Rows<'a> {
    Dense(DenseRows<'a>),
    Csr(CsrRows<'a>),
}

/// Row-major dense rows.
#[derive(Clone, Copy)]
struct DenseRows<'a> {
    a: &'a [f64],
    n: usize,
}

/// CSR rows (raw indptr: its values index `indices` and `data` directly).
#[derive(Clone, Copy)]
struct CsrRows<'a> {
    indptr: &'a [usize],
    indices: &'a [usize],
    data: &'a [f64],
    /// See [`Workspace::block_start`].
    block_start: &'a [usize],
}

impl BlockRows for DenseRows<'_> {
    #[inline(always)]
    fn dots(&self, b0: usize, len: usize, z: &[f64], s: &mut [f64; BLOCK]) {
        let n = self.n;
        let z = &z[..n];
        let block = &self.a[b0 * n..(b0 + len) * n];
        if len == BLOCK {
            let rows: [&[f64]; BLOCK] = std::array::from_fn(|r| &block[r * n..(r + 1) * n]);
            let mut acc = [0.0; BLOCK];
            for (j, &zj) in z.iter().enumerate() {
                for r in 0..BLOCK {
                    acc[r] += rows[r][j] * zj;
                }
            }
            *s = acc;
        } else {
            for (r, row) in block.chunks_exact(n.max(1)).take(len).enumerate() {
                let mut acc = 0.0;
                for (m, zj) in row.iter().zip(z) {
                    acc += m * zj;
                }
                s[r] = acc;
            }
        }
    }

    #[inline(always)]
    fn correct(&self, b0: usize, r: usize, dz: &[f64], mut w: f64) -> f64 {
        let row = &self.a[(b0 + r) * self.n + b0..];
        for (m, d) in row.iter().zip(&dz[..r]) {
            w += m * d;
        }
        w
    }
}

impl BlockRows for CsrRows<'_> {
    #[inline(always)]
    fn dots(&self, b0: usize, len: usize, z: &[f64], s: &mut [f64; BLOCK]) {
        for (r, sr) in s.iter_mut().enumerate().take(len) {
            let (start, end) = (self.indptr[b0 + r], self.indptr[b0 + r + 1]);
            let mut acc = 0.0;
            for (&j, &v) in self.indices[start..end].iter().zip(&self.data[start..end]) {
                acc += v * z[j];
            }
            *sr = acc;
        }
    }

    #[inline(always)]
    fn correct(&self, b0: usize, r: usize, dz: &[f64], mut w: f64) -> f64 {
        let i = b0 + r;
        let (start, end) = (self.block_start[i], self.indptr[i + 1]);
        for (&j, &v) in self.indices[start..end].iter().zip(&self.data[start..end]) {
            if j >= i {
                break;
            }
            w += v * dz[j - b0];
        }
        w
    }
}

/// What a sweep measured.
struct SweepInfo {
    /// `Σᵢ rᵢ²`, rᵢ the natural-map residual of row i at its visit (the proxy).
    proxy_sq: f64,
    /// `max |Δzᵢ|`.
    max_dz: f64,
    /// `max |zᵢ|` after the sweep.
    max_z: f64,
}

/// The sweep parameters that do not change during a solve.
struct SweepData<'a> {
    q: &'a [f64],
    lo: &'a [f64],
    hi: &'a [f64],
    /// `ω / (Mᵢᵢ + ρ)`.
    step: &'a [f64],
    rho: f64,
}

/// One Gauss–Seidel sweep over the rows (no allocation).
///
/// Rows are taken in blocks of [`BLOCK`]: the block's products are computed first against z
/// with the block's own entries not yet updated, then each row adds the coupling to the rows of
/// the block already updated, `Σ_{r'<r} M[i, b₀+r'] Δz_{r'}` ([`BlockRows::correct`]), before
/// its projected update; the block's new values are stored at its end. In exact arithmetic this
/// is the Gauss–Seidel sweep row by row; the blocking lets the long products of a block overlap
/// instead of each waiting for the row before it.
#[inline(never)]
fn sweep<R: BlockRows>(rows: &R, d: &SweepData<'_>, anchor: &[f64], z: &mut [f64]) -> SweepInfo {
    let (mut proxy_sq, mut max_dz, mut max_z) = (0.0f64, 0.0f64, 0.0f64);
    let prox = d.rho > 0.0;
    let n = z.len();
    let (mut s, mut dz, mut zn) = ([0.0; BLOCK], [0.0; BLOCK], [0.0; BLOCK]);
    for b0 in (0..n).step_by(BLOCK) {
        let len = BLOCK.min(n - b0);
        rows.dots(b0, len, z, &mut s);
        for r in 0..len {
            let i = b0 + r;
            let (lo, hi) = (d.lo[i], d.hi[i]);
            let wi = rows.correct(b0, r, &dz, s[r] + d.q[i]);
            let zi = z[i];
            let res = zi - mid(lo, hi, zi - wi);
            proxy_sq += res * res;
            let wt = if prox { wi + d.rho * (zi - anchor[i]) } else { wi };
            let znew = mid(lo, hi, zi - wt * d.step[i]);
            dz[r] = znew - zi;
            zn[r] = znew;
            max_dz = max_dz.max(dz[r].abs());
            max_z = max_z.max(znew.abs());
        }
        z[b0..b0 + len].copy_from_slice(&zn[..len]);
    }
    SweepInfo { proxy_sq, max_dz, max_z }
}

/// The PGS method as the shared loop sees it.
struct Sweeper<'a> {
    p: &'a Lcp,
    rows: Rows<'a>,
    lo: &'a [f64],
    hi: &'a [f64],
    step: &'a [f64],
    z: &'a mut [f64],
    anchor: &'a mut [f64],
    w: &'a mut [f64],
    /// The iterate with the smallest exact error so far (kept by the loop's `keep_best`).
    best: &'a mut [f64],
    rho: f64,
    inner_sweeps: usize,
    inner_tol: f64,
    check_every: usize,
    tol: f64,
    /// `1/‖q‖₂` (or 1): turns the proxy into the peer's normalization.
    q_scale: f64,
    /// The last exactly computed peer error.
    last_exact: f64,
    since_exact: usize,
    /// The proxy level below which an exact check is made.
    trigger: f64,
    /// Inner sweeps since the anchor last moved (rpgs).
    inner_count: usize,
    /// Whether the anchor equals z (it was just moved).
    anchor_fresh: bool,
}

impl Sweeper<'_> {
    /// The peer error at z, with `w = M z + q` computed exactly as [`Lcp::solution`] does.
    fn exact_error(&mut self) -> f64 {
        self.p.m().mul_vec(self.z, self.w);
        for (wi, qi) in self.w.iter_mut().zip(self.p.q()) {
            *wi += qi;
        }
        self.since_exact = 0;
        self.last_exact = self.p.errors(self.z, self.w).0;
        self.last_exact
    }
}

impl IterativeMethod for Sweeper<'_> {
    fn initial_error(&mut self) -> Option<f64> {
        Some(self.exact_error())
    }

    fn step(&mut self) -> StepResult {
        let data = SweepData { q: self.p.q(), lo: self.lo, hi: self.hi, step: self.step, rho: self.rho };
        let info = match &self.rows {
            Rows::Dense(r) => sweep(r, &data, self.anchor, self.z),
            Rows::Csr(r) => sweep(r, &data, self.anchor, self.z),
        };
        self.since_exact += 1;
        let unchanged = info.max_dz == 0.0;
        let proxy = info.proxy_sq.sqrt() * self.q_scale;
        let proxy_says = proxy <= self.trigger || proxy.is_nan();
        if unchanged || proxy_says || self.since_exact >= self.check_every {
            let e = self.exact_error();
            if e > self.tol && proxy_says {
                self.trigger = 0.5 * proxy;
            }
        }
        let anchor_was_fresh = self.anchor_fresh;
        if self.rho > 0.0 {
            self.inner_count += 1;
            self.anchor_fresh = false;
            if self.inner_count >= self.inner_sweeps || info.max_dz <= self.inner_tol * info.max_z {
                self.anchor.copy_from_slice(self.z);
                self.inner_count = 0;
                self.anchor_fresh = true;
            }
        }
        let stalled = unchanged && self.last_exact > self.tol && (self.rho == 0.0 || anchor_was_fresh);
        StepResult { error: self.last_exact, stop: stalled.then_some(Status::Stalled) }
    }

    /// The reported error changes only at exact checks, so a new minimum is a new smallest
    /// exact error, and z is the iterate it was computed at.
    fn keep_best(&mut self) {
        self.best.copy_from_slice(self.z);
    }

    fn restore_best(&mut self) {
        self.z.copy_from_slice(self.best);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn lcp(n: usize, m: &[f64], q: &[f64]) -> Lcp {
        Lcp::new(Matrix::from_row_major(n, n, m).unwrap(), q.to_vec()).unwrap()
    }

    fn sparse(p: &Lcp) -> Lcp {
        let m = Matrix::Sparse(p.m().to_csr());
        match p.bounds() {
            None => Lcp::new(m, p.q().to_vec()).unwrap(),
            Some((lo, hi)) => Lcp::with_bounds(m, p.q().to_vec(), lo.to_vec(), hi.to_vec()).unwrap(),
        }
    }

    fn tol(t: f64) -> Settings {
        Settings { tol: t, ..Settings::default() }
    }

    fn sweeps(k: usize) -> Settings {
        Settings { tol: 0.0, max_iter: k, ..Settings::default() }
    }

    fn two_by_two() -> Lcp {
        lcp(2, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0])
    }

    #[test]
    fn one_sweep_matches_hand_computation() {
        let p = two_by_two();
        // PGS from 0: z1 = 5/2; w2 = 5/2 − 6 = −7/2, z2 = 7/4.
        let s = Pgs::pgs().solve(&p, None, &sweeps(1)).unwrap();
        assert_eq!((s.report.status, s.report.iterations), (Status::MaxIterations, 1));
        assert_eq!(s.z, vec![2.5, 1.75]);
        // PSOR ω = 1.5: z1 = 1.5·5/2 = 3.75; w2 = 3.75 − 6 = −2.25, z2 = 1.5·2.25/2 = 1.6875.
        let s = Pgs::psor(1.5).solve(&p, None, &sweeps(1)).unwrap();
        assert_eq!(s.z, vec![3.75, 1.6875]);
        // RPGS ρ = 1, anchor 0: z1 = 5/3; w2 = 5/3 − 6 = −13/3, z2 = 13/9.
        let s = Pgs::rpgs(1.0).solve(&p, None, &sweeps(1)).unwrap();
        assert!((s.z[0] - 5.0 / 3.0).abs() < 1e-15 && (s.z[1] - 13.0 / 9.0).abs() < 1e-15, "{:?}", s.z);
        // Second RPGS sweep, anchor (5/3, 13/9): z1 = 5/3 − (10/3 + 13/9 − 5)/3 = 5/3 + 2/27.
        let s = Pgs::rpgs(1.0).solve(&p, None, &sweeps(2)).unwrap();
        assert!((s.z[0] - (5.0 / 3.0 + 2.0 / 27.0)).abs() < 1e-15, "{:?}", s.z);
    }

    #[test]
    fn a_diverging_solve_returns_its_best_iterate() {
        // M = [[0, −1, −1], [1, 0, 0], [−1, 0, 0]] (Siconos lcp_Pang_isolated_sol): rpgs
        // diverges from z = 0; the returned z is the best exactly checked iterate, not the last.
        let m = Matrix::from_row_major(3, 3, &[0.0, -1.0, -1.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0]).unwrap();
        let p = Lcp::new(m, vec![0.0, -1.0, 1.0]).unwrap();
        let s = Settings { max_iter: 2000, record_history: true, ..Settings::default() };
        let sol = Pgs::rpgs(DEFAULT_RPGS_RHO).solve(&p, None, &s).unwrap();
        assert_eq!(sol.report.status, Status::MaxIterations);
        let worst = sol.report.history.iter().cloned().fold(0.0, f64::max);
        assert!(sol.report.error < 10.0 && sol.report.error < worst, "{:?}", sol.report.error);
        assert!(sol.z.iter().all(|z| z.is_finite() && z.abs() < 1e3), "{:?}", sol.z);
    }

    #[test]
    fn solves_the_two_by_two_to_1e_10() {
        for mut solver in [Pgs::pgs(), Pgs::psor(DEFAULT_PSOR_OMEGA), Pgs::rpgs(DEFAULT_RPGS_RHO)] {
            for p in [two_by_two(), sparse(&two_by_two())] {
                let s = solver.solve(&p, None, &tol(1e-10)).unwrap();
                assert_eq!(s.report.status, Status::Solved, "{}", solver.name());
                assert!(s.report.error <= 1e-10);
                assert!((s.z[0] - 4.0 / 3.0).abs() < 1e-9 && (s.z[1] - 7.0 / 3.0).abs() < 1e-9);
                assert_eq!(s.report.solver, solver.name());
            }
        }
    }

    /// A 6×6 symmetric positive definite matrix with a sparsity pattern.
    fn sparse_spd() -> Lcp {
        #[rustfmt::skip]
        let m = [
            4.0, 1.0, 0.0, 0.0, 0.5, 0.0,
            1.0, 5.0, 1.5, 0.0, 0.0, 0.0,
            0.0, 1.5, 3.0, -1.0, 0.0, 0.0,
            0.0, 0.0, -1.0, 4.0, 0.0, 0.7,
            0.5, 0.0, 0.0, 0.0, 2.0, 0.3,
            0.0, 0.0, 0.0, 0.7, 0.3, 3.0,
        ];
        lcp(6, &m, &[-1.0, 2.0, -3.0, 0.5, -2.0, -1.0])
    }

    #[test]
    fn dense_and_sparse_iterates_are_bit_identical() {
        let d = sparse_spd();
        let s = sparse(&d);
        let csc = Lcp::new(Matrix::Sparse(d.m().to_csr().to_csc()), d.q().to_vec()).unwrap();
        for solver in [Pgs::pgs(), Pgs::psor(1.3), Pgs::rpgs(0.5)] {
            for k in [1, 3, 7] {
                let zd = solver.clone().solve(&d, None, &sweeps(k)).unwrap().z;
                let zs = solver.clone().solve(&s, None, &sweeps(k)).unwrap().z;
                let zc = solver.clone().solve(&csc, None, &sweeps(k)).unwrap().z;
                let bits = |z: &[f64]| z.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&zd), bits(&zs), "{} after {k} sweeps", solver.name());
                assert_eq!(bits(&zd), bits(&zc), "{} after {k} sweeps (CSC)", solver.name());
            }
            let a = solver.clone().solve(&d, None, &tol(1e-12)).unwrap();
            let b = solver.clone().solve(&s, None, &tol(1e-12)).unwrap();
            assert_eq!(a.report.status, Status::Solved);
            assert_eq!((a.report.iterations, &a.z), (b.report.iterations, &b.z));
        }
    }

    #[test]
    fn dense_and_sparse_agree_across_several_row_blocks() {
        // n = 19: two full blocks of 8 rows and a partial block of 3, in both kernels.
        let n = 19;
        let m: Vec<f64> = (0..n * n)
            .map(|k| {
                let (i, j) = (k / n, k % n);
                if i == j {
                    10.0
                } else if (i + 2 * j) % 5 == 0 {
                    0.3 * ((i * j) % 7) as f64 - 0.9
                } else {
                    0.0
                }
            })
            .collect();
        let q: Vec<f64> = (0..n).map(|i| ((i * 37) % 11) as f64 - 5.0).collect();
        let d = lcp(n, &m, &q);
        let zd = Pgs::pgs().solve(&d, None, &sweeps(5)).unwrap().z;
        let zs = Pgs::pgs().solve(&sparse(&d), None, &sweeps(5)).unwrap().z;
        assert_eq!(zd, zs);
    }

    #[test]
    fn box_lcp_one_dimensional_clamping() {
        let m = Matrix::from_row_major(1, 1, &[1.0]).unwrap();
        // Unconstrained z = −q; clamped to [−1, 1].
        for (q, z, w) in [(-3.0, 1.0, -2.0), (3.0, -1.0, 2.0), (0.5, -0.5, 0.0)] {
            let p = Lcp::with_bounds(m.clone(), vec![q], vec![-1.0], vec![1.0]).unwrap();
            let s = Pgs::pgs().solve(&p, None, &tol(1e-12)).unwrap();
            assert_eq!(s.report.status, Status::Solved);
            assert_eq!((s.z[0], s.w[0]), (z, w));
            // One sweep solves it; the proxy (the step just taken) sees it one sweep later.
            assert!(s.report.iterations <= 2, "{}", s.report.iterations);
        }
    }

    #[test]
    fn box_lcp_two_dimensional_by_hand() {
        // [[2,1],[1,2]], q = (−5, −6), 0 ≤ z ≤ (1, 10): z1 at its upper bound 1, then
        // w2 = 1 + 2 z2 − 6 = 0 gives z2 = 5/2, and w1 = 2 + 5/2 − 5 = −1/2 ≤ 0 as it must.
        let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
        let p = Lcp::with_bounds(m, vec![-5.0, -6.0], vec![0.0, 0.0], vec![1.0, 10.0]).unwrap();
        for mut solver in [Pgs::pgs(), Pgs::psor(1.2), Pgs::rpgs(1.0)] {
            let s = solver.solve(&p, None, &tol(1e-12)).unwrap();
            assert_eq!(s.report.status, Status::Solved, "{}", solver.name());
            assert!((s.z[0] - 1.0).abs() < 1e-12 && (s.z[1] - 2.5).abs() < 1e-11, "{:?}", s.z);
            assert!((s.w[0] + 0.5).abs() < 1e-11);
        }
    }

    #[test]
    fn zero_diagonal_is_an_error_for_pgs_and_solved_by_rpgs() {
        let p = lcp(2, &[1.0, 0.0, 0.0, 0.0], &[-1.0, 1.0]);
        for mut solver in [Pgs::pgs(), Pgs::psor(1.2)] {
            let e = solver.solve(&p, None, &Settings::default()).unwrap_err();
            let msg = e.to_string();
            assert!(matches!(e, Error::Requirement { .. }), "{msg}");
            assert!(msg.contains("M[1,1] = 0e0") && msg.contains("rpgs") && msg.contains("lemke"), "{msg}");
        }
        let e = Pgs::pgs().solve(&lcp(1, &[-2.0], &[1.0]), None, &Settings::default()).unwrap_err();
        assert!(e.to_string().contains("M[0,0] = -2e0"), "{e}");
        // Tiny against its row.
        let e = Pgs::pgs().solve(&lcp(2, &[1e-14, 1.0, 1.0, 1.0], &[1.0, 1.0]), None, &Settings::default());
        assert!(matches!(e, Err(Error::Requirement { .. })));
        for p in [p.clone(), sparse(&p)] {
            let s = Pgs::rpgs(1.0).solve(&p, None, &tol(1e-10)).unwrap();
            assert_eq!(s.report.status, Status::Solved);
            assert!((s.z[0] - 1.0).abs() < 1e-9 && s.z[1] == 0.0, "{:?}", s.z);
        }
        // rpgs needs M_ii + ρ > 0.
        let e = Pgs::rpgs(1.0).solve(&lcp(1, &[-1.0], &[1.0]), None, &Settings::default()).unwrap_err();
        assert!(e.to_string().contains("increase rho"), "{e}");
    }

    #[test]
    fn rpgs_with_inner_sweeps_solves_a_psd_problem() {
        // M = [[1, 1], [1, 1]] (PSD, singular), q = (−1, −1): solutions z1 + z2 = 1.
        let p = lcp(2, &[1.0, 1.0, 1.0, 1.0], &[-1.0, -1.0]);
        for inner in [1, 5] {
            let mut solver = Pgs { inner_sweeps: inner, ..Pgs::rpgs(0.5) };
            let s = solver.solve(&p, None, &tol(1e-10)).unwrap();
            assert_eq!(s.report.status, Status::Solved, "inner {inner}");
            assert!((s.z[0] + s.z[1] - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn warm_start_at_the_solution_costs_at_most_one_sweep() {
        let p = two_by_two();
        for mut solver in [Pgs::pgs(), Pgs::psor(1.2), Pgs::rpgs(1.0)] {
            let s = solver.solve(&p, Some(&[4.0 / 3.0, 7.0 / 3.0]), &tol(1e-10)).unwrap();
            assert_eq!(s.report.status, Status::Solved);
            assert!(s.report.iterations <= 1, "{}", s.report.iterations);
        }
        // A warm start outside the bounds is projected first.
        let s = Pgs::pgs().solve(&p, Some(&[-3.0, 7.0 / 3.0]), &sweeps(1)).unwrap();
        assert!((s.z[0] - 4.0 / 3.0).abs() < 1e-15, "{:?}", s.z);
    }

    #[test]
    fn invalid_knobs_are_errors() {
        for omega in [0.0, 2.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = Pgs::psor(omega).solve(&two_by_two(), None, &Settings::default()).unwrap_err();
            assert!(matches!(e, Error::InvalidSetting { ref name, .. } if name == "omega"), "{e}");
        }
        for rho in [-1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(Pgs::rpgs(rho).validate(), Err(Error::InvalidSetting { .. })));
        }
        assert!(Pgs { inner_sweeps: 0, ..Pgs::rpgs(1.0) }.validate().is_err());
        assert!(Pgs { check_every: 0, ..Pgs::pgs() }.validate().is_err());
        assert!(Pgs::pgs().solve(&two_by_two(), Some(&[1.0]), &Settings::default()).is_err());
    }

    /// A 3×3 problem on which PGS cycles with period 4 through (1,1,0), (0,1,1), (0,0,1),
    /// (1,0,0) and never reaches the solution (1/3, 1/3, 1/3).
    fn cycling() -> Lcp {
        lcp(3, &[1.0, 2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 0.0, 1.0], &[-1.0, -1.0, -1.0])
    }

    #[test]
    fn non_convergence_is_max_iterations_not_an_error() {
        let s =
            Pgs::pgs().solve(&cycling(), None, &Settings { max_iter: 41, ..Settings::default() }).unwrap();
        assert_eq!((s.report.status, s.report.iterations), (Status::MaxIterations, 41));
        assert_eq!(s.z, vec![1.0, 1.0, 0.0]);
        assert!(s.report.error > 0.1);
    }

    #[test]
    fn time_limit_stops_the_sweeps() {
        let s = Settings { tol: 0.0, time_limit: Some(Duration::ZERO), ..Settings::default() };
        let r = Pgs::pgs().solve(&cycling(), None, &s).unwrap();
        assert_eq!((r.report.status, r.report.iterations), (Status::TimeLimit, 1));
    }

    #[test]
    fn a_sweep_that_moves_nothing_is_stalled() {
        // ω = 1e-30: from z = 1000 the step ω·w/M = 1e-30·999 is far below half an ulp of
        // 1000, so the sweep leaves z unchanged while w = 999 ≠ 0.
        let p = lcp(1, &[1.0], &[-1.0]);
        let s = Pgs::psor(1e-30).solve(&p, Some(&[1e3]), &Settings::default()).unwrap();
        assert_eq!((s.report.status, s.report.iterations), (Status::Stalled, 1));
        assert_eq!(s.z, vec![1e3]);
        assert!(s.report.message.is_some());
    }

    #[test]
    fn history_and_exact_error_scheme() {
        let p = sparse_spd();
        let s = Settings { tol: 1e-12, record_history: true, ..Settings::default() };
        let r = Pgs::pgs().solve(&p, None, &s).unwrap();
        assert_eq!(r.report.status, Status::Solved);
        assert_eq!(r.report.history.len(), r.report.iterations);
        // Every reported error but the last is an exact error above tol; the last is exact.
        assert!(r.report.history[..r.report.iterations - 1].iter().all(|&e| e > 1e-12));
        assert_eq!(*r.report.history.last().unwrap(), r.report.error);
        // Checking after every sweep stops at the same sweep or earlier.
        let every = Pgs { check_every: 1, ..Pgs::pgs() }.solve(&p, None, &s).unwrap();
        assert!(every.report.iterations <= r.report.iterations);
        assert!(r.report.iterations <= every.report.iterations + DEFAULT_CHECK_EVERY);
    }

    #[test]
    fn names_and_registry() {
        for name in NAMES {
            assert_eq!(Pgs::named(name).unwrap().name(), name);
        }
        assert_eq!(Pgs::psor(1.0).name(), "pgs");
        assert_eq!(Pgs::default().name(), "pgs");
    }

    #[test]
    fn empty_problem_is_solved_without_sweeps() {
        let p = Lcp::new(Matrix::from_row_major(0, 0, &[]).unwrap(), vec![]).unwrap();
        let s = Pgs::pgs().solve(&p, None, &Settings::default()).unwrap();
        assert_eq!((s.report.status, s.report.iterations), (Status::Solved, 0));
    }

    mod prop {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

            /// On M = A Aᵀ + I (SPD) every variant solves to 1e-10 with z ≥ 0, w ≥ 0, zᵀw ≈ 0.
            #[test]
            fn spd_problems_are_solved(
                (n, a, q) in (1usize..=8).prop_flat_map(|n| (
                    Just(n),
                    proptest::collection::vec(-1.0f64..1.0, n * n),
                    proptest::collection::vec(-10.0f64..10.0, n),
                ))
            ) {
                let mut m = vec![0.0; n * n];
                for i in 0..n {
                    for j in 0..n {
                        m[i * n + j] = (0..n).map(|k| a[i * n + k] * a[j * n + k]).sum::<f64>()
                            + if i == j { 1.0 } else { 0.0 };
                    }
                }
                let p = lcp(n, &m, &q);
                for name in NAMES {
                    let s = Pgs::named(name).unwrap().solve(&p, None, &tol(1e-10)).unwrap();
                    prop_assert_eq!(s.report.status, Status::Solved, "{}", name);
                    let zw: f64 = s.z.iter().zip(&s.w).map(|(z, w)| z * w).sum();
                    let scale = 1.0 + perp_core::measures::norm2(&q);
                    prop_assert!(s.z.iter().all(|&z| z >= 0.0));
                    prop_assert!(s.w.iter().all(|&w| w >= -1e-9 * scale), "{:?}", s.w);
                    prop_assert!(zw.abs() <= 1e-8 * scale * scale, "{}: z'w = {}", name, zw);
                }
            }
        }
    }
}
