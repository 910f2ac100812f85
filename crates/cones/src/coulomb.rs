//! The isotropic Coulomb cone `K_μ = {(r_N, r_T) : ‖r_T‖ ≤ μ r_N}` in 2-D and 3-D, with the
//! closed-form projection Siconos uses (`design/SUITES.md`) and its exact Jacobian.

use crate::cone::{alart_curnier_jacobian, AcInput, CfunOut, Cone, SocMap};
use perp_core::Error;

/// The Coulomb cone of dimension 2 (`|r_T| ≤ μ r_N`) or 3 (`‖r_T‖₂ ≤ μ r_N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coulomb {
    dim: usize,
}

/// The Coulomb cones of dimension 3 and 2, for static calls where a problem's laws are known
/// to be the built-in Coulomb ones.
pub(crate) const COULOMB_3D: Coulomb = Coulomb { dim: 3 };
pub(crate) const COULOMB_2D: Coulomb = Coulomb { dim: 2 };

impl Coulomb {
    /// The Coulomb cone for contacts of dimension 2 or 3.
    pub fn new(dim: usize) -> Result<Coulomb, Error> {
        if dim == 2 || dim == 3 {
            Ok(Coulomb { dim })
        } else {
            Err(Error::setting("dim", dim, "the Coulomb cone has dimension 2 or 3; use Elliptic for torsion"))
        }
    }
}

fn tnorm(t: &[f64]) -> f64 {
    t.iter().map(|v| v * v).sum::<f64>().sqrt()
}

