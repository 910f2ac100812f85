//! Elliptic friction cones: the anisotropic law `Σ_k (r_k/e_k)² ≤ μ² r_N²` (2-D, 3-D, and 4-D
//! with torsion: Trinkle–Tzitzouris–Pang 2001 eq. 1, Howe & Cutkosky's friction ellipsoid) and the mixed law of
//! Trinkle–Tzitzouris–Pang 2001 example (c) with semi-axes, `(c_t/e_t)² + (c_o/e_o)² ≤ μ²c_n²`, `|c_r| ≤ e_r μ c_n`.
//!
//! Projections are exact (to rounding):
//!
//! * [`Elliptic`]: with `E = diag(e)`, the projection of `z ∉ K ∪ K°` onto the boundary solves
//!   the KKT system `x − z + λ∇g(x) = 0`, `g(x) = ½(‖E⁻¹x_T‖² − μ²x_N²) = 0`, i.e.
//!   `x_k = z_k e_k²/(e_k² + λ)`, `x_N = z_N/(1 − λμ²)`, a 1-D secular equation in λ. Written
//!   as `α/q(λ) + βλ = γ` with `q(λ) = ‖(g_k/(d_k + λ))_k‖` it is increasing and *concave*
//!   (`1/q` is concave), so Newton from λ = 0 converges monotonically and quadratically without
//!   overshooting (a bracket guards the rounding). For `z_N ≥ 0` the root lies in `[0, 1/μ²]`;
//!   for `z_N < 0` the same equation is solved in `ν = 1/λ ∈ [0, μ²]` (this is the projection
//!   onto the dual cone, itself elliptic with semi-axes `1/e` and coefficient `1/μ`). The
//!   Jacobian is the implicit-function derivative of the KKT system (a bordered linear system).
//!   Isotropic axes use the closed form of the circular cone.
//! * [`EllipticMixed`]: for a fixed normal value `s` the tangential and rotational parts
//!   separate (an ellipse projection and an interval clamp), and the optimal `s` minimises the
//!   convex `f(s) = ½(s − z_N)² + ½dist²(z_{to}, S_e(μs)) + ½dist²(z_r, [−e_rμs, e_rμs])`;
//!   `f'` is increasing with slope ≥ 1, solved by Newton with a bisection safeguard; the
//!   Jacobian differentiates `f'(s; z) = 0` implicitly.

use crate::cone::{Cone, SocMap, MAX_DIM};
use perp_core::Error;

const MD: usize = MAX_DIM;

/// The elliptic cone `K = {(r_N, r_T) : Σ_k (r_k/e_k)² ≤ μ² r_N²}` of dimension `e.len() + 1`
/// (Trinkle–Tzitzouris–Pang 2001 eq. 1; the section `S_μ(1)` is the ellipse/ellipsoid of semi-axes `μ e_k`).
///
/// One semi-axis gives a 2-D law `|r_T| ≤ μ e r_N`; two give the anisotropic 3-D law
/// `(e_t, e_o)`; three the 4-D law with torsion `(e_t, e_o, e_r)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Elliptic {
    e: [f64; 3],
    k: usize,
}

fn check_axes(name: &str, e: &[f64]) -> Result<(), Error> {
    for (i, &v) in e.iter().enumerate() {
        if !(v.is_finite() && v > 0.0) {
            return Err(Error::setting(
                &format!("{name}[{i}]"),
                v,
                "the semi-axes of an elliptic cone must be finite and > 0",
            ));
        }
    }
    Ok(())
}

impl Elliptic {
    /// The elliptic cone with semi-axes `e` (1 to 3 of them, each finite and > 0); the error
    /// names `e[k]` and its value, or `e` when the length is out of range.
    pub fn new(e: &[f64]) -> Result<Elliptic, Error> {
        if !(1..=3).contains(&e.len()) {
            return Err(Error::setting(
                "e",
                format!("{e:?}"),
                "an elliptic cone takes 1 to 3 semi-axes (contact dimension 2 to 4)",
            ));
        }
        check_axes("e", e)?;
        let mut a = [0.0; 3];
        a[..e.len()].copy_from_slice(e);
        Ok(Elliptic { e: a, k: e.len() })
    }

    /// The semi-axes.
    pub fn axes(&self) -> &[f64] {
        &self.e[..self.k]
    }

    fn isotropic(&self) -> bool {
        self.axes().iter().all(|&v| v == self.e[0])
    }
}

// ---------------------------------------------------------------------------------------------
// Shared numerical kernels.

/// Root `λ ∈ [0, lam_max]` of `Φ(λ) = α/q(λ) + βλ − γ`, `q(λ) = ‖(g_k/(d_k+λ))_k‖`, `d_k > 0`,
/// `α, β ≥ 0`, assuming `Φ(0) < 0`. `Φ` is increasing and concave, so Newton from 0 increases
/// monotonically to the root (one step when all `d_k` are equal: `1/q` is then linear).
fn secular(d: &[f64], g: &[f64], alpha: f64, beta: f64, gamma: f64, lam_max: f64) -> f64 {
    let scale = g.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if scale == 0.0 {
        return 0.0;
    }
    let alpha = alpha / scale;
    let mut lam = 0.0;
    for _ in 0..100 {
        let (mut s2, mut s3) = (0.0, 0.0);
        for (dk, gk) in d.iter().zip(g) {
            let r = 1.0 / (dk + lam);
            let gs = gk / scale;
            let t = gs * gs * r * r;
            s2 += t;
            s3 += t * r;
        }
        let inv_q = 1.0 / s2.sqrt();
        let phi = alpha * inv_q + beta * lam - gamma;
        if phi >= 0.0 {
            break;
        }
        let dphi = alpha * s3 * inv_q * inv_q * inv_q + beta;
        let next = (lam - phi / dphi).min(lam_max);
        // Stalled (or NaN): stop.
        if next.partial_cmp(&lam) != Some(std::cmp::Ordering::Greater) {
            break;
        }
        let done = next - lam <= 4.0 * f64::EPSILON * next;
        lam = next;
        if done {
            break;
        }
    }
    lam
}

