use super::*;
use crate::global_newton::GlobalSolver;
use crate::GlobalNewton;
use perp_core::Matrix;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const PI2: f64 = 4.0 * std::f64::consts::PI * std::f64::consts::PI;

/// A particle of mass `m` (velocities x, y, z) on the plane z = 0, μ = 0.5: H's columns are
/// the contact's normal e_z and tangents e_x, e_y; f = m v*.
fn particle(m: f64, v_free: [f64; 3]) -> GlobalFrictionContactProblem {
    let mm = Matrix::from_row_major(3, 3, &[m, 0.0, 0.0, 0.0, m, 0.0, 0.0, 0.0, m]).unwrap();
    let h = Matrix::from_row_major(3, 3, &[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]).unwrap();
    let f = v_free.iter().map(|v| m * v).collect();
    GlobalFrictionContactProblem::new(3, mm, h, f, vec![0.0; 3], vec![0.5]).unwrap()
}

fn tight() -> Settings {
    Settings { tol: 1e-12, ..Settings::default() }
}

fn solve(g: &GlobalFrictionContactProblem) -> SapSolution {
    let sol = Sap::new().solve(g, None, &tight()).unwrap();
    assert_eq!(sol.solution.report.status, Status::Solved, "{:?}", sol.solution.report);
    sol
}

fn close(a: &[f64], b: &[f64], tol: f64) {
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{a:?} vs {b:?}");
    }
}

/// The near-rigid regulariser of one particle contact: W = I/m, so w_n = w_t = 1/m,
/// R_n = β²/(4π²)/m, R_t = σ/m.
#[test]
fn the_near_rigid_regulariser_is_drakes() {
    let g = particle(2.0, [0.0, 0.0, -1.0]);
    let c = Sap::new().contacts(&g).unwrap()[0];
    assert!((c.rn - 0.5 / PI2).abs() < 1e-15 && (c.rt - 0.5e-3).abs() < 1e-18, "{c:?}");
    assert_eq!((c.mu, c.vhat_n), (0.5, 0.0));
    // Compliant: R_n = max(β²/(4π²) w_n, 1/(δt k (δt + τ_d))), v̂_N = −φ₀/(δt + τ_d).
    let comp = Compliance { stiffness: 1e3, dissipation_time_scale: 0.01, phi0: -1e-3 };
    let reg = Regularisation::Compliant { dt: 0.01, beta: 1.0, sigma: 1e-3, contacts: vec![comp] };
    let c = Sap::with_regularisation(reg).contacts(&g).unwrap()[0];
    assert!((c.rn - 1.0 / (0.01 * 1e3 * 0.02)).abs() < 1e-12 && (c.vhat_n - 0.05).abs() < 1e-15, "{c:?}");
}

/// Pushed into the plane with a small tangential velocity: stiction, γ = R⁻¹(−u) and
/// m (u − u*) = γ, so u = m u* / (m + R⁻¹) component by component.
#[test]
fn a_sticking_contact_has_the_hand_computed_impulse() {
    let m = 2.0;
    let g = particle(m, [0.1, 0.0, -1.0]);
    let sol = solve(&g);
    let c = sol.contacts[0];
    let un = -m / (m + 1.0 / c.rn);
    let ux = m * 0.1 / (m + 1.0 / c.rt);
    close(&sol.solution.u, &[un, ux, 0.0], 1e-12);
    close(&sol.solution.r, &[-un / c.rn, -ux / c.rt, 0.0], 1e-12);
    let mut gamma = [0.0; 3];
    assert_eq!(c.project(&sol.solution.u, &mut gamma, None), ContactMode::Stiction);
    // The regularised answer penetrates (u_N < 0): its Coulomb error is not small.
    assert!(un < -0.02 && sol.coulomb_error > 1e-3, "{un} {}", sol.coulomb_error);
    assert!(sol.solution.report.message.as_deref().unwrap_or("").contains("regularised"));
}

