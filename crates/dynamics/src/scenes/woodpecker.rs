//! The woodpecker toy of Glocker–Studer (Glocker–Studer 2005 §4, Table I, eq. 13–16).
//!
//! Three rigid bodies in the plane: the pole (fixed), the sleeve (mass `m_M`, inertia `J_M`,
//! centre M) and the woodpecker (mass `m_S`, inertia `J_S`, centre S), the last two joined by a
//! revolute joint with a torsion spring `c_φ`. With linearized kinematics (eq. 13–14) the
//! coordinates are `q = (y, φ_M, φ_S)` and the velocities `u = (v, ω_M, ω_S)`; the mass matrix
//! is constant. Three planar frictional contacts (eq. 15–16): 1 the beak on the pole
//! (`ε_N1 = 0.5`), 2 and 3 the lower and upper edges of the sleeve on the pole (`ε_N = 0`, the
//! jamming contacts). Every contact has `μ = 0.3` and `ε_T = 0`.
//!
//! The paper integrates with Moreau's midpoint rule (§5) and solves the LCP of eq. 33 (at most
//! two closed contacts: size 6). Its Figures 4–6 show the woodpecker settling on a limit
//! cycle while the sleeve moves down the pole; [`Woodpecker::limit_cycle`] measures the period and the
//! mean descent velocity of that cycle from a [`Trajectory`].

use super::{Panel, Scene, SceneInfo, Series};
use crate::stepper::StepOptions;
use crate::system::{Contact, Row, System};
use crate::trajectory::Trajectory;
use perp_core::{Error, Matrix};

/// The parameters of Table I (Glocker–Studer 2005).
#[derive(Clone, Debug, PartialEq)]
pub struct WoodpeckerParams {
    /// Radius of the pole `r_O` (m).
    pub r_o: f64,
    /// Inner radius of the sleeve `r_M` (m).
    pub r_m: f64,
    /// Half height of the sleeve `h_M` (m).
    pub h_m: f64,
    /// Distance M–G `l_M` (m).
    pub l_m: f64,
    /// Distance G–S `l_G` (m).
    pub l_g: f64,
    /// Distance S–P `h_S` (m).
    pub h_s: f64,
    /// Length of the beak P–1 `l_S` (m).
    pub l_s: f64,
    /// Mass of the sleeve `m_M` (kg).
    pub m_m: f64,
    /// Mass of the woodpecker `m_S` (kg).
    pub m_s: f64,
    /// Moment of inertia of the sleeve `J_M` (kg m²).
    pub j_m: f64,
    /// Moment of inertia of the woodpecker `J_S` (kg m²).
    pub j_s: f64,
    /// Angular stiffness of the spring `c_φ` (N m / rad).
    pub c_phi: f64,
    /// Gravity `g` (m/s²).
    pub g: f64,
    /// Normal restitution `ε_N1, ε_N2, ε_N3`.
    pub eps_n: [f64; 3],
    /// Tangential restitution `ε_T1, ε_T2, ε_T3`.
    pub eps_t: [f64; 3],
    /// Friction coefficients `μ_1, μ_2, μ_3`.
    pub mu: [f64; 3],
}

impl Default for WoodpeckerParams {
    /// Table I.
    fn default() -> Self {
        WoodpeckerParams {
            r_o: 0.0025,
            r_m: 0.0031,
            h_m: 0.0058,
            l_m: 0.010,
            l_g: 0.015,
            h_s: 0.02,
            l_s: 0.0201,
            m_m: 0.0003,
            m_s: 0.0045,
            j_m: 5.0e-9,
            j_s: 7.0e-7,
            c_phi: 0.0056,
            g: 9.81,
            eps_n: [0.5, 0.0, 0.0],
            eps_t: [0.0, 0.0, 0.0],
            mu: [0.3, 0.3, 0.3],
        }
    }
}

