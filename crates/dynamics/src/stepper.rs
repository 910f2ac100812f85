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
use crate::system::{Contact, System};
use crate::trajectory::Trajectory;
use perp_catalogue::{run_chain, Family, Params, Solver};
use perp_cones::global_sap::{Compliance, Regularisation, Sap};
use perp_cones::{FrictionContactProblem, GlobalFrictionContactProblem, GlobalIpm};
use perp_core::{Error, Matrix, Settings, SolveReport, Status};

/// The time discretization.
#[derive(Clone, Debug)]
pub enum Scheme {
    /// Moreau's midpoint scheme.
    Midpoint,
    /// Stewart–Trinkle semi-implicit Euler.
    Euler {
        /// Fixed-point iterations on `M(q^{l+1})` (0: M at `q^l`).
        fixed_point: usize,
        /// Project positions back onto the admissible set after each step.
        project: bool,
    },
}

/// How the contact problem of a step is posed and solved.
#[derive(Clone, Debug)]
pub enum Formulation {
    /// Glocker–Studer planar LCP (Glocker–Studer 2005 eq. 33); LCP solver (default `lemke`).
    GlockerStuder,
    /// Stewart–Trinkle LCP with polyhedral cones (Stewart 2000 eq. 2.16); LCP solver.
    StewartTrinkle(Directions),
    /// The frictional contact problem with the exact cones; frictional solver (default `prox`).
    Cone,
    /// The Tzitzouris–Pang NCP (Trinkle–Tzitzouris–Pang 2001 §4); NCP solver (default `bdiff-newton`).
    TzitzourisPang,
    /// Anitescu's convex relaxation of the exact cones (the cone complementarity problem that
    /// Chrono steps; Anitescu 2006), solved in velocity space by the interior-point method
    /// (`perp_cones::GlobalIpm::convex`) without forming W. Coulomb's law loses its De Saxcé
    /// term: a sliding contact separates at the normal velocity `μ‖u_T‖` instead of staying on
    /// the surface (a box sliding at speed s rises at μ s); sticking and separated contacts
    /// are as in [`Formulation::Cone`]. Coulomb contacts of one dimension, no bilaterals.
    Convex,
    /// SAP's compliant point contact (Castro, Permenter, Han, IEEE T-RO 2022) stepped in
    /// velocity space: each step minimises SAP's regularised convex cost in the velocities
    /// ([`perp_cones::Sap`], Newton with a sparse Cholesky of `M + Jᵀ G J`, W never formed),
    /// warm-started from the step's initial velocity. A contact's normal impulse is
    /// `δt (−k φ − k τ_d v_N)₊` within the cone, bounded by SAP's near-rigid limit; the
    /// penetration is a model output, not an error. Coulomb contacts of dimension 2 or 3 only;
    /// no restitution (the compliance models the impact) and no bilateral constraints. The
    /// solver is SAP whatever [`StepOptions::solver`] says; fallbacks are not used. `Solved`
    /// means SAP's optimality criterion at the step's tolerance (see [`perp_cones::global_sap`]).
    Compliant(Compliant),
}

/// The contact parameters of [`Formulation::Compliant`] (the same for every contact).
#[derive(Clone, Debug, PartialEq)]
pub struct Compliant {
    /// Normal stiffness k (force per length, > 0). Default `+∞`: SAP's near-rigid contact,
    /// `R_n = β²/(4π²) w` (the stiffest contact the step resolves, period β·δt).
    pub stiffness: f64,
    /// Dissipation time scale τ_d (time, ≥ 0; damping `k τ_d`). `None` (the default): the time
    /// step, so that a penetration φ is pushed out at `−φ/(2δt)` (`v̂_N = −φ₀/(δt + τ_d)`).
    pub dissipation_time_scale: Option<f64>,
    /// SAP's near-rigid threshold β (default 1, Drake's; > 0 when k is infinite).
    pub beta: f64,
    /// SAP's tangential regularisation σ (default 10⁻³, Drake's): stiction creeps by about
    /// `σ w |γ_T|`.
    pub sigma: f64,
}

impl Default for Compliant {
    fn default() -> Self {
        Compliant {
            stiffness: f64::INFINITY,
            dissipation_time_scale: None,
            beta: perp_cones::global_sap::DEFAULT_BETA,
            sigma: perp_cones::global_sap::DEFAULT_SIGMA,
        }
    }
}