/// Landing with a large tangential velocity: sliding, γ_T = −μ γ_N along the slip and
/// γ_N = (y_N + μ̂ y_r)/(1 + μ μ̂): with m (u − u*) = γ a 2×2 linear system in (u_N, u_x).
#[test]
fn a_sliding_contact_has_the_hand_computed_impulse() {
    let m = 2.0;
    let (usn, usx) = (-1.0, 2.0);
    let g = particle(m, [usx, 0.0, usn]);
    let sol = solve(&g);
    let c = sol.contacts[0];
    let mu = 0.5;
    let mu_hat = mu * c.rt / c.rn;
    let k = 1.0 / (c.rn * (1.0 + mu * mu_hat));
    // (m + k) u_N − μ k u_x = m u*_N;  μ m u_N + m u_x = m u*_x + μ m u*_N.
    let (a11, a12, b1) = (m + k, -mu * k, m * usn);
    let (a21, a22, b2) = (mu * m, m, m * usx + mu * m * usn);
    let det = a11 * a22 - a12 * a21;
    let un = (b1 * a22 - a12 * b2) / det;
    let ux = (a11 * b2 - a21 * b1) / det;
    close(&sol.solution.u, &[un, ux, 0.0], 1e-12);
    let gn = m * (un - usn);
    close(&sol.solution.r, &[gn, -mu * gn, 0.0], 1e-12);
    let mut gamma = [0.0; 3];
    assert_eq!(c.project(&sol.solution.u, &mut gamma, None), ContactMode::Sliding);
}

/// Moving away from the plane: γ = 0 and v = v*, at once (no factorization).
#[test]
fn a_separating_contact_carries_nothing() {
    let g = particle(2.0, [0.3, -0.2, 1.0]);
    let sol = solve(&g);
    assert_eq!(sol.solution.r, vec![0.0; 3]);
    close(&sol.solution.v, &[0.3, -0.2, 1.0], 1e-15);
    assert_eq!((sol.solution.report.iterations, sol.solution.report.factorizations), (0, 0));
}

/// A 2-D contact (normal, one tangent): stiction by hand as in 3-D.
#[test]
fn a_planar_contact_sticks_by_hand() {
    let m = 1.5;
    let mm = Matrix::from_row_major(2, 2, &[m, 0.0, 0.0, m]).unwrap();
    let h = Matrix::from_row_major(2, 2, &[0.0, 1.0, 1.0, 0.0]).unwrap();
    let g = GlobalFrictionContactProblem::new(2, mm, h, vec![m * 0.05, -m], vec![0.0; 2], vec![0.3]).unwrap();
    let sol = solve(&g);
    let c = sol.contacts[0];
    close(&sol.solution.u, &[-m / (m + 1.0 / c.rn), m * 0.05 / (m + 1.0 / c.rt)], 1e-12);
}

/// A random problem of `nc` contacts of dimension `d` on `n` velocities, M SPD dense.
fn random_problem(seed: u64, n: usize, nc: usize, d: usize) -> GlobalFrictionContactProblem {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let l: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let md = perp_lcp::samples::gram_row_major(&l, n, n, None, 1.0, 1.0);
    let hd: Vec<f64> = (0..n * nc * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let f = (0..n).map(|_| rng.random_range(-2.0..2.0)).collect();
    let b = (0..nc * d).map(|_| rng.random_range(-0.5..0.5)).collect();
    let mu = (0..nc).map(|_| rng.random_range(0.1..1.0)).collect();
    GlobalFrictionContactProblem::new(
        d,
        Matrix::from_row_major(n, n, &md).unwrap(),
        Matrix::from_row_major(n, nc * d, &hd).unwrap(),
        f,
        b,
        mu,
    )
    .unwrap()
}

/// Points where every region is met: v* plus noise of several sizes.
fn probe_points(g: &GlobalFrictionContactProblem, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..12)
        .map(|k| (0..g.dofs()).map(|_| rng.random_range(-1.0..1.0) * 0.3 * (k % 4 + 1) as f64).collect())
        .collect()
}

