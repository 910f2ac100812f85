//! SAP (`perp_cones::Sap`, Castro et al. 2022) on real global problems: the steps of
//! `ball-pile 20` harvested in global form (`Simulator::last_global_problem`) and the Siconos
//! `gfc/` files. "Solved" is SAP's optimality criterion of the *regularised* problem,
//! recomputed from the returned v; the Coulomb (Siconos global) error of its answer is printed
//! beside it and is not expected to be small.
//!
//! The suite files: `PERP_SUITES=$PWD/../shared/suites cargo test -p perp-dynamics --test
//! sap_global -- --include-ignored`. The timings against `global-ac-newton` and `global-ipm`
//! are an example: `cargo run --release -p perp-dynamics --example velocity_space -- solvers`.

use perp_cones::{GlobalFrictionContactProblem, Sap};
use perp_core::{Error, Settings, Status};
use perp_dynamics::scenes;
use perp_dynamics::{Simulator, StepOptions, System};
use perp_formats::FrictionFile;
use std::path::PathBuf;

/// The global problems of `ball-pile n`'s first `steps` steps (those with contacts).
fn ball_pile_steps(n: usize, steps: usize) -> Vec<GlobalFrictionContactProblem> {
    let pile = scenes::scene("ball-pile", Some(n)).unwrap();
    let opts = StepOptions { keep_problem: true, ..pile.default_options() };
    let (q0, u0) = pile.initial_state();
    let sys: &dyn System = &*pile;
    let mut sim = Simulator::new(sys, q0, u0, pile.default_dt(), opts).unwrap();
    let mut out = Vec::new();
    for _ in 0..steps {
        sim.step().unwrap();
        if let Some(g) = sim.last_global_problem() {
            out.push(g.unwrap());
        }
    }
    out
}

/// Every step of the pile is solved to SAP's criterion at 1e-8, the criterion recomputed, with
/// one symbolic analysis per contact pattern; the answers are compliant (they penetrate), so
/// their Coulomb error stays above the tolerance.
#[test]
fn every_ball_pile_step_is_solved_to_saps_criterion() {
    let problems = ball_pile_steps(20, 40);
    assert!(problems.len() >= 10, "steps with contacts: {}", problems.len());
    let s = Settings { tol: 1e-8, ..Settings::default() };
    let mut sap = Sap::new();
    let (mut iters, mut worst_coulomb, mut analyses_before) = (Vec::new(), 0.0_f64, 0);
    let mut patterns = 0;
    let mut last_shape: Option<(usize, usize, usize)> = None;
    for (k, g) in problems.iter().enumerate() {
        let sol = sap.solve(g, None, &s).unwrap();
        let rep = &sol.solution.report;
        assert_eq!(rep.status, Status::Solved, "step {k}: {rep:?}");
        assert!(sol.optimality <= sap.abs_tolerance + s.tol * sol.scale);
        assert!(rep.error <= s.tol);
        // The factor's analysis is redone only when the problem's structure changes.
        let shape = (g.dofs(), g.size(), g.h.nnz());
        if last_shape != Some(shape) && rep.factorizations > 0 {
            patterns += 1;
            last_shape = Some(shape);
        }
        assert!(sol.analyses - analyses_before <= 1, "step {k}");
        analyses_before = sol.analyses;
        iters.push(rep.iterations);
        worst_coulomb = worst_coulomb.max(sol.coulomb_error);
    }
    assert!(sap.analyses() <= patterns, "{} analyses for {patterns} shapes", sap.analyses());
    println!(
        "sap on ball-pile 20: {} steps solved, Newton iterations {:?}, {} analyses, worst Coulomb error {worst_coulomb:.2e}",
        problems.len(),
        iters,
        sap.analyses()
    );
}

/// Every global problem file of the suites (`gfc/`, and the global FCLIB files of `fc3d/`).
fn global_files() -> Vec<(String, GlobalFrictionContactProblem)> {
    let root = perp_formats::suites_dir().join("siconos");
    let mut out = Vec::new();
    for dir in ["gfc", "fc3d", "fc2d"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("entry").path()).collect();
        paths.sort();
        for p in paths {
            if let Ok(FrictionFile::Global(g)) = perp_formats::read_friction_file(&p) {
                out.push((p.file_name().unwrap().to_string_lossy().to_string(), g));
            }
        }
    }
    out
}

/// SAP on every global suite file: solved to its criterion at 1e-8 (recomputed), or refused
/// with a named error when M is not symmetric positive definite.
#[test]
#[ignore = "needs PERP_SUITES"]
fn every_global_suite_file_is_solved_to_saps_criterion() {
    let files = global_files();
    assert!(files.len() >= 5, "global files: {}", files.len());
    let s = Settings { tol: 1e-8, ..Settings::default() };
    for (name, g) in &files {
        let mut sap = Sap::new();
        match sap.solve(g, None, &s) {
            Ok(sol) => {
                let rep = &sol.solution.report;
                println!(
                    "{name:48} n_dof {:5} m {:5}: {:?} in {} it ({} factorizations, {} analyses, {} line-search evals) \
                     optimality {:.2e} (scale {:.2e}); Coulomb error {:.2e}",
                    g.dofs(),
                    g.size(),
                    rep.status,
                    rep.iterations,
                    rep.factorizations,
                    sol.analyses,
                    rep.line_search_steps,
                    sol.optimality,
                    sol.scale,
                    sol.coulomb_error
                );
                assert_eq!(rep.status, Status::Solved, "{name}: {rep:?}");
                assert!(sol.analyses <= 1, "{name}");
            }
            Err(e) => {
                println!("{name:48} refused: {e}");
                assert!(matches!(e, Error::Requirement { .. }), "{name}: {e}");
            }
        }
    }
}
