//! `Settings::threads` in the stepper: a ball pile stepped with NSGS over a colouring gives
//! the same trajectory, bit for bit, on 1, 2 and 3 threads.

mod common;

use perp_catalogue::Params;
use perp_dynamics::scenes::stacks::BallPile;
use perp_dynamics::scenes::Scene;
use perp_dynamics::{Simulator, System};

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// One step's state: q, u (as bits), the iterations and the error (as bits).
type Step = (Vec<u64>, Vec<u64>, usize, u64);

/// Steps `ball-pile 400` (NSGS, colouring on) on `threads` threads; returns every step's
/// (q, u, iterations, error) and the largest number of active contacts.
fn trajectory(threads: usize) -> (Vec<Step>, usize) {
    let pile = BallPile::new(400).unwrap();
    let (q0, u0) = pile.initial_state();
    let mut opts = pile.default_options();
    opts.solver = Some("nsgs".into());
    opts.params = Params::new().set("colouring", true);
    opts.fallback.clear();
    opts.settings.threads = threads;
    // A wedged pile can run NSGS to its sweep limit: a smaller limit keeps the test short
    // (the comparison holds whatever the status).
    opts.settings.max_iter = 300;
    let sys: &dyn System = &pile;
    let mut sim = Simulator::new(sys, q0, u0, pile.default_dt(), opts).unwrap();
    let mut out = Vec::new();
    let mut most = 0;
    for _ in 0..14 {
        let rep = sim.step().unwrap();
        most = most.max(rep.active.len());
        out.push((bits(&sim.q), bits(&sim.u), rep.iterations, rep.error.to_bits()));
    }
    (out, most)
}

#[test]
fn coloured_ball_pile_trajectory_is_the_same_on_1_2_3_threads() {
    let (one, most) = trajectory(1);
    // The pile has landed: enough contacts for colours beyond the inline threshold.
    assert!(most >= 800, "only {most} active contacts");
    for threads in [2, 3] {
        let (other, _) = trajectory(threads);
        for (k, (a, b)) in one.iter().zip(&other).enumerate() {
            assert!(a == b, "step {k} differs on {threads} threads");
        }
    }
}

/// The velocity-space formulations (convex: the interior point; compliant: SAP's Newton; the
/// exact cones with global-ac-newton) step `ball-pile 30` to the same trajectory, bit for bit,
/// on 1 and 2 threads (issue 32: parallel paths give the serial answer).
#[test]
fn velocity_space_trajectories_are_the_same_on_1_and_2_threads() {
    use perp_dynamics::Formulation;
    let run = |f: Formulation, solver: Option<&str>, threads: usize| {
        let pile = BallPile::new(30).unwrap();
        let (q0, u0) = pile.initial_state();
        let mut opts = common::options_in(&pile, f, solver);
        opts.settings.threads = threads;
        let sys: &dyn System = &pile;
        let mut sim = Simulator::new(sys, q0, u0, pile.default_dt(), opts).unwrap();
        let (mut out, mut most) = (Vec::new(), 0);
        for _ in 0..18 {
            let rep = sim.step().unwrap();
            most = most.max(rep.active.len());
            out.push((bits(&sim.q), bits(&sim.u), rep.iterations, rep.error.to_bits()));
        }
        (out, most)
    };
    for (f, solver) in [
        (Formulation::Convex, None),
        (Formulation::Compliant(Default::default()), None),
        (Formulation::Cone, Some("global-ac-newton")),
    ] {
        let (one, most) = run(f.clone(), solver, 1);
        assert!(most >= 30, "{f:?}: only {most} active contacts");
        let (two, _) = run(f.clone(), solver, 2);
        for (k, (a, b)) in one.iter().zip(&two).enumerate() {
            assert!(a == b, "{f:?}: step {k} differs on 2 threads");
        }
    }
}
