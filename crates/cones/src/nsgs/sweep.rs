//! The iteration of [`Nsgs`]: [`Method`] sweeps the contacts (on fixed-size arrays for
//! d ≤ 6, or any d; colour by colour, a large colour's local solves in parallel), solves each
//! one-contact problem with [`Local`], measures the light error (the relative change of r)
//! and, when it is below tol or every [`FULL_CHECK_EVERY`] sweeps, the full one.

use super::colour::{COLOUR_CHUNK, COLOUR_MIN};
use super::Nsgs;
use crate::cone::{Cone, ConeSpec, MAX_DIM};
use crate::delassus::Blocks;
use crate::local::Local;
use crate::problem::FrictionContactProblem;
use perp_core::iteration::Outlook;
use perp_core::parallel::Par;
use perp_core::{IterativeMethod, StepResult};
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The full error is computed at least every this many sweeps (the relative change of r can
/// stay above tol while the error is far below it, e.g. when r is ~0).
const FULL_CHECK_EVERY: usize = 10;

/// The loop makes the forecast of [`Nsgs::forecast`] every this many sweeps (at a full check).
const FORECAST_EVERY: usize = 50;

/// One solve's state: the options, the problem and its blocks, the caller's buffers.
pub(super) struct Method<'a> {
    pub(super) opts: &'a Nsgs,
    pub(super) p: &'a FrictionContactProblem,
    pub(super) blocks: &'a Blocks,
    pub(super) cones: &'a [Arc<dyn Cone>],
    /// Every contact has the built-in Coulomb law (its cone object is a `Coulomb`).
    pub(super) coulomb: bool,
    /// The caller's buffers: the iterate, and `W r + q` when the full error is computed.
    pub(super) r: &'a mut [f64],
    pub(super) u: &'a mut [f64],
    pub(super) order: Vec<usize>,
    /// Colour classes of `order` (empty: one class, the serial sweep).
    pub(super) starts: &'a [usize],
    pub(super) local_r: Vec<f64>,
    pub(super) par: Par,
    pub(super) rng: Option<ChaCha8Rng>,
    pub(super) tol: f64,
    pub(super) local_iterations: usize,
    pub(super) sweeps: usize,
    /// The forecast's storage, lent to the loop ([`IterativeMethod::outlook`]) when
    /// [`Nsgs::forecast`] is on.
    pub(super) outlook: Option<Outlook>,
    /// The full error of the current r when `u` holds its `W r + q` (measured by
    /// [`Method::full_error`] and r not changed since): the answer's report takes both as they
    /// are instead of computing them again.
    pub(super) measured: Option<f64>,
    /// Every law is the built-in rolling cone: a full error also measures the physical figure
    /// ([`FrictionContactProblem::rolling_measures`]), kept in `physical` beside `measured`.
    pub(super) rolling: bool,
    /// `max|W|` (the physical figure's rounding bound).
    pub(super) w_max: f64,
    pub(super) physical: Option<f64>,
}

impl Method<'_> {
    fn full_error(&mut self) -> f64 {
        self.blocks.velocity_with(self.r, &self.p.q, self.u, &self.par);
        let e = if self.rolling {
            let (e, physical) = self.p.rolling_measures(self.r, self.u, self.w_max);
            self.physical = Some(physical);
            e
        } else {
            self.p.error_with(self.cones, self.r, self.u)
        };
        self.measured = Some(e);
        e
    }
}

