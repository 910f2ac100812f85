//! [`Matrix`]: the dense or sparse matrix every perp problem is stated with.

use crate::Error;
use faer::Mat;
use sprs::{CsMat, TriMat};

mod products;

/// A real matrix, dense (`faer`, column-major) or sparse (`sprs`, compressed rows).
///
/// Solvers accept either; each documents which storage it exploits. A `Sparse` matrix may
/// also be stored by columns (CSC): every method here handles both.
#[derive(Clone, Debug)]
pub enum Matrix {
    /// Dense, column-major.
    Dense(Mat<f64>),
    /// Sparse; compressed sparse rows is the intended storage.
    Sparse(CsMat<f64>),
}

impl Matrix {
    /// A dense matrix from `nrows * ncols` values listed row by row.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
    /// let mut y = [0.0; 2];
    /// m.mul_vec(&[1.0, 0.0], &mut y);
    /// assert_eq!(y, [2.0, 1.0]);
    /// assert!(Matrix::from_row_major(2, 2, &[1.0]).is_err());
    /// ```
    pub fn from_row_major(nrows: usize, ncols: usize, data: &[f64]) -> Result<Matrix, Error> {
        check_size(nrows, ncols, data)?;
        Error::check_finite("matrix (row-major)", data)?;
        Ok(Matrix::Dense(Mat::from_fn(nrows, ncols, |i, j| data[i * ncols + j])))
    }

    /// A dense matrix from `nrows * ncols` values listed column by column (Siconos, Fortran).
    ///
    /// ```
    /// use perp_core::Matrix;
    /// let m = Matrix::from_col_major(2, 2, &[1.0, 3.0, 2.0, 4.0]).unwrap();
    /// assert_eq!(m.get(0, 1), 2.0);
    /// ```
    pub fn from_col_major(nrows: usize, ncols: usize, data: &[f64]) -> Result<Matrix, Error> {
        check_size(nrows, ncols, data)?;
        Error::check_finite("matrix (column-major)", data)?;
        Ok(Matrix::Dense(Mat::from_fn(nrows, ncols, |i, j| data[j * nrows + i])))
    }

    /// A sparse (CSR) matrix from `(row, col, value)` triplets; duplicates are summed.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// let m = Matrix::from_triplets(2, 2, &[(0, 0, 1.0), (1, 1, 2.0), (1, 1, 1.0)]).unwrap();
    /// assert_eq!(m.get(1, 1), 3.0);
    /// ```
    pub fn from_triplets(nrows: usize, ncols: usize, t: &[(usize, usize, f64)]) -> Result<Matrix, Error> {
        let mut tri = TriMat::with_capacity((nrows, ncols), t.len());
        for (k, &(i, j, v)) in t.iter().enumerate() {
            if i >= nrows {
                return Err(Error::dim(format!("row index of triplet {k} (must be below)"), nrows, i));
            }
            if j >= ncols {
                return Err(Error::dim(format!("column index of triplet {k} (must be below)"), ncols, j));
            }
            if !v.is_finite() {
                return Err(Error::NonFinite { what: "triplet value".into(), index: k, value: v });
            }
            tri.add_triplet(i, j, v);
        }
        Ok(Matrix::Sparse(tri.to_csr()))
    }

    /// A sparse `nrows × k` matrix from its `k` columns, each a list of `(row, value)` entries
    /// in any order: the matrix [`Matrix::from_triplets`] gives (repeated entries summed in
    /// their order, explicit zeros kept) in compressed columns, each column's entries sorted
    /// (stably; a column already in order is copied as it is).
    ///
    /// ```
    /// use perp_core::Matrix;
    /// let a = Matrix::from_columns(3, [&[(2, 1.0), (0, 4.0)][..], &[(1, 2.0), (1, 3.0)][..]]).unwrap();
    /// assert_eq!((a.get(0, 0), a.get(2, 0), a.get(1, 1)), (4.0, 1.0, 5.0));
    /// ```
    pub fn from_columns<'a, I>(nrows: usize, columns: I) -> Result<Matrix, Error>
    where
        I: IntoIterator<Item = &'a [(usize, f64)]>,
        I::IntoIter: Clone,
    {
        Matrix::from_columns_in(nrows, columns, None)
    }

