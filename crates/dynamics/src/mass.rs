//! The factorization of the mass matrix and the Delassus operator `W = J M⁻¹ Jᵀ`.
//!
//! M is factored by Cholesky and never inverted explicitly: `Y = M⁻¹ Jᵀ` is obtained by solves,
//! column by column, and `W = J Y`. A mass matrix that is not symmetric positive definite is an
//! `Err` naming M.
//!
//! Three factorizations ([`MassFactor`]):
//!
//! * a dense M of more than [`MAX_BLOCK`] velocities: faer's dense Cholesky (a smaller one is
//!   treated as below);
//! * a sparse M whose sparsity graph (velocities coupled by nonzeros) splits into connected
//!   components of at most [`MAX_BLOCK`] velocities — rigid bodies, one 6×6 (or 3 + 3×3) block
//!   each: a dense Cholesky per component ([`BlockFactor`]). Solving `M x = b` for a `b` supported
//!   on a few components touches those components only, so the column of Y of a contact row is
//!   supported on the velocities of the (one or two) bodies the row touches;
//! * any other sparse M: faer's sparse Cholesky.
//!
//! [`Y`] is stored by sparse columns when the block factor makes that smaller than dense storage
//! (e.g. 1000 balls, 6000 velocities, 10⁴ contact rows: 12 nonzeros per column instead of 6000),
//! densely otherwise; [`delassus`] forms `W = J Y` from the nonzeros of Y only.

use crate::system::Row;
use faer::linalg::solvers::{Solve, SolveCore};
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, Mat, MatMut, MatRef, Side};
use perp_core::{Error, Matrix};
use sprs::CsMat;

/// Largest connected component of a sparse M's sparsity graph that [`MassFactor::new`] factors
/// as a dense block; a sparse M with a larger component gets faer's sparse Cholesky.
pub const MAX_BLOCK: usize = 64;

/// A Cholesky factorization of M.
#[derive(Clone, Debug)]
pub enum MassFactor {
    /// Dense M with more than [`MAX_BLOCK`] velocities.
    Dense(faer::linalg::solvers::Llt<f64>),
    /// Sparse M with a connected component larger than [`MAX_BLOCK`].
    Sparse(Box<Llt<usize, f64>>),
    /// M (sparse, or dense with at most [`MAX_BLOCK`] velocities) whose connected components
    /// are all small: one dense factor per component.
    Blocks(Box<BlockFactor>),
}

fn not_spd(n: usize, why: impl std::fmt::Display) -> Error {
    Error::Requirement {
        solver: "perp-dynamics".into(),
        requirement: format!("a symmetric positive definite mass matrix M ({n}×{n}): {why}"),
        suggestion: Some("check the system's mass(q, t)".into()),
    }
}

impl MassFactor {
    /// Factors `m`; `Err` when M is not square, not finite, not symmetric or not positive definite.
    ///
    /// A sparse M is split into the connected components of its sparsity graph; when none has
    /// more than [`MAX_BLOCK`] velocities it is factored block by block ([`MassFactor::Blocks`]).
    pub fn new(m: &Matrix) -> Result<MassFactor, Error> {
        let n = m.nrows();
        if m.ncols() != n {
            return Err(Error::NotSquare { what: "M".into(), rows: n, cols: m.ncols() });
        }
        m.check_finite("M")?;
        if let Some((i, j, _)) = m.asymmetry(1e-10) {
            return Err(not_spd(n, format!("M[{i},{j}] ≠ M[{j},{i}]")));
        }
        match m {
            Matrix::Dense(d) => {
                // A small dense M (a few dofs, stepped millions of times) gets the block factor:
                // it solves without faer's per-call dispatch and workspace.
                if n <= MAX_BLOCK {
                    if let Some(b) = BlockFactor::new(&m.to_csr())? {
                        return Ok(MassFactor::Blocks(Box::new(b)));
                    }
                }
                faer::linalg::solvers::Llt::new(d.as_ref(), Side::Lower)
                    .map(MassFactor::Dense)
                    .map_err(|e| not_spd(n, format!("Cholesky failed ({e:?})")))
            }
            Matrix::Sparse(s) => match BlockFactor::new(s)? {
                Some(b) => Ok(MassFactor::Blocks(Box::new(b))),
                None => sparse_llt(m),
            },
        }
    }

    /// Solves `M X = B` in place, B column-major `n × k`.
    pub fn solve(&self, b: &mut [f64], n: usize, k: usize) {
        match self {
            MassFactor::Dense(f) => f.solve_in_place(MatMut::from_column_major_slice_mut(b, n, k)),
            MassFactor::Sparse(f) => {
                f.solve_in_place_with_conj(Conj::No, MatMut::from_column_major_slice_mut(b, n, k))
            }
            MassFactor::Blocks(f) => {
                for col in b.chunks_exact_mut(n.max(1)).take(k) {
                    f.solve(col);
                }
            }
        }
    }
}

/// faer's sparse Cholesky of a sparse M.
fn sparse_llt(m: &Matrix) -> Result<MassFactor, Error> {
    let n = m.nrows();
    let csc = m.to_csr().to_csc();
    let indptr = csc.proper_indptr();
    let sym = SymbolicSparseColMatRef::new_checked(n, n, &indptr, None, csc.indices());
    let mat = SparseColMatRef::new(sym, csc.data());
    SymbolicLlt::try_new(sym, Side::Lower)
        .map_err(|e| format!("{e:?}"))
        .and_then(|s| Llt::try_new_with_symbolic(s, mat, Side::Lower).map_err(|e| format!("{e:?}")))
        .map(|f| MassFactor::Sparse(Box::new(f)))
        .map_err(|e| not_spd(n, format!("sparse Cholesky failed ({e})")))
}

