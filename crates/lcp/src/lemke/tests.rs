use super::*;
use perp_core::{Matrix, Solution};

fn lcp(n: usize, row_major: &[f64], q: &[f64]) -> Lcp {
    Lcp::new(Matrix::from_row_major(n, n, row_major).unwrap(), q.to_vec()).unwrap()
}

fn solve(p: &Lcp, s: &Settings) -> Solution {
    Lemke::new().solve(p, None, s).unwrap()
}

/// The warm start's small bases go to the shared small kernel: the principal system gathered
/// by rows (its layout) solves to the known answer, and a singular basis is refused with the
/// pivot named.
#[test]
fn small_bases_gathered_by_rows_solve_with_the_shared_kernel() {
    // M = [[0, 2, 1, 9], [1, 1, 0, 9], [3, 0, 4, 9], [9, 9, 9, 9]]; the support {0, 1, 2} needs
    // a row swap at its first column.
    let m = [[0.0, 2.0, 1.0, 9.0], [1.0, 1.0, 0.0, 9.0], [3.0, 0.0, 4.0, 9.0], [9.0; 4]];
    let x_true = [1.5, -2.0, 0.25];
    let idx = [0, 1, 2];
    let q: Vec<f64> =
        (0..4).map(|r| if r < 3 { -(0..3).map(|c| m[r][c] * x_true[c]).sum::<f64>() } else { 0.0 }).collect();
    let mut lu = dense::LuScratch::empty();
    lu.reserve(4);
    lu.gather_principal(&idx, &q, |i, j| m[i][j], true);
    perp_core::linear::small_lu_solve(3, &mut lu.a[..9], &mut lu.x[..3]).unwrap();
    for (x, t) in lu.x[..3].iter().zip(x_true) {
        assert!((x - t).abs() < 1e-14, "{:?}", &lu.x[..3]);
    }
    let singular = [[1.0, 2.0], [2.0, 4.0]];
    lu.gather_principal(&[0, 1], &[1.0, 1.0], |i, j| singular[i][j], true);
    let got = perp_core::linear::small_lu_solve(2, &mut lu.a[..4], &mut lu.x[..2]);
    assert_eq!(got, Err(perp_core::linear::Breakdown::Pivot(1)));
}

/// Murty's example (Murty 1988 ch. 6): M upper triangular, 1 on the diagonal and 2 above,
/// qᵢ = −(2ⁿ⁺¹ − 2ⁱ), i = 1..n; its solution is z = (0, …, 0, 2ⁿ⁺¹ − 2ⁿ).
pub(crate) fn murty(n: usize) -> Lcp {
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        m[i * n + i] = 1.0;
        for j in i + 1..n {
            m[i * n + j] = 2.0;
        }
    }
    let q: Vec<f64> = (1..=n).map(|i| -(2f64.powi(n as i32 + 1) - 2f64.powi(i as i32))).collect();
    lcp(n, &m, &q)
}

#[test]
fn first_pivot_brings_z0_in_at_the_most_negative_q() {
    // One pivot on M = [2], q = (−4): z₀ enters (value 4, w leaves), then z enters and
    // z₀ leaves: z = 2 after 2 pivots.
    let p = lcp(1, &[2.0], &[-4.0]);
    let s = solve(&p, &Settings::default());
    assert_eq!(s.report.status, Status::Solved);
    assert_eq!(s.report.pivots, 2);
    assert_eq!(s.z, vec![2.0]);
}

#[test]
fn nonnegative_q_needs_no_pivot() {
    let s = solve(&lcp(2, &[1.0, 0.0, 0.0, 1.0], &[0.0, 3.0]), &Settings::default());
    assert_eq!((s.report.status, s.report.pivots), (Status::Solved, 0));
    assert_eq!(s.z, vec![0.0, 0.0]);
}

#[test]
fn cps_example_4_4_7_is_solved() {
    // CPS 2009 example 4.4.7 (Siconos lcp_CPS_2): M = [[0,−1,2],[2,0,−2],[−1,1,0]].
    let p = lcp(3, &[0.0, -1.0, 2.0, 2.0, 0.0, -2.0, -1.0, 1.0, 0.0], &[-3.0, 6.0, -1.0]);
    let s = solve(&p, &Settings { tol: 1e-12, ..Settings::default() });
    assert_eq!(s.report.status, Status::Solved, "{:?}", s.report);
    assert!(s.z.iter().all(|&z| z >= 0.0) && s.w.iter().all(|&w| w >= -1e-12));
}

