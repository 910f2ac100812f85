//! `admm` and `apgd` on every Siconos fc3d file: no false `Solved`. Every answer reported
//! `Solved` is checked independently (u recomputed as W r + q, Siconos' error recomputed from
//! r and u, at most tol), at two tolerances, with 10 s per solve. The table printed with
//! `--nocapture` records each file's status, error and iterations. (It lives here, not in
//! `perp-cones`, because reading the files needs `perp-formats`, which sits above the cones.)
//!
//! `PERP_SUITES=/work/shared/suites cargo test --release --test siconos_fc_admm_apgd -- --include-ignored --nocapture`

use perp::cones::{solver, FrictionContactProblem};
use perp::core::{Settings, Status};
use std::path::PathBuf;

fn files() -> Vec<PathBuf> {
    let dir = perp::formats::suites_dir().join("siconos").join("fc3d");
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("suite folder").map(|e| e.expect("entry").path()).collect();
    v.sort();
    v
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn admm_and_apgd_never_claim_a_false_solved() {
    let all = files();
    assert_eq!(all.len(), 22, "22 fc3d files");
    let mut solved = [0usize; 2];
    for f in &all {
        let p: FrictionContactProblem =
            perp::formats::read_friction_contact(f).unwrap_or_else(|e| panic!("{e}"));
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let mut line = format!("{name:42} n={:5}", p.size());
        for (k, s) in ["admm", "apgd"].iter().enumerate() {
            for tol in [1e-6, 1e-8] {
                // No time limit (issue 37): iteration limits alone, so no outcome depends on
                // the clock.
                let settings = Settings { tol, ..Settings::default() };
                let sol = solver(s).unwrap().solve(&p, None, &settings).unwrap();
                let r = &sol.report;
                let u = p.velocity(&sol.r);
                assert_eq!(u, sol.u, "{name} {s}: u is not W r + q");
                let e = perp::core::measures::friction_contact_error(p.dim, &p.q, &p.mu, &sol.r, &u);
                assert!(
                    (e - r.error).abs() <= 1e-12 * e.max(1e-300) || (e.is_nan() && r.error.is_nan()),
                    "{name} {s}: reported error {:e}, recomputed {e:e}",
                    r.error
                );
                if r.status == Status::Solved {
                    assert!(e <= tol, "{name} {s}: Solved with error {e:e} > tol {tol:e}");
                    assert!(sol.r.iter().all(|v| v.is_finite()));
                    if tol == 1e-6 {
                        solved[k] += 1;
                    }
                }
                line +=
                    &format!(" | {s} {tol:.0e} {} {:.1e} ({} it)", r.status.as_str(), r.error, r.iterations);
            }
        }
        println!("{line}");
    }
    println!("solved at 1e-6 (of {}): admm {}, apgd {}", all.len(), solved[0], solved[1]);
    // Both methods are first-order: they must still solve a fair share of the suite.
    assert!(solved[0] >= all.len() / 2, "admm solves only {} files at 1e-6", solved[0]);
}
