//! The Stewart–Trinkle LCP of a set of pyramids (Stewart 2000 eq. 2.13–2.16, in the local
//! form): each contact's generators ([`Generators`]), the LCP's layout and matrix
//! ([`build_lcp`]), Lemke's state between solves, and reading a force back in generator
//! coordinates.

use crate::cone::{norm, MAX_DIM};
use crate::problem::FrictionContactProblem;
use perp_core::{Error, Matrix};
use perp_lcp::Lcp;
use std::borrow::Cow;

/// Two generators closer than this (relative, in the section) count as the same.
const SAME_GENERATOR: f64 = 1e-13;

/// Base generators closer to the aligned one than this fraction of the smallest distance
/// between base generators are left out while it is there.
const DISPLACE: f64 = 0.25;

/// The linearisation of every contact: a base pyramid, and at sliding contacts one aligned
/// generator. `gens[i]` is the assembled `D_i` (`(d−1) × m_i`, column-major): the base columns
/// not displaced by the aligned one, then the aligned one (last).
pub(super) struct Generators {
    pub(super) k: usize,
    pub(super) base: Vec<Vec<f64>>,
    /// Smallest distance between two base columns of each contact (∞ with fewer than two).
    pub(super) spacing: Vec<f64>,
    /// The aligned generator `G(n)` and its unit normal n.
    pub(super) extra: Vec<Option<(Vec<f64>, Vec<f64>)>>,
    pub(super) gens: Vec<Vec<f64>>,
}

pub(super) fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt()
}

impl Generators {
    pub(super) fn new(k: usize, base: Vec<Vec<f64>>) -> Generators {
        // All pairs up to 64 columns, consecutive ones (neighbours in the default orders)
        // beyond.
        let spacing = base
            .iter()
            .map(|b| {
                let cols: Vec<&[f64]> = b.chunks(k).collect();
                let m = cols.len();
                let mut s = f64::INFINITY;
                for a in 0..m {
                    let others = if m <= 64 { a + 1..m } else { a + 1..(a + 2).min(m) };
                    for c in others {
                        s = s.min(dist(cols[a], cols[c]));
                    }
                }
                s
            })
            .collect();
        let gens = base.clone();
        let nc = base.len();
        Generators { k, base, spacing, extra: vec![None; nc], gens }
    }

    pub(super) fn count(&self, i: usize) -> usize {
        self.gens[i].len() / self.k.max(1)
    }

    pub(super) fn col(&self, i: usize, j: usize) -> &[f64] {
        &self.gens[i][j * self.k..(j + 1) * self.k]
    }

    /// Sets contact i's aligned generator `t = G(n)` and reassembles `D_i`; `false` when `t`
    /// is already its aligned generator or a base one.
    pub(super) fn set_extra(&mut self, i: usize, t: &[f64], n: &[f64]) -> bool {
        let same = SAME_GENERATOR * norm(t).max(1e-300);
        if self.extra[i].as_ref().is_some_and(|(e, _)| dist(e, t) <= same) {
            return false;
        }
        if self.extra[i].is_none() && self.base[i].chunks(self.k).any(|c| dist(c, t) <= same) {
            return false;
        }
        let keep = DISPLACE * self.spacing[i];
        let mut d: Vec<f64> =
            self.base[i].chunks(self.k).filter(|c| dist(c, t) >= keep).flatten().copied().collect();
        d.extend_from_slice(t);
        self.gens[i] = d;
        self.extra[i] = Some((t.to_vec(), n.to_vec()));
        true
    }
}

/// Where each unknown of the LCP lives: `z = (c_n, β_0, …, β_{nc−1}, λ)`.
pub(super) struct Layout {
    pub(super) beta_off: Vec<usize>,
    pub(super) lam: Vec<Option<usize>>,
    pub(super) n1: usize,
    pub(super) n: usize,
}

impl Layout {
    pub(super) fn new(g: &Generators, nc: usize) -> Layout {
        let mut beta_off = Vec::with_capacity(nc);
        let mut off = nc;
        for i in 0..nc {
            beta_off.push(off);
            off += g.count(i);
        }
        let n1 = off;
        let mut lam = vec![None; nc];
        for i in 0..nc {
            if g.count(i) > 0 {
                lam[i] = Some(off);
                off += 1;
            }
        }
        Layout { beta_off, lam, n1, n: off }
    }

