//! The MCP solvers on every Siconos MLCP file: fb-newton solves every file Siconos' own
//! Fischer–Burmeister tests use and deltasigma (with its proximal-perturbation rescue),
//! bdiff-newton every square file (deltasigma2 with the rescue), schur-lemke every file whose
//! equation block is nonsingular and refuses the others; no solver claims `Solved` above tol.
//!
//! Needs the peer suites: set `PERP_SUITES` to the `suites` folder (CI does).

use perp::core::{Settings, Solution, Status};
use perp::formats::Problem;
use perp::ncp::Mcp;
use std::path::PathBuf;

fn files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(perp::formats::suites_dir().join("siconos").join("mlcp"))
        .expect("PERP_SUITES/siconos/mlcp is readable")
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    assert_eq!(v.len(), 18);
    v
}

fn stem(p: &std::path::Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

/// Solves an MLCP file with an NCP solver from z = 0; `None` when the file is not a square
/// MLCP (Rectangular_mlcp: its M is 3×2).
fn solve(f: &std::path::Path, solver: &str, s: &Settings) -> Option<Result<Solution, perp::core::Error>> {
    let Problem::Mlcp(p) = perp::formats::read_problem(f, None).ok()? else {
        panic!("{} should read as an MLCP", f.display())
    };
    let fun = p.to_function();
    let (lower, upper) = p.bounds();
    let mcp = Mcp::new(&fun, lower, upper).unwrap();
    Some(perp::ncp::solver(solver).unwrap().solve(&mcp, &vec![0.0; p.n()], s))
}

/// Files whose block of equations (free rows and columns) is singular: schur-lemke refuses them.
const SINGULAR_EQUATIONS: &[&str] =
    &["PD_mlcp", "diodeBridge_mlcp", "diodeBridge20_mlcp", "diodeBridge40_mlcp"];

#[test]
#[ignore = "needs PERP_SUITES"]
fn newton_solvers_on_every_mlcp_file() {
    // No time limit (issue 37): iteration limits alone, so no outcome depends on the clock.
    let s = Settings { tol: 1e-10, ..Settings::default() };
    let mut table = String::new();
    for f in files() {
        let name = stem(&f);
        let mut solved_by = 0;
        for solver in perp::ncp::SOLVER_NAMES {
            let Some(out) = solve(&f, solver, &s) else {
                assert_eq!(name, "Rectangular_mlcp", "only the rectangular file is refused");
                table.push_str(&format!("{name:24} {solver:13} refused (M is not square)\n"));
                solved_by = usize::MAX;
                continue;
            };
            let sol = match out {
                Ok(sol) => sol,
                Err(e) => {
                    assert!(
                        *solver == "schur-lemke" && SINGULAR_EQUATIONS.contains(&name.as_str()),
                        "{solver} on {name}: {e}"
                    );
                    assert!(e.to_string().contains("nonsingular block A"), "{e}");
                    table.push_str(&format!("{name:24} {solver:13} refused (singular equations)\n"));
                    continue;
                }
            };
            let r = &sol.report;
            table.push_str(&format!(
                "{name:24} {solver:13} {:16} it={:3} error={:.1e}\n",
                r.status.as_str(),
                r.iterations,
                r.error
            ));
            assert!(r.status != Status::Solved || r.error <= s.tol, "{solver} on {name}: {r:?}");
            assert!(sol.z.iter().all(|x| x.is_finite()), "{solver} on {name}: non-finite z");
            let must_solve = match *solver {
                "fb-newton" => name != "deltasigma2_mlcp",
                _ => true,
            };
            if must_solve {
                assert_eq!(r.status, Status::Solved, "{solver} on {name}: {r:?}");
            }
            if r.status == Status::Solved {
                solved_by = solved_by.saturating_add(1);
            }
        }
        assert!(solved_by > 0, "no solver solves {name}");
    }
    println!("{table}");
}
