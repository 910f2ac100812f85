//! Derivatives of an LCP's solution with respect to its data, by implicit differentiation on
//! the active set.
//!
//! At a solution z of `0 ≤ z ⊥ w = Mz + q ≥ 0` (or of the box-LCP `l ≤ z ≤ u`), let F be the
//! free indices (`l_i < z_i < u_i`, so `w_i = 0`) and let the others sit at a bound. If no index
//! is degenerate (`z_i` at a bound with `w_i = 0`) and `M_FF` is nonsingular, the solution map
//! is affine near `(M, q)` (Cottle–Pang–Stone, *The Linear Complementarity Problem*, §5.7 on the
//! piecewise-linear solution map; its pieces are the complementary cones of §1.3):
//!
//! ```text
//!     dz_F = −M_FF⁻¹ (dq + dM z)_F,       dz_i = 0 off F,
//! ```
//!
//! and the VJPs are the transposes: with `λ = −E_F M_FF⁻ᵀ g_F`, `∇_q ⟨g, z⟩ = λ` and
//! `∇_M ⟨g, z⟩ = λ zᵀ`. One LU of `M_FF` is computed when the sensitivity is made; every JVP
//! and VJP after that costs two triangular solves. At a degenerate index perp returns the
//! derivative of the piece on which **that index stays at its bound** (`z_i = 0` for the
//! standard LCP: the limit from `q_i + ε`), and lists it in [`LcpSensitivity::degenerate`].
//! See `perp_core::sensitivity` for the split and its scale-free thresholds.

use crate::Lcp;
use perp_core::sensitivity::{self as sens, ActiveSet, IndexState};
use perp_core::{measures, Error, Matrix, Solution};

/// The derivative of an LCP solution, made by [`sensitivity`].
///
/// ```
/// use perp_core::{Matrix, Settings};
/// use perp_lcp::{lemke::Lemke, Lcp, LcpSolver};
/// // z = (4/3, 7/3) solves M = [[2, 1], [1, 2]], q = (−5, −6): both free, dz = −M⁻¹ dq.
/// let p = Lcp::new(Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0])?, vec![-5.0, -6.0])?;
/// let sol = Lemke::default().solve(&p, None, &Settings::default())?;
/// let s = perp_lcp::sensitivity(&p, &sol)?;
/// let dz = s.jvp_q(&[1.0, 0.0]);
/// assert!((dz[0] + 2.0 / 3.0).abs() < 1e-12 && (dz[1] - 1.0 / 3.0).abs() < 1e-12);
/// assert!(s.degenerate().is_empty());
/// # Ok::<(), perp_core::Error>(())
/// ```
#[derive(Debug)]
pub struct LcpSensitivity {
    n: usize,
    z: Vec<f64>,
    set: ActiveSet,
    degenerate: Vec<usize>,
    m: Matrix,
}

/// The sensitivity of `sol` (a solution of `p`) with the default degeneracy threshold
/// ([`perp_core::sensitivity::DEGENERACY_TOL`]).
///
/// `Err` when `sol` is not `Solved`, has the wrong length, does not solve `p` (its error on
/// `p`, recomputed from `z`, exceeds `max(10 × its reported error, 1e-6)`), or when `M_FF` is
/// singular (the solution is not locally unique).
pub fn sensitivity(p: &Lcp, sol: &Solution) -> Result<LcpSensitivity, Error> {
    sensitivity_with(p, sol, sens::DEGENERACY_TOL)
}

/// [`sensitivity`] with a chosen degeneracy threshold `tol` (relative to the scales of z and
/// w; see `perp_core::sensitivity::classify`).
pub fn sensitivity_with(p: &Lcp, sol: &Solution, tol: f64) -> Result<LcpSensitivity, Error> {
    sens::require_solved(&sol.report)?;
    let n = p.n();
    sens::check_vector("solution z", &sol.z, n)?;
    let z = sol.z.clone();
    let w = p.w(&z);
    sens::require_answer_of(p.errors(&z, &w).0, sol.report.error, tol)?;
    let (lo, hi) = match p.bounds() {
        Some((l, u)) => (l.to_vec(), u.to_vec()),
        None => (vec![0.0; n], vec![f64::INFINITY; n]),
    };
    LcpSensitivity::affine(p.m(), p.q(), z, &lo, &hi, tol)
}

