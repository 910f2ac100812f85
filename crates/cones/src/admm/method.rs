//! ADMM's kept workspace and one solve's state and iteration (the [`IterativeMethod`]).

use super::*;

/// What [`Admm`] keeps between calls to [`FrictionSolver::solve_into`]: W's CSR copy, the cone
/// objects, the factorization's storage and the iteration vectors. Opaque;
/// `Workspace::default()` is empty (the next solve prepares afresh), and a clone is empty.
#[derive(Default)]
pub struct Workspace {
    pub(super) blocks: Option<Blocks>,
    pub(super) cones: ConeCache,
    pub(super) linear: Linear,
    /// z, ẑ, z_k, ξ, ξ̂, ξ_k, q_s, scratch, best r.
    pub(super) vecs: [Vec<f64>; 9],
}

opaque_workspace!(Workspace);

/// Indices into [`Workspace::vecs`] used by name (the others are destructured in order).
pub(super) const QS: usize = 6;
pub(super) const BEST: usize = 8;

pub(super) struct Method<'a> {
    pub(super) opts: &'a Admm,
    pub(super) p: &'a FrictionContactProblem,
    pub(super) blocks: &'a Blocks,
    pub(super) cones: &'a [Arc<dyn Cone>],
    pub(super) coulomb: bool,
    pub(super) linear: &'a mut Linear,
    pub(super) r: &'a mut [f64],
    pub(super) u: &'a mut [f64],
    pub(super) v: &'a mut [Vec<f64>; 9],
    pub(super) rho: f64,
    pub(super) rho_lo: f64,
    pub(super) rho_hi: f64,
    pub(super) refactor: bool,
    pub(super) tau_k: f64,
    pub(super) e_k: f64,
    pub(super) rho_changes: usize,
    pub(super) restarts: usize,
    pub(super) steps: usize,
    /// ρ is rescaled by the residuals' ratio after the first iteration ([`FirstRescale`]).
    pub(super) first_rescale: bool,
    /// [`DIVERGED`] times the problem's force scale (‖q‖ over the mean diagonal of W, or the
    /// warm start's ‖r‖ when larger; ∞ when both are 0): an iterate beyond it has run off.
    pub(super) r_bound: f64,
    /// Set when an iterate passed `r_bound`.
    pub(super) diverged: bool,
}

/// How far past the problem's force scale an iterate may go before ADMM declares that it
/// diverged. At a large μ the De Saxcé shift taken from every iterate's velocity
/// ([`Shift::Velocity`]) can drive the iterates off geometrically (W = I-like data at
/// μ = 1e3: ‖r‖ ≈ 1e51 after the 20 000 iterations, while the peer measure, relative to ‖r‖,
/// reads 2e-9); a converging run stays within a few times the scale.
pub(super) const DIVERGED: f64 = 1e15;

impl Method<'_> {
    /// `u = W r + q`, the shift for the next iteration, and the error at r.
    pub(super) fn velocity_and_error(&mut self) -> f64 {
        self.blocks.velocity(self.r, &self.p.q, self.u);
        if self.opts.shift == Shift::Multiplier {
            // ũ = −ρξ at a fixed point (see `Shift`).
            let [_, _, _, xi, _, _, qs, tmp, _] = &mut *self.v;
            for k in 0..tmp.len() {
                tmp[k] = -self.rho * xi[k];
            }
            shifted_q(self.p, self.cones, self.coulomb, tmp, qs);
        } else {
            shifted_q(self.p, self.cones, self.coulomb, self.u, &mut self.v[QS]);
        }
        self.p.error_with(self.cones, self.r, self.u)
    }
}

/// The residuals of one ADMM update and the squared norms the residual balancing scales them
/// by.
struct Residuals {
    /// ‖r⁺ − z⁺‖.
    primal: f64,
    /// ρ ‖ẑ − z⁺‖.
    dual: f64,
    /// ‖r⁺‖².
    nr: f64,
    /// ‖z⁺‖².
    nz: f64,
    /// ‖ξ⁺‖².
    nxi: f64,
}

