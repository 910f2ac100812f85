//! The linear-solver layer of perp's Newton methods: factorizations that keep their storage
//! (and, for sparse matrices, their symbolic analysis) between numeric factorizations, so that
//! a solver prepared once factorizes a matrix of the same shape and pattern without
//! allocating.
//!
//! * [`DenseLu`] — LU with partial pivoting of an `n × n` matrix filled in place (faer's
//!   `lu_in_place`), for any `n` up to the reserved capacity;
//! * [`DenseCholesky`] — `LLᵀ` of a symmetric positive definite matrix, same storage scheme;
//! * [`SparseLu`] — faer's sparse LU (column-compressed input); the symbolic analysis is
//!   recomputed only when the pattern changes;
//! * [`SparseCholesky`] — faer's sparse `LLᵀ`, symbolic analysis kept the same way;
//! * [`FrozenLu`] — an LU kept for many solves (and transposed solves) through `&self`: the
//!   one factorization a sensitivity holds;
//! * [`lu_cost`] — the nonzeros and flops of a sparse LU predicted by a symbolic analysis,
//!   before any numeric work (to choose between a factorization and an iterative solve, and
//!   not to start a factorization that cannot end before a deadline);
//! * [`Krylov`] — BiCGSTAB with a block-Jacobi preconditioner on a matrix held by rows,
//!   stopped by a relative residual, an iteration limit or a deadline;
//! * [`small_lu_solve`] — Gaussian elimination with partial pivoting on a small row-major
//!   system held on the stack (the d×d systems of one contact), compiled for each size up to 6
//!   ([`small_lu_solve_fixed`]) with the same operations as the size-generic
//!   [`small_lu_solve_dyn`] (the same bits).
//!
//! Every factorization reports breakdown as `Err(Breakdown)`, never a panic; the caller
//! chooses what a breakdown means (a fallback direction, a regularization, a failed solve).

mod fill;
mod iterative;

pub use fill::{lu_cost, FactorCost};
pub use iterative::{BlockJacobi, CsrRef, Krylov, KrylovOutcome, KrylovStop, CHUNK};

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt::{factor as llt_factor, solve as llt_solve};
use faer::linalg::lu::partial_pivoting::{factor as lu_factor, solve as lu_solve};
use faer::perm::PermRef;
use faer::sparse::linalg::lu::{factorize_symbolic_lu, LuSymbolicParams, NumericLu, SymbolicLu};
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, Mat, MatMut, MatRef, Par, Side};

/// A factorization broke down: a zero or non-finite pivot, a matrix that is not positive
/// definite, a symbolic analysis that failed, or scratch memory that could not be had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Breakdown;

impl std::fmt::Display for Breakdown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the factorization broke down")
    }
}

impl std::error::Error for Breakdown {}

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
struct DenseStore {
    a: Mat<f64>,
    n: usize,
    rhs_cap: usize,
    scratch: MemBuffer,
}

impl DenseStore {
    fn new() -> Self {
        DenseStore { a: Mat::zeros(0, 0), n: 0, rhs_cap: 0, scratch: MemBuffer::new(StackReq::EMPTY) }
    }

    /// Grows the storage when `n` or `rhs` exceed it (never shrinks); `req` gives the scratch.
    fn reserve(&mut self, n: usize, rhs: usize, req: impl Fn(usize, usize) -> StackReq) {
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

    fn view(&mut self) -> MatMut<'_, f64> {
        let n = self.n;
        self.a.as_mut().submatrix_mut(0, 0, n, n)
    }
}

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
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    factored: bool,
}

impl Default for DenseLu {
    fn default() -> Self {
        Self::new()
    }
}

