//! Small NCPs with known answers (russell-style `samples`), used by tests, docs and `perp bench`.
//!
//! Each sample is a type implementing [`NcpFunction`] with an analytic Jacobian, packaged in a
//! [`Sample`] with its bounds, standard starting points and known solutions; [`all`] lists them.
//!
//! | name | n | solutions | source |
//! |---|---|---|---|
//! | `kojima-shindo` | 4 | (√6/2, 0, 0, ½) (degenerate: z₃ = F₃ = 0) and (1, 0, 3, 0) | Kojima–Shindo 1986; MCPLIB `kojshin` |
//! | `josephy` | 4 | (√6/2, 0, 0, ½) (nondegenerate) | Josephy 1979 (data from Kojima); MCPLIB `josephy` |
//! | `nash-cournot` | 5 | ≈ (15.4293, 12.4986, 9.6635, 7.1651, 5.1326) | Murphy–Sherali–Soyster 1982; Harker 1988; MCPLIB `nash` |
//! | `nash-cournot-inverse-l` | 5 | ≈ (36.9325, 41.8181, 43.7066, 42.6592, 39.1790) | the other transcription of the same model (see [`MarginalCost`]) |
//!
//! [`all`] lists these four (the NCPs of the built-in bench suite). [`extended`] adds problems
//! from the literature that test globalization (far starts, a merit function with a
//! stationary point that is not a solution, bounds and free rows):
//!
//! | name | n | bounds | solution | source |
//! |---|---|---|---|---|
//! | `billups` | 1 | x ≥ 0 | 1 + √1.01 | Billups 1995 (PhD thesis, Univ. Wisconsin); MCPLIB `billups`: F = (x − 1)² − 1.01, start 0 |
//! | `hs14` | 4 | x, μ free; λ ≥ 0 | x = ((√7 − 1)/2, (√7 + 1)/4) | Hock–Schittkowski 1981, problem 14, KKT system |
//! | `hs35` | 4 | x, λ ≥ 0 | x = (4/3, 7/9, 4/9), λ = 2/9 | Hock–Schittkowski 1981, problem 35 (Beale), KKT system (an LCP) |
//! | `hs43` | 7 | x free; λ ≥ 0 | x = (0, 1, 2, −1), λ = (1, 0, 2) | Hock–Schittkowski 1981, problem 43 (Rosen–Suzuki), KKT system |
//! | `hs71` | 6 | 1 ≤ x ≤ 5; μ free; λ ≥ 0 | x ≈ (1, 4.7430, 3.8211, 1.3794) | Hock–Schittkowski 1981, problem 71, KKT system |
//! | `hs76` | 7 | x, λ ≥ 0 | x = (3/11, 23/11, 0, 6/11), λ = (5/11, 0, 0) | Hock–Schittkowski 1981, problem 76, KKT system (an LCP) |
//!
//! A Hock–Schittkowski problem `min f(x)` s.t. `g(x) ≥ 0`, `h(x) = 0`, `l ≤ x ≤ u` is written as
//! the MCP of its KKT conditions with the Lagrangian `L = f − λᵀg − μᵀh`:
//! `l ≤ x ≤ u ⊥ ∇ₓL`, `λ ≥ 0 ⊥ g(x) ≥ 0`, `μ` free with `h(x) = 0`. The optima are those
//! of W. Hock, K. Schittkowski, *Test Examples for Nonlinear Programming Codes*, Lecture Notes
//! in Economics and Mathematical Systems 187, Springer 1981; the multipliers were computed
//! here from the KKT conditions, and the unit tests check every stored point.
//!
//! Every sample has a far start, 100 in every component (projected onto the bounds), as the
//! MCPLIB collection has multiple starts per problem (Dirkse–Ferris 1995, "MCPLIB: a
//! collection of nonlinear mixed complementarity problems", Optim. Methods Softw. 5); those
//! far starts are this crate's, not MCPLIB's.
//!
//! This file holds [`Sample`] and the lists; `mcplib` the MCPLIB problems, `hock_schittkowski`
//! the Hock–Schittkowski KKT systems.
//!
//! ```
//! use perp_ncp::samples;
//! for s in samples::extended() {
//!     let p = s.mcp();
//!     let mut f = vec![0.0; p.n()];
//!     for z in &s.solutions {
//!         s.f.eval(z, &mut f);
//!         assert!(p.residual_inf(z, &f) <= 1e-8, "{}", s.name);
//!     }
//! }
//! ```

use crate::{Mcp, NcpFunction};
use faer::MatMut;

mod mcplib;
pub use mcplib::*;
mod hock_schittkowski;
pub use hock_schittkowski::*;

/// A sample problem: MCP(F, lower, upper) with standard starting points and known solutions.
pub struct Sample {
    /// Short name (`"kojima-shindo"`, `"josephy"`, `"nash-cournot"`, `"nash-cournot-inverse-l"`).
    pub name: &'static str,
    /// One line: what the problem is and where it comes from.
    pub description: &'static str,
    /// The map F (analytic Jacobian).
    pub f: Box<dyn NcpFunction>,
    /// Lower bounds (0 for the NCPs; −∞ for free rows).
    pub lower: Vec<f64>,
    /// Upper bounds (+∞ except `hs71`'s boxes).
    pub upper: Vec<f64>,
    /// Standard starting points.
    pub starts: Vec<Vec<f64>>,
    /// Known solutions (to about 1e-15 relative; every one satisfies ‖min(z, F(z))‖∞ ≤ 1e-8).
    pub solutions: Vec<Vec<f64>>,
}