/// The woodpecker toy (Glocker–Studer 2005 §4): a [`System`] and [`Scene`] with `q = (y, φ_M, φ_S)`,
/// `u = (v, ω_M, ω_S)` (eq. 13).
#[derive(Clone, Debug)]
pub struct Woodpecker {
    /// The parameters (Table I by default).
    pub params: WoodpeckerParams,
    /// Initial coordinates `(y, φ_M, φ_S)` (Table I: `(0, −0.1036, −0.2788)`).
    pub q0: [f64; 3],
    /// Initial velocities `(v, ω_M, ω_S)` (Table I: `(−0.3411, 0, −7.4583)`).
    pub u0: [f64; 3],
}

impl Default for Woodpecker {
    fn default() -> Self {
        Woodpecker::new()
    }
}

impl Woodpecker {
    /// The toy with the parameters and initial conditions of Table I.
    pub fn new() -> Woodpecker {
        Woodpecker {
            params: WoodpeckerParams::default(),
            q0: [0.0, -0.1036, -0.2788],
            u0: [-0.3411, 0.0, -7.4583],
        }
    }

    /// The gaps `g_N1, g_N2, g_N3` of eq. 15 at `q`.
    pub fn gaps(&self, q: &[f64]) -> [f64; 3] {
        let p = &self.params;
        let (phi_m, phi_s) = (q[1], q[2]);
        [
            (p.l_m + p.l_g - p.l_s - p.r_o) - p.h_s * phi_s,
            (p.r_m - p.r_o) + p.h_m * phi_m,
            (p.r_m - p.r_o) - p.h_m * phi_m,
        ]
    }

    /// The mass matrix of eq. 14, row-major.
    fn mass_entries(&self) -> [f64; 9] {
        let p = &self.params;
        let (ms, lm, lg) = (p.m_s, p.l_m, p.l_g);
        [
            ms + p.m_m,
            ms * lm,
            ms * lg,
            ms * lm,
            p.j_m + ms * lm * lm,
            ms * lm * lg,
            ms * lg,
            ms * lm * lg,
            p.j_s + ms * lg * lg,
        ]
    }
}

impl System for Woodpecker {
    fn dofs(&self) -> usize {
        3
    }

    /// Eq. 14 (constant: the kinematics is linearized).
    fn mass(&self, _q: &[f64], _t: f64) -> Matrix {
        Matrix::from_row_major(3, 3, &self.mass_entries()).expect("a 3×3 matrix from 9 entries")
    }

    fn constant_mass(&self) -> bool {
        true
    }

    /// `h` of eq. 14: gravity and the joint spring.
    fn forces(&self, q: &[f64], _u: &[f64], _t: f64, h: &mut [f64]) {
        let p = &self.params;
        let (phi_m, phi_s) = (q[1], q[2]);
        h[0] = -(p.m_s + p.m_m) * p.g;
        h[1] = -p.c_phi * (phi_m - phi_s) - p.m_s * p.l_m * p.g;
        h[2] = -p.c_phi * (phi_s - phi_m) - p.m_s * p.l_g * p.g;
    }

    /// The three contacts of eq. 15–16 (beak, lower sleeve edge, upper sleeve edge), each with
    /// one tangent; `ŵ = 0`.
    fn contacts(&self, q: &[f64], t: f64) -> Vec<Contact> {
        let mut out = Vec::new();
        self.contacts_into(q, t, &mut out);
        out
    }

