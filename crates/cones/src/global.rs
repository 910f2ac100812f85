//! [`GlobalFrictionContactProblem`]: the frictional contact problem in global form (Siconos'
//! `GlobalFrictionContactProblem`, FCLIB's `fclib_global`), its Siconos error measure, and its
//! reduction to the local (Delassus) form solved by every [`crate::FrictionSolver`].
//!
//! With `n_dof` generalised velocities v, `nc` contacts of dimension `d` and reactions r,
//!
//! ```text
//!     M v = f + H r,        u = Hᵀ v + b,        K_i ∋ r_i ⊥ ũ_i ∈ K_i*,
//! ```
//!
//! (M the mass matrix, symmetric positive definite, f the free impulse — Siconos' `q` —, b
//! FCLIB's `w`). Eliminating v gives the local problem `u = W r + q` with
//!
//! ```text
//!     W = Hᵀ M⁻¹ H,         q = Hᵀ M⁻¹ f + b,         v = M⁻¹ (f + H r).
//! ```
//!
//! [`GlobalFrictionContactProblem::reduce`] factors M once with the mass factor the dynamics
//! uses ([`perp_core::linear::MassFactor`]: one dense Cholesky per connected component of M's
//! sparsity graph — the rigid bodies —, faer's sparse or dense Cholesky otherwise, LU when M
//! is not symmetric positive definite), builds W by the same Delassus assembly, sparse (CSR)
//! or dense according to its fill, and returns a [`Reduction`] that keeps the factorisation
//! to recover v from r.

use crate::cone::MAX_DIM;
use crate::problem::FrictionContactProblem;
use perp_core::linear::mass::{delassus_with, solve_rows, DelassusLayout};
use perp_core::linear::{Columns, MassFactor, Row};
use perp_core::{measures, Error, Matrix, Settings, Status};
use std::time::Instant;

/// W is stored dense when more than this fraction of its entries is nonzero.
pub const DENSE_FILL: f64 = 0.3;

/// Siconos' threshold below which the global measure is not normalised (`sqrt(DBL_EPSILON)`
/// in `gfc3d_compute_error`).
const MIN_RELATIVE_SCALING: f64 = 1.490_116_119_384_765_6e-8;

/// The frictional contact problem in global form: `M v = f + H r`, `u = Hᵀ v + b`, with
/// Coulomb's law between r and u at every contact (see the [module docs](self)).
///
/// Field names follow FCLIB except `f`, which Siconos calls `q`. A contact's entries come
/// normal first, as in [`FrictionContactProblem`].
#[derive(Clone, Debug)]
pub struct GlobalFrictionContactProblem {
    /// Contact dimension (2 or 3 for Coulomb; at most [`MAX_DIM`]).
    pub dim: usize,
    /// The mass matrix M, square of size `n_dof`, symmetric positive definite.
    pub m: Matrix,
    /// The contact operator H, `n_dof × dim·nc`.
    pub h: Matrix,
    /// The free impulse f (length `n_dof`; Siconos' `q`).
    pub f: Vec<f64>,
    /// The constant term b of the local velocity (length `dim·nc`; FCLIB's `w`).
    pub b: Vec<f64>,
    /// Friction coefficient per contact (≥ 0).
    pub mu: Vec<f64>,
}

