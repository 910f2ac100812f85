//! The seeded MLCP generator.

use crate::mlcp::Mlcp;
use perp_lcp::samples::spd;

/// A dense MLCP with a unique solution: the matrix of [`spd`]`(n, seed)` (symmetric positive
/// definite) and its q, with the first `n_free` rows equalities (free z). With M symmetric
/// positive definite this is the optimality system of the strictly convex QP
/// `min ½zᵀMz + qᵀz s.t. zᵢ ≥ 0 (i ≥ n_free)`, hence uniquely solvable.
///
/// # Panics
/// If `n_free > n`.
///
/// ```
/// let p = perp_ncp::samples::mixed(6, 2, 1);
/// assert_eq!((p.n(), p.n_free()), (6, 2));
/// assert_eq!(p.free(), &[true, true, false, false, false, false]);
/// ```
pub fn mixed(n: usize, n_free: usize, seed: u64) -> Mlcp {
    assert!(n_free <= n, "mixed({n}, {n_free}): n_free must be at most n");
    let p = spd(n, seed);
    let free = (0..n).map(|i| i < n_free).collect();
    Mlcp::new(p.m().clone(), p.q().to_vec(), free)
        .expect("generated MLCP data are square, sized and finite by construction")
}
