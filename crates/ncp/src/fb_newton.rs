//! `fb-newton`: the Fischer–Burmeister semismooth Newton method of De Luca, Facchinei &
//! Kanzow (1996) (Glocker–Studer 2005 ref. [6]) for MCP(F, l, u).
//!
//! The MCP is rewritten as the square nonsmooth system `Φ(z) = 0` of [`crate::fb`]
//! (Billups 1995; Ferris, Kanzow & Munson 1999), with merit `Ψ(z) = ½‖Φ(z)‖²`, which is
//! continuously differentiable with `∇Ψ = Hᵀ Φ` for any H in the generalized Jacobian.
//! Iteration k:
//!
//! 1. `H = diag(dᵃ) + diag(dᵇ) ∇F(zₖ)` ([`crate::fb::fb_jacobian_diag`]); solve
//!    `H d = −Φ(zₖ)` by an LU with partial pivoting ([`perp_core::linear`]: dense LU, or sparse LU when
//!    [`NcpFunction::sparse_jacobian`](crate::NcpFunction::sparse_jacobian) returns a matrix).
//! 2. If the LU breaks down (a pivot below `n·ε·max|pivot|`, or a non-finite d) or d fails
//!    the descent test `∇Ψᵀd ≤ −ρ‖d‖^p` (DFK 1996, Algorithm step 3, `ρ = 1e-8`,
//!    `p = 2.1`), take the steepest-descent direction `d = −∇Ψ` instead.
//! 3. Armijo backtracking ([`perp_core::line_search`]): the largest `t ∈ {1, ½, ¼, …}` with
//!    `Ψ(zₖ + t d) ≤ R + σ t ∇Ψᵀd` (`σ = 1e-4`), where `R` is the largest of the last
//!    `nonmonotone + 1` merit values (Grippo, Lampariello & Lucidi 1986; default window 10,
//!    with the watchdog of [`FbNewton::nonmonotone`]) or `R = Ψ(zₖ)` when `nonmonotone = 0`.
//!    A trial point where F is not finite is rejected like one that fails the test (so a
//!    function defined only near the bounds is backtracked into its domain). When `t` falls
//!    below `min_step` the solve ends `Stalled` — or `NumericalFailure` if F was not finite
//!    at the trial points.
//!
//! Near a BD-regular solution the unit step is accepted and convergence is quadratic when
//! ∇F is Lipschitz (DFK 1996, Thm 3.1 and 3.2).
//!
//! # Active-set steps for LCPs ([`FbNewton::active_set`], on by default)
//!
//! When F(z) = Mz + q with a dense M ([`NcpFunction::affine`](crate::NcpFunction::affine))
//! and no row is free (LCPs and box-LCPs), each iteration first tries the Newton step of the
//! smooth piece of the min-map that the current point selects — the B-derivative equation
//! of Harker & Pang 1990 / Pang 1990 without tied rows, as in [`crate::bdiff_newton`]: with
//! y = z − F(z), rows with yᵢ ≤ lᵢ are fixed at lᵢ (A), rows with yᵢ ≥ uᵢ at uᵢ, and the
//! others (I) solve `M_II z_I = −q_I − M_I,A z_A`. For an affine F this step lands exactly
//! on the solution once the estimated active set is the right one, with one LU of the
//! |I|×|I| block instead of the n×n H. Steps on an identified active set are the idea of
//! Facchinei, Fischer & Kanzow (SIAM J. Optim. 9, 1998, "On the accurate identification of
//! active constraints"); the estimate here is the min-map's, and the way the step is combined
//! with the FB method is this implementation's, not taken from a paper:
//!
//! * z⁺ is accepted when it passes the unit-step Armijo test of a Newton direction,
//!   `Ψ(z⁺) ≤ (1 − 2σ) Ψ(z)` (∇Ψᵀd = −2Ψ for the FB Newton direction), against Ψ(z) itself,
//!   not the non-monotone reference;
//! * else, when d = z⁺ − z is a descent direction of Ψ (∇Ψ(z)ᵀd < 0, ∇Ψ from step 1's H,
//!   which the FB step then reuses), Armijo backtracking along d tries t = ½, ¼, ⅛, 1/16 with
//!   that true slope;
//! * else (or when the block is singular) the iteration takes the FB step of steps 1–3.
//!
//! z⁺ depends only on the set, so a set already tried is not tried again; after a failed try
//! the next one waits until the set is stable (the same at two iterates in a row), so that a
//! degenerate problem whose sets keep changing does not pay a wasted reduced LU at every
//! iteration. The reduced factorizations and trial points count in `report.factorizations`
//! and `report.line_search_steps`. On the n = 1000 `spd` LCP of `benches/lcp.rs` this turns
//! 15 full LUs into 6 reduced ones (tests pin the counts at n = 200). Non-affine F, sparse
//! M, a free row (an MLCP's equations: on Siconos' `Buck2_mlcp` the steps led the
//! non-monotone search astray and it no longer converged), or `active_set = false`: the
//! plain method above, iteration for iteration.
//!
//! Error measure: each iteration reports [`Mcp::error`] (Siconos' measure) at the new
//! iterate; the loop is [`perp_core::iteration::run`], one Newton step per iteration,
//! default limit [`DEFAULT_MAX_ITER`]. A NaN in the Jacobian ends the solve with
//! `NumericalFailure` and the last finite iterate; a NaN in F at the starting point is an
//! `Err(NonFinite)`; a `sparse_jacobian` of the wrong shape is an `Err(DimensionMismatch)`.

use crate::fb::{fb_jacobian_diag_lambda, fb_residual_lambda};
use crate::proximal::{plain_settings, refine_physics, rescue, Proximal};
use crate::{BoundKind, Mcp, NcpSolver};
use faer::Mat;
use perp_core::iteration::{run, Counters, IterativeMethod, StepResult};
use perp_core::line_search::{Backtracking, NonMonotone, Search, Watch, Watchdog};
use perp_core::linear::{DenseLu, SparseLu};
use perp_core::{Error, Matrix, Settings, Solution, SolveReport, Status};
use sprs::CsMat;

/// The registry name, `"fb-newton"`.
pub const NAME: &str = "fb-newton";