/// The Cholesky factor of a sparse M that is block diagonal up to a permutation: the velocities
/// are split into the connected components of M's sparsity graph, each factored densely.
#[derive(Clone, Debug)]
pub struct BlockFactor {
    /// Component of each velocity.
    comp: Vec<usize>,
    /// Position of each velocity in its component.
    local: Vec<usize>,
    /// Velocities of component `c`: `dofs[start[c]..start[c + 1]]`, ascending.
    start: Vec<usize>,
    dofs: Vec<usize>,
    /// Lower Cholesky factor of component `c` (size `s`), column-major `s × s` at `l[lstart[c]..]`.
    lstart: Vec<usize>,
    l: Vec<f64>,
}

impl BlockFactor {
    /// The components of `m` and their factors; `Ok(None)` when a component has more than
    /// [`MAX_BLOCK`] velocities, `Err` when a block is not positive definite.
    fn new(m: &CsMat<f64>) -> Result<Option<BlockFactor>, Error> {
        let n = m.rows();
        fn root(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        let mut parent: Vec<usize> = (0..n).collect();
        for (&v, (i, j)) in m.iter() {
            if v != 0.0 && i != j {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                if a != b {
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
        // Components numbered by their first velocity.
        let mut label = vec![usize::MAX; n];
        let mut comp = vec![0; n];
        let mut sizes: Vec<usize> = Vec::new();
        for (d, c) in comp.iter_mut().enumerate() {
            let r = root(&mut parent, d);
            if label[r] == usize::MAX {
                label[r] = sizes.len();
                sizes.push(0);
            }
            *c = label[r];
            sizes[*c] += 1;
            if sizes[*c] > MAX_BLOCK {
                return Ok(None);
            }
        }
        let nc = sizes.len();
        let (mut start, mut lstart) = (Vec::with_capacity(nc + 1), Vec::with_capacity(nc + 1));
        start.push(0);
        lstart.push(0);
        for (c, &s) in sizes.iter().enumerate() {
            start.push(start[c] + s);
            lstart.push(lstart[c] + s * s);
        }
        let (mut dofs, mut local) = (vec![0; n], vec![0; n]);
        let mut next = start[..nc].to_vec();
        for d in 0..n {
            let c = comp[d];
            local[d] = next[c] - start[c];
            dofs[next[c]] = d;
            next[c] += 1;
        }
        let mut l = vec![0.0; lstart[nc]];
        for (&v, (i, j)) in m.iter() {
            let (c, li, lj) = (comp[i], local[i], local[j]);
            // Zeros across components are not edges of the graph; the lower triangle is read.
            if v != 0.0 && li >= lj {
                l[lstart[c] + lj * sizes[c] + li] += v;
            }
        }
        for (c, &s) in sizes.iter().enumerate() {
            let a = &mut l[lstart[c]..lstart[c + 1]];
            // Right-looking Cholesky, column-major lower.
            for k in 0..s {
                let d = a[k * s + k];
                if !(d > 0.0 && d.is_finite()) {
                    let g = dofs[start[c] + k];
                    return Err(not_spd(
                        n,
                        format!(
                            "Cholesky failed at M[{g},{g}] (pivot {d:e}) in the diagonal block of the {s} \
                             coupled velocities {}..",
                            dofs[start[c]]
                        ),
                    ));
                }
                let lkk = d.sqrt();
                a[k * s + k] = lkk;
                for i in k + 1..s {
                    a[k * s + i] /= lkk;
                }
                for j in k + 1..s {
                    let ljk = a[k * s + j];
                    if ljk != 0.0 {
                        let (head, tail) = a.split_at_mut(j * s);
                        let colk = &head[k * s..(k + 1) * s];
                        for i in j..s {
                            tail[i] -= colk[i] * ljk;
                        }
                    }
                }
            }
        }
        Ok(Some(BlockFactor { comp, local, start, dofs, lstart, l }))
    }

    /// Number of velocities.
    pub fn dofs(&self) -> usize {
        self.comp.len()
    }

    /// Number of connected components (blocks).
    pub fn components(&self) -> usize {
        self.start.len() - 1
    }

    /// Size of the largest component.
    pub fn max_component(&self) -> usize {
        self.start.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0)
    }

    /// The component of velocity `d`.
    pub fn component_of(&self, d: usize) -> usize {
        self.comp[d]
    }

    fn size(&self, c: usize) -> usize {
        self.start[c + 1] - self.start[c]
    }

    /// Solves `M_c x = b` in place for component `c` (`x` in local order).
    fn solve_local(&self, c: usize, x: &mut [f64]) {
        let s = x.len();
        let a = &self.l[self.lstart[c]..self.lstart[c + 1]];
        for k in 0..s {
            let xk = x[k] / a[k * s + k];
            x[k] = xk;
            if xk != 0.0 {
                for i in k + 1..s {
                    x[i] -= a[k * s + i] * xk;
                }
            }
        }
        for k in (0..s).rev() {
            let col = &a[k * s..(k + 1) * s];
            let mut v = x[k];
            for i in k + 1..s {
                v -= col[i] * x[i];
            }
            x[k] = v / col[k];
        }
    }

    /// Solves `M x = b` in place (`b` of length n); no allocation.
    pub fn solve(&self, b: &mut [f64]) {
        let mut buf = [0.0; MAX_BLOCK];
        for c in 0..self.components() {
            let dofs = &self.dofs[self.start[c]..self.start[c + 1]];
            if let [d] = *dofs {
                let a = self.l[self.lstart[c]];
                b[d] = b[d] / a / a;
                continue;
            }
            let x = &mut buf[..dofs.len()];
            x.iter_mut().zip(dofs).for_each(|(x, &d)| *x = b[d]);
            self.solve_local(c, x);
            x.iter().zip(dofs).for_each(|(x, &d)| b[d] = *x);
        }
    }

    /// `Y = M⁻¹ Jᵀ`, each column computed on the components its row touches; stored sparsely
    /// when that takes less memory than dense storage. Written into `y`, whose storage (and
    /// scratch) is reused.
    fn solve_rows_into(&self, rows: &[&Row], y: &mut Y) {
        let (n, m, nc) = (self.dofs(), rows.len(), self.components());
        let Scratch { stamp, seg, touched, x } = &mut y.scratch;
        stamp.clear();
        stamp.resize(nc, usize::MAX);
        seg.clear();
        seg.resize(nc, 0);
        let mut nnz = 0usize;
        for (j, r) in rows.iter().enumerate() {
            for &(d, _) in &r.0 {
                let c = self.comp[d];
                if stamp[c] != j {
                    stamp[c] = j;
                    nnz += self.size(c);
                }
            }
        }
        // Sparse entries take two words (index, value), dense ones one.
        let sparse = 2 * nnz < n * m;
        stamp.iter_mut().for_each(|s| *s = usize::MAX);
        let (mut ptr, mut idx, mut val, mut dense) =
            match std::mem::replace(&mut y.store, Store::Dense(Vec::new())) {
                Store::Sparse { ptr, idx, val } => (ptr, idx, val, Vec::new()),
                Store::Dense(d) => (Vec::new(), Vec::new(), Vec::new(), d),
            };
        ptr.clear();
        idx.clear();
        val.clear();
        dense.clear();
        if sparse {
            ptr.reserve(m + 1);
            ptr.push(0);
            idx.reserve(nnz);
            val.reserve(nnz);
        } else {
            dense.resize(n * m, 0.0);
        }
        for (j, r) in rows.iter().enumerate() {
            touched.clear();
            x.clear();
            for &(d, v) in &r.0 {
                let c = self.comp[d];
                if stamp[c] != j {
                    stamp[c] = j;
                    seg[c] = x.len();
                    touched.push(c);
                    x.resize(x.len() + self.size(c), 0.0);
                }
                x[seg[c] + self.local[d]] += v;
            }
            for &c in touched.iter() {
                let s = self.size(c);
                let xc = &mut x[seg[c]..seg[c] + s];
                self.solve_local(c, xc);
                let dofs = &self.dofs[self.start[c]..self.start[c + 1]];
                if sparse {
                    for (&d, &v) in dofs.iter().zip(xc.iter()) {
                        if v != 0.0 {
                            idx.push(d);
                            val.push(v);
                        }
                    }
                } else {
                    let col = &mut dense[j * n..(j + 1) * n];
                    dofs.iter().zip(xc.iter()).for_each(|(&d, &v)| col[d] = v);
                }
            }
            if sparse {
                ptr.push(idx.len());
            }
        }
        y.store = if sparse { Store::Sparse { ptr, idx, val } } else { Store::Dense(dense) };
        (y.n, y.m) = (n, m);
    }
}

/// The scratch of [`BlockFactor::solve_rows_into`], kept with its result.
#[derive(Clone, Debug, Default)]
struct Scratch {
    stamp: Vec<usize>,
    seg: Vec<usize>,
    touched: Vec<usize>,
    x: Vec<f64>,
}

/// `Y = M⁻¹ Jᵀ` (`n × m`, one column per constraint row), dense column-major or by sparse
/// columns (see the module docs).
#[derive(Clone, Debug)]
pub struct Y {
    n: usize,
    m: usize,
    store: Store,
    scratch: Scratch,
}

#[derive(Clone, Debug)]
enum Store {
    /// Column-major `n × m`.
    Dense(Vec<f64>),
    /// Column `j` is `(idx[k], val[k])` for `k` in `ptr[j]..ptr[j + 1]` (indices distinct).
    Sparse { ptr: Vec<usize>, idx: Vec<usize>, val: Vec<f64> },
}

/// One column of a [`Y`].
#[derive(Clone, Copy, Debug)]
pub enum Column<'a> {
    /// All `n` values.
    Dense(&'a [f64]),
    /// `(index, value)` pairs as two slices, indices distinct (not necessarily sorted).
    Sparse(&'a [usize], &'a [f64]),
}

impl Column<'_> {
    /// Calls `f(index, value)` for every stored nonzero.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(usize, f64)) {
        match *self {
            Column::Dense(c) => c.iter().enumerate().filter(|x| *x.1 != 0.0).for_each(|(i, &v)| f(i, v)),
            Column::Sparse(i, v) => i.iter().zip(v).for_each(|(&i, &v)| f(i, v)),
        }
    }

    /// `xᵀ y` for a dense `x`.
    pub fn dot(&self, x: &[f64]) -> f64 {
        match *self {
            Column::Dense(c) => c.iter().zip(x).map(|(a, b)| a * b).sum(),
            Column::Sparse(i, v) => i.iter().zip(v).map(|(&i, &v)| v * x[i]).sum(),
        }
    }

    /// `wᵀ y` for a constraint row `w` (`O(|w|·|y|)` for a sparse column).
    pub fn dot_row(&self, r: &Row) -> f64 {
        match *self {
            Column::Dense(c) => r.dot(c),
            Column::Sparse(idx, val) => {
                let mut s = 0.0;
                for &(d, w) in &r.0 {
                    if let Some(k) = idx.iter().position(|&i| i == d) {
                        s += w * val[k];
                    }
                }
                s
            }
        }
    }

    /// `out += a y`.
    pub fn axpy(&self, a: f64, out: &mut [f64]) {
        match *self {
            Column::Dense(c) => out.iter_mut().zip(c).for_each(|(o, v)| *o += a * v),
            Column::Sparse(i, v) => i.iter().zip(v).for_each(|(&i, &v)| out[i] += a * v),
        }
    }
}

impl Y {
    /// The `0 × 0` Y.
    pub fn empty() -> Y {
        Y { n: 0, m: 0, store: Store::Dense(Vec::new()), scratch: Scratch::default() }
    }