impl GlobalFrictionContactProblem {
    /// A validated global problem.
    ///
    /// ```
    /// use perp_cones::global::GlobalFrictionContactProblem;
    /// use perp_core::Matrix;
    /// let m = Matrix::from_row_major(2, 2, &[2.0, 0.0, 0.0, 4.0]).unwrap();
    /// let h = Matrix::from_row_major(2, 2, &[1.0, 0.0, 0.0, 1.0]).unwrap();
    /// let g = GlobalFrictionContactProblem::new(2, m, h, vec![-1.0, 0.0], vec![0.0; 2], vec![0.5]).unwrap();
    /// let (local, _) = g.reduce().unwrap();
    /// // W = Hᵀ M⁻¹ H = diag(1/2, 1/4), q = Hᵀ M⁻¹ f + b = (−1/2, 0).
    /// assert!((local.w.get(0, 0) - 0.5).abs() < 1e-15 && (local.w.get(1, 1) - 0.25).abs() < 1e-15);
    /// assert!((local.q[0] + 0.5).abs() < 1e-15);
    /// ```
    pub fn new(
        dim: usize,
        m: Matrix,
        h: Matrix,
        f: Vec<f64>,
        b: Vec<f64>,
        mu: Vec<f64>,
    ) -> Result<Self, Error> {
        let g = GlobalFrictionContactProblem { dim, m, h, f, b, mu };
        g.validate()?;
        Ok(g)
    }

    /// Number of contacts.
    pub fn contacts(&self) -> usize {
        self.mu.len()
    }

    /// Number of generalised velocities, `n_dof`.
    pub fn dofs(&self) -> usize {
        self.f.len()
    }

    /// Number of local unknowns, `dim · nc`.
    pub fn size(&self) -> usize {
        self.b.len()
    }

