//! [`FrictionContactProblem`]: the frictional contact problem in local (Delassus) form, and
//! the solver interface.
//!
//! **Prepare once, solve many.** A simulator solves thousands of tiny problems per second
//! whose structure (dim, size, storage and sparsity pattern of W, friction laws) does not
//! change from one call to the next; only the values of W, q and μ do. The solvers keep
//! what depends on the structure alone (W's CSR pattern and diagonal blocks, the cone
//! objects, the iteration vectors, the Newton matrix and its LU storage) in a private
//! workspace, and [`FrictionSolver::solve_into`] writes `r`, `u = W r + q` and the report
//! into the caller's buffers: once prepared, a solve of a dense small problem allocates
//! nothing (see each solver for what still allocates).

use crate::cone::{Cone, ConeSpec, MAX_DIM};
use perp_core::{measures, Error, Matrix, Settings, SolveReport, Status, REFINE_ROUNDS};
use std::sync::Arc;

/// The frictional contact problem in local form (Siconos' `FrictionContactProblem`, FCLIB's
/// `fclib_local`): `nc` contacts of dimension `dim`, unknown reactions `r ∈ R^{dim·nc}`,
///
/// ```text
///     u = W r + q,        K_i ∋ r_i  ⊥  ũ_i ∈ K_i*,     ũ_i = u_i + h_i(u_{i,T}) e_N,
/// ```
///
/// per contact i, with K_i the friction cone of coefficient `mu[i]` (De Saxcé's form of
/// Coulomb's law; see [`crate::cone`]). A contact's entries come normal first.
///
/// The fields are public (the contract of `design/ARCHITECTURE.md`); every solver calls
/// [`FrictionContactProblem::validate`] before it starts, and [`FrictionContactProblem::new`]
/// validates at construction.
#[derive(Clone, Debug)]
pub struct FrictionContactProblem {
    /// Contact dimension: 2 or 3 for Coulomb, 4 with torsion (at most [`MAX_DIM`]).
    pub dim: usize,
    /// The Delassus operator W (square, size `dim · nc`).
    pub w: Matrix,
    /// The free velocity q.
    pub q: Vec<f64>,
    /// Friction coefficient per contact (≥ 0).
    pub mu: Vec<f64>,
    /// Friction law per contact; `None` means Coulomb everywhere.
    pub cones: Option<Vec<ConeSpec>>,
}

impl FrictionContactProblem {
    /// A Coulomb problem, validated.
    ///
    /// ```
    /// use perp_cones::FrictionContactProblem;
    /// use perp_core::Matrix;
    /// let w = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
    /// let p = FrictionContactProblem::new(3, w.clone(), vec![-1.0, 0.5, 0.0], vec![0.3]).unwrap();
    /// assert_eq!(p.contacts(), 1);
    /// let e = FrictionContactProblem::new(3, w, vec![-1.0, 0.5, 0.0], vec![-0.3]).unwrap_err();
    /// assert!(e.to_string().contains("mu[0]"));
    /// ```
    pub fn new(dim: usize, w: Matrix, q: Vec<f64>, mu: Vec<f64>) -> Result<Self, Error> {
        let p = FrictionContactProblem { dim, w, q, mu, cones: None };
        p.validate()?;
        Ok(p)
    }

    /// The same problem with one friction law per contact, validated.
    pub fn with_cones(mut self, cones: Vec<ConeSpec>) -> Result<Self, Error> {
        self.cones = Some(cones);
        self.validate()?;
        Ok(self)
    }

    /// Number of contacts.
    pub fn contacts(&self) -> usize {
        self.mu.len()
    }

    /// Number of unknowns, `dim · nc`.
    pub fn size(&self) -> usize {
        self.q.len()
    }

    /// True when every contact uses the Coulomb cone (the error is then Siconos' exactly).
    pub fn is_coulomb(&self) -> bool {
        self.cones.as_ref().is_none_or(|c| c.iter().all(ConeSpec::is_coulomb))
    }

    /// Checks sizes, values and friction laws; the error names the field and the value.
    pub fn validate(&self) -> Result<(), Error> {
        self.validate_values()?;
        let d = self.dim;
        let rows = self.w.nrows();
        if let Some(cones) = &self.cones {
            if cones.len() != rows / d {
                return Err(Error::dim("cones", rows / d, cones.len()));
            }
            // `check` builds no cone object: a stepper validates its problem every step.
            for (i, spec) in cones.iter().enumerate() {
                spec.check(d, self.mu[i]).map_err(|e| contact_error(i, e))?;
            }
        }
        Ok(())
    }