impl Method<'_> {
    /// One sweep over the contacts for `d = N`: [`Method::sweep_dyn`]'s operations in the same
    /// order on fixed-size arrays. Returns `(‖Δr‖², ‖r⁺‖²)`.
    fn sweep<const N: usize>(&mut self) -> (f64, f64) {
        self.sweep_by(Self::sweep_range::<N>)
    }

    /// One sweep, its contact ranges run by `range` (the natural order in one range; with a
    /// colouring, one range per colour, a large colour in parallel when threads are allowed).
    fn sweep_by(&mut self, range: impl Fn(&mut Self, usize, usize, (f64, f64)) -> (f64, f64)) -> (f64, f64) {
        if self.starts.is_empty() {
            return range(self, 0, self.order.len(), (0.0, 0.0));
        }
        let mut acc = (0.0, 0.0);
        for c in 0..self.starts.len() - 1 {
            let (lo, hi) = (self.starts[c], self.starts[c + 1]);
            acc = if self.par.threads() > 1 && hi - lo >= COLOUR_MIN {
                self.colour_parallel(lo, hi, acc)
            } else {
                range(self, lo, hi, acc)
            };
        }
        acc
    }

    /// The contacts `order[lo..hi]` in turn, `(‖Δr‖², ‖r⁺‖²)` accumulated onto `acc`.
    fn sweep_range<const N: usize>(&mut self, lo: usize, hi: usize, acc: (f64, f64)) -> (f64, f64) {
        let (mut change, mut size) = acc;
        let omega = self.opts.omega;
        for &i in &self.order[lo..hi] {
            let s = N * i;
            let mut wr = [0.0; N];
            self.blocks.rows_times(i, self.r, &mut wr);
            let wii = self.blocks.diag(i);
            let ri_old: [f64; N] = self.r[s..s + N].try_into().unwrap_or_else(|_| unreachable!());
            let q: &[f64; N] = self.p.q[s..s + N].try_into().unwrap_or_else(|_| unreachable!());
            let mut b = [0.0; N];
            for a in 0..N {
                let mut v = q[a] + wr[a];
                for k in 0..N {
                    v -= wii[a * N + k] * ri_old[k];
                }
                b[a] = v;
            }
            let mut ri = ri_old;
            let local = Local {
                cone: &*self.cones[i],
                mu: self.p.mu[i],
                w: wii,
                b: &b,
                coulomb: self.coulomb,
                rolling: rolling_of(self.p, i),
            };
            self.local_iterations += local.solve(self.opts.local, &mut ri, self.opts.local_max_iter);
            let out = &mut self.r[s..s + N];
            for k in 0..N {
                let new = if omega == 1.0 { ri[k] } else { omega * ri[k] + (1.0 - omega) * ri_old[k] };
                change += (new - ri_old[k]).powi(2);
                size += new * new;
                out[k] = new;
            }
        }
        (change, size)
    }

    /// One sweep, any contact dimension (the reference of [`Method::sweep`]).
    fn sweep_dyn(&mut self) -> (f64, f64) {
        self.sweep_by(Self::sweep_dyn_range)
    }

    /// [`Method::sweep_range`] for any contact dimension.
    fn sweep_dyn_range(&mut self, lo: usize, hi: usize, acc: (f64, f64)) -> (f64, f64) {
        let d = self.blocks.d;
        let mut wr = [0.0; MAX_DIM];
        let mut b = [0.0; MAX_DIM];
        let mut ri = [0.0; MAX_DIM];
        let (mut change, mut size) = acc;
        for &i in &self.order[lo..hi] {
            let s = d * i;
            self.blocks.rows_times(i, self.r, &mut wr[..d]);
            let wii = self.blocks.diag(i);
            for a in 0..d {
                let mut v = self.p.q[s + a] + wr[a];
                for k in 0..d {
                    v -= wii[a * d + k] * self.r[s + k];
                }
                b[a] = v;
            }
            ri[..d].copy_from_slice(&self.r[s..s + d]);
            let local = Local {
                cone: &*self.cones[i],
                mu: self.p.mu[i],
                w: wii,
                b: &b[..d],
                coulomb: self.coulomb,
                rolling: rolling_of(self.p, i),
            };
            self.local_iterations += local.solve(self.opts.local, &mut ri[..d], self.opts.local_max_iter);
            for k in 0..d {
                let new = if self.opts.omega == 1.0 {
                    ri[k]
                } else {
                    self.opts.omega * ri[k] + (1.0 - self.opts.omega) * self.r[s + k]
                };
                change += (new - self.r[s + k]).powi(2);
                size += new * new;
                self.r[s + k] = new;
            }
        }
        (change, size)
    }
}

