//! Spheres: the sphere-on-plane experiments and the sphere between two spheres of
//! Trinkle–Tzitzouris–Pang (seed 002 §4), and Stewart's billiards (seed 000 fig. 2.3).
//!
//! Every body is a uniform sphere in the layout of [`crate::rigid`]: coordinates
//! `(x, y, z, q_w, q_x, q_y, q_z)`, velocities `(v, ω)` in the world frame. A sphere's world
//! inertia `⅖ m r² E₃` does not depend on its orientation and its gyroscopic term `ω × Iω`
//! vanishes, so `M` is constant (seed 002 eq. 3: `M = diag(E₃, ⅖E₃)` for unit mass and
//! radius) and `h` is gravity plus the external force.
//!
//! Contacts with a plane or a sphere are written with [`rigid::point_row`] at the contact point
//! `p = −r n̂` (relative to the moving sphere's center), so the rows are the columns of the
//! paper's Jacobian `𝒥` (eq. 3). Torsion (seed 002 eq. 1) adds the twist row `ω · n̂` and the
//! elliptic cone `e = [e_t, e_o, e_r]`: `c_t² / e_t² + c_o² / e_o² + c_r² / e_r² ≤ μ² c_n²`.
//!
//! Three ways to pose each step ([`Method`]):
//!
//! * [`Method::Cone`]: the exact elliptic cone, a frictional contact problem in the local
//!   variables `(n, t, o, r)` solved by `nsgs` (Alart–Curnier Newton per contact: the 4-D
//!   elliptic law is handled exactly), on Moreau's midpoint scheme.
//! * [`Method::Stewart`]: the paper's "Stewart method" — the Stewart–Trinkle LCP (seed 000
//!   eq. 2.16) with the linearized friction ellipsoid of seed 002 eq. 5 ([`aligned_directions`]),
//!   solved by Lemke, on the semi-implicit Euler scheme of seed 000 eq. 2.11–2.15.
//! * [`Method::TzitzourisPang`]: the NCP of seed 002 §4 with the nonlinear elliptic law (eq. 2),
//!   solved by the hot-started B-differentiable Newton method `bdiff-newton`, on the Euler scheme
//!   (the paper's method is implicit Euler; here contacts and `M` are taken at `q^l`).

use super::{Panel, Scene, SceneInfo, Series};
use crate::assembly::Directions;
use crate::rigid::{self, NQ, NU};
use crate::stepper::{Activation, Formulation, Scheme, StepOptions};
use crate::system::{Contact, Row, System};
use crate::trajectory::Trajectory;
use perp_cones::ConeSpec;
use perp_core::{Matrix, Settings};

/// Gravity `g` (m/s²) (seed 002 eq. 3: `g_obj = [0, 0, −9.81, 0, 0, 0]`).
pub const G: f64 = 9.81;

/// This module's scenes.
pub fn catalog() -> Vec<SceneInfo> {
    vec![
        SceneInfo {
            name: "sphere-spin",
            description: "sphere spinning in place on a plane, torsional friction (seed 002 §4.1.1, eq. 4)",
            default_size: None,
            build: |_| Box::new(SphereOnPlane::spin()),
        },
        SceneInfo {
            name: "sphere-slide",
            description: "sphere sliding then rolling on a plane (seed 002 §4.1.3, eq. 7)",
            default_size: None,
            build: |_| Box::new(SphereOnPlane::slide()),
        },
        SceneInfo {
            name: "bowling-ball",
            description: "hooking bowling ball on an oiled lane, μ = 0.01 (seed 002 §4.1.5, eq. 8)",
            default_size: None,
            build: |_| Box::new(SphereOnPlane::bowling()),
        },
        SceneInfo {
            name: "sphere-two-spheres",
            description: "unit sphere driven along the seam between two fixed spheres (seed 002 §4.2, eq. 9)",
            default_size: None,
            build: |_| Box::new(SphereTwoSpheres::new()),
        },
        SceneInfo {
            name: "billiards",
            description: "ball thrown onto a table hits the first of three balls in a line, ε = 0.9 (seed 000 fig. 2.3)",
            default_size: None,
            build: |_| Box::new(Billiards::new()),
        },
    ]
}

