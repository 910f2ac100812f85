//! Assembly of one step's contact problem from M, h and the contact rows, in each formulation.
//!
//! Every formulation starts from the same affine map over the active contacts (Glocker–Studer 2005
//! eq. 18–21, Stewart 2000 eq. 2.11): with `u_free = u_A + M⁻¹ h Δt`, `Y = M⁻¹ Jᵀ` and
//! `W = J M⁻¹ Jᵀ` (the Delassus matrix),
//!
//! ```text
//! u_E = u_free + Y r,        ξ = W r + b,        b = J u_free + ŵ + ε γ_A,
//! ```
//!
//! where `r` are the local impulses in contact order (N, T…, R), `γ_A = J u_A + ŵ` the local
//! velocities at the start of the step and `ε` the restitution coefficients (eq. 11: ξ is the
//! velocity the impact law acts on; ε_T only in the Glocker–Studer form). [`LocalProblem`]
//! holds that map; the functions below turn it into
//!
//! * [`glocker_studer_lcp`]: the planar LCP of size 3k (Glocker–Studer 2005 eq. 27, 33);
//! * [`stewart_trinkle_lcp`]: the LCP with polyhedral cones (Stewart 2000 eq. 2.13–2.16);
//! * [`LocalProblem::friction_problem`]: the frictional contact problem `u = W r + q` with
//!   the exact cones (solved by perp-cones);
//! * [`tzitzouris_pang`]: the NCP with the elliptic law written by its Fritz–John conditions
//!   (Trinkle–Tzitzouris–Pang 2001 eq. 2, §4), solved by `bdiff-newton` with hot start.
//!
//! Bilateral constraints `B u + ŵ_B = 0` are condensed into the map before any formulation
//! sees it (the Schur complement of the MLCP's equality block): with `Y_B = M⁻¹ Bᵀ` and
//! `S = B Y_B`, `u_free ← u_free − Y_B S⁻¹ (B u_free + ŵ_B)` and `Y ← Y − Y_B S⁻¹ B Y`.

use crate::mass::{delassus_into, solve_rows, solve_rows_into, MassFactor};
use crate::system::{Bilateral, Contact, Row};
use perp_cones::{ConeSpec, FrictionContactProblem, GlobalFrictionContactProblem};
use perp_core::{Error, Matrix};
use perp_lcp::Lcp;

/// The affine map `ξ = W r + b`, `u_E = u_free + Y r` of one step over its active contacts.
#[derive(Clone, Debug)]
pub struct LocalProblem {
    /// Candidate indices of the active contacts.
    pub active: Vec<usize>,
    /// The active contacts.
    pub contacts: Vec<Contact>,
    /// Offset of each active contact in `r`.
    pub offsets: Vec<usize>,
    /// The Delassus matrix `W = J M⁻¹ Jᵀ` (bilaterals condensed).
    pub w: Matrix,
    /// `b = J u_free + ŵ + ε_N γ_A` (normal restitution only).
    pub b: Vec<f64>,
    /// `γ_A = J u_A + ŵ`, the local velocities at the start of the step.
    pub gamma_a: Vec<f64>,
    /// The free velocity `u_free` (bilaterals condensed).
    pub u_free: Vec<f64>,
    /// `Y = M⁻¹ Jᵀ` (`n × m`; sparse columns for a block-diagonal M, see [`crate::mass::Y`]).
    y: crate::mass::Y,
}

impl LocalProblem {
    /// Builds the map for `contacts` (all active) with `u_free = u_a + M⁻¹ h dt`.
    ///
    /// `h` is the force vector; `factor` the Cholesky of M.
    pub fn new(
        factor: &MassFactor,
        u_a: &[f64],
        h: &[f64],
        dt: f64,
        active: Vec<usize>,
        contacts: Vec<Contact>,
        bilaterals: &[Bilateral],
    ) -> Result<LocalProblem, Error> {
        let mut lp = LocalProblem { active, contacts, ..LocalProblem::empty() };
        lp.assemble(factor, u_a, h, dt, bilaterals)?;
        Ok(lp)
    }

    /// A problem without contacts and without storage, to be filled by
    /// [`LocalProblem::assemble`].
    pub fn empty() -> LocalProblem {
        LocalProblem {
            active: Vec::new(),
            contacts: Vec::new(),
            offsets: Vec::new(),
            w: Matrix::Dense(faer::Mat::zeros(0, 0)),
            b: Vec::new(),
            gamma_a: Vec::new(),
            u_free: Vec::new(),
            y: crate::mass::Y::empty(),
        }
    }