/// Newton steps allowed when `Settings::max_iter == 0`.
pub const DEFAULT_MAX_ITER: usize = 100;

/// The Fischer–Burmeister semismooth Newton solver (module docs). Knobs are public fields;
/// [`FbNewton::validate`] checks them (every solve does).
///
/// ```
/// use perp_core::{Matrix, Settings, Status};
/// use perp_ncp::{fb_newton::FbNewton, AffineFunction, Mcp, NcpSolver};
/// let f = AffineFunction::new(Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap(), vec![-5.0, -6.0])
///     .unwrap();
/// let sol = FbNewton::new().solve(&Mcp::ncp(&f), &[0.0, 0.0], &Settings { tol: 1e-12, ..Settings::default() })
///     .unwrap();
/// assert_eq!(sol.report.status, Status::Solved);
/// assert!((sol.z[0] - 4.0 / 3.0).abs() < 1e-12 && (sol.z[1] - 7.0 / 3.0).abs() < 1e-12);
/// ```
pub struct FbNewton {
    /// Chen–Chen–Kanzow penalty weight λ of `φ_λ` ([`crate::fb::phi_lambda`]). Default `1.0`
    /// (plain FB: λ = 0.95 fails on the contact-like LCP with n = 1000 of `benches/ncp.rs`,
    /// which plain FB solves in 20 steps); valid `(0, 1]`.
    pub lambda: f64,
    /// Non-monotone window: the Armijo reference is the largest of the last
    /// `nonmonotone + 1` merit values (GLL 1986), with a watchdog: after `2·nonmonotone`
    /// steps without a new best merit the search returns to the best iterate and continues
    /// monotone. Default `10`: with a monotone search (`0`) the Siconos circuit MLCPs Buck2,
    /// BuckConverter and BuckFirstStep stall at 100 iterations, with 10 they solve in 12–20;
    /// the watchdog rescues Kojima–Shindo from z = 0, where the plain non-monotone search
    /// wanders. Valid `≤ 1000`.
    pub nonmonotone: usize,
    /// Armijo constant σ. Default `1e-4`; valid `(0, ½)`.
    pub sigma: f64,
    /// Descent-test constant ρ of DFK 1996. Default `1e-8`; valid `> 0`, finite.
    pub rho: f64,
    /// Descent-test exponent p of DFK 1996. Default `2.1`; valid `> 2`, finite.
    pub p: f64,
    /// Smallest step length tried before the search counts as failed. Default `1e-12`;
    /// valid `(0, 1)`.
    pub min_step: f64,
    /// For affine F with a dense M and no free row (LCPs, box-LCPs), try the min-map Newton
    /// step on the estimated active set before each FB step (module docs, "Active-set
    /// steps"). Default `true`; ignored for other problems.
    pub active_set: bool,
    /// The rescue when the method ends `Stalled` or `MaxIterations`: proximal perturbation
    /// ([`crate::proximal`], Billups 1995). Default 20 rounds, λ = 1 (relative); `rounds = 0`
    /// turns it off. After a rescue, [`FbNewton::gradient_steps`] and
    /// [`FbNewton::active_set_steps`] describe the last inner solve.
    pub proximal: Proximal,
    ws: Workspace,
    gradient_steps: usize,
    active_set_steps: (usize, usize),
}

impl Default for FbNewton {
    fn default() -> Self {
        FbNewton {
            lambda: 1.0,
            nonmonotone: 10,
            sigma: 1e-4,
            rho: 1e-8,
            p: 2.1,
            min_step: 1e-12,
            active_set: true,
            proximal: Proximal::default(),
            ws: Workspace::default(),
            gradient_steps: 0,
            active_set_steps: (0, 0),
        }
    }
}

impl FbNewton {
    /// The solver with its default knobs (field docs).
    ///
    /// ```
    /// let s = perp_ncp::fb_newton::FbNewton::new();
    /// assert_eq!((s.lambda, s.nonmonotone, s.sigma, s.rho, s.p), (1.0, 10, 1e-4, 1e-8, 2.1));
    /// assert!(s.validate().is_ok());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// `Err(InvalidSetting)` naming the first knob outside its documented range.
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.lambda > 0.0 && self.lambda <= 1.0) {
            return Err(Error::setting("lambda", self.lambda, "must be in (0, 1]"));
        }
        if self.nonmonotone > 1000 {
            return Err(Error::setting("nonmonotone", self.nonmonotone, "must be <= 1000"));
        }
        if !(self.sigma > 0.0 && self.sigma < 0.5) {
            return Err(Error::setting("sigma", self.sigma, "must be in (0, 0.5)"));
        }
        if !(self.rho > 0.0 && self.rho.is_finite()) {
            return Err(Error::setting("rho", self.rho, "must be finite and > 0"));
        }
        if !(self.p > 2.0 && self.p.is_finite()) {
            return Err(Error::setting("p", self.p, "must be finite and > 2"));
        }
        if !(self.min_step > 0.0 && self.min_step < 1.0) {
            return Err(Error::setting("min_step", self.min_step, "must be in (0, 1)"));
        }
        self.proximal.validate()
    }

    /// How many iterations of the last solve used the steepest-descent direction `−∇Ψ`
    /// (the Newton system was singular or its direction failed the descent test).
    pub fn gradient_steps(&self) -> usize {
        self.gradient_steps
    }

    /// Active-set steps of the last solve (module docs): (tried, taken). Each one tried with a
    /// non-empty free set cost one factorization of its block; the other factorizations of
    /// `report.factorizations` are of the full H.
    pub fn active_set_steps(&self) -> (usize, usize) {
        self.active_set_steps
    }
}

