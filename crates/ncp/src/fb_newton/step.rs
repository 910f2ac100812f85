//! One iteration of the run: the line search on the merit Ψ = ½‖Φ‖² (non-monotone, with the
//! loop's stall rule as its watchdog), the gradient fallback, and the end of a step.

use super::*;

impl Method<'_, '_> {
    pub(super) fn fail(&mut self, status: Status, message: String) -> StepResult {
        self.message = Some(message);
        StepResult { error: self.p.error(&self.ws.z, &self.ws.f), stop: Some(status) }
    }
}

impl Method<'_, '_> {
    /// After a step: the non-monotone memory, then the new error (the watchdog is the loop's
    /// stall rule: [`IterativeMethod::stall`] below).
    pub(super) fn finish_step(&mut self) -> StepResult {
        let ws = &mut *self.ws;
        if self.knobs.nonmonotone > 0 && !self.monotone {
            ws.memory.remember(self.psi);
        }
        StepResult::go(self.p.error(&ws.z, &ws.f))
    }
}

impl IterativeMethod for Method<'_, '_> {
    fn initial_error(&mut self) -> Option<f64> {
        Some(self.initial_error)
    }

    fn counters(&self) -> Counters {
        Counters { pivots: 0, factorizations: self.factorizations, line_search_steps: self.line_search_steps }
    }

    fn last_step(&self) -> Option<f64> {
        self.last_t
    }

    /// The watchdog (Chamberlain, Powell, Lemaréchal & Pedersen 1982) of the non-monotone
    /// search: `2·nonmonotone` steps without a new best merit Ψ, counted from Ψ(z₀).
    fn stall(&self) -> Option<Stall> {
        (self.knobs.nonmonotone > 0).then_some(Stall {
            patience: 2 * self.knobs.nonmonotone,
            test: ProgressTest::NewBest,
            mark: self.psi,
        })
    }

    fn stall_measure(&self, _error: f64) -> f64 {
        self.psi
    }

    /// A new best merit: its iterate is the watchdog's.
    fn on_progress(&mut self) {
        if !self.monotone {
            self.ws.best_z.copy_from_slice(&self.ws.z);
        }
    }

    /// Back to the best-merit iterate, monotone from there on (once).
    fn on_stall(&mut self, _since: usize) -> OnStall {
        if self.monotone {
            return OnStall::Continue;
        }
        let ws = &mut *self.ws;
        ws.z.copy_from_slice(&ws.best_z);
        self.p.f.eval(&ws.z, &mut ws.f);
        fb_residual_lambda(self.p, self.knobs.lambda, &ws.z, &ws.f, &mut ws.phi);
        self.psi = half_norm2(&ws.phi);
        ws.memory.clear();
        self.monotone = true;
        OnStall::Switch { error: self.p.error(&ws.z, &ws.f) }
    }

    fn step(&mut self) -> StepResult {
        self.last_t = None;
        if self.active_set && self.active_set_step() {
            self.jac_ready = false;
            return self.finish_step();
        }
        // ∇F, dᵃ, dᵇ and ∇Ψ at z are ready when a damped active-set step was tried.
        if !std::mem::take(&mut self.jac_ready) {
            if let Err(msg) = self.jacobian() {
                return self.fail(Status::NumericalFailure, msg);
            }
        }
        let n = self.ws.n;
        let newton_ok = self.newton_direction();
        let ws = &mut *self.ws;
        let mut gd = ws.grad.iter().zip(&ws.d).map(|(g, d)| g * d).sum::<f64>();
        let dnorm = ws.d.iter().map(|x| x * x).sum::<f64>().sqrt();
        if !newton_ok || !gd.is_finite() || gd > -self.knobs.rho * dnorm.powf(self.knobs.p) {
            self.gradient_steps += 1;
            for i in 0..n {
                ws.d[i] = -ws.grad[i];
            }
            gd = -ws.grad.iter().map(|x| x * x).sum::<f64>();
        }
        if gd == 0.0 {
            return self
                .fail(Status::Stalled, "∇Ψ = 0 at a non-solution: a stationary point of the merit".into());
        }
        // Armijo (GLL reference when non-monotone), the shared search of perp_core.
        let reference = ws.memory.reference(self.psi);
        let (p, lambda) = (self.p, self.knobs.lambda);
        let search = Backtracking {
            sigma: self.knobs.sigma,
            min_step: self.knobs.min_step,
            ..Backtracking::default()
        };
        let found = search.armijo(reference, gd, |t| trial_merit(p, lambda, ws, t));
        self.line_search_steps += found.trials();
        match found {
            Search::Accepted { merit, step, .. } => (self.psi, self.last_t) = (merit, Some(step)),
            Search::Failed(f) => {
                let t = f.last_step;
                return if f.nonfinite {
                    self.fail(
                        Status::NumericalFailure,
                        format!("F was not finite at the trial points (step down to {t:.1e})"),
                    )
                } else {
                    self.fail(
                        Status::Stalled,
                        format!("line search failed: no decrease of the merit down to step {t:.1e}"),
                    )
                };
            }
        }
        std::mem::swap(&mut ws.z, &mut ws.zt);
        std::mem::swap(&mut ws.f, &mut ws.ft);
        std::mem::swap(&mut ws.phi, &mut ws.phit);
        self.finish_step()
    }
}

/// The merit Ψ = ½‖Φ_λ‖² at the trial point `z + t d` (left in `ws.zt`, `ws.ft`, `ws.phit`), or
/// `None` where F is not finite there: the line searches' evaluation.
pub(super) fn trial_merit(p: &Mcp<'_>, lambda: f64, ws: &mut Workspace, t: f64) -> Option<f64> {
    for i in 0..ws.n {
        ws.zt[i] = ws.z[i] + t * ws.d[i];
    }
    p.f.eval(&ws.zt, &mut ws.ft);
    all_finite(&ws.ft).then(|| {
        fb_residual_lambda(p, lambda, &ws.zt, &ws.ft, &mut ws.phit);
        half_norm2(&ws.phit)
    })
}
