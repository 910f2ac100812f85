//! Seeded LCP generators for tests, docs, `perp bench` and the criterion benches (as
//! `perp_ncp::samples` holds small NCPs and `perp_cones::samples` frictional problems).
//!
//! Every generator draws from a `ChaCha8Rng` seeded with `seed` (`rand_chacha`), whose stream
//! is fixed across platforms and releases: the same `(size, seed)` gives the same problem bit
//! for bit, everywhere. Every LCP built here except [`psd`] has a solution:
//!
//! | generator | M | storage | why solvable |
//! |---|---|---|---|
//! | [`spd`] | A Aᵀ + I | dense | M positive definite ⇒ unique solution |
//! | [`psd`] | B Bᵀ, B n×k | dense | not always: PSD LCPs are solvable iff feasible |
//! | [`contact`] | J M⁻¹ Jᵀ (Delassus) | sparse CSR | PSD, q = J v_free ⇒ feasible |
//! | [`contact_dense`] | same | dense | same |
//! | [`p_matrix`] | strictly row-diagonally dominant | dense | P-matrix ⇒ unique solution |
//! | [`murty`] | Murty's triangular matrix | dense | P-matrix; 2ⁿ Lemke pivots |
//! | [`fathi`] | L Lᵀ, L unit lower triangular with 2 below | dense | positive definite; ill-conditioned |
//! | [`degenerate`] | A Aᵀ + I | dense | positive definite; built around a degenerate solution |
//!
//! [`rigid`] is the random rigid-body model behind [`contact`]; `perp_cones::samples` builds
//! its frictional contact problems from the same model, and `perp_ncp::samples::mixed` its
//! MLCP from [`spd`].

pub mod rigid;
#[cfg(test)]
mod tests;

pub use rigid::{contact, contact_dense};

use crate::Lcp;
use perp_core::Matrix;
use rand::Rng;

/// A generated problem is valid by construction.
fn lcp(m: Matrix, q: Vec<f64>) -> Lcp {
    Lcp::new(m, q).expect("generated LCP data are square, sized and finite by construction")
}

fn dense(n: usize, row_major: &[f64]) -> Matrix {
    Matrix::from_row_major(n, n, row_major).expect("generated matrix is n x n and finite")
}

/// The row-major values of `A D Aᵀ / scale + shift·I` for the `rows × cols` matrix A given row
/// by row and `D = diag(weights)` (the identity for `None`): the Gram and Delassus-like
/// matrices of the tests, each entry summed in the order `k = 0..cols` of `a_ik d_k a_jk`, so
/// a test that built them by hand gets the same values bit for bit.
///
/// ```
/// let m = perp_lcp::samples::gram_row_major(&[1.0, 2.0, 3.0, 4.0], 2, 2, Some(&[1.0, 0.5]), 1.0, 1.0);
/// // A = [1 2; 3 4]: A diag(1, ½) Aᵀ + I = [1 + 2 + 1, 3 + 4; 3 + 4, 9 + 8 + 1]
/// assert_eq!(m, vec![4.0, 7.0, 7.0, 18.0]);
/// ```
pub fn gram_row_major(
    a: &[f64],
    rows: usize,
    cols: usize,
    weights: Option<&[f64]>,
    scale: f64,
    shift: f64,
) -> Vec<f64> {
    let weight = |k: usize| weights.map_or(1.0, |w| w[k]);
    let mut m = vec![0.0; rows * rows];
    for i in 0..rows {
        for j in 0..rows {
            let sum = (0..cols).map(|k| a[i * cols + k] * weight(k) * a[j * cols + k]).sum::<f64>();
            m[i * rows + j] = sum / scale + if i == j { shift } else { 0.0 };
        }
    }
    m
}

