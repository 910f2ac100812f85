//! The `perp` command: solve a problem file, benchmark solvers, list what is available.
//!
//! Exit status (ARCHITECTURE.md): 0 on success, 1 when a solve did not converge or a check
//! failed, 2 on bad usage or unreadable input, with a one-line message naming the file.

use clap::{Parser, Subcommand};
use perp::core::{Error, Settings, Status};
use perp::suite::{Problem, ProblemKind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(name = "perp", version, about = "Complementarity solvers for contact mechanics")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
struct Common {
    /// Tolerance on the peer-compatible error measure.
    #[arg(long, default_value_t = 1e-8)]
    tol: f64,
    /// Wall-clock limit per solve, in seconds.
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
}

#[derive(Subcommand)]
enum Command {
    /// Solve one problem file (Siconos LCP, MLCP or FrictionContact `.dat`, FCLIB `.hdf5`; the
    /// kind is detected).
    Solve {
        /// The problem file.
        file: PathBuf,
        /// Solver name (see `perp list`); default `lemke` for an LCP, `fb-newton` for an MLCP,
        /// `prox` for a frictional contact problem.
        #[arg(long)]
        solver: Option<String>,
        /// The problem kind, when detection from the file is not wanted.
        #[arg(long, value_parser = ["lcp", "mlcp", "fc"])]
        kind: Option<String>,
        /// Iteration (pivot) limit; 0 = the solver's default.
        #[arg(long, default_value_t = 0)]
        max_iter: usize,
        #[command(flatten)]
        common: Common,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Run solvers on a suite and write results.csv and summary.md.
    Bench {
        /// A folder of Siconos LCP / FrictionContact `.dat` and FCLIB `.hdf5` files, or `builtin`
        /// (the default) for the generated suite.
        #[arg(default_value = "builtin")]
        suite: String,
        /// Comma-separated solver names (default: every solver of each problem's kind).
        #[arg(long, value_delimiter = ',')]
        solvers: Option<Vec<String>>,
        #[command(flatten)]
        common: Common,
        /// Output folder.
        #[arg(long, default_value = "results")]
        out: PathBuf,
        /// Worker threads (1 keeps timings clean).
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// List solvers and built-in problems.
    List,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("perp: {e}");
            ExitCode::from(2)
        }
    }
}

fn settings(common: &Common, max_iter: usize) -> Result<Settings, Error> {
    let time_limit = match common.time_limit {
        None => None,
        Some(t) if t.is_finite() && t > 0.0 => Some(Duration::from_secs_f64(t)),
        Some(t) => return Err(Error::setting("--time-limit", t, "must be a positive number of seconds")),
    };
    let s = Settings { tol: common.tol, max_iter, time_limit, ..Settings::default() };
    s.validate()?;
    Ok(s)
}

fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        Command::Solve { file, solver, kind, max_iter, common, json } => {
            let kind = kind.map(|k| match k.as_str() {
                "mlcp" => ProblemKind::Mlcp,
                "fc" => ProblemKind::Friction,
                _ => ProblemKind::Lcp,
            });
            solve(&file, solver.as_deref(), kind, &settings(&common, max_iter)?, json)
        }
        Command::Bench { suite, solvers, common, out, threads } => {
            bench(&suite, solvers, &settings(&common, 0)?, &out, threads)
        }
        Command::List => {
            println!("LCP solvers: {}", perp::lcp::SOLVER_NAMES.join(", "));
            println!("NCP/MCP/MLCP solvers: {}", perp::ncp::SOLVER_NAMES.join(", "));
            println!("frictional contact solvers: {}", perp::cones::SOLVER_NAMES.join(", "));
            let names: Vec<String> =
                perp::suite::generate::builtin_suite().into_iter().map(|(n, _)| n).collect();
            println!("built-in problems: {}", names.join(", "));
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn solve(
    file: &Path,
    solver: Option<&str>,
    kind: Option<ProblemKind>,
    s: &Settings,
    json: bool,
) -> Result<ExitCode, Error> {
    let problem = perp::suite::read_problem(file, kind)?;
    let kind = problem.kind_name();
    let (n, sol) = match &problem {
        Problem::Lcp(p) => {
            let sol = perp::lcp::solver(solver.unwrap_or("lemke"))?.solve(p, None, s)?;
            (p.n(), sol)
        }
        Problem::Mlcp(p) => {
            let mut sv = perp::ncp::solver(solver.unwrap_or("fb-newton"))?;
            let f = p.to_function();
            let (lower, upper) = p.bounds();
            let mcp = perp::ncp::Mcp::new(&f, lower, upper)?;
            (p.n(), sv.solve(&mcp, &vec![0.0; p.n()], s)?)
        }
        Problem::Friction(p) => {
            let fs = perp::cones::solver(solver.unwrap_or("prox"))?.solve(p, None, s)?;
            // z = r (reactions), w = u (velocities) in the printed/JSON output.
            (p.size(), perp::core::Solution { z: fs.r, w: fs.u, report: fs.report, ray: None })
        }
    };
    let r = &sol.report;
    if json {
        let v = serde_json::json!({
            "problem": file.display().to_string(),
            "kind": kind,
            "n": n,
            "solver": r.solver,
            "status": r.status.as_str(),
            "iterations": r.iterations,
            "error": finite_or_null(r.error),
            "seconds": r.elapsed.as_secs_f64(),
            "z": sol.z,
            "w": sol.w,
        });
        println!("{v}");
    } else {
        println!("problem    {} ({kind}, n = {n})", file.display());
        println!("solver     {}", r.solver);
        println!("status     {}", r.status);
        println!("iterations {}", r.iterations);
        println!("error      {:.3e}  (Siconos measure; tol {:.1e})", r.error, s.tol);
        println!("residual   {:.3e}  (natural-map residual, max-norm)", r.residual_inf);
        println!("seconds    {:.3e}", r.elapsed.as_secs_f64());
        if let Some(m) = &r.message {
            println!("note       {m}");
        }
        if n <= 20 {
            println!("z          {:?}", sol.z);
        }
    }
    Ok(if r.status == Status::Solved { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn finite_or_null(x: f64) -> serde_json::Value {
    if x.is_finite() {
        serde_json::json!(x)
    } else {
        serde_json::Value::Null
    }
}

fn bench(
    suite: &str,
    solvers: Option<Vec<String>>,
    s: &Settings,
    out: &Path,
    threads: usize,
) -> Result<ExitCode, Error> {
    use perp::suite::bench::{self, BenchProblem, Instance};
    let problems: Vec<BenchProblem> = if suite == "builtin" {
        perp::suite::generate::builtin_suite()
            .into_iter()
            .map(|(name, lcp)| BenchProblem { name, kind: "lcp".into(), problem: Instance::Lcp(lcp) })
            .collect()
    } else {
        let dir = Path::new(suite);
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| Error::Io { file: dir.to_path_buf(), source: e })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "dat" || x == "hdf5"))
            .collect();
        files.sort();
        let mut v = Vec::new();
        for f in files {
            let name = f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            match perp::suite::read_problem(&f, None) {
                Ok(Problem::Lcp(lcp)) => {
                    v.push(BenchProblem { name, kind: "lcp".into(), problem: Instance::Lcp(lcp) })
                }
                Ok(Problem::Friction(p)) => v.push(BenchProblem {
                    name,
                    kind: format!("fc{}d", p.dim),
                    problem: Instance::Friction(p),
                }),
                Ok(Problem::Mlcp(_)) => {
                    eprintln!(
                        "perp bench: skipping {} (MLCP; bench runs LCPs and frictional problems for now)",
                        f.display()
                    )
                }
                Err(e) => eprintln!("perp bench: skipping unreadable {e}"),
            }
        }
        v
    };
    let solvers = solvers.unwrap_or_else(|| {
        let mut names: Vec<String> = Vec::new();
        for p in &problems {
            for s in p.problem.default_solvers() {
                if !names.iter().any(|n| n == s) {
                    names.push(s.to_string());
                }
            }
        }
        names
    });
    let bar = indicatif::ProgressBar::new(problems.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} problems {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let records = bench::run(&problems, &solvers, s, threads, &|k| bar.set_position(k as u64))?;
    bar.finish_and_clear();
    bench::write(out, &records, s, &solvers)?;
    let solved = records.iter().filter(|r| r.solved()).count();
    println!(
        "{} problems x {} solvers: {solved}/{} solved; wrote {} and {}",
        problems.len(),
        solvers.len(),
        records.len(),
        out.join("results.csv").display(),
        out.join("summary.md").display()
    );
    Ok(ExitCode::SUCCESS)
}
