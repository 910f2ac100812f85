//! The rolling friction cone (Siconos' `RollingFrictionContactProblem`): a contact carries a
//! normal force r_N, a tangential friction force r_T and a rolling moment r_R, with
//!
//! ```text
//!     K = { (r_N, r_T, r_R) : ‖r_T‖ ≤ μ r_N,  ‖r_R‖ ≤ μ_r r_N },
//! ```
//!
//! in 3-D (d = 5: r_T, r_R ∈ R²) or 2-D (d = 3: r_T, r_R ∈ R). As a friction law of
//! [`crate::cone`] its section is the product of two balls, `S_μ(1) = B(μ) × B(μ_r)`, its
//! maximal dissipation `h(u_T, u_R) = μ‖u_T‖ + μ_r‖u_R‖`, so that De Saxcé's modified velocity
//! is Siconos' `ũ_N = u_N + μ‖u_T‖ + μ_r‖u_R‖` (`rolling_friction_3d_compute_error.c`) and the
//! natural-map error with ρ = 1 is Siconos' error measure for the problem.
//!
//! μ is the contact's friction coefficient (the problem's `mu`), μ_r the rolling one, stored
//! in the cone (the problem's laws are `ConeSpec::Rolling { mu_r }`, one per contact). The
//! section does not scale with μ alone (`S_μ(1) ≠ μ S_1(1)` when μ_r > 0), so polyhedral
//! linearisations do not apply ([`Cone::scales_with_mu`] is false; lemke-pyramid refuses it).
//!
//! **Projection.** For a fixed normal part n ≥ 0 the nearest point of K to
//! `x = (x_N, x_T, x_R)` projects x_T onto the ball of radius μn and x_R onto that of radius
//! μ_r n, so n* minimises the convex piecewise-quadratic
//! `g(n) = (n − x_N)² + max(0, a − μn)² + max(0, b − μ_r n)²`, `a = ‖x_T‖`, `b = ‖x_R‖`, over
//! n ≥ 0. Its derivative is piecewise linear and increasing; on the piece where the set A of
//! the balls that x leaves is fixed, `n = (x_N + Σ_{A} μ_i a_i) / (1 + Σ_{A} μ_i²)`. The four
//! choices of A (none: x ∈ K; both; T only; R only) are tried in Siconos' order
//! (`projectionOnRollingCone`, numerics/src/linalg/projectionOnRollingCone.c), and the first
//! consistent one is exact; where rounding leaves none consistent (Siconos returns the
//! status 20 and leaves x unchanged there), the candidate with the least g is taken — g is
//! convex and the minimiser is one of the candidates, so that is exact too. x is in the
//! polar cone, and projects to 0, when `μa + μ_r b ≤ −x_N` (g'(0) ≥ 0).
//!
//! **Jacobian.** On the piece with active set A, `∂n/∂x_N = 1/D`, `∂n/∂x_i = μ_i x̂_iᵀ / D`
//! (i ∈ A, D = 1 + Σ_A μ_i²), and for i ∈ A the projected part `μ_i n x̂_i` has derivative
//! `μ_i x̂_i ∂n/∂x + (μ_i n / ‖x_i‖)(I − x̂_i x̂_iᵀ) ∂x_i/∂x` — Siconos'
//! `subdifferentialProjectionOnRollingCone` in the same file.

use crate::cone::{alart_curnier_jacobian, AcInput, CfunOut, Cone, ConeSpec, MAX_DIM};
use crate::FrictionContactProblem;
use perp_core::{Error, Matrix};

/// The rolling friction cone of dimension 3 (2-D contacts: normal, tangential, rolling) or 5
/// (3-D contacts: normal, 2 tangential, 2 rolling), with rolling coefficient `mu_r`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rolling {
    dim: usize,
    mu_r: f64,
}

