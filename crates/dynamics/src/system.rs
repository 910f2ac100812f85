//! What a simulator implements: the [`System`] trait, its [`Contact`] candidates and
//! [`Bilateral`] constraints, and the sparse constraint [`Row`] they are made of.
//!
//! Notation follows Glocker–Studer (Glocker–Studer 2005 eq. 6–12): coordinates `q`, velocities `u`,
//! `M(q,t) du − h(q,u,t) dt − dR = 0`, gaps `g_N(q,t) ≥ 0`, relative velocities
//! `γ_N = w_Nᵀu + ŵ_N`, `γ_T = w_Tᵀu + ŵ_T` (eq. 10), Newton restitution
//! `ξ = γ⁺ + ε γ⁻` (eq. 11).

use perp_cones::ConeSpec;
use perp_core::{Error, Matrix};

pub use perp_core::linear::Row;

/// One candidate contact, as [`System::contacts`] reports it at a configuration.
///
/// Local coordinates are ordered `(N, T₁[, T₂][, R][, ρ₁[, ρ₂]])`: the normal, one tangent
/// (planar) or two (spatial), an optional twist (torsion, Trinkle–Tzitzouris–Pang 2001 eq. 1), and optional rolling
/// rows (one per tangent; rolling resistance, [`perp_cones::Rolling`]). The local dimension is
/// [`Contact::dim`]; the contact's friction law is `cone` (Coulomb by default; an elliptic cone
/// `e = [e_t, e_o, e_r]` for torsion; `ConeSpec::Rolling { mu_r }` with rolling rows).
#[derive(Debug)]
pub struct Contact {
    /// The gap `g_N(q, t)`: > 0 open, 0 closed, < 0 penetrating (eq. 7).
    pub gap: f64,
    /// `w_N`: the generalized normal direction (eq. 9–10).
    pub normal: Row,
    /// `w_T`: one (planar) or two (spatial) tangent directions.
    pub tangents: Vec<Row>,
    /// The twist (torsion) direction, if the contact transmits a moment about its normal.
    pub twist: Option<Row>,
    /// The rolling directions (as many as tangents, no twist): the relative angular velocity
    /// about each tangent, in whatever scaling the friction law's μ_r is stated for (the sphere
    /// scenes scale by the radius, [`crate::scenes::spheres::SphereRolling`]). Empty for
    /// contacts without rolling resistance.
    pub rolling: Vec<Row>,
    /// Rheonomic terms `ŵ` in local order (N, T…, R); empty means zero.
    pub bias: Vec<f64>,
    /// `(J̇ u)` in local order, the velocity-product terms of the contact accelerations
    /// (acceleration-level formulation, Stewart 2000 eq. 1.5); empty means zero.
    pub drift: Vec<f64>,
    /// Friction coefficient μ ≥ 0.
    pub mu: f64,
    /// Normal restitution ε_N ∈ [0, 1] (eq. 11).
    pub restitution_n: f64,
    /// Tangential restitution ε_T ∈ [0, 1] (eq. 11; used by the Glocker–Studer LCP).
    pub restitution_t: f64,
    /// The friction law.
    pub cone: ConeSpec,
}

/// `clone_from` reuses the rows' storage (see [`Row`]).
impl Clone for Contact {
    fn clone(&self) -> Contact {
        Contact {
            gap: self.gap,
            normal: self.normal.clone(),
            tangents: self.tangents.clone(),
            twist: self.twist.clone(),
            rolling: self.rolling.clone(),
            bias: self.bias.clone(),
            drift: self.drift.clone(),
            mu: self.mu,
            restitution_n: self.restitution_n,
            restitution_t: self.restitution_t,
            cone: self.cone.clone(),
        }
    }

    fn clone_from(&mut self, source: &Contact) {
        self.gap = source.gap;
        self.normal.clone_from(&source.normal);
        self.tangents.clone_from(&source.tangents);
        self.twist.clone_from(&source.twist);
        self.rolling.clone_from(&source.rolling);
        self.bias.clone_from(&source.bias);
        self.drift.clone_from(&source.drift);
        self.mu = source.mu;
        self.restitution_n = source.restitution_n;
        self.restitution_t = source.restitution_t;
        self.cone.clone_from(&source.cone);
    }
}

