//! [`PatternLu`]: sparse `L D U` without pivoting between blocks of a matrix whose *pattern*
//! is symmetric (its values need not be), on the approximate-minimum-degree order of that
//! pattern.
//!
//! A matrix such as the Newton matrix `M + H G Hᵀ` of a frictional Newton method in the
//! velocities has the symmetric pattern of the body graph but unsymmetric values (G is not
//! symmetric on sliding contacts). An LU with partial pivoting ([`super::SparseLu`], faer's)
//! must allow any row to become a pivot: its ordering (COLAMD) and its fill bound are those of
//! `AᵀA`, whose pattern is the graph's *second* neighbourhood. Without pivoting the factors
//! have exactly the fill of a Cholesky factor of the pattern.
//!
//! **Blocks.** Unknowns whose closed neighbourhoods in the pattern are the same (the six
//! velocities of a rigid body, which every contact of the body couples alike) are
//! *indistinguishable*: they are eliminated together as one node (at most [`MAX_NODE`]
//! unknowns; a larger set is cut in pieces), every block between two nodes is dense, and the
//! ordering (AMD) runs on the graph of the nodes. L is unit block-lower, U unit block-upper
//! with the transposed block pattern, and D block diagonal; each D_k is factored densely
//! with partial pivoting inside the block, the only pivoting.
//!
//! The factorization is the up-looking one of Davis' LDL (T. A. Davis, "Algorithm 849: a
//! concise sparse Cholesky factorization package", ACM TOMS 31(4), 2005), applied to both
//! triangles and to blocks: block row k of L and block column k of U come from two sparse
//! block triangular solves along the elimination tree's reach,
//!
//! ```text
//!     L[0:k,0:k] Y = A[0:k, k],     U[0:k,0:k]ᵀ Z = A[k, 0:k]ᵀ,
//!     U[j,k] = D_j⁻¹ Y_j,   L[k,j] = Z_jᵀ D_j⁻¹,   D_k = A[k,k] − Σ_j L[k,j] Y_j.
//! ```
//!
//! Without pivoting between blocks a pivot may vanish even for a nonsingular matrix: a pivot
//! of D_k (after its partial pivoting) that is not finite or below `1e-13` times the largest
//! entry of the node's rows and columns in A is a [`Breakdown::Pivot`], and the caller solves
//! another way (the global Newton method then solves its unreduced system with pivoting). A
//! pivot that merely grows the factors shows in the solve's residual, which the caller checks.
//!
//! The symbolic analysis (nodes, ordering, elimination tree, block counts, where each of A's
//! entries goes) is kept while the pattern repeats ([`PatternLu::analyses`] counts them); a
//! factorization then allocates nothing.

use super::{amd_order, finite, Breakdown, Pattern};
use std::collections::HashMap;

/// Pivots below this times the largest magnitude of their node's rows and columns in A break
/// down.
const PIVOT_TOLERANCE: f64 = 1e-13;

/// The most unknowns of one node (a larger set of indistinguishable unknowns is cut).
pub const MAX_NODE: usize = 16;

/// Sparse block `L D U` of a matrix with a symmetric pattern (module docs).
#[derive(Clone, Debug, Default)]
pub struct PatternLu {
    pattern: Pattern,
    analysed: bool,
    analyses: usize,
    n: usize,
    /// `perm[p]`: the row and column of A at position p of the elimination order.
    perm: Vec<usize>,
    /// Node k covers positions `off[k]..off[k + 1]`.
    off: Vec<usize>,
    /// For each node k, its blocks above the diagonal: `(i < k, start in apos of A[i,k]'s
    /// positions (s_i × s_k, row-major), start of A[k,i]'s (s_k × s_i, row-major))`.
    upper_ptr: Vec<usize>,
    upper: Vec<(usize, usize, usize)>,
    /// Where each of A's entries is in the values, block by block (every entry once).
    apos: Vec<usize>,
    /// Per node: where its diagonal block's positions start in `apos` (s_k × s_k, row-major).
    diag_at: Vec<usize>,
    parent: Vec<usize>,
    /// L's block columns: node j's blocks are `bp[j]..bp[j] + fill[j]`, each a row node in
    /// `bi` and where its data starts in `lx` (`L[i,j]`, s_i × s_j) and `ux` (`U[j,i]`,
    /// s_j × s_i), both row-major; `dp[j]` is the next free data offset of column j.
    bp: Vec<usize>,
    fill: Vec<usize>,
    bi: Vec<usize>,
    bx: Vec<usize>,
    dp: Vec<usize>,
    next: Vec<usize>,
    lx: Vec<f64>,
    ux: Vec<f64>,
    /// D_k⁻¹ (s_k² from `dat[k]`, row-major); D_k itself lives only while node k is factored.
    dinv: Vec<f64>,
    dat: Vec<usize>,
    /// The largest magnitude in each node's rows and columns of A, for the pivot test.
    scale: Vec<f64>,
    /// Scratch: Y and Z of the module docs, one row of `smax` per position; a solve's vector.
    smax: usize,
    y: Vec<f64>,
    z: Vec<f64>,
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

