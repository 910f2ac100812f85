//! The Gauss–Seidel sweep and the PGS method as the shared loop sees it ([`Sweeper`]: exact
//! error checks, the proxy trigger, the proximal anchor, stagnation, the best iterate).

use super::rows::{BlockRows, Rows, BLOCK};
use super::{mid, Lcp};
use perp_core::iteration::{IterativeMethod, StepResult};
use perp_core::Status;

/// What a sweep measured.
pub(super) struct SweepInfo {
    /// `Σᵢ rᵢ²`, rᵢ the natural-map residual of row i at its visit (the proxy).
    pub(super) proxy_sq: f64,
    /// `max |Δzᵢ|`.
    pub(super) max_dz: f64,
    /// `max |zᵢ|` after the sweep.
    pub(super) max_z: f64,
}

/// The sweep parameters that do not change during a solve.
pub(super) struct SweepData<'a> {
    pub(super) q: &'a [f64],
    pub(super) lo: &'a [f64],
    pub(super) hi: &'a [f64],
    /// `ω / (Mᵢᵢ + ρ)`.
    pub(super) step: &'a [f64],
    pub(super) rho: f64,
}

/// One Gauss–Seidel sweep over the rows (no allocation).
///
/// Rows are taken in blocks of [`BLOCK`]: the block's products are computed first against z
/// with the block's own entries not yet updated, then each row adds the coupling to the rows of
/// the block already updated, `Σ_{r'<r} M[i, b₀+r'] Δz_{r'}` ([`BlockRows::correct`]), before
/// its projected update; the block's new values are stored at its end. In exact arithmetic this
/// is the Gauss–Seidel sweep row by row; the blocking lets the long products of a block overlap
/// instead of each waiting for the row before it.
#[inline(never)]
pub(super) fn sweep<R: BlockRows>(rows: &R, d: &SweepData<'_>, anchor: &[f64], z: &mut [f64]) -> SweepInfo {
    let (mut proxy_sq, mut max_dz, mut max_z) = (0.0f64, 0.0f64, 0.0f64);
    let prox = d.rho > 0.0;
    let n = z.len();
    let (mut s, mut dz, mut zn) = ([0.0; BLOCK], [0.0; BLOCK], [0.0; BLOCK]);
    for b0 in (0..n).step_by(BLOCK) {
        let len = BLOCK.min(n - b0);
        rows.dots(b0, len, z, &mut s);
        for r in 0..len {
            let i = b0 + r;
            let (lo, hi) = (d.lo[i], d.hi[i]);
            let wi = rows.correct(b0, r, &dz, s[r] + d.q[i]);
            let zi = z[i];
            let res = zi - mid(lo, hi, zi - wi);
            proxy_sq += res * res;
            let wt = if prox { wi + d.rho * (zi - anchor[i]) } else { wi };
            let znew = mid(lo, hi, zi - wt * d.step[i]);
            dz[r] = znew - zi;
            zn[r] = znew;
            max_dz = max_dz.max(dz[r].abs());
            max_z = max_z.max(znew.abs());
        }
        z[b0..b0 + len].copy_from_slice(&zn[..len]);
    }
    SweepInfo { proxy_sq, max_dz, max_z }
}

/// The PGS method as the shared loop sees it.
pub(super) struct Sweeper<'a> {
    pub(super) p: &'a Lcp,
    pub(super) rows: Rows<'a>,
    pub(super) lo: &'a [f64],
    pub(super) hi: &'a [f64],
    pub(super) step: &'a [f64],
    pub(super) z: &'a mut [f64],
    pub(super) anchor: &'a mut [f64],
    pub(super) w: &'a mut [f64],
    /// The iterate with the smallest exact error so far (kept by the loop's `keep_best`).
    pub(super) best: &'a mut [f64],
    pub(super) rho: f64,
    pub(super) inner_sweeps: usize,
    pub(super) inner_tol: f64,
    pub(super) check_every: usize,
    pub(super) tol: f64,
    /// `1/‖q‖₂` (or 1): turns the proxy into the peer's normalization.
    pub(super) q_scale: f64,
    /// The last exactly computed peer error.
    pub(super) last_exact: f64,
    pub(super) since_exact: usize,
    /// Whether the last step computed the exact error (rather than repeating the last one).
    pub(super) measured: bool,
    /// The proxy level below which an exact check is made.
    pub(super) trigger: f64,
    /// Inner sweeps since the anchor last moved (rpgs).
    pub(super) inner_count: usize,
    /// Whether the anchor equals z (it was just moved).
    pub(super) anchor_fresh: bool,
}

impl Sweeper<'_> {
    /// The peer error at z, with `w = M z + q` computed exactly as [`Lcp::solution`] does.
    fn exact_error(&mut self) -> f64 {
        self.p.m().mul_vec(self.z, self.w);
        for (wi, qi) in self.w.iter_mut().zip(self.p.q()) {
            *wi += qi;
        }
        self.since_exact = 0;
        self.last_exact = self.p.errors(self.z, self.w).0;
        self.last_exact
    }
}

impl IterativeMethod for Sweeper<'_> {
    fn initial_error(&mut self) -> Option<f64> {
        Some(self.exact_error())
    }

    fn step(&mut self) -> StepResult {
        let data = SweepData { q: self.p.q(), lo: self.lo, hi: self.hi, step: self.step, rho: self.rho };
        let info = match &self.rows {
            Rows::Dense(r) => sweep(r, &data, self.anchor, self.z),
            Rows::Csr(r) => sweep(r, &data, self.anchor, self.z),
        };
        self.since_exact += 1;
        let unchanged = info.max_dz == 0.0;
        let proxy = info.proxy_sq.sqrt() * self.q_scale;
        let proxy_says = proxy <= self.trigger || proxy.is_nan();
        self.measured = unchanged || proxy_says || self.since_exact >= self.check_every;
        if self.measured {
            let e = self.exact_error();
            if e > self.tol && proxy_says {
                self.trigger = 0.5 * proxy;
            }
        }
        let anchor_was_fresh = self.anchor_fresh;
        if self.rho > 0.0 {
            self.inner_count += 1;
            self.anchor_fresh = false;
            if self.inner_count >= self.inner_sweeps || info.max_dz <= self.inner_tol * info.max_z {
                self.anchor.copy_from_slice(self.z);
                self.inner_count = 0;
                self.anchor_fresh = true;
            }
        }
        let stalled = unchanged && self.last_exact > self.tol && (self.rho == 0.0 || anchor_was_fresh);
        StepResult { error: self.last_exact, stop: stalled.then_some(Status::Stalled) }
    }

    /// Between exact checks the step repeats the last exact error.
    fn measured(&self) -> bool {
        self.measured
    }

    /// The reported error changes only at exact checks, so a new minimum is a new smallest
    /// exact error, and z is the iterate it was computed at.
    fn keep_best(&mut self) {
        self.best.copy_from_slice(self.z);
    }

    fn restore_best(&mut self) {
        self.z.copy_from_slice(self.best);
    }
}
