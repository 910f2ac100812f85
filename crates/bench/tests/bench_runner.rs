//! The benchmark runner (`perp_bench::bench`): determinism across thread counts, caught panics,
//! enforced time limits, repeats, shards and their merge, and the four output files.

use perp_bench::bench::{
    self, BenchConfig, BenchProblem, BenchRecord, BenchReport, Instance, Machine, Registry, RunSettings,
    SolverSet, Unreadable,
};
use perp_bench::profile::solver_color_hex;
use perp_core::{Error, Settings, SolveReport, Status};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The built-in problems small enough for a debug-build test (n ≤ 200), every kind.
fn small_suite() -> Vec<BenchProblem> {
    perp_bench::builtin::builtin_problems().into_iter().filter(|p| p.problem.n() <= 200).collect()
}

fn config(threads: usize) -> BenchConfig {
    let mut c = BenchConfig { threads, ..BenchConfig::default() };
    // Generous: no solve of the small suite comes near it, so it cannot change an outcome.
    c.settings.time_limit = Some(Duration::from_secs(60));
    c
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("perp-bench-runner-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn assert_same_outcomes(a: &[BenchRecord], b: &[BenchRecord]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!(x.same_outcome(y), "{x:?}\n{y:?}");
    }
}

fn report(records: Vec<BenchRecord>, solvers: &[String], c: &BenchConfig) -> BenchReport {
    BenchReport {
        settings: RunSettings::new(c, solvers, "builtin"),
        machine: Machine::current(),
        unreadable: Vec::new(),
        records,
        curves: Vec::new(),
    }
}

#[test]
fn one_and_two_threads_give_the_same_records() {
    let problems = bench::shard(small_suite(), 1, 1).unwrap();
    let solvers = bench::default_solvers(&problems);
    // Every kind's solvers are there.
    for s in ["lemke", "pgs", "fb-newton", "bdiff-newton", "nsgs", "ac-newton"] {
        assert!(solvers.iter().any(|x| x == s), "{s} in {solvers:?}");
    }
    let done = AtomicUsize::new(0);
    let a = bench::run(&problems, &solvers, &config(1), &|k, _| done.store(k, Ordering::SeqCst)).unwrap();
    assert_eq!(done.load(Ordering::SeqCst), problems.len());
    let b = bench::run(&problems, &solvers, &config(2), &|_, _| {}).unwrap();
    assert_same_outcomes(&a, &b);
    // Problem-major, solver-minor order, only applicable solvers.
    let expected: usize =
        problems.iter().map(|p| solvers.iter().filter(|s| p.problem.accepts(s)).count()).sum();
    assert_eq!(a.len(), expected);
    assert_eq!(a[0].problem, problems[0].name);
    // Every kind is run, and most runs succeed (the suite is built to be solvable).
    for kind in ["lcp", "mlcp", "ncp", "fc2d", "fc3d"] {
        assert!(a.iter().any(|r| r.kind == kind && r.solved()), "{kind}");
    }
    assert!(a.iter().filter(|r| r.solved()).count() * 4 > a.len() * 3);
    assert!(a.iter().all(|r| r.seconds.is_finite() && r.seconds >= 0.0));
}

/// Test solvers: `boom` panics, `sleepy` ignores the time limit for 30 s, `slow` answers
/// "solved" after 150 ms, `steps` sleeps 0, 40 and 2000 ms on its calls 1, 2, 3 (then 0),
/// anything else goes to the registry.
struct TestSolvers {
    sleepy_finished: Arc<AtomicBool>,
    calls: AtomicUsize,
}

fn solved_report(name: &str) -> SolveReport {
    let mut r = SolveReport::new(name);
    r.status = Status::Solved;
    r.iterations = 1;
    r.error = 0.0;
    r
}

impl SolverSet for TestSolvers {
    fn applies(&self, solver: &str, problem: &Instance) -> bool {
        matches!(solver, "boom" | "sleepy" | "slow" | "steps") || problem.accepts(solver)
    }