/// Buffers reused across iterations and across solves (sized on first use for each n).
struct Workspace {
    n: usize,
    z: Vec<f64>,
    f: Vec<f64>,
    phi: Vec<f64>,
    zt: Vec<f64>,
    ft: Vec<f64>,
    phit: Vec<f64>,
    da: Vec<f64>,
    db: Vec<f64>,
    d: Vec<f64>,
    grad: Vec<f64>,
    /// Non-monotone memory of merits (GLL reference).
    memory: NonMonotone,
    /// The iterate with the smallest merit so far (watchdog of the non-monotone search).
    best_z: Vec<f64>,
    /// Dense ∇F (used when the function gives no sparse Jacobian).
    jac: Mat<f64>,
    /// Dense H, overwritten by its LU factors.
    lu: DenseLu,
    sized: bool,
    /// Sparse ∇F of the current iterate, as the function returned it.
    sjac: Option<CsMat<f64>>,
    /// Sparse H in CSC form.
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    vals: Vec<f64>,
    /// Sparse LU of H (its symbolic analysis kept while the pattern stays the same).
    sparse: SparseLu,
    /// Active-set steps: the class of each row at the current point (0 lower, 1 upper,
    /// 2 free), the classes of the last set tried (`tried` valid when `has_tried`), the free
    /// rows, and the LU of M_II.
    class: Vec<u8>,
    tried: Vec<u8>,
    has_tried: bool,
    /// The classes at the previous iterate (valid when `has_prev`).
    prev: Vec<u8>,
    has_prev: bool,
    free: Vec<usize>,
    rlu: DenseLu,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace {
            n: 0,
            z: Vec::new(),
            f: Vec::new(),
            phi: Vec::new(),
            zt: Vec::new(),
            ft: Vec::new(),
            phit: Vec::new(),
            da: Vec::new(),
            db: Vec::new(),
            d: Vec::new(),
            grad: Vec::new(),
            memory: NonMonotone::default(),
            best_z: Vec::new(),
            jac: Mat::zeros(0, 0),
            lu: DenseLu::new(),
            sized: false,
            sjac: None,
            col_ptr: Vec::new(),
            row_idx: Vec::new(),
            vals: Vec::new(),
            sparse: SparseLu::new(),
            class: Vec::new(),
            tried: Vec::new(),
            has_tried: false,
            prev: Vec::new(),
            has_prev: false,
            free: Vec::new(),
            rlu: DenseLu::new(),
        }
    }
}

impl Workspace {
    fn resize(&mut self, n: usize) {
        if self.n == n && self.sized {
            return;
        }
        self.n = n;
        for v in [
            &mut self.z,
            &mut self.f,
            &mut self.phi,
            &mut self.zt,
            &mut self.ft,
            &mut self.phit,
            &mut self.da,
            &mut self.db,
            &mut self.d,
            &mut self.grad,
            &mut self.best_z,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.jac = Mat::zeros(n, n);
        self.lu.resize(n, 1);
        self.class.clear();
        self.class.resize(n, 0);
        self.tried.clear();
        self.tried.resize(n, 0);
        self.prev.clear();
        self.prev.resize(n, 0);
        self.free.clear();
        self.free.reserve(n);
        self.sized = true;
        self.sparse.forget();
    }
}

/// One solve's state, seen by the shared loop.
struct Method<'a, 'p> {
    p: &'a Mcp<'p>,
    knobs: &'a FbNewton,
    ws: &'a mut Workspace,
    psi: f64,
    factorizations: usize,
    line_search_steps: usize,
    /// The accepted step length of the last line search (the observer's log); `None` for an
    /// active-set step.
    last_t: Option<f64>,
    gradient_steps: usize,
    active_set_steps: (usize, usize),
    /// ∇F, dᵃ, dᵇ and ∇Ψ have been computed at the current z (by a damped active-set try).
    jac_ready: bool,
    /// Whether this solve tries active-set steps: the knob, and no free row.
    active_set: bool,
    /// Try an active-set step whatever the set (at the start and after a step taken); after a
    /// failed try, only once the set is stable (the same at two iterates in a row).
    eager: bool,
    error: Option<Error>,
    message: Option<String>,
    initial_error: f64,
    /// Watchdog of the non-monotone search, and whether it has fallen back to monotone.
    watchdog: Watchdog,
    monotone: bool,
}

fn all_finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

fn half_norm2(v: &[f64]) -> f64 {
    0.5 * v.iter().map(|x| x * x).sum::<f64>()
}

impl Method<'_, '_> {
    fn fail(&mut self, status: Status, message: String) -> StepResult {
        self.message = Some(message);
        StepResult { error: self.p.error(&self.ws.z, &self.ws.f), stop: Some(status) }
    }

    /// Evaluates ∇F at z (sparse when offered), checks it, and stores `∇Ψ = Hᵀ Φ` in `grad`.
    /// `Err(message)` for a non-finite Jacobian; a wrong-shaped sparse one sets `self.error`.
    fn jacobian(&mut self) -> Result<(), String> {
        let ws = &mut *self.ws;
        let n = ws.n;
        ws.sjac = self.p.f.sparse_jacobian(&ws.z);
        if let Some(s) = &ws.sjac {
            if s.rows() != n || s.cols() != n {
                let (what, found) = if s.rows() != n {
                    ("rows of sparse_jacobian", s.rows())
                } else {
                    ("columns of sparse_jacobian", s.cols())
                };
                self.error = Some(Error::dim(what, n, found));
                return Err(format!("sparse_jacobian is {}x{}, expected {n}x{n}", s.rows(), s.cols()));
            }
            if let Some(k) = s.data().iter().position(|v| !v.is_finite()) {
                return Err(format!(
                    "sparse_jacobian has the non-finite stored value {} (entry {k})",
                    s.data()[k]
                ));
            }
        } else {
            ws.jac.fill(0.0);
            self.p.f.jacobian(&ws.z, ws.jac.as_mut());
            for j in 0..n {
                if let Some(i) = ws.jac.col_as_slice(j).iter().position(|v| !v.is_finite()) {
                    return Err(format!("the Jacobian has {} at ({i}, {j})", ws.jac[(i, j)]));
                }
            }
        }
        fb_jacobian_diag_lambda(self.p, self.knobs.lambda, &ws.z, &ws.f, &mut ws.da, &mut ws.db);
        // ∇Ψ = Hᵀ Φ = dᵃ∘Φ + ∇Fᵀ (dᵇ∘Φ); d holds dᵇ∘Φ for the moment.
        for i in 0..n {
            ws.grad[i] = ws.da[i] * ws.phi[i];
            ws.d[i] = ws.db[i] * ws.phi[i];
        }
        match &ws.sjac {
            Some(s) => {
                for (v, (i, j)) in s.iter() {
                    ws.grad[j] += v * ws.d[i];
                }
            }
            None => {
                for j in 0..n {
                    let c = ws.jac.col_as_slice(j);
                    ws.grad[j] += c.iter().zip(&ws.d).map(|(a, b)| a * b).sum::<f64>();
                }
            }
        }
        Ok(())
    }

