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

mod lcp;
mod ncp;

pub use lcp::{
    glocker_studer_lcp, glocker_studer_lcp_into, gs_impulses, gs_impulses_into, st_impulses,
    st_impulses_into, stewart_trinkle_lcp, Directions, StLayout,
};
pub use ncp::{acceleration_lcp, tzitzouris_pang, TzitzourisPang};

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
    /// `J u_free`, row by row (the part of `b` the global form moves into `f`).
    ju_free: Vec<f64>,
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
            ju_free: Vec::new(),
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
        let ju_free = &mut self.ju_free;
        offsets.clear();
        b.clear();
        gamma_a.clear();
        ju_free.clear();
        let mut off = 0;
        for c in &self.contacts {
            offsets.push(off);
            for (k, r) in c.rows().enumerate() {
                let (ja, jf) = r.dot2(u_a, u_free);
                let ga = ja + c.bias_at(k);
                gamma_a.push(ga);
                let eps = if k == 0 { c.restitution_n } else { 0.0 };
                b.push(jf + c.bias_at(k) + eps * ga);
                ju_free.push(jf);
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
        let mut slot = None;
        self.global_problem_into(m, &mut slot)?;
        Ok(slot.expect("filled on success"))
    }

    /// [`LocalProblem::global_problem`] into `slot`, reusing the storage of the problem there
    /// (H's compressed columns, M, f, b, μ): a step that rebuilds the global problem of a
    /// thousand-body scene every step allocates nothing once its sizes have been seen. The
    /// same problem either way; on `Err` the slot is emptied.
    pub fn global_problem_into(
        &self,
        m: &Matrix,
        slot: &mut Option<GlobalFrictionContactProblem>,
    ) -> Result<(), Error> {
        let old = slot.take();
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
        let (m_kept, h_kept, mut f, mut b, mut mu) = match old {
            Some(g) => (Some(g.m), Some(g.h), g.f, g.b, g.mu),
            None => (None, None, Vec::new(), Vec::new(), Vec::new()),
        };
        // b − J u_free: J u_free as assemble_b computed it (the same sums).
        b.clear();
        b.extend(self.b.iter().zip(&self.ju_free).map(|(b, j)| b - j));
        let columns = self.contacts.iter().flat_map(|c| c.rows()).map(|row| &row.0[..]);
        let h = Matrix::from_columns_in(n, columns, h_kept)?;
        f.clear();
        f.resize(n, 0.0);
        m.mul_vec(&self.u_free, &mut f);
        mu.clear();
        mu.extend(self.contacts.iter().map(|c| c.mu));
        let m = match m_kept {
            Some(mut kept) => {
                kept.clone_from(m);
                kept
            }
            None => m.clone(),
        };
        *slot = Some(GlobalFrictionContactProblem::new(dim, m, h, f, b, mu)?);
        Ok(())
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