    /// A dense `n × m` Y from column-major values; `Err` on a length mismatch.
    pub fn from_dense(n: usize, m: usize, data: Vec<f64>) -> Result<Y, Error> {
        if data.len() != n * m {
            return Err(Error::dim("Y (n × m column-major values)", n * m, data.len()));
        }
        Ok(Y { n, m, store: Store::Dense(data), scratch: Scratch::default() })
    }

    /// Number of rows (velocities).
    pub fn nrows(&self) -> usize {
        self.n
    }

    /// Number of columns (constraint rows).
    pub fn ncols(&self) -> usize {
        self.m
    }

    /// Whether the columns are stored sparsely.
    pub fn is_sparse(&self) -> bool {
        matches!(self.store, Store::Sparse { .. })
    }

    /// Number of stored values (`n·m` when dense).
    pub fn nnz(&self) -> usize {
        match &self.store {
            Store::Dense(d) => d.len(),
            Store::Sparse { val, .. } => val.len(),
        }
    }

    /// Column `j`.
    #[inline]
    pub fn column(&self, j: usize) -> Column<'_> {
        match &self.store {
            Store::Dense(d) => Column::Dense(&d[j * self.n..(j + 1) * self.n]),
            Store::Sparse { ptr, idx, val } => {
                let (a, b) = (ptr[j], ptr[j + 1]);
                Column::Sparse(&idx[a..b], &val[a..b])
            }
        }
    }

