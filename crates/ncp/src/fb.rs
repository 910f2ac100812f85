//! The Fischer–Burmeister NCP function and its reformulation Φ(z) = 0 of an MCP.
//!
//! # The function
//!
//! `φ(a, b) = √(a² + b²) − a − b` (Fischer 1992) vanishes exactly when `a ≥ 0`, `b ≥ 0`,
//! `ab = 0`; moreover `φ(a, b) ≤ 0 ⇔ a ≥ 0, b ≥ 0`. It is smooth except at `a = b = 0`,
//! where its generalized gradient is `{(ξ − 1, ρ − 1) : ξ² + ρ² ≤ 1}`.
//! The penalized version of Chen, Chen & Kanzow (2000),
//! `φ_λ(a, b) = λ φ(a, b) − (1 − λ) a₊ b₊` with `λ ∈ (0, 1]`, has the same two properties
//! (for `a, b ≥ 0` both terms are ≤ 0; if `a < 0` then `a₊ = 0` and `φ > 0`) and a merit
//! function that grows faster away from the solution set; `λ = 1` is plain FB.
//!
//! # The MCP reformulation (Billups 1995; Ferris, Kanzow & Munson 1999)
//!
//! For MCP(F, l, u) row i is, by its [`BoundKind`]:
//!
//! | kind  | `Φᵢ(z)`                                   |
//! |-------|-------------------------------------------|
//! | Free  | `−Fᵢ(z)`                                  |
//! | Lower | `φ(zᵢ − lᵢ, Fᵢ)`                          |
//! | Upper | `−φ(uᵢ − zᵢ, −Fᵢ)`                        |
//! | Box   | `φ(zᵢ − lᵢ, φ(uᵢ − zᵢ, −Fᵢ))`             |
//!
//! Sign convention: a free row is `−Fᵢ`, the limit of the Lower row as `lᵢ → −∞` and of the
//! Upper row as `uᵢ → +∞` (since `φ(a, b) → −b` as `a → +∞`), so every row behaves like
//! `−Fᵢ` far inside its bounds, and the Box row tends to the Upper row as `lᵢ → −∞`.
//! `Φ(z) = 0` exactly at the solutions of the MCP. For the Box row: the outer φ vanishes iff
//! `zᵢ ≥ lᵢ`, `X ≥ 0`, `(zᵢ − lᵢ)X = 0` with `X = φ(uᵢ − zᵢ, −Fᵢ)`; `X = 0` iff `zᵢ ≤ uᵢ`,
//! `Fᵢ ≤ 0`, `(uᵢ − zᵢ)Fᵢ = 0`, and when `zᵢ = lᵢ < uᵢ`, `X ≥ 0 ⇔ Fᵢ ≥ 0` (φ(a, b) with
//! a > 0 has the sign of −b). With *this* sign of φ the inner term enters with a plus sign:
//! `φ(zᵢ − lᵢ, −φ(uᵢ − zᵢ, −Fᵢ))` would also vanish at `zᵢ = lᵢ` with `Fᵢ < 0` (a test pins
//! this). The same holds for [`phi_lambda`].
//!
//! # The Newton matrix
//!
//! Every row's element of the generalized Jacobian has the form `dᵃᵢ eᵢᵀ + dᵇᵢ ∇Fᵢ(z)`, so
//! the Newton matrix is `H = diag(dᵃ) + diag(dᵇ) ∇F(z)` ([`fb_jacobian_diag`]). Away from the
//! kinks `(dᵃ, dᵇ)` is the gradient; at a kink `a = b = 0` we take `(ξ, ρ) = (1/√2, 1/√2)`,
//! i.e. `∂φ = (1/√2 − 1, 1/√2 − 1)`: the limit of `∇φ` along the ray `(a, b) = t(1, 1)`,
//! `t ↓ 0`, hence an element of the B-subdifferential of φ (and it lies on the unit circle,
//! so it is in the Clarke set). Its entries are both strictly negative, which is what the
//! nonsingularity arguments for P₀/P matrices need (De Luca, Facchinei & Kanzow 1996,
//! Prop. 3.2, use any (ξ, ρ) with `(ξ − 1)`, `(ρ − 1)` nonpositive and not both zero). The Box
//! row is handled by the chain rule with this componentwise choice, as in Ferris, Kanzow &
//! Munson 1999 (the resulting H is an element of their overestimate of ∂Φ, for which the
//! local semismooth Newton theory holds). For the penalized function the kink of `a₊ b₊`
//! (one argument zero, the other positive) takes the one-sided derivative 0 (the limit from
//! the side where the zero argument is negative), again an element of the B-subdifferential.

