//! Problems shared by the `solve_into` tests: deterministic dense SPD and sparse contact-like
//! LCPs whose values can be replaced in place.
#![allow(dead_code)]

use perp_core::{Matrix, SolveReport};
use perp_lcp::Lcp;

/// A deterministic generator of numbers in [−1, 1).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// Row-major values of a dense SPD matrix `A Aᵀ + I` (A random n × n).
pub fn spd_values(n: usize, rng: &mut Rng) -> Vec<f64> {
    let a: Vec<f64> = (0..n * n).map(|_| rng.next()).collect();
    perp_lcp::samples::gram_row_major(&a, n, n, None, 1.0, 1.0)
}

/// Triplets of a sparse contact-like matrix: n/3 contacts of 3 rows (normal, two tangents),
/// each a dense SPD 3 × 3 block, coupled to the next contact by a weak block (diagonally
/// dominant, so SPD). `n` must be a multiple of 3.
pub fn contact_triplets(n: usize, rng: &mut Rng) -> Vec<(usize, usize, f64)> {
    assert_eq!(n % 3, 0);
    let mut t = Vec::new();
    for c in 0..n / 3 {
        let b = 3 * c;
        for i in 0..3 {
            for j in 0..3 {
                let v = if i == j { 4.0 + rng.next().abs() } else { 0.3 * rng.next() };
                t.push((b + i, b + j, v));
            }
        }
        if b + 3 < n {
            for i in 0..3 {
                let v = 0.2 * rng.next();
                t.push((b + i, b + 3 + i, v));
                t.push((b + 3 + i, b + i, v));
            }
        }
    }
    t
}

/// The stored values of `p`'s M in the order [`Lcp::set_m_values`] takes (row-major for
/// dense, storage order for sparse).
pub fn m_values(p: &Lcp) -> Vec<f64> {
    match p.m() {
        Matrix::Dense(a) => (0..p.n()).flat_map(|i| (0..p.n()).map(move |j| a[(i, j)])).collect(),
        Matrix::Sparse(s) => s.data().to_vec(),
    }
}

/// A random q.
pub fn rand_q(n: usize, rng: &mut Rng) -> Vec<f64> {
    (0..n).map(|_| 3.0 * rng.next()).collect()
}

/// The dense SPD LCP of size n.
pub fn dense_spd(n: usize, seed: u64) -> Lcp {
    let mut rng = Rng(seed);
    let m = spd_values(n, &mut rng);
    Lcp::new(Matrix::from_row_major(n, n, &m).unwrap(), rand_q(n, &mut rng)).unwrap()
}

/// The sparse (CSR) contact-like LCP of size n.
pub fn sparse_contact(n: usize, seed: u64) -> Lcp {
    let mut rng = Rng(seed);
    let t = contact_triplets(n, &mut rng);
    Lcp::new(Matrix::from_triplets(n, n, &t).unwrap(), rand_q(n, &mut rng)).unwrap()
}

/// The same problem with M stored by columns (CSC).
pub fn to_csc(p: &Lcp) -> Lcp {
    Lcp::new(Matrix::Sparse(p.m().to_csr().to_csc()), p.q().to_vec()).unwrap()
}

/// The same problem with the box `−1 ≤ z ≤ 1`.
pub fn boxed(p: &Lcp) -> Lcp {
    let n = p.n();
    Lcp::with_bounds(p.m().clone(), p.q().to_vec(), vec![-1.0; n], vec![1.0; n]).unwrap()
}

/// A fresh copy of `p` (new storage), as a caller without `solve_into` would build it.
pub fn fresh(p: &Lcp) -> Lcp {
    match p.bounds() {
        None => Lcp::new(p.m().clone(), p.q().to_vec()).unwrap(),
        Some((lo, hi)) => Lcp::with_bounds(p.m().clone(), p.q().to_vec(), lo.to_vec(), hi.to_vec()).unwrap(),
    }
}

/// The bit patterns of `v`, for comparisons bit for bit.
pub fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Asserts that an in-place answer `(z, w, report)` is `sol`'s bit for bit: the vectors, the
/// report's counts, status, error, residual, message and history.
pub fn assert_same_answer(z: &[f64], w: &[f64], report: &SolveReport, sol: &perp_lcp::Solution, label: &str) {
    assert_eq!(bits(z), bits(&sol.z), "{label}: z");
    assert_eq!(bits(w), bits(&sol.w), "{label}: w");
    let r = &sol.report;
    assert_eq!(
        (&report.solver, report.status, report.iterations, report.pivots, report.factorizations),
        (&r.solver, r.status, r.iterations, r.pivots, r.factorizations),
        "{label}"
    );
    assert_eq!(
        (report.error.to_bits(), report.residual_inf.to_bits()),
        (r.error.to_bits(), r.residual_inf.to_bits()),
        "{label}"
    );
    assert_eq!((&report.message, bits(&report.history)), (&r.message, bits(&r.history)), "{label}");
}
