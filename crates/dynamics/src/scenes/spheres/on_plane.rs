//! A sphere on a plane (Trinkle–Tzitzouris–Pang 2001 §4.1): spinning in place, sliding then rolling, the bowling ball.

use super::*;

/// Which experiment of Trinkle–Tzitzouris–Pang 2001 §4.1 a [`SphereOnPlane`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Experiment {
    Spin,
    Slide,
    Bowling,
}

/// A uniform sphere of unit mass and radius on the plane `z = 0` (Trinkle–Tzitzouris–Pang 2001 §4.1, fig. 2, eq. 3),
/// one contact with torsion: normal `ẑ`, tangents `t̂, ô` rotated π/4 from `x, y`, twist `ω_z`,
/// elliptic cone `e = [1, 1, e_r]`.
#[derive(Clone, Debug)]
pub struct SphereOnPlane {
    kind: Experiment,
    method: Method,
    mu: f64,
    e_r: f64,
    pub(super) q0: [f64; 7],
    u0: [f64; 6],
    dt: f64,
    t_end: f64,
}

impl SphereOnPlane {
    /// `sphere-spin` (§4.1.1, eq. 4): `q = (0, 0, 1 | 1, 0, 0, 0)`, `ν = (0, 0, 0 | 0, 0, 1.962)`,
    /// `e_r = 0.4`, `μ = 0.2`, `h = 0.07` for 1.2 s. Exact solution:
    /// `ω_z(t) = max(0, 1.962 − 1.962 t)` (the torsional friction `μ e_r m g` over `I = ⅖`).
    pub fn spin() -> SphereOnPlane {
        SphereOnPlane {
            kind: Experiment::Spin,
            method: Method::Cone,
            mu: 0.2,
            e_r: 0.4,
            q0: [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0],
            u0: [0.0, 0.0, 0.0, 0.0, 0.0, 1.962],
            dt: 0.07,
            t_end: 1.2,
        }
    }

