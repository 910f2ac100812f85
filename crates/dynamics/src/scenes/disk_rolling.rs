//! A disk rolling on a line with rolling resistance, in the plane (`disk-rolling`): the planar
//! counterpart of [`super::spheres::SphereRolling`], posed with 2-D rolling contacts (local
//! dimension 3: normal, tangential, rolling; [`perp_cones::Rolling`] with d = 3).
//!
//! # The model
//!
//! A uniform body of revolution of mass m, radius R and moment of inertia `J = k m R²` about
//! its axis (k = ½ for a disk or cylinder, ⅖ for a ball moving in the plane) moves in the
//! vertical plane with `q = (x, y, θ)`, `u = (v_x, v_y, ω)` (ω counterclockwise), as the
//! scenes of [`super::planar`]. Its lowest point touches the line `y = 0` with the rows of
//! [`super::planar::point_contact`] at the offset `(0, −R)`: `w_N = (0, 1, 0)`,
//! `w_T = (1, 0, R)` (the point's velocity `v_x + R ω`), and one rolling row `w_R = (0, 0, R)`,
//! `R ω`, scaled by the radius as the sphere scene's are: its impulse acts on ω as a moment
//! `R r_R`, so the law `|r_R| ≤ μ_r r_N` bounds the rolling moment by `μ_r R N` and **μ_r is
//! dimensionless** (the rolling-resistance length is `μ_r R`).
//!
//! # The analytic motion
//!
//! While the body rolls to the right (`v > 0`, `ω = −v/R`), with N = m g, F the friction force
//! along x and M the rolling moment about the axis (Newton–Euler; the moment of F at `(0, −R)`
//! is `R F`):
//!
//! ```text
//!     m v̇ = F,    J ω̇ = R F + M,    v = −R ω  ⇒  v̇ = −M R / (J + m R²).
//! ```
//!
//! The moment is at its bound against the rolling, `M = μ_r R N`, so
//!
//! ```text
//!     a = v̇ = −μ_r g / (1 + k),   t* = (1 + k) v₀ / (μ_r g),   d = (1 + k) v₀² / (2 μ_r g),
//! ```
//!
//! the disk (k = ½) decelerating at `⅔ μ_r g` and the ball (k = ⅖) at `5/7 μ_r g` — the sphere
//! scene's value. A point mass whose resistance is a force `μ_r N` (no rotation, k = 0) would
//! stop within `v₀²/(2 μ_r g)`; the rotational energy `½ J ω²` lengthens it by the factor
//! `1 + k`. Rolling, not sliding, needs `|F| = m μ_r g k / (1 + k) ≤ μ m g`, that is
//! `μ_r k ≤ μ (1 + k)`, which [`DiskRolling::new`] checks. After t* the contact holds the body
//! at rest (the moment drops below its bound). The derivation is this file's, as the sphere's
//! is (the papers have no rolling resistance); the law, a rolling moment bounded by μ_r times
//! the normal force, is that of Siconos' `RollingFrictionContactProblem` (its 2-D form,
//! `rolling_friction_2d_*` in numerics/src/RollingFrictionContact).
//!
//! # The discrete motion
//!
//! On Moreau's midpoint scheme with the exact cone the velocity is exact at every step (to
//! the solver's tolerance): the normal impulse is `m g Δt`, the rolling impulse `μ_r m g Δt`
//! while the body rolls, and in the step that holds t* the cone lets it drop below its bound
//! and the velocity lands on 0. The midpoint position update integrates the linear velocity
//! exactly except in that step, where it overshoots the stopping distance by at most
//! `|a| Δt² / 8`; the stop is seen at the first step end after t*, within Δt
//! (`crates/dynamics/tests/planar_rolling.rs` checks each).

use super::planar::{self, point_contact, G};
use super::{Panel, Scene, SceneInfo, Series};
use crate::stepper::StepOptions;
use crate::system::{Contact, Row, System};
use crate::trajectory::Trajectory;
use perp_core::{Error, Matrix};

/// A uniform disk (or any body of revolution, `J = k m R²`) rolling on the line `y = 0` with
/// rolling resistance (module docs).
#[derive(Clone, Debug)]
pub struct DiskRolling {
    m: f64,
    r: f64,
    k: f64,
    v0: f64,
    mu: f64,
    mu_r: f64,
}

