//! The dense Newton matrix `J = D_r + D_u W` of the frictional Newton methods (W dense, at
//! most [`super::DENSE_MAX_N`] unknowns), its LU in place, and the direction of the contacts
//! not taking off ([`DenseJ::reduced_direction`]).

use faer::reborrow::ReborrowMut;
use faer::{Mat, MatMut};
use perp_core::linear::DenseLu;
use perp_core::Matrix;

/// W dense, and the Newton matrix J with its LU in place ([`DenseLu`]), sized once for n; `j`
/// keeps J itself by columns (before any regularization), for the residual check of the
/// direction (one dense product instead of W Δ and the blocks).
///
/// When some contacts' rows of J are `[I 0]` (an Alart–Curnier contact taking off: its Φ is
/// r, Jr = I, Ju = 0), the first attempt solves only for the others (`reduced`; the contacts
/// in `active`, J_AA in `lu` and in `j`, the right-hand side in `rhs`, `x` scratch): see
/// [`DenseJ::reduced_direction`].
pub(super) struct DenseJ {
    pub(super) w: Mat<f64>,
    pub(super) lu: DenseLu,
    pub(super) j: Vec<f64>,
    pub(super) reduced: bool,
    pub(super) active: Vec<usize>,
    pub(super) rhs: Vec<f64>,
    pub(super) x: Vec<f64>,
}

impl DenseJ {
    /// The storage for n unknowns, W zero.
    pub(super) fn new(n: usize) -> Self {
        let mut lu = DenseLu::new();
        lu.resize(n, 1);
        DenseJ {
            w: Mat::zeros(n, n),
            lu,
            j: vec![0.0; n * n],
            reduced: false,
            // At most n contacts: no allocation at a later solve.
            active: Vec::with_capacity(n),
            rhs: vec![0.0; n],
            x: vec![0.0; n],
        }
    }

    /// The Newton direction into `dir` (which holds −Φ) for the blocks `jr` (`jr_eff`, the
    /// shift included) and `ju`, with `eps` added to J's diagonal: the first attempt (`eps`
    /// = 0) on the contacts not taking off alone when there are any taking off, a retry on the
    /// whole J from its kept copy. False on a breakdown of the LU or a non-finite Δ.
    pub(super) fn solve(
        &mut self,
        d: usize,
        jr: &[f64],
        ju: &[f64],
        phi: &[f64],
        eps: f64,
        dir: &mut [f64],
    ) -> bool {
        let n = dir.len();
        let first = eps == 0.0;
        // A retry after a reduced attempt assembles the whole J: `j` holds J_AA.
        let kept_is_whole = !self.reduced;
        self.reduced = first && active_contacts(d, jr, ju, &mut self.active) < n / d;
        if self.reduced {
            return self.reduced_direction(d, jr, ju, phi, dir);
        }
        let DenseJ { w, lu, j: kept, .. } = self;
        if lu.n() != n {
            lu.resize(n, 1);
        }
        // J is assembled once and kept; a regularized retry starts from the copy (the previous
        // attempt's LU overwrote the matrix).
        let mut j = lu.matrix_mut();
        if first || !kept_is_whole {
            dense_assemble(d, w, jr, ju, j.rb_mut());
            for (c, kc) in kept.chunks_exact_mut(n).enumerate() {
                kc.copy_from_slice(col_slice(&mut j, c));
            }
        } else {
            for (c, kc) in kept.chunks_exact(n).enumerate() {
                col_slice(&mut j, c).copy_from_slice(kc);
            }
        }
        for k in 0..n {
            j[(k, k)] += eps;
        }
        // LU with partial pivoting in place (perp_core::linear; J is overwritten by L and U),
        // then the solve; a breakdown or a non-finite Δ is refused.
        lu.factor().is_ok() && {
            lu.solve_in_place(dir);
            dir.iter().all(|v| v.is_finite())
        }
    }

