//! The factorization of the mass matrix and the Delassus operator `W = J M⁻¹ Jᵀ`: one module
//! for the global frictional problem's reduction (`perp_cones::GlobalFrictionContactProblem`,
//! `J = Hᵀ`) and the dynamics' assembly of contact problems (`J` the contact rows).
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

use super::FrozenLu;
use crate::{Error, Matrix};
use faer::linalg::solvers::{Solve, SolveCore};
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, Mat, MatMut, MatRef, Side};
use sprs::CsMat;

/// A constraint row over the velocity coordinates, stored sparsely as `(index, value)` pairs
/// (a contact between two bodies of a large scene touches 12 of thousands of velocities).
#[derive(Debug, Default, PartialEq)]
pub struct Row(pub Vec<(usize, f64)>);

/// `clone_from` reuses the allocation: the stepper copies the active contacts every step.
impl Clone for Row {
    fn clone(&self) -> Row {
        Row(self.0.clone())
    }

    fn clone_from(&mut self, source: &Row) {
        self.0.clone_from(&source.0);
    }
}

impl Row {
    /// The row of a dense vector (exact zeros are dropped).
    pub fn dense(v: &[f64]) -> Row {
        Row(v.iter().enumerate().filter(|(_, x)| **x != 0.0).map(|(i, x)| (i, *x)).collect())
    }

    /// Makes this the row of a dense vector in place (as [`Row::dense`], reusing the storage).
    pub fn set_dense(&mut self, v: &[f64]) {
        self.0.clear();
        self.0.extend(v.iter().enumerate().filter(|(_, x)| **x != 0.0).map(|(i, x)| (i, *x)));
    }

    /// `wᵀ u`.
    pub fn dot(&self, u: &[f64]) -> f64 {
        self.0.iter().map(|&(i, v)| v * u[i]).sum()
    }

    /// `y += a w`.
    pub fn axpy(&self, a: f64, y: &mut [f64]) {
        for &(i, v) in &self.0 {
            y[i] += a * v;
        }
    }

    /// `Err` unless every index is below `dofs` and every value is finite.
    pub fn check(&self, dofs: usize, what: &str) -> Result<(), Error> {
        for &(i, v) in &self.0 {
            if i >= dofs {
                return Err(Error::setting(
                    what,
                    format!("an entry at index {i}"),
                    &format!("rows have length {dofs} (the number of velocities)"),
                ));
            }
            if !v.is_finite() {
                return Err(Error::NonFinite { what: what.into(), index: i, value: v });
            }
        }
        Ok(())
    }
}

/// Largest connected component of a sparse M's sparsity graph that [`MassFactor::new`] factors
/// as a dense block; a sparse M with a larger component gets faer's sparse Cholesky.
pub const MAX_BLOCK: usize = 64;

/// A factorization of M: Cholesky ([`MassFactor::new`]), or LU for the M of a global problem
/// that is not symmetric positive definite ([`MassFactor::new_or_lu`]).
#[derive(Clone, Debug)]
pub enum MassFactor {
    /// Dense M with more than [`MAX_BLOCK`] velocities.
    Dense(faer::linalg::solvers::Llt<f64>),
    /// Sparse M with a connected component larger than [`MAX_BLOCK`].
    Sparse(Box<Llt<usize, f64>>),
    /// M (sparse, or dense with at most [`MAX_BLOCK`] velocities) whose connected components
    /// are all small: one dense factor per component.
    Blocks(Box<BlockFactor>),
    /// M that is not symmetric, or not positive definite: faer's LU with a test solve
    /// ([`FrozenLu`]). Only [`MassFactor::new_or_lu`] makes it; the dynamics needs M positive
    /// definite and refuses anything else.
    Lu(std::sync::Arc<FrozenLu>),
}

fn not_spd(n: usize, why: impl std::fmt::Display) -> Error {
    Error::Requirement {
        solver: "mass matrix".into(),
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

    /// [`MassFactor::new`], or an LU when M is square and finite but not symmetric or not
    /// positive definite (the M of some global problem files); `Err` naming M when M is not
    /// square, not finite, or singular (the LU's error says why).
    pub fn new_or_lu(m: &Matrix) -> Result<MassFactor, Error> {
        let n = m.nrows();
        match MassFactor::new(m) {
            Ok(f) => Ok(f),
            Err(e @ (Error::NotSquare { .. } | Error::NonFinite { .. })) => Err(e),
            Err(why) => match FrozenLu::new(m) {
                Ok(lu) => Ok(MassFactor::Lu(std::sync::Arc::new(lu))),
                Err(b) => Err(Error::Requirement {
                    solver: "mass matrix".into(),
                    requirement: format!("an invertible mass matrix M ({n}×{n}): {why}; LU: {b}"),
                    suggestion: Some("check M; W = Hᵀ M⁻¹ H needs M invertible".into()),
                }),
            },
        }
    }

    /// Which factorization this is: `"dense Cholesky"`, `"sparse Cholesky"`, `"block
    /// Cholesky"` (one dense factor per connected component) or `"LU"`.
    pub fn name(&self) -> &'static str {
        match self {
            MassFactor::Dense(_) => "dense Cholesky",
            MassFactor::Sparse(_) => "sparse Cholesky",
            MassFactor::Blocks(_) => "block Cholesky",
            MassFactor::Lu(_) => "LU",
        }
    }

    /// Whether this is a Cholesky factor (M symmetric positive definite).
    pub fn is_cholesky(&self) -> bool {
        !matches!(self, MassFactor::Lu(_))
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
            MassFactor::Lu(f) => {
                // A made factor solves any right-hand side of its order; a non-finite answer
                // is left in place for the caller's check (as the Cholesky solves do).
                for col in b.chunks_exact_mut(n.max(1)).take(k) {
                    let _ = f.solve_in_place(col);
                }
            }
        }
    }
}