    /// The active-set step (module docs): `true` when it was taken (z, F, Φ and Ψ are the new
    /// point's), `false` when it was not tried (F not affine with a dense M, the set already
    /// tried) or failed (singular block, non-finite F, not enough decrease).
    fn active_set_step(&mut self) -> bool {
        let Some((Matrix::Dense(m), _)) = self.p.f.affine() else {
            return false;
        };
        let ws = &mut *self.ws;
        let n = ws.n;
        ws.free.clear();
        for i in 0..n {
            let y = ws.z[i] - ws.f[i];
            let (l, u) = (self.p.lower[i], self.p.upper[i]);
            (ws.class[i], ws.zt[i]) = if y <= l {
                (0, l)
            } else if y >= u {
                (1, u)
            } else {
                ws.free.push(i);
                (2, 0.0)
            };
        }
        // Stable: the same set as at the previous iterate.
        let stable = ws.has_prev && ws.class == ws.prev;
        ws.prev.copy_from_slice(&ws.class);
        ws.has_prev = true;
        if (ws.has_tried && ws.class == ws.tried) || !(self.eager || stable) {
            return false;
        }
        ws.tried.copy_from_slice(&ws.class);
        ws.has_tried = true;
        self.active_set_steps.0 += 1;
        // Until this one is taken, wait for a stable set before the next try.
        self.eager = false;
        // F at z_A = bounds, z_I = 0 gives the right-hand side −q_I − M_I,A z_A.
        self.p.f.eval(&ws.zt, &mut ws.ft);
        let k = ws.free.len();
        if k > 0 {
            self.factorizations += 1;
            ws.rlu.resize(k, 1);
            let mut h = ws.rlu.matrix_mut();
            for (b, &j) in ws.free.iter().enumerate() {
                let col = m.col_as_slice(j);
                for (a, &i) in ws.free.iter().enumerate() {
                    h[(a, b)] = col[i];
                }
            }
            match ws.rlu.factor() {
                Ok(piv) if !piv.singular(k as f64 * f64::EPSILON) => {}
                _ => return false,
            }
            for (x, &i) in ws.d.iter_mut().zip(&ws.free) {
                *x = -ws.ft[i];
            }
            ws.rlu.solve_in_place(&mut ws.d[..k]);
            for (&x, &i) in ws.d.iter().zip(&ws.free) {
                ws.zt[i] = x;
            }
            self.p.f.eval(&ws.zt, &mut ws.ft);
        }
        self.line_search_steps += 1;
        if !(all_finite(&ws.zt) && all_finite(&ws.ft)) {
            return false;
        }
        fb_residual_lambda(self.p, self.knobs.lambda, &ws.zt, &ws.ft, &mut ws.phit);
        let psi = half_norm2(&ws.phit);
        if psi <= (1.0 - 2.0 * self.knobs.sigma) * self.psi {
            self.psi = psi;
        } else if !self.damped_active_set_step() {
            return false;
        }
        let ws = &mut *self.ws;
        self.active_set_steps.1 += 1;
        self.eager = true;
        std::mem::swap(&mut ws.z, &mut ws.zt);
        std::mem::swap(&mut ws.f, &mut ws.ft);
        std::mem::swap(&mut ws.phi, &mut ws.phit);
        true
    }

    /// The unit active-set step z⁺ (in `zt`) failed its test: Armijo backtracking along
    /// d = z⁺ − z, t = ½, ¼, ⅛, 1/16, against the true slope ∇Ψ(z)ᵀd when d is a descent
    /// direction of Ψ. `true` (with the point in `zt`, `ft`, `phit` and its merit in
    /// `self.psi`) when a step passed. ∇Ψ is the FB step's (`jacobian`), kept for it.
    fn damped_active_set_step(&mut self) -> bool {
        if self.jacobian().is_err() {
            return false;
        }
        self.jac_ready = true;
        let ws = &mut *self.ws;
        let n = ws.n;
        let mut g = 0.0;
        for i in 0..n {
            ws.d[i] = ws.zt[i] - ws.z[i];
            g += ws.grad[i] * ws.d[i];
        }
        if g.is_nan() || g >= 0.0 {
            return false;
        }
        let (p, lambda) = (self.p, self.knobs.lambda);
        let search =
            Backtracking { sigma: self.knobs.sigma, min_step: 0.0, max_trials: 4, ..Backtracking::default() };
        // Step s = 1, ½, … of the search is t = s/2 along d (t = 1 was tried): the test
        // Ψ ≤ Ψ(z) + σ s (g/2) is Armijo's at t.
        let found = search.armijo(self.psi, 0.5 * g, |s| {
            for i in 0..n {
                ws.zt[i] = ws.z[i] + 0.5 * s * ws.d[i];
            }
            p.f.eval(&ws.zt, &mut ws.ft);
            all_finite(&ws.ft).then(|| {
                fb_residual_lambda(p, lambda, &ws.zt, &ws.ft, &mut ws.phit);
                half_norm2(&ws.phit)
            })
        });
        self.line_search_steps += found.trials();
        match found {
            Search::Accepted { merit, .. } => {
                self.psi = merit;
                true
            }
            Search::Failed(_) => false,
        }
    }

