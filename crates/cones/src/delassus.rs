//! The Delassus operator W seen contact by contact: CSR rows, diagonal blocks, and the block
//! pattern the Newton solvers assemble their Jacobian on.
//!
//! With contacts of dimension d, W is split into d×d blocks `W_ij`; a Gauss–Seidel sweep
//! needs the block rows `(W r)_i = Σ_j W_ij r_j` and the diagonal blocks `W_ii`. The CSR
//! copy keeps W's nonzero pattern (exact zeros of a dense W dropped); when the next problem
//! has the same pattern, only the values are copied into it ([`Blocks::refresh`]).

use crate::cone::MAX_DIM;
use perp_core::parallel::{Par, ROW_CHUNK};
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
    /// For each entry of `diag`, its position in the CSR values (`usize::MAX`: not stored, 0),
    /// so that a refresh of the values refills the blocks without searching the rows.
    diag_at: Vec<usize>,
    /// For a dense W, its nonzeros column by column (its storage order), each as (row, CSR
    /// position), and where each column's end in that list, so that
    /// [`Blocks::refresh_values`] reads W's columns and writes the CSR values directly; the
    /// next CSR position of every row (scratch while the blocks are built).
    places: Vec<(usize, usize)>,
    col_end: Vec<usize>,
    next: Vec<usize>,
}

/// The storage of a [`Blocks`], reused for the next pattern.
#[derive(Default)]
struct Storage {
    ip: Vec<usize>,
    idx: Vec<usize>,
    val: Vec<f64>,
    diag: Vec<f64>,
    diag_at: Vec<usize>,
    places: Vec<(usize, usize)>,
    col_end: Vec<usize>,
    next: Vec<usize>,
}

impl Blocks {
    pub fn new(w: &Matrix, d: usize) -> Blocks {
        match w {
            Matrix::Dense(m) => Blocks::dense_in(m.as_ref(), d, Default::default()),
            Matrix::Sparse(_) => {
                let csr = w.to_csr();
                let (mut diag, mut diag_at) = (Vec::new(), Vec::new());
                diag_positions(&csr, d, &mut diag_at);
                fill_diag(csr.data(), &diag_at, &mut diag);
                Blocks { d, csr, diag, diag_at, places: Vec::new(), col_end: Vec::new(), next: Vec::new() }
            }
        }
    }

    /// The blocks of a dense `m` (its exact zeros dropped, as [`Matrix::to_csr`] does), built in
    /// the storage of `old` (CSR arrays, diagonal blocks and scratch): no allocation when
    /// `old` held a pattern at least as large.
    fn dense_in(m: faer::MatRef<'_, f64>, d: usize, old: Storage) -> Blocks {
        let (n, nc) = (m.nrows(), m.ncols());
        let Storage { mut ip, mut idx, mut val, mut diag, mut diag_at, mut places, mut col_end, mut next } =
            old;
        // Two walks down the columns (the storage order): the row counts, then the entries,
        // each row's in ascending column order.
        ip.clear();
        ip.resize(n + 1, 0);
        for j in 0..nc {
            for (i, &v) in m.col(j).iter().enumerate() {
                ip[i + 1] += usize::from(v != 0.0);
            }
        }
        for i in 0..n {
            ip[i + 1] += ip[i];
        }
        next.clear();
        next.extend_from_slice(&ip[..n]);
        idx.clear();
        val.clear();
        idx.resize(ip[n], 0);
        val.resize(ip[n], 0.0);
        places.clear();
        col_end.clear();
        for j in 0..nc {
            for (i, &v) in m.col(j).iter().enumerate() {
                if v != 0.0 {
                    (idx[next[i]], val[next[i]]) = (j, v);
                    places.push((i, next[i]));
                    next[i] += 1;
                }
            }
            col_end.push(places.len());
        }
        let csr = CsMat::new((n, nc), ip, idx, val);
        diag_positions(&csr, d, &mut diag_at);
        fill_diag(csr.data(), &diag_at, &mut diag);
        Blocks { d, csr, diag, diag_at, places, col_end, next }
    }