    /// [`Matrix::from_columns`] in the storage of `reuse` when it is a sparse matrix (its
    /// vectors cleared and refilled: no allocation once they are large enough), as a step that
    /// rebuilds the same-sized operator every step wants; the same matrix either way.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// let a = Matrix::from_columns(3, [&[(2, 1.0), (0, 4.0)][..], &[(1, 2.0)][..]]).unwrap();
    /// let b = Matrix::from_columns_in(3, [&[(1, 5.0)][..]], Some(a)).unwrap();
    /// assert_eq!((b.ncols(), b.get(1, 0), b.nnz()), (1, 5.0, 1));
    /// ```
    pub fn from_columns_in<'a, I>(nrows: usize, columns: I, reuse: Option<Matrix>) -> Result<Matrix, Error>
    where
        I: IntoIterator<Item = &'a [(usize, f64)]>,
        I::IntoIter: Clone,
    {
        let columns = columns.into_iter();
        // Sized once (the columns' lengths are read twice, their entries once).
        let (ncols, nnz) = columns.clone().fold((0, 0), |(c, z), e| (c + 1, z + e.len()));
        let (mut indptr, mut indices, mut data) = match reuse {
            Some(Matrix::Sparse(s)) => {
                let (mut p, mut i, mut d) = s.into_raw_storage();
                p.clear();
                i.clear();
                d.clear();
                (p, i, d)
            }
            _ => (Vec::new(), Vec::new(), Vec::new()),
        };
        indptr.reserve(ncols + 1);
        indices.reserve(nnz);
        data.reserve(nnz);
        indptr.push(0);
        let mut sorted: Vec<(usize, f64)> = Vec::new();
        for (j, entries) in columns.enumerate() {
            // One pass decides whether the column is strictly ascending, in range and finite
            // (the usual case: copied as it is); the entry-by-entry checks name the culprit.
            let plain = entries.windows(2).all(|w| w[0].0 < w[1].0)
                && entries.last().is_none_or(|e| e.0 < nrows)
                && entries.iter().all(|e| e.1.is_finite());
            if plain {
                indices.extend(entries.iter().map(|e| e.0));
                data.extend(entries.iter().map(|e| e.1));
                indptr.push(indices.len());
                continue;
            }
            for (k, &(i, v)) in entries.iter().enumerate() {
                if i >= nrows {
                    return Err(Error::dim(
                        format!("row index of entry {k} of column {j} (must be below)"),
                        nrows,
                        i,
                    ));
                }
                if !v.is_finite() {
                    // "column j[i] = NaN is not finite".
                    return Err(Error::NonFinite { what: format!("column {j}"), index: i, value: v });
                }
            }
            let entries = if entries.is_sorted_by(|a, b| a.0 < b.0) {
                entries
            } else {
                sorted.clear();
                sorted.extend_from_slice(entries);
                sorted.sort_by_key(|e| e.0);
                &sorted[..]
            };
            // Repeats (adjacent once sorted) summed in their order.
            let first = indices.len();
            for &(i, v) in entries {
                if indices.len() > first && indices.last() == Some(&i) {
                    *data.last_mut().expect("an entry before") += v;
                } else {
                    indices.push(i);
                    data.push(v);
                }
            }
            indptr.push(indices.len());
        }
        let ncols = indptr.len() - 1;
        Ok(Matrix::Sparse(CsMat::new_csc((nrows, ncols), indptr, indices, data)))
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        match self {
            Matrix::Dense(m) => m.nrows(),
            Matrix::Sparse(m) => m.rows(),
        }
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        match self {
            Matrix::Dense(m) => m.ncols(),
            Matrix::Sparse(m) => m.cols(),
        }
    }

    /// Whether the storage is sparse.
    pub fn is_sparse(&self) -> bool {
        matches!(self, Matrix::Sparse(_))
    }

    /// Number of stored entries (n·m for dense).
    pub fn nnz(&self) -> usize {
        match self {
            Matrix::Dense(m) => m.nrows() * m.ncols(),
            Matrix::Sparse(m) => m.nnz(),
        }
    }