/// faer's sparse Cholesky of M whatever its components (what [`MassFactor::new`] chooses for
/// a component of more than [`MAX_BLOCK`] velocities; the reference the block factor is
/// tested against).
pub fn sparse_llt(m: &Matrix) -> Result<MassFactor, Error> {
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

    /// The first stored entry that is not finite, as `(row, column)`: a solve with a singular
    /// factor shows here.
    pub fn first_non_finite(&self) -> Option<(usize, usize)> {
        (0..self.m).find_map(|j| {
            let mut bad = None;
            self.column(j).for_each(|i, v| {
                if bad.is_none() && !v.is_finite() {
                    bad = Some((i, j));
                }
            });
            bad
        })
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
    delassus_with(rows, y, DelassusLayout::STEPPER, w)
}

/// How [`delassus_with`] builds and stores W.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DelassusLayout {
    /// W symmetric (M symmetric): the upper triangle is computed and mirrored, or, dense,
    /// every entry and the two halves averaged. Otherwise every entry, as computed.
    pub symmetric: bool,
    /// W of at most this many rows is dense whatever its fill (a small system stepped
    /// millions of times keeps its dense storage).
    pub dense_up_to: usize,
    /// A larger W is dense when more than this fraction of its entries is nonzero, sparse
    /// (CSR) otherwise.
    pub dense_fill: f64,
}

impl DelassusLayout {
    /// The dynamics' assembly: symmetric, dense up to 64 rows or above 30 % fill.
    pub const STEPPER: DelassusLayout = DelassusLayout { symmetric: true, dense_up_to: 64, dense_fill: 0.3 };
}

/// `W = J Y` laid out as `layout` says, written into `w` (a dense `w`'s storage reused).
pub fn delassus_with(rows: &[&Row], y: &Y, layout: DelassusLayout, w: &mut Matrix) -> Result<(), Error> {
    let m = rows.len();
    if m != y.ncols() {
        return Err(Error::dim("columns of Y = M⁻¹Jᵀ (one per row)", m, y.ncols()));
    }
    if m <= layout.dense_up_to {
        // A dense `w` keeps its storage: its capacity covers every size seen so far.
        let mut d = match std::mem::replace(w, Matrix::Dense(Mat::new())) {
            Matrix::Dense(d) => d,
            Matrix::Sparse(_) => Mat::new(),
        };
        d.resize_with(m, m, |_, _| 0.0);
        dense_delassus(rows, y, layout.symmetric, &mut d);
        *w = Matrix::Dense(d);
        return Ok(());
    }
    *w = large_delassus(rows, y, layout)?;
    Ok(())
}

/// Every entry of the small dense `w` (`m × m`) from `J` and `Y`, symmetrized when asked.
fn dense_delassus(rows: &[&Row], y: &Y, symmetric: bool, w: &mut Mat<f64>) {
    let m = rows.len();
    for j in 0..m {
        let col = y.column(j);
        for (i, r) in rows.iter().enumerate() {
            w[(i, j)] = col.dot_row(r);
        }
    }
    if !symmetric {
        return;
    }
    for j in 0..m {
        for i in 0..j {
            let s = 0.5 * (w[(i, j)] + w[(j, i)]);
            w[(i, j)] = s;
            w[(j, i)] = s;
        }
    }
}

/// W past the dense size, from the nonzeros of Y.
fn large_delassus(rows: &[&Row], y: &Y, layout: DelassusLayout) -> Result<Matrix, Error> {
    let m = rows.len();
    let sym = layout.symmetric;
    // Large: W_ij = J_i · Y_j over the nonzeros of Y_j only; when symmetric, the upper
    // triangle (i ≤ j) is kept and mirrored.
    let mut upper: Vec<(usize, usize, f64)> = Vec::new();
    products(rows, y, sym, |i, j, v| upper.push((i, j, v)));
    let mut indptr = vec![0usize; m + 1];
    for &(i, j, _) in &upper {
        indptr[i + 1] += 1;
        if sym && i != j {
            indptr[j + 1] += 1;
        }
    }
    for i in 0..m {
        indptr[i + 1] += indptr[i];
    }
    let nnz = indptr[m];
    if nnz as f64 > layout.dense_fill * (m * m) as f64 {
        let mut w = Mat::<f64>::zeros(m, m);
        for &(i, j, v) in &upper {
            w[(i, j)] = v;
            if sym {
                w[(j, i)] = v;
            }
        }
        return Ok(Matrix::Dense(w));
    }
    // Filling rows in the order of `upper` (columns ascending, rows ascending within each)
    // leaves every row's columns ascending: row r gets its entries left of the diagonal while
    // column r is visited (mirrored, ascending), then the diagonal, then one per later column
    // (unsymmetric: one per column, in column order).
    let mut next = indptr[..m].to_vec();
    let (mut indices, mut data) = (vec![0usize; nnz], vec![0.0; nnz]);
    for &(i, j, v) in &upper {
        indices[next[i]] = j;
        data[next[i]] = v;
        next[i] += 1;
        if sym && i != j {
            indices[next[j]] = i;
            data[next[j]] = v;
            next[j] += 1;
        }
    }
    CsMat::try_new((m, m), indptr, indices, data).map(Matrix::Sparse).map_err(|e| Error::Numerical {
        solver: "Delassus assembly".into(),
        message: format!("invalid sparse structure of W: {:?}", e.3),
    })
}
