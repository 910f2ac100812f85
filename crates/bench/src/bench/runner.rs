//! The runner: every solver on every problem, each solve on a worker thread with an enforced
//! deadline, panics caught, times the median of the repeats.

use super::config::BenchConfig;
use super::curves::{pick, Curve};
use super::problems::{BenchProblem, ReferenceKernel};
use super::record::{median, BenchRecord};
use super::solvers::{Registry, SolverSet};
use perp_core::iteration::Control;
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
    progress: &(dyn Fn(usize, &[BenchRecord]) + Sync),
) -> Result<Vec<BenchRecord>, Error> {
    run_with(Arc::new(Registry), problems, solvers, config, progress)
}

/// Runs every solver of `solvers` that `set` applies to each problem, with
/// `config.threads` problems at a time. Records come back in problem-major, solver-minor order
/// whatever the thread count. `progress` is called after each problem with the number done
/// and that problem's records (to save them as they come). When `config.cancel` is set the run
/// stops early (see [`BenchConfig::cancel`]) and returns the records of the solves that
/// finished.
pub fn run_with(
    set: Arc<dyn SolverSet>,
    problems: &[BenchProblem],
    solvers: &[String],
    config: &BenchConfig,
    progress: &(dyn Fn(usize, &[BenchRecord]) + Sync),
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
                if config.cancelled() {
                    return Vec::new();
                }
                let reference = bp.problem.reference_seconds();
                let shared = Arc::new(bp.clone());
                let recs: Vec<BenchRecord> = solvers
                    .iter()
                    .filter(|s| set.applies(s, &bp.problem))
                    .map_while(|s| {
                        (!config.cancelled()).then(|| run_one(&set, &shared, s, config, reference))
                    })
                    .flatten()
                    .collect();
                if !config.cancelled() {
                    progress(done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1, &recs);
                }
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
    /// The run was cancelled while waiting; the worker was abandoned.
    Cancelled,
}

