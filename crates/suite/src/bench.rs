//! The benchmark runner behind `perp bench`: every applicable solver on every problem, one
//! [`BenchRecord`] each, written as `results.csv`, `results.json`, `summary.md` and
//! `profile.svg` (a Dolan–Moré performance profile, [`crate::profile`]).
//!
//! * **Problems.** A [`BenchProblem`] is a name, a kind (`lcp`, `mlcp`, `ncp`, `fc2d`, `fc3d`)
//!   and a problem (the catalogue's `Problem`, also named [`Instance`] here). [`Registry`]
//!   runs every catalogue solver of the problem's family (`perp_catalogue::names`) through the
//!   catalogue's one dispatch (`perp_catalogue::Solver::solve`, as `perp solve` does). A test
//!   or a caller with its own solvers implements [`SolverSet`] and calls [`run_with`].
//! * **Timing.** Each solve runs on its own worker thread and is timed there with a monotonic
//!   clock ([`Instant`]) around the solve alone (no reading, no start-up); with
//!   [`BenchConfig::repeat`] = N the recorded time is the median of N solves. Problems run in
//!   parallel over [`BenchConfig::threads`] (a rayon pool), each timed solve on one thread (the
//!   solvers use `faer::Par::Seq`). Everything but the times is the same for any thread count.
//! * **Time limits.** The limit `settings.time_limit` is passed to the solver (cooperative);
//!   a solve that returns after more than the limit is recorded as `time_limit`. It is also
//!   **enforced**: when the worker has not answered after [`BenchConfig::hard_deadline`]
//!   (twice the limit plus a grace of 1 s by default), the run is recorded as `time_limit`
//!   and the runner moves on. Rust cannot kill a thread, so that worker is *abandoned*: it
//!   keeps its CPU until the solver returns by itself or the process exits (its answer is then
//!   dropped). A runaway solver can therefore slow down the timings that follow it.
//! * **Failures.** A solver that returns `Err` is recorded with status `error` and the
//!   message; a solver that panics is caught (the worker's `catch_unwind`) and recorded as
//!   `numerical_failure` with the panic message; the run goes on in both cases.
//! * **Reference kernel.** Because these machines are noisy, every problem also gets a
//!   reference time measured in the same run — one dense LU factorization of its M (W for
//!   frictional problems, the Jacobian at the start for NCPs) — and `summary.md` reports each
//!   solver's time as a ratio to it (ARCHITECTURE.md, "Performance").
//! * **Shards.** [`shard`] picks the K-th of N round-robin slices of the problem list sorted
//!   by name; [`merge`] combines the [`BenchReport`]s of several shards (read back by
//!   [`read_report`]) into the report an unsharded run would have written (times aside).

pub use perp_catalogue::NcpInstance;
use perp_catalogue::{Params, Problem};
use perp_core::{Error, Settings, SolveReport, Status};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A problem the runner can solve: the catalogue's [`Problem`] (the name `Instance` is kept
/// for callers of earlier versions).
pub type Instance = Problem;

/// Seconds of the reference kernel measured in the same run as the solves (see the
/// [module docs](self)).
pub trait ReferenceKernel {
    /// Seconds of the reference kernel: one dense LU (partial pivoting, faer) of M (W for
    /// frictional problems, the Jacobian at the start for NCPs), best of three for n ≤ 500,
    /// one for n ≤ 2000, and NaN (not measured) above 2000, where it would cost more than the
    /// solves it is meant to scale.
    fn reference_seconds(&self) -> f64;
}

