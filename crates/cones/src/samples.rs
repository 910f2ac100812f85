//! Seeded frictional contact problems for tests, docs, `perp bench` and the criterion benches
//! (as [`perp_lcp::samples`] holds LCPs): [`friction_contact`] builds 2-D or 3-D problems from
//! the random rigid-body model of [`perp_lcp::samples::contact`], [`friction_grid`] a large
//! sparse pile. Same `(size, seed)`, same problem bit for bit, everywhere.

use crate::{FrictionContactProblem, GlobalFrictionContactProblem};
use perp_core::Matrix;
use perp_lcp::samples::rigid::{
    cross, inverse_masses, jacobian_block, lever, rng, unit_vector, GROUND_PROBABILITY,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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
/// The rigid-body model is that of [`perp_lcp::samples::contact`] (⌈n_contacts/2⌉ free
/// bodies in 3-D, random masses, inertias, lever arms; each contact against the ground,
/// normal +z, with probability 1/4, else against a second body with a random normal), drawn
/// from its own stream. Each contact has a local frame (n, t₁, t₂), t₁ ⟂ n fixed by n, and
/// its `dim` Jacobian rows are `±[dᵀ, (r × d)ᵀ]` for d = n, t₁ (, t₂) — normal first, as
/// Siconos orders them. With
/// `dim = 2` only (n, t₁) are kept: a 2-D Coulomb law (fc2d) on the same kind of system.
/// W is symmetric positive semidefinite (exactly symmetric; singular when a body carries more
/// than 6/dim contacts, as in most Siconos problems) and stored sparse (CSR); q has mixed
/// signs (contacts approaching and separating, sliding in every direction).
///
/// # Panics
/// If `dim` is not 2 or 3.
///
/// ```
/// let p = perp_cones::samples::friction_contact(3, 10, 1);
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

/// A dense random global problem (`crate::global`) of `n` velocities and `nc` contacts of
/// dimension 3, drawn from `rng`: `M = L Lᵀ + I` with L's entries U[−1, 1], H's entries
/// U[−1, 1], f U[−2, 2], b U[−0.5, 0.5] and μ U[0.1, 1] (the first contact frictionless when
/// `frictionless_first`). With more velocities than contact rows the convex relaxation is
/// feasible.
pub fn dense_global(
    rng: &mut ChaCha8Rng,
    n: usize,
    nc: usize,
    frictionless_first: bool,
) -> GlobalFrictionContactProblem {
    let l: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let md: Vec<f64> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            (0..n).map(|q| l[i * n + q] * l[j * n + q]).sum::<f64>() + if i == j { 1.0 } else { 0.0 }
        })
        .collect();
    let hd: Vec<f64> = (0..n * nc * 3).map(|_| rng.random_range(-1.0..1.0)).collect();
    let f = (0..n).map(|_| rng.random_range(-2.0..2.0)).collect();
    let b = (0..nc * 3).map(|_| rng.random_range(-0.5..0.5)).collect();
    let mu = (0..nc)
        .map(|c| if c == 0 && frictionless_first { 0.0 } else { rng.random_range(0.1..1.0) })
        .collect();
    let m = Matrix::from_row_major(n, n, &md).expect("n × n from n² entries");
    let h = Matrix::from_row_major(n, nc * 3, &hd).expect("n × 3nc from 3n·nc entries");
    GlobalFrictionContactProblem::new(3, m, h, f, b, mu)
        .expect("generated global data are valid by construction")
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

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(m: &Matrix) -> Vec<Vec<f64>> {
        (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m.get(i, j)).collect()).collect()
    }

    #[test]
    fn friction_contact_is_j_minv_jt_shaped_and_valid() {
        for dim in [2, 3] {
            let p = friction_contact(dim, 25, 3);
            assert_eq!((p.dim, p.size(), p.mu.len()), (dim, 25 * dim, 25));
            assert!(p.validate().is_ok());
            assert!(p.w.asymmetry(0.0).is_none());
            // PSD: Cholesky of W + εI succeeds; normal diagonal entries are positive.
            assert!(p.w.is_positive_definite(1e-10 * p.w.max_abs()));
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
}
