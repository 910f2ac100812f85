use super::*;
use perp_core::Matrix;

/// A particle of mass 2 (velocities x, y, z) on the plane z = 0 with friction coefficient
/// `mu`: H's columns are the contact's normal e_z and tangents e_x, e_y; f = M v_free.
fn particle(v_free: [f64; 3], mu: f64) -> GlobalFrictionContactProblem {
    let m = Matrix::from_row_major(3, 3, &[2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0]).unwrap();
    let h = Matrix::from_row_major(3, 3, &[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]).unwrap();
    let f = v_free.iter().map(|v| 2.0 * v).collect();
    GlobalFrictionContactProblem::new(3, m, h, f, vec![0.0; 3], vec![mu]).unwrap()
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
}

fn settings() -> Settings {
    Settings { tol: 1e-10, ..Settings::default() }
}

#[test]
fn nesterov_todd_scaling_maps_s_and_z_to_one_point() {
    let (s, z) = ([2.0, 0.5, -1.0], [1.5, -0.3, 0.9]);
    let nt = Nt::new(&s, &z);
    let (mut wz, mut winv_s) = ([0.0; 3], [0.0; 3]);
    nt.apply(&z, &mut wz, false);
    nt.apply(&s, &mut winv_s, true);
    assert!(close(&wz, &winv_s, 1e-14), "{wz:?} {winv_s:?}");
    // W² z = s, and W W⁻¹ = I.
    let w2z: Vec<f64> = (0..3).map(|a| (0..3).map(|b| nt.w2(a, b) * z[b]).sum()).collect();
    assert!(close(&w2z, &s, 1e-14), "{w2z:?}");
    let (mut y, mut back) = ([0.0; 3], [0.0; 3]);
    nt.apply(&[0.3, -0.7, 1.1], &mut y, false);
    nt.apply(&y, &mut back, true);
    assert!(close(&back, &[0.3, -0.7, 1.1], 1e-14));
    // The cone of dimension 1 (a frictionless contact): W = √(s/z).
    let nt = Nt::new(&[4.0], &[1.0]);
    assert!((nt.eta * nt.w[0] - 2.0).abs() < 1e-15 && (nt.w2(0, 0) - 4.0).abs() < 1e-14);
}

#[test]
fn jordan_division_inverts_the_product_and_steps_stop_at_the_boundary() {
    let (l, y) = ([2.0, 0.5, -1.0], [0.3, -0.4, 0.8]);
    let (mut d, mut back) = ([0.0; 3], [0.0; 3]);
    jordan(&l, &y, &mut d);
    jordan_div(&l, &d, &mut back);
    assert!(close(&back, &y, 1e-14), "{back:?}");
    // From (1, 0, 0) along (−1, 1, 0): ‖(α, 0)‖ ≤ 1 − α until α = 1/2.
    assert!((step_to_boundary(&[1.0, 0.0, 0.0], &[-1.0, 1.0, 0.0]) - 0.5).abs() < 1e-15);
    // Along the axis inward the cone is never left; outward the apex is reached at α = 1.
    assert_eq!(step_to_boundary(&[1.0, 0.0, 0.0], &[1.0, 0.0, 0.0]), f64::INFINITY);
    assert!((step_to_boundary(&[1.0, 0.0, 0.0], &[-1.0, 0.0, 0.0]) - 1.0).abs() < 1e-15);
    // Against a brute-force scan on a generic direction.
    let (x, dx) = ([2.0, 0.5, -1.0], [-0.3, 1.2, 0.4]);
    let alpha = step_to_boundary(&x, &dx);
    let inside = |a: f64| {
        let p: Vec<f64> = x.iter().zip(&dx).map(|(u, v)| u + a * v).collect();
        p[0] >= (p[1] * p[1] + p[2] * p[2]).sqrt()
    };
    assert!(inside(alpha * (1.0 - 1e-9)) && !inside(alpha * (1.0 + 1e-9)), "{alpha}");
}

