//! Derivatives of MCP and MLCP solutions, by implicit differentiation on the active set
//! (`perp_core::sensitivity` has the split into free, fixed and degenerate indices).
//!
//! **MCP.** Perturb F additively, `F(z) + q` (q = 0 at the solved problem). At a solution z
//! with free indices F (strictly inside their bounds, `F_i(z) = 0`) and no degenerate index,
//! the implicit-function theorem on `F_F(z) + q_F = 0` with the other indices held at their
//! bounds gives (Facchinei–Pang, *Finite-Dimensional Variational Inequalities and
//! Complementarity Problems*, §5.3, the strongly stable case)
//!
//! ```text
//!     dz_F = −∇F(z)_FF⁻¹ dq_F,        dz_i = 0 off F.
//! ```
//!
//! A problem with parameters θ, `F(z, θ)`, chains it: `dz = jvp_q(∂F/∂θ · dθ)` and
//! `∇_θ ⟨g, z⟩ = (∂F/∂θ)ᵀ vjp_q(g)`.
//!
//! **MLCP.** `F(z) = Mz + q` with free rows; Siconos' `(A, C; D, B)` blocks and `(a, b)` are
//! perp's `M` and `q` (equations first): [`mlcp_sensitivity`] gives the derivatives with
//! respect to q (so to a and b together) and M, as for the LCP.

use crate::mlcp::Mlcp;
use crate::Mcp;
use faer::Mat;
use perp_core::sensitivity::{self as sens, ActiveSet, IndexState};
use perp_core::{measures, Error, Matrix, Solution};
use perp_lcp::LcpSensitivity;

/// The derivative of an MCP solution with respect to an additive perturbation q of F, made
/// by [`sensitivity`].
#[derive(Debug)]
pub struct McpSensitivity {
    set: ActiveSet,
    degenerate: Vec<usize>,
}

/// The sensitivity of `sol`, a solution of `p`, with the default degeneracy threshold.
///
/// `Err` when `sol` is not `Solved`, has the wrong length, is not a solution of `p` (error
/// recomputed at `z` above `max(10 × reported, 1e-6)`), or when `∇F(z)_FF` is singular. The
/// Jacobian is `F`'s own ([`crate::NcpFunction::sparse_jacobian`] when it has one, else
/// [`crate::NcpFunction::jacobian`], whose default is central differences).
pub fn sensitivity(p: &Mcp<'_>, sol: &Solution) -> Result<McpSensitivity, Error> {
    sensitivity_with(p, sol, sens::DEGENERACY_TOL)
}

/// [`sensitivity`] with a chosen degeneracy threshold.
pub fn sensitivity_with(p: &Mcp<'_>, sol: &Solution, tol: f64) -> Result<McpSensitivity, Error> {
    sens::require_solved(&sol.report)?;
    let n = p.n();
    sens::check_vector("solution z", &sol.z, n)?;
    let z = &sol.z;
    let mut f = vec![0.0; n];
    p.f.eval(z, &mut f);
    Error::check_finite("F(z)", &f)?;
    sens::require_answer_of(p.error(z, &f), sol.report.error, tol)?;
    let jac = match p.f.sparse_jacobian(z) {
        Some(s) => Matrix::Sparse(s),
        None => {
            let mut j = Mat::zeros(n, n);
            p.f.jacobian(z, j.as_mut());
            Matrix::Dense(j)
        }
    };
    jac.check_finite("∇F(z)")?;
    let j_max = jac.max_abs().max(f64::MIN_POSITIVE);
    let z_inf = measures::norm_inf(z);
    let f_scale = measures::norm_inf(&f).max(j_max * z_inf).max(f64::MIN_POSITIVE);
    let z_scale = z_inf.max(f_scale / j_max).max(f64::MIN_POSITIVE);
    let (mut free, mut degenerate) = (Vec::new(), Vec::new());
    for i in 0..n {
        match sens::classify(z[i], f[i], p.lower[i], p.upper[i], z_scale, f_scale, tol) {
            IndexState::Free => free.push(i),
            IndexState::Fixed => {}
            IndexState::Degenerate => degenerate.push(i),
        }
    }
    let set = ActiveSet::new(&jac, free)?;
    Ok(McpSensitivity { set, degenerate })
}