/// `B Bᵀ + shift·I` for the n×`cols` matrix B given row by row, as a dense matrix (faer
/// matmul), made exactly symmetric by mirroring the lower triangle.
pub(crate) fn gram(b: &[f64], n: usize, cols: usize, shift: f64) -> Matrix {
    let b = faer::Mat::from_fn(n, cols, |i, j| b[i * cols + j]);
    let mut m = faer::Mat::<f64>::identity(n, n) * faer::Scale(shift);
    faer::linalg::matmul::matmul(
        m.as_mut(),
        faer::Accum::Add,
        b.as_ref(),
        b.transpose(),
        1.0,
        faer::Par::Seq,
    );
    for j in 0..n {
        for i in 0..j {
            m[(i, j)] = m[(j, i)];
        }
    }
    Matrix::Dense(m)
}

/// A dense symmetric positive definite LCP: `M = A Aᵀ + I` with the entries of the n×n matrix
/// A drawn from U[−1, 1] (row by row), then `q` from U[−1, 1]ⁿ.
///
/// The eigenvalues of M lie in [1, 1 + σ_max(A)²] with σ_max(A)² ≈ 4n/3, so the condition
/// number grows like 4n/3: moderate, as in the random SPD LCPs of Cottle, Pang & Stone
/// (1992, §5.2 test problems). Symmetry is exact (each pair computed once).
///
/// ```
/// let p = perp_lcp::samples::spd(4, 7);
/// assert_eq!(p.n(), 4);
/// assert_eq!(p.m().get(1, 3), p.m().get(3, 1));
/// assert!(p.m().get(2, 2) >= 1.0);
/// ```
pub fn spd(n: usize, seed: u64) -> Lcp {
    let mut r = rigid::rng(seed);
    let a: Vec<f64> = (0..n * n).map(|_| r.random_range(-1.0..=1.0)).collect();
    let q: Vec<f64> = (0..n).map(|_| r.random_range(-1.0..=1.0)).collect();
    lcp(gram(&a, n, n, 1.0), q)
}

/// A dense symmetric positive *semi*definite LCP of given rank: `M = B Bᵀ` with the entries of
/// the n×`rank` matrix B drawn from U[−1, 1] (row by row), then `q` from U[−1, 1]ⁿ.
///
/// For `rank < n`, M is singular, and the LCP need not have a solution: a PSD LCP is solvable
/// exactly when it is feasible (Cottle, Pang & Stone 1992, Thm 3.8.6), and with a random q it
/// often is not. Use it to test that solvers *report* failure (Lemke: ray termination) and
/// that every answer claimed `Solved` is complementary.
///
/// ```
/// let p = perp_lcp::samples::psd(5, 2, 3);
/// assert_eq!(p.n(), 5);
/// assert!(p.m().asymmetry(0.0).is_none());
/// assert!(p.m().diagonal().iter().all(|&d| d >= 0.0));
/// ```
pub fn psd(n: usize, rank: usize, seed: u64) -> Lcp {
    let mut r = rigid::rng(seed);
    let b: Vec<f64> = (0..n * rank).map(|_| r.random_range(-1.0..=1.0)).collect();
    let q: Vec<f64> = (0..n).map(|_| r.random_range(-1.0..=1.0)).collect();
    lcp(gram(&b, n, rank, 0.0), q)
}

