//! The steps of [`GlobalNewton::solve`]: what a solve reads ([`Setup`]) and the iterate with
//! the storage its iterations change ([`Iterate`]).

use super::*;
use crate::global::{limit_reached, ContactRows};
use perp_core::linear::mass::delassus_diagonal_of;
use std::sync::OnceLock;

/// What a solve reads: M's factor, the Newton matrix's pattern, the contacts' Delassus
/// diagonals (for ρ) and the data's velocity scale.
pub(super) struct Setup {
    pub(super) factor: std::sync::Arc<MassFactor>,
    /// The Newton matrix's pattern, built at the first direction ([`Setup::structure`]): a
    /// start that meets the tolerance (a settled time step's warm start) needs none.
    st: OnceLock<Structure>,
    /// `(W_ii[N,N], mean diag W_ii[T,T])` per contact, `W_ii = H_iᵀ M⁻¹ H_i`.
    wdiag: Vec<(f64, f64)>,
    /// The largest entry of `wdiag`.
    pub(super) w_max: f64,
    /// The regularisation's scale `c · w̄` (`c` = [`GlobalNewton::regularization`], `w̄` the
    /// mean diagonal entry of W): the shift is this times `min(1, e_k)`.
    reg_scale: f64,
    /// `w̄`, the mean diagonal entry of W.
    w_mean: f64,
    rho_scale: f64,
    /// The local problem's `‖q‖` with `q = Hᵀ M⁻¹ f + b` (for the physical check).
    pub(super) qn: f64,
}

impl Setup {
    /// The diagonals from M's `factor`.
    pub(super) fn new(
        g: &GlobalFrictionContactProblem,
        factor: std::sync::Arc<MassFactor>,
        rho_scale: f64,
        regularization: f64,
    ) -> Setup {
        let (n, d, nc) = (g.dofs(), g.dim, g.contacts());
        // W's diagonal from H's columns in place, without keeping Y = M⁻¹ Hᵀ (the same
        // numbers as Y's, bit for bit).
        let mut kept = Vec::new();
        let w = match g.contact_rows_in(&mut kept) {
            ContactRows::Columns(c) => delassus_diagonal_of(&factor, n, &c),
            ContactRows::Rows(r) => delassus_diagonal_of(&factor, n, r),
        };
        let wdiag: Vec<(f64, f64)> = (0..nc)
            .map(|i| {
                let w = |a: usize| w[i * d + a];
                (w(0), (1..d).map(w).sum::<f64>() / (d - 1) as f64)
            })
            .collect();
        let w_max = wdiag.iter().fold(0.0_f64, |a, &(wn, wt)| a.max(wn).max(wt));
        let qn = free_velocity_norm(g, &factor);
        let w_mean =
            wdiag.iter().map(|&(wn, wt)| wn + (d - 1) as f64 * wt).sum::<f64>() / (nc * d).max(1) as f64;
        Setup {
            factor,
            st: OnceLock::new(),
            wdiag,
            w_max,
            reg_scale: regularization * w_mean,
            w_mean,
            rho_scale,
            qn,
        }
    }

    /// The same setup for another `rho_scale` and regularization constant: M's factor shared,
    /// the diagonals copied, the pattern built anew when needed.
    pub(super) fn with(&self, rho_scale: f64, regularization: f64) -> Setup {
        Setup {
            factor: self.factor.clone(),
            st: OnceLock::new(),
            wdiag: self.wdiag.clone(),
            reg_scale: regularization * self.w_mean,
            rho_scale,
            ..*self
        }
    }

    /// The Newton matrix's pattern for `g` (this setup's problem), built at the first call.
    pub(super) fn structure(&self, g: &GlobalFrictionContactProblem) -> &Structure {
        self.st.get_or_init(|| Structure::new(g))
    }

    /// `(ρ_N, ρ_T)` per contact for the operator `W + σI`.
    pub(super) fn rho(&self, sigma: f64) -> Vec<(f64, f64)> {
        self.wdiag
            .iter()
            .map(|&(wn, wt)| {
                let (wn, wt) = (wn + sigma, wt + sigma);
                let rn = if wn > 0.0 && wn.is_finite() { 1.0 / wn } else { 1.0 };
                let rt = if wt > 0.0 && wt.is_finite() { 1.0 / wt } else { rn };
                (rn * self.rho_scale, rt * self.rho_scale)
            })
            .collect()
    }
}

