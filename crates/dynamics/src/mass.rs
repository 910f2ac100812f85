//! The factorization of the mass matrix and the Delassus operator `W = J M⁻¹ Jᵀ`, shared with
//! the global frictional problem: they live in [`perp_core::linear::mass`], re-exported here.

pub use perp_core::linear::mass::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assembly::LocalProblem;
    use crate::system::Row;
    use crate::system::{Bilateral, Contact};
    use faer::{Mat, Side};
    use perp_core::Matrix;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn delassus_matches_dense_algebra_dense_and_sparse() {
        let m = Matrix::from_row_major(3, 3, &[4.0, 1.0, 0.0, 1.0, 3.0, 0.5, 0.0, 0.5, 2.0]).unwrap();
        let rows = [Row::dense(&[1.0, 0.0, 2.0]), Row::dense(&[0.0, -1.0, 1.0])];
        let refs: Vec<&Row> = rows.iter().collect();
        use faer::linalg::solvers::DenseSolveCore;
        let md = m.to_dense();
        let inv = md.partial_piv_lu().inverse();
        for mat in [m.clone(), Matrix::Sparse(m.to_csr())] {
            let f = MassFactor::new(&mat).unwrap();
            let y = solve_rows(&f, 3, &refs);
            let w = delassus(&refs, &y).unwrap();
            for i in 0..2 {
                for j in 0..2 {
                    let mut e = 0.0;
                    for a in 0..3 {
                        for b in 0..3 {
                            e += rows[i].dot(&unit(3, a)) * inv[(a, b)] * rows[j].dot(&unit(3, b));
                        }
                    }
                    assert!((w.get(i, j) - e).abs() < 1e-12, "W[{i},{j}] = {} vs {e}", w.get(i, j));
                }
            }
        }
    }

    fn unit(n: usize, k: usize) -> Vec<f64> {
        let mut v = vec![0.0; n];
        v[k] = 1.0;
        v
    }

    #[test]
    fn non_spd_mass_is_an_error_naming_m() {
        let m = Matrix::from_row_major(2, 2, &[1.0, 2.0, 2.0, 1.0]).unwrap();
        let e = MassFactor::new(&m).unwrap_err().to_string();
        assert!(e.contains("mass matrix M"), "{e}");
        let m = Matrix::from_row_major(2, 2, &[1.0, 2.0, 0.0, 1.0]).unwrap();
        assert!(MassFactor::new(&m).unwrap_err().to_string().contains("M[0,1]"));
        let sparse = Matrix::from_triplets(2, 2, &[(0, 0, 1.0), (1, 1, -1.0)]).unwrap();
        assert!(MassFactor::new(&sparse).is_err());
    }

    /// A random SPD block `A Aᵀ + I` of size `s`, row-major.
    fn spd_block(s: usize, rng: &mut ChaCha8Rng) -> Vec<f64> {
        let a: Vec<f64> = (0..s * s).map(|_| rng.random_range(-1.0..1.0)).collect();
        let mut b = vec![0.0; s * s];
        for i in 0..s {
            for j in 0..s {
                b[i * s + j] = (0..s).map(|k| a[i * s + k] * a[j * s + k]).sum::<f64>() + f64::from(i == j);
            }
        }
        b
    }

    /// A sparse block-diagonal M over a random permutation of the velocities (so components
    /// interleave), blocks of sizes 1–6; `couple` adds an entry between blocks 0 and 1 (one
    /// larger component, still SPD by diagonal dominance). Returns M and each block's velocities.
    fn block_mass(seed: u64, blocks: usize, couple: bool) -> (Matrix, Vec<Vec<usize>>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let sizes: Vec<usize> = (0..blocks).map(|_| rng.random_range(1..=6)).collect();
        let n: usize = sizes.iter().sum();
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            perm.swap(i, rng.random_range(0..=i));
        }
        let mut t = Vec::new();
        let mut groups = Vec::new();
        let mut off = 0;
        for &s in &sizes {
            let b = spd_block(s, &mut rng);
            let g: Vec<usize> = perm[off..off + s].to_vec();
            for i in 0..s {
                for j in 0..s {
                    // A bigger diagonal keeps M SPD once blocks 0 and 1 are coupled.
                    t.push((g[i], g[j], b[i * s + j] + if i == j { 2.0 } else { 0.0 }));
                }
            }
            groups.push(g);
            off += s;
        }
        if couple {
            let (a, b) = (groups[0][0], groups[1][0]);
            t.push((a, b, 0.7));
            t.push((b, a, 0.7));
        }
        (Matrix::from_triplets(n, n, &t).unwrap(), groups)
    }

    /// Random rows, each over the velocities of one or two blocks (sometimes three).
    fn block_rows(seed: u64, groups: &[Vec<usize>], m: usize) -> Vec<Row> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..m)
            .map(|_| {
                let k = [1, 2, 2, 3][rng.random_range(0..4)].min(groups.len());
                let mut entries = Vec::new();
                for _ in 0..k {
                    let g = &groups[rng.random_range(0..groups.len())];
                    for &d in g {
                        if rng.random_bool(0.8) && !entries.iter().any(|&(e, _)| e == d) {
                            entries.push((d, rng.random_range(-1.0..1.0)));
                        }
                    }
                }
                Row(entries)
            })
            .collect()
    }

    fn max_diff(a: &[f64], b: &[f64]) -> f64 {
        assert_eq!(a.len(), b.len());
        a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
    }

    fn w_diff(a: &Matrix, b: &Matrix) -> f64 {
        let (a, b) = (a.to_dense(), b.to_dense());
        let mut d = 0.0f64;
        for j in 0..a.ncols() {
            for i in 0..a.nrows() {
                d = d.max((a[(i, j)] - b[(i, j)]).abs());
            }
        }
        d
    }

    #[test]
    fn block_factor_gives_the_dense_y_and_w() {
        for (seed, couple, m) in [(1, false, 30), (2, true, 30), (3, false, 150), (4, true, 150)] {
            let (mass, groups) = block_mass(seed, 12, couple);
            let n = mass.nrows();
            let f = MassFactor::new(&mass).unwrap();
            let MassFactor::Blocks(b) = &f else { panic!("block-diagonal M gets the block factor") };
            assert_eq!(b.dofs(), n);
            assert_eq!(b.components(), if couple { 11 } else { 12 });
            let (c0, c1) = (b.component_of(groups[0][0]), b.component_of(groups[1][0]));
            assert_eq!(c0 == c1, couple);
            assert!(b.max_component() <= if couple { 12 } else { 6 });
            // faer's dense Cholesky (MassFactor::new gives a dense M this small the block factor).
            let dense = MassFactor::Dense(
                faer::linalg::solvers::Llt::new(mass.to_dense().as_ref(), Side::Lower).unwrap(),
            );
            let general = sparse_llt(&mass).unwrap();
            let rows = block_rows(seed + 100, &groups, m);
            let refs: Vec<&Row> = rows.iter().collect();
            let y = solve_rows(&f, n, &refs);
            assert!(y.is_sparse(), "rows over ≤ 3 of 12 blocks give a sparse Y");
            assert!(y.nnz() < n * m / 2);
            let yd = solve_rows(&dense, n, &refs);
            assert!(!yd.is_sparse());
            let yg = solve_rows(&general, n, &refs);
            assert!(max_diff(&y.to_dense(), &yd.to_dense()) < 1e-12);
            assert!(max_diff(&yg.to_dense(), &yd.to_dense()) < 1e-12);
            let w = delassus(&refs, &y).unwrap();
            let wd = delassus(&refs, &yd).unwrap();
            assert_eq!(w.is_sparse(), m > 64 && wd.is_sparse());
            assert!(w_diff(&w, &wd) < 1e-12, "W differs by {}", w_diff(&w, &wd));
            // W's diagonal alone: the block factor's is Y's, bit for bit; the other
            // factors go through their own Y.
            for (factor, yf) in [(&f, &y), (&dense, &yd), (&general, &yg)] {
                let diag: Vec<f64> = (0..m).map(|j| yf.row_dot_column(&rows[j], j)).collect();
                assert_eq!(delassus_diagonal(factor, n, &refs), diag);
            }
            // W is symmetric and its diagonal positive.
            assert!(w_diff(&w, &Matrix::Dense(w.to_dense().transpose().to_owned())) == 0.0);
            assert!((0..m).all(|i| rows[i].0.is_empty() || w.get(i, i) > 0.0));
            // Column operations agree.
            let x: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
            for j in [0, m / 2, m - 1] {
                assert!((y.dot_column(j, &x) - yd.dot_column(j, &x)).abs() < 1e-12);
                assert!((y.row_dot_column(&rows[0], j) - yd.row_dot_column(&rows[0], j)).abs() < 1e-12);
                let (mut u, mut ud) = (x.clone(), x.clone());
                y.axpy_column(j, 0.5, &mut u);
                yd.axpy_column(j, 0.5, &mut ud);
                assert!(max_diff(&u, &ud) < 1e-12);
            }
            // M x = b by blocks.
            let (mut s1, mut s2) = (x.clone(), x.clone());
            f.solve(&mut s1, n, 1);
            dense.solve(&mut s2, n, 1);
            assert!(max_diff(&s1, &s2) < 1e-12);
        }
    }

    /// A diagonal M (each velocity its own component, as the ball pile's spheres): W's
    /// diagonal is Y's bit for bit, on rows in any order, with a velocity twice, with explicit
    /// zeros and empty.
    #[test]
    fn a_diagonal_mass_gives_y_s_delassus_diagonal_bit_for_bit() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let n = 40;
        let diag: Vec<(usize, usize, f64)> = (0..n).map(|i| (i, i, rng.random_range(0.1..10.0))).collect();
        let mass = Matrix::from_triplets(n, n, &diag).unwrap();
        let f = MassFactor::new(&mass).unwrap();
        let MassFactor::Blocks(b) = &f else { panic!("a diagonal M gets the block factor") };
        assert_eq!(b.components(), n);
        let mut rows: Vec<Row> = (0..60)
            .map(|_| {
                let k = rng.random_range(1..=12);
                Row((0..k).map(|_| (rng.random_range(0..n), rng.random_range(-2.0..2.0))).collect())
            })
            .collect();
        rows.push(Row(vec![(5, 1.5), (3, -0.5), (5, 2.0)]));
        rows.push(Row(vec![(7, 0.0), (2, -0.0), (9, 1.0)]));
        rows.push(Row(Vec::new()));
        let refs: Vec<&Row> = rows.iter().collect();
        let y = solve_rows(&f, n, &refs);
        let want: Vec<u64> = (0..rows.len()).map(|j| y.row_dot_column(&rows[j], j).to_bits()).collect();
        let got: Vec<u64> = delassus_diagonal(&f, n, &refs).iter().map(|w| w.to_bits()).collect();
        assert_eq!(got, want);
        // Read in place: the rows themselves, and the columns of H built from them (sorted and
        // with repeats summed by `from_columns`, so compared with those rows).
        let bits = |w: Vec<f64>| w.iter().map(|w| w.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(delassus_diagonal_of(&f, n, &rows[..])), want);
        let Matrix::Sparse(h) = Matrix::from_columns(n, rows.iter().map(|r| &r.0[..])).unwrap() else {
            panic!("sparse")
        };
        let cols = perp_core::linear::Columns::of(&h).expect("stored by columns");
        // Columns claim strictly ascending indices, which spares the diagonal path its check.
        let ascend = |k| cols.entries(k).zip(cols.entries(k).skip(1)).all(|(a, b)| a.0 < b.0);
        assert!(cols.strictly_ascending() && (0..cols.count()).all(ascend));
        let merged: Vec<Row> = (0..rows.len()).map(|k| Row(cols.entries(k).collect())).collect();
        let merged_refs: Vec<&Row> = merged.iter().collect();
        assert_eq!(bits(delassus_diagonal_of(&f, n, &cols)), bits(delassus_diagonal(&f, n, &merged_refs)));
        // Blocks of six velocities (the general path, gathering by component).
        let (mass, _) = block_mass(7, 10, false);
        let f = MassFactor::new(&mass).unwrap();
        let n = mass.nrows();
        let rows: Vec<Row> =
            rows.iter().map(|r| Row(r.0.iter().map(|&(d, v)| (d % n, v)).collect())).collect();
        let refs: Vec<&Row> = rows.iter().collect();
        assert_eq!(bits(delassus_diagonal_of(&f, n, &rows[..])), bits(delassus_diagonal(&f, n, &refs)));
    }

    #[test]
    fn rows_touching_one_or_two_components_give_columns_on_those_components() {
        let (mass, groups) = block_mass(7, 10, false);
        let n = mass.nrows();
        let f = MassFactor::new(&mass).unwrap();
        let MassFactor::Blocks(b) = &f else { panic!("block factor") };
        let one = Row(groups[3].iter().map(|&d| (d, 1.0)).collect());
        let two = Row(vec![(groups[2][0], 1.0), (groups[5][0], -2.0)]);
        let y = solve_rows(&f, n, &[&one, &two, &one, &two, &one, &two]);
        assert!(y.is_sparse());
        let comps = |j: usize| {
            let mut c = Vec::new();
            y.column(j).for_each(|d, _| c.push(b.component_of(d)));
            c.sort_unstable();
            c.dedup();
            c
        };
        assert_eq!(comps(0), vec![b.component_of(groups[3][0])]);
        let mut expect = vec![b.component_of(groups[2][0]), b.component_of(groups[5][0])];
        expect.sort_unstable();
        assert_eq!(comps(1), expect);
        // The column of a row over one block is that block's M⁻¹ applied to the row.
        let mut e = vec![0.0; n];
        one.axpy(1.0, &mut e);
        MassFactor::new(&Matrix::Dense(mass.to_dense())).unwrap().solve(&mut e, n, 1);
        assert!(max_diff(&y.to_dense()[..n], &e) < 1e-12);
    }

    #[test]
    fn small_or_dense_problems_keep_dense_y() {
        // One 6×6 block: every column fills the block, dense storage is smaller.
        let (mass, groups) = block_mass(5, 1, false);
        let n = mass.nrows();
        let f = MassFactor::new(&mass).unwrap();
        assert!(matches!(f, MassFactor::Blocks(_)));
        let rows = block_rows(9, &groups, 4);
        let refs: Vec<&Row> = rows.iter().collect();
        let y = solve_rows(&f, n, &refs);
        assert!(!y.is_sparse());
        let yd = solve_rows(&MassFactor::new(&Matrix::Dense(mass.to_dense())).unwrap(), n, &refs);
        assert!(max_diff(&y.to_dense(), &yd.to_dense()) < 1e-12);
        // A connected sparse M larger than MAX_BLOCK keeps faer's sparse Cholesky.
        let k = MAX_BLOCK + 6;
        let mut t = Vec::new();
        for i in 0..k {
            t.push((i, i, 3.0));
            if i + 1 < k {
                t.push((i, i + 1, -1.0));
                t.push((i + 1, i, -1.0));
            }
        }
        let tri = Matrix::from_triplets(k, k, &t).unwrap();
        let f = MassFactor::new(&tri).unwrap();
        assert!(matches!(f, MassFactor::Sparse(_)));
        let rows = [Row(vec![(0, 1.0), (k - 1, 1.0)])];
        let y = solve_rows(&f, k, &[&rows[0]]);
        assert!(!y.is_sparse());
        let yd = solve_rows(&MassFactor::new(&Matrix::Dense(tri.to_dense())).unwrap(), k, &[&rows[0]]);
        assert!(max_diff(&y.to_dense(), &yd.to_dense()) < 1e-12);
    }

    #[test]
    fn a_non_spd_block_is_an_error_naming_m() {
        let (mass, groups) = block_mass(11, 6, false);
        let n = mass.nrows();
        // Flip the sign of one velocity's diagonal in block 2.
        let d = groups[2][0];
        let mut t: Vec<(usize, usize, f64)> = Vec::new();
        for (v, (i, j)) in mass.to_csr().iter() {
            t.push((i, j, if i == d && j == d { -*v } else { *v }));
        }
        let bad = Matrix::from_triplets(n, n, &t).unwrap();
        let e = MassFactor::new(&bad).unwrap_err().to_string();
        assert!(e.contains("mass matrix M"), "{e}");
        assert!(e.contains("M["), "{e}");
        // A velocity with no entry at all (zero row and column) is not SPD either.
        let t: Vec<(usize, usize, f64)> = vec![(0, 0, 1.0), (2, 2, 1.0)];
        let e = MassFactor::new(&Matrix::from_triplets(3, 3, &t).unwrap()).unwrap_err().to_string();
        assert!(e.contains("mass matrix M") && e.contains("M[1,1]"), "{e}");
    }

    #[test]
    fn sub_mul_keeps_sparse_and_dense_y_equal() {
        let (mass, groups) = block_mass(13, 10, true);
        let n = mass.nrows();
        let f = MassFactor::new(&mass).unwrap();
        let dense = MassFactor::new(&Matrix::Dense(mass.to_dense())).unwrap();
        let rows = block_rows(14, &groups, 20);
        let brows = block_rows(15, &groups, 3);
        let (r, br): (Vec<&Row>, Vec<&Row>) = (rows.iter().collect(), brows.iter().collect());
        let (mut y, mut yd) = (solve_rows(&f, n, &r), solve_rows(&dense, n, &r));
        let (z, zd) = (solve_rows(&f, n, &br), solve_rows(&dense, n, &br));
        assert!(y.is_sparse() && z.is_sparse());
        let mut rng = ChaCha8Rng::seed_from_u64(16);
        let mut entry = |_, _| if rng.random_bool(0.5) { rng.random_range(-1.0..1.0) } else { 0.0 };
        let a = Mat::<f64>::from_fn(3, 20, &mut entry);
        y.sub_mul(&z, a.as_ref());
        yd.sub_mul(&zd, a.as_ref());
        assert!(y.is_sparse());
        assert!(max_diff(&y.to_dense(), &yd.to_dense()) < 1e-12);
    }

    /// Bilateral condensation through `LocalProblem` agrees between the block factor (sparse Y)
    /// and the dense factor, and the condensed velocity satisfies the bilaterals.
    #[test]
    fn bilateral_condensation_agrees_with_sparse_y() {
        let (mass, groups) = block_mass(17, 12, false);
        let n = mass.nrows();
        let rows = block_rows(18, &groups, 90);
        let contacts: Vec<Contact> = rows
            .chunks_exact(3)
            .map(|c| Contact::new(0.0, c[0].clone(), vec![c[1].clone(), c[2].clone()], 0.5))
            .collect();
        let bil: Vec<Bilateral> = block_rows(19, &groups, 4)
            .into_iter()
            .enumerate()
            .map(|(i, row)| Bilateral { row, bias: 0.1 * i as f64 })
            .collect();
        let mut rng = ChaCha8Rng::seed_from_u64(20);
        let u_a: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let h: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let active: Vec<usize> = (0..contacts.len()).collect();
        let f = MassFactor::new(&mass).unwrap();
        let dense = MassFactor::new(&Matrix::Dense(mass.to_dense())).unwrap();
        let lp = LocalProblem::new(&f, &u_a, &h, 0.01, active.clone(), contacts.clone(), &bil).unwrap();
        let lpd = LocalProblem::new(&dense, &u_a, &h, 0.01, active, contacts, &bil).unwrap();
        assert!(w_diff(&lp.w, &lpd.w) < 1e-11, "{}", w_diff(&lp.w, &lpd.w));
        assert!(max_diff(&lp.b, &lpd.b) < 1e-11);
        assert!(max_diff(&lp.u_free, &lpd.u_free) < 1e-11);
        let r: Vec<f64> = (0..lp.size()).map(|_| rng.random_range(-1.0..1.0)).collect();
        let (u, ud) = (lp.velocity(&r), lpd.velocity(&r));
        assert!(max_diff(&u, &ud) < 1e-11);
        for b in &bil {
            assert!((b.row.dot(&u) + b.bias).abs() < 1e-10, "bilateral violated: {}", b.row.dot(&u) + b.bias);
        }
    }
}
