//! Time stepping: Moreau's midpoint scheme and the semi-implicit Euler of Stewart–Trinkle,
//! each with any of the contact formulations of [`crate::assembly`].
//!
//! * [`Scheme::Midpoint`] (Glocker–Studer 2005 §5; Moreau 1988 §11, §15 stages 1–3):
//!   `q_M = q_A + ½Δt u_A`; M, h and the contacts at `(q_M, t_M)`; the contacts with
//!   `g_N(q_M) ≤ 0` take part; solve for `u_E`; `q_E = q_M + ½Δt u_E`.
//! * [`Scheme::Euler`] (Stewart 2000 eq. 2.11–2.15): contacts and forces at `q^l`, a contact takes
//!   part when its predicted gap `g_N + Δt γ_N(u^l) ≤ 0` (the test `f(q^l + h v^l) < 0`,
//!   linearized), `q^{l+1} = q^l + Δt v^{l+1}`. Optionally a fixed-point iteration on
//!   `M(q^{l+1})` (§2.3) and a projection of the positions back to the admissible set (the
//!   minimal M-norm correction of the penetrating gaps, an LCP in the normal impulses).
//!
//! Every solve is warm-started from the previous step when [`StepOptions::warm_start`] is on:
//! Lemke from the previous basis (the support of the previous solution, contact by contact),
//! Newton methods from the previous iterate. [`Stats`] counts iterations (pivots for Lemke), so
//! the saving is measured by running with the option on and off.

use crate::assembly::{
    glocker_studer_lcp_into, gs_impulses_into, st_impulses_into, stewart_trinkle_lcp, tzitzouris_pang,
    Directions, LocalProblem,
};
use crate::mass::MassFactor;
use crate::system::{Bilateral, Contact, System};
use crate::trajectory::Trajectory;
use perp_catalogue::{run_chain, Family, Params, Solver};
use perp_cones::global_sap::{Compliance, Regularisation, Sap};
use perp_cones::{FrictionContactProblem, GlobalFrictionContactProblem, GlobalIpm};
use perp_core::{Error, Matrix, Settings, SolveReport, Status};

mod options;
mod output;
mod solve;
use solve::Solvers;
mod velocity;

pub use options::{Activation, Compliant, Formulation, Scheme, Stats, StepOptions, StepReport};

/// Where a pass of a step evaluates its problem: M at `q`, time `t`, forces `h` (of the
/// step's evaluation point).
#[derive(Clone, Copy)]
struct Eval<'a> {
    q: &'a [f64],
    t: f64,
    h: &'a [f64],
}

