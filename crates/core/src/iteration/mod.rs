//! The one iteration loop shared by perp's iterative and pivoting solvers (after argmin's
//! executor): a solver supplies its steps; the loop owns the bookkeeping.
//!
//! # What the solver supplies
//!
//! An [`IterativeMethod`]: [`step`](IterativeMethod::step) (one iteration: a sweep, a Newton
//! step, a pivot, an LCP solve), and, where it has them, the optional hooks:
//!
//! * [`initial_error`](IterativeMethod::initial_error) — the error at the starting point; a
//!   warm start that already meets the tolerance then costs no step;
//! * [`prepare_step`](IterativeMethod::prepare_step) — called before every step; it may end
//!   the loop before the step (Lemke finds a secondary ray there, lemke-pyramid its stalled
//!   alignment), so that a step is always a full iteration;
//! * [`counters`](IterativeMethod::counters) — the effort spent so far ([`Counters`]: pivots,
//!   factorizations, line-search steps);
//! * [`keep_best`](IterativeMethod::keep_best) / [`restore_best`](IterativeMethod::restore_best)
//!   — save the current iterate as the best one, and put the saved one back;
//! * [`is_pivoting`](IterativeMethod::is_pivoting) — for finite pivoting methods: the loop
//!   does not test the tolerance (the method ends with `stop: Some(Solved)` when its pivoting
//!   ends; its error is only reported), and the report's `iterations` are the pivots;
//! * [`stall`](IterativeMethod::stall) / [`stall_measure`](IterativeMethod::stall_measure) /
//!   [`on_progress`](IterativeMethod::on_progress) / [`on_stall`](IterativeMethod::on_stall)
//!   — the method's stall rule ([`Stall`]: a patience and a progress test, a new best or a
//!   halving of a mark, on the error or on the method's merit), which the loop applies after
//!   every step, and what the method does when it stalls ([`OnStall`]: go on, switch
//!   strategy, return to the loop's best iterate, or stop).
//!
//! # What the loop keeps
//!
//! [`run`] (or [`run_with`], which takes the start instant and the history's storage) counts
//! the steps, checks the tolerance, a NaN error, the observer, the iteration limit and the
//! time limit, records the history, tracks the smallest error (calling `keep_best` whenever
//! a step reaches a new minimum, the starting error included, and `restore_best` when the
//! loop ends other than `Solved` with its last error worse than the best or NaN), reads the
//! counters at the end, and returns a [`LoopOutcome`]; [`LoopOutcome::record`] writes status,
//! iterations, elapsed time, history and counters into the solver's
//! [`SolveReport`]. The solver adds only what the loop cannot know: the
//! returned point's error (from the returned vectors) and its message.
//!
//! Order of the checks for step k: `prepare_step` (a `Some(status)` ends the loop with k − 1
//! iterations), `step`, the stall rule (a step that asks to stop is not judged; `on_stall`
//! may change the step's error: the error at the iterate the method goes on from), the
//! forecast ([`Outlook`], on measured errors of steps that do not stop), history, best
//! iterate, the step's own `stop` (or `on_stall`'s, or the forecast's `Stalled`), NaN
//! (`NumericalFailure`), tolerance (`Solved`, unless pivoting), observer (`Interrupted`), time
//! limit (`TimeLimit`); after `settings.max_iter_or(default_max_iter)` steps,
//! `MaxIterations`.
//!
//! **The stall rule** is the loop's, as Clarabel's insufficient-progress checkpoint is its
//! solver's: after every step that does not ask to stop, the loop compares the method's
//! progress measure (the step's error, or [`stall_measure`](IterativeMethod::stall_measure))
//! with its mark ([`StallRule`]); progress resets the count (and calls `on_progress`), and
//! from `patience` steps without progress on, every step calls `on_stall` until progress is
//! made again. The three configurations in use: the frictional Newton methods' switch to
//! prox's proximal mode (halving of the error, patience `stall_iterations`), the watchdog of
//! the NCP Fischer–Burmeister Newton (a new best merit, patience `2·nonmonotone`: back to the
//! best-merit iterate, monotone from there; Chamberlain, Powell, Lemaréchal & Pedersen 1982),
//! and the global Newton's switch to its proximal mode (its own loop, the same
//! [`StallRule`]). The forecast of a slowly converging method ([`Outlook`]) is not a stall
//! rule: it judges steady progress against the budget left, not the lack of progress; but it
//! too is the loop's ([`outlook`](IterativeMethod::outlook)), since the loop owns the budget
//! (the iteration limit, the time limit and its start).
//!
//! Nothing in the loop allocates but the history when `settings.record_history` is set, and
//! that only to grow the storage handed to [`run_with`].
//!
//! ```
//! use perp_core::iteration::{run, Counters, IterativeMethod, StepResult};
//! use perp_core::{Settings, SolveReport, Status};
//! /// Halves its error every step, one factorization a step.
//! struct Halving { error: f64, factorizations: usize }
//! impl IterativeMethod for Halving {
//!     fn step(&mut self) -> StepResult {
//!         self.error *= 0.5;
//!         self.factorizations += 1;
//!         StepResult::go(self.error)
//!     }
//!     fn counters(&self) -> Counters {
//!         Counters { factorizations: self.factorizations, ..Counters::default() }
//!     }
//! }
//! let s = Settings { tol: 0.1, record_history: true, ..Settings::default() };
//! let mut report = SolveReport::new("halving");
//! run(&mut Halving { error: 1.0, factorizations: 0 }, &s, 100).record(&mut report);
//! assert_eq!((report.status, report.iterations, report.factorizations), (Status::Solved, 4, 4));
//! assert_eq!(report.history, vec![0.5, 0.25, 0.125, 0.0625]);
//! ```