    /// `jd = J Δ` with the J of the last solve (kept before its LU overwrote it), `dir` = Δ.
    pub(super) fn mul(&mut self, d: usize, dir: &[f64], phi: &[f64], jd: &mut [f64]) {
        let n = dir.len();
        let DenseJ { j, reduced, active, rhs, x, .. } = self;
        if *reduced {
            // Rows [I 0]: (J Δ)_i = Δ_i (= −Φ_i); the others, with J_AA kept by columns:
            // (J Δ)_A = J_AA Δ_A + J_AT Δ_T = J_AA Δ_A − rhs_A − Φ_A.
            let m = active.len() * d;
            jd[..n].copy_from_slice(dir);
            let y = &mut x[..m];
            y.fill(0.0);
            // (m = 0, every contact taking off: no columns.)
            for (lc, jc) in j[..m * m].chunks_exact(m.max(1)).enumerate() {
                let xc = dir[d * active[lc / d] + lc % d];
                for (yr, a) in y.iter_mut().zip(jc) {
                    *yr += a * xc;
                }
            }
            for (ci, &i) in active.iter().enumerate() {
                for a in 0..d {
                    jd[d * i + a] = y[d * ci + a] - rhs[d * ci + a] - phi[d * i + a];
                }
            }
        } else {
            let jd = &mut jd[..n];
            jd.fill(0.0);
            for (jc, x) in j.chunks_exact(n).zip(dir) {
                for (y, a) in jd.iter_mut().zip(jc) {
                    *y += a * x;
                }
            }
        }
    }

    /// The Newton direction when the contacts outside `active` (the set T) have rows `[I 0]` of
    /// J: their Δ_T = −Φ_T (already in `dir`, which holds −Φ), and the others solve the reduced
    /// system `J_AA Δ_A = rhs_A = −Φ_A − J_AT Δ_T`, with `J_AA = Jr_A + Ju_A W_AA` and
    /// `J_AT Δ_T = Ju_A (W_AT Δ_T)`: the same direction as the whole system in exact arithmetic,
    /// for the LU of |A|·d unknowns instead of n (an Alart–Curnier contact taking off has Φ = r,
    /// Jr = I, Ju = 0; on the generated fc3d-contact-40 more than half of the contacts are so at
    /// every iteration). `J_AA` is kept by columns in `j` for the residual check, whose
    /// entries have the bits of the same entries of the whole J ([`dense_assemble`]'s sums).
    /// False on a breakdown of the LU or a non-finite Δ.
    pub(super) fn reduced_direction(
        &mut self,
        d: usize,
        jr: &[f64],
        ju: &[f64],
        phi: &[f64],
        dir: &mut [f64],
    ) -> bool {
        let DenseJ { w, lu, j: kept, active, rhs, x, .. } = self;
        let (m, dd, nc) = (active.len() * d, d * d, ju.len() / (d * d));
        if m == 0 {
            return true;
        }
        // v = W_AT Δ_T, into x, column by column over T (W is stored by columns).
        let v = &mut x[..m];
        v.fill(0.0);
        let mut next = 0;
        for jc in 0..nc {
            if next < active.len() && active[next] == jc {
                next += 1;
                continue;
            }
            for k in 0..d {
                let xc = dir[d * jc + k];
                let wc = w.col_as_slice(d * jc + k);
                for (ci, &i) in active.iter().enumerate() {
                    for a in 0..d {
                        v[d * ci + a] += wc[d * i + a] * xc;
                    }
                }
            }
        }
        for (ci, &i) in active.iter().enumerate() {
            let jui = &ju[i * dd..(i + 1) * dd];
            for a in 0..d {
                rhs[d * ci + a] = -phi[d * i + a] - block_row_dot(jui, a, &v[d * ci..d * (ci + 1)]);
            }
        }
        if lu.n() != m {
            lu.resize(m, 1);
        }
        let mut j = lu.matrix_mut();
        for (cc, &cj) in active.iter().enumerate() {
            for k in 0..d {
                let wc = w.col_as_slice(d * cj + k);
                let jc = col_slice(&mut j, d * cc + k);
                for (rc, &ri) in active.iter().enumerate() {
                    let jui = &ju[ri * dd..(ri + 1) * dd];
                    for a in 0..d {
                        jc[d * rc + a] = block_row_dot(jui, a, &wc[d * ri..d * (ri + 1)]);
                    }
                }
                for a in 0..d {
                    jc[d * cc + a] += jr[cj * dd + a * d + k];
                }
                kept[(d * cc + k) * m..(d * cc + k + 1) * m].copy_from_slice(&jc[..m]);
            }
        }
        let x = &mut x[..m];
        x.copy_from_slice(&rhs[..m]);
        lu.factor().is_ok() && {
            lu.solve_in_place(x);
            for (ci, &i) in active.iter().enumerate() {
                dir[d * i..d * (i + 1)].copy_from_slice(&x[d * ci..d * (ci + 1)]);
            }
            dir.iter().all(|v| v.is_finite())
        }
    }
}

