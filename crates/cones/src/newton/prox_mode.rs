//! Proximal-point mode of the Newton loop: `prox` runs in it from the start, and a Newton
//! method stalled on a local minimum of its merit goes on in it from its best iterate
//! ([`super::SemismoothNewton::stall_iterations`]). Φ is evaluated at `u + σ (r − r_ref)`.

use super::method::Method;
use super::workspace::Linear;
use super::PROX_DEFAULTS;
use crate::delassus::Blocks;

/// Parameters of the proximal-point outer loop (see [`crate::prox`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ProxParams {
    /// σ₀ relative to the largest diagonal entry of W.
    pub sigma0: f64,
    /// Factor by which σ shrinks after a quick inner solve (and grows after a slow one).
    pub nu: f64,
    /// Inner Newton iterations before the prox centre moves anyway.
    pub inner_max: usize,
}

/// Bounds of the proximal σ relative to the largest diagonal entry of W.
pub(super) const PROX_SIGMA_MIN: f64 = 1e-12;
/// The lower bound with iterative solves: below it the block-Jacobi BiCGSTAB meets Newton
/// matrices too ill-conditioned to reach their forcing terms, and prox stalls (measured on
/// generated problems of 3 000 and 10 000 contacts: at σ ≈ 10⁻⁴ max diag W the inner solves
/// took 5 iterations each without end, or BiCGSTAB failed).
pub(super) const PROX_SIGMA_MIN_ITERATIVE: f64 = 1e-3;
pub(super) const PROX_SIGMA_MAX: f64 = 1e8;

pub(super) struct ProxState {
    pub(super) params: ProxParams,
    pub(super) sigma: f64,
    pub(super) sigma_min: f64,
    pub(super) sigma_max: f64,
    pub(super) r_ref: Vec<f64>,
    /// The inner iterate with the smallest ‖Φ_σ‖ since the centre last moved, and that norm.
    pub(super) r_inner: Vec<f64>,
    pub(super) phi_inner: f64,
    /// The factor σ shrinks by after a quick inner solve: ν, its square root after each
    /// failed inner solve (so that σ does not return to where the inner Newton failed at the
    /// same pace, which repeats the same cycle).
    pub(super) nu_down: f64,
    pub(super) inner: usize,
    pub(super) phi_start: f64,
    pub(super) updates: usize,
    /// The largest σ reached.
    pub(super) sigma_peak: f64,
}

impl ProxState {
    /// The proximal state centred at r: σ = σ₀ · `w_max` within its bounds (relative to
    /// `w_max`, the larger lower bound with iterative solves), `r_ref` and `r_inner` in the
    /// storage given.
    pub(super) fn new(
        params: ProxParams,
        w_max: f64,
        iterative: bool,
        r: &[f64],
        storage: (Vec<f64>, Vec<f64>),
    ) -> Self {
        let sigma = params.sigma0 * w_max;
        let (mut r_ref, mut r_inner) = storage;
        r_ref.clear();
        r_ref.extend_from_slice(r);
        r_inner.clear();
        r_inner.extend_from_slice(r);
        ProxState {
            params,
            sigma,
            sigma_min: if iterative { PROX_SIGMA_MIN_ITERATIVE } else { PROX_SIGMA_MIN } * w_max,
            sigma_max: PROX_SIGMA_MAX * w_max,
            r_ref,
            r_inner,
            phi_inner: f64::INFINITY,
            nu_down: params.nu,
            inner: 0,
            phi_start: f64::INFINITY,
            updates: 0,
            sigma_peak: sigma,
        }
    }
}

/// `(ρ_N, ρ_T)` of every contact for the operator `W + σI`: `ρ_N = 1/(W_ii[N,N] + σ)`,
/// `ρ_T = 1/(mean diag W_ii[T,T] + σ)`, times `scale`.
#[cfg(test)]
pub(super) fn rho_for(blocks: &Blocks, nc: usize, sigma: f64, scale: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    rho_into(blocks, nc, sigma, scale, &mut out);
    out
}

