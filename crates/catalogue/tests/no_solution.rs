//! Issue 36, item 1: problems that have **no** solution are never `Solved`.
//!
//! A particle (2 or 3 velocities, mass matrix M) touches walls whose normals have a positive
//! combination equal to zero, `Σ αₖ nₖ = 0` with `αₖ > 0` (two walls facing each other, or
//! three around it), and the data push it into all of them: `Σ αₖ b_{N,k} < 0`. Then
//! `Σ αₖ u_{N,k} = Σ αₖ b_{N,k} < 0` whatever r is (u = Hᵀ M⁻¹ (f + H r) + b), so no r
//! satisfies Signorini's condition `u_N ≥ 0` at every contact, with or without friction. A
//! second kind has a contact of zero normal stiffness (its normal moves nothing, W's normal
//! row and column are zero) pushed in (`q_N < 0`): `u_N = q_N < 0` for every r. Either kind may
//! come with further, harmless contacts, in 2-D and 3-D, with μ from 0 to 1e3, the data
//! scaled by `s_W, s_q ∈ {1e-6, 1, 1e6}`, at tolerances 1e-6 to 1e-12, in local and in
//! global form.
//!
//! Before the fix prox, ac-newton, fb-newton, admm and apgd called such problems `Solved`:
//! the reactions grow without bound along the null space of W while u_N stays at −1, and both
//! Siconos' measure and the physical check of the day divided by a scale that grows with ‖r‖.
//!
//! The frictionless normal part is an LCP `(W_NN, q_N)` with no solution either; every LCP
//! solver and every MCP solver (on it as an MLCP without equality rows) is held to the same.

use perp_catalogue::{build, Family, Params, Problem, FRICTION_NAMES, LCP_NAMES, MCP_NAMES};
use perp_cones::global::GlobalFrictionContactProblem;
use perp_cones::FrictionContactProblem;
use perp_core::{Matrix, Settings, Status};
use perp_lcp::Lcp;
use perp_ncp::mlcp::Mlcp;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random unit vector of `d` entries.
fn unit(rng: &mut ChaCha8Rng, d: usize) -> Vec<f64> {
    loop {
        let v: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
        let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if n > 0.2 {
            return v.iter().map(|x| x / n).collect();
        }
    }
}

/// An orthonormal frame whose first vector is `n` (Gram–Schmidt on random vectors).
fn frame(rng: &mut ChaCha8Rng, n: &[f64]) -> Vec<Vec<f64>> {
    let d = n.len();
    let mut f = vec![n.to_vec()];
    while f.len() < d {
        let mut v = unit(rng, d);
        for b in &f {
            let dot: f64 = v.iter().zip(b).map(|(a, c)| a * c).sum();
            v.iter_mut().zip(b).for_each(|(a, c)| *a -= dot * c);
        }
        let nv = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if nv > 0.1 {
            f.push(v.iter().map(|x| x / nv).collect());
        }
    }
    f
}

/// The kinds of problems without a solution.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Two walls facing each other, both pushing in.
    Squeezed,
    /// Three walls whose normals combine positively to zero.
    Surrounded,
    /// A contact whose normal moves nothing, pushed in.
    ZeroStiffness,
}

