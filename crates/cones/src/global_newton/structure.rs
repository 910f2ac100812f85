//! The fixed structure of the global Newton matrix of one problem (where each entry goes),
//! its fill, and the regularizations tried when it is singular.

use super::*;

/// The fixed structure of the Newton matrix of one problem: where each entry goes.
///
/// [`GlobalNewton`] keeps it from solve to solve ([`Structure::renew`]): the next problem's
/// values go into the same storage, and the pattern is rebuilt only when M's or H's pattern
/// changed (a time step whose contact graph repeats keeps it).
#[derive(Clone, Debug, Default)]
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
    /// The rows of the problem before (their storage reused).
    spare_rows: Vec<Row>,
}

impl Structure {
    /// The structure of `g` in `kept`'s storage (a fresh one when `None`): the same numbers
    /// in the same places as a fresh structure's, the pattern (`col_ptr`, `row_idx`) kept
    /// when M's and H's patterns are `kept`'s.
    pub(super) fn renew(kept: Option<Structure>, g: &GlobalFrictionContactProblem) -> Structure {
        let mut st = kept.unwrap_or_default();
        let (n, m, d) = (g.dofs(), g.size(), g.dim);
        let mut same = st.n == n && st.d == d && st.h_cols.len() == m && st.col_ptr.len() == n + m + 1;
        let mcsc = g.m.to_csr().to_csc();
        st.m_cols.resize_with(n, Vec::new);
        for (j, col) in st.m_cols.iter_mut().enumerate() {
            let new = mcsc.outer_view(j);
            let new = new.iter().flat_map(|c| c.iter().map(|(i, &v)| (i, v)));
            if same {
                same =
                    new.clone().count() == col.len() && new.clone().zip(col.iter()).all(|(a, b)| a.0 == b.0);
            }
            col.clear();
            col.extend(new);
        }
        g.contact_rows_into(&mut st.spare_rows);
        same = same
            && st
                .spare_rows
                .iter()
                .zip(&st.h_cols)
                .all(|(a, b)| a.0.len() == b.0.len() && a.0.iter().zip(&b.0).all(|(x, y)| x.0 == y.0));
        std::mem::swap(&mut st.spare_rows, &mut st.h_cols);
        st.dof_contacts.resize_with(n, Vec::new);
        st.dof_contacts.iter_mut().for_each(Vec::clear);
        for (c, col) in st.h_cols.iter().enumerate() {
            let (i, b) = (c / d, c % d);
            for &(j, v) in &col.0 {
                let list = &mut st.dof_contacts[j];
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
        (st.n, st.d) = (n, d);
        if same {
            return st;
        }
        // Contacts in ascending order per dof (H's columns are visited in contact order, so
        // the lists already are; a dof listed twice for one contact was merged above).
        let (col_ptr, row_idx) = (&mut st.col_ptr, &mut st.row_idx);
        col_ptr.clear();
        row_idx.clear();
        col_ptr.push(0);
        for j in 0..n {
            row_idx.extend(st.m_cols[j].iter().map(|&(i, _)| i));
            for &(i, _) in &st.dof_contacts[j] {
                row_idx.extend((0..d).map(|a| n + i * d + a));
            }
            col_ptr.push(row_idx.len());
        }
        for (c, col) in st.h_cols.iter().enumerate() {
            let i = c / d;
            row_idx.extend(col.0.iter().map(|&(j, _)| j));
            row_idx.extend((0..d).map(|a| n + i * d + a));
            col_ptr.push(row_idx.len());
        }
        st
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
