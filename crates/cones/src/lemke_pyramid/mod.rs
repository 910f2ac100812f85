//! `lemke-pyramid`: Lemke's method on the Stewart–Trinkle LCP of a polyhedral friction cone,
//! with pyramid alignment to remove the linearisation error.
//!
//! # The LCP (Stewart 2000 §2.2.1, eq. 2.11–2.16; Trinkle–Tzitzouris–Pang 2001 eq. 5–6)
//!
//! Each contact i of dimension d gets a linearisation `D_i = [d_1 … d_{m_i}]` of its cone
//! (`(d−1) × m_i`, points of the section `S_1(1)`, [`Cone::linearize`]; a pyramid returns its
//! own generators): the friction force is `D_i β_i` with `β_i ≥ 0`, `Σ β_i ≤ μ_i c_{n,i}`
//! (Stewart 2000 fig. 2.2). With the dynamics already condensed into the Delassus operator W (the
//! local problem `u = W r + q`, so that the blocks `nᵀM⁻¹n`, `nᵀM⁻¹D̃`, … of eq. 2.16 are
//! `W_NN`, `W_NT D`, …), eq. 2.13–2.15 become the LCP in `z = (c_n ∈ R^nc, β, λ)`:
//!
//! ```text
//!     u_N = W_NN c_n + W_NT Dβ + q_N        ≥ 0  ⊥  c_n ≥ 0
//!     Dᵀ u_T + E λ                           ≥ 0  ⊥  β   ≥ 0     (u_T = W_TN c_n + W_TT Dβ + q_T)
//!     μ c_n − Eᵀ β                           ≥ 0  ⊥  λ   ≥ 0
//! ```
//!
//! `E` is block-diagonal with blocks `e = (1, …, 1)`; `λ_i = max_j (−d_j·u_{T,i})` is the
//! sliding speed seen by the pyramid. Contacts with μ = 0 have no β and no λ. The LCP matrix
//! is `[[PᵀWP, Ê], [Ĥ, 0]]` with `P` mapping `(c_n, β)` to `r`; it is built dense when W is
//! dense and from triplets, block by block, when W is sparse (Lemke densifies it anyway).
//!
//! A solution gives `r_i = (c_{n,i}, D_i β_i)`. When every cone *is* its pyramid (a pyramid
//! law, or any 2-D law, whose section is an interval) the LCP is the contact problem itself
//! and the answer is exact. For a round cone the answer is exact at every contact that takes
//! off (`c_n = 0`) or sticks (`u_T = 0`, λ = 0: the friction force lies in the pyramid, hence
//! in the cone); only the *sliding* contacts carry an error, because their force lies on the
//! pyramid's boundary, on a generator or an edge, instead of at the maximal-dissipation point
//! for `u_T`. Measured on single 3-D Coulomb contacts with random W (tests), the error measure
//! falls like `1/m` for m evenly spread generators (the force's direction is off by up to
//! π/m), not like the `1/m²` of the cones' Hausdorff distance.
//!
//! # Pyramid alignment (refinement)
//!
//! Seed 002 (sphere experiments) observes that Stewart's method matched the exact solution
//! "only because one of the friction directions … corresponded to the exact solution,
//! thereby eliminating the friction linearization error". This solver turns that remark into
//! an iteration. Every sliding contact (c_n > 0, λ > 0, u_T ≠ 0) gets one extra generator
//! `G(n)`, the point of the *true* section `S_1(1)` with outward unit normal n, i.e. the
//! maximal-dissipation force for a slip along `−n` ([`Cone::support`]); the base pyramid is
//! kept, minus base generators closer to it than a quarter of the base spacing, so that no two
//! columns are nearly parallel. Then the LCP is solved again. When `−n` is the exact slip
//! direction, the LCP answer is exact at that contact: the force sits on the vertex
//! `μ c_n G(n)` and `−u_T` lies in the vertex's normal cone. Where to put n:
//!
//! * One **Newton step** on the slip directions of all sliding contacts together, with the
//!   LCP's active set frozen (lifted: r = 0; sticking: u = 0; sliding: `u_N = 0`,
//!   `r = ρ (1, μ G(n))` with n the unit normal of the section at the force). For given
//!   normals this model is a square linear system in the reactions; the equations are
//!   `F_j = E_jᵀ(−u_{T,j}) = 0` (the slip is along the normal; `E_j` an orthonormal basis of
//!   `n_j`'s complement, so one equation per contact in 3-D, two with torsion), the unknowns
//!   the coordinates θ of each normal in the chart `n(θ) = (n + E θ)/‖n + E θ‖`. The Jacobian
//!   costs one LU of the model and one solve per unknown (`∂G/∂θ` by central differences of
//!   [`Cone::support`]). The step starts from the normal at each contact's current force
//!   (exact when the force sits on its aligned generator) and is capped at π/8. The next LCP
//!   checks the active set: a contact that should stick or lift does so there.
//! * If the model is singular: in 3-D a per-contact secant on (force angle, slip angle)
//!   samples, with torsion the maximal-dissipation force for the current slip,
//!   `argmax {−t·u_T : t ∈ S_1(1)}` (a fixed-point iteration).
//!
//! Pinned by `alignment_reaches_1e8_on_sliding_problems` (random problems with W = J M⁻¹ Jᵀ +
//! 10⁻³ I, 10 contacts of which at least 2 slide, a frictionless one among them): from the
//! plain answer's error above 10⁻⁴ to `Solved` at 10⁻⁸ within 8 LCP solves. When the placement
//! was written, it was measured (not pinned) converging quadratically on 10–200 contacts with
//! 3–117 sliding and on a 4-D round law, to below 10⁻¹⁰ in 3–5 LCP solves. Two simpler
//! placements were tried and dropped: adding the
//! maximal-dissipation generator each round (bisection of the bracketing edge, linear rate
//! ≈ 3 per round, and nearly parallel columns that broke Lemke's accuracy), and rotating the
//! whole pyramid onto it (a fixed-point iteration that stalled on 5 of 6 problems).
//!
//! Each LCP after the first is warm started: the complementary basis of the support of the
//! previous answer (the sliding contacts' force moved onto their new generator) is solved
//! with one dense LU and accepted when it is an LCP solution; near convergence the active set
//! does not change and this replaces the Lemke run. Otherwise Lemke starts cold. The loop ends
//! when the problem's error meets `tol`, when no sliding contact moves, when the error has not
//! improved by 1 % for three rounds, or after `refine` rounds; the best iterate is returned.
//!
//! When Lemke ends on a basis whose answer, recomputed from z, is off (pivots on tiny
//! elements: redundant contacts, as in Capsules and BoxesStack1, make the pyramid LCP
//! degenerate), the solve is repeated once with Harris' ratio test (`Lemke::harris`: the
//! largest pivot among the near-minimal ratios) and the better answer kept. Measured at tol
//! 1e-6: errors 0.24, 0.099, 0.021, 0.42 on Capsules-i101-404, -i100-1090, -i125-1213 and
//! BoxesStack1 become 3.0e-4, 3.6e-4, 1.1e-4, 8.0e-6 — better, not yet solved. When that
//! fails too, proximal rounds on the LCP regularized on its force block ([`proximal_lemke`]:
//! `M + εI`, `q − ε z_k`, Lemke warm from `z_k`, ε raised ×10 while Lemke fails on it) solve
//! BoxesStack1 and Capsules-i101-404 at 1e-6. A solve that ends stalled (at
//! the pyramid's linearisation error) or failed is repeated with twice the facets, warm from
//! its best answer, up to `max_facets`: Capsules-i100 and -i125 are solved
//! with 16 (`lemke_pyramid_survives_the_round_off_files` in `tests/honest_sweep.rs`).
//! Confeti-ex03, whose LCP error stops at 2.4e-6 (its z is large against q), is not. The
//! times of these solves are in `docs/performance.md` ("Frictional contact").
//!
//! Also a one-shot Stewart–Trinkle solver: `refine: 0`.
//!
//! The report's error is always the problem's own measure ([`FrictionContactProblem::error`],
//! Siconos' for Coulomb), recomputed from the returned r: a solve whose LCP succeeded but
//! whose error exceeds `tol` ends `Stalled` with a message naming the linearisation error.
//!
//! This file holds the options and the [`FrictionSolver`] impl; `run` the driver, `aligning` the
//! rounds the shared loop drives, `align` the alignment geometry, `lcp` the pyramid LCP,
//! `params` the parameters' defaults, list and constructor (`perp list`).