#[test]
fn murty_pivot_counts_are_exponential() {
    for (n, pivots) in [(2, 4), (3, 8), (4, 16), (6, 64), (8, 256), (10, 1024)] {
        let p = murty(n);
        let s = solve(&p, &Settings { tol: 1e-12, ..Settings::default() });
        assert_eq!(s.report.status, Status::Solved, "n = {n}");
        assert_eq!(s.report.pivots, pivots, "n = {n}");
        let mut expect = vec![0.0; n];
        expect[n - 1] = 2f64.powi(n as i32 + 1) - 2f64.powi(n as i32);
        assert_eq!(s.z, expect, "n = {n}");
    }
}

#[test]
fn pivot_limit_is_honoured() {
    let s = solve(&murty(8), &Settings { max_iter: 50, ..Settings::default() });
    assert_eq!((s.report.status, s.report.pivots), (Status::MaxIterations, 50));
}

#[test]
fn degenerate_ties_terminate_with_the_lexicographic_rule() {
    // q has all entries equal (a tie in the first ratio test) and M has equal rows,
    // so later ratio tests tie too: M = ones + I, q = −e. Solution: zᵢ = 1/(n+1).
    let n = 5;
    let m: Vec<f64> = (0..n * n).map(|k| if k / n == k % n { 2.0 } else { 1.0 }).collect();
    let p = lcp(n, &m, &vec![-1.0; n]);
    let s = solve(&p, &Settings { tol: 1e-14, ..Settings::default() });
    assert_eq!(s.report.status, Status::Solved);
    for z in &s.z {
        assert!((z - 1.0 / (n as f64 + 1.0)).abs() < 1e-15);
    }
    // A fully degenerate problem: q = 0 except one entry, M with zero rows.
    let p = lcp(3, &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0], &[0.0, 0.0, -1.0]);
    let s = solve(&p, &Settings { tol: 1e-14, ..Settings::default() });
    assert_eq!(s.report.status, Status::Solved, "{:?}", s.report);
}

#[test]
fn infeasible_problem_ends_on_a_ray_that_checks() {
    // w = −z − 1 can never be ≥ 0: M = −1 is copositive-plus? No (−1 < 0), but Lemke
    // still ends on a ray. Check the ray's defining properties.
    let p = lcp(2, &[-1.0, 0.0, 0.0, -1.0], &[-1.0, -1.0]);
    let mut lemke = Lemke { restarts: 0, ..Lemke::new() };
    let s = lemke.solve(&p, None, &Settings::default()).unwrap();
    assert_eq!(s.report.status, Status::RayTermination);
    let ray = s.ray.expect("a ray");
    check_ray(&p, &ray);
}

fn check_ray(p: &Lcp, ray: &Ray) {
    for t in [0.0, 1.0, 10.0, 1e3] {
        let v = ray.violation(p.m(), p.q(), t);
        assert!(v <= 1e-9 * (1.0 + t), "t = {t}: violation {v}, {ray:?}");
    }
}

