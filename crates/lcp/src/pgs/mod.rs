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
//! check uses [`Matrix::mul_vec`](perp_core::Matrix::mul_vec) exactly as [`Lcp::solution`] does, so a `Solved` verdict is
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

pub mod params;
mod rows;
mod sweep;
#[cfg(test)]
mod tests;

use crate::{Lcp, LcpSolver};
use perp_core::iteration;
use perp_core::{Error, Settings, SolutionMut, Status};
use rows::*;
use std::time::Instant;
use sweep::*;

/// Default iteration limit: 10 000 sweeps (used when `Settings::max_iter` is 0). Siconos uses
/// 1 000; PGS on ill-conditioned contact problems often needs more.
pub const DEFAULT_MAX_ITER: usize = 10_000;

/// Default relaxation of `"pgs"` and `"rpgs"`: ω = 1 (plain Gauss–Seidel).
pub const DEFAULT_OMEGA: f64 = 1.0;

/// Default proximal weight of `"pgs"` and `"psor"`: ρ = 0 (no proximal term).
pub const DEFAULT_RHO: f64 = 0.0;

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
            omega: DEFAULT_OMEGA,
            rho: DEFAULT_RHO,
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

    /// Allocation-free once the workspace has been sized for the structure (n, storage) of
    /// `p`; `solve` is this with fresh buffers.
    fn solve_into(&mut self, p: &Lcp, warm: bool, out: SolutionMut<'_>, s: &Settings) -> Result<(), Error> {
        s.validate()?;
        self.validate()?;
        p.check_buffers(warm, out.z, out.w)?;
        if self.rho == 0.0 {
            // PGS and PSOR are invariant under a scaling of the data.
            return self.sweep_into(p, warm, out, s, true);
        }
        // ρ is absolute (Siconos' default 1): with M scaled by 1e-6 it dominated every
        // diagonal and 10 of 10 test LCPs ran into the sweep limit. Data far from 1 are
        // solved scaled (`Lcp::unit_scaling`), where ρ = 1 means what it does for data near 1.
        p.solve_into_unit_scaled(warm, out, s.tol, |p, warm, out, finish| {
            self.sweep_into(p, warm, out, s, finish)
        })
        .map(|_| ())
    }
}

impl Pgs {
    /// [`LcpSolver::solve_into`] on `p` as given (checked); `finish`: measure and verify the
    /// answer (else the caller does, on the problem before scaling).
    fn sweep_into(
        &mut self,
        p: &Lcp,
        warm: bool,
        out: SolutionMut<'_>,
        s: &Settings,
        finish: bool,
    ) -> Result<(), Error> {
        let SolutionMut { z: z_out, w: w_out, report } = out;
        let start = Instant::now();
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
            measured: false,
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
        if finish {
            p.finish(z_out, w_out, report, s.tol, spare);
        }
        Ok(())
    }
}

/// `mid(lo, hi, x)`: x projected onto `[lo, hi]` (the same expression as
/// [`perp_core::measures::box_residual`]).
/// Written with comparisons so that it compiles to one `max` and one `min` instruction (the
/// NaN-aware `f64::max` costs a few more on the sweep's critical path); a NaN `x` gives `lo`.
#[inline(always)]
pub(super) fn mid(lo: f64, hi: f64, x: f64) -> f64 {
    let y = if x > lo { x } else { lo };
    if y < hi {
        y
    } else {
        hi
    }
}

/// `1/‖q‖₂`, or 1 when `‖q‖₂ ≤ ε` (the normalization of the peer error).
pub(super) fn q_scale(q: &[f64]) -> f64 {
    let nq = perp_core::measures::norm2(q);
    if nq > f64::EPSILON {
        1.0 / nq
    } else {
        1.0
    }
}
