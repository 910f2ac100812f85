//! [`GlobalIpm`]: a primal-dual interior-point method on the global form of the frictional
//! contact problem — the convex relaxation (Anitescu's cone complementarity problem) to a
//! certified duality gap, and the exact Coulomb problem by the De Saxcé fixed point around it.
//!
//! **The convex relaxation.** With the global data (`crate::global`: `M v = f + H r`,
//! `u = Hᵀ v + b`), Anitescu's cone complementarity problem (Anitescu 2006; the relaxation
//! Chrono steps) is the second-order cone program
//!
//! ```text
//!     min ½ vᵀ M v − fᵀ v   subject to   u_i = H_iᵀ v + b_i ∈ K_i*  for every contact i,
//! ```
//!
//! `K_i = {‖r_T‖ ≤ μ_i r_N}` the friction cone and `K_i* = {μ_i ‖u_T‖ ≤ u_N}` its dual. Its
//! optimality conditions are `M v = f + H r`, `K ∋ r ⊥ u ∈ K*`: the Coulomb problem with
//! the De Saxcé term `μ‖u_T‖` dropped from the normal velocity (a sliding contact separates at
//! `u_N = μ‖u_T‖` instead of staying on the surface). Per contact the change of variables
//! `r̃ = (μ r_N, r_T)`, `ũ = (u_N / μ, u_T)` makes both cones the Lorentz cone L (self-dual,
//! `r̃ᵀũ = rᵀu`); a contact with μ = 0 keeps its normal row alone (a cone of dimension 1).
//!
//! **The method** is the primal-dual path-following method of conic programming as in CVXOPT's
//! `coneqp` (Vandenberghe 2010, "The CVXOPT linear and quadratic cone program solvers", §§ 2–5)
//! and Clarabel (Goulart & Chen 2024): Nesterov–Todd scaling W of each cone (`λ = W z = W⁻¹ s`,
//! Vandenberghe 2010 eqs. 14–17 for the second-order cone), Mehrotra's predictor–corrector
//! (the affine direction, the centring `σ = ρ³` with ρ the complementarity the affine step
//! leaves, and the second-order correction `(W⁻¹Δs_a) ∘ (W Δz_a)`), and a step of 0.99 of the
//! way to the cones' boundary. Each direction solves the quasi-definite KKT system
//!
//! ```text
//!     [  M    −H̃  ] [Δv]   [ −(M v − f − H̃ z)                 ]
//!     [ −H̃ᵀ   −W² ] [Δz] = [ −(s − H̃ᵀ v − b̃) − W (λ \ d)       ],     Δs = W (λ \ d) − W² Δz,
//! ```
//!
//! with a static regularization δ of 10⁻¹⁰ of each block's scale and iterative refinement
//! against the unregularized matrix. By default ([`KktForm::Reduced`]) Δz is
//! eliminated: `(M + H̃ (W² + δI)⁻¹ H̃ᵀ) Δv = …`, the body graph's pattern, by a supernodal
//! Cholesky (the `reduced` module; `(W² + δI)⁻¹` in closed form), refined until its residual
//! is within 10⁻¹⁰ of the right-hand side (up to six steps, stopping when a step does not
//! shrink the residual fivefold); the iteration whose reduced solve misses that accuracy —
//! W² grows ill-conditioned near the answer —
//! and every later one of that solve factor the quasi-definite matrix itself by a sparse
//! `LDLᵀ` ([`perp_core::linear::SparseCholesky::factor_quasi_definite`], dynamic
//! regularization of tiny pivots), as [`KktForm::QuasiDefinite`] always does (with AMD's
//! ordering). As the reduced form's fallback it eliminates the cone rows first, then the
//! velocities in the body graph's order: the reduced form's elimination, yet accurate where
//! the reduced Cholesky was not (its solves' residuals 10⁻¹⁵ of the right-hand side at the
//! median on `ball-pile 1000`'s landing), and no AMD of the KKT matrix, whose pattern is new
//! at each time step (that landing 0.89× the time, the same iterations). Near the answer
//! W² spans ten and more orders of magnitude and the dynamically regularized pivots can leave
//! that factor without a finite value: it is then refactored with the static regularization
//! raised 10³ and 10⁶ times, the refinement still against the unregularized matrix (an island
//! of `ball-pile 1000` at 1e-8 stopped at 2.5 · 10⁻⁸ before; one more factorization, then
//! certified at 5.6 · 10⁻⁹). On
//! `ball-pile 1000 --formulation convex` the reduced form took 0.84× the CPU time, with the
//! same iterations (see `docs/performance.md`). The pattern is fixed for a problem: one
//! symbolic analysis for all
//! iterations (and for later problems of the same structure: [`GlobalSolution::analyses`]),
//! one numeric factorization per iteration — the predictor and the corrector share it.
//! The convex problem stops when the primal residual, the dual residual and the duality gap
//! `sᵀz` are each at most `tol` relative to their own scales ([`Certificate`]).
//!
//! **The exact Coulomb problem** ([`Model::Coulomb`], the catalogue's `global-ipm`): the
//! convex answer warm-starts [`GlobalNewton`] (`global-ac-newton`) on the same problem. In
//! between, [`GlobalIpm::fixed_point`] − 1 steps of the De Saxcé fixed point (De Saxcé & Feng
//! 1998; Acary, Cadoux, Lemaréchal & Malick 2011, "A formulation of the linear discrete Coulomb
//! friction problem via convex optimization", §3) can be taken: solve the convex problem with
//! `b_N` replaced by `b_N + s_i`, then `s_i ← μ_i ‖u_T,i‖` from its answer. A fixed point is a
//! Coulomb solution, but the iteration converges linearly at best (tenfold per step on
//! Box_Stacks, twofold or not at all on a settling pile), so the default takes none: on the
//! suites' global files the Newton method from the plain convex answer was the fastest of
//! 1, 2, 3, 5 and 20 convex solves (Box_Stacks: 10 iterations against 81 for 20 solves).
//! Before the Newton method, one step of the natural map puts the interior point's
//! separated contacts on the cone's boundary, and when that answer is already within `tol`
//! the Newton method is not run. The Newton method can stall at a few times the tolerance on
//! a pile's redundant stick networks, and another start or a Newton matrix regularized three
//! times more ([`GlobalIpm::retry_regularization`]) often solves such an island, which would
//! otherwise go on to the stepper's fallback chain (prox on W, seconds each). A second run
//! with that regularization, from the warm start (the previous time step's impulses) when
//! there is one, else from the convex answer, starts when the first stalls (goes on in its
//! proximal mode) or reaches 40 iterations; the two take one iteration each in turn, on two
//! workers under `Settings::threads`, until one is solved ([`GlobalNewton::solve_lockstep`];
//! the same outcome on any thread count); when the first fails sooner, the second runs after
//! it. When both fail after a warm start, a third runs from the convex answer.
//!
//! From a warm start (a time step's previous impulses) the
//! Newton method is tried first, for at most [`GlobalIpm::warm_newton`] iterations (3), and
//! its answer returned when it solves: a settled step's warm start is an iteration or two
//! from the answer, and only a warm start whose global error is at most 100 tol is given it
//! (a landing step's is not). The convex relaxation tries it from a warm start whose
//! certificate figure is at most 0.3 (or 100 tol: a settled step's, or one where a contact
//! appears or leaves), for at most [`params::CONVEX_WARM_NEWTON`] iterations (8), with the Newton method on the
//! relaxation's natural map `r − P_K(r − ρ u)` ([`GlobalNewton`] in its convex mode), to
//! `tol`/100, and returns its answer when the certificate holds at it (checked whether or not
//! the Newton reached its own target); a settled step then costs one Newton iteration
//! instead of three interior-point ones, and a step where a contact appears or leaves two to
//! six instead of six to twelve. (With the (v, r) Newton
//! LU the exact model's warm Newton cost more than it saved from 100 balls on; since the
//! Newton system is reduced to the velocities `ball-pile 30` to `400` take 0.78× the time
//! with it, and the landing of `ball-pile 1000` about the same:
//! `docs/performance.md`, Velocity space.) "Solved" means Siconos' global error of the returned (r, v),
//! recomputed, is at most `tol` and the answer passes the physical check of every frictional
//! solver, as for `global-ac-newton`.

