//! `apgd`: accelerated projected gradient (Nesterov) with a De Saxcé fixed-point outer loop.
//!
//! Mazhar, Heyn, Negrut & Tasora, "Using Nesterov's method to accelerate multibody dynamics
//! with friction and contact", ACM ToG 34(3), 2015 (APGD, Chrono's default solver): on the cone-constrained quadratic program
//!
//! ```text
//!     min f(r) = ½ rᵀ W r + q_sᵀ r   s.t.  r ∈ K = K_1 × … × K_nc,
//! ```
//!
//! each iteration takes a projected gradient step from the extrapolated point y,
//! `r⁺ = P_K(y − t ∇f(y))`, with the step t = 1/L found by Lipschitz backtracking (L doubled
//! until `f(r⁺) ≤ f(y) + ∇f(y)·(r⁺ − y) + L/2 ‖r⁺ − y‖²`, then shrunk by 0.9 for the next
//! iteration), Nesterov's extrapolation `y⁺ = r⁺ + β (r⁺ − r)` with
//! `θ⁺ = (−θ² + θ √(θ² + 4))/2`, `β = θ(1 − θ)/(θ² + θ⁺)`, and the adaptive restart
//! (`∇f(y)·(r⁺ − r) > 0` ⇒ `y⁺ = r⁺`, θ = 1). The best iterate by the error is returned (the
//! paper's γ_best, kept by the shared iteration loop).
//!
//! **What is solved.** With a fixed `q_s` this is the convex (associated-law, "CCP")
//! relaxation, whose answer violates Coulomb's law where contacts slide (it lifts them: u_N > 0).
//! Here `q_s = q + Σ_i h_i(u_{i,T}) e_{N,i}` (μ‖u_T‖ for Coulomb) is the De Saxcé shift, and
//! an outer fixed-point loop updates it from the current velocity — as Siconos' convex-QP
//! formulations of the frictional problem do (the fixed point on s compared in Acary,
//! Brémond & Huber 2018) — whenever the convex problem's own residual has fallen by `s_ratio`
//! since the last update, or after `s_every` iterations. At an update, a contact whose
//! gradient step `r_i − t ũ_i` stays inside its cone sticks in the convex problem and gets
//! no shift ([`Apgd::stick_test`], on by default): at its solution ũ_i = 0, so u_{i,T} = 0
//! and the velocity's shift is 0 as well, but the inexact iterate's μ‖u_{i,T}‖ pushed a
//! sticking contact off its cone at every update when μ is large (W = I, q = (−1, 2, 0),
//! μ = 1e3: 4 607 iterations; 20 000 unsolved at 1e6; with the test 1 iteration each). The
//! fixed points are the same. A fixed point of both loops solves
//! the Coulomb problem in De Saxcé's form, and the error reported and tested is perp's
//! (Siconos' fc3d error) on the Coulomb problem, never the relaxation's. The momentum is
//! restarted at every update of s. Any [`Cone`] works: the method needs only its projection
//! and its maximal dissipation.
//!
//! **Threads** (`Settings::threads`): the products with W (by fixed chunks of rows), the
//! projections (by fixed chunks of contacts) and the reductions (dot products, the
//! objective, the convex residual: partial sums over fixed chunks, added in order) run in
//! parallel; the answer is the same, bit for bit, for any thread count, and for vectors of
//! at most `REDUCE_CHUNK` entries the arithmetic is the plain sequential one.
//!
//! Cost per iteration: one product with W per backtracking trial (the extrapolated point's
//! product is the same combination of the iterates' ones), projections, and the error from
//! `u = W r + q`. Prepared solves keep W's CSR copy, the cone objects and the iteration
//! vectors: a Coulomb problem of the same structure is solved without allocating.

use crate::admm::{norm, shifted_q};
use crate::cone::Cone;
use crate::delassus::Blocks;
use crate::problem::{
    message_buffer, opaque_workspace, prepare_first_order, prepared_solver, reset_report, ConeCache,
    FrictionContactProblem, FrictionSolutionMut, Job,
};
use perp_core::iteration::{self, Counters};
use perp_core::parallel::{Par, REDUCE_CHUNK};
use perp_core::{Error, IterativeMethod, StepResult};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

pub mod params;

