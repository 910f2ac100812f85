//! The exact projection on the elliptic cone [`Elliptic`] and its Jacobian: the secular equation
//! in λ (or ν = 1/λ on the dual side), the ellipsoid projection, the section, the circular and
//! ray cases, the bordered linear solve of the implicit-function derivative, and the ring
//! directions of the 4-D linearisation (Trinkle–Tzitzouris–Pang 2001 eq. 5).

use super::*;

/// Root `λ ∈ [0, lam_max]` of `Φ(λ) = α/q(λ) + βλ − γ`, `q(λ) = ‖(g_k/(d_k+λ))_k‖`, `d_k > 0`,
/// `α, β ≥ 0`, assuming `Φ(0) < 0`. `Φ` is increasing and concave, so Newton from 0 increases
/// monotonically to the root (one step when all `d_k` are equal: `1/q` is then linear).
pub(super) fn secular(d: &[f64], g: &[f64], alpha: f64, beta: f64, gamma: f64, lam_max: f64) -> f64 {
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
pub(super) fn ellipsoid_project(e: &[f64], y: &[f64], rho: f64, p: &mut [f64]) -> f64 {
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
pub(super) struct EllDer {
    pub(super) minv: [f64; MD],
    pub(super) ma: [f64; MD],
    pub(super) s: f64,
}

pub(super) fn ell_der(e: &[f64], p: &[f64], nu: f64) -> EllDer {
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
pub(super) fn ellipsoid_section(
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

pub(super) fn identity(jac: &mut [f64], d: usize) {
    jac.iter_mut().for_each(|v| *v = 0.0);
    for i in 0..d {
        jac[i * d + i] = 1.0;
    }
}

/// Projection onto the ray `{(s, 0) : s ≥ 0}` (μ = 0).
pub(super) fn project_ray(x: &[f64], out: &mut [f64], jac: Option<&mut [f64]>) {
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
pub(super) fn project_circular(m: f64, x: &[f64], out: &mut [f64], jac: Option<&mut [f64]>) {
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
pub(super) fn gauss_solve(a: &mut [f64], n: usize, b: &mut [f64], nrhs: usize) -> bool {
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
pub(super) fn project_elliptic(e: &[f64], mu: f64, z: &[f64], out: &mut [f64], jac: Option<&mut [f64]>) {
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
pub(super) fn ring_directions(m: usize) -> Vec<[f64; 3]> {
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