    /// LCP index of local column a of contact i (a = 0: c_n; a ≥ 1: β_{a−1}).
    pub(super) fn idx(&self, i: usize, a: usize) -> usize {
        if a == 0 {
            i
        } else {
            self.beta_off[i] + a - 1
        }
    }
}

/// Local column a of `P_i` (`d` entries): `e_N` for a = 0, `(0, d_{a−1})` otherwise.
pub(super) fn local_col(g: &Generators, i: usize, a: usize, out: &mut [f64; MAX_DIM]) {
    out.fill(0.0);
    if a == 0 {
        out[0] = 1.0;
    } else {
        out[1..=g.k].copy_from_slice(g.col(i, a - 1));
    }
}

/// The Stewart–Trinkle LCP matrix and vector (module docs).
pub(super) fn build_lcp(p: &FrictionContactProblem, g: &Generators, lay: &Layout) -> Result<Lcp, Error> {
    let m = match &p.w {
        Matrix::Dense(w) => Matrix::Dense(dense_matrix(p, w, g, lay)),
        Matrix::Sparse(_) => Matrix::from_triplets(lay.n, lay.n, &sparse_triplets(p, g, lay))?,
    };
    Lcp::new(m, lcp_vector(p, g, lay))
}

/// The LCP vector: `P_iᵀ q_i` for each contact's columns, 0 for the multipliers λ.
fn lcp_vector(p: &FrictionContactProblem, g: &Generators, lay: &Layout) -> Vec<f64> {
    let d = p.dim;
    let mut qv = vec![0.0; lay.n];
    let mut pc = [0.0; MAX_DIM];
    for i in 0..p.contacts() {
        for a in 0..=g.count(i) {
            local_col(g, i, a, &mut pc);
            qv[lay.idx(i, a)] = (0..d).map(|l| pc[l] * p.q[d * i + l]).sum();
        }
    }
    qv
}

/// The entries of the LCP matrix that couple the multipliers λ_i with the contact columns:
/// `μ_i` at (λ_i, normal i), 1 at (friction column, λ_i) and −1 at (λ_i, friction column),
/// given to `put(row, column, value)` in this order, contact by contact.
fn friction_coupling(
    p: &FrictionContactProblem,
    g: &Generators,
    lay: &Layout,
    mut put: impl FnMut(usize, usize, f64),
) {
    for i in 0..p.contacts() {
        if let Some(l) = lay.lam[i] {
            put(l, i, p.mu[i]);
            for a in 1..=g.count(i) {
                put(lay.idx(i, a), l, 1.0);
                put(l, lay.idx(i, a), -1.0);
            }
        }
    }
}

/// The LCP matrix of a dense W: `Pᵀ W P` on the contact columns, through `Y = W P`, and the
/// coupling of the multipliers ([`friction_coupling`]).
fn dense_matrix(
    p: &FrictionContactProblem,
    w: &faer::Mat<f64>,
    g: &Generators,
    lay: &Layout,
) -> faer::Mat<f64> {
    let (d, nc, n) = (p.dim, p.contacts(), lay.n);
    let dn = d * nc;
    let mut pc = [0.0; MAX_DIM];
    // Y = W P, column by column (P's columns are sparse: one contact each).
    let mut y = vec![0.0; dn * lay.n1];
    for j in 0..nc {
        for b in 0..=g.count(j) {
            local_col(g, j, b, &mut pc);
            let col = lay.idx(j, b);
            let ycol = &mut y[col * dn..(col + 1) * dn];
            for l in 0..d {
                if pc[l] != 0.0 {
                    for (yv, wv) in ycol.iter_mut().zip(w.col_as_slice(d * j + l)) {
                        *yv += pc[l] * wv;
                    }
                }
            }
        }
    }
    let mut m = faer::Mat::<f64>::zeros(n, n);
    for col in 0..lay.n1 {
        let ycol = &y[col * dn..(col + 1) * dn];
        for i in 0..nc {
            for a in 0..=g.count(i) {
                local_col(g, i, a, &mut pc);
                m[(lay.idx(i, a), col)] = (0..d).map(|l| pc[l] * ycol[d * i + l]).sum();
            }
        }
    }
    friction_coupling(p, g, lay, |r, c, v| m[(r, c)] = v);
    m
}

