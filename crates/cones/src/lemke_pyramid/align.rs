//! Pyramid alignment: where a sliding contact's extra generator goes (the point of the true
//! section whose outward normal matches the sliding direction, found by a safeguarded
//! Newton iteration on the section's angle), and the failure text of an LCP solve.

use crate::cone::{norm, Cone, MAX_DIM};
use crate::problem::FrictionContactProblem;
use perp_core::Status;
use std::f64::consts::PI;

/// Memory of the secant alignment at one contact: the force's normal angle ψ_f at the last
/// solve and the gap `ψ_u − ψ_f` to the slip's normal angle.
pub(super) type Sample = Option<(f64, f64)>;

/// An angle brought to (−π, π].
pub(super) fn wrap(a: f64) -> f64 {
    let r = a.rem_euclid(2.0 * PI);
    if r > PI {
        r - 2.0 * PI
    } else {
        r
    }
}

/// The point of the section `S_1(1)` (k = 2) with outward normal `(cos ψ, sin ψ)`: the
/// maximal-dissipation force for a slip in direction `−(cos ψ, sin ψ)`.
pub(super) fn generator_at(cone: &dyn Cone, psi: f64, out: &mut [f64]) {
    cone.support(1.0, &[-psi.cos(), -psi.sin()], out);
}