impl ReferenceKernel for Problem {
    fn reference_seconds(&self) -> f64 {
        let n = self.n();
        if n > 2000 {
            return f64::NAN;
        }
        let m = match self {
            Problem::Lcp(p) => p.m().to_dense(),
            Problem::Mlcp(p) => p.m().to_dense(),
            Problem::Friction(p) => p.w.to_dense(),
            Problem::GlobalFriction(p) => p.m.to_dense(),
            Problem::Ncp(p) => {
                let s = p.build();
                let z = NcpInstance::start(&s);
                let mut j = faer::Mat::<f64>::zeros(n, n);
                s.f.jacobian(&z, j.as_mut());
                j
            }
        };
        (0..if n <= 500 { 3 } else { 1 })
            .map(|_| {
                let t = Instant::now();
                let lu = m.partial_piv_lu();
                std::hint::black_box(&lu);
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    }
}

/// One benchmark problem.
#[derive(Clone, Debug)]
pub struct BenchProblem {
    /// File name or built-in name.
    pub name: String,
    /// Problem class: `lcp`, `mlcp`, `ncp`, `fc2d`, `fc3d`.
    pub kind: String,
    /// The problem.
    pub problem: Instance,
}

impl BenchProblem {
    /// A problem named `name`, its kind from the instance.
    pub fn new(name: &str, problem: Instance) -> BenchProblem {
        BenchProblem { name: name.to_string(), kind: problem.kind_name(), problem }
    }
}

/// `serde` for f64 fields that may be NaN or infinite: those are written as `null` (JSON has
/// no NaN) and read back as NaN.
mod nan_as_null {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        if x.is_finite() {
            s.serialize_f64(*x)
        } else {
            s.serialize_none()
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

/// One solver on one problem.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchRecord {
    /// Problem name.
    pub problem: String,
    /// Problem class.
    pub kind: String,
    /// Dimension.
    pub n: usize,
    /// Solver registry name.
    pub solver: String,
    /// How the solve ended: a [`Status`] name (`solved`, `time_limit`, `numerical_failure`, …),
    /// or `error` when the solver returned `Err` (it refused the problem).
    pub status: String,
    /// Iterations (pivots for pivoting methods).
    pub iterations: usize,
    /// `report.error` (NaN when there is no report: `error`, a panic, a missed deadline).
    #[serde(with = "nan_as_null")]
    pub error: f64,
    /// Seconds spent in `solve` (median over the repeats).
    #[serde(with = "nan_as_null")]
    pub seconds: f64,
    /// Seconds of one dense LU of the problem's matrix in the same run (NaN: not measured).
    #[serde(with = "nan_as_null")]
    pub reference_seconds: f64,
    /// Why the run failed, when it did: the `Err` text, the panic message, the missed deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl BenchRecord {
    /// Whether the solver reported `Solved`.
    pub fn solved(&self) -> bool {
        self.status == Status::Solved.as_str()
    }

    /// Whether two records are the same run with the same outcome: everything equal except
    /// the times (`error` bit for bit, or both not finite).
    pub fn same_outcome(&self, other: &BenchRecord) -> bool {
        let same_error = if self.error.is_finite() || other.error.is_finite() {
            self.error.to_bits() == other.error.to_bits()
        } else {
            true
        };
        (&self.problem, &self.kind, self.n, &self.solver, &self.status, self.iterations, &self.message)
            == (
                &other.problem,
                &other.kind,
                other.n,
                &other.solver,
                &other.status,
                other.iterations,
                &other.message,
            )
            && same_error
    }
}

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

impl SolverSet for Registry {
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
        let mut sv = perp_catalogue::build(problem.family(), solver, &Params::new())?;
        sv.solve(problem, None, settings).map(|a| a.report)
    }
}

/// How the runner runs.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// Solver settings (tolerance, time limit per solve, …), the same for every run.
    pub settings: Settings,
    /// Solves per (problem, solver); the recorded time is their median. At least 1.
    pub repeat: usize,
    /// Problems solved at the same time (rayon pool size). At least 1; 1 keeps timings clean.
    pub threads: usize,
    /// Added to twice the time limit to give the hard deadline (default 1 s).
    pub grace: Duration,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig { settings: Settings::default(), repeat: 1, threads: 1, grace: Duration::from_secs(1) }
    }
}

impl BenchConfig {
    /// How long the runner waits for one solve: `2 × time_limit + grace`; `None` (wait for
    /// ever) without a time limit.
    pub fn hard_deadline(&self) -> Option<Duration> {
        self.settings.time_limit.map(|t| t.saturating_mul(2).saturating_add(self.grace))
    }

