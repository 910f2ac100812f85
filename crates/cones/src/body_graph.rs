//! The sparsity pattern of the velocity-space matrices `M + H G Hᵀ` (G block diagonal, one
//! block per contact) and their refill: M's pattern and one clique per contact, the pattern
//! of the body graph. SAP's Newton matrix ([`crate::global_sap`]) and the interior point's
//! reduced KKT matrix ([`crate::global_ipm`]) are both of this form.
//!
//! The pattern is stored in its fill-reducing order (approximate minimum degree, computed
//! once when the graph is built): every refill writes the values where the factorization
//! reads them, so the factorization ([`Ordering::Given`]) permutes neither the matrix nor
//! the right-hand sides; [`BodyGraph::solve`] permutes the one vector it solves for.

use crate::global::{ContactRows, GlobalFrictionContactProblem};
use perp_core::linear::{
    amd_order, Breakdown, Ordering, PcgOutcome, PcgWork, SparseCholesky, SparseRows, Supernodal, SymLower,
};
use perp_core::Matrix;

/// The pattern of `M + H G Hᵀ` (lower triangle, compressed columns, rows sorted, in the
/// order `perm`) and where each entry of M and of each contact's clique goes.
#[derive(Clone, Debug, Default)]
pub(crate) struct BodyGraph {
    pub(crate) col_ptr: Vec<usize>,
    pub(crate) row_idx: Vec<usize>,
    /// `perm[k]`: the velocity at position k of the ordered pattern.
    perm: Vec<usize>,
    /// Positions of the diagonal entries (always in the pattern).
    pub(crate) diag: Vec<usize>,
    /// M's lower entries: (position, value).
    m_pos: Vec<(usize, f64)>,
    /// Per contact, one after the other (the fill reads them in order): k, its number of
    /// velocities, then `H[dofs[a], b]` (b: the contact's row) at `a·p + b` in `h`, and the
    /// positions of its clique's lower entries `(a, b ≤ a)` at `a(a+1)/2 + b` in `pos`.
    sizes: Vec<usize>,
    h: Vec<f64>,
    pos: Vec<usize>,
    /// Per contact: its number of rows p and where its p × p block of G starts.
    blocks: Vec<(usize, usize)>,
    /// What the pattern was built from, to tell a repeat ([`BodyGraph::update`]): the
    /// contacts' velocities one after the other (their counts are `sizes`) and M's lower
    /// entries (row, column).
    dofs: Vec<usize>,
    m_key: Vec<(usize, usize)>,
    /// The next problem's cliques and M's entries, built here and swapped in (their storage
    /// kept from update to update).
    next: Cliques,
    m_entries: Vec<(usize, usize, f64)>,
    /// How many times [`BodyGraph::update`] found the same structure and kept the ordered
    /// pattern (no ordering, no pattern built).
    pub(crate) reuses: usize,
}

impl BodyGraph {
    /// The graph of [`BodyGraph::update`]'s arguments, fresh.
    #[cfg(test)]
    pub(crate) fn new(
        m: &Matrix,
        n: usize,
        contacts: &[(usize, usize)],
        rows: &(impl SparseRows + ?Sized),
    ) -> BodyGraph {
        let mut graph = BodyGraph::default();
        graph.update(m, n, contacts, rows);
        graph
    }

