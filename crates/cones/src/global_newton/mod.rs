//! [`GlobalNewton`]: the Alart–Curnier semismooth Newton method on the global form of the
//! frictional contact problem, in the velocities v and reactions r together, without forming
//! the Delassus matrix W.
//!
//! The global problem (`crate::global`) is `M v = f + H r`, `u = Hᵀ v + b`, Coulomb's law
//! between r and u at every contact. With the Alart–Curnier function Φ of each contact
//! ([`Cone::alart_curnier`], Alart & Curnier 1991; its global use is Siconos'
//! `gfc3d_nonsmooth_Newton_AlartCurnier.c`), a solution is a zero of
//!
//! ```text
//!     F(v, r) = ( M v − H r − f ,  Φ(r, Hᵀ v + b) ),
//! ```
//!
//! and a generalized Newton step solves the sparse system of order `n_dof + m`
//!
//! ```text
//!     [ M          −H  ] [dv]     [ M v − H r − f ]
//!     [ J_u Hᵀ     J_r ] [dr] = − [ Φ             ],
//! ```
//!
//! `J_r = ∂Φ/∂r`, `J_u = ∂Φ/∂u` block diagonal (one d×d block per contact). Its pattern is
//! that of M, H and the contacts' blocks: fixed for a problem, so the sparse LU's symbolic
//! analysis is done once and each iteration costs one numeric factorization
//! ([`perp_core::linear::SparseLu`]). The first block row is linear: after one full step
//! `M v − H r − f` is zero to rounding and stays so along later steps.
//!
//! The step length comes from a non-monotone backtracking (Armijo) line search on `½‖F‖²`
//! (against the largest of the last five values); when it finds no decrease the full step is
//! taken, as Siconos does. After each step v is put back on `M v = f + H r`. After
//! [`GlobalNewton::stall_iterations`] iterations without halving the error the method goes on
//! in the local `prox`'s proximal mode (Φ at `u + σ (r − r_ref)`). `ρ_N`, `ρ_T` of each contact are the
//! inverses of its Delassus block's diagonal (`W_ii = H_iᵀ M⁻¹ H_i`, d solves per contact, one
//! dense block per body for a block-diagonal M), as the local `ac-newton` chooses them.
//!
//! **Regularised Newton matrix.** Eliminating dv, the step solves `(J_r + J_u W) dr = …` with
//! `W = Hᵀ M⁻¹ H`, singular wherever a body has redundant contacts (a ball on four supports):
//! the direction's component along W's null space is rounding noise, and on the piles' steps
//! the line search cut such steps to nothing (`ball-pile 50`: 12 of 33 steps solved at 1e-6).
//! As the local `ac-newton` does (its module docs), the r columns are `J_r + σ_k J_u`, the
//! Newton matrix of `J_r + J_u (W + σ_k I)`, with `σ_k = c · w̄ · min(1, e_k)` (`w̄` the mean
//! diagonal entry of W, `e_k` the global error, `c` = [`GlobalNewton::regularization`]); F is
//! unchanged and the shift vanishes with the error, so the answer and the fast local
//! convergence are kept (the proximal-regularised Newton method of Li, Fukushima, Qi &
//! Yamashita 2004, as in `ac-newton`). When the factorization breaks down even so, a small
//! multiple of the identity is added to the `J_r` block and the factorization retried.
//!
//! **Reduced to the velocities** ([`NewtonSystem::Velocities`], the default). The r block
//! `A = J_r + σ_k J_u (+ δ I)` is block diagonal, one d × d block per contact, and invertible
//! for σ_k > 0, so each direction eliminates `dr = −A⁻¹ (Φ + J_u Hᵀ dv)` and solves
//! `(M + H A⁻¹J_u Hᵀ) dv = −(M v − H r − f) − H A⁻¹ Φ`: order `n_dof` instead of `n_dof + m`,
//! with the body graph's pattern (M's and one clique per contact), factored as a block
//! `L D U` on that symmetric pattern ([`perp_core::linear::PatternLu`]: `A⁻¹J_u` is not
//! symmetric on sliding contacts, but the pattern is; each body's velocities one block,
//! pivoting only inside a block, a Cholesky's fill). On the convex relaxation
//! ([`GlobalNewton::convex_finishing`]) `A⁻¹J_u` is symmetric positive semidefinite and the
//! matrix is factored by faer's supernodal Cholesky instead (`reduced::VelocityFactor`). The
//! direction is the same in exact
//! arithmetic and is checked against the (v, r) system as any other; when the reduced
//! system is singular (σ_k = 0 on a sticking contact, or a pivot that vanishes without
//! pivoting) or its direction misses the check (G ~
//! 1/σ_k grows ill-conditioned as the error vanishes) the (v, r) system is solved, and after
//! three misses in a solve it alone. On the 118 cold pile steps of the regularisation's
//! measurements (1e-8) this took 0.14× the time with the same iterations and statuses
//! (`docs/performance.md`, Velocity space).
//!
//! "Solved" means Siconos' global error ([`GlobalFrictionContactProblem::error`]) of the
//! returned (r, v) is at most `tol`, recomputed, and that the answer passes the physical check
//! of every frictional solver (penetration, cone and complementarity at the data's scale:
//! the local problem's `‖q‖ = ‖Hᵀ M⁻¹ f + b‖` plus the rounding of `Hᵀ v + b`).

