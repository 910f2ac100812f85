//! The fixed structure of the global Newton matrix of one problem (where each entry goes),
//! its fill, and the regularizations tried when it is singular.

use super::*;

/// The fixed structure of the Newton matrix of one problem: where each entry goes.
pub(super) struct Structure {
    pub(super) n: usize,
    pub(super) d: usize,
    pub(super) col_ptr: Vec<usize>,
    pub(super) row_idx: Vec<usize>,
    /// Per dof j: the contacts touching it and `H[j, i·d + b]` for b < d.
    pub(super) dof_contacts: Vec<Vec<(usize, [f64; MAX_DIM])>>,
    /// H by columns: the contact rows `J = Hᵀ`.
    pub(super) h_cols: Vec<Row>,
    /// M by columns.
    pub(super) m_cols: Vec<Vec<(usize, f64)>>,
}

impl Structure {
    pub(super) fn new(g: &GlobalFrictionContactProblem) -> Structure {
        let (n, m, d) = (g.dofs(), g.size(), g.dim);
        let mcsc = g.m.to_csr().to_csc();
        let m_cols: Vec<Vec<(usize, f64)>> = (0..n)
            .map(|j| mcsc.outer_view(j).map(|c| c.iter().map(|(i, &v)| (i, v)).collect()).unwrap_or_default())
            .collect();
        let h_cols = g.contact_rows();
        let mut dof_contacts: Vec<Vec<(usize, [f64; MAX_DIM])>> = vec![Vec::new(); n];
        for (c, col) in h_cols.iter().enumerate() {
            let (i, b) = (c / d, c % d);
            for &(j, v) in &col.0 {
                let list = &mut dof_contacts[j];
                match list.last_mut() {
                    Some((k, h)) if *k == i => h[b] += v,
                    _ => {
                        let mut h = [0.0; MAX_DIM];
                        h[b] = v;
                        list.push((i, h));
                    }
                }
            }
        }
        // Contacts in ascending order per dof (H's columns are visited in contact order, so
        // the lists already are; a dof listed twice for one contact was merged above).
        let mut col_ptr = Vec::with_capacity(n + m + 1);
        let mut row_idx = Vec::new();
        col_ptr.push(0);
        for j in 0..n {
            row_idx.extend(m_cols[j].iter().map(|&(i, _)| i));
            for &(i, _) in &dof_contacts[j] {
                row_idx.extend((0..d).map(|a| n + i * d + a));
            }
            col_ptr.push(row_idx.len());
        }
        for (c, col) in h_cols.iter().enumerate() {
            let i = c / d;
            row_idx.extend(col.0.iter().map(|&(j, _)| j));
            row_idx.extend((0..d).map(|a| n + i * d + a));
            col_ptr.push(row_idx.len());
        }
        Structure { n, d, col_ptr, row_idx, dof_contacts, h_cols, m_cols }
    }

    /// The Newton matrix's values in the order of `row_idx`, with `delta` added to the
    /// diagonal of the `J_r` block; in the proximal mode (σ > 0) the r columns are those of
    /// `Φ(r, Hᵀ v + b + σ (r − r_ref))`, `J_r + σ J_u`.
    pub(super) fn fill(&self, jr: &[f64], ju: &[f64], delta: f64, sigma: f64, values: &mut Vec<f64>) {
        let (n, d, dd) = (self.n, self.d, self.d * self.d);
        values.clear();
        for j in 0..n {
            values.extend(self.m_cols[j].iter().map(|&(_, v)| v));
            for &(i, h) in &self.dof_contacts[j] {
                let blk = &ju[i * dd..(i + 1) * dd];
                values.extend((0..d).map(|a| (0..d).map(|b| blk[a * d + b] * h[b]).sum::<f64>()));
            }
        }
        for (c, col) in self.h_cols.iter().enumerate() {
            let (i, b) = (c / d, c % d);
            values.extend(col.0.iter().map(|&(_, v)| -v));
            let (blk, bu) = (&jr[i * dd..(i + 1) * dd], &ju[i * dd..(i + 1) * dd]);
            values.extend(
                (0..d).map(|a| blk[a * d + b] + sigma * bu[a * d + b] + if a == b { delta } else { 0.0 }),
            );
        }
    }
}

/// The regularizations tried on the `J_r` block's diagonal, in turn, when the Newton matrix
/// is singular (Φ is dimensionless in r: these are relative to the identity of a separated
/// contact's block).
pub(super) const DELTAS: [f64; 6] = [0.0, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2];

impl Structure {
    /// `‖K x + F‖ / ‖F‖` (K the matrix of `values`): how well a solve answered, the check
    /// against factors of a numerically singular matrix (whose solves are finite garbage).
    pub(super) fn relative_residual(&self, values: &[f64], x: &[f64], f: &[f64]) -> f64 {
        let mut kx = f.to_vec();
        for (j, &xj) in x.iter().enumerate() {
            for k in self.col_ptr[j]..self.col_ptr[j + 1] {
                kx[self.row_idx[k]] += values[k] * xj;
            }
        }
        let fn2 = measures::norm2(f);
        let r = measures::norm2(&kx);
        if fn2 > 0.0 {
            r / fn2
        } else {
            r
        }
    }
}
