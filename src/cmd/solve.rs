//! `perp solve FILE`: one problem file, one solver, a report (text or JSON).

use super::{settings, Common};
use perp::catalogue::{Answer, Params, Problem, ProblemKind};
use perp::core::{Error, Settings, Status};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `perp solve`.
#[derive(clap::Args)]
pub struct Args {
    /// The problem file, or a built-in problem's name (`perp list`).
    file: PathBuf,
    /// Solver name (see `perp list`); default `lemke` for an LCP, `fb-newton` for an MLCP,
    /// `prox` for a frictional contact problem.
    #[arg(long)]
    solver: Option<String>,
    /// A solver parameter, NAME=VALUE (repeatable; `perp list` shows each solver's parameters,
    /// their defaults and valid values).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Solvers to try in turn, with their defaults, when the chosen one does not solve the
    /// problem (comma-separated, e.g. `fb-newton,prox`): each starts from the best answer so
    /// far, and `--time-limit` bounds the whole chain.
    #[arg(long, value_name = "SOLVERS")]
    fallback: Option<String>,
    /// The problem kind, when detection from the file is not wanted: `gfc` reads a global
    /// frictional file (M, H, f, b) as it is, for the global-form solvers (chosen
    /// automatically when `--solver` names one); other solvers reduce it to `u = W r + q`.
    #[arg(long, value_parser = ["lcp", "mlcp", "fc", "gfc"])]
    kind: Option<String>,
    /// Start from the values in FILE (whitespace-separated numbers, one per unknown: z for an
    /// LCP or MLCP, the reactions r of a frictional problem, global ones included), such as
    /// the `.warm` file the harvesting example (`unsolved_steps`) writes beside a step: the
    /// previous step's impulses. With `--fallback`, the first solver starts from it.
    #[arg(long, value_name = "FILE")]
    warm: Option<PathBuf>,
    /// Iteration (pivot) limit; 0 = the solver's default.
    #[arg(long, default_value_t = 0)]
    max_iter: usize,
    #[command(flatten)]
    common: Common,
    /// Worker threads of the solver's parallel parts (nsgs with colouring=true, apgd); the
    /// answer is the same for any count. Default: all cores.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Log every iteration whose error the solver measured to stderr: `iteration K error E`,
    /// the step length when the solver takes one (`step T`: a Newton method's line-search
    /// step, apgd's step size), and the effort so far (pivots, factorizations, line-search
    /// steps), then an `end` line.
    #[arg(long)]
    verbose: bool,
    /// Write the iteration history (the measured errors and their iterations) to FILE: CSV
    /// (`iteration,error`), or JSON when FILE ends in `.json`.
    #[arg(long, value_name = "FILE")]
    history: Option<PathBuf>,
    /// No progress line (on stderr, on a terminal, once the solve has taken a second).
    #[arg(long, short, conflicts_with = "verbose")]
    quiet: bool,
}

/// Runs `perp solve`.
pub fn run(a: Args) -> Result<ExitCode, Error> {
    let kind = a.kind.map(|k| match k.as_str() {
        "mlcp" => ProblemKind::Mlcp,
        "fc" => ProblemKind::Friction,
        "gfc" => ProblemKind::GlobalFriction,
        _ => ProblemKind::Lcp,
    });
    // A solver of the global form reads the file in that form.
    let mut params = Params::new();
    for p in &a.params {
        params = params.push_pair(p)?;
    }
    let mut s = Settings { threads: super::threads(a.threads)?, ..settings(&a.common, a.max_iter)? };
    let bar: std::sync::Arc<std::sync::OnceLock<indicatif::ProgressBar>> = Default::default();
    if a.verbose {
        s.observer = Some(std::sync::Arc::new(log_iteration));
    } else if !a.quiet {
        let bar = bar.clone();
        s.observer = Some(std::sync::Arc::new(move |p: &perp::core::Progress| {
            show_progress(&bar, p);
            perp::core::Control::Continue
        }));
    }
    if let Some(path) = &a.history {
        // Refused before the solve: a path whose folder does not exist.
        check_writable(path)?;
        s.record_history = true;
    }
    let fallback: Vec<&str> = a
        .fallback
        .as_deref()
        .map_or(Vec::new(), |l| l.split(',').map(str::trim).filter(|n| !n.is_empty()).collect());
    let how =
        How { solver: a.solver.as_deref(), params: &params, fallback: &fallback, warm: a.warm.as_deref() };
    let solved = solve(&a.file, &how, kind, &s, a.json);
    if let Some(b) = bar.get() {
        b.finish_and_clear();
    }
    let (code, report) = solved?;
    if a.verbose {
        use std::io::Write as _;
        // A closed stderr (`2>&1 | head`) is not an error of the solve.
        let _ = writeln!(
            std::io::stderr().lock(),
            "end {} iterations {} error {:.6e} ({})",
            report.status,
            report.iterations,
            report.error,
            report.solver
        );
    }
    if let Some(path) = &a.history {
        write_history(path, &report)?;
    }
    Ok(code)
}

