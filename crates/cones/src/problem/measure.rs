//! The measures of a frictional answer: the error with the cone objects built, the physical
//! error and the penetration, the check that an answer did not run off (`mark_diverged`), and
//! the solution with `u = W r + q` and its verified report.

use super::*;

impl FrictionContactProblem {
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

    /// Whether every contact's law is the built-in rolling cone (and there is a contact), so
    /// that [`FrictionContactProblem::rolling_measures`] applies.
    pub(crate) fn all_rolling(&self) -> bool {
        self.cones
            .as_deref()
            .is_some_and(|c| !c.is_empty() && c.iter().all(|s| matches!(s, ConeSpec::Rolling { .. })))
    }

    /// For a problem whose every law is the built-in rolling cone ([`Self::all_rolling`]; NaNs
    /// otherwise): `(error_with(cones, r, u), physical_error_with(cones, r, u, w_max))` bit for
    /// bit, in one pass over the contacts. Each contact's modified velocity ũ is computed once
    /// for both (the error's natural map is [`Cone::natural_map`]'s default, which the rolling
    /// cone keeps: `r − P_K(r − ũ)`; the physical check projects r and reads ũ), ‖q‖ and ‖r‖
    /// once, and the cone's methods are called directly, not through its trait object.
    pub(crate) fn rolling_measures(&self, r: &[f64], u: &[f64], w_max: f64) -> (f64, f64) {
        let d = self.dim;
        let Some(specs) = self.cones.as_deref().filter(|c| c.len() == self.contacts()) else {
            return (f64::NAN, f64::NAN);
        };
        let mut sum = 0.0;
        let mut t = PhysicalTerms::default();
        let (mut ut, mut x, mut p, mut phi, mut pr) =
            ([0.0; MAX_DIM], [0.0; MAX_DIM], [0.0; MAX_DIM], [0.0; MAX_DIM], [0.0; MAX_DIM]);
        for (i, spec) in specs.iter().enumerate() {
            let ConeSpec::Rolling { mu_r } = spec else { return (f64::NAN, f64::NAN) };
            let cone = crate::Rolling::checked(d, *mu_r);
            let (ri, ui, mu) = (&r[d * i..d * (i + 1)], &u[d * i..d * (i + 1)], self.mu[i]);
            // `error_with`: the natural map with ρ = 1, as `Cone::natural_map` computes it.
            cone.modified_velocity(mu, ui, &mut ut[..d], None);
            for k in 0..d {
                x[k] = ri[k] - 1.0 * ut[k];
            }
            cone.project(mu, &x[..d], &mut p[..d]);
            for k in 0..d {
                phi[k] = ri[k] - p[k];
            }
            sum += phi[..d].iter().map(|v| v * v).sum::<f64>();
            // `physical_figure`, with the same ũ.
            t.pen = t.pen.max(-ui[0]);
            cone.project(mu, ri, &mut pr[..d]);
            t.add_cone(ri, &pr[..d], &ut[..d]);
        }
        let (qn, rn) = (measures::norm2(&self.q), measures::norm2(r));
        let error = measures::normalize(sum.sqrt(), qn.max(rn).max(measures::norm2(u)));
        // `physical_error_with`'s scales.
        let un = qn + self.w.rounding_bound_with(w_max, r, 1e-6 * qn);
        let phys = if rn.is_finite() && un.is_finite() { t.figure(rn, un) } else { f64::NAN };
        (error, phys)
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
        self.physical_error_with(cones, r, u, self.w.max_abs())
    }

    /// [`FrictionContactProblem::physical_error`] with `w_max` = `self.w.max_abs()` given (a
    /// solver that scanned W's values has it).
    pub(crate) fn physical_error_with(
        &self,
        cones: &[Arc<dyn Cone>],
        r: &[f64],
        u: &[f64],
        w_max: f64,
    ) -> f64 {
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
        let un = qn + self.w.rounding_bound_with(w_max, r, 1e-6 * qn);
        // A scale that overflows belongs to an answer that ran off, not to a solution.
        if !(rn.is_finite() && un.is_finite()) {
            return f64::NAN;
        }
        physical_figure(d, &self.mu, (!closed_form).then_some(cones), r, u, rn, un)
    }

    /// A `Solved` report whose answer fails [`FrictionContactProblem::physical_error`] by more
    /// than [`measures::physical_bound`]`(tol)` becomes `NumericalFailure`, saying so in its
    /// message (see there for the bound's calibration).
    pub(super) fn verify_physics(
        &self,
        cones: &[Arc<dyn Cone>],
        r: &[f64],
        u: &[f64],
        report: &mut SolveReport,
        tol: f64,
    ) {
        let phys = self.physical_error(cones, r, u);
        report.check_physics(phys, tol, PHYSICS_VIOLATION);
    }

    /// [`FrictionContactProblem::verify_physics`] with `w_max` = `self.w.max_abs()` given.
    fn verify_physics_with(
        &self,
        cones: &[Arc<dyn Cone>],
        r: &[f64],
        u: &[f64],
        w_max: f64,
        report: &mut SolveReport,
        tol: f64,
    ) {
        let phys = self.physical_error_with(cones, r, u, w_max);
        report.check_physics(phys, tol, PHYSICS_VIOLATION);
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
    pub(super) fn runs_off(&self, from: (f64, f64), r: &[f64], u: &[f64]) -> bool {
        let (r0, pen0) = from;
        let (r1, pen1) = (measures::norm2(r), self.penetration(u));
        // A NaN penetration counts as not halved.
        let halved = pen1 < 0.5 * pen0;
        r0 > 0.0 && (r1 >= 10.0 * r0 || !r1.is_finite()) && pen0 > 0.0 && !halved
    }

    /// The report of an answer that [runs off](Self::runs_off) becomes [`Status::Diverged`],
    /// whatever the last round's checks said, its message giving the evidence.
    pub(super) fn mark_diverged(
        &self,
        from: (f64, f64),
        r: &[f64],
        u: &[f64],
        rounds: usize,
        report: &mut SolveReport,
    ) {
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
        let m = Measured { error, w_max: self.w.max_abs(), physical: None };
        self.solution_measured_with(cones, r, u, m, report, tol);
    }

    /// [`FrictionContactProblem::solution_measured`] with more of the measures at hand
    /// ([`Measured`]): the same report.
    pub(crate) fn solution_measured_with(
        &self,
        cones: &[Arc<dyn Cone>],
        r: &[f64],
        u: &[f64],
        Measured { error, w_max, physical }: Measured,
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
        match physical {
            Some(phys) => report.check_physics(phys, tol, PHYSICS_VIOLATION),
            None => self.verify_physics_with(cones, r, u, w_max, report, tol),
        }
    }
}

/// What a solver measured of its answer `(r, u = W r + q)` for
/// [`FrictionContactProblem::solution_measured_with`]: the error (`error_with`), `max|W|`
/// (`w.max_abs()`) and, when it computed it, the physical figure
/// (`physical_error_with`, e.g. by [`FrictionContactProblem::rolling_measures`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Measured {
    pub(crate) error: f64,
    pub(crate) w_max: f64,
    pub(crate) physical: Option<f64>,
}

/// What the physical check names when it refuses an answer.
const PHYSICS_VIOLATION: &str = "penetration, cone or complementarity violation";