impl LcpSensitivity {
    /// The sensitivity of a solution `z` of the affine MCP `l ≤ z ≤ u ⊥ Mz + q` (the LCP,
    /// box-LCP and MLCP; `perp_ncp::mlcp_sensitivity` calls it), checked by the caller to be
    /// a solution. Lengths must agree (else `Err`); `Err` when `M_FF` is singular.
    pub fn affine(
        m: &Matrix,
        q: &[f64],
        z: Vec<f64>,
        lower: &[f64],
        upper: &[f64],
        tol: f64,
    ) -> Result<Self, Error> {
        let n = q.len();
        sens::check_vector("solution z", &z, n)?;
        Error::check_len("lower bounds", lower, n)?;
        Error::check_len("upper bounds", upper, n)?;
        if m.nrows() != n || m.ncols() != n {
            return Err(Error::dim(
                "M (rows and columns)",
                n,
                if m.nrows() != n { m.nrows() } else { m.ncols() },
            ));
        }
        let mut w = vec![0.0; n];
        m.mul_vec(&z, &mut w);
        w.iter_mut().zip(q).for_each(|(a, b)| *a += b);
        let m_max = m.max_abs().max(f64::MIN_POSITIVE);
        let z_inf = measures::norm_inf(&z);
        let w_scale = measures::norm_inf(q).max(m_max * z_inf).max(f64::MIN_POSITIVE);
        let z_scale = z_inf.max(w_scale / m_max).max(f64::MIN_POSITIVE);
        let (mut free, mut degenerate) = (Vec::new(), Vec::new());
        for i in 0..n {
            match sens::classify(z[i], w[i], lower[i], upper[i], z_scale, w_scale, tol) {
                IndexState::Free => free.push(i),
                IndexState::Fixed => {}
                IndexState::Degenerate => degenerate.push(i),
            }
        }
        let set = ActiveSet::new(m, free)?;
        Ok(LcpSensitivity { n, z, set, degenerate, m: m.clone() })
    }

    /// `dz` for a perturbation `dq` of q.
    ///
    /// # Panics
    /// If `dq.len() != n` (as slice indexing would).
    pub fn jvp_q(&self, dq: &[f64]) -> Vec<f64> {
        self.set.jvp("jvp_q", dq)
    }

    /// `∇_q ⟨g, z⟩`: the gradient with respect to q of a loss with gradient `g` at z.
    ///
    /// # Panics
    /// If `g.len() != n`.
    pub fn vjp_q(&self, g: &[f64]) -> Vec<f64> {
        self.set.vjp("vjp_q", g)
    }

    /// `dz` for a perturbation `dm` of M (any storage; n × n).
    ///
    /// # Panics
    /// If `dm` is not n × n.
    pub fn jvp_m(&self, dm: &Matrix) -> Vec<f64> {
        assert!(dm.nrows() == self.n && dm.ncols() == self.n, "jvp_m: dM must be {0} × {0}", self.n);
        let mut dmz = vec![0.0; self.n];
        dm.mul_vec(&self.z, &mut dmz);
        self.jvp_q(&dmz)
    }

    /// `∇_M ⟨g, z⟩ = λ zᵀ` with `λ = ∇_q ⟨g, z⟩`, in M's storage: dense for a dense M; for a
    /// sparse M, the gradient with respect to its stored entries (M's pattern, `λ_i z_j`).
    ///
    /// # Panics
    /// If `g.len() != n`.
    pub fn vjp_m(&self, g: &[f64]) -> Matrix {
        let lambda = self.vjp_q(g);
        sens::outer_on_pattern(&self.m, &lambda, &self.z)
    }

    /// The degenerate indices (`z_i` at a bound and `w_i = 0` within the threshold), where the
    /// solution map has only directional derivatives: there the result is the derivative of
    /// the piece that keeps the index at its bound (see the module documentation).
    pub fn degenerate(&self) -> &[usize] {
        &self.degenerate
    }

