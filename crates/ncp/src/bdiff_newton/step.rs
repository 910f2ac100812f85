//! One iteration of the run: the Armijo line search on ½‖min(z, F)‖², the gradient fallback, and
//! the end of a step.

use super::*;

impl Method<'_, '_, '_> {
    pub(super) fn error(&self) -> f64 {
        self.p.error(&self.ws.z, &self.ws.f)
    }

    pub(super) fn fail(&mut self, status: Status, msg: String) -> StepResult {
        self.message = Some(msg);
        StepResult { error: self.error(), stop: Some(status) }
    }
}

impl Method<'_, '_, '_> {
    /// The steepest-descent direction −GᵀH of θ (module docs) into `ws.d`; returns ‖GᵀH‖².
    pub(super) fn gradient_direction(&mut self) -> f64 {
        let ws = &mut *self.ws;
        let n = ws.z.len();
        ws.g.iter_mut().for_each(|g| *g = 0.0);
        for i in 0..n {
            match ws.sets[i] {
                IndexSet::Free => {
                    for j in 0..n {
                        ws.g[j] += ws.jac[(i, j)] * ws.h[i];
                    }
                }
                _ => ws.g[i] += ws.h[i],
            }
        }
        let mut g2 = 0.0;
        for j in 0..n {
            ws.d[j] = -ws.g[j];
            g2 += ws.g[j] * ws.g[j];
        }
        g2
    }

    /// Armijo along `ws.d` (the shared [`Backtracking::armijo`]): accepted when
    /// `θ(z + t d) ≤ θ₀ + σ t·slope` (slope = −2θ₀ for Newton, −‖GᵀH‖² for steepest descent);
    /// `max_trials` limits the trials (the hot-start probe uses 1). On acceptance z, F, H
    /// move to the trial point.
    pub(super) fn search(&mut self, theta0: f64, slope: f64, max_trials: usize) -> Step {
        let search = Backtracking {
            sigma: self.sigma,
            min_step: self.min_step,
            max_trials,
            // A non-finite trial is backtracked from, as in fb-newton (F may be defined only
            // near the bounds); the search fails as non-finite only if no finite trial passed.
            stop_on_nonfinite: false,
            ..Backtracking::default()
        };
        let (p, ws) = (self.p, &mut *self.ws);
        let found = search.armijo(theta0, slope, |t| {
            for i in 0..ws.z.len() {
                ws.zt[i] = ws.z[i] + t * ws.d[i];
            }
            p.f.eval(&ws.zt, &mut ws.ft);
            if ws.ft.iter().any(|v| !v.is_finite()) {
                return None;
            }
            p.natural_residual(&ws.zt, &ws.ft, &mut ws.ht);
            Some(0.5 * sq(&ws.ht))
        });
        self.line_search_steps += found.trials();
        match found {
            Search::Accepted { step, .. } => {
                self.last_t = Some(step);
                std::mem::swap(&mut ws.z, &mut ws.zt);
                std::mem::swap(&mut ws.f, &mut ws.ft);
                std::mem::swap(&mut ws.h, &mut ws.ht);
                ws.jac_current = false;
                Step::Accepted
            }
            Search::Failed(f) if f.nonfinite => Step::NonFinite,
            Search::Failed(_) => Step::Failed,
        }
    }
}

impl IterativeMethod for Method<'_, '_, '_> {
    fn initial_error(&mut self) -> Option<f64> {
        Some(self.error())
    }

    fn counters(&self) -> Counters {
        Counters {
            pivots: self.pivots,
            factorizations: self.factorizations,
            line_search_steps: self.line_search_steps,
        }
    }

    fn last_step(&self) -> Option<f64> {
        self.last_t
    }

    fn step(&mut self) -> StepResult {
        self.last_t = None;
        if let Err(msg) = self.jacobian() {
            return self.fail(Status::NumericalFailure, msg);
        }
        let theta0 = 0.5 * sq(&self.ws.h);
        let newton_slope = -2.0 * theta0;
        // Hot start: the remembered sets give the first direction, full step or nothing.
        if let Some(sets) = self.hot_sets.take() {
            let usable = sets.iter().enumerate().all(|(i, s)| match s {
                IndexSet::Lower => self.p.lower[i].is_finite(),
                IndexSet::Upper => self.p.upper[i].is_finite(),
                _ => true,
            });
            if usable {
                self.ws.sets.copy_from_slice(&sets);
                if let Direction::Newton = self.direction() {
                    match self.search(theta0, newton_slope, 1) {
                        Step::Accepted => {
                            self.last_sets = Some(self.ws.sets.clone());
                            return StepResult::go(self.error());
                        }
                        Step::NonFinite => {
                            return self
                                .fail(Status::NumericalFailure, "F is not finite at a trial point".into())
                        }
                        Step::Failed => {}
                    }
                }
            }
        }
        classify(self.p, &self.ws.z, &self.ws.f, self.tie, &mut self.ws.sets);
        if let Direction::Newton = self.direction() {
            match self.search(theta0, newton_slope, usize::MAX) {
                Step::Accepted => {
                    self.last_sets = Some(self.ws.sets.clone());
                    return StepResult::go(self.error());
                }
                Step::NonFinite => {
                    return self.fail(Status::NumericalFailure, "F is not finite at a trial point".into())
                }
                Step::Failed => {}
            }
        }
        // Fallback: steepest descent on θ with the current sets (ties resolved).
        let g2 = self.gradient_direction();
        if g2.is_nan() || g2 <= 0.0 {
            return self
                .fail(Status::Stalled, "zero gradient of the merit function at a non-solution".into());
        }
        match self.search(theta0, -g2, usize::MAX) {
            Step::Accepted => StepResult::go(self.error()),
            Step::NonFinite => self.fail(Status::NumericalFailure, "F is not finite at a trial point".into()),
            Step::Failed => self.fail(Status::Stalled, "line search failed (step below min_step)".into()),
        }
    }
}