    /// The entries of L below its diagonal (U has as many above it): the fill of a Cholesky
    /// factor of the pattern, counted entry by entry, within the nodes' diagonal blocks too.
    /// Zero before an analysis.
    pub fn factor_nonzeros(&self) -> usize {
        if !self.analysed {
            return 0;
        }
        let inside: usize = self.off.windows(2).map(|w| (w[1] - w[0]) * (w[1] - w[0] - 1) / 2).sum();
        self.lx.len() + inside
    }

    /// The nodes (sets of indistinguishable unknowns eliminated together). Zero before an
    /// analysis.
    pub fn nodes(&self) -> usize {
        self.off.len().saturating_sub(1)
    }

    /// Factorizes the `n × n` matrix in compressed columns (rows sorted within each column),
    /// whose pattern must be symmetric and hold the diagonal (else [`Breakdown::Symbolic`]); the symbolic analysis
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
        let done = self.numeric(values);
        if done.is_err() {
            // The scratch must be zero for the next factorization or solve.
            self.y.iter_mut().for_each(|x| *x = 0.0);
            self.z.iter_mut().for_each(|x| *x = 0.0);
        }
        done?;
        self.factored = true;
        Ok(())
    }

    /// The nodes, their ordering, the permuted blocks, the elimination tree and the storage.
    fn analyse(&mut self, n: usize, col_ptr: &[usize], row_idx: &[usize]) -> Result<(), Breakdown> {
        let rows = |j: usize| &row_idx[col_ptr[j]..col_ptr[j + 1]];
        let at = |i: usize, j: usize| {
            rows(j).binary_search(&i).map(|q| col_ptr[j] + q).map_err(|_| Breakdown::Symbolic)
        };
        // The pattern's checks (sorted, in range, symmetric) and each unknown's closed
        // neighbourhood, grouped: equal neighbourhoods make one node.
        let mut groups: HashMap<Vec<usize>, usize> = HashMap::new();
        let mut sets: Vec<Vec<usize>> = Vec::new();
        for j in 0..n {
            let r = rows(j);
            if r.windows(2).any(|w| w[0] >= w[1]) || r.last().is_some_and(|&i| i >= n) {
                return Err(Breakdown::Symbolic);
            }
            for &i in r {
                at(j, i)?;
            }
            let mut closed = r.to_vec();
            if let Err(q) = closed.binary_search(&j) {
                closed.insert(q, j);
            }
            let g = *groups.entry(closed).or_insert_with(|| {
                sets.push(Vec::new());
                sets.len() - 1
            });
            sets[g].push(j);
        }
        drop(groups);
        // Nodes in the order their first unknown comes, large sets cut in pieces.
        let mut node_of = vec![0; n];
        let mut members: Vec<Vec<usize>> = Vec::new();
        for set in &sets {
            for piece in set.chunks(MAX_NODE) {
                for &u in piece {
                    node_of[u] = members.len();
                }
                members.push(piece.to_vec());
            }
        }
        let nn = members.len();
        // The nodes' graph (lower triangle with the diagonal) and its ordering.
        let mut lo_ptr = Vec::with_capacity(nn + 1);
        let mut lo_idx = Vec::new();
        let mut mark = vec![usize::MAX; nn];
        lo_ptr.push(0);
        for (k, m) in members.iter().enumerate() {
            let start = lo_idx.len();
            mark[k] = k;
            lo_idx.push(k);
            for &i in rows(m[0]) {
                let ni = node_of[i];
                if ni > k && mark[ni] != k {
                    mark[ni] = k;
                    lo_idx.push(ni);
                }
            }
            lo_idx[start..].sort_unstable();
            lo_ptr.push(lo_idx.len());
        }
        let order = if nn == 0 { Vec::new() } else { amd_order(nn, &lo_ptr, &lo_idx)? };
        let mut inv = vec![0; nn];
        for (k, &p) in order.iter().enumerate() {
            inv[p] = k;
        }
        let mut perm = Vec::with_capacity(n);
        let mut off = Vec::with_capacity(nn + 1);
        off.push(0);
        for &p in &order {
            perm.extend_from_slice(&members[p]);
            off.push(perm.len());
        }
        let smax = members.iter().map(Vec::len).max().unwrap_or(0);
        // Each node's blocks: the diagonal one, and those above it (with their mirrors).
        let mut upper_ptr = Vec::with_capacity(nn + 1);
        let mut upper = Vec::new();
        let mut apos = Vec::with_capacity(row_idx.len());
        let mut diag_at = Vec::with_capacity(nn);
        let mut nbrs = Vec::new();
        upper_ptr.push(0);
        for k in 0..nn {
            let mk = &members[order[k]];
            diag_at.push(apos.len());
            for &a in mk {
                for &c in mk {
                    apos.push(at(a, c)?);
                }
            }
            nbrs.clear();
            for &i in rows(mk[0]) {
                let ni = inv[node_of[i]];
                if ni < k && mark[ni] != nn + k {
                    mark[ni] = nn + k;
                    nbrs.push(ni);
                }
            }
            nbrs.sort_unstable();
            for &i in &nbrs {
                let mi = &members[order[i]];
                let (pa, pb) = (apos.len(), apos.len() + mi.len() * mk.len());
                for &a in mi {
                    for &c in mk {
                        apos.push(at(a, c)?);
                    }
                }
                for &c in mk {
                    for &a in mi {
                        apos.push(at(c, a)?);
                    }
                }
                upper.push((i, pa, pb));
            }
            upper_ptr.push(upper.len());
        }
        if apos.len() != row_idx.len() {
            return Err(Breakdown::Symbolic);
        }
        // Elimination tree, block counts and data sizes (Davis' ldl_symbolic on the nodes).
        let size = |k: usize| off[k + 1] - off[k];
        let mut parent = vec![usize::MAX; nn];
        let mut flag = vec![usize::MAX; nn];
        let mut counts = vec![0usize; nn];
        let mut data = vec![0usize; nn];
        for k in 0..nn {
            flag[k] = k;
            for &(i0, _, _) in &upper[upper_ptr[k]..upper_ptr[k + 1]] {
                let mut i = i0;
                while flag[i] != k {
                    if parent[i] == usize::MAX {
                        parent[i] = k;
                    }
                    counts[i] += 1;
                    data[i] += size(k) * size(i);
                    flag[i] = k;
                    i = parent[i];
                }
            }
        }
        let (mut bp, mut dp) = (Vec::with_capacity(nn + 1), Vec::with_capacity(nn + 1));
        let (mut nb, mut nd) = (0, 0);
        for k in 0..nn {
            bp.push(nb);
            dp.push(nd);
            nb += counts[k];
            nd += data[k];
        }
        bp.push(nb);
        dp.push(nd);
        let dsize: usize = (0..nn).map(|k| size(k) * size(k)).sum();
        let mut dat = Vec::with_capacity(nn);
        let mut acc = 0;
        for k in 0..nn {
            dat.push(acc);
            acc += size(k) * size(k);
        }
        *self = PatternLu {
            pattern: std::mem::take(&mut self.pattern),
            analysed: false,
            analyses: self.analyses,
            n,
            perm,
            off,
            upper_ptr,
            upper,
            apos,
            diag_at,
            parent,
            bp,
            fill: vec![0; nn],
            bi: vec![0; nb],
            bx: vec![0; nb],
            dp,
            next: vec![0; nn],
            lx: vec![0.0; nd],
            ux: vec![0.0; nd],
            dinv: vec![0.0; dsize],
            dat,
            scale: vec![0.0; nn],
            smax,
            y: vec![0.0; n * smax],
            z: vec![0.0; n * smax],
            x: vec![0.0; n],
            flag,
            stack: Vec::with_capacity(nn),
            reach: Vec::with_capacity(nn),
            factored: false,
        };
        Ok(())
    }

    /// The up-looking numeric factorization (module docs).
    fn numeric(&mut self, values: &[f64]) -> Result<(), Breakdown> {
        let nn = self.off.len() - 1;
        let PatternLu {
            off,
            upper_ptr,
            upper,
            apos,
            diag_at,
            parent,
            bp,
            fill,
            bi,
            bx,
            dp,
            next,
            lx,
            ux,
            dinv,
            dat,
            scale,
            smax,
            y,
            z,
            flag,
            stack,
            reach,
            ..
        } = self;
        let sm = *smax;
        let size = |k: usize| off[k + 1] - off[k];
        // The pivot test's scales.
        scale.iter_mut().for_each(|s| *s = 0.0);
        for k in 0..nn {
            let sk = size(k);
            let d = &apos[diag_at[k]..diag_at[k] + sk * sk];
            scale[k] = d.iter().fold(scale[k], |m, &p| m.max(values[p].abs()));
            for &(i, pa, _) in &upper[upper_ptr[k]..upper_ptr[k + 1]] {
                let len = 2 * size(i) * sk;
                let m = apos[pa..pa + len].iter().fold(0.0_f64, |m, &p| m.max(values[p].abs()));
                scale[k] = scale[k].max(m);
                scale[i] = scale[i].max(m);
            }
        }
        fill.iter_mut().for_each(|f| *f = 0);
        flag.iter_mut().for_each(|f| *f = usize::MAX);
        next.copy_from_slice(&dp[..nn]);
        for k in 0..nn {
            let (ok, sk) = (off[k], size(k));
            // Scatter A[i,k] into Y_i and A[k,i]ᵀ into Z_i, and find the reach (a topological
            // order of the etree paths from each block, as in Davis' ldl_numeric).
            reach.clear();
            flag[k] = k;
            for &(i0, pa, pb) in &upper[upper_ptr[k]..upper_ptr[k + 1]] {
                let (oi, si) = (off[i0], size(i0));
                for a in 0..si {
                    let (yr, zr) = ((oi + a) * sm, (oi + a) * sm);
                    for c in 0..sk {
                        y[yr + c] += values[apos[pa + a * sk + c]];
                        z[zr + c] += values[apos[pb + c * si + a]];
                    }
                }
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
            // D_k starts as A[k,k].
            let mut dk_store = [0.0; MAX_NODE * MAX_NODE];
            let dk = &mut dk_store[..sk * sk];
            for (e, &p) in dk.iter_mut().zip(&apos[diag_at[k]..diag_at[k] + sk * sk]) {
                *e = values[p];
            }
            for &j in reach.iter().rev() {
                let (oj, sj) = (off[j], size(j));
                // Y_j and Z_j taken out of the scratch (which is left zero).
                let (mut yj, mut zj) = ([0.0; MAX_NODE * MAX_NODE], [0.0; MAX_NODE * MAX_NODE]);
                for t in 0..sj {
                    let r = (oj + t) * sm;
                    yj[t * sk..(t + 1) * sk].copy_from_slice(&y[r..r + sk]);
                    zj[t * sk..(t + 1) * sk].copy_from_slice(&z[r..r + sk]);
                    y[r..r + sk].iter_mut().for_each(|v| *v = 0.0);
                    z[r..r + sk].iter_mut().for_each(|v| *v = 0.0);
                }
                let (yj, zj) = (&yj[..sj * sk], &zj[..sj * sk]);
                // Y_i −= L[i,j] Y_j and Z_i −= U[j,i]ᵀ Z_j over column j's blocks so far.
                for b in bp[j]..bp[j] + fill[j] {
                    let (i, x0) = (bi[b], bx[b]);
                    let (oi, si) = (off[i], size(i));
                    let lu_ij = (&lx[x0..x0 + si * sj], &ux[x0..x0 + si * sj]);
                    let rows = (oi * sm, sm, si, sj);
                    match sk {
                        6 if (si, sj) == (6, 6) => block_update_66((y, z), (oi * sm, sm), lu_ij, (yj, zj)),
                        6 => block_update::<6>((y, z), rows, lu_ij, (yj, zj)),
                        3 => block_update::<3>((y, z), rows, lu_ij, (yj, zj)),
                        1 => block_update::<1>((y, z), rows, lu_ij, (yj, zj)),
                        _ => block_update_any(sk, (y, z), rows, lu_ij, (yj, zj)),
                    }
                }
                // U[j,k] = D_j⁻¹ Y_j (s_j × s_k) and L[k,j] = Z_jᵀ D_j⁻¹ (s_k × s_j), into
                // column j's next block; then D_k −= L[k,j] Y_j.
                let x0 = next[j];
                next[j] += sj * sk;
                let b = bp[j] + fill[j];
                fill[j] += 1;
                bi[b] = k;
                bx[b] = x0;
                let dj = &dinv[dat[j]..dat[j] + sj * sj];
                let ukj = &mut ux[x0..x0 + sj * sk];
                let lkj = &mut lx[x0..x0 + sj * sk];
                if (sj, sk) == (6, 6) {
                    new_blocks::<6, 6>(dj, (yj, zj), (ukj, lkj), dk);
                } else {
                    new_blocks_any(sj, sk, dj, (yj, zj), (ukj, lkj), dk);
                }
            }
            let pk = &mut [0; MAX_NODE][..sk];
            lu_factor(sk, dk, pk, PIVOT_TOLERANCE * scale[k]).map_err(|r| Breakdown::Pivot(ok + r))?;
            // D_k⁻¹, column by column.
            let inv = &mut dinv[dat[k]..dat[k] + sk * sk];
            for c in 0..sk {
                let mut col = [0.0; MAX_NODE];
                col[c] = 1.0;
                lu_solve(sk, dk, pk, &mut col[..sk]);
                for (t, v) in col[..sk].iter().enumerate() {
                    inv[t * sk + c] = *v;
                }
            }
        }
        Ok(())
    }

    /// Solves `A x = b` in place; `Err` without a factorization or when `x` is not finite.
    pub fn solve_in_place(&mut self, b: &mut [f64]) -> Result<(), Breakdown> {
        if !self.factored || b.len() != self.n {
            return Err(Breakdown::NotFactored);
        }
        let nn = self.off.len() - 1;
        let size = |k: usize| self.off[k + 1] - self.off[k];
        let x = &mut self.x;
        for (xp, &p) in x.iter_mut().zip(&self.perm) {
            *xp = b[p];
        }
        // L: x_i −= L[i,j] x_j.
        for j in 0..nn {
            let (oj, sj) = (self.off[j], size(j));
            for b in self.bp[j]..self.bp[j] + self.fill[j] {
                let (i, x0) = (self.bi[b], self.bx[b]);
                let (oi, si) = (self.off[i], size(i));
                let lij = &self.lx[x0..x0 + si * sj];
                for a in 0..si {
                    let s: f64 = (0..sj).map(|t| lij[a * sj + t] * x[oj + t]).sum();
                    x[oi + a] -= s;
                }
            }
        }
        // D.
        for j in 0..nn {
            let (oj, sj) = (self.off[j], size(j));
            let dj = &self.dinv[self.dat[j]..self.dat[j] + sj * sj];
            let mut t = [0.0; MAX_NODE];
            t[..sj].copy_from_slice(&x[oj..oj + sj]);
            for (r, xr) in x[oj..oj + sj].iter_mut().enumerate() {
                *xr = dj[r * sj..(r + 1) * sj].iter().zip(&t[..sj]).map(|(g, v)| g * v).sum();
            }
        }
        // U: x_j −= U[j,i] x_i.
        for j in (0..nn).rev() {
            let (oj, sj) = (self.off[j], size(j));
            for b in self.bp[j]..self.bp[j] + self.fill[j] {
                let (i, x0) = (self.bi[b], self.bx[b]);
                let (oi, si) = (self.off[i], size(i));
                let uji = &self.ux[x0..x0 + si * sj];
                for t in 0..sj {
                    let s: f64 = (0..si).map(|a| uji[t * si + a] * x[oi + a]).sum();
                    x[oj + t] -= s;
                }
            }
        }
        for (xp, &p) in x.iter().zip(&self.perm) {
            b[p] = *xp;
        }
        finite(b)
    }
}

