//! The random rigid-body model behind [`contact`] (and `perp_cones::samples::friction_contact`):
//! free bodies in 3-D with random masses, inertias and lever arms, contacts against the ground
//! or a second body.

use super::lcp;
use crate::Lcp;
use perp_core::Matrix;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The generators' random stream: `ChaCha8Rng` seeded with `seed` (fixed across platforms).
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Probability that a contact is with the fixed ground rather than with a second body.
pub const GROUND_PROBABILITY: f64 = 0.25;

/// The rigid-body system behind [`contact`]: per-dof inverse masses, each contact's Jacobian
/// blocks, the free velocity.
pub(crate) struct ContactSystem {
    /// Number of bodies.
    pub(crate) bodies: usize,
    /// Inverse mass matrix diagonal, 6 per body: 1/m (three times), then 1/I_x, 1/I_y, 1/I_z.
    pub(crate) minv: Vec<f64>,
    /// For each body, the contacts touching it (in increasing contact order) with the 1×6
    /// Jacobian block of that contact on that body.
    pub(crate) touching: Vec<Vec<(usize, [f64; 6])>>,
    /// Free velocity, 6 per body.
    pub(crate) v_free: Vec<f64>,
}

/// A uniformly distributed unit vector (rejection sampling in the unit ball).
pub fn unit_vector(r: &mut ChaCha8Rng) -> [f64; 3] {
    loop {
        let v = [r.random_range(-1.0..=1.0), r.random_range(-1.0..=1.0), r.random_range(-1.0..=1.0)];
        let s: f64 = v.iter().map(|x| x * x).sum();
        if s > 1e-4 && s <= 1.0 {
            let l = s.sqrt();
            return [v[0] / l, v[1] / l, v[2] / l];
        }
    }
}

/// A contact point's lever arm: a random direction ([`unit_vector`]) of length U[0.1, 1].
pub fn lever(r: &mut ChaCha8Rng) -> [f64; 3] {
    let d = unit_vector(r);
    let l: f64 = r.random_range(0.1..=1.0);
    [l * d[0], l * d[1], l * d[2]]
}

/// The cross product `a × b`.
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// `sign · [nᵀ, (r × n)ᵀ]`: the normal relative velocity contributed by a body moving with
/// (v, ω) at lever arm r is `n·(v + ω × r) = nᵀv + (r × n)ᵀω`.
pub fn jacobian_block(normal: [f64; 3], lever: [f64; 3], sign: f64) -> [f64; 6] {
    let rn = cross(lever, normal);
    [sign * normal[0], sign * normal[1], sign * normal[2], sign * rn[0], sign * rn[1], sign * rn[2]]
}

/// Diagonal inverse masses of `bodies` random rigid bodies: 1/m three times (m ∈ [0.5, 2]),
/// then three inverse principal inertias (I ∈ [0.05, 0.5]).
pub fn inverse_masses(r: &mut impl Rng, bodies: usize) -> Vec<f64> {
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

/// `n_contacts` contacts on ⌈n_contacts/2⌉ random bodies (see [`contact`]).
pub(crate) fn contact_system(n_contacts: usize, seed: u64) -> ContactSystem {
    let mut r = rng(seed);
    let bodies = n_contacts.div_ceil(2).max(1);
    let minv = inverse_masses(&mut r, bodies);
    let mut touching = vec![Vec::new(); bodies];
    for c in 0..n_contacts {
        let a = r.random_range(0..bodies);
        let ground = bodies == 1 || r.random_bool(GROUND_PROBABILITY);
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
/// let p = perp_lcp::samples::contact(20, 3);
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
/// use perp_lcp::samples::{contact, contact_dense};
/// let (s, d) = (contact(12, 5), contact_dense(12, 5));
/// assert!(!d.m().is_sparse());
/// assert_eq!(s.m().get(3, 4), d.m().get(3, 4));
/// assert_eq!(s.q(), d.q());
/// ```
pub fn contact_dense(n_contacts: usize, seed: u64) -> Lcp {
    let (w, q) = contact_system(n_contacts, seed).assemble(n_contacts);
    lcp(Matrix::Dense(w.to_dense()), q)
}
