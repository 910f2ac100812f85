//! `perp bench`: every applicable solver on every problem of a suite, or the merge of shards.
//!
//! ```text
//! perp bench [DIR|builtin|FILE…] [--solvers a,b] [--kind lcp|mlcp|ncp|fc2d|fc3d|gfc2d|gfc3d|rfc2d|rfc3d] [--tol X]
//!            [--time-limit S] [--max-iter N] [--repeat N] [--threads N] [--shard K/N] [--out DIR]
//!            [--param [SOLVER.]NAME=VALUE]… [--curves N] [--verbose | --quiet]
//! perp bench --merge DIR… [--out DIR] [--quiet]
//! ```
//!
//! Writes `results.csv`, `results.json`, `summary.md`, `report.html`, `profile.svg` and the
//! per-kind profiles `profile-<kind>-{time,iterations}.svg` into `--out` (default
//! `bench-out/`); see `perp_bench::bench`. After the timed runs, up to `--curves` failed and
//! slowest runs are solved once more with their history recorded, for the report's
//! convergence curves. `results.csv` grows as each problem
//! finishes. Ctrl-C stops the run: the solves under way are stopped, and the four outputs are
//! written from the runs that finished, marked as interrupted (a second Ctrl-C quits at once).
//! Exit status 0 when the run completed (even if solves failed), 2 on bad usage or an
//! unreadable folder or output, 130 when interrupted.

use super::{settings, Common};
use perp::core::Error;
use perp::formats::convert::Format;
use perp::suite::bench::{self, BenchConfig, BenchProblem, BenchReport, RunSettings, Unreadable};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Default time limit per solve for problem files (seconds).
const FILE_TIME_LIMIT: f64 = 10.0;
/// Default time limit per solve for the built-in suite (seconds): its problems are small.
const BUILTIN_TIME_LIMIT: f64 = 2.0;