impl Formulation {
    /// The solver used when none is named.
    pub fn default_solver(&self) -> &'static str {
        match self {
            Formulation::GlockerStuder | Formulation::StewartTrinkle(_) => "lemke",
            Formulation::Cone => "prox",
            Formulation::TzitzourisPang => "bdiff-newton",
            Formulation::Convex => "global-ipm",
            Formulation::Compliant(_) => "sap",
        }
    }

    /// A fallback chain for [`StepOptions::fallback`] (`perp simulate --fallback default`):
    /// for the exact cones the proximal-point method, then the Alart–Curnier Newton method;
    /// Lemke then PGS for the LCPs; bdiff-newton then fb-newton for the NCP. The chosen
    /// solver is skipped in its own chain.
    pub fn default_fallback(&self) -> &'static [&'static str] {
        match self {
            // Not pgs: these LCPs have zero diagonal entries, which it refuses.
            Formulation::GlockerStuder | Formulation::StewartTrinkle(_) => &["lemke", "bdiff-newton"],
            Formulation::Cone => &["prox", "ac-newton"],
            Formulation::TzitzourisPang => &["bdiff-newton", "fb-newton"],
            Formulation::Convex => &[],
            Formulation::Compliant(_) => &[],
        }
    }

    /// What the formulation is, in a few words, with `perp simulate --formulation`'s key:
    /// `cone (exact friction cones)`, `st (Stewart–Trinkle LCP, 8 directions)` …
    ///
    /// ```
    /// use perp_dynamics::{Directions, Formulation};
    /// assert_eq!(Formulation::StewartTrinkle(Directions::Uniform(8)).describe(), "st (Stewart–Trinkle LCP, 8 directions)");
    /// assert_eq!(Formulation::Cone.describe(), "cone (exact friction cones)");
    /// ```
    pub fn describe(&self) -> String {
        match self {
            Formulation::GlockerStuder => "gs (Glocker–Studer LCP)".into(),
            Formulation::StewartTrinkle(Directions::Uniform(m)) => {
                format!("st (Stewart–Trinkle LCP, {m} directions)")
            }
            Formulation::StewartTrinkle(Directions::Custom(_)) => {
                "st (Stewart–Trinkle LCP, the scene's directions)".into()
            }
            Formulation::Cone => "cone (exact friction cones)".into(),
            Formulation::TzitzourisPang => "tp (Tzitzouris–Pang NCP)".into(),
            Formulation::Convex => "convex (Anitescu's relaxation, in velocity space)".into(),
            Formulation::Compliant(_) => "compliant (SAP's regularised contact)".into(),
        }
    }

    /// The catalogue family of the solvers that take this formulation's problems.
    pub fn family(&self) -> Family {
        match self {
            Formulation::GlockerStuder | Formulation::StewartTrinkle(_) => Family::Lcp,
            // The compliant formulation's impulses are frictional; its solver (SAP) is not a
            // catalogue entry.
            Formulation::Cone | Formulation::Convex | Formulation::Compliant(_) => Family::Friction,
            Formulation::TzitzourisPang => Family::Mcp,
        }
    }
}

/// Which candidate contacts take part in a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Activation {
    /// Moreau's index set: `g_N(q_M) ≤ 0` (midpoint), `g_N + Δt γ_N(u^l) ≤ 0` (Euler).
    ///
    /// On curved surfaces the linearized step leaves a resolved contact open by the
    /// curvature error (`~1e-6`), so a resting body loses the contact for one step and
    /// sinks `g Δt²` before the next impact catches it.
    #[default]
    Gap,
    /// [`Activation::Gap`], and a contact that carried a normal impulse in the previous step
    /// stays while the free motion closes it within the step: `g_N + θΔt γ_N(u_free) ≤ 0`,
    /// `u_free = u + Δt M⁻¹h`, θ = ½ (midpoint) or 1 (Euler). A kept contact with a small
    /// positive gap holds the body there (it hovers by that gap) rather than dropping it.
    Persistent,
}

/// Options of a [`Simulator`].
#[derive(Clone, Debug)]
pub struct StepOptions {
    /// Time discretization.
    pub scheme: Scheme,
    /// Contact formulation.
    pub formulation: Formulation,
    /// Solver name from the catalogue (`None`: the formulation's default).
    pub solver: Option<String>,
    /// The solver's parameters (`perp_catalogue::Params`; default: every default).
    pub params: Params,
    /// Solver settings (default tol 1e-10).
    pub settings: Settings,
    /// Warm-start each solve from the previous step.
    pub warm_start: bool,
    /// Keep the last step's [`LocalProblem`] (see [`Simulator::last_problem`]), e.g. to
    /// harvest benchmark problems from a scene.
    pub keep_problem: bool,
    /// Which contacts take part in a step.
    pub activation: Activation,
    /// Solvers (catalogue names of the formulation's family, default parameters) tried in
    /// turn when a step's solve does not end `Solved`, each warm-started from the best answer
    /// so far, with the step's tolerance and their own default iteration limits; the best
    /// answer (smallest error) is kept when none succeeds, and its status and error are
    /// reported. Default: none ([`Formulation::default_fallback`] suggests one; the Newton
    /// methods' sparse factorizations make it expensive on thousands of contacts).
    pub fallback: Vec<String>,
    /// Wall-clock budget of one step's solves, all attempts together (each attempt's time
    /// limit is what is left of it, or the settings' own limit when smaller); `None`:
    /// unlimited. A time limit makes runs depend on the machine's speed.
    pub step_budget: Option<std::time::Duration>,
    /// Record each step's wall-clock time in [`Stats::step_seconds`] (off by default: two
    /// clock readings a step cost about 10 % of a step of the woodpecker).
    pub time_steps: bool,
}

