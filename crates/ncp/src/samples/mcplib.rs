//! The samples from MCPLIB (Dirkse–Ferris 1995): Kojima–Shindo, Josephy, the Nash–Cournot
//! equilibrium in its two transcriptions, and Billups' problem.

use super::*;

/// The Kojima–Shindo NCP (M. Kojima, S. Shindo, "Extensions of Newton and quasi-Newton methods
/// to systems of PC¹ equations", J. Oper. Res. Soc. Japan 29, 1986; MCPLIB `kojshin`):
///
/// ```text
/// F₁ = 3z₁² + 2z₁z₂ + 2z₂² + z₃ + 3z₄ − 6
/// F₂ = 2z₁² + z₁ + z₂² + 10z₃ + 2z₄ − 2
/// F₃ = 3z₁² + z₁z₂ + 2z₂² + 2z₃ + 9z₄ − 9
/// F₄ = z₁² + 3z₂² + 2z₃ + 3z₄ − 3
/// ```
///
/// Two solutions: (√6/2, 0, 0, ½), **degenerate** (z₃ = F₃ = 0), and (1, 0, 3, 0), nondegenerate.
#[derive(Clone, Copy, Debug, Default)]
pub struct KojimaShindo;

impl NcpFunction for KojimaShindo {
    fn dim(&self) -> usize {
        4
    }
    fn eval(&self, z: &[f64], f: &mut [f64]) {
        let (a, b, c, d) = (z[0], z[1], z[2], z[3]);
        f[0] = 3.0 * a * a + 2.0 * a * b + 2.0 * b * b + c + 3.0 * d - 6.0;
        f[1] = 2.0 * a * a + a + b * b + 10.0 * c + 2.0 * d - 2.0;
        f[2] = 3.0 * a * a + a * b + 2.0 * b * b + 2.0 * c + 9.0 * d - 9.0;
        f[3] = a * a + 3.0 * b * b + 2.0 * c + 3.0 * d - 3.0;
    }
    fn jacobian(&self, z: &[f64], mut j: MatMut<'_, f64>) {
        let (a, b) = (z[0], z[1]);
        let rows = [
            [6.0 * a + 2.0 * b, 2.0 * a + 4.0 * b, 1.0, 3.0],
            [4.0 * a + 1.0, 2.0 * b, 10.0, 2.0],
            [6.0 * a + b, a + 4.0 * b, 2.0, 9.0],
            [2.0 * a, 6.0 * b, 2.0, 3.0],
        ];
        for (i, row) in rows.iter().enumerate() {
            for (k, v) in row.iter().enumerate() {
                j[(i, k)] = *v;
            }
        }
    }
}

/// The Kojima–Shindo sample: starts (1, 1, 1, 1), 0 and 100·1; solutions (√6/2, 0, 0, ½) (degenerate)
/// and (1, 0, 3, 0).
///
/// ```
/// let s = perp_ncp::samples::kojima_shindo();
/// assert_eq!((s.n(), s.solutions.len()), (4, 2));
/// ```
pub fn kojima_shindo() -> Sample {
    ncp_sample(
        "kojima-shindo",
        "Kojima-Shindo 1986 (MCPLIB kojshin): 4 variables, two solutions, one degenerate",
        Box::new(KojimaShindo),
        vec![vec![1.0; 4], vec![0.0; 4], vec![FAR; 4]],
        vec![vec![1.5f64.sqrt(), 0.0, 0.0, 0.5], vec![1.0, 0.0, 3.0, 0.0]],
    )
}

// ---------------------------------------------------------------------------------------------
// Josephy

/// Josephy's NCP (N. H. Josephy, "Newton's method for generalized equations", MRC Tech. Summary
/// Report 1965, Univ. Wisconsin, 1979; data from Kojima; MCPLIB `josephy`, Dirkse–Ferris 1995):
/// F(z) = c + Bz + (zᵀAᵢz)ᵢ, i.e.
///
/// ```text
/// F₁ = 3z₁² + 2z₁z₂ + 2z₂² + z₃ + 3z₄ − 6
/// F₂ = 2z₁² + z₁ + z₂² + 3z₃ + 2z₄ − 2
/// F₃ = 3z₁² + z₁z₂ + 2z₂² + 2z₃ + 3z₄ − 1
/// F₄ = z₁² + 3z₂² + 2z₃ + 3z₄ − 3
/// ```
///
/// (Kojima–Shindo with F₂'s z₃ coefficient 3 instead of 10 and F₃ = … + 3z₄ − 1.) Solution
/// (√6/2, 0, 0, ½), nondegenerate: F = (0, 2 + √6/2, 5, 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct Josephy;

