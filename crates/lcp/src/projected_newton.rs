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

use crate::{Lcp, LcpSolver};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::{factor as llt_factor, solve as llt_solve};
use faer::linalg::solvers::SolveCore;
use faer::reborrow::ReborrowMut;
use faer::sparse::linalg::solvers::{Llt as SparseLlt, SymbolicLlt};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, Mat, MatMut, Par, Side};
use perp_core::iteration::{run, Counters, IterativeMethod, StepResult};
use perp_core::{Error, Matrix, Settings, Solution, SolveReport, Status};

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
            sigma: 1e-4,
            beta: 0.5,
            eps_bar: 1e-3,
            min_step: 1e-12,
            reg_min: 1e-12,
            reg_max: 1e-8,
            dense_limit: 100,
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

    /// Solves `p` from `warm` projected onto the bounds (default: 0 projected).
    ///
    /// `Err` for invalid settings or warm start and for a non-symmetric M
    /// ([`Error::Requirement`]); otherwise `Ok` with the status of the solve.
    fn solve(&mut self, p: &Lcp, warm: Option<&[f64]>, s: &Settings) -> Result<Solution, Error> {
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
struct Params {
    sigma: f64,
    beta: f64,
    eps_bar: f64,
    min_step: f64,
    reg_min: f64,
    reg_max: f64,
    dense_limit: usize,
}

/// Everything the iteration writes, allocated once per problem size.
struct Workspace {
    /// Bounds (−∞/+∞ where absent; 0/+∞ for the standard LCP).
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// diag(M).
    diag: Vec<f64>,
    /// Diagonal scale rⱼ for pivot tests and regularization: `M_jj`, or `max|M|` if `M_jj ≤ 0`.
    scale: Vec<f64>,
    /// `max|M|` (1 for M = 0).
    m_max: f64,
    /// Iterate, gradient w = Mz + q, direction, trial point and its gradient.
    z: Vec<f64>,
    w: Vec<f64>,
    d: Vec<f64>,
    zt: Vec<f64>,
    wt: Vec<f64>,
    /// Candidate ray and M times it.
    ray: Vec<f64>,
    m_ray: Vec<f64>,
    /// Free set F (ascending), ε-active set I⁺, position of each variable in F.
    free: Vec<usize>,
    free_saved: Vec<usize>,
    active: Vec<usize>,
    pos: Vec<usize>,
    /// Right-hand side / solution of `M_FF d_F = −w_F`.
    rhs: Vec<f64>,
    /// Dense buffer for `M_FF` and its Cholesky factor (leading `|F|×|F|` block).
    dense: Mat<f64>,
    /// Scratch for the in-place dense Cholesky, sized for `dense.nrows()`.
    stack: Option<MemBuffer>,
    /// Sparse path: lower triangle of `M_FF + δ diag(r)` in CSC.
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    vals: Vec<f64>,
    /// Sparse path: symbolic factorization and the free set it belongs to.
    symbolic: Option<SymbolicLlt<usize>>,
    symbolic_free: Vec<usize>,
    /// Sparse path: the numeric factor of the current step.
    sparse_llt: Option<SparseLlt<usize, f64>>,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace {
            lo: Vec::new(),
            hi: Vec::new(),
            diag: Vec::new(),
            scale: Vec::new(),
            m_max: 1.0,
            z: Vec::new(),
            w: Vec::new(),
            d: Vec::new(),
            zt: Vec::new(),
            wt: Vec::new(),
            ray: Vec::new(),
            m_ray: Vec::new(),
            free: Vec::new(),
            free_saved: Vec::new(),
            active: Vec::new(),
            pos: Vec::new(),
            rhs: Vec::new(),
            dense: Mat::new(),
            stack: None,
            col_ptr: Vec::new(),
            row_idx: Vec::new(),
            vals: Vec::new(),
            symbolic: None,
            symbolic_free: Vec::new(),
            sparse_llt: None,
        }
    }
}

impl Workspace {
    /// Sizes the buffers for `p` (reusing capacity) and sets the starting point
    /// `z = P(warm)` (or `P(0)`) and `w = M z + q`.
    fn prepare(&mut self, p: &Lcp, warm: Option<&[f64]>, prm: &Params) {
        let n = p.n();
        let m = p.m();
        for v in [
            &mut self.z,
            &mut self.w,
            &mut self.d,
            &mut self.zt,
            &mut self.wt,
            &mut self.ray,
            &mut self.m_ray,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.rhs.clear();
        self.rhs.resize(n, 0.0);
        self.pos.clear();
        self.pos.resize(n, NOT_FREE);
        self.free.clear();
        self.active.clear();
        self.lo.clear();
        self.hi.clear();
        match p.bounds() {
            Some((lo, hi)) => {
                self.lo.extend_from_slice(lo);
                self.hi.extend_from_slice(hi);
            }
            None => {
                self.lo.resize(n, 0.0);
                self.hi.resize(n, f64::INFINITY);
            }
        }
        let max_abs = m.max_abs();
        self.m_max = if max_abs > 0.0 { max_abs } else { 1.0 };
        self.diag.clear();
        self.scale.clear();
        for i in 0..n {
            let mii = m.get(i, i);
            self.diag.push(mii);
            self.scale.push(if mii > 0.0 { mii } else { self.m_max });
        }
        let cap = if m.is_sparse() { n.min(prm.dense_limit) } else { n };
        if self.dense.nrows() < cap {
            self.dense = Mat::zeros(cap, cap);
            self.stack = None;
        }
        if self.stack.is_none() {
            let dim = self.dense.nrows();
            self.stack = Some(MemBuffer::new(llt_factor::cholesky_in_place_scratch::<f64>(
                dim,
                Par::Seq,
                Default::default(),
            )));
        }
        self.symbolic = None;
        self.symbolic_free.clear();
        self.sparse_llt = None;
        for i in 0..n {
            let z0 = warm.map_or(0.0, |w| w[i]);
            self.z[i] = z0.max(self.lo[i]).min(self.hi[i]);
        }
        compute_w(p, &self.z, &mut self.w);
    }
}

/// `w = M z + q`.
fn compute_w(p: &Lcp, z: &[f64], w: &mut [f64]) {
    p.m().mul_vec(z, w);
    for (wi, qi) in w.iter_mut().zip(p.q()) {
        *wi += qi;
    }
}

/// One solve: the problem, the parameters, the workspace and the counters.
struct Method<'a> {
    p: &'a Lcp,
    prm: Params,
    ws: &'a mut Workspace,
    /// Error at the current iterate.
    error: f64,
    factorizations: usize,
    line_search_steps: usize,
    message: Option<String>,
}

