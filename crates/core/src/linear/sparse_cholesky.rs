//! [`SparseCholesky`]: faer's sparse `LLᵀ` of a symmetric positive definite matrix, or `LDLᵀ`
//! of a symmetric quasi-definite one (the KKT systems of interior-point methods), with a
//! fill-reducing ordering (approximate minimum degree), the symbolic analysis kept while the
//! pattern repeats, and the numeric factor written into kept storage.
//!
//! A sequence of problems with the same contact graph (the steps of a simulation, the
//! iterations of a Newton or interior-point method) gives matrices of one pattern: the
//! analysis — ordering, elimination tree, supernodes — is done once ([`SparseCholesky::analyses`]
//! counts them) and each new set of values costs one numeric factorization, without
//! allocating once the storage has grown to fit.
//!
//! faer chooses between its simplicial (column by column) and supernodal (dense blocks)
//! numeric factorizations from the analysis' flop count per nonzero of L; [`Supernodal`]
//! overrides that choice. On the body-graph matrices `M + H G Hᵀ` of SAP's Newton method
//! (rigid bodies: 6 × 6 blocks, cliques of 12) faer's own rule picks the simplicial code,
//! whose whole run took 1.5× the CPU time with it on `ball-pile 1000`, 1.4× on `ball-pile
//! 300` and the same on `ball-pile 30` (see `docs/performance.md`).
//!
//! The factorization runs on the calling thread (faer is built without its rayon feature:
//! its global parallelism would reach every small dense product of the solvers).

use super::{finite, Breakdown, Pattern};
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::ldlt::factor::{LdltError, LdltRegularization};
use faer::linalg::cholesky::llt::factor::LltRegularization;
use faer::perm::PermRef;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, LdltRef, LltRef, SymbolicCholesky,
    SymbolicCholeskyRaw, SymmetricOrdering,
};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side};
use std::sync::Arc;

/// Which factor a [`SparseCholesky`] computes.
#[derive(Clone, Debug, PartialEq)]
pub enum SymmetricKind {
    /// `A = L Lᵀ`, A symmetric positive definite.
    PositiveDefinite,
    /// `A = L D Lᵀ` of a quasi-definite A (`[[P, Bᵀ], [B, −Q]]`, P and Q positive definite):
    /// `signs[i]` is the expected sign of pivot i (+1 or −1, in A's own order); a pivot of the
    /// wrong sign or below `epsilon` in magnitude is replaced by `±delta` (the static-dynamic
    /// regularization of interior-point solvers such as Clarabel's and OSQP's).
    QuasiDefinite {
        /// Expected sign of each pivot.
        signs: Vec<i8>,
        /// The value a regularized pivot takes (in magnitude).
        delta: f64,
        /// Pivots below this magnitude (or of the wrong sign) are regularized.
        epsilon: f64,
    },
}

/// Which numeric factorization [`SparseCholesky`] runs (decided at each symbolic analysis).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Supernodal {
    /// faer's rule: supernodal when the factorization's flops per nonzero of L are high.
    #[default]
    Auto,
    /// Always the supernodal factorization (dense blocks for the fundamental supernodes).
    Always,
}

/// The fill-reducing ordering of a [`SparseCholesky`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ordering {
    /// Approximate minimum degree, computed at each analysis.
    #[default]
    Amd,
    /// The matrix comes ordered ([`amd_order`] gives the ordering the default would take):
    /// no permutation at the analysis, nor of the values at each factorization and of the
    /// right-hand sides at each solve. Callers that fill their matrix in kept positions
    /// (the body graph) permute the positions once instead.
    Given,
}

/// The approximate-minimum-degree ordering of the symmetric pattern whose lower triangle is
/// given in compressed columns (`fwd[k]` is the k-th eliminated index), as faer's analysis
/// computes it. Errors: [`Breakdown::Symbolic`] for a malformed pattern, [`Breakdown::Memory`].
pub fn amd_order(n: usize, col_ptr: &[usize], row_idx: &[usize]) -> Result<Vec<usize>, Breakdown> {
    let ok = col_ptr.len() == n + 1
        && col_ptr.windows(2).all(|w| w[0] <= w[1])
        && col_ptr[n] == row_idx.len()
        && row_idx.iter().all(|&i| i < n);
    if !ok {
        return Err(Breakdown::Symbolic);
    }
    let a = SymbolicSparseColMatRef::new_checked(n, n, col_ptr, None, row_idx);
    let (mut fwd, mut inv) = (vec![0usize; n], vec![0usize; n]);
    let req = faer::sparse::linalg::amd::order_maybe_unsorted_scratch::<usize>(n, row_idx.len());
    let mut buf = MemBuffer::try_new(req).map_err(|_| Breakdown::Memory)?;
    faer::sparse::linalg::amd::order_maybe_unsorted(
        &mut fwd,
        &mut inv,
        a,
        Default::default(),
        MemStack::new(&mut buf),
    )
    .map_err(|_| Breakdown::Symbolic)?;
    Ok(fwd)
}

