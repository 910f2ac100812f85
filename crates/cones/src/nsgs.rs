//! `nsgs`: nonsmooth Gauss–Seidel over contacts.
//!
//! Moreau's algorithm (seed 003 §15–16): sweep over the contacts; at contact i freeze the
//! others, so that `u_i = W_ii r_i + b_i` with `b_i = q_i + Σ_{j≠i} W_ij r_j`, and solve this
//! one-contact problem exactly (Moreau solves it as a nearest-point problem in the kinetic
//! metric; here by the [`LocalSolver`] chosen: the closed form in 2-D, a semismooth Newton
//! on the Alart–Curnier function otherwise, or projection). Options: over/under-relaxation
//! ω, a seeded shuffle of the contact order at every sweep.
//!
//! Error: each sweep costs one pass over W; its cheap measure is the relative change
//! `‖r⁺ − r‖/‖r⁺‖`. Whenever that is below tol, and every 10 sweeps, the full Siconos error
//! (one more pass) is computed and decides; the returned report always carries the full error of the returned r.
//!
//! Prepared solves ([`FrictionSolver::solve_into`]): W's CSR copy and diagonal blocks, the
//! cone objects, the contact order and the iteration vectors are kept between calls; a call
//! on a problem of the same structure refreshes the values only and allocates nothing
//! (friction laws other than Coulomb may allocate in the local solver's error measure).

use crate::cone::{Cone, MAX_DIM};
use crate::delassus::Blocks;
use crate::local::{Local, LocalSolver};
use crate::problem::{
    message_buffer, prepare, reset_report, solve_by_into, ConeCache, FrictionContactProblem,
    FrictionSolution, FrictionSolver, Prepared,
};
use perp_core::{iteration, Error, IterativeMethod, Settings, SolveReport, StepResult};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;
use std::sync::Arc;

/// Nonsmooth Gauss–Seidel. Defaults: `LocalSolver::Auto`, ω = 1, natural order, at most 20
/// local Newton iterations, 10 000 sweeps.
#[derive(Clone, Debug)]
pub struct Nsgs {
    /// The one-contact solver.
    pub local: LocalSolver,
    /// Relaxation ω ∈ (0, 2): `r_i ← ω r_i^local + (1 − ω) r_i`.
    pub omega: f64,
    /// `Some(seed)`: visit the contacts in a fresh random order at every sweep.
    pub shuffle: Option<u64>,
    /// Iteration limit of the local solver.
    pub local_max_iter: usize,
    /// The state kept between calls to [`FrictionSolver::solve_into`] (opaque).
    pub prepared: Prepared,
}

/// What [`Nsgs`] keeps between calls.
#[derive(Default)]
struct Workspace {
    blocks: Option<Blocks>,
    cones: ConeCache,
    order: Vec<usize>,
}

impl Default for Nsgs {
    fn default() -> Self {
        Nsgs {
            local: LocalSolver::Auto,
            omega: 1.0,
            shuffle: None,
            local_max_iter: 20,
            prepared: Prepared::default(),
        }
    }
}

impl Nsgs {
    /// The default NSGS.
    pub fn new() -> Self {
        Self::default()
    }

    fn validate(&self) -> Result<(), Error> {
        if !(self.omega > 0.0 && self.omega < 2.0) {
            return Err(Error::setting("omega", self.omega, "the relaxation must lie in (0, 2)"));
        }
        if self.local_max_iter == 0 {
            return Err(Error::setting("local_max_iter", 0, "must be ≥ 1"));
        }
        Ok(())
    }
}

/// The full error is computed at least every this many sweeps (the relative change of r can
/// stay above tol while the error is far below it, e.g. when r is ~0).
const FULL_CHECK_EVERY: usize = 10;

/// Default sweep limit.
const DEFAULT_SWEEPS: usize = 10_000;

struct Method<'a> {
    opts: &'a Nsgs,
    p: &'a FrictionContactProblem,
    blocks: &'a Blocks,
    cones: &'a [Arc<dyn Cone>],
    /// Every contact has the built-in Coulomb law (its cone object is a `Coulomb`).
    coulomb: bool,
    /// The caller's buffers: the iterate, and `W r + q` when the full error is computed.
    r: &'a mut [f64],
    u: &'a mut [f64],
    order: Vec<usize>,
    rng: Option<ChaCha8Rng>,
    tol: f64,
    local_iterations: usize,
    sweeps: usize,
}

