//! The solvers a simulator is built with ([`Solvers`]); one contact solve of a step: the local
//! form through the catalogue's solver chain and the LCP formulations (the velocity-space
//! formulations are in `velocity.rs`); moving a contact's variables between the solver's
//! vector and the simulator.

use super::*;
use perp_cones::FrictionSolutionMut;
use perp_core::SolutionMut;

/// Where a contact's variables sit in the solver's vector: `start + stride·j`, `j < len`.
pub(super) struct Slots {
    pub(super) start: usize,
    pub(super) stride: usize,
    pub(super) len: usize,
}

impl Slots {
    pub(super) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len).map(|j| self.start + self.stride * j)
    }
}

/// The solvers a [`Simulator`] is built with, from its options.
pub(super) struct Solvers {
    pub(super) solver: Solver,
    /// The fallback chain ([`StepOptions::fallback`]).
    pub(super) fallbacks: Vec<Solver>,
    /// Whether steps are solved in velocity space.
    pub(super) velocity_space: bool,
}

impl Solvers {
    /// The chosen solver (the formulation's default when none is named) and the fallback
    /// chain, built from the catalogue; `Err` on an unknown name, a convex formulation with
    /// another solver than global-ipm or with a fallback chain. In velocity space the exact
    /// cones' chain may hold global solvers and local ones (the island reduced to W).
    pub(super) fn new(opts: &StepOptions) -> Result<Solvers, Error> {
        let compliant = matches!(opts.formulation, Formulation::Compliant(_));
        if compliant && !opts.params.is_empty() {
            return Err(Error::setting(
                "params",
                &opts.params,
                "the compliant formulation's solver (SAP) takes no solver parameters: its contact \
                 model's (stiffness, dissipation, beta, sigma) are Formulation::Compliant's \
                 (Compliant::from_params)",
            ));
        }
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
        // The relaxation is one convex solve: the De Saxcé fixed point and the exact polish
        // (and its retry) are the Coulomb model's.
        if let Some(exact) = opts
            .params
            .names()
            .find(|n| ["fixed_point", "polish", "retry_regularization"].contains(n))
            .filter(|_| convex)
        {
            return Err(Error::setting(
                "params",
                &opts.params,
                &format!(
                    "global-ipm's {exact} is a parameter of the exact Coulomb problem; the convex \
                     formulation takes max_iter, warm_newton and kkt"
                ),
            ));
        }
        if convex && !fallbacks.is_empty() {
            return Err(Error::setting(
                "fallback",
                opts.fallback.join(","),
                "the convex formulation takes no fallback chain: its one method certifies the \
                 relaxation, which the exact cones' solvers do not solve",
            ));
        }
        Ok(Solvers { solver, fallbacks, velocity_space })
    }
}

impl Simulator<'_> {
    pub(super) fn note(
        &mut self,
        report: &mut StepReport,
        size: usize,
        rep: &perp_core::SolveReport,
        attempts: usize,
    ) {
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
    pub(super) fn gather(
        &self,
        lp: &LocalProblem,
        len: usize,
        slots: &dyn Fn(usize) -> Slots,
    ) -> Option<Vec<f64>> {
        let mut z = Vec::new();
        self.gather_into(lp, len, slots, &mut z).then_some(z)
    }

    /// [`Simulator::gather`] into `z` (resized to `len`, zeros where nothing is stored);
    /// `false` when nothing was stored (then `z` is all zeros: a cold start).
    pub(super) fn gather_into(
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
    pub(super) fn scatter(&mut self, lp: &LocalProblem, z: &[f64], slots: &dyn Fn(usize) -> Slots) {
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
    pub(super) fn solve_lcp(
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
            sv.solve_into(lcp, warm, SolutionMut { z, w: &mut w, report: rep }, s)
        });
        if let Ok(attempts) = out {
            self.note(report, n, &rep, attempts);
            self.scatter(lp, &z, slots);
        }
        (self.fc_r, self.fc_u, self.fc_report) = (z, w, rep);
        out.map(|_| ())
    }

    /// Solves the step's problem in the chosen formulation; the local impulses go to `r`.
    pub(super) fn solve(
        &mut self,
        lp: &LocalProblem,
        report: &mut StepReport,
        r: &mut Vec<f64>,
    ) -> Result<(), Error> {
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
            (Formulation::Cone, Solver::Friction(_)) => self.solve_cone(lp, report, r),
            (Formulation::TzitzourisPang, Solver::Mcp(_)) => self.solve_tzitzouris_pang(lp, report, r),
            _ => unreachable!("solver kind follows the formulation"),
        }
    }

    /// The exact cones through W ([`Formulation::Cone`]) on the prepared path: the problem,
    /// r, u and the report keep their storage from step to step, and the solver its workspace
    /// (no allocation in the solve once the structure repeats); the fallback chain after.
    fn solve_cone(
        &mut self,
        lp: &LocalProblem,
        report: &mut StepReport,
        r: &mut Vec<f64>,
    ) -> Result<(), Error> {
        let s = self.opts.settings.clone();
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
            sv.solve_into(fp, warm, FrictionSolutionMut { r, u: &mut u, report: rep }, s)
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

    /// Tzitzouris–Pang's NCP ([`Formulation::TzitzourisPang`]) by the MCP solver chain.
    fn solve_tzitzouris_pang(
        &mut self,
        lp: &LocalProblem,
        report: &mut StepReport,
        r: &mut Vec<f64>,
    ) -> Result<(), Error> {
        let (f, lower, upper) = tzitzouris_pang(lp)?;
        let s = self.opts.settings.clone();
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
        let attempts =
            run_chain(solvers, self.opts.step_budget, &s, true, &mut z, &mut rep, |sv, _, z, rep, s| {
                let Solver::Mcp(sv) = sv else { unreachable!("the NCP formulation has MCP solvers") };
                let sol = sv.solve(&mcp, z, s)?;
                z.copy_from_slice(&sol.z);
                *rep = sol.report;
                Ok(())
            })?;
        let sol = perp_core::Solution { z, w: Vec::new(), report: rep, ray: None };
        *r = f.impulses(&sol.z);
        self.note(report, f.offsets.len() + lp.size(), &sol.report, attempts);
        self.scatter(lp, r, &slots);
        Ok(())
    }
}