impl Contact {
    /// A contact with gap, normal, tangents and μ; no twist, no rheonomic terms, ε = 0, Coulomb.
    pub fn new(gap: f64, normal: Row, tangents: Vec<Row>, mu: f64) -> Contact {
        Contact {
            gap,
            normal,
            tangents,
            twist: None,
            rolling: Vec::new(),
            bias: Vec::new(),
            drift: Vec::new(),
            mu,
            restitution_n: 0.0,
            restitution_t: 0.0,
            cone: ConeSpec::Coulomb,
        }
    }

    /// With normal and tangential restitution.
    pub fn with_restitution(mut self, normal: f64, tangential: f64) -> Contact {
        self.restitution_n = normal;
        self.restitution_t = tangential;
        self
    }

    /// With a twist row and an elliptic cone `e = [e_t, e_o, e_r]` (Trinkle–Tzitzouris–Pang 2001 eq. 1).
    pub fn with_twist(mut self, twist: Row, e: [f64; 3]) -> Contact {
        self.twist = Some(twist);
        self.cone = ConeSpec::Elliptic { e: e.to_vec() };
        self
    }

    /// With rolling rows (one per tangent) and the rolling cone `{‖r_T‖ ≤ μ r_N, ‖r_R‖ ≤ μ_r r_N}`
    /// ([`perp_cones::Rolling`]).
    pub fn with_rolling(mut self, rolling: Vec<Row>, mu_r: f64) -> Contact {
        self.rolling = rolling;
        self.cone = ConeSpec::Rolling { mu_r };
        self
    }

    /// With another friction law.
    pub fn with_cone(mut self, cone: ConeSpec) -> Contact {
        self.cone = cone;
        self
    }

    /// With `(J̇u)` terms (local order).
    pub fn with_drift(mut self, drift: Vec<f64>) -> Contact {
        self.drift = drift;
        self
    }

    /// Local dimension: 1 + tangents + twist + rolling rows.
    pub fn dim(&self) -> usize {
        1 + self.tangents.len() + usize::from(self.twist.is_some()) + self.rolling.len()
    }

    /// The local rows in order (N, T…, R, ρ…).
    pub fn rows(&self) -> impl Iterator<Item = &Row> + Clone {
        std::iter::once(&self.normal)
            .chain(self.tangents.iter())
            .chain(self.twist.iter())
            .chain(self.rolling.iter())
    }

    /// Rheonomic term of local row `k`.
    pub fn bias_at(&self, k: usize) -> f64 {
        self.bias.get(k).copied().unwrap_or(0.0)
    }

    /// Drift term of local row `k`.
    pub fn drift_at(&self, k: usize) -> f64 {
        self.drift.get(k).copied().unwrap_or(0.0)
    }

