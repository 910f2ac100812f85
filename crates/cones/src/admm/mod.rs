//! `admm`: the alternating direction method of multipliers on the frictional contact problem.
//!
//! Formulation (Siconos' `fc3d_admm.c`, symmetric variant; compared with the other methods in
//! Acary, Brémond & Huber 2018, "On solving frictional contact problems: formulations and
//! comparisons of numerical methods"): with the De Saxcé shift `s_i = h_i(u_{i,T})` (μ‖u_T‖
//! for Coulomb) frozen at the current velocity, the problem is the convex program
//!
//! ```text
//!     min ½ rᵀ W r + q_sᵀ r   s.t.  r = z,  z ∈ K,        q_s = q + Σ_i s_i e_{N,i},
//! ```
//!
//! and one ADMM iteration in scaled form (Boyd et al. 2011, eq. 3.5–3.7) with penalty ρ is
//!
//! ```text
//!     r⁺ = (W + ρI)⁻¹ (−q_s + ρ (ẑ − ξ̂)),     z⁺ = P_K(r⁺ + ξ̂),     ξ⁺ = ξ̂ + r⁺ − z⁺,
//! ```
//!
//! then `s` is recomputed from the tangential part of `−ρξ⁺` ([`Shift::Multiplier`], the
//! default) or, as Siconos does, of `u = W r⁺ + q` ([`Shift::Velocity`]). At a fixed point
//! `r = z ∈ K` and `ũ = W r + q_s = −ρ ξ ∈ K*` with `ξ ∈ N_K(z)`, `ξ ⊥ z`, and the two
//! tangential parts agree: r solves the Coulomb problem in De Saxcé's form (not the
//! associated law), since `ũ_i = u_i + h_i(u_{i,T}) e_N` exactly.
//! Any [`Cone`] works: the method needs only its projection and its maximal dissipation.
//!
//! Where the law is rolling ([`FirstRescale`]), ρ is rescaled once after the first iteration
//! by the ratio of the scaled residuals, `ρ ← ρ √(r̂/ŝ)` (OSQP's adaptive ρ: Stellato, Banjac,
//! Goulart, Bemporad & Boyd 2020, "OSQP: an operator splitting solver for quadratic programs",
//! Math. Prog. Comput. 12, §5.2), then adapted as below.
//!
//! Options, as Siconos: Nesterov acceleration with restart (Goldstein, O'Donoghue, Setzer &
//! Baraniuk 2014, "Fast alternating direction optimization methods", SIAM J. Imaging Sci. 7(3),
//! §4.3, fast ADMM with restart: accelerate
//! while the combined residual `‖r − z‖² + ρ²‖ẑ − z‖²` falls by η, else restart from the
//! previous iterate), and the penalty adapted by (scaled) residual balancing (Boyd et al. 2011
//! §3.4.1, eq. 3.13; Siconos' `SCALED_RESIDUAL_BALANCING`): ρ ×τ when the primal residual
//! exceeds φ× the dual one, ÷τ in the opposite case.
//!
//! `W + ρI` is factorized through [`perp_core::linear`]: Cholesky (dense or sparse by W's
//! fill, as the Newton methods choose) when W is symmetric, LU otherwise or when Cholesky
//! breaks down; it is refactorized only when ρ changes. The reported error is perp's (Siconos'
//! fc3d error) at the returned `r`, computed every iteration from `u = W r + q`, which the
//! next iteration's shift needs anyway.
//!
//! Warm start: `z = P_K(r₀)`, `ξ = −ũ(r₀)/ρ` (the multiplier a solution would have), so that
//! a solution is a fixed point of the first iteration. Prepared solves keep W's CSR copy, the
//! cone objects, the dense factor's storage and the iteration vectors; a dense Coulomb
//! problem of the same structure is solved without allocating (the sparse path rebuilds its
//! pattern, and faer's sparse Cholesky allocates its numeric factor).

use crate::cone::Cone;
use crate::delassus::Blocks;
use crate::problem::{
    message_buffer, opaque_workspace, prepare_first_order, prepared_solver, reset_report, ConeCache,
    FrictionContactProblem, FrictionSolutionMut, Job,
};
use perp_core::iteration::{self, Counters};
use perp_core::linear::{DenseCholesky, DenseLu, SparseCholesky, SparseLu};
use perp_core::{Error, IterativeMethod, Status, StepResult};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

mod linear;
mod method;
pub mod params;

use linear::Linear;
pub use method::Workspace;
use method::{Method, DIVERGED};