#[test]
fn one_contact_separated_sticking_and_sliding_have_their_known_answers() {
    let s = settings();
    // (v_free, Coulomb r and v, convex r and v).
    let cases = [
        // Moving away: no impulse in either model.
        ([0.3, 0.0, 1.0], [0.0, 0.0, 0.0], [0.3, 0.0, 1.0], [0.0, 0.0, 0.0], [0.3, 0.0, 1.0]),
        // Sticking: |r_T| = 0.2 ≤ μ r_N = 1, the particle stops.
        ([0.1, 0.0, -1.0], [2.0, -0.2, 0.0], [0.0, 0.0, 0.0], [2.0, -0.2, 0.0], [0.0, 0.0, 0.0]),
        // Sliding: Coulomb keeps u_N = 0 (r = (2, −1, 0), v_x = 3 − 1/2); the relaxation
        // separates at u_N = μ‖u_T‖: −1 + r_N/2 = 0.5 (3 − r_N/4), r_N = 4, v = (2, 0, 1).
        ([3.0, 0.0, -1.0], [2.0, -1.0, 0.0], [2.5, 0.0, 0.0], [4.0, -2.0, 0.0], [2.0, 0.0, 1.0]),
    ];
    for (vf, r_c, v_c, r_x, v_x) in cases {
        let g = particle(vf, 0.5);
        let sol = GlobalIpm::new().solve(&g, None, &s).unwrap();
        assert_eq!(sol.report.status, Status::Solved, "{vf:?}: {:?}", sol.report);
        assert!(close(&sol.r, &r_c, 1e-8) && close(&sol.v, &v_c, 1e-8), "{vf:?}: {:?} {:?}", sol.r, sol.v);
        assert_eq!(sol.report.error.to_bits(), g.error(&sol.r, &sol.v).to_bits());
        let (sol, cert) = GlobalIpm::convex().solve_convex(&g, &s).unwrap();
        assert_eq!(sol.report.status, Status::Solved, "{vf:?}: {:?}", sol.report);
        assert!(cert.worst() <= 1e-10, "{cert:?}");
        assert!(close(&sol.r, &r_x, 1e-8) && close(&sol.v, &v_x, 1e-8), "{vf:?}: {:?} {:?}", sol.r, sol.v);
        // The certified gap: rᵀu = 0 at the answer, to the certificate's accuracy.
        let ru: f64 = sol.r.iter().zip(&sol.u).map(|(a, b)| a * b).sum();
        assert!(ru.abs() <= 1e-9 * (1.0 + sol.r.iter().map(|x| x.abs()).sum::<f64>()), "{ru}");
    }
}

#[test]
fn a_frictionless_contact_keeps_its_normal_row_alone() {
    let g = particle([3.0, 0.0, -1.0], 0.0);
    for mut ipm in [GlobalIpm::new(), GlobalIpm::convex()] {
        let sol = ipm.solve(&g, None, &settings()).unwrap();
        assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report);
        assert!(close(&sol.r, &[2.0, 0.0, 0.0], 1e-8) && close(&sol.v, &[3.0, 0.0, 0.0], 1e-8));
    }
}

