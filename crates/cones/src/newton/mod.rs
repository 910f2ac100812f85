//! `ac-newton` and `fb-newton`: semismooth Newton methods on the whole problem.
//!
//! With `u = W r + q`, stack one complementarity function per contact, `Φ(r)_i = φ(r_i, u_i)`:
//!
//! * **Alart–Curnier** (`ac-newton`; Alart & Curnier 1991):
//!   `φ_N = r_N − max(0, r_N − ρ_N u_N)`, `φ_T = r_T − P_{S(ξ)}(r_T − ρ_T u_T)`,
//!   `ξ = max(0, r_N − ρ_N u_N)`, with `ρ_N = 1/W_ii[N,N]`, `ρ_T = 1/mean(diag W_ii[T,T])`;
//! * **Fischer–Burmeister** (`fb-newton`): the Jordan-algebra FB function of the Lorentz cone
//!   applied to the De Saxcé pair (Fukushima–Luo–Tseng 2001; see [`crate::jordan`]),
//!   for ellipsoidal cones; with direct linear solves the pair is `(r, û/w̄)`, w̄ the mean
//!   diagonal entry of W (`Method::u_scale`).
//!
//! Each iteration solves a linear system for the direction Δ: a sparse LU (faer, symbolic part
//! computed once on the block pattern of W) when W is sparse, a dense LU otherwise. Large
//! sparse systems whose LU is predicted costly ([`LinearSolver`]) are solved instead by
//! BiCGSTAB with a block-Jacobi preconditioner to a relative residual η_k, the forcing term of
//! the inexact Newton method of Dembo, Eisenstat & Steihaug (1982), chosen by Eisenstat &
//! Walker (1996, choice 2): `η_k = γ (‖Φ_k‖/‖Φ_{k−1}‖)^α`, γ = 0.9, α = 2, within
//! `[10⁻¹⁰, 0.1]`; this keeps the local superlinear convergence of the exact method. Then a
//! backtracking Armijo search on `½‖Φ‖²` with a non-monotone reference (the max of the last 5
//! values) picks the step. The loop stops on the problem's own error measure
//! (`FrictionContactProblem::error`), never on `‖Φ‖`.
//!
//! **Regularised Newton matrix.** The generalised Jacobian is `J = D_r + D_u W` (block-diagonal
//! `D_r, D_u` from the cone's generalised Jacobians). When W is singular — a box on four
//! corners, a ball on four supports: many contacts per body, the rule in simulations — J is
//! singular at every sticking configuration (the rows of a sticking contact are `ρ W`). An LU
//! still returns a direction, but its component in the null space of W (self-equilibrated
//! contact forces, which leave u unchanged) is rounding noise amplified by `1/pivot`: such
//! steps flip contacts between open, sticking and sliding at random and the line search cuts
//! them to nothing (measured on the `ball-pile 20` scene: 182 of 193 solves failed, with
//! directions up to `‖Δ‖ ≈ 10⁴ ‖r‖`). The direction therefore solves
//!
//! ```text
//!     (D_r + D_u (W + σ_k I)) Δ = −Φ(r_k),        σ_k = c · w̄ · min(1, e_k),
//! ```
//!
//! the Newton system of the proximal subproblem centred at `r_k` (operator `W + σ_k I`,
//! positive definite), with `w̄` the mean diagonal entry of W (on rolling contacts, one mean
//! for the sliding rows and one for the rolling rows, whose units differ: σ_k is then one
//! shift per row), `e_k` the current error and
//! `c` = [`SemismoothNewton::regularization`]. Where all contacts stick this is
//! `Δ = −(W + σ_k I)⁻¹ u`, along which `‖Φ‖²` does not increase to first order since W is
//! positive semi-definite. Φ itself is not changed, and the shift vanishes with the error, so
//! the fast local convergence is kept: this is the proximal-regularised Newton method of Li,
//! Fukushima, Qi & Yamashita (2004), whose shift `μ_k = c‖∇f(x_k)‖` gives quadratic
//! convergence to non-isolated solutions under a local error bound.
//!
//! A J that is singular even so is regularised further (`J + εI`, ε growing).
//!
//! **Prepared solves** ([`FrictionSolver::solve_into`]): W's CSR copy and diagonal blocks,
//! the cone objects (and their Lorentz-cone maps for FB), the iteration vectors and the
//! dense Newton matrix with its LU storage (factorised in place by faer's `lu_in_place` on a
//! scratch buffer sized once) are kept between calls; a call on a problem of the same
//! structure refreshes the values only. With a dense Newton matrix it allocates nothing
//! (Coulomb laws; a custom law's own FB function may allocate). The sparse path keeps the
//! Newton matrix's pattern and symbolic LU while W's pattern is unchanged, but faer's sparse
//! numeric LU may still allocate: the zero-allocation promise is for the dense case.

