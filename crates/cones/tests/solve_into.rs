//! `solve_into` on a reused solver gives what `solve` on a fresh one gives, bit for bit (same
//! r, u, status, iterations, error, message), over a sequence of problems whose structure
//! changes (dense and sparse W, a dense W whose zero pattern changes, other sizes, elliptic
//! laws, warm starts), and the same errors for bad input.

use perp_cones::{
    ConeSpec, FrictionContactProblem, FrictionSolutionMut, FrictionSolver, Matrix, Nsgs, Settings,
    SolveReport,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The frictional solvers with their defaults (the catalogue, `perp-catalogue`, sits above
/// this crate; `perp-catalogue`'s tests check that it builds the same ones).
const SOLVER_NAMES: &[&str] =
    &["nsgs", "ac-newton", "fb-newton", "nm-newton", "prox", "lemke-pyramid", "admm", "apgd"];

fn solver(name: &str) -> Option<Box<dyn FrictionSolver>> {
    Some(match name {
        "nsgs" => Box::new(Nsgs::new()),
        "ac-newton" => Box::new(perp_cones::SemismoothNewton::alart_curnier()),
        "fb-newton" => Box::new(perp_cones::SemismoothNewton::fischer_burmeister()),
        "nm-newton" => Box::new(perp_cones::SemismoothNewton::natural_map()),
        "prox" => Box::new(perp_cones::Prox::new()),
        "lemke-pyramid" => Box::new(perp_cones::lemke_pyramid::LemkePyramid::new()),
        "admm" => Box::new(perp_cones::Admm::new()),
        "apgd" => Box::new(perp_cones::Apgd::new()),
        _ => return None,
    })
}

/// `nc` 3-D contacts, `W = J Jᵀ + 10⁻² I` with J random and sparse (about half zeros), dense
/// or sparse storage.
fn problem(nc: usize, sparse: bool, seed: u64) -> FrictionContactProblem {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = 3 * nc;
    let m = n + 2;
    let j: Vec<f64> =
        (0..n * m).map(|_| if rng.random_bool(0.5) { rng.random_range(-1.0..1.0) } else { 0.0 }).collect();
    let mut t = Vec::new();
    let mut dense = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            let mut v = (0..m).map(|k| j[a * m + k] * j[b * m + k]).sum::<f64>();
            if a == b {
                v += 1e-2;
            }
            if v != 0.0 {
                t.push((a, b, v));
            }
            dense[a * n + b] = v;
        }
    }
    let w = if sparse {
        Matrix::from_triplets(n, n, &t).unwrap()
    } else {
        Matrix::from_row_major(n, n, &dense).unwrap()
    };
    let q = (0..n)
        .map(|k| if k % 3 == 0 { rng.random_range(-1.0..0.3) } else { rng.random_range(-0.5..0.5) })
        .collect();
    let mu = (0..nc).map(|_| rng.random_range(0.1..0.9)).collect();
    FrictionContactProblem::new(3, w, q, mu).unwrap()
}

fn same(name: &str, what: &str, a: &perp_cones::FrictionSolution, r: &[f64], u: &[f64], rep: &SolveReport) {
    assert_eq!(a.r, r, "{name} {what}: r");
    assert_eq!(a.u, u, "{name} {what}: u");
    assert_eq!(a.report.status, rep.status, "{name} {what}");
    assert_eq!(a.report.iterations, rep.iterations, "{name} {what}");
    assert_eq!(a.report.error.to_bits(), rep.error.to_bits(), "{name} {what}");
    assert_eq!(a.report.factorizations, rep.factorizations, "{name} {what}");
    assert_eq!(a.report.message, rep.message, "{name} {what}");
    assert_eq!(a.report.solver, rep.solver, "{name} {what}");
}

