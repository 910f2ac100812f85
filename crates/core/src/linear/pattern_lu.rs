//! [`PatternLu`]: sparse `L D U` without pivoting of a matrix whose *pattern* is symmetric
//! (its values need not be), on the approximate-minimum-degree order of that pattern.
//!
//! A matrix such as the Newton matrix `M + H G Hᵀ` of a frictional Newton method in the
//! velocities has the symmetric pattern of the body graph but unsymmetric values (G is not
//! symmetric on sliding contacts). An LU with partial pivoting ([`super::SparseLu`], faer's)
//! must allow any row to become a pivot: its ordering (COLAMD) and its fill bound are those of
//! `AᵀA`, whose pattern is the graph's *second* neighbourhood. Without pivoting the factors
//! have exactly the fill of a Cholesky factor of the pattern: `L` unit lower and `Uᵀ` unit
//! lower with the same pattern, and D diagonal.
//!
//! The factorization is the up-looking one of Davis' LDL (T. A. Davis, "Algorithm 849: a
//! concise sparse Cholesky factorization package", ACM TOMS 31(4), 2005), applied to both
//! triangles: row k of L and column k of U come from two sparse triangular solves with the
//! pattern of the elimination tree's reach,
//!
//! ```text
//!     L[0:k,0:k] y = A[0:k, k],     U[0:k,0:k]ᵀ w = A[k, 0:k]ᵀ,
//!     U[j,k] = y_j / d_j,   L[k,j] = w_j / d_j,   d_k = A[k,k] − Σ_j w_j y_j / d_j.
//! ```
//!
//! Without pivoting a pivot may vanish even for a nonsingular matrix: a pivot that is not
//! finite or below `1e-13` times the largest entry of its row and column in A is a
//! [`Breakdown::Pivot`], and the caller solves another way (the global Newton method then
//! solves its unreduced system with pivoting). A pivot that merely grows the factors shows
//! in the solve's residual, which the caller checks (and refines).
//!
//! The symbolic analysis (ordering, elimination tree, column counts, where each of A's
//! entries goes) is kept while the pattern repeats ([`PatternLu::analyses`] counts them);
//! a factorization then allocates nothing.

use super::{amd_order, finite, Breakdown, Pattern};

/// Pivots below this times the largest magnitude of their row and column in A break down.
const PIVOT_TOLERANCE: f64 = 1e-13;

/// Sparse `L D U` of a matrix with a symmetric pattern, without pivoting (module docs).
#[derive(Clone, Debug, Default)]
pub struct PatternLu {
    pattern: Pattern,
    analysed: bool,
    analyses: usize,
    n: usize,
    /// `perm[k]`: the row and column of A eliminated k-th.
    perm: Vec<usize>,
    /// For each eliminated column k, the entries of A above the diagonal in the permuted
    /// matrix: `(i < k, position of A[i,k] in the values, position of A[k,i])`.
    upper_ptr: Vec<usize>,
    upper: Vec<(usize, usize, usize)>,
    /// Position of each diagonal entry in the values (`usize::MAX`: structurally zero).
    diag_pos: Vec<usize>,
    parent: Vec<usize>,
    /// Column pointers of L (and of Uᵀ, the same pattern); `fill[j]` entries are set.
    lp: Vec<usize>,
    fill: Vec<usize>,
    li: Vec<usize>,
    /// `(L[i,j], U[j,i])` at the position of row i in column j.
    lux: Vec<[f64; 2]>,
    d: Vec<f64>,
    /// The largest magnitude in each row and column of A (permuted order), for the pivot test.
    scale: Vec<f64>,
    // Scratch of the numeric factorization: `(y_i, w_i)` (module docs), and a solve's vector.
    yw: Vec<[f64; 2]>,
    x: Vec<f64>,
    flag: Vec<usize>,
    stack: Vec<usize>,
    reach: Vec<usize>,
    factored: bool,
}

impl PatternLu {
    /// No analysis yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many symbolic analyses were done (one per new pattern).
    pub fn analyses(&self) -> usize {
        self.analyses
    }

    /// The nonzeros of L below the diagonal (U has as many above it): the fill of a
    /// Cholesky factor of the pattern. Zero before an analysis.
    pub fn factor_nonzeros(&self) -> usize {
        if self.analysed {
            self.lp[self.n]
        } else {
            0
        }
    }