fn lu_req(cap: usize, rhs: usize) -> StackReq {
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

    /// Factorizes the matrix in place and returns its pivots; `Err` when a pivot is zero or
    /// not finite (the caller applies its own relative threshold with [`Pivots::singular`]).
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
        if n > 0 && !(p.min > 0.0 && p.max.is_finite()) {
            return Err(Breakdown);
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
/// Newton matrices of problems of up to about a dozen contacts). Factor and solve of a random
/// matrix (`crates/core/examples/dense_small.rs`), this kernel against faer's: n = 16
/// 1.0 µs, n = 21 1.6 against 2.8, n = 27 2.5 against 4.5, n = 36 4.7 against 7.5, n = 40
/// 5.9 (faer 8.8 at n = 42).
const SMALL_LU: usize = 40;

/// Right-looking LU with partial pivoting of a small `a` in place, in faer's convention (the
/// same packed factors and row permutation `perm`/`perm_inv` as `lu_in_place`, the same pivot
/// choice: the first largest `|a_ik|`). A zero pivot column is left as it is (the caller sees
/// the zero pivot). Dispatched on the order to [`small_lu_fixed`], whose loops have
/// compile-time bounds: the order itself up to 16, then the next multiple of 4 (zero rows
/// padding the columns).
fn small_lu_in_place(a: MatMut<'_, f64>, perm: &mut [usize], perm_inv: &mut [usize]) {
    // Above WIDE_MIN also compiled for the machine's widest vectors (AVX2 where the CPU has
    // them, chosen at run time): each operation is the scalar one lane by lane (no fused
    // multiply-adds), so the factors are the same on every machine and either way.
    if a.nrows() <= WIDE_MIN {
        small_lu_dispatch(a, perm, perm_inv)
    } else {
        pulp::Arch::new().dispatch(
            #[inline(always)]
            || small_lu_dispatch(a, perm, perm_inv),
        )
    }
}

/// Orders above which [`small_lu_in_place`] runs its AVX2 build. Fill, factor and solve of a
/// random matrix (`examples/dense_small.rs`, three interleaved runs of each build): at n = 3
/// the baseline build takes 59 ns against 77, at n = 6 both 158 ns, at n = 12 533 against
/// 484 and at n = 16 1 000 against 850. ac-newton, 10 interleaved rounds of `perp bench
/// --repeat 300`: Rover1041 (n = 15) 13.3 against 12.6 µs, Rover4144 (n = 12) 9.1 against
/// 8.7, FC3D_Example1 (n = 9) 2.48 against 2.41, Confeti-ex13 (n = 12) alike. An earlier
/// reading that the wide build was slower below 17 (Confeti-ex13 7.3 against 5.0 µs) was
/// the shared machine's two speeds, which these runs did not meet.
const WIDE_MIN: usize = 6;

/// [`small_lu_fixed`] for the order of `a`, or the next multiple of 4 above 16, as a
/// compile-time constant.
#[inline(always)]
fn small_lu_dispatch(a: MatMut<'_, f64>, perm: &mut [usize], perm_inv: &mut [usize]) {
    match a.nrows() {
        0 => {}
        1 => small_lu_fixed::<1>(a, perm, perm_inv),
        2 => small_lu_fixed::<2>(a, perm, perm_inv),
        3 => small_lu_fixed::<3>(a, perm, perm_inv),
        4 => small_lu_fixed::<4>(a, perm, perm_inv),
        5 => small_lu_fixed::<5>(a, perm, perm_inv),
        6 => small_lu_fixed::<6>(a, perm, perm_inv),
        7 => small_lu_fixed::<7>(a, perm, perm_inv),
        8 => small_lu_fixed::<8>(a, perm, perm_inv),
        9 => small_lu_fixed::<9>(a, perm, perm_inv),
        10 => small_lu_fixed::<10>(a, perm, perm_inv),
        11 => small_lu_fixed::<11>(a, perm, perm_inv),
        12 => small_lu_fixed::<12>(a, perm, perm_inv),
        13 => small_lu_fixed::<13>(a, perm, perm_inv),
        14 => small_lu_fixed::<14>(a, perm, perm_inv),
        15 => small_lu_fixed::<15>(a, perm, perm_inv),
        16 => small_lu_fixed::<16>(a, perm, perm_inv),
        17..=20 => small_lu_fixed::<20>(a, perm, perm_inv),
        21..=24 => small_lu_fixed::<24>(a, perm, perm_inv),
        25..=28 => small_lu_fixed::<28>(a, perm, perm_inv),
        29..=32 => small_lu_fixed::<32>(a, perm, perm_inv),
        33..=36 => small_lu_fixed::<36>(a, perm, perm_inv),
        _ => small_lu_fixed::<SMALL_LU>(a, perm, perm_inv),
    }
}

/// [`small_lu_in_place`] for an order `n ≤ N` on a column-major copy `v[j][i]` of `N` rows
/// (rows `n..N` zero): the same operations in the same order (so the same bits) as a loop
/// over a runtime order, with every bound known. The zero rows make each column operation one
/// fixed-length loop of N (vectorized) without changing rows `< n` (they subtract 0 · u) or
/// the pivot choice (a zero never beats the first largest `|a_ik|`). Indexed loops: with the
/// bounds known the checks go, and they measured 3 % fewer instructions than the iterator
/// form on ac-newton's 12×12 LUs.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
fn small_lu_fixed<const N: usize>(mut a: MatMut<'_, f64>, perm: &mut [usize], perm_inv: &mut [usize]) {
    let n = a.nrows();
    debug_assert!(n <= N && a.ncols() == n && perm.len() == n && perm_inv.len() == n);
    let mut v = [[0.0; N]; N];
    for (j, c) in v[..n].iter_mut().enumerate() {
        c[..n].copy_from_slice(&col(a.as_ref(), j)[..n]);
    }
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for k in 0..n {
        let (mut p, mut m) = (k, v[k][k].abs());
        for i in k + 1..n {
            if v[k][i].abs() > m {
                (p, m) = (i, v[k][i].abs());
            }
        }
        if p != k {
            for c in v[..n].iter_mut() {
                c.swap(k, p);
            }
            perm.swap(k, p);
        }
        let pivot = v[k][k];
        if pivot == 0.0 {
            continue;
        }
        let inv = pivot.recip();
        // The multipliers (rows > k of column k over the pivot) padded with zeros to the full
        // column, so that every loop below runs over all N rows (fixed-length, vectorized):
        // rows ≤ k subtract 0 · u, which leaves them as they are up to the sign of a zero (u
        // is finite wherever the factors mean anything). On ac-newton's 12×12 LUs this takes
        // 4.3k instructions instead of 6.1k (2.9k in the wide build: WIDE_MIN).
        let mut l = [0.0; N];
        for i in 0..N {
            l[i] = if i > k { v[k][i] * inv } else { 0.0 };
        }
        for i in 0..N {
            if i > k {
                v[k][i] = l[i];
            }
        }
        for cj in v[k + 1..n].iter_mut() {
            let u = cj[k];
            for i in 0..N {
                cj[i] -= l[i] * u;
            }
        }
    }
    for (j, c) in v[..n].iter().enumerate() {
        col_mut(a.as_mut(), j)[..n].copy_from_slice(&c[..n]);
    }
    for (i, &p) in perm.iter().enumerate() {
        perm_inv[p] = i;
    }
}

/// Column `j` of a column-major `m` as a slice.
#[inline]
fn col(m: MatRef<'_, f64>, j: usize) -> &[f64] {
    m.col(j).try_as_col_major().expect("contiguous column").as_slice()
}

/// Column `j` of a column-major `m` as a mutable slice.
#[inline]
fn col_mut(m: MatMut<'_, f64>, j: usize) -> &mut [f64] {
    m.col_mut(j).try_as_col_major_mut().expect("contiguous column").as_slice_mut()
}

/// [`small_factored_solve`] for orders up to 16, [`small_lu_solve_in_place`] above.
#[inline(always)]
fn small_lu_solve_dispatch(f: MatRef<'_, f64>, perm: &[usize], b: MatMut<'_, f64>) {
    match f.nrows() {
        1 => small_factored_solve::<1>(f, perm, b),
        2 => small_factored_solve::<2>(f, perm, b),
        3 => small_factored_solve::<3>(f, perm, b),
        4 => small_factored_solve::<4>(f, perm, b),
        5 => small_factored_solve::<5>(f, perm, b),
        6 => small_factored_solve::<6>(f, perm, b),
        7 => small_factored_solve::<7>(f, perm, b),
        8 => small_factored_solve::<8>(f, perm, b),
        9 => small_factored_solve::<9>(f, perm, b),
        10 => small_factored_solve::<10>(f, perm, b),
        11 => small_factored_solve::<11>(f, perm, b),
        12 => small_factored_solve::<12>(f, perm, b),
        13 => small_factored_solve::<13>(f, perm, b),
        14 => small_factored_solve::<14>(f, perm, b),
        15 => small_factored_solve::<15>(f, perm, b),
        16 => small_factored_solve::<16>(f, perm, b),
        _ => small_lu_solve_in_place(f, perm, b),
    }
}

/// [`small_lu_solve_in_place`] for the order `N`, known at compile time: the same operations
/// in the same order (the same bits), the triangles' bounds as tests on constant indices.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
fn small_factored_solve<const N: usize>(f: MatRef<'_, f64>, perm: &[usize], mut b: MatMut<'_, f64>) {
    debug_assert!(f.nrows() == N && perm.len() == N);
    let perm: &[usize; N] = perm.try_into().unwrap_or_else(|_| unreachable!("perm of the order"));
    for c in 0..b.ncols() {
        let mut y = [0.0; N];
        {
            let bc = col(b.as_ref(), c);
            for i in 0..N {
                y[i] = bc[perm[i]];
            }
        }
        for j in 0..N {
            let fj: &[f64; N] = col(f, j)[..N].try_into().unwrap_or_else(|_| unreachable!());
            let yj = y[j];
            for i in 0..N {
                if i > j {
                    y[i] -= fj[i] * yj;
                }
            }
        }
        for j in (0..N).rev() {
            let fj: &[f64; N] = col(f, j)[..N].try_into().unwrap_or_else(|_| unreachable!());
            y[j] /= fj[j];
            let yj = y[j];
            for i in 0..N {
                if i < j {
                    y[i] -= fj[i] * yj;
                }
            }
        }
        col_mut(b.as_mut(), c)[..N].copy_from_slice(&y);
    }
}

/// Solves `A X = B` in place with the factors of [`small_lu_in_place`]: `X = U⁻¹ L⁻¹ P B`.
fn small_lu_solve_in_place(f: MatRef<'_, f64>, perm: &[usize], mut b: MatMut<'_, f64>) {
    let n = f.nrows();
    let mut y = [0.0; SMALL_LU];
    let y = &mut y[..n];
    for c in 0..b.ncols() {
        {
            let bc = col(b.as_ref(), c);
            for (yi, &p) in y.iter_mut().zip(perm) {
                *yi = bc[p];
            }
        }
        for j in 0..n {
            let yj = y[j];
            let fj = &col(f, j)[..n];
            for (yi, fij) in y[j + 1..].iter_mut().zip(&fj[j + 1..]) {
                *yi -= fij * yj;
            }
        }
        for j in (0..n).rev() {
            let fj = &col(f, j)[..n];
            y[j] /= fj[j];
            let yj = y[j];
            for (yi, fij) in y[..j].iter_mut().zip(&fj[..j]) {
                *yi -= fij * yj;
            }
        }
        col_mut(b.as_mut(), c)[..n].copy_from_slice(y);
    }
}

/// `A = L Lᵀ` of a dense symmetric positive definite matrix filled in place (its lower
/// triangle is read).
pub struct DenseCholesky {
    store: DenseStore,
    factored: bool,
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
        .map_err(|_| Breakdown)?;
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

macro_rules! debug_by_order {
    ($($t:ty),*) => {$(
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($t)).field("factored", &self.factored).finish_non_exhaustive()
            }
        }
    )*};
}
debug_by_order!(DenseLu, DenseCholesky, SparseLu);