/// `out = w` as `Matrix::to_dense` computes it (same values bit for bit), in place.
pub(super) fn fill_dense(w: &Matrix, out: &mut Mat<f64>) {
    match w {
        Matrix::Dense(m) => out.as_mut().copy_from(m.as_ref()),
        Matrix::Sparse(s) => {
            out.as_mut().fill(0.0);
            for (v, (i, j)) in s.iter() {
                out[(i, j)] += *v;
            }
        }
    }
}

/// Column `c` of `j` as a slice (the columns of a faer matrix are contiguous).
pub(super) fn col_slice<'a>(j: &'a mut MatMut<'_, f64>, c: usize) -> &'a mut [f64] {
    j.rb_mut().col_mut(c).try_as_col_major_mut().expect("contiguous column").as_slice_mut()
}

/// Fills `active` with the contacts whose rows of J are not `[I 0]` (their `jr` block the
/// identity and their `ju` block zero, exactly) and returns how many there are.
pub(super) fn active_contacts(d: usize, jr: &[f64], ju: &[f64], active: &mut Vec<usize>) -> usize {
    let dd = d * d;
    let nc = ju.len() / dd;
    active.clear();
    for i in 0..nc {
        let (r, u) = (&jr[i * dd..(i + 1) * dd], &ju[i * dd..(i + 1) * dd]);
        let identity = r.iter().enumerate().all(|(k, v)| *v == if k % (d + 1) == 0 { 1.0 } else { 0.0 });
        if !(identity && u.iter().all(|v| *v == 0.0)) {
            active.push(i);
        }
    }
    active.len()
}

/// Row `a` of the `d×d` row-major block `b` times `x` (`d = x.len()`), summed from 0 in
/// order: the sums of [`dense_assemble`].
#[inline]
pub(super) fn block_row_dot(b: &[f64], a: usize, x: &[f64]) -> f64 {
    let d = x.len();
    b[a * d..(a + 1) * d].iter().zip(x).fold(0.0, |s, (bk, xk)| s + bk * xk)
}

/// `J = jr + ju W` (block-diagonal `jr`, `ju`), column by column on W's contiguous columns:
/// every entry is the sum of [`dense_assemble_dyn`] in the same order (the same bits).
pub(super) fn dense_assemble(d: usize, w: &Mat<f64>, jr: &[f64], ju: &[f64], mut j: MatMut<'_, f64>) {
    fn fixed<const D: usize>(w: &Mat<f64>, jr: &[f64], ju: &[f64], mut j: MatMut<'_, f64>) {
        let n = w.nrows();
        let nc = n / D;
        for c in 0..n {
            let wc = &w.col_as_slice(c)[..nc * D];
            let jc = &mut col_slice(&mut j, c)[..nc * D];
            for ((wi, ji), jui) in wc.chunks_exact(D).zip(jc.chunks_exact_mut(D)).zip(ju.chunks_exact(D * D))
            {
                for a in 0..D {
                    let mut s = 0.0;
                    for k in 0..D {
                        s += jui[a * D + k] * wi[k];
                    }
                    ji[a] = s;
                }
            }
        }
        for i in 0..nc {
            for k in 0..D {
                let jc = col_slice(&mut j, D * i + k);
                for a in 0..D {
                    jc[D * i + a] += jr[i * D * D + a * D + k];
                }
            }
        }
    }
    match d {
        2 => fixed::<2>(w, jr, ju, j.rb_mut()),
        3 => fixed::<3>(w, jr, ju, j.rb_mut()),
        _ => dense_assemble_dyn(d, w, jr, ju, j.rb_mut()),
    }
}

/// [`dense_assemble`] for any d (its reference).
pub(super) fn dense_assemble_dyn(d: usize, w: &Mat<f64>, jr: &[f64], ju: &[f64], mut j: MatMut<'_, f64>) {
    let n = w.nrows();
    for i in 0..n / d {
        for a in 0..d {
            let row = d * i + a;
            for c in 0..n {
                let mut s = 0.0;
                for k in 0..d {
                    s += ju[i * d * d + a * d + k] * w[(d * i + k, c)];
                }
                j[(row, c)] = s;
            }
            for k in 0..d {
                j[(row, d * i + k)] += jr[i * d * d + a * d + k];
            }
        }
    }
}
