//! The proximal mode of the global Newton method.

/// The proximal mode (the local `prox`'s, Acary–Brémond–Huber 2018, on the global form): Φ at
/// `u + σ (r − r_ref)`; the centre moves when the inner problem's residual fell a hundredfold
/// or after 10 inner iterations (back to the best inner iterate when it did not fall), σ
/// shrinks by ν after a quick inner solve and grows by ν after a failed one, within
/// `[10⁻¹², 10⁸] · max diag W`, starting at `max diag W`.
pub(super) struct ProxState {
    pub(super) sigma: f64,
    pub(super) sigma_min: f64,
    pub(super) sigma_max: f64,
    pub(super) nu_down: f64,
    pub(super) r_ref: Vec<f64>,
    pub(super) best_inner: (f64, Vec<f64>, Vec<f64>),
    pub(super) phi_start: f64,
    pub(super) inner: usize,
}

/// ν of the proximal mode (`prox`'s default).
pub(super) const PROX_NU: f64 = 100.0;

impl ProxState {
    pub(super) fn new(r: &[f64], v: &[f64], w_max: f64) -> ProxState {
        let w = if w_max > 0.0 && w_max.is_finite() { w_max } else { 1.0 };
        ProxState {
            sigma: w,
            sigma_min: 1e-12 * w,
            sigma_max: 1e8 * w,
            nu_down: PROX_NU,
            r_ref: r.to_vec(),
            best_inner: (f64::INFINITY, r.to_vec(), v.to_vec()),
            phi_start: f64::NAN,
            inner: 0,
        }
    }

    /// After an iteration whose inner residual is `nphi`: moves the centre (and possibly
    /// resets (r, v) to the best inner iterate) and adapts σ when the inner solve is over;
    /// `true` when it did (the residual must then be evaluated again).
    pub(super) fn update(&mut self, nphi: f64, r: &mut [f64], v: &mut [f64]) -> bool {
        if self.phi_start.is_nan() {
            self.phi_start = nphi;
            return false;
        }
        self.inner += 1;
        if nphi < self.best_inner.0 {
            self.best_inner.0 = nphi;
            self.best_inner.1.copy_from_slice(r);
            self.best_inner.2.copy_from_slice(v);
        }
        let solved = nphi <= 1e-2 * self.phi_start;
        if !(solved || self.inner >= 10) {
            return false;
        }
        if !solved && self.best_inner.0 < self.phi_start {
            r.copy_from_slice(&self.best_inner.1);
            v.copy_from_slice(&self.best_inner.2);
        }
        if solved && self.inner <= 2 {
            self.sigma = (self.sigma / self.nu_down).max(self.sigma_min);
        } else if !solved {
            self.sigma = (self.sigma * PROX_NU).min(self.sigma_max);
            self.nu_down = self.nu_down.sqrt();
        }
        self.r_ref.copy_from_slice(r);
        self.best_inner.0 = f64::INFINITY;
        self.phi_start = f64::NAN;
        self.inner = 0;
        true
    }
}