/// The iterate (r, v), the best one met, the stall rule, the proximal mode and the storage
/// of the iterations (allocated once).
pub(super) struct Iterate<'a> {
    g: &'a GlobalFrictionContactProblem,
    setup: &'a Setup,
    fr: Residual<'a>,
    r: Vec<f64>,
    v: Vec<f64>,
    rho: Vec<(f64, f64)>,
    jr: Vec<f64>,
    ju: Vec<f64>,
    res: Vec<f64>,
    values: Vec<f64>,
    step: Vec<f64>,
    rt: Vec<f64>,
    vt: Vec<f64>,
    res_t: Vec<f64>,
    /// The best iterate met (global error, r, v), in storage kept from the start.
    best: (f64, Vec<f64>, Vec<f64>),
    /// The regularization of the last direction found.
    delta_kept: f64,
    memory: NonMonotone,
    /// The stall rule of the local Newton methods (no halving of the best global error in
    /// `stall_iterations` iterations, the starting error included) and the proximal mode it
    /// switches to; this solver runs its own loop, so it keeps the rule itself.
    stall: StallRule,
    prox: Option<ProxState>,
    /// Whether directions come from the system reduced to the velocities
    /// ([`Iterate::reduce`]), while it serves: not after [`REDUCED_MISSES`] of its directions
    /// were not taken.
    reduce: bool,
    /// That system, built at the first direction (a warm start within tol needs none).
    reduced: Option<Reduced>,
    reduced_misses: usize,
    /// Whether the convex relaxation's body graph is this problem's
    /// ([`GraphSystem::prepare`], at the first direction).
    graph_ready: bool,
}

/// Reduced directions not taken after which a solve solves the (v, r) system only.
const REDUCED_MISSES: usize = 3;

impl<'a> Iterate<'a> {
    /// The start: r = `warm` (zero when `None`), v = `M⁻¹ (f + H r)`.
    pub(super) fn new(
        g: &'a GlobalFrictionContactProblem,
        setup: &'a Setup,
        (cone, convex): (Coulomb, bool),
        warm: Option<&[f64]>,
        stall_iterations: usize,
    ) -> Self {
        let (n, m, d, nc) = (g.dofs(), g.size(), g.dim, g.contacts());
        let r = warm.map_or_else(|| vec![0.0; m], <[f64]>::to_vec);
        let mut v = vec![0.0; n];
        g.velocity_into(&setup.factor, &r, &mut v);
        let stall = Stall { patience: stall_iterations, test: ProgressTest::Halving, mark: f64::INFINITY };
        Iterate {
            g,
            setup,
            fr: Residual::new(g, cone, convex),
            rho: setup.rho(0.0),
            jr: vec![0.0; nc * d * d],
            ju: vec![0.0; nc * d * d],
            res: vec![0.0; n + m],
            values: Vec::new(),
            step: vec![0.0; n + m],
            rt: vec![0.0; m],
            vt: vec![0.0; n],
            res_t: vec![0.0; n + m],
            best: (f64::INFINITY, r.clone(), v.clone()),
            r,
            v,
            delta_kept: 0.0,
            memory: NonMonotone::new(5),
            stall: StallRule::new(stall),
            prox: None,
            reduce: false,
            reduced: None,
            reduced_misses: 0,
            graph_ready: false,
        }
    }

    /// Whether the run goes on in the proximal mode (it stalled).
    pub(super) fn proximal(&self) -> bool {
        self.prox.is_some()
    }

    /// Newton directions from the system reduced to the velocities ([`NewtonSystem::Velocities`]).
    pub(super) fn reduce(&mut self) {
        self.reduce = true;
    }

    /// F and its Jacobian blocks at the iterate, after the proximal mode's update of its
    /// reference point (which may move the iterate and ρ); returns `ψ = ½‖F‖²`.
    pub(super) fn evaluate(&mut self) -> f64 {
        let jac = Some((&mut self.jr[..], &mut self.ju[..]));
        let mut psi = self.fr.eval(&self.rho, (&self.r, &self.v), &mut self.res, jac, self.prox.as_ref());
        if let Some(ps) = self.prox.as_mut() {
            if ps.update((2.0 * psi).sqrt(), &mut self.r, &mut self.v) {
                self.rho = self.setup.rho(ps.sigma);
                let jac = Some((&mut self.jr[..], &mut self.ju[..]));
                psi = self.fr.eval(&self.rho, (&self.r, &self.v), &mut self.res, jac, self.prox.as_ref());
                if let Some(ps) = self.prox.as_mut() {
                    ps.phi_start = (2.0 * psi).sqrt();
                }
            }
        }
        psi
    }

