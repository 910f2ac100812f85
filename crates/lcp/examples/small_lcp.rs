//! `solve` against `solve_into` on small LCPs, the simulator's case: the same solver called
//! many times on problems of one structure with new values.
//!
//! For each solver and n, rounds alternate (in alternating order) a batch of `N` calls of
//! `solve` and a batch of `N` calls of `solve_into` over the same sequence of q vectors; each
//! batch gives a mean time per call, and the medians over the rounds are compared.
//!
//! ```text
//! cargo run --release -p perp-lcp --example small_lcp [N] [ROUNDS]
//! ```

use perp_core::{Matrix, Settings, SolveReport};
use perp_lcp::lemke::Lemke;
use perp_lcp::pgs::Pgs;
use perp_lcp::{Lcp, LcpSolver, SolutionMut};
use std::hint::black_box;
use std::time::Instant;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// A dense SPD LCP `A Aᵀ + I` of size n and `count` right-hand sides.
fn problem(n: usize, count: usize, seed: u64) -> (Lcp, Vec<Vec<f64>>) {
    let mut rng = Rng(seed);
    let a: Vec<f64> = (0..n * n).map(|_| rng.next()).collect();
    let m = perp_lcp::samples::gram_row_major(&a, n, n, None, 1.0, 1.0);
    let qs: Vec<Vec<f64>> = (0..count).map(|_| (0..n).map(|_| 3.0 * rng.next()).collect()).collect();
    (Lcp::new(Matrix::from_row_major(n, n, &m).unwrap(), qs[0].clone()).unwrap(), qs)
}

/// Makes a fresh solver.
type MakeSolver = fn() -> Box<dyn LcpSolver>;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("a count")).collect();
    let calls = args.first().copied().unwrap_or(2000);
    let rounds = args.get(1).copied().unwrap_or(21);
    let s = Settings { tol: 1e-10, ..Settings::default() };
    println!("{calls} calls per batch, {rounds} rounds; median µs per call");
    println!("{:<12} {:>4} {:>12} {:>12} {:>8}", "solver", "n", "solve", "solve_into", "ratio");
    let cases: [(&str, MakeSolver, bool); 3] = [
        ("pgs", || Box::new(Pgs::pgs()), false),
        ("lemke", || Box::new(Lemke::new()), false),
        ("lemke warm", || Box::new(Lemke::new()), true),
    ];
    for (label, make, warm) in cases {
        for n in [3, 12, 30] {
            let (mut p, qs) = problem(n, 16, 1000 + n as u64);
            let mut solver = make();
            let (mut z, mut w, mut report) = (vec![0.0; n], vec![0.0; n], SolveReport::new(""));
            let mut last = vec![0.0; n];
            let (mut t_solve, mut t_into) = (Vec::new(), Vec::new());
            for round in 0..rounds {
                for which in [round % 2, 1 - round % 2] {
                    let t0 = Instant::now();
                    for k in 0..calls {
                        p.set_q(&qs[k % qs.len()]).unwrap();
                        if which == 0 {
                            let sol = solver.solve(&p, warm.then_some(&last[..]), &s).unwrap();
                            last.copy_from_slice(&sol.z);
                            black_box(&sol);
                        } else {
                            solver
                                .solve_into(
                                    &p,
                                    warm,
                                    SolutionMut { z: &mut z, w: &mut w, report: &mut report },
                                    &s,
                                )
                                .unwrap();
                            black_box((&z, &w, &report));
                        }
                    }
                    let per_call = t0.elapsed().as_secs_f64() * 1e6 / calls as f64;
                    if which == 0 { &mut t_solve } else { &mut t_into }.push(per_call);
                }
            }
            let (a, b) = (median(&mut t_solve), median(&mut t_into));
            println!("{label:<12} {n:>4} {a:>12.3} {b:>12.3} {:>8.2}", a / b);
        }
    }
}
