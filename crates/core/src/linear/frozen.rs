//! [`FrozenLu`]: an LU kept for many solves (and transposed solves) through `&self`.

use super::Breakdown;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut};

/// An LU factorization kept for many solves through `&self`, with its transpose: what a
/// sensitivity holds (one factorization of the reduced system, then any number of JVPs and
/// VJPs). Unlike [`DenseLu`] and [`SparseLu`] it owns no scratch: each solve allocates its own
/// (a solve returns a fresh vector anyway).
///
/// ```
/// use perp_core::linear::FrozenLu;
/// use perp_core::Matrix;
/// let a = Matrix::from_row_major(2, 2, &[2.0, 1.0, 0.0, 3.0]).unwrap();
/// let lu = FrozenLu::new(&a).unwrap();
/// let mut x = [3.0, 3.0];
/// lu.solve_in_place(&mut x).unwrap();
/// assert!((x[0] - 1.0).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15);
/// let mut y = [2.0, 4.0]; // Aᵀ y = (2, 4)
/// lu.solve_transpose_in_place(&mut y).unwrap();
/// assert!((y[0] - 1.0).abs() < 1e-15 && (y[1] - 1.0).abs() < 1e-15);
/// assert!(FrozenLu::new(&Matrix::from_row_major(2, 2, &[1.0, 1.0, 1.0, 1.0]).unwrap()).is_err());
/// ```
pub struct FrozenLu {
    n: usize,
    kind: FrozenKind,
}

enum FrozenKind {
    Dense(faer::linalg::solvers::PartialPivLu<f64>),
    Sparse(faer::sparse::linalg::solvers::Lu<usize, f64>),
}

impl std::fmt::Debug for FrozenLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            FrozenKind::Dense(_) => "dense",
            FrozenKind::Sparse(_) => "sparse",
        };
        write!(f, "FrozenLu {{ n: {}, {kind} }}", self.n)
    }
}

impl FrozenLu {
    /// Factorizes a square [`crate::Matrix`] (dense: partial pivoting; sparse: faer's sparse
    /// LU with its fill-reducing ordering). `Err(Breakdown)` when the matrix is numerically
    /// singular: a zero or non-finite pivot, pivots spread beyond `1 / (n·ε·10³)`, or a test
    /// solve against a known answer off by more than `1e-6` relative (a condition number
    /// beyond about 10⁹).
    pub fn new(a: &crate::Matrix) -> Result<FrozenLu, Breakdown> {
        let n = a.nrows();
        if a.ncols() != n {
            return Err(Breakdown::NotFactored);
        }
        let kind = match a {
            crate::Matrix::Dense(m) => {
                let lu = faer::linalg::solvers::PartialPivLu::new(m.as_ref());
                let u = lu.U();
                let (mut lo, mut hi) = (f64::INFINITY, 0.0_f64);
                for k in 0..n {
                    lo = lo.min(u[(k, k)].abs());
                    hi = hi.max(u[(k, k)].abs());
                }
                if n > 0 && !(lo > 0.0 && hi.is_finite() && lo >= hi * (n as f64) * f64::EPSILON * 1e3) {
                    return Err(match (0..n).find(|&k| !(u[(k, k)].abs() > 0.0 && u[(k, k)].is_finite())) {
                        Some(k) => Breakdown::Pivot(k),
                        None => Breakdown::IllConditioned,
                    });
                }
                FrozenKind::Dense(lu)
            }
            crate::Matrix::Sparse(s) => {
                let csc = s.to_csc();
                let (ptr, idx, val) = (csc.indptr(), csc.indices(), csc.data());
                let ptr = ptr.to_proper();
                let sym = SymbolicSparseColMatRef::new_checked(n, n, &ptr, None, idx);
                let m = SparseColMatRef::new(sym, val);
                FrozenKind::Sparse(m.sp_lu().map_err(|e| match e {
                    faer::sparse::linalg::LuError::SymbolicSingular { index } => Breakdown::Pivot(index),
                    faer::sparse::linalg::LuError::Generic(_) => Breakdown::Memory,
                })?)
            }
        };
        let lu = FrozenLu { n, kind };
        // A test solve against a known x: the residual exposes a singular matrix that the
        // pivots let through (sparse LU reports only exact zeros).
        let x: Vec<f64> = (0..n).map(|i| 1.0 + (i % 7) as f64 / 7.0).collect();
        let mut b = vec![0.0; n];
        a.mul_vec(&x, &mut b);
        lu.solve_in_place(&mut b)?;
        let err = b.iter().zip(&x).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
        if err.is_nan() || err > 1e-6 * crate::measures::norm_inf(&x) {
            return Err(Breakdown::IllConditioned);
        }
        Ok(lu)
    }

    /// The order n.
    pub fn n(&self) -> usize {
        self.n
    }

    fn solve_any(&self, b: &mut [f64], transpose: bool) -> Result<(), Breakdown> {
        use faer::linalg::solvers::SolveCore;
        if b.len() != self.n {
            return Err(Breakdown::NotFactored);
        }
        let n = self.n;
        let rhs = MatMut::from_column_major_slice_mut(b, n, 1);
        match (&self.kind, transpose) {
            (FrozenKind::Dense(lu), false) => lu.solve_in_place_with_conj(Conj::No, rhs),
            (FrozenKind::Dense(lu), true) => lu.solve_transpose_in_place_with_conj(Conj::No, rhs),
            (FrozenKind::Sparse(lu), false) => lu.solve_in_place_with_conj(Conj::No, rhs),
            (FrozenKind::Sparse(lu), true) => lu.solve_transpose_in_place_with_conj(Conj::No, rhs),
        }
        super::finite(b)
    }

    /// Solves `A x = b` in place (`Err` on a wrong length or a non-finite result).
    pub fn solve_in_place(&self, b: &mut [f64]) -> Result<(), Breakdown> {
        self.solve_any(b, false)
    }

    /// Solves `Aᵀ x = b` in place.
    pub fn solve_transpose_in_place(&self, b: &mut [f64]) -> Result<(), Breakdown> {
        self.solve_any(b, true)
    }
}