    /// Entry (i, j); zero where a sparse matrix stores nothing.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        match self {
            Matrix::Dense(m) => m[(i, j)],
            Matrix::Sparse(m) => m.get(i, j).copied().unwrap_or(0.0),
        }
    }

    /// The main diagonal (length min(nrows, ncols)).
    pub fn diagonal(&self) -> Vec<f64> {
        (0..self.nrows().min(self.ncols())).map(|i| self.get(i, i)).collect()
    }

    /// A dense copy (column-major).
    pub fn to_dense(&self) -> Mat<f64> {
        match self {
            Matrix::Dense(m) => m.clone(),
            Matrix::Sparse(s) => {
                let mut d = Mat::zeros(s.rows(), s.cols());
                for (v, (i, j)) in s.iter() {
                    d[(i, j)] += *v;
                }
                d
            }
        }
    }

    /// A sparse CSR copy (dense zeros are dropped).
    pub fn to_csr(&self) -> CsMat<f64> {
        match self {
            Matrix::Dense(m) => {
                let mut tri = TriMat::new((m.nrows(), m.ncols()));
                for j in 0..m.ncols() {
                    for i in 0..m.nrows() {
                        if m[(i, j)] != 0.0 {
                            tri.add_triplet(i, j, m[(i, j)]);
                        }
                    }
                }
                tri.to_csr()
            }
            Matrix::Sparse(s) => s.to_csr(),
        }
    }

    /// Makes `self` equal to `other`, reusing `self`'s storage when both have the same
    /// storage kind and shape (and, when sparse, the same pattern): then no allocation.
    /// Otherwise `self` becomes a clone of `other`. Returns whether the storage was reused
    /// (the structure is unchanged).
    ///
    /// ```
    /// use perp_core::Matrix;
    /// let mut a = Matrix::from_row_major(2, 2, &[1.0, 0.0, 0.0, 1.0]).unwrap();
    /// let b = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
    /// assert!(a.assign(&b));
    /// assert_eq!(a.get(0, 1), 1.0);
    /// ```
    pub fn assign(&mut self, other: &Matrix) -> bool {
        match (&mut *self, other) {
            (Matrix::Dense(a), Matrix::Dense(b)) if a.nrows() == b.nrows() && a.ncols() == b.ncols() => {
                a.copy_from(b);
                true
            }
            (Matrix::Sparse(a), Matrix::Sparse(b))
                if a.shape() == b.shape()
                    && a.storage() == b.storage()
                    && a.indptr().raw_storage() == b.indptr().raw_storage()
                    && a.indices() == b.indices() =>
            {
                a.data_mut().copy_from_slice(b.data());
                true
            }
            _ => {
                *self = other.clone();
                false
            }
        }
    }

    /// `Err(NonFinite)` naming `what` and the first NaN/Inf entry (by row, column).
    pub fn check_finite(&self, what: &str) -> Result<(), Error> {
        // A scan of the stored values first (a solve checks its problem every call); the
        // position is looked up only when one is not finite.
        let all_finite = match self {
            Matrix::Dense(m) => {
                let mut lanes = Lanes::default();
                (0..m.ncols()).for_each(|j| lanes.finite(m.col_as_slice(j)));
                lanes.all_zero()
            }
            Matrix::Sparse(s) => all_finite(s.data()),
        };
        if all_finite {
            return Ok(());
        }
        let bad = match self {
            Matrix::Dense(m) => (0..m.ncols())
                .flat_map(|j| (0..m.nrows()).map(move |i| (i, j)))
                .find(|&(i, j)| !m[(i, j)].is_finite())
                .map(|(i, j)| (i, j, m[(i, j)])),
            Matrix::Sparse(s) => s.iter().find(|(v, _)| !v.is_finite()).map(|(v, (i, j))| (i, j, *v)),
        };
        match bad {
            Some((i, j, value)) => Err(Error::NonFinite {
                what: format!("{what} (row {i}, column {j}; flat row-major index)"),
                index: i * self.ncols() + j,
                value,
            }),
            None => Ok(()),
        }
    }

    /// Largest absolute entry (0 for an empty matrix); allocates nothing.
    pub fn max_abs(&self) -> f64 {
        match self {
            Matrix::Dense(m) => {
                let mut lanes = Lanes::default();
                (0..m.ncols()).for_each(|j| lanes.max_abs(m.col_as_slice(j)));
                lanes.max()
            }
            Matrix::Sparse(s) => max_abs(s.data()),
        }
    }

    /// A bound on the rounding error of every entry of `A x + c` as [`Matrix::mul_vec`] and
    /// one addition compute it (Higham's `|fl(aᵀx) − aᵀx| ≤ γ_k |a|ᵀ|x|`):
    /// `max_i γ_{k_i} Σ_j |a_ij x_j|`, with `k_i` the row's stored entries plus one and
    /// `γ_k = k ε / (1 − k ε)`. What an answer's residual may carry from the arithmetic alone,
    /// so that a check at the data's scale allows exactly that much and no more. The cheap
    /// form, `γ_{ncols+1} max|a| ‖x‖₁`, is returned when it is at most `enough`; otherwise
    /// the rows are summed (one pass over the stored entries; no allocation). NaN when `x`
    /// has a NaN. Panics if `x.len() != ncols`.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// let a = Matrix::from_row_major(2, 2, &[1.0, -1.0, 0.0, 4.0]).unwrap();
    /// let g3 = 3.0 * f64::EPSILON / (1.0 - 3.0 * f64::EPSILON);
    /// // Rows: |1·2| + |−1·3| = 5 and |4·3| = 12.
    /// assert_eq!(a.rounding_bound(&[2.0, 3.0], 0.0), g3 * 12.0);
    /// // The cheap bound γ₃ · 4 · (2 + 3) when it is small enough.
    /// assert_eq!(a.rounding_bound(&[2.0, 3.0], 1.0), g3 * 20.0);
    /// ```
    pub fn rounding_bound(&self, x: &[f64], enough: f64) -> f64 {
        self.rounding_bound_with(self.max_abs(), x, enough)
    }

    /// [`Matrix::rounding_bound`] with `max|a|` given (`max_abs`, as [`Matrix::max_abs`]
    /// computes it), for callers that keep it.
    pub fn rounding_bound_with(&self, max_abs: f64, x: &[f64], enough: f64) -> f64 {
        assert_eq!(x.len(), self.ncols(), "rounding_bound: x has the wrong length");
        let gamma = crate::measures::gamma;
        let x1: f64 = x.iter().map(|v| v.abs()).sum();
        let cheap = gamma(self.ncols() + 1) * max_abs * x1;
        if cheap.is_nan() || cheap <= enough {
            return cheap;
        }
        let mut worst = 0.0_f64;
        match self {
            Matrix::Dense(m) => {
                let g = gamma(m.ncols() + 1);
                for i in 0..m.nrows() {
                    let s: f64 = (0..m.ncols()).map(|j| (m[(i, j)] * x[j]).abs()).sum();
                    worst = worst.max(g * s);
                }
            }
            Matrix::Sparse(m) if m.is_csr() => {
                for row in m.outer_iterator() {
                    let s: f64 = row.iter().map(|(j, &v)| (v * x[j]).abs()).sum();
                    worst = worst.max(gamma(row.nnz() + 1) * s);
                }
            }
            // By columns neither the rows' sums nor their counts are at hand without a buffer:
            // every row's sum is at most Σ_j max_i |a_ij| |x_j|, and its count at most ncols.
            Matrix::Sparse(m) => {
                let s: f64 = m
                    .outer_iterator()
                    .zip(x)
                    .map(|(col, xj)| col.iter().fold(0.0_f64, |a, (_, v)| a.max(v.abs())) * xj.abs())
                    .sum();
                worst = gamma(m.cols() + 1) * s;
            }
        }
        worst
    }

    /// Whether `A + shift·I` has a Cholesky factor (a dense `LLᵀ` of the lower triangle, every
    /// pivot positive): positive definiteness of a symmetric matrix, for tests and checks of
    /// small data (O(n³) time, n² memory). `false` for a matrix that is not square.
    pub fn is_positive_definite(&self, shift: f64) -> bool {
        let n = self.nrows();
        if n != self.ncols() {
            return false;
        }
        let mut llt = crate::linear::DenseCholesky::new();
        llt.resize(n, 1);
        let mut a = llt.matrix_mut();
        let dense = self.to_dense();
        for j in 0..n {
            for i in j..n {
                a[(i, j)] = dense[(i, j)] + if i == j { shift } else { 0.0 };
            }
        }
        llt.factor().is_ok()
    }

    /// Whether `other` is this matrix bit for bit: the same storage (dense, or compressed rows
    /// or columns with the same pointers and indices) and the same bits in every value
    /// (`0.0` and `−0.0` differ, a NaN equals a NaN of the same bits).
    ///
    /// ```
    /// use perp_core::Matrix;
    /// let a = Matrix::from_triplets(2, 2, &[(0, 0, 1.0), (1, 1, 2.0)]).unwrap();
    /// assert!(a.same_bits(&a.clone()));
    /// assert!(!a.same_bits(&Matrix::from_triplets(2, 2, &[(0, 0, 1.0), (1, 1, 3.0)]).unwrap()));
    /// assert!(!a.same_bits(&Matrix::Dense(a.to_dense())));
    /// ```
    pub fn same_bits(&self, other: &Matrix) -> bool {
        let bits = |a: &[f64], b: &[f64]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
        };
        match (self, other) {
            (Matrix::Dense(a), Matrix::Dense(b)) => {
                a.nrows() == b.nrows()
                    && a.ncols() == b.ncols()
                    && (0..a.ncols())
                        .all(|j| (0..a.nrows()).all(|i| a[(i, j)].to_bits() == b[(i, j)].to_bits()))
            }
            (Matrix::Sparse(a), Matrix::Sparse(b)) => {
                a.is_csr() == b.is_csr()
                    && a.shape() == b.shape()
                    && a.indptr().to_proper() == b.indptr().to_proper()
                    && a.indices() == b.indices()
                    && bits(a.data(), b.data())
            }
            _ => false,
        }
    }

    /// The worst asymmetry `(i, j, |a_ij − a_ji|)`, or `None` when the matrix is square and
    /// symmetric to within `rel_tol · max|a|`.
    pub fn asymmetry(&self, rel_tol: f64) -> Option<(usize, usize, f64)> {
        if self.nrows() != self.ncols() {
            return Some((0, 0, f64::INFINITY));
        }
        let tol = rel_tol * self.max_abs();
        let mut worst: Option<(usize, usize, f64)> = None;
        let mut consider = |i: usize, j: usize, d: f64| {
            if d > tol && worst.is_none_or(|w| d > w.2) {
                worst = Some((i, j, d));
            }
        };
        match self {
            Matrix::Dense(m) => {
                for j in 0..m.ncols() {
                    for i in j + 1..m.nrows() {
                        consider(i, j, (m[(i, j)] - m[(j, i)]).abs());
                    }
                }
            }
            Matrix::Sparse(s) => {
                for (v, (i, j)) in s.iter() {
                    consider(i, j, (v - self.get(j, i)).abs());
                }
            }
        }
        worst
    }
}

