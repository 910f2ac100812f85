//! The sparse Newton matrix `J = D_r + D_u W` of the frictional Newton methods, held by rows
//! on the block pattern of W, and its solves: the supernodal sparse LU, or BiCGSTAB with a
//! block-Jacobi preconditioner (see the parent module and [`super::LinearSolver`]).

use crate::delassus::Blocks;
use perp_core::linear::{lu_cost, CsrRef, FactorCost, Krylov, KrylovOutcome, SparseLu};
use std::time::Instant;

/// BiCGSTAB iterations per Newton system at most.
const KRYLOV_MAX_ITER: usize = 500;

/// Sparse J in CSR on a fixed pattern (= CSC of Jᵀ, which faer factorises).
pub(super) struct SparseJ {
    indptr: Vec<usize>,
    indices: Vec<usize>,
    values: Vec<f64>,
    /// Per block row: start of its restricted W rows in `wp` (d × |P_i|, row-major).
    wp_start: Vec<usize>,
    wp: Vec<f64>,
    /// Per row: position of the diagonal entry in `values`.
    pub(super) diag_pos: Vec<usize>,
    /// Supernodal sparse LU of the CSC of Jᵀ, symbolic analysis kept (the pattern is fixed).
    lu: SparseLu,
    /// The predicted cost of that LU (computed when first asked for).
    cost: Option<FactorCost>,
    /// Solve by BiCGSTAB instead of the LU.
    pub(super) iterative: bool,
    krylov: Krylov,
}

impl SparseJ {
    pub(super) fn new(blocks: &Blocks, n: usize) -> SparseJ {
        let d = blocks.d;
        let nc = n / d;
        let (ip, idx, val) = (blocks.csr.indptr(), blocks.csr.indices(), blocks.csr.data());
        let ip = ip.raw_storage();
        let mut indptr = vec![0];
        let mut indices = Vec::new();
        let mut wp_start = Vec::with_capacity(nc + 1);
        let mut wp = Vec::new();
        let mut diag_pos = vec![0; n];
        let mut pos = vec![usize::MAX; n];
        for i in 0..nc {
            let mut cols: Vec<usize> = (d * i..d * i + d).collect();
            for a in 0..d {
                let row = d * i + a;
                cols.extend_from_slice(&idx[ip[row]..ip[row + 1]]);
            }
            cols.sort_unstable();
            cols.dedup();
            for (p, &c) in cols.iter().enumerate() {
                pos[c] = p;
            }
            wp_start.push(wp.len());
            let base = wp.len();
            wp.resize(base + d * cols.len(), 0.0);
            for a in 0..d {
                let row = d * i + a;
                for k in ip[row]..ip[row + 1] {
                    wp[base + a * cols.len() + pos[idx[k]]] += val[k];
                }
            }
            for a in 0..d {
                let row_start = indices.len();
                indices.extend_from_slice(&cols);
                diag_pos[d * i + a] = row_start + pos[d * i + a];
                indptr.push(indices.len());
            }
            for &c in &cols {
                pos[c] = usize::MAX;
            }
        }
        wp_start.push(wp.len());
        let values = vec![0.0; indices.len()];
        SparseJ {
            indptr,
            indices,
            values,
            wp_start,
            wp,
            diag_pos,
            // Supernodal even where faer's heuristic picks simplicial: measured 2× faster on
            // BoxesStack1 and 15 % on Capsules (3×3 dense blocks make good supernodes).
            lu: SparseLu::supernodal(),
            cost: None,
            iterative: false,
            krylov: Krylov::new(),
        }
    }

    /// The predicted cost of the LU of J (a symbolic analysis of J's pattern, kept).
    pub(super) fn cost(&mut self) -> Option<FactorCost> {
        if self.cost.is_none() {
            self.cost = lu_cost(self.diag_pos.len(), &self.indptr, &self.indices).ok();
        }
        self.cost
    }

