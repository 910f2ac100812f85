//! Every LCP solver on every Siconos LCP file: no solver ever claims `Solved` with an error
//! above the tolerance, and Lemke solves what Siconos' Lemke solves (and more) at 1e-12.
//!
//! Needs the peer suites: set `PERP_SUITES` to the `suites` folder (CI does).

use perp::core::{Settings, Status};
use perp::lcp::{Lcp, LcpSolver, SOLVER_NAMES};
use std::path::PathBuf;

fn lcp_dir() -> PathBuf {
    perp::formats::suites_dir().join("siconos").join("lcp")
}

fn files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(lcp_dir())
        .expect("PERP_SUITES/siconos/lcp is readable")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dat"))
        .collect();
    v.sort();
    assert_eq!(v.len(), 20, "the Siconos LCP suite has 20 files");
    v
}

fn read(name: &str) -> Lcp {
    perp::formats::read_lcp(&lcp_dir().join(name)).unwrap()
}

fn stem(p: &std::path::Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

/// Files on which Siconos' own Lemke fails (SUITES.md).
const SICONOS_LEMKE_FAILS: &[&str] = &["lcp_CPS_3", "lcp_Pang_isolated_sol_perturbed"];

#[test]
#[ignore = "needs PERP_SUITES"]
fn lemke_solves_every_file_siconos_lemke_solves_to_1e_12() {
    let s = Settings { tol: 1e-12, ..Settings::default() };
    let mut table = String::new();
    for f in files() {
        let p = perp::formats::read_lcp(&f).unwrap();
        let sol = perp::lcp::solver("lemke").unwrap().solve(&p, None, &s).unwrap();
        let r = &sol.report;
        table.push_str(&format!(
            "{:34} n={:3} {:16} pivots={:4} error={:.2e}\n",
            stem(&f),
            p.n(),
            r.status.as_str(),
            r.pivots,
            r.error
        ));
        if !SICONOS_LEMKE_FAILS.contains(&stem(&f).as_str()) {
            assert_eq!(r.status, Status::Solved, "{}: {r:?}", stem(&f));
            assert!(r.error <= 1e-12, "{}: error {}", stem(&f), r.error);
        }
    }
    println!("{table}");
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn lemke_solves_the_bimatrix_game_cps_3_by_restarting() {
    // With d = e Lemke ends on a secondary ray (as in Siconos); a restart with another
    // covering vector reaches a solution.
    let p = read("lcp_CPS_3.dat");
    let s = Settings { tol: 1e-12, ..Settings::default() };
    let first = perp::lcp::lemke::Lemke { restarts: 0, ..Default::default() }.solve(&p, None, &s).unwrap();
    assert_eq!(first.report.status, Status::RayTermination);
    check_ray(&p, first.ray.as_ref().unwrap());
    let sol = perp::lcp::lemke::Lemke::new().solve(&p, None, &s).unwrap();
    assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report);
    assert!(sol.report.error <= 1e-12);
    // A Nash equilibrium: z ≥ 0, w ≥ 0, zᵀw = 0, checked directly.
    assert!(sol.z.iter().all(|&z| z >= 0.0) && sol.w.iter().all(|&w| w >= -1e-12));
    assert!(sol.z.iter().zip(&sol.w).all(|(z, w)| (z * w).abs() <= 1e-12));
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn pang_perturbed_is_infeasible_and_lemke_says_so_with_a_ray() {
    // M = [[0,−1,−1],[1,0,0],[−1,0,0]], q = (−1e-4, −1, 1): w₁ = −z₂ − z₃ − 1e-4 < 0 for
    // every z ≥ 0, so no solution exists; Siconos' Lemke "fails", which is the right answer.
    let p = read("lcp_Pang_isolated_sol_perturbed.dat");
    let z = [3.0, 2.0, 1.0];
    let w = p.w(&z);
    assert!((w[0] - (-2.0 - 1.0 - 1e-4)).abs() < 1e-15, "orientation of M as documented: {w:?}");
    let sol = perp::lcp::solver("lemke").unwrap().solve(&p, None, &Settings::default()).unwrap();
    assert_eq!(sol.report.status, Status::RayTermination);
    check_ray(&p, sol.ray.as_ref().unwrap());
}

/// Checks a Lemke secondary ray: along it z ≥ 0, w = Mz + q + d z₀ ≥ 0 and zᵢwᵢ = 0.
fn check_ray(p: &Lcp, ray: &perp::core::Ray) {
    for t in [0.0, 1.0, 100.0] {
        let v = ray.violation(p.m(), p.q(), t);
        assert!(v <= 1e-9 * (1.0 + t), "t = {t}: violation {v}, {ray:?}");
    }
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn no_solver_claims_solved_above_tolerance_on_any_file() {
    let mut table = String::new();
    for tol in [1e-6, 1e-10] {
        // No time limit (issue 37): iteration limits alone, so no outcome depends on the clock.
        let s = Settings { tol, ..Settings::default() };
        for f in files() {
            let p = perp::formats::read_lcp(&f).unwrap();
            for name in SOLVER_NAMES {
                let outcome = perp::lcp::solver(name).unwrap().solve(&p, None, &s);
                let cell = match &outcome {
                    Ok(sol) => {
                        let r = &sol.report;
                        assert!(
                            r.status != Status::Solved || r.error <= tol,
                            "{name} on {}: {r:?}",
                            stem(&f)
                        );
                        assert!(sol.z.iter().all(|x| x.is_finite()), "{name} on {}: non-finite z", stem(&f));
                        format!("{} {} {:.1e}", r.status, r.iterations, r.error)
                    }
                    Err(e) => format!("refused: {e}"),
                };
                table.push_str(&format!("tol {tol:.0e} {:34} {name:17} {cell}\n", stem(&f)));
            }
        }
    }
    println!("{table}");
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn newton_solvers_solve_every_solvable_file_but_tobenna() {
    // Siconos' Newton solvers fail on lcp_CPS_1 (a non-isolated solution set); ours do not.
    // Both fail on the degenerate 40×40 game lcp_tobenna (Lemke solves it);
    // Pang_isolated_sol_perturbed has no solution. Plain bdiff-newton stalls on the
    // non-monotone CPS_2 and CPS_4(bis); its proximal-perturbation rescue solves them.
    let s = Settings { tol: 1e-10, ..Settings::default() };
    for f in files() {
        let name = stem(&f);
        let p = perp::formats::read_lcp(&f).unwrap();
        for (solver, fails) in [
            ("fb-newton", &["lcp_tobenna", "lcp_Pang_isolated_sol_perturbed"][..]),
            ("bdiff-newton", &["lcp_tobenna", "lcp_Pang_isolated_sol_perturbed"][..]),
        ] {
            let r = perp::lcp::solver(solver).unwrap().solve(&p, None, &s).unwrap().report;
            if fails.contains(&name.as_str()) {
                assert_ne!(r.status, Status::Solved, "{solver} on {name}: update this test: {r:?}");
            } else {
                assert_eq!(r.status, Status::Solved, "{solver} on {name}: {r:?}");
            }
        }
    }
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn warm_started_lemke_needs_no_pivot_where_the_support_defines_the_basis() {
    let s = Settings { tol: 1e-12, ..Settings::default() };
    for f in files() {
        let p = perp::formats::read_lcp(&f).unwrap();
        let cold = perp::lcp::solver("lemke").unwrap().solve(&p, None, &s).unwrap();
        if cold.report.status != Status::Solved {
            continue;
        }
        let warm = perp::lcp::solver("lemke").unwrap().solve(&p, Some(&cold.z), &s).unwrap();
        assert_eq!(warm.report.status, Status::Solved, "{}", stem(&f));
        if stem(&f) == "lcp_Pang_isolated_sol" {
            // z = (1, 0, 0) is degenerate: its support's block M₀₀ = 0 is singular, so the
            // support cannot define the basis and Lemke runs from the start instead.
            assert_eq!(cold.z, vec![1.0, 0.0, 0.0]);
            assert_eq!(p.m().get(0, 0), 0.0);
            assert!(warm.report.pivots > 0);
        } else {
            assert_eq!(warm.report.pivots, 0, "{}", stem(&f));
        }
    }
}