impl NcpFunction for Josephy {
    fn dim(&self) -> usize {
        4
    }
    fn eval(&self, z: &[f64], f: &mut [f64]) {
        let (a, b, c, d) = (z[0], z[1], z[2], z[3]);
        f[0] = 3.0 * a * a + 2.0 * a * b + 2.0 * b * b + c + 3.0 * d - 6.0;
        f[1] = 2.0 * a * a + a + b * b + 3.0 * c + 2.0 * d - 2.0;
        f[2] = 3.0 * a * a + a * b + 2.0 * b * b + 2.0 * c + 3.0 * d - 1.0;
        f[3] = a * a + 3.0 * b * b + 2.0 * c + 3.0 * d - 3.0;
    }
    fn jacobian(&self, z: &[f64], mut j: MatMut<'_, f64>) {
        let (a, b) = (z[0], z[1]);
        let rows = [
            [6.0 * a + 2.0 * b, 2.0 * a + 4.0 * b, 1.0, 3.0],
            [4.0 * a + 1.0, 2.0 * b, 3.0, 2.0],
            [6.0 * a + b, a + 4.0 * b, 2.0, 3.0],
            [2.0 * a, 6.0 * b, 2.0, 3.0],
        ];
        for (i, row) in rows.iter().enumerate() {
            for (k, v) in row.iter().enumerate() {
                j[(i, k)] = *v;
            }
        }
    }
}

/// The Josephy sample: starts (1, 1, 1, 1), 0 and 100·1; solution (√6/2, 0, 0, ½).
///
/// ```
/// let s = perp_ncp::samples::josephy();
/// assert_eq!((s.n(), s.solutions.len()), (4, 1));
/// ```
pub fn josephy() -> Sample {
    ncp_sample(
        "josephy",
        "Josephy 1979 (MCPLIB josephy): 4 variables, one nondegenerate solution",
        Box::new(Josephy),
        vec![vec![1.0; 4], vec![0.0; 4], vec![FAR; 4]],
        vec![vec![1.5f64.sqrt(), 0.0, 0.0, 0.5]],
    )
}

// ---------------------------------------------------------------------------------------------
// Nash–Cournot

/// Which transcription of the firms' marginal cost a [`NashCournot`] uses.
///
/// Murphy–Sherali–Soyster model each firm's supply as `q = L p^β`, i.e. a marginal cost
/// `(q/L)^{1/β}` above the constant `c`; the cost written in the papers and MCPLIB, however, is
/// `f(q) = c q + β/(β+1) · L^{1/β} · q^{(β+1)/β}`, whose derivative is `c + (L q)^{1/β}`. Both
/// forms circulate, and they give different equilibria for the 5-firm data:
///
/// * [`MarginalCost::ScaledQuantity`], `f′(q) = c + (L q)^{1/β}`: the MCPLIB `nash.gms`
///   transcription (Dirkse–Ferris 1995, citing Murphy–Sherali–Soyster 1982 and Harker 1988;
///   also GAMS `nashemp`). It is the one that reproduces the equilibrium reported for Harker's
///   5-firm problem, q ≈ (15.4293, 12.4986, 9.6635, 7.1651, 5.1326), Q ≈ 49.889.
/// * [`MarginalCost::InverseScale`], `f′(q) = c + L^{−1/β} q^{1/β}` (cost with `L^{−1/β}`, as
///   many later papers write it, e.g. the MacMPEC `gnash*` models): equilibrium
///   q ≈ (36.9325, 41.8181, 43.7066, 42.6592, 39.1790), Q ≈ 204.30.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarginalCost {
    /// `f′ᵢ(qᵢ) = cᵢ + (Lᵢ qᵢ)^{1/βᵢ}` (MCPLIB / Harker's reported solution).
    ScaledQuantity,
    /// `f′ᵢ(qᵢ) = cᵢ + Lᵢ^{−1/βᵢ} qᵢ^{1/βᵢ}`.
    InverseScale,
}

