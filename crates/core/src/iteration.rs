//! The one iteration loop shared by perp's iterative solvers (after argmin's executor): a
//! solver supplies one step; the loop does limits, timing, history and the observer.

use crate::{Settings, Status};
use std::time::{Duration, Instant};

/// What the observer is told after every iteration.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// 1-based iteration number.
    pub iteration: usize,
    /// The error measure after this iteration.
    pub error: f64,
    /// Time since the loop started.
    pub elapsed: Duration,
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

/// One iterative method, seen by the loop.
pub trait IterativeMethod {
    /// The error at the starting point, if the method can compute it cheaply; a warm start
    /// that already meets the tolerance then costs no iteration.
    fn initial_error(&mut self) -> Option<f64> {
        None
    }
    /// Performs one iteration.
    fn step(&mut self) -> StepResult;
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
    /// Errors after every step (when `settings.record_history`).
    pub history: Vec<f64>,
    /// Time spent.
    pub elapsed: Duration,
}

impl LoopOutcome {
    /// Writes what the loop knows into `report`: status, iterations, elapsed time, and the
    /// history appended to the report's (whose storage is reused). Solvers call this rather
    /// than copying the fields one by one; what only the solver knows (factorizations,
    /// line-search steps, pivots, its message) it adds itself.
    pub fn record(mut self, report: &mut crate::SolveReport) {
        report.status = self.status;
        report.iterations = self.iterations;
        report.elapsed = self.elapsed;
        report.history.append(&mut self.history);
    }
}

/// Runs `method` until its error is `≤ settings.tol`, a step asks to stop, the error is not
/// finite (`NumericalFailure`), the observer stops it (`Interrupted`), or a limit is reached:
/// `settings.max_iter_or(default_max_iter)` steps or `settings.time_limit`.
pub fn run<M: IterativeMethod + ?Sized>(
    method: &mut M,
    settings: &Settings,
    default_max_iter: usize,
) -> LoopOutcome {
    let start = Instant::now();
    let max_iter = settings.max_iter_or(default_max_iter);
    let mut history = Vec::new();
    let out = |status, iterations, last_error, history| LoopOutcome {
        status,
        iterations,
        last_error,
        history,
        elapsed: start.elapsed(),
    };
    let mut last = f64::INFINITY;
    if let Some(e) = method.initial_error() {
        last = e;
        if e <= settings.tol {
            return out(Status::Solved, 0, e, history);
        }
    }
    for k in 1..=max_iter {
        let r = method.step();
        last = r.error;
        if settings.record_history {
            history.push(r.error);
        }
        if let Some(status) = r.stop {
            return out(status, k, last, history);
        }
        if r.error.is_nan() {
            return out(Status::NumericalFailure, k, last, history);
        }
        if r.error <= settings.tol {
            return out(Status::Solved, k, last, history);
        }
        if let Some(obs) = &settings.observer {
            let p = Progress { iteration: k, error: r.error, elapsed: start.elapsed() };
            if obs(&p) == Control::Stop {
                return out(Status::Interrupted, k, last, history);
            }
        }
        if settings.time_limit.is_some_and(|t| start.elapsed() >= t) {
            return out(Status::TimeLimit, k, last, history);
        }
    }
    out(Status::MaxIterations, max_iter, last, history)
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
}
