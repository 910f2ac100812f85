//! NCP solvers as LCP solvers: an LCP (or box-LCP) is the MCP with F(z) = Mz + q and bounds
//! [0, ∞) (or [lo, hi]); [`NcpAsLcp`] solves it with any [`NcpSolver`] and scores the answer
//! with the LCP measure (Siconos' ‖min(z, w)‖₂/‖q‖₂).

use crate::{AffineFunction, Mcp, NcpSolver};
use perp_core::{measures, Error, Settings, Solution, SolutionMut};
use perp_lcp::{Lcp, LcpSolver};

/// An [`NcpSolver`] seen as an [`LcpSolver`]. The inner solver's tolerance is scaled by
/// ‖q‖₂ (the LCP measure is relative, the NCP one absolute) and the returned point is
/// re-scored through [`Lcp::solution`], so `Solved` still means LCP error ≤ tol.
pub struct NcpAsLcp<S: NcpSolver> {
    /// The NCP solver.
    pub inner: S,
}

impl<S: NcpSolver> LcpSolver for NcpAsLcp<S> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn forget(&mut self) {
        self.inner.forget();
    }

    /// The inner solver's answer copied into the buffers (it allocates).
    fn solve_into(&mut self, p: &Lcp, warm: bool, out: SolutionMut<'_>, s: &Settings) -> Result<(), Error> {
        self.solve_checked(p, warm.then_some(&*out.z), s)?.copy_into(out)
    }
}

impl<S: NcpSolver> NcpAsLcp<S> {
    /// Checks the settings and the warm start, then [`NcpAsLcp::solve_as_is`] (scaled when the
    /// data are far from 1).
    fn solve_checked(&mut self, p: &Lcp, warm: Option<&[f64]>, s: &Settings) -> Result<Solution, Error> {
        s.validate()?;
        p.check_warm(warm)?;
        // The Fischer–Burmeister and min functions add z and w as if they had one unit: data
        // far from 1 are solved scaled (exactly, by powers of two; `Lcp::unit_scaling`), and the
        // answer is unscaled and scored on the caller's problem.
        p.solve_unit_scaled(warm, s.tol, |p, warm| self.solve_as_is(p, warm, s))
    }

