use super::*;
use perp_core::Matrix;
use std::time::Duration;

fn lcp(n: usize, m: &[f64], q: &[f64]) -> Lcp {
    Lcp::new(Matrix::from_row_major(n, n, m).unwrap(), q.to_vec()).unwrap()
}

fn sparse(p: &Lcp) -> Lcp {
    let m = Matrix::Sparse(p.m().to_csr());
    match p.bounds() {
        None => Lcp::new(m, p.q().to_vec()).unwrap(),
        Some((lo, hi)) => Lcp::with_bounds(m, p.q().to_vec(), lo.to_vec(), hi.to_vec()).unwrap(),
    }
}

fn tol(t: f64) -> Settings {
    Settings { tol: t, ..Settings::default() }
}

fn sweeps(k: usize) -> Settings {
    Settings { tol: 0.0, max_iter: k, ..Settings::default() }
}

fn two_by_two() -> Lcp {
    lcp(2, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0])
}

#[test]
fn one_sweep_matches_hand_computation() {
    let p = two_by_two();
    // PGS from 0: z1 = 5/2; w2 = 5/2 − 6 = −7/2, z2 = 7/4.
    let s = Pgs::pgs().solve(&p, None, &sweeps(1)).unwrap();
    assert_eq!((s.report.status, s.report.iterations), (Status::MaxIterations, 1));
    assert_eq!(s.z, vec![2.5, 1.75]);
    // PSOR ω = 1.5: z1 = 1.5·5/2 = 3.75; w2 = 3.75 − 6 = −2.25, z2 = 1.5·2.25/2 = 1.6875.
    let s = Pgs::psor(1.5).solve(&p, None, &sweeps(1)).unwrap();
    assert_eq!(s.z, vec![3.75, 1.6875]);
    // RPGS ρ = 1, anchor 0: z1 = 5/3; w2 = 5/3 − 6 = −13/3, z2 = 13/9.
    let s = Pgs::rpgs(1.0).solve(&p, None, &sweeps(1)).unwrap();
    assert!((s.z[0] - 5.0 / 3.0).abs() < 1e-15 && (s.z[1] - 13.0 / 9.0).abs() < 1e-15, "{:?}", s.z);
    // Second RPGS sweep, anchor (5/3, 13/9): z1 = 5/3 − (10/3 + 13/9 − 5)/3 = 5/3 + 2/27.
    let s = Pgs::rpgs(1.0).solve(&p, None, &sweeps(2)).unwrap();
    assert!((s.z[0] - (5.0 / 3.0 + 2.0 / 27.0)).abs() < 1e-15, "{:?}", s.z);
}

#[test]
fn a_diverging_solve_returns_its_best_iterate() {
    // M = [[0, −1, −1], [1, 0, 0], [−1, 0, 0]] (Siconos lcp_Pang_isolated_sol): rpgs
    // diverges from z = 0; the returned z is the best exactly checked iterate, not the last.
    let m = Matrix::from_row_major(3, 3, &[0.0, -1.0, -1.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0]).unwrap();
    let p = Lcp::new(m, vec![0.0, -1.0, 1.0]).unwrap();
    let s = Settings { max_iter: 2000, record_history: true, ..Settings::default() };
    let sol = Pgs::rpgs(DEFAULT_RPGS_RHO).solve(&p, None, &s).unwrap();
    assert_eq!(sol.report.status, Status::MaxIterations);
    let worst = sol.report.history.iter().cloned().fold(0.0, f64::max);
    assert!(sol.report.error < 10.0 && sol.report.error < worst, "{:?}", sol.report.error);
    assert!(sol.z.iter().all(|z| z.is_finite() && z.abs() < 1e3), "{:?}", sol.z);
}

#[test]
fn solves_the_two_by_two_to_1e_10() {
    for mut solver in [Pgs::pgs(), Pgs::psor(DEFAULT_PSOR_OMEGA), Pgs::rpgs(DEFAULT_RPGS_RHO)] {
        for p in [two_by_two(), sparse(&two_by_two())] {
            let s = solver.solve(&p, None, &tol(1e-10)).unwrap();
            assert_eq!(s.report.status, Status::Solved, "{}", solver.name());
            assert!(s.report.error <= 1e-10);
            assert!((s.z[0] - 4.0 / 3.0).abs() < 1e-9 && (s.z[1] - 7.0 / 3.0).abs() < 1e-9);
            assert_eq!(s.report.solver, solver.name());
        }
    }
}