use crate::cone::{Cone, MAX_DIM};
use crate::coulomb::Coulomb;
use crate::global::GlobalFrictionContactProblem;
use crate::problem::physical_figure;
use perp_core::iteration::{observe, Counters, ProgressTest, Stall, StallRule, Verdict};
use perp_core::line_search::NonMonotone;
use perp_core::linear::mass::KeptMassFactor;
use perp_core::linear::{MassFactor, Row, SparseLu};
use perp_core::{measures, Error, Settings, SolveReport, Status};
use std::time::Instant;

mod iterate;
pub mod params;
mod prox_mode;
mod reduced;
mod residual;
mod structure;

use iterate::{ended, Iterate, Setup};
use prox_mode::ProxState;
use reduced::{Reduced, VelocityFactor};
use residual::Residual;
pub(crate) use residual::{check_answer, free_velocity_norm};
use structure::{Structure, DELTAS};

/// The Alart–Curnier Newton method on the global form (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct GlobalNewton {
    /// Newton iterations at most (when `Settings::max_iter` is 0).
    pub max_iter: usize,
    /// Factor on every contact's `ρ_N`, `ρ_T`.
    pub rho_scale: f64,
    /// Iterations without halving the best error after which the method goes on in the
    /// proximal mode (0: never).
    pub stall_iterations: usize,
    /// `c` of the regularised Newton matrix: `σ_k = c · w̄ · min(1, e_k)` on the r columns
    /// (module docs; 0: the plain Newton matrix).
    pub regularization: f64,
    /// Which linear system a Newton direction solves (default: reduced to the velocities).
    pub system: NewtonSystem,
    lu: SparseLu,
    /// The factorization of the system reduced to the velocities
    /// ([`NewtonSystem::Velocities`]): an LU without pivoting on the body graph's symmetric
    /// pattern, or a Cholesky on the convex relaxation.
    lu_velocities: VelocityFactor,
    /// The reduced system's pattern of the last solve that built one, kept for the next.
    reduced: Option<Reduced>,
    /// The convex relaxation instead of Coulomb's law ([`GlobalNewton::convex_finishing`]):
    /// Φ its natural map, the error [`GlobalFrictionContactProblem::convex_error`], and no
    /// physical check (the caller certifies the answer).
    convex: bool,
    /// M's factor, kept while M repeats (a time stepper's constant mass matrix).
    mass: KeptMassFactor,
}

/// The linear system of a Newton direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewtonSystem {
    /// Reduced to the velocities (module docs): an LU of order `n_dof` with the body graph's
    /// pattern, the (v, r) system solved instead when the reduced one is singular or its
    /// direction misses the accuracy asked of a Newton direction.
    Velocities,
    /// The (v, r) system of order `n_dof + m`, always.
    Full,
}

impl Default for GlobalNewton {
    fn default() -> Self {
        GlobalNewton {
            max_iter: params::MAX_ITER,
            rho_scale: params::RHO_SCALE,
            stall_iterations: params::STALL_ITERATIONS,
            regularization: params::REGULARIZATION,
            system: params::SYSTEM,
            lu: SparseLu::new(),
            lu_velocities: VelocityFactor::default(),
            reduced: None,
            convex: false,
            mass: KeptMassFactor::default(),
        }
    }
}

/// The answer of a global solver: reactions, both velocities and the report.
#[derive(Clone, Debug)]
pub struct GlobalSolution {
    /// Reactions r (length `dim·nc`).
    pub r: Vec<f64>,
    /// Global velocities v (length `n_dof`).
    pub v: Vec<f64>,
    /// Local velocities `u = Hᵀ v + b`.
    pub u: Vec<f64>,
    /// Status, iterations, Siconos' global error of (r, v), factorizations.
    pub report: SolveReport,
    /// Symbolic analyses the solver's sparse LU has done so far (one per new pattern, kept
    /// across calls on problems of the same structure).
    pub analyses: usize,
}

