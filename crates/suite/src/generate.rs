//! Seeded generators of LCPs for tests, `perp bench` and the criterion benches.
//!
//! Every generator draws from a `ChaCha8Rng` seeded with `seed` (`rand_chacha`), whose stream
//! is fixed across platforms and releases: the same `(size, seed)` gives the same problem bit
//! for bit, everywhere. Every problem built here except [`psd`] has a solution:
//!
//! | generator | M | storage | why solvable |
//! |---|---|---|---|
//! | [`spd`] | A Aᵀ + I | dense | M positive definite ⇒ unique solution |
//! | [`psd`] | B Bᵀ, B n×k | dense | not always: PSD LCPs are solvable iff feasible |
//! | [`contact`] | J M⁻¹ Jᵀ (Delassus) | sparse CSR | PSD, q = J v_free ⇒ feasible |
//! | [`contact_dense`] | same | dense | same |
//! | [`p_matrix`] | strictly row-diagonally dominant | dense | P-matrix ⇒ unique solution |
//! | [`murty`] | Murty's triangular matrix | dense | P-matrix; 2ⁿ Lemke pivots |

use perp_core::Matrix;
use perp_lcp::Lcp;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A generated problem is valid by construction.
fn lcp(m: Matrix, q: Vec<f64>) -> Lcp {
    Lcp::new(m, q).expect("generated LCP data are square, sized and finite by construction")
}

fn dense(n: usize, row_major: &[f64]) -> Matrix {
    Matrix::from_row_major(n, n, row_major).expect("generated matrix is n x n and finite")
}

