//! The linear-solver layer: factorizations that keep their storage (and, for sparse matrices,
//! their symbolic analysis) between numeric factorizations, so that a solver prepared once
//! factorizes a matrix of the same shape and pattern without allocating, and the mass matrix's
//! factor and Delassus operator shared by the global frictional problem and the dynamics.
//! One file per factorization:
//!
//! * [`DenseLu`] (`dense_lu.rs`) — LU with partial pivoting of an `n × n` matrix filled in
//!   place (faer's `lu_in_place`, or the small kernel below 41 unknowns);
//! * [`small_lu_solve`] (`small.rs`) — the small-system kernels: Gaussian elimination with
//!   partial pivoting on the stack (the d×d systems of one contact, Lemke's small bases),
//!   compiled for each size up to 6 ([`small_lu_solve_fixed`]) with the same operations as the
//!   size-generic [`small_lu_solve_dyn`] (the same bits), and `DenseLu`'s small factor;
//! * [`DenseCholesky`] (`dense_cholesky.rs`) — `LLᵀ` of a dense symmetric positive definite
//!   matrix, same storage scheme as `DenseLu`;
//! * [`SparseLu`] (`sparse_lu.rs`) — faer's sparse LU (column-compressed input); the symbolic
//!   analysis is recomputed only when the pattern changes;
//! * [`SparseCholesky`] (`sparse_cholesky.rs`) — faer's sparse `LLᵀ`, or `LDLᵀ` of a
//!   quasi-definite matrix, with a fill-reducing (AMD) ordering, the symbolic analysis kept
//!   while the pattern repeats (counted), and the numeric factor written into kept storage;
//! * [`PatternLu`] (`pattern_lu.rs`) — block `L D U` of a matrix whose pattern is symmetric
//!   (its values need not be): indistinguishable unknowns (a rigid body's six velocities)
//!   eliminated together as dense blocks, partial pivoting only inside a block, on the AMD
//!   order of the nodes' graph: a Cholesky's fill, where a pivoting LU's is bounded by
//!   `AᵀA`'s; the analysis kept while the pattern repeats;
//! * [`FrozenLu`] (`frozen.rs`) — an LU kept for many solves (and transposed solves) through
//!   `&self`: the one factorization a sensitivity holds;
//! * [`lu_cost`] (`fill.rs`) — the nonzeros and flops of a sparse LU predicted by a symbolic
//!   analysis, before any numeric work;
//! * [`Krylov`] (`iterative.rs`) — BiCGSTAB with a block-Jacobi preconditioner on a matrix
//!   held by rows, stopped by a relative residual, an iteration limit or a deadline;
//! * [`SparseCholesky::pcg`] (`pcg.rs`) — conjugate gradients on a symmetric matrix held by
//!   its lower triangle ([`SymLower`]), preconditioned by a kept factor of an earlier matrix
//!   of the same pattern;
//! * [`mass`] — the factor of a mass matrix M (dense, sparse, or one dense block per
//!   connected component) and the Delassus operator `W = J M⁻¹ Jᵀ` built from sparse rows.
//!
//! Every factorization reports breakdown as `Err(Breakdown)`, which says where (the pivot,
//! the minor), never a panic; the caller chooses what a breakdown means (a fallback
//! direction, a regularization, a failed solve).

mod dense_cholesky;
mod dense_lu;
mod fill;
mod frozen;
mod iterative;
pub mod mass;
pub(crate) mod pattern_lu;
mod pcg;
mod small;
mod sparse_cholesky;
mod sparse_lu;
#[cfg(test)]
mod tests;

pub use dense_cholesky::DenseCholesky;
pub use dense_lu::DenseLu;
pub use fill::{lu_cost, FactorCost};
pub use frozen::FrozenLu;
pub use iterative::{BlockJacobi, CsrRef, Krylov, KrylovOutcome, KrylovStop, CHUNK};
pub use mass::{Columns, MassFactor, Row, SparseRows};
pub use pattern_lu::PatternLu;
pub use pcg::{PcgOutcome, PcgWork, SymLower};
pub use small::{small_lu_solve, small_lu_solve_dyn, small_lu_solve_fixed, small_lu_solve_many};
pub use sparse_cholesky::{amd_order, Ordering, SparseCholesky, Supernodal, SymmetricKind};
pub use sparse_lu::SparseLu;

use faer::dyn_stack::{MemBuffer, StackReq};
use faer::{Mat, MatMut, MatRef};

/// Why a factorization broke down. The pivot and minor indices are in elimination order
/// (after any fill-reducing permutation of a sparse factorization).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Breakdown {
    /// Pivot `k` of an LU (or an LDLᵀ) is zero, below the kernel's relative threshold, or not
    /// finite.
    Pivot(usize),
    /// The matrix is not numerically positive definite: Cholesky's pivot `k` is not positive.
    NotPositiveDefinite(usize),
    /// The pivots of a factorization that completed spread beyond what the solves can trust
    /// (a condition number beyond about 10⁹, seen by [`FrozenLu`]'s test solve).
    IllConditioned,
    /// A solve gave a non-finite entry at this index.
    NonFinite(usize),
    /// The symbolic analysis failed (a pattern faer refuses, an index that overflows).
    Symbolic,
    /// Scratch memory could not be had.
    Memory,
    /// A solve was asked of a factorization that does not exist (none yet, or the last one
    /// failed), or with a right-hand side of the wrong size.
    NotFactored,
}

