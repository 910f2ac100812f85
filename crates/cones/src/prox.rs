//! `prox`: a proximal-point outer loop around the Alart–Curnier Newton method.
//!
//! Proximal point on the frictional contact problem: with centre `r_k` and σ > 0, solve
//!
//! ```text
//!     u_σ = (W + σI) r + q − σ r_k,        K ∋ r ⊥ ũ_σ ∈ K*,
//! ```
//!
//! whose operator `W + σI` is positive definite even when W is singular (many contacts per
//! body, as in box stacks), then move the centre to the answer. The inner problem is solved by
//! the same semismooth Newton as `ac-newton` (the sparse pattern and symbolic LU are shared by
//! all inner problems): a few iterations until ‖Φ_σ‖ drops by 100, then the centre moves and σ
//! adapts — divided by ν after a quick inner solve, multiplied after a slow one, within
//! `[10⁻¹², 10⁸] · max diag W`. At a fixed point `r = r_k`, so `u_σ = u` and r solves the
//! original problem; the loop stops on the original problem's error. Acary, Brémond & Huber
//! (2018) found this outer loop the most robust of the Siconos solvers at tight tolerances on
//! rigid-body problems.
//!
//! Prepared solves ([`FrictionSolver::solve_into`]) keep the inner Newton method's workspace
//! between calls, as `ac-newton` does (see [`crate::newton`]).
//!
//! The Alart–Curnier parameters of the inner function are those of the inner operator,
//! `ρ_N = 1/(W_ii[N,N] + σ)` and `ρ_T = 1/(mean diag W_ii[T,T] + σ)`, recomputed when σ
//! changes. With the ρ's of W alone, `ρ (W_ii + σ)` grows with σ, the inner function is badly
//! scaled and its undamped Newton iteration falls into 2-cycles (measured on `ball-pile 20`:
//! ‖Φ_σ‖ alternating between 0.23 and 0.27 at σ = max diag W; σ then grew ×100 after every
//! inner failure up to 10⁴⁰, and 162 of 193 solves failed).

use crate::newton::{run, ProxParams, SemismoothNewton, Workspace, PROX_DEFAULTS, PROX_MAX_ITER};
use crate::problem::{prepared_solver, Job};
use perp_core::Error;

pub mod params;

/// Proximal-point method; defaults σ₀ = 1·max diag W, ν = 100, 10 inner iterations, at most
/// 1 000 Newton iterations in all (`settings.max_iter` = 0), inner
/// method Alart–Curnier Newton (with its regularised Newton matrix, see [`crate::newton`])
/// taking full steps. Measured: an Armijo search in the inner loop doubles prox's iterations
/// on the Siconos Capsules files and did not reduce the failures on the scene suites.
#[derive(Clone, Debug)]
pub struct Prox {
    /// σ₀ relative to the largest diagonal entry of W.
    pub sigma0: f64,
    /// Adaptation factor of σ (> 1).
    pub nu: f64,
    /// Inner iterations before the centre moves anyway.
    pub inner_max: usize,
    /// The inner Newton method (function, sparse/dense choice, ρ scale, regularisation).
    pub inner: SemismoothNewton,
    /// What is kept between calls to [`FrictionSolver::solve_into`]: the inner Newton
    /// method's workspace.
    pub workspace: Workspace,
}

impl Default for Prox {
    fn default() -> Self {
        let mut inner = SemismoothNewton::alart_curnier();
        inner.line_search = params::INNER_LINE_SEARCH;
        let ProxParams { sigma0, nu, inner_max } = PROX_DEFAULTS;
        Prox { sigma0, nu, inner_max, inner, workspace: Workspace::default() }
    }
}

impl Prox {
    /// The default proximal-point solver.
    pub fn new() -> Self {
        Self::default()
    }
}

prepared_solver!(
    Prox, "prox",
    workspace: Workspace, max_iter: PROX_MAX_ITER, solve: Prox::solve_with, check validate
);

impl Prox {
    /// Validates the options (`solve_into` calls it once, before the rounds).
    fn validate(&self) -> Result<(), Error> {
        Error::require(
            self.sigma0 > 0.0 && self.sigma0.is_finite(),
            "sigma0",
            self.sigma0,
            "must be finite and > 0",
        )?;
        Error::require(self.nu > 1.0 && self.nu.is_finite(), "nu", self.nu, "must be finite and > 1")?;
        Error::require(self.inner_max > 0, "inner_max", 0, "must be ≥ 1")?;
        Ok(())
    }

    /// One round of a solve in `ws` (see [`crate::problem::Prepares::solve_in`]): the Newton loop in prox's mode.
    fn solve_with(&self, ws: &mut Workspace, job: Job<'_>) -> Result<(), Error> {
        let params = ProxParams { sigma0: self.sigma0, nu: self.nu, inner_max: self.inner_max };
        run(&self.inner, ws, Some(params), job)
    }
}
