//! The Newton direction: the regularised Newton matrix `D_r + D_u (W + σ_k I)` (module docs of
//! [`super`]), solved by a dense LU (on the contacts not taking off: [`reduced_direction`]),
//! the sparse LU, or BiCGSTAB to an Eisenstat–Walker forcing term, with growing diagonal
//! shifts when a system fails.

use super::method::Method;
use super::workspace::Linear;
use super::{LinearSolver, AUTO_MIN_N, FLOP_RATE};
use faer::reborrow::ReborrowMut;
use faer::{Mat, MatMut};
use perp_core::linear::{DenseLu, KrylovStop};
use std::time::Instant;

/// Eisenstat–Walker forcing terms (choice 2): `η₀`, `γ`, `α`, the largest η and the smallest.
/// `η₀ = η_max = 0.1` rather than Eisenstat and Walker's 0.5 and 0.9: prox judges its inner
/// solves by their Newton iterations (≤ 2 is quick, and σ shrinks), which crude first
/// directions never are; with 0.5/0.9 prox kept σ at its start on 4 of 6 generated problems
/// of 3 000 and 10 000 contacts and did not converge in 200 iterations.
pub(super) const ETA0: f64 = 0.1;
pub(super) const EW_GAMMA: f64 = 0.9;
pub(super) const EW_ALPHA: f64 = 2.0;
pub(super) const ETA_MAX: f64 = 0.1;
pub(super) const ETA_MIN: f64 = 1e-10;

/// What [`Method::direction`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Direction {
    Found,
    /// Even the regularised systems failed.
    Failed,
    /// The time limit falls before the system can be solved.
    TimeLimit,
}

