//! The exact Coulomb problem around the convex solves: the De Saxcé fixed point, one step of
//! the natural map, then `global-ac-newton` (see the parent module).

use super::*;

/// What the De Saxcé fixed point ends with: the best answer met (Coulomb error, r, v), and
/// whether the observer (a user's callback, Ctrl-C) stopped a convex solve.
struct FixedPoint {
    err: f64,
    r: Vec<f64>,
    v: Vec<f64>,
    interrupted: bool,
}

/// The warm Newton ([`GlobalIpm::warm_newton`]) is tried only from a warm start whose global
/// error is at most this times tol: a settled step's (about tol or a few times it), not a
/// landing step's (10⁻³ and more), whose Newton iterations would be spent before the interior
/// point anyway.
pub(super) const WARM_NEWTON_FROM: f64 = 100.0;

/// The first Newton run's iteration from which the second ([`GlobalIpm::retry_regularization`])
/// goes on in lockstep with it, if the first has not stalled sooner. Over the exact cones'
/// `ball-pile 1000` (1 441 Newton finishes from the convex answer) every first run that did
/// not stall solved within 32 iterations. Over `ball-pile 200`–`1000` (97 first runs that
/// stalled or passed 40 iterations, each also run alone to its end from either start), 40
/// cost as many iterations on one thread as the first run alone followed by the second (9 661
/// against 9 679) and 0.70× on two, where 20 cost 1.03× and 0.65×, and the stall alone 0.95×
/// and 0.71× (`docs/performance.md`, Velocity space).
pub(super) const LOCKSTEP_FROM: usize = 40;

impl GlobalIpm {
    /// The exact Coulomb problem from `b`: the fixed point's convex solves, one step of the
    /// natural map, then `global-ac-newton` when the answer is not yet solved.
    pub(super) fn solve_coulomb(&mut self, mut b: Begin<'_>, s: &Settings) -> Result<GlobalSolution, Error> {
        let (g, start) = (b.g, b.start);
        let qn = free_velocity_norm(g, &b.factor);
        let mut report = SolveReport::new(self.name());
        let FixedPoint { mut err, mut r, mut v, interrupted } =
            self.fixed_point_solves(&mut b, s, &mut report)?;
        // An interior point never reaches the cones' boundary: a separated contact keeps a
        // tiny reaction, which fails the physical check relative to its own size. One step
        // of the natural map, r ← P_K(r − ρ ũ) and v = M⁻¹ (f + H r), puts it on the
        // boundary; it is kept when its error is within tol (or below the fixed point's).
        let (rp, vp) = project_once(g, &b.lay, &b.factor, &r, &v);
        let errp = g.error(&rp, &vp);
        if errp <= s.tol.max(err) {
            (err, r, v) = (errp, rp, vp);
        }
        report.error = err;
        report.status = match () {
            _ if err <= s.tol => Status::Solved,
            _ if interrupted => Status::Interrupted,
            _ => Status::MaxIterations,
        };
        let mut trial = report.clone();
        check_answer(g, qn, (&r, &v), &mut trial, s.tol);
        if trial.status != Status::Solved
            && !interrupted
            && self.polish
            && s.deadline(start).is_none_or(|t| Instant::now() < t)
        {
            self.polish(g, (start, s), (&mut report, b.warm), (&mut r, &mut v))?;
        }
        if report.residual_inf.is_infinite() {
            report.residual_inf = natural_map_inf(g, &r, &v, true);
        }
        let u = check_answer(g, qn, (&r, &v), &mut report, s.tol);
        report.elapsed = start.elapsed();
        Ok(GlobalSolution { r, v, u, report, analyses: self.chol.analyses() })
    }

