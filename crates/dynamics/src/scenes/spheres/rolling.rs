//! A sphere rolling with rolling resistance (issue 35 item 5): on a level plane it decelerates
//! at a constant rate and stops; on an incline the resistance holds it below a critical angle
//! and lets it roll, at a constant acceleration, above.
//!
//! # The contact and the convention for μ_r
//!
//! One contact with the plane, five local rows (all velocities, m/s):
//!
//! ```text
//! (u_N, u_T1, u_T2, u_R1, u_R2) = (n̂·v_p, t̂·v_p, ô·v_p, R ω·t̂, R ω·ô),   v_p = v + ω × (−R n̂),
//! ```
//!
//! the normal and sliding velocities of the contact point and the relative angular velocity
//! about the two tangent axes **scaled by the radius R**, with the rolling cone
//! `{‖r_T‖ ≤ μ r_N, ‖r_R‖ ≤ μ_r r_N}` ([`perp_cones::Rolling`], `ConeSpec::Rolling { mu_r }`).
//! The generalized impulse of the rolling rows is `Jᵀ r_R = R (r_R1 t̂ + r_R2 ô)` on ω, so the
//! rolling *moment* is `R r_R`: the law is `‖M_R‖ ≤ μ_r R N` and **μ_r is dimensionless** (the
//! moment arm is a fraction μ_r of the radius). With the same cone but unscaled rows (the
//! angular velocity itself, in rad/s) μ_r would be a length and the moment bound `μ_r N`; the
//! two agree when `μ_r(length) = μ_r R`, which is the conversion to apply when comparing with
//! a rolling problem posed in angular velocities. Scaling keeps the five rows in one unit, so
//! the contact's Delassus block is balanced.
//!
//! # The analytic motion
//!
//! The plane is `z = 0` of the incline's frame: x̂ down the slope, ẑ its outward normal; the
//! incline at angle α is modelled by tilting gravity, `g⃗ = g (sin α, 0, −cos α)`. A uniform
//! solid sphere (mass m, radius R, `I = ⅖ m R²`) rolls along x with speed v and spin ω_y; with
//! F the friction force along x at the contact point `p = −R ẑ` and `M_y` the rolling moment,
//!
//! ```text
//! m v̇ = m g sin α + F,                  (p × F x̂)_y = −R F,
//! I ω̇_y = −R F + M_y,                   N = m g cos α   (u_N = 0: the sphere stays on the plane).
//! ```
//!
//! Rolling without slipping (`v = R ω_y`, so `v̇ = R ω̇_y`) eliminates F:
//! `(I/R² + m) v̇ = m g sin α + M_y / R`. While the sphere rolls (v > 0) maximal dissipation
//! puts the moment at the bound against the rolling, `M_y = −μ_r R N`, and with `I/R² = ⅖ m`
//!
//! ```text
//! a = v̇ = 5/7 · g (sin α − μ_r cos α).
//! ```
//!
//! * Level plane (`sphere-rolling`, α = 0, v(0) = v₀ > 0): `v(t) = v₀ − (5/7) μ_r g t` until
//!   `t* = 7 v₀ / (5 μ_r g)`, then `v = 0` for good (at rest no force asks for a moment).
//! * Incline from rest (`sphere-rolling-slope`, v(0) = 0): at rest `F = −m g sin α` and the
//!   moment needed is `M_y = R F`, inside the bound iff `R m g sin α ≤ μ_r R m g cos α`, i.e.
//!   **`tan α ≤ μ_r`**: below the critical angle the sphere stays at rest; above it rolls
//!   with `a = 5/7 g (sin α − μ_r cos α) > 0`.
//!
//! In both cases (v₀ ≥ 0, α ≥ 0) `v(t) = max(0, v₀ + a t)` and `ω_y = v / R`.
//! Rolling, not sliding, needs `|F| ≤ μ N`: with `F = m a − m g sin α`,
//! `(2 tan α + 5 μ_r) / 7 ≤ μ` (at rest `tan α ≤ μ`) — [`SphereRolling::new`] refuses
//! parameters that would slide. The equations of motion are those of Trinkle–Tzitzouris–Pang 2001 §4.1 (eq. 3:
//! `M = diag(m E₃, ⅖ m R² E₃)`, the contact point's velocity `v + ω × (−R n̂)`, the
//! derivation of the sliding-to-rolling time of §4.1.3), with the rolling moment added; the
//! derivation above is this file's (the seeds have no rolling resistance).
//!
//! # The discrete motion
//!
//! On Moreau's midpoint scheme with the exact cone the step reproduces the analytic velocity
//! at every step (to the solver's tolerance): the normal impulse is `m g cos α Δt`, the
//! rolling impulse saturates at `μ_r` times it while the sphere rolls, and in the step where
//! the exact sphere stops the cone lets the moment drop below its bound and the velocity lands
//! on 0. So the velocity has no discretization error; the stop is quantized, the first step end
//! with v = 0 lies in `[t*, t* + Δt)` (an O(Δt) bound on the stop time), and the midpoint
//! position update (the trapezoid rule on a velocity linear in t) is exact except in the
//! stopping step, where it overshoots the stopping distance `v₀²/(2|a|)` by at most
//! `|a| Δt²/8`. On the semi-implicit Euler scheme (`q ← q + Δt u⁺`, velocities as above) the
//! distance rolled lags by `|a| t Δt / 2`: first order, halving with Δt
//! (`crates/dynamics/tests/rolling.rs` checks each of these).

