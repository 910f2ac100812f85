//! The Newton direction: the regularised Newton matrix `D_r + D_u (W + σ_k I)` (module docs of
//! [`super`]), solved by a dense LU (on the contacts not taking off: [`reduced_direction`]),
//! the sparse LU, or BiCGSTAB to an Eisenstat–Walker forcing term, with growing diagonal
//! shifts when a system fails.

use super::method::Method;
use super::workspace::Linear;
use super::{LinearSolver, AUTO_MIN_N, FLOP_RATE};
use crate::cone::MAX_DIM;
use perp_core::linear::KrylovStop;
use std::time::Instant;

/// Eisenstat–Walker forcing terms (choice 2): `η₀`, `γ`, `α`, the largest η and the smallest.
/// `η₀ = η_max = 0.1` rather than Eisenstat and Walker's 0.5 and 0.9: prox judges its inner
/// solves by their Newton iterations (≤ 2 is quick, and σ shrinks), which crude first
/// directions never are; with 0.5/0.9 prox kept σ at its start on 4 of 6 generated problems
/// of 3 000 and 10 000 contacts and did not converge in 200 iterations.
pub(super) const ETA0: f64 = 0.1;
pub(super) const EW_GAMMA: f64 = 0.9;
pub(super) const EW_ALPHA: f64 = 2.0;
pub(super) const ETA_MAX: f64 = 0.1;
pub(super) const ETA_MIN: f64 = 1e-10;

/// What [`Method::direction`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Direction {
    Found,
    /// Even the regularised systems failed.
    Failed,
    /// The time limit falls before the system can be solved.
    TimeLimit,
}

