//! Fallback chains: several solvers tried in turn on one problem until one ends `Solved`,
//! each after the first warm-started from the best answer so far, all within one time budget.
//! The stepper runs one per step ([`run_chain`], in place on its kept buffers); `perp solve
//! --fallback` runs one on a problem ([`solve_chain`]).

use crate::dispatch::{Answer, Solver};
use crate::problem::Problem;
use perp_core::{Error, Settings, SolveReport, Status};
use std::time::{Duration, Instant};

/// The budget of a chain: the settings each attempt runs with.
struct Budget {
    /// The clock, read only when there is a budget (a read costs a µs-scale step 1 %).
    start: Option<Instant>,
    budget: Option<Duration>,
}

impl Budget {
    fn new(budget: Option<Duration>) -> Budget {
        Budget { start: budget.map(|_| Instant::now()), budget }
    }

    /// The settings of attempt `k` (from 0), or `None` when the budget is spent and `k > 0`
    /// (the first attempt always runs). The first attempt runs with `base` as given; a
    /// fallback with its own default iteration limit (the chosen limit was the chosen
    /// solver's); every attempt within what is left of the budget (and of `base`'s time
    /// limit). `scratch` holds the adjusted settings.
    fn settings<'a>(&self, k: usize, base: &'a Settings, scratch: &'a mut Settings) -> Option<&'a Settings> {
        let left = self.budget.zip(self.start).map(|(b, t)| b.saturating_sub(t.elapsed()));
        if k > 0 && left.is_some_and(|l| l.is_zero()) {
            return None;
        }
        if k == 0 && left.is_none() {
            return Some(base);
        }
        scratch.clone_from(base);
        if k > 0 {
            scratch.max_iter = 0;
        }
        if let Some(left) = left {
            scratch.time_limit = Some(base.time_limit.map_or(left, |t| t.min(left)));
        }
        Some(scratch)
    }
}

/// Whether an unsolved attempt's `report` is better than the best so far (a smaller error;
/// anything beats a NaN).
fn better(report: &SolveReport, best: Option<&SolveReport>) -> bool {
    best.is_none_or(|b| report.error < b.error || b.error.is_nan())
}

/// Runs `solvers` in turn on one problem (`attempt` solves with one of them into `x` and
/// `rep`) until one ends `Solved`: the first starts from `x` when `warm`, each later one from
/// the best answer so far. Leaves in `x` and `rep` the answer that succeeded, or else the one
/// with the smallest error, and returns how many solvers ran. An `Err` from the first solver
/// (input it cannot take) is returned; a later solver's `Err` counts as a failed attempt.
/// With a `budget`, each attempt's time limit is what is left of it; the solvers after the
/// first run with their own default iteration limits. Nothing is allocated unless an attempt
/// fails (then the best answer is copied).
pub fn run_chain<'a, F>(
    solvers: impl Iterator<Item = &'a mut Solver>,
    budget: Option<Duration>,
    base: &Settings,
    warm: bool,
    x: &mut [f64],
    rep: &mut SolveReport,
    mut attempt: F,
) -> Result<usize, Error>
where
    F: FnMut(&mut Solver, bool, &mut [f64], &mut SolveReport, &Settings) -> Result<(), Error>,
{
    let clock = Budget::new(budget);
    let mut best: Option<(Vec<f64>, SolveReport)> = None;
    let mut ran = 0;
    let mut scratch = Settings::default();
    for (k, sv) in solvers.enumerate() {
        let Some(s) = clock.settings(k, base, &mut scratch) else { break };
        ran += 1;
        match attempt(sv, warm || k > 0, x, rep, s) {
            Err(e) if k == 0 => return Err(e),
            Err(_) => {
                if let Some((bx, _)) = &best {
                    x.copy_from_slice(bx);
                }
                continue;
            }
            Ok(()) => {}
        }
        if rep.status == Status::Solved {
            return Ok(ran);
        }
        match &best {
            Some((bx, br)) if !better(rep, Some(br)) => x.copy_from_slice(bx),
            _ => best = Some((x.to_vec(), rep.clone())),
        }
    }
    if let Some((bx, br)) = best {
        x.copy_from_slice(&bx);
        *rep = br;
    }
    Ok(ran)
}

/// Solves `problem` with `solvers` in turn (the chosen one, then its fallbacks) until one ends
/// `Solved`, within `budget` (what is left of it is each attempt's time limit): the first from
/// `warm` when given, each later one from the best answer so far. Returns the answer that
/// succeeded, or else the one with the smallest error, with the number of solvers that ran;
/// when more than one ran, the report's message starts with what the earlier ones ended
/// with. `Err` as [`Solver::solve`] for the first solver; a later solver's `Err` counts as a
/// failed attempt.
///
/// ```
/// use perp_catalogue::{build, solve_chain, Family, Params, Problem};
/// use perp_core::{Matrix, Settings, Status};
/// let lcp = perp_lcp::Lcp::new(Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0])?, vec![-5.0, -6.0])?;
/// let mut chain = vec![build(Family::Lcp, "pgs", &Params::new())?, build(Family::Lcp, "lemke", &Params::new())?];
/// // PGS stopped after 2 sweeps: Lemke finishes from its answer.
/// let s = Settings { max_iter: 2, ..Settings::default() };
/// let (a, ran) = solve_chain(&Problem::Lcp(lcp), &mut chain, None, &s, None)?;
/// assert_eq!((ran, a.report.solver.as_str(), a.report.status), (2, "lemke", Status::Solved));
/// assert!(a.report.message.unwrap().starts_with("after pgs: max_iterations"));
/// # Ok::<(), perp_core::Error>(())
/// ```
pub fn solve_chain(
    problem: &Problem,
    solvers: &mut [Solver],
    warm: Option<&[f64]>,
    base: &Settings,
    budget: Option<Duration>,
) -> Result<(Answer, usize), Error> {
    let clock = Budget::new(budget);
    let mut best: Option<Answer> = None;
    let mut ran = 0;
    let mut earlier = Vec::new();
    let mut scratch = Settings::default();
    for (k, sv) in solvers.iter_mut().enumerate() {
        let Some(s) = clock.settings(k, base, &mut scratch) else { break };
        ran += 1;
        let start = if k == 0 { warm } else { best.as_ref().map(|a| a.z.as_slice()) };
        let a = match sv.solve(problem, start, s) {
            Err(e) if k == 0 => return Err(e),
            Err(e) => {
                earlier.push(format!("{}: {e}", sv.name()));
                continue;
            }
            Ok(a) => a,
        };
        let solved = a.report.status == Status::Solved;
        if !solved {
            earlier.push(format!("{}: {} at error {:.1e}", a.report.solver, a.report.status, a.report.error));
        }
        if solved || better(&a.report, best.as_ref().map(|b| &b.report)) {
            best = Some(a);
        }
        if solved {
            break;
        }
    }
    let mut answer = best.ok_or_else(|| Error::Numerical {
        solver: solvers.first().map_or("", |s| s.name()).into(),
        message: format!("no solver of the chain ran to an answer: {}", earlier.join("; ")),
    })?;
    if ran > 1 {
        let note = answer.report.message.take();
        let mut message = format!("after {}", earlier.join("; after "));
        if let Some(n) = note {
            message = format!("{message}; {n}");
        }
        answer.report.message = Some(message);
    }
    Ok((answer, ran))
}
