//! Fitting a friction coefficient to a recorded trajectory, by gradient descent through the
//! time stepper.
//!
//! The sliding sphere of Trinkle, Tzitzouris and Pang (Trinkle–Tzitzouris–Pang 2001 §4.1.3): a unit sphere pushed
//! along a plane at 2 m/s slides, slowed by friction, until it rolls at `t* = 2v₀/(7μg)`. A
//! trajectory recorded with the paper's μ = 0.2 (here: simulated, 25 steps of 10 ms, all in
//! the sliding phase) is the data; starting from a guess μ = 0.5, gradient descent on the
//! squared velocity error
//!
//! ```text
//!     L(μ) = Σ_k ‖u_k(μ) − u_k^rec‖²,      dL/dμ = Σ_k 2 (u_k − u_k^rec) · du_k/dμ,
//! ```
//!
//! recovers μ. `du_k/dμ` is carried forward through the steps by the JVP of each step's
//! linearization (`Simulator::step_with_sensitivity`: the contact solve differentiated exactly,
//! the rest by differences): `(dq, du)_{k+1} = J_k (dq, du)_k + ∂_μ step_k`. The step length
//! is the gradient scaled by the Gauss–Newton curvature `Σ_k ‖du_k/dμ‖²`.
//!
//! `cargo run --release --example fit_friction`

use perp::core::Error;
use perp::dynamics::scenes::spheres::SphereOnPlane;
use perp::dynamics::scenes::Scene;
use perp::dynamics::{Simulator, StepOptions, System};

const DT: f64 = 0.01;
const STEPS: usize = 25;

/// One vector per step.
type PerStep = Vec<Vec<f64>>;

/// The velocities of `STEPS` steps with friction `mu` (the recorded data when `mu` is the truth).
pub fn recorded(mu: f64) -> Result<PerStep, Error> {
    Ok(roll_out(mu)?.0)
}

/// The velocities of `STEPS` steps with friction `mu`, and their derivatives in μ.
fn roll_out(mu: f64) -> Result<(PerStep, PerStep), Error> {
    let scene = SphereOnPlane::slide().with_mu(mu);
    let (q0, u0) = scene.initial_state();
    let sys: &dyn System = &scene;
    let mut sim = Simulator::new(sys, q0, u0, DT, StepOptions::default())?;
    let (mut dq, mut du) = (vec![0.0; sim.q.len()], vec![0.0; sim.u.len()]);
    let (mut us, mut dus) = (Vec::new(), Vec::new());
    for _ in 0..STEPS {
        let (_, lin) = sim.step_with_sensitivity()?;
        (dq, du) = lin.jvp(&dq, &du, Some(&[1.0]), None)?;
        us.push(sim.u.clone());
        dus.push(du.clone());
    }
    Ok((us, dus))
}

/// Fits μ to the velocities `recorded` from `guess`; returns the fitted μ and the final loss.
pub fn fit(recorded: &[Vec<f64>], guess: f64) -> Result<(f64, f64), Error> {
    let mut mu = guess;
    let mut loss = f64::INFINITY;
    for it in 0..30 {
        let (us, dus) = roll_out(mu)?;
        let (mut grad, mut curv) = (0.0, 0.0);
        loss = 0.0;
        for ((u, du), rec) in us.iter().zip(&dus).zip(recorded) {
            for i in 0..u.len() {
                let e = u[i] - rec[i];
                loss += e * e;
                grad += 2.0 * e * du[i];
                curv += 2.0 * du[i] * du[i];
            }
        }
        println!("iteration {it:2}: mu = {mu:.10}, loss = {loss:.3e}, dL/dmu = {grad:+.3e}");
        if grad.abs() < 1e-12 || curv == 0.0 {
            break;
        }
        let step = grad / curv;
        mu = (mu - step).max(1e-6);
        if step.abs() < 1e-12 {
            break;
        }
    }
    Ok((mu, loss))
}

pub fn main() -> Result<(), Error> {
    let mu_true = 0.2;
    let (recorded, _) = roll_out(mu_true)?;
    let (mu, loss) = fit(&recorded, 0.5)?;
    println!("recovered mu = {mu:.10} (recorded with {mu_true}), loss {loss:.2e}");
    if (mu - mu_true).abs() > 1e-8 {
        return Err(Error::Numerical {
            solver: "fit_friction".into(),
            message: format!("mu = {mu} not recovered"),
        });
    }
    Ok(())
}
