//! Issue 15: every sample of [`perp_ncp::samples::extended`] (every one has a regular
//! solution) is solved from every one of its starts by both Newton methods, fb-newton and
//! bdiff-newton (cold starts, default knobs), to ‖natural residual‖∞ ≤ 1e-10. The plain
//! methods fail on 9 of the 48 runs (Billups' problem from both starts with both methods, the
//! far starts of Josephy and HS 71, HS 43's far start and HS 71's standard one with
//! bdiff-newton): the proximal-perturbation rescue (`perp_ncp::proximal`) solves those, and
//! turning it off brings the failures back.
//!
//! Issue 34, item 9: the same within PATH's default budget, `max_iter = 500` major
//! iterations for the whole solve, the rescue's iterations counted in it.
//!
//! A point with a residual of 1e-10 is a solution of the MCP whatever it is; HS 71, which
//! is not convex, has KKT points other than the stored minimizer, and a solver may end at
//! one of those.

use perp_ncp::bdiff_newton::BdiffNewton;
use perp_ncp::fb_newton::FbNewton;
use perp_ncp::proximal::Proximal;
use perp_ncp::{samples, NcpSolver, Settings, Status};

fn settings(max_iter: usize) -> Settings {
    Settings { tol: 1e-10, max_iter, ..Settings::default() }
}

fn solvers(rounds: usize) -> Vec<Box<dyn NcpSolver>> {
    let proximal = Proximal { rounds, ..Proximal::default() };
    let mut fb = FbNewton::new();
    fb.proximal = proximal;
    let mut bd = BdiffNewton::new();
    bd.proximal = proximal;
    vec![Box::new(fb), Box::new(bd)]
}

/// (case, solved) for every sample, start and solver; `max_iter` 0 is the solvers' default.
fn run(rounds: usize, max_iter: usize) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for s in samples::extended() {
        let p = s.mcp();
        for (k, z0) in s.starts.iter().enumerate() {
            for mut solver in solvers(rounds) {
                let case = format!("{} from start {k} with {}", s.name, solver.name());
                let sol = solver.solve(&p, z0, &settings(max_iter)).unwrap();
                let r = &sol.report;
                assert!(max_iter == 0 || r.iterations <= max_iter, "{case}: {} iterations", r.iterations);
                let solved = r.status == Status::Solved && r.residual_inf <= 1e-10;
                // Never a false Solved: the status agrees with the residual recomputed here.
                let mut f = vec![0.0; s.n()];
                s.f.eval(&sol.z, &mut f);
                let res = p.residual_inf(&sol.z, &f);
                assert!(r.status != Status::Solved || p.error(&sol.z, &f) <= 1e-10, "{case}: {r:?}");
                eprintln!("{case}: {:?} in {} iterations, residual {res:.1e}", r.status, r.iterations);
                out.push((case, solved));
            }
        }
    }
    out
}

#[test]
fn every_sample_is_solved_from_every_start_by_both_newton_methods() {
    let failures: Vec<_> =
        run(Proximal::default().rounds, 0).into_iter().filter(|c| !c.1).map(|c| c.0).collect();
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn without_the_rescue_the_plain_methods_fail_on_some_starts() {
    let failures: Vec<_> = run(0, 0).into_iter().filter(|c| !c.1).map(|c| c.0).collect();
    assert_eq!(failures.len(), 9, "{failures:?}");
    for case in [
        "billups from start 0 with fb-newton",
        "billups from start 0 with bdiff-newton",
        "josephy from start 2 with fb-newton",
        "hs71 from start 1 with fb-newton",
        "hs71 from start 1 with bdiff-newton",
    ] {
        assert!(failures.iter().any(|f| f == case), "{case} is solved without the rescue: {failures:?}");
    }
}

#[test]
fn every_sample_is_solved_from_every_start_within_500_iterations() {
    let failures: Vec<_> =
        run(Proximal::default().rounds, 500).into_iter().filter(|c| !c.1).map(|c| c.0).collect();
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_small_budget_holds_for_the_whole_rescued_solve() {
    // Billups' problem needs the rescue from start 0; with 120 iterations in all (100 for the
    // plain run, 20 for the rescue) it is not solved, and the report counts at most 120.
    let s = samples::extended().into_iter().find(|s| s.name == "billups").unwrap();
    let p = s.mcp();
    for mut solver in solvers(Proximal::default().rounds) {
        let sol = solver.solve(&p, &s.starts[0], &settings(120)).unwrap();
        let r = &sol.report;
        assert!(r.iterations <= 120, "{}: {} iterations", solver.name(), r.iterations);
        if r.status != Status::Solved {
            assert_eq!(r.status, Status::MaxIterations, "{}: {r:?}", solver.name());
        }
    }
}
