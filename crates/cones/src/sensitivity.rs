//! Derivatives of a frictional contact solution with respect to q, μ and W, by implicit
//! differentiation of the natural map.
//!
//! A solution `(r, u = W r + q)` is a zero of the contact-wise natural map in De Saxcé's form
//! (`Cone::natural_map`; Acary–Brémond–Huber 2018, eq. (23); De Saxcé–Feng 1991 for the
//! modified velocity `ũ = u + μ‖u_T‖ e_N` of the Coulomb law)
//!
//! ```text
//!     φ_i(r_i, u_i, μ_i) = r_i − P_{K_μᵢ}(r_i − ρ ũ_i) = 0,        i = 1 … nc.
//! ```
//!
//! Where every `P_K` is differentiable at its argument `x_i = r_i − ρ ũ_i` (no contact
//! degenerate, see below) and the linearized system is nonsingular, the implicit-function
//! theorem gives, with `J_r = ∂φ/∂r`, `J_u = ∂φ/∂u` (block diagonal) and `J_μ = ∂φ/∂μ`,
//!
//! ```text
//!     (J_r + J_u W) dr = −J_u (dq + dW r) − J_μ dμ,        du = W dr + dq + dW r.
//! ```
//!
//! Separated contacts (`x_i` inside the polar cone: `r_i = 0`, `u_N > 0`) have `J_r = I`,
//! `J_u = 0` and drop out (`dr_i = 0`); the rest — sticking (`x_i` inside K: `du_i = 0`) and
//! sliding (`x_i` outside both) contacts — form the reduced system, factorized once (one LU)
//! when the sensitivity is made; each JVP and VJP afterwards is a pair of triangular solves.
//!
//! `J_r` and `J_u` come from the cone's `project_jacobian` (exact for [`crate::Coulomb`] and
//! [`crate::Elliptic`]; central differences of `project` by default, so a custom law works
//! without writing one); `J_μ` is a central difference of `natural_map` in μ (step
//! `1e-6·max(μ, 1e-3)`, one-sided second order near μ = 0), exact to about 1e-10 relative.
//!
//! **Rolling resistance.** A contact of the rolling law ([`crate::Rolling`]; `ũ_N = u_N +
//! μ‖u_T‖ + μ_r‖u_R‖`) goes through the same equations with its own cone's exact projection
//! Jacobian; its coefficient μ_r, held in the law (`ConeSpec::Rolling { mu_r }`), enters as μ
//! does, `J_{μ_r} dμ_r` beside `J_μ dμ`, `J_{μ_r}` by the same central difference of
//! `natural_map` in μ_r ([`FrictionSensitivity::jvp_all`], [`FrictionCotangent::mu_r`]).
//! Its projection has, besides the surfaces of K and of its polar, the kinks where one part
//! switches between inside its ball and on it while the other slides or rolls (`‖x_T‖ = μ n`
//! or `‖x_R‖ = μ_r n` at the projection's normal part n); these are flagged as degenerate too.
//!
//! **Degenerate contacts.** `P_K` is not differentiable on the boundaries of K and of its
//! polar: a contact at the stick/slip boundary (`r_i` on the cone's surface, `ũ_i = 0`), or
//! separating with zero force (`r_i = 0`, `u_N = 0`), or with both zero. There the
//! map has only directional derivatives; perp then uses the element of the generalized
//! Jacobian that the cone's `project_jacobian` returns at `x_i` (for Coulomb: the identity on
//! the cone's surface — the sticking piece — and 0 at the polar's surface — the separated
//! piece) and lists the contact in [`FrictionSensitivity::degenerate`]. The test is scale-free:
//! `x_i` within `tol · s` of either surface, `s` the scale of the r's and of ρ·ũ (a polyhedral
//! cone's kinks between its faces are not detected).

use crate::{Cone, ConeSpec, FrictionContactProblem, FrictionSolution, Rolling, MAX_DIM};
use perp_core::sensitivity::{self as sens, ActiveSet};
use perp_core::{measures, Error, Matrix};
use std::sync::Arc;

/// How a contact behaves at the solution (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactState {
    /// `r = 0`, moving apart: `dr = 0`.
    Separated,
    /// The reaction strictly inside its cone: `du = 0`.
    Sticking,
    /// The reaction on the cone's surface, sliding (or, with μ = 0, any contact that pushes;
    /// for a rolling contact, at least one of its parts on its ball: sliding or rolling).
    Sliding,
    /// At a kink of the projection (stick/slip boundary, or zero force and zero normal
    /// velocity): derivatives are those of a documented element.
    Degenerate,
}

/// The derivatives of a frictional contact solution, made by [`sensitivity`].
pub struct FrictionSensitivity {
    dim: usize,
    r: Vec<f64>,
    /// `∂φ/∂u` per contact (d × d row-major blocks).
    ju: Vec<f64>,
    /// `∂φ/∂μ` per contact (d values).
    jmu: Vec<f64>,
    /// `∂φ/∂μ_r` per contact (d values; 0 for a contact whose law is not rolling).
    jmur: Vec<f64>,
    w: Matrix,
    set: ActiveSet,
    states: Vec<ContactState>,
    degenerate: Vec<usize>,
}

impl std::fmt::Debug for FrictionSensitivity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrictionSensitivity")
            .field("dim", &self.dim)
            .field("contacts", &self.states.len())
            .field("states", &self.states)
            .finish()
    }
}

/// A direction's image: `dr` and `du`.
#[derive(Clone, Debug, PartialEq)]
pub struct FrictionTangent {
    /// The reactions' derivative.
    pub r: Vec<f64>,
    /// The velocities' derivative, `W dr + dq + dW r`.
    pub u: Vec<f64>,
}

/// A loss gradient pulled back to the data: `∇_q`, `∇_μ` (and `∇_W` through
/// [`FrictionSensitivity::vjp_w`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FrictionCotangent {
    /// Gradient with respect to q.
    pub q: Vec<f64>,
    /// Gradient with respect to μ (one per contact).
    pub mu: Vec<f64>,
    /// Gradient with respect to the rolling coefficients μ_r (one per contact; 0 for a
    /// contact whose law is not [`ConeSpec::Rolling`](crate::ConeSpec::Rolling)).
    pub mu_r: Vec<f64>,
}

