use super::dense_lu::{lu_req, SMALL_LU};
use super::small::*;
use super::*;
use faer::dyn_stack::MemStack;
use faer::linalg::lu::partial_pivoting::factor as lu_factor;
use faer::{Mat, Par};

/// A 4×4 nonsymmetric, and an SPD matrix, with x = (1, −2, 3, 0.5).
fn nonsym() -> Mat<f64> {
    Mat::from_fn(4, 4, |i, j| if i == j { 4.0 + i as f64 } else { ((i * 3 + j * 5) % 7) as f64 * 0.3 - 0.6 })
}

fn spd() -> Mat<f64> {
    let a = nonsym();
    let mut s = a.transpose() * &a;
    for i in 0..4 {
        s[(i, i)] += 1.0;
    }
    s
}

const X: [f64; 4] = [1.0, -2.0, 3.0, 0.5];

fn rhs(a: &Mat<f64>) -> Vec<f64> {
    (0..4).map(|i| (0..4).map(|j| a[(i, j)] * X[j]).sum()).collect()
}

fn close(x: &[f64]) {
    for (a, b) in x.iter().zip(X) {
        assert!((a - b).abs() < 1e-12, "{x:?}");
    }
}

/// Column-compressed form of a dense matrix (every entry stored, or only the lower triangle).
fn csc(a: &Mat<f64>, lower: bool) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
    let (mut cp, mut ri, mut v) = (vec![0], Vec::new(), Vec::new());
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            if a[(i, j)] != 0.0 && (!lower || i >= j) {
                ri.push(i);
                v.push(a[(i, j)]);
            }
        }
        cp.push(ri.len());
    }
    (cp, ri, v)
}

#[test]
fn dense_lu_solves_and_reuses_its_storage_for_smaller_orders() {
    let a = nonsym();
    let mut lu = DenseLu::new();
    lu.resize(4, 2);
    lu.matrix_mut().copy_from(&a);
    lu.factor().unwrap();
    let mut b = rhs(&a);
    lu.solve_in_place(&mut b);
    close(&b);
    // The leading 2×2 block in the same storage.
    lu.resize(2, 1);
    lu.matrix_mut().copy_from(a.as_ref().submatrix(0, 0, 2, 2));
    lu.factor().unwrap();
    let mut y = [a[(0, 0)] + a[(0, 1)], a[(1, 0)] + a[(1, 1)]];
    lu.solve_in_place(&mut y);
    assert!((y[0] - 1.0).abs() < 1e-14 && (y[1] - 1.0).abs() < 1e-14);
}

/// The small-order kernel as `DenseLu` runs it (above [`WIDE_MIN`] compiled for the
/// machine's widest vectors and run-time dispatched) gives the bits of the same kernel
/// compiled for the baseline target and of the textbook loop over a runtime order (its
/// rows ≤ k untouched at step k); zeros compared by value (the padded update may flip a
/// zero's sign). The fixed-order solves give the bits of the runtime-order one.
#[test]
fn wide_small_lu_matches_the_baseline_and_the_textbook_loop() {
    let mut seed = 11_u64;
    let mut rnd = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1_u64 << 53) as f64 - 0.5
    };
    for n in 1..=SMALL_LU {
        for _ in 0..20 {
            let a = Mat::<f64>::from_fn(n, n, |_, _| rnd());
            let (mut wide, mut base, mut text) = (a.clone(), a.clone(), a.clone());
            let (mut p1, mut q1, mut p2, mut q2) = (vec![0; n], vec![0; n], vec![0; n], vec![0; n]);
            small_lu_in_place(wide.as_mut(), &mut p1, &mut q1);
            small_lu_dispatch(base.as_mut(), &mut p2, &mut q2);
            assert_eq!((&p1, &q1), (&p2, &q2), "n = {n}");
            // The textbook right-looking loop.
            let mut p3: Vec<usize> = (0..n).collect();
            for k in 0..n {
                let mut piv = k;
                for i in k + 1..n {
                    if text[(i, k)].abs() > text[(piv, k)].abs() {
                        piv = i;
                    }
                }
                if piv != k {
                    for j in 0..n {
                        let t = text[(k, j)];
                        text[(k, j)] = text[(piv, j)];
                        text[(piv, j)] = t;
                    }
                    p3.swap(k, piv);
                }
                let inv = text[(k, k)].recip();
                for i in k + 1..n {
                    text[(i, k)] *= inv;
                }
                for j in k + 1..n {
                    let u = text[(k, j)];
                    for i in k + 1..n {
                        let l = text[(i, k)];
                        text[(i, j)] -= l * u;
                    }
                }
            }
            assert_eq!(p1, p3, "n = {n}");
            for j in 0..n {
                for i in 0..n {
                    let (x, y, z) = (wide[(i, j)], base[(i, j)], text[(i, j)]);
                    assert!(x == y && x == z, "n = {n} ({i}, {j}): {x:e} {y:e} {z:e}");
                }
            }
            // The solve for the order as a constant (n ≤ 16) gives the bits of the loop
            // over a runtime order, for two right-hand sides.
            let b = Mat::<f64>::from_fn(n, 2, |_, _| rnd());
            let (mut fixed, mut generic) = (b.clone(), b.clone());
            small_lu_solve_dispatch(wide.as_ref(), &p1, fixed.as_mut());
            small_lu_solve_in_place(wide.as_ref(), &p1, generic.as_mut());
            for c in 0..2 {
                for i in 0..n {
                    assert_eq!(fixed[(i, c)].to_bits(), generic[(i, c)].to_bits(), "n = {n} ({i}, {c})");
                }
            }
        }
    }
}

