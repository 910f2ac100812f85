//! The cone trait: the plug-in point for friction laws.
//!
//! A contact of dimension `d` carries a reaction `r = (r_N, r_T)` and a relative velocity
//! `u = (u_N, u_T)`: one normal component first, then `d − 1` tangential (and, for torsion,
//! rotational) components. A friction law is a closed convex cone `K ⊂ Rᵈ` parametrised by the
//! friction coefficient μ (Trinkle–Tzitzouris–Pang 2001: the abstract maps 𝓕ᵢ(σ) with σ = μ c_n):
//!
//! ```text
//!     K_μ = { (r_N, r_T) : r_N ≥ 0, r_T ∈ S_μ(r_N) },     S_μ(ξ) = ξ · S_μ(1),
//! ```
//!
//! where the *section* `S_μ(1)` is a compact convex set around 0 of `R^{d−1}`. Coulomb's law is
//! the disk ‖r_T‖ ≤ μ r_N; the elliptic law with torsion of Trinkle–Tzitzouris–Pang 2001 eq. (1) is
//! `c_t²/e_t² + c_o²/e_o² + c_r²/e_r² ≤ μ² c_n²`; a pyramid is a polygon.
//!
//! The frictional contact condition at one contact, in De Saxcé's form, is
//!
//! ```text
//!     K ∋ r  ⊥  ũ ∈ K*,        ũ = u + h(u_T) e_N,        h(v) = max { −t·v : t ∈ S_μ(1) },
//! ```
//!
//! with `h` the maximal dissipation (support function of the section; Trinkle–Tzitzouris–Pang 2001 (iv) and eq. 2:
//! the friction force maximises the work −t·v). This trait asks a new law for four things:
//! its dimension, the Euclidean projection onto K, the projection onto a section, and the
//! support point `argmax {−t·v : t ∈ S_μ(1)}` — and the projection onto K has a default
//! built on the section projection, so three suffice. Everything the solvers need — membership, polar
//! and dual projections, the natural map, the Alart–Curnier function, their generalised
//! Jacobians, a polyhedral linearisation — has a default built on those four, which a law may
//! override with closed forms.
//!
//! Conventions: vectors have length `d` (normal first); a Jacobian is `d × d` (or
//! `(d−1) × (d−1)`), **row-major**: `jac[i·d + j] = ∂outᵢ/∂xⱼ`.

use crate::jordan;
use perp_core::Error;
use std::fmt;

mod spec;
pub use spec::ConeSpec;

// The Jordan-algebra buffers hold a contact's vector.
const _: () = assert!(jordan::MAX_LEN == MAX_DIM);

/// Relative step of the central differences used by default Jacobians.
const FD_STEP: f64 = 1e-7;

/// The largest contact dimension (normal + tangential + rotational components) perp accepts;
/// the default methods work on stack buffers of this size.
pub const MAX_DIM: usize = 6;
const MD: usize = MAX_DIM;
const MD2: usize = MAX_DIM * MAX_DIM;

/// A diagonal linear map turning a cone into the second-order (Lorentz) cone
/// `L = {x : ‖x_T‖ ≤ x_N}`: `r ∈ K ⟺ a∘r ∈ L` and `u ∈ K* ⟺ b∘u ∈ L`, with
/// `(a∘r)·(b∘u) = c · r·u` for some `c > 0` (so complementarity is preserved).
/// Ellipsoidal cones have one; the Fischer–Burmeister function of the Jordan algebra of `L`
/// (Fukushima–Luo–Tseng 2001) then applies to `(a∘r, b∘ũ)`.
#[derive(Clone, Debug, PartialEq)]
pub struct SocMap {
    /// Scaling of the reaction (length d).
    pub a: Vec<f64>,
    /// Scaling of the (modified) velocity (length d).
    pub b: Vec<f64>,
}

/// A friction cone: see the module documentation for the conventions.
///
/// `mu` is the contact's friction coefficient (≥ 0, checked by [`Cone::check`]); laws with
/// further parameters (e.g. the e's of an elliptic law) store them in `self`.
pub trait Cone: Send + Sync + fmt::Debug {
    /// A short description for reports, e.g. `"coulomb-3d"`, `"elliptic(1,1,0.4)"`.
    fn name(&self) -> String;

    /// The contact dimension d (1 normal + d − 1 tangential/rotational components), ≥ 2.
    fn dim(&self) -> usize;