/// Dense LU with partial pivoting of the `s × s` row-major `a` in place (`piv[r]`: the row
/// swapped with r at step r). `Err(r)`: pivot r is not finite or at most `tiny` (or zero).
fn lu_factor(s: usize, a: &mut [f64], piv: &mut [usize], tiny: f64) -> Result<(), usize> {
    for r in 0..s {
        let mut p = r;
        for i in r + 1..s {
            if a[i * s + r].abs() > a[p * s + r].abs() {
                p = i;
            }
        }
        piv[r] = p;
        if p != r {
            for c in 0..s {
                a.swap(r * s + c, p * s + c);
            }
        }
        let d = a[r * s + r];
        if !d.is_finite() || d == 0.0 || d.abs() <= tiny {
            return Err(r);
        }
        for i in r + 1..s {
            let f = a[i * s + r] / d;
            a[i * s + r] = f;
            for c in r + 1..s {
                a[i * s + c] -= f * a[r * s + c];
            }
        }
    }
    Ok(())
}

/// Solves `A x = b` in place with [`lu_factor`]'s factors.
fn lu_solve(s: usize, lu: &[f64], piv: &[usize], b: &mut [f64]) {
    for (r, &p) in piv[..s].iter().enumerate() {
        b.swap(r, p);
    }
    for r in 0..s {
        let v: f64 = (0..r).map(|c| lu[r * s + c] * b[c]).sum();
        b[r] -= v;
    }
    for r in (0..s).rev() {
        let v: f64 = (r + 1..s).map(|c| lu[r * s + c] * b[c]).sum();
        b[r] = (b[r] - v) / lu[r * s + r];
    }
}