    /// Checks sizes and values; the error names the field (`M`, `H rows`, `f`, `b`, `mu[i]` …).
    pub fn validate(&self) -> Result<(), Error> {
        let d = self.dim;
        if !(2..=MAX_DIM).contains(&d) {
            return Err(Error::setting("dim", d, "the contact dimension must be between 2 and 6"));
        }
        let (n, cols) = (self.m.nrows(), self.m.ncols());
        if n != cols {
            return Err(Error::NotSquare { what: "M".into(), rows: n, cols });
        }
        if self.h.nrows() != n {
            return Err(Error::dim("H rows (must equal the size of M)", n, self.h.nrows()));
        }
        let m = self.h.ncols();
        if !m.is_multiple_of(d) {
            return Err(Error::setting(
                "dim",
                d,
                &format!("the contact dimension must divide the number of columns of H, which is {m}"),
            ));
        }
        Error::check_len("f", &self.f, n)?;
        Error::check_len("b", &self.b, m)?;
        Error::check_len("mu", &self.mu, m / d)?;
        self.m.check_finite("M")?;
        self.h.check_finite("H")?;
        Error::check_finite("f", &self.f)?;
        Error::check_finite("b", &self.b)?;
        for (i, &v) in self.mu.iter().enumerate() {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::setting(&format!("mu[{i}]"), v, "must be finite and ≥ 0"));
            }
        }
        Ok(())
    }

    /// [`GlobalFrictionContactProblem::validate`], and a warm start of reactions `warm` of
    /// length `dim·nc` with finite entries: what every global solver checks first.
    pub fn validate_warm(&self, warm: Option<&[f64]>) -> Result<(), Error> {
        self.validate()?;
        if let Some(w) = warm {
            Error::check_len("warm start", w, self.size())?;
            Error::check_finite("warm start", w)?;
        }
        Ok(())
    }

    /// The global velocity `v = M⁻¹ (f + H r)` of the reactions r into `v` (length `n_dof`),
    /// with M's factor `factor`.
    pub(crate) fn velocity_into(&self, factor: &MassFactor, r: &[f64], v: &mut [f64]) {
        self.h.mul_vec(r, v);
        v.iter_mut().zip(&self.f).for_each(|(a, b)| *a += b);
        factor.solve(v, self.dofs(), 1);
    }

    /// The local velocity `u = Hᵀ v + b`. Panics if `v.len() != n_dof` (a programming error).
    pub fn local_velocity(&self, v: &[f64]) -> Vec<f64> {
        let mut u = Vec::new();
        self.local_velocity_into(v, &mut u);
        u
    }

    /// [`GlobalFrictionContactProblem::local_velocity`] into `u` (its storage reused).
    pub fn local_velocity_into(&self, v: &[f64], u: &mut Vec<f64>) {
        assert_eq!(v.len(), self.dofs(), "local_velocity: v has the wrong length");
        u.clone_from(&self.b);
        self.h.mul_transpose_add(v, u);
    }

    /// The contact rows `J = Hᵀ` (one [`Row`] per column of H: the velocities a contact
    /// direction touches), as the Delassus assembly and the global solvers take them.
    pub fn contact_rows(&self) -> Vec<Row> {
        let mut rows = Vec::new();
        self.contact_rows_into(&mut rows);
        rows
    }

    /// [`GlobalFrictionContactProblem::contact_rows`] into `rows`, reusing its rows' storage
    /// (a solver called every time step).
    pub fn contact_rows_into(&self, rows: &mut Vec<Row>) {
        let m = self.size();
        rows.resize_with(m, Row::default);
        rows.iter_mut().for_each(|r| r.0.clear());
        match &self.h {
            // By rows: each velocity's entries go to the rows of their columns, velocities
            // ascending.
            Matrix::Sparse(s) if s.is_csr() => {
                // Each row's length first: one allocation a row at most, not one per doubling.
                let mut len = vec![0usize; m];
                s.outer_iterator().for_each(|row| row.iter().for_each(|(k, _)| len[k] += 1));
                rows.iter_mut().zip(&len).for_each(|(r, &l)| r.0.reserve_exact(l));
                for (i, row) in s.outer_iterator().enumerate() {
                    for (k, &v) in row.iter() {
                        rows[k].0.push((i, v));
                    }
                }
            }
            other => {
                let converted;
                let hcsc = match other {
                    Matrix::Sparse(s) => s,
                    dense => {
                        converted = dense.to_csr().to_csc();
                        &converted
                    }
                };
                for (k, col) in hcsc.outer_iterator().enumerate() {
                    rows[k].0.extend(col.iter().map(|(i, &v)| (i, v)));
                }
            }
        }
    }

    /// The contact rows read in place ([`ContactRows`]): H's columns when H is stored by
    /// columns, else [`GlobalFrictionContactProblem::contact_rows_into`] `rows`.
    pub(crate) fn contact_rows_in<'a>(&'a self, rows: &'a mut Vec<Row>) -> ContactRows<'a> {
        if let Some(c) = match &self.h {
            Matrix::Sparse(s) => Columns::of(s),
            Matrix::Dense(_) => None,
        } {
            return ContactRows::Columns(c);
        }
        self.contact_rows_into(rows);
        ContactRows::Rows(rows)
    }

    /// Siconos' global error measure (`gfc3d_compute_error`, `design/SUITES.md`) of reactions
    /// `r` and global velocities `v`:
    ///
    /// ```text
    ///   ‖M v − H r − f‖ / max(‖f‖, ‖M v‖, ‖H r‖)  +  ‖e(r, u)‖ / max(‖u‖, ‖r‖),   u = Hᵀ v + b,
    /// ```
    ///
    /// with e the per-contact Coulomb residual `r − P_K(r − ũ)`, `ũ = (u_N + μ‖u_T‖, u_T)`
    /// (as in [`perp_core::measures::friction_contact_error`]). Each term is normalised only
    /// when its scale exceeds `sqrt(ε)`, as Siconos does. NaN when a length is wrong.
    pub fn error(&self, r: &[f64], v: &[f64]) -> f64 {
        self.error_of(r, v, true)
    }

    /// [`error`](Self::error) of the convex relaxation (Anitescu's cone complementarity
    /// problem `K ∋ r ⊥ u ∈ K*`): the per-contact residual is `r − P_K(r − u)`, without De
    /// Saxcé's term. NaN when a length is wrong.
    pub fn convex_error(&self, r: &[f64], v: &[f64]) -> f64 {
        self.error_of(r, v, false)
    }

    /// The global error with (`desaxce`) or without De Saxcé's term in the contacts' residual.
    fn error_of(&self, r: &[f64], v: &[f64], desaxce: bool) -> f64 {
        let (n, m) = (self.dofs(), self.size());
        if r.len() != m || v.len() != n || self.m.nrows() != n || self.h.ncols() != m {
            return f64::NAN;
        }
        let mut mv = vec![0.0; n];
        self.m.mul_vec(v, &mut mv);
        let mut hr = vec![0.0; n];
        self.h.mul_vec(r, &mut hr);
        let res: Vec<f64> = (0..n).map(|i| mv[i] - hr[i] - self.f[i]).collect();
        let scale = measures::norm2(&self.f).max(measures::norm2(&mv)).max(measures::norm2(&hr));
        let equation = relative(measures::norm2(&res), scale);
        let u = self.local_velocity(v);
        let comp = coulomb_residual_sq(self.dim, &self.mu, r, &u, desaxce).sqrt();
        equation + relative(comp, measures::norm2(&u).max(measures::norm2(r)))
    }

    /// The local form `u = W r + q`, `W = Hᵀ M⁻¹ H`, `q = Hᵀ M⁻¹ f + b` (same μ), and the
    /// [`Reduction`] that maps a local solution r back to `v = M⁻¹ (f + H r)`.
    ///
    /// M is factored once by [`MassFactor::new_or_lu`]: Cholesky (by blocks when M's sparsity
    /// graph splits into small components), LU when M is not symmetric or not positive
    /// definite ([`Reduction::factorization`] says which). W is built from `Y = M⁻¹ H` (sparse
    /// columns for a block factor: a contact row touches one or two bodies), the upper
    /// triangle mirrored when M was factored by Cholesky, and stored sparse (CSR) unless more
    /// than [`DENSE_FILL`] of its entries are nonzero.
    ///
    /// Errors: the problem's own [`validate`](Self::validate) errors, and
    /// [`Error::Requirement`] naming M when M is singular (no factorisation, or a solve that
    /// does not reproduce its right-hand side).
    pub fn reduce(&self) -> Result<(FrictionContactProblem, Reduction), Error> {
        self.validate()?;
        let n = self.dofs();
        let m = self.size();
        let factor = MassFactor::new_or_lu(&self.m).map_err(|e| match e {
            Error::Requirement { requirement, .. } => singular_m(n, &requirement),
            e => e,
        })?;
        let red = Reduction { factor, h: self.h.clone(), f: self.f.clone(), n };

        // q = Hᵀ M⁻¹ f + b, checking that the solve is sound.
        let mut x = self.f.clone();
        red.factor.solve(&mut x, n, 1);
        red.check_solve(&self.m, &self.f, &x, "f")?;
        let mut q = self.b.clone();
        self.h.mul_transpose_add(&x, &mut q);

        // A probe of the H solves: M⁻¹ (H·1) must reproduce H·1.
        let mut h1 = vec![0.0; n];
        self.h.mul_vec(&vec![1.0; m], &mut h1);
        let mut y = h1.clone();
        red.factor.solve(&mut y, n, 1);
        red.check_solve(&self.m, &h1, &y, "H·1")?;

        let w = red.delassus(self)?;
        let local = FrictionContactProblem::new(self.dim, w, q, self.mu.clone())?;
        Ok((local, red))
    }
}

