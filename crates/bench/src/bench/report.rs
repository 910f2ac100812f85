//! [`BenchReport`]: a run's records with its settings, machine and unreadable files;
//! `summary.md`, the four output files, reading them back and merging shards.

use super::config::BenchConfig;
use super::curves::Curve;
use super::record::{median, parse_results_csv, results_csv, BenchRecord};
use crate::profile::Metric;
use perp_core::Error;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

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
    #[serde(with = "super::record::nan_as_null")]
    pub tol: f64,
    /// Time limit per solve in seconds (`None`: none).
    pub time_limit: Option<f64>,
    /// Iteration limit per solve (0: each solver's default).
    #[serde(default)]
    pub max_iter: usize,
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
    /// Set when the run was stopped before the end (Ctrl-C): what was finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
    /// Solver parameters set with `--param`, as `SOLVER.NAME=VALUE`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
}

impl RunSettings {
    /// The settings of a run of `solvers` on `suite` under `config` (shard `None`).
    pub fn new(config: &BenchConfig, solvers: &[String], suite: &str) -> RunSettings {
        RunSettings {
            tol: config.settings.tol,
            time_limit: config.settings.time_limit.map(|t| t.as_secs_f64()),
            max_iter: config.settings.max_iter,
            repeat: config.repeat,
            threads: config.threads,
            shard: None,
            solvers: solvers.to_vec(),
            suite: suite.to_string(),
            merged_from: Vec::new(),
            interrupted: None,
            params: Vec::new(),
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
    /// Convergence curves of the failed and slowest runs ([`super::record_curves`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curves: Vec<Curve>,
}

/// The problem kinds of `records`: `lcp`, `mlcp`, `ncp`, `fc2d`, `fc3d` in that order, then
/// any other in order of appearance.
pub fn kinds(records: &[BenchRecord]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for k in ["lcp", "mlcp", "ncp", "fc2d", "fc3d"] {
        if records.iter().any(|r| r.kind == k) {
            out.push(k.to_string());
        }
    }
    for r in records {
        if !out.contains(&r.kind) {
            out.push(r.kind.clone());
        }
    }
    out
}

/// The solvers of `report` that ran on problems of `kind` (in the run's order), with their
/// index in the run's solver list (their colour in every profile).
pub(super) fn solvers_of_kind(report: &BenchReport, kind: &str) -> (Vec<String>, Vec<usize>) {
    report
        .settings
        .solvers
        .iter()
        .enumerate()
        .filter(|(_, s)| report.records.iter().any(|r| r.kind == kind && &r.solver == *s))
        .map(|(i, s)| (s.clone(), i))
        .unzip()
}

/// The performance profile of the problems of `kind` by `metric`, as an SVG document.
pub fn kind_profile_svg(report: &BenchReport, kind: &str, metric: Metric) -> Result<String, String> {
    let (solvers, colours) = solvers_of_kind(report, kind);
    let records: Vec<BenchRecord> = report.records.iter().filter(|r| r.kind == kind).cloned().collect();
    let problems = {
        let mut v: Vec<&str> = records.iter().map(|r| r.problem.as_str()).collect();
        v.dedup();
        v.len()
    };
    let title =
        format!("{kind}: {problems} problem(s), by {} (tol {:e})", metric.as_str(), report.settings.tol);
    crate::profile::svg_by(&records, &solvers, &colours, &title, metric)
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
    let mut out = String::new();
    let problems = problem_list(records);
    write_preamble(&mut out, report, problems.len());
    for kind in kinds(records) {
        let kind = kind.as_str();
        let (mine, _) = solvers_of_kind(report, kind);
        let count = problems.iter().filter(|(_, k, _)| *k == kind).count();
        let _ = writeln!(out, "## {kind} ({count} problem(s))\n");
        write_solver_table(&mut out, records, kind, &mine);
        write_problem_table(&mut out, records, &problems, kind, &mine);
        let _ = writeln!(out);
    }
    write_unsolved(&mut out, records);
    let _ = writeln!(out, "\n## Unreadable files\n");
    if report.unreadable.is_empty() {
        let _ = writeln!(out, "None.");
    }
    for u in &report.unreadable {
        let _ = writeln!(out, "- `{}`: {}", u.file, u.reason.replace('\n', " "));
    }
    out
}

/// The problems of `records` as (name, kind, size), once each, in order of appearance.
fn problem_list(records: &[BenchRecord]) -> Vec<(&str, &str, usize)> {
    let mut problems: Vec<(&str, &str, usize)> = Vec::new();
    for r in records {
        if !problems.iter().any(|(p, _, _)| *p == r.problem) {
            problems.push((&r.problem, &r.kind, r.n));
        }
    }
    problems
}

/// Writes the summary's title, the run's settings and machine, its notes and the legend.
fn write_preamble(out: &mut String, report: &BenchReport, problems: usize) {
    let s = &report.settings;
    let _ = writeln!(out, "# perp bench summary\n");
    let _ = writeln!(
        out,
        "Suite `{}`{}: {} problems, tol {:e}, time limit {}, median of {} solve(s) per run, {} thread(s); \
         perp {} on {}/{} ({} CPUs).\n",
        s.suite,
        s.shard.as_ref().map_or(String::new(), |k| format!(" (shard {k})")),
        problems,
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
    if !s.params.is_empty() {
        let _ = writeln!(out, "Solver parameters: {}.\n", s.params.join(", "));
    }
    if let Some(why) = &s.interrupted {
        let _ = writeln!(out, "**Interrupted:** {why}; the figures below cover the finished runs only.\n");
    }
    let _ = writeln!(
        out,
        "Times are the solve alone (seconds). *geo-mean* is the geometric mean over solved runs; \
         *worst error* the largest error among solved runs; *ratio* the time over one dense LU of \
         the same matrix (M, W for frictional problems) measured in the same run (median over solved runs).\n"
    );
}

/// Writes the table of the solvers `mine` on the problems of `kind`, one row per solver.
fn write_solver_table(out: &mut String, records: &[BenchRecord], kind: &str, mine: &[String]) {
    let _ = writeln!(out, "### Solvers on the {kind} problems\n");
    let _ = writeln!(
        out,
        "| solver | solved | rate | median time (s) | geo-mean time (s) | worst error | median ratio to LU |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for sv in mine {
        write_solver_row(out, records, kind, sv);
    }
}

/// Writes the row of solver `sv` on the problems of `kind`: solved count and rate, median and
/// geometric-mean time, worst error and median ratio to LU over its solved runs.
fn write_solver_row(out: &mut String, records: &[BenchRecord], kind: &str, sv: &str) {
    let of_kind: Vec<&BenchRecord> =
        records.iter().filter(|r| r.kind == kind && r.solver == sv && !r.not_applicable()).collect();
    let solved: Vec<&BenchRecord> = of_kind.iter().copied().filter(|r| r.solved()).collect();
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
        of_kind.len(),
        100.0 * solved.len() as f64 / of_kind.len().max(1) as f64,
        fmt_opt(t, |t| format!("{t:.3e}")),
        fmt_opt(g, |t| format!("{t:.3e}")),
        fmt_opt(worst, |e| format!("{e:.1e}")),
        fmt_opt(median(ratios), |r| format!("{r:.2}")),
    );
}

/// Writes the table of the problems of `kind`: the fastest solver and its time, then every
/// solver of `mine`'s status, iterations and error.
fn write_problem_table(
    out: &mut String,
    records: &[BenchRecord],
    problems: &[(&str, &str, usize)],
    kind: &str,
    mine: &[String],
) {
    let _ = writeln!(out, "\n### Problems of kind {kind} (status, iterations, error)\n");
    let names: Vec<&str> = mine.iter().map(|s| s.as_str()).collect();
    let _ = writeln!(out, "| problem | n | fastest | time (s) | {} |", names.join(" | "));
    let _ = writeln!(out, "|---|---|---|---|{}", "---|".repeat(mine.len()));
    for (p, _, n) in problems.iter().filter(|(_, k, _)| *k == kind) {
        let row: Vec<&BenchRecord> = records.iter().filter(|r| r.problem == *p).collect();
        let fastest = row.iter().filter(|r| r.solved()).min_by(|a, b| a.seconds.total_cmp(&b.seconds));
        let cells: Vec<String> = mine
            .iter()
            .map(|sv| match row.iter().find(|r| &r.solver == sv) {
                Some(r) if r.status == "error" => "error".to_string(),
                Some(r) if r.not_applicable() => "n/a".to_string(),
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

/// Writes the runs that were not applicable, then the failed runs, each with its message.
fn write_unsolved(out: &mut String, records: &[BenchRecord]) {
    let na: Vec<&BenchRecord> = records.iter().filter(|r| r.not_applicable()).collect();
    write_messages(out, "Not applicable (the solver cannot take the problem; not counted)", &na, |_| None);
    let failed: Vec<&BenchRecord> =
        records.iter().filter(|r| r.message.is_some() && !r.not_applicable()).collect();
    write_messages(out, "Failed runs (error, panic, time limit)", &failed, |r| Some(&r.status));
}

/// A section `title` listing `records` (none: no section), one line each: solver, problem,
/// the `status` it gives and the message on one line.
fn write_messages(
    out: &mut String,
    title: &str,
    records: &[&BenchRecord],
    status: fn(&BenchRecord) -> Option<&String>,
) {
    if records.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n## {title}\n");
    for r in records {
        let status = status(r).map_or(String::new(), |s| format!("{s}: "));
        let message = r.message.as_deref().unwrap_or("").replace('\n', " ");
        let _ = writeln!(out, "- {} on {}: {status}{message}", r.solver, r.problem);
    }
}

fn io_err(file: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io { file: file.to_path_buf(), source }
}

/// Writes `results.csv`, `results.json`, `summary.md`, the performance profiles and
/// `report.html` into `dir` (created if missing). The profiles are one per problem kind and
/// metric, `profile-<kind>-time.svg` and `profile-<kind>-iterations.svg` (a profile never mixes
/// kinds: their solvers never ran on the same problems); `profile.svg` is a copy of the time
/// profile of the first kind (in the order of [`kinds`]), or an empty profile when there is
/// no record. `report.html` is [`super::report_html`].
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
    let drawing = |file: &Path| {
        let file = file.to_path_buf();
        move |e: String| Error::Io { file: file.clone(), source: std::io::Error::other(e) }
    };
    let mut first: Option<String> = None;
    for kind in kinds(&report.records) {
        for metric in [Metric::Time, Metric::Iterations] {
            let svg = dir.join(format!("profile-{kind}-{}.svg", metric.as_str()));
            let text = kind_profile_svg(report, &kind, metric).map_err(drawing(&svg))?;
            std::fs::write(&svg, &text).map_err(io_err(&svg))?;
            if first.is_none() {
                first = Some(text);
            }
        }
    }
    let svg = dir.join("profile.svg");
    let text = match first {
        Some(t) => t,
        None => {
            let title = format!(
                "Performance profile: {} (tol {:e}): no record",
                report.settings.suite, report.settings.tol
            );
            crate::profile::svg(&[], &report.settings.solvers, &title).map_err(drawing(&svg))?
        }
    };
    std::fs::write(&svg, text).map_err(io_err(&svg))?;
    let html = dir.join("report.html");
    let text = super::report_html(report).map_err(drawing(&html))?;
    std::fs::write(&html, text).map_err(io_err(&html))?;
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
            max_iter: 0,
            repeat: 0,
            threads: 0,
            shard: None,
            solvers,
            suite: dir.display().to_string(),
            merged_from: Vec::new(),
            interrupted: None,
            params: Vec::new(),
        },
        machine: Machine::current(),
        unreadable: Vec::new(),
        records,
        curves: Vec::new(),
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
        merged.curves.extend(r.curves);
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
