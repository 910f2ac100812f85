//! The rows of M for the sweep: the solver's reusable workspace (row-major copy of a dense M,
//! CSR copy of a CSC M, diagonal and row scales) and the two row kernels, dense and CSR, with
//! one summation order.

use perp_core::Matrix;

/// Rows per block of the sweep (see [`sweep`](super::sweep::sweep)).
pub(super) const BLOCK: usize = 8;

/// Reusable buffers of a [`Pgs`](super::Pgs) solve.
#[derive(Clone, Default)]
pub(super) struct Workspace {
    /// Row-major copy of a dense M.
    pub(super) dense: Vec<f64>,
    /// CSR copy of a CSC M (empty otherwise).
    pub(super) csr: CsrCopy,
    /// Sparse rows: position (in `indices`/`data`) of the first entry whose column is at least
    /// the first row of the row's block.
    pub(super) block_start: Vec<usize>,
    /// `Mᵢᵢ`.
    pub(super) diag: Vec<f64>,
    /// `max_j |Mᵢⱼ|`.
    pub(super) scale: Vec<f64>,
    /// `ω / (Mᵢᵢ + ρ)`.
    pub(super) step: Vec<f64>,
    pub(super) lo: Vec<f64>,
    pub(super) hi: Vec<f64>,
    /// The iterate.
    pub(super) z: Vec<f64>,
    /// The proximal anchor (rpgs).
    pub(super) anchor: Vec<f64>,
    /// Scratch for `w = M z + q` at exact error checks.
    pub(super) w: Vec<f64>,
    /// The iterate with the smallest exactly computed error so far.
    pub(super) best: Vec<f64>,
    /// Storage for the next report message (see `problem::set_message`).
    pub(super) spare: String,
}

/// A CSR copy of a CSC matrix in reusable buffers: `indptr` (from 0), column `indices`
/// (increasing within a row) and `data`, as `sprs`' `to_csr` builds them.
#[derive(Clone, Default)]
pub(super) struct CsrCopy {
    pub(super) indptr: Vec<usize>,
    pub(super) indices: Vec<usize>,
    pub(super) data: Vec<f64>,
}

impl CsrCopy {
    /// Transposes the storage of the CSC matrix `c` (a counting sort by row; visiting the
    /// columns in order keeps each row's column indices increasing). Allocates only to grow.
    fn fill_from_csc(&mut self, c: &sprs::CsMat<f64>) {
        let (nrows, nnz) = (c.rows(), c.nnz());
        self.indptr.clear();
        self.indptr.resize(nrows + 1, 0);
        self.indices.clear();
        self.indices.resize(nnz, 0);
        self.data.clear();
        self.data.resize(nnz, 0.0);
        for col in c.outer_iterator() {
            for (i, _) in col.iter() {
                self.indptr[i + 1] += 1;
            }
        }
        for i in 0..nrows {
            self.indptr[i + 1] += self.indptr[i];
        }
        // `indptr[i]` serves as the insertion cursor of row i, then is shifted back.
        for (j, col) in c.outer_iterator().enumerate() {
            for (i, &v) in col.iter() {
                let at = self.indptr[i];
                self.indices[at] = j;
                self.data[at] = v;
                self.indptr[i] += 1;
            }
        }
        for i in (1..=nrows).rev() {
            self.indptr[i] = self.indptr[i - 1];
        }
        self.indptr[0] = 0;
    }
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace").field("n", &self.z.len()).finish_non_exhaustive()
    }
}

impl Workspace {
    pub(super) fn resize(&mut self, n: usize) {
        for v in [&mut self.diag, &mut self.scale, &mut self.step, &mut self.lo, &mut self.hi] {
            v.clear();
            v.resize(n, 0.0);
        }
        for v in [&mut self.z, &mut self.anchor, &mut self.w, &mut self.best] {
            v.clear();
            v.resize(n, 0.0);
        }
    }

    /// Copies the rows of M where needed (dense → row-major, CSC → CSR) and fills `diag`,
    /// `scale` and (sparse) `block_start`.
    pub(super) fn load_rows(&mut self, m: &Matrix) {
        let n = m.nrows();
        match m {
            Matrix::Dense(a) => {
                self.dense.clear();
                self.dense.resize(n * n, 0.0);
                // Tiled transpose (TILE × TILE tiles: contiguous column reads, contiguous row
                // writes, both within a few pages).
                const TILE: usize = 32;
                for jb in (0..n).step_by(TILE) {
                    let je = (jb + TILE).min(n);
                    for ib in (0..n).step_by(TILE) {
                        let ie = (ib + TILE).min(n);
                        for j in jb..je {
                            for (k, &v) in a.col_as_slice(j)[ib..ie].iter().enumerate() {
                                self.dense[(ib + k) * n + j] = v;
                            }
                        }
                    }
                }
                for (i, row) in self.dense.chunks_exact(n.max(1)).take(n).enumerate() {
                    self.diag[i] = row[i];
                    self.scale[i] = max_abs(row);
                }
            }
            Matrix::Sparse(s) => {
                let (indptr, indices, data) = if s.is_csr() {
                    (s.indptr().into_raw_storage(), s.indices(), s.data())
                } else {
                    self.csr.fill_from_csc(s);
                    (&self.csr.indptr[..], &self.csr.indices[..], &self.csr.data[..])
                };
                self.block_start.clear();
                self.block_start.resize(n, 0);
                for i in 0..n {
                    let (start, end) = (indptr[i], indptr[i + 1]);
                    let (cols, vals) = (&indices[start..end], &data[start..end]);
                    self.diag[i] = cols.binary_search(&i).map_or(0.0, |k| vals[k]);
                    self.scale[i] = max_abs(vals);
                    let b0 = i - i % BLOCK;
                    self.block_start[i] = start + cols.partition_point(|&j| j < b0);
                }
            }
        }
    }
}

