//! Times faer's dense LU with partial pivoting of an LCP file's M as Siconos' `sicbench lu`
//! times LAPACK's `dgetrf` (issue 13, item 4): in place, on storage allocated and touched
//! before the clock starts, the copy of M outside the clock; prints the minimum and the median
//! of REPEATS factorizations (sequential, as perp's solvers factor: `perp_core::linear::DenseLu`
//! calls the same `lu_in_place` on kept storage).
//!
//! ```text
//! cargo run --release -p perp-bench --example dense_lu -- FILE.dat REPEATS
//! ../shared/peers/siconos/sicbench... lu FILE.dat 0 0 0 REPEATS     # the same, with dgetrf
//! ```

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::factor::{lu_in_place, lu_in_place_scratch};
use faer::{Mat, Par};
use perp_catalogue::Problem;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [file, repeats] = &a[..] else {
        return Err("usage: dense_lu FILE.dat REPEATS".into());
    };
    let repeats: usize = repeats.parse()?;
    let Problem::Lcp(p) = perp_formats::read_problem(std::path::Path::new(file), None)? else {
        return Err(format!("{file}: not an LCP file").into());
    };
    let m = p.m().to_dense();
    let n = m.nrows();
    let par = Par::Seq;
    let mut work = Mat::<f64>::zeros(n, n);
    let (mut perm, mut perm_inv) = (vec![0usize; n], vec![0usize; n]);
    let mut scratch = MemBuffer::new(lu_in_place_scratch::<usize, f64>(n, n, par, Default::default()));
    let mut times = Vec::with_capacity(repeats);
    for _ in 0..repeats.max(1) {
        work.copy_from(&m);
        let t = Instant::now();
        lu_in_place(
            work.as_mut(),
            &mut perm,
            &mut perm_inv,
            par,
            MemStack::new(&mut scratch),
            Default::default(),
        );
        times.push(t.elapsed().as_secs_f64());
        std::hint::black_box(&work);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{{\"kind\":\"faer-lu\",\"n\":{n},\"min\":{:.6e},\"med\":{:.6e}}}",
        times[0],
        times[times.len() / 2]
    );
    Ok(())
}
