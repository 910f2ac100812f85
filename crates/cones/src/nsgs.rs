//! `nsgs`: nonsmooth Gauss–Seidel over contacts.
//!
//! Moreau's algorithm (Moreau 1988 §15–16): sweep over the contacts; at contact i freeze the
//! others, so that `u_i = W_ii r_i + b_i` with `b_i = q_i + Σ_{j≠i} W_ij r_j`, and solve this
//! one-contact problem exactly (Moreau solves it as a nearest-point problem in the kinetic
//! metric; here by the [`LocalSolver`] chosen: the closed form in 2-D, a semismooth Newton
//! on the Alart–Curnier function otherwise, or projection). Options: over/under-relaxation
//! ω, a seeded shuffle of the contact order at every sweep, or a colouring of the contact
//! graph whose colour classes are swept in parallel (below).
//!
//! **Colouring** (`colouring`): the contacts are visited colour by colour, in the order of a
//! deterministic greedy colouring of the graph of W's nonzero blocks ([`colour_contacts`]).
//! Within a colour no contact reads another's r, so their local solves run on
//! `Settings::threads` workers (a colour of fewer than 128 contacts runs inline) and the answer is the same, bit for bit, for any thread count.
//!
//! Error: each sweep costs one pass over W; its cheap measure is the relative change
//! `‖r⁺ − r‖/‖r⁺‖`. Whenever that is below tol, and every 10 sweeps, the full Siconos error
//! (one more pass) is computed and decides; the returned report always carries the full error of the returned r.
//!
//! Prepared solves ([`FrictionSolver::solve_into`]): W's CSR copy and diagonal blocks, the
//! cone objects, the contact order and the iteration vectors are kept between calls; a call
//! on a problem of the same structure refreshes the values only and allocates nothing
//! (friction laws other than Coulomb may allocate in the local solver's error measure).

use crate::cone::{Cone, ConeSpec, MAX_DIM};
use crate::delassus::Blocks;
use crate::local::{Local, LocalSolver};
use crate::problem::{
    message_buffer, opaque_workspace, prepare, reset_report, ConeCache, FrictionContactProblem,
    FrictionSolver, Out, Prepares,
};
use perp_core::iteration::Outlook;
use perp_core::parallel::Par;
use perp_core::{iteration, Error, IterativeMethod, Settings, SolveReport, Status, StepResult};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

pub mod params;

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
    /// Visit the contacts colour by colour ([`colour_contacts`]): contacts of one colour
    /// share no nonzero block of W, so their local solves run in parallel over
    /// `Settings::threads`, with the same answer for any thread count (the coloured order is
    /// used for one thread too). Incompatible with `shuffle`. Default off: the natural order.
    pub colouring: bool,
    /// Give up early ([`Status::Stalled`]) when the rate of the
    /// recent sweeps cannot reach the tolerance within the sweep limit or the time limit
    /// ([`Outlook`]): a pile with redundant contacts converges ever more slowly, and its
    /// last thousands of sweeps would not reach the tolerance anyway. Default on.
    pub forecast: bool,
    /// What is kept between calls to [`FrictionSolver::solve_into`] (boxed, made at the
    /// first solve).
    pub workspace: Option<Box<Workspace>>,
}

/// What [`Nsgs`] keeps between calls to [`FrictionSolver::solve_into`]: W's CSR copy and
/// diagonal blocks, the cone objects, the contact order and the iteration vectors. Opaque;
/// `Workspace::default()` is empty (the next solve prepares afresh), and a clone is empty.
#[derive(Default)]
pub struct Workspace {
    blocks: Option<Blocks>,
    cones: ConeCache,
    order: Vec<usize>,
    /// The colour classes (`order[starts[c]..starts[c + 1]]`) of the blocks' pattern, when
    /// computed for it.
    starts: Vec<usize>,
    coloured: bool,
    /// Scratch of the parallel colour sweep: the contacts' local answers.
    local_r: Vec<f64>,
    /// The full errors measured so far (the early give-up of [`Nsgs::forecast`]).
    outlook: Outlook,
}

opaque_workspace!(Workspace);