/// `--verbose`: one line per iteration whose error was measured (PGS and NSGS carry an old
/// error or an estimate between their exact checks; those steps are not logged).
fn log_iteration(p: &perp::core::Progress) -> perp::core::Control {
    if p.measured {
        let c = p.counters;
        let mut line = format!("iteration {} error {:.6e}", p.iteration, p.error);
        if let Some(t) = p.step {
            line.push_str(&format!(" step {t:.1e}"));
        }
        for (name, v) in
            [("pivots", c.pivots), ("factorizations", c.factorizations), ("line-search", c.line_search_steps)]
        {
            if v > 0 {
                line.push_str(&format!(" {name} {v}"));
            }
        }
        line.push_str(&format!(" seconds {:.3e}", p.elapsed.as_secs_f64()));
        // A closed stderr is not worth stopping the solve for.
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
    perp::core::Control::Continue
}

/// The progress line of a long solve: shown once the solve has taken a second (indicatif
/// draws only on a terminal), updated at the iterations whose error was measured.
fn show_progress(bar: &std::sync::OnceLock<indicatif::ProgressBar>, p: &perp::core::Progress) {
    if p.elapsed.as_secs_f64() < 1.0 {
        return;
    }
    let b = bar.get_or_init(|| {
        let b = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr())
            .with_elapsed(p.elapsed);
        b.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        b.enable_steady_tick(std::time::Duration::from_millis(250));
        b
    });
    if p.measured {
        b.set_message(format!("iteration {} error {:.3e}", p.iteration, p.error));
    }
}

/// Refuses an output path whose folder does not exist, naming it.
fn check_writable(path: &Path) -> Result<(), Error> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if dir.is_dir() {
        Ok(())
    } else {
        Err(Error::Io {
            file: path.to_path_buf(),
            source: std::io::Error::other("its folder does not exist"),
        })
    }
}

/// `--history FILE`: the measured errors and their iterations, CSV or JSON by extension.
fn write_history(path: &Path, r: &perp::core::SolveReport) -> Result<(), Error> {
    let io = |source| Error::Io { file: path.to_path_buf(), source };
    let text = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) {
        serde_json::json!({
            "solver": r.solver,
            "status": r.status.as_str(),
            "iterations": r.history_iterations,
            "errors": r.history.iter().map(|&e| finite_or_null(e)).collect::<Vec<_>>(),
        })
        .to_string()
    } else {
        let mut t = String::from("iteration,error\n");
        for (k, e) in r.history_iterations.iter().zip(&r.history) {
            t.push_str(&format!("{k},{e:e}\n"));
        }
        t
    };
    std::fs::write(path, text).map_err(io)
}

/// The solver, its parameters, the fallback chain and the start file of `perp solve`.
struct How<'a> {
    solver: Option<&'a str>,
    params: &'a Params,
    fallback: &'a [&'a str],
    warm: Option<&'a Path>,
}

fn solve(
    file: &Path,
    how: &How<'_>,
    kind: Option<ProblemKind>,
    s: &Settings,
    json: bool,
) -> Result<(ExitCode, perp::core::SolveReport), Error> {
    // A solver of the global form reads a global file in that form; any other file is read
    // as usual (the solver then says which problems it takes).
    let global_solver = how.solver.is_some_and(|n| perp::catalogue::GLOBAL_NAMES.contains(&n));
    let problem = match kind {
        None if global_solver => super::read_problem(file, Some(ProblemKind::GlobalFriction))
            .or_else(|_| super::read_problem(file, None))?,
        _ => super::read_problem(file, kind)?,
    };
    // The start, read (and its length checked) before anything runs.
    let warm = match how.warm {
        Some(path) => Some(perp::formats::tokens::read_vector_file(path, problem.n(), "warm start")?),
        None => None,
    };
    let started = std::time::Instant::now();
    let (sol, attempts) = answer(&problem, how, warm.as_deref(), s)?;
    // A chain's time is all of its attempts'.
    let seconds = if attempts > 1 { started.elapsed() } else { sol.report.elapsed }.as_secs_f64();
    let shown = Shown { file, problem: &problem, sol: &sol, seconds, attempts, tol: s.tol, warm: how.warm };
    if json {
        shown.print_json()?;
    } else {
        shown.print_text()?;
    }
    let code = if sol.report.status == Status::Solved { ExitCode::SUCCESS } else { ExitCode::from(1) };
    Ok((code, sol.report))
}

