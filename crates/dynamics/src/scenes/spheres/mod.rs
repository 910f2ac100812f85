//! Spheres: the sphere-on-plane experiments and the sphere between two spheres of
//! Trinkle–Tzitzouris–Pang (Trinkle–Tzitzouris–Pang 2001 §4), and Stewart's billiards (Stewart 2000 fig. 2.3).
//!
//! Every body is a uniform sphere in the layout of [`crate::rigid`]: coordinates
//! `(x, y, z, q_w, q_x, q_y, q_z)`, velocities `(v, ω)` in the world frame. A sphere's world
//! inertia `⅖ m r² E₃` does not depend on its orientation and its gyroscopic term `ω × Iω`
//! vanishes, so `M` is constant (Trinkle–Tzitzouris–Pang 2001 eq. 3: `M = diag(E₃, ⅖E₃)` for unit mass and
//! radius) and `h` is gravity plus the external force.
//!
//! Contacts with a plane or a sphere are written with [`rigid::point_row`] at the contact point
//! `p = −r n̂` (relative to the moving sphere's center), so the rows are the columns of the
//! paper's Jacobian `𝒥` (eq. 3). Torsion (Trinkle–Tzitzouris–Pang 2001 eq. 1) adds the twist row `ω · n̂` and the
//! elliptic cone `e = [e_t, e_o, e_r]`: `c_t² / e_t² + c_o² / e_o² + c_r² / e_r² ≤ μ² c_n²`.
//!
//! Three ways to pose each step ([`Method`]):
//!
//! * [`Method::Cone`]: the exact elliptic cone, a frictional contact problem in the local
//!   variables `(n, t, o, r)` solved by `nsgs` (Alart–Curnier Newton per contact: the 4-D
//!   elliptic law is handled exactly), on Moreau's midpoint scheme.
//! * [`Method::Stewart`]: the paper's "Stewart method" — the Stewart–Trinkle LCP (Stewart 2000
//!   eq. 2.16) with the linearized friction ellipsoid of Trinkle–Tzitzouris–Pang 2001 eq. 5 ([`aligned_directions`]),
//!   solved by Lemke, on the semi-implicit Euler scheme of Stewart 2000 eq. 2.11–2.15.
//! * [`Method::TzitzourisPang`]: the NCP of Trinkle–Tzitzouris–Pang 2001 §4 with the nonlinear elliptic law (eq. 2),
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

/// Gravity `g` (m/s²) (Trinkle–Tzitzouris–Pang 2001 eq. 3: `g_obj = [0, 0, −9.81, 0, 0, 0]`).
pub const G: f64 = 9.81;

/// This module's scenes.
pub fn catalog() -> Vec<SceneInfo> {
    vec![
        SceneInfo {
            name: "sphere-spin",
            description: "sphere spinning in place on a plane, torsional friction (Trinkle–Tzitzouris–Pang 2001 §4.1.1, eq. 4)",
            default_size: None,
            build: |_| Ok(Box::new(SphereOnPlane::spin())),
        },
        SceneInfo {
            name: "sphere-slide",
            description: "sphere sliding then rolling on a plane (Trinkle–Tzitzouris–Pang 2001 §4.1.3, eq. 7)",
            default_size: None,
            build: |_| Ok(Box::new(SphereOnPlane::slide())),
        },
        SceneInfo {
            name: "bowling-ball",
            description: "hooking bowling ball on an oiled lane, μ = 0.01 (Trinkle–Tzitzouris–Pang 2001 §4.1.5, eq. 8)",
            default_size: None,
            build: |_| Ok(Box::new(SphereOnPlane::bowling())),
        },
        SceneInfo {
            name: "sphere-rolling",
            description: "solid sphere rolling on a level plane with rolling resistance μ_r = 0.1: \
                          decelerates at 5 μ_r g / 7, stops at 7 v₀ / (5 μ_r g) (issue 35)",
            default_size: None,
            build: |_| Ok(Box::new(SphereRolling::level())),
        },
        SceneInfo {
            name: "sphere-rolling-slope",
            description: "solid sphere on a 10° incline, rolling resistance μ_r = 0.1: held iff tan α ≤ μ_r, \
                          else rolls at 5/7 g (sin α − μ_r cos α) (issue 35)",
            default_size: None,
            build: |_| Ok(Box::new(SphereRolling::slope())),
        },
        SceneInfo {
            name: "sphere-two-spheres",
            description: "unit sphere driven along the seam between two fixed spheres (Trinkle–Tzitzouris–Pang 2001 §4.2, eq. 9)",
            default_size: None,
            build: |_| Ok(Box::new(SphereTwoSpheres::new())),
        },
        SceneInfo {
            name: "billiards",
            description: "ball thrown onto a table hits the first of three balls in a line, ε = 0.9 (Stewart 2000 fig. 2.3)",
            default_size: None,
            build: |_| Ok(Box::new(Billiards::new())),
        },
    ]
}

