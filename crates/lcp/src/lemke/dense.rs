//! Dense storage of Lemke's method: M by columns ([`DenseCols`]), the LU storage of
//! refactorizations sized once ([`LuScratch`], faer's in-place LU), and the LU on the stack
//! for small warm-start bases.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::reborrow::{Reborrow, ReborrowMut};
use faer::MatMut;
use perp_core::Matrix;

use crate::Lcp;

/// M stored densely by columns, the layout every Lemke operation reads.
#[derive(Default)]
pub(super) struct DenseCols {
    pub(super) n: usize,
    pub(super) data: Vec<f64>,
}

impl DenseCols {
    /// Copies M of `p` (allocates only to grow).
    pub(super) fn fill(&mut self, p: &Lcp) {
        let n = p.n();
        self.n = n;
        self.data.clear();
        self.data.resize(n * n, 0.0);
        let data = &mut self.data;
        match p.m() {
            Matrix::Dense(m) => {
                for j in 0..n {
                    data[j * n..(j + 1) * n].copy_from_slice(m.col_as_slice(j));
                }
            }
            Matrix::Sparse(s) => {
                for (v, (i, j)) in s.iter() {
                    data[j * n + i] += *v;
                }
            }
        }
    }

    #[inline]
    pub(super) fn col(&self, j: usize) -> &[f64] {
        &self.data[j * self.n..(j + 1) * self.n]
    }

    #[inline]
    pub(super) fn at(&self, i: usize, j: usize) -> f64 {
        self.data[j * self.n + i]
    }
}

/// Dense LU with partial pivoting in reused storage (faer's `lu_in_place` and
/// `solve_in_place_with_conj`, the operations of `Mat::partial_piv_lu` and `Solve::solve`,
/// with their scratch `MemBuffer` sized once for n × n).
pub(super) struct LuScratch {
    /// A k × k matrix, column-major, stride k (capacity n²).
    pub(super) a: Vec<f64>,
    /// A right-hand side (capacity n).
    pub(super) x: Vec<f64>,
    pub(super) perm: Vec<usize>,
    pub(super) perm_inv: Vec<usize>,
    pub(super) mem: MemBuffer,
}

impl LuScratch {
    /// Sized for systems up to `n × n` on first use ([`LuScratch::reserve`]): a Lemke run
    /// that never refactors (most short runs) allocates none of it.
    pub(super) fn empty() -> Self {
        LuScratch {
            a: Vec::new(),
            x: Vec::new(),
            perm: Vec::new(),
            perm_inv: Vec::new(),
            mem: MemBuffer::new(StackReq::EMPTY),
        }
    }

    /// Makes room for systems up to `n × n` (allocates only the first time for a size).
    pub(super) fn reserve(&mut self, n: usize) {
        if self.perm.len() < n {
            *self = LuScratch::new(n);
        }
    }

    pub(super) fn new(n: usize) -> Self {
        use faer::linalg::lu::partial_pivoting::{factor, solve};
        let par = faer::get_global_parallelism();
        let req = StackReq::any_of(&[
            factor::lu_in_place_scratch::<usize, f64>(n, n, par, Default::default()),
            solve::solve_in_place_scratch::<usize, f64>(n, n, par),
        ]);
        LuScratch {
            a: vec![0.0; n * n],
            x: vec![0.0; n],
            perm: vec![0; n],
            perm_inv: vec![0; n],
            mem: MemBuffer::new(req),
        }
    }

    /// The principal system of the support `idx` (k = its length) into the scratch: `M_SS`
    /// in `a[..k²]` (entries from `entry(i, j)`), column-major or, with `row_major`, by rows
    /// (the small kernel's layout), `−q_S` in `x[..k]`. Sized by [`LuScratch::reserve`]
    /// beforehand.
    pub(super) fn gather_principal(
        &mut self,
        idx: &[usize],
        q: &[f64],
        entry: impl Fn(usize, usize) -> f64,
        row_major: bool,
    ) {
        let k = idx.len();
        for (c, &j) in idx.iter().enumerate() {
            for (r, &i) in idx.iter().enumerate() {
                let at = if row_major { r * k + c } else { c * k + r };
                self.a[at] = entry(i, j);
            }
            self.x[c] = -q[j];
        }
    }

    /// [`LuScratch::gather_principal`], then its solution `M_SS⁻¹(−q_S)` by the dense LU into
    /// `x[..k]` (non-finite when `M_SS` is singular). No allocation.
    pub(super) fn solve_principal(&mut self, idx: &[usize], q: &[f64], entry: impl Fn(usize, usize) -> f64) {
        let k = idx.len();
        self.gather_principal(idx, q, entry, false);
        let (mut a, mut x) = (std::mem::take(&mut self.a), std::mem::take(&mut self.x));
        self.solve(k, &mut a, MatMut::from_column_major_slice_mut(&mut x[..k], k, 1));
        (self.a, self.x) = (a, x);
    }

    /// Solves `A X = rhs` in place in `rhs` (k rows), factoring the k × k column-major `a`
    /// (stride k) in place. No allocation.
    pub(super) fn solve(&mut self, k: usize, a: &mut [f64], rhs: MatMut<'_, f64>) {
        use faer::linalg::lu::partial_pivoting::{factor, solve};
        let par = faer::get_global_parallelism();
        let mut lu = MatMut::from_column_major_slice_mut(&mut a[..k * k], k, k);
        let stack = MemStack::new(&mut self.mem);
        let (_, perm) = factor::lu_in_place(
            lu.rb_mut(),
            &mut self.perm[..k],
            &mut self.perm_inv[..k],
            par,
            stack,
            Default::default(),
        );
        let lu = lu.rb();
        solve::solve_in_place_with_conj(lu, lu, perm, faer::Conj::No, rhs, par, MemStack::new(&mut self.mem));
    }
}

/// Largest warm-start basis solved by the small kernel ([`perp_core::linear::small_lu_solve`])
/// rather than faer.
pub(super) const SMALL_BASIS: usize = 12;
