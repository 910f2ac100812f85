//! SAP's contact model: the regularisation of each contact (near-rigid or compliant) and the
//! projection of its velocity onto the regularised cone's impulses (see the parent module).

use super::*;

/// One contact's compliance for [`Regularisation::Compliant`] (Drake's
/// `SapFrictionConeConstraint::Parameters` and `phi0`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compliance {
    /// Normal stiffness k (force per length, > 0; `+∞` leaves `R_n` to the near-rigid bound,
    /// which then needs β > 0).
    pub stiffness: f64,
    /// Hunt–Crossley-like dissipation time scale τ_d (time, ≥ 0): the damping is `k τ_d`.
    pub dissipation_time_scale: f64,
    /// Signed distance φ₀ at the start of the step (negative when penetrating). The target
    /// normal velocity is `v̂_N = −φ₀/(δt + τ_d)`; the problem's `b` must then not hold a gap
    /// term of its own.
    pub phi0: f64,
}

/// How each contact's regulariser `R_i` and target velocity `v̂_i` are chosen (see the
/// [module docs](self)).
#[derive(Clone, Debug, PartialEq)]
pub enum Regularisation {
    /// `R_n = β²/(4π²) · w_n`, `R_t = σ · w_t`, `v̂ = 0`: the stiffest contact the time step
    /// resolves (period β·δt), Drake's "near-rigid" regime. Defaults: β = [`DEFAULT_BETA`] = 1,
    /// σ = [`DEFAULT_SIGMA`] = 10⁻³; both must be finite and > 0. Smaller β is stiffer (closer
    /// to the rigid answer) and worse conditioned.
    NearRigid {
        /// Near-rigid threshold β (> 0).
        beta: f64,
        /// Tangential regularisation σ (> 0): the stiction creep is about `σ w_t |γ_T|`.
        sigma: f64,
    },
    /// Per-contact stiffness and dissipation (Drake's compliant point contact): `R_n =
    /// max(β²/(4π²) w_n, 1/(δt k (δt + τ_d)))`, `R_t = σ w_t`, `v̂_N = −φ₀/(δt + τ_d)`.
    Compliant {
        /// The time step δt (> 0).
        dt: f64,
        /// Near-rigid threshold β (≥ 0): the stiffest a contact may be (0: no bound).
        beta: f64,
        /// Tangential regularisation σ (> 0).
        sigma: f64,
        /// One entry per contact.
        contacts: Vec<Compliance>,
    },
}

impl Default for Regularisation {
    /// Near-rigid with Drake's defaults, β = 1, σ = 10⁻³.
    fn default() -> Self {
        Regularisation::NearRigid { beta: DEFAULT_BETA, sigma: DEFAULT_SIGMA }
    }
}

impl Regularisation {
    /// Checks the parameters' ranges for a problem of `nc` contacts; the error names the field.
    pub fn validate(&self, nc: usize) -> Result<(), Error> {
        let positive = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(Error::setting(name, v, "must be finite and > 0"))
            }
        };
        match self {
            Regularisation::NearRigid { beta, sigma } => {
                positive("sap beta", *beta)?;
                positive("sap sigma", *sigma)
            }
            Regularisation::Compliant { dt, beta, sigma, contacts } => {
                positive("sap dt", *dt)?;
                positive("sap sigma", *sigma)?;
                if !(beta.is_finite() && *beta >= 0.0) {
                    return Err(Error::setting("sap beta", beta, "must be finite and ≥ 0"));
                }
                if contacts.len() != nc {
                    return Err(Error::dim("sap compliant contacts (one per contact)", nc, contacts.len()));
                }
                for (i, c) in contacts.iter().enumerate() {
                    // +∞ is allowed: a rigid contact, bounded by the near-rigid limit (β > 0).
                    let stiff_ok = c.stiffness > 0.0 && (c.stiffness.is_finite() || *beta > 0.0);
                    if !stiff_ok {
                        return Err(Error::setting(
                            &format!("sap stiffness[{i}]"),
                            c.stiffness,
                            "must be > 0 (+∞ only with β > 0)",
                        ));
                    }
                    if !(c.dissipation_time_scale.is_finite() && c.dissipation_time_scale >= 0.0) {
                        return Err(Error::setting(
                            &format!("sap dissipation_time_scale[{i}]"),
                            c.dissipation_time_scale,
                            "must be finite and ≥ 0",
                        ));
                    }
                    if !c.phi0.is_finite() {
                        return Err(Error::setting(&format!("sap phi0[{i}]"), c.phi0, "must be finite"));
                    }
                }
                Ok(())
            }
        }
    }

    /// `(R_n, R_t, v̂_N)` of contact `i` from its Delassus diagonal `wd` (normal first).
    pub(super) fn contact(&self, i: usize, wd: &[f64]) -> (f64, f64, f64) {
        let d = wd.len();
        let w_rms = measures::norm2(wd) / (d as f64).sqrt();
        // A contact whose H columns vanish has no Delassus scale: any positive one will do
        // (its impulse moves nothing).
        let w_rms = if w_rms > 0.0 && w_rms.is_finite() { w_rms } else { 1.0 };
        let wn = wd[0].max(w_rms);
        let wt = (wd[1..].iter().sum::<f64>() / (d - 1) as f64).max(w_rms);
        let beta_factor = |beta: f64| beta * beta / (4.0 * std::f64::consts::PI * std::f64::consts::PI);
        match self {
            Regularisation::NearRigid { beta, sigma } => (beta_factor(*beta) * wn, sigma * wt, 0.0),
            Regularisation::Compliant { dt, beta, sigma, contacts } => {
                let c = contacts[i];
                let tau = dt + c.dissipation_time_scale;
                let rn = (beta_factor(*beta) * wn).max(1.0 / (dt * c.stiffness * tau));
                (rn, sigma * wt, -c.phi0 / tau)
            }
        }
    }
}

