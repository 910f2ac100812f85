//! Issue 15's goal, "no false `solved` on scaled and extreme variants": every frictional solver
//! of the catalogue on small frictional problems (the issue's `W = I, q = (−1, 2, 0)`, problems
//! of `perp::cones::samples::friction_contact`, and — with `PERP_SUITES` — small Siconos fc3d files), with
//! every contact's μ set to each of `MUS` and the data scaled as `W → s_W·W`, `q → s_q·q` for
//! `s_W, s_q ∈ {1e-8, 1, 1e8}`. Whenever a solver says `Solved`, the answer is checked here,
//! independently of the library's own checks ([`check`]); the same for the LCP solvers on
//! scaled `M, q` ([`lcp_check`]) and the MLCP solvers on scaled generated MLCPs
//! ([`mlcp_check`]).
//!
//! What it found (before the fixes it pins): with W scaled by 1e8 and q by 1e-8 (‖r‖ ≈ 1e-16)
//! the frictional physical check went absolute and let admm, fb-newton and lemke-pyramid
//! answers 1e-3 to 1 off pass; with M scaled by 1e8 the LCP entries of fb-newton and
//! bdiff-newton returned `Solved` on answers 20–50 % off in z (Siconos' LCP error 1e-9), and
//! on MLCPs 30 % off. The frictional `Solved` answers left are within 9.5e-5 (W scaled) and
//! 6e-7 (W unscaled) — imprecise, not wrong: the solvers stop on the peer measure, which
//! does not see them (`perp::core::measures::physical_bound`).
//!
//! `cargo test --test honest_sweep -- --nocapture` prints, per solver, how many
//! variants it solved and the worst figure of a solved answer;
//! `PERP_SUITES=$PWD/../shared/suites cargo test --release --test honest_sweep -- --include-ignored --nocapture`
//! adds the Siconos files.

use perp::catalogue::{build, Family, Params, Problem, FRICTION_NAMES, LCP_NAMES};
use perp::cones::FrictionContactProblem;
use perp::core::{Matrix, Settings, Status};
use perp::lcp::Lcp;

/// The friction coefficients of the sweep (every contact gets the same).
const MUS: [f64; 7] = [0.0, 1e-3, 0.3, 1.0, 1e3, 1e8, 1e12];
/// The data scales `s_W` and `s_q`.
const SCALES: [f64; 3] = [1e-8, 1.0, 1e8];
/// The solvers' tolerance.
const TOL: f64 = 1e-8;
/// What a `Solved` answer must meet here: the figure of [`check`] at most the library's own
/// bound at `TOL` (`perp::core::measures::physical_bound`, 1e-4; see there for its calibration,
/// which these tests measured), so a `Solved` that this independent check rejects is a false
/// `Solved` of the library.
const BOUND: f64 = 1e-4;

