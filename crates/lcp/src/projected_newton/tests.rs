use super::*;
use faer::Mat;
use proptest::prelude::*;

fn dense(n: usize, a: &[f64]) -> Matrix {
    Matrix::from_row_major(n, n, a).unwrap()
}

fn solve(p: &Lcp, warm: Option<&[f64]>, s: &Settings) -> Solution {
    ProjectedNewton::new().solve(p, warm, s).unwrap()
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn interior_solution_in_one_newton_step() {
    // z = 0: w = q = (−5, −6) < 0, so I⁺ = ∅ and F = {0, 1}; the Newton step
    // d = M⁻¹(5, 6) = (4/3, 7/3) is the solution, accepted at α = 1.
    let p = Lcp::new(dense(2, &[2.0, 1.0, 1.0, 2.0]), vec![-5.0, -6.0]).unwrap();
    let s = solve(&p, None, &Settings { tol: 1e-14, ..Settings::default() });
    assert_eq!(s.report.status, Status::Solved);
    assert!(close(&s.z, &[4.0 / 3.0, 7.0 / 3.0], 1e-14), "{:?}", s.z);
    assert_eq!((s.report.iterations, s.report.factorizations, s.report.line_search_steps), (1, 1, 1));
    assert_eq!(s.report.solver, "projected-newton");
}

#[test]
fn lower_bound_active() {
    // M = I, q = (−1, 2), z = 0: ‖z − P(z − D̄w)‖ = 1 (D̄ = I) so ε = ε̄ = 1e-3; z₁ = 0
    // with w₁ = 2 > 0 is ε-active (d₁ = −2, projected back to 0), F = {0} with d₀ = 1:
    // z = (1, 0).
    let p = Lcp::new(dense(2, &[1.0, 0.0, 0.0, 1.0]), vec![-1.0, 2.0]).unwrap();
    let s = solve(&p, None, &Settings::default());
    assert_eq!(s.report.status, Status::Solved);
    assert_eq!(s.z, vec![1.0, 0.0]);
    assert_eq!(s.w, vec![0.0, 2.0]);
    assert_eq!((s.report.iterations, s.report.factorizations), (1, 1));
}

#[test]
fn box_case_by_hand() {
    // M = [[2,1],[1,2]], q = (−5,−6), 0 ≤ z ≤ (1, 3).
    // Step 1 (F = {0,1}): Newton point (4/3, 7/3), projected to (1, 7/3); accepted at α = 1.
    // Step 2: w = (−2/3, −1/3); ‖z − P(z − w/2)‖ = 1/6, ε = 1e-3; z₀ = hi₀ with w₀ < 0 is
    // active; F = {1}: d₁ = (1/3)/2 = 1/6, z = (1, 5/2), w = (−1/2, 0): solved.
    let inf = f64::INFINITY;
    let m = dense(2, &[2.0, 1.0, 1.0, 2.0]);
    let p = Lcp::with_bounds(m.clone(), vec![-5.0, -6.0], vec![0.0, 0.0], vec![1.0, 3.0]).unwrap();
    let s = solve(&p, None, &Settings { tol: 1e-14, ..Settings::default() });
    assert_eq!(s.report.status, Status::Solved);
    assert!(close(&s.z, &[1.0, 2.5], 1e-15), "{:?}", s.z);
    assert!(close(&s.w, &[-0.5, 0.0], 1e-15), "{:?}", s.w);
    assert_eq!((s.report.iterations, s.report.factorizations, s.report.line_search_steps), (2, 2, 2));
    // One step only: the projected Newton point (1, 7/3).
    let s1 = solve(&p, None, &Settings { max_iter: 1, ..Settings::default() });
    assert_eq!((s1.report.status, s1.report.iterations), (Status::MaxIterations, 1));
    assert!(close(&s1.z, &[1.0, 7.0 / 3.0], 1e-15), "{:?}", s1.z);
    // Unbounded variables (lo = −∞, hi = +∞): one Newton step solves M z = −q.
    let p = Lcp::with_bounds(m, vec![-5.0, -6.0], vec![-inf; 2], vec![inf; 2]).unwrap();
    let s = solve(&p, None, &Settings { tol: 1e-14, ..Settings::default() });
    assert_eq!((s.report.status, s.report.iterations), (Status::Solved, 1));
    assert!(close(&s.z, &[4.0 / 3.0, 7.0 / 3.0], 1e-14));
}

#[test]
fn one_step_with_backtracking_matches_hand_computation() {
    // M = [[1,1],[1,2]], q = (−4, 0), z = 0: w = (−4, 0), nothing ε-active (w₁ = 0 is not
    // > 0), F = {0,1}. d = −M⁻¹w = [[2,−1],[−1,1]]·(4, 0) = (8, −4); −Σ wᵢdᵢ = 32.
    // α = 1: z(1) = P(8, −4) = (8, 0), f = ½·64 − 32 = 0: no decrease, rejected.
    // α = ½: z(½) = (4, 0), f = 8 − 16 = −8 ≥ σ·½·32 below f(0) = 0: accepted.
    // (4, 0) with w = (0, 4) is the solution.
    let p = Lcp::new(dense(2, &[1.0, 1.0, 1.0, 2.0]), vec![-4.0, 0.0]).unwrap();
    let s = solve(&p, None, &Settings { tol: 1e-14, ..Settings::default() });
    assert_eq!(s.report.status, Status::Solved);
    assert!(close(&s.z, &[4.0, 0.0], 1e-14) && close(&s.w, &[0.0, 4.0], 1e-14), "{:?} {:?}", s.z, s.w);
    assert_eq!((s.report.iterations, s.report.factorizations, s.report.line_search_steps), (1, 1, 2));
}

#[test]
fn psd_singular_block_is_regularized() {
    // M = [[1,1],[1,1]], q = (−1,−1): every z ≥ 0 with z₀ + z₁ = 1 solves. At z = 0 the
    // free block is M itself, whose Cholesky meets a zero pivot; with δ = 1e-12 the step
    // (M + δI)⁻¹(1, 1) = (1, 1)/(2 + δ) lands within 1e-12 of (½, ½).
    let p = Lcp::new(dense(2, &[1.0, 1.0, 1.0, 1.0]), vec![-1.0, -1.0]).unwrap();
    let st = Settings { tol: 1e-10, ..Settings::default() };
    let s = solve(&p, None, &st);
    assert_eq!(s.report.status, Status::Solved, "{:?}", s.report.message);
    assert!(s.report.error <= st.tol);
    assert!((s.z[0] + s.z[1] - 1.0).abs() < 1e-10 && s.z.iter().all(|&v| v >= 0.0));
    assert_eq!((s.report.iterations, s.report.factorizations), (1, 2));
}

#[test]
fn unbounded_psd_problem_is_infeasible() {
    // M = [[1,−1],[−1,1]], q = (−1,−1): z = t(1,1) gives w = q < 0 for every t, so no z
    // solves; f(t(1,1)) = −2t is unbounded along the zero-curvature ray r = (1, 1).
    let p = Lcp::new(dense(2, &[1.0, -1.0, -1.0, 1.0]), vec![-1.0, -1.0]).unwrap();
    let s = solve(&p, None, &Settings::default());
    assert_eq!(s.report.status, Status::Infeasible);
    assert!(s.report.message.as_deref().unwrap().contains("unbounded below"), "{:?}", s.report.message);
    assert_eq!(s.report.iterations, 1);
}

#[test]
fn indefinite_matrix_is_a_numerical_failure() {
    // M = [[1,2],[2,1]] has eigenvalue −1; at z = 0 both variables are free and the
    // second pivot is 1 − 4 = −3 for every δ ≤ 1e-8: 1 + 3 attempts.
    let p = Lcp::new(dense(2, &[1.0, 2.0, 2.0, 1.0]), vec![-1.0, -1.0]).unwrap();
    let s = solve(&p, None, &Settings::default());
    assert_eq!(s.report.status, Status::NumericalFailure);
    assert!(s.report.message.as_deref().unwrap().contains("not positive semidefinite"));
    assert_eq!(s.report.factorizations, 4);
}

#[test]
fn non_symmetric_matrix_is_refused_naming_the_pair() {
    let p = Lcp::new(dense(2, &[2.0, 1.0, 0.5, 2.0]), vec![-1.0, -1.0]).unwrap();
    let e = ProjectedNewton::new().solve(&p, None, &Settings::default()).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::Requirement { .. }), "{msg}");
    assert!(msg.contains("M[1][0] = 0.5 but M[0][1] = 1") && msg.contains("lemke"), "{msg}");
}

