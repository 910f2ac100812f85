//! Timings of the velocity-space solvers and formulations (issues 31 and 32), release only.
//!
//! ```text
//! PERP_SUITES=$PWD/../shared/suites cargo run --release -p perp-dynamics --example velocity_space -- solvers
//! cargo run --release -p perp-dynamics --example velocity_space -- pile 100 [--skip-cone]
//! ```
//!
//! `solvers`: SAP to its own criterion (1e-6, Drake's default relative tolerance, and 1e-8),
//! the interior point's convex relaxation to a 1e-8 certificate, and `global-ac-newton` and
//! `global-ipm` to the Coulomb error 1e-8 (at most 2 s a problem), on the global suite files
//! and on the contact steps of `ball-pile 20` and `ball-pile 100`'s first 40, each solver kept
//! across a set's problems; milliseconds for the set, median of 3 runs, and how many it solved.
//!
//! `pile N`: the first 60 steps of `ball-pile N` with the compliant formulation (SAP,
//! near-rigid), the convex one and the scene's default (exact cones, nsgs with fallbacks;
//! `--skip-cone` leaves it out for large piles): ms a step (median, p95, worst), iterations a
//! step, unsolved steps and the deepest penetration.

use perp_cones::global_ipm::GlobalIpm;
use perp_cones::{GlobalFrictionContactProblem, GlobalNewton, Sap};
use perp_core::{Settings, Status};
use perp_dynamics::scenes;
use perp_dynamics::{Compliant, Formulation, Simulator, StepOptions, System};
use perp_formats::FrictionFile;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("solvers") => solvers(),
        Some("pile") => {
            let n = args.get(1).map_or(Ok(100), |s| s.parse())?;
            pile(n, args.iter().any(|a| a == "--skip-cone"))
        }
        _ => Err("usage: velocity_space solvers | pile N [--skip-cone]".into()),
    }
}

/// The global problems of `ball-pile n`'s first `steps` steps (those with contacts).
fn ball_pile_steps(
    n: usize,
    steps: usize,
) -> Result<Vec<GlobalFrictionContactProblem>, Box<dyn std::error::Error>> {
    let pile = scenes::scene("ball-pile", Some(n))?;
    let opts = StepOptions { keep_problem: true, ..pile.default_options() };
    let (q0, u0) = pile.initial_state();
    let sys: &dyn System = &*pile;
    let mut sim = Simulator::new(sys, q0, u0, pile.default_dt(), opts)?;
    let mut out = Vec::new();
    for _ in 0..steps {
        let rep = sim.step()?;
        if rep.status.is_some() {
            if let Some(g) = sim.last_global_problem() {
                out.push(g?);
            }
        }
    }
    Ok(out)
}

/// Every global problem file of the suites (`gfc/`, and the global FCLIB files of `fc3d/`).
fn global_files() -> Vec<(String, GlobalFrictionContactProblem)> {
    let root = perp_formats::suites_dir().join("siconos");
    let mut out = Vec::new();
    for dir in ["gfc", "fc3d"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if let Ok(FrictionFile::Global(g)) = perp_formats::read_friction_file(&p) {
                out.push((p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default(), g));
            }
        }
    }
    out
}

/// Milliseconds of `solve` over `problems` (all of them), median of 3 runs, and how many the
/// last run solved.
fn time_ms(
    mut solve: impl FnMut(&GlobalFrictionContactProblem) -> bool,
    problems: &[GlobalFrictionContactProblem],
) -> (f64, usize) {
    let mut runs = Vec::new();
    let mut solved = 0;
    for _ in 0..3 {
        let t = Instant::now();
        solved = problems.iter().filter(|g| solve(g)).count();
        runs.push(t.elapsed().as_secs_f64() * 1e3);
    }
    runs.sort_by(f64::total_cmp);
    (runs[1], solved)
}

