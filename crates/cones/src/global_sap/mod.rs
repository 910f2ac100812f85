//! [`Sap`]: the semi-analytic primal solver of Castro, Permenter and Han ("An unconstrained
//! convex formulation of compliant contact", IEEE T-RO 2022, arXiv 2110.10107; Drake's
//! `multibody/contact_solvers/sap/`) on perp's global problem — a primal Newton method on a
//! *regularised* (compliant) convex model of contact, not on Coulomb's law itself.
//!
//! With the global problem's data (`crate::global`: `M v = f + H r`, `u = Hᵀ v + b`), SAP
//! minimises over the velocities alone the unconstrained, strongly convex cost (the paper's
//! primal problem with A = M, J = Hᵀ, v* = M⁻¹ f)
//!
//! ```text
//!     ℓ(v) = ½ (v − v*)ᵀ M (v − v*) + Σ_i ℓ_i(u_i),      u_i = H_iᵀ v + b_i,
//!     ℓ_i(u_i) = ½ γ_iᵀ R_i γ_i,    γ_i = P_F(y_i),    y_i = R_i⁻¹ (v̂_i − u_i),
//! ```
//!
//! where `P_F` projects onto the friction cone `F = {‖γ_T‖ ≤ μ γ_N}` in the norm of the
//! diagonal regulariser `R_i = diag(R_n, R_t, R_t)` (perp's order: normal first; Drake stores
//! the normal last) and v̂_i is the target contact velocity (zero but for the compliant mode's
//! normal bias). With `μ̂ = μ R_t / R_n`, `y_r = ‖y_T‖` and `t̂ = y_T / y_r` the projection is
//! analytic in three regions (Drake's `SapFrictionConeConstraint::ProjectImpulse`):
//!
//! ```text
//!     stiction    y_r ≤ μ y_N, y_N ≥ 0:   γ = y
//!     sliding     y_r > μ y_N > −μ μ̂ y_r:   γ_N = (y_N + μ̂ y_r) / (1 + μ μ̂),  γ_T = μ γ_N t̂
//!     separation  otherwise:               γ = 0
//! ```
//!
//! The gradient and Hessian are (Drake's `SapModel`: cost gradient and `CalcConstraintsHessian`)
//!
//! ```text
//!     ∇ℓ(v) = M v − f − H γ,        ∇²ℓ(v) = M + H G Hᵀ,    G_i = −∂γ_i/∂u_i = (∂P_F/∂y) R_i⁻¹,
//! ```
//!
//! `G_i` symmetric positive semi-definite (R⁻¹ in stiction, zero in separation). Each Newton
//! direction solves `(M + H G Hᵀ) Δv = −∇ℓ` by a sparse Cholesky with AMD ordering
//! ([`perp_core::linear::SparseCholesky`], the matrix filled in that order: `crate::body_graph`) whose pattern is M's plus one clique per contact (the
//! velocities it touches): fixed for a problem, so its symbolic analysis is done once and kept
//! across problems of the same structure ([`SapSolution::analyses`] counts them); its numeric
//! factorization is always faer's supernodal one ([`Supernodal::Always`]: the compliant
//! `ball-pile 1000` took 0.67× the CPU time of the simplicial one faer's own rule picks on
//! these matrices). The step
//! length is the exact minimiser of the convex 1-D function `α ↦ ℓ(v + α Δv)` on `[0, α_max]`,
//! found by Newton's method on `dℓ/dα` safeguarded by bisection (Drake's
//! `DoNewtonWithBisectionFallback`; the paper's §VIII.C): its first and second derivatives cost
//! one sweep over the contacts, `M Δv` and `Hᵀ Δv` being computed once per direction.
//!
//! **Stopping (Drake's `SapSolver::CalcStoppingCriteriaResidual`).** With
//! `D = diag(M)^{-1/2}`, the momentum `p = M v` and the generalised impulse `j = H γ`,
//!
//! ```text
//!     ‖D ∇ℓ(v)‖ ≤ ε_abs + ε_rel · max(‖D p‖, ‖D j‖),
//! ```
//!
//! `ε_rel` being [`Settings::tol`] and `ε_abs` [`Sap::abs_tolerance`]. `Status::Solved` means
//! exactly this criterion, recomputed from the returned v: the answer is the **regularised**
//! problem's, a compliant contact model that lets a contact penetrate (`u_N < 0`) and stick
//! with a small creep. Its Coulomb (Siconos global) error is reported apart,
//! [`SapSolution::coulomb_error`], and is generally far above any tolerance; it tends to zero
//! with β → 0 only.
//!
//! **Regularisation ([`Regularisation`]).** `w_i` approximates the contact's Delassus block
//! `W_ii = H_iᵀ M⁻¹ H_i` as Drake does, from its diagonal `(W_N, W_T1, W_T2)`: `w_rms =
//! ‖diag W_ii‖ / √d`, `w_n = max(W_N, w_rms)`, `w_t = max(mean W_T, w_rms)`. perp computes the
//! diagonal exactly (one solve per contact direction with M's factor, block by block for
//! rigid bodies; Drake uses M's diagonal blocks per clique, the same for rigid bodies).
//! Near-rigid (the default): `R_n = β²/(4π²) · w_n` (a contact whose natural period is β time
//! steps), `R_t = σ · w_t`. Compliant: `R_n = max(β²/(4π²) w_n, 1/(δt k (δt + τ_d)))` and
//! `v̂_N = −φ₀/(δt + τ_d)` from the contact's stiffness k, dissipation time scale τ_d and signed
//! distance φ₀ at the start of the step (Drake's `SapFrictionConeConstraint::DoMakeData`).

