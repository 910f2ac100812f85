use super::*;
use crate::problem::FrictionSolver;
use crate::ConeSpec;
use perp_core::Matrix;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// A random problem `W = J M⁻¹ Jᵀ + εI` (J: `d·nc × ndof`, M diagonal), `q_N ∈ [−1, 0.5]`,
/// `q_T ∈ [−ts, ts]`, μ ∈ [0.2, 0.8]; W sparse (block pattern kept) when asked.
pub(super) fn random_problem(
    seed: u64,
    d: usize,
    nc: usize,
    ndof: usize,
    ts: f64,
    sparse: bool,
) -> FrictionContactProblem {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = d * nc;
    let j: Vec<f64> = (0..n * ndof).map(|_| rng.random_range(-1.0..=1.0)).collect();
    let minv: Vec<f64> = (0..ndof).map(|_| rng.random_range(0.5..=2.0)).collect();
    let w = perp_lcp::samples::gram_row_major(&j, n, ndof, Some(&minv), 1.0, 1e-3);
    let q: Vec<f64> = (0..n)
        .map(|i| if i % d == 0 { rng.random_range(-1.0..=0.5) } else { rng.random_range(-ts..=ts) })
        .collect();
    let mu: Vec<f64> = (0..nc).map(|_| rng.random_range(0.2..=0.8)).collect();
    let wm = if sparse {
        let t: Vec<(usize, usize, f64)> =
            (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).map(|(a, b)| (a, b, w[a * n + b])).collect();
        Matrix::from_triplets(n, n, &t).unwrap()
    } else {
        Matrix::from_row_major(n, n, &w).unwrap()
    };
    FrictionContactProblem::new(d, wm, q, mu).unwrap()
}

/// A regular pyramid with `f` faces (turned by 0.3 rad), written here for the tests: its
/// own projection (by enumeration of the faces), section projection and support.
#[derive(Debug)]
struct TestPyramid {
    f: usize,
}

