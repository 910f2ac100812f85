//! Criterion benchmarks of the frictional contact solvers on the Siconos files that the
//! literature times: Capsules-i100-1090, Capsules-i101-404 and BoxesStack1-i100000-32, at
//! tol 1e-6 (Siconos' default for its Newton methods). Each group also times one sparse
//! matrix-vector product with W (the cost of one NSGS sweep's coupling) and one dense LU of W,
//! measured in the same run, and the end prints every solver's time beside the best Siconos
//! time stored in `../shared/peers/siconos/siconos-fc3d-best.csv` for that file, labelled with
//! that file's source column (when and how it was measured). Those are stored figures, not
//! measured in this run: for a claim, time Siconos side by side with the peer's `sicbench`
//! (`../shared/peers/siconos/README.md`) and quote that ratio.
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

/// The files timed.
const FILES: &[&str] =
    &["Capsules-i100-1090.dat", "Capsules-i101-404.dat", "BoxesStack1-i100000-32.hdf5.dat"];

/// The stored best Siconos figure for `file` (problem name = the file name up to `.dat` or
/// `.hdf5.dat`): (solver, seconds, source), from the peer folder's CSV when it is there.
fn stored_siconos(suites: &std::path::Path, file: &str) -> Option<(String, f64, String)> {
    let csv = suites.join("..").join("peers").join("siconos").join("siconos-fc3d-best.csv");
    let text = std::fs::read_to_string(csv).ok()?;
    let name = file.trim_end_matches(".dat").trim_end_matches(".hdf5");
    text.lines().skip(1).find_map(|l| {
        let f: Vec<&str> = l.split(',').collect();
        (f.len() == 5 && f[0] == name)
            .then(|| Some((f[3].to_string(), f[2].parse().ok()?, f[4].to_string())))?
    })
}

fn main() {
    let Some(dir) = std::env::var_os("PERP_SUITES") else {
        eprintln!("benches/fc.rs reads the Siconos fc3d files: set PERP_SUITES (e.g. PERP_SUITES=$PWD/../shared/suites)");
        return;
    };
    let suites = std::path::PathBuf::from(dir);
    let dir = suites.join("siconos").join("fc3d");
    let mut c = Criterion::default().configure_from_args();
    let s = Settings { tol: 1e-6, time_limit: Some(Duration::from_secs(10)), ..Settings::default() };
    let mut table = Vec::new();
    for file in FILES {
        let p = match perp::formats::read_friction_contact(&dir.join(file)) {
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
    println!("\n| file | solver | time (ms) | vs stored best Siconos (not this run) | note |\n|---|---|---|---|---|");
    for (file, name, id, note) in table {
        let ms = id.and_then(|(g, n)| mean_seconds(&g, name, n));
        let ratio = match (ms, stored_siconos(&suites, file)) {
            (Some(t), Some((who, ts, source))) => {
                format!("{:.2}× {who} ({:.2} ms, stored: {source})", t / ts, ts * 1e3)
            }
            _ => "–".into(),
        };
        let ms = ms.map_or("–".into(), |t| format!("{:.2}", t * 1e3));
        println!("| {file} | {name} | {ms} | {ratio} | {note} |");
    }
}
