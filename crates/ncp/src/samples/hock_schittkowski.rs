//! The KKT systems of Hock–Schittkowski 1981 problems 14, 35, 43, 71 and 76, written as MCPs
//! with the Lagrangian `L = f − λᵀg − μᵀh`.

use super::*;

/// The KKT system of Hock–Schittkowski problem 14: `min (x₁ − 2)² + (x₂ − 1)²` s.t.
/// `h = x₁ − 2x₂ + 1 = 0`, `g = 1 − x₁²/4 − x₂² ≥ 0`; variables z = (x₁, x₂, μ, λ):
///
/// ```text
/// F₁ = 2(x₁ − 2) − μ + λx₁/2      (x₁ free)
/// F₂ = 2(x₂ − 1) + 2μ + 2λx₂      (x₂ free)
/// F₃ = x₁ − 2x₂ + 1               (μ free)
/// F₄ = 1 − x₁²/4 − x₂²            (λ ≥ 0)
/// ```
///
/// Optimum x* = ((√7 − 1)/2, (√7 + 1)/4), f* = 9 − 23√7/8; μ* ≈ −1.5945, λ* ≈ 1.8466.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hs14;

impl NcpFunction for Hs14 {
    fn dim(&self) -> usize {
        4
    }
    fn eval(&self, z: &[f64], f: &mut [f64]) {
        let (x1, x2, mu, lam) = (z[0], z[1], z[2], z[3]);
        f[0] = 2.0 * (x1 - 2.0) - mu + 0.5 * lam * x1;
        f[1] = 2.0 * (x2 - 1.0) + 2.0 * mu + 2.0 * lam * x2;
        f[2] = x1 - 2.0 * x2 + 1.0;
        f[3] = 1.0 - 0.25 * x1 * x1 - x2 * x2;
    }
    fn jacobian(&self, z: &[f64], j: MatMut<'_, f64>) {
        let (x1, x2, lam) = (z[0], z[1], z[3]);
        fill(
            j,
            &[
                [2.0 + 0.5 * lam, 0.0, -1.0, 0.5 * x1],
                [0.0, 2.0 + 2.0 * lam, 2.0, 2.0 * x2],
                [1.0, -2.0, 0.0, 0.0],
                [-0.5 * x1, -2.0 * x2, 0.0, 0.0],
            ],
        );
    }
}

/// The HS 14 KKT sample: starts (2, 2, 0, 0) (HS's x⁰) and 100·1; bounds: x and μ free, λ ≥ 0.
///
/// ```
/// let s = perp_ncp::samples::hs14();
/// assert!((s.solutions[0][0] - 0.5 * (7f64.sqrt() - 1.0)).abs() < 1e-15);
/// ```
pub fn hs14() -> Sample {
    let free = f64::NEG_INFINITY;
    mcp_sample(
        "hs14",
        "Hock-Schittkowski 1981 problem 14 as the MCP of its KKT conditions (free x, an equation, one inequality)",
        Box::new(Hs14),
        (vec![free, free, free, 0.0], vec![f64::INFINITY; 4]),
        vec![vec![2.0, 2.0, 0.0, 0.0], vec![FAR; 4]],
        vec![vec![
            0.5 * (7f64.sqrt() - 1.0),
            0.25 * (7f64.sqrt() + 1.0),
            -1.594491118252307,
            1.8465914396061132,
        ]],
    )
}

/// The affine F(z) = Mz + q of a sample, from row-major M.
pub(super) fn affine(n: usize, m: &[f64], q: &[f64]) -> Box<dyn NcpFunction> {
    // The sample data are constant and square: construction cannot fail.
    Box::new(
        crate::AffineFunction::new(
            perp_core::Matrix::from_row_major(n, n, m).expect("square data"),
            q.to_vec(),
        )
        .expect("consistent data"),
    )
}

