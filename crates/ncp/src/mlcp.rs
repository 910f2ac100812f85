//! [`Mlcp`]: the mixed linear complementarity problem, solved as an MCP with free equality rows.
//!
//! Find z such that w = M z + q and, row by row,
//!
//! ```text
//!     free row i:             wᵢ = 0           (zᵢ free),
//!     complementarity row i:  0 ≤ zᵢ ⊥ wᵢ ≥ 0.
//! ```
//!
//! This is Siconos' MLCP (`design/SUITES.md`): with the equality rows first it is
//! `Au + Cv + a = 0, w = Du + Bv + b, 0 ≤ v ⊥ w ≥ 0`, M = [[A, C], [D, B]], q = (a, b); here
//! the equality rows may be anywhere (`free[i]`). As an MCP it is F(z) = Mz + q with bounds
//! (−∞, ∞) on free rows and [0, ∞) on the others ([`Mlcp::to_function`], [`Mlcp::bounds`]).

use crate::AffineFunction;
use perp_core::{Error, Matrix};
use perp_lcp::Lcp;

/// An MLCP: M (square, n), q (n) and which rows are equalities with a free variable.
#[derive(Clone, Debug)]
pub struct Mlcp {
    /// M and q (checked by [`Lcp::new`]: square, sizes agree, finite).
    data: Lcp,
    free: Vec<bool>,
}

impl Mlcp {
    /// The MLCP (M, q, free), checked: M square, `q` and `free` of its size, values finite.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// use perp_ncp::mlcp::Mlcp;
    /// // u − v = 0 (free u), w = u + v − 2 ≥ 0 ⊥ v ≥ 0: solution u = v = 1.
    /// let m = Matrix::from_row_major(2, 2, &[1.0, -1.0, 1.0, 1.0]).unwrap();
    /// let p = Mlcp::new(m, vec![0.0, -2.0], vec![true, false]).unwrap();
    /// assert_eq!((p.n(), p.n_free()), (2, 1));
    /// assert_eq!(p.error_at(&[1.0, 1.0]), 0.0);
    /// assert!(Mlcp::new(Matrix::from_row_major(1, 1, &[1.0]).unwrap(), vec![0.0], vec![]).is_err());
    /// ```
    pub fn new(m: Matrix, q: Vec<f64>, free: Vec<bool>) -> Result<Mlcp, Error> {
        let data = Lcp::new(m, q)?;
        if free.len() != data.n() {
            return Err(Error::dim("free (row kinds)", data.n(), free.len()));
        }
        Ok(Mlcp { data, free })
    }

    /// Dimension n (rows of M = number of unknowns).
    pub fn n(&self) -> usize {
        self.data.n()
    }

    /// The matrix M.
    pub fn m(&self) -> &Matrix {
        self.data.m()
    }

    /// The vector q.
    pub fn q(&self) -> &[f64] {
        self.data.q()
    }

    /// `free[i]`: row i is an equation wᵢ = 0 with zᵢ free; otherwise 0 ≤ zᵢ ⊥ wᵢ ≥ 0.
    pub fn free(&self) -> &[bool] {
        &self.free
    }

    /// Number of equality (free) rows.
    pub fn n_free(&self) -> usize {
        self.free.iter().filter(|&&f| f).count()
    }

