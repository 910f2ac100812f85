//! A step solved in velocity space: the global problem `M v = f + H r` of the step
//! ([`LocalProblem::global_problem`]) split into its islands ([`perp_cones::Islands`]) and each
//! island solved by its own solver (the convex relaxation's interior point, an exact global
//! solver, or SAP on the compliant model), in parallel under `Settings::threads`.
//!
//! Each island keeps its solver from step to step, by island number (islands are numbered by
//! their first velocity, so a settled scene keeps its numbering): the solvers' symbolic
//! analyses are reused while an island's contact graph repeats. An island's result does not
//! depend on the other islands or on the thread count, so neither does the trajectory. A
//! problem that is one island is solved whole, as without islands.

use super::solve::Slots;
use super::*;
use perp_catalogue::{solve_chain, Problem};
use perp_cones::{GlobalSolution, GlobalSolver, Island};
use perp_core::parallel::Par;
use std::borrow::Cow;
use std::time::Instant;

/// The solver of one island, kept across steps.
pub(super) enum VelocitySolver {
    /// The interior-point method on the convex relaxation ([`Formulation::Convex`]).
    Convex(Box<GlobalIpm>),
    /// A global solver of the exact cones ([`Formulation::Cone`] in velocity space).
    Exact(Box<dyn GlobalSolver>),
    /// SAP on the compliant model ([`Formulation::Compliant`]).
    Compliant(Box<Sap>),
}

/// One island's problem and start, and its solution once solved.
struct Job<'a> {
    g: Cow<'a, GlobalFrictionContactProblem>,
    /// The impulses to start from (`None`: a cold start).
    warm: Option<Cow<'a, [f64]>>,
    /// SAP's starting velocities (`None`: its own start).
    v0: Option<Cow<'a, [f64]>>,
    /// SAP's compliant contacts of the island.
    compliance: Vec<Compliance>,
    out: Option<Result<GlobalSolution, Error>>,
}

impl VelocitySolver {
    /// The solver of `opts`' formulation: `name` from the catalogue for the exact cones;
    /// for the convex relaxation, `global-ipm` with `opts.params`.
    pub(super) fn new(opts: &StepOptions, name: &str) -> Result<VelocitySolver, Error> {
        Ok(match opts.formulation {
            Formulation::Convex => {
                let p = opts.params.resolve("global-ipm", perp_cones::global_ipm::params::PARAMS)?;
                let mut ipm = Box::new(GlobalIpm::from_params(&p));
                ipm.model = perp_cones::global_ipm::Model::Convex;
                if !opts.params.names().any(|n| n == "warm_newton") {
                    ipm.warm_newton = perp_cones::global_ipm::params::CONVEX_WARM_NEWTON;
                }
                VelocitySolver::Convex(ipm)
            }
            // The stepper reads neither the Coulomb error of SAP's answer nor its message.
            Formulation::Compliant(_) => {
                let mut sap = Box::<Sap>::default();
                sap.report_coulomb_error = false;
                VelocitySolver::Compliant(sap)
            }
            _ => match perp_catalogue::build(opts.formulation.family(), name, &opts.params)? {
                Solver::Global(sv) => VelocitySolver::Exact(sv),
                other => unreachable!("velocity space has a global solver, not {}", other.name()),
            },
        })
    }

    /// Solves the jobs, job k by `solvers[k]` (built, as [`VelocitySolver::new`] of `opts`
    /// and `name`, when the step has more islands than any before), in parallel under
    /// `opts.settings.threads`; their solutions in order. `dt` is SAP's step.
    fn run_all(
        solvers: &mut Vec<VelocitySolver>,
        (opts, name, dt): (&StepOptions, &str, f64),
        jobs: &mut [Job],
    ) -> Result<Vec<GlobalSolution>, Error> {
        while solvers.len() < jobs.len() {
            solvers.push(VelocitySolver::new(opts, name)?);
        }
        let mut pairs: Vec<(&mut VelocitySolver, &mut Job)> =
            solvers.iter_mut().zip(jobs.iter_mut()).collect();
        Par::new(opts.settings.threads)?.for_each_chunk_above(&mut pairs, 1, 2, |_, piece| {
            for (sv, job) in piece {
                sv.solve(job, opts, dt);
            }
        });
        jobs.iter_mut().map(|job| job.out.take().expect("every island is solved")).collect()
    }