    fn validate(&self) -> Result<(), Error> {
        self.settings.validate()?;
        if self.repeat == 0 {
            return Err(Error::setting("repeat", 0, "must be at least 1"));
        }
        if self.threads == 0 {
            return Err(Error::setting("threads", 0, "must be at least 1"));
        }
        Ok(())
    }
}

/// The registry solvers that apply to at least one of `problems`, in registry order (LCP
/// solvers, then MCP, then frictional), each name once.
pub fn default_solvers(problems: &[BenchProblem]) -> Vec<String> {
    Registry::names()
        .into_iter()
        .filter(|s| problems.iter().any(|p| p.problem.accepts(s)))
        .map(str::to_string)
        .collect()
}

/// Parses `K/N` (1 ≤ K ≤ N) as given to `--shard`.
///
/// ```
/// use perp_suite::bench::parse_shard;
/// assert_eq!(parse_shard("2/3").unwrap(), (2, 3));
/// assert!(parse_shard("0/3").is_err() && parse_shard("4/3").is_err() && parse_shard("x").is_err());
/// ```
pub fn parse_shard(text: &str) -> Result<(usize, usize), Error> {
    let bad = || Error::setting("--shard", text, "must be K/N with 1 <= K <= N, e.g. 1/4");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let k: usize = k.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The `k`-th (1-based) of `n` shards of `problems`: sorted by name (stable), then every n-th
/// problem from the k-th on (round-robin, which spreads a family of large problems with
/// similar names over the shards). Deterministic; the n shards partition the list, and
/// `shard(p, 1, 1)` is the sorted list.
pub fn shard(mut problems: Vec<BenchProblem>, k: usize, n: usize) -> Result<Vec<BenchProblem>, Error> {
    if k == 0 || k > n {
        return Err(Error::setting("--shard", format!("{k}/{n}"), "must be K/N with 1 <= K <= N"));
    }
    problems.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(problems.into_iter().enumerate().filter(|(i, _)| i % n == k - 1).map(|(_, p)| p).collect())
}

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

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let k = v.len();
    Some(if k % 2 == 1 { v[k / 2] } else { 0.5 * (v[k / 2 - 1] + v[k / 2]) })
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

/// A file that could not be read as a problem, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unreadable {
    /// The file as given (path).
    pub file: String,
    /// The reader's error message.
    pub reason: String,
}

/// The settings of a run, as written to `results.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunSettings {
    /// Tolerance on `report.error`.
    #[serde(with = "nan_as_null")]
    pub tol: f64,
    /// Time limit per solve in seconds (`None`: none).
    pub time_limit: Option<f64>,
    /// Solves per (problem, solver).
    pub repeat: usize,
    /// Problems solved at the same time.
    pub threads: usize,
    /// `K/N` for a shard, `None` for a whole run.
    pub shard: Option<String>,
    /// Solvers asked for, in order.
    pub solvers: Vec<String>,
    /// What was run: `builtin`, folders and files.
    pub suite: String,
    /// For a merged report, the folders merged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
}

impl RunSettings {
    /// The settings of a run of `solvers` on `suite` under `config` (shard `None`).
    pub fn new(config: &BenchConfig, solvers: &[String], suite: &str) -> RunSettings {
        RunSettings {
            tol: config.settings.tol,
            time_limit: config.settings.time_limit.map(|t| t.as_secs_f64()),
            repeat: config.repeat,
            threads: config.threads,
            shard: None,
            solvers: solvers.to_vec(),
            suite: suite.to_string(),
            merged_from: Vec::new(),
        }
    }
}

/// The machine a run was made on, as written to `results.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Machine {
    /// `std::env::consts::OS` (`linux`, `macos`, …).
    pub os: String,
    /// `std::env::consts::ARCH` (`x86_64`, `aarch64`, …).
    pub arch: String,
    /// Logical CPUs available to the process.
    pub cpus: usize,
    /// perp version (the workspace version).
    pub perp_version: String,
    /// When the report was made, in seconds since the Unix epoch (UTC).
    pub unix_time: u64,
}

