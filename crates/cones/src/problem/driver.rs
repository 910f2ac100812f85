//! The steps every frictional solve shares: the report's message buffer, the cone objects
//! kept between solves ([`ConeCache`]), `prepare` (validation and warm start), the physics
//! refinement rounds (`solve_refined`) and the physical figure of the last answer.

use super::*;
use perp_core::refine::{refine_physics, Refinable};

/// The capacity a prepared report's message starts with, so that later messages of the same
/// kind fit without growing it.
pub(super) const MESSAGE_CAPACITY: usize = 256;

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
/// The cone objects of the last problem solved, rebuilt only when the friction laws change:
/// one shared Coulomb object for `cones: None`, the built specs otherwise.
#[derive(Default)]
pub(crate) struct ConeCache {
    /// The dimension and the laws the objects were built for (`None` inside: all Coulomb).
    pub(super) key: Option<(usize, Option<Vec<ConeSpec>>)>,
    /// One object per contact.
    pub cones: Vec<Arc<dyn Cone>>,
}

pub(super) fn same_spec(a: &ConeSpec, b: &ConeSpec) -> bool {
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
    pub(super) fn refresh(&mut self, p: &FrictionContactProblem) -> Result<bool, Error> {
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

/// The start of a round of a first-order method on W's blocks (`admm`, `apgd`): [`prepare`]
/// (the problem, the settings, the starting reactions in `job.out`), the solver's option
/// checks `validate`, W's blocks brought up to date in `blocks`, and the iteration vectors
/// `vecs` set to zeros of the problem's size. Returns the blocks.
pub(crate) fn prepare_first_order<'b>(
    job: &mut Job<'_>,
    validate: impl FnOnce() -> Result<(), Error>,
    cones: &mut ConeCache,
    blocks: &'b mut Option<crate::delassus::Blocks>,
    vecs: &mut [Vec<f64>],
) -> Result<&'b crate::delassus::Blocks, Error> {
    let p = job.p;
    prepare(p, job.warm, job.out.r, job.out.u, job.s, cones, w_finite)?;
    validate()?;
    let _ = crate::delassus::Blocks::refresh(blocks, &p.w, p.dim);
    let Some(blocks) = blocks.as_ref() else { unreachable!("refresh fills the slot") };
    for v in vecs {
        v.clear();
        v.resize(p.size(), 0.0);
    }
    Ok(blocks)
}

/// W's finiteness, the check [`prepare`] makes unless a solver has its own.
pub(crate) fn w_finite(w: &Matrix) -> Result<(), Error> {
    w.check_finite("W")
}