use crate::{BoundKind, Mcp};

const INV_SQRT2: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// `φ(a, b) = √(a² + b²) − a − b`, computed without overflow (`hypot`) and without
/// cancellation: when `a + b > 0` it uses `(a² + b² − (a + b)²)/(√(a²+b²) + a + b)
/// = −2a·b/(√(a²+b²) + a + b)`.
///
/// ```
/// use perp_ncp::fb::phi;
/// assert_eq!(phi(0.0, 3.0), 0.0);
/// assert_eq!(phi(2.0, 0.0), 0.0);
/// assert_eq!(phi(-3.0, 0.0), 6.0);
/// assert!((phi(3.0, 4.0) - (5.0 - 7.0)).abs() < 1e-15);
/// ```
pub fn phi(a: f64, b: f64) -> f64 {
    let r = a.hypot(b);
    let s = a + b;
    if s > 0.0 {
        // a, b cannot both be ≤ 0 here; b/(r + s) ∈ (−1, 1] so nothing overflows.
        -2.0 * a * (b / (r + s))
    } else {
        r - s
    }
}

/// The gradient `(∂φ/∂a, ∂φ/∂b) = (a/r − 1, b/r − 1)`, `r = √(a² + b²)`; at the kink
/// `a = b = 0` the element `(1/√2 − 1, 1/√2 − 1)` (module docs).
///
/// ```
/// use perp_ncp::fb::phi_grad;
/// assert_eq!(phi_grad(2.0, 0.0), (0.0, -1.0));
/// let (da, db) = phi_grad(0.0, 0.0);
/// assert!((da - (0.5f64.sqrt() - 1.0)).abs() < 1e-15 && da == db);
/// ```
pub fn phi_grad(a: f64, b: f64) -> (f64, f64) {
    let r = a.hypot(b);
    if r == 0.0 {
        (INV_SQRT2 - 1.0, INV_SQRT2 - 1.0)
    } else {
        (a / r - 1.0, b / r - 1.0)
    }
}

/// The penalized FB function of Chen, Chen & Kanzow (2000):
/// `φ_λ(a, b) = λ φ(a, b) − (1 − λ) max(a, 0) max(b, 0)`; `λ = 1` is [`phi`].
///
/// ```
/// use perp_ncp::fb::{phi, phi_lambda};
/// assert_eq!(phi_lambda(1.0, 3.0, 4.0), phi(3.0, 4.0));
/// assert!((phi_lambda(0.5, 3.0, 4.0) - (0.5 * -2.0 - 0.5 * 12.0)).abs() < 1e-14);
/// ```
pub fn phi_lambda(lambda: f64, a: f64, b: f64) -> f64 {
    if lambda == 1.0 {
        phi(a, b)
    } else {
        lambda * phi(a, b) - (1.0 - lambda) * a.max(0.0) * b.max(0.0)
    }
}

/// An element of the generalized gradient of [`phi_lambda`]: `λ ∇φ` (kink choice of
/// [`phi_grad`]) minus `(1 − λ)(b₊·[a > 0], a₊·[b > 0])`.
pub fn phi_lambda_grad(lambda: f64, a: f64, b: f64) -> (f64, f64) {
    let (ga, gb) = phi_grad(a, b);
    if lambda == 1.0 {
        return (ga, gb);
    }
    let pa = if a > 0.0 { b.max(0.0) } else { 0.0 };
    let pb = if b > 0.0 { a.max(0.0) } else { 0.0 };
    (lambda * ga - (1.0 - lambda) * pa, lambda * gb - (1.0 - lambda) * pb)
}

/// `Φ(z)` of the MCP for plain FB (module docs' table), given `f = F(z)`.
///
/// ```
/// use perp_core::Matrix;
/// use perp_ncp::{fb::fb_residual, AffineFunction, Mcp};
/// let f = AffineFunction::new(Matrix::from_row_major(1, 1, &[1.0]).unwrap(), vec![-1.0]).unwrap();
/// let p = Mcp::ncp(&f);
/// let mut phi = [0.0];
/// fb_residual(&p, &[1.0], &[0.0], &mut phi); // z = 1, F = 0: a solution
/// assert_eq!(phi, [0.0]);
/// ```
pub fn fb_residual(p: &Mcp<'_>, z: &[f64], f: &[f64], phi: &mut [f64]) {
    fb_residual_lambda(p, 1.0, z, f, phi)
}