impl DiskRolling {
    /// A body of mass `m` (kg), radius `r` (m) and inertia `k m r²` (`k > 0`: ½ a disk, ⅖ a
    /// ball) rolling without slipping from speed `v0 ≥ 0` (m/s, to the right), friction `mu`,
    /// rolling resistance `mu_r` (dimensionless: the moment bound `μ_r R N`). `Err`, naming the
    /// value, for values out of range and when the body would slide (`μ_r k > μ (1 + k)`).
    ///
    /// ```
    /// use perp_dynamics::scenes::disk_rolling::DiskRolling;
    /// let d = DiskRolling::new(1.0, 0.1, 0.5, 1.0, 0.5, 0.05).unwrap();
    /// assert!((d.acceleration() + 2.0 / 3.0 * 0.05 * 9.81).abs() < 1e-15);
    /// assert!(DiskRolling::new(1.0, 0.1, 0.5, 1.0, 0.01, 0.05).is_err()); // it would slide
    /// assert!(DiskRolling::new(1.0, -0.1, 0.5, 1.0, 0.5, 0.05).unwrap_err().to_string().contains("radius"));
    /// ```
    pub fn new(m: f64, r: f64, k: f64, v0: f64, mu: f64, mu_r: f64) -> Result<DiskRolling, Error> {
        for (what, x) in [("mass", m), ("radius", r), ("k (inertia J = k m R²)", k)] {
            if !(x.is_finite() && x > 0.0) {
                return Err(Error::setting(what, x, "must be finite and > 0"));
            }
        }
        for (what, x) in [("v0", v0), ("mu", mu), ("mu_r", mu_r)] {
            if !(x.is_finite() && x >= 0.0) {
                return Err(Error::setting(what, x, "must be finite and ≥ 0"));
            }
        }
        if mu_r * k > mu * (1.0 + k) {
            return Err(Error::setting(
                "mu",
                mu,
                &format!(
                    "the body would slide: rolling needs μ ≥ μ_r k / (1 + k) = {}",
                    mu_r * k / (1.0 + k)
                ),
            ));
        }
        Ok(DiskRolling { m, r, k, v0, mu, mu_r })
    }

    /// `disk-rolling`: a disk of 1 kg and radius 0.1 m from 1 m/s, μ = 0.5, μ_r = 0.05: it
    /// decelerates at `⅔ μ_r g ≈ 0.327 m/s²` and stops after `t* ≈ 3.058 s` and `≈ 1.529 m`.
    pub fn disk() -> DiskRolling {
        DiskRolling::new(1.0, 0.1, 0.5, 1.0, 0.5, 0.05).expect("valid parameters")
    }

    /// The same body from another initial speed; `Err` as [`DiskRolling::new`].
    pub fn with_v0(&self, v0: f64) -> Result<DiskRolling, Error> {
        DiskRolling::new(self.m, self.r, self.k, v0, self.mu, self.mu_r)
    }

    /// Mass m (kg).
    pub fn mass_kg(&self) -> f64 {
        self.m
    }

    /// Radius R (m).
    pub fn radius(&self) -> f64 {
        self.r
    }

    /// Rolling coefficient μ_r (dimensionless).
    pub fn mu_r(&self) -> f64 {
        self.mu_r
    }

    /// The moment of inertia `k m R²`.
    pub fn inertia(&self) -> f64 {
        self.k * self.m * self.r * self.r
    }

    /// `−μ_r g / (1 + k)`, the acceleration while it rolls.
    pub fn acceleration(&self) -> f64 {
        -self.mu_r * G / (1.0 + self.k)
    }

    /// The time it comes to rest, `(1 + k) v₀ / (μ_r g)` (`+∞` when μ_r = 0 and v₀ > 0).
    pub fn stop_time(&self) -> f64 {
        if self.v0 == 0.0 {
            0.0
        } else {
            self.v0 / -self.acceleration()
        }
    }

    /// The distance it rolls before it stops, `(1 + k) v₀² / (2 μ_r g)`.
    pub fn stopping_distance(&self) -> f64 {
        self.distance(f64::INFINITY)
    }

    /// The exact velocity `(v_x, v_y, ω)` at time t: `v_x = max(0, v₀ + a t)`, `ω = −v_x / R`.
    pub fn analytic(&self, t: f64) -> [f64; 3] {
        let v = (self.v0 + self.acceleration() * t).max(0.0);
        [v, 0.0, -v / self.r]
    }

    /// The exact distance rolled by time t.
    pub fn distance(&self, t: f64) -> f64 {
        let s = t.min(self.stop_time());
        if s == 0.0 {
            return 0.0;
        }
        self.v0 * s + 0.5 * self.acceleration() * s * s
    }
}

