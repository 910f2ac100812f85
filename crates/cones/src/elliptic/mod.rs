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
//!
//! This file holds [`Elliptic`] and its [`Cone`] impl; `projection` its projection kernels,
//! `mixed` the mixed law.

use crate::cone::{Cone, SocMap, MAX_DIM};
use perp_core::Error;

mod projection;
use projection::*;
mod mixed;
pub use mixed::*;

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