/// How ADMM adapts its penalty ρ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RhoStrategy {
    /// ρ stays ρ₀ (Siconos' default).
    Constant,
    /// Residual balancing on the residuals scaled by their iterates (Boyd et al. 2011 §3.4.1;
    /// Siconos' `SCALED_RESIDUAL_BALANCING`).
    Balancing,
}

/// Where [`Admm`] takes the De Saxcé shift `s_i = h_i(v_{i,T})` from at each iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shift {
    /// `v = −ρξ`, the modified velocity the scaled multiplier stands for (the default). At a
    /// fixed point `W r + q_s = −ρξ`, and its tangential part is `u_T`, so the fixed points are
    /// those of [`Shift::Velocity`]. Before one, a contact whose `r + ξ̂` lies inside its cone
    /// has `ξ = 0` and no shift, where `u_T` of the iterate is not yet 0: at a large μ the
    /// velocity's shift `μ‖u_T‖` pushes a sticking contact off its cone and the iterates creep
    /// (W = I, q = (−1, 2, 0): 20 000 iterations unsolved at μ = 1e3, Siconos' ADMM 6 543;
    /// from the multiplier 27, and 34 at μ = 1e6).
    Multiplier,
    /// `v = u = W r + q` at the current iterate (Siconos' `fc3d_admm.c`).
    Velocity,
}

/// When [`Admm`] rescales ρ after its first iteration (with [`RhoStrategy::Balancing`] only):
/// `ρ ← ρ √(r̂/ŝ)`, r̂ and ŝ the scaled primal and dual residuals (OSQP's rule, Stellato et al.
/// 2020 §5.2), when one exceeds the other φ times. A rolling contact's W mixes forces and
/// moments: on `rfc3d_sphere_from_grfc3d` its diagonal runs from 367 (normal) to 9.2e6
/// (rolling), ρ₀ from the mean diagonal is 3.7e6 and halving it every 20 iterations took 210
/// iterations at 1e-6; the one rescale takes ρ to 3.7e-2 and 4 iterations (Siconos' rolling
/// ADMM, with its constant ρ = 1: 4). Measured with `perp bench ../shared/suites/siconos/{fc3d,
/// fc2d,rfc} --solvers admm` at 1e-6 and 1e-8: on the five rolling files 565 → 343 and 738 →
/// 437 iterations, no file worse; on the Coulomb files it wins on four (BoxesStack1 299 → 15)
/// and loses on three (FrictionContactProblem00031 23 → 869, Confeti-ex13 53 → 689, Box_Stacks
/// 55 → 83), so Coulomb keeps the slow adaptation alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstRescale {
    /// Never.
    Never,
    /// When some contact's law is [`ConeSpec::Rolling`](crate::ConeSpec::Rolling) (the default).
    Rolling,
    /// Always.
    Always,
}

/// ADMM. Defaults: ρ₀ = 1 × the mean diagonal entry of W, rescaled once after the first
/// iteration where the law is rolling ([`FirstRescale`]), residual balancing with τ = 2,
/// φ = 3 reconsidered every 20 iterations, acceleration with restart (η = 0.999), 20 000
/// iterations. Measured on the Siconos fc3d files at tol 1e-6 (iterations summed over the ten
/// files that need more than 40): balancing at every iteration with φ = 10 took 8 100, a
/// constant ρ failed two files (OneObject-i1028, BoxesStack1), φ = 3 every 20 took 4 100.
/// The shift from the multiplier ([`Shift`]): on the 29 Siconos fc2d/fc3d files and the 6
/// generated ones, 13 501 iterations in all at 1e-6 instead of 17 053 from the velocity
/// (26 179 instead of 34 150 at 1e-8), every file solved either way.
#[derive(Clone, Debug)]
pub struct Admm {
    /// ρ₀ relative to the mean diagonal entry of W (> 0).
    pub rho0: f64,
    /// The adaptation of ρ.
    pub strategy: RhoStrategy,
    /// Factor by which ρ changes (> 1).
    pub tau: f64,
    /// Imbalance between the scaled residuals that triggers a change (> 1).
    pub phi: f64,
    /// ρ is reconsidered every this many iterations (≥ 1); each change costs a factorization.
    pub adapt_every: usize,
    /// Nesterov acceleration with restart.
    pub acceleration: bool,
    /// Restart threshold η ∈ (0, 1]: accelerate while the residual falls below η × the last.
    pub eta: f64,
    /// Where the De Saxcé shift is taken from.
    pub shift: Shift,
    /// When ρ is rescaled by the residuals' ratio after the first iteration.
    pub first_rescale: FirstRescale,
    /// What is kept between calls to [`FrictionSolver::solve_into`].
    pub workspace: Workspace,
}