impl Machine {
    /// This machine, now.
    pub fn current() -> Machine {
        Machine {
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            perp_version: env!("CARGO_PKG_VERSION").to_string(),
            unix_time: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        }
    }
}

/// Everything `perp bench` writes: `results.json` is this, serialized.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchReport {
    /// How the run was made.
    pub settings: RunSettings,
    /// Where and when.
    pub machine: Machine,
    /// Files that could not be read.
    #[serde(default)]
    pub unreadable: Vec<Unreadable>,
    /// One record per (problem, solver), problem-major.
    pub records: Vec<BenchRecord>,
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The header of `results.csv`.
pub const CSV_HEADER: &str = "problem,kind,n,solver,status,iterations,error,seconds";

/// `results.csv`: `problem,kind,n,solver,status,iterations,error,seconds` (ARCHITECTURE.md);
/// numbers in Rust's shortest round-trip form, `NaN` when absent.
pub fn results_csv(records: &[BenchRecord]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for r in records {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{:e},{:e}",
            csv_field(&r.problem),
            csv_field(&r.kind),
            r.n,
            csv_field(&r.solver),
            csv_field(&r.status),
            r.iterations,
            r.error,
            r.seconds
        );
    }
    out
}

/// Splits one CSV line into fields (RFC 4180 quotes); `None` on an unterminated quote.
fn split_csv_line(line: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if cur.is_empty() => quoted = true,
            (false, ',') => fields.push(std::mem::take(&mut cur)),
            (_, c) => cur.push(c),
        }
    }
    if quoted {
        return None;
    }
    fields.push(cur);
    Some(fields)
}

/// Reads the records of a `results.csv` written by [`results_csv`] (`file` names it in
/// errors). Reference times and messages are not in the CSV: they come back NaN and `None`.
pub fn parse_results_csv(text: &str, file: &Path) -> Result<Vec<BenchRecord>, Error> {
    let parse_err = |line: usize, field: &str, message: String| Error::Parse {
        file: file.to_path_buf(),
        position: line,
        field: field.to_string(),
        message,
    };
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.trim_end() == CSV_HEADER => {}
        other => {
            return Err(parse_err(
                1,
                "header",
                format!("expected '{CSV_HEADER}', found '{}'", other.map_or("", |(_, h)| h)),
            ))
        }
    }
    let mut records = Vec::new();
    for (i, line) in lines {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let f = split_csv_line(line)
            .ok_or_else(|| parse_err(line_no, "line", format!("unterminated quote in line {line_no}")))?;
        if f.len() != 8 {
            return Err(parse_err(
                line_no,
                "line",
                format!("line {line_no} has {} fields, expected 8", f.len()),
            ));
        }
        let num = |k: usize, name: &str| -> Result<f64, Error> {
            f[k].parse::<f64>()
                .map_err(|_| parse_err(line_no, name, format!("line {line_no}: '{}' is not a number", f[k])))
        };
        let int = |k: usize, name: &str| -> Result<usize, Error> {
            f[k].parse::<usize>().map_err(|_| {
                parse_err(line_no, name, format!("line {line_no}: '{}' is not a non-negative integer", f[k]))
            })
        };
        records.push(BenchRecord {
            problem: f[0].clone(),
            kind: f[1].clone(),
            n: int(2, "n")?,
            solver: f[3].clone(),
            status: f[4].clone(),
            iterations: int(5, "iterations")?,
            error: num(6, "error")?,
            seconds: num(7, "seconds")?,
            reference_seconds: f64::NAN,
            message: None,
        });
    }
    Ok(records)
}

fn fmt_opt(x: Option<f64>, f: impl Fn(f64) -> String) -> String {
    x.filter(|x| x.is_finite()).map_or_else(|| "–".to_string(), f)
}

/// Geometric mean of positive numbers (times are floored at 1 ns).
fn geo_mean(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    Some((v.iter().map(|t| t.max(1e-9).ln()).sum::<f64>() / v.len() as f64).exp())
}

