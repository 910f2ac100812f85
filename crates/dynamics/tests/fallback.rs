//! The fallback chain of `StepOptions::fallback`: a step whose chosen solver fails goes to the
//! next solvers, and a failure that no solver fixes still shows.

use perp_core::Settings;
use perp_dynamics::{scenes, Simulator, StepOptions, System};

fn run(opts: StepOptions, steps: usize) -> Simulator<'static> {
    let scene: &'static dyn scenes::Scene = Box::leak(scenes::scene("box-stack", Some(2)).unwrap());
    let (q0, u0) = scene.initial_state();
    let sys: &'static dyn System = scene;
    let mut sim = Simulator::new(sys, q0, u0, scene.default_dt(), opts).unwrap();
    for _ in 0..steps {
        sim.step().unwrap();
    }
    sim
}

/// NSGS held to 2 sweeps at a tight tolerance fails on the stack's coupled contacts.
fn starved(fallback: Vec<String>) -> StepOptions {
    StepOptions {
        solver: Some("nsgs".into()),
        settings: Settings { tol: 1e-10, max_iter: 2, ..Settings::default() },
        fallback,
        ..StepOptions::default()
    }
}

#[test]
fn a_failed_step_is_rescued_by_the_next_solver() {
    let sim = run(starved(vec!["prox".into()]), 60);
    let st = &sim.stats;
    assert!(st.fallbacks > 0, "nsgs with 2 sweeps should fail somewhere: {st:?}");
    assert_eq!(st.rescued, st.fallbacks, "prox (its own iteration limit) solves every one: {st:?}");
    assert_eq!(st.unsolved, 0);
}

#[test]
fn without_a_chain_the_failures_show() {
    let sim = run(starved(Vec::new()), 60);
    assert!(sim.stats.unsolved > 0 && sim.stats.fallbacks == 0, "{:?}", sim.stats);
}

#[test]
fn the_suggested_chain_rescues_too_and_names_are_checked() {
    let chain = perp_dynamics::Formulation::Cone.default_fallback().iter().map(|s| s.to_string()).collect();
    let sim = run(starved(chain), 60);
    assert_eq!(sim.stats.unsolved, 0, "{:?}", sim.stats);
    let scene = scenes::scene("box-stack", Some(2)).unwrap();
    let (q0, u0) = scene.initial_state();
    let sys: &dyn System = scene.as_ref();
    let opts = StepOptions { fallback: vec!["no-such-solver".into()], ..StepOptions::default() };
    let e = Simulator::new(sys, q0, u0, 1e-3, opts).err().unwrap();
    assert!(e.to_string().contains("no-such-solver"), "{e}");
}

#[test]
fn a_step_budget_ends_the_chain() {
    let opts = StepOptions { step_budget: Some(std::time::Duration::ZERO), ..starved(vec!["prox".into()]) };
    let sim = run(opts, 20);
    // A zero budget: the chosen solver stops at once and no fallback runs.
    assert_eq!(sim.stats.fallbacks, 0);
    assert!(sim.stats.unsolved > 0);
}

/// The Stewart–Trinkle LCP of a sphere at rest on a plane (sphere-spin after its spin has
/// stopped, dt = 1e-4) is degenerate. Lemke restarted from the all-w basis when the warm basis
/// did not solve, and ended `NumericalFailure` there (recomputed error 1.5e-10 against tol
/// 1e-10) for 2 000 steps in a row, which only the default chain's bdiff-newton rescued. It
/// now pivots from the warm basis and solves every step alone.
#[test]
fn lemke_alone_solves_the_degenerate_resting_steps_from_the_warm_basis() {
    let scene = scenes::scene("sphere-spin", None).unwrap();
    let (q0, u0) = scene.initial_state();
    let sys: &dyn System = scene.as_ref();
    let mut opts = scene.default_options();
    opts.set_formulation(perp_dynamics::Formulation::StewartTrinkle(scene.stewart_directions().unwrap()));
    assert_eq!(opts.fallback, ["lemke", "bdiff-newton"]);
    let run = |o: StepOptions| {
        let mut sim = Simulator::new(sys, q0.clone(), u0.clone(), 1e-4, o).unwrap();
        for _ in 0..12_000 {
            sim.step().unwrap();
        }
        sim.stats
    };
    let bare = run(StepOptions { fallback: Vec::new(), ..opts.clone() });
    assert_eq!(bare.unsolved, 0, "Lemke alone: {bare:?}");
    assert!(bare.iterations < 100, "a few pivots over the whole run: {bare:?}");
    // Lemke held to one pivot a solve fails on the steps that need more; the LCP
    // formulations' chain (bdiff-newton, its own iteration limit) rescues each.
    opts.settings.max_iter = 1;
    let starved = run(StepOptions { fallback: Vec::new(), ..opts.clone() });
    assert!(starved.unsolved > 0, "{starved:?}");
    let chained = run(opts);
    assert_eq!(chained.unsolved, 0, "{chained:?}");
    assert!(chained.rescued >= 1 && chained.rescued == chained.fallbacks, "{chained:?}");
}

