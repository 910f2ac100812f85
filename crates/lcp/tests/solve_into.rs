//! `solve` and `solve_into` give bit-identical results: one solver reused through
//! `solve_into` across a sequence of problems (degenerate ones, Murty's example, rays, box,
//! CSC storage, errors) against a fresh solver's `solve` of each.

mod common;

use common::{assert_same_answer, bits, boxed, dense_spd, sparse_contact, to_csc};
use perp_core::{Matrix, Settings, Solution, SolveReport};
use perp_lcp::lemke::Lemke;
use perp_lcp::pgs::Pgs;
use perp_lcp::{Lcp, LcpSolver, SolutionMut};

fn lcp(n: usize, row_major: &[f64], q: &[f64]) -> Lcp {
    Lcp::new(Matrix::from_row_major(n, n, row_major).unwrap(), q.to_vec()).unwrap()
}

/// Murty's example: M upper triangular with 1 on the diagonal and 2 above, qᵢ = −(2ⁿ⁺¹ − 2ⁱ).
fn murty(n: usize) -> Lcp {
    let m: Vec<f64> = (0..n * n)
        .map(|k| match (k / n, k % n) {
            (i, j) if i == j => 1.0,
            (i, j) if j > i => 2.0,
            _ => 0.0,
        })
        .collect();
    let q: Vec<f64> = (1..=n).map(|i| -(2f64.powi(n as i32 + 1) - 2f64.powi(i as i32))).collect();
    lcp(n, &m, &q)
}

fn problems() -> Vec<(&'static str, Lcp)> {
    let n = 5;
    let ones_plus_i: Vec<f64> = (0..n * n).map(|k| if k / n == k % n { 2.0 } else { 1.0 }).collect();
    vec![
        ("2x2", lcp(2, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0])),
        ("murty 6", murty(6)),
        ("murty 10", murty(10)),
        ("degenerate ties", lcp(n, &ones_plus_i, &[-1.0; 5])),
        ("zero rows", lcp(3, &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0], &[0.0, 0.0, -1.0])),
        ("cps 4.4.7", lcp(3, &[0.0, -1.0, 2.0, 2.0, 0.0, -2.0, -1.0, 1.0, 0.0], &[-3.0, 6.0, -1.0])),
        ("ray", lcp(2, &[-1.0, 0.0, 0.0, -1.0], &[-1.0, -1.0])),
        ("pgs cycles", lcp(3, &[1.0, 2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 0.0, 1.0], &[-1.0, -1.0, -1.0])),
        ("zero diagonal", lcp(2, &[1.0, 0.0, 0.0, 0.0], &[-1.0, 1.0])),
        ("dense spd 30", dense_spd(30, 3)),
        ("sparse contact 12", sparse_contact(12, 4)),
        ("csc contact 12", to_csc(&sparse_contact(12, 5))),
        ("box spd 6", boxed(&dense_spd(6, 6))),
        ("empty", lcp(0, &[], &[])),
    ]
}

/// Makes a fresh solver.
type MakeSolver = fn() -> Box<dyn LcpSolver>;

fn same(
    reused: &mut dyn LcpSolver,
    make: &dyn Fn() -> Box<dyn LcpSolver>,
    p: &Lcp,
    warm: Option<&[f64]>,
    s: &Settings,
    label: &str,
) {
    let n = p.n();
    let mut z = warm.map_or_else(|| vec![0.0; n], <[f64]>::to_vec);
    let (mut w, mut report) = (vec![0.0; n], SolveReport::new("stale"));
    report.message = Some("a stale message".into());
    let into =
        reused.solve_into(p, warm.is_some(), SolutionMut { z: &mut z, w: &mut w, report: &mut report }, s);
    match (into, make().solve(p, warm, s)) {
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{label}"),
        (Ok(()), Ok(sol)) => {
            assert_same_answer(&z, &w, &report, &sol, label);
        }
        (a, b) => panic!("{label}: solve_into {a:?}, solve {:?}", b.map(|s| s.report)),
    }
}

#[test]
fn solve_into_matches_solve_bit_for_bit() {
    let makers: [(&str, MakeSolver); 4] = [
        ("lemke", || Box::new(Lemke::new())),
        ("pgs", || Box::new(Pgs::pgs())),
        ("psor", || Box::new(Pgs::named("psor").unwrap())),
        ("rpgs", || Box::new(Pgs::named("rpgs").unwrap())),
    ];
    let settings = [
        Settings { tol: 1e-12, ..Settings::default() },
        Settings { max_iter: 7, record_history: true, ..Settings::default() },
    ];
    for (name, make) in &makers {
        let mut reused = make();
        for s in &settings {
            for (what, p) in problems() {
                same(reused.as_mut(), make, &p, None, s, &format!("{name}, {what}, cold"));
                // Warm starts: at a fresh solve's answer, and at a perturbed point.
                if let Ok(sol) = make().solve(&p, None, s) {
                    let near: Vec<f64> = sol.z.iter().map(|z| z * 0.9 + 0.01).collect();
                    same(reused.as_mut(), make, &p, Some(&sol.z), s, &format!("{name}, {what}, warm"));
                    same(reused.as_mut(), make, &p, Some(&near), s, &format!("{name}, {what}, near"));
                }
            }
        }
        // Bad buffers are errors.
        let p = lcp(2, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
        let mut report = SolveReport::new("");
        let e = reused.solve_into(
            &p,
            false,
            SolutionMut { z: &mut [0.0], w: &mut [0.0; 2], report: &mut report },
            &settings[0],
        );
        assert!(e.is_err(), "{name}");
        let e = reused.solve_into(
            &p,
            true,
            SolutionMut { z: &mut [0.0, f64::NAN], w: &mut [0.0; 2], report: &mut report },
            &settings[0],
        );
        assert!(e.unwrap_err().to_string().contains("warm start"), "{name}");
    }
}

#[test]
fn lemke_ray_is_the_same_through_both_paths() {
    let p = lcp(2, &[-1.0, 0.0, 0.0, -1.0], &[-1.0, -1.0]);
    let mut lemke = Lemke::new();
    let mut kept = Solution::zeros(2);
    lemke.solve_into(&p, false, kept.view_mut(), &Settings::default()).unwrap();
    let ray = lemke.last_ray().expect("a ray").to_ray();
    let sol = Lemke::new().solve(&p, None, &Settings::default()).unwrap();
    let b = sol.ray.expect("a ray");
    assert_eq!((bits(&ray.z), bits(&ray.dz), bits(&ray.d)), (bits(&b.z), bits(&b.dz), bits(&b.d)));
    assert_eq!((ray.z0, ray.dz0), (b.z0, b.dz0));
    // A solved problem clears it.
    let q = lcp(2, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
    lemke.solve_into(&q, false, kept.view_mut(), &Settings::default()).unwrap();
    assert!(lemke.last_ray().is_none());
}