    /// Checks `mu` and the law's own parameters; the error names the field and value.
    fn check(&self, mu: f64) -> Result<(), Error> {
        if !(mu.is_finite() && mu >= 0.0) {
            return Err(Error::setting("mu", mu, "the friction coefficient must be finite and ≥ 0"));
        }
        Ok(())
    }

    /// Euclidean projection `out = P_K(x)`.
    ///
    /// The default needs only [`Cone::project_section`]: with `K = {(n, t) : n ≥ 0, t ∈ n·S}`,
    /// `P_K(x) = (n*, P_{S(n*)}(x_T))` where n* minimises the convex function
    /// `g(n) = (n − x_N)² + dist²(x_T, S(n))` over `[0, ‖x‖]`; `g'` is increasing, and n* is
    /// found by bisection on its sign to machine precision (≈ 60 section projections). Laws
    /// with a closed form override it.
    fn project(&self, mu: f64, x: &[f64], out: &mut [f64]) {
        let k = x.len() - 1;
        let (xn, xt) = (x[0], &x[1..]);
        let mut p = [0.0; MD];
        let mut jx = [0.0; MD];
        // g'(n)/2 = (n − x_N) − (x_T − P(n))·∂P/∂ξ(n)
        let mut slope = |n: f64, p: &mut [f64]| {
            self.project_section(mu, n, xt, p, None, Some(&mut jx[..k]));
            (n - xn) - (0..k).map(|a| (xt[a] - p[a]) * jx[a]).sum::<f64>()
        };
        let (mut lo, mut hi) = (0.0, norm(x));
        if slope(lo, &mut p[..k]) >= 0.0 {
            hi = 0.0;
        } else {
            while slope(hi, &mut p[..k]) < 0.0 && hi < f64::MAX / 4.0 {
                hi = 2.0 * hi + f64::MIN_POSITIVE;
            }
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if mid <= lo || mid >= hi {
                    break;
                }
                if slope(mid, &mut p[..k]) < 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
        }
        self.project_section(mu, hi, xt, &mut p[..k], None, None);
        out[0] = hi;
        out[1..].copy_from_slice(&p[..k]);
    }

    /// Euclidean projection of `t ∈ R^{d−1}` onto the section `S_μ(ξ)`, `ξ ≥ 0` (a negative ξ
    /// is treated as 0, where the section is {0}). When asked, also its Jacobian with respect to
    /// `t` (`(d−1)×(d−1)`, row-major) and to ξ (length d − 1; at ξ ≤ 0 the right derivative,
    /// which the default [`Cone::project`] needs).
    fn project_section(
        &self,
        mu: f64,
        xi: f64,
        t: &[f64],
        out: &mut [f64],
        jac_t: Option<&mut [f64]>,
        jac_xi: Option<&mut [f64]>,
    );

    /// The maximal dissipation `h(v) = max {−t·v : t ∈ S_μ(1)}` (`v` of length d − 1), with
    /// a maximiser written to `t_out` (any one where it is not unique; 0 when v = 0). By
    /// Danskin's theorem `∇h(v) = −t_out` wherever the maximiser is unique.
    fn support(&self, mu: f64, v: &[f64], t_out: &mut [f64]) -> f64;

    /// `x ∈ K` up to `tol·max(1, ‖x‖)` in distance.
    fn contains(&self, mu: f64, x: &[f64], tol: f64) -> bool {
        let mut p = [0.0; MD];
        let p = &mut p[..x.len()];
        self.project(mu, x, p);
        dist(x, p) <= tol * norm(x).max(1.0)
    }

    /// Projection and its Jacobian (`d×d`, row-major). The default differentiates
    /// [`Cone::project`] by central differences; laws override it with the exact derivative.
    fn project_jacobian(&self, mu: f64, x: &[f64], out: &mut [f64], jac: &mut [f64]) {
        self.project(mu, x, out);
        let d = x.len();
        let mut xp = [0.0; MD];
        xp[..d].copy_from_slice(x);
        let xp = &mut xp[..d];
        let (mut fp, mut fm) = ([0.0; MD], [0.0; MD]);
        let (fp, fm) = (&mut fp[..d], &mut fm[..d]);
        for j in 0..d {
            let h = FD_STEP * x[j].abs().max(norm(x)).max(1e-8);
            xp[j] = x[j] + h;
            self.project(mu, xp, fp);
            xp[j] = x[j] - h;
            self.project(mu, xp, fm);
            xp[j] = x[j];
            for i in 0..d {
                jac[i * d + j] = (fp[i] - fm[i]) / (2.0 * h);
            }
        }
    }