    /// [`LocalProblem::new`] in place, for the contacts now in `self.contacts` (candidate
    /// indices in `self.active`): the vectors and a dense W of the same size are reused, so a
    /// small system steps without reallocating its map.
    pub fn assemble(
        &mut self,
        factor: &MassFactor,
        u_a: &[f64],
        h: &[f64],
        dt: f64,
        bilaterals: &[Bilateral],
    ) -> Result<(), Error> {
        self.assemble_free(factor, u_a, h, dt)?;
        let (n, u_free) = (u_a.len(), &mut self.u_free);
        // The rows of a small problem (a few contacts, stepped millions of times) are listed on
        // the stack.
        static NONE: Row = Row(Vec::new());
        let mut small = [&NONE; 16];
        let large: Vec<&Row>;
        let count: usize = self.contacts.iter().map(Contact::dim).sum();
        let rows: &[&Row] = if count <= small.len() {
            self.contacts.iter().flat_map(|c| c.rows()).zip(small.iter_mut()).for_each(|(r, s)| *s = r);
            &small[..count]
        } else {
            large = self.contacts.iter().flat_map(|c| c.rows()).collect();
            &large
        };
        solve_rows_into(factor, n, rows, &mut self.y);
        if !bilaterals.is_empty() {
            condense(factor, n, bilaterals, rows, &mut self.y, u_free)?;
        }
        delassus_into(rows, &self.y, &mut self.w)?;
        self.assemble_b(u_a);
        Ok(())
    }

    /// The step's data for a solver in velocity space ([`LocalProblem::global_problem`]):
    /// `u_free`, `b`, `γ_A` and the offsets as [`LocalProblem::assemble`] computes them, but
    /// neither `Y = M⁻¹ Jᵀ` nor W (left empty: [`LocalProblem::friction_problem`] and
    /// [`LocalProblem::velocity`] are not available on such a problem). No bilaterals: the
    /// global form has no equality rows.
    pub fn assemble_velocity_space(
        &mut self,
        factor: &MassFactor,
        u_a: &[f64],
        h: &[f64],
        dt: f64,
    ) -> Result<(), Error> {
        self.assemble_free(factor, u_a, h, dt)?;
        self.y = crate::mass::Y::empty();
        self.w = Matrix::Dense(faer::Mat::zeros(0, 0));
        self.assemble_b(u_a);
        Ok(())
    }

    /// Checks the active list and computes `u_free = u_A + M⁻¹ h dt` into its kept storage.
    fn assemble_free(&mut self, factor: &MassFactor, u_a: &[f64], h: &[f64], dt: f64) -> Result<(), Error> {
        if self.active.len() != self.contacts.len() {
            return Err(Error::dim(
                "active (one candidate index per contact of the local problem)",
                self.contacts.len(),
                self.active.len(),
            ));
        }
        let u_free = &mut self.u_free;
        u_free.clear();
        u_free.extend(h.iter().map(|x| x * dt));
        factor.solve(u_free, u_a.len(), 1);
        u_free.iter_mut().zip(u_a).for_each(|(a, b)| *a += b);
        Ok(())
    }

    /// The offsets, `γ_A = J u_A + ŵ` and `b = J u_free + ŵ + ε_N γ_A` of the contacts.
    fn assemble_b(&mut self, u_a: &[f64]) {
        let u_free = &self.u_free;
        let (offsets, b, gamma_a) = (&mut self.offsets, &mut self.b, &mut self.gamma_a);
        offsets.clear();
        b.clear();
        gamma_a.clear();
        let mut off = 0;
        for c in &self.contacts {
            offsets.push(off);
            for (k, r) in c.rows().enumerate() {
                let ga = r.dot(u_a) + c.bias_at(k);
                gamma_a.push(ga);
                let eps = if k == 0 { c.restitution_n } else { 0.0 };
                b.push(r.dot(u_free) + c.bias_at(k) + eps * ga);
            }
            off += c.dim();
        }
    }

    /// Number of local unknowns.
    pub fn size(&self) -> usize {
        self.b.len()
    }

    /// `u_E = u_free + Y r`.
    pub fn velocity(&self, r: &[f64]) -> Vec<f64> {
        let mut u = Vec::new();
        self.velocity_into(r, &mut u);
        u
    }

