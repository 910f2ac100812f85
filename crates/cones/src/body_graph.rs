//! The sparsity pattern of the velocity-space matrices `M + H G Hᵀ` (G block diagonal, one
//! block per contact) and their refill: M's pattern and one clique per contact, the pattern
//! of the body graph. SAP's Newton matrix ([`crate::global_sap`]) and the interior point's
//! reduced KKT matrix ([`crate::global_ipm`]) are both of this form.

use perp_core::linear::Row;
use perp_core::Matrix;

/// The pattern of `M + H G Hᵀ` (lower triangle, compressed columns, rows sorted) and where
/// each entry of M and of each contact's clique goes.
#[derive(Clone, Debug, Default)]
pub(crate) struct BodyGraph {
    pub(crate) col_ptr: Vec<usize>,
    pub(crate) row_idx: Vec<usize>,
    /// Positions of the diagonal entries (always in the pattern).
    pub(crate) diag: Vec<usize>,
    /// M's lower entries: (position, value).
    m_pos: Vec<(usize, f64)>,
    /// Per contact: its velocities (sorted), `H[dofs[a], b]` (b: the contact's row) at
    /// `a·p + b`, and the positions of its clique's lower entries `(a, b ≤ a)` at
    /// `a(a+1)/2 + b`.
    contacts: Vec<(Vec<usize>, Vec<f64>, Vec<usize>)>,
    /// Per contact: its number of rows p and where its p × p block of G starts.
    blocks: Vec<(usize, usize)>,
}

impl BodyGraph {
    /// The pattern for the `n × n` matrix M and the contacts `(first row, rows)` of `rows`
    /// (the rows of Hᵀ: `(dof, value)`).
    pub(crate) fn new(m: &Matrix, n: usize, contacts: &[(usize, usize)], rows: &[Row]) -> BodyGraph {
        let mut cols: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mcsc = m.to_csr().to_csc();
        let mut m_entries = Vec::new();
        for (j, col) in cols.iter_mut().enumerate() {
            if let Some(c) = mcsc.outer_view(j) {
                for (i, &v) in c.iter() {
                    if i >= j {
                        col.push(i);
                        m_entries.push((i, j, v));
                    }
                }
            }
            // The diagonal always (the matrices are positive definite).
            col.push(j);
        }
        let mut cliques = Vec::with_capacity(contacts.len());
        let mut blocks = Vec::with_capacity(contacts.len());
        let mut glen = 0;
        for &(first, p) in contacts {
            let rows = &rows[first..first + p];
            let mut dofs: Vec<usize> = rows.iter().flat_map(|r| r.0.iter().map(|&(j, _)| j)).collect();
            dofs.sort_unstable();
            dofs.dedup();
            let mut h = vec![0.0; dofs.len() * p];
            for (b, row) in rows.iter().enumerate() {
                for &(j, v) in &row.0 {
                    let a = dofs.binary_search(&j).unwrap_or(0);
                    h[a * p + b] += v;
                }
            }
            for (a, &ja) in dofs.iter().enumerate() {
                for &jb in &dofs[..=a] {
                    cols[jb].push(ja);
                }
            }
            cliques.push((dofs, h, Vec::new()));
            blocks.push((p, glen));
            glen += p * p;
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
        let diag = (0..n).map(|j| pos(j, j)).collect();
        for (dofs, _, p) in &mut cliques {
            for (a, &ja) in dofs.iter().enumerate() {
                for &jb in &dofs[..=a] {
                    p.push(pos(ja, jb));
                }
            }
        }
        BodyGraph { col_ptr, row_idx, diag, m_pos, contacts: cliques, blocks }
    }

    /// Where contact c's p × p block of G starts in the `g` that [`BodyGraph::fill`] reads
    /// (the blocks one after the other, row-major).
    pub(crate) fn block(&self, c: usize) -> (usize, usize) {
        self.blocks[c]
    }

    /// The length of G's storage.
    pub(crate) fn g_len(&self) -> usize {
        self.blocks.last().map_or(0, |&(p, s)| s + p * p)
    }

    /// The values of `M + H G Hᵀ` (G: the contacts' blocks, see [`BodyGraph::block`]); `t` is
    /// kept storage.
    pub(crate) fn fill(&self, g: &[f64], values: &mut Vec<f64>, t: &mut Vec<f64>) {
        values.clear();
        values.resize(self.row_idx.len(), 0.0);
        for &(p, v) in &self.m_pos {
            values[p] += v;
        }
        for (c, &(p, start)) in self.blocks.iter().enumerate() {
            let gc = &g[start..start + p * p];
            if gc.iter().all(|&x| x == 0.0) {
                continue;
            }
            // The common sizes with the products unrolled.
            match p {
                3 => self.add_clique::<3>(c, gc, values, t),
                2 => self.add_clique::<2>(c, gc, values, t),
                1 => self.add_clique::<1>(c, gc, values, t),
                _ => self.add_clique_dyn(c, p, gc, values, t),
            }
        }
    }

    /// `H_c G_c H_cᵀ` of contact c (of dimension `D`) into `values`: `T = H_c G_c` (k × D),
    /// then the lower triangle of `T H_cᵀ`.
    fn add_clique<const D: usize>(&self, c: usize, gc: &[f64], values: &mut [f64], t: &mut Vec<f64>) {
        let (dofs, h, pos) = &self.contacts[c];
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

    /// [`BodyGraph::add_clique`] for any dimension p.
    fn add_clique_dyn(&self, c: usize, p: usize, gc: &[f64], values: &mut [f64], t: &mut Vec<f64>) {
        let (dofs, h, pos) = &self.contacts[c];
        let k = dofs.len();
        t.clear();
        t.resize(k * p, 0.0);
        for a in 0..k {
            for e in 0..p {
                t[a * p + e] = (0..p).map(|f| h[a * p + f] * gc[f * p + e]).sum();
            }
        }
        let mut idx = 0;
        for a in 0..k {
            for b in 0..=a {
                values[pos[idx]] += (0..p).map(|e| t[a * p + e] * h[b * p + e]).sum::<f64>();
                idx += 1;
            }
        }
    }
}