impl StepOptions {
    /// Switches to the formulation `f` (e.g. a scene's options run with another method): a
    /// chosen solver of another family gives way, with its parameters, to `f`'s default
    /// solver, and when the family changes the fallback chain becomes `f`'s default chain
    /// ([`Formulation::default_fallback`]): a scene's chain was chosen for its own method.
    ///
    /// ```
    /// use perp_dynamics::{Directions, Formulation, StepOptions};
    /// let mut o = StepOptions { solver: Some("nsgs".into()), ..StepOptions::default() };
    /// o.set_formulation(Formulation::StewartTrinkle(Directions::Uniform(8)));
    /// assert_eq!((o.solver, o.fallback), (None, vec!["lemke".to_string(), "bdiff-newton".to_string()]));
    /// ```
    pub fn set_formulation(&mut self, f: Formulation) {
        let changed = f.family() != self.formulation.family();
        self.formulation = f;
        let names = perp_catalogue::names(self.formulation.family());
        if self.solver.as_deref().is_some_and(|s| !names.contains(&s)) {
            self.solver = None;
            self.params = Params::new();
        }
        if changed || self.fallback.iter().any(|s| !names.contains(&s.as_str())) {
            self.fallback = self.formulation.default_fallback().iter().map(|s| s.to_string()).collect();
        }
        // The convex and compliant formulations have one method each and no fallback chain.
        if matches!(self.formulation, Formulation::Convex | Formulation::Compliant(_)) {
            if self.solver.as_deref() != Some("global-ipm")
                || matches!(self.formulation, Formulation::Compliant(_))
            {
                self.solver = None;
                self.params = Params::new();
            }
            self.fallback.clear();
        }
    }
}

impl Default for StepOptions {
    fn default() -> Self {
        StepOptions {
            scheme: Scheme::Midpoint,
            formulation: Formulation::Cone,
            solver: None,
            params: Params::new(),
            settings: Settings { tol: 1e-10, ..Settings::default() },
            warm_start: true,
            keep_problem: false,
            activation: Activation::Gap,
            fallback: Vec::new(),
            step_budget: None,
            time_steps: false,
        }
    }
}

/// What one step did.
#[derive(Clone, Debug, Default)]
pub struct StepReport {
    /// Active contacts (candidate indices).
    pub active: Vec<usize>,
    /// Size of the solved problem (0 when no contact was active).
    pub size: usize,
    /// Solver iterations (pivots for Lemke).
    pub iterations: usize,
    /// Matrix factorizations of the step's solves (where the time of the velocity-space
    /// and Newton solvers goes: one a Newton or interior-point iteration).
    pub factorizations: usize,
    /// The solver's status (`None` when nothing was solved).
    pub status: Option<Status>,
    /// The solver's error measure.
    pub error: f64,
    /// Local impulses per candidate contact (zeros when inactive), concatenated.
    pub impulses: Vec<f64>,
    /// Solvers run on the step's problem (1 when the chosen one succeeded; more when the
    /// fallback chain of [`StepOptions::fallback`] was used).
    pub attempts: usize,
}

/// Totals over a run.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Steps taken.
    pub steps: usize,
    /// Contact problems solved (steps with an active contact, times fixed-point passes).
    pub solves: usize,
    /// Total solver iterations (pivots).
    pub iterations: usize,
    /// Total matrix factorizations of the solves.
    pub factorizations: usize,
    /// Solves whose status was not `Solved`, after the fallback chain.
    pub unsolved: usize,
    /// Solves where the chosen solver failed and the fallback chain ran (whether or not it
    /// then succeeded).
    pub fallbacks: usize,
    /// Of those, the solves a fallback solver solved.
    pub rescued: usize,
    /// Worst error measure over the solves.
    pub max_error: f64,
    /// Largest problem size.
    pub max_size: usize,
    /// Wall-clock seconds of each step, when [`StepOptions::time_steps`] is on.
    pub step_seconds: Vec<f64>,
}

/// Where a contact's variables sit in the solver's vector: `start + stride·j`, `j < len`.
struct Slots {
    start: usize,
    stride: usize,
    len: usize,
}