/// How a sphere scene poses and solves its contact problems (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Exact elliptic cones, frictional contact problem (`nsgs`), Moreau midpoint.
    Cone,
    /// Stewart–Trinkle LCP with the directions of seed 002 eq. 5 (Lemke), semi-implicit Euler.
    Stewart,
    /// Tzitzouris–Pang NCP (`bdiff-newton`, hot start), Euler.
    TzitzourisPang,
}

impl Method {
    /// Step options of this method for contacts with torsion semi-axis `e_r` (used by the
    /// Stewart directions).
    pub fn options(self, e_r: f64) -> StepOptions {
        let settings = Settings { tol: 1e-10, ..Settings::default() };
        let euler = Scheme::Euler { fixed_point: 0, project: false };
        match self {
            Method::Cone => StepOptions {
                scheme: Scheme::Midpoint,
                formulation: Formulation::Cone,
                solver: Some("nsgs".into()),
                settings,
                ..StepOptions::default()
            },
            Method::Stewart => StepOptions {
                scheme: euler,
                formulation: Formulation::StewartTrinkle(Directions::Custom(aligned_directions(e_r))),
                solver: Some("lemke".into()),
                settings,
                ..StepOptions::default()
            },
            Method::TzitzourisPang => StepOptions {
                scheme: euler,
                formulation: Formulation::TzitzourisPang,
                solver: Some("bdiff-newton".into()),
                settings,
                ..StepOptions::default()
            },
        }
    }
}

/// `r / e_r` of the two latitude circles of seed 002 eq. 5 (the entries 0.3227 with `e_r = 0.4`).
const LATITUDE: f64 = 0.3227 / 0.4;

/// The 20 friction directions of seed 002 eq. 5 (fig. 3) in the local tangential coordinates
/// `(t, o, r)` of a contact with elliptic cone `e = [1, 1, e_r]`, column-major `3 × 20`, each
/// on the ellipsoid's surface (section at μ = 1):
///
/// * 8 on the equator at 45° steps, `(cos θ, sin θ, 0)` — columns 1–8; with the paper's frame
///   (t̂, ô rotated π/4 from x, y) they include `−x`, the friction of `sphere-slide`;
/// * 5 on each latitude circle `r = ±0.3227 e_r / 0.4` at 72° steps from `t̂` — columns 9–18;
/// * the poles `(0, 0, ±e_r)` — columns 19–20, the pure torsion direction of `sphere-spin`.
///
/// The Stewart method is exact on `sphere-spin` and `sphere-slide` because one of these points
/// along the true friction (seed 002 §4.1.1, §4.1.3). The Stewart–Trinkle LCP then has size
/// 1 + 20 + 1 = 22 per contact, as in the paper.
pub fn aligned_directions(e_r: f64) -> Vec<f64> {
    let mut d = Vec::with_capacity(60);
    for k in 0..8 {
        let th = k as f64 * std::f64::consts::FRAC_PI_4;
        d.extend_from_slice(&[th.cos(), th.sin(), 0.0]);
    }
    let c = (1.0 - LATITUDE * LATITUDE).sqrt();
    for s in [LATITUDE, -LATITUDE] {
        for k in 0..5 {
            let th = k as f64 * 2.0 * std::f64::consts::PI / 5.0;
            d.extend_from_slice(&[c * th.cos(), c * th.sin(), s * e_r]);
        }
    }
    d.extend_from_slice(&[0.0, 0.0, e_r, 0.0, 0.0, -e_r]);
    d
}

/// Column names of `bodies` rigid bodies: `x, y, z, qw, qx, qy, qz` and
/// `v_x, v_y, v_z, omega_x, omega_y, omega_z` for body 0, prefixed `b{k}_` for body `k ≥ 1`.
pub fn body_names(bodies: usize) -> (Vec<String>, Vec<String>) {
    let qn = ["x", "y", "z", "qw", "qx", "qy", "qz"];
    let un = ["v_x", "v_y", "v_z", "omega_x", "omega_y", "omega_z"];
    let prefix = |k: usize| if k == 0 { String::new() } else { format!("b{k}_") };
    let q = (0..bodies).flat_map(|k| qn.iter().map(move |n| format!("{}{n}", prefix(k)))).collect();
    let u = (0..bodies).flat_map(|k| un.iter().map(move |n| format!("{}{n}", prefix(k)))).collect();
    (q, u)
}