use crate::{Settings, SolveReport, Status};
use std::time::{Duration, Instant};

mod outlook;
mod stall;

pub use outlook::Outlook;
pub use stall::{OnStall, ProgressTest, Stall, StallRule, Verdict};

/// What the observer is told after every iteration.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// 1-based iteration number.
    pub iteration: usize,
    /// The error measure after this iteration.
    pub error: f64,
    /// Whether `error` was measured at this iterate ([`IterativeMethod::measured`]); `false`
    /// when the method carried an older measure over or gave a cheap estimate (PGS and NSGS
    /// between their exact checks). Logs and curves show only measured errors.
    pub measured: bool,
    /// Time since the loop started.
    pub elapsed: Duration,
    /// The method's effort so far: pivots, factorizations, line-search steps.
    pub counters: Counters,
    /// The step length of this iteration (the line search's `t`, a step size), when the
    /// method takes one and knows it ([`IterativeMethod::last_step`]); `None` otherwise.
    pub step: Option<f64>,
}

/// The observer's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Go on.
    Continue,
    /// Stop now; the solve ends with [`Status::Interrupted`].
    Stop,
}

/// The outcome of one step.
#[derive(Clone, Copy, Debug)]
pub struct StepResult {
    /// The error measure at the new iterate (the problem class's measure, or a cheap upper
    /// estimate of it that the solver confirms at the end).
    pub error: f64,
    /// `Some(status)` when the step itself found that the loop must end (e.g. `Stalled`).
    pub stop: Option<Status>,
}

impl StepResult {
    /// A step that lets the loop go on, at `error`.
    pub fn go(error: f64) -> Self {
        StepResult { error, stop: None }
    }
}

/// The effort a solve spent, beyond its iterations: the counters of [`SolveReport`] that the
/// loop reads from the method ([`IterativeMethod::counters`]) and writes into the report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Pivots (pivoting methods).
    pub pivots: usize,
    /// Matrix factorizations (factorization attempts included).
    pub factorizations: usize,
    /// Line-search steps (trial step lengths evaluated).
    pub line_search_steps: usize,
}

impl std::ops::AddAssign for Counters {
    fn add_assign(&mut self, o: Counters) {
        self.pivots += o.pivots;
        self.factorizations += o.factorizations;
        self.line_search_steps += o.line_search_steps;
    }
}

