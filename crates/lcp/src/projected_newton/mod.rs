//! Bertsekas' projected Newton method for LCPs with a symmetric positive semidefinite M.
//!
//! For symmetric M the (box-)LCP is the KKT system of the bound-constrained quadratic program
//!
//! ```text
//!     min f(z) = ½ zᵀ M z + qᵀ z    subject to  lo ≤ z ≤ hi     (standard LCP: lo = 0, hi = ∞),
//! ```
//!
//! whose gradient is `∇f(z) = M z + q = w`. [`ProjectedNewton`] runs the projected Newton
//! method of D. P. Bertsekas, "Projected Newton methods for optimization problems with simple
//! constraints", *SIAM J. Control Optim.* 20(2), 221–246, 1982, in the paper's notation with
//! `x ↦ z`, `∇f(x_k) ↦ w`, `[·]⁺ ↦ P`, the projection on the box:
//!
//! 1. **ε-active set.** With `ε_k = min(ε̄, ‖z − P(z − D̄ ∇f(z))‖₂)` (Bertsekas' choice of
//!    ε_k, shrinking to 0 at a solution; `D̄ = diag(r)⁻¹`, `r_j = M_jj` (or `max|M|` where
//!    `M_jj ≤ 0`), is the fixed positive diagonal scaling the paper allows in this residual,
//!    here needed so that ε_k is measured in the units of z: with `D̄ = I` and a large M, on
//!    Siconos' `lcp_mmc` (diag(M) ≈ 1e5, z ≈ 1e-4) ε_k stayed above every zᵢ, every variable
//!    with wᵢ > 0 stayed ε-active, and the method crawled at a linear rate),
//!    `I⁺ = { i : zᵢ ≤ loᵢ + ε_k, wᵢ > 0 } ∪ { i : zᵢ ≥ hiᵢ − ε_k, wᵢ < 0 }`; the free set
//!    `F` is the rest.
//! 2. **Scaling matrix D_k**, block diagonal with respect to `(F, I⁺)`: the Newton block
//!    `D_FF = M_FF⁻¹` (a dense faer Cholesky, or a sparse one, see below) and the diagonal
//!    `D_ii = 1 / M_ii` on `I⁺` (1 when `M_ii ≤ 0`). The direction is `d = −D w`.
//! 3. **Armijo rule along the projection arc** `z(α) = P[z + α d]`, `α = 1, β, β², …`:
//!    accept the first α with
//!    `f(z) − f(z(α)) ≥ σ ( −α Σ_{i∈F} wᵢ dᵢ + Σ_{i∈I⁺} wᵢ (zᵢ − zᵢ(α)) )`
//!    (Bertsekas' Armijo-like rule for projected Newton steps). If α falls below
//!    [`ProjectedNewton::min_step`] the solve ends `Stalled`.
//!
//! Once the active set of a nondegenerate solution is identified the steps are exact Newton
//! steps on a quadratic, so the method typically stops after very few iterations (one per
//! change of the active set, then one more).
//!
//! # Factorization, singular blocks and infeasibility
//!
//! `M_FF` is factored by Cholesky (`L Lᵀ`); every factorization attempt counts in
//! `report.factorizations`. Write `r_j = M_jj` (or `max|M|` where `M_jj ≤ 0`),
//! `ŵ = diag(r_F)^{-1/2} w_F` and `ρ = −w_Fᵀ d_F / ‖ŵ‖²` (the *energy ratio*, between
//! `1/λ_max` and `1/λ_min` of the Jacobi-scaled block). Then:
//!
//! 1. The plain Newton step is used when the factorization succeeds, no pivot is below
//!    `10⁻¹⁴ r_j`, and `ρ ≤ 10⁸` (larger ρ means the step is dominated by a numerically null
//!    direction, where round-off in `d` swamps its curvature).
//! 2. Otherwise the block is singular (M only PSD) or indefinite: it is refactored as
//!    `M_FF + δ·diag(r_F)` with `δ = reg_min, 100·reg_min, …` up to
//!    [`ProjectedNewton::reg_max`]. If even `reg_max` fails, M is not positive semidefinite
//!    beyond round-off and the solve ends `NumericalFailure` with a message.
//! 3. The step with that small δ is kept if `ρ ≤ 1/δ_k`, where
//!    `δ_k = max(10⁻⁸, min(1, error_k))`; e.g. `M = [[1,1],[1,1]]`, `q = (−1,−1)` is solved in
//!    one step this way.
//! 4. Otherwise the small-δ step is dominated by the null space of `M_FF`. It is first tested
//!    as a ray: clipped into the recession cone of the box (and, for up to 4 rounds, recomputed
//!    on the free variables the clipping left alone), if `‖M r‖∞ ≤ 10⁻⁹ max|M| ‖r‖∞` and
//!    `wᵀr ≤ −10⁻⁶ ‖q‖∞ ‖r‖∞`, the objective is unbounded below on the box; for PSD M the
//!    LCP has no solution (for the standard LCP, `r ≥ 0, Mr = 0, qᵀr < 0` is the Farkas
//!    certificate) and the solve ends `Infeasible` with a message. If no ray is found, the
//!    step uses the Levenberg–Marquardt-type shift `δ_k`, which keeps `D_FF` bounded
//!    (`ρ ≤ 1/δ_k`), as Bertsekas' convergence theory requires, and shrinks with the error.
//!    Without it the projection arc of a huge step needs α below any sensible floor.
//!
//! Infeasible problems whose ray the test above cannot isolate (the null space of `M_FF` has
//! several dimensions and its nonnegative part is not found by clipping) end
//! `MaxIterations` with z growing along the ray; they are never reported `Solved`.
//!
//! **Sparse M.** Dense M: `M_FF` is gathered into a reused dense buffer and factored in
//! place (faer's `cholesky_in_place`, no allocation). Sparse M: free blocks of size up to
//! [`ProjectedNewton::dense_limit`] are densified the same way; larger ones are factored by
//! faer's sparse Cholesky (`SymbolicLlt` / `Llt`) on the lower triangle of `M_FF`, built in
//! reused CSC buffers, with the symbolic analysis kept while the free set does not change.
//! The pivot-size test of step 1 needs the dense factor; for the sparse path the energy
//! ratio alone detects singular blocks.
//!
//! # Requirements
//!
//! M must be symmetric (to `Matrix::asymmetry(1e-10)`); otherwise [`LcpSolver::solve`]
//! returns [`Error::Requirement`] naming the worst pair and suggesting Lemke. M should be
//! positive semidefinite; an indefinite M is detected as above and never reported `Solved`
//! unless the returned point passes the error test.
//!
//! The iteration limit defaults to [`default_max_iter`]`(n) = 100 + n` Newton steps.

