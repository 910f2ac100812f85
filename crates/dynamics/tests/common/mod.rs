//! What several scene tests share: stepping a scene and recording every step, and a pile's
//! options in a formulation.
#![allow(dead_code)]

use perp_core::Status;
use perp_dynamics::scenes::Scene;
use perp_dynamics::{Formulation, Simulator, StepOptions, System};

/// One recorded step: time, coordinates, velocities, impulses.
pub struct Step {
    pub t: f64,
    pub q: Vec<f64>,
    pub u: Vec<f64>,
    pub r: Vec<f64>,
}

/// Runs `scene` with `opts` for `t_end / dt` steps; every step must have an active contact
/// whose solve reports `Solved`.
pub fn run_with<S: Scene>(scene: &S, opts: StepOptions, dt: f64, t_end: f64) -> Vec<Step> {
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

/// `scene`'s default options in formulation `f`, with `solver` when given, and no fallback
/// (so that a test sees the solver's own answer).
pub fn options_in<S: Scene + ?Sized>(scene: &S, f: Formulation, solver: Option<&str>) -> StepOptions {
    let mut opts = scene.default_options();
    opts.set_formulation(f);
    if let Some(s) = solver {
        opts.solver = Some(s.into());
    }
    opts.fallback.clear();
    opts
}
