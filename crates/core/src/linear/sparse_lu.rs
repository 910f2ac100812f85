//! [`SparseLu`]: faer's sparse LU with the symbolic analysis kept while the pattern repeats.

use super::{Breakdown, Pattern};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::lu::{factorize_symbolic_lu, LuSymbolicParams, NumericLu, SymbolicLu};
use faer::sparse::linalg::LuError;
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par};

/// Sparse LU of a square matrix given in compressed-column form (`col_ptr`, `row_idx`,
/// `values`; row indices sorted within each column). The symbolic analysis (fill-reducing
/// ordering, elimination structure), the numeric factors' storage and the scratch are kept
/// while the order and the pattern stay the same, so refactorizing new values allocates
/// nothing; another order or pattern starts all three afresh.
pub struct SparseLu {
    /// The order from which the factorization is always supernodal (below it, faer's rule).
    supernodal_from: usize,
    pattern: Pattern,
    pub(super) symbolic: Option<SymbolicLu<usize>>,
    numeric: NumericLu<usize, f64>,
    scratch: Option<MemBuffer>,
    pub(super) factored: bool,
    analyses: usize,
}

impl Default for SparseLu {
    fn default() -> Self {
        Self::new()
    }
}

impl SparseLu {
    /// faer's default choice between simplicial and supernodal factorization.
    pub fn new() -> Self {
        SparseLu {
            supernodal_from: usize::MAX,
            pattern: Pattern::default(),
            symbolic: None,
            numeric: NumericLu::new(),
            scratch: None,
            factored: false,
            analyses: 0,
        }
    }

    /// Always supernodal (faster for matrices made of dense d×d blocks: measured 2× on
    /// BoxesStack1 and 15 % on Capsules in the frictional Newton methods).
    pub fn supernodal() -> Self {
        Self::supernodal_from(0)
    }

    /// Supernodal for matrices of order `n` and more, faer's rule below: on small matrices
    /// the supernodal factorization's bookkeeping costs more than it saves.
    pub fn supernodal_from(n: usize) -> Self {
        SparseLu { supernodal_from: n, ..Self::new() }
    }

    /// How many symbolic analyses were done (one per new pattern).
    pub fn analyses(&self) -> usize {
        self.analyses
    }

    /// Forgets the symbolic analysis (the next factorization redoes it).
    pub fn forget(&mut self) {
        self.symbolic = None;
        self.numeric = NumericLu::new();
        self.factored = false;
    }

    /// Factorizes the `n × n` matrix; the symbolic analysis is redone only when the pattern
    /// differs from the previous call's.
    pub fn factor(
        &mut self,
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
        values: &[f64],
    ) -> Result<(), Breakdown> {
        self.factored = false;
        let sym = SymbolicSparseColMatRef::new_checked(n, n, col_ptr, None, row_idx);
        if self.symbolic.is_none() || !self.pattern.matches(n, col_ptr, row_idx) {
            self.symbolic = None;
            // The numeric factors belong to the old analysis: faer refills a `NumericLu` in
            // place but never shrinks its column pointers (`resize_vec` keeps the longer
            // length), so factors of a smaller matrix in the storage of a larger one fail
            // faer's shape assertions at the solve (issue 36: a kept solver panicked when a
            // sparse problem shrank). Start from empty factors for each new analysis.
            self.numeric = NumericLu::new();
            let mut params = LuSymbolicParams::default();
            if n >= self.supernodal_from {
                params.supernodal_flop_ratio_threshold = SupernodalThreshold::FORCE_SUPERNODAL;
            }
            let s = factorize_symbolic_lu(sym, params).map_err(|_| Breakdown::Symbolic)?;
            let req = s
                .factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default())
                .or(s.solve_in_place_scratch::<f64>(1, Par::Seq))
                .or(s.solve_transpose_in_place_scratch::<f64>(1, Par::Seq));
            self.scratch = Some(MemBuffer::try_new(req).map_err(|_| Breakdown::Memory)?);
            self.symbolic = Some(s);
            self.pattern.set(n, col_ptr, row_idx);
            self.analyses += 1;
        }
        let (Some(symbolic), Some(buf)) = (&self.symbolic, &mut self.scratch) else {
            return Err(Breakdown::NotFactored);
        };
        symbolic
            .factorize_numeric_lu(
                &mut self.numeric,
                SparseColMatRef::new(sym, values),
                Par::Seq,
                MemStack::new(buf),
                Default::default(),
            )
            .map_err(|e| match e {
                LuError::SymbolicSingular { index } => Breakdown::Pivot(index),
                LuError::Generic(_) => Breakdown::Memory,
            })?;
        self.factored = true;
        Ok(())
    }

    fn solve_any(&mut self, b: &mut [f64], transpose: bool) -> Result<(), Breakdown> {
        let (Some(symbolic), Some(buf), true) = (&self.symbolic, &mut self.scratch, self.factored) else {
            return Err(Breakdown::NotFactored);
        };
        let n = b.len();
        let lu = faer::sparse::linalg::lu::LuRef::new_unchecked(symbolic, &self.numeric);
        let rhs = MatMut::from_column_major_slice_mut(b, n, 1);
        if transpose {
            lu.solve_transpose_in_place_with_conj(Conj::No, rhs, Par::Seq, MemStack::new(buf));
        } else {
            lu.solve_in_place_with_conj(Conj::No, rhs, Par::Seq, MemStack::new(buf));
        }
        super::finite(b)
    }

    /// Solves `A x = b` in place; `Err` without a factorization or when `x` is not finite.
    pub fn solve_in_place(&mut self, b: &mut [f64]) -> Result<(), Breakdown> {
        self.solve_any(b, false)
    }

    /// Solves `Aᵀ x = b` in place (a CSR matrix is the CSC of its transpose).
    pub fn solve_transpose_in_place(&mut self, b: &mut [f64]) -> Result<(), Breakdown> {
        self.solve_any(b, true)
    }
}

/// Same settings, no symbolic analysis yet.
impl Clone for SparseLu {
    fn clone(&self) -> Self {
        SparseLu { supernodal_from: self.supernodal_from, ..SparseLu::new() }
    }
}