/// Projection `p` of `y` onto the ellipsoid `{‖E⁻¹p‖ ≤ ρ}`; returns the multiplier ν of
/// `p − y + νE⁻²p = 0` (0 inside; +∞ when ρ ≤ 0 and y ≠ 0, where p = 0).
fn ellipsoid_project(e: &[f64], y: &[f64], rho: f64, p: &mut [f64]) -> f64 {
    let k = e.len();
    if rho.is_nan() || rho <= 0.0 {
        p.iter_mut().for_each(|v| *v = 0.0);
        return if y.iter().all(|v| *v == 0.0) { 0.0 } else { f64::INFINITY };
    }
    let q0 = (0..k).map(|i| (y[i] / e[i]).powi(2)).sum::<f64>().sqrt();
    if q0 <= rho {
        p.copy_from_slice(y);
        return 0.0;
    }
    let (mut d, mut g) = ([0.0; MD], [0.0; MD]);
    for i in 0..k {
        d[i] = e[i] * e[i];
        g[i] = e[i] * y[i];
    }
    let nu = secular(&d[..k], &g[..k], rho, 0.0, 1.0, f64::INFINITY);
    for i in 0..k {
        p[i] = y[i] * d[i] / (d[i] + nu);
    }
    nu
}

/// Derivative data of an active ellipsoid projection (ν > 0 finite): with `M = I + νE⁻²`,
/// `a = E⁻²p`, `S = aᵀM⁻¹a`: `∂p/∂y = M⁻¹ − M⁻¹aaᵀM⁻¹/S`, `∂p/∂ρ = M⁻¹a ρ/S`,
/// `∂ν/∂y = M⁻¹a/S`, `∂ν/∂ρ = −ρ/S`.
struct EllDer {
    minv: [f64; MD],
    ma: [f64; MD],
    s: f64,
}

fn ell_der(e: &[f64], p: &[f64], nu: f64) -> EllDer {
    let mut r = EllDer { minv: [0.0; MD], ma: [0.0; MD], s: 0.0 };
    for i in 0..e.len() {
        let e2 = e[i] * e[i];
        r.minv[i] = e2 / (e2 + nu);
        let a = p[i] / e2;
        r.ma[i] = a * r.minv[i];
        r.s += a * r.ma[i];
    }
    r
}

/// Section projection onto `{‖E⁻¹p‖ ≤ ρ}`, `ρ = μ·max(ξ, 0)`, with Jacobians (see the trait).
fn ellipsoid_section(
    e: &[f64],
    mu: f64,
    xi: f64,
    t: &[f64],
    out: &mut [f64],
    jac_t: Option<&mut [f64]>,
    jac_xi: Option<&mut [f64]>,
) {
    let k = e.len();
    let rho = mu * xi.max(0.0);
    let nu = ellipsoid_project(e, t, rho, out);
    let active = rho > 0.0 && nu > 0.0 && nu.is_finite();
    let der = if active { Some(ell_der(e, out, nu)) } else { None };
    if let Some(j) = jac_t {
        for a in 0..k {
            for b in 0..k {
                let delta = f64::from(u8::from(a == b));
                j[a * k + b] = match &der {
                    Some(dd) => delta * dd.minv[a] - dd.ma[a] * dd.ma[b] / dd.s,
                    None if rho > 0.0 => delta,
                    None => 0.0,
                };
            }
        }
    }
    if let Some(j) = jac_xi {
        for a in 0..k {
            j[a] = match &der {
                Some(dd) => mu * dd.ma[a] * rho / dd.s,
                None => 0.0,
            };
        }
    }
}

fn identity(jac: &mut [f64], d: usize) {
    jac.iter_mut().for_each(|v| *v = 0.0);
    for i in 0..d {
        jac[i * d + i] = 1.0;
    }
}

/// Projection onto the ray `{(s, 0) : s ≥ 0}` (μ = 0).
fn project_ray(x: &[f64], out: &mut [f64], jac: Option<&mut [f64]>) {
    let d = x.len();
    out.iter_mut().for_each(|v| *v = 0.0);
    out[0] = x[0].max(0.0);
    if let Some(j) = jac {
        j.iter_mut().for_each(|v| *v = 0.0);
        if x[0] > 0.0 {
            j[0] = 1.0;
        }
        let _ = d;
    }
}

