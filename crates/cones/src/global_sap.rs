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
//! ([`perp_core::linear::SparseCholesky`]) whose pattern is M's plus one clique per contact (the
//! velocities it touches): fixed for a problem, so its symbolic analysis is done once and kept
//! across problems of the same structure ([`SapSolution::analyses`] counts them). The step
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

use crate::global::GlobalFrictionContactProblem;
use crate::global_newton::{GlobalSolution, GlobalSolver};
use perp_core::linear::mass::solve_rows;
use perp_core::linear::{MassFactor, Row, SparseCholesky};
use perp_core::{measures, Error, Settings, SolveReport, Status};
use std::time::Instant;

/// Drake's near-rigid threshold β (`SapFrictionConeConstraint::Parameters::beta`).
pub const DEFAULT_BETA: f64 = 1.0;
/// Drake's tangential regularisation σ (`SapFrictionConeConstraint::Parameters::sigma`).
pub const DEFAULT_SIGMA: f64 = 1e-3;

/// One contact's compliance for [`Regularisation::Compliant`] (Drake's
/// `SapFrictionConeConstraint::Parameters` and `phi0`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compliance {
    /// Normal stiffness k (force per length, > 0; `+∞` leaves `R_n` to the near-rigid bound,
    /// which then needs β > 0).
    pub stiffness: f64,
    /// Hunt–Crossley-like dissipation time scale τ_d (time, ≥ 0): the damping is `k τ_d`.
    pub dissipation_time_scale: f64,
    /// Signed distance φ₀ at the start of the step (negative when penetrating). The target
    /// normal velocity is `v̂_N = −φ₀/(δt + τ_d)`; the problem's `b` must then not hold a gap
    /// term of its own.
    pub phi0: f64,
}

/// How each contact's regulariser `R_i` and target velocity `v̂_i` are chosen (see the
/// [module docs](self)).
#[derive(Clone, Debug, PartialEq)]
pub enum Regularisation {
    /// `R_n = β²/(4π²) · w_n`, `R_t = σ · w_t`, `v̂ = 0`: the stiffest contact the time step
    /// resolves (period β·δt), Drake's "near-rigid" regime. Defaults: β = [`DEFAULT_BETA`] = 1,
    /// σ = [`DEFAULT_SIGMA`] = 10⁻³; both must be finite and > 0. Smaller β is stiffer (closer
    /// to the rigid answer) and worse conditioned.
    NearRigid {
        /// Near-rigid threshold β (> 0).
        beta: f64,
        /// Tangential regularisation σ (> 0): the stiction creep is about `σ w_t |γ_T|`.
        sigma: f64,
    },
    /// Per-contact stiffness and dissipation (Drake's compliant point contact): `R_n =
    /// max(β²/(4π²) w_n, 1/(δt k (δt + τ_d)))`, `R_t = σ w_t`, `v̂_N = −φ₀/(δt + τ_d)`.
    Compliant {
        /// The time step δt (> 0).
        dt: f64,
        /// Near-rigid threshold β (≥ 0): the stiffest a contact may be (0: no bound).
        beta: f64,
        /// Tangential regularisation σ (> 0).
        sigma: f64,
        /// One entry per contact.
        contacts: Vec<Compliance>,
    },
}

impl Default for Regularisation {
    /// Near-rigid with Drake's defaults, β = 1, σ = 10⁻³.
    fn default() -> Self {
        Regularisation::NearRigid { beta: DEFAULT_BETA, sigma: DEFAULT_SIGMA }
    }
}

impl Regularisation {
    /// Checks the parameters' ranges for a problem of `nc` contacts; the error names the field.
    pub fn validate(&self, nc: usize) -> Result<(), Error> {
        let positive = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(Error::setting(name, v, "must be finite and > 0"))
            }
        };
        match self {
            Regularisation::NearRigid { beta, sigma } => {
                positive("sap beta", *beta)?;
                positive("sap sigma", *sigma)
            }
            Regularisation::Compliant { dt, beta, sigma, contacts } => {
                positive("sap dt", *dt)?;
                positive("sap sigma", *sigma)?;
                if !(beta.is_finite() && *beta >= 0.0) {
                    return Err(Error::setting("sap beta", beta, "must be finite and ≥ 0"));
                }
                if contacts.len() != nc {
                    return Err(Error::dim("sap compliant contacts (one per contact)", nc, contacts.len()));
                }
                for (i, c) in contacts.iter().enumerate() {
                    // +∞ is allowed: a rigid contact, bounded by the near-rigid limit (β > 0).
                    let stiff_ok = c.stiffness > 0.0 && (c.stiffness.is_finite() || *beta > 0.0);
                    if !stiff_ok {
                        return Err(Error::setting(
                            &format!("sap stiffness[{i}]"),
                            c.stiffness,
                            "must be > 0 (+∞ only with β > 0)",
                        ));
                    }
                    if !(c.dissipation_time_scale.is_finite() && c.dissipation_time_scale >= 0.0) {
                        return Err(Error::setting(
                            &format!("sap dissipation_time_scale[{i}]"),
                            c.dissipation_time_scale,
                            "must be finite and ≥ 0",
                        ));
                    }
                    if !c.phi0.is_finite() {
                        return Err(Error::setting(&format!("sap phi0[{i}]"), c.phi0, "must be finite"));
                    }
                }
                Ok(())
            }
        }
    }

    /// `(R_n, R_t, v̂_N)` of contact `i` from its Delassus diagonal `wd` (normal first).
    fn contact(&self, i: usize, wd: &[f64]) -> (f64, f64, f64) {
        let d = wd.len();
        let w_rms = measures::norm2(wd) / (d as f64).sqrt();
        // A contact whose H columns vanish has no Delassus scale: any positive one will do
        // (its impulse moves nothing).
        let w_rms = if w_rms > 0.0 && w_rms.is_finite() { w_rms } else { 1.0 };
        let wn = wd[0].max(w_rms);
        let wt = (wd[1..].iter().sum::<f64>() / (d - 1) as f64).max(w_rms);
        let beta_factor = |beta: f64| beta * beta / (4.0 * std::f64::consts::PI * std::f64::consts::PI);
        match self {
            Regularisation::NearRigid { beta, sigma } => (beta_factor(*beta) * wn, sigma * wt, 0.0),
            Regularisation::Compliant { dt, beta, sigma, contacts } => {
                let c = contacts[i];
                let tau = dt + c.dissipation_time_scale;
                let rn = (beta_factor(*beta) * wn).max(1.0 / (dt * c.stiffness * tau));
                (rn, sigma * wt, -c.phi0 / tau)
            }
        }
    }
}

/// One contact's data: friction coefficient, regulariser and target normal velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SapContact {
    /// Friction coefficient μ.
    pub mu: f64,
    /// Normal regularisation R_n (> 0).
    pub rn: f64,
    /// Tangential regularisation R_t (> 0).
    pub rt: f64,
    /// Target normal velocity v̂_N.
    pub vhat_n: f64,
}

/// Which region of the analytic projection a contact is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactMode {
    /// `γ = y`, inside the cone.
    Stiction,
    /// `γ` on the cone's boundary.
    Sliding,
    /// `γ = 0`.
    Separation,
}