/// One iterative method, seen by the loop (see the [module docs](self) for the order in
/// which the loop calls the hooks). Only [`step`](IterativeMethod::step) is required.
pub trait IterativeMethod {
    /// The error at the starting point, if the method can compute it cheaply; a warm start
    /// that already meets the tolerance then costs no iteration.
    fn initial_error(&mut self) -> Option<f64> {
        None
    }
    /// Called before every step (the first included): `Some(status)` ends the loop before the
    /// step, with the iterations done so far. Default: go on.
    fn prepare_step(&mut self) -> Option<Status> {
        None
    }
    /// Performs one iteration.
    fn step(&mut self) -> StepResult;
    /// The effort spent since the loop started (running totals; read by the loop when it
    /// ends). Default: none.
    fn counters(&self) -> Counters {
        Counters::default()
    }
    /// Saves the current iterate as the best one; called by the loop whenever the error (the
    /// starting error included) reaches a new minimum. Default: nothing (the method returns
    /// its last iterate).
    fn keep_best(&mut self) {}
    /// Puts the iterate saved by [`keep_best`](IterativeMethod::keep_best) back; called when
    /// the loop ends other than `Solved` with a last error worse than the best (or NaN), and
    /// when [`on_stall`](IterativeMethod::on_stall) answers [`OnStall::RestoreBest`].
    fn restore_best(&mut self) {}
    /// `true` for finite pivoting methods (Lemke): the loop does not stop on the tolerance
    /// (the method ends with `stop: Some(Status::Solved)` when its pivoting is done; the error
    /// it reports is only recorded and observed) and the report's `iterations` are the
    /// pivots of [`counters`](IterativeMethod::counters). Default `false`.
    fn is_pivoting(&self) -> bool {
        false
    }
    /// Whether the error of the last step was measured at its iterate: the problem's error
    /// measure, or the quantity the method stops on (Lemke's z₀). `false` for a carried-over
    /// or estimated error (PGS between its exact checks repeats the last one; NSGS reports a
    /// light measure). Only measured errors go into the history and are marked so for the
    /// observer. Default `true`.
    fn measured(&self) -> bool {
        true
    }
    /// The step length of the last step, for the observer's log (PATH's log shows it): the
    /// `t` of a line search, or the step size of a gradient method. Read only for
    /// [`Progress::step`]; never changes the iterates. Default `None` (the method takes no
    /// step length, or does not know it).
    fn last_step(&self) -> Option<f64> {
        None
    }
    /// The forecast of a slowly converging method ([`Outlook`], in storage the method keeps
    /// between solves) and its period: the loop feeds it every measured error and, at every
    /// `period`-th iteration whose error was measured, ends with [`Status::Stalled`] when the
    /// tolerance is out of reach within the iteration or time limit. Read once when the loop
    /// starts (the storage is cleared then). Default `None`: no forecast.
    fn outlook(&mut self) -> Option<(&mut Outlook, usize)> {
        None
    }
    /// The method's stall rule, read once when the loop starts (see the [module docs](self)).
    /// Default `None`: no rule, [`on_stall`](IterativeMethod::on_stall) is never called.
    fn stall(&self) -> Option<Stall> {
        None
    }
    /// The measure the stall rule judges after a step whose error is `error` (a merit the
    /// method minimises, such as ½‖Φ‖²). Default: the error.
    fn stall_measure(&self, error: f64) -> f64 {
        error
    }
    /// Called when the stall rule sees progress (a new best merit: the watchdog keeps its
    /// iterate). Default: nothing.
    fn on_progress(&mut self) {}
    /// Called after every step from `since ≥ patience` steps without progress on; what the
    /// method does about it. Default [`OnStall::Continue`].
    fn on_stall(&mut self, since: usize) -> OnStall {
        let _ = since;
        OnStall::Continue
    }
}

/// For a solver that runs its own loop instead of [`run_with`]: tells `settings.observer`, if
/// there is one, of iteration `iteration` (its measured `error`, the effort `counters` and the
/// `step` length) and returns true when the observer asks to stop (the solver then ends with
/// [`Status::Interrupted`]), as [`run_with`] does.
pub fn observe(
    settings: &Settings,
    iteration: usize,
    error: f64,
    start: Instant,
    counters: Counters,
    step: Option<f64>,
) -> bool {
    settings.observer.as_ref().is_some_and(|obs| {
        let p = Progress { iteration, error, measured: true, elapsed: start.elapsed(), counters, step };
        obs(&p) == Control::Stop
    })
}