/// The small-order kernel gives faer's factorization (same pivots and permutation, the
/// factors to rounding) and solves; orders up to and past [`SMALL_LU`].
#[test]
fn small_orders_factor_like_faer_and_solve() {
    let mut seed = 7_u64;
    let mut rnd = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1_u64 << 53) as f64 - 0.5
    };
    for n in (1..=SMALL_LU + 4).chain([SMALL_LU, 3, 3]) {
        let mut a = Mat::from_fn(n, n, |_, _| rnd());
        if n == 3 {
            // Ties in the pivot search and a zero column below the diagonal.
            a[(1, 0)] = a[(0, 0)];
            a[(2, 1)] = 0.0;
        }
        let mut f = a.clone();
        let (mut perm, mut perm_inv) = (vec![0; n], vec![0; n]);
        let mut mem = MemBuffer::new(lu_req(n, 1));
        lu_factor::lu_in_place(
            f.as_mut(),
            &mut perm,
            &mut perm_inv,
            Par::Seq,
            MemStack::new(&mut mem),
            Default::default(),
        );
        let mut lu = DenseLu::new();
        lu.resize(n, 2);
        lu.matrix_mut().copy_from(&a);
        lu.factor().unwrap();
        assert_eq!(&lu.perm[..n], &perm[..], "n = {n}");
        assert_eq!(&lu.perm_inv[..n], &perm_inv[..], "n = {n}");
        for j in 0..n {
            for i in 0..n {
                assert!((lu.factors()[(i, j)] - f[(i, j)]).abs() <= 1e-12, "n = {n} ({i}, {j})");
            }
        }
        let x = Mat::from_fn(n, 2, |i, j| (i as f64 + 1.0) * if j == 0 { 1.0 } else { -0.5 });
        let mut b = &a * &x;
        lu.solve_mat_in_place(b.as_mut());
        for j in 0..2 {
            for i in 0..n {
                assert!((b[(i, j)] - x[(i, j)]).abs() <= 1e-9 * (1.0 + x[(i, j)].abs()), "n = {n}");
            }
        }
    }
}

#[test]
fn dense_lu_reports_singular_matrices() {
    let mut lu = DenseLu::new();
    lu.resize(2, 1);
    let mut m = lu.matrix_mut();
    m[(0, 0)] = 1.0;
    m[(0, 1)] = 2.0;
    m[(1, 0)] = 2.0;
    m[(1, 1)] = 4.0;
    // The second pivot is the one that vanishes, and the error names it.
    assert_eq!(lu.factor(), Err(Breakdown::Pivot(1)));
    assert!(Breakdown::Pivot(1).to_string().contains("pivot 1"));
    // Nearly singular: factorizes, and the relative pivot test flags it.
    let mut m = lu.matrix_mut();
    m[(0, 0)] = 1.0;
    m[(0, 1)] = 2.0;
    m[(1, 0)] = 2.0;
    m[(1, 1)] = 4.0 + 1e-14;
    let p = lu.factor().unwrap();
    assert!(p.singular(1e-12) && !p.singular(1e-16), "{p:?}");
}

#[test]
fn dense_cholesky_solves_and_rejects_indefinite() {
    let s = spd();
    let mut c = DenseCholesky::new();
    c.resize(4, 1);
    c.matrix_mut().copy_from(&s);
    c.factor().unwrap();
    let mut b = rhs(&s);
    c.solve_in_place(&mut b);
    close(&b);
    c.matrix_mut().copy_from(&s);
    c.matrix_mut()[(3, 3)] = -1.0;
    assert_eq!(c.factor(), Err(Breakdown::NotPositiveDefinite(3)));
}

#[test]
fn sparse_lu_solves_both_ways_and_keeps_the_symbolic_analysis() {
    let a = nonsym();
    let (cp, ri, v) = csc(&a, false);
    // supernodal_from(4): the 4 × 4 matrix is factored supernodally; from 5: faer's rule.
    for mut lu in
        [SparseLu::new(), SparseLu::supernodal(), SparseLu::supernodal_from(4), SparseLu::supernodal_from(5)]
    {
        lu.factor(4, &cp, &ri, &v).unwrap();
        let mut b = rhs(&a);
        lu.solve_in_place(&mut b).unwrap();
        close(&b);
        let at = a.transpose().to_owned();
        let mut bt = rhs(&at);
        lu.solve_transpose_in_place(&mut bt).unwrap();
        close(&bt);
        // New values, same pattern: the symbolic part is reused.
        let v2: Vec<f64> = v.iter().map(|x| 2.0 * x).collect();
        let kept = lu.symbolic.as_ref().map(|s| s as *const _);
        lu.factor(4, &cp, &ri, &v2).unwrap();
        assert_eq!(lu.symbolic.as_ref().map(|s| s as *const _), kept);
        let mut b2: Vec<f64> = rhs(&a).iter().map(|x| 2.0 * x).collect();
        lu.solve_in_place(&mut b2).unwrap();
        close(&b2);
    }
    let mut lu = SparseLu::new();
    assert_eq!(lu.solve_in_place(&mut [1.0]), Err(Breakdown::NotFactored));
}