impl SapContact {
    /// The impulse `γ = P_F(y)`, `y = R⁻¹ (v̂ − u)`, of this contact at local velocity `u`
    /// (length d = 2 or 3, normal first) into `gamma`, and, when asked, `G = −∂γ/∂u` (d×d,
    /// row-major) into `g`; returns the region.
    pub fn project(&self, u: &[f64], gamma: &mut [f64], g: Option<&mut [f64]>) -> ContactMode {
        let d = u.len();
        let SapContact { mu, rn, rt, vhat_n } = *self;
        let yn = (vhat_n - u[0]) / rn;
        let mut yt = [0.0; 2];
        for k in 1..d {
            yt[k - 1] = -u[k] / rt;
        }
        let yr = measures::norm2(&yt[..d - 1]);
        let mu_hat = mu * rt / rn;
        let mode = if yr <= mu * yn && yn >= 0.0 {
            ContactMode::Stiction
        } else if yn > -mu_hat * yr {
            ContactMode::Sliding
        } else {
            ContactMode::Separation
        };
        match mode {
            ContactMode::Stiction => {
                gamma[0] = yn;
                gamma[1..d].copy_from_slice(&yt[..d - 1]);
                if let Some(g) = g {
                    g[..d * d].fill(0.0);
                    g[0] = 1.0 / rn;
                    for k in 1..d {
                        g[k * d + k] = 1.0 / rt;
                    }
                }
            }
            ContactMode::Separation => {
                gamma[..d].fill(0.0);
                if let Some(g) = g {
                    g[..d * d].fill(0.0);
                }
            }
            ContactMode::Sliding => {
                // yr > 0 here: sliding needs yr > μ y_N and y_N > −μ̂ y_r.
                let factor = 1.0 / (1.0 + mu * mu_hat);
                let gn = (yn + mu_hat * yr) * factor;
                gamma[0] = gn;
                let mut that = [0.0; 2];
                for k in 1..d {
                    that[k - 1] = yt[k - 1] / yr;
                    gamma[k] = mu * gn * that[k - 1];
                }
                if let Some(g) = g {
                    // dγ/dy, then G = dγ/dy · R⁻¹ (symmetric: the projection's Jacobian in
                    // the R-scaled variables is).
                    let rinv = |k: usize| if k == 0 { 1.0 / rn } else { 1.0 / rt };
                    g[0] = factor * rinv(0);
                    for a in 1..d {
                        g[a] = mu_hat * factor * that[a - 1] * rinv(a);
                        g[a * d] = mu * factor * that[a - 1] * rinv(0);
                        for b in 1..d {
                            let delta = if a == b { 1.0 } else { 0.0 };
                            let tt = that[a - 1] * that[b - 1];
                            g[a * d + b] = mu * (gn / yr * (delta - tt) + mu_hat * factor * tt) * rinv(b);
                        }
                    }
                }
            }
        }
        mode
    }

    /// `ℓ_i = ½ γᵀ R γ` of the impulse `gamma`.
    pub fn cost(&self, gamma: &[f64]) -> f64 {
        0.5 * (self.rn * gamma[0] * gamma[0] + self.rt * gamma[1..].iter().map(|x| x * x).sum::<f64>())
    }
}

/// The pattern of `M + H G Hᵀ` (lower triangle, compressed columns) and where each entry of
/// M and of each contact's clique goes.
#[derive(Clone, Debug, Default)]
struct Pattern {
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    /// M's lower entries: (position, value).
    m_pos: Vec<(usize, f64)>,
    /// Per contact: its velocities (sorted), `H[dofs[a], i·d + b]` at `a·d + b`, and the
    /// positions of its clique's lower entries `(a, b ≤ a)` at `a(a+1)/2 + b`.
    contacts: Vec<(Vec<usize>, Vec<f64>, Vec<usize>)>,
}

impl Pattern {
    fn new(g: &GlobalFrictionContactProblem, rows: &[Row]) -> Pattern {
        let (n, d, nc) = (g.dofs(), g.dim, g.contacts());
        let mut cols: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mcsc = g.m.to_csr().to_csc();
        let mut m_entries = Vec::new();
        for j in 0..n {
            if let Some(c) = mcsc.outer_view(j) {
                for (i, &v) in c.iter() {
                    if i >= j {
                        cols[j].push(i);
                        m_entries.push((i, j, v));
                    }
                }
            }
            // The diagonal always (the Hessian's is positive).
            cols[j].push(j);
        }
        let mut contacts = Vec::with_capacity(nc);
        for c in 0..nc {
            let mut dofs: Vec<usize> =
                (0..d).flat_map(|b| rows[c * d + b].0.iter().map(|&(j, _)| j)).collect();
            dofs.sort_unstable();
            dofs.dedup();
            let mut h = vec![0.0; dofs.len() * d];
            for b in 0..d {
                for &(j, v) in &rows[c * d + b].0 {
                    let a = dofs.binary_search(&j).unwrap_or(0);
                    h[a * d + b] += v;
                }
            }
            for (a, &ja) in dofs.iter().enumerate() {
                for &jb in &dofs[..=a] {
                    cols[jb].push(ja);
                }
            }
            contacts.push((dofs, h, Vec::new()));
        }
        let mut col_ptr = Vec::with_capacity(n + 1);
        let mut row_idx = Vec::new();
        col_ptr.push(0);
        for col in &mut cols {
            col.sort_unstable();
            col.dedup();
            row_idx.extend_from_slice(col);
            col_ptr.push(row_idx.len());
        }
        let pos = |i: usize, j: usize| {
            let s = &row_idx[col_ptr[j]..col_ptr[j + 1]];
            col_ptr[j] + s.binary_search(&i).unwrap_or(0)
        };
        let m_pos = m_entries.iter().map(|&(i, j, v)| (pos(i, j), v)).collect();
        for (dofs, _, p) in &mut contacts {
            for (a, &ja) in dofs.iter().enumerate() {
                for &jb in &dofs[..=a] {
                    p.push(pos(ja, jb));
                }
            }
        }
        Pattern { col_ptr, row_idx, m_pos, contacts }
    }

    /// The values of `M + H G Hᵀ` (G: nc blocks d×d row-major).
    fn fill(&self, d: usize, g: &[f64], values: &mut Vec<f64>, hg: &mut Vec<f64>) {
        values.clear();
        values.resize(self.row_idx.len(), 0.0);
        for &(p, v) in &self.m_pos {
            values[p] += v;
        }
        let dd = d * d;
        for (c, (dofs, h, pos)) in self.contacts.iter().enumerate() {
            let gc = &g[c * dd..(c + 1) * dd];
            if gc.iter().all(|&x| x == 0.0) {
                continue;
            }
            let k = dofs.len();
            // T = H_c G_c (k × d), then the lower triangle of T H_cᵀ.
            hg.clear();
            hg.resize(k * d, 0.0);
            for a in 0..k {
                for e in 0..d {
                    hg[a * d + e] = (0..d).map(|f| h[a * d + f] * gc[f * d + e]).sum();
                }
            }
            let mut idx = 0;
            for a in 0..k {
                for b in 0..=a {
                    values[pos[idx]] += (0..d).map(|e| hg[a * d + e] * h[b * d + e]).sum::<f64>();
                    idx += 1;
                }
            }
        }
    }
}

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
    chol: SparseCholesky,
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
            chol: SparseCholesky::new(),
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
    /// rigid Coulomb problem's. Not a convergence measure of SAP.
    pub coulomb_error: f64,
    /// The contacts' regularisation as used.
    pub contacts: Vec<SapContact>,
    /// Symbolic analyses the solver's sparse Cholesky has done so far.
    pub analyses: usize,
}