mod direction;
pub mod params;
mod step;
#[cfg(test)]
mod tests;
mod workspace;

use crate::{Lcp, LcpSolver};
use direction::Method;
use perp_core::iteration::run;
use perp_core::{Error, Matrix, Settings, Solution, SolutionMut, SolveReport, Status};
use workspace::Workspace;

/// The registry name, `"projected-newton"`.
pub const NAME: &str = "projected-newton";

/// Relative tolerance of the symmetry requirement (`Matrix::asymmetry`).
pub const SYMMETRY_TOL: f64 = 1e-10;

/// A pivot below this fraction of its diagonal scale counts as zero (singular free block).
const PIVOT_REL: f64 = 1e-14;
/// `λ_min` of the Jacobi-scaled free block below which it counts as singular (energy-ratio
/// test), and the least Levenberg–Marquardt shift. A step with energy ratio ρ has
/// `‖d̂‖ ≈ ρ‖ŵ‖`, so the round-off `~1e-14 ρ² ‖ŵ‖²` in its curvature stays below `1e-6` of
/// `−wᵀd = ρ‖ŵ‖²` only while `ρ ≤ 1e8`.
const SINGULAR_REL: f64 = 1e-8;
/// Factor by which the regularization δ grows after a failed factorization.
const REG_GROWTH: f64 = 100.0;
/// Relative size of `‖M r‖∞` under which a regularized direction is a zero-curvature ray.
const RAY_TOL: f64 = 1e-9;
/// Least slope `−wᵀr / (‖r‖∞ ‖q‖∞)` of a ray that certifies unboundedness.
const RAY_SLOPE: f64 = 1e-6;
/// Rounds of free-set reduction in the ray search.
const RAY_ROUNDS: usize = 4;
/// Components of a candidate ray below this fraction of its largest one are dropped.
const RAY_DROP: f64 = 1e-12;
/// Marks a variable that is not in the free set.
const NOT_FREE: usize = usize::MAX;

