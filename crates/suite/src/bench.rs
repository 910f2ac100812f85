//! The benchmark runner behind `perp bench`: every solver on every problem, one record each,
//! written as `results.csv` and `summary.md`.
//!
//! Times are wall-clock times of `solve` alone (no reading, no start-up). Because these
//! machines are noisy, every problem also gets a reference time measured in the same run —
//! one dense LU factorization of its M (faer, best of three) — and `summary.md` reports each
//! solver's time as a ratio to it (ARCHITECTURE.md, "Performance").

use perp_cones::FrictionContactProblem;
use perp_core::{Error, Matrix, Settings, Status};
use perp_lcp::Lcp;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

/// A problem the runner can solve.
#[derive(Clone, Debug)]
pub enum Instance {
    /// An LCP (solvers of `perp_ncp::LCP_SOLVER_NAMES`).
    Lcp(Lcp),
    /// A frictional contact problem (solvers of `perp_cones::SOLVER_NAMES`).
    Friction(FrictionContactProblem),
}

impl Instance {
    /// Number of unknowns.
    pub fn n(&self) -> usize {
        match self {
            Instance::Lcp(p) => p.n(),
            Instance::Friction(p) => p.size(),
        }
    }

    /// The matrix whose dense LU is the reference kernel (M, or the Delassus W).
    pub fn matrix(&self) -> &Matrix {
        match self {
            Instance::Lcp(p) => p.m(),
            Instance::Friction(p) => &p.w,
        }
    }

    /// Whether `solver` is a registry name for this kind of problem.
    pub fn accepts(&self, solver: &str) -> bool {
        match self {
            Instance::Lcp(_) => perp_ncp::LCP_SOLVER_NAMES.contains(&solver),
            Instance::Friction(_) => perp_cones::SOLVER_NAMES.contains(&solver),
        }
    }

    /// The default solvers for this kind.
    pub fn default_solvers(&self) -> &'static [&'static str] {
        match self {
            Instance::Lcp(_) => perp_ncp::LCP_SOLVER_NAMES,
            Instance::Friction(_) => perp_cones::SOLVER_NAMES,
        }
    }
}

/// One benchmark problem.
pub struct BenchProblem {
    /// File name or built-in name.
    pub name: String,
    /// Problem class: `lcp`, `fc2d`, `fc3d`.
    pub kind: String,
    /// The problem.
    pub problem: Instance,
}

/// One solver on one problem.
#[derive(Clone, Debug)]
pub struct BenchRecord {
    /// Problem name.
    pub problem: String,
    /// Problem class.
    pub kind: String,
    /// Dimension.
    pub n: usize,
    /// Solver registry name.
    pub solver: String,
    /// How the solve ended; `Err` text when the solver refused the problem.
    pub status: String,
    /// Iterations (pivots for pivoting methods).
    pub iterations: usize,
    /// `report.error` (NaN when the solver refused the problem).
    pub error: f64,
    /// Seconds spent in `solve`.
    pub seconds: f64,
    /// Seconds of one dense LU of the problem's M in the same run.
    pub reference_seconds: f64,
}

impl BenchRecord {
    /// Whether the solver reported `Solved`.
    pub fn solved(&self) -> bool {
        self.status == Status::Solved.as_str()
    }
}

