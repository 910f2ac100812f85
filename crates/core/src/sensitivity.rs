//! What the sensitivities of every problem class share: the check that a result may be
//! differentiated, the split of a complementarity solution into free, fixed and degenerate
//! indices, and the one factorization of the reduced (active-set) system.
//!
//! At a solution `z` of `MCP(F, l, u)` (`l ≤ z ≤ u`, `F(z)` of the sign the bounds ask for), an
//! index is **free** when `l_i < z_i < u_i` (so `F_i(z) = 0`), **fixed** when `z_i` sits at a
//! bound with `F_i(z) ≠ 0`, and **degenerate** when it sits at a bound with `F_i(z) = 0`. Where no
//! index is degenerate and the free block `J_FF` of `∇F` is nonsingular, the solution is a
//! differentiable function of an additive perturbation `p` of F (`F(z) + p`): the fixed indices
//! stay at their bounds and the free ones follow the equations `F_F(z) + p_F = 0`, so
//!
//! ```text
//!     dz_F = −J_FF⁻¹ dp_F,      dz_fixed = 0.
//! ```
//!
//! (the implicit-function theorem on the piece of the piecewise-smooth solution map that holds
//! the solution; for the LCP, Cottle–Pang–Stone §5.7 on the continuity and piecewise linearity
//! of the LCP solution map). At a degenerate index the map is only directionally
//! differentiable; perp then returns the derivative of the piece where **the degenerate index
//! stays at its bound** (the limit of the derivative as `p_i` is pushed by `+ε` toward
//! `F_i ≠ 0`), and lists the index so that the caller sees it happened.

use crate::linear::FrozenLu;
use crate::{Error, Matrix, SolveReport, Status};

/// Default relative threshold under which both `z_i − bound` (relative to the scale of z) and
/// `F_i` (relative to the scale of F) count as zero, making index i degenerate.
pub const DEGENERACY_TOL: f64 = 1e-6;

/// `Err` unless `report` says `Solved`: the derivative of an answer that is not a solution
/// means nothing.
pub fn require_solved(report: &SolveReport) -> Result<(), Error> {
    if report.status == Status::Solved {
        return Ok(());
    }
    Err(Error::Requirement {
        solver: "sensitivity".into(),
        requirement: format!(
            "a solved result; this one ended with status {} (error {:.3e}, solver {})",
            report.status.as_str(),
            report.error,
            report.solver
        ),
        suggestion: Some("solve to a tighter tolerance or with another solver first".into()),
    })
}

/// `Err` unless an answer's error on the problem it is differentiated on, recomputed from the
/// answer (`recomputed`), is within `max(10 × reported, 1e-6)` of what its solve reported:
/// the answer must be a solution of *this* problem. Also checks the degeneracy threshold.
pub fn require_answer_of(recomputed: f64, reported: f64, tol: f64) -> Result<(), Error> {
    if !(tol.is_finite() && tol > 0.0) {
        return Err(Error::setting("tol", tol, "the degeneracy threshold must be finite and > 0"));
    }
    if recomputed <= (10.0 * reported).max(1e-6) {
        return Ok(());
    }
    Err(Error::Requirement {
        solver: "sensitivity".into(),
        requirement: format!(
            "a solution of this problem; the answer has error {recomputed:.3e} on it (its solve reported {reported:.3e})"
        ),
        suggestion: Some("pass the problem that was solved".into()),
    })
}

/// How each index of a complementarity solution behaves (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexState {
    /// Strictly between its bounds (or a free row): follows its equation.
    Free,
    /// At a bound with F of the strict sign: held there.
    Fixed,
    /// At a bound with F = 0: held there (the documented element), and reported.
    Degenerate,
}

/// Classifies index i of an MCP solution. `z_scale` and `f_scale` are the problem's own scales
/// of z and F (so the split survives any rescaling of the data); `tol` is relative to them.
pub fn classify(z: f64, f: f64, lower: f64, upper: f64, z_scale: f64, f_scale: f64, tol: f64) -> IndexState {
    if lower == f64::NEG_INFINITY && upper == f64::INFINITY {
        return IndexState::Free;
    }
    if lower == upper {
        return IndexState::Fixed;
    }
    let gap = ((z - lower).max(0.0)).min((upper - z).max(0.0)) / z_scale;
    let fr = f.abs() / f_scale;
    match (gap <= tol, fr <= tol) {
        (true, true) => IndexState::Degenerate,
        (true, false) => IndexState::Fixed,
        (false, true) => IndexState::Free,
        // Neither is small (a loose solve): the smaller one is the zero one.
        (false, false) if gap <= fr => IndexState::Fixed,
        (false, false) => IndexState::Free,
    }
}