    /// After a step: the non-monotone memory and the watchdog, then the new error.
    fn finish_step(&mut self) -> StepResult {
        let ws = &mut *self.ws;
        if self.knobs.nonmonotone > 0 && !self.monotone {
            ws.memory.remember(self.psi);
            // Watchdog (Chamberlain et al. 1982): when 2·nonmonotone steps have not improved
            // the best merit, go back to the best iterate and continue monotone.
            match self.watchdog.observe(self.psi) {
                Watch::Improved => ws.best_z.copy_from_slice(&ws.z),
                Watch::Wait => {}
                Watch::Restore => {
                    ws.z.copy_from_slice(&ws.best_z);
                    self.p.f.eval(&ws.z, &mut ws.f);
                    fb_residual_lambda(self.p, self.knobs.lambda, &ws.z, &ws.f, &mut ws.phi);
                    self.psi = half_norm2(&ws.phi);
                    ws.memory.clear();
                    self.monotone = true;
                }
            }
        }
        StepResult::go(self.p.error(&ws.z, &ws.f))
    }

    /// Factorizes H and solves `H d = −Φ`; `false` if the LU broke down.
    fn newton_direction(&mut self) -> bool {
        self.factorizations += 1;
        let ws = &mut *self.ws;
        let n = ws.n;
        for i in 0..n {
            ws.d[i] = -ws.phi[i];
        }
        if ws.sjac.is_some() {
            if !sparse_factor_solve(ws) {
                return false;
            }
        } else {
            let mut h = ws.lu.matrix_mut();
            for j in 0..n {
                for i in 0..n {
                    h[(i, j)] = ws.db[i] * ws.jac[(i, j)];
                }
                h[(j, j)] += ws.da[j];
            }
            match ws.lu.factor() {
                Ok(p) if n == 0 || !p.singular(n as f64 * f64::EPSILON) => {}
                _ => return false,
            }
            ws.lu.solve_in_place(&mut ws.d);
        }
        all_finite(&ws.d)
    }
}

/// Builds the sparse H = diag(dᵃ) + diag(dᵇ) ∇F in CSC (diagonal always stored, so the
/// pattern is that of ∇F plus the diagonal), factorizes it with faer's sparse LU (symbolic
/// part reused while the pattern does not change) and solves for `ws.d` in place.
fn sparse_factor_solve(ws: &mut Workspace) -> bool {
    let n = ws.n;
    let s = ws.sjac.as_ref().expect("sparse Jacobian present");
    let csc_owned;
    let csc = if s.is_csc() {
        s
    } else {
        csc_owned = s.to_csc();
        &csc_owned
    };
    ws.col_ptr.clear();
    ws.row_idx.clear();
    ws.vals.clear();
    ws.col_ptr.push(0);
    for j in 0..n {
        let mut diag_done = false;
        if let Some(col) = csc.outer_view(j) {
            for (i, &v) in col.iter() {
                if !diag_done && i >= j {
                    if i == j {
                        ws.row_idx.push(j);
                        ws.vals.push(ws.da[j] + ws.db[j] * v);
                        diag_done = true;
                        continue;
                    }
                    ws.row_idx.push(j);
                    ws.vals.push(ws.da[j]);
                    diag_done = true;
                }
                ws.row_idx.push(i);
                ws.vals.push(ws.db[i] * v);
            }
        }
        if !diag_done {
            ws.row_idx.push(j);
            ws.vals.push(ws.da[j]);
        }
        ws.col_ptr.push(ws.row_idx.len());
    }
    ws.sparse.factor(n, &ws.col_ptr, &ws.row_idx, &ws.vals).is_ok()
        && ws.sparse.solve_in_place(&mut ws.d).is_ok()
}

impl IterativeMethod for Method<'_, '_> {
    fn initial_error(&mut self) -> Option<f64> {
        Some(self.initial_error)
    }

    fn counters(&self) -> Counters {
        Counters { pivots: 0, factorizations: self.factorizations, line_search_steps: self.line_search_steps }
    }

    fn last_step(&self) -> Option<f64> {
        self.last_t
    }

    fn step(&mut self) -> StepResult {
        self.last_t = None;
        if self.active_set && self.active_set_step() {
            self.jac_ready = false;
            return self.finish_step();
        }
        // ∇F, dᵃ, dᵇ and ∇Ψ at z are ready when a damped active-set step was tried.
        if !std::mem::take(&mut self.jac_ready) {
            if let Err(msg) = self.jacobian() {
                return self.fail(Status::NumericalFailure, msg);
            }
        }
        let n = self.ws.n;
        let newton_ok = self.newton_direction();
        let ws = &mut *self.ws;
        let mut gd = ws.grad.iter().zip(&ws.d).map(|(g, d)| g * d).sum::<f64>();
        let dnorm = ws.d.iter().map(|x| x * x).sum::<f64>().sqrt();
        if !newton_ok || !gd.is_finite() || gd > -self.knobs.rho * dnorm.powf(self.knobs.p) {
            self.gradient_steps += 1;
            for i in 0..n {
                ws.d[i] = -ws.grad[i];
            }
            gd = -ws.grad.iter().map(|x| x * x).sum::<f64>();
        }
        if gd == 0.0 {
            return self
                .fail(Status::Stalled, "∇Ψ = 0 at a non-solution: a stationary point of the merit".into());
        }
        // Armijo (GLL reference when non-monotone), the shared search of perp_core.
        let reference = ws.memory.reference(self.psi);
        let (p, lambda) = (self.p, self.knobs.lambda);
        let search = Backtracking {
            sigma: self.knobs.sigma,
            min_step: self.knobs.min_step,
            ..Backtracking::default()
        };
        let found = search.armijo(reference, gd, |t| {
            for i in 0..n {
                ws.zt[i] = ws.z[i] + t * ws.d[i];
            }
            p.f.eval(&ws.zt, &mut ws.ft);
            all_finite(&ws.ft).then(|| {
                fb_residual_lambda(p, lambda, &ws.zt, &ws.ft, &mut ws.phit);
                half_norm2(&ws.phit)
            })
        });
        self.line_search_steps += found.trials();
        match found {
            Search::Accepted { merit, step, .. } => (self.psi, self.last_t) = (merit, Some(step)),
            Search::Failed(f) => {
                let t = f.last_step;
                return if f.nonfinite {
                    self.fail(
                        Status::NumericalFailure,
                        format!("F was not finite at the trial points (step down to {t:.1e})"),
                    )
                } else {
                    self.fail(
                        Status::Stalled,
                        format!("line search failed: no decrease of the merit down to step {t:.1e}"),
                    )
                };
            }
        }
        std::mem::swap(&mut ws.z, &mut ws.zt);
        std::mem::swap(&mut ws.f, &mut ws.ft);
        std::mem::swap(&mut ws.phi, &mut ws.phit);
        self.finish_step()
    }
}

impl NcpSolver for FbNewton {
    fn name(&self) -> &str {
        NAME
    }