/// [`rho_for`] into `out` (its storage reused).
pub(super) fn rho_into(blocks: &Blocks, nc: usize, sigma: f64, scale: f64, out: &mut Vec<(f64, f64)>) {
    let d = blocks.d;
    out.clear();
    out.extend((0..nc).map(|i| {
        let w = blocks.diag(i);
        let wn = w[0] + sigma;
        let rn = if wn > 0.0 { 1.0 / wn } else { 1.0 };
        let wt = (1..d).map(|k| w[k * d + k]).sum::<f64>() / (d - 1) as f64 + sigma;
        let rt = if wt > 0.0 { 1.0 / wt } else { rn };
        (rn * scale, rt * scale)
    }));
}

impl Method<'_> {
    /// The stagnation rule ([`SemismoothNewton::stall_iterations`]): a Newton method (not yet
    /// proximal, the rule on) continues in proximal mode from its best iterate, with `prox`'s
    /// defaults. False when it does not apply.
    pub(super) fn go_proximal(&mut self, why: &'static str) -> bool {
        if self.opts.stall_iterations == 0 || self.went_proximal.is_some() {
            return false;
        }
        let Some(storage) = self.spare.take() else { return false };
        self.went_proximal = Some((self.iterations, why));
        if self.best_error < self.error {
            self.v.r.copy_from_slice(&self.v.best);
        }
        let iterative = matches!(&*self.linear, Linear::Sparse(sj) if sj.iterative);
        let ps = ProxState::new(PROX_DEFAULTS, self.w_max, iterative, &self.v.r, storage);
        rho_into(self.blocks, self.p.contacts(), ps.sigma, self.opts.rho_scale, &mut self.rho);
        self.prox = Some(ps);
        self.merit_memory.clear();
        self.phi_prev = None;
        self.refresh();
        if let Some(ps) = &mut self.prox {
            ps.phi_start = Self::merit(&self.v.phi).sqrt();
        }
        true
    }

    /// Prox mode: moves the centre to r when the inner problem is solved well enough (‖Φ_σ‖
    /// down by 100) or after `inner_max` iterations, and adapts σ: ÷ν after a quick inner
    /// solve (≤ 2 iterations), ×ν after a slow one, within `[10⁻¹², 10⁸] · max diag W`. The
    /// Alart–Curnier ρ's follow σ: they are those of the inner operator `W + σI`.
    pub(super) fn prox_update(&mut self) {
        let nphi = Self::merit(&self.v.phi).sqrt();
        let Some(ps) = &mut self.prox else { return };
        ps.inner += 1;
        if nphi < ps.phi_inner {
            ps.phi_inner = nphi;
            ps.r_inner.copy_from_slice(&self.v.r);
        }
        let solved = nphi <= 1e-2 * ps.phi_start;
        if !(solved || ps.inner >= ps.params.inner_max) {
            return;
        }
        if !solved {
            // A failed inner solve: the centre moves to its best iterate if that one made
            // progress on the inner problem, else stays. Its last iterate need not be near a
            // solution of the subproblem (an undamped Newton iteration can cycle), and moving
            // the centre there made prox cycle too: on `friction_contact(2, 5, 298)` σ went
            // up and down by ν with the same 24 errors over and over.
            let back = if ps.phi_inner < ps.phi_start { &ps.r_inner } else { &ps.r_ref };
            self.v.r.copy_from_slice(back);
        }
        ps.phi_inner = f64::INFINITY;
        let old = ps.sigma;
        if solved && ps.inner <= 2 {
            ps.sigma = (ps.sigma / ps.nu_down).max(ps.sigma_min);
        } else if !solved {
            ps.sigma = (ps.sigma * ps.params.nu).min(ps.sigma_max);
            ps.nu_down = ps.nu_down.sqrt();
        }
        ps.sigma_peak = ps.sigma_peak.max(ps.sigma);
        ps.r_ref.copy_from_slice(&self.v.r);
        ps.inner = 0;
        ps.updates += 1;
        if ps.sigma != old {
            rho_into(self.blocks, self.p.contacts(), ps.sigma, self.opts.rho_scale, &mut self.rho);
        }
        self.merit_memory.clear();
        self.phi_prev = None;
        self.refresh();
        if let Some(ps) = &mut self.prox {
            ps.phi_start = Self::merit(&self.v.phi).sqrt();
        }
    }
}