impl TestPyramid {
    fn vertex(&self, j: usize) -> [f64; 2] {
        let a = 2.0 * PI * j as f64 / self.f as f64 + 0.3;
        [a.cos(), a.sin()]
    }
    fn normal(&self, j: usize) -> [f64; 2] {
        let a = 2.0 * PI * (j as f64 + 0.5) / self.f as f64 + 0.3;
        [a.cos(), a.sin()]
    }
    fn section(&self, mu: f64, xi: f64, t: &[f64]) -> [f64; 2] {
        let rad = mu * xi.max(0.0);
        let apothem = (PI / self.f as f64).cos();
        if (0..self.f).all(|j| {
            let n = self.normal(j);
            n[0] * t[0] + n[1] * t[1] <= rad * apothem
        }) {
            return [t[0], t[1]];
        }
        let mut best = ([0.0, 0.0], f64::INFINITY);
        for j in 0..self.f {
            let (a, b) = (self.vertex(j), self.vertex((j + 1) % self.f));
            let (a, b) = ([rad * a[0], rad * a[1]], [rad * b[0], rad * b[1]]);
            let e = [b[0] - a[0], b[1] - a[1]];
            let ee = e[0] * e[0] + e[1] * e[1];
            let s = if ee > 0.0 {
                (((t[0] - a[0]) * e[0] + (t[1] - a[1]) * e[1]) / ee).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let c = [a[0] + s * e[0], a[1] + s * e[1]];
            let dist = (t[0] - c[0]).hypot(t[1] - c[1]);
            if dist < best.1 {
                best = (c, dist);
            }
        }
        best.0
    }
}

impl Cone for TestPyramid {
    fn name(&self) -> String {
        format!("test-pyramid-{}", self.f)
    }
    fn dim(&self) -> usize {
        3
    }
    fn project(&self, mu: f64, x: &[f64], out: &mut [f64]) {
        let apothem = (PI / self.f as f64).cos();
        let inside = x[0] >= 0.0
            && (0..self.f).all(|j| {
                let n = self.normal(j);
                n[0] * x[1] + n[1] * x[2] <= mu * apothem * x[0]
            });
        if inside {
            out.copy_from_slice(x);
            return;
        }
        let gen = |j: usize| {
            let v = self.vertex(j % self.f);
            [1.0, mu * v[0], mu * v[1]]
        };
        let dot = |a: &[f64; 3], b: &[f64]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        let mut best = ([0.0; 3], dot(&[x[0], x[1], x[2]], x));
        let mut consider = |c: [f64; 3]| {
            let dd = (0..3).map(|l| (x[l] - c[l]).powi(2)).sum::<f64>();
            if dd < best.1 {
                best = (c, dd);
            }
        };
        for j in 0..self.f {
            let (g, h) = (gen(j), gen(j + 1));
            let s = (dot(&g, x) / dot(&g, &g)).max(0.0);
            consider([s * g[0], s * g[1], s * g[2]]);
            let (gg, gh, hh) = (dot(&g, &g), dot(&g, &h), dot(&h, &h));
            let det = gg * hh - gh * gh;
            if det > 1e-14 * gg * hh {
                let (bx, by) = (dot(&g, x), dot(&h, x));
                let a = (hh * bx - gh * by) / det;
                let b = (gg * by - gh * bx) / det;
                if a >= 0.0 && b >= 0.0 {
                    consider([a * g[0] + b * h[0], a * g[1] + b * h[1], a * g[2] + b * h[2]]);
                }
            }
        }
        out.copy_from_slice(&best.0);
    }
    fn project_section(
        &self,
        mu: f64,
        xi: f64,
        t: &[f64],
        out: &mut [f64],
        jac_t: Option<&mut [f64]>,
        jac_xi: Option<&mut [f64]>,
    ) {
        out.copy_from_slice(&self.section(mu, xi, t));
        let h = 1e-7;
        if let Some(j) = jac_t {
            for c in 0..2 {
                let (mut tp, mut tm) = ([t[0], t[1]], [t[0], t[1]]);
                tp[c] += h;
                tm[c] -= h;
                let (p, m) = (self.section(mu, xi, &tp), self.section(mu, xi, &tm));
                for r in 0..2 {
                    j[r * 2 + c] = (p[r] - m[r]) / (2.0 * h);
                }
            }
        }
        if let Some(j) = jac_xi {
            let (p, m) = (self.section(mu, xi + h, t), self.section(mu, (xi - h).max(0.0), t));
            let dx = xi + h - (xi - h).max(0.0);
            j[0] = (p[0] - m[0]) / dx;
            j[1] = (p[1] - m[1]) / dx;
        }
    }
    fn support(&self, mu: f64, v: &[f64], t_out: &mut [f64]) -> f64 {
        if v[0] == 0.0 && v[1] == 0.0 {
            t_out.fill(0.0);
            return 0.0;
        }
        let (mut best, mut val) = (0, f64::NEG_INFINITY);
        for j in 0..self.f {
            let p = self.vertex(j);
            let s = -(p[0] * v[0] + p[1] * v[1]);
            if s > val {
                (best, val) = (j, s);
            }
        }
        let p = self.vertex(best);
        t_out[0] = mu * p[0];
        t_out[1] = mu * p[1];
        mu * val
    }
    fn linearize(&self, _m: usize) -> Vec<f64> {
        (0..self.f).flat_map(|j| self.vertex(j)).collect()
    }
}

fn settings(tol: f64) -> Settings {
    Settings { tol, ..Settings::default() }
}

/// Whether contact i slides (pushed, with a tangential velocity) in `sol`.
fn sliding(p: &FrictionContactProblem, sol: &FrictionSolution, i: usize) -> bool {
    let d = p.dim;
    sol.r[d * i] > 1e-12 && norm(&sol.u[d * i + 1..d * (i + 1)]) > 1e-9
}

#[test]
fn test_pyramid_projection_is_a_moreau_decomposition() {
    let c = TestPyramid { f: 5 };
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..200 {
        let x: Vec<f64> = (0..3).map(|_| rng.random_range(-2.0..=2.0)).collect();
        let mut p = [0.0; 3];
        c.project(0.6, &x, &mut p);
        let y: Vec<f64> = (0..3).map(|l| x[l] - p[l]).collect();
        // y ⟂ P(x) and y in the polar cone (y·g ≤ 0 for every generator g).
        assert!((0..3).map(|l| y[l] * p[l]).sum::<f64>().abs() < 1e-12, "{x:?}");
        for j in 0..5 {
            let v = c.vertex(j);
            assert!(y[0] + 0.6 * (v[0] * y[1] + v[1] * y[2]) < 1e-12, "{x:?}");
        }
        assert!(c.contains(0.6, &p, 1e-12));
    }
}

#[test]
fn one_sticking_contact_by_hand() {
    // W = I, q = (−1, 0, 0.1), μ = 0.5: r = (1, 0, −0.1) sticks, well inside the pyramid.
    let w = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
    let p = FrictionContactProblem::new(3, w, vec![-1.0, 0.0, 0.1], vec![0.5]).unwrap();
    let sol = LemkePyramid::new().solve(&p, None, &settings(1e-12)).unwrap();
    assert_eq!(sol.report.status, Status::Solved);
    for (a, b) in sol.r.iter().zip([1.0, 0.0, -0.1]) {
        assert!((a - b).abs() < 1e-14, "{:?}", sol.r);
    }
}

#[test]
fn two_d_coulomb_is_solved_exactly() {
    for seed in 0..6 {
        let sparse = seed % 2 == 1;
        let p = random_problem(seed, 2, 12, 10, 1.0, sparse);
        for refine in [0, 20] {
            let sol =
                LemkePyramid { refine, ..LemkePyramid::new() }.solve(&p, None, &settings(1e-10)).unwrap();
            assert_eq!(sol.report.status, Status::Solved, "seed {seed}: {:?}", sol.report);
            assert!(sol.report.error <= 1e-10);
        }
        let sol = LemkePyramid::new().solve(&p, None, &settings(1e-10)).unwrap();
        assert!((0..12).any(|i| sliding(&p, &sol, i)), "seed {seed}: no sliding contact, a weak test");
    }
}

#[test]
fn pyramid_law_3d_is_solved_exactly_without_alignment() {
    for seed in 0..4 {
        let p = random_problem(100 + seed, 3, 8, 12, 1.0, seed % 2 == 0);
        let cone: Arc<dyn Cone> = Arc::new(TestPyramid { f: 5 });
        let p = p.with_cones(vec![ConeSpec::Custom(cone); 8]).unwrap();
        let sol =
            LemkePyramid { refine: 0, ..LemkePyramid::new() }.solve(&p, None, &settings(1e-10)).unwrap();
        assert_eq!(sol.report.status, Status::Solved, "seed {seed}: {:?}", sol.report);
        assert!((0..8).any(|i| sliding(&p, &sol, i)), "seed {seed}: no sliding contact");
    }
}

#[test]
fn sticking_or_lifting_coulomb_3d_is_exact() {
    // Full-rank W, μ = 2 and small tangential loads: every contact sticks or lifts off, so
    // the first pyramid answer is the Coulomb answer, with no alignment.
    for seed in 0..4 {
        // W' = I + W/20: the normal forces barely push the contacts sideways.
        let p0 = random_problem(200 + seed, 3, 10, 40, 0.05, false);
        let wd = p0.w.to_dense();
        let t: Vec<(usize, usize, f64)> = (0..30)
            .flat_map(|a| (0..30).map(move |b| (a, b)))
            .map(|(a, b)| (a, b, wd[(a, b)] / 20.0 + f64::from(u8::from(a == b))))
            .collect();
        let w = Matrix::from_triplets(30, 30, &t).unwrap();
        let w = if seed % 2 == 0 { w } else { Matrix::Dense(w.to_dense()) };
        let p = FrictionContactProblem::new(3, w, p0.q.clone(), vec![2.0; 10]).unwrap();
        let sol =
            LemkePyramid { refine: 0, ..LemkePyramid::new() }.solve(&p, None, &settings(1e-10)).unwrap();
        assert_eq!(sol.report.status, Status::Solved, "seed {seed}: {:?}", sol.report);
        assert!((0..10).all(|i| !sliding(&p, &sol, i)));
        let pressed = (0..10).filter(|&i| sol.r[3 * i] > 0.0).count();
        assert!((3..10).contains(&pressed), "seed {seed}: {pressed} pressed contacts");
        assert!((0..10).any(|i| norm(&sol.r[3 * i + 1..3 * i + 3]) > 1e-3), "no friction at all");
    }
}

/// One contact with a full 3×3 W, pushed sideways hard: it slides.
fn one_sliding_contact() -> FrictionContactProblem {
    let w = Matrix::from_row_major(3, 3, &[1.5, 0.2, -0.1, 0.2, 1.0, 0.3, -0.1, 0.3, 0.8]).unwrap();
    FrictionContactProblem::new(3, w, vec![-1.0, 1.3, 0.7], vec![0.4]).unwrap()
}

#[test]
fn unaligned_error_falls_like_one_over_m() {
    // Mean Siconos error of the plain Stewart–Trinkle answer over 60 random sliding
    // contacts: the force's direction is off by up to π/m, so the error halves when m
    // doubles (the cones' Hausdorff distance would fall by 4).
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let ms = [8usize, 16, 32, 64];
    let mut mean = [0.0; 4];
    for _ in 0..60 {
        let a: Vec<f64> = (0..9).map(|_| rng.random_range(-1.0..=1.0)).collect();
        let mut w = vec![0.0; 9];
        for i in 0..3 {
            for j in 0..3 {
                w[i * 3 + j] = (0..3).map(|k| a[i * 3 + k] * a[j * 3 + k]).sum::<f64>();
            }
            w[i * 4] += 0.1;
        }
        let th: f64 = rng.random_range(0.0..2.0 * PI);
        let q = vec![-1.0, 2.0 * th.cos(), 2.0 * th.sin()];
        let p =
            FrictionContactProblem::new(3, Matrix::from_row_major(3, 3, &w).unwrap(), q, vec![0.3]).unwrap();
        for (k, &facets) in ms.iter().enumerate() {
            let sol = LemkePyramid { facets, refine: 0, ..LemkePyramid::new() }
                .solve(&p, None, &settings(1e-12))
                .unwrap();
            assert!(sol.report.status != Status::Solved || sol.report.error <= 1e-12);
            mean[k] += sol.report.error / 60.0;
        }
    }
    for k in 1..4 {
        let ratio = mean[k] / mean[k - 1];
        assert!((0.35..0.65).contains(&ratio), "m = {}: ratio {ratio:.3}, means {mean:?}", ms[k]);
    }
    // One sliding contact: Stalled with the linearisation message, then alignment removes it.
    let p = one_sliding_contact();
    let sol = LemkePyramid { facets: 8, refine: 0, ..LemkePyramid::new() }
        .solve(&p, None, &settings(1e-12))
        .unwrap();
    assert_eq!(sol.report.status, Status::Stalled, "{:?}", sol.report);
    assert!(sol.report.message.as_deref().unwrap_or("").contains("linearisation error"));
    assert!(sliding(&p, &sol, 0) && sol.report.error > 1e-4);
    let sol = LemkePyramid::new().solve(&p, None, &settings(1e-13)).unwrap();
    assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report);
    // The exact answer: ‖r_T‖ = μ r_N with r_T opposite to u_T.
    let (rt, ut) = (&sol.r[1..3], &sol.u[1..3]);
    assert!((norm(rt) - 0.4 * sol.r[0]).abs() < 1e-12);
    assert!((rt[0] * ut[1] - rt[1] * ut[0]).abs() < 1e-12 && rt[0] * ut[0] + rt[1] * ut[1] < 0.0);
}