    /// The De Saxcé fixed point: at most [`GlobalIpm::fixed_point`] convex solves, `b_N`
    /// shifted by `μ_i ‖u_T,i‖` of the previous answer, until the Coulomb error is within
    /// `s.tol`, halves no more in two solves, or a limit or the observer stops it. Their
    /// iterations, factorizations and errors go into `report`. Errors: no finite answer.
    fn fixed_point_solves(
        &mut self,
        b: &mut Begin<'_>,
        s: &Settings,
        report: &mut SolveReport,
    ) -> Result<FixedPoint, Error> {
        let (g, lay) = (b.g, &b.lay);
        let (nc, d) = (g.contacts(), g.dim);
        let deadline = s.deadline(b.start);
        // Each convex solve of the fixed point a little tighter than the answer asked for (its
        // error is at least the inner solve's); a single solve that the Newton method
        // polishes needs only a start: 10⁻⁴ (Box_Stacks: 7 iterations in all against 10 with
        // 0.1·tol, the same answer; every suite file a few fewer).
        let mut inner = s.clone();
        inner.tol =
            if self.polish && self.fixed_point <= 1 { s.tol.max(1e-4) } else { (0.1 * s.tol).max(1e-14) };
        inner.record_history = false;
        let mut shift = vec![0.0; nc];
        let mut best: Option<(f64, Vec<f64>, Vec<f64>)> = None;
        let mut stalled = 0usize;
        let mut breakdown = None;
        // The observer asked a phase to stop: no later phase runs.
        let mut interrupted = false;
        for _ in 0..self.fixed_point.max(1) {
            // The first convex solve starts from the warm reactions when given (as
            // `solve_convex_from`), the later ones from CVXOPT's point.
            let mut sub = SolveReport::new("global-ipm");
            let warm = b.start_point.take();
            let (r, v, _) = self.interior_point(g, lay, (&shift, warm), &inner, b.start, &mut sub)?;
            report.iterations += sub.iterations;
            report.factorizations += sub.factorizations;
            if sub.status == Status::NumericalFailure && !r.iter().all(|x| x.is_finite()) {
                breakdown = sub.message;
                break;
            }
            let err = g.error(&r, &v);
            if s.record_history {
                report.history.push(err);
                report.history_iterations.push(report.iterations);
            }
            let improved = best.as_ref().is_none_or(|b| err < 0.5 * b.0);
            if best.as_ref().is_none_or(|b| err < b.0) {
                best = Some((err, r.clone(), v.clone()));
            }
            interrupted = sub.status == Status::Interrupted;
            if err <= s.tol || interrupted || deadline.is_some_and(|t| Instant::now() >= t) {
                break;
            }
            stalled = if improved { 0 } else { stalled + 1 };
            if stalled >= 2 {
                break;
            }
            let u = g.local_velocity(&v);
            for i in 0..nc {
                let ut = &u[i * d + 1..(i + 1) * d];
                shift[i] = g.mu[i] * ut.iter().map(|x| x * x).sum::<f64>().sqrt();
            }
        }
        let Some((err, r, v)) = best else {
            return Err(Error::Numerical {
                solver: "global-ipm".into(),
                message: breakdown.unwrap_or_else(|| "the interior-point iterates are not finite".into()),
            });
        };
        Ok(FixedPoint { err, r, v, interrupted })
    }

    /// `global-ac-newton` from the warm reactions `r`, at most [`GlobalIpm::warm_newton`]
    /// iterations: the answer when it is solved, else its effort is counted by the caller.
    pub(super) fn newton_from_warm(
        &mut self,
        g: &GlobalFrictionContactProblem,
        r: &[f64],
        s: &Settings,
    ) -> Result<GlobalSolution, Error> {
        let mut first = s.clone();
        first.max_iter = self.warm_newton;
        let mut sol = self.newton.solve(g, Some(r), &first)?;
        sol.report.solver = self.name().into();
        sol.report.message = Some(format!(
            "global-ac-newton from the warm start: {} in {} iterations",
            sol.report.status, sol.report.iterations
        ));
        Ok(sol)
    }