/// `summary.md`: per solver, the solved count and rate, the median and geometric-mean time
/// over solved runs, the worst error among solved runs and the median ratio of its time to the
/// same run's dense-LU reference; per kind, a table of the problems with the fastest solver
/// and every solver's status; the failed runs with their message; the unreadable files.
pub fn summary_md(report: &BenchReport) -> String {
    let records = &report.records;
    let s = &report.settings;
    let solvers = &s.solvers;
    let mut out = String::new();
    let mut problems: Vec<(&str, &str, usize)> = Vec::new();
    for r in records {
        if !problems.iter().any(|(p, _, _)| *p == r.problem) {
            problems.push((&r.problem, &r.kind, r.n));
        }
    }
    let _ = writeln!(out, "# perp bench summary\n");
    let _ = writeln!(
        out,
        "Suite `{}`{}: {} problems, tol {:e}, time limit {}, median of {} solve(s) per run, {} thread(s); \
         perp {} on {}/{} ({} CPUs).\n",
        s.suite,
        s.shard.as_ref().map_or(String::new(), |k| format!(" (shard {k})")),
        problems.len(),
        s.tol,
        s.time_limit.map_or("none".to_string(), |t| format!("{t} s")),
        s.repeat,
        s.threads,
        report.machine.perp_version,
        report.machine.os,
        report.machine.arch,
        report.machine.cpus,
    );
    if !s.merged_from.is_empty() {
        let _ = writeln!(out, "Merged from: {}.\n", s.merged_from.join(", "));
    }
    let _ = writeln!(
        out,
        "Times are the solve alone (seconds). *geo-mean* is the geometric mean over solved runs; \
         *worst error* the largest error among solved runs; *ratio* the time over one dense LU of \
         the same matrix (M, W for frictional problems) measured in the same run (median over solved runs).\n"
    );
    let _ = writeln!(
        out,
        "| solver | solved | rate | median time (s) | geo-mean time (s) | worst error | median ratio to LU |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for sv in solvers {
        let mine: Vec<&BenchRecord> = records.iter().filter(|r| &r.solver == sv).collect();
        let solved: Vec<&BenchRecord> = mine.iter().copied().filter(|r| r.solved()).collect();
        let times: Vec<f64> = solved.iter().map(|r| r.seconds).collect();
        let t = median(times.clone());
        let g = geo_mean(&times);
        let worst = solved
            .iter()
            .map(|r| r.error)
            .filter(|e| e.is_finite())
            .fold(None, |m: Option<f64>, e| Some(m.map_or(e, |m| m.max(e))));
        let ratios: Vec<f64> = solved
            .iter()
            .filter(|r| r.reference_seconds.is_finite())
            .map(|r| r.seconds / r.reference_seconds.max(1e-9))
            .collect();
        let _ = writeln!(
            out,
            "| {sv} | {}/{} | {:.0}% | {} | {} | {} | {} |",
            solved.len(),
            mine.len(),
            100.0 * solved.len() as f64 / mine.len().max(1) as f64,
            fmt_opt(t, |t| format!("{t:.3e}")),
            fmt_opt(g, |t| format!("{t:.3e}")),
            fmt_opt(worst, |e| format!("{e:.1e}")),
            fmt_opt(median(ratios), |r| format!("{r:.2}")),
        );
    }
    let mut kinds: Vec<&str> = Vec::new();
    for (_, k, _) in &problems {
        if !kinds.contains(k) {
            kinds.push(k);
        }
    }
    for kind in kinds {
        let mine: Vec<&String> =
            solvers.iter().filter(|sv| records.iter().any(|r| r.kind == kind && &r.solver == *sv)).collect();
        let _ = writeln!(out, "\n## Problems of kind {kind} (status, iterations, error)\n");
        let names: Vec<&str> = mine.iter().map(|s| s.as_str()).collect();
        let _ = writeln!(out, "| problem | n | fastest | time (s) | {} |", names.join(" | "));
        let _ = writeln!(out, "|---|---|---|---|{}", "---|".repeat(mine.len()));
        for (p, _, n) in problems.iter().filter(|(_, k, _)| *k == kind) {
            let row: Vec<&BenchRecord> = records.iter().filter(|r| r.problem == *p).collect();
            let fastest = row.iter().filter(|r| r.solved()).min_by(|a, b| a.seconds.total_cmp(&b.seconds));
            let cells: Vec<String> = mine
                .iter()
                .map(|sv| match row.iter().find(|r| &r.solver == *sv) {
                    Some(r) if r.status == "error" => "error".to_string(),
                    Some(r) => format!("{} {} {:.1e}", r.status, r.iterations, r.error),
                    None => "–".to_string(),
                })
                .collect();
            let _ = writeln!(
                out,
                "| {p} | {n} | {} | {} | {} |",
                fastest.map_or("none solved".to_string(), |r| r.solver.clone()),
                fastest.map_or("–".to_string(), |r| format!("{:.3e}", r.seconds)),
                cells.join(" | ")
            );
        }
    }
    let failed: Vec<&BenchRecord> = records.iter().filter(|r| r.message.is_some()).collect();
    if !failed.is_empty() {
        let _ = writeln!(out, "\n## Failed runs (error, panic, time limit)\n");
        for r in failed {
            let _ = writeln!(
                out,
                "- {} on {}: {}: {}",
                r.solver,
                r.problem,
                r.status,
                r.message.as_deref().unwrap_or("").replace('\n', " ")
            );
        }
    }
    let _ = writeln!(out, "\n## Unreadable files\n");
    if report.unreadable.is_empty() {
        let _ = writeln!(out, "None.");
    }
    for u in &report.unreadable {
        let _ = writeln!(out, "- `{}`: {}", u.file, u.reason.replace('\n', " "));
    }
    out
}

