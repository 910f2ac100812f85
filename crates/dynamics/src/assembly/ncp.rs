//! The NCP formulation of a step (Tzitzouris–Pang: the elliptic law by its Fritz–John
//! conditions, Trinkle–Tzitzouris–Pang 2001 eq. 2, §4) and the acceleration-level LCP of
//! Painlevé's problem (Stewart 2000 §1.3).

use super::*;

/// The Tzitzouris–Pang NCP of one step (Trinkle–Tzitzouris–Pang 2001 §4; friction by the Fritz–John form of
/// maximal dissipation, eq. 2, for an elliptic law `e`): per contact the unknowns are
/// `(c_n, c_F, s)` with `c_F` free and
///
/// ```text
/// 0 ≤ c_n ⊥ ξ_N(r) ≥ 0,
/// e_k² μ c_n σ_k + s c_k = 0        (σ = ξ_F(r), the tangential and twist velocities),
/// 0 ≤ s ⊥ μ² c_n² − Σ (c_k / e_k)² ≥ 0,
/// ```
///
/// where `ξ = W r + b`. At a solution with `c_n > 0`, `s` is the sliding speed
/// `‖(e_k σ_k)‖`. Coulomb contacts use `e = 1`.
pub struct TzitzourisPang<'a> {
    p: &'a LocalProblem,
    e: Vec<Vec<f64>>,
    /// Offset of each contact's `(c_n, c_F, s)` block.
    pub offsets: Vec<usize>,
    n: usize,
}

/// Builds the [`TzitzourisPang`] NCP and its bounds `(lower, upper)`; `Err` for a contact whose
/// cone is neither Coulomb nor elliptic.
pub fn tzitzouris_pang(p: &LocalProblem) -> Result<(TzitzourisPang<'_>, Vec<f64>, Vec<f64>), Error> {
    let mut e = Vec::new();
    let mut offsets = Vec::new();
    let (mut lower, mut upper) = (Vec::new(), Vec::new());
    for (a, c) in p.contacts.iter().enumerate() {
        let d = c.dim();
        let ec = match &c.cone {
            ConeSpec::Coulomb => vec![1.0; d - 1],
            ConeSpec::Elliptic { e } if e.len() == d - 1 => e.clone(),
            other => {
                return Err(Error::setting(
                    &format!("contact {}: cone", p.active[a]),
                    format!("{other:?}"),
                    "the Tzitzouris–Pang NCP takes Coulomb or elliptic cones",
                ))
            }
        };
        offsets.push(lower.len());
        lower.push(0.0);
        upper.push(f64::INFINITY);
        for _ in 1..d {
            lower.push(f64::NEG_INFINITY);
            upper.push(f64::INFINITY);
        }
        lower.push(0.0);
        upper.push(f64::INFINITY);
        e.push(ec);
    }
    let n = lower.len();
    Ok((TzitzourisPang { p, e, offsets, n }, lower, upper))
}

impl TzitzourisPang<'_> {
    /// The local impulses `r` of an NCP point `z`.
    pub fn impulses(&self, z: &[f64]) -> Vec<f64> {
        let mut r = vec![0.0; self.p.size()];
        for (a, c) in self.p.contacts.iter().enumerate() {
            let (o, s) = (self.p.offsets[a], self.offsets[a]);
            r[o..o + c.dim()].copy_from_slice(&z[s..s + c.dim()]);
        }
        r
    }

    /// An NCP point from local impulses (hot start); `s` from the sliding speed.
    pub fn point(&self, r: &[f64]) -> Vec<f64> {
        let xi = self.p.local_velocity(r);
        let mut z = vec![0.0; self.n];
        for (a, c) in self.p.contacts.iter().enumerate() {
            let (o, s, d) = (self.p.offsets[a], self.offsets[a], c.dim());
            z[s..s + d].copy_from_slice(&r[o..o + d]);
            z[s + d] = (1..d).map(|k| (self.e[a][k - 1] * xi[o + k]).powi(2)).sum::<f64>().sqrt();
        }
        z
    }
}