    /// Makes `slot` hold the blocks of `w`: when it already holds blocks of the same
    /// dimension and nonzero pattern (a dense W with its exact zeros at the same places, a
    /// CSR W with the same indptr and indices), only the values are copied, without
    /// allocating; otherwise (or for a W stored by columns) the blocks are built afresh, a
    /// dense W's in the storage of the old ones. Either way the result equals
    /// `Blocks::new(w, d)` bit for bit. Returns whether the pattern is new (the blocks were
    /// built afresh).
    pub fn refresh(slot: &mut Option<Blocks>, w: &Matrix, d: usize) -> bool {
        Blocks::refresh_scanned(slot, w, d).0
    }

    /// [`Blocks::refresh`] that also scans the values it copies (no second pass over W):
    /// returns whether the pattern is new and `Some(max|W_ij|)` (as [`Matrix::max_abs`]
    /// computes it, bit for bit: a maximum does not depend on the order) when every entry of W
    /// is finite, `None` when one is not (the blocks then hold it: the caller refuses the
    /// problem, and the next refresh copies every value again). W's zeros are not stored, and
    /// a zero is finite, so the stored values are the ones to scan.
    pub fn refresh_scanned(slot: &mut Option<Blocks>, w: &Matrix, d: usize) -> (bool, Option<f64>) {
        if let Some(b) = slot {
            let mut scan = Scan::default();
            if b.d == d && b.refresh_values(w, &mut scan) {
                return (false, scan.max_if_finite());
            }
        }
        *slot = Some(match (w, slot.take()) {
            (Matrix::Dense(m), Some(old)) => {
                let (ip, idx, val) = old.csr.into_raw_storage();
                let storage = Storage {
                    ip,
                    idx,
                    val,
                    diag: old.diag,
                    diag_at: old.diag_at,
                    places: old.places,
                    col_end: old.col_end,
                    next: old.next,
                };
                Blocks::dense_in(m.as_ref(), d, storage)
            }
            _ => Blocks::new(w, d),
        });
        let mut scan = Scan::default();
        if let Some(b) = slot {
            b.csr.data().iter().for_each(|&v| scan.add(v));
        }
        (true, scan.max_if_finite())
    }

    /// Copies the values of `w` into the CSR data when its pattern is the cached one and
    /// recomputes the diagonal blocks; `false` otherwise, when the values may be partly
    /// overwritten (the caller, [`Blocks::refresh`], then builds the blocks afresh).
    /// Every value copied goes through `scan`.
    fn refresh_values(&mut self, w: &Matrix, scan: &mut Scan) -> bool {
        let n = self.csr.rows();
        if w.nrows() != n || w.ncols() != self.csr.cols() {
            return false;
        }
        match w {
            Matrix::Dense(m) => {
                // The same pattern when each column of W has as many nonzeros as the cached
                // pattern's and is nonzero at each of its places: counted down the column (the
                // storage order, without a branch per entry), then the values read at the
                // cached places straight into the CSR values. A differing pattern returns at
                // once; the caller then builds the blocks afresh, values included.
                if self.col_end.len() != self.csr.cols() || self.places.len() != self.csr.nnz() {
                    return false;
                }
                let data = self.csr.data_mut();
                let mut start = 0;
                for (j, &end) in self.col_end.iter().enumerate() {
                    let col = m.col_as_slice(j);
                    let nonzeros: usize = col.iter().map(|v| usize::from(*v != 0.0)).sum();
                    if nonzeros != end - start {
                        return false;
                    }
                    for &(i, k) in &self.places[start..end] {
                        let v = col[i];
                        if v == 0.0 {
                            return false;
                        }
                        data[k] = v;
                        scan.add(v);
                    }
                    start = end;
                }
            }
            Matrix::Sparse(s) => {
                let same = s.is_csr()
                    && s.indptr().raw_storage() == self.csr.indptr().raw_storage()
                    && s.indices() == self.csr.indices();
                if !same {
                    return false;
                }
                for (o, &v) in self.csr.data_mut().iter_mut().zip(s.data()) {
                    *o = v;
                    scan.add(v);
                }
            }
        }
        fill_diag(self.csr.data(), &self.diag_at, &mut self.diag);
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
        self.rows_into(d * i, r, &[0.0; MAX_DIM][..d], out);
    }

