//! Runs a scene with its default options and writes the contact problem of every step whose
//! solve (fallback chain included) ends unsolved as a Siconos `.dat` file, to study the steps a
//! scene cannot solve with the solvers that failed there (issues 14 and 15).
//!
//! ```text
//! cargo run --release -p perp-bench --example unsolved_steps -- SCENE SIZE STEPS OUT_DIR [CHAIN]
//! ```
//!
//! SIZE is `-` for a scene without a size. Each file is `OUT_DIR/SCENE-SIZE-step-K.dat`, and
//! the same problem in global form (M, H, f, b: `Simulator::last_global_problem`) in
//! `…-step-K-global.dat` when the scene has no bilateral constraints, with the step's warm
//! start (the previous step's impulses of its active contacts, as the
//! simulator gathers them) beside it in `…-step-K.warm`, one number a line. A line per
//! unsolved step gives its time, size, status and error; then the scene's solver chain is
//! replayed on the written problem from that warm start, each solver's outcome on a line
//! (`perp_catalogue::solve_chain` with the scene's settings; in velocity space on the global
//! problem, a local solver taking its reduction). CHAIN replays another chain
//! instead: solvers separated by `;`, each with its parameters after a `:`, as
//! `nsgs;prox:sigma0=0.01,nu=10;ac-newton`.

use perp_catalogue::{build, solve_chain, Params, Problem};
use perp_dynamics::{scenes, Simulator, System};
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let (name, size, steps, out, replay) = match &a[..] {
        [name, size, steps, out] => (name, size, steps, out, None),
        [name, size, steps, out, chain] => (name, size, steps, out, Some(chain.as_str())),
        _ => return Err("usage: unsolved_steps SCENE SIZE|- STEPS OUT_DIR [CHAIN]".into()),
    };
    let size = if size == "-" { None } else { Some(size.parse()?) };
    let steps: usize = steps.parse()?;
    std::fs::create_dir_all(out)?;
    let scene = scenes::scene(name, size)?;
    let mut opts = scene.default_options();
    opts.keep_problem = true;
    let scene_chain: Vec<String> =
        std::iter::once(opts.solver.clone().unwrap_or_else(|| opts.formulation.default_solver().into()))
            .chain(opts.fallback.iter().cloned())
            .collect();
    let chain: Vec<(String, Params)> = match replay {
        None => scene_chain.into_iter().map(|n| (n, Params::new())).collect(),
        Some(text) => text
            .split(';')
            .map(|item| {
                let (n, p) = item.split_once(':').unwrap_or((item, ""));
                Ok((n.to_string(), Params::parse(p)?))
            })
            .collect::<Result<_, perp_core::Error>>()?,
    };
    let chain_text: Vec<&str> = chain.iter().map(|(n, _)| n.as_str()).collect();
    let (family, settings) = (opts.formulation.family(), opts.settings.clone());
    let (q0, u0) = scene.initial_state();
    let sys: &dyn System = scene.as_ref();
    let mut sim = Simulator::new(sys, q0, u0, scene.default_dt(), opts)?;
    let label = size.map_or(name.clone(), |n| format!("{name}-{n}"));
    let offsets: Vec<usize> =
        sim.contact_dims().iter().scan(0, |o, &d| Some(std::mem::replace(o, *o + d))).collect();
    let mut previous = vec![0.0; sim.contact_dims().iter().sum()];
    for k in 1..=steps {
        let rep = sim.step()?;
        let before = std::mem::replace(&mut previous, rep.impulses.clone());
        let Some(status) = rep.status else { continue };
        if status == perp_core::Status::Solved {
            continue;
        }
        // On W the step's local problem; in velocity space its global one, replayed as it is
        // (a local solver of the chain takes its reduction) and written reduced beside it.
        let global = sim.last_global_problem().and_then(Result::ok);
        let on_w = sim.last_problem().is_some();
        let local = match (sim.last_problem(), &global) {
            (Some(p), _) => Problem::Friction(p.friction_problem()?),
            (None, Some(g)) => Problem::Friction(g.reduce()?.0),
            (None, None) => continue,
        };
        let global = global.map(Problem::GlobalFriction);
        let warm: Vec<f64> = rep
            .active
            .iter()
            .flat_map(|&i| before[offsets[i]..offsets[i] + sim.contact_dims()[i]].iter().copied())
            .collect();
        let file = Path::new(out).join(format!("{label}-step-{k}.dat"));
        perp_formats::convert::write_siconos(&local, &file)?;
        if let Some(g) = &global {
            let path = Path::new(out).join(format!("{label}-step-{k}-global.dat"));
            perp_formats::convert::write_siconos(g, &path)?;
        }
        let problem = match global {
            Some(g) if !on_w => g,
            _ => local,
        };
        let text: String = warm.iter().map(|v| format!("{v:e}\n")).collect();
        std::fs::write(file.with_extension("warm"), text)?;
        println!(
            "step {k} t = {:.3}: n = {}, {status} at {:.3e}, {} attempts -> {}",
            sim.t,
            rep.size,
            rep.error,
            rep.attempts,
            file.display()
        );
        let mut solvers = chain.iter().map(|(n, p)| build(family, n, p)).collect::<Result<Vec<_>, _>>()?;
        let start = warm.iter().any(|v| *v != 0.0).then_some(warm.as_slice());
        let (a, ran) = solve_chain(&problem, &mut solvers, start, &settings, None)?;
        println!(
            "  replayed {}: {} after {ran} solver(s), {} at {:.3e}; {}",
            chain_text.join(" -> "),
            a.report.solver,
            a.report.status,
            a.report.error,
            a.report.message.as_deref().unwrap_or("")
        );
    }
    Ok(())
}