    /// The method of the module docs; when it ends `Stalled` or `MaxIterations`, the
    /// [`crate::proximal`] rescue (knob `proximal`).
    fn solve(&mut self, p: &Mcp<'_>, z0: &[f64], s: &Settings) -> Result<Solution, Error> {
        s.validate()?;
        self.validate()?;
        let knobs = self.proximal;
        let first = self.solve_plain(p, z0, &plain_settings(knobs, s))?;
        let sol = rescue(p, first, s, knobs, DEFAULT_MAX_ITER, &mut |pp, z, st| self.solve_plain(pp, z, st))?;
        refine_physics(p, sol, s, DEFAULT_MAX_ITER, &mut |pp, z, st| self.solve_plain(pp, z, st))
    }
}

impl FbNewton {
    /// One run of the method (no rescue); knobs and settings already validated.
    fn solve_plain(&mut self, p: &Mcp<'_>, z0: &[f64], s: &Settings) -> Result<Solution, Error> {
        let z = p.start(z0)?;
        let n = p.n();
        let mut ws = std::mem::take(&mut self.ws);
        ws.resize(n);
        ws.memory.reset(self.nonmonotone);
        ws.has_tried = false;
        ws.has_prev = false;
        ws.z.copy_from_slice(&z);
        p.f.eval(&ws.z, &mut ws.f);
        if let Err(e) = Error::check_finite("F(z0)", &ws.f) {
            self.ws = ws;
            return Err(e);
        }
        fb_residual_lambda(p, self.lambda, &ws.z, &ws.f, &mut ws.phi);
        let psi = half_norm2(&ws.phi);
        let initial_error = p.error(&ws.z, &ws.f);
        let mut m = Method {
            p,
            knobs: self,
            ws: &mut ws,
            psi,
            factorizations: 0,
            line_search_steps: 0,
            last_t: None,
            gradient_steps: 0,
            active_set_steps: (0, 0),
            jac_ready: false,
            active_set: self.active_set && (0..n).all(|i| p.kind(i) != BoundKind::Free),
            eager: true,
            error: None,
            message: None,
            initial_error,
            watchdog: Watchdog::new(2 * self.nonmonotone, psi),
            monotone: false,
        };
        m.ws.best_z.copy_from_slice(&z);
        let out = run(&mut m, s, DEFAULT_MAX_ITER);
        let (error, message, gs) = (m.error.take(), m.message.take(), m.gradient_steps);
        self.active_set_steps = m.active_set_steps;
        let z = ws.z.clone();
        self.ws = ws;
        self.gradient_steps = gs;
        if let Some(e) = error {
            return Err(e);
        }
        let mut report = SolveReport::new(NAME);
        out.record(&mut report);
        report.message = message;
        Ok(p.solution(z, report, s.tol))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fb::{fb_jacobian_diag, fb_residual};
    use crate::{AffineFunction, NcpFunction};
    use faer::MatMut;
    use perp_core::Matrix;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn lcp2() -> AffineFunction<'static> {
        AffineFunction::new(Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap(), vec![-5.0, -6.0])
            .unwrap()
    }

    fn tight() -> Settings {
        Settings { tol: 1e-12, record_history: true, ..Settings::default() }
    }

    #[test]
    fn one_newton_step_by_hand() {
        // LCP M = [[2,1],[1,2]], q = (−5,−6) from z = (1, 1): F = (−2, −3).
        // Row 0: a = 1, b = −2, r = √5: Φ₀ = √5 + 1, dᵃ = 1/√5 − 1, dᵇ = −2/√5 − 1.
        // Row 1: a = 1, b = −3, r = √10: Φ₁ = √10 + 2, dᵃ = 1/√10 − 1, dᵇ = −3/√10 − 1.
        let f = lcp2();
        let p = Mcp::ncp(&f);
        let (s5, s10) = (5f64.sqrt(), 10f64.sqrt());
        let (a0, b0, a1, b1) = (1.0 / s5 - 1.0, -2.0 / s5 - 1.0, 1.0 / s10 - 1.0, -3.0 / s10 - 1.0);
        let mut phi = [0.0; 2];
        fb_residual(&p, &[1.0, 1.0], &[-2.0, -3.0], &mut phi);
        assert!((phi[0] - (s5 + 1.0)).abs() < 1e-14 && (phi[1] - (s10 + 2.0)).abs() < 1e-14);
        let (mut da, mut db) = ([0.0; 2], [0.0; 2]);
        fb_jacobian_diag(&p, &[1.0, 1.0], &[-2.0, -3.0], &mut da, &mut db);
        assert!((da[0] - a0).abs() < 1e-15 && (db[1] - b1).abs() < 1e-15);
        // H = [[a0 + 2 b0, b0], [b1, a1 + 2 b1]]; d = −H⁻¹Φ by Cramer.
        let h = [[a0 + 2.0 * b0, b0], [b1, a1 + 2.0 * b1]];
        let det = h[0][0] * h[1][1] - h[0][1] * h[1][0];
        let d = [-(h[1][1] * phi[0] - h[0][1] * phi[1]) / det, -(-h[1][0] * phi[0] + h[0][0] * phi[1]) / det];
        // The full step decreases Ψ enough here, so one iteration lands at z + d.
        let zt = [1.0 + d[0], 1.0 + d[1]];
        let mut ft = [0.0; 2];
        f.eval(&zt, &mut ft);
        let mut pt = [0.0; 2];
        fb_residual(&p, &zt, &ft, &mut pt);
        let psi0 = 0.5 * (phi[0] * phi[0] + phi[1] * phi[1]);
        assert!(0.5 * (pt[0] * pt[0] + pt[1] * pt[1]) < psi0 * (1.0 - 2e-4));
        // The FB step itself: without the active-set step (which solves this LCP at once).
        let mut s = FbNewton { active_set: false, ..FbNewton::new() };
        let sol =
            s.solve(&p, &[1.0, 1.0], &Settings { tol: 0.0, max_iter: 1, ..Settings::default() }).unwrap();
        assert_eq!(
            (sol.report.iterations, sol.report.factorizations, sol.report.line_search_steps),
            (1, 1, 1)
        );
        assert!(
            (sol.z[0] - zt[0]).abs() < 1e-13 && (sol.z[1] - zt[1]).abs() < 1e-13,
            "{:?} vs {zt:?}",
            sol.z
        );
    }