#[test]
fn normal_angles_of_round_and_polygonal_sections() {
    let c = crate::Coulomb::new(3).unwrap();
    for a in [0.3, -2.0, 3.0] {
        assert!((normal_angle(&c, &[0.5 * f64::cos(a), 0.5 * f64::sin(a)]) - a).abs() < 1e-15);
    }
    let pyr = TestPyramid { f: 5 };
    // An edge's midpoint: the edge's normal; a vertex: a normal of its cone.
    let (v0, v1) = (pyr.vertex(0), pyr.vertex(1));
    let mid = [0.4 * (v0[0] + v1[0]), 0.4 * (v0[1] + v1[1])];
    let nrm = pyr.normal(0);
    assert!((normal_angle(&pyr, &mid) - nrm[1].atan2(nrm[0])).abs() < 1e-12);
    let mut t = [0.0; 2];
    generator_at(&pyr, normal_angle(&pyr, &[0.3 * v1[0], 0.3 * v1[1]]), &mut t);
    assert!((t[0] - v1[0]).abs() < 1e-12 && (t[1] - v1[1]).abs() < 1e-12);
    assert!((wrap(3.0 * PI) - PI).abs() < 1e-15 && (wrap(-0.5) + 0.5).abs() < 1e-15);
}

#[test]
fn secant_fallback_finds_the_root_of_a_linear_gap() {
    // φ(ψ) = 0.5 + 2(ψ − 0.5): the exact direction is ψ = 0.5.
    let phi = |psi: f64| 0.5 + 2.0 * (psi - 0.5);
    let slip = |psi: f64| [-phi(psi).cos(), -phi(psi).sin()];
    let mut sample = None;
    let n1 = LemkePyramid::secant_normal(&[0.3f64.cos(), 0.3f64.sin()], &slip(0.3), &mut sample);
    assert!((n1[1].atan2(n1[0]) - phi(0.3)).abs() < 1e-14, "first step: the slip's direction");
    let psi1 = n1[1].atan2(n1[0]);
    let n2 = LemkePyramid::secant_normal(&n1, &slip(psi1), &mut sample);
    assert!((n2[1].atan2(n2[0]) - 0.5).abs() < 1e-13);
}

