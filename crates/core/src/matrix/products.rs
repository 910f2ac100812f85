//! The products of a [`Matrix`] with vectors: `A x`, `Aᵀ x` added, and `A x` over threads.

use super::{axpy, Matrix};
use crate::parallel::Par;

impl Matrix {
    /// y = A x. Panics if `x.len() != ncols` or `y.len() != nrows` (a programming error:
    /// problem constructors check sizes once). A sparse matrix gives the same bits in either
    /// storage: each `y[i]` adds its products in column order from −0, as `Iterator::sum`
    /// does.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// let a = Matrix::from_columns(2, [&[(0, 0.1), (1, -0.0)][..], &[(0, 0.2)][..], &[][..]]).unwrap();
    /// let Matrix::Sparse(s) = &a else { unreachable!() };
    /// let csr = Matrix::Sparse(s.to_csr());
    /// let (mut y, mut z) = ([0.0; 2], [0.0; 2]);
    /// a.mul_vec(&[0.3, 0.7, 1.0], &mut y);
    /// csr.mul_vec(&[0.3, 0.7, 1.0], &mut z);
    /// assert_eq!(y.map(f64::to_bits), z.map(f64::to_bits));
    /// assert!(y[1] == 0.0 && y[1].is_sign_negative()); // −0 · 0.3, summed from −0
    /// ```
    pub fn mul_vec(&self, x: &[f64], y: &mut [f64]) {
        assert_eq!(x.len(), self.ncols(), "mul_vec: x has the wrong length");
        assert_eq!(y.len(), self.nrows(), "mul_vec: y has the wrong length");
        match self {
            Matrix::Dense(m) => {
                y.fill(0.0);
                for (j, &xj) in x.iter().enumerate() {
                    if xj != 0.0 {
                        axpy(xj, m.col_as_slice(j), y);
                    }
                }
            }
            Matrix::Sparse(m) => {
                if m.is_csr() {
                    for (i, row) in m.outer_iterator().enumerate() {
                        y[i] = row.iter().map(|(j, &v)| v * x[j]).sum();
                    }
                } else {
                    y.fill(-0.0);
                    for (j, col) in m.outer_iterator().enumerate() {
                        let xj = x[j];
                        for (i, &v) in col.iter() {
                            y[i] += v * xj;
                        }
                    }
                }
            }
        }
    }

    /// `y += Aᵀ x`. Panics if `x.len() != nrows` or `y.len() != ncols`. Sparse storage adds
    /// each product to `y[j]` one by one in row order (the same bits in either storage); a
    /// dense column's products are summed, then added.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// let a = Matrix::from_columns(3, [&[(0, 1.0), (2, 2.0)][..], &[(1, 3.0)][..]]).unwrap();
    /// let mut y = [10.0, 20.0];
    /// a.mul_transpose_add(&[1.0, 1.0, 1.0], &mut y);
    /// assert_eq!(y, [13.0, 23.0]);
    /// ```
    pub fn mul_transpose_add(&self, x: &[f64], y: &mut [f64]) {
        assert_eq!(x.len(), self.nrows(), "mul_transpose_add: x has the wrong length");
        assert_eq!(y.len(), self.ncols(), "mul_transpose_add: y has the wrong length");
        match self {
            Matrix::Dense(d) => {
                for (j, yj) in y.iter_mut().enumerate() {
                    *yj += d.col_as_slice(j).iter().zip(x).map(|(p, q)| p * q).sum::<f64>();
                }
            }
            Matrix::Sparse(s) => {
                let (ptr, idx, val) = (s.indptr(), s.indices(), s.data());
                let ptr = ptr.raw_storage();
                if s.is_csc() {
                    for (j, yj) in y.iter_mut().enumerate() {
                        let (lo, hi) = (ptr[j], ptr[j + 1]);
                        let mut acc = *yj;
                        for (&i, &v) in idx[lo..hi].iter().zip(&val[lo..hi]) {
                            acc += v * x[i];
                        }
                        *yj = acc;
                    }
                } else {
                    for (i, &xi) in x.iter().enumerate() {
                        let (lo, hi) = (ptr[i], ptr[i + 1]);
                        for (&j, &v) in idx[lo..hi].iter().zip(&val[lo..hi]) {
                            y[j] += v * xi;
                        }
                    }
                }
            }
        }
    }

    /// y = A x with the rows of a CSR matrix split over `par`'s threads in fixed chunks of
    /// [`ROW_CHUNK`](crate::parallel::ROW_CHUNK) rows: each row is summed as [`Matrix::mul_vec`] sums it, so the
    /// result is `mul_vec`'s, bit for bit, for any thread count. Dense and CSC storage (whose
    /// products go by columns) run [`Matrix::mul_vec`]. Panics as `mul_vec` does.
    ///
    /// ```
    /// use perp_core::{parallel::Par, Matrix};
    /// let m = Matrix::from_triplets(2, 2, &[(0, 0, 2.0), (1, 0, 1.0), (1, 1, 3.0)]).unwrap();
    /// let mut y = [0.0; 2];
    /// m.mul_vec_with(&[1.0, 1.0], &mut y, &Par::new(2).unwrap());
    /// assert_eq!(y, [2.0, 4.0]);
    /// ```
    pub fn mul_vec_with(&self, x: &[f64], y: &mut [f64], par: &Par) {
        match self {
            Matrix::Sparse(m) if m.is_csr() => {
                assert_eq!(x.len(), self.ncols(), "mul_vec: x has the wrong length");
                assert_eq!(y.len(), self.nrows(), "mul_vec: y has the wrong length");
                let (ip, idx, val) = (m.indptr(), m.indices(), m.data());
                let ip = ip.raw_storage();
                par.for_each_chunk(y, crate::parallel::ROW_CHUNK, |first, piece| {
                    for (k, yi) in piece.iter_mut().enumerate() {
                        let row = first + k;
                        *yi = idx[ip[row]..ip[row + 1]]
                            .iter()
                            .zip(&val[ip[row]..ip[row + 1]])
                            .map(|(&j, &v)| v * x[j])
                            .sum();
                    }
                });
            }
            _ => self.mul_vec(x, y),
        }
    }
}
