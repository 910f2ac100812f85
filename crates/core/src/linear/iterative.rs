//! Preconditioned Krylov solves of sparse systems held by rows (CSR), for Newton systems too
//! large to factorize: faer's BiCGSTAB (van der Vorst 1992, *SIAM J. Sci. Stat. Comput.* 13,
//! Algorithm "Bi-CGSTAB") with a block-Jacobi preconditioner (the inverses of the d × d
//! diagonal blocks: one contact each), run in chunks of [`CHUNK`] iterations so that the clock
//! is read between chunks and a deadline stops the solve.
//!
//! The matrix is given as `indptr`, `indices`, `values` of its rows; a matrix held by columns
//! is solved with [`Krylov::solve`]'s `transpose` flag.

use super::{small_lu_solve_many, Breakdown};
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::matrix_free::bicgstab::{bicgstab, bicgstab_scratch, BicgError, BicgParams};
use faer::matrix_free::{IdentityPrecond, InitialGuessStatus, LinOp, Precond};
use faer::{MatMut, MatRef, Par};
use std::time::Instant;

/// Iterations between two readings of the clock.
pub const CHUNK: usize = 25;

/// A square sparse matrix by rows (CSR), borrowed; `transpose` applies `Aᵀ` instead.
#[derive(Clone, Copy, Debug)]
pub struct CsrRef<'a> {
    /// Row pointers (`n + 1`).
    pub indptr: &'a [usize],
    /// Column indices.
    pub indices: &'a [usize],
    /// Values.
    pub values: &'a [f64],
    /// Apply the transpose.
    pub transpose: bool,
}

impl CsrRef<'_> {
    /// The order n.
    pub fn n(&self) -> usize {
        self.indptr.len() - 1
    }

    /// `y = A x` (or `Aᵀ x`).
    pub fn mul(&self, x: &[f64], y: &mut [f64]) {
        let n = self.n();
        if self.transpose {
            y.iter_mut().for_each(|v| *v = 0.0);
            for (row, &xr) in x.iter().enumerate().take(n) {
                for k in self.indptr[row]..self.indptr[row + 1] {
                    y[self.indices[k]] += self.values[k] * xr;
                }
            }
        } else {
            for (row, yr) in y.iter_mut().enumerate() {
                *yr = (self.indptr[row]..self.indptr[row + 1])
                    .map(|k| self.values[k] * x[self.indices[k]])
                    .sum();
            }
        }
    }
}

/// Column `j` of a faer column-major matrix as a slice.
fn col(m: MatRef<'_, f64>, j: usize) -> &[f64] {
    m.col(j).try_as_col_major().expect("contiguous column").as_slice()
}

fn col_mut(m: MatMut<'_, f64>, j: usize) -> &mut [f64] {
    m.col_mut(j).try_as_col_major_mut().expect("contiguous column").as_slice_mut()
}

impl LinOp<f64> for CsrRef<'_> {
    fn apply_scratch(&self, _rhs_ncols: usize, _par: Par) -> StackReq {
        StackReq::EMPTY
    }

    fn nrows(&self) -> usize {
        self.n()
    }

    fn ncols(&self) -> usize {
        self.n()
    }

    fn apply(&self, mut out: MatMut<'_, f64>, rhs: MatRef<'_, f64>, _par: Par, _stack: &mut MemStack) {
        for j in 0..rhs.ncols() {
            self.mul(col(rhs, j), col_mut(out.as_mut(), j));
        }
    }

    fn conj_apply(&self, out: MatMut<'_, f64>, rhs: MatRef<'_, f64>, par: Par, stack: &mut MemStack) {
        self.apply(out, rhs, par, stack);
    }
}

/// Block-Jacobi preconditioner: the inverses of the `d × d` diagonal blocks of a matrix
/// (a block that is numerically singular is replaced by the inverse of its diagonal, a zero
/// diagonal entry by 1). The storage is kept between builds.
#[derive(Clone, Debug, Default)]
pub struct BlockJacobi {
    d: usize,
    inv: Vec<f64>,
}