/// How the loop ended.
#[derive(Clone, Debug)]
pub struct LoopOutcome {
    /// Why it stopped.
    pub status: Status,
    /// Steps taken.
    pub iterations: usize,
    /// Error after the last step (the starting error when no step was taken).
    pub last_error: f64,
    /// The smallest error seen (∞ when none was).
    pub best_error: f64,
    /// Whether the loop called [`IterativeMethod::restore_best`].
    pub restored_best: bool,
    /// The measured errors (when `settings.record_history`), one per step whose error was
    /// measured ([`IterativeMethod::measured`]: every step for most methods).
    pub history: Vec<f64>,
    /// The step (1-based) of each entry of `history`.
    pub history_iterations: Vec<usize>,
    /// Time since the loop's start instant.
    pub elapsed: Duration,
    /// The method's counters at the end.
    pub counters: Counters,
    /// The method is pivoting ([`IterativeMethod::is_pivoting`]): `record` reports the
    /// pivots as iterations.
    pub pivoting: bool,
}

impl LoopOutcome {
    /// Writes what the loop knows into `report`: status, iterations (the pivots for a
    /// pivoting method), elapsed time, the counters (pivots, factorizations, line-search
    /// steps) and the history — moved into the report's storage when that is empty (so that
    /// storage taken from the report by [`run_with`] comes back), appended otherwise.
    /// Solvers call this rather than copying fields one by one; they add only the returned
    /// point's error and their message.
    pub fn record(mut self, report: &mut SolveReport) {
        report.status = self.status;
        report.iterations = if self.pivoting { self.counters.pivots } else { self.iterations };
        report.elapsed = self.elapsed;
        report.pivots = self.counters.pivots;
        report.factorizations = self.counters.factorizations;
        report.line_search_steps = self.counters.line_search_steps;
        if report.history.is_empty() {
            std::mem::swap(&mut report.history, &mut self.history);
            report.history_iterations.clear();
            report.history_iterations.append(&mut self.history_iterations);
        } else {
            // After an earlier loop's history: its steps come first.
            let offset = report.history_iterations.last().copied().unwrap_or(0);
            report.history.append(&mut self.history);
            report.history_iterations.extend(self.history_iterations.iter().map(|k| k + offset));
        }
    }
}

/// Runs `method` until its error is `≤ settings.tol`, a step asks to stop, the error is not
/// finite (`NumericalFailure`), the observer stops it (`Interrupted`), or a limit is reached:
/// `settings.max_iter_or(default_max_iter)` steps or `settings.time_limit`. The clock starts
/// now and the history goes to fresh storage; see [`run_with`].
pub fn run<M: IterativeMethod + ?Sized>(
    method: &mut M,
    settings: &Settings,
    default_max_iter: usize,
) -> LoopOutcome {
    run_with(method, settings, default_max_iter, Instant::now(), Vec::new())
}

/// [`run`] with the instant the time limit and `elapsed` count from (the start of the solve,
/// so that its set-up counts too) and the storage of the history (cleared first; pass
/// `std::mem::take(&mut report.history)` to reuse the report's, which
/// [`LoopOutcome::record`] then gives back).
pub fn run_with<M: IterativeMethod + ?Sized>(
    method: &mut M,
    settings: &Settings,
    default_max_iter: usize,
    start: Instant,
    mut history: Vec<f64>,
) -> LoopOutcome {
    history.clear();
    let mut run = Run::new(method, settings, settings.max_iter_or(default_max_iter), start, history);
    let status = run.iterate(method);
    run.finish(method, status)
}

/// The state of one [`run_with`] loop: its limits, the errors seen so far and the history.
struct Run<'s> {
    settings: &'s Settings,
    max_iter: usize,
    start: Instant,
    pivoting: bool,
    /// The error after the last step (the starting error before the first).
    last: f64,
    /// The smallest error seen, whose iterate the method keeps.
    best: f64,
    iterations: usize,
    rule: Option<StallRule>,
    /// The period of the method's forecast, if it has one.
    forecast: Option<usize>,
    history: Vec<f64>,
    history_iterations: Vec<usize>,
}