/// Projection onto the circular cone `‖x_T‖ ≤ m x_N` of any dimension (closed form), `m > 0`.
fn project_circular(m: f64, x: &[f64], out: &mut [f64], jac: Option<&mut [f64]>) {
    let d = x.len();
    let (xn, xt) = (x[0], &x[1..]);
    let s = xt.iter().map(|v| v * v).sum::<f64>().sqrt();
    if s <= m * xn {
        out.copy_from_slice(x);
        if let Some(j) = jac {
            identity(j, d);
        }
    } else if m * s <= -xn {
        out.iter_mut().for_each(|o| *o = 0.0);
        if let Some(j) = jac {
            j.iter_mut().for_each(|v| *v = 0.0);
        }
    } else {
        let c = 1.0 / (m * m + 1.0);
        let a = (m * s + xn) * c;
        out[0] = a;
        for k in 1..d {
            out[k] = m * a * xt[k - 1] / s;
        }
        if let Some(j) = jac {
            j[0] = c;
            for k in 1..d {
                let wk = xt[k - 1] / s;
                j[k] = m * wk * c;
                j[k * d] = m * wk * c;
                for l in 1..d {
                    let wl = xt[l - 1] / s;
                    let delta = f64::from(u8::from(k == l));
                    j[k * d + l] = m * m * c * wk * wl + m * a / s * (delta - wk * wl);
                }
            }
        }
    }
}

/// Solves `A X = B` in place (A n×n row-major, B n×nrhs row-major) by Gaussian elimination with
/// partial pivoting; false when a pivot vanishes.
fn gauss_solve(a: &mut [f64], n: usize, b: &mut [f64], nrhs: usize) -> bool {
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| a[i * n + col].abs().total_cmp(&a[j * n + col].abs())).unwrap();
        if a[piv * n + col] == 0.0 {
            return false;
        }
        if piv != col {
            for j in 0..n {
                a.swap(piv * n + j, col * n + j);
            }
            for j in 0..nrhs {
                b.swap(piv * nrhs + j, col * nrhs + j);
            }
        }
        let p = a[col * n + col];
        for i in col + 1..n {
            let f = a[i * n + col] / p;
            if f == 0.0 {
                continue;
            }
            for j in col..n {
                a[i * n + j] -= f * a[col * n + j];
            }
            for j in 0..nrhs {
                b[i * nrhs + j] -= f * b[col * nrhs + j];
            }
        }
    }
    for col in (0..n).rev() {
        let p = a[col * n + col];
        for j in 0..nrhs {
            let mut s = b[col * nrhs + j];
            for k in col + 1..n {
                s -= a[col * n + k] * b[k * nrhs + j];
            }
            b[col * nrhs + j] = s / p;
        }
    }
    true
}

/// Exact projection onto the elliptic cone of semi-axes `e` (general path, any e), with the
/// exact Jacobian when asked.
fn project_elliptic(e: &[f64], mu: f64, z: &[f64], out: &mut [f64], jac: Option<&mut [f64]>) {
    let k = e.len();
    let d = k + 1;
    if mu.is_nan() || mu <= 0.0 {
        return project_ray(z, out, jac);
    }
    let zn = z[0];
    let zt = &z[1..];
    let q0 = (0..k).map(|i| (zt[i] / e[i]).powi(2)).sum::<f64>().sqrt();
    if q0 <= mu * zn {
        out.copy_from_slice(z);
        if let Some(j) = jac {
            identity(j, d);
        }
        return;
    }
    let p0 = (0..k).map(|i| (zt[i] * e[i]).powi(2)).sum::<f64>().sqrt();
    if mu * p0 <= -zn {
        out.iter_mut().for_each(|v| *v = 0.0);
        if let Some(j) = jac {
            j.iter_mut().for_each(|v| *v = 0.0);
        }
        return;
    }
    let (mut dd, mut gg) = ([0.0; MD], [0.0; MD]);
    // (c0, c1): the KKT row x − z + λ∇g = 0 scaled to c0(x − z) + c1 λ'∇g with c0, c1 ≤ 1.
    let (c0, c1);
    if zn >= 0.0 {
        for i in 0..k {
            dd[i] = e[i] * e[i];
            gg[i] = e[i] * zt[i];
        }
        let lam = secular(&dd[..k], &gg[..k], mu * zn, mu * mu, 1.0, 1.0 / (mu * mu));
        for i in 0..k {
            out[i + 1] = zt[i] * dd[i] / (dd[i] + lam);
        }
        (c0, c1) = if lam <= 1.0 { (1.0, lam) } else { (1.0 / lam, 1.0) };
    } else {
        for i in 0..k {
            dd[i] = 1.0 / (e[i] * e[i]);
            gg[i] = zt[i] / e[i];
        }
        let nu = secular(&dd[..k], &gg[..k], -mu * zn, 1.0, mu * mu, mu * mu);
        for i in 0..k {
            out[i + 1] = zt[i] * nu / (dd[i] + nu);
        }
        (c0, c1) = if nu >= 1.0 { (1.0, 1.0 / nu) } else { (nu, 1.0) };
    }
    out[0] = (0..k).map(|i| (out[i + 1] / e[i]).powi(2)).sum::<f64>().sqrt() / mu;
    let Some(jac) = jac else { return };
    // Bordered system [[c0 I + c1 H, n], [nᵀ, 0]] [J; ·] = [c0 I; 0], H = diag(−μ², 1/e²),
    // n = ∇g(x)/‖∇g(x)‖.
    let mut n = [0.0; MD];
    n[0] = -mu * mu * out[0];
    for i in 0..k {
        n[i + 1] = out[i + 1] / (e[i] * e[i]);
    }
    let nn = n[..d].iter().map(|v| v * v).sum::<f64>().sqrt();
    if nn == 0.0 {
        jac.iter_mut().for_each(|v| *v = 0.0);
        return;
    }
    let m = d + 1;
    let mut a = [0.0; (MD + 1) * (MD + 1)];
    let mut b = [0.0; (MD + 1) * MD];
    for i in 0..d {
        let h = if i == 0 { -mu * mu } else { 1.0 / (e[i - 1] * e[i - 1]) };
        a[i * m + i] = c0 + c1 * h;
        a[i * m + d] = n[i] / nn;
        a[d * m + i] = n[i] / nn;
        b[i * d + i] = c0;
    }
    if gauss_solve(&mut a[..m * m], m, &mut b[..m * d], d) {
        jac.copy_from_slice(&b[..d * d]);
    } else {
        jac.iter_mut().for_each(|v| *v = 0.0);
    }
}

