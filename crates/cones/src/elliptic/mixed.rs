//! The mixed law [`EllipticMixed`] of Trinkle–Tzitzouris–Pang 2001 example (c): an elliptic cone
//! in `(c_n, c_t, c_o)` intersected with a wedge in `(c_n, c_r)`, projected by Newton on the
//! convex `f'(s) = 0` with a bisection safeguard.

use super::*;

/// The 4-D mixed law of Trinkle–Tzitzouris–Pang 2001 example (c) with semi-axes:
/// `K = {(c_n, c_t, c_o, c_r) : (c_t/e_t)² + (c_o/e_o)² ≤ μ² c_n², |c_r| ≤ e_r μ c_n}`,
/// an elliptic cone in `(c_n, c_t, c_o)` intersected with a wedge in `(c_n, c_r)`; the section
/// is an elliptic cylinder. No map to the Lorentz cone (no Fischer–Burmeister).
#[derive(Clone, Debug, PartialEq)]
pub struct EllipticMixed {
    pub(super) e: [f64; 3],
}

impl EllipticMixed {
    /// The mixed cone with tangential semi-axes `e_t`, `e_o` and torsional bound `e_r` (each
    /// finite and > 0; the error names `e_t`, `e_o` or `e_r`).
    pub fn new(e_t: f64, e_o: f64, e_r: f64) -> Result<EllipticMixed, Error> {
        let m = EllipticMixed { e: [e_t, e_o, e_r] };
        m.check_axes()?;
        Ok(m)
    }

    pub(super) fn check_axes(&self) -> Result<(), Error> {
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
    pub(super) fn dual_derivative(&self, mu: f64, zn: f64, y: &[f64], zr: f64, s: f64) -> (f64, f64) {
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

    pub(super) fn project_impl(&self, mu: f64, z: &[f64], out: &mut [f64], jac: Option<&mut [f64]>) {
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