/// Steps a [`System`] in time.
pub struct Simulator<'s> {
    system: &'s dyn System,
    /// Coordinates.
    pub q: Vec<f64>,
    /// Velocities.
    pub u: Vec<f64>,
    /// Time: `t₀ + k·dt` after `k` steps from `t₀` (0, or the value last set by hand), computed
    /// so rather than summed, so that `t` after 100 000 steps of 1e-5 is 1, not 0.99999999999808.
    pub t: f64,
    /// `t₀` and `k` of `t = t₀ + k·dt`, and the `t` they gave (a `t` set by hand since then
    /// starts a new count from it).
    t_clock: (f64, usize, f64),
    dt: f64,
    opts: StepOptions,
    solver: Solver,
    /// The fallback chain ([`StepOptions::fallback`]), built once.
    fallbacks: Vec<Solver>,
    mass: Option<MassFactor>,
    /// Whether steps are solved in velocity space (the convex formulation, or a global solver
    /// of the exact cones), without forming W.
    velocity_space: bool,
    /// The velocity-space solvers, one per island of the last steps (`velocity::VelocitySolver`),
    /// kept across steps for their symbolic analyses.
    velocity: Vec<velocity::VelocitySolver>,
    /// M when it is constant and the steps are solved in velocity space.
    mass_matrix: Option<Matrix>,
    /// The last step's global problem in velocity space, whose storage the next one reuses.
    global: Option<GlobalFrictionContactProblem>,
    /// Per candidate contact: the formulation's variables at the last solve (warm start);
    /// empty when the contact was not active (the storage is kept for when it is again).
    warm: Vec<Vec<f64>>,
    /// Local dimension of each candidate contact.
    dims: Vec<usize>,
    /// Offset of each candidate contact in [`StepReport::impulses`].
    offsets: Vec<usize>,
    /// The candidate contacts, rewritten in place every step (not when the step activates
    /// from `gaps`).
    candidates: Vec<Contact>,
    /// The candidates' gaps at the step's evaluation point, when the system offers them
    /// alone ([`System::gaps_into`]) and the step activates by gap: then only the active
    /// candidates are built, into the local problem's slots ([`System::contact_into`]).
    gaps: Vec<f64>,
    /// Whether this step's active contacts were built from `gaps` (rather than swapped in
    /// from `candidates`).
    from_gaps: bool,
    /// The last step's local problem, whose storage the next step reuses.
    workspace: Option<LocalProblem>,
    /// Work vectors kept between steps: q where M, h and the contacts are evaluated, h, and
    /// the previous step's q and u (the next step's are written there).
    q_eval: Vec<f64>,
    h: Vec<f64>,
    q_spare: Vec<f64>,
    u_spare: Vec<f64>,
    /// Normal impulse of each candidate contact in the last step (0 when inactive).
    last_normal: Vec<f64>,
    /// Totals so far.
    pub stats: Stats,
    last_problem: Option<LocalProblem>,
    /// M at the configuration of `last_problem` and whether bilaterals were condensed into it.
    last_mass: Option<(Matrix, bool)>,
    /// The frictional problem, the solution vectors (r, u or z, w) and the report of the last
    /// solve, whose storage the next solve reuses (the prepared path).
    fc: Option<FrictionContactProblem>,
    fc_r: Vec<f64>,
    fc_u: Vec<f64>,
    fc_report: SolveReport,
    /// The Glocker–Studer LCP and its entry scratch, refilled in place from step to step.
    gs_lcp: Option<perp_lcp::Lcp>,
    gs_values: Vec<f64>,
    /// The step's local impulses, reused from step to step.
    impulses: Vec<f64>,
    /// Contacts of earlier local problems, no longer active, whose storage is reused.
    spare_contacts: Vec<Contact>,
    /// The free velocity that decides whether a persistent contact stays active.
    u_pred: Vec<f64>,
}