/// Unit directions of the 2-sphere for the 4-D linearisation, in the spirit of Trinkle–Tzitzouris–Pang 2001 eq. 5:
/// the two poles (pure torsion), then latitude rings (the equator first, whose directions are
/// pure sliding), ring sizes proportional to the ring's circumference. For even `m` the set is
/// balanced (`d` and `−d` both present; Stewart 2000 §2.2.1 assumes this).
fn ring_directions(m: usize) -> Vec<[f64; 3]> {
    let mut out = Vec::with_capacity(m);
    if m == 0 {
        return out;
    }
    out.push([0.0, 0.0, 1.0]);
    if m == 1 {
        return out;
    }
    out.push([0.0, 0.0, -1.0]);
    let p = m - 2;
    if p == 0 {
        return out;
    }
    use std::f64::consts::PI;
    let n_est = (PI * p as f64 / 4.0).sqrt();
    let mut half = (((n_est - 1.0) / 2.0).round().max(0.0)) as usize;
    // Ring i = 1..=half at latitude −π/2 + πi/(2·half + 2), mirrored to the north; equator.
    let mut counts = vec![0usize; half + 1];
    let equator = loop {
        let n = 2 * half + 1;
        let lat = |i: usize| -PI / 2.0 + PI * i as f64 / (n + 1) as f64;
        let total: f64 = (1..=n).map(|i| lat(i).cos()).sum();
        let mut used = 0;
        for i in 1..=half {
            let c = ((p as f64 * lat(i).cos() / total).round() as usize).max(1);
            counts[i] = c;
            used += 2 * c;
        }
        if used <= p || half == 0 {
            break p - used.min(p);
        }
        half -= 1;
    };
    for j in 0..equator {
        let a = 2.0 * PI * j as f64 / equator as f64;
        out.push([a.cos(), a.sin(), 0.0]);
    }
    let n = 2 * half + 1;
    for i in 1..=half {
        let phi = -PI / 2.0 + PI * i as f64 / (n + 1) as f64;
        let c = counts[i];
        let offset = if i % 2 == 1 { PI / c as f64 } else { 0.0 };
        for j in 0..c {
            let a = offset + 2.0 * PI * j as f64 / c as f64;
            let v = [phi.cos() * a.cos(), phi.cos() * a.sin(), phi.sin()];
            out.push(v);
            out.push([-v[0], -v[1], -v[2]]);
        }
    }
    out
}

impl Cone for Elliptic {
    fn name(&self) -> String {
        let e: Vec<String> = self.axes().iter().map(|v| v.to_string()).collect();
        format!("elliptic({})", e.join(","))
    }

    fn dim(&self) -> usize {
        self.k + 1
    }

    fn check(&self, mu: f64) -> Result<(), Error> {
        if !(mu.is_finite() && mu >= 0.0) {
            return Err(Error::setting("mu", mu, "the friction coefficient must be finite and ≥ 0"));
        }
        check_axes("e", self.axes())
    }

    fn project(&self, mu: f64, x: &[f64], out: &mut [f64]) {
        if self.isotropic() && mu > 0.0 {
            project_circular(mu * self.e[0], x, out, None)
        } else {
            project_elliptic(self.axes(), mu, x, out, None)
        }
    }

    fn project_jacobian(&self, mu: f64, x: &[f64], out: &mut [f64], jac: &mut [f64]) {
        if self.isotropic() && mu > 0.0 {
            project_circular(mu * self.e[0], x, out, Some(jac))
        } else {
            project_elliptic(self.axes(), mu, x, out, Some(jac))
        }
    }

    fn project_section(
        &self,
        mu: f64,
        xi: f64,
        t: &[f64],
        out: &mut [f64],
        jac_t: Option<&mut [f64]>,
        jac_xi: Option<&mut [f64]>,
    ) {
        ellipsoid_section(self.axes(), mu, xi, t, out, jac_t, jac_xi)
    }

    /// `h(v) = μ‖Ev‖`, maximiser `t = −μE²v/‖Ev‖` (Trinkle–Tzitzouris–Pang 2001 eq. 2 solved for the force).
    fn support(&self, mu: f64, v: &[f64], t_out: &mut [f64]) -> f64 {
        let e = self.axes();
        let s = e.iter().zip(v).map(|(a, b)| (a * b).powi(2)).sum::<f64>().sqrt();
        for i in 0..self.k {
            t_out[i] = if s > 0.0 { -mu * e[i] * e[i] * v[i] / s } else { 0.0 };
        }
        mu * s
    }

    /// `a = (μ, 1/e_1, …)`, `b = (1, μe_1, …)`: `r ∈ K ⟺ a∘r ∈ L`, `u ∈ K* ⟺ b∘u ∈ L`,
    /// `(a∘r)·(b∘u) = μ r·u`. None for μ = 0.
    fn soc_map(&self, mu: f64) -> Option<SocMap> {
        if !(mu > 0.0 && mu.is_finite()) {
            return None;
        }
        let mut a = vec![mu];
        let mut b = vec![1.0];
        for &e in self.axes() {
            a.push(1.0 / e);
            b.push(mu * e);
        }
        Some(SocMap { a, b })
    }