/// APGD with the De Saxcé outer loop. Defaults: s updated when the convex residual has
/// fallen ×10 (`s_ratio` 0.1) or every 100 iterations, L shrunk by 0.9 after each iteration,
/// 20 000 iterations.
#[derive(Clone, Debug)]
pub struct Apgd {
    /// Update the De Saxcé shift when the convex problem's residual is below this fraction
    /// of its value at the last update, in (0, 1).
    pub s_ratio: f64,
    /// Update the shift at least every this many iterations (≥ 1).
    pub s_every: usize,
    /// The Lipschitz estimate is multiplied by this after every iteration, in (0, 1].
    pub l_shrink: f64,
    /// A contact whose gradient step stays inside its cone gets no De Saxcé shift at an
    /// update (see [`Apgd`]'s module docs); off, every shift is taken from `u = W r + q`.
    pub stick_test: bool,
    /// What is kept between calls to [`FrictionSolver::solve_into`].
    pub workspace: Workspace,
}

impl Default for Apgd {
    fn default() -> Self {
        Apgd {
            s_ratio: params::S_RATIO,
            s_every: params::S_EVERY,
            l_shrink: params::L_SHRINK,
            stick_test: params::STICK_TEST,
            workspace: Workspace::default(),
        }
    }
}

impl Apgd {
    /// The default APGD.
    pub fn new() -> Self {
        Self::default()
    }

    fn validate(&self) -> Result<(), Error> {
        Error::require(
            self.s_ratio > 0.0 && self.s_ratio < 1.0,
            "s_ratio",
            self.s_ratio,
            "must lie in (0, 1)",
        )?;
        Error::require(self.s_every > 0, "s_every", 0, "must be ≥ 1")?;
        Error::require(
            self.l_shrink > 0.0 && self.l_shrink <= 1.0,
            "l_shrink",
            self.l_shrink,
            "must lie in (0, 1]",
        )?;
        Ok(())
    }
}

/// Default iteration limit.
const DEFAULT_MAX_ITER: usize = 20_000;

/// Backtracking trials per iteration before the step is taken anyway.
const MAX_TRIALS: usize = 60;

/// What [`Apgd`] keeps between calls to [`FrictionSolver::solve_into`]: W's CSR copy, the cone
/// objects and the iteration vectors. Opaque; `Workspace::default()` is empty (the next solve
/// prepares afresh), and a clone is empty.
#[derive(Default)]
pub struct Workspace {
    blocks: Option<Blocks>,
    cones: ConeCache,
    /// See the indices below.
    vecs: [Vec<f64>; 10],
}

opaque_workspace!(Workspace);

/// Indices into [`Workspace::vecs`] used by name (the others are destructured in order:
/// previous r, y, W r, previous W r, W y, trial, W trial, q_s, scratch, best r).
const WR: usize = 2;
const QS: usize = 7;
const BEST: usize = 9;

struct Method<'a> {
    opts: &'a Apgd,
    p: &'a FrictionContactProblem,
    blocks: &'a Blocks,
    cones: &'a [Arc<dyn Cone>],
    coulomb: bool,
    r: &'a mut [f64],
    u: &'a mut [f64],
    v: &'a mut [Vec<f64>; 10],
    par: Par,
    lipschitz: f64,
    theta: f64,
    /// The convex residual at the last update of s, and the iterations since.
    phase_residual: f64,
    phase_steps: usize,
    trials: usize,
    /// The step size 1/L of the last step's accepted trial (the observer's log).
    last_t: Option<f64>,
    restarts: usize,
    s_updates: usize,
    /// No shift has been set yet.
    first_shift: bool,
}

/// `½ xᵀ(Wx) + qsᵀx`, summed in fixed chunks of `REDUCE_CHUNK` entries.
fn objective(par: &Par, x: &[f64], wx: &[f64], qs: &[f64]) -> f64 {
    let [f] = par.sum_chunks(x.len(), REDUCE_CHUNK, |r| {
        [x[r.clone()].iter().zip(&wx[r.clone()]).zip(&qs[r]).map(|((a, w), q)| a * (0.5 * w + q)).sum()]
    });
    f
}

/// `out_i = P_{K_i}(x_i)` for every contact, in parallel over fixed chunks of contacts.
fn project_all(par: &Par, cones: &[Arc<dyn Cone>], mu: &[f64], d: usize, x: &[f64], out: &mut [f64]) {
    par.for_each_chunk(out, PROJECT_CHUNK * d, |first, piece| {
        for (k, o) in piece.chunks_mut(d).enumerate() {
            let i = first / d + k;
            cones[i].project(mu[i], &x[d * i..d * (i + 1)], o);
        }
    });
}

/// Contacts per chunk of the parallel projections.
const PROJECT_CHUNK: usize = 512;