    /// The free indices F (between their bounds, `w_i = 0`): the reduced system is `M_FF`.
    pub fn free(&self) -> &[usize] {
        self.set.free()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lemke::Lemke;
    use crate::LcpSolver;
    use perp_core::{Settings, Status};
    use rand::{Rng, SeedableRng};

    fn solve(p: &Lcp) -> Solution {
        let s = Settings { tol: 1e-13, ..Settings::default() };
        let sol = if p.is_box() {
            crate::pgs::Pgs::pgs().solve(p, None, &s).unwrap()
        } else {
            Lemke::default().solve(p, None, &s).unwrap()
        };
        assert_eq!(sol.report.status, Status::Solved);
        sol
    }

    /// M = AAᵀ/n + I with a q whose solution has no index within `margin` of degenerate.
    fn random_lcp(n: usize, seed: u64) -> Lcp {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        loop {
            let a: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let m = crate::samples::gram_row_major(&a, n, n, None, n as f64, 1.0);
            let q: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let p = Lcp::new(Matrix::from_row_major(n, n, &m).unwrap(), q).unwrap();
            let sol = solve(&p);
            if sol.z.iter().zip(&sol.w).all(|(z, w)| z.max(*w) > 1e-3) {
                return p;
            }
        }
    }

    fn fd_q(p: &Lcp, dq: &[f64], h: f64) -> Vec<f64> {
        let mut plus = p.clone();
        let mut minus = p.clone();
        let qp: Vec<f64> = p.q().iter().zip(dq).map(|(q, d)| q + h * d).collect();
        let qm: Vec<f64> = p.q().iter().zip(dq).map(|(q, d)| q - h * d).collect();
        plus.set_q(&qp).unwrap();
        minus.set_q(&qm).unwrap();
        let (zp, zm) = (solve(&plus).z, solve(&minus).z);
        zp.iter().zip(&zm).map(|(a, b)| (a - b) / (2.0 * h)).collect()
    }

    #[test]
    fn jvp_q_and_jvp_m_match_central_differences_on_random_lcps() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for (k, n) in [5, 8, 12, 20].into_iter().enumerate() {
            let p = random_lcp(n, 100 + k as u64);
            let sol = solve(&p);
            let s = sensitivity(&p, &sol).unwrap();
            assert!(s.degenerate().is_empty());
            assert!(!s.free().is_empty() && s.free().len() < n, "both kinds of index (n = {n})");
            let dq: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let (an, fd) = (s.jvp_q(&dq), fd_q(&p, &dq, 1e-6));
            let err = an.iter().zip(&fd).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
            assert!(err < 1e-7, "n = {n}: jvp_q off by {err}");
            // dM: a perturbation of M acts as dq = dM z.
            let dm_vals: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let dm = Matrix::from_row_major(n, n, &dm_vals).unwrap();
            let h = 1e-6;
            let shifted = |t: f64| {
                let vals: Vec<f64> = (0..n * n).map(|e| p.m().get(e / n, e % n) + t * dm_vals[e]).collect();
                Lcp::new(Matrix::from_row_major(n, n, &vals).unwrap(), p.q().to_vec()).unwrap()
            };
            let (zp, zm) = (solve(&shifted(h)).z, solve(&shifted(-h)).z);
            let an = s.jvp_m(&dm);
            let err = (0..n).fold(0.0_f64, |m, i| m.max((an[i] - (zp[i] - zm[i]) / (2.0 * h)).abs()));
            assert!(err < 1e-7, "n = {n}: jvp_m off by {err}");
        }
    }

