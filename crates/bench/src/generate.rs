//! Seeded generators of LCPs and frictional contact problems for tests, `perp bench` and the
//! criterion benches, and the built-in benchmark suite ([`builtin_problems`]).
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
//! [`friction_contact`] builds 2-D or 3-D frictional contact problems from the same random
//! rigid-body model as [`contact`].

use crate::bench::{BenchProblem, Instance, NcpInstance};
use perp_cones::FrictionContactProblem;
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
/// let p = perp_bench::generate::spd(4, 7);
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
/// let p = perp_bench::generate::psd(5, 2, 3);
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

/// Diagonal inverse masses of `bodies` random rigid bodies: 1/m three times (m ∈ [0.5, 2]),
/// then three inverse principal inertias (I ∈ [0.05, 0.5]).
fn inverse_masses(r: &mut impl Rng, bodies: usize) -> Vec<f64> {
    let mut minv = Vec::with_capacity(6 * bodies);
    for _ in 0..bodies {
        let mass: f64 = r.random_range(0.5..=2.0);
        minv.extend([1.0 / mass; 3]);
        for _ in 0..3 {
            let inertia: f64 = r.random_range(0.05..=0.5);
            minv.push(1.0 / inertia);
        }
    }
    minv
}

fn contact_system(n_contacts: usize, seed: u64) -> ContactSystem {
    let mut r = rng(seed);
    let bodies = n_contacts.div_ceil(2).max(1);
    let minv = inverse_masses(&mut r, bodies);
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
/// let p = perp_bench::generate::contact(20, 3);
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
/// use perp_bench::generate::{contact, contact_dense};
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
/// let p = perp_bench::generate::p_matrix(5, 1);
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
/// let p = perp_bench::generate::murty(3);
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
/// let p = perp_bench::generate::fathi(3);
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
/// use perp_bench::generate::{degenerate, degenerate_solution};
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
    let mut r = rng(seed);
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

/// A dense MLCP with a unique solution: the matrix of [`spd`]`(n, seed)` (symmetric positive
/// definite) and its q, with the first `n_free` rows equalities (free z). With M symmetric
/// positive definite this is the optimality system of the strictly convex QP
/// `min ½zᵀMz + qᵀz s.t. zᵢ ≥ 0 (i ≥ n_free)`, hence uniquely solvable.
///
/// # Panics
/// If `n_free > n`.
///
/// ```
/// let p = perp_bench::generate::mixed(6, 2, 1);
/// assert_eq!((p.n(), p.n_free()), (6, 2));
/// assert_eq!(p.free(), &[true, true, false, false, false, false]);
/// ```
pub fn mixed(n: usize, n_free: usize, seed: u64) -> perp_ncp::mlcp::Mlcp {
    assert!(n_free <= n, "mixed({n}, {n_free}): n_free must be at most n");
    let p = spd(n, seed);
    let free = (0..n).map(|i| i < n_free).collect();
    perp_ncp::mlcp::Mlcp::new(p.m().clone(), p.q().to_vec(), free)
        .expect("generated MLCP data are square, sized and finite by construction")
}

/// `(t₁, t₂)` completing the unit vector `n` to a right-handed orthonormal frame (n, t₁, t₂).
fn tangents(n: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let a = if n[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
    let d = a[0] * n[0] + a[1] * n[1] + a[2] * n[2];
    let t = [a[0] - d * n[0], a[1] - d * n[1], a[2] - d * n[2]];
    let l = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
    let t1 = [t[0] / l, t[1] / l, t[2] / l];
    (t1, cross(n, t1))
}

/// A frictional contact problem in local form (Siconos `FrictionContactProblem`): `u = W r + q`
/// with `W = J M⁻¹ Jᵀ`, `q = J v_free`, one Coulomb cone per contact with μ from U[0.3, 0.8].
///
/// The rigid-body model is that of [`contact`] (⌈n_contacts/2⌉ free bodies in 3-D, random
/// masses, inertias, lever arms; each contact against the ground, normal +z, with probability
/// 1/4, else against a second body with a random normal), drawn from its own stream. Each
/// contact has a local frame (n, t₁, t₂), t₁ ⟂ n fixed by n, and its `dim` Jacobian rows are
/// `±[dᵀ, (r × d)ᵀ]` for d = n, t₁ (, t₂) — normal first, as Siconos orders them. With
/// `dim = 2` only (n, t₁) are kept: a 2-D Coulomb law (fc2d) on the same kind of system.
/// W is symmetric positive semidefinite (exactly symmetric; singular when a body carries more
/// than 6/dim contacts, as in most Siconos problems) and stored sparse (CSR); q has mixed
/// signs (contacts approaching and separating, sliding in every direction).
///
/// # Panics
/// If `dim` is not 2 or 3.
///
/// ```
/// let p = perp_bench::generate::friction_contact(3, 10, 1);
/// assert_eq!((p.dim, p.size(), p.mu.len()), (3, 30, 10));
/// assert!(p.mu.iter().all(|m| (0.3..=0.8).contains(m)));
/// assert!(p.w.asymmetry(0.0).is_none());
/// assert!(p.validate().is_ok());
/// ```
pub fn friction_contact(dim: usize, n_contacts: usize, seed: u64) -> FrictionContactProblem {
    assert!(dim == 2 || dim == 3, "friction_contact: dim must be 2 or 3, not {dim}");
    let mut r = rng(seed);
    let bodies = n_contacts.div_ceil(2).max(1);
    let minv = inverse_masses(&mut r, bodies);
    // touching[body] = contacts on it, in increasing order, with their dim×6 Jacobian rows.
    let mut touching: Vec<Vec<(usize, Vec<[f64; 6]>)>> = vec![Vec::new(); bodies];
    let rows = |frame: &[[f64; 3]], lever: [f64; 3], sign: f64| -> Vec<[f64; 6]> {
        frame.iter().map(|&d| jacobian_block(d, lever, sign)).collect()
    };
    let mut mu = Vec::with_capacity(n_contacts);
    for _ in 0..n_contacts {
        let c = mu.len();
        let a = r.random_range(0..bodies);
        let ground = bodies == 1 || r.random_bool(GROUND_PROBABILITY);
        let lever = |r: &mut ChaCha8Rng| {
            let d = unit_vector(r);
            let l: f64 = r.random_range(0.1..=1.0);
            [l * d[0], l * d[1], l * d[2]]
        };
        let normal = if ground { [0.0, 0.0, 1.0] } else { unit_vector(&mut r) };
        let (t1, t2) = tangents(normal);
        let frame = &[normal, t1, t2][..dim];
        touching[a].push((c, rows(frame, lever(&mut r), 1.0)));
        if !ground {
            let mut b = r.random_range(0..bodies - 1);
            if b >= a {
                b += 1;
            }
            touching[b].push((c, rows(frame, lever(&mut r), -1.0)));
        }
        mu.push(r.random_range(0.3..=0.8));
    }
    let v_free: Vec<f64> = (0..6 * bodies).map(|_| r.random_range(-1.0..=1.0)).collect();
    let size = dim * n_contacts;
    let mut q = vec![0.0; size];
    let mut triplets = Vec::new();
    for body in 0..bodies {
        let minv = &minv[6 * body..6 * body + 6];
        let v = &v_free[6 * body..6 * body + 6];
        let list = &touching[body];
        for (p, (ci, ji)) in list.iter().enumerate() {
            for (a, row) in ji.iter().enumerate() {
                q[dim * ci + a] += (0..6).map(|k| row[k] * v[k]).sum::<f64>();
            }
            // Contacts are in increasing order: each pair of blocks is computed once (ci ≤ cj)
            // and mirrored, which keeps W exactly symmetric.
            for (cj, jj) in &list[p..] {
                for (a, ra) in ji.iter().enumerate() {
                    for (b, rb) in jj.iter().enumerate() {
                        let (i, j) = (dim * ci + a, dim * cj + b);
                        if ci == cj && j < i {
                            continue;
                        }
                        let w: f64 = (0..6).map(|k| ra[k] * minv[k] * rb[k]).sum();
                        triplets.push((i, j, w));
                        if i != j {
                            triplets.push((j, i, w));
                        }
                    }
                }
            }
        }
    }
    let w = Matrix::from_triplets(size, size, &triplets).expect("contact indices are in range");
    FrictionContactProblem::new(dim, w, q, mu).expect("generated frictional data are valid by construction")
}

/// An `s × s` grid of unit-mass bodies (translations only), each on the ground and touching
/// its grid neighbours: `W = J Jᵀ` sparse (and singular, as in a pile), q pushing down and
/// sideways. Ground contacts come first, so that colour 0 of NSGS's colouring holds `s²`
/// contacts. `3 s² − 2 s` contacts; the problem of the thread tests and
/// `cargo run --release -p perp-bench --example threads`.
pub fn friction_grid(s: usize, seed: u64) -> FrictionContactProblem {
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
    let mut jt = sprs::TriMat::new((3 * nc, 3 * s * s));
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

/// The LCPs of the built-in suite, `(name, problem)` pairs named `<family>-<n>`
/// (`contact-dense-1000` is `contact-1000` in dense storage, to measure what sparse storage
/// buys). All seeds are fixed, so the suite is identical on every machine. [`builtin_problems`]
/// is the whole suite (these plus MLCP, NCP and frictional problems).
///
/// | name | storage | what |
/// |---|---|---|
/// | `spd-100`, `spd-500` | dense | [`spd`] |
/// | `contact-200`, `contact-1000` | sparse | [`contact`] |
/// | `contact-dense-1000` (the matrix of `contact-1000`) | dense | [`contact_dense`] |
/// | `pmatrix-100`, `pmatrix-500` | dense | [`p_matrix`] |
/// | `murty-8`, `murty-10` | dense | [`murty`]; `murty-10` needs 2¹⁰ = 1024 Lemke pivots |
/// | `fathi-16`, `fathi-64` | dense | [`fathi`], ill-conditioned |
/// | `degenerate-60`, `degenerate-300` | dense | [`degenerate`] |
/// | `psd-60` | dense | [`psd`] of rank 30 (may have no solution) |
///
/// ```
/// let suite = perp_bench::generate::builtin_suite();
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
        ("fathi-16".to_string(), fathi(16)),
        ("fathi-64".to_string(), fathi(64)),
        ("degenerate-60".to_string(), degenerate(60, 8)),
        ("degenerate-300".to_string(), degenerate(300, 9)),
        ("psd-60".to_string(), psd(60, 30, 10)),
    ]
}

/// The whole built-in suite of `perp bench`, every problem with its name and kind; the LCPs
/// of [`builtin_suite`], then:
///
/// | name | kind | what |
/// |---|---|---|
/// | `mlcp-spd-100` | mlcp | [`mixed`]`(100, 30, 11)`: 30 equality rows |
/// | `kojima-shindo`, `josephy`, `nash-cournot`, … | ncp | every [`perp_ncp::samples::all`] sample, from its first standard start |
/// | `fc3d-contact-40`, `fc3d-contact-200` | fc3d | [`friction_contact`]`(3, ·)`: 40 and 200 contacts (n = 120, 600) |
/// | `fc2d-contact-60` | fc2d | [`friction_contact`]`(2, 60, ·)` (n = 120) |
///
/// Sizes keep `cargo run --release -- bench` (every applicable solver, default time limit)
/// well under a minute on two cores. To add problems (e.g. scenes from `perp-dynamics`, which
/// this crate may not depend on), extend the returned vector with more [`BenchProblem`]s:
///
/// ```
/// use perp_bench::bench::{BenchProblem, Instance};
/// let mut suite = perp_bench::generate::builtin_problems();
/// suite.push(BenchProblem::new("my-lcp", Instance::Lcp(perp_bench::generate::spd(5, 1))));
/// assert!(suite.iter().any(|p| p.name == "fc3d-contact-40" && p.kind == "fc3d"));
/// assert!(suite.iter().any(|p| p.name == "josephy" && p.kind == "ncp"));
/// ```
pub fn builtin_problems() -> Vec<BenchProblem> {
    let mut v = generated_problems();
    v.extend(scene_problems());
    v
}

/// The built-in problem named `name` (one of [`builtin_problems`], or an NCP sample of
/// [`perp_ncp::samples::extended`] from its first start), built alone: a harvested scene
/// problem runs only its own scene. `None` for a name that is not built in.
///
/// ```
/// let p = perp_bench::generate::builtin_problem("fc3d-contact-40").unwrap();
/// assert_eq!((p.kind.as_str(), p.problem.n()), ("fc3d", 120));
/// assert!(perp_bench::generate::builtin_problem("fc3d-contact-41").is_none());
/// assert_eq!(perp_bench::generate::builtin_problem("billups").unwrap().kind, "ncp");
/// ```
pub fn builtin_problem(name: &str) -> Option<BenchProblem> {
    if let Some(p) = generated_problems().into_iter().find(|p| p.name == name) {
        return Some(p);
    }
    // The NCP samples outside the bench suite (`perp_ncp::samples::extended`).
    if let Some(p) = NcpInstance::sample(name) {
        return Some(BenchProblem::new(name, Instance::Ncp(p)));
    }
    SCENES
        .iter()
        .filter(|s| name.starts_with(&format!("{}-t", scene_label(s))))
        .map(scene_problem)
        .find(|p| p.name == name)
}

/// The built-in problems that are generated, not harvested from scenes.
fn generated_problems() -> Vec<BenchProblem> {
    let mut v: Vec<BenchProblem> =
        builtin_suite().into_iter().map(|(name, p)| BenchProblem::new(&name, Instance::Lcp(p))).collect();
    v.push(BenchProblem::new("mlcp-spd-100", Instance::Mlcp(mixed(100, 30, 11))));
    for s in perp_ncp::samples::all() {
        if let Some(p) = NcpInstance::sample(s.name) {
            v.push(BenchProblem::new(s.name, Instance::Ncp(p)));
        }
    }
    v.push(BenchProblem::new("fc3d-contact-40", Instance::Friction(friction_contact(3, 40, 12))));
    v.push(BenchProblem::new("fc3d-contact-200", Instance::Friction(friction_contact(3, 200, 13))));
    v.push(BenchProblem::new("fc2d-contact-60", Instance::Friction(friction_contact(2, 60, 14))));
    v
}

/// The scenes harvested: (scene, size, steps, every).
type SceneSpec = (&'static str, Option<usize>, usize, usize);
const SCENES: &[SceneSpec] =
    &[("woodpecker", None, 3000, 1), ("ball-pile", Some(60), 120, 10), ("box-stack", Some(6), 60, 10)];

/// `ball-pile-60`, `woodpecker`: the start of a harvested problem's name.
fn scene_label(&(name, size, _, _): &SceneSpec) -> String {
    match size {
        Some(n) => format!("{name}-{n}"),
        None => name.to_string(),
    }
}

/// Contact problems harvested from the dynamics scenes (`perp_dynamics::scenes::harvest`): the
/// largest problem met in the first steps of each scene, as the LCP its formulation solves
/// (the woodpecker's Glocker–Studer LCP, Glocker–Studer 2005 eq. 33) or as the frictional contact problem
/// (ball pile, box stack). Deterministic: the scenes are.
pub fn scene_problems() -> Vec<BenchProblem> {
    SCENES.iter().map(scene_problem).collect()
}

/// One scene's harvested problem, named `{label}-t{time}-{kind}`.
fn scene_problem(spec: &SceneSpec) -> BenchProblem {
    use perp_dynamics::{assembly, scenes, Formulation};
    let &(name, size, steps, every) = spec;
    // A scene that fails to run or to pose its problem is a bug of perp's, never a reason for
    // the built-in suite to shrink in silence: it stops the run with the scene's name.
    let fail =
        |what: &str, e: &dyn std::fmt::Display| -> ! { panic!("built-in suite: scene {name} {what}: {e}") };
    let scene = scenes::scene(name, size).unwrap_or_else(|e| fail("is unknown", &e));
    let problems =
        scenes::harvest(scene.as_ref(), steps, every).unwrap_or_else(|e| fail("failed to run", &e));
    let Some((t, p)) = problems.into_iter().max_by_key(|(_, p)| p.size()) else {
        fail("posed no contact problem", &format!("{steps} steps"))
    };
    let inst = match scene.default_options().formulation {
        Formulation::GlockerStuder => assembly::glocker_studer_lcp(&p).map(Instance::Lcp),
        _ => p.friction_problem().map(Instance::Friction),
    }
    .unwrap_or_else(|e| fail("posed a problem that is not valid", &e));
    let kind = inst.kind_name();
    BenchProblem::new(&format!("{}-t{t:.3}-{kind}", scene_label(spec)), inst)
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
    #[test]
    fn fathi_is_l_lt_with_solution_e1() {
        let n = 7;
        let p = fathi(n);
        // L unit lower triangular with 2 below the diagonal; M = L Lᵀ entry by entry.
        let l = |i: usize, k: usize| -> f64 {
            match i.cmp(&k) {
                std::cmp::Ordering::Equal => 1.0,
                std::cmp::Ordering::Greater => 2.0,
                std::cmp::Ordering::Less => 0.0,
            }
        };
        for i in 0..n {
            for j in 0..n {
                let llt: f64 = (0..n).map(|k| l(i, k) * l(j, k)).sum();
                assert_eq!(p.m().get(i, j), llt, "M[{i},{j}]");
            }
        }
        assert!(cholesky_ok(rows(p.m())));
        let mut z = vec![0.0; n];
        z[0] = 1.0;
        let w = p.w(&z);
        assert_eq!(w[0], 0.0);
        assert!(w[1..].iter().all(|&x| x == 1.0));
    }

    #[test]
    fn degenerate_has_its_planted_degenerate_solution() {
        let n = 30;
        let p = degenerate(n, 5);
        let z = degenerate_solution(n, 5);
        assert!(same(&p, &degenerate(n, 5)));
        assert!(cholesky_ok(rows(p.m())));
        let w = p.w(&z);
        let scale = p.q().iter().fold(1.0f64, |m, x| m.max(x.abs()));
        let mut classes = [0; 3];
        for i in 0..n {
            assert!(z[i] >= 0.0 && w[i] >= -1e-13 * scale && z[i].min(w[i]).abs() <= 1e-13 * scale);
            let k = if z[i] > 0.0 {
                0
            } else if w[i] > 1e-13 * scale {
                1
            } else {
                2
            };
            classes[k] += 1;
        }
        assert!(classes.iter().all(|&c| c > 0), "{classes:?}");
    }

    #[test]
    fn friction_contact_is_j_minv_jt_shaped_and_valid() {
        for dim in [2, 3] {
            let p = friction_contact(dim, 25, 3);
            assert_eq!((p.dim, p.size(), p.mu.len()), (dim, 25 * dim, 25));
            assert!(p.validate().is_ok());
            assert!(p.w.asymmetry(0.0).is_none());
            // PSD: Cholesky of W + εI succeeds; normal diagonal entries are positive.
            let mut w = rows(&p.w);
            let shift = 1e-10 * p.w.max_abs();
            for (i, row) in w.iter_mut().enumerate() {
                row[i] += shift;
            }
            assert!(cholesky_ok(w));
            assert!((0..25).all(|c| p.w.get(dim * c, dim * c) > 0.0));
            assert!(p.q.iter().any(|&x| x < 0.0) && p.q.iter().any(|&x| x > 0.0));
            let again = friction_contact(dim, 25, 3);
            assert_eq!((rows(&again.w), &again.q, &again.mu), (rows(&p.w), &p.q, &p.mu));
        }
        let (t1, t2) = tangents([0.0, 0.6, 0.8]);
        let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        assert!(dot(t1, [0.0, 0.6, 0.8]).abs() < 1e-15 && dot(t1, t2).abs() < 1e-15);
        assert!((dot(t1, t1) - 1.0).abs() < 1e-15 && (dot(t2, t2) - 1.0).abs() < 1e-15);
    }

    #[test]
    fn builtin_problems_cover_every_kind_with_unique_names() {
        let all = builtin_problems();
        let mut names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for kind in ["lcp", "mlcp", "ncp", "fc2d", "fc3d"] {
            assert!(all.iter().any(|p| p.kind == kind), "{kind}");
        }
        for p in &all {
            assert_eq!(p.kind, p.problem.kind_name(), "{}", p.name);
            if let Some(c) = p.name.strip_prefix("fc3d-contact-").or(p.name.strip_prefix("fc2d-contact-")) {
                let dim: usize = p.name[2..3].parse().unwrap();
                assert_eq!(p.problem.n(), dim * c.parse::<usize>().unwrap(), "{}", p.name);
            } else if let Ok(size) = p.name.rsplit('-').next().unwrap().parse::<usize>() {
                assert_eq!(p.problem.n(), size, "{}", p.name);
            }
        }
        assert_eq!(all.iter().filter(|p| p.kind == "ncp").count(), perp_ncp::samples::all().len());
        // The README's count: 22 generated problems and one harvested from each of 3 scenes
        // (a scene that fails to run stops the suite; it cannot shrink in silence).
        let harvested = all.iter().filter(|p| p.name.contains("-t")).count();
        assert_eq!((all.len(), harvested), (25, 3));
    }
}
