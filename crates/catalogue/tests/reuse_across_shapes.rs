//! Issue 36, item 2: a kept solver sees problems of changing shape.
//!
//! Every solver of every family in [`ENTRIES`] (with its defaults, and again with the
//! parameters that force its sparse linear algebra on small problems) is built once and kept
//! across a sequence of small generated problems that grow, shrink, change their sparsity
//! pattern, go from dense to sparse storage and back, and (frictional problems) from 2-D to
//! 3-D and from one friction law to another, alternating. Each answer must be the answer of a
//! solver built fresh for that problem: the same `Ok`/`Err` (the same message), status,
//! iterations, counters, message, and z (r) and w (u) bit for bit.
//!
//! `bdiff-newton` remembers its last solution (a hot start, by design: it starts from it when
//! it is better than the caller's start), so the kept `bdiff-newton` is told to
//! [`Solver::forget`] before each solve; `forget` keeps the workspaces, so these still see
//! every change of shape. A second pass runs it without `forget` and asks only for answers
//! (no panic, the same `Ok`/`Err` as a fresh solver).

use perp_catalogue::{build, Answer, Family, NcpInstance, ParamKind, Params, Problem, Solver, ENTRIES};
use perp_cones::{ConeSpec, FrictionContactProblem};
use perp_core::{Matrix, Settings, SolveReport};
use perp_lcp::Lcp;
use perp_ncp::mlcp::Mlcp;

/// Solvers that remember earlier answers on purpose (see the module docs).
const HOT_START: [&str; 1] = ["bdiff-newton"];

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [a, b).
    fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// `n × n` from row-major values: dense, or sparse (CSR) keeping the nonzeros.
fn matrix(n: usize, a: &[f64], sparse: bool) -> Matrix {
    if sparse {
        let t: Vec<(usize, usize, f64)> =
            (0..n * n).filter(|&k| a[k] != 0.0).map(|k| (k / n, k % n, a[k])).collect();
        Matrix::from_triplets(n, n, &t).unwrap()
    } else {
        Matrix::from_row_major(n, n, a).unwrap()
    }
}

/// A symmetric, strictly diagonally dominant `n × n` matrix whose row i couples to
/// `i ± k (mod n)` for each k of `offsets` (the sparsity pattern).
fn dominant(n: usize, offsets: &[usize], rng: &mut Rng) -> Vec<f64> {
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for &k in offsets {
            let j = (i + k) % n;
            if j != i {
                let v = rng.uniform(-0.5, 0.5);
                a[i * n + j] = v;
                a[j * n + i] = v;
            }
        }
    }
    for i in 0..n {
        let off: f64 = (0..n).filter(|&j| j != i).map(|j| a[i * n + j].abs()).sum();
        a[i * n + i] = off + rng.uniform(0.5, 2.0);
    }
    a
}

fn lcp(n: usize, sparse: bool, offsets: &[usize], seed: u64) -> Problem {
    let mut rng = Rng(seed);
    let m = matrix(n, &dominant(n, offsets, &mut rng), sparse);
    let q = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
    Problem::Lcp(Lcp::new(m, q).unwrap())
}

fn mlcp(n: usize, sparse: bool, offsets: &[usize], seed: u64) -> Problem {
    let mut rng = Rng(seed);
    let m = matrix(n, &dominant(n, offsets, &mut rng), sparse);
    let q = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let free = (0..n).map(|i| i % 3 == 0).collect();
    Problem::Mlcp(Mlcp::new(m, q, free).unwrap())
}

/// A Delassus-shaped W = J Jᵀ + I/10 of `nc` contacts of dimension `dim`, contact i's rows of
/// J reaching the bodies i and i + k (mod nc) for each k of `offsets`; q with approaching
/// normal velocities.
fn friction(
    dim: usize,
    nc: usize,
    sparse: bool,
    offsets: &[usize],
    cones: Option<ConeSpec>,
    seed: u64,
) -> Problem {
    friction_skew(dim, nc, sparse, offsets, cones, 0.0, seed)
}