/// The default Newton-step limit for a problem of size `n`: `100 + n` (one step per change
/// of the active set in the worst case, plus room for the line search to work).
///
/// ```
/// assert_eq!(perp_lcp::projected_newton::default_max_iter(10), 110);
/// ```
pub fn default_max_iter(n: usize) -> usize {
    100 + n
}

/// Bertsekas' projected Newton method for symmetric positive semidefinite (box-)LCPs (see
/// the [module documentation](self) for the algorithm).
///
/// Parameters are public fields; [`ProjectedNewton::validate`] states their ranges. The
/// solver keeps a workspace (vectors, index lists, the dense factor buffer) that is reused
/// across iterations and across solves of the same size, so time stepping does not
/// reallocate.
pub struct ProjectedNewton {
    /// Armijo constant σ ∈ (0, ½). Default `1e-4`.
    pub sigma: f64,
    /// Backtracking factor β ∈ (0, 1). Default `0.5`.
    pub beta: f64,
    /// ε̄ > 0, the cap on the ε of the ε-active set. Default `1e-3`.
    pub eps_bar: f64,
    /// Smallest step length α tried before the solve ends `Stalled`, in (0, 1). Default
    /// `1e-12`.
    pub min_step: f64,
    /// First regularization δ (relative to the diagonal) tried when Cholesky of `M_FF`
    /// fails, in (0, `reg_max`]. Default `1e-12`.
    pub reg_min: f64,
    /// Largest regularization δ; failing beyond it means M is not PSD. Default `1e-8`.
    pub reg_max: f64,
    /// Sparse M: free blocks up to this size are densified for the Cholesky; larger ones
    /// use faer's sparse Cholesky. Default `100`.
    pub dense_limit: usize,
    ws: Workspace,
}

impl ProjectedNewton {
    /// The method with default parameters (σ = 1e-4, β = ½, ε̄ = 1e-3, α ≥ 1e-12,
    /// δ ∈ [1e-12, 1e-8], dense limit 100).
    ///
    /// ```
    /// use perp_core::{Matrix, Settings, Status};
    /// use perp_lcp::{projected_newton::ProjectedNewton, Lcp, LcpSolver};
    /// let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
    /// let p = Lcp::new(m, vec![-5.0, -6.0]).unwrap();
    /// let sol = ProjectedNewton::new().solve(&p, None, &Settings::default()).unwrap();
    /// assert_eq!(sol.report.status, Status::Solved);
    /// assert!((sol.z[0] - 4.0 / 3.0).abs() < 1e-12 && (sol.z[1] - 7.0 / 3.0).abs() < 1e-12);
    /// ```
    pub fn new() -> Self {
        ProjectedNewton {
            sigma: params::SIGMA,
            beta: params::BETA,
            eps_bar: params::EPS_BAR,
            min_step: params::MIN_STEP,
            reg_min: params::REG_MIN,
            reg_max: params::REG_MAX,
            dense_limit: params::DENSE_LIMIT,
            ws: Workspace::default(),
        }
    }

    /// `Err(InvalidSetting)` naming the first parameter out of its range.
    pub fn validate(&self) -> Result<(), Error> {
        let open = |x: f64, a: f64, b: f64| x > a && x < b;
        if !open(self.sigma, 0.0, 0.5) {
            return Err(Error::setting("projected-newton sigma", self.sigma, "must lie in (0, 0.5)"));
        }
        if !open(self.beta, 0.0, 1.0) {
            return Err(Error::setting("projected-newton beta", self.beta, "must lie in (0, 1)"));
        }
        if !(self.eps_bar > 0.0 && self.eps_bar.is_finite()) {
            return Err(Error::setting("projected-newton eps_bar", self.eps_bar, "must be finite and > 0"));
        }
        if !open(self.min_step, 0.0, 1.0) {
            return Err(Error::setting("projected-newton min_step", self.min_step, "must lie in (0, 1)"));
        }
        if !(self.reg_max > 0.0 && self.reg_max.is_finite()) {
            return Err(Error::setting("projected-newton reg_max", self.reg_max, "must be finite and > 0"));
        }
        if !(self.reg_min > 0.0 && self.reg_min <= self.reg_max) {
            return Err(Error::setting("projected-newton reg_min", self.reg_min, "must lie in (0, reg_max]"));
        }
        Ok(())
    }
}