/// An `n × n` nonsymmetric, diagonally dominant matrix coupling i to i + k (mod n) for each
/// k of `offsets`, and b = A·1.
fn banded(n: usize, offsets: &[usize]) -> (Mat<f64>, Vec<f64>) {
    let a = Mat::from_fn(n, n, |i, j| {
        if i == j {
            4.0 + (i % 3) as f64
        } else if offsets.iter().any(|&k| j == (i + k) % n) {
            0.5 + 0.1 * ((i + 2 * j) % 5) as f64
        } else if offsets.iter().any(|&k| i == (j + k) % n) {
            -0.3
        } else {
            0.0
        }
    });
    let b = (0..n).map(|i| (0..n).map(|j| a[(i, j)]).sum()).collect();
    (a, b)
}

fn ones(x: &[f64]) {
    assert!(x.iter().all(|v| (v - 1.0).abs() < 1e-12), "{x:?}");
}

/// Issue 36: one kept factorization across orders and patterns (grow, shrink, a new
/// pattern of the same order, back) solves each system, the sparse LU bit for bit as a
/// fresh one (a sparse LU kept across a shrink used to fail faer's shape assertions at the
/// solve). The sparse Cholesky is kept the same way, by faer's choice and always supernodal.
#[test]
fn kept_factorizations_follow_changes_of_order_and_pattern() {
    let shapes: [(usize, &[usize]); 6] =
        [(30, &[1]), (10, &[1]), (30, &[2, 5]), (12, &[1]), (3, &[1]), (30, &[1])];
    let mut lus = [SparseLu::new(), SparseLu::supernodal()];
    let mut chols = [SparseCholesky::new(), SparseCholesky::with_supernodal(Supernodal::Always)];
    let (mut dlu, mut dchol) = (DenseLu::new(), DenseCholesky::new());
    for (n, offsets) in shapes {
        let (a, b) = banded(n, offsets);
        let (cp, ri, v) = csc(&a, false);
        for lu in &mut lus {
            lu.factor(n, &cp, &ri, &v).unwrap();
            let mut x = b.clone();
            lu.solve_in_place(&mut x).unwrap();
            ones(&x);
            let mut fresh = lu.clone();
            fresh.factor(n, &cp, &ri, &v).unwrap();
            let mut y = b.clone();
            fresh.solve_in_place(&mut y).unwrap();
            assert_eq!(x, y, "order {n}: kept and fresh LU differ");
        }
        dlu.resize(n, 1);
        dlu.matrix_mut().copy_from(&a);
        dlu.factor().unwrap();
        let mut x = b.clone();
        dlu.solve_in_place(&mut x);
        ones(&x);
        // Symmetric positive definite: A + Aᵀ (diagonally dominant).
        let s = Mat::from_fn(n, n, |i, j| a[(i, j)] + a[(j, i)]);
        let sb: Vec<f64> = (0..n).map(|i| (0..n).map(|j| s[(i, j)]).sum()).collect();
        let (cp, ri, v) = csc(&s, true);
        for chol in &mut chols {
            chol.factor(n, &cp, &ri, &v).unwrap();
            let mut x = sb.clone();
            chol.solve_in_place(&mut x, n, 1).unwrap();
            ones(&x);
        }
        dchol.resize(n, 1);
        dchol.matrix_mut().copy_from(&s);
        dchol.factor().unwrap();
        let mut x = sb;
        dchol.solve_in_place(&mut x);
        ones(&x);
    }
}

#[test]
fn sparse_cholesky_solves_an_spd_matrix() {
    let s = spd();
    let (cp, ri, v) = csc(&s, true);
    let mut c = SparseCholesky::new();
    c.factor(4, &cp, &ri, &v).unwrap();
    let mut b = rhs(&s);
    c.solve_in_place(&mut b, 4, 1).unwrap();
    close(&b);
    let neg: Vec<f64> = v.iter().map(|x| -x).collect();
    assert!(matches!(c.factor(4, &cp, &ri, &neg), Err(Breakdown::NotPositiveDefinite(_))));
    assert_eq!(c.solve_in_place(&mut [1.0; 4], 4, 1), Err(Breakdown::NotFactored));
}