fn io_err(file: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io { file: file.to_path_buf(), source }
}

/// Writes `results.csv`, `results.json`, `summary.md` and `profile.svg` into `dir` (created
/// if missing).
pub fn write(dir: &Path, report: &BenchReport) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let csv = dir.join("results.csv");
    std::fs::write(&csv, results_csv(&report.records)).map_err(io_err(&csv))?;
    let json = dir.join("results.json");
    let text = serde_json::to_string_pretty(report)
        .map_err(|e| Error::Io { file: json.clone(), source: std::io::Error::other(e) })?;
    std::fs::write(&json, text + "\n").map_err(io_err(&json))?;
    let md = dir.join("summary.md");
    std::fs::write(&md, summary_md(report)).map_err(io_err(&md))?;
    let svg = dir.join("profile.svg");
    let title = format!("Performance profile: {} (tol {:e})", report.settings.suite, report.settings.tol);
    let text = crate::profile::svg(&report.records, &report.settings.solvers, &title)
        .map_err(|e| Error::Io { file: svg.clone(), source: std::io::Error::other(e) })?;
    std::fs::write(&svg, text).map_err(io_err(&svg))?;
    Ok(())
}

/// Reads back what [`fn@write`] wrote into `dir`: `results.json`, or when it is missing,
/// `results.csv` (then the settings are unknown: tol NaN, repeat and threads 0, the solvers in
/// order of appearance, no reference times nor messages).
pub fn read_report(dir: &Path) -> Result<BenchReport, Error> {
    let json = dir.join("results.json");
    if json.is_file() {
        let text = std::fs::read_to_string(&json).map_err(io_err(&json))?;
        return serde_json::from_str(&text).map_err(|e| Error::Parse {
            file: json.clone(),
            position: e.line(),
            field: "results.json".into(),
            message: format!("line {}: {e}", e.line()),
        });
    }
    let csv = dir.join("results.csv");
    let text = std::fs::read_to_string(&csv).map_err(io_err(&csv))?;
    let records = parse_results_csv(&text, &csv)?;
    let mut solvers: Vec<String> = Vec::new();
    for r in &records {
        if !solvers.contains(&r.solver) {
            solvers.push(r.solver.clone());
        }
    }
    Ok(BenchReport {
        settings: RunSettings {
            tol: f64::NAN,
            time_limit: None,
            repeat: 0,
            threads: 0,
            shard: None,
            solvers,
            suite: dir.display().to_string(),
            merged_from: Vec::new(),
        },
        machine: Machine::current(),
        unreadable: Vec::new(),
        records,
    })
}