/// The sensitivity of `sol`, a solution of `p`, with the default degeneracy threshold
/// ([`perp_core::sensitivity::DEGENERACY_TOL`]).
///
/// `Err` when `sol` is not `Solved`, has the wrong lengths, is not a solution of `p` (its
/// error recomputed from r above `max(10 × reported, 1e-6)`), or when the reduced system is
/// singular (the reactions are not locally unique: redundant contacts).
///
/// ```
/// use perp_cones::{FrictionContactProblem, FrictionSolver, Nsgs};
/// use perp_core::{Matrix, Settings};
/// // W = I, pushed down (q_N = −1) and sideways (q_T = 2), μ = 0.5: sliding, r = (1, −0.5, 0).
/// let w = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])?;
/// let p = FrictionContactProblem::new(3, w, vec![-1.0, 2.0, 0.0], vec![0.5])?;
/// let sol = Nsgs::new().solve(&p, None, &Settings { tol: 1e-12, ..Settings::default() })?;
/// let s = perp_cones::sensitivity(&p, &sol)?;
/// let dr = s.jvp_mu(&[1.0]); // r_T = −μ r_N: d r_T / dμ = −1
/// assert!((dr[0]).abs() < 1e-9 && (dr[1] + 1.0).abs() < 1e-6);
/// # Ok::<(), perp_core::Error>(())
/// ```
pub fn sensitivity(p: &FrictionContactProblem, sol: &FrictionSolution) -> Result<FrictionSensitivity, Error> {
    sensitivity_with(p, sol, sens::DEGENERACY_TOL)
}

/// [`sensitivity`] with a chosen degeneracy threshold.
pub fn sensitivity_with(
    p: &FrictionContactProblem,
    sol: &FrictionSolution,
    tol: f64,
) -> Result<FrictionSensitivity, Error> {
    sens::require_solved(&sol.report)?;
    let (d, nc, n) = (p.dim, p.contacts(), p.size());
    sens::check_vector("solution r", &sol.r, n)?;
    let r = sol.r.clone();
    let u = p.velocity(&r);
    sens::require_answer_of(p.error(&r, &u), sol.report.error, tol)?;
    let cones = p.cone_objects()?;

    // ρ balances the scales of r and ũ, so that x = r − ρũ is scale-free.
    let w_max = p.w.max_abs().max(f64::MIN_POSITIVE);
    let q_inf = measures::norm_inf(&p.q);
    let r_scale = measures::norm_inf(&r).max(q_inf / w_max).max(f64::MIN_POSITIVE);
    let u_scale = q_inf.max(w_max * measures::norm_inf(&r)).max(f64::MIN_POSITIVE);
    let rho = r_scale / u_scale;
    let delta = tol * r_scale;

    let (mut jr, mut ju, mut jmu) = (vec![0.0; nc * d * d], vec![0.0; nc * d * d], vec![0.0; n]);
    let mut jmur = vec![0.0; n];
    let (mut states, mut degenerate, mut free) = (Vec::with_capacity(nc), Vec::new(), Vec::new());
    let mut phi = [0.0; MAX_DIM];
    let mut ut = [0.0; MAX_DIM];
    for i in 0..nc {
        let (s, b) = (d * i..d * (i + 1), d * d * i..d * d * (i + 1));
        let (cone, mu) = (&cones[i], p.mu[i]);
        cone.natural_map(
            mu,
            rho,
            &r[s.clone()],
            &u[s.clone()],
            &mut phi[..d],
            Some((&mut jr[b.clone()], &mut ju[b.clone()])),
        );
        d_dmu(cone, mu, rho, &r[s.clone()], &u[s.clone()], &mut jmu[s.clone()]);
        let rolling = match p.cones.as_ref().map(|c| &c[i]) {
            Some(ConeSpec::Rolling { mu_r }) => Some(Rolling::new(d, *mu_r)?),
            _ => None,
        };
        if let Some(law) = &rolling {
            d_dmu_r(law, mu, rho, &r[s.clone()], &u[s.clone()], &mut jmur[s.clone()])?;
        }
        cone.modified_velocity(mu, &u[s.clone()], &mut ut[..d], None);
        let mut x = [0.0; MAX_DIM];
        for k in 0..d {
            x[k] = r[d * i + k] - rho * ut[k];
        }
        let mut state = classify(cone.as_ref(), mu, &x[..d], delta);
        if rolling.is_some_and(|law| law.at_kink(mu, &x[..d], delta)) {
            state = ContactState::Degenerate;
        }
        if state == ContactState::Degenerate {
            degenerate.push(i);
        }
        // A contact is out of the reduced system when φ = r there (dr = 0): J_u = 0, J_r = I.
        let separated = ju[b.clone()].iter().all(|v| *v == 0.0)
            && (0..d * d).all(|e| jr[b.start + e] == f64::from(u8::from(e % (d + 1) == 0)))
            && jmu[s.clone()].iter().all(|v| *v == 0.0)
            && jmur[s.clone()].iter().all(|v| *v == 0.0);
        if !separated {
            free.extend(s);
        }
        states.push(state);
    }
    let block = reduced_matrix(&p.w, d, &free, &jr, &ju);
    let set =
        ActiveSet::from_reduced(n, free, &block, "contact law (J_r + J_u W on the non-separated contacts)")?;
    Ok(FrictionSensitivity { dim: d, r, ju, jmu, jmur, w: p.w.clone(), set, states, degenerate })
}