/// CG preconditioned by the factor of the matrix itself ends in one iteration; by the
/// factor of a matrix of the same pattern whose values moved, in a few, at the asked
/// residual; with no iteration allowed, unconverged. `SymLower::mul` is the symmetric product.
#[test]
fn pcg_with_a_kept_factor_solves_the_moved_matrix() {
    let s = spd();
    let (cp, ri, v) = csc(&s, true);
    let lower = SymLower { col_ptr: &cp, row_idx: &ri, values: &v };
    let mut y = vec![0.0; 4];
    lower.mul(&X, &mut y);
    for (a, b) in y.iter().zip(rhs(&s)) {
        assert!((a - b).abs() < 1e-12, "{y:?}");
    }
    let mut c = SparseCholesky::new();
    c.factor(4, &cp, &ri, &v).unwrap();
    let (mut x, mut work) = (vec![0.0; 4], PcgWork::default());
    let out = c.pcg(lower, &rhs(&s), &mut x, (1e-12, 10), &mut work).unwrap();
    assert_eq!((out.iterations, out.converged), (1, true), "{out:?}");
    close(&x);
    // The matrix moves by 5 % on every entry but the diagonal's: the old factor preconditions.
    let mut moved = v.clone();
    for j in 0..4 {
        for k in cp[j]..cp[j + 1] {
            if ri[k] != j {
                moved[k] *= 1.05;
            }
        }
    }
    let m = SymLower { col_ptr: &cp, row_idx: &ri, values: &moved };
    let mut b = vec![0.0; 4];
    m.mul(&X, &mut b);
    let out = c.pcg(m, &b, &mut x, (1e-10, 10), &mut work).unwrap();
    assert!(out.converged && out.iterations > 1 && out.iterations <= 4, "{out:?}");
    assert!(out.rel_residual <= 1e-10);
    for (a, b) in x.iter().zip(X) {
        assert!((a - b).abs() < 1e-8, "{x:?}");
    }
    // A factor far from the matrix (its diagonal ten times larger) is given up early.
    let mut far = v.clone();
    for j in 0..4 {
        for k in cp[j]..cp[j + 1] {
            if ri[k] == j {
                far[k] *= 10.0;
            }
        }
    }
    let mut stale = SparseCholesky::new();
    stale.factor(4, &cp, &ri, &far).unwrap();
    let out = stale.pcg(lower, &rhs(&s), &mut x, (1e-10, 3), &mut work).unwrap();
    assert!(!out.converged && out.iterations < 3, "{out:?}");
    let out = c.pcg(m, &b, &mut x, (1e-10, 0), &mut work).unwrap();
    assert_eq!((out.iterations, out.converged, out.rel_residual), (0, false, 1.0));
    assert_eq!(c.pcg(m, &b[..3], &mut x, (1e-10, 4), &mut work), Err(Breakdown::NotFactored));
    assert_eq!(SparseCholesky::new().pcg(m, &b, &mut x, (1e-10, 4), &mut work), Err(Breakdown::NotFactored));
}

#[test]
fn small_lu_solve_pivots_and_flags_singular() {
    let mut a = [2.0, 1.0, 1.0, 3.0];
    let mut x = [3.0, 5.0];
    assert_eq!(small_lu_solve(2, &mut a, &mut x), Ok(()));
    assert!((x[0] - 0.8).abs() < 1e-15 && (x[1] - 1.4).abs() < 1e-15);
    let a = nonsym();
    let mut m: Vec<f64> = (0..16).map(|k| a[(k / 4, k % 4)]).collect();
    let mut b = rhs(&a);
    assert_eq!(small_lu_solve(4, &mut m, &mut b), Ok(()));
    close(&b);
    let mut z = [0.0, 1.0, 1.0, 0.0];
    let mut c = [1.0, 2.0];
    assert_eq!(small_lu_solve(2, &mut z, &mut c), Ok(()));
    assert_eq!(c, [2.0, 1.0]);
    let mut s = [1.0, 2.0, 2.0, 4.0];
    assert_eq!(small_lu_solve(2, &mut s, &mut [1.0, 1.0]), Err(Breakdown::Pivot(1)));
    assert_eq!(small_lu_solve(2, &mut [0.0; 4], &mut [1.0, 1.0]), Err(Breakdown::Pivot(0)));
    assert_eq!(small_lu_solve(7, &mut [0.0; 49], &mut [1.0; 7]), Err(Breakdown::Pivot(0)));
}

/// xorshift64* from `seed`: uniform numbers in `[lo, hi)`, reproducible.
fn xorshift(seed: u64) -> impl FnMut(f64, f64) -> f64 {
    let mut state = seed;
    move |lo, hi| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let u = (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * u
    }
}

/// A random `n × n` matrix (row-major) of `uniform`'s; every fifth trial with an exact zero
/// (the elimination's `f != 0` skip) and a near-singular last row.
fn small_test_matrix(uniform: &mut impl FnMut(f64, f64) -> f64, n: usize, trial: usize) -> Vec<f64> {
    let mut a: Vec<f64> = (0..n * n).map(|_| uniform(-2.0, 2.0)).collect();
    if trial.is_multiple_of(5) {
        a[0] = 0.0;
        if n > 1 {
            for j in 0..n {
                a[(n - 1) * n + j] = a[j] * 1e-15;
            }
        }
    }
    a
}

#[test]
fn fixed_size_small_lu_solve_matches_the_generic_one_bit_for_bit() {
    let mut uniform = xorshift(0x9E37_79B9_7F4A_7C15);
    for n in 1..=6 {
        for trial in 0..500 {
            let a = small_test_matrix(&mut uniform, n, trial);
            let b: Vec<f64> = (0..n).map(|_| uniform(-3.0, 3.0)).collect();
            let (mut a1, mut b1, mut a2, mut b2) = (a.clone(), b.clone(), a.clone(), b.clone());
            let ok1 = small_lu_solve(n, &mut a1, &mut b1);
            let ok2 = small_lu_solve_dyn(n, &mut a2, &mut b2);
            assert_eq!(ok1, ok2, "n = {n}, a = {a:?}");
            if ok1.is_ok() {
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&b1), bits(&b2), "n = {n}, a = {a:?}");
            }
        }
    }
}

