//! Criterion benchmarks of the LCP solvers, each beside a reference kernel measured in the
//! same run (ARCHITECTURE.md, "Performance"):
//!
//! * `lemke/*`, `projected-newton/*`: a whole solve beside one dense LU of the same M
//!   (M = AAᵀ + I with q ∈ U[−1,1], and a contact-like J M⁻¹ Jᵀ);
//! * `pgs-sweep/*`: PGS sweeps on a sparse contact matrix beside CSR mat-vecs, both
//!   [`SWEEPS`] times, so that the ratio is the amortized cost of one sweep (set-up, the
//!   exact error checks every 10 sweeps and the final check included) over one mat-vec;
//! * `lemke-ties/identity`: Lemke on M = I with every qᵢ = −1 (every ratio test ties all the
//!   basic wᵢ) beside the same M with q perturbed by at most 1e-3 (no tie) and one dense LU
//!   of M, n = 300 and 1000 (issue 13: a tied problem should cost at most 2× a perturbed one).
//!
//! After the groups run, the ratios (solver time / reference time, from criterion's own
//! estimates) are printed as a table; then [`ties_interleaved`] times Lemke (tied, perturbed,
//! and the `spd` problem) and the LU of the same M in turn, [`ROUNDS`] rounds, and prints the
//! ratios of the medians; and [`fb_newton_interleaved`] times fb-newton on the `spd` and
//! `contact` LCPs with and without its active-set steps (issue 13, item 5), in turn, with
//! their factorization counts. `cargo bench --bench lcp` (add `-- --quick` for a fast pass;
//! `cargo bench --bench lcp -- lemke-ties` or `-- fb-newton-lcp` for one of the two alone).

mod common;

use common::mean_seconds;
use criterion::{BenchmarkId, Criterion};
use perp::core::{Matrix, Settings, Status};
use perp::lcp::Lcp;
use std::hint::black_box;
use std::time::Instant;

const SIZES: &[usize] = &[30, 100, 300, 1000];

/// Sweeps (and mat-vecs) per measured call in the `pgs-sweep` group.
const SWEEPS: usize = 50;

fn problems(family: &str, n: usize) -> Lcp {
    match family {
        "spd" => perp::lcp::samples::spd(n, 42),
        _ => perp::lcp::samples::contact_dense(n, 42),
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
        let p = perp::lcp::samples::contact(n, 42);
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

/// Sizes of the `lemke-ties` group.
const TIE_SIZES: &[usize] = &[300, 1000];

/// Rounds of [`ties_interleaved`].
const ROUNDS: usize = 7;

/// M = I (n × n, dense) with qᵢ = −1 (`perturbed = false`) or qᵢ = −1 − 1e-3·fᵢ with distinct
/// fᵢ ∈ [0, 1) (`true`). The solution is z = −q either way.
fn identity_lcp(n: usize, perturbed: bool) -> Lcp {
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        m[i * n + i] = 1.0;
    }
    let q = (0..n)
        .map(|i| if perturbed { -1.0 - 1e-3 * ((i * 7919) % 1009) as f64 / 1009.0 } else { -1.0 })
        .collect();
    Lcp::new(Matrix::from_row_major(n, n, &m).unwrap(), q).unwrap()
}

/// Lemke's answer checked: solved, and z = −q (M = I).
fn check_identity(p: &Lcp, sv: &mut Box<dyn perp::lcp::LcpSolver>, s: &Settings) {
    let sol = sv.solve(p, None, s).unwrap();
    assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report);
    assert!(sol.z.iter().zip(p.q()).all(|(z, q)| (z + q).abs() < 1e-12));
    eprintln!("lemke-ties/identity/{}: {} pivots", p.n(), sol.report.pivots);
}

