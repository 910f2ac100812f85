//! [`Islands`]: the independent parts of a [`GlobalFrictionContactProblem`].
//!
//! Two velocities are coupled when M has a nonzero entry between them or when one contact's
//! columns of H touch both; the connected components of that graph are independent problems
//! (a rigid body's velocities are coupled through M, two bodies through a contact between
//! them; a fixed ground couples nothing). A component with contacts is an *island*, solved on
//! its own ([`Islands::restrict`]); a component without contacts is *free*: its velocities are
//! `M⁻¹ f` there, the free motion. Solving the islands apart gives a solution of the whole
//! problem, each island held to the tolerance on its own scale, and lets them run in parallel
//! with a result that does not depend on the thread count.

use crate::global::GlobalFrictionContactProblem;
use perp_core::graph::UnionFind;
use perp_core::{Error, Matrix};
use sprs::CsMat;

/// One island: its velocities and its contacts, both ascending.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Island {
    /// Velocities (indices into v).
    pub dofs: Vec<usize>,
    /// Contacts (indices into μ; contact c holds the entries `dim·c .. dim·(c+1)` of r, b, u).
    pub contacts: Vec<usize>,
}

/// The islands of a global problem ([module docs](self)).
#[derive(Clone, Debug)]
pub struct Islands {
    /// The islands, in the order of their first velocity.
    pub parts: Vec<Island>,
    /// Velocities no contact reaches (ascending): `v = M⁻¹ f` there.
    pub free: Vec<usize>,
    /// Position of each velocity in its island (`usize::MAX` when free).
    local: Vec<usize>,
    /// H by columns (a contact's rows are its columns), when the problem's H is stored
    /// otherwise (`None`: the problem's own).
    h: Option<CsMat<f64>>,
}

impl GlobalFrictionContactProblem {
    /// The problem's [`Islands`]. A contact whose columns of H are all zero touches no
    /// velocity: it is an island of its own with no velocity, which no global solver takes,
    /// so then the whole problem is one island.
    ///
    /// ```
    /// use perp_cones::global::GlobalFrictionContactProblem;
    /// use perp_core::Matrix;
    /// // Three unit masses in 1-D (dim 2: normal and tangent share the velocity); contact 0
    /// // on mass 2, contact 1 on mass 0: mass 1 is free.
    /// let m = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
    /// let h = Matrix::from_triplets(3, 4, &[(2, 0, 1.0), (2, 1, 1.0), (0, 2, 1.0), (0, 3, 1.0)]).unwrap();
    /// let g = GlobalFrictionContactProblem::new(2, m, h, vec![-1.0; 3], vec![0.0; 4], vec![0.5; 2]).unwrap();
    /// let islands = g.islands();
    /// assert_eq!(islands.parts.len(), 2);
    /// assert_eq!((&islands.parts[0].dofs, &islands.parts[0].contacts), (&vec![0], &vec![1]));
    /// assert_eq!(islands.free, [1]);
    /// let first = islands.restrict(&g, &islands.parts[0]).unwrap();
    /// assert_eq!((first.dofs(), first.contacts(), first.f.as_slice()), (1, 1, &[-1.0][..]));
    /// ```
    pub fn islands(&self) -> Islands {
        let (n, d, nc) = (self.dofs(), self.dim, self.contacts());
        let converted = match &self.h {
            Matrix::Sparse(s) if s.is_csc() => None,
            Matrix::Sparse(s) => Some(s.to_csc()),
            dense => Some(dense.to_csr().to_csc()),
        };
        let h = by_columns(self, converted.as_ref()).expect("H converted unless stored by columns");
        let mut uf = UnionFind::new(n);
        for_each_nonzero(&self.m, |i, j| uf.union(i, j));
        // The first velocity each contact touches (None: a contact on no velocity), and the
        // root of its component while its columns are joined.
        let mut first = vec![None; nc];
        let mut root = 0;
        let (ptr, idx, val) = (h.indptr(), h.indices(), h.data());
        for (k, col) in h.outer_iterator().enumerate() {
            // A contact's column whose nonzeros sit where its previous column's do (a rigid
            // contact's usual rows) joins nothing new.
            if k % d != 0 && same_nonzeros((idx, val), ptr.outer_inds_sz(k - 1), ptr.outer_inds_sz(k)) {
                continue;
            }
            for (i, &v) in col.iter() {
                if v != 0.0 {
                    match first[k / d] {
                        None => {
                            first[k / d] = Some(i);
                            root = uf.root(i);
                        }
                        Some(_) => root = uf.join(root, i),
                    }
                }
            }
        }
        let comps = uf.components();
        if first.iter().any(Option::is_none) {
            let whole = Island { dofs: (0..n).collect(), contacts: (0..nc).collect() };
            return Islands { parts: vec![whole], free: Vec::new(), local: (0..n).collect(), h: converted };
        }
        // Components with a contact become islands, numbered in their own order.
        let mut island = vec![usize::MAX; comps.sizes.len()];
        let mut parts: Vec<Island> = Vec::new();
        let mut contacts_of = vec![Vec::new(); comps.sizes.len()];
        for (c, f) in first.iter().enumerate() {
            contacts_of[comps.label[f.expect("checked above")]].push(c);
        }
        let (mut free, mut local) = (Vec::new(), vec![usize::MAX; n]);
        for v in 0..n {
            let c = comps.label[v];
            if contacts_of[c].is_empty() {
                free.push(v);
                continue;
            }
            if island[c] == usize::MAX {
                island[c] = parts.len();
                let contacts = std::mem::take(&mut contacts_of[c]);
                parts.push(Island { dofs: Vec::with_capacity(comps.sizes[c]), contacts });
                // Keep the component marked as one with contacts.
                contacts_of[c].push(usize::MAX);
            }
            let p = &mut parts[island[c]];
            local[v] = p.dofs.len();
            p.dofs.push(v);
        }
        Islands { parts, free, local, h: converted }
    }
}