/// `Y_i −= L[i,j] Y_j`, `Z_i −= U[j,i]ᵀ Z_j` for a node k of `K` unknowns: the rows of `Y_i`,
/// `Z_i` from `first` with stride `sm` (s_i of them), `L[i,j]` (s_i × s_j) and `U[j,i]`
/// (s_j × s_i) row-major, `Y_j`, `Z_j` (s_j × K) row-major.
#[inline(always)]
fn block_update<const K: usize>(
    (y, z): (&mut [f64], &mut [f64]),
    (first, sm, si, sj): (usize, usize, usize, usize),
    (lij, uji): (&[f64], &[f64]),
    (yj, zj): (&[f64], &[f64]),
) {
    for a in 0..si {
        let dst = first + a * sm;
        let yd: &mut [f64; K] = (&mut y[dst..dst + K]).try_into().expect("K entries");
        let zd: &mut [f64; K] = (&mut z[dst..dst + K]).try_into().expect("K entries");
        let (mut ya, mut za) = (*yd, *zd);
        for t in 0..sj {
            let (l, u) = (lij[a * sj + t], uji[t * si + a]);
            let ys: &[f64; K] = (&yj[t * K..(t + 1) * K]).try_into().expect("K entries");
            let zs: &[f64; K] = (&zj[t * K..(t + 1) * K]).try_into().expect("K entries");
            for c in 0..K {
                ya[c] -= l * ys[c];
                za[c] -= u * zs[c];
            }
        }
        *yd = ya;
        *zd = za;
    }
}