#[test]
fn charts_and_tangent_bases() {
    for n in [vec![0.6, 0.8], vec![0.0, 0.6, 0.8], vec![0.5, -0.5, 0.5, 0.5]] {
        let k = n.len();
        let e = tangent_basis(&n);
        for a in 0..k - 1 {
            let ea = &e[a * k..(a + 1) * k];
            assert!((norm(ea) - 1.0).abs() < 1e-14);
            assert!(ea.iter().zip(&n).map(|(x, y)| x * y).sum::<f64>().abs() < 1e-14);
            for b in 0..a {
                let eb = &e[b * k..(b + 1) * k];
                assert!(ea.iter().zip(eb).map(|(x, y)| x * y).sum::<f64>().abs() < 1e-14);
            }
        }
        assert_eq!(chart(&n, &e, &vec![0.0; k - 1]), n);
    }
}

#[test]
fn alignment_reaches_1e8_on_sliding_problems() {
    for seed in 0..4 {
        let mut p = random_problem(300 + seed, 3, 10, 16, 1.0, seed % 2 == 1);
        p.mu[0] = 0.0; // a frictionless contact: no β, no λ
        let s = Settings { tol: 1e-8, record_history: true, ..Settings::default() };
        let plain = LemkePyramid { refine: 0, ..LemkePyramid::new() }.solve(&p, None, &s).unwrap();
        let sol = LemkePyramid::new().solve(&p, None, &s).unwrap();
        assert!(plain.report.error > 1e-4, "seed {seed}: the linearisation error should show");
        assert_eq!(sol.report.status, Status::Solved, "seed {seed}: {:?}", sol.report);
        assert!((0..10).filter(|&i| sliding(&p, &sol, i)).count() >= 2, "seed {seed}");
        assert!(sol.report.history.len() <= 8, "seed {seed}: {:?}", sol.report.history);
    }
}