    /// `sphere-slide` (§4.1.3, eq. 7): `ν = (2, 0, 0 | 0, 0, 0)`, `h = 0.12` on `[0, 0.6]`.
    /// Exact solution: sliding until `t = 2v₀/(7μg) ≈ 0.291`, then rolling with
    /// `v_x = ω_y = 5v₀/7`.
    pub fn slide() -> SphereOnPlane {
        SphereOnPlane {
            kind: Experiment::Slide,
            u0: [2.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            dt: 0.12,
            t_end: 0.6,
            ..SphereOnPlane::spin()
        }
    }

    /// `bowling-ball` (§4.1.5, eq. 8): `q = (0, 0.5, 1 | 1, 0, 0, 0)`,
    /// `ν = (1, 0.2, 0 | 1, 0.5, 0.2)`, `e_r = 0.2`, `μ = 0.01`, `h = 0.05` for 8 s.
    pub fn bowling() -> SphereOnPlane {
        SphereOnPlane {
            kind: Experiment::Bowling,
            method: Method::Cone,
            mu: 0.01,
            e_r: 0.2,
            q0: [0.0, 0.5, 1.0, 1.0, 0.0, 0.0, 0.0],
            u0: [1.0, 0.2, 0.0, 1.0, 0.5, 0.2],
            dt: 0.05,
            t_end: 8.0,
        }
    }

    /// The same scene stepped by another [`Method`] (its [`Scene::default_options`]).
    pub fn with_method(mut self, method: Method) -> SphereOnPlane {
        self.method = method;
        self
    }

    /// The same scene with friction coefficient `mu` (e.g. to fit μ to a trajectory).
    pub fn with_mu(mut self, mu: f64) -> SphereOnPlane {
        self.mu = mu;
        self
    }

    /// The method of [`Scene::default_options`].
    pub fn method(&self) -> Method {
        self.method
    }

    /// Friction coefficient μ.
    pub fn mu(&self) -> f64 {
        self.mu
    }

    /// Torsional semi-axis `e_r`.
    pub fn e_r(&self) -> f64 {
        self.e_r
    }

    /// The exact velocity `(v, ω)` at time `t` for `sphere-spin` and `sphere-slide`
    /// (Trinkle–Tzitzouris–Pang 2001 §4.1.1, §4.1.3); `None` for the bowling ball.
    pub fn analytic(&self, t: f64) -> Option<[f64; 6]> {
        let (m, r, inertia) = (1.0, 1.0, 0.4);
        match self.kind {
            Experiment::Spin => {
                let alpha = self.mu * self.e_r * m * G / inertia;
                let w0 = self.u0[5];
                Some([0.0, 0.0, 0.0, 0.0, 0.0, (w0 - alpha * t).max(0.0)])
            }
            Experiment::Slide => {
                let v0 = self.u0[0];
                let t_trn = self.transition_time();
                let s = t.min(t_trn);
                // v̇_x = −μg, ω̇_y = μ m g r / I while sliding.
                Some([v0 - self.mu * G * s, 0.0, 0.0, 0.0, self.mu * m * G * r / inertia * s, 0.0])
            }
            Experiment::Bowling => None,
        }
    }

    /// `sphere-slide`: the end of sliding `2v₀/(7μg)` (Trinkle–Tzitzouris–Pang 2001 §4.1.3); `sphere-spin`: the
    /// time the spin stops, `ω₀ I / (μ e_r m g)`; the bowling ball: `NaN` (no closed form).
    pub fn transition_time(&self) -> f64 {
        match self.kind {
            Experiment::Spin => self.u0[5] * 0.4 / (self.mu * self.e_r * G),
            Experiment::Slide => 2.0 * self.u0[0] / (7.0 * self.mu * G),
            Experiment::Bowling => f64::NAN,
        }
    }
}

/// The contact frame of Trinkle–Tzitzouris–Pang 2001 §4.1: `n̂ = ẑ`, `t̂, ô` rotated π/4 from `x, y`.
fn plane_frame() -> [[f64; 3]; 3] {
    let a = std::f64::consts::FRAC_1_SQRT_2;
    [[0.0, 0.0, 1.0], [a, a, 0.0], [-a, a, 0.0]]
}

impl System for SphereOnPlane {
    one_sphere_system!(1.0, 1.0);
    fn forces(&self, _q: &[f64], _u: &[f64], _t: f64, h: &mut [f64]) {
        h.iter_mut().for_each(|x| *x = 0.0);
        h[2] = -G;
    }
    fn contacts(&self, q: &[f64], _t: f64) -> Vec<Contact> {
        let plane = Plane { frame: plane_frame(), offset: 0.0 };
        vec![sphere_plane(0, rigid::position(q, 0), 1.0, plane, self.mu, Some(self.e_r))]
    }
    fn contacts_into(&self, q: &[f64], _t: f64, out: &mut Vec<Contact>) {
        contacts_with(out, 1, |_, c| {
            let plane = Plane { frame: plane_frame(), offset: 0.0 };
            set_sphere_plane(c, 0, rigid::position(q, 0), 1.0, plane, self.mu, Some(self.e_r))
        });
    }
}

impl Scene for SphereOnPlane {
    fn name(&self) -> String {
        match self.kind {
            Experiment::Spin => "sphere-spin",
            Experiment::Slide => "sphere-slide",
            Experiment::Bowling => "bowling-ball",
        }
        .into()
    }
    fn description(&self) -> String {
        let src = match self.kind {
            Experiment::Spin => "Trinkle–Tzitzouris–Pang 2001 §4.1.1",
            Experiment::Slide => "Trinkle–Tzitzouris–Pang 2001 §4.1.3",
            Experiment::Bowling => "Trinkle–Tzitzouris–Pang 2001 §4.1.5",
        };
        format!(
            "unit sphere on a plane, μ = {}, e_r = {} ({src}; the paper's method: {:?})",
            self.mu, self.e_r, self.method
        )
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (self.q0.to_vec(), self.u0.to_vec())
    }
    fn default_dt(&self) -> f64 {
        self.dt
    }
    fn default_t_end(&self) -> f64 {
        self.t_end
    }
    fn default_options(&self) -> StepOptions {
        self.method.options(self.e_r)
    }
    fn stewart_directions(&self) -> Option<Directions> {
        Some(Directions::Custom(aligned_directions(self.e_r)))
    }
    fn state_names(&self) -> (Vec<String>, Vec<String>) {
        body_names(1)
    }
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        Some(sphere_energy(&[(1.0, 1.0)], q, u))
    }
    fn panels(&self, traj: &Trajectory) -> Vec<Panel> {
        let (_, un) = self.state_names();
        let t = traj.column("t").unwrap_or_default();
        let mut series: Vec<Series> = super::super::time_series(traj, &un);
        let exact: &[usize] = match self.kind {
            Experiment::Spin => &[5],
            Experiment::Slide => &[0, 4],
            Experiment::Bowling => &[],
        };
        let t_end = t.last().copied().unwrap_or(self.t_end);
        let grid: Vec<f64> = (0..=400).map(|k| t_end * k as f64 / 400.0).collect();
        for &i in exact {
            series.push(Series {
                name: format!("{} (exact)", un[i]),
                points: grid.iter().filter_map(|&s| self.analytic(s).map(|v| (s, v[i]))).collect(),
                dashed: true,
            });
        }
        vec![Panel { title: self.name(), x_label: "t [s]".into(), y_label: "velocity".into(), series }]
    }
}