/// The Nash–Cournot oligopoly NCP (F. H. Murphy, H. D. Sherali, A. L. Soyster, Math. Prog. 24,
/// 1982; P. T. Harker, "Accelerating the convergence of the diagonalization and projection
/// algorithms for finite-dimensional variational inequalities", Math. Prog. 41, 1988):
///
/// ```text
/// p(Q) = 5000^{1/η} Q^{−1/η},   Q = Σ qⱼ,
/// Fᵢ(q) = f′ᵢ(qᵢ) − p(Q) − qᵢ p′(Q),   p′(Q) = −p(Q)/(η Q),
/// ```
///
/// with f′ᵢ as chosen by [`MarginalCost`]. [`NashCournot::harker`] holds the 5-firm data
/// η = 1.1, (c, L, β) = (10, 5, 1.2), (8, 5, 1.1), (6, 5, 1.0), (4, 5, 0.9), (2, 5, 0.8).
///
/// **Outside q > 0.** The price is undefined at Q = 0, so F is NaN when Q ≤ 0 (a solver then
/// ends with `NumericalFailure` rather than pretending); a negative qᵢ (a trial point of a
/// solver that leaves the orthant) enters the cost term as max(qᵢ, 0), so F stays finite as
/// long as Q > 0. The Jacobian uses the one-sided derivative 0 of that term at qᵢ ≤ 0.
#[derive(Clone, Debug)]
pub struct NashCournot {
    /// Unit costs cᵢ.
    pub c: Vec<f64>,
    /// Scale parameters Lᵢ.
    pub l: Vec<f64>,
    /// Supply elasticities βᵢ.
    pub beta: Vec<f64>,
    /// Demand elasticity η.
    pub eta: f64,
    /// Demand level (5000 in the literature).
    pub demand: f64,
    /// The marginal-cost transcription.
    pub marginal_cost: MarginalCost,
}

impl NashCournot {
    /// Harker's 5-firm data with the chosen marginal-cost transcription.
    ///
    /// ```
    /// use perp_ncp::{samples::{MarginalCost, NashCournot}, NcpFunction};
    /// let f = NashCournot::harker(MarginalCost::ScaledQuantity);
    /// let q = [15.429307572204471, 12.498581730617944, 9.66347297156873, 7.165093512890886, 5.132566179254104];
    /// let mut r = [0.0; 5];
    /// f.eval(&q, &mut r);
    /// assert!(r.iter().all(|x| x.abs() < 1e-10));
    /// ```
    pub fn harker(marginal_cost: MarginalCost) -> NashCournot {
        NashCournot {
            c: vec![10.0, 8.0, 6.0, 4.0, 2.0],
            l: vec![5.0; 5],
            beta: vec![1.2, 1.1, 1.0, 0.9, 0.8],
            eta: 1.1,
            demand: 5000.0,
            marginal_cost,
        }
    }

    /// `(g, g′)`: the variable part of firm i's marginal cost and its derivative at q (q ≤ 0: 0, 0).
    pub(super) fn marginal(&self, i: usize, q: f64) -> (f64, f64) {
        if q <= 0.0 {
            return (0.0, 0.0);
        }
        let (l, b) = (self.l[i], self.beta[i]);
        let g = match self.marginal_cost {
            MarginalCost::ScaledQuantity => (l * q).powf(1.0 / b),
            MarginalCost::InverseScale => l.powf(-1.0 / b) * q.powf(1.0 / b),
        };
        (g, g / (b * q))
    }

    /// `(p, p′, p″)` at Q > 0.
    pub(super) fn price(&self, total: f64) -> (f64, f64, f64) {
        let k = 1.0 / self.eta;
        let p = self.demand.powf(k) * total.powf(-k);
        (p, -k * p / total, k * (k + 1.0) * p / (total * total))
    }
}

impl NcpFunction for NashCournot {
    fn dim(&self) -> usize {
        self.c.len()
    }
    fn eval(&self, q: &[f64], f: &mut [f64]) {
        let total: f64 = q.iter().sum();
        if total.is_nan() || total <= 0.0 {
            f.fill(f64::NAN);
            return;
        }
        let (p, dp, _) = self.price(total);
        for i in 0..q.len() {
            f[i] = self.c[i] + self.marginal(i, q[i]).0 - p - q[i] * dp;
        }
    }
    fn jacobian(&self, q: &[f64], mut j: MatMut<'_, f64>) {
        let n = q.len();
        let total: f64 = q.iter().sum();
        if total.is_nan() || total <= 0.0 {
            j.fill(f64::NAN);
            return;
        }
        let (_, dp, d2p) = self.price(total);
        // ∂Fᵢ/∂qⱼ = δᵢⱼ (g′ᵢ − p′) − p′ − qᵢ p″.
        for i in 0..n {
            for k in 0..n {
                j[(i, k)] = -dp - q[i] * d2p;
            }
            j[(i, i)] += self.marginal(i, q[i]).1 - dp;
        }
    }
}

