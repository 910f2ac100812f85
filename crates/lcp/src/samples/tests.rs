use super::rigid::contact_system;
use super::*;

fn rows(m: &Matrix) -> Vec<Vec<f64>> {
    (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m.get(i, j)).collect()).collect()
}

fn same(a: &Lcp, b: &Lcp) -> bool {
    rows(a.m()) == rows(b.m()) && a.q() == b.q()
}

/// Determinant by Gaussian elimination with partial pivoting.
fn det(mut a: Vec<Vec<f64>>) -> f64 {
    let n = a.len();
    let mut d = 1.0;
    for k in 0..n {
        let p = (k..n).max_by(|&x, &y| a[x][k].abs().total_cmp(&a[y][k].abs())).unwrap();
        if p != k {
            a.swap(p, k);
            d = -d;
        }
        d *= a[k][k];
        if a[k][k] == 0.0 {
            return 0.0;
        }
        let (top, below) = a.split_at_mut(k + 1);
        let pivot = &top[k];
        for row in below.iter_mut() {
            let f = row[k] / pivot[k];
            for (x, p) in row.iter_mut().zip(pivot).skip(k) {
                *x -= f * p;
            }
        }
    }
    d
}

#[test]
fn same_seed_same_problem_other_seed_other_problem() {
    assert!(same(&spd(6, 9), &spd(6, 9)));
    assert!(!same(&spd(6, 9), &spd(6, 10)));
    assert!(same(&contact(15, 9), &contact(15, 9)));
    assert!(!same(&contact(15, 9), &contact(15, 10)));
    assert!(same(&p_matrix(6, 9), &p_matrix(6, 9)));
    assert!(!same(&p_matrix(6, 9), &p_matrix(6, 10)));
}

#[test]
fn spd_is_symmetric_positive_definite() {
    let p = spd(8, 3);
    assert!(p.m().asymmetry(0.0).is_none());
    assert!(p.m().is_positive_definite(0.0));
    // M - I = A Aᵀ is PSD as well: the diagonal is at least 1.
    assert!(p.m().diagonal().iter().all(|&d| d >= 1.0));
    assert!(p.q().iter().all(|q| (-1.0..=1.0).contains(q)));
}

#[test]
fn psd_has_the_requested_rank() {
    let p = psd(6, 2, 5);
    assert!(same(&p, &psd(6, 2, 5)));
    assert!(p.m().asymmetry(0.0).is_none());
    let m = rows(p.m());
    assert!(p.m().is_positive_definite(1e-12));
    // Rank 2: every 3x3 principal minor vanishes, a 2x2 one does not.
    let minor = |idx: &[usize]| det(idx.iter().map(|&i| idx.iter().map(|&j| m[i][j]).collect()).collect());
    assert!(minor(&[0, 1, 2]).abs() < 1e-12 && minor(&[1, 3, 5]).abs() < 1e-12);
    assert!(minor(&[0, 1]) > 1e-6);
    assert_eq!(psd(3, 5, 1).n(), 3);
}

#[test]
fn contact_matrix_is_j_minv_jt_and_psd() {
    let nc = 14;
    let s = contact_system(nc, 11);
    // Dense J (nc x 6·bodies), assembled independently of `assemble`.
    let nd = 6 * s.bodies;
    let mut j = vec![vec![0.0; nd]; nc];
    for (body, list) in s.touching.iter().enumerate() {
        for &(c, block) in list {
            j[c][6 * body..6 * body + 6].copy_from_slice(&block);
        }
    }
    let p = contact(nc, 11);
    for a in 0..nc {
        let qa: f64 = (0..nd).map(|k| j[a][k] * s.v_free[k]).sum();
        assert!((p.q()[a] - qa).abs() < 1e-13);
        for b in 0..nc {
            let wab: f64 = (0..nd).map(|k| j[a][k] * s.minv[k] * j[b][k]).sum();
            assert!((p.m().get(a, b) - wab).abs() < 1e-12, "W[{a},{b}]");
            let shared = (0..s.bodies)
                .any(|bd| (0..6).any(|k| j[a][6 * bd + k] != 0.0) && (0..6).any(|k| j[b][6 * bd + k] != 0.0));
            if !shared {
                assert_eq!(p.m().get(a, b), 0.0);
            }
        }
    }
    assert!(p.m().asymmetry(0.0).is_none());
    assert!(p.m().is_positive_definite(1e-10 * p.m().max_abs()));
    // Sparse for a larger instance.
    let big = contact(200, 1);
    assert!(big.m().nnz() < 200 * 200 / 10, "nnz = {}", big.m().nnz());
    assert_eq!(rows(contact_dense(30, 2).m()), rows(contact(30, 2).m()));
}

