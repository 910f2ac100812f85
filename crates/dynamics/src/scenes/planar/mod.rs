//! Planar rigid-body scenes: Painlevé's rod (Stewart 2000 §1.3 and fig. 2.4), Moreau's frictional
//! catastrophe (Moreau 1988 example 15.3), a bouncing ball and a block on an incline.
//!
//! Every body moves in a vertical plane with `q = (x, y, θ)` (centre of mass, counterclockwise
//! angle) and `u = (v_x, v_y, ω)`, so `q̇ = u` and M = diag(m, m, J) is constant. A body point
//! at offset `r = (r_x, r_y)` from the centre of mass touching the line `y = 0` is a planar
//! contact ([`point_contact`]) with normal row `w_N = (0, 1, r_x)` (the gradient of its gap
//! `y + r_y(θ)`, Glocker–Studer 2005 eq. 9–10) and one tangent row `w_T = (1, 0, −r_y)` (the horizontal
//! velocity of the point, `v + ω × r`). The scenes default to Moreau's midpoint rule (Glocker–Studer 2005
//! §5, Moreau 1988 §15) with the Glocker–Studer LCP (Glocker–Studer 2005 eq. 33) solved by Lemke.

use super::{Panel, Scene, SceneInfo, Series};
use crate::stepper::{Activation, Formulation, Scheme, StepOptions};
use crate::system::{Contact, Row, System};
use crate::trajectory::Trajectory;
use perp_core::{Matrix, Settings};
use std::f64::consts::PI;

/// The [`Scene`] methods every planar scene shares: the time step `$dt` and the end time
/// `$t_end` it defaults to, Moreau's midpoint rule with the Glocker–Studer LCP
/// ([`midpoint_gs`]) and the state names `x, y, theta | v_x, v_y, omega` ([`planar_names`]).
macro_rules! planar_scene_defaults {
    ($dt:expr, $t_end:expr) => {
        fn default_dt(&self) -> f64 {
            $dt
        }
        fn default_t_end(&self) -> f64 {
            $t_end
        }
        fn default_options(&self) -> StepOptions {
            midpoint_gs()
        }
        fn state_names(&self) -> (Vec<String>, Vec<String>) {
            planar_names()
        }
    };
}

/// `System` for a scene `$scene` that is one body in the plane: 3 degrees of freedom, the
/// constant mass `diag(m, m, J)` of `(m, J) = $mass`, the forces `$forces` writes into `$h`
/// and the contacts `$contacts` at the positions `$q` (`$s` is the scene in each).
macro_rules! planar_system {
    (
        $scene:ty, |$s:ident, $q:ident, $h:ident|
        mass: $mass:expr,
        forces: $forces:expr,
        contacts: $contacts:expr $(,)?
    ) => {
        impl System for $scene {
            fn dofs(&self) -> usize {
                3
            }
            fn mass(&self, _q: &[f64], _t: f64) -> Matrix {
                let $s = self;
                let (m, j) = $mass;
                body_mass(m, j)
            }
            fn constant_mass(&self) -> bool {
                true
            }
            fn forces(&self, _q: &[f64], _u: &[f64], _t: f64, $h: &mut [f64]) {
                let $s = self;
                $forces
            }
            fn contacts(&self, $q: &[f64], _t: f64) -> Vec<Contact> {
                let $s = self;
                $contacts
            }
        }
    };
}

mod painleve;

pub use painleve::{PainleveImpact, PainleveRod, Rod};

/// Gravity of every scene here (m/s²).
pub const G: f64 = 9.81;

/// The planar contact of the body point at offset `r` from the centre of mass with the line
/// `y = 0` (normal `+y`): `w_N = (0, 1, r_x)`, `w_T = (1, 0, −r_y)`, no rheonomic terms.
pub fn point_contact(gap: f64, r: [f64; 2], mu: f64) -> Contact {
    Contact::new(gap, Row::dense(&[0.0, 1.0, r[0]]), vec![Row::dense(&[1.0, 0.0, -r[1]])], mu)
}

pub(super) fn body_mass(m: f64, j: f64) -> Matrix {
    Matrix::from_row_major(3, 3, &[m, 0.0, 0.0, 0.0, m, 0.0, 0.0, 0.0, j]).expect("3×3 from 9 entries")
}

/// Gravity on a body of mass `m`: `h = (0, −m g, 0)`.
fn gravity(m: f64, h: &mut [f64]) {
    h[0] = 0.0;
    h[1] = -m * G;
    h[2] = 0.0;
}