    /// `global-ac-newton` from (r, v) with the time left of `s`'s limit since `start`, with
    /// second chances ([`GlobalNewton::solve_lockstep`]): a run with
    /// [`GlobalIpm::retry_regularization`] from the warm reactions `warm` (the previous time
    /// step's), in lockstep once the first stalls or reaches [`LOCKSTEP_FROM`] iterations, or
    /// after it when it fails sooner; when both fail, a run with that regularization from
    /// (r, v). Without warm reactions the second run starts from (r, v) and there is no third.
    /// The runs' counts and history are added to `report`, and the better answer (the first
    /// solved, in that order; else the smallest error) takes the place of (r, v) when it is
    /// solved or its error is below `report.error` (the fixed point's).
    fn polish(
        &mut self,
        g: &GlobalFrictionContactProblem,
        (start, s): (Instant, &Settings),
        (report, warm): (&mut SolveReport, Option<&[f64]>),
        (r, v): (&mut Vec<f64>, &mut Vec<f64>),
    ) -> Result<(), Error> {
        let err = report.error;
        let time_left = || s.time_limit.map(|t| t.saturating_sub(start.elapsed()));
        let rest = Settings { time_limit: time_left(), ..s.clone() };
        let retry = self.retry_regularization > 0.0;
        let second = retry.then(|| {
            let (b, a) = (&mut self.retry_newton, &self.newton);
            b.max_iter = a.max_iter;
            b.rho_scale = a.rho_scale;
            b.stall_iterations = a.stall_iterations;
            b.system = a.system;
            b.regularization = self.retry_regularization;
            (b, LOCKSTEP_FROM, warm)
        });
        let runs = self.newton.solve_lockstep(second, g, Some(r), &rest)?;
        let mut polished = runs.first;
        add_effort(report, &polished.report, s.record_history);
        let from = if self.fixed_point > 1 { "the De Saxcé fixed point's" } else { "the convex" };
        let how = if runs.first_ended { polished.report.status.to_string() } else { "stopped".into() };
        let mut message = format!(
            "Coulomb error {err:.2e} at {from} answer; global-ac-newton from it: {how} in {} iterations",
            polished.report.iterations
        );
        // A later run's answer replaces an unsolved one when it is solved or its error smaller.
        let take = |polished: &mut GlobalSolution, other: GlobalSolution| {
            if polished.report.status != Status::Solved
                && (other.report.status == Status::Solved || other.report.error < polished.report.error)
            {
                *polished = other;
            }
        };
        if let Some((retried, at)) = runs.second {
            add_effort(report, &retried.report, s.record_history);
            let when = if at < polished.report.iterations {
                format!("in lockstep from its iteration {at}")
            } else {
                "then".into()
            };
            let whence = if warm.is_some() { "from the warm start" } else { "from the same answer" };
            message.push_str(&format!(
                "; {when} with regularization {} {whence}: {} in {} iterations",
                self.retry_regularization, retried.report.status, retried.report.iterations
            ));
            let over = |st: Status| matches!(st, Status::Solved | Status::Interrupted | Status::TimeLimit);
            let third = warm.is_some()
                && !over(polished.report.status)
                && !over(retried.report.status)
                && s.deadline(start).is_none_or(|t| Instant::now() < t);
            take(&mut polished, retried);
            if third {
                let rest = Settings { time_limit: time_left(), ..s.clone() };
                let last = self.retry_newton.solve(g, Some(r), &rest)?;
                add_effort(report, &last.report, s.record_history);
                message.push_str(&format!(
                    "; then with regularization {} from the convex answer: {} in {} iterations",
                    self.retry_regularization, last.report.status, last.report.iterations
                ));
                take(&mut polished, last);
            }
        }
        report.message = Some(message);
        if polished.report.status == Status::Solved || polished.report.error < err {
            report.error = polished.report.error;
            report.status = polished.report.status;
            report.residual_inf = polished.report.residual_inf;
            (*r, *v) = (polished.r, polished.v);
        } else if polished.report.status == Status::Interrupted {
            report.status = Status::Interrupted;
        }
        Ok(())
    }
}