fn check_size(nrows: usize, ncols: usize, data: &[f64]) -> Result<(), Error> {
    let need = nrows
        .checked_mul(ncols)
        .ok_or_else(|| Error::setting("matrix size", format!("{nrows}x{ncols}"), "overflows usize"))?;
    if data.len() != need {
        return Err(Error::dim(format!("data of a {nrows}x{ncols} matrix"), need, data.len()));
    }
    Ok(())
}

/// y += a x.
#[inline]
pub(crate) fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

impl From<ndarray::Array2<f64>> for Matrix {
    /// A dense matrix with the same entries.
    fn from(a: ndarray::Array2<f64>) -> Self {
        Matrix::Dense(Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[[i, j]]))
    }
}

impl From<Mat<f64>> for Matrix {
    fn from(m: Mat<f64>) -> Self {
        Matrix::Dense(m)
    }
}

impl From<CsMat<f64>> for Matrix {
    fn from(m: CsMat<f64>) -> Self {
        Matrix::Sparse(m)
    }
}

/// Lanes of the branch-free scans below: independent accumulators the compiler keeps in
/// vector registers (a single running `max` or `all` is a serial chain of dependent steps,
/// which a solve on a few contacts paid for at every call: the scans of W were a tenth of an
/// nsgs call on a 4-contact problem).
const LANES: usize = 8;

