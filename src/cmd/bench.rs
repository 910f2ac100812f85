//! `perp bench`: every applicable solver on every problem of a suite.

use super::{settings, Common};
use perp::core::{Error, Settings};
use perp::suite::Problem;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `perp bench`.
#[derive(clap::Args)]
pub struct Args {
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
}

/// Runs `perp bench`.
pub fn run(a: Args) -> Result<ExitCode, Error> {
    bench(&a.suite, a.solvers, &settings(&a.common, 0)?, &a.out, a.threads)
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