    /// In place: only the gaps change with q (the rows are constant, eq. 14–16).
    fn contacts_into(&self, q: &[f64], _t: f64, out: &mut Vec<Contact>) {
        let p = &self.params;
        let g = self.gaps(q);
        let rows = [
            ([0.0, 0.0, -p.h_s], [1.0, p.l_m, p.l_g - p.l_s]),
            ([0.0, p.h_m, 0.0], [1.0, p.r_m, 0.0]),
            ([0.0, -p.h_m, 0.0], [1.0, p.r_m, 0.0]),
        ];
        if out.len() != rows.len() {
            *out = rows
                .iter()
                .enumerate()
                .map(|(i, (n, t))| {
                    Contact::new(g[i], Row::dense(n), vec![Row::dense(t)], p.mu[i])
                        .with_restitution(p.eps_n[i], p.eps_t[i])
                })
                .collect();
            return;
        }
        for (i, (c, (n, t))) in out.iter_mut().zip(&rows).enumerate() {
            c.gap = g[i];
            c.normal.set_dense(n);
            c.tangents.resize_with(1, Row::default);
            c.tangents[0].set_dense(t);
            c.twist = None;
            c.rolling.clear();
            c.bias.clear();
            c.drift.clear();
            c.mu = p.mu[i];
            c.restitution_n = p.eps_n[i];
            c.restitution_t = p.eps_t[i];
            c.cone = perp_cones::ConeSpec::Coulomb;
        }
    }
}

impl Scene for Woodpecker {
    fn name(&self) -> String {
        "woodpecker".into()
    }

    fn description(&self) -> String {
        "the woodpecker toy: sleeve jamming on a pole, beak impacts, limit cycle (Glocker–Studer, \
         Glocker–Studer 2005 §4, Table I)"
            .into()
    }

    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (self.q0.to_vec(), self.u0.to_vec())
    }

    /// 1e-4 s. The paper does not state its step; at 1e-4 the limit cycle's period and
    /// descent velocity are within 1 % of their values at 1e-5 and 5e-6 (see
    /// `examples/woodpecker.rs`).
    fn default_dt(&self) -> f64 {
        1e-4
    }

    fn default_t_end(&self) -> f64 {
        0.5
    }

    /// Midpoint rule (§5), the LCP of eq. 33, Lemke (tol 1e-12). Every LCP is solved at
    /// dt = 1e-4, 1e-5 and 5e-6 (`tests/woodpecker.rs`).
    fn default_options(&self) -> StepOptions {
        super::planar::midpoint_gs()
    }

    fn state_names(&self) -> (Vec<String>, Vec<String>) {
        (
            ["y", "phi_M", "phi_S"].iter().map(|s| s.to_string()).collect(),
            ["v", "omega_M", "omega_S"].iter().map(|s| s.to_string()).collect(),
        )
    }

    /// `½ uᵀ M u + (m_S + m_M) g y + m_S g (l_M φ_M + l_G φ_S) + ½ c_φ (φ_S − φ_M)²`, the
    /// Lagrangian's energy behind eq. 14 (`h = −∂V/∂q`).
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        let p = &self.params;
        let m = self.mass_entries();
        let mut kin = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                kin += 0.5 * u[i] * m[3 * i + j] * u[j];
            }
        }
        let pot = (p.m_s + p.m_m) * p.g * q[0]
            + p.m_s * p.g * (p.l_m * q[1] + p.l_g * q[2])
            + 0.5 * p.c_phi * (q[2] - q[1]).powi(2);
        Some(kin + pot)
    }

    /// The phase portraits of Figure 6: `φ_S–ω_S` and `φ_M–ω_M`.
    fn panels(&self, traj: &Trajectory) -> Vec<Panel> {
        let pair = |x: &str, y: &str, title: &str, xl: &str, yl: &str| Panel {
            title: title.into(),
            x_label: xl.into(),
            y_label: yl.into(),
            series: match (traj.column(x), traj.column(y)) {
                (Some(a), Some(b)) => vec![Series {
                    name: format!("{y}({x})"),
                    points: a.into_iter().zip(b).collect(),
                    dashed: false,
                }],
                _ => Vec::new(),
            },
        };
        vec![
            pair("phi_S", "omega_S", "woodpecker", "φ_S [rad]", "ω_S [rad/s]"),
            pair("phi_M", "omega_M", "sleeve", "φ_M [rad]", "ω_M [rad/s]"),
        ]
    }
}