/// Arguments of `perp bench`.
#[derive(clap::Args)]
pub struct Args {
    /// `builtin` (the default: the generated suite), folders of Siconos LCP / MLCP /
    /// FrictionContact `.dat` and FCLIB `.hdf5` files, or problem files.
    #[arg(value_name = "DIR|builtin|FILE")]
    inputs: Vec<String>,
    /// Comma-separated solver names (default: every solver of each problem's kind).
    #[arg(long, value_delimiter = ',')]
    solvers: Option<Vec<String>>,
    /// Only problems of these kinds (comma-separated).
    #[arg(long, value_delimiter = ',', value_parser = ["lcp", "mlcp", "ncp", "fc2d", "fc3d", "gfc2d", "gfc3d", "rfc2d", "rfc3d"])]
    kind: Option<Vec<String>>,
    #[command(flatten)]
    common: Common,
    /// Iteration (pivot, sweep) limit per solve; 0 = each solver's default. With a generous
    /// --time-limit this is a budget that does not depend on the machine's speed or load.
    #[arg(long, default_value_t = 0)]
    max_iter: usize,
    /// Solves per (problem, solver); the time recorded is their median.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// Problems solved at the same time (each solve stays single-threaded; 1 keeps timings
    /// cleanest).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Run only the K-th of N slices (1-based) of the problem list sorted by name.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Merge the outputs of shard runs (their --out folders) instead of running.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with_all = ["inputs", "solvers", "kind", "shard"])]
    merge: Option<Vec<PathBuf>>,
    /// Output folder.
    #[arg(long, default_value = "bench-out")]
    out: PathBuf,
    /// A solver parameter, NAME=VALUE, or SOLVER.NAME=VALUE when several solvers of the run
    /// take NAME (repeatable; `perp list` shows each solver's parameters and ranges).
    #[arg(long = "param", value_name = "[SOLVER.]NAME=VALUE", conflicts_with = "merge")]
    params: Vec<String>,
    /// Failed and slowest runs solved once more after the timed runs to draw their
    /// convergence curves in report.html (0: none).
    #[arg(long, default_value_t = 12, value_name = "N")]
    curves: usize,
    /// Log every iteration of every solve to stderr: problem, solver, iteration, error (slows
    /// the solves down: for watching, not timing).
    #[arg(long, short, conflicts_with = "quiet")]
    verbose: bool,
    /// No progress bar and no summary line on stdout (warnings and errors still go to stderr).
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `perp bench`.
pub fn run(a: Args) -> Result<ExitCode, Error> {
    if let Some(dirs) = &a.merge {
        return merge(dirs, &a.out, a.quiet);
    }
    let inputs = if a.inputs.is_empty() { vec!["builtin".to_string()] } else { a.inputs.clone() };
    let (k, n) = match &a.shard {
        Some(s) => bench::parse_shard(s)?,
        None => (1, 1),
    };
    let (config, cancel) = bench_config(&a, &inputs)?;
    let (problems, unreadable, solvers, params) = select(&a, &inputs, (k, n))?;
    let bar = progress_bar(&a, problems.len());
    // results.csv grows as problems finish (created with the first finished problem, so that a
    // run refused for bad usage writes nothing; rewritten in problem order at the end).
    let partial: Mutex<Option<std::fs::File>> = Mutex::new(None);
    let set: Arc<dyn bench::SolverSet> = Arc::new(bench::Tuned { params: params.clone() });
    let records = bench::run_with(set.clone(), &problems, &solvers, &config, &|done, recs| {
        bar.set_position(done as u64);
        if let Ok(mut f) = partial.lock() {
            if f.is_none() {
                *f = start_partial_csv(&a.out).ok();
            }
            if let Some(f) = f.as_mut() {
                let text = bench::results_csv(recs);
                // Rows only (the header went first); a failed append shows in the final write.
                let _ = f.write_all(text.split_once('\n').map_or("", |(_, rows)| rows).as_bytes());
            }
        }
    })?;
    bar.finish_and_clear();
    // The convergence curves: a few runs solved again with their history, after the timing.
    let curves = if cancel.load(Ordering::SeqCst) {
        Vec::new()
    } else {
        bench::record_curves(set, &problems, &records, &config, a.curves)
    };
    let interrupted = cancel.load(Ordering::SeqCst);

    let mut run_settings = RunSettings::new(&config, &solvers, &inputs.join(" "));
    run_settings.params = params.pairs();
    run_settings.shard = a.shard.as_ref().map(|_| format!("{k}/{n}"));
    if interrupted {
        run_settings.interrupted = Some(interrupted_after(&records, problems.len()));
    }
    let report = BenchReport {
        settings: run_settings,
        machine: bench::Machine::current(),
        unreadable,
        records,
        curves,
    };
    bench::write(&a.out, &report)?;
    let solved = report.records.iter().filter(|r| r.solved()).count();
    if !a.quiet {
        outln!(
        "{}{} problems x {} solvers: {solved}/{} runs solved{}; wrote results.csv, results.json, summary.md, \
         report.html, profile.svg in {}",
        if interrupted { "interrupted: " } else { "" },
        problems.len(),
        solvers.len(),
        report.records.len(),
        if report.unreadable.is_empty() {
            String::new()
        } else {
            format!(", {} unreadable file(s)", report.unreadable.len())
        },
        a.out.display()
    )?;
    }
    if interrupted {
        eprintln!("perp bench: interrupted; the outputs cover the finished runs only");
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

/// Creates `dir` and `dir/results.csv` with its header, for the rows appended as problems
/// finish.
fn start_partial_csv(dir: &Path) -> Result<std::fs::File, Error> {
    let csv = dir.join("results.csv");
    let io = |source| Error::Io { file: csv.clone(), source };
    std::fs::create_dir_all(dir).map_err(|source| Error::Io { file: dir.to_path_buf(), source })?;
    let mut f = std::fs::File::create(&csv).map_err(io)?;
    writeln!(f, "{}", bench::CSV_HEADER).map_err(io)?;
    Ok(f)
}

/// The run's configuration from the arguments, with the cancel flag that Ctrl-C sets: the
/// first Ctrl-C stops the run (what finished is written), a second quits.
fn bench_config(a: &Args, inputs: &[String]) -> Result<(BenchConfig, Arc<AtomicBool>), Error> {
    let mut s = settings(&a.common, a.max_iter)?;
    // The default limit only when none was given (`--time-limit 1e300` is no limit).
    if a.common.time_limit.is_none() {
        let only_builtin = inputs.iter().all(|i| i == "builtin");
        let t = if only_builtin { BUILTIN_TIME_LIMIT } else { FILE_TIME_LIMIT };
        s.time_limit = Some(Duration::from_secs_f64(t));
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let config = BenchConfig {
        settings: s,
        repeat: a.repeat,
        threads: a.threads,
        cancel: Some(cancel.clone()),
        log_iterations: a.verbose,
        ..BenchConfig::default()
    };
    let flag = cancel.clone();
    // Not being able to install the handler (another one is installed, as in tests) only
    // means Ctrl-C keeps its default effect.
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("perp bench: interrupted; stopping the solves under way and writing what finished (Ctrl-C again to quit)");
    });
    Ok((config, cancel))
}

/// What [`select`] returns.
type Selection = (Vec<BenchProblem>, Vec<Unreadable>, Vec<String>, bench::SolverParams);

/// The problems of shard `k` of `n` (after `--kind`), the unreadable files, the solvers (from
/// the whole suite, so that every shard has the same list) and their parameters; warnings on
/// stderr for an empty shard and for solvers that apply to none of the problems.
fn select(a: &Args, inputs: &[String], (k, n): (usize, usize)) -> Result<Selection, Error> {
    let (mut problems, unreadable) = load(inputs)?;
    if let Some(kinds) = &a.kind {
        problems.retain(|p| kinds.contains(&p.kind));
    }
    let solvers = match &a.solvers {
        Some(list) => list.clone(),
        None => bench::default_solvers(&problems),
    };
    let params = bench::SolverParams::parse(&a.params, &solvers)?;
    let total = problems.len();
    let problems = bench::shard(problems, k, n)?;
    if problems.is_empty() {
        eprintln!("perp bench: no problem to run (of {total} after --kind, shard {k}/{n})");
    }
    for s in &solvers {
        if !problems.iter().any(|p| p.problem.accepts(s))
            && perp::suite::bench::Registry::names().contains(&s.as_str())
        {
            eprintln!("perp bench: solver '{s}' applies to none of the problems");
        }
    }
    Ok((problems, unreadable, solvers, params))
}

/// The progress bar over `len` problems: a terminal draw target on stderr (indicatif hides it
/// by itself when stderr is not a terminal, or TERM is unset or dumb, so piped and CI runs
/// stay quiet); none with --quiet and --verbose (whose log the bar would tear).
fn progress_bar(a: &Args, len: usize) -> indicatif::ProgressBar {
    let target = if a.quiet || a.verbose {
        indicatif::ProgressDrawTarget::hidden()
    } else {
        indicatif::ProgressDrawTarget::stderr()
    };
    let bar = indicatif::ProgressBar::with_draw_target(Some(len as u64), target);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} problems {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    // The elapsed time moves while a long solve runs (the position moves per problem).
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}

/// The report's note on a run stopped by Ctrl-C: how many runs and problems finished.
fn interrupted_after(records: &[bench::BenchRecord], problems: usize) -> String {
    let mut names: Vec<&str> = records.iter().map(|r| r.problem.as_str()).collect();
    names.dedup();
    format!("Ctrl-C after {} finished run(s) on {} of {problems} problem(s)", records.len(), names.len())
}

/// The problems of `inputs` (`builtin`, folders, files) and the files that could not be read.
/// A folder that cannot be listed or a path that does not exist is an error (exit 2); a file
/// that cannot be read as a problem is reported on stderr and returned as unreadable.
fn load(inputs: &[String]) -> Result<(Vec<BenchProblem>, Vec<Unreadable>), Error> {
    let mut problems = Vec::new();
    let mut unreadable = Vec::new();
    for input in inputs {
        if input == "builtin" {
            problems.extend(perp::suite::builtin::builtin_problems());
            continue;
        }
        let path = Path::new(input);
        let meta = std::fs::metadata(path).map_err(|e| Error::Io { file: path.to_path_buf(), source: e })?;
        let files: Vec<PathBuf> = if meta.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| Error::Io { file: path.to_path_buf(), source: e })?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect();
            files.sort();
            // Every file is either read or listed as skipped, with the reason: MatrixMarket
            // companions (`foo_q.mtx` beside `foo.mtx`) are read with their main file.
            let all = files.clone();
            files.retain(|f| {
                if mtx_companion_of(f, &all).is_some() {
                    return false;
                }
                if Format::from_path(f, "input file").is_ok() {
                    return true;
                }
                unreadable.push(Unreadable {
                    file: f.display().to_string(),
                    reason: "skipped: not a problem file (perp reads .dat, .hdf5, .mtx and .json)".into(),
                });
                false
            });
            files
        } else {
            vec![path.to_path_buf()]
        };
        for f in files {
            let name = f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            // The reader of `perp solve`: every format by its extension, the kind detected; a
            // global frictional file in its global form, so that the profile compares the
            // global solvers with the local ones on its reduction.
            match read_for_bench(&f) {
                Ok(p) => problems.push(BenchProblem::new(&name, p)),
                Err(e) => {
                    eprintln!("perp bench: skipping unreadable {e}");
                    // The message starts with the file name (Error::Io / Error::Parse): keep the
                    // reason alone next to the file.
                    let file = f.display().to_string();
                    let text = e.to_string();
                    let reason = text.strip_prefix(&format!("{file}: ")).unwrap_or(&text).to_string();
                    unreadable.push(Unreadable { file, reason });
                }
            }
        }
    }
    Ok((problems, unreadable))
}