/// The reduced system `J_FF` on the free indices F of an `n`-vector, factorized once, with
/// scatter and gather around its solves.
#[derive(Debug)]
pub struct ActiveSet {
    n: usize,
    free: Vec<usize>,
    lu: FrozenLu,
}

impl ActiveSet {
    /// Factorizes the block of `j` (n × n, dense or sparse) on the rows and columns `free`
    /// (ascending). `Err(Numerical)` when that block is singular: the solution is then not
    /// locally unique (or not differentiable), which the message says.
    pub fn new(j: &Matrix, free: Vec<usize>) -> Result<ActiveSet, Error> {
        let n = j.nrows();
        let block = submatrix(j, &free);
        let lu = FrozenLu::new(&block).map_err(|_| Error::Numerical {
            solver: "sensitivity".into(),
            message: format!(
                "the reduced system on the {} free indices is singular or too ill-conditioned: \
                 the solution is not locally unique (redundant constraints?) and has no derivative",
                free.len()
            ),
        })?;
        Ok(ActiveSet { n, free, lu })
    }

    /// From a reduced matrix already built (its rows and columns are `free`, in order).
    pub fn from_reduced(n: usize, free: Vec<usize>, block: &Matrix, what: &str) -> Result<ActiveSet, Error> {
        let lu = FrozenLu::new(block).map_err(|_| Error::Numerical {
            solver: "sensitivity".into(),
            message: format!(
                "the linearized {what} ({} unknowns) is singular or too ill-conditioned: the \
                 solution is not locally unique and has no derivative",
                free.len()
            ),
        })?;
        Ok(ActiveSet { n, free, lu })
    }

    /// The free indices.
    pub fn free(&self) -> &[usize] {
        &self.free
    }

    /// The full-length `x` with `x_F = J_FF⁻¹ b_F` and 0 elsewhere.
    pub fn solve(&self, b: &[f64]) -> Vec<f64> {
        self.apply(b, false)
    }

    /// The full-length `y` with `y_F = J_FF⁻ᵀ g_F` and 0 elsewhere.
    pub fn solve_transpose(&self, g: &[f64]) -> Vec<f64> {
        self.apply(g, true)
    }

    /// The derivative of the solution for an additive perturbation `dq` of F: `−solve(dq)`,
    /// after checking the length (`what` names the caller in the panic message).
    ///
    /// # Panics
    /// If `dq.len()` is not the problem's n.
    pub fn jvp(&self, what: &str, dq: &[f64]) -> Vec<f64> {
        assert_eq!(
            dq.len(),
            self.n,
            "{what}: the direction has length {}, expected n = {}",
            dq.len(),
            self.n
        );
        let mut x = self.solve(dq);
        x.iter_mut().for_each(|v| *v = -*v);
        x
    }

    /// The transpose of [`ActiveSet::jvp`]: `−solve_transpose(g)`.
    ///
    /// # Panics
    /// If `g.len()` is not the problem's n.
    pub fn vjp(&self, what: &str, g: &[f64]) -> Vec<f64> {
        assert_eq!(g.len(), self.n, "{what}: the cotangent has length {}, expected n = {}", g.len(), self.n);
        let mut y = self.solve_transpose(g);
        y.iter_mut().for_each(|v| *v = -*v);
        y
    }

    fn apply(&self, b: &[f64], transpose: bool) -> Vec<f64> {
        let mut x: Vec<f64> = self.free.iter().map(|&i| b[i]).collect();
        // The factorization passed its test solve, so a breakdown here is a non-finite input,
        // which then shows as NaN in the output.
        let ok =
            if transpose { self.lu.solve_transpose_in_place(&mut x) } else { self.lu.solve_in_place(&mut x) };
        if ok.is_err() {
            x.iter_mut().for_each(|v| *v = f64::NAN);
        }
        let mut out = vec![0.0; self.n];
        for (&i, v) in self.free.iter().zip(x) {
            out[i] = v;
        }
        out
    }
}