/// A 6×6 symmetric positive definite matrix with a sparsity pattern.
fn sparse_spd() -> Lcp {
    #[rustfmt::skip]
    let m = [
        4.0, 1.0, 0.0, 0.0, 0.5, 0.0,
        1.0, 5.0, 1.5, 0.0, 0.0, 0.0,
        0.0, 1.5, 3.0, -1.0, 0.0, 0.0,
        0.0, 0.0, -1.0, 4.0, 0.0, 0.7,
        0.5, 0.0, 0.0, 0.0, 2.0, 0.3,
        0.0, 0.0, 0.0, 0.7, 0.3, 3.0,
    ];
    lcp(6, &m, &[-1.0, 2.0, -3.0, 0.5, -2.0, -1.0])
}

#[test]
fn dense_and_sparse_iterates_are_bit_identical() {
    let d = sparse_spd();
    let s = sparse(&d);
    let csc = Lcp::new(Matrix::Sparse(d.m().to_csr().to_csc()), d.q().to_vec()).unwrap();
    for solver in [Pgs::pgs(), Pgs::psor(1.3), Pgs::rpgs(0.5)] {
        for k in [1, 3, 7] {
            let zd = solver.clone().solve(&d, None, &sweeps(k)).unwrap().z;
            let zs = solver.clone().solve(&s, None, &sweeps(k)).unwrap().z;
            let zc = solver.clone().solve(&csc, None, &sweeps(k)).unwrap().z;
            let bits = |z: &[f64]| z.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&zd), bits(&zs), "{} after {k} sweeps", solver.name());
            assert_eq!(bits(&zd), bits(&zc), "{} after {k} sweeps (CSC)", solver.name());
        }
        let a = solver.clone().solve(&d, None, &tol(1e-12)).unwrap();
        let b = solver.clone().solve(&s, None, &tol(1e-12)).unwrap();
        assert_eq!(a.report.status, Status::Solved);
        assert_eq!((a.report.iterations, &a.z), (b.report.iterations, &b.z));
    }
}

#[test]
fn dense_and_sparse_agree_across_several_row_blocks() {
    // n = 19: two full blocks of 8 rows and a partial block of 3, in both kernels.
    let n = 19;
    let m: Vec<f64> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            if i == j {
                10.0
            } else if (i + 2 * j) % 5 == 0 {
                0.3 * ((i * j) % 7) as f64 - 0.9
            } else {
                0.0
            }
        })
        .collect();
    let q: Vec<f64> = (0..n).map(|i| ((i * 37) % 11) as f64 - 5.0).collect();
    let d = lcp(n, &m, &q);
    let zd = Pgs::pgs().solve(&d, None, &sweeps(5)).unwrap().z;
    let zs = Pgs::pgs().solve(&sparse(&d), None, &sweeps(5)).unwrap().z;
    assert_eq!(zd, zs);
}

#[test]
fn box_lcp_one_dimensional_clamping() {
    let m = Matrix::from_row_major(1, 1, &[1.0]).unwrap();
    // Unconstrained z = −q; clamped to [−1, 1].
    for (q, z, w) in [(-3.0, 1.0, -2.0), (3.0, -1.0, 2.0), (0.5, -0.5, 0.0)] {
        let p = Lcp::with_bounds(m.clone(), vec![q], vec![-1.0], vec![1.0]).unwrap();
        let s = Pgs::pgs().solve(&p, None, &tol(1e-12)).unwrap();
        assert_eq!(s.report.status, Status::Solved);
        assert_eq!((s.z[0], s.w[0]), (z, w));
        // One sweep solves it; the proxy (the step just taken) sees it one sweep later.
        assert!(s.report.iterations <= 2, "{}", s.report.iterations);
    }
}

#[test]
fn box_lcp_two_dimensional_by_hand() {
    // [[2,1],[1,2]], q = (−5, −6), 0 ≤ z ≤ (1, 10): z1 at its upper bound 1, then
    // w2 = 1 + 2 z2 − 6 = 0 gives z2 = 5/2, and w1 = 2 + 5/2 − 5 = −1/2 ≤ 0 as it must.
    let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
    let p = Lcp::with_bounds(m, vec![-5.0, -6.0], vec![0.0, 0.0], vec![1.0, 10.0]).unwrap();
    for mut solver in [Pgs::pgs(), Pgs::psor(1.2), Pgs::rpgs(1.0)] {
        let s = solver.solve(&p, None, &tol(1e-12)).unwrap();
        assert_eq!(s.report.status, Status::Solved, "{}", solver.name());
        assert!((s.z[0] - 1.0).abs() < 1e-12 && (s.z[1] - 2.5).abs() < 1e-11, "{:?}", s.z);
        assert!((s.w[0] + 0.5).abs() < 1e-11);
    }
}