/// `∂φ/∂μ_r` of a rolling contact by central differences (one-sided, second order, when μ_r
/// is below the step), as [`d_dmu`] in μ.
fn d_dmu_r(law: &Rolling, mu: f64, rho: f64, r: &[f64], u: &[f64], out: &mut [f64]) -> Result<(), Error> {
    let d = r.len();
    let mur = law.mu_r();
    let h = 1e-6 * mur.max(1e-3);
    let eval = |m: f64| -> Result<[f64; MAX_DIM], Error> {
        let mut phi = [0.0; MAX_DIM];
        Rolling::new(d, m)?.natural_map(mu, rho, r, u, &mut phi[..d], None);
        Ok(phi)
    };
    if mur >= h {
        let (fp, fm) = (eval(mur + h)?, eval(mur - h)?);
        for k in 0..d {
            out[k] = (fp[k] - fm[k]) / (2.0 * h);
        }
    } else {
        let (f0, f1, f2) = (eval(mur)?, eval(mur + h)?, eval(mur + 2.0 * h)?);
        for k in 0..d {
            out[k] = (-3.0 * f0[k] + 4.0 * f1[k] - f2[k]) / (2.0 * h);
        }
    }
    Ok(())
}

/// `∂φ/∂μ` by central differences (one-sided, second order, when μ is below the step).
fn d_dmu(cone: &Arc<dyn Cone>, mu: f64, rho: f64, r: &[f64], u: &[f64], out: &mut [f64]) {
    let d = r.len();
    let h = 1e-6 * mu.max(1e-3);
    let eval = |m: f64| {
        let mut phi = [0.0; MAX_DIM];
        cone.natural_map(m, rho, r, u, &mut phi[..d], None);
        phi
    };
    if mu >= h {
        let (fp, fm) = (eval(mu + h), eval(mu - h));
        for k in 0..d {
            out[k] = (fp[k] - fm[k]) / (2.0 * h);
        }
    } else {
        let (f0, f1, f2) = (eval(mu), eval(mu + h), eval(mu + 2.0 * h));
        for k in 0..d {
            out[k] = (-3.0 * f0[k] + 4.0 * f1[k] - f2[k]) / (2.0 * h);
        }
    }
}

/// Where `x = r − ρũ` sits: inside K (sticking), inside the polar (separated), outside both
/// (sliding), or within `delta` of either surface (degenerate).
fn classify(cone: &dyn Cone, mu: f64, x: &[f64], delta: f64) -> ContactState {
    let d = x.len();
    let mut p = [0.0; MAX_DIM];
    let mut proj = |y: &[f64]| {
        cone.project(mu, y, &mut p[..d]);
        let dist_k = y.iter().zip(&p[..d]).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
        (dist_k, measures::norm2(&p[..d]))
    };
    let tiny = 1e-12 * (measures::norm2(x) + delta);
    let (dist_k, dist_polar) = proj(x);
    let shifted = |sign: f64| {
        let mut y = [0.0; MAX_DIM];
        y[..d].copy_from_slice(x);
        y[0] += sign * delta;
        y
    };
    let in_k = dist_k <= tiny;
    let in_polar = dist_polar <= tiny;
    let near_k = if in_k { proj(&shifted(-1.0)[..d]).0 > tiny } else { dist_k <= delta };
    let near_polar = if in_polar { proj(&shifted(1.0)[..d]).1 > tiny } else { dist_polar <= delta };
    if near_k || near_polar {
        ContactState::Degenerate
    } else if in_k {
        ContactState::Sticking
    } else if in_polar {
        ContactState::Separated
    } else {
        ContactState::Sliding
    }
}

/// `(J_r + J_u W)` on the rows and columns `free` (whole contacts), in W's storage kind.
fn reduced_matrix(w: &Matrix, d: usize, free: &[usize], jr: &[f64], ju: &[f64]) -> Matrix {
    let k = free.len();
    let n = w.nrows();
    let mut pos = vec![usize::MAX; n];
    for (a, &i) in free.iter().enumerate() {
        pos[i] = a;
    }
    // Entry (i, j) of J_u W for row i of contact c: Σ_l ju_c[i_loc, l] W[c·d + l, j].
    match w {
        Matrix::Dense(m) => {
            let mut a = faer::Mat::<f64>::zeros(k, k);
            for (ra, &i) in free.iter().enumerate() {
                let (c, il) = (i / d, i % d);
                let row = &ju[c * d * d + il * d..c * d * d + (il + 1) * d];
                for (cb, &j) in free.iter().enumerate() {
                    let mut s = 0.0;
                    for l in 0..d {
                        s += row[l] * m[(c * d + l, j)];
                    }
                    if j / d == c {
                        s += jr[c * d * d + il * d + j % d];
                    }
                    a[(ra, cb)] = s;
                }
            }
            Matrix::Dense(a)
        }
        Matrix::Sparse(s) => {
            let csr = s.to_csr();
            let mut tri = sprs::TriMat::new((k, k));
            for (ra, &i) in free.iter().enumerate() {
                let (c, il) = (i / d, i % d);
                for l in 0..d {
                    let coef = ju[c * d * d + il * d + l];
                    if coef == 0.0 {
                        continue;
                    }
                    if let Some(row) = csr.outer_view(c * d + l) {
                        for (j, v) in row.iter() {
                            if pos[j] != usize::MAX {
                                tri.add_triplet(ra, pos[j], coef * v);
                            }
                        }
                    }
                }
                for jl in 0..d {
                    let v = jr[c * d * d + il * d + jl];
                    if v != 0.0 && pos[c * d + jl] != usize::MAX {
                        tri.add_triplet(ra, pos[c * d + jl], v);
                    }
                }
            }
            Matrix::Sparse(tri.to_csr())
        }
    }
}

impl FrictionSensitivity {
    fn n(&self) -> usize {
        self.r.len()
    }

    /// `Σ_blocks J_u · v` per contact.
    fn apply_ju(&self, v: &[f64], transpose: bool) -> Vec<f64> {
        let d = self.dim;
        let mut out = vec![0.0; v.len()];
        for c in 0..v.len() / d {
            let b = &self.ju[c * d * d..(c + 1) * d * d];
            for i in 0..d {
                for l in 0..d {
                    let jl = if transpose { b[l * d + i] } else { b[i * d + l] };
                    out[c * d + i] += jl * v[c * d + l];
                }
            }
        }
        out
    }

