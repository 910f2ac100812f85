//! Fill of the sparse factorizations on generated frictional problems (issue 14): for each
//! size, the pattern of W (the pattern of the Newton matrix `D_r + D_u (W + σI)`), faer's
//! COLAMD column ordering (what `SparseLu` uses) against AMD on the symmetric pattern, both
//! measured as the predicted `nnz(L)` of a symbolic Cholesky factorization under that
//! ordering (for an LU that pivots on the diagonal, `nnz(L + U) ≈ 2 nnz(L) − n`), the flops
//! `perp_core::linear::lu_cost` predicts, and the
//! time of one numeric supernodal LU of `W + σI` (σ = max diag W, prox's first σ).
//!
//! ```text
//! cargo run --release -p perp-bench --example sparse_fill -- [--no-lu] 1000 3000 10000
//! ```

use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, SymmetricOrdering,
};
use faer::sparse::linalg::lu::{factorize_symbolic_lu, LuSymbolicParams};
use faer::sparse::SymbolicSparseColMatRef;
use faer::Side;
use perp_cones::samples::friction_contact;
use perp_core::linear::SparseLu;
use perp_core::Matrix;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut lu = true;
    let mut sizes = Vec::new();
    for a in std::env::args().skip(1) {
        if a == "--no-lu" {
            lu = false;
        } else {
            sizes.push(a.parse::<usize>()?);
        }
    }
    println!(
        "{:>7} {:>7} {:>10} {:>13} {:>13} {:>8} {:>8} {:>10} {:>9} {:>9}",
        "contacts", "n", "nnz(A)", "L colamd", "L amd", "fill c", "fill a", "lu_cost fl", "sym s", "LU s"
    );
    for nc in sizes {
        let p = friction_contact(3, nc, 7);
        let n = p.size();
        let Matrix::Sparse(w) = &p.w else { return Err("dense W".into()) };
        // W is symmetric: its CSR is its CSC.
        let w = w.to_csr();
        let (ptr, idx, val) = (w.indptr().raw_storage().to_vec(), w.indices().to_vec(), w.data().to_vec());
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &ptr, None, &idx);
        let t = Instant::now();
        let slu = factorize_symbolic_lu(sym, LuSymbolicParams::default())?;
        let t_sym = t.elapsed().as_secs_f64();
        let colamd = slu.col_perm();
        let l_colamd = factorize_symbolic_cholesky(
            sym,
            Side::Upper,
            SymmetricOrdering::Custom(colamd),
            CholeskySymbolicParams::default(),
        )?
        .len_val();
        let l_amd = factorize_symbolic_cholesky(
            sym,
            Side::Upper,
            SymmetricOrdering::Amd,
            CholeskySymbolicParams::default(),
        )?
        .len_val();
        let nnz = idx.len();
        let mut t_lu = f64::NAN;
        if lu {
            let wmax = (0..n).map(|i| p.w.get(i, i).abs()).fold(0.0, f64::max);
            let mut v = val.clone();
            for c in 0..n {
                for k in ptr[c]..ptr[c + 1] {
                    if idx[k] == c {
                        v[k] += wmax;
                    }
                }
            }
            let mut f = SparseLu::supernodal();
            let t = Instant::now();
            f.factor(n, &ptr, &idx, &v).map_err(|e| e.to_string())?;
            t_lu = t.elapsed().as_secs_f64();
        }
        println!(
            "{:>7} {:>7} {:>10} {:>13} {:>13} {:>8.1} {:>8.1} {:>10.2e} {:>9.3} {:>9.3}",
            nc,
            n,
            nnz,
            l_colamd,
            l_amd,
            (2 * l_colamd - n) as f64 / nnz as f64,
            (2 * l_amd - n) as f64 / nnz as f64,
            perp_core::linear::lu_cost(n, &ptr, &idx).map_err(|e| e.to_string())?.flops,
            t_sym,
            t_lu
        );
    }
    Ok(())
}