/// [`friction`] with `skew · (K − Kᵀ)` added on W's pattern (K random): a W that is not
/// symmetric (admm then factorizes W + ρI by LU instead of Cholesky).
fn friction_skew(
    dim: usize,
    nc: usize,
    sparse: bool,
    offsets: &[usize],
    cones: Option<ConeSpec>,
    skew: f64,
    seed: u64,
) -> Problem {
    let mut rng = Rng(seed);
    let n = dim * nc;
    let mut j = vec![0.0; n * n];
    for c in 0..nc {
        let bodies = std::iter::once(c).chain(offsets.iter().map(|k| (c + k) % nc));
        for b in bodies {
            for r in 0..dim {
                for s in 0..dim {
                    j[(dim * c + r) * n + dim * b + s] += rng.uniform(-1.0, 1.0);
                }
            }
        }
    }
    let mut w = vec![0.0; n * n];
    for r in 0..n {
        for s in 0..n {
            w[r * n + s] = (0..n).map(|k| j[r * n + k] * j[s * n + k]).sum();
        }
        w[r * n + r] += 0.1;
    }
    for r in 0..n {
        for s in 0..r {
            if w[r * n + s] != 0.0 {
                let k = skew * rng.uniform(-1.0, 1.0);
                w[r * n + s] += k;
                w[s * n + r] -= k;
            }
        }
    }
    let q =
        (0..n).map(|i| if i % dim == 0 { rng.uniform(-1.0, 0.2) } else { rng.uniform(-0.5, 0.5) }).collect();
    let mu = (0..nc).map(|_| rng.uniform(0.2, 0.8)).collect();
    let mut p = FrictionContactProblem::new(dim, matrix(n, &w, sparse), q, mu).unwrap();
    if let Some(spec) = cones {
        p = p.with_cones(vec![spec; nc]).unwrap();
    }
    Problem::Friction(p)
}

/// The sequence a kept solver of `family` sees: grow, shrink, a new pattern, dense ↔ sparse
/// (and 2-D ↔ 3-D, other laws), alternating, and back to the first problem.
/// `bodies` particles of 3 velocities (masses 1 to 3) falling on the ground with random
/// tangential velocities, one Coulomb contact each, and with `coupled` a contact between each
/// even particle and the next: a global frictional problem (M, H, f, b, μ).
fn global(bodies: usize, coupled: bool, sparse: bool, seed: u64) -> Problem {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let n = 3 * bodies;
    let masses: Vec<f64> = (0..bodies).map(|_| 1.0 + 2.0 * rnd()).collect();
    let mut m = vec![0.0; n * n];
    for (i, &mass) in masses.iter().enumerate() {
        for k in 0..3 {
            m[(3 * i + k) * n + 3 * i + k] = mass;
        }
    }
    // Columns of H: (normal z, tangents x, y) per contact.
    let mut cols: Vec<Vec<f64>> = Vec::new();
    for i in 0..bodies {
        for k in [2, 0, 1] {
            let mut c = vec![0.0; n];
            c[3 * i + k] = 1.0;
            cols.push(c);
        }
    }
    if coupled {
        for i in (0..bodies.saturating_sub(1)).step_by(2) {
            for k in [2, 0, 1] {
                let mut c = vec![0.0; n];
                c[3 * (i + 1) + k] = 1.0;
                c[3 * i + k] = -1.0;
                cols.push(c);
            }
        }
    }
    let size = cols.len();
    let h: Vec<f64> = (0..n).flat_map(|r| cols.iter().map(move |c| c[r])).collect();
    let (mut mm, mut hm) =
        (Matrix::from_row_major(n, n, &m).unwrap(), Matrix::from_row_major(n, size, &h).unwrap());
    if sparse {
        (mm, hm) = (Matrix::Sparse(mm.to_csr()), Matrix::Sparse(hm.to_csr()));
    }
    let f: Vec<f64> =
        (0..n).map(|j| masses[j / 3] * if j % 3 == 2 { -0.1 - rnd() } else { 2.0 * rnd() - 1.0 }).collect();
    let g = perp_cones::GlobalFrictionContactProblem::new(3, mm, hm, f, vec![0.0; size], vec![0.5; size / 3])
        .unwrap();
    Problem::GlobalFriction(g)
}

/// The sequence of an entry: its family's, or global problems for a solver of the global form.
fn sequence_for(e: &perp_catalogue::Entry) -> Vec<(String, Problem)> {
    if !matches!(e.build, perp_catalogue::Build::Global(_)) {
        return sequence(e.family);
    }
    [
        ("sparse 4 bodies", global(4, false, true, 41)),
        ("sparse 9 bodies, coupled", global(9, true, true, 42)),
        ("dense 2 bodies", global(2, false, false, 43)),
        ("sparse 4 bodies, coupled", global(4, true, true, 44)),
        ("sparse 1 body", global(1, false, true, 45)),
        ("sparse 4 bodies again", global(4, false, true, 41)),
    ]
    .into_iter()
    .map(|(s, p)| (s.to_string(), p))
    .collect()
}

