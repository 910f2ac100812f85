//! Seed 002 §4.1.1 (fig. 4): a unit sphere spinning in place on a plane with torsional
//! friction. Prints ω_z(t) of the Stewart method (linearized cone, the aligned directions of
//! eq. 5, Lemke, semi-implicit Euler) and of the exact elliptic cone (NSGS, Moreau midpoint)
//! against the analytic line `ω_z = max(0, 1.962 − 1.962 t)`.
//!
//! ```text
//! cargo run -p perp-dynamics --example sphere_spin [-- DT]
//! ```

use perp_dynamics::scenes::spheres::{Method, SphereOnPlane};
use perp_dynamics::scenes::Scene;
use perp_dynamics::{Simulator, System};

fn series(method: Method, dt: f64) -> Result<Vec<(f64, f64, f64)>, perp_core::Error> {
    let scene = SphereOnPlane::spin().with_method(method);
    let (q0, u0) = scene.initial_state();
    let sys: &dyn System = &scene;
    let mut sim = Simulator::new(sys, q0, u0, dt, scene.default_options())?;
    let mut out = vec![(0.0, sim.u[5], 0.0)];
    while sim.t < scene.default_t_end() - 1e-9 {
        sim.step()?;
        // The largest of the other five velocity components (all zero in the exact solution).
        let others = sim.u[..5].iter().fold(0.0f64, |m, v| m.max(v.abs()));
        out.push((sim.t, sim.u[5], others));
    }
    Ok(out)
}

fn main() -> Result<(), perp_core::Error> {
    let dt = match std::env::args().nth(1) {
        None => 0.07,
        Some(s) => s.parse().map_err(|_| perp_core::Error::setting("DT", &s, "expected a step size"))?,
    };
    let exact = SphereOnPlane::spin();
    let stewart = series(Method::Stewart, dt)?;
    let cone = series(Method::Cone, dt)?;
    println!("sphere-spin (Trinkle–Tzitzouris–Pang 2001 §4.1.1), h = {dt}: ω_z [rad/s]");
    println!(
        "{:>6} {:>10} {:>10} {:>10} {:>10} {:>12}",
        "t", "analytic", "stewart", "cone", "|Δ| max", "others max"
    );
    for ((t, ws, os), (_, wc, oc)) in stewart.iter().zip(&cone) {
        let a = exact.analytic(*t).map_or(f64::NAN, |v| v[5]);
        let d = (ws - a).abs().max((wc - a).abs());
        println!("{t:>6.2} {a:>10.5} {ws:>10.5} {wc:>10.5} {d:>10.1e} {:>12.1e}", os.max(*oc));
    }
    let stop = |s: &[(f64, f64, f64)]| s.iter().find(|p| p.1.abs() < 1e-9).map_or(f64::NAN, |p| p.0);
    println!(
        "spin stops: analytic {:.3} s, stewart {:.2} s, cone {:.2} s",
        exact.transition_time(),
        stop(&stewart),
        stop(&cone)
    );
    Ok(())
}