    /// Everything [`FrictionContactProblem::validate`] checks except the friction laws,
    /// without allocating (unless it fails) or copying: sizes, finiteness by a scan, μ.
    fn validate_values(&self) -> Result<(), Error> {
        let d = self.dim;
        if !(2..=MAX_DIM).contains(&d) {
            return Err(Error::setting("dim", d, "the contact dimension must be between 2 and 6"));
        }
        let (rows, cols) = (self.w.nrows(), self.w.ncols());
        if rows != cols {
            return Err(Error::NotSquare { what: "W".into(), rows, cols });
        }
        if !rows.is_multiple_of(d) {
            return Err(Error::setting(
                "dim",
                d,
                &format!("the contact dimension must divide the size of W, which is {rows}"),
            ));
        }
        Error::check_len("q", &self.q, rows)?;
        Error::check_len("mu", &self.mu, rows / d)?;
        self.w.check_finite("W")?;
        Error::check_finite("q", &self.q)?;
        for (i, &m) in self.mu.iter().enumerate() {
            if !(m.is_finite() && m >= 0.0) {
                return Err(Error::setting(&format!("mu[{i}]"), m, "must be finite and ≥ 0"));
            }
        }
        Ok(())
    }

    /// The friction cone of every contact (one shared object when all are Coulomb).
    pub fn cone_objects(&self) -> Result<Vec<Arc<dyn Cone>>, Error> {
        match &self.cones {
            None => {
                let c: Arc<dyn Cone> = Arc::new(crate::Coulomb::new(self.dim)?);
                Ok(vec![c; self.contacts()])
            }
            Some(cones) => cones.iter().map(|s| s.build(self.dim)).collect(),
        }
    }

    /// `u = W r + q`.
    pub fn velocity(&self, r: &[f64]) -> Vec<f64> {
        let mut u = vec![0.0; self.size()];
        self.w.mul_vec(r, &mut u);
        u.iter_mut().zip(&self.q).for_each(|(a, b)| *a += b);
        u
    }

    /// The error measure (`design/SUITES.md`) of reactions `r` with velocities `u = W r + q`:
    /// Siconos' exactly for Coulomb problems; for other laws the same formula with the law's
    /// own projection and De Saxcé term (`e = r − P_K(r − ũ)`, the natural map with ρ = 1).
    pub fn error(&self, r: &[f64], u: &[f64]) -> f64 {
        if self.is_coulomb() && self.dim <= 3 {
            return measures::friction_contact_error(self.dim, &self.q, &self.mu, r, u);
        }
        match self.cone_objects() {
            Ok(c) => self.error_with(&c, r, u),
            Err(_) => f64::NAN,
        }
    }

    /// [`FrictionContactProblem::error`] with the cone objects already built (`cones` are
    /// those of [`FrictionContactProblem::cone_objects`]); allocates nothing.
    pub(crate) fn error_with(&self, cones: &[Arc<dyn Cone>], r: &[f64], u: &[f64]) -> f64 {
        if self.is_coulomb() && self.dim <= 3 {
            return measures::friction_contact_error(self.dim, &self.q, &self.mu, r, u);
        }
        let d = self.dim;
        let mut phi = [0.0; MAX_DIM];
        let mut sum = 0.0;
        for (i, cone) in cones.iter().enumerate() {
            let s = d * i..d * (i + 1);
            cone.natural_map(self.mu[i], 1.0, &r[s.clone()], &u[s], &mut phi[..d], None);
            sum += phi[..d].iter().map(|v| v * v).sum::<f64>();
        }
        let scale = measures::norm2(&self.q).max(measures::norm2(r)).max(measures::norm2(u));
        measures::normalize(sum.sqrt(), scale)
    }