use crate::cone::{Cone, MAX_DIM};
use crate::coulomb::Coulomb;
use crate::global::GlobalFrictionContactProblem;
use crate::global_newton::{check_answer, free_velocity_norm, global_solver, GlobalNewton, GlobalSolution};
use perp_core::linear::mass::KeptMassFactor;
use perp_core::linear::{MassFactor, SparseCholesky};
use perp_core::{Error, Settings, SolveReport, Status};
use std::sync::Arc;
use std::time::Instant;

mod coulomb;
mod kkt;
mod layout;
mod nt;
pub mod params;
mod path;
mod reduced;
#[cfg(test)]
mod tests;

use coulomb::natural_map_inf;
use kkt::Kkt;
use layout::{Layout, WarmPoint};
use nt::*;
use reduced::Reduced;

/// Which problem [`GlobalIpm`] solves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// The exact Coulomb problem (De Saxcé fixed point over the convex problem, then
    /// `global-ac-newton` when it stops short).
    Coulomb,
    /// Anitescu's convex relaxation, to a certified duality gap.
    Convex,
}

/// The interior-point method on the global form (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct GlobalIpm {
    /// Interior-point iterations at most per convex solve (when `Settings::max_iter` is 0).
    pub max_iter: usize,
    /// The problem solved.
    pub model: Model,
    /// Convex solves at most in the De Saxcé fixed point ([`Model::Coulomb`]; 1: the convex
    /// problem alone, then the Newton method).
    pub fixed_point: usize,
    /// Whether [`Model::Coulomb`] finishes with `global-ac-newton` when the fixed point stops
    /// short of `tol`.
    pub polish: bool,
    /// How each iteration's KKT system is factored.
    pub kkt: KktForm,
    /// From a warm start near the answer: Newton iterations at most before the interior point
    /// (0: never) — [`Model::Coulomb`]: `global-ac-newton`'s, its answer returned when it
    /// solves; [`Model::Convex`] (from a warm start within 0.3 of the certificate): the global
    /// Newton method on the
    /// relaxation's natural map, its answer returned when it meets the interior point's
    /// certificate. Otherwise the
    /// interior point runs from the warm start as before, the Newton's effort added to the
    /// report. A settled time step's warm start is a Newton iteration or two from the answer,
    /// where the interior point needs several (and, for Coulomb, a Newton finish).
    pub warm_newton: usize,
    /// [`Model::Coulomb`]: when `global-ac-newton` from the fixed point's answer stalls or
    /// reaches 40 iterations, a second run with this [`GlobalNewton::regularization`], from
    /// the warm start (else from the same answer), goes on in lockstep with it, the first to
    /// solve taken; when the first fails sooner, the second runs after it; when both fail
    /// after a warm start, a third from the fixed point's answer (0: none of them). See
    /// [`params::RETRY_REGULARIZATION`] and the [module docs](self).
    pub retry_regularization: f64,
    chol: Factors,
    newton: GlobalNewton,
    /// The second run's method (its own factorizations, kept across solves).
    retry_newton: GlobalNewton,
    /// The convex relaxation's warm Newton ([`GlobalNewton::convex_finishing`]).
    convex_newton: GlobalNewton,
    /// M's factor, kept while M repeats (a time stepper's constant mass matrix).
    mass: KeptMassFactor,
}