/// A solver of the frictional contact problem in global form (M, H, f, b, μ): the catalogue's
/// family members for global problems implement it.
pub trait GlobalSolver: Send {
    /// The catalogue name.
    fn name(&self) -> &'static str;
    /// Solves `g` from the reactions `warm` (zero when `None`).
    fn solve_global(
        &mut self,
        g: &GlobalFrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<GlobalSolution, Error>;
}

/// The [`GlobalSolver`] impl of a global solver: `name` as its own, `solve_global` as its
/// method `solve` (or the one named, of the same arguments and result).
macro_rules! global_solver {
    ($t:ty) => {
        $crate::global_newton::global_solver!($t, solve);
    };
    ($t:ty, $solve:ident) => {
        impl $crate::global_newton::GlobalSolver for $t {
            fn name(&self) -> &'static str {
                <$t>::name(self)
            }

            fn solve_global(
                &mut self,
                g: &$crate::global::GlobalFrictionContactProblem,
                warm: Option<&[f64]>,
                s: &perp_core::Settings,
            ) -> Result<$crate::global_newton::GlobalSolution, perp_core::Error> {
                self.$solve(g, warm, s)
            }
        }
    };
}
pub(crate) use global_solver;

global_solver!(GlobalNewton);

/// The order of the Newton matrix (velocities and reactions) from which
/// [`GlobalNewton::finishing`]'s LU is always supernodal. faer's own rule takes the simplicial
/// LU on the piles' matrices, where the supernodal one costs about 0.3× the time an iteration
/// (`ball-pile 100`'s steps); on Siconos' files of order 6 and 12 the simplicial LU is twice
/// as fast, and from GFC3D_OneContact (order 42) on the supernodal one is as fast or faster
/// (`docs/performance.md`, Velocity space).
const SUPERNODAL_FROM: usize = 32;

impl GlobalNewton {
    /// The method as `global-ipm` finishes with it, from a convex answer near the exact one:
    /// its LU supernodal from order [`SUPERNODAL_FROM`]. `global-ac-newton` keeps faer's
    /// choice: from cold starts on pile steps the supernodal LU's directions solved 1–3 fewer
    /// steps of 24–93 within the iteration limit (its near-null components on the redundant
    /// stick networks differ by rounding), while from the convex answer both solve the same.
    pub(crate) fn finishing() -> Self {
        GlobalNewton { lu: SparseLu::supernodal_from(SUPERNODAL_FROM), ..Self::default() }
    }

    /// [`GlobalNewton::finishing`] on the convex relaxation `K ∋ r ⊥ u ∈ K*` (Anitescu's
    /// cone complementarity problem): Φ is its natural map `r − P_K(r − ρ_N u)` per contact,
    /// "solved" means [`GlobalFrictionContactProblem::convex_error`] ≤ tol, and the answer
    /// is not put through Coulomb's physical check (a sliding contact of the relaxation
    /// separates at μ‖u_T‖): `global-ipm`'s convex solve certifies it.
    pub(crate) fn convex_finishing() -> Self {
        GlobalNewton { convex: true, lu_velocities: VelocityFactor::symmetric(), ..Self::finishing() }
    }