/// A clone is workspace of the same size, not yet factorized (solvers clone their workspaces,
/// never a factorization in use).
impl Clone for DenseLu {
    fn clone(&self) -> Self {
        let mut c = DenseLu::new();
        c.resize(self.store.n, self.store.rhs_cap);
        c
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

/// Same settings, no symbolic analysis yet.
impl Clone for SparseLu {
    fn clone(&self) -> Self {
        SparseLu { supernodal: self.supernodal, ..SparseLu::new() }
    }
}

/// The pattern a symbolic analysis was computed for (column pointers and row indices).
#[derive(Clone, Debug, Default)]
struct Pattern {
    n: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
}

impl Pattern {
    fn matches(&self, n: usize, col_ptr: &[usize], row_idx: &[usize]) -> bool {
        self.n == n && self.col_ptr == col_ptr && self.row_idx == row_idx
    }

    fn set(&mut self, n: usize, col_ptr: &[usize], row_idx: &[usize]) {
        self.n = n;
        self.col_ptr.clear();
        self.col_ptr.extend_from_slice(col_ptr);
        self.row_idx.clear();
        self.row_idx.extend_from_slice(row_idx);
    }
}

/// Sparse LU of a square matrix given in compressed-column form (`col_ptr`, `row_idx`,
/// `values`; row indices sorted within each column). The symbolic analysis (fill-reducing
/// ordering, elimination structure), the numeric factors' storage and the scratch are kept
/// while the order and the pattern stay the same, so refactorizing new values allocates
/// nothing; another order or pattern starts all three afresh.
pub struct SparseLu {
    supernodal: bool,
    pattern: Pattern,
    symbolic: Option<SymbolicLu<usize>>,
    numeric: NumericLu<usize, f64>,
    scratch: Option<MemBuffer>,
    factored: bool,
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
            supernodal: false,
            pattern: Pattern::default(),
            symbolic: None,
            numeric: NumericLu::new(),
            scratch: None,
            factored: false,
        }
    }

