//! The runner: every solver on every problem, each solve on a worker thread with an enforced
//! deadline, panics caught, times the median of the repeats.

use super::config::BenchConfig;
use super::problems::{BenchProblem, ReferenceKernel};
use super::record::{median, BenchRecord};
use super::solvers::{Registry, SolverSet};
use perp_core::{Error, Settings, SolveReport, Status};
use rayon::prelude::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs every solver of `solvers` that applies on every problem with perp's [`Registry`]
/// (see [`run_with`]). An unknown solver name is an error before any work.
pub fn run(
    problems: &[BenchProblem],
    solvers: &[String],
    config: &BenchConfig,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<BenchRecord>, Error> {
    run_with(Arc::new(Registry), problems, solvers, config, progress)
}

/// Runs every solver of `solvers` that `set` applies to each problem, with
/// `config.threads` problems at a time. Records come back in problem-major, solver-minor order
/// whatever the thread count. `progress` is called after each problem with the number done.
pub fn run_with(
    set: Arc<dyn SolverSet>,
    problems: &[BenchProblem],
    solvers: &[String],
    config: &BenchConfig,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<BenchRecord>, Error> {
    config.validate()?;
    for s in solvers {
        set.check(s)?;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .build()
        .map_err(|e| Error::setting("threads", config.threads, &e.to_string()))?;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let per_problem: Vec<Vec<BenchRecord>> = pool.install(|| {
        problems
            .par_iter()
            .map(|bp| {
                let reference = bp.problem.reference_seconds();
                let shared = Arc::new(bp.clone());
                let recs = solvers
                    .iter()
                    .filter(|s| set.applies(s, &bp.problem))
                    .map(|s| run_one(&set, &shared, s, config, reference))
                    .collect();
                progress(done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1);
                recs
            })
            .collect()
    });
    Ok(per_problem.into_iter().flatten().collect())
}

/// How one solve on a worker thread ended.
enum Outcome {
    Report(SolveReport),
    Failed(Error),
    Panicked(String),
    /// No answer by the hard deadline; the worker was abandoned.
    Abandoned,
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}

/// One solve on a fresh worker thread: the outcome and the seconds (measured on the worker
/// around the solve; for an abandoned worker, the time waited).
fn solve_once(
    set: &Arc<dyn SolverSet>,
    problem: &Arc<BenchProblem>,
    solver: &str,
    settings: &Settings,
    deadline: Option<Duration>,
) -> (Outcome, f64) {
    let (tx, rx) = std::sync::mpsc::channel();
    let (set, problem, name, settings) = (set.clone(), problem.clone(), solver.to_string(), settings.clone());
    let started = Instant::now();
    let spawned = std::thread::Builder::new().name(format!("perp-bench {solver}")).spawn(move || {
        let t = Instant::now();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            set.solve(&name, &problem.problem, &settings)
        }));
        let seconds = t.elapsed().as_secs_f64();
        // The receiver is gone when the runner abandoned this worker: nothing to do then.
        let _ = tx.send((r, seconds));
    });
    let handle = match spawned {
        Ok(h) => h,
        Err(e) => {
            let msg = format!("could not start a solve thread: {e}");
            return (Outcome::Failed(Error::Numerical { solver: solver.to_string(), message: msg }), 0.0);
        }
    };
    let answer = match deadline {
        Some(d) => rx.recv_timeout(d).ok(),
        None => rx.recv().ok(),
    };
    match answer {
        Some((r, seconds)) => {
            let _ = handle.join();
            let outcome = match r {
                Ok(Ok(report)) => Outcome::Report(report),
                Ok(Err(e)) => Outcome::Failed(e),
                Err(payload) => Outcome::Panicked(panic_text(payload.as_ref())),
            };
            (outcome, seconds)
        }
        // Timed out: drop the handle, which detaches (abandons) the worker.
        None => (Outcome::Abandoned, started.elapsed().as_secs_f64()),
    }
}

/// Runs `solver` on `bp` `config.repeat` times. Status, iterations and error come from the
/// first solve; a later solve that fails (panic, `Err`, deadline, over the limit) replaces
/// them and ends the repeats. The time is the median over the solves made.
fn run_one(
    set: &Arc<dyn SolverSet>,
    bp: &Arc<BenchProblem>,
    solver: &str,
    config: &BenchConfig,
    reference_seconds: f64,
) -> BenchRecord {
    let limit = config.settings.time_limit;
    let deadline = config.hard_deadline();
    let mut rec = BenchRecord {
        problem: bp.name.clone(),
        kind: bp.kind.clone(),
        n: bp.problem.n(),
        solver: solver.to_string(),
        status: String::new(),
        iterations: 0,
        error: f64::NAN,
        seconds: f64::NAN,
        reference_seconds,
        message: None,
    };
    let mut times = Vec::with_capacity(config.repeat);
    for k in 0..config.repeat {
        let (outcome, seconds) = solve_once(set, bp, solver, &config.settings, deadline);
        times.push(seconds);
        let failed = match outcome {
            Outcome::Report(report) => {
                let over = limit.filter(|l| seconds > l.as_secs_f64());
                if k == 0 || over.is_some() {
                    rec.status = report.status.as_str().to_string();
                    rec.iterations = report.iterations;
                    rec.error = report.error;
                    rec.message = None;
                }
                if let Some(l) = over {
                    rec.status = Status::TimeLimit.as_str().to_string();
                    rec.message = Some(format!(
                        "returned after {seconds:.3} s, over the time limit of {} s",
                        l.as_secs_f64()
                    ));
                }
                over.is_some()
            }
            Outcome::Failed(e) => {
                rec.status = "error".to_string();
                rec.iterations = 0;
                rec.error = f64::NAN;
                rec.message = Some(e.to_string());
                true
            }
            Outcome::Panicked(msg) => {
                rec.status = Status::NumericalFailure.as_str().to_string();
                rec.iterations = 0;
                rec.error = f64::NAN;
                rec.message = Some(format!("solver panicked: {msg}"));
                true
            }
            Outcome::Abandoned => {
                rec.status = Status::TimeLimit.as_str().to_string();
                rec.iterations = 0;
                rec.error = f64::NAN;
                rec.message = Some(format!(
                    "no answer within the hard deadline of {:.3} s (2 x time limit + grace); the solve thread \
                     was abandoned",
                    deadline.map_or(f64::INFINITY, |d| d.as_secs_f64())
                ));
                true
            }
        };
        if failed {
            break;
        }
    }
    rec.seconds = median(times).unwrap_or(f64::NAN);
    rec
}
