//! The state of one Newton solve ([`Method`]) and the loop that runs it ([`run`]).

use super::direction::ETA0;
use super::prox_mode::{rho_into, ProxParams, ProxState};
use super::step::MEMORY;
use super::workspace::{Linear, Vectors, Workspace};
use super::{NewtonFunction, SemismoothNewton, DEFAULT_MAX_ITER, PROX_MAX_ITER};
use crate::cone::{Cone, SocMap, MAX_DIM};
use crate::delassus::Blocks;
use crate::problem::{
    message_buffer, prepare, reset_report, w_finite, FrictionContactProblem, FrictionSolutionMut, Job,
};
use perp_core::line_search::NonMonotone;
use perp_core::{iteration, Error, Status};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

/// The state of one solve: the problem's structure (borrowed from the workspace), the
/// iteration vectors and the counters.
pub(super) struct Method<'a> {
    pub(super) opts: &'a SemismoothNewton,
    pub(super) p: &'a FrictionContactProblem,
    pub(super) blocks: &'a Blocks,
    pub(super) cones: &'a [Arc<dyn Cone>],
    /// FB's Lorentz-cone maps (see [`Workspace::maps`]; empty for the other functions).
    pub(super) maps: &'a [Option<SocMap>],
    /// Every contact has the built-in Coulomb law (its cone object is a `Coulomb`).
    pub(super) coulomb: bool,
    /// `(ρ_N, ρ_T)` per contact, from the diagonal blocks of W (of `W + σI` in prox mode).
    pub(super) rho: Vec<(f64, f64)>,
    pub(super) linear: &'a mut Linear,
    /// The iteration vectors (see [`Vectors`]).
    pub(super) v: Vectors,
    /// The merits of the last [`MEMORY`] iterations (the non-monotone reference).
    pub(super) merit_memory: NonMonotone,
    pub(super) error: f64,
    pub(super) factorizations: usize,
    pub(super) line_search_steps: usize,
    /// The line search's `t` of the last step (for the observer's log), `None` before the
    /// first one or when the last step took none.
    pub(super) last_t: Option<f64>,
    pub(super) regularized: usize,
    pub(super) fail: Option<(Status, &'static str)>,
    /// The smallest error so far (its iterate is `v.best`).
    pub(super) best_error: f64,
    /// Proximal-point state (`prox`): Φ is evaluated at `u + σ (r − r_ref)`.
    pub(super) prox: Option<ProxState>,
    /// The scale of the regularisation σ_k of each component of a contact (position b of
    /// its d): W's mean diagonal entry for every component, but for a problem of rolling
    /// contacts, whose sliding part (normal and tangential) and rolling part are in different
    /// units (forces and moments), the mean diagonal entry of W over that part's rows. One mean for both
    /// parts put σ ≈ 10⁴ on rows of diagonal 367 in `rfc3d_sphere_from_grfc3d` (rolling
    /// diagonal 9.2·10⁶), and ac-newton crept 2 % an iteration to its iteration limit.
    pub(super) reg_scale: [f64; MAX_DIM],
    /// fb-newton with direct linear solves: Φ pairs r with `u / w̄` instead of u, the same
    /// zeros (K* is a cone) with both arguments in the units of r; 1 otherwise. Where ‖r‖ is
    /// far from ‖u‖ (Confeti-ex03: ‖r‖ ≈ 6e5) the unscaled FB merit was flat along the Newton
    /// directions and the line search crept: 200 iterations to 7.4e-7 there, 9 scaled; the
    /// Rover files take 5–7 iterations instead of 8–17, BoxesStack1 49 instead of 183.
    /// Not with BiCGSTAB (the iterative path of large problems): its block-Jacobi
    /// preconditioned solves of the scaled systems needed so many more inner iterations that
    /// 4 of 8 generated 10 000-contact problems ran out of a 10 s limit they met unscaled.
    pub(super) u_scale: f64,
    /// The instant the time limit falls (start of the solve + `time_limit`).
    pub(super) deadline: Option<Instant>,
    /// Inexact Newton (iterative solves): the forcing term of this iteration and `‖Φ‖` at the
    /// previous one (`None` after a prox update, which changes Φ).
    pub(super) eta: f64,
    pub(super) phi_prev: Option<f64>,
    /// BiCGSTAB iterations, and directions that missed their forcing term (but not `η_max`).
    pub(super) krylov_iterations: usize,
    pub(super) short_directions: usize,
    /// The automatic choice went iterative because a factorization would end too late.
    pub(super) switched_for_time: bool,
    /// The iteration at which the method went proximal, with why (the loop's stall rule, or a
    /// line search that found no decrease).
    pub(super) went_proximal: Option<(usize, &'static str)>,
    pub(super) iterations: usize,
    /// The largest diagonal entry of W, the scale of σ for a proximal start.
    pub(super) w_max: f64,
    /// Storage of `r_ref` and `r_inner` for a proximal start (taken from `v`).
    pub(super) spare: Option<(Vec<f64>, Vec<f64>)>,
}

/// The Newton loop shared by the Newton solvers and `prox`: solves `p` from the reactions in
/// `r` into `r`, `u` and `report`, on the storage of `ws`.
pub(crate) fn run(
    opts: &SemismoothNewton,
    ws: &mut Workspace,
    prox: Option<ProxParams>,
    job: Job<'_>,
) -> Result<(), Error> {
    let start = Instant::now();
    let Job { p, warm, out: FrictionSolutionMut { r, u, report }, s } = job;
    let rebuilt = prepare(p, warm, r, u, s, &mut ws.cones, w_finite)?;
    opts.check()?;
    if opts.function == NewtonFunction::FischerBurmeister {
        ws.prepare_maps(opts, p, rebuilt)?;
    }
    let sparse = ws.prepare_linear(opts, p);
    let mut m = Method::new(opts, ws, prox, p, r, s.deadline(start));
    m.refresh();
    if let Some(ps) = &mut m.prox {
        ps.phi_start = Method::merit(&m.v.phi).sqrt();
    }
    let (name, default_max) =
        if m.prox.is_some() { ("prox", PROX_MAX_ITER) } else { (opts.name, DEFAULT_MAX_ITER) };
    let outcome = iteration::run_with(&mut m, s, default_max, start, Vec::new());
    reset_report(report, name);
    outcome.record(report);
    m.describe(message_buffer(report), sparse);
    // The best iterate, not the last (they differ after watchdog steps).
    r.copy_from_slice(if m.best_error < m.error { &m.v.best } else { &m.v.r });
    p.solution_with(m.cones, r, u, report, s.tol);
    let (v, rho, merit_memory) = m.finish();
    (ws.vectors, ws.rho, ws.merit_memory) = (v, rho, merit_memory);
    Ok(())
}

impl<'a> Method<'a> {
    /// The state at the start of a solve from `r`, on the structure prepared in `ws` and its
    /// storage (prox mode from the start when `prox` is given).
    pub(super) fn new(
        opts: &'a SemismoothNewton,
        ws: &'a mut Workspace,
        prox: Option<ProxParams>,
        p: &'a FrictionContactProblem,
        r: &[f64],
        deadline: Option<Instant>,
    ) -> Self {
        let (n, d, nc) = (p.size(), p.dim, p.contacts());
        let Some(blocks) = &ws.blocks else { unreachable!("prepare_linear fills the slot") };
        let Some(linear) = &mut ws.linear else { unreachable!("prepare_linear fills the slot") };
        // The diagonal of W, read from the diagonal blocks.
        let diagonal = (0..n).map(|k| blocks.diag[(k / d) * d * d + (k % d) * (d + 1)]);
        let w_mean = diagonal.clone().map(|v| v.abs()).sum::<f64>() / n.max(1) as f64;
        let w_max = diagonal.clone().fold(0.0_f64, |m, v| m.max(v.abs())).max(f64::MIN_POSITIVE);
        let mut reg_scale = [w_mean; MAX_DIM];
        if p.all_rolling() {
            // The sliding part is the first (d + 1) / 2 components: 3 of 5 in 3-D, 2 of 3 in 2-D.
            let split = d.div_ceil(2);
            let part_mean = |range: std::ops::Range<usize>| {
                let (sum, count) = diagonal
                    .clone()
                    .enumerate()
                    .filter(|(k, _)| range.contains(&(k % d)))
                    .fold((0.0, 0usize), |(s, c), (_, v)| (s + v.abs(), c + 1));
                sum / count.max(1) as f64
            };
            let (sliding, rolling) = (part_mean(0..split), part_mean(split..d));
            reg_scale[..split].fill(sliding);
            reg_scale[split..d].fill(rolling);
        }
        let iterative = matches!(linear, Linear::Sparse(sj) if sj.iterative);
        let fb_scaled = opts.function == NewtonFunction::FischerBurmeister && !iterative;
        let u_scale = if fb_scaled && w_mean > 0.0 && w_mean.is_finite() { 1.0 / w_mean } else { 1.0 };
        let mut v = std::mem::take(&mut ws.vectors);
        v.start(r, d);
        let storage = (std::mem::take(&mut v.r_ref), std::mem::take(&mut v.r_inner));
        let (prox, spare) = match prox {
            Some(params) => (Some(ProxState::new(params, w_max, iterative, r, storage)), None),
            None => (None, Some(storage)),
        };
        let mut rho = std::mem::take(&mut ws.rho);
        rho_into(blocks, nc, prox.as_ref().map_or(0.0, |ps| ps.sigma), opts.rho_scale, &mut rho);
        let mut merit_memory = std::mem::take(&mut ws.merit_memory);
        merit_memory.reset(MEMORY);
        Method {
            opts,
            p,
            blocks,
            cones: &ws.cones.cones,
            maps: if opts.function == NewtonFunction::FischerBurmeister { &ws.maps } else { &[] },
            coulomb: p.is_coulomb(),
            rho,
            linear,
            v,
            merit_memory,
            error: 0.0,
            factorizations: 0,
            line_search_steps: 0,
            last_t: None,
            regularized: 0,
            fail: None,
            best_error: f64::INFINITY,
            prox,
            reg_scale,
            u_scale,
            deadline,
            eta: ETA0,
            phi_prev: None,
            krylov_iterations: 0,
            short_directions: 0,
            switched_for_time: false,
            went_proximal: None,
            iterations: 0,
            w_max,
            spare,
        }
    }

    /// The report's message: the linear solver, prox's updates, regularised systems, the switch
    /// to prox mode and why the solve failed.
    fn describe(&mut self, msg: &mut String, sparse: bool) {
        match &*self.linear {
            Linear::Sparse(sj) if sj.iterative => {
                let _ = write!(
                    msg,
                    "BiCGSTAB (block-Jacobi), {} inner iterations, {} directions short of their forcing term",
                    self.krylov_iterations, self.short_directions
                );
                if self.switched_for_time {
                    let _ = write!(msg, " (a factorization would have ended after the time limit)");
                }
            }
            _ => {
                msg.push_str(if sparse { "sparse LU" } else { "dense LU" });
            }
        }
        if let Some(ps) = &self.prox {
            let _ = write!(
                msg,
                "; {} prox updates, final σ = {:.2e} (largest {:.2e})",
                ps.updates, ps.sigma, ps.sigma_peak
            );
        }
        if self.regularized > 0 {
            let _ = write!(msg, "; {} regularised Newton systems", self.regularized);
        }
        if let Some((k, why)) = self.went_proximal {
            let _ = write!(msg, "; proximal from iteration {k} ({why})");
        }
        if let Some((_, why)) = self.fail.take() {
            let _ = write!(msg, "; {why}");
        }
    }

    /// The storage to keep: the vectors (prox's given back), the ρ's and the merit memory.
    fn finish(self) -> (Vectors, Vec<(f64, f64)>, NonMonotone) {
        let mut v = self.v;
        if let Some(ps) = self.prox {
            (v.r_ref, v.r_inner) = (ps.r_ref, ps.r_inner);
        } else if let Some((a, b)) = self.spare {
            (v.r_ref, v.r_inner) = (a, b);
        }
        (v, self.rho, self.merit_memory)
    }
}
