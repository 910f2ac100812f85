//! [`Lcp`]: the linear complementarity problem and its box-constrained variant, and the
//! in-place helpers of [`crate::LcpSolver::solve_into`] (report reset, messages written into
//! reused Strings, `w = Mz + q` and the error measures into the caller's buffers).

use perp_core::{measures, Error, Matrix, Solution, SolutionMut, SolveReport};

/// The linear complementarity problem LCP(q, M): find z with
///
/// ```text
///     0 ≤ z ⊥ w = M z + q ≥ 0,
/// ```
///
/// or, with bounds, the box-LCP (mixed complementarity with simple bounds, as in ODE/Bullet
/// friction): find `lo ≤ z ≤ hi` with, for every i,
/// `zᵢ = loᵢ ⇒ wᵢ ≥ 0`, `zᵢ = hiᵢ ⇒ wᵢ ≤ 0`, `loᵢ < zᵢ < hiᵢ ⇒ wᵢ = 0`.
///
/// The input is checked once, here: M square, sizes agree, every value finite, `lo ≤ hi`
/// with `lo < +∞` and `hi > −∞`. [`Lcp::set_q`] and [`Lcp::set_m_values`] overwrite the
/// values in place (same n, same storage and sparsity pattern) with the same checks, without
/// allocating, for a simulator that solves a problem of the same structure at every step.
#[derive(Clone, Debug)]
pub struct Lcp {
    m: Matrix,
    q: Vec<f64>,
    bounds: Option<(Vec<f64>, Vec<f64>)>,
    /// max|Mᵢⱼ| and max|qᵢ|, kept with the data (every constructor and setter), so that the
    /// physical check and [`Lcp::unit_scaling`] do not pass over M at every solve.
    m_max: f64,
    q_max: f64,
}

impl Lcp {
    /// The standard LCP 0 ≤ z ⊥ Mz + q ≥ 0.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// use perp_lcp::Lcp;
    /// let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
    /// let p = Lcp::new(m, vec![-5.0, -6.0]).unwrap();
    /// assert_eq!(p.n(), 2);
    /// let bad = Matrix::from_row_major(1, 2, &[1.0, 2.0]).unwrap();
    /// assert!(Lcp::new(bad, vec![1.0]).is_err());
    /// ```
    pub fn new(m: Matrix, q: Vec<f64>) -> Result<Lcp, Error> {
        if m.nrows() != m.ncols() {
            return Err(Error::NotSquare { what: "M".into(), rows: m.nrows(), cols: m.ncols() });
        }
        Error::check_len("q", &q, m.nrows())?;
        m.check_finite("M")?;
        Error::check_finite("q", &q)?;
        let (m_max, q_max) = (m.max_abs(), measures::norm_inf(&q));
        Ok(Lcp { m, q, bounds: None, m_max, q_max })
    }

    /// The box-LCP with `lower ≤ z ≤ upper` (use `f64::INFINITY` / `f64::NEG_INFINITY` for
    /// absent bounds).
    ///
    /// ```
    /// use perp_core::Matrix;
    /// use perp_lcp::Lcp;
    /// let m = Matrix::from_row_major(1, 1, &[1.0]).unwrap();
    /// let p = Lcp::with_bounds(m.clone(), vec![-3.0], vec![-1.0], vec![1.0]).unwrap();
    /// assert!(p.is_box());
    /// assert!(Lcp::with_bounds(m, vec![-3.0], vec![2.0], vec![1.0]).is_err());
    /// ```
    pub fn with_bounds(m: Matrix, q: Vec<f64>, lower: Vec<f64>, upper: Vec<f64>) -> Result<Lcp, Error> {
        let mut p = Lcp::new(m, q)?;
        let n = p.n();
        Error::check_len("lower", &lower, n)?;
        Error::check_len("upper", &upper, n)?;
        Error::check_bounds(&lower, &upper)?;
        p.bounds = Some((lower, upper));
        Ok(p)
    }