impl Method<'_> {
    /// The shifts σ_b of the Newton matrix `D_r + D_u (W + diag(σ))`, one per component b of
    /// a contact: the proximal σ (the exact Jacobian of the inner problem) in prox mode, plus
    /// the regularisation `c w̄_b min(1, e_k)` (module docs; `w̄_b` = [`Method::reg_scale`]).
    pub(super) fn jacobian_shifts(&self) -> [f64; MAX_DIM] {
        let e = if self.error.is_finite() { self.error.min(1.0) } else { 1.0 };
        self.reg_scale.map(|w| {
            let reg = self.opts.regularization * w * e;
            match &self.prox {
                Some(ps) => ps.sigma + reg,
                None => reg,
            }
        })
    }

    /// The forcing term of an iteration at `‖Φ_k‖ = nphi`: Eisenstat & Walker (1996), *SIAM
    /// J. Sci. Comput.* 17(1), choice 2 (eq. 2.6 with the safeguard of §2.3):
    /// `η_k = γ (‖Φ_k‖ / ‖Φ_{k−1}‖)^α`, raised to `γ η_{k−1}^α` when that exceeds 0.1, within
    /// `[η_min, η_max]`; `η₀` at the first iteration (and after a prox update).
    pub(super) fn forcing_term(&mut self, nphi: f64) -> f64 {
        let eta = match self.phi_prev {
            Some(prev) if prev > 0.0 => {
                let mut e = EW_GAMMA * (nphi / prev).powf(EW_ALPHA);
                let guard = EW_GAMMA * self.eta.powf(EW_ALPHA);
                if guard > 0.1 {
                    e = e.max(guard);
                }
                e
            }
            _ => ETA0,
        };
        self.phi_prev = Some(nphi);
        let eta = if eta.is_finite() { eta.clamp(ETA_MIN, ETA_MAX) } else { ETA_MAX };
        self.eta = eta;
        eta
    }

    /// Newton direction into `self.v.dir`.
    pub(super) fn direction(&mut self) -> Direction {
        self.shift_rows();
        let eta = self.direction_forcing();
        if let Err(stop) = self.check_factor_time() {
            return stop;
        }
        // The regularizations' scale, computed only when the plain system fails.
        let mut scale = None;
        for eps_k in 0..4 {
            let eps = if eps_k == 0 {
                0.0
            } else {
                let scale = *scale.get_or_insert_with(|| {
                    self.v.jr_eff.iter().chain(&self.v.ju).fold(1.0_f64, |m, v| m.max(v.abs()))
                });
                scale * 10f64.powi(-12 + 3 * eps_k)
            };
            let iterative = matches!(&*self.linear, Linear::Sparse(sj) if sj.iterative);
            let ok = match self.solve_once(eps, eta) {
                Ok(ok) => ok,
                Err(stop) => return stop,
            };
            let accepted = if iterative { self.inexact_ok(eta) } else { self.residual_ok(eps > 0.0) };
            if ok && accepted {
                if eps > 0.0 {
                    self.regularized += 1;
                }
                return Direction::Found;
            }
        }
        Direction::Failed
    }

    /// The rows of J_r as the direction sees them: `jr_eff = jr + s ∘ ju`, with the shifts of
    /// [`Self::jacobian_shifts`] on each contact's components.
    fn shift_rows(&mut self) {
        let d = self.p.dim;
        let shifts = self.jacobian_shifts();
        let rows =
            self.v.jr_eff.chunks_exact_mut(d).zip(self.v.jr.chunks_exact(d)).zip(self.v.ju.chunks_exact(d));
        for ((e, a), b) in rows {
            for k in 0..d {
                e[k] = a[k] + shifts[k] * b[k];
            }
        }
    }

    /// The forcing term η of this direction: the Krylov solves' tolerance, which only a
    /// sparse J can switch to ([`Self::forcing_term`] of ‖Φ‖); a dense J is solved directly
    /// and does not need it (η_max).
    fn direction_forcing(&mut self) -> f64 {
        match &*self.linear {
            Linear::Sparse(_) => {
                let nphi = self.v.phi.iter().map(|v| v * v).sum::<f64>().sqrt();
                self.forcing_term(nphi)
            }
            Linear::Dense(_) => ETA_MAX,
        }
    }

    /// Does not start a sparse factorization predicted to end after the time limit: switches
    /// to the Krylov solves instead, or stops with [`Direction::TimeLimit`] when the options
    /// ask for a direct solve.
    fn check_factor_time(&mut self) -> Result<(), Direction> {
        let n = self.v.r.len();
        if let Linear::Sparse(sj) = &mut *self.linear {
            if !sj.iterative && self.deadline.is_some() && n >= AUTO_MIN_N {
                let predicted = sj.cost().map_or(0.0, |c| c.flops / FLOP_RATE);
                if !fits_before(Instant::now(), predicted, self.deadline) {
                    if self.opts.linear == LinearSolver::Direct {
                        return Err(Direction::TimeLimit);
                    }
                    sj.iterative = true;
                    self.switched_for_time = true;
                }
            }
        }
        Ok(())
    }

    /// One solve of `J Δ = −Φ` with the regularization `eps` into `self.v.dir`: by the Krylov
    /// solver (to the forcing term `eta`) or a factorization; whether it succeeded, or
    /// [`Direction::TimeLimit`] when the Krylov solve reached the deadline.
    fn solve_once(&mut self, eps: f64, eta: f64) -> Result<bool, Direction> {
        let (n, d) = (self.v.r.len(), self.p.dim);
        Ok(match &mut *self.linear {
            Linear::Sparse(sj) if sj.iterative => {
                sj.assemble(d, &self.v.jr_eff, &self.v.ju);
                // b = −Φ, in the storage of W Δ (unused by the sparse residual check).
                for k in 0..n {
                    self.v.wd[k] = -self.v.phi[k];
                }
                match sj.solve_iterative(d, eps, &self.v.wd, &mut self.v.dir, eta, self.deadline) {
                    None => false,
                    Some(out) => {
                        self.krylov_iterations += out.iterations;
                        if out.stop == KrylovStop::Deadline {
                            return Err(Direction::TimeLimit);
                        }
                        true
                    }
                }
            }
            Linear::Sparse(sj) => {
                self.factorizations += 1;
                for k in 0..n {
                    self.v.dir[k] = -self.v.phi[k];
                }
                sj.assemble(d, &self.v.jr_eff, &self.v.ju);
                sj.solve(eps, &mut self.v.dir)
            }
            Linear::Dense(dj) => {
                self.factorizations += 1;
                for k in 0..n {
                    self.v.dir[k] = -self.v.phi[k];
                }
                dj.solve(d, &self.v.jr_eff, &self.v.ju, &self.v.phi, eps, &mut self.v.dir)
            }
        })
    }

    /// An inexact Newton direction (Eisenstat & Walker 1996, eq. 1.2): `‖J Δ + Φ‖ ≤ η_max ‖Φ‖`
    /// (a descent direction of ½‖Φ‖²), counted as short when it misses `η ‖Φ‖`.
    pub(super) fn inexact_ok(&mut self, eta: f64) -> bool {
        let mut jd = std::mem::take(&mut self.v.jd);
        if let Linear::Sparse(sj) = &*self.linear {
            sj.mul(&self.v.dir, &mut jd);
        }
        let res: f64 = jd.iter().zip(&self.v.phi).map(|(a, b)| (a + b) * (a + b)).sum::<f64>().sqrt();
        let nphi = self.v.phi.iter().map(|v| v * v).sum::<f64>().sqrt();
        self.v.jd = jd;
        if res > eta * nphi * (1.0 + 1e-8) {
            self.short_directions += 1;
        }
        res <= ETA_MAX * nphi
    }

    /// `‖J Δ + Φ‖ ≤ 1e-6 ‖Φ‖` (the solve was accurate), or, for a regularised system, at
    /// least a descent direction of ½‖Φ‖² (`Φᵀ J Δ < 0`).
    pub(super) fn residual_ok(&mut self, regularized: bool) -> bool {
        let mut jd = std::mem::take(&mut self.v.jd);
        match &mut *self.linear {
            Linear::Sparse(sj) => sj.mul(&self.v.dir, &mut jd),
            Linear::Dense(dj) => dj.mul(self.p.dim, &self.v.dir, &self.v.phi, &mut jd),
        }
        let res: f64 = jd.iter().zip(&self.v.phi).map(|(a, b)| (a + b) * (a + b)).sum::<f64>().sqrt();
        let nphi = self.v.phi.iter().map(|v| v * v).sum::<f64>().sqrt();
        let slope: f64 = jd.iter().zip(&self.v.phi).map(|(a, b)| a * b).sum();
        self.v.jd = jd;
        res <= 1e-6 * nphi.max(f64::MIN_POSITIVE) || (regularized && slope < 0.0)
    }
}

/// Whether work predicted to take `predicted` seconds, started at `now`, ends before
/// `deadline` (always without one).
pub(super) fn fits_before(now: Instant, predicted: f64, deadline: Option<Instant>) -> bool {
    match deadline {
        None => true,
        Some(t) => {
            let left = t.saturating_duration_since(now).as_secs_f64();
            predicted.is_finite() && predicted < left
        }
    }
}