pub(super) fn kinetic(m: f64, j: f64, u: &[f64]) -> f64 {
    0.5 * m * (u[0] * u[0] + u[1] * u[1]) + 0.5 * j * u[2] * u[2]
}

pub(super) fn planar_names() -> (Vec<String>, Vec<String>) {
    (
        ["x", "y", "theta"].iter().map(|s| s.to_string()).collect(),
        ["v_x", "v_y", "omega"].iter().map(|s| s.to_string()).collect(),
    )
}

/// Midpoint rule, Glocker–Studer LCP, Lemke, tol 1e-12, warm starts (the planar scenes'
/// and the woodpecker's options).
pub(super) fn midpoint_gs() -> StepOptions {
    StepOptions {
        scheme: Scheme::Midpoint,
        formulation: Formulation::GlockerStuder,
        solver: Some("lemke".into()),
        settings: Settings { tol: 1e-12, ..Settings::default() },
        warm_start: true,
        keep_problem: false,
        activation: Activation::Gap,
        ..StepOptions::default()
    }
}

fn time_panel(traj: &Trajectory, title: &str, y_label: &str, curves: &[(&str, Vec<f64>)]) -> Panel {
    let t = traj.column("t").unwrap_or_default();
    Panel {
        title: title.into(),
        x_label: "t [s]".into(),
        y_label: y_label.into(),
        series: curves
            .iter()
            .map(|(name, v)| Series {
                name: name.to_string(),
                points: t.iter().copied().zip(v.iter().copied()).collect(),
                dashed: false,
            })
            .collect(),
    }
}

/// Rows of a trajectory as `(q, u)` pairs (columns after `t`), for derived curves.
fn states(traj: &Trajectory) -> impl Iterator<Item = (&[f64], &[f64])> {
    traj.rows.iter().map(|r| (&r[1..4], &r[4..7]))
}

/// Moreau's "frictional catastrophe" (Moreau 1988 §14–15, example 15.3): a round-tipped rigid body
/// moving in a vertical plane, gravity, a horizontal floor with μ = 0.5; it starts in contact
/// with negative angular velocity and its tip sliding to the right.
///
/// Geometry (ours; the text gives none): the tip is a circle of radius ρ whose centre lies at
/// distance d from the centre of mass along the body axis at angle θ, `C = G + d (cos θ,
/// sin θ)`; with `−π/2 < θ < 0` the tip is ahead of and below G. The contact is the lowest
/// point of the tip: gap `y + d sin θ − ρ`, offset `r = (d cos θ, d sin θ − ρ)`. While the tip
/// slides right, friction `−μN` acts at r, and the coefficient of N in the normal acceleration
/// of the contact point (the analogue of Stewart 2000 eq. 1.5) is
/// [`FrictionalCatastrophe::sliding_coefficient`] `= 1/m + d cos θ (d cos θ − μ (ρ − d sin θ)) / J`.
/// Turning clockwise (θ decreasing) drives it to zero: the normal force grows without bound
/// and the sliding deceleration tends to −∞ (Moreau: "the rate of change of the sliding
/// velocity tends to −∞ on the left of the catastrophic instant"). Then a percussion stops
/// (part of) the sliding, the contact breaks with zero normal velocity, and the clockwise spin
/// grows. The mass is concentrated near G (small `J/(m d²)`), as for a hammer: with a uniform
/// rod (`J/(m d²) = 1/3`) μ = 0.5 is far too small for this.
///
/// Defaults: `m = 1`, `J = 0.02`, `d = 1`, `ρ = 0.05`, `μ = 0.5`, θ₀ = −55°, ω₀ = −3 rad/s,
/// initial slip 1.5 m/s to the right, normal velocity 0.
#[derive(Clone, Debug)]
pub struct FrictionalCatastrophe {
    /// Mass (kg).
    pub m: f64,
    /// Moment of inertia about G (kg m²).
    pub j: f64,
    /// Distance from G to the centre of the tip (m).
    pub d: f64,
    /// Radius of the tip ρ (m).
    pub rho: f64,
    /// Friction coefficient μ.
    pub mu: f64,
    /// Initial body angle θ₀ (rad).
    pub theta0: f64,
    /// Initial angular velocity ω₀ (rad/s) (negative: clockwise).
    pub omega0: f64,
    /// Initial sliding velocity of the contact point (m/s) (positive: to the right).
    pub slip0: f64,
}

impl Default for FrictionalCatastrophe {
    fn default() -> Self {
        FrictionalCatastrophe::new()
    }
}