impl Method<'_> {
    /// `‖r − P_K(r − (W r + q_s))‖`: the natural map of the convex problem with s frozen.
    fn convex_residual(&mut self) -> f64 {
        let [_, _, wr, _, _, _, _, qs, tmp, _] = &mut *self.v;
        for k in 0..tmp.len() {
            tmp[k] = self.r[k] - (wr[k] + qs[k]);
        }
        let d = self.p.dim;
        let (tmp, r, cones, mu) = (&*tmp, &*self.r, self.cones, &self.p.mu);
        let [sum] = self.par.sum_chunks(cones.len(), REDUCE_CHUNK, |range| {
            let mut out = [0.0; crate::cone::MAX_DIM];
            let mut sum = 0.0;
            for i in range {
                let s = d * i..d * (i + 1);
                cones[i].project(mu[i], &tmp[s.clone()], &mut out[..d]);
                sum += r[s].iter().zip(&out[..d]).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
            }
            [sum]
        });
        sum.sqrt()
    }

    /// Updates s from `u` (which holds W r + q), restarts the momentum, starts a new phase.
    /// With [`Apgd::stick_test`], a contact whose gradient step `x_i = r_i − t ũ_i` (t = 1/L,
    /// ũ = W r + q_s with the current shift, none at the first update) stays inside its cone
    /// sticks in the convex problem, and gets no shift.
    fn update_shift(&mut self) {
        if self.opts.stick_test {
            let (t, d) = (1.0 / self.lipschitz, self.p.dim);
            let [_, _, wr, _, _, trial, wtrial, qs, _, _] = &mut *self.v;
            if self.first_shift {
                qs.copy_from_slice(&self.p.q);
            }
            for k in 0..wtrial.len() {
                wtrial[k] = self.r[k] - t * (wr[k] + qs[k]);
            }
            project_all(&self.par, self.cones, &self.p.mu, d, wtrial, trial);
            // `trial` ← the velocity each contact's shift is taken from.
            for (i, (v, x)) in trial.chunks_mut(d).zip(wtrial.chunks(d)).enumerate() {
                if v == x {
                    v.fill(0.0);
                } else {
                    v.copy_from_slice(&self.u[d * i..d * i + d]);
                }
            }
            let from = std::mem::take(trial);
            shifted_q(self.p, self.cones, self.coulomb, &from, qs);
            *trial = from;
        } else {
            shifted_q(self.p, self.cones, self.coulomb, self.u, &mut self.v[QS]);
        }
        self.first_shift = false;
        let [_, y, wr, _, wy, _, _, _, _, _] = &mut *self.v;
        y.copy_from_slice(self.r);
        wy.copy_from_slice(wr);
        self.theta = 1.0;
        self.phase_steps = 0;
        self.s_updates += 1;
        self.phase_residual = self.convex_residual();
    }
}

