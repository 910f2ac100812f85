//! Islands in the stepper (`StepOptions::islands`): a step solved in velocity space splits
//! into the groups of bodies no contact joins, each solved on its own. The convex relaxation
//! has one answer in v (M is positive definite: its cost is strictly convex in v), so the
//! islands' trajectory is the whole problem's, to the solver's accuracy; the exact cones'
//! answers are checked with Siconos' global error of the whole step, recomputed. Tolerance
//! 1e-9 throughout (the scene's 1e-6 would hide a wrong split in the solvers' own error).

mod common;

use perp_core::Status;
use perp_dynamics::scenes::stacks::BallPile;
use perp_dynamics::scenes::Scene;
use perp_dynamics::{Formulation, Simulator, System};

/// `steps` steps of `ball-pile n` in formulation `f` (solver `solver` when given) with islands
/// on or off: each step's (q, u), its number of islands, and the unsolved steps.
fn run(
    n: usize,
    f: Formulation,
    solver: Option<&str>,
    islands: bool,
    steps: usize,
) -> (Vec<Vec<f64>>, Vec<usize>, usize) {
    let pile = BallPile::new(n).unwrap();
    let (q0, u0) = pile.initial_state();
    let mut opts = common::options_in(&pile, f, solver);
    opts.islands = islands;
    opts.settings.tol = 1e-9;
    let sys: &dyn System = &pile;
    let mut sim = Simulator::new(sys, q0, u0, pile.default_dt(), opts).unwrap();
    let (mut states, mut counts, mut unsolved) = (Vec::new(), Vec::new(), 0);
    for _ in 0..steps {
        let rep = sim.step().unwrap();
        unsolved += usize::from(rep.status.is_some_and(|s| s != Status::Solved));
        counts.push(rep.islands);
        states.push(sim.q.iter().chain(&sim.u).copied().collect());
    }
    assert_eq!(sim.stats.max_islands, counts.iter().copied().max().unwrap());
    (states, counts, unsolved)
}

fn max_diff(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    a.iter().zip(b).flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).abs())).fold(0.0, f64::max)
}

#[test]
fn the_convex_relaxation_steps_the_same_in_islands_and_whole() {
    let (split, counts, u1) = run(30, Formulation::Convex, None, true, 30);
    let (whole, ones, u2) = run(30, Formulation::Convex, None, false, 30);
    assert_eq!((u1, u2), (0, 0));
    // Landing balls touch the floor one by one: many islands, then one pile.
    assert!(counts.iter().any(|&k| k > 5), "{counts:?}");
    assert!(ones.iter().all(|&k| k <= 1), "{ones:?}");
    // Steps without contact solve nothing.
    assert!(counts.iter().zip(&ones).all(|(&k, &o)| (k == 0) == (o == 0)));
    let d = max_diff(&split, &whole);
    println!("ball-pile 30, 30 convex steps, islands {counts:?}: max |Δ(q, u)| {d:.1e}");
    // The interior point certifies a relative duality gap ε: by strong convexity each answer
    // is within ‖Δv‖²_M ≤ 2·gap of the optimum, so velocities agree to O(√ε) (3e-5 here: at
    // the first steps with contacts, 16 islands, while the balls land), not to O(ε).
    assert!(d <= 10.0 * 1e-9_f64.sqrt(), "{d:e}");
}

#[test]
fn exact_cones_in_islands_are_checked_on_the_whole_step() {
    // The exact problem's answer is not unique once balls rest on several supports; while they
    // land (one ball, one contact per island) it is, and the islands' answer is the whole one.
    let (split, counts, u1) = run(20, Formulation::Cone, Some("global-ac-newton"), true, 12);
    let (whole, _, u2) = run(20, Formulation::Cone, Some("global-ac-newton"), false, 12);
    assert_eq!((u1, u2), (0, 0));
    assert!(counts.iter().any(|&k| k > 1), "{counts:?}");
    let d = max_diff(&split, &whole);
    assert!(d <= 1e-8, "{d:e}");
}

#[test]
fn compliant_contacts_step_the_same_in_islands_and_whole() {
    // SAP's cost is strictly convex: one answer, whichever way the step is split.
    let (split, counts, u1) = run(30, Formulation::Compliant(Default::default()), None, true, 30);
    let (whole, _, u2) = run(30, Formulation::Compliant(Default::default()), None, false, 30);
    assert_eq!((u1, u2), (0, 0));
    assert!(counts.iter().any(|&k| k > 5), "{counts:?}");
    let d = max_diff(&split, &whole);
    println!("ball-pile 30, 30 compliant steps: max |Δ(q, u)| {d:.1e}");
    assert!(d <= 1e-7, "{d:e}");
}