    /// The answer checked against the physics in the problem's own scale, so that no choice
    /// of units and no μ lets a penetrating answer pass: the largest of
    ///
    /// * penetration `max_i max(0, −u_{N,i}) / V`, `V = ‖q‖ + ρ`, the data's velocity scale
    ///   plus the rounding ρ that computing u = W r + q leaves in u
    ///   ([`Matrix::rounding_bound`](perp_core::Matrix::rounding_bound)) — for every De Saxcé law
    ///   `ũ ∈ K*` is exactly `u_N ≥ 0` (ũ_T = u_T and K* = {v : v_N ≥ h(v_T)}, h the
    ///   maximal dissipation that ũ adds to u_N);
    /// * a force outside its cone, `max_i ‖r_i − P_{K_i}(r_i)‖ / F`, `F = ‖r‖`;
    /// * complementarity. For Coulomb (dim ≤ 3), `r·ũ = r_N u_N + ‖u_T‖(μ r_N − ‖r_T‖) +
    ///   (‖r_T‖‖u_T‖ + r_T·u_T)` is a sum of three terms that are non-negative for r ∈ K and
    ///   zero at a solution (normal complementarity, sliding only on the cone's boundary,
    ///   friction against the sliding); each is measured against `F·V`, the middle one with the
    ///   slack divided by `√(1 + μ²)` (the distance of r to the cone's boundary), so that a
    ///   sticking contact whose u_T is round-off is not refused at μ = 1e12 (`|r·ũ|` grows like
    ///   μ there). Other laws: `max_i |r_i·ũ_i| / (F max(‖ũ‖, V))`.
    ///
    /// V is the data's scale, not the iterate's (issue 36): until then it was
    /// `max(‖q‖, ‖u‖, max|W|·‖r‖)`, and on a problem with no solution (a particle squeezed
    /// between two walls that both push in) the reactions grew without bound along W's null
    /// space while u_N stayed at −1, so that every figure fell like 1/‖r‖ and prox called
    /// r = 1e8 `Solved`. ρ keeps answers whose large reactions are legitimate (redundant
    /// contacts carrying internal forces) from being refused for their arithmetic alone.
    ///
    /// Every figure is relative to F and V however small they are (the problem is positively
    /// homogeneous: W → s_W W, q → s_q q moves the answer to r s_q/s_W, u s_q, and this figure
    /// does not change), except when V ≤ ε, machine epsilon: a problem whose velocities are all
    /// round-off dust (q ≈ 0, r ≈ 0) is judged absolutely, as Siconos' measure does. Before
    /// issue 15's sweep, F ≤ ε also switched to absolute figures: with W scaled by 1e8 and q by
    /// 1e-8 (‖r‖ ≈ 1e-16) admm, fb-newton and lemke-pyramid answers 0.1–1 outside the cone or
    /// off complementarity, relative to ‖r‖, passed (`tests/honest_sweep.rs`).
    ///
    /// The peer-compatible error ([`FrictionContactProblem::error`]) can be small where this is
    /// not: with W = I, q = (−1, 2, 0) and μ = 1e8, the answer r = 0 penetrates (u_N = −1) yet
    /// its natural-map error is 4e-9, the De Saxcé term μ‖u_T‖ dwarfing everything else.
    /// `cones` as in [`FrictionContactProblem::error_with`] (empty for Coulomb, dim ≤ 3).
    pub(crate) fn physical_error(&self, cones: &[Arc<dyn Cone>], r: &[f64], u: &[f64]) -> f64 {
        let d = self.dim;
        let closed_form = self.is_coulomb() && d <= 3;
        if !closed_form && cones.len() != self.contacts() {
            return f64::NAN;
        }
        // The velocities' scale is the data's, ‖q‖, plus the rounding that computing
        // u = W r + q can leave in it (Matrix::rounding_bound: the arithmetic actually done,
        // summed per row unless its cheap bound is already negligible next to ‖q‖). Not ‖u‖
        // nor max|W|·‖r‖: reactions that grow without bound along W's null space (a problem
        // with no solution) would make any figure relative to them vanish like 1/‖r‖.
        let rn = measures::norm2(r);
        let qn = measures::norm2(&self.q);
        let un = qn + self.w.rounding_bound(r, 1e-6 * qn);
        // A scale that overflows belongs to an answer that ran off, not to a solution.
        if !(rn.is_finite() && un.is_finite()) {
            return f64::NAN;
        }
        physical_figure(d, &self.mu, (!closed_form).then_some(cones), r, u, rn, un)
    }

    /// A `Solved` report whose answer fails [`FrictionContactProblem::physical_error`] by more
    /// than [`measures::physical_bound`]`(tol)` becomes `NumericalFailure`, saying so in its
    /// message (see there for the bound's calibration).
    fn verify_physics(
        &self,
        cones: &[Arc<dyn Cone>],
        r: &[f64],
        u: &[f64],
        report: &mut SolveReport,
        tol: f64,
    ) {
        let phys = self.physical_error(cones, r, u);
        report.check_physics(phys, tol, "penetration, cone or complementarity violation");
    }

    /// The worst penetration `max_i max(0, −u_{N,i})` of velocities `u` (0 for none; NaN if a
    /// normal velocity is NaN).
    pub fn penetration(&self, u: &[f64]) -> f64 {
        u.iter().step_by(self.dim).fold(0.0_f64, |a, &un| {
            if un.is_nan() || a.is_nan() {
                f64::NAN
            } else {
                a.max(-un)
            }
        })
    }

    /// Whether an answer `(r, u)` reached by warm refinement rounds at ever tighter tolerances
    /// (`solve_refined`) from `(‖r‖, penetration)` = `from` is running off rather than
    /// converging: the reactions grew at least tenfold while the worst penetration did not even
    /// halve. Along W's null space a tighter tolerance then only buys a larger r (the peer
    /// measure falls like 1/‖r‖).
    fn runs_off(&self, from: (f64, f64), r: &[f64], u: &[f64]) -> bool {
        let (r0, pen0) = from;
        let (r1, pen1) = (measures::norm2(r), self.penetration(u));
        // A NaN penetration counts as not halved.
        let halved = pen1 < 0.5 * pen0;
        r0 > 0.0 && (r1 >= 10.0 * r0 || !r1.is_finite()) && pen0 > 0.0 && !halved
    }