/// [`block_update`] for a node of any size `sk`.
fn block_update_any(
    sk: usize,
    (y, z): (&mut [f64], &mut [f64]),
    (first, sm, si, sj): (usize, usize, usize, usize),
    (lij, uji): (&[f64], &[f64]),
    (yj, zj): (&[f64], &[f64]),
) {
    for a in 0..si {
        let dst = first + a * sm;
        let (yd, zd) = (&mut y[dst..dst + sk], &mut z[dst..dst + sk]);
        for t in 0..sj {
            let (l, u) = (lij[a * sj + t], uji[t * si + a]);
            for (d, s) in yd.iter_mut().zip(&yj[t * sk..(t + 1) * sk]) {
                *d -= l * s;
            }
            for (d, s) in zd.iter_mut().zip(&zj[t * sk..(t + 1) * sk]) {
                *d -= u * s;
            }
        }
    }
}

/// The blocks of node k in column j: `U[j,k] = D_j⁻¹ Y_j` (s_j × s_k), `L[k,j] = Z_jᵀ D_j⁻¹`
/// (s_k × s_j), and `D_k −= L[k,j] Y_j`, for `J × K` blocks (row-major throughout).
#[inline(always)]
fn new_blocks<const J: usize, const K: usize>(
    dj: &[f64],
    (yj, zj): (&[f64], &[f64]),
    (ukj, lkj): (&mut [f64], &mut [f64]),
    dk: &mut [f64],
) {
    let dj: &[f64] = &dj[..J * J];
    let (yj, zj) = (&yj[..J * K], &zj[..J * K]);
    for t in 0..J {
        let mut row = [0.0; K];
        for q in 0..J {
            let g = dj[t * J + q];
            for c in 0..K {
                row[c] += g * yj[q * K + c];
            }
        }
        ukj[t * K..(t + 1) * K].copy_from_slice(&row);
    }
    for c in 0..K {
        let mut row = [0.0; J];
        for q in 0..J {
            let zc = zj[q * K + c];
            for t in 0..J {
                row[t] += zc * dj[q * J + t];
            }
        }
        lkj[c * J..(c + 1) * J].copy_from_slice(&row);
    }
    for c1 in 0..K {
        let mut row = [0.0; K];
        row.copy_from_slice(&dk[c1 * K..(c1 + 1) * K]);
        for t in 0..J {
            let l = lkj[c1 * J + t];
            for c2 in 0..K {
                row[c2] -= l * yj[t * K + c2];
            }
        }
        dk[c1 * K..(c1 + 1) * K].copy_from_slice(&row);
    }
}