    #[test]
    fn vjps_are_the_adjoints_of_the_jvps() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for n in [5, 13] {
            let p = random_lcp(n, n as u64);
            let s = sensitivity(&p, &solve(&p)).unwrap();
            let g: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let dq: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let lhs: f64 = g.iter().zip(s.jvp_q(&dq)).map(|(a, b)| a * b).sum();
            let rhs: f64 = s.vjp_q(&g).iter().zip(&dq).map(|(a, b)| a * b).sum();
            assert!((lhs - rhs).abs() <= 1e-13 * (1.0 + lhs.abs()), "{lhs} vs {rhs}");
            let dm_vals: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let dm = Matrix::from_row_major(n, n, &dm_vals).unwrap();
            let lhs: f64 = g.iter().zip(s.jvp_m(&dm)).map(|(a, b)| a * b).sum();
            let gm = s.vjp_m(&g);
            let rhs: f64 = (0..n * n).map(|e| gm.get(e / n, e % n) * dm_vals[e]).sum();
            assert!((lhs - rhs).abs() <= 1e-13 * (1.0 + lhs.abs()), "{lhs} vs {rhs}");
        }
    }

    #[test]
    fn sparse_m_gives_the_same_derivatives_on_its_pattern() {
        // Tridiagonal M: sparse and dense agree, and vjp_m keeps the pattern.
        let n = 6;
        let mut t = Vec::new();
        for i in 0..n {
            t.push((i, i, 3.0));
            if i + 1 < n {
                t.push((i, i + 1, -1.0));
                t.push((i + 1, i, -1.0));
            }
        }
        let q = vec![-1.0, 0.5, -2.0, 1.0, -0.5, -1.5];
        let sp = Lcp::new(Matrix::from_triplets(n, n, &t).unwrap(), q.clone()).unwrap();
        let de = Lcp::new(Matrix::Dense(sp.m().to_dense()), q).unwrap();
        let (ss, sd) = (sensitivity(&sp, &solve(&sp)).unwrap(), sensitivity(&de, &solve(&de)).unwrap());
        let g = [1.0, -1.0, 2.0, 0.5, 0.0, 1.0];
        for (a, b) in ss.vjp_q(&g).iter().zip(sd.vjp_q(&g)) {
            assert!((a - b).abs() < 1e-13);
        }
        let (gs, gd) = (ss.vjp_m(&g), sd.vjp_m(&g));
        assert_eq!(gs.nnz(), sp.m().nnz());
        for i in 0..n {
            for j in 0..n {
                let expect = if sp.m().get(i, j) != 0.0 { gd.get(i, j) } else { 0.0 };
                assert!((gs.get(i, j) - expect).abs() < 1e-13);
            }
        }
    }

    #[test]
    fn box_lcp_holds_indices_at_either_bound() {
        // M = I, bounds [−1, 1]: z = clamp(−q); the middle index is free, dz = −dq there.
        let p = Lcp::with_bounds(
            Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap(),
            vec![-3.0, 0.25, 4.0],
            vec![-1.0; 3],
            vec![1.0; 3],
        )
        .unwrap();
        let s = sensitivity(&p, &solve(&p)).unwrap();
        assert_eq!(s.free(), &[1]);
        assert_eq!(s.jvp_q(&[1.0, 1.0, 1.0]), vec![0.0, -1.0, 0.0]);
    }

    #[test]
    fn degenerate_indices_are_flagged_and_hold_their_bound() {
        // z = (1, 0), w = (0, 0): index 1 is degenerate. The documented element keeps z₁ = 0,
        // which is the derivative for dq₁ > 0 (central differences there see a kink).
        let p =
            Lcp::new(Matrix::from_row_major(2, 2, &[1.0, 0.0, 1.0, 1.0]).unwrap(), vec![-1.0, -1.0]).unwrap();
        let sol = solve(&p);
        assert!(sol.z[1].abs() < 1e-12 && sol.w[1].abs() < 1e-12);
        let s = sensitivity(&p, &sol).unwrap();
        assert_eq!(s.degenerate(), &[1]);
        assert_eq!(s.free(), &[0]);
        let dz = s.jvp_q(&[0.0, 1.0]);
        assert_eq!(dz, vec![0.0, 0.0]);
        // One-sided difference in the direction the element is the derivative of.
        let mut plus = p.clone();
        plus.set_q(&[-1.0, -1.0 + 1e-6]).unwrap();
        let zp = solve(&plus).z;
        assert!((zp[1] - sol.z[1]).abs() < 1e-12 && (zp[0] - sol.z[0]).abs() < 1e-12);
    }

    #[test]
    fn unsolved_mismatched_and_non_unique_results_are_errors() {
        let p =
            Lcp::new(Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap(), vec![-5.0, -6.0]).unwrap();
        let mut sol = solve(&p);
        sol.report.status = Status::MaxIterations;
        assert!(sensitivity(&p, &sol).unwrap_err().to_string().contains("solved result"));
        let mut sol = solve(&p);
        sol.z.push(0.0);
        assert!(sensitivity(&p, &sol).unwrap_err().to_string().contains("length 3"));
        // The solution of another problem.
        let other = Lcp::new(p.m().clone(), vec![-1.0, 5.0]).unwrap();
        let e = sensitivity(&other, &solve(&p)).unwrap_err();
        assert!(e.to_string().contains("a solution of this problem"), "{e}");
        // A singular free block: M = [[1, 1], [1, 1]], q = (−1, −1) has a segment of solutions.
        let p =
            Lcp::new(Matrix::from_row_major(2, 2, &[1.0, 1.0, 1.0, 1.0]).unwrap(), vec![-1.0, -1.0]).unwrap();
        let mut sol = solve(&p);
        sol.z = vec![0.5, 0.5];
        sol.w = p.w(&sol.z);
        let e = sensitivity(&p, &sol).unwrap_err();
        assert!(e.to_string().contains("singular"), "{e}");
    }

    #[test]
    fn derivatives_scale_with_the_data() {
        // Scaling q by c scales z by c (dz/dq unchanged); scaling M by c scales dz/dq by 1/c:
        // the split into free and fixed indices must not move.
        let p = random_lcp(8, 3);
        let s = sensitivity(&p, &solve(&p)).unwrap();
        let dq = [1.0, -0.5, 0.25, 0.0, 2.0, -1.0, 0.5, 0.75];
        let base = s.jvp_q(&dq);
        for c in [1e-8, 1e8] {
            let qs: Vec<f64> = p.q().iter().map(|v| v * c).collect();
            let pq = Lcp::new(p.m().clone(), qs).unwrap();
            let sq = sensitivity(&pq, &solve(&pq)).unwrap();
            assert_eq!(sq.free(), s.free());
            for (a, b) in sq.jvp_q(&dq).iter().zip(&base) {
                assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()));
            }
            let n = 8;
            let vals: Vec<f64> = (0..n * n).map(|e| p.m().get(e / n, e % n) * c).collect();
            let pm = Lcp::new(Matrix::from_row_major(n, n, &vals).unwrap(), p.q().to_vec()).unwrap();
            let sm = sensitivity(&pm, &solve(&pm)).unwrap();
            assert_eq!(sm.free(), s.free());
            for (a, b) in sm.jvp_q(&dq).iter().zip(&base) {
                assert!((a * c - b).abs() <= 1e-9 * (1.0 + b.abs()));
            }
        }
    }
}