/// Several right-hand sides eliminated together give each column the bits of its own
/// `small_lu_solve`, and the same errors (sizes 1 to 8: the stack path and the fallback).
#[test]
fn small_lu_solve_many_matches_one_solve_per_column_bit_for_bit() {
    let mut uniform = xorshift(0x2545_F491_4F6C_DD1D);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let mut solved = 0;
    for n in 1..=8 {
        for k in [1, 3, 4, 8, 9] {
            for trial in 0..200 {
                let a = small_test_matrix(&mut uniform, n, trial);
                let b: Vec<f64> = (0..n * k).map(|_| uniform(-3.0, 3.0)).collect();
                let mut one = Ok(());
                let mut cols = vec![0.0; n * k];
                for c in 0..k {
                    let (mut ac, mut bc) = (a.clone(), (0..n).map(|i| b[i * k + c]).collect::<Vec<_>>());
                    one = one.and(small_lu_solve(n, &mut ac, &mut bc));
                    (0..n).for_each(|i| cols[i * k + c] = bc[i]);
                }
                let (mut am, mut bm) = (a.clone(), b.clone());
                let many = small_lu_solve_many(n, &mut am, &mut bm, k);
                assert_eq!(many.is_ok(), one.is_ok(), "n = {n}, k = {k}, a = {a:?}");
                if let (Err(Breakdown::Pivot(p)), Err(Breakdown::Pivot(q))) = (many, one) {
                    assert_eq!(p, q);
                }
                if one.is_ok() {
                    assert_eq!(bits(&bm), bits(&cols), "n = {n}, k = {k}, a = {a:?}");
                    solved += 1;
                }
            }
        }
    }
    assert!(solved > 5000, "{solved} systems solved");
}

/// The sparse Cholesky keeps its symbolic analysis while the pattern repeats (new values,
/// one analysis), redoes it for another pattern, and solves several right-hand sides.
#[test]
fn sparse_cholesky_counts_its_analyses_and_solves_blocks_of_right_hand_sides() {
    let s = spd();
    let (cp, ri, v) = csc(&s, true);
    let mut c = SparseCholesky::new();
    for scale in [1.0, 2.0, 0.5] {
        let vs: Vec<f64> = v.iter().map(|x| scale * x).collect();
        c.factor(4, &cp, &ri, &vs).unwrap();
        // Two right-hand sides: A x = b and A (2x) = 2b, scaled with A.
        let mut b: Vec<f64> = rhs(&s).iter().map(|x| scale * x).collect();
        b.extend(rhs(&s).iter().map(|x| 2.0 * scale * x));
        c.solve_in_place(&mut b, 4, 2).unwrap();
        close(&b[..4]);
        close(&b[4..].iter().map(|x| x / 2.0).collect::<Vec<_>>());
    }
    assert_eq!(c.analyses(), 1);
    assert!(c.factor_nnz() >= 4);
    // Another pattern (a diagonal matrix): a new analysis.
    c.factor(3, &[0, 1, 2, 3], &[0, 1, 2], &[2.0, 4.0, 8.0]).unwrap();
    assert_eq!(c.analyses(), 2);
    let mut x = [2.0, 4.0, 8.0];
    c.solve_in_place(&mut x, 3, 1).unwrap();
    ones(&x);
    // A right-hand side of the wrong size is refused, not a panic.
    assert_eq!(c.solve_in_place(&mut [1.0; 4], 4, 1), Err(Breakdown::NotFactored));
}

/// The 6 × 6 KKT matrix `[[P, Bᵀ], [B, −δ I]]`, P = [`spd`] and B two constraint rows.
fn kkt(delta: f64) -> Mat<f64> {
    let p = spd();
    let b = [[1.0, 0.0, 2.0, -1.0], [0.0, 1.0, 1.0, 0.5]];
    Mat::from_fn(6, 6, |i, j| match (i < 4, j < 4) {
        (true, true) => p[(i, j)],
        (false, true) => b[i - 4][j],
        (true, false) => b[j - 4][i],
        (false, false) => {
            if i == j {
                -delta
            } else {
                0.0
            }
        }
    })
}

/// The quasi-definite LDLᵀ of a KKT matrix `[[P, Bᵀ], [B, −δ I]]` (P positive definite, its
/// pivots positive, the last block's negative) solves the system to rounding; plain Cholesky
/// refuses the matrix (naming a pivot), and signs of the wrong length are an error.
#[test]
fn quasi_definite_ldlt_solves_a_kkt_system() {
    let n = 6;
    let k = kkt(1e-3);
    let x: Vec<f64> = (0..n).map(|i| 1.0 + 0.25 * i as f64).collect();
    let rhs_k: Vec<f64> = (0..n).map(|i| (0..n).map(|j| k[(i, j)] * x[j]).sum()).collect();
    let (cp, ri, v) = csc(&k, true);
    let signs = [1, 1, 1, 1, -1, -1];
    let mut c = SparseCholesky::new();
    c.factor_quasi_definite(n, (&cp, &ri, &v), &signs, 1e-12, 1e-14).unwrap();
    let mut got = rhs_k.clone();
    c.solve_in_place(&mut got, n, 1).unwrap();
    let err = got.iter().zip(&x).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(err < 1e-10, "{got:?}");
    assert!(matches!(c.factor(n, &cp, &ri, &v), Err(Breakdown::NotPositiveDefinite(_))));
    assert_eq!(c.analyses(), 1, "one pattern, one analysis, whichever factor");
    assert_eq!(
        c.factor_quasi_definite(n, (&cp, &ri, &v), &signs[..5], 1e-12, 1e-14),
        Err(Breakdown::NotFactored)
    );
}