impl Method<'_> {
    /// The regularisation `σ_k = c w̄ min(1, e_k)` of the Newton matrix (module docs).
    pub(super) fn regularization(&self) -> f64 {
        let e = if self.error.is_finite() { self.error.min(1.0) } else { 1.0 };
        self.opts.regularization * self.w_mean * e
    }

    /// The shift σ of the Newton matrix `D_r + D_u (W + σI)`: the proximal σ (the exact
    /// Jacobian of the inner problem) in prox mode, plus the regularisation.
    pub(super) fn jacobian_shift(&self) -> f64 {
        let reg = self.regularization();
        match &self.prox {
            Some(ps) => ps.sigma + reg,
            None => reg,
        }
    }

    /// The forcing term of an iteration at `‖Φ_k‖ = nphi`: Eisenstat & Walker (1996), *SIAM
    /// J. Sci. Comput.* 17(1), choice 2 (eq. 2.6 with the safeguard of §2.3):
    /// `η_k = γ (‖Φ_k‖ / ‖Φ_{k−1}‖)^α`, raised to `γ η_{k−1}^α` when that exceeds 0.1, within
    /// `[η_min, η_max]`; `η₀` at the first iteration (and after a prox update).
    pub(super) fn forcing_term(&mut self, nphi: f64) -> f64 {
        let eta = match self.phi_prev {
            Some(prev) if prev > 0.0 => {
                let mut e = EW_GAMMA * (nphi / prev).powf(EW_ALPHA);
                let guard = EW_GAMMA * self.eta.powf(EW_ALPHA);
                if guard > 0.1 {
                    e = e.max(guard);
                }
                e
            }
            _ => ETA0,
        };
        self.phi_prev = Some(nphi);
        let eta = if eta.is_finite() { eta.clamp(ETA_MIN, ETA_MAX) } else { ETA_MAX };
        self.eta = eta;
        eta
    }

    /// Newton direction into `self.v.dir`.
    pub(super) fn direction(&mut self) -> Direction {
        let n = self.v.r.len();
        let d = self.p.dim;
        let shift = self.jacobian_shift();
        for ((e, a), b) in self.v.jr_eff.iter_mut().zip(&self.v.jr).zip(&self.v.ju) {
            *e = a + shift * b;
        }
        // The forcing term steers the Krylov solves, which only a sparse J can switch to; a
        // dense J is solved directly and does not need it.
        let eta = match &*self.linear {
            Linear::Sparse(_) => {
                let nphi = self.v.phi.iter().map(|v| v * v).sum::<f64>().sqrt();
                self.forcing_term(nphi)
            }
            Linear::Dense { .. } => ETA_MAX,
        };
        if let Linear::Sparse(sj) = &mut *self.linear {
            if !sj.iterative && self.deadline.is_some() && n >= AUTO_MIN_N {
                // Do not start a factorization predicted to end after the time limit.
                let predicted = sj.cost().map_or(0.0, |c| c.flops / FLOP_RATE);
                if !fits_before(Instant::now(), predicted, self.deadline) {
                    if self.opts.linear == LinearSolver::Direct {
                        return Direction::TimeLimit;
                    }
                    sj.iterative = true;
                    self.switched_for_time = true;
                }
            }
        }
        // The regularizations' scale, computed only when the plain system fails.
        let mut scale = None;
        for eps_k in 0..4 {
            let eps = if eps_k == 0 {
                0.0
            } else {
                let scale = *scale.get_or_insert_with(|| {
                    self.v.jr_eff.iter().chain(&self.v.ju).fold(1.0_f64, |m, v| m.max(v.abs()))
                });
                scale * 10f64.powi(-12 + 3 * eps_k)
            };
            let mut iterative = false;
            let ok = match &mut *self.linear {
                Linear::Sparse(sj) if sj.iterative => {
                    iterative = true;
                    sj.assemble(d, &self.v.jr_eff, &self.v.ju);
                    // b = −Φ, in the storage of W Δ (unused by the sparse residual check).
                    for k in 0..n {
                        self.v.wd[k] = -self.v.phi[k];
                    }
                    match sj.solve_iterative(d, eps, &self.v.wd, &mut self.v.dir, eta, self.deadline) {
                        None => false,
                        Some(out) => {
                            self.krylov_iterations += out.iterations;
                            if out.stop == KrylovStop::Deadline {
                                return Direction::TimeLimit;
                            }
                            true
                        }
                    }
                }
                Linear::Sparse(sj) => {
                    self.factorizations += 1;
                    for k in 0..n {
                        self.v.dir[k] = -self.v.phi[k];
                    }
                    sj.assemble(d, &self.v.jr_eff, &self.v.ju);
                    sj.solve(eps, &mut self.v.dir)
                }
                Linear::Dense { w, lu, j: kept, reduced, active, rhs, x } => {
                    self.factorizations += 1;
                    for k in 0..n {
                        self.v.dir[k] = -self.v.phi[k];
                    }
                    // A retry after a reduced attempt assembles the whole J: `kept` holds J_AA.
                    let kept_is_whole = !*reduced;
                    *reduced = eps_k == 0 && active_contacts(d, &self.v.jr_eff, &self.v.ju, active) < n / d;
                    if *reduced {
                        reduced_direction(
                            d,
                            w,
                            &self.v.jr_eff,
                            &self.v.ju,
                            &self.v.phi,
                            active,
                            lu,
                            kept,
                            rhs,
                            x,
                            &mut self.v.dir,
                        )
                    } else {
                        if lu.n() != n {
                            lu.resize(n, 1);
                        }
                        // J is assembled once and kept; a regularized retry starts from the copy
                        // (the previous attempt's LU overwrote the matrix).
                        let mut j = lu.matrix_mut();
                        if eps_k == 0 || !kept_is_whole {
                            dense_assemble(d, w, &self.v.jr_eff, &self.v.ju, j.rb_mut());
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
                        // LU with partial pivoting in place (perp_core::linear; J is overwritten
                        // by L and U), then the solve; a breakdown or a non-finite Δ is refused.
                        lu.factor().is_ok() && {
                            lu.solve_in_place(&mut self.v.dir);
                            self.v.dir.iter().all(|v| v.is_finite())
                        }
                    }
                }
            };
            let accepted = if iterative { self.inexact_ok(eta) } else { self.residual_ok(eps > 0.0) };
            if ok && accepted {
                if eps > 0.0 {
                    self.regularized += 1;
                }
                return Direction::Found;
            }
        }
        Direction::Failed
    }

    /// An inexact Newton direction (Eisenstat & Walker 1996, eq. 1.2): `‖J Δ + Φ‖ ≤ η_max ‖Φ‖`
    /// (a descent direction of ½‖Φ‖²), counted as short when it misses `η ‖Φ‖`.
    pub(super) fn inexact_ok(&mut self, eta: f64) -> bool {
        let mut jd = std::mem::take(&mut self.v.jd);
        if let Linear::Sparse(sj) = &*self.linear {
            sj.mul(&self.v.dir, &mut jd);
        }
        let res: f64 = jd.iter().zip(&self.v.phi).map(|(a, b)| (a + b) * (a + b)).sum::<f64>().sqrt();
        let nphi = self.v.phi.iter().map(|v| v * v).sum::<f64>().sqrt();
        self.v.jd = jd;
        if res > eta * nphi * (1.0 + 1e-8) {
            self.short_directions += 1;
        }
        res <= ETA_MAX * nphi
    }

    /// `‖J Δ + Φ‖ ≤ 1e-6 ‖Φ‖` (the solve was accurate), or, for a regularised system, at
    /// least a descent direction of ½‖Φ‖² (`Φᵀ J Δ < 0`).
    pub(super) fn residual_ok(&mut self, regularized: bool) -> bool {
        let n = self.v.r.len();
        let mut jd = std::mem::take(&mut self.v.jd);
        match &mut *self.linear {
            Linear::Sparse(sj) => sj.mul(&self.v.dir, &mut jd),
            Linear::Dense { j, reduced: true, active, rhs, x, .. } => {
                // Rows [I 0]: (J Δ)_i = Δ_i (= −Φ_i); the others, with J_AA kept by columns:
                // (J Δ)_A = J_AA Δ_A + J_AT Δ_T = J_AA Δ_A − rhs_A − Φ_A.
                let d = self.p.dim;
                let m = active.len() * d;
                jd[..n].copy_from_slice(&self.v.dir);
                let y = &mut x[..m];
                y.fill(0.0);
                // (m = 0, every contact taking off: no columns.)
                for (lc, jc) in j[..m * m].chunks_exact(m.max(1)).enumerate() {
                    let xc = self.v.dir[d * active[lc / d] + lc % d];
                    for (yr, a) in y.iter_mut().zip(jc) {
                        *yr += a * xc;
                    }
                }
                for (ci, &i) in active.iter().enumerate() {
                    for a in 0..d {
                        jd[d * i + a] = y[d * ci + a] - rhs[d * ci + a] - self.v.phi[d * i + a];
                    }
                }
            }
            Linear::Dense { j, .. } => {
                // J Δ with the copy of J kept (by columns) before its LU overwrote it.
                let jd = &mut jd[..n];
                jd.fill(0.0);
                for (jc, x) in j.chunks_exact(n).zip(&self.v.dir) {
                    for (y, a) in jd.iter_mut().zip(jc) {
                        *y += a * x;
                    }
                }
            }
        }
        let res: f64 = jd.iter().zip(&self.v.phi).map(|(a, b)| (a + b) * (a + b)).sum::<f64>().sqrt();
        let nphi = self.v.phi.iter().map(|v| v * v).sum::<f64>().sqrt();
        let slope: f64 = jd.iter().zip(&self.v.phi).map(|(a, b)| a * b).sum();
        self.v.jd = jd;
        res <= 1e-6 * nphi.max(f64::MIN_POSITIVE) || (regularized && slope < 0.0)
    }
}