    /// Always supernodal (faster for matrices made of dense d×d blocks: measured 2× on
    /// BoxesStack1 and 15 % on Capsules in the frictional Newton methods).
    pub fn supernodal() -> Self {
        SparseLu { supernodal: true, ..Self::new() }
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
            if self.supernodal {
                params.supernodal_flop_ratio_threshold = SupernodalThreshold::FORCE_SUPERNODAL;
            }
            let s = factorize_symbolic_lu(sym, params).map_err(|_| Breakdown)?;
            let req = s
                .factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default())
                .or(s.solve_in_place_scratch::<f64>(1, Par::Seq))
                .or(s.solve_transpose_in_place_scratch::<f64>(1, Par::Seq));
            self.scratch = Some(MemBuffer::try_new(req).map_err(|_| Breakdown)?);
            self.symbolic = Some(s);
            self.pattern.set(n, col_ptr, row_idx);
        }
        let (Some(symbolic), Some(buf)) = (&self.symbolic, &mut self.scratch) else { return Err(Breakdown) };
        symbolic
            .factorize_numeric_lu(
                &mut self.numeric,
                SparseColMatRef::new(sym, values),
                Par::Seq,
                MemStack::new(buf),
                Default::default(),
            )
            .map_err(|_| Breakdown)?;
        self.factored = true;
        Ok(())
    }

    fn solve_any(&mut self, b: &mut [f64], transpose: bool) -> Result<(), Breakdown> {
        let (Some(symbolic), Some(buf), true) = (&self.symbolic, &mut self.scratch, self.factored) else {
            return Err(Breakdown);
        };
        let n = b.len();
        let lu = faer::sparse::linalg::lu::LuRef::new_unchecked(symbolic, &self.numeric);
        let rhs = MatMut::from_column_major_slice_mut(b, n, 1);
        if transpose {
            lu.solve_transpose_in_place_with_conj(Conj::No, rhs, Par::Seq, MemStack::new(buf));
        } else {
            lu.solve_in_place_with_conj(Conj::No, rhs, Par::Seq, MemStack::new(buf));
        }
        if b.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(Breakdown)
        }
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

/// Sparse `LLᵀ` of a symmetric positive definite matrix in compressed-column form (lower
/// triangle read), symbolic analysis kept while the pattern stays the same.
#[derive(Clone, Debug, Default)]
pub struct SparseCholesky {
    pattern: Pattern,
    symbolic: Option<SymbolicLlt<usize>>,
    factor: Option<Llt<usize, f64>>,
}

impl SparseCholesky {
    /// Empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// Factorizes the `n × n` matrix; `Err` when it is not numerically positive definite.
    pub fn factor(
        &mut self,
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
        values: &[f64],
    ) -> Result<(), Breakdown> {
        self.factor = None;
        let sym = SymbolicSparseColMatRef::new_checked(n, n, col_ptr, None, row_idx);
        if self.symbolic.is_none() || !self.pattern.matches(n, col_ptr, row_idx) {
            self.symbolic = Some(SymbolicLlt::try_new(sym, Side::Lower).map_err(|_| Breakdown)?);
            self.pattern.set(n, col_ptr, row_idx);
        }
        let symbolic = self.symbolic.clone().ok_or(Breakdown)?;
        let llt = Llt::try_new_with_symbolic(symbolic, SparseColMatRef::new(sym, values), Side::Lower)
            .map_err(|_| Breakdown)?;
        self.factor = Some(llt);
        Ok(())
    }

    /// Solves `A X = B` in place, `B` column-major `n × k`; `Err` without a factorization.
    pub fn solve_in_place(&self, b: &mut [f64], n: usize, k: usize) -> Result<(), Breakdown> {
        use faer::linalg::solvers::SolveCore;
        let f = self.factor.as_ref().ok_or(Breakdown)?;
        f.solve_in_place_with_conj(Conj::No, MatMut::from_column_major_slice_mut(b, n, k));
        Ok(())
    }
}

