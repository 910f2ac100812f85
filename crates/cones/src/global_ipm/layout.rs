//! The cone variables of a problem in Lorentz-cone form and the fixed pattern of its KKT
//! matrix.

use super::*;
use crate::global::ContactRows;
use perp_core::linear::SparseRows;

/// A starting point of the interior-point iterations: the velocities v and the cone variables
/// z of an earlier answer.
pub(super) type WarmPoint = Option<(Vec<f64>, Vec<f64>)>;

/// The cone variables of one problem and the rows of `H̃ᵀ`.
pub(super) struct Layout {
    pub(super) n: usize,
    pub(super) m: usize,
    /// Per contact: its first cone row and its rows (the contact's dimension, or 1 when μ = 0).
    pub(super) cones: Vec<(usize, usize)>,
    /// The rows of `H̃ᵀ`, one per cone row, one after the other (row k's `(dof, value)` at
    /// `ht[ht_ptr[k]..ht_ptr[k + 1]]`); the layout reads them as [`SparseRows`].
    ht_ptr: Vec<usize>,
    ht: Vec<(usize, f64)>,
    /// M's diagonal (0 where M has no entry).
    pub(super) m_diag: Vec<f64>,
    /// `‖H̃ᵀ M⁻¹ f‖∞`: the cone rows' velocity scale (of the free motion), which the primal
    /// residual and the gap are measured against when the answer's own velocities vanish (a
    /// sticking contact).
    pub(super) vscale: f64,
}

/// The fixed pattern of the quasi-definite KKT matrix `[[M, −H̃], [−H̃ᵀ, −W²]]` (lower
/// triangle, compressed columns), built only when a solve factors it ([`Layout::quasi_definite`]).
pub(super) struct QuasiDefinite {
    pub(super) col_ptr: Vec<usize>,
    pub(super) row_idx: Vec<usize>,
    /// The KKT values with the `−W²` blocks zero.
    pub(super) base: Vec<f64>,
    /// Per cone: where its block's first column starts in the values (the block's columns
    /// follow one another: rows `k..end` of column k).
    pub(super) wstart: Vec<usize>,
    /// Where M's diagonal entries are in the values.
    pub(super) mdiag: Vec<usize>,
}

impl Layout {
    pub(super) fn new(g: &GlobalFrictionContactProblem, factor: &MassFactor) -> Layout {
        let (n, d) = (g.dofs(), g.dim);
        let mut kept = Vec::new();
        let (cones, ht_ptr, ht) = match g.contact_rows_in(&mut kept) {
            ContactRows::Columns(c) => cone_rows(&c, &g.mu, d),
            ContactRows::Rows(r) => cone_rows(r, &g.mu, d),
        };
        let m = ht_ptr.len() - 1;
        let m_diag = g.m.diagonal();
        let mut lay = Layout { n, m, cones, ht_ptr, ht, m_diag, vscale: 0.0 };
        let mut vfree = g.f.clone();
        factor.solve(&mut vfree, n, 1);
        let mut y = vec![0.0; m];
        lay.ht_mul(&vfree, &mut y);
        lay.vscale = norm_inf(&y);
        lay
    }

    /// The quasi-definite KKT matrix's pattern for the problem `g` this layout was built for.
    pub(super) fn quasi_definite(&self, g: &GlobalFrictionContactProblem) -> QuasiDefinite {
        let n = self.n;
        // H̃ by dofs: per dof the cone rows touching it, in ascending order (duplicates summed).
        let mut by_dof: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        for k in 0..self.m {
            for &(j, v) in self.row(k) {
                match by_dof[j].last_mut() {
                    Some((kk, w)) if *kk == k => *w += v,
                    _ => by_dof[j].push((k, v)),
                }
            }
        }
        let mcsc = g.m.to_csr().to_csc();
        let (mut col_ptr, mut row_idx, mut base) = (vec![0], Vec::new(), Vec::new());
        let mut mdiag = Vec::with_capacity(n);
        for j in 0..n {
            let mut lower: Vec<(usize, f64)> = mcsc
                .outer_view(j)
                .map(|c| c.iter().filter(|&(i, _)| i >= j).map(|(i, &v)| (i, v)).collect())
                .unwrap_or_default();
            lower.sort_by_key(|&(i, _)| i);
            if lower.first().is_none_or(|&(i, _)| i != j) {
                lower.insert(0, (j, 0.0));
            }
            mdiag.push(base.len());
            for (i, v) in lower {
                row_idx.push(i);
                base.push(v);
            }
            for &(k, v) in &by_dof[j] {
                row_idx.push(n + k);
                base.push(-v);
            }
            col_ptr.push(row_idx.len());
        }
        let mut wstart = Vec::with_capacity(self.cones.len());
        for &(off, p) in &self.cones {
            wstart.push(base.len());
            for a in 0..p {
                for b in a..p {
                    row_idx.push(n + off + b);
                    base.push(0.0);
                }
                col_ptr.push(row_idx.len());
            }
        }
        QuasiDefinite { col_ptr, row_idx, base, wstart, mdiag }
    }