    /// [`LcpSolver::solve`] on `p` as given.
    fn solve_as_is(&mut self, p: &Lcp, warm: Option<&[f64]>, s: &Settings) -> Result<Solution, Error> {
        let f = AffineFunction::from_lcp(p);
        let mcp = match p.bounds() {
            Some((lo, hi)) => Mcp::new(&f, lo.to_vec(), hi.to_vec())?,
            None => Mcp::ncp(&f),
        };
        let z0 = warm.map_or_else(|| vec![0.0; p.n()], <[f64]>::to_vec);
        let qn = measures::norm2(p.q());
        let inner = Settings { tol: if qn > f64::EPSILON { s.tol * qn } else { s.tol }, ..s.clone() };
        let sol = self.inner.solve(&mcp, &z0, &inner)?;
        let mut report = sol.report;
        report.solver = self.name().to_string();
        // `Mcp::solution` has already projected z onto the bounds.
        Ok(p.solution(sol.z, report, s.tol))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fb_newton::FbNewton;
    use perp_core::{Matrix, Status};

    /// Uniform draws in [−1, 1] from a fixed linear congruential sequence.
    fn draws(seed: u64, count: usize) -> Vec<f64> {
        let mut state = seed;
        (0..count)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            })
            .collect()
    }

    /// M = A Aᵀ + I (A n×n from U[−1, 1]), q from U[−1, 1]ⁿ: the `spd` family of the benches.
    fn spd(n: usize, seed: u64) -> Lcp {
        let a = draws(seed, n * n + n);
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                let v =
                    (0..n).map(|k| a[i * n + k] * a[j * n + k]).sum::<f64>() + if i == j { 1.0 } else { 0.0 };
                m[i * n + j] = v;
                m[j * n + i] = v;
            }
        }
        Lcp::new(Matrix::from_row_major(n, n, &m).unwrap(), a[n * n..].to_vec()).unwrap()
    }

    #[test]
    fn fb_newton_on_an_spd_lcp_needs_few_factorizations() {
        // The spd LCP (n = 200): the plain FB method takes 10 Newton steps, each one LU of
        // the full 200×200 H; with the active-set steps every step is a reduced one (the
        // min-map's free set I, |I| < n), 5 in all, as bdiff-newton's 5 reduced LUs.
        let p = spd(200, 7);
        let s = Settings { tol: 1e-10, ..Settings::default() };
        let mut plain = NcpAsLcp { inner: FbNewton::new() };
        plain.inner.active_set = false;
        let b = plain.solve(&p, None, &s).unwrap();
        assert_eq!(b.report.status, Status::Solved, "{:?}", b.report);
        assert_eq!((b.report.iterations, b.report.factorizations), (10, 10));
        let mut fb = NcpAsLcp { inner: FbNewton::new() };
        let a = fb.solve(&p, None, &s).unwrap();
        assert_eq!(a.report.status, Status::Solved, "{:?}", a.report);
        assert!(a.report.error <= 1e-10);
        assert_eq!((a.report.iterations, a.report.factorizations), (5, 5));
        assert_eq!(fb.inner.active_set_steps(), (5, 5), "every step a reduced one");
        // The same solution (unique: M is positive definite).
        for (x, y) in a.z.iter().zip(&b.z) {
            assert!((x - y).abs() <= 1e-8 * (1.0 + y.abs()), "{x} vs {y}");
        }
    }

    /// M = J Jᵀ for 40 contacts on 12 degrees of freedom, each contact twice (rows and
    /// columns i and i + 40 equal): positive semidefinite and singular, so most reduced blocks
    /// M_II are singular too. q = w* − M z* for a complementary pair (z* > 0 on a third of the
    /// contacts, w* > 0 on another third, both 0 on the rest), duplicated.
    fn duplicated_contacts() -> Lcp {
        let (c, dof) = (40, 12);
        let j = draws(99, c * dof);
        let u = draws(100, c);
        let mut m = vec![0.0; c * c];
        for a in 0..c {
            for b in 0..c {
                m[a * c + b] = (0..dof).map(|k| j[a * dof + k] * j[b * dof + k]).sum();
            }
        }
        let zs: Vec<f64> = (0..c).map(|a| if a % 3 == 0 { 1.0 + u[a].abs() } else { 0.0 }).collect();
        let q: Vec<f64> = (0..c)
            .map(|a| {
                let ws = if a % 3 == 1 { 0.5 + u[a].abs() } else { 0.0 };
                ws - (0..c).map(|b| m[a * c + b] * zs[b]).sum::<f64>()
            })
            .collect();
        let n = 2 * c;
        let m2: Vec<f64> = (0..n * n).map(|k| m[(k / n % c) * c + k % n % c]).collect();
        let q2: Vec<f64> = (0..n).map(|a| q[a % c]).collect();
        Lcp::new(Matrix::from_row_major(n, n, &m2).unwrap(), q2).unwrap()
    }

    #[test]
    fn fb_newton_with_active_set_steps_solves_a_singular_degenerate_contact_lcp() {
        let p = duplicated_contacts();
        let s = Settings { tol: 1e-10, ..Settings::default() };
        for active_set in [true, false] {
            let mut fb = NcpAsLcp { inner: FbNewton::new() };
            fb.inner.active_set = active_set;
            let sol = fb.solve(&p, None, &s).unwrap();
            assert_eq!(sol.report.status, Status::Solved, "active_set {active_set}: {:?}", sol.report);
            // Checked from M and q directly: z ≥ 0, w = Mz + q ≥ 0, min(z, w) = 0, to 1e-8 (the
            // measure ‖min(z, w)‖/‖q‖ ≤ 1e-10 allows entries of a few 1e-9).
            let mut w = vec![0.0; p.n()];
            p.m().mul_vec(&sol.z, &mut w);
            for ((wi, qi), zi) in w.iter_mut().zip(p.q()).zip(&sol.z) {
                *wi += qi;
                assert!(
                    *zi >= -1e-8 && *wi >= -1e-8 && zi.min(*wi).abs() <= 1e-8,
                    "{active_set}: z {zi}, w {wi}"
                );
            }
        }
    }

    #[test]
    fn fb_newton_with_active_set_steps_solves_a_box_lcp() {
        // The spd LCP with 0 ≤ z ≤ 0.05: many rows at the upper bound (the set's third class).
        let p = spd(60, 3);
        let (m, q) = (p.m().clone(), p.q().to_vec());
        let bx = Lcp::with_bounds(m, q, vec![0.0; 60], vec![0.05; 60]).unwrap();
        let s = Settings { tol: 1e-10, ..Settings::default() };
        let mut fb = NcpAsLcp { inner: FbNewton::new() };
        let a = fb.solve(&bx, None, &s).unwrap();
        let (tried, taken) = fb.inner.active_set_steps();
        let mut plain = NcpAsLcp { inner: FbNewton::new() };
        plain.inner.active_set = false;
        let b = plain.solve(&bx, None, &s).unwrap();
        assert_eq!(a.report.status, Status::Solved, "{:?}", a.report);
        assert_eq!(b.report.status, Status::Solved, "{:?}", b.report);
        assert!(taken >= 1 && tried >= taken, "{tried}/{taken}");
        assert!(a.z.contains(&0.05) && a.z.contains(&0.0), "{:?}", a.z);
        for (x, y) in a.z.iter().zip(&b.z) {
            assert!((x - y).abs() <= 1e-8, "{x} vs {y}");
        }
    }
}