/// [`new_blocks`] for blocks of any size `sj × sk`.
fn new_blocks_any(
    sj: usize,
    sk: usize,
    dj: &[f64],
    (yj, zj): (&[f64], &[f64]),
    (ukj, lkj): (&mut [f64], &mut [f64]),
    dk: &mut [f64],
) {
    ukj.iter_mut().for_each(|v| *v = 0.0);
    for t in 0..sj {
        let row = &mut ukj[t * sk..(t + 1) * sk];
        for q in 0..sj {
            let g = dj[t * sj + q];
            for (d, s) in row.iter_mut().zip(&yj[q * sk..(q + 1) * sk]) {
                *d += g * s;
            }
        }
    }
    lkj.iter_mut().for_each(|v| *v = 0.0);
    for q in 0..sj {
        let dq = &dj[q * sj..(q + 1) * sj];
        for c in 0..sk {
            let zc = zj[q * sk + c];
            for (d, g) in lkj[c * sj..(c + 1) * sj].iter_mut().zip(dq) {
                *d += zc * g;
            }
        }
    }
    for c1 in 0..sk {
        let row = &mut dk[c1 * sk..(c1 + 1) * sk];
        for t in 0..sj {
            let l = lkj[c1 * sj + t];
            for (d, s) in row.iter_mut().zip(&yj[t * sk..(t + 1) * sk]) {
                *d -= l * s;
            }
        }
    }
}