/// A global problem of `kind` (its local reduction has no solution either), from `seed`.
fn infeasible(kind: Kind, dim: usize, extra: usize, mu: f64, seed: u64) -> GlobalFrictionContactProblem {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // The walls' normals and the weights of their vanishing combination.
    let (normals, alphas): (Vec<Vec<f64>>, Vec<f64>) = match kind {
        Kind::Squeezed => {
            let n = unit(&mut rng, dim);
            let m: Vec<f64> = n.iter().map(|x| -x).collect();
            (vec![n, m], vec![1.0, 1.0])
        }
        Kind::Surrounded => {
            let (n1, n2) = (unit(&mut rng, dim), unit(&mut rng, dim));
            let (a, b) = (rng.random_range(0.2..2.0), rng.random_range(0.2..2.0));
            let s: Vec<f64> = n1.iter().zip(&n2).map(|(x, y)| -(a * x + b * y)).collect();
            let ns = s.iter().map(|x| x * x).sum::<f64>().sqrt();
            let n3: Vec<f64> = s.iter().map(|x| x / ns).collect();
            (vec![n1, n2, n3], vec![a, b, ns])
        }
        Kind::ZeroStiffness => (vec![vec![0.0; dim]], vec![1.0]),
    };
    let nc = normals.len() + extra;
    // H's columns: per contact the normal, then the tangents (a frame around the normal; the
    // zero-stiffness contact's tangents are a random frame's).
    let mut cols: Vec<Vec<f64>> = Vec::new();
    for k in 0..nc {
        let n = if k < normals.len() { normals[k].clone() } else { unit(&mut rng, dim) };
        let base = if n.iter().all(|x| *x == 0.0) { unit(&mut rng, dim) } else { n.clone() };
        let f = frame(&mut rng, &base);
        cols.push(n);
        cols.extend(f.into_iter().skip(1));
    }
    let mut h = vec![0.0; dim * dim * nc];
    for (j, c) in cols.iter().enumerate() {
        for i in 0..dim {
            h[i * dim * nc + j] = c[i];
        }
    }
    let masses: Vec<f64> = (0..dim).map(|_| rng.random_range(0.1..10.0)).collect();
    let mut m = vec![0.0; dim * dim];
    (0..dim).for_each(|i| m[i * dim + i] = masses[i]);
    let f: Vec<f64> = (0..dim).map(|_| rng.random_range(-1.0..1.0)).collect();
    let mut b: Vec<f64> = (0..dim * nc).map(|_| rng.random_range(-1.0..1.0)).collect();
    // Push into the walls: Σ αₖ b_{N,k} = −c < 0.
    let c = rng.random_range(0.1..2.0);
    let s: f64 = alphas.iter().enumerate().map(|(k, a)| a * b[dim * k]).sum();
    b[0] -= (s + c) / alphas[0];
    GlobalFrictionContactProblem::new(
        dim,
        Matrix::from_row_major(dim, dim, &m).unwrap(),
        Matrix::from_row_major(dim, dim * nc, &h).unwrap(),
        f,
        b,
        vec![mu; nc],
    )
    .unwrap()
}

/// `g` with W scaled by `sw` and q by `sq` (M/s_W, f·s_q/s_W, b·s_q).
fn scaled(g: &GlobalFrictionContactProblem, sw: f64, sq: f64) -> GlobalFrictionContactProblem {
    let n = g.dofs();
    let m: Vec<f64> = (0..n * n).map(|k| g.m.get(k / n, k % n) / sw).collect();
    GlobalFrictionContactProblem {
        m: Matrix::from_row_major(n, n, &m).unwrap(),
        f: g.f.iter().map(|v| v * sq / sw).collect(),
        b: g.b.iter().map(|v| v * sq).collect(),
        ..g.clone()
    }
}

/// The normal rows and columns of a local problem: W_NN and q_N.
fn normal_part(p: &FrictionContactProblem) -> (Matrix, Vec<f64>) {
    let (d, nc) = (p.dim, p.contacts());
    let w: Vec<f64> = (0..nc * nc).map(|k| p.w.get(d * (k / nc), d * (k % nc))).collect();
    (Matrix::from_row_major(nc, nc, &w).unwrap(), (0..nc).map(|i| p.q[d * i]).collect())
}

const KINDS: [Kind; 3] = [Kind::Squeezed, Kind::Surrounded, Kind::ZeroStiffness];
const SCALES: [f64; 3] = [1e-6, 1.0, 1e6];
const MUS: [f64; 5] = [0.0, 0.1, 0.5, 1.0, 1e3];
const TOLS: [f64; 3] = [1e-6, 1e-8, 1e-12];

/// Every solver of `family` on `problem`: the names of those that said `Solved`, with what
/// they returned.
fn solved_by(family: Family, names: &[&str], problem: &Problem, tol: f64) -> Vec<String> {
    let s = Settings { tol, ..Settings::default() };
    let mut out = Vec::new();
    for name in names {
        let mut solver = build(family, name, &Params::new()).unwrap();
        let a = match solver.solve(problem, None, &s) {
            Ok(a) => a,
            Err(_) => continue,
        };
        if a.report.status == Status::Solved {
            let rn = a.z.iter().map(|x| x * x).sum::<f64>().sqrt();
            let wmin = a.w.iter().copied().fold(f64::INFINITY, f64::min);
            out.push(format!(
                "{name}: solved, error {:.2e}, ‖z‖ = {rn:.2e}, min w = {wmin:.2e}, physical {:?}",
                a.report.error, a.report.physical_error
            ));
        }
    }
    out
}