/// The HS 35 (Beale) KKT sample, an LCP: `min 9 − 8x₁ − 6x₂ − 4x₃ + 2x₁² + 2x₂² + x₃² + 2x₁x₂
/// + 2x₁x₃` s.t. `3 − x₁ − x₂ − 2x₃ ≥ 0`, x ≥ 0; z = (x, λ):
///
/// ```text
/// F₁ = 4x₁ + 2x₂ + 2x₃ − 8 + λ,  F₂ = 2x₁ + 4x₂ − 6 + λ,  F₃ = 2x₁ + 2x₃ − 4 + 2λ,
/// F₄ = 3 − x₁ − x₂ − 2x₃.
/// ```
///
/// Optimum x* = (4/3, 7/9, 4/9), f* = 1/9, λ* = 2/9. Starts (0.5, 0.5, 0.5, 0) (HS's x⁰) and
/// 100·1.
///
/// ```
/// let s = perp_ncp::samples::hs35();
/// assert_eq!(s.solutions[0], vec![4.0 / 3.0, 7.0 / 9.0, 4.0 / 9.0, 2.0 / 9.0]);
/// ```
pub fn hs35() -> Sample {
    #[rustfmt::skip]
    let m = [
        4.0, 2.0, 2.0, 1.0,
        2.0, 4.0, 0.0, 1.0,
        2.0, 0.0, 2.0, 2.0,
        -1.0, -1.0, -2.0, 0.0,
    ];
    ncp_sample(
        "hs35",
        "Hock-Schittkowski 1981 problem 35 (Beale) as the MCP of its KKT conditions (an LCP)",
        affine(4, &m, &[-8.0, -6.0, -4.0, 3.0]),
        vec![vec![0.5, 0.5, 0.5, 0.0], vec![FAR; 4]],
        vec![vec![4.0 / 3.0, 7.0 / 9.0, 4.0 / 9.0, 2.0 / 9.0]],
    )
}

/// The KKT system of Hock–Schittkowski problem 43 (Rosen–Suzuki):
/// `min x₁² + x₂² + 2x₃² + x₄² − 5x₁ − 5x₂ − 21x₃ + 7x₄` s.t.
///
/// ```text
/// g₁ = 8 − x₁² − x₂² − x₃² − x₄² − x₁ + x₂ − x₃ + x₄ ≥ 0
/// g₂ = 10 − x₁² − 2x₂² − x₃² − 2x₄² + x₁ + x₄ ≥ 0
/// g₃ = 5 − 2x₁² − x₂² − x₃² − 2x₁ + x₂ + x₄ ≥ 0
/// ```
///
/// z = (x, λ) with x free, λ ≥ 0; F = (∇f − Σ λⱼ∇gⱼ, g). Optimum x* = (0, 1, 2, −1),
/// f* = −44, λ* = (1, 0, 2) (exact: F(z*) = (0, 0, 0, 0, 0, 1, 0)).
#[derive(Clone, Copy, Debug, Default)]
pub struct Hs43;

impl Hs43 {
    /// The constraint gradients at x (rows ∇g₁, ∇g₂, ∇g₃).
    pub(super) fn grads(x: &[f64]) -> [[f64; 4]; 3] {
        [
            [-2.0 * x[0] - 1.0, -2.0 * x[1] + 1.0, -2.0 * x[2] - 1.0, -2.0 * x[3] + 1.0],
            [-2.0 * x[0] + 1.0, -4.0 * x[1], -2.0 * x[2], -4.0 * x[3] + 1.0],
            [-4.0 * x[0] - 2.0, -2.0 * x[1] + 1.0, -2.0 * x[2], 1.0],
        ]
    }
}

impl NcpFunction for Hs43 {
    fn dim(&self) -> usize {
        7
    }
    fn eval(&self, z: &[f64], f: &mut [f64]) {
        let (x, lam) = (&z[..4], &z[4..]);
        let df = [2.0 * x[0] - 5.0, 2.0 * x[1] - 5.0, 4.0 * x[2] - 21.0, 2.0 * x[3] + 7.0];
        let dg = Hs43::grads(x);
        for i in 0..4 {
            f[i] = df[i] - (0..3).map(|j| lam[j] * dg[j][i]).sum::<f64>();
        }
        let sq: [f64; 4] = [x[0] * x[0], x[1] * x[1], x[2] * x[2], x[3] * x[3]];
        f[4] = 8.0 - sq.iter().sum::<f64>() - x[0] + x[1] - x[2] + x[3];
        f[5] = 10.0 - sq[0] - 2.0 * sq[1] - sq[2] - 2.0 * sq[3] + x[0] + x[3];
        f[6] = 5.0 - 2.0 * sq[0] - sq[1] - sq[2] - 2.0 * x[0] + x[1] + x[3];
    }
    fn jacobian(&self, z: &[f64], mut j: MatMut<'_, f64>) {
        let (x, lam) = (&z[..4], &z[4..]);
        // ∇²f and the (diagonal) ∇²gⱼ.
        let h_f = [2.0, 2.0, 4.0, 2.0];
        let h_g = [[-2.0, -2.0, -2.0, -2.0], [-2.0, -4.0, -2.0, -4.0], [-4.0, -2.0, -2.0, 0.0]];
        let dg = Hs43::grads(x);
        j.fill(0.0);
        for i in 0..4 {
            j[(i, i)] = h_f[i] - (0..3).map(|k| lam[k] * h_g[k][i]).sum::<f64>();
            for k in 0..3 {
                j[(i, 4 + k)] = -dg[k][i];
                j[(4 + k, i)] = dg[k][i];
            }
        }
    }
}

