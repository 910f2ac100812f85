//! The Delassus operator W seen contact by contact: CSR rows, diagonal blocks, and the block
//! pattern the Newton solvers assemble their Jacobian on.
//!
//! With contacts of dimension d, W is split into d×d blocks `W_ij`; a Gauss–Seidel sweep
//! needs the block rows `(W r)_i = Σ_j W_ij r_j` and the diagonal blocks `W_ii`. The CSR
//! copy keeps W's nonzero pattern (exact zeros of a dense W dropped); when the next problem
//! has the same pattern, only the values are copied into it ([`Blocks::refresh`]).

use crate::cone::MAX_DIM;
use perp_core::Matrix;
use sprs::CsMat;

/// W split by contacts of dimension `d`.
#[derive(Clone, Debug)]
pub(crate) struct Blocks {
    pub d: usize,
    /// W in CSR.
    pub csr: CsMat<f64>,
    /// Diagonal blocks `W_ii`, `d×d` row-major each.
    pub diag: Vec<f64>,
}

impl Blocks {
    pub fn new(w: &Matrix, d: usize) -> Blocks {
        let csr = w.to_csr();
        let n = csr.rows();
        let nc = n / d;
        let mut diag = vec![0.0; nc * d * d];
        fill_diag(&csr, d, &mut diag);
        Blocks { d, csr, diag }
    }

    /// Makes `slot` hold the blocks of `w`: when it already holds blocks of the same
    /// dimension and nonzero pattern (a dense W with its exact zeros at the same places, a
    /// CSR W with the same indptr and indices), only the values are copied, without
    /// allocating; otherwise (or for a W stored by columns) the blocks are built afresh. Either
    /// way the result equals `Blocks::new(w, d)` bit for bit. Returns whether the pattern
    /// is new (the blocks were built afresh).
    pub fn refresh(slot: &mut Option<Blocks>, w: &Matrix, d: usize) -> bool {
        if let Some(b) = slot {
            if b.d == d && b.refresh_values(w) {
                return false;
            }
        }
        *slot = Some(Blocks::new(w, d));
        true
    }

    /// Copies the values of `w` into the CSR data when its pattern is the cached one and
    /// recomputes the diagonal blocks; `false` (nothing changed) otherwise.
    fn refresh_values(&mut self, w: &Matrix) -> bool {
        let n = self.csr.rows();
        if w.nrows() != n || w.ncols() != self.csr.cols() {
            return false;
        }
        match w {
            Matrix::Dense(m) => {
                // Walk W in CSR order: the nonzeros of row i must sit at the cached columns.
                let ip = self.csr.indptr();
                let ip = ip.raw_storage();
                let idx = self.csr.indices();
                for i in 0..n {
                    let (mut k, end) = (ip[i], ip[i + 1]);
                    for j in 0..n {
                        if m[(i, j)] != 0.0 {
                            if k == end || idx[k] != j {
                                return false;
                            }
                            k += 1;
                        }
                    }
                    if k != end {
                        return false;
                    }
                }
                let data = self.csr.data_mut();
                let mut k = 0;
                for i in 0..n {
                    for j in 0..n {
                        let v = m[(i, j)];
                        if v != 0.0 {
                            data[k] = v;
                            k += 1;
                        }
                    }
                }
            }
            Matrix::Sparse(s) => {
                let same = s.is_csr()
                    && s.indptr().raw_storage() == self.csr.indptr().raw_storage()
                    && s.indices() == self.csr.indices();
                if !same {
                    return false;
                }
                self.csr.data_mut().copy_from_slice(s.data());
            }
        }
        self.diag.iter_mut().for_each(|v| *v = 0.0);
        fill_diag(&self.csr, self.d, &mut self.diag);
        true
    }

    /// The diagonal block of contact `i`.
    pub fn diag(&self, i: usize) -> &[f64] {
        let dd = self.d * self.d;
        &self.diag[i * dd..(i + 1) * dd]
    }

    /// `out = (W r)_i`, the `d` rows of contact `i`.
    #[inline]
    pub fn rows_times(&self, i: usize, r: &[f64], out: &mut [f64]) {
        let d = self.d;
        let ip = self.csr.indptr();
        let ip = ip.raw_storage();
        let (idx, val) = (self.csr.indices(), self.csr.data());
        for a in 0..d {
            let row = d * i + a;
            let mut s = 0.0;
            for k in ip[row]..ip[row + 1] {
                s += val[k] * r[idx[k]];
            }
            out[a] = s;
        }
    }