/// The limit a global solver's own loop has reached after `iterations` iterations, if any:
/// `MaxIterations` at `max_iter`, `TimeLimit` past `s`'s time limit since `start`.
pub(crate) fn limit_reached(
    iterations: usize,
    max_iter: usize,
    s: &Settings,
    start: Instant,
) -> Option<Status> {
    if iterations >= max_iter {
        Some(Status::MaxIterations)
    } else if s.deadline(start).is_some_and(|t| Instant::now() >= t) {
        Some(Status::TimeLimit)
    } else {
        None
    }
}

/// `err / scale` when `scale > sqrt(ε)`, else `err` (Siconos' global normalisation).
fn relative(err: f64, scale: f64) -> f64 {
    if scale > MIN_RELATIVE_SCALING {
        err / scale
    } else {
        err
    }
}

/// `Σ_i ‖r_i − P_{K_i}(r_i − ũ_i)‖²` over the contacts, with the Coulomb cone of `mu[i]` and
/// De Saxcé's `ũ = (u_N + μ‖u_T‖, u_T)` (`desaxce`; else `ũ = u`, the convex relaxation's);
/// any dimension ≥ 2 (normal first).
fn coulomb_residual_sq(dim: usize, mu: &[f64], r: &[f64], u: &[f64], desaxce: bool) -> f64 {
    let mut sum = 0.0;
    let mut x = [0.0; MAX_DIM];
    for (i, &mi) in mu.iter().enumerate() {
        let (ri, ui) = (&r[dim * i..dim * (i + 1)], &u[dim * i..dim * (i + 1)]);
        let ut = if desaxce { measures::norm2(&ui[1..]) } else { 0.0 };
        x[0] = ri[0] - (ui[0] + mi * ut);
        for k in 1..dim {
            x[k] = ri[k] - ui[k];
        }
        let xt = measures::norm2(&x[1..dim]);
        // e = r − P_K(x).
        if xt <= mi * x[0] {
            sum += (0..dim).map(|k| (ri[k] - x[k]).powi(2)).sum::<f64>();
        } else if mi * xt <= -x[0] {
            sum += ri.iter().map(|v| v * v).sum::<f64>();
        } else {
            let a = (mi * xt + x[0]) / (mi * mi + 1.0);
            let mut s = (ri[0] - a).powi(2);
            for k in 1..dim {
                s += (ri[k] - mi * a * x[k] / xt).powi(2);
            }
            sum += s;
        }
    }
    sum
}