fn sequence(family: Family) -> Vec<(String, Problem)> {
    let named = |v: Vec<(&str, Problem)>| v.into_iter().map(|(s, p)| (s.to_string(), p)).collect();
    match family {
        Family::Lcp => named(vec![
            ("sparse 30, pattern A", lcp(30, true, &[1], 1)),
            ("sparse 10, pattern A", lcp(10, true, &[1], 2)),
            ("sparse 30, pattern B", lcp(30, true, &[2, 5], 3)),
            ("dense 10", lcp(10, false, &[1, 3], 4)),
            ("sparse 12, pattern A", lcp(12, true, &[1], 5)),
            ("dense 30", lcp(30, false, &[1, 2, 3], 6)),
            ("sparse 10, pattern B", lcp(10, true, &[2, 5], 7)),
            ("sparse 30, pattern A again", lcp(30, true, &[1], 1)),
        ]),
        Family::Mcp => named(vec![
            ("sparse MLCP 30, pattern A", mlcp(30, true, &[1], 11)),
            ("sparse MLCP 10, pattern A", mlcp(10, true, &[1], 12)),
            ("NCP josephy (4)", Problem::Ncp(NcpInstance::sample("josephy").unwrap())),
            ("sparse MLCP 30, pattern B", mlcp(30, true, &[2, 5], 13)),
            ("dense MLCP 10", mlcp(10, false, &[1, 3], 14)),
            ("NCP nash-cournot", Problem::Ncp(NcpInstance::sample("nash-cournot").unwrap())),
            ("sparse MLCP 12, pattern A", mlcp(12, true, &[1], 15)),
            ("dense MLCP 30", mlcp(30, false, &[1, 2], 16)),
            ("sparse MLCP 30, pattern A again", mlcp(30, true, &[1], 11)),
        ]),
        Family::Friction => named(vec![
            ("3-D sparse 10 contacts, pattern A", friction(3, 10, true, &[1], None, 21)),
            ("3-D sparse 3 contacts, pattern A", friction(3, 3, true, &[1], None, 22)),
            ("2-D dense 5 contacts", friction(2, 5, false, &[1], None, 23)),
            ("3-D sparse 10 contacts, pattern B", friction(3, 10, true, &[3], None, 24)),
            ("2-D sparse 12 contacts", friction(2, 12, true, &[1], None, 25)),
            ("3-D dense 4 contacts", friction(3, 4, false, &[1], None, 26)),
            (
                "3-D sparse 6 contacts, pyramids",
                friction(3, 6, true, &[1], Some(ConeSpec::Pyramid { facets: 6 }), 27),
            ),
            (
                "3-D sparse 6 contacts, elliptic",
                friction(3, 6, true, &[1], Some(ConeSpec::Elliptic { e: vec![1.0, 0.5] }), 28),
            ),
            ("2-D sparse 3 contacts", friction(2, 3, true, &[1], None, 29)),
            ("3-D sparse 10 contacts, not symmetric", friction_skew(3, 10, true, &[1], None, 0.05, 30)),
            ("3-D sparse 3 contacts, not symmetric", friction_skew(3, 3, true, &[2], None, 0.05, 31)),
            ("2-D sparse 8 contacts, not symmetric", friction_skew(2, 8, true, &[3], None, 0.05, 32)),
            ("3-D sparse 10 contacts, pattern A again", friction(3, 10, true, &[1], None, 21)),
        ]),
    }
}

/// The defaults, then each other option of every choice and the other value of every flag,
/// one at a time (the sparse paths of the Newton methods on these small problems:
/// `sparse=yes`, `linear=iterative`; nsgs's `colouring`, …), and projected Newton's
/// `dense_limit=0` (its sparse Cholesky).
fn parameter_sets(e: &perp_catalogue::Entry) -> Vec<Params> {
    let mut sets = vec![Params::new()];
    for p in e.params {
        match p.kind {
            ParamKind::Choice { default, options } => {
                sets.extend(options.iter().filter(|o| **o != default).map(|o| Params::new().set(p.name, o)))
            }
            ParamKind::Flag { default } => sets.push(Params::new().set(p.name, !default)),
            ParamKind::Int { .. } if p.name == "dense_limit" => sets.push(Params::new().set(p.name, 0)),
            _ => {}
        }
    }
    sets
}

