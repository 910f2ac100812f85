//! The woodpecker toy (Glocker–Studer 2005 §4, Table I) with Moreau's midpoint rule and
//! the LCP of eq. 33 solved by Lemke, at Δt = 1e-4, 1e-5 and 5e-6: the limit cycle's period
//! and the sleeve's mean descent velocity, the LCPs not solved, and the speed.
//!
//! `cargo run --release -p perp-dynamics --example woodpecker [out.csv]` (the CSV gets the
//! Δt = 1e-4 trajectory).

use perp_core::Error;
use perp_dynamics::scenes::woodpecker::Woodpecker;
use perp_dynamics::scenes::Scene;
use perp_dynamics::Simulator;
use std::time::Instant;

fn main() -> Result<(), Error> {
    let csv = std::env::args().nth(1);
    let w = Woodpecker::new();
    let (qn, un) = w.state_names();
    let (t_end, transient, cycles) = (2.0, 0.3, 10);
    println!(
        "woodpecker (Glocker–Studer 2005 Table I), midpoint rule + Glocker–Studer LCP (Lemke), {t_end} s, \
         limit cycle over the last {cycles} cycles after t = {transient} s"
    );
    println!(
        "{:>8} {:>11} {:>9} {:>13} {:>15} {:>9} {:>9} {:>10}",
        "Δt", "period [s]", "spread", "v_desc [m/s]", "unsolved/solves", "max LCP", "steps", "steps/s"
    );
    for (k, dt) in [1e-4, 1e-5, 5e-6].into_iter().enumerate() {
        let (q0, u0) = w.initial_state();
        let mut sim = Simulator::new(&w, q0.clone(), u0.clone(), dt, w.default_options())?;
        let start = Instant::now();
        let traj = sim.run(t_end, 1, Some((&qn, &un)))?;
        let secs = start.elapsed().as_secs_f64();
        let lc = w.limit_cycle(&traj, transient, cycles)?;
        println!(
            "{dt:>8.0e} {:>11.6} {:>9.1e} {:>13.6} {:>15} {:>9} {:>9} {:>10.0}",
            lc.period,
            lc.spread,
            lc.descent_velocity,
            format!("{}/{}", sim.stats.unsolved, sim.stats.solves),
            sim.stats.max_size,
            sim.stats.steps,
            sim.stats.steps as f64 / secs
        );
        if k == 0 {
            // The limit cycle's extent (Figure 6) and the energy balance.
            let t = traj.column("t").unwrap_or_default();
            let range = |name: &str| {
                let v = traj.column(name).unwrap_or_default();
                let on: Vec<f64> =
                    t.iter().zip(v).filter(|(t, _)| **t >= transient).map(|(_, x)| x).collect();
                (
                    on.iter().cloned().fold(f64::INFINITY, f64::min),
                    on.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
                )
            };
            for name in ["phi_S", "omega_S", "phi_M", "omega_M"] {
                let (lo, hi) = range(name);
                println!("         {name:<8} on the limit cycle: [{lo:.4}, {hi:.4}]");
            }
            let e0 = w.energy(&q0, &u0).unwrap_or(f64::NAN);
            let e_end = w.energy(&sim.q, &sim.u).unwrap_or(f64::NAN);
            println!(
                "         energy {e0:.6e} J → {e_end:.6e} J (gravity feeds the cycle, contacts dissipate)"
            );
            if let Some(path) = &csv {
                traj.write_csv(std::path::Path::new(path))?;
                println!("         trajectory written to {path}");
            }
        }
    }
    Ok(())
}
