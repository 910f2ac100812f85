//! Times NSGS (colouring on) and APGD on a large sparse frictional problem with a given number
//! of threads, for comparing thread counts (same answer, bit for bit; the run prints a
//! checksum of r to show it):
//!
//! ```sh
//! cargo run --release -p perp-cones --example threads -- 200 1
//! cargo run --release -p perp-cones --example threads -- 200 2
//! ```
//!
//! Arguments: the grid side s (s² bodies, about 3 s² contacts; default 200) and the thread
//! count (default 1). 50 NSGS sweeps (coloured, then in the natural order for comparison)
//! and 100 APGD iterations, whatever the error.

use perp_cones::{Apgd, FrictionContactProblem, FrictionSolver, Matrix, Nsgs, Settings};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sprs::TriMat;
use std::time::Instant;

/// An `s × s` grid of unit-mass bodies (translations only), each on the ground and touching
/// its grid neighbours: `W = J Jᵀ` sparse (and singular, as in a pile), q pushing down and
/// sideways. Ground contacts come first, so that colour 0 holds `s²` contacts.
fn grid(s: usize, seed: u64) -> FrictionContactProblem {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let body = |i: usize, j: usize| i * s + j;
    // (body a, optional body b, normal axis): a frame whose normal is that axis.
    let mut contacts: Vec<(usize, Option<usize>, usize)> = Vec::new();
    for i in 0..s {
        for j in 0..s {
            contacts.push((body(i, j), None, 2));
        }
    }
    for i in 0..s {
        for j in 0..s {
            if j + 1 < s {
                contacts.push((body(i, j + 1), Some(body(i, j)), 0));
            }
            if i + 1 < s {
                contacts.push((body(i + 1, j), Some(body(i, j)), 1));
            }
        }
    }
    let nc = contacts.len();
    let mut jt = TriMat::new((3 * nc, 3 * s * s));
    for (c, &(a, b, axis)) in contacts.iter().enumerate() {
        for k in 0..3 {
            let dof = (axis + k) % 3; // row k of the frame: normal, then the two tangents
            jt.add_triplet(3 * c + k, 3 * a + dof, 1.0);
            if let Some(b) = b {
                jt.add_triplet(3 * c + k, 3 * b + dof, -1.0);
            }
        }
    }
    let j: sprs::CsMat<f64> = jt.to_csr();
    let jtr: sprs::CsMat<f64> = j.transpose_view().to_csr();
    let w: sprs::CsMat<f64> = &j * &jtr;
    let q = (0..3 * nc)
        .map(|k| if k % 3 == 0 { rng.random_range(-1.0..0.3) } else { rng.random_range(-0.5..0.5) })
        .collect();
    let mu = (0..nc).map(|_| rng.random_range(0.2..0.6)).collect();
    FrictionContactProblem::new(3, Matrix::Sparse(w.to_csr()), q, mu).unwrap()
}

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