use super::*;
use perp_core::Error;

/// A uniform solid sphere rolling with rolling resistance on a plane, level or inclined
/// (module docs): mass 2 kg, radius 0.25 m, μ = 0.5, μ_r = 0.1 (dimensionless: the moment
/// bound is μ_r R N).
#[derive(Clone, Debug)]
pub struct SphereRolling {
    name: &'static str,
    mu: f64,
    mu_r: f64,
    alpha: f64,
    v0: f64,
    dt: f64,
    t_end: f64,
}

impl SphereRolling {
    /// Mass (kg).
    pub const MASS: f64 = 2.0;
    /// Radius R (m).
    pub const RADIUS: f64 = 0.25;

    /// A sphere rolling without slipping down the incline at angle `alpha` (radians,
    /// `0 ≤ α < π/2`) from speed `v0 ≥ 0` (m/s, spin `ω_y = v0 / R`), friction `mu`, rolling
    /// resistance `mu_r` (dimensionless, the moment bound `μ_r R N`). `Err` for values out of
    /// range and for parameters under which the sphere would slide (module docs:
    /// `(2 tan α + 5 μ_r)/7 ≤ μ` and `tan α ≤ μ`), where the analytic motion does not hold.
    ///
    /// ```
    /// use perp_dynamics::scenes::spheres::SphereRolling;
    /// let s = SphereRolling::new(1.0, 0.0, 0.5, 0.1).unwrap();
    /// assert!((s.acceleration() + 5.0 / 7.0 * 0.1 * 9.81).abs() < 1e-15);
    /// assert!(SphereRolling::new(1.0, 0.0, 0.05, 0.1).is_err()); // μ < 5 μ_r / 7: it slides
    /// ```
    pub fn new(v0: f64, alpha: f64, mu: f64, mu_r: f64) -> Result<SphereRolling, Error> {
        if !(v0.is_finite() && v0 >= 0.0) {
            return Err(Error::setting("v0", v0, "the initial speed must be finite and ≥ 0"));
        }
        if !(0.0..std::f64::consts::FRAC_PI_2).contains(&alpha) {
            return Err(Error::setting("alpha", alpha, "the incline's angle must lie in [0, π/2)"));
        }
        for (what, x) in [("mu", mu), ("mu_r", mu_r)] {
            if !(x.is_finite() && x >= 0.0) {
                return Err(Error::setting(what, x, "must be finite and ≥ 0"));
            }
        }
        let tan = alpha.tan();
        if (2.0 * tan + 5.0 * mu_r) / 7.0 > mu || tan > mu {
            return Err(Error::setting(
                "mu",
                mu,
                &format!(
                    "the sphere would slide: rolling needs μ ≥ max((2 tan α + 5 μ_r)/7, tan α) = {}",
                    ((2.0 * tan + 5.0 * mu_r) / 7.0).max(tan)
                ),
            ));
        }
        Ok(SphereRolling { name: "sphere-rolling", mu, mu_r, alpha, v0, dt: 0.01, t_end: 2.0 })
    }

    /// `sphere-rolling`: level plane, `v₀ = 1 m/s`, μ = 0.5, μ_r = 0.1, `Δt = 0.01` for 2 s;
    /// it stops at `t* = 7 v₀/(5 μ_r g) ≈ 1.427 s`.
    pub fn level() -> SphereRolling {
        SphereRolling::new(1.0, 0.0, 0.5, 0.1).expect("valid parameters")
    }

    /// `sphere-rolling-slope`: from rest on a 10° incline (above the critical angle
    /// `atan μ_r ≈ 5.71°`), μ = 0.5, μ_r = 0.1, `Δt = 0.01` for 2 s; it rolls down at
    /// `a = 5/7 g (sin 10° − 0.1 cos 10°) ≈ 0.527 m/s²`.
    pub fn slope() -> SphereRolling {
        let s = SphereRolling::new(0.0, 10f64.to_radians(), 0.5, 0.1).expect("valid parameters");
        SphereRolling { name: "sphere-rolling-slope", ..s }
    }

