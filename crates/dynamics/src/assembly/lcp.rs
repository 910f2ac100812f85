//! The LCP formulations of a step: Glocker–Studer's planar LCP (2005 eq. 27, 33) and
//! Stewart–Trinkle's with polyhedral cones (Stewart 2000 eq. 2.13–2.16).

use super::*;

/// The Glocker–Studer LCP (Glocker–Studer 2005 eq. 27, 33) of a planar problem, in the variables
/// `x = (Λ_N, Λ_R, ξ_L)` (k each) with `y = (ξ_N, ξ_R, Λ_L)`:
///
/// ```text
/// A = [ W_NN − W_NT μ   W_NT   0 ]      b = [ b_N ]
///     [ W_TN − W_TT μ   W_TT   E ]          [ b_T ]
///     [ 2μ              −E     0 ]          [ 0   ]
/// ```
///
/// with `b_T = J_T u_free + ŵ_T + ε_T γ_T^A`. `Err` unless every contact is planar
/// (one tangent, no twist). [`gs_impulses`] maps a solution back to `r = (Λ_N, Λ_T)`.
pub fn glocker_studer_lcp(p: &LocalProblem) -> Result<Lcp, Error> {
    let k = gs_check(p)?;
    let mut t = Builder::new(3 * k);
    gs_entries(p, |i, j, v| t.add(i, j, v));
    let mut q = vec![0.0; 3 * k];
    gs_q(p, &mut q);
    Lcp::new(t.finish()?, q)
}

/// [`glocker_studer_lcp`] into `out`, reusing its storage when it holds a dense LCP of the
/// same order (the per-step path of a simulation: no allocation once the contact count
/// repeats); `values` is the row-major scratch the entries are summed in.
pub fn glocker_studer_lcp_into(
    p: &LocalProblem,
    out: &mut Option<Lcp>,
    values: &mut Vec<f64>,
) -> Result<(), Error> {
    let n = 3 * gs_check(p)?;
    match out {
        Some(lcp) if lcp.n() == n && !lcp.m().is_sparse() => {
            values.clear();
            values.resize(n * n, 0.0);
            gs_entries(p, |i, j, v| values[i * n + j] += v);
            lcp.set_m_values(values)?;
            values.truncate(n);
            values.fill(0.0);
            gs_q(p, values);
            lcp.set_q(values)
        }
        _ => {
            *out = Some(glocker_studer_lcp(p)?);
            Ok(())
        }
    }
}

/// The contact count of a planar problem; `Err` naming the first contact that is not.
pub(super) fn gs_check(p: &LocalProblem) -> Result<usize, Error> {
    for (i, c) in p.contacts.iter().enumerate() {
        if c.dim() != 2 {
            return Err(Error::setting(
                &format!("contact {}: dimension", p.active[i]),
                c.dim(),
                "the Glocker–Studer LCP is planar (one tangent row, no twist)",
            ));
        }
    }
    Ok(p.contacts.len())
}

/// The entries of the Glocker–Studer matrix A, each handed to `add(i, j, v)` (repeats sum).
pub(super) fn gs_entries(p: &LocalProblem, mut add: impl FnMut(usize, usize, f64)) {
    let k = p.contacts.len();
    for_each_entry(&p.w, |i, j, v| {
        let (a, ki) = (i / 2, i % 2);
        let (c, kj) = (j / 2, j % 2);
        let row = if ki == 0 { a } else { k + a };
        if kj == 0 {
            add(row, c, v);
        } else {
            add(row, k + c, v);
            add(row, c, -p.contacts[c].mu * v);
        }
    });
    for (a, c) in p.contacts.iter().enumerate() {
        add(k + a, 2 * k + a, 1.0);
        add(2 * k + a, a, 2.0 * c.mu);
        add(2 * k + a, k + a, -1.0);
    }
}

/// The Glocker–Studer vector b into `q` (length 3k, zeroed by the caller).
pub(super) fn gs_q(p: &LocalProblem, q: &mut [f64]) {
    let k = p.contacts.len();
    for (a, c) in p.contacts.iter().enumerate() {
        q[a] = p.b[2 * a];
        q[k + a] = p.b[2 * a + 1] + c.restitution_t * p.gamma_a[2 * a + 1];
    }
}

/// `r = (Λ_N, Λ_T = Λ_R − μ Λ_N)` per contact from a Glocker–Studer solution `x`.
pub fn gs_impulses(p: &LocalProblem, x: &[f64]) -> Vec<f64> {
    let mut r = Vec::new();
    gs_impulses_into(p, x, &mut r);
    r
}

/// [`gs_impulses`] written into `r` (its storage reused).
pub fn gs_impulses_into(p: &LocalProblem, x: &[f64], r: &mut Vec<f64>) {
    let k = p.contacts.len();
    r.clear();
    for (a, c) in p.contacts.iter().enumerate() {
        r.push(x[a]);
        r.push(x[k + a] - c.mu * x[a]);
    }
}

/// Friction directions of the Stewart–Trinkle LCP, per contact, in local tangential
/// coordinates (T…, R): column-major `(d−1) × m` with each column in the cone's section at
/// μ = 1, so that the friction impulse is `Σ β_j d_j` with `β ≥ 0`, `Σ β ≤ μ c_n`.
#[derive(Clone, Debug)]
pub enum Directions {
    /// `m` directions spread over the section (the cone's `linearize(m)`; ±1 in the plane).
    Uniform(usize),
    /// The same directions for every contact (e.g. a set aligned as in Trinkle–Tzitzouris–Pang 2001 eq. 5).
    Custom(Vec<f64>),
}

