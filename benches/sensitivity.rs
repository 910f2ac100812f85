//! Criterion benchmarks of the sensitivities, each beside the solve it differentiates, in the
//! same run (issue 16: "a VJP costs at most one factorization of the reduced system"):
//!
//! * `sensitivity-lcp/*`: Lemke on `spd(n)` (M = AAᵀ + I) beside `perp::lcp::sensitivity`
//!   (the split and one LU of M_FF) and one `vjp_q` on the made sensitivity;
//! * `sensitivity-fc/*`: ac-newton on a generated 3-D frictional problem (`nc` contacts)
//!   beside `perp::cones::sensitivity` (one LU of the reduced natural-map system) and one
//!   `vjp_q`.
//!
//! The ratios (to the solve, criterion's mean estimates) are printed after the groups.
//! `cargo bench --bench sensitivity` (add `-- --quick` for a fast pass).

mod common;

use common::mean_seconds;
use criterion::{BenchmarkId, Criterion};
use perp::core::{Settings, Status};
use std::hint::black_box;

const LCP_SIZES: &[usize] = &[30, 100, 300];
const FC_CONTACTS: &[usize] = &[10, 30, 100];

fn lcp(c: &mut Criterion) {
    let mut g = c.benchmark_group("sensitivity-lcp");
    for &n in LCP_SIZES {
        let p = perp::lcp::samples::spd(n, 42);
        let s = Settings { tol: 1e-12, ..Settings::default() };
        let mut sv = perp::lcp::solver("lemke").unwrap();
        let sol = sv.solve(&p, None, &s).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        g.bench_with_input(BenchmarkId::new("solve", n), &p, |b, p| {
            b.iter(|| black_box(sv.solve(p, None, &s).unwrap()))
        });
        g.bench_with_input(BenchmarkId::new("sensitivity", n), &p, |b, p| {
            b.iter(|| black_box(perp::lcp::sensitivity(p, &sol).unwrap()))
        });
        let sens = perp::lcp::sensitivity(&p, &sol).unwrap();
        eprintln!("sensitivity-lcp/{n}: {} free of {n}", sens.free().len());
        let g_vec = vec![1.0; n];
        g.bench_with_input(BenchmarkId::new("vjp", n), &g_vec, |b, v| b.iter(|| black_box(sens.vjp_q(v))));
    }
    g.finish();
}

fn fc(c: &mut Criterion) {
    let mut g = c.benchmark_group("sensitivity-fc");
    for &nc in FC_CONTACTS {
        let p = perp::cones::samples::friction_contact(3, nc, 42);
        let s = Settings { tol: 1e-12, ..Settings::default() };
        let mut sv = perp::cones::solver("ac-newton").unwrap();
        let sol = sv.solve(&p, None, &s).unwrap();
        assert_eq!(sol.report.status, Status::Solved, "ac-newton on {nc} contacts: {:?}", sol.report);
        g.bench_with_input(BenchmarkId::new("solve", nc), &p, |b, p| {
            b.iter(|| black_box(sv.solve(p, None, &s).unwrap()))
        });
        g.bench_with_input(BenchmarkId::new("sensitivity", nc), &p, |b, p| {
            b.iter(|| black_box(perp::cones::sensitivity(p, &sol).unwrap()))
        });
        let sens = perp::cones::sensitivity(&p, &sol).unwrap();
        eprintln!(
            "sensitivity-fc/{nc}: states {:?}",
            sens.states().iter().fold([0; 4], |mut a, s| {
                a[*s as usize] += 1;
                a
            })
        );
        let g_vec = vec![1.0; p.size()];
        g.bench_with_input(BenchmarkId::new("vjp", nc), &g_vec, |b, v| b.iter(|| black_box(sens.vjp_q(v))));
    }
    g.finish();
}

fn print_ratios() {
    println!("\nratio = time / solve time (same run)");
    println!(
        "{:18} {:>5} {:>12} {:>12} {:>12} {:>10} {:>10}",
        "group", "n", "solve", "sensitivity", "vjp", "sens/solve", "vjp/solve"
    );
    for (group, sizes) in [("sensitivity-lcp", LCP_SIZES), ("sensitivity-fc", FC_CONTACTS)] {
        for &n in sizes {
            let t = |f: &str| mean_seconds(group, f, n);
            if let (Some(a), Some(b), Some(v)) = (t("solve"), t("sensitivity"), t("vjp")) {
                println!(
                    "{group:18} {n:>5} {a:>10.3e} s {b:>10.3e} s {v:>10.3e} s {:>10.3} {:>10.4}",
                    b / a,
                    v / a
                );
            }
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    lcp(&mut c);
    fc(&mut c);
    c.final_summary();
    print_ratios();
}