#[test]
fn warm_start_at_the_solution_costs_no_pivot() {
    let p = lcp(2, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
    let s = Lemke::new().solve(&p, Some(&[1.0, 1.0]), &Settings::default()).unwrap();
    assert_eq!((s.report.status, s.report.pivots, s.report.factorizations), (Status::Solved, 0, 1));
    // A wrong support falls back to Lemke.
    let s = Lemke::new().solve(&p, Some(&[1.0, 0.0]), &Settings::default()).unwrap();
    assert_eq!(s.report.status, Status::Solved);
    assert!(s.report.pivots > 0);
}

#[test]
fn bad_covering_vector_and_box_problems_are_errors() {
    let p = lcp(2, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
    let e = Lemke::with_covering(vec![1.0, 0.0]).solve(&p, None, &Settings::default()).unwrap_err();
    assert!(e.to_string().contains("d[1]"), "{e}");
    let b = Lcp::with_bounds(p.m().clone(), p.q().to_vec(), vec![0.0; 2], vec![1.0; 2]).unwrap();
    let e = Lemke::new().solve(&b, None, &Settings::default()).unwrap_err();
    assert!(e.to_string().contains("pgs"), "{e}");
}

#[test]
fn agrees_with_enumeration_on_small_p_matrices() {
    // Deterministic pseudo-random P-matrices: diagonally dominant, non-symmetric.
    let mut seed = 12345u64;
    let mut rnd = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    for n in 1..=6 {
        for _ in 0..20 {
            let mut m: Vec<f64> = (0..n * n).map(|_| rnd()).collect();
            for i in 0..n {
                let off: f64 = (0..n).filter(|&j| j != i).map(|j| m[i * n + j].abs()).sum();
                m[i * n + i] = off + 0.1 + rnd().abs();
            }
            let q: Vec<f64> = (0..n).map(|_| rnd()).collect();
            let p = lcp(n, &m, &q);
            let s = solve(&p, &Settings { tol: 1e-12, ..Settings::default() });
            assert_eq!(s.report.status, Status::Solved);
            let z = enumerate(&p).expect("a P-matrix LCP has a solution");
            for i in 0..n {
                assert!((s.z[i] - z[i]).abs() < 1e-9, "{:?} vs {:?}", s.z, z);
            }
        }
    }
}

/// Solves a small LCP by trying every complementary basis.
fn enumerate(p: &Lcp) -> Option<Vec<f64>> {
    let n = p.n();
    let m = p.m().to_dense();
    for mask in 0..(1usize << n) {
        let s: Vec<usize> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
        let a = faer::Mat::from_fn(s.len(), s.len(), |r, c| m[(s[r], s[c])]);
        let b = faer::Mat::from_fn(s.len(), 1, |r, _| -p.q()[s[r]]);
        let x = faer::linalg::solvers::Solve::solve(&a.partial_piv_lu(), &b);
        let mut z = vec![0.0; n];
        for (r, &i) in s.iter().enumerate() {
            z[i] = x[(r, 0)];
        }
        let w = p.w(&z);
        if z.iter().all(|&v| v >= -1e-10) && w.iter().all(|&v| v >= -1e-10) {
            return Some(z);
        }
    }
    None
}

#[test]
fn tiny_scaled_contact_lcp_is_solved_not_stopped_on_a_false_tie() {
    // A woodpecker step's Glocker–Studer LCP (Glocker–Studer 2005 eq. 33) at dt = 1e-5: with an
    // absolute tie tolerance Lemke left z₀ on a false tie and returned friction 0.2 %
    // outside the cone. The same problem with q × 1e3 was always solved.
    let m = Matrix::from_row_major(
        3,
        3,
        &[
            1403.102609273718,
            -1035.5173674588614,
            0.0,
            -1470.2087751371048,
            1448.971358927478,
            1.0,
            0.6,
            -1.0,
            0.0,
        ],
    )
    .unwrap();
    let q = vec![-0.0011266971749658112, 0.0008654467211374384, 0.0];
    let s = Settings { tol: 1e-12, ..Settings::default() };
    let small = Lemke::default().solve(&Lcp::new(m.clone(), q.clone()).unwrap(), None, &s).unwrap();
    let big =
        Lemke::default().solve(&Lcp::new(m, q.iter().map(|x| x * 1e3).collect()).unwrap(), None, &s).unwrap();
    assert_eq!(small.report.status, Status::Solved, "{:?}", small.report);
    assert_eq!(big.report.status, Status::Solved);
    for (a, b) in small.z.iter().zip(&big.z) {
        assert!((a * 1e3 - b).abs() <= 1e-9 * b.abs().max(1e-6), "{:?} vs {:?}", small.z, big.z);
    }
}

#[test]
fn history_has_one_entry_per_pivot_and_ends_at_z0_zero() {
    let p = murty(4);
    let s = Settings { tol: 1e-12, record_history: true, ..Settings::default() };
    let sol = solve(&p, &s);
    assert_eq!((sol.report.status, sol.report.pivots, sol.report.iterations), (Status::Solved, 16, 16));
    assert_eq!(sol.report.history.len(), 16);
    // The error per pivot is z₀: positive while it is basic, 0 once it has left.
    assert!(sol.report.history[..15].iter().all(|&z0| z0 > 0.0), "{:?}", sol.report.history);
    assert_eq!(sol.report.history[15], 0.0);
    // The same without history: same pivots, no entries.
    let plain = solve(&p, &Settings { tol: 1e-12, ..Settings::default() });
    assert_eq!((plain.report.pivots, plain.report.history.len()), (16, 0));
    assert_eq!(plain.z, sol.z);
}

#[test]
fn the_observer_sees_every_pivot_and_can_stop_lemke() {
    use perp_core::{Control, Progress};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let seen = Arc::new(AtomicUsize::new(0));
    let seen2 = seen.clone();
    let s = Settings {
        observer: Some(Arc::new(move |pr: &Progress| {
            seen2.fetch_add(1, Ordering::SeqCst);
            if pr.iteration == 5 {
                Control::Stop
            } else {
                Control::Continue
            }
        })),
        ..Settings::default()
    };
    let sol = solve(&murty(6), &s);
    assert_eq!((sol.report.status, sol.report.pivots, sol.report.iterations), (Status::Interrupted, 5, 5));
    assert_eq!(seen.load(Ordering::SeqCst), 5);
    assert!(sol.z.iter().all(|&z| z >= 0.0));
    assert!(Lemke::new().last_ray().is_none());
    // An observer that never stops sees every pivot but the last (which solves).
    let count = Arc::new(AtomicUsize::new(0));
    let count2 = count.clone();
    let s = Settings {
        observer: Some(Arc::new(move |_: &Progress| {
            count2.fetch_add(1, Ordering::SeqCst);
            Control::Continue
        })),
        ..Settings::default()
    };
    let sol = solve(&murty(6), &s);
    assert_eq!((sol.report.status, sol.report.pivots), (Status::Solved, 64));
    assert_eq!(count.load(Ordering::SeqCst), 63);
}

#[test]
fn a_zero_time_limit_stops_lemke_after_its_first_pivot() {
    let s = Settings { time_limit: Some(std::time::Duration::ZERO), ..Settings::default() };
    let sol = solve(&murty(6), &s);
    assert_eq!((sol.report.status, sol.report.pivots, sol.report.iterations), (Status::TimeLimit, 1, 1));
    // q ≥ 0 needs no pivot, whatever the time limit.
    let sol = solve(&lcp(2, &[1.0, 0.0, 0.0, 1.0], &[0.0, 3.0]), &s);
    assert_eq!((sol.report.status, sol.report.pivots), (Status::Solved, 0));
}

#[test]
fn restarts_run_inside_the_loop_and_share_its_pivot_limit() {
    // A bimatrix game (CPS example 4.4.23 style): the all-w start ends on a ray after its
    // first pivot; restart 1's basis is feasible at once, so 1 pivot in all.
    let p = lcp(
        4,
        &[0.0, 0.0, 10.0, 20.0, 0.0, 0.0, 30.0, 15.0, 10.0, 20.0, 0.0, 0.0, 30.0, 15.0, 0.0, 0.0],
        &[-1.0; 4],
    );
    let s = Settings { record_history: true, ..Settings::default() };
    let full = solve(&p, &s);
    assert_eq!((full.report.status, full.report.pivots, full.report.iterations), (Status::Solved, 1, 1));
    assert!(full.report.message.as_deref().unwrap().contains("restart 1"), "{:?}", full.report);
    assert_eq!(full.report.history.len(), 1);
    // With a limit of 1 pivot the limit is met before the ray is looked for.
    let limited = solve(&p, &Settings { max_iter: 1, ..Settings::default() });
    assert_eq!((limited.report.status, limited.report.pivots), (Status::MaxIterations, 1));
}

#[test]
fn identity_with_all_q_equal_is_solved_exactly_in_n_plus_one_pivots() {
    // M = I, q = −e: every ratio test after the first ties all the basic wᵢ at 0 (the
    // lexicographic rule, CPS §4.9, picks one). The solution is z = e, w = 0.
    let n = 50;
    let m: Vec<f64> = (0..n * n).map(|k| if k / n == k % n { 1.0 } else { 0.0 }).collect();
    let p = lcp(n, &m, &vec![-1.0; n]);
    let s = solve(&p, &Settings { tol: 1e-14, ..Settings::default() });
    assert_eq!(s.report.status, Status::Solved, "{:?}", s.report);
    assert_eq!(s.z, vec![1.0; n]);
    assert!(s.w.iter().all(|&w| w == 0.0), "{:?}", s.w);
    // z₀ enters, then z_{n−1}, …, z₀ each in place of its wᵢ, and z₀ leaves at the last.
    assert_eq!(s.report.pivots, n + 1);
    // Scaled and with several tied groups (q = −1, −2, −1, −2, …): z = −q.
    let q: Vec<f64> = (0..n).map(|i| -1.0 - (i % 2) as f64).collect();
    let s = solve(&lcp(n, &m, &q), &Settings { tol: 1e-14, ..Settings::default() });
    assert_eq!(s.report.status, Status::Solved, "{:?}", s.report);
    for (z, q) in s.z.iter().zip(&q) {
        assert!((z + q).abs() < 1e-14, "{:?}", s.z);
    }
}

/// A contact LCP M = J Jᵀ (`c` contacts on `dof` degrees of freedom, J from a fixed linear
/// congruential sequence) with q = w* − M z* for a complementary pair z*, w* ≥ 0 (a third
/// of the contacts active, a third separating, a third with z* = w* = 0: degenerate), and the
/// same with every contact duplicated: rows and columns i and i + c of M are equal, and so
/// are qᵢ and q_{i+c}. M is positive semidefinite and singular.
fn duplicated_contacts(c: usize, dof: usize) -> (Lcp, Lcp) {
    let mut state = 12345u64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let j: Vec<f64> = (0..c * dof).map(|_| next()).collect();
    let mut m = vec![0.0; c * c];
    for a in 0..c {
        for b in 0..c {
            m[a * c + b] = (0..dof).map(|k| j[a * dof + k] * j[b * dof + k]).sum();
        }
    }
    let zs: Vec<f64> = (0..c).map(|a| if a % 3 == 0 { 1.0 + next().abs() } else { 0.0 }).collect();
    let q: Vec<f64> = (0..c)
        .map(|a| {
            let ws = if a % 3 == 1 { 0.5 + next().abs() } else { 0.0 };
            ws - (0..c).map(|b| m[a * c + b] * zs[b]).sum::<f64>()
        })
        .collect();
    let n = 2 * c;
    let mut m2 = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            m2[a * n + b] = m[(a % c) * c + b % c];
        }
    }
    let q2: Vec<f64> = (0..n).map(|a| q[a % c]).collect();
    (lcp(c, &m, &q), lcp(n, &m2, &q2))
}