type Outcome = Result<(Vec<f64>, Vec<f64>, SolveReport), String>;

fn solve(sv: &mut Solver, p: &Problem, kept: &mut Answer) -> Outcome {
    let s = Settings { tol: 1e-8, max_iter: 300, ..Settings::default() };
    match sv.solve_into(p, false, kept, &s) {
        Ok(()) => Ok((kept.z.clone(), kept.w.clone(), kept.report.clone())),
        Err(e) => Err(e.to_string()),
    }
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Compares a kept solver's outcome with a fresh one's; `None` when they agree.
fn difference(kept: &Outcome, fresh: &Outcome, values: bool) -> Option<String> {
    match (kept, fresh) {
        (Err(a), Err(b)) if a == b => None,
        (Ok(_), Ok(_)) if !values => None,
        (Ok((z, w, r)), Ok((fz, fw, fr))) => {
            let a = (r.status, r.iterations, r.pivots, r.factorizations, r.line_search_steps, &r.message);
            let b =
                (fr.status, fr.iterations, fr.pivots, fr.factorizations, fr.line_search_steps, &fr.message);
            if a != b {
                Some(format!("kept {a:?}, fresh {b:?}"))
            } else if bits(z) != bits(fz) || bits(w) != bits(fw) {
                Some("the same report but other answer vectors".into())
            } else if r.error.to_bits() != fr.error.to_bits() {
                Some(format!("error {:e} kept, {:e} fresh", r.error, fr.error))
            } else {
                None
            }
        }
        _ => Some(format!(
            "kept {}, fresh {}",
            kept.as_ref().map_or_else(|e| format!("Err({e})"), |_| "Ok".into()),
            fresh.as_ref().map_or_else(|e| format!("Err({e})"), |_| "Ok".into())
        )),
    }
}

/// Runs the kept solver across its family's sequence (twice: the second time round it starts
/// from the last problem's workspace) and lists every problem where it differs from a fresh
/// solver; a panic is caught and listed too (and the run goes on with a new kept solver).
/// Returns how many of the fresh solves ended `Solved`.
fn run_kept(
    e: &perp_catalogue::Entry,
    params: &Params,
    forget: bool,
    values: bool,
    failures: &mut Vec<String>,
) -> usize {
    let seq = sequence_for(e);
    let mut kept = build(e.family, e.name, params).unwrap();
    let mut answer = Answer::empty();
    let mut solved = 0;
    for (round, (what, p)) in seq.iter().chain(seq.iter()).enumerate() {
        let label =
            format!("{:?} {} {:?} (forget {forget}), problem {round}: {what}", e.family, e.name, params);
        if forget {
            kept.forget();
        }
        let k = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| solve(&mut kept, p, &mut answer)));
        let mut fresh = build(e.family, e.name, params).unwrap();
        let f = solve(&mut fresh, p, &mut Answer::empty());
        if matches!(&f, Ok((_, _, r)) if r.status == perp_core::Status::Solved) {
            solved += 1;
        }
        let Ok(k) = k else {
            failures.push(format!("{label}: the kept solver panicked"));
            // Go on with a new kept solver.
            kept = build(e.family, e.name, params).unwrap();
            continue;
        };
        if let Some(d) = difference(&k, &f, values) {
            failures.push(format!("{label}: {d}"));
        }
    }
    solved
}

#[test]
fn every_kept_solver_answers_as_a_fresh_one_across_shapes() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for e in ENTRIES {
        for params in parameter_sets(e) {
            // (bdiff-newton's other parameter set is `hot_start=false`: nothing to forget.)
            let hot = HOT_START.contains(&e.name) && params.is_empty();
            let solved = run_kept(e, &params, hot, true, &mut failures);
            let total = 2 * sequence_for(e).len();
            eprintln!("{:?} {} {:?}: {solved} of {total} solved", e.family, e.name, params);
            // With its defaults, every solver solves most of the sequence: the answers compared
            // are answers.
            if params.is_empty() {
                assert!(2 * solved >= total, "{} {:?}: only {solved} of {total} solved", e.name, params);
            }
            if hot {
                run_kept(e, &params, false, false, &mut failures);
            }
            runs += 1;
        }
    }
    // Every family's every solver ran (and the sparse variants of the Newton methods).
    assert!(runs > ENTRIES.len(), "{runs} runs");
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}