impl Default for GlobalIpm {
    fn default() -> Self {
        GlobalIpm {
            max_iter: params::MAX_ITER,
            model: Model::Coulomb,
            fixed_point: params::FIXED_POINT,
            polish: params::POLISH,
            kkt: params::KKT,
            warm_newton: params::WARM_NEWTON,
            retry_regularization: params::RETRY_REGULARIZATION,
            chol: Factors::default(),
            newton: GlobalNewton::finishing(),
            retry_newton: GlobalNewton::finishing(),
            convex_newton: GlobalNewton::convex_finishing(),
            mass: KeptMassFactor::default(),
        }
    }
}

/// How [`GlobalIpm`] factors the KKT system of an iteration (see the [module docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KktForm {
    /// The velocities' system `M + H̃ (W² + δI)⁻¹ H̃ᵀ` by a supernodal Cholesky (the
    /// quasi-definite form when its factorization breaks down).
    #[default]
    Reduced,
    /// The quasi-definite KKT matrix by a sparse `LDLᵀ`.
    QuasiDefinite,
}

/// The factorizations kept across iterations and problems (their symbolic analyses reused
/// while the pattern repeats), and the reduced form's body graph (its ordering reused
/// likewise).
#[derive(Clone, Debug)]
pub(super) struct Factors {
    pub(super) form: KktForm,
    pub(super) full: SparseCholesky,
    pub(super) reduced: SparseCholesky,
    pub(super) graph: crate::body_graph::BodyGraph,
}