#[test]
fn reused_solve_into_equals_fresh_solve_across_structures() {
    let mut problems = vec![
        ("dense 3", problem(3, false, 1)),
        ("sparse 4", problem(4, true, 2)),
        ("dense 3 again", problem(3, false, 3)),
        ("dense 5", problem(5, false, 4)),
        ("sparse 4 again", problem(4, true, 5)),
    ];
    // The pattern of "sparse 4" with new values of W and q (W's values refreshed in place,
    // the sparse Newton matrix's symbolic LU kept).
    let mut p = problem(4, true, 2);
    if let Matrix::Sparse(w) = &mut p.w {
        w.data_mut().iter_mut().enumerate().for_each(|(k, v)| *v *= 1.0 + 0.1 * (k % 3) as f64);
    }
    p.q.iter_mut().for_each(|v| *v = 0.8 * *v - 0.05);
    problems.insert(2, ("sparse 4 new values", p));
    // A dense W whose zero pattern changes: same size as "dense 3" but one pair zeroed.
    let mut p = problem(3, false, 1);
    if let Matrix::Dense(w) = &mut p.w {
        w[(0, 4)] = 0.0;
        w[(4, 0)] = 0.0;
    }
    problems.push(("dense 3 new zeros", p));
    let e = ConeSpec::Elliptic { e: vec![1.0, 0.5] };
    problems.push(("elliptic 3", problem(3, false, 6).with_cones(vec![e.clone(); 3]).unwrap()));
    let mut p = problem(3, false, 7).with_cones(vec![e.clone(), ConeSpec::Coulomb, e]).unwrap();
    p.q[0] = -0.7;
    problems.push(("mixed laws 3", p));
    let s = Settings { tol: 1e-9, ..Settings::default() };
    for name in SOLVER_NAMES {
        let mut sv = solver(name).unwrap();
        let (mut r, mut u, mut report) = (Vec::new(), Vec::new(), SolveReport::new("stale"));
        for (what, p) in &problems {
            let n = p.size();
            r.clear();
            r.resize(n, 0.0);
            u.resize(n, 0.0);
            let fresh = solver(name).unwrap().solve(p, None, &s);
            let into = sv.solve_into(
                p,
                false,
                FrictionSolutionMut { r: &mut r, u: &mut u, report: &mut report },
                &s,
            );
            match (fresh, into) {
                (Ok(a), Ok(())) => {
                    same(name, what, &a, &r, &u, &report);
                    // Warm start from a perturbed answer.
                    let warm: Vec<f64> = a.r.iter().map(|v| v * 0.9).collect();
                    r.copy_from_slice(&warm);
                    let a = solver(name).unwrap().solve(p, Some(&warm), &s).unwrap();
                    sv.solve_into(
                        p,
                        true,
                        FrictionSolutionMut { r: &mut r, u: &mut u, report: &mut report },
                        &s,
                    )
                    .unwrap();
                    same(name, &format!("{what} warm"), &a, &r, &u, &report);
                }
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name} {what}"),
                (a, b) => panic!("{name} {what}: solve {:?} but solve_into {:?}", a.map(|x| x.report), b),
            }
        }
    }
}

#[test]
fn nsgs_options_and_bad_input_agree() {
    let p = problem(4, false, 11);
    let s = Settings::default();
    let mut sv = Nsgs { omega: 1.3, shuffle: Some(5), ..Nsgs::default() };
    let n = p.size();
    let (mut r, mut u, mut report) = (vec![0.0; n], vec![0.0; n], SolveReport::new(""));
    for _ in 0..3 {
        r.fill(0.0);
        sv.solve_into(&p, false, FrictionSolutionMut { r: &mut r, u: &mut u, report: &mut report }, &s)
            .unwrap();
        let a = Nsgs { omega: 1.3, shuffle: Some(5), ..Nsgs::default() }.solve(&p, None, &s).unwrap();
        same("nsgs shuffled", "", &a, &r, &u, &report);
    }
    // Bad input: the same error from both paths, for every solver.
    let mut nan = p.clone();
    nan.q[2] = f64::NAN;
    for name in SOLVER_NAMES {
        let mut sv = solver(name).unwrap();
        let a = solver(name).unwrap().solve(&nan, None, &s).unwrap_err();
        let b = sv
            .solve_into(&nan, false, FrictionSolutionMut { r: &mut r, u: &mut u, report: &mut report }, &s)
            .unwrap_err();
        assert_eq!(a.to_string(), b.to_string(), "{name}");
        let a = solver(name).unwrap().solve(&p, Some(&[1.0; 5]), &s).unwrap_err();
        let b = sv
            .solve_into(
                &p,
                true,
                FrictionSolutionMut { r: &mut [1.0; 5], u: &mut u, report: &mut report },
                &s,
            )
            .unwrap_err();
        assert_eq!(a.to_string(), b.to_string(), "{name}");
        assert!(a.to_string().contains("warm start"), "{name}: {a}");
        let e = sv
            .solve_into(
                &p,
                false,
                FrictionSolutionMut { r: &mut r, u: &mut [0.0; 2], report: &mut report },
                &s,
            )
            .unwrap_err();
        assert!(e.to_string().contains('u'), "{name}: {e}");
        // A bad law through the prepared path: μ < 0 on an elliptic contact.
        let mut bad = p.clone().with_cones(vec![ConeSpec::Elliptic { e: vec![1.0, 2.0] }; 4]).unwrap();
        sv.solve_into(&bad, false, FrictionSolutionMut { r: &mut r, u: &mut u, report: &mut report }, &s)
            .ok();
        bad.mu[1] = -1.0;
        let a = solver(name).unwrap().solve(&bad, None, &s).unwrap_err();
        let b = sv
            .solve_into(&bad, false, FrictionSolutionMut { r: &mut r, u: &mut u, report: &mut report }, &s)
            .unwrap_err();
        assert_eq!(a.to_string(), b.to_string(), "{name}");
    }
}