impl System for DiskRolling {
    fn dofs(&self) -> usize {
        3
    }
    fn mass(&self, _q: &[f64], _t: f64) -> Matrix {
        planar::body_mass(self.m, self.inertia())
    }
    fn constant_mass(&self) -> bool {
        true
    }
    fn forces(&self, _q: &[f64], _u: &[f64], _t: f64, h: &mut [f64]) {
        h.copy_from_slice(&[0.0, -self.m * G, 0.0]);
    }
    /// The lowest point on `y = 0` (module docs): normal, tangent and the rolling row `R ω`.
    fn contacts(&self, q: &[f64], _t: f64) -> Vec<Contact> {
        let c = point_contact(q[1] - self.r, [0.0, -self.r], self.mu);
        vec![c.with_rolling(vec![Row::dense(&[0.0, 0.0, self.r])], self.mu_r)]
    }
}

impl Scene for DiskRolling {
    fn name(&self) -> String {
        "disk-rolling".into()
    }
    fn description(&self) -> String {
        format!(
            "planar disk rolling on a line, μ = {}, μ_r = {} (moment bound μ_r R N, 2-D rolling contact): \
             a = −μ_r g / (1 + k) = {:.6} m/s², stops after {:.6} m (issue 35)",
            self.mu,
            self.mu_r,
            self.acceleration(),
            self.stopping_distance()
        )
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![0.0, self.r, 0.0], self.analytic(0.0).to_vec())
    }
    fn default_dt(&self) -> f64 {
        0.01
    }
    fn default_t_end(&self) -> f64 {
        4.0
    }
    /// The exact rolling cone on Moreau's midpoint scheme, `nsgs` to 10⁻¹².
    fn default_options(&self) -> StepOptions {
        super::midpoint_cone_nsgs()
    }
    fn state_names(&self) -> (Vec<String>, Vec<String>) {
        planar::planar_names()
    }
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        Some(planar::kinetic(self.m, self.inertia(), u) + self.m * G * q[1])
    }
    /// Position and velocity against time, with the analytic curves dashed.
    fn panels(&self, traj: &Trajectory) -> Vec<Panel> {
        let t = traj.column("t").unwrap_or_default();
        let t_end = t.last().copied().unwrap_or(self.default_t_end());
        let grid: Vec<f64> = (0..=400).map(|i| t_end * i as f64 / 400.0).collect();
        let panel = |col: &str, title: &str, y_label: &str, exact: &dyn Fn(f64) -> f64| {
            let mut series = super::time_series(traj, &[col.to_string()]);
            series.push(Series {
                name: format!("{col} (exact)"),
                points: grid.iter().map(|&s| (s, exact(s))).collect(),
                dashed: true,
            });
            Panel { title: title.into(), x_label: "t [s]".into(), y_label: y_label.into(), series }
        };
        vec![
            panel("x", "distance rolled", "x [m]", &|s| self.distance(s)),
            panel("v_x", "velocity", "v_x [m/s]", &|s| self.analytic(s)[0]),
        ]
    }
}

/// This module's scene.
pub fn catalog() -> Vec<SceneInfo> {
    vec![SceneInfo {
        name: "disk-rolling",
        description:
            "planar disk rolling on a line with rolling resistance μ_r = 0.05 (2-D rolling contact): \
                      decelerates at ⅔ μ_r g, stops within 3 v₀² / (4 μ_r g) (issue 35)",
        default_size: None,
        build: |_| Ok(Box::new(DiskRolling::disk())),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rows_are_the_contact_point_velocity_and_r_omega() {
        let d = DiskRolling::disk();
        let (q, u) = d.initial_state();
        let c = &d.contacts(&q, 0.0)[0];
        assert_eq!((c.dim(), c.gap), (3, 0.0));
        c.validate(0, 3).unwrap();
        // Rolling without slipping: the point is at rest, R ω = −v₀.
        let local: Vec<f64> = c.rows().map(|r| r.dot(&u)).collect();
        assert_eq!(local, [0.0, 0.0, -1.0]);
    }

    #[test]
    fn the_closed_form_is_consistent() {
        let d = DiskRolling::disk();
        let (a, t) = (d.acceleration(), d.stop_time());
        assert!((a * t + 1.0).abs() < 1e-15);
        assert!((d.stopping_distance() - 1.5 / (2.0 * 0.05 * G)).abs() < 1e-14);
        assert_eq!(d.analytic(t + 1.0), [0.0, 0.0, 0.0]);
        // k → 0 is the point mass with a resisting force μ_r N: v₀²/(2 μ_r g).
        let point = DiskRolling::new(1.0, 0.1, 1e-12, 1.0, 0.5, 0.05).unwrap();
        assert!((point.stopping_distance() - 1.0 / (2.0 * 0.05 * G)).abs() < 1e-9);
        assert_eq!(d.with_v0(0.0).unwrap().stopping_distance(), 0.0);
    }
}