/// Time of one dense LU factorization of `m` (best of three), the reference kernel.
pub fn reference_lu_seconds(m: &Matrix) -> f64 {
    let m = m.to_dense();
    (0..3)
        .map(|_| {
            let t = Instant::now();
            let lu = m.partial_piv_lu();
            std::hint::black_box(&lu);
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Runs every solver on every problem with `threads` worker threads (1 = serial, the
/// default for timing). Records come back in problem-major, solver-minor order whatever the
/// thread count. `progress` is called after each problem with the number done.
pub fn run(
    problems: &[BenchProblem],
    solvers: &[String],
    settings: &Settings,
    threads: usize,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<BenchRecord>, Error> {
    for s in solvers {
        if perp_ncp::lcp_solver(s).is_err() && perp_cones::solver(s).is_err() {
            let all: Vec<&str> =
                perp_ncp::LCP_SOLVER_NAMES.iter().chain(perp_cones::SOLVER_NAMES).copied().collect();
            return Err(Error::unknown_solver(s, &all));
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| Error::setting("threads", threads, &e.to_string()))?;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let per_problem: Vec<Vec<BenchRecord>> = pool.install(|| {
        problems
            .par_iter()
            .map(|bp| {
                let reference = reference_lu_seconds(bp.problem.matrix());
                let recs = solvers
                    .iter()
                    .filter(|s| bp.problem.accepts(s))
                    .map(|s| run_one(bp, s, settings, reference))
                    .collect();
                progress(done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1);
                recs
            })
            .collect()
    });
    Ok(per_problem.into_iter().flatten().collect())
}

fn run_one(bp: &BenchProblem, solver: &str, settings: &Settings, reference_seconds: f64) -> BenchRecord {
    let mut rec = BenchRecord {
        problem: bp.name.clone(),
        kind: bp.kind.clone(),
        n: bp.problem.n(),
        solver: solver.to_string(),
        status: String::new(),
        iterations: 0,
        error: f64::NAN,
        seconds: 0.0,
        reference_seconds,
    };
    let t = Instant::now();
    let result = match &bp.problem {
        Instance::Lcp(p) => {
            perp_ncp::lcp_solver(solver).and_then(|mut s| s.solve(p, None, settings)).map(|s| s.report)
        }
        Instance::Friction(p) => {
            perp_cones::solver(solver).and_then(|mut s| s.solve(p, None, settings)).map(|s| s.report)
        }
    };
    match result {
        Ok(report) => {
            rec.seconds = t.elapsed().as_secs_f64();
            rec.status = report.status.as_str().to_string();
            rec.iterations = report.iterations;
            rec.error = report.error;
        }
        Err(e) => {
            rec.seconds = t.elapsed().as_secs_f64();
            rec.status = format!("error: {e}");
        }
    }
    rec
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `results.csv`: `problem,kind,n,solver,status,iterations,error,seconds` (ARCHITECTURE.md).
pub fn results_csv(records: &[BenchRecord]) -> String {
    let mut out = String::from("problem,kind,n,solver,status,iterations,error,seconds\n");
    for r in records {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{:e},{:e}",
            csv_field(&r.problem),
            r.kind,
            r.n,
            r.solver,
            csv_field(&r.status),
            r.iterations,
            r.error,
            r.seconds
        );
    }
    out
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let k = v.len();
    Some(if k % 2 == 1 { v[k / 2] } else { 0.5 * (v[k / 2 - 1] + v[k / 2]) })
}

/// `summary.md`: per solver, the solve rate, the median time over solved problems, and the
/// median ratio of its time to the same run's dense-LU reference; then per problem, who solved
/// it.
pub fn summary_md(records: &[BenchRecord], settings: &Settings, solvers: &[String]) -> String {
    let mut out = String::new();
    let problems: Vec<&str> = {
        let mut v: Vec<&str> = Vec::new();
        for r in records {
            if !v.contains(&r.problem.as_str()) {
                v.push(&r.problem);
            }
        }
        v
    };
    let _ = writeln!(out, "# perp bench summary\n");
    let _ = writeln!(
        out,
        "{} problems, tol {:e}, time limit {}. Times are `solve` alone; *ratio* is the time over \
         one dense LU of the same matrix (M, or W for frictional problems) measured in the same run (median over solved problems).\n",
        problems.len(),
        settings.tol,
        settings.time_limit.map_or("none".to_string(), |t| format!("{} s", t.as_secs_f64()))
    );
    let _ = writeln!(out, "| solver | solved | rate | median time (s) | median ratio to LU |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for s in solvers {
        let mine: Vec<&BenchRecord> = records.iter().filter(|r| &r.solver == s).collect();
        let solved: Vec<&&BenchRecord> = mine.iter().filter(|r| r.solved()).collect();
        let t = median(solved.iter().map(|r| r.seconds).collect());
        let ratio = median(solved.iter().map(|r| r.seconds / r.reference_seconds.max(1e-9)).collect());
        let _ = writeln!(
            out,
            "| {s} | {}/{} | {:.0}% | {} | {} |",
            solved.len(),
            mine.len(),
            100.0 * solved.len() as f64 / mine.len().max(1) as f64,
            t.map_or("–".into(), |t| format!("{t:.3e}")),
            ratio.map_or("–".into(), |r| format!("{r:.2}"))
        );
    }
    let _ = writeln!(out, "\n## Per problem (status, iterations, error)\n");
    let _ = writeln!(out, "| problem | n | {} |", solvers.join(" | "));
    let _ = writeln!(out, "|---|---|{}", "---|".repeat(solvers.len()));
    for p in &problems {
        let row: Vec<&BenchRecord> = records.iter().filter(|r| r.problem == *p).collect();
        let cells: Vec<String> = solvers
            .iter()
            .map(|s| match row.iter().find(|r| &r.solver == s) {
                Some(r) if r.status.starts_with("error") => "refused".to_string(),
                Some(r) => format!("{} {} {:.1e}", r.status, r.iterations, r.error),
                None => "–".to_string(),
            })
            .collect();
        let _ = writeln!(out, "| {p} | {} | {} |", row.first().map_or(0, |r| r.n), cells.join(" | "));
    }
    let refused: Vec<&BenchRecord> = records.iter().filter(|r| r.status.starts_with("error")).collect();
    if !refused.is_empty() {
        let _ = writeln!(out, "\n## Refused (the solver does not apply to the problem)\n");
        for r in refused {
            let _ = writeln!(out, "- {} on {}: {}", r.solver, r.problem, &r.status["error: ".len()..]);
        }
    }
    out
}

/// Writes `results.csv` and `summary.md` into `dir` (created if missing).
pub fn write(
    dir: &Path,
    records: &[BenchRecord],
    settings: &Settings,
    solvers: &[String],
) -> Result<(), Error> {
    let io = |file: &Path, e| Error::Io { file: file.to_path_buf(), source: e };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let csv = dir.join("results.csv");
    std::fs::write(&csv, results_csv(records)).map_err(|e| io(&csv, e))?;
    let md = dir.join("summary.md");
    std::fs::write(&md, summary_md(records, settings, solvers)).map_err(|e| io(&md, e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use perp_core::Matrix;

    fn problems() -> Vec<BenchProblem> {
        let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
        let a = Lcp::new(m, vec![-5.0, -6.0]).unwrap();
        let m = Matrix::from_row_major(2, 2, &[0.0, 1.0, -1.0, 0.0]).unwrap();
        let b = Lcp::new(m, vec![-1.0, 1.0]).unwrap();
        vec![
            BenchProblem { name: "easy".into(), kind: "lcp".into(), problem: Instance::Lcp(a) },
            BenchProblem {
                name: "skew, zero diagonal".into(),
                kind: "lcp".into(),
                problem: Instance::Lcp(b),
            },
        ]
    }

    #[test]
    fn serial_and_parallel_runs_give_the_same_records() {
        let solvers = vec!["lemke".to_string(), "pgs".to_string()];
        let s = Settings::default();
        let a = run(&problems(), &solvers, &s, 1, &|_| {}).unwrap();
        let b = run(&problems(), &solvers, &s, 2, &|_| {}).unwrap();
        assert_eq!(a.len(), 4);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(
                (&x.problem, &x.solver, &x.status, x.iterations),
                (&y.problem, &y.solver, &y.status, y.iterations)
            );
            assert_eq!(x.error.to_bits(), y.error.to_bits());
        }
        // Lemke solves both; PGS refuses the zero diagonal with an error, recorded as such.
        assert!(a[0].solved() && a[2].solved());
        assert!(a[3].status.starts_with("error"), "{}", a[3].status);
        let csv = results_csv(&a);
        assert!(csv.starts_with("problem,kind,n,solver,status,iterations,error,seconds\n"));
        assert!(csv.contains("\"skew, zero diagonal\",lcp,2,lemke,solved,"), "{csv}");
        let md = summary_md(&a, &s, &solvers);
        assert!(md.contains("| lemke | 2/2 | 100% |"), "{md}");
        assert!(md.contains("| pgs | 1/2 | 50% |"), "{md}");
    }

    #[test]
    fn unknown_solver_is_an_error_before_any_work() {
        let e = run(&problems(), &["nope".to_string()], &Settings::default(), 1, &|_| {}).unwrap_err();
        assert!(e.to_string().contains("unknown solver 'nope'"), "{e}");
    }
}