    /// [`LocalProblem::velocity`] written into `u` (its storage reused).
    pub fn velocity_into(&self, r: &[f64], u: &mut Vec<f64>) {
        u.clone_from(&self.u_free);
        for (j, &rj) in r.iter().enumerate() {
            if rj != 0.0 {
                self.y.axpy_column(j, rj, u);
            }
        }
    }

    /// `ξ = W r + b`.
    pub fn local_velocity(&self, r: &[f64]) -> Vec<f64> {
        let mut xi = vec![0.0; self.size()];
        self.w.mul_vec(r, &mut xi);
        xi.iter_mut().zip(&self.b).for_each(|(a, b)| *a += b);
        xi
    }

    /// The frictional contact problem `u = W r + b` with each contact's cone (Siconos' local
    /// form); `Err` when active contacts have different local dimensions.
    pub fn friction_problem(&self) -> Result<FrictionContactProblem, Error> {
        let dim = self.contacts.first().map_or(3, Contact::dim);
        if let Some((i, c)) = self.contacts.iter().enumerate().find(|(_, c)| c.dim() != dim) {
            return Err(Error::setting(
                &format!("contact {}: dimension", self.active[i]),
                c.dim(),
                &format!("the frictional contact problem needs one local dimension for all contacts ({dim})"),
            ));
        }
        let mu = self.contacts.iter().map(|c| c.mu).collect();
        let cones: Vec<ConeSpec> = self.contacts.iter().map(|c| c.cone.clone()).collect();
        let all_coulomb = cones.iter().all(|c| matches!(c, ConeSpec::Coulomb));
        FrictionContactProblem::new(dim, self.w.clone(), self.b.clone(), mu).and_then(|p| {
            if all_coulomb {
                Ok(p)
            } else {
                p.with_cones(cones)
            }
        })
    }

    /// The same problem in global form for the mass matrix `m` it was assembled with (no
    /// bilaterals): `M v = f + H r`, `u = Hᵀ v + b_g` with `H = Jᵀ` (the active contacts' rows as
    /// columns), `f = M u_free` and `b_g = b − J u_free`, so that eliminating v gives back
    /// `u = W r + b`. `Err` when the contacts are not all Coulomb of one dimension (the global
    /// problem carries μ only) or `m` is not of the rows' length.
    pub fn global_problem(&self, m: &Matrix) -> Result<GlobalFrictionContactProblem, Error> {
        let dim = self.contacts.first().map_or(3, Contact::dim);
        if let Some((i, c)) = self
            .contacts
            .iter()
            .enumerate()
            .find(|(_, c)| c.dim() != dim || !matches!(c.cone, ConeSpec::Coulomb))
        {
            return Err(Error::setting(
                &format!("contact {}: law", self.active[i]),
                format!("{:?} in dimension {}", c.cone, c.dim()),
                &format!("the global frictional problem takes Coulomb contacts of one dimension ({dim})"),
            ));
        }
        let n = self.u_free.len();
        if m.nrows() != n {
            return Err(Error::dim("M (one row per velocity)", n, m.nrows()));
        }
        let mut triplets = Vec::new();
        let mut b = self.b.clone();
        for (k, row) in self.contacts.iter().flat_map(|c| c.rows()).enumerate() {
            for &(j, v) in &row.0 {
                triplets.push((j, k, v));
            }
            b[k] -= row.dot(&self.u_free);
        }
        let h = Matrix::from_triplets(n, self.size(), &triplets)?;
        let mut f = vec![0.0; n];
        m.mul_vec(&self.u_free, &mut f);
        let mu = self.contacts.iter().map(|c| c.mu).collect();
        GlobalFrictionContactProblem::new(dim, m.clone(), h, f, b, mu)
    }