impl Method<'_> {
    fn full_error(&mut self) -> f64 {
        self.blocks.velocity(self.r, &self.p.q, self.u);
        self.p.error_with(self.cones, self.r, self.u)
    }
}

impl Method<'_> {
    /// One sweep over the contacts for `d = N`: [`Method::sweep_dyn`]'s operations in the same
    /// order on fixed-size arrays. Returns `(‖Δr‖², ‖r⁺‖²)`.
    fn sweep<const N: usize>(&mut self) -> (f64, f64) {
        let (mut change, mut size) = (0.0, 0.0);
        let omega = self.opts.omega;
        for &i in &self.order {
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
            let local =
                Local { cone: &*self.cones[i], mu: self.p.mu[i], w: wii, b: &b, coulomb: self.coulomb };
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
        let d = self.blocks.d;
        let mut wr = [0.0; MAX_DIM];
        let mut b = [0.0; MAX_DIM];
        let mut ri = [0.0; MAX_DIM];
        let (mut change, mut size) = (0.0, 0.0);
        for &i in &self.order {
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
            let local =
                Local { cone: &*self.cones[i], mu: self.p.mu[i], w: wii, b: &b[..d], coulomb: self.coulomb };
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

impl IterativeMethod for Method<'_> {
    fn initial_error(&mut self) -> Option<f64> {
        // A warm start that already solves the problem costs no sweep.
        (self.r.iter().any(|v| *v != 0.0)).then(|| self.full_error())
    }

    fn step(&mut self) -> StepResult {
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
        if light <= self.tol || self.sweeps.is_multiple_of(FULL_CHECK_EVERY) {
            StepResult::go(self.full_error())
        } else {
            StepResult::go(light)
        }
    }
}

impl FrictionSolver for Nsgs {
    fn name(&self) -> &str {
        "nsgs"
    }

    fn solve(
        &mut self,
        p: &FrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<FrictionSolution, Error> {
        solve_by_into(self, p, warm, s)
    }

    fn solve_into(
        &mut self,
        p: &FrictionContactProblem,
        warm: bool,
        r: &mut [f64],
        u: &mut [f64],
        report: &mut SolveReport,
        s: &Settings,
    ) -> Result<(), Error> {
        let mut ws = std::mem::take(self.prepared.get::<Workspace>());
        let out = self.solve_with(&mut ws, p, warm, r, u, report, s);
        *self.prepared.get::<Workspace>() = ws;
        out
    }
}

impl Nsgs {
    #[allow(clippy::too_many_arguments)] // the arguments of solve_into, plus the workspace
    fn solve_with(
        &self,
        ws: &mut Workspace,
        p: &FrictionContactProblem,
        warm: bool,
        r: &mut [f64],
        u: &mut [f64],
        report: &mut SolveReport,
        s: &Settings,
    ) -> Result<(), Error> {
        prepare(p, warm, r, u, s, &mut ws.cones)?;
        self.validate()?;
        let _ = Blocks::refresh(&mut ws.blocks, &p.w, p.dim);
        let Some(blocks) = &ws.blocks else { unreachable!("refresh fills the slot") };
        ws.order.clear();
        ws.order.extend(0..p.contacts());
        u.fill(0.0);
        let mut m = Method {
            opts: self,
            p,
            blocks,
            cones: &ws.cones.cones,
            coulomb: p.is_coulomb(),
            r,
            u,
            order: std::mem::take(&mut ws.order),
            rng: self.shuffle.map(ChaCha8Rng::seed_from_u64),
            tol: s.tol,
            local_iterations: 0,
            sweeps: 0,
        };
        let out = iteration::run(&mut m, s, DEFAULT_SWEEPS);
        reset_report(report, "nsgs");
        out.record(report);
        let _ = write!(message_buffer(report), "{} local iterations", m.local_iterations);
        let Method { r, u, order, .. } = m;
        p.solution_with(&ws.cones.cones, r, u, report, s.tol);
        ws.order = order;
        Ok(())
    }
}