    /// Projection onto the polar cone `K° = {y : y·k ≤ 0 ∀k ∈ K}`: by Moreau's decomposition
    /// `x = P_K(x) + P_K°(x)`.
    fn project_polar(&self, mu: f64, x: &[f64], out: &mut [f64]) {
        self.project(mu, x, out);
        for (o, xi) in out.iter_mut().zip(x) {
            *o = xi - *o;
        }
    }

    /// Projection onto the dual cone `K* = −K°`: `P_K*(x) = x + P_K(−x)`.
    fn project_dual(&self, mu: f64, x: &[f64], out: &mut [f64]) {
        let mut neg = [0.0; MD];
        let neg = &mut neg[..x.len()];
        neg.iter_mut().zip(x).for_each(|(n, v)| *n = -v);
        self.project(mu, neg, out);
        for (o, xi) in out.iter_mut().zip(x) {
            *o += xi;
        }
    }

    /// The friction force of maximal dissipation for normal force `normal ≥ 0` and sliding
    /// velocity `v` (Trinkle–Tzitzouris–Pang 2001 (iv), eq. 2): `argmax {−t·v : t ∈ S_μ(normal)}`.
    fn max_dissipation_force(&self, mu: f64, normal: f64, v: &[f64], out: &mut [f64]) {
        self.support(mu, v, out);
        let s = normal.max(0.0);
        out.iter_mut().for_each(|o| *o *= s);
    }

    /// The directions of a polyhedral linearisation with `m` edges: a `(d−1) × m` matrix `D`,
    /// column-major (column j is `D[j·(d−1)..(j+1)·(d−1)]`), such that
    /// `{(c_n, Dβ) : β ≥ 0, Σβ ≤ μ c_n}` is inscribed in K (Stewart's D, Stewart 2000 §2.2.1,
    /// fig. 2.2; Trinkle–Tzitzouris–Pang 2001 eq. 5–6). The default takes the support points of `S_1(1)` in `m`
    /// directions spread evenly over the unit circle (d = 3), the pair ±1 (d = 2), or a
    /// Fibonacci lattice of the sphere (d ≥ 4).
    fn linearize(&self, m: usize) -> Vec<f64> {
        let k = self.dim() - 1;
        let dirs = sphere_directions(k, m);
        let mut out = vec![0.0; dirs.len()];
        let mut v = vec![0.0; k];
        for (dir, t) in dirs.chunks(k).zip(out.chunks_mut(k)) {
            v.iter_mut().zip(dir).for_each(|(a, b)| *a = -b);
            self.support(1.0, &v, t);
        }
        out
    }

    /// Whether the section scales with μ alone, `S_μ(1) = μ S_1(1)`: true for every law whose
    /// only dependence on μ is that scale. The polyhedral linearisation ([`Cone::linearize`],
    /// taken at μ = 1 and scaled) and lemke-pyramid rely on it; the rolling cone
    /// ([`crate::Rolling`]), whose rolling part is bounded by its own μ_r, does not.
    fn scales_with_mu(&self) -> bool {
        true
    }

    /// The map to the Lorentz cone when K is ellipsoidal (see [`SocMap`]); `None` otherwise,
    /// and then [`Cone::fischer_burmeister`] is unavailable.
    fn soc_map(&self, _mu: f64) -> Option<SocMap> {
        None
    }

    /// De Saxcé's modified velocity `ũ = u + h(u_T) e_N`, with its Jacobian `∂ũ/∂u` when asked.
    fn modified_velocity(&self, mu: f64, u: &[f64], out: &mut [f64], jac: Option<&mut [f64]>) {
        let d = u.len();
        let mut t = [0.0; MD];
        let h = self.support(mu, &u[1..], &mut t[..d - 1]);
        out.copy_from_slice(u);
        out[0] += h;
        if let Some(j) = jac {
            j.iter_mut().for_each(|v| *v = 0.0);
            for i in 0..d {
                j[i * d + i] = 1.0;
            }
            for k in 1..d {
                j[k] -= t[k - 1];
            }
        }
    }