impl Rolling {
    /// The rolling cone for contacts of dimension 3 or 5 with rolling coefficient `mu_r ≥ 0`.
    ///
    /// ```
    /// use perp_cones::{Cone, Rolling};
    /// let c = Rolling::new(5, 0.1).unwrap();
    /// let mut p = [0.0; 5];
    /// c.project(0.5, &[1.0, 2.0, 0.0, 0.0, 0.05], &mut p); // slides, rolling inside
    /// assert!((p[1] - 0.5 * p[0]).abs() < 1e-15 && p[4] == 0.05);
    /// assert!(Rolling::new(4, 0.1).is_err() && Rolling::new(5, -1.0).is_err());
    /// ```
    pub fn new(dim: usize, mu_r: f64) -> Result<Rolling, Error> {
        if dim != 3 && dim != 5 {
            return Err(Error::setting(
                "dim",
                dim,
                "the rolling friction cone has dimension 3 (2-D: normal, tangential, rolling) or 5 (3-D)",
            ));
        }
        check_mu_r(mu_r)?;
        Ok(Rolling { dim, mu_r })
    }

    /// The rolling coefficient μ_r.
    pub fn mu_r(&self) -> f64 {
        self.mu_r
    }

    /// Components per part (1 in 2-D, 2 in 3-D).
    fn k(&self) -> usize {
        (self.dim - 1) / 2
    }

    /// The active set and normal part of `P_K(x)`: `Some((n, t_active, r_active))`, `None`
    /// when x is in the polar cone (projection 0).
    fn piece(&self, mu: f64, x: &[f64]) -> Option<(f64, bool, bool)> {
        let k = self.k();
        let mur = self.mu_r;
        let a = norm(&x[1..1 + k]);
        let b = norm(&x[1 + k..1 + 2 * k]);
        let xn = x[0];
        if mu * a + mur * b <= -xn {
            return None;
        }
        if a <= mu * xn && b <= mur * xn {
            return Some((xn, false, false));
        }
        let cand = |ta: bool, ra: bool| {
            let (mut num, mut den) = (xn, 1.0);
            if ta {
                num += mu * a;
                den += mu * mu;
            }
            if ra {
                num += mur * b;
                den += mur * mur;
            }
            (num / den).max(0.0)
        };
        // Siconos' order: both balls left, friction only, rolling only.
        for (ta, ra) in [(true, true), (true, false), (false, true)] {
            let n = cand(ta, ra);
            let t_ok = if ta { a > mu * n } else { a <= mu * n };
            let r_ok = if ra { b > mur * n } else { b <= mur * n };
            if t_ok && r_ok {
                return Some((n, ta, ra));
            }
        }
        // Rounding left no piece consistent: the least g among the candidates (exact, g convex).
        let g = |n: f64| (n - xn).powi(2) + (a - mu * n).max(0.0).powi(2) + (b - mur * n).max(0.0).powi(2);
        let mut best = (f64::INFINITY, 0.0, false, false);
        for (ta, ra) in [(true, true), (true, false), (false, true), (false, false)] {
            let n = cand(ta, ra);
            let v = g(n);
            if v < best.0 {
                // The active set that n actually has.
                best = (v, n, a > mu * n, b > mur * n);
            }
        }
        Some((best.1, best.2, best.3))
    }
}

impl Rolling {
    /// Whether `P_K` has a kink within `delta` of x that the generic test of
    /// [`crate::sensitivity`] (distance to K and to its polar) does not see: x outside K and
    /// its polar, with one part's ball on the switch between left and kept (`‖x_T‖ = μ n` or
    /// `‖x_R‖ = μ_r n` at the projection's normal part n, to within `delta`) — one part
    /// sticking, the other sliding or rolling, at the boundary between the two.
    pub(crate) fn at_kink(&self, mu: f64, x: &[f64], delta: f64) -> bool {
        let k = self.k();
        match self.piece(mu, x) {
            None => false,
            Some((n, ta, ra)) => {
                if !ta && !ra {
                    return false;
                }
                let a = norm(&x[1..1 + k]);
                let b = norm(&x[1 + k..1 + 2 * k]);
                // A part whose coefficient is 0 has the ball {0}: P is 0 there, smooth.
                let near = |m: f64, s: f64| m > 0.0 && (s - m * n).abs() <= delta * (1.0 + m);
                near(mu, a) || near(self.mu_r, b)
            }
        }
    }
}

fn check_mu_r(mu_r: f64) -> Result<(), Error> {
    if !(mu_r.is_finite() && mu_r >= 0.0) {
        return Err(Error::setting("mu_r", mu_r, "the rolling friction coefficient must be finite and ≥ 0"));
    }
    Ok(())
}

