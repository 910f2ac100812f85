//! [`DenseLu`]: LU with partial pivoting of a dense matrix filled in place, in storage kept
//! between factorizations (faer's `lu_in_place` above `SMALL_LU` (40), the kernel of
//! [`super::small`] below).

use super::small::{small_lu_in_place, small_lu_solve_dispatch};
use super::{Breakdown, DenseStore, Pivots};
use faer::dyn_stack::{MemStack, StackReq};
use faer::linalg::lu::partial_pivoting::{factor as lu_factor, solve as lu_solve};
use faer::perm::PermRef;
use faer::{MatMut, MatRef, Par};

/// LU with partial pivoting, `P A = L U`, of a dense matrix filled in place.
///
/// ```
/// use perp_core::linear::DenseLu;
/// let mut lu = DenseLu::new();
/// lu.resize(2, 1);
/// let mut a = lu.matrix_mut();
/// a[(0, 0)] = 2.0; a[(0, 1)] = 1.0; a[(1, 0)] = 1.0; a[(1, 1)] = 3.0;
/// let pivots = lu.factor().unwrap();
/// assert!(!pivots.singular(2.0 * f64::EPSILON));
/// let mut x = [3.0, 4.0];
/// lu.solve_in_place(&mut x);
/// assert!((x[0] - 1.0).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15);
/// ```
pub struct DenseLu {
    store: DenseStore,
    pub(super) perm: Vec<usize>,
    pub(super) perm_inv: Vec<usize>,
    pub(super) factored: bool,
}

impl Default for DenseLu {
    fn default() -> Self {
        Self::new()
    }
}

pub(super) fn lu_req(cap: usize, rhs: usize) -> StackReq {
    lu_factor::lu_in_place_scratch::<usize, f64>(cap, cap, Par::Seq, Default::default())
        .or(lu_solve::solve_in_place_scratch::<usize, f64>(cap, rhs, Par::Seq))
}

impl DenseLu {
    /// Empty storage.
    pub fn new() -> Self {
        DenseLu { store: DenseStore::new(), perm: Vec::new(), perm_inv: Vec::new(), factored: false }
    }

    /// Makes the matrix `n × n`, for right-hand sides of up to `rhs_cols` columns. Storage
    /// grows when needed and is kept otherwise: no allocation once it fits.
    pub fn resize(&mut self, n: usize, rhs_cols: usize) {
        self.store.reserve(n, rhs_cols, lu_req);
        if self.perm.len() < n {
            self.perm.resize(n, 0);
            self.perm_inv.resize(n, 0);
        }
        self.factored = false;
    }

    /// The order `n`.
    pub fn n(&self) -> usize {
        self.store.n
    }

    /// The `n × n` matrix to fill before [`DenseLu::factor`] (holds the factors after it).
    #[inline]
    pub fn matrix_mut(&mut self) -> MatMut<'_, f64> {
        self.factored = false;
        self.store.view()
    }

    /// Factorizes the matrix in place and returns its pivots; `Err(Breakdown::Pivot(k))` when
    /// pivot k is zero or not finite (the caller applies its own relative threshold with [`Pivots::singular`]).
    #[inline]
    pub fn factor(&mut self) -> Result<Pivots, Breakdown> {
        let n = self.store.n;
        let a = self.store.a.as_mut().submatrix_mut(0, 0, n, n);
        if n <= SMALL_LU {
            small_lu_in_place(a, &mut self.perm[..n], &mut self.perm_inv[..n]);
        } else {
            lu_factor::lu_in_place(
                a,
                &mut self.perm[..n],
                &mut self.perm_inv[..n],
                Par::Seq,
                MemStack::new(&mut self.store.scratch),
                Default::default(),
            );
        }
        let u = self.store.a.as_ref().submatrix(0, 0, n, n);
        let mut p = Pivots { min: f64::INFINITY, max: 0.0 };
        for k in 0..n {
            let v = u[(k, k)].abs();
            p.min = p.min.min(v);
            p.max = p.max.max(v);
        }
        if let Some(k) = (0..n).find(|&k| !(u[(k, k)].abs() > 0.0 && u[(k, k)].is_finite())) {
            return Err(Breakdown::Pivot(k));
        }
        self.factored = true;
        Ok(p)
    }

    /// The factors, `L` unit lower and `U` upper, packed in one `n × n` matrix.
    pub fn factors(&self) -> MatRef<'_, f64> {
        let n = self.store.n;
        self.store.a.as_ref().submatrix(0, 0, n, n)
    }

    /// Solves `A X = B` in place for `B` of `n` rows and at most `rhs_cols` columns.
    ///
    /// # Panics
    /// If [`DenseLu::factor`] has not succeeded since the matrix was last changed, or `B`
    /// does not fit (both programming errors).
    #[inline]
    pub fn solve_mat_in_place(&mut self, rhs: MatMut<'_, f64>) {
        assert!(self.factored, "DenseLu::solve before a successful factor");
        let n = self.store.n;
        assert!(rhs.nrows() == n && rhs.ncols() <= self.store.rhs_cap, "right-hand side does not fit");
        let f = self.store.a.as_ref().submatrix(0, 0, n, n);
        if n <= SMALL_LU {
            small_lu_solve_dispatch(f, &self.perm[..n], rhs);
            return;
        }
        let perm = PermRef::new_checked(&self.perm[..n], &self.perm_inv[..n], n);
        lu_solve::solve_in_place(f, f, perm, rhs, Par::Seq, MemStack::new(&mut self.store.scratch));
    }

    /// Solves `A x = b` in place.
    #[inline]
    pub fn solve_in_place(&mut self, b: &mut [f64]) {
        let n = b.len();
        self.solve_mat_in_place(MatMut::from_column_major_slice_mut(b, n, 1));
    }
}

/// Orders up to which [`DenseLu`] factors and solves with [`small_lu_in_place`] rather than
/// faer's recursive LU, whose dispatch costs more than the arithmetic on small matrices (the
/// Newton matrices of problems of up to about a dozen contacts), chosen by measurement: factor
/// and solve of a random matrix (`crates/core/examples/dense_small.rs`), this kernel against
/// faer's; the figures are in `docs/performance.md` ("Dense LU").
pub(super) const SMALL_LU: usize = 40;

/// A clone is workspace of the same size, not yet factorized (solvers clone their workspaces,
/// never a factorization in use).
impl Clone for DenseLu {
    fn clone(&self) -> Self {
        let mut c = DenseLu::new();
        c.resize(self.store.n, self.store.rhs_cap);
        c
    }
}