    /// Points of the boundary of `S_1(1)`: `±e` in 2-D (m ignored); `(e_t cos θ_j, e_o sin θ_j)`,
    /// `θ_j = 2πj/m` in 3-D; in 4-D the poles `(0, 0, ±e_r)` and latitude rings
    /// `(e_t cos φ cos θ, e_o cos φ sin θ, e_r sin φ)` (Trinkle–Tzitzouris–Pang 2001 eq. 5).
    fn linearize(&self, m: usize) -> Vec<f64> {
        let e = self.axes();
        match self.k {
            1 => vec![e[0], -e[0]],
            2 => (0..m)
                .flat_map(|j| {
                    let a = 2.0 * std::f64::consts::PI * j as f64 / m as f64;
                    [e[0] * a.cos(), e[1] * a.sin()]
                })
                .collect(),
            _ => ring_directions(m).iter().flat_map(|v| [e[0] * v[0], e[1] * v[1], e[2] * v[2]]).collect(),
        }
    }
}

// ---------------------------------------------------------------------------------------------

/// The 4-D mixed law of Trinkle–Tzitzouris–Pang 2001 example (c) with semi-axes:
/// `K = {(c_n, c_t, c_o, c_r) : (c_t/e_t)² + (c_o/e_o)² ≤ μ² c_n², |c_r| ≤ e_r μ c_n}`,
/// an elliptic cone in `(c_n, c_t, c_o)` intersected with a wedge in `(c_n, c_r)`; the section
/// is an elliptic cylinder. No map to the Lorentz cone (no Fischer–Burmeister).
#[derive(Clone, Debug, PartialEq)]
pub struct EllipticMixed {
    e: [f64; 3],
}

impl EllipticMixed {
    /// The mixed cone with tangential semi-axes `e_t`, `e_o` and torsional bound `e_r` (each
    /// finite and > 0; the error names `e_t`, `e_o` or `e_r`).
    pub fn new(e_t: f64, e_o: f64, e_r: f64) -> Result<EllipticMixed, Error> {
        let m = EllipticMixed { e: [e_t, e_o, e_r] };
        m.check_axes()?;
        Ok(m)
    }

    fn check_axes(&self) -> Result<(), Error> {
        for (name, v) in ["e_t", "e_o", "e_r"].iter().zip(self.e) {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::setting(
                    name,
                    v,
                    "the semi-axes of the mixed cone must be finite and > 0",
                ));
            }
        }
        Ok(())
    }

    /// `f'(s)` and `f''(s)` of the 1-D problem (module docs), `s > 0`, μ > 0.
    fn dual_derivative(&self, mu: f64, zn: f64, y: &[f64], zr: f64, s: f64) -> (f64, f64) {
        let e2 = &self.e[..2];
        let rho = mu * s;
        let mut p = [0.0; 2];
        let nu = ellipsoid_project(e2, y, rho, &mut p);
        let (mut f, mut df) = (s - zn, 1.0);
        if nu > 0.0 {
            let dd = ell_der(e2, &p, nu);
            f -= mu * rho * nu;
            df -= mu * mu * (nu - rho * rho / dd.s);
        }
        let er = self.e[2];
        let over = zr.abs() - er * mu * s;
        if over > 0.0 {
            f -= er * mu * over;
            df += mu * mu * er * er;
        }
        (f, df)
    }

    fn project_impl(&self, mu: f64, z: &[f64], out: &mut [f64], jac: Option<&mut [f64]>) {
        if mu.is_nan() || mu <= 0.0 {
            return project_ray(z, out, jac);
        }
        let [et, eo, er] = self.e;
        let (zn, y, zr) = (z[0], [z[1], z[2]], z[3]);
        let q0 = ((y[0] / et).powi(2) + (y[1] / eo).powi(2)).sqrt();
        if q0 <= mu * zn && zr.abs() <= er * mu * zn {
            out.copy_from_slice(z);
            if let Some(j) = jac {
                identity(j, 4);
            }
            return;
        }
        let p0 = ((y[0] * et).powi(2) + (y[1] * eo).powi(2)).sqrt();
        if zn + mu * p0 + er * mu * zr.abs() <= 0.0 {
            out.iter_mut().for_each(|v| *v = 0.0);
            if let Some(j) = jac {
                j.iter_mut().for_each(|v| *v = 0.0);
            }
            return;
        }
        // f'(0⁺) < 0 ≤ f'(‖z‖): safeguarded Newton on f'(s) = 0.
        let (mut lo, mut hi) = (0.0, z.iter().map(|v| v * v).sum::<f64>().sqrt());
        let mut s = if zn > 0.0 && zn < hi { zn } else { 0.5 * hi };
        for _ in 0..200 {
            let (f, df) = self.dual_derivative(mu, zn, &y, zr, s);
            if f == 0.0 {
                break;
            }
            if f < 0.0 {
                lo = s;
            } else {
                hi = s;
            }
            let step = -f / df;
            if step.abs() <= 4.0 * f64::EPSILON * s {
                // Converged (Newton is quadratic here): take the last step if it stays bracketed.
                if s + step >= lo && s + step <= hi {
                    s += step;
                }
                break;
            }
            let mut next = s + step;
            if !(next > lo && next < hi) {
                next = 0.5 * (lo + hi);
            }
            s = next;
            if hi - lo <= 4.0 * f64::EPSILON * hi {
                break;
            }
        }
        let rho = mu * s;
        let mut p = [0.0; 2];
        let nu = ellipsoid_project(&self.e[..2], &y, rho, &mut p);
        let bound = er * rho;
        let clamp = zr.abs() > bound;
        out[0] = s;
        out[1] = p[0];
        out[2] = p[1];
        out[3] = if clamp { bound * zr.signum() } else { zr };
        let Some(j) = jac else { return };
        // Implicit differentiation of Φ(s, z) = f'(s) = 0.
        let ell = if nu > 0.0 { Some(ell_der(&self.e[..2], &p, nu)) } else { None };
        let mut phi_s = 1.0;
        let mut ds = [0.0; 4]; // −∂Φ/∂z
        ds[0] = 1.0;
        if let Some(dd) = &ell {
            phi_s -= mu * mu * (nu - rho * rho / dd.s);
            for a in 0..2 {
                ds[a + 1] = mu * rho * dd.ma[a] / dd.s;
            }
        }
        if clamp {
            phi_s += mu * mu * er * er;
            ds[3] = er * mu * zr.signum();
        }
        ds.iter_mut().for_each(|v| *v /= phi_s);
        // Row 0: ds/dz.
        j[..4].copy_from_slice(&ds);
        // Rows 1, 2: dp = J_y dy + (∂p/∂ρ) μ ds.
        for a in 0..2 {
            let dp_drho = ell.as_ref().map_or(0.0, |dd| dd.ma[a] * rho / dd.s);
            for c in 0..4 {
                let jy = if (1..3).contains(&c) {
                    let b = c - 1;
                    match &ell {
                        Some(dd) => f64::from(u8::from(a == b)) * dd.minv[a] - dd.ma[a] * dd.ma[b] / dd.s,
                        None => f64::from(u8::from(a == b)),
                    }
                } else {
                    0.0
                };
                j[(a + 1) * 4 + c] = jy + dp_drho * mu * ds[c];
            }
        }
        // Row 3.
        for c in 0..4 {
            j[12 + c] = if clamp { zr.signum() * er * mu * ds[c] } else { f64::from(u8::from(c == 3)) };
        }
    }
}

