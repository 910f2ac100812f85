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

mod delassus;
mod y;

pub use delassus::{
    delassus, delassus_diagonal, delassus_diagonal_of, delassus_into, delassus_with, for_each_product,
    DelassusLayout,
};
pub use y::{solve_rows, solve_rows_into, Column, Y};

use super::FrozenLu;
use crate::graph::{Components, UnionFind};
use crate::{Error, Matrix};
use faer::linalg::solvers::{Solve, SolveCore};
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Side};
use sprs::CsMat;
use y::{Scratch, Store};

/// Sparse rows read in place, entry by entry: [`Row`]s, or the columns of a matrix stored by
/// columns ([`Columns`]: the contact rows `Hᵀ` are H's columns), so that a consumer needs no
/// copy of either.
pub trait SparseRows {
    /// Number of rows.
    fn count(&self) -> usize;
    /// Number of entries of row `k`.
    fn len_of(&self, k: usize) -> usize;
    /// Entry `a` of row `k`: `(index, value)`.
    fn entry(&self, k: usize, a: usize) -> (usize, f64);
    /// Row `k`'s entries in order.
    fn entries(&self, k: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        (0..self.len_of(k)).map(move |a| self.entry(k, a))
    }
    /// Whether every row's indices are known to ascend strictly (no index twice in a row),
    /// so that a consumer need not check (default: not known).
    fn strictly_ascending(&self) -> bool {
        false
    }
}

/// Rows by value or by reference (`[Row]`, `[&Row]`).
impl<R: std::borrow::Borrow<Row>> SparseRows for [R] {
    fn count(&self) -> usize {
        self.len()
    }
    fn len_of(&self, k: usize) -> usize {
        self[k].borrow().0.len()
    }
    fn entry(&self, k: usize, a: usize) -> (usize, f64) {
        self[k].borrow().0[a]
    }
}

/// The columns of a compressed-column matrix as [`SparseRows`] (row k: column k's entries).
#[derive(Clone, Copy, Debug)]
pub struct Columns<'a> {
    ptr: &'a [usize],
    idx: &'a [usize],
    val: &'a [f64],
}