    /// The method with its defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// The catalogue name.
    pub fn name(&self) -> &'static str {
        "global-ac-newton"
    }

    /// Solves the global problem `g` from the reactions `warm` (zero when `None`; v is then
    /// `M⁻¹ (f + H r)`). Errors: the problem's validation errors, a warm start of the wrong
    /// length, or a mass matrix that cannot be factored (named).
    pub fn solve(
        &mut self,
        g: &GlobalFrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<GlobalSolution, Error> {
        Ok(self.solve_lockstep(None, g, warm, s)?.first)
    }

    /// [`GlobalNewton::solve`], with a second chance `second = (method, from, start)`: the
    /// method's run (its own regularization, iteration limit and factorizations; M's factor
    /// shared), from the reactions `start` when given (else from `warm`), begins when this run
    /// stalls (switches to the proximal mode) or reaches iteration `from`, and then the two
    /// runs take one iteration each in turn (on two workers under `s.threads`), until one of
    /// them is solved, both have ended, or one is stopped (the observer, the time limit: the
    /// other stops with it). When this run ends unsolved sooner, the second runs alone after
    /// it. Returns this run's solution and, when it ran, the second's with the iteration of
    /// this run at which it began ([`Lockstep`]). When both are solved in the same turn this
    /// one comes first; the outcome does not depend on the thread count.
    pub(crate) fn solve_lockstep(
        &mut self,
        second: Option<(&mut GlobalNewton, usize, Option<&[f64]>)>,
        g: &GlobalFrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<Lockstep, Error> {
        let start = Instant::now();
        g.validate_warm(warm)?;
        let cone = Coulomb::new(g.dim)?;
        let factor = self.mass.get(&g.m, true)?;
        let setup = Setup::new(g, factor, self.rho_scale, self.regularization);
        let mut a = Run::new(self, g, (&setup, cone), warm, start);
        // Alone until it ends, or (with a second run to start) until it stalls or reaches `from`.
        let (lockstep, from) = second.as_ref().map_or((false, 0), |x| (true, x.1));
        while !(a.iterate(self, s) || lockstep && (a.it.proximal() || a.report.iterations >= from)) {}
        let Some((other, _, from_b)) = second.filter(|_| {
            !matches!(a.report.status, Status::Solved | Status::Interrupted | Status::TimeLimit)
                && s.deadline(start).is_none_or(|t| Instant::now() < t)
        }) else {
            while !a.iterate(self, s) {}
            return Ok(Lockstep { first: a.finish(self, s), first_ended: true, second: None });
        };
        let at = a.report.iterations;
        let setup_b = setup.with(other.rho_scale, other.regularization);
        let from_b = from_b.or(warm);
        g.validate_warm(from_b)?;
        let mut b = Run::new(other, g, (&setup_b, cone), from_b, start);
        let par = perp_core::parallel::Par::new(s.threads)?;
        loop {
            if !a.done && !b.done && par.threads() > 1 {
                par.join(|| a.iterate(self, s), || b.iterate(other, s));
            } else {
                a.iterate(self, s);
                b.iterate(other, s);
            }
            let stopped = |st: Status| matches!(st, Status::Interrupted | Status::TimeLimit);
            let (sa, sb) = (a.report.status, b.report.status);
            if a.solved() || b.solved() || (a.done && b.done) || stopped(sa) || stopped(sb) {
                // A run the other's stop cut short is stopped too, not at its limit.
                if !a.done && stopped(sb) {
                    a.report.status = sb;
                }
                if !b.done && stopped(sa) {
                    b.report.status = sa;
                }
                break;
            }
        }
        let first_ended = a.done;
        Ok(Lockstep { first: a.finish(self, s), first_ended, second: Some((b.finish(other, s), at)) })
    }
}

/// What [`GlobalNewton::solve_lockstep`] returns.
pub(crate) struct Lockstep {
    /// The first run's answer.
    pub(crate) first: GlobalSolution,
    /// Whether the first run ended (solved, at a limit, stopped, failed), rather than cut
    /// short by the second's answer.
    pub(crate) first_ended: bool,
    /// The second run's answer and the first run's iteration at which it started.
    pub(crate) second: Option<(GlobalSolution, usize)>,
}

/// One run of the method on a problem: the iterate, its report and its iteration limit.
/// [`GlobalNewton::solve`] iterates one; [`GlobalNewton::solve_lockstep`] two in turn.
struct Run<'a> {
    g: &'a GlobalFrictionContactProblem,
    setup: &'a Setup,
    it: Iterate<'a>,
    report: SolveReport,
    max_iter: usize,
    start: Instant,
    /// Whether the run has ended (its status set).
    done: bool,
}