impl Default for Nsgs {
    fn default() -> Self {
        Nsgs {
            local: params::LOCAL,
            omega: params::OMEGA,
            shuffle: params::SHUFFLE,
            local_max_iter: params::LOCAL_MAX_ITER,
            colouring: params::COLOURING,
            forecast: params::FORECAST,
            workspace: None,
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
        if self.colouring {
            if let Some(seed) = self.shuffle {
                return Err(Error::setting(
                    "shuffle",
                    seed,
                    "the coloured order is fixed: turn shuffle off (0) or colouring off",
                ));
            }
        }
        Ok(())
    }
}

/// The full error is computed at least every this many sweeps (the relative change of r can
/// stay above tol while the error is far below it, e.g. when r is ~0).
const FULL_CHECK_EVERY: usize = 10;

/// Default sweep limit.
const DEFAULT_SWEEPS: usize = 10_000;

/// The loop makes the forecast of [`Nsgs::forecast`] every this many sweeps (at a full check).
const FORECAST_EVERY: usize = 50;

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
    /// Colour classes of `order` (empty: one class, the serial sweep).
    starts: &'a [usize],
    local_r: Vec<f64>,
    par: Par,
    rng: Option<ChaCha8Rng>,
    tol: f64,
    local_iterations: usize,
    sweeps: usize,
    /// The forecast's storage, lent to the loop ([`IterativeMethod::outlook`]) when
    /// [`Nsgs::forecast`] is on.
    outlook: Option<Outlook>,
    /// The full error of the current r when `u` holds its `W r + q` (measured by
    /// [`Method::full_error`] and r not changed since): the answer's report takes both as they
    /// are instead of computing them again.
    measured: Option<f64>,
}