    /// `out = W r` (the arithmetic of [`Blocks::velocity`] with q = 0).
    pub fn mul(&self, r: &[f64], out: &mut [f64]) {
        let ip = self.csr.indptr();
        let ip = ip.raw_storage();
        let (idx, val) = (self.csr.indices(), self.csr.data());
        for (row, o) in out.iter_mut().enumerate() {
            let mut s = 0.0;
            for k in ip[row]..ip[row + 1] {
                s += val[k] * r[idx[k]];
            }
            *o = s;
        }
    }

    /// `u = W r + q`.
    pub fn velocity(&self, r: &[f64], q: &[f64], u: &mut [f64]) {
        let ip = self.csr.indptr();
        let ip = ip.raw_storage();
        let (idx, val) = (self.csr.indices(), self.csr.data());
        for row in 0..q.len() {
            let mut s = q[row];
            for k in ip[row]..ip[row + 1] {
                s += val[k] * r[idx[k]];
            }
            u[row] = s;
        }
    }
}

/// Adds the entries of the diagonal blocks of `csr` into `diag` (zeroed by the caller).
fn fill_diag(csr: &CsMat<f64>, d: usize, diag: &mut [f64]) {
    for (row, vec) in csr.outer_iterator().enumerate() {
        let i = row / d;
        let a = row % d;
        for (c, &v) in vec.iter() {
            if c / d == i {
                diag[i * d * d + a * d + c % d] += v;
            }
        }
    }
}

/// Solves the small dense system `a x = b` (`n ≤ MAX_DIM`, `a` row-major, overwritten) by
/// Gaussian elimination with partial pivoting; `false` when a pivot is below
/// `1e-14 · max|a|` (numerically singular).
pub(crate) fn small_solve(n: usize, a: &mut [f64], b: &mut [f64]) -> bool {
    debug_assert!(n <= MAX_DIM);
    let scale = a[..n * n].iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    if scale.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || !scale.is_finite() {
        return false;
    }
    for k in 0..n {
        let (mut p, mut best) = (k, a[k * n + k].abs());
        for i in k + 1..n {
            if a[i * n + k].abs() > best {
                best = a[i * n + k].abs();
                p = i;
            }
        }
        if best <= 1e-14 * scale {
            return false;
        }
        if p != k {
            for j in 0..n {
                a.swap(k * n + j, p * n + j);
            }
            b.swap(k, p);
        }
        let piv = a[k * n + k];
        for i in k + 1..n {
            let f = a[i * n + k] / piv;
            if f != 0.0 {
                for j in k..n {
                    a[i * n + j] -= f * a[k * n + j];
                }
                b[i] -= f * b[k];
            }
        }
    }
    for k in (0..n).rev() {
        let mut s = b[k];
        for j in k + 1..n {
            s -= a[k * n + j] * b[j];
        }
        b[k] = s / a[k * n + k];
    }
    b[..n].iter().all(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_and_rows_agree_with_the_matrix() {
        let w = Matrix::from_row_major(
            4,
            4,
            &[
                4.0, 1.0, 0.5, 0.0, //
                1.0, 3.0, 0.0, 0.2, //
                0.5, 0.0, 2.0, 0.3, //
                0.0, 0.2, 0.3, 5.0,
            ],
        )
        .unwrap();
        let b = Blocks::new(&w, 2);
        assert_eq!(b.diag(1), &[2.0, 0.3, 0.3, 5.0]);
        let r = [1.0, 2.0, 3.0, 4.0];
        let mut out = [0.0; 2];
        b.rows_times(1, &r, &mut out);
        assert_eq!(out, [0.5 + 6.0 + 1.2, 0.4 + 0.9 + 20.0]);
        let mut a = [2.0, 1.0, 1.0, 3.0];
        let mut rhs = [3.0, 5.0];
        assert!(small_solve(2, &mut a, &mut rhs));
        assert!((rhs[0] - 0.8).abs() < 1e-15 && (rhs[1] - 1.4).abs() < 1e-15);
        let mut sing = [1.0, 2.0, 2.0, 4.0];
        assert!(!small_solve(2, &mut sing, &mut [1.0, 1.0]));
    }
}
