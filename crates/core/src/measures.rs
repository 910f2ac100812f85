//! Error measures, exactly as Siconos numerics scores solutions (`design/SUITES.md`), so
//! that "solved at tol 1e-8" means the same here and there. They are computed from the
//! returned vectors only.

/// Higham's `γ_k = k ε / (1 − k ε)`: the relative rounding a sum of k terms may carry
/// (`|fl(aᵀx) − aᵀx| ≤ γ_k |a|ᵀ|x|`, *Accuracy and Stability of Numerical Algorithms* §3.1).
pub fn gamma(k: usize) -> f64 {
    let ke = k as f64 * f64::EPSILON;
    ke / (1.0 - ke).max(0.5)
}

/// Euclidean norm, without overflow or underflow: the plain sum of squares when it lies in
/// [1e-280, 1e280] (bit for bit the naive norm there), else rescaled by the largest entry. An
/// answer that ran off to 1e155 has a finite norm, so the relative measures dividing by it do
/// not read `x / ∞ = 0` as "solved".
///
/// ```
/// use perp_core::measures::norm2;
/// assert_eq!(norm2(&[3.0, 4.0]), 5.0);
/// assert!((norm2(&[3e200, 4e200]) / 5e200 - 1.0).abs() < 1e-15);
/// assert!((norm2(&[3e-200, 4e-200]) / 5e-200 - 1.0).abs() < 1e-15);
/// assert_eq!(norm2(&[0.0, 0.0]), 0.0);
/// ```
#[inline]
pub fn norm2(v: &[f64]) -> f64 {
    let s = v.iter().map(|x| x * x).sum::<f64>();
    if (1e-280..=1e280).contains(&s) {
        return s.sqrt();
    }
    if s.is_nan() {
        return f64::NAN;
    }
    let m = norm_inf(v);
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    m * v.iter().map(|x| (x / m) * (x / m)).sum::<f64>().sqrt()
}

/// Max-norm (0 for an empty slice; NaN if any entry is NaN).
#[inline]
pub fn norm_inf(v: &[f64]) -> f64 {
    max_abs(v.iter().copied())
}

/// Siconos' LCP error: `‖min(z, w)‖₂`, divided by `‖q‖₂` when `‖q‖₂ > ε` (machine epsilon),
/// with `w = M z + q` computed by the caller from the returned `z`.
///
/// ```
/// use perp_core::measures::lcp_error;
/// // z = (1, 0), w = (0, 2): complementary, error 0.
/// assert_eq!(lcp_error(&[-1.0, 2.0], &[1.0, 0.0], &[0.0, 2.0]), 0.0);
/// // z = (1, 0), w = (0.5, 2): ‖min‖ = 0.5, ‖q‖ = √5.
/// assert!((lcp_error(&[-1.0, 2.0], &[1.0, 0.0], &[0.5, 2.0]) - 0.5 / 5f64.sqrt()).abs() < 1e-15);
/// ```
pub fn lcp_error(q: &[f64], z: &[f64], w: &[f64]) -> f64 {
    let s: f64 = z.iter().zip(w).map(|(a, b)| a.min(*b).powi(2)).sum();
    normalize(s.sqrt(), norm2(q))
}

/// `‖min(z, w)‖∞`, the absolute LCP residual (NaN if any entry is NaN).
pub fn lcp_residual_inf(z: &[f64], w: &[f64]) -> f64 {
    max_abs(z.iter().zip(w).map(|(a, b)| a.min(*b)))
}

/// `‖box_residual(z, w, lo, hi)‖∞` without building the vector.
pub fn box_residual_inf(z: &[f64], w: &[f64], lo: &[f64], hi: &[f64]) -> f64 {
    max_abs((0..z.len()).map(|i| box_residual_at(i, z, w, lo, hi)))
}

#[inline]
fn box_residual_at(i: usize, z: &[f64], w: &[f64], lo: &[f64], hi: &[f64]) -> f64 {
    z[i] - (z[i] - w[i]).max(lo[i]).min(hi[i])
}

fn max_abs(it: impl Iterator<Item = f64>) -> f64 {
    it.fold(0.0, |a: f64, x| if x.is_nan() || a.is_nan() { f64::NAN } else { a.max(x.abs()) })
}

/// The natural-map residual of a box-LCP (lo ≤ z ≤ hi, w = Mz + q in the normal cone):
/// `rᵢ = zᵢ − mid(loᵢ, hiᵢ, zᵢ − wᵢ)`. With lo = 0, hi = ∞ it is `min(z, w)`.
pub fn box_residual(z: &[f64], w: &[f64], lo: &[f64], hi: &[f64]) -> Vec<f64> {
    (0..z.len()).map(|i| box_residual_at(i, z, w, lo, hi)).collect()
}