/// The cone `‖r_T‖ ≤ μ r_N` with `d − 1` tangential components (a 4-D stand-in for a round
/// law with torsion).
#[derive(Debug)]
struct Ball {
    d: usize,
}

impl Cone for Ball {
    fn name(&self) -> String {
        format!("ball-{}", self.d)
    }
    fn dim(&self) -> usize {
        self.d
    }
    fn project(&self, mu: f64, x: &[f64], out: &mut [f64]) {
        let s = norm(&x[1..]);
        if s <= mu * x[0] {
            out.copy_from_slice(x);
        } else if mu * s <= -x[0] {
            out.fill(0.0);
        } else {
            let a = (mu * s + x[0]) / (mu * mu + 1.0);
            out[0] = a;
            for (o, t) in out[1..].iter_mut().zip(&x[1..]) {
                *o = mu * a * t / s;
            }
        }
    }
    fn project_section(
        &self,
        mu: f64,
        xi: f64,
        t: &[f64],
        out: &mut [f64],
        _: Option<&mut [f64]>,
        _: Option<&mut [f64]>,
    ) {
        let (rad, s) = (mu * xi.max(0.0), norm(t));
        for (o, v) in out.iter_mut().zip(t) {
            *o = if s <= rad { *v } else { rad * v / s };
        }
    }
    fn support(&self, mu: f64, v: &[f64], t_out: &mut [f64]) -> f64 {
        let s = norm(v);
        for (o, x) in t_out.iter_mut().zip(v) {
            *o = if s > 0.0 { -mu * x / s } else { 0.0 };
        }
        mu * s
    }
}