impl FrictionalCatastrophe {
    /// The default configuration (see the type's docs).
    pub fn new() -> FrictionalCatastrophe {
        FrictionalCatastrophe {
            m: 1.0,
            j: 0.02,
            d: 1.0,
            rho: 0.05,
            mu: 0.5,
            theta0: -55f64.to_radians(),
            omega0: -3.0,
            slip0: 1.5,
        }
    }

    /// Offset of the tip's lowest point from G at angle θ.
    pub fn contact_offset(&self, theta: f64) -> [f64; 2] {
        let (s, c) = theta.sin_cos();
        [self.d * c, self.d * s - self.rho]
    }

    /// The gap of the tip.
    pub fn gap(&self, q: &[f64]) -> f64 {
        q[1] + self.contact_offset(q[2])[1]
    }

    /// Horizontal velocity of the body's lowest particle (the sliding velocity in contact).
    pub fn slip_velocity(&self, q: &[f64], u: &[f64]) -> f64 {
        u[0] - u[2] * self.contact_offset(q[2])[1]
    }

    /// Vertical velocity of the lowest particle (the normal velocity in contact).
    pub fn normal_velocity(&self, q: &[f64], u: &[f64]) -> f64 {
        u[1] + u[2] * self.contact_offset(q[2])[0]
    }

    /// The coefficient of N in the normal acceleration of the sliding contact (sliding right,
    /// friction −μN): `1/m + d cos θ (d cos θ − μ (ρ − d sin θ)) / J`.
    pub fn sliding_coefficient(&self, theta: f64) -> f64 {
        let [rx, ry] = self.contact_offset(theta);
        1.0 / self.m + rx * (rx - self.mu * (-ry)) / self.j
    }
}

planar_system!(FrictionalCatastrophe, |s, q, h|
    mass: (s.m, s.j),
    forces: gravity(s.m, h),
    contacts: vec![point_contact(s.gap(q), s.contact_offset(q[2]), s.mu)],
);

impl Scene for FrictionalCatastrophe {
    fn name(&self) -> String {
        "frictional-catastrophe".into()
    }
    fn description(&self) -> String {
        "a round-tipped body slides, then jams: sliding velocity drops, contact breaks, spin grows \
         (Moreau 1988, example 15.3)"
            .into()
    }
    /// In contact (gap 0) with zero normal velocity, slip `slip0`, spin `omega0`.
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        let [rx, ry] = self.contact_offset(self.theta0);
        let w = self.omega0;
        (vec![0.0, -ry, self.theta0], vec![self.slip0 + w * ry, -w * rx, w])
    }
    // Moreau's midpoint algorithm (Moreau 1988 §15) with the Glocker–Studer LCP.
    planar_scene_defaults!(1e-4, 0.3);
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        Some(kinetic(self.m, self.j, u) + self.m * G * q[1])
    }
    /// Figure 15.2: the horizontal velocity of the lowest particle against time; and ω.
    fn panels(&self, traj: &Trajectory) -> Vec<Panel> {
        let slip = states(traj).map(|(q, u)| self.slip_velocity(q, u)).collect();
        let omega = traj.column("omega").unwrap_or_default();
        vec![
            time_panel(traj, "lowest particle", "horizontal velocity [m/s]", &[("slip", slip)]),
            time_panel(traj, "spin", "ω [rad/s]", &[("omega", omega)]),
        ]
    }
}

/// A ball (disk section of a solid sphere, `J = 2/5 m R²`) dropped onto the floor, with
/// Newton restitution `ε_N` (Glocker–Studer 2005 eq. 11) and Coulomb friction.
///
/// Defaults: `m = 1`, `R = 0.1`, `ε_N = 0.8`, `μ = 0.3`, dropped from 1 m (lowest point above
/// the floor) with `v_x = 0.5 m/s`, no spin.
#[derive(Clone, Debug)]
pub struct BouncingBall {
    /// Mass (kg).
    pub m: f64,
    /// Radius R (m).
    pub r: f64,
    /// Normal restitution ε_N.
    pub eps_n: f64,
    /// Friction coefficient μ.
    pub mu: f64,
    /// Initial height of the lowest point above the floor (m).
    pub h0: f64,
    /// Initial horizontal velocity (m/s).
    pub vx0: f64,
}

impl Default for BouncingBall {
    fn default() -> Self {
        BouncingBall::new()
    }
}