/// Solves the small dense system `a x = b` (`a` row-major `n × n`, overwritten; `b` overwritten by `x`, on the caller's storage) by
/// Gaussian elimination with partial pivoting; `false` when a pivot is below
/// `1e-14 · max|a|` (numerically singular).
///
/// Dispatches to [`small_lu_solve_fixed`] for `n ≤ 6` (the same operations in the same order,
/// on stack arrays of the constant size: the same bits) and to [`small_lu_solve_dyn`] above.
#[inline]
pub fn small_lu_solve(n: usize, a: &mut [f64], b: &mut [f64]) -> bool {
    fn fixed<const N: usize>(a: &mut [f64], b: &mut [f64]) -> bool {
        let mut am = [[0.0; N]; N];
        for (i, row) in am.iter_mut().enumerate() {
            row.copy_from_slice(&a[i * N..(i + 1) * N]);
        }
        let mut bv = [0.0; N];
        bv.copy_from_slice(&b[..N]);
        let ok = small_lu_solve_fixed(&mut am, &mut bv);
        a[..N * N].copy_from_slice(am.as_flattened());
        b[..N].copy_from_slice(&bv);
        ok
    }
    match n {
        1 => fixed::<1>(a, b),
        2 => fixed::<2>(a, b),
        3 => fixed::<3>(a, b),
        4 => fixed::<4>(a, b),
        5 => fixed::<5>(a, b),
        6 => fixed::<6>(a, b),
        _ => small_lu_solve_dyn(n, a, b),
    }
}

/// [`small_lu_solve`] for a constant size `N` on arrays (`a` row-major by rows); `b` holds the
/// solution on success (on failure both hold partial eliminations, as in [`small_lu_solve`]).
// Index loops as in the textbook elimination: the same operations in the same order as
// small_lu_solve_dyn, which is what keeps the two bit-identical.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
pub fn small_lu_solve_fixed<const N: usize>(a: &mut [[f64; N]; N], b: &mut [f64; N]) -> bool {
    let scale = a.as_flattened().iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    if scale.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || !scale.is_finite() {
        return false;
    }
    for k in 0..N {
        let (mut p, mut best) = (k, a[k][k].abs());
        for i in k + 1..N {
            if a[i][k].abs() > best {
                best = a[i][k].abs();
                p = i;
            }
        }
        if best <= 1e-14 * scale {
            return false;
        }
        if p != k {
            a.swap(k, p);
            b.swap(k, p);
        }
        let rowk = a[k];
        let piv = rowk[k];
        for i in k + 1..N {
            let f = a[i][k] / piv;
            if f != 0.0 {
                for j in k..N {
                    a[i][j] -= f * rowk[j];
                }
                b[i] -= f * b[k];
            }
        }
    }
    for k in (0..N).rev() {
        let mut s = b[k];
        for j in k + 1..N {
            s -= a[k][j] * b[j];
        }
        b[k] = s / a[k][k];
    }
    b.iter().all(|v| v.is_finite())
}

