//! The Jordan algebra of the Lorentz (second-order) cone `L = {x = (x₀, x̄) : ‖x̄‖ ≤ x₀}` of
//! `Rᵈ`, `d ≥ 2`, and the Fischer–Burmeister function built on it (Fukushima, Luo & Tseng,
//! *Smoothing functions for second-order-cone complementarity problems*, SIAM J. Optim. 12
//! (2001) 436–460).
//!
//! * Jordan product `x∘y = (x·y, x₀ȳ + y₀x̄)`, identity `e = (1, 0, …, 0)`, arrow matrix
//!   `L_x = [[x₀, x̄ᵀ], [x̄, x₀ I]]` with `x∘y = L_x y`.
//! * Spectral decomposition `x = λ₁u₁ + λ₂u₂`, `λ_{1,2} = x₀ ∓ ‖x̄‖`,
//!   `u_{1,2} = ½(1, ∓ŵ)`, `ŵ = x̄/‖x̄‖` (any unit vector when `x̄ = 0`; this module takes the
//!   first tangential axis). `x ∈ L ⟺ λ₁ ≥ 0`.
//! * `x² = x∘x = (‖x‖², 2x₀x̄)`, and for `x ∈ L`, `x^{1/2} = √λ₁ u₁ + √λ₂ u₂`.
//! * `φ_FB(x, y) = x + y − (x² + y²)^{1/2}`, which vanishes exactly when
//!   `L ∋ x ⊥ y ∈ L` (FLT 2001, Prop. 2.1).
//!
//! All functions work on stack buffers of [`MAX_LEN`] entries (the cones' `MAX_DIM`; a
//! compile-time check in `cone.rs` keeps them equal) and never allocate: they run per contact
//! per iteration. The cone-level function built on them, `φ_FB(a∘r, b∘ũ)` of a cone with a
//! `SocMap`, lives with the cones (`Cone::fischer_burmeister`).

/// The longest vector these functions take.
pub const MAX_LEN: usize = 6;

const MD: usize = MAX_LEN;
const MD2: usize = MAX_LEN * MAX_LEN;

/// The Jordan product `out = x∘y = (x·y, x₀ȳ + y₀x̄)`.
pub fn product(x: &[f64], y: &[f64], out: &mut [f64]) {
    let d = x.len();
    out[0] = x.iter().zip(y).map(|(a, b)| a * b).sum();
    for i in 1..d {
        out[i] = x[0] * y[i] + y[0] * x[i];
    }
}

/// The Jordan square `out = x² = (‖x‖², 2x₀x̄)`.
pub fn square(x: &[f64], out: &mut [f64]) {
    product(x, x, out);
}

/// The spectral decomposition `x = λ₁u₁ + λ₂u₂`: returns `(λ₁, λ₂)` (`λ₁ ≤ λ₂`) and writes the
/// spectral vectors `u₁ = ½(1, −ŵ)`, `u₂ = ½(1, ŵ)`, `ŵ = x̄/‖x̄‖` (the first tangential axis
/// when `x̄ = 0`).
pub fn spectral(x: &[f64], u1: &mut [f64], u2: &mut [f64]) -> (f64, f64) {
    let d = x.len();
    let nb = x[1..].iter().map(|v| v * v).sum::<f64>().sqrt();
    u1[0] = 0.5;
    u2[0] = 0.5;
    for i in 1..d {
        let w = if nb > 0.0 { x[i] / nb } else { f64::from(u8::from(i == 1)) };
        u1[i] = -0.5 * w;
        u2[i] = 0.5 * w;
    }
    (x[0] - nb, x[0] + nb)
}

/// The square root `out = x^{1/2} = √λ₁ u₁ + √λ₂ u₂` of `x ∈ L`, the unique `z ∈ L` with
/// `z² = x`. A slightly infeasible `x` (λ₁ < 0 from rounding) is treated as λ₁ = 0.
pub fn sqrt(x: &[f64], out: &mut [f64]) {
    let d = x.len();
    let nb = x[1..].iter().map(|v| v * v).sum::<f64>().sqrt();
    let s1 = (x[0] - nb).max(0.0).sqrt();
    let s2 = (x[0] + nb).max(0.0).sqrt();
    let z0 = 0.5 * (s1 + s2);
    out[0] = z0;
    // z̄ = ½(√λ₂ − √λ₁) ŵ; equal to x̄/(2 z₀) without the cancellation.
    for i in 1..d {
        out[i] = if z0 > 0.0 { x[i] / (2.0 * z0) } else { 0.0 };
    }
}