/// The status of a run whose solve returned `Err(e)`: [`NOT_APPLICABLE`] when the solver
/// cannot take the problem (`Error::Requirement`: schur-lemke on a nonlinear F, lemke on a
/// box-LCP), `error` otherwise.
fn failed_status(e: &Error) -> String {
    match e {
        Error::Requirement { .. } => super::record::NOT_APPLICABLE.to_string(),
        _ => "error".to_string(),
    }
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

/// Solves shorter than this (seconds) run back to back on their worker ([`Worker::spawn`]).
const QUICK_SOLVE: f64 = 1e-3;

/// What the worker sends after each solve: the solver's answer (or the panic's text) and the
/// seconds of that solve alone.
type Sent = (Result<Result<SolveReport, Error>, String>, f64);

/// The repeats of one (problem, solver) on one worker thread, with one solver built once for
/// all of them ([`SolverSet::solve_repeated`]). The worker solves once, sends the answer, and
/// solves again only when the runner says so ([`Worker::next`]); dropping the worker stops it
/// after the solve under way.
struct Worker {
    answers: std::sync::mpsc::Receiver<Sent>,
    go: Option<std::sync::mpsc::Sender<()>>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Worker {
    fn spawn(
        set: &Arc<dyn SolverSet>,
        problem: &Arc<BenchProblem>,
        solver: &str,
        settings: &Settings,
        repeat: usize,
    ) -> Result<Worker, Error> {
        let (tx, answers) = std::sync::mpsc::channel::<Sent>();
        let (go, go_rx) = std::sync::mpsc::channel::<()>();
        let (set, problem, name, settings) =
            (set.clone(), problem.clone(), solver.to_string(), settings.clone());
        let handle = std::thread::Builder::new()
            .name(format!("perp-bench {solver}"))
            .spawn(move || {
                let last = std::cell::Cell::new(Instant::now());
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    set.solve_repeated(&name, &problem.problem, &settings, repeat, &mut |r, seconds| {
                        // The receiver is gone when the runner abandoned this worker or is done
                        // with it; otherwise wait for its word before solving again — except
                        // after a solve under a millisecond, where blocking between solves
                        // (the core idles, the caches go to the other thread) would cost more
                        // than the solve and make its time bimodal: the next solve starts at
                        // once, the runner's words queue up, and a closed channel still stops
                        // the worker (dropping the worker closes it).
                        let sent = tx.send((Ok(r), seconds)).is_ok();
                        let more = sent
                            && if seconds < QUICK_SOLVE {
                                !matches!(go_rx.try_recv(), Err(std::sync::mpsc::TryRecvError::Disconnected))
                            } else {
                                go_rx.recv().is_ok()
                            };
                        last.set(Instant::now());
                        more
                    })
                }));
                if let Err(payload) = r {
                    let _ = tx.send((Err(panic_text(payload.as_ref())), last.get().elapsed().as_secs_f64()));
                }
            })
            .map_err(|e| Error::Numerical {
                solver: solver.to_string(),
                message: format!("could not start a solve thread: {e}"),
            })?;
        Ok(Worker { answers, go: Some(go), handle: Some(handle) })
    }

    /// The next solve's outcome and seconds (for an abandoned worker, the time waited); `None`
    /// when the worker has no more answers. `first` is false for every solve after the first,
    /// which the worker starts on the runner's word.
    fn next(
        &mut self,
        first: bool,
        deadline: Option<Duration>,
        config: &BenchConfig,
    ) -> Option<(Outcome, f64)> {
        if !first {
            // A worker on quick solves does not wait for this word and may have finished all
            // its repeats already: its answers still queue in the channel, so a failed send
            // does not end the reading (the queue's end does, `Disconnected` below).
            let _ = self.go.as_ref()?.send(());
        }
        let started = Instant::now();
        // Wait in slices of at most 0.1 s so that a cancelled run stops waiting soon.
        const SLICE: Duration = Duration::from_millis(100);
        let answer = loop {
            let left = deadline.map(|d| d.saturating_sub(started.elapsed()));
            match self.answers.recv_timeout(left.map_or(SLICE, |l| l.min(SLICE))) {
                Ok(a) => break Ok(a),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break Err(false),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if config.cancelled() {
                        self.handle = None;
                        return Some((Outcome::Cancelled, started.elapsed().as_secs_f64()));
                    }
                    if left.is_some_and(|l| l <= SLICE) {
                        break Err(true);
                    }
                }
            }
        };
        match answer {
            Ok((Ok(Ok(report)), seconds)) => Some((Outcome::Report(report), seconds)),
            Ok((Ok(Err(e)), seconds)) => Some((Outcome::Failed(e), seconds)),
            Ok((Err(panic), seconds)) => Some((Outcome::Panicked(panic), seconds)),
            // Timed out: detach (abandon) the worker.
            Err(true) => {
                self.handle = None;
                Some((Outcome::Abandoned, started.elapsed().as_secs_f64()))
            }
            Err(false) => None,
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // No more words: the worker ends after the solve under way (at once if it is waiting).
        self.go = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Runs `solver` on `bp` `config.repeat` times. Status, iterations and error come from the
/// first solve; a later solve that fails (panic, `Err`, deadline, over the limit) replaces
/// them and ends the repeats. The time is the median over the solves made. `None` when the
/// run was cancelled before the solves finished (an unfinished run is not a record).
fn run_one(
    set: &Arc<dyn SolverSet>,
    bp: &Arc<BenchProblem>,
    solver: &str,
    config: &BenchConfig,
    reference_seconds: f64,
) -> Option<BenchRecord> {
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
    let settings = solve_settings(config, &bp.name, solver);
    let mut worker = match Worker::spawn(set, bp, solver, &settings, config.repeat) {
        Ok(w) => w,
        Err(e) => {
            rec.status = failed_status(&e);
            rec.message = Some(e.to_string());
            return Some(rec);
        }
    };
    for k in 0..config.repeat {
        let Some((outcome, seconds)) = worker.next(k == 0, deadline, config) else { break };
        times.push(seconds);
        if take_outcome(&mut rec, outcome, k == 0, seconds, config)? {
            break;
        }
    }
    rec.seconds = median(times).unwrap_or(f64::NAN);
    if config.log_iterations {
        // The loop tells the observer of every iteration but the last (the one that solves or
        // stops): this line closes each run's log.
        eprintln!(
            "{} {} end {} iterations {} error {:.6e}",
            rec.problem, rec.solver, rec.status, rec.iterations, rec.error
        );
    }
    Some(rec)
}

/// Takes the `outcome` of one solve (`first` or a repeat, `seconds` long) into `rec`: whether
/// it failed and ends the repeats, `None` when the run was cancelled.
fn take_outcome(
    rec: &mut BenchRecord,
    outcome: Outcome,
    first: bool,
    seconds: f64,
    config: &BenchConfig,
) -> Option<bool> {
    let failed = match outcome {
        Outcome::Cancelled => return None,
        Outcome::Report(report) if report.status == Status::Interrupted && config.cancelled() => return None,
        Outcome::Report(report) => {
            let over = config.settings.time_limit.filter(|l| seconds > l.as_secs_f64());
            if first || over.is_some() {
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
        Outcome::Failed(e) => fail(rec, failed_status(&e), e.to_string()),
        Outcome::Panicked(msg) => {
            fail(rec, Status::NumericalFailure.as_str().to_string(), format!("solver panicked: {msg}"))
        }
        Outcome::Abandoned => fail(
            rec,
            Status::TimeLimit.as_str().to_string(),
            format!(
                "no answer within the hard deadline of {:.3} s (2 x time limit + grace); the solve thread \
                 was abandoned",
                config.hard_deadline().map_or(f64::INFINITY, |d| d.as_secs_f64())
            ),
        ),
    };
    Some(failed)
}

/// Marks `rec` failed with `status` and `message` (no iterations, no error): `true`, the
/// repeats end.
fn fail(rec: &mut BenchRecord, status: String, message: String) -> bool {
    rec.status = status;
    rec.iterations = 0;
    rec.error = f64::NAN;
    rec.message = Some(message);
    true
}

/// The settings of one solve of `solver` on `problem`: `config.settings`, with an observer
/// that logs each iteration whose error was measured to stderr when `config.log_iterations` is set (any observer
/// already there is still called, and its answer kept).
fn solve_settings(config: &BenchConfig, problem: &str, solver: &str) -> Settings {
    let mut s = config.settings.clone();
    if config.log_iterations {
        let inner = s.observer.take();
        let (problem, solver) = (problem.to_string(), solver.to_string());
        s.observer = Some(Arc::new(move |p| {
            // Only measured errors: PGS's and NSGS's steps between exact checks carry an old
            // error or an estimate, which drew staircases.
            if p.measured {
                eprintln!("{problem} {solver} iteration {} error {:.6e}", p.iteration, p.error);
            }
            inner.as_ref().map_or(Control::Continue, |f| f(p))
        }));
    }
    s
}

/// The convergence curves of the failed and slowest runs of `records` (at most `max`, chosen
/// by [`pick`]): each is solved once more, as it was timed (same solver set, settings and
/// hard deadline) but with `record_history` on, after the timed runs. A run that gives no
/// history (a refusal, a panic, a missed deadline) has no curve. Runs one solve at a time.
pub fn record_curves(
    set: Arc<dyn SolverSet>,
    problems: &[BenchProblem],
    records: &[BenchRecord],
    config: &BenchConfig,
    max: usize,
) -> Vec<Curve> {
    let mut curves = Vec::new();
    let picked = pick(records, max);
    for &(i, why) in &picked {
        if config.cancelled() {
            break;
        }
        if let Some(c) = record_curve(&set, problems, &records[i], why, config) {
            curves.push(c);
            continue;
        }
        if why != "slowest" {
            continue;
        }
        // The slowest run of its kind recorded fewer than two measured errors (schur-lemke's
        // few pivots): the next slowest solved runs of that kind are tried instead, so that the
        // kind keeps a curve (at most 3 more solves).
        let kind = &records[i].kind;
        let mut others: Vec<usize> = (0..records.len())
            .filter(|&j| {
                let r = &records[j];
                j != i && &r.kind == kind && r.solved() && r.iterations >= 2 && r.seconds.is_finite()
            })
            .filter(|j| !picked.iter().any(|(k, _)| k == j))
            .collect();
        others.sort_by(|&a, &b| records[b].seconds.total_cmp(&records[a].seconds));
        for j in others.into_iter().take(3) {
            if config.cancelled() {
                break;
            }
            if let Some(c) = record_curve(&set, problems, &records[j], why, config) {
                curves.push(c);
                break;
            }
        }
    }
    curves
}

/// The curve of the run `r`, solved once more with its history recorded; `None` when the
/// solve fails or measured fewer than two errors (one point is no curve, and was drawn as one
/// dot; issue 34, item 7).
fn record_curve(
    set: &Arc<dyn SolverSet>,
    problems: &[BenchProblem],
    r: &BenchRecord,
    why: &str,
    config: &BenchConfig,
) -> Option<Curve> {
    let bp = problems.iter().find(|p| p.name == r.problem)?;
    let mut settings = solve_settings(config, &bp.name, &r.solver);
    settings.record_history = true;
    let mut worker = Worker::spawn(set, &Arc::new(bp.clone()), &r.solver, &settings, 1).ok()?;
    match worker.next(true, config.hard_deadline(), config) {
        Some((Outcome::Report(report), _))
            if report.history.len().min(report.history_iterations.len()) >= 2 =>
        {
            Some(Curve {
                problem: r.problem.clone(),
                kind: r.kind.clone(),
                solver: r.solver.clone(),
                why: why.to_string(),
                status: report.status.as_str().to_string(),
                points: Curve::thin(&report.history, &report.history_iterations),
            })
        }
        _ => None,
    }
}