impl Default for Admm {
    fn default() -> Self {
        Admm {
            rho0: params::RHO0,
            strategy: params::STRATEGY,
            tau: params::TAU,
            phi: params::PHI,
            adapt_every: params::ADAPT_EVERY,
            acceleration: params::ACCELERATION,
            eta: params::ETA,
            shift: params::SHIFT,
            first_rescale: params::FIRST_RESCALE,
            workspace: Workspace::default(),
        }
    }
}

impl Admm {
    /// The default ADMM.
    pub fn new() -> Self {
        Self::default()
    }

    fn validate(&self) -> Result<(), Error> {
        Error::require(
            self.rho0 > 0.0 && self.rho0.is_finite(),
            "rho0",
            self.rho0,
            "must be finite and > 0",
        )?;
        Error::require(self.tau > 1.0 && self.tau.is_finite(), "tau", self.tau, "must be finite and > 1")?;
        Error::require(self.phi > 1.0 && self.phi.is_finite(), "phi", self.phi, "must be finite and > 1")?;
        Error::require(self.adapt_every > 0, "adapt_every", 0, "must be ≥ 1")?;
        Error::require(self.eta > 0.0 && self.eta <= 1.0, "eta", self.eta, "must lie in (0, 1]")?;
        Ok(())
    }
}

/// Default iteration limit (Siconos' for ADMM).
const DEFAULT_MAX_ITER: usize = 20_000;

/// ρ stays within `[RHO_RANGE⁻¹, RHO_RANGE] · ρ₀`.
const RHO_RANGE: f64 = 1e8;

/// W is treated as symmetric when `|W_ij − W_ji| ≤ SYMMETRY_TOL · max|W|` everywhere.
const SYMMETRY_TOL: f64 = 1e-10;

/// `out_i = P_{K_i}(x_i)` for every contact.
pub(crate) fn project_all(cones: &[Arc<dyn Cone>], mu: &[f64], d: usize, x: &[f64], out: &mut [f64]) {
    for (i, cone) in cones.iter().enumerate() {
        let s = d * i..d * (i + 1);
        cone.project(mu[i], &x[s.clone()], &mut out[s]);
    }
}

/// `qs = q + Σ_i h_i(u_{i,T}) e_{N,i}`: the free velocity with De Saxcé's shift of `u`
/// (`μ‖u_T‖` for Coulomb, the law's maximal dissipation otherwise).
pub(crate) fn shifted_q(
    p: &FrictionContactProblem,
    cones: &[Arc<dyn Cone>],
    coulomb: bool,
    u: &[f64],
    qs: &mut [f64],
) {
    let d = p.dim;
    qs.copy_from_slice(&p.q);
    let mut t = [0.0; crate::cone::MAX_DIM];
    for i in 0..p.contacts() {
        let ut = &u[d * i + 1..d * (i + 1)];
        let h = if coulomb {
            p.mu[i] * ut.iter().map(|v| v * v).sum::<f64>().sqrt()
        } else {
            cones[i].support(p.mu[i], ut, &mut t[..d - 1])
        };
        qs[d * i] += h;
    }
}

/// Euclidean norm.
pub(crate) fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

prepared_solver!(
    Admm, "admm",
    workspace: Workspace, max_iter: DEFAULT_MAX_ITER, solve: Admm::solve_with
);

