//! [`DenseCholesky`]: `LLᵀ` of a dense symmetric positive definite matrix filled in place.

use super::{Breakdown, DenseStore};
use faer::dyn_stack::{MemStack, StackReq};
use faer::linalg::cholesky::llt::{factor as llt_factor, solve as llt_solve};
use faer::{Conj, MatMut, Par};

/// `A = L Lᵀ` of a dense symmetric positive definite matrix filled in place (its lower
/// triangle is read).
pub struct DenseCholesky {
    store: DenseStore,
    pub(super) factored: bool,
}

impl Default for DenseCholesky {
    fn default() -> Self {
        Self::new()
    }
}

fn llt_req(cap: usize, rhs: usize) -> StackReq {
    llt_factor::cholesky_in_place_scratch::<f64>(cap, Par::Seq, Default::default())
        .or(llt_solve::solve_in_place_scratch::<f64>(cap, rhs, Par::Seq))
}

impl DenseCholesky {
    /// Empty storage.
    pub fn new() -> Self {
        DenseCholesky { store: DenseStore::new(), factored: false }
    }

    /// As [`DenseLu::resize`].
    pub fn resize(&mut self, n: usize, rhs_cols: usize) {
        self.store.reserve(n, rhs_cols, llt_req);
        self.factored = false;
    }

    /// The `n × n` matrix to fill (lower triangle read) before [`DenseCholesky::factor`].
    pub fn matrix_mut(&mut self) -> MatMut<'_, f64> {
        self.factored = false;
        self.store.view()
    }

    /// Factorizes in place; `Err` when the matrix is not numerically positive definite.
    pub fn factor(&mut self) -> Result<(), Breakdown> {
        let n = self.store.n;
        let a = self.store.a.as_mut().submatrix_mut(0, 0, n, n);
        llt_factor::cholesky_in_place(
            a,
            Default::default(),
            Par::Seq,
            MemStack::new(&mut self.store.scratch),
            Default::default(),
        )
        .map_err(|e| match e {
            llt_factor::LltError::NonPositivePivot { index } => Breakdown::NotPositiveDefinite(index),
        })?;
        self.factored = true;
        Ok(())
    }

    /// Solves `A x = b` in place.
    ///
    /// # Panics
    /// If [`DenseCholesky::factor`] has not succeeded since the matrix was last changed.
    pub fn solve_in_place(&mut self, b: &mut [f64]) {
        assert!(self.factored, "DenseCholesky::solve before a successful factor");
        let n = self.store.n;
        let l = self.store.a.as_ref().submatrix(0, 0, n, n);
        llt_solve::solve_in_place_with_conj(
            l,
            Conj::No,
            MatMut::from_column_major_slice_mut(b, n, 1),
            Par::Seq,
            MemStack::new(&mut self.store.scratch),
        );
    }
}

/// As for [`DenseLu`]: same size, not factorized.
impl Clone for DenseCholesky {
    fn clone(&self) -> Self {
        let mut c = DenseCholesky::new();
        c.resize(self.store.n, self.store.rhs_cap);
        c
    }
}