/// The checks of [`start`] for [`FrictionSolver::solve_into`], without allocating on
/// success: the problem (the laws through `cones`, brought up to date; W's finiteness
/// checked by `check_w`, [`w_finite`] or a solver's own pass over W, in the same place among
/// the checks as [`FrictionContactProblem::validate_values_with`] puts it), the settings, the
/// starting reactions `r` (the warm start when `warm`; else `r` is set to zeros, the cold
/// start) and the length of `u`. Returns whether the cone objects were rebuilt.
pub(crate) fn prepare(
    p: &FrictionContactProblem,
    warm: bool,
    r: &mut [f64],
    u: &[f64],
    s: &Settings,
    cones: &mut ConeCache,
    check_w: impl FnOnce(&Matrix) -> Result<(), Error>,
) -> Result<bool, Error> {
    p.validate_values_with(check_w)?;
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
/// answer that met the peer measure, the refinement rounds of
/// [`perp_core::refine::refine_physics`] (warm from the last answer at a tighter tolerance,
/// within what is left of `max_iter`, or the solver's `default_max`, and of the time limit),
/// stopping early when the answer runs off ([`FrictionContactProblem::runs_off`]: the growth
/// is then marked as divergence). A solve the check did not refuse is `solve` alone.
pub(crate) fn solve_refined(
    p: &FrictionContactProblem,
    warm: bool,
    out: FrictionSolutionMut<'_>,
    s: &Settings,
    default_max: usize,
    mut solve: impl FnMut(bool, FrictionSolutionMut<'_>, &Settings) -> Result<(), Error>,
) -> Result<(), Error> {
    let FrictionSolutionMut { r, u, report } = out;
    solve(warm, FrictionSolutionMut { r: &mut *r, u: &mut *u, report: &mut *report }, s)?;
    if !report.refused_by_physics(s.tol) {
        return Ok(());
    }
    let grown_from = (measures::norm2(r), p.penetration(u));
    let mut rounds = Rounds { p, grown_from, out: FrictionSolutionMut { r, u, report }, solve };
    if let Some(k @ 1..) = refine_physics(&mut rounds, s, default_max)? {
        if rounds.runs_off() {
            let FrictionSolutionMut { r, u, report } = rounds.out;
            p.mark_diverged(grown_from, r, u, k, report);
        }
    }
    Ok(())
}

/// A frictional solve as [`refine_physics`] repeats it: warm from the reactions in `out`.
struct Rounds<'a, F> {
    p: &'a FrictionContactProblem,
    /// `(‖r‖, penetration)` of the first answer, for [`FrictionContactProblem::runs_off`].
    grown_from: (f64, f64),
    out: FrictionSolutionMut<'a>,
    solve: F,
}

impl<F: FnMut(bool, FrictionSolutionMut<'_>, &Settings) -> Result<(), Error>> Refinable for Rounds<'_, F> {
    fn report(&mut self) -> &mut SolveReport {
        self.out.report
    }

    fn solve_again(&mut self, s: &Settings) -> Result<(), Error> {
        let FrictionSolutionMut { r, u, report } = &mut self.out;
        (self.solve)(true, FrictionSolutionMut { r, u, report }, s)
    }

    fn runs_off(&mut self) -> bool {
        self.p.runs_off(self.grown_from, self.out.r, self.out.u)
    }
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
    let mut t = PhysicalTerms::default();
    let (mut ut, mut pr) = ([0.0; MAX_DIM], [0.0; MAX_DIM]);
    for i in 0..mu.len() {
        let (ri, ui, mu) = (&r[d * i..d * (i + 1)], &u[d * i..d * (i + 1)], mu[i]);
        t.pen = t.pen.max(-ui[0]);
        if let Some(cones) = cones {
            cones[i].project(mu, ri, &mut pr[..d]);
            cones[i].modified_velocity(mu, ui, &mut ut[..d], None);
            t.add_cone(ri, &pr[..d], &ut[..d]);
        } else {
            let (rt, utn) = (measures::norm2(&ri[1..]), measures::norm2(&ui[1..]));
            t.cone_out =
                t.cone_out.max(if ri[0] < 0.0 { measures::norm2(ri) } else { 0.0 }.max(rt - mu * ri[0]));
            let rt_ut: f64 = ri[1..].iter().zip(&ui[1..]).map(|(a, b)| a * b).sum();
            let slack = (mu * ri[0] - rt).max(0.0) / (1.0 + mu * mu).sqrt();
            // Products of forces and velocities, later divided by F·V.
            t.comp = t.comp.max((ri[0] * ui[0]).abs()).max(utn * slack).max(rt * utn + rt_ut);
        }
    }
    t.figure(rn, un)
}

/// The running maxima and sums of [`physical_figure`]: penetration, distance to the cone,
/// complementarity, `Σ‖ũ_i‖²`.
#[derive(Default)]
pub(super) struct PhysicalTerms {
    pub(super) pen: f64,
    pub(super) cone_out: f64,
    pub(super) comp: f64,
    pub(super) ut_sq: f64,
}

impl PhysicalTerms {
    /// A contact of a law other than the closed form: its reactions `ri`, their projection
    /// `pr` onto the cone and its modified velocity `ut` (the penetration is added apart).
    #[inline(always)]
    pub(super) fn add_cone(&mut self, ri: &[f64], pr: &[f64], ut: &[f64]) {
        let dist = ri.iter().zip(pr).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
        self.cone_out = self.cone_out.max(dist);
        self.comp = self.comp.max(ri.iter().zip(ut).map(|(a, b)| a * b).sum::<f64>().abs());
        self.ut_sq += ut.iter().map(|v| v * v).sum::<f64>();
    }

    /// The figure, with the forces' scale `rn` and the velocities' `un`.
    pub(super) fn figure(&self, rn: f64, un: f64) -> f64 {
        // Relative to F and V whatever their size (scale invariance), absolute when the
        // velocities are round-off dust (nothing to be relative to) or a scale is 0 (then the
        // measured quantity is 0 too, up to underflow).
        let dust = un <= f64::EPSILON;
        let rel = |x: f64, scale: f64| measures::relative_part(x, scale, dust);
        let PhysicalTerms { pen, cone_out, comp, ut_sq } = *self;
        // Other laws: ũ's own norm can be tiny (a sticking contact) while r·ũ carries the
        // round-off of h(u_T): the velocities' scale bounds it from below.
        // Divided by each scale in turn: F·V itself may overflow.
        rel(pen, un).max(rel(cone_out, rn)).max(rel(rel(comp, rn), ut_sq.sqrt().max(un)))
    }
}