impl McpSensitivity {
    /// `dz` for an additive perturbation `dq` of F.
    ///
    /// # Panics
    /// If `dq.len() != n`.
    pub fn jvp_q(&self, dq: &[f64]) -> Vec<f64> {
        self.set.jvp("jvp_q", dq)
    }

    /// `∇_q ⟨g, z⟩` for the additive perturbation q of F.
    ///
    /// # Panics
    /// If `g.len() != n`.
    pub fn vjp_q(&self, g: &[f64]) -> Vec<f64> {
        self.set.vjp("vjp_q", g)
    }

    /// The degenerate indices (at a bound with `F_i(z) = 0`): there the result is the
    /// derivative of the piece that keeps the index at its bound.
    pub fn degenerate(&self) -> &[usize] {
        &self.degenerate
    }

    /// The free indices (the reduced system's rows and columns).
    pub fn free(&self) -> &[usize] {
        self.set.free()
    }
}

/// The sensitivity of an MLCP solution with respect to q (Siconos' a and b) and M (its four
/// blocks): the same value as an LCP's (`jvp_q`, `vjp_q`, `jvp_m`, `vjp_m`, `degenerate`),
/// the equation rows always free. `Err` as for [`sensitivity`].
///
/// ```
/// use perp_core::{Matrix, Settings, Solution};
/// use perp_ncp::{mlcp::Mlcp, NcpSolver};
/// // z₀ free with 2z₀ + z₁ − 4 = 0; 0 ≤ z₁ ⊥ z₀ + 2z₁ − 1 ≥ 0: z = (2, 0), w₁ = 1.
/// let p = Mlcp::new(Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0])?, vec![-4.0, -1.0], vec![true, false])?;
/// let f = p.to_function();
/// let (lo, hi) = p.bounds();
/// let mcp = perp_ncp::Mcp::new(&f, lo, hi)?;
/// let sol = perp_ncp::fb_newton::FbNewton::default().solve(&mcp, &[0.0; 2], &Settings::default())?;
/// let s = perp_ncp::mlcp_sensitivity(&p, &sol)?;
/// let dz = s.jvp_q(&[1.0, 0.0]); // dz₀ = −1/2, z₁ stays 0
/// assert!((dz[0] + 0.5).abs() < 1e-12 && dz[1] == 0.0);
/// # Ok::<(), perp_core::Error>(())
/// ```
pub fn mlcp_sensitivity(p: &Mlcp, sol: &Solution) -> Result<LcpSensitivity, Error> {
    mlcp_sensitivity_with(p, sol, sens::DEGENERACY_TOL)
}