use crate::problem::{prepared_solver, Job};
use perp_core::Error;

mod dense;
mod direction;
mod functions;
mod method;
pub mod params;
mod prox_mode;
mod sparse;
mod step;
#[cfg(test)]
mod tests;
mod workspace;

pub(crate) use method::run;
pub(crate) use prox_mode::ProxParams;
pub use workspace::Workspace;

/// The complementarity function a [`SemismoothNewton`] works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewtonFunction {
    /// Alart–Curnier (any cone with a section projection).
    AlartCurnier,
    /// Fischer–Burmeister on the De Saxcé pair (cones with a [`crate::SocMap`]).
    FischerBurmeister,
    /// The natural map `r − P_K(r − ρ ũ)`, ρ per contact as for Alart–Curnier's ρ_N.
    NaturalMap,
}

/// How the sparse Newton systems are solved (the dense ones always by LU).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LinearSolver {
    /// The direct LU below [`AUTO_MIN_N`] unknowns or [`AUTO_MAX_FLOPS`] predicted flops, the
    /// iterative solver above; and the iterative one instead of a factorization predicted to
    /// end after the time limit.
    #[default]
    Auto,
    /// Always the sparse LU (a factorization predicted to end after the time limit is not
    /// started: the solve stops with `TimeLimit` and its best iterate).
    Direct,
    /// Always BiCGSTAB with the block-Jacobi preconditioner, to the forcing term of the
    /// inexact Newton method.
    Iterative,
}

/// Up to this many unknowns the Newton systems are dense whatever W's storage (unless
/// `sparse` says otherwise): there the sparse LU's analysis and dispatch cost more than the
/// dense arithmetic, and the dense direction solves only for the contacts not taking off;
/// above it the dense LU loses (measured on the Siconos files and generated problems:
/// `docs/performance.md`, "Frictional contact").
pub const DENSE_MAX_N: usize = 128;

/// [`DENSE_MAX_N`] for the Fischer–Burmeister function, whose contacts taking off keep whole
/// rows of J (no reduced direction), so that its dense LU is of all n unknowns: dense wins
/// up to about this size on generated problems (`docs/performance.md`, "Frictional contact").
pub const DENSE_MAX_N_FB: usize = 96;

/// Below this many unknowns the sparse Newton systems are always factorized (the automatic
/// choice never changes small problems).
pub const AUTO_MIN_N: usize = 3000;
/// Predicted flops of a sparse LU (from its symbolic analysis) above which the automatic
/// choice is the iterative solver.
pub const AUTO_MAX_FLOPS: f64 = 2e9;
/// Flops per second assumed when predicting whether a factorization ends before the time
/// limit (a low figure for one loaded core: a prediction errs towards not starting).
pub const FLOP_RATE: f64 = 1e9;

/// Semismooth Newton with line search; see the module documentation.
#[derive(Clone, Debug)]
pub struct SemismoothNewton {
    /// The function Φ is built from.
    pub function: NewtonFunction,
    /// `Some(true)` forces the sparse LU, `Some(false)` the dense one; `None` picks sparse when
    /// there are more than [`DENSE_MAX_N`] unknowns ([`DENSE_MAX_N_FB`] for Fischer–Burmeister)
    /// and W is stored sparse or has fewer than 30 % nonzeros.
    pub sparse: Option<bool>,
    /// Scale of all ρ's (1 = the diagonal-based choice above).
    pub rho_scale: f64,
    /// Armijo backtracking on ½‖Φ‖² (default). Without it every finite full step is taken:
    /// `prox` does so for its inner problems, which the proximal term keeps well posed.
    pub line_search: bool,
    /// `c` of the regularised Newton matrix `D_r + D_u (W + σ_k I)`, `σ_k = c w̄ min(1, e_k)`
    /// (module documentation); default [`REGULARIZATION`], 0 turns it off (the plain
    /// generalised Jacobian). Must be finite and ≥ 0.
    pub regularization: f64,
    /// Direct or iterative solves of the sparse Newton systems (default: by size and predicted
    /// fill, [`LinearSolver::Auto`]).
    pub linear: LinearSolver,
    /// Stagnation rule ([`STALL_ITERATIONS`] by default; 0 = never): after this many
    /// iterations without halving the best error, or at once when the line search finds no
    /// decrease, the method goes on in proximal-point mode from its best iterate (`prox`'s
    /// defaults: Φ at `u + σ(r − r_ref)` with full steps, the centre moving as in
    /// [`crate::Prox`]). Not used by `prox` itself.
    pub stall_iterations: usize,
    name: &'static str,
    workspace: Workspace,
}