fn norm(t: &[f64]) -> f64 {
    t.iter().map(|v| v * v).sum::<f64>().sqrt()
}

/// Projects `t` onto the ball of radius `rad ≥ 0`; the Jacobians with respect to t (k×k into
/// the block of a `stride`-wide row-major matrix at `(off, off)`) and to the radius when asked.
fn ball(
    rad: f64,
    t: &[f64],
    out: &mut [f64],
    jac: Option<(&mut [f64], usize, usize)>,
    drad: Option<&mut [f64]>,
) {
    let s = norm(t);
    let inside = s <= rad;
    if inside {
        out.copy_from_slice(t);
    } else {
        for (o, v) in out.iter_mut().zip(t) {
            *o = rad * v / s;
        }
    }
    let k = t.len();
    if let Some((j, stride, off)) = jac {
        for a in 0..k {
            for b in 0..k {
                let delta = f64::from(u8::from(a == b));
                j[(off + a) * stride + off + b] =
                    if inside { delta } else { rad / s * (delta - t[a] * t[b] / (s * s)) };
            }
        }
    }
    if let Some(d) = drad {
        for a in 0..k {
            d[a] = if inside { 0.0 } else { t[a] / s };
        }
    }
}

impl Rolling {
    /// The cone of a contact whose law `ConeSpec::Rolling { mu_r }` was already checked
    /// (its cone object built by [`Rolling::new`]): the same value, without the checks.
    pub(crate) fn checked(dim: usize, mu_r: f64) -> Rolling {
        Rolling { dim, mu_r }
    }

    /// [`crate::cone::alart_curnier_default`] on this cone's [`Cone::project_section`], for
    /// `K` components per part, on fixed-size arrays: the same operations in the same order
    /// (the same bits), without the size-generic loops and the dynamic dispatch of the
    /// section. The local Newton of nsgs evaluates it a few times per contact and sweep.
    #[inline(always)]
    pub(crate) fn alart_curnier_fixed<const K: usize>(&self, x: AcInput<'_>, out: CfunOut<'_>) {
        let (AcInput { mu, rho_n, rho_t, r, u }, CfunOut { phi, jac }) = (x, out);
        // k = 2K section components, d = 1 + k.
        const KK: usize = 4; // 2K ≤ 4
        let (k, d) = (2 * K, 1 + 2 * K);
        let xn = r[0] - rho_n * u[0];
        let xi = xn.max(0.0);
        let active = xn > 0.0;
        let mut y = [0.0; KK];
        for i in 1..d {
            y[i - 1] = r[i] - rho_t * u[i];
        }
        // `project_section`: the two balls of radii μξ and μ_r ξ (`ball`, its Jacobians
        // into the block-diagonal jt, the radius derivatives into jx).
        let xs = xi.max(0.0);
        let want = jac.is_some();
        let (mut p, mut jt, mut jx) = ([0.0; KK], [[0.0; KK]; KK], [0.0; KK]);
        for (m, off) in [(mu, 0), (self.mu_r, K)] {
            let rad = m * xs;
            let t = &y[off..off + K];
            let s = norm(t);
            let inside = s <= rad;
            for a in 0..K {
                p[off + a] = if inside { t[a] } else { rad * t[a] / s };
            }
            if want {
                for a in 0..K {
                    for b in 0..K {
                        let delta = f64::from(u8::from(a == b));
                        jt[off + a][off + b] =
                            if inside { delta } else { rad / s * (delta - t[a] * t[b] / (s * s)) };
                    }
                    jx[off + a] = m * if inside { 0.0 } else { t[a] / s };
                }
            }
        }
        if let Some((jr, ju)) = jac {
            alart_curnier_jacobian(active, (rho_n, rho_t), |a, b| jt[a][b], &jx[..k], (jr, ju));
        }
        phi[0] = r[0] - xi;
        for a in 0..k {
            phi[a + 1] = r[a + 1] - p[a];
        }
    }
}

