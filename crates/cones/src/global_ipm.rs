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
//! by a sparse `LDLᵀ` ([`perp_core::linear::SparseCholesky::factor_quasi_definite`], AMD
//! ordering: the W² blocks, 3 × 3 per contact, are eliminated into `M + H̃ W⁻² H̃ᵀ`, which has
//! the sparsity of the body graph) with a static regularization of 10⁻¹⁰ of the diagonal's
//! scale, dynamic regularization of tiny pivots, and two steps of iterative refinement against
//! the unregularized matrix. The pattern is fixed for a problem: one symbolic analysis for all
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
//! the Newton method is not run. "Solved" means Siconos' global error of the returned (r, v),
//! recomputed, is at most `tol` and the answer passes the physical check of every frictional
//! solver, as for `global-ac-newton`.

use crate::cone::{Cone, MAX_DIM};
use crate::coulomb::Coulomb;
use crate::global::GlobalFrictionContactProblem;
use crate::global_newton::{check_answer, free_velocity_norm, GlobalNewton, GlobalSolution, GlobalSolver};
use perp_core::linear::{MassFactor, Row, SparseCholesky};
use perp_core::{Error, Settings, SolveReport, Status};
use std::time::Instant;

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
    chol: SparseCholesky,
    newton: GlobalNewton,
}

