//! `W = J Y` from the rows J and `Y = M⁻¹ Jᵀ`, from the nonzeros of Y only.

use super::y::Scratch;
use super::{solve_rows, BlockFactor, MassFactor, Row, SparseRows, Y};
use crate::{Error, Matrix};
use faer::Mat;
use sprs::CsMat;

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

/// The diagonal of `W = J M⁻¹ Jᵀ`, `w_i = J_i · (M⁻¹ J_iᵀ)`, without keeping Y: with the block
/// factor each row's column of Y is solved on the components the row touches and dotted at
/// once (the same numbers as [`solve_rows`] then [`Y::row_dot_column`], bit for bit); other
/// factors go through Y.
pub fn delassus_diagonal(factor: &MassFactor, n: usize, rows: &[&Row]) -> Vec<f64> {
    match factor {
        MassFactor::Blocks(b) if b.components() > 1 => b.row_forms(rows),
        _ => {
            let y = solve_rows(factor, n, rows);
            rows.iter().enumerate().map(|(j, r)| y.row_dot_column(r, j)).collect()
        }
    }
}

/// [`delassus_diagonal`] of rows read in place ([`SparseRows`]: e.g. H's columns), the same
/// numbers bit for bit; rows are copied only for a factor other than the block one.
pub fn delassus_diagonal_of(factor: &MassFactor, n: usize, rows: &(impl SparseRows + ?Sized)) -> Vec<f64> {
    match factor {
        MassFactor::Blocks(b) if b.components() > 1 => b.row_forms(rows),
        _ => {
            let owned: Vec<Row> = (0..rows.count()).map(|k| Row(rows.entries(k).collect())).collect();
            delassus_diagonal(factor, n, &owned.iter().collect::<Vec<_>>())
        }
    }
}

impl BlockFactor {
    /// `J_i · M⁻¹ J_iᵀ` for each row, each column of Y computed as
    /// [`BlockFactor::solve_rows_into`] computes it.
    fn row_forms(&self, rows: &(impl SparseRows + ?Sized)) -> Vec<f64> {
        let mut sc = Scratch::default();
        sc.reset(self.components());
        let mut out = Vec::with_capacity(rows.count());
        // A diagonal M (every velocity its own component, as for spheres and point masses).
        let diagonal = self.components() == self.comp.len();
        let ascending = rows.strictly_ascending();
        for j in 0..rows.count() {
            if diagonal && (ascending || distinct(rows, j)) {
                // The general path's numbers without its gathering: each velocity's segment
                // holds 0 + w, solved by the two divisions of `solve_local`.
                let mut sum = 0.0;
                for (d, w) in rows.entries(j) {
                    let a = self.l[self.lstart[self.comp[d]]];
                    sum += w * ((0.0 + w) / a / a);
                }
                out.push(sum);
                continue;
            }
            self.gather_row(j, rows.entries(j), &mut sc);
            let Scratch { seg, touched, x, .. } = &mut sc;
            for &c in touched.iter() {
                self.solve_local(c, &mut x[seg[c]..seg[c] + self.size(c)]);
            }
            let mut sum = 0.0;
            for (d, w) in rows.entries(j) {
                sum += w * x[seg[self.comp[d]] + self.local[d]];
            }
            out.push(sum);
        }
        out
    }
}

/// Whether no velocity appears twice in row `j`.
fn distinct(rows: &(impl SparseRows + ?Sized), j: usize) -> bool {
    (0..rows.len_of(j)).all(|k| (0..k).all(|e| rows.entry(j, e).0 != rows.entry(j, k).0))
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
