//! [`SolverSet`]: the solvers a run calls by name; [`Registry`] is the catalogue's.

use super::problems::Instance;
use perp_catalogue::{Answer, Family, Params};
use perp_core::{Error, Settings, SolveReport};
use std::time::Instant;

/// A set of solvers the runner can call by name. [`Registry`] is perp's; tests and callers
/// with their own solvers implement this.
pub trait SolverSet: Send + Sync {
    /// `Err` (naming the valid names) if `solver` is no solver of this set. Default: any name.
    fn check(&self, solver: &str) -> Result<(), Error> {
        let _ = solver;
        Ok(())
    }
    /// Whether `solver` is run on `problem` (a solver that does not apply gets no record).
    fn applies(&self, solver: &str, problem: &Instance) -> bool;
    /// Solves `problem` with `solver` under `settings`. Called on a worker thread; may panic.
    fn solve(&self, solver: &str, problem: &Instance, settings: &Settings) -> Result<SolveReport, Error>;
    /// Solves `problem` again and again, timing each solve alone, and hands every outcome with
    /// its seconds to `each` until `each` returns `false` or `repeat` solves are done. Called on
    /// one worker thread; may panic. Default: [`SolverSet::solve`] each time (a fresh solver
    /// per solve).
    fn solve_repeated(
        &self,
        solver: &str,
        problem: &Instance,
        settings: &Settings,
        repeat: usize,
        each: &mut dyn FnMut(Result<SolveReport, Error>, f64) -> bool,
    ) {
        for _ in 0..repeat {
            let t = Instant::now();
            let r = self.solve(solver, problem, settings);
            if !each(r, t.elapsed().as_secs_f64()) {
                break;
            }
        }
    }
}

/// perp's solver catalogue (`perp_catalogue`): every solver of the problem's family.
#[derive(Clone, Copy, Debug, Default)]
pub struct Registry;

impl Registry {
    /// Every solver name of every family, each once, in catalogue order (LCP, MCP, frictional).
    pub fn names() -> Vec<&'static str> {
        perp_catalogue::all_names()
    }
}

/// The catalogue's solvers, each built with the parameters the set gives it: [`Registry`]
/// (none) and [`Tuned`](super::Tuned) (a run's). Their [`SolverSet`] is the one below: every
/// catalogue name is valid.
pub(crate) trait Catalogued: Send + Sync {
    /// The parameters `solver` of `family` is built with.
    fn params_for(&self, family: Family, solver: &str) -> Params;
}

impl Catalogued for Registry {
    fn params_for(&self, _: Family, _: &str) -> Params {
        Params::new()
    }
}

impl<T: Catalogued> SolverSet for T {
    fn check(&self, solver: &str) -> Result<(), Error> {
        let all = Registry::names();
        if all.contains(&solver) {
            Ok(())
        } else {
            Err(Error::unknown_solver(solver, &all))
        }
    }

    fn applies(&self, solver: &str, problem: &Instance) -> bool {
        problem.accepts(solver)
    }

    fn solve(&self, solver: &str, problem: &Instance, settings: &Settings) -> Result<SolveReport, Error> {
        solve_built(solver, &self.params_for(problem.family(), solver), problem, settings)
    }

    /// One solver, built once (not timed), for every repeat: the prepared path a simulator
    /// takes. Before each solve it forgets earlier answers (`bdiff-newton`'s hot start), so
    /// every repeat solves the problem from the same start; what it keeps is what it prepared
    /// for the problem's structure (workspaces, factor storage, W's blocks).
    fn solve_repeated(
        &self,
        solver: &str,
        problem: &Instance,
        settings: &Settings,
        repeat: usize,
        each: &mut dyn FnMut(Result<SolveReport, Error>, f64) -> bool,
    ) {
        let params = self.params_for(problem.family(), solver);
        repeat_prepared((solver, &params), problem, settings, repeat, each);
    }
}

/// Builds the catalogue's `solver` of `problem`'s family with `params` and solves `problem`
/// once (a fresh solver per solve: [`SolverSet::solve`] of [`Registry`] and of `Tuned`).
fn solve_built(
    solver: &str,
    params: &Params,
    problem: &Instance,
    settings: &Settings,
) -> Result<SolveReport, Error> {
    let mut sv = perp_catalogue::build(problem.family(), solver, params)?;
    sv.solve(problem, None, settings).map(|a| a.report)
}

/// Times `repeat` solves of `problem` with the one catalogue solver `solver` built (not timed)
/// with `params` for `problem`'s family, as a simulator repeats them: on the prepared path
/// ([`perp_catalogue::Solver::solve_into`], the answer and the report in buffers kept from
/// solve to solve), forgetting earlier answers before each (so every repeat starts cold). The
/// clock covers the solve alone; the report handed to `each` is copied after it. A build that
/// fails is handed to `each` once, with 0 seconds.
fn repeat_prepared(
    (solver, params): (&str, &Params),
    problem: &Instance,
    settings: &Settings,
    repeat: usize,
    each: &mut dyn FnMut(Result<SolveReport, Error>, f64) -> bool,
) {
    let mut sv = match perp_catalogue::build(problem.family(), solver, params) {
        Ok(sv) => sv,
        Err(e) => {
            each(Err(e), 0.0);
            return;
        }
    };
    let mut answer = Answer::empty();
    for _ in 0..repeat {
        sv.forget();
        let t = Instant::now();
        let out = sv.solve_into(problem, false, &mut answer, settings);
        let secs = t.elapsed().as_secs_f64();
        if !each(out.map(|()| answer.report.clone()), secs) {
            break;
        }
    }
}