    /// The same sphere on an incline at `alpha` (radians); `Err` as [`SphereRolling::new`].
    pub fn with_alpha(&self, alpha: f64) -> Result<SphereRolling, Error> {
        let s = SphereRolling::new(self.v0, alpha, self.mu, self.mu_r)?;
        Ok(SphereRolling { name: self.name, dt: self.dt, t_end: self.t_end, ..s })
    }

    /// Rolling coefficient μ_r (dimensionless).
    pub fn mu_r(&self) -> f64 {
        self.mu_r
    }

    /// Friction coefficient μ.
    pub fn mu(&self) -> f64 {
        self.mu
    }

    /// The incline's angle α (radians).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The critical angle `atan μ_r`: at rest the sphere is held iff `α ≤ atan μ_r`.
    pub fn critical_angle(&self) -> f64 {
        self.mu_r.atan()
    }

    /// `5/7 g (sin α − μ_r cos α)`, the acceleration down the slope while the sphere rolls
    /// (negative: it decelerates).
    pub fn acceleration(&self) -> f64 {
        5.0 / 7.0 * G * (self.alpha.sin() - self.mu_r * self.alpha.cos())
    }

    /// The time the sphere comes to rest, `v₀ / |a|` when it decelerates; 0 when it starts at
    /// rest and is held; `+∞` when it never stops.
    pub fn stop_time(&self) -> f64 {
        let a = self.acceleration();
        if a < 0.0 {
            self.v0 / -a
        } else if self.v0 == 0.0 && a == 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    }

    /// The exact velocity `(v, ω)` at time t: `v_x = max(0, v₀ + a t)`, `ω_y = v_x / R`.
    pub fn analytic(&self, t: f64) -> [f64; 6] {
        let v = (self.v0 + self.acceleration() * t).max(0.0);
        [v, 0.0, 0.0, 0.0, v / Self::RADIUS, 0.0]
    }

    /// The exact distance rolled by time t (along x).
    pub fn distance(&self, t: f64) -> f64 {
        let s = t.min(self.stop_time());
        self.v0 * s + 0.5 * self.acceleration() * s * s
    }

    /// Gravity in the incline's frame, `g (sin α, 0, −cos α)`.
    fn gravity(&self) -> [f64; 3] {
        [G * self.alpha.sin(), 0.0, -G * self.alpha.cos()]
    }
}