/// `x > b`, NaN counting as above.
fn above(x: f64, b: f64) -> bool {
    x.is_nan() || x > b
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// The physical figure of an answer `(r, u)`, `u = W r + q` recomputed here, computed without
/// the library's measures. Scale invariance: under `W → s_W·W, q → s_q·q` the exact answer
/// moves to `r·s_q/s_W`, `u·s_q`, so forces are measured against the force scale
/// `F = ‖r‖` and velocities against the data's velocity scale `V = ‖q‖ + ρ`, ρ the rounding
/// that computing `u = W r + q` may leave in u, `(n + 1) ε max_i Σ_j |W_ij r_j|` (it scales as
/// `s_q`). Not `max|W|·‖r‖` (issue 36): on a problem without a solution the reactions grow
/// without bound while u_N stays at −1, and a scale growing with them hid the penetration. Per
/// contact,
/// with `K` the Coulomb cone of coefficient μ and `û = u + μ‖u_T‖e_N` (De Saxcé):
///
/// * `r ∈ K`: `max(0, −r_N, ‖r_T‖ − μ r_N) / F` (for μ = 0, `‖r_T‖/F`);
/// * `û ∈ K*`: since `û_T = u_T` and `K* = {v : μ‖v_T‖ ≤ v_N}`, this is exactly `u_N ≥ 0`:
///   `max(0, −u_N) / V` (the penetration);
/// * complementarity `r·û = 0`. With `r ∈ K` and `û ∈ K*`, `r·û = r_N u_N + ‖u_T‖(μ r_N −
///   ‖r_T‖) + (‖r_T‖‖u_T‖ + r_T·u_T)`, a sum of three non-negative terms, each zero at a
///   solution: normal complementarity, "sliding only on the cone's boundary" and "friction
///   opposes sliding". They are checked one by one, each against `F·V`, and the second with the
///   slack `μ r_N − ‖r_T‖` divided by `√(1 + μ²)` — the Euclidean distance of `r` to the cone's
///   boundary. Not dividing would make the measure grow with μ at a sticking contact whose `u_T`
///   is round-off (`μ = 1e12` times `1e-16·V`), refusing right answers; `r·û` relative to
///   `‖r‖‖û‖` has the same defect once `μ‖u_T‖` dominates `‖û‖`.
///
/// With `F = 0` (`r = 0`) only the penetration is left, which is the whole condition then.
/// Scales below 1e-300 count as absent (the figure is then the absolute one). A problem whose
/// velocity scale V is at most ε (machine epsilon) is round-off dust — q is noise around 0, as in
/// `fc2d_granularflowonwall_00667_00000.dat` — and is judged absolutely, as the library does:
/// relative to itself such a "problem" asks for digits its data do not have.
fn check(p: &FrictionContactProblem, r: &[f64]) -> f64 {
    let d = p.dim;
    let mut u = vec![0.0; p.size()];
    p.w.mul_vec(r, &mut u);
    u.iter_mut().zip(&p.q).for_each(|(a, b)| *a += b);
    let f = norm(r);
    let csr = p.w.to_csr();
    let rho = csr
        .outer_iterator()
        .map(|row| row.iter().map(|(j, w)| (w * r[j]).abs()).sum::<f64>())
        .fold(0.0, f64::max)
        * (p.size() + 1) as f64
        * f64::EPSILON;
    let v = norm(&p.q) + rho;
    let dust = v <= f64::EPSILON;
    let rel = |x: f64, s: f64| {
        if x <= 0.0 {
            0.0
        } else if dust {
            x
        } else {
            x / s.max(1e-300)
        }
    };
    let mut worst = 0.0_f64;
    for i in 0..p.contacts() {
        let (ri, ui, mu) = (&r[d * i..d * (i + 1)], &u[d * i..d * (i + 1)], p.mu[i]);
        let (rn, un) = (ri[0], ui[0]);
        let (rt, ut) = (norm(&ri[1..]), norm(&ui[1..]));
        let rt_ut: f64 = ri[1..].iter().zip(&ui[1..]).map(|(a, b)| a * b).sum();
        let cone = (-rn).max(rt - mu * rn.max(0.0));
        let slack = (mu * rn - rt).max(0.0) / (1.0 + mu * mu).sqrt();
        worst = worst
            .max(rel(cone, f))
            .max(rel(-un, v))
            .max(rel((rn * un).abs(), f * v))
            .max(rel(ut * slack, f * v))
            .max(rel(rt * ut + rt_ut, f * v));
        if worst.is_nan() {
            return f64::NAN;
        }
    }
    worst
}

/// A copy of `m` with every entry multiplied by `s`.
fn scaled(m: &Matrix, s: f64) -> Matrix {
    match m {
        Matrix::Dense(d) => {
            let data: Vec<f64> =
                (0..d.ncols()).flat_map(|j| d.col_as_slice(j).iter().map(move |v| v * s)).collect();
            Matrix::from_col_major(d.nrows(), d.ncols(), &data).unwrap()
        }
        Matrix::Sparse(c) => Matrix::Sparse(c.map(|v| v * s)),
    }
}

fn settings() -> Settings {
    // No time limit (issue 37): each solver's own iteration limit bounds a solve, so the outcome
    // does not depend on the machine's speed or load.
    Settings { tol: TOL, ..Settings::default() }
}

/// Per solver: variants run, solved, and the worst figure of a solved answer with its label.
struct Tally {
    name: &'static str,
    runs: usize,
    solved: usize,
    worst: (f64, String),
    /// Answers the library's physical check refused although this file's figure is below
    /// `BOUND / 10`.
    refused_right: usize,
}

/// Runs every frictional solver on every (μ, s_W, s_q) variant of `problems`; returns the
/// tallies and the false `Solved` claims (figure above `BOUND`), with the right answers the
/// library refused (figure below `BOUND / 10`).
fn sweep(problems: &[(String, FrictionContactProblem)]) -> (Vec<Tally>, Vec<String>) {
    let mut tallies = Vec::new();
    let mut false_solved = Vec::new();
    for name in FRICTION_NAMES {
        let mut solver = build(Family::Friction, name, &Params::new()).unwrap();
        let mut t = Tally { name, runs: 0, solved: 0, worst: (0.0, String::new()), refused_right: 0 };
        for (label, base) in problems {
            for mu in MUS {
                for sw in SCALES {
                    for sq in SCALES {
                        let p = FrictionContactProblem {
                            w: scaled(&base.w, sw),
                            q: base.q.iter().map(|v| v * sq).collect(),
                            mu: vec![mu; base.contacts()],
                            ..base.clone()
                        };
                        let a = solver.solve(&Problem::Friction(p.clone()), None, &settings()).unwrap();
                        t.runs += 1;
                        if a.report.status != Status::Solved {
                            let msg = a.report.message.as_deref().unwrap_or("");
                            if msg.contains("physical check") && check(&p, &a.z) <= BOUND / 10.0 {
                                t.refused_right += 1;
                                false_solved.push(format!(
                                    "{name} on {label} μ={mu:e} s_W={sw:e} s_q={sq:e}: refused with figure {:.2e}",
                                    check(&p, &a.z)
                                ));
                            }
                            continue;
                        }
                        t.solved += 1;
                        let fig = check(&p, &a.z);
                        let what = format!("{name} on {label} μ={mu:e} s_W={sw:e} s_q={sq:e}: figure {fig:.2e}, error {:.2e}, library's physical {:.2e}", a.report.error, a.report.physical_error.unwrap_or(f64::NAN));
                        if std::env::var_os("PERP_SWEEP_DUMP").is_some() {
                            println!("DUMP {what}");
                        }
                        if above(fig, t.worst.0) {
                            t.worst = (fig, what.clone());
                        }
                        if above(fig, BOUND) {
                            false_solved.push(what);
                        }
                    }
                }
            }
        }
        tallies.push(t);
    }
    (tallies, false_solved)
}

fn report(tallies: &[Tally], false_solved: &[String]) {
    for t in tallies {
        println!(
            "{:14} solved {:4} of {:4}, refused right answers {}; worst solved: {}",
            t.name, t.solved, t.runs, t.refused_right, t.worst.1
        );
    }
    for f in false_solved {
        println!("FALSE SOLVED: {f}");
    }
}

fn eye3() -> Matrix {
    Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap()
}

#[test]
fn the_bound_is_the_librarys() {
    assert_eq!(BOUND, perp::core::measures::physical_bound(TOL));
}

#[test]
fn the_check_tells_right_from_wrong() {
    // The problem at μ = 1e8: r = (1, −2, 0) sticks (u = 0); r = 0 penetrates.
    let p = FrictionContactProblem::new(3, eye3(), vec![-1.0, 2.0, 0.0], vec![1e8]).unwrap();
    assert_eq!(check(&p, &[1.0, -2.0, 0.0]), 0.0);
    assert!(check(&p, &[0.0; 3]) > 0.4, "penetration 1 against ‖q‖ = √5");
    // Sliding: μ = 0.3, q = (−1, 2, 0). r = (1, −0.3, 0), u = (0, 1.7, 0) is the answer;
    // r inside the cone while sliding, or r_T along u_T, is not.
    let p = FrictionContactProblem::new(3, eye3(), vec![-1.0, 2.0, 0.0], vec![0.3]).unwrap();
    assert!(check(&p, &[1.0, -0.3, 0.0]) < 1e-15);
    assert!(check(&p, &[1.0, -0.1, 0.0]) > 0.05, "inside the cone while sliding");
    assert!(check(&p, &[1.0, 0.3, 0.0]) > 0.5, "friction along the sliding");
    assert!(check(&p, &[1.0, -0.5, 0.0]) > 0.1, "outside the cone");
    // Scale invariance: the same answers on W·1e8, q·1e-8 (r scales by 1e-16).
    let ps = FrictionContactProblem {
        w: scaled(&p.w, 1e8),
        q: p.q.iter().map(|v| v * 1e-8).collect(),
        ..p.clone()
    };
    assert!(check(&ps, &[1e-16, -0.3e-16, 0.0]) < 1e-15);
    assert!((check(&ps, &[1e-16, -0.1e-16, 0.0]) - check(&p, &[1.0, -0.1, 0.0])).abs() < 1e-12);
    // A sticking contact at μ = 1e12 with round-off in u_T is right.
    let p = FrictionContactProblem::new(3, eye3(), vec![-1.0, 2.0, 0.0], vec![1e12]).unwrap();
    assert!(check(&p, &[1.0, -2.0 + 1e-16, 0.0]) < 1e-15);
}

fn generated() -> Vec<(String, FrictionContactProblem)> {
    let mut v = vec![(
        "W=I q=(-1,2,0)".to_string(),
        FrictionContactProblem::new(3, eye3(), vec![-1.0, 2.0, 0.0], vec![1.0]).unwrap(),
    )];
    for (dim, nc, seed) in [(3, 2, 1), (3, 5, 2), (2, 4, 3)] {
        v.push((
            format!("friction_contact({dim}, {nc}, {seed})"),
            perp::cones::samples::friction_contact(dim, nc, seed),
        ));
    }
    v
}

#[test]
fn no_false_solved_on_generated_problems() {
    let (tallies, false_solved) = sweep(&generated());
    report(&tallies, &false_solved);
    assert!(false_solved.is_empty(), "{} false Solved:\n{}", false_solved.len(), false_solved.join("\n"));
}

#[test]
#[ignore = "needs PERP_SUITES"]
fn no_false_solved_on_small_siconos_files() {
    let dir = perp::formats::suites_dir().join("siconos/fc3d");
    let problems: Vec<_> = [
        "FrictionContact3D_1c.dat",
        "FrictionContact3D_RR_1c.dat",
        "FC3D_Example1.dat",
        "Rover11035.dat",
        "Rover4396.dat",
        "Confeti-ex13-4contact-Fc3D-SBM.dat",
    ]
    .iter()
    .map(|f| {
        (
            f.to_string(),
            perp::formats::read_friction_contact(&dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}")),
        )
    })
    .collect();
    let (tallies, false_solved) = sweep(&problems);
    report(&tallies, &false_solved);
    assert!(false_solved.is_empty(), "{} false Solved:\n{}", false_solved.len(), false_solved.join("\n"));
}

/// "Large r, small q" (issue 15): on Confeti-ex03 (‖r‖ ≈ 6e5) nsgs, apgd and fb-newton meet
/// tol 1e-6 on the peer measure with a penetration the physical check refuses (figures 1e-3
/// to 3e-3). The solvers then go on, warm, at a tighter tolerance
/// (`refine_physics` in perp-cones): nsgs and apgd end `Solved`, physically right by this
/// file's own [`check`]. fb-newton used to stall there (7.4e-7 after 200 iterations at tol
/// 1e-8) and stay refused; since its FB function pairs r with û/w̄ it solves it. Every
/// `Solved` answer passes [`check`].
#[test]
#[ignore = "needs PERP_SUITES"]
fn large_r_small_q_refines_until_physically_right() {
    let f = "Confeti-ex03-Fc3D-SBM.dat";
    let p = perp::formats::read_friction_contact(&perp::formats::suites_dir().join("siconos/fc3d").join(f))
        .unwrap_or_else(|e| panic!("{f}: {e}"));
    let s = Settings { tol: 1e-6, ..Settings::default() };
    for name in FRICTION_NAMES {
        let mut solver = build(Family::Friction, name, &Params::new()).unwrap();
        let a = solver.solve(&Problem::Friction(p.clone()), None, &s).unwrap();
        let msg = a.report.message.clone().unwrap_or_default();
        let fig = check(&p, &a.z);
        println!("{name}: {} error {:.2e} figure {fig:.2e}: {msg}", a.report.status, a.report.error);
        if a.report.status == Status::Solved {
            assert!(fig <= BOUND, "{name} solved Confeti-ex03 with figure {fig:.2e}");
        }
        if ["nsgs", "apgd", "fb-newton", "ac-newton", "prox"].contains(name) {
            assert_eq!(a.report.status, Status::Solved, "{name}: {msg}");
        }
        if ["nsgs", "apgd"].contains(name) {
            assert!(msg.contains("refined in"), "{name} needed no refinement: {msg}");
        }
    }
    // Issue 36: at tol 1e-8 apgd stopped with u_N down to −5.8e-3 (1.1e-4 of ‖q‖ = 52) and
    // called it solved, ‖r‖ = 5.8e5 normalizing the peer measure; measured at the data's scale
    // it is refused and refined (u_N −4.7e-4). admm's answer there was right.
    let s = Settings { tol: 1e-8, ..Settings::default() };
    for name in ["admm", "apgd"] {
        let mut solver = build(Family::Friction, name, &Params::new()).unwrap();
        let a = solver.solve(&Problem::Friction(p.clone()), None, &s).unwrap();
        let fig = check(&p, &a.z);
        assert_eq!(a.report.status, Status::Solved, "{name} at 1e-8: {:?}", a.report);
        assert!(fig <= BOUND, "{name} solved Confeti-ex03 at 1e-8 with figure {fig:.2e}");
    }
}

/// The LCP's figure, scale invariant as [`check`]: with `Z = ‖z‖` and `V = max(‖q‖,
/// max|M|·‖z‖)`, the largest `|min(z_i/Z, w_i/V)|` — negative parts are infeasibility, positive
/// ones a pair that is not complementary, each component in its own unit. Zero exactly at a
/// solution; unchanged under `M → s_M M`, `q → s_q q` (the answer moves to `z s_q/s_M`).
fn lcp_check(p: &Lcp, z: &[f64]) -> f64 {
    let w = p.w(z);
    let zn = norm(z);
    let v = norm(p.q()).max(p.m().max_abs() * zn);
    let rel = |x: f64, s: f64| if x == 0.0 { 0.0 } else { x / s.max(1e-300) };
    z.iter().zip(&w).map(|(&a, &b)| rel(a, zn).min(rel(b, v)).abs()).fold(0.0, f64::max)
}

#[test]
fn no_false_solved_on_scaled_lcps() {
    use perp::lcp::samples;
    let problems = [
        ("spd(8, 1)", samples::spd(8, 1)),
        ("p_matrix(6, 2)", samples::p_matrix(6, 2)),
        ("contact(3, 3)", samples::contact(3, 3)),
        ("murty(5)", samples::murty(5)),
    ];
    let mut false_solved = Vec::new();
    for name in LCP_NAMES {
        let mut solver = build(Family::Lcp, name, &Params::new()).unwrap();
        let (mut runs, mut solved, mut worst) = (0, 0, (0.0_f64, String::new()));
        let mut refusals: Option<String> = None;
        for (label, base) in &problems {
            for sm in SCALES {
                for sq in SCALES {
                    let p =
                        Lcp::new(scaled(base.m(), sm), base.q().iter().map(|v| v * sq).collect()).unwrap();
                    runs += 1;
                    // Only projected Newton may refuse an input (it needs a symmetric M), with
                    // a `Requirement` error: counted as not solved, its first refusal printed.
                    // Any other `Err` fails the test: a failure must show, not skip the run.
                    let a = match solver.solve(&Problem::Lcp(p.clone()), None, &settings()) {
                        Ok(a) => a,
                        Err(e @ perp::core::Error::Requirement { .. }) if *name == "projected-newton" => {
                            refusals.get_or_insert_with(|| format!("{label} s_M={sm:e}: {e}"));
                            continue;
                        }
                        Err(e) => panic!("{name} on {label} s_M={sm:e} s_q={sq:e}: {e}"),
                    };
                    if a.report.status != Status::Solved {
                        continue;
                    }
                    solved += 1;
                    let fig = lcp_check(&p, &a.z);
                    let what = format!(
                        "{name} on {label} s_M={sm:e} s_q={sq:e}: figure {fig:.2e}, error {:.2e}",
                        a.report.error
                    );
                    if above(fig, worst.0) {
                        worst = (fig, what.clone());
                    }
                    if above(fig, BOUND) {
                        false_solved.push(what);
                    }
                }
            }
        }
        println!("{name:16} solved {solved:3} of {runs:3}; worst solved: {}", worst.1);
        if let Some(e) = refusals {
            println!("{name:16} refused input, first: {e}");
        }
    }
    assert!(false_solved.is_empty(), "{} false Solved:\n{}", false_solved.len(), false_solved.join("\n"));
}

/// The box-LCP's figure, as [`lcp_check`] (which it reduces to for bounds 0 and ∞): per
/// index the bound violation `/Z`, and the smallest of the three ways to be complementary — at
/// the lower bound (`(z − l)/Z` and `w⁻/V`), at the upper bound (`(u − z)/Z` and `w⁺/V`), or
/// inside (`|w|/V`), with `Z = max(‖z‖, max |finite bound|)` and `V = max(‖q‖, max|M|·‖z‖)`.
fn box_check(p: &Lcp, z: &[f64]) -> f64 {
    let (lo, hi) = p.bounds().expect("a box-LCP");
    let w = p.w(z);
    let finite = lo.iter().chain(hi).filter(|b| b.is_finite()).fold(0.0_f64, |a, b| a.max(b.abs()));
    let zs = norm(z).max(finite);
    let v = norm(p.q()).max(p.m().max_abs() * norm(z));
    let rel = |x: f64, s: f64| if x <= 0.0 { 0.0 } else { x / s.max(1e-300) };
    (0..z.len())
        .map(|i| {
            let infeasible = rel(lo[i] - z[i], zs).max(rel(z[i] - hi[i], zs));
            let at_lower =
                if lo[i].is_finite() { rel(z[i] - lo[i], zs).max(rel(-w[i], v)) } else { f64::INFINITY };
            let at_upper =
                if hi[i].is_finite() { rel(hi[i] - z[i], zs).max(rel(w[i], v)) } else { f64::INFINITY };
            infeasible.max(at_lower.min(at_upper).min(rel(w[i].abs(), v)))
        })
        .fold(0.0, f64::max)
}

/// Box-LCPs (issue 15, "the same thinking for LCP"): generated LCPs given bounds of every kind
/// (`[−0.5, 0.7]`, `[0, ∞)`, `(−∞, ∞)`, `(−∞, 0.4]`), scaled as `M → s_M M`, `q → s_q q`, bounds
/// `→ (s_q/s_M)·bounds` (the solutions scale by `s_q/s_M`) or kept (other problems, with other
/// active bounds), for `s_M, s_q ∈ {1e-8, 1, 1e8}`:
/// no LCP solver may call an answer `Solved` that fails [`box_check`]. A solver that takes no
/// bounds must refuse them with a `Requirement` error. The box error, `‖z − mid(l, u, z − w)‖ /
/// ‖q‖`, compares z with w as if they had one unit: with M scaled by 1e8 an answer 50 % off
/// reads 1e-8.
#[test]
fn no_false_solved_on_scaled_box_lcps() {
    use perp::lcp::samples;
    let bases = [("spd(12, 3)", samples::spd(12, 3)), ("contact(4, 5)", samples::contact(4, 5))];
    let mut false_solved = Vec::new();
    for name in LCP_NAMES {
        let mut solver = build(Family::Lcp, name, &Params::new()).unwrap();
        let (mut runs, mut solved, mut refused, mut worst) = (0, 0, 0, 0.0_f64);
        for (label, base) in &bases {
            let n = base.n();
            let kinds = [
                (-0.5, 0.7),
                (0.0, f64::INFINITY),
                (f64::NEG_INFINITY, f64::INFINITY),
                (f64::NEG_INFINITY, 0.4),
            ];
            for sm in SCALES {
                for (sq, k) in SCALES.iter().flat_map(|&sq| [(sq, sq / sm), (sq, 1.0)]) {
                    let lo: Vec<f64> = (0..n).map(|i| kinds[i % 4].0 * k).collect();
                    let hi: Vec<f64> = (0..n).map(|i| kinds[i % 4].1 * k).collect();
                    let q: Vec<f64> = base.q().iter().map(|v| v * sq).collect();
                    let p = Lcp::with_bounds(scaled(base.m(), sm), q, lo, hi).unwrap();
                    runs += 1;
                    let a = match solver.solve(&Problem::Lcp(p.clone()), None, &settings()) {
                        Ok(a) => a,
                        Err(perp::core::Error::Requirement { .. }) => {
                            refused += 1;
                            continue;
                        }
                        Err(e) => panic!("{name} on {label} s_M={sm:e} s_q={sq:e}: {e}"),
                    };
                    if a.report.status != Status::Solved {
                        continue;
                    }
                    solved += 1;
                    let fig = box_check(&p, &a.z);
                    worst = worst.max(fig);
                    if above(fig, BOUND) {
                        false_solved.push(format!(
                            "{name} on {label} s_M={sm:e} s_q={sq:e}: figure {fig:.2e}, error {:.2e}",
                            a.report.error
                        ));
                    }
                }
            }
        }
        println!("box {name:16} solved {solved:3} of {runs:3}, refused {refused:3}; worst solved figure {worst:.2e}");
        assert!(refused == 0 || refused == runs, "{name} refuses some box-LCPs and not others");
    }
    assert!(false_solved.is_empty(), "{} false Solved:\n{}", false_solved.len(), false_solved.join("\n"));
}

/// Solving must not depend on units: every LCP solver that solves a problem solves every
/// scaled copy `M → s_M M`, `q → s_q q` (`s_M, s_q ∈ {1e-8, 1, 1e8}`) too. Before the data
/// were brought near 1 (`Lcp::unit_scaling`), Lemke ended on rays for 8 of 10 built-in LCPs
/// with M scaled by 1e-12 and q by 1e-6 (its pivoting tolerances have absolute floors), rpgs
/// ran into its sweep limit on all of them with M scaled by 1e-6 (its ρ = 1 is absolute), and
/// fb-newton solved none with M scaled by 1e-6 (the Fischer–Burmeister function adds z and w
/// as if they had one unit).
#[test]
fn lcp_solvers_solve_scaled_copies_alike() {
    use perp::lcp::samples;
    let problems = [
        ("spd(30, 1)", samples::spd(30, 1)),
        ("p_matrix(20, 2)", samples::p_matrix(20, 2)),
        ("contact(10, 3)", samples::contact(10, 3)),
        ("degenerate(20, 4)", samples::degenerate(20, 4)),
        ("murty(6)", samples::murty(6)),
        ("psd(20, 10, 5)", samples::psd(20, 10, 5)),
    ];
    let mut lost = Vec::new();
    for name in LCP_NAMES {
        let mut solver = build(Family::Lcp, name, &Params::new()).unwrap();
        let mut solves = |p: &Lcp| {
            solver
                .solve(&Problem::Lcp(p.clone()), None, &settings())
                .is_ok_and(|a| a.report.status == Status::Solved)
        };
        let mut kept = 0;
        for (label, base) in &problems {
            if !solves(base) {
                continue;
            }
            for sm in SCALES {
                for sq in SCALES {
                    let p =
                        Lcp::new(scaled(base.m(), sm), base.q().iter().map(|v| v * sq).collect()).unwrap();
                    if solves(&p) {
                        kept += 1;
                    } else {
                        lost.push(format!("{name} on {label} with s_M = {sm:e}, s_q = {sq:e}"));
                    }
                }
            }
        }
        println!("{name:16} solved {kept} scaled copies of the problems it solves");
        assert!(kept > 0, "{name} solved nothing: the test must see it work");
    }
    assert!(lost.is_empty(), "solved at s = 1 but not scaled:\n{}", lost.join("\n"));
}

/// The calibration record: every frictional solver on every Siconos fc2d/fc3d file at `TOL`
/// (2 s each), with the peer error, the library's physical figure and this file's; no `Solved`
/// answer may fail [`check`].
#[test]
#[ignore = "needs PERP_SUITES; slow (about 3 min with --release)"]
fn suite_physical_figures() {
    let mut false_solved = Vec::new();
    let root = perp::formats::suites_dir().join("siconos");
    let mut files: Vec<_> = ["fc2d", "fc3d"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).unwrap().map(|e| e.unwrap().path()))
        .collect();
    files.sort();
    for f in files {
        let p = perp::formats::read_friction_contact(&f).unwrap();
        let file = f.file_name().unwrap().to_string_lossy().into_owned();
        for name in FRICTION_NAMES {
            let mut solver = build(Family::Friction, name, &Params::new()).unwrap();
            let a = solver.solve(&Problem::Friction(p.clone()), None, &settings()).unwrap();
            println!(
                "CAL {file:44} {name:14} {:16} err {:.2e} phys {:.2e} mine {:.2e}",
                a.report.status.as_str(),
                a.report.error,
                a.report.physical_error.unwrap_or(f64::NAN),
                check(&p, &a.z)
            );
            if a.report.status == Status::Solved && above(check(&p, &a.z), BOUND) {
                false_solved.push(format!("{name} on {file}: figure {:.2e}", check(&p, &a.z)));
            }
        }
    }
    assert!(false_solved.is_empty(), "false Solved:\n{}", false_solved.join("\n"));
}

