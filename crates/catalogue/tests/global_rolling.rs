//! The solvers of the global form and the rolling friction law (issue 35, item 4): the global
//! problem carries the Coulomb law only, so each of them refuses a rolling problem with an
//! error naming itself and the law — through `solve` and `solve_into` — and the local solvers
//! still solve it.

use perp_catalogue::{build, Answer, Family, Params, Problem, GLOBAL_NAMES};
use perp_cones::{ConeSpec, FrictionContactProblem};
use perp_core::{Matrix, Settings, Status};

/// One 3-D rolling contact (d = 5), W = I, pressed (q_N = −1) and pushed sideways and rolled
/// (q_T, q_R ≠ 0), μ = 0.5, μ_r = 0.1.
fn rolling() -> Problem {
    let t: Vec<_> = (0..5).map(|i| (i, i, 1.0)).collect();
    let w = Matrix::from_triplets(5, 5, &t).unwrap();
    let p = FrictionContactProblem::new(5, w, vec![-1.0, 0.2, 0.0, 0.0, 0.3], vec![0.5])
        .unwrap()
        .with_cones(vec![ConeSpec::Rolling { mu_r: 0.1 }])
        .unwrap();
    Problem::Friction(p)
}

#[test]
fn the_global_solvers_refuse_the_rolling_law_naming_themselves_and_the_law() {
    let p = rolling();
    let s = Settings::default();
    assert!(!GLOBAL_NAMES.is_empty());
    for &name in GLOBAL_NAMES {
        let mut sv = build(Family::Friction, name, &Params::new()).unwrap();
        let e = sv.solve(&p, None, &s).unwrap_err().to_string();
        assert!(e.contains(name) && e.contains("rolling friction law") && e.contains("nsgs"), "{e}");
        let e2 = sv.solve_into(&p, false, &mut Answer::empty(), &s).unwrap_err().to_string();
        assert_eq!(e, e2);
    }
    // The local solvers take it: nsgs's answer meets the tolerance.
    let a = build(Family::Friction, "nsgs", &Params::new()).unwrap().solve(&p, None, &s).unwrap();
    assert_eq!(a.report.status, Status::Solved, "{:?}", a.report);
    assert!(a.report.error <= s.tol);
}
