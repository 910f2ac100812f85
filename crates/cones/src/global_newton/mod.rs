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
//! dense block per body for a block-diagonal M), as the local `ac-newton` chooses them. When
//! the factorization breaks down (redundant contacts make the matrix singular) a small
//! multiple of the identity is added to the `J_r` block and the factorization retried.
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
use perp_core::linear::mass::solve_rows;
use perp_core::linear::{MassFactor, Row, SparseLu};
use perp_core::{measures, Error, Settings, SolveReport, Status};
use std::time::Instant;

pub mod params;
mod prox_mode;
mod residual;
mod structure;

use prox_mode::ProxState;
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
    lu: SparseLu,
}

impl Default for GlobalNewton {
    fn default() -> Self {
        GlobalNewton {
            max_iter: params::MAX_ITER,
            rho_scale: params::RHO_SCALE,
            stall_iterations: params::STALL_ITERATIONS,
            lu: SparseLu::new(),
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

impl GlobalSolver for GlobalNewton {
    fn name(&self) -> &'static str {
        GlobalNewton::name(self)
    }

    fn solve_global(
        &mut self,
        g: &GlobalFrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<GlobalSolution, Error> {
        self.solve(g, warm, s)
    }
}

impl GlobalNewton {
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
        let start = Instant::now();
        g.validate()?;
        let (n, m, d) = (g.dofs(), g.size(), g.dim);
        let nc = g.contacts();
        if let Some(w) = warm {
            Error::check_len("warm start", w, m)?;
            Error::check_finite("warm start", w)?;
        }
        let cone = Coulomb::new(d)?;
        let factor = MassFactor::new_or_lu(&g.m)?;
        let st = Structure::new(g);
        let deadline = s.deadline(start);
        let max_iter = s.max_iter_or(self.max_iter);

        // ρ per contact from W_ii = H_iᵀ M⁻¹ H_i, and the data's velocity scale ‖q‖ with
        // q = Hᵀ M⁻¹ f + b (the local problem's, for the physical check).
        let rows = &st.h_cols;
        let refs: Vec<&Row> = rows.iter().collect();
        let y = solve_rows(&factor, n, &refs);
        // (W_ii[N,N], mean diag W_ii[T,T]) per contact; ρ for the operator W + σI.
        let wdiag: Vec<(f64, f64)> = (0..nc)
            .map(|i| {
                let w = |a: usize| y.row_dot_column(&rows[i * d + a], i * d + a);
                (w(0), (1..d).map(w).sum::<f64>() / (d - 1) as f64)
            })
            .collect();
        let w_max = wdiag.iter().fold(0.0_f64, |a, &(wn, wt)| a.max(wn).max(wt));
        let rho_for = |sigma: f64| -> Vec<(f64, f64)> {
            wdiag
                .iter()
                .map(|&(wn, wt)| {
                    let (wn, wt) = (wn + sigma, wt + sigma);
                    let rn = if wn > 0.0 && wn.is_finite() { 1.0 / wn } else { 1.0 };
                    let rt = if wt > 0.0 && wt.is_finite() { 1.0 / wt } else { rn };
                    (rn * self.rho_scale, rt * self.rho_scale)
                })
                .collect()
        };
        let mut rho = rho_for(0.0);
        let qn = free_velocity_norm(g, &factor);

        let mut r = warm.map_or_else(|| vec![0.0; m], <[f64]>::to_vec);
        let mut v = vec![0.0; n];
        g.h.mul_vec(&r, &mut v);
        v.iter_mut().zip(&g.f).for_each(|(a, b)| *a += b);
        factor.solve(&mut v, n, 1);

        let mut report = SolveReport::new(self.name());
        let (mut jr, mut ju) = (vec![0.0; nc * d * d], vec![0.0; nc * d * d]);
        let mut res = vec![0.0; n + m];
        let mut values = Vec::new();
        let mut step = vec![0.0; n + m];
        let (mut rt, mut vt) = (vec![0.0; m], vec![0.0; n]);
        let mut res_t = vec![0.0; n + m];
        // The best iterate met (global error, r, v), in storage kept from the start.
        let mut best = (f64::INFINITY, r.clone(), v.clone());
        let mut delta_kept = 0.0;
        let mut memory = NonMonotone::new(5);
        // The stall rule of the local Newton methods (no halving of the best global error in
        // `stall_iterations` iterations, the starting error included) and the proximal mode it
        // switches to; this solver runs its own loop, so it keeps the rule itself.
        let mut stall = StallRule::new(Stall {
            patience: self.stall_iterations,
            test: ProgressTest::Halving,
            mark: f64::INFINITY,
        });
        let mut prox: Option<ProxState> = None;
        let mut fr = Residual::new(g, cone);
        report.status = Status::MaxIterations;
        loop {
            let mut psi = fr.eval(&rho, (&r, &v), &mut res, Some((&mut jr, &mut ju)), prox.as_ref());
            if let Some(ps) = prox.as_mut() {
                if ps.update((2.0 * psi).sqrt(), &mut r, &mut v) {
                    rho = rho_for(ps.sigma);
                    psi = fr.eval(&rho, (&r, &v), &mut res, Some((&mut jr, &mut ju)), prox.as_ref());
                    if let Some(ps) = prox.as_mut() {
                        ps.phi_start = (2.0 * psi).sqrt();
                    }
                }
            }
            report.error = g.error(&r, &v);
            if s.record_history {
                report.history.push(report.error);
            }
            if report.error < best.0 {
                best.0 = report.error;
                best.1.copy_from_slice(&r);
                best.2.copy_from_slice(&v);
            }
            if report.error <= s.tol {
                report.status = Status::Solved;
                break;
            }
            if !psi.is_finite() {
                report.status = Status::NumericalFailure;
                report.message = Some("the residual is not finite".into());
                break;
            }
            if report.iterations >= max_iter {
                report.status = Status::MaxIterations;
                break;
            }
            if deadline.is_some_and(|t| Instant::now() >= t) {
                report.status = Status::TimeLimit;
                break;
            }
            let counters = Counters {
                pivots: 0,
                factorizations: report.factorizations,
                line_search_steps: report.line_search_steps,
            };
            if report.iterations > 0 && observe(s, report.iterations, report.error, start, counters, None) {
                report.status = Status::Interrupted;
                break;
            }
            if stall.observe(report.error) == Verdict::Stalled && prox.is_none() {
                prox = Some(ProxState::new(&r, &v, w_max));
                report.message = Some(format!(
                    "proximal from iteration {} (no halving of the error in {} iterations)",
                    report.iterations,
                    stall.since()
                ));
                stall.restart();
                continue;
            }
            report.iterations += 1;
            // The Newton direction, regularizing the J_r block when the LU breaks down; the
            // next iteration starts from the regularization that last worked (a redundant
            // contact set stays singular from step to step: no factorization is wasted).
            // A direction is taken when it solves the system to a relative residual of 1e-6
            // (an inexact Newton step); when no regularization gets there, the best one found
            // if it reduces the residual at least tenfold (still a descent direction of ½‖F‖²).
            let mut solved = false;
            let mut best_dir: Option<(f64, Vec<f64>)> = None;
            let first = DELTAS.iter().position(|&x| x >= delta_kept).unwrap_or(0);
            for &delta in &DELTAS[first..] {
                // The r columns are `J_r + σ J_u` in prox's mode (the exact Jacobian of its inner
                // problem). The local ac-newton's shift `c · mean diag W · min(error, 1)` on the
                // same columns was tried here: 28 of ball-pile 20's 33 steps instead of 33.
                st.fill(&jr, &ju, delta, prox.as_ref().map_or(0.0, |p| p.sigma), &mut values);
                report.factorizations += 1;
                if self.lu.factor(n + m, &st.col_ptr, &st.row_idx, &values).is_err() {
                    continue;
                }
                step.iter_mut().zip(&res).for_each(|(a, b)| *a = -b);
                if self.lu.solve_in_place(&mut step).is_err() {
                    continue;
                }
                let ratio = st.relative_residual(&values, &step, &res);
                if ratio <= 1e-6 {
                    solved = true;
                    delta_kept = delta;
                    break;
                }
                if ratio < 0.1 && best_dir.as_ref().is_none_or(|b| ratio < b.0) {
                    best_dir = Some((ratio, step.clone()));
                }
            }
            if !solved {
                if let Some((_, dir)) = best_dir {
                    step.copy_from_slice(&dir);
                    solved = true;
                }
            }
            if !solved {
                report.status = Status::NumericalFailure;
                report.message = Some("the Newton matrix stayed singular after regularization".into());
                break;
            }
            // Non-monotone Armijo backtracking on ψ = ½‖F‖² (the Newton direction's slope is
            // −2ψ), against the largest ψ of the last five iterations; the full step when no
            // trial passes. (Monotone and without the proximal mode: 29 of the 33 steps of
            // ball-pile 20 in tests/global_harvest.rs; with both: 33.)
            let mut t = 1.0;
            let mut accepted = false;
            memory.remember(psi);
            let psi_ref = memory.reference(psi);
            for _ in 0..30 {
                report.line_search_steps += 1;
                for k in 0..n {
                    vt[k] = v[k] + t * step[k];
                }
                for k in 0..m {
                    rt[k] = r[k] + t * step[n + k];
                }
                let psi_t = fr.eval(&rho, (&rt, &vt), &mut res_t, None, prox.as_ref());
                if psi_t <= (1.0 - 2e-4 * t) * psi_ref {
                    accepted = true;
                    break;
                }
                t *= 0.5;
            }
            if !accepted {
                t = 1.0;
            }
            for k in 0..m {
                r[k] += t * step[n + k];
            }
            // v back on the equation M v = f + H r: its row of the step holds only to the
            // solve's accuracy (an inexact or regularized direction), and what it leaves would
            // stay in the global error; one solve with M's factor (block by block for bodies).
            g.h.mul_vec(&r, &mut v);
            v.iter_mut().zip(&g.f).for_each(|(a, b)| *a += b);
            factor.solve(&mut v, n, 1);
        }
        // The best iterate met (by the global error) is the answer when the last is worse.
        if report.status != Status::Solved && best.0 < report.error {
            (report.error, r, v) = best;
        }
        // The max-norm of F = (M v − H r − f, Φ) at the answer.
        fr.eval(&rho_for(0.0), (&r, &v), &mut res, None, None);
        report.residual_inf = res.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        let u = check_answer(g, qn, (&r, &v), &mut report, s.tol);
        report.elapsed = start.elapsed();
        Ok(GlobalSolution { r, v, u, report, analyses: self.lu.analyses() })
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
        assert!(sol.analyses == 1);
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