impl Islands {
    /// Whether the problem is one island touching every velocity (then [`Islands::restrict`]
    /// would copy it whole).
    pub fn is_whole(&self) -> bool {
        self.parts.len() == 1 && self.free.is_empty()
    }

    /// The problem of island `part` of `g` (the problem these islands were computed from): M
    /// and f restricted to its velocities, H to its velocities and contacts, b and μ to its
    /// contacts, all in ascending order. `Err` only as [`GlobalFrictionContactProblem::new`]
    /// would on the restricted data.
    pub fn restrict(
        &self,
        g: &GlobalFrictionContactProblem,
        part: &Island,
    ) -> Result<GlobalFrictionContactProblem, Error> {
        let (d, n) = (g.dim, part.dofs.len());
        let m = match &g.m {
            Matrix::Dense(a) => {
                let data: Vec<f64> =
                    part.dofs.iter().flat_map(|&i| part.dofs.iter().map(move |&j| a[(i, j)])).collect();
                Matrix::from_row_major(n, n, &data)?
            }
            // The island's velocities are closed under M's pattern: every nonzero of their
            // rows (or columns) lies in the island. Their local numbers ascend with them, so
            // each outer vector, restricted, stays in order.
            Matrix::Sparse(s) => {
                let (ptr, idx, val) = self.restricted_outer(s, &part.dofs);
                let shape = (n, n);
                Matrix::Sparse(if s.is_csr() {
                    CsMat::new(shape, ptr, idx, val)
                } else {
                    CsMat::new_csc(shape, ptr, idx, val)
                })
            }
        };
        let columns: Vec<usize> = part.contacts.iter().flat_map(|&c| d * c..d * (c + 1)).collect();
        let Some(h) = by_columns(g, self.h.as_ref()) else {
            return Err(Error::setting(
                "g (Islands::restrict)",
                "a problem whose H is not stored by columns",
                "the islands were computed from a problem whose H is: restrict that problem",
            ));
        };
        let (ptr, idx, val) = self.restricted_outer(h, &columns);
        let h = CsMat::new_csc((n, columns.len()), ptr, idx, val);
        let (mut b, mut mu) = (Vec::with_capacity(d * part.contacts.len()), Vec::new());
        for &c in &part.contacts {
            b.extend_from_slice(&g.b[d * c..d * (c + 1)]);
            mu.push(g.mu[c]);
        }
        let f = part.dofs.iter().map(|&i| g.f[i]).collect();
        GlobalFrictionContactProblem::new(d, m, Matrix::Sparse(h), f, b, mu)
    }

