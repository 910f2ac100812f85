//! `F(v, r)` and its evaluation with kept storage; the scale and the physical check of a
//! global answer, shared with the interior-point method.

use super::*;
use crate::cone::{AcInput, CfunOut};

/// `‖q‖ = ‖Hᵀ M⁻¹ f + b‖`, the local problem's velocity scale, from M's factor.
pub(crate) fn free_velocity_norm(g: &GlobalFrictionContactProblem, factor: &MassFactor) -> f64 {
    let mut vfree = g.f.clone();
    factor.solve(&mut vfree, g.dofs(), 1);
    measures::norm2(&g.local_velocity(&vfree))
}

/// The local velocities `u = Hᵀ v + b` of a global answer, after the physical check every
/// frictional solver's "solved" must also pass (penetration, cone and complementarity at the
/// data's scale `qn` = ‖q‖ plus the rounding of `Hᵀ v + b`); a `Solved` report that fails it
/// becomes `NumericalFailure`.
pub(crate) fn check_answer(
    g: &GlobalFrictionContactProblem,
    qn: f64,
    (r, v): (&[f64], &[f64]),
    report: &mut SolveReport,
    tol: f64,
) -> Vec<f64> {
    let u = g.local_velocity(v);
    let rn = measures::norm2(r);
    let v1: f64 = v.iter().map(|x| x.abs()).sum();
    let un = qn + measures::gamma(g.dofs() + 1) * g.h.max_abs() * v1;
    let phys = if rn.is_finite() && un.is_finite() {
        physical_figure(g.dim, &g.mu, None, r, &u, rn, un)
    } else {
        f64::NAN
    };
    report.check_physics(phys, tol, "penetration, cone or complementarity violation");
    u
}

/// The evaluation of `F(v, r)` for one problem, with its storage (`H r`, `u`) kept: the line
/// search evaluates F many times per iteration.
pub(super) struct Residual<'a> {
    pub(super) g: &'a GlobalFrictionContactProblem,
    pub(super) cone: Coulomb,
    /// Φ is the convex relaxation's natural map ([`convex_natural_map`]) instead of
    /// Alart–Curnier's function.
    pub(super) convex: bool,
    pub(super) hr: Vec<f64>,
    pub(super) u: Vec<f64>,
}

impl<'a> Residual<'a> {
    pub(super) fn new(g: &'a GlobalFrictionContactProblem, cone: Coulomb, convex: bool) -> Self {
        Residual { g, cone, convex, hr: vec![0.0; g.dofs()], u: Vec::with_capacity(g.size()) }
    }

    /// `F(v, r)` into `res` (`M v − H r − f`, then Φ with the contacts' `rho`, at
    /// `u + σ (r − r_ref)` in prox's mode), the Jacobian blocks of Φ when asked; returns
    /// `½‖F‖²`.
    pub(super) fn eval(
        &mut self,
        rho: &[(f64, f64)],
        (r, v): (&[f64], &[f64]),
        res: &mut [f64],
        mut jac: Option<(&mut [f64], &mut [f64])>,
        prox: Option<&ProxState>,
    ) -> f64 {
        let g = self.g;
        let (n, d) = (g.dofs(), g.dim);
        let dd = d * d;
        let (eq, phi) = res.split_at_mut(n);
        g.m.mul_vec(v, eq);
        g.h.mul_vec(r, &mut self.hr);
        for k in 0..n {
            eq[k] -= self.hr[k] + g.f[k];
        }
        g.local_velocity_into(v, &mut self.u);
        let u = &mut self.u;
        if let Some(ps) = prox {
            for ((uk, rk), ck) in u.iter_mut().zip(r).zip(&ps.r_ref) {
                *uk += ps.sigma * (rk - ck);
            }
        }
        for (i, &(rn, rt)) in rho.iter().enumerate() {
            let s = d * i;
            let j =
                jac.as_mut().map(|(jr, ju)| (&mut jr[i * dd..(i + 1) * dd], &mut ju[i * dd..(i + 1) * dd]));
            let x = AcInput { mu: g.mu[i], rho_n: rn, rho_t: rt, r: &r[s..s + d], u: &u[s..s + d] };
            let out = CfunOut { phi: &mut phi[s..s + d], jac: j };
            if self.convex {
                convex_natural_map(&self.cone, x, out);
            } else {
                self.cone.alart_curnier(x, out);
            }
        }
        0.5 * res.iter().map(|x| x * x).sum::<f64>()
    }
}

/// The natural map of the convex relaxation (Anitescu's `K ∋ r ⊥ u ∈ K*`) at one contact,
/// `Φ = r − P_K(r − ρ u)` with the scalar `ρ = ρ_N` (a scalar keeps its zeros those of the
/// relaxation), and its Jacobians `(∂Φ/∂r, ∂Φ/∂u) = (I − J_P, ρ J_P)` when asked, `J_P` the
/// projection's (generalised) Jacobian at `r − ρ u`.
pub(super) fn convex_natural_map(cone: &Coulomb, x: AcInput<'_>, out: CfunOut<'_>) {
    let (AcInput { mu, rho_n: rho, r, u, .. }, CfunOut { phi, jac }) = (x, out);
    let d = r.len();
    let mut y = [0.0; MAX_DIM];
    for a in 0..d {
        y[a] = r[a] - rho * u[a];
    }
    let mut p = [0.0; MAX_DIM];
    match jac {
        None => cone.project(mu, &y[..d], &mut p[..d]),
        Some((jr, ju)) => {
            let mut jp = [0.0; MAX_DIM * MAX_DIM];
            cone.project_jacobian(mu, &y[..d], &mut p[..d], &mut jp[..d * d]);
            for a in 0..d {
                for b in 0..d {
                    let delta = f64::from(u8::from(a == b));
                    jr[a * d + b] = delta - jp[a * d + b];
                    ju[a * d + b] = rho * jp[a * d + b];
                }
            }
        }
    }
    for a in 0..d {
        phi[a] = r[a] - p[a];
    }
}