/// ∇ℓ against central differences of ℓ, on points that meet all three regions.
#[test]
fn the_gradient_matches_finite_differences_of_the_cost() {
    for d in [2, 3] {
        let g = random_problem(1 + d as u64, 6, 5, d);
        let sap = Sap::new();
        let contacts = sap.contacts(&g).unwrap();
        let mut modes = std::collections::BTreeSet::new();
        for v in probe_points(&g, 9) {
            let (_, grad) = sap.cost_and_gradient(&g, &v).unwrap();
            let u = g.local_velocity(&v);
            for (i, c) in contacts.iter().enumerate() {
                modes.insert(format!("{:?}", c.project(&u[i * d..(i + 1) * d], &mut [0.0; 3][..d], None)));
            }
            let h = 1e-6;
            for k in 0..g.dofs() {
                let (mut vp, mut vm) = (v.clone(), v.clone());
                vp[k] += h;
                vm[k] -= h;
                let fd = (sap.cost_and_gradient(&g, &vp).unwrap().0
                    - sap.cost_and_gradient(&g, &vm).unwrap().0)
                    / (2.0 * h);
                assert!(
                    (fd - grad[k]).abs() <= 1e-5 * (1.0 + grad[k].abs()),
                    "d {d} k {k}: {fd} vs {}",
                    grad[k]
                );
            }
        }
        assert!(modes.len() >= 2, "d = {d}: regions met {modes:?}");
    }
}

/// A contact with μ drawn from `mu`, R_n from `[rn_min, 1)`, R_t from `[rt_min, 1)` and v̂_n
/// from `[−0.1, 0.1)`.
fn random_contact(rng: &mut ChaCha8Rng, mu: std::ops::Range<f64>, rn_min: f64, rt_min: f64) -> SapContact {
    SapContact {
        mu: rng.random_range(mu),
        rn: rng.random_range(rn_min..1.0),
        rt: rng.random_range(rt_min..1.0),
        vhat_n: rng.random_range(-0.1..0.1),
    }
}

/// Per contact, in every region: `∂ℓ_i/∂u = −γ` and `∂γ/∂u = −G` by central differences.
#[test]
fn a_contacts_cost_gradient_and_hessian_match_finite_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let mut modes = std::collections::BTreeSet::new();
    for d in [2, 3] {
        for _ in 0..600 {
            let c = random_contact(&mut rng, 0.05..1.2, 1e-2, 1e-3);
            let small = 10f64.powf(rng.random_range(-3.0..0.0));
            let u: Vec<f64> =
                (0..d).map(|k| rng.random_range(-1.0..1.0) * if k == 0 { 1.0 } else { small }).collect();
            let (mut gamma, mut g) = ([0.0; 3], [0.0; 9]);
            modes.insert(format!("{:?}", c.project(&u, &mut gamma[..d], Some(&mut g[..d * d]))));
            let h = 1e-7;
            for k in 0..d {
                let (mut up, mut um) = (u.clone(), u.clone());
                up[k] += h;
                um[k] -= h;
                let (mut gp, mut gm) = ([0.0; 3], [0.0; 3]);
                c.project(&up, &mut gp[..d], None);
                c.project(&um, &mut gm[..d], None);
                let fd = (c.cost(&gp[..d]) - c.cost(&gm[..d])) / (2.0 * h);
                assert!(
                    (fd + gamma[k]).abs() <= 1e-5 * (1.0 + gamma[k].abs()),
                    "{c:?} u {u:?}: {fd} vs {}",
                    -gamma[k]
                );
                for a in 0..d {
                    let fd = (gp[a] - gm[a]) / (2.0 * h);
                    let want = -g[a * d + k];
                    assert!(
                        (fd - want).abs() <= 1e-4 * (1.0 + want.abs()),
                        "{c:?} u {u:?} ({a},{k}): {fd} vs {want}"
                    );
                }
            }
        }
    }
    assert_eq!(modes.len(), 3, "regions met {modes:?}");
}

/// ∇²ℓ = M + H G Hᵀ against central differences of ∇ℓ (ℓ is piecewise C², the points are
/// generic).
#[test]
fn the_hessian_matches_finite_differences_of_the_gradient() {
    for d in [2, 3] {
        let g = random_problem(11 + d as u64, 5, 4, d);
        let sap = Sap::new();
        let n = g.dofs();
        for v in probe_points(&g, 3) {
            let hess = sap.dense_hessian(&g, &v).unwrap();
            let h = 1e-7;
            for k in 0..n {
                let (mut vp, mut vm) = (v.clone(), v.clone());
                vp[k] += h;
                vm[k] -= h;
                let (gp, gm) =
                    (sap.cost_and_gradient(&g, &vp).unwrap().1, sap.cost_and_gradient(&g, &vm).unwrap().1);
                for i in 0..n {
                    let fd = (gp[i] - gm[i]) / (2.0 * h);
                    let scale = 1.0 + hess[i * n + k].abs();
                    assert!(
                        (fd - hess[i * n + k]).abs() <= 1e-4 * scale,
                        "d {d} ({i},{k}): {fd} vs {}",
                        hess[i * n + k]
                    );
                }
            }
        }
    }
}

