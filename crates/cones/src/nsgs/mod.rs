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
//!
//! Files: this one holds the solver, its options and its prepared solve (`solve_in`);
//! `sweep` the iteration (`Method`: the sweeps, the local problems, the error checks);
//! `colour` the colouring of the contact graph; `params` the parameters.

use crate::delassus::Blocks;
use crate::local::LocalSolver;
use crate::problem::{
    friction_solver, message_buffer, opaque_workspace, prepare, reset_report, ConeCache,
    FrictionContactProblem, FrictionSolutionMut, Measured, Prepares,
};
use colour::colour_contacts;
use perp_core::iteration::Outlook;
use perp_core::parallel::Par;
use perp_core::{iteration, Error, Settings, Status};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;
use std::time::Instant;
use sweep::Method;

mod colour;
pub mod params;
mod sweep;

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

/// Default sweep limit.
const DEFAULT_SWEEPS: usize = 10_000;

friction_solver!(Nsgs, "nsgs");

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
        out: FrictionSolutionMut<'_>,
        s: &Settings,
    ) -> Result<(), Error> {
        // One clock read for the solve's start: the loop's elapsed time and the forecast's
        // time limit count from it.
        let start = Instant::now();
        let ws: &mut Workspace = ws.get_or_insert_with(Box::default);
        let FrictionSolutionMut { r, u, report } = out;
        let w_max = ws.prepare(p, warm, r, u, s)?;
        self.validate()?;
        let par = Par::new(s.threads)?;
        ws.order_contacts(self.colouring, p.contacts());
        let Some(blocks) = &ws.blocks else { unreachable!("refresh fills the slot") };
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
            rolling: p.all_rolling(),
            w_max,
            physical: None,
        };
        let out = iteration::run_with(&mut m, s, DEFAULT_SWEEPS, start, Vec::new());
        reset_report(report, "nsgs");
        let stalled = out.status == Status::Stalled;
        out.record(report);
        let msg = message_buffer(report);
        msg.push_str(itoa::Buffer::new().format(m.local_iterations));
        msg.push_str(" local iterations");
        if let (true, Some(o)) = (stalled, &m.outlook) {
            note_given_up(msg, m.sweeps, o, s.tol);
        }
        let Method { r, u, order, local_r, outlook, measured, physical, .. } = m;
        ws.outlook = outlook.unwrap_or_default();
        match measured {
            Some(error) => {
                let m = Measured { error, w_max, physical };
                p.solution_measured_with(&ws.cones.cones, r, u, m, report, s.tol)
            }
            None => p.solution_with(&ws.cones.cones, r, u, report, s.tol),
        }
        ws.order = order;
        ws.local_r = local_r;
        Ok(())
    }
}

impl Workspace {
    /// The problem's checks and start ([`prepare`]), with W's blocks refreshed where its
    /// finiteness is checked, by the one pass that copies its values; forgets the colouring
    /// when the blocks' pattern changed. Returns max|W| (for the physical check of the
    /// answer).
    fn prepare(
        &mut self,
        p: &FrictionContactProblem,
        warm: bool,
        r: &mut [f64],
        u: &[f64],
        s: &Settings,
    ) -> Result<f64, Error> {
        let (mut new_pattern, mut w_max) = (false, 0.0);
        prepare(p, warm, r, u, s, &mut self.cones, |w| {
            let (fresh, scanned) = Blocks::refresh_scanned(&mut self.blocks, w, p.dim);
            new_pattern = fresh;
            w_max = match scanned {
                Some(m) => m,
                // Not finite: the scan's error, naming the entry.
                None => {
                    w.check_finite("W")?;
                    w.max_abs()
                }
            };
            Ok(())
        })?;
        if new_pattern {
            self.coloured = false;
        }
        Ok(w_max)
    }

    /// The order of the `contacts` in a sweep: by colour classes when `colouring` (computed
    /// once per pattern of the blocks), `0..contacts` otherwise.
    fn order_contacts(&mut self, colouring: bool, contacts: usize) {
        let Some(blocks) = &self.blocks else { unreachable!("refresh fills the slot") };
        if !colouring {
            self.order.clear();
            self.order.extend(0..contacts);
            self.starts.clear();
            self.coloured = false;
        } else if !self.coloured {
            colour_contacts(blocks, &mut self.order, &mut self.starts);
            self.coloured = true;
        }
    }
}