    fn solve(&self, solver: &str, problem: &Instance, settings: &Settings) -> Result<SolveReport, Error> {
        match solver {
            "boom" => panic!("kaboom on a problem of size {}", problem.n()),
            "sleepy" => {
                std::thread::sleep(Duration::from_secs(30));
                self.sleepy_finished.store(true, Ordering::SeqCst);
                Ok(solved_report(solver))
            }
            "slow" => {
                std::thread::sleep(Duration::from_millis(150));
                Ok(solved_report(solver))
            }
            "steps" => {
                let k = self.calls.fetch_add(1, Ordering::SeqCst);
                let ms = [0, 40, 2000].get(k).copied().unwrap_or(0);
                std::thread::sleep(Duration::from_millis(ms));
                Ok(solved_report(solver))
            }
            _ => Registry.solve(solver, problem, settings),
        }
    }
}

/// One solver, `quick`, whose repeats run back to back on the worker: the first answers after
/// 20 ms (the runner goes to sleep waiting for it and wakes up late for the others), the
/// others at once, each saying it took 0.5 ms (the first) or 1 µs (so the worker does not wait
/// for the runner between them).
struct Quick {
    calls: AtomicUsize,
}

impl SolverSet for Quick {
    fn applies(&self, _: &str, _: &Instance) -> bool {
        true
    }

    fn solve(&self, solver: &str, _: &Instance, _: &Settings) -> Result<SolveReport, Error> {
        Ok(solved_report(solver))
    }

    fn solve_repeated(
        &self,
        solver: &str,
        problem: &Instance,
        settings: &Settings,
        repeat: usize,
        each: &mut dyn FnMut(Result<SolveReport, Error>, f64) -> bool,
    ) {
        for k in 0..repeat {
            self.calls.fetch_add(1, Ordering::SeqCst);
            if k == 0 {
                std::thread::sleep(Duration::from_millis(20));
            }
            if !each(self.solve(solver, problem, settings), if k == 0 { 5e-4 } else { 1e-6 }) {
                break;
            }
        }
    }
}

fn two_lcps() -> Vec<BenchProblem> {
    vec![
        BenchProblem::new("spd-5", Instance::Lcp(perp_lcp::samples::spd(5, 1))),
        BenchProblem::new("murty-4", Instance::Lcp(perp_lcp::samples::murty(4))),
    ]
}

#[test]
fn a_panicking_solver_is_recorded_as_a_numerical_failure_and_the_run_goes_on() {
    let set = Arc::new(TestSolvers { sleepy_finished: Arc::new(AtomicBool::new(false)), calls: 0.into() });
    let solvers: Vec<String> = ["boom", "lemke"].iter().map(|s| s.to_string()).collect();
    let recs = bench::run_with(set, &two_lcps(), &solvers, &config(2), &|_, _| {}).unwrap();
    assert_eq!(recs.len(), 4);
    for (i, n) in [(0, 5), (2, 4)] {
        assert_eq!(recs[i].solver, "boom");
        assert_eq!(recs[i].status, "numerical_failure");
        let msg = recs[i].message.as_deref().unwrap();
        assert!(msg.contains(&format!("kaboom on a problem of size {n}")), "{msg}");
        assert!(recs[i].error.is_nan());
        assert!(recs[i + 1].solved(), "{:?}", recs[i + 1]);
    }
    let md = bench::summary_md(&report(recs, &solvers, &config(2)));
    assert!(md.contains("- boom on spd-5: numerical_failure: solver panicked: kaboom"), "{md}");
    assert!(md.contains("| boom | 0/2 | 0% |"), "{md}");
}