    /// The natural map `φ = r − P_K(r − ρ ũ)` (De Saxcé form, ρ > 0), zero exactly at a
    /// solution of the contact law; with ρ = 1 it is the residual of Siconos' error measure.
    /// Jacobians `∂φ/∂r`, `∂φ/∂u` (generalised, row-major d×d) when asked.
    fn natural_map(
        &self,
        mu: f64,
        rho: f64,
        r: &[f64],
        u: &[f64],
        phi: &mut [f64],
        jac: Option<(&mut [f64], &mut [f64])>,
    ) {
        let d = r.len();
        let mut ut = [0.0; MD];
        let mut dut = [0.0; MD2];
        self.modified_velocity(mu, u, &mut ut[..d], jac.is_some().then_some(&mut dut[..d * d]));
        let mut x = [0.0; MD];
        for i in 0..d {
            x[i] = r[i] - rho * ut[i];
        }
        let mut p = [0.0; MD];
        match jac {
            None => self.project(mu, &x[..d], &mut p[..d]),
            Some((jr, ju)) => {
                let mut jp = [0.0; MD2];
                self.project_jacobian(mu, &x[..d], &mut p[..d], &mut jp[..d * d]);
                for i in 0..d {
                    for j in 0..d {
                        jr[i * d + j] = f64::from(u8::from(i == j)) - jp[i * d + j];
                        let mut s = 0.0;
                        for k in 0..d {
                            s += jp[i * d + k] * dut[k * d + j];
                        }
                        ju[i * d + j] = rho * s;
                    }
                }
            }
        }
        for i in 0..d {
            phi[i] = r[i] - p[i];
        }
    }

    /// The Alart–Curnier function (Alart & Curnier 1991), generalised to any section:
    ///
    /// ```text
    ///     φ_N = r_N − max(0, r_N − ρ_N u_N),
    ///     φ_T = r_T − P_{S_μ(ξ)}(r_T − ρ_T u_T),       ξ = max(0, r_N − ρ_N u_N),
    /// ```
    ///
    /// zero exactly at a solution of the (unmodified) Coulomb-type law
    /// `0 ≤ u_N ⊥ r_N ≥ 0`, `r_T ∈ S(r_N)`, `−u_T ∈ N_{S(r_N)}(r_T)`, at the point `x`
    /// (μ, ρ_N, ρ_T, r, u); φ and, when asked, its Jacobians go to `out`.
    ///
    /// ```
    /// use perp_cones::{AcInput, CfunOut, Cone, Coulomb};
    /// // A sliding contact at its solution: r = (1, −0.5, 0), u = (0, 1.5, 0), μ = 0.5.
    /// let (r, u, mut phi) = ([1.0, -0.5, 0.0], [0.0, 1.5, 0.0], [9.0; 3]);
    /// let x = AcInput { mu: 0.5, rho_n: 1.0, rho_t: 1.0, r: &r, u: &u };
    /// Coulomb::new(3)?.alart_curnier(x, CfunOut { phi: &mut phi, jac: None });
    /// assert!(phi.iter().all(|v| v.abs() < 1e-15));
    /// # Ok::<(), perp_core::Error>(())
    /// ```
    fn alart_curnier(&self, x: AcInput<'_>, out: CfunOut<'_>) {
        alart_curnier_default(self, x, out)
    }

    /// The Fischer–Burmeister function of the Lorentz cone's Jordan algebra applied to
    /// `(a∘r, b∘ũ)` (see [`SocMap`]; Fukushima–Luo–Tseng 2001), `φ = x + y − (x² + y²)^{1/2}`,
    /// zero exactly when `K ∋ r ⊥ ũ ∈ K*`. Jacobians (with respect to r and u) when asked.
    /// `Err(Requirement)` for a cone without a [`SocMap`].
    fn fischer_burmeister(
        &self,
        mu: f64,
        r: &[f64],
        u: &[f64],
        phi: &mut [f64],
        jac: Option<(&mut [f64], &mut [f64])>,
    ) -> Result<(), Error> {
        let map = self.soc_map(mu).ok_or_else(|| Error::Requirement {
            solver: "fischer-burmeister".into(),
            requirement: format!("a cone with a map to the Lorentz cone; {} has none", self.name()),
            suggestion: Some("use the natural map or Alart–Curnier (ac-newton, nsgs)".into()),
        })?;
        fb_mapped(self, mu, &map, r, u, phi, jac);
        Ok(())
    }
}