    /// `out = W r` (the arithmetic of [`Blocks::velocity`] with q = 0).
    pub fn mul(&self, r: &[f64], out: &mut [f64]) {
        let zeros = [0.0; 4];
        for (k, o) in out.chunks_mut(4).enumerate() {
            self.rows_into(4 * k, r, &zeros[..o.len()], o);
        }
    }

    /// [`Blocks::mul`] with the rows split over `par` in fixed chunks of `ROW_CHUNK` rows
    /// (a multiple of 4, so the rows are grouped as `mul` groups them): the same bits for any
    /// thread count.
    pub fn mul_with(&self, r: &[f64], out: &mut [f64], par: &Par) {
        let zeros = [0.0; 4];
        par.for_each_chunk(out, ROW_CHUNK, |first, piece| {
            for (k, o) in piece.chunks_mut(4).enumerate() {
                self.rows_into(first + 4 * k, r, &zeros[..o.len()], o);
            }
        });
    }

    /// `u = W r + q` with [`Matrix::mul_vec`]'s arithmetic, its rows split as
    /// [`Blocks::mul_with`] splits `mul`: each row summed from 0 in column order, then q added
    /// (`mul_vec` then `+ q`, as [`FrictionContactProblem::velocity`] computes u). The result
    /// equals that u up to the sign of zero sums (the CSR copy drops a dense W's exact zeros,
    /// whose products are ±0), so a solver that measured its last iterate with it can report
    /// that u and error without computing them again.
    ///
    /// [`FrictionContactProblem::velocity`]: crate::FrictionContactProblem::velocity
    pub fn velocity_with(&self, r: &[f64], q: &[f64], u: &mut [f64], par: &Par) {
        let zeros = [0.0; 4];
        let rows = |first: usize, piece: &mut [f64]| {
            for (k, o) in piece.chunks_mut(4).enumerate() {
                let a = first + 4 * k;
                let len = o.len();
                self.rows_into(a, r, &zeros[..len], o);
                o.iter_mut().zip(&q[a..a + len]).for_each(|(x, qa)| *x += qa);
            }
        };
        if q.len() <= ROW_CHUNK {
            // One piece (a small problem, e.g. one contact): here, without the pool's dispatch.
            rows(0, &mut u[..q.len()]);
        } else {
            par.for_each_chunk(&mut u[..q.len()], ROW_CHUNK, rows);
        }
    }

    /// `u = W r + q`.
    pub fn velocity(&self, r: &[f64], q: &[f64], u: &mut [f64]) {
        for (k, (o, qk)) in u[..q.len()].chunks_mut(4).zip(q.chunks(4)).enumerate() {
            self.rows_into(4 * k, r, qk, o);
        }
    }

    /// `out[a] = init[a] + Σ_k W[first + a, k] r_k` for `a < out.len() ≤ MAX_DIM`, each row
    /// summed in CSR order (as a row-by-row loop would), the rows interleaved.
    #[inline]
    fn rows_into(&self, first: usize, r: &[f64], init: &[f64], out: &mut [f64]) {
        match out.len() {
            1 => self.rows_fixed::<1>(first, r, init, out),
            2 => self.rows_fixed::<2>(first, r, init, out),
            3 => self.rows_fixed::<3>(first, r, init, out),
            4 => self.rows_fixed::<4>(first, r, init, out),
            5 => self.rows_fixed::<5>(first, r, init, out),
            _ => self.rows_fixed::<6>(first, r, init, out),
        }
    }