/// Lane accumulators carried over several slices (a dense matrix's columns, each scanned in
/// turn): the lanes are folded once at the end, so a matrix of short columns does not pay a
/// fold of every lane per column (a 3×3 W's `max_abs` took 430 instructions that way).
#[derive(Default)]
struct Lanes {
    acc: [f64; LANES],
    /// What the ends of the slices (shorter than `LANES`) contribute.
    rest: f64,
}

impl Lanes {
    /// Adds `v · 0` of every entry: 0 for a finite entry and NaN otherwise (no branch per
    /// entry).
    #[allow(clippy::needless_range_loop)] // lane k of the chunk onto accumulator k
    fn finite(&mut self, v: &[f64]) {
        let mut chunks = v.chunks_exact(LANES);
        for c in &mut chunks {
            for k in 0..LANES {
                self.acc[k] += c[k] * 0.0;
            }
        }
        chunks.remainder().iter().for_each(|x| self.rest += x * 0.0);
    }

    /// Whether every entry [`Lanes::finite`] saw was finite.
    fn all_zero(&self) -> bool {
        self.rest == 0.0 && self.acc.iter().all(|a| *a == 0.0)
    }

    /// Keeps the largest `|v_i|`: `f64::max` written as the compare-and-select it is here
    /// (the accumulators are never NaN, and a NaN entry fails the test and is skipped), which
    /// maps onto one vector max.
    #[allow(clippy::needless_range_loop)] // lane k of the chunk onto accumulator k
    fn max_abs(&mut self, v: &[f64]) {
        let mut chunks = v.chunks_exact(LANES);
        for c in &mut chunks {
            for k in 0..LANES {
                let x = c[k].abs();
                self.acc[k] = if x > self.acc[k] { x } else { self.acc[k] };
            }
        }
        for x in chunks.remainder() {
            let x = x.abs();
            self.rest = if x > self.rest { x } else { self.rest };
        }
    }

    /// The largest entry [`Lanes::max_abs`] saw (0 for none): the same value as a running
    /// `max`, since `max` is exact and its order does not matter.
    fn max(&self) -> f64 {
        self.acc.iter().fold(self.rest, |a, x| if *x > a { *x } else { a })
    }
}

/// Whether every entry is finite.
fn all_finite(v: &[f64]) -> bool {
    let mut lanes = Lanes::default();
    lanes.finite(v);
    lanes.all_zero()
}