impl Default for Factors {
    fn default() -> Self {
        Factors {
            form: KktForm::default(),
            full: SparseCholesky::new(),
            reduced: crate::body_graph::BodyGraph::cholesky(),
            graph: crate::body_graph::BodyGraph::default(),
        }
    }
}

impl Factors {
    fn analyses(&self) -> usize {
        self.full.analyses() + self.reduced.analyses()
    }
}

/// The convex relaxation's optimality certificate at the returned point: each figure relative
/// to its own scale (so it is the same for any choice of units).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Certificate {
    /// `‖s − H̃ᵀ v − b̃‖∞ / max(‖b̃‖∞, ‖H̃ᵀ M⁻¹ f‖∞, ‖H̃ᵀ v‖∞, ‖s‖∞)`: the velocities' equation.
    pub primal: f64,
    /// `‖M v − f − H r‖∞ / max(‖f‖∞, ‖M v‖∞, ‖H r‖∞)`: the dynamics' equation.
    pub dual: f64,
    /// The duality gap `sᵀz = rᵀu` relative to `max(|primal objective|, |dual objective|,
    /// V ‖z‖∞)`, V the velocity scale of `primal`'s denominator (the objectives vanish when
    /// everything sticks).
    pub gap: f64,
    /// Interior-point iterations.
    pub iterations: usize,
}

impl Certificate {
    /// The largest of the three figures.
    pub fn worst(&self) -> f64 {
        self.primal.max(self.dual).max(self.gap)
    }
}

impl GlobalIpm {
    /// The method with its defaults (the exact Coulomb problem).
    pub fn new() -> Self {
        Self::default()
    }

    /// The method on the convex relaxation (its warm Newton up to
    /// [`params::CONVEX_WARM_NEWTON`] iterations).
    pub fn convex() -> Self {
        GlobalIpm { model: Model::Convex, warm_newton: params::CONVEX_WARM_NEWTON, ..Self::default() }
    }