impl Method<'_> {
    /// One ADMM update from (ẑ, ξ̂): r⁺ = (W + ρI)⁻¹ (−q_s + ρ (ẑ − ξ̂)) (factoring W + ρI
    /// first when ρ changed), z⁺ = P_K(r⁺ + ξ̂), ξ⁺ = ξ̂ + r⁺ − z⁺, and its residuals; `None`
    /// when the factorization or the solve fails.
    fn update(&mut self) -> Option<Residuals> {
        let rho = self.rho;
        if self.refactor {
            if !self.linear.factor(self.blocks, rho) {
                return None;
            }
            self.refactor = false;
        }
        let [z, z_hat, _, xi, xi_hat, _, qs, tmp, _] = &mut *self.v;
        // r⁺ = (W + ρI)⁻¹ (−q_s + ρ (ẑ − ξ̂))
        for k in 0..self.r.len() {
            self.r[k] = -qs[k] + rho * (z_hat[k] - xi_hat[k]);
        }
        if !self.linear.solve(self.r) {
            return None;
        }
        // z⁺ = P_K(r⁺ + ξ̂)
        for k in 0..tmp.len() {
            tmp[k] = self.r[k] + xi_hat[k];
        }
        project_all(self.cones, &self.p.mu, self.p.dim, tmp, z);
        // ξ⁺ = ξ̂ + r⁺ − z⁺; residuals.
        let (mut primal, mut dual, mut nr, mut nz, mut nxi) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for k in 0..z.len() {
            let d = self.r[k] - z[k];
            xi[k] = xi_hat[k] + d;
            primal += d * d;
            dual += (z_hat[k] - z[k]).powi(2);
            nr += self.r[k] * self.r[k];
            nz += z[k] * z[k];
            nxi += xi[k] * xi[k];
        }
        Some(Residuals { primal: primal.sqrt(), dual: rho * dual.sqrt(), nr, nz, nxi })
    }

    /// The next (ẑ, ξ̂): extrapolated when the combined residual `e` fell enough, restarted
    /// from the previous iterate otherwise (Goldstein et al. 2014, §4.3); the new iterate
    /// itself without acceleration.
    fn accelerate(&mut self, e: f64) {
        let [z, z_hat, z_k, xi, xi_hat, xi_k, ..] = &mut *self.v;
        if self.opts.acceleration && e < self.opts.eta * self.e_k {
            let tau = 0.5 * (1.0 + (1.0 + 4.0 * self.tau_k * self.tau_k).sqrt());
            let alpha = (self.tau_k - 1.0) / tau;
            for k in 0..z.len() {
                z_hat[k] = z[k] + alpha * (z[k] - z_k[k]);
                xi_hat[k] = xi[k] + alpha * (xi[k] - xi_k[k]);
            }
            self.tau_k = tau;
            self.e_k = e;
        } else if self.opts.acceleration {
            self.tau_k = 1.0;
            self.e_k /= self.opts.eta;
            z_hat.copy_from_slice(z_k);
            xi_hat.copy_from_slice(xi_k);
            self.restarts += 1;
        } else {
            z_hat.copy_from_slice(z);
            xi_hat.copy_from_slice(xi);
        }
    }

    /// Residual balancing on the scaled residuals `res`, after the first step (with
    /// [`Method::first_rescale`]) and every `adapt_every` steps: ρ moves towards the larger
    /// residual, and the scaled multiplier ξ = λ/ρ follows it.
    fn balance_rho(&mut self, res: &Residuals) {
        let rho = self.rho;
        let first = self.first_rescale && self.steps == 1;
        if self.opts.strategy != RhoStrategy::Balancing
            || !(first || self.steps.is_multiple_of(self.opts.adapt_every))
        {
            return;
        }
        let rs = res.primal / res.nr.sqrt().max(res.nz.sqrt()).max(f64::MIN_POSITIVE);
        let ss = res.dual / (rho * res.nxi.sqrt()).max(f64::MIN_POSITIVE);
        let new = if first && (rs > self.opts.phi * ss || ss > self.opts.phi * rs) {
            // OSQP's rule (Stellato et al. 2020 §5.2).
            (rho * (rs / ss).sqrt()).clamp(self.rho_lo, self.rho_hi)
        } else if rs > self.opts.phi * ss {
            (rho * self.opts.tau).min(self.rho_hi)
        } else if ss > self.opts.phi * rs {
            (rho / self.opts.tau).max(self.rho_lo)
        } else {
            rho
        };
        if new != rho {
            // The scaled multiplier ξ = λ/ρ follows ρ.
            let [_, _, _, xi, xi_hat, ..] = &mut *self.v;
            let ratio = rho / new;
            for k in 0..xi.len() {
                xi[k] *= ratio;
                xi_hat[k] *= ratio;
            }
            self.rho = new;
            self.refactor = true;
            self.rho_changes += 1;
        }
    }
}

impl IterativeMethod for Method<'_> {
    fn initial_error(&mut self) -> Option<f64> {
        Some(self.velocity_and_error())
    }

    fn step(&mut self) -> StepResult {
        let Some(res) = self.update() else {
            return StepResult::go(f64::NAN);
        };
        let e = res.primal * res.primal + res.dual * res.dual;
        self.accelerate(e);
        self.steps += 1;
        self.balance_rho(&res);
        let [z, _, z_k, xi, _, xi_k, ..] = &mut *self.v;
        z_k.copy_from_slice(z);
        xi_k.copy_from_slice(xi);
        let error = self.velocity_and_error();
        if res.nr.sqrt() > self.r_bound {
            self.diverged = true;
            return StepResult { error, stop: Some(Status::NumericalFailure) };
        }
        StepResult::go(error)
    }

    fn counters(&self) -> Counters {
        Counters { factorizations: self.linear.factorizations, ..Counters::default() }
    }

    fn keep_best(&mut self) {
        self.v[BEST].copy_from_slice(self.r);
    }

    fn restore_best(&mut self) {
        self.r.copy_from_slice(&self.v[BEST]);
    }
}