/// The normal angle of the section's boundary (k = 2) where the ray through `t ≠ 0` leaves
/// it: the ψ at which [`generator_at`] turns past `t` (for a vertex or an edge of a polygon,
/// one of its normals), by bisection on the sign of `generator_at(ψ) × t` over
/// `atan2(t) ± π/2`. One support call for a round cone.
pub(super) fn normal_angle(cone: &dyn Cone, t: &[f64]) -> f64 {
    let psi0 = t[1].atan2(t[0]);
    let cross = |psi: f64| {
        let mut gp = [0.0; 2];
        generator_at(cone, psi, &mut gp);
        (gp[0] * t[1] - gp[1] * t[0], norm(&gp))
    };
    let (c0, n0) = cross(psi0);
    if c0.abs() <= 1e-15 * n0 * norm(t) {
        return psi0;
    }
    let (mut lo, mut hi) = (psi0 - PI / 2.0, psi0 + PI / 2.0);
    if cross(lo).0 <= 0.0 || cross(hi).0 >= 0.0 {
        return psi0;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if cross(mid).0 > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Maps Lemke's failure statuses to the report's, with a message.
pub(super) fn lemke_failure(status: Status, lcp_n: usize, msg: Option<&str>) -> (Status, String) {
    let detail = msg.map(|m| format!(": {m}")).unwrap_or_default();
    let what = match status {
        Status::RayTermination => "Lemke ended on a secondary ray of the pyramid LCP",
        Status::MaxIterations => "Lemke reached the pivot limit on the pyramid LCP",
        Status::TimeLimit => "Lemke reached the time limit on the pyramid LCP",
        _ => "Lemke failed on the pyramid LCP",
    };
    let status = if status == Status::Solved { Status::NumericalFailure } else { status };
    (status, format!("{what} (size {lcp_n}){detail}"))
}

/// The point of the section `S_1(1)` with outward unit normal `n`: the maximal-dissipation
/// force for a slip along `−n` ([`Cone::support`]).
pub(super) fn generator(cone: &dyn Cone, n: &[f64], out: &mut [f64]) {
    let mut v = [0.0; MAX_DIM];
    v.iter_mut().zip(n).for_each(|(a, b)| *a = -b);
    cone.support(1.0, &v[..n.len()], out);
}

/// `n + Σ θ_b e_b`, normalised: the directions near `n` (unit) in the chart of an
/// orthonormal tangent basis `e` (`k − 1` vectors of length k, flattened).
pub(super) fn chart(n: &[f64], e: &[f64], theta: &[f64]) -> Vec<f64> {
    let k = n.len();
    let mut v = n.to_vec();
    for (b, th) in theta.iter().enumerate() {
        v.iter_mut().zip(&e[b * k..(b + 1) * k]).for_each(|(x, eb)| *x += th * eb);
    }
    let s = norm(&v);
    v.iter_mut().for_each(|x| *x /= s);
    v
}

/// An orthonormal basis of the complement of the unit vector `n` (`k − 1` vectors, flattened):
/// `(−n_y, n_x)` for k = 2, Gram–Schmidt on the coordinate axes otherwise.
pub(super) fn tangent_basis(n: &[f64]) -> Vec<f64> {
    let k = n.len();
    if k == 2 {
        return vec![-n[1], n[0]];
    }
    let mut basis: Vec<Vec<f64>> = vec![n.to_vec()];
    let mut axes: Vec<usize> = (0..k).collect();
    axes.sort_by(|&a, &b| n[a].abs().total_cmp(&n[b].abs()));
    for &ax in axes.iter().take(k - 1) {
        let mut v = vec![0.0; k];
        v[ax] = 1.0;
        for bv in &basis {
            let c: f64 = v.iter().zip(bv).map(|(x, y)| x * y).sum();
            v.iter_mut().zip(bv).for_each(|(x, y)| *x -= c * y);
        }
        let s = norm(&v);
        v.iter_mut().for_each(|x| *x /= s);
        basis.push(v);
    }
    basis[1..].concat()
}

/// What the LCP answer says a contact does, for the Newton model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `c_n = 0`: `r_i = 0`.
    Lift,
    /// `u_i = 0`, `r_i` free.
    Stick,
    /// `u_N = 0`, `r_i = ρ (1, μ G(n))` (or `ρ e_N` without friction).
    Slide,
}

/// What contact `i` does by the LCP answer: lifts off when `cn[i] ≤ 0`, slides when it has a
/// section normal (or no friction), sticks otherwise.
fn kind(p: &FrictionContactProblem, cn: &[f64], normal: &[Option<Vec<f64>>], i: usize) -> Kind {
    if cn[i] <= 0.0 {
        Kind::Lift
    } else if normal[i].is_some() || p.mu[i] == 0.0 {
        Kind::Slide
    } else {
        Kind::Stick
    }
}

/// An unknown of the frozen model: a contact and a vector of its r-space.
type Column = (usize, [f64; MAX_DIM]);

/// A sliding contact with a section normal: the contact, its column in the model, the normal
/// `n` and the tangent basis `E` of its chart ([`tangent_basis`]).
type Slide = (usize, usize, Vec<f64>, Vec<f64>);

/// The linear model of the LCP's active set, frozen (see [`newton_normals`]).
struct Frozen {
    /// Unknowns: a vector of r-space each.
    cols: Vec<Column>,
    /// Equations: a component of u each.
    rows: Vec<usize>,
    /// The sliding contacts whose normals the Newton step turns.
    slides: Vec<Slide>,
}

/// The frozen model: a sticking contact has its `d` components of r free and `u_i = 0`; a
/// sliding one the single column `(1, μ G(n))` (or `e_N`) and `u_N = 0`; a lifting one none.
fn frozen_model(
    p: &FrictionContactProblem,
    cones: &[std::sync::Arc<dyn Cone>],
    cn: &[f64],
    normal: &[Option<Vec<f64>>],
) -> Frozen {
    let d = p.dim;
    let mut cols: Vec<Column> = Vec::new();
    let mut rows: Vec<usize> = Vec::new();
    let mut slides: Vec<Slide> = Vec::new();
    for i in 0..p.contacts() {
        match kind(p, cn, normal, i) {
            Kind::Lift => {}
            Kind::Stick => {
                for c in 0..d {
                    let mut v = [0.0; MAX_DIM];
                    v[c] = 1.0;
                    cols.push((i, v));
                    rows.push(d * i + c);
                }
            }
            Kind::Slide => {
                let mut v = [0.0; MAX_DIM];
                v[0] = 1.0;
                if let Some(nv) = &normal[i] {
                    generator(cones[i].as_ref(), nv, &mut v[1..d]);
                    v[1..d].iter_mut().for_each(|x| *x *= p.mu[i]);
                    slides.push((i, cols.len(), nv.clone(), tangent_basis(nv)));
                }
                cols.push((i, v));
                rows.push(d * i);
            }
        }
    }
    Frozen { cols, rows, slides }
}

/// Adds the r-space vectors of the model's coefficients `x` (a row per column of `cols`) to
/// `out` (a row per component of r, as many columns as `x`).
fn add_columns(cols: &[Column], x: &faer::Mat<f64>, d: usize, out: &mut faer::Mat<f64>) {
    for (c, (i, v)) in cols.iter().enumerate() {
        for s in 0..x.ncols() {
            for l in 0..d {
                out[(d * i + l, s)] += x[(c, s)] * v[l];
            }
        }
    }
}

/// The derivatives of r in the chart coordinates: θ_{l,b} turns column l's friction part,
/// e = ρ_l μ_l ∂G/∂θ_b (central differences of the support function in the chart); `x` holds
/// the model's ρ. One column per coordinate, `slides.len() · (d − 2)` of them.
fn slip_derivatives(
    p: &FrictionContactProblem,
    cones: &[std::sync::Arc<dyn Cone>],
    slides: &[Slide],
    x: &faer::Mat<f64>,
) -> faer::Mat<f64> {
    let (d, k) = (p.dim, p.dim - 1);
    let nt = slides.len() * (k - 1);
    let h = 1e-7;
    let mut e = faer::Mat::<f64>::zeros(d * p.contacts(), nt);
    for (s, (i, c, nv, basis)) in slides.iter().enumerate() {
        for b in 0..k - 1 {
            let mut th = vec![0.0; k - 1];
            let (mut gp, mut gm) = ([0.0; MAX_DIM], [0.0; MAX_DIM]);
            th[b] = h;
            generator(cones[*i].as_ref(), &chart(nv, basis, &th), &mut gp[..k]);
            th[b] = -h;
            generator(cones[*i].as_ref(), &chart(nv, basis, &th), &mut gm[..k]);
            for l in 0..k {
                e[(d * i + 1 + l, s * (k - 1) + b)] = x[(*c, 0)] * p.mu[*i] * (gp[l] - gm[l]) / (2.0 * h);
            }
        }
    }
    e
}

/// The slip equations F and their Jacobian at θ = 0: F_{j,a} = e_a·(−u_T,j);
/// ∂e_a/∂θ_b = −δ_ab n gives the diagonal term n·u_T. `u` is the velocity of the model and
/// `du` its derivatives (one column per coordinate).
fn slip_equations(
    d: usize,
    slides: &[Slide],
    u: &faer::Mat<f64>,
    du: &faer::Mat<f64>,
) -> (faer::Mat<f64>, faer::Mat<f64>) {
    let (k, nt) = (d - 1, du.ncols());
    let mut f = faer::Mat::<f64>::zeros(nt, 1);
    let mut jac = faer::Mat::<f64>::zeros(nt, nt);
    for (jj, (j, _, nv, basis)) in slides.iter().enumerate() {
        let ut: Vec<f64> = (0..k).map(|l| u[(d * j + 1 + l, 0)]).collect();
        let n_dot_u: f64 = nv.iter().zip(&ut).map(|(a, b)| a * b).sum();
        for a in 0..k - 1 {
            let ea = &basis[a * k..(a + 1) * k];
            let row = jj * (k - 1) + a;
            f[(row, 0)] = -ea.iter().zip(&ut).map(|(x, y)| x * y).sum::<f64>();
            for col in 0..nt {
                jac[(row, col)] = -(0..k).map(|l| ea[l] * du[(d * j + 1 + l, col)]).sum::<f64>();
            }
            jac[(row, row)] += n_dot_u;
        }
    }
    (f, jac)
}

/// One Newton step on the slip directions of the sliding contacts with the LCP's active set
/// frozen (see the module docs). `normal[i]` is the unit normal of the section at each sliding
/// contact's force (`None` elsewhere). The unknowns are the chart coordinates θ of each normal
/// ([`chart`]); the equations `F = Eᵀ(−u_T) = 0` say that the slip is along the normal.
/// Returns the new normals, or `None` when a linear system of the model is singular.
pub(super) fn newton_normals(
    p: &FrictionContactProblem,
    wd: &faer::Mat<f64>,
    cones: &[std::sync::Arc<dyn Cone>],
    cn: &[f64],
    normal: &[Option<Vec<f64>>],
) -> Option<Vec<Option<Vec<f64>>>> {
    use faer::linalg::solvers::Solve;
    let (d, nc) = (p.dim, p.contacts());
    let (k, n) = (d - 1, d * nc);
    let Frozen { cols, rows, slides } = frozen_model(p, cones, cn, normal);
    let m = cols.len();
    if slides.is_empty() {
        return None;
    }
    let wcol = |row: usize, (i, v): &Column| (0..d).map(|l| wd[(row, d * i + l)] * v[l]).sum::<f64>();
    let lu = faer::Mat::from_fn(m, m, |r, c| wcol(rows[r], &cols[c])).partial_piv_lu();
    let x = lu.solve(faer::Mat::from_fn(m, 1, |r, _| -p.q[rows[r]]));
    let mut r = faer::Mat::<f64>::zeros(n, 1);
    add_columns(&cols, &x, d, &mut r);
    let mut u = wd * &r;
    for j in 0..n {
        u[(j, 0)] += p.q[j];
    }
    let mut dr = slip_derivatives(p, cones, &slides, &x);
    let nt = dr.ncols();
    let we = wd * &dr;
    let dx = lu.solve(faer::Mat::from_fn(m, nt, |rr, s| -we[(rows[rr], s)]));
    add_columns(&cols, &dx, d, &mut dr);
    let du = wd * &dr;
    let (f, jac) = slip_equations(d, &slides, &u, &du);
    let step = jac.partial_piv_lu().solve(&f);
    let big = (0..nt).map(|s| step[(s, 0)].abs()).fold(0.0f64, f64::max);
    if !big.is_finite() || !(0..m).all(|c| x[(c, 0)].is_finite()) {
        return None;
    }
    let scale = if big > PI / 8.0 { PI / 8.0 / big } else { 1.0 };
    let mut out = vec![None; nc];
    for (s, (i, _, nv, basis)) in slides.iter().enumerate() {
        let th: Vec<f64> = (0..k - 1).map(|b| -scale * step[(s * (k - 1) + b, 0)]).collect();
        out[*i] = Some(chart(nv, basis, &th));
    }
    Some(out)
}