/// The quantities of one evaluation of ℓ at v.
struct Eval {
    u: Vec<f64>,
    gamma: Vec<f64>,
    g: Vec<f64>,
    grad: Vec<f64>,
    hg: Vec<f64>,
    /// `p = M v` and `j = H γ`.
    p: Vec<f64>,
    j: Vec<f64>,
    cost: f64,
    residual: f64,
    scale: f64,
}

/// The problem's fixed data for one solve.
struct Model<'a> {
    g: &'a GlobalFrictionContactProblem,
    contacts: Vec<SapContact>,
    /// `diag(M)^{-1/2}`.
    dinv: Vec<f64>,
    vstar: Vec<f64>,
}

impl Model<'_> {
    /// ℓ(v), γ, ∇ℓ and the criterion's two norms (G too when `hessian`).
    fn eval(&self, v: &[f64], e: &mut Eval, hessian: bool) {
        let g = self.g;
        let (n, d) = (g.dofs(), g.dim);
        g.local_velocity_into(v, &mut e.u);
        let mut cost_r = 0.0;
        for (i, c) in self.contacts.iter().enumerate() {
            let s = i * d;
            let gi = if hessian { Some(&mut e.g[i * d * d..(i + 1) * d * d]) } else { None };
            c.project(&e.u[s..s + d], &mut e.gamma[s..s + d], gi);
            cost_r += c.cost(&e.gamma[s..s + d]);
        }
        // ∇ℓ = M v − f − H γ; p = M v, j = H γ.
        let (p, j) = (&mut e.p, &mut e.j);
        g.m.mul_vec(v, p);
        g.h.mul_vec(&e.gamma, j);
        let mut cost_a = 0.0;
        for k in 0..n {
            e.grad[k] = p[k] - g.f[k] - j[k];
        }
        // ½ (v − v*)ᵀ M (v − v*) = ½ (v − v*)ᵀ (p − f).
        for k in 0..n {
            cost_a += (v[k] - self.vstar[k]) * (p[k] - g.f[k]);
        }
        e.cost = 0.5 * cost_a + cost_r;
        let dn = |x: &[f64]| self.dinv.iter().zip(x).map(|(a, b)| (a * b) * (a * b)).sum::<f64>().sqrt();
        e.residual = dn(&e.grad);
        e.scale = dn(p).max(dn(j));
    }
}

/// The line `α ↦ ℓ(v + α Δv)` and its derivatives, from quantities computed once per direction:
/// `a = Δvᵀ M Δv`, `g0 = Δvᵀ (M v − f)`, `Δu = Hᵀ Δv`.
struct Line<'a> {
    contacts: &'a [SapContact],
    d: usize,
    u: &'a [f64],
    du: &'a [f64],
    a: f64,
    g0: f64,
    /// ½ (v − v*)ᵀ M (v − v*).
    cost_a0: f64,
}

impl Line<'_> {
    /// `(ℓ(α), ℓ'(α), ℓ''(α))`.
    fn eval(&self, alpha: f64) -> (f64, f64, f64) {
        let d = self.d;
        let (mut cost_r, mut dr, mut d2r) = (0.0, 0.0, 0.0);
        let (mut ua, mut gamma, mut gm) = ([0.0; 3], [0.0; 3], [0.0; 9]);
        for (i, c) in self.contacts.iter().enumerate() {
            let s = i * d;
            for k in 0..d {
                ua[k] = self.u[s + k] + alpha * self.du[s + k];
            }
            c.project(&ua[..d], &mut gamma[..d], Some(&mut gm[..d * d]));
            cost_r += c.cost(&gamma[..d]);
            let du = &self.du[s..s + d];
            dr -= (0..d).map(|k| du[k] * gamma[k]).sum::<f64>();
            d2r += (0..d).map(|a| du[a] * (0..d).map(|b| gm[a * d + b] * du[b]).sum::<f64>()).sum::<f64>();
        }
        let cost = self.cost_a0 + alpha * self.g0 + 0.5 * alpha * alpha * self.a + cost_r;
        (cost, self.g0 + alpha * self.a + dr, self.a + d2r)
    }
}