/// Appends to `msg` why the forecast gave up at sweep `sweeps`: the sweeps that the rate of
/// the recent ones (`outlook`) says the tolerance `tol` still needs.
fn note_given_up(msg: &mut String, sweeps: usize, outlook: &Outlook, tol: f64) {
    let more = outlook.needed(tol).unwrap_or(f64::INFINITY);
    let _ = write!(
        msg,
        "; given up at sweep {}: at the rate of the recent sweeps the tolerance needs {} more",
        sweeps,
        if !more.is_finite() {
            "infinitely many".into()
        } else if more < 1e6 {
            format!("~{more:.0}")
        } else {
            format!("~{more:.0e}")
        }
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cone::ConeSpec;
    use crate::problem::{FrictionSolution, FrictionSolver};
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

    /// W's finiteness is checked by the pass that refreshes its blocks: on the prepared path
    /// (same pattern, values copied) a NaN or an infinity is still refused, with the error
    /// `validate` gives (the entry named), before q's; a finite W afterwards solves as a fresh
    /// solver does. Dense and sparse W, Coulomb and rolling laws.
    #[test]
    fn a_non_finite_w_is_refused_on_the_prepared_path() {
        let s = Settings::default();
        let vals = [2.0, 0.5, 0.0, 0.5, 1.5, 0.25, 0.0, 0.25, 1.0];
        for sparse in [false, true] {
            for rolling in [false, true] {
                // W with entry k (row-major; a stored one) set to v (the constructors refuse
                // non-finite values, a caller's edit of the public field does not).
                let mat = |k: usize, v: f64| {
                    let t: Vec<_> =
                        (0..9).filter(|&k| vals[k] != 0.0).map(|k| (k / 3, k % 3, vals[k])).collect();
                    let mut m = Matrix::from_triplets(3, 3, &t).unwrap();
                    if !sparse {
                        m = Matrix::Dense(m.to_dense());
                    }
                    match &mut m {
                        Matrix::Dense(d) => d[(k / 3, k % 3)] = v,
                        Matrix::Sparse(c) => {
                            let at = t.iter().position(|e| (e.0, e.1) == (k / 3, k % 3)).unwrap();
                            c.data_mut()[at] = v;
                        }
                    }
                    m
                };
                let mut p =
                    FrictionContactProblem::new(3, mat(0, 2.0), vec![-1.0, 0.3, 0.2], vec![0.4]).unwrap();
                if rolling {
                    p = p.with_cones(vec![ConeSpec::Rolling { mu_r: 0.1 }]).unwrap();
                }
                let mut sv = Nsgs::default();
                let mut sol = FrictionSolution::zeros(3);
                sv.solve_into(&p, false, sol.view_mut(), &s).unwrap();
                assert_eq!(sol.report.status, Status::Solved);
                for (k, bad) in [(4, f64::NAN), (1, f64::INFINITY), (8, f64::NEG_INFINITY)] {
                    p.w = mat(k, bad);
                    let want = p.validate().unwrap_err().to_string();
                    assert!(want.contains('W'), "{want}");
                    let e = sv.solve_into(&p, false, sol.view_mut(), &s).unwrap_err();
                    assert_eq!(e.to_string(), want, "sparse {sparse} rolling {rolling} entry {k}");
                    // Before q's check, as validate orders them.
                    p.q[1] = f64::NAN;
                    let e = sv.solve_into(&p, false, sol.view_mut(), &s).unwrap_err();
                    assert_eq!(e.to_string(), want);
                    p.q[1] = 0.3;
                }
                p.w = mat(0, 2.0);
                sv.solve_into(&p, false, sol.view_mut(), &s).unwrap();
                let fresh = Nsgs::default().solve(&p, None, &s).unwrap();
                assert_eq!(sol.report.status, Status::Solved);
                assert_eq!(
                    (sol.r.clone(), sol.report.error.to_bits()),
                    (fresh.r, fresh.report.error.to_bits())
                );
            }
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
