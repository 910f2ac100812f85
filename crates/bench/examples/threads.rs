//! Times NSGS (colouring on) and APGD on a large sparse frictional problem with a given number
//! of threads, for comparing thread counts (same answer, bit for bit; the run prints a
//! checksum of r to show it):
//!
//! ```sh
//! cargo run --release -p perp-bench --example threads -- 200 1
//! cargo run --release -p perp-bench --example threads -- 200 2
//! ```
//!
//! Arguments: the grid side s (s² bodies, about 3 s² contacts; default 200) and the thread
//! count (default 1). 50 NSGS sweeps (coloured, then in the natural order for comparison)
//! and 100 APGD iterations, whatever the error.

use perp_cones::samples::friction_grid as grid;
use perp_cones::{Apgd, FrictionSolver, Nsgs, Settings};
use std::time::Instant;

fn main() -> Result<(), perp_cones::Error> {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("a number")).collect();
    let side = args.first().copied().unwrap_or(200);
    let threads = args.get(1).copied().unwrap_or(1);
    let p = grid(side, 7);
    println!("{} contacts, W {} nonzeros, {threads} thread(s)", p.contacts(), p.w.nnz());
    let runs: [(&str, Box<dyn FrictionSolver>, usize); 3] = [
        ("nsgs colouring", Box::new(Nsgs { colouring: true, ..Nsgs::new() }), 50),
        ("nsgs (natural order, one thread)", Box::new(Nsgs::new()), 50),
        ("apgd", Box::new(Apgd::new()), 100),
    ];
    for (name, mut solver, iters) in runs {
        let s = Settings { tol: 0.0, max_iter: iters, threads, ..Settings::default() };
        let t = Instant::now();
        let sol = solver.solve(&p, None, &s)?;
        let sum: f64 = sol.r.iter().sum();
        println!(
            "{name}: {} iterations in {:.3} s, error {:.3e}, sum r {:.17e}",
            sol.report.iterations,
            t.elapsed().as_secs_f64(),
            sol.report.error,
            sum
        );
    }
    Ok(())
}