/// The triplets of the LCP matrix of a sparse W: `P_iᵀ W_ij P_j` block by block (the d×d
/// blocks of W gathered by block row), and the coupling of the multipliers
/// ([`friction_coupling`]).
fn sparse_triplets(p: &FrictionContactProblem, g: &Generators, lay: &Layout) -> Vec<(usize, usize, f64)> {
    let (d, nc) = (p.dim, p.contacts());
    let csr = match &p.w {
        Matrix::Sparse(s) if s.is_csr() => Cow::Borrowed(s),
        other => Cow::Owned(other.to_csr()),
    };
    let mut t: Vec<(usize, usize, f64)> = Vec::new();
    let mut slot = vec![usize::MAX; nc];
    let mut blocks: Vec<(usize, [f64; MAX_DIM * MAX_DIM])> = Vec::new();
    let mut pc = [0.0; MAX_DIM];
    let mut wb = [0.0; MAX_DIM];
    for i in 0..nc {
        // Gather the d×d blocks W_ij of block row i.
        for l in 0..d {
            if let Some(row) = csr.outer_view(d * i + l) {
                for (col, &v) in row.iter() {
                    let j = col / d;
                    if slot[j] == usize::MAX {
                        slot[j] = blocks.len();
                        blocks.push((j, [0.0; MAX_DIM * MAX_DIM]));
                    }
                    blocks[slot[j]].1[l * d + col % d] += v;
                }
            }
        }
        for (j, blk) in &blocks {
            for b in 0..=g.count(*j) {
                local_col(g, *j, b, &mut pc);
                for l in 0..d {
                    wb[l] = (0..d).map(|c| blk[l * d + c] * pc[c]).sum();
                }
                for a in 0..=g.count(i) {
                    let mut pa = [0.0; MAX_DIM];
                    local_col(g, i, a, &mut pa);
                    let v: f64 = (0..d).map(|l| pa[l] * wb[l]).sum();
                    if v != 0.0 {
                        t.push((lay.idx(i, a), lay.idx(*j, b), v));
                    }
                }
            }
        }
        for (j, _) in &blocks {
            slot[*j] = usize::MAX;
        }
        blocks.clear();
    }
    friction_coupling(p, g, lay, |r, c, v| t.push((r, c, v)));
    t
}

/// The LCP unknowns by contact.
pub(super) struct State {
    pub(super) cn: Vec<f64>,
    pub(super) beta: Vec<Vec<f64>>,
    pub(super) lam: Vec<f64>,
}

impl State {
    pub(super) fn from_z(z: &[f64], g: &Generators, lay: &Layout) -> State {
        let nc = lay.beta_off.len();
        State {
            cn: z[..nc].to_vec(),
            // `Σβ ≤ μ c_n`: a lifted contact's β is 0 (round-off or a degenerate marker otherwise).
            beta: (0..nc)
                .map(|i| {
                    let b = &z[lay.beta_off[i]..lay.beta_off[i] + g.count(i)];
                    if z[i] > 0.0 {
                        b.to_vec()
                    } else {
                        vec![0.0; b.len()]
                    }
                })
                .collect(),
            lam: lay.lam.iter().map(|l| l.map_or(0.0, |l| z[l])).collect(),
        }
    }

    pub(super) fn to_z(&self, lay: &Layout) -> Vec<f64> {
        let mut z = vec![0.0; lay.n];
        z[..self.cn.len()].copy_from_slice(&self.cn);
        for (i, b) in self.beta.iter().enumerate() {
            z[lay.beta_off[i]..lay.beta_off[i] + b.len()].copy_from_slice(b);
            if let Some(l) = lay.lam[i] {
                z[l] = self.lam[i];
            }
        }
        z
    }

    /// `r_i = (c_{n,i}, D_i β_i)`.
    pub(super) fn reactions(&self, g: &Generators, d: usize) -> Vec<f64> {
        let nc = self.cn.len();
        let mut r = vec![0.0; d * nc];
        for i in 0..nc {
            r[d * i] = self.cn[i];
            for (j, b) in self.beta[i].iter().enumerate() {
                for (rv, gv) in r[d * i + 1..d * (i + 1)].iter_mut().zip(g.col(i, j)) {
                    *rv += b * gv;
                }
            }
        }
        r
    }
}