    /// Factorizes the `n × n` matrix in compressed columns (rows sorted within each column),
    /// whose pattern must be symmetric (else [`Breakdown::Symbolic`]); the symbolic analysis
    /// is redone only when the pattern differs from the previous call's.
    pub fn factor(
        &mut self,
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
        values: &[f64],
    ) -> Result<(), Breakdown> {
        self.factored = false;
        if col_ptr.len() != n + 1 || row_idx.len() != col_ptr[n] || values.len() != row_idx.len() {
            return Err(Breakdown::Symbolic);
        }
        if !self.analysed || !self.pattern.matches(n, col_ptr, row_idx) {
            self.analysed = false;
            self.analyse(n, col_ptr, row_idx)?;
            self.pattern.set(n, col_ptr, row_idx);
            self.analysed = true;
            self.analyses += 1;
        }
        self.numeric(values)?;
        self.factored = true;
        Ok(())
    }

    /// The ordering, the permuted upper entries, the elimination tree and L's column counts.
    fn analyse(&mut self, n: usize, col_ptr: &[usize], row_idx: &[usize]) -> Result<(), Breakdown> {
        // The lower triangle (with the diagonal) for the ordering; the pattern's symmetry is
        // checked on the way: every (i, j) needs its (j, i).
        let has = |i: usize, j: usize| row_idx[col_ptr[j]..col_ptr[j + 1]].binary_search(&i).is_ok();
        let mut lo_ptr = Vec::with_capacity(n + 1);
        let mut lo_idx = Vec::with_capacity(row_idx.len() / 2 + n);
        lo_ptr.push(0);
        for j in 0..n {
            let rows = &row_idx[col_ptr[j]..col_ptr[j + 1]];
            if rows.windows(2).any(|w| w[0] >= w[1]) || rows.last().is_some_and(|&i| i >= n) {
                return Err(Breakdown::Symbolic);
            }
            for &i in rows {
                if !has(j, i) {
                    return Err(Breakdown::Symbolic);
                }
                if i >= j {
                    lo_idx.push(i);
                }
            }
            lo_ptr.push(lo_idx.len());
        }
        let perm = amd_order(n, &lo_ptr, &lo_idx)?;
        let mut inv = vec![0; n];
        for (k, &p) in perm.iter().enumerate() {
            inv[p] = k;
        }
        // Upper entries of each permuted column, with the positions of both (i, k) and (k, i).
        let mut upper_ptr = Vec::with_capacity(n + 1);
        let mut upper = Vec::with_capacity(row_idx.len() / 2);
        let mut diag_pos = vec![usize::MAX; n];
        upper_ptr.push(0);
        for k in 0..n {
            let j = perm[k];
            for p in col_ptr[j]..col_ptr[j + 1] {
                let i = inv[row_idx[p]];
                if i == k {
                    diag_pos[k] = p;
                } else if i < k {
                    let orig_i = row_idx[p];
                    let s = &row_idx[col_ptr[orig_i]..col_ptr[orig_i + 1]];
                    let q = col_ptr[orig_i] + s.binary_search(&j).map_err(|_| Breakdown::Symbolic)?;
                    // A[i,k] is at p (row orig_i, column j); A[k,i] at q (row j, column orig_i).
                    upper.push((i, p, q));
                }
            }
            upper[upper_ptr[k]..].sort_unstable_by_key(|e| e.0);
            upper_ptr.push(upper.len());
        }
        // Elimination tree and column counts (Davis' ldl_symbolic).
        let mut parent = vec![usize::MAX; n];
        let mut flag = vec![usize::MAX; n];
        let mut counts = vec![0usize; n];
        for k in 0..n {
            flag[k] = k;
            for &(i0, _, _) in &upper[upper_ptr[k]..upper_ptr[k + 1]] {
                let mut i = i0;
                while flag[i] != k {
                    if parent[i] == usize::MAX {
                        parent[i] = k;
                    }
                    counts[i] += 1;
                    flag[i] = k;
                    i = parent[i];
                }
            }
        }
        let mut lp = Vec::with_capacity(n + 1);
        lp.push(0);
        for &c in &counts {
            let last = *lp.last().unwrap_or(&0);
            lp.push(last + c);
        }
        let nnz = lp[n];
        *self = PatternLu {
            pattern: std::mem::take(&mut self.pattern),
            analysed: false,
            analyses: self.analyses,
            n,
            perm,
            upper_ptr,
            upper,
            diag_pos,
            parent,
            lp,
            fill: vec![0; n],
            li: vec![0; nnz],
            lux: vec![[0.0; 2]; nnz],
            d: vec![0.0; n],
            scale: vec![0.0; n],
            yw: vec![[0.0; 2]; n],
            x: vec![0.0; n],
            flag,
            stack: Vec::with_capacity(n),
            reach: Vec::with_capacity(n),
            factored: false,
        };
        Ok(())
    }