fn solvers() -> Result<(), Box<dyn std::error::Error>> {
    let mut sets: Vec<(String, Vec<GlobalFrictionContactProblem>)> =
        global_files().into_iter().map(|(n, g)| (n, vec![g])).collect();
    sets.push(("ball-pile 20, steps 1-40 with contacts".into(), ball_pile_steps(20, 40)?));
    sets.push(("ball-pile 100, steps 1-40 with contacts".into(), ball_pile_steps(100, 40)?));
    println!(
        "| problems | count | SAP 1e-6 | SAP 1e-8 | convex 1e-8 | global-ac-newton 1e-8 | global-ipm 1e-8 |"
    );
    println!("|---|---|---|---|---|---|---|");
    let capped = |tol: f64| Settings { tol, time_limit: Some(Duration::from_secs(2)), ..Settings::default() };
    for (name, problems) in &sets {
        let sap_at = |tol: f64| {
            let mut sap = Sap::new();
            let s = Settings { tol, ..Settings::default() };
            time_ms(
                |g| sap.solve(g, None, &s).is_ok_and(|x| x.solution.report.status == Status::Solved),
                problems,
            )
        };
        let (t6, n6) = sap_at(1e-6);
        let (t8, n8) = sap_at(1e-8);
        let mut ipm = GlobalIpm::convex();
        let s = capped(1e-8);
        let (tc, nc) =
            time_ms(|g| ipm.solve_convex(g, &s).is_ok_and(|x| x.0.report.status == Status::Solved), problems);
        let mut newton = GlobalNewton::new();
        let (tn, nn) =
            time_ms(|g| newton.solve(g, None, &s).is_ok_and(|x| x.report.status == Status::Solved), problems);
        let mut exact = GlobalIpm::new();
        let (ti, ni) =
            time_ms(|g| exact.solve(g, None, &s).is_ok_and(|x| x.report.status == Status::Solved), problems);
        println!(
            "| {name} | {} | {t6:.2} ({n6}) | {t8:.2} ({n8}) | {tc:.2} ({nc}) | {tn:.2} ({nn}) | {ti:.2} ({ni}) |",
            problems.len()
        );
    }
    println!("milliseconds for the set, median of 3 runs (solved in parentheses)");
    Ok(())
}

fn pile(n: usize, skip_cone: bool) -> Result<(), Box<dyn std::error::Error>> {
    let pile = scenes::scene("ball-pile", Some(n))?;
    let sys: &dyn System = &*pile;
    for (label, f) in [
        ("compliant (SAP, near-rigid)", Some(Formulation::Compliant(Compliant::default()))),
        ("convex (global-ipm)", Some(Formulation::Convex)),
        ("cone (default: nsgs, fallbacks)", None),
    ] {
        if f.is_none() && skip_cone {
            continue;
        }
        let mut opts = pile.default_options();
        if let Some(f) = f {
            opts.set_formulation(f);
            opts.settings.tol = 1e-6;
        }
        let (q0, u0) = pile.initial_state();
        let mut sim = Simulator::new(sys, q0, u0, pile.default_dt(), opts)?;
        let (mut ms, mut iters, mut unsolved, mut pen) = (Vec::new(), Vec::new(), 0, 0.0_f64);
        for _ in 0..60 {
            let t = Instant::now();
            let rep = sim.step()?;
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            if rep.status.is_some() {
                iters.push(rep.iterations);
                unsolved += usize::from(rep.status != Some(Status::Solved));
            }
            let gmin = sys.contacts(&sim.q, sim.t).iter().map(|c| c.gap).fold(0.0_f64, f64::min);
            pen = pen.max(-gmin);
        }
        let mut sorted = ms.clone();
        sorted.sort_by(f64::total_cmp);
        let mean_it = iters.iter().sum::<usize>() as f64 / iters.len().max(1) as f64;
        println!(
            "ball-pile {n}, {label}: ms a step median {:.2}, p95 {:.2}, worst {:.2}; total {:.0} ms; iterations \
             mean {mean_it:.1}, max {}; {unsolved} of {} steps unsolved; deepest penetration {pen:.2e}",
            sorted[30],
            sorted[56],
            sorted[59],
            ms.iter().sum::<f64>(),
            iters.iter().max().unwrap_or(&0),
            iters.len()
        );
    }
    Ok(())
}