/// G is symmetric positive semi-definite in every region, and γ lies in the cone.
#[test]
fn the_projection_is_in_the_cone_and_g_is_symmetric_psd() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..2000 {
        let c = random_contact(&mut rng, 0.0..1.5, 1e-3, 1e-4);
        let u: Vec<f64> = (0..3).map(|_| rng.random_range(-1.0..1.0)).collect();
        let (mut gamma, mut g) = ([0.0; 3], [0.0; 9]);
        c.project(&u, &mut gamma, Some(&mut g));
        let gt = (gamma[1] * gamma[1] + gamma[2] * gamma[2]).sqrt();
        assert!(gamma[0] >= 0.0 && gt <= c.mu * gamma[0] * (1.0 + 1e-12) + 1e-15, "{gamma:?} {c:?}");
        for a in 0..3 {
            for b in 0..3 {
                assert!((g[a * 3 + b] - g[b * 3 + a]).abs() <= 1e-12 * (1.0 + g[a * 3 + b].abs()));
            }
        }
        let x: Vec<f64> = (0..3).map(|_| rng.random_range(-1.0..1.0)).collect();
        let q: f64 = (0..3).map(|a| x[a] * (0..3).map(|b| g[a * 3 + b] * x[b]).sum::<f64>()).sum();
        assert!(q >= -1e-12 * g.iter().fold(0.0_f64, |m, v| m.max(v.abs())), "{q}");
    }
}

/// The exact line search's step against a brute-force minimum of ℓ(v + α Δv) on a grid.
#[test]
fn the_exact_line_search_finds_the_brute_force_minimum() {
    for seed in 0..6 {
        let g = random_problem(20 + seed, 5, 6, 3);
        let sap = Sap::new();
        let mut rows = Vec::new();
        let (contacts, factor, _) = sap.prepare(&g, &mut rows, &mut Default::default()).unwrap();
        let model = model(&g, contacts, &factor).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let v: Vec<f64> = (0..5).map(|_| rng.random_range(-1.0..1.0)).collect();
        let mut e = Eval::new(&g);
        model.eval(&v, &mut e, false);
        // A descent direction: −∇ℓ scaled, so that the minimum is inside [0, 1.5].
        let dv: Vec<f64> = e.grad.iter().map(|x| -x * 0.2).collect();
        let mut mdv = vec![0.0; 5];
        g.m.mul_vec(&dv, &mut mdv);
        let mut du = vec![0.0; g.size()];
        g.h.mul_transpose_add(&dv, &mut du);
        let a = dv.iter().zip(&mdv).map(|(x, y)| x * y).sum();
        let slope: f64 = dv.iter().zip(&e.grad).map(|(x, y)| x * y).sum();
        let g0 = slope + du.iter().zip(&e.gamma).map(|(x, y)| x * y).sum::<f64>();
        let cost_a0 = e.cost
            - model.contacts.iter().enumerate().map(|(i, c)| c.cost(&e.gamma[3 * i..3 * i + 3])).sum::<f64>();
        let line = Line { contacts: &model.contacts, d: 3, u: &e.u, du: &du, a, g0, cost_a0, gamma0: None };
        // The line's cost is the cost at v + α Δv.
        for alpha in [0.0, 0.3, 1.1] {
            let va: Vec<f64> = v.iter().zip(&dv).map(|(x, y)| x + alpha * y).collect();
            let mut ea = Eval::new(&g);
            model.eval(&va, &mut ea, false);
            assert!((line.eval(alpha).0 - ea.cost).abs() <= 1e-12 * (1.0 + ea.cost.abs()));
        }
        let Search { alpha, cost, .. } = exact_line_search(&line, 1.5, 1e-8, 100);
        let grid = 150_000;
        let (mut best, mut best_alpha) = (f64::INFINITY, 0.0);
        for k in 0..=grid {
            let t = 1.5 * k as f64 / grid as f64;
            let c = line.eval(t).0;
            if c < best {
                (best, best_alpha) = (c, t);
            }
        }
        assert!(
            line.eval(alpha).0 <= best + 1e-12 * (1.0 + best.abs()),
            "seed {seed}: {alpha} vs {best_alpha}"
        );
        assert!((alpha - best_alpha).abs() <= 1e-4, "seed {seed}: {alpha} vs {best_alpha}");
        // A cost it reports is the line's there; given γ at α = 0, the search takes the same
        // steps to the bit with one projection fewer.
        if let Some(c) = cost {
            assert_eq!(c.to_bits(), line.eval(alpha).0.to_bits(), "seed {seed}");
        }
        let known = Line { gamma0: Some(&e.gamma), ..line };
        assert_eq!(known.slope_at_start().to_bits(), line.eval(0.0).1.to_bits(), "seed {seed}");
        let again = exact_line_search(&known, 1.5, 1e-8, 100);
        assert_eq!(again.alpha.to_bits(), alpha.to_bits(), "seed {seed}");
        let first = exact_line_search(&line, 1.5, 1e-8, 100);
        assert_eq!(again.evals + 1, first.evals, "seed {seed}");
    }
}