impl BlockJacobi {
    /// Empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// The inverses of the diagonal blocks of `a` (by rows; `a.transpose` is honoured);
    /// `Err` unless `d ≥ 1` divides n.
    pub fn build(&mut self, d: usize, a: CsrRef<'_>) -> Result<(), Breakdown> {
        let n = a.n();
        if d == 0 || !n.is_multiple_of(d) {
            return Err(Breakdown::NotFactored);
        }
        self.d = d;
        self.inv.clear();
        self.inv.resize(n * d, 0.0);
        let (mut block, mut lu) = (vec![0.0; d * d], vec![0.0; d * d]);
        for i in 0..n / d {
            block.iter_mut().for_each(|v| *v = 0.0);
            for a_ in 0..d {
                let row = d * i + a_;
                for k in a.indptr[row]..a.indptr[row + 1] {
                    let c = a.indices[k];
                    if c >= d * i && c < d * i + d {
                        let (r, c) = if a.transpose { (c - d * i, a_) } else { (a_, c - d * i) };
                        block[r * d + c] += a.values[k];
                    }
                }
            }
            // The inverse: the identity's d columns solved with one elimination of the block.
            let out = &mut self.inv[i * d * d..(i + 1) * d * d];
            lu.copy_from_slice(&block);
            out.iter_mut().enumerate().for_each(|(k, v)| *v = if k / d == k % d { 1.0 } else { 0.0 });
            if small_lu_solve_many(d, &mut lu, out, d).is_err() {
                out.iter_mut().for_each(|v| *v = 0.0);
                for r in 0..d {
                    let v = block[r * d + r];
                    out[r * d + r] = if v != 0.0 && v.is_finite() { 1.0 / v } else { 1.0 };
                }
            }
        }
        Ok(())
    }

    fn apply_slice(&self, x: &[f64], y: &mut [f64]) {
        let d = self.d;
        for ((inv, xb), yb) in self.inv.chunks_exact(d * d).zip(x.chunks_exact(d)).zip(y.chunks_exact_mut(d))
        {
            for r in 0..d {
                yb[r] = (0..d).map(|k| inv[r * d + k] * xb[k]).sum();
            }
        }
    }
}

impl LinOp<f64> for BlockJacobi {
    fn apply_scratch(&self, _rhs_ncols: usize, _par: Par) -> StackReq {
        StackReq::EMPTY
    }

    fn nrows(&self) -> usize {
        self.inv.len() / self.d.max(1)
    }

    fn ncols(&self) -> usize {
        self.nrows()
    }

    fn apply(&self, mut out: MatMut<'_, f64>, rhs: MatRef<'_, f64>, _par: Par, _stack: &mut MemStack) {
        for j in 0..rhs.ncols() {
            self.apply_slice(col(rhs, j), col_mut(out.as_mut(), j));
        }
    }

    fn conj_apply(&self, out: MatMut<'_, f64>, rhs: MatRef<'_, f64>, par: Par, stack: &mut MemStack) {
        self.apply(out, rhs, par, stack);
    }
}

impl Precond<f64> for BlockJacobi {}

/// Why a [`Krylov::solve`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KrylovStop {
    /// `‖b − A x‖ ≤ rel_tol · ‖b‖`.
    Converged,
    /// The iteration limit was reached first.
    MaxIterations,
    /// The deadline passed (read between chunks of [`CHUNK`] iterations).
    Deadline,
}

/// What a [`Krylov::solve`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KrylovOutcome {
    /// Why it ended.
    pub stop: KrylovStop,
    /// BiCGSTAB iterations (two products with A each).
    pub iterations: usize,
    /// `‖b − A x‖ / ‖b‖`: BiCGSTAB's recurrence when converged, else computed from x.
    pub rel_residual: f64,
}

/// Preconditioned BiCGSTAB on a CSR matrix with its scratch kept between solves (sized again
/// only when n grows).
#[derive(Default)]
pub struct Krylov {
    scratch: Option<MemBuffer>,
    scratch_n: usize,
    tmp: Vec<f64>,
    /// The block-Jacobi preconditioner of the last [`Krylov::precondition`].
    pub precond: BlockJacobi,
}

impl std::fmt::Debug for Krylov {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Krylov").field("n", &self.scratch_n).finish()
    }
}

impl Clone for Krylov {
    fn clone(&self) -> Self {
        Krylov { scratch: None, scratch_n: 0, tmp: Vec::new(), precond: self.precond.clone() }
    }
}