/// A dense, non-symmetric P-matrix LCP: off-diagonal entries from U[−1, 1], diagonal
/// `Mᵢᵢ = (1 + δᵢ) Σ_{j≠i} |Mᵢⱼ| + εᵢ` with δᵢ ∈ U[0.1, 0.5], εᵢ ∈ U[0.1, 1] (drawn row by
/// row), then `q` from U[−1, 1]ⁿ.
///
/// Why a P-matrix: every principal submatrix of a strictly row-diagonally-dominant matrix with
/// positive diagonal is again one; by Gershgorin its real eigenvalues are positive and its
/// complex ones come in conjugate pairs, so every principal minor is positive (Cottle, Pang &
/// Stone 1992, §3.3). Hence the LCP has a unique solution for every q (ibid., Thm 3.3.7).
/// Diagonal dominance (an H-matrix with positive diagonal) was chosen over "positive definite
/// symmetric part" because projected Gauss–Seidel then provably converges too (ibid.,
/// §5.2), so every LCP solver of `perp bench` is expected to finish on it.
///
/// ```
/// let p = perp_lcp::samples::p_matrix(5, 1);
/// let m = p.m();
/// for i in 0..5 {
///     let off: f64 = (0..5).filter(|&j| j != i).map(|j| m.get(i, j).abs()).sum();
///     assert!(m.get(i, i) > off);
/// }
/// assert!(m.asymmetry(1e-12).is_some());
/// ```
pub fn p_matrix(n: usize, seed: u64) -> Lcp {
    let mut r = rigid::rng(seed);
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        let mut off = 0.0;
        for j in (0..n).filter(|&j| j != i) {
            let v: f64 = r.random_range(-1.0..=1.0);
            m[i * n + j] = v;
            off += v.abs();
        }
        let delta: f64 = r.random_range(0.1..=0.5);
        let eps: f64 = r.random_range(0.1..=1.0);
        m[i * n + i] = (1.0 + delta) * off + eps;
    }
    let q = (0..n).map(|_| r.random_range(-1.0..=1.0)).collect();
    lcp(dense(n, &m), q)
}

/// Murty's example on which Lemke's method with covering vector e takes 2ⁿ pivots (Murty
/// 1988, *Linear Complementarity, Linear and Nonlinear Programming*, ch. 6), in the orientation
/// of Siconos' `lcp_exp_murty2.dat`:
///
/// ```text
///   M = upper triangular, Mᵢᵢ = 1, Mᵢⱼ = 2 for j > i, 0 below;
///   qᵢ = −(2ⁿ⁺¹ − 2ⁱ⁺¹)   (i = 0 … n−1, i.e. −(2ⁿ⁺¹ − 2ⁱ) with 1-based i),
/// ```
///
/// so `murty(6)` has q = (−126, −124, −120, −112, −96, −64), exactly that file's problem.
/// M is a P-matrix (triangular, unit diagonal), so the solution is unique:
/// z = (0, …, 0, 2ⁿ), w = q + Mz = (2, 4, …, 2ⁿ⁻¹, 0).
///
/// # Panics
/// If `n > 1022` (2ⁿ⁺¹ would overflow f64).
///
/// ```
/// let p = perp_lcp::samples::murty(3);
/// assert_eq!(p.q(), &[-14.0, -12.0, -8.0]);
/// assert_eq!((p.m().get(0, 2), p.m().get(2, 0), p.m().get(1, 1)), (2.0, 0.0, 1.0));
/// ```
pub fn murty(n: usize) -> Lcp {
    assert!(n <= 1022, "murty({n}): n must be at most 1022 so that 2^(n+1) is a finite f64");
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        m[i * n + i] = 1.0;
        for j in i + 1..n {
            m[i * n + j] = 2.0;
        }
    }
    let top = 2f64.powi(n as i32 + 1);
    let q = (0..n).map(|i| -(top - 2f64.powi(i as i32 + 1))).collect();
    lcp(dense(n, &m), q)
}