    /// Makes this the graph of a new problem: the `n × n` matrix M and the contacts
    /// `(first row, rows)` of `rows` (the rows of Hᵀ: `(dof, value)`). When M's pattern and
    /// every contact's velocities are the same as the last problem's (a time step whose
    /// contact graph repeats), only the values change and the ordering and the ordered
    /// pattern are kept — the same pattern a fresh graph would build, so the factorizations
    /// are the same bit for bit. Returns whether it was kept.
    pub(crate) fn update(
        &mut self,
        m: &Matrix,
        n: usize,
        contacts: &[(usize, usize)],
        rows: &(impl SparseRows + ?Sized),
    ) -> bool {
        let mut next = std::mem::take(&mut self.next);
        next.fill(contacts, rows);
        let mut m_entries = std::mem::take(&mut self.m_entries);
        lower_entries_into(m, n, &mut m_entries);
        let same = n == self.perm.len()
            && next.sizes == self.sizes
            && next.dofs == self.dofs
            && m_entries.len() == self.m_key.len()
            && m_entries.iter().zip(&self.m_key).all(|(&(i, j, _), &key)| (i, j) == key);
        if same {
            // The positions of M's entries follow the same order as the key.
            for (slot, &(_, _, v)) in self.m_pos.iter_mut().zip(&m_entries) {
                slot.1 = v;
            }
            std::mem::swap(&mut self.h, &mut next.h);
            std::mem::swap(&mut self.blocks, &mut next.blocks);
            (self.next, self.m_entries) = (next, m_entries);
            self.reuses += 1;
            return true;
        }
        let Cliques { sizes, blocks, dofs, h: hs, .. } = next;
        let (col_ptr, row_idx) = natural_pattern(n, &dofs, &sizes, &m_entries);
        // Its ordering, and the pattern in that order.
        let perm = amd_order(n, &col_ptr, &row_idx).unwrap_or_else(|_| (0..n).collect());
        let (inv, col_ptr, row_idx) = permuted(n, (&col_ptr, &row_idx), &perm);
        let pos = |i: usize, j: usize| {
            let (i, j) = (inv[i].max(inv[j]), inv[i].min(inv[j]));
            let s = &row_idx[col_ptr[j]..col_ptr[j + 1]];
            col_ptr[j] + s.binary_search(&i).unwrap_or(0)
        };
        let m_pos = m_entries.iter().map(|&(i, j, v)| (pos(i, j), v)).collect();
        let diag = (0..n).map(|j| pos(j, j)).collect();
        let mut ps = Vec::with_capacity(sizes.iter().map(|k| k * (k + 1) / 2).sum());
        let mut start = 0;
        for &k in &sizes {
            let mine = &dofs[start..start + k];
            for (a, &ja) in mine.iter().enumerate() {
                for &jb in &mine[..=a] {
                    ps.push(pos(ja, jb));
                }
            }
            start += k;
        }
        let m_key = m_entries.iter().map(|&(i, j, _)| (i, j)).collect();
        *self = BodyGraph {
            col_ptr,
            row_idx,
            perm,
            diag,
            m_pos,
            sizes,
            h: hs,
            pos: ps,
            blocks,
            dofs,
            m_key,
            next: Cliques::default(),
            m_entries,
            reuses: self.reuses,
        };
        false
    }

    /// [`BodyGraph::update`] for the global problem `g` whose contact rows are `rows`
    /// ([`GlobalFrictionContactProblem::contact_rows_in`]): M and one clique per contact.
    pub(crate) fn update_global(&mut self, g: &GlobalFrictionContactProblem, rows: &ContactRows) -> bool {
        let d = g.dim;
        let cliques: Vec<(usize, usize)> = (0..g.contacts()).map(|c| (c * d, d)).collect();
        match rows {
            ContactRows::Columns(c) => self.update(&g.m, g.dofs(), &cliques, c),
            ContactRows::Rows(r) => self.update(&g.m, g.dofs(), &cliques, *r),
        }
    }

    /// The fill-reducing order of the velocities (`order()[k]`: the velocity at position k).
    pub(crate) fn order(&self) -> &[usize] {
        &self.perm
    }

    /// The factorization for this graph's matrices: faer's supernodal Cholesky (see
    /// [`Supernodal`] for why), of the matrix as ordered.
    pub(crate) fn cholesky() -> SparseCholesky {
        SparseCholesky::with_supernodal(Supernodal::Always).with_ordering(Ordering::Given)
    }

    /// Factors the matrix of `values` (a [`BodyGraph::fill`]) with `chol` (from
    /// [`BodyGraph::cholesky`]).
    pub(crate) fn factor(&self, chol: &mut SparseCholesky, values: &[f64]) -> Result<(), Breakdown> {
        chol.factor(self.perm.len(), &self.col_ptr, &self.row_idx, values)
    }

    /// Solves with the last [`BodyGraph::factor`] in place: `x` in the velocities' order;
    /// `t` is kept storage.
    pub(crate) fn solve(
        &self,
        chol: &mut SparseCholesky,
        x: &mut [f64],
        t: &mut Vec<f64>,
    ) -> Result<(), Breakdown> {
        let n = self.perm.len();
        if x.len() != n {
            return Err(Breakdown::NotFactored);
        }
        t.clear();
        t.extend(self.perm.iter().map(|&j| x[j]));
        chol.solve_in_place(t, n, 1)?;
        for (&j, &v) in self.perm.iter().zip(t.iter()) {
            x[j] = v;
        }
        Ok(())
    }

