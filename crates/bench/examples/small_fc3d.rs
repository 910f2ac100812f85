//! Times "prepare once, solve many" on small frictional contact problems: for every file and
//! solver, N rounds, each timing (interleaved, so that drifts of the machine hit all three
//! alike) one `solve` on a fresh solver (what `perp bench` does), one `solve` on a reused
//! solver, and one `solve_into` on a reused solver and reused buffers; prints the medians.
//!
//! ```text
//! cargo run --release -p perp-bench --example small_fc3d -- [--repeat N] [--solvers a,b] FILE...
//! ```

use perp_catalogue::friction_solver as solver;
use perp_cones::{FrictionSolution, Settings};
use perp_formats::friction::read_friction_contact;
use std::path::Path;
use std::time::Instant;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (mut repeat, mut solvers, mut files) = (200usize, "nsgs,prox,ac-newton".to_string(), Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--repeat" => repeat = args.next().ok_or("--repeat N")?.parse()?,
            "--solvers" => solvers = args.next().ok_or("--solvers a,b")?,
            _ => files.push(a),
        }
    }
    let s = Settings::default();
    println!(
        "{:<28} {:<10} {:>5} {:>4} {:>12} {:>12} {:>12} {:>8} {:>8}",
        "file", "solver", "n", "it", "fresh µs", "reused µs", "into µs", "fr/into", "re/into"
    );
    let (mut all_fresh, mut all_into) = (Vec::new(), Vec::new());
    for f in &files {
        let p = read_friction_contact(Path::new(f))?;
        let n = p.size();
        let short = Path::new(f).file_name().map_or(f.clone(), |x| x.to_string_lossy().into_owned());
        for name in solvers.split(',') {
            let mut reused = solver(name)?;
            let mut into = solver(name)?;
            let mut kept = FrictionSolution::zeros(n);
            into.solve_into(&p, false, kept.view_mut(), &s)?; // prepare
            let (mut tf, mut tr, mut ti) = (Vec::new(), Vec::new(), Vec::new());
            let mut iterations = 0;
            for _ in 0..repeat {
                let t = Instant::now();
                let sol = solver(name)?.solve(&p, None, &s)?;
                tf.push(t.elapsed().as_secs_f64());
                let t = Instant::now();
                let sol2 = reused.solve(&p, None, &s)?;
                tr.push(t.elapsed().as_secs_f64());
                kept.r.fill(0.0);
                let t = Instant::now();
                into.solve_into(&p, false, kept.view_mut(), &s)?;
                ti.push(t.elapsed().as_secs_f64());
                assert_eq!(sol.r, kept.r, "{f} {name}: solve and solve_into differ");
                assert_eq!(sol2.r, kept.r);
                iterations = kept.report.iterations;
            }
            let (mf, mr, mi) = (median(&mut tf), median(&mut tr), median(&mut ti));
            all_fresh.push(mf);
            all_into.push(mi);
            println!(
                "{:<28} {:<10} {:>5} {:>4} {:>12.2} {:>12.2} {:>12.2} {:>8.2} {:>8.2}",
                short,
                name,
                n,
                iterations,
                mf * 1e6,
                mr * 1e6,
                mi * 1e6,
                mf / mi,
                mr / mi
            );
        }
    }
    let ratios: Vec<f64> = all_fresh.iter().zip(&all_into).map(|(a, b)| (a / b).ln()).collect();
    if !ratios.is_empty() {
        let g = (ratios.iter().sum::<f64>() / ratios.len() as f64).exp();
        println!("geometric mean of fresh-solve / solve_into: {g:.2}");
    }
    Ok(())
}