#[test]
fn the_time_limit_is_enforced_by_a_hard_deadline() {
    let finished = Arc::new(AtomicBool::new(false));
    let set = Arc::new(TestSolvers { sleepy_finished: finished.clone(), calls: 0.into() });
    let mut c = config(1);
    c.settings.time_limit = Some(Duration::from_millis(50));
    c.grace = Duration::from_millis(200);
    assert_eq!(c.hard_deadline(), Some(Duration::from_millis(300)));
    let solvers: Vec<String> = ["sleepy", "slow", "lemke"].iter().map(|s| s.to_string()).collect();
    let problems = &two_lcps()[..1];
    let recs = bench::run_with(set, problems, &solvers, &c, &|_, _| {}).unwrap();
    // The runner came back although the sleepy solver is still asleep (30 s): abandoned.
    assert!(!finished.load(Ordering::SeqCst));
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0].status, "time_limit");
    let msg = recs[0].message.as_deref().unwrap();
    assert!(msg.contains("hard deadline") && msg.contains("abandoned"), "{msg}");
    assert!(recs[0].seconds >= 0.3, "{}", recs[0].seconds);
    // Answered before the deadline but after the limit: time_limit too, with its report.
    assert_eq!(recs[1].status, "time_limit");
    assert!(recs[1].message.as_deref().unwrap().contains("over the time limit"), "{:?}", recs[1]);
    assert_eq!(recs[1].iterations, 1);
    assert!(recs[1].seconds >= 0.15);
    // The run went on: lemke solved the problem afterwards.
    assert!(recs[2].solved(), "{:?}", recs[2]);
}

#[test]
fn repeats_record_the_median_time_and_the_first_outcome() {
    let set = Arc::new(TestSolvers { sleepy_finished: Arc::new(AtomicBool::new(false)), calls: 0.into() });
    let mut c = config(1);
    c.settings.time_limit = None;
    c.repeat = 3;
    let problems = &two_lcps()[..1];
    let recs = bench::run_with(set.clone(), problems, &["steps".to_string()], &c, &|_, _| {}).unwrap();
    assert_eq!(set.calls.load(Ordering::SeqCst), 3);
    // Sleeps of 0, 40 and 2000 ms: the median is the 40-ms solve (a sleep lasts at least its
    // time; 1.9 s leaves ample room for a loaded machine).
    assert!(recs[0].seconds >= 0.04 && recs[0].seconds < 1.9, "{}", recs[0].seconds);
    assert!(recs[0].solved());
    // With the registry: three solves per run give the same outcomes as one.
    let solvers = vec!["lemke".to_string(), "pgs".to_string()];
    let one = bench::run(&two_lcps(), &solvers, &config(1), &|_, _| {}).unwrap();
    let three =
        bench::run(&two_lcps(), &solvers, &BenchConfig { repeat: 3, ..config(1) }, &|_, _| {}).unwrap();
    assert_same_outcomes(&one, &three);
}

#[test]
fn quick_repeats_are_all_read_although_the_worker_finished_first() {
    // The worker runs quick solves back to back and can finish all of them before the runner
    // reads the second answer; the runner still reads every queued answer, so the median is
    // of the 200 solves (1 µs), not of the first few (once: of 0.5 ms and 1 µs).
    let set = Arc::new(Quick { calls: 0.into() });
    let c = BenchConfig { repeat: 200, ..config(1) };
    let recs =
        bench::run_with(set.clone(), &two_lcps()[..1], &["quick".to_string()], &c, &|_, _| {}).unwrap();
    assert_eq!(set.calls.load(Ordering::SeqCst), 200);
    assert!(recs[0].solved(), "{:?}", recs[0]);
    assert_eq!(recs[0].seconds, 1e-6);
}

fn strip_seconds(csv: &str) -> Vec<String> {
    csv.lines().map(|l| l.rsplit_once(',').unwrap().0.to_string()).collect()
}