    /// Overwrites q in place (no allocation). `Err` (and `self` unchanged) when `q` does not
    /// have length n or has a non-finite entry.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// use perp_lcp::Lcp;
    /// let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
    /// let mut p = Lcp::new(m, vec![-5.0, -6.0]).unwrap();
    /// p.set_q(&[1.0, -1.0]).unwrap();
    /// assert_eq!(p.q(), &[1.0, -1.0]);
    /// assert!(p.set_q(&[1.0, f64::NAN]).is_err() && p.set_q(&[1.0]).is_err());
    /// ```
    pub fn set_q(&mut self, q: &[f64]) -> Result<(), Error> {
        Error::check_len("q", q, self.n())?;
        Error::check_finite("q", q)?;
        self.q.copy_from_slice(q);
        self.q_max = measures::norm_inf(q);
        Ok(())
    }

    /// Overwrites the values of M in place, keeping its storage and sparsity pattern (no
    /// allocation): for a dense M, `values` lists all n² entries row by row (as
    /// [`Matrix::from_row_major`]); for a sparse M, the stored entries in storage order (the
    /// `data()` array of the `sprs` matrix: row by row for CSR, column by column for CSC).
    /// `Err` (and `self` unchanged) when the length differs or a value is not finite.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// use perp_lcp::Lcp;
    /// let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
    /// let mut p = Lcp::new(m, vec![-5.0, -6.0]).unwrap();
    /// p.set_m_values(&[3.0, 0.0, 1.0, 4.0]).unwrap();
    /// assert_eq!((p.m().get(0, 1), p.m().get(1, 0)), (0.0, 1.0));
    /// let s = Matrix::from_triplets(2, 2, &[(0, 0, 1.0), (1, 1, 2.0)]).unwrap();
    /// let mut p = Lcp::new(s, vec![-1.0, -1.0]).unwrap();
    /// p.set_m_values(&[5.0, 6.0]).unwrap();
    /// assert_eq!(p.m().get(1, 1), 6.0);
    /// assert!(p.set_m_values(&[1.0, 2.0, 3.0]).is_err());
    /// ```
    pub fn set_m_values(&mut self, values: &[f64]) -> Result<(), Error> {
        let n = self.n();
        match &mut self.m {
            Matrix::Dense(a) => {
                Error::check_len("values of dense M (row-major)", values, n * n)?;
                Error::check_finite("values of dense M (row-major)", values)?;
                for j in 0..n {
                    for (i, x) in a.col_as_slice_mut(j).iter_mut().enumerate() {
                        *x = values[i * n + j];
                    }
                }
            }
            Matrix::Sparse(s) => {
                Error::check_len("values of sparse M (storage order)", values, s.nnz())?;
                Error::check_finite("values of sparse M (storage order)", values)?;
                s.data_mut().copy_from_slice(values);
            }
        }
        self.m_max = measures::norm_inf(values);
        Ok(())
    }

    /// Dimension n.
    pub fn n(&self) -> usize {
        self.q.len()
    }

    /// The matrix M.
    pub fn m(&self) -> &Matrix {
        &self.m
    }

    /// The vector q.
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// How far from 1 the data may be before [`Lcp::unit_scaling`] proposes a scaling: 2²⁰
    /// (about 1e6). Not less: the woodpecker's LCPs (max|M| ≈ 2 000, q ≈ 3e-2, tol 1e-12)
    /// pivoted on data scaled to 1 missed the tolerance in 3 of 98 989 steps, where the data as
    /// given are all solved — Lemke's tolerances are not yet fully scale invariant, and data
    /// within 1e±6 of 1 were all solved unscaled in the tests (`honest_sweep`).
    pub const SCALE_RANGE: f64 = 1_048_576.0;

