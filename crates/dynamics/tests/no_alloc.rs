//! A small system stepped millions of times allocates nothing per step: `Simulator::step_into`
//! on the woodpecker (Glocker–Studer LCP, Lemke) and on sphere scenes (frictional cones,
//! NSGS), counted by a per-thread counting allocator
//! once the first steps have prepared the storage. Each step's state and report are compared
//! bit for bit with `Simulator::step`.

use perp_core::alloc_count::{allocations, Counting};
use perp_dynamics::scenes::woodpecker::Woodpecker;
use perp_dynamics::scenes::Scene;
use perp_dynamics::{Simulator, StepOptions, StepReport};

#[global_allocator]
static GLOBAL: Counting = Counting;

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Steps `scene` with `step_into` and, beside it, with `step`: after `warmup` steps, `steps`
/// more must allocate nothing, and both simulators must agree bit for bit at every step.
/// Returns the number of steps that solved a contact problem.
fn check(scene: &dyn Scene, opts: StepOptions, dt: f64, warmup: usize, steps: usize) -> usize {
    let (q0, u0) = scene.initial_state();
    let mut a = Simulator::new(scene, q0.clone(), u0.clone(), dt, opts.clone()).unwrap();
    let mut b = Simulator::new(scene, q0, u0, dt, opts).unwrap();
    let mut rep = StepReport::default();
    let (mut allocs, mut solved) = (0, 0);
    for k in 0..warmup + steps {
        let (count, ()) = allocations(|| a.step_into(&mut rep).unwrap());
        if k == 0 {
            // The first step sizes the storage: the counter sees it.
            assert!(count > 0, "{}: the first step allocated nothing, so nothing is counted", scene.name());
        }
        if k >= warmup {
            allocs += count;
        }
        let fresh = b.step().unwrap();
        assert_eq!(bits(&a.q), bits(&b.q), "{}: q at step {k}", scene.name());
        assert_eq!(bits(&a.u), bits(&b.u), "{}: u at step {k}", scene.name());
        assert_eq!(bits(&rep.impulses), bits(&fresh.impulses), "{}: impulses at step {k}", scene.name());
        assert_eq!(rep.active, fresh.active, "{}: active contacts at step {k}", scene.name());
        assert_eq!(
            (rep.size, rep.iterations, rep.status, rep.attempts),
            (fresh.size, fresh.iterations, fresh.status, fresh.attempts),
            "{}: report at step {k}",
            scene.name()
        );
        assert_eq!(rep.error.to_bits(), fresh.error.to_bits(), "{}: error at step {k}", scene.name());
        solved += usize::from(rep.size > 0);
    }
    assert_eq!(allocs, 0, "{}: allocations in {steps} prepared steps", scene.name());
    solved
}

#[test]
fn woodpecker_steps_allocate_nothing() {
    // 0.3 s at the scene's own step prepare the storage of every phase (impacts, sticking,
    // sliding); the next 0.2 s, a cycle and more, are counted.
    let w = Woodpecker::new();
    let solved = check(&w, w.default_options(), 1e-4, 3000, 2000);
    assert!(solved > 2500, "only {solved} of 5000 steps had a contact problem");
}

#[test]
fn frictional_steps_allocate_nothing() {
    use perp_dynamics::scenes::scene;
    // One sphere on a plane (sliding, then rolling; spinning on the spot) and on the seam of two
    // fixed spheres: elliptic cones with torsion, NSGS (the default) or prox, with fallbacks;
    // a sphere with rolling resistance (the rolling cone).
    let cases = [
        ("sphere-slide", None),
        ("sphere-spin", None),
        ("sphere-two-spheres", None),
        ("sphere-two-spheres", Some("prox")),
        // The rolling cone (5-D contacts): rolling, stopping and resting; rolling from rest.
        ("sphere-rolling", None),
        ("sphere-rolling-slope", None),
    ];
    for (name, solver) in cases {
        let dt = 1e-3;
        let s = scene(name, None).unwrap();
        let mut opts = s.default_options();
        opts.formulation = perp_dynamics::Formulation::Cone;
        opts.solver = solver.map(String::from);
        opts.fallback = opts.formulation.default_fallback().iter().map(|f| f.to_string()).collect();
        let solved = check(s.as_ref(), opts, dt, 50, 300);
        assert!(solved > 300, "{name}: only {solved} of 350 steps had a contact problem");
    }
}