    /// The image of a direction in the data: any of `dq` (length dim·nc), `dmu` (one per
    /// contact), `dw` (the size of W).
    ///
    /// # Panics
    /// On a wrong length or shape.
    pub fn jvp(&self, dq: Option<&[f64]>, dmu: Option<&[f64]>, dw: Option<&Matrix>) -> FrictionTangent {
        self.jvp_all(dq, dmu, None, dw)
    }

    /// [`jvp`](Self::jvp) with a direction `dmu_r` in the rolling coefficients too (one per
    /// contact; a contact whose law is not rolling ignores its entry).
    ///
    /// # Panics
    /// On a wrong length or shape.
    pub fn jvp_all(
        &self,
        dq: Option<&[f64]>,
        dmu: Option<&[f64]>,
        dmu_r: Option<&[f64]>,
        dw: Option<&Matrix>,
    ) -> FrictionTangent {
        let (n, d) = (self.n(), self.dim);
        // e = dq + dW r: what enters u.
        let mut e = vec![0.0; n];
        if let Some(dq) = dq {
            assert_eq!(dq.len(), n, "jvp: dq has length {}, expected {n}", dq.len());
            e.copy_from_slice(dq);
        }
        if let Some(dw) = dw {
            assert!(dw.nrows() == n && dw.ncols() == n, "jvp: dW must be {n} × {n}");
            let mut dwr = vec![0.0; n];
            dw.mul_vec(&self.r, &mut dwr);
            e.iter_mut().zip(&dwr).for_each(|(a, b)| *a += b);
        }
        let mut rhs = self.apply_ju(&e, false);
        if let Some(dmu) = dmu {
            assert_eq!(dmu.len(), n / d, "jvp: dmu has length {}, expected {} contacts", dmu.len(), n / d);
            for (k, v) in rhs.iter_mut().enumerate() {
                *v += self.jmu[k] * dmu[k / d];
            }
        }
        if let Some(dmu_r) = dmu_r {
            assert_eq!(
                dmu_r.len(),
                n / d,
                "jvp: dmu_r has length {}, expected {} contacts",
                dmu_r.len(),
                n / d
            );
            for (k, v) in rhs.iter_mut().enumerate() {
                *v += self.jmur[k] * dmu_r[k / d];
            }
        }
        rhs.iter_mut().for_each(|v| *v = -*v);
        let dr = self.set.solve(&rhs);
        let mut du = vec![0.0; n];
        self.w.mul_vec(&dr, &mut du);
        du.iter_mut().zip(&e).for_each(|(a, b)| *a += b);
        FrictionTangent { r: dr, u: du }
    }

    /// `dr` for a perturbation `dq` of q.
    pub fn jvp_q(&self, dq: &[f64]) -> Vec<f64> {
        self.jvp(Some(dq), None, None).r
    }

    /// `dr` for a perturbation `dmu` of the friction coefficients.
    pub fn jvp_mu(&self, dmu: &[f64]) -> Vec<f64> {
        self.jvp(None, Some(dmu), None).r
    }

    /// `dr` for a perturbation `dmu_r` of the rolling coefficients (one per contact).
    pub fn jvp_mu_r(&self, dmu_r: &[f64]) -> Vec<f64> {
        self.jvp_all(None, None, Some(dmu_r), None).r
    }

    /// `dr` for a perturbation `dw` of W.
    pub fn jvp_w(&self, dw: &Matrix) -> Vec<f64> {
        self.jvp(None, None, Some(dw)).r
    }

    /// The gradients with respect to q, μ and μ_r of `⟨g_r, r⟩ + ⟨g_u, u⟩` (`g_u` optional).
    ///
    /// # Panics
    /// On a wrong length.
    pub fn vjp(&self, g_r: &[f64], g_u: Option<&[f64]>) -> FrictionCotangent {
        let (n, d) = (self.n(), self.dim);
        assert_eq!(g_r.len(), n, "vjp: g_r has length {}, expected {n}", g_r.len());
        // g̃ = g_r + Wᵀ g_u; λ = A⁻ᵀ g̃; ∇_q = −J_uᵀ λ + g_u; ∇_μ_i = −J_μ,iᵀ λ_i.
        let mut gt = g_r.to_vec();
        if let Some(gu) = g_u {
            assert_eq!(gu.len(), n, "vjp: g_u has length {}, expected {n}", gu.len());
            // g̃ += Wᵀ g_u, read from W as stored (no transposed copy).
            match &self.w {
                Matrix::Dense(m) => {
                    for (j, t) in gt.iter_mut().enumerate() {
                        *t += m.col_as_slice(j).iter().zip(gu).map(|(a, b)| a * b).sum::<f64>();
                    }
                }
                Matrix::Sparse(s) => {
                    for (v, (i, j)) in s.iter() {
                        gt[j] += v * gu[i];
                    }
                }
            }
        }
        let lambda = self.set.solve_transpose(&gt);
        let mut q = self.apply_ju(&lambda, true);
        q.iter_mut().for_each(|v| *v = -*v);
        if let Some(gu) = g_u {
            q.iter_mut().zip(gu).for_each(|(a, b)| *a += b);
        }
        let pull = |j: &[f64]| -> Vec<f64> {
            (0..n / d).map(|c| -(0..d).map(|k| j[c * d + k] * lambda[c * d + k]).sum::<f64>()).collect()
        };
        FrictionCotangent { q, mu: pull(&self.jmu), mu_r: pull(&self.jmur) }
    }

    /// `∇_q ⟨g, r⟩`.
    pub fn vjp_q(&self, g: &[f64]) -> Vec<f64> {
        self.vjp(g, None).q
    }

    /// `∇_μ ⟨g, r⟩` (one value per contact).
    pub fn vjp_mu(&self, g: &[f64]) -> Vec<f64> {
        self.vjp(g, None).mu
    }

    /// `∇_{μ_r} ⟨g, r⟩` (one value per contact; 0 where the law is not rolling).
    pub fn vjp_mu_r(&self, g: &[f64]) -> Vec<f64> {
        self.vjp(g, None).mu_r
    }