impl Cone for Coulomb {
    fn name(&self) -> String {
        format!("coulomb-{}d", self.dim)
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn project(&self, mu: f64, x: &[f64], out: &mut [f64]) {
        let (xn, xt) = (x[0], &x[1..]);
        let s = tnorm(xt);
        // Polar first (as Siconos): with μ = 0, x_T = 0 and x_N < 0 both tests hold.
        if mu * s <= -xn {
            out.iter_mut().for_each(|o| *o = 0.0);
        } else if s <= mu * xn {
            out.copy_from_slice(x);
        } else {
            let a = (mu * s + xn) / (mu * mu + 1.0);
            out[0] = a;
            for (o, t) in out[1..].iter_mut().zip(xt) {
                *o = mu * a * t / s;
            }
        }
    }

    fn project_jacobian(&self, mu: f64, x: &[f64], out: &mut [f64], jac: &mut [f64]) {
        let d = self.dim;
        let (xn, xt) = (x[0], &x[1..]);
        let s = tnorm(xt);
        jac.iter_mut().for_each(|v| *v = 0.0);
        if mu * s <= -xn {
            out.iter_mut().for_each(|o| *o = 0.0);
        } else if s <= mu * xn {
            out.copy_from_slice(x);
            for i in 0..d {
                jac[i * d + i] = 1.0;
            }
        } else {
            let c = 1.0 / (mu * mu + 1.0);
            let a = (mu * s + xn) * c;
            out[0] = a;
            jac[0] = c;
            for k in 1..d {
                let wk = xt[k - 1] / s;
                out[k] = mu * a * wk;
                jac[k] = mu * wk * c;
                jac[k * d] = mu * wk * c;
                for l in 1..d {
                    let wl = xt[l - 1] / s;
                    let delta = f64::from(u8::from(k == l));
                    jac[k * d + l] = mu * mu * c * wk * wl + mu * a / s * (delta - wk * wl);
                }
            }
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
        let k = t.len();
        let rad = mu * xi.max(0.0);
        let s = tnorm(t);
        let inside = s <= rad;
        if inside {
            out.copy_from_slice(t);
        } else {
            for (o, v) in out.iter_mut().zip(t) {
                *o = rad * v / s;
            }
        }
        if let Some(j) = jac_t {
            j.iter_mut().for_each(|v| *v = 0.0);
            for a in 0..k {
                for b in 0..k {
                    let delta = f64::from(u8::from(a == b));
                    j[a * k + b] = if inside { delta } else { rad / s * (delta - t[a] * t[b] / (s * s)) };
                }
            }
        }
        if let Some(j) = jac_xi {
            for a in 0..k {
                // Right derivative at ξ = 0 (the trait's convention).
                j[a] = if inside { 0.0 } else { mu * t[a] / s };
            }
        }
    }

    fn support(&self, mu: f64, v: &[f64], t_out: &mut [f64]) -> f64 {
        let s = tnorm(v);
        if s > 0.0 {
            for (o, x) in t_out.iter_mut().zip(v) {
                *o = -mu * x / s;
            }
        } else {
            t_out.iter_mut().for_each(|o| *o = 0.0);
        }
        mu * s
    }

    /// The trait's default with [`Coulomb::project_section`] inlined, on fixed-size arrays
    /// (the same operations in the same order: the same bits).
    fn alart_curnier(&self, x: AcInput<'_>, out: CfunOut<'_>) {
        match x.r.len() {
            2 => alart_curnier_fixed::<1>(x, out),
            3 => alart_curnier_fixed::<2>(x, out),
            _ => crate::cone::alart_curnier_default(self, x, out),
        }
    }

    fn soc_map(&self, mu: f64) -> Option<SocMap> {
        // r ∈ K ⟺ (μ r_N, r_T) ∈ L;  u ∈ K* ⟺ (u_N, μ u_T) ∈ L;  product = μ r·u.
        if mu > 0.0 {
            let mut a = vec![1.0; self.dim];
            let mut b = vec![mu; self.dim];
            a[0] = mu;
            b[0] = 1.0;
            Some(SocMap { a, b })
        } else {
            None
        }
    }

    fn linearize(&self, m: usize) -> Vec<f64> {
        crate::cone::sphere_directions(self.dim - 1, m)
    }
}

/// [`Cone::alart_curnier`] of the Coulomb cone with `K = d − 1` tangential components: the
/// trait's default and [`Coulomb::project_section`], step for step.
#[inline(always)]
pub(crate) fn alart_curnier_fixed<const K: usize>(x: AcInput<'_>, out: CfunOut<'_>) {
    let (AcInput { mu, rho_n, rho_t, r, u }, CfunOut { phi, jac }) = (x, out);
    let d = K + 1;
    let (r, u, phi) = (&r[..d], &u[..d], &mut phi[..d]);
    let xn = r[0] - rho_n * u[0];
    let xi = xn.max(0.0);
    let active = xn > 0.0;
    let mut y = [0.0; K];
    for i in 1..d {
        y[i - 1] = r[i] - rho_t * u[i];
    }
    // The section projection (Coulomb::project_section).
    let rad = mu * xi.max(0.0);
    let s = tnorm(&y);
    let inside = s <= rad;
    let mut p = [0.0; K];
    if inside {
        p = y;
    } else {
        for (o, v) in p.iter_mut().zip(&y) {
            *o = rad * v / s;
        }
    }
    if let Some((jr, ju)) = jac {
        let (jr, ju) = (&mut jr[..d * d], &mut ju[..d * d]);
        let mut jt = [[0.0; K]; K];
        let mut jx = [0.0; K];
        for a in 0..K {
            for b in 0..K {
                let delta = f64::from(u8::from(a == b));
                jt[a][b] = if inside { delta } else { rad / s * (delta - y[a] * y[b] / (s * s)) };
            }
            jx[a] = if inside { 0.0 } else { mu * y[a] / s };
        }
        alart_curnier_jacobian(active, (rho_n, rho_t), |a, b| jt[a][b], &jx, (jr, ju));
    }
    phi[0] = r[0] - xi;
    for a in 0..K {
        phi[a + 1] = r[a + 1] - p[a];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_cases_match_the_siconos_formula() {
        let c = Coulomb::new(3).unwrap();
        let mut out = [0.0; 3];
        c.project(0.5, &[1.0, 0.3, 0.0], &mut out);
        assert_eq!(out, [1.0, 0.3, 0.0]);
        c.project(0.5, &[-1.0, 0.3, 0.0], &mut out);
        assert_eq!(out, [0.0; 3]);
        c.project(0.0, &[-1.0, 0.0, 0.0], &mut out);
        assert_eq!(out, [0.0; 3], "μ = 0, x in the polar half-line");
        c.project(0.5, &[1.0, 3.0, 4.0], &mut out);
        let a = (0.5 * 5.0 + 1.0) / 1.25;
        assert!((out[0] - a).abs() < 1e-15 && (out[1] - 0.5 * a * 0.6).abs() < 1e-15);
        assert!(Coulomb::new(4).is_err());
    }

    /// Coulomb through the trait's default projection (section projection only).
    #[derive(Debug)]
    struct SectionOnly(Coulomb);
    impl Cone for SectionOnly {
        fn name(&self) -> String {
            "section-only".into()
        }
        fn dim(&self) -> usize {
            self.0.dim()
        }
        fn project_section(
            &self,
            mu: f64,
            xi: f64,
            t: &[f64],
            out: &mut [f64],
            a: Option<&mut [f64]>,
            b: Option<&mut [f64]>,
        ) {
            self.0.project_section(mu, xi, t, out, a, b)
        }
        fn support(&self, mu: f64, v: &[f64], t: &mut [f64]) -> f64 {
            self.0.support(mu, v, t)
        }
    }

    #[test]
    fn default_projection_matches_the_closed_form() {
        let c = Coulomb::new(3).unwrap();
        let s = SectionOnly(c);
        for x in [
            [1.0, 3.0, -4.0],
            [-0.1, 10.0, 0.0],
            [0.2, 0.1, 0.05],
            [-2.0, 0.1, 0.1],
            [0.0, 0.0, 0.0],
            [0.5, -1.0, 2.0],
        ] {
            for mu in [0.0, 0.3, 1.0, 2.5] {
                let (mut a, mut b) = ([0.0; 3], [0.0; 3]);
                c.project(mu, &x, &mut a);
                s.project(mu, &x, &mut b);
                for k in 0..3 {
                    assert!(
                        (a[k] - b[k]).abs() <= 1e-12 * (1.0 + a[k].abs()),
                        "{x:?} μ={mu}: {a:?} vs {b:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn fixed_size_alart_curnier_matches_the_default_bit_for_bit() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for d in [2, 3] {
            let c = Coulomb::new(d).unwrap();
            for trial in 0..2000 {
                let mu = [0.0, 0.3, 1.0, rng.random_range(0.0..2.0)][trial % 4];
                let mut r: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
                let u: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
                if trial % 7 == 0 {
                    r[1..].iter_mut().for_each(|v| *v = 0.0);
                }
                let (rn, rt) = (rng.random_range(0.1..3.0), rng.random_range(0.1..3.0));
                let mut out = Vec::new();
                for fixed in [true, false] {
                    let (mut phi, mut jr, mut ju) = (vec![0.0; d], vec![7.0; d * d], vec![7.0; d * d]);
                    let mut phi0 = vec![0.0; d];
                    let x = AcInput { mu, rho_n: rn, rho_t: rt, r: &r, u: &u };
                    if fixed {
                        c.alart_curnier(x, CfunOut { phi: &mut phi, jac: Some((&mut jr, &mut ju)) });
                        c.alart_curnier(x, CfunOut { phi: &mut phi0, jac: None });
                    } else {
                        let out = CfunOut { phi: &mut phi, jac: Some((&mut jr, &mut ju)) };
                        crate::cone::alart_curnier_default(&c, x, out);
                        crate::cone::alart_curnier_default(&c, x, CfunOut { phi: &mut phi0, jac: None });
                    }
                    out.push((bits(&phi), bits(&jr), bits(&ju), bits(&phi0)));
                }
                assert_eq!(out[0], out[1], "d = {d}, μ = {mu}, r = {r:?}, u = {u:?}");
            }
        }
    }

    #[test]
    fn exact_jacobian_matches_central_differences() {
        // SectionOnly keeps the trait's default (finite-difference) project_jacobian.
        let c = Coulomb::new(3).unwrap();
        let fd = SectionOnly(c);
        for x in [[1.0, 3.0, -4.0], [0.2, 0.1, 0.05], [0.5, -1.0, 2.0]] {
            let (mut o1, mut o2) = ([0.0; 3], [0.0; 3]);
            let (mut j1, mut j2) = ([0.0; 9], [0.0; 9]);
            c.project_jacobian(0.7, &x, &mut o1, &mut j1);
            fd.project_jacobian(0.7, &x, &mut o2, &mut j2);
            for k in 0..9 {
                assert!((j1[k] - j2[k]).abs() < 1e-6, "{x:?} entry {k}: {} vs {}", j1[k], j2[k]);
            }
        }
    }
}