/// Sparse Cholesky (`LLᵀ` or quasi-definite `LDLᵀ`) of a symmetric matrix in compressed-column
/// form (only the lower triangle is read; row indices sorted within each column).
///
/// ```
/// use perp_core::linear::SparseCholesky;
/// // [[4, 1], [1, 3]] by its lower triangle.
/// let (ptr, idx, val) = ([0, 2, 3], [0, 1, 1], [4.0, 1.0, 3.0]);
/// let mut c = SparseCholesky::new();
/// c.factor(2, &ptr, &idx, &val).unwrap();
/// let mut x = [5.0, 4.0];
/// c.solve_in_place(&mut x, 2, 1).unwrap();
/// assert!((x[0] - 1.0).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15);
/// c.factor(2, &ptr, &idx, &[8.0, 2.0, 6.0]).unwrap(); // same pattern: no new analysis
/// assert_eq!(c.analyses(), 1);
/// ```
#[derive(Default)]
pub struct SparseCholesky {
    pattern: Pattern,
    symbolic: Option<Arc<SymbolicCholesky<usize>>>,
    values: Vec<f64>,
    kind: Option<SymmetricKind>,
    scratch: Option<MemBuffer>,
    scratch_req: Option<StackReq>,
    analyses: usize,
    supernodal: Supernodal,
    ordering: Ordering,
    /// An elimination order given by the caller ([`SparseCholesky::set_order`]), taken
    /// instead of AMD under [`Ordering::Amd`].
    order: Option<Vec<usize>>,
}

impl std::fmt::Debug for SparseCholesky {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseCholesky")
            .field("n", &self.pattern.n)
            .field("kind", &self.kind)
            .field("analyses", &self.analyses)
            .finish_non_exhaustive()
    }
}

/// The same factor (the symbolic analysis shared), with scratch of its own.
impl Clone for SparseCholesky {
    fn clone(&self) -> Self {
        SparseCholesky {
            pattern: self.pattern.clone(),
            symbolic: self.symbolic.clone(),
            values: self.values.clone(),
            kind: self.kind.clone(),
            scratch: None,
            scratch_req: None,
            analyses: self.analyses,
            supernodal: self.supernodal,
            ordering: self.ordering,
            order: self.order.clone(),
        }
    }
}

impl SparseCholesky {
    /// Empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// Empty, with the given choice of numeric factorization.
    pub fn with_supernodal(supernodal: Supernodal) -> Self {
        SparseCholesky { supernodal, ..Self::default() }
    }

    /// The same factorization, for matrices that come in the given [`Ordering`].
    pub fn with_ordering(self, ordering: Ordering) -> Self {
        SparseCholesky { ordering, ..self }
    }

    /// The choice of numeric factorization.
    pub fn supernodal(&self) -> Supernodal {
        self.supernodal
    }

    /// Whether the current analysis chose the supernodal factorization (`false` before any).
    pub fn is_supernodal(&self) -> bool {
        self.symbolic.as_ref().is_some_and(|s| matches!(s.raw(), SymbolicCholeskyRaw::Supernodal(_)))
    }

    fn par(&self) -> Par {
        Par::Seq
    }

    /// How many symbolic analyses were done (one per new pattern).
    pub fn analyses(&self) -> usize {
        self.analyses
    }

    /// The order of the factored matrix (0 before any).
    pub fn n(&self) -> usize {
        self.pattern.n
    }

    /// Nonzeros of the factor L (0 before any analysis): the fill a fill-reducing ordering
    /// keeps down.
    pub fn factor_nnz(&self) -> usize {
        self.symbolic.as_ref().map_or(0, |s| s.len_val())
    }

    /// The elimination order of the next analyses under [`Ordering::Amd`] instead of AMD:
    /// `fwd[k]` is the k-th eliminated index (`None`: AMD again). A caller that knows its
    /// matrix's structure can save AMD's cost (on a matrix whose pattern changes at each
    /// solve, the analysis is a large part of the work); the matrix and the right-hand sides
    /// stay in their own order. A new order forgets the analysis; an `fwd` that is not a
    /// permutation of `0..n` for the next matrix's n is [`Breakdown::Symbolic`] at its
    /// factorization.
    pub fn set_order(&mut self, fwd: Option<Vec<usize>>) {
        if fwd != self.order {
            self.order = fwd;
            self.forget();
        }
    }

    /// The choice of numeric factorization for the next analyses; a new choice forgets the
    /// analysis.
    pub fn set_supernodal(&mut self, supernodal: Supernodal) {
        if supernodal != self.supernodal {
            self.supernodal = supernodal;
            self.forget();
        }
    }

