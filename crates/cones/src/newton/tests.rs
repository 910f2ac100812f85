use super::dense::{active_contacts, dense_assemble, dense_assemble_dyn, DenseJ};
use super::direction::{fits_before, ETA0, ETA_MAX, ETA_MIN, EW_GAMMA};
use super::method::Method;
use super::prox_mode::rho_for;
use super::*;
use crate::delassus::Blocks;
use crate::problem::{FrictionContactProblem, FrictionSolutionMut, FrictionSolver, Job};
use crate::Prox;
use faer::Mat;
use perp_core::linear::DenseLu;
use perp_core::{Matrix, Settings, SolveReport, Status};
use std::time::Instant;

/// One point mass (m = 1) touching the ground twice at the same point: `J = [I; I]`,
/// `W = J Jᵀ = [[I, I], [I, I]]` (rank 3 of 6), approaching at 1 and sliding at 0.2 along
/// x, μ = 0.5. The total impulse `R = r₁ + r₂ = (1, −0.2, 0)` stops it (it sticks:
/// 0.2 ≤ 0.5 · 1); its split between the two contacts is free.
fn twin_contact() -> FrictionContactProblem {
    let mut t = Vec::new();
    for i in 0..6 {
        t.push((i, i, 1.0));
        t.push((i, (i + 3) % 6, 1.0));
    }
    let w = Matrix::from_triplets(6, 6, &t).unwrap();
    let q = vec![-1.0, 0.2, 0.0, -1.0, 0.2, 0.0];
    FrictionContactProblem::new(3, w, q, vec![0.5, 0.5]).unwrap()
}

/// The reduced dense direction (contacts with rows `[I 0]` eliminated) against the LU of
/// the whole J, for every subset of eliminated contacts of a 5-contact problem: the same
/// Δ to rounding, and the J_AA it keeps has the bits of the whole J's entries.
#[test]
fn reduced_direction_equals_the_whole_systems() {
    let (d, nc) = (3, 5);
    let n = d * nc;
    let mut seed = 5_u64;
    let mut rnd = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1_u64 << 53) as f64 - 0.5
    };
    // W = A Aᵀ + I (dense, symmetric positive definite).
    let a = Mat::<f64>::from_fn(n, n, |_, _| rnd());
    let w = Mat::<f64>::from_fn(n, n, |i, j| {
        (0..n).map(|k| a[(i, k)] * a[(j, k)]).sum::<f64>() + if i == j { 1.0 } else { 0.0 }
    });
    for mask in 0..(1_u32 << nc) {
        let taking_off = |i: usize| mask & (1 << i) != 0;
        let (mut jr, mut ju) = (vec![0.0; n * d], vec![0.0; n * d]);
        for i in 0..nc {
            for k in 0..d * d {
                if taking_off(i) {
                    jr[i * d * d + k] = if k % (d + 1) == 0 { 1.0 } else { 0.0 };
                } else {
                    jr[i * d * d + k] = rnd();
                    ju[i * d * d + k] = rnd() + if k % (d + 1) == 0 { 2.0 } else { 0.0 };
                }
            }
        }
        let phi: Vec<f64> = (0..n).map(|_| rnd()).collect();
        // The whole system.
        let mut lu = DenseLu::new();
        lu.resize(n, 1);
        let mut whole = Mat::<f64>::zeros(n, n);
        dense_assemble(d, &w, &jr, &ju, whole.as_mut());
        lu.matrix_mut().copy_from(whole.as_ref());
        lu.factor().unwrap();
        let mut want: Vec<f64> = phi.iter().map(|v| -v).collect();
        lu.solve_in_place(&mut want);
        // The reduced one.
        let mut dj = DenseJ::new(n);
        dj.w.copy_from(w.as_ref());
        let m = active_contacts(d, &jr, &ju, &mut dj.active) * d;
        assert_eq!(dj.active, (0..nc).filter(|&i| !taking_off(i)).collect::<Vec<_>>());
        let mut dir: Vec<f64> = phi.iter().map(|v| -v).collect();
        assert!(dj.reduced_direction(d, &jr, &ju, &phi, &mut dir));
        let (kept, active) = (&dj.j, &dj.active);
        let scale = want.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        for k in 0..n {
            assert!((dir[k] - want[k]).abs() <= 1e-12 * scale, "mask {mask:b}, {k}: {} {}", dir[k], want[k]);
        }
        for (lc, col) in kept[..m * m].chunks_exact(m.max(1)).enumerate() {
            let gc = d * active[lc / d] + lc % d;
            for (lr, v) in col.iter().enumerate() {
                let gr = d * active[lr / d] + lr % d;
                assert_eq!(v.to_bits(), whole[(gr, gc)].to_bits(), "mask {mask:b} ({gr}, {gc})");
            }
        }
    }
}

/// Every contact taking off at a warm start (the reduced system is empty): one step to
/// r = 0, with the residual check of the empty system.
#[test]
fn every_contact_taking_off_is_one_reduced_step() {
    let w = Matrix::from_row_major(
        6,
        6,
        &(0..36).map(|k| if k % 7 == 0 { 1.0 } else { 0.0 }).collect::<Vec<_>>(),
    )
    .unwrap();
    let p = FrictionContactProblem::new(3, w, vec![1.0, 0.2, 0.0, 2.0, 0.0, 0.1], vec![0.5, 0.5]).unwrap();
    let warm = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    let s = Settings { tol: 1e-12, ..Settings::default() };
    for mut sv in [SemismoothNewton::alart_curnier(), SemismoothNewton::natural_map()] {
        let sol = sv.solve(&p, Some(&warm), &s).unwrap();
        assert_eq!(sol.report.status, Status::Solved, "{}: {:?}", sv.name(), sol.report);
        assert_eq!(sol.r, vec![0.0; 6], "{}", sv.name());
        assert!(!sol.report.message.unwrap_or_default().contains("regularised"));
    }
}