#[test]
fn any_choice_of_units_gives_the_same_answer_scaled() {
    // Mass ×1e6, velocities ×1e-4: forces ×1e2. The statuses and the iterations stay.
    let g = particle([3.0, 0.0, -1.0], 0.5);
    let (km, kv) = (1e6, 1e-4);
    let scaled = GlobalFrictionContactProblem::new(
        3,
        Matrix::from_row_major(3, 3, &[2.0 * km, 0.0, 0.0, 0.0, 2.0 * km, 0.0, 0.0, 0.0, 2.0 * km]).unwrap(),
        g.h.clone(),
        g.f.iter().map(|x| x * km * kv).collect(),
        vec![0.0; 3],
        vec![0.5],
    )
    .unwrap();
    for make in [GlobalIpm::new, GlobalIpm::convex] {
        let st = Settings { record_history: true, ..settings() };
        let a = make().solve(&g, None, &st).unwrap();
        let b = make().solve(&scaled, None, &st).unwrap();
        assert_eq!(b.report.status, Status::Solved, "{:?}", b.report);
        // The convex method's iterates are the same in any units; the Coulomb model stops
        // on Siconos' error, which is not (its natural-map term subtracts velocities from
        // forces), so its stop may come at another iteration of the same sequence.
        if a.report.solver == "global-ipm-convex" {
            assert_eq!(a.report.iterations, b.report.iterations);
            assert_eq!(a.report.history.len(), b.report.history.len());
            for (x, y) in a.report.history.iter().zip(&b.report.history) {
                assert!((x - y).abs() <= 1e-6 * x.abs() + 1e-12, "{x} {y}");
            }
        }
        let r: Vec<f64> = a.r.iter().map(|x| x * km * kv).collect();
        let v: Vec<f64> = a.v.iter().map(|x| x * kv).collect();
        // Siconos' error at 1e-10 in these units allows 1e-5 relative on r (the physical
        // check's bound is 1e-4): the Coulomb answers agree to that, the convex ones to 1e-7.
        let tol = if a.report.solver == "global-ipm-convex" { 1e-7 } else { 1e-4 };
        assert!(close(&b.r, &r, tol) && close(&b.v, &v, tol), "{:?} {:?}", b.r, b.v);
    }
}