#[test]
fn two_merged_shards_equal_the_unsharded_run() {
    let all = small_suite();
    let solvers = bench::default_solvers(&all);
    let c = config(2);
    let whole_dir = temp_dir("whole");
    let whole = bench::run(&bench::shard(all.clone(), 1, 1).unwrap(), &solvers, &c, &|_, _| {}).unwrap();
    let mut whole_report = report(whole, &solvers, &c);
    whole_report.unreadable.push(Unreadable { file: "x/bad.dat".into(), reason: "token 1 (n): 'x'".into() });
    bench::write(&whole_dir, &whole_report).unwrap();

    let mut dirs = Vec::new();
    for k in 1..=2 {
        let part = bench::shard(all.clone(), k, 2).unwrap();
        assert!(!part.is_empty());
        let recs = bench::run(&part, &solvers, &c, &|_, _| {}).unwrap();
        let mut r = report(recs, &solvers, &c);
        r.settings.shard = Some(format!("{k}/2"));
        if k == 2 {
            r.unreadable.push(Unreadable { file: "x/bad.dat".into(), reason: "token 1 (n): 'x'".into() });
        }
        let d = temp_dir(&format!("shard{k}"));
        bench::write(&d, &r).unwrap();
        dirs.push(d);
    }
    // Given in reverse order on purpose: the merge orders by problem name.
    let shards: Vec<(PathBuf, BenchReport)> =
        dirs.iter().rev().map(|d| (d.clone(), bench::read_report(d).unwrap())).collect();
    let merged = bench::merge(shards).unwrap();
    assert_same_outcomes(&merged.records, &whole_report.records);
    assert_eq!(merged.unreadable, whole_report.unreadable);
    assert_eq!(merged.settings.solvers, solvers);
    assert_eq!(merged.settings.merged_from.len(), 2);
    let merged_dir = temp_dir("merged");
    bench::write(&merged_dir, &merged).unwrap();
    let read = |d: &Path, f: &str| std::fs::read_to_string(d.join(f)).unwrap();
    assert_eq!(
        strip_seconds(&read(&merged_dir, "results.csv")),
        strip_seconds(&read(&whole_dir, "results.csv"))
    );
    for f in ["summary.md", "profile.svg", "results.json"] {
        assert!(merged_dir.join(f).is_file(), "{f}");
    }
    assert!(read(&merged_dir, "summary.md").contains("- `x/bad.dat`: token 1 (n): 'x'"));

    // From results.csv alone (no results.json) the records merge the same way.
    for d in &dirs {
        std::fs::remove_file(d.join("results.json")).unwrap();
    }
    let shards: Vec<(PathBuf, BenchReport)> =
        dirs.iter().map(|d| (d.clone(), bench::read_report(d).unwrap())).collect();
    let from_csv = bench::merge(shards).unwrap();
    assert_eq!(from_csv.records.len(), whole_report.records.len());
    for (x, y) in from_csv.records.iter().zip(&whole_report.records) {
        assert_eq!(
            (&x.problem, &x.solver, &x.status, x.iterations),
            (&y.problem, &y.solver, &y.status, y.iterations)
        );
    }
    // The same shard twice is refused.
    let twice = vec![(dirs[0].clone(), bench::read_report(&dirs[0]).unwrap()); 2];
    let e = bench::merge(twice).unwrap_err();
    assert!(e.to_string().contains("two shards"), "{e}");
    for d in dirs.iter().chain([&whole_dir, &merged_dir]) {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn the_four_outputs_are_written_and_well_formed() {
    let problems = bench::shard(small_suite(), 1, 1).unwrap();
    let solvers = bench::default_solvers(&problems);
    let c = config(2);
    let recs = bench::run(&problems, &solvers, &c, &|_, _| {}).unwrap();
    let mut r = report(recs, &solvers, &c);
    r.unreadable.push(Unreadable { file: "dir/broken.dat".into(), reason: "token 2 (M): 'abc'".into() });
    let dir = temp_dir("outputs");
    bench::write(&dir, &r).unwrap();

    // results.csv: the exact header, one row per record.
    let csv = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    assert_eq!(csv.lines().next(), Some("problem,kind,n,solver,status,iterations,error,seconds"));
    assert_eq!(csv.lines().count(), 1 + r.records.len());

    // The profiles, one per kind and metric: well-formed XML with an <svg> root, exactly one
    // curve (polyline in the solver's colour, the same in every kind) and a legend entry per
    // solver that ran on that kind, and none for the others. profile.svg is the first kind's
    // time profile.
    let kinds = bench::kinds(&r.records);
    assert_eq!(kinds, ["lcp", "mlcp", "ncp", "fc2d", "fc3d"]);
    for kind in &kinds {
        for metric in ["time", "iterations"] {
            let svg = std::fs::read_to_string(dir.join(format!("profile-{kind}-{metric}.svg"))).unwrap();
            let doc = roxmltree::Document::parse(&svg).unwrap();
            assert_eq!(doc.root_element().tag_name().name(), "svg");
            for (i, s) in solvers.iter().enumerate() {
                let ran = r.records.iter().any(|x| &x.kind == kind && &x.solver == s);
                let colour = solver_color_hex(i);
                let curves = doc
                    .descendants()
                    .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(colour.as_str()))
                    .count();
                assert_eq!(curves, usize::from(ran), "{kind} {metric}: {s} ({colour})");
                let legend = doc.descendants().any(|n| {
                    n.has_tag_name("text")
                        && n.text().is_some_and(|t| t.trim().starts_with(&format!("{s} (")))
                });
                assert_eq!(legend, ran, "{kind} {metric}: legend for {s}");
            }
        }
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("profile.svg")).unwrap(),
        std::fs::read_to_string(dir.join("profile-lcp-time.svg")).unwrap()
    );
    // report.html: one page, no script, no external resource, every kind's two profiles inline.
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    let outside = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!outside.contains("<script") && !outside.contains("http:") && !outside.contains("https:"));
    assert!(!outside.contains("src=") && !outside.contains("<link") && !outside.contains("url("));
    assert_eq!(html.matches("<svg").count(), 2 * kinds.len(), "no curve recorded in this report");

    // summary.md: per-solver table, fastest solver per problem, unreadable files.
    let md = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(md.contains("| solver | solved | rate | median time (s) | geo-mean time (s) | worst error |"));
    for s in &solvers {
        assert!(md.contains(&format!("\n| {s} | ")), "{s}");
    }
    for kind in ["lcp", "mlcp", "ncp", "fc2d", "fc3d"] {
        assert!(md.contains(&format!("## Problems of kind {kind}")), "{kind}");
    }
    let row = md.lines().find(|l| l.starts_with("| kojima-shindo | 4 | ")).unwrap();
    let fastest = r
        .records
        .iter()
        .filter(|x| x.problem == "kojima-shindo" && x.solved())
        .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
        .unwrap();
    assert!(row.starts_with(&format!("| kojima-shindo | 4 | {} | ", fastest.solver)), "{row}");
    assert!(md.contains("## Unreadable files\n\n- `dir/broken.dat`: token 2 (M): 'abc'"), "{md}");

    // results.json: settings, machine, records; NaN written as null and read back as NaN.
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    for key in ["tol", "time_limit", "repeat", "threads", "shard", "solvers", "suite"] {
        assert!(v["settings"].get(key).is_some(), "settings.{key}");
    }
    for key in ["os", "arch", "cpus", "perp_version", "unix_time"] {
        assert!(v["machine"].get(key).is_some(), "machine.{key}");
    }
    assert_eq!(v["settings"]["time_limit"], 60.0);
    assert!(v["machine"]["unix_time"].as_u64().unwrap() > 1_600_000_000);
    assert_eq!(v["records"].as_array().unwrap().len(), r.records.len());
    let back = bench::read_report(&dir).unwrap();
    assert_same_outcomes(&back.records, &r.records);
    assert_eq!(back.unreadable, r.unreadable);
    std::fs::remove_dir_all(&dir).unwrap();
}