/// A box (6 velocities) on a plane, four corner contacts, pushed sideways below the friction
/// limit: the rigid answer stops it (v = 0, GlobalNewton's exact answer); SAP's regularised
/// answer approaches it as β → 0 (σ = β² with it), its velocity error falling like β².
#[test]
fn the_near_rigid_limit_approaches_the_rigid_answer() {
    let g = box_on_plane(0.3);
    let rigid = GlobalNewton::new().solve(&g, None, &tight()).unwrap();
    assert_eq!(rigid.report.status, Status::Solved);
    let vmax = |v: &[f64], w: &[f64]| v.iter().zip(w).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(vmax(&rigid.v, &[0.0; 6]) < 1e-10, "{:?}", rigid.v);
    let mut last = f64::INFINITY;
    for beta in [1.0, 0.1, 0.01, 0.001] {
        let mut sap = Sap::with_regularisation(Regularisation::NearRigid { beta, sigma: beta * beta * 1e-3 });
        let sol = sap.solve(&g, None, &Settings { tol: 1e-10, ..Settings::default() }).unwrap();
        assert_eq!(sol.solution.report.status, Status::Solved, "β = {beta}: {:?}", sol.solution.report);
        let err = vmax(&sol.solution.v, &rigid.v);
        assert!(err <= 0.02 * last, "β = {beta}: {err} after {last}");
        last = err;
        // The impulse's total: the normal ones carry m g dt, the tangential ones the push.
        let (nsum, tsum): (f64, f64) =
            (0..4).fold((0.0, 0.0), |(a, b), i| (a + sol.solution.r[3 * i], b + sol.solution.r[3 * i + 1]));
        assert!((nsum - 2.0 * 9.81 * 0.01).abs() < 0.03 * nsum + 1e-6, "β = {beta}: {nsum}");
        assert!(
            (tsum + 0.3 * 0.01 * 2.0 * 9.81 * 0.5).abs() < 0.03 * tsum.abs() + 1e-6,
            "β = {beta}: {tsum}"
        );
    }
    assert!(last < 1e-8, "{last}");
}

/// A box of mass 2 at rest on z = 0 with corners at (±0.5, ±0.5, −0.5) from its centre, one
/// step (dt = 0.01) of gravity and a push of `push` times the friction limit (μ = 0.5).
fn box_on_plane(push: f64) -> GlobalFrictionContactProblem {
    let (m, i_rot, dt, grav, mu) = (2.0, 2.0 / 6.0, 0.01, 9.81, 0.5);
    let mut md = vec![0.0; 36];
    for k in 0..3 {
        md[k * 6 + k] = m;
        md[(k + 3) * 6 + k + 3] = i_rot;
    }
    let mut trip = Vec::new();
    for (c, (px, py)) in [(0.5, 0.5), (-0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)].into_iter().enumerate() {
        let pz = -0.5;
        // Normal (z): v_z + ω_x p_y − ω_y p_x; tangents x, y: v + ω × p.
        for (row, col) in [
            (vec![(2, 1.0), (3, py), (4, -px)], 3 * c),
            (vec![(0, 1.0), (4, pz), (5, -py)], 3 * c + 1),
            (vec![(1, 1.0), (5, px), (3, -pz)], 3 * c + 2),
        ] {
            for (dof, v) in row {
                trip.push((dof, col, v));
            }
        }
    }
    let f = vec![push * mu * m * grav * dt, 0.0, -m * grav * dt, 0.0, 0.0, 0.0];
    GlobalFrictionContactProblem::new(
        3,
        Matrix::from_row_major(6, 6, &md).unwrap(),
        Matrix::from_triplets(6, 12, &trip).unwrap(),
        f,
        vec![0.0; 12],
        vec![mu; 4],
    )
    .unwrap()
}