#[test]
fn duplicated_contacts_are_solved_with_the_same_reactions() {
    // 30 contacts on 12 degrees of freedom (redundant: M is singular already), each
    // contact twice. Ties in the ratio test at almost every pivot (the duplicated rows).
    let (single, double) = duplicated_contacts(30, 12);
    let s = Settings { tol: 1e-10, ..Settings::default() };
    let one = solve(&single, &s);
    let two = solve(&double, &s);
    assert_eq!(one.report.status, Status::Solved, "{:?}", one.report);
    assert_eq!(two.report.status, Status::Solved, "{:?}", two.report);
    // The answer is a solution, checked here from M and q directly: z ≥ 0, w = Mz + q ≥ 0,
    // zᵢ wᵢ = 0 (to round-off relative to the problem's scale).
    let mut w = vec![0.0; double.n()];
    double.m().mul_vec(&two.z, &mut w);
    for (wi, qi) in w.iter_mut().zip(double.q()) {
        *wi += qi;
    }
    let scale = double.q().iter().fold(1.0f64, |a, x| a.max(x.abs()));
    for (i, (&zi, &wi)) in two.z.iter().zip(&w).enumerate() {
        assert!(zi >= 0.0, "z[{i}] = {zi}");
        assert!(wi >= -1e-10 * scale, "w[{i}] = {wi}");
        assert!((zi * wi).abs() <= 1e-10 * scale * scale.max(zi), "z w at {i}");
    }
    // M is positive semidefinite, so every solution has the same w = Mz + q: the duplicated
    // problem's w is the single one's, twice (the split of the reactions is not unique).
    for (i, wi) in w.iter().enumerate() {
        assert!((wi - one.w[i % 30]).abs() <= 1e-9 * scale, "w[{i}] = {wi} vs {}", one.w[i % 30]);
    }
}