#[test]
fn zero_diagonal_is_an_error_for_pgs_and_solved_by_rpgs() {
    let p = lcp(2, &[1.0, 0.0, 0.0, 0.0], &[-1.0, 1.0]);
    for mut solver in [Pgs::pgs(), Pgs::psor(1.2)] {
        let e = solver.solve(&p, None, &Settings::default()).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::Requirement { .. }), "{msg}");
        assert!(msg.contains("M[1,1] = 0e0") && msg.contains("rpgs") && msg.contains("lemke"), "{msg}");
    }
    let e = Pgs::pgs().solve(&lcp(1, &[-2.0], &[1.0]), None, &Settings::default()).unwrap_err();
    assert!(e.to_string().contains("M[0,0] = -2e0"), "{e}");
    // Tiny against its row.
    let e = Pgs::pgs().solve(&lcp(2, &[1e-14, 1.0, 1.0, 1.0], &[1.0, 1.0]), None, &Settings::default());
    assert!(matches!(e, Err(Error::Requirement { .. })));
    for p in [p.clone(), sparse(&p)] {
        let s = Pgs::rpgs(1.0).solve(&p, None, &tol(1e-10)).unwrap();
        assert_eq!(s.report.status, Status::Solved);
        assert!((s.z[0] - 1.0).abs() < 1e-9 && s.z[1] == 0.0, "{:?}", s.z);
    }
    // rpgs needs M_ii + ρ > 0.
    let e = Pgs::rpgs(1.0).solve(&lcp(1, &[-1.0], &[1.0]), None, &Settings::default()).unwrap_err();
    assert!(e.to_string().contains("increase rho"), "{e}");
}

#[test]
fn rpgs_with_inner_sweeps_solves_a_psd_problem() {
    // M = [[1, 1], [1, 1]] (PSD, singular), q = (−1, −1): solutions z1 + z2 = 1.
    let p = lcp(2, &[1.0, 1.0, 1.0, 1.0], &[-1.0, -1.0]);
    for inner in [1, 5] {
        let mut solver = Pgs { inner_sweeps: inner, ..Pgs::rpgs(0.5) };
        let s = solver.solve(&p, None, &tol(1e-10)).unwrap();
        assert_eq!(s.report.status, Status::Solved, "inner {inner}");
        assert!((s.z[0] + s.z[1] - 1.0).abs() < 1e-9);
    }
}

#[test]
fn warm_start_at_the_solution_costs_at_most_one_sweep() {
    let p = two_by_two();
    for mut solver in [Pgs::pgs(), Pgs::psor(1.2), Pgs::rpgs(1.0)] {
        let s = solver.solve(&p, Some(&[4.0 / 3.0, 7.0 / 3.0]), &tol(1e-10)).unwrap();
        assert_eq!(s.report.status, Status::Solved);
        assert!(s.report.iterations <= 1, "{}", s.report.iterations);
    }
    // A warm start outside the bounds is projected first.
    let s = Pgs::pgs().solve(&p, Some(&[-3.0, 7.0 / 3.0]), &sweeps(1)).unwrap();
    assert!((s.z[0] - 4.0 / 3.0).abs() < 1e-15, "{:?}", s.z);
}

#[test]
fn invalid_knobs_are_errors() {
    for omega in [0.0, 2.0, -1.0, f64::NAN, f64::INFINITY] {
        let e = Pgs::psor(omega).solve(&two_by_two(), None, &Settings::default()).unwrap_err();
        assert!(matches!(e, Error::InvalidSetting { ref name, .. } if name == "omega"), "{e}");
    }
    for rho in [-1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(Pgs::rpgs(rho).validate(), Err(Error::InvalidSetting { .. })));
    }
    assert!(Pgs { inner_sweeps: 0, ..Pgs::rpgs(1.0) }.validate().is_err());
    assert!(Pgs { check_every: 0, ..Pgs::pgs() }.validate().is_err());
    assert!(Pgs::pgs().solve(&two_by_two(), Some(&[1.0]), &Settings::default()).is_err());
}

/// A 3×3 problem on which PGS cycles with period 4 through (1,1,0), (0,1,1), (0,0,1),
/// (1,0,0) and never reaches the solution (1/3, 1/3, 1/3).
fn cycling() -> Lcp {
    lcp(3, &[1.0, 2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 0.0, 1.0], &[-1.0, -1.0, -1.0])
}

#[test]
fn non_convergence_is_max_iterations_not_an_error() {
    let s = Pgs::pgs().solve(&cycling(), None, &Settings { max_iter: 41, ..Settings::default() }).unwrap();
    assert_eq!((s.report.status, s.report.iterations), (Status::MaxIterations, 41));
    assert_eq!(s.z, vec![1.0, 1.0, 0.0]);
    assert!(s.report.error > 0.1);
}

#[test]
fn time_limit_stops_the_sweeps() {
    let s = Settings { tol: 0.0, time_limit: Some(Duration::ZERO), ..Settings::default() };
    let r = Pgs::pgs().solve(&cycling(), None, &s).unwrap();
    assert_eq!((r.report.status, r.report.iterations), (Status::TimeLimit, 1));
}