/// The MLCP's figure, as [`lcp_check`]: free rows `|w_i|/V`, the others
/// `|min(z_i/Z, w_i/V)|`, with `Z = ‖z‖` and `V = max(‖q‖, max|M|·‖z‖)`.
fn mlcp_check(p: &perp::ncp::mlcp::Mlcp, z: &[f64]) -> f64 {
    let w = p.w(z);
    let zn = norm(z);
    let v = norm(p.q()).max(p.m().max_abs() * zn);
    let rel = |x: f64, s: f64| if x == 0.0 { 0.0 } else { x / s.max(1e-300) };
    (0..z.len())
        .map(|i| if p.free()[i] { rel(w[i], v).abs() } else { rel(z[i], zn).min(rel(w[i], v)).abs() })
        .fold(0.0, f64::max)
}

/// The MLCP solvers (the MCP family, through the catalogue's dispatch) on scaled generated
/// MLCPs: no `Solved` answer above `BOUND` by this file's figure. Before the MLCP physical
/// check, fb-newton and bdiff-newton passed answers 30 % off (figure 0.30, MCP error 1.6e-9)
/// with M scaled by 1e8.
#[test]
fn no_false_solved_on_scaled_mlcps() {
    let mut false_solved = Vec::new();
    let problems: Vec<_> = [(8, 3, 1), (10, 4, 2)]
        .iter()
        .map(|&(n, f, seed)| (format!("mixed({n}, {f}, {seed})"), perp::ncp::samples::mixed(n, f, seed)))
        .collect();
    let mut worst_all = 0.0_f64;
    for name in perp::catalogue::MCP_NAMES {
        let mut solver = build(Family::Mcp, name, &Params::new()).unwrap();
        let (mut runs, mut solved, mut worst) = (0, 0, (0.0_f64, String::new()));
        for (label, base) in &problems {
            for sm in SCALES {
                for sq in SCALES {
                    let p = perp::ncp::mlcp::Mlcp::new(
                        scaled(base.m(), sm),
                        base.q().iter().map(|v| v * sq).collect(),
                        base.free().to_vec(),
                    )
                    .unwrap();
                    runs += 1;
                    // Every generated MLCP has a nonsingular equation block: no solver may refuse it.
                    let a = solver
                        .solve(&Problem::Mlcp(p.clone()), None, &settings())
                        .unwrap_or_else(|e| panic!("{name} on {label} s_M={sm:e} s_q={sq:e}: {e}"));
                    if a.report.status != Status::Solved {
                        continue;
                    }
                    solved += 1;
                    let fig = mlcp_check(&p, &a.z);
                    if above(fig, BOUND) {
                        false_solved
                            .push(format!("{name} on {label} s_M={sm:e} s_q={sq:e}: figure {fig:.2e}"));
                    }
                    if above(fig, worst.0) {
                        worst = (
                            fig,
                            format!(
                                "{label} s_M={sm:e} s_q={sq:e}: figure {fig:.2e}, error {:.2e}",
                                a.report.error
                            ),
                        );
                    }
                }
            }
        }
        worst_all = worst_all.max(worst.0);
        println!("MLCP {name:14} solved {solved:3} of {runs:3}; worst solved: {}", worst.1);
    }
    println!("MLCP worst figure of a Solved answer: {worst_all:.2e}");
    assert!(false_solved.is_empty(), "{} false Solved:\n{}", false_solved.len(), false_solved.join("\n"));
}