    /// The outer vectors `outer` of `s` (rows of a CSR matrix, columns of a CSC one), their
    /// nonzero entries renumbered in the island ([`Islands::local`]): compressed storage
    /// `(pointers, indices, values)`, the indices ascending as in `s`.
    fn restricted_outer(&self, s: &CsMat<f64>, outer: &[usize]) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
        let mut ptr = Vec::with_capacity(outer.len() + 1);
        ptr.push(0);
        // Sized once for the outer vectors' stored entries (the zeros among them dropped).
        let stored = outer.iter().map(|&o| s.indptr().outer_inds_sz(o).len()).sum();
        let (mut idx, mut val) = (Vec::with_capacity(stored), Vec::with_capacity(stored));
        for &o in outer {
            for (i, &v) in s.outer_view(o).expect("an outer vector of the problem").iter() {
                if v != 0.0 {
                    idx.push(self.local[i]);
                    val.push(v);
                }
            }
            ptr.push(idx.len());
        }
        (ptr, idx, val)
    }
}

/// H by columns: `converted`, else `g`'s own H when it is stored by columns.
fn by_columns<'a>(
    g: &'a GlobalFrictionContactProblem,
    converted: Option<&'a CsMat<f64>>,
) -> Option<&'a CsMat<f64>> {
    match (converted, &g.h) {
        (Some(h), _) => Some(h),
        (None, Matrix::Sparse(h)) if h.is_csc() => Some(h),
        _ => None,
    }
}

/// Whether the entries `a` and `b` of a compressed matrix's `(indices, values)` have the same
/// indices, zero at the same places.
fn same_nonzeros(
    (idx, val): (&[usize], &[f64]),
    a: std::ops::Range<usize>,
    b: std::ops::Range<usize>,
) -> bool {
    a.len() == b.len()
        && idx[a.clone()] == idx[b.clone()]
        && val[a].iter().zip(&val[b]).all(|(x, y)| (*x == 0.0) == (*y == 0.0))
}