impl Default for ProjectedNewton {
    fn default() -> Self {
        ProjectedNewton::new()
    }
}

impl Clone for ProjectedNewton {
    /// Copies the parameters; the clone starts with an empty workspace.
    fn clone(&self) -> Self {
        ProjectedNewton { ws: Workspace::default(), ..*self }
    }
}

impl std::fmt::Debug for ProjectedNewton {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProjectedNewton")
            .field("sigma", &self.sigma)
            .field("beta", &self.beta)
            .field("eps_bar", &self.eps_bar)
            .field("min_step", &self.min_step)
            .field("reg_min", &self.reg_min)
            .field("reg_max", &self.reg_max)
            .field("dense_limit", &self.dense_limit)
            .finish_non_exhaustive()
    }
}

impl LcpSolver for ProjectedNewton {
    fn name(&self) -> &str {
        NAME
    }

    /// Solves `p` from `z` projected onto the bounds when `warm` (else from 0 projected); the
    /// answer is copied into the buffers (this solver allocates).
    ///
    /// `Err` for invalid settings or warm start and for a non-symmetric M
    /// ([`Error::Requirement`]); otherwise `Ok` with the status of the solve.
    fn solve_into(&mut self, p: &Lcp, warm: bool, out: SolutionMut<'_>, s: &Settings) -> Result<(), Error> {
        self.solve_checked(p, warm.then_some(&*out.z), s)?.copy_into(out)
    }
}

impl ProjectedNewton {
    /// [`LcpSolver::solve_into`]'s checks, then [`ProjectedNewton::solve_as_is`] (scaled when
    /// the data are far from 1).
    fn solve_checked(&mut self, p: &Lcp, warm: Option<&[f64]>, s: &Settings) -> Result<Solution, Error> {
        s.validate()?;
        self.validate()?;
        p.check_warm(warm)?;
        let m = p.m();
        if let Some((i, j, _)) = m.asymmetry(SYMMETRY_TOL) {
            return Err(Error::Requirement {
                solver: NAME.into(),
                requirement: format!(
                    "a symmetric M (M[{i}][{j}] = {} but M[{j}][{i}] = {})",
                    m.get(i, j),
                    m.get(j, i)
                ),
                suggestion: Some(
                    "use lemke (or fb-newton / bdiff-newton), which do not need a symmetric M".into(),
                ),
            });
        }
        // Its tolerances (ε̄, the smallest step, the regularization bounds) are absolute, set
        // for data near 1: data far from 1 are solved scaled (`Lcp::unit_scaling`).
        p.solve_unit_scaled(warm, s.tol, |p, warm| self.solve_as_is(p, warm, s))
    }

    /// [`LcpSolver::solve`] on `p` as given (checked).
    fn solve_as_is(&mut self, p: &Lcp, warm: Option<&[f64]>, s: &Settings) -> Result<Solution, Error> {
        let n = p.n();
        let params = Params {
            sigma: self.sigma,
            beta: self.beta,
            eps_bar: self.eps_bar,
            min_step: self.min_step,
            reg_min: self.reg_min,
            reg_max: self.reg_max,
            dense_limit: self.dense_limit,
        };
        self.ws.prepare(p, warm, &params);
        let mut method = Method {
            p,
            prm: params,
            ws: &mut self.ws,
            error: f64::INFINITY,
            factorizations: 0,
            line_search_steps: 0,
            last_alpha: None,
            message: None,
        };
        let out = run(&mut method, s, default_max_iter(n));
        let mut report = SolveReport::new(NAME);
        out.record(&mut report);
        report.message = method.message.take();
        let z = self.ws.z.clone();
        Ok(p.solution(z, report, s.tol))
    }
}

/// A copy of the solver parameters, read by the iteration.
#[derive(Clone, Copy, Debug)]
pub(super) struct Params {
    sigma: f64,
    beta: f64,
    eps_bar: f64,
    min_step: f64,
    reg_min: f64,
    reg_max: f64,
    dense_limit: usize,
}
