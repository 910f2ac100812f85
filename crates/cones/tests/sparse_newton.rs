//! The sparse Newton systems of the frictional Newton methods at scale (issue 14): the
//! iterative inner solver reaches the tolerance, the automatic choice keeps small problems on
//! the LU, and the time limit is kept inside the linear solves. The time-limit checks are
//! deterministic: a factorization predicted to take longer than a 1 ms limit is never
//! started, and a solve past its deadline stops within its first Newton iteration (the Krylov
//! solver's own deadline is tested in `perp_core::linear`).

use perp_cones::samples::friction_contact;
use perp_cones::{FrictionContactProblem, FrictionSolver, LinearSolver, Prox, SemismoothNewton, Status};
use perp_core::Settings;
use std::time::Duration;

/// The problem's own error at r, with u = W r + q computed here, apart from the solver.
fn error_at(p: &FrictionContactProblem, r: &[f64]) -> f64 {
    let mut u = vec![0.0; p.size()];
    p.w.mul_vec(r, &mut u);
    for (u, q) in u.iter_mut().zip(&p.q) {
        *u += q;
    }
    p.error(r, &u)
}

fn prox(linear: LinearSolver) -> Prox {
    let mut s = Prox::new();
    s.inner.linear = linear;
    s
}

#[test]
fn the_iterative_solver_reaches_the_tolerance() {
    let p = friction_contact(3, 300, 21);
    let s = Settings { tol: 1e-6, ..Settings::default() };
    let mut solver = prox(LinearSolver::Iterative);
    let sol = solver.solve(&p, None, &s).unwrap();
    let msg = sol.report.message.clone().unwrap_or_default();
    assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report);
    assert!(msg.starts_with("BiCGSTAB"), "{msg}");
    assert!(error_at(&p, &sol.r) <= 1e-6);
    // The same problem on the LU: solved as well, to the same tolerance.
    let sol = prox(LinearSolver::Direct).solve(&p, None, &s).unwrap();
    assert_eq!(sol.report.status, Status::Solved);
    assert!(sol.report.message.unwrap_or_default().starts_with("sparse LU"));
}

#[test]
fn the_automatic_choice_keeps_small_problems_on_the_lu() {
    let p = friction_contact(3, 200, 5);
    assert!(p.size() < perp_cones::newton::AUTO_MIN_N);
    let s = Settings { tol: 1e-6, ..Settings::default() };
    let solvers: Vec<Box<dyn FrictionSolver>> =
        vec![Box::new(prox(LinearSolver::Auto)), Box::new(SemismoothNewton::alart_curnier())];
    for mut solver in solvers {
        let sol = solver.solve(&p, None, &s).unwrap();
        let msg = sol.report.message.unwrap_or_default();
        assert!(msg.starts_with("sparse LU"), "{}: {msg}", solver.name());
    }
}

#[test]
fn a_factorization_that_cannot_end_in_time_is_not_started() {
    // 1 000 contacts (n = 3 000): the LU is predicted at about 10⁸ flops, 0.1 s at the assumed
    // rate, far above a 1 ms limit.
    let p = friction_contact(3, 1000, 7);
    assert!(p.size() >= perp_cones::newton::AUTO_MIN_N);
    let s = Settings { tol: 1e-6, time_limit: Some(Duration::from_millis(1)), ..Settings::default() };
    let mut direct = prox(LinearSolver::Direct);
    let sol = direct.solve(&p, None, &s).unwrap();
    assert_eq!(sol.report.status, Status::TimeLimit, "{:?}", sol.report);
    assert_eq!((sol.report.iterations, sol.report.factorizations), (1, 0), "{:?}", sol.report);
    assert!(sol.report.message.unwrap_or_default().contains("time limit"));
    // The answer returned is the start (the best iterate), with its error measured.
    assert!(sol.r.iter().all(|v| *v == 0.0));
    // The automatic choice turns to the iterative solver instead, which stops at the deadline.
    let mut auto = prox(LinearSolver::Auto);
    let sol = auto.solve(&p, None, &s).unwrap();
    let msg = sol.report.message.unwrap_or_default();
    assert_eq!(sol.report.status, Status::TimeLimit, "{msg}");
    assert_eq!(sol.report.factorizations, 0);
    assert!(msg.contains("a factorization would have ended after the time limit"), "{msg}");
    // Generous bound on the wall clock (a loaded machine): the limit is 1 ms.
    assert!(sol.report.elapsed < Duration::from_secs(10), "{:?}", sol.report.elapsed);
}

#[test]
fn an_iterative_solve_past_its_deadline_stops_the_newton_method() {
    let p = friction_contact(3, 300, 3);
    let s = Settings { tol: 1e-12, time_limit: Some(Duration::ZERO), ..Settings::default() };
    let sol = prox(LinearSolver::Iterative).solve(&p, None, &s).unwrap();
    assert_eq!(sol.report.status, Status::TimeLimit, "{:?}", sol.report);
    // One Newton iteration at most: its BiCGSTAB solve runs one chunk (and the direction is
    // taken if that chunk reached its forcing term), then the deadline.
    assert_eq!(sol.report.iterations, 1);
    let mut ac = SemismoothNewton::alart_curnier();
    ac.linear = LinearSolver::Iterative;
    let sol = ac.solve(&p, None, &s).unwrap();
    assert_eq!(sol.report.status, Status::TimeLimit, "{:?}", sol.report);
    assert_eq!(sol.report.iterations, 1);
}