/// [`mlcp_sensitivity`] with a chosen degeneracy threshold.
pub fn mlcp_sensitivity_with(p: &Mlcp, sol: &Solution, tol: f64) -> Result<LcpSensitivity, Error> {
    sens::require_solved(&sol.report)?;
    sens::check_vector("solution z", &sol.z, p.n())?;
    sens::require_answer_of(p.error_at(&sol.z), sol.report.error, tol)?;
    let (lo, hi) = p.bounds();
    LcpSensitivity::affine(p.m(), p.q(), sol.z.clone(), &lo, &hi, tol)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fb_newton::FbNewton;
    use crate::{samples, NcpFunction, NcpSolver};
    use faer::MatMut;
    use perp_core::{Settings, Status};

    /// F(z) + t·dq.
    struct Shifted<'a> {
        f: &'a dyn NcpFunction,
        shift: Vec<f64>,
    }

    impl NcpFunction for Shifted<'_> {
        fn dim(&self) -> usize {
            self.f.dim()
        }
        fn eval(&self, z: &[f64], out: &mut [f64]) {
            self.f.eval(z, out);
            out.iter_mut().zip(&self.shift).for_each(|(a, b)| *a += b);
        }
        fn jacobian(&self, z: &[f64], jac: MatMut<'_, f64>) {
            self.f.jacobian(z, jac);
        }
    }

    fn solve(p: &Mcp<'_>, z0: &[f64]) -> Solution {
        let s = Settings { tol: 1e-14, ..Settings::default() };
        let sol = FbNewton::default().solve(p, z0, &s).unwrap();
        assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report.message);
        sol
    }

    #[test]
    fn josephy_matches_central_differences_and_the_adjoint() {
        let sample = samples::josephy();
        let p = sample.mcp();
        let sol = solve(&p, &sample.solutions[0]);
        let s = sensitivity(&p, &sol).unwrap();
        assert!(s.degenerate().is_empty());
        assert_eq!(s.free(), &[0, 3]);
        let dq = [0.3, -0.2, 0.5, -0.7];
        let h = 1e-6;
        let resolve = |t: f64| {
            let f = Shifted { f: sample.f.as_ref(), shift: dq.iter().map(|d| t * d).collect() };
            let m = Mcp::new(&f, sample.lower.clone(), sample.upper.clone()).unwrap();
            solve(&m, &sol.z).z
        };
        let (zp, zm) = (resolve(h), resolve(-h));
        let an = s.jvp_q(&dq);
        for i in 0..4 {
            let fd = (zp[i] - zm[i]) / (2.0 * h);
            assert!((an[i] - fd).abs() < 1e-7, "dz[{i}]: {} vs {fd}", an[i]);
        }
        let g = [1.0, 2.0, -1.0, 0.5];
        let lhs: f64 = g.iter().zip(&an).map(|(a, b)| a * b).sum();
        let rhs: f64 = s.vjp_q(&g).iter().zip(&dq).map(|(a, b)| a * b).sum();
        assert!((lhs - rhs).abs() < 1e-13 * (1.0 + lhs.abs()));
    }

    #[test]
    fn kojima_shindo_degenerate_solution_is_flagged() {
        // (√1.5, 0, 0, ½): F₃ = 0 with z₃ = 0 (MCPLIB kojshin's degenerate solution).
        let sample = samples::kojima_shindo();
        let p = sample.mcp();
        let sol = solve(&p, &sample.solutions[0]);
        let s = sensitivity(&p, &sol).unwrap();
        assert_eq!(s.degenerate(), &[2]);
        assert_eq!(s.free(), &[0, 3]);
        let dz = s.jvp_q(&[0.0, 0.0, 1.0, 0.0]);
        assert_eq!(dz[2], 0.0, "the degenerate index is held at its bound");
    }

    #[test]
    fn mlcp_derivatives_match_central_differences() {
        let m = Matrix::from_row_major(3, 3, &[4.0, 1.0, 1.0, 1.0, 3.0, 0.5, -1.0, 0.5, 2.0]).unwrap();
        let q = vec![-2.0, -1.0, -3.0];
        let free = vec![true, false, false];
        let p = Mlcp::new(m.clone(), q.clone(), free.clone()).unwrap();
        let solve_mlcp = |p: &Mlcp| {
            let f = p.to_function();
            let (lo, hi) = p.bounds();
            let mcp = Mcp::new(&f, lo, hi).unwrap();
            solve(&mcp, &[0.0; 3])
        };
        let sol = solve_mlcp(&p);
        let s = mlcp_sensitivity(&p, &sol).unwrap();
        assert!(s.degenerate().is_empty());
        let dq = [0.5, -1.0, 0.25];
        let h = 1e-6;
        let shifted = |t: f64| {
            let qq: Vec<f64> = q.iter().zip(&dq).map(|(a, b)| a + t * b).collect();
            solve_mlcp(&Mlcp::new(m.clone(), qq, free.clone()).unwrap()).z
        };
        let (zp, zm) = (shifted(h), shifted(-h));
        for (i, a) in s.jvp_q(&dq).iter().enumerate() {
            let fd = (zp[i] - zm[i]) / (2.0 * h);
            assert!((a - fd).abs() < 1e-7, "dz[{i}]: {a} vs {fd}");
        }
        // Unsolved and foreign answers are refused.
        let mut bad = sol.clone();
        bad.report.status = Status::MaxIterations;
        assert!(mlcp_sensitivity(&p, &bad).is_err());
        let other = Mlcp::new(m, vec![5.0, 5.0, 5.0], free).unwrap();
        assert!(mlcp_sensitivity(&other, &sol).unwrap_err().to_string().contains("solution of this problem"));
    }
}