/// The constant mass matrix of uniform spheres `(m_k, r_k)`: `diag(m E₃, ⅖ m r² E₃)` per body;
/// dense up to 4 bodies, sparse (block diagonal) beyond.
pub fn sphere_mass(balls: &[(f64, f64)]) -> Matrix {
    let mut t = Vec::with_capacity(NU * balls.len());
    for (k, &(m, r)) in balls.iter().enumerate() {
        for i in 0..3 {
            t.push((NU * k + i, NU * k + i, m));
            t.push((NU * k + 3 + i, NU * k + 3 + i, 0.4 * m * r * r));
        }
    }
    let n = NU * balls.len();
    if balls.len() <= 4 {
        let mut d = vec![0.0; n * n];
        for (i, j, v) in t {
            d[i * n + j] = v;
        }
        Matrix::from_row_major(n, n, &d).expect("square diagonal mass")
    } else {
        Matrix::from_triplets(n, n, &t).expect("diagonal mass triplets")
    }
}

/// Kinetic and potential energy of uniform spheres `(m_k, r_k)` at `(q, u)`, gravity along −z.
pub fn sphere_energy(balls: &[(f64, f64)], q: &[f64], u: &[f64]) -> f64 {
    balls
        .iter()
        .enumerate()
        .map(|(k, &(m, r))| {
            let v = &u[NU * k..NU * k + 3];
            let w = &u[NU * k + 3..NU * k + 6];
            let t = 0.5 * m * v.iter().map(|x| x * x).sum::<f64>()
                + 0.2 * m * r * r * w.iter().map(|x| x * x).sum::<f64>();
            t + m * G * q[NQ * k + 2]
        })
        .sum()
}

/// One side of a contact: a moving sphere `body` (its velocities) or a fixed obstacle.
#[derive(Clone, Copy, Debug)]
pub struct Side {
    /// Body index, `None` for a fixed obstacle.
    pub body: Option<usize>,
    /// Center of the sphere.
    pub center: [f64; 3],
    /// Radius.
    pub radius: f64,
}

/// The rows of a contact of sphere `a` (radius `r_a`) with a fixed obstacle (`b = None`) or
/// with sphere `b = Some((body, r_b))`, in the frame `[n, t, o]` (unit normal `n` pointing
/// from the other side into `a`): the relative velocity of the contact points `p_a = −r_a n`
/// on `a` and `p_b = r_b n` on `b` along each axis, and with `twist` the relative spin
/// `(ω_a − ω_b) · n`. Returns `(normal, [t, o], twist)`.
pub fn contact_rows(
    a: usize,
    r_a: f64,
    b: Option<(usize, f64)>,
    frame: [[f64; 3]; 3],
    twist: bool,
) -> (Row, Vec<Row>, Option<Row>) {
    let mut c = Contact::new(0.0, Row::default(), Vec::new(), 0.0);
    set_contact_rows(&mut c, a, r_a, b, frame, twist);
    (c.normal, c.tangents, c.twist)
}

/// [`contact_rows`] written into `c`'s rows, reusing their storage.
fn set_contact_rows(
    c: &mut Contact,
    a: usize,
    r_a: f64,
    b: Option<(usize, f64)>,
    frame: [[f64; 3]; 3],
    twist: bool,
) {
    let n = frame[0];
    let pa = [-r_a * n[0], -r_a * n[1], -r_a * n[2]];
    let set = |row: &mut Row, dir: [f64; 3]| {
        row.0.clear();
        rigid::push_point_row(&mut row.0, a, pa, dir, 1.0);
        if let Some((k, r_b)) = b {
            rigid::push_point_row(&mut row.0, k, [r_b * n[0], r_b * n[1], r_b * n[2]], dir, -1.0);
        }
    };
    set(&mut c.normal, frame[0]);
    c.tangents.resize_with(2, Row::default);
    set(&mut c.tangents[0], frame[1]);
    set(&mut c.tangents[1], frame[2]);
    if twist {
        let row = c.twist.get_or_insert_with(Row::default);
        row.0.clear();
        row.0.extend((0..3).map(|i| (NU * a + 3 + i, n[i])));
        if let Some((k, _)) = b {
            row.0.extend((0..3).map(|i| (NU * k + 3 + i, -n[i])));
        }
    } else {
        c.twist = None;
    }
}