/// The largest `|v_i|` (0 for none; NaN entries are skipped, as `f64::max` skips them).
fn max_abs(v: &[f64]) -> f64 {
    let mut lanes = Lanes::default();
    lanes.max_abs(v);
    lanes.max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::Par;

    /// Columns give the matrix their triplets give: entries in any order, repeated rows
    /// summed, explicit zeros kept; bad entries named.
    #[test]
    fn from_columns_equals_from_triplets() {
        let cols: Vec<Vec<(usize, f64)>> = vec![
            vec![(3, 1.5), (0, -2.0), (3, 0.25)],
            vec![],
            vec![(1, 0.0), (2, 7.0)],
            vec![(4, 1.0), (0, 1.0), (2, -1.0), (4, 2.0), (4, 4.0)],
        ];
        let triplets: Vec<(usize, usize, f64)> =
            cols.iter().enumerate().flat_map(|(j, c)| c.iter().map(move |&(i, v)| (i, j, v))).collect();
        let (Matrix::Sparse(a), Matrix::Sparse(b)) = (
            Matrix::from_columns(5, cols.iter().map(|c| &c[..])).unwrap(),
            Matrix::from_triplets(5, 4, &triplets).unwrap(),
        ) else {
            panic!("both sparse")
        };
        let b = b.to_csc();
        assert!(a.is_csc());
        assert_eq!(
            (a.shape(), a.indptr().raw_storage(), a.indices(), a.data()),
            (b.shape(), b.indptr().raw_storage(), b.indices(), b.data())
        );
        let e = Matrix::from_columns(3, [&[(0, 1.0)][..], &[(3, 1.0)][..]]).unwrap_err().to_string();
        assert!(e.contains("row index of entry 0 of column 1"), "{e}");
        let e = Matrix::from_columns(3, [&[(2, f64::NAN)][..]]).unwrap_err().to_string();
        assert!(e.contains("column 0[2] = NaN"), "{e}");
        // In reused storage, larger or smaller than needed, dense or sparse: the same matrix,
        // and the same errors, for columns in order, out of order, repeated, empty, 0 and −0.
        let in_order: Vec<Vec<(usize, f64)>> = vec![vec![(0, -0.0), (2, 1.0)], vec![(1, 0.0), (4, 3.0)]];
        let big = Matrix::from_triplets(9, 9, &[(8, 8, 1.0), (0, 3, 2.0), (4, 1, 3.0)]).unwrap();
        let small = Matrix::from_columns(1, [&[(0, 5.0)][..]]).unwrap();
        let dense = Matrix::Dense(faer::Mat::zeros(2, 2));
        for set in [&cols, &in_order] {
            let fresh = Matrix::from_columns(5, set.iter().map(|c| &c[..])).unwrap();
            for reuse in
                [None, Some(big.clone()), Some(small.clone()), Some(dense.clone()), Some(fresh.clone())]
            {
                let again = Matrix::from_columns_in(5, set.iter().map(|c| &c[..]), reuse).unwrap();
                assert!(again.same_bits(&fresh));
            }
        }
        for bad in [[&[(0, 1.0)][..], &[(3, 1.0)][..]], [&[(2, 1.0), (1, f64::INFINITY)][..], &[][..]]] {
            let a = Matrix::from_columns(3, bad).unwrap_err().to_string();
            let b = Matrix::from_columns_in(3, bad, Some(big.clone())).unwrap_err().to_string();
            assert_eq!(a, b);
        }
    }

    /// `same_bits` tells storage and bits apart: ±0, NaN payloads, rows against columns.
    #[test]
    fn same_bits_compares_storage_and_bits() {
        let csr = |x: f64| Matrix::Sparse(CsMat::new((2, 3), vec![0, 1, 2], vec![0, 2], vec![x, f64::NAN]));
        let a = csr(0.0);
        assert!(a.same_bits(&a.clone()));
        assert!(!a.same_bits(&csr(-0.0)));
        let Matrix::Sparse(s) = &a else { panic!("sparse") };
        assert!(!a.same_bits(&Matrix::Sparse(s.to_csc())));
        let d = Matrix::Dense(faer::Mat::from_fn(2, 2, |i, j| (i + 2 * j) as f64));
        assert!(d.same_bits(&d.clone()));
        assert!(!d.same_bits(&Matrix::Dense(faer::Mat::from_fn(2, 2, |i, j| if i + j == 2 {
            -1.0
        } else {
            (i + 2 * j) as f64
        }))));
        assert!(!d.same_bits(&Matrix::Dense(faer::Mat::zeros(2, 3))));
    }

    /// A sparse product has the same bits whether the matrix is stored by rows or by columns:
    /// `mul_vec` and `mul_transpose_add` on entries of mixed signs, ±0, an empty row and an
    /// empty column, against the per-entry sums written out.
    #[test]
    fn sparse_products_have_the_same_bits_in_either_storage() {
        let (nrows, ncols) = (5, 4);
        let value = |k: usize| match k % 5 {
            0 => -0.0,
            1 => 0.0,
            r => (r as f64 - 2.5) * (1.0 + k as f64 / 7.0),
        };
        let cols: Vec<Vec<(usize, f64)>> = (0..ncols)
            .map(|j| {
                (0..nrows)
                    .filter(|i| i != &3 && (i + j) % 3 != 1 && j != 2)
                    .map(|i| (i, value(i * 4 + j)))
                    .collect()
            })
            .collect();
        let Matrix::Sparse(csc) = Matrix::from_columns(nrows, cols.iter().map(|c| &c[..])).unwrap() else {
            panic!("sparse")
        };
        let (a, b) = (Matrix::Sparse(csc.clone()), Matrix::Sparse(csc.to_csr()));
        let (x, z) = ([0.3, -0.0, 1.7, -2.0], [-0.0, 0.6, -1.1, 4.0, 0.0]);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let (mut ya, mut yb) = (vec![7.0; nrows], vec![7.0; nrows]);
        a.mul_vec(&x, &mut ya);
        b.mul_vec(&x, &mut yb);
        // Row by row from −0, in column order.
        let want: Vec<f64> = (0..nrows)
            .map(|i| {
                (0..ncols)
                    .flat_map(|j| cols[j].iter().filter(move |e| e.0 == i).map(move |e| e.1 * x[j]))
                    .sum()
            })
            .collect();
        assert_eq!((bits(&ya), bits(&yb)), (bits(&want), bits(&want)));
        assert!(ya[3] == 0.0 && ya[3].is_sign_negative(), "an empty row sums to −0");
        let start = [0.5, -0.0, 0.0, 2.0];
        let (mut ua, mut ub) = (start.to_vec(), start.to_vec());
        a.mul_transpose_add(&z, &mut ua);
        b.mul_transpose_add(&z, &mut ub);
        let want: Vec<f64> =
            (0..ncols).map(|j| cols[j].iter().fold(start[j], |acc, &(i, v)| acc + v * z[i])).collect();
        assert_eq!((bits(&ua), bits(&ub)), (bits(&want), bits(&want)));
    }

    /// The lane scans against the plain running ones, for every length around the lane count
    /// and a NaN, an infinity or a largest entry at every position.
    #[test]
    fn lane_scans_equal_the_running_scans() {
        for n in 0..3 * LANES + 3 {
            let base: Vec<f64> = (0..n).map(|i| ((i * 37 % 11) as f64 - 5.0) * 0.25).collect();
            let plain_max = |v: &[f64]| v.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
            assert_eq!(max_abs(&base).to_bits(), plain_max(&base).to_bits(), "n = {n}");
            assert!(all_finite(&base));
            for at in 0..n {
                for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1e300] {
                    let mut v = base.clone();
                    v[at] = bad;
                    assert_eq!(all_finite(&v), bad.is_finite(), "n = {n}, {bad} at {at}");
                    assert_eq!(max_abs(&v).to_bits(), plain_max(&v).to_bits(), "n = {n}, {bad} at {at}");
                }
            }
        }
    }

    /// A dense matrix's scans (lanes carried from column to column) against plain loops over
    /// its entries, for short and long columns and a bad or a largest entry at every place.
    #[test]
    fn dense_scans_equal_the_plain_loops() {
        for (rows, cols) in [(1, 1), (3, 3), (2, 5), (7, 3), (9, 2), (12, 12), (17, 4)] {
            let base: Vec<f64> = (0..rows * cols).map(|i| ((i * 29 % 13) as f64 - 6.0) * 0.5).collect();
            let plain_max = |v: &[f64]| v.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
            let m = Matrix::from_row_major(rows, cols, &base).unwrap();
            assert_eq!(m.max_abs().to_bits(), plain_max(&base).to_bits(), "{rows}x{cols}");
            assert!(m.check_finite("W").is_ok());
            for at in 0..rows * cols {
                for bad in [f64::NAN, f64::INFINITY, -1e300] {
                    let mut v = base.clone();
                    v[at] = bad;
                    let Matrix::Dense(mut d) = m.clone() else { unreachable!() };
                    d[(at / cols, at % cols)] = bad;
                    let d = Matrix::Dense(d);
                    assert_eq!(d.check_finite("W").is_ok(), bad.is_finite(), "{rows}x{cols}, {bad} at {at}");
                    assert_eq!(
                        d.max_abs().to_bits(),
                        plain_max(&v).to_bits(),
                        "{rows}x{cols}, {bad} at {at}"
                    );
                }
            }
        }
    }

    fn sample() -> (Matrix, Matrix) {
        let d = Matrix::from_row_major(2, 3, &[1.0, 0.0, 2.0, 0.0, 3.0, 4.0]).unwrap();
        let s = Matrix::from_triplets(2, 3, &[(0, 0, 1.0), (0, 2, 2.0), (1, 1, 3.0), (1, 2, 4.0)]).unwrap();
        (d, s)
    }

    #[test]
    fn dense_and_sparse_mat_vec_agree_with_hand_computation() {
        let (d, s) = sample();
        for m in [&d, &s] {
            let mut y = [0.0; 2];
            m.mul_vec(&[1.0, 2.0, 3.0], &mut y);
            assert_eq!(y, [7.0, 18.0]);
        }
        let csc = Matrix::Sparse(s.to_csr().to_csc());
        let mut y = [0.0; 2];
        csc.mul_vec(&[1.0, 2.0, 3.0], &mut y);
        assert_eq!(y, [7.0, 18.0]);
    }

    #[test]
    fn parallel_csr_product_is_the_serial_one_bit_for_bit_for_1_2_3_threads() {
        let n = 5000;
        let mut t = Vec::new();
        for i in 0..n {
            for k in 0..7 {
                let j = (i * 31 + k * 977) % n;
                t.push((i, j, ((i * 13 + k * 7) % 101) as f64 / 17.0 - 2.9));
            }
        }
        let m = Matrix::from_triplets(n, n, &t).unwrap();
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut serial = vec![0.0; n];
        m.mul_vec(&x, &mut serial);
        for threads in [1, 2, 3] {
            let mut y = vec![f64::NAN; n];
            m.mul_vec_with(&x, &mut y, &Par::new(threads).unwrap());
            assert!(y.iter().zip(&serial).all(|(a, b)| a.to_bits() == b.to_bits()), "threads = {threads}");
        }
    }

    #[test]
    fn conversions_round_trip() {
        let (d, s) = sample();
        assert_eq!(Matrix::Dense(s.to_dense()).to_csr(), d.to_csr());
        let a = ndarray::array![[1.0, 0.0, 2.0], [0.0, 3.0, 4.0]];
        assert_eq!(Matrix::from(a).to_csr(), d.to_csr());
        assert_eq!(d.diagonal(), vec![1.0, 3.0]);
    }

    #[test]
    fn bad_input_is_an_error_naming_the_value() {
        let e = Matrix::from_row_major(1, 2, &[1.0, f64::NAN]).unwrap_err();
        assert!(e.to_string().contains("NaN"), "{e}");
        let e = Matrix::from_triplets(2, 2, &[(2, 0, 1.0)]).unwrap_err();
        assert!(matches!(e, Error::DimensionMismatch { .. }), "{e}");
        let e = Matrix::from_row_major(usize::MAX, 3, &[]).unwrap_err();
        assert!(e.to_string().contains("overflows"), "{e}");
    }

    #[test]
    fn asymmetry_finds_the_worst_pair() {
        let m = Matrix::from_row_major(2, 2, &[1.0, 2.0, 2.5, 1.0]).unwrap();
        assert_eq!(m.asymmetry(1e-12), Some((1, 0, 0.5)));
        let s = Matrix::from_row_major(2, 2, &[1.0, 2.0, 2.0, 1.0]).unwrap();
        assert_eq!(s.asymmetry(1e-12), None);
        assert_eq!(Matrix::Sparse(s.to_csr()).asymmetry(1e-12), None);
    }

    #[test]
    fn positive_definiteness_is_a_cholesky_of_the_shifted_matrix() {
        // [[1, 2], [2, 1]] has eigenvalues 3 and −1: indefinite, definite once shifted past 1.
        let m = Matrix::from_row_major(2, 2, &[1.0, 2.0, 2.0, 1.0]).unwrap();
        assert!(!m.is_positive_definite(0.0) && !m.is_positive_definite(0.9));
        assert!(m.is_positive_definite(1.1));
        assert!(Matrix::Sparse(m.to_csr()).is_positive_definite(1.5));
        // Positive semidefinite of rank 1: not definite, definite with any shift.
        let r1 = Matrix::from_row_major(2, 2, &[1.0, 1.0, 1.0, 1.0]).unwrap();
        assert!(!r1.is_positive_definite(0.0) && r1.is_positive_definite(1e-12));
        assert!(!Matrix::from_row_major(1, 2, &[1.0, 1.0]).unwrap().is_positive_definite(1.0));
    }
}
