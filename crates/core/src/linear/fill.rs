//! The predicted cost of a sparse factorization, from a symbolic analysis alone (before any
//! numeric work): the nonzeros of the factor and the flops of the elimination.

use super::Breakdown;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, SymbolicCholeskyRaw, SymmetricOrdering,
};
use faer::sparse::SymbolicSparseColMatRef;
use faer::Side;

/// Size and work of a factorization predicted by its symbolic analysis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FactorCost {
    /// Nonzeros of the matrix.
    pub nnz: usize,
    /// Predicted nonzeros of `L + U` (`2 nnz(L) − n` for an LU pivoting on the diagonal).
    pub factor_nnz: usize,
    /// Predicted floating-point operations of the numeric LU (`2 Σ_j c_j²`, `c_j` the
    /// off-diagonal count of column j of L: twice those of the Cholesky factorization).
    pub flops: f64,
}

impl FactorCost {
    /// `factor_nnz / nnz`.
    pub fn fill_ratio(&self) -> f64 {
        self.factor_nnz as f64 / self.nnz.max(1) as f64
    }
}

/// The predicted cost of an LU of the `n × n` matrix with the compressed-column pattern
/// (`col_ptr`, `row_idx`) in a symmetric fill-reducing order (faer's approximate minimum
/// degree, Amestoy, Davis & Duff 1996, on the pattern of `A + Aᵀ`, the upper triangle
/// read after symmetrization), assuming the pivots stay on the diagonal: a symbolic Cholesky
/// analysis, O(nnz) work and memory, no numeric factorization.
pub fn lu_cost(n: usize, col_ptr: &[usize], row_idx: &[usize]) -> Result<FactorCost, Breakdown> {
    // The pattern of A + Aᵀ, upper triangle (row ≤ column) by columns, sorted, deduplicated.
    let mut count = vec![0usize; n + 1];
    for c in 0..n {
        for &r in &row_idx[col_ptr[c]..col_ptr[c + 1]] {
            count[r.max(c) + 1] += 1;
        }
        count[c + 1] += 1; // the diagonal, always kept
    }
    for c in 0..n {
        count[c + 1] += count[c];
    }
    let mut idx = vec![0usize; count[n]];
    let mut next: Vec<usize> = count[..n].to_vec();
    for c in 0..n {
        for &r in &row_idx[col_ptr[c]..col_ptr[c + 1]] {
            let (lo, hi) = (r.min(c), r.max(c));
            idx[next[hi]] = lo;
            next[hi] += 1;
        }
        idx[next[c]] = c;
        next[c] += 1;
    }
    let mut up_ptr = vec![0usize; n + 1];
    let mut up_idx = Vec::with_capacity(idx.len());
    for c in 0..n {
        let s = &mut idx[count[c]..count[c + 1]];
        s.sort_unstable();
        let mut last = usize::MAX;
        for &r in s.iter() {
            if r != last {
                up_idx.push(r);
                last = r;
            }
        }
        up_ptr[c + 1] = up_idx.len();
    }
    let sym = SymbolicSparseColMatRef::new_checked(n, n, &up_ptr, None, &up_idx);
    let s = factorize_symbolic_cholesky(
        sym,
        Side::Upper,
        SymmetricOrdering::Amd,
        CholeskySymbolicParams::default(),
    )
    .map_err(|_| Breakdown::Symbolic)?;
    let mut nnz_l = 0usize;
    let mut flops = 0.0f64;
    match s.raw() {
        SymbolicCholeskyRaw::Simplicial(s) => {
            let p = s.col_ptr();
            for j in 0..n {
                let c = p[j + 1] - p[j];
                nnz_l += c;
                let off = c.saturating_sub(1) as f64;
                flops += off * off;
            }
        }
        SymbolicCholeskyRaw::Supernodal(s) => {
            let (b, e, rp) = (s.supernode_begin(), s.supernode_end(), s.col_ptr_for_row_idx());
            for k in 0..s.n_supernodes() {
                let width = e[k] - b[k];
                let below = rp[k + 1] - rp[k];
                for t in 0..width {
                    let off = width - t - 1 + below;
                    nnz_l += off + 1;
                    flops += (off * off) as f64;
                }
            }
        }
    }
    Ok(FactorCost { nnz: row_idx.len(), factor_nnz: 2 * nnz_l - n.min(nnz_l), flops: 2.0 * flops })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compressed columns of the pattern given as (row, column) pairs.
    fn csc(n: usize, mut entries: Vec<(usize, usize)>) -> (Vec<usize>, Vec<usize>) {
        entries.sort_by_key(|&(r, c)| (c, r));
        let mut ptr = vec![0; n + 1];
        for &(_, c) in &entries {
            ptr[c + 1] += 1;
        }
        for c in 0..n {
            ptr[c + 1] += ptr[c];
        }
        (ptr, entries.into_iter().map(|(r, _)| r).collect())
    }

    #[test]
    fn a_tridiagonal_matrix_has_no_fill() {
        let n = 50;
        let mut e = Vec::new();
        for i in 0..n {
            e.push((i, i));
            if i + 1 < n {
                e.push((i, i + 1));
                e.push((i + 1, i));
            }
        }
        let (ptr, idx) = csc(n, e);
        let c = lu_cost(n, &ptr, &idx).unwrap();
        assert_eq!((c.nnz, c.factor_nnz), (3 * n - 2, 3 * n - 2));
        assert_eq!(c.flops, 2.0 * (n - 1) as f64);
    }

    #[test]
    fn the_ordering_puts_a_dense_row_and_column_last() {
        // An arrow with its dense row and column first: eliminated first it fills everything
        // (n² entries); the ordering avoids that.
        let n = 40;
        let mut e: Vec<(usize, usize)> = (0..n).map(|i| (i, i)).collect();
        for i in 1..n {
            e.push((0, i));
            e.push((i, 0));
        }
        let (ptr, idx) = csc(n, e);
        let c = lu_cost(n, &ptr, &idx).unwrap();
        assert_eq!(c.factor_nnz, c.nnz, "{c:?}");
        assert!(c.fill_ratio() <= 1.0);
    }

    #[test]
    fn a_one_sided_pattern_is_symmetrized() {
        // Only the lower triangle of a dense 4 × 4: L is dense (10 entries), L + U has 16.
        let n = 4;
        let e = (0..n).flat_map(|c| (c..n).map(move |r| (r, c))).collect();
        let (ptr, idx) = csc(n, e);
        let c = lu_cost(n, &ptr, &idx).unwrap();
        assert_eq!((c.nnz, c.factor_nnz), (10, 16));
    }
}