/// Combines the reports of the shards of one run (`(folder, report)` pairs): records sorted by
/// problem name (stable, so each problem keeps its solver order) — the order of an unsharded
/// run — solvers in first-seen order, unreadable files of every shard, the settings and
/// machine of the first shard (shard `None`, `merged_from` the folders). Errors: no report,
/// shards run with a different tolerance, time limit or repeat count, or one (problem, solver)
/// in two shards.
pub fn merge(reports: Vec<(PathBuf, BenchReport)>) -> Result<BenchReport, Error> {
    let mut it = reports.into_iter();
    let (first_dir, first) =
        it.next().ok_or_else(|| Error::setting("--merge", "(nothing)", "give at least one folder"))?;
    let mut merged = first;
    merged.settings.merged_from = vec![first_dir.display().to_string()];
    merged.settings.shard = None;
    for (dir, r) in it {
        let a = &merged.settings;
        let b = &r.settings;
        let same_tol = a.tol.to_bits() == b.tol.to_bits() || (a.tol.is_nan() && b.tol.is_nan());
        if !same_tol || a.time_limit != b.time_limit || a.repeat != b.repeat {
            return Err(Error::setting(
                "--merge",
                dir.display(),
                &format!(
                    "was run with tol {:e}, time limit {:?} s, repeat {}; {} with tol {:e}, time limit {:?} s, \
                     repeat {}: merge only shards of one run",
                    b.tol, b.time_limit, b.repeat, first_dir.display(), a.tol, a.time_limit, a.repeat
                ),
            ));
        }
        for s in &r.settings.solvers {
            if !merged.settings.solvers.contains(s) {
                merged.settings.solvers.push(s.clone());
            }
        }
        if merged.settings.suite != r.settings.suite {
            merged.settings.suite = format!("{} + {}", merged.settings.suite, r.settings.suite);
        }
        merged.settings.threads = merged.settings.threads.max(r.settings.threads);
        merged.settings.merged_from.push(dir.display().to_string());
        for u in r.unreadable {
            if !merged.unreadable.contains(&u) {
                merged.unreadable.push(u);
            }
        }
        merged.records.extend(r.records);
    }
    merged.records.sort_by(|a, b| a.problem.cmp(&b.problem));
    let mut start = 0;
    while start < merged.records.len() {
        let p = &merged.records[start].problem;
        let end = start + merged.records[start..].iter().take_while(|r| &r.problem == p).count();
        let group = &merged.records[start..end];
        for (i, r) in group.iter().enumerate() {
            if group[..i].iter().any(|q| q.solver == r.solver) {
                return Err(Error::setting(
                    "--merge",
                    &r.problem,
                    &format!(
                        "problem '{}' was run with '{}' in two shards (or twice in one)",
                        r.problem, r.solver
                    ),
                ));
            }
        }
        start = end;
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use perp_core::Matrix;

    fn problems() -> Vec<BenchProblem> {
        let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
        let a = perp_lcp::Lcp::new(m, vec![-5.0, -6.0]).unwrap();
        let m = Matrix::from_row_major(2, 2, &[0.0, 1.0, -1.0, 0.0]).unwrap();
        let b = perp_lcp::Lcp::new(m, vec![-1.0, 1.0]).unwrap();
        vec![
            BenchProblem::new("easy", Instance::Lcp(a)),
            BenchProblem::new("skew, zero diagonal", Instance::Lcp(b)),
        ]
    }

    fn report(records: Vec<BenchRecord>, solvers: &[String]) -> BenchReport {
        BenchReport {
            settings: RunSettings::new(&BenchConfig::default(), solvers, "test"),
            machine: Machine::current(),
            unreadable: vec![Unreadable {
                file: "bad.dat".into(),
                reason: "token 3 (n): not a number".into(),
            }],
            records,
        }
    }

    #[test]
    fn records_csv_and_summary() {
        let solvers = vec!["lemke".to_string(), "pgs".to_string()];
        let a = run(&problems(), &solvers, &BenchConfig::default(), &|_| {}).unwrap();
        assert_eq!(a.len(), 4);
        // Lemke solves both; PGS refuses the zero diagonal with an error, recorded as such.
        assert!(a[0].solved() && a[2].solved());
        assert_eq!(a[3].status, "error");
        assert!(a[3].message.as_deref().unwrap().contains("pgs"), "{:?}", a[3].message);
        let csv = results_csv(&a);
        assert!(csv.starts_with("problem,kind,n,solver,status,iterations,error,seconds\n"));
        assert!(csv.contains("\"skew, zero diagonal\",lcp,2,lemke,solved,"), "{csv}");
        let back = parse_results_csv(&csv, Path::new("results.csv")).unwrap();
        assert_eq!(back.len(), 4);
        for (x, y) in a.iter().zip(&back) {
            assert_eq!((&x.problem, x.seconds.to_bits()), (&y.problem, y.seconds.to_bits()));
            assert!(x.message.is_some() || x.same_outcome(y));
        }
        let md = summary_md(&report(a, &solvers));
        assert!(md.contains("| lemke | 2/2 | 100% |"), "{md}");
        assert!(md.contains("| pgs | 1/2 | 50% |"), "{md}");
        assert!(md.contains("| easy | 2 | "), "{md}");
        assert!(md.contains("- `bad.dat`: token 3 (n): not a number"), "{md}");
        assert!(md.contains("- pgs on skew, zero diagonal: error: "), "{md}");
    }

    #[test]
    fn csv_errors_name_the_line() {
        let f = Path::new("r.csv");
        assert!(parse_results_csv("a,b\n", f).unwrap_err().to_string().contains("header"));
        let bad = format!("{CSV_HEADER}\np,lcp,2,lemke,solved,3,1e-9\n");
        assert!(parse_results_csv(&bad, f).unwrap_err().to_string().contains("line 2 has 7 fields"));
        let bad = format!("{CSV_HEADER}\np,lcp,two,lemke,solved,3,1e-9,0.1\n");
        assert!(parse_results_csv(&bad, f).unwrap_err().to_string().contains("'two'"));
        assert_eq!(split_csv_line("\"a,\"\"b\",c").unwrap(), vec!["a,\"b", "c"]);
        assert!(split_csv_line("\"a,b").is_none());
    }

    #[test]
    fn unknown_solver_is_an_error_before_any_work() {
        let e = run(&problems(), &["nope".to_string()], &BenchConfig::default(), &|_| {}).unwrap_err();
        assert!(e.to_string().contains("unknown solver 'nope'"), "{e}");
        let bad = BenchConfig { repeat: 0, ..BenchConfig::default() };
        assert!(run(&problems(), &[], &bad, &|_| {}).is_err());
    }

    #[test]
    fn shards_partition_the_sorted_list() {
        let mk = |names: &[&str]| -> Vec<BenchProblem> {
            names.iter().map(|n| BenchProblem::new(n, Instance::Lcp(crate::generate::spd(2, 1)))).collect()
        };
        let all = mk(&["e", "a", "d", "b", "c"]);
        let names = |v: Vec<BenchProblem>| v.into_iter().map(|p| p.name).collect::<Vec<_>>();
        assert_eq!(names(shard(all.clone(), 1, 1).unwrap()), ["a", "b", "c", "d", "e"]);
        assert_eq!(names(shard(all.clone(), 1, 2).unwrap()), ["a", "c", "e"]);
        assert_eq!(names(shard(all.clone(), 2, 2).unwrap()), ["b", "d"]);
        assert!(names(shard(all.clone(), 7, 7).unwrap()).is_empty());
        assert!(shard(all, 3, 2).is_err());
    }

    #[test]
    fn hard_deadline_is_twice_the_limit_plus_grace() {
        let mut c = BenchConfig::default();
        assert_eq!(c.hard_deadline(), None);
        c.settings.time_limit = Some(Duration::from_millis(1500));
        assert_eq!(c.hard_deadline(), Some(Duration::from_secs(4)));
    }
}