    /// The catalogue name.
    pub fn name(&self) -> &'static str {
        match self.model {
            Model::Coulomb => "global-ipm",
            Model::Convex => "global-ipm-convex",
        }
    }

    /// Solves `g` — the model's problem — from the reactions `warm` (the first convex
    /// solve's start, as [`GlobalIpm::solve_convex_from`]; cold when `None`). For [`Model::Convex`] "solved" means the
    /// [`Certificate`] is at most `tol`, and `report.error` is its worst figure (not Siconos'
    /// Coulomb error, which the relaxation does not aim at); use [`GlobalIpm::solve_convex`]
    /// for the certificate itself.
    pub fn solve(
        &mut self,
        g: &GlobalFrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<GlobalSolution, Error> {
        match self.model {
            Model::Convex => self.solve_convex_from(g, warm, s).map(|(sol, _)| sol),
            Model::Coulomb => {
                let (start, factor) = Begin::factor(g, warm, &mut self.mass)?;
                // The warm Newton, from a warm start near the answer only.
                let near = |r: &[f64]| {
                    let mut v = vec![0.0; g.dofs()];
                    g.velocity_into(&factor, r, &mut v);
                    g.error(r, &v) <= coulomb::WARM_NEWTON_FROM * s.tol
                };
                let Some(r) = warm.filter(|r| self.warm_newton > 0 && near(r)) else {
                    return self.solve_coulomb(Begin::with_factor(g, warm, start, factor), s);
                };
                let first = self.newton_from_warm(g, r, s)?;
                // Solved, or out of time or interrupted: nothing is left for the interior point
                // (whose layout is then never built).
                if matches!(first.report.status, Status::Solved | Status::TimeLimit | Status::Interrupted) {
                    return Ok(first);
                }
                let mut out = self.solve_coulomb(Begin::with_factor(g, warm, start, factor), s)?;
                out.report.iterations += first.report.iterations;
                out.report.factorizations += first.report.factorizations;
                out.report.line_search_steps += first.report.line_search_steps;
                Ok(out)
            }
        }
    }

    /// The convex relaxation of `g` to `s.tol`, with its certificate.
    pub fn solve_convex(
        &mut self,
        g: &GlobalFrictionContactProblem,
        s: &Settings,
    ) -> Result<(GlobalSolution, Certificate), Error> {
        self.solve_convex_from(g, None, s)
    }

    /// [`GlobalIpm::solve_convex`] from the reactions `warm` of an earlier, similar problem
    /// (the previous time step's): the interior point starts at `v = M⁻¹ (f + H r)` and r,
    /// moved into the cones' interior by as much as it misses the certificate (between 10⁻⁴
    /// and 10⁻¹ of their scale), instead of CVXOPT's start; a start that meets the
    /// certificate is the answer (no iteration).
    pub fn solve_convex_from(
        &mut self,
        g: &GlobalFrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<(GlobalSolution, Certificate), Error> {
        let Begin { start, lay, start_point, .. } = Begin::new(g, warm, &mut self.mass)?;
        let shift = vec![0.0; g.contacts()];
        let mut report = SolveReport::new("global-ipm-convex");
        let (r, v, cert) = self.interior_point(g, &lay, (&shift, start_point), s, start, &mut report)?;
        report.error = cert.worst();
        if report.status == Status::Solved && report.error > s.tol {
            report.status = Status::NumericalFailure;
        }
        report.message.get_or_insert_with(|| {
            format!(
                "convex relaxation: primal {:.1e}, dual {:.1e}, gap {:.1e}",
                cert.primal, cert.dual, cert.gap
            )
        });
        let u = g.local_velocity(&v);
        report.residual_inf = natural_map_inf(g, &r, &v, false);
        report.elapsed = start.elapsed();
        Ok((GlobalSolution { r, v, u, report, analyses: self.chol.analyses() }, cert))
    }
}

global_solver!(GlobalIpm);

/// What a solve of either model starts from: its start instant, the checked problem, M's
/// factor, the cone variables' layout and the first convex solve's start (from the warm
/// reactions, when given).
struct Begin<'a> {
    g: &'a GlobalFrictionContactProblem,
    start: Instant,
    factor: Arc<MassFactor>,
    lay: Layout,
    start_point: WarmPoint,
    /// The warm reactions (the start of the Newton finish's second run).
    warm: Option<&'a [f64]>,
}

impl<'a> Begin<'a> {
    /// Validates `g` and `warm` (the problem's validation errors, a warm start of the wrong
    /// length or not finite) and factors M, or takes `mass`'s factor of the same M (an M
    /// that cannot be factored is named).
    fn new(
        g: &'a GlobalFrictionContactProblem,
        warm: Option<&'a [f64]>,
        mass: &mut KeptMassFactor,
    ) -> Result<Self, Error> {
        let (start, factor) = Self::factor(g, warm, mass)?;
        Ok(Self::with_factor(g, warm, start, factor))
    }

    /// The start instant and M's factor, after the checks of [`Begin::new`].
    fn factor(
        g: &GlobalFrictionContactProblem,
        warm: Option<&[f64]>,
        mass: &mut KeptMassFactor,
    ) -> Result<(Instant, Arc<MassFactor>), Error> {
        let start = Instant::now();
        g.validate_warm(warm)?;
        Ok((start, mass.get(&g.m, true)?))
    }

    /// The rest of [`Begin::new`] (the layout and the warm point) for a checked `warm`.
    fn with_factor(
        g: &'a GlobalFrictionContactProblem,
        warm: Option<&'a [f64]>,
        start: Instant,
        factor: Arc<MassFactor>,
    ) -> Self {
        let lay = Layout::new(g, &factor);
        let start_point = warm.map(|r| lay.warm_point(g, &factor, r));
        Begin { g, start, factor, lay, start_point, warm }
    }
}