/// The Fischer–Burmeister function of the Lorentz cone, `φ = x + y − (x² + y²)^{1/2}`, and,
/// when asked, an element `(∂φ/∂x, ∂φ/∂y)` of its B-subdifferential (row-major `d×d` each).
///
/// With `w = x² + y² = λ₁u₁ + λ₂u₂` and `z = w^{1/2}`:
///
/// * `w ∈ int L` (λ₁ > 0): φ is smooth and `∂φ/∂x = I − L_z⁻¹L_x` (FLT 2001), evaluated in the
///   stable spectral form `I − 2u₁ r_xᵀ − (2/√λ₂) u₂ (x∘u₂)ᵀ − (2/(√λ₁+√λ₂)) P⊥ L_x` with
///   `r_x = (x∘u₁)/√λ₁` (bounded: ‖r_x‖ ≤ 1/√2) and `P⊥ = 0 ⊕ (I − ŵŵᵀ)`;
/// * `w ∈ bd L`, `w ≠ 0` (λ₁ = 0; then `x`, `y` are multiples of `u₂`): not differentiable; we
///   return `r_x = r_y = u₁/√2` in the formula above, the limit of the Jacobians along the
///   smooth path `(x + εu₁, y + εu₁)`, `ε ↓ 0` (on which λ₁(w) = 2ε², `x∘u₁ = εu₁`), hence an
///   element of the B-subdifferential (a path `(x + εa u₁, y + εb u₁)` gives
///   `r_x = a u₁/√(a²+b²)`, `r_y = b u₁/√(a²+b²)`: the set is not a singleton);
/// * `w = 0` (x = y = 0): φ is positively homogeneous, so the Jacobian at the smooth point
///   `(e, e)` is a B-subdifferential element: `∂φ/∂x = ∂φ/∂y = (1 − 1/√2) I`, the classical
///   scalar choice.
pub fn fb_soc(x: &[f64], y: &[f64], phi: &mut [f64], jac: Option<(&mut [f64], &mut [f64])>) {
    // The same source compiled for each constant length (the same operations: the same bits).
    match x.len() {
        2 => fb_soc_with(2, x, y, phi, jac),
        3 => fb_soc_with(3, x, y, phi, jac),
        4 => fb_soc_with(4, x, y, phi, jac),
        _ => fb_soc_dyn(x, y, phi, jac),
    }
}

/// [`fb_soc`] for any length, not specialised (the reference of the specialised versions).
#[inline(never)]
fn fb_soc_dyn(x: &[f64], y: &[f64], phi: &mut [f64], jac: Option<(&mut [f64], &mut [f64])>) {
    fb_soc_with(x.len(), x, y, phi, jac)
}