impl Sample {
    /// The MCP of this sample (borrowing its F).
    pub fn mcp(&self) -> Mcp<'_> {
        // Bounds are fixed constants of the samples, checked by the unit tests.
        Mcp { f: self.f.as_ref(), lower: self.lower.clone(), upper: self.upper.clone() }
    }

    /// Dimension n.
    pub fn n(&self) -> usize {
        self.f.dim()
    }
}

/// Every sample, in the order of the table in the [module docs](self).
pub fn all() -> Vec<Sample> {
    vec![kojima_shindo(), josephy(), nash_cournot(), nash_cournot_inverse_l()]
}

/// [`all`] followed by the literature problems of the second table in the
/// [module docs](self) (`billups`, `hs14`, `hs35`, `hs43`, `hs71`, `hs76`).
///
/// ```
/// let names: Vec<_> = perp_ncp::samples::extended().iter().map(|s| s.name).collect();
/// assert_eq!(names.len(), 10);
/// assert!(names.contains(&"billups") && names.contains(&"hs71"));
/// ```
pub fn extended() -> Vec<Sample> {
    let mut v = all();
    v.extend([billups(), hs14(), hs35(), hs43(), hs71(), hs76()]);
    v
}

/// The sample called `name` (any of [`extended`]), if any.
pub fn by_name(name: &str) -> Option<Sample> {
    extended().into_iter().find(|s| s.name == name)
}

/// The far start's value in every component (module docs).
pub const FAR: f64 = 100.0;

fn mcp_sample(
    name: &'static str,
    description: &'static str,
    f: Box<dyn NcpFunction>,
    (lower, upper): (Vec<f64>, Vec<f64>),
    starts: Vec<Vec<f64>>,
    solutions: Vec<Vec<f64>>,
) -> Sample {
    Sample { name, description, f, lower, upper, starts, solutions }
}

fn ncp_sample(
    name: &'static str,
    description: &'static str,
    f: Box<dyn NcpFunction>,
    starts: Vec<Vec<f64>>,
    solutions: Vec<Vec<f64>>,
) -> Sample {
    let n = f.dim();
    Sample { name, description, f, lower: vec![0.0; n], upper: vec![f64::INFINITY; n], starts, solutions }
}

// ---------------------------------------------------------------------------------------------
// Kojima–Shindo