#[test]
fn a_warm_start_from_the_answer_gives_the_same_answer() {
    let s = settings();
    for vf in [[0.3, 0.0, 1.0], [0.1, 0.0, -1.0], [3.0, 0.0, -1.0]] {
        let g = particle(vf, 0.5);
        let (cold, _) = GlobalIpm::convex().solve_convex(&g, &s).unwrap();
        let (warm, cert) = GlobalIpm::convex().solve_convex_from(&g, Some(&cold.r), &s).unwrap();
        assert_eq!(warm.report.status, Status::Solved, "{vf:?}: {:?}", warm.report);
        assert!(cert.worst() <= 1e-10);
        assert!(close(&warm.r, &cold.r, 1e-8) && close(&warm.v, &cold.v, 1e-8), "{vf:?}");
        // The exact model from its own answer: the same answer.
        let exact = GlobalIpm::new().solve(&g, None, &s).unwrap();
        let again = GlobalIpm::new().solve(&g, Some(&exact.r), &s).unwrap();
        assert_eq!(again.report.status, Status::Solved, "{vf:?}: {:?}", again.report);
        assert!(close(&again.r, &exact.r, 1e-8) && close(&again.v, &exact.v, 1e-8), "{vf:?}");
    }
    let g = particle([3.0, 0.0, -1.0], 0.5);
    let e = GlobalIpm::convex().solve_convex_from(&g, Some(&[f64::NAN; 3]), &s).unwrap_err();
    assert!(e.to_string().contains("warm start"), "{e}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let mut g = particle([3.0, 0.0, -1.0], 0.5);
    let e = GlobalIpm::new().solve(&g, Some(&[1.0]), &settings()).unwrap_err().to_string();
    assert!(e.contains("warm start"), "{e}");
    g.f[1] = f64::NAN;
    let e = GlobalIpm::new().solve(&g, None, &settings()).unwrap_err().to_string();
    assert!(e.contains('f'), "{e}");
    let mut g = particle([3.0, 0.0, -1.0], 0.5);
    g.mu[0] = -1.0;
    assert!(GlobalIpm::convex().solve(&g, None, &settings()).unwrap_err().to_string().contains("mu[0]"));
    // A singular M: named.
    let mut g = particle([3.0, 0.0, -1.0], 0.5);
    g.m = Matrix::from_row_major(3, 3, &[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
    let e = GlobalIpm::new().solve(&g, None, &settings()).unwrap_err().to_string();
    assert!(e.contains('M'), "{e}");
}

/// The quiescence exit: from its own answer the convex solve stops at once (no iteration, no
/// factorization) with the certificate recomputed at most tol; from a start that misses it —
/// the sticking particle's reaction halved, a sliding particle's reaction given to a sticking
/// one — it iterates as from any start, to the same answer.
#[test]
fn a_warm_start_that_meets_the_certificate_costs_no_iteration() {
    let s = settings();
    for (v_free, mu) in [([0.1, -0.05, -1.0], 0.5), ([3.0, 0.0, -1.0], 0.2), ([0.0, 0.0, 1.0], 0.5)] {
        let g = particle(v_free, mu);
        let mut ipm = GlobalIpm::convex();
        let (cold, c0) = ipm.solve_convex(&g, &s).unwrap();
        assert_eq!(cold.report.status, Status::Solved);
        assert!(c0.iterations > 0);
        let (warm, c1) = ipm.solve_convex_from(&g, Some(&cold.r), &s).unwrap();
        assert_eq!(warm.report.status, Status::Solved, "{:?}", warm.report.message);
        assert_eq!((c1.iterations, warm.report.iterations, warm.report.factorizations), (0, 0, 0));
        assert!(c1.worst() <= s.tol, "{c1:?}");
        assert!(close(&warm.r, &cold.r, 1e-8) && close(&warm.v, &cold.v, 1e-8), "{warm:?}");
        // The certificate recomputed from the returned (r, v) by another solve's first check.
        let (again, c2) = ipm.solve_convex_from(&g, Some(&warm.r), &s).unwrap();
        assert_eq!((again.report.status, c2.iterations), (Status::Solved, 0));
    }
    // A start that misses the certificate: the sticking particle's reaction halved.
    let g = particle([0.1, -0.05, -1.0], 0.5);
    let mut ipm = GlobalIpm::convex();
    let (cold, _) = ipm.solve_convex(&g, &s).unwrap();
    let half: Vec<f64> = cold.r.iter().map(|x| 0.5 * x).collect();
    let (sol, c) = ipm.solve_convex_from(&g, Some(&half), &s).unwrap();
    assert_eq!(sol.report.status, Status::Solved);
    assert!(c.iterations > 0 && sol.report.factorizations > 0, "{c:?}");
    assert!(close(&sol.r, &cold.r, 1e-6), "{:?} {:?}", sol.r, cold.r);
}

/// A warm start that almost meets the certificate (the answer of a problem changed by 10⁻⁶,
/// as a resting pile's next step) is moved into the cones by about its own error, not by 10⁻¹
/// of its scale: it takes fewer iterations than a cold start (and than the 10⁻¹ move), to the
/// same answer.
#[test]
fn a_warm_start_near_the_answer_stays_near_it() {
    assert_eq!(
        (path::warm_margin(1e-6), path::warm_margin(3e-3), path::warm_margin(0.5)),
        (1e-4, 3e-3, 1e-1)
    );
    assert_eq!((path::warm_margin(f64::INFINITY), path::warm_margin(f64::NAN)), (1e-1, 1e-1));
    let s = settings();
    for (v_free, mu) in [([0.1, -0.05, -1.0], 0.5), ([3.0, 0.0, -1.0], 0.2)] {
        let mut ipm = GlobalIpm::convex();
        let (before, _) = ipm.solve_convex(&particle(v_free, mu), &s).unwrap();
        let g = particle([v_free[0], v_free[1], v_free[2] * (1.0 + 1e-6)], mu);
        let (cold, c0) = ipm.solve_convex(&g, &s).unwrap();
        // The interior point's own warm path (the warm Newton would take this start).
        let mut ipm_only = GlobalIpm { warm_newton: 0, ..GlobalIpm::convex() };
        let (warm, c1) = ipm_only.solve_convex_from(&g, Some(&before.r), &s).unwrap();
        assert_eq!((cold.report.status, warm.report.status), (Status::Solved, Status::Solved));
        // Pinned: 4 iterations from the warm start (5 when it was moved in by 10⁻¹), 6 cold.
        assert_eq!((c1.iterations, c0.iterations), (4, 6), "{c1:?} {c0:?}");
        assert!(close(&warm.r, &cold.r, 1e-8) && close(&warm.v, &cold.v, 1e-8), "{warm:?} {cold:?}");
    }
}

#[test]
fn the_regularized_inverse_of_w_squared_is_its_inverse() {
    let cases: [(&[f64], &[f64]); 4] = [
        (&[2.0, 0.5, -1.0], &[1.5, -0.3, 0.9]),
        // Near the boundary: W² spans 8 orders of magnitude.
        (&[1.0, 0.9999, 0.0], &[1.0, -0.9999, 1e-5]),
        (&[3.0, 1.0], &[2.0, 0.5]),
        (&[4.0], &[1.0]),
    ];
    for (s, z) in cases {
        let p = s.len();
        let nt = Nt::new(s, z);
        // W̄²'s condition number (w₀ + ‖w₁‖)⁴: the product with W² (itself rounded) is
        // exact to that many ulps.
        let big = nt.w[0] + nt.w[1..p].iter().map(|v| v * v).sum::<f64>().sqrt();
        let tol = 1e-14 * big.powi(4);
        for delta in [0.0, 1e-3] {
            let mut inv = [0.0; MAX_DIM * MAX_DIM];
            nt.w2_reg_inv(p, delta, &mut inv[..p * p]);
            for a in 0..p {
                for b in 0..p {
                    let e: f64 = (0..p)
                        .map(|k| (nt.w2(a, k) + if a == k { delta } else { 0.0 }) * inv[k * p + b])
                        .sum();
                    let want = if a == b { 1.0 } else { 0.0 };
                    assert!((e - want).abs() < tol, "p = {p}, δ = {delta}, ({a}, {b}): {e}");
                }
            }
        }
    }
}

/// Dense random data ([`crate::samples::dense_global`]): more velocities than contact rows (so
/// the relaxation is feasible), the first contact frictionless (a cone of dimension 1).
fn random_problem(seed: u64, n: usize, nc: usize) -> GlobalFrictionContactProblem {
    use rand::SeedableRng;
    crate::samples::dense_global(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed), n, nc, true)
}

#[test]
fn the_reduced_and_the_quasi_definite_kkt_systems_give_the_same_answers() {
    let mut compared = 0;
    for seed in 0..8 {
        let g = random_problem(seed, 16, 4);
        for make in [GlobalIpm::new, GlobalIpm::convex] {
            let (mut full, mut reduced) = (make(), make());
            full.kkt = KktForm::QuasiDefinite;
            assert_eq!(reduced.kkt, KktForm::Reduced);
            let a = full.solve(&g, None, &settings()).unwrap();
            let b = reduced.solve(&g, None, &settings()).unwrap();
            assert_eq!(a.report.status, b.report.status, "seed {seed}: {:?} {:?}", a.report, b.report);
            if a.report.status == Status::Solved {
                assert!(b.report.error <= settings().tol, "{:?}", b.report);
                assert!(
                    close(&a.r, &b.r, 1e-6) && close(&a.v, &b.v, 1e-6),
                    "seed {seed}: {:?} {:?}",
                    a.r,
                    b.r
                );
                compared += 1;
            }
        }
    }
    assert!(compared >= 8, "{compared} solved pairs");
}

/// One method kept across problems of other sizes and patterns (its factorizations'
/// analyses redone) gives each the answer a fresh one gives, bit for bit.
#[test]
fn a_kept_method_follows_changes_of_size_and_pattern() {
    let problems = [random_problem(1, 16, 4), random_problem(2, 10, 2), random_problem(3, 16, 4)];
    for make in [GlobalIpm::new, GlobalIpm::convex] {
        let mut kept = make();
        for (k, g) in problems.iter().enumerate() {
            let a = kept.solve(g, None, &settings()).unwrap();
            let b = make().solve(g, None, &settings()).unwrap();
            assert_eq!(
                (a.report.status, a.report.iterations),
                (b.report.status, b.report.iterations),
                "problem {k}"
            );
            assert_eq!(a.r, b.r, "problem {k}");
            assert_eq!(a.v, b.v, "problem {k}");
        }
    }
}

/// The convex relaxation's warm Newton: from the answer of a problem changed by 10⁻⁶ (a
/// settled step's warm start) the global Newton method on the relaxation's natural map
/// solves in at most `warm_newton` iterations, its answer meeting the interior point's
/// certificate (recomputed: the certificate returned), with no interior-point iteration, to
/// the cold answer — a sliding particle's too, which the relaxation lifts off at μ‖u_T‖;
/// with `warm_newton = 0` the interior point runs, and from a start far from the answer (no
/// reaction on a landing particle) too.
#[test]
fn a_convex_warm_start_near_the_answer_is_finished_by_newton_alone() {
    let s = Settings { tol: 1e-8, ..Settings::default() };
    for (v_free, mu) in [([0.1, -0.05, -1.0], 0.5), ([3.0, 0.0, -1.0], 0.2), ([0.0, 0.0, 1.0], 0.5)] {
        let (before, _) = GlobalIpm::convex().solve_convex(&particle(v_free, mu), &s).unwrap();
        let g = particle([v_free[0], v_free[1], v_free[2] * (1.0 + 1e-6)], mu);
        let (cold, _) = GlobalIpm::convex().solve_convex(&g, &s).unwrap();
        let (warm, cert) = GlobalIpm::convex().solve_convex_from(&g, Some(&before.r), &s).unwrap();
        assert_eq!((cold.report.status, warm.report.status), (Status::Solved, Status::Solved));
        let msg = warm.report.message.clone().unwrap_or_default();
        if v_free[2] > 0.0 {
            // Separated: the warm start (no reaction) already meets the certificate.
            assert_eq!(warm.report.iterations, 0, "{msg}");
            continue;
        }
        assert!(msg.contains("global Newton method from the warm start"), "{msg}");
        assert!((1..=params::CONVEX_WARM_NEWTON).contains(&warm.report.iterations), "{:?}", warm.report);
        assert!(cert.worst() <= s.tol && warm.report.error == cert.worst(), "{cert:?}");
        assert!(close(&warm.r, &cold.r, 1e-6) && close(&warm.v, &cold.v, 1e-6), "{warm:?} {cold:?}");
        // The relaxation's answer, not Coulomb's: complementary in the cone's sense.
        let u = g.local_velocity(&warm.v);
        assert!(g.convex_error(&warm.r, &warm.v) <= s.tol, "{u:?}");
        if v_free[0] > 1.0 {
            let ut = u[1..].iter().map(|x| x * x).sum::<f64>().sqrt();
            assert!(ut > 0.1 && (u[0] - mu * ut).abs() <= 1e-6, "sliding lifts off: {u:?}");
        }
        let ipm_only = GlobalIpm { warm_newton: 0, ..GlobalIpm::convex() };
        let (sol, _) = { ipm_only }.solve_convex_from(&g, Some(&before.r), &s).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!(!sol.report.message.unwrap_or_default().contains("from the warm start"));
        // Far from the answer (no reaction on a landing particle): not tried.
        let (far, _) = GlobalIpm::convex().solve_convex_from(&g, Some(&[0.0; 3]), &s).unwrap();
        assert_eq!(far.report.status, Status::Solved);
        assert!(!far.report.message.unwrap_or_default().contains("from the warm start"));
    }
}

/// The exact model's warm Newton: from the answer of a problem changed by 10⁻⁶ (a settled
/// step's warm start) it solves in at most `warm_newton` Newton iterations with no interior
/// point (its message says so), to the cold answer; with `warm_newton = 0`, or from a warm
/// start far from the answer (error above 100 tol), the interior point runs as before.
#[test]
fn a_warm_start_near_the_answer_is_finished_by_newton_alone() {
    let s = Settings { tol: 1e-8, ..Settings::default() };
    for (v_free, mu) in [([0.1, -0.05, -1.0], 0.5), ([3.0, 0.0, -1.0], 0.2)] {
        let before = GlobalIpm::new().solve(&particle(v_free, mu), None, &s).unwrap();
        let g = particle([v_free[0], v_free[1], v_free[2] * (1.0 + 1e-6)], mu);
        let cold = GlobalIpm::new().solve(&g, None, &s).unwrap();
        let warm = GlobalIpm::new().solve(&g, Some(&before.r), &s).unwrap();
        assert_eq!((cold.report.status, warm.report.status), (Status::Solved, Status::Solved));
        let msg = warm.report.message.clone().unwrap_or_default();
        assert!(msg.contains("global-ac-newton from the warm start"), "{msg}");
        assert!((1..=params::WARM_NEWTON).contains(&warm.report.iterations), "{:?}", warm.report);
        assert!(close(&warm.r, &cold.r, 1e-6) && close(&warm.v, &cold.v, 1e-6), "{warm:?} {cold:?}");
        // Without the warm Newton: the interior point's path.
        let ipm_only =
            GlobalIpm { warm_newton: 0, ..GlobalIpm::new() }.solve(&g, Some(&before.r), &s).unwrap();
        assert_eq!(ipm_only.report.status, Status::Solved);
        assert!(!ipm_only.report.message.unwrap_or_default().contains("from the warm start"));
        // Far from the answer (no reaction at all on a landing particle): not tried.
        let far = GlobalIpm::new().solve(&g, Some(&[0.0; 3]), &s).unwrap();
        assert_eq!(far.report.status, Status::Solved);
        assert!(!far.report.message.unwrap_or_default().contains("from the warm start"));
    }
}

/// The random problems of seeds 0–7 that the default method solves with its Newton finish,
/// with their answers.
fn finished_by_newton(s: &Settings) -> Vec<(u64, GlobalFrictionContactProblem, GlobalSolution)> {
    (0..8)
        .filter_map(|seed| {
            let g = random_problem(seed, 16, 4);
            let plain = GlobalIpm::new().solve(&g, None, s).unwrap();
            let msg = plain.report.message.clone().unwrap_or_default();
            (plain.report.status == Status::Solved && msg.contains("global-ac-newton from it"))
                .then_some((seed, g, plain))
        })
        .collect()
}

/// When the Newton finish from the convex answer fails (before it stalls), it runs once more
/// from that answer with `retry_regularization` (no warm start given); the report counts both
/// runs and says so, and 0 turns it off.
/// The first run is made to fail by a Newton matrix regularized far too much for its few
/// iterations.
#[test]
fn a_failed_newton_finish_runs_again_with_the_retry_regularization() {
    let s = settings();
    let mut rescued = 0;
    for (seed, g, plain) in finished_by_newton(&s) {
        let crippled = |retry: f64| {
            let mut m = GlobalIpm { retry_regularization: retry, ..GlobalIpm::new() };
            m.newton.regularization = 1e6;
            m.newton.max_iter = 4;
            m
        };
        let off = crippled(0.0).solve(&g, None, &s).unwrap();
        let msg = off.report.message.clone().unwrap_or_default();
        assert!(!msg.contains("again"), "{msg}");
        if off.report.status == Status::Solved {
            continue;
        }
        let on = crippled(crate::global_newton::params::REGULARIZATION).solve(&g, None, &s).unwrap();
        let msg = on.report.message.clone().unwrap_or_default();
        assert!(msg.contains("then with regularization 0.1 from the same answer"), "{msg}");
        assert!(on.report.iterations > off.report.iterations, "{:?} {:?}", on.report, off.report);
        if on.report.status == Status::Solved {
            assert!(on.report.error <= s.tol, "{:?}", on.report);
            assert!(close(&on.r, &plain.r, 1e-6) && close(&on.v, &plain.v, 1e-6), "seed {seed}");
            rescued += 1;
        } else {
            assert!(on.report.error > s.tol, "{:?}", on.report);
        }
    }
    assert!(rescued >= 4, "{rescued} rescued");
}

/// When the Newton finish stalls (goes on in the proximal mode), the second run starts from
/// the same answer and the two go on in lockstep: the report says from which iteration, the
/// second run's answer is taken when it solves first, and the outcome is the same bit for
/// bit on one thread and two. The first run is made to stall by a Newton matrix regularized
/// far too much, with a short patience.
#[test]
fn a_stalled_newton_finish_goes_on_in_lockstep_with_the_second_run() {
    let s = settings();
    let mut lockstep = 0;
    for (seed, g, plain) in finished_by_newton(&s) {
        let run = |threads: usize| {
            let mut m = GlobalIpm {
                retry_regularization: crate::global_newton::params::REGULARIZATION,
                ..GlobalIpm::new()
            };
            m.newton.regularization = 1e6;
            m.newton.stall_iterations = 3;
            m.solve(&g, None, &Settings { threads, ..s.clone() }).unwrap()
        };
        let one = run(1);
        let msg = one.report.message.clone().unwrap_or_default();
        let Some(at) = msg.split("in lockstep from its iteration ").nth(1) else { continue };
        let at: usize = at.split(' ').next().unwrap().parse().unwrap();
        assert!(at >= 3, "{msg}");
        assert!(msg.contains("with regularization 0.1 from the same answer: solved"), "{msg}");
        assert_eq!(one.report.status, Status::Solved, "{msg}");
        assert!(one.report.error <= s.tol, "{:?}", one.report);
        assert!(close(&one.r, &plain.r, 1e-6) && close(&one.v, &plain.v, 1e-6), "seed {seed}");
        let two = run(2);
        assert_eq!(two.report.message, one.report.message);
        assert_eq!(
            (two.report.iterations, two.report.factorizations),
            (one.report.iterations, one.report.factorizations)
        );
        let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!((bits(&two.r), bits(&two.v)), (bits(&one.r), bits(&one.v)), "seed {seed}");
        lockstep += 1;
    }
    assert!(lockstep >= 4, "{lockstep} in lockstep");
}

/// From a warm start, the second Newton run starts from the warm reactions, and when both runs
/// fail a third runs from the convex answer, each with `retry_regularization`; the report
/// counts the three. (The warm Newton before the interior point is off, so that the warm
/// start reaches the Newton finish.)
#[test]
fn from_a_warm_start_the_second_run_starts_there_and_a_third_from_the_convex_answer() {
    let s = settings();
    let (mut second, mut third) = (0, 0);
    for (seed, g, plain) in finished_by_newton(&s) {
        let warm: Vec<f64> =
            plain.r.iter().enumerate().map(|(k, x)| x * (1.0 + 0.01 * ((k % 3) as f64 - 1.0))).collect();
        // The first run stalls (a Newton matrix regularized far too much, a short patience);
        // the second from the warm reactions near the answer solves.
        let mut m = GlobalIpm { warm_newton: 0, retry_regularization: 0.1, ..GlobalIpm::new() };
        m.newton.regularization = 1e6;
        m.newton.stall_iterations = 3;
        let sol = m.solve(&g, Some(&warm), &s).unwrap();
        let msg = sol.report.message.clone().unwrap_or_default();
        if msg.contains("with regularization 0.1 from the warm start: solved") {
            assert_eq!(sol.report.status, Status::Solved, "{msg}");
            assert!(sol.report.error <= s.tol && !msg.contains("from the convex answer"), "{msg}");
            assert!(close(&sol.r, &plain.r, 1e-6) && close(&sol.v, &plain.v, 1e-6), "seed {seed}");
            second += 1;
        }
        // All three crippled and short: the third runs, and the report counts it.
        let mut m = GlobalIpm { warm_newton: 0, retry_regularization: 1e6, ..GlobalIpm::new() };
        m.newton.regularization = 1e6;
        m.newton.max_iter = 4;
        let sol = m.solve(&g, Some(&warm), &s).unwrap();
        let msg = sol.report.message.clone().unwrap_or_default();
        if sol.report.status != Status::Solved {
            assert!(
                msg.contains("then with regularization 1000000 from the warm start: max_iterations in 4"),
                "{msg}"
            );
            assert!(
                msg.contains("then with regularization 1000000 from the convex answer: max_iterations in 4"),
                "{msg}"
            );
            assert!(sol.report.error > s.tol, "{:?}", sol.report);
            third += 1;
        }
    }
    assert!(second >= 4 && third >= 4, "{second} {third}");
}