#[test]
fn p_matrix_has_positive_principal_minors() {
    let n = 6;
    let p = p_matrix(n, 4);
    let m = rows(p.m());
    for mask in 1u32..(1 << n) {
        let idx: Vec<usize> = (0..n).filter(|&i| mask & (1 << i) != 0).collect();
        let sub: Vec<Vec<f64>> = idx.iter().map(|&i| idx.iter().map(|&j| m[i][j]).collect()).collect();
        assert!(det(sub) > 0.0, "minor {idx:?}");
    }
    assert!(p.m().asymmetry(1e-12).is_some());
}

#[test]
fn murty_by_hand() {
    let p = murty(4);
    assert_eq!(
        rows(p.m()),
        vec![
            vec![1.0, 2.0, 2.0, 2.0],
            vec![0.0, 1.0, 2.0, 2.0],
            vec![0.0, 0.0, 1.0, 2.0],
            vec![0.0, 0.0, 0.0, 1.0]
        ]
    );
    assert_eq!(p.q(), &[-30.0, -28.0, -24.0, -16.0]);
    // The unique solution z = (0, 0, 0, 16): w = q + M z = (2, 4, 8, 0).
    assert_eq!(p.w(&[0.0, 0.0, 0.0, 16.0]), vec![2.0, 4.0, 8.0, 0.0]);
    assert_eq!(murty(0).n(), 0);
}

#[test]
fn fathi_is_l_lt_with_solution_e1() {
    let n = 7;
    let p = fathi(n);
    // L unit lower triangular with 2 below the diagonal; M = L Lᵀ entry by entry.
    let l = |i: usize, k: usize| -> f64 {
        match i.cmp(&k) {
            std::cmp::Ordering::Equal => 1.0,
            std::cmp::Ordering::Greater => 2.0,
            std::cmp::Ordering::Less => 0.0,
        }
    };
    for i in 0..n {
        for j in 0..n {
            let llt: f64 = (0..n).map(|k| l(i, k) * l(j, k)).sum();
            assert_eq!(p.m().get(i, j), llt, "M[{i},{j}]");
        }
    }
    assert!(p.m().is_positive_definite(0.0));
    let mut z = vec![0.0; n];
    z[0] = 1.0;
    let w = p.w(&z);
    assert_eq!(w[0], 0.0);
    assert!(w[1..].iter().all(|&x| x == 1.0));
}

#[test]
fn degenerate_has_its_planted_degenerate_solution() {
    let n = 30;
    let p = degenerate(n, 5);
    let z = degenerate_solution(n, 5);
    assert!(same(&p, &degenerate(n, 5)));
    assert!(p.m().is_positive_definite(0.0));
    let w = p.w(&z);
    let scale = p.q().iter().fold(1.0f64, |m, x| m.max(x.abs()));
    let mut classes = [0; 3];
    for i in 0..n {
        assert!(z[i] >= 0.0 && w[i] >= -1e-13 * scale && z[i].min(w[i]).abs() <= 1e-13 * scale);
        let k = if z[i] > 0.0 {
            0
        } else if w[i] > 1e-13 * scale {
            1
        } else {
            2
        };
        classes[k] += 1;
    }
    assert!(classes.iter().all(|&c| c > 0), "{classes:?}");
}