    /// The iterate's global error (the convex relaxation's in its mode) into the report (and
    /// its history when `history`), the iterate kept when it is the best so far.
    pub(super) fn record(&mut self, report: &mut SolveReport, history: bool) {
        report.error = if self.fr.convex {
            self.g.convex_error(&self.r, &self.v)
        } else {
            self.g.error(&self.r, &self.v)
        };
        if history {
            report.history.push(report.error);
        }
        if report.error < self.best.0 {
            self.best.0 = report.error;
            self.best.1.copy_from_slice(&self.r);
            self.best.2.copy_from_slice(&self.v);
        }
    }

    /// The stall rule on the iterate's error: when the method stalls outside the proximal
    /// mode it switches to it (`true`: the iteration starts again from the evaluation).
    pub(super) fn switch_on_stall(&mut self, report: &mut SolveReport) -> bool {
        if self.stall.observe(report.error) != Verdict::Stalled || self.prox.is_some() {
            return false;
        }
        self.prox = Some(ProxState::new(&self.r, &self.v, self.setup.w_max));
        report.message = Some(format!(
            "proximal from iteration {} (no halving of the error in {} iterations)",
            report.iterations,
            self.stall.since()
        ));
        self.stall.restart();
        true
    }

    /// The Newton direction into `step`, regularizing the J_r block when the LU breaks down;
    /// the next iteration starts from the regularization that last worked (a redundant
    /// contact set stays singular from step to step: no factorization is wasted). A direction
    /// is taken when it solves the system to a relative residual of 1e-6 (an inexact Newton
    /// step); when no regularization gets there, the best one found if it reduces the
    /// residual at least tenfold (still a descent direction of ½‖F‖²). `false`: none.
    pub(super) fn direction(
        &mut self,
        (lu, lu_v, kept): (&mut SparseLu, &mut VelocityFactor, &mut Option<Reduced>),
        report: &mut SolveReport,
    ) -> bool {
        let mut best_dir: Option<(f64, Vec<f64>)> = None;
        let first = DELTAS.iter().position(|&x| x >= self.delta_kept).unwrap_or(0);
        // The r columns are `J_r + σ J_u`: σ of prox's mode (the exact Jacobian of its inner
        // problem) plus the regularisation (module docs).
        let e = if report.error.is_finite() { report.error.min(1.0) } else { 1.0 };
        let sigma = self.prox.as_ref().map_or(0.0, |p| p.sigma) + self.setup.reg_scale * e;
        let size = self.res.len();
        for &delta in &DELTAS[first..] {
            let jac = (&self.jr[..], &self.ju[..]);
            // The convex relaxation's reduced system on the body graph: no (v, r) structure.
            if let (true, Some((chol, sys))) = (self.reduce, lu_v.chol.as_mut()) {
                if !self.graph_ready {
                    sys.prepare(self.g);
                    self.graph_ready = true;
                }
                let rr = sys.direction(chol, self.g, jac, (delta, sigma), &self.res, &mut self.step, report);
                if rr.is_ok_and(|rr| rr <= 1e-6) {
                    self.delta_kept = delta;
                    return true;
                }
                self.reduced_misses += 1;
                self.reduce = self.reduced_misses < REDUCED_MISSES;
            }
            if self.reduce && lu_v.chol.is_none() {
                // Read from M and H, and checked by products with them: the (v, r) structure
                // is built only when a direction falls back to it.
                let g = self.g;
                let red = self.reduced.get_or_insert_with(|| match kept.take() {
                    Some(r) => r.renew(g),
                    None => Reduced::new(g),
                });
                if red.direction(jac, (delta, sigma), &self.res, &mut self.step, &mut lu_v.lu, report).is_ok()
                    && red.relative_residual(g, (jac, (delta, sigma)), &self.res, &self.step) <= 1e-6
                {
                    self.delta_kept = delta;
                    return true;
                }
                self.reduced_misses += 1;
                self.reduce = self.reduced_misses < REDUCED_MISSES;
            }
            let st = self.setup.structure(self.g);
            st.fill(&self.jr, &self.ju, delta, sigma, &mut self.values);
            report.factorizations += 1;
            if lu.factor(size, &st.col_ptr, &st.row_idx, &self.values).is_err() {
                continue;
            }
            self.step.iter_mut().zip(&self.res).for_each(|(a, b)| *a = -b);
            if lu.solve_in_place(&mut self.step).is_err() {
                continue;
            }
            let ratio = st.relative_residual(&self.values, &self.step, &self.res);
            if ratio <= 1e-6 {
                self.delta_kept = delta;
                return true;
            }
            if ratio < 0.1 && best_dir.as_ref().is_none_or(|b| ratio < b.0) {
                best_dir = Some((ratio, self.step.clone()));
            }
        }
        let Some((_, dir)) = best_dir else { return false };
        self.step.copy_from_slice(&dir);
        true
    }