/// One solver kept across problems of different shapes gives, on each, the bits of a fresh
/// solver; a repeated pattern costs no new symbolic analysis.
#[test]
fn a_kept_solver_equals_a_fresh_one_bit_for_bit() {
    let problems = [
        random_problem(40, 6, 5, 3),
        box_on_plane(0.8),
        random_problem(41, 9, 7, 2),
        random_problem(40, 6, 5, 3),
    ];
    let mut kept = Sap::new();
    let s = tight();
    for (k, g) in problems.iter().enumerate() {
        let a = kept.solve(g, None, &s).unwrap();
        let b = Sap::new().solve(g, None, &s).unwrap();
        let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a.solution.v), bits(&b.solution.v), "problem {k}");
        assert_eq!(bits(&a.solution.r), bits(&b.solution.r), "problem {k}");
        assert_eq!(a.solution.report.iterations, b.solution.report.iterations);
        assert_eq!(a.solution.report.status, Status::Solved, "problem {k}: {:?}", a.solution.report);
        assert_eq!(b.analyses, 1.min(b.solution.report.factorizations), "problem {k}");
    }
    // Four problems, three analyses: the box's Hessian is full 6×6 like the first random
    // problem's (one pattern, kept); the third differs; the fourth is the first again.
    assert_eq!(kept.analyses(), 3);
    let before = kept.analyses();
    kept.solve(&problems[3], None, &s).unwrap();
    assert_eq!(kept.analyses(), before, "the same pattern again: no new analysis");
}