/// The 5-firm Nash–Cournot sample in the MCPLIB/Harker transcription
/// ([`MarginalCost::ScaledQuantity`]): starts (10, …, 10) (Harker's), (1, …, 1) and 100·1; solution
/// q ≈ (15.4293, 12.4986, 9.6635, 7.1651, 5.1326).
///
/// ```
/// let s = perp_ncp::samples::nash_cournot();
/// assert!((s.solutions[0][0] - 15.4293).abs() < 1e-4);
/// ```
// The solutions are written with the 20 digits computed in 30-digit arithmetic.
#[allow(clippy::excessive_precision)]
pub fn nash_cournot() -> Sample {
    ncp_sample(
        "nash-cournot",
        "5-firm Nash-Cournot equilibrium (Murphy-Sherali-Soyster 1982, Harker 1988; MCPLIB nash), f'(q) = c + (Lq)^(1/beta)",
        Box::new(NashCournot::harker(MarginalCost::ScaledQuantity)),
        vec![vec![10.0; 5], vec![1.0; 5], vec![FAR; 5]],
        vec![vec![
            15.429307572204471393,
            12.498581730617943747,
            9.6634729715687302686,
            7.1650935128908858605,
            5.1325661792541039415,
        ]],
    )
}

/// The same 5-firm model with the other transcription ([`MarginalCost::InverseScale`]):
/// starts (10, …, 10), (1, …, 1) and 100·1; solution q ≈ (36.9325, 41.8181, 43.7066, 42.6592, 39.1790)
/// (computed here with 30-digit arithmetic).
///
/// ```
/// let s = perp_ncp::samples::nash_cournot_inverse_l();
/// assert!((s.solutions[0][0] - 36.9325).abs() < 1e-4);
/// ```
// The solutions are written with the 20 digits computed in 30-digit arithmetic.
#[allow(clippy::excessive_precision)]
pub fn nash_cournot_inverse_l() -> Sample {
    ncp_sample(
        "nash-cournot-inverse-l",
        "5-firm Nash-Cournot equilibrium, variant transcription f'(q) = c + L^(-1/beta) q^(1/beta)",
        Box::new(NashCournot::harker(MarginalCost::InverseScale)),
        vec![vec![10.0; 5], vec![1.0; 5], vec![FAR; 5]],
        vec![vec![
            36.932510815735770046,
            41.818141660437628732,
            43.706578522274214143,
            42.659239743305121874,
            39.178952516625021588,
        ]],
    )
}

/// Writes `rows` into `j`.
pub(super) fn fill<const N: usize>(mut j: MatMut<'_, f64>, rows: &[[f64; N]; N]) {
    for (i, row) in rows.iter().enumerate() {
        for (k, v) in row.iter().enumerate() {
            j[(i, k)] = *v;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Billups

/// Billups' one-dimensional NCP (S. C. Billups, *Algorithms for complementarity problems and
/// generalized equations*, PhD thesis, Univ. Wisconsin–Madison, 1995; MCPLIB `billups`):
/// `0 ≤ x ⊥ F(x) = (x − 1)² − 1.01 ≥ 0`.
///
/// The only solution is x* = 1 + √1.01 (F(0) = −0.01 < 0). From the MCPLIB start x = 0 the
/// merit functions of both Newton methods have a local minimizer near 0 that is not a
/// solution: a monotone descent method started there stays there.
#[derive(Clone, Copy, Debug, Default)]
pub struct Billups;

impl NcpFunction for Billups {
    fn dim(&self) -> usize {
        1
    }
    fn eval(&self, z: &[f64], f: &mut [f64]) {
        f[0] = (z[0] - 1.0) * (z[0] - 1.0) - 1.01;
    }
    fn jacobian(&self, z: &[f64], mut j: MatMut<'_, f64>) {
        j[(0, 0)] = 2.0 * (z[0] - 1.0);
    }
}

/// The Billups sample: starts 0 (MCPLIB) and 100; solution 1 + √1.01.
///
/// ```
/// let s = perp_ncp::samples::billups();
/// assert!((s.solutions[0][0] - 2.00498756).abs() < 1e-8);
/// ```
pub fn billups() -> Sample {
    ncp_sample(
        "billups",
        "Billups 1995 (MCPLIB billups): 1 variable, a merit function with a non-solution local minimizer",
        Box::new(Billups),
        vec![vec![0.0], vec![FAR]],
        vec![vec![1.0 + 1.01f64.sqrt()]],
    )
}