    /// Solves `job` with `opts`' settings (and, for SAP, its compliant parameters and the
    /// step `dt`).
    fn solve(&mut self, job: &mut Job, opts: &StepOptions, dt: f64) {
        let (warm, s) = (job.warm.as_deref(), &opts.settings);
        job.out = Some(match self {
            VelocitySolver::Convex(ipm) => ipm.solve_convex_from(&job.g, warm, s).map(|(sol, _)| sol),
            VelocitySolver::Exact(sv) => sv.solve_global(&job.g, warm, s),
            VelocitySolver::Compliant(sap) => {
                let Formulation::Compliant(c) = &opts.formulation else {
                    unreachable!("SAP solves the compliant formulation")
                };
                let contacts = std::mem::take(&mut job.compliance);
                sap.regularisation = Regularisation::Compliant { dt, beta: c.beta, sigma: c.sigma, contacts };
                sap.solve(&job.g, job.v0.as_deref(), s).map(|sol| sol.solution)
            }
        });
    }
}

impl Simulator<'_> {
    /// Solves the step's problem in velocity space: the global form `M v = f + H r` with the
    /// step's M ([`LocalProblem::global_problem`]), island by island when
    /// [`StepOptions::islands`] is on; the local impulses go to `r`, the new velocities to `v`.
    ///
    /// * Convex and exact: each island warm-started from its contacts' previous impulses.
    /// * Compliant ([`Formulation::Compliant`], SAP): `b` holds the contacts' rheonomic terms
    ///   only (no restitution), φ₀ is each contact's gap where the step evaluates its contacts,
    ///   and each island starts from the step's initial velocities when warm starts are on.
    ///
    /// The exact cones: an island the solver leaves unsolved goes to the fallback chain
    /// ([`rescue`]).
    ///
    /// Velocities no contact reaches take the free motion `u_free`. The report sums the
    /// islands' iterations and factorizations; its status is the first unsolved island's
    /// (else solved). Its error is the largest island's (a certificate per island), except
    /// for the exact cones, where it is Siconos' global error of the whole answer, recomputed:
    /// a whole answer above the tolerance is not reported solved.
    pub(super) fn solve_in_velocity_space(
        &mut self,
        lp: &LocalProblem,
        m: &Matrix,
        report: &mut StepReport,
        r: &mut Vec<f64>,
        v: &mut Vec<f64>,
    ) -> Result<(), Error> {
        let started = Instant::now();
        // The last step's problem lends its storage.
        let mut slot = self.global.take();
        lp.global_problem_into(m, &mut slot)?;
        let mut g = slot.expect("filled on success");
        let compliance = match &self.opts.formulation {
            Formulation::Compliant(c) => self.compliant_problem(lp, &mut g, c),
            _ => Vec::new(),
        };
        let n = lp.size();
        let slots = |a: usize| Slots { start: lp.offsets[a], stride: 1, len: lp.contacts[a].dim() };
        let mut z = std::mem::take(&mut self.fc_r);
        let warm = self.gather_into(lp, n, &slots, &mut z);
        let v0 = self.opts.warm_start.then_some(self.u.as_slice());
        let islands = self.opts.islands.then(|| g.islands()).filter(|i| !i.is_whole());
        let mut jobs = match &islands {
            None => vec![Job {
                g: Cow::Borrowed(&g),
                warm: warm.then_some(Cow::Borrowed(z.as_slice())),
                v0: v0.map(Cow::Borrowed),
                compliance,
                out: None,
            }],
            Some(islands) => self.island_jobs(lp, (&g, islands), &z, v0, &compliance)?,
        };
        let mut sols = VelocitySolver::run_all(
            &mut self.velocity,
            (&self.opts, self.solver.name(), self.dt),
            &mut jobs,
        )?;
        let attempts = rescue(&mut self.fallbacks, &self.opts, &jobs, &mut sols, started);
        let rep = match &islands {
            None => {
                let sol = sols.pop().expect("one job");
                r.clone_from(&sol.r);
                v.clone_from(&sol.v);
                sol.report
            }
            Some(islands) => self.merge(&g, islands, &sols, r, v, &lp.u_free),
        };
        // The jobs borrow g, which goes back to the simulator for the next step's storage.
        drop(jobs);
        report.islands = sols.len().max(1);
        self.stats.max_islands = self.stats.max_islands.max(report.islands);
        self.note(report, n, &rep, attempts);
        self.scatter(lp, r, &slots);
        self.fc_r = z;
        self.global = Some(g);
        Ok(())
    }

    /// The compliant model's problem ([`Formulation::Compliant`]): `b` rewritten to the
    /// contacts' rheonomic terms only (no restitution); each contact's compliance, φ₀ its gap
    /// where the step evaluates its contacts.
    fn compliant_problem(
        &self,
        lp: &LocalProblem,
        g: &mut GlobalFrictionContactProblem,
        c: &Compliant,
    ) -> Vec<Compliance> {
        let mut k = 0;
        for contact in &lp.contacts {
            for j in 0..contact.dim() {
                g.b[k] = contact.bias_at(j);
                k += 1;
            }
        }
        let tau = c.dissipation_time_scale.unwrap_or(self.dt);
        let compliance = |contact: &Contact| Compliance {
            stiffness: c.stiffness,
            dissipation_time_scale: tau,
            phi0: contact.gap,
        };
        lp.contacts.iter().map(compliance).collect()
    }

    /// One job an island of `g`: its restricted problem, its contacts' impulses in `z` as the
    /// warm start when one of them had a stored one (the others start from zero), its
    /// velocities in `v0` and its contacts' `compliance`.
    fn island_jobs(
        &self,
        lp: &LocalProblem,
        (g, islands): (&GlobalFrictionContactProblem, &perp_cones::Islands),
        z: &[f64],
        v0: Option<&[f64]>,
        compliance: &[Compliance],
    ) -> Result<Vec<Job<'static>>, Error> {
        let d = g.dim;
        let stored = |c: usize| self.opts.warm_start && self.warm[lp.active[c]].len() == lp.contacts[c].dim();
        let job = |part: &Island| -> Result<Job<'static>, Error> {
            let warm = part.contacts.iter().any(|&c| stored(c)).then(|| {
                Cow::Owned(
                    part.contacts.iter().flat_map(|&c| z[d * c..d * (c + 1)].iter().copied()).collect(),
                )
            });
            Ok(Job {
                g: Cow::Owned(islands.restrict(g, part)?),
                warm,
                v0: v0.map(|u| Cow::Owned(part.dofs.iter().map(|&i| u[i]).collect())),
                compliance: part.contacts.iter().filter_map(|&c| compliance.get(c).copied()).collect(),
                out: None,
            })
        };
        islands.parts.iter().map(job).collect()
    }

    /// The whole answer from the islands' `sols`: their impulses and velocities put in place,
    /// the free velocities `u_free`; the merged report ([`Simulator::solve_in_velocity_space`]).
    fn merge(
        &self,
        g: &GlobalFrictionContactProblem,
        islands: &perp_cones::Islands,
        sols: &[GlobalSolution],
        r: &mut Vec<f64>,
        v: &mut Vec<f64>,
        u_free: &[f64],
    ) -> SolveReport {
        let d = g.dim;
        r.clear();
        r.resize(g.size(), 0.0);
        v.clear();
        v.extend_from_slice(u_free);
        let mut rep = SolveReport::new(sols.first().map_or("", |s| s.report.solver.as_str()));
        rep.status = Status::Solved;
        rep.error = 0.0;
        for (part, sol) in islands.parts.iter().zip(sols) {
            for (k, &c) in part.contacts.iter().enumerate() {
                r[d * c..d * (c + 1)].copy_from_slice(&sol.r[d * k..d * (k + 1)]);
            }
            for (k, &i) in part.dofs.iter().enumerate() {
                v[i] = sol.v[k];
            }
            rep.iterations += sol.report.iterations;
            rep.factorizations += sol.report.factorizations;
            rep.error = rep.error.max(sol.report.error);
            if rep.status == Status::Solved && sol.report.status != Status::Solved {
                rep.status = sol.report.status;
            }
        }
        if matches!(self.opts.formulation, Formulation::Cone) {
            // Every island solved does not make the whole answer's error ≤ tol (each island
            // is held to its own scale): the shared guard downgrades a whole answer above it.
            rep.error = g.error(r, v);
            rep.verify(self.opts.settings.tol);
        }
        rep
    }
}