// ---------------------------------------------------------------------------------------------
// Hock–Schittkowski KKT systems

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check_jacobian;

    /// ‖natural residual‖∞ of the sample's MCP at z (for an NCP ‖min(z, F)‖∞).
    fn residual(s: &Sample, z: &[f64]) -> f64 {
        let mut f = vec![0.0; s.n()];
        s.f.eval(z, &mut f);
        s.mcp().residual_inf(z, &f)
    }

    #[test]
    fn every_stored_solution_solves_its_mcp() {
        for s in extended() {
            assert!(Mcp::new(s.f.as_ref(), s.lower.clone(), s.upper.clone()).is_ok());
            assert!(s.starts.len() >= 2, "{}: a standard start and a far one", s.name);
            for z in &s.solutions {
                assert!(
                    z.iter().zip(&s.lower).zip(&s.upper).all(|((v, l), u)| l <= v && v <= u),
                    "{}",
                    s.name
                );
                let r = residual(&s, z);
                assert!(r <= 1e-12, "{}: ‖natural residual‖∞ = {r:e}", s.name);
            }
            for z in &s.starts {
                assert!(
                    residual(&s, &s.mcp().start(z).unwrap()) > 1e-3,
                    "{}: a start is already a solution",
                    s.name
                );
            }
        }
    }

    #[test]
    fn literature_values_by_hand() {
        // HS 43 at its optimum: F = (0, 0, 0, 0, g) with g = (0, 1, 0).
        let mut f = [0.0; 7];
        Hs43.eval(&[0.0, 1.0, 2.0, -1.0, 1.0, 0.0, 2.0], &mut f);
        assert_eq!(f, [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
        // HS 76: x₃ = 0 with F₃ = 14/11 + 5/11 > 0, g₂ = 18/11 and g₃ = 23/11 − 3/2 inactive.
        let s = hs76();
        let mut f = [0.0; 7];
        s.f.eval(&s.solutions[0], &mut f);
        let expect = [0.0, 0.0, 19.0 / 11.0, 0.0, 0.0, 18.0 / 11.0, 23.0 / 11.0 - 1.5];
        for i in 0..7 {
            assert!((f[i] - expect[i]).abs() < 1e-14, "F[{i}] = {}", f[i]);
        }
        // HS 71: x₁ at its lower bound 1 with F₁ > 0, the objective value of Hock–Schittkowski.
        let z = &hs71().solutions[0];
        let mut f = [0.0; 6];
        Hs71.eval(z, &mut f);
        assert!((f[0] - 1.0878712).abs() < 1e-6);
        let obj = z[0] * z[3] * (z[0] + z[1] + z[2]) + z[2];
        assert!((obj - 17.0140173).abs() < 1e-7, "{obj}");
        // HS 14's objective 9 − 23√7/8 and Billups' F(0) = −0.01: 0 is not a solution.
        let z = &hs14().solutions[0];
        let obj = (z[0] - 2.0).powi(2) + (z[1] - 1.0).powi(2);
        assert!((obj - (9.0 - 23.0 * 7f64.sqrt() / 8.0)).abs() < 1e-14);
        let mut f = [0.0];
        Billups.eval(&[0.0], &mut f);
        assert!((f[0] + 0.01).abs() < 1e-15);
    }

    #[test]
    fn jacobians_match_finite_differences_at_starts_and_solutions() {
        for s in extended() {
            for z in s.starts.iter().chain(&s.solutions) {
                // Nash-Cournot at a solution with qᵢ > 0 is smooth; the polynomial samples everywhere.
                let c = check_jacobian(s.f.as_ref(), z);
                assert!(c.relative_error < 1e-7, "{} at {z:?}: {c:?}", s.name);
            }
        }
    }

    #[test]
    fn kojima_shindo_values_by_hand() {
        let mut f = [0.0; 4];
        KojimaShindo.eval(&[1.0, 1.0, 1.0, 1.0], &mut f);
        // F₁ = 3+2+2+1+3−6, F₂ = 2+1+1+10+2−2, F₃ = 3+1+2+2+9−9, F₄ = 1+3+2+3−3.
        assert_eq!(f, [5.0, 14.0, 8.0, 6.0]);
        // The first solution is degenerate: z₃ = F₃ = 0.
        KojimaShindo.eval(&[1.5f64.sqrt(), 0.0, 0.0, 0.5], &mut f);
        assert!(f[2].abs() < 1e-14 && (f[1] - (2.0 + 1.5f64.sqrt())).abs() < 1e-14);
        // The second: F = (0, 31, 0, 4).
        KojimaShindo.eval(&[1.0, 0.0, 3.0, 0.0], &mut f);
        assert_eq!(f, [0.0, 31.0, 0.0, 4.0]);
    }

    #[test]
    fn josephy_values_by_hand() {
        let mut f = [0.0; 4];
        Josephy.eval(&[1.0, 1.0, 1.0, 1.0], &mut f);
        // F₁ = 5, F₂ = 2+1+1+3+2−2, F₃ = 3+1+2+2+3−1, F₄ = 6.
        assert_eq!(f, [5.0, 7.0, 10.0, 6.0]);
        // At (√6/2, 0, 0, ½): F = (0, 2 + √6/2, 5, 0): nondegenerate.
        Josephy.eval(&[1.5f64.sqrt(), 0.0, 0.0, 0.5], &mut f);
        let expect = [0.0, 2.0 + 1.5f64.sqrt(), 5.0, 0.0];
        for i in 0..4 {
            assert!((f[i] - expect[i]).abs() < 1e-14, "F[{i}] = {}", f[i]);
        }
        // (1, 0, 3, 0) solves Kojima–Shindo but not Josephy: F₃ = 3 + 6 − 1 = 8 with z₃ = 3.
        Josephy.eval(&[1.0, 0.0, 3.0, 0.0], &mut f);
        assert_eq!(f[2], 8.0);
    }

    #[test]
    fn nash_transcriptions_differ_and_are_guarded() {
        let a = NashCournot::harker(MarginalCost::ScaledQuantity);
        let b = NashCournot::harker(MarginalCost::InverseScale);
        // At q = 10·1: Q = 50, p = (5000/50)^{1/1.1} = 100^{10/11}, −q p′ = p/(1.1·5).
        let q = [10.0; 5];
        let (mut fa, mut fb) = ([0.0; 5], [0.0; 5]);
        a.eval(&q, &mut fa);
        b.eval(&q, &mut fb);
        let p = 100f64.powf(1.0 / 1.1);
        let tail = -p + p / 5.5;
        // Firm 3 (β = 1): (5·10)^1 = 50 versus 10/5 = 2.
        assert!((fa[2] - (6.0 + 50.0 + tail)).abs() < 1e-12);
        assert!((fb[2] - (6.0 + 2.0 + tail)).abs() < 1e-12);
        // Q ≤ 0: NaN; a negative component with Q > 0: finite.
        a.eval(&[0.0; 5], &mut fa);
        assert!(fa.iter().all(|x| x.is_nan()));
        a.eval(&[-1.0, 3.0, 1.0, 1.0, 1.0], &mut fa);
        assert!(fa.iter().all(|x| x.is_finite()));
    }

    #[test]
    fn by_name_finds_each_sample() {
        for s in extended() {
            assert_eq!(by_name(s.name).unwrap().n(), s.n());
        }
        assert!(by_name("nope").is_none());
    }
}