impl Admm {
    /// One round of a solve in `ws` (see [`crate::problem::Prepares::solve_in`]).
    fn solve_with(&self, ws: &mut Workspace, job: Job<'_>) -> Result<(), Error> {
        let start = Instant::now();
        let mut job = job;
        let blocks =
            prepare_first_order(&mut job, || self.validate(), &mut ws.cones, &mut ws.blocks, &mut ws.vecs)?;
        let Job { p, warm, out: FrictionSolutionMut { r, u, report }, s } = job;
        let n = p.size();
        let dense = !p.w.is_sparse() && (blocks.csr.nnz() as f64) >= 0.3 * (n * n) as f64;
        ws.linear.setup(blocks, dense);
        let mean_diag =
            (0..n).map(|i| blocks.diag(i / p.dim)[(i % p.dim) * (p.dim + 1)]).sum::<f64>() / n.max(1) as f64;
        let scale = if mean_diag > 0.0 && mean_diag.is_finite() { mean_diag } else { 1.0 };
        let rho = self.rho0 * scale;
        let cones = &ws.cones.cones;
        // The warm start leaves r as it is.
        let force = (norm(&p.q) / scale).max(if warm { norm(r) } else { 0.0 });
        let r_bound = if force > 0.0 { DIVERGED * force } else { f64::INFINITY };
        let mut m = Method {
            opts: self,
            p,
            blocks,
            cones,
            coulomb: p.is_coulomb(),
            linear: &mut ws.linear,
            r,
            u,
            v: &mut ws.vecs,
            rho,
            rho_lo: rho / RHO_RANGE,
            rho_hi: rho * RHO_RANGE,
            refactor: true,
            tau_k: 1.0,
            e_k: f64::INFINITY,
            rho_changes: 0,
            restarts: 0,
            steps: 0,
            first_rescale: self.first_rescale_on(p),
            r_bound,
            diverged: false,
        };
        if warm {
            m.warm_start();
        }
        let out =
            iteration::run_with(&mut m, s, DEFAULT_MAX_ITER, start, std::mem::take(&mut report.history));
        reset_report(report, "admm");
        out.record(report);
        m.describe(message_buffer(report), rho);
        let Method { r, u, .. } = m;
        p.solution_with(cones, r, u, report, s.tol);
        Ok(())
    }

    /// Whether ρ is rescaled after the first iteration on `p` ([`FirstRescale`]; `Rolling`:
    /// when `p` has a rolling cone).
    fn first_rescale_on(&self, p: &FrictionContactProblem) -> bool {
        match self.first_rescale {
            FirstRescale::Never => false,
            FirstRescale::Always => true,
            FirstRescale::Rolling => p
                .cones
                .as_ref()
                .is_some_and(|c| c.iter().any(|c| matches!(c, crate::ConeSpec::Rolling { .. }))),
        }
    }
}

impl Method<'_> {
    /// The warm start at the given r₀: u = W r₀ + q, z = P_K(r₀), ξ = −ũ(r₀)/ρ (0 on the
    /// contacts without force that penetrate, with [`Shift::Multiplier`]); the extrapolated
    /// and the previous iterates start there too.
    fn warm_start(&mut self) {
        let (p, n, rho) = (self.p, self.p.size(), self.rho);
        // z = P_K(r₀), ξ = −ũ(r₀)/ρ.
        self.blocks.velocity(self.r, &p.q, self.u);
        let [z, z_hat, z_k, xi, xi_hat, xi_k, qs, tmp, _] = &mut *self.v;
        project_all(self.cones, &p.mu, p.dim, self.r, z);
        shifted_q(p, self.cones, self.coulomb, self.u, qs);
        self.blocks.mul(self.r, tmp);
        for k in 0..n {
            xi[k] = -(tmp[k] + qs[k]) / rho;
        }
        if self.opts.shift == Shift::Multiplier {
            // A contact without force that penetrates at r₀ is not at its solution, and its
            // multiplier (a take-off's) is wrong: it starts at 0, as in a cold start, rather
            // than bring the shift μ‖u_T‖ of a velocity the solution does not have (at
            // μ = 1e8 on W = I that shift holds the iterates at r ≈ 0 for 20 000 iterations).
            // Contacts with a force keep theirs.
            let scale = norm(&p.q).max(norm(self.u));
            for (c, xc) in xi.chunks_mut(p.dim).enumerate() {
                if self.r[c * p.dim] <= 0.0 && self.u[c * p.dim] < -1e-12 * scale {
                    xc.fill(0.0);
                }
            }
        }
        z_hat.copy_from_slice(z);
        z_k.copy_from_slice(z);
        xi_hat.copy_from_slice(xi);
        xi_k.copy_from_slice(xi);
    }

    /// Appends to `msg` what the run did: the storage and factorization of its linear
    /// systems, ρ from `rho` to its last value, its changes and restarts, and where the
    /// iterates diverged if they did.
    fn describe(&self, msg: &mut String, rho: f64) {
        let (rho_end, changes, restarts) = (self.rho, self.rho_changes, self.restarts);
        let (bound, steps) = (self.r_bound, self.steps);
        let storage = if self.linear.dense { "dense" } else { "sparse" };
        let _ = write!(
            msg,
            "{storage} {}; ρ {rho:.3e} → {rho_end:.3e} ({changes} changes), {restarts} restarts",
            if self.linear.lu_mode { "LU" } else { "Cholesky" }
        );
        if self.diverged {
            let _ = write!(
                msg,
                "; diverged: ‖r‖ passed {bound:.1e} ({DIVERGED:.0e} times the problem's force scale) at iteration {steps}"
            );
        }
    }
}