    /// `Err` naming contact `index` and the field at fault.
    pub fn validate(&self, index: usize, dofs: usize) -> Result<(), Error> {
        // Names are formatted only on the error path: this runs for every active contact of
        // every step.
        let name = |f: &str| format!("contact {index}: {f}");
        if !self.gap.is_finite() {
            return Err(Error::NonFinite { what: name("gap"), index, value: self.gap });
        }
        if self.tangents.is_empty() || self.tangents.len() > 2 {
            return Err(Error::setting(
                &name("tangents"),
                self.tangents.len(),
                "a contact has 1 (planar) or 2 (spatial) tangent rows",
            ));
        }
        let row_ok = |r: &Row| r.0.iter().all(|&(i, v)| i < dofs && v.is_finite());
        if !row_ok(&self.normal) {
            self.normal.check(dofs, &name("normal row"))?;
        }
        for (k, t) in self.tangents.iter().enumerate() {
            if !row_ok(t) {
                t.check(dofs, &name(&format!("tangent row {k}")))?;
            }
        }
        if let Some(r) = &self.twist {
            if !row_ok(r) {
                r.check(dofs, &name("twist row"))?;
            }
        }
        if !self.rolling.is_empty() && (self.rolling.len() != self.tangents.len() || self.twist.is_some()) {
            return Err(Error::setting(
                &name("rolling rows"),
                self.rolling.len(),
                "a rolling contact has one rolling row per tangent row and no twist row",
            ));
        }
        if self.rolling.is_empty() == matches!(self.cone, ConeSpec::Rolling { .. }) {
            return Err(Error::setting(
                &name("rolling rows"),
                self.rolling.len(),
                "rolling rows go with the rolling cone (ConeSpec::Rolling) and it with them",
            ));
        }
        for (k, t) in self.rolling.iter().enumerate() {
            if !row_ok(t) {
                t.check(dofs, &name(&format!("rolling row {k}")))?;
            }
        }
        let d = self.dim();
        for (what, v) in [("bias", &self.bias), ("drift", &self.drift)] {
            if !v.is_empty() && v.len() != d {
                return Err(Error::dim(name(what), d, v.len()));
            }
            if v.iter().any(|x| !x.is_finite()) {
                Error::check_finite(&name(what), v)?;
            }
        }
        if !(self.mu.is_finite() && self.mu >= 0.0) {
            return Err(Error::setting(&name("mu"), self.mu, "must be finite and ≥ 0"));
        }
        for (what, e) in [("restitution_n", self.restitution_n), ("restitution_t", self.restitution_t)] {
            if !(0.0..=1.0).contains(&e) {
                return Err(Error::setting(&name(what), e, "must lie in [0, 1]"));
            }
        }
        let coulomb_ok = matches!(self.cone, ConeSpec::Coulomb) && (d == 2 || d == 3);
        if !coulomb_ok {
            self.cone
                .check(d, self.mu)
                .map_err(|e| Error::setting(&name("cone"), format!("{:?}", self.cone), &e.to_string()))?;
        }
        Ok(())
    }
}

/// A bilateral (equality) constraint `wᵀ u + ŵ = 0` at the velocity level, e.g. a joint.
#[derive(Clone, Debug)]
pub struct Bilateral {
    /// The constraint row.
    pub row: Row,
    /// The rheonomic term ŵ.
    pub bias: f64,
}