impl Krylov {
    /// Empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds the block-Jacobi preconditioner of `a` (d × d blocks); `Err` unless `d ≥ 1`
    /// divides n.
    pub fn precondition(&mut self, d: usize, a: CsrRef<'_>) -> Result<(), Breakdown> {
        self.precond.build(d, a)
    }

    /// Solves `A x = b` from `x = 0` by BiCGSTAB preconditioned (on the right) with the
    /// block-Jacobi preconditioner of the last [`Krylov::precondition`], until
    /// `‖b − A x‖ ≤ rel_tol ‖b‖`, `max_iter` iterations or `deadline`; `x` holds the last
    /// iterate whatever the end. `Err` when scratch memory cannot be had, n does not match the
    /// preconditioner, or x is not finite.
    pub fn solve(
        &mut self,
        a: CsrRef<'_>,
        b: &[f64],
        x: &mut [f64],
        rel_tol: f64,
        max_iter: usize,
        deadline: Option<Instant>,
    ) -> Result<KrylovOutcome, Breakdown> {
        let n = a.n();
        if b.len() != n || x.len() != n || self.precond.nrows() != n {
            return Err(Breakdown::NotFactored);
        }
        let ident = IdentityPrecond { dim: n };
        if self.scratch.is_none() || self.scratch_n < n {
            let req = bicgstab_scratch::<f64>(ident, &self.precond, a, 1, Par::Seq);
            self.scratch = Some(MemBuffer::try_new(req).map_err(|_| Breakdown::Memory)?);
            self.scratch_n = n;
        }
        let Some(buf) = &mut self.scratch else { return Err(Breakdown::Memory) };
        x.iter_mut().for_each(|v| *v = 0.0);
        let rhs = MatRef::from_column_major_slice(b, n, 1);
        let mut done = 0;
        let mut rel = f64::NAN;
        let stop = loop {
            if done >= max_iter {
                break KrylovStop::MaxIterations;
            }
            if done > 0 && deadline.is_some_and(|t| Instant::now() >= t) {
                break KrylovStop::Deadline;
            }
            let chunk = CHUNK.min(max_iter - done);
            let params = BicgParams {
                // Not `Zero` even from x = 0: faer 0.24's BiCGSTAB then reads its residual
                // uninitialised (NaN in debug builds).
                initial_guess: InitialGuessStatus::MaybeNonZero,
                abs_tolerance: 0.0,
                rel_tolerance: rel_tol,
                max_iters: chunk,
                ..Default::default()
            };
            let out = MatMut::from_column_major_slice_mut(x, n, 1);
            match bicgstab(out, ident, &self.precond, a, rhs, params, |_| {}, Par::Seq, MemStack::new(buf)) {
                Ok(info) => {
                    done += info.iter_count;
                    rel = info.rel_residual;
                    break KrylovStop::Converged;
                }
                // faer reports the residual of the chunk's start here: the true one is
                // computed below.
                Err(BicgError::NoConvergence { .. }) => done += chunk,
            }
        };
        if stop != KrylovStop::Converged {
            self.tmp.resize(n, 0.0);
            a.mul(x, &mut self.tmp);
            let r2: f64 = self.tmp.iter().zip(b).map(|(ax, b)| (b - ax) * (b - ax)).sum();
            let b2: f64 = b.iter().map(|v| v * v).sum();
            rel = if b2 > 0.0 { (r2 / b2).sqrt() } else { r2.sqrt() };
        }
        super::finite(x)?;
        Ok(KrylovOutcome { stop, iterations: done, rel_residual: rel })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A nonsymmetric, block-diagonally dominant CSR matrix of order `n` (3 × 3 blocks
    /// coupled to their neighbours), and its dense copy.
    #[allow(clippy::needless_range_loop)]
    fn sample(nb: usize) -> (Vec<usize>, Vec<usize>, Vec<f64>, Vec<Vec<f64>>) {
        let n = 3 * nb;
        let mut dense = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..n {
                let (bi, bj) = (i / 3, j / 3);
                let v = if bi == bj {
                    if i == j {
                        4.0 + (i % 5) as f64
                    } else {
                        0.5 + 0.1 * (i as f64) - 0.07 * (j as f64)
                    }
                } else if bi.abs_diff(bj) == 1 {
                    0.3 * (((i * 7 + j * 3) % 11) as f64 / 11.0 - 0.4)
                } else {
                    0.0
                };
                dense[i][j] = v;
            }
        }
        let (mut ptr, mut idx, mut val) = (vec![0], Vec::new(), Vec::new());
        for row in &dense {
            for (j, &v) in row.iter().enumerate() {
                if v != 0.0 {
                    idx.push(j);
                    val.push(v);
                }
            }
            ptr.push(idx.len());
        }
        (ptr, idx, val, dense)
    }

    #[allow(clippy::needless_range_loop)]
    fn residual(dense: &[Vec<f64>], x: &[f64], b: &[f64], transpose: bool) -> f64 {
        let n = b.len();
        let mut r2 = 0.0;
        for i in 0..n {
            let ax: f64 = (0..n).map(|j| if transpose { dense[j][i] } else { dense[i][j] } * x[j]).sum();
            r2 += (ax - b[i]) * (ax - b[i]);
        }
        r2.sqrt() / b.iter().map(|v| v * v).sum::<f64>().sqrt()
    }

    #[test]
    fn bicgstab_solves_a_nonsymmetric_system_and_its_transpose() {
        let (ptr, idx, val, dense) = sample(20);
        let n = ptr.len() - 1;
        let b: Vec<f64> = (0..n).map(|i| ((i * 13) % 7) as f64 - 3.0).collect();
        for transpose in [false, true] {
            let a = CsrRef { indptr: &ptr, indices: &idx, values: &val, transpose };
            let mut k = Krylov::new();
            k.precondition(3, a).unwrap();
            let mut x = vec![1.0; n];
            let out = k.solve(a, &b, &mut x, 1e-10, 1000, None).unwrap();
            assert_eq!(out.stop, KrylovStop::Converged, "{out:?}");
            assert!(out.iterations > 0 && out.rel_residual <= 1e-10, "{out:?}");
            // The true residual, computed apart from the solver.
            assert!(residual(&dense, &x, &b, transpose) < 1e-9, "transpose = {transpose}");
        }
    }

    #[test]
    fn the_block_jacobi_preconditioner_inverts_the_diagonal_blocks() {
        let (ptr, idx, val, dense) = sample(4);
        let a = CsrRef { indptr: &ptr, indices: &idx, values: &val, transpose: false };
        let mut m = BlockJacobi::new();
        m.build(3, a).unwrap();
        assert_eq!(m.build(5, a), Err(Breakdown::NotFactored));
        for blk in 0..4 {
            // inv(D_b) · D_b = I.
            for r in 0..3 {
                for c in 0..3 {
                    let s: f64 =
                        (0..3).map(|k| m.inv[blk * 9 + r * 3 + k] * dense[3 * blk + k][3 * blk + c]).sum();
                    assert!((s - if r == c { 1.0 } else { 0.0 }).abs() < 1e-12);
                }
            }
        }
        // A singular block falls back to its inverted diagonal (1 for a zero entry).
        let (ptr, idx, val) = (vec![0, 2, 4], vec![0, 1, 0, 1], vec![1.0, 2.0, 2.0, 4.0]);
        m.build(2, CsrRef { indptr: &ptr, indices: &idx, values: &val, transpose: false }).unwrap();
        assert_eq!(m.inv, vec![1.0, 0.0, 0.0, 0.25]);
    }

    #[test]
    fn a_past_deadline_stops_after_one_chunk_and_limits_are_kept() {
        let (ptr, idx, val, _) = sample(20);
        let n = ptr.len() - 1;
        let a = CsrRef { indptr: &ptr, indices: &idx, values: &val, transpose: false };
        let b = vec![1.0; n];
        let mut k = Krylov::new();
        k.precondition(3, a).unwrap();
        let mut x = vec![0.0; n];
        // rel_tol 0 is never reached: only the deadline (already past) or the limit stop it.
        let out = k.solve(a, &b, &mut x, 0.0, 10_000, Some(Instant::now())).unwrap();
        assert_eq!((out.stop, out.iterations), (KrylovStop::Deadline, CHUNK));
        let out = k.solve(a, &b, &mut x, 0.0, 30, None).unwrap();
        assert_eq!((out.stop, out.iterations), (KrylovStop::MaxIterations, 30));
        // A size that does not match the preconditioner is refused.
        assert_eq!(k.solve(a, &b[1..], &mut x[1..], 1e-8, 10, None), Err(Breakdown::NotFactored));
    }
}
