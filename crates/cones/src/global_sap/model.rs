//! The cost ℓ(v), its gradient and Hessian at a point, and the exact line search on it.

use super::*;

/// The quantities of one evaluation of ℓ at v.
pub(super) struct Eval {
    pub(super) u: Vec<f64>,
    pub(super) gamma: Vec<f64>,
    pub(super) g: Vec<f64>,
    pub(super) grad: Vec<f64>,
    pub(super) hg: Vec<f64>,
    /// `p = M v` and `j = H γ`.
    pub(super) p: Vec<f64>,
    pub(super) j: Vec<f64>,
    pub(super) cost: f64,
    pub(super) residual: f64,
    pub(super) scale: f64,
}

/// The problem's fixed data for one solve.
pub(super) struct Model<'a> {
    pub(super) g: &'a GlobalFrictionContactProblem,
    pub(super) contacts: Vec<SapContact>,
    /// `diag(M)^{-1/2}`.
    pub(super) dinv: Vec<f64>,
    pub(super) vstar: Vec<f64>,
}

impl Model<'_> {
    /// ℓ(v), γ, ∇ℓ and the criterion's two norms (G too when `hessian`).
    pub(super) fn eval(&self, v: &[f64], e: &mut Eval, hessian: bool) {
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
pub(super) struct Line<'a> {
    pub(super) contacts: &'a [SapContact],
    pub(super) d: usize,
    pub(super) u: &'a [f64],
    pub(super) du: &'a [f64],
    pub(super) a: f64,
    pub(super) g0: f64,
    /// ½ (v − v*)ᵀ M (v − v*).
    pub(super) cost_a0: f64,
    /// γ at α = 0 when the caller has it (the evaluation at v gave it): ℓ'(0) then costs no
    /// projection.
    pub(super) gamma0: Option<&'a [f64]>,
}

impl Line<'_> {
    /// `(ℓ(α), ℓ'(α), ℓ''(α))`.
    pub(super) fn eval(&self, alpha: f64) -> (f64, f64, f64) {
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

    /// `ℓ'(0)`: from [`Line::gamma0`] when given (the same sums as [`Line::eval`] at 0, so the
    /// same value to the bit), else by `eval(0)`.
    pub(super) fn slope_at_start(&self) -> f64 {
        let Some(gamma) = self.gamma0 else { return self.eval(0.0).1 };
        let d = self.d;
        let mut dr = 0.0;
        for (du, gamma) in self.du.chunks_exact(d).zip(gamma.chunks_exact(d)) {
            dr -= (0..d).map(|k| du[k] * gamma[k]).sum::<f64>();
        }
        self.g0 + 0.0 * self.a + dr
    }
}

/// What [`exact_line_search`] found: the step, the evaluations of ℓ it took, and ℓ at the step
/// when one of them was there (`None`: the step lies between evaluated points).
pub(super) struct Search {
    pub(super) alpha: f64,
    pub(super) evals: usize,
    pub(super) cost: Option<f64>,
}

/// The minimiser of the convex `ℓ(α)` on `[0, alpha_max]` by Newton's method on `ℓ'`
/// safeguarded by bisection (the bracket kept); `ℓ'(0) < 0` is required.
pub(super) fn exact_line_search(line: &Line, alpha_max: f64, f_tol: f64, max_iter: usize) -> Search {
    let d0 = line.slope_at_start();
    let (cmax, dmax, _) = line.eval(alpha_max);
    let mut evals = 1 + usize::from(line.gamma0.is_none());
    if dmax <= 0.0 {
        return Search { alpha: alpha_max, evals, cost: Some(cmax) };
    }
    let scale = -d0;
    let (mut lo, mut hi) = (0.0, alpha_max);
    let mut x = 1.0_f64.min(alpha_max);
    let alpha_tol = f_tol * x;
    for _ in 0..max_iter {
        let (cost, dl, d2l) = line.eval(x);
        evals += 1;
        let f = dl / scale;
        if f.abs() <= f_tol {
            return Search { alpha: x, evals, cost: Some(cost) };
        }
        if f < 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let newton = x - dl / d2l;
        let next = if d2l > 0.0 && newton > lo && newton < hi { newton } else { 0.5 * (lo + hi) };
        if (next - x).abs() <= alpha_tol {
            return Search { alpha: next, evals, cost: None };
        }
        x = next;
    }
    Search { alpha: x, evals, cost: None }
}

/// `(‖D∇ℓ‖ − ε_abs)₊ / scale`: ≤ tol exactly when the criterion holds (0/0 read as 0).
pub(super) fn relative_optimality(residual: f64, scale: f64, abs: f64) -> f64 {
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
    pub(super) fn new(g: &GlobalFrictionContactProblem) -> Eval {
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

pub(super) fn model<'a>(
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