impl std::fmt::Display for Breakdown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Breakdown::Pivot(k) => {
                write!(f, "the factorization broke down at pivot {k} (zero, tiny or not finite)")
            }
            Breakdown::NotPositiveDefinite(k) => {
                write!(f, "the matrix is not numerically positive definite (Cholesky pivot {k})")
            }
            Breakdown::IllConditioned => {
                f.write_str("the matrix is numerically singular (ill-conditioned pivots)")
            }
            Breakdown::NonFinite(i) => write!(f, "the solve gave a non-finite entry at index {i}"),
            Breakdown::Symbolic => f.write_str("the symbolic analysis failed"),
            Breakdown::Memory => f.write_str("the factorization's scratch memory could not be allocated"),
            Breakdown::NotFactored => f.write_str("no factorization of that size to solve with"),
        }
    }
}

impl std::error::Error for Breakdown {}

/// `Ok` when every entry of a solve's result is finite, else the first non-finite one.
fn finite(x: &[f64]) -> Result<(), Breakdown> {
    match x.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(Breakdown::NonFinite(i)),
    }
}

/// The largest and smallest `|u_kk|` of an LU: `min / max` below `n·ε` is numerically
/// singular for most uses ([`Pivots::singular`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pivots {
    /// Smallest `|u_kk|`.
    pub min: f64,
    /// Largest `|u_kk|`.
    pub max: f64,
}

impl Pivots {
    /// Whether `min ≤ rel · max`, or the pivots are zero or not finite.
    pub fn singular(&self, rel: f64) -> bool {
        !(self.max > 0.0 && self.max.is_finite() && self.min > rel * self.max)
    }
}

/// Dense storage of capacity `cap × cap` used as its leading `n × n` block, with the scratch
/// of faer's in-place kernels for right-hand sides of up to `rhs_cap` columns.
pub(super) struct DenseStore {
    pub(super) a: Mat<f64>,
    pub(super) n: usize,
    pub(super) rhs_cap: usize,
    pub(super) scratch: MemBuffer,
}

impl DenseStore {
    pub(super) fn new() -> Self {
        DenseStore { a: Mat::zeros(0, 0), n: 0, rhs_cap: 0, scratch: MemBuffer::new(StackReq::EMPTY) }
    }

    /// Grows the storage when `n` or `rhs` exceed it (never shrinks); `req` gives the scratch.
    pub(super) fn reserve(&mut self, n: usize, rhs: usize, req: impl Fn(usize, usize) -> StackReq) {
        let cap = self.a.nrows();
        if n > cap || rhs > self.rhs_cap {
            let (cap, rhs) = (cap.max(n), self.rhs_cap.max(rhs).max(1));
            if n > self.a.nrows() {
                self.a = Mat::zeros(cap, cap);
            }
            self.rhs_cap = rhs;
            self.scratch = MemBuffer::new(req(cap, rhs));
        }
        self.n = n;
    }

    pub(super) fn view(&mut self) -> MatMut<'_, f64> {
        let n = self.n;
        self.a.as_mut().submatrix_mut(0, 0, n, n)
    }
}

/// Column `j` of a column-major `m` as a slice.
#[inline]
pub(crate) fn col(m: MatRef<'_, f64>, j: usize) -> &[f64] {
    m.col(j).try_as_col_major().expect("contiguous column").as_slice()
}

/// Column `j` of a column-major `m` as a mutable slice.
#[inline]
pub(crate) fn col_mut(m: MatMut<'_, f64>, j: usize) -> &mut [f64] {
    m.col_mut(j).try_as_col_major_mut().expect("contiguous column").as_slice_mut()
}

macro_rules! debug_by_order {
    ($($t:ty),*) => {$(
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($t)).field("factored", &self.factored).finish_non_exhaustive()
            }
        }
    )*};
}
debug_by_order!(dense_lu::DenseLu, dense_cholesky::DenseCholesky, sparse_lu::SparseLu);

/// The pattern a symbolic analysis was computed for (column pointers and row indices).
#[derive(Clone, Debug, Default)]
pub(super) struct Pattern {
    pub(super) n: usize,
    pub(super) col_ptr: Vec<usize>,
    pub(super) row_idx: Vec<usize>,
}

impl Pattern {
    pub(super) fn matches(&self, n: usize, col_ptr: &[usize], row_idx: &[usize]) -> bool {
        self.n == n && self.col_ptr == col_ptr && self.row_idx == row_idx
    }

    pub(super) fn set(&mut self, n: usize, col_ptr: &[usize], row_idx: &[usize]) {
        self.n = n;
        self.col_ptr.clear();
        self.col_ptr.extend_from_slice(col_ptr);
        self.row_idx.clear();
        self.row_idx.extend_from_slice(row_idx);
    }
}