#[inline(always)]
fn fb_soc_with(d: usize, x: &[f64], y: &[f64], phi: &mut [f64], jac: Option<(&mut [f64], &mut [f64])>) {
    let (x, y, phi) = (&x[..d], &y[..d], &mut phi[..d]);
    // w = x² + y².
    let mut w = [0.0; MD];
    w[0] = x.iter().chain(y).map(|v| v * v).sum();
    for i in 1..d {
        w[i] = 2.0 * (x[0] * x[i] + y[0] * y[i]);
    }
    let nw = w[1..d].iter().map(|v| v * v).sum::<f64>().sqrt();
    // Frame of w.
    let mut wh = [0.0; MD];
    for i in 1..d {
        wh[i] = if nw > 0.0 { w[i] / nw } else { f64::from(u8::from(i == 1)) };
    }
    // λ₁ computed as 2u₁·w = 2(u₁·x² + u₁·y²) = Σ_{v∈{x,y}} 4(u₁·v)² + ‖P½ v‖², a sum of
    // squares (no cancellation), consistent with the numerators x∘u₁ below.
    let peirce = |v: &[f64], mid: &mut [f64]| -> f64 {
        // Returns u₁·v, writes the middle Peirce component v̄ − (ŵ·v̄)ŵ.
        let c: f64 = (1..d).map(|i| wh[i] * v[i]).sum();
        for i in 1..d {
            mid[i] = v[i] - c * wh[i];
        }
        0.5 * (v[0] - c)
    };
    let (mut xm, mut ym) = ([0.0; MD], [0.0; MD]);
    let ax = peirce(x, &mut xm);
    let ay = peirce(y, &mut ym);
    let nxm: f64 = xm[1..d].iter().map(|v| v * v).sum();
    let nym: f64 = ym[1..d].iter().map(|v| v * v).sum();
    let lam1 = 4.0 * (ax * ax + ay * ay) + nxm + nym;
    let lam2 = w[0] + nw;
    let (s1, s2) = (lam1.sqrt(), lam2.sqrt());
    // z = √λ₁ u₁ + √λ₂ u₂.
    let z0 = 0.5 * (s1 + s2);
    phi[0] = x[0] + y[0] - z0;
    for i in 1..d {
        let zi = 0.5 * (s2 - s1) * wh[i];
        phi[i] = x[i] + y[i] - zi;
    }
    let Some((jx, jy)) = jac else { return };
    if lam2 <= 0.0 {
        let c = 1.0 - std::f64::consts::FRAC_1_SQRT_2;
        for i in 0..d {
            for j in 0..d {
                let v = if i == j { c } else { 0.0 };
                jx[i * d + j] = v;
                jy[i * d + j] = v;
            }
        }
        return;
    }
    let mut u1 = [0.0; MD];
    let mut u2 = [0.0; MD];
    u1[0] = 0.5;
    u2[0] = 0.5;
    for i in 1..d {
        u1[i] = -0.5 * wh[i];
        u2[i] = 0.5 * wh[i];
    }
    let a = 1.0 / (s1 + s2);
    for (v, mid, av, jac) in [(x, &xm, ax, jx), (y, &ym, ay, jy)] {
        // r = (v∘u₁)/√λ₁ with v∘u₁ = 2(u₁·v)u₁ + ½ P½v.
        let mut r = [0.0; MD];
        if lam1 > 0.0 {
            for i in 0..d {
                r[i] = (2.0 * av * u1[i] + 0.5 * mid[i]) / s1;
            }
        } else {
            for i in 0..d {
                r[i] = std::f64::consts::FRAC_1_SQRT_2 * u1[i];
            }
        }
        let mut vu2 = [0.0; MD];
        product(v, &u2[..d], &mut vu2[..d]);
        // L_v (arrow matrix), then P⊥ L_v.
        let mut lv = [0.0; MD2];
        for i in 0..d {
            for j in 0..d {
                lv[i * d + j] = if i == 0 {
                    v[j]
                } else if j == 0 {
                    v[i]
                } else if i == j {
                    v[0]
                } else {
                    0.0
                };
            }
        }
        for j in 0..d {
            // column j of P⊥ L_v: row 0 is 0, rows 1.. are (I − ŵŵᵀ)(L_v)_{1..,j}.
            let c: f64 = (1..d).map(|i| wh[i] * lv[i * d + j]).sum();
            for i in 0..d {
                let p = if i == 0 { 0.0 } else { lv[i * d + j] - c * wh[i] };
                let delta = f64::from(u8::from(i == j));
                jac[i * d + j] = delta - 2.0 * u1[i] * r[j] - 2.0 / s2 * u2[i] * vu2[j] - 2.0 * a * p;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fd_check(x: &[f64], y: &[f64]) -> f64 {
        let d = x.len();
        let (mut jx, mut jy) = ([0.0; MD2], [0.0; MD2]);
        let mut phi = [0.0; MD];
        fb_soc(x, y, &mut phi[..d], Some((&mut jx[..d * d], &mut jy[..d * d])));
        let mut worst = 0.0f64;
        for (which, jac) in [(0, &jx), (1, &jy)] {
            for j in 0..d {
                let h = 1e-6;
                let (mut xp, mut yp) = ([0.0; MD], [0.0; MD]);
                xp[..d].copy_from_slice(x);
                yp[..d].copy_from_slice(y);
                let (mut fp, mut fm) = ([0.0; MD], [0.0; MD]);
                if which == 0 {
                    xp[j] += h;
                } else {
                    yp[j] += h;
                }
                fb_soc(&xp[..d], &yp[..d], &mut fp[..d], None);
                if which == 0 {
                    xp[j] -= 2.0 * h;
                } else {
                    yp[j] -= 2.0 * h;
                }
                fb_soc(&xp[..d], &yp[..d], &mut fm[..d], None);
                for i in 0..d {
                    worst = worst.max(((fp[i] - fm[i]) / (2.0 * h) - jac[i * d + j]).abs());
                }
            }
        }
        worst
    }

    #[test]
    fn specialised_fb_soc_matches_the_generic_one_bit_for_bit() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for d in 2..=MD {
            for trial in 0..1000 {
                let mut x: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
                let mut y: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
                match trial % 6 {
                    0 => x[1..].iter_mut().for_each(|v| *v = 0.0),
                    1 => y.iter_mut().for_each(|v| *v = 0.0),
                    2 => {
                        // Both on the boundary ray of u₂ (λ₁ = 0).
                        x[0] = x[1..].iter().map(|v| v * v).sum::<f64>().sqrt();
                        for i in 0..d {
                            y[i] = 0.5 * x[i];
                        }
                    }
                    3 => {
                        x.iter_mut().for_each(|v| *v = 0.0);
                        y.iter_mut().for_each(|v| *v = 0.0);
                    }
                    _ => {}
                }
                let mut out = Vec::new();
                for fixed in [true, false] {
                    let (mut phi, mut jx, mut jy, mut phi0) =
                        (vec![0.0; d], vec![0.0; d * d], vec![0.0; d * d], vec![0.0; d]);
                    let f = if fixed { fb_soc } else { fb_soc_dyn };
                    f(&x, &y, &mut phi, Some((&mut jx, &mut jy)));
                    f(&x, &y, &mut phi0, None);
                    assert_eq!(bits(&phi), bits(&phi0));
                    out.push((bits(&phi), bits(&jx), bits(&jy)));
                }
                assert_eq!(out[0], out[1], "d = {d}, x = {x:?}, y = {y:?}");
            }
        }
    }

    #[test]
    fn spectral_square_and_sqrt_are_consistent() {
        let x = [2.0, 0.3, -1.2, 0.5];
        let (mut u1, mut u2) = ([0.0; 4], [0.0; 4]);
        let (l1, l2) = spectral(&x, &mut u1, &mut u2);
        for i in 0..4 {
            assert!((l1 * u1[i] + l2 * u2[i] - x[i]).abs() < 1e-15);
        }
        let mut x2 = [0.0; 4];
        square(&x, &mut x2);
        let mut z = [0.0; 4];
        sqrt(&x2, &mut z);
        for i in 0..4 {
            assert!((z[i] - x[i]).abs() < 1e-14, "{z:?} vs {x:?}");
        }
        // u1∘u2 = 0, u1² = u1.
        let mut p = [0.0; 4];
        product(&u1, &u2, &mut p);
        assert!(p.iter().all(|v| v.abs() < 1e-16));
        product(&u1, &u1, &mut p);
        assert!(p.iter().zip(&u1).all(|(a, b)| (a - b).abs() < 1e-16));
    }

    #[test]
    fn fb_vanishes_on_complementary_pairs_and_not_elsewhere() {
        let mut phi = [0.0; 3];
        // x on bd L, y on bd L, orthogonal: x = (1, 1, 0), y = (2, −2, 0).
        fb_soc(&[1.0, 1.0, 0.0], &[2.0, -2.0, 0.0], &mut phi, None);
        assert!(phi.iter().all(|v| v.abs() < 1e-14), "{phi:?}");
        fb_soc(&[1.0, 0.2, 0.3], &[0.0; 3], &mut phi, None);
        assert!(phi.iter().all(|v| v.abs() < 1e-14), "{phi:?}");
        fb_soc(&[1.0, 0.2, 0.3], &[1.0, 0.0, 0.0], &mut phi, None);
        assert!(phi.iter().any(|v| v.abs() > 1e-3), "{phi:?}");
    }

    #[test]
    fn fb_jacobian_matches_differences_at_smooth_points() {
        for (x, y) in [
            ([1.0, 0.3, -0.2], [0.5, 0.1, 0.4]),
            ([-0.3, 1.3, 0.2], [0.7, -0.2, 0.9]),
            ([0.1, 0.0, 0.0], [0.2, 0.0, 0.0]),
        ] {
            assert!(fd_check(&x, &y) < 1e-7, "{x:?} {y:?}");
        }
        assert!(fd_check(&[0.4, 0.1, 0.2, -0.3], &[-0.2, 0.5, 0.1, 0.3]) < 1e-7);
    }

    #[test]
    fn fb_boundary_choice_is_a_limit_of_jacobians() {
        // x = 2u₂, y = 0: w = x² on bd L. Our element is the limit along (x + εu₁, y + εu₁):
        // compare with the Jacobian there for small ε.
        let x = [1.0, 1.0, 0.0];
        let y = [0.0; 3];
        let mut phi = [0.0; 3];
        let (mut jx, mut jy) = ([0.0; 9], [0.0; 9]);
        fb_soc(&x, &y, &mut phi, Some((&mut jx, &mut jy)));
        let eps = 1e-9;
        let u1 = [0.5, -0.5, 0.0];
        let xe: Vec<f64> = x.iter().zip(&u1).map(|(a, b)| a + eps * b).collect();
        let ye: Vec<f64> = u1.iter().map(|b| eps * b).collect();
        let (mut kx, mut ky) = ([0.0; 9], [0.0; 9]);
        fb_soc(&xe, &ye, &mut phi, Some((&mut kx, &mut ky)));
        for k in 0..9 {
            assert!((jx[k] - kx[k]).abs() < 1e-6 && (jy[k] - ky[k]).abs() < 1e-6, "{jx:?} {kx:?}");
        }
        // At the origin: (1 − 1/√2) I.
        fb_soc(&[0.0; 3], &[0.0; 3], &mut phi, Some((&mut jx, &mut jy)));
        assert!((jx[0] - (1.0 - 0.5f64.sqrt())).abs() < 1e-15 && jx[1] == 0.0);
    }
}