/// A caller's elimination order (`set_order`): the KKT system of the test above solved with
/// its constraint rows eliminated first (the reduced form's order) as with AMD's; a new order
/// is a new analysis, the same one none; an order that is not a permutation is a
/// `Breakdown::Symbolic`, not a panic, and `None` gives AMD back.
#[test]
fn sparse_cholesky_takes_a_callers_elimination_order() {
    let n = 6;
    let k = kkt(1e-3);
    let x: Vec<f64> = (0..n).map(|i| 1.0 - 0.5 * i as f64).collect();
    let rhs_k: Vec<f64> = (0..n).map(|i| (0..n).map(|j| k[(i, j)] * x[j]).sum()).collect();
    let (cp, ri, v) = csc(&k, true);
    let signs = [1, 1, 1, 1, -1, -1];
    let solve = |c: &mut SparseCholesky| {
        c.factor_quasi_definite(n, (&cp, &ri, &v), &signs, 1e-12, 1e-14)?;
        let mut got = rhs_k.clone();
        c.solve_in_place(&mut got, n, 1)?;
        Ok::<_, Breakdown>(got.iter().zip(&x).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs())))
    };
    let mut c = SparseCholesky::new();
    c.set_order(Some(vec![4, 5, 3, 1, 0, 2]));
    assert!(solve(&mut c).unwrap() < 1e-10);
    c.set_order(Some(vec![4, 5, 3, 1, 0, 2]));
    assert!(solve(&mut c).unwrap() < 1e-10);
    assert_eq!(c.analyses(), 1, "the same order and pattern: one analysis");
    c.set_order(Some(vec![0, 1, 2, 3, 4, 5]));
    assert!(solve(&mut c).unwrap() < 1e-10);
    assert_eq!(c.analyses(), 2, "a new order: a new analysis");
    for bad in [vec![0, 1, 2, 3, 4], vec![0, 1, 2, 3, 4, 4], vec![0, 1, 2, 3, 4, 6]] {
        c.set_order(Some(bad.clone()));
        assert_eq!(solve(&mut c), Err(Breakdown::Symbolic), "{bad:?}");
    }
    c.set_order(None);
    assert!(solve(&mut c).unwrap() < 1e-10);
}

/// `Supernodal::Always` runs faer's supernodal factorization where its own rule picks the
/// simplicial one (these small banded matrices), solves the same systems, keeps its analysis
/// across values and reports a matrix that is not positive definite as the simplicial one does.
#[test]
fn sparse_cholesky_always_supernodal_solves_what_the_automatic_choice_solves() {
    for (n, offsets) in [(30, &[1][..]), (12, &[2, 5]), (3, &[1])] {
        let (a, _) = banded(n, offsets);
        let s = Mat::from_fn(n, n, |i, j| a[(i, j)] + a[(j, i)]);
        let b: Vec<f64> = (0..n).map(|i| (0..n).map(|j| s[(i, j)]).sum()).collect();
        let (cp, ri, v) = csc(&s, true);
        let (mut auto, mut always) =
            (SparseCholesky::new(), SparseCholesky::with_supernodal(Supernodal::Always));
        assert_eq!((auto.supernodal(), always.supernodal()), (Supernodal::Auto, Supernodal::Always));
        for c in [&mut auto, &mut always] {
            assert!(!c.is_supernodal(), "no analysis yet");
            c.factor(n, &cp, &ri, &v).unwrap();
            let mut x = b.clone();
            c.solve_in_place(&mut x, n, 1).unwrap();
            ones(&x);
            let twice: Vec<f64> = v.iter().map(|x| 2.0 * x).collect();
            c.factor(n, &cp, &ri, &twice).unwrap();
            assert_eq!(c.analyses(), 1, "same pattern: one analysis");
            let neg: Vec<f64> = v.iter().map(|x| -x).collect();
            assert!(matches!(c.factor(n, &cp, &ri, &neg), Err(Breakdown::NotPositiveDefinite(_))));
        }
        assert!(always.is_supernodal(), "order {n}");
        assert!(!auto.is_supernodal(), "order {n}: faer's rule picks the simplicial code here");
    }
}

/// `set_supernodal` switches a kept factor's numeric factorization: the quasi-definite KKT
/// system of the tests above solved alike either way, a new choice a new analysis (the same
/// choice none).
#[test]
fn set_supernodal_switches_the_factorization_and_redoes_the_analysis() {
    let n = 6;
    let k = kkt(1e-3);
    let x: Vec<f64> = (0..n).map(|i| 2.0 - 0.3 * i as f64).collect();
    let rhs_k: Vec<f64> = (0..n).map(|i| (0..n).map(|j| k[(i, j)] * x[j]).sum()).collect();
    let (cp, ri, v) = csc(&k, true);
    let signs = [1, 1, 1, 1, -1, -1];
    let mut c = SparseCholesky::new();
    c.set_order(Some(vec![4, 5, 3, 1, 0, 2]));
    for (choice, analyses) in
        [(Supernodal::Auto, 1), (Supernodal::Always, 2), (Supernodal::Always, 2), (Supernodal::Auto, 3)]
    {
        c.set_supernodal(choice);
        assert_eq!(c.supernodal(), choice);
        c.factor_quasi_definite(n, (&cp, &ri, &v), &signs, 1e-12, 1e-14).unwrap();
        assert_eq!((c.analyses(), c.is_supernodal()), (analyses, choice == Supernodal::Always));
        let mut got = rhs_k.clone();
        c.solve_in_place(&mut got, n, 1).unwrap();
        let err = got.iter().zip(&x).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(err < 1e-10, "{choice:?}: {got:?}");
    }
}