#[test]
fn bad_settings_and_warm_start_are_errors() {
    let p = Lcp::new(dense(1, &[1.0]), vec![-1.0]).unwrap();
    let mut pn = ProjectedNewton { sigma: 0.7, ..ProjectedNewton::new() };
    assert!(matches!(pn.solve(&p, None, &Settings::default()), Err(Error::InvalidSetting { .. })));
    let e = ProjectedNewton::new().solve(&p, Some(&[1.0, 2.0]), &Settings::default()).unwrap_err();
    assert!(matches!(e, Error::DimensionMismatch { .. }), "{e}");
    pn.sigma = 1e-4;
    pn.reg_min = 1.0;
    assert!(pn.validate().is_err());
}

#[test]
fn warm_start_at_the_solution_costs_no_iteration() {
    let p = Lcp::new(dense(2, &[1.0, 0.0, 0.0, 1.0]), vec![-1.0, 2.0]).unwrap();
    let s = solve(&p, Some(&[1.0, 0.0]), &Settings::default());
    assert_eq!((s.report.status, s.report.iterations, s.report.factorizations), (Status::Solved, 0, 0));
    // A warm start outside the bounds is projected first: (1, −3) → (1, 0).
    let s = solve(&p, Some(&[1.0, -3.0]), &Settings::default());
    assert_eq!((s.report.status, s.report.iterations), (Status::Solved, 0));
}