/// How a sphere scene poses and solves its contact problems (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Exact elliptic cones, frictional contact problem (`nsgs`), Moreau midpoint.
    Cone,
    /// Stewart–Trinkle LCP with the directions of Trinkle–Tzitzouris–Pang 2001 eq. 5 (Lemke), semi-implicit Euler.
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

/// `r / e_r` of the two latitude circles of Trinkle–Tzitzouris–Pang 2001 eq. 5 (the entries 0.3227 with `e_r = 0.4`).
const LATITUDE: f64 = 0.3227 / 0.4;

/// The 20 friction directions of Trinkle–Tzitzouris–Pang 2001 eq. 5 (fig. 3) in the local tangential coordinates
/// `(t, o, r)` of a contact with elliptic cone `e = [1, 1, e_r]`, column-major `3 × 20`, each
/// on the ellipsoid's surface (section at μ = 1):
///
/// * 8 on the equator at 45° steps, `(cos θ, sin θ, 0)` — columns 1–8; with the paper's frame
///   (t̂, ô rotated π/4 from x, y) they include `−x`, the friction of `sphere-slide`;
/// * 5 on each latitude circle `r = ±0.3227 e_r / 0.4` at 72° steps from `t̂` — columns 9–18;
/// * the poles `(0, 0, ±e_r)` — columns 19–20, the pure torsion direction of `sphere-spin`.
///
/// The Stewart method is exact on `sphere-spin` and `sphere-slide` because one of these points
/// along the true friction (Trinkle–Tzitzouris–Pang 2001 §4.1.1, §4.1.3). The Stewart–Trinkle LCP then has size
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
/// `v_x, v_y, v_z, omega_x, omega_y, omega_z`, prefixed `b{k}_` for body `k` (`b0_x`, …,
/// `b1_x`, …: every body the same way).
pub fn body_names(bodies: usize) -> (Vec<String>, Vec<String>) {
    let qn = ["x", "y", "z", "qw", "qx", "qy", "qz"];
    let un = ["v_x", "v_y", "v_z", "omega_x", "omega_y", "omega_z"];
    let prefix = |k: usize| format!("b{k}_");
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
/// nonlinear distance of Trinkle–Tzitzouris–Pang 2001 §4.2), normal along `c_a − c_b`, tangents from
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
    let (d, dist) = center_distance(c_a, &b);
    // Coincident centers (never in a valid state) get an arbitrary normal rather than NaN.
    let n = if dist > 1e-12 { [d[0] / dist, d[1] / dist, d[2] / dist] } else { [0.0, 0.0, 1.0] };
    let (t, o) = rigid::tangents(n);
    set_contact_rows(c, a, r_a, b.body.map(|k| (k, b.radius)), [n, t, o], e_r.is_some());
    set_law(c, dist - r_a - b.radius, mu, e_r);
}

/// The gap of [`sphere_sphere`]'s contact alone, the same to the bit.
pub fn sphere_gap(c_a: [f64; 3], r_a: f64, b: &Side) -> f64 {
    center_distance(c_a, b).1 - r_a - b.radius
}

/// `c_a − c_b` and its length.
fn center_distance(c_a: [f64; 3], b: &Side) -> ([f64; 3], f64) {
    let d = [c_a[0] - b.center[0], c_a[1] - b.center[1], c_a[2] - b.center[2]];
    (d, rigid::dot(d, d).sqrt())
}

/// The gap and friction law of a sphere contact (no bias, drift, restitution or rolling rows;
/// the Coulomb cone, or the elliptic cone `[1, 1, e_r]` with a twist row), reusing `c`'s
/// storage.
fn set_law(c: &mut Contact, gap: f64, mu: f64, e_r: Option<f64>) {
    c.gap = gap;
    c.bias.clear();
    c.drift.clear();
    c.mu = mu;
    c.restitution_n = 0.0;
    c.restitution_t = 0.0;
    c.rolling.clear();
    match (e_r, &mut c.cone) {
        (Some(e), ConeSpec::Elliptic { e: v }) => {
            v.clear();
            v.extend([1.0, 1.0, e]);
        }
        (Some(e), cone) => *cone = ConeSpec::Elliptic { e: vec![1.0, 1.0, e] },
        (None, cone) => *cone = ConeSpec::Coulomb,
    }
}