/// Whether work predicted to take `predicted` seconds, started at `now`, ends before
/// `deadline` (always without one).
pub(super) fn fits_before(now: Instant, predicted: f64, deadline: Option<Instant>) -> bool {
    match deadline {
        None => true,
        Some(t) => {
            let left = t.saturating_duration_since(now).as_secs_f64();
            predicted.is_finite() && predicted < left
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

/// The Newton direction when the contacts outside `active` (the set T) have rows `[I 0]` of
/// J: their Δ_T = −Φ_T (already in `dir`, which holds −Φ), and the others solve the reduced
/// system `J_AA Δ_A = rhs_A = −Φ_A − J_AT Δ_T`, with `J_AA = Jr_A + Ju_A W_AA` and
/// `J_AT Δ_T = Ju_A (W_AT Δ_T)`: the same direction as the whole system in exact arithmetic,
/// for the LU of |A|·d unknowns instead of n (an Alart–Curnier contact taking off has Φ = r,
/// Jr = I, Ju = 0; on the generated fc3d-contact-40 more than half of the contacts are so at
/// every iteration). `J_AA` is kept by columns in `kept` for the residual check, whose
/// entries have the bits of the same entries of the whole J ([`dense_assemble`]'s sums).
/// False on a breakdown of the LU or a non-finite Δ.
#[allow(clippy::too_many_arguments)]
pub(super) fn reduced_direction(
    d: usize,
    w: &Mat<f64>,
    jr: &[f64],
    ju: &[f64],
    phi: &[f64],
    active: &[usize],
    lu: &mut DenseLu,
    kept: &mut [f64],
    rhs: &mut [f64],
    x: &mut [f64],
    dir: &mut [f64],
) -> bool {
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