/// [`block_update`] for nodes i, j and k of 6 unknowns each (rigid bodies).
#[inline(always)]
fn block_update_66(
    (y, z): (&mut [f64], &mut [f64]),
    (first, sm): (usize, usize),
    (lij, uji): (&[f64], &[f64]),
    (yj, zj): (&[f64], &[f64]),
) {
    let lij: &[f64; 36] = lij.try_into().expect("6 × 6");
    let uji: &[f64; 36] = uji.try_into().expect("6 × 6");
    let yj: &[f64; 36] = (&yj[..36]).try_into().expect("6 × 6");
    let zj: &[f64; 36] = (&zj[..36]).try_into().expect("6 × 6");
    for a in 0..6 {
        let dst = first + a * sm;
        let yd: &mut [f64; 6] = (&mut y[dst..dst + 6]).try_into().expect("6 entries");
        let zd: &mut [f64; 6] = (&mut z[dst..dst + 6]).try_into().expect("6 entries");
        let (mut ya, mut za) = (*yd, *zd);
        for t in 0..6 {
            let (l, u) = (lij[a * 6 + t], uji[t * 6 + a]);
            for c in 0..6 {
                ya[c] -= l * yj[t * 6 + c];
                za[c] -= u * zj[t * 6 + c];
            }
        }
        *yd = ya;
        *zd = za;
    }
}