/// `f(i, j)` on every nonzero entry of `m` off the diagonal.
fn for_each_nonzero(m: &Matrix, mut f: impl FnMut(usize, usize)) {
    match m {
        Matrix::Dense(a) => {
            for j in 0..a.ncols() {
                for i in 0..a.nrows() {
                    if i != j && a[(i, j)] != 0.0 {
                        f(i, j)
                    }
                }
            }
        }
        Matrix::Sparse(s) => {
            for (&v, (i, j)) in s.iter() {
                if i != j && v != 0.0 {
                    f(i, j)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GlobalIpm;
    use perp_core::{Settings, Status};
    use rand::SeedableRng;

    /// A random global problem of `n` velocities and `nc` contacts of dimension 3 with dense M
    /// and H ([`crate::samples::dense_global`]).
    fn piece(rng: &mut rand_chacha::ChaCha8Rng, n: usize, nc: usize) -> GlobalFrictionContactProblem {
        crate::samples::dense_global(rng, n, nc, false)
    }

    /// Pieces placed in one problem with their velocities and contacts interleaved (velocity
    /// `k` of piece `p` at `dofs[p][k]`), and `free` more velocities of mass 1 that no contact
    /// touches; the pieces in the order of their first velocity.
    fn assemble(
        pieces: &[GlobalFrictionContactProblem],
        free: usize,
    ) -> (GlobalFrictionContactProblem, Vec<Vec<usize>>) {
        let n: usize = pieces.iter().map(|p| p.dofs()).sum::<usize>() + free;
        let nc: usize = pieces.iter().map(|p| p.contacts()).sum();
        // Round-robin placement: velocity k of piece p goes to the next free slot in turn.
        let (mut dofs, mut contacts) = (vec![Vec::new(); pieces.len()], vec![Vec::new(); pieces.len()]);
        let (mut next_dof, mut next_contact) = (free, 0);
        for k in 0.. {
            let mut placed = false;
            for (p, g) in pieces.iter().enumerate() {
                if k < g.dofs() {
                    dofs[p].push(next_dof);
                    next_dof += 1;
                    placed = true;
                }
                if k < g.contacts() {
                    contacts[p].push(next_contact);
                    next_contact += 1;
                    placed = true;
                }
            }
            if !placed {
                break;
            }
        }
        let (mut tm, mut th) = (Vec::new(), Vec::new());
        let (mut f, mut b, mut mu) = (vec![0.5; n], vec![0.0; 3 * nc], vec![0.0; nc]);
        (0..free).for_each(|i| tm.push((i, i, 1.0)));
        for (p, g) in pieces.iter().enumerate() {
            let (md, hd) = (g.m.to_dense(), g.h.to_dense());
            for (i, &gi) in dofs[p].iter().enumerate() {
                f[gi] = g.f[i];
                for (j, &gj) in dofs[p].iter().enumerate() {
                    tm.push((gi, gj, md[(i, j)]));
                }
                for (c, &gc) in contacts[p].iter().enumerate() {
                    for e in 0..3 {
                        th.push((gi, 3 * gc + e, hd[(i, 3 * c + e)]));
                    }
                }
            }
            for (c, &gc) in contacts[p].iter().enumerate() {
                b[3 * gc..3 * gc + 3].copy_from_slice(&g.b[3 * c..3 * c + 3]);
                mu[gc] = g.mu[c];
            }
        }
        let m = Matrix::from_triplets(n, n, &tm).unwrap();
        let h = Matrix::from_triplets(n, 3 * nc, &th).unwrap();
        (GlobalFrictionContactProblem::new(3, m, h, f, b, mu).unwrap(), dofs)
    }

    #[test]
    fn interleaved_pieces_come_back_as_islands_exactly() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let pieces = [piece(&mut rng, 6, 2), piece(&mut rng, 4, 1), piece(&mut rng, 9, 3)];
        let (g, dofs) = assemble(&pieces, 3);
        let islands = g.islands();
        assert_eq!(islands.free, [0, 1, 2]);
        assert_eq!(islands.parts.len(), 3);
        assert!(!islands.is_whole());
        for (p, (part, want)) in islands.parts.iter().zip(&pieces).enumerate() {
            assert_eq!(part.dofs, dofs[p]);
            let got = islands.restrict(&g, part).unwrap();
            assert_eq!(got.m.to_dense(), want.m.to_dense(), "island {p}: M");
            assert_eq!(got.h.to_dense(), want.h.to_dense(), "island {p}: H");
            assert_eq!((&got.f, &got.b, &got.mu), (&want.f, &want.b, &want.mu), "island {p}");
        }
        // H stored by columns: the islands read it in place, and restrict the same islands.
        let Matrix::Sparse(h) = &g.h else { panic!("sparse") };
        let mut by_cols = g.clone();
        by_cols.h = Matrix::Sparse(h.to_csc());
        let islands_c = by_cols.islands();
        assert_eq!(islands_c.parts, islands.parts);
        for part in &islands.parts {
            let (a, b) = (islands.restrict(&g, part).unwrap(), islands_c.restrict(&by_cols, part).unwrap());
            assert_eq!(a.h.to_dense(), b.h.to_dense());
        }
        // Those islands given the problem stored by rows: an error, not a panic.
        let e = islands_c.restrict(&g, &islands.parts[0]).unwrap_err().to_string();
        assert!(e.contains("Islands::restrict") && e.contains("not stored by columns"), "{e}");
    }

    #[test]
    fn one_contact_across_two_bodies_makes_one_island_and_a_dense_m_splits_too() {
        // Two 1-velocity bodies and a contact touching both: one island; the same M dense.
        let m = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0]).unwrap();
        let h = Matrix::from_triplets(3, 3, &[(0, 0, 1.0), (2, 1, 1.0), (2, 2, 1.0)]).unwrap();
        let g = GlobalFrictionContactProblem::new(3, m, h, vec![1.0; 3], vec![0.0; 3], vec![0.3]).unwrap();
        let islands = g.islands();
        assert_eq!((islands.parts.len(), islands.free.as_slice()), (1, &[1][..]));
        assert_eq!(islands.parts[0], Island { dofs: vec![0, 2], contacts: vec![0] });
        let sub = islands.restrict(&g, &islands.parts[0]).unwrap();
        assert_eq!(sub.m.to_dense(), Matrix::from_row_major(2, 2, &[1.0, 0.0, 0.0, 3.0]).unwrap().to_dense());
    }

    #[test]
    fn a_contacts_later_columns_join_what_they_touch_beyond_the_first() {
        // H by columns with an explicit zero: contact 0's first column touches velocity 1 by a
        // stored 0 (no coupling) and its second by 2 (coupling); contact 1's second column
        // touches one velocity more than its first. Each contact is one island of two.
        let h = sprs::CsMat::new_csc(
            (4, 4),
            vec![0, 2, 4, 5, 7],
            vec![0, 1, 0, 1, 2, 2, 3],
            vec![1.0, 0.0, 1.0, 2.0, 1.0, 1.0, 1.0],
        );
        let m = Matrix::from_row_major(
            4,
            4,
            &[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        )
        .unwrap();
        let g = GlobalFrictionContactProblem::new(
            2,
            m,
            Matrix::from(h),
            vec![1.0; 4],
            vec![0.0; 4],
            vec![0.3; 2],
        )
        .unwrap();
        let islands = g.islands();
        assert!(islands.free.is_empty());
        assert_eq!(
            islands.parts,
            [Island { dofs: vec![0, 1], contacts: vec![0] }, Island { dofs: vec![2, 3], contacts: vec![1] }]
        );
    }

    #[test]
    fn a_contact_on_no_velocity_keeps_the_problem_whole() {
        let m = Matrix::from_row_major(2, 2, &[1.0, 0.0, 0.0, 1.0]).unwrap();
        let h = Matrix::from_triplets(2, 6, &[(0, 0, 1.0)]).unwrap();
        let g = GlobalFrictionContactProblem::new(3, m, h, vec![1.0; 2], vec![0.0; 6], vec![0.3; 2]).unwrap();
        assert!(g.islands().is_whole());
    }

    /// The islands solved apart and put together solve the whole problem: Siconos' global
    /// measure of the assembled (r, v) on the whole problem, with the free velocities M⁻¹ f.
    #[test]
    fn islands_solved_apart_solve_the_whole_problem() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let pieces = [piece(&mut rng, 12, 3), piece(&mut rng, 8, 2), piece(&mut rng, 10, 2)];
        let (g, _) = assemble(&pieces, 4);
        let islands = g.islands();
        let s = Settings { tol: 1e-9, ..Settings::default() };
        let (mut r, mut v) = (vec![0.0; g.size()], vec![0.0; g.dofs()]);
        for &i in &islands.free {
            v[i] = g.f[i]; // unit masses
        }
        for part in &islands.parts {
            let sub = islands.restrict(&g, part).unwrap();
            let sol = GlobalIpm::new().solve(&sub, None, &s).unwrap();
            assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report);
            part.dofs.iter().zip(&sol.v).for_each(|(&i, x)| v[i] = *x);
            for (k, &c) in part.contacts.iter().enumerate() {
                r[3 * c..3 * c + 3].copy_from_slice(&sol.r[3 * k..3 * k + 3]);
            }
        }
        let error = g.error(&r, &v);
        assert!(error <= 2.0 * s.tol, "whole problem's error {error:e}");
    }
}