#[test]
fn a_sweep_that_moves_nothing_is_stalled() {
    // ω = 1e-30: from z = 1000 the step ω·w/M = 1e-30·999 is far below half an ulp of
    // 1000, so the sweep leaves z unchanged while w = 999 ≠ 0.
    let p = lcp(1, &[1.0], &[-1.0]);
    let s = Pgs::psor(1e-30).solve(&p, Some(&[1e3]), &Settings::default()).unwrap();
    assert_eq!((s.report.status, s.report.iterations), (Status::Stalled, 1));
    assert_eq!(s.z, vec![1e3]);
    assert!(s.report.message.is_some());
}

#[test]
fn history_and_exact_error_scheme() {
    let p = sparse_spd();
    let s = Settings { tol: 1e-12, record_history: true, ..Settings::default() };
    let r = Pgs::pgs().solve(&p, None, &s).unwrap();
    assert_eq!(r.report.status, Status::Solved);
    // The history holds the exact checks only (issue 34: the steps between them repeated the
    // last exact error), at increasing iterations, the last at the final sweep.
    let (h, k) = (&r.report.history, &r.report.history_iterations);
    assert_eq!(h.len(), k.len());
    assert!(h.len() < r.report.iterations, "{} entries, {} sweeps", h.len(), r.report.iterations);
    assert!(k.windows(2).all(|w| w[0] < w[1]) && *k.last().unwrap() == r.report.iterations, "{k:?}");
    assert!(k.windows(2).all(|w| w[1] - w[0] <= DEFAULT_CHECK_EVERY), "{k:?}");
    // Every error but the last is an exact error above tol; the last is the answer's.
    assert!(h[..h.len() - 1].iter().all(|&e| e > 1e-12));
    assert_eq!(*h.last().unwrap(), r.report.error);
    // The same exact errors as checking after every sweep at those sweeps.
    let every = Pgs { check_every: 1, ..Pgs::pgs() }.solve(&p, None, &s).unwrap();
    for (i, &kk) in k.iter().enumerate() {
        if kk <= every.report.history.len() {
            assert_eq!(h[i], every.report.history[kk - 1], "sweep {kk}");
        }
    }
    // Checking after every sweep stops at the same sweep or earlier.
    let every = Pgs { check_every: 1, ..Pgs::pgs() }.solve(&p, None, &s).unwrap();
    assert!(every.report.iterations <= r.report.iterations);
    assert!(r.report.iterations <= every.report.iterations + DEFAULT_CHECK_EVERY);
}

#[test]
fn names_and_registry() {
    for name in NAMES {
        assert_eq!(Pgs::named(name).unwrap().name(), name);
    }
    assert_eq!(Pgs::psor(1.0).name(), "pgs");
    assert_eq!(Pgs::default().name(), "pgs");
}

#[test]
fn empty_problem_is_solved_without_sweeps() {
    let p = Lcp::new(Matrix::from_row_major(0, 0, &[]).unwrap(), vec![]).unwrap();
    let s = Pgs::pgs().solve(&p, None, &Settings::default()).unwrap();
    assert_eq!((s.report.status, s.report.iterations), (Status::Solved, 0));
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// On M = A Aᵀ + I (SPD) every variant solves to 1e-10 with z ≥ 0, w ≥ 0, zᵀw ≈ 0.
        #[test]
        fn spd_problems_are_solved(
            (n, a, q) in (1usize..=8).prop_flat_map(|n| (
                Just(n),
                proptest::collection::vec(-1.0f64..1.0, n * n),
                proptest::collection::vec(-10.0f64..10.0, n),
            ))
        ) {
            let mut m = vec![0.0; n * n];
            for i in 0..n {
                for j in 0..n {
                    m[i * n + j] = (0..n).map(|k| a[i * n + k] * a[j * n + k]).sum::<f64>()
                        + if i == j { 1.0 } else { 0.0 };
                }
            }
            let p = lcp(n, &m, &q);
            for name in NAMES {
                let s = Pgs::named(name).unwrap().solve(&p, None, &tol(1e-10)).unwrap();
                prop_assert_eq!(s.report.status, Status::Solved, "{}", name);
                let zw: f64 = s.z.iter().zip(&s.w).map(|(z, w)| z * w).sum();
                let scale = 1.0 + perp_core::measures::norm2(&q);
                prop_assert!(s.z.iter().all(|&z| z >= 0.0));
                prop_assert!(s.w.iter().all(|&w| w >= -1e-9 * scale), "{:?}", s.w);
                prop_assert!(zw.abs() <= 1e-8 * scale * scale, "{}: z'w = {}", name, zw);
            }
        }
    }
}