    /// The report of an answer that [runs off](Self::runs_off) becomes [`Status::Diverged`],
    /// whatever the last round's checks said, its message giving the evidence.
    fn mark_diverged(&self, from: (f64, f64), r: &[f64], u: &[f64], rounds: usize, report: &mut SolveReport) {
        let (r0, r1, pen1) = (from.0, measures::norm2(r), self.penetration(u));
        report.status = Status::Diverged;
        let qn = measures::norm2(&self.q);
        let msg = report.message.get_or_insert_with(String::new);
        let _ = std::fmt::Write::write_fmt(
            msg,
            format_args!(
                "; diverged: ‖r‖ grew from {r0:.2e} to {r1:.2e} over {rounds} refinement round(s) while the \
                 worst penetration stayed at {pen1:.2e} (‖q‖ = {qn:.2e}): no bounded r seems to satisfy the \
                 law, the problem probably has no solution"
            ),
        );
    }

    /// Packs a solver's answer: recomputes `u = W r + q` and the error from `r` alone, then
    /// passes the report through [`SolveReport::verify`] (a `Solved` claim above `tol` is
    /// downgraded to `NumericalFailure`).
    pub fn solution(&self, r: Vec<f64>, mut report: SolveReport, tol: f64) -> FrictionSolution {
        let u = self.velocity(&r);
        report.error = self.error(&r, &u);
        report.residual_inf = report.error;
        if !report.error.is_finite() && report.status == Status::Solved {
            report.status = Status::NumericalFailure;
        }
        report.verify(tol);
        let cones = if self.is_coulomb() && self.dim <= 3 { Ok(Vec::new()) } else { self.cone_objects() };
        self.verify_physics(cones.as_deref().unwrap_or(&[]), &r, &u, &mut report, tol);
        FrictionSolution { r, u, report }
    }

    /// [`FrictionContactProblem::solution`] into the caller's buffers: `u = W r + q`, the
    /// error of `r` into `report` (`error`, `residual_inf`) and the same verification, the
    /// message written into the report's existing `String`. Allocates nothing for Coulomb
    /// problems of dimension ≤ 3 (other laws build their cone objects for the error).
    ///
    /// ```
    /// use perp_cones::{FrictionContactProblem, SolveReport, Status};
    /// use perp_core::Matrix;
    /// let w = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
    /// let p = FrictionContactProblem::new(3, w, vec![-1.0, 0.0, 0.0], vec![0.3]).unwrap();
    /// let (r, mut u) = ([1.0, 0.0, 0.0], [0.0; 3]);
    /// let mut report = SolveReport::new("mine");
    /// report.status = Status::Solved;
    /// p.solution_into(&r, &mut u, &mut report, 1e-8);
    /// assert_eq!((u, report.error, report.status), ([0.0; 3], 0.0, Status::Solved));
    /// ```
    pub fn solution_into(&self, r: &[f64], u: &mut [f64], report: &mut SolveReport, tol: f64) {
        if self.is_coulomb() && self.dim <= 3 {
            self.solution_with(&[], r, u, report, tol);
        } else {
            match self.cone_objects() {
                Ok(c) => self.solution_with(&c, r, u, report, tol),
                Err(_) => self.solution_with(&[], r, u, report, tol),
            }
        }
    }

    /// [`FrictionContactProblem::solution_into`] with the cone objects already built (ignored
    /// for Coulomb problems of dimension ≤ 3; empty for "could not build": the error is NaN).
    pub(crate) fn solution_with(
        &self,
        cones: &[Arc<dyn Cone>],
        r: &[f64],
        u: &mut [f64],
        report: &mut SolveReport,
        tol: f64,
    ) {
        // The same arithmetic as `velocity`.
        self.w.mul_vec(r, u);
        u.iter_mut().zip(&self.q).for_each(|(a, b)| *a += b);
        let error = if (self.is_coulomb() && self.dim <= 3) || cones.len() == self.contacts() {
            self.error_with(cones, r, u)
        } else {
            f64::NAN
        };
        self.solution_measured(cones, r, u, error, report, tol);
    }

    /// The end of [`FrictionContactProblem::solution_with`] for a solver that has just measured
    /// its answer: `u` holds `W r + q` as `velocity` computes it (up to the sign of zeros, e.g.
    /// by `Blocks::velocity_with`) and `error` is `error_with(cones, r, u)`. Same report.
    pub(crate) fn solution_measured(
        &self,
        cones: &[Arc<dyn Cone>],
        r: &[f64],
        u: &[f64],
        error: f64,
        report: &mut SolveReport,
        tol: f64,
    ) {
        report.error = error;
        report.residual_inf = report.error;
        if !report.error.is_finite() && report.status == Status::Solved {
            report.status = Status::NumericalFailure;
        }
        // The message goes into the report's existing buffer (made by `reset_report`); the
        // empty spare is only taken when there is none.
        report.verify_with(tol, &mut String::new());
        self.verify_physics(cones, r, u, report, tol);
    }
}

/// The capacity a prepared report's message starts with, so that later messages of the same
/// kind fit without growing it.
const MESSAGE_CAPACITY: usize = 256;

/// The report's message, emptied, reusing its storage (created once with room to spare).
pub(crate) fn message_buffer(report: &mut SolveReport) -> &mut String {
    let msg = report.message.get_or_insert_with(String::new);
    msg.clear();
    if msg.capacity() < MESSAGE_CAPACITY {
        msg.reserve(MESSAGE_CAPACITY);
    }
    msg
}

