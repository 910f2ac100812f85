//! The interior-point method on every global problem file of the suites.
//!
//! `PERP_SUITES=$PWD/../shared/suites cargo test --release --test global_ipm -- --include-ignored --nocapture`

use perp::cones::global_ipm::GlobalIpm;
use perp::cones::{GlobalFrictionContactProblem, GlobalNewton};
use perp::core::{Settings, Status};
use perp::formats::FrictionFile;
use std::path::PathBuf;

fn global_files() -> Vec<(PathBuf, GlobalFrictionContactProblem)> {
    let root = perp::formats::suites_dir().join("siconos");
    let mut out = Vec::new();
    for dir in ["gfc", "fc3d", "fc2d"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .expect("suite folder")
            .map(|e| e.expect("entry").path())
            .collect();
        paths.sort();
        for p in paths {
            match perp::formats::read_friction_file(&p) {
                Ok(FrictionFile::Global(g)) => out.push((p, g)),
                Ok(FrictionFile::Local(_)) => {}
                Err(e) => panic!("{}: {e}", p.display()),
            }
        }
    }
    out
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn every_global_file_is_solved_by_the_interior_point_method() {
    let files = global_files();
    assert!(files.len() >= 6, "expected the gfc/ files and Box_Stacks: {}", files.len());
    let s = Settings { tol: 1e-8, ..Settings::default() };
    for (path, g) in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        // The convex relaxation to a certified gap: rᵀu = 0 and u in the dual cone.
        let t = std::time::Instant::now();
        let (sol, cert) = GlobalIpm::convex().solve_convex(g, &s).unwrap();
        let convex_ms = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(sol.report.status, Status::Solved, "{name}: {:?}", sol.report);
        assert!(cert.worst() <= 1e-8, "{name}: {cert:?}");
        let d = g.dim;
        for (i, mu) in g.mu.iter().enumerate() {
            let (r, u) = (&sol.r[i * d..(i + 1) * d], &sol.u[i * d..(i + 1) * d]);
            let (rt, ut) = (
                r[1..].iter().map(|x| x * x).sum::<f64>().sqrt(),
                u[1..].iter().map(|x| x * x).sum::<f64>().sqrt(),
            );
            let (rs, us) = (
                r.iter().fold(0.0_f64, |a, x| a.max(x.abs())),
                u.iter().fold(0.0_f64, |a, x| a.max(x.abs())),
            );
            assert!(rt <= mu * r[0] + 1e-7 * rs.max(1e-300), "{name}: contact {i}: r outside K");
            assert!(mu * ut <= u[0] + 1e-6 * us.max(1e-300), "{name}: contact {i}: u outside K*: {u:?}");
        }
        // The exact problem, against global-ac-newton's velocities.
        let t = std::time::Instant::now();
        let sol = GlobalIpm::new().solve(g, None, &s).unwrap();
        let exact_ms = t.elapsed().as_secs_f64() * 1e3;
        let recomputed = g.error(&sol.r, &sol.v);
        assert_eq!(sol.report.error.to_bits(), recomputed.to_bits(), "{name}");
        assert_eq!(sol.report.status, Status::Solved, "{name}: {:?}", sol.report);
        assert!(recomputed <= 1e-8, "{name}");
        let reference = GlobalNewton::new().solve(g, None, &s).unwrap();
        let dv = sol.v.iter().zip(&reference.v).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
        let vscale = reference.v.iter().fold(0.0_f64, |m, a| m.max(a.abs())).max(1e-300);
        println!(
            "{name:44} n_dof {:5} m {:5}: convex {} it {convex_ms:.1} ms (gap {:.1e}); exact {} it, {} factorizations, \
             error {recomputed:.1e}, {exact_ms:.1} ms, max|Δv|/max|v| against global-ac-newton {:.1e}",
            g.dofs(),
            g.size(),
            cert.iterations,
            cert.gap,
            sol.report.iterations,
            sol.report.factorizations,
            dv / vscale
        );
        assert!(dv <= 1e-6 * vscale, "{name}: velocities differ by {:.1e}", dv / vscale);
    }
}
