use super::record::split_csv_line;
use super::*;
use perp_core::Matrix;
use std::path::Path;
use std::time::Duration;

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
        unreadable: vec![Unreadable { file: "bad.dat".into(), reason: "token 3 (n): not a number".into() }],
        records,
        curves: Vec::new(),
    }
}

#[test]
fn records_csv_and_summary() {
    let solvers = vec!["lemke".to_string(), "pgs".to_string()];
    let a = run(&problems(), &solvers, &BenchConfig::default(), &|_, _| {}).unwrap();
    assert_eq!(a.len(), 4);
    // Lemke solves both; PGS cannot take the zero diagonal (a requirement it states): not
    // applicable, neither solved nor failed (issue 34, item 7).
    assert!(a[0].solved() && a[2].solved());
    assert_eq!(a[3].status, "not_applicable");
    assert!(a[3].not_applicable());
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
    assert!(md.contains("| pgs | 1/1 | 100% |"), "{md}");
    assert!(md.contains("| easy | 2 | "), "{md}");
    assert!(md.contains("- `bad.dat`: token 3 (n): not a number"), "{md}");
    assert!(md.contains("n/a"), "{md}");
    let (before, failed) = md.split_once("## Failed runs").unwrap_or((&md, ""));
    assert!(!failed.contains("- pgs on skew, zero diagonal: "), "not a failed run: {md}");
    assert!(
        before.contains("## Not applicable") && before.contains("- pgs on skew, zero diagonal: "),
        "{md}"
    );
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
    let e = run(&problems(), &["nope".to_string()], &BenchConfig::default(), &|_, _| {}).unwrap_err();
    assert!(e.to_string().contains("unknown solver 'nope'"), "{e}");
    let bad = BenchConfig { repeat: 0, ..BenchConfig::default() };
    assert!(run(&problems(), &[], &bad, &|_, _| {}).is_err());
}