/// Default `c` of [`SemismoothNewton::regularization`]. Measured on the scene suites
/// (`ball-pile 20, 40, 60, 100` and `box-stack 3, 6, 12, 20`, about 1560 solves) and the
/// Siconos fc files: with c from 0.003 to 0.1 `ac-newton` fails 2 to 6 scene solves (1525
/// without regularisation) and none of the Siconos files (5 without); 0.01 needed the fewest
/// iterations, and 0.1 makes `fb-newton` fail `BoxesStack1`.
pub const REGULARIZATION: f64 = 0.01;

/// Default [`SemismoothNewton::stall_iterations`]. The Alart–Curnier merit ½‖Φ‖² has local
/// minima that are not solutions, where the Newton iteration stalls or cycles: 5 of 160
/// generated problems (`examples/gen_fc 3 {12,24,36,48,64} 9..40`) and `gen_fc 3 36 1`
/// ended with errors of 10⁻⁴ to 10⁻² at the iteration limit (or stalled with 3 000
/// iterations allowed), which `prox` solves in 9 to 36 iterations. Siconos offers hybrid
/// strategies for NSN_AC for the same reason (`SICONOS_FRICTION_3D_NSN_HYBRID_STRATEGY`);
/// its own full Newton step on a failed line search did not help here.
pub const STALL_ITERATIONS: usize = 20;

/// `prox`'s defaults (σ₀ = max diag W, ν = 100, 10 inner iterations per centre), also those
/// of a Newton method gone proximal on stagnation.
pub(crate) const PROX_DEFAULTS: ProxParams = {
    use crate::prox::params::{INNER_MAX, NU, SIGMA0};
    ProxParams { sigma0: SIGMA0, nu: NU, inner_max: INNER_MAX }
};

impl SemismoothNewton {
    fn with(function: NewtonFunction, name: &'static str) -> Self {
        SemismoothNewton {
            function,
            sparse: params::SPARSE,
            rho_scale: params::RHO_SCALE,
            line_search: params::LINE_SEARCH,
            regularization: REGULARIZATION,
            linear: params::LINEAR,
            stall_iterations: STALL_ITERATIONS,
            name,
            workspace: Workspace::default(),
        }
    }

    /// `ac-newton`.
    pub fn alart_curnier() -> Self {
        Self::with(NewtonFunction::AlartCurnier, "ac-newton")
    }

    /// `fb-newton`.
    pub fn fischer_burmeister() -> Self {
        Self::with(NewtonFunction::FischerBurmeister, "fb-newton")
    }

    /// Newton on the natural map (`nm-newton`).
    pub fn natural_map() -> Self {
        Self::with(NewtonFunction::NaturalMap, "nm-newton")
    }

    /// Refuses a ρ scale that is not finite and positive, or a regularisation that is not
    /// finite and non-negative.
    fn check(&self) -> Result<(), Error> {
        if !(self.rho_scale > 0.0 && self.rho_scale.is_finite()) {
            return Err(Error::setting("rho_scale", self.rho_scale, "must be finite and > 0"));
        }
        if !(self.regularization >= 0.0 && self.regularization.is_finite()) {
            return Err(Error::setting("regularization", self.regularization, "must be finite and ≥ 0"));
        }
        Ok(())
    }
}

/// Default iteration limit.
pub(crate) const DEFAULT_MAX_ITER: usize = 200;
/// Default iteration limit of `prox` (inner Newton iterations over all centres). The proximal
/// point's outer loop converges linearly where W is singular (redundant contacts), at a rate
/// a Newton limit does not allow for: `ball-pile 100`'s step 15 (1 026 unknowns, a ball on
/// four supports) needs 528 (6.8e-6 at 200, tol 1e-6); Siconos' PROX allows 1 000 outer
/// iterations by default.
pub(crate) const PROX_MAX_ITER: usize = 1000;

prepared_solver!(
    SemismoothNewton, field name,
    workspace: Workspace, max_iter: DEFAULT_MAX_ITER, solve: SemismoothNewton::solve_with
);

impl SemismoothNewton {
    /// One round of a solve in `ws` (see [`crate::problem::Prepares::solve_in`]).
    fn solve_with(&self, ws: &mut Workspace, job: Job<'_>) -> Result<(), Error> {
        run(self, ws, None, job)
    }
}