/// `max |vᵢ|` (0 for an empty slice), in eight independent lanes so that it vectorizes.
pub(super) fn max_abs(v: &[f64]) -> f64 {
    let mut m = [0.0f64; 8];
    let chunks = v.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for l in 0..8 {
            let a = c[l].abs();
            m[l] = if a > m[l] { a } else { m[l] };
        }
    }
    for (l, x) in rest.iter().enumerate() {
        m[l] = m[l].max(x.abs());
    }
    m.iter().fold(0.0, |a: f64, &b| a.max(b))
}

/// Row access for the sweep: the row-major copy of a dense M, the CSR copy of a CSC M, or a CSR
/// M itself.
pub(super) fn rows_of<'a>(
    m: &'a Matrix,
    dense: &'a [f64],
    csr: &'a CsrCopy,
    block_start: &'a [usize],
) -> Rows<'a> {
    match m {
        Matrix::Dense(_) => Rows::Dense(DenseRows { a: dense, n: m.nrows() }),
        Matrix::Sparse(s) if s.is_csr() => Rows::Csr(CsrRows {
            indptr: s.indptr().into_raw_storage(),
            indices: s.indices(),
            data: s.data(),
            block_start,
        }),
        Matrix::Sparse(_) => {
            Rows::Csr(CsrRows { indptr: &csr.indptr, indices: &csr.indices, data: &csr.data, block_start })
        }
    }
}

/// What a sweep needs from the rows of M, with one summation order for both storages (so dense
/// and sparse storage give bit-identical iterates).
///
/// * [`BlockRows::dots`]: `sᵣ = Σⱼ M[b₀+r, j] zⱼ` for the rows of a block, each as one running
///   sum from `+0.0` in increasing column order. The dense kernel runs the block's rows side by
///   side (independent dependency chains, one load of `zⱼ` per block); the sparse kernel skips
///   the zeros, which adds nothing (`x + 0 = x`: no running sum is ever `−0`).
/// * [`BlockRows::correct`]: `w + Σ_{r'<r} M[b₀+r, b₀+r'] Δz_{r'}` in increasing r', the
///   in-block Gauss–Seidel coupling (zeros again skipped by the sparse kernel).
pub(super) trait BlockRows {
    fn dots(&self, b0: usize, len: usize, z: &[f64], s: &mut [f64; BLOCK]);
    fn correct(&self, b0: usize, r: usize, dz: &[f64], w: f64) -> f64;
}

#[derive(Clone, Copy)]
pub(super) enum Rows<'a> {
    Dense(DenseRows<'a>),
    Csr(CsrRows<'a>),
}

/// Row-major dense rows.
#[derive(Clone, Copy)]
pub(super) struct DenseRows<'a> {
    pub(super) a: &'a [f64],
    pub(super) n: usize,
}

/// CSR rows (raw indptr: its values index `indices` and `data` directly).
#[derive(Clone, Copy)]
pub(super) struct CsrRows<'a> {
    pub(super) indptr: &'a [usize],
    pub(super) indices: &'a [usize],
    pub(super) data: &'a [f64],
    /// See [`Workspace::block_start`].
    pub(super) block_start: &'a [usize],
}

impl BlockRows for DenseRows<'_> {
    #[inline(always)]
    fn dots(&self, b0: usize, len: usize, z: &[f64], s: &mut [f64; BLOCK]) {
        let n = self.n;
        let z = &z[..n];
        let block = &self.a[b0 * n..(b0 + len) * n];
        if len == BLOCK {
            let rows: [&[f64]; BLOCK] = std::array::from_fn(|r| &block[r * n..(r + 1) * n]);
            let mut acc = [0.0; BLOCK];
            for (j, &zj) in z.iter().enumerate() {
                for r in 0..BLOCK {
                    acc[r] += rows[r][j] * zj;
                }
            }
            *s = acc;
        } else {
            for (r, row) in block.chunks_exact(n.max(1)).take(len).enumerate() {
                let mut acc = 0.0;
                for (m, zj) in row.iter().zip(z) {
                    acc += m * zj;
                }
                s[r] = acc;
            }
        }
    }

    #[inline(always)]
    fn correct(&self, b0: usize, r: usize, dz: &[f64], mut w: f64) -> f64 {
        let row = &self.a[(b0 + r) * self.n + b0..];
        for (m, d) in row.iter().zip(&dz[..r]) {
            w += m * d;
        }
        w
    }
}

impl BlockRows for CsrRows<'_> {
    #[inline(always)]
    fn dots(&self, b0: usize, len: usize, z: &[f64], s: &mut [f64; BLOCK]) {
        for (r, sr) in s.iter_mut().enumerate().take(len) {
            let (start, end) = (self.indptr[b0 + r], self.indptr[b0 + r + 1]);
            let mut acc = 0.0;
            for (&j, &v) in self.indices[start..end].iter().zip(&self.data[start..end]) {
                acc += v * z[j];
            }
            *sr = acc;
        }
    }

    #[inline(always)]
    fn correct(&self, b0: usize, r: usize, dz: &[f64], mut w: f64) -> f64 {
        let i = b0 + r;
        let (start, end) = (self.block_start[i], self.indptr[i + 1]);
        for (&j, &v) in self.indices[start..end].iter().zip(&self.data[start..end]) {
            if j >= i {
                break;
            }
            w += v * dz[j - b0];
        }
        w
    }
}