    /// The powers of two `(γ, δ)` that bring `max|q|` and `max|M|` near 1 (`γ max|q| ≈ 1`,
    /// `γδ max|M| ≈ 1`; see [`Lcp::scaled`]), when either lies outside
    /// `[1/SCALE_RANGE, SCALE_RANGE]`; `None` otherwise, and for q = 0 or M = 0.
    ///
    /// Solvers whose tolerances or merit functions assume data near 1 (Lemke's pivoting
    /// tolerances, the Fischer–Burmeister function, which adds z and w as if they had one
    /// unit) solve the scaled problem instead. Powers of two scale exactly.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// use perp_lcp::Lcp;
    /// let p = Lcp::new(Matrix::from_row_major(1, 1, &[3e-12]).unwrap(), vec![-2e-6]).unwrap();
    /// let (g, d) = p.unit_scaling().unwrap();
    /// assert_eq!((g, g * d), (2f64.powi(19), 2f64.powi(38)));
    /// assert!(Lcp::new(Matrix::from_row_major(1, 1, &[3e4]).unwrap(), vec![-2e-4]).unwrap().unit_scaling().is_none());
    /// let s = p.scaled(g, d).unwrap();
    /// assert!((0.5..2.0).contains(&s.q()[0].abs()) && (0.5..2.0).contains(&s.m().max_abs()));
    /// assert!(Lcp::new(Matrix::from_row_major(1, 1, &[3.0]).unwrap(), vec![-2.0]).unwrap().unit_scaling().is_none());
    /// ```
    pub fn unit_scaling(&self) -> Option<(f64, f64)> {
        let (qmax, mmax) = (self.q_max, self.m_max);
        if !(qmax > 0.0 && mmax > 0.0 && qmax.is_finite() && mmax.is_finite()) {
            return None;
        }
        let near = |x: f64| (1.0 / Self::SCALE_RANGE..=Self::SCALE_RANGE).contains(&x);
        if near(qmax) && near(mmax) {
            return None;
        }
        let pow2 = |x: f64| (-x.log2().round()).exp2();
        let gamma = pow2(qmax);
        let delta = pow2(gamma * mmax);
        (gamma.is_normal() && delta.is_normal()).then_some((gamma, delta))
    }

    /// LCP(γq, γδM) (bounds ÷ δ for a box-LCP), whose solutions are `z/δ` for the solutions
    /// z of this one (`w` scales by γ), for positive γ, δ.
    pub fn scaled(&self, gamma: f64, delta: f64) -> Result<Lcp, Error> {
        if !(gamma > 0.0 && delta > 0.0 && (gamma * delta).is_finite()) {
            return Err(Error::setting("scaling", gamma * delta, "a positive, finite scaling"));
        }
        let f = gamma * delta;
        let m = match &self.m {
            Matrix::Dense(d) => Matrix::Dense(faer::Mat::from_fn(d.nrows(), d.ncols(), |i, j| f * d[(i, j)])),
            Matrix::Sparse(c) => Matrix::Sparse(c.map(|v| f * v)),
        };
        let q = self.q.iter().map(|v| gamma * v).collect();
        match &self.bounds {
            None => Lcp::new(m, q),
            Some((lo, hi)) => Lcp::with_bounds(
                m,
                q,
                lo.iter().map(|v| v / delta).collect(),
                hi.iter().map(|v| v / delta).collect(),
            ),
        }
    }

    /// Runs `solve` on this problem, or, when [`Lcp::unit_scaling`] proposes `(γ, δ)`, on
    /// [`Lcp::scaled`] from the warm start ÷ δ; the answer is then unscaled (z × δ), measured
    /// and verified on this problem ([`Lcp::solution`]), and its message says so.
    pub fn solve_unit_scaled(
        &self,
        warm: Option<&[f64]>,
        tol: f64,
        mut solve: impl FnMut(&Lcp, Option<&[f64]>) -> Result<Solution, Error>,
    ) -> Result<Solution, Error> {
        let Some((gamma, delta)) = self.unit_scaling() else {
            return solve(self, warm);
        };
        let scaled = self.scaled(gamma, delta)?;
        let warm = warm.map(|z| z.iter().map(|v| v / delta).collect::<Vec<f64>>());
        let sol = solve(&scaled, warm.as_deref())?;
        let z = sol.z.iter().map(|v| v * delta).collect();
        let mut report = sol.report;
        note_scaling(&mut report, gamma, delta);
        Ok(self.solution(z, report, tol))
    }

