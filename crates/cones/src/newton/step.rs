//! One Newton iteration: the direction, the non-monotone Armijo search on `½‖Φ‖²`, the new
//! iterate, prox's centre, and the stagnation rule's configuration (the loop applies it).

use super::direction::Direction;
use super::method::Method;
use perp_core::iteration::{OnStall, ProgressTest, Stall};
use perp_core::line_search::{Backtracking, Search, Verdict};
use perp_core::{iteration, IterativeMethod, Status, StepResult};

/// Backtracking halvings before the step is taken anyway.
pub(super) const MAX_HALVINGS: usize = 30;
/// Length of the non-monotone memory.
pub(super) const MEMORY: usize = 5;

impl Method<'_> {
    /// Recomputes u, Φ, the Jacobian blocks and the true error at the current r.
    pub(super) fn refresh(&mut self) {
        self.blocks.velocity(&self.v.r, &self.p.q, &mut self.v.u);
        let (r, u) = (std::mem::take(&mut self.v.r), std::mem::take(&mut self.v.u));
        let (mut phi, mut jr, mut ju) =
            (std::mem::take(&mut self.v.phi), std::mem::take(&mut self.v.jr), std::mem::take(&mut self.v.ju));
        self.eval(&r, &u, &mut phi, Some((&mut jr, &mut ju)));
        (self.v.r, self.v.u, self.v.phi, self.v.jr, self.v.ju) = (r, u, phi, jr, ju);
        self.update_error();
    }

    /// [`Method::refresh`] when r is the line search's last trial point: its u, Φ and Jacobian
    /// blocks (the same computations on the same values) are taken over instead of recomputed.
    pub(super) fn refresh_from_trial(&mut self) {
        std::mem::swap(&mut self.v.u, &mut self.v.trial_u);
        std::mem::swap(&mut self.v.phi, &mut self.v.trial_phi);
        std::mem::swap(&mut self.v.jr, &mut self.v.trial_jr);
        std::mem::swap(&mut self.v.ju, &mut self.v.trial_ju);
        self.update_error();
    }

    /// The true error at the current r, and the best iterate.
    pub(super) fn update_error(&mut self) {
        self.error = self.p.error_with(self.cones, &self.v.r, &self.v.u);
        if self.error < self.best_error {
            self.v.best.clone_from(&self.v.r);
            self.best_error = self.error;
        }
    }

    /// Backtracking along `self.v.dir` from `psi0 = ½‖Φ‖²` against the non-monotone
    /// `reference`: the accepted step, else the best trial step when it decreases `psi0`
    /// (`None` when no trial step does); with it, whether it is the full step, accepted at once
    /// (its u, Φ and Jacobian blocks are then in the `trial_*` vectors: the full step is
    /// evaluated with the Jacobians, Φ being the same either way).
    pub(super) fn line_search(&mut self, psi0: f64, reference: f64) -> Option<(f64, bool)> {
        let n = self.v.r.len();
        let mut best: Option<(f64, f64)> = None;
        let take_any = !self.opts.line_search || self.went_proximal.is_some();
        // The shared backtracking (halving, at most MAX_HALVINGS trials) with this method's
        // non-monotone test `ψ(t) ≤ (1 − 2σt)·reference`, σ = 1e-4, written as before.
        let search = Backtracking { min_step: 0.0, max_trials: MAX_HALVINGS, ..Backtracking::default() };
        let found = search.search(|t| {
            for k in 0..n {
                self.v.trial[k] = self.v.r[k] + t * self.v.dir[k];
            }
            self.blocks.velocity(&self.v.trial, &self.p.q, &mut self.v.trial_u);
            let (tr, tu) = (std::mem::take(&mut self.v.trial), std::mem::take(&mut self.v.trial_u));
            let mut tphi = std::mem::take(&mut self.v.trial_phi);
            let (mut tjr, mut tju) =
                (std::mem::take(&mut self.v.trial_jr), std::mem::take(&mut self.v.trial_ju));
            // The full step, usually taken, with the Jacobians (wasted when it is refused).
            let first = t == 1.0;
            self.eval(&tr, &tu, &mut tphi, if first { Some((&mut tjr, &mut tju)) } else { None });
            let psi = Self::merit(&tphi);
            self.v.trial = tr;
            self.v.trial_u = tu;
            self.v.trial_phi = tphi;
            (self.v.trial_jr, self.v.trial_ju) = (tjr, tju);
            if psi.is_finite() && best.is_none_or(|(_, b)| psi < b) {
                best = Some((t, psi));
            }
            if psi <= (1.0 - 2e-4 * t) * reference || (take_any && psi.is_finite()) {
                Verdict::Accept
            } else {
                Verdict::Reject
            }
        });
        self.line_search_steps += found.trials();
        match found {
            Search::Accepted { step, .. } => Some((step, step == 1.0)),
            Search::Failed(_) => match best {
                Some((tb, psi)) if psi < psi0 => Some((tb, false)),
                _ => None,
            },
        }
    }
}

impl IterativeMethod for Method<'_> {
    fn initial_error(&mut self) -> Option<f64> {
        Some(self.error)
    }

    fn counters(&self) -> iteration::Counters {
        iteration::Counters {
            pivots: 0,
            factorizations: self.factorizations,
            line_search_steps: self.line_search_steps,
        }
    }

    fn last_step(&self) -> Option<f64> {
        self.last_t
    }

    fn step(&mut self) -> StepResult {
        self.last_t = None;
        let n = self.v.r.len();
        let psi0 = Self::merit(&self.v.phi);
        let reference = self.merit_memory.reference(psi0);
        match self.direction() {
            Direction::Found => {}
            Direction::Failed => {
                self.fail =
                    Some((Status::NumericalFailure, "the Newton system is singular even regularised"));
                return StepResult { error: self.error, stop: Some(Status::NumericalFailure) };
            }
            Direction::TimeLimit => {
                self.fail =
                    Some((Status::TimeLimit, "the time limit falls before the Newton system is solved"));
                return StepResult { error: self.error, stop: Some(Status::TimeLimit) };
            }
        }
        self.iterations += 1;
        let Some((t, last)) = self.line_search(psi0, reference) else {
            if self.go_proximal("the line search found no decrease of ½‖Φ‖²") {
                return StepResult::go(self.error);
            }
            self.fail = Some((Status::Stalled, "the line search found no decrease of ½‖Φ‖²"));
            return StepResult { error: self.error, stop: Some(Status::Stalled) };
        };
        self.last_t = Some(t);
        for k in 0..n {
            self.v.r[k] += t * self.v.dir[k];
        }
        if last {
            self.refresh_from_trial();
        } else {
            self.refresh();
        }
        self.merit_memory.remember(psi0);
        if self.error > 0.0 {
            self.prox_update();
        }
        StepResult::go(self.error)
    }

    /// The stagnation rule ([`super::SemismoothNewton::stall_iterations`]): no halving of the
    /// error in `stall_iterations` steps; not in prox mode from the start (`prox` itself).
    fn stall(&self) -> Option<Stall> {
        let on = self.opts.stall_iterations > 0 && self.spare.is_some();
        on.then_some(Stall {
            patience: self.opts.stall_iterations,
            test: ProgressTest::Halving,
            mark: f64::INFINITY,
        })
    }

    /// Goes on in proximal mode from the best iterate, once.
    fn on_stall(&mut self, _since: usize) -> OnStall {
        if self.go_proximal("no halving of the error in stall_iterations iterations") {
            OnStall::Switch { error: self.error }
        } else {
            OnStall::Continue
        }
    }
}