/// global-ac-newton (velocity space) held to one Newton iteration at a tight tolerance.
fn starved_global(fallback: Vec<String>) -> StepOptions {
    StepOptions {
        solver: Some("global-ac-newton".into()),
        settings: Settings { tol: 1e-10, max_iter: 1, ..Settings::default() },
        fallback,
        ..StepOptions::default()
    }
}

#[test]
fn in_velocity_space_a_failed_step_is_rescued_by_a_local_or_a_global_solver() {
    let bare = run(starved_global(Vec::new()), 60).stats;
    assert!(bare.unsolved > 0 && bare.fallbacks == 0, "one Newton iteration should fail somewhere: {bare:?}");
    // A local solver solves the step's reduction u = W r + q; a global one the step as it is.
    // Either is judged by Siconos' global error of the whole answer, as the global solver is.
    for chain in [vec!["ac-newton".to_string()], vec!["global-ipm".to_string()]] {
        let st = run(starved_global(chain.clone()), 60).stats;
        assert!(st.fallbacks > 0, "{chain:?}: {st:?}");
        assert_eq!((st.rescued, st.unsolved), (st.fallbacks, 0), "{chain:?}: {st:?}");
        assert!(st.max_error <= 1e-10, "{chain:?}: {st:?}");
    }
}

#[test]
fn the_convex_formulation_takes_no_chain() {
    let scene = scenes::scene("box-stack", Some(2)).unwrap();
    let (q0, u0) = scene.initial_state();
    let sys: &dyn System = scene.as_ref();
    let mut opts = StepOptions::default();
    opts.set_formulation(perp_dynamics::Formulation::Convex);
    opts.fallback = vec!["prox".into()];
    let e = Simulator::new(sys, q0, u0, 1e-3, opts).err().unwrap().to_string();
    assert!(e.contains("fallback") && e.contains("prox") && e.contains("convex formulation"), "{e}");
}

#[test]
fn in_velocity_space_the_chain_takes_each_failed_island_alike_on_any_thread_count() {
    // The landing balls of ball-pile 20 make steps of many islands; each failed island goes
    // to the chain on its own, and the trajectory does not depend on the threads.
    let pile = scenes::scene("ball-pile", Some(20)).unwrap();
    let (q0, u0) = pile.initial_state();
    let sys: &dyn System = pile.as_ref();
    let run = |threads: usize| {
        let mut opts = starved_global(vec!["ac-newton".into()]);
        opts.settings.threads = threads;
        let mut sim = Simulator::new(sys, q0.clone(), u0.clone(), pile.default_dt(), opts).unwrap();
        let (mut states, mut islands) = (Vec::new(), 0);
        for _ in 0..30 {
            let rep = sim.step().unwrap();
            islands = islands.max(rep.islands);
            states.extend(sim.q.iter().chain(&sim.u).map(|x| x.to_bits()));
        }
        (states, islands, sim.stats.clone())
    };
    let (one, islands, st) = run(1);
    assert!(islands > 1, "several islands at once: {islands}");
    assert!(st.fallbacks > 0 && st.unsolved == 0 && st.rescued == st.fallbacks, "{st:?}");
    let (two, _, st2) = run(2);
    assert_eq!((st.fallbacks, st.iterations), (st2.fallbacks, st2.iterations));
    assert!(one == two, "1 and 2 threads step alike, bit for bit");
}