impl Slots {
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len).map(|j| self.start + self.stride * j)
    }
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
    /// The interior-point method on the convex relaxation ([`Formulation::Convex`]).
    convex: Option<GlobalIpm>,
    /// M when it is constant and the steps are solved in velocity space.
    mass_matrix: Option<Matrix>,
    /// Per candidate contact: the formulation's variables at the last solve (warm start);
    /// empty when the contact was not active (the storage is kept for when it is again).
    warm: Vec<Vec<f64>>,
    /// Local dimension of each candidate contact.
    dims: Vec<usize>,
    /// Offset of each candidate contact in [`StepReport::impulses`].
    offsets: Vec<usize>,
    /// The candidate contacts, rewritten in place every step.
    candidates: Vec<Contact>,
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
    /// SAP, kept across steps (its sparse Cholesky's analysis), for [`Formulation::Compliant`].
    sap: Option<Box<Sap>>,
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
        let compliant = matches!(opts.formulation, Formulation::Compliant(_));
        let name = if compliant {
            // SAP solves the compliant formulation; the catalogue's slot holds an unused
            // frictional solver.
            "prox".to_string()
        } else {
            opts.solver.clone().unwrap_or_else(|| opts.formulation.default_solver().into())
        };
        let solver = perp_catalogue::build(opts.formulation.family(), &name, &opts.params)?;
        let fallbacks = opts
            .fallback
            .iter()
            .filter(|n| **n != name && !compliant)
            .map(|n| perp_catalogue::build(opts.formulation.family(), n, &Params::new()))
            .collect::<Result<Vec<_>, _>>()?;
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
        // Velocity space: the convex and compliant formulations, or a global solver of the
        // exact cones.
        let convex = matches!(opts.formulation, Formulation::Convex);
        if convex && name != "global-ipm" {
            return Err(Error::setting(
                "solver",
                &name,
                "the convex formulation is solved by global-ipm (its interior-point method on the relaxation)",
            ));
        }
        let velocity_space = convex || compliant || matches!(solver, Solver::Global(_));
        if velocity_space && !fallbacks.is_empty() {
            return Err(Error::setting(
                "fallback",
                opts.fallback.join(","),
                "a step solved in velocity space takes no fallback chain yet",
            ));
        }
        let mass_matrix = (velocity_space && system.constant_mass()).then(|| system.mass(&q0, 0.0));
        let convex = convex.then(GlobalIpm::convex);
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
            convex,
            mass_matrix,
            warm: vec![Vec::new(); contacts.len()],
            dims,
            offsets,
            candidates: contacts,
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
            sap: None,
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
        let sys = self.system;
        let (n, dt) = (sys.dofs(), self.dt);
        let mut impulses = std::mem::take(&mut report.impulses);
        impulses.clear();
        impulses.resize(self.dims.iter().sum(), 0.0);
        let mut kept_active = std::mem::take(&mut report.active);
        *report = StepReport { impulses, ..Default::default() };
        let midpoint = matches!(self.opts.scheme, Scheme::Midpoint);
        let mut q_eval = std::mem::take(&mut self.q_eval);
        q_eval.clone_from(&self.q);
        let t_eval = if midpoint {
            sys.integrate(&mut q_eval, &self.u, 0.5 * dt);
            self.t + 0.5 * dt
        } else {
            self.t
        };
        let mut h = std::mem::take(&mut self.h);
        h.clear();
        h.resize(n, 0.0);
        sys.forces(&q_eval, &self.u, t_eval, &mut h);
        Error::check_finite("h(q, u, t)", &h)?;
        sys.contacts_into(&q_eval, t_eval, &mut self.candidates);
        if self.candidates.len() != self.dims.len() {
            return Err(Error::dim(
                "contacts(q, t) (candidates must not change)",
                self.dims.len(),
                self.candidates.len(),
            ));
        }
        // The active contacts are copied into the local problem kept from the last step
        // (clone_from reuses their rows' storage; `assemble` reuses the rest).
        let mut lp = self.workspace.take().unwrap_or_else(LocalProblem::empty);
        let (active, contacts) = (&mut lp.active, &mut lp.contacts);
        active.clear();
        // The free velocity, computed when a persistent contact first needs it.
        let (mut u_free, mut have_u_free) = (std::mem::take(&mut self.u_pred), false);
        for (i, c) in self.candidates.iter().enumerate() {
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
                        let f = self.factor(&q_eval, t_eval, &mut slot)?;
                        u_free.clear();
                        u_free.extend(h.iter().map(|x| x * dt));
                        f.solve(&mut u_free, n, 1);
                        u_free.iter_mut().zip(&self.u).for_each(|(a, b)| *a += b);
                        have_u_free = true;
                    }
                    let theta = if midpoint { 0.5 } else { 1.0 };
                    c.gap + theta * dt * (c.normal.dot(&u_free) + c.bias_at(0)) <= 0.0
                };
            if predicted <= 0.0 || persists {
                c.validate(i, n)?;
                match contacts.get_mut(active.len()) {
                    Some(slot) => slot.clone_from(c),
                    None => contacts.push(match self.spare_contacts.pop() {
                        Some(mut slot) => {
                            slot.clone_from(c);
                            slot
                        }
                        None => c.clone(),
                    }),
                }
                active.push(i);
            }
        }
        // Contacts no longer active keep their storage for when they are again.
        self.spare_contacts.extend(contacts.drain(active.len()..));
        self.u_pred = u_free;
        let bil = sys.bilaterals(&q_eval, t_eval);
        for (i, b) in bil.iter().enumerate() {
            b.row.check(n, &format!("bilateral {i}: row"))?;
        }
        let passes = match self.opts.scheme {
            Scheme::Euler { fixed_point, .. } => 1 + fixed_point,
            Scheme::Midpoint => 1,
        };
        let mut m_at = None;
        let mut q_new = std::mem::take(&mut self.q_spare);
        let mut u_new = std::mem::take(&mut self.u_spare);
        for pass in 0..passes {
            let mut slot = None;
            let mut r = std::mem::take(&mut self.impulses);
            r.clear();
            let factor = self.factor(m_at.as_deref().unwrap_or(&q_eval), t_eval, &mut slot)?;
            if self.velocity_space {
                if !bil.is_empty() {
                    return Err(Error::setting(
                        "bilaterals",
                        bil.len(),
                        "a step solved in velocity space (the convex and compliant formulations, a global \
                         solver) takes no bilateral constraints: the global form has no equality rows",
                    ));
                }
                lp.assemble_velocity_space(factor, &self.u, &h, dt)?;
                if lp.size() > 0 {
                    let at: &[f64] = m_at.as_deref().unwrap_or(q_eval.as_slice());
                    let m = match &self.mass_matrix {
                        Some(m) => m.clone(),
                        None => sys.mass(at, t_eval),
                    };
                    if let Formulation::Compliant(c) = &self.opts.formulation {
                        let c = c.clone();
                        self.solve_compliant(&lp, &m, &c, report, &mut r, &mut u_new)?;
                    } else {
                        self.solve_velocity_space(&lp, &m, report, &mut r, &mut u_new)?;
                    }
                } else {
                    u_new.clone_from(&lp.u_free);
                }
            } else {
                lp.assemble(factor, &self.u, &h, dt, &bil)?;
                if lp.size() > 0 {
                    self.solve(&lp, report, &mut r)?;
                }
                lp.velocity_into(&r, &mut u_new);
            }
            Error::check_finite("u after the step", &u_new)?;
            report.impulses.iter_mut().for_each(|x| *x = 0.0);
            for (a, &i) in lp.active.iter().enumerate() {
                let (o, d) = (self.offsets[i], self.dims[i]);
                report.impulses[o..o + d].copy_from_slice(&r[lp.offsets[a]..lp.offsets[a] + d]);
            }
            self.impulses = r;
            if self.opts.keep_problem && lp.size() > 0 {
                self.last_problem = Some(lp.clone());
                self.last_mass =
                    Some((sys.mass(m_at.as_deref().unwrap_or(&q_eval), t_eval), !bil.is_empty()));
            }
            q_new.clone_from(&q_eval);
            sys.integrate(&mut q_new, &u_new, if midpoint { 0.5 * dt } else { dt });
            sys.normalize(&mut q_new);
            if pass + 1 < passes {
                let prev: &[f64] = m_at.as_deref().unwrap_or(&q_eval);
                let change = q_new.iter().zip(prev).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
                if pass > 0 && change <= 1e-12 * (1.0 + q_new.iter().map(|x| x.abs()).fold(0.0, f64::max)) {
                    break;
                }
                m_at = Some(q_new.clone());
            }
        }
        if let Scheme::Euler { project: true, .. } = self.opts.scheme {
            self.project(&mut q_new)?;
        }
        kept_active.clone_from(&lp.active);
        report.active = kept_active;
        for (i, x) in self.last_normal.iter_mut().enumerate() {
            *x = report.impulses[self.offsets[i]];
        }
        self.workspace = Some(lp);
        (self.q_eval, self.h) = (q_eval, h);
        self.q_spare = std::mem::replace(&mut self.q, q_new);
        self.u_spare = std::mem::replace(&mut self.u, u_new);
        let (mut t0, mut k, given) = self.t_clock;
        if self.t.to_bits() != given.to_bits() {
            (t0, k) = (self.t, 0);
        }
        k += 1;
        self.t = t0 + k as f64 * dt;
        self.t_clock = (t0, k, self.t);
        self.stats.steps += 1;
        if let Some(c) = clock {
            self.stats.step_seconds.push(c.elapsed().as_secs_f64());
        }
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
        let lin = crate::sensitivity::StepSensitivity::new(
            self.system,
            q,
            u,
            t,
            self.dt,
            report.active.clone(),
            r,
            report.status,
            self.dims.len(),
        )?;
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

    fn note(&mut self, report: &mut StepReport, size: usize, rep: &perp_core::SolveReport, attempts: usize) {
        report.size = size;
        report.attempts = attempts;
        if attempts > 1 {
            self.stats.fallbacks += 1;
            self.stats.rescued += usize::from(rep.status == Status::Solved);
        }
        report.iterations += rep.iterations;
        report.factorizations += rep.factorizations;
        report.status = Some(rep.status);
        report.error = rep.error;
        self.stats.solves += 1;
        self.stats.iterations += rep.iterations;
        self.stats.factorizations += rep.factorizations;
        self.stats.max_size = self.stats.max_size.max(size);
        if rep.status != Status::Solved {
            self.stats.unsolved += 1;
        }
        if rep.error.is_finite() {
            self.stats.max_error = self.stats.max_error.max(rep.error);
        } else {
            self.stats.max_error = f64::INFINITY;
        }
    }

    /// Warm start vector from per-contact blocks placed at `slots(a)` (None if nothing stored).
    fn gather(&self, lp: &LocalProblem, len: usize, slots: &dyn Fn(usize) -> Slots) -> Option<Vec<f64>> {
        let mut z = Vec::new();
        self.gather_into(lp, len, slots, &mut z).then_some(z)
    }

    /// [`Simulator::gather`] into `z` (resized to `len`, zeros where nothing is stored);
    /// `false` when nothing was stored (then `z` is all zeros: a cold start).
    fn gather_into(
        &self,
        lp: &LocalProblem,
        len: usize,
        slots: &dyn Fn(usize) -> Slots,
        z: &mut Vec<f64>,
    ) -> bool {
        z.clear();
        z.resize(len, 0.0);
        if !self.opts.warm_start {
            return false;
        }
        let mut any = false;
        for (a, &i) in lp.active.iter().enumerate() {
            let (s, w) = (slots(a), &self.warm[i]);
            if s.len == w.len() {
                s.iter().zip(w).for_each(|(k, v)| z[k] = *v);
                any = true;
            }
        }
        any
    }

    /// Stores each active contact's block of `z` for the next step's warm start (reusing the
    /// stored vectors) and forgets the inactive contacts'.
    fn scatter(&mut self, lp: &LocalProblem, z: &[f64], slots: &dyn Fn(usize) -> Slots) {
        let mut next = lp.active.iter().enumerate().peekable();
        for (i, w) in self.warm.iter_mut().enumerate() {
            match next.next_if(|&(_, &j)| j == i) {
                Some((a, _)) => {
                    w.clear();
                    w.extend(slots(a).iter().map(|k| z[k]));
                }
                None => w.clear(),
            }
        }
    }

    /// Solves a step's LCP on the prepared path (`solve_into` on z, w and a report whose
    /// storage is kept from step to step), warm-started from the stored blocks; z is left in
    /// `self.fc_r`.
    fn solve_lcp(
        &mut self,
        lp: &LocalProblem,
        lcp: &perp_lcp::Lcp,
        slots: &dyn Fn(usize) -> Slots,
        report: &mut StepReport,
    ) -> Result<(), Error> {
        let n = lcp.n();
        let (mut z, mut w, mut rep) = (
            std::mem::take(&mut self.fc_r),
            std::mem::take(&mut self.fc_u),
            std::mem::replace(&mut self.fc_report, SolveReport::new("")),
        );
        let warm = self.gather_into(lp, n, slots, &mut z);
        w.resize(n, 0.0);
        let (settings, budget) = (&self.opts.settings, self.opts.step_budget);
        let solvers = std::iter::once(&mut self.solver).chain(self.fallbacks.iter_mut());
        let out = run_chain(solvers, budget, settings, warm, &mut z, &mut rep, |sv, warm, z, rep, s| {
            let Solver::Lcp(sv) = sv else { unreachable!("an LCP formulation has LCP solvers") };
            sv.solve_into(lcp, warm, z, &mut w, rep, s)
        });
        if let Ok(attempts) = out {
            self.note(report, n, &rep, attempts);
            self.scatter(lp, &z, slots);
        }
        (self.fc_r, self.fc_u, self.fc_report) = (z, w, rep);
        out.map(|_| ())
    }

    /// Solves the step's problem in velocity space (the global form `M v = f + H r` with the
    /// step's M, [`LocalProblem::global_problem`]): the convex relaxation by the interior-point
    /// method, or the exact cones by the chosen global solver warm-started from the previous
    /// impulses. The local impulses go to `r`, the new velocities to `v`.
    fn solve_velocity_space(
        &mut self,
        lp: &LocalProblem,
        m: &Matrix,
        report: &mut StepReport,
        r: &mut Vec<f64>,
        v: &mut Vec<f64>,
    ) -> Result<(), Error> {
        let g = lp.global_problem(m)?;
        let s = self.opts.settings.clone();
        let n = lp.size();
        let slots = |a: usize| Slots { start: lp.offsets[a], stride: 1, len: lp.contacts[a].dim() };
        let mut z = std::mem::take(&mut self.fc_r);
        let warm = self.gather_into(lp, n, &slots, &mut z);
        let sol = match (&mut self.convex, &mut self.solver) {
            (Some(ipm), _) => ipm.solve_convex_from(&g, warm.then_some(z.as_slice()), &s)?.0,
            (None, Solver::Global(sv)) => sv.solve_global(&g, warm.then_some(z.as_slice()), &s)?,
            _ => unreachable!("velocity space has a global solver or the convex method"),
        };
        self.fc_r = z;
        self.note(report, n, &sol.report, 1);
        self.scatter(lp, &sol.r, &slots);
        r.clone_from(&sol.r);
        v.clone_from(&sol.v);
        Ok(())
    }

    /// Solves the step's problem with SAP's compliant contacts ([`Formulation::Compliant`]):
    /// the global problem `M v = M u_free + Jᵀ γ`, `u = J v + b` with b the contacts'
    /// rheonomic terms only (no restitution), φ₀ each contact's gap where the step evaluates
    /// its contacts; from the step's initial velocity when warm starts are on.
    fn solve_compliant(
        &mut self,
        lp: &LocalProblem,
        m: &Matrix,
        c: &Compliant,
        report: &mut StepReport,
        r: &mut Vec<f64>,
        v: &mut Vec<f64>,
    ) -> Result<(), Error> {
        let mut g = lp.global_problem(m)?;
        let mut k = 0;
        for contact in &lp.contacts {
            for j in 0..contact.dim() {
                g.b[k] = contact.bias_at(j);
                k += 1;
            }
        }
        let tau = c.dissipation_time_scale.unwrap_or(self.dt);
        let contacts = lp
            .contacts
            .iter()
            .map(|contact| Compliance {
                stiffness: c.stiffness,
                dissipation_time_scale: tau,
                phi0: contact.gap,
            })
            .collect();
        let sap = self.sap.get_or_insert_with(Box::default);
        sap.regularisation =
            Regularisation::Compliant { dt: self.dt, beta: c.beta, sigma: c.sigma, contacts };
        let v0 = self.opts.warm_start.then_some(self.u.as_slice());
        let sol = sap.solve(&g, v0, &self.opts.settings)?;
        self.note(report, lp.size(), &sol.solution.report, 1);
        r.clone_from(&sol.solution.r);
        v.clone_from(&sol.solution.v);
        Ok(())
    }

    /// Solves the step's problem in the chosen formulation; the local impulses go to `r`.
    fn solve(&mut self, lp: &LocalProblem, report: &mut StepReport, r: &mut Vec<f64>) -> Result<(), Error> {
        let s = self.opts.settings.clone();
        let k = lp.contacts.len();
        match (&self.opts.formulation, &mut self.solver) {
            (Formulation::GlockerStuder, Solver::Lcp(_)) => {
                let mut lcp = self.gs_lcp.take();
                glocker_studer_lcp_into(lp, &mut lcp, &mut self.gs_values)?;
                let slots = move |a: usize| Slots { start: a, stride: k, len: 3 };
                let out = self.solve_lcp(lp, lcp.as_ref().expect("just built"), &slots, report);
                self.gs_lcp = lcp;
                out?;
                gs_impulses_into(lp, &self.fc_r, r);
                Ok(())
            }
            (Formulation::StewartTrinkle(dirs), Solver::Lcp(_)) => {
                let (lcp, layout) = stewart_trinkle_lcp(lp, dirs)?;
                let lay = layout.clone();
                let slots = move |a: usize| {
                    let m = lay.m[a];
                    Slots { start: lay.start[a], stride: 1, len: 1 + if m > 0 { m + 1 } else { 0 } }
                };
                self.solve_lcp(lp, &lcp, &slots, report)?;
                st_impulses_into(lp, &layout, &self.fc_r, r);
                Ok(())
            }
            (Formulation::Cone, Solver::Friction(_)) => {
                // The prepared path: the problem, r, u and the report keep their storage
                // from step to step, and the solver its workspace (no allocation in the
                // solve once the structure repeats).
                let mut fc = self.fc.take();
                lp.friction_problem_into(&mut fc)?;
                let fp = fc.as_ref().expect("friction problem just built");
                let slots = |a: usize| Slots { start: lp.offsets[a], stride: 1, len: lp.contacts[a].dim() };
                let n = lp.size();
                let (mut z, mut u, mut rep) = (
                    std::mem::take(&mut self.fc_r),
                    std::mem::take(&mut self.fc_u),
                    std::mem::replace(&mut self.fc_report, SolveReport::new("")),
                );
                let warm = self.gather_into(lp, n, &slots, &mut z);
                u.resize(n, 0.0);
                let budget = self.opts.step_budget;
                let solvers = std::iter::once(&mut self.solver).chain(self.fallbacks.iter_mut());
                let out = run_chain(solvers, budget, &s, warm, &mut z, &mut rep, |sv, warm, r, rep, s| {
                    let Solver::Friction(sv) = sv else {
                        unreachable!("the cone formulation has frictional solvers")
                    };
                    sv.solve_into(fp, warm, r, &mut u, rep, s)
                });
                self.fc = fc;
                if let Ok(attempts) = out {
                    self.note(report, n, &rep, attempts);
                    self.scatter(lp, &z, &slots);
                }
                r.clone_from(&z);
                (self.fc_r, self.fc_u, self.fc_report) = (z, u, rep);
                out.map(|_| ())
            }
            (Formulation::TzitzourisPang, Solver::Mcp(_)) => {
                let (f, lower, upper) = tzitzouris_pang(lp)?;
                let offs = lp.offsets.clone();
                let dims: Vec<usize> = lp.contacts.iter().map(Contact::dim).collect();
                let slots = move |a: usize| Slots { start: offs[a], stride: 1, len: dims[a] };
                // Hot start: the previous impulses, with s from the current sliding speed.
                // Cold start: each contact's frictionless normal impulse max(0, −b_N / W_NN), which
                // keeps the NCP away from its degenerate corner c_n = 0.
                let r0 = self.gather(lp, lp.size(), &slots).unwrap_or_else(|| {
                    let mut r = vec![0.0; lp.size()];
                    for &o in &lp.offsets {
                        let d = lp.w.get(o, o);
                        r[o] = if d > 0.0 { (-lp.b[o] / d).max(0.0) } else { 0.0 };
                    }
                    r
                });
                let mut z = f.point(&r0);
                let mcp = perp_ncp::Mcp::new(&f, lower, upper)?;
                let mut rep = SolveReport::new("");
                let solvers = std::iter::once(&mut self.solver).chain(self.fallbacks.iter_mut());
                let attempts = run_chain(
                    solvers,
                    self.opts.step_budget,
                    &s,
                    true,
                    &mut z,
                    &mut rep,
                    |sv, _, z, rep, s| {
                        let Solver::Mcp(sv) = sv else { unreachable!("the NCP formulation has MCP solvers") };
                        let sol = sv.solve(&mcp, z, s)?;
                        z.copy_from_slice(&sol.z);
                        *rep = sol.report;
                        Ok(())
                    },
                )?;
                let sol = perp_core::Solution { z, w: Vec::new(), report: rep, ray: None };
                *r = f.impulses(&sol.z);
                self.note(report, f.offsets.len() + lp.size(), &sol.report, attempts);
                self.scatter(lp, r, &slots);
                Ok(())
            }
            _ => unreachable!("solver kind follows the formulation"),
        }
    }

    /// Runs until `t_end`, recording every `every`-th step (and the first and last) into a
    /// [`Trajectory`] with columns `t, q…, u…, impulses…, iterations`; `names` label `q` and
    /// `u` (default `q0…`, `u0…`).
    pub fn run(
        &mut self,
        t_end: f64,
        every: usize,
        names: Option<(&[String], &[String])>,
    ) -> Result<Trajectory, Error> {
        let mut traj = Trajectory::new(self.columns(names));
        self.run_with(t_end, every, &mut |row| {
            traj.push(row.to_vec());
            Ok(())
        })?;
        Ok(traj)
    }

    /// [`Simulator::run`] without holding the trajectory: each recorded row (the columns of
    /// [`Simulator::columns`]) goes to `sink` as it is made (e.g. straight to a CSV file), and
    /// `progress(k, steps)` is called after every step. Returns the number of steps taken.
    /// A `sink` error stops the run and is returned.
    pub fn run_with(
        &mut self,
        t_end: f64,
        every: usize,
        sink: &mut dyn FnMut(&[f64]) -> Result<(), Error>,
    ) -> Result<usize, Error> {
        self.run_observed(t_end, every, sink, &mut |_, _| Ok(()))
    }

    /// [`Simulator::run_with`] with a `progress(k, steps)` callback after every step. An error
    /// from `progress` stops the run (after step `k`, its row recorded if due) and is returned:
    /// a caller's interruption (Python's Ctrl-C check).
    pub fn run_observed(
        &mut self,
        t_end: f64,
        every: usize,
        sink: &mut dyn FnMut(&[f64]) -> Result<(), Error>,
        progress: &mut dyn FnMut(usize, usize) -> Result<(), Error>,
    ) -> Result<usize, Error> {
        let (mut row, mut rep) = (Vec::new(), StepReport::default());
        self.row_into(0, &mut row);
        sink(&row)?;
        let every = every.max(1);
        // Count steps rather than compare accumulated times: 0.5 / 1e-4 is 5000 steps, not 5001.
        let steps = ((t_end - self.t) / self.dt - 1e-9).ceil().max(0.0) as usize;
        for k in 1..=steps {
            self.step_into(&mut rep)?;
            if k % every == 0 || k == steps {
                self.row_into(rep.iterations, &mut row);
                let start = 1 + self.q.len() + self.u.len();
                row[start..start + rep.impulses.len()].copy_from_slice(&rep.impulses);
                sink(&row)?;
            }
            progress(k, steps)?;
        }
        Ok(steps)
    }

    /// What this simulator solves its steps with, in one line: the formulation
    /// ([`Formulation::describe`]), the solver and the fallback chain as built (the chosen
    /// solver is left out of its own chain), e.g. `cone (exact friction cones), solver nsgs,
    /// fallback prox, ac-newton` or `…, fallback none`. `perp simulate` prints it.
    pub fn method(&self) -> String {
        let chain: Vec<&str> = self.fallbacks.iter().map(Solver::name).collect();
        format!(
            "{}, solver {}, fallback {}",
            self.opts.formulation.describe(),
            match &self.opts.formulation {
                Formulation::Compliant(_) => "sap",
                Formulation::Convex => "global-ipm (convex model)",
                _ => self.solver.name(),
            },
            if chain.is_empty() { "none".to_string() } else { chain.join(", ") }
        )
    }

    /// The recorded columns: `t`, `q…`, `u…` (labelled by `names`, default `q0…`, `u0…`), the
    /// impulses of each candidate contact (`P{i}_n`, `P{i}_t`, …) and `iterations`.
    pub fn columns(&self, names: Option<(&[String], &[String])>) -> Vec<String> {
        let mut c = vec!["t".to_string()];
        match names {
            Some((qn, un)) => {
                c.extend(qn.iter().cloned());
                c.extend(un.iter().cloned());
            }
            None => {
                c.extend((0..self.q.len()).map(|i| format!("q{i}")));
                c.extend((0..self.u.len()).map(|i| format!("u{i}")));
            }
        }
        for (i, &d) in self.dims.iter().enumerate() {
            let labels = match d {
                2 => vec!["n", "t"],
                3 => vec!["n", "t", "o"],
                4 => vec!["n", "t", "o", "r"],
                _ => vec!["n"; d],
            };
            for (k, l) in labels.iter().enumerate().take(d) {
                c.push(if d > 4 { format!("P{i}_{k}") } else { format!("P{i}_{l}") });
            }
        }
        c.push("iterations".into());
        c
    }

    /// A trajectory row with zero impulses, written into `r` (its storage reused).
    fn row_into(&self, iterations: usize, r: &mut Vec<f64>) {
        r.clear();
        r.push(self.t);
        r.extend_from_slice(&self.q);
        r.extend_from_slice(&self.u);
        r.extend(std::iter::repeat_n(0.0, self.dims.iter().sum()));
        r.push(iterations as f64);
    }
}
