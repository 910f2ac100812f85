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
    }
}

#[test]
fn records_csv_and_summary() {
    let solvers = vec!["lemke".to_string(), "pgs".to_string()];
    let a = run(&problems(), &solvers, &BenchConfig::default(), &|_, _| {}).unwrap();
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
    let e = run(&problems(), &["nope".to_string()], &BenchConfig::default(), &|_, _| {}).unwrap_err();
    assert!(e.to_string().contains("unknown solver 'nope'"), "{e}");
    let bad = BenchConfig { repeat: 0, ..BenchConfig::default() };
    assert!(run(&problems(), &[], &bad, &|_, _| {}).is_err());
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
