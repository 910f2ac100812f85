//! Prepared solves allocate nothing: a counting global allocator around
//! `FrictionSolver::solve_into` on small dense fc3d problems whose values change between calls
//! (W's values with its pattern kept, q's values), for nsgs, prox, ac-newton, fb-newton, admm and apgd.
//! Allocations are counted on the calling thread only (`perp_core::alloc_count`), so other
//! tests running concurrently do not disturb the count.

use perp_cones::{
    FrictionContactProblem, FrictionSolutionMut, FrictionSolver, Matrix, Settings, SolveReport, Status,
};
use perp_core::alloc_count::{allocations, Counting};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The solvers by name with their defaults (the catalogue sits above this crate).
fn solver(name: &str) -> Option<Box<dyn FrictionSolver>> {
    Some(match name {
        "nsgs" => Box::new(perp_cones::Nsgs::new()),
        "ac-newton" => Box::new(perp_cones::SemismoothNewton::alart_curnier()),
        "fb-newton" => Box::new(perp_cones::SemismoothNewton::fischer_burmeister()),
        "nm-newton" => Box::new(perp_cones::SemismoothNewton::natural_map()),
        "prox" => Box::new(perp_cones::Prox::new()),
        "admm" => Box::new(perp_cones::Admm::new()),
        "apgd" => Box::new(perp_cones::Apgd::new()),
        _ => return None,
    })
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// `nc` 3-D contacts between random bodies: `W = J M⁻¹ Jᵀ + 10⁻³ I` (dense, SPD) with J
/// random (3nc × m, m = 3nc + 3) and M diagonal; q pushes every contact into the ground.
fn problem(nc: usize, rng: &mut ChaCha8Rng) -> FrictionContactProblem {
    let n = 3 * nc;
    let m = n + 3;
    let j: Vec<f64> = (0..n * m).map(|_| rng.random_range(-1.0..1.0)).collect();
    let minv: Vec<f64> = (0..m).map(|_| rng.random_range(0.5..2.0)).collect();
    let w = perp_lcp::samples::gram_row_major(&j, n, m, Some(&minv), 1.0, 1e-3);
    let q: Vec<f64> = (0..n)
        .map(|k| if k % 3 == 0 { rng.random_range(-1.0..-0.1) } else { rng.random_range(-0.5..0.5) })
        .collect();
    let mu = (0..nc).map(|_| rng.random_range(0.2..0.8)).collect();
    FrictionContactProblem::new(3, Matrix::from_row_major(n, n, &w).unwrap(), q, mu).unwrap()
}

/// New values for `p` in place (no allocation): W scaled by a random SPD-preserving factor
/// with a random diagonal shift, q redrawn.
fn perturb(p: &mut FrictionContactProblem, rng: &mut ChaCha8Rng) {
    let (scale, shift) = (rng.random_range(0.5..2.0), rng.random_range(0.0..0.1));
    if let Matrix::Dense(w) = &mut p.w {
        for a in 0..w.nrows() {
            for b in 0..w.ncols() {
                w[(a, b)] *= scale;
            }
            w[(a, a)] += shift;
        }
    }
    for (k, v) in p.q.iter_mut().enumerate() {
        *v = if k % 3 == 0 { rng.random_range(-1.0..-0.1) } else { rng.random_range(-0.5..0.5) };
    }
}

#[test]
fn prepared_solves_allocate_nothing_and_match_solve() {
    let s = Settings { tol: 1e-10, ..Settings::default() };
    for name in ["nsgs", "prox", "ac-newton", "fb-newton", "nm-newton", "admm", "apgd"] {
        for nc in [3, 5] {
            let mut rng = ChaCha8Rng::seed_from_u64(7 + nc as u64);
            let mut p = problem(nc, &mut rng);
            let mut sv = solver(name).unwrap();
            let n = p.size();
            let (mut r, mut u, mut report) = (vec![0.0; n], vec![0.0; n], SolveReport::new(""));
            // Prepare.
            sv.solve_into(&p, false, FrictionSolutionMut { r: &mut r, u: &mut u, report: &mut report }, &s)
                .unwrap();
            assert_eq!(report.status, Status::Solved, "{name} nc = {nc}: {report:?}");
            assert!(report.iterations > 0);
            // The counter counts: an unprepared solve allocates.
            let (count, _) = allocations(|| solver(name).unwrap().solve(&p, None, &s));
            assert!(count > 0, "{name}");
            for round in 0..6 {
                perturb(&mut p, &mut rng);
                // Cold starts, then a warm start from the previous answer.
                let warm = round % 2 == 1;
                if !warm {
                    r.fill(0.0);
                }
                let start = r.clone();
                let (count, out) = allocations(|| {
                    sv.solve_into(
                        &p,
                        warm,
                        FrictionSolutionMut { r: &mut r, u: &mut u, report: &mut report },
                        &s,
                    )
                });
                out.unwrap();
                assert_eq!(count, 0, "{name} nc = {nc} round {round}: {count} allocations");
                assert_eq!(report.status, Status::Solved, "{name} nc = {nc} round {round}: {report:?}");
                assert_eq!(report.solver, name);
                let fresh = solver(name).unwrap().solve(&p, warm.then_some(&start[..]), &s).unwrap();
                assert_eq!(fresh.r, r, "{name} nc = {nc} round {round}");
                assert_eq!(fresh.u, u, "{name} nc = {nc} round {round}");
                assert_eq!(fresh.report.iterations, report.iterations, "{name} nc = {nc} round {round}");
                assert_eq!(fresh.report.error.to_bits(), report.error.to_bits());
                assert_eq!(fresh.report.message, report.message);
            }
        }
    }
}