    /// The up-looking numeric factorization (module docs).
    fn numeric(&mut self, values: &[f64]) -> Result<(), Breakdown> {
        let n = self.n;
        let PatternLu { upper_ptr, upper, diag_pos, parent, lp, fill, li, lux, d, scale, yw, flag, .. } =
            self;
        scale.iter_mut().for_each(|s| *s = 0.0);
        for k in 0..n {
            if diag_pos[k] != usize::MAX {
                scale[k] = scale[k].max(values[diag_pos[k]].abs());
            }
            for &(i, p, q) in &upper[upper_ptr[k]..upper_ptr[k + 1]] {
                let m = values[p].abs().max(values[q].abs());
                scale[k] = scale[k].max(m);
                scale[i] = scale[i].max(m);
            }
        }
        fill.iter_mut().for_each(|f| *f = 0);
        flag.iter_mut().for_each(|f| *f = usize::MAX);
        let reach = &mut self.reach;
        let stack = &mut self.stack;
        for k in 0..n {
            // Scatter A[0:k, k] into y and A[k, 0:k] into w, and find the reach (a topological
            // order of the etree paths from each entry, as in Davis' ldl_numeric).
            reach.clear();
            flag[k] = k;
            for &(i0, p, q) in &upper[upper_ptr[k]..upper_ptr[k + 1]] {
                yw[i0][0] += values[p];
                yw[i0][1] += values[q];
                let mut i = i0;
                stack.clear();
                while flag[i] != k {
                    stack.push(i);
                    flag[i] = k;
                    i = parent[i];
                }
                while let Some(j) = stack.pop() {
                    reach.push(j);
                }
            }
            let mut dk = if diag_pos[k] == usize::MAX { 0.0 } else { values[diag_pos[k]] };
            // The reach in reverse order of discovery is topological (each path was pushed
            // top first onto `reach` in one piece).
            for &j in reach.iter().rev() {
                let [yj, wj] = std::mem::take(&mut yw[j]);
                let (p0, p1) = (lp[j], lp[j] + fill[j]);
                for (&i, &[l, u]) in li[p0..p1].iter().zip(&lux[p0..p1]) {
                    let e = &mut yw[i];
                    e[0] -= l * yj;
                    e[1] -= u * wj;
                }
                let dj = d[j];
                let (l_kj, u_jk) = (wj / dj, yj / dj);
                dk -= l_kj * yj;
                li[p1] = k;
                lux[p1] = [l_kj, u_jk];
                fill[j] += 1;
            }
            if !dk.is_finite() || dk.abs() <= PIVOT_TOLERANCE * scale[k] || dk == 0.0 {
                // The scratch must be zero for the next factorization or solve.
                yw.iter_mut().for_each(|x| *x = [0.0; 2]);
                return Err(Breakdown::Pivot(k));
            }
            d[k] = dk;
        }
        Ok(())
    }

    /// Solves `A x = b` in place; `Err` without a factorization or when `x` is not finite.
    pub fn solve_in_place(&mut self, b: &mut [f64]) -> Result<(), Breakdown> {
        if !self.factored || b.len() != self.n {
            return Err(Breakdown::NotFactored);
        }
        let n = self.n;
        let x = &mut self.x;
        for k in 0..n {
            x[k] = b[self.perm[k]];
        }
        for j in 0..n {
            let xj = x[j];
            if xj != 0.0 {
                for p in self.lp[j]..self.lp[j + 1] {
                    x[self.li[p]] -= self.lux[p][0] * xj;
                }
            }
        }
        for (xj, dj) in x.iter_mut().zip(&self.d) {
            *xj /= dj;
        }
        for j in (0..n).rev() {
            let mut s = x[j];
            for p in self.lp[j]..self.lp[j + 1] {
                s -= self.lux[p][1] * x[self.li[p]];
            }
            x[j] = s;
        }
        for k in 0..n {
            b[self.perm[k]] = x[k];
            x[k] = 0.0;
        }
        finite(b)
    }
}
