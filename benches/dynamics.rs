//! Time-stepping throughput: steps per second for `woodpecker` (Glocker–Studer 2005; each step a 3-dof
//! update and an LCP of size ≤ 6) and for `ball-pile 1000`, with warm start on and off.
//!
//! Each group also times the reference kernel of the same run: one dense LU of the largest
//! contact matrix met in the scene (the Glocker–Studer LCP matrix for the woodpecker, W for the
//! pile), and the end prints steps/s, solver iterations per solve with and without warm start,
//! and the step time as a ratio to that LU.
//!
//! `cargo bench --bench dynamics` (add `-- --quick` for a fast pass).

mod common;

use common::mean_seconds;
use criterion::{BenchmarkId, Criterion};
use perp::dynamics::scenes::{self, Scene};
use perp::dynamics::{Formulation, Simulator, System};
use std::hint::black_box;

/// (scene, size, steps per measured run, steps of transient before measuring)
const CASES: &[(&str, Option<usize>, usize, usize)] =
    &[("woodpecker", None, 20_000, 2_000), ("ball-pile", Some(1000), 3, 5)];

fn simulator(scene: &dyn Scene, warm: bool, transient: usize) -> Simulator<'_> {
    let mut opts = scene.default_options();
    opts.warm_start = warm;
    let (q0, u0) = scene.initial_state();
    let sys: &dyn System = scene;
    let mut sim = Simulator::new(sys, q0, u0, scene.default_dt(), opts).expect("scene starts");
    for _ in 0..transient {
        sim.step().expect("step");
    }
    sim
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut table = Vec::new();
    for &(name, size, steps, transient) in CASES {
        let scene = scenes::scene(name, size).expect("built-in scene");
        let group = format!("dynamics/{name}");
        let mut g = c.benchmark_group(&group);
        g.sample_size(10);
        // Reference: a dense LU of the largest contact matrix of the scene's first steps.
        let harvested = scenes::harvest(scene.as_ref(), transient + steps, 1).expect("harvest");
        let biggest = harvested.iter().map(|(_, p)| p).max_by_key(|p| p.size());
        let reference = biggest.map(|p| match scene.default_options().formulation {
            Formulation::GlockerStuder => {
                perp::dynamics::assembly::glocker_studer_lcp(p).expect("lcp").m().to_dense()
            }
            _ => p.w.to_dense(),
        });
        let nref = reference.as_ref().map_or(0, |m| m.nrows());
        if let Some(m) = &reference {
            g.bench_with_input(BenchmarkId::new("dense-lu", nref), m, |b, m| {
                b.iter(|| black_box(m.partial_piv_lu()))
            });
        }
        let mut iters = Vec::new();
        for warm in [true, false] {
            let label = if warm { "steps-warm" } else { "steps-cold" };
            g.bench_with_input(BenchmarkId::new(label, steps), &warm, |b, &warm| {
                b.iter_batched(
                    || simulator(scene.as_ref(), warm, transient),
                    |mut sim| {
                        for _ in 0..steps {
                            sim.step().expect("step");
                        }
                        black_box(sim.stats.steps)
                    },
                    criterion::BatchSize::LargeInput,
                )
            });
            let mut sim = simulator(scene.as_ref(), warm, transient);
            let before = (sim.stats.solves, sim.stats.iterations);
            for _ in 0..steps {
                sim.step().expect("step");
            }
            let (solves, its) = (sim.stats.solves - before.0, sim.stats.iterations - before.1);
            iters.push((label, solves, its, sim.stats.unsolved));
        }
        g.finish();
        let lu = mean_seconds(&group, "dense-lu", nref);
        for (label, solves, its, unsolved) in iters {
            let t = mean_seconds(&group, label, steps);
            table.push((
                name,
                label,
                t.map(|t| steps as f64 / t),
                lu.zip(t).map(|(l, t)| t / steps as f64 / l),
                solves,
                its,
                unsolved,
            ));
        }
    }
    println!("\nscene        run          steps/s     step/LU(ref)   solves  iterations/solve  unsolved");
    for (name, label, sps, ratio, solves, its, unsolved) in table {
        println!(
            "{name:<12} {label:<12} {:>10}   {:>10}   {solves:>6}  {:>16.2}  {unsolved}",
            sps.map_or("-".into(), |s| format!("{s:.0}")),
            ratio.map_or("-".into(), |r| format!("{r:.2}")),
            its as f64 / solves.max(1) as f64
        );
    }
}