/// The contact between the moving sphere `a` (center `c_a`, radius `r_a`) and another sphere
/// (moving body `b`, or fixed when `b.body` is `None`): gap `‖c_a − c_b‖ − r_a − r_b` (the
/// nonlinear distance of seed 002 §4.2), normal along `c_a − c_b`, tangents from
/// [`rigid::tangents`]. Coulomb cone, or with `e_r = Some(e)` the twist row and the elliptic
/// cone `[1, 1, e]`.
pub fn sphere_sphere(a: usize, c_a: [f64; 3], r_a: f64, b: Side, mu: f64, e_r: Option<f64>) -> Contact {
    let mut c = Contact::new(0.0, Row::default(), Vec::new(), mu);
    set_sphere_sphere(&mut c, a, c_a, r_a, b, mu, e_r);
    c
}

/// [`sphere_sphere`] written into `c`, reusing its rows' storage (scenes with thousands of
/// candidate contacts rebuild them every step).
pub fn set_sphere_sphere(
    c: &mut Contact,
    a: usize,
    c_a: [f64; 3],
    r_a: f64,
    b: Side,
    mu: f64,
    e_r: Option<f64>,
) {
    let d = [c_a[0] - b.center[0], c_a[1] - b.center[1], c_a[2] - b.center[2]];
    let dist = rigid::dot(d, d).sqrt();
    // Coincident centers (never in a valid state) get an arbitrary normal rather than NaN.
    let n = if dist > 1e-12 { [d[0] / dist, d[1] / dist, d[2] / dist] } else { [0.0, 0.0, 1.0] };
    let (t, o) = rigid::tangents(n);
    set_contact_rows(c, a, r_a, b.body.map(|k| (k, b.radius)), [n, t, o], e_r.is_some());
    c.gap = dist - r_a - b.radius;
    c.bias.clear();
    c.drift.clear();
    c.mu = mu;
    c.restitution_n = 0.0;
    c.restitution_t = 0.0;
    match (e_r, &mut c.cone) {
        (Some(e), ConeSpec::Elliptic { e: v }) => {
            v.clear();
            v.extend([1.0, 1.0, e]);
        }
        (Some(e), cone) => *cone = ConeSpec::Elliptic { e: vec![1.0, 1.0, e] },
        (None, cone) => *cone = ConeSpec::Coulomb,
    }
}

/// The contact between sphere `a` (center `c`, radius `r`) and the fixed plane
/// `{x : n · x = offset}` (unit `n` pointing out of the solid), with tangents `t`, `o`
/// completing the right-handed frame: gap `n · c − offset − r`.
pub fn sphere_plane(
    a: usize,
    c: [f64; 3],
    r: f64,
    frame: [[f64; 3]; 3],
    offset: f64,
    mu: f64,
    e_r: Option<f64>,
) -> Contact {
    let (nr, tr, tw) = contact_rows(a, r, None, frame, e_r.is_some());
    let cont = Contact::new(rigid::dot(frame[0], c) - offset - r, nr, tr, mu);
    match (e_r, tw) {
        (Some(e), Some(row)) => cont.with_twist(row, [1.0, 1.0, e]),
        _ => cont,
    }
}

/// Which experiment of seed 002 §4.1 a [`SphereOnPlane`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Experiment {
    Spin,
    Slide,
    Bowling,
}

/// A uniform sphere of unit mass and radius on the plane `z = 0` (seed 002 §4.1, fig. 2, eq. 3),
/// one contact with torsion: normal `ẑ`, tangents `t̂, ô` rotated π/4 from `x, y`, twist `ω_z`,
/// elliptic cone `e = [1, 1, e_r]`.
#[derive(Clone, Debug)]
pub struct SphereOnPlane {
    kind: Experiment,
    method: Method,
    mu: f64,
    e_r: f64,
    q0: [f64; 7],
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
    /// (seed 002 §4.1.1, §4.1.3); `None` for the bowling ball.
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