/// The limit cycle's figures measured from a trajectory (see [`Woodpecker::limit_cycle`]).
#[derive(Clone, Debug)]
pub struct LimitCycle {
    /// Times of the cycle markers after the transient (see [`Woodpecker::limit_cycle`]).
    pub marks: Vec<f64>,
    /// Successive periods `marks[k+1] − marks[k]`.
    pub periods: Vec<f64>,
    /// Mean period over the last [`LimitCycle::cycles`] periods (s).
    pub period: f64,
    /// Largest relative deviation of those periods from their mean.
    pub spread: f64,
    /// Mean vertical velocity of the sleeve `Δy/Δt` over those whole cycles (m/s) (negative:
    /// the woodpecker descends).
    pub descent_velocity: f64,
    /// Number of whole cycles averaged.
    pub cycles: usize,
}

/// The cycle marker's level: upward crossings of `φ_S` through this angle (rad) (the
/// woodpecker passing upright on its swing towards the pole, shortly before the beak impact).
pub const MARK_LEVEL: f64 = 0.0;

/// Hysteresis of the cycle marker: after a marker, `φ_S` must fall this far (rad) below
/// [`MARK_LEVEL`] before the next upward crossing counts (the beak rebounds after its impact;
/// the woodpecker swings ≈ 0.6 rad a cycle).
pub const MARK_HYSTERESIS: f64 = 0.1;

impl Woodpecker {
    /// The angle `φ_S*` at which the beak touches the pole (`g_N1 = 0` in eq. 15).
    pub fn beak_contact_angle(&self) -> f64 {
        let p = &self.params;
        (p.l_m + p.l_g - p.l_s - p.r_o) / p.h_s
    }

    /// Measures the limit cycle of a trajectory with columns `t`, `y` and `phi_S` (as
    /// [`crate::Simulator::run`] writes them with [`Scene::state_names`]; record every step or
    /// every few steps).
    ///
    /// The cycle marker is an upward crossing of `φ_S` through [`MARK_LEVEL`] (linearly
    /// interpolated between rows, so it is not quantized to the step), counted only when `φ_S`
    /// has fallen [`MARK_HYSTERESIS`] below that level since the previous marker. (The beak
    /// impact itself is a poor marker: it happens at the midpoint of a step, and the recorded
    /// end-of-step angle need not reach the contact angle.) Markers before `t_transient` are dropped; the last
    /// `cycles` whole periods are averaged (all of them when fewer). The descent velocity is
    /// `(y(t_last) − y(t_first)) / (t_last − t_first)` over the same whole cycles (`y`
    /// interpolated linearly).
    ///
    /// `Err` when a column is missing or fewer than two markers follow the transient.
    pub fn limit_cycle(
        &self,
        traj: &Trajectory,
        t_transient: f64,
        cycles: usize,
    ) -> Result<LimitCycle, Error> {
        let col = |name: &str| {
            traj.column(name).ok_or_else(|| {
                Error::setting("trajectory", name, "the woodpecker trajectory must have this column")
            })
        };
        let (t, y, phi) = (col("t")?, col("y")?, col("phi_S")?);
        let star = MARK_LEVEL;
        let mut marks: Vec<f64> = Vec::new();
        let mut armed = true;
        let mut ys = Vec::new();
        for k in 1..t.len() {
            if phi[k] < star - MARK_HYSTERESIS {
                armed = true;
            }
            if armed && phi[k - 1] < star && phi[k] >= star {
                armed = false;
                let a = (star - phi[k - 1]) / (phi[k] - phi[k - 1]);
                let tm = t[k - 1] + a * (t[k] - t[k - 1]);
                if tm >= t_transient {
                    marks.push(tm);
                    ys.push(y[k - 1] + a * (y[k] - y[k - 1]));
                }
            }
        }
        if marks.len() < 2 {
            return Err(Error::setting(
                "trajectory",
                format!("{} beak impacts after t = {t_transient}", marks.len()),
                "a limit cycle needs at least two; run longer",
            ));
        }
        let periods: Vec<f64> = marks.windows(2).map(|w| w[1] - w[0]).collect();
        let n = cycles.clamp(1, periods.len());
        let last = &periods[periods.len() - n..];
        let period = last.iter().sum::<f64>() / n as f64;
        let spread = last.iter().map(|p| (p / period - 1.0).abs()).fold(0.0, f64::max);
        let (i0, i1) = (marks.len() - 1 - n, marks.len() - 1);
        let descent_velocity = (ys[i1] - ys[i0]) / (marks[i1] - marks[i0]);
        Ok(LimitCycle { marks, periods, period, spread, descent_velocity, cycles: n })
    }
}