#[test]
fn empty_problem_is_solved_at_once() {
    let p = Lcp::new(Matrix::from_row_major(0, 0, &[]).unwrap(), vec![]).unwrap();
    let s = solve(&p, None, &Settings::default());
    assert_eq!((s.report.status, s.report.iterations), (Status::Solved, 0));
}

/// A tridiagonal SPD matrix (2.5 on the diagonal, −1 off it) and a q with both signs.
fn tridiagonal(n: usize) -> (Vec<(usize, usize, f64)>, Vec<f64>) {
    let mut t = Vec::new();
    for i in 0..n {
        t.push((i, i, 2.5));
        if i + 1 < n {
            t.push((i, i + 1, -1.0));
            t.push((i + 1, i, -1.0));
        }
    }
    let q = (0..n).map(|i| ((i * 7 % 11) as f64 - 5.0) / 5.0).collect();
    (t, q)
}

#[test]
fn dense_and_sparse_inputs_agree() {
    // n = 8 exercises the densified sparse path, n = 400 (free blocks > dense_limit) the
    // sparse Cholesky; both must match the dense-storage solve.
    for n in [8, 400] {
        let (t, q) = tridiagonal(n);
        let sp = Matrix::from_triplets(n, n, &t).unwrap();
        let de = Matrix::Dense(sp.to_dense());
        let st = Settings { tol: 1e-12, ..Settings::default() };
        let mut pn = ProjectedNewton::new();
        let a = pn.solve(&Lcp::new(de, q.clone()).unwrap(), None, &st).unwrap();
        let b = pn.solve(&Lcp::new(sp.clone(), q.clone()).unwrap(), None, &st).unwrap();
        let csc = Matrix::Sparse(sp.to_csr().to_csc());
        let c = pn.solve(&Lcp::new(csc, q).unwrap(), None, &st).unwrap();
        for s in [&a, &b, &c] {
            assert_eq!(s.report.status, Status::Solved, "n = {n}: {:?}", s.report);
        }
        assert!(close(&a.z, &b.z, 1e-10) && close(&a.z, &c.z, 1e-10), "n = {n}");
        assert_eq!(a.report.iterations, b.report.iterations);
    }
}

#[test]
fn singular_sparse_laplacian_through_the_sparse_cholesky() {
    // The path-graph Laplacian (n = 150 > dense_limit, so faer's sparse Cholesky) is PSD
    // with null vector 1. Standard LCP with q = −1: r = 1 ≥ 0 has M r = 0 and qᵀr < 0,
    // so there is no solution, and the first (regularized) step exposes that ray.
    let n = 150;
    let mut t = Vec::new();
    for i in 0..n {
        t.push((i, i, if i == 0 || i == n - 1 { 1.0 } else { 2.0 }));
        if i + 1 < n {
            t.push((i, i + 1, -1.0));
            t.push((i + 1, i, -1.0));
        }
    }
    let m = Matrix::from_triplets(n, n, &t).unwrap();
    let s = solve(&Lcp::new(m.clone(), vec![-1.0; n]).unwrap(), None, &Settings::default());
    assert_eq!((s.report.status, s.report.iterations), (Status::Infeasible, 1), "{:?}", s.report);
    // In the box [−1, 1]ⁿ the QP is bounded, so a solution exists and is found.
    let q: Vec<f64> = (0..n).map(|i| ((i * 7 % 11) as f64 - 5.0) / 5.0).collect();
    let p = Lcp::with_bounds(m, q, vec![-1.0; n], vec![1.0; n]).unwrap();
    let s = solve(&p, None, &Settings { tol: 1e-10, ..Settings::default() });
    assert_eq!(s.report.status, Status::Solved, "{:?}", s.report);
}