    /// `sphere-slide`: the end of sliding `2v₀/(7μg)` (seed 002 §4.1.3); `sphere-spin`: the
    /// time the spin stops, `ω₀ I / (μ e_r m g)`; the bowling ball: `NaN` (no closed form).
    pub fn transition_time(&self) -> f64 {
        match self.kind {
            Experiment::Spin => self.u0[5] * 0.4 / (self.mu * self.e_r * G),
            Experiment::Slide => 2.0 * self.u0[0] / (7.0 * self.mu * G),
            Experiment::Bowling => f64::NAN,
        }
    }
}

/// The contact frame of seed 002 §4.1: `n̂ = ẑ`, `t̂, ô` rotated π/4 from `x, y`.
fn plane_frame() -> [[f64; 3]; 3] {
    let a = std::f64::consts::FRAC_1_SQRT_2;
    [[0.0, 0.0, 1.0], [a, a, 0.0], [-a, a, 0.0]]
}

impl System for SphereOnPlane {
    fn dofs(&self) -> usize {
        NU
    }
    fn coords(&self) -> usize {
        NQ
    }
    fn mass(&self, _q: &[f64], _t: f64) -> Matrix {
        sphere_mass(&[(1.0, 1.0)])
    }
    fn constant_mass(&self) -> bool {
        true
    }
    fn forces(&self, _q: &[f64], _u: &[f64], _t: f64, h: &mut [f64]) {
        h.iter_mut().for_each(|x| *x = 0.0);
        h[2] = -G;
    }
    fn contacts(&self, q: &[f64], _t: f64) -> Vec<Contact> {
        vec![sphere_plane(0, rigid::position(q, 0), 1.0, plane_frame(), 0.0, self.mu, Some(self.e_r))]
    }
    fn integrate(&self, q: &mut [f64], u: &[f64], dt: f64) {
        rigid::integrate(q, u, dt, 1);
    }
    fn normalize(&self, q: &mut [f64]) {
        rigid::normalize(q, 1);
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
            Experiment::Spin => "seed 002 §4.1.1",
            Experiment::Slide => "seed 002 §4.1.3",
            Experiment::Bowling => "seed 002 §4.1.5",
        };
        format!(
            "unit sphere on a plane, μ = {}, e_r = {} ({src}), {:?} method",
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
    fn state_names(&self) -> (Vec<String>, Vec<String>) {
        body_names(1)
    }
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        Some(sphere_energy(&[(1.0, 1.0)], q, u))
    }
    fn panels(&self, traj: &Trajectory) -> Vec<Panel> {
        let (_, un) = self.state_names();
        let t = traj.column("t").unwrap_or_default();
        let mut series: Vec<Series> = super::time_series(traj, &un);
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

/// The unit sphere between two fixed spheres (seed 002 §4.2, fig. 18, eq. 9): radius 10 at the
/// origin and radius 9 at `(0, 11.4, 0)`, external force `g_obj = [1.0, 2.6, −9.81, 0, 0, 0]`
/// (unit mass), `e = [1, 1, 0.3]`, `μ = 0.2`, two contacts with the nonlinear gaps
/// `‖c − c_i‖ − 1 − R_i`; `h = 0.1`. The sphere starts at rest touching both and rolls and
/// slides along the seam until the contacts break (≈ 3.6 s in the paper; 3.5–3.8 s here).
///
/// Every method here linearizes the gaps at the start of the step (the paper's
/// Tzitzouris–Pang method is implicit in `q`, which the stepper is not), so the curvature of
/// the seam shows: after the first step the linearized constraint leaves a gap of ~1e-6. With
/// Moreau's index set ([`Activation::Gap`]: `g + h γ_N(u^l) ≤ 0`, or `g(q_M) ≤ 0` at the
/// midpoint) both contacts are then dropped for one step, and the sphere sinks `g h² ≈ 0.1`
/// into the seam, where it stays (1e-3 at `h = 0.01`). The scene therefore steps with
/// [`Activation::Persistent`]: loaded contacts stay while the free motion closes them, and the
/// sphere never penetrates (`tests/spheres.rs` checks both). The NCP of
/// [`Method::TzitzourisPang`] solves every step at `h = 0.1`; at `h = 0.01` and `0.001` a few
/// of its solves fail (`bdiff-newton` near `c_n = 0` when a contact opens), where
/// [`Method::Cone`] solves all.
#[derive(Clone, Debug)]
pub struct SphereTwoSpheres {
    method: Method,
}

impl Default for SphereTwoSpheres {
    fn default() -> Self {
        Self::new()
    }
}

impl SphereTwoSpheres {
    /// The fixed spheres `(center, radius)`.
    pub const FIXED: [([f64; 3], f64); 2] = [([0.0, 0.0, 0.0], 10.0), ([0.0, 11.4, 0.0], 9.0)];
    /// `g_obj` (eq. 9 text).
    pub const FORCE: [f64; 3] = [1.0, 2.6, -9.81];
    /// μ.
    pub const MU: f64 = 0.2;
    /// `e_r`.
    pub const E_R: f64 = 0.3;

    /// The scene with its default method, [`Method::TzitzourisPang`] (the paper's smooth
    /// solution, fig. 21–22).
    pub fn new() -> SphereTwoSpheres {
        SphereTwoSpheres { method: Method::TzitzourisPang }
    }

    /// The same scene stepped by another [`Method`].
    pub fn with_method(mut self, method: Method) -> SphereTwoSpheres {
        self.method = method;
        self
    }
}

impl System for SphereTwoSpheres {
    fn dofs(&self) -> usize {
        NU
    }
    fn coords(&self) -> usize {
        NQ
    }
    fn mass(&self, _q: &[f64], _t: f64) -> Matrix {
        sphere_mass(&[(1.0, 1.0)])
    }
    fn constant_mass(&self) -> bool {
        true
    }
    fn forces(&self, _q: &[f64], _u: &[f64], _t: f64, h: &mut [f64]) {
        h.iter_mut().for_each(|x| *x = 0.0);
        h[..3].copy_from_slice(&Self::FORCE);
    }
    fn contacts(&self, q: &[f64], _t: f64) -> Vec<Contact> {
        let c = rigid::position(q, 0);
        Self::FIXED
            .iter()
            .map(|&(center, radius)| {
                sphere_sphere(0, c, 1.0, Side { body: None, center, radius }, Self::MU, Some(Self::E_R))
            })
            .collect()
    }
    fn integrate(&self, q: &mut [f64], u: &[f64], dt: f64) {
        rigid::integrate(q, u, dt, 1);
    }
    fn normalize(&self, q: &mut [f64]) {
        rigid::normalize(q, 1);
    }
}

impl Scene for SphereTwoSpheres {
    fn name(&self) -> String {
        "sphere-two-spheres".into()
    }
    fn description(&self) -> String {
        format!(
            "unit sphere on the seam of two fixed spheres (seed 002 §4.2, eq. 9), {:?} method",
            self.method
        )
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![0.0, 6.62105263157895, 8.78417110772903, 1.0, 0.0, 0.0, 0.0], vec![0.0; 6])
    }
    fn default_dt(&self) -> f64 {
        0.1
    }
    fn default_t_end(&self) -> f64 {
        5.0
    }
    fn default_options(&self) -> StepOptions {
        StepOptions { activation: Activation::Persistent, ..self.method.options(Self::E_R) }
    }
    fn state_names(&self) -> (Vec<String>, Vec<String>) {
        body_names(1)
    }
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        // The potential of the constant force g_obj.
        let kinetic = sphere_energy(&[(1.0, 1.0)], q, u) - G * q[2];
        Some(kinetic - (0..3).map(|i| Self::FORCE[i] * q[i]).sum::<f64>())
    }
}