    /// Non-monotone Armijo backtracking on ψ = ½‖F‖² (the Newton direction's slope is −2ψ),
    /// against the largest ψ of the last five iterations; the full step when no trial
    /// passes. (Monotone and without the proximal mode: 29 of the 33 steps of ball-pile 20
    /// in tests/global_harvest.rs; with both: 33.) Returns the step length.
    pub(super) fn line_search(&mut self, psi: f64, report: &mut SolveReport) -> f64 {
        let (n, m) = (self.v.len(), self.r.len());
        let mut t = 1.0;
        self.memory.remember(psi);
        let psi_ref = self.memory.reference(psi);
        for _ in 0..30 {
            report.line_search_steps += 1;
            for k in 0..n {
                self.vt[k] = self.v[k] + t * self.step[k];
            }
            for k in 0..m {
                self.rt[k] = self.r[k] + t * self.step[n + k];
            }
            let psi_t =
                self.fr.eval(&self.rho, (&self.rt, &self.vt), &mut self.res_t, None, self.prox.as_ref());
            if psi_t <= (1.0 - 2e-4 * t) * psi_ref {
                return t;
            }
            t *= 0.5;
        }
        1.0
    }

    /// r moved by `t` along the direction, and v put back on the equation `M v = f + H r`:
    /// its row of the step holds only to the solve's accuracy (an inexact or regularized
    /// direction), and what it leaves would stay in the global error; one solve with M's
    /// factor (block by block for bodies).
    pub(super) fn advance(&mut self, t: f64) {
        let n = self.v.len();
        for (k, rk) in self.r.iter_mut().enumerate() {
            *rk += t * self.step[n + k];
        }
        self.g.velocity_into(&self.setup.factor, &self.r, &mut self.v);
    }

    /// The answer (r, v): the best iterate met (by the global error) when the last is worse
    /// and the report is not `Solved`; `report.residual_inf` the max-norm of
    /// `F = (M v − H r − f, Φ)` at it; the reduced system's pattern when a direction built
    /// one (kept for the next solve).
    pub(super) fn finish(self, report: &mut SolveReport) -> (Vec<f64>, Vec<f64>, Option<Reduced>) {
        let Iterate { setup, mut fr, mut r, mut v, mut res, best, reduced, .. } = self;
        if report.status != Status::Solved && best.0 < report.error {
            (report.error, r, v) = best;
        }
        fr.eval(&setup.rho(0.0), (&r, &v), &mut res, None, None);
        report.residual_inf = res.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        (r, v, reduced)
    }
}

/// Whether the iterations end before another step, the report's status (and message) set
/// when they do: the tolerance, a residual that is not finite, the iteration limit, the time
/// limit, and the observer (from the second iteration on).
pub(super) fn ended(
    report: &mut SolveReport,
    psi: f64,
    s: &Settings,
    max_iter: usize,
    start: Instant,
) -> bool {
    let status = if report.error <= s.tol {
        Status::Solved
    } else if !psi.is_finite() {
        report.message = Some("the residual is not finite".into());
        Status::NumericalFailure
    } else if let Some(limit) = limit_reached(report.iterations, max_iter, s, start) {
        limit
    } else {
        let counters = Counters {
            pivots: 0,
            factorizations: report.factorizations,
            line_search_steps: report.line_search_steps,
        };
        if report.iterations > 0 && observe(s, report.iterations, report.error, start, counters, None) {
            Status::Interrupted
        } else {
            return false;
        }
    };
    report.status = status;
    true
}
