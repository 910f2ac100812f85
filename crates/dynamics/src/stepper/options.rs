//! What a simulation is told ([`StepOptions`]: scheme, formulation, solver chain) and what it
//! reports ([`StepReport`], [`Stats`]).

use super::*;
use perp_core::params::{Bound, Param};

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

impl Compliant {
    /// The compliant formulation's parameters, as `perp simulate --formulation compliant
    /// --param NAME=VALUE` and Python's `params=` give them: the contact model's (SAP's own
    /// iterations keep their defaults). Drake's point contact is `stiffness=1e7
    /// dissipation=0.1` (`../shared/peers/pile`).
    pub const PARAMS: &'static [Param] = &[
        Param::optional_real(
            "stiffness",
            Bound::Excl(0.0),
            Bound::Open,
            "normal stiffness k, force per length (none: rigid, bounded by the near-rigid limit β)",
        ),
        Param::optional_real(
            "dissipation",
            Bound::Incl(0.0),
            Bound::Open,
            "dissipation time scale τ_d, time: normal damping k τ_d, penetration pushed out at −φ/(δt + τ_d) (none: the time step)",
        ),
        Param::real(
            "beta",
            perp_cones::global_sap::DEFAULT_BETA,
            Bound::Incl(0.0),
            Bound::Open,
            "near-rigid threshold β: no contact stiffer than a period of β time steps (> 0 when rigid; 0: no bound)",
        ),
        Param::real(
            "sigma",
            perp_cones::global_sap::DEFAULT_SIGMA,
            Bound::Excl(0.0),
            Bound::Open,
            "tangential regularisation σ: stiction creeps by about σ w |γ_T|",
        ),
    ];

    /// The model from `name=value` parameters ([`Compliant::PARAMS`], the others at their
    /// defaults: no parameter gives [`Compliant::default`]). Errors name the parameter and its
    /// valid values; `beta=0` without a stiffness is refused (a rigid contact needs the
    /// near-rigid bound).
    ///
    /// ```
    /// use perp_catalogue::Params;
    /// use perp_dynamics::Compliant;
    /// let drake = Compliant::from_params(&Params::parse("stiffness=1e7, dissipation=0.1").unwrap()).unwrap();
    /// assert_eq!((drake.stiffness, drake.dissipation_time_scale), (1e7, Some(0.1)));
    /// assert_eq!(Compliant::from_params(&Params::new()).unwrap(), Compliant::default());
    /// let e = Compliant::from_params(&Params::parse("sigma=0").unwrap()).unwrap_err().to_string();
    /// assert!(e.contains("compliant: parameter sigma") && e.contains("(0, inf)"), "{e}");
    /// ```
    pub fn from_params(params: &Params) -> Result<Compliant, Error> {
        let r = params.resolve("compliant", Self::PARAMS)?;
        let c = Compliant {
            stiffness: r.optional_real("stiffness").unwrap_or(f64::INFINITY),
            dissipation_time_scale: r.optional_real("dissipation"),
            beta: r.real("beta"),
            sigma: r.real("sigma"),
        };
        if c.stiffness.is_infinite() && c.beta == 0.0 {
            return Err(Error::setting(
                "compliant: parameter beta",
                c.beta,
                "must be > 0 without a stiffness (a rigid contact is bounded by the near-rigid limit)",
            ));
        }
        Ok(c)
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
    /// Solve a step in velocity space island by island (on by default): the groups of
    /// velocities that no contact or mass coupling joins are independent problems
    /// ([`perp_cones::Islands`]), each solved by its own solver, in parallel under
    /// `settings.threads` with a trajectory that does not depend on the thread count. Off:
    /// one problem a step. The local form (W) is always one problem.
    pub islands: bool,
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
            islands: true,
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
    /// Islands the step's problem was solved as ([`StepOptions::islands`]; 1 for one problem,
    /// 0 when nothing was solved). `iterations` and `factorizations` are summed over them.
    pub islands: usize,
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
    /// The most islands a step was solved as ([`StepReport::islands`]).
    pub max_islands: usize,
    /// Largest problem size.
    pub max_size: usize,
    /// Wall-clock seconds of each step, when [`StepOptions::time_steps`] is on.
    pub step_seconds: Vec<f64>,
}