/// The HS 43 KKT sample: starts 0 (HS's x⁰, λ = 0) and 100·1; bounds: x free, λ ≥ 0.
///
/// ```
/// let s = perp_ncp::samples::hs43();
/// assert_eq!(s.solutions[0], vec![0.0, 1.0, 2.0, -1.0, 1.0, 0.0, 2.0]);
/// ```
pub fn hs43() -> Sample {
    let free = f64::NEG_INFINITY;
    mcp_sample(
        "hs43",
        "Hock-Schittkowski 1981 problem 43 (Rosen-Suzuki) as the MCP of its KKT conditions (free x, 3 inequalities)",
        Box::new(Hs43),
        (vec![free, free, free, free, 0.0, 0.0, 0.0], vec![f64::INFINITY; 7]),
        vec![vec![0.0; 7], vec![FAR; 7]],
        vec![vec![0.0, 1.0, 2.0, -1.0, 1.0, 0.0, 2.0]],
    )
}

/// The KKT system of Hock–Schittkowski problem 71: `min x₁x₄(x₁ + x₂ + x₃) + x₃` s.t.
/// `g = x₁x₂x₃x₄ − 25 ≥ 0`, `h = Σxᵢ² − 40 = 0`, `1 ≤ x ≤ 5`; z = (x, μ, λ):
/// `1 ≤ x ≤ 5 ⊥ ∇f − λ∇g − 2μx`, μ free with `h = 0`, `λ ≥ 0 ⊥ g ≥ 0`.
///
/// Optimum x* ≈ (1, 4.7430, 3.8211, 1.3794), f* ≈ 17.0140; μ* ≈ −0.16147, λ* ≈ 0.55229,
/// with x₁ at its lower bound (F₁ ≈ 1.0879 > 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct Hs71;

impl NcpFunction for Hs71 {
    fn dim(&self) -> usize {
        6
    }
    fn eval(&self, z: &[f64], f: &mut [f64]) {
        let (x, mu, lam) = (&z[..4], z[4], z[5]);
        let s = x[0] + x[1] + x[2];
        let df = [x[3] * (x[0] + s), x[0] * x[3], x[0] * x[3] + 1.0, x[0] * s];
        let dg = [x[1] * x[2] * x[3], x[0] * x[2] * x[3], x[0] * x[1] * x[3], x[0] * x[1] * x[2]];
        for i in 0..4 {
            f[i] = df[i] - lam * dg[i] - 2.0 * mu * x[i];
        }
        f[4] = x.iter().map(|v| v * v).sum::<f64>() - 40.0;
        f[5] = x[0] * x[1] * x[2] * x[3] - 25.0;
    }
    fn jacobian(&self, z: &[f64], mut j: MatMut<'_, f64>) {
        let (x, mu, lam) = (&z[..4], z[4], z[5]);
        let s = x[0] + x[1] + x[2];
        // ∇²f (symmetric): f = x₁²x₄ + x₁x₂x₄ + x₁x₃x₄ + x₃.
        let (a4, b) = (x[0] + s, x[0]);
        let h = [[2.0 * x[3], x[3], x[3], a4], [x[3], 0.0, 0.0, b], [x[3], 0.0, 0.0, b], [a4, b, b, 0.0]];
        let dg = [x[1] * x[2] * x[3], x[0] * x[2] * x[3], x[0] * x[1] * x[3], x[0] * x[1] * x[2]];
        j.fill(0.0);
        for a in 0..4 {
            for b in 0..4 {
                // ∂²g/∂xₐ∂x_b: the product of the two other variables (0 on the diagonal).
                let g2 = if a == b {
                    0.0
                } else {
                    (0..4).filter(|&k| k != a && k != b).map(|k| x[k]).product::<f64>()
                };
                j[(a, b)] = h[a][b] - lam * g2 - if a == b { 2.0 * mu } else { 0.0 };
            }
            j[(a, 4)] = -2.0 * x[a];
            j[(a, 5)] = -dg[a];
            j[(4, a)] = 2.0 * x[a];
            j[(5, a)] = dg[a];
        }
    }
}

