//! Criterion benchmarks of the frictional contact solvers on the Siconos files that the
//! literature times: Capsules-i100-1090, Capsules-i101-404 and BoxesStack1-i100000-32, at
//! tol 1e-6 (Siconos' default for its Newton methods). Each group also times one sparse
//! matrix-vector product with W (the cost of one NSGS sweep's coupling) and one dense LU of W,
//! measured in the same run, and the end prints every solver's time beside the Siconos figures
//! for the same files on these machines (PROX 12 ms, NSN-FB 28 ms, NSGS 167 ms on Capsules-1090;
//! NSN-FB 26 ms on BoxesStack1), with the ratio to the best Siconos time.
//!
//! `PERP_SUITES=$PWD/../shared/suites cargo bench --bench fc` (add `-- --quick` for a fast
//! pass). Without PERP_SUITES the bench says so and exits.

mod common;

use common::mean_seconds;
use criterion::{BenchmarkId, Criterion};
use perp::cones::SOLVER_NAMES;
use perp::core::{Settings, Status};
use std::hint::black_box;
use std::time::Duration;

/// (file, the best Siconos solver and its time in seconds at tol 1e-6, from the issue).
const FILES: &[(&str, Option<(&str, f64)>)] = &[
    ("Capsules-i100-1090.dat", Some(("PROX", 0.012))),
    ("Capsules-i101-404.dat", None),
    ("BoxesStack1-i100000-32.hdf5.dat", Some(("NSN-FB", 0.026))),
];

fn main() {
    let Some(dir) = std::env::var_os("PERP_SUITES") else {
        eprintln!("benches/fc.rs reads the Siconos fc3d files: set PERP_SUITES (e.g. PERP_SUITES=$PWD/../shared/suites)");
        return;
    };
    let dir = std::path::PathBuf::from(dir).join("siconos").join("fc3d");
    let mut c = Criterion::default().configure_from_args();
    let s = Settings { tol: 1e-6, time_limit: Some(Duration::from_secs(10)), ..Settings::default() };
    let mut table = Vec::new();
    for (file, _) in FILES {
        let p = match perp::suite::read_friction_contact(&dir.join(file)) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        let group = format!("fc/{}", file.split('-').next().unwrap_or(file));
        let n = p.size();
        let mut g = c.benchmark_group(&group);
        g.sample_size(10);
        let r = vec![1.0; n];
        g.bench_with_input(BenchmarkId::new("W-matvec", n), &p, |b, p| {
            b.iter(|| black_box(p.velocity(black_box(&r))))
        });
        let dense = p.w.to_dense();
        g.bench_with_input(BenchmarkId::new("dense-lu", n), &dense, |b, m| {
            b.iter(|| black_box(m.partial_piv_lu()))
        });
        for &name in SOLVER_NAMES {
            let check = perp::cones::solver(name).unwrap().solve(&p, None, &s).unwrap();
            if check.report.status != Status::Solved {
                table.push((
                    file,
                    name,
                    None,
                    format!("not solved: {} at {:.1e}", check.report.status, check.report.error),
                ));
                continue;
            }
            g.bench_with_input(BenchmarkId::new(name, n), &p, |b, p| {
                b.iter(|| black_box(perp::cones::solver(name).unwrap().solve(p, None, &s).unwrap()))
            });
            table.push((file, name, Some((group.clone(), n)), format!("{} it", check.report.iterations)));
        }
        g.finish();
    }
    println!("\n| file | solver | time (ms) | vs best Siconos | note |\n|---|---|---|---|---|");
    for (file, name, id, note) in table {
        let ms = id.and_then(|(g, n)| mean_seconds(&g, name, n));
        let best = FILES.iter().find(|(f, _)| f == file).and_then(|(_, s)| *s);
        let ratio = match (ms, best) {
            (Some(t), Some((who, ts))) => format!("{:.2}× {who} ({:.0} ms)", t / ts, ts * 1e3),
            _ => "–".into(),
        };
        let ms = ms.map_or("–".into(), |t| format!("{:.2}", t * 1e3));
        println!("| {file} | {name} | {ms} | {ratio} | {note} |");
    }
}