impl Cone for EllipticMixed {
    fn name(&self) -> String {
        format!("elliptic-mixed({},{},{})", self.e[0], self.e[1], self.e[2])
    }

    fn dim(&self) -> usize {
        4
    }

    fn check(&self, mu: f64) -> Result<(), Error> {
        if !(mu.is_finite() && mu >= 0.0) {
            return Err(Error::setting("mu", mu, "the friction coefficient must be finite and ≥ 0"));
        }
        self.check_axes()
    }

    fn project(&self, mu: f64, x: &[f64], out: &mut [f64]) {
        self.project_impl(mu, x, out, None)
    }

    fn project_jacobian(&self, mu: f64, x: &[f64], out: &mut [f64], jac: &mut [f64]) {
        self.project_impl(mu, x, out, Some(jac))
    }

    fn project_section(
        &self,
        mu: f64,
        xi: f64,
        t: &[f64],
        out: &mut [f64],
        jac_t: Option<&mut [f64]>,
        jac_xi: Option<&mut [f64]>,
    ) {
        let (mut j2, mut x2) = ([0.0; 4], [0.0; 2]);
        let want_t = jac_t.is_some();
        let want_x = jac_xi.is_some();
        ellipsoid_section(
            &self.e[..2],
            mu,
            xi,
            &t[..2],
            &mut out[..2],
            want_t.then_some(&mut j2[..]),
            want_x.then_some(&mut x2[..]),
        );
        let rho = mu * xi.max(0.0);
        let bound = self.e[2] * rho;
        let clamp = t[2].abs() > bound;
        out[2] = if clamp { bound * t[2].signum() } else { t[2] };
        if let Some(j) = jac_t {
            j.iter_mut().for_each(|v| *v = 0.0);
            j[0] = j2[0];
            j[1] = j2[1];
            j[3] = j2[2];
            j[4] = j2[3];
            j[8] = if clamp { 0.0 } else { 1.0 };
        }
        if let Some(j) = jac_xi {
            j[0] = x2[0];
            j[1] = x2[1];
            j[2] = if clamp && xi > 0.0 { self.e[2] * mu * t[2].signum() } else { 0.0 };
        }
    }

    /// `h(v) = μ‖E₂v_{to}‖ + e_r μ|v_r|`.
    fn support(&self, mu: f64, v: &[f64], t_out: &mut [f64]) -> f64 {
        let [et, eo, er] = self.e;
        let s = ((et * v[0]).powi(2) + (eo * v[1]).powi(2)).sqrt();
        if s > 0.0 {
            t_out[0] = -mu * et * et * v[0] / s;
            t_out[1] = -mu * eo * eo * v[1] / s;
        } else {
            t_out[0] = 0.0;
            t_out[1] = 0.0;
        }
        t_out[2] = if v[2] != 0.0 { -er * mu * v[2].signum() } else { 0.0 };
        mu * s + er * mu * v[2].abs()
    }