    /// `out += a Y[:, j]`.
    pub fn axpy_column(&self, j: usize, a: f64, out: &mut [f64]) {
        self.column(j).axpy(a, out);
    }

    /// `xᵀ Y[:, j]` for a dense `x` of length n.
    pub fn dot_column(&self, j: usize, x: &[f64]) -> f64 {
        self.column(j).dot(x)
    }

    /// `wᵀ Y[:, j]` for a constraint row `w`.
    pub fn row_dot_column(&self, r: &Row, j: usize) -> f64 {
        self.column(j).dot_row(r)
    }

    /// `Y ← Y − Z A` for `Z` (`n × p`) and `A` (`p × m`), keeping Y's storage (a sparse column
    /// gains the nonzeros of the columns of Z it is combined with).
    pub fn sub_mul(&mut self, z: &Y, a: MatRef<'_, f64>) {
        assert!(z.n == self.n && a.nrows() == z.m && a.ncols() == self.m, "sub_mul: sizes");
        let (n, m, p) = (self.n, self.m, z.m);
        match &mut self.store {
            Store::Dense(d) => {
                for (j, col) in d.chunks_exact_mut(n.max(1)).take(m).enumerate() {
                    for k in 0..p {
                        if a[(k, j)] != 0.0 {
                            z.axpy_column(k, -a[(k, j)], col);
                        }
                    }
                }
            }
            Store::Sparse { ptr, idx, val } => {
                let (mut acc, mut mark) = (vec![0.0; n], vec![false; n]);
                let mut touched = Vec::new();
                let (mut p2, mut i2, mut v2) = (Vec::with_capacity(m + 1), Vec::new(), Vec::new());
                p2.push(0);
                for j in 0..m {
                    let mut add = |d: usize, v: f64| {
                        if !mark[d] {
                            mark[d] = true;
                            touched.push(d);
                        }
                        acc[d] += v;
                    };
                    for k in ptr[j]..ptr[j + 1] {
                        add(idx[k], val[k]);
                    }
                    for k in 0..p {
                        let c = a[(k, j)];
                        if c != 0.0 {
                            z.column(k).for_each(|d, v| add(d, -c * v));
                        }
                    }
                    for &d in &touched {
                        i2.push(d);
                        v2.push(acc[d]);
                        acc[d] = 0.0;
                        mark[d] = false;
                    }
                    touched.clear();
                    p2.push(i2.len());
                }
                *ptr = p2;
                *idx = i2;
                *val = v2;
            }
        }
    }

    /// A dense column-major copy.
    pub fn to_dense(&self) -> Vec<f64> {
        match &self.store {
            Store::Dense(d) => d.clone(),
            Store::Sparse { .. } => {
                let mut d = vec![0.0; self.n * self.m];
                for j in 0..self.m {
                    self.axpy_column(j, 1.0, &mut d[j * self.n..(j + 1) * self.n]);
                }
                d
            }
        }
    }
}

/// `Y = M⁻¹ Jᵀ` for constraint rows `J` (one column per row): sparse columns when M has the
/// block factor and that storage is smaller, dense `n × m` otherwise.
pub fn solve_rows(factor: &MassFactor, n: usize, rows: &[&Row]) -> Y {
    let mut y = Y::empty();
    solve_rows_into(factor, n, rows, &mut y);
    y
}