    #[test]
    fn lcp_2x2_to_1e12_pinned() {
        let f = lcp2();
        let p = Mcp::ncp(&f);
        // The plain FB method (no active-set step): 6 Newton steps of the full H.
        let sol = FbNewton { active_set: false, ..FbNewton::new() }.solve(&p, &[0.0, 0.0], &tight()).unwrap();
        let r = &sol.report;
        assert_eq!(r.status, Status::Solved);
        assert!((sol.z[0] - 4.0 / 3.0).abs() < 1e-12 && (sol.z[1] - 7.0 / 3.0).abs() < 1e-12);
        assert!(r.error <= 1e-12);
        assert_eq!((r.iterations, r.factorizations, r.line_search_steps), (6, 6, 6), "{:?}", r.history);
        // With it (the default): at z = 0, y = −F = −q > 0 puts both rows in I, and the
        // reduced step solves M z = −q, the solution, in one step and one 2×2 LU.
        let sol = FbNewton::new().solve(&p, &[0.0, 0.0], &tight()).unwrap();
        let r = &sol.report;
        assert_eq!(r.status, Status::Solved);
        assert!((sol.z[0] - 4.0 / 3.0).abs() < 1e-14 && (sol.z[1] - 7.0 / 3.0).abs() < 1e-14);
        assert_eq!((r.iterations, r.factorizations, r.line_search_steps), (1, 1, 1), "{:?}", r.history);
    }