    /// Forgets the symbolic analysis (the next factorization redoes it).
    pub fn forget(&mut self) {
        self.symbolic = None;
        self.kind = None;
    }

    /// `LLᵀ` of the `n × n` symmetric positive definite matrix; `Err(NotPositiveDefinite(k))`
    /// when pivot k (in the ordering's order) is not positive.
    pub fn factor(
        &mut self,
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
        values: &[f64],
    ) -> Result<(), Breakdown> {
        self.factor_as(n, col_ptr, row_idx, values, SymmetricKind::PositiveDefinite)
    }

    /// `LDLᵀ` of the `n × n` quasi-definite matrix with the expected pivot `signs` (see
    /// [`SymmetricKind::QuasiDefinite`]).
    pub fn factor_quasi_definite(
        &mut self,
        n: usize,
        (col_ptr, row_idx, values): (&[usize], &[usize], &[f64]),
        signs: &[i8],
        delta: f64,
        epsilon: f64,
    ) -> Result<(), Breakdown> {
        if signs.len() != n {
            return Err(Breakdown::NotFactored);
        }
        // Reuses the kept signs' storage when the kind is the same.
        let kind = match self.kind.take() {
            Some(SymmetricKind::QuasiDefinite { signs: mut s, .. }) => {
                s.clear();
                s.extend_from_slice(signs);
                SymmetricKind::QuasiDefinite { signs: s, delta, epsilon }
            }
            _ => SymmetricKind::QuasiDefinite { signs: signs.to_vec(), delta, epsilon },
        };
        self.factor_as(n, col_ptr, row_idx, values, kind)
    }

    fn factor_as(
        &mut self,
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
        values: &[f64],
        kind: SymmetricKind,
    ) -> Result<(), Breakdown> {
        self.kind = None;
        let sym = SymbolicSparseColMatRef::new_checked(n, n, col_ptr, None, row_idx);
        if self.symbolic.is_none() || !self.pattern.matches(n, col_ptr, row_idx) {
            self.analyse(sym, col_ptr, row_idx)?;
        }
        let par = self.par();
        let Some(symbolic) = self.symbolic.clone() else { return Err(Breakdown::Symbolic) };
        let req = symbolic
            .factorize_numeric_llt_scratch::<f64>(par, Default::default())
            .or(symbolic.factorize_numeric_ldlt_scratch::<f64>(par, Default::default()))
            .or(symbolic.solve_in_place_scratch::<f64>(1, par));
        self.reserve_scratch(req)?;
        let Some(buf) = self.scratch.as_mut() else { return Err(Breakdown::Memory) };
        let a = SparseColMatRef::new(sym, values);
        let stack = MemStack::new(buf);
        factor_numeric(&symbolic, &mut self.values, a, &kind, par, stack)?;
        if let Some(i) = self.values.iter().position(|v| !v.is_finite()) {
            return Err(Breakdown::Pivot(i.min(n.saturating_sub(1))));
        }
        self.kind = Some(kind);
        Ok(())
    }

    /// The symbolic analysis of the lower-triangle pattern `sym` (`col_ptr`, `row_idx`) in the
    /// kept ordering, kept with the pattern; the factor's values and the scratch are reset.
    fn analyse(
        &mut self,
        sym: SymbolicSparseColMatRef<'_, usize>,
        col_ptr: &[usize],
        row_idx: &[usize],
    ) -> Result<(), Breakdown> {
        let n = sym.ncols();
        self.symbolic = None;
        let params = CholeskySymbolicParams {
            supernodal_flop_ratio_threshold: match self.supernodal {
                Supernodal::Auto => SupernodalThreshold::AUTO,
                Supernodal::Always => SupernodalThreshold::FORCE_SUPERNODAL,
            },
            ..Default::default()
        };
        let s = match (self.ordering, &self.order) {
            (Ordering::Amd, Some(fwd)) => {
                let inv = inverse_permutation(n, fwd).ok_or(Breakdown::Symbolic)?;
                let perm = PermRef::new_checked(fwd, &inv, n);
                factorize_symbolic_cholesky(sym, Side::Lower, SymmetricOrdering::Custom(perm), params)
            }
            (Ordering::Amd, None) => {
                factorize_symbolic_cholesky(sym, Side::Lower, SymmetricOrdering::Amd, params)
            }
            // faer's analysis reads an unpermuted pattern as its upper triangle: give it
            // the transpose of the lower one.
            (Ordering::Given, _) => {
                let (up_ptr, up_idx) = transpose_pattern(n, col_ptr, row_idx);
                let up = SymbolicSparseColMatRef::new_checked(n, n, &up_ptr, None, &up_idx);
                factorize_symbolic_cholesky(up, Side::Upper, SymmetricOrdering::Identity, params)
            }
        }
        .map_err(|_| Breakdown::Symbolic)?;
        self.values.clear();
        self.values.resize(s.len_val(), 0.0);
        self.symbolic = Some(Arc::new(s));
        self.scratch = None;
        self.scratch_req = None;
        self.pattern.set(n, col_ptr, row_idx);
        self.analyses += 1;
        Ok(())
    }