/// The point at which [`Cone::alart_curnier`] is evaluated: the friction coefficient, the
/// Alart–Curnier parameters and the pair (r, u) of one contact (length d each).
#[derive(Clone, Copy, Debug)]
pub struct AcInput<'a> {
    /// The friction coefficient μ.
    pub mu: f64,
    /// ρ_N, the normal parameter (> 0).
    pub rho_n: f64,
    /// ρ_T, the tangential parameter (> 0).
    pub rho_t: f64,
    /// The reaction r.
    pub r: &'a [f64],
    /// The velocity u.
    pub u: &'a [f64],
}

/// Where a complementarity function of one contact writes: φ (length d) and, when `jac` is
/// given, its generalised Jacobians `(∂φ/∂r, ∂φ/∂u)` (row-major d×d).
#[derive(Debug)]
pub struct CfunOut<'a> {
    /// φ.
    pub phi: &'a mut [f64],
    /// `(∂φ/∂r, ∂φ/∂u)` when asked.
    pub jac: Option<(&'a mut [f64], &'a mut [f64])>,
}

/// The default [`Cone::alart_curnier`], on the cone's [`Cone::project_section`] (callable by
/// laws that override it for some dimensions only).
pub(crate) fn alart_curnier_default<C: Cone + ?Sized>(cone: &C, x: AcInput<'_>, out: CfunOut<'_>) {
    let (AcInput { mu, rho_n, rho_t, r, u }, CfunOut { phi, jac }) = (x, out);
    let d = r.len();
    let k = d - 1;
    let xn = r[0] - rho_n * u[0];
    let xi = xn.max(0.0);
    let active = xn > 0.0;
    let mut y = [0.0; MD];
    for i in 1..d {
        y[i - 1] = r[i] - rho_t * u[i];
    }
    let mut p = [0.0; MD];
    match jac {
        None => cone.project_section(mu, xi, &y[..k], &mut p[..k], None, None),
        Some((jr, ju)) => {
            let mut jt = [0.0; MD2];
            let mut jx = [0.0; MD];
            cone.project_section(mu, xi, &y[..k], &mut p[..k], Some(&mut jt[..k * k]), Some(&mut jx[..k]));
            alart_curnier_jacobian(active, (rho_n, rho_t), |a, b| jt[a * k + b], &jx[..k], (jr, ju));
        }
    }
    phi[0] = r[0] - xi;
    for a in 0..k {
        phi[a + 1] = r[a + 1] - p[a];
    }
}

/// The generalised Jacobians `(jr, ju) = (∂φ/∂r, ∂φ/∂u)` (row-major, zeroed first) of the
/// Alart–Curnier function `φ = (r_N − ξ, r_T − P(ξ, y))` of a contact of dimension
/// `1 + k` (`k = jx.len()`), `ξ = max(0, r_N − ρ_N u_N)` (`active`: the max is its argument),
/// `y = r_T − ρ_T u_T`, from the section projection's derivatives `jt(a, b) = ∂P_a/∂y_b` and
/// `jx = ∂P/∂ξ`: the default [`Cone::alart_curnier`] and the fixed-size ones of the Coulomb
/// and rolling cones, the same operations in the same order.
#[inline(always)]
pub(crate) fn alart_curnier_jacobian(
    active: bool,
    (rho_n, rho_t): (f64, f64),
    jt: impl Fn(usize, usize) -> f64,
    jx: &[f64],
    (jr, ju): (&mut [f64], &mut [f64]),
) {
    let (k, d) = (jx.len(), jx.len() + 1);
    jr.iter_mut().for_each(|v| *v = 0.0);
    ju.iter_mut().for_each(|v| *v = 0.0);
    // Normal row.
    if active {
        ju[0] = rho_n;
    } else {
        jr[0] = 1.0;
    }
    // Tangential rows: φ_T = r_T − P(ξ(r_N,u_N), r_T − ρ_T u_T).
    for a in 0..k {
        let row = (a + 1) * d;
        if active {
            jr[row] = -jx[a];
            ju[row] = jx[a] * rho_n;
        }
        for b in 0..k {
            let delta = f64::from(u8::from(a == b));
            jr[row + b + 1] = delta - jt(a, b);
            ju[row + b + 1] = rho_t * jt(a, b);
        }
    }
}

/// Euclidean norm.
pub(crate) fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

fn dist(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt()
}

