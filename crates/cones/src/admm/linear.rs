//! ADMM's linear solves: `W + ρI` (or its symmetric form) factored, kept while ρ and W stay.

use super::*;

/// The worst `|W_ij − W_ji|` of a CSR matrix relative to its largest entry is at most `tol`.
pub(super) fn csr_symmetric(b: &Blocks, tol: f64) -> bool {
    let ip = b.csr.indptr();
    let ip = ip.raw_storage();
    let (idx, val) = (b.csr.indices(), b.csr.data());
    let max = val.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
    let bound = tol * max;
    for i in 0..b.csr.rows() {
        for k in ip[i]..ip[i + 1] {
            let j = idx[k];
            if j <= i {
                continue;
            }
            let row = &idx[ip[j]..ip[j + 1]];
            let other = row.binary_search(&i).map_or(0.0, |t| val[ip[j] + t]);
            if (val[k] - other).abs() > bound {
                return false;
            }
        }
    }
    true
}

/// `W + ρI` and its factorization.
#[derive(Default)]
pub(super) struct Linear {
    /// Dense storage (W stored dense with at least 30 % nonzeros) or sparse.
    pub(super) dense: bool,
    /// W is symmetric: Cholesky (falls back to LU on breakdown).
    pub(super) symmetric: bool,
    /// LU in use (W not symmetric, or Cholesky broke down).
    pub(super) lu_mode: bool,
    pub(super) dchol: DenseCholesky,
    pub(super) dlu: DenseLu,
    /// Sparse: the CSC pattern (of W's lower triangle for Cholesky, of Wᵀ for LU, diagonal
    /// always present), W's values there and the positions of the diagonal.
    pub(super) col_ptr: Vec<usize>,
    pub(super) row_idx: Vec<usize>,
    pub(super) base: Vec<f64>,
    pub(super) vals: Vec<f64>,
    pub(super) diag_pos: Vec<usize>,
    pub(super) schol: SparseCholesky,
    pub(super) slu: SparseLu,
    pub(super) factorizations: usize,
}

impl Linear {
    /// Sets up for `W` (held in `b`): storage choice, symmetry, the sparse pattern.
    pub(super) fn setup(&mut self, b: &Blocks, dense: bool) {
        self.dense = dense;
        self.symmetric = csr_symmetric(b, SYMMETRY_TOL);
        self.lu_mode = !self.symmetric;
        self.factorizations = 0;
        let n = b.csr.rows();
        if dense {
            self.dchol.resize(n, 1);
            self.dlu.resize(n, 1);
        } else {
            self.build_pattern(b, !self.lu_mode);
        }
    }

    /// The CSC pattern of W's lower triangle (`lower`) or of Wᵀ (W's CSR read as CSC), with
    /// the diagonal added where W stores none.
    pub(super) fn build_pattern(&mut self, b: &Blocks, lower: bool) {
        let n = b.csr.rows();
        let ip = b.csr.indptr();
        let ip = ip.raw_storage();
        let (idx, val) = (b.csr.indices(), b.csr.data());
        self.col_ptr.clear();
        self.row_idx.clear();
        self.base.clear();
        self.diag_pos.clear();
        self.col_ptr.push(0);
        for c in 0..n {
            let mut diag_done = false;
            for k in ip[c]..ip[c + 1] {
                let r = idx[k];
                if lower && r < c {
                    continue;
                }
                if !diag_done && r >= c {
                    if r > c {
                        self.diag_pos.push(self.row_idx.len());
                        self.row_idx.push(c);
                        self.base.push(0.0);
                    } else {
                        self.diag_pos.push(self.row_idx.len());
                    }
                    diag_done = true;
                }
                self.row_idx.push(r);
                self.base.push(val[k]);
            }
            if !diag_done {
                self.diag_pos.push(self.row_idx.len());
                self.row_idx.push(c);
                self.base.push(0.0);
            }
            self.col_ptr.push(self.row_idx.len());
        }
        self.vals.clear();
        self.vals.extend_from_slice(&self.base);
    }

    /// Factorizes `W + ρI`; on a Cholesky breakdown switches to LU for good. `false` when
    /// the LU breaks down too.
    pub(super) fn factor(&mut self, b: &Blocks, rho: f64) -> bool {
        loop {
            self.factorizations += 1;
            let ok = if self.dense { self.factor_dense(b, rho) } else { self.factor_sparse(rho) };
            if ok {
                return true;
            }
            if self.lu_mode {
                return false;
            }
            self.lu_mode = true;
            if !self.dense {
                self.build_pattern(b, false);
            }
        }
    }

    pub(super) fn factor_dense(&mut self, b: &Blocks, rho: f64) -> bool {
        let ip = b.csr.indptr();
        let ip = ip.raw_storage();
        let (idx, val) = (b.csr.indices(), b.csr.data());
        let n = b.csr.rows();
        let mut a = if self.lu_mode { self.dlu.matrix_mut() } else { self.dchol.matrix_mut() };
        a.fill(0.0);
        for i in 0..n {
            for k in ip[i]..ip[i + 1] {
                a[(i, idx[k])] = val[k];
            }
            a[(i, i)] += rho;
        }
        if self.lu_mode {
            self.dlu.factor().is_ok_and(|p| !p.singular(1e-14))
        } else {
            self.dchol.factor().is_ok()
        }
    }

    pub(super) fn factor_sparse(&mut self, rho: f64) -> bool {
        self.vals.copy_from_slice(&self.base);
        for &k in &self.diag_pos {
            self.vals[k] += rho;
        }
        let n = self.col_ptr.len() - 1;
        if self.lu_mode {
            self.slu.factor(n, &self.col_ptr, &self.row_idx, &self.vals).is_ok()
        } else {
            self.schol.factor(n, &self.col_ptr, &self.row_idx, &self.vals).is_ok()
        }
    }

    /// `x ← (W + ρI)⁻¹ x`; `false` on a breakdown.
    pub(super) fn solve(&mut self, x: &mut [f64]) -> bool {
        match (self.dense, self.lu_mode) {
            (true, false) => self.dchol.solve_in_place(x),
            (true, true) => self.dlu.solve_in_place(x),
            (false, false) => return self.schol.solve_in_place(x, x.len(), 1).is_ok(),
            // The CSC holds Wᵀ + ρI.
            (false, true) => return self.slu.solve_transpose_in_place(x).is_ok(),
        }
        x.iter().all(|v| v.is_finite())
    }
}