/// Resets every field of `report` for a new solve by `solver`, reusing the `solver` String,
/// the history Vec and the message buffer (left empty).
pub(crate) fn reset_report(report: &mut SolveReport, solver: &str) {
    report.reset_for(solver);
    message_buffer(report);
}

fn contact_error(i: usize, e: Error) -> Error {
    match e {
        Error::InvalidSetting { name, value, reason } => {
            Error::InvalidSetting { name: format!("contact {i}: {name}"), value, reason }
        }
        other => other,
    }
}

/// What a frictional solver returns.
#[derive(Clone, Debug)]
pub struct FrictionSolution {
    /// Reactions (length `dim · nc`).
    pub r: Vec<f64>,
    /// Velocities `u = W r + q`, recomputed from `r`.
    pub u: Vec<f64>,
    /// Status, iterations, the error of [`FrictionContactProblem::error`] at `r`, timing.
    pub report: SolveReport,
}

/// A frictional contact solver (the catalogue, `perp-catalogue`, builds them by name).
pub trait FrictionSolver: Send {
    /// The registry name.
    fn name(&self) -> &str;
    /// Solves `p`, starting from `warm` reactions (length `dim · nc`) or from 0.
    /// A run that does not converge is `Ok` with a status saying why; `Err` is for input that
    /// cannot be solved as given (sizes, values, a law the method cannot handle).
    fn solve(
        &mut self,
        p: &FrictionContactProblem,
        warm: Option<&[f64]>,
        s: &perp_core::Settings,
    ) -> Result<FrictionSolution, Error>;

    /// Solves `p` into the caller's buffers: `r` (length dim·nc) holds the warm start on entry
    /// when `warm` is true (else it is ignored and the solve starts cold, as `solve(p, None)`)
    /// and the reactions on return; `u` receives u = W r + q;
    /// `report` is overwritten in place (its `solver` String and `message` reuse their
    /// storage).
    ///
    /// Once the solver has solved a problem of the same structure (dim, size, storage and
    /// sparsity pattern of W, friction laws), a call allocates nothing (with record_history
    /// off) — for `nsgs`, `ac-newton`, `fb-newton` and `prox` on Coulomb problems with a
    /// dense Newton matrix; see each solver for what still allocates. [`FrictionSolver::solve`]
    /// of those solvers is this method on fresh buffers, so both give the same answer bit for
    /// bit.
    ///
    /// The default calls [`FrictionSolver::solve`] (warm-started from `r` when `warm`) and
    /// copies the answer.
    ///
    /// ```
    /// use perp_cones::{FrictionContactProblem, FrictionSolver, Nsgs, SolveReport, Status};
    /// use perp_core::{Matrix, Settings};
    /// let w = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])?;
    /// let mut p = FrictionContactProblem::new(3, w, vec![-1.0, 2.0, 0.0], vec![0.5])?;
    /// let mut sv = Nsgs::new();
    /// let (mut r, mut u, mut report) = (vec![0.0_f64; 3], vec![0.0; 3], SolveReport::new(""));
    /// for step in 0..3 {
    ///     p.q[1] = 2.0 + step as f64; // new values, same structure
    ///     sv.solve_into(&p, false, &mut r, &mut u, &mut report, &Settings::default())?;
    ///     assert_eq!(report.status, Status::Solved);
    ///     assert!((r[0] - 1.0).abs() < 1e-7 && (r[1] + 0.5).abs() < 1e-7);
    /// }
    /// # Ok::<(), perp_core::Error>(())
    /// ```
    fn solve_into(
        &mut self,
        p: &FrictionContactProblem,
        warm: bool,
        r: &mut [f64],
        u: &mut [f64],
        report: &mut SolveReport,
        s: &perp_core::Settings,
    ) -> Result<(), Error> {
        let warm = warm.then_some(&*r);
        let sol = self.solve(p, warm, s)?;
        Error::check_len("r", r, sol.r.len())?;
        Error::check_len("u", u, sol.u.len())?;
        r.copy_from_slice(&sol.r);
        u.copy_from_slice(&sol.u);
        *report = sol.report;
        Ok(())
    }
}

/// [`FrictionSolver::solve`] by [`FrictionSolver::solve_into`] on fresh buffers.
pub(crate) fn solve_by_into<S: FrictionSolver + ?Sized>(
    sv: &mut S,
    p: &FrictionContactProblem,
    warm: Option<&[f64]>,
    s: &Settings,
) -> Result<FrictionSolution, Error> {
    let n = p.size();
    // A warm start of the wrong length is passed on: solve_into reports it after checking
    // the problem and the settings, as `start` does.
    let mut r = warm.map_or_else(|| vec![0.0; n], <[f64]>::to_vec);
    let mut u = vec![0.0; n];
    let mut report = SolveReport::new(sv.name());
    sv.solve_into(p, warm.is_some(), &mut r, &mut u, &mut report, s)?;
    Ok(FrictionSolution { r, u, report })
}