/// The HS 71 KKT sample: starts (1, 5, 5, 1, 0, 0) (HS's x⁰) and 100·1 (x projected to 5);
/// bounds 1 ≤ x ≤ 5, μ free, λ ≥ 0. The solution's digits come from Newton's method on the
/// KKT equations of the active set, started at the optimum printed by Hock–Schittkowski.
///
/// ```
/// let s = perp_ncp::samples::hs71();
/// assert!((s.solutions[0][1] - 4.7429994).abs() < 1e-6);
/// ```
pub fn hs71() -> Sample {
    let inf = f64::INFINITY;
    mcp_sample(
        "hs71",
        "Hock-Schittkowski 1981 problem 71 as the MCP of its KKT conditions (boxes, an equation, one inequality)",
        Box::new(Hs71),
        (vec![1.0, 1.0, 1.0, 1.0, f64::NEG_INFINITY, 0.0], vec![5.0, 5.0, 5.0, 5.0, inf, inf]),
        vec![vec![1.0, 5.0, 5.0, 1.0, 0.0, 0.0], vec![FAR; 6]],
        vec![vec![
            1.0,
            4.742999637264417,
            3.821149984184874,
            1.3794082931726723,
            -0.16146856677050583,
            0.5522936601207269,
        ]],
    )
}

/// The HS 76 KKT sample, an LCP: `min x₁² + ½x₂² + x₃² + ½x₄² − x₁x₃ + x₃x₄ − x₁ − 3x₂ + x₃ − x₄`
/// s.t. `g₁ = 5 − x₁ − 2x₂ − x₃ − x₄ ≥ 0`, `g₂ = 4 − 3x₁ − x₂ − 2x₃ + x₄ ≥ 0`,
/// `g₃ = x₂ + 4x₃ − 1.5 ≥ 0`, x ≥ 0; z = (x, λ), F = (∇f − Σλⱼ∇gⱼ, g).
///
/// Optimum x* = (3/11, 23/11, 0, 6/11), f* = −103/22 ≈ −4.6818, λ* = (5/11, 0, 0). Starts
/// (0.5, 0.5, 0.5, 0.5, 0, 0, 0) (HS's x⁰) and 100·1.
///
/// ```
/// let s = perp_ncp::samples::hs76();
/// assert_eq!(s.solutions[0][1], 23.0 / 11.0);
/// ```
pub fn hs76() -> Sample {
    #[rustfmt::skip]
    let m = [
        2.0, 0.0, -1.0, 0.0, 1.0, 3.0, 0.0,
        0.0, 1.0, 0.0, 0.0, 2.0, 1.0, -1.0,
        -1.0, 0.0, 2.0, 1.0, 1.0, 2.0, -4.0,
        0.0, 0.0, 1.0, 1.0, 1.0, -1.0, 0.0,
        -1.0, -2.0, -1.0, -1.0, 0.0, 0.0, 0.0,
        -3.0, -1.0, -2.0, 1.0, 0.0, 0.0, 0.0,
        0.0, 1.0, 4.0, 0.0, 0.0, 0.0, 0.0,
    ];
    ncp_sample(
        "hs76",
        "Hock-Schittkowski 1981 problem 76 as the MCP of its KKT conditions (an LCP)",
        affine(7, &m, &[-1.0, -3.0, 1.0, -1.0, 5.0, 4.0, -1.5]),
        vec![vec![0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0], vec![FAR; 7]],
        vec![vec![3.0 / 11.0, 23.0 / 11.0, 0.0, 6.0 / 11.0, 5.0 / 11.0, 0.0, 0.0]],
    )
}