/// Fathi's LCP (Y. Fathi, "Computational complexity of LCPs associated with positive definite
/// symmetric matrices", *Math. Programming* 17, 1979, 335–344): `M = L Lᵀ` with L unit lower
/// triangular and `Lᵢⱼ = 2` below the diagonal, and `q = −e`. Entry by entry (0-based),
///
/// ```text
///   Mᵢᵢ = 4i + 1,   Mᵢⱼ = 4·min(i, j) + 2  (i ≠ j),   q = (−1, …, −1),
/// ```
///
/// all exact in f64. M is symmetric positive definite, so the solution is unique:
/// `z = e₁` with `w = M e₁ − e = (0, 1, …, 1)` (because `Lᵀe₁ = e₁`, `L e₁ = (1, 2, …, 2)`).
/// Fathi built it to make Murty's principal pivoting method take 2ⁿ pivots; perp's Lemke
/// (covering vector e, where q = −e makes every row tie in the first ratio test) takes 2ⁿ
/// pivots too (measured for n = 2 … 6), so on `fathi-16` it meets its pivot limit. The
/// condition number grows like n⁴ (≈ 1.7·10⁵ at n = 16, 2.8·10⁶ at n = 32).
///
/// ```
/// let p = perp_lcp::samples::fathi(3);
/// assert_eq!(p.q(), &[-1.0, -1.0, -1.0]);
/// assert_eq!((p.m().get(0, 0), p.m().get(1, 1), p.m().get(2, 1), p.m().get(0, 2)), (1.0, 5.0, 6.0, 2.0));
/// assert_eq!(p.w(&[1.0, 0.0, 0.0]), vec![0.0, 1.0, 1.0]);
/// ```
pub fn fathi(n: usize) -> Lcp {
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            m[i * n + j] = if i == j { (4 * i + 1) as f64 } else { (4 * i.min(j) + 2) as f64 };
        }
    }
    lcp(dense(n, &m), vec![-1.0; n])
}

/// A dense SPD LCP built around a **degenerate** solution: `M = A Aᵀ + I` as in [`spd`]
/// (same draws for A), then each index is put at random in one of three classes,
///
/// ```text
///   zᵢ* ∈ U[0.5, 1.5], wᵢ* = 0   (basic z),
///   zᵢ* = 0, wᵢ* ∈ U[0.5, 1.5]   (basic w),
///   zᵢ* = 0, wᵢ* = 0            (degenerate: strict complementarity fails),
/// ```
///
/// and `q = w* − M z*`. M is positive definite, so z* is the unique solution. At the
/// degenerate indices both zᵢ and wᵢ can be basic, so pivoting methods meet ties in the ratio
/// test and Newton methods on the min-map or Fischer–Burmeister function lose their fast local
/// convergence (the generalized Jacobian is not unique there; Cottle, Pang & Stone 1992,
/// §4.9 on degeneracy in pivoting).
///
/// ```
/// use perp_lcp::samples::{degenerate, degenerate_solution};
/// let p = degenerate(12, 4);
/// let z = degenerate_solution(12, 4);
/// let w = p.w(&z);
/// assert!(z.iter().zip(&w).all(|(z, w)| z.min(*w).abs() < 1e-12 && *z >= 0.0 && *w > -1e-12));
/// assert!(z.iter().zip(&w).any(|(z, w)| *z == 0.0 && w.abs() < 1e-12));
/// ```
pub fn degenerate(n: usize, seed: u64) -> Lcp {
    let (m, z, w) = degenerate_parts(n, seed);
    let mut mz = vec![0.0; n];
    m.mul_vec(&z, &mut mz);
    let q = w.iter().zip(&mz).map(|(w, mz)| w - mz).collect();
    lcp(m, q)
}

/// The solution z* of [`degenerate`]`(n, seed)` (exact as drawn; `w* = M z* + q` up to rounding).
pub fn degenerate_solution(n: usize, seed: u64) -> Vec<f64> {
    degenerate_parts(n, seed).1
}

fn degenerate_parts(n: usize, seed: u64) -> (Matrix, Vec<f64>, Vec<f64>) {
    let mut r = rigid::rng(seed);
    let a: Vec<f64> = (0..n * n).map(|_| r.random_range(-1.0..=1.0)).collect();
    let m = gram(&a, n, n, 1.0);
    let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
    for i in 0..n {
        let class = r.random_range(0..3u8);
        let v: f64 = r.random_range(0.5..=1.5);
        match class {
            0 => z[i] = v,
            1 => w[i] = v,
            _ => {}
        }
    }
    (m, z, w)
}