impl Method<'_> {
    /// The contacts `order[lo..hi]`, one colour (no two share a nonzero block of W): their
    /// local problems are built and solved in parallel from the current r, each exactly as
    /// [`Method::sweep_dyn_range`] would (a contact's `b` reads no other contact of the
    /// colour), then relaxed, accumulated and written in order on this thread. The result is
    /// `sweep_dyn_range(lo, hi, acc)`'s, bit for bit.
    fn colour_parallel(&mut self, lo: usize, hi: usize, acc: (f64, f64)) -> (f64, f64) {
        let d = self.blocks.d;
        let iterations = AtomicUsize::new(0);
        let mut local_r = std::mem::take(&mut self.local_r);
        local_r.resize((hi - lo) * d, 0.0);
        {
            let (order, r, q, blocks, cones) =
                (&self.order[lo..hi], &*self.r, &self.p.q, self.blocks, self.cones);
            let (p, mu, coulomb, opts) = (self.p, &self.p.mu, self.coulomb, self.opts);
            self.par.for_each_chunk_above(&mut local_r, COLOUR_CHUNK * d, 0, |first, piece| {
                let mut wr = [0.0; MAX_DIM];
                let mut b = [0.0; MAX_DIM];
                let mut its = 0;
                for (k, ri) in piece.chunks_mut(d).enumerate() {
                    let i = order[first / d + k];
                    let s = d * i;
                    blocks.rows_times(i, r, &mut wr[..d]);
                    let wii = blocks.diag(i);
                    for a in 0..d {
                        let mut v = q[s + a] + wr[a];
                        for k in 0..d {
                            v -= wii[a * d + k] * r[s + k];
                        }
                        b[a] = v;
                    }
                    ri.copy_from_slice(&r[s..s + d]);
                    let rolling = rolling_of(p, i);
                    let local = Local { cone: &*cones[i], mu: mu[i], w: wii, b: &b[..d], coulomb, rolling };
                    its += local.solve(opts.local, ri, opts.local_max_iter);
                }
                iterations.fetch_add(its, Ordering::Relaxed);
            });
        }
        self.local_iterations += iterations.into_inner();
        let omega = self.opts.omega;
        let (mut change, mut size) = acc;
        for (&i, ri) in self.order[lo..hi].iter().zip(local_r.chunks(d)) {
            let s = d * i;
            for k in 0..d {
                let new = if omega == 1.0 { ri[k] } else { omega * ri[k] + (1.0 - omega) * self.r[s + k] };
                change += (new - self.r[s + k]).powi(2);
                size += new * new;
                self.r[s + k] = new;
            }
        }
        self.local_r = local_r;
        (change, size)
    }
}

/// Contact `i`'s cone when its law is the rolling one (its cone object, built from the same
/// law, is this cone): the local solver then calls it directly.
#[inline]
fn rolling_of(p: &FrictionContactProblem, i: usize) -> Option<crate::Rolling> {
    match p.cones.as_deref().map(|c| &c[i]) {
        Some(ConeSpec::Rolling { mu_r }) => Some(crate::Rolling::checked(p.dim, *mu_r)),
        _ => None,
    }
}

impl IterativeMethod for Method<'_> {
    fn initial_error(&mut self) -> Option<f64> {
        // A warm start that already solves the problem costs no sweep.
        (self.r.iter().any(|v| *v != 0.0)).then(|| self.full_error())
    }

    /// Between full checks the step reports the light measure, an estimate.
    fn measured(&self) -> bool {
        self.measured.is_some()
    }

    /// The forecast of [`Nsgs::forecast`], at the full error checks.
    fn outlook(&mut self) -> Option<(&mut Outlook, usize)> {
        self.outlook.as_mut().map(|o| (o, FORECAST_EVERY))
    }

    fn step(&mut self) -> StepResult {
        self.measured = None;
        if let Some(rng) = &mut self.rng {
            self.order.shuffle(rng);
        }
        let (change, size) = match self.blocks.d {
            2 => self.sweep::<2>(),
            3 => self.sweep::<3>(),
            4 => self.sweep::<4>(),
            5 => self.sweep::<5>(),
            6 => self.sweep::<6>(),
            _ => self.sweep_dyn(),
        };
        if !size.is_finite() || !change.is_finite() {
            return StepResult::go(f64::NAN);
        }
        let light = if size > 0.0 { (change / size).sqrt() } else { change.sqrt() };
        self.sweeps += 1;
        // One contact: its local solve is the whole problem, so the first sweep may be
        // the answer (the light measure would need a second sweep to see it).
        if light <= self.tol || self.order.len() == 1 || self.sweeps.is_multiple_of(FULL_CHECK_EVERY) {
            StepResult::go(self.full_error())
        } else {
            StepResult::go(light)
        }
    }
}