/// `B Bᵀ + shift·I` for the n×`cols` matrix B given row by row, as a dense matrix (faer
/// matmul), made exactly symmetric by mirroring the lower triangle.
fn gram(b: &[f64], n: usize, cols: usize, shift: f64) -> Matrix {
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
/// let p = perp_suite::generate::spd(4, 7);
/// assert_eq!(p.n(), 4);
/// assert_eq!(p.m().get(1, 3), p.m().get(3, 1));
/// assert!(p.m().get(2, 2) >= 1.0);
/// ```
pub fn spd(n: usize, seed: u64) -> Lcp {
    let mut r = rng(seed);
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
/// let p = perp_suite::generate::psd(5, 2, 3);
/// assert_eq!(p.n(), 5);
/// assert!(p.m().asymmetry(0.0).is_none());
/// assert!(p.m().diagonal().iter().all(|&d| d >= 0.0));
/// ```
pub fn psd(n: usize, rank: usize, seed: u64) -> Lcp {
    let mut r = rng(seed);
    let b: Vec<f64> = (0..n * rank).map(|_| r.random_range(-1.0..=1.0)).collect();
    let q: Vec<f64> = (0..n).map(|_| r.random_range(-1.0..=1.0)).collect();
    lcp(gram(&b, n, rank, 0.0), q)
}

/// Probability that a contact is with the fixed ground rather than with a second body.
const GROUND_PROBABILITY: f64 = 0.25;

/// The rigid-body system behind [`contact`]: per-dof inverse masses, each contact's Jacobian
/// blocks, the free velocity.
struct ContactSystem {
    /// Number of bodies.
    bodies: usize,
    /// Inverse mass matrix diagonal, 6 per body: 1/m (three times), then 1/I_x, 1/I_y, 1/I_z.
    minv: Vec<f64>,
    /// For each body, the contacts touching it (in increasing contact order) with the 1×6
    /// Jacobian block of that contact on that body.
    touching: Vec<Vec<(usize, [f64; 6])>>,
    /// Free velocity, 6 per body.
    v_free: Vec<f64>,
}

/// A uniformly distributed unit vector (rejection sampling in the unit ball).
fn unit_vector(r: &mut ChaCha8Rng) -> [f64; 3] {
    loop {
        let v = [r.random_range(-1.0..=1.0), r.random_range(-1.0..=1.0), r.random_range(-1.0..=1.0)];
        let s: f64 = v.iter().map(|x| x * x).sum();
        if s > 1e-4 && s <= 1.0 {
            let l = s.sqrt();
            return [v[0] / l, v[1] / l, v[2] / l];
        }
    }
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// `sign · [nᵀ, (r × n)ᵀ]`: the normal relative velocity contributed by a body moving with
/// (v, ω) at lever arm r is `n·(v + ω × r) = nᵀv + (r × n)ᵀω`.
fn jacobian_block(normal: [f64; 3], lever: [f64; 3], sign: f64) -> [f64; 6] {
    let rn = cross(lever, normal);
    [sign * normal[0], sign * normal[1], sign * normal[2], sign * rn[0], sign * rn[1], sign * rn[2]]
}

fn contact_system(n_contacts: usize, seed: u64) -> ContactSystem {
    let mut r = rng(seed);
    let bodies = n_contacts.div_ceil(2).max(1);
    let mut minv = Vec::with_capacity(6 * bodies);
    for _ in 0..bodies {
        let mass: f64 = r.random_range(0.5..=2.0);
        minv.extend([1.0 / mass; 3]);
        for _ in 0..3 {
            let inertia: f64 = r.random_range(0.05..=0.5);
            minv.push(1.0 / inertia);
        }
    }
    let mut touching = vec![Vec::new(); bodies];
    for c in 0..n_contacts {
        let a = r.random_range(0..bodies);
        let ground = bodies == 1 || r.random_bool(GROUND_PROBABILITY);
        let lever = |r: &mut ChaCha8Rng| {
            let d = unit_vector(r);
            let l: f64 = r.random_range(0.1..=1.0);
            [l * d[0], l * d[1], l * d[2]]
        };
        if ground {
            // Resting on the ground: the normal points up.
            let normal = [0.0, 0.0, 1.0];
            touching[a].push((c, jacobian_block(normal, lever(&mut r), 1.0)));
        } else {
            let mut b = r.random_range(0..bodies - 1);
            if b >= a {
                b += 1;
            }
            let normal = unit_vector(&mut r);
            touching[a].push((c, jacobian_block(normal, lever(&mut r), 1.0)));
            touching[b].push((c, jacobian_block(normal, lever(&mut r), -1.0)));
        }
    }
    let v_free = (0..6 * bodies).map(|_| r.random_range(-1.0..=1.0)).collect();
    ContactSystem { bodies, minv, touching, v_free }
}

impl ContactSystem {
    /// `W = J M⁻¹ Jᵀ` (CSR, exactly symmetric) and `q = J v_free`.
    fn assemble(&self, n_contacts: usize) -> (Matrix, Vec<f64>) {
        let mut q = vec![0.0; n_contacts];
        let mut triplets = Vec::new();
        for body in 0..self.bodies {
            let minv = &self.minv[6 * body..6 * body + 6];
            let v = &self.v_free[6 * body..6 * body + 6];
            let list = &self.touching[body];
            for (p, &(ci, ji)) in list.iter().enumerate() {
                q[ci] += (0..6).map(|k| ji[k] * v[k]).sum::<f64>();
                // Contacts are listed in increasing order, so ci < cj below: each pair is
                // computed once and mirrored, which keeps W exactly symmetric.
                for &(cj, jj) in &list[p..] {
                    let w: f64 = (0..6).map(|k| ji[k] * minv[k] * jj[k]).sum();
                    triplets.push((ci, cj, w));
                    if ci != cj {
                        triplets.push((cj, ci, w));
                    }
                }
            }
        }
        let w =
            Matrix::from_triplets(n_contacts, n_contacts, &triplets).expect("contact indices are in range");
        (w, q)
    }
}

/// A frictionless multi-contact LCP in Delassus form: `W = J M⁻¹ Jᵀ`, `q = J v_free`
/// (Anitescu & Potra 1997; Stewart & Trinkle 1996, the normal-only part), stored sparse (CSR).
///
/// Model: `⌈n_contacts/2⌉` free rigid bodies in 3-D, 6 dofs each (v, ω), mass from
/// U[0.5, 2] and diagonal inertia from U[0.05, 0.5]³. Each contact touches a random body and,
/// with probability 3/4, a second random body (random unit normal), otherwise the fixed
/// ground (normal +z); lever arms are random directions of length U[0.1, 1]. Its Jacobian row
/// is `[nᵀ, (r_a × n)ᵀ]` on body a and `−[nᵀ, (r_b × n)ᵀ]` on body b (1×12, or 1×6 against the
/// ground). `W_ij ≠ 0` only when contacts i and j share a body, so W is sparse; it is
/// symmetric positive semidefinite (singular when a body has more than 6 contacts).
///
/// `q = J v_free` with `v_free` from U[−1, 1]^{6·bodies}: about half the contacts approach
/// (qᵢ < 0). This q makes the LCP the optimality system of the projection
/// `min ½‖v − v_free‖²_M  s.t. J v ≥ 0`, which is feasible (v = 0), so a solution always
/// exists even when W is singular.
///
/// ```
/// let p = perp_suite::generate::contact(20, 3);
/// assert_eq!(p.n(), 20);
/// assert!(p.m().is_sparse());
/// assert!(p.m().asymmetry(0.0).is_none()); // exactly symmetric
/// ```
pub fn contact(n_contacts: usize, seed: u64) -> Lcp {
    let (w, q) = contact_system(n_contacts, seed).assemble(n_contacts);
    lcp(w, q)
}

/// [`contact`]'s problem with the same matrix in dense storage.
///
/// ```
/// use perp_suite::generate::{contact, contact_dense};
/// let (s, d) = (contact(12, 5), contact_dense(12, 5));
/// assert!(!d.m().is_sparse());
/// assert_eq!(s.m().get(3, 4), d.m().get(3, 4));
/// assert_eq!(s.q(), d.q());
/// ```
pub fn contact_dense(n_contacts: usize, seed: u64) -> Lcp {
    let (w, q) = contact_system(n_contacts, seed).assemble(n_contacts);
    lcp(Matrix::Dense(w.to_dense()), q)
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
/// let p = perp_suite::generate::p_matrix(5, 1);
/// let m = p.m();
/// for i in 0..5 {
///     let off: f64 = (0..5).filter(|&j| j != i).map(|j| m.get(i, j).abs()).sum();
///     assert!(m.get(i, i) > off);
/// }
/// assert!(m.asymmetry(1e-12).is_some());
/// ```
pub fn p_matrix(n: usize, seed: u64) -> Lcp {
    let mut r = rng(seed);
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
/// let p = perp_suite::generate::murty(3);
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

/// The built-in benchmark suite of `perp bench`: `(name, problem)` pairs, names
/// `<family>-<size>` (`contact-dense-1000` is `contact-1000` in dense storage, to measure what
/// sparse storage buys). All seeds are fixed, so the suite is identical on every machine.
///
/// | name | storage |
/// |---|---|
/// | `spd-100`, `spd-500` | dense |
/// | `contact-200`, `contact-1000` | sparse |
/// | `contact-dense-1000` (the matrix of `contact-1000`) | dense |
/// | `pmatrix-100`, `pmatrix-500` | dense |
/// | `murty-8`, `murty-10` | dense |
///
/// Sizes are chosen so that every LCP solver runs the whole suite in well under a few seconds
/// on one core (release build); `murty-10` needs 2¹⁰ = 1024 Lemke pivots.
///
/// ```
/// let suite = perp_suite::generate::builtin_suite();
/// assert!(suite.iter().any(|(name, p)| name == "contact-200" && p.m().is_sparse()));
/// assert!(suite.iter().any(|(name, p)| name == "spd-100" && !p.m().is_sparse()));
/// ```
pub fn builtin_suite() -> Vec<(String, Lcp)> {
    vec![
        ("spd-100".to_string(), spd(100, 1)),
        ("spd-500".to_string(), spd(500, 2)),
        ("contact-200".to_string(), contact(200, 3)),
        ("contact-1000".to_string(), contact(1000, 4)),
        ("contact-dense-1000".to_string(), contact_dense(1000, 4)),
        ("pmatrix-100".to_string(), p_matrix(100, 6)),
        ("pmatrix-500".to_string(), p_matrix(500, 7)),
        ("murty-8".to_string(), murty(8)),
        ("murty-10".to_string(), murty(10)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(m: &Matrix) -> Vec<Vec<f64>> {
        (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m.get(i, j)).collect()).collect()
    }

    fn same(a: &Lcp, b: &Lcp) -> bool {
        rows(a.m()) == rows(b.m()) && a.q() == b.q()
    }

    /// Cholesky of the dense symmetric `a` (row lists); `false` if a pivot is not positive.
    fn cholesky_ok(mut a: Vec<Vec<f64>>) -> bool {
        let n = a.len();
        for k in 0..n {
            let d = a[k][k] - (0..k).map(|p| a[k][p] * a[k][p]).sum::<f64>();
            if d <= 0.0 {
                return false;
            }
            a[k][k] = d.sqrt();
            for i in k + 1..n {
                a[i][k] = (a[i][k] - (0..k).map(|p| a[i][p] * a[k][p]).sum::<f64>()) / a[k][k];
            }
        }
        true
    }

    /// Determinant by Gaussian elimination with partial pivoting.
    fn det(mut a: Vec<Vec<f64>>) -> f64 {
        let n = a.len();
        let mut d = 1.0;
        for k in 0..n {
            let p = (k..n).max_by(|&x, &y| a[x][k].abs().total_cmp(&a[y][k].abs())).unwrap();
            if p != k {
                a.swap(p, k);
                d = -d;
            }
            d *= a[k][k];
            if a[k][k] == 0.0 {
                return 0.0;
            }
            let (top, below) = a.split_at_mut(k + 1);
            let pivot = &top[k];
            for row in below.iter_mut() {
                let f = row[k] / pivot[k];
                for (x, p) in row.iter_mut().zip(pivot).skip(k) {
                    *x -= f * p;
                }
            }
        }
        d
    }

    #[test]
    fn same_seed_same_problem_other_seed_other_problem() {
        assert!(same(&spd(6, 9), &spd(6, 9)));
        assert!(!same(&spd(6, 9), &spd(6, 10)));
        assert!(same(&contact(15, 9), &contact(15, 9)));
        assert!(!same(&contact(15, 9), &contact(15, 10)));
        assert!(same(&p_matrix(6, 9), &p_matrix(6, 9)));
        assert!(!same(&p_matrix(6, 9), &p_matrix(6, 10)));
    }

    #[test]
    fn spd_is_symmetric_positive_definite() {
        let p = spd(8, 3);
        assert!(p.m().asymmetry(0.0).is_none());
        assert!(cholesky_ok(rows(p.m())));
        // M - I = A Aᵀ is PSD as well: the diagonal is at least 1.
        assert!(p.m().diagonal().iter().all(|&d| d >= 1.0));
        assert!(p.q().iter().all(|q| (-1.0..=1.0).contains(q)));
    }

    #[test]
    fn psd_has_the_requested_rank() {
        let p = psd(6, 2, 5);
        assert!(same(&p, &psd(6, 2, 5)));
        assert!(p.m().asymmetry(0.0).is_none());
        let m = rows(p.m());
        let mut shifted = m.clone();
        for (i, row) in shifted.iter_mut().enumerate() {
            row[i] += 1e-12;
        }
        assert!(cholesky_ok(shifted));
        // Rank 2: every 3x3 principal minor vanishes, a 2x2 one does not.
        let minor =
            |idx: &[usize]| det(idx.iter().map(|&i| idx.iter().map(|&j| m[i][j]).collect()).collect());
        assert!(minor(&[0, 1, 2]).abs() < 1e-12 && minor(&[1, 3, 5]).abs() < 1e-12);
        assert!(minor(&[0, 1]) > 1e-6);
        assert_eq!(psd(3, 5, 1).n(), 3);
    }

    #[test]
    fn contact_matrix_is_j_minv_jt_and_psd() {
        let nc = 14;
        let s = contact_system(nc, 11);
        // Dense J (nc x 6·bodies), assembled independently of `assemble`.
        let nd = 6 * s.bodies;
        let mut j = vec![vec![0.0; nd]; nc];
        for (body, list) in s.touching.iter().enumerate() {
            for &(c, block) in list {
                j[c][6 * body..6 * body + 6].copy_from_slice(&block);
            }
        }
        let p = contact(nc, 11);
        for a in 0..nc {
            let qa: f64 = (0..nd).map(|k| j[a][k] * s.v_free[k]).sum();
            assert!((p.q()[a] - qa).abs() < 1e-13);
            for b in 0..nc {
                let wab: f64 = (0..nd).map(|k| j[a][k] * s.minv[k] * j[b][k]).sum();
                assert!((p.m().get(a, b) - wab).abs() < 1e-12, "W[{a},{b}]");
                let shared = (0..s.bodies).any(|bd| {
                    (0..6).any(|k| j[a][6 * bd + k] != 0.0) && (0..6).any(|k| j[b][6 * bd + k] != 0.0)
                });
                if !shared {
                    assert_eq!(p.m().get(a, b), 0.0);
                }
            }
        }
        assert!(p.m().asymmetry(0.0).is_none());
        let mut w = rows(p.m());
        let shift = 1e-10 * p.m().max_abs();
        for (i, row) in w.iter_mut().enumerate() {
            row[i] += shift;
        }
        assert!(cholesky_ok(w));
        // Sparse for a larger instance.
        let big = contact(200, 1);
        assert!(big.m().nnz() < 200 * 200 / 10, "nnz = {}", big.m().nnz());
        assert_eq!(rows(contact_dense(30, 2).m()), rows(contact(30, 2).m()));
    }

    #[test]
    fn p_matrix_has_positive_principal_minors() {
        let n = 6;
        let p = p_matrix(n, 4);
        let m = rows(p.m());
        for mask in 1u32..(1 << n) {
            let idx: Vec<usize> = (0..n).filter(|&i| mask & (1 << i) != 0).collect();
            let sub: Vec<Vec<f64>> = idx.iter().map(|&i| idx.iter().map(|&j| m[i][j]).collect()).collect();
            assert!(det(sub) > 0.0, "minor {idx:?}");
        }
        assert!(p.m().asymmetry(1e-12).is_some());
    }

    #[test]
    fn murty_by_hand() {
        let p = murty(4);
        assert_eq!(
            rows(p.m()),
            vec![
                vec![1.0, 2.0, 2.0, 2.0],
                vec![0.0, 1.0, 2.0, 2.0],
                vec![0.0, 0.0, 1.0, 2.0],
                vec![0.0, 0.0, 0.0, 1.0]
            ]
        );
        assert_eq!(p.q(), &[-30.0, -28.0, -24.0, -16.0]);
        // The unique solution z = (0, 0, 0, 16): w = q + M z = (2, 4, 8, 0).
        assert_eq!(p.w(&[0.0, 0.0, 0.0, 16.0]), vec![2.0, 4.0, 8.0, 0.0]);
        assert_eq!(murty(0).n(), 0);
    }

    #[test]
    fn builtin_suite_names_are_unique_and_storages_mixed() {
        let s = builtin_suite();
        let mut names: Vec<&str> = s.iter().map(|(n, _)| n.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), s.len());
        assert!(s.iter().any(|(_, p)| p.m().is_sparse()) && s.iter().any(|(_, p)| !p.m().is_sparse()));
        for (name, p) in &s {
            let size: usize = name.rsplit('-').next().unwrap().parse().unwrap();
            assert_eq!(p.n(), size, "{name}");
        }
    }
}