#[test]
fn four_d_round_law_is_aligned_too() {
    let p = random_problem(700, 4, 6, 12, 1.0, false);
    let cone: Arc<dyn Cone> = Arc::new(Ball { d: 4 });
    let p = p.with_cones(vec![ConeSpec::Custom(cone); 6]).unwrap();
    let s = Settings { tol: 1e-10, record_history: true, ..Settings::default() };
    let plain = LemkePyramid { facets: 20, refine: 0, ..LemkePyramid::new() }.solve(&p, None, &s).unwrap();
    let aligned = LemkePyramid { facets: 20, refine: 20, ..LemkePyramid::new() }.solve(&p, None, &s).unwrap();
    assert!((0..6).any(|i| sliding(&p, &plain, i)));
    assert!(plain.report.error > 1e-4 && plain.report.status == Status::Stalled, "{:?}", plain.report);
    eprintln!(
        "4D plain {:e} aligned {:?} {:e} {:?}",
        plain.report.error, aligned.report.status, aligned.report.error, aligned.report.history
    );
    assert_eq!(aligned.report.status, Status::Solved, "{:?}", aligned.report);
    assert!(aligned.report.history.len() <= 8, "{:?}", aligned.report.history);
}

#[test]
fn trivial_problems() {
    let s = settings(1e-12);
    // No contact at all.
    let p =
        FrictionContactProblem::new(3, Matrix::from_triplets(0, 0, &[]).unwrap(), vec![], vec![]).unwrap();
    let sol = LemkePyramid::new().solve(&p, None, &s).unwrap();
    assert!(sol.r.is_empty() && sol.report.status == Status::Solved);
    // Nothing pressed: r = 0.
    let mut q = random_problem(800, 3, 4, 8, 1.0, false);
    q.q.iter_mut().step_by(3).for_each(|v| *v = v.abs() + 0.1);
    let sol = LemkePyramid::new().solve(&q, None, &s).unwrap();
    assert_eq!(sol.report.status, Status::Solved);
    assert!(sol.r.iter().all(|&v| v == 0.0), "{:?} {:?}", sol.r, q.q);
    // Frictionless everywhere: the LCP is the problem.
    let mut f = random_problem(801, 3, 6, 10, 1.0, true);
    f.mu.iter_mut().for_each(|m| *m = 0.0);
    let sol = LemkePyramid { refine: 0, ..LemkePyramid::new() }.solve(&f, None, &s).unwrap();
    assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report);
    assert!((0..6).any(|i| sol.r[3 * i] > 0.0));
}

#[test]
fn wrong_warm_start_and_bad_facets_are_errors() {
    let p = one_sliding_contact();
    let e = LemkePyramid::new().solve(&p, Some(&[1.0, 0.0]), &Settings::default()).unwrap_err();
    assert!(e.to_string().contains("warm start"), "{e}");
    let e = LemkePyramid { facets: 2, refine: 0, ..LemkePyramid::new() }
        .solve(&p, None, &Settings::default())
        .unwrap_err();
    assert!(e.to_string().contains("facets"), "{e}");
}

#[test]
fn warm_start_at_the_solution_is_cheap() {
    let p = random_problem(400, 3, 10, 16, 1.0, false);
    let s = settings(1e-9);
    let cold = LemkePyramid::new().solve(&p, None, &s).unwrap();
    assert_eq!(cold.report.status, Status::Solved);
    let warm = LemkePyramid::new().solve(&p, Some(&cold.r), &s).unwrap();
    assert_eq!(warm.report.status, Status::Solved, "{:?}", warm.report);
    assert_eq!(warm.report.pivots, 0, "{:?}", warm.report);
    assert!(cold.report.pivots > 0);
    // A 2-D problem too (±t generators).
    let p = random_problem(401, 2, 10, 12, 1.0, false);
    let cold = LemkePyramid::new().solve(&p, None, &s).unwrap();
    let warm = LemkePyramid::new().solve(&p, Some(&cold.r), &s).unwrap();
    assert_eq!(warm.report.status, Status::Solved, "{:?}", warm.report);
    assert_eq!(warm.report.pivots, 0, "{:?}", warm.report);
}