fn lemke_ties(c: &mut Criterion) {
    let mut g = c.benchmark_group("lemke-ties/identity");
    g.sample_size(10);
    let s = Settings { tol: 1e-10, ..Settings::default() };
    for &n in TIE_SIZES {
        let dense = identity_lcp(n, false).m().to_dense();
        g.bench_with_input(BenchmarkId::new("dense-lu", n), &dense, |b, m| {
            b.iter(|| black_box(m.partial_piv_lu()))
        });
        for (name, perturbed) in [("tied", false), ("perturbed", true)] {
            let p = identity_lcp(n, perturbed);
            let mut sv = perp::lcp::solver("lemke").unwrap();
            check_identity(&p, &mut sv, &s);
            g.bench_with_input(BenchmarkId::new(name, n), &p, |b, p| {
                b.iter(|| black_box(sv.solve(p, None, &s).unwrap()))
            });
        }
    }
    g.finish();
}

/// Whether the command line's filter (if any) selects `name`.
fn selected(name: &str) -> bool {
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    filters.is_empty() || filters.iter().any(|f| f.contains(name) || name.contains(f.as_str()))
}

/// fb-newton on LCPs (through `NcpAsLcp`, as `perp::lcp::solver("fb-newton")` builds it) with
/// its active-set steps (the default) and without, timed in turn for [`ROUNDS`] rounds after
/// a warm-up round; prints the medians, their ratio, each variant's iterations and
/// factorizations, and the active-set steps tried and taken (each tried one with a non-empty
/// free set is one of the factorizations, of a reduced block). Each is checked solved first.
fn fb_newton_interleaved() {
    use perp::lcp::LcpSolver;
    use perp::ncp::{fb_newton::FbNewton, lcp_adapter::NcpAsLcp};
    let s = Settings { tol: 1e-10, ..Settings::default() };
    println!("\ninterleaved, {ROUNDS} rounds, medians (fb-newton-lcp: active-set steps on / off)");
    println!(
        "{:10} {:>6} {:>11} {:>11} {:>8} {:>14} {:>14} {:>12}",
        "family", "n", "on", "off", "on/off", "on: it/fact", "off: it/fact", "as tried/taken"
    );
    for family in ["spd", "contact"] {
        for &n in TIE_SIZES {
            let p = problems(family, n);
            let mut on = NcpAsLcp { inner: FbNewton::new() };
            let mut off = NcpAsLcp { inner: FbNewton::new() };
            off.inner.active_set = false;
            let mut counts = [(0, 0); 2];
            for (c, sv) in counts.iter_mut().zip([&mut on, &mut off]) {
                let r = sv.solve(&p, None, &s).unwrap().report;
                assert_eq!(r.status, Status::Solved, "fb-newton on {family}-{n}: {r:?}");
                *c = (r.iterations, r.factorizations);
            }
            let (tried, taken) = on.inner.active_set_steps();
            let (mut t_on, mut t_off) = (Vec::new(), Vec::new());
            for round in 0..=ROUNDS {
                let start = Instant::now();
                black_box(on.solve(&p, None, &s).unwrap());
                let a = start.elapsed().as_secs_f64();
                let start = Instant::now();
                black_box(off.solve(&p, None, &s).unwrap());
                let b = start.elapsed().as_secs_f64();
                if round > 0 {
                    t_on.push(a);
                    t_off.push(b);
                }
            }
            let (a, b) = (median(&mut t_on), median(&mut t_off));
            println!(
                "{family:10} {n:>6} {a:>9.3e} s {b:>9.3e} s {:>8.2} {:>14} {:>14} {:>12}",
                a / b,
                format!("{}/{}", counts[0].0, counts[0].1),
                format!("{}/{}", counts[1].0, counts[1].1),
                format!("{tried}/{taken}")
            );
        }
    }
}