    /// `b̃` for the De Saxcé shifts `shift` (one per contact, added to `b_N`).
    pub(super) fn b_tilde(&self, g: &GlobalFrictionContactProblem, shift: &[f64]) -> Vec<f64> {
        let d = g.dim;
        let mut bt = vec![0.0; self.m];
        for (i, &(off, p)) in self.cones.iter().enumerate() {
            let mu = g.mu[i];
            let bn = g.b[i * d] + shift[i];
            bt[off] = if mu > 0.0 { bn / mu } else { bn };
            bt[off + 1..off + p].copy_from_slice(&g.b[i * d + 1..i * d + p]);
        }
        bt
    }

    /// Row k of `H̃ᵀ`: `(dof, value)`.
    pub(super) fn row(&self, k: usize) -> &[(usize, f64)] {
        &self.ht[self.ht_ptr[k]..self.ht_ptr[k + 1]]
    }

    /// `y = H̃ᵀ x`.
    pub(super) fn ht_mul(&self, x: &[f64], y: &mut [f64]) {
        for (yk, w) in y.iter_mut().zip(self.ht_ptr.windows(2)) {
            *yk = self.ht[w[0]..w[1]].iter().map(|&(i, v)| v * x[i]).sum();
        }
    }

    /// `y = H̃ z`.
    pub(super) fn h_mul(&self, z: &[f64], y: &mut [f64]) {
        y.iter_mut().for_each(|v| *v = 0.0);
        for (&zk, w) in z.iter().zip(self.ht_ptr.windows(2)) {
            for &(i, v) in &self.ht[w[0]..w[1]] {
                y[i] += zk * v;
            }
        }
    }

    /// The interior point's start from reactions r: `v = M⁻¹ (f + H r)` and r's cone
    /// variables.
    pub(super) fn warm_point(
        &self,
        g: &GlobalFrictionContactProblem,
        factor: &MassFactor,
        r: &[f64],
    ) -> (Vec<f64>, Vec<f64>) {
        let mut x = vec![0.0; g.dofs()];
        g.velocity_into(factor, r, &mut x);
        (x, self.cone_variables(g, r))
    }

    /// The cone variables z of the reactions r (`z = (μ r_N, r_T)`; r_N alone when μ = 0).
    pub(super) fn cone_variables(&self, g: &GlobalFrictionContactProblem, r: &[f64]) -> Vec<f64> {
        let d = g.dim;
        let mut z = vec![0.0; self.m];
        for (i, &(off, p)) in self.cones.iter().enumerate() {
            let mu = g.mu[i];
            z[off] = if mu > 0.0 { mu * r[i * d] } else { r[i * d] };
            z[off + 1..off + p].copy_from_slice(&r[i * d + 1..i * d + p]);
        }
        z
    }

    /// The reactions r of the cone variables z.
    pub(super) fn reactions(&self, g: &GlobalFrictionContactProblem, z: &[f64]) -> Vec<f64> {
        let d = g.dim;
        let mut r = vec![0.0; g.size()];
        for (i, &(off, p)) in self.cones.iter().enumerate() {
            let mu = g.mu[i];
            r[i * d] = if mu > 0.0 { z[off] / mu } else { z[off] };
            r[i * d + 1..i * d + p].copy_from_slice(&z[off + 1..off + p]);
        }
        r
    }
}

/// [`cone_rows`]' answer: `(cones, ht_ptr, ht)` as [`Layout`] holds them.
type ConeRows = (Vec<(usize, usize)>, Vec<usize>, Vec<(usize, f64)>);

/// The rows of `H̃ᵀ` in one run: per contact its cone rows (`(first, count)`: the contact's
/// dimension, or 1 when μ = 0), the normal row divided by μ when μ > 0.
fn cone_rows(h: &(impl SparseRows + ?Sized), mu: &[f64], d: usize) -> ConeRows {
    let mut cones = Vec::with_capacity(mu.len());
    let mut ht_ptr = Vec::with_capacity(h.count() + 1);
    ht_ptr.push(0);
    // Sized once: the rows' entries are copied, not grown into.
    let mut ht = Vec::with_capacity((0..h.count()).map(|k| h.len_of(k)).sum());
    for (i, &mu) in mu.iter().enumerate() {
        cones.push((ht_ptr.len() - 1, if mu > 0.0 { d } else { 1 }));
        if mu > 0.0 {
            ht.extend(h.entries(i * d).map(|(j, v)| (j, v / mu)));
            ht_ptr.push(ht.len());
            for k in i * d + 1..(i + 1) * d {
                ht.extend(h.entries(k));
                ht_ptr.push(ht.len());
            }
        } else {
            ht.extend(h.entries(i * d));
            ht_ptr.push(ht.len());
        }
    }
    (cones, ht_ptr, ht)
}

impl SparseRows for Layout {
    fn count(&self) -> usize {
        self.m
    }
    fn len_of(&self, k: usize) -> usize {
        self.ht_ptr[k + 1] - self.ht_ptr[k]
    }
    fn entry(&self, k: usize, a: usize) -> (usize, f64) {
        self.ht[self.ht_ptr[k] + a]
    }
}