/// Stewart's billiards (seed 000 fig. 2.3): a ball thrown onto a table bounces and strikes,
/// slightly off-line, the first of three balls lying in a row on the table; restitution
/// ε = 0.9 at every contact, friction with the table and between balls.
///
/// Sizes are those of a pool ball (radius 28.575 mm, mass 0.17 kg); the table balls lie 1 mm
/// apart so that the impacts run one after the other (a Newton's cradle: most of the momentum
/// ends in the third ball). Candidates: each ball with the table (`z = 0`) and every pair of
/// balls (10 contacts, Coulomb cones).
#[derive(Clone, Debug)]
pub struct Billiards {
    /// Ball radius (m).
    pub radius: f64,
    /// Ball mass (kg).
    pub mass: f64,
    /// Restitution ε (normal).
    pub restitution: f64,
    /// Ball–table friction coefficient.
    pub mu_table: f64,
    /// Ball–ball friction coefficient.
    pub mu_ball: f64,
    /// Step options (default: exact cones, `nsgs`, Moreau midpoint).
    pub method: Method,
}

impl Default for Billiards {
    fn default() -> Self {
        Self::new()
    }
}

impl Billiards {
    /// Number of balls (the thrown one first).
    pub const BALLS: usize = 4;

    /// The default scene: ε = 0.9, μ_table = 0.2, μ_ball = 0.06.
    pub fn new() -> Billiards {
        Billiards {
            radius: 0.028575,
            mass: 0.17,
            restitution: 0.9,
            mu_table: 0.2,
            mu_ball: 0.06,
            method: Method::Cone,
        }
    }