/// The number of cases of each property: `PERP_NO_SOLUTION_CASES`, else 40.
fn cases() -> u32 {
    std::env::var("PERP_NO_SOLUTION_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(40)
}

/// What both properties draw: the kind of problem, its dimension and harmless extra contacts,
/// the seed of its geometry, the scales of W and q, and the tolerance.
#[derive(Clone, Copy, Debug)]
struct Case {
    kind: Kind,
    dim: usize,
    extra: usize,
    seed: u64,
    s_w: f64,
    s_q: f64,
    tol: f64,
}

impl Case {
    /// The case's global problem with friction coefficient `mu`, scaled by `s_W` and `s_q`.
    fn problem(&self, mu: f64) -> GlobalFrictionContactProblem {
        scaled(&infeasible(self.kind, self.dim, self.extra, mu, self.seed), self.s_w, self.s_q)
    }
}

/// The [`Case`]s: every kind, 2-D and 3-D, 0 to 2 extra contacts, every scale and tolerance.
fn any_case() -> impl Strategy<Value = Case> {
    (0u64..1_000_000, 0usize..3, 2usize..4, 0usize..3, 0usize..3, 0usize..3, 0usize..3).prop_map(
        |(seed, kind, dim, extra, sw, sq, tol)| Case {
            kind: KINDS[kind],
            dim,
            extra,
            seed,
            s_w: SCALES[sw],
            s_q: SCALES[sq],
            tol: TOLS[tol],
        },
    )
}

proptest! {
    // 40 cases each in the test command (about 20 s in a debug build); `PERP_NO_SOLUTION_CASES`
    // asks for more.
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Every frictional solver, local and global form (the global-form solvers on the global
    /// problems), 2-D and 3-D: never `Solved`.
    #[test]
    fn frictional_problems_without_a_solution_are_never_solved(
        c in any_case(),
        mu in 0usize..5,
        global in any::<bool>(),
    ) {
        let g = c.problem(MUS[mu]);
        let problem = if global {
            Problem::GlobalFriction(g.clone())
        } else {
            Problem::Friction(g.reduce().unwrap().0)
        };
        // A global problem's solvers: the local ones (on its reduction) and those of the
        // global form (`global-ac-newton`).
        let bad = solved_by(Family::Friction, problem.solvers(), &problem, c.tol);
        prop_assert!(bad.is_empty(), "{:?} dim {}, {} extra, μ {}, s_W {:e}, s_q {:e}, tol {:e}, global {global}:\n{}",
            c.kind, c.dim, c.extra, MUS[mu], c.s_w, c.s_q, c.tol, bad.join("\n"));
    }

    /// The frictionless normal part, an LCP without a solution: no LCP solver and no MCP
    /// solver (on it as an MLCP) says `Solved`.
    #[test]
    fn lcps_without_a_solution_are_never_solved(c in any_case()) {
        let (w, q) = normal_part(&c.problem(0.0).reduce().unwrap().0);
        let n = q.len();
        let lcp = Problem::Lcp(Lcp::new(w.clone(), q.clone()).unwrap());
        let mut bad = solved_by(Family::Lcp, LCP_NAMES, &lcp, c.tol);
        let mlcp = Problem::Mlcp(Mlcp::new(w, q, vec![false; n]).unwrap());
        bad.extend(solved_by(Family::Mcp, MCP_NAMES, &mlcp, c.tol));
        prop_assert!(bad.is_empty(), "{:?} dim {}, {} extra, s_W {:e}, s_q {:e}, tol {:e}:\n{}",
            c.kind, c.dim, c.extra, c.s_w, c.s_q, c.tol, bad.join("\n"));
    }
}

/// The reproduction: a particle squeezed between two penetrating walls, W = H Hᵀ
/// (M = I), q = (−1, 0, 0, −1, 0, 0), μ = 0.3. prox (the default) returned r = (1e8, 0, 0,
/// 1e8, 0, 0) with u_N = −1 as `Solved`.
#[test]
fn the_squeezed_particle_is_not_solved_by_any_solver() {
    let h = [
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [-1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, -1.0],
    ];
    let w: Vec<f64> = (0..36).map(|k| (0..3).map(|l| h[k / 6][l] * h[k % 6][l]).sum::<f64>()).collect();
    let p = FrictionContactProblem::new(
        3,
        Matrix::from_row_major(6, 6, &w).unwrap(),
        vec![-1.0, 0.0, 0.0, -1.0, 0.0, 0.0],
        vec![0.3, 0.3],
    )
    .unwrap();
    for tol in [1e-6, 1e-8, 1e-12] {
        let bad = solved_by(Family::Friction, FRICTION_NAMES, &Problem::Friction(p.clone()), tol);
        assert!(bad.is_empty(), "tol {tol:e}:\n{}", bad.join("\n"));
    }
}