/// The answer of `how`'s solver (with its parameters) on `problem` from `warm`, or of the
/// chain that falls back to the solvers of its fallback (with their defaults), with the number
/// of attempts made.
fn answer(
    problem: &Problem,
    how: &How<'_>,
    warm: Option<&[f64]>,
    s: &Settings,
) -> Result<(Answer, usize), Error> {
    let How { solver, params, fallback, .. } = *how;
    if fallback.is_empty() {
        return Ok((perp::catalogue::solve(problem, solver, params, warm, s)?, 1));
    }
    // The chain: the chosen solver with its parameters, then each fallback with its
    // defaults (all checked before anything runs), within the time limit.
    let family = problem.family();
    let mut chain = vec![perp::catalogue::build(family, solver.unwrap_or(problem.default_solver()), params)?];
    for name in fallback {
        chain.push(
            perp::catalogue::build(family, name, &Params::new())
                .map_err(|e| Error::setting("--fallback", name, &e.to_string()))?,
        );
    }
    perp::catalogue::solve_chain(problem, &mut chain, warm, s, s.time_limit)
}

/// What `perp solve` prints: the problem, its file, the answer and what it took. z = r
/// (reactions), w = u (velocities) for frictional problems.
struct Shown<'a> {
    file: &'a Path,
    problem: &'a Problem,
    sol: &'a Answer,
    seconds: f64,
    attempts: usize,
    tol: f64,
    /// The start file (`--warm`).
    warm: Option<&'a Path>,
}

impl Shown<'_> {
    /// Prints the answer as one JSON object (`--json`).
    fn print_json(&self) -> Result<(), Error> {
        let (sol, r) = (self.sol, &self.sol.report);
        let mut v = serde_json::json!({
            "problem": self.file.display().to_string(),
            "kind": self.problem.kind_name(),
            "n": self.problem.n(),
            "solver": r.solver,
            "status": r.status.as_str(),
            "iterations": r.iterations,
            "error": finite_or_null(r.error),
            "tol": self.tol,
            "seconds": self.seconds,
            "attempts": self.attempts,
            "warm": self.warm.map(|p| p.display().to_string()),
            "message": r.message.as_deref().filter(|m| !m.is_empty()),
            "z": sol.z,
            "w": sol.w,
        });
        // The physical check (frictional problems and standard LCPs; null for the others).
        v["physical_error"] = r.physical_error.map_or(serde_json::Value::Null, finite_or_null);
        // The contract's names for frictional problems (z and w stay, for older readers).
        if self.problem.family() == perp::catalogue::Family::Friction {
            v["r"] = serde_json::json!(sol.z);
            v["u"] = serde_json::json!(sol.w);
            if let Some(vel) = &sol.v {
                v["v"] = serde_json::json!(vel);
            }
        }
        outln!("{v}")
    }

    /// Prints the answer as text, one `name value` line each.
    fn print_text(&self) -> Result<(), Error> {
        let (r, seconds, attempts) = (&self.sol.report, self.seconds, self.attempts);
        let (kind, n) = (self.problem.kind_name(), self.problem.n());
        outln!("problem    {} ({kind}, n = {n})", self.file.display())?;
        outln!("solver     {}", r.solver)?;
        if let Some(w) = self.warm {
            outln!("start      {}", w.display())?;
        }
        outln!("status     {}", r.status)?;
        outln!("iterations {}", r.iterations)?;
        outln!("error      {:.3e}  (Siconos measure; tol {:.1e})", r.error, self.tol)?;
        outln!("residual   {:.3e}  (natural-map residual, max-norm)", r.residual_inf)?;
        if let Some(p) = r.physical_error {
            outln!("physical   {p:.3e}  (feasibility and complementarity in the problem's own scales)")?;
        }
        outln!("seconds    {seconds:.3e}")?;
        if attempts > 1 {
            outln!("attempts   {attempts} (the fallback chain ran)")?;
        }
        if let Some(m) = &r.message {
            outln!("note       {m}")?;
        }
        if n <= 20 {
            outln!("z          {:?}", self.sol.z)?;
        }
        Ok(())
    }
}

fn finite_or_null(x: f64) -> serde_json::Value {
    if x.is_finite() {
        serde_json::json!(x)
    } else {
        serde_json::Value::Null
    }
}