#[test]
fn scaling_m_and_q_together_changes_nothing() {
    // (cM, cq) has the same solutions and, with ε_k measured through D̄ = diag(M)⁻¹ and
    // every other test relative, the same iterates: c = 1e5 mimics Siconos' lcp_mmc
    // (diag(M) ≈ 1e5), where an unscaled ε_k made the method crawl.
    // z* ≈ 1e-4 < ε̄ as in lcp_mmc.
    let (t, q) = tridiagonal(12);
    let base = Matrix::from_triplets(12, 12, &t).unwrap().to_dense();
    let run = |c: f64| {
        let m = Matrix::Dense(Mat::from_fn(12, 12, |i, j| c * base[(i, j)]));
        let qc: Vec<f64> = q.iter().map(|v| 1e-4 * c * v).collect();
        solve(&Lcp::new(m, qc).unwrap(), None, &Settings { tol: 1e-13, ..Settings::default() })
    };
    let one = run(1.0);
    assert_eq!((one.report.status, one.report.iterations), (Status::Solved, 2));
    for c in [1e5, 1e-5] {
        let s = run(c);
        assert_eq!(
            (s.report.status, s.report.iterations),
            (Status::Solved, one.report.iterations),
            "c = {c}"
        );
        assert!(close(&s.z, &one.z, 1e-16), "c = {c}");
    }
}

/// Row-major A Aᵀ (+ `shift`·I) for a row-major n×k matrix A.
fn gram(n: usize, k: usize, a: &[f64], shift: f64) -> Vec<f64> {
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            m[i * n + j] = (0..k).map(|l| a[i * k + l] * a[j * k + l]).sum::<f64>();
        }
        m[i * n + i] += shift;
    }
    m
}

/// `z ≥ 0`, `w ≥ −1e-8`, `|zᵢwᵢ| ≤ 1e-8·max(1, ‖z‖∞)`. The scale factor matters only
/// for PSD problems whose solution set is unbounded and reached far out: there `w` is
/// only known to `ε‖M‖‖z‖` in floating point (one such problem, found by proptest, is
/// solved at ‖z‖∞ = 2e5 with w = −8e-13), so no solver can promise `|zᵢwᵢ| ≤ 1e-8`.
fn complementary(s: &Solution) {
    let scale = s.z.iter().fold(1.0_f64, |a, v| a.max(v.abs()));
    for (z, w) in s.z.iter().zip(&s.w) {
        assert!(*z >= 0.0 && *w >= -1e-8 && (z * w).abs() <= 1e-8 * scale, "z = {z}, w = {w}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn spd_problems_are_solved(
        (n, a, q) in (1usize..=10).prop_flat_map(|n| (
            Just(n),
            proptest::collection::vec(-1.0f64..1.0, n * n),
            proptest::collection::vec(-1.0f64..1.0, n),
        ))
    ) {
        let m = dense(n, &gram(n, n, &a, 1.0));
        let p = Lcp::new(m, q).unwrap();
        let s = solve(&p, None, &Settings { tol: 1e-10, ..Settings::default() });
        prop_assert_eq!(s.report.status, Status::Solved, "{:?}", s.report);
        complementary(&s);
    }

    #[test]
    fn psd_problems_are_solved_or_not_claimed(
        (n, k, a, q) in (2usize..=10).prop_flat_map(|n| (1..n).prop_flat_map(move |k| (
            Just(n),
            Just(k),
            proptest::collection::vec(-1.0f64..1.0, n * k),
            proptest::collection::vec(-1.0f64..1.0, n),
        )))
    ) {
        let m = dense(n, &gram(n, k, &a, 0.0));
        let p = Lcp::new(m, q).unwrap();
        let tol = 1e-10;
        let s = solve(&p, None, &Settings { tol, ..Settings::default() });
        if s.report.status == Status::Solved {
            prop_assert!(s.report.error <= tol);
            complementary(&s);
        } else {
            prop_assert!(s.report.error > tol, "{:?}", s.report);
        }
    }

    #[test]
    fn psd_box_problems_are_solved(
        (n, k, a, q, lo, hi) in (2usize..=10).prop_flat_map(|n| (1..n).prop_flat_map(move |k| (
            Just(n),
            Just(k),
            proptest::collection::vec(-1.0f64..1.0, n * k),
            proptest::collection::vec(-1.0f64..1.0, n),
            proptest::collection::vec(-1.0f64..0.0, n),
            proptest::collection::vec(0.0f64..1.0, n),
        )))
    ) {
        // A bounded convex QP always has a minimizer: the box-LCP always has a solution.
        let m = dense(n, &gram(n, k, &a, 0.0));
        let p = Lcp::with_bounds(m, q, lo.clone(), hi.clone()).unwrap();
        let s = solve(&p, None, &Settings { tol: 1e-10, ..Settings::default() });
        prop_assert_eq!(s.report.status, Status::Solved, "{:?}", s.report);
        for i in 0..n {
            prop_assert!(lo[i] <= s.z[i] && s.z[i] <= hi[i]);
        }
    }
}
