//! Painlevé's rod (Stewart 2000 §1.3, eq. 1.4–1.6) and its inelastic frictional impact
//! (Stewart 2000 fig. 2.4).

use super::*;

/// A uniform rod of length `l` (Stewart 2000 §1.3): both ends are contact candidates, contact 0 the
/// end at `−(l/2)(cos θ, sin θ)` (the lower end of Figure 1.3 for `0 < θ < π/2`), contact 1
/// the end at `+(l/2)(cos θ, sin θ)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Rod {
    /// Mass m (kg).
    pub m: f64,
    /// Length l (m).
    pub l: f64,
    /// Moment of inertia about the centre, `J = m l² / 12` for a uniform rod (kg m²).
    pub j: f64,
    /// Friction coefficient μ at both ends.
    pub mu: f64,
    /// Normal restitution ε_N at both ends.
    pub eps_n: f64,
}

impl Rod {
    /// A uniform rod (`J = m l²/12`).
    pub fn uniform(m: f64, l: f64, mu: f64, eps_n: f64) -> Rod {
        Rod { m, l, j: m * l * l / 12.0, mu, eps_n }
    }

    /// The two ends' offsets from the centre at angle θ.
    pub fn ends(&self, theta: f64) -> [[f64; 2]; 2] {
        let (s, c) = theta.sin_cos();
        let h = 0.5 * self.l;
        [[-h * c, -h * s], [h * c, h * s]]
    }

    fn contacts(&self, q: &[f64]) -> Vec<Contact> {
        self.ends(q[2])
            .iter()
            .map(|r| point_contact(q[1] + r[1], *r, self.mu).with_restitution(self.eps_n, 0.0))
            .collect()
    }

    fn energy(&self, q: &[f64], u: &[f64]) -> f64 {
        kinetic(self.m, self.j, u) + self.m * G * q[1]
    }
}

/// Painlevé's problem (Stewart 2000 §1.3, Figure 1.3, eq. 1.4–1.6): a rod standing on its lower end
/// at angle θ₀ from the horizontal, sliding left with `ẋ < 0`, `θ̇ = 0`, with μ so large that
/// the coefficient of N in eq. 1.5,
///
/// ```text
/// 1/m − (l²/4J) cos θ (μ sin θ − cos θ),
/// ```
///
/// is negative: no contact force keeps `ÿ_c ≥ 0` while the rod slides (eq. 1.6 has no solution).
/// The velocity-level step (Stewart 2000 eq. 2.11–2.16, Glocker–Studer 2005 eq. 33) has one: an impulse
/// that stops the sliding at once (the "modern resolution", Stewart 2000 §1.3).
///
/// Defaults: `m = 1`, `l = 1`, `J = 1/12`, `θ₀ = 60°`, `μ = 1.5` (coefficient ≈ −0.20), `ẋ₀ =
/// −1 m/s`, `ε = 0`. With a uniform rod the coefficient is negative only for
/// `μ > (J/(m l²/4) + cos²θ) / (sin θ cos θ)`: at 45° that is μ > 5/3, at 30° μ > 2.5, the
/// smallest (≈ 1.33) near 60°.
#[derive(Clone, Debug)]
pub struct PainleveRod {
    /// The rod.
    pub rod: Rod,
    /// Initial angle θ₀ from the horizontal (rad).
    pub theta0: f64,
    /// Initial horizontal velocity ẋ₀ (m/s) (negative: sliding left).
    pub vx0: f64,
}

impl Default for PainleveRod {
    fn default() -> Self {
        PainleveRod::new()
    }
}

impl PainleveRod {
    /// The default configuration (see the type's docs).
    pub fn new() -> PainleveRod {
        PainleveRod { rod: Rod::uniform(1.0, 1.0, 1.5, 0.0), theta0: PI / 3.0, vx0: -1.0 }
    }

    /// The coefficient of N in eq. 1.5 at angle θ (sliding left, `F = +μN`).
    pub fn painleve_coefficient(&self, theta: f64) -> f64 {
        let r = &self.rod;
        1.0 / r.m - (r.l * r.l / (4.0 * r.j)) * theta.cos() * (r.mu * theta.sin() - theta.cos())
    }
}

/// `System` for a scene that is its one rod `self.rod` above the table.
macro_rules! rod_system {
    ($scene:ty) => {
        planar_system!($scene, |s, q, h|
            mass: (s.rod.m, s.rod.j),
            forces: gravity(s.rod.m, h),
            contacts: s.rod.contacts(q),
        );
    };
}

rod_system!(PainleveRod);

impl Scene for PainleveRod {
    fn name(&self) -> String {
        "painleve-rod".into()
    }
    fn description(&self) -> String {
        "Painlevé's rod sliding left with a negative coefficient in eq. 1.5: the step stops the \
         sliding by an impulse (Stewart 2000 §1.3)"
            .into()
    }
    /// The lower end on the table (`y = (l/2) sin θ₀`), sliding left, not rotating.
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        let y0 = 0.5 * self.rod.l * self.theta0.sin();
        (vec![0.0, y0, self.theta0], vec![self.vx0, 0.0, 0.0])
    }
    planar_scene_defaults!(1e-3, 1.0);
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        Some(self.rod.energy(q, u))
    }
    /// The lower end's horizontal and vertical velocities against time.
    fn panels(&self, traj: &Trajectory) -> Vec<Panel> {
        let cs: Vec<Contact> = states(traj).map(|(q, _)| self.rod.contacts(q).swap_remove(0)).collect();
        let vt = states(traj).zip(&cs).map(|((_, u), c)| c.tangents[0].dot(u)).collect();
        let vn = states(traj).zip(&cs).map(|((_, u), c)| c.normal.dot(u)).collect();
        vec![time_panel(traj, "lower end", "velocity [m/s]", &[("ẋ_c", vt), ("ẏ_c", vn)])]
    }
}

/// The impact version of Painlevé's problem (Stewart 2000 fig. 2.4): a rod spinning
/// counterclockwise with its centre of mass at rest falls onto the table; inelastic impacts
/// (`ε = 0`) with friction. The horizontal velocity of the striking end changes during the
/// impact (Stewart 2000 §2.2: a method that keeps it cannot get this right).
///
/// Defaults: `m = 1`, `l = 1`, `J = 1/12`, `μ = 0.8`, `ε = 0`, centre at height 1 m, θ₀ = 0,
/// ω₀ = 4 rad/s.
#[derive(Clone, Debug)]
pub struct PainleveImpact {
    /// The rod.
    pub rod: Rod,
    /// Initial height of the centre (m).
    pub y0: f64,
    /// Initial angle (rad).
    pub theta0: f64,
    /// Initial angular velocity (rad/s) (positive: counterclockwise).
    pub omega0: f64,
}

impl Default for PainleveImpact {
    fn default() -> Self {
        PainleveImpact::new()
    }
}

impl PainleveImpact {
    /// The default configuration (see the type's docs).
    pub fn new() -> PainleveImpact {
        PainleveImpact { rod: Rod::uniform(1.0, 1.0, 0.8, 0.0), y0: 1.0, theta0: 0.0, omega0: 4.0 }
    }
}

rod_system!(PainleveImpact);

impl Scene for PainleveImpact {
    fn name(&self) -> String {
        "painleve-impact".into()
    }
    fn description(&self) -> String {
        "a spinning rod falls onto the table, inelastic frictional impacts (Stewart 2000 fig. 2.4)".into()
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![0.0, self.y0, self.theta0], vec![0.0, 0.0, self.omega0])
    }
    planar_scene_defaults!(1e-3, 1.5);
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        Some(self.rod.energy(q, u))
    }
}