#[test]
fn integer_degenerate_problems_are_solved_and_every_tie_matches_the_row_rule() {
    // M = B Bᵀ + I with B entries in {−1, 0, 1} and q in {−1, 0, 1}: many exact ties, which
    // `ratio_test` checks against the row-by-row rule (a `cfg(test)` assertion) at each one.
    let mut state = 7u64;
    let mut next = |m: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    for trial in 0..200 {
        let n = 2 + trial % 9;
        let b: Vec<f64> = (0..n * n).map(|_| next(3) as f64 - 1.0).collect();
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                m[i * n + j] = (0..n).map(|k| b[i * n + k] * b[j * n + k]).sum::<f64>() + f64::from(i == j);
            }
        }
        let q: Vec<f64> = (0..n).map(|_| next(3) as f64 - 1.0).collect();
        let p = lcp(n, &m, &q);
        let s = solve(&p, &Settings { tol: 1e-12, ..Settings::default() });
        assert_eq!(s.report.status, Status::Solved, "trial {trial}: {:?}", s.report);
        for (z, w) in s.z.iter().zip(&s.w) {
            assert!(
                *z >= 0.0 && *w >= -1e-12 && (z * w).abs() <= 1e-12,
                "trial {trial}: {:?} {:?}",
                s.z,
                s.w
            );
        }
    }
}