    /// Solves the matrix of `values` (a [`BodyGraph::fill`]) in place by conjugate gradients
    /// preconditioned with `chol`'s last factorization (of an earlier matrix of this pattern:
    /// [`SparseCholesky::pcg`]), `x` in the velocities' order: the right-hand side on entry,
    /// the last iterate on return; `t` and `b` are kept storage. `limits` are `(rel_tol,
    /// max_iter)`, with [`SparseCholesky::pcg`]'s rules (it also gives a stale factor up early).
    pub(crate) fn pcg(
        &self,
        chol: &mut SparseCholesky,
        values: &[f64],
        x: &mut [f64],
        (t, b, work): (&mut Vec<f64>, &mut Vec<f64>, &mut PcgWork),
        limits: (f64, usize),
    ) -> Result<PcgOutcome, Breakdown> {
        let n = self.perm.len();
        if x.len() != n {
            return Err(Breakdown::NotFactored);
        }
        b.clear();
        b.extend(self.perm.iter().map(|&j| x[j]));
        t.clear();
        t.resize(n, 0.0);
        let a = SymLower { col_ptr: &self.col_ptr, row_idx: &self.row_idx, values };
        let out = chol.pcg(a, b, t, limits, work)?;
        for (&j, &v) in self.perm.iter().zip(t.iter()) {
            x[j] = v;
        }
        Ok(out)
    }

    /// `x` (velocities' order) in the graph's order, into `out`.
    pub(crate) fn to_ordered(&self, x: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.extend(self.perm.iter().map(|&j| x[j]));
    }

    /// `x += y`, `y` in the graph's order and `x` in the velocities'.
    pub(crate) fn add_from_ordered(&self, y: &[f64], x: &mut [f64]) {
        for (&j, &v) in self.perm.iter().zip(y) {
            x[j] += v;
        }
    }

    /// The entries of the lower triangle: (row, column) in the velocities' order (either
    /// triangle), and the position of the value.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        (0..self.perm.len()).flat_map(move |j| {
            (self.col_ptr[j]..self.col_ptr[j + 1]).map(move |k| (self.perm[self.row_idx[k]], self.perm[j], k))
        })
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
        let (mut h, mut pos) = (&self.h[..], &self.pos[..]);
        for (&(p, start), &k) in self.blocks.iter().zip(&self.sizes) {
            let (hc, rest) = h.split_at(k * p);
            let (pc, prest) = pos.split_at(k * (k + 1) / 2);
            (h, pos) = (rest, prest);
            let gc = &g[start..start + p * p];
            if gc.iter().all(|&x| x == 0.0) {
                continue;
            }
            // The common sizes with the products unrolled.
            match p {
                3 => add_clique::<3>(hc, gc, pc, values, t),
                2 => add_clique::<2>(hc, gc, pc, values, t),
                1 => add_clique::<1>(hc, gc, pc, values, t),
                _ => add_clique_dyn(p, hc, gc, pc, values, t),
            }
        }
    }
}

/// `H_c G_c H_cᵀ` of one contact (of dimension `D`, its `H_c` rows `h`, its clique's
/// positions `pos`) into `values`: `T = H_c G_c` (k × D), then the lower triangle of `T H_cᵀ`.
fn add_clique<const D: usize>(h: &[f64], gc: &[f64], pos: &[usize], values: &mut [f64], t: &mut Vec<f64>) {
    let mut g = [[0.0; D]; D];
    for (f, row) in g.iter_mut().enumerate() {
        row.copy_from_slice(&gc[f * D..(f + 1) * D]);
    }
    t.clear();
    t.resize(h.len(), 0.0);
    for (ha, ta) in h.chunks_exact(D).zip(t.chunks_exact_mut(D)) {
        for e in 0..D {
            let mut acc = 0.0;
            for f in 0..D {
                acc += ha[f] * g[f][e];
            }
            ta[e] = acc;
        }
    }
    let mut pos = pos.iter();
    for (a, ta) in t.chunks_exact(D).enumerate() {
        for (hb, &k) in h.chunks_exact(D).take(a + 1).zip(&mut pos) {
            let mut acc = 0.0;
            for e in 0..D {
                acc += ta[e] * hb[e];
            }
            values[k] += acc;
        }
    }
}