/// A fixed plane `{x : n · x = offset}` with its frame `[n, t, o]`: unit `n` pointing out of the
/// solid, tangents `t`, `o` completing the right-handed frame.
#[derive(Clone, Copy, Debug)]
pub struct Plane {
    /// `[n, t, o]`.
    pub frame: [[f64; 3]; 3],
    /// The plane's `n · x`.
    pub offset: f64,
}

/// The contact between sphere `a` (center `c`, radius `r`) and the fixed `plane`, in the
/// plane's frame: gap `n · c − offset − r`.
pub fn sphere_plane(a: usize, c: [f64; 3], r: f64, plane: Plane, mu: f64, e_r: Option<f64>) -> Contact {
    let mut cont = Contact::new(0.0, Row::default(), Vec::new(), mu);
    set_sphere_plane(&mut cont, a, c, r, plane, mu, e_r);
    cont
}

/// [`sphere_plane`] written into `cont`, reusing its rows' storage.
pub fn set_sphere_plane(
    cont: &mut Contact,
    a: usize,
    c: [f64; 3],
    r: f64,
    plane: Plane,
    mu: f64,
    e_r: Option<f64>,
) {
    let Plane { frame, offset } = plane;
    set_contact_rows(cont, a, r, None, frame, e_r.is_some());
    set_law(cont, rigid::dot(frame[0], c) - offset - r, mu, e_r);
}

/// Fills `out` with `count` contacts through `set(k, contact)`, reusing the contacts already
/// there (a scene's [`System::contacts_into`](crate::System::contacts_into)).
fn contacts_with(out: &mut Vec<Contact>, count: usize, mut set: impl FnMut(usize, &mut Contact)) {
    out.truncate(count);
    while out.len() < count {
        out.push(Contact::new(0.0, Row::default(), Vec::new(), 0.0));
    }
    out.iter_mut().enumerate().for_each(|(k, c)| set(k, c));
}

/// The [`System`] methods of a scene of one free sphere of mass `$m` and radius `$r` (a
/// solid ball): its degrees of freedom and coordinates, its constant mass, and the rigid-body
/// integration and normalization of its orientation.
macro_rules! one_sphere_system {
    ($m:expr, $r:expr) => {
        fn dofs(&self) -> usize {
            NU
        }
        fn coords(&self) -> usize {
            NQ
        }
        fn mass(&self, _q: &[f64], _t: f64) -> Matrix {
            sphere_mass(&[($m, $r)])
        }
        fn constant_mass(&self) -> bool {
            true
        }
        fn integrate(&self, q: &mut [f64], u: &[f64], dt: f64) {
            rigid::integrate(q, u, dt, 1);
        }
        fn normalize(&self, q: &mut [f64]) {
            rigid::normalize(q, 1);
        }
    };
}

mod billiards;
mod on_plane;
mod rolling;
mod two_spheres;

pub use billiards::Billiards;
pub use on_plane::SphereOnPlane;
pub use rolling::SphereRolling;
pub use two_spheres::SphereTwoSpheres;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contacts_into_a_used_buffer_equals_fresh_contacts() {
        // A buffer holding other contacts (Coulomb cones, rheonomic terms, restitution, a
        // wrong count) is overwritten entirely.
        let mut stale = Contact::new(1.0, Row::dense(&[1.0, 2.0, 3.0]), vec![Row::dense(&[4.0])], 0.9)
            .with_restitution(0.5, 0.2);
        stale.bias = vec![1.0, 2.0];
        let systems: [&dyn System; 3] =
            [&SphereOnPlane::slide(), &SphereOnPlane::spin(), &SphereTwoSpheres::new()];
        for sys in systems {
            for count in [0, 1, 4] {
                let mut buf = vec![stale.clone(); count];
                let mut q = vec![0.0; sys.dofs() + 1];
                q[3] = 1.0;
                for z in [1.0, 1.7] {
                    q[2] = z;
                    sys.contacts_into(&q, 0.0, &mut buf);
                    let fresh = sys.contacts(&q, 0.0);
                    assert_eq!(format!("{buf:?}"), format!("{fresh:?}"));
                }
            }
        }
    }

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
    fn body_names_prefix_every_body() {
        let (q, u) = body_names(2);
        assert_eq!(q[0], "b0_x");
        assert_eq!(q[7], "b1_x");
        assert_eq!(u[5], "b0_omega_z");
        assert_eq!(u[11], "b1_omega_z");
    }
}