impl Default for GlobalIpm {
    fn default() -> Self {
        GlobalIpm {
            max_iter: 100,
            model: Model::Coulomb,
            fixed_point: 1,
            polish: true,
            chol: SparseCholesky::new(),
            newton: GlobalNewton::new(),
        }
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

    /// The method on the convex relaxation.
    pub fn convex() -> Self {
        GlobalIpm { model: Model::Convex, ..Self::default() }
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
            Model::Coulomb => self.solve_coulomb(g, warm, s),
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
    /// moved into the cones' interior by 10⁻¹ of their scale, instead of CVXOPT's start.
    pub fn solve_convex_from(
        &mut self,
        g: &GlobalFrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<(GlobalSolution, Certificate), Error> {
        let start = Instant::now();
        g.validate()?;
        if let Some(w) = warm {
            Error::check_len("warm start", w, g.size())?;
            Error::check_finite("warm start", w)?;
        }
        let factor = MassFactor::new_or_lu(&g.m)?;
        let lay = Layout::new(g, &factor);
        let shift = vec![0.0; g.contacts()];
        let start_point = warm.map(|r| lay.warm_point(g, &factor, r));
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

    fn solve_coulomb(
        &mut self,
        g: &GlobalFrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<GlobalSolution, Error> {
        let start = Instant::now();
        g.validate()?;
        if let Some(w) = warm {
            Error::check_len("warm start", w, g.size())?;
            Error::check_finite("warm start", w)?;
        }
        let factor = MassFactor::new_or_lu(&g.m)?;
        let qn = free_velocity_norm(g, &factor);
        let lay = Layout::new(g, &factor);
        let (nc, d) = (g.contacts(), g.dim);
        let mut report = SolveReport::new(self.name());
        let deadline = s.deadline(start);
        // Each convex solve of the fixed point a little tighter than the answer asked for (its
        // error is at least the inner solve's); a single solve that the Newton method
        // polishes needs only a start: 10⁻⁴ (Box_Stacks: 7 iterations in all against 10 with
        // 0.1·tol, the same answer; every suite file a few fewer).
        let mut inner = s.clone();
        inner.tol =
            if self.polish && self.fixed_point <= 1 { s.tol.max(1e-4) } else { (0.1 * s.tol).max(1e-14) };
        inner.record_history = false;
        let mut shift = vec![0.0; nc];
        let mut best: Option<(f64, Vec<f64>, Vec<f64>)> = None;
        let mut stalled = 0usize;
        // The first convex solve starts from the warm reactions when given (as
        // `solve_convex_from`), the later ones from CVXOPT's point.
        let mut start_point = warm.map(|r| lay.warm_point(g, &factor, r));
        let mut breakdown = None;
        for _ in 0..self.fixed_point.max(1) {
            let mut sub = SolveReport::new("global-ipm");
            let (r, v, _) =
                self.interior_point(g, &lay, (&shift, start_point.take()), &inner, start, &mut sub)?;
            report.iterations += sub.iterations;
            report.factorizations += sub.factorizations;
            if sub.status == Status::NumericalFailure && !r.iter().all(|x| x.is_finite()) {
                breakdown = sub.message;
                break;
            }
            let err = g.error(&r, &v);
            if s.record_history {
                report.history.push(err);
                report.history_iterations.push(report.iterations);
            }
            let improved = best.as_ref().is_none_or(|b| err < 0.5 * b.0);
            if best.as_ref().is_none_or(|b| err < b.0) {
                best = Some((err, r.clone(), v.clone()));
            }
            if err <= s.tol || deadline.is_some_and(|t| Instant::now() >= t) {
                break;
            }
            stalled = if improved { 0 } else { stalled + 1 };
            if stalled >= 2 {
                break;
            }
            let u = g.local_velocity(&v);
            for i in 0..nc {
                let ut = &u[i * d + 1..(i + 1) * d];
                shift[i] = g.mu[i] * ut.iter().map(|x| x * x).sum::<f64>().sqrt();
            }
        }
        let Some((mut err, mut r, mut v)) = best else {
            return Err(Error::Numerical {
                solver: "global-ipm".into(),
                message: breakdown.unwrap_or_else(|| "the interior-point iterates are not finite".into()),
            });
        };
        // An interior point never reaches the cones' boundary: a separated contact keeps a
        // tiny reaction, which fails the physical check relative to its own size. One step
        // of the natural map, r ← P_K(r − ρ ũ) and v = M⁻¹ (f + H r), puts it on the
        // boundary; it is kept when its error is within tol (or below the fixed point's).
        let (rp, vp) = project_once(g, &lay, &factor, &r, &v);
        let errp = g.error(&rp, &vp);
        if errp <= s.tol.max(err) {
            (err, r, v) = (errp, rp, vp);
        }
        report.error = err;
        report.status = if err <= s.tol { Status::Solved } else { Status::MaxIterations };
        let mut trial = report.clone();
        check_answer(g, qn, (&r, &v), &mut trial, s.tol);
        if trial.status != Status::Solved && self.polish && deadline.is_none_or(|t| Instant::now() < t) {
            let mut rest = s.clone();
            if let Some(t) = s.time_limit {
                rest.time_limit = Some(t.saturating_sub(start.elapsed()));
            }
            let polished = self.newton.solve(g, Some(&r), &rest)?;
            report.iterations += polished.report.iterations;
            report.factorizations += polished.report.factorizations;
            report.line_search_steps += polished.report.line_search_steps;
            if s.record_history {
                let base = report.iterations - polished.report.iterations;
                report.history.extend(&polished.report.history);
                report.history_iterations.extend(polished.report.history_iterations.iter().map(|k| base + k));
            }
            let from = if self.fixed_point > 1 { "the De Saxcé fixed point's" } else { "the convex" };
            report.message = Some(format!(
                "Coulomb error {err:.2e} at {from} answer; global-ac-newton from it: {}",
                polished.report.status
            ));
            if polished.report.status == Status::Solved || polished.report.error < err {
                report.error = polished.report.error;
                report.status = polished.report.status;
                report.residual_inf = polished.report.residual_inf;
                (r, v) = (polished.r, polished.v);
            }
        }
        if report.residual_inf.is_infinite() {
            report.residual_inf = natural_map_inf(g, &r, &v, true);
        }
        let u = check_answer(g, qn, (&r, &v), &mut report, s.tol);
        report.elapsed = start.elapsed();
        Ok(GlobalSolution { r, v, u, report, analyses: self.chol.analyses() })
    }
}

/// One step of the Coulomb natural map from (r, v): `r ← P_K(r − ρ ũ)` per contact, with
/// `ũ = (u_N + μ‖u_T‖, u_T)`, `u = Hᵀ v + b` and ρ the inverse of the contact's estimated
/// Delassus diagonal (`Σ_j H_jk² / M_jj` averaged over its rows), then `v = M⁻¹ (f + H r)`.
fn project_once(
    g: &GlobalFrictionContactProblem,
    lay: &Layout,
    factor: &MassFactor,
    r: &[f64],
    v: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let (n, d) = (g.dofs(), g.dim);
    // The dimension was validated (2 to 6): Coulomb's cone exists.
    let Ok(cone) = Coulomb::new(d) else { return (r.to_vec(), v.to_vec()) };
    let u = g.local_velocity(v);
    let rows = g.contact_rows();
    let mdiag: Vec<f64> = lay.mdiag.iter().map(|&k| lay.base[k].abs().max(f64::MIN_POSITIVE)).collect();
    let mut out = vec![0.0; g.size()];
    let mut x = [0.0; MAX_DIM];
    for i in 0..g.contacts() {
        let w: f64 = (0..d)
            .map(|a| rows[i * d + a].0.iter().map(|&(j, h)| h * h / mdiag[j]).sum::<f64>())
            .sum::<f64>()
            / d as f64;
        let rho = if w > 0.0 && w.is_finite() { 1.0 / w } else { 1.0 };
        let (ri, ui) = (&r[i * d..(i + 1) * d], &u[i * d..(i + 1) * d]);
        let ut = ui[1..].iter().map(|t| t * t).sum::<f64>().sqrt();
        x[0] = ri[0] - rho * (ui[0] + g.mu[i] * ut);
        for a in 1..d {
            x[a] = ri[a] - rho * ui[a];
        }
        cone.project(g.mu[i], &x[..d], &mut out[i * d..(i + 1) * d]);
    }
    let mut vp = vec![0.0; n];
    g.h.mul_vec(&out, &mut vp);
    vp.iter_mut().zip(&g.f).for_each(|(a, b)| *a += b);
    factor.solve(&mut vp, n, 1);
    (out, vp)
}

/// `‖r − P_K(r − ũ)‖∞` over the contacts (the natural map with ρ = 1), with the De Saxcé
/// term in ũ (the Coulomb problem) or without it (`ũ = u`: the convex relaxation).
fn natural_map_inf(g: &GlobalFrictionContactProblem, r: &[f64], v: &[f64], desaxce: bool) -> f64 {
    let d = g.dim;
    let Ok(cone) = Coulomb::new(d) else { return f64::NAN };
    let u = g.local_velocity(v);
    let (mut x, mut p) = ([0.0; MAX_DIM], [0.0; MAX_DIM]);
    let mut worst = 0.0_f64;
    for i in 0..g.contacts() {
        let (ri, ui) = (&r[i * d..(i + 1) * d], &u[i * d..(i + 1) * d]);
        let ut = ui[1..].iter().map(|t| t * t).sum::<f64>().sqrt();
        x[0] = ri[0] - ui[0] - if desaxce { g.mu[i] * ut } else { 0.0 };
        for a in 1..d {
            x[a] = ri[a] - ui[a];
        }
        cone.project(g.mu[i], &x[..d], &mut p[..d]);
        worst = (0..d).fold(worst, |w, a| w.max((ri[a] - p[a]).abs()));
    }
    worst
}

impl GlobalSolver for GlobalIpm {
    fn name(&self) -> &'static str {
        GlobalIpm::name(self)
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

/// A starting point of the interior-point iterations: the velocities v and the cone variables
/// z of an earlier answer.
type WarmPoint = Option<(Vec<f64>, Vec<f64>)>;

/// The cone variables of one problem and the fixed pattern of its KKT matrix.
struct Layout {
    n: usize,
    m: usize,
    /// Per contact: its first cone row and its rows (the contact's dimension, or 1 when μ = 0).
    cones: Vec<(usize, usize)>,
    /// The rows of `H̃ᵀ`, one per cone row: `(dof, value)`.
    rows: Vec<Row>,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    /// The KKT values with the `−W²` blocks zero.
    base: Vec<f64>,
    /// Per cone: where its block's first column starts in the values (the block's columns
    /// follow one another: rows `k..end` of column k).
    wstart: Vec<usize>,
    /// Where M's diagonal entries are in the values.
    mdiag: Vec<usize>,
    /// `‖H̃ᵀ M⁻¹ f‖∞`: the cone rows' velocity scale (of the free motion), which the primal
    /// residual and the gap are measured against when the answer's own velocities vanish (a
    /// sticking contact).
    vscale: f64,
}

impl Layout {
    fn new(g: &GlobalFrictionContactProblem, factor: &MassFactor) -> Layout {
        let (n, d) = (g.dofs(), g.dim);
        let h = g.contact_rows();
        let mut cones = Vec::with_capacity(g.contacts());
        let mut rows = Vec::with_capacity(g.size());
        for (i, &mu) in g.mu.iter().enumerate() {
            cones.push((rows.len(), if mu > 0.0 { d } else { 1 }));
            let mut normal = h[i * d].clone();
            if mu > 0.0 {
                normal.0.iter_mut().for_each(|(_, v)| *v /= mu);
                rows.push(normal);
                rows.extend(h[i * d + 1..(i + 1) * d].iter().cloned());
            } else {
                rows.push(normal);
            }
        }
        let m = rows.len();
        // H̃ by dofs: per dof the cone rows touching it, in ascending order (duplicates summed).
        let mut by_dof: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        for (k, row) in rows.iter().enumerate() {
            for &(j, v) in &row.0 {
                match by_dof[j].last_mut() {
                    Some((kk, w)) if *kk == k => *w += v,
                    _ => by_dof[j].push((k, v)),
                }
            }
        }
        let mcsc = g.m.to_csr().to_csc();
        let (mut col_ptr, mut row_idx, mut base) = (vec![0], Vec::new(), Vec::new());
        let mut mdiag = Vec::with_capacity(n);
        for j in 0..n {
            let mut lower: Vec<(usize, f64)> = mcsc
                .outer_view(j)
                .map(|c| c.iter().filter(|&(i, _)| i >= j).map(|(i, &v)| (i, v)).collect())
                .unwrap_or_default();
            lower.sort_by_key(|&(i, _)| i);
            if lower.first().is_none_or(|&(i, _)| i != j) {
                lower.insert(0, (j, 0.0));
            }
            mdiag.push(base.len());
            for (i, v) in lower {
                row_idx.push(i);
                base.push(v);
            }
            for &(k, v) in &by_dof[j] {
                row_idx.push(n + k);
                base.push(-v);
            }
            col_ptr.push(row_idx.len());
        }
        let mut wstart = Vec::with_capacity(cones.len());
        for &(off, p) in &cones {
            wstart.push(base.len());
            for a in 0..p {
                for b in a..p {
                    row_idx.push(n + off + b);
                    base.push(0.0);
                }
                col_ptr.push(row_idx.len());
            }
        }
        let mut lay = Layout { n, m, cones, rows, col_ptr, row_idx, base, wstart, mdiag, vscale: 0.0 };
        let mut vfree = g.f.clone();
        factor.solve(&mut vfree, n, 1);
        let mut y = vec![0.0; m];
        lay.ht_mul(&vfree, &mut y);
        lay.vscale = norm_inf(&y);
        lay
    }

    /// `b̃` for the De Saxcé shifts `shift` (one per contact, added to `b_N`).
    fn b_tilde(&self, g: &GlobalFrictionContactProblem, shift: &[f64]) -> Vec<f64> {
        let d = g.dim;
        let mut bt = vec![0.0; self.m];
        for (i, &(off, p)) in self.cones.iter().enumerate() {
            let mu = g.mu[i];
            let bn = g.b[i * d] + shift[i];
            bt[off] = if mu > 0.0 { bn / mu } else { bn };
            bt[off + 1..off + p].copy_from_slice(&g.b[i * d + 1..i * d + p]);
        }
        bt
    }

    /// `y = H̃ᵀ x`.
    fn ht_mul(&self, x: &[f64], y: &mut [f64]) {
        for (yk, row) in y.iter_mut().zip(&self.rows) {
            *yk = row.dot(x);
        }
    }

    /// `y = H̃ z`.
    fn h_mul(&self, z: &[f64], y: &mut [f64]) {
        y.iter_mut().for_each(|v| *v = 0.0);
        for (zk, row) in z.iter().zip(&self.rows) {
            row.axpy(*zk, y);
        }
    }

    /// The interior point's start from reactions r: `v = M⁻¹ (f + H r)` and r's cone
    /// variables.
    fn warm_point(
        &self,
        g: &GlobalFrictionContactProblem,
        factor: &MassFactor,
        r: &[f64],
    ) -> (Vec<f64>, Vec<f64>) {
        let mut x = vec![0.0; g.dofs()];
        g.h.mul_vec(r, &mut x);
        x.iter_mut().zip(&g.f).for_each(|(a, b)| *a += b);
        factor.solve(&mut x, g.dofs(), 1);
        (x, self.cone_variables(g, r))
    }

    /// The cone variables z of the reactions r (`z = (μ r_N, r_T)`; r_N alone when μ = 0).
    fn cone_variables(&self, g: &GlobalFrictionContactProblem, r: &[f64]) -> Vec<f64> {
        let d = g.dim;
        let mut z = vec![0.0; self.m];
        for (i, &(off, p)) in self.cones.iter().enumerate() {
            let mu = g.mu[i];
            z[off] = if mu > 0.0 { mu * r[i * d] } else { r[i * d] };
            z[off + 1..off + p].copy_from_slice(&r[i * d + 1..i * d + p]);
        }
        z
    }

    /// The reactions r of the cone variables z.
    fn reactions(&self, g: &GlobalFrictionContactProblem, z: &[f64]) -> Vec<f64> {
        let d = g.dim;
        let mut r = vec![0.0; g.size()];
        for (i, &(off, p)) in self.cones.iter().enumerate() {
            let mu = g.mu[i];
            r[i * d] = if mu > 0.0 { z[off] / mu } else { z[off] };
            r[i * d + 1..i * d + p].copy_from_slice(&z[off + 1..off + p]);
        }
        r
    }
}

/// Nesterov–Todd scaling of one second-order cone (Vandenberghe 2010 §4.2): `W = η W̄`,
/// `W̄ = [[w₀, w₁ᵀ], [w₁, I + w₁w₁ᵀ/(1 + w₀)]]`, `w̄ᵀJw̄ = 1`; `W z = W⁻¹ s = λ`.
#[derive(Clone, Copy)]
struct Nt {
    eta: f64,
    w: [f64; MAX_DIM],
}

/// `x₀² − ‖x₁‖²` computed as `(x₀ − ‖x₁‖)(x₀ + ‖x₁‖)`.
fn jnorm_sq(x: &[f64]) -> f64 {
    let t = x[1..].iter().map(|v| v * v).sum::<f64>().sqrt();
    (x[0] - t) * (x[0] + t)
}

impl Nt {
    fn new(s: &[f64], z: &[f64]) -> Nt {
        let p = s.len();
        let (ns, nz) = (jnorm_sq(s).max(0.0).sqrt(), jnorm_sq(z).max(0.0).sqrt());
        let mut sb = [0.0; MAX_DIM];
        let mut zb = [0.0; MAX_DIM];
        for a in 0..p {
            sb[a] = s[a] / ns;
            zb[a] = z[a] / nz;
        }
        let dot: f64 = (0..p).map(|a| sb[a] * zb[a]).sum();
        let gamma = ((1.0 + dot) / 2.0).sqrt();
        let mut w = [0.0; MAX_DIM];
        w[0] = (sb[0] + zb[0]) / (2.0 * gamma);
        for a in 1..p {
            w[a] = (sb[a] - zb[a]) / (2.0 * gamma);
        }
        Nt { eta: (ns / nz).sqrt(), w }
    }

    /// `y = W x` (or `W⁻¹ x`).
    fn apply(&self, x: &[f64], y: &mut [f64], inverse: bool) {
        let p = x.len();
        let w = &self.w;
        let sign = if inverse { -1.0 } else { 1.0 };
        let w1x1: f64 = (1..p).map(|a| w[a] * x[a]).sum();
        let scale = if inverse { 1.0 / self.eta } else { self.eta };
        y[0] = scale * (w[0] * x[0] + sign * w1x1);
        let c = sign * x[0] + w1x1 / (1.0 + w[0]);
        for a in 1..p {
            y[a] = scale * (x[a] + w[a] * c);
        }
    }

    /// Entry (a, b) of `W² = η² (2 w̄w̄ᵀ − J)`.
    fn w2(&self, a: usize, b: usize) -> f64 {
        let j = if a != b {
            0.0
        } else if a == 0 {
            1.0
        } else {
            -1.0
        };
        self.eta * self.eta * (2.0 * self.w[a] * self.w[b] - j)
    }
}

/// The Jordan product `x ∘ y = (xᵀy, x₀y₁ + y₀x₁)`.
fn jordan(x: &[f64], y: &[f64], out: &mut [f64]) {
    out[0] = x.iter().zip(y).map(|(a, b)| a * b).sum();
    for a in 1..x.len() {
        out[a] = x[0] * y[a] + y[0] * x[a];
    }
}

/// `λ \ d`: the y with `λ ∘ y = d` (λ in the cone's interior).
fn jordan_div(l: &[f64], d: &[f64], out: &mut [f64]) {
    let p = l.len();
    let det = jnorm_sq(l);
    let l1d1: f64 = (1..p).map(|a| l[a] * d[a]).sum();
    out[0] = (l[0] * d[0] - l1d1) / det;
    for a in 1..p {
        out[a] = (d[a] - out[0] * l[a]) / l[0];
    }
}

/// The largest α ≥ 0 (∞ for none) with `x + α dx` in the second-order cone, x interior.
fn step_to_boundary(x: &[f64], dx: &[f64]) -> f64 {
    let lin = if dx[0] < 0.0 { -x[0] / dx[0] } else { f64::INFINITY };
    if x.len() == 1 {
        return lin;
    }
    let a = jnorm_sq(dx);
    let b = x[0] * dx[0] - x[1..].iter().zip(&dx[1..]).map(|(p, q)| p * q).sum::<f64>();
    let c = jnorm_sq(x).max(0.0);
    // Roots of a α² + 2 b α + c (c > 0 at an interior point): the smallest positive one.
    let quad = if a == 0.0 {
        if b < 0.0 {
            -c / (2.0 * b)
        } else {
            f64::INFINITY
        }
    } else {
        let disc = b * b - a * c;
        if disc < 0.0 {
            f64::INFINITY
        } else {
            let t = -(b + b.signum() * disc.sqrt());
            let (r1, r2) = (t / a, if t != 0.0 { c / t } else { f64::INFINITY });
            [r1, r2].into_iter().filter(|&r| r > 0.0).fold(f64::INFINITY, f64::min)
        }
    };
    lin.min(quad)
}

fn norm_inf(x: &[f64]) -> f64 {
    x.iter().fold(0.0_f64, |a, v| a.max(v.abs()))
}

/// `x / scale`, 0 when both are 0.
fn ratio(x: f64, scale: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x / scale.max(f64::MIN_POSITIVE)
    }
}

/// The KKT system of one iteration: its values, factor and the scalings they came from.
struct Kkt<'a> {
    lay: &'a Layout,
    g: &'a GlobalFrictionContactProblem,
    values: Vec<f64>,
    signs: Vec<i8>,
    nt: Vec<Nt>,
    tmp: Vec<f64>,
    res: Vec<f64>,
    rhs: Vec<f64>,
}

impl<'a> Kkt<'a> {
    fn new(g: &'a GlobalFrictionContactProblem, lay: &'a Layout) -> Kkt<'a> {
        let (n, m) = (lay.n, lay.m);
        let mut signs = vec![1i8; n + m];
        signs[n..].iter_mut().for_each(|x| *x = -1);
        Kkt {
            lay,
            g,
            values: lay.base.clone(),
            signs,
            nt: Vec::with_capacity(lay.cones.len()),
            tmp: vec![0.0; n + m],
            res: vec![0.0; n + m],
            rhs: Vec::with_capacity(n + m),
        }
    }

    /// Fills the values for the current scalings (`w2` gives entry (a, b) of cone c's W²)
    /// and factors them. The static regularization is 10⁻¹⁰ of each block's own scale (the
    /// largest diagonal entry of M for the velocities, `omega2` — the Delassus diagonal's —
    /// for the cone rows): the two blocks have different units, and W² spans many orders of
    /// magnitude near the solution.
    fn factor(
        &mut self,
        chol: &mut SparseCholesky,
        w2: impl Fn(usize, usize, usize) -> f64,
        omega2: f64,
        report: &mut SolveReport,
    ) -> Result<(), String> {
        let lay = self.lay;
        let n = lay.n;
        self.values.copy_from_slice(&lay.base);
        let m_scale = lay.mdiag.iter().fold(0.0_f64, |a, &k| a.max(lay.base[k].abs()));
        let m_scale = if m_scale > 0.0 && m_scale.is_finite() { m_scale } else { 1.0 };
        let (reg_m, reg_w) = (1e-10 * m_scale, 1e-10 * omega2);
        for &k in &lay.mdiag {
            self.values[k] += reg_m;
        }
        for (c, &(_, p)) in lay.cones.iter().enumerate() {
            let mut k = lay.wstart[c];
            for a in 0..p {
                for b in a..p {
                    self.values[k] = -w2(c, a, b) - if a == b { reg_w } else { 0.0 };
                    k += 1;
                }
            }
        }
        let small = m_scale.min(omega2);
        report.factorizations += 1;
        chol.factor_quasi_definite(
            n + lay.m,
            (&lay.col_ptr, &lay.row_idx, &self.values),
            &self.signs,
            1e-8 * small,
            1e-14 * small,
        )
        .map_err(|e| format!("the KKT matrix cannot be factored ({e})"))
    }

    /// `y = K x` with the unregularized KKT matrix of the current scalings.
    fn apply(&mut self, x: &[f64], y: &mut [f64]) {
        let (lay, n) = (self.lay, self.lay.n);
        let (x1, x2) = x.split_at(n);
        let (y1, y2) = y.split_at_mut(n);
        self.g.m.mul_vec(x1, y1);
        let hz = &mut self.tmp[..n];
        lay.h_mul(x2, hz);
        y1.iter_mut().zip(hz.iter()).for_each(|(a, b)| *a -= b);
        lay.ht_mul(x1, y2);
        for (c, &(off, p)) in lay.cones.iter().enumerate() {
            let nt = &self.nt[c];
            for a in 0..p {
                let w2x: f64 = (0..p).map(|b| nt.w2(a, b) * x2[off + b]).sum();
                y2[off + a] = -y2[off + a] - w2x;
            }
        }
    }

    /// Solves `K x = rhs` in place, with two steps of iterative refinement against the
    /// unregularized matrix.
    fn solve(&mut self, chol: &mut SparseCholesky, x: &mut [f64]) -> Result<(), String> {
        // The right-hand side and the residual in kept storage, given back on every path.
        let (mut rhs, mut res) = (std::mem::take(&mut self.rhs), std::mem::take(&mut self.res));
        rhs.clear();
        rhs.extend_from_slice(x);
        let out = self.refine(chol, x, &rhs, &mut res);
        (self.rhs, self.res) = (rhs, res);
        out
    }

    fn refine(
        &mut self,
        chol: &mut SparseCholesky,
        x: &mut [f64],
        rhs: &[f64],
        res: &mut [f64],
    ) -> Result<(), String> {
        let nm = x.len();
        let fail = |e| format!("the KKT solve failed ({e})");
        chol.solve_in_place(x, nm, 1).map_err(fail)?;
        let rn = norm_inf(rhs);
        for _ in 0..2 {
            self.apply(x, res);
            res.iter_mut().zip(rhs).for_each(|(r, b)| *r = b - *r);
            if norm_inf(res) <= 1e-14 * rn {
                break;
            }
            chol.solve_in_place(res, nm, 1).map_err(fail)?;
            x.iter_mut().zip(res.iter()).for_each(|(a, b)| *a += b);
        }
        Ok(())
    }
}

impl GlobalIpm {
    /// Mehrotra's predictor–corrector on the convex problem with `b_N + shift`, from `warm`
    /// (v and the cone variables) or CVXOPT's start: returns
    /// (r, v) and the certificate; the status goes into `report` (Solved when the
    /// certificate is at most `s.tol`).
    fn interior_point(
        &mut self,
        g: &GlobalFrictionContactProblem,
        lay: &Layout,
        (shift, warm): (&[f64], WarmPoint),
        s: &Settings,
        start: Instant,
        report: &mut SolveReport,
    ) -> Result<(Vec<f64>, Vec<f64>, Certificate), Error> {
        let (n, m) = (lay.n, lay.m);
        let nu = lay.cones.len().max(1) as f64;
        let bt = lay.b_tilde(g, shift);
        let (f_inf, b_inf) = (norm_inf(&g.f), norm_inf(&bt).max(lay.vscale));
        let deadline = s.deadline(start);
        let max_iter = s.max_iter_or(self.max_iter);
        let mut kkt = Kkt::new(g, lay);
        let chol = &mut self.chol;

        // The starting point (CVXOPT's): x minimising ½xᵀMx − fᵀx + ‖H̃ᵀx + b̃‖²/(2ω²), ω² an
        // estimate of the Delassus diagonal (Σ_j H̃_jk² / M_jj averaged over the rows), then
        // s = H̃ᵀx + b̃ and z = −s/ω² moved into the cones' interior.
        let mdiag: Vec<f64> = lay.mdiag.iter().map(|&k| lay.base[k]).collect();
        let omega2 = {
            let sum: f64 = lay
                .rows
                .iter()
                .map(|row| {
                    row.0.iter().map(|&(j, v)| v * v / mdiag[j].abs().max(f64::MIN_POSITIVE)).sum::<f64>()
                })
                .sum();
            let w = sum / m.max(1) as f64;
            if w > 0.0 && w.is_finite() {
                w
            } else {
                1.0
            }
        };
        kkt.nt.clear();
        let unit = Nt {
            eta: omega2.sqrt(),
            w: {
                let mut w = [0.0; MAX_DIM];
                w[0] = 1.0;
                w
            },
        };
        kkt.nt.extend(std::iter::repeat_n(unit, lay.cones.len()));
        let mut sol = vec![0.0; n + m];
        // A warm start (v and the cone variables z of an earlier answer) is moved into the
        // cones' interior by a margin of 10⁻¹ of its scale (ball-pile 1000's first 60 steps:
        // 592 iterations in all, against 652 and 674 with 10⁻³ and 10⁻⁵ and 649 cold: an
        // interior point gains little from a start near the boundary); otherwise CVXOPT's.
        let (mut x, mut sv, mut z, margin) = match warm {
            Some((x, z)) => {
                let mut sv = vec![0.0; m];
                lay.ht_mul(&x, &mut sv);
                sv.iter_mut().zip(&bt).for_each(|(a, b)| *a += b);
                (x, sv, z, 1e-1)
            }
            None => {
                sol[..n].copy_from_slice(&g.f);
                sol[n..].copy_from_slice(&bt);
                let started = kkt
                    .factor(chol, |_, a, b| if a == b { omega2 } else { 0.0 }, omega2, report)
                    .and_then(|()| kkt.solve(chol, &mut sol));
                if let Err(e) = started {
                    report.status = Status::NumericalFailure;
                    report.message = Some(format!("global-ipm: {e}"));
                    return Ok((vec![0.0; g.size()], vec![0.0; n], Certificate::default()));
                }
                let x = sol[..n].to_vec();
                let mut sv = vec![0.0; m];
                lay.ht_mul(&x, &mut sv);
                sv.iter_mut().zip(&bt).for_each(|(a, b)| *a += b);
                let z: Vec<f64> = sv.iter().map(|v| -v / omega2).collect();
                (x, sv, z, 1.0)
            }
        };
        for (v, floor) in [(&mut sv, lay.vscale), (&mut z, 0.0)] {
            let worst = lay.cones.iter().fold(f64::NEG_INFINITY, |a, &(off, p)| {
                let c = &v[off..off + p];
                let t = c[1..].iter().map(|q| q * q).sum::<f64>().sqrt();
                a.max(t - c[0])
            });
            let size = norm_inf(v).max(floor);
            let size = if size > 0.0 { size } else { 1.0 };
            if worst >= -1e-8 * size {
                let add = worst.max(0.0) + margin * size;
                for &(off, _) in &lay.cones {
                    v[off] += add;
                }
            }
        }

        let (mut rx, mut rz) = (vec![0.0; n], vec![0.0; m]);
        let (mut hz, mut htx, mut mx) = (vec![0.0; n], vec![0.0; m], vec![0.0; n]);
        let mut lambda = vec![0.0; m];
        let (mut ds_a, mut dz_a) = (vec![0.0; m], vec![0.0; m]);
        let mut dvec = vec![0.0; m];
        let (mut t1, mut t2, mut t3) = ([0.0; MAX_DIM], [0.0; MAX_DIM], [0.0; MAX_DIM]);
        let mut cert;
        report.status = Status::MaxIterations;
        loop {
            // Residuals and the certificate.
            g.m.mul_vec(&x, &mut mx);
            lay.h_mul(&z, &mut hz);
            lay.ht_mul(&x, &mut htx);
            for k in 0..n {
                rx[k] = mx[k] - g.f[k] - hz[k];
            }
            for k in 0..m {
                rz[k] = sv[k] - htx[k] - bt[k];
            }
            let sz: f64 = sv.iter().zip(&z).map(|(a, b)| a * b).sum();
            let xmx: f64 = x.iter().zip(&mx).map(|(a, b)| a * b).sum();
            let fx: f64 = x.iter().zip(&g.f).map(|(a, b)| a * b).sum();
            let bz: f64 = bt.iter().zip(&z).map(|(a, b)| a * b).sum();
            let (pobj, dobj) = (0.5 * xmx - fx, -0.5 * xmx - bz);
            cert = Certificate {
                primal: ratio(norm_inf(&rz), b_inf.max(norm_inf(&htx)).max(norm_inf(&sv))),
                dual: ratio(norm_inf(&rx), f_inf.max(norm_inf(&mx)).max(norm_inf(&hz))),
                gap: ratio(sz, pobj.abs().max(dobj.abs()).max(b_inf * norm_inf(&z))),
                iterations: report.iterations,
            };
            if s.record_history {
                report.history.push(cert.worst());
                report.history_iterations.push(report.iterations);
            }
            if !cert.worst().is_finite() {
                report.status = Status::NumericalFailure;
                report.message = Some("global-ipm: the iterates are not finite".into());
                break;
            }
            if cert.worst() <= s.tol {
                report.status = Status::Solved;
                break;
            }
            if report.iterations >= max_iter {
                break;
            }
            if deadline.is_some_and(|t| Instant::now() >= t) {
                report.status = Status::TimeLimit;
                break;
            }
            report.iterations += 1;
            let mu = sz / nu;

            // Scalings and the factorization shared by both directions.
            kkt.nt.clear();
            for &(off, p) in &lay.cones {
                let nt = Nt::new(&sv[off..off + p], &z[off..off + p]);
                nt.apply(&z[off..off + p], &mut lambda[off..off + p], false);
                kkt.nt.push(nt);
            }
            // The scalings lent to the fill (no copy per iteration), given back after.
            let nts = std::mem::take(&mut kkt.nt);
            let factored = kkt.factor(chol, |c, a, b| nts[c].w2(a, b), omega2, report);
            kkt.nt = nts;
            if let Err(e) = factored {
                report.status = Status::NumericalFailure;
                report.message = Some(format!("global-ipm: {e}"));
                break;
            }

            // The affine (predictor) direction: d = −λ∘λ, so W(λ \ d) = −s.
            sol[..n].iter_mut().zip(&rx).for_each(|(a, b)| *a = -b);
            for k in 0..m {
                sol[n + k] = -rz[k] + sv[k];
            }
            if let Err(e) = kkt.solve(chol, &mut sol) {
                report.status = Status::NumericalFailure;
                report.message = Some(format!("global-ipm: {e}"));
                break;
            }
            dz_a.copy_from_slice(&sol[n..]);
            for (c, &(off, p)) in lay.cones.iter().enumerate() {
                let nt = &kkt.nt[c];
                for a in 0..p {
                    let w2dz: f64 = (0..p).map(|b| nt.w2(a, b) * dz_a[off + b]).sum();
                    ds_a[off + a] = -sv[off + a] - w2dz;
                }
            }
            let alpha_a = lay.cones.iter().fold(1.0_f64, |a, &(off, p)| {
                a.min(step_to_boundary(&sv[off..off + p], &ds_a[off..off + p]))
                    .min(step_to_boundary(&z[off..off + p], &dz_a[off..off + p]))
            });
            let sz_a: f64 = (0..m).map(|k| (sv[k] + alpha_a * ds_a[k]) * (z[k] + alpha_a * dz_a[k])).sum();
            let sigma = (sz_a / sz).clamp(0.0, 1.0).powi(3);

            // The combined (corrector) direction: d = −λ∘λ − (W⁻¹Δs_a)∘(WΔz_a) + σμe.
            for (c, &(off, p)) in lay.cones.iter().enumerate() {
                let nt = &kkt.nt[c];
                let l = &lambda[off..off + p];
                nt.apply(&ds_a[off..off + p], &mut t1[..p], true);
                nt.apply(&dz_a[off..off + p], &mut t2[..p], false);
                jordan(&t1[..p], &t2[..p], &mut t3[..p]);
                jordan(l, l, &mut t1[..p]);
                for a in 0..p {
                    t2[a] = -t1[a] - t3[a] + if a == 0 { sigma * mu } else { 0.0 };
                }
                jordan_div(l, &t2[..p], &mut t1[..p]);
                nt.apply(&t1[..p], &mut dvec[off..off + p], false);
            }
            sol[..n].iter_mut().zip(&rx).for_each(|(a, b)| *a = -b);
            for k in 0..m {
                sol[n + k] = -rz[k] - dvec[k];
            }
            if let Err(e) = kkt.solve(chol, &mut sol) {
                report.status = Status::NumericalFailure;
                report.message = Some(format!("global-ipm: {e}"));
                break;
            }
            let (dx, dz) = sol.split_at(n);
            // Δs = W(λ \ d) − W²Δz, into ds_a (the affine one is no longer needed).
            for (c, &(off, p)) in lay.cones.iter().enumerate() {
                let nt = &kkt.nt[c];
                for a in 0..p {
                    let w2dz: f64 = (0..p).map(|b| nt.w2(a, b) * dz[off + b]).sum();
                    ds_a[off + a] = dvec[off + a] - w2dz;
                }
            }
            let alpha_max = lay.cones.iter().fold(f64::INFINITY, |a, &(off, p)| {
                a.min(step_to_boundary(&sv[off..off + p], &ds_a[off..off + p]))
                    .min(step_to_boundary(&z[off..off + p], &dz[off..off + p]))
            });
            let alpha = (0.99 * alpha_max).min(1.0);
            if alpha.is_nan() || alpha <= 0.0 {
                report.status = Status::Stalled;
                report.message = Some("global-ipm: no step length keeps the iterates interior".into());
                break;
            }
            x.iter_mut().zip(dx).for_each(|(a, b)| *a += alpha * b);
            sv.iter_mut().zip(ds_a.iter()).for_each(|(a, b)| *a += alpha * b);
            z.iter_mut().zip(dz).for_each(|(a, b)| *a += alpha * b);
        }
        cert.iterations = report.iterations;
        Ok((lay.reactions(g, &z), x, cert))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perp_core::Matrix;

    /// A particle of mass 2 (velocities x, y, z) on the plane z = 0 with friction coefficient
    /// `mu`: H's columns are the contact's normal e_z and tangents e_x, e_y; f = M v_free.
    fn particle(v_free: [f64; 3], mu: f64) -> GlobalFrictionContactProblem {
        let m = Matrix::from_row_major(3, 3, &[2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0]).unwrap();
        let h = Matrix::from_row_major(3, 3, &[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]).unwrap();
        let f = v_free.iter().map(|v| 2.0 * v).collect();
        GlobalFrictionContactProblem::new(3, m, h, f, vec![0.0; 3], vec![mu]).unwrap()
    }

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
    }

    fn settings() -> Settings {
        Settings { tol: 1e-10, ..Settings::default() }
    }

    #[test]
    fn nesterov_todd_scaling_maps_s_and_z_to_one_point() {
        let (s, z) = ([2.0, 0.5, -1.0], [1.5, -0.3, 0.9]);
        let nt = Nt::new(&s, &z);
        let (mut wz, mut winv_s) = ([0.0; 3], [0.0; 3]);
        nt.apply(&z, &mut wz, false);
        nt.apply(&s, &mut winv_s, true);
        assert!(close(&wz, &winv_s, 1e-14), "{wz:?} {winv_s:?}");
        // W² z = s, and W W⁻¹ = I.
        let w2z: Vec<f64> = (0..3).map(|a| (0..3).map(|b| nt.w2(a, b) * z[b]).sum()).collect();
        assert!(close(&w2z, &s, 1e-14), "{w2z:?}");
        let (mut y, mut back) = ([0.0; 3], [0.0; 3]);
        nt.apply(&[0.3, -0.7, 1.1], &mut y, false);
        nt.apply(&y, &mut back, true);
        assert!(close(&back, &[0.3, -0.7, 1.1], 1e-14));
        // The cone of dimension 1 (a frictionless contact): W = √(s/z).
        let nt = Nt::new(&[4.0], &[1.0]);
        assert!((nt.eta * nt.w[0] - 2.0).abs() < 1e-15 && (nt.w2(0, 0) - 4.0).abs() < 1e-14);
    }

    #[test]
    fn jordan_division_inverts_the_product_and_steps_stop_at_the_boundary() {
        let (l, y) = ([2.0, 0.5, -1.0], [0.3, -0.4, 0.8]);
        let (mut d, mut back) = ([0.0; 3], [0.0; 3]);
        jordan(&l, &y, &mut d);
        jordan_div(&l, &d, &mut back);
        assert!(close(&back, &y, 1e-14), "{back:?}");
        // From (1, 0, 0) along (−1, 1, 0): ‖(α, 0)‖ ≤ 1 − α until α = 1/2.
        assert!((step_to_boundary(&[1.0, 0.0, 0.0], &[-1.0, 1.0, 0.0]) - 0.5).abs() < 1e-15);
        // Along the axis inward the cone is never left; outward the apex is reached at α = 1.
        assert_eq!(step_to_boundary(&[1.0, 0.0, 0.0], &[1.0, 0.0, 0.0]), f64::INFINITY);
        assert!((step_to_boundary(&[1.0, 0.0, 0.0], &[-1.0, 0.0, 0.0]) - 1.0).abs() < 1e-15);
        // Against a brute-force scan on a generic direction.
        let (x, dx) = ([2.0, 0.5, -1.0], [-0.3, 1.2, 0.4]);
        let alpha = step_to_boundary(&x, &dx);
        let inside = |a: f64| {
            let p: Vec<f64> = x.iter().zip(&dx).map(|(u, v)| u + a * v).collect();
            p[0] >= (p[1] * p[1] + p[2] * p[2]).sqrt()
        };
        assert!(inside(alpha * (1.0 - 1e-9)) && !inside(alpha * (1.0 + 1e-9)), "{alpha}");
    }

    #[test]
    fn one_contact_separated_sticking_and_sliding_have_their_known_answers() {
        let s = settings();
        // (v_free, Coulomb r and v, convex r and v).
        let cases = [
            // Moving away: no impulse in either model.
            ([0.3, 0.0, 1.0], [0.0, 0.0, 0.0], [0.3, 0.0, 1.0], [0.0, 0.0, 0.0], [0.3, 0.0, 1.0]),
            // Sticking: |r_T| = 0.2 ≤ μ r_N = 1, the particle stops.
            ([0.1, 0.0, -1.0], [2.0, -0.2, 0.0], [0.0, 0.0, 0.0], [2.0, -0.2, 0.0], [0.0, 0.0, 0.0]),
            // Sliding: Coulomb keeps u_N = 0 (r = (2, −1, 0), v_x = 3 − 1/2); the relaxation
            // separates at u_N = μ‖u_T‖: −1 + r_N/2 = 0.5 (3 − r_N/4), r_N = 4, v = (2, 0, 1).
            ([3.0, 0.0, -1.0], [2.0, -1.0, 0.0], [2.5, 0.0, 0.0], [4.0, -2.0, 0.0], [2.0, 0.0, 1.0]),
        ];
        for (vf, r_c, v_c, r_x, v_x) in cases {
            let g = particle(vf, 0.5);
            let sol = GlobalIpm::new().solve(&g, None, &s).unwrap();
            assert_eq!(sol.report.status, Status::Solved, "{vf:?}: {:?}", sol.report);
            assert!(
                close(&sol.r, &r_c, 1e-8) && close(&sol.v, &v_c, 1e-8),
                "{vf:?}: {:?} {:?}",
                sol.r,
                sol.v
            );
            assert_eq!(sol.report.error.to_bits(), g.error(&sol.r, &sol.v).to_bits());
            let (sol, cert) = GlobalIpm::convex().solve_convex(&g, &s).unwrap();
            assert_eq!(sol.report.status, Status::Solved, "{vf:?}: {:?}", sol.report);
            assert!(cert.worst() <= 1e-10, "{cert:?}");
            assert!(
                close(&sol.r, &r_x, 1e-8) && close(&sol.v, &v_x, 1e-8),
                "{vf:?}: {:?} {:?}",
                sol.r,
                sol.v
            );
            // The certified gap: rᵀu = 0 at the answer, to the certificate's accuracy.
            let ru: f64 = sol.r.iter().zip(&sol.u).map(|(a, b)| a * b).sum();
            assert!(ru.abs() <= 1e-9 * (1.0 + sol.r.iter().map(|x| x.abs()).sum::<f64>()), "{ru}");
        }
    }

    #[test]
    fn a_frictionless_contact_keeps_its_normal_row_alone() {
        let g = particle([3.0, 0.0, -1.0], 0.0);
        for mut ipm in [GlobalIpm::new(), GlobalIpm::convex()] {
            let sol = ipm.solve(&g, None, &settings()).unwrap();
            assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report);
            assert!(close(&sol.r, &[2.0, 0.0, 0.0], 1e-8) && close(&sol.v, &[3.0, 0.0, 0.0], 1e-8));
        }
    }

    #[test]
    fn any_choice_of_units_gives_the_same_answer_scaled() {
        // Mass ×1e6, velocities ×1e-4: forces ×1e2. The statuses and the iterations stay.
        let g = particle([3.0, 0.0, -1.0], 0.5);
        let (km, kv) = (1e6, 1e-4);
        let scaled = GlobalFrictionContactProblem::new(
            3,
            Matrix::from_row_major(3, 3, &[2.0 * km, 0.0, 0.0, 0.0, 2.0 * km, 0.0, 0.0, 0.0, 2.0 * km])
                .unwrap(),
            g.h.clone(),
            g.f.iter().map(|x| x * km * kv).collect(),
            vec![0.0; 3],
            vec![0.5],
        )
        .unwrap();
        for make in [GlobalIpm::new, GlobalIpm::convex] {
            let st = Settings { record_history: true, ..settings() };
            let a = make().solve(&g, None, &st).unwrap();
            let b = make().solve(&scaled, None, &st).unwrap();
            assert_eq!(b.report.status, Status::Solved, "{:?}", b.report);
            // The convex method's iterates are the same in any units; the Coulomb model stops
            // on Siconos' error, which is not (its natural-map term subtracts velocities from
            // forces), so its stop may come at another iteration of the same sequence.
            if a.report.solver == "global-ipm-convex" {
                assert_eq!(a.report.iterations, b.report.iterations);
                assert_eq!(a.report.history.len(), b.report.history.len());
                for (x, y) in a.report.history.iter().zip(&b.report.history) {
                    assert!((x - y).abs() <= 1e-6 * x.abs() + 1e-12, "{x} {y}");
                }
            }
            let r: Vec<f64> = a.r.iter().map(|x| x * km * kv).collect();
            let v: Vec<f64> = a.v.iter().map(|x| x * kv).collect();
            // Siconos' error at 1e-10 in these units allows 1e-5 relative on r (the physical
            // check's bound is 1e-4): the Coulomb answers agree to that, the convex ones to 1e-7.
            let tol = if a.report.solver == "global-ipm-convex" { 1e-7 } else { 1e-4 };
            assert!(close(&b.r, &r, tol) && close(&b.v, &v, tol), "{:?} {:?}", b.r, b.v);
        }
    }

    #[test]
    fn a_warm_start_from_the_answer_gives_the_same_answer() {
        let s = settings();
        for vf in [[0.3, 0.0, 1.0], [0.1, 0.0, -1.0], [3.0, 0.0, -1.0]] {
            let g = particle(vf, 0.5);
            let (cold, _) = GlobalIpm::convex().solve_convex(&g, &s).unwrap();
            let (warm, cert) = GlobalIpm::convex().solve_convex_from(&g, Some(&cold.r), &s).unwrap();
            assert_eq!(warm.report.status, Status::Solved, "{vf:?}: {:?}", warm.report);
            assert!(cert.worst() <= 1e-10);
            assert!(close(&warm.r, &cold.r, 1e-8) && close(&warm.v, &cold.v, 1e-8), "{vf:?}");
            // The exact model from its own answer: the same answer.
            let exact = GlobalIpm::new().solve(&g, None, &s).unwrap();
            let again = GlobalIpm::new().solve(&g, Some(&exact.r), &s).unwrap();
            assert_eq!(again.report.status, Status::Solved, "{vf:?}: {:?}", again.report);
            assert!(close(&again.r, &exact.r, 1e-8) && close(&again.v, &exact.v, 1e-8), "{vf:?}");
        }
        let g = particle([3.0, 0.0, -1.0], 0.5);
        let e = GlobalIpm::convex().solve_convex_from(&g, Some(&[f64::NAN; 3]), &s).unwrap_err();
        assert!(e.to_string().contains("warm start"), "{e}");
    }

    #[test]
    fn bad_input_is_a_clear_error() {
        let mut g = particle([3.0, 0.0, -1.0], 0.5);
        let e = GlobalIpm::new().solve(&g, Some(&[1.0]), &settings()).unwrap_err().to_string();
        assert!(e.contains("warm start"), "{e}");
        g.f[1] = f64::NAN;
        let e = GlobalIpm::new().solve(&g, None, &settings()).unwrap_err().to_string();
        assert!(e.contains('f'), "{e}");
        let mut g = particle([3.0, 0.0, -1.0], 0.5);
        g.mu[0] = -1.0;
        assert!(GlobalIpm::convex().solve(&g, None, &settings()).unwrap_err().to_string().contains("mu[0]"));
        // A singular M: named.
        let mut g = particle([3.0, 0.0, -1.0], 0.5);
        g.m = Matrix::from_row_major(3, 3, &[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
        let e = GlobalIpm::new().solve(&g, None, &settings()).unwrap_err().to_string();
        assert!(e.contains('M'), "{e}");
    }
}