/// [`add_clique`] for any dimension p.
fn add_clique_dyn(p: usize, h: &[f64], gc: &[f64], pos: &[usize], values: &mut [f64], t: &mut Vec<f64>) {
    let k = h.len() / p;
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

/// The contacts' cliques: per contact its velocities (sorted, one contact's after the other's
/// in `dofs`, `sizes[c]` of them), its H rows by them (`h`, velocity-major, p per velocity)
/// and its block `(p, offset)` in the cones' p × p storage.
#[derive(Clone, Debug, Default)]
struct Cliques {
    sizes: Vec<usize>,
    blocks: Vec<(usize, usize)>,
    dofs: Vec<usize>,
    h: Vec<f64>,
    /// Scratch: one contact's velocities.
    mine: Vec<usize>,
}

/// Each of `nc` contacts of dimension `d` (contact c: rows `c·d .. (c+1)·d` of `rows`): its
/// velocities, ascending, one contact after the other (`starts[c]..starts[c + 1]`), and its
/// H rows on them (`H[dofs[a], c·d + b]` at `a·d + b` from `d · starts[c]`), as the body
/// graph's cliques read them ([`Cliques::fill`]).
pub(crate) fn contact_dofs(
    rows: &(impl SparseRows + ?Sized),
    d: usize,
    nc: usize,
) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
    let contacts: Vec<(usize, usize)> = (0..nc).map(|c| (c * d, d)).collect();
    let mut cliques = Cliques::default();
    cliques.fill(&contacts, rows);
    let mut starts = Vec::with_capacity(nc + 1);
    starts.push(0);
    starts.extend(cliques.sizes.iter().scan(0, |e, &k| {
        *e += k;
        Some(*e)
    }));
    (starts, cliques.dofs, cliques.h)
}

impl Cliques {
    /// The cliques of `contacts` (`(first row, rows)` of `rows`), in this storage.
    fn fill(&mut self, contacts: &[(usize, usize)], rows: &(impl SparseRows + ?Sized)) {
        let Cliques { sizes, blocks, dofs, h: hs, mine } = self;
        sizes.clear();
        blocks.clear();
        dofs.clear();
        hs.clear();
        let mut glen = 0;
        for &(first, p) in contacts {
            let h0 = hs.len();
            if let Some(k) = same_sorted_indices(rows, first, p) {
                // Every row on the same ascending velocities (a rigid contact's usual rows):
                // H by velocity read off in place, each entry added to 0 as below.
                dofs.extend(rows.entries(first).map(|(j, _)| j));
                hs.extend((0..k).flat_map(|a| (first..first + p).map(move |b| 0.0 + rows.entry(b, a).1)));
                sizes.push(k);
            } else {
                mine.clear();
                mine.extend((first..first + p).flat_map(|b| rows.entries(b).map(|(j, _)| j)));
                mine.sort_unstable();
                mine.dedup();
                dofs.extend_from_slice(mine);
                hs.resize(h0 + mine.len() * p, 0.0);
                for b in 0..p {
                    // A row's velocities usually ascend (H by columns): found by walking
                    // `mine` along them, by bisection when one does not.
                    let mut a = 0;
                    for (j, v) in rows.entries(first + b) {
                        while a < mine.len() && mine[a] < j {
                            a += 1;
                        }
                        if mine.get(a) != Some(&j) {
                            a = mine.binary_search(&j).unwrap_or(0);
                        }
                        hs[h0 + a * p + b] += v;
                    }
                }
                sizes.push(mine.len());
            }
            blocks.push((p, glen));
            glen += p * p;
        }
    }
}

/// The common length of rows `first..first + p` of `rows` when they all have the same
/// velocities in the same strictly ascending order (no velocity twice).
fn same_sorted_indices(rows: &(impl SparseRows + ?Sized), first: usize, p: usize) -> Option<usize> {
    if p == 0 {
        return None;
    }
    let k = rows.len_of(first);
    let ascending = (1..k).all(|a| rows.entry(first, a - 1).0 < rows.entry(first, a).0);
    let same = (first + 1..first + p)
        .all(|b| rows.len_of(b) == k && (0..k).all(|a| rows.entry(b, a).0 == rows.entry(first, a).0));
    (ascending && same).then_some(k)
}