/// `Ordering::Given` factors a matrix that comes in `amd_order`'s order and solves its systems
/// as the default (which orders the matrix itself) solves the unordered ones (to rounding),
/// with one analysis for repeated values; a malformed pattern is an error, not a panic.
#[test]
fn a_matrix_given_in_its_amd_order_solves_as_the_default_orders_it() {
    for (n, offsets) in [(30, &[1, 7][..]), (12, &[2, 5]), (1, &[])] {
        let (a, _) = banded(n, offsets);
        let s = Mat::from_fn(n, n, |i, j| a[(i, j)] + a[(j, i)]);
        let b: Vec<f64> = (0..n).map(|i| (0..n).map(|j| s[(i, j)] * (1.0 + j as f64)).sum()).collect();
        let (cp, ri, v) = csc(&s, true);
        let perm = amd_order(n, &cp, &ri).unwrap();
        let mut seen = perm.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..n).collect::<Vec<_>>(), "a permutation");
        let p = Mat::from_fn(n, n, |i, j| s[(perm[i], perm[j])]);
        let (pcp, pri, pv) = csc(&p, true);
        let mut amd = SparseCholesky::with_supernodal(Supernodal::Always);
        let mut given = SparseCholesky::with_supernodal(Supernodal::Always).with_ordering(Ordering::Given);
        amd.factor(n, &cp, &ri, &v).unwrap();
        given.factor(n, &pcp, &pri, &pv).unwrap();
        given.factor(n, &pcp, &pri, &pv).unwrap();
        assert_eq!(given.analyses(), 1);
        let mut x = b.clone();
        amd.solve_in_place(&mut x, n, 1).unwrap();
        let mut y: Vec<f64> = perm.iter().map(|&j| b[j]).collect();
        given.solve_in_place(&mut y, n, 1).unwrap();
        for (k, &j) in perm.iter().enumerate() {
            assert!((y[k] - x[j]).abs() <= 1e-14 * x[j].abs(), "order {n}, unknown {j}: {} {}", y[k], x[j]);
            assert!((x[j] - (1.0 + j as f64)).abs() < 1e-10 * (1.0 + j as f64));
        }
    }
    assert!(matches!(amd_order(2, &[0, 1], &[0]), Err(Breakdown::Symbolic)));
    assert!(matches!(amd_order(2, &[0, 1, 2], &[0, 5]), Err(Breakdown::Symbolic)));
}

/// Factors `a` with `lu` and with faer's pivoting LU, and checks both solve `b` alike (1e-12).
fn solves_as_faer(lu: &mut PatternLu, a: &Mat<f64>, b: &[f64]) {
    let n = a.nrows();
    let (cp, ri, v) = csc(a, false);
    lu.factor(n, &cp, &ri, &v).unwrap();
    let mut x = b.to_vec();
    lu.solve_in_place(&mut x).unwrap();
    let mut faer_lu = SparseLu::new();
    faer_lu.factor(n, &cp, &ri, &v).unwrap();
    let mut y = b.to_vec();
    faer_lu.solve_in_place(&mut y).unwrap();
    for (p, q) in x.iter().zip(&y) {
        assert!((p - q).abs() <= 1e-12 * (1.0 + q.abs()), "{p} against {q}");
    }
}