mod align;
mod aligning;
mod lcp;
pub mod params;
mod run;
#[cfg(test)]
mod tests;

use crate::cone::{norm, Cone, MAX_DIM};
use crate::problem::{friction_solver, start, FrictionContactProblem, FrictionSolution};
use align::*;
use aligning::*;
use lcp::*;
use perp_core::iteration::{self, Counters, IterativeMethod, StepResult};
#[cfg(test)]
use perp_core::{Control, Progress}; // the tests' observers
use perp_core::{Error, Settings, SolveReport, Status};
use perp_lcp::lemke::Lemke;
use perp_lcp::LcpSolver;
use run::*;
use std::f64::consts::PI;
use std::time::{Duration, Instant};

/// After this many LCP solves without a 1 % improvement of the error, alignment stops.
const PATIENCE: usize = 3;

/// An LCP answer whose Lemke error (Siconos' `‖min(z, w)‖/‖q‖`) is at most this is used even
/// when Lemke's own check against `tol` downgraded it.
const LCP_ACCEPT: f64 = 1e-6;

/// Lemke on the Stewart–Trinkle pyramid LCP, with pyramid alignment (registry name
/// `"lemke-pyramid"`; see the module documentation).
///
/// * `facets` — generators of each contact's base pyramid (default 8; ≥ 3 in 3-D and
///   above; 2-D contacts always use the two directions ±t, which are exact).
/// * `refine` — at most this many alignment rounds after the first LCP solve (default 20;
///   0 gives Stewart–Trinkle's plain linearised answer).
/// * `max_facets` — when alignment stops at the pyramid's linearisation error (`Stalled`) or
///   Lemke fails (`NumericalFailure`), the solve is repeated with twice the facets, warm from
///   the best answer, while that stays at most `max_facets` (default 32; `facets` or less:
///   never), the time limit and the pivot budget allow and the error improves.
///   Capsules-i100-1090 and -i125-1213 need 16 at 1e-6.
///
/// Settings: `tol` on the problem's error; `max_iter` is the total pivot budget over all LCP
/// solves (0: Lemke's default `100·(n+1)` per solve); the rounds run through the shared loop
/// ([`perp_core::iteration`], one LCP solve a step): `time_limit` is checked after every
/// solve and its remainder handed to Lemke; `record_history` keeps the error after every LCP
/// solve (after a failed one, the error of the best answer kept); the observer is called
/// after every LCP solve that does not meet `tol`; `iterations` are the pivots. A warm start
/// (length `dim · nc`) gives each contact that slides at it an extra generator at its
/// maximal-dissipation force there.
///
/// ```
/// use perp_cones::{lemke_pyramid::LemkePyramid, FrictionContactProblem, FrictionSolver};
/// use perp_core::{Matrix, Settings, Status};
/// // One 2-D contact, W = I: pressed down (q_N = −1) and pushed sideways hard (q_T = 2):
/// // it slides, r = (1, −μ).
/// let w = Matrix::from_row_major(2, 2, &[1.0, 0.0, 0.0, 1.0]).unwrap();
/// let p = FrictionContactProblem::new(2, w, vec![-1.0, 2.0], vec![0.5]).unwrap();
/// let sol = LemkePyramid::new().solve(&p, None, &Settings::default()).unwrap();
/// assert_eq!(sol.report.status, Status::Solved);
/// assert!((sol.r[0] - 1.0).abs() < 1e-14 && (sol.r[1] + 0.5).abs() < 1e-14);
/// ```
#[derive(Clone, Debug)]
pub struct LemkePyramid {
    /// Generators of each contact's base pyramid (default 8).
    pub facets: usize,
    /// Alignment rounds after the first solve (default 20).
    pub refine: usize,
    /// Facets up to which a stalled or failed solve is repeated with twice the facets
    /// (default 32).
    pub max_facets: usize,
}