use crate::global::ContactRows;
use crate::global::{limit_reached, GlobalFrictionContactProblem};
#[cfg(doc)]
use crate::global_newton::GlobalSolver;
use crate::global_newton::{global_solver, GlobalSolution};
use perp_core::linear::mass::delassus_diagonal_of;
use perp_core::linear::mass::KeptMassFactor;
use perp_core::linear::{MassFactor, Row, SparseCholesky};
use perp_core::{measures, Error, Settings, SolveReport, Status};
use std::sync::Arc;
use std::time::Instant;

mod contact;
mod model;
mod newton;
#[cfg(test)]
mod tests;

use crate::body_graph::BodyGraph;
pub use contact::{Compliance, ContactMode, Regularisation, SapContact};
use model::*;
use newton::{Newton, NoDirection};

/// Drake's near-rigid threshold β (`SapFrictionConeConstraint::Parameters::beta`).
pub const DEFAULT_BETA: f64 = 1.0;
/// Drake's tangential regularisation σ (`SapFrictionConeConstraint::Parameters::sigma`).
pub const DEFAULT_SIGMA: f64 = 1e-3;

/// SAP on the global problem (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct Sap {
    /// How the regularisers are chosen (default: near-rigid, β = 1, σ = 10⁻³).
    pub regularisation: Regularisation,
    /// ε_abs of the stopping criterion, in the units of `‖D ∇ℓ‖` (Drake's default 10⁻¹⁴).
    pub abs_tolerance: f64,
    /// Newton iterations at most when `Settings::max_iter` is 0 (Drake's default 100).
    pub max_iter: usize,
    /// The largest step length the line search considers (Drake's default 1.5).
    pub alpha_max: f64,
    /// Iterations of the line search's Newton–bisection at most (Drake's default 100).
    pub line_search_max_iter: usize,
    /// Tolerance on `dℓ/dα` relative to its value at α = 0 (Drake's 10⁻⁸).
    pub line_search_tolerance: f64,
    /// The method stops (`Stalled`) when the cost decreases by less than
    /// `cost_abs_tolerance + cost_rel_tolerance · ℓ` in a step of length > ½ (Drake's 10⁻³⁰).
    pub cost_abs_tolerance: f64,
    /// See `cost_abs_tolerance` (Drake's 10⁻¹⁵).
    pub cost_rel_tolerance: f64,
    /// Whether the answer carries its Coulomb global error ([`SapSolution::coulomb_error`],
    /// quoted in the report's message): a product with M and one with H more, which a time
    /// stepper that reads neither skips (default on; off, the error is NaN and the message
    /// unset).
    pub report_coulomb_error: bool,
    /// Conjugate-gradient iterations a Newton direction may take, preconditioned by the factor
    /// kept from the last factorization of the same pattern (this problem's previous
    /// iteration's, or the previous problem's when the contact graph repeats, as between the
    /// steps of a settled pile), before the Newton matrix is factored afresh. The direction is
    /// taken when CG brings `‖(M + H G Hᵀ) Δv + ∇ℓ‖` within 10⁻³ of `‖∇ℓ‖`; after one failure
    /// in a solve (or a step along such a direction that SAP's cost criterion would call a
    /// stall), every later direction of that solve is factored. 0: every direction
    /// factored (the answer then does not depend on earlier problems). Problems of fewer than
    /// 100 velocities always factor (a factorization costs them less). Default 4.
    pub factor_reuse: usize,
    chol: SparseCholesky,
    /// Whether `chol` holds a factorization of `graph`'s current pattern.
    factor_current: bool,
    /// The Newton matrix's pattern, kept across problems: its ordering is reused while the
    /// contact graph repeats ([`BodyGraph::update`]).
    graph: BodyGraph,
    /// The contact rows' storage, kept across problems.
    rows: Vec<Row>,
    /// M's factor, kept while M repeats (a time stepper's constant mass matrix).
    mass: KeptMassFactor,
}

