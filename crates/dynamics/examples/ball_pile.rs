//! The warm-start benchmark: `ball-pile N` stepped with warm starts on and off; prints steps/s,
//! solves, total solver iterations (NSGS sweeps), unsolved solves and the worst penetration.
//!
//! ```text
//! cargo run --release -p perp-dynamics --example ball_pile -- [N=1000] [STEPS=60] [TOL=1e-6] [MAX_SWEEPS=1000] [SOLVER=nsgs]
//! ```
//!
//! Defaults: the scene's options (midpoint, exact Coulomb cones at 1e-6) with NSGS on W and no
//! fallback chain (the scene's default from 30 balls is global-ipm in velocity space; SOLVER
//! names another), at most 1000 sweeps per solve, so that the 1000-ball pile runs in a few
//! minutes: its hyperstatic pockets (four supports per ball, singular W) make many steps need
//! thousands of sweeps, and solves stopped by the cap are counted as unsolved (their worst
//! error is printed; 0 means the solver default, 10 000). Penetration is the deepest over all
//! steps; "missed" counts overlapping pairs outside the fixed candidate list at the end
//! (should be 0).

use perp_dynamics::scenes::stacks::BallPile;
use perp_dynamics::scenes::Scene;
use perp_dynamics::{Simulator, System};
use std::time::Instant;

fn main() -> Result<(), perp_core::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parse = |k: usize, d: usize| -> Result<usize, perp_core::Error> {
        match args.get(k) {
            None => Ok(d),
            Some(s) => s.parse().map_err(|_| perp_core::Error::setting("argument", s, "expected a count")),
        }
    };
    let n = parse(0, 1000)?;
    let steps = parse(1, 60)?;
    let pile = BallPile::new(n)?;
    let tol = match args.get(2) {
        None => pile.default_options().settings.tol,
        Some(s) => s.parse().map_err(|_| perp_core::Error::setting("tolerance", s, "expected a number"))?,
    };
    let max_sweeps = parse(3, 1000)?;
    let solver = args.get(4).cloned().unwrap_or_else(|| "nsgs".into());
    println!("{}", pile.description());
    let dt = pile.default_dt();
    println!(
        "dt = {dt}, {steps} steps (t = {:.2} s), tol {tol:e}, at most {max_sweeps} iterations per solve",
        dt * steps as f64
    );
    println!(
        "{:<10} {:>9} {:>8} {:>12} {:>9} {:>10} {:>9} {:>12} {:>8}",
        "warm",
        "steps/s",
        "solves",
        "iterations",
        "unsolved",
        "max error",
        "max size",
        "penetration",
        "missed"
    );
    for warm in [true, false] {
        let mut opts = pile.default_options();
        opts.warm_start = warm;
        opts.settings.tol = tol;
        opts.settings.max_iter = max_sweeps;
        opts.solver = Some(solver.clone());
        opts.fallback.clear();
        let (q0, u0) = pile.initial_state();
        let sys: &dyn System = &pile;
        let mut sim = Simulator::new(sys, q0, u0, dt, opts)?;
        let start = Instant::now();
        let mut penetration = 0.0f64;
        for _ in 0..steps {
            sim.step()?;
            let worst = pile.contacts(&sim.q, sim.t).iter().map(|c| -c.gap).fold(0.0, f64::max);
            penetration = penetration.max(worst);
        }
        let secs = start.elapsed().as_secs_f64();
        let s = &sim.stats;
        let missed = pile.missed_overlaps(&sim.q, 0.0).len();
        println!(
            "{:<10} {:>9.2} {:>8} {:>12} {:>9} {:>10.2e} {:>9} {:>12.2e} {:>8}",
            if warm { "on" } else { "off" },
            steps as f64 / secs,
            s.solves,
            s.iterations,
            s.unsolved,
            s.max_error,
            s.max_size,
            penetration,
            missed
        );
    }
    Ok(())
}