/// The box-LCP error: `‖box_residual‖₂ / ‖q‖₂` (when `‖q‖₂ > ε`), which reduces to
/// [`lcp_error`] for lo = 0, hi = ∞. Siconos has no box-LCP measure; this is its natural
/// extension.
pub fn box_lcp_error(q: &[f64], z: &[f64], w: &[f64], lo: &[f64], hi: &[f64]) -> f64 {
    let s: f64 = (0..z.len()).map(|i| box_residual_at(i, z, w, lo, hi).powi(2)).sum();
    normalize(s.sqrt(), norm2(q))
}

/// Siconos' NCP error `‖min(z, F(z))‖₂`, not normalized.
pub fn ncp_error(z: &[f64], f: &[f64]) -> f64 {
    z.iter().zip(f).map(|(a, b)| a.min(*b).powi(2)).sum::<f64>().sqrt()
}

/// Siconos' MCP error with `n_eq` equality rows first: `‖F_eq‖₂ + ‖min(z, F)‖₂` over the
/// complementarity rows.
pub fn mcp_error(n_eq: usize, z: &[f64], f: &[f64]) -> f64 {
    norm2(&f[..n_eq]) + ncp_error(&z[n_eq..], &f[n_eq..])
}

/// Siconos' frictional-contact error (2-D and 3-D Coulomb, `design/SUITES.md`): with
/// `u = W r + q` computed by the caller, per contact the De Saxcé-modified velocity
/// `ũ = (u_N + μ‖u_T‖, u_T)` and `e = r − P_K(r − ũ)`, K the Coulomb cone `‖r_T‖ ≤ μ r_N`;
/// `err = √(Σ‖e‖²) / s` with `s = max(‖q‖₂, ‖r‖₂, ‖u‖₂)` when `s > ε`. `dim` is 2 or 3;
/// the slices have length `dim · mu.len()`.
///
/// ```
/// use perp_core::measures::friction_contact_error;
/// // One 3-D contact sticking: r inside the cone, u = 0.
/// assert_eq!(friction_contact_error(3, &[1.0, 0.0, 0.0], &[0.5], &[2.0, 0.3, 0.0], &[0.0; 3]), 0.0);
/// // Taking off: r = 0, u_N > 0.
/// assert_eq!(friction_contact_error(3, &[1.0, 0.0, 0.0], &[0.5], &[0.0; 3], &[1.0, 0.0, 0.0]), 0.0);
/// ```
pub fn friction_contact_error(dim: usize, q: &[f64], mu: &[f64], r: &[f64], u: &[f64]) -> f64 {
    let mut sum = 0.0;
    let mut x = [0.0; 3];
    for (i, &m) in mu.iter().enumerate() {
        let (ri, ui) = (&r[dim * i..dim * (i + 1)], &u[dim * i..dim * (i + 1)]);
        let ut = norm2(&ui[1..]);
        x[0] = ri[0] - (ui[0] + m * ut);
        for k in 1..dim {
            x[k] = ri[k] - ui[k];
        }
        // P_K(x), Siconos' closed form.
        let xt = norm2(&x[1..dim]);
        let mut p = [0.0; 3];
        if m * xt <= -x[0] {
            // polar: P = 0 (tested first, as Siconos does)
        } else if xt <= m * x[0] {
            p[..dim].copy_from_slice(&x[..dim]);
        } else {
            let a = (m * xt + x[0]) / (m * m + 1.0);
            p[0] = a;
            for k in 1..dim {
                p[k] = m * a * x[k] / xt;
            }
        }
        sum += (0..dim).map(|k| (ri[k] - p[k]).powi(2)).sum::<f64>();
    }
    let s = norm2(q).max(norm2(r)).max(norm2(u));
    normalize(sum.sqrt(), s)
}

/// The largest physical figure (`SolveReport::physical_error`) a `Solved` answer may have at
/// tolerance `tol`: `max(10·tol, 1e-4)`.
///
/// The physical figures are relative to the problem's own force and velocity scales, the peer
/// measures (`error`) are not: they add forces and velocities as if they had the same unit, so
/// the ratio of the two figures is the problem's unit ratio and no multiple of `tol` bounds the
/// physical figure of an answer the peer measure accepts. Issue 15's sweep
/// (`tests/honest_sweep.rs`, with `suite_physical_figures` for the whole Siconos
/// fc2d/fc3d suite) measured it at tol 1e-8: answers solved to tol reach 9.5e-5 with W scaled
/// by 1e±8 and 3.2e-5 unscaled (apgd on Confeti-ex03; the others ≤ 4.9e-6), while the wrong
/// answers it found (forces outside the cone, penetration, complementarity) start at 1.2e-3.
/// The bound sits in that gap: it refuses every wrong answer found and no answer that a
/// solver's own accuracy explains. Held to tol itself it would refuse most answers on scaled
/// data, which the solvers stop on the peer measure and do not rescale.
pub fn physical_bound(tol: f64) -> f64 {
    (10.0 * tol).max(1e-4)
}