    /// The in-place form of [`Lcp::solve_unit_scaled`], for `solve_into`: `solve(problem,
    /// warm, out, finish)` runs on this problem with `finish` true (it measures and
    /// verifies its answer itself), or on the scaled one with `finish` false, after which z is
    /// unscaled and the answer measured and verified here. Returns the scaling used. Allocates
    /// only the scaled copy, and only for data far from 1.
    pub(crate) fn solve_into_unit_scaled(
        &self,
        warm: bool,
        out: SolutionMut<'_>,
        tol: f64,
        solve: impl FnOnce(&Lcp, bool, SolutionMut<'_>, bool) -> Result<(), Error>,
    ) -> Result<Option<(f64, f64)>, Error> {
        let SolutionMut { z, w, report } = out;
        let Some((gamma, delta)) = self.unit_scaling() else {
            solve(self, warm, SolutionMut { z, w, report }, true)?;
            return Ok(None);
        };
        let scaled = self.scaled(gamma, delta)?;
        let unscale = |z: &mut [f64]| z.iter_mut().for_each(|v| *v *= delta);
        if warm {
            z.iter_mut().for_each(|v| *v /= delta);
        }
        if let Err(e) =
            solve(&scaled, warm, SolutionMut { z: &mut *z, w: &mut *w, report: &mut *report }, false)
        {
            unscale(z);
            return Err(e);
        }
        unscale(z);
        self.finish(z, w, report, tol, &mut String::new());
        note_scaling(report, gamma, delta);
        Ok(Some((gamma, delta)))
    }

    /// `(lower, upper)` for a box-LCP, `None` for a standard LCP.
    pub fn bounds(&self) -> Option<(&[f64], &[f64])> {
        self.bounds.as_ref().map(|(l, u)| (l.as_slice(), u.as_slice()))
    }

    /// Whether bounds other than the standard `[0, ∞)` were given.
    pub fn is_box(&self) -> bool {
        self.bounds.is_some()
    }

    /// `w = M z + q`.
    pub fn w(&self, z: &[f64]) -> Vec<f64> {
        let mut w = vec![0.0; self.n()];
        self.m.mul_vec(z, &mut w);
        for (wi, qi) in w.iter_mut().zip(&self.q) {
            *wi += qi;
        }
        w
    }

    /// The peer-compatible error (Siconos' `‖min(z, w)‖₂ / ‖q‖₂`, or its box extension
    /// [`measures::box_lcp_error`]) and the absolute ∞-norm residual, at `(z, w)`.
    pub fn errors(&self, z: &[f64], w: &[f64]) -> (f64, f64) {
        match self.bounds() {
            None => (measures::lcp_error(&self.q, z, w), measures::lcp_residual_inf(z, w)),
            Some((lo, hi)) => {
                (measures::box_lcp_error(&self.q, z, w, lo, hi), measures::box_residual_inf(z, w, lo, hi))
            }
        }
    }

    /// Checks a warm start: length n and finite values.
    pub fn check_warm(&self, warm: Option<&[f64]>) -> Result<(), Error> {
        if let Some(z) = warm {
            Error::check_len("warm start", z, self.n())?;
            Error::check_finite("warm start", z)?;
        }
        Ok(())
    }

    /// Wraps up a solve: computes `w = Mz + q`, the error measures from the returned `z`,
    /// then applies [`SolveReport::verify`] so that `Solved` is never claimed with
    /// `error > tol`.
    pub fn solution(&self, z: Vec<f64>, mut report: SolveReport, tol: f64) -> Solution {
        let mut w = vec![0.0; self.n()];
        self.finish(&z, &mut w, &mut report, tol, &mut String::new());
        Solution { z, w, report, ray: None }
    }

    /// [`Lcp::solution`] into the caller's buffers: `w = Mz + q` (the same operations as
    /// [`Lcp::w`]), the error measures, then [`SolveReport::verify_with`] (no allocation).
    pub(crate) fn finish(
        &self,
        z: &[f64],
        w: &mut [f64],
        report: &mut SolveReport,
        tol: f64,
        spare: &mut String,
    ) {
        self.m.mul_vec(z, w);
        for (wi, qi) in w.iter_mut().zip(&self.q) {
            *wi += qi;
        }
        let (error, residual_inf) = self.errors(z, w);
        report.error = error;
        report.residual_inf = residual_inf;
        self.finish_measured(z, w, report, tol, spare);
    }

    /// The checks of [`Lcp::finish`] on an answer whose `w = Mz + q` and error measures the
    /// solver has just computed itself (in `w` and the report): [`SolveReport::verify_with`],
    /// then the physical check.
    pub(crate) fn finish_measured(
        &self,
        z: &[f64],
        w: &[f64],
        report: &mut SolveReport,
        tol: f64,
        spare: &mut String,
    ) {
        report.verify_with(tol, spare);
        // The physical check (issue 15): the peer measure compares z with w as if they had one
        // unit; a `Solved` answer must also be right in the problem's own scales.
        // Velocities at the data's scale plus what computing w = Mz + q may round (issue 36).
        let rounding = self.m.rounding_bound_with(self.m_max, z, 1e-6 * measures::norm2(&self.q));
        let phys = match &self.bounds {
            None => measures::lcp_physical_error(rounding, &self.q, z, w),
            Some((lo, hi)) => measures::box_lcp_physical_error(rounding, &self.q, lo, hi, z, w),
        };
        report.check_physics_with(phys, tol, "infeasibility or complementarity of z and w", spare);
    }

    /// The buffer checks of `solve_into`: with `warm`, `z` is checked as a warm start (length n,
    /// finite: the same error as [`Lcp::check_warm`]); else only its length; `w` has length n.
    pub(crate) fn check_buffers(&self, warm: bool, z: &[f64], w: &[f64]) -> Result<(), Error> {
        if warm {
            self.check_warm(Some(z))?;
        } else {
            Error::check_len("z", z, self.n())?;
        }
        Error::check_len("w", w, self.n())
    }
}

/// Resets `report` in place to [`SolveReport::new`]`(name)`: the `solver` String keeps its
/// storage, a previous message's String is kept in `spare` for the next message.
pub(crate) fn reset_report(report: &mut SolveReport, name: &str, spare: &mut String) {
    report.reset_for(name);
    if let Some(m) = report.message.take() {
        if m.capacity() >= spare.capacity() {
            *spare = m;
        }
    }
}

/// Appends to `report`'s message that the solve ran on the data scaled by `(γ, δ)`
/// ([`Lcp::unit_scaling`]).
pub(crate) fn note_scaling(report: &mut SolveReport, gamma: f64, delta: f64) {
    let note = format!("solved on the data scaled by powers of two (q × {gamma:e}, M × {:e})", gamma * delta);
    report.message = Some(match report.message.take() {
        Some(m) if !m.is_empty() => format!("{m}; {note}"),
        _ => note,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_input_naming_the_value() {
        let m = Matrix::from_row_major(2, 2, &[1.0, 0.0, 0.0, 1.0]).unwrap();
        let e = Lcp::new(m.clone(), vec![1.0]).unwrap_err();
        assert_eq!(e.to_string(), "dimension mismatch: q has length 1, expected 2");
        let e = Lcp::new(m.clone(), vec![1.0, f64::INFINITY]).unwrap_err();
        assert_eq!(e.to_string(), "q[1] = inf is not finite");
        let e = Lcp::with_bounds(m.clone(), vec![0.0; 2], vec![0.0; 2], vec![1.0, f64::NEG_INFINITY])
            .unwrap_err();
        assert!(matches!(e, Error::InvalidBounds { index: 1, .. }), "{e}");
        let p = Lcp::new(m, vec![1.0, 1.0]).unwrap();
        assert!(p.check_warm(Some(&[1.0])).is_err());
        assert!(p.check_warm(Some(&[1.0, f64::NAN])).is_err());
    }

    #[test]
    fn solution_recomputes_w_and_refuses_a_false_claim() {
        let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
        let p = Lcp::new(m, vec![-5.0, -6.0]).unwrap();
        // Exact solution z = (4/3, 7/3), w = 0.
        let mut r = SolveReport::new("test");
        r.status = perp_core::Status::Solved;
        let s = p.solution(vec![4.0 / 3.0, 7.0 / 3.0], r.clone(), 1e-12);
        assert!(s.report.error < 1e-15 && s.report.status == perp_core::Status::Solved);
        let s = p.solution(vec![1.0, 2.0], r, 1e-12);
        assert_eq!(s.report.status, perp_core::Status::NumericalFailure);
    }
}