    /// F(z) = Mz + q, borrowing M and q (for [`crate::Mcp::new`] with [`Mlcp::bounds`]).
    pub fn to_function(&self) -> AffineFunction<'_> {
        AffineFunction::from_lcp(&self.data)
    }

    /// `(lower, upper)`: (−∞, ∞) on free rows, [0, ∞) on complementarity rows.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// use perp_ncp::{mlcp::Mlcp, Mcp};
    /// let p = Mlcp::new(Matrix::from_row_major(2, 2, &[1.0, -1.0, 1.0, 1.0]).unwrap(), vec![0.0, -2.0], vec![true, false]).unwrap();
    /// let f = p.to_function();
    /// let (lower, upper) = p.bounds();
    /// let mcp = Mcp::new(&f, lower, upper).unwrap();
    /// assert_eq!(mcp.error(&[1.0, 1.0], &[0.0, 0.0]), 0.0);
    /// ```
    pub fn bounds(&self) -> (Vec<f64>, Vec<f64>) {
        let lower = self.free.iter().map(|&f| if f { f64::NEG_INFINITY } else { 0.0 }).collect();
        (lower, vec![f64::INFINITY; self.n()])
    }

    /// `w = Mz + q`.
    pub fn w(&self, z: &[f64]) -> Vec<f64> {
        self.data.w(z)
    }

    /// The physical figure of an answer (issue 15), in the problem's own scales as for the
    /// LCP (`perp_core::measures::lcp_physical_error`): with `Z = ‖z‖` and
    /// `V = max(‖q‖, ‖w‖) + ρ` (ρ what computing w = Mz + q may round,
    /// `Matrix::rounding_bound`; not `max|M|·‖z‖`, which grows with a z running off, issue 36),
    /// the largest of `|w_i|/V` over the equality rows and
    /// `|min(z_i/Z, w_i/V)|` over the complementarity rows; absolute when `V ≤ ε`. Unchanged
    /// under `M → s_M M`, `q → s_q q`; the MCP measure the solvers stop on is not: with M
    /// scaled by 1e8, fb-newton's and bdiff-newton's answers 30 % off passed it at 1.6e-9.
    pub fn physical_error(&self, z: &[f64], w: &[f64]) -> f64 {
        let norm = perp_core::measures::norm2;
        let zn = norm(z);
        let qn = norm(self.q());
        let v = qn.max(norm(w)) + self.m().rounding_bound(z, 1e-6 * qn);
        // A scale that overflows belongs to an answer that ran off, not to a solution.
        if !(zn.is_finite() && v.is_finite()) {
            return f64::NAN;
        }
        let dust = v <= f64::EPSILON;
        let rel = |x: f64, s: f64| if x == 0.0 || x.is_nan() || dust || s <= 0.0 { x } else { x / s };
        let mut worst = 0.0_f64;
        for i in 0..z.len().min(w.len()) {
            let e = if self.free[i] { rel(w[i], v) } else { rel(z[i], zn).min(rel(w[i], v)) };
            if e.is_nan() {
                return f64::NAN;
            }
            worst = worst.max(e.abs());
        }
        worst
    }

    /// A `Solved` report whose answer fails [`Mlcp::physical_error`] by more than
    /// `perp_core::measures::physical_bound(tol)` becomes `NumericalFailure`, saying so; the
    /// figure goes into `report.physical_error` whatever the status.
    pub fn verify_physics(&self, z: &[f64], w: &[f64], report: &mut perp_core::SolveReport, tol: f64) {
        report.check_physics(
            self.physical_error(z, w),
            tol,
            "equality, infeasibility or complementarity of z and w",
        );
    }

    /// Siconos' MLCP error (`mlcp_compute_error`, Siconos numerics) at z with `w = Mz + q`
    /// (pass `Solution::w`; Siconos recomputes w from z itself — [`Mlcp::error_at`] does that).
    ///
    /// Rows are grouped into blocks: maximal runs of consecutive rows of one kind (Siconos
    /// takes the blocks from the file; every file of its MLCP suite has exactly one equality
    /// block followed by one complementarity block, where the two agree). Then
    ///
    /// ```text
    /// e_eq   = Σ_{equality blocks B} ‖w_B‖₂,           N_eq   = 1 + Σ_{equality blocks} ‖q_B‖₂,
    /// e_comp = Σ_{complementarity rows} c(zᵢ, wᵢ),     N_comp = 1 + Σ_{complementarity blocks} ‖w_B‖₂,
    /// c(z, w) = max(−z, 0) + max(−w, 0) + z·w if z, w have the same strict sign, else 0,
    /// error  = e_comp / (1 + N_comp) if e_comp / N_comp ≥ e_eq / N_eq, else e_eq / (1 + N_eq).
    /// ```
    ///
    /// So Siconos does normalize, but not by ‖q‖ as for the LCP: the equality part by 1 + ‖q_eq‖
    /// and the complementarity part by 1 + ‖w_comp‖ (of the current iterate), each once more
    /// shifted by 1 in the reported value; the complementarity part is a 1-norm-like sum with
    /// the product zᵢwᵢ. This differs from the MCP measure `‖F_eq‖₂ + ‖min(z, F)‖₂` of
    /// [`crate::Mcp::error`] (what the NCP solvers stop on); this one is for comparing with
    /// Siconos' reported MLCP errors number for number. NaN in z or w gives NaN.
    pub fn error(&self, z: &[f64], w: &[f64]) -> f64 {
        let n = self.n();
        if z.len() != n || w.len() != n {
            return f64::NAN;
        }
        let (mut e_eq, mut n_eq, mut e_comp, mut n_comp) = (0.0, 1.0, 0.0, 1.0);
        let mut start = 0;
        while start < n {
            let kind = self.free[start];
            let end = (start..n).find(|&i| self.free[i] != kind).unwrap_or(n);
            let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if kind {
                e_eq += norm(&w[start..end]);
                n_eq += norm(&self.q()[start..end]);
            } else {
                for i in start..end {
                    let (zi, wi) = (z[i], w[i]);
                    if zi.is_nan() || wi.is_nan() {
                        return f64::NAN;
                    }
                    if zi < 0.0 {
                        e_comp -= zi;
                        if wi < 0.0 {
                            e_comp += zi * wi;
                        }
                    }
                    if wi < 0.0 {
                        e_comp -= wi;
                    }
                    if zi > 0.0 && wi > 0.0 {
                        e_comp += zi * wi;
                    }
                }
                n_comp += norm(&w[start..end]);
            }
            start = end;
        }
        if e_comp / n_comp >= e_eq / n_eq {
            e_comp / (1.0 + n_comp)
        } else {
            e_eq / (1.0 + n_eq)
        }
    }

    /// [`Mlcp::error`] with w = Mz + q computed here (what Siconos does); NaN if `z` has the
    /// wrong length.
    pub fn error_at(&self, z: &[f64]) -> f64 {
        if z.len() != self.n() {
            return f64::NAN;
        }
        let w = self.w(z);
        self.error(z, &w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Mcp, NcpFunction};

    fn two() -> Mlcp {
        Mlcp::new(
            Matrix::from_row_major(2, 2, &[1.0, -1.0, 1.0, 1.0]).unwrap(),
            vec![0.0, -2.0],
            vec![true, false],
        )
        .unwrap()
    }

    #[test]
    fn new_checks_sizes_and_values() {
        let m = || Matrix::from_row_major(2, 2, &[1.0, 0.0, 0.0, 1.0]).unwrap();
        assert!(matches!(Mlcp::new(m(), vec![0.0], vec![true, false]), Err(Error::DimensionMismatch { .. })));
        assert!(matches!(Mlcp::new(m(), vec![0.0, 0.0], vec![true]), Err(Error::DimensionMismatch { .. })));
        assert!(matches!(
            Mlcp::new(m(), vec![0.0, f64::NAN], vec![true, false]),
            Err(Error::NonFinite { .. })
        ));
        let rect = Matrix::from_row_major(3, 2, &[1.0; 6]).unwrap();
        assert!(matches!(Mlcp::new(rect, vec![0.0; 3], vec![false; 3]), Err(Error::NotSquare { .. })));
    }

    #[test]
    fn function_and_bounds_make_the_mcp() {
        let p = two();
        let f = p.to_function();
        let mut out = [0.0; 2];
        f.eval(&[3.0, 1.0], &mut out);
        assert_eq!(out, [2.0, 2.0]);
        let (l, u) = p.bounds();
        assert_eq!(l, vec![f64::NEG_INFINITY, 0.0]);
        assert_eq!(u, vec![f64::INFINITY; 2]);
        let mcp = Mcp::new(&f, l, u).unwrap();
        // z = (3, 1): F = (2, 2): free part 2, comp part min(1, 2) = 1 → 3.
        assert_eq!(mcp.error(&[3.0, 1.0], &out), 3.0);
        assert_eq!(p.w(&[3.0, 1.0]), vec![2.0, 2.0]);
    }

    #[test]
    fn siconos_error_by_hand() {
        let p = two();
        // z = (3, 1): w = (2, 2). e_eq = 2, N_eq = 1 + |q₀| = 1; e_comp = 1·2 = 2,
        // N_comp = 1 + 2 = 3. e_comp/N_comp = 2/3 < e_eq/N_eq = 2 → 2/(1 + 1) = 1.
        assert_eq!(p.error(&[3.0, 1.0], &[2.0, 2.0]), 1.0);
        // z = (1, −1): w = (2, −2): e_eq = 2, e_comp = 1 + (−1)(−2) + 2 = 5, N_comp = 1 + 2 = 3:
        // 5/3 < 2/1 → 1.
        assert_eq!(p.error_at(&[1.0, -1.0]), 1.0);
        // z = (0, 0): w = (0, −2): e_eq = 0, e_comp = 2, N_comp = 3 → 2/4.
        assert_eq!(p.error_at(&[0.0, 0.0]), 0.5);
        // The solution.
        assert_eq!(p.error_at(&[1.0, 1.0]), 0.0);
        assert!(p.error_at(&[f64::NAN, 1.0]).is_nan());
        assert!(p.error_at(&[1.0]).is_nan());
    }

    #[test]
    fn blocks_are_runs_of_one_kind() {
        // Rows: eq, comp, eq — two equality blocks, their norms add.
        let m = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
        let p = Mlcp::new(m, vec![3.0, 0.0, 4.0], vec![true, false, true]).unwrap();
        // z = 0: w = q = (3, 0, 4): e_eq = 3 + 4 = 7, N_eq = 1 + 3 + 4 = 8, e_comp = 0 → 7/9.
        assert!((p.error_at(&[0.0; 3]) - 7.0 / 9.0).abs() < 1e-15);
    }
}