/// M's lower entries `(i, j, value)`, column by column, into `out`.
fn lower_entries_into(m: &Matrix, n: usize, out: &mut Vec<(usize, usize, f64)>) {
    let mcsc = match m {
        Matrix::Sparse(s) if s.is_csc() => std::borrow::Cow::Borrowed(s),
        Matrix::Sparse(s) => std::borrow::Cow::Owned(s.to_csc()),
        dense => std::borrow::Cow::Owned(dense.to_csr().to_csc()),
    };
    out.clear();
    for j in 0..n {
        if let Some(c) = mcsc.outer_view(j) {
            out.extend(c.iter().filter(|&(i, _)| i >= j).map(|(i, &v)| (i, j, v)));
        }
    }
}

/// The natural pattern's lower triangle, column by column (`col_ptr`, sorted `row_idx`): the
/// diagonal, M's lower entries and one clique per contact (`sizes[c]` velocities of `dofs`).
fn natural_pattern(
    n: usize,
    dofs: &[usize],
    sizes: &[usize],
    m_entries: &[(usize, usize, f64)],
) -> (Vec<usize>, Vec<usize>) {
    // The contacts touching each velocity (compressed).
    let mut inc_ptr = vec![0usize; n + 1];
    for &j in dofs {
        inc_ptr[j + 1] += 1;
    }
    for j in 0..n {
        inc_ptr[j + 1] += inc_ptr[j];
    }
    let (mut inc, mut next) = (vec![(0usize, 0usize); dofs.len()], inc_ptr.clone());
    let mut start = 0;
    for &k in sizes {
        for &j in &dofs[start..start + k] {
            inc[next[j]] = (start, k);
            next[j] += 1;
        }
        start += k;
    }
    // Column by column; `mark` keeps duplicates out.
    let (mut col_ptr, mut row_idx) = (Vec::with_capacity(n + 1), Vec::new());
    let mut mark = vec![usize::MAX; n];
    let mut mk = m_entries.iter().peekable();
    col_ptr.push(0);
    for j in 0..n {
        let first = row_idx.len();
        // The diagonal always (the matrices are positive definite).
        mark[j] = j;
        row_idx.push(j);
        while let Some(&(i, _, _)) = mk.next_if(|e| e.1 == j) {
            if mark[i] != j {
                mark[i] = j;
                row_idx.push(i);
            }
        }
        for &(s, k) in &inc[inc_ptr[j]..inc_ptr[j + 1]] {
            for &i in &dofs[s..s + k] {
                if i > j && mark[i] != j {
                    mark[i] = j;
                    row_idx.push(i);
                }
            }
        }
        row_idx[first..].sort_unstable();
        col_ptr.push(row_idx.len());
    }
    (col_ptr, row_idx)
}