    #[test]
    fn box_mcp_and_free_row() {
        // Box-LCP: M = [[2,1],[1,2]], q = (−5,−6), 0 ≤ z ≤ 1: z = (1, 1) with F = (−2, −3) ≤ 0.
        let f = lcp2();
        let bx = Mcp::new(&f, vec![0.0, 0.0], vec![1.0, 1.0]).unwrap();
        let sol = FbNewton::new().solve(&bx, &[0.5, 0.5], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!((sol.z[0] - 1.0).abs() < 1e-12 && (sol.z[1] - 1.0).abs() < 1e-12);
        // 0 ≤ z ≤ 2 for row 0, z₁ ∈ [0, 3]: interior solution z = (4/3, 7/3).
        let bx2 = Mcp::new(&f, vec![0.0, 0.0], vec![2.0, 3.0]).unwrap();
        let sol = FbNewton::new().solve(&bx2, &[0.0, 0.0], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!((sol.z[0] - 4.0 / 3.0).abs() < 1e-12 && (sol.z[1] - 7.0 / 3.0).abs() < 1e-12);
        // Free row 0 with M = [[2,1],[1,2]], q = (−5, 6): z₁ ≥ 0 ⊥ z₀ + 2z₁ + 6 ≥ 0.
        // z₁ = 0 ⇒ z₀ = 2.5, F₁ = 8.5 > 0.
        let g = AffineFunction::new(
            Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap(),
            vec![-5.0, 6.0],
        )
        .unwrap();
        let fr = Mcp::new(&g, vec![f64::NEG_INFINITY, 0.0], vec![f64::INFINITY; 2]).unwrap();
        let sol = FbNewton::new().solve(&fr, &[0.0, 1.0], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!((sol.z[0] - 2.5).abs() < 1e-12 && sol.z[1].abs() < 1e-12, "{:?}", sol.z);
    }

    /// F(z) = (z₀² − 1 + z₁, z₀ + z₁² + 1): nondegenerate solution z* = (1, 0), F* = (0, 2).
    struct Quad;
    impl NcpFunction for Quad {
        fn dim(&self) -> usize {
            2
        }
        fn eval(&self, z: &[f64], f: &mut [f64]) {
            f[0] = z[0] * z[0] - 1.0 + z[1];
            f[1] = z[0] + z[1] * z[1] + 1.0;
        }
        fn jacobian(&self, z: &[f64], mut j: MatMut<'_, f64>) {
            j[(0, 0)] = 2.0 * z[0];
            j[(0, 1)] = 1.0;
            j[(1, 0)] = 1.0;
            j[(1, 1)] = 2.0 * z[1];
        }
    }

    #[test]
    fn local_quadratic_convergence() {
        let p = Mcp::ncp(&Quad);
        let sol = FbNewton::new().solve(&p, &[3.0, 2.0], &Settings { tol: 1e-14, ..tight() }).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!((sol.z[0] - 1.0).abs() < 1e-14 && sol.z[1].abs() < 1e-14);
        let h = &sol.report.history;
        // Once in the region of fast convergence, e_{k+1} ≤ C e_k².
        let mut checked = 0;
        for k in 0..h.len() - 1 {
            if h[k] < 1e-2 && h[k + 1] > 1e-15 {
                assert!(h[k + 1] / (h[k] * h[k]) < 10.0, "history {h:?}");
                checked += 1;
            }
        }
        assert!(checked >= 1, "history {h:?}");
    }

    /// The 2×2 LCP whose F turns NaN after `after` evaluations.
    struct NanAfter {
        inner: AffineFunction<'static>,
        after: usize,
        calls: AtomicUsize,
    }
    impl NcpFunction for NanAfter {
        fn dim(&self) -> usize {
            2
        }
        fn eval(&self, z: &[f64], f: &mut [f64]) {
            self.inner.eval(z, f);
            if self.calls.fetch_add(1, Ordering::SeqCst) >= self.after {
                f[1] = f64::NAN;
            }
        }
        fn jacobian(&self, z: &[f64], j: MatMut<'_, f64>) {
            self.inner.jacobian(z, j)
        }
    }

    #[test]
    fn nan_mid_solve_is_a_numerical_failure_with_a_finite_iterate() {
        let f = NanAfter { inner: lcp2(), after: 2, calls: AtomicUsize::new(0) };
        let p = Mcp::ncp(&f);
        let sol = FbNewton::new().solve(&p, &[0.0, 0.0], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::NumericalFailure);
        assert!(sol.z.iter().all(|x| x.is_finite()));
        // NaN at the start is an input error.
        let f = NanAfter { inner: lcp2(), after: 0, calls: AtomicUsize::new(0) };
        assert!(matches!(
            FbNewton::new().solve(&Mcp::ncp(&f), &[0.0, 0.0], &tight()),
            Err(Error::NonFinite { .. })
        ));
        // NaN in the Jacobian.
        struct NanJac;
        impl NcpFunction for NanJac {
            fn dim(&self) -> usize {
                1
            }
            fn eval(&self, z: &[f64], f: &mut [f64]) {
                f[0] = z[0] - 1.0;
            }
            fn jacobian(&self, _z: &[f64], mut j: MatMut<'_, f64>) {
                j[(0, 0)] = f64::NAN;
            }
        }
        let sol = FbNewton::new().solve(&Mcp::ncp(&NanJac), &[0.0], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::NumericalFailure);
        assert_eq!(sol.z, vec![0.0]);
    }

    /// F = (z₀ + z₁ − 3, (z₀ − 1)² − z₁): at z = (1, 0) row 1 is a kink with ∇F₁ = −e₁, so
    /// row 1 of H is exactly zero. Solutions (3, 0) and (2, 1).
    struct ZeroRow;
    impl NcpFunction for ZeroRow {
        fn dim(&self) -> usize {
            2
        }
        fn eval(&self, z: &[f64], f: &mut [f64]) {
            f[0] = z[0] + z[1] - 3.0;
            f[1] = (z[0] - 1.0) * (z[0] - 1.0) - z[1];
        }
        fn jacobian(&self, z: &[f64], mut j: MatMut<'_, f64>) {
            j[(0, 0)] = 1.0;
            j[(0, 1)] = 1.0;
            j[(1, 0)] = 2.0 * (z[0] - 1.0);
            j[(1, 1)] = -1.0;
        }
    }

    #[test]
    fn singular_newton_matrix_falls_back_to_gradient_and_converges() {
        let p = Mcp::ncp(&ZeroRow);
        let mut s = FbNewton::new();
        let sol = s.solve(&p, &[1.0, 0.0], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report);
        assert!(s.gradient_steps() >= 1);
        let z = &sol.z;
        let near = |a: f64, b: f64| (z[0] - a).abs() < 1e-10 && (z[1] - b).abs() < 1e-10;
        assert!(near(3.0, 0.0) || near(2.0, 1.0), "{z:?}");
    }

    #[test]
    fn dense_and_sparse_give_the_same_iterates() {
        let rows = [4.0, -1.0, 0.0, 0.5, -1.0, 4.0, -1.0, 0.0, 0.0, -1.0, 4.0, -1.0, 0.3, 0.0, -1.0, 4.0];
        let q = vec![-1.0, 2.0, -3.0, 0.5];
        let dense = AffineFunction::new(Matrix::from_row_major(4, 4, &rows).unwrap(), q.clone()).unwrap();
        let trip: Vec<_> = (0..16).filter(|k| rows[*k] != 0.0).map(|k| (k / 4, k % 4, rows[k])).collect();
        let sparse = AffineFunction::new(Matrix::from_triplets(4, 4, &trip).unwrap(), q).unwrap();
        // The FB steps only: the active-set step is taken for dense M alone.
        let mut s = FbNewton { active_set: false, ..FbNewton::new() };
        let a = s.solve(&Mcp::ncp(&dense), &[1.0; 4], &tight()).unwrap();
        // Reuse the same solver (its workspace) for the sparse run.
        let b = s.solve(&Mcp::ncp(&sparse), &[1.0; 4], &tight()).unwrap();
        assert_eq!(a.report.status, Status::Solved);
        assert_eq!(b.report.status, Status::Solved);
        assert_eq!(a.report.history.len(), b.report.history.len());
        for (x, y) in a.report.history.iter().zip(&b.report.history) {
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(1e-3),
                "{:?} vs {:?}",
                a.report.history,
                b.report.history
            );
        }
        for (x, y) in a.z.iter().zip(&b.z) {
            assert!((x - y).abs() < 1e-12);
        }
        assert_eq!(a.report.factorizations, b.report.factorizations);
    }

    #[test]
    fn wrong_shaped_sparse_jacobian_is_an_error() {
        struct Bad;
        impl NcpFunction for Bad {
            fn dim(&self) -> usize {
                2
            }
            fn eval(&self, z: &[f64], f: &mut [f64]) {
                f[0] = z[0] - 1.0;
                f[1] = z[1] - 1.0;
            }
            fn sparse_jacobian(&self, _z: &[f64]) -> Option<CsMat<f64>> {
                Some(CsMat::eye(3))
            }
        }
        let e = FbNewton::new().solve(&Mcp::ncp(&Bad), &[0.0, 0.0], &tight()).err().unwrap();
        assert!(e.to_string().contains("sparse_jacobian"), "{e}");
        assert!(matches!(e, Error::DimensionMismatch { expected: 2, found: 3, .. }));
    }

    #[test]
    fn knobs_are_validated_and_options_work() {
        let mut s = FbNewton { lambda: 0.0, ..FbNewton::new() };
        let f = lcp2();
        assert!(s.solve(&Mcp::ncp(&f), &[0.0, 0.0], &tight()).is_err());
        s.lambda = 0.8;
        s.nonmonotone = 5;
        let sol = s.solve(&Mcp::ncp(&f), &[0.0, 0.0], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!((sol.z[0] - 4.0 / 3.0).abs() < 1e-12 && (sol.z[1] - 7.0 / 3.0).abs() < 1e-12);
        assert!(FbNewton { p: 2.0, ..FbNewton::new() }.validate().is_err());
        assert!(FbNewton { sigma: 0.5, ..FbNewton::new() }.validate().is_err());
    }
}