impl Method<'_> {
    /// Ends the loop with `status` and `message`, keeping the current iterate.
    fn stop(&mut self, status: Status, message: String) -> StepResult {
        self.message = Some(message);
        StepResult { error: self.error, stop: Some(status) }
    }

    /// Whether the free block goes through faer's sparse Cholesky.
    fn sparse_path(&self) -> bool {
        self.p.m().is_sparse() && self.ws.free.len() > self.prm.dense_limit
    }

    /// One attempt: factors `M_FF + δ diag(r_F)` (counted in `factorizations`) and, on
    /// success, solves `(M_FF + δ diag(r_F)) d_F = −w_F` into `d`. `false` when the
    /// factorization fails.
    fn try_direction(&mut self, delta: f64) -> bool {
        let sparse = self.sparse_path();
        self.factorizations += 1;
        let ok = if sparse { self.factor_sparse(delta) } else { self.factor_dense(delta) };
        if !ok {
            return false;
        }
        let ws = &mut *self.ws;
        for (k, &i) in ws.free.iter().enumerate() {
            ws.rhs[k] = -ws.w[i];
        }
        self.solve_free(sparse);
        let ws = &mut *self.ws;
        for (k, &i) in ws.free.iter().enumerate() {
            ws.d[i] = ws.rhs[k];
        }
        true
    }

    /// The energy ratio of the current free direction in the Jacobi-scaled metric
    /// (`S = diag(r_F)^{-1/2}`, `ŵ = S w_F`, `M̂ = S M_FF S`):
    /// `ρ = −w_Fᵀ d_F / ‖ŵ‖² = ŵᵀ (M̂ + δI)⁻¹ ŵ / ‖ŵ‖² ∈ [1/λ_max, 1/λ_min]`.
    /// A large ρ means the step is dominated by a (numerically) null direction of `M_FF`;
    /// this also catches the tiny positive pivots a sparse Cholesky of a singular block
    /// may produce.
    fn energy_ratio(&self) -> f64 {
        let ws = &*self.ws;
        let lin: f64 = ws.free.iter().map(|&i| -ws.w[i] * ws.d[i]).sum();
        let w2: f64 = ws.free.iter().map(|&i| ws.w[i] * ws.w[i] / ws.scale[i]).sum();
        if w2 > 0.0 {
            lin / w2
        } else {
            0.0
        }
    }

    /// The direction on the free set: the Newton step when `M_FF` is numerically positive
    /// definite (its energy ratio ρ ≤ 1/SINGULAR_REL). Otherwise (singular PSD block) the
    /// step with the smallest working shift `δ ∈ {reg_min, 100·reg_min, …, reg_max}`; if that
    /// step has `ρ > 1/δ_k` it is dominated by the null space of `M_FF`: it is checked for an
    /// unbounded ray ([`Method::find_ray`]) and replaced by the step with the
    /// Levenberg–Marquardt-type shift `δ_k = max(SINGULAR_REL, min(1, error_k))`, which keeps
    /// `D_FF` bounded (`ρ ≤ 1/δ_k ≤ 1e8`, as Bertsekas' convergence theory requires) and
    /// shrinks as the error does. `Err` ends the loop (not PSD, or no solution).
    fn free_direction(&mut self) -> Result<f64, StepResult> {
        if self.try_direction(0.0) && self.energy_ratio() * SINGULAR_REL <= 1.0 {
            return Ok(0.0);
        }
        let mut delta = self.prm.reg_min;
        while !self.try_direction(delta) {
            delta *= REG_GROWTH;
            if delta > self.prm.reg_max * (1.0 + 1e-12) {
                let nf = self.ws.free.len();
                let tried = delta / REG_GROWTH;
                return Err(self.stop(
                    Status::NumericalFailure,
                    format!(
                        "M is not positive semidefinite: Cholesky of the {nf}x{nf} free block \
                         M_FF + δ·diag(M_FF) failed up to δ = {tried:.0e}; projected Newton needs a \
                         symmetric PSD M (use lemke for other matrices)"
                    ),
                ));
            }
        }
        let lm = self.error.clamp(SINGULAR_REL, 1.0);
        if self.energy_ratio() * lm <= 1.0 {
            return Ok(delta);
        }
        if let Some(msg) = self.find_ray(delta) {
            return Err(self.stop(Status::Infeasible, msg));
        }
        if !self.try_direction(lm) {
            return Err(self.stop(
                Status::NumericalFailure,
                format!(
                    "Cholesky of M_FF + δ·diag(M_FF) failed at δ = {lm:.1e} after succeeding at {delta:.0e}"
                ),
            ));
        }
        Ok(lm)
    }

    /// Looks for a ray of unboundedness starting from the current shifted direction (shift
    /// `delta`). When clipping into the box's recession cone spoils the ray, the clipped
    /// variables are fixed and the direction is recomputed on the smaller free set, for up to
    /// `RAY_ROUNDS` rounds; the free set is restored before returning.
    fn find_ray(&mut self, delta: f64) -> Option<String> {
        self.ws.free_saved.clone_from(&self.ws.free);
        let mut found = None;
        for round in 0..RAY_ROUNDS {
            match self.ray_test() {
                RayTest::Found(msg) => {
                    found = Some(msg);
                    break;
                }
                RayTest::NotRay => break,
                RayTest::Clipped if round + 1 < RAY_ROUNDS => {
                    let ws = &mut *self.ws;
                    // Keep the entries the clipped ray uses; fix the clipped and negligible ones.
                    let (ray, pos) = (&ws.ray, &mut ws.pos);
                    ws.free.retain(|&i| {
                        pos[i] = NOT_FREE;
                        ray[i] != 0.0
                    });
                    for (k, &i) in ws.free.iter().enumerate() {
                        ws.pos[i] = k;
                    }
                    if ws.free.is_empty() || !self.try_direction(delta) {
                        break;
                    }
                }
                RayTest::Clipped => break,
            }
        }
        let ws = &mut *self.ws;
        std::mem::swap(&mut ws.free, &mut ws.free_saved);
        for &i in &ws.free_saved {
            ws.pos[i] = NOT_FREE;
        }
        for (k, &i) in ws.free.iter().enumerate() {
            ws.pos[i] = k;
        }
        found
    }

    /// Dense path: gathers the lower triangle of `M_FF + δ diag(r_F)` into the buffer and
    /// factors it in place. `false` on a non-positive or negligible pivot.
    fn factor_dense(&mut self, delta: f64) -> bool {
        let ws = &mut *self.ws;
        let nf = ws.free.len();
        let free = &ws.free;
        let mut a = ws.dense.as_mut().submatrix_mut(0, 0, nf, nf);
        match self.p.m() {
            Matrix::Dense(m) => {
                for (c, &j) in free.iter().enumerate() {
                    let col = m.col_as_slice(j);
                    for (r, &i) in free.iter().enumerate().skip(c) {
                        a[(r, c)] = col[i];
                    }
                }
            }
            Matrix::Sparse(m) => {
                for c in 0..nf {
                    for r in c..nf {
                        a[(r, c)] = 0.0;
                    }
                }
                // Outer slice `free[c]` is row (CSR) or column (CSC) `free[c]`; by symmetry
                // both are column `free[c]` of M.
                for (c, &j) in free.iter().enumerate() {
                    if let Some(outer) = m.outer_view(j) {
                        for (i, &v) in outer.iter() {
                            let r = ws.pos[i];
                            if r != NOT_FREE && r >= c {
                                a[(r, c)] += v;
                            }
                        }
                    }
                }
            }
        }
        for (c, &j) in free.iter().enumerate() {
            a[(c, c)] += delta * ws.scale[j];
        }
        let stack = MemStack::new(ws.stack.as_mut().expect("workspace prepared"));
        let res = llt_factor::cholesky_in_place(
            a.rb_mut(),
            Default::default(),
            Par::Seq,
            stack,
            Default::default(),
        );
        // Without a shift, a negligible pivot means a singular block (see `free_direction`).
        res.is_ok()
            && (delta > 0.0
                || free.iter().enumerate().all(|(c, &j)| a[(c, c)] * a[(c, c)] > PIVOT_REL * ws.scale[j]))
    }

    /// Sparse path: builds the lower triangle of `M_FF + δ diag(r_F)` in CSC (diagonal
    /// always stored) and factors it with faer's sparse Cholesky, reusing the symbolic
    /// analysis while the free set is unchanged. `false` on a non-positive pivot.
    fn factor_sparse(&mut self, delta: f64) -> bool {
        let ws = &mut *self.ws;
        let Matrix::Sparse(m) = self.p.m() else { return false };
        let nf = ws.free.len();
        ws.col_ptr.clear();
        ws.row_idx.clear();
        ws.vals.clear();
        ws.col_ptr.push(0);
        for (c, &j) in ws.free.iter().enumerate() {
            let diag_at = ws.vals.len();
            ws.row_idx.push(c);
            ws.vals.push(delta * ws.scale[j]);
            if let Some(outer) = m.outer_view(j) {
                // Inner indices are sorted and `pos` is increasing on F: rows come out sorted.
                for (i, &v) in outer.iter() {
                    let r = ws.pos[i];
                    if r == NOT_FREE || r < c {
                        continue;
                    }
                    if r == c {
                        ws.vals[diag_at] += v;
                    } else {
                        ws.row_idx.push(r);
                        ws.vals.push(v);
                    }
                }
            }
            ws.col_ptr.push(ws.row_idx.len());
        }
        let sym = SymbolicSparseColMatRef::new_checked(nf, nf, &ws.col_ptr, None, &ws.row_idx);
        if ws.symbolic.is_none() || ws.symbolic_free != ws.free {
            match SymbolicLlt::try_new(sym, Side::Lower) {
                Ok(s) => {
                    ws.symbolic = Some(s);
                    ws.symbolic_free.clone_from(&ws.free);
                }
                Err(_) => return false,
            }
        }
        let symbolic = ws.symbolic.clone().expect("symbolic factorization just built");
        let mat = SparseColMatRef::new(sym, &ws.vals);
        match SparseLlt::try_new_with_symbolic(symbolic, mat, Side::Lower) {
            Ok(llt) => {
                ws.sparse_llt = Some(llt);
                true
            }
            Err(_) => false,
        }
    }

    /// Solves `M_FF x = rhs[..|F|]` in place with the factor just computed.
    fn solve_free(&mut self, sparse: bool) {
        let ws = &mut *self.ws;
        let nf = ws.free.len();
        let rhs = MatMut::from_column_major_slice_mut(&mut ws.rhs[..nf], nf, 1);
        if sparse {
            ws.sparse_llt.as_ref().expect("sparse factor computed").solve_in_place_with_conj(Conj::No, rhs);
        } else {
            let l = ws.dense.as_ref().submatrix(0, 0, nf, nf);
            let stack = MemStack::new(ws.stack.as_mut().expect("workspace prepared"));
            llt_solve::solve_in_place_with_conj(l, Conj::No, rhs, Par::Seq, stack);
        }
    }

    /// One ray test: `r = d_F` with tiny entries dropped and clipped into the recession cone
    /// of the box (no positive entry where `hi < ∞`, no negative one where `lo > −∞`). If
    /// `wᵀr ≤ −RAY_SLOPE ‖q‖∞ ‖r‖∞` and `‖M r‖∞ ≤ RAY_TOL max|M| ‖r‖∞`, the QP is unbounded
    /// below along `z + t r`; for the standard LCP, `r ≥ 0`, `M r = 0`, `qᵀr = wᵀr < 0` is
    /// the Farkas certificate that no `z ≥ 0` has `M z + q ≥ 0`.
    fn ray_test(&mut self) -> RayTest {
        let ws = &mut *self.ws;
        let dmax = ws.free.iter().fold(0.0_f64, |a, &i| a.max(ws.d[i].abs()));
        if !(dmax > 0.0 && dmax.is_finite()) {
            return RayTest::NotRay;
        }
        ws.ray.fill(0.0);
        let (mut rmax, mut slope, mut clipped) = (0.0_f64, 0.0, false);
        for &i in &ws.free {
            let v = ws.d[i];
            if v.abs() <= RAY_DROP * dmax {
                continue;
            }
            let c = if ws.lo[i] > f64::NEG_INFINITY { v.max(0.0) } else { v };
            let c = if ws.hi[i] < f64::INFINITY { c.min(0.0) } else { c };
            clipped |= c != v;
            ws.ray[i] = c;
            rmax = rmax.max(c.abs());
            slope += ws.w[i] * c;
        }
        let q_max = self.p.q().iter().fold(0.0_f64, |a, v| a.max(v.abs()));
        let verdict = if clipped { RayTest::Clipped } else { RayTest::NotRay };
        if !(rmax > 0.0 && slope < -RAY_SLOPE * q_max * rmax) {
            return verdict;
        }
        self.p.m().mul_vec(&ws.ray, &mut ws.m_ray);
        let curv = ws.m_ray.iter().fold(0.0_f64, |a, v| a.max(v.abs())) / rmax;
        if curv <= RAY_TOL * ws.m_max {
            RayTest::Found(format!(
                "the objective ½zᵀMz + qᵀz is unbounded below on the feasible set: along a feasible ray r \
                 the slope is wᵀr/‖r‖∞ = {:.3e} < 0 with ‖Mr‖∞/‖r‖∞ = {curv:.1e} (zero curvature); \
                 for a symmetric positive semidefinite M the LCP has no solution",
                slope / rmax
            ))
        } else {
            verdict
        }
    }
}

