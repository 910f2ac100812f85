//! Criterion benchmarks of the Newton NCP solvers on LCPs (the families of `benches/lcp.rs`:
//! M = AAᵀ + I with q ∈ U[−1,1], and a contact-like J M⁻¹ Jᵀ), each beside one dense LU of
//! the same size measured in the same run. After the groups, a table gives the ratio of the
//! time *per Newton iteration* to one LU (target ≤ 1.2) and the iteration counts.
//! `cargo bench --bench ncp` (add `-- --quick` for a fast pass).

mod common;

use common::mean_seconds;
use criterion::{BenchmarkId, Criterion};
use perp::core::{Settings, Status};
use std::collections::BTreeMap;
use std::hint::black_box;

const SIZES: &[usize] = &[100, 300, 1000];
const SOLVERS: &[&str] = &["fb-newton", "bdiff-newton"];

fn problem(family: &str, n: usize) -> perp::lcp::Lcp {
    match family {
        "spd" => perp::lcp::samples::spd(n, 42),
        _ => perp::lcp::samples::contact_dense(n, 42),
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut iterations = BTreeMap::new();
    let mut unsolved = Vec::new();
    for family in ["spd", "contact"] {
        let mut g = c.benchmark_group(format!("ncp/{family}"));
        g.sample_size(10);
        for &n in SIZES {
            let p = problem(family, n);
            let dense = p.m().to_dense();
            g.bench_with_input(BenchmarkId::new("dense-lu", n), &dense, |b, m| {
                b.iter(|| black_box(m.partial_piv_lu()))
            });
            let s = Settings { tol: 1e-10, ..Settings::default() };
            for &name in SOLVERS {
                let check = perp::lcp::solver(name).unwrap().solve(&p, None, &s).unwrap();
                if check.report.status != Status::Solved {
                    // Reported, not timed: a failed solve has no meaningful time per iteration.
                    eprintln!(
                        "{name} on {family}-{n}: NOT SOLVED ({:?}, error {:.1e})",
                        check.report.status, check.report.error
                    );
                    unsolved.push(format!(
                        "{name} on {family}-{n}: {} after {} iterations",
                        check.report.status, check.report.iterations
                    ));
                    continue;
                }
                iterations.insert((family, n, name), (check.report.iterations, check.report.factorizations));
                g.bench_with_input(BenchmarkId::new(name, n), &p, |b, p| {
                    // A fresh solver per solve: bdiff-newton's hot start would otherwise reuse
                    // the previous answer and time a warm restart instead of a solve.
                    b.iter(|| black_box(perp::lcp::solver(name).unwrap().solve(p, None, &s).unwrap()))
                });
            }
        }
        g.finish();
    }
    c.final_summary();
    println!("\nper-iteration ratio = (solve time / Newton iterations) / one dense LU (same run)");
    println!(
        "{:14} {:>6} {:>14} {:>6} {:>7} {:>11} {:>11} {:>9}",
        "group", "n", "solver", "iters", "factors", "solve", "LU", "ratio/it"
    );
    for ((family, n, name), (it, fac)) in &iterations {
        let group = format!("ncp/{family}");
        if let (Some(t), Some(lu)) = (mean_seconds(&group, name, *n), mean_seconds(&group, "dense-lu", *n)) {
            let per_it = t / (*it).max(1) as f64;
            println!(
                "{group:14} {n:>6} {name:>14} {it:>6} {fac:>7} {t:>9.3e} s {lu:>9.3e} s {:>9.2}",
                per_it / lu
            );
        }
    }
    for u in unsolved {
        println!("not solved (not timed): {u}");
    }
}
