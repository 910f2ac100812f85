//! The fixed sparsity pattern of SAP's Newton matrix `M + H G Hᵀ` and its refill.

use super::*;

/// The pattern of `M + H G Hᵀ` (lower triangle, compressed columns) and where each entry of
/// M and of each contact's clique goes.
#[derive(Clone, Debug, Default)]
pub(super) struct Pattern {
    pub(super) col_ptr: Vec<usize>,
    pub(super) row_idx: Vec<usize>,
    /// M's lower entries: (position, value).
    pub(super) m_pos: Vec<(usize, f64)>,
    /// Per contact: its velocities (sorted), `H[dofs[a], i·d + b]` at `a·d + b`, and the
    /// positions of its clique's lower entries `(a, b ≤ a)` at `a(a+1)/2 + b`.
    pub(super) contacts: Vec<(Vec<usize>, Vec<f64>, Vec<usize>)>,
}

impl Pattern {
    pub(super) fn new(g: &GlobalFrictionContactProblem, rows: &[Row]) -> Pattern {
        let (n, d, nc) = (g.dofs(), g.dim, g.contacts());
        let mut cols: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mcsc = g.m.to_csr().to_csc();
        let mut m_entries = Vec::new();
        for j in 0..n {
            if let Some(c) = mcsc.outer_view(j) {
                for (i, &v) in c.iter() {
                    if i >= j {
                        cols[j].push(i);
                        m_entries.push((i, j, v));
                    }
                }
            }
            // The diagonal always (the Hessian's is positive).
            cols[j].push(j);
        }
        let mut contacts = Vec::with_capacity(nc);
        for c in 0..nc {
            let mut dofs: Vec<usize> =
                (0..d).flat_map(|b| rows[c * d + b].0.iter().map(|&(j, _)| j)).collect();
            dofs.sort_unstable();
            dofs.dedup();
            let mut h = vec![0.0; dofs.len() * d];
            for b in 0..d {
                for &(j, v) in &rows[c * d + b].0 {
                    let a = dofs.binary_search(&j).unwrap_or(0);
                    h[a * d + b] += v;
                }
            }
            for (a, &ja) in dofs.iter().enumerate() {
                for &jb in &dofs[..=a] {
                    cols[jb].push(ja);
                }
            }
            contacts.push((dofs, h, Vec::new()));
        }
        let mut col_ptr = Vec::with_capacity(n + 1);
        let mut row_idx = Vec::new();
        col_ptr.push(0);
        for col in &mut cols {
            col.sort_unstable();
            col.dedup();
            row_idx.extend_from_slice(col);
            col_ptr.push(row_idx.len());
        }
        let pos = |i: usize, j: usize| {
            let s = &row_idx[col_ptr[j]..col_ptr[j + 1]];
            col_ptr[j] + s.binary_search(&i).unwrap_or(0)
        };
        let m_pos = m_entries.iter().map(|&(i, j, v)| (pos(i, j), v)).collect();
        for (dofs, _, p) in &mut contacts {
            for (a, &ja) in dofs.iter().enumerate() {
                for &jb in &dofs[..=a] {
                    p.push(pos(ja, jb));
                }
            }
        }
        Pattern { col_ptr, row_idx, m_pos, contacts }
    }

    /// The values of `M + H G Hᵀ` (G: nc blocks d×d row-major).
    pub(super) fn fill(&self, d: usize, g: &[f64], values: &mut Vec<f64>, hg: &mut Vec<f64>) {
        values.clear();
        values.resize(self.row_idx.len(), 0.0);
        for &(p, v) in &self.m_pos {
            values[p] += v;
        }
        // SAP takes contacts of dimension 2 or 3 only (`Sap::prepare` refuses others).
        match d {
            2 => self.add_cliques::<2>(g, values, hg),
            _ => self.add_cliques::<3>(g, values, hg),
        }
    }

    /// `H_c G_c H_cᵀ` of every contact into `values`, contacts of dimension `D` (a fixed size:
    /// the products unrolled); `t` is kept storage for `T = H_c G_c`.
    fn add_cliques<const D: usize>(&self, g: &[f64], values: &mut [f64], t: &mut Vec<f64>) {
        for (c, (dofs, h, pos)) in self.contacts.iter().enumerate() {
            let gc = &g[c * D * D..(c + 1) * D * D];
            if gc.iter().all(|&x| x == 0.0) {
                continue;
            }
            // T = H_c G_c (k × D), then the lower triangle of T H_cᵀ.
            let k = dofs.len();
            t.clear();
            t.resize(k * D, 0.0);
            for a in 0..k {
                let ha = &h[a * D..(a + 1) * D];
                for e in 0..D {
                    let mut acc = 0.0;
                    for f in 0..D {
                        acc += ha[f] * gc[f * D + e];
                    }
                    t[a * D + e] = acc;
                }
            }
            let mut idx = 0;
            for a in 0..k {
                let ta = &t[a * D..(a + 1) * D];
                for b in 0..=a {
                    let hb = &h[b * D..(b + 1) * D];
                    let mut acc = 0.0;
                    for e in 0..D {
                        acc += ta[e] * hb[e];
                    }
                    values[pos[idx]] += acc;
                    idx += 1;
                }
            }
        }
    }
}