/// The size-generic elimination ([`small_lu_solve`] for any `n`; the reference its fixed-size
/// versions are tested against).
#[allow(clippy::needless_range_loop)]
pub fn small_lu_solve_dyn(n: usize, a: &mut [f64], b: &mut [f64]) -> bool {
    let scale = a[..n * n].iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    if scale.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || !scale.is_finite() {
        return false;
    }
    for k in 0..n {
        let (mut p, mut best) = (k, a[k * n + k].abs());
        for i in k + 1..n {
            if a[i * n + k].abs() > best {
                best = a[i * n + k].abs();
                p = i;
            }
        }
        if best <= 1e-14 * scale {
            return false;
        }
        if p != k {
            for j in 0..n {
                a.swap(k * n + j, p * n + j);
            }
            b.swap(k, p);
        }
        let piv = a[k * n + k];
        for i in k + 1..n {
            let f = a[i * n + k] / piv;
            if f != 0.0 {
                for j in k..n {
                    a[i * n + j] -= f * a[k * n + j];
                }
                b[i] -= f * b[k];
            }
        }
    }
    for k in (0..n).rev() {
        let mut s = b[k];
        for j in k + 1..n {
            s -= a[k * n + j] * b[j];
        }
        b[k] = s / a[k * n + k];
    }
    b[..n].iter().all(|v| v.is_finite())
}

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
            return Err(Breakdown);
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
                    return Err(Breakdown);
                }
                FrozenKind::Dense(lu)
            }
            crate::Matrix::Sparse(s) => {
                let csc = s.to_csc();
                let (ptr, idx, val) = (csc.indptr(), csc.indices(), csc.data());
                let ptr = ptr.to_proper();
                let sym = SymbolicSparseColMatRef::new_checked(n, n, &ptr, None, idx);
                let m = SparseColMatRef::new(sym, val);
                FrozenKind::Sparse(m.sp_lu().map_err(|_| Breakdown)?)
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
            return Err(Breakdown);
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
            return Err(Breakdown);
        }
        let n = self.n;
        let rhs = MatMut::from_column_major_slice_mut(b, n, 1);
        match (&self.kind, transpose) {
            (FrozenKind::Dense(lu), false) => lu.solve_in_place_with_conj(Conj::No, rhs),
            (FrozenKind::Dense(lu), true) => lu.solve_transpose_in_place_with_conj(Conj::No, rhs),
            (FrozenKind::Sparse(lu), false) => lu.solve_in_place_with_conj(Conj::No, rhs),
            (FrozenKind::Sparse(lu), true) => lu.solve_transpose_in_place_with_conj(Conj::No, rhs),
        }
        if b.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(Breakdown)
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4×4 nonsymmetric, and an SPD matrix, with x = (1, −2, 3, 0.5).
    fn nonsym() -> Mat<f64> {
        Mat::from_fn(
            4,
            4,
            |i, j| if i == j { 4.0 + i as f64 } else { ((i * 3 + j * 5) % 7) as f64 * 0.3 - 0.6 },
        )
    }

    fn spd() -> Mat<f64> {
        let a = nonsym();
        let mut s = a.transpose() * &a;
        for i in 0..4 {
            s[(i, i)] += 1.0;
        }
        s
    }

    const X: [f64; 4] = [1.0, -2.0, 3.0, 0.5];

    fn rhs(a: &Mat<f64>) -> Vec<f64> {
        (0..4).map(|i| (0..4).map(|j| a[(i, j)] * X[j]).sum()).collect()
    }

    fn close(x: &[f64]) {
        for (a, b) in x.iter().zip(X) {
            assert!((a - b).abs() < 1e-12, "{x:?}");
        }
    }

    /// Column-compressed form of a dense matrix (every entry stored, or only the lower triangle).
    fn csc(a: &Mat<f64>, lower: bool) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
        let (mut cp, mut ri, mut v) = (vec![0], Vec::new(), Vec::new());
        for j in 0..a.ncols() {
            for i in 0..a.nrows() {
                if a[(i, j)] != 0.0 && (!lower || i >= j) {
                    ri.push(i);
                    v.push(a[(i, j)]);
                }
            }
            cp.push(ri.len());
        }
        (cp, ri, v)
    }

    #[test]
    fn dense_lu_solves_and_reuses_its_storage_for_smaller_orders() {
        let a = nonsym();
        let mut lu = DenseLu::new();
        lu.resize(4, 2);
        lu.matrix_mut().copy_from(&a);
        lu.factor().unwrap();
        let mut b = rhs(&a);
        lu.solve_in_place(&mut b);
        close(&b);
        // The leading 2×2 block in the same storage.
        lu.resize(2, 1);
        lu.matrix_mut().copy_from(a.as_ref().submatrix(0, 0, 2, 2));
        lu.factor().unwrap();
        let mut y = [a[(0, 0)] + a[(0, 1)], a[(1, 0)] + a[(1, 1)]];
        lu.solve_in_place(&mut y);
        assert!((y[0] - 1.0).abs() < 1e-14 && (y[1] - 1.0).abs() < 1e-14);
    }

    /// The small-order kernel as `DenseLu` runs it (above [`WIDE_MIN`] compiled for the
    /// machine's widest vectors and run-time dispatched) gives the bits of the same kernel
    /// compiled for the baseline target and of the textbook loop over a runtime order (its
    /// rows ≤ k untouched at step k); zeros compared by value (the padded update may flip a
    /// zero's sign). The fixed-order solves give the bits of the runtime-order one.
    #[test]
    fn wide_small_lu_matches_the_baseline_and_the_textbook_loop() {
        let mut seed = 11_u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1_u64 << 53) as f64 - 0.5
        };
        for n in 1..=SMALL_LU {
            for _ in 0..20 {
                let a = Mat::<f64>::from_fn(n, n, |_, _| rnd());
                let (mut wide, mut base, mut text) = (a.clone(), a.clone(), a.clone());
                let (mut p1, mut q1, mut p2, mut q2) = (vec![0; n], vec![0; n], vec![0; n], vec![0; n]);
                small_lu_in_place(wide.as_mut(), &mut p1, &mut q1);
                small_lu_dispatch(base.as_mut(), &mut p2, &mut q2);
                assert_eq!((&p1, &q1), (&p2, &q2), "n = {n}");
                // The textbook right-looking loop.
                let mut p3: Vec<usize> = (0..n).collect();
                for k in 0..n {
                    let mut piv = k;
                    for i in k + 1..n {
                        if text[(i, k)].abs() > text[(piv, k)].abs() {
                            piv = i;
                        }
                    }
                    if piv != k {
                        for j in 0..n {
                            let t = text[(k, j)];
                            text[(k, j)] = text[(piv, j)];
                            text[(piv, j)] = t;
                        }
                        p3.swap(k, piv);
                    }
                    let inv = text[(k, k)].recip();
                    for i in k + 1..n {
                        text[(i, k)] *= inv;
                    }
                    for j in k + 1..n {
                        let u = text[(k, j)];
                        for i in k + 1..n {
                            let l = text[(i, k)];
                            text[(i, j)] -= l * u;
                        }
                    }
                }
                assert_eq!(p1, p3, "n = {n}");
                for j in 0..n {
                    for i in 0..n {
                        let (x, y, z) = (wide[(i, j)], base[(i, j)], text[(i, j)]);
                        assert!(x == y && x == z, "n = {n} ({i}, {j}): {x:e} {y:e} {z:e}");
                    }
                }
                // The solve for the order as a constant (n ≤ 16) gives the bits of the loop
                // over a runtime order, for two right-hand sides.
                let b = Mat::<f64>::from_fn(n, 2, |_, _| rnd());
                let (mut fixed, mut generic) = (b.clone(), b.clone());
                small_lu_solve_dispatch(wide.as_ref(), &p1, fixed.as_mut());
                small_lu_solve_in_place(wide.as_ref(), &p1, generic.as_mut());
                for c in 0..2 {
                    for i in 0..n {
                        assert_eq!(fixed[(i, c)].to_bits(), generic[(i, c)].to_bits(), "n = {n} ({i}, {c})");
                    }
                }
            }
        }
    }

    /// The small-order kernel gives faer's factorization (same pivots and permutation, the
    /// factors to rounding) and solves; orders up to and past [`SMALL_LU`].
    #[test]
    fn small_orders_factor_like_faer_and_solve() {
        let mut seed = 7_u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1_u64 << 53) as f64 - 0.5
        };
        for n in (1..=SMALL_LU + 4).chain([SMALL_LU, 3, 3]) {
            let mut a = Mat::from_fn(n, n, |_, _| rnd());
            if n == 3 {
                // Ties in the pivot search and a zero column below the diagonal.
                a[(1, 0)] = a[(0, 0)];
                a[(2, 1)] = 0.0;
            }
            let mut f = a.clone();
            let (mut perm, mut perm_inv) = (vec![0; n], vec![0; n]);
            let mut mem = MemBuffer::new(lu_req(n, 1));
            lu_factor::lu_in_place(
                f.as_mut(),
                &mut perm,
                &mut perm_inv,
                Par::Seq,
                MemStack::new(&mut mem),
                Default::default(),
            );
            let mut lu = DenseLu::new();
            lu.resize(n, 2);
            lu.matrix_mut().copy_from(&a);
            lu.factor().unwrap();
            assert_eq!(&lu.perm[..n], &perm[..], "n = {n}");
            assert_eq!(&lu.perm_inv[..n], &perm_inv[..], "n = {n}");
            for j in 0..n {
                for i in 0..n {
                    assert!((lu.factors()[(i, j)] - f[(i, j)]).abs() <= 1e-12, "n = {n} ({i}, {j})");
                }
            }
            let x = Mat::from_fn(n, 2, |i, j| (i as f64 + 1.0) * if j == 0 { 1.0 } else { -0.5 });
            let mut b = &a * &x;
            lu.solve_mat_in_place(b.as_mut());
            for j in 0..2 {
                for i in 0..n {
                    assert!((b[(i, j)] - x[(i, j)]).abs() <= 1e-9 * (1.0 + x[(i, j)].abs()), "n = {n}");
                }
            }
        }
    }

    #[test]
    fn dense_lu_reports_singular_matrices() {
        let mut lu = DenseLu::new();
        lu.resize(2, 1);
        let mut m = lu.matrix_mut();
        m[(0, 0)] = 1.0;
        m[(0, 1)] = 2.0;
        m[(1, 0)] = 2.0;
        m[(1, 1)] = 4.0;
        assert_eq!(lu.factor(), Err(Breakdown));
        // Nearly singular: factorizes, and the relative pivot test flags it.
        let mut m = lu.matrix_mut();
        m[(0, 0)] = 1.0;
        m[(0, 1)] = 2.0;
        m[(1, 0)] = 2.0;
        m[(1, 1)] = 4.0 + 1e-14;
        let p = lu.factor().unwrap();
        assert!(p.singular(1e-12) && !p.singular(1e-16), "{p:?}");
    }

    #[test]
    fn dense_cholesky_solves_and_rejects_indefinite() {
        let s = spd();
        let mut c = DenseCholesky::new();
        c.resize(4, 1);
        c.matrix_mut().copy_from(&s);
        c.factor().unwrap();
        let mut b = rhs(&s);
        c.solve_in_place(&mut b);
        close(&b);
        c.matrix_mut().copy_from(&s);
        c.matrix_mut()[(3, 3)] = -1.0;
        assert_eq!(c.factor(), Err(Breakdown));
    }

    #[test]
    fn sparse_lu_solves_both_ways_and_keeps_the_symbolic_analysis() {
        let a = nonsym();
        let (cp, ri, v) = csc(&a, false);
        for mut lu in [SparseLu::new(), SparseLu::supernodal()] {
            lu.factor(4, &cp, &ri, &v).unwrap();
            let mut b = rhs(&a);
            lu.solve_in_place(&mut b).unwrap();
            close(&b);
            let at = a.transpose().to_owned();
            let mut bt = rhs(&at);
            lu.solve_transpose_in_place(&mut bt).unwrap();
            close(&bt);
            // New values, same pattern: the symbolic part is reused.
            let v2: Vec<f64> = v.iter().map(|x| 2.0 * x).collect();
            let kept = lu.symbolic.as_ref().map(|s| s as *const _);
            lu.factor(4, &cp, &ri, &v2).unwrap();
            assert_eq!(lu.symbolic.as_ref().map(|s| s as *const _), kept);
            let mut b2: Vec<f64> = rhs(&a).iter().map(|x| 2.0 * x).collect();
            lu.solve_in_place(&mut b2).unwrap();
            close(&b2);
        }
        let mut lu = SparseLu::new();
        assert_eq!(lu.solve_in_place(&mut [1.0]), Err(Breakdown));
    }

    /// An `n × n` nonsymmetric, diagonally dominant matrix coupling i to i + k (mod n) for each
    /// k of `offsets`, and b = A·1.
    fn banded(n: usize, offsets: &[usize]) -> (Mat<f64>, Vec<f64>) {
        let a = Mat::from_fn(n, n, |i, j| {
            if i == j {
                4.0 + (i % 3) as f64
            } else if offsets.iter().any(|&k| j == (i + k) % n) {
                0.5 + 0.1 * ((i + 2 * j) % 5) as f64
            } else if offsets.iter().any(|&k| i == (j + k) % n) {
                -0.3
            } else {
                0.0
            }
        });
        let b = (0..n).map(|i| (0..n).map(|j| a[(i, j)]).sum()).collect();
        (a, b)
    }

    fn ones(x: &[f64]) {
        assert!(x.iter().all(|v| (v - 1.0).abs() < 1e-12), "{x:?}");
    }

    /// Issue 36: one kept factorization across orders and patterns (grow, shrink, a new
    /// pattern of the same order, back) solves each system, the sparse LU bit for bit as a
    /// fresh one (a sparse LU kept across a shrink used to fail faer's shape assertions at the
    /// solve).
    #[test]
    fn kept_factorizations_follow_changes_of_order_and_pattern() {
        let shapes: [(usize, &[usize]); 6] =
            [(30, &[1]), (10, &[1]), (30, &[2, 5]), (12, &[1]), (3, &[1]), (30, &[1])];
        let mut lus = [SparseLu::new(), SparseLu::supernodal()];
        let (mut chol, mut dlu, mut dchol) = (SparseCholesky::new(), DenseLu::new(), DenseCholesky::new());
        for (n, offsets) in shapes {
            let (a, b) = banded(n, offsets);
            let (cp, ri, v) = csc(&a, false);
            for lu in &mut lus {
                lu.factor(n, &cp, &ri, &v).unwrap();
                let mut x = b.clone();
                lu.solve_in_place(&mut x).unwrap();
                ones(&x);
                let mut fresh = lu.clone();
                fresh.factor(n, &cp, &ri, &v).unwrap();
                let mut y = b.clone();
                fresh.solve_in_place(&mut y).unwrap();
                assert_eq!(x, y, "order {n}: kept and fresh LU differ");
            }
            dlu.resize(n, 1);
            dlu.matrix_mut().copy_from(&a);
            dlu.factor().unwrap();
            let mut x = b.clone();
            dlu.solve_in_place(&mut x);
            ones(&x);
            // Symmetric positive definite: A + Aᵀ (diagonally dominant).
            let s = Mat::from_fn(n, n, |i, j| a[(i, j)] + a[(j, i)]);
            let sb: Vec<f64> = (0..n).map(|i| (0..n).map(|j| s[(i, j)]).sum()).collect();
            let (cp, ri, v) = csc(&s, true);
            chol.factor(n, &cp, &ri, &v).unwrap();
            let mut x = sb.clone();
            chol.solve_in_place(&mut x, n, 1).unwrap();
            ones(&x);
            dchol.resize(n, 1);
            dchol.matrix_mut().copy_from(&s);
            dchol.factor().unwrap();
            let mut x = sb;
            dchol.solve_in_place(&mut x);
            ones(&x);
        }
    }

    #[test]
    fn sparse_cholesky_solves_an_spd_matrix() {
        let s = spd();
        let (cp, ri, v) = csc(&s, true);
        let mut c = SparseCholesky::new();
        c.factor(4, &cp, &ri, &v).unwrap();
        let mut b = rhs(&s);
        c.solve_in_place(&mut b, 4, 1).unwrap();
        close(&b);
        let neg: Vec<f64> = v.iter().map(|x| -x).collect();
        assert_eq!(c.factor(4, &cp, &ri, &neg), Err(Breakdown));
    }

    #[test]
    fn small_lu_solve_pivots_and_flags_singular() {
        let mut a = [2.0, 1.0, 1.0, 3.0];
        let mut x = [3.0, 5.0];
        assert!(small_lu_solve(2, &mut a, &mut x));
        assert!((x[0] - 0.8).abs() < 1e-15 && (x[1] - 1.4).abs() < 1e-15);
        let a = nonsym();
        let mut m: Vec<f64> = (0..16).map(|k| a[(k / 4, k % 4)]).collect();
        let mut b = rhs(&a);
        assert!(small_lu_solve(4, &mut m, &mut b));
        close(&b);
        let mut z = [0.0, 1.0, 1.0, 0.0];
        let mut c = [1.0, 2.0];
        assert!(small_lu_solve(2, &mut z, &mut c));
        assert_eq!(c, [2.0, 1.0]);
        let mut s = [1.0, 2.0, 2.0, 4.0];
        assert!(!small_lu_solve(2, &mut s, &mut [1.0, 1.0]));
    }

    #[test]
    fn fixed_size_small_lu_solve_matches_the_generic_one_bit_for_bit() {
        // xorshift64*: uniform in [lo, hi), reproducible.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut uniform = |lo: f64, hi: f64| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let u = (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
            lo + (hi - lo) * u
        };
        for n in 1..=6 {
            for trial in 0..500 {
                let mut a: Vec<f64> = (0..n * n).map(|_| uniform(-2.0, 2.0)).collect();
                if trial % 5 == 0 {
                    // Exact zeros (the `f != 0` skip) and a near-singular row.
                    a[0] = 0.0;
                    if n > 1 {
                        for j in 0..n {
                            a[(n - 1) * n + j] = a[j] * 1e-15;
                        }
                    }
                }
                let b: Vec<f64> = (0..n).map(|_| uniform(-3.0, 3.0)).collect();
                let (mut a1, mut b1, mut a2, mut b2) = (a.clone(), b.clone(), a.clone(), b.clone());
                let ok1 = small_lu_solve(n, &mut a1, &mut b1);
                let ok2 = small_lu_solve_dyn(n, &mut a2, &mut b2);
                assert_eq!(ok1, ok2, "n = {n}, a = {a:?}");
                if ok1 {
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&b1), bits(&b2), "n = {n}, a = {a:?}");
                }
            }
        }
    }
}
