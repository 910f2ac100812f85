//! Second-order cone algebra: Nesterov–Todd scalings, Jordan products and divisions, steps
//! to the boundary.

use super::*;

/// Nesterov–Todd scaling of one second-order cone (Vandenberghe 2010 §4.2): `W = η W̄`,
/// `W̄ = [[w₀, w₁ᵀ], [w₁, I + w₁w₁ᵀ/(1 + w₀)]]`, `w̄ᵀJw̄ = 1`; `W z = W⁻¹ s = λ`.
#[derive(Clone, Copy)]
pub(super) struct Nt {
    pub(super) eta: f64,
    pub(super) w: [f64; MAX_DIM],
}

/// `x₀² − ‖x₁‖²` computed as `(x₀ − ‖x₁‖)(x₀ + ‖x₁‖)`.
pub(super) fn jnorm_sq(x: &[f64]) -> f64 {
    let t = x[1..].iter().map(|v| v * v).sum::<f64>().sqrt();
    (x[0] - t) * (x[0] + t)
}

impl Nt {
    /// The scaling `W = √ω² I` (η = √ω², w = e): the start's, before any iterate.
    pub(super) fn unit(omega2: f64) -> Nt {
        let mut w = [0.0; MAX_DIM];
        w[0] = 1.0;
        Nt { eta: omega2.sqrt(), w }
    }

    pub(super) fn new(s: &[f64], z: &[f64]) -> Nt {
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
    pub(super) fn apply(&self, x: &[f64], y: &mut [f64], inverse: bool) {
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

    /// `(W² + δI)⁻¹` (p × p, row-major, into `out`) by W̄'s eigen-decomposition: W̄ is
    /// `[[w₀, t], [t, w₀]]` on the plane of e₀ and `û = w₁/t` (`t = ‖w₁‖`, eigenvalues
    /// `w₀ ± t`, eigenvectors `(e₀ ± û)/√2`) and the identity across it, so
    /// `(W² + δI)⁻¹ = Σ± α± v±v±ᵀ + β (I − e₀e₀ᵀ − ûûᵀ)`, `α± = 1/(η²(w₀ ± t)² + δ)`,
    /// `β = 1/(η² + δ)`; `w₀ − t = 1/(w₀ + t)` as `w₀² − t² = 1`. Closed form keeps the
    /// accuracy that inverting an ill-conditioned W² would lose near the cone's boundary.
    pub(super) fn w2_reg_inv(&self, p: usize, delta: f64, out: &mut [f64]) {
        let e2 = self.eta * self.eta;
        let w = &self.w;
        let t = w[1..p].iter().map(|v| v * v).sum::<f64>().sqrt();
        let big = w[0] + t;
        let (ap, am) = (1.0 / (e2 * big * big + delta), 1.0 / (e2 / (big * big) + delta));
        let beta = 1.0 / (e2 + delta);
        let (sum, dif) = ((ap + am) / 2.0, (ap - am) / 2.0);
        out[0] = if p == 1 { 1.0 / (e2 * w[0] * w[0] + delta) } else { sum };
        for a in 1..p {
            let ua = if t > 0.0 { w[a] / t } else { 0.0 };
            out[a] = dif * ua;
            out[a * p] = dif * ua;
            for b in 1..p {
                let ub = if t > 0.0 { w[b] / t } else { 0.0 };
                let id = if a == b { 1.0 } else { 0.0 };
                out[a * p + b] = sum * ua * ub + beta * (id - ua * ub);
            }
        }
    }

    /// Entry (a, b) of `W² = η² (2 w̄w̄ᵀ − J)`.
    pub(super) fn w2(&self, a: usize, b: usize) -> f64 {
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
pub(super) fn jordan(x: &[f64], y: &[f64], out: &mut [f64]) {
    out[0] = x.iter().zip(y).map(|(a, b)| a * b).sum();
    for a in 1..x.len() {
        out[a] = x[0] * y[a] + y[0] * x[a];
    }
}

/// `λ \ d`: the y with `λ ∘ y = d` (λ in the cone's interior).
pub(super) fn jordan_div(l: &[f64], d: &[f64], out: &mut [f64]) {
    let p = l.len();
    let det = jnorm_sq(l);
    let l1d1: f64 = (1..p).map(|a| l[a] * d[a]).sum();
    out[0] = (l[0] * d[0] - l1d1) / det;
    for a in 1..p {
        out[a] = (d[a] - out[0] * l[a]) / l[0];
    }
}

/// The largest α ≥ 0 (∞ for none) with `x + α dx` in the second-order cone, x interior.
pub(super) fn step_to_boundary(x: &[f64], dx: &[f64]) -> f64 {
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

pub(super) fn norm_inf(x: &[f64]) -> f64 {
    x.iter().fold(0.0_f64, |a, v| a.max(v.abs()))
}

/// `x / scale`, 0 when both are 0.
pub(super) fn ratio(x: f64, scale: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x / scale.max(f64::MIN_POSITIVE)
    }
}
