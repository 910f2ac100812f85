//! `Y = M⁻¹ Jᵀ`, by sparse columns when the block factor makes that smaller.

use super::{MassFactor, Row};
use crate::Error;
use faer::MatRef;

/// The scratch of [`BlockFactor::solve_rows_into`], kept with its result.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    pub(super) stamp: Vec<usize>,
    pub(super) seg: Vec<usize>,
    pub(super) touched: Vec<usize>,
    pub(super) x: Vec<f64>,
}

impl Scratch {
    /// Sized for `nc` components, no component stamped.
    pub(super) fn reset(&mut self, nc: usize) {
        self.stamp.clear();
        self.stamp.resize(nc, usize::MAX);
        self.seg.clear();
        self.seg.resize(nc, 0);
    }
}

/// `Y = M⁻¹ Jᵀ` (`n × m`, one column per constraint row), dense column-major or by sparse
/// columns (see the module docs).
#[derive(Clone, Debug)]
pub struct Y {
    pub(super) n: usize,
    pub(super) m: usize,
    pub(super) store: Store,
    pub(super) scratch: Scratch,
}

#[derive(Clone, Debug)]
pub(super) enum Store {
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