/// [`solve_rows`] written into `y`, reusing its storage when the result is dense (a small
/// system stepped millions of times).
pub fn solve_rows_into(factor: &MassFactor, n: usize, rows: &[&Row], y: &mut Y) {
    if let MassFactor::Blocks(b) = factor {
        // One block (a small dense M): every column is full, and the plain dense solve below
        // reuses the storage.
        if b.components() > 1 {
            b.solve_rows_into(rows, y);
            return;
        }
    }
    let m = rows.len();
    let mut data = match std::mem::replace(&mut y.store, Store::Dense(Vec::new())) {
        Store::Dense(d) => d,
        Store::Sparse { .. } => Vec::new(),
    };
    data.clear();
    data.resize(n * m, 0.0);
    for (c, r) in rows.iter().enumerate() {
        for &(i, v) in &r.0 {
            data[c * n + i] += v;
        }
    }
    factor.solve(&mut data, n, m);
    (y.n, y.m, y.store) = (n, m, Store::Dense(data));
}

/// Calls `f(i, j, J_i · Y_j)` for every pair whose row `J_i` and column `Y_j` share a nonzero,
/// column by column (`j` ascending, `i` ascending within a column). The work is the number of
/// (nonzero of Y, row entry) pairs on the same velocity.
pub fn for_each_product(rows: &[&Row], y: &Y, f: impl FnMut(usize, usize, f64)) {
    products(rows, y, false, f);
}

/// [`for_each_product`], restricted to `i ≤ j` when `upper`.
fn products(rows: &[&Row], y: &Y, upper: bool, mut f: impl FnMut(usize, usize, f64)) {
    let (n, m) = (y.nrows(), rows.len());
    // The row entries by velocity (compressed).
    let mut ptr = vec![0usize; n + 1];
    for r in rows {
        for &(d, _) in &r.0 {
            ptr[d + 1] += 1;
        }
    }
    for d in 0..n {
        ptr[d + 1] += ptr[d];
    }
    // Each velocity's entries in ascending row order.
    let mut next = ptr[..n].to_vec();
    let mut ent = vec![(0usize, 0.0f64); ptr[n]];
    for (i, r) in rows.iter().enumerate() {
        for &(d, v) in &r.0 {
            ent[next[d]] = (i, v);
            next[d] += 1;
        }
    }
    let (mut acc, mut mark) = (vec![0.0; m], vec![false; m]);
    let mut touched: Vec<usize> = Vec::new();
    for j in 0..y.ncols() {
        y.column(j).for_each(|d, yv| {
            for &(i, v) in &ent[ptr[d]..ptr[d + 1]] {
                if upper && i > j {
                    break;
                }
                if !mark[i] {
                    mark[i] = true;
                    touched.push(i);
                }
                acc[i] += v * yv;
            }
        });
        touched.sort_unstable();
        for &i in &touched {
            f(i, j, acc[i]);
            acc[i] = 0.0;
            mark[i] = false;
        }
        touched.clear();
    }
}

/// `W = J Y` (`m × m`) from rows `J` and `Y = M⁻¹ Jᵀ`, symmetrized; dense when `m` is small or
/// W fills up, sparse (CSR) otherwise.
pub fn delassus(rows: &[&Row], y: &Y) -> Result<Matrix, Error> {
    let mut w = Matrix::Dense(Mat::zeros(0, 0));
    delassus_into(rows, y, &mut w)?;
    Ok(w)
}

/// [`delassus`] written into `w`, reusing the storage of a dense `w`.
pub fn delassus_into(rows: &[&Row], y: &Y, w: &mut Matrix) -> Result<(), Error> {
    let m = rows.len();
    if m != y.ncols() {
        return Err(Error::dim("columns of Y = M⁻¹Jᵀ (one per row)", m, y.ncols()));
    }
    if m <= 64 {
        // A dense `w` keeps its storage: its capacity covers every size seen so far.
        let mut d = match std::mem::replace(w, Matrix::Dense(Mat::new())) {
            Matrix::Dense(d) => d,
            Matrix::Sparse(_) => Mat::new(),
        };
        d.resize_with(m, m, |_, _| 0.0);
        dense_delassus(rows, y, &mut d);
        *w = Matrix::Dense(d);
        return Ok(());
    }
    *w = large_delassus(rows, y)?;
    Ok(())
}

/// Every entry of the small dense `w` (`m × m`) from `J` and `Y`, symmetrized.
fn dense_delassus(rows: &[&Row], y: &Y, w: &mut Mat<f64>) {
    let m = rows.len();
    for j in 0..m {
        let col = y.column(j);
        for (i, r) in rows.iter().enumerate() {
            w[(i, j)] = col.dot_row(r);
        }
    }
    for j in 0..m {
        for i in 0..j {
            let s = 0.5 * (w[(i, j)] + w[(j, i)]);
            w[(i, j)] = s;
            w[(j, i)] = s;
        }
    }
}