#[test]
fn shards_partition_the_sorted_list() {
    let mk = |names: &[&str]| -> Vec<BenchProblem> {
        names.iter().map(|n| BenchProblem::new(n, Instance::Lcp(perp_lcp::samples::spd(2, 1)))).collect()
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

#[test]
fn summary_has_one_section_per_kind_in_kind_order() {
    let rec = |p: &str, kind: &str, s: &str| BenchRecord {
        problem: p.into(),
        kind: kind.into(),
        n: 2,
        solver: s.into(),
        status: "solved".into(),
        iterations: 3,
        error: 1e-10,
        seconds: 1e-3,
        reference_seconds: f64::NAN,
        message: None,
    };
    // Records in the order fc3d, lcp: the summary still starts with lcp.
    let records = vec![rec("f", "fc3d", "nsgs"), rec("l", "lcp", "lemke"), rec("l2", "lcp", "lemke")];
    let solvers = vec!["nsgs".to_string(), "lemke".to_string()];
    let md = summary_md(&report(records, &solvers));
    let (lcp, fc3d) = (md.find("## lcp (2 problem(s))").unwrap(), md.find("## fc3d (1 problem(s))").unwrap());
    assert!(lcp < fc3d, "{md}");
    // Each kind's solver table has only that kind's solvers.
    let lcp_part = &md[lcp..fc3d];
    assert!(lcp_part.contains("| lemke | 2/2 | 100% |") && !lcp_part.contains("| nsgs |"), "{lcp_part}");
    assert!(md[fc3d..].contains("| nsgs | 1/1 | 100% |") && !md[fc3d..].contains("| lemke |"), "{md}");
}

#[test]
fn curves_pick_failed_then_slowest_and_thin_long_histories() {
    let rec = |p: &str, kind: &str, status: &str, it: usize, t: f64| BenchRecord {
        problem: p.into(),
        kind: kind.into(),
        n: 2,
        solver: "s".into(),
        status: status.into(),
        iterations: it,
        error: 1.0,
        seconds: t,
        reference_seconds: f64::NAN,
        message: None,
    };
    let records = vec![
        rec("a", "lcp", "solved", 3, 0.5),
        rec("b", "lcp", "solved", 3, 2.0),
        rec("c", "lcp", "max_iterations", 100, 1.0),
        rec("d", "lcp", "error", 0, 0.0),
        rec("e", "fc3d", "stalled", 10, 3.0),
        rec("f", "fc3d", "solved", 2, 0.1),
        rec("g", "fc3d", "time_limit", 0, 9.0),
        // Solved at its start (0 iterations): no curve, although it is the slowest lcp run.
        rec("h", "lcp", "solved", 0, 5.0),
        // One iteration: a one-point "curve", never picked (issue 34, item 7).
        rec("i", "fc3d", "solved", 1, 7.0),
        rec("j", "fc3d", "max_iterations", 1, 8.0),
        // Not applicable: neither failed nor slowest.
        rec("k", "lcp", "not_applicable", 0, 0.0),
    ];
    // Failed runs that iterated, longest first; then the slowest solved run of each kind that
    // iterated.
    assert_eq!(pick(&records, 10), vec![(4, "failed"), (2, "failed"), (1, "slowest"), (5, "slowest")]);
    // With little room the slowest of each kind stay and the failed runs give way.
    assert_eq!(pick(&records, 3), vec![(4, "failed"), (1, "slowest"), (5, "slowest")]);
    assert_eq!(pick(&records, 0), vec![]);
    let h: Vec<f64> = (0..1000).map(|i| i as f64).collect();
    let k: Vec<usize> = (1..=1000).collect();
    let t = Curve::thin(&h, &k);
    assert_eq!(t.len(), super::curves::MAX_POINTS);
    assert_eq!((t[0], *t.last().unwrap()), ((1, 0.0), (1000, 999.0)));
    // Measured errors only: the points sit at the iterations they were measured at.
    assert_eq!(Curve::thin(&[3.0, 2.0], &[1, 10]), vec![(1, 3.0), (10, 2.0)]);
}

#[test]
fn params_go_to_the_one_solver_that_takes_them() {
    let run = vec!["pgs".to_string(), "psor".to_string(), "lemke".to_string()];
    // omega is a parameter of pgs and psor: ambiguous, and the error shows both spellings.
    let e = SolverParams::parse(&["omega=1.2".into()], &run).unwrap_err().to_string();
    assert!(e.contains("pgs.omega=1.2") && e.contains("psor.omega=1.2"), "{e}");
    let p = SolverParams::parse(&["psor.omega=1.2".into()], &run).unwrap();
    assert_eq!(p.pairs(), ["psor.omega=1.2"]);
    let fam = perp_catalogue::Family::Lcp;
    assert_eq!(p.for_solver(fam, "psor"), perp_catalogue::Params::new().set("omega", "1.2"));
    assert!(p.for_solver(fam, "pgs").is_empty());
    // Out of range, unknown, not in the run, malformed.
    let e = SolverParams::parse(&["psor.omega=2.5".into()], &run).unwrap_err().to_string();
    assert!(e.contains("omega") && e.contains("2.5") && e.contains("(0, 2)"), "{e}");
    let e = SolverParams::parse(&["lemke.omega=1".into()], &run).unwrap_err().to_string();
    assert!(e.contains("lemke has no parameter 'omega'"), "{e}");
    let e = SolverParams::parse(&["nsgs.omega=1".into()], &run).unwrap_err().to_string();
    assert!(e.contains("solver 'nsgs' is not in this run"), "{e}");
    assert!(SolverParams::parse(&["omega".into()], &run).unwrap_err().to_string().contains("NAME=VALUE"));
    // The value reaches the solver: psor with omega 1.2 differs from psor's default run.
    let problems = problems();
    let solvers = vec!["psor".to_string()];
    let base = super::run(&problems[..1], &solvers, &BenchConfig::default(), &|_, _| {}).unwrap();
    let set = std::sync::Arc::new(super::Tuned {
        params: SolverParams::parse(&["omega=0.3".into()], &solvers).unwrap(),
    });
    let tuned = super::run_with(set, &problems[..1], &solvers, &BenchConfig::default(), &|_, _| {}).unwrap();
    assert!(base[0].solved() && tuned[0].solved(), "{base:?} {tuned:?}");
    assert!(tuned[0].iterations > base[0].iterations, "{base:?} {tuned:?}");
}