/// A problem's contact rows (the rows of Hᵀ) without a copy when H is stored by columns
/// ([`GlobalFrictionContactProblem::contact_rows_in`]); its users match once and read either
/// kind through [`SparseRows`], so that no entry is read through a match.
pub(crate) enum ContactRows<'a> {
    Columns(Columns<'a>),
    Rows(&'a [Row]),
}

fn singular_m(n: usize, why: &str) -> Error {
    Error::Requirement {
        solver: "global → local reduction".into(),
        requirement: format!("an invertible mass matrix M (n_dof = {n}): {why}"),
        suggestion: Some("check M; W = Hᵀ M⁻¹ H needs M symmetric positive definite".into()),
    }
}

/// What [`GlobalFrictionContactProblem::reduce`] keeps: the factorisation of M, H and f, to
/// map reactions back to global velocities.
#[derive(Clone, Debug)]
pub struct Reduction {
    factor: MassFactor,
    h: Matrix,
    f: Vec<f64>,
    n: usize,
}

impl Reduction {
    /// Which factorisation of M is used ([`MassFactor::name`]): `"block Cholesky"` (one
    /// dense factor per connected component of M's sparsity graph, the rigid bodies of most
    /// files), `"dense Cholesky"`, `"sparse Cholesky"`, or `"LU"` when M is not symmetric
    /// positive definite.
    pub fn factorization(&self) -> &'static str {
        self.factor.name()
    }

    /// Solves `M x = rhs` in place. Panics if `rhs.len() != n_dof`.
    pub fn solve_m(&self, rhs: &mut [f64]) {
        assert_eq!(rhs.len(), self.n, "solve_m: rhs has the wrong length");
        self.factor.solve(rhs, self.n, 1);
    }

    /// The global velocity `v = M⁻¹ (f + H r)` of local reactions r (length `dim·nc`; panics
    /// otherwise).
    pub fn velocity(&self, r: &[f64]) -> Vec<f64> {
        let mut v = vec![0.0; self.n];
        self.h.mul_vec(r, &mut v);
        v.iter_mut().zip(&self.f).for_each(|(a, b)| *a += b);
        self.solve_m(&mut v);
        v
    }

    /// Siconos' global error of `(r, v)` for the problem `g` this reduction came from: see
    /// [`GlobalFrictionContactProblem::error`].
    pub fn global_error(&self, g: &GlobalFrictionContactProblem, r: &[f64], v: &[f64]) -> f64 {
        g.error(r, v)
    }

    /// `Err` naming M unless `x` is finite and `M x` reproduces `b`.
    fn check_solve(&self, m: &Matrix, b: &[f64], x: &[f64], what: &str) -> Result<(), Error> {
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return Err(singular_m(self.n, &format!("solving M x = {what} gives x[{i}] = {}", x[i])));
        }
        let mut mx = vec![0.0; self.n];
        m.mul_vec(x, &mut mx);
        let res = measures::norm2(&mx.iter().zip(b).map(|(p, q)| p - q).collect::<Vec<_>>());
        let scale = m.max_abs() * measures::norm2(x) * (self.n as f64).sqrt() + measures::norm2(b);
        if res > 1e-8 * scale {
            return Err(singular_m(
                self.n,
                &format!("solving M x = {what} leaves a residual {res:.3e} (scale {scale:.3e})"),
            ));
        }
        Ok(())
    }

    /// `W = Hᵀ M⁻¹ H` by the shared Delassus assembly ([`perp_core::linear::mass`]): the rows
    /// of J = Hᵀ, `Y = M⁻¹ J` (sparse columns when M splits into small blocks), then
    /// `W = J Y`, symmetric when M was factored by Cholesky, stored sparse (CSR) unless more
    /// than [`DENSE_FILL`] of its entries are nonzero.
    fn delassus(&self, g: &GlobalFrictionContactProblem) -> Result<Matrix, Error> {
        let n = self.n;
        let rows = g.contact_rows();
        let refs: Vec<&Row> = rows.iter().collect();
        let y = solve_rows(&self.factor, n, &refs);
        if let Some((i, j)) = y.first_non_finite() {
            return Err(singular_m(n, &format!("M⁻¹ H has a non-finite entry at ({i}, {j})")));
        }
        let layout =
            DelassusLayout { symmetric: self.factor.is_cholesky(), dense_up_to: 0, dense_fill: DENSE_FILL };
        let mut w = Matrix::Dense(faer::Mat::zeros(0, 0));
        delassus_with(&refs, &y, layout, &mut w)?;
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn rows(m: &Matrix) -> Vec<Vec<f64>> {
        (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m.get(i, j)).collect()).collect()
    }

    /// n_dof = 3, M = [[2,1,0],[1,2,0],[0,0,4]], H = [[1,0],[0,1],[1,1]], one 2-D contact.
    fn tiny(m_sparse: bool) -> GlobalFrictionContactProblem {
        let md = [2.0, 1.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 4.0];
        let m = if m_sparse {
            Matrix::from_triplets(3, 3, &[(0, 0, 2.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 2.0), (2, 2, 4.0)])
                .unwrap()
        } else {
            Matrix::from_row_major(3, 3, &md).unwrap()
        };
        let h = Matrix::from_row_major(3, 2, &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]).unwrap();
        GlobalFrictionContactProblem::new(2, m, h, vec![1.0, 0.0, -2.0], vec![0.5, 0.0], vec![0.3]).unwrap()
    }

    #[test]
    fn tiny_problem_reduces_to_the_hand_computed_delassus() {
        for sparse in [false, true] {
            let g = tiny(sparse);
            let (p, red) = g.reduce().unwrap();
            assert_eq!(red.factorization(), "block Cholesky");
            // M⁻¹ = [[2/3, −1/3, 0], [−1/3, 2/3, 0], [0, 0, 1/4]]:
            // W = Hᵀ M⁻¹ H = [[11/12, −1/12], [−1/12, 11/12]];
            // M⁻¹ f = (2/3, −1/3, −1/2), q = Hᵀ M⁻¹ f + b = (1/6 + 1/2, −5/6).
            let want = [[11.0 / 12.0, -1.0 / 12.0], [-1.0 / 12.0, 11.0 / 12.0]];
            let got = rows(&p.w);
            for i in 0..2 {
                for j in 0..2 {
                    assert!((got[i][j] - want[i][j]).abs() < 1e-14, "W[{i},{j}] = {}", got[i][j]);
                }
            }
            assert!((p.q[0] - 2.0 / 3.0).abs() < 1e-14 && (p.q[1] + 5.0 / 6.0).abs() < 1e-14, "{:?}", p.q);
            assert_eq!((p.dim, p.mu.clone()), (2, vec![0.3]));
            // v recovered from r satisfies M v = f + H r, and u = Hᵀ v + b = W r + q.
            let r = [0.7, -0.2];
            let v = red.velocity(&r);
            let mut mv = [0.0; 3];
            g.m.mul_vec(&v, &mut mv);
            let mut hr = [0.0; 3];
            g.h.mul_vec(&r, &mut hr);
            for i in 0..3 {
                assert!((mv[i] - g.f[i] - hr[i]).abs() < 1e-14, "row {i}");
            }
            let (u_global, u_local) = (g.local_velocity(&v), p.velocity(&r));
            for i in 0..2 {
                assert!((u_global[i] - u_local[i]).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn global_error_matches_the_local_measure_at_the_recovered_velocity() {
        let g = tiny(true);
        let (p, red) = g.reduce().unwrap();
        for r in [[0.7, -0.2], [1.0, 0.3], [0.0, 0.0], [2.0, 0.1]] {
            let v = red.velocity(&r);
            let u = p.velocity(&r);
            // The equation term vanishes; the Coulomb term is the local residual normalised by
            // max(‖u‖, ‖r‖) — friction_contact_error with an empty q.
            let want = measures::friction_contact_error(2, &[], &p.mu, &r, &u);
            let got = red.global_error(&g, &r, &v);
            assert!((got - want).abs() < 1e-12, "r = {r:?}: {got} vs {want}");
        }
        // A velocity off the equation is penalised: v = 0 gives ‖f‖ / ‖f‖ = 1 for the first term.
        let e = g.error(&[0.0, 0.0], &[0.0; 3]);
        assert!(e >= 1.0 - 1e-15, "{e}");
        assert!(g.error(&[0.0], &[0.0; 3]).is_nan());
    }

    #[test]
    fn indefinite_m_falls_back_to_lu_and_singular_m_is_named() {
        // Symmetric indefinite M = [[1, 2], [2, 1]]: no Cholesky, LU works.
        let m = Matrix::from_row_major(2, 2, &[1.0, 2.0, 2.0, 1.0]).unwrap();
        let h = Matrix::from_row_major(2, 2, &[1.0, 0.0, 0.0, 1.0]).unwrap();
        let g = GlobalFrictionContactProblem::new(2, m, h.clone(), vec![1.0, 1.0], vec![0.0; 2], vec![0.1])
            .unwrap();
        let (p, red) = g.reduce().unwrap();
        assert_eq!(red.factorization(), "LU");
        // M⁻¹ = [[−1/3, 2/3], [2/3, −1/3]].
        assert!((p.w.get(0, 1) - 2.0 / 3.0).abs() < 1e-14 && (p.w.get(0, 0) + 1.0 / 3.0).abs() < 1e-14);
        // Singular M.
        let m = Matrix::from_row_major(2, 2, &[1.0, 1.0, 1.0, 1.0]).unwrap();
        let g = GlobalFrictionContactProblem::new(2, m, h, vec![1.0, 1.0], vec![0.0; 2], vec![0.1]).unwrap();
        let e = g.reduce().unwrap_err();
        assert!(matches!(e, Error::Requirement { .. }), "{e}");
        assert!(e.to_string().contains("mass matrix M"), "{e}");
    }

    #[test]
    fn validation_names_the_field() {
        let g = tiny(false);
        let mut bad = g.clone();
        bad.mu[0] = -0.1;
        assert!(bad.validate().unwrap_err().to_string().contains("mu[0]"));
        let mut bad = g.clone();
        bad.b.push(0.0);
        assert!(bad.validate().unwrap_err().to_string().contains("b has length 3"));
        let mut bad = g.clone();
        bad.f.pop();
        assert!(bad.validate().unwrap_err().to_string().contains("f has length 2"));
        let mut bad = g.clone();
        bad.h = Matrix::from_row_major(2, 2, &[1.0, 0.0, 0.0, 1.0]).unwrap();
        assert!(bad.validate().unwrap_err().to_string().contains("H rows"));
        let mut bad = g.clone();
        bad.dim = 3;
        assert!(bad.validate().unwrap_err().to_string().contains("divide the number of columns of H"));
        let mut bad = g;
        bad.m = Matrix::from_row_major(3, 2, &[1.0; 6]).unwrap();
        assert!(bad.validate().unwrap_err().to_string().contains("M must be square"));
    }

    /// Block-diagonal SPD M (3×3 blocks), sparse random H: W agrees with dense algebra, is
    /// symmetric, and sparse storage is chosen when W is sparse.
    #[test]
    fn block_diagonal_problem_matches_dense_algebra() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (bodies, nc, d) = (40, 25, 3);
        let n = 3 * bodies;
        let mut mt = Vec::new();
        for b in 0..bodies {
            // A = LLᵀ + I with random L: SPD.
            let l: Vec<f64> = (0..9).map(|_| rng.random_range(-1.0..1.0)).collect();
            for i in 0..3 {
                for j in 0..3 {
                    let mut v: f64 = (0..3).map(|k| l[3 * i + k] * l[3 * j + k]).sum();
                    if i == j {
                        v += 1.0;
                    }
                    mt.push((3 * b + i, 3 * b + j, v));
                }
            }
        }
        let m = Matrix::from_triplets(n, n, &mt).unwrap();
        // Each contact touches two bodies.
        let mut ht = Vec::new();
        for c in 0..nc {
            let (b1, b2) = (rng.random_range(0..bodies), rng.random_range(0..bodies));
            for k in 0..d {
                for body in [b1, b2] {
                    for i in 0..3 {
                        ht.push((3 * body + i, d * c + k, rng.random_range(-1.0..1.0)));
                    }
                }
            }
        }
        let h = Matrix::from_triplets(n, d * nc, &ht).unwrap();
        let f: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let b: Vec<f64> = (0..d * nc).map(|_| rng.random_range(-0.1..0.1)).collect();
        let g =
            GlobalFrictionContactProblem::new(d, m.clone(), h.clone(), f.clone(), b.clone(), vec![0.5; nc])
                .unwrap();
        let (p, red) = g.reduce().unwrap();
        assert!(p.w.is_sparse(), "W of fill {} should be sparse", p.w.nnz());
        assert!(p.w.asymmetry(1e-14).is_none());
        // Dense reference: X = M⁻¹ H by a dense LU.
        let md = m.to_dense();
        let hd = h.to_dense();
        let lu = md.partial_piv_lu();
        let x = faer::linalg::solvers::Solve::solve(&lu, &hd);
        let wd = hd.transpose() * &x;
        let fd = Mat::from_fn(n, 1, |i, _| f[i]);
        let xf = faer::linalg::solvers::Solve::solve(&lu, &fd);
        let qd = hd.transpose() * &xf;
        let scale = wd.norm_max();
        for i in 0..d * nc {
            assert!((p.q[i] - qd[(i, 0)] - b[i]).abs() < 1e-10, "q[{i}]");
            for j in 0..d * nc {
                assert!((p.w.get(i, j) - wd[(i, j)]).abs() < 1e-10 * scale, "W[{i},{j}]");
            }
        }
        let r: Vec<f64> = (0..d * nc).map(|_| rng.random_range(0.0..1.0)).collect();
        let v = red.velocity(&r);
        let mut res = vec![0.0; n];
        m.mul_vec(&v, &mut res);
        let mut hr = vec![0.0; n];
        h.mul_vec(&r, &mut hr);
        for i in 0..n {
            assert!((res[i] - f[i] - hr[i]).abs() < 1e-10, "row {i}");
        }
    }
}