/// Bad input: a clear error, never a panic.
#[test]
fn bad_input_is_a_clear_error() {
    let s = Settings::default();
    let g = particle(1.0, [0.0, 0.0, -1.0]);
    let mut sap = Sap::new();
    let e = sap.solve(&g, Some(&[1.0]), &s).unwrap_err().to_string();
    assert!(e.contains("v0"), "{e}");
    let e = sap.solve(&g, Some(&[f64::NAN, 0.0, 0.0]), &s).unwrap_err().to_string();
    assert!(e.contains("v0"), "{e}");
    let e = sap.solve_global(&g, Some(&[1.0]), &s).unwrap_err().to_string();
    assert!(e.contains("warm start"), "{e}");
    let mut bad = g.clone();
    bad.m = Matrix::from_row_major(3, 3, &[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
    let e = sap.solve(&bad, None, &s).unwrap_err().to_string();
    assert!(e.contains("mass matrix M"), "{e}");
    let mut bad = g.clone();
    bad.mu = vec![-0.1];
    assert!(sap.solve(&bad, None, &s).unwrap_err().to_string().contains("mu"));
    let mut bad = g.clone();
    bad.f[1] = f64::NAN;
    assert!(sap.solve(&bad, None, &s).is_err());
    let mut bad = g.clone();
    bad.h = Matrix::from_row_major(2, 3, &[0.0; 6]).unwrap();
    assert!(sap.solve(&bad, None, &s).is_err());
    // A rolling-like cone (dimension 5) is refused by name.
    let five = GlobalFrictionContactProblem::new(
        5,
        Matrix::from_row_major(1, 1, &[1.0]).unwrap(),
        Matrix::from_row_major(1, 5, &[1.0, 0.0, 0.0, 0.0, 0.0]).unwrap(),
        vec![0.0],
        vec![0.0; 5],
        vec![0.5],
    )
    .unwrap();
    let e = sap.solve(&five, None, &s).unwrap_err().to_string();
    assert!(e.contains("dimension 2 or 3"), "{e}");
    for reg in [
        Regularisation::NearRigid { beta: 0.0, sigma: 1e-3 },
        Regularisation::NearRigid { beta: 1.0, sigma: f64::NAN },
        Regularisation::Compliant { dt: 0.01, beta: 1.0, sigma: 1e-3, contacts: vec![] },
        Regularisation::Compliant {
            dt: 0.01,
            beta: 1.0,
            sigma: 1e-3,
            contacts: vec![Compliance { stiffness: -1.0, dissipation_time_scale: 0.0, phi0: 0.0 }],
        },
    ] {
        let e = Sap::with_regularisation(reg.clone()).solve(&g, None, &s).unwrap_err().to_string();
        assert!(e.contains("sap"), "{reg:?}: {e}");
    }
}

/// From reactions (the `GlobalSolver` entry point) the start is `v = M⁻¹ (f + H r)`: the
/// answer's own impulses give back its v, which meets the criterion at once.
#[test]
fn a_warm_start_from_the_answers_impulses_costs_no_factorization() {
    let g = box_on_plane(0.8);
    let s = tight();
    let cold = Sap::new().solve(&g, None, &s).unwrap();
    let warm = Sap::new().solve_global(&g, Some(&cold.solution.r), &s).unwrap();
    assert_eq!((warm.report.status, warm.report.factorizations), (Status::Solved, 0), "{:?}", warm.report);
    close(&warm.v, &cold.solution.v, 1e-12);
}

/// Solved means SAP's criterion, recomputed from the returned v; a one-iteration budget
/// on a sliding contact ends unsolved with the measure above tol.
#[test]
fn solved_is_the_recomputed_criterion() {
    let g = random_problem(40, 6, 5, 3);
    let s = Settings { tol: 1e-10, max_iter: 1, ..Settings::default() };
    let sol = Sap::new().solve(&g, None, &s).unwrap();
    assert_eq!(sol.solution.report.status, Status::MaxIterations);
    assert!(sol.solution.report.error > 1e-10);
    let sol = Sap::new().solve(&g, None, &Settings { tol: 1e-10, ..Settings::default() }).unwrap();
    assert_eq!(sol.solution.report.status, Status::Solved);
    assert!(sol.optimality <= 1e-14 + 1e-10 * sol.scale);
    assert!(sol.solution.report.error <= 1e-10);
    let (_, grad) = Sap::new().cost_and_gradient(&g, &sol.solution.v).unwrap();
    let res = (0..g.dofs()).map(|k| grad[k] * grad[k] / g.m.get(k, k)).sum::<f64>().sqrt();
    assert!((res - sol.optimality).abs() <= 1e-12 * sol.optimality, "{res} vs {}", sol.optimality);
}

/// A sequence of problems of one pattern whose values move a little (a time stepper's steps
/// once the contact graph repeats): from the second on, the kept factor's conjugate gradients
/// give Newton directions without a factorization, and the answers meet the same criterion
/// as with every direction factored (`factor_reuse = 0`), to which they agree within the
/// tolerance's reach. (120 velocities: smaller problems always factor.)
#[test]
fn a_repeated_pattern_reuses_the_kept_factor() {
    let s = Settings { tol: 1e-9, ..Settings::default() };
    let base = random_problem(31, 120, 40, 3);
    let (mut kept, mut fresh) = (Sap::new(), Sap { factor_reuse: 0, ..Sap::new() });
    let mut v0: Option<Vec<f64>> = None;
    let mut saved = 0;
    for step in 0..6 {
        let mut g = base.clone();
        g.f.iter_mut().enumerate().for_each(|(k, f)| *f *= 1.0 + 1e-3 * ((step * 7 + k) % 5) as f64);
        let a = kept.solve(&g, v0.as_deref(), &s).unwrap().solution;
        let b = fresh.solve(&g, v0.as_deref(), &s).unwrap().solution;
        for sol in [&a, &b] {
            assert_eq!(sol.report.status, Status::Solved, "step {step}: {:?}", sol.report);
        }
        assert_eq!(b.report.factorizations, b.report.iterations, "step {step}");
        assert!(a.report.factorizations <= a.report.iterations, "step {step}");
        if step == 0 {
            assert_eq!(a.report.factorizations, a.report.iterations);
        }
        saved += a.report.iterations - a.report.factorizations;
        let scale = b.v.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
        for (x, y) in a.v.iter().zip(&b.v) {
            assert!((x - y).abs() <= 1e-6 * scale, "step {step}: {x} vs {y}");
        }
        v0 = Some(a.v.clone());
    }
    assert!(saved >= 3, "{saved} directions from the kept factor");
}
