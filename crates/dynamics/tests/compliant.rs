//! The compliant formulation (`Formulation::Compliant`: SAP's regularised contact, Castro et
//! al. 2022, stepped in velocity space) against the exact cones (`Formulation::Cone`) on the
//! seed scene `box-stack` (boxes resting on the ground on four corners). The compliant contact
//! penetrates by design, to its equilibrium: at rest `γ_N = −φ/((δt + τ_d) R_n)` carries the
//! weight, so a box sinks by `(δt + τ_d) R_n m g δt / 4` (near-rigid, `R_n = w_n/(4π²)`) or
//! `m g / (4k)` (stiffness k). The exact cones, at velocity level, keep whatever the landing
//! left (the midpoint scheme activates a contact once its gap closes: about `g δt²`) and do
//! not push it out.

use perp_cones::{GlobalFrictionContactProblem, Sap};
use perp_core::Status;
use perp_dynamics::scenes;
use perp_dynamics::{Compliant, Formulation, Simulator, StepOptions, System};

/// `steps` steps of `box-stack n` in formulation `f`: the deepest penetration after each step
/// (−min gap over the candidate contacts, 0 when none penetrates), the largest speed at the
/// end, and the number of unsolved steps.
fn run(
    n: usize,
    f: Formulation,
    steps: usize,
) -> (Vec<f64>, f64, usize, Option<GlobalFrictionContactProblem>) {
    let scene = scenes::scene("box-stack", Some(n)).unwrap();
    let mut opts: StepOptions = scene.default_options();
    opts.formulation = f;
    opts.keep_problem = true;
    let (q0, u0) = scene.initial_state();
    let sys: &dyn System = &*scene;
    let mut sim = Simulator::new(sys, q0, u0, scene.default_dt(), opts).unwrap();
    let mut pen = Vec::new();
    let mut unsolved = 0;
    for _ in 0..steps {
        let rep = sim.step().unwrap();
        if rep.status.is_some_and(|s| s != Status::Solved) {
            unsolved += 1;
        }
        let gmin = sys.contacts(&sim.q, sim.t).iter().map(|c| c.gap).fold(0.0_f64, f64::min);
        pen.push(-gmin);
    }
    let speed = sim.u.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    (pen, speed, unsolved, sim.last_global_problem().map(Result::unwrap))
}

/// The mass of one box of the scene (M's first diagonal entry).
fn box_mass() -> f64 {
    let scene = scenes::scene("box-stack", Some(1)).unwrap();
    let (q0, _) = scene.initial_state();
    scene.mass(&q0, 0.0).get(0, 0)
}

/// Near-rigid (the default): the box comes to rest at the penetration the hand estimate gives
/// (a stack of three less than the exact cones' landing sink).
#[test]
fn a_near_rigid_compliant_stack_rests_with_a_small_penetration() {
    for n in [1, 3] {
        let (pen_c, speed_c, unsolved_c, g) = run(n, Formulation::Compliant(Compliant::default()), 100);
        let (pen_e, speed_e, unsolved_e, _) = run(n, Formulation::Cone, 100);
        let (last_c, last_e) = (*pen_c.last().unwrap(), *pen_e.last().unwrap());
        println!(
            "box-stack {n}: compliant penetration {last_c:.3e} at rest (max {:.3e}), end speed {speed_c:.2e}, \
             {unsolved_c} unsolved; cone {last_e:.3e} (max {:.3e}), end speed {speed_e:.2e}, {unsolved_e} unsolved",
            pen_c.iter().fold(0.0_f64, |m, &x| m.max(x)),
            pen_e.iter().fold(0.0_f64, |m, &x| m.max(x)),
        );
        assert_eq!(unsolved_c, 0);
        assert!(speed_c < 1e-6, "box-stack {n}: not at rest, {speed_c}");
        assert!(last_c > 0.0 && last_c < last_e, "box-stack {n}: {last_c} against {last_e}");
        if n == 1 {
            // Four symmetric corners: R_n of the near-rigid bound (SAP's own, from the step's
            // global problem), γ_N = m g δt / 4, τ_d = δt.
            let rn = Sap::new().contacts(&g.unwrap()).unwrap()[0].rn;
            let dt = 0.01;
            let want = 2.0 * dt * rn * box_mass() * 9.81 * dt / 4.0;
            println!("box-stack 1 near-rigid: penetration {last_c:.4e}, estimate {want:.4e}");
            assert!((last_c - want).abs() <= 0.05 * want, "{last_c} against {want}");
        }
    }
}