/// Harris' ratio test (`Lemke::harris`) solves what the exact test solves, to the same answer
/// where it is unique (M positive definite), and on degenerate ties (M = I, tied q; a P-matrix
/// of the Murty kind), where it gives up the lexicographic rule.
#[test]
fn harris_ratio_test_finds_the_same_answers() {
    let n = 6;
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            m[i * n + j] = ((i * 7 + j * 3) % 5) as f64 * 0.1 + if i == j { 2.0 } else { 0.0 };
        }
    }
    // Symmetric part positive definite: diagonal 2 against off-diagonal sums below 2.
    let cases = [
        lcp(n, &m, &[-1.0, 0.5, -2.0, 0.3, -0.7, -0.1]),
        lcp(3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], &[-1.0, -1.0, -1.0]),
        lcp(3, &[1.0, 2.0, 2.0, 0.0, 1.0, 2.0, 0.0, 0.0, 1.0], &[-1.0, -1.0, -1.0]),
    ];
    let s = Settings::default();
    for (k, p) in cases.iter().enumerate() {
        let plain = solve(p, &s);
        let h = Lemke { harris: true, ..Lemke::new() }.solve(p, None, &s).unwrap();
        assert_eq!((plain.report.status, h.report.status), (Status::Solved, Status::Solved), "case {k}");
        for (a, b) in plain.z.iter().zip(&h.z) {
            assert!((a - b).abs() < 1e-12, "case {k}: {:?} vs {:?}", plain.z, h.z);
        }
    }
}

/// A dense, strictly diagonally dominant (so P-) matrix of size n with a q of mixed signs.
fn dominant(n: usize) -> Lcp {
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            m[i * n + j] = if i == j { n as f64 } else { (((i * 31 + j * 17) % 13) as f64 - 6.0) / 13.0 };
        }
    }
    let q: Vec<f64> = (0..n).map(|i| ((i * 7919) % 23) as f64 / 11.0 - 1.0).collect();
    lcp(n, &m, &q)
}

#[test]
fn the_crash_and_a_warm_basis_answer_with_every_check_of_a_pivoted_answer() {
    let p = dominant(80);
    let s = Settings { tol: 1e-12, ..Settings::default() };
    let cold = solve(&p, &s);
    assert_eq!(cold.report.status, Status::Solved);
    assert_eq!(cold.report.pivots, 0, "{:?}", cold.report);
    assert!(cold.report.message.as_deref().unwrap().starts_with("solved by the crash"));
    // Issue 34, item 7: its block-pivoting rounds count as iterations (one LU each), so the
    // crash's solve is not reported as 0 iterations.
    let rounds = cold.report.factorizations;
    assert!(rounds >= 1 && cold.report.iterations == rounds, "{:?}", cold.report);
    assert!(cold.report.message.as_deref().unwrap().contains(&format!("({rounds} block-pivoting rounds)")));
    assert!(cold.report.physical_error.is_some_and(|e| e < 1e-12), "{:?}", cold.report);
    let textbook = Lemke { crash: 0, ..Lemke::new() }.solve(&p, None, &s).unwrap();
    assert!(textbook.report.pivots > 0);
    for (a, b) in cold.z.iter().zip(&textbook.z) {
        assert!((a - b).abs() < 1e-12, "{a} against {b}");
    }
    let warm = Lemke::new().solve(&p, Some(&cold.z), &s).unwrap();
    assert_eq!((warm.report.status, warm.report.pivots), (Status::Solved, 0));
    assert!(warm.report.physical_error.is_some(), "{:?}", warm.report);
    // A warm start with one index too many pivots from its basis, not from scratch.
    let mut z = cold.z.clone();
    let extra = z.iter().position(|&v| v == 0.0).unwrap();
    z[extra] = 1.0;
    let near = Lemke::new().solve(&p, Some(&z), &s).unwrap();
    assert_eq!(near.report.status, Status::Solved);
    assert!(
        near.report.pivots < textbook.report.pivots / 4,
        "{:?} against {:?}",
        near.report,
        textbook.report
    );
    for (a, b) in near.z.iter().zip(&textbook.z) {
        assert!((a - b).abs() < 1e-12, "{a} against {b}");
    }
}
