//! `Settings::threads`: NSGS with colouring and APGD give the same answer, bit for bit, on
//! 1, 2 and 3 threads, on a problem large enough for their parallel paths.

use perp_cones::samples::friction_grid as grid;
use perp_cones::{Apgd, FrictionContactProblem, FrictionSolution, FrictionSolver, Nsgs, Settings};

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn run(solver: &mut dyn FrictionSolver, p: &FrictionContactProblem, threads: usize) -> FrictionSolution {
    let s = Settings { tol: 1e-12, max_iter: 40, threads, ..Settings::default() };
    solver.solve(p, None, &s).unwrap()
}

/// Solves on 1, 2 and 3 threads, twice on each (prepared state reused), and checks that the
/// iterate, the velocities, the error and the iteration count agree bit for bit; returns the
/// answer.
fn same_for_any_thread_count(
    make: impl Fn() -> Box<dyn FrictionSolver>,
    p: &FrictionContactProblem,
) -> FrictionSolution {
    let mut first: Option<FrictionSolution> = None;
    for threads in [1, 2, 3] {
        let mut solver = make();
        for round in 0..2 {
            let sol = run(&mut *solver, p, threads);
            match &first {
                None => first = Some(sol),
                Some(f) => {
                    let what = format!("{} on {threads} threads, round {round}", solver.name());
                    assert_eq!(bits(&sol.r), bits(&f.r), "{what}: r");
                    assert_eq!(bits(&sol.u), bits(&f.u), "{what}: u");
                    assert_eq!(sol.report.error.to_bits(), f.report.error.to_bits(), "{what}: error");
                    assert_eq!(sol.report.iterations, f.report.iterations, "{what}: iterations");
                }
            }
        }
    }
    first.unwrap_or_else(|| unreachable!())
}

#[test]
fn coloured_nsgs_is_the_same_for_1_2_3_threads() {
    let p = grid(40, 1);
    let coloured = || -> Box<dyn FrictionSolver> { Box::new(Nsgs { colouring: true, ..Nsgs::new() }) };
    let sol = same_for_any_thread_count(coloured, &p);
    // The sweeps did work: the error fell from that of r = 0.
    let zero = vec![0.0; p.size()];
    let e0 = p.error(&zero, &p.q);
    assert!(sol.report.error < 0.1 * e0, "error {} from {e0}", sol.report.error);
    // The coloured order is another Gauss–Seidel order: the plain sweep lands elsewhere.
    let plain = run(&mut Nsgs::new(), &p, 1);
    assert_ne!(bits(&plain.r), bits(&sol.r));
}

#[test]
fn apgd_is_the_same_for_1_2_3_threads() {
    let p = grid(30, 2);
    let sol = same_for_any_thread_count(|| Box::new(Apgd::new()), &p);
    let zero = vec![0.0; p.size()];
    assert!(sol.report.error < p.error(&zero, &p.q), "{:?}", sol.report);
}

#[test]
fn colouring_with_shuffle_and_zero_threads_are_errors() {
    let p = grid(3, 3);
    let mut s = Nsgs { colouring: true, shuffle: Some(4), ..Nsgs::new() };
    let e = s.solve(&p, None, &Settings::default()).unwrap_err();
    assert!(e.to_string().contains("shuffle"), "{e}");
    let e = Nsgs::new().solve(&p, None, &Settings { threads: 0, ..Settings::default() }).unwrap_err();
    assert!(e.to_string().contains("threads"), "{e}");
}