/// A Newton run's iterations, factorizations, line-search steps and history added to
/// `report`'s.
fn add_effort(report: &mut SolveReport, run: &SolveReport, history: bool) {
    if history {
        report.append_history(report.iterations, run);
    }
    report.iterations += run.iterations;
    report.factorizations += run.factorizations;
    report.line_search_steps += run.line_search_steps;
}

/// One step of the Coulomb natural map from (r, v): `r ← P_K(r − ρ ũ)` per contact, with
/// `ũ = (u_N + μ‖u_T‖, u_T)`, `u = Hᵀ v + b` and ρ the inverse of the contact's estimated
/// Delassus diagonal (`Σ_j H_jk² / M_jj` averaged over its rows), then `v = M⁻¹ (f + H r)`.
pub(super) fn project_once(
    g: &GlobalFrictionContactProblem,
    lay: &Layout,
    factor: &MassFactor,
    r: &[f64],
    v: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let (n, d) = (g.dofs(), g.dim);
    // The dimension was validated (2 to 6): Coulomb's cone exists.
    let Ok(cone) = Coulomb::new(d) else { return (r.to_vec(), v.to_vec()) };
    let u = g.local_velocity(v);
    let rows = g.contact_rows();
    let mdiag: Vec<f64> = lay.m_diag.iter().map(|v| v.abs().max(f64::MIN_POSITIVE)).collect();
    let mut out = vec![0.0; g.size()];
    let mut x = [0.0; MAX_DIM];
    for i in 0..g.contacts() {
        let w: f64 = (0..d)
            .map(|a| rows[i * d + a].0.iter().map(|&(j, h)| h * h / mdiag[j]).sum::<f64>())
            .sum::<f64>()
            / d as f64;
        let rho = if w > 0.0 && w.is_finite() { 1.0 / w } else { 1.0 };
        let (ri, ui) = (&r[i * d..(i + 1) * d], &u[i * d..(i + 1) * d]);
        let ut = ui[1..].iter().map(|t| t * t).sum::<f64>().sqrt();
        x[0] = ri[0] - rho * (ui[0] + g.mu[i] * ut);
        for a in 1..d {
            x[a] = ri[a] - rho * ui[a];
        }
        cone.project(g.mu[i], &x[..d], &mut out[i * d..(i + 1) * d]);
    }
    let mut vp = vec![0.0; n];
    g.velocity_into(factor, &out, &mut vp);
    (out, vp)
}

/// `‖r − P_K(r − ũ)‖∞` over the contacts (the natural map with ρ = 1), with the De Saxcé
/// term in ũ (the Coulomb problem) or without it (`ũ = u`: the convex relaxation).
pub(super) fn natural_map_inf(g: &GlobalFrictionContactProblem, r: &[f64], v: &[f64], desaxce: bool) -> f64 {
    let d = g.dim;
    let Ok(cone) = Coulomb::new(d) else { return f64::NAN };
    let u = g.local_velocity(v);
    let (mut x, mut p) = ([0.0; MAX_DIM], [0.0; MAX_DIM]);
    let mut worst = 0.0_f64;
    for i in 0..g.contacts() {
        let (ri, ui) = (&r[i * d..(i + 1) * d], &u[i * d..(i + 1) * d]);
        let ut = ui[1..].iter().map(|t| t * t).sum::<f64>().sqrt();
        x[0] = ri[0] - ui[0] - if desaxce { g.mu[i] * ut } else { 0.0 };
        for a in 1..d {
            x[a] = ri[a] - ui[a];
        }
        cone.project(g.mu[i], &x[..d], &mut p[..d]);
        worst = (0..d).fold(worst, |w, a| w.max((ri[a] - p[a]).abs()));
    }
    worst
}
