//! One projected Newton iteration as the shared loop sees it: the ε-active set, the direction
//! and the Armijo rule along the projection arc.

use super::direction::Method;
use super::workspace::compute_w;
use super::*;
use perp_core::iteration::{Counters, IterativeMethod, StepResult};
use perp_core::line_search::{Backtracking, Search, Verdict};

impl IterativeMethod for Method<'_> {
    fn initial_error(&mut self) -> Option<f64> {
        self.error = self.p.errors(&self.ws.z, &self.ws.w).0;
        Some(self.error)
    }

    fn last_step(&self) -> Option<f64> {
        self.last_alpha
    }

    fn step(&mut self) -> StepResult {
        self.last_alpha = None;
        let eps = self.epsilon();
        self.split_active(eps);
        // Direction: Newton on F, scaled gradient on I⁺.
        if !self.ws.free.is_empty() {
            if let Err(stop) = self.free_direction() {
                return stop;
            }
        }
        if let Err(stop) = self.active_direction() {
            return stop;
        }
        let found = self.arc_search();
        self.line_search_steps += found.trials();
        if let Search::Accepted { step, .. } = found {
            self.last_alpha = Some(step);
        }
        if let Search::Failed(_) = found {
            let e = self.error;
            return self.stop(
                Status::Stalled,
                format!(
                    "the Armijo line search failed (step length below {:.0e}) at error {e:.3e}: \
                     no descent along the projection arc (tol below attainable accuracy, or M not PSD)",
                    self.prm.min_step
                ),
            );
        }
        let ws = &mut *self.ws;
        std::mem::swap(&mut ws.z, &mut ws.zt);
        std::mem::swap(&mut ws.w, &mut ws.wt);
        self.error = self.p.errors(&ws.z, &ws.w).0;
        StepResult::go(self.error)
    }

    fn counters(&self) -> Counters {
        Counters { pivots: 0, factorizations: self.factorizations, line_search_steps: self.line_search_steps }
    }
}

impl Method<'_> {
    /// ε_k = min(ε̄, ‖z − P(z − D̄ w)‖₂), D̄ = diag(r)⁻¹, which sets the ε-active set.
    fn epsilon(&self) -> f64 {
        let ws = &*self.ws;
        let mut r2 = 0.0;
        for i in 0..self.p.n() {
            let r = ws.z[i] - (ws.z[i] - ws.w[i] / ws.scale[i]).max(ws.lo[i]).min(ws.hi[i]);
            r2 += r * r;
        }
        self.prm.eps_bar.min(r2.sqrt())
    }

    /// Splits the rows into the ε-active set I⁺ (within `eps` of a bound, w pushing towards
    /// it) and the free set F, with each free row's position in F (`ws.pos`).
    fn split_active(&mut self, eps: f64) {
        let ws = &mut *self.ws;
        ws.free.clear();
        ws.active.clear();
        for i in 0..self.p.n() {
            let (z, w) = (ws.z[i], ws.w[i]);
            if (z <= ws.lo[i] + eps && w > 0.0) || (z >= ws.hi[i] - eps && w < 0.0) {
                ws.pos[i] = NOT_FREE;
                ws.active.push(i);
            } else {
                ws.pos[i] = ws.free.len();
                ws.free.push(i);
            }
        }
    }

    /// The direction on I⁺, the gradient scaled by M's diagonal (where positive); stops the
    /// loop when the whole direction is not finite.
    fn active_direction(&mut self) -> Result<(), StepResult> {
        let ws = &mut *self.ws;
        for &i in &ws.active {
            ws.d[i] = if ws.diag[i] > 0.0 { -ws.w[i] / ws.diag[i] } else { -ws.w[i] };
        }
        if let Some(i) = (0..self.p.n()).find(|&i| !ws.d[i].is_finite()) {
            let v = ws.d[i];
            return Err(self.stop(
                Status::NumericalFailure,
                format!("the Newton direction is not finite (d[{i}] = {v})"),
            ));
        }
        Ok(())
    }

    /// The Armijo rule along the projection arc z(α) = P[z + α d] (Bertsekas 1982),
    /// by the shared backtracking: the accepted point in `ws.zt`, `ws.wt`.
    fn arc_search(&mut self) -> Search {
        let n = self.p.n();
        let ws = &mut *self.ws;
        let lin: f64 = ws.free.iter().map(|&i| -ws.w[i] * ws.d[i]).sum();
        let search = Backtracking {
            sigma: self.prm.sigma,
            shrink: self.prm.beta,
            min_step: self.prm.min_step,
            ..Backtracking::default()
        };
        let (p, sigma) = (self.p, self.prm.sigma);
        search.search(|alpha| {
            for i in 0..n {
                ws.zt[i] = (ws.z[i] + alpha * ws.d[i]).max(ws.lo[i]).min(ws.hi[i]);
            }
            compute_w(p, &ws.zt, &mut ws.wt);
            // f(z) − f(z(α)) = −½ Σ sᵢ (wᵢ + wᵢ(α)) with s = z(α) − z, exact for a quadratic
            // and free of the cancellation in f(z) − f(z(α)).
            let mut decrease = 0.0;
            for i in 0..n {
                decrease -= 0.5 * (ws.zt[i] - ws.z[i]) * (ws.w[i] + ws.wt[i]);
            }
            let act: f64 = ws.active.iter().map(|&i| ws.w[i] * (ws.z[i] - ws.zt[i])).sum();
            if decrease > 0.0 && decrease >= sigma * (alpha * lin + act) {
                Verdict::Accept
            } else {
                Verdict::Reject
            }
        })
    }
}