/// A mechanical system with unilateral frictional contacts (Glocker–Studer 2005 eq. 6–12).
///
/// Coordinates `q` may differ from velocities `u` (unit quaternions): the system supplies
/// `q̇ = T(q) u` through [`System::integrate`] and renormalizes in [`System::normalize`].
pub trait System: Sync {
    /// Number of velocities (the size of M).
    fn dofs(&self) -> usize;
    /// Number of coordinates (default: `dofs`).
    fn coords(&self) -> usize {
        self.dofs()
    }
    /// The mass matrix `M(q, t)`, symmetric positive definite, dense or sparse.
    fn mass(&self, q: &[f64], t: f64) -> Matrix;
    /// Whether M is the same at every configuration (lets the stepper factor it once).
    fn constant_mass(&self) -> bool {
        false
    }
    /// `h(q, u, t)`: all smooth generalized forces, including gyroscopic terms (eq. 6).
    fn forces(&self, q: &[f64], u: &[f64], t: f64, h: &mut [f64]);
    /// Every candidate contact at `(q, t)`, open or closed, in the same order at every call (the
    /// stepper keys warm starts and output columns by position).
    fn contacts(&self, q: &[f64], t: f64) -> Vec<Contact>;
    /// [`System::contacts`] written into `out`, which holds the previous call's contacts
    /// (default: replaces them). A system stepped millions of times per second overrides it
    /// to update the contacts in place and save the allocations.
    fn contacts_into(&self, q: &[f64], t: f64, out: &mut Vec<Contact>) {
        *out = self.contacts(q, t);
    }
    /// The gaps of every candidate at `(q, t)`, in [`System::contacts`]' order and the same to
    /// the bit, without their rows: `true` when the system offers them (default `false`).
    ///
    /// A step that activates its contacts by their gap alone (the midpoint scheme with
    /// [`Activation::Gap`](crate::Activation::Gap)) then asks [`System::contact_into`] for the
    /// rows of the active candidates only, instead of [`System::contacts_into`] for all of
    /// them: a scene with many more candidates than contacts (a pile's fixed candidate list)
    /// overrides both.
    fn gaps_into(&self, _q: &[f64], _t: f64, _gaps: &mut Vec<f64>) -> bool {
        false
    }
    /// Candidate `i` at `(q, t)`, equal to `contacts(q, t)[i]`, written into `out` (its
    /// storage reused). Called for the active candidates when [`System::gaps_into`] offered
    /// the gaps (default: `contacts(q, t)[i]`, all candidates built for one; a gap of NaN
    /// when there is no candidate `i`, which the stepper reports).
    fn contact_into(&self, i: usize, q: &[f64], t: f64, out: &mut Contact) {
        match self.contacts(q, t).into_iter().nth(i) {
            Some(c) => *out = c,
            None => out.gap = f64::NAN,
        }
    }
    /// Equality constraints at `(q, t)` (default: none).
    fn bilaterals(&self, _q: &[f64], _t: f64) -> Vec<Bilateral> {
        Vec::new()
    }
    /// `q ← q + dt · T(q) u` (default: `q̇ = u`).
    fn integrate(&self, q: &mut [f64], u: &[f64], dt: f64) {
        q.iter_mut().zip(u).for_each(|(a, b)| *a += dt * b);
    }
    /// Renormalize coordinates after a step (unit quaternions; default: nothing).
    fn normalize(&self, _q: &mut [f64]) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spatial contact over 6 velocities with rolling rows `ω_x`, `ω_y` and μ_r = 0.1.
    fn rolling_contact() -> Contact {
        let row = |k: usize| Row(vec![(k, 1.0)]);
        Contact::new(0.0, row(2), vec![row(0), row(1)], 0.5).with_rolling(vec![row(3), row(4)], 0.1)
    }

    #[test]
    fn rolling_rows_follow_the_tangents_in_the_local_order() {
        let c = rolling_contact();
        assert_eq!(c.dim(), 5);
        let first: Vec<usize> = c.rows().map(|r| r.0[0].0).collect();
        assert_eq!(first, [2, 0, 1, 3, 4]);
        c.validate(0, 6).unwrap();
        assert_eq!(c.clone().rolling.len(), 2);
        let mut d = Contact::new(0.0, Row::default(), Vec::new(), 0.0);
        d.clone_from(&c);
        assert_eq!(d.dim(), 5);
        assert!(matches!(d.cone, ConeSpec::Rolling { mu_r } if mu_r == 0.1));
    }

    #[test]
    fn rolling_rows_and_the_rolling_cone_go_together() {
        let err = |c: Contact| c.validate(3, 6).unwrap_err().to_string();
        // Rolling rows with Coulomb's cone, the rolling cone without rolling rows.
        let mut c = rolling_contact();
        c.cone = ConeSpec::Coulomb;
        assert!(err(c).contains("contact 3: rolling rows"));
        let mut c = rolling_contact();
        c.rolling.clear();
        assert!(err(c).contains("rolling rows"));
        // One rolling row for two tangents; a twist beside the rolling rows.
        let mut c = rolling_contact();
        c.rolling.pop();
        assert!(err(c).contains("one rolling row per tangent"));
        let mut c = rolling_contact();
        c.twist = Some(Row(vec![(5, 1.0)]));
        assert!(err(c).contains("no twist"));
        // A rolling row beyond the velocities, a negative μ_r.
        let mut c = rolling_contact();
        c.rolling[1] = Row(vec![(6, 1.0)]);
        assert!(err(c).contains("rolling row 1"));
        let c = rolling_contact().with_rolling(vec![Row(vec![(3, 1.0)]), Row(vec![(4, 1.0)])], -0.1);
        assert!(err(c).contains("cone"));
    }
}