impl<'a> Run<'a> {
    /// `newton`'s run on `g` from `warm` with `setup`, its limits counted from `start`.
    fn new(
        newton: &GlobalNewton,
        g: &'a GlobalFrictionContactProblem,
        (setup, cone): (&'a Setup, Coulomb),
        warm: Option<&[f64]>,
        start: Instant,
    ) -> Self {
        let mut it = Iterate::new(g, setup, (cone, newton.convex), warm, newton.stall_iterations);
        if newton.system == NewtonSystem::Velocities {
            it.reduce();
        }
        let mut report = SolveReport::new(newton.name());
        report.status = Status::MaxIterations;
        Run { g, setup, it, report, max_iter: newton.max_iter, start, done: false }
    }

    /// One Newton iteration with `newton`'s linear solvers: the iterate evaluated and
    /// recorded, the end tested (and after a switch to the proximal mode tested again), then
    /// the direction, the line search and the step. `true` once the run has ended.
    fn iterate(&mut self, newton: &mut GlobalNewton, s: &Settings) -> bool {
        if self.done {
            return true;
        }
        let max_iter = s.max_iter_or(self.max_iter);
        let psi = loop {
            let psi = self.it.evaluate();
            self.it.record(&mut self.report, s.record_history);
            if ended(&mut self.report, psi, s, max_iter, self.start) {
                self.done = true;
                return true;
            }
            if !self.it.switch_on_stall(&mut self.report) {
                break psi;
            }
        };
        self.report.iterations += 1;
        let linear = (&mut newton.lu, &mut newton.lu_velocities, &mut newton.reduced);
        if !self.it.direction(linear, &mut self.report) {
            self.report.status = Status::NumericalFailure;
            self.report.message = Some("the Newton matrix stayed singular after regularization".into());
            self.done = true;
            return true;
        }
        let t = self.it.line_search(psi, &mut self.report);
        self.it.advance(t);
        false
    }

    fn solved(&self) -> bool {
        self.done && self.report.status == Status::Solved
    }

    /// The run's answer (its best iterate unless solved), checked, with `newton`'s counts;
    /// the reduced system's pattern kept in `newton` for its next solve.
    fn finish(self, newton: &mut GlobalNewton, s: &Settings) -> GlobalSolution {
        let Run { g, setup, it, mut report, start, .. } = self;
        let (r, v, reduced) = it.finish(&mut report);
        if reduced.is_some() {
            newton.reduced = reduced;
        }
        let u = if newton.convex {
            g.local_velocity(&v)
        } else {
            check_answer(g, setup.qn, (&r, &v), &mut report, s.tol)
        };
        report.elapsed = start.elapsed();
        let analyses = newton.lu.analyses() + newton.lu_velocities.analyses();
        GlobalSolution { r, v, u, report, analyses }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perp_core::Matrix;

    /// A particle of mass 2 (3 velocities x, y, z) on the plane z = 0 with μ = 0.5: H's columns
    /// are the contact's normal e_z and tangents e_x, e_y; f = M v_free.
    fn particle(v_free: [f64; 3]) -> GlobalFrictionContactProblem {
        let m = Matrix::from_row_major(3, 3, &[2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0]).unwrap();
        let h = Matrix::from_row_major(3, 3, &[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]).unwrap();
        let f = v_free.iter().map(|v| 2.0 * v).collect();
        GlobalFrictionContactProblem::new(3, m, h, f, vec![0.0; 3], vec![0.5]).unwrap()
    }

    fn close(a: &[f64], b: &[f64]) {
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-10, "{a:?} vs {b:?}");
        }
    }