/// The frame of the plane: normal ẑ, tangents x̂ (down the slope) and ŷ.
const FRAME: [[f64; 3]; 3] = [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

/// The rolling contact of sphere `a` (center `c`, radius `r`) with the plane `z = 0` in `out`
/// (module docs): the rows of [`sphere_plane`] without twist, then `R ω·t̂`, `R ω·ô`, and the
/// rolling cone with coefficients `mu`, `mu_r`.
fn set_rolling_contact(out: &mut Contact, a: usize, c: [f64; 3], r: f64, mu: f64, mu_r: f64) {
    set_contact_rows(out, a, r, None, FRAME, false);
    out.rolling.resize_with(2, Row::default);
    for (row, dir) in out.rolling.iter_mut().zip([FRAME[1], FRAME[2]]) {
        row.0.clear();
        row.0.extend((0..3).map(|i| (NU * a + 3 + i, r * dir[i])));
    }
    out.gap = rigid::dot(FRAME[0], c) - r;
    out.bias.clear();
    out.drift.clear();
    out.mu = mu;
    out.restitution_n = 0.0;
    out.restitution_t = 0.0;
    out.cone = ConeSpec::Rolling { mu_r };
}

impl System for SphereRolling {
    one_sphere_system!(Self::MASS, Self::RADIUS);
    fn forces(&self, _q: &[f64], _u: &[f64], _t: f64, h: &mut [f64]) {
        h.iter_mut().for_each(|x| *x = 0.0);
        let g = self.gravity();
        (0..3).for_each(|i| h[i] = Self::MASS * g[i]);
    }
    fn contacts(&self, q: &[f64], t: f64) -> Vec<Contact> {
        let mut out = Vec::new();
        self.contacts_into(q, t, &mut out);
        out
    }
    fn contacts_into(&self, q: &[f64], _t: f64, out: &mut Vec<Contact>) {
        contacts_with(out, 1, |_, c| {
            set_rolling_contact(c, 0, rigid::position(q, 0), Self::RADIUS, self.mu, self.mu_r)
        });
    }
}

impl Scene for SphereRolling {
    fn name(&self) -> String {
        self.name.into()
    }
    fn description(&self) -> String {
        format!(
            "solid sphere rolling on a plane inclined at {:.2}°, μ = {}, μ_r = {} (moment bound μ_r R N): \
             a = 5/7 g (sin α − μ_r cos α) = {:.6} m/s² (issue 35)",
            self.alpha.to_degrees(),
            self.mu,
            self.mu_r,
            self.acceleration()
        )
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        let q = vec![0.0, 0.0, Self::RADIUS, 1.0, 0.0, 0.0, 0.0];
        (q, self.analytic(0.0).to_vec())
    }
    fn default_dt(&self) -> f64 {
        self.dt
    }
    fn default_t_end(&self) -> f64 {
        self.t_end
    }
    /// The exact rolling cone on Moreau's midpoint scheme, solved by `nsgs` (its local
    /// Alart–Curnier Newton takes the 5-D contact) to 10⁻¹².
    fn default_options(&self) -> StepOptions {
        crate::scenes::midpoint_cone_nsgs()
    }
    fn state_names(&self) -> (Vec<String>, Vec<String>) {
        body_names(1)
    }
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        let (m, r) = (Self::MASS, Self::RADIUS);
        let kinetic = 0.5 * m * u[..3].iter().map(|x| x * x).sum::<f64>()
            + 0.2 * m * r * r * u[3..6].iter().map(|x| x * x).sum::<f64>();
        let g = self.gravity();
        Some(kinetic - m * (0..3).map(|i| g[i] * q[i]).sum::<f64>())
    }
    fn panels(&self, traj: &Trajectory) -> Vec<Panel> {
        let (_, un) = self.state_names();
        let t = traj.column("t").unwrap_or_default();
        let mut series: Vec<Series> = super::super::time_series(traj, &[un[0].clone(), un[4].clone()]);
        let t_end = t.last().copied().unwrap_or(self.t_end);
        let grid: Vec<f64> = (0..=400).map(|k| t_end * k as f64 / 400.0).collect();
        for i in [0, 4] {
            series.push(Series {
                name: format!("{} (exact)", un[i]),
                points: grid.iter().map(|&s| (s, self.analytic(s)[i])).collect(),
                dashed: true,
            });
        }
        vec![Panel { title: self.name(), x_label: "t [s]".into(), y_label: "velocity".into(), series }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rows_are_the_contact_point_velocity_and_r_times_the_tangential_spin() {
        let s = SphereRolling::level();
        let (q, u) = s.initial_state();
        let c = &s.contacts(&q, 0.0)[0];
        assert_eq!((c.dim(), c.gap), (5, 0.0));
        assert!(matches!(c.cone, ConeSpec::Rolling { mu_r } if mu_r == 0.1));
        c.validate(0, NU).unwrap();
        // Rolling without slipping at v₀ = 1 along x: the point is at rest, R ω_y = v₀.
        let local: Vec<f64> = c.rows().map(|r| r.dot(&u)).collect();
        assert_eq!(local, [0.0, 0.0, 0.0, 0.0, 1.0]);
        // A spin about x rolls along −y: the contact point moves by +R ω_x along y.
        let w = [0.0, 0.0, 0.0, 2.0, 0.0, 0.0];
        let local: Vec<f64> = c.rows().map(|r| r.dot(&w)).collect();
        assert_eq!(local, [0.0, 0.0, 2.0 * SphereRolling::RADIUS, 2.0 * SphereRolling::RADIUS, 0.0]);
    }

    #[test]
    fn contact_buffers_pass_between_rolling_and_torsional_scenes() {
        let (rolling, spin) = (SphereRolling::slope(), SphereOnPlane::spin());
        let (qr, qs) = (rolling.initial_state().0, spin.q0.to_vec());
        let mut buf = rolling.contacts(&qr, 0.0);
        spin.contacts_into(&qs, 0.0, &mut buf);
        let fresh = spin.contacts(&qs, 0.0);
        assert!(buf[0].rolling.is_empty() && buf[0].twist.is_some());
        assert_eq!(format!("{buf:?}"), format!("{fresh:?}"));
        rolling.contacts_into(&qr, 0.0, &mut buf);
        assert_eq!(format!("{buf:?}"), format!("{:?}", rolling.contacts(&qr, 0.0)));
        assert!(buf[0].twist.is_none() && buf[0].rolling.len() == 2);
    }

    #[test]
    fn the_analytic_motion_is_continuous_and_stops_at_t_star() {
        let s = SphereRolling::level();
        let (a, t_star) = (s.acceleration(), s.stop_time());
        assert!((a * t_star + 1.0).abs() < 1e-15);
        assert_eq!(s.analytic(t_star + 1.0), [0.0; 6]);
        assert!((s.distance(10.0) - 1.0 / (2.0 * -a)).abs() < 1e-14);
        // At the critical angle the moment bound just holds the sphere.
        let held = SphereRolling::slope().with_alpha(s.critical_angle()).unwrap();
        assert!(held.acceleration().abs() < 1e-15 && held.analytic(1.0)[0] < 1e-15);
        assert_eq!(SphereRolling::slope().with_alpha(0.05).unwrap().stop_time(), 0.0);
    }
}