impl<'s> Run<'s> {
    /// Reads the method's pivoting flag, stall rule and forecast (whose storage it clears).
    fn new<M: IterativeMethod + ?Sized>(
        method: &mut M,
        settings: &'s Settings,
        max_iter: usize,
        start: Instant,
        history: Vec<f64>,
    ) -> Self {
        let pivoting = method.is_pivoting();
        let rule = method.stall().map(StallRule::new);
        let forecast = method.outlook().map(|(outlook, period)| {
            outlook.clear();
            period.max(1)
        });
        Run {
            settings,
            max_iter,
            start,
            pivoting,
            last: f64::INFINITY,
            best: f64::INFINITY,
            iterations: 0,
            rule,
            forecast,
            history,
            history_iterations: Vec::new(),
        }
    }

    /// Runs the steps until one of the loop's ends; returns its status.
    fn iterate<M: IterativeMethod + ?Sized>(&mut self, method: &mut M) -> Status {
        if let Some(e) = method.initial_error() {
            self.last = e;
            self.note_best(method, e);
            if !self.pivoting && e <= self.settings.tol {
                return Status::Solved;
            }
        }
        for k in 1..=self.max_iter {
            if let Some(status) = method.prepare_step() {
                return status;
            }
            let mut r = method.step();
            self.iterations = k;
            self.apply_stall_rule(method, &mut r);
            let measured = method.measured();
            self.apply_forecast(method, k, measured, &mut r);
            self.last = r.error;
            if self.settings.record_history && measured {
                self.history.push(r.error);
                self.history_iterations.push(k);
            }
            self.note_best(method, r.error);
            if let Some(status) = self.end_after(method, k, measured, r) {
                return status;
            }
        }
        Status::MaxIterations
    }

    /// Has the method keep its iterate when `error` is a new best.
    fn note_best<M: IterativeMethod + ?Sized>(&mut self, method: &mut M, error: f64) {
        if error < self.best {
            self.best = error;
            method.keep_best();
        }
    }

    /// Shows the step `r` to the stall rule, if there is one and the step does not stop the
    /// loop itself, and applies the method's answer to a stall to `r`.
    fn apply_stall_rule<M: IterativeMethod + ?Sized>(&mut self, method: &mut M, r: &mut StepResult) {
        let (Some(rule), None) = (&mut self.rule, r.stop) else {
            return;
        };
        let on_stall = match rule.observe(method.stall_measure(r.error)) {
            Verdict::Progress => {
                method.on_progress();
                return;
            }
            Verdict::Wait => return,
            Verdict::Stalled => method.on_stall(rule.since()),
        };
        match on_stall {
            OnStall::Continue => {}
            OnStall::Switch { error } => r.error = error,
            OnStall::RestoreBest => {
                // This step's iterate may be the best by the error (a halving rule does not
                // judge a new best as progress).
                self.note_best(method, r.error);
                if self.best < f64::INFINITY {
                    method.restore_best();
                    r.error = self.best;
                }
            }
            OnStall::Stop(status) => r.stop = Some(status),
        }
    }

    /// Feeds step `k`'s measured error to the method's forecast, if it has one and the step
    /// does not stop the loop itself; every `period`-th step, stops `r` with
    /// [`Status::Stalled`] when the tolerance is out of reach.
    fn apply_forecast<M: IterativeMethod + ?Sized>(
        &self,
        method: &mut M,
        k: usize,
        measured: bool,
        r: &mut StepResult,
    ) {
        let (Some(period), None, true) = (self.forecast, r.stop, measured) else {
            return;
        };
        if let Some((outlook, _)) = method.outlook() {
            outlook.push(k, r.error);
            if k.is_multiple_of(period) {
                outlook.set_elapsed(self.start.elapsed());
                if outlook.hopeless(self.settings.tol, self.max_iter, self.settings.time_limit) {
                    r.stop = Some(Status::Stalled);
                }
            }
        }
    }