/// A bench problem from `f`: a Siconos or FCLIB frictional file as stored (global or local),
/// any other file as `perp solve` reads it.
fn read_for_bench(f: &Path) -> Result<perp::catalogue::Problem, Error> {
    let named_mlcp = f.file_name().is_some_and(|n| n.to_string_lossy().to_ascii_lowercase().contains("mlcp"));
    if !named_mlcp && matches!(Format::from_path(f, "input file"), Ok(Format::Siconos | Format::Fclib)) {
        match perp::formats::read_friction_file(f) {
            Ok(perp::formats::FrictionFile::Global(g)) => {
                return Ok(perp::catalogue::Problem::GlobalFriction(g))
            }
            Ok(perp::formats::FrictionFile::Local(p)) => return Ok(perp::catalogue::Problem::Friction(p)),
            Err(_) => {}
        }
    }
    perp::formats::convert::read_with_kind(f, None)
}

/// `Some(main)` when `f` is a MatrixMarket companion (`foo_q.mtx`, `foo_mu.mtx`,
/// `foo_free.mtx`) of a `foo.mtx` among `files`.
fn mtx_companion_of<'a>(f: &Path, files: &'a [PathBuf]) -> Option<&'a PathBuf> {
    let name = f.file_name()?.to_str()?;
    let stem = name.strip_suffix(".mtx")?;
    ["_q", "_mu", "_free"].iter().find_map(|suffix| {
        let base = stem.strip_suffix(suffix)?;
        files.iter().find(|g| g.file_name().and_then(|n| n.to_str()) == Some(&format!("{base}.mtx")))
    })
}

/// `perp bench --merge DIR…`: the combined report of shard outputs, written into `out`.
fn merge(dirs: &[PathBuf], out: &Path, quiet: bool) -> Result<ExitCode, Error> {
    let mut reports = Vec::with_capacity(dirs.len());
    for d in dirs {
        reports.push((d.clone(), bench::read_report(d)?));
    }
    let merged = bench::merge(reports)?;
    bench::write(out, &merged)?;
    if quiet {
        return Ok(ExitCode::SUCCESS);
    }
    let problems = {
        let mut v: Vec<&str> = merged.records.iter().map(|r| r.problem.as_str()).collect();
        v.dedup();
        v.len()
    };
    outln!(
        "merged {} shard(s): {problems} problems, {} runs; wrote results.csv, results.json, summary.md, \
         report.html, profile.svg in {}",
        dirs.len(),
        merged.records.len(),
        out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}
