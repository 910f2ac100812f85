//! Times [`DenseLu`] on small random matrices: fill, factor and one solve, as a Newton step
//! does. Below `SMALL_LU` (40) this is perp's stack kernel, above it faer's LU, so the output
//! shows where the two cross.
//!
//! ```text
//! cargo run --release -p perp-core --example dense_small [N ...]
//! ```
//!
//! Prints the median of 7 batches (each about 200 000 / n calls) per order, in ns per call.

use perp_core::linear::DenseLu;
use std::time::Instant;

fn main() {
    let orders: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let orders =
        if orders.is_empty() { vec![3, 6, 12, 16, 21, 27, 30, 33, 36, 40, 42, 48, 60] } else { orders };
    let mut seed = 7_u64;
    let mut rnd = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1_u64 << 53) as f64 - 0.5
    };
    for n in orders {
        let a: Vec<f64> = (0..n * n).map(|_| rnd()).collect();
        let b: Vec<f64> = (0..n).map(|_| rnd()).collect();
        let mut lu = DenseLu::new();
        lu.resize(n, 1);
        let reps = (200_000 / n.max(1)).max(1);
        let mut x = b.clone();
        let mut times = Vec::new();
        for _ in 0..7 {
            let t = Instant::now();
            for _ in 0..reps {
                let mut m = lu.matrix_mut();
                for j in 0..n {
                    for i in 0..n {
                        m[(i, j)] = a[j * n + i];
                    }
                }
                if lu.factor().is_err() {
                    eprintln!("n = {n}: singular draw");
                    return;
                }
                x.copy_from_slice(&b);
                lu.solve_in_place(&mut x);
            }
            times.push(t.elapsed().as_secs_f64() / reps as f64 * 1e9);
            std::hint::black_box(&x);
        }
        times.sort_by(f64::total_cmp);
        println!("n {n:4} {:10.0} ns", times[3]);
    }
}
