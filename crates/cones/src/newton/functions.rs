//! Φ, the stacked complementarity function of the frictional Newton methods: one function per
//! contact, by name —
//!
//! * `ac-newton`: Alart–Curnier (Alart & Curnier 1991), [`Cone::alart_curnier`] (static calls
//!   for the built-in Coulomb law);
//! * `fb-newton`: Fischer–Burmeister on the De Saxcé pair through the cone's Lorentz map
//!   (Fukushima, Luo & Tseng 2001), [`crate::cone::fb_mapped`], and the scalar FB function
//!   for a frictionless contact;
//! * `nm-newton`: the natural map `r − P_K(r − ρ ũ)`, [`Cone::natural_map`].

use super::method::Method;
use super::NewtonFunction;
use crate::cone::{AcInput, CfunOut, Cone, MAX_DIM};

impl Method<'_> {
    /// Φ (and the Jacobian blocks when `jac`) at `r` with velocities `u` (shifted by
    /// `σ (r − r_ref)` in prox mode).
    pub(super) fn eval(&self, r: &[f64], u: &[f64], phi: &mut [f64], jac: Option<(&mut [f64], &mut [f64])>) {
        let d = self.p.dim;
        let dd = d * d;
        let mut ok = true;
        // Contact i's velocity, shifted in prox mode, on a stack buffer (no allocation per
        // evaluation: the line search evaluates Φ many times per iteration).
        let velocity = |i: usize, buf: &mut [f64; MAX_DIM]| {
            let s = d * i;
            for k in 0..d {
                buf[k] = match &self.prox {
                    Some(ps) => u[s + k] + ps.sigma * (r[s + k] - ps.r_ref[s + k]),
                    None => u[s + k],
                };
            }
        };
        let mut ui = [0.0; MAX_DIM];
        // FB pairs r with u/w̄ (see `u_scale`).
        let (fb, rho) = (self.u_scale != 1.0, self.u_scale);
        let velocity = |i: usize, buf: &mut [f64; MAX_DIM]| {
            velocity(i, buf);
            if fb {
                buf[..d].iter_mut().for_each(|v| *v *= rho);
            }
        };
        match jac {
            None => {
                for (i, cone) in self.cones.iter().enumerate() {
                    let s = d * i..d * i + d;
                    velocity(i, &mut ui);
                    ok &= self.contact(&**cone, i, &r[s.clone()], &ui[..d], &mut phi[s], None);
                }
            }
            Some((jr, ju)) => {
                for (i, cone) in self.cones.iter().enumerate() {
                    let s = d * i..d * i + d;
                    velocity(i, &mut ui);
                    let jac = Some((&mut jr[i * dd..(i + 1) * dd], &mut ju[i * dd..(i + 1) * dd]));
                    ok &= self.contact(&**cone, i, &r[s.clone()], &ui[..d], &mut phi[s], jac);
                    if fb {
                        ju[i * dd..(i + 1) * dd].iter_mut().for_each(|v| *v *= rho);
                    }
                }
            }
        }
        debug_assert!(ok, "FB requested on a cone without a Lorentz map: checked at start");
    }

    /// Φ of contact `i` (and its Jacobian blocks when `jac`) at `r`, `u`.
    #[inline]
    pub(super) fn contact(
        &self,
        cone: &dyn Cone,
        i: usize,
        r: &[f64],
        u: &[f64],
        phi: &mut [f64],
        jac: Option<(&mut [f64], &mut [f64])>,
    ) -> bool {
        use crate::coulomb::{alart_curnier_fixed, COULOMB_2D, COULOMB_3D};
        let f = self.opts.function;
        let mu = self.p.mu[i];
        let (rn, rt) = self.rho[i];
        // The built-in Coulomb law: its functions called statically (the same code as
        // through the trait object).
        match (self.coulomb, r.len(), f) {
            (true, 3, NewtonFunction::AlartCurnier) => {
                alart_curnier_fixed::<2>(AcInput { mu, rho_n: rn, rho_t: rt, r, u }, CfunOut { phi, jac });
                return true;
            }
            (true, 2, NewtonFunction::AlartCurnier) => {
                alart_curnier_fixed::<1>(AcInput { mu, rho_n: rn, rho_t: rt, r, u }, CfunOut { phi, jac });
                return true;
            }
            (true, 3, NewtonFunction::FischerBurmeister) if mu > 0.0 => {
                if let Some(map) = &self.maps[i] {
                    crate::cone::fb_mapped(&COULOMB_3D, mu, map, r, u, phi, jac);
                    return true;
                }
            }
            (true, 2, NewtonFunction::FischerBurmeister) if mu > 0.0 => {
                if let Some(map) = &self.maps[i] {
                    crate::cone::fb_mapped(&COULOMB_2D, mu, map, r, u, phi, jac);
                    return true;
                }
            }
            _ => {}
        }
        match f {
            NewtonFunction::AlartCurnier => {
                cone.alart_curnier(AcInput { mu, rho_n: rn, rho_t: rt, r, u }, CfunOut { phi, jac });
                true
            }
            NewtonFunction::NaturalMap => {
                cone.natural_map(mu, rn, r, u, phi, jac);
                true
            }
            NewtonFunction::FischerBurmeister => {
                if mu > 0.0 {
                    match &self.maps[i] {
                        // What the default `Cone::fischer_burmeister` does, on the cached map.
                        Some(map) => {
                            crate::cone::fb_mapped(cone, mu, map, r, u, phi, jac);
                            true
                        }
                        None => cone.fischer_burmeister(mu, r, u, phi, jac).is_ok(),
                    }
                } else {
                    // μ = 0: frictionless contact; scalar FB on the normal pair, r_T = 0.
                    scalar_fb_frictionless(r, u, phi, jac);
                    true
                }
            }
        }
    }

    pub(super) fn merit(phi: &[f64]) -> f64 {
        0.5 * phi.iter().map(|v| v * v).sum::<f64>()
    }
}

/// Frictionless contact in FB form: `φ_N = r_N + u_N − √(r_N² + u_N²)`, `φ_T = r_T`.
pub(super) fn scalar_fb_frictionless(
    r: &[f64],
    u: &[f64],
    phi: &mut [f64],
    jac: Option<(&mut [f64], &mut [f64])>,
) {
    let d = r.len();
    let s = (r[0] * r[0] + u[0] * u[0]).sqrt();
    phi[0] = r[0] + u[0] - s;
    phi[1..].copy_from_slice(&r[1..]);
    if let Some((jr, ju)) = jac {
        jr.iter_mut().for_each(|v| *v = 0.0);
        ju.iter_mut().for_each(|v| *v = 0.0);
        let (a, b) = if s > 0.0 {
            (1.0 - r[0] / s, 1.0 - u[0] / s)
        } else {
            (1.0 - 0.5f64.sqrt(), 1.0 - 0.5f64.sqrt())
        };
        jr[0] = a;
        ju[0] = b;
        for k in 1..d {
            jr[k * d + k] = 1.0;
        }
    }
}