impl BouncingBall {
    /// The default configuration (see the type's docs).
    pub fn new() -> BouncingBall {
        BouncingBall { m: 1.0, r: 0.1, eps_n: 0.8, mu: 0.3, h0: 1.0, vx0: 0.5 }
    }

    /// `J = 2/5 m R²`.
    pub fn inertia(&self) -> f64 {
        0.4 * self.m * self.r * self.r
    }
}

planar_system!(BouncingBall, |s, q, h|
    mass: (s.m, s.inertia()),
    forces: gravity(s.m, h),
    contacts: vec![point_contact(q[1] - s.r, [0.0, -s.r], s.mu).with_restitution(s.eps_n, 0.0)],
);

impl Scene for BouncingBall {
    fn name(&self) -> String {
        "bouncing-ball".into()
    }
    fn description(&self) -> String {
        "a ball dropped on the floor, Newton restitution ε_N = 0.8 and friction (Glocker–Studer 2005 eq. 11)"
            .into()
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![0.0, self.r + self.h0, 0.0], vec![self.vx0, 0.0, 0.0])
    }
    planar_scene_defaults!(1e-3, 3.0);
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        Some(kinetic(self.m, self.inertia(), u) + self.m * G * q[1])
    }
    /// Height and vertical velocity against time.
    fn panels(&self, traj: &Trajectory) -> Vec<Panel> {
        let y = traj.column("y").unwrap_or_default();
        let vy = traj.column("v_y").unwrap_or_default();
        vec![
            time_panel(traj, "height", "y [m]", &[("y", y)]),
            time_panel(traj, "vertical velocity", "v_y [m/s]", &[("v_y", vy)]),
        ]
    }
}

/// A rectangular block on an incline of angle α, written in the incline's frame: `x` along
/// the slope (downhill), `y` normal to it, θ the tilt; gravity `m g (sin α, −cos α)`. The four
/// corners are contact candidates (gap `y + r_y`), each with friction μ. Starting at rest,
/// the block sticks when `μ ≥ tan α` and otherwise slides with the acceleration
/// `g (sin α − μ cos α)`; at α = 0 it rests, and the normal impulses of a step sum to `m g Δt`.
///
/// The block starts flat with a penetration of `settle` (default 1e-9 m): a settled resting
/// contact. (With a gap of exactly 0, round-off in the solved velocity may open the contact by
/// 1e-20 m, and the midpoint rule then lets the block fall freely for one step.)
///
/// Defaults (`block-incline`): `m = 1`, width 0.2, height 0.1, α = 30°, μ = 0.3 (sliding).
#[derive(Clone, Debug)]
pub struct BlockIncline {
    /// Mass (kg).
    pub m: f64,
    /// Width (along the slope) (m).
    pub width: f64,
    /// Height (m).
    pub height: f64,
    /// Incline angle α (rad).
    pub alpha: f64,
    /// Friction coefficient μ.
    pub mu: f64,
    /// Initial velocity along the slope (m/s).
    pub v0: f64,
    /// Initial penetration (m).
    pub settle: f64,
}

impl Default for BlockIncline {
    fn default() -> Self {
        BlockIncline::new(30f64.to_radians(), 0.3)
    }
}

impl BlockIncline {
    /// A block at rest on an incline of angle `alpha` (rad) with friction `mu`.
    pub fn new(alpha: f64, mu: f64) -> BlockIncline {
        BlockIncline { m: 1.0, width: 0.2, height: 0.1, alpha, mu, v0: 0.0, settle: 1e-9 }
    }

    /// A block resting on level ground (α = 0, μ = 0.5).
    pub fn resting() -> BlockIncline {
        BlockIncline::new(0.0, 0.5)
    }

    /// `J = m (w² + h²) / 12`.
    pub fn inertia(&self) -> f64 {
        self.m * (self.width * self.width + self.height * self.height) / 12.0
    }

    /// Corner offsets from the centre at tilt θ: bottom-back, bottom-front, top-front, top-back.
    pub fn corners(&self, theta: f64) -> [[f64; 2]; 4] {
        let (s, c) = theta.sin_cos();
        let (a, b) = (0.5 * self.width, 0.5 * self.height);
        [[-a, -b], [a, -b], [a, b], [-a, b]].map(|[x, y]| [c * x - s * y, s * x + c * y])
    }
}

planar_system!(BlockIncline, |s, q, h|
    mass: (s.m, s.inertia()),
    forces: {
        h[0] = s.m * G * s.alpha.sin();
        h[1] = -s.m * G * s.alpha.cos();
        h[2] = 0.0;
    },
    contacts: s.corners(q[2]).iter().map(|r| point_contact(q[1] + r[1], *r, s.mu)).collect(),
);