    #[inline]
    fn rows_fixed<const G: usize>(&self, first: usize, r: &[f64], init: &[f64], out: &mut [f64]) {
        let ip = self.csr.indptr();
        let ip = &ip.raw_storage()[first..first + G + 1];
        let (idx, val) = (self.csr.indices(), self.csr.data());
        let mut s = [0.0; G];
        s.copy_from_slice(&init[..G]);
        let m = (0..G).map(|a| ip[a + 1] - ip[a]).min().unwrap_or(0);
        // The first m entries of every row, interleaved (independent sums), then the rest.
        let vs: [&[f64]; G] = std::array::from_fn(|a| &val[ip[a]..ip[a] + m]);
        let is: [&[usize]; G] = std::array::from_fn(|a| &idx[ip[a]..ip[a] + m]);
        if m == r.len() {
            // Full rows (a dense W without zeros): the columns are 0..n in order, so the same
            // sums without the index gathers.
            let r = &r[..m];
            for t in 0..m {
                for a in 0..G {
                    s[a] += vs[a][t] * r[t];
                }
            }
        } else {
            for t in 0..m {
                for a in 0..G {
                    s[a] += vs[a][t] * r[is[a][t]];
                }
            }
        }
        for a in 0..G {
            for k in ip[a] + m..ip[a + 1] {
                s[a] += val[k] * r[idx[k]];
            }
        }
        out[..G].copy_from_slice(&s);
    }
}

/// The position in `csr`'s values of every entry of the diagonal blocks (`d×d` row-major
/// each, contact after contact), `usize::MAX` where the entry is not stored. A CSR matrix's
/// column indices are strictly increasing within each row (`CsMat` checks it), so each row's
/// block entries are found by bisection and read in one run.
fn diag_positions(csr: &CsMat<f64>, d: usize, at: &mut Vec<usize>) {
    let ip = csr.indptr();
    let ip = ip.raw_storage();
    let idx = csr.indices();
    at.clear();
    at.resize(csr.rows() / d * d * d, usize::MAX);
    for row in 0..csr.rows() / d * d {
        let (i, a) = (row / d, row % d);
        // The columns of block i: [d i, d i + d).
        let (lo, block) = (d * i, &mut at[i * d * d + a * d..i * d * d + a * d + d]);
        let cols = &idx[ip[row]..ip[row + 1]];
        let first = cols.partition_point(|&c| c < lo);
        for (k, &c) in cols.iter().enumerate().skip(first) {
            if c >= lo + d {
                break;
            }
            block[c - lo] = ip[row] + k;
        }
    }
}

/// What [`Blocks::refresh_scanned`] learns of the values it copies: whether all are finite
/// (`Σ v·0` is 0 exactly when they are: an infinity or a NaN makes it NaN) and the largest
/// `|v|`.
#[derive(Default)]
struct Scan {
    zero: f64,
    max: f64,
}

impl Scan {
    #[inline(always)]
    fn add(&mut self, v: f64) {
        self.zero += v * 0.0;
        let a = v.abs();
        self.max = if a > self.max { a } else { self.max };
    }

    fn max_if_finite(&self) -> Option<f64> {
        (self.zero == 0.0).then_some(self.max)
    }
}