    fn solve(g: &GlobalFrictionContactProblem) -> GlobalSolution {
        let s = Settings { tol: 1e-12, ..Settings::default() };
        let sol = GlobalNewton::new().solve(g, None, &s).unwrap();
        assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report);
        assert_eq!(sol.report.error.to_bits(), g.error(&sol.r, &sol.v).to_bits());
        sol
    }

    /// Moving away from the plane: no reaction, the free velocity.
    #[test]
    fn a_separating_contact_carries_nothing() {
        let sol = solve(&particle([0.3, -0.2, 1.0]));
        close(&sol.r, &[0.0; 3]);
        close(&sol.v, &[0.3, -0.2, 1.0]);
    }

    /// Landing with a small tangential velocity: the reaction stops the particle (r = −M v_free
    /// in contact coordinates, inside the cone: 0.2 ≤ 0.5 · 2).
    #[test]
    fn a_sticking_contact_stops_the_particle() {
        let sol = solve(&particle([0.1, 0.0, -1.0]));
        close(&sol.v, &[0.0; 3]);
        close(&sol.r, &[2.0, -0.2, 0.0]);
    }

    /// Landing with a large tangential velocity: sliding, r_T = −μ r_N along the slip, the
    /// normal velocity stopped and the tangential one reduced by μ r_N / m.
    #[test]
    fn a_sliding_contact_takes_mu_times_the_normal_reaction() {
        let sol = solve(&particle([2.0, 0.0, -1.0]));
        close(&sol.r, &[2.0, -1.0, 0.0]);
        close(&sol.v, &[1.5, 0.0, 0.0]);
    }

    /// The symbolic analyses are kept across solves of the same structure: a second solve
    /// of the problem adds none, whichever system its directions solved.
    #[test]
    fn a_second_solve_of_the_same_pattern_analyses_nothing() {
        let g = particle([2.0, 0.0, -1.0]);
        let s = Settings { tol: 1e-12, ..Settings::default() };
        for system in [NewtonSystem::Velocities, NewtonSystem::Full] {
            let mut newton = GlobalNewton { system, ..GlobalNewton::new() };
            let first = newton.solve(&g, None, &s).unwrap();
            let second = newton.solve(&g, None, &s).unwrap();
            assert_eq!(first.report.status, Status::Solved);
            assert!((1..=2).contains(&first.analyses), "{system:?}: {}", first.analyses);
            assert_eq!(second.analyses, first.analyses, "{system:?}");
            close(&second.r, &first.r);
        }
    }

    /// A kept solver answers as a fresh one, bit for bit, along problems whose pattern
    /// repeats with other values (the reduced system's pattern renewed, not rebuilt) and
    /// changes (rebuilt): a particle of mass m on a tilted plane, then two coupled particles.
    #[test]
    fn a_kept_solver_renews_the_reduced_pattern_with_the_same_answers() {
        let tilted = |mass: f64, tilt: f64, v_free: [f64; 3]| {
            let m = Matrix::from_row_major(3, 3, &[mass, 0.0, 0.0, 0.0, mass, 0.0, 0.0, 0.0, mass]).unwrap();
            // Columns: the normal (tilt, 0.2, 1), two tangents; every entry nonzero.
            let h = [tilt, 1.0, 0.3, 0.2, -0.25, 1.0, 1.0, -tilt, 0.1];
            let h = Matrix::from_row_major(3, 3, &h).unwrap();
            let f = v_free.iter().map(|v| mass * v).collect();
            GlobalFrictionContactProblem::new(3, m, h, f, vec![0.0; 3], vec![0.5]).unwrap()
        };
        let pair = {
            let m =
                [2.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.5, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0];
            let mut mm = m.to_vec();
            mm.extend([
                0.0, 0.0, 0.0, 2.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.5, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0,
            ]);
            let mut h = vec![0.0; 36];
            for (k, (row, col)) in [(2, 0), (0, 1), (1, 2), (5, 3), (3, 4), (4, 5)].into_iter().enumerate() {
                h[row * 6 + col] = if k % 3 == 0 { 1.0 } else { 0.9 };
            }
            let (m, h) =
                (Matrix::from_row_major(6, 6, &mm).unwrap(), Matrix::from_row_major(6, 6, &h).unwrap());
            GlobalFrictionContactProblem::new(
                3,
                m,
                h,
                vec![0.4, -0.1, -2.0, 0.0, 0.3, -1.0],
                vec![0.0; 6],
                vec![0.3, 0.6],
            )
            .unwrap()
        };
        let sequence = [
            tilted(2.0, 0.1, [0.5, -0.2, -1.0]),
            tilted(3.0, 0.15, [0.1, 0.0, -1.0]),
            tilted(1.5, 0.05, [1.5, 0.3, -0.5]),
            pair,
            tilted(2.5, 0.12, [0.2, 0.1, -2.0]),
            tilted(2.5, 0.12, [0.2, 0.1, -2.0]),
        ];
        let s = Settings { tol: 1e-12, ..Settings::default() };
        let mut kept = GlobalNewton::new();
        for (k, g) in sequence.iter().enumerate() {
            let a = kept.solve(g, None, &s).unwrap();
            let b = GlobalNewton::new().solve(g, None, &s).unwrap();
            assert_eq!(a.report.status, Status::Solved, "problem {k}");
            assert!(a.report.iterations > 0, "problem {k}: no direction taken");
            let bits = |x: &[f64]| x.iter().map(|y| y.to_bits()).collect::<Vec<_>>();
            assert_eq!((bits(&a.r), bits(&a.v)), (bits(&b.r), bits(&b.v)), "problem {k}");
            assert_eq!(
                (a.report.iterations, a.report.factorizations, a.report.error.to_bits()),
                (b.report.iterations, b.report.factorizations, b.report.error.to_bits()),
                "problem {k}"
            );
        }
    }

    /// Both systems give the same answers on the three contact cases.
    #[test]
    fn the_reduced_and_the_full_system_agree() {
        let s = Settings { tol: 1e-12, ..Settings::default() };
        for v_free in [[0.3, -0.2, 1.0], [0.1, 0.0, -1.0], [2.0, 0.0, -1.0], [0.4, -0.3, -1.0]] {
            let g = particle(v_free);
            let mut reduced = GlobalNewton::new();
            let mut full = GlobalNewton { system: NewtonSystem::Full, ..GlobalNewton::new() };
            let a = reduced.solve(&g, None, &s).unwrap();
            let b = full.solve(&g, None, &s).unwrap();
            assert_eq!((a.report.status, b.report.status), (Status::Solved, Status::Solved));
            close(&a.r, &b.r);
            close(&a.v, &b.v);
            // At 1e-8 every direction came from the reduced system: one factorization each.
            let loose = Settings { tol: 1e-8, ..Settings::default() };
            let c = reduced.solve(&g, None, &loose).unwrap();
            assert_eq!(c.report.factorizations, c.report.iterations, "{v_free:?}");
        }
    }

    /// From a warm start at the answer: solved at once, no factorization.
    #[test]
    fn a_warm_start_at_the_answer_costs_no_factorization() {
        let g = particle([2.0, 0.0, -1.0]);
        let s = Settings { tol: 1e-12, ..Settings::default() };
        let sol = GlobalNewton::new().solve(&g, Some(&[2.0, -1.0, 0.0]), &s).unwrap();
        assert_eq!(
            (sol.report.status, sol.report.iterations, sol.report.factorizations),
            (Status::Solved, 0, 0)
        );
    }

    /// The convex relaxation's natural map `Φ = r − P_K(r − ρ u)`: zero exactly at the
    /// relaxation's complementarity (a sliding contact lifting off at μ‖u_T‖), and its
    /// Jacobians match central differences away from the projection's kinks (inside the
    /// cone, in its polar, and projected on its surface).
    #[test]
    fn the_convex_natural_map_vanishes_on_the_relaxation_and_its_jacobians_are_its_derivatives() {
        use crate::cone::{AcInput, CfunOut};
        let cone = Coulomb::new(3).unwrap();
        let (mu, rho) = (0.5, 0.7);
        let phi_at = |r: &[f64], u: &[f64], jac: Option<(&mut [f64], &mut [f64])>| {
            let mut phi = [0.0; 3];
            let x = AcInput { mu, rho_n: rho, rho_t: 9.0, r, u };
            residual::convex_natural_map(&cone, x, CfunOut { phi: &mut phi, jac });
            phi
        };
        // K ∋ r ⊥ u ∈ K*: sliding (r on K's surface, u on K*'s, opposite tangents), sticking
        // (r inside, u = 0) and separated (r = 0, u inside K*).
        let ut = [0.6, -0.8];
        let sliding = ([1.0, -0.5 * 0.6, 0.5 * 0.8], [0.5, ut[0], ut[1]]);
        for (r, u) in [sliding, ([1.0, 0.1, 0.2], [0.0; 3]), ([0.0; 3], [2.0, 0.3, -0.1])] {
            assert!(phi_at(&r, &u, None).iter().all(|p| p.abs() < 1e-15), "{r:?} {u:?}");
        }
        // Coulomb's law is not the relaxation's: a sliding contact without lift-off.
        assert!(phi_at(&sliding.0, &[0.0, ut[0], ut[1]], None).iter().any(|p| p.abs() > 1e-3));
        let h = 1e-6;
        for (r, u) in [
            ([1.0, 0.1, 0.05], [0.2, 0.1, -0.3]), // r − ρu inside K
            ([-1.0, 0.1, 0.0], [1.0, 0.2, 0.1]),  // in the polar cone
            ([0.5, 1.0, -0.4], [-0.2, 0.3, 0.5]), // projected on the surface
        ] {
            let (mut jr, mut ju) = ([0.0; 9], [0.0; 9]);
            phi_at(&r, &u, Some((&mut jr, &mut ju)));
            for b in 0..3 {
                for (x, j, is_r) in [(r, &jr, true), (u, &ju, false)] {
                    let (mut xp, mut xm) = (x, x);
                    xp[b] += h;
                    xm[b] -= h;
                    let (pp, pm) = if is_r {
                        (phi_at(&xp, &u, None), phi_at(&xm, &u, None))
                    } else {
                        (phi_at(&r, &xp, None), phi_at(&r, &xm, None))
                    };
                    for a in 0..3 {
                        let fd = (pp[a] - pm[a]) / (2.0 * h);
                        assert!(
                            (fd - j[a * 3 + b]).abs() < 1e-7,
                            "{r:?} {u:?} ({a},{b}): {fd} vs {}",
                            j[a * 3 + b]
                        );
                    }
                }
            }
        }
    }

    /// On the convex relaxation the reduced matrix is symmetric positive definite and factored
    /// by a Cholesky on the body graph ([`VelocityFactor`]): the answers of the block `L D U`
    /// in as many iterations, with no more factorizations (its directions are refined against
    /// the (v, r) system where the LU's fall back to factoring it); a kept solver (its graph
    /// renewed) answers as a fresh one, bit for bit.
    #[test]
    fn the_convex_relaxations_cholesky_gives_the_answers_of_the_lu() {
        use rand::SeedableRng;
        let s = Settings { tol: 1e-11, ..Settings::default() };
        let (mut solved, mut refined) = (0, 0);
        let mut chol_kept = GlobalNewton::convex_finishing();
        let mut lu_kept =
            GlobalNewton { lu_velocities: VelocityFactor::default(), ..GlobalNewton::convex_finishing() };
        for seed in 0..8 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let g = crate::samples::dense_global(&mut rng, 16, 4, true);
            let (chol, lu) = (&mut chol_kept, &mut lu_kept);
            let a = chol.solve(&g, None, &s).unwrap();
            let b = lu.solve(&g, None, &s).unwrap();
            let fresh = GlobalNewton::convex_finishing().solve(&g, None, &s).unwrap();
            let bits = |x: &GlobalSolution| x.r.iter().chain(&x.v).map(|y| y.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&fresh), "seed {seed}: kept against fresh");
            assert_eq!(a.report.status, b.report.status, "seed {seed}: {:?} {:?}", a.report, b.report);
            if a.report.status != Status::Solved {
                continue;
            }
            solved += 1;
            // The same iterations; the Cholesky's directions are refined against the (v, r)
            // system where the LU's fall back to its factorization.
            assert_eq!(a.report.iterations, b.report.iterations, "seed {seed}");
            assert!(
                a.report.factorizations <= b.report.factorizations,
                "seed {seed}: {:?} {:?}",
                a.report,
                b.report
            );
            refined += b.report.factorizations - a.report.factorizations;
            assert!(a.report.error <= s.tol && g.convex_error(&a.r, &a.v) <= s.tol, "{:?}", a.report);
            for (x, y) in a.r.iter().chain(&a.v).zip(b.r.iter().chain(&b.v)) {
                assert!((x - y).abs() <= 1e-8 * (1.0 + y.abs()), "seed {seed}: {x} vs {y}");
            }
        }
        assert!(solved >= 6, "{solved} of 8 solved");
        // On these samples some directions miss the (v, r) check before the refinement (2
        // when this was written): the refinement is what saves those factorizations.
        assert!(refined > 0, "no (v, r) factorization saved by the refinement");
        // The Cholesky factored (and the LU did not).
        let (c, l) = (&chol_kept.lu_velocities, &lu_kept.lu_velocities);
        assert!(c.chol.as_ref().is_some_and(|(c, _)| c.analyses() > 0) && c.lu.analyses() == 0);
        assert!(l.chol.is_none() && l.lu.analyses() > 0);
    }

    #[test]
    fn bad_input_is_a_clear_error() {
        let mut newton = GlobalNewton::new();
        let s = Settings::default();
        let g = particle([0.0, 0.0, -1.0]);
        let e = newton.solve(&g, Some(&[1.0]), &s).unwrap_err().to_string();
        assert!(e.contains("warm start"), "{e}");
        let e = newton.solve(&g, Some(&[f64::NAN, 0.0, 0.0]), &s).unwrap_err().to_string();
        assert!(e.contains("warm start"), "{e}");
        // A singular M is named.
        let mut bad = g.clone();
        bad.m = Matrix::from_row_major(3, 3, &[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
        let e = newton.solve(&bad, None, &s).unwrap_err().to_string();
        assert!(e.contains("mass matrix M"), "{e}");
        // H of the wrong size, μ < 0 and a NaN in f are the problem's validation errors.
        let mut bad = g.clone();
        bad.h = Matrix::from_row_major(2, 3, &[0.0; 6]).unwrap();
        assert!(newton.solve(&bad, None, &s).is_err());
        let mut bad = g.clone();
        bad.mu = vec![-0.1];
        let e = newton.solve(&bad, None, &s).unwrap_err().to_string();
        assert!(e.contains("mu") || e.contains("μ"), "{e}");
        let mut bad = g.clone();
        bad.f[1] = f64::NAN;
        let e = newton.solve(&bad, None, &s).unwrap_err().to_string();
        assert!(e.contains('f'), "{e}");
    }
}