impl<'s> Simulator<'s> {
    /// A simulator at `(q0, u0)`, time 0, step `dt`. `Err` on `dt ≤ 0`, wrong lengths,
    /// non-finite state, an unknown solver or a mass matrix that is not SPD.
    pub fn new(
        system: &'s dyn System,
        q0: Vec<f64>,
        u0: Vec<f64>,
        dt: f64,
        opts: StepOptions,
    ) -> Result<Simulator<'s>, Error> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(Error::setting("dt", dt, "the time step must be a positive number"));
        }
        Error::check_len("q0", &q0, system.coords())?;
        Error::check_len("u0", &u0, system.dofs())?;
        Error::check_finite("q0", &q0)?;
        Error::check_finite("u0", &u0)?;
        opts.settings.validate()?;
        let Solvers { solver, fallbacks, velocity_space } = Solvers::new(&opts)?;
        let contacts = system.contacts(&q0, 0.0);
        for (i, c) in contacts.iter().enumerate() {
            c.validate(i, system.dofs())?;
        }
        let dims = contacts.iter().map(Contact::dim).collect::<Vec<_>>();
        let warm_len = contacts.len();
        let offsets = dims
            .iter()
            .scan(0, |off, d| {
                *off += d;
                Some(*off - d)
            })
            .collect();
        let mass = if system.constant_mass() { Some(MassFactor::new(&system.mass(&q0, 0.0))?) } else { None };
        let mass_matrix = (velocity_space && system.constant_mass()).then(|| system.mass(&q0, 0.0));
        Ok(Simulator {
            system,
            q: q0,
            u: u0,
            t: 0.0,
            t_clock: (0.0, 0, 0.0),
            dt,
            opts,
            solver,
            fallbacks,
            mass,
            velocity_space,
            velocity: Vec::new(),
            mass_matrix,
            global: None,
            warm: vec![Vec::new(); contacts.len()],
            dims,
            offsets,
            candidates: contacts,
            gaps: Vec::new(),
            from_gaps: false,
            workspace: None,
            q_eval: Vec::new(),
            h: Vec::new(),
            q_spare: Vec::new(),
            u_spare: Vec::new(),
            last_normal: vec![0.0; warm_len],
            stats: Stats::default(),
            last_problem: None,
            last_mass: None,
            fc: None,
            fc_r: Vec::new(),
            fc_u: Vec::new(),
            fc_report: SolveReport::new(""),
            gs_lcp: None,
            gs_values: Vec::new(),
            impulses: Vec::new(),
            spare_contacts: Vec::new(),
            u_pred: Vec::new(),
        })
    }

    /// The time step.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// The last non-empty contact problem, when [`StepOptions::keep_problem`] is on.
    pub fn last_problem(&self) -> Option<&LocalProblem> {
        self.last_problem.as_ref()
    }

    /// The last non-empty contact problem in global form (Siconos' and FCLIB's
    /// `GlobalFrictionContactProblem`: `M v = f + H r`, `u = Hᵀ v + b`), when
    /// [`StepOptions::keep_problem`] is on: M at the step's configuration, `H = Jᵀ` the active
    /// contacts' rows, `f = M u_free`, `b` the local problem's constant term less `J u_free`
    /// ([`LocalProblem::global_problem`]). `None` before a step with contacts; `Err` when the
    /// step condensed bilateral constraints into W (the global form has no place for them) or
    /// its contacts are not all Coulomb of one dimension.
    pub fn last_global_problem(&self) -> Option<Result<GlobalFrictionContactProblem, Error>> {
        let lp = self.last_problem.as_ref()?;
        let (m, bilaterals) = self.last_mass.as_ref()?;
        if *bilaterals {
            return Some(Err(Error::Requirement {
                solver: "global form of a step".into(),
                requirement: "a step without bilateral constraints (they are condensed into W, and the \
                              global frictional problem has no equality rows)"
                    .into(),
                suggestion: Some("harvest the step's local problem (last_problem) instead".into()),
            }));
        }
        Some(lp.global_problem(m))
    }

    /// Local dimension of each candidate contact.
    pub fn contact_dims(&self) -> &[usize] {
        &self.dims
    }

    /// The factor of M at `(q, t)`: the cached one when M is constant (no copy), else a new one
    /// left in `slot`.
    fn factor<'a>(
        &'a self,
        q: &[f64],
        t: f64,
        slot: &'a mut Option<MassFactor>,
    ) -> Result<&'a MassFactor, Error> {
        match &self.mass {
            Some(f) => Ok(f),
            None => Ok(slot.insert(MassFactor::new(&self.system.mass(q, t))?)),
        }
    }

    /// Advances one step.
    pub fn step(&mut self) -> Result<StepReport, Error> {
        let mut report = StepReport::default();
        self.step_into(&mut report)?;
        Ok(report)
    }

    /// [`Simulator::step`] written into `report`, whose storage is reused: a system stepped
    /// millions of times allocates nothing per step once its structure repeats.
    pub fn step_into(&mut self, report: &mut StepReport) -> Result<(), Error> {
        let clock = self.opts.time_steps.then(std::time::Instant::now);
        let mut impulses = std::mem::take(&mut report.impulses);
        impulses.clear();
        impulses.resize(self.dims.iter().sum(), 0.0);
        let kept_active = std::mem::take(&mut report.active);
        *report = StepReport { impulses, ..Default::default() };
        let (q_eval, t_eval, h) = self.evaluate()?;
        let mut lp = self.activate(&q_eval, t_eval, &h)?;
        let passes = self.solve_passes(&mut lp, &q_eval, t_eval, &h, report);
        self.restore_candidates(&mut lp);
        let (q_new, u_new) = passes?;
        (self.q_eval, self.h) = (q_eval, h);
        self.finish(lp, q_new, u_new, kept_active, report)?;
        if let Some(c) = clock {
            self.stats.step_seconds.push(c.elapsed().as_secs_f64());
        }
        Ok(())
    }

    /// Where the step evaluates M, h and the contacts: `q_eval` (the midpoint `q + ½Δt u`, or
    /// q) and its time, h there (checked finite), and the candidate contacts rewritten there
    /// (or only their gaps, when the system offers them and the step activates by gap).
    fn evaluate(&mut self) -> Result<(Vec<f64>, f64, Vec<f64>), Error> {
        let sys = self.system;
        let dt = self.dt;
        let mut q_eval = std::mem::take(&mut self.q_eval);
        q_eval.clone_from(&self.q);
        let t_eval = if matches!(self.opts.scheme, Scheme::Midpoint) {
            sys.integrate(&mut q_eval, &self.u, 0.5 * dt);
            self.t + 0.5 * dt
        } else {
            self.t
        };
        let mut h = std::mem::take(&mut self.h);
        h.clear();
        h.resize(sys.dofs(), 0.0);
        sys.forces(&q_eval, &self.u, t_eval, &mut h);
        Error::check_finite("h(q, u, t)", &h)?;
        // Moreau's index set at the midpoint reads the candidates' gaps alone.
        let by_gap = matches!(self.opts.scheme, Scheme::Midpoint) && self.opts.activation == Activation::Gap;
        self.from_gaps = by_gap && sys.gaps_into(&q_eval, t_eval, &mut self.gaps);
        let (what, count) = if self.from_gaps {
            ("gaps(q, t) (one per candidate)", self.gaps.len())
        } else {
            sys.contacts_into(&q_eval, t_eval, &mut self.candidates);
            ("contacts(q, t) (candidates must not change)", self.candidates.len())
        };
        if count != self.dims.len() {
            return Err(Error::dim(what, self.dims.len(), count));
        }
        Ok((q_eval, t_eval, h))
    }

    /// The step's active contacts ([`StepOptions::activation`]), moved into the local problem
    /// kept from the last step: each is swapped with a slot of that problem (no copy of its
    /// rows), and [`Simulator::restore_candidates`] swaps them back once the step is solved,
    /// so the candidates are as `contacts_into` left them; `assemble` reuses the rest.
    fn activate(&mut self, q_eval: &[f64], t_eval: f64, h: &[f64]) -> Result<LocalProblem, Error> {
        let mut lp = self.workspace.take().unwrap_or_else(LocalProblem::empty);
        lp.active.clear();
        // The free velocity, computed when a persistent contact first needs it.
        let mut u_free = std::mem::take(&mut self.u_pred);
        let moved = self.move_active(&mut lp, &mut u_free, (q_eval, t_eval, h));
        self.u_pred = u_free;
        if let Err(e) = moved {
            self.restore_candidates(&mut lp);
            return Err(e);
        }
        // Slots no longer used keep their storage for when they are again.
        self.spare_contacts.extend(lp.contacts.drain(lp.active.len()..));
        Ok(lp)
    }

    /// [`Simulator::activate`]'s selection: each active candidate checked and swapped into
    /// the next slot of `lp` (its index pushed to `lp.active`); `u_free` the free velocity
    /// once a persistent contact needs it.
    fn move_active(
        &mut self,
        lp: &mut LocalProblem,
        u_free: &mut Vec<f64>,
        (q_eval, t_eval, h): (&[f64], f64, &[f64]),
    ) -> Result<(), Error> {
        if self.from_gaps {
            return self.build_active(lp, q_eval, t_eval);
        }
        let (n, dt) = (self.system.dofs(), self.dt);
        let midpoint = matches!(self.opts.scheme, Scheme::Midpoint);
        let mut have_u_free = false;
        for i in 0..self.candidates.len() {
            let c = &self.candidates[i];
            if c.dim() != self.dims[i] {
                return Err(Error::dim(format!("contact {i}: local dimension"), self.dims[i], c.dim()));
            }
            let predicted =
                if midpoint { c.gap } else { c.gap + dt * (c.normal.dot(&self.u) + c.bias_at(0)) };
            let persists = predicted > 0.0
                && self.opts.activation == Activation::Persistent
                && self.last_normal[i] > 0.0
                && {
                    if !have_u_free {
                        let mut slot = None;
                        let f = self.factor(q_eval, t_eval, &mut slot)?;
                        u_free.clear();
                        u_free.extend(h.iter().map(|x| x * dt));
                        f.solve(u_free, n, 1);
                        u_free.iter_mut().zip(&self.u).for_each(|(a, b)| *a += b);
                        have_u_free = true;
                    }
                    let theta = if midpoint { 0.5 } else { 1.0 };
                    c.gap + theta * dt * (c.normal.dot(u_free) + c.bias_at(0)) <= 0.0
                };
            if predicted <= 0.0 || persists {
                c.validate(i, n)?;
                std::mem::swap(next_slot(lp, &mut self.spare_contacts), &mut self.candidates[i]);
                lp.active.push(i);
            }
        }
        Ok(())
    }

    /// [`Simulator::move_active`] from the candidates' gaps: each candidate with `g_N ≤ 0`
    /// built by [`System::contact_into`] in the next slot of `lp` and checked (its gap must be
    /// the one `gaps_into` gave).
    fn build_active(&mut self, lp: &mut LocalProblem, q_eval: &[f64], t_eval: f64) -> Result<(), Error> {
        let n = self.system.dofs();
        for (i, &gap) in self.gaps.iter().enumerate() {
            if gap > 0.0 {
                continue;
            }
            let c = next_slot(lp, &mut self.spare_contacts);
            self.system.contact_into(i, q_eval, t_eval, c);
            if c.gap.to_bits() != gap.to_bits() {
                return Err(Error::setting(
                    &format!("contact {i}: gap"),
                    c.gap,
                    &format!("differs from the gap {gap} that gaps(q, t) gave for this candidate"),
                ));
            }
            if c.dim() != self.dims[i] {
                return Err(Error::dim(format!("contact {i}: local dimension"), self.dims[i], c.dim()));
            }
            c.validate(i, n)?;
            lp.active.push(i);
        }
        Ok(())
    }

    /// Swaps the active contacts that [`Simulator::activate`] moved into `lp` back into the
    /// candidates (the slots' storage goes back to `lp`); nothing when they were built from
    /// the gaps.
    fn restore_candidates(&mut self, lp: &mut LocalProblem) {
        if self.from_gaps {
            return;
        }
        for (slot, &i) in lp.contacts.iter_mut().zip(&lp.active) {
            std::mem::swap(slot, &mut self.candidates[i]);
        }
    }

    /// Assembles and solves the step's contact problem and integrates q, once or, with
    /// [`Scheme::Euler`]'s fixed point, until q stops moving; returns the new (q, u).
    fn solve_passes(
        &mut self,
        lp: &mut LocalProblem,
        q_eval: &[f64],
        t_eval: f64,
        h: &[f64],
        report: &mut StepReport,
    ) -> Result<(Vec<f64>, Vec<f64>), Error> {
        let sys = self.system;
        let midpoint = matches!(self.opts.scheme, Scheme::Midpoint);
        let bil = sys.bilaterals(q_eval, t_eval);
        for (i, b) in bil.iter().enumerate() {
            b.row.check(sys.dofs(), &format!("bilateral {i}: row"))?;
        }
        let passes = match self.opts.scheme {
            Scheme::Euler { fixed_point, .. } => 1 + fixed_point,
            Scheme::Midpoint => 1,
        };
        let mut m_at = None;
        let mut q_new = std::mem::take(&mut self.q_spare);
        let mut u_new = std::mem::take(&mut self.u_spare);
        for pass in 0..passes {
            let at: &[f64] = m_at.as_deref().unwrap_or(q_eval);
            self.solve_pass(lp, Eval { q: at, t: t_eval, h }, &bil, report, &mut u_new)?;
            q_new.clear();
            q_new.extend_from_slice(q_eval);
            sys.integrate(&mut q_new, &u_new, if midpoint { 0.5 * self.dt } else { self.dt });
            sys.normalize(&mut q_new);
            if pass + 1 < passes {
                let change = q_new.iter().zip(at).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
                if pass > 0 && change <= 1e-12 * (1.0 + q_new.iter().map(|x| x.abs()).fold(0.0, f64::max)) {
                    break;
                }
                m_at = Some(q_new.clone());
            }
        }
        Ok((q_new, u_new))
    }

    /// One pass of [`Simulator::solve_passes`]: the contact problem with M at `at.q` (h and
    /// the contacts of the step's evaluation point) assembled and solved, its impulses into
    /// `report`, the new velocities into `u_new`.
    fn solve_pass(
        &mut self,
        lp: &mut LocalProblem,
        at: Eval<'_>,
        bil: &[Bilateral],
        report: &mut StepReport,
        u_new: &mut Vec<f64>,
    ) -> Result<(), Error> {
        let (sys, dt) = (self.system, self.dt);
        let mut slot = None;
        let mut r = std::mem::take(&mut self.impulses);
        r.clear();
        let factor = self.factor(at.q, at.t, &mut slot)?;
        if self.velocity_space {
            if !bil.is_empty() {
                return Err(Error::setting(
                    "bilaterals",
                    bil.len(),
                    "a step solved in velocity space (the convex and compliant formulations, a global \
                     solver) takes no bilateral constraints: the global form has no equality rows",
                ));
            }
            lp.assemble_velocity_space(factor, &self.u, at.h, dt)?;
            if lp.size() > 0 {
                // A constant M is lent out of the simulator for the solve (not copied; put
                // back on every path), the global problem copying it into its own storage.
                let constant = self.mass_matrix.take();
                let solved = match &constant {
                    Some(m) => self.solve_in_velocity_space(lp, m, report, &mut r, u_new),
                    None => self.solve_in_velocity_space(lp, &sys.mass(at.q, at.t), report, &mut r, u_new),
                };
                self.mass_matrix = constant;
                solved?;
            } else {
                u_new.clone_from(&lp.u_free);
            }
        } else {
            lp.assemble(factor, &self.u, at.h, dt, bil)?;
            if lp.size() > 0 {
                self.solve(lp, report, &mut r)?;
            }
            lp.velocity_into(&r, u_new);
        }
        Error::check_finite("u after the step", u_new)?;
        report.impulses.iter_mut().for_each(|x| *x = 0.0);
        for (a, &i) in lp.active.iter().enumerate() {
            let (o, d) = (self.offsets[i], self.dims[i]);
            report.impulses[o..o + d].copy_from_slice(&r[lp.offsets[a]..lp.offsets[a] + d]);
        }
        self.impulses = r;
        if self.opts.keep_problem && lp.size() > 0 {
            self.last_problem = Some(lp.clone());
            self.last_mass = Some((sys.mass(at.q, at.t), !bil.is_empty()));
        }
        Ok(())
    }

    /// The step's end: q projected back to the admissible set ([`Scheme::Euler`]'s `project`),
    /// the active contacts and normal impulses kept for the next step, the state and the clock
    /// advanced.
    fn finish(
        &mut self,
        lp: LocalProblem,
        mut q_new: Vec<f64>,
        u_new: Vec<f64>,
        mut kept_active: Vec<usize>,
        report: &mut StepReport,
    ) -> Result<(), Error> {
        if let Scheme::Euler { project: true, .. } = self.opts.scheme {
            self.project(&mut q_new)?;
        }
        kept_active.clone_from(&lp.active);
        report.active = kept_active;
        for (i, x) in self.last_normal.iter_mut().enumerate() {
            *x = report.impulses[self.offsets[i]];
        }
        self.workspace = Some(lp);
        self.q_spare = std::mem::replace(&mut self.q, q_new);
        self.u_spare = std::mem::replace(&mut self.u, u_new);
        let (mut t0, mut k, given) = self.t_clock;
        if self.t.to_bits() != given.to_bits() {
            (t0, k) = (self.t, 0);
        }
        k += 1;
        self.t = t0 + k as f64 * self.dt;
        self.t_clock = (t0, k, self.t);
        self.stats.steps += 1;
        Ok(())
    }

    /// [`Simulator::step`], and the step's linearization: JVP and VJP of the next `(q, u)`
    /// with respect to the current `(q, u)` and to each candidate contact's μ and normal
    /// restitution (`crate::sensitivity`). Needs the frictional formulation
    /// ([`Formulation::Cone`]) and the midpoint scheme, without position projection; `Err`
    /// otherwise, and when the step's contact problem was not solved or its solution is not
    /// locally unique.
    ///
    /// ```
    /// use perp_dynamics::{scenes, Simulator, StepOptions, System};
    /// let scene = scenes::scene("sphere-slide", None)?;
    /// let (q0, u0) = scene.initial_state();
    /// let sys: &dyn System = scene.as_ref();
    /// let mut sim = Simulator::new(sys, q0, u0, 1e-3, StepOptions::default())?;
    /// let (_, lin) = sim.step_with_sensitivity()?;
    /// let nc = sys.contacts(&sim.q, sim.t).len();
    /// // d(u⁺)/dμ: more friction slows the sliding sphere down.
    /// let (_, du) = lin.jvp(&vec![0.0; sim.q.len()], &vec![0.0; sim.u.len()], Some(&vec![1.0; nc]), None)?;
    /// assert!(du[0] * sim.u[0] < 0.0);
    /// # Ok::<(), perp_core::Error>(())
    /// ```
    pub fn step_with_sensitivity(
        &mut self,
    ) -> Result<(StepReport, crate::sensitivity::StepSensitivity<'s>), Error> {
        if !matches!(self.opts.formulation, Formulation::Cone)
            || !matches!(self.opts.scheme, Scheme::Midpoint)
        {
            return Err(Error::Requirement {
                solver: "step sensitivity".into(),
                requirement: "the frictional formulation (Formulation::Cone) with the midpoint scheme".into(),
                suggestion: Some("step the scene with --formulation cone and the midpoint scheme".into()),
            });
        }
        let (q, u, t) = (self.q.clone(), self.u.clone(), self.t);
        let report = self.step()?;
        let mut r = Vec::new();
        for &i in &report.active {
            let (o, d) = (self.offsets[i], self.dims[i]);
            r.extend_from_slice(&report.impulses[o..o + d]);
        }
        use crate::sensitivity::{StepContacts, StepSensitivity, StepStart};
        let start = StepStart { q, u, t, dt: self.dt };
        let contacts = StepContacts {
            active: report.active.clone(),
            r,
            status: report.status,
            candidates: self.dims.len(),
        };
        let lin = StepSensitivity::new(self.system, start, contacts)?;
        Ok((report, lin))
    }

    /// Moves `q` back to the admissible set: `Δ = M⁻¹ J_Nᵀ λ` with
    /// `0 ≤ λ ⊥ g + W_NN λ ≥ 0` over the penetrating contacts (solved by Lemke).
    fn project(&mut self, q: &mut [f64]) -> Result<(), Error> {
        let sys = self.system;
        let n = sys.dofs();
        let all = sys.contacts(q, self.t + self.dt);
        let pen: Vec<(usize, Contact)> = all.into_iter().enumerate().filter(|(_, c)| c.gap < 0.0).collect();
        if pen.is_empty() {
            return Ok(());
        }
        let mut slot = None;
        let factor = self.factor(q, self.t + self.dt, &mut slot)?;
        let rows: Vec<&crate::system::Row> = pen.iter().map(|(_, c)| &c.normal).collect();
        let y = crate::mass::solve_rows(factor, n, &rows);
        let w = crate::mass::delassus(&rows, &y)?;
        let g: Vec<f64> = pen.iter().map(|(_, c)| c.gap).collect();
        let lcp = perp_lcp::Lcp::new(w, g)?;
        let sol = perp_catalogue::lcp_solver("lemke")?.solve(&lcp, None, &self.opts.settings)?;
        // An unsolved projection would move q by a wrong Δ: the step fails, saying why.
        if sol.report.status != Status::Solved {
            return Err(Error::Numerical {
                solver: "lemke".into(),
                message: format!(
                    "projection of q onto the admissible set at t = {}: the LCP of {} penetrating contacts \
                     ended {} (error {:.3e})",
                    self.t + self.dt,
                    pen.len(),
                    sol.report.status,
                    sol.report.error
                ),
            });
        }
        let mut dq = vec![0.0; n];
        for (j, &l) in sol.z.iter().enumerate() {
            if l != 0.0 {
                y.axpy_column(j, l, &mut dq);
            }
        }
        sys.integrate(q, &dq, 1.0);
        sys.normalize(q);
        Ok(())
    }
}

/// The slot of `lp`'s next active contact (`lp.contacts[lp.active.len()]`), made from a
/// spare contact's storage, or a new contact, when `lp` has no such slot yet.
fn next_slot<'a>(lp: &'a mut LocalProblem, spare: &mut Vec<Contact>) -> &'a mut Contact {
    let k = lp.active.len();
    if lp.contacts.len() == k {
        let empty = || Contact::new(0.0, crate::system::Row::default(), Vec::new(), 0.0);
        lp.contacts.push(spare.pop().unwrap_or_else(empty));
    }
    &mut lp.contacts[k]
}