    /// J by rows, for the iterative solver.
    fn csr(&self) -> CsrRef<'_> {
        CsrRef { indptr: &self.indptr, indices: &self.indices, values: &self.values, transpose: false }
    }

    /// Solves `(J + εI) x = b` by BiCGSTAB to `‖b − (J + εI) x‖ ≤ η ‖b‖`, x from 0; `None` on
    /// breakdown, else the solver's outcome.
    pub(super) fn solve_iterative(
        &mut self,
        d: usize,
        eps: f64,
        b: &[f64],
        x: &mut [f64],
        eta: f64,
        deadline: Option<Instant>,
    ) -> Option<KrylovOutcome> {
        self.shift(eps);
        let a =
            CsrRef { indptr: &self.indptr, indices: &self.indices, values: &self.values, transpose: false };
        let out = match self.krylov.precondition(d, a) {
            Ok(()) => self.krylov.solve(a, b, x, eta, KRYLOV_MAX_ITER, deadline).ok(),
            Err(_) => None,
        };
        self.shift(-eps);
        out
    }

    /// Adds `eps` to the diagonal.
    fn shift(&mut self, eps: f64) {
        if eps != 0.0 {
            for &p in &self.diag_pos {
                self.values[p] += eps;
            }
        }
    }

    /// Recomputes the restricted rows `wp` from W's values, the pattern of `blocks` being the
    /// one this was built on (the same sums in the same order as [`SparseJ::new`]).
    pub(super) fn refresh_values(&mut self, blocks: &Blocks) {
        let d = blocks.d;
        let nc = self.wp_start.len() - 1;
        let (ip, idx, val) = (blocks.csr.indptr(), blocks.csr.indices(), blocks.csr.data());
        let ip = ip.raw_storage();
        self.wp.iter_mut().for_each(|v| *v = 0.0);
        for i in 0..nc {
            // The columns of block row i: those of its first row in J's pattern.
            let cols = &self.indices[self.indptr[d * i]..self.indptr[d * i + 1]];
            let base = self.wp_start[i];
            for a in 0..d {
                let row = d * i + a;
                for k in ip[row]..ip[row + 1] {
                    let p = cols.binary_search(&idx[k]).unwrap_or_else(|_| unreachable!("same pattern"));
                    self.wp[base + a * cols.len() + p] += val[k];
                }
            }
        }
    }

    /// Fills the values from the per-contact Jacobian blocks.
    pub(super) fn assemble(&mut self, d: usize, jr: &[f64], ju: &[f64]) {
        let nc = self.wp_start.len() - 1;
        for i in 0..nc {
            let ncols = (self.wp_start[i + 1] - self.wp_start[i]) / d;
            let wp = &self.wp[self.wp_start[i]..self.wp_start[i + 1]];
            let (jri, jui) = (&jr[i * d * d..(i + 1) * d * d], &ju[i * d * d..(i + 1) * d * d]);
            for a in 0..d {
                let row = d * i + a;
                let out = &mut self.values[self.indptr[row]..self.indptr[row + 1]];
                out.iter_mut().for_each(|v| *v = 0.0);
                for k in 0..d {
                    let c = jui[a * d + k];
                    if c != 0.0 {
                        for (o, w) in out.iter_mut().zip(&wp[k * ncols..(k + 1) * ncols]) {
                            *o += c * w;
                        }
                    }
                }
                let dp = self.diag_pos[row] - self.indptr[row];
                for k in 0..d {
                    out[dp - a + k] += jri[a * d + k];
                }
            }
        }
    }

    /// Solves `(J + εI) x = rhs` in place; `false` on breakdown.
    pub(super) fn solve(&mut self, eps: f64, rhs: &mut [f64]) -> bool {
        let n = rhs.len();
        if eps != 0.0 {
            for &p in &self.diag_pos {
                self.values[p] += eps;
            }
        }
        // The CSR of J is the CSC of Jᵀ: factor that and solve with its transpose.
        let ok = self.lu.factor(n, &self.indptr, &self.indices, &self.values).is_ok()
            && self.lu.solve_transpose_in_place(rhs).is_ok();
        if eps != 0.0 {
            for &p in &self.diag_pos {
                self.values[p] -= eps;
            }
        }
        ok
    }

    /// `y = J x`.
    pub(super) fn mul(&self, x: &[f64], y: &mut [f64]) {
        self.csr().mul(x, y);
    }
}