/// `m` unit directions of `R^k`, flattened (`k` values each): ±1 for k = 1 (m is then 2),
/// evenly spread angles for k = 2, a Fibonacci lattice for k ≥ 3 (extra coordinates 0).
pub fn sphere_directions(k: usize, m: usize) -> Vec<f64> {
    match k {
        0 => Vec::new(),
        1 => vec![1.0, -1.0],
        2 => (0..m)
            .flat_map(|j| {
                let a = 2.0 * std::f64::consts::PI * j as f64 / m as f64;
                [a.cos(), a.sin()]
            })
            .collect(),
        _ => {
            let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
            (0..m)
                .flat_map(|j| {
                    let z = 1.0 - 2.0 * (j as f64 + 0.5) / m as f64;
                    let rad = (1.0 - z * z).sqrt();
                    let th = golden * j as f64;
                    let mut v = vec![0.0; k];
                    v[0] = rad * th.cos();
                    v[1] = rad * th.sin();
                    v[2] = z;
                    v
                })
                .collect()
        }
    }
}

/// The Fischer–Burmeister function of a cone with a [`SocMap`] (De Saxcé form):
/// `φ = φ_FB(a∘r, b∘ũ)`, `ũ = cone.modified_velocity(mu, u)`, zero exactly when
/// `K ∋ r ⊥ ũ ∈ K*` (since `a∘r ∈ L ⟺ r ∈ K`, `b∘ũ ∈ L ⟺ ũ ∈ K*` and
/// `(a∘r)·(b∘ũ) = c r·ũ`). Jacobians with respect to r and u (row-major `d×d`) when asked,
/// chain-ruled through the scalings and `∂ũ/∂u`: `J_r = Φ_x diag(a)`,
/// `J_u = Φ_y diag(b) ∂ũ/∂u`, with `(Φ_x, Φ_y)` from [`jordan::fb_soc`].
///
/// μ = 0 has no [`SocMap`]; callers handle frictionless contacts separately (scalar FB on the
/// normal pair and `φ_T = r_T`).
pub(crate) fn fb_mapped<C: Cone + ?Sized>(
    cone: &C,
    mu: f64,
    map: &SocMap,
    r: &[f64],
    u: &[f64],
    phi: &mut [f64],
    jac: Option<(&mut [f64], &mut [f64])>,
) {
    // The same source compiled for the common constant lengths (the same bits).
    let out = CfunOut { phi, jac };
    match r.len() {
        3 => fb_mapped_with(3, cone, mu, map, (r, u), out),
        _ => fb_mapped_with(r.len(), cone, mu, map, (r, u), out),
    }
}

/// [`fb_mapped`] for contacts of dimension `d` at the pair `(r, u)`.
#[inline(always)]
fn fb_mapped_with<C: Cone + ?Sized>(
    d: usize,
    cone: &C,
    mu: f64,
    map: &SocMap,
    (r, u): (&[f64], &[f64]),
    out: CfunOut<'_>,
) {
    let CfunOut { phi, jac } = out;
    let (r, u, phi, a, b) = (&r[..d], &u[..d], &mut phi[..d], &map.a[..d], &map.b[..d]);
    let mut ut = [0.0; MAX_DIM];
    let mut dut = [0.0; MAX_DIM * MAX_DIM];
    let want = jac.is_some();
    cone.modified_velocity(mu, u, &mut ut[..d], want.then_some(&mut dut[..d * d]));
    let (mut x, mut y) = ([0.0; MAX_DIM], [0.0; MAX_DIM]);
    for i in 0..d {
        x[i] = a[i] * r[i];
        y[i] = b[i] * ut[i];
    }
    match jac {
        None => jordan::fb_soc(&x[..d], &y[..d], phi, None),
        Some((jr, ju)) => {
            let (jr, ju) = (&mut jr[..d * d], &mut ju[..d * d]);
            let (mut px, mut py) = ([0.0; MAX_DIM * MAX_DIM], [0.0; MAX_DIM * MAX_DIM]);
            jordan::fb_soc(&x[..d], &y[..d], phi, Some((&mut px[..d * d], &mut py[..d * d])));
            for i in 0..d {
                for j in 0..d {
                    jr[i * d + j] = px[i * d + j] * a[j];
                    let mut s = 0.0;
                    for k in 0..d {
                        s += py[i * d + k] * b[k] * dut[k * d + j];
                    }
                    ju[i * d + j] = s;
                }
            }
        }
    }
}