impl<'a> Columns<'a> {
    /// `m`'s columns, when `m` is stored by columns (with its pointers from 0).
    pub fn of(m: &'a CsMat<f64>) -> Option<Columns<'a>> {
        let ptr = m.indptr().into_raw_storage();
        (m.is_csc() && ptr.first() == Some(&0)).then(|| Columns { ptr, idx: m.indices(), val: m.data() })
    }
}

impl SparseRows for Columns<'_> {
    fn count(&self) -> usize {
        self.ptr.len() - 1
    }
    fn len_of(&self, k: usize) -> usize {
        self.ptr[k + 1] - self.ptr[k]
    }
    fn entry(&self, k: usize, a: usize) -> (usize, f64) {
        let e = self.ptr[k] + a;
        (self.idx[e], self.val[e])
    }
    /// sprs checks that a compressed matrix's indices ascend strictly in each column.
    fn strictly_ascending(&self) -> bool {
        true
    }
}

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

    /// `(wᵀ a, wᵀ b)` in one pass over the row: each the same sum as [`Row::dot`], bit for bit
    /// (a float sum starts from −0 and adds in order).
    ///
    /// ```
    /// use perp_core::linear::Row;
    /// let (a, b) = ([0.1, -0.0, 3.0, 1e-17], [-0.0, 0.0, -2.5, 7.0]);
    /// for r in [Row(vec![]), Row(vec![(1, 2.0), (0, -0.0)]), Row(vec![(2, 0.3), (0, 1.0), (3, -1.0), (1, 5.0)])] {
    ///     let (x, y) = r.dot2(&a, &b);
    ///     assert_eq!((x.to_bits(), y.to_bits()), (r.dot(&a).to_bits(), r.dot(&b).to_bits()));
    /// }
    /// ```
    pub fn dot2(&self, a: &[f64], b: &[f64]) -> (f64, f64) {
        self.0.iter().fold((-0.0, -0.0), |(x, y), &(i, v)| (x + v * a[i], y + v * b[i]))
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

/// A [`MassFactor`] kept with the M it factors, for a solver handed the same M problem after
/// problem (a time stepper's constant mass matrix): [`KeptMassFactor::get`] factors only when
/// M's bits change ([`Matrix::same_bits`]), and otherwise hands out the kept factor — the
/// same factor, so the same answers, as a fresh one.
#[derive(Clone, Debug, Default)]
pub struct KeptMassFactor {
    /// M, whether it was factored by [`MassFactor::new_or_lu`], and its factor.
    kept: Option<(Matrix, bool, std::sync::Arc<MassFactor>)>,
}

impl KeptMassFactor {
    /// The factor of `m`: [`MassFactor::new_or_lu`]'s when `or_lu`, else [`MassFactor::new`]'s
    /// (with their errors), kept for the next call.
    ///
    /// ```
    /// use perp_core::linear::mass::KeptMassFactor;
    /// use perp_core::Matrix;
    /// let m = Matrix::from_triplets(2, 2, &[(0, 0, 4.0), (1, 1, 16.0)]).unwrap();
    /// let mut kept = KeptMassFactor::default();
    /// let a = kept.get(&m, false).unwrap();
    /// let b = kept.get(&m.clone(), false).unwrap();
    /// assert!(std::sync::Arc::ptr_eq(&a, &b)); // the same M: factored once
    /// let mut x = vec![4.0, 16.0];
    /// b.solve(&mut x, 2, 1);
    /// assert_eq!(x, [1.0, 1.0]);
    /// // Another M, or the LU allowed: factored again.
    /// let m2 = Matrix::from_triplets(2, 2, &[(0, 0, 4.0), (1, 1, 9.0)]).unwrap();
    /// assert!(!std::sync::Arc::ptr_eq(&b, &kept.get(&m2, false).unwrap()));
    /// assert_eq!(kept.get(&m2, true).unwrap().name(), "block Cholesky");
    /// // An M that is not positive definite: Cholesky's error, or the LU when allowed.
    /// let bad = Matrix::from_triplets(2, 2, &[(0, 0, -1.0), (1, 1, 1.0)]).unwrap();
    /// assert!(kept.get(&bad, false).is_err());
    /// assert_eq!(kept.get(&bad, true).unwrap().name(), "LU");
    /// ```
    pub fn get(&mut self, m: &Matrix, or_lu: bool) -> Result<std::sync::Arc<MassFactor>, Error> {
        if let Some((km, lu, f)) = &self.kept {
            if *lu == or_lu && km.same_bits(m) {
                return Ok(f.clone());
            }
        }
        self.kept = None;
        let f = std::sync::Arc::new(if or_lu { MassFactor::new_or_lu(m)? } else { MassFactor::new(m)? });
        self.kept = Some((m.clone(), or_lu, f.clone()));
        Ok(f)
    }
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
        let mut uf = UnionFind::new(n);
        for (&v, (i, j)) in m.iter() {
            if v != 0.0 && i != j {
                uf.union(i, j);
            }
        }
        // Components numbered by their first velocity.
        let Components { label: comp, sizes } = uf.components();
        if sizes.iter().any(|&s| s > MAX_BLOCK) {
            return Ok(None);
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
        if let [x0] = x {
            // A lone velocity (a diagonal M): the two triangular solves' divisions.
            *x0 = *x0 / a[0] / a[0];
            return;
        }
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

    /// Row `j`'s entries gathered by component into `s.x`: one segment per component the
    /// row touches (`s.touched`, the segment of `c` at `s.seg[c]`, in `c`'s local order);
    /// `s.stamp` must not hold `j` yet.
    fn gather_row(&self, j: usize, r: impl Iterator<Item = (usize, f64)>, s: &mut Scratch) {
        let Scratch { stamp, seg, touched, x } = s;
        touched.clear();
        x.clear();
        for (d, v) in r {
            let c = self.comp[d];
            if stamp[c] != j {
                stamp[c] = j;
                seg[c] = x.len();
                touched.push(c);
                x.resize(x.len() + self.size(c), 0.0);
            }
            x[seg[c] + self.local[d]] += v;
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
    pub(super) fn solve_rows_into(&self, rows: &[&Row], y: &mut Y) {
        let (n, m, nc) = (self.dofs(), rows.len(), self.components());
        let sc = &mut y.scratch;
        sc.reset(nc);
        let stamp = &mut sc.stamp;
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
            self.gather_row(j, r.0.iter().copied(), sc);
            let Scratch { seg, touched, x, .. } = &mut *sc;
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