/// This module's scenes.
pub fn catalog() -> Vec<SceneInfo> {
    vec![SceneInfo {
        name: "woodpecker",
        description: "the woodpecker toy: jamming sleeve, beak impacts, limit cycle (Glocker–Studer 2005 §4)",
        default_size: None,
        build: |_| Ok(Box::new(Woodpecker::new())),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forces_are_minus_the_gradient_of_the_potential() {
        let w = Woodpecker::new();
        let (q, u) = ([0.01, -0.05, 0.2], [0.0; 3]);
        let mut h = [0.0; 3];
        w.forces(&q, &u, 0.0, &mut h);
        for i in 0..3 {
            let e = 1e-6;
            let (mut qp, mut qm) = (q, q);
            qp[i] += e;
            qm[i] -= e;
            let d = (w.energy(&qp, &u).unwrap() - w.energy(&qm, &u).unwrap()) / (2.0 * e);
            assert!((h[i] + d).abs() < 1e-8 * (1.0 + d.abs()), "dof {i}: h = {}, −∂V = {}", h[i], -d);
        }
    }

    #[test]
    fn normal_rows_are_the_gap_gradients() {
        let w = Woodpecker::new();
        let q = [0.0, -0.1, -0.2];
        let c = w.contacts(&q, 0.0);
        for (i, ci) in c.iter().enumerate() {
            for j in 0..3 {
                let (mut qp, mut qm) = (q, q);
                qp[j] += 1e-6;
                qm[j] -= 1e-6;
                let d = (w.gaps(&qp)[i] - w.gaps(&qm)[i]) / 2e-6;
                let mut e = [0.0; 3];
                e[j] = 1.0;
                let wij = ci.normal.dot(&e);
                assert!((wij - d).abs() < 1e-9, "contact {i}, dof {j}: {wij} vs {d}");
            }
        }
    }

    #[test]
    fn contacts_into_a_used_buffer_equals_fresh_contacts() {
        let w = Woodpecker::new();
        // A buffer holding other contacts (a twist, rheonomic terms, an elliptic cone, wrong
        // count) is overwritten entirely.
        let mut stale =
            Contact::new(1.0, Row::dense(&[1.0, 2.0, 3.0]), vec![Row::dense(&[4.0, 0.0, 5.0])], 0.9)
                .with_twist(Row::dense(&[0.0, 1.0, 0.0]), [1.0, 1.0, 0.4]);
        stale.bias = vec![1.0, 2.0, 3.0];
        let mut buf = vec![stale.clone(); 3];
        for q in [[0.0, -0.1, -0.2], [0.3, 0.05, 0.1]] {
            w.contacts_into(&q, 0.0, &mut buf);
            let fresh = w.contacts(&q, 0.0);
            assert_eq!(buf.len(), fresh.len());
            for (a, b) in buf.iter().zip(&fresh) {
                assert_eq!(format!("{a:?}"), format!("{b:?}"));
            }
        }
        let mut short = vec![stale];
        w.contacts_into(&[0.0; 3], 0.0, &mut short);
        assert_eq!(short.len(), 3);
    }
}