#[test]
fn never_solved_above_tol_and_limits_are_honoured() {
    let p = random_problem(500, 3, 8, 12, 1.0, false);
    for tol in [1e-2, 1e-6, 1e-12, 0.0] {
        for (facets, refine) in [(3, 0), (8, 0), (8, 2), (16, 20)] {
            let sol = LemkePyramid { facets, refine, ..LemkePyramid::new() }
                .solve(&p, None, &settings(tol))
                .unwrap();
            assert!(sol.report.status != Status::Solved || sol.report.error <= tol, "{:?}", sol.report);
            let again = p.error(&sol.r, &p.velocity(&sol.r));
            assert_eq!(again, sol.report.error);
        }
    }
    let s = Settings { time_limit: Some(Duration::ZERO), ..Settings::default() };
    let sol = LemkePyramid::new().solve(&p, None, &s).unwrap();
    assert_eq!(sol.report.status, Status::TimeLimit);
    let s = Settings { max_iter: 2, ..Settings::default() };
    let sol = LemkePyramid::new().solve(&p, None, &s).unwrap();
    assert_eq!(sol.report.status, Status::MaxIterations, "{:?}", sol.report);
    assert!(sol.report.pivots <= 2);
    let s = Settings {
        tol: 1e-14,
        observer: Some(Arc::new(|_: &Progress| Control::Stop)),
        ..Settings::default()
    };
    let sol = LemkePyramid::new().solve(&p, None, &s).unwrap();
    assert_eq!(sol.report.status, Status::Interrupted);
}

#[test]
fn sparse_and_dense_lcps_agree() {
    let pd = random_problem(600, 3, 5, 8, 1.0, false);
    let ps = random_problem(600, 3, 5, 8, 1.0, true);
    let cones = pd.cone_objects().unwrap();
    let base: Vec<Vec<f64>> =
        cones.iter().enumerate().map(|(i, c)| if i == 2 { Vec::new() } else { c.linearize(4 + i) }).collect();
    let mut g = Generators::new(2, base);
    // An aligned generator at contact 3 displaces its nearby base generator.
    assert!(g.set_extra(3, &[0.6, 0.8], &[0.6, 0.8]));
    assert_eq!(g.count(3), 7);
    let lay = Layout::new(&g, 5);
    let (a, b) = (build_lcp(&pd, &g, &lay).unwrap(), build_lcp(&ps, &g, &lay).unwrap());
    assert_eq!(a.q(), b.q());
    let (a, b) = (a.m().to_dense(), b.m().to_dense());
    for i in 0..lay.n {
        for j in 0..lay.n {
            assert!((a[(i, j)] - b[(i, j)]).abs() <= 1e-13, "({i}, {j})");
        }
    }
    // Spot check one entry by hand: row c_n of contact 0, column β_0 of contact 1.
    let d1 = g.col(1, 0);
    let want = pd.w.get(0, 4) * d1[0] + pd.w.get(0, 5) * d1[1];
    assert!((a[(0, lay.idx(1, 1))] - want).abs() < 1e-13);
}

/// A start that already solves the problem costs no pivot: r = 0 when every contact separates
/// (q_N > 0, any q_T: the pyramid LCP's sliding variables would have to enter), and a warm
/// start at another solver's answer. A start that does not solve it is pivoted as before.
#[test]
fn a_start_that_solves_the_problem_costs_no_pivot() {
    let mut p = random_problem(5, 3, 6, 24, 1.0, false);
    let sol = LemkePyramid::new().solve(&p, None, &Settings::default()).unwrap();
    assert_eq!(sol.report.status, Status::Solved);
    assert!(sol.report.iterations > 0);
    // Warm at the answer of nsgs (tightly solved): no pivot, the warm start returned.
    let s = Settings { tol: 1e-12, ..Settings::default() };
    let ns = crate::Nsgs::new().solve(&p, None, &s).unwrap();
    assert_eq!(ns.report.status, Status::Solved);
    let warm = LemkePyramid::new().solve(&p, Some(&ns.r), &Settings::default()).unwrap();
    assert_eq!((warm.report.status, warm.report.iterations), (Status::Solved, 0));
    assert_eq!(warm.r, ns.r);
    // Every contact separating, with sliding velocities: r = 0 at once.
    for (i, q) in p.q.iter_mut().enumerate() {
        *q = if i % 3 == 0 { 0.5 + q.abs() } else { *q };
    }
    let zero = LemkePyramid::new().solve(&p, None, &Settings::default()).unwrap();
    assert_eq!((zero.report.status, zero.report.iterations), (Status::Solved, 0));
    assert!(zero.r.iter().all(|&v| v == 0.0));
    assert!(zero.report.message.as_deref().unwrap_or("").contains("zero start"));
}