/// One contact's data: friction coefficient, regulariser and target normal velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SapContact {
    /// Friction coefficient μ.
    pub mu: f64,
    /// Normal regularisation R_n (> 0).
    pub rn: f64,
    /// Tangential regularisation R_t (> 0).
    pub rt: f64,
    /// Target normal velocity v̂_N.
    pub vhat_n: f64,
}

/// Which region of the analytic projection a contact is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactMode {
    /// `γ = y`, inside the cone.
    Stiction,
    /// `γ` on the cone's boundary.
    Sliding,
    /// `γ = 0`.
    Separation,
}

impl SapContact {
    /// The impulse `γ = P_F(y)`, `y = R⁻¹ (v̂ − u)`, of this contact at local velocity `u`
    /// (length d = 2 or 3, normal first) into `gamma`, and, when asked, `G = −∂γ/∂u` (d×d,
    /// row-major) into `g`; returns the region.
    pub fn project(&self, u: &[f64], gamma: &mut [f64], g: Option<&mut [f64]>) -> ContactMode {
        let d = u.len();
        let SapContact { mu, rn, rt, vhat_n } = *self;
        let yn = (vhat_n - u[0]) / rn;
        let mut yt = [0.0; 2];
        for k in 1..d {
            yt[k - 1] = -u[k] / rt;
        }
        let yr = measures::norm2(&yt[..d - 1]);
        let mu_hat = mu * rt / rn;
        let mode = if yr <= mu * yn && yn >= 0.0 {
            ContactMode::Stiction
        } else if yn > -mu_hat * yr {
            ContactMode::Sliding
        } else {
            ContactMode::Separation
        };
        match mode {
            ContactMode::Stiction => {
                gamma[0] = yn;
                gamma[1..d].copy_from_slice(&yt[..d - 1]);
                if let Some(g) = g {
                    g[..d * d].fill(0.0);
                    g[0] = 1.0 / rn;
                    for k in 1..d {
                        g[k * d + k] = 1.0 / rt;
                    }
                }
            }
            ContactMode::Separation => {
                gamma[..d].fill(0.0);
                if let Some(g) = g {
                    g[..d * d].fill(0.0);
                }
            }
            ContactMode::Sliding => {
                // yr > 0 here: sliding needs yr > μ y_N and y_N > −μ̂ y_r.
                let factor = 1.0 / (1.0 + mu * mu_hat);
                let gn = (yn + mu_hat * yr) * factor;
                gamma[0] = gn;
                let mut that = [0.0; 2];
                for k in 1..d {
                    that[k - 1] = yt[k - 1] / yr;
                    gamma[k] = mu * gn * that[k - 1];
                }
                if let Some(g) = g {
                    // dγ/dy, then G = dγ/dy · R⁻¹ (symmetric: the projection's Jacobian in
                    // the R-scaled variables is).
                    let rinv = |k: usize| if k == 0 { 1.0 / rn } else { 1.0 / rt };
                    g[0] = factor * rinv(0);
                    for a in 1..d {
                        g[a] = mu_hat * factor * that[a - 1] * rinv(a);
                        g[a * d] = mu * factor * that[a - 1] * rinv(0);
                        for b in 1..d {
                            let delta = if a == b { 1.0 } else { 0.0 };
                            let tt = that[a - 1] * that[b - 1];
                            g[a * d + b] = mu * (gn / yr * (delta - tt) + mu_hat * factor * tt) * rinv(b);
                        }
                    }
                }
            }
        }
        mode
    }

    /// `ℓ_i = ½ γᵀ R γ` of the impulse `gamma`.
    pub fn cost(&self, gamma: &[f64]) -> f64 {
        0.5 * (self.rn * gamma[0] * gamma[0] + self.rt * gamma[1..].iter().map(|x| x * x).sum::<f64>())
    }
}