/// [`PatternLu`]: unsymmetric values on symmetric patterns (the banded matrices above, and a
/// grid with unsymmetric couplings) solved to the answer and as faer's pivoting LU solves
/// them; the analysis kept while the pattern repeats; a nonsymmetric pattern refused, a zero
/// pivot a breakdown after which the next matrix still factors.
#[test]
fn pattern_lu_solves_unsymmetric_values_on_a_symmetric_pattern() {
    let mut lu = PatternLu::new();
    let mut x = [1.0];
    assert_eq!(lu.solve_in_place(&mut x), Err(Breakdown::NotFactored));
    let shapes: [(usize, &[usize]); 5] = [(30, &[1]), (30, &[2, 5]), (12, &[1]), (30, &[2, 5]), (3, &[1])];
    let mut analyses = 0;
    let mut last: Option<(usize, Vec<usize>)> = None;
    for (n, offsets) in shapes {
        let (a, b) = banded(n, offsets);
        let (cp, ri, v) = csc(&a, false);
        lu.factor(n, &cp, &ri, &v).unwrap();
        if last.as_ref() != Some(&(n, ri.clone())) {
            analyses += 1;
        }
        assert_eq!(lu.analyses(), analyses);
        last = Some((n, ri.clone()));
        let mut x = b.clone();
        lu.solve_in_place(&mut x).unwrap();
        ones(&x);
    }
    // The same pattern again: no analysis.
    let (a, b) = banded(30, &[2, 5]);
    let (cp, ri, v) = csc(&a, false);
    lu.factor(30, &cp, &ri, &v).unwrap();
    lu.factor(30, &cp, &ri, &v).unwrap();
    assert_eq!(lu.analyses(), analyses + 1);
    let mut x = b.clone();
    lu.solve_in_place(&mut x).unwrap();
    ones(&x);

    // A 12 × 12 grid, unsymmetric couplings (an advection term), against faer's LU.
    let side = 12;
    let n = side * side;
    let g = Mat::from_fn(n, n, |i, j| {
        let (ri, ci, rj, cj) = (i / side, i % side, j / side, j % side);
        if i == j {
            4.5
        } else if ri.abs_diff(rj) + ci.abs_diff(cj) == 1 {
            if j > i {
                -1.3
            } else {
                -0.6
            }
        } else {
            0.0
        }
    });
    let b: Vec<f64> = (0..n).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
    solves_as_faer(&mut lu, &g, &b);
    // The fill of a Cholesky factor of the pattern, fewer than a dense triangle.
    assert!(lu.factor_nonzeros() > 0 && lu.factor_nonzeros() < n * (n - 1) / 2);

    // A nonsymmetric pattern.
    let a = Mat::from_fn(3, 3, |i, j| {
        if i == j {
            2.0
        } else if i == 0 && j == 2 {
            1.0
        } else {
            0.0
        }
    });
    let (cp, ri, v) = csc(&a, false);
    assert_eq!(lu.factor(3, &cp, &ri, &v), Err(Breakdown::Symbolic));
    assert_eq!(lu.solve_in_place(&mut [0.0; 3]), Err(Breakdown::NotFactored));
    // The swap matrix: one node of two indistinguishable unknowns, pivoted inside the node.
    let (mut cp, mut ri) = (vec![0, 2, 4], vec![0, 1, 0, 1]);
    let mut v = vec![0.0, 1.0, 1.0, 0.0];
    lu.factor(2, &cp, &ri, &v).unwrap();
    assert_eq!(lu.nodes(), 1);
    let mut x = vec![2.0, 3.0];
    lu.solve_in_place(&mut x).unwrap();
    assert_eq!(x, [3.0, 2.0]);
    // A path 0 - 1 - 2 - 3 (four nodes) with zero diagonal ends: the minimum degree starts
    // from an end, whose pivot is zero (the matrix is not singular: det = 1).
    let path = |d: f64| {
        Mat::from_fn(4, 4, |i, j| {
            if i.abs_diff(j) == 1 {
                1.0
            } else if i == j {
                if i == 0 || i == 3 {
                    d
                } else {
                    1.0
                }
            } else {
                0.0
            }
        })
    };
    // The pattern holds the diagonal, zeros included.
    let full = |a: &Mat<f64>| {
        let (mut c, mut r, mut v) = (vec![0], Vec::new(), Vec::new());
        for j in 0..4_usize {
            for i in 0..4_usize {
                if i == j || i.abs_diff(j) == 1 {
                    r.push(i);
                    v.push(a[(i, j)]);
                }
            }
            c.push(r.len());
        }
        (c, r, v)
    };
    let (pc, pr, pv) = full(&path(0.0));
    assert!(matches!(lu.factor(4, &pc, &pr, &pv), Err(Breakdown::Pivot(_))));
    assert_eq!(lu.nodes(), 4);
    let (_, _, pv) = full(&path(2.0));
    lu.factor(4, &pc, &pr, &pv).unwrap();
    let a = path(2.0);
    let mut x: Vec<f64> = (0..4).map(|i| (0..4).map(|j| a[(i, j)]).sum()).collect();
    lu.solve_in_place(&mut x).unwrap();
    ones(&x);
    v = vec![3.0, 1.0, 1.0, 2.0];
    // The wrong lengths.
    cp.pop();
    ri.pop();
    assert_eq!(lu.factor(2, &cp, &ri, &v), Err(Breakdown::Symbolic));
}

/// [`PatternLu`]'s nodes: bodies of six unknowns joined by contacts (a ring of 7 bodies and a
/// chord, the body graph of a pile) are eliminated six at a time; a dense 40 × 40 matrix is one
/// set of indistinguishable unknowns cut in nodes of at most `MAX_NODE`. Both solve as faer's
/// pivoting LU does, and a refactorization of new values on the kept analysis too.
#[test]
fn pattern_lu_eliminates_indistinguishable_unknowns_together() {
    let bodies = 7;
    let n = 6 * bodies;
    let joined = |a: usize, b: usize| {
        a == b || (a + 1) % bodies == b || (b + 1) % bodies == a || a.min(b) == 0 && a.max(b) == 3
    };
    let value = |i: usize, j: usize, t: f64| {
        if i == j {
            30.0 + (i % 5) as f64
        } else {
            ((i * 7 + j * 3) % 11) as f64 * 0.1 - 0.55 + t * ((i + 2 * j) % 3) as f64
        }
    };
    let mut lu = PatternLu::new();
    for (t, expect_analyses) in [(0.0, 1), (0.7, 1)] {
        let a = Mat::from_fn(n, n, |i, j| if joined(i / 6, j / 6) { value(i, j, t) } else { 0.0 });
        let b: Vec<f64> = (0..n).map(|i| (i % 4) as f64 - 1.5).collect();
        solves_as_faer(&mut lu, &a, &b);
        assert_eq!((lu.nodes(), lu.analyses()), (bodies, expect_analyses));
    }
    let dense = Mat::from_fn(40, 40, |i, j| value(i, j, 0.3));
    let (cp, ri, v) = csc(&dense, false);
    lu.factor(40, &cp, &ri, &v).unwrap();
    assert_eq!(lu.nodes(), 40_usize.div_ceil(pattern_lu::MAX_NODE));
    let b: Vec<f64> = (0..40).map(|i| (0..40).map(|j| dense[(i, j)]).sum()).collect();
    let mut x = b.clone();
    lu.solve_in_place(&mut x).unwrap();
    assert!(x.iter().all(|v| (v - 1.0).abs() < 1e-12), "{x:?}");
}