impl Cone for Rolling {
    fn name(&self) -> String {
        format!("rolling-{}d(mu_r={})", if self.dim == 5 { 3 } else { 2 }, self.mu_r)
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn check(&self, mu: f64) -> Result<(), Error> {
        if !(mu.is_finite() && mu >= 0.0) {
            return Err(Error::setting("mu", mu, "the friction coefficient must be finite and ≥ 0"));
        }
        check_mu_r(self.mu_r)
    }

    fn scales_with_mu(&self) -> bool {
        false
    }

    fn project(&self, mu: f64, x: &[f64], out: &mut [f64]) {
        let k = self.k();
        match self.piece(mu, x) {
            None => out.iter_mut().for_each(|o| *o = 0.0),
            Some((n, ta, ra)) => {
                out[0] = n;
                let (xt, xr) = (&x[1..1 + k], &x[1 + k..1 + 2 * k]);
                let (ot, or) = out[1..].split_at_mut(k);
                if ta {
                    ball(mu * n, xt, ot, None, None);
                } else {
                    ot.copy_from_slice(xt);
                }
                if ra {
                    ball(self.mu_r * n, xr, or, None, None);
                } else {
                    or.copy_from_slice(xr);
                }
            }
        }
    }

    fn project_jacobian(&self, mu: f64, x: &[f64], out: &mut [f64], jac: &mut [f64]) {
        let d = self.dim;
        let k = self.k();
        jac[..d * d].iter_mut().for_each(|v| *v = 0.0);
        let Some((n, ta, ra)) = self.piece(mu, x) else {
            out.iter_mut().for_each(|o| *o = 0.0);
            return;
        };
        out[0] = n;
        // ∂n/∂x (row 0 of the Jacobian).
        let coef = [(mu, ta, 1usize), (self.mu_r, ra, 1 + k)];
        let den = 1.0 + coef.iter().filter(|c| c.1).map(|c| c.0 * c.0).sum::<f64>();
        let mut dn = [0.0; MAX_DIM];
        dn[0] = 1.0 / den;
        let mut unit = [0.0; MAX_DIM];
        for &(m, active, off) in &coef {
            let xi = &x[off..off + k];
            let s = norm(xi);
            if active && s > 0.0 {
                for a in 0..k {
                    unit[off + a] = xi[a] / s;
                    dn[off + a] = m * unit[off + a] / den;
                }
            }
        }
        jac[..d].copy_from_slice(&dn[..d]);
        for &(m, active, off) in &coef {
            let xi = &x[off..off + k];
            if !active {
                out[off..off + k].copy_from_slice(xi);
                if m == 0.0 {
                    // The ball {0} (x_i = 0 here): P_i ≡ 0 near x, its derivative 0, not I.
                    continue;
                }
                for a in 0..k {
                    jac[(off + a) * d + off + a] = 1.0;
                }
                continue;
            }
            let s = norm(xi);
            for a in 0..k {
                out[off + a] = m * n * unit[off + a];
                for j in 0..d {
                    jac[(off + a) * d + j] = m * unit[off + a] * dn[j];
                }
                for b in 0..k {
                    let delta = f64::from(u8::from(a == b));
                    jac[(off + a) * d + off + b] += m * n / s * (delta - unit[off + a] * unit[off + b]);
                }
            }
        }
    }

    fn alart_curnier(&self, x: AcInput<'_>, out: CfunOut<'_>) {
        if self.dim == 5 {
            self.alart_curnier_fixed::<2>(x, out);
        } else {
            self.alart_curnier_fixed::<1>(x, out);
        }
    }

    fn project_section(
        &self,
        mu: f64,
        xi: f64,
        t: &[f64],
        out: &mut [f64],
        mut jac_t: Option<&mut [f64]>,
        jac_xi: Option<&mut [f64]>,
    ) {
        let k = self.k();
        let xi = xi.max(0.0);
        let (ot, or) = out.split_at_mut(k);
        if let Some(j) = jac_t.as_deref_mut() {
            j[..4 * k * k].iter_mut().for_each(|v| *v = 0.0);
        }
        let mut dt = [0.0; MAX_DIM];
        let mut dr = [0.0; MAX_DIM];
        ball(mu * xi, &t[..k], ot, jac_t.as_deref_mut().map(|j| (j, 2 * k, 0)), Some(&mut dt[..k]));
        ball(self.mu_r * xi, &t[k..2 * k], or, jac_t.map(|j| (j, 2 * k, k)), Some(&mut dr[..k]));
        if let Some(j) = jac_xi {
            // Right derivative at ξ = 0 (the trait's convention): d(radius)/dξ times ∂P/∂radius.
            for a in 0..k {
                j[a] = mu * dt[a];
                j[k + a] = self.mu_r * dr[a];
            }
        }
    }

    fn support(&self, mu: f64, v: &[f64], t_out: &mut [f64]) -> f64 {
        let k = self.k();
        let mut h = 0.0;
        for (m, off) in [(mu, 0), (self.mu_r, k)] {
            let s = norm(&v[off..off + k]);
            for a in 0..k {
                t_out[off + a] = if s > 0.0 { -m * v[off + a] / s } else { 0.0 };
            }
            h += m * s;
        }
        h
    }

    fn contains(&self, mu: f64, x: &[f64], tol: f64) -> bool {
        let k = self.k();
        let s = tol * norm(x).max(1.0);
        x[0] >= -s && norm(&x[1..1 + k]) <= mu * x[0] + s && norm(&x[1 + k..]) <= self.mu_r * x[0] + s
    }

    /// A polyhedral linearisation does not exist in the trait's form (see the module docs):
    /// empty, and [`Cone::scales_with_mu`] says so.
    fn linearize(&self, _m: usize) -> Vec<f64> {
        Vec::new()
    }
}

impl FrictionContactProblem {
    /// The rolling frictional contact problem (Siconos' `RollingFrictionContactProblem`):
    /// `u = W r + q`, per contact `K_i ∋ r_i ⊥ ũ_i ∈ K_i*` with K_i the [`Rolling`] cone of
    /// coefficients `mu[i]`, `mu_r[i]` and `ũ_N = u_N + μ‖u_T‖ + μ_r‖u_R‖`; `dim` is 5 (3-D
    /// contacts: normal, 2 tangential, 2 rolling) or 3 (2-D). Its [`error`](Self::error) is
    /// Siconos' `rolling_friction_3d_compute_error`.
    ///
    /// ```
    /// use perp_cones::FrictionContactProblem;
    /// use perp_core::Matrix;
    /// let w = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
    /// let p = FrictionContactProblem::rolling(3, w.clone(), vec![-1.0, 0.0, 0.5], vec![0.3], vec![0.1]).unwrap();
    /// assert_eq!(p.rolling_mu(), Some(vec![0.1]));
    /// let e = FrictionContactProblem::rolling(3, w, vec![-1.0, 0.0, 0.5], vec![0.3], vec![-0.1]).unwrap_err();
    /// assert!(e.to_string().contains("mu_r[0]"), "{e}");
    /// ```
    pub fn rolling(dim: usize, w: Matrix, q: Vec<f64>, mu: Vec<f64>, mu_r: Vec<f64>) -> Result<Self, Error> {
        if dim != 3 && dim != 5 {
            return Err(Error::setting(
                "dim",
                dim,
                "a rolling frictional contact has dimension 3 (2-D: normal, tangential, rolling) or 5 (3-D)",
            ));
        }
        Error::check_len("mu_r", &mu_r, mu.len())?;
        for (i, &m) in mu_r.iter().enumerate() {
            if !(m.is_finite() && m >= 0.0) {
                return Err(Error::setting(&format!("mu_r[{i}]"), m, "must be finite and ≥ 0"));
            }
        }
        let cones = mu_r.into_iter().map(|mu_r| ConeSpec::Rolling { mu_r }).collect();
        FrictionContactProblem::new(dim, w, q, mu)?.with_cones(cones)
    }