    fn balls(&self) -> Vec<(f64, f64)> {
        vec![(self.mass, self.radius); Self::BALLS]
    }

    /// Candidate contacts as `(a, b)`: `b = None` for the table.
    pub fn pairs() -> Vec<(usize, Option<usize>)> {
        let mut v: Vec<(usize, Option<usize>)> = (0..Self::BALLS).map(|a| (a, None)).collect();
        for a in 0..Self::BALLS {
            for b in a + 1..Self::BALLS {
                v.push((a, Some(b)));
            }
        }
        v
    }
}

impl System for Billiards {
    fn dofs(&self) -> usize {
        NU * Self::BALLS
    }
    fn coords(&self) -> usize {
        NQ * Self::BALLS
    }
    fn mass(&self, _q: &[f64], _t: f64) -> Matrix {
        sphere_mass(&self.balls())
    }
    fn constant_mass(&self) -> bool {
        true
    }
    fn forces(&self, _q: &[f64], _u: &[f64], _t: f64, h: &mut [f64]) {
        h.iter_mut().for_each(|x| *x = 0.0);
        for k in 0..Self::BALLS {
            h[NU * k + 2] = -self.mass * G;
        }
    }
    fn contacts(&self, q: &[f64], _t: f64) -> Vec<Contact> {
        let r = self.radius;
        let eps = self.restitution;
        Self::pairs()
            .into_iter()
            .map(|(a, b)| {
                let ca = rigid::position(q, a);
                let c = match b {
                    None => sphere_plane(
                        a,
                        ca,
                        r,
                        [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                        0.0,
                        self.mu_table,
                        None,
                    ),
                    Some(b) => {
                        let side = Side { body: Some(b), center: rigid::position(q, b), radius: r };
                        sphere_sphere(a, ca, r, side, self.mu_ball, None)
                    }
                };
                c.with_restitution(eps, 0.0)
            })
            .collect()
    }
    fn integrate(&self, q: &mut [f64], u: &[f64], dt: f64) {
        rigid::integrate(q, u, dt, Self::BALLS);
    }
    fn normalize(&self, q: &mut [f64]) {
        rigid::normalize(q, Self::BALLS);
    }
}

impl Scene for Billiards {
    fn name(&self) -> String {
        "billiards".into()
    }
    fn description(&self) -> String {
        format!(
            "thrown ball hits the first of three balls on a table, ε = {} (seed 000 fig. 2.3)",
            self.restitution
        )
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        let r = self.radius;
        let mut q = Vec::with_capacity(NQ * Self::BALLS);
        // The thrown ball: 8 cm above the table, 2.5 m/s along x, 4 mm off the line of balls.
        q.extend_from_slice(&[0.0, 0.004, 0.08, 1.0, 0.0, 0.0, 0.0]);
        for k in 0..3 {
            let x = 0.70 + k as f64 * (2.0 * r + 0.001);
            q.extend_from_slice(&[x, 0.0, r, 1.0, 0.0, 0.0, 0.0]);
        }
        let mut u = vec![0.0; NU * Self::BALLS];
        u[0] = 2.5;
        (q, u)
    }
    fn default_dt(&self) -> f64 {
        0.001
    }
    fn default_t_end(&self) -> f64 {
        1.0
    }
    fn default_options(&self) -> StepOptions {
        self.method.options(1.0)
    }
    fn state_names(&self) -> (Vec<String>, Vec<String>) {
        body_names(Self::BALLS)
    }
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        Some(sphere_energy(&self.balls(), q, u))
    }
    fn panels(&self, traj: &Trajectory) -> Vec<Panel> {
        let t = traj.column("t").unwrap_or_default();
        let (qn, _) = self.state_names();
        let mut panels = Vec::new();
        for (title, coord) in [("elevation: z", 2usize), ("plan: y", 1)] {
            let series = (0..Self::BALLS)
                .filter_map(|k| {
                    let x = traj.column(&qn[NQ * k])?;
                    let y = traj.column(&qn[NQ * k + coord])?;
                    Some(Series {
                        name: format!("ball {k}"),
                        points: x.into_iter().zip(y).collect(),
                        dashed: false,
                    })
                })
                .collect();
            panels.push(Panel {
                title: title.into(),
                x_label: "x [m]".into(),
                y_label: title[title.len() - 1..].into(),
                series,
            });
        }
        let energy: Vec<(f64, f64)> = traj
            .rows
            .iter()
            .zip(&t)
            .map(|(row, &s)| {
                let nq = NQ * Self::BALLS;
                (s, sphere_energy(&self.balls(), &row[1..1 + nq], &row[1 + nq..1 + nq + NU * Self::BALLS]))
            })
            .collect();
        panels.push(Panel {
            title: "energy".into(),
            x_label: "t [s]".into(),
            y_label: "E [J]".into(),
            series: vec![Series { name: "E".into(), points: energy, dashed: false }],
        });
        panels
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_directions_lie_on_the_ellipsoid_and_match_eq_5() {
        let d = aligned_directions(0.4);
        assert_eq!(d.len(), 60);
        for c in d.chunks(3) {
            let s = c[0] * c[0] + c[1] * c[1] + (c[2] / 0.4).powi(2);
            assert!((s - 1.0).abs() < 1e-12, "{c:?}");
        }
        // Column 9 of eq. 5 in generalized coordinates: v_x = t_x c_t + o_x c_o = 0.4177.
        let a = std::f64::consts::FRAC_1_SQRT_2;
        assert!((a * d[24] - 0.4177).abs() < 5e-4 && (d[26] - 0.3227).abs() < 1e-12);
        // Pure torsion and −x (in the t̂, ô frame: (−a, a)) are among them.
        assert!(d.chunks(3).any(|c| c == [0.0, 0.0, -0.4]));
        assert!(d.chunks(3).any(|c| (c[0] + a).abs() < 1e-12 && (c[1] - a).abs() < 1e-12));
    }

    #[test]
    fn plane_rows_are_the_columns_of_eq_3() {
        let s = SphereOnPlane::spin();
        let c = &s.contacts(&s.q0, 0.0)[0];
        let a = std::f64::consts::FRAC_1_SQRT_2;
        let dense = |r: &Row| {
            let mut v = [0.0; 6];
            r.axpy(1.0, &mut v);
            v
        };
        assert_eq!(dense(&c.normal), [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
        let t = dense(&c.tangents[0]);
        let o = dense(&c.tangents[1]);
        let want_t = [a, a, 0.0, a, -a, 0.0];
        let want_o = [-a, a, 0.0, a, a, 0.0];
        for i in 0..6 {
            assert!((t[i] - want_t[i]).abs() < 1e-15 && (o[i] - want_o[i]).abs() < 1e-15, "{t:?} {o:?}");
        }
        assert_eq!(dense(c.twist.as_ref().unwrap()), [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
        assert_eq!(c.gap, 0.0);
    }

    #[test]
    fn two_spheres_start_touching_both() {
        let s = SphereTwoSpheres::new();
        let (q, _) = s.initial_state();
        for c in s.contacts(&q, 0.0) {
            assert!(c.gap.abs() < 1e-12, "gap {}", c.gap);
            assert_eq!(c.dim(), 4);
        }
    }

    #[test]
    fn body_names_prefix_later_bodies() {
        let (q, u) = body_names(2);
        assert_eq!(q[0], "x");
        assert_eq!(q[7], "b1_x");
        assert_eq!(u[5], "omega_z");
        assert_eq!(u[11], "b1_omega_z");
    }
}