/// `Φ(z)` with the penalized function [`phi_lambda`] in every place φ appears.
pub fn fb_residual_lambda(p: &Mcp<'_>, lambda: f64, z: &[f64], f: &[f64], phi: &mut [f64]) {
    for i in 0..z.len() {
        let (l, u) = (p.lower[i], p.upper[i]);
        phi[i] = match p.kind(i) {
            BoundKind::Free => -f[i],
            BoundKind::Lower => phi_lambda(lambda, z[i] - l, f[i]),
            BoundKind::Upper => -phi_lambda(lambda, u - z[i], -f[i]),
            BoundKind::Box => phi_lambda(lambda, z[i] - l, phi_lambda(lambda, u - z[i], -f[i])),
        };
    }
}

/// The row factors `(dᵃ, dᵇ)` of an element `H = diag(dᵃ) + diag(dᵇ) ∇F(z)` of the
/// generalized Jacobian of Φ at z (plain FB; kink choice in the module docs), given
/// `f = F(z)`:
///
/// * Free: `(0, −1)`;
/// * Lower: `∇φ(zᵢ − lᵢ, Fᵢ)`;
/// * Upper: `∇φ(uᵢ − zᵢ, −Fᵢ)` (the two minus signs cancel);
/// * Box: with `X = φ(uᵢ − zᵢ, −Fᵢ)`, `(α₁, β₁) = ∇φ(zᵢ − lᵢ, X)`,
///   `(α₂, β₂) = ∇φ(uᵢ − zᵢ, −Fᵢ)`: `(α₁ − β₁α₂, −β₁β₂)` (chain rule).
///
/// ```
/// use perp_core::Matrix;
/// use perp_ncp::{fb::fb_jacobian_diag, AffineFunction, Mcp};
/// let f = AffineFunction::new(Matrix::from_row_major(1, 1, &[1.0]).unwrap(), vec![-1.0]).unwrap();
/// let p = Mcp::ncp(&f);
/// let (mut da, mut db) = ([0.0], [0.0]);
/// fb_jacobian_diag(&p, &[3.0], &[4.0], &mut da, &mut db); // r = 5
/// assert!((da[0] + 0.4).abs() < 1e-15 && (db[0] + 0.2).abs() < 1e-15);
/// ```
pub fn fb_jacobian_diag(p: &Mcp<'_>, z: &[f64], f: &[f64], da: &mut [f64], db: &mut [f64]) {
    fb_jacobian_diag_lambda(p, 1.0, z, f, da, db)
}