/// The minimiser of the convex `ℓ(α)` on `[0, alpha_max]` by Newton's method on `ℓ'`
/// safeguarded by bisection (the bracket kept); `ℓ'(0) < 0` is required. Returns the step and
/// the evaluations it took.
fn exact_line_search(line: &Line, alpha_max: f64, f_tol: f64, max_iter: usize) -> (f64, usize) {
    let (_, d0, _) = line.eval(0.0);
    let (_, dmax, _) = line.eval(alpha_max);
    if dmax <= 0.0 {
        return (alpha_max, 2);
    }
    let scale = -d0;
    let (mut lo, mut hi) = (0.0, alpha_max);
    let mut x = 1.0_f64.min(alpha_max);
    let alpha_tol = f_tol * x;
    let mut evals = 2;
    for _ in 0..max_iter {
        let (_, dl, d2l) = line.eval(x);
        evals += 1;
        let f = dl / scale;
        if f.abs() <= f_tol {
            return (x, evals);
        }
        if f < 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let newton = x - dl / d2l;
        let next = if d2l > 0.0 && newton > lo && newton < hi { newton } else { 0.5 * (lo + hi) };
        if (next - x).abs() <= alpha_tol {
            return (next, evals);
        }
        x = next;
    }
    (x, evals)
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
        Ok(self.prepare(g)?.0)
    }

    fn prepare(
        &self,
        g: &GlobalFrictionContactProblem,
    ) -> Result<(Vec<SapContact>, MassFactor, Vec<Row>), Error> {
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
        let factor = MassFactor::new(&g.m).map_err(|e| Error::Requirement {
            solver: "sap".into(),
            requirement: format!("a symmetric positive definite mass matrix M (n_dof = {n}): {e}"),
            suggestion: Some("SAP's cost is strongly convex only for an SPD M; try global-ac-newton".into()),
        })?;
        let d = g.dim;
        let rows = g.contact_rows();
        let refs: Vec<&Row> = rows.iter().collect();
        let y = solve_rows(&factor, n, &refs);
        if let Some((i, j)) = y.first_non_finite() {
            return Err(Error::Requirement {
                solver: "sap".into(),
                requirement: format!(
                    "an invertible mass matrix M: M⁻¹ H has a non-finite entry at ({i}, {j})"
                ),
                suggestion: None,
            });
        }
        let mut wd = [0.0; 3];
        let contacts = (0..nc)
            .map(|i| {
                for a in 0..d {
                    wd[a] = y.row_dot_column(&rows[i * d + a], i * d + a);
                }
                let (rn, rt, vhat_n) = self.regularisation.contact(i, &wd[..d]);
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
        let (contacts, factor, _) = self.prepare(g)?;
        Error::check_len("v", v, g.dofs())?;
        Error::check_finite("v", v)?;
        let model = model(g, contacts, &factor)?;
        let mut e = Eval::new(g);
        model.eval(v, &mut e, false);
        Ok((e.cost, e.grad))
    }

    /// The Hessian `M + H G Hᵀ` at v, dense (row-major, n_dof²): for tests.
    pub fn dense_hessian(&self, g: &GlobalFrictionContactProblem, v: &[f64]) -> Result<Vec<f64>, Error> {
        let (contacts, factor, rows) = self.prepare(g)?;
        Error::check_len("v", v, g.dofs())?;
        let model = model(g, contacts, &factor)?;
        let mut e = Eval::new(g);
        model.eval(v, &mut e, true);
        let pat = Pattern::new(g, &rows);
        let mut values = Vec::new();
        pat.fill(g.dim, &e.g, &mut values, &mut e.hg);
        let n = g.dofs();
        let mut out = vec![0.0; n * n];
        for j in 0..n {
            for k in pat.col_ptr[j]..pat.col_ptr[j + 1] {
                let i = pat.row_idx[k];
                out[i * n + j] = values[k];
                out[j * n + i] = values[k];
            }
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
        let (contacts, factor, rows) = self.prepare(g)?;
        let (n, d) = (g.dofs(), g.dim);
        if let Some(v0) = v0 {
            Error::check_len("initial velocity v0", v0, n)?;
            Error::check_finite("initial velocity v0", v0)?;
        }
        let model = model(g, contacts, &factor)?;
        let max_iter = s.max_iter_or(self.max_iter);
        let deadline = s.deadline(start);
        let mut v = v0.map_or_else(|| model.vstar.clone(), <[f64]>::to_vec);
        let pat = Pattern::new(g, &rows);
        let mut report = SolveReport::new(self.name());
        let mut e = Eval::new(g);
        let mut values = Vec::new();
        let (mut dv, mut mdv, mut du) = (vec![0.0; n], vec![0.0; n], Vec::with_capacity(g.size()));
        let mut cost_stalled = false;
        let criterion = |e: &Eval| e.residual <= self.abs_tolerance + s.tol * e.scale;
        loop {
            model.eval(&v, &mut e, true);
            report.error = relative_optimality(e.residual, e.scale, self.abs_tolerance);
            if s.record_history {
                report.history.push(report.error);
                report.history_iterations.push(report.iterations);
            }
            if criterion(&e) {
                report.status = Status::Solved;
                break;
            }
            if !(e.residual.is_finite() && e.cost.is_finite()) {
                report.status = Status::NumericalFailure;
                report.message = Some("the cost or its gradient is not finite".into());
                break;
            }
            if cost_stalled {
                report.status = Status::Stalled;
                report.message = Some(format!(
                    "the cost stopped decreasing (SAP's cost criterion) before the optimality \
                     criterion held: ‖D∇ℓ‖ = {:.3e}, scale {:.3e}",
                    e.residual, e.scale
                ));
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
            report.iterations += 1;
            // The Newton direction (M + H G Hᵀ) Δv = −∇ℓ.
            pat.fill(d, &e.g, &mut values, &mut e.hg);
            report.factorizations += 1;
            let solved = self.chol.factor(n, &pat.col_ptr, &pat.row_idx, &values).and_then(|()| {
                dv.iter_mut().zip(&e.grad).for_each(|(a, b)| *a = -b);
                self.chol.solve_in_place(&mut dv, n, 1)
            });
            if let Err(b) = solved {
                report.status = Status::NumericalFailure;
                report.message = Some(format!("the Newton matrix M + H G Hᵀ could not be factored: {b}"));
                break;
            }
            g.m.mul_vec(&dv, &mut mdv);
            du.clear();
            du.resize(g.size(), 0.0);
            mul_transpose(&g.h, &dv, &mut du);
            let a: f64 = dv.iter().zip(&mdv).map(|(x, y)| x * y).sum();
            // g0 = Δvᵀ (M v − f) = Δvᵀ (∇ℓ + H γ).
            let slope: f64 = dv.iter().zip(&e.grad).map(|(x, y)| x * y).sum();
            let g0 = slope + du.iter().zip(&e.gamma).map(|(x, y)| x * y).sum::<f64>();
            if slope.is_nan() || slope >= 0.0 {
                report.status = Status::NumericalFailure;
                report.message = Some(format!(
                    "the Newton direction is not a descent direction (slope {slope:.3e}): rounding"
                ));
                break;
            }
            let cost_a0 = e.cost
                - model
                    .contacts
                    .iter()
                    .enumerate()
                    .map(|(i, c)| c.cost(&e.gamma[i * d..(i + 1) * d]))
                    .sum::<f64>();
            let line = Line { contacts: &model.contacts, d, u: &e.u, du: &du, a, g0, cost_a0 };
            let (alpha, evals) = if -slope < self.cost_abs_tolerance + self.cost_rel_tolerance * e.cost {
                (1.0, 0)
            } else {
                exact_line_search(
                    &line,
                    self.alpha_max,
                    self.line_search_tolerance,
                    self.line_search_max_iter,
                )
            };
            report.line_search_steps += evals;
            let (cost_new, _, _) = line.eval(alpha);
            let decrement = (e.cost - cost_new).abs();
            cost_stalled = alpha > 0.5
                && decrement < self.cost_abs_tolerance + self.cost_rel_tolerance * 0.5 * (e.cost + cost_new);
            v.iter_mut().zip(&dv).for_each(|(x, y)| *x += alpha * y);
        }
        // The answer's measures, from v afresh (the criterion recomputed).
        model.eval(&v, &mut e, false);
        report.error = relative_optimality(e.residual, e.scale, self.abs_tolerance);
        let optimal = criterion(&e);
        if report.status == Status::Solved && !optimal {
            report.status = Status::NumericalFailure;
            report.message = Some("the optimality criterion does not hold when recomputed".into());
        }
        report.residual_inf = e.grad.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        let coulomb_error = g.error(&e.gamma, &v);
        if report.message.is_none() {
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
}

/// `(‖D∇ℓ‖ − ε_abs)₊ / scale`: ≤ tol exactly when the criterion holds (0/0 read as 0).
fn relative_optimality(residual: f64, scale: f64, abs: f64) -> f64 {
    let excess = (residual - abs).max(0.0);
    if excess == 0.0 {
        0.0
    } else if scale > 0.0 {
        excess / scale
    } else {
        f64::INFINITY
    }
}

impl Eval {
    fn new(g: &GlobalFrictionContactProblem) -> Eval {
        let (n, m, d) = (g.dofs(), g.size(), g.dim);
        Eval {
            u: Vec::with_capacity(m),
            gamma: vec![0.0; m],
            g: vec![0.0; g.contacts() * d * d],
            grad: vec![0.0; n],
            hg: Vec::new(),
            p: vec![0.0; n],
            j: vec![0.0; n],
            cost: 0.0,
            residual: 0.0,
            scale: 0.0,
        }
    }
}

fn model<'a>(
    g: &'a GlobalFrictionContactProblem,
    contacts: Vec<SapContact>,
    factor: &MassFactor,
) -> Result<Model<'a>, Error> {
    let n = g.dofs();
    let diag = g.m.diagonal();
    if let Some(i) = diag.iter().position(|&x| x.is_nan() || x <= 0.0) {
        return Err(Error::Requirement {
            solver: "sap".into(),
            requirement: format!("a positive diagonal of M (M[{i},{i}] = {})", diag[i]),
            suggestion: None,
        });
    }
    let dinv = diag.iter().map(|x| 1.0 / x.sqrt()).collect();
    let mut vstar = g.f.clone();
    factor.solve(&mut vstar, n, 1);
    Error::check_finite("v* = M⁻¹ f", &vstar)?;
    Ok(Model { g, contacts, dinv, vstar })
}

/// `y = Aᵀ x` (y zeroed by the caller).
fn mul_transpose(a: &perp_core::Matrix, x: &[f64], y: &mut [f64]) {
    match a {
        perp_core::Matrix::Dense(m) => {
            for (j, yj) in y.iter_mut().enumerate() {
                *yj += m.col_as_slice(j).iter().zip(x).map(|(p, q)| p * q).sum::<f64>();
            }
        }
        perp_core::Matrix::Sparse(s) => {
            for (v, (i, j)) in s.iter() {
                y[j] += v * x[i];
            }
        }
    }
}

impl GlobalSolver for Sap {
    fn name(&self) -> &'static str {
        Sap::name(self)
    }

    /// From reactions `warm` the start is `v = M⁻¹ (f + H r)`. The report's `error` is SAP's
    /// relative optimality of the **regularised** problem (see [`SapSolution`]), its message
    /// the Coulomb global error of the answer.
    fn solve_global(
        &mut self,
        g: &GlobalFrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<GlobalSolution, Error> {
        let v0 = match warm {
            None => None,
            Some(r) => {
                g.validate()?;
                Error::check_len("warm start", r, g.size())?;
                Error::check_finite("warm start", r)?;
                let factor = MassFactor::new(&g.m)?;
                let mut v = vec![0.0; g.dofs()];
                g.h.mul_vec(r, &mut v);
                v.iter_mut().zip(&g.f).for_each(|(a, b)| *a += b);
                factor.solve(&mut v, g.dofs(), 1);
                Some(v)
            }
        };
        Ok(self.solve(g, v0.as_deref(), s)?.solution)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GlobalNewton;
    use perp_core::Matrix;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const PI2: f64 = 4.0 * std::f64::consts::PI * std::f64::consts::PI;

    /// A particle of mass `m` (velocities x, y, z) on the plane z = 0, μ = 0.5: H's columns are
    /// the contact's normal e_z and tangents e_x, e_y; f = m v*.
    fn particle(m: f64, v_free: [f64; 3]) -> GlobalFrictionContactProblem {
        let mm = Matrix::from_row_major(3, 3, &[m, 0.0, 0.0, 0.0, m, 0.0, 0.0, 0.0, m]).unwrap();
        let h = Matrix::from_row_major(3, 3, &[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]).unwrap();
        let f = v_free.iter().map(|v| m * v).collect();
        GlobalFrictionContactProblem::new(3, mm, h, f, vec![0.0; 3], vec![0.5]).unwrap()
    }

    fn tight() -> Settings {
        Settings { tol: 1e-12, ..Settings::default() }
    }

    fn solve(g: &GlobalFrictionContactProblem) -> SapSolution {
        let sol = Sap::new().solve(g, None, &tight()).unwrap();
        assert_eq!(sol.solution.report.status, Status::Solved, "{:?}", sol.solution.report);
        sol
    }

    fn close(a: &[f64], b: &[f64], tol: f64) {
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{a:?} vs {b:?}");
        }
    }

    /// The near-rigid regulariser of one particle contact: W = I/m, so w_n = w_t = 1/m,
    /// R_n = β²/(4π²)/m, R_t = σ/m.
    #[test]
    fn the_near_rigid_regulariser_is_drakes() {
        let g = particle(2.0, [0.0, 0.0, -1.0]);
        let c = Sap::new().contacts(&g).unwrap()[0];
        assert!((c.rn - 0.5 / PI2).abs() < 1e-15 && (c.rt - 0.5e-3).abs() < 1e-18, "{c:?}");
        assert_eq!((c.mu, c.vhat_n), (0.5, 0.0));
        // Compliant: R_n = max(β²/(4π²) w_n, 1/(δt k (δt + τ_d))), v̂_N = −φ₀/(δt + τ_d).
        let comp = Compliance { stiffness: 1e3, dissipation_time_scale: 0.01, phi0: -1e-3 };
        let reg = Regularisation::Compliant { dt: 0.01, beta: 1.0, sigma: 1e-3, contacts: vec![comp] };
        let c = Sap::with_regularisation(reg).contacts(&g).unwrap()[0];
        assert!((c.rn - 1.0 / (0.01 * 1e3 * 0.02)).abs() < 1e-12 && (c.vhat_n - 0.05).abs() < 1e-15, "{c:?}");
    }

    /// Pushed into the plane with a small tangential velocity: stiction, γ = R⁻¹(−u) and
    /// m (u − u*) = γ, so u = m u* / (m + R⁻¹) component by component.
    #[test]
    fn a_sticking_contact_has_the_hand_computed_impulse() {
        let m = 2.0;
        let g = particle(m, [0.1, 0.0, -1.0]);
        let sol = solve(&g);
        let c = sol.contacts[0];
        let un = -m / (m + 1.0 / c.rn);
        let ux = m * 0.1 / (m + 1.0 / c.rt);
        close(&sol.solution.u, &[un, ux, 0.0], 1e-12);
        close(&sol.solution.r, &[-un / c.rn, -ux / c.rt, 0.0], 1e-12);
        let mut gamma = [0.0; 3];
        assert_eq!(c.project(&sol.solution.u, &mut gamma, None), ContactMode::Stiction);
        // The regularised answer penetrates (u_N < 0): its Coulomb error is not small.
        assert!(un < -0.02 && sol.coulomb_error > 1e-3, "{un} {}", sol.coulomb_error);
        assert!(sol.solution.report.message.as_deref().unwrap_or("").contains("regularised"));
    }

    /// Landing with a large tangential velocity: sliding, γ_T = −μ γ_N along the slip and
    /// γ_N = (y_N + μ̂ y_r)/(1 + μ μ̂): with m (u − u*) = γ a 2×2 linear system in (u_N, u_x).
    #[test]
    fn a_sliding_contact_has_the_hand_computed_impulse() {
        let m = 2.0;
        let (usn, usx) = (-1.0, 2.0);
        let g = particle(m, [usx, 0.0, usn]);
        let sol = solve(&g);
        let c = sol.contacts[0];
        let mu = 0.5;
        let mu_hat = mu * c.rt / c.rn;
        let k = 1.0 / (c.rn * (1.0 + mu * mu_hat));
        // (m + k) u_N − μ k u_x = m u*_N;  μ m u_N + m u_x = m u*_x + μ m u*_N.
        let (a11, a12, b1) = (m + k, -mu * k, m * usn);
        let (a21, a22, b2) = (mu * m, m, m * usx + mu * m * usn);
        let det = a11 * a22 - a12 * a21;
        let un = (b1 * a22 - a12 * b2) / det;
        let ux = (a11 * b2 - a21 * b1) / det;
        close(&sol.solution.u, &[un, ux, 0.0], 1e-12);
        let gn = m * (un - usn);
        close(&sol.solution.r, &[gn, -mu * gn, 0.0], 1e-12);
        let mut gamma = [0.0; 3];
        assert_eq!(c.project(&sol.solution.u, &mut gamma, None), ContactMode::Sliding);
    }

    /// Moving away from the plane: γ = 0 and v = v*, at once (no factorization).
    #[test]
    fn a_separating_contact_carries_nothing() {
        let g = particle(2.0, [0.3, -0.2, 1.0]);
        let sol = solve(&g);
        assert_eq!(sol.solution.r, vec![0.0; 3]);
        close(&sol.solution.v, &[0.3, -0.2, 1.0], 1e-15);
        assert_eq!((sol.solution.report.iterations, sol.solution.report.factorizations), (0, 0));
    }

    /// A 2-D contact (normal, one tangent): stiction by hand as in 3-D.
    #[test]
    fn a_planar_contact_sticks_by_hand() {
        let m = 1.5;
        let mm = Matrix::from_row_major(2, 2, &[m, 0.0, 0.0, m]).unwrap();
        let h = Matrix::from_row_major(2, 2, &[0.0, 1.0, 1.0, 0.0]).unwrap();
        let g =
            GlobalFrictionContactProblem::new(2, mm, h, vec![m * 0.05, -m], vec![0.0; 2], vec![0.3]).unwrap();
        let sol = solve(&g);
        let c = sol.contacts[0];
        close(&sol.solution.u, &[-m / (m + 1.0 / c.rn), m * 0.05 / (m + 1.0 / c.rt)], 1e-12);
    }

    /// A random problem of `nc` contacts of dimension `d` on `n` velocities, M SPD dense.
    fn random_problem(seed: u64, n: usize, nc: usize, d: usize) -> GlobalFrictionContactProblem {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let l: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let mut md = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                md[i * n + j] =
                    (0..n).map(|k| l[i * n + k] * l[j * n + k]).sum::<f64>() + if i == j { 1.0 } else { 0.0 };
            }
        }
        let hd: Vec<f64> = (0..n * nc * d).map(|_| rng.random_range(-1.0..1.0)).collect();
        let f = (0..n).map(|_| rng.random_range(-2.0..2.0)).collect();
        let b = (0..nc * d).map(|_| rng.random_range(-0.5..0.5)).collect();
        let mu = (0..nc).map(|_| rng.random_range(0.1..1.0)).collect();
        GlobalFrictionContactProblem::new(
            d,
            Matrix::from_row_major(n, n, &md).unwrap(),
            Matrix::from_row_major(n, nc * d, &hd).unwrap(),
            f,
            b,
            mu,
        )
        .unwrap()
    }

    /// Points where every region is met: v* plus noise of several sizes.
    fn probe_points(g: &GlobalFrictionContactProblem, seed: u64) -> Vec<Vec<f64>> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..12)
            .map(|k| (0..g.dofs()).map(|_| rng.random_range(-1.0..1.0) * 0.3 * (k % 4 + 1) as f64).collect())
            .collect()
    }

    /// ∇ℓ against central differences of ℓ, on points that meet all three regions.
    #[test]
    fn the_gradient_matches_finite_differences_of_the_cost() {
        for d in [2, 3] {
            let g = random_problem(1 + d as u64, 6, 5, d);
            let sap = Sap::new();
            let contacts = sap.contacts(&g).unwrap();
            let mut modes = std::collections::BTreeSet::new();
            for v in probe_points(&g, 9) {
                let (_, grad) = sap.cost_and_gradient(&g, &v).unwrap();
                let u = g.local_velocity(&v);
                for (i, c) in contacts.iter().enumerate() {
                    modes
                        .insert(format!("{:?}", c.project(&u[i * d..(i + 1) * d], &mut [0.0; 3][..d], None)));
                }
                let h = 1e-6;
                for k in 0..g.dofs() {
                    let (mut vp, mut vm) = (v.clone(), v.clone());
                    vp[k] += h;
                    vm[k] -= h;
                    let fd = (sap.cost_and_gradient(&g, &vp).unwrap().0
                        - sap.cost_and_gradient(&g, &vm).unwrap().0)
                        / (2.0 * h);
                    assert!(
                        (fd - grad[k]).abs() <= 1e-5 * (1.0 + grad[k].abs()),
                        "d {d} k {k}: {fd} vs {}",
                        grad[k]
                    );
                }
            }
            assert!(modes.len() >= 2, "d = {d}: regions met {modes:?}");
        }
    }

    /// Per contact, in every region: `∂ℓ_i/∂u = −γ` and `∂γ/∂u = −G` by central differences.
    #[test]
    fn a_contacts_cost_gradient_and_hessian_match_finite_differences() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let mut modes = std::collections::BTreeSet::new();
        for d in [2, 3] {
            for _ in 0..600 {
                let c = SapContact {
                    mu: rng.random_range(0.05..1.2),
                    rn: rng.random_range(1e-2..1.0),
                    rt: rng.random_range(1e-3..1.0),
                    vhat_n: rng.random_range(-0.1..0.1),
                };
                let small = 10f64.powf(rng.random_range(-3.0..0.0));
                let u: Vec<f64> =
                    (0..d).map(|k| rng.random_range(-1.0..1.0) * if k == 0 { 1.0 } else { small }).collect();
                let (mut gamma, mut g) = ([0.0; 3], [0.0; 9]);
                modes.insert(format!("{:?}", c.project(&u, &mut gamma[..d], Some(&mut g[..d * d]))));
                let h = 1e-7;
                for k in 0..d {
                    let (mut up, mut um) = (u.clone(), u.clone());
                    up[k] += h;
                    um[k] -= h;
                    let (mut gp, mut gm) = ([0.0; 3], [0.0; 3]);
                    c.project(&up, &mut gp[..d], None);
                    c.project(&um, &mut gm[..d], None);
                    let fd = (c.cost(&gp[..d]) - c.cost(&gm[..d])) / (2.0 * h);
                    assert!(
                        (fd + gamma[k]).abs() <= 1e-5 * (1.0 + gamma[k].abs()),
                        "{c:?} u {u:?}: {fd} vs {}",
                        -gamma[k]
                    );
                    for a in 0..d {
                        let fd = (gp[a] - gm[a]) / (2.0 * h);
                        let want = -g[a * d + k];
                        assert!(
                            (fd - want).abs() <= 1e-4 * (1.0 + want.abs()),
                            "{c:?} u {u:?} ({a},{k}): {fd} vs {want}"
                        );
                    }
                }
            }
        }
        assert_eq!(modes.len(), 3, "regions met {modes:?}");
    }

    /// ∇²ℓ = M + H G Hᵀ against central differences of ∇ℓ (ℓ is piecewise C², the points are
    /// generic).
    #[test]
    fn the_hessian_matches_finite_differences_of_the_gradient() {
        for d in [2, 3] {
            let g = random_problem(11 + d as u64, 5, 4, d);
            let sap = Sap::new();
            let n = g.dofs();
            for v in probe_points(&g, 3) {
                let hess = sap.dense_hessian(&g, &v).unwrap();
                let h = 1e-7;
                for k in 0..n {
                    let (mut vp, mut vm) = (v.clone(), v.clone());
                    vp[k] += h;
                    vm[k] -= h;
                    let (gp, gm) = (
                        sap.cost_and_gradient(&g, &vp).unwrap().1,
                        sap.cost_and_gradient(&g, &vm).unwrap().1,
                    );
                    for i in 0..n {
                        let fd = (gp[i] - gm[i]) / (2.0 * h);
                        let scale = 1.0 + hess[i * n + k].abs();
                        assert!(
                            (fd - hess[i * n + k]).abs() <= 1e-4 * scale,
                            "d {d} ({i},{k}): {fd} vs {}",
                            hess[i * n + k]
                        );
                    }
                }
            }
        }
    }

    /// G is symmetric positive semi-definite in every region, and γ lies in the cone.
    #[test]
    fn the_projection_is_in_the_cone_and_g_is_symmetric_psd() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..2000 {
            let c = SapContact {
                mu: rng.random_range(0.0..1.5),
                rn: rng.random_range(1e-3..1.0),
                rt: rng.random_range(1e-4..1.0),
                vhat_n: rng.random_range(-0.1..0.1),
            };
            let u: Vec<f64> = (0..3).map(|_| rng.random_range(-1.0..1.0)).collect();
            let (mut gamma, mut g) = ([0.0; 3], [0.0; 9]);
            c.project(&u, &mut gamma, Some(&mut g));
            let gt = (gamma[1] * gamma[1] + gamma[2] * gamma[2]).sqrt();
            assert!(gamma[0] >= 0.0 && gt <= c.mu * gamma[0] * (1.0 + 1e-12) + 1e-15, "{gamma:?} {c:?}");
            for a in 0..3 {
                for b in 0..3 {
                    assert!((g[a * 3 + b] - g[b * 3 + a]).abs() <= 1e-12 * (1.0 + g[a * 3 + b].abs()));
                }
            }
            let x: Vec<f64> = (0..3).map(|_| rng.random_range(-1.0..1.0)).collect();
            let q: f64 = (0..3).map(|a| x[a] * (0..3).map(|b| g[a * 3 + b] * x[b]).sum::<f64>()).sum();
            assert!(q >= -1e-12 * g.iter().fold(0.0_f64, |m, v| m.max(v.abs())), "{q}");
        }
    }

    /// The exact line search's step against a brute-force minimum of ℓ(v + α Δv) on a grid.
    #[test]
    fn the_exact_line_search_finds_the_brute_force_minimum() {
        for seed in 0..6 {
            let g = random_problem(20 + seed, 5, 6, 3);
            let sap = Sap::new();
            let (contacts, factor, _) = sap.prepare(&g).unwrap();
            let model = model(&g, contacts, &factor).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let v: Vec<f64> = (0..5).map(|_| rng.random_range(-1.0..1.0)).collect();
            let mut e = Eval::new(&g);
            model.eval(&v, &mut e, false);
            // A descent direction: −∇ℓ scaled, so that the minimum is inside [0, 1.5].
            let dv: Vec<f64> = e.grad.iter().map(|x| -x * 0.2).collect();
            let mut mdv = vec![0.0; 5];
            g.m.mul_vec(&dv, &mut mdv);
            let mut du = vec![0.0; g.size()];
            mul_transpose(&g.h, &dv, &mut du);
            let a = dv.iter().zip(&mdv).map(|(x, y)| x * y).sum();
            let slope: f64 = dv.iter().zip(&e.grad).map(|(x, y)| x * y).sum();
            let g0 = slope + du.iter().zip(&e.gamma).map(|(x, y)| x * y).sum::<f64>();
            let cost_a0 = e.cost
                - model
                    .contacts
                    .iter()
                    .enumerate()
                    .map(|(i, c)| c.cost(&e.gamma[3 * i..3 * i + 3]))
                    .sum::<f64>();
            let line = Line { contacts: &model.contacts, d: 3, u: &e.u, du: &du, a, g0, cost_a0 };
            // The line's cost is the cost at v + α Δv.
            for alpha in [0.0, 0.3, 1.1] {
                let va: Vec<f64> = v.iter().zip(&dv).map(|(x, y)| x + alpha * y).collect();
                let mut ea = Eval::new(&g);
                model.eval(&va, &mut ea, false);
                assert!((line.eval(alpha).0 - ea.cost).abs() <= 1e-12 * (1.0 + ea.cost.abs()));
            }
            let (alpha, _) = exact_line_search(&line, 1.5, 1e-8, 100);
            let grid = 150_000;
            let (mut best, mut best_alpha) = (f64::INFINITY, 0.0);
            for k in 0..=grid {
                let t = 1.5 * k as f64 / grid as f64;
                let c = line.eval(t).0;
                if c < best {
                    (best, best_alpha) = (c, t);
                }
            }
            assert!(
                line.eval(alpha).0 <= best + 1e-12 * (1.0 + best.abs()),
                "seed {seed}: {alpha} vs {best_alpha}"
            );
            assert!((alpha - best_alpha).abs() <= 1e-4, "seed {seed}: {alpha} vs {best_alpha}");
        }
    }

    /// A box (6 velocities) on a plane, four corner contacts, pushed sideways below the friction
    /// limit: the rigid answer stops it (v = 0, GlobalNewton's exact answer); SAP's regularised
    /// answer approaches it as β → 0 (σ = β² with it), its velocity error falling like β².
    #[test]
    fn the_near_rigid_limit_approaches_the_rigid_answer() {
        let g = box_on_plane(0.3);
        let rigid = GlobalNewton::new().solve(&g, None, &tight()).unwrap();
        assert_eq!(rigid.report.status, Status::Solved);
        let vmax = |v: &[f64], w: &[f64]| v.iter().zip(w).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(vmax(&rigid.v, &[0.0; 6]) < 1e-10, "{:?}", rigid.v);
        let mut last = f64::INFINITY;
        for beta in [1.0, 0.1, 0.01, 0.001] {
            let mut sap =
                Sap::with_regularisation(Regularisation::NearRigid { beta, sigma: beta * beta * 1e-3 });
            let sol = sap.solve(&g, None, &Settings { tol: 1e-10, ..Settings::default() }).unwrap();
            assert_eq!(sol.solution.report.status, Status::Solved, "β = {beta}: {:?}", sol.solution.report);
            let err = vmax(&sol.solution.v, &rigid.v);
            assert!(err <= 0.02 * last, "β = {beta}: {err} after {last}");
            last = err;
            // The impulse's total: the normal ones carry m g dt, the tangential ones the push.
            let (nsum, tsum): (f64, f64) = (0..4)
                .fold((0.0, 0.0), |(a, b), i| (a + sol.solution.r[3 * i], b + sol.solution.r[3 * i + 1]));
            assert!((nsum - 2.0 * 9.81 * 0.01).abs() < 0.03 * nsum + 1e-6, "β = {beta}: {nsum}");
            assert!(
                (tsum + 0.3 * 0.01 * 2.0 * 9.81 * 0.5).abs() < 0.03 * tsum.abs() + 1e-6,
                "β = {beta}: {tsum}"
            );
        }
        assert!(last < 1e-8, "{last}");
    }

    /// A box of mass 2 at rest on z = 0 with corners at (±0.5, ±0.5, −0.5) from its centre, one
    /// step (dt = 0.01) of gravity and a push of `push` times the friction limit (μ = 0.5).
    fn box_on_plane(push: f64) -> GlobalFrictionContactProblem {
        let (m, i_rot, dt, grav, mu) = (2.0, 2.0 / 6.0, 0.01, 9.81, 0.5);
        let mut md = vec![0.0; 36];
        for k in 0..3 {
            md[k * 6 + k] = m;
            md[(k + 3) * 6 + k + 3] = i_rot;
        }
        let mut trip = Vec::new();
        for (c, (px, py)) in [(0.5, 0.5), (-0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)].into_iter().enumerate() {
            let pz = -0.5;
            // Normal (z): v_z + ω_x p_y − ω_y p_x; tangents x, y: v + ω × p.
            for (row, col) in [
                (vec![(2, 1.0), (3, py), (4, -px)], 3 * c),
                (vec![(0, 1.0), (4, pz), (5, -py)], 3 * c + 1),
                (vec![(1, 1.0), (5, px), (3, -pz)], 3 * c + 2),
            ] {
                for (dof, v) in row {
                    trip.push((dof, col, v));
                }
            }
        }
        let f = vec![push * mu * m * grav * dt, 0.0, -m * grav * dt, 0.0, 0.0, 0.0];
        GlobalFrictionContactProblem::new(
            3,
            Matrix::from_row_major(6, 6, &md).unwrap(),
            Matrix::from_triplets(6, 12, &trip).unwrap(),
            f,
            vec![0.0; 12],
            vec![mu; 4],
        )
        .unwrap()
    }

    /// One solver kept across problems of different shapes gives, on each, the bits of a fresh
    /// solver; a repeated pattern costs no new symbolic analysis.
    #[test]
    fn a_kept_solver_equals_a_fresh_one_bit_for_bit() {
        let problems = [
            random_problem(40, 6, 5, 3),
            box_on_plane(0.8),
            random_problem(41, 9, 7, 2),
            random_problem(40, 6, 5, 3),
        ];
        let mut kept = Sap::new();
        let s = tight();
        for (k, g) in problems.iter().enumerate() {
            let a = kept.solve(g, None, &s).unwrap();
            let b = Sap::new().solve(g, None, &s).unwrap();
            let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a.solution.v), bits(&b.solution.v), "problem {k}");
            assert_eq!(bits(&a.solution.r), bits(&b.solution.r), "problem {k}");
            assert_eq!(a.solution.report.iterations, b.solution.report.iterations);
            assert_eq!(a.solution.report.status, Status::Solved, "problem {k}: {:?}", a.solution.report);
            assert_eq!(b.analyses, 1.min(b.solution.report.factorizations), "problem {k}");
        }
        // Four problems, three analyses: the box's Hessian is full 6×6 like the first random
        // problem's (one pattern, kept); the third differs; the fourth is the first again.
        assert_eq!(kept.analyses(), 3);
        let before = kept.analyses();
        kept.solve(&problems[3], None, &s).unwrap();
        assert_eq!(kept.analyses(), before, "the same pattern again: no new analysis");
    }

    /// Bad input: a clear error, never a panic.
    #[test]
    fn bad_input_is_a_clear_error() {
        let s = Settings::default();
        let g = particle(1.0, [0.0, 0.0, -1.0]);
        let mut sap = Sap::new();
        let e = sap.solve(&g, Some(&[1.0]), &s).unwrap_err().to_string();
        assert!(e.contains("v0"), "{e}");
        let e = sap.solve(&g, Some(&[f64::NAN, 0.0, 0.0]), &s).unwrap_err().to_string();
        assert!(e.contains("v0"), "{e}");
        let e = sap.solve_global(&g, Some(&[1.0]), &s).unwrap_err().to_string();
        assert!(e.contains("warm start"), "{e}");
        let mut bad = g.clone();
        bad.m = Matrix::from_row_major(3, 3, &[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
        let e = sap.solve(&bad, None, &s).unwrap_err().to_string();
        assert!(e.contains("mass matrix M"), "{e}");
        let mut bad = g.clone();
        bad.mu = vec![-0.1];
        assert!(sap.solve(&bad, None, &s).unwrap_err().to_string().contains("mu"));
        let mut bad = g.clone();
        bad.f[1] = f64::NAN;
        assert!(sap.solve(&bad, None, &s).is_err());
        let mut bad = g.clone();
        bad.h = Matrix::from_row_major(2, 3, &[0.0; 6]).unwrap();
        assert!(sap.solve(&bad, None, &s).is_err());
        // A rolling-like cone (dimension 5) is refused by name.
        let five = GlobalFrictionContactProblem::new(
            5,
            Matrix::from_row_major(1, 1, &[1.0]).unwrap(),
            Matrix::from_row_major(1, 5, &[1.0, 0.0, 0.0, 0.0, 0.0]).unwrap(),
            vec![0.0],
            vec![0.0; 5],
            vec![0.5],
        )
        .unwrap();
        let e = sap.solve(&five, None, &s).unwrap_err().to_string();
        assert!(e.contains("dimension 2 or 3"), "{e}");
        for reg in [
            Regularisation::NearRigid { beta: 0.0, sigma: 1e-3 },
            Regularisation::NearRigid { beta: 1.0, sigma: f64::NAN },
            Regularisation::Compliant { dt: 0.01, beta: 1.0, sigma: 1e-3, contacts: vec![] },
            Regularisation::Compliant {
                dt: 0.01,
                beta: 1.0,
                sigma: 1e-3,
                contacts: vec![Compliance { stiffness: -1.0, dissipation_time_scale: 0.0, phi0: 0.0 }],
            },
        ] {
            let e = Sap::with_regularisation(reg.clone()).solve(&g, None, &s).unwrap_err().to_string();
            assert!(e.contains("sap"), "{reg:?}: {e}");
        }
    }

    /// From reactions (the `GlobalSolver` entry point) the start is `v = M⁻¹ (f + H r)`: the
    /// answer's own impulses give back its v, which meets the criterion at once.
    #[test]
    fn a_warm_start_from_the_answers_impulses_costs_no_factorization() {
        let g = box_on_plane(0.8);
        let s = tight();
        let cold = Sap::new().solve(&g, None, &s).unwrap();
        let warm = Sap::new().solve_global(&g, Some(&cold.solution.r), &s).unwrap();
        assert_eq!(
            (warm.report.status, warm.report.factorizations),
            (Status::Solved, 0),
            "{:?}",
            warm.report
        );
        close(&warm.v, &cold.solution.v, 1e-12);
    }

    /// Solved means SAP's criterion, recomputed from the returned v; a one-iteration budget
    /// on a sliding contact ends unsolved with the measure above tol.
    #[test]
    fn solved_is_the_recomputed_criterion() {
        let g = random_problem(40, 6, 5, 3);
        let s = Settings { tol: 1e-10, max_iter: 1, ..Settings::default() };
        let sol = Sap::new().solve(&g, None, &s).unwrap();
        assert_eq!(sol.solution.report.status, Status::MaxIterations);
        assert!(sol.solution.report.error > 1e-10);
        let sol = Sap::new().solve(&g, None, &Settings { tol: 1e-10, ..Settings::default() }).unwrap();
        assert_eq!(sol.solution.report.status, Status::Solved);
        assert!(sol.optimality <= 1e-14 + 1e-10 * sol.scale);
        assert!(sol.solution.report.error <= 1e-10);
        let (_, grad) = Sap::new().cost_and_gradient(&g, &sol.solution.v).unwrap();
        let res = (0..g.dofs()).map(|k| grad[k] * grad[k] / g.m.get(k, k)).sum::<f64>().sqrt();
        assert!((res - sol.optimality).abs() <= 1e-12 * sol.optimality, "{res} vs {}", sol.optimality);
    }
}