impl Default for Sap {
    fn default() -> Self {
        Sap {
            regularisation: Regularisation::default(),
            abs_tolerance: 1e-14,
            max_iter: 100,
            alpha_max: 1.5,
            line_search_max_iter: 100,
            line_search_tolerance: 1e-8,
            cost_abs_tolerance: 1e-30,
            cost_rel_tolerance: 1e-15,
            report_coulomb_error: true,
            factor_reuse: 4,
            chol: BodyGraph::cholesky(),
            factor_current: false,
            graph: BodyGraph::default(),
            rows: Vec::new(),
            mass: KeptMassFactor::default(),
        }
    }
}

/// What [`Sap::solve`] returns: the answer in the global solvers' form and what SAP measures.
#[derive(Clone, Debug)]
pub struct SapSolution {
    /// `r = γ` (the regularised model's impulses), v, `u = Hᵀ v + b` and the report, whose
    /// `error` is SAP's relative optimality `(‖D∇ℓ‖ − ε_abs)₊ / max(‖Dp‖, ‖Dj‖)` (so `Solved`
    /// ⇔ `error ≤ tol`) and whose `factorizations` counts the Cholesky factorizations.
    pub solution: GlobalSolution,
    /// `‖D ∇ℓ(v)‖` at the answer.
    pub optimality: f64,
    /// `max(‖D p‖, ‖D j‖)` at the answer.
    pub scale: f64,
    /// The cost ℓ(v) at the answer.
    pub cost: f64,
    /// Siconos' global (Coulomb) error of (γ, v): how far the regularised answer is from the
    /// rigid Coulomb problem's. Not a convergence measure of SAP. NaN when
    /// [`Sap::report_coulomb_error`] is off.
    pub coulomb_error: f64,
    /// The contacts' regularisation as used.
    pub contacts: Vec<SapContact>,
    /// Symbolic analyses the solver's sparse Cholesky has done so far.
    pub analyses: usize,
}

impl Sap {
    /// SAP with the default (near-rigid) regularisation.
    ///
    /// ```
    /// use perp_cones::{global::GlobalFrictionContactProblem, global_sap::Sap, Matrix, Settings, Status};
    /// // A particle of mass 1 landing on z = 0 (normal e_z, tangents e_x, e_y) at v = (0.1, 0, −1).
    /// let m = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])?;
    /// let h = Matrix::from_row_major(3, 3, &[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0])?;
    /// let g = GlobalFrictionContactProblem::new(3, m, h, vec![0.1, 0.0, -1.0], vec![0.0; 3], vec![0.5])?;
    /// let sol = Sap::new().solve(&g, None, &Settings::default())?;
    /// assert_eq!(sol.solution.report.status, Status::Solved);
    /// // Stiction of the regularised model: γ = R⁻¹(−u) with v = v* + γ stops the particle to
    /// // within the regulariser (R_n = 1/(4π²), R_t = 10⁻³).
    /// assert!(sol.solution.v[2].abs() < 0.03 && sol.solution.v[0].abs() < 1e-3);
    /// # Ok::<(), perp_core::Error>(())
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// SAP with the given regularisation.
    ///
    /// ```
    /// use perp_cones::global_sap::{Regularisation, Sap};
    /// use perp_cones::{global::GlobalFrictionContactProblem, Matrix};
    /// // Stiffer than Drake's default (β = 0.1): R_n = β²/(4π²) · w with w = 1/m = 1.
    /// let sap = Sap::with_regularisation(Regularisation::NearRigid { beta: 0.1, sigma: 1e-5 });
    /// let m = Matrix::from_row_major(2, 2, &[1.0, 0.0, 0.0, 1.0])?;
    /// let h = Matrix::from_row_major(2, 2, &[0.0, 1.0, 1.0, 0.0])?;
    /// let g = GlobalFrictionContactProblem::new(2, m, h, vec![0.0, -1.0], vec![0.0; 2], vec![0.5])?;
    /// let c = sap.contacts(&g)?[0];
    /// let four_pi2 = 4.0 * std::f64::consts::PI * std::f64::consts::PI;
    /// assert!((c.rn - 0.01 / four_pi2).abs() < 1e-15 && (c.rt - 1e-5).abs() < 1e-18);
    /// # Ok::<(), perp_core::Error>(())
    /// ```
    pub fn with_regularisation(regularisation: Regularisation) -> Self {
        Sap { regularisation, ..Self::default() }
    }