impl Directions {
    /// The `(d−1) × m` direction matrix for a contact; `Err` for the rolling cone, whose two
    /// coefficients a single bound `Σ β ≤ μ c_n` cannot express.
    pub fn for_contact(&self, c: &Contact) -> Result<Vec<f64>, Error> {
        let d = c.dim();
        if let ConeSpec::Rolling { .. } = c.cone {
            return Err(Error::setting(
                "cone",
                format!("{:?}", c.cone),
                "the Stewart–Trinkle LCP has no polyhedral form of the rolling cone (two coefficients)",
            ));
        }
        match self {
            Directions::Uniform(m) => Ok(c.cone.build(d)?.linearize(if d == 2 { 2 } else { *m })),
            Directions::Custom(v) => {
                if v.is_empty() || v.len() % (d - 1) != 0 {
                    return Err(Error::setting(
                        "friction directions",
                        v.len(),
                        &format!("must be a non-empty multiple of {} (the tangential dimension)", d - 1),
                    ));
                }
                Error::check_finite("friction directions", v)?;
                Ok(v.clone())
            }
        }
    }
}

/// The Stewart–Trinkle / Anitescu–Potra LCP (Stewart 2000 eq. 2.13–2.16) in `x = (c_n, β, λ)`:
///
/// ```text
/// 0 ≤ [ nᵀM⁻¹n   nᵀM⁻¹D   0 ] [c_n]   [ b_N  ]
///     [ DᵀM⁻¹n   DᵀM⁻¹D   E ] [ β ] + [ Dᵀb_F] ⊥ x ≥ 0,
///     [ μ        −Eᵀ      0 ] [ λ ]   [ 0    ]
/// ```
///
/// with `D = J_Fᵀ D_c` the generalized friction directions and restitution in `b_N`
/// (eq. 2.13). Frictionless contacts (μ = 0) get no β or λ. Variables are ordered contact by
/// contact: `(c_n, β_1..β_m, λ)`. Returns the LCP and the per-contact layout for
/// [`st_impulses`].
pub fn stewart_trinkle_lcp(p: &LocalProblem, dirs: &Directions) -> Result<(Lcp, StLayout), Error> {
    let mut layout = StLayout { start: Vec::new(), m: Vec::new(), d: Vec::new(), size: 0 };
    for c in &p.contacts {
        let d = if c.mu > 0.0 { dirs.for_contact(c)? } else { Vec::new() };
        let m = d.len() / (c.dim() - 1);
        layout.start.push(layout.size);
        layout.size += 1 + if m > 0 { m + 1 } else { 0 };
        layout.m.push(m);
        layout.d.push(d);
    }
    // Local row i (contact a, component k) → LCP rows/cols with weights, listed once:
    // `targets[tptr[i]..tptr[i + 1]]`.
    let (mut tptr, mut targets) = (vec![0usize], Vec::<(usize, f64)>::new());
    for (a, c) in p.contacts.iter().enumerate() {
        let (s, dk) = (layout.start[a], c.dim() - 1);
        for k in 0..c.dim() {
            if k == 0 {
                targets.push((s, 1.0));
            } else {
                let weights = (0..layout.m[a]).map(|j| (s + 1 + j, layout.d[a][j * dk + k - 1]));
                targets.extend(weights.filter(|x| x.1 != 0.0));
            }
            tptr.push(targets.len());
        }
    }
    let row = |i: usize| &targets[tptr[i]..tptr[i + 1]];
    let mut t = Builder::new(layout.size);
    for_each_entry(&p.w, |i, j, v| {
        for &(r, wr) in row(i) {
            for &(c, wc) in row(j) {
                t.add(r, c, wr * v * wc);
            }
        }
    });
    let mut q = vec![0.0; layout.size];
    for (i, b) in p.b.iter().enumerate() {
        for &(r, w) in row(i) {
            q[r] += w * b;
        }
    }
    for (a, c) in p.contacts.iter().enumerate() {
        let (s, m) = (layout.start[a], layout.m[a]);
        if m == 0 {
            continue;
        }
        for j in 0..m {
            t.add(s + 1 + j, s + 1 + m, 1.0);
            t.add(s + 1 + m, s + 1 + j, -1.0);
        }
        t.add(s + 1 + m, s, c.mu);
    }
    Ok((Lcp::new(t.finish()?, q)?, layout))
}

/// Where each contact's variables sit in a Stewart–Trinkle LCP.
#[derive(Clone, Debug)]
pub struct StLayout {
    /// First variable (c_n) of each contact.
    pub start: Vec<usize>,
    /// Number of directions of each contact (0 when frictionless).
    pub m: Vec<usize>,
    /// The direction matrices.
    pub d: Vec<Vec<f64>>,
    /// LCP size.
    pub size: usize,
}

/// `r = (c_n, D_c β)` per contact from a Stewart–Trinkle solution.
pub fn st_impulses(p: &LocalProblem, layout: &StLayout, x: &[f64]) -> Vec<f64> {
    let mut r = Vec::new();
    st_impulses_into(p, layout, x, &mut r);
    r
}

/// [`st_impulses`] written into `r` (its storage reused).
pub fn st_impulses_into(p: &LocalProblem, layout: &StLayout, x: &[f64], r: &mut Vec<f64>) {
    r.clear();
    r.resize(p.size(), 0.0);
    for (a, c) in p.contacts.iter().enumerate() {
        let (s, o, dk) = (layout.start[a], p.offsets[a], c.dim() - 1);
        r[o] = x[s];
        for j in 0..layout.m[a] {
            for k in 0..dk {
                r[o + 1 + k] += layout.d[a][j * dk + k] * x[s + 1 + j];
            }
        }
    }
}