/// W of more than 64 rows, from the nonzeros of Y.
fn large_delassus(rows: &[&Row], y: &Y) -> Result<Matrix, Error> {
    let m = rows.len();
    // Large: W_ij = J_i · Y_j over the nonzeros of Y_j only; the upper triangle (i ≤ j) is kept
    // and mirrored.
    let mut upper: Vec<(usize, usize, f64)> = Vec::new();
    products(rows, y, true, |i, j, v| upper.push((i, j, v)));
    let mut indptr = vec![0usize; m + 1];
    for &(i, j, _) in &upper {
        indptr[i + 1] += 1;
        if i != j {
            indptr[j + 1] += 1;
        }
    }
    for i in 0..m {
        indptr[i + 1] += indptr[i];
    }
    let nnz = indptr[m];
    if nnz as f64 > 0.3 * (m * m) as f64 {
        let mut w = Mat::<f64>::zeros(m, m);
        for &(i, j, v) in &upper {
            w[(i, j)] = v;
            w[(j, i)] = v;
        }
        return Ok(Matrix::Dense(w));
    }
    // Filling rows in the order of `upper` (columns ascending, rows ascending within each)
    // leaves every row's columns ascending: row r gets its entries left of the diagonal while
    // column r is visited (mirrored, ascending), then the diagonal, then one per later column.
    let mut next = indptr[..m].to_vec();
    let (mut indices, mut data) = (vec![0usize; nnz], vec![0.0; nnz]);
    for &(i, j, v) in &upper {
        indices[next[i]] = j;
        data[next[i]] = v;
        next[i] += 1;
        if i != j {
            indices[next[j]] = i;
            data[next[j]] = v;
            next[j] += 1;
        }
    }
    CsMat::try_new((m, m), indptr, indices, data).map(Matrix::Sparse).map_err(|e| Error::Numerical {
        solver: "perp-dynamics (Delassus assembly)".into(),
        message: format!("invalid sparse structure of W: {:?}", e.3),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assembly::LocalProblem;
    use crate::system::{Bilateral, Contact};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn delassus_matches_dense_algebra_dense_and_sparse() {
        let m = Matrix::from_row_major(3, 3, &[4.0, 1.0, 0.0, 1.0, 3.0, 0.5, 0.0, 0.5, 2.0]).unwrap();
        let rows = [Row::dense(&[1.0, 0.0, 2.0]), Row::dense(&[0.0, -1.0, 1.0])];
        let refs: Vec<&Row> = rows.iter().collect();
        use faer::linalg::solvers::DenseSolveCore;
        let md = m.to_dense();
        let inv = md.partial_piv_lu().inverse();
        for mat in [m.clone(), Matrix::Sparse(m.to_csr())] {
            let f = MassFactor::new(&mat).unwrap();
            let y = solve_rows(&f, 3, &refs);
            let w = delassus(&refs, &y).unwrap();
            for i in 0..2 {
                for j in 0..2 {
                    let mut e = 0.0;
                    for a in 0..3 {
                        for b in 0..3 {
                            e += rows[i].dot(&unit(3, a)) * inv[(a, b)] * rows[j].dot(&unit(3, b));
                        }
                    }
                    assert!((w.get(i, j) - e).abs() < 1e-12, "W[{i},{j}] = {} vs {e}", w.get(i, j));
                }
            }
        }
    }

    fn unit(n: usize, k: usize) -> Vec<f64> {
        let mut v = vec![0.0; n];
        v[k] = 1.0;
        v
    }

    #[test]
    fn non_spd_mass_is_an_error_naming_m() {
        let m = Matrix::from_row_major(2, 2, &[1.0, 2.0, 2.0, 1.0]).unwrap();
        let e = MassFactor::new(&m).unwrap_err().to_string();
        assert!(e.contains("mass matrix M"), "{e}");
        let m = Matrix::from_row_major(2, 2, &[1.0, 2.0, 0.0, 1.0]).unwrap();
        assert!(MassFactor::new(&m).unwrap_err().to_string().contains("M[0,1]"));
        let sparse = Matrix::from_triplets(2, 2, &[(0, 0, 1.0), (1, 1, -1.0)]).unwrap();
        assert!(MassFactor::new(&sparse).is_err());
    }

    /// A random SPD block `A Aᵀ + I` of size `s`, row-major.
    fn spd_block(s: usize, rng: &mut ChaCha8Rng) -> Vec<f64> {
        let a: Vec<f64> = (0..s * s).map(|_| rng.random_range(-1.0..1.0)).collect();
        let mut b = vec![0.0; s * s];
        for i in 0..s {
            for j in 0..s {
                b[i * s + j] = (0..s).map(|k| a[i * s + k] * a[j * s + k]).sum::<f64>() + f64::from(i == j);
            }
        }
        b
    }

    /// A sparse block-diagonal M over a random permutation of the velocities (so components
    /// interleave), blocks of sizes 1–6; `couple` adds an entry between blocks 0 and 1 (one
    /// larger component, still SPD by diagonal dominance). Returns M and each block's velocities.
    fn block_mass(seed: u64, blocks: usize, couple: bool) -> (Matrix, Vec<Vec<usize>>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let sizes: Vec<usize> = (0..blocks).map(|_| rng.random_range(1..=6)).collect();
        let n: usize = sizes.iter().sum();
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            perm.swap(i, rng.random_range(0..=i));
        }
        let mut t = Vec::new();
        let mut groups = Vec::new();
        let mut off = 0;
        for &s in &sizes {
            let b = spd_block(s, &mut rng);
            let g: Vec<usize> = perm[off..off + s].to_vec();
            for i in 0..s {
                for j in 0..s {
                    // A bigger diagonal keeps M SPD once blocks 0 and 1 are coupled.
                    t.push((g[i], g[j], b[i * s + j] + if i == j { 2.0 } else { 0.0 }));
                }
            }
            groups.push(g);
            off += s;
        }
        if couple {
            let (a, b) = (groups[0][0], groups[1][0]);
            t.push((a, b, 0.7));
            t.push((b, a, 0.7));
        }
        (Matrix::from_triplets(n, n, &t).unwrap(), groups)
    }

    /// Random rows, each over the velocities of one or two blocks (sometimes three).
    fn block_rows(seed: u64, groups: &[Vec<usize>], m: usize) -> Vec<Row> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..m)
            .map(|_| {
                let k = [1, 2, 2, 3][rng.random_range(0..4)].min(groups.len());
                let mut entries = Vec::new();
                for _ in 0..k {
                    let g = &groups[rng.random_range(0..groups.len())];
                    for &d in g {
                        if rng.random_bool(0.8) && !entries.iter().any(|&(e, _)| e == d) {
                            entries.push((d, rng.random_range(-1.0..1.0)));
                        }
                    }
                }
                Row(entries)
            })
            .collect()
    }

    fn max_diff(a: &[f64], b: &[f64]) -> f64 {
        assert_eq!(a.len(), b.len());
        a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
    }

    fn w_diff(a: &Matrix, b: &Matrix) -> f64 {
        let (a, b) = (a.to_dense(), b.to_dense());
        let mut d = 0.0f64;
        for j in 0..a.ncols() {
            for i in 0..a.nrows() {
                d = d.max((a[(i, j)] - b[(i, j)]).abs());
            }
        }
        d
    }

    #[test]
    fn block_factor_gives_the_dense_y_and_w() {
        for (seed, couple, m) in [(1, false, 30), (2, true, 30), (3, false, 150), (4, true, 150)] {
            let (mass, groups) = block_mass(seed, 12, couple);
            let n = mass.nrows();
            let f = MassFactor::new(&mass).unwrap();
            let MassFactor::Blocks(b) = &f else { panic!("block-diagonal M gets the block factor") };
            assert_eq!(b.dofs(), n);
            assert_eq!(b.components(), if couple { 11 } else { 12 });
            let (c0, c1) = (b.component_of(groups[0][0]), b.component_of(groups[1][0]));
            assert_eq!(c0 == c1, couple);
            assert!(b.max_component() <= if couple { 12 } else { 6 });
            // faer's dense Cholesky (MassFactor::new gives a dense M this small the block factor).
            let dense = MassFactor::Dense(
                faer::linalg::solvers::Llt::new(mass.to_dense().as_ref(), Side::Lower).unwrap(),
            );
            let general = sparse_llt(&mass).unwrap();
            let rows = block_rows(seed + 100, &groups, m);
            let refs: Vec<&Row> = rows.iter().collect();
            let y = solve_rows(&f, n, &refs);
            assert!(y.is_sparse(), "rows over ≤ 3 of 12 blocks give a sparse Y");
            assert!(y.nnz() < n * m / 2);
            let yd = solve_rows(&dense, n, &refs);
            assert!(!yd.is_sparse());
            let yg = solve_rows(&general, n, &refs);
            assert!(max_diff(&y.to_dense(), &yd.to_dense()) < 1e-12);
            assert!(max_diff(&yg.to_dense(), &yd.to_dense()) < 1e-12);
            let w = delassus(&refs, &y).unwrap();
            let wd = delassus(&refs, &yd).unwrap();
            assert_eq!(w.is_sparse(), m > 64 && wd.is_sparse());
            assert!(w_diff(&w, &wd) < 1e-12, "W differs by {}", w_diff(&w, &wd));
            // W is symmetric and its diagonal positive.
            assert!(w_diff(&w, &Matrix::Dense(w.to_dense().transpose().to_owned())) == 0.0);
            assert!((0..m).all(|i| rows[i].0.is_empty() || w.get(i, i) > 0.0));
            // Column operations agree.
            let x: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
            for j in [0, m / 2, m - 1] {
                assert!((y.dot_column(j, &x) - yd.dot_column(j, &x)).abs() < 1e-12);
                assert!((y.row_dot_column(&rows[0], j) - yd.row_dot_column(&rows[0], j)).abs() < 1e-12);
                let (mut u, mut ud) = (x.clone(), x.clone());
                y.axpy_column(j, 0.5, &mut u);
                yd.axpy_column(j, 0.5, &mut ud);
                assert!(max_diff(&u, &ud) < 1e-12);
            }
            // M x = b by blocks.
            let (mut s1, mut s2) = (x.clone(), x.clone());
            f.solve(&mut s1, n, 1);
            dense.solve(&mut s2, n, 1);
            assert!(max_diff(&s1, &s2) < 1e-12);
        }
    }

    #[test]
    fn rows_touching_one_or_two_components_give_columns_on_those_components() {
        let (mass, groups) = block_mass(7, 10, false);
        let n = mass.nrows();
        let f = MassFactor::new(&mass).unwrap();
        let MassFactor::Blocks(b) = &f else { panic!("block factor") };
        let one = Row(groups[3].iter().map(|&d| (d, 1.0)).collect());
        let two = Row(vec![(groups[2][0], 1.0), (groups[5][0], -2.0)]);
        let y = solve_rows(&f, n, &[&one, &two, &one, &two, &one, &two]);
        assert!(y.is_sparse());
        let comps = |j: usize| {
            let mut c = Vec::new();
            y.column(j).for_each(|d, _| c.push(b.component_of(d)));
            c.sort_unstable();
            c.dedup();
            c
        };
        assert_eq!(comps(0), vec![b.component_of(groups[3][0])]);
        let mut expect = vec![b.component_of(groups[2][0]), b.component_of(groups[5][0])];
        expect.sort_unstable();
        assert_eq!(comps(1), expect);
        // The column of a row over one block is that block's M⁻¹ applied to the row.
        let mut e = vec![0.0; n];
        one.axpy(1.0, &mut e);
        MassFactor::new(&Matrix::Dense(mass.to_dense())).unwrap().solve(&mut e, n, 1);
        assert!(max_diff(&y.to_dense()[..n], &e) < 1e-12);
    }

    #[test]
    fn small_or_dense_problems_keep_dense_y() {
        // One 6×6 block: every column fills the block, dense storage is smaller.
        let (mass, groups) = block_mass(5, 1, false);
        let n = mass.nrows();
        let f = MassFactor::new(&mass).unwrap();
        assert!(matches!(f, MassFactor::Blocks(_)));
        let rows = block_rows(9, &groups, 4);
        let refs: Vec<&Row> = rows.iter().collect();
        let y = solve_rows(&f, n, &refs);
        assert!(!y.is_sparse());
        let yd = solve_rows(&MassFactor::new(&Matrix::Dense(mass.to_dense())).unwrap(), n, &refs);
        assert!(max_diff(&y.to_dense(), &yd.to_dense()) < 1e-12);
        // A connected sparse M larger than MAX_BLOCK keeps faer's sparse Cholesky.
        let k = MAX_BLOCK + 6;
        let mut t = Vec::new();
        for i in 0..k {
            t.push((i, i, 3.0));
            if i + 1 < k {
                t.push((i, i + 1, -1.0));
                t.push((i + 1, i, -1.0));
            }
        }
        let tri = Matrix::from_triplets(k, k, &t).unwrap();
        let f = MassFactor::new(&tri).unwrap();
        assert!(matches!(f, MassFactor::Sparse(_)));
        let rows = [Row(vec![(0, 1.0), (k - 1, 1.0)])];
        let y = solve_rows(&f, k, &[&rows[0]]);
        assert!(!y.is_sparse());
        let yd = solve_rows(&MassFactor::new(&Matrix::Dense(tri.to_dense())).unwrap(), k, &[&rows[0]]);
        assert!(max_diff(&y.to_dense(), &yd.to_dense()) < 1e-12);
    }

    #[test]
    fn a_non_spd_block_is_an_error_naming_m() {
        let (mass, groups) = block_mass(11, 6, false);
        let n = mass.nrows();
        // Flip the sign of one velocity's diagonal in block 2.
        let d = groups[2][0];
        let mut t: Vec<(usize, usize, f64)> = Vec::new();
        for (v, (i, j)) in mass.to_csr().iter() {
            t.push((i, j, if i == d && j == d { -*v } else { *v }));
        }
        let bad = Matrix::from_triplets(n, n, &t).unwrap();
        let e = MassFactor::new(&bad).unwrap_err().to_string();
        assert!(e.contains("mass matrix M"), "{e}");
        assert!(e.contains("M["), "{e}");
        // A velocity with no entry at all (zero row and column) is not SPD either.
        let t: Vec<(usize, usize, f64)> = vec![(0, 0, 1.0), (2, 2, 1.0)];
        let e = MassFactor::new(&Matrix::from_triplets(3, 3, &t).unwrap()).unwrap_err().to_string();
        assert!(e.contains("mass matrix M") && e.contains("M[1,1]"), "{e}");
    }

    #[test]
    fn sub_mul_keeps_sparse_and_dense_y_equal() {
        let (mass, groups) = block_mass(13, 10, true);
        let n = mass.nrows();
        let f = MassFactor::new(&mass).unwrap();
        let dense = MassFactor::new(&Matrix::Dense(mass.to_dense())).unwrap();
        let rows = block_rows(14, &groups, 20);
        let brows = block_rows(15, &groups, 3);
        let (r, br): (Vec<&Row>, Vec<&Row>) = (rows.iter().collect(), brows.iter().collect());
        let (mut y, mut yd) = (solve_rows(&f, n, &r), solve_rows(&dense, n, &r));
        let (z, zd) = (solve_rows(&f, n, &br), solve_rows(&dense, n, &br));
        assert!(y.is_sparse() && z.is_sparse());
        let mut rng = ChaCha8Rng::seed_from_u64(16);
        let mut entry = |_, _| if rng.random_bool(0.5) { rng.random_range(-1.0..1.0) } else { 0.0 };
        let a = Mat::<f64>::from_fn(3, 20, &mut entry);
        y.sub_mul(&z, a.as_ref());
        yd.sub_mul(&zd, a.as_ref());
        assert!(y.is_sparse());
        assert!(max_diff(&y.to_dense(), &yd.to_dense()) < 1e-12);
    }

    /// Bilateral condensation through `LocalProblem` agrees between the block factor (sparse Y)
    /// and the dense factor, and the condensed velocity satisfies the bilaterals.
    #[test]
    fn bilateral_condensation_agrees_with_sparse_y() {
        let (mass, groups) = block_mass(17, 12, false);
        let n = mass.nrows();
        let rows = block_rows(18, &groups, 90);
        let contacts: Vec<Contact> = rows
            .chunks_exact(3)
            .map(|c| Contact::new(0.0, c[0].clone(), vec![c[1].clone(), c[2].clone()], 0.5))
            .collect();
        let bil: Vec<Bilateral> = block_rows(19, &groups, 4)
            .into_iter()
            .enumerate()
            .map(|(i, row)| Bilateral { row, bias: 0.1 * i as f64 })
            .collect();
        let mut rng = ChaCha8Rng::seed_from_u64(20);
        let u_a: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let h: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let active: Vec<usize> = (0..contacts.len()).collect();
        let f = MassFactor::new(&mass).unwrap();
        let dense = MassFactor::new(&Matrix::Dense(mass.to_dense())).unwrap();
        let lp = LocalProblem::new(&f, &u_a, &h, 0.01, active.clone(), contacts.clone(), &bil).unwrap();
        let lpd = LocalProblem::new(&dense, &u_a, &h, 0.01, active, contacts, &bil).unwrap();
        assert!(w_diff(&lp.w, &lpd.w) < 1e-11, "{}", w_diff(&lp.w, &lpd.w));
        assert!(max_diff(&lp.b, &lpd.b) < 1e-11);
        assert!(max_diff(&lp.u_free, &lpd.u_free) < 1e-11);
        let r: Vec<f64> = (0..lp.size()).map(|_| rng.random_range(-1.0..1.0)).collect();
        let (u, ud) = (lp.velocity(&r), lpd.velocity(&r));
        assert!(max_diff(&u, &ud) < 1e-11);
        for b in &bil {
            assert!((b.row.dot(&u) + b.bias).abs() < 1e-10, "bilateral violated: {}", b.row.dot(&u) + b.bias);
        }
    }
}