/// The block of `j` on rows and columns `idx` (ascending), in `j`'s storage kind.
pub fn submatrix(j: &Matrix, idx: &[usize]) -> Matrix {
    let k = idx.len();
    match j {
        Matrix::Dense(m) => Matrix::Dense(faer::Mat::from_fn(k, k, |a, b| m[(idx[a], idx[b])])),
        Matrix::Sparse(s) => {
            let mut pos = vec![usize::MAX; j.nrows().max(j.ncols())];
            for (a, &i) in idx.iter().enumerate() {
                pos[i] = a;
            }
            let mut tri = sprs::TriMat::new((k, k));
            for (v, (i, c)) in s.iter() {
                if pos[i] != usize::MAX && pos[c] != usize::MAX {
                    tri.add_triplet(pos[i], pos[c], *v);
                }
            }
            Matrix::Sparse(tri.to_csr())
        }
    }
}

/// Checks a user's direction or cotangent: length `n` and finite values.
pub fn check_vector(what: &str, v: &[f64], n: usize) -> Result<(), Error> {
    Error::check_len(what, v, n)?;
    Error::check_finite(what, v)
}

/// `yᵀ A x` for every stored entry: the gradient of `⟨y, A x⟩` with respect to A's stored
/// values, as a matrix of A's storage (dense: the outer product `y xᵀ`; sparse: `y_i x_j` on
/// A's pattern only).
pub fn outer_on_pattern(a: &Matrix, y: &[f64], x: &[f64]) -> Matrix {
    match a {
        Matrix::Dense(m) => Matrix::Dense(faer::Mat::from_fn(m.nrows(), m.ncols(), |i, j| y[i] * x[j])),
        Matrix::Sparse(s) => {
            let mut out = s.clone();
            if out.is_csr() {
                for (i, mut row) in out.outer_iterator_mut().enumerate() {
                    for (j, v) in row.iter_mut() {
                        *v = y[i] * x[j];
                    }
                }
            } else {
                for (j, mut col) in out.outer_iterator_mut().enumerate() {
                    for (i, v) in col.iter_mut() {
                        *v = y[i] * x[j];
                    }
                }
            }
            Matrix::Sparse(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_is_scale_free_and_flags_both_zero() {
        for s in [1e-8, 1.0, 1e8] {
            assert_eq!(classify(2.0 * s, 0.0, 0.0, f64::INFINITY, s, s, 1e-6), IndexState::Free);
            assert_eq!(classify(0.0, 3.0 * s, 0.0, f64::INFINITY, s, s, 1e-6), IndexState::Fixed);
            assert_eq!(classify(0.0, 1e-12 * s, 0.0, f64::INFINITY, s, s, 1e-6), IndexState::Degenerate);
            assert_eq!(classify(s, -2.0 * s, 0.0, s, s, s, 1e-6), IndexState::Fixed);
        }
        assert_eq!(classify(5.0, 1.0, f64::NEG_INFINITY, f64::INFINITY, 1.0, 1.0, 1e-6), IndexState::Free);
        assert_eq!(classify(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1e-6), IndexState::Fixed);
    }

    #[test]
    fn active_set_solves_the_free_block_both_ways_dense_and_sparse() {
        let d = Matrix::from_row_major(3, 3, &[4.0, 1.0, 9.0, 2.0, 3.0, 9.0, 9.0, 9.0, 9.0]).unwrap();
        for j in [d.clone(), Matrix::Sparse(d.to_csr())] {
            let a = ActiveSet::new(&j, vec![0, 1]).unwrap();
            let x = a.solve(&[5.0, 5.0, 7.0]); // [[4,1],[2,3]] x = (5,5)
            assert!((x[0] - 1.0).abs() < 1e-14 && (x[1] - 1.0).abs() < 1e-14 && x[2] == 0.0);
            let y = a.solve_transpose(&[6.0, 4.0, 7.0]); // [[4,2],[1,3]] y = (6,4)
            assert!((y[0] - 1.0).abs() < 1e-14 && (y[1] - 1.0).abs() < 1e-14 && y[2] == 0.0);
        }
        let singular = Matrix::from_row_major(2, 2, &[1.0, 2.0, 2.0, 4.0]).unwrap();
        let e = ActiveSet::new(&singular, vec![0, 1]).unwrap_err();
        assert!(e.to_string().contains("singular"), "{e}");
    }

    #[test]
    fn unsolved_results_are_refused() {
        let r = SolveReport::new("pgs");
        let e = require_solved(&r).unwrap_err();
        assert!(e.to_string().contains("max_iterations"), "{e}");
    }
}
