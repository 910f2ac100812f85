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
//!
//! This file holds the options and the [`NcpSolver`] impl; `workspace` the storage and the
//! run's state, `direction` the Newton direction, `active_set` the LCP active-set steps,
//! `step` the line search and the iteration, `params` the parameters' defaults, list and
//! constructor (`perp list`).

use crate::fb::{fb_jacobian_diag_lambda, fb_residual_lambda};
use crate::proximal::{plain_settings, refine_physics, rescue, Proximal};
use crate::{BoundKind, Mcp, NcpSolver};
use faer::Mat;
use perp_core::iteration::{run, Counters, IterativeMethod, OnStall, ProgressTest, Stall, StepResult};
use perp_core::line_search::{Backtracking, NonMonotone, Search};
use perp_core::linear::{DenseLu, SparseLu};
use perp_core::{Error, Matrix, Settings, Solution, SolveReport, Status};
use sprs::CsMat;

mod workspace;
use workspace::*;
mod active_set;
mod direction;
pub mod params;
mod step;

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
            lambda: params::LAMBDA,
            nonmonotone: params::NONMONOTONE,
            sigma: params::SIGMA,
            rho: params::RHO,
            p: params::P,
            min_step: params::MIN_STEP,
            active_set: true,
            proximal: Proximal::default(),
            ws: Workspace::default(),
            gradient_steps: 0,
            active_set_steps: (0, 0),
        }
    }
}

impl std::fmt::Debug for FbNewton {
    /// The knobs (not the workspace or the last solve's counts).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FbNewton")
            .field("lambda", &self.lambda)
            .field("nonmonotone", &self.nonmonotone)
            .field("sigma", &self.sigma)
            .field("rho", &self.rho)
            .field("p", &self.p)
            .field("min_step", &self.min_step)
            .field("active_set", &self.active_set)
            .field("proximal", &self.proximal)
            .finish_non_exhaustive()
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