/// The physical figure of an LCP answer (`0 ≤ z ⊥ w = Mz + q ≥ 0`), in the problem's own
/// scales: `max_i |min(z_i / Z, w_i / V)|` with `Z = ‖z‖` and `V = max(‖q‖, ‖w‖) + ρ`, ρ the
/// rounding that computing w = Mz + q may leave in w (`rounding`, from
/// [`Matrix::rounding_bound`](crate::Matrix::rounding_bound)). Negative parts are
/// infeasibility, positive ones a pair that is not complementary, each in its own unit.
/// Unchanged under `M → s_M M`, `q → s_q q` (the answer moves to `z s_q/s_M`), unlike Siconos'
/// `‖min(z, w)‖/‖q‖`, which compares z with w as if they had one unit: with M scaled by 1e8,
/// fb-newton's answers 20–50 % off in z pass it at 1e-9 (issue 15). Absolute when `V ≤ ε` (a
/// problem of round-off dust). V is the data's scale, not the iterate's: until issue 36 it
/// held `max|M|·‖z‖`, which grows with a z running off along M's null space (an LCP without
/// a solution) and made every figure vanish like 1/‖z‖.
///
/// ```
/// use perp_core::measures::lcp_physical_error;
/// // M = 1e8·I, q = (−1e8, 1): z = (1, 0) is the answer; z = (0.5, 0) is half wrong.
/// assert_eq!(lcp_physical_error(0.0, &[-1e8, 1.0], &[1.0, 0.0], &[0.0, 1.0]), 0.0);
/// assert!((lcp_physical_error(0.0, &[-1e8, 1.0], &[0.5, 0.0], &[-0.5e8, 1.0]) - 0.5).abs() < 1e-12);
/// ```
pub fn lcp_physical_error(rounding: f64, q: &[f64], z: &[f64], w: &[f64]) -> f64 {
    let zn = norm2(z);
    let v = norm2(q).max(norm2(w)) + rounding;
    // A scale that overflows belongs to an answer that ran off, not to a solution.
    if !(zn.is_finite() && v.is_finite()) {
        return f64::NAN;
    }
    let dust = v <= f64::EPSILON;
    let rel = |x: f64, s: f64| if x == 0.0 || x.is_nan() || dust || s <= 0.0 { x } else { x / s };
    max_abs(z.iter().zip(w).map(|(&a, &b)| rel(a, zn).min(rel(b, v))))
}

/// The physical figure of a box-LCP answer (`l ≤ z ≤ u`, `w = Mz + q` in the normal cone of
/// the box at z), in the problem's own scales, as [`lcp_physical_error`] is for the LCP (to
/// which it reduces for `l = 0`, `u = ∞`): per index the bound violation `/Z`, and the
/// smallest of the three ways to be complementary — at the lower bound (`(z − l)/Z` and
/// `w⁻/V`), at the upper bound (`(u − z)/Z` and `w⁺/V`) or inside (`|w|/V`); the largest over
/// the indices. `Z = max(‖z‖, max |finite bound|)`, `V = max(‖q‖, ‖w‖) + ρ` (`rounding`, as in
/// [`lcp_physical_error`]); absolute when `V ≤ ε`. Unchanged under `M → s_M M`, `q → s_q q`, bounds `→ (s_q/s_M)·bounds`, unlike
/// [`box_lcp_error`], which compares z with w as if they had one unit.
///
/// ```
/// use perp_core::measures::box_lcp_physical_error;
/// let inf = f64::INFINITY;
/// // M = 1e8·I, q = (−2e8, 1), z in [−1, 1] × [0, ∞): z = (1, 0) with w = (−1e8, 1) is the answer
/// // (at the upper bound, w ≤ 0); z = (0.5, 0) is inside with w ≠ 0: half wrong.
/// let (lo, hi) = ([-1.0, 0.0], [1.0, inf]);
/// assert_eq!(box_lcp_physical_error(0.0, &[-2e8, 1.0], &lo, &hi, &[1.0, 0.0], &[-1e8, 1.0]), 0.0);
/// let half = box_lcp_physical_error(0.0, &[-2e8, 1.0], &lo, &hi, &[0.5, 0.0], &[-1.5e8, 1.0]);
/// assert!(half > 0.4, "{half}");
/// ```
pub fn box_lcp_physical_error(rounding: f64, q: &[f64], lo: &[f64], hi: &[f64], z: &[f64], w: &[f64]) -> f64 {
    let zn = norm2(z);
    let finite = lo.iter().chain(hi).filter(|b| b.is_finite()).fold(0.0_f64, |a, b| a.max(b.abs()));
    let zs = zn.max(finite);
    let v = norm2(q).max(norm2(w)) + rounding;
    // A scale that overflows belongs to an answer that ran off, not to a solution.
    if !(zs.is_finite() && v.is_finite()) {
        return f64::NAN;
    }
    let dust = v <= f64::EPSILON;
    let rel = |x: f64, s: f64| relative_part(x, s, dust);
    let mut worst = 0.0_f64;
    for i in 0..z.len() {
        let infeasible = rel(lo[i] - z[i], zs).max(rel(z[i] - hi[i], zs));
        let at_lower =
            if lo[i].is_finite() { rel(z[i] - lo[i], zs).max(rel(-w[i], v)) } else { f64::INFINITY };
        let at_upper =
            if hi[i].is_finite() { rel(hi[i] - z[i], zs).max(rel(w[i], v)) } else { f64::INFINITY };
        let fig = infeasible.max(at_lower.min(at_upper).min(rel(w[i].abs(), v)));
        if fig.is_nan() {
            return f64::NAN;
        }
        worst = worst.max(fig);
    }
    worst
}