impl Method<'_> {
    fn full_error(&mut self) -> f64 {
        self.blocks.velocity_with(self.r, &self.p.q, self.u, &self.par);
        let e = self.p.error_with(self.cones, self.r, self.u);
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

/// Contacts per chunk of a colour's parallel local solves (fixed: the chunking does not
/// depend on the thread count).
const COLOUR_CHUNK: usize = 64;

/// A colour of fewer contacts is swept inline (same arithmetic): a local solve costs about
/// a microsecond, entering the pool a few.
const COLOUR_MIN: usize = 128;

/// A greedy colouring of the contact graph of `blocks` (contacts `i ≠ j` conflict when
/// `W_ij` or `W_ji` has a stored entry), in index order: contact i takes the smallest colour
/// none of its lower-numbered neighbours has (Jones–Plassmann-style greedy; any proper
/// colouring makes the contacts of one colour independent in a Gauss–Seidel sweep, as in
/// parallel Gauss–Seidel solvers, e.g. Adams 2001, "A distributed memory unstructured
/// Gauss–Seidel algorithm for multigrid smoothers"). Writes the contacts sorted by
/// (colour, index) into `order` and the class boundaries into `starts`
/// (`order[starts[c]..starts[c + 1]]` has colour c). Deterministic: depends on the pattern
/// only.
pub(crate) fn colour_contacts(blocks: &Blocks, order: &mut Vec<usize>, starts: &mut Vec<usize>) {
    let d = blocks.d;
    let nc = blocks.csr.rows() / d;
    let ip = blocks.csr.indptr();
    let ip = ip.raw_storage();
    let idx = blocks.csr.indices();
    // Symmetric neighbour lists (sorted, deduplicated).
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for i in 0..nc {
        for &col in &idx[ip[d * i]..ip[d * i + d]] {
            let j = col / d;
            if j != i {
                edges.push((i, j));
                edges.push((j, i));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    let mut first = vec![0usize; nc + 1];
    for &(i, _) in &edges {
        first[i + 1] += 1;
    }
    for i in 0..nc {
        first[i + 1] += first[i];
    }
    let mut colour = vec![usize::MAX; nc];
    let mut seen: Vec<usize> = Vec::new();
    let mut colours = 0;
    for i in 0..nc {
        for &(_, j) in &edges[first[i]..first[i + 1]] {
            if j < i {
                seen[colour[j]] = i;
            }
        }
        let c = (0..colours).find(|&c| seen[c] != i).unwrap_or(colours);
        if c == colours {
            colours += 1;
            seen.push(usize::MAX);
        }
        colour[i] = c;
    }
    starts.clear();
    starts.resize(colours + 1, 0);
    for &c in &colour {
        starts[c + 1] += 1;
    }
    for c in 0..colours {
        starts[c + 1] += starts[c];
    }
    let mut next = starts[..colours].to_vec();
    order.clear();
    order.resize(nc, 0);
    for (i, &c) in colour.iter().enumerate() {
        order[next[c]] = i;
        next[c] += 1;
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

impl FrictionSolver for Nsgs {
    fn name(&self) -> &str {
        "nsgs"
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
        self.solve_prepared(p, warm, Out { r, u, report }, s)
    }
}

impl Prepares for Nsgs {
    // Boxed: the slot, a pointer, moves in and out of the solver around a solve, not the
    // workspace (a one-contact solve is a microsecond, and moving the workspace cost a few
    // percent of it).
    type Workspace = Option<Box<Workspace>>;
    const DEFAULT_MAX_ITER: usize = DEFAULT_SWEEPS;

    fn workspace(&mut self) -> &mut Option<Box<Workspace>> {
        &mut self.workspace
    }

    fn solve_in(
        &self,
        ws: &mut Option<Box<Workspace>>,
        p: &FrictionContactProblem,
        warm: bool,
        out: Out<'_>,
        s: &Settings,
    ) -> Result<(), Error> {
        // One clock read for the solve's start: the loop's elapsed time and the forecast's
        // time limit count from it.
        let start = Instant::now();
        let ws: &mut Workspace = ws.get_or_insert_with(Box::default);
        let Out { r, u, report } = out;
        prepare(p, warm, r, u, s, &mut ws.cones)?;
        self.validate()?;
        let par = Par::new(s.threads)?;
        if Blocks::refresh(&mut ws.blocks, &p.w, p.dim) {
            ws.coloured = false;
        }
        let Some(blocks) = &ws.blocks else { unreachable!("refresh fills the slot") };
        if !self.colouring {
            ws.order.clear();
            ws.order.extend(0..p.contacts());
            ws.starts.clear();
            ws.coloured = false;
        } else if !ws.coloured {
            colour_contacts(blocks, &mut ws.order, &mut ws.starts);
            ws.coloured = true;
        }
        let outlook = std::mem::take(&mut ws.outlook);
        let mut m = Method {
            opts: self,
            p,
            blocks,
            cones: &ws.cones.cones,
            coulomb: p.is_coulomb(),
            r,
            u,
            order: std::mem::take(&mut ws.order),
            starts: &ws.starts,
            local_r: std::mem::take(&mut ws.local_r),
            par,
            rng: self.shuffle.map(ChaCha8Rng::seed_from_u64),
            tol: s.tol,
            local_iterations: 0,
            sweeps: 0,
            outlook: self.forecast.then_some(outlook),
            measured: None,
        };
        let out = iteration::run_with(&mut m, s, DEFAULT_SWEEPS, start, Vec::new());
        reset_report(report, "nsgs");
        let stalled = out.status == Status::Stalled;
        out.record(report);
        let msg = message_buffer(report);
        msg.push_str(itoa::Buffer::new().format(m.local_iterations));
        msg.push_str(" local iterations");
        if let (true, Some(o)) = (stalled, &m.outlook) {
            let more = o.needed(s.tol).unwrap_or(f64::INFINITY);
            let _ = write!(
                msg,
                "; given up at sweep {}: at the rate of the recent sweeps the tolerance needs {} more",
                m.sweeps,
                if !more.is_finite() {
                    "infinitely many".into()
                } else if more < 1e6 {
                    format!("~{more:.0}")
                } else {
                    format!("~{more:.0e}")
                }
            );
        }
        let Method { r, u, order, local_r, outlook, measured, .. } = m;
        ws.outlook = outlook.unwrap_or_default();
        match measured {
            Some(error) => p.solution_measured(&ws.cones.cones, r, u, error, report, s.tol),
            None => p.solution_with(&ws.cones.cones, r, u, report, s.tol),
        }
        ws.order = order;
        ws.local_r = local_r;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perp_core::Matrix;

    #[test]
    fn one_contact_is_solved_by_one_sweep() {
        // W = I, q = (−1, 2, 0), μ = 0.5: the contact slides, r = (1, −0.5, 0),
        // u = (0, 1.5, 0). Its local solve is the whole problem, so one sweep suffices and
        // the full error is measured after it (the light measure would need a second).
        let w = Matrix::from_triplets(3, 3, &[(0, 0, 1.0), (1, 1, 1.0), (2, 2, 1.0)]).unwrap();
        let p = FrictionContactProblem::new(3, w, vec![-1.0, 2.0, 0.0], vec![0.5]).unwrap();
        let s = Settings { tol: 1e-12, ..Settings::default() };
        let sol = Nsgs::default().solve(&p, None, &s).unwrap();
        assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report);
        assert_eq!(sol.report.iterations, 1);
        for (a, b) in sol.r.iter().zip([1.0, -0.5, 0.0]) {
            assert!((a - b).abs() <= 1e-14, "r = {:?}", sol.r);
        }
    }

    #[test]
    fn colouring_is_proper_greedy_and_covers_every_contact_once() {
        // Five 2-D contacts: 0–1, 1–2, 2–0 coupled (a triangle), 3 alone, 4 coupled to 0 only
        // through W_40 (an unsymmetric pattern still conflicts both ways).
        let mut t = Vec::new();
        for i in 0..10 {
            t.push((i, i, 2.0));
        }
        for (a, b) in [(0, 1), (1, 2), (2, 0)] {
            t.push((2 * a, 2 * b, 0.5));
            t.push((2 * b, 2 * a, 0.5));
        }
        t.push((8, 1, 0.25));
        let blocks = Blocks::new(&Matrix::from_triplets(10, 10, &t).unwrap(), 2);
        let (mut order, mut starts) = (Vec::new(), Vec::new());
        colour_contacts(&blocks, &mut order, &mut starts);
        // Greedy in index order: 0 → 0, 1 → 1, 2 → 2, 3 → 0, 4 → 1 (neighbour 0 has colour 0).
        assert_eq!(order, vec![0, 3, 1, 4, 2]);
        assert_eq!(starts, vec![0, 2, 4, 5]);
    }
}