/// What a solver keeps between calls to [`FrictionSolver::solve_into`]: what depends on a
/// problem's structure only (W's pattern, the cone objects, the iteration vectors, the Newton
/// matrix's storage). Opaque; `Prepared::default()` is empty (the next solve prepares
/// afresh), and cloning a solver gives the clone an empty one.
#[derive(Default)]
pub struct Prepared(Option<Box<dyn std::any::Any + Send + Sync>>);

impl Prepared {
    /// The workspace of type `T`, created empty if there is none yet (or one of another type).
    pub(crate) fn get<T: Default + Send + Sync + 'static>(&mut self) -> &mut T {
        if !self.0.as_ref().is_some_and(|b| b.is::<T>()) {
            self.0 = Some(Box::new(T::default()));
        }
        match self.0.as_mut().and_then(|b| b.downcast_mut::<T>()) {
            Some(t) => t,
            None => unreachable!("set above"),
        }
    }
}

impl Clone for Prepared {
    fn clone(&self) -> Self {
        Prepared::default()
    }
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Prepared(..)" } else { "Prepared(empty)" })
    }
}

/// The cone objects of the last problem solved, rebuilt only when the friction laws change:
/// one shared Coulomb object for `cones: None`, the built specs otherwise.
#[derive(Default)]
pub(crate) struct ConeCache {
    /// The dimension and the laws the objects were built for (`None` inside: all Coulomb).
    key: Option<(usize, Option<Vec<ConeSpec>>)>,
    /// One object per contact.
    pub cones: Vec<Arc<dyn Cone>>,
}

fn same_spec(a: &ConeSpec, b: &ConeSpec) -> bool {
    match (a, b) {
        (ConeSpec::Coulomb, ConeSpec::Coulomb) => true,
        (ConeSpec::Pyramid { facets: x }, ConeSpec::Pyramid { facets: y }) => x == y,
        (ConeSpec::Elliptic { e: x }, ConeSpec::Elliptic { e: y }) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| a.to_bits() == b.to_bits())
        }
        (ConeSpec::Rolling { mu_r: x }, ConeSpec::Rolling { mu_r: y }) => x.to_bits() == y.to_bits(),
        (ConeSpec::Custom(x), ConeSpec::Custom(y)) => Arc::ptr_eq(x, y),
        _ => false,
    }
}

impl ConeCache {
    /// Brings the objects up to date with `p`'s laws and checks every contact's μ against its
    /// law: the friction-law part of [`FrictionContactProblem::validate`], the same errors in
    /// the same order. Returns whether the objects were rebuilt.
    fn refresh(&mut self, p: &FrictionContactProblem) -> Result<bool, Error> {
        let (d, nc) = (p.dim, p.contacts());
        let same = match (&self.key, &p.cones) {
            (Some((kd, None)), None) => *kd == d,
            (Some((kd, Some(k))), Some(c)) => {
                *kd == d && k.len() == c.len() && k.iter().zip(c).all(|(a, b)| same_spec(a, b))
            }
            _ => false,
        } && self.cones.len() == nc;
        if same {
            if let Some(specs) = &p.cones {
                for (i, cone) in self.cones.iter().enumerate() {
                    cone.check(p.mu[i]).map_err(|e| contact_error(i, e))?;
                }
                debug_assert_eq!(specs.len(), nc);
            }
            return Ok(false);
        }
        self.key = None;
        self.cones.clear();
        match &p.cones {
            None => {
                let c: Arc<dyn Cone> = Arc::new(crate::Coulomb::new(d)?);
                self.cones.resize(nc, c);
            }
            Some(specs) => {
                if specs.len() != nc {
                    return Err(Error::dim("cones", nc, specs.len()));
                }
                for (i, spec) in specs.iter().enumerate() {
                    let cone = spec.build(d).map_err(|e| contact_error(i, e))?;
                    cone.check(p.mu[i]).map_err(|e| contact_error(i, e))?;
                    self.cones.push(cone);
                }
            }
        }
        self.key = Some((d, p.cones.clone()));
        Ok(true)
    }
}

/// Where a solve writes: the reactions (which hold the warm start on entry when there is one),
/// the velocities `u = W r + q` and the report (the arguments of
/// [`FrictionSolver::solve_into`]).
pub(crate) struct Out<'a> {
    pub(crate) r: &'a mut [f64],
    pub(crate) u: &'a mut [f64],
    pub(crate) report: &'a mut SolveReport,
}

/// The checks of [`start`] for [`FrictionSolver::solve_into`], without allocating on
/// success: the problem (the laws through `cones`, brought up to date), the settings, the
/// starting reactions `r` (the warm start when `warm`; else `r` is set to zeros, the cold
/// start) and the length of `u`. Returns whether the cone objects were rebuilt.
pub(crate) fn prepare(
    p: &FrictionContactProblem,
    warm: bool,
    r: &mut [f64],
    u: &[f64],
    s: &Settings,
    cones: &mut ConeCache,
) -> Result<bool, Error> {
    p.validate_values()?;
    let rebuilt = cones.refresh(p)?;
    s.validate()?;
    if warm {
        Error::check_len("warm start", r, p.size())?;
        Error::check_finite("warm start", r)?;
    } else {
        Error::check_len("r", r, p.size())?;
        r.fill(0.0);
    }
    Error::check_len("u", u, p.size())?;
    Ok(rebuilt)
}