impl perp_ncp::NcpFunction for TzitzourisPang<'_> {
    fn dim(&self) -> usize {
        self.n
    }

    fn eval(&self, z: &[f64], f: &mut [f64]) {
        let r = self.impulses(z);
        let xi = self.p.local_velocity(&r);
        for (a, c) in self.p.contacts.iter().enumerate() {
            let (o, s, d) = (self.p.offsets[a], self.offsets[a], c.dim());
            let (cn, sl) = (z[s], z[s + d]);
            f[s] = xi[o];
            let mut ell = c.mu * c.mu * cn * cn;
            for k in 1..d {
                let ek = self.e[a][k - 1];
                f[s + k] = ek * ek * c.mu * cn * xi[o + k] + sl * z[s + k];
                ell -= (z[s + k] / ek).powi(2);
            }
            f[s + d] = ell;
        }
    }
}

/// The acceleration-level LCP of a state with persistent contacts (Pang–Trinkle 1996;
/// Painlevé's analysis, Stewart 2000 eq. 1.5–1.6), in the Stewart–Trinkle variables.
///
/// The unknowns are contact *forces*; `a = J M⁻¹ (h + Jᵀ c) + J̇u` are the contact
/// accelerations (`drift` holds `J̇u`). A contact whose tangential velocity exceeds `slip_tol`
/// is sliding: its friction is `−μ c_n s` along the unit slip direction `s` (folded into its
/// normal column, as `F = +μN` is in eq. 1.5) and it gets no β or λ. Rolling contacts get the
/// polyhedral cone of `dirs`. With a negative sliding coefficient (Painlevé) the LCP can have
/// no solution, and Lemke then ends on a ray. Returns the LCP, its layout and the slip
/// directions (empty for rolling contacts).
pub fn acceleration_lcp(
    factor: &MassFactor,
    u: &[f64],
    h: &[f64],
    active: Vec<usize>,
    contacts: Vec<Contact>,
    dirs: &Directions,
    slip_tol: f64,
) -> Result<(Lcp, StLayout, Vec<Vec<f64>>), Error> {
    let n = u.len();
    let mut cs = contacts;
    let mut slips = Vec::with_capacity(cs.len());
    for c in cs.iter_mut() {
        let vt: Vec<f64> = c.rows().enumerate().skip(1).map(|(k, r)| r.dot(u) + c.bias_at(k)).collect();
        let speed = vt.iter().map(|x| x * x).sum::<f64>().sqrt();
        slips.push(if speed > slip_tol && c.mu > 0.0 {
            vt.iter().map(|x| x / speed).collect()
        } else {
            Vec::new()
        });
        c.restitution_n = 0.0;
        c.restitution_t = 0.0;
        c.bias.clear();
    }
    let drift: Vec<f64> = cs.iter().flat_map(|c| (0..c.dim()).map(|k| c.drift_at(k))).collect();
    let mut lp = LocalProblem::new(factor, &vec![0.0; n], h, 1.0, active, cs, &[])?;
    lp.b.iter_mut().zip(&drift).for_each(|(b, d)| *b += d);
    let mut w = lp.w.to_dense();
    for (a, s) in slips.iter().enumerate() {
        if s.is_empty() {
            continue;
        }
        let (o, mu) = (lp.offsets[a], lp.contacts[a].mu);
        for i in 0..w.nrows() {
            let f: f64 = s.iter().enumerate().map(|(k, sk)| w[(i, o + 1 + k)] * sk).sum();
            w[(i, o)] -= mu * f;
        }
        lp.contacts[a].mu = 0.0;
    }
    lp.w = Matrix::Dense(w);
    let (lcp, layout) = stewart_trinkle_lcp(&lp, dirs)?;
    Ok((lcp, layout, slips))
}
