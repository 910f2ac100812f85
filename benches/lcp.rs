//! Criterion benchmarks of the LCP solvers, each beside a reference kernel measured in the
//! same run (ARCHITECTURE.md, "Performance"):
//!
//! * `lemke/*`, `projected-newton/*`: a whole solve beside one dense LU of the same M
//!   (M = AAᵀ + I with q ∈ U[−1,1], and a contact-like J M⁻¹ Jᵀ);
//! * `pgs-sweep/*`: PGS sweeps on a sparse contact matrix beside CSR mat-vecs, both
//!   [`SWEEPS`] times, so that the ratio is the amortized cost of one sweep (set-up, the
//!   exact error checks every 10 sweeps and the final check included) over one mat-vec.
//!
//! After the groups run, the ratios (solver time / reference time, from criterion's own
//! estimates) are printed as a table. `cargo bench --bench lcp` (add `-- --quick` for a fast pass).

mod common;

use common::mean_seconds;
use criterion::{BenchmarkId, Criterion};
use perp::core::{Settings, Status};
use perp::lcp::Lcp;
use std::hint::black_box;

const SIZES: &[usize] = &[30, 100, 300, 1000];

/// Sweeps (and mat-vecs) per measured call in the `pgs-sweep` group.
const SWEEPS: usize = 50;

fn problems(family: &str, n: usize) -> Lcp {
    match family {
        "spd" => perp::suite::generate::spd(n, 42),
        _ => perp::suite::generate::contact_dense(n, 42),
    }
}

fn dense_solver_group(c: &mut Criterion, solver: &str) {
    for family in ["spd", "contact"] {
        let mut g = c.benchmark_group(format!("{solver}/{family}"));
        for &n in SIZES {
            if n >= 300 {
                g.sample_size(10);
            }
            let p = problems(family, n);
            let dense = p.m().to_dense();
            g.bench_with_input(BenchmarkId::new("dense-lu", n), &dense, |b, m| {
                b.iter(|| black_box(m.partial_piv_lu()))
            });
            let s = Settings { tol: 1e-10, ..Settings::default() };
            let mut sv = perp::lcp::solver(solver).unwrap();
            let check = sv.solve(&p, None, &s).unwrap();
            assert_eq!(check.report.status, Status::Solved, "{solver} on {family}-{n}: {:?}", check.report);
            eprintln!("{solver}/{family}/{n}: {} iterations/pivots", check.report.iterations);
            g.bench_with_input(BenchmarkId::new(solver, n), &p, |b, p| {
                b.iter(|| black_box(sv.solve(p, None, &s).unwrap()))
            });
        }
        g.finish();
    }
}

fn pgs_sweep(c: &mut Criterion) {
    let mut g = c.benchmark_group("pgs-sweep/contact");
    for &n in SIZES {
        let p = perp::suite::generate::contact(n, 42);
        let x = vec![1.0; n];
        let mut y = vec![0.0; n];
        g.bench_function(BenchmarkId::new("csr-matvec", n), |b| {
            b.iter(|| {
                for _ in 0..SWEEPS {
                    p.m().mul_vec(black_box(&x), &mut y);
                    black_box(&y);
                }
            })
        });
        // SWEEPS sweeps: tol 0 (never "converged"), the solver's full per-call cost.
        let s = Settings { tol: 0.0, max_iter: SWEEPS, ..Settings::default() };
        let mut sv = perp::lcp::solver("pgs").unwrap();
        g.bench_with_input(BenchmarkId::new("pgs", n), &p, |b, p| {
            b.iter(|| black_box(sv.solve(p, None, &s).unwrap()))
        });
    }
    g.finish();
}

fn print_ratios() {
    println!("\nratio = solver time / reference time (same run)");
    println!("{:28} {:>6} {:>12} {:>12} {:>8}", "group", "n", "solver", "reference", "ratio");
    let rows: Vec<(String, &str, &str)> = ["lemke", "projected-newton"]
        .iter()
        .flat_map(|s| ["spd", "contact"].map(|f| (format!("{s}/{f}"), *s, "dense-lu")))
        .chain(std::iter::once(("pgs-sweep/contact".to_string(), "pgs", "csr-matvec")))
        .collect();
    for (group, solver, reference) in rows {
        for &n in SIZES {
            if let (Some(a), Some(b)) = (mean_seconds(&group, solver, n), mean_seconds(&group, reference, n))
            {
                println!("{group:28} {n:>6} {:>10.3e} s {:>10.3e} s {:>8.2}", a, b, a / b);
            }
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    dense_solver_group(&mut c, "lemke");
    dense_solver_group(&mut c, "projected-newton");
    pgs_sweep(&mut c);
    c.final_summary();
    print_ratios();
}