    /// Points on the two rims `(e_t cos θ, e_o sin θ, ±e_r)` of the elliptic cylinder `S_1(1)`,
    /// the lower rim turned by π (balanced for even m).
    fn linearize(&self, m: usize) -> Vec<f64> {
        let [et, eo, er] = self.e;
        let top = m.div_ceil(2);
        let bottom = m / 2;
        let mut out = Vec::with_capacity(3 * m);
        for (count, sign, offset) in [(top, 1.0, 0.0), (bottom, -1.0, std::f64::consts::PI)] {
            for j in 0..count {
                let a = offset + 2.0 * std::f64::consts::PI * j as f64 / count as f64;
                out.extend_from_slice(&[et * a.cos(), eo * a.sin(), sign * er]);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Coulomb;

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
    }

    #[test]
    fn isotropic_general_path_equals_coulomb() {
        let c = Coulomb::new(3).unwrap();
        for x in [[1.0, 3.0, -4.0], [0.2, 0.1, 0.05], [-0.5, -1.0, 2.0], [-3.0, 0.1, 0.1], [0.0, 1.0, 1.0]] {
            for mu in [0.3, 1.0, 1.7] {
                let (mut a, mut b) = ([0.0; 3], [0.0; 3]);
                let (mut ja, mut jb) = ([0.0; 9], [0.0; 9]);
                project_elliptic(&[1.0, 1.0], mu, &x, &mut a, Some(&mut ja));
                c.project_jacobian(mu, &x, &mut b, &mut jb);
                assert!(close(&a, &b, 1e-14), "{x:?} {mu}: {a:?} vs {b:?}");
                assert!(close(&ja, &jb, 1e-12), "{x:?} {mu}: {ja:?} vs {jb:?}");
            }
        }
        // And the public type with e = (1, 1) is Coulomb's cone; e = (2) is 2-D Coulomb with 2μ.
        let el = Elliptic::new(&[1.0, 1.0]).unwrap();
        let (mut a, mut b) = ([0.0; 3], [0.0; 3]);
        el.project(0.4, &[0.5, 2.0, -1.0], &mut a);
        c.project(0.4, &[0.5, 2.0, -1.0], &mut b);
        assert!(close(&a, &b, 1e-15));
        let (mut a2, mut b2) = ([0.0; 2], [0.0; 2]);
        project_elliptic(&[2.0], 0.3, &[0.5, 2.0], &mut a2, None);
        Coulomb::new(2).unwrap().project(0.6, &[0.5, 2.0], &mut b2);
        assert!(close(&a2, &b2, 1e-14), "{a2:?} {b2:?}");
    }

    /// Brute force: min over unit ω of the distance to the ray (1, μEω) (closed form along the
    /// ray), by a grid over the sphere and a shrinking pattern search.
    fn brute_4d(e: &[f64; 3], mu: f64, z: &[f64; 4]) -> f64 {
        let dist_dir = |th: f64, ph: f64| -> f64 {
            let w = [ph.cos() * th.cos(), ph.cos() * th.sin(), ph.sin()];
            let g = [1.0, mu * e[0] * w[0], mu * e[1] * w[1], mu * e[2] * w[2]];
            let gg: f64 = g.iter().map(|v| v * v).sum();
            let s = (z.iter().zip(&g).map(|(a, b)| a * b).sum::<f64>() / gg).max(0.0);
            z.iter().zip(&g).map(|(a, b)| (a - s * b).powi(2)).sum::<f64>().sqrt()
        };
        let (mut best, mut bt, mut bp) = (f64::INFINITY, 0.0, 0.0);
        for i in 0..200 {
            for j in 0..=100 {
                let th = 2.0 * std::f64::consts::PI * i as f64 / 200.0;
                let ph = -std::f64::consts::FRAC_PI_2 + std::f64::consts::PI * j as f64 / 100.0;
                let dv = dist_dir(th, ph);
                if dv < best {
                    (best, bt, bp) = (dv, th, ph);
                }
            }
        }
        let mut h = 0.05;
        while h > 1e-12 {
            let mut improved = false;
            for (dt, dp) in [(h, 0.0), (-h, 0.0), (0.0, h), (0.0, -h)] {
                let dv = dist_dir(bt + dt, bp + dp);
                if dv < best {
                    (best, bt, bp) = (dv, bt + dt, bp + dp);
                    improved = true;
                }
            }
            if !improved {
                h *= 0.5;
            }
        }
        best.min(z.iter().map(|v| v * v).sum::<f64>().sqrt())
    }

    #[test]
    fn torsion_projection_matches_brute_force() {
        let e = [1.0, 0.5, 0.4];
        let el = Elliptic::new(&e).unwrap();
        for (mu, z) in [
            (0.2, [1.0, 0.5, -0.3, 0.8]),
            (0.7, [-0.2, 1.5, 0.3, -0.4]),
            (1.5, [0.1, -0.2, 2.0, 0.9]),
            (0.9, [0.0, 1.0, 1.0, 1.0]),
        ] {
            let mut p = [0.0; 4];
            el.project(mu, &z, &mut p);
            assert!(el.contains(mu, &p, 1e-12));
            let ours = z.iter().zip(&p).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
            let brute = brute_4d(&e, mu, &z);
            assert!((ours - brute).abs() <= 1e-9, "{z:?}: {ours} vs {brute}");
            // Boundary: the constraint is tight.
            let g = (p[1] / e[0]).powi(2) + (p[2] / e[1]).powi(2) + (p[3] / e[2]).powi(2);
            assert!((g.sqrt() - mu * p[0]).abs() <= 1e-13 * (1.0 + p[0]), "{p:?}");
        }
    }

    /// KKT residual of the general path on random data: `x` on the boundary, `z − x` parallel
    /// to the outward normal `(−μ²x_N, x_T/e²)` with a nonnegative factor, to ~1e-14 relative.
    #[test]
    fn projection_satisfies_kkt_to_rounding() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut worst = 0.0f64;
        for it in 0..20_000 {
            let k = 1 + it % 3;
            let e: Vec<f64> = (0..k).map(|_| rng.random_range(0.2..3.0)).collect();
            let mu = rng.random_range(0.01..2.0);
            let scale = 10f64.powf(rng.random_range(-4.0..4.0));
            let z: Vec<f64> = (0..=k).map(|_| scale * rng.random_range(-1.0..1.0)).collect();
            let mut x = vec![0.0; k + 1];
            project_elliptic(&e, mu, &z, &mut x, None);
            let nz = z.iter().map(|v| v * v).sum::<f64>().sqrt();
            let nx = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            if nx <= 1e-8 * nz || x.iter().zip(&z).all(|(a, b)| a == b) {
                continue; // polar or interior
            }
            let mut n: Vec<f64> = vec![-mu * mu * x[0]];
            n.extend((0..k).map(|i| x[i + 1] / (e[i] * e[i])));
            let r: Vec<f64> = z.iter().zip(&x).map(|(a, b)| a - b).collect();
            let lam =
                r.iter().zip(&n).map(|(a, b)| a * b).sum::<f64>() / n.iter().map(|v| v * v).sum::<f64>();
            assert!(lam >= 0.0);
            let res = r.iter().zip(&n).map(|(a, b)| (a - lam * b).powi(2)).sum::<f64>().sqrt();
            let g = (0..k).map(|i| (x[i + 1] / e[i]).powi(2)).sum::<f64>().sqrt() - mu * x[0];
            worst = worst.max(res / nz).max(g.abs() / nz);
        }
        assert!(worst <= 2e-14, "worst relative KKT residual {worst:e}");
    }

    #[test]
    fn secular_newton_is_exact_for_one_axis() {
        // α/q + βλ = γ with one term: (d + λ)α/|g| + βλ = γ.
        let lam = secular(&[2.0], &[3.0], 1.5, 0.5, 4.0, 100.0);
        assert!(((2.0 + lam) * 1.5 / 3.0 + 0.5 * lam - 4.0).abs() < 1e-14);
    }

    #[test]
    fn mixed_cases_match_their_closed_forms() {
        let m = EllipticMixed::new(1.0, 1.0, 0.5).unwrap();
        let mu = 0.8;
        // Only the ellipse active (torsion small): equals Coulomb 3-D on (n, t, o), r kept.
        let z = [1.0, 2.0, -1.0, 0.01];
        let (mut p, mut c) = ([0.0; 4], [0.0; 3]);
        m.project(mu, &z, &mut p);
        Coulomb::new(3).unwrap().project(mu, &z[..3], &mut c);
        assert!(close(&p[..3], &c, 1e-13) && p[3] == 0.01, "{p:?} {c:?}");
        // Only the torsion wedge active: 2-D Coulomb with μ e_r on (n, r).
        let z = [1.0, 0.1, 0.0, 3.0];
        m.project(mu, &z, &mut p);
        let mut c2 = [0.0; 2];
        Coulomb::new(2).unwrap().project(mu * 0.5, &[1.0, 3.0], &mut c2);
        assert!(close(&[p[0], p[3]], &c2, 1e-13) && close(&p[1..3], &[0.1, 0.0], 1e-15), "{p:?}");
        // Both active: check optimality against brute force over s.
        let z = [0.2, 2.0, 1.0, 1.5];
        m.project(mu, &z, &mut p);
        let obj = |s: f64| {
            let mut q = [0.0; 2];
            ellipsoid_project(&[1.0, 1.0], &z[1..3], mu * s, &mut q);
            let r = z[3].clamp(-0.5 * mu * s, 0.5 * mu * s);
            (s - z[0]).powi(2) + (q[0] - z[1]).powi(2) + (q[1] - z[2]).powi(2) + (r - z[3]).powi(2)
        };
        let best = (0..200_000).map(|i| obj(i as f64 * 1e-5)).fold(f64::INFINITY, f64::min);
        let ours: f64 = z.iter().zip(&p).map(|(a, b)| (a - b).powi(2)).sum();
        assert!(ours <= best + 1e-12 && ours >= best - 1e-8, "{ours} vs {best}");
        assert!(m.contains(mu, &p, 1e-13));
    }

    #[test]
    fn ring_directions_are_balanced_and_unit() {
        for m in [2usize, 6, 10, 20, 22, 50, 100] {
            let dirs = ring_directions(m);
            assert_eq!(dirs.len(), m);
            for v in &dirs {
                assert!((v[0] * v[0] + v[1] * v[1] + v[2] * v[2] - 1.0).abs() < 1e-14);
                let found = dirs.iter().any(|w| (0..3).all(|i| (w[i] + v[i]).abs() < 1e-12));
                assert!(found, "m = {m}: {v:?} has no opposite");
            }
        }
        assert_eq!(ring_directions(7).len(), 7);
        assert_eq!(ring_directions(1).len(), 1);
    }

    #[test]
    fn bad_axes_are_rejected() {
        let e = Elliptic::new(&[1.0, -2.0]).unwrap_err().to_string();
        assert!(e.contains("e[1]") && e.contains("-2"), "{e}");
        let e = Elliptic::new(&[1.0, f64::NAN, 1.0]).unwrap_err().to_string();
        assert!(e.contains("e[1]") && e.contains("NaN"), "{e}");
        assert!(Elliptic::new(&[]).unwrap_err().to_string().contains('e'));
        assert!(Elliptic::new(&[1.0; 4]).is_err());
        assert!(EllipticMixed::new(1.0, 1.0, 0.0).unwrap_err().to_string().contains("e_r"));
        assert_eq!(Elliptic::new(&[1.0, 1.0, 0.4]).unwrap().name(), "elliptic(1,1,0.4)");
    }
}