    /// `∇_W ⟨g, r⟩ = ∇_q ⟨g, r⟩ · rᵀ`, in W's storage (on W's pattern when sparse).
    pub fn vjp_w(&self, g: &[f64]) -> Matrix {
        sens::outer_on_pattern(&self.w, &self.vjp_q(g), &self.r)
    }

    /// The contacts at a kink of the contact law (stick/slip boundary, zero force with zero
    /// normal velocity): see the module documentation for the element used there.
    pub fn degenerate(&self) -> &[usize] {
        &self.degenerate
    }

    /// Each contact's state at the solution.
    pub fn states(&self) -> &[ContactState] {
        &self.states
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FrictionSolver, Nsgs, SemismoothNewton};
    use perp_core::{Settings, Status};
    use rand::{Rng, SeedableRng};

    fn solve(p: &FrictionContactProblem, warm: Option<&[f64]>) -> FrictionSolution {
        let s = Settings { tol: 1e-14, max_iter: 2000, ..Settings::default() };
        let mut sol = SemismoothNewton::alart_curnier().solve(p, warm, &s).unwrap();
        if sol.report.status != Status::Solved {
            sol = Nsgs::new().solve(p, warm, &Settings { max_iter: 100_000, ..s.clone() }).unwrap();
        }
        assert_eq!(sol.report.status, Status::Solved, "error {}", sol.report.error);
        sol
    }

    /// The states a problem built for `kinds` has at its answer: `s` sticking, `o` separated,
    /// any other letter one of the sliding kinds.
    fn expected_states(kinds: &str) -> Vec<ContactState> {
        let state = |k| match k {
            's' => ContactState::Sticking,
            'o' => ContactState::Separated,
            _ => ContactState::Sliding,
        };
        kinds.chars().map(state).collect()
    }

    /// W = AAᵀ/n + I/2 (dense SPD) for `nc` 3-D contacts, with q chosen to give each contact
    /// the wanted state: 's' sticking, 'l' sliding, 'o' separated.
    fn problem(kinds: &str, mu: f64, seed: u64) -> FrictionContactProblem {
        let nc = kinds.len();
        let n = 3 * nc;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let a: Vec<f64> = (0..n * n).map(|_| rng.random_range(-0.5..0.5)).collect();
        let w = perp_lcp::samples::gram_row_major(&a, n, n, None, n as f64, 0.5);
        let wm = Matrix::from_row_major(n, n, &w).unwrap();
        // Pick r and u of each state, then q = u − W r.
        let mut r = vec![0.0; n];
        let mut u = vec![0.0; n];
        for (c, k) in kinds.chars().enumerate() {
            let th: f64 = rng.random_range(0.0..std::f64::consts::TAU);
            let rn = rng.random_range(0.5..1.5);
            match k {
                's' => {
                    let t = 0.5 * mu * rn;
                    r[3 * c..3 * c + 3].copy_from_slice(&[rn, t * th.cos(), t * th.sin()]);
                }
                'l' => {
                    let v = rng.random_range(0.5..1.5);
                    r[3 * c..3 * c + 3].copy_from_slice(&[rn, -mu * rn * th.cos(), -mu * rn * th.sin()]);
                    u[3 * c..3 * c + 3].copy_from_slice(&[0.0, v * th.cos(), v * th.sin()]);
                }
                _ => u[3 * c..3 * c + 3].copy_from_slice(&[rng.random_range(0.5..1.5), 0.3, -0.2]),
            }
        }
        let mut wr = vec![0.0; n];
        wm.mul_vec(&r, &mut wr);
        let q: Vec<f64> = u.iter().zip(&wr).map(|(a, b)| a - b).collect();
        FrictionContactProblem::new(3, wm, q, vec![mu; nc]).unwrap()
    }

    fn with(p: &FrictionContactProblem, dq: &[f64], dmu: &[f64], t: f64) -> FrictionContactProblem {
        let mut p2 = p.clone();
        p2.q.iter_mut().zip(dq).for_each(|(a, b)| *a += t * b);
        p2.mu.iter_mut().zip(dmu).for_each(|(a, b)| *a += t * b);
        p2
    }