    /// Scratch of at least `req`, kept (grown only when a larger one is asked).
    fn reserve_scratch(&mut self, req: StackReq) -> Result<(), Breakdown> {
        let fits = self.scratch_req.is_some_and(|have| have.or(req) == have) && self.scratch.is_some();
        if !fits {
            let req = self.scratch_req.map_or(req, |have| have.or(req));
            self.scratch = Some(MemBuffer::try_new(req).map_err(|_| Breakdown::Memory)?);
            self.scratch_req = Some(req);
        }
        Ok(())
    }

    /// Solves `A X = B` in place, `B` column-major `n × k` (the order given to the last
    /// factorization); `Err` without a factorization or when X is not finite. Allocates the
    /// scratch of `k` right-hand sides the first time (kept after).
    pub fn solve_in_place(&mut self, b: &mut [f64], n: usize, k: usize) -> Result<(), Breakdown> {
        if self.kind.is_none() || n != self.pattern.n || b.len() != n * k {
            return Err(Breakdown::NotFactored);
        }
        let par = self.par();
        let Some(symbolic) = self.symbolic.clone() else { return Err(Breakdown::NotFactored) };
        let req = symbolic.solve_in_place_scratch::<f64>(k, par);
        self.reserve_scratch(req)?;
        let (Some(kind), Some(buf)) = (&self.kind, &mut self.scratch) else {
            return Err(Breakdown::NotFactored);
        };
        let rhs = MatMut::from_column_major_slice_mut(b, n, k);
        let stack = MemStack::new(buf);
        match kind {
            SymmetricKind::PositiveDefinite => {
                LltRef::new(&symbolic, &self.values).solve_in_place_with_conj(Conj::No, rhs, par, stack)
            }
            SymmetricKind::QuasiDefinite { .. } => {
                LdltRef::new(&symbolic, &self.values).solve_in_place_with_conj(Conj::No, rhs, par, stack)
            }
        }
        finite(b)
    }
}

/// The numeric factor of `a` as `kind` says (`LLᵀ`, or `LDLᵀ` with its regularization) into
/// `values`, on the analysis `symbolic`, with the scratch `stack`.
fn factor_numeric(
    symbolic: &SymbolicCholesky<usize>,
    values: &mut [f64],
    a: SparseColMatRef<'_, usize, f64>,
    kind: &SymmetricKind,
    par: Par,
    stack: &mut MemStack,
) -> Result<(), Breakdown> {
    match kind {
        SymmetricKind::PositiveDefinite => {
            symbolic
                .factorize_numeric_llt(
                    values,
                    a,
                    Side::Lower,
                    LltRegularization::default(),
                    par,
                    stack,
                    Default::default(),
                )
                .map_err(|e| match e {
                    faer::linalg::solvers::LltError::NonPositivePivot { index } => {
                        Breakdown::NotPositiveDefinite(index)
                    }
                })?;
        }
        SymmetricKind::QuasiDefinite { signs, delta, epsilon } => {
            let reg = LdltRegularization {
                dynamic_regularization_signs: Some(signs),
                dynamic_regularization_delta: *delta,
                dynamic_regularization_epsilon: *epsilon,
            };
            symbolic
                .factorize_numeric_ldlt(values, a, Side::Lower, reg, par, stack, Default::default())
                .map_err(|e| match e {
                    LdltError::ZeroPivot { index } => Breakdown::Pivot(index),
                })?;
        }
    }
    Ok(())
}

/// The inverse of the permutation `fwd` of `0..n` (`None` when it is not one).
fn inverse_permutation(n: usize, fwd: &[usize]) -> Option<Vec<usize>> {
    if fwd.len() != n {
        return None;
    }
    let mut inv = vec![usize::MAX; n];
    for (k, &j) in fwd.iter().enumerate() {
        if j >= n || inv[j] != usize::MAX {
            return None;
        }
        inv[j] = k;
    }
    Some(inv)
}

/// The compressed columns of the transpose of the pattern `(col_ptr, row_idx)` (rows sorted
/// within each column).
fn transpose_pattern(n: usize, col_ptr: &[usize], row_idx: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let mut ptr = vec![0usize; n + 1];
    for &i in row_idx {
        ptr[i + 1] += 1;
    }
    for i in 0..n {
        ptr[i + 1] += ptr[i];
    }
    let mut next = ptr.clone();
    let mut idx = vec![0usize; row_idx.len()];
    for j in 0..n {
        for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
            idx[next[i]] = j;
            next[i] += 1;
        }
    }
    (ptr, idx)
}