/// [`fb_jacobian_diag`] for the penalized function [`phi_lambda`].
pub fn fb_jacobian_diag_lambda(
    p: &Mcp<'_>,
    lambda: f64,
    z: &[f64],
    f: &[f64],
    da: &mut [f64],
    db: &mut [f64],
) {
    for i in 0..z.len() {
        let (l, u) = (p.lower[i], p.upper[i]);
        (da[i], db[i]) = match p.kind(i) {
            BoundKind::Free => (0.0, -1.0),
            BoundKind::Lower => phi_lambda_grad(lambda, z[i] - l, f[i]),
            BoundKind::Upper => phi_lambda_grad(lambda, u - z[i], -f[i]),
            BoundKind::Box => {
                let x = phi_lambda(lambda, u - z[i], -f[i]);
                let (a1, b1) = phi_lambda_grad(lambda, z[i] - l, x);
                let (a2, b2) = phi_lambda_grad(lambda, u - z[i], -f[i]);
                (a1 - b1 * a2, -b1 * b2)
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AffineFunction, NcpFunction};
    use faer::Mat;
    use perp_core::Matrix;
    use proptest::prelude::*;

    /// A smooth nonlinear F on ℝ³ with an analytic Jacobian.
    struct Nl;
    impl NcpFunction for Nl {
        fn dim(&self) -> usize {
            3
        }
        fn eval(&self, z: &[f64], f: &mut [f64]) {
            f[0] = z[0] * z[0] + z[1] - 1.0;
            f[1] = z[0].sin() + z[1] * z[2] - 0.3;
            f[2] = z[2].powi(3) - z[0] + 0.5;
        }
        fn jacobian(&self, z: &[f64], mut j: faer::MatMut<'_, f64>) {
            j.fill(0.0);
            j[(0, 0)] = 2.0 * z[0];
            j[(0, 1)] = 1.0;
            j[(1, 0)] = z[0].cos();
            j[(1, 1)] = z[2];
            j[(1, 2)] = z[1];
            j[(2, 0)] = -1.0;
            j[(2, 2)] = 3.0 * z[2] * z[2];
        }
    }

    /// Builds H = diag(da) + diag(db) ∇F and compares it with central differences of Φ.
    fn check_h(p: &Mcp<'_>, lambda: f64, z: &[f64]) -> f64 {
        let n = z.len();
        let mut f = vec![0.0; n];
        p.f.eval(z, &mut f);
        let (mut da, mut db) = (vec![0.0; n], vec![0.0; n]);
        fb_jacobian_diag_lambda(p, lambda, z, &f, &mut da, &mut db);
        let mut j = Mat::<f64>::zeros(n, n);
        p.f.jacobian(z, j.as_mut());
        let phi_at = |x: &[f64]| {
            let mut fx = vec![0.0; n];
            p.f.eval(x, &mut fx);
            let mut ph = vec![0.0; n];
            fb_residual_lambda(p, lambda, x, &fx, &mut ph);
            ph
        };
        let mut worst: f64 = 0.0;
        let h = 1e-6;
        for c in 0..n {
            let (mut zp, mut zm) = (z.to_vec(), z.to_vec());
            zp[c] += h;
            zm[c] -= h;
            let (pp, pm) = (phi_at(&zp), phi_at(&zm));
            for r in 0..n {
                let fd = (pp[r] - pm[r]) / (2.0 * h);
                let hij = db[r] * j[(r, c)] + if r == c { da[r] } else { 0.0 };
                worst = worst.max((fd - hij).abs());
            }
        }
        worst
    }

    #[test]
    fn jacobian_matches_finite_differences_away_from_kinks() {
        let f = Nl;
        let z = [0.4, -0.7, 1.1];
        let inf = f64::INFINITY;
        // NCP rows.
        let ncp = Mcp::ncp(&f);
        assert!(check_h(&ncp, 1.0, &z) < 1e-8, "ncp {}", check_h(&ncp, 1.0, &z));
        // Box rows (z inside and outside its box), an Upper row.
        let bx = Mcp::new(&f, vec![-1.0, 0.0, f64::NEG_INFINITY], vec![1.0, 0.5, 2.0]).unwrap();
        assert!(check_h(&bx, 1.0, &z) < 1e-8);
        // A free row, a Lower row with a nonzero bound, a Box row.
        let fr = Mcp::new(&f, vec![f64::NEG_INFINITY, -2.0, 0.0], vec![inf, inf, 3.0]).unwrap();
        assert!(check_h(&fr, 1.0, &z) < 1e-8);
        // Penalized FB, λ = 0.7, on the same three problems (a, b nonzero, away from a₊b₊ kinks).
        for p in [&ncp, &bx, &fr] {
            assert!(check_h(p, 0.7, &z) < 1e-8);
        }
        // And on an affine NCP at a point with both a, b > 0 in some rows.
        let a = AffineFunction::new(
            Matrix::from_row_major(3, 3, &[2.0, 1.0, 0.0, 1.0, 3.0, -1.0, 0.0, -1.0, 1.5]).unwrap(),
            vec![-1.0, 0.5, 2.0],
        )
        .unwrap();
        let pa = Mcp::ncp(&a);
        assert!(check_h(&pa, 1.0, &[0.3, 0.2, -0.4]) < 1e-8);
        assert!(check_h(&pa, 0.5, &[0.3, 0.2, -0.4]) < 1e-8);
    }

    #[test]
    fn kink_element_is_a_one_sided_limit() {
        // Along (a, b) = t(1, 1), t ↓ 0, ∇φ is constant and equals the kink choice.
        let k = phi_grad(0.0, 0.0);
        for t in [1e-3, 1e-9, 1e-200] {
            let g = phi_grad(t, t);
            assert!((g.0 - k.0).abs() < 1e-15 && (g.1 - k.1).abs() < 1e-15);
        }
        // The generalized gradient at 0 is {(ξ−1, ρ−1): ξ²+ρ² ≤ 1}: the choice is in it.
        let (xi, rho) = (k.0 + 1.0, k.1 + 1.0);
        assert!(xi * xi + rho * rho <= 1.0 + 1e-15);
        // Directional derivative of φ at 0 along (1, 1) is (√2 − 2) = ∇φ·(1, 1).
        let h = 1e-8;
        assert!(((phi(h, h) / h) - (k.0 + k.1)).abs() < 1e-12);
        // The penalized kink of a₊b₊ at (0, b > 0): the left limit (derivative 0 in a).
        let (ga, _) = phi_lambda_grad(0.5, 0.0, 2.0);
        let (gl, _) = phi_lambda_grad(0.5, -1e-12, 2.0);
        assert!((ga - gl).abs() < 1e-11);
    }

    #[test]
    fn hand_values() {
        // φ(3, 4) = 5 − 7 = −2; φ(−1, −1) = √2 + 2.
        assert!((phi(3.0, 4.0) + 2.0).abs() < 1e-15);
        assert!((phi(-1.0, -1.0) - (2f64.sqrt() + 2.0)).abs() < 1e-15);
        // No overflow far out: φ(1e300, 1e300) = 1e300 (√2 − 2).
        assert!((phi(1e300, 1e300) / 1e300 - (2f64.sqrt() - 2.0)).abs() < 1e-14);
        // No cancellation: φ(1e8, 1e-8) ≈ −1e-8 (−2ab/(r+a+b) = −2e0/2e8).
        assert!((phi(1e8, 1e-8) + 1e-8).abs() < 1e-22);
        // Box row at the upper bound with F < 0 is solved: z = u = 1, F = −2.
        let f = AffineFunction::new(Matrix::from_row_major(1, 1, &[1.0]).unwrap(), vec![0.0]).unwrap();
        let p = Mcp::new(&f, vec![0.0], vec![1.0]).unwrap();
        let mut ph = [9.0];
        fb_residual(&p, &[1.0], &[-2.0], &mut ph);
        assert_eq!(ph, [0.0]);
        // … and an interior Box point with F = 0, and the lower bound with F > 0.
        fb_residual(&p, &[0.5], &[0.0], &mut ph);
        assert_eq!(ph, [0.0]);
        fb_residual(&p, &[0.0], &[3.0], &mut ph);
        assert_eq!(ph, [0.0]);
        // Not solutions: lower bound with F < 0 (X = φ(1, 5) = √26 − 6 < 0, Φ = 2|X|),
        // upper bound with F > 0, interior with F ≠ 0.
        fb_residual(&p, &[0.0], &[-5.0], &mut ph);
        assert!((ph[0] - 2.0 * (6.0 - 26f64.sqrt())).abs() < 1e-14, "{ph:?}");
        for (z, f) in [(1.0, 2.0), (0.5, 0.1), (0.5, -0.1)] {
            fb_residual(&p, &[z], &[f], &mut ph);
            assert!(ph[0].abs() > 1e-3, "z {z} F {f}: {ph:?}");
        }
        // Free row: −F.
        let q = Mcp::new(&f, vec![f64::NEG_INFINITY], vec![f64::INFINITY]).unwrap();
        fb_residual(&q, &[0.5], &[-2.0], &mut ph);
        assert_eq!(ph, [2.0]);
    }

    proptest! {
        #[test]
        fn phi_vanishes_exactly_on_complementary_pairs(a in -1e3f64..1e3, b in -1e3f64..1e3, which in 0u8..3) {
            // Mix in exact complementary pairs (one coordinate zero) so both sides are hit.
            let (a, b) = match which { 0 => (a.abs(), 0.0), 1 => (0.0, b.abs()), _ => (a, b) };
            let v = phi(a, b);
            let comp = a >= 0.0 && b >= 0.0 && a * b == 0.0;
            if comp {
                prop_assert_eq!(v, 0.0);
            } else {
                // (2 − √2)|min(a, b)| ≤ |φ(a, b)| (Tseng 1996): never 0 off the pairs.
                prop_assert!(v != 0.0);
                prop_assert!(v.abs() >= (2.0 - 2f64.sqrt()) * a.min(b).abs() * (1.0 - 1e-12));
            }
            // φ ≤ 0 ⇔ a ≥ 0 and b ≥ 0.
            prop_assert_eq!(v <= 0.0, a >= 0.0 && b >= 0.0);
            // The penalized function has the same zero set.
            let vl = phi_lambda(0.3, a, b);
            prop_assert_eq!(vl == 0.0, comp);
        }
    }
}
