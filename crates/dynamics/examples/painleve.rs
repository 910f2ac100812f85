//! Painlevé's rod (Stewart 2000 §1.3): the first steps of `painleve-rod` with its default options,
//! printed: the impulses of each step and the velocities of the lower end.
//!
//! `cargo run --release -p perp-dynamics --example painleve [dt]`

use perp_dynamics::scenes::planar::PainleveRod;
use perp_dynamics::scenes::Scene;
use perp_dynamics::{Formulation, Simulator, StepOptions, System};

fn run(rod: &PainleveRod, dt: f64, opts: StepOptions, steps: usize) -> Result<(), perp_core::Error> {
    let (q0, u0) = rod.initial_state();
    let mut sim = Simulator::new(rod, q0, u0, dt, opts)?;
    let m = rod.rod.m;
    println!(
        "{:>5} {:>8} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>10}",
        "step", "t", "Λ_N", "Λ_T", "ẋ_c", "ẏ_c", "ẋ", "θ̇", "gap"
    );
    for k in 1..=steps {
        let rep = sim.step()?;
        let c = &rod.contacts(&sim.q, sim.t)[0];
        let (vt, vn) = (c.tangents[0].dot(&sim.u), c.normal.dot(&sim.u));
        println!(
            "{k:>5} {:>8.4} {:>11.4e} {:>11.4e} {:>11.3e} {:>11.3e} {:>11.4} {:>11.4} {:>10.2e}",
            sim.t, rep.impulses[0], rep.impulses[1], vt, vn, sim.u[0], sim.u[2], c.gap
        );
    }
    println!(
        "(m g Δt = {:.3e}; unsolved LCPs: {})",
        m * perp_dynamics::scenes::planar::G * dt,
        sim.stats.unsolved
    );
    Ok(())
}

fn main() -> Result<(), perp_core::Error> {
    let dt: f64 = match std::env::args().nth(1) {
        Some(s) => s.parse().map_err(|_| perp_core::Error::setting("dt", &s, "must be a number"))?,
        None => 1e-3,
    };
    let rod = PainleveRod::new();
    let r = &rod.rod;
    println!(
        "Painlevé's rod: m = {}, l = {}, J = {:.4}, μ = {}, θ₀ = {:.1}°, ẋ₀ = {} m/s, Δt = {dt}",
        r.m,
        r.l,
        r.j,
        r.mu,
        rod.theta0.to_degrees(),
        rod.vx0
    );
    println!(
        "coefficient of N in eq. 1.5: {:.4} (< 0: no force keeps the sliding end on the table)",
        rod.painleve_coefficient(rod.theta0)
    );
    println!(
        "ẋ_c, ẏ_c: the lower end's velocity with the contact rows at the end of the step (the LCP \
         makes it zero on the midpoint's rows; the difference is O(Δt θ̇²))"
    );
    println!("\nGlocker–Studer LCP (Lemke), midpoint rule:");
    run(&rod, dt, rod.default_options(), 8)?;
    println!("\nStewart–Trinkle LCP (Lemke), midpoint rule:");
    let opts = StepOptions {
        formulation: Formulation::StewartTrinkle(perp_dynamics::Directions::Uniform(2)),
        ..rod.default_options()
    };
    run(&rod, dt, opts, 4)?;
    Ok(())
}