/// The warm start of an LCP solve: the complementary basis of the guess's support S, i.e.
/// `M_SS z_S = −q_S`, `z = 0` off S (one dense LU). Accepted when `z ≥ 0` up to round-off
/// (entries down to `−1e-12·max z` are set to 0; a degenerate basic variable comes out as
/// ±1e-16) and Siconos' LCP error is at most `tol`. Near convergence alignment keeps the
/// active set, and this replaces the whole Lemke run.
pub(super) fn support_solution(lcp: &Lcp, guess: &[f64], tol: f64) -> Option<Vec<f64>> {
    use faer::linalg::solvers::Solve;
    let n = lcp.n();
    let sup: Vec<usize> = (0..n).filter(|&i| guess[i] > 0.0).collect();
    let k = sup.len();
    if k == 0 {
        return None;
    }
    let entry = |i: usize, j: usize| match lcp.m() {
        Matrix::Dense(m) => m[(i, j)],
        other => other.get(i, j),
    };
    let a = faer::Mat::from_fn(k, k, |r, c| entry(sup[r], sup[c]));
    let b = faer::Mat::from_fn(k, 1, |r, _| -lcp.q()[sup[r]]);
    let x = a.partial_piv_lu().solve(&b);
    let mut z = vec![0.0; n];
    let zmax = (0..k).map(|r| x[(r, 0)].abs()).fold(0.0f64, f64::max);
    for (r, &i) in sup.iter().enumerate() {
        let v = x[(r, 0)];
        if !v.is_finite() || v < -1e-12 * zmax {
            return None;
        }
        z[i] = v.max(0.0);
    }
    let w = lcp.w(&z);
    (lcp.errors(&z, &w).0 <= tol).then_some(z)
}

/// A contact with λ > 0 and β = 0 (lifted, or μ c_n = 0) is degenerate: its tightest β row
/// has a basic β at 0. Marks that β (with the smallest positive number) so that the warm
/// start's complementary basis of the support is not singular.
pub(super) fn mark_degenerate(g: &Generators, st: &mut State, u: &[f64], d: usize) {
    for i in 0..st.cn.len() {
        if st.lam[i] > 0.0 && g.count(i) > 0 && st.beta[i].iter().all(|&b| b == 0.0) {
            let ut = &u[d * i + 1..d * (i + 1)];
            let dot = |j: usize| -g.col(i, j).iter().zip(ut).map(|(a, b)| a * b).sum::<f64>();
            let j = (0..g.count(i)).max_by(|&a, &b| dot(a).total_cmp(&dot(b))).unwrap_or(0);
            st.beta[i][j] = f64::MIN_POSITIVE;
        }
    }
}

/// Contact i's friction force `t` as `D_i β` with β ≥ 0 on one generator (k = 1) or two
/// (k = 2), for a warm start's sticking contacts; `None` when it is not in the pyramid's span
/// that way (or k ≥ 3).
pub(super) fn express(g: &Generators, i: usize, t: &[f64]) -> Option<Vec<f64>> {
    let m = g.count(i);
    let mut beta = vec![0.0; m];
    if norm(t) == 0.0 {
        return Some(beta);
    }
    match g.k {
        1 => {
            let j = (0..m).find(|&j| g.col(i, j)[0] * t[0] > 0.0)?;
            beta[j] = t[0] / g.col(i, j)[0];
            Some(beta)
        }
        2 => {
            let mut best: Option<(f64, usize, usize, f64, f64)> = None;
            for a in 0..m {
                for b in a + 1..m {
                    let (ga, gb) = (g.col(i, a), g.col(i, b));
                    let det = ga[0] * gb[1] - ga[1] * gb[0];
                    if det.abs() <= 1e-12 * norm(ga) * norm(gb) {
                        continue;
                    }
                    let ca = (t[0] * gb[1] - t[1] * gb[0]) / det;
                    let cb = (ga[0] * t[1] - ga[1] * t[0]) / det;
                    if ca >= 0.0 && cb >= 0.0 && best.is_none_or(|bb| ca + cb < bb.0) {
                        best = Some((ca + cb, a, b, ca, cb));
                    }
                }
            }
            let (_, a, b, ca, cb) = best?;
            beta[a] = ca;
            beta[b] = cb;
            Some(beta)
        }
        _ => None,
    }
}