/// The diagonal blocks from the CSR values and [`diag_positions`]: one read per block entry,
/// where scanning the rows for them was a tenth of an nsgs call on a 4-contact dense W.
fn fill_diag(val: &[f64], at: &[usize], diag: &mut Vec<f64>) {
    // `0.0 + v`: a stored −0.0 reads +0.0, as when the blocks were summed from zero.
    // Written in place (a refresh keeps the length; `extend` cost more than the reads).
    diag.resize(at.len(), 0.0);
    for (o, &k) in diag.iter_mut().zip(at) {
        *o = if k == usize::MAX { 0.0 } else { 0.0 + val[k] };
    }
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
    }

    #[test]
    fn refresh_and_products_match_fresh_blocks_and_plain_row_sums() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(13);
        // One slot throughout: each size and dimension is built in the last one's storage.
        let mut slot = None;
        for (n, d) in [(3, 3), (6, 2), (27, 3), (9, 3), (15, 3)] {
            let pattern: Vec<bool> = (0..n * n).map(|_| rng.random_range(0.0..1.0) < 0.6).collect();
            let dense = |rng: &mut rand_chacha::ChaCha8Rng, pat: &[bool]| {
                let v: Vec<f64> =
                    pat.iter().map(|&nz| if nz { rng.random_range(-1.0..1.0) } else { 0.0 }).collect();
                Matrix::from_row_major(n, n, &v).unwrap()
            };
            assert!(Blocks::refresh(&mut slot, &dense(&mut rng, &pattern), d));
            // Rounds 0-2 keep the pattern; round 3 flips an entry (one nonzero more or less);
            // rounds 4 and 5 move a nonzero of round 3's pattern to a zero's place (as many
            // nonzeros as the cached pattern, at other places); round 6 also moves one within
            // its column (every column keeps its count).
            for round in 0..7 {
                let mut pat = pattern.clone();
                if round >= 3 {
                    pat[n * n - 1] = !pat[n * n - 1];
                }
                if round >= 4 {
                    let on = pat.iter().position(|&b| b).unwrap();
                    let off = pat.iter().position(|&b| !b).unwrap();
                    pat.swap(on, off);
                }
                if round == 6 {
                    let within = (0..n * n)
                        .flat_map(|x| (0..n * n).map(move |y| (x, y)))
                        .find(|&(x, y)| x % n == y % n && pat[x] && !pat[y]);
                    let (on, off) = within.expect("a column with a nonzero and a zero");
                    pat.swap(on, off);
                }
                let w = dense(&mut rng, &pat);
                let fresh = Blocks::new(&w, d);
                let new_pattern = matches!(round, 3 | 4 | 6);
                // Scanned: the max of |W| as Matrix::max_abs gives it (all entries finite here);
                // the same refresh again keeps the pattern.
                assert_eq!(
                    Blocks::refresh_scanned(&mut slot, &w, d),
                    (new_pattern, Some(w.max_abs())),
                    "n = {n}, round {round}"
                );
                assert!(!Blocks::refresh(&mut slot, &w, d));
                let b = slot.as_ref().unwrap();
                assert_eq!(b.csr, fresh.csr);
                // Built in reused storage or afresh, the CSR copy is `to_csr`'s.
                assert_eq!(b.csr, w.to_csr());
                assert_eq!(
                    b.diag.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    fresh.diag.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
                );
                // Products against the plain row-by-row sums.
                let r: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
                let q: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
                let (ip, idx, val) = (b.csr.indptr(), b.csr.indices(), b.csr.data());
                let ip = ip.raw_storage();
                let plain = |init: &[f64]| -> Vec<u64> {
                    (0..n)
                        .map(|row| {
                            let mut s = init[row];
                            for k in ip[row]..ip[row + 1] {
                                s += val[k] * r[idx[k]];
                            }
                            s.to_bits()
                        })
                        .collect()
                };
                let (mut u, mut wr) = (vec![0.0; n], vec![0.0; n]);
                b.velocity(&r, &q, &mut u);
                b.mul(&r, &mut wr);
                // `velocity_with` sums each row from 0, then adds q: `Matrix::mul_vec` and `+ q`,
                // the problem's own u (`FrictionContactProblem::velocity`).
                let then_q: Vec<u64> = plain(&vec![0.0; n])
                    .iter()
                    .zip(&q)
                    .map(|(s, qi)| (f64::from_bits(*s) + qi).to_bits())
                    .collect();
                let mut mv = vec![0.0; n];
                w.mul_vec(&r, &mut mv);
                let problems_u: Vec<f64> = mv.iter().zip(&q).map(|(a, qi)| a + qi).collect();
                for threads in [1, 2, 3] {
                    let par = Par::new(threads).unwrap();
                    let (mut u2, mut wr2) = (vec![0.0; n], vec![0.0; n]);
                    b.velocity_with(&r, &q, &mut u2, &par);
                    b.mul_with(&r, &mut wr2, &par);
                    assert_eq!(u2.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), then_q);
                    assert_eq!(u2, problems_u, "n = {n}, round {round}");
                    assert_eq!(wr2.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), plain(&vec![0.0; n]));
                }
                assert_eq!(u.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), plain(&q));
                assert_eq!(wr.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), plain(&vec![0.0; n]));
                for i in 0..n / d {
                    let mut out = [0.0; MAX_DIM];
                    b.rows_times(i, &r, &mut out[..d]);
                    assert_eq!(&out[..d], &wr[d * i..d * i + d]);
                }
            }
        }
    }
}