impl Default for LemkePyramid {
    fn default() -> Self {
        LemkePyramid { facets: params::FACETS, refine: params::REFINE, max_facets: params::MAX_FACETS }
    }
}

impl LemkePyramid {
    /// 8 facets (up to 32 when the linearisation error stops alignment), at most 20 alignment
    /// rounds.
    pub fn new() -> Self {
        Self::default()
    }

    fn validate(&self, dim: usize) -> Result<(), Error> {
        if dim >= 3 && self.facets < 3 {
            return Err(Error::setting(
                "facets",
                self.facets,
                "a pyramid around a 3-D (or larger) contact needs at least 3 generators",
            ));
        }
        if self.facets > 4096 {
            return Err(Error::setting("facets", self.facets, "at most 4096 generators per contact"));
        }
        Ok(())
    }
}

// `solve_into` is [`LemkePyramid::solve_refining`], its answer copied into the buffers (it
// allocates).
friction_solver!(LemkePyramid, "lemke-pyramid", solution = LemkePyramid::solve_refining);

impl LemkePyramid {
    /// One run on the pyramid of [`LemkePyramid::facets`] generators, then, while the answer
    /// stalls or fails numerically (and alignment is on), runs on pyramids of twice the
    /// generators up to [`LemkePyramid::max_facets`], warm from the best answer so far, within
    /// what is left of the limits.
    fn solve_refining(
        &mut self,
        p: &FrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<FrictionSolution, Error> {
        let t0 = Instant::now();
        let mut sol = self.run(p, warm, s)?;
        let mut facets = self.facets;
        // Stalled: alignment stopped at the pyramid's linearisation error; a numerical failure:
        // Lemke's bases broke down on this pyramid (a finer one has other bases).
        let retry = |st: Status| matches!(st, Status::Stalled | Status::NumericalFailure);
        while retry(sol.report.status) && self.refine > 0 && 2 * facets <= self.max_facets {
            let time_limit = match s.time_limit {
                Some(t) => match t.checked_sub(t0.elapsed()) {
                    Some(left) if !left.is_zero() => Some(left),
                    _ => break,
                },
                None => None,
            };
            let max_iter = if s.max_iter > 0 {
                match s.max_iter.checked_sub(sol.report.iterations) {
                    Some(left) if left > 0 => left,
                    _ => break,
                }
            } else {
                0
            };
            facets *= 2;
            let finer = LemkePyramid { facets, ..self.clone() };
            let mut next = finer.run(p, Some(&sol.r), &Settings { time_limit, max_iter, ..s.clone() })?;
            let better = next.report.error < sol.report.error;
            let (pivots, its, facts) = (sol.report.pivots, sol.report.iterations, sol.report.factorizations);
            let (before, after) = (sol.report.error, next.report.error);
            if better {
                std::mem::swap(&mut sol, &mut next);
            }
            sol.report.pivots = pivots + next.report.pivots;
            sol.report.iterations = its + next.report.iterations;
            sol.report.factorizations = facts + next.report.factorizations;
            sol.report.elapsed = t0.elapsed();
            let note = if better {
                format!("answer from {facets} facets ({} ended at error {before:.1e})", facets / 2)
            } else {
                format!("{facets} facets tried, no better (error {after:.1e})")
            };
            sol.report.message = Some(match sol.report.message.take() {
                Some(m) if !m.is_empty() => format!("{m}; {note}"),
                _ => note,
            });
            if !better {
                break;
            }
        }
        Ok(sol)
    }
}