    /// [`LocalProblem::friction_problem`] into `slot`, reusing the problem there (W's storage,
    /// q, μ) when it has this step's dimension and shape: no allocation for a Coulomb problem
    /// whose W keeps its storage kind, size and pattern. The values are validated here, once
    /// per step, as [`FrictionContactProblem::new`] would.
    pub fn friction_problem_into(&self, slot: &mut Option<FrictionContactProblem>) -> Result<(), Error> {
        let dim = self.contacts.first().map_or(3, Contact::dim);
        let reusable = self.contacts.iter().all(|c| c.dim() == dim);
        let Some(p) = slot.as_mut().filter(|p| reusable && p.dim == dim) else {
            *slot = None;
            *slot = Some(self.friction_problem()?);
            return Ok(());
        };
        p.w.assign(&self.w);
        p.q.clone_from(&self.b);
        p.mu.clear();
        p.mu.extend(self.contacts.iter().map(|c| c.mu));
        if self.contacts.iter().all(|c| matches!(c.cone, ConeSpec::Coulomb)) {
            p.cones = None;
        } else {
            // The laws' storage is reused (an elliptic law's semi-axes).
            let cones = p.cones.get_or_insert_with(Vec::new);
            cones.truncate(self.contacts.len());
            for (k, c) in self.contacts.iter().enumerate() {
                match cones.get_mut(k) {
                    Some(slot) => slot.clone_from(&c.cone),
                    None => cones.push(c.cone.clone()),
                }
            }
        }
        if let Err(e) = p.validate() {
            *slot = None;
            return Err(e);
        }
        Ok(())
    }
}

/// Condenses bilateral constraints into `Y` and `u_free` (module docs).
fn condense(
    factor: &MassFactor,
    n: usize,
    bilaterals: &[Bilateral],
    rows: &[&Row],
    y: &mut crate::mass::Y,
    u_free: &mut [f64],
) -> Result<(), Error> {
    let brows: Vec<&Row> = bilaterals.iter().map(|b| &b.row).collect();
    let p = brows.len();
    let yb = solve_rows(factor, n, &brows);
    let mut s = faer::Mat::<f64>::zeros(p, p);
    for j in 0..p {
        for i in 0..p {
            s[(i, j)] = yb.row_dot_column(brows[i], j);
        }
    }
    let lu = s.partial_piv_lu();
    // Right-hand sides: [B u_free + ŵ_B, B Y] (p × (1 + m)).
    let m = rows.len();
    let mut rhs = faer::Mat::<f64>::zeros(p, 1 + m);
    for i in 0..p {
        rhs[(i, 0)] = brows[i].dot(u_free) + bilaterals[i].bias;
    }
    crate::mass::for_each_product(&brows, y, |i, j, v| rhs[(i, 1 + j)] = v);
    use faer::linalg::solvers::Solve;
    lu.solve_in_place(rhs.as_mut());
    if (0..p).any(|i| (0..=m).any(|j| !rhs[(i, j)].is_finite())) {
        return Err(Error::setting(
            "bilateral constraints",
            p,
            "their rows are linearly dependent (B M⁻¹ Bᵀ is singular)",
        ));
    }
    for k in 0..p {
        yb.axpy_column(k, -rhs[(k, 0)], u_free);
    }
    y.sub_mul(&yb, rhs.as_ref().subcols(1, m));
    Ok(())
}

/// Calls `f(i, j, value)` for each stored entry of W (the nonzeros when dense).
fn for_each_entry(w: &Matrix, mut f: impl FnMut(usize, usize, f64)) {
    match w {
        Matrix::Dense(d) => {
            for j in 0..d.ncols() {
                for (i, &v) in d.col_as_slice(j).iter().enumerate() {
                    if v != 0.0 {
                        f(i, j, v);
                    }
                }
            }
        }
        Matrix::Sparse(s) => s.iter().for_each(|(v, (i, j))| f(i, j, *v)),
    }
}

/// An LCP matrix under assembly: dense when small (entries summed in place, one allocation —
/// the contact LCPs of small systems are built thousands of times per second), triplets
/// otherwise.
enum Builder {
    Dense(faer::Mat<f64>),
    Triplets(usize, Vec<(usize, usize, f64)>),
}

impl Builder {
    fn new(n: usize) -> Builder {
        if n <= 64 {
            Builder::Dense(faer::Mat::zeros(n, n))
        } else {
            Builder::Triplets(n, Vec::new())
        }
    }

    /// `A[i, j] += v`.
    fn add(&mut self, i: usize, j: usize, v: f64) {
        match self {
            Builder::Dense(d) => d[(i, j)] += v,
            Builder::Triplets(_, t) => t.push((i, j, v)),
        }
    }

    fn finish(self) -> Result<Matrix, Error> {
        match self {
            Builder::Dense(d) => Ok(Matrix::Dense(d)),
            Builder::Triplets(n, t) => Matrix::from_triplets(n, n, &t),
        }
    }
}

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
fn gs_check(p: &LocalProblem) -> Result<usize, Error> {
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
fn gs_entries(p: &LocalProblem, mut add: impl FnMut(usize, usize, f64)) {
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
fn gs_q(p: &LocalProblem, q: &mut [f64]) {
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