#[test]
fn singular_twin_contact_is_solved_from_cold_and_off_null_space_starts() {
    let p = twin_contact();
    // A warm start off by a self-equilibrated pair (W (v, −v) = 0) that leaves the cone:
    // the second normal impulse is −1.5.
    let off = [2.5, -0.1, 0.0, -1.5, -0.1, 0.0];
    let s = Settings { tol: 1e-10, ..Settings::default() };
    let solvers: Vec<Box<dyn FrictionSolver>> = vec![
        Box::new(SemismoothNewton::alart_curnier()),
        Box::new(SemismoothNewton::fischer_burmeister()),
        Box::new(SemismoothNewton::natural_map()),
        Box::new(Prox::new()),
    ];
    for mut sv in solvers {
        for warm in [None, Some(&off[..])] {
            let sol = sv.solve(&p, warm, &s).unwrap();
            let name = sv.name().to_string();
            assert_eq!(sol.report.status, Status::Solved, "{name} {warm:?}: {:?}", sol.report);
            let total = [sol.r[0] + sol.r[3], sol.r[1] + sol.r[4], sol.r[2] + sol.r[5]];
            let want = [1.0, -0.2, 0.0];
            for k in 0..3 {
                assert!((total[k] - want[k]).abs() < 1e-8, "{name} {warm:?}: R = {total:?}");
            }
            for c in [&sol.r[..3], &sol.r[3..]] {
                assert!(c[0] >= -1e-10 && c[1].hypot(c[2]) <= 0.5 * c[0] + 1e-10, "{name}: {c:?}");
            }
        }
    }
}

#[test]
fn dense_assemble_matches_the_generic_one_bit_for_bit() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    for d in [2, 3] {
        for nc in [1, 2, 5] {
            let n = nc * d;
            let mut w = Mat::<f64>::zeros(n, n);
            for i in 0..n {
                for j in 0..n {
                    w[(i, j)] =
                        if rng.random_range(0.0..1.0) < 0.3 { 0.0 } else { rng.random_range(-1.0..1.0) };
                }
            }
            let jr: Vec<f64> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
            let ju: Vec<f64> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
            let (mut j1, mut j2) = (Mat::<f64>::zeros(n, n), Mat::<f64>::zeros(n, n));
            dense_assemble(d, &w, &jr, &ju, j1.as_mut());
            dense_assemble_dyn(d, &w, &jr, &ju, j2.as_mut());
            for i in 0..n {
                for j in 0..n {
                    assert_eq!(j1[(i, j)].to_bits(), j2[(i, j)].to_bits(), "d = {d}, ({i}, {j})");
                }
            }
        }
    }
}

#[test]
fn a_factorization_starts_only_when_predicted_to_end_before_the_deadline() {
    use std::time::Duration;
    let now = Instant::now();
    let deadline = Some(now + Duration::from_millis(500));
    assert!(fits_before(now, 1e9, None));
    assert!(fits_before(now, 0.4, deadline));
    assert!(!fits_before(now, 0.6, deadline));
    assert!(!fits_before(now, f64::NAN, deadline));
    // Past the deadline nothing fits.
    assert!(!fits_before(now + Duration::from_secs(1), 0.0, deadline));
}

#[test]
fn forcing_terms_follow_eisenstat_walker_choice_2() {
    let p = twin_contact();
    let mut ws = Workspace::default();
    let (mut r, mut u) = (vec![0.0; 6], vec![0.0; 6]);
    let mut report = SolveReport::new("");
    let s = Settings::default();
    let opts = SemismoothNewton::alart_curnier();
    let out = FrictionSolutionMut { r: &mut r, u: &mut u, report: &mut report };
    run(&opts, &mut ws, None, Job { p: &p, warm: false, out, s: &s }).unwrap();
    let mut m = Method::new(&opts, &mut ws, None, &p, &r, None);
    assert_eq!(m.forcing_term(1.0), ETA0);
    // ‖Φ‖ down by 10: γ (0.1)² = 0.009, the safeguard γ η² = 0.009 is below 0.1.
    assert!((m.forcing_term(0.1) - 0.009).abs() < 1e-15);
    // ‖Φ‖ up: capped at η_max.
    assert_eq!(m.forcing_term(1.0), ETA_MAX);
    // Converging fast: down to η_min, never below.
    assert!((m.forcing_term(1e-3) - EW_GAMMA * 1e-6).abs() < 1e-18);
    assert_eq!(m.forcing_term(1e-12), ETA_MIN);
}

#[test]
fn prox_rho_follows_sigma() {
    let p = twin_contact();
    let blocks = Blocks::new(&p.w, 3);
    let rho = rho_for(&blocks, 2, 0.0, 1.0);
    assert_eq!(rho, vec![(1.0, 1.0); 2]);
    // The inner operator W + σI has diagonal 1 + σ.
    let rho = rho_for(&blocks, 2, 3.0, 2.0);
    assert_eq!(rho, vec![(0.5, 0.5); 2]);
}

#[test]
fn bad_regularization_is_an_input_error() {
    let p = twin_contact();
    for c in [-1.0, f64::NAN, f64::INFINITY] {
        let mut sv = SemismoothNewton::alart_curnier();
        sv.regularization = c;
        let e = sv.solve(&p, None, &Settings::default()).unwrap_err();
        assert!(e.to_string().contains("regularization"), "{e}");
    }
    // 0 is the plain generalised Jacobian, allowed.
    let mut sv = SemismoothNewton::alart_curnier();
    sv.regularization = 0.0;
    assert!(sv.solve(&p, None, &Settings::default()).is_ok());
}