/// The lower pattern `(col_ptr, row_idx)` in the order `perm` (new index k is old `perm[k]`):
/// the inverse permutation and the permuted pattern's lower triangle, rows sorted.
fn permuted(
    n: usize,
    (col_ptr, row_idx): (&[usize], &[usize]),
    perm: &[usize],
) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let mut inv = vec![0; n];
    for (k, &j) in perm.iter().enumerate() {
        inv[j] = k;
    }
    let mut new_ptr = vec![0usize; n + 1];
    for j in 0..n {
        for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
            new_ptr[inv[i].min(inv[j]) + 1] += 1;
        }
    }
    for j in 0..n {
        new_ptr[j + 1] += new_ptr[j];
    }
    let mut new_idx = vec![0usize; row_idx.len()];
    let mut next = new_ptr[..n].to_vec();
    for j in 0..n {
        for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
            let (a, b) = (inv[i].max(inv[j]), inv[i].min(inv[j]));
            new_idx[next[b]] = a;
            next[b] += 1;
        }
    }
    for j in 0..n {
        new_idx[new_ptr[j]..new_ptr[j + 1]].sort_unstable();
    }
    (inv, new_ptr, new_idx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use perp_core::linear::{Columns, Row};

    /// M's triplets (12 velocities, two bodies) and the rows of three contacts of 3, 2 and 1
    /// rows; `scale` scales M and H's values (the same structure).
    fn sample(scale: f64) -> (Vec<(usize, usize, f64)>, Vec<Row>) {
        let mut t = Vec::new();
        for j in 0..12 {
            t.push((j, j, scale * (3.0 + (j % 4) as f64)));
            if j % 6 != 5 {
                t.push((j, j + 1, scale * 0.4));
                t.push((j + 1, j, scale * 0.4));
            }
        }
        let val = |k: usize| scale * (0.3 + ((7 * k) % 11) as f64 / 10.0);
        let row =
            |dofs: &[usize], s: usize| Row(dofs.iter().enumerate().map(|(a, &j)| (j, val(s + a))).collect());
        let rows = vec![
            row(&[0, 2, 7, 9], 0),
            row(&[1, 2, 8], 5),
            row(&[0, 1, 2, 6, 7, 8], 9),
            row(&[3, 4], 20),
            row(&[4, 5, 3], 23),
            row(&[11, 10], 30),
        ];
        (t, rows)
    }

    const CONTACTS: [(usize, usize); 3] = [(0, 3), (3, 2), (5, 1)];

    /// A graph updated to a problem of the same structure keeps its ordered pattern and
    /// fills exactly what a graph built afresh fills; a problem of another structure (a
    /// contact that touches other velocities) is built afresh.
    #[test]
    fn an_update_keeps_the_pattern_only_while_the_structure_repeats() {
        let n = 12;
        let (t, rows) = sample(1.0);
        let mut kept = BodyGraph::new(&Matrix::from_triplets(n, n, &t).unwrap(), n, &CONTACTS, &rows[..]);
        let g: Vec<f64> = (0..kept.g_len()).map(|k| 0.5 + (k % 5) as f64).collect();
        let (mut a, mut b, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
        let (t2, mut rows2) = sample(1.7);
        let m2 = Matrix::from_triplets(n, n, &t2).unwrap();
        assert!(kept.update(&m2, n, &CONTACTS, &rows2[..]));
        kept.fill(&g, &mut a, &mut scratch);
        BodyGraph::new(&m2, n, &CONTACTS, &rows2[..]).fill(&g, &mut b, &mut scratch);
        assert_eq!(kept.reuses, 1);
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()) && a.len() == b.len());
        rows2[4].0[0].0 = 9;
        assert!(!kept.update(&m2, n, &CONTACTS, &rows2[..]));
        let fresh = BodyGraph::new(&m2, n, &CONTACTS, &rows2[..]);
        assert_eq!((&kept.col_ptr, &kept.row_idx, &kept.perm), (&fresh.col_ptr, &fresh.row_idx, &fresh.perm));
        kept.fill(&g, &mut a, &mut scratch);
        fresh.fill(&g, &mut b, &mut scratch);
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()) && a.len() == b.len());
    }

    /// A contact whose rows share one ascending list of velocities is read off in place; the
    /// same rows with one row's entries out of order take the sorting path: the same cliques
    /// to the bit (±0 entries included), and a velocity twice is summed.
    #[test]
    fn rows_on_shared_sorted_velocities_give_the_sorting_paths_cliques() {
        let sorted = vec![
            Row(vec![(1, 0.5), (4, -0.0), (7, 0.0), (9, 2.0)]),
            Row(vec![(1, -0.0), (4, 1.5), (7, -3.0), (9, 0.25)]),
            Row(vec![(1, 1e-300), (4, 0.0), (7, -0.0), (9, -7.0)]),
            Row(vec![(2, 1.0), (3, 1.0)]),
        ];
        let contacts = [(0, 3), (3, 1)];
        assert_eq!(same_sorted_indices(&sorted[..], 0, 3), Some(4));
        let mut shuffled = sorted.clone();
        shuffled[1].0.reverse();
        assert_eq!(same_sorted_indices(&shuffled[..], 0, 3), None);
        let (mut fast, mut slow) = (Cliques::default(), Cliques::default());
        fast.fill(&contacts, &sorted[..]);
        slow.fill(&contacts, &shuffled[..]);
        let bits = |c: &Cliques| c.h.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!((&fast.sizes, &fast.dofs, &fast.blocks), (&slow.sizes, &slow.dofs, &slow.blocks));
        assert_eq!(bits(&fast), bits(&slow));
        assert_eq!(fast.h[1].to_bits(), 0.0f64.to_bits(), "0 + (−0) is +0 on both paths");
        // The same rows read in place as the columns of H (`Matrix::from_columns`).
        let Matrix::Sparse(h) = Matrix::from_columns(10, sorted.iter().map(|r| &r.0[..])).unwrap() else {
            panic!("sparse")
        };
        let mut read = Cliques::default();
        read.fill(&contacts, &Columns::of(&h).expect("stored by columns"));
        assert_eq!((&read.sizes, &read.dofs, &read.blocks), (&fast.sizes, &fast.dofs, &fast.blocks));
        assert_eq!(bits(&read), bits(&fast));
        // Refilled in the same storage with other rows: a velocity twice is summed.
        let twice = [Row(vec![(5, 1.0), (5, 2.0)])];
        fast.fill(&[(0, 1)], &twice[..]);
        assert_eq!((&fast.sizes[..], &fast.dofs[..], &fast.h[..]), (&[1][..], &[5][..], &[3.0][..]));
        // Rows on different velocities (a sphere's normal row has no rotations, its tangent
        // rows have): each entry at its velocity of the union, whether a row ascends (walked)
        // or not (bisected).
        let uneven = vec![
            Row(vec![(1, 0.5), (4, -1.0)]),
            Row(vec![(1, 2.0), (2, 3.0), (4, 4.0), (9, 5.0)]),
            Row(vec![(9, 6.0)]),
        ];
        let mut reversed = uneven.clone();
        reversed[1].0.reverse();
        let want = [0.5, 2.0, 0.0, 0.0, 3.0, 0.0, -1.0, 4.0, 0.0, 0.0, 5.0, 6.0];
        for rows in [&uneven, &reversed] {
            fast.fill(&[(0, 3)], &rows[..]);
            assert_eq!(
                (&fast.sizes[..], &fast.dofs[..], &fast.h[..]),
                (&[4][..], &[1, 2, 4, 9][..], &want[..])
            );
        }
    }

    /// Two bodies of six velocities (M with off-diagonal entries inside each body), three
    /// contacts of 3, 2 and 1 rows: the graph's matrix, read back through `entries`, is
    /// `M + Σ H_c G_c H_cᵀ` assembled densely, and its factor solves that matrix's system.
    #[test]
    fn the_ordered_graph_holds_and_solves_the_dense_matrix() {
        let n = 12;
        let (t, rows) = sample(1.0);
        let m = Matrix::from_triplets(n, n, &t).unwrap();
        let val = |k: usize| 0.3 + ((7 * k) % 11) as f64 / 10.0;
        let contacts = CONTACTS;
        let graph = BodyGraph::new(&m, n, &contacts, &rows[..]);
        // G_c = A Aᵀ + I/2, symmetric positive definite.
        let mut g = vec![0.0; graph.g_len()];
        for (c, &(_, p)) in contacts.iter().enumerate() {
            let (q, start) = graph.block(c);
            assert_eq!(q, p);
            for a in 0..p {
                for b in 0..p {
                    let s: f64 = (0..p).map(|e| val(a + 3 * e + c) * val(b + 3 * e + c)).sum();
                    g[start + a * p + b] = s + if a == b { 0.5 } else { 0.0 };
                }
            }
        }
        let (mut values, mut scratch) = (Vec::new(), Vec::new());
        graph.fill(&g, &mut values, &mut scratch);
        let mut dense = vec![0.0; n * n];
        for &(i, j, v) in &t {
            dense[i * n + j] += v;
        }
        for (c, &(first, p)) in contacts.iter().enumerate() {
            let start = graph.block(c).1;
            let mut hc = vec![0.0; n * p];
            for (b, r) in rows[first..first + p].iter().enumerate() {
                for &(j, v) in &r.0 {
                    hc[j * p + b] += v;
                }
            }
            for i in 0..n {
                for j in 0..n {
                    let s: f64 = (0..p)
                        .flat_map(|a| (0..p).map(move |b| (a, b)))
                        .map(|(a, b)| hc[i * p + a] * g[start + a * p + b] * hc[j * p + b])
                        .sum();
                    dense[i * n + j] += s;
                }
            }
        }
        let mut from_graph = vec![0.0; n * n];
        for (i, j, k) in graph.entries() {
            from_graph[i * n + j] = values[k];
            from_graph[j * n + i] = values[k];
        }
        for (a, b) in from_graph.iter().zip(&dense) {
            assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} against {b}");
        }
        let want: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
        let mut x: Vec<f64> = (0..n).map(|i| (0..n).map(|j| dense[i * n + j] * want[j]).sum()).collect();
        let mut chol = BodyGraph::cholesky();
        graph.factor(&mut chol, &values).unwrap();
        graph.solve(&mut chol, &mut x, &mut scratch).unwrap();
        for (a, b) in x.iter().zip(&want) {
            assert!((a - b).abs() < 1e-10 * b, "{a} against {b}");
        }
        assert!(graph.solve(&mut chol, &mut x[..n - 1], &mut scratch).is_err(), "a wrong length");
    }
}