impl IterativeMethod for Method<'_> {
    fn initial_error(&mut self) -> Option<f64> {
        self.blocks.mul_with(self.r, &mut self.v[WR], &self.par);
        for k in 0..self.u.len() {
            self.u[k] = self.v[WR][k] + self.p.q[k];
        }
        self.update_shift();
        self.s_updates = 0;
        Some(self.p.error_with(self.cones, self.r, self.u))
    }

    fn last_step(&self) -> Option<f64> {
        self.last_t
    }

    fn step(&mut self) -> StepResult {
        let [prev, y, wr, wr_prev, wy, trial, wtrial, qs, tmp, _] = &mut *self.v;
        // ∇f(y) = W y + q_s (into tmp), f(y).
        for k in 0..tmp.len() {
            tmp[k] = wy[k] + qs[k];
        }
        let fy = objective(&self.par, y, wy, qs);
        let mut accepted = false;
        for _ in 0..MAX_TRIALS {
            self.trials += 1;
            let t = 1.0 / self.lipschitz;
            self.last_t = Some(t);
            for k in 0..trial.len() {
                wtrial[k] = y[k] - t * tmp[k];
            }
            project_all(&self.par, self.cones, &self.p.mu, self.p.dim, wtrial, trial);
            self.blocks.mul_with(trial, wtrial, &self.par);
            let (tr, yy, g) = (&*trial, &*y, &*tmp);
            let [lin, dist] = self.par.sum_chunks(tr.len(), REDUCE_CHUNK, |r| {
                let (mut lin, mut dist) = (0.0, 0.0);
                for k in r {
                    let d = tr[k] - yy[k];
                    lin += g[k] * d;
                    dist += d * d;
                }
                [lin, dist]
            });
            let ft = objective(&self.par, trial, wtrial, qs);
            if !ft.is_finite() {
                return StepResult::go(f64::NAN);
            }
            // Round-off allowance: the two sides agree to a few ulps of |f| at convergence.
            if ft <= fy + lin + 0.5 * self.lipschitz * dist + 1e-14 * fy.abs().max(ft.abs()) {
                accepted = true;
                break;
            }
            self.lipschitz *= 2.0;
        }
        let _ = accepted; // after MAX_TRIALS the last trial is taken (L has grown 2⁶⁰-fold)
        let theta = self.theta;
        let theta_next = 0.5 * (-theta * theta + theta * (theta * theta + 4.0).sqrt());
        let beta = theta * (1.0 - theta) / (theta * theta + theta_next);
        // Restart test on the gradient at y and the step r⁺ − r.
        let (tr, g, r) = (&*trial, &*tmp, &*self.r);
        let [slope] = self.par.sum_chunks(tr.len(), REDUCE_CHUNK, |range| {
            let mut slope = 0.0;
            for k in range {
                slope += g[k] * (tr[k] - r[k]);
            }
            [slope]
        });
        prev.copy_from_slice(self.r);
        wr_prev.copy_from_slice(wr);
        self.r.copy_from_slice(trial);
        wr.copy_from_slice(wtrial);
        if slope > 0.0 {
            y.copy_from_slice(self.r);
            wy.copy_from_slice(wr);
            self.theta = 1.0;
            self.restarts += 1;
        } else {
            for k in 0..y.len() {
                y[k] = self.r[k] + beta * (self.r[k] - prev[k]);
                wy[k] = wr[k] + beta * (wr[k] - wr_prev[k]);
            }
            self.theta = theta_next;
        }
        self.lipschitz *= self.opts.l_shrink;
        for k in 0..self.u.len() {
            self.u[k] = wr[k] + self.p.q[k];
        }
        // The De Saxcé outer loop.
        self.phase_steps += 1;
        if self.phase_steps >= self.opts.s_every
            || self.convex_residual() <= self.opts.s_ratio * self.phase_residual
        {
            self.update_shift();
        }
        StepResult::go(self.p.error_with(self.cones, self.r, self.u))
    }

    fn counters(&self) -> Counters {
        Counters { line_search_steps: self.trials, ..Counters::default() }
    }

    fn keep_best(&mut self) {
        self.v[BEST].copy_from_slice(self.r);
    }

    fn restore_best(&mut self) {
        self.r.copy_from_slice(&self.v[BEST]);
    }
}

prepared_solver!(
    Apgd, "apgd",
    workspace: Workspace, max_iter: DEFAULT_MAX_ITER, solve: Apgd::solve_with
);

impl Apgd {
    /// One round of a solve in `ws` (see [`crate::problem::Prepares::solve_in`]).
    fn solve_with(&self, ws: &mut Workspace, job: Job<'_>) -> Result<(), Error> {
        let start = Instant::now();
        let mut job = job;
        let blocks =
            prepare_first_order(&mut job, || self.validate(), &mut ws.cones, &mut ws.blocks, &mut ws.vecs)?;
        let Job { p, out: FrictionSolutionMut { r, u, report }, s, .. } = job;
        let n = p.size();
        let par = Par::new(s.threads)?;
        // L₀ = ‖W(r₀ − r̂)‖/‖r₀ − r̂‖ with r̂ = r₀ + 1 (the paper's initial estimate).
        let [ones, _, w_ones, ..] = &mut ws.vecs;
        ones.fill(1.0);
        blocks.mul(ones, w_ones);
        let l0 = norm(w_ones) / (n.max(1) as f64).sqrt();
        let lipschitz = if l0 > 0.0 && l0.is_finite() { l0 } else { 1.0 };
        let mut m = Method {
            opts: self,
            p,
            blocks,
            cones: &ws.cones.cones,
            coulomb: p.is_coulomb(),
            r,
            u,
            v: &mut ws.vecs,
            par,
            lipschitz,
            first_shift: true,
            theta: 1.0,
            phase_residual: f64::INFINITY,
            phase_steps: 0,
            trials: 0,
            last_t: None,
            restarts: 0,
            s_updates: 0,
        };
        let out =
            iteration::run_with(&mut m, s, DEFAULT_MAX_ITER, start, std::mem::take(&mut report.history));
        reset_report(report, "apgd");
        out.record(report);
        let (updates, restarts, l_end) = (m.s_updates, m.restarts, m.lipschitz);
        let Method { r, u, .. } = m;
        let _ = write!(
            message_buffer(report),
            "{updates} updates of the De Saxcé shift, {restarts} restarts, L = {l_end:.3e}"
        );
        p.solution_with(&ws.cones.cones, r, u, report, s.tol);
        Ok(())
    }
}
