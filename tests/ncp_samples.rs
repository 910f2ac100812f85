//! The NCP samples (`perp::ncp::samples`) from their standard starting points: both Newton
//! solvers reach ‖min(z, F)‖∞ ≤ 1e-10 with pinned iteration and factorization counts, land on
//! a known solution, and converge quadratically on a nondegenerate sample.

use perp::core::{Settings, Status};

/// (sample, start index, solver, iterations, factorizations, index of the solution reached).
const PINNED: &[(&str, usize, &str, usize, usize, usize)] = &[
    ("kojima-shindo", 0, "fb-newton", 9, 9, 1),
    ("kojima-shindo", 0, "bdiff-newton", 8, 6, 1),
    // From z = 0 the non-monotone search wanders until its watchdog returns to the best
    // iterate and goes on monotone.
    ("kojima-shindo", 1, "fb-newton", 30, 30, 0),
    ("kojima-shindo", 1, "bdiff-newton", 11, 7, 0),
    ("kojima-shindo", 2, "fb-newton", 9, 9, 0),
    ("kojima-shindo", 2, "bdiff-newton", 12, 7, 0),
    ("josephy", 0, "fb-newton", 8, 8, 0),
    ("josephy", 0, "bdiff-newton", 8, 6, 0),
    ("josephy", 1, "fb-newton", 8, 8, 0),
    ("josephy", 1, "bdiff-newton", 11, 8, 0),
    // From the far start 100·1 plain fb-newton gets stuck (100 steps, error 0.46); the
    // proximal-perturbation rescue solves it in 3 rounds (the counts include the first 100).
    // 179 since DenseLu's kernel for n ≤ 16 (180 with faer's LU: the same pivots, other
    // rounding, and the rescue's rounds are sensitive to it); 139 since a failed try of the
    // original problem gets 10 Newton steps instead of 30 (issue 34, item 9).
    ("josephy", 2, "fb-newton", 139, 139, 0),
    ("josephy", 2, "bdiff-newton", 12, 8, 0),
    ("nash-cournot", 0, "fb-newton", 6, 6, 0),
    ("nash-cournot", 0, "bdiff-newton", 6, 6, 0),
    ("nash-cournot", 1, "fb-newton", 9, 9, 0),
    ("nash-cournot", 1, "bdiff-newton", 8, 8, 0),
    ("nash-cournot", 2, "fb-newton", 10, 10, 0),
    ("nash-cournot", 2, "bdiff-newton", 9, 6, 0),
    ("nash-cournot-inverse-l", 0, "fb-newton", 8, 8, 0),
    ("nash-cournot-inverse-l", 0, "bdiff-newton", 7, 7, 0),
    ("nash-cournot-inverse-l", 1, "fb-newton", 11, 11, 0),
    ("nash-cournot-inverse-l", 1, "bdiff-newton", 10, 10, 0),
    ("nash-cournot-inverse-l", 2, "fb-newton", 6, 6, 0),
    ("nash-cournot-inverse-l", 2, "bdiff-newton", 7, 7, 0),
];

/// The MCP solvers for nonlinear F (schur-lemke takes affine ones only: see below).
const NEWTON: [&str; 2] = ["fb-newton", "bdiff-newton"];

fn tight() -> Settings {
    Settings { tol: 1e-12, record_history: true, ..Settings::default() }
}

#[test]
fn every_sample_is_solved_from_its_standard_starts_with_pinned_counts() {
    let samples = perp::ncp::samples::all();
    let mut covered = 0;
    for s in &samples {
        covered += s.starts.len() * NEWTON.len();
    }
    assert_eq!(covered, PINNED.len(), "every (sample, start, solver) is pinned");
    for &(name, start, solver, iterations, factorizations, solution) in PINNED {
        let smp = perp::ncp::samples::by_name(name).unwrap();
        let p = smp.mcp();
        let sol = perp::ncp::solver(solver).unwrap().solve(&p, &smp.starts[start], &tight()).unwrap();
        let r = &sol.report;
        let case = format!("{name} from start {start} with {solver}");
        assert_eq!(r.status, Status::Solved, "{case}: {r:?}");
        assert!(r.residual_inf <= 1e-10, "{case}: ‖min(z, F)‖∞ = {}", r.residual_inf);
        assert_eq!((r.iterations, r.factorizations), (iterations, factorizations), "{case}");
        let known = &smp.solutions[solution];
        for (a, b) in sol.z.iter().zip(known) {
            assert!((a - b).abs() <= 1e-8 * (1.0 + b.abs()), "{case}: z = {:?}, expected {known:?}", sol.z);
        }
    }
}

#[test]
fn newton_converges_quadratically_on_the_nondegenerate_nash_cournot_sample() {
    // At the Nash–Cournot equilibrium every qᵢ > 0 and F = 0 (strict complementarity, a
    // nonsingular Jacobian): both methods are locally quadratic, eₖ₊₁ ≤ C·eₖ².
    let smp = perp::ncp::samples::nash_cournot();
    let p = smp.mcp();
    for solver in NEWTON {
        let sol = perp::ncp::solver(solver).unwrap().solve(&p, &smp.starts[0], &tight()).unwrap();
        let h: Vec<f64> = sol.report.history.iter().copied().filter(|&e| e > 1e-13).collect();
        assert!(h.len() >= 4, "{solver}: {h:?}");
        let tail = &h[h.len() - 3..];
        for w in tail.windows(2) {
            let ratio = w[1] / (w[0] * w[0]);
            assert!(ratio < 10.0, "{solver}: e = {:e} after {:e}, ratio {ratio}; history {h:?}", w[1], w[0]);
            assert!(w[1] < 1e-2 * w[0], "{solver}: not superlinear: {h:?}");
        }
    }
}

#[test]
fn the_other_mcp_solvers_refuse_nonlinear_samples_by_name() {
    for solver in perp::ncp::SOLVER_NAMES.iter().filter(|s| !NEWTON.contains(s)) {
        for smp in perp::ncp::samples::all() {
            let e =
                perp::ncp::solver(solver).unwrap().solve(&smp.mcp(), &smp.starts[0], &tight()).unwrap_err();
            assert!(e.to_string().contains("affine"), "{solver} on {}: {e}", smp.name);
        }
    }
}