    /// The catalogue name.
    pub fn name(&self) -> &'static str {
        "sap"
    }

    /// Symbolic analyses of the Newton matrix's pattern done so far (one per new pattern).
    pub fn analyses(&self) -> usize {
        self.chol.analyses()
    }

    /// Checks this solver's own parameters.
    fn validate_params(&self) -> Result<(), Error> {
        let check = |name: &str, v: f64, ok: bool, range: &str| {
            if ok {
                Ok(())
            } else {
                Err(Error::setting(name, v, range))
            }
        };
        check(
            "sap abs_tolerance",
            self.abs_tolerance,
            self.abs_tolerance.is_finite() && self.abs_tolerance >= 0.0,
            "must be finite and ≥ 0",
        )?;
        check(
            "sap alpha_max",
            self.alpha_max,
            self.alpha_max.is_finite() && self.alpha_max >= 1.0,
            "must be finite and ≥ 1",
        )?;
        check(
            "sap line_search_tolerance",
            self.line_search_tolerance,
            self.line_search_tolerance.is_finite() && self.line_search_tolerance > 0.0,
            "must be finite and > 0",
        )?;
        check(
            "sap cost_rel_tolerance",
            self.cost_rel_tolerance,
            self.cost_rel_tolerance.is_finite() && self.cost_rel_tolerance >= 0.0,
            "must be finite and ≥ 0",
        )?;
        check(
            "sap cost_abs_tolerance",
            self.cost_abs_tolerance,
            self.cost_abs_tolerance.is_finite() && self.cost_abs_tolerance >= 0.0,
            "must be finite and ≥ 0",
        )
    }

    /// The contacts' regularisation for `g` (validated), with the factor of M and the free
    /// velocity `v* = M⁻¹ f`. Errors: the problem's validation errors, a contact dimension
    /// other than 2 or 3, bad parameters, and an M that is not symmetric positive definite.
    pub fn contacts(&self, g: &GlobalFrictionContactProblem) -> Result<Vec<SapContact>, Error> {
        Ok(self.prepare(g, &mut Vec::new(), &mut KeptMassFactor::default())?.0)
    }

    /// The contacts' regularisation, M's factor and the contact rows (H's columns in place,
    /// or copied into `rows`).
    fn prepare<'a>(
        &self,
        g: &'a GlobalFrictionContactProblem,
        rows: &'a mut Vec<Row>,
        mass: &mut KeptMassFactor,
    ) -> Result<(Vec<SapContact>, Arc<MassFactor>, ContactRows<'a>), Error> {
        g.validate()?;
        if !(2..=3).contains(&g.dim) {
            return Err(Error::Requirement {
                solver: "sap".into(),
                requirement: format!(
                    "Coulomb contacts of dimension 2 or 3 (this problem's have dimension {})",
                    g.dim
                ),
                suggestion: Some("rolling or torsional cones: use global-ac-newton or a local solver".into()),
            });
        }
        self.validate_params()?;
        let nc = g.contacts();
        self.regularisation.validate(nc)?;
        let n = g.dofs();
        let factor = mass.get(&g.m, false).map_err(|e| Error::Requirement {
            solver: "sap".into(),
            requirement: format!("a symmetric positive definite mass matrix M (n_dof = {n}): {e}"),
            suggestion: Some("SAP's cost is strongly convex only for an SPD M; try global-ac-newton".into()),
        })?;
        let d = g.dim;
        let rows = g.contact_rows_in(rows);
        // Only W's diagonal is needed: the regularisation's scale.
        let w = match &rows {
            ContactRows::Columns(c) => delassus_diagonal_of(&factor, n, c),
            ContactRows::Rows(r) => delassus_diagonal_of(&factor, n, *r),
        };
        if let Some(j) = w.iter().position(|x| !x.is_finite()) {
            return Err(Error::Requirement {
                solver: "sap".into(),
                requirement: format!(
                    "an invertible mass matrix M: the Delassus diagonal Hᵀ M⁻¹ H is not finite at row {j}"
                ),
                suggestion: None,
            });
        }
        let contacts = (0..nc)
            .map(|i| {
                let (rn, rt, vhat_n) = self.regularisation.contact(i, &w[i * d..(i + 1) * d]);
                SapContact { mu: g.mu[i], rn, rt, vhat_n }
            })
            .collect();
        Ok((contacts, factor, rows))
    }

    /// SAP's cost ℓ(v) and gradient ∇ℓ(v) for `g` (with this solver's regularisation): the
    /// functions the Newton method minimises, for tests and diagnostics.
    pub fn cost_and_gradient(
        &self,
        g: &GlobalFrictionContactProblem,
        v: &[f64],
    ) -> Result<(f64, Vec<f64>), Error> {
        let mut rows = Vec::new();
        let (contacts, factor, _) = self.prepare(g, &mut rows, &mut KeptMassFactor::default())?;
        Error::check_len("v", v, g.dofs())?;
        Error::check_finite("v", v)?;
        let model = model(g, contacts, &factor)?;
        let mut e = Eval::new(g);
        model.eval(v, &mut e, false);
        Ok((e.cost, e.grad))
    }

    /// The Hessian `M + H G Hᵀ` at v, dense (row-major, n_dof²): for tests.
    pub fn dense_hessian(&self, g: &GlobalFrictionContactProblem, v: &[f64]) -> Result<Vec<f64>, Error> {
        let mut rows = Vec::new();
        let (contacts, factor, rows) = self.prepare(g, &mut rows, &mut KeptMassFactor::default())?;
        Error::check_len("v", v, g.dofs())?;
        let model = model(g, contacts, &factor)?;
        let mut e = Eval::new(g);
        model.eval(v, &mut e, true);
        let mut pat = BodyGraph::default();
        pat.update_global(g, &rows);
        let mut values = Vec::new();
        pat.fill(&e.g, &mut values, &mut e.hg);
        let n = g.dofs();
        let mut out = vec![0.0; n * n];
        for (i, j, k) in pat.entries() {
            out[i * n + j] = values[k];
            out[j * n + i] = values[k];
        }
        Ok(out)
    }

    /// Solves `g`'s regularised problem from the global velocity `v0` (`v* = M⁻¹ f` when
    /// `None`). Errors: those of [`Sap::contacts`], and a `v0` of the wrong length or not
    /// finite; never a panic.
    pub fn solve(
        &mut self,
        g: &GlobalFrictionContactProblem,
        v0: Option<&[f64]>,
        s: &Settings,
    ) -> Result<SapSolution, Error> {
        let start = Instant::now();
        s.validate()?;
        // The rows kept from the last problem, made this one's (given back below).
        let mut kept = std::mem::take(&mut self.rows);
        let mut mass = std::mem::take(&mut self.mass);
        let prepared = self.prepare(g, &mut kept, &mut mass);
        self.mass = mass;
        let (contacts, factor, rows) = prepared?;
        let (n, d) = (g.dofs(), g.dim);
        if let Some(v0) = v0 {
            Error::check_len("initial velocity v0", v0, n)?;
            Error::check_finite("initial velocity v0", v0)?;
        }
        let model = model(g, contacts, &factor)?;
        let max_iter = s.max_iter_or(self.max_iter);
        let mut v = v0.map_or_else(|| model.vstar.clone(), <[f64]>::to_vec);
        // The pattern kept from the last problem, made this one's (given back below).
        let mut pat = std::mem::take(&mut self.graph);
        let same_pattern = pat.update_global(g, &rows);
        self.factor_current &= same_pattern;
        let mut report = SolveReport::new(self.name());
        let mut w = Newton::new(g, pat);
        let mut cost_stalled = false;
        loop {
            model.eval(&v, &mut w.e, true);
            report.error = relative_optimality(w.e.residual, w.e.scale, self.abs_tolerance);
            if s.record_history {
                report.history.push(report.error);
                report.history_iterations.push(report.iterations);
            }
            if self.ended(&w.e, cost_stalled, &mut report, (s, max_iter, start)) {
                break;
            }
            report.iterations += 1;
            let step = w
                .direction(g, &mut self.chol, (self.factor_reuse, &mut self.factor_current), &mut report)
                .and_then(|()| w.step_length(self, (&model.contacts, d), &mut report));
            let alpha = match step {
                Ok((alpha, stalled)) => {
                    // The cost criterion judges Newton steps: a stall along a direction from
                    // the kept factor's conjugate gradients hands over to factored ones.
                    cost_stalled = stalled && !w.reused;
                    w.reuse_failed |= stalled;
                    alpha
                }
                Err(NoDirection(message)) => {
                    report.status = Status::NumericalFailure;
                    report.message = Some(message);
                    break;
                }
            };
            v.iter_mut().zip(&w.dv).for_each(|(x, y)| *x += alpha * y);
        }
        self.graph = std::mem::take(&mut w.pat);
        self.rows = kept;
        self.answer(g, model, (v, w.e), report, (s, start))
    }

    /// `true` when SAP's optimality criterion holds at the evaluation `e`.
    fn optimal(&self, e: &Eval, s: &Settings) -> bool {
        e.residual <= self.abs_tolerance + s.tol * e.scale
    }

    /// Whether the iterations end before another step, the report's status (and message) set
    /// when they do: the optimality criterion, a cost or gradient that is not finite, the
    /// cost's stall, the iteration limit and the time limit.
    fn ended(
        &self,
        e: &Eval,
        cost_stalled: bool,
        report: &mut SolveReport,
        (s, max_iter, start): (&Settings, usize, Instant),
    ) -> bool {
        report.status = if self.optimal(e, s) {
            Status::Solved
        } else if !(e.residual.is_finite() && e.cost.is_finite()) {
            report.message = Some("the cost or its gradient is not finite".into());
            Status::NumericalFailure
        } else if cost_stalled {
            report.message = Some(format!(
                "the cost stopped decreasing (SAP's cost criterion) before the optimality \
                 criterion held: ‖D∇ℓ‖ = {:.3e}, scale {:.3e}",
                e.residual, e.scale
            ));
            Status::Stalled
        } else if let Some(limit) = limit_reached(report.iterations, max_iter, s, start) {
            limit
        } else {
            return false;
        };
        true
    }

    /// The answer at v, its measures from v afresh (the criterion recomputed: a `Solved`
    /// that no longer holds becomes `NumericalFailure`) and the Coulomb error of (γ, v).
    fn answer(
        &self,
        g: &GlobalFrictionContactProblem,
        model: Model<'_>,
        (v, mut e): (Vec<f64>, Eval),
        mut report: SolveReport,
        (s, start): (&Settings, Instant),
    ) -> Result<SapSolution, Error> {
        model.eval(&v, &mut e, false);
        report.error = relative_optimality(e.residual, e.scale, self.abs_tolerance);
        if report.status == Status::Solved && !self.optimal(&e, s) {
            report.status = Status::NumericalFailure;
            report.message = Some("the optimality criterion does not hold when recomputed".into());
        }
        report.residual_inf = e.grad.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        let coulomb_error = if self.report_coulomb_error { g.error(&e.gamma, &v) } else { f64::NAN };
        if report.message.is_none() && self.report_coulomb_error {
            report.message = Some(format!(
                "the regularised (compliant) problem's answer; its Coulomb global error is {coulomb_error:.3e}"
            ));
        }
        report.elapsed = start.elapsed();
        let Eval { u, gamma, cost, residual, scale, .. } = e;
        let analyses = self.chol.analyses();
        Ok(SapSolution {
            solution: GlobalSolution { r: gamma, v, u, report, analyses },
            optimality: residual,
            scale,
            cost,
            coulomb_error,
            contacts: model.contacts,
            analyses,
        })
    }

    /// [`GlobalSolver::solve_global`]: from reactions `warm` the start is
    /// `v = M⁻¹ (f + H r)`. The report's `error` is SAP's relative optimality of the
    /// **regularised** problem (see [`SapSolution`]), its message the Coulomb global error of
    /// the answer.
    fn solve_from_reactions(
        &mut self,
        g: &GlobalFrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<GlobalSolution, Error> {
        let v0 = match warm {
            None => None,
            Some(r) => {
                g.validate_warm(warm)?;
                let factor = self.mass.get(&g.m, false)?;
                let mut v = vec![0.0; g.dofs()];
                g.velocity_into(&factor, r, &mut v);
                Some(v)
            }
        };
        Ok(self.solve(g, v0.as_deref(), s)?.solution)
    }
}

global_solver!(Sap, solve_from_reactions);