    /// Whether the loop ends after step `k` (result `r`): the step's own stop, a NaN error,
    /// the tolerance, the observer or the time limit, in this order.
    fn end_after<M: IterativeMethod + ?Sized>(
        &self,
        method: &M,
        k: usize,
        measured: bool,
        r: StepResult,
    ) -> Option<Status> {
        if let Some(status) = r.stop {
            return Some(status);
        }
        if r.error.is_nan() {
            return Some(Status::NumericalFailure);
        }
        if !self.pivoting && r.error <= self.settings.tol {
            return Some(Status::Solved);
        }
        if let Some(obs) = &self.settings.observer {
            let p = Progress {
                iteration: k,
                error: r.error,
                measured,
                elapsed: self.start.elapsed(),
                counters: method.counters(),
                step: method.last_step(),
            };
            if obs(&p) == Control::Stop {
                return Some(Status::Interrupted);
            }
        }
        if self.settings.time_limit.is_some_and(|t| self.start.elapsed() >= t) {
            return Some(Status::TimeLimit);
        }
        None
    }

    /// Ends the loop with `status`: puts the best iterate back when the last is worse (or
    /// NaN) and the loop did not solve, and gathers the outcome.
    fn finish<M: IterativeMethod + ?Sized>(self, method: &mut M, status: Status) -> LoopOutcome {
        let (last, best) = (self.last, self.best);
        let restored_best = status != Status::Solved && (last.is_nan() || last > best);
        if restored_best {
            method.restore_best();
        }
        LoopOutcome {
            status,
            iterations: self.iterations,
            last_error: last,
            best_error: best,
            restored_best,
            history: self.history,
            history_iterations: self.history_iterations,
            elapsed: self.start.elapsed(),
            counters: method.counters(),
            pivoting: self.pivoting,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// Halves its error every step.
    struct Halving(f64);
    impl IterativeMethod for Halving {
        fn step(&mut self) -> StepResult {
            self.0 *= 0.5;
            StepResult::go(self.0)
        }
    }

    #[test]
    fn stops_at_tolerance_with_history() {
        let s = Settings { tol: 0.1, record_history: true, ..Settings::default() };
        let o = run(&mut Halving(1.0), &s, 100);
        assert_eq!(o.status, Status::Solved);
        assert_eq!(o.iterations, 4);
        assert_eq!(o.history, vec![0.5, 0.25, 0.125, 0.0625]);
    }

    #[test]
    fn honours_max_iter_and_default() {
        let s = Settings { tol: 0.0, max_iter: 3, ..Settings::default() };
        let o = run(&mut Halving(1.0), &s, 100);
        assert_eq!((o.status, o.iterations), (Status::MaxIterations, 3));
        let o = run(&mut Halving(1.0), &Settings { tol: 0.0, ..Settings::default() }, 7);
        assert_eq!(o.iterations, 7);
    }

    #[test]
    fn observer_sees_every_step_and_can_stop() {
        let seen = Arc::new(AtomicUsize::new(0));
        let seen2 = seen.clone();
        let s = Settings {
            tol: 0.0,
            observer: Some(Arc::new(move |p: &Progress| {
                seen2.fetch_add(1, Ordering::SeqCst);
                if p.iteration == 5 {
                    Control::Stop
                } else {
                    Control::Continue
                }
            })),
            ..Settings::default()
        };
        let o = run(&mut Halving(1.0), &s, 100);
        assert_eq!((o.status, o.iterations), (Status::Interrupted, 5));
        assert_eq!(seen.load(Ordering::SeqCst), 5);
    }

    #[test]
    fn zero_time_limit_stops_after_one_step() {
        let s = Settings { tol: 0.0, time_limit: Some(Duration::ZERO), ..Settings::default() };
        let o = run(&mut Halving(1.0), &s, 100);
        assert_eq!((o.status, o.iterations), (Status::TimeLimit, 1));
    }

    #[test]
    fn nan_error_is_a_numerical_failure() {
        struct Nan;
        impl IterativeMethod for Nan {
            fn step(&mut self) -> StepResult {
                StepResult::go(f64::NAN)
            }
        }
        let o = run(&mut Nan, &Settings::default(), 10);
        assert_eq!(o.status, Status::NumericalFailure);
    }

    /// Errors from a list; keeps the index of the best step; counts one pivot a step.
    struct Scripted {
        errors: Vec<f64>,
        at: usize,
        kept: Option<usize>,
        restored: bool,
        pivoting: bool,
        end_before: Option<(usize, Status)>,
    }
    impl Scripted {
        fn new(errors: &[f64]) -> Self {
            Scripted {
                errors: errors.to_vec(),
                at: 0,
                kept: None,
                restored: false,
                pivoting: false,
                end_before: None,
            }
        }
    }
    impl IterativeMethod for Scripted {
        fn prepare_step(&mut self) -> Option<Status> {
            self.end_before.filter(|&(k, _)| k == self.at).map(|(_, s)| s)
        }
        fn step(&mut self) -> StepResult {
            self.at += 1;
            StepResult::go(self.errors[self.at - 1])
        }
        fn counters(&self) -> Counters {
            Counters { pivots: self.at, factorizations: 2 * self.at, line_search_steps: 3 }
        }
        fn keep_best(&mut self) {
            self.kept = Some(self.at);
        }
        fn restore_best(&mut self) {
            self.restored = true;
        }
        fn is_pivoting(&self) -> bool {
            self.pivoting
        }
    }

    #[test]
    fn best_iterate_is_kept_and_restored_only_when_the_last_is_worse() {
        let s = Settings { tol: 0.0, max_iter: 4, ..Settings::default() };
        let mut m = Scripted::new(&[3.0, 1.0, 2.0, 5.0]);
        let o = run(&mut m, &s, 10);
        assert_eq!((o.status, m.kept, m.restored, o.best_error), (Status::MaxIterations, Some(2), true, 1.0));
        assert!(o.restored_best);
        // Solved: never restored.
        let mut m = Scripted::new(&[3.0, 1.0, 2.0, 0.5]);
        let o = run(&mut m, &Settings { tol: 0.5, ..Settings::default() }, 10);
        assert_eq!((o.status, m.kept, m.restored), (Status::Solved, Some(4), false));
        // The last is the best: not restored.
        let mut m = Scripted::new(&[3.0, 2.0, 1.0]);
        let o = run(&mut m, &Settings { tol: 0.0, max_iter: 3, ..Settings::default() }, 10);
        assert!(!m.restored && !o.restored_best);
    }

    #[test]
    fn counters_and_pivots_go_into_the_report() {
        let s = Settings { tol: 0.0, max_iter: 3, record_history: true, ..Settings::default() };
        let mut m = Scripted::new(&[3.0, 2.0, 1.0]);
        let mut report = SolveReport::new("x");
        run(&mut m, &s, 10).record(&mut report);
        assert_eq!(
            (report.iterations, report.pivots, report.factorizations, report.line_search_steps),
            (3, 3, 6, 3)
        );
        assert_eq!(report.history, vec![3.0, 2.0, 1.0]);
    }

    #[test]
    fn a_pivoting_method_ignores_the_tolerance_and_reports_pivots() {
        let s = Settings { tol: 1.0, ..Settings::default() };
        let mut m = Scripted::new(&[0.5, 0.25, 0.0]);
        m.pivoting = true;
        m.end_before = Some((3, Status::RayTermination));
        let o = run(&mut m, &s, 10);
        assert_eq!(
            (o.status, o.iterations, o.counters.pivots, o.last_error),
            (Status::RayTermination, 3, 3, 0.0)
        );
        let mut m = Scripted::new(&[0.5, 0.25, 0.0]);
        m.pivoting = true;
        m.end_before = Some((0, Status::Solved));
        let o = run(&mut m, &s, 10);
        assert_eq!((o.status, o.iterations), (Status::Solved, 0));
    }

    /// Errors from a list, with a stall rule and a scripted answer to a stall.
    struct Stalling {
        inner: Scripted,
        rule: Stall,
        answer: OnStall,
        stalls: Vec<(usize, usize)>,
        progress: usize,
    }
    impl IterativeMethod for Stalling {
        fn step(&mut self) -> StepResult {
            self.inner.step()
        }
        fn keep_best(&mut self) {
            self.inner.keep_best();
        }
        fn restore_best(&mut self) {
            self.inner.restore_best();
        }
        fn stall(&self) -> Option<Stall> {
            Some(self.rule)
        }
        fn on_progress(&mut self) {
            self.progress += 1;
        }
        fn on_stall(&mut self, since: usize) -> OnStall {
            self.stalls.push((self.inner.at, since));
            self.answer
        }
    }

    fn stalling(errors: &[f64], test: ProgressTest, answer: OnStall) -> Stalling {
        Stalling {
            inner: Scripted::new(errors),
            rule: Stall { patience: 2, test, mark: f64::INFINITY },
            answer,
            stalls: Vec::new(),
            progress: 0,
        }
    }

    #[test]
    fn the_stall_rule_calls_on_stall_after_its_patience_and_every_step_after() {
        let s = Settings { tol: 0.0, max_iter: 6, record_history: true, ..Settings::default() };
        // Halving: 8 (progress), 5, 4.5 (stalled at step 3), 4.2 (step 4), 3 (progress: ≤ 4),
        // 2.9.
        let mut m = stalling(&[8.0, 5.0, 4.5, 4.2, 3.0, 2.9], ProgressTest::Halving, OnStall::Continue);
        let o = run(&mut m, &s, 10);
        assert_eq!(
            (o.status, m.stalls.clone(), m.progress),
            (Status::MaxIterations, vec![(3, 2), (4, 3)], 2)
        );
        // NewBest: every decrease is progress; no stall.
        let mut m = stalling(&[8.0, 5.0, 4.5, 4.2, 3.0, 2.9], ProgressTest::NewBest, OnStall::Continue);
        run(&mut m, &s, 10);
        assert_eq!((m.stalls.len(), m.progress), (0, 6));
        // Patience 0: never stalls.
        let mut m = stalling(&[1.0, 1.0, 1.0], ProgressTest::NewBest, OnStall::Stop(Status::Stalled));
        m.rule.patience = 0;
        let o = run(&mut m, &Settings { tol: 0.0, max_iter: 3, ..Settings::default() }, 10);
        assert_eq!((o.status, m.stalls.len()), (Status::MaxIterations, 0));
    }

    #[test]
    fn on_stall_can_switch_restore_or_stop() {
        let s = Settings { tol: 0.0, max_iter: 5, record_history: true, ..Settings::default() };
        let errors = [2.0, 3.0, 4.0, 5.0, 6.0];
        // Stop: the loop ends at the stalled step with the status given.
        let mut m = stalling(&errors, ProgressTest::NewBest, OnStall::Stop(Status::Stalled));
        let o = run(&mut m, &s, 10);
        assert_eq!((o.status, o.iterations), (Status::Stalled, 3));
        // Switch: the error the method gives replaces the step's, in the history too; the
        // rule judged the step's own measure, so every later step is stalled as well.
        let mut m = stalling(&errors, ProgressTest::NewBest, OnStall::Switch { error: 0.5 });
        let o = run(&mut m, &s, 10);
        assert_eq!(o.history, vec![2.0, 3.0, 0.5, 0.5, 0.5]);
        assert_eq!(m.stalls, vec![(3, 2), (4, 3), (5, 4)]);
        // RestoreBest: the best iterate (step 1) comes back and its error is the step's.
        let mut m = stalling(&errors, ProgressTest::NewBest, OnStall::RestoreBest);
        let o = run(&mut m, &s, 10);
        assert!(m.inner.restored && m.inner.kept == Some(1));
        assert_eq!(o.history, vec![2.0, 3.0, 2.0, 2.0, 2.0]);
    }

    #[test]
    fn run_with_reuses_the_history_storage() {
        let s = Settings { tol: 0.1, record_history: true, ..Settings::default() };
        let mut report = SolveReport::new("x");
        report.history = Vec::with_capacity(16);
        report.history.push(7.0);
        let ptr = report.history.as_ptr();
        let h = std::mem::take(&mut report.history);
        run_with(&mut Halving(1.0), &s, 100, Instant::now(), h).record(&mut report);
        assert_eq!(report.history, vec![0.5, 0.25, 0.125, 0.0625]);
        assert_eq!(report.history.as_ptr(), ptr);
    }
}