/// A finite stiffness k (soft enough to be above SAP's near-rigid bound): at rest the four
/// corners carry the box's weight, so it sinks by `m g / (4 k)`.
#[test]
fn a_soft_compliant_stack_sinks_by_its_weight_over_its_stiffness() {
    let m = box_mass();
    {
        let n = 1;
        let k = 1e4;
        let c = Compliant { stiffness: k, dissipation_time_scale: Some(0.05), ..Compliant::default() };
        let (pen, speed, unsolved, _) = run(n, Formulation::Compliant(c), 200);
        let want = n as f64 * m * 9.81 / (4.0 * k);
        let last = *pen.last().unwrap();
        println!("box-stack {n}, k = {k}: penetration {last:.4e} at rest, n m g / (4k) = {want:.4e}, end speed {speed:.1e}");
        assert_eq!(unsolved, 0);
        assert!((last - want).abs() <= 0.05 * want, "box-stack {n}: {last} against {want}");
    }
}

/// The compliant formulation's parameters live in [`Compliant`]: solver parameters given
/// beside it are refused by name instead of being checked against an unused solver.
#[test]
fn solver_parameters_are_refused_with_the_compliant_formulation() {
    let scene = scenes::scene("box-stack", Some(1)).unwrap();
    let mut opts: StepOptions = scene.default_options();
    opts.set_formulation(Formulation::Compliant(Compliant::default()));
    opts.params = perp_catalogue::Params::parse("sigma=0.01").unwrap();
    let (q0, u0) = scene.initial_state();
    let sys: &dyn System = &*scene;
    let e = Simulator::new(sys, q0, u0, scene.default_dt(), opts).err().expect("refused").to_string();
    assert!(e.contains("params") && e.contains("Compliant::from_params"), "{e}");
}

/// The compliant model regularises stiction (SAP's `R_t = σ w_t`): a block held by friction
/// on an incline (20°, μ = 0.5 > tan 20°) creeps down it at the speed v where its two sticking
/// corners' tangential impulses `γ_t = v / R_t` carry the slope's share of its weight each
/// step, `v (1/R_t¹ + 1/R_t²) = m g sin α δt`, whatever the normal split between them. The
/// exact cones and the convex relaxation hold it still. (R_t from SAP's contacts of the last
/// step's global problem, scaled from the default σ, to which it is proportional.)
#[test]
fn a_block_held_by_friction_creeps_at_the_regularised_stiction_speed() {
    use perp_dynamics::scenes::planar::BlockIncline;
    use perp_dynamics::scenes::Scene;
    let block = BlockIncline::new(20f64.to_radians(), 0.5);
    let dt = block.default_dt();
    // The slide over the last half second of one second, and the last step's problem.
    let slide = |f: Formulation| {
        let (q0, u0) = block.initial_state();
        let opts = StepOptions {
            formulation: f.clone(),
            solver: None,
            keep_problem: true,
            ..block.default_options()
        };
        let mut sim = Simulator::new(&block, q0, u0, dt, opts).unwrap();
        let half = (0.5 / dt).round() as usize;
        for _ in 0..half {
            sim.step().unwrap();
        }
        let x_half = sim.q[0];
        for _ in 0..half {
            sim.step().unwrap();
        }
        assert_eq!(sim.stats.unsolved, 0, "{f:?}");
        ((sim.q[0] - x_half) / (half as f64 * dt), sim.last_global_problem().map(Result::unwrap))
    };
    let default_sigma = Compliant::default().sigma;
    for sigma in [1e-3, 1e-2] {
        let (v, g) = slide(Formulation::Compliant(Compliant { sigma, ..Compliant::default() }));
        let contacts = Sap::new().contacts(&g.expect("the block rests on two corners")).unwrap();
        assert_eq!(contacts.len(), 2);
        let inv: f64 = contacts.iter().map(|c| default_sigma / (c.rt * sigma)).sum();
        let want = block.m * 9.81 * block.alpha.sin() * dt / inv;
        println!("σ = {sigma:e}: creep {v:.4e} m/s, m g sin α δt / Σ 1/R_t = {want:.4e} m/s");
        assert!((v - want).abs() <= 0.01 * want, "σ = {sigma:e}: {v} against {want}");
    }
    for f in [Formulation::Cone, Formulation::Convex] {
        let (v, _) = slide(f.clone());
        println!("{f:?}: {v:.3e} m/s");
        assert!(v.abs() <= 1e-12, "{f:?}: the block moves at {v}");
    }
}
