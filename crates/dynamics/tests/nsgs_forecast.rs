//! NSGS's early give-up (`forecast`, on by default) on the contact problems of `ball-pile`,
//! where each ball rests on four supports (W singular) and Gauss–Seidel converges ever more
//! slowly: a solve that reaches the tolerance within its sweep limit is untouched (same
//! status, sweeps and reactions, bit for bit, as with `forecast=false`), and a solve that does
//! not is given up earlier, as `stalled`, with a message saying why.

use perp_catalogue::{build, Family, Params, Problem};
use perp_cones::FrictionContactProblem;
use perp_core::{Settings, Status};
use perp_dynamics::scenes::{self, Scene};
use perp_dynamics::{Simulator, StepOptions, System};

/// The contact problems of every `every`-th of the first `steps` steps of `scene`, run with
/// `prox` (so that they do not depend on the solver under test).
fn harvested(scene: &dyn Scene, steps: usize, every: usize) -> Vec<FrictionContactProblem> {
    let opts = StepOptions { solver: Some("prox".into()), keep_problem: true, ..scene.default_options() };
    let (q0, u0) = scene.initial_state();
    let sys: &dyn System = scene;
    let mut sim = Simulator::new(sys, q0, u0, scene.default_dt(), opts).unwrap();
    let mut out = Vec::new();
    for k in 1..=steps {
        let rep = sim.step().unwrap();
        if k % every == 0 && rep.status.is_some() {
            out.push(sim.last_problem().unwrap().friction_problem().unwrap());
        }
    }
    out
}

#[test]
fn forecast_leaves_solvable_solves_alone_and_cuts_hopeless_ones_short() {
    let scene = scenes::scene("ball-pile", Some(30)).unwrap();
    let problems = harvested(scene.as_ref(), 60, 4);
    assert!(problems.len() >= 8, "{} problems", problems.len());
    let s = Settings { tol: 1e-9, max_iter: 3000, ..Settings::default() };
    let (mut untouched, mut cut, mut saved) = (0, 0, 0);
    for (k, p) in problems.into_iter().enumerate() {
        let p = Problem::Friction(p);
        let solve = |forecast: bool| {
            let params = Params::new().set("forecast", forecast);
            build(Family::Friction, "nsgs", &params).unwrap().solve(&p, None, &s).unwrap()
        };
        let (on, off) = (solve(true), solve(false));
        if off.report.status == Status::Solved {
            assert_eq!(on.report.status, Status::Solved, "problem {k}: {:?}", on.report.message);
            assert_eq!(on.report.iterations, off.report.iterations, "problem {k}");
            assert!(on.z.iter().zip(&off.z).all(|(a, b)| a.to_bits() == b.to_bits()), "problem {k}");
            untouched += 1;
        } else {
            assert_eq!(off.report.status, Status::MaxIterations, "problem {k}");
            assert!(on.report.iterations <= off.report.iterations, "problem {k}");
            if on.report.status == Status::Stalled {
                let msg = on.report.message.clone().unwrap_or_default();
                assert!(msg.contains("given up at sweep"), "problem {k}: {msg}");
                assert!(on.report.error > s.tol, "problem {k}: stalled below tol");
                cut += 1;
                saved += off.report.iterations - on.report.iterations;
            } else {
                assert_eq!(on.report.status, Status::MaxIterations, "problem {k}");
            }
        }
    }
    println!("{untouched} solved untouched, {cut} given up early ({saved} sweeps saved)");
    assert!(untouched > 0 && cut > 0, "{untouched} untouched, {cut} cut: the test must see both kinds");
}