/// The positive part of a violation `x` relative to `scale`, as the physical figures measure
/// it: NaN stays NaN, `x ≤ 0` (no violation) is 0, and `x` stays absolute when the problem is
/// round-off dust (`dust`) or the scale is 0 (then x is 0 too, up to underflow).
pub fn relative_part(x: f64, scale: f64, dust: bool) -> f64 {
    if x.is_nan() {
        f64::NAN
    } else if x <= 0.0 {
        0.0
    } else if dust || scale <= 0.0 {
        x
    } else {
        x / scale
    }
}

/// `err / scale` when `scale > ε` (machine epsilon), else `err`: the normalisation Siconos applies.
pub fn normalize(err: f64, scale: f64) -> f64 {
    if scale > f64::EPSILON {
        err / scale
    } else {
        err
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcp_error_matches_the_projection_form() {
        // ‖min(z,w)‖ = ‖z − max(0, z − w)‖ (SUITES.md).
        let z: [f64; 4] = [0.3, 0.0, 2.0, 1.0];
        let w: [f64; 4] = [0.0, -0.5, 1.0, 4.0];
        let q = [1.0, 1.0, 1.0, 1.0];
        let alt: Vec<f64> = z.iter().zip(&w).map(|(a, b)| a - (a - b).max(0.0)).collect();
        assert!((lcp_error(&q, &z, &w) - norm2(&alt) / 2.0).abs() < 1e-15);
        assert_eq!(lcp_residual_inf(&z, &w), 1.0);
    }

    /// With bounds 0 and ∞ the box-LCP figure is the LCP's, bit for bit.
    #[test]
    fn box_figure_reduces_to_the_lcp_figure() {
        let n = 7;
        for seed in 0..50_u64 {
            let val = |i: usize, k: u64| {
                (((seed * 31 + k) * 7919 + i as u64 * 104_729) % 2001) as f64 / 1000.0 - 1.0
            };
            let z: Vec<f64> = (0..n).map(|i| val(i, 1)).collect();
            let w: Vec<f64> = (0..n).map(|i| 1e3 * val(i, 2)).collect();
            let q: Vec<f64> = (0..n).map(|i| val(i, 3)).collect();
            let (lo, hi) = (vec![0.0; n], vec![f64::INFINITY; n]);
            let a = lcp_physical_error(2.5e-15, &q, &z, &w);
            let b = box_lcp_physical_error(2.5e-15, &q, &lo, &hi, &z, &w);
            assert_eq!(a.to_bits(), b.to_bits(), "seed {seed}: {a} vs {b}");
        }
    }

    #[test]
    fn unnormalized_when_q_vanishes() {
        assert_eq!(lcp_error(&[0.0, 0.0], &[3.0, 0.0], &[4.0, 0.0]), 3.0);
    }

    #[test]
    fn box_residual_reduces_to_min_map() {
        let z = [0.3, 0.0, 2.0];
        let w = [0.0, -0.5, 1.0];
        let inf = f64::INFINITY;
        let r = box_residual(&z, &w, &[0.0; 3], &[inf; 3]);
        let m: Vec<f64> = z.iter().zip(&w).map(|(a, b)| a.min(*b)).collect();
        assert_eq!(r, m);
        assert_eq!(box_residual_inf(&z, &w, &[0.0; 3], &[inf; 3]), lcp_residual_inf(&z, &w));
        // At the upper bound with w < 0 the box residual vanishes.
        assert_eq!(box_residual(&[1.0], &[-3.0], &[-1.0], &[1.0]), vec![0.0]);
    }

    #[test]
    fn mcp_error_adds_equality_norm() {
        assert_eq!(mcp_error(1, &[5.0, 0.0], &[3.0, 4.0]), 3.0);
    }
}
