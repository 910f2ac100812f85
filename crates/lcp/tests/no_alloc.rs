//! Steady-state `solve_into` allocates nothing: a counting global allocator (per thread) around
//! the calls that follow a first, preparing call on a problem of the same structure. Each call's
//! answer is compared bit for bit with a fresh solver's `solve` of the same data.

mod common;

use common::{
    assert_same_answer, bits, boxed, dense_spd, fresh, m_values, rand_q, sparse_contact, to_csc, Rng,
};
use perp_core::alloc_count::{allocations, Counting};
use perp_core::{Matrix, Settings, SolveReport, Status};
use perp_lcp::lemke::Lemke;
use perp_lcp::pgs::Pgs;
use perp_lcp::{Lcp, LcpSolver, SolutionMut};

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Makes a fresh solver.
type MakeSolver = fn() -> Box<dyn LcpSolver>;

/// Prepares `solver` on `p`, then 5 times: new q and M values (same pattern), one
/// `solve_into` (warm-started from the last z when `warm`) that must not allocate, compared
/// with a fresh solver's `solve` of a fresh copy of the data.
fn check(make: &dyn Fn() -> Box<dyn LcpSolver>, p: &mut Lcp, warm: bool, s: &Settings, label: &str) {
    let n = p.n();
    let mut solver = make();
    let (mut z, mut w, mut report) = (vec![0.0; n], vec![0.0; n], SolveReport::new(""));
    solver.solve_into(p, false, SolutionMut { z: &mut z, w: &mut w, report: &mut report }, s).unwrap();
    let base = m_values(p);
    let mut rng = Rng(n as u64 + 7);
    for step in 1..=5 {
        let q = rand_q(n, &mut rng);
        let scale = 1.0 + 0.05 * step as f64;
        let values: Vec<f64> = base.iter().map(|v| v * scale).collect();
        let prev = z.clone();
        let (count, ()) = allocations(|| {
            p.set_q(&q).unwrap();
            p.set_m_values(&values).unwrap();
            solver.solve_into(p, warm, SolutionMut { z: &mut z, w: &mut w, report: &mut report }, s).unwrap();
        });
        assert_eq!(count, 0, "{label}, step {step}: {count} allocation(s); {report:?}");
        let sol = make().solve(&fresh(p), warm.then_some(&prev[..]), s).unwrap();
        assert_same_answer(&z, &w, &report, &sol, &format!("{label}, step {step}"));
        assert!(
            matches!(report.status, Status::Solved | Status::MaxIterations),
            "{label}, step {step}: {report:?}"
        );
    }
}

#[test]
fn steady_state_solve_into_allocates_nothing() {
    let s = Settings { tol: 1e-10, ..Settings::default() };
    let pgs_family: [(&str, MakeSolver); 3] = [
        ("pgs", || Box::new(Pgs::pgs())),
        ("psor", || Box::new(Pgs::named("psor").unwrap())),
        ("rpgs", || Box::new(Pgs::named("rpgs").unwrap())),
    ];
    for n in [3, 6, 12, 30] {
        let problems = [
            ("dense SPD", dense_spd(n, 11 * n as u64)),
            ("sparse contact (CSR)", sparse_contact(n, 13 * n as u64)),
            ("sparse contact (CSC)", to_csc(&sparse_contact(n, 17 * n as u64))),
            ("dense SPD, box", boxed(&dense_spd(n, 19 * n as u64))),
        ];
        for (what, p) in &problems {
            for (name, make) in &pgs_family {
                for warm in [false, true] {
                    let label = format!("{name}, {what}, n = {n}, warm {warm}");
                    check(make, &mut p.clone(), warm, &s, &label);
                }
            }
            if !p.is_box() {
                for warm in [false, true] {
                    let label = format!("lemke, {what}, n = {n}, warm {warm}");
                    check(&|| Box::new(Lemke::new()), &mut p.clone(), warm, &s, &label);
                }
            }
        }
    }
}

/// Lemke's rarer paths allocate nothing either once prepared: ties (lexicographic rule),
/// restarts after a ray, the ray itself, the pivot limit, the crash.
#[test]
fn lemke_ties_rays_and_limits_allocate_nothing() {
    let n = 5;
    let ones_plus_i: Vec<f64> = (0..n * n).map(|k| if k / n == k % n { 2.0 } else { 1.0 }).collect();
    let degenerate = Lcp::new(Matrix::from_row_major(n, n, &ones_plus_i).unwrap(), vec![-1.0; n]).unwrap();
    let ray =
        Lcp::new(Matrix::from_row_major(2, 2, &[-1.0, 0.0, 0.0, -1.0]).unwrap(), vec![-1.0, -1.0]).unwrap();
    let limited = Settings { max_iter: 3, ..Settings::default() };
    // n = 80 ≥ CRASH_MIN_N: the crash's block-pivoting rounds.
    let cases = [
        (degenerate, Settings::default()),
        (ray, Settings::default()),
        (dense_spd(12, 5), limited),
        (dense_spd(80, 3), Settings::default()),
    ];
    for (p, s) in &cases {
        let n = p.n();
        let mut lemke = Lemke::new();
        let (mut z, mut w, mut report) = (vec![0.0; n], vec![0.0; n], SolveReport::new(""));
        lemke.solve_into(p, false, SolutionMut { z: &mut z, w: &mut w, report: &mut report }, s).unwrap();
        for _ in 0..3 {
            let (count, ()) = allocations(|| {
                lemke
                    .solve_into(p, false, SolutionMut { z: &mut z, w: &mut w, report: &mut report }, s)
                    .unwrap();
            });
            assert_eq!(count, 0, "{report:?}");
            let sol = Lemke::new().solve(p, None, s).unwrap();
            assert_eq!(
                (bits(&z), report.status, report.pivots),
                (bits(&sol.z), sol.report.status, sol.report.pivots)
            );
            assert_eq!(report.message, sol.report.message);
            if n >= perp_lcp::lemke::CRASH_MIN_N {
                assert!(report.message.as_deref().is_some_and(|m| m.contains("crash")), "{report:?}");
            }
            let r = lemke.last_ray().map(|r| r.to_ray());
            assert_eq!(r.is_some(), sol.ray.is_some());
            if let (Some(a), Some(b)) = (r, sol.ray) {
                assert_eq!((bits(&a.z), bits(&a.dz), bits(&a.d)), (bits(&b.z), bits(&b.dz), bits(&b.d)));
                assert_eq!((a.z0.to_bits(), a.dz0.to_bits()), (b.z0.to_bits(), b.dz0.to_bits()));
            }
        }
    }
}
