//! Per-call cost of the frictional solvers on the small public fc3d problems (issue 13 item
//! 1): each prepared solve (`solve_into`, cold start, solver and buffers kept between calls,
//! as a simulator calls it) beside a bare loop of the same number of Gauss–Seidel sweeps of
//! local projections — for every contact `u_i = W_i r + q_i`, `r_i ← P_K(r_i − u_i / W_ii,N)`
//! on the Coulomb cone — the arithmetic a sweep cannot avoid. The difference, divided by
//! nothing, is the per-call overhead; the ratio says how close to its arithmetic a solve is.
//!
//! `PERP_SUITES=$PWD/../shared/suites cargo bench --bench percall` (add `-- --quick`). Without
//! PERP_SUITES the bench says so and exits.

mod common;

use common::mean_seconds;
use criterion::{BenchmarkId, Criterion};
use perp::cones::{Cone, Coulomb, FrictionContactProblem, FrictionSolution};
use perp::core::{Matrix, Settings, Status};
use std::hint::black_box;

/// The public fc3d files of at most 30 unknowns.
const FILES: &[&str] = &[
    "FrictionContact3D_1c.dat",
    "FrictionContact3D_RR_1c.dat",
    "Rover11035.dat",
    "Rover11211.dat",
    "Rover4396.dat",
    "FC3D_Example1_SBM.dat",
    "Confeti-ex13-4contact-Fc3D-SBM.dat",
];

const SOLVERS: &[&str] = &["nsgs", "ac-newton", "prox"];

/// `sweeps` Gauss–Seidel sweeps of local projections on a dense W.
fn bare_sweeps(p: &FrictionContactProblem, w: &perp::faer::Mat<f64>, sweeps: usize, r: &mut [f64]) {
    let cone = Coulomb::new(3).unwrap();
    let n = p.size();
    let (mut x, mut out) = ([0.0; 3], [0.0; 3]);
    for _ in 0..sweeps {
        for c in 0..n / 3 {
            for (k, xk) in x.iter_mut().enumerate() {
                let i = 3 * c + k;
                let mut u = p.q[i];
                for j in 0..n {
                    u += w[(i, j)] * r[j];
                }
                *xk = r[i] - u / w[(3 * c, 3 * c)];
            }
            cone.project(p.mu[c], &x, &mut out);
            r[3 * c..3 * c + 3].copy_from_slice(&out);
        }
    }
}

fn main() {
    let Some(dir) = std::env::var_os("PERP_SUITES") else {
        eprintln!("benches/percall.rs reads the Siconos fc3d files: set PERP_SUITES (e.g. PERP_SUITES=$PWD/../shared/suites)");
        return;
    };
    let dir = std::path::PathBuf::from(dir).join("siconos").join("fc3d");
    let mut c = Criterion::default().configure_from_args();
    let s = Settings { tol: 1e-6, ..Settings::default() };
    let mut rows = Vec::new();
    for (k, file) in FILES.iter().enumerate() {
        let p = match perp::formats::read_friction_contact(&dir.join(file)) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        let n = p.size();
        let w = match &p.w {
            Matrix::Dense(m) => m.clone(),
            m => m.to_dense(),
        };
        let mut g = c.benchmark_group(format!("percall/{k}"));
        for name in SOLVERS {
            let mut sv = perp::cones::solver(name).unwrap();
            let mut sol = FrictionSolution::zeros(n);
            sv.solve_into(&p, false, sol.view_mut(), &s).unwrap();
            if sol.report.status != Status::Solved {
                eprintln!("{file}: {name} did not solve ({})", sol.report.status);
                continue;
            }
            let iters = sol.report.iterations;
            g.bench_function(BenchmarkId::new(*name, n), |b| {
                b.iter(|| {
                    sv.solve_into(black_box(&p), false, sol.view_mut(), &s).unwrap();
                    black_box(&sol.r);
                })
            });
            if *name == "nsgs" {
                let mut rb = vec![0.0; n];
                g.bench_function(BenchmarkId::new("bare-sweeps", n), |b| {
                    b.iter(|| {
                        rb.iter_mut().for_each(|v| *v = 0.0);
                        bare_sweeps(black_box(&p), &w, iters, &mut rb);
                        black_box(&rb);
                    })
                });
            }
            rows.push((k, *file, *name, n, iters));
        }
        g.finish();
    }
    println!("\n| file | n | solver | iterations | solve (µs) | bare sweeps (µs) | solve − bare (µs) | solve / bare |");
    println!("|---|---|---|---|---|---|---|---|");
    for (k, file, name, n, iters) in rows {
        let group = format!("percall/{k}");
        let (t, b) = (mean_seconds(&group, name, n), mean_seconds(&group, "bare-sweeps", n));
        if let (Some(t), Some(b)) = (t, b) {
            println!(
                "| {file} | {n} | {name} | {iters} | {:.2} | {:.2} | {:.2} | {:.2} |",
                t * 1e6,
                b * 1e6,
                (t - b) * 1e6,
                t / b
            );
        }
    }
}