/// Median of a sample (sorted in place).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Lemke on the tied identity, the perturbed identity and the `spd` problem, each beside a
/// dense LU of its M, timed in turn for [`ROUNDS`] rounds after one warm-up round; prints the
/// medians and their ratios. Each problem is solved twice: by the default Lemke (with its
/// crash, which solves all three without a pivot) and from the all-w start (`crash: 0`), whose
/// tie-break the tied identity exercises. Interleaving keeps the ratios meaningful on a
/// machine whose speed drifts.
fn ties_interleaved() {
    use perp::lcp::{lemke::Lemke, LcpSolver};
    let s = Settings { tol: 1e-10, ..Settings::default() };
    println!("\ninterleaved, {ROUNDS} rounds, medians (lemke-ties; spd for the LU-equivalents goal; \"all-w\": crash 0)");
    println!(
        "{:>6} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>9} {:>10} {:>9} {:>9}",
        "n",
        "lu(I)",
        "tied",
        "tied all-w",
        "pt all-w",
        "lu(spd)",
        "spd",
        "spd all-w",
        "tied/lu",
        "all-w t/pt",
        "spd/lu",
        "all-w/lu"
    );
    for &n in TIE_SIZES {
        let tied = identity_lcp(n, false);
        let pert = identity_lcp(n, true);
        let spd = perp::lcp::samples::spd(n, 42);
        let (di, ds) = (tied.m().to_dense(), spd.m().to_dense());
        let mut sv = Lemke::new();
        let mut all_w = Lemke { crash: 0, ..Lemke::new() };
        let mut t = [(); 7].map(|_| Vec::with_capacity(ROUNDS));
        for round in 0..=ROUNDS {
            let time = |f: &mut dyn FnMut()| {
                let start = Instant::now();
                f();
                start.elapsed().as_secs_f64()
            };
            let x = [
                time(&mut || drop(black_box(di.partial_piv_lu()))),
                time(&mut || drop(black_box(sv.solve(&tied, None, &s).unwrap()))),
                time(&mut || drop(black_box(all_w.solve(&tied, None, &s).unwrap()))),
                time(&mut || drop(black_box(all_w.solve(&pert, None, &s).unwrap()))),
                time(&mut || drop(black_box(ds.partial_piv_lu()))),
                time(&mut || drop(black_box(sv.solve(&spd, None, &s).unwrap()))),
                time(&mut || drop(black_box(all_w.solve(&spd, None, &s).unwrap()))),
            ];
            if round > 0 {
                t.iter_mut().zip(x).for_each(|(v, x)| v.push(x));
            }
        }
        let [lu_i, ti, ti_w, pt_w, lu_s, sp, sp_w] = t.map(|mut v| median(&mut v));
        println!(
            "{n:>6} {lu_i:>9.3e} s {ti:>9.3e} s {ti_w:>9.3e} s {pt_w:>9.3e} s {lu_s:>9.3e} s {sp:>9.3e} s {sp_w:>9.3e} s {:>9.2} {:>10.2} {:>9.2} {:>9.2}",
            ti / lu_i,
            ti_w / pt_w,
            sp / lu_s,
            sp_w / lu_s
        );
    }
}

fn print_ratios() {
    println!("\nratio = solver time / reference time (same run)");
    println!("{:28} {:>6} {:>12} {:>12} {:>8}", "group", "n", "solver", "reference", "ratio");
    let rows: Vec<(String, &str, &str)> = ["lemke", "projected-newton"]
        .iter()
        .flat_map(|s| ["spd", "contact"].map(|f| (format!("{s}/{f}"), *s, "dense-lu")))
        .chain(std::iter::once(("pgs-sweep/contact".to_string(), "pgs", "csr-matvec")))
        .chain(["tied", "perturbed"].map(|s| ("lemke-ties/identity".to_string(), s, "dense-lu")))
        .collect();
    for (group, solver, reference) in rows {
        // The ties group has two solver rows: name them.
        let label = if group.starts_with("lemke-ties") { format!("{group}/{solver}") } else { group.clone() };
        for &n in SIZES {
            if let (Some(a), Some(b)) = (mean_seconds(&group, solver, n), mean_seconds(&group, reference, n))
            {
                println!("{label:28} {n:>6} {:>10.3e} s {:>10.3e} s {:>8.2}", a, b, a / b);
            }
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    dense_solver_group(&mut c, "lemke");
    dense_solver_group(&mut c, "projected-newton");
    pgs_sweep(&mut c);
    lemke_ties(&mut c);
    c.final_summary();
    print_ratios();
    if selected("lemke-ties") {
        ties_interleaved();
    }
    if selected("fb-newton-lcp") {
        fb_newton_interleaved();
    }
}