    #[test]
    fn jvps_match_central_differences_sticking_and_sliding() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for (seed, kinds) in ["s", "l", "sl", "lso", "sllo"].iter().enumerate() {
            for mu in [0.3, 1.5] {
                let p = problem(kinds, mu, seed as u64);
                let sol = solve(&p, None);
                let s = sensitivity(&p, &sol).unwrap();
                assert!(s.degenerate().is_empty(), "{kinds} μ={mu}: {:?}", s.states());
                assert_eq!(s.states(), &expected_states(kinds)[..], "{kinds}");
                let n = p.size();
                let nc = p.contacts();
                let dq: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
                let dmu: Vec<f64> = (0..nc).map(|_| rng.random_range(-1.0..1.0)).collect();
                let h = 1e-6;
                for (dq, dmu) in [(dq.clone(), vec![0.0; nc]), (vec![0.0; n], dmu.clone())] {
                    let (rp, rm) = (
                        solve(&with(&p, &dq, &dmu, h), Some(&sol.r)).r,
                        solve(&with(&p, &dq, &dmu, -h), Some(&sol.r)).r,
                    );
                    let an = s.jvp(Some(&dq), Some(&dmu), None);
                    for i in 0..n {
                        let fd = (rp[i] - rm[i]) / (2.0 * h);
                        assert!(
                            (an.r[i] - fd).abs() < 2e-6 * (1.0 + fd.abs()),
                            "{kinds} μ={mu} dr[{i}]: {} vs {fd}",
                            an.r[i]
                        );
                    }
                }
                // dW acts through dW r.
                let dw_vals: Vec<f64> = (0..n * n).map(|_| rng.random_range(-0.2..0.2)).collect();
                let dw = Matrix::from_row_major(n, n, &dw_vals).unwrap();
                let shifted = |t: f64| {
                    let vals: Vec<f64> = (0..n * n).map(|e| p.w.get(e / n, e % n) + t * dw_vals[e]).collect();
                    let mut p2 = p.clone();
                    p2.w = Matrix::from_row_major(n, n, &vals).unwrap();
                    solve(&p2, Some(&sol.r)).r
                };
                let (rp, rm) = (shifted(h), shifted(-h));
                let an = s.jvp_w(&dw);
                for i in 0..n {
                    let fd = (rp[i] - rm[i]) / (2.0 * h);
                    assert!(
                        (an[i] - fd).abs() < 2e-6 * (1.0 + fd.abs()),
                        "{kinds} μ={mu} dW: dr[{i}]: {} vs {fd}",
                        an[i]
                    );
                }
            }
        }
    }

    /// W SPD (5·nc, the rolling rows 10× stiffer, as a ball's moments against its forces) and
    /// q chosen for each contact's state: 's' sticking and not rolling, 'l' sliding and
    /// rolling, 't' sticking and rolling, 'r' sliding without rolling, 'o' separated.
    fn rolling_problem(kinds: &str, mu: f64, mu_r: f64, seed: u64) -> FrictionContactProblem {
        let nc = kinds.len();
        let n = 5 * nc;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let a: Vec<f64> = (0..n * n).map(|_| rng.random_range(-0.5..0.5)).collect();
        let scale = |i: usize| if i % 5 >= 3 { 10f64.sqrt() } else { 1.0 };
        let mut w = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                let v = (0..n).map(|k| a[i * n + k] * a[j * n + k]).sum::<f64>() / n as f64;
                w[i * n + j] = v * scale(i) * scale(j);
            }
            w[i * n + i] += 0.5 * scale(i) * scale(i);
        }
        let wm = Matrix::from_row_major(n, n, &w).unwrap();
        let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
        for (c, k) in kinds.chars().enumerate() {
            let rn = rng.random_range(0.5..1.5);
            let mut dir = || {
                let th: f64 = rng.random_range(0.0..std::f64::consts::TAU);
                [th.cos(), th.sin()]
            };
            let (dt, dr) = (dir(), dir());
            let (vt, vr) = (rng.random_range(0.5..1.5), rng.random_range(0.5..1.5));
            let b = 5 * c;
            if k == 'o' {
                u[b..b + 5].copy_from_slice(&[rng.random_range(0.5..1.5), 0.3, -0.2, 0.1, 0.4]);
                continue;
            }
            r[b] = rn;
            // Tangential part: sticking strictly inside μ r_N, or sliding against u_T.
            if matches!(k, 's' | 't') {
                r[b + 1..b + 3].copy_from_slice(&[0.5 * mu * rn * dt[0], 0.5 * mu * rn * dt[1]]);
            } else {
                r[b + 1..b + 3].copy_from_slice(&[-mu * rn * dt[0], -mu * rn * dt[1]]);
                u[b + 1..b + 3].copy_from_slice(&[vt * dt[0], vt * dt[1]]);
            }
            // Rolling part: not rolling, strictly inside μ_r r_N, or rolling against u_R.
            if matches!(k, 's' | 'r') {
                r[b + 3..b + 5].copy_from_slice(&[0.5 * mu_r * rn * dr[0], 0.5 * mu_r * rn * dr[1]]);
            } else {
                r[b + 3..b + 5].copy_from_slice(&[-mu_r * rn * dr[0], -mu_r * rn * dr[1]]);
                u[b + 3..b + 5].copy_from_slice(&[vr * dr[0], vr * dr[1]]);
            }
        }
        let mut wr = vec![0.0; n];
        wm.mul_vec(&r, &mut wr);
        let q: Vec<f64> = u.iter().zip(&wr).map(|(a, b)| a - b).collect();
        FrictionContactProblem::rolling(5, wm, q, vec![mu; nc], vec![mu_r; nc]).unwrap()
    }

    fn mu_r_of(p: &FrictionContactProblem) -> Vec<f64> {
        p.rolling_mu().unwrap()
    }

    fn with_mu_r(p: &FrictionContactProblem, dmu_r: &[f64], t: f64) -> FrictionContactProblem {
        let mu_r: Vec<f64> = mu_r_of(p).iter().zip(dmu_r).map(|(a, b)| a + t * b).collect();
        FrictionContactProblem::rolling(p.dim, p.w.clone(), p.q.clone(), p.mu.clone(), mu_r).unwrap()
    }

    /// Rolling resistance: dr/dq, dr/dμ and dr/dμ_r against central differences of solves,
    /// for every mix of sticking, sliding, rolling and separated contacts; the VJP in μ_r is
    /// the JVP's adjoint.
    #[test]
    fn rolling_jvps_match_central_differences_and_vjps_are_adjoint() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for (seed, kinds) in ["s", "l", "t", "r", "slto", "rtls"].iter().enumerate() {
            for (mu, mu_r) in [(0.3, 0.05), (1.2, 0.4)] {
                let p = rolling_problem(kinds, mu, mu_r, seed as u64);
                let sol = solve(&p, None);
                let s = sensitivity(&p, &sol).unwrap();
                assert!(s.degenerate().is_empty(), "{kinds} μ={mu}: {:?}", s.states());
                assert_eq!(s.states(), &expected_states(kinds)[..], "{kinds}");
                let (n, nc) = (p.size(), p.contacts());
                let dq: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
                let dmu: Vec<f64> = (0..nc).map(|_| rng.random_range(-1.0..1.0)).collect();
                let dmu_r: Vec<f64> = (0..nc).map(|_| rng.random_range(-1.0..1.0)).collect();
                let h = 1e-6;
                let zq = vec![0.0; n];
                let zc = vec![0.0; nc];
                for (what, dq, dmu, dmu_r) in [
                    ("q", &dq, &zc, &zc),
                    ("μ", &zq, &dmu, &zc),
                    ("μ_r", &zq, &zc, &dmu_r),
                    ("all", &dq, &dmu, &dmu_r),
                ] {
                    let at = |t: f64| solve(&with_mu_r(&with(&p, dq, dmu, t), dmu_r, t), Some(&sol.r)).r;
                    let (rp, rm) = (at(h), at(-h));
                    let an = s.jvp_all(Some(dq), Some(dmu), Some(dmu_r), None);
                    for i in 0..n {
                        let fd = (rp[i] - rm[i]) / (2.0 * h);
                        assert!(
                            (an.r[i] - fd).abs() < 2e-6 * (1.0 + fd.abs()),
                            "{kinds} μ={mu} μ_r={mu_r} d{what}: dr[{i}] {} vs {fd}",
                            an.r[i]
                        );
                    }
                }
                assert_eq!(s.jvp_mu_r(&dmu_r), s.jvp_all(None, None, Some(&dmu_r), None).r);
                // μ_r moves the answer wherever a contact rolls.
                let moved = s.jvp_mu_r(&dmu_r).iter().fold(0.0_f64, |a, v| a.max(v.abs()));
                assert_eq!(moved > 1e-3, kinds.contains(['l', 't']), "{kinds}: |dr/dμ_r| {moved:e}");
                let g: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
                let lhs: f64 = g.iter().zip(s.jvp_mu_r(&dmu_r)).map(|(a, b)| a * b).sum();
                let rhs: f64 = s.vjp_mu_r(&g).iter().zip(&dmu_r).map(|(a, b)| a * b).sum();
                assert!((lhs - rhs).abs() < 1e-12 * (1.0 + lhs.abs()), "{kinds}: {lhs} vs {rhs}");
            }
        }
    }

    /// A Coulomb contact has no μ_r: its gradient is 0 and a direction in it changes nothing.
    #[test]
    fn coulomb_contacts_have_no_mu_r_derivative() {
        let p = problem("sl", 0.5, 2);
        let s = sensitivity(&p, &solve(&p, None)).unwrap();
        assert_eq!(s.jvp_mu_r(&[1.0, -2.0]), vec![0.0; 6]);
        assert_eq!(s.vjp_mu_r(&[1.0; 6]), vec![0.0; 2]);
    }

    /// A rolling contact at the switch between rolling and not (‖x_R‖ = μ_r n while the
    /// tangential part slides) is flagged; the generic test alone misses it.
    #[test]
    fn a_rolling_contact_at_the_roll_no_roll_switch_is_degenerate() {
        // W = I, q = (−1, 2, 0, 0.1, 0), μ = 0.5, μ_r = 0.1: r = (1, −0.5, 0, −0.1, 0),
        // u = (0, 1.5, 0, 0, 0): sliding, the rolling moment exactly at μ_r r_N, u_R = 0.
        let id: Vec<f64> = (0..25).map(|e| f64::from(u8::from(e % 6 == 0))).collect();
        let w = Matrix::from_row_major(5, 5, &id).unwrap();
        let p = FrictionContactProblem::rolling(
            5,
            w.clone(),
            vec![-1.0, 2.0, 0.0, 0.1, 0.0],
            vec![0.5],
            vec![0.1],
        )
        .unwrap();
        let sol = solve(&p, None);
        assert!((sol.r[3] + 0.1).abs() < 1e-10, "{:?}", sol.r);
        let s = sensitivity(&p, &sol).unwrap();
        assert_eq!(s.degenerate(), &[0]);
        // Rolling clearly (q_R = 0.5) or clearly not (q_R = 0.05): not degenerate.
        for qr in [0.5, 0.05] {
            let p = FrictionContactProblem::rolling(
                5,
                w.clone(),
                vec![-1.0, 2.0, 0.0, qr, 0.0],
                vec![0.5],
                vec![0.1],
            )
            .unwrap();
            let s = sensitivity(&p, &solve(&p, None)).unwrap();
            assert!(s.degenerate().is_empty(), "q_R = {qr}: {:?}", s.states());
        }
    }

    #[test]
    fn vjps_are_the_adjoints_of_the_jvps() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let p = problem("slos", 0.7, 3);
        let s = sensitivity(&p, &solve(&p, None)).unwrap();
        let (n, nc) = (p.size(), p.contacts());
        let v = |k: usize, rng: &mut rand_chacha::ChaCha8Rng| {
            (0..k).map(|_| rng.random_range(-1.0..1.0)).collect::<Vec<f64>>()
        };
        let (dq, dmu, gr, gu) = (v(n, &mut rng), v(nc, &mut rng), v(n, &mut rng), v(n, &mut rng));
        let t = s.jvp(Some(&dq), Some(&dmu), None);
        let lhs: f64 = gr.iter().zip(&t.r).chain(gu.iter().zip(&t.u)).map(|(a, b)| a * b).sum();
        let c = s.vjp(&gr, Some(&gu));
        let rhs: f64 = c.q.iter().zip(&dq).chain(c.mu.iter().zip(&dmu)).map(|(a, b)| a * b).sum();
        assert!((lhs - rhs).abs() < 1e-12 * (1.0 + lhs.abs()), "{lhs} vs {rhs}");
        let dw_vals = v(n * n, &mut rng);
        let dw = Matrix::from_row_major(n, n, &dw_vals).unwrap();
        let lhs: f64 = gr.iter().zip(s.jvp_w(&dw)).map(|(a, b)| a * b).sum();
        let gw = s.vjp_w(&gr);
        let rhs: f64 = (0..n * n).map(|e| gw.get(e / n, e % n) * dw_vals[e]).sum();
        assert!((lhs - rhs).abs() < 1e-12 * (1.0 + lhs.abs()), "{lhs} vs {rhs}");
    }

    #[test]
    fn sparse_w_and_elliptic_cones_agree_with_differences() {
        let p = problem("ls", 0.6, 8);
        let mut sp = p.clone();
        sp.w = Matrix::Sparse(p.w.to_csr());
        let (sd, ss) =
            (sensitivity(&p, &solve(&p, None)).unwrap(), sensitivity(&sp, &solve(&sp, None)).unwrap());
        let dq = [0.1, -0.4, 0.3, 0.2, 0.5, -0.1];
        for (a, b) in sd.jvp_q(&dq).iter().zip(ss.jvp_q(&dq)) {
            assert!((a - b).abs() < 1e-10);
        }
        // An elliptic law (e = (1, 0.5)): the default FD-free closed form of its projection.
        let mut pe = p.clone();
        pe.cones = Some(vec![ConeSpec::Elliptic { e: vec![1.0, 0.5] }; 2]);
        let sol = solve(&pe, None);
        let s = sensitivity(&pe, &sol).unwrap();
        let h = 1e-6;
        let (rp, rm) = (
            solve(&with(&pe, &dq, &[0.0; 2], h), Some(&sol.r)).r,
            solve(&with(&pe, &dq, &[0.0; 2], -h), Some(&sol.r)).r,
        );
        for (i, a) in s.jvp_q(&dq).iter().enumerate() {
            let fd = (rp[i] - rm[i]) / (2.0 * h);
            assert!((a - fd).abs() < 2e-6 * (1.0 + fd.abs()), "elliptic dr[{i}]: {a} vs {fd}");
        }
    }

    /// Coulomb's disk given only by its section and support: `project` (bisection) and
    /// `project_jacobian` (central differences) are the trait's defaults.
    #[derive(Debug)]
    struct PlainDisk;

    impl Cone for PlainDisk {
        fn name(&self) -> String {
            "plain-disk".into()
        }
        fn dim(&self) -> usize {
            3
        }
        fn project_section(
            &self,
            mu: f64,
            xi: f64,
            t: &[f64],
            out: &mut [f64],
            jac_t: Option<&mut [f64]>,
            jac_xi: Option<&mut [f64]>,
        ) {
            crate::Coulomb::new(3).unwrap().project_section(mu, xi, t, out, jac_t, jac_xi)
        }
        fn support(&self, mu: f64, v: &[f64], t_out: &mut [f64]) -> f64 {
            crate::Coulomb::new(3).unwrap().support(mu, v, t_out)
        }
    }

    #[test]
    fn a_custom_law_gets_derivatives_from_the_default_projection_jacobian() {
        let p = problem("sls", 0.6, 4);
        let sd = sensitivity(&p, &solve(&p, None)).unwrap();
        let mut pc = p.clone();
        pc.cones = Some(vec![ConeSpec::Custom(Arc::new(PlainDisk)); 3]);
        let sol = solve(&pc, None);
        let sc = sensitivity(&pc, &sol).unwrap();
        assert_eq!(sc.states(), sd.states());
        let dq = [0.1, -0.4, 0.3, 0.2, 0.5, -0.1, 0.3, 0.0, -0.2];
        for (a, b) in sc.jvp_q(&dq).iter().zip(sd.jvp_q(&dq)) {
            assert!((a - b).abs() < 1e-5 * (1.0 + b.abs()), "{a} vs {b}");
        }
        for (a, b) in sc.jvp_mu(&[1.0, -1.0, 0.5]).iter().zip(sd.jvp_mu(&[1.0, -1.0, 0.5])) {
            assert!((a - b).abs() < 1e-5 * (1.0 + b.abs()), "{a} vs {b}");
        }
    }

    #[test]
    fn degenerate_contacts_are_flagged() {
        let w = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
        // Stick/slip boundary: q = (−1, 0.5, 0), μ = 0.5: r = (1, −0.5, 0), u = 0.
        let p = FrictionContactProblem::new(3, w.clone(), vec![-1.0, 0.5, 0.0], vec![0.5]).unwrap();
        let s = sensitivity(&p, &solve(&p, None)).unwrap();
        assert_eq!(s.degenerate(), &[0]);
        // Grazing: q = (0, 1, 0): r = 0, u = (0, 1, 0).
        let p = FrictionContactProblem::new(3, w.clone(), vec![0.0, 1.0, 0.0], vec![0.5]).unwrap();
        let s = sensitivity(&p, &solve(&p, None)).unwrap();
        assert_eq!(s.degenerate(), &[0]);
        // The same contacts, clearly sliding and clearly separated, are not.
        for q in [[-1.0, 2.0, 0.0], [1.0, 1.0, 0.0]] {
            let p = FrictionContactProblem::new(3, w.clone(), q.to_vec(), vec![0.5]).unwrap();
            assert!(sensitivity(&p, &solve(&p, None)).unwrap().degenerate().is_empty());
        }
    }

    #[test]
    fn huge_and_tiny_scales_keep_the_states() {
        let p = problem("slo", 0.4, 2);
        let base = sensitivity(&p, &solve(&p, None)).unwrap();
        for c in [1e-8, 1e8] {
            let mut pq = p.clone();
            pq.q.iter_mut().for_each(|v| *v *= c);
            assert_eq!(sensitivity(&pq, &solve(&pq, None)).unwrap().states(), base.states());
            let mut pw = p.clone();
            pw.w = Matrix::Dense(p.w.to_dense() * faer::Scale(c));
            assert_eq!(sensitivity(&pw, &solve(&pw, None)).unwrap().states(), base.states());
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        let p = problem("sl", 0.5, 1);
        let mut sol = solve(&p, None);
        sol.report.status = Status::MaxIterations;
        assert!(sensitivity(&p, &sol).unwrap_err().to_string().contains("solved result"));
        let mut sol = solve(&p, None);
        sol.r.pop();
        assert!(sensitivity(&p, &sol).is_err());
        let sol = solve(&p, None);
        let other = problem("ls", 0.5, 1);
        assert!(sensitivity(&other, &sol).unwrap_err().to_string().contains("solution of this problem"));
        // Two identical contacts: the reactions are not unique, no derivative.
        let w = Matrix::from_row_major(
            6,
            6,
            &[
                1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
                1.0, //
                1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0,
            ],
        )
        .unwrap();
        let p =
            FrictionContactProblem::new(3, w, vec![-1.0, 0.1, 0.0, -1.0, 0.1, 0.0], vec![0.5, 0.5]).unwrap();
        let sol = solve(&p, None);
        let e = sensitivity(&p, &sol).unwrap_err();
        assert!(e.to_string().contains("singular"), "{e}");
    }
}