    /// The rolling coefficients μ_r when every contact's law is [`ConeSpec::Rolling`] (and
    /// there is at least one contact), `None` otherwise.
    pub fn rolling_mu(&self) -> Option<Vec<f64>> {
        let cones = self.cones.as_ref().filter(|c| !c.is_empty())?;
        cones.iter().map(|c| if let ConeSpec::Rolling { mu_r } = c { Some(*mu_r) } else { None }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each of the five cases of Siconos' projection, against numbers computed by hand.
    #[test]
    fn the_five_cases_of_the_projection() {
        let c = Rolling::new(5, 0.5).unwrap();
        let mut p = [0.0; 5];
        // Polar: μa + μ_r b = 1·1 + 0.5·2 = 2 ≤ −x_N = 2.
        c.project(1.0, &[-2.0, 1.0, 0.0, 0.0, 2.0], &mut p);
        assert_eq!(p, [0.0; 5]);
        // Inside.
        c.project(1.0, &[2.0, 1.0, 1.0, 0.5, 0.5], &mut p);
        assert_eq!(p, [2.0, 1.0, 1.0, 0.5, 0.5]);
        // Both: x = (1, 3, 0, 2, 0), μ = 1, μ_r = 0.5: n = (1 + 3 + 1)/(1 + 1 + 0.25) = 20/9.
        c.project(1.0, &[1.0, 3.0, 0.0, 2.0, 0.0], &mut p);
        let n = 20.0 / 9.0;
        assert!((p[0] - n).abs() < 1e-15 && (p[1] - n).abs() < 1e-15 && (p[3] - 0.5 * n).abs() < 1e-15);
        // Friction only: x = (1, 3, 0, 0.1, 0): n = (1 + 3)/2 = 2, rolling 0.1 ≤ 1 kept.
        c.project(1.0, &[1.0, 3.0, 0.0, 0.1, 0.0], &mut p);
        assert_eq!(p, [2.0, 2.0, 0.0, 0.1, 0.0]);
        // Rolling only: x = (1, 0.1, 0, 0, 4): n = (1 + 2)/1.25 = 2.4, rolling 1.2.
        c.project(1.0, &[1.0, 0.1, 0.0, 0.0, 4.0], &mut p);
        assert!((p[0] - 2.4).abs() < 1e-15 && p[1] == 0.1 && (p[4] - 1.2).abs() < 1e-15);
    }

    /// The section projection, support and Jacobian in 2-D (d = 3).
    #[test]
    fn two_dimensional_section_and_support() {
        let c = Rolling::new(3, 0.2).unwrap();
        let mut out = [0.0; 2];
        let mut jt = [9.0; 4];
        let mut jx = [0.0; 2];
        c.project_section(0.5, 2.0, &[3.0, -0.1], &mut out, Some(&mut jt), Some(&mut jx));
        assert_eq!(out, [1.0, -0.1]);
        assert_eq!(jt, [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(jx, [0.5, 0.0]);
        let mut t = [0.0; 2];
        assert!((c.support(0.5, &[-2.0, 3.0], &mut t) - (1.0 + 0.6)).abs() < 1e-15);
        assert!((t[0] - 0.5).abs() < 1e-15 && (t[1] + 0.2).abs() < 1e-15, "{t:?}");
    }

    /// One 2-D contact, W = I, q = (−1, 0.5, 0.2), μ = 0.3, μ_r = 0.1: it stays in contact
    /// (r_N = 1), slides (r_T = −μ r_N, u_T = 0.2) and rolls (r_R = −μ_r r_N, u_R = 0.1); De
    /// Saxcé's ũ_N = μ u_T + μ_r u_R = 0.07 makes r·ũ = 0.07 − 0.06 − 0.01 = 0.
    #[test]
    fn a_sliding_rolling_contact_by_hand() {
        use crate::{Admm, Apgd, FrictionSolver, Nsgs, Prox, SemismoothNewton};
        use perp_core::{Settings, Status};
        let w = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
        let p = FrictionContactProblem::rolling(3, w, vec![-1.0, 0.5, 0.2], vec![0.3], vec![0.1]).unwrap();
        let solvers: [Box<dyn FrictionSolver>; 5] = [
            Box::new(Nsgs::new()),
            Box::new(SemismoothNewton::alart_curnier()),
            Box::new(Prox::new()),
            Box::new(Admm::new()),
            Box::new(Apgd::new()),
        ];
        let s = Settings { tol: 1e-12, ..Settings::default() };
        for mut solver in solvers {
            let sol = solver.solve(&p, None, &s).unwrap();
            assert_eq!(sol.report.status, Status::Solved, "{}: {:?}", solver.name(), sol.report);
            let want = [1.0, -0.3, -0.1];
            assert!(
                sol.r.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-9),
                "{}: {:?}",
                solver.name(),
                sol.r
            );
        }
    }

    /// With μ_r = 0 the rolling ball is {0}: `P_K` is 0 in x_R around any x, x_R = 0 included,
    /// so its Jacobian's rolling rows are 0 (they were the identity at x_R = 0); the same for
    /// μ = 0 and the tangential part. Checked against central differences of `project`.
    #[test]
    fn a_zero_coefficient_part_has_a_zero_jacobian() {
        for (mu, mu_r, x) in [
            (0.5, 0.0, [2.0, 0.3, -0.2, 0.0, 0.0]),
            (0.5, 0.0, [2.0, 3.0, 0.0, 0.0, 0.0]),
            (0.0, 0.2, [2.0, 0.0, 0.0, 0.1, 0.1]),
        ] {
            let c = Rolling::new(5, mu_r).unwrap();
            let (mut out, mut jac) = ([0.0; 5], [0.0; 25]);
            c.project_jacobian(mu, &x, &mut out, &mut jac);
            let mut p = [0.0; 5];
            c.project(mu, &x, &mut p);
            assert!(out.iter().zip(p).all(|(a, b)| (a - b).abs() < 1e-14), "{out:?} vs {p:?}");
            let h = 1e-7;
            for j in 0..5 {
                let (mut xp, mut xm, mut pp, mut pm) = (x, x, [0.0; 5], [0.0; 5]);
                xp[j] += h;
                xm[j] -= h;
                c.project(mu, &xp, &mut pp);
                c.project(mu, &xm, &mut pm);
                for i in 0..5 {
                    let fd = (pp[i] - pm[i]) / (2.0 * h);
                    assert!(
                        (jac[i * 5 + j] - fd).abs() < 1e-6,
                        "μ={mu} μ_r={mu_r} x={x:?}: J[{i}][{j}] {} vs {fd}",
                        jac[i * 5 + j]
                    );
                }
            }
        }
    }

    /// The fixed-size Alart–Curnier function (the override, and what nsgs's local Newton
    /// calls directly) is the trait's default on the section, bit for bit: φ and both
    /// Jacobians, in 2-D and 3-D, over separated, sticking, sliding and rolling points, both
    /// parts' balls left or kept, zero coefficients included.
    #[test]
    fn the_fixed_size_alart_curnier_is_the_default_bit_for_bit() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(35);
        for dim in [3, 5] {
            for trial in 0..2000 {
                let mu_r = [0.0, 0.1, 2.0][trial % 3];
                let mu = [0.0, 0.5, 1.5][trial / 3 % 3];
                let c = Rolling::new(dim, mu_r).unwrap();
                let r: Vec<f64> = (0..dim).map(|_| rng.random_range(-2.0..2.0)).collect();
                let u: Vec<f64> = (0..dim).map(|_| rng.random_range(-2.0..2.0)).collect();
                let (rho_n, rho_t) = (rng.random_range(0.1..3.0), rng.random_range(0.1..3.0));
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                let (mut p1, mut p2) = (vec![0.0; dim], vec![0.0; dim]);
                let x = AcInput { mu, rho_n, rho_t, r: &r, u: &u };
                c.alart_curnier(x, CfunOut { phi: &mut p1, jac: None });
                crate::cone::alart_curnier_default(&c, x, CfunOut { phi: &mut p2, jac: None });
                assert_eq!(bits(&p1), bits(&p2), "dim {dim}, trial {trial}");
                let (mut jr1, mut ju1) = (vec![7.0; dim * dim], vec![7.0; dim * dim]);
                let (mut jr2, mut ju2) = (vec![7.0; dim * dim], vec![7.0; dim * dim]);
                c.alart_curnier(x, CfunOut { phi: &mut p1, jac: Some((&mut jr1, &mut ju1)) });
                crate::cone::alart_curnier_default(
                    &c,
                    x,
                    CfunOut { phi: &mut p2, jac: Some((&mut jr2, &mut ju2)) },
                );
                assert_eq!(bits(&p1), bits(&p2), "dim {dim}, trial {trial}");
                assert_eq!(bits(&jr1), bits(&jr2), "dim {dim}, trial {trial}");
                assert_eq!(bits(&ju1), bits(&ju2), "dim {dim}, trial {trial}");
            }
        }
    }
}