impl Scene for BlockIncline {
    fn name(&self) -> String {
        "block-incline".into()
    }
    fn description(&self) -> String {
        "a block on a 30° incline with μ = 0.3 slides with acceleration g (sin α − μ cos α)".into()
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![0.0, 0.5 * self.height - self.settle, 0.0], vec![self.v0, 0.0, 0.0])
    }
    planar_scene_defaults!(1e-3, 1.0);
    /// Kinetic energy plus `m g (y cos α − x sin α)`.
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        let (s, c) = self.alpha.sin_cos();
        Some(kinetic(self.m, self.inertia(), u) + self.m * G * (q[1] * c - q[0] * s))
    }
}

/// This module's scenes.
pub fn catalog() -> Vec<SceneInfo> {
    vec![
        SceneInfo {
            name: "painleve-rod",
            description: "Painlevé's rod: sliding stopped by an impulse (Stewart 2000 §1.3, eq. 1.4–1.6)",
            default_size: None,
            build: |_| Ok(Box::new(PainleveRod::new())),
        },
        SceneInfo {
            name: "painleve-impact",
            description:
                "a spinning rod falls on the table, inelastic frictional impact (Stewart 2000 fig. 2.4)",
            default_size: None,
            build: |_| Ok(Box::new(PainleveImpact::new())),
        },
        SceneInfo {
            name: "frictional-catastrophe",
            description: "Moreau's frictional catastrophe: sliding, jamming, lift-off (Moreau 1988 ex. 15.3)",
            default_size: None,
            build: |_| Ok(Box::new(FrictionalCatastrophe::new())),
        },
        SceneInfo {
            name: "bouncing-ball",
            description: "a ball dropped on the floor, ε_N = 0.8, μ = 0.3",
            default_size: None,
            build: |_| Ok(Box::new(BouncingBall::new())),
        },
        SceneInfo {
            name: "block-incline",
            description: "a block sliding down a 30° incline, μ = 0.3: a = g (sin α − μ cos α)",
            default_size: None,
            build: |_| Ok(Box::new(BlockIncline::default())),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every contact's normal row is the gradient of its gap (central differences).
    #[test]
    fn normal_rows_are_gap_gradients() {
        let systems: Vec<Box<dyn Scene>> = catalog().iter().map(|s| (s.build)(0).unwrap()).collect();
        let q = [0.3, 0.2, -0.7];
        for s in &systems {
            let c = s.contacts(&q, 0.0);
            for j in 0..3 {
                let (mut qp, mut qm) = (q, q);
                qp[j] += 1e-6;
                qm[j] -= 1e-6;
                let (cp, cm) = (s.contacts(&qp, 0.0), s.contacts(&qm, 0.0));
                for (i, ci) in c.iter().enumerate() {
                    let d = (cp[i].gap - cm[i].gap) / 2e-6;
                    let mut e = [0.0; 3];
                    e[j] = 1.0;
                    let w = ci.normal.dot(&e);
                    assert!((w - d).abs() < 1e-8, "{} contact {i} dof {j}: {w} vs {d}", s.name());
                }
            }
        }
    }

    /// The tangent row is the horizontal velocity of the contact point, by differencing its
    /// position along a motion.
    #[test]
    fn tangent_rows_are_point_velocities() {
        let fc = FrictionalCatastrophe::new();
        let (q, u) = ([0.1, 0.9, -0.8], [0.4, -0.3, 2.0]);
        let h = 1e-7;
        let qp: Vec<f64> = q.iter().zip(&u).map(|(a, b)| a + h * b).collect();
        let qm: Vec<f64> = q.iter().zip(&u).map(|(a, b)| a - h * b).collect();
        // The lowest point of the round tip moves along the tip's surface: its horizontal
        // velocity as a material point is that of the tip centre plus ω × (0, −ρ).
        let centre = |q: &[f64]| q[0] + fc.d * q[2].cos();
        let v_centre = (centre(&qp) - centre(&qm)) / (2.0 * h);
        let v = v_centre + u[2] * fc.rho;
        let c = &fc.contacts(&q, 0.0)[0];
        assert!((c.tangents[0].dot(&u) - v).abs() < 1e-7, "{} vs {v}", c.tangents[0].dot(&u));
        assert!((fc.slip_velocity(&q, &u) - v).abs() < 1e-7);
    }
}