/// A solve by `solve` (warm from `r` when `warm`), then, when the physical check refused an
/// answer that met the peer measure (issue 15's "large r, small q": the peer error's units
/// hide a penetration or a cone violation, and iterating further is what fixes it), rounds of
/// `solve` warm from the last answer at a tighter tolerance
/// ([`SolveReport::refinement_tol`]), within what is left of the iteration limit (`max_iter`,
/// or the solver's `default_max`) and of the time limit, at most [`REFINE_ROUNDS`] rounds. The
/// report adds up the rounds' iterations, counters, time and history, and
/// [`SolveReport::end_refinement`] says so and judges the answer at the caller's `tol`. A solve
/// the check did not refuse is `solve` alone.
pub(crate) fn solve_refined(
    p: &FrictionContactProblem,
    warm: bool,
    out: Out<'_>,
    s: &Settings,
    default_max: usize,
    mut solve: impl FnMut(bool, Out<'_>, &Settings) -> Result<(), Error>,
) -> Result<(), Error> {
    let Out { r, u, report } = out;
    solve(warm, Out { r: &mut *r, u: &mut *u, report: &mut *report }, s)?;
    if !report.refused_by_physics(s.tol) {
        return Ok(());
    }
    let limit = if s.max_iter == 0 { default_max } else { s.max_iter };
    let first = (report.error, report.physical_error.unwrap_or(f64::NAN));
    let grown_from = (measures::norm2(r), p.penetration(u));
    let (mut tol, mut rounds) = (s.tol, 0);
    while rounds < REFINE_ROUNDS && report.refused_by_physics(tol) {
        let left = limit.saturating_sub(report.iterations);
        let time_left = match s.time_limit {
            Some(t) if t <= report.elapsed => break,
            Some(t) => Some(t - report.elapsed),
            None => None,
        };
        let next = SolveReport::refinement_tol(tol, report.physical_error.unwrap_or(f64::INFINITY));
        if left == 0 || next.is_nan() || next <= 0.0 {
            break;
        }
        let s2 = Settings { tol: next, max_iter: left, time_limit: time_left, ..s.clone() };
        // A refinement round is rare: its report's copy is no cost in the solve loop.
        let earlier = report.clone();
        solve(true, Out { r: &mut *r, u: &mut *u, report: &mut *report }, &s2)?;
        report.follow(&earlier);
        tol = next;
        rounds += 1;
        if p.runs_off(grown_from, r, u) {
            break;
        }
    }
    report.end_refinement(s.tol, rounds, tol, first);
    if rounds > 0 && p.runs_off(grown_from, r, u) {
        p.mark_diverged(grown_from, r, u, rounds, report);
    }
    Ok(())
}

/// Checks the problem, the settings and the warm start every solver receives; returns the
/// starting reactions.
pub(crate) fn start(
    p: &FrictionContactProblem,
    warm: Option<&[f64]>,
    s: &perp_core::Settings,
) -> Result<Vec<f64>, Error> {
    p.validate()?;
    s.validate()?;
    match warm {
        Some(r0) => {
            Error::check_len("warm start", r0, p.size())?;
            Error::check_finite("warm start", r0)?;
            Ok(r0.to_vec())
        }
        None => Ok(vec![0.0; p.size()]),
    }
}

/// The physical figure of [`FrictionContactProblem::physical_error`] for reactions `r` and
/// velocities `u` of contacts of dimension `d` and coefficients `mu`, with the forces' scale
/// `rn` (‖r‖) and the velocities' data scale `un` given by the caller (the local problem's
/// ‖q‖ plus the rounding of W r + q; the global solvers' the same for u = Hᵀ v + b). `cones`
/// is `None` for the closed form (Coulomb, d ≤ 3), else one cone per contact.
pub(crate) fn physical_figure(
    d: usize,
    mu: &[f64],
    cones: Option<&[Arc<dyn Cone>]>,
    r: &[f64],
    u: &[f64],
    rn: f64,
    un: f64,
) -> f64 {
    // Relative to F and V whatever their size (scale invariance), absolute when the
    // velocities are round-off dust (nothing to be relative to) or a scale is 0 (then the
    // measured quantity is 0 too, up to underflow).
    let dust = un <= f64::EPSILON;
    let rel = |x: f64, scale: f64| measures::relative_part(x, scale, dust);
    let (mut pen, mut cone_out, mut comp, mut ut_sq) = (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
    let (mut ut, mut pr) = ([0.0; MAX_DIM], [0.0; MAX_DIM]);
    for i in 0..mu.len() {
        let (ri, ui, mu) = (&r[d * i..d * (i + 1)], &u[d * i..d * (i + 1)], mu[i]);
        pen = pen.max(-ui[0]);
        if let Some(cones) = cones {
            cones[i].project(mu, ri, &mut pr[..d]);
            let dist = ri.iter().zip(&pr[..d]).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
            cone_out = cone_out.max(dist);
            cones[i].modified_velocity(mu, ui, &mut ut[..d], None);
            comp = comp.max(ri.iter().zip(&ut[..d]).map(|(a, b)| a * b).sum::<f64>().abs());
            ut_sq += ut[..d].iter().map(|v| v * v).sum::<f64>();
        } else {
            let (rt, utn) = (measures::norm2(&ri[1..]), measures::norm2(&ui[1..]));
            cone_out = cone_out.max(if ri[0] < 0.0 { measures::norm2(ri) } else { 0.0 }.max(rt - mu * ri[0]));
            let rt_ut: f64 = ri[1..].iter().zip(&ui[1..]).map(|(a, b)| a * b).sum();
            let slack = (mu * ri[0] - rt).max(0.0) / (1.0 + mu * mu).sqrt();
            // Products of forces and velocities, later divided by F·V.
            comp = comp.max((ri[0] * ui[0]).abs()).max(utn * slack).max(rt * utn + rt_ut);
        }
    }
    // Other laws: ũ's own norm can be tiny (a sticking contact) while r·ũ carries the
    // round-off of h(u_T): the velocities' scale bounds it from below.
    // Divided by each scale in turn: F·V itself may overflow.
    rel(pen, un).max(rel(cone_out, rn)).max(rel(rel(comp, rn), ut_sq.sqrt().max(un)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer that ran off (admm on FrictionContact3D_1c with W and q scaled by 1e8 and μ =
    /// 1e3 reached these values): Siconos' measure divides by ‖u‖, whose naive square
    /// overflowed to ∞, and read 0; the physical check's F·V overflowed the same way. Both are
    /// finite now and the physical check refuses the answer.
    #[test]
    fn an_answer_that_ran_off_is_not_read_as_solved() {
        let w = [15.0, -1.0, -2.0, -1.0, 14.0, 1.0, -2.0, 1.0, 16.0].map(|v| v * 1e8);
        let p = FrictionContactProblem::new(
            3,
            Matrix::from_row_major(3, 3, &w).unwrap(),
            vec![-1e8, 2e8, 3e8],
            vec![1e3],
        )
        .unwrap();
        let r = [1.832074966347006e145, 5.85275827046531e143, 1.1500220931150616e144];
        let mut u = [0.0; 3];
        let mut report = SolveReport::new("ran-off");
        report.status = Status::Solved;
        p.solution_into(&r, &mut u, &mut report, 1e-8);
        assert!(u[0] > 1e154 && measures::norm2(&u).is_finite());
        assert!(report.error > 0.0, "the peer measure read {:e}", report.error);
        let phys = report.physical_error.unwrap();
        assert!(phys > measures::physical_bound(1e-8), "physical figure {phys:e}");
        assert_eq!(report.status, Status::NumericalFailure);
    }

    fn eye(n: usize) -> Matrix {
        let t: Vec<(usize, usize, f64)> = (0..n).map(|i| (i, i, 1.0)).collect();
        Matrix::from_triplets(n, n, &t).unwrap()
    }

    #[test]
    fn bad_input_names_the_field() {
        let e = FrictionContactProblem::new(3, eye(4), vec![0.0; 4], vec![0.1]).unwrap_err();
        assert!(e.to_string().contains("divide the size of W, which is 4"), "{e}");
        let e = FrictionContactProblem::new(3, eye(3), vec![0.0; 3], vec![f64::NAN]).unwrap_err();
        assert!(e.to_string().contains("mu[0]"), "{e}");
        let e = FrictionContactProblem::new(3, eye(3), vec![0.0; 3], vec![0.1, 0.2]).unwrap_err();
        assert!(e.to_string().contains("mu"), "{e}");
        let e = FrictionContactProblem::new(7, eye(7), vec![0.0; 7], vec![0.1]).unwrap_err();
        assert!(e.to_string().contains("dim"), "{e}");
    }

    #[test]
    fn general_error_equals_siconos_on_coulomb() {
        let w = Matrix::from_row_major(3, 3, &[2.0, 0.1, 0.0, 0.1, 1.0, 0.2, 0.0, 0.2, 1.5]).unwrap();
        let p = FrictionContactProblem::new(3, w, vec![-1.0, 0.5, -0.2], vec![0.4]).unwrap();
        let r = [0.7, -0.1, 0.3];
        let u = p.velocity(&r);
        let siconos = p.error(&r, &u);
        let custom =
            p.clone().with_cones(vec![ConeSpec::Custom(Arc::new(crate::Coulomb::new(3).unwrap()))]).unwrap();
        assert!(!custom.is_coulomb());
        assert!((custom.error(&r, &u) - siconos).abs() < 1e-14 * siconos.max(1.0));
        assert!(siconos > 1e-3);
    }
}