/// The fallback chain ([`StepOptions::fallback`]) on each island the exact cones' solver left
/// unsolved, in island order: its solvers in turn ([`solve_chain`]), the first warm-started
/// from the solver's impulses, a global solver on the island as it is and a local one on its
/// reduction `u = W r + q` (judged, like the global ones, by Siconos' global error of
/// `(r, v)`). The chain's answer replaces the solver's when it is solved or its error is
/// smaller; the report counts the effort of both. Within a step budget the chain gets what the
/// step has left. Returns the attempts of the island that took most (1: no island needed the
/// chain). Serial: an island's answer depends on neither the other islands nor the threads.
fn rescue(
    fallbacks: &mut [Solver],
    opts: &StepOptions,
    jobs: &[Job],
    sols: &mut [GlobalSolution],
    started: Instant,
) -> usize {
    let mut attempts = 1;
    if fallbacks.is_empty() || !matches!(opts.formulation, Formulation::Cone) {
        return attempts;
    }
    // As in the local chain, each fallback runs to its own iteration limit.
    let settings = Settings { max_iter: 0, ..opts.settings.clone() };
    for (job, sol) in jobs.iter().zip(sols.iter_mut()) {
        if sol.report.status == Status::Solved {
            continue;
        }
        // What the step has left, read once (two readings could cross the budget between
        // them, and a `Duration` below zero panics).
        let budget = match opts.step_budget.map(|b| b.saturating_sub(started.elapsed())) {
            Some(left) if left.is_zero() => break,
            left => left,
        };
        let problem = Problem::GlobalFriction(job.g.clone().into_owned());
        let first = (sol.report.solver.clone(), sol.report.status, sol.report.error);
        let Ok((a, ran)) = solve_chain(&problem, fallbacks, Some(&sol.r), &settings, budget) else {
            // No solver of the chain ran to an answer: the solver's stays.
            attempts = attempts.max(1 + fallbacks.len());
            continue;
        };
        attempts = attempts.max(1 + ran);
        let better = a.report.status == Status::Solved
            || a.report.error < sol.report.error
            || sol.report.error.is_nan();
        let (Some(v), true) = (a.v, better) else {
            let r = &mut sol.report;
            r.iterations += a.report.iterations;
            r.pivots += a.report.pivots;
            r.factorizations += a.report.factorizations;
            r.line_search_steps += a.report.line_search_steps;
            r.elapsed += a.report.elapsed;
            continue;
        };
        let mut report = a.report;
        report.follow(&sol.report);
        let note = report.message.take();
        let (name, status, error) = first;
        let mut message = format!("after {name}: {status} at error {error:.1e}");
        if let Some(n) = note {
            message = format!("{message}; {n}");
        }
        report.message = Some(message);
        *sol = GlobalSolution { r: a.z, u: a.w, v, report, analyses: sol.analyses };
    }
    attempts
}