/// The outcome of [`Method::ray_test`].
enum RayTest {
    /// A certified ray; the message describes it.
    Found(String),
    /// Not a ray, and clipping played no part.
    NotRay,
    /// Not a ray, but some entries had to be clipped: retry on a smaller free set.
    Clipped,
}

impl IterativeMethod for Method<'_> {
    fn initial_error(&mut self) -> Option<f64> {
        self.error = self.p.errors(&self.ws.z, &self.ws.w).0;
        Some(self.error)
    }

    fn step(&mut self) -> StepResult {
        let n = self.p.n();
        // ε_k = min(ε̄, ‖z − P(z − D̄ w)‖₂), D̄ = diag(r)⁻¹, and the ε-active set I⁺.
        let eps = {
            let ws = &*self.ws;
            let mut r2 = 0.0;
            for i in 0..n {
                let r = ws.z[i] - (ws.z[i] - ws.w[i] / ws.scale[i]).max(ws.lo[i]).min(ws.hi[i]);
                r2 += r * r;
            }
            self.prm.eps_bar.min(r2.sqrt())
        };
        {
            let ws = &mut *self.ws;
            ws.free.clear();
            ws.active.clear();
            for i in 0..n {
                let (z, w) = (ws.z[i], ws.w[i]);
                if (z <= ws.lo[i] + eps && w > 0.0) || (z >= ws.hi[i] - eps && w < 0.0) {
                    ws.pos[i] = NOT_FREE;
                    ws.active.push(i);
                } else {
                    ws.pos[i] = ws.free.len();
                    ws.free.push(i);
                }
            }
        }
        // Direction: Newton on F, scaled gradient on I⁺.
        if !self.ws.free.is_empty() {
            if let Err(stop) = self.free_direction() {
                return stop;
            }
        }
        {
            let ws = &mut *self.ws;
            for &i in &ws.active {
                ws.d[i] = if ws.diag[i] > 0.0 { -ws.w[i] / ws.diag[i] } else { -ws.w[i] };
            }
            if let Some(i) = (0..n).find(|&i| !ws.d[i].is_finite()) {
                let v = ws.d[i];
                return self.stop(
                    Status::NumericalFailure,
                    format!("the Newton direction is not finite (d[{i}] = {v})"),
                );
            }
        }
        // Armijo rule along the projection arc z(α) = P[z + α d].
        let ws = &mut *self.ws;
        let lin: f64 = ws.free.iter().map(|&i| -ws.w[i] * ws.d[i]).sum();
        let mut alpha = 1.0;
        loop {
            self.line_search_steps += 1;
            for i in 0..n {
                ws.zt[i] = (ws.z[i] + alpha * ws.d[i]).max(ws.lo[i]).min(ws.hi[i]);
            }
            compute_w(self.p, &ws.zt, &mut ws.wt);
            // f(z) − f(z(α)) = −½ Σ sᵢ (wᵢ + wᵢ(α)) with s = z(α) − z, exact for a quadratic
            // and free of the cancellation in f(z) − f(z(α)).
            let mut decrease = 0.0;
            for i in 0..n {
                decrease -= 0.5 * (ws.zt[i] - ws.z[i]) * (ws.w[i] + ws.wt[i]);
            }
            let act: f64 = ws.active.iter().map(|&i| ws.w[i] * (ws.z[i] - ws.zt[i])).sum();
            if decrease > 0.0 && decrease >= self.prm.sigma * (alpha * lin + act) {
                break;
            }
            alpha *= self.prm.beta;
            if alpha < self.prm.min_step {
                let e = self.error;
                return self.stop(
                    Status::Stalled,
                    format!(
                        "the Armijo line search failed (step length below {:.0e}) at error {e:.3e}: \
                         no descent along the projection arc (tol below attainable accuracy, or M not PSD)",
                        self.prm.min_step
                    ),
                );
            }
        }
        std::mem::swap(&mut ws.z, &mut ws.zt);
        std::mem::swap(&mut ws.w, &mut ws.wt);
        self.error = self.p.errors(&ws.z, &ws.w).0;
        StepResult::go(self.error)
    }

    fn counters(&self) -> Counters {
        Counters { pivots: 0, factorizations: self.factorizations, line_search_steps: self.line_search_steps }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn dense(n: usize, a: &[f64]) -> Matrix {
        Matrix::from_row_major(n, n, a).unwrap()
    }

    fn solve(p: &Lcp, warm: Option<&[f64]>, s: &Settings) -> Solution {
        ProjectedNewton::new().solve(p, warm, s).unwrap()
    }

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    #[test]
    fn interior_solution_in_one_newton_step() {
        // z = 0: w = q = (−5, −6) < 0, so I⁺ = ∅ and F = {0, 1}; the Newton step
        // d = M⁻¹(5, 6) = (4/3, 7/3) is the solution, accepted at α = 1.
        let p = Lcp::new(dense(2, &[2.0, 1.0, 1.0, 2.0]), vec![-5.0, -6.0]).unwrap();
        let s = solve(&p, None, &Settings { tol: 1e-14, ..Settings::default() });
        assert_eq!(s.report.status, Status::Solved);
        assert!(close(&s.z, &[4.0 / 3.0, 7.0 / 3.0], 1e-14), "{:?}", s.z);
        assert_eq!((s.report.iterations, s.report.factorizations, s.report.line_search_steps), (1, 1, 1));
        assert_eq!(s.report.solver, "projected-newton");
    }

    #[test]
    fn lower_bound_active() {
        // M = I, q = (−1, 2), z = 0: ‖z − P(z − D̄w)‖ = 1 (D̄ = I) so ε = ε̄ = 1e-3; z₁ = 0
        // with w₁ = 2 > 0 is ε-active (d₁ = −2, projected back to 0), F = {0} with d₀ = 1:
        // z = (1, 0).
        let p = Lcp::new(dense(2, &[1.0, 0.0, 0.0, 1.0]), vec![-1.0, 2.0]).unwrap();
        let s = solve(&p, None, &Settings::default());
        assert_eq!(s.report.status, Status::Solved);
        assert_eq!(s.z, vec![1.0, 0.0]);
        assert_eq!(s.w, vec![0.0, 2.0]);
        assert_eq!((s.report.iterations, s.report.factorizations), (1, 1));
    }

    #[test]
    fn box_case_by_hand() {
        // M = [[2,1],[1,2]], q = (−5,−6), 0 ≤ z ≤ (1, 3).
        // Step 1 (F = {0,1}): Newton point (4/3, 7/3), projected to (1, 7/3); accepted at α = 1.
        // Step 2: w = (−2/3, −1/3); ‖z − P(z − w/2)‖ = 1/6, ε = 1e-3; z₀ = hi₀ with w₀ < 0 is
        // active; F = {1}: d₁ = (1/3)/2 = 1/6, z = (1, 5/2), w = (−1/2, 0): solved.
        let inf = f64::INFINITY;
        let m = dense(2, &[2.0, 1.0, 1.0, 2.0]);
        let p = Lcp::with_bounds(m.clone(), vec![-5.0, -6.0], vec![0.0, 0.0], vec![1.0, 3.0]).unwrap();
        let s = solve(&p, None, &Settings { tol: 1e-14, ..Settings::default() });
        assert_eq!(s.report.status, Status::Solved);
        assert!(close(&s.z, &[1.0, 2.5], 1e-15), "{:?}", s.z);
        assert!(close(&s.w, &[-0.5, 0.0], 1e-15), "{:?}", s.w);
        assert_eq!((s.report.iterations, s.report.factorizations, s.report.line_search_steps), (2, 2, 2));
        // One step only: the projected Newton point (1, 7/3).
        let s1 = solve(&p, None, &Settings { max_iter: 1, ..Settings::default() });
        assert_eq!((s1.report.status, s1.report.iterations), (Status::MaxIterations, 1));
        assert!(close(&s1.z, &[1.0, 7.0 / 3.0], 1e-15), "{:?}", s1.z);
        // Unbounded variables (lo = −∞, hi = +∞): one Newton step solves M z = −q.
        let p = Lcp::with_bounds(m, vec![-5.0, -6.0], vec![-inf; 2], vec![inf; 2]).unwrap();
        let s = solve(&p, None, &Settings { tol: 1e-14, ..Settings::default() });
        assert_eq!((s.report.status, s.report.iterations), (Status::Solved, 1));
        assert!(close(&s.z, &[4.0 / 3.0, 7.0 / 3.0], 1e-14));
    }

    #[test]
    fn one_step_with_backtracking_matches_hand_computation() {
        // M = [[1,1],[1,2]], q = (−4, 0), z = 0: w = (−4, 0), nothing ε-active (w₁ = 0 is not
        // > 0), F = {0,1}. d = −M⁻¹w = [[2,−1],[−1,1]]·(4, 0) = (8, −4); −Σ wᵢdᵢ = 32.
        // α = 1: z(1) = P(8, −4) = (8, 0), f = ½·64 − 32 = 0: no decrease, rejected.
        // α = ½: z(½) = (4, 0), f = 8 − 16 = −8 ≥ σ·½·32 below f(0) = 0: accepted.
        // (4, 0) with w = (0, 4) is the solution.
        let p = Lcp::new(dense(2, &[1.0, 1.0, 1.0, 2.0]), vec![-4.0, 0.0]).unwrap();
        let s = solve(&p, None, &Settings { tol: 1e-14, ..Settings::default() });
        assert_eq!(s.report.status, Status::Solved);
        assert!(close(&s.z, &[4.0, 0.0], 1e-14) && close(&s.w, &[0.0, 4.0], 1e-14), "{:?} {:?}", s.z, s.w);
        assert_eq!((s.report.iterations, s.report.factorizations, s.report.line_search_steps), (1, 1, 2));
    }

    #[test]
    fn psd_singular_block_is_regularized() {
        // M = [[1,1],[1,1]], q = (−1,−1): every z ≥ 0 with z₀ + z₁ = 1 solves. At z = 0 the
        // free block is M itself, whose Cholesky meets a zero pivot; with δ = 1e-12 the step
        // (M + δI)⁻¹(1, 1) = (1, 1)/(2 + δ) lands within 1e-12 of (½, ½).
        let p = Lcp::new(dense(2, &[1.0, 1.0, 1.0, 1.0]), vec![-1.0, -1.0]).unwrap();
        let st = Settings { tol: 1e-10, ..Settings::default() };
        let s = solve(&p, None, &st);
        assert_eq!(s.report.status, Status::Solved, "{:?}", s.report.message);
        assert!(s.report.error <= st.tol);
        assert!((s.z[0] + s.z[1] - 1.0).abs() < 1e-10 && s.z.iter().all(|&v| v >= 0.0));
        assert_eq!((s.report.iterations, s.report.factorizations), (1, 2));
    }

    #[test]
    fn unbounded_psd_problem_is_infeasible() {
        // M = [[1,−1],[−1,1]], q = (−1,−1): z = t(1,1) gives w = q < 0 for every t, so no z
        // solves; f(t(1,1)) = −2t is unbounded along the zero-curvature ray r = (1, 1).
        let p = Lcp::new(dense(2, &[1.0, -1.0, -1.0, 1.0]), vec![-1.0, -1.0]).unwrap();
        let s = solve(&p, None, &Settings::default());
        assert_eq!(s.report.status, Status::Infeasible);
        assert!(s.report.message.as_deref().unwrap().contains("unbounded below"), "{:?}", s.report.message);
        assert_eq!(s.report.iterations, 1);
    }

    #[test]
    fn indefinite_matrix_is_a_numerical_failure() {
        // M = [[1,2],[2,1]] has eigenvalue −1; at z = 0 both variables are free and the
        // second pivot is 1 − 4 = −3 for every δ ≤ 1e-8: 1 + 3 attempts.
        let p = Lcp::new(dense(2, &[1.0, 2.0, 2.0, 1.0]), vec![-1.0, -1.0]).unwrap();
        let s = solve(&p, None, &Settings::default());
        assert_eq!(s.report.status, Status::NumericalFailure);
        assert!(s.report.message.as_deref().unwrap().contains("not positive semidefinite"));
        assert_eq!(s.report.factorizations, 4);
    }

    #[test]
    fn non_symmetric_matrix_is_refused_naming_the_pair() {
        let p = Lcp::new(dense(2, &[2.0, 1.0, 0.5, 2.0]), vec![-1.0, -1.0]).unwrap();
        let e = ProjectedNewton::new().solve(&p, None, &Settings::default()).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::Requirement { .. }), "{msg}");
        assert!(msg.contains("M[1][0] = 0.5 but M[0][1] = 1") && msg.contains("lemke"), "{msg}");
    }

    #[test]
    fn bad_settings_and_warm_start_are_errors() {
        let p = Lcp::new(dense(1, &[1.0]), vec![-1.0]).unwrap();
        let mut pn = ProjectedNewton { sigma: 0.7, ..ProjectedNewton::new() };
        assert!(matches!(pn.solve(&p, None, &Settings::default()), Err(Error::InvalidSetting { .. })));
        let e = ProjectedNewton::new().solve(&p, Some(&[1.0, 2.0]), &Settings::default()).unwrap_err();
        assert!(matches!(e, Error::DimensionMismatch { .. }), "{e}");
        pn.sigma = 1e-4;
        pn.reg_min = 1.0;
        assert!(pn.validate().is_err());
    }

    #[test]
    fn warm_start_at_the_solution_costs_no_iteration() {
        let p = Lcp::new(dense(2, &[1.0, 0.0, 0.0, 1.0]), vec![-1.0, 2.0]).unwrap();
        let s = solve(&p, Some(&[1.0, 0.0]), &Settings::default());
        assert_eq!((s.report.status, s.report.iterations, s.report.factorizations), (Status::Solved, 0, 0));
        // A warm start outside the bounds is projected first: (1, −3) → (1, 0).
        let s = solve(&p, Some(&[1.0, -3.0]), &Settings::default());
        assert_eq!((s.report.status, s.report.iterations), (Status::Solved, 0));
    }

    #[test]
    fn empty_problem_is_solved_at_once() {
        let p = Lcp::new(Matrix::from_row_major(0, 0, &[]).unwrap(), vec![]).unwrap();
        let s = solve(&p, None, &Settings::default());
        assert_eq!((s.report.status, s.report.iterations), (Status::Solved, 0));
    }

    /// A tridiagonal SPD matrix (2.5 on the diagonal, −1 off it) and a q with both signs.
    fn tridiagonal(n: usize) -> (Vec<(usize, usize, f64)>, Vec<f64>) {
        let mut t = Vec::new();
        for i in 0..n {
            t.push((i, i, 2.5));
            if i + 1 < n {
                t.push((i, i + 1, -1.0));
                t.push((i + 1, i, -1.0));
            }
        }
        let q = (0..n).map(|i| ((i * 7 % 11) as f64 - 5.0) / 5.0).collect();
        (t, q)
    }

    #[test]
    fn dense_and_sparse_inputs_agree() {
        // n = 8 exercises the densified sparse path, n = 400 (free blocks > dense_limit) the
        // sparse Cholesky; both must match the dense-storage solve.
        for n in [8, 400] {
            let (t, q) = tridiagonal(n);
            let sp = Matrix::from_triplets(n, n, &t).unwrap();
            let de = Matrix::Dense(sp.to_dense());
            let st = Settings { tol: 1e-12, ..Settings::default() };
            let mut pn = ProjectedNewton::new();
            let a = pn.solve(&Lcp::new(de, q.clone()).unwrap(), None, &st).unwrap();
            let b = pn.solve(&Lcp::new(sp.clone(), q.clone()).unwrap(), None, &st).unwrap();
            let csc = Matrix::Sparse(sp.to_csr().to_csc());
            let c = pn.solve(&Lcp::new(csc, q).unwrap(), None, &st).unwrap();
            for s in [&a, &b, &c] {
                assert_eq!(s.report.status, Status::Solved, "n = {n}: {:?}", s.report);
            }
            assert!(close(&a.z, &b.z, 1e-10) && close(&a.z, &c.z, 1e-10), "n = {n}");
            assert_eq!(a.report.iterations, b.report.iterations);
        }
    }

    #[test]
    fn singular_sparse_laplacian_through_the_sparse_cholesky() {
        // The path-graph Laplacian (n = 150 > dense_limit, so faer's sparse Cholesky) is PSD
        // with null vector 1. Standard LCP with q = −1: r = 1 ≥ 0 has M r = 0 and qᵀr < 0,
        // so there is no solution, and the first (regularized) step exposes that ray.
        let n = 150;
        let mut t = Vec::new();
        for i in 0..n {
            t.push((i, i, if i == 0 || i == n - 1 { 1.0 } else { 2.0 }));
            if i + 1 < n {
                t.push((i, i + 1, -1.0));
                t.push((i + 1, i, -1.0));
            }
        }
        let m = Matrix::from_triplets(n, n, &t).unwrap();
        let s = solve(&Lcp::new(m.clone(), vec![-1.0; n]).unwrap(), None, &Settings::default());
        assert_eq!((s.report.status, s.report.iterations), (Status::Infeasible, 1), "{:?}", s.report);
        // In the box [−1, 1]ⁿ the QP is bounded, so a solution exists and is found.
        let q: Vec<f64> = (0..n).map(|i| ((i * 7 % 11) as f64 - 5.0) / 5.0).collect();
        let p = Lcp::with_bounds(m, q, vec![-1.0; n], vec![1.0; n]).unwrap();
        let s = solve(&p, None, &Settings { tol: 1e-10, ..Settings::default() });
        assert_eq!(s.report.status, Status::Solved, "{:?}", s.report);
    }

    #[test]
    fn scaling_m_and_q_together_changes_nothing() {
        // (cM, cq) has the same solutions and, with ε_k measured through D̄ = diag(M)⁻¹ and
        // every other test relative, the same iterates: c = 1e5 mimics Siconos' lcp_mmc
        // (diag(M) ≈ 1e5), where an unscaled ε_k made the method crawl.
        // z* ≈ 1e-4 < ε̄ as in lcp_mmc.
        let (t, q) = tridiagonal(12);
        let base = Matrix::from_triplets(12, 12, &t).unwrap().to_dense();
        let run = |c: f64| {
            let m = Matrix::Dense(Mat::from_fn(12, 12, |i, j| c * base[(i, j)]));
            let qc: Vec<f64> = q.iter().map(|v| 1e-4 * c * v).collect();
            solve(&Lcp::new(m, qc).unwrap(), None, &Settings { tol: 1e-13, ..Settings::default() })
        };
        let one = run(1.0);
        assert_eq!((one.report.status, one.report.iterations), (Status::Solved, 2));
        for c in [1e5, 1e-5] {
            let s = run(c);
            assert_eq!(
                (s.report.status, s.report.iterations),
                (Status::Solved, one.report.iterations),
                "c = {c}"
            );
            assert!(close(&s.z, &one.z, 1e-16), "c = {c}");
        }
    }

    /// Row-major A Aᵀ (+ `shift`·I) for a row-major n×k matrix A.
    fn gram(n: usize, k: usize, a: &[f64], shift: f64) -> Vec<f64> {
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                m[i * n + j] = (0..k).map(|l| a[i * k + l] * a[j * k + l]).sum::<f64>();
            }
            m[i * n + i] += shift;
        }
        m
    }

    /// `z ≥ 0`, `w ≥ −1e-8`, `|zᵢwᵢ| ≤ 1e-8·max(1, ‖z‖∞)`. The scale factor matters only
    /// for PSD problems whose solution set is unbounded and reached far out: there `w` is
    /// only known to `ε‖M‖‖z‖` in floating point (one such problem, found by proptest, is
    /// solved at ‖z‖∞ = 2e5 with w = −8e-13), so no solver can promise `|zᵢwᵢ| ≤ 1e-8`.
    fn complementary(s: &Solution) {
        let scale = s.z.iter().fold(1.0_f64, |a, v| a.max(v.abs()));
        for (z, w) in s.z.iter().zip(&s.w) {
            assert!(*z >= 0.0 && *w >= -1e-8 && (z * w).abs() <= 1e-8 * scale, "z = {z}, w = {w}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn spd_problems_are_solved(
            (n, a, q) in (1usize..=10).prop_flat_map(|n| (
                Just(n),
                proptest::collection::vec(-1.0f64..1.0, n * n),
                proptest::collection::vec(-1.0f64..1.0, n),
            ))
        ) {
            let m = dense(n, &gram(n, n, &a, 1.0));
            let p = Lcp::new(m, q).unwrap();
            let s = solve(&p, None, &Settings { tol: 1e-10, ..Settings::default() });
            prop_assert_eq!(s.report.status, Status::Solved, "{:?}", s.report);
            complementary(&s);
        }

        #[test]
        fn psd_problems_are_solved_or_not_claimed(
            (n, k, a, q) in (2usize..=10).prop_flat_map(|n| (1..n).prop_flat_map(move |k| (
                Just(n),
                Just(k),
                proptest::collection::vec(-1.0f64..1.0, n * k),
                proptest::collection::vec(-1.0f64..1.0, n),
            )))
        ) {
            let m = dense(n, &gram(n, k, &a, 0.0));
            let p = Lcp::new(m, q).unwrap();
            let tol = 1e-10;
            let s = solve(&p, None, &Settings { tol, ..Settings::default() });
            if s.report.status == Status::Solved {
                prop_assert!(s.report.error <= tol);
                complementary(&s);
            } else {
                prop_assert!(s.report.error > tol, "{:?}", s.report);
            }
        }

        #[test]
        fn psd_box_problems_are_solved(
            (n, k, a, q, lo, hi) in (2usize..=10).prop_flat_map(|n| (1..n).prop_flat_map(move |k| (
                Just(n),
                Just(k),
                proptest::collection::vec(-1.0f64..1.0, n * k),
                proptest::collection::vec(-1.0f64..1.0, n),
                proptest::collection::vec(-1.0f64..0.0, n),
                proptest::collection::vec(0.0f64..1.0, n),
            )))
        ) {
            // A bounded convex QP always has a minimizer: the box-LCP always has a solution.
            let m = dense(n, &gram(n, k, &a, 0.0));
            let p = Lcp::with_bounds(m, q, lo.clone(), hi.clone()).unwrap();
            let s = solve(&p, None, &Settings { tol: 1e-10, ..Settings::default() });
            prop_assert_eq!(s.report.status, Status::Solved, "{:?}", s.report);
            for i in 0..n {
                prop_assert!(lo[i] <= s.z[i] && s.z[i] <= hi[i]);
            }
        }
    }
}