/// lemke-pyramid on the files where Lemke's pivots on tiny elements broke its first LCP solve
/// (issue 15): with the Harris retry the error falls from 0.24, 0.099, 0.021 and 0.42 (plain
/// Lemke, recomputed LCP errors up to 4.5e10) to 3.0e-4, 3.6e-4, 1.1e-4 and 8.0e-6 at tol
/// 1e-6. Where both fail, proximal rounds on the pyramid LCP regularized on its force block
/// (`proximal_lemke`) solve BoxesStack1 and Capsules-i101-404 (7.4e-7, 8 s); a solve stalled at
/// the pyramid's linearisation error (or failed) is repeated with twice the facets
/// (`max_facets`), which solves Capsules-i100 (16 facets, 13 s) and Capsules-i125 (16 facets,
/// 43.5 s measured on a quiet machine, 2026-11-26). No time limit (issue 37): this test once
/// gave the files 60 to 150 s, and on a loaded machine the outcome depended on the clock.
#[test]
#[ignore = "needs PERP_SUITES; slow (run with --release)"]
fn lemke_pyramid_survives_the_round_off_files() {
    let root = perp::formats::suites_dir().join("siconos/fc3d");
    for (f, before) in [
        ("Capsules-i101-404.dat", 0.24),
        ("Capsules-i100-1090.dat", 0.099),
        ("Capsules-i125-1213.hdf5", 0.021),
        ("BoxesStack1-i100000-32.hdf5.dat", 0.42),
    ] {
        let p = perp::formats::read_friction_contact(&root.join(f)).unwrap();
        let mut solver = build(Family::Friction, "lemke-pyramid", &Params::new()).unwrap();
        let s = Settings { tol: 1e-6, ..Settings::default() };
        let a = solver.solve(&Problem::Friction(p.clone()), None, &s).unwrap();
        println!(
            "{f}: {} error {:.2e} (before {before:.2e}), physical {:.2e}; {}",
            a.report.status.as_str(),
            a.report.error,
            a.report.physical_error.unwrap_or(f64::NAN),
            a.report.message.as_deref().unwrap_or("")
        );
        assert!(a.report.error <= 1e-3, "{f}: error {:.2e}", a.report.error);
        assert!(a.report.status != Status::Solved || check(&p, &a.z) <= BOUND, "{f}");
        assert_eq!(a.report.status, Status::Solved, "{f}: {:?}", a.report);
        if f.starts_with("Capsules-i100") || f.starts_with("Capsules-i125") {
            let msg = a.report.message.as_deref().unwrap_or("");
            assert!(msg.contains("answer from 16 facets"), "{f}: {msg}");
        }
    }
}
