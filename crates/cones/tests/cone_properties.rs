//! Property tests of the friction laws: Coulomb 2-D/3-D, Elliptic 2/3/4-D, EllipticMixed,
//! Pyramid 2-D/3-D, Rolling 2-D/3-D (d = 3, 5), with μ ∈ [0, 2], semi-axes in [0.2, 3] and
//! μ_r ∈ [0, 2].
//!
//! Membership, cone samples and polar checks use formulas written here, independent of the
//! code under test.

use perp_cones::{AcInput, CfunOut, Cone, ConeSpec, Coulomb, Elliptic, EllipticMixed, Pyramid, Rolling};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::PI;
use std::sync::Arc;

#[derive(Clone, Debug)]
enum Law {
    Coulomb(usize),
    Elliptic(Vec<f64>),
    Mixed([f64; 3]),
    Pyramid(usize, usize),
    /// Dimension (3 or 5) and μ_r.
    Rolling(usize, f64),
}

impl Law {
    fn build(&self) -> Arc<dyn Cone> {
        match self {
            Law::Coulomb(d) => Arc::new(Coulomb::new(*d).unwrap()),
            Law::Elliptic(e) => Arc::new(Elliptic::new(e).unwrap()),
            Law::Mixed([a, b, c]) => Arc::new(EllipticMixed::new(*a, *b, *c).unwrap()),
            Law::Pyramid(d, m) => Arc::new(Pyramid::new(*d, *m).unwrap()),
            Law::Rolling(d, mr) => Arc::new(Rolling::new(*d, *mr).unwrap()),
        }
    }

    fn dim(&self) -> usize {
        match self {
            Law::Coulomb(d) | Law::Pyramid(d, _) | Law::Rolling(d, _) => *d,
            Law::Elliptic(e) => e.len() + 1,
            Law::Mixed(_) => 4,
        }
    }

    /// Independent membership test: every defining inequality up to `tol·max(1, ‖x‖)`.
    fn member(&self, mu: f64, x: &[f64], tol: f64) -> bool {
        let s = tol * norm(x).max(1.0);
        if x[0] < -s {
            return false;
        }
        match self {
            Law::Coulomb(_) | Law::Pyramid(2, _) => norm(&x[1..]) <= mu * x[0] + s,
            Law::Elliptic(e) => {
                let emin = e.iter().cloned().fold(f64::INFINITY, f64::min);
                let q = e.iter().zip(&x[1..]).map(|(a, b)| (b / a).powi(2)).sum::<f64>().sqrt();
                q <= mu * x[0] + s / emin
            }
            Law::Mixed(e) => {
                let emin = e[0].min(e[1]);
                let q = ((x[1] / e[0]).powi(2) + (x[2] / e[1]).powi(2)).sqrt();
                q <= mu * x[0] + s / emin && x[3].abs() <= e[2] * mu * x[0] + s
            }
            Law::Rolling(d, mr) => {
                let k = (d - 1) / 2;
                norm(&x[1..1 + k]) <= mu * x[0] + s && norm(&x[1 + k..]) <= mr * x[0] + s
            }
            Law::Pyramid(_, m) => {
                let c = (PI / *m as f64).cos();
                (0..*m).all(|j| {
                    let a = (2 * j + 1) as f64 * PI / *m as f64;
                    a.cos() * x[1] + a.sin() * x[2] <= mu * c * x[0] + s
                })
            }
        }
    }

    /// A point of the section `S_μ(1)` from raw parameters: `rad ∈ [0, 1]` scales towards the
    /// boundary (rad = 1 is on it for every law but the mixed one, which takes `side` for the
    /// torsion part).
    fn section_point(&self, mu: f64, dir: &[f64], rad: f64, side: f64) -> Vec<f64> {
        let k = self.dim() - 1;
        let unit = |v: &[f64]| {
            let n = norm(v);
            if n > 0.0 {
                v.iter().map(|a| a / n).collect::<Vec<_>>()
            } else {
                let mut u = vec![0.0; v.len()];
                u[0] = 1.0;
                u
            }
        };
        match self {
            Law::Coulomb(_) | Law::Pyramid(2, _) => unit(&dir[..k]).iter().map(|a| a * mu * rad).collect(),
            Law::Elliptic(e) => unit(&dir[..k]).iter().zip(e).map(|(a, b)| a * b * mu * rad).collect(),
            Law::Mixed(e) => {
                let u = unit(&dir[..2]);
                vec![u[0] * e[0] * mu * rad, u[1] * e[1] * mu * rad, e[2] * mu * side.clamp(-1.0, 1.0)]
            }
            Law::Rolling(3, mr) => vec![mu * rad * dir[0].signum(), mr * rad * side.signum()],
            Law::Rolling(_, mr) => {
                let t = unit(&dir[..2]);
                let r = unit(&[dir[2], side]);
                vec![t[0] * mu * rad, t[1] * mu * rad, r[0] * mr * rad, r[1] * mr * rad]
            }
            Law::Pyramid(_, m) => {
                let ang = dir[1].atan2(dir[0]).rem_euclid(2.0 * PI);
                let step = 2.0 * PI / *m as f64;
                let j = ((ang / step).floor() as usize).min(m - 1);
                let lam = (ang - j as f64 * step) / step;
                let (a0, a1) = (j as f64 * step, (j + 1) as f64 * step);
                vec![
                    mu * rad * ((1.0 - lam) * a0.cos() + lam * a1.cos()),
                    mu * rad * ((1.0 - lam) * a0.sin() + lam * a1.sin()),
                ]
            }
        }
    }

    /// The exact support function of `S_μ(1)`, `h(v) = max {−t·v}`, by formula.
    fn support(&self, mu: f64, v: &[f64]) -> f64 {
        match self {
            Law::Coulomb(_) | Law::Pyramid(2, _) => mu * norm(v),
            Law::Elliptic(e) => mu * e.iter().zip(v).map(|(a, b)| (a * b).powi(2)).sum::<f64>().sqrt(),
            Law::Mixed(e) => {
                mu * ((e[0] * v[0]).powi(2) + (e[1] * v[1]).powi(2)).sqrt() + e[2] * mu * v[2].abs()
            }
            Law::Rolling(d, mr) => {
                let k = (d - 1) / 2;
                mu * norm(&v[..k]) + mr * norm(&v[k..2 * k])
            }
            Law::Pyramid(_, m) => (0..*m)
                .map(|j| {
                    let a = 2.0 * PI * j as f64 / *m as f64;
                    -mu * (a.cos() * v[0] + a.sin() * v[1])
                })
                .fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

fn dist(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt()
}

fn law() -> impl Strategy<Value = Law> {
    prop_oneof![
        (2usize..=3).prop_map(Law::Coulomb),
        prop::collection::vec(0.2f64..3.0, 1..=3).prop_map(Law::Elliptic),
        (0.2f64..3.0, 0.2f64..3.0, 0.2f64..3.0).prop_map(|(a, b, c)| Law::Mixed([a, b, c])),
        Just(Law::Pyramid(2, 2)),
        (3usize..=12).prop_map(|m| Law::Pyramid(3, m)),
        (prop_oneof![Just(3usize), Just(5usize)], prop_oneof![1 => Just(0.0), 4 => 0.0f64..2.0])
            .prop_map(|(d, mr)| Law::Rolling(d, mr)),
    ]
}

fn mu() -> impl Strategy<Value = f64> {
    prop_oneof![1 => Just(0.0), 9 => 0.0f64..2.0]
}

fn vec6() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-3.0f64..3.0, 6)
}

/// Cone elements sampled independently of the code under test: `(s, s·t)`, t in the section,
/// boundary and interior.
fn cone_samples(law: &Law, mu: f64, rng: &mut ChaCha8Rng, n: usize) -> Vec<Vec<f64>> {
    (0..n)
        .map(|i| {
            let dir: Vec<f64> = (0..3).map(|_| rng.random_range(-1.0..1.0)).collect();
            let rad = if i % 2 == 0 { 1.0 } else { rng.random_range(0.0..1.0) };
            let side = if i % 4 == 0 {
                1.0
            } else if i % 4 == 2 {
                -1.0
            } else {
                rng.random_range(-1.0..1.0)
            };
            let s = rng.random_range(0.0..3.0);
            let t = law.section_point(mu, &dir, rad, side);
            std::iter::once(s).chain(t.iter().map(|v| s * v)).collect()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// P_K is idempotent, lands in K, and x = P_K(x) + P_K°(x) with the two orthogonal and
    /// P_K°(x) in the polar (checked against sampled cone elements and the support function);
    /// no sampled cone element is closer to x than P_K(x).
    #[test]
    fn projection_is_a_moreau_decomposition(law in law(), mu in mu(), raw in vec6(), scale in -3.0f64..3.0, seed in 0u64..1000) {
        let cone = law.build();
        let d = cone.dim();
        let x: Vec<f64> = raw[..d].iter().map(|v| v * 10f64.powf(scale)).collect();
        let nx = norm(&x);
        let mut p = vec![0.0; d];
        cone.project(mu, &x, &mut p);
        prop_assert!(law.member(mu, &p, 1e-12), "{law:?} μ={mu} x={x:?}: P(x)={p:?} not in K");
        prop_assert!(cone.contains(mu, &p, 1e-12));
        let mut pp = vec![0.0; d];
        cone.project(mu, &p, &mut pp);
        prop_assert!(dist(&p, &pp) <= 1e-12 * nx.max(1e-300), "not idempotent: {p:?} → {pp:?}");
        let mut y = vec![0.0; d];
        cone.project_polar(mu, &x, &mut y);
        prop_assert!(dot(&p, &y).abs() <= 1e-12 * nx * nx, "P·P° = {}", dot(&p, &y));
        // Polar: y_N + h(−y_T) ≤ 0.
        let neg: Vec<f64> = y[1..].iter().map(|v| -v).collect();
        prop_assert!(y[0] + law.support(mu, &neg) <= 1e-12 * nx, "P°(x) = {y:?} not in K°");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let best = dist(&x, &p);
        for g in cone_samples(&law, mu, &mut rng, 40) {
            prop_assert!(dot(&y, &g) <= 1e-12 * nx * norm(&g), "y·g = {} > 0 for g = {g:?}", dot(&y, &g));
            prop_assert!(dist(&x, &g) >= best - 1e-12 * nx, "{g:?} is closer to {x:?} than {p:?}");
        }
        // The dual projection is consistent: P_K*(x) = x + P_K(−x).
        let mut pd = vec![0.0; d];
        cone.project_dual(mu, &x, &mut pd);
        let negx: Vec<f64> = x.iter().map(|v| -v).collect();
        cone.project(mu, &negx, &mut pp);
        prop_assert!(pd.iter().zip(x.iter().zip(&pp)).all(|(a, (b, c))| (a - b - c).abs() <= 1e-12 * nx));
    }

    /// support(): h(v) ≥ −t·v for every t in the section, attained by the returned maximiser,
    /// which lies in the section; h agrees with the formula.
    #[test]
    fn support_is_the_maximal_dissipation(law in law(), mu in mu(), raw in vec6(), seed in 0u64..1000) {
        let cone = law.build();
        let k = cone.dim() - 1;
        let v = &raw[..k];
        let mut t = vec![0.0; k];
        let h = cone.support(mu, v, &mut t);
        prop_assert!((h - law.support(mu, v)).abs() <= 1e-12 * (1.0 + h.abs()));
        prop_assert!((h + dot(&t, v)).abs() <= 1e-12 * (1.0 + h.abs()), "maximiser does not attain h");
        let mut x = vec![1.0];
        x.extend_from_slice(&t);
        prop_assert!(law.member(mu, &x, 1e-12), "maximiser {t:?} outside the section");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for g in cone_samples(&law, mu, &mut rng, 40) {
            if g[0] > 0.0 {
                let tt: Vec<f64> = g[1..].iter().map(|a| a / g[0]).collect();
                prop_assert!(h >= -dot(&tt, v) - 1e-12 * (1.0 + h.abs()));
            }
        }
    }

    /// The natural map, Alart–Curnier and (μ > 0, ellipsoidal laws) Fischer–Burmeister
    /// functions vanish on complementary pairs — sliding (r on the boundary with the maximal
    /// dissipation force), sticking (u = 0), take-off (r = 0, u_N > 0) — and not on pairs with
    /// r ∈ int K and u_N > 0.
    #[test]
    fn complementarity_functions_vanish_exactly_on_solutions(
        law in law(), mu in mu(), raw in vec6(), rn in 0.2f64..2.0, un in 0.2f64..2.0,
        rho in 0.1f64..2.0, rho_t in 0.1f64..2.0, rad in 0.0f64..0.9,
    ) {
        let cone = law.build();
        let d = cone.dim();
        let k = d - 1;
        let v = &raw[..k];
        let fb = cone.soc_map(mu).is_some();
        let mut phi = vec![0.0; d];
        let check = |r: &[f64], u: &[f64], phi: &mut [f64], zero: bool| -> Result<(), TestCaseError> {
            let scale = 1.0 + norm(r) + norm(u);
            let ok = |p: &[f64]| if zero { norm(p) <= 1e-11 * scale } else { norm(p) >= 1e-6 };
            cone.natural_map(mu, rho, r, u, phi, None);
            prop_assert!(ok(phi), "natural map {phi:?} at r={r:?} u={u:?} (zero expected: {zero})");
            cone.alart_curnier(AcInput { mu, rho_n: rho, rho_t, r, u }, CfunOut { phi, jac: None });
            prop_assert!(ok(phi), "Alart–Curnier {phi:?} at r={r:?} u={u:?} (zero expected: {zero})");
            if fb {
                cone.fischer_burmeister(mu, r, u, phi, None).unwrap();
                prop_assert!(ok(phi), "FB {phi:?} at r={r:?} u={u:?} (zero expected: {zero})");
            }
            Ok(())
        };
        // Sliding: u = (0, v), r = (r_N, max-dissipation force).
        let mut rt = vec![0.0; k];
        cone.max_dissipation_force(mu, rn, v, &mut rt);
        let r: Vec<f64> = std::iter::once(rn).chain(rt.iter().cloned()).collect();
        let u: Vec<f64> = std::iter::once(0.0).chain(v.iter().cloned()).collect();
        prop_assert!(law.member(mu, &r, 1e-12));
        check(&r, &u, &mut phi, true)?;
        // Sticking: r ∈ K, u = 0.
        let t = law.section_point(mu, &raw[3..], rad, 2.0 * rad - 1.0);
        let r: Vec<f64> = std::iter::once(rn).chain(t.iter().map(|a| rn * a)).collect();
        check(&r, &vec![0.0; d], &mut phi, true)?;
        // Take-off: r = 0, u_N > 0.
        let u: Vec<f64> = std::iter::once(un).chain(v.iter().cloned()).collect();
        check(&vec![0.0; d], &u, &mut phi, true)?;
        // Not complementary: r ∈ K with r_N > 0 and u_N > 0.
        check(&r, &u, &mut phi, false)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Jacobians against central differences, away from kinks.

/// Compares column j of `exact` (row-major `nout × n`) with central differences of `f` at `x`
/// (step 1e-6·max(1, ‖x‖)). A column passes when it matches to 1e-6; a mismatching column is
/// skipped when the one-sided differences disagree (a kink within one step); otherwise the
/// check fails. Returns (checked, skipped) column counts.
fn fd_compare(
    f: &dyn Fn(&[f64], &mut [f64]),
    x: &[f64],
    exact: &[f64],
    nout: usize,
    what: &str,
) -> Result<(usize, usize), String> {
    let n = x.len();
    let h = 1e-6 * norm(x).max(1.0);
    let mut f0 = vec![0.0; nout];
    f(x, &mut f0);
    let (mut fp, mut fm) = (vec![0.0; nout], vec![0.0; nout]);
    let (mut checked, mut skipped) = (0, 0);
    for j in 0..n {
        let mut xp = x.to_vec();
        xp[j] += h;
        f(&xp, &mut fp);
        xp[j] = x[j] - h;
        f(&xp, &mut fm);
        let mut bad = None;
        let mut kink = false;
        for i in 0..nout {
            let central = (fp[i] - fm[i]) / (2.0 * h);
            let fwd = (fp[i] - f0[i]) / h;
            let bwd = (f0[i] - fm[i]) / h;
            let ex = exact[i * n + j];
            if (central - ex).abs() > 1e-6 * (1.0 + ex.abs()) {
                bad = Some((i, central, ex));
            }
            if (fwd - bwd).abs() > 1e-6 * (1.0 + fwd.abs().max(bwd.abs())) {
                kink = true;
            }
        }
        match bad {
            None => checked += 1,
            Some(_) if kink => skipped += 1,
            Some((i, c, e)) => {
                return Err(format!("{what}: entry ({i}, {j}) at {x:?}: differences {c}, exact {e}"));
            }
        }
    }
    Ok((checked, skipped))
}

/// Runs every Jacobian check for one law at random points; returns (checked, skipped).
fn jacobian_checks(law: &Law, mu: f64, rng: &mut ChaCha8Rng) -> Result<(usize, usize), String> {
    let cone = law.build();
    let d = cone.dim();
    let k = d - 1;
    let mut tot = (0, 0);
    let mut add = |r: Result<(usize, usize), String>| -> Result<(), String> {
        let (a, b) = r?;
        tot.0 += a;
        tot.1 += b;
        Ok(())
    };
    let rv = |rng: &mut ChaCha8Rng, n: usize| -> Vec<f64> {
        (0..n).map(|_| rng.random_range(-2.0..2.0)).collect()
    };
    // project_jacobian.
    let x = rv(rng, d);
    let (mut p, mut j) = (vec![0.0; d], vec![0.0; d * d]);
    cone.project_jacobian(mu, &x, &mut p, &mut j);
    add(fd_compare(&|x, o| cone.project(mu, x, o), &x, &j, d, &format!("{law:?} μ={mu} project_jacobian")))?;
    // project_section: jac_t and jac_xi.
    let t = rv(rng, k);
    let xi = rng.random_range(0.05..2.0);
    let (mut o, mut jt, mut jx) = (vec![0.0; k], vec![0.0; k * k], vec![0.0; k]);
    cone.project_section(mu, xi, &t, &mut o, Some(&mut jt), Some(&mut jx));
    add(fd_compare(
        &|t, o| cone.project_section(mu, xi, t, o, None, None),
        &t,
        &jt,
        k,
        &format!("{law:?} μ={mu} section jac_t"),
    ))?;
    add(fd_compare(
        &|xi, o| cone.project_section(mu, xi[0], &t, o, None, None),
        &[xi],
        &jx,
        k,
        &format!("{law:?} μ={mu} section jac_xi"),
    ))?;
    // natural_map, alart_curnier, fischer_burmeister: w.r.t. r and u.
    let r = rv(rng, d);
    let u = rv(rng, d);
    let rho = rng.random_range(0.2..2.0);
    let rho_t = rng.random_range(0.2..2.0);
    type F<'a> = Box<dyn Fn(&[f64], &[f64], &mut [f64], Option<(&mut [f64], &mut [f64])>) + 'a>;
    let mut funcs: Vec<(&str, F)> = vec![
        ("natural_map", Box::new(|r, u, p, j| cone.natural_map(mu, rho, r, u, p, j))),
        (
            "alart_curnier",
            Box::new(|r, u, p, j| {
                cone.alart_curnier(AcInput { mu, rho_n: rho, rho_t, r, u }, CfunOut { phi: p, jac: j })
            }),
        ),
    ];
    if cone.soc_map(mu).is_some() {
        funcs.push((
            "fischer_burmeister",
            Box::new(|r, u, p, j| cone.fischer_burmeister(mu, r, u, p, j).unwrap()),
        ));
    }
    for (name, f) in &funcs {
        let (mut phi, mut jr, mut ju) = (vec![0.0; d], vec![0.0; d * d], vec![0.0; d * d]);
        f(&r, &u, &mut phi, Some((&mut jr, &mut ju)));
        add(fd_compare(&|r, o| f(r, &u, o, None), &r, &jr, d, &format!("{law:?} μ={mu} {name} ∂/∂r")))?;
        add(fd_compare(&|u, o| f(&r, u, o, None), &u, &ju, d, &format!("{law:?} μ={mu} {name} ∂/∂u")))?;
    }
    Ok(tot)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Exact Jacobians (projection, section projection, natural map, Alart–Curnier, FB) agree
    /// with central differences wherever no kink lies within one step.
    #[test]
    fn jacobians_match_central_differences(law in law(), mu in mu(), seed in 0u64..100_000) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let r = jacobian_checks(&law, mu, &mut rng);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}

/// The kink-skipping rule is not vacuous: over many random points, nearly every column is
/// actually compared.
#[test]
fn jacobian_checks_cover_almost_every_column() {
    let laws = [
        Law::Coulomb(2),
        Law::Coulomb(3),
        Law::Elliptic(vec![0.7]),
        Law::Elliptic(vec![1.0, 0.4]),
        Law::Elliptic(vec![2.0, 0.5, 0.3]),
        Law::Mixed([1.5, 0.6, 0.4]),
        Law::Pyramid(2, 2),
        Law::Pyramid(3, 5),
        Law::Rolling(3, 0.7),
        Law::Rolling(5, 0.3),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for law in &laws {
        let (mut checked, mut skipped) = (0, 0);
        for _ in 0..300 {
            let mu = rng.random_range(0.05..2.0);
            let (c, s) = jacobian_checks(law, mu, &mut rng).unwrap();
            checked += c;
            skipped += s;
        }
        assert!(skipped * 50 <= checked, "{law:?}: {skipped} columns skipped, {checked} checked");
    }
}

// ---------------------------------------------------------------------------------------------
// Linearisation and pyramid convergence.

/// Hausdorff distance between the section `S_1(1)` and the polytope conv{D's columns}, as the
/// largest support-function gap over `n` directions (both convex; the polytope is inscribed).
fn hausdorff_gap(law: &Law, dcols: &[f64], k: usize, dirs: &[Vec<f64>]) -> f64 {
    let mut worst = 0.0f64;
    for v in dirs {
        let neg: Vec<f64> = v.iter().map(|a| -a).collect();
        let hk = law.support(1.0, &neg); // max t·v over the section
        let hp = dcols.chunks(k).map(|c| dot(c, v)).fold(f64::NEG_INFINITY, f64::max);
        assert!(hp <= hk + 1e-12, "{law:?}: linearisation not inscribed ({hp} > {hk})");
        worst = worst.max(hk - hp);
    }
    worst
}

fn unit_dirs(k: usize, n: usize, rng: &mut ChaCha8Rng) -> Vec<Vec<f64>> {
    (0..n)
        .map(|_| {
            let v: Vec<f64> = (0..k).map(|_| rng.random_range(-1.0..1.0)).collect();
            let nv = norm(&v);
            v.iter().map(|a| a / nv).collect()
        })
        .collect()
}

#[test]
fn pyramid_converges_to_coulomb_like_one_over_m_squared() {
    let mu = 0.8;
    let coulomb = Coulomb::new(3).unwrap();
    let mut prev = f64::NAN;
    for m in [8usize, 16, 32, 64, 128] {
        let pyr = Pyramid::new(3, m).unwrap();
        // Hausdorff-type distance via projections: boundary points of the Coulomb cone to the
        // pyramid (the farthest are above the facet midpoints).
        let mut gap = 0.0f64;
        for i in 0..4096 {
            let a = 2.0 * PI * i as f64 / 4096.0;
            let x = [1.0, mu * a.cos(), mu * a.sin()];
            let mut p = [0.0; 3];
            pyr.project(mu, &x, &mut p);
            gap = gap.max(dist(&x, &p));
        }
        // Exact: the distance from (1, μ, 0)-type points above a facet midpoint to the facet.
        let c = (PI / m as f64).cos();
        let exact = mu * (1.0 - c) / (1.0 + mu * mu * c * c).sqrt();
        assert!((gap - exact).abs() <= 1e-3 * exact, "m = {m}: {gap} vs {exact}");
        if prev.is_finite() {
            let ratio = prev / gap;
            assert!((3.9..4.1).contains(&ratio), "m = {m}: ratio {ratio}");
        }
        prev = gap;
        // Projections of arbitrary points converge too (more slowly near the edges: O(1/m)).
        let mut rng = ChaCha8Rng::seed_from_u64(m as u64);
        for _ in 0..200 {
            let x: Vec<f64> = (0..3).map(|_| rng.random_range(-2.0..2.0)).collect();
            let (mut a, mut b) = ([0.0; 3], [0.0; 3]);
            pyr.project(mu, &x, &mut a);
            coulomb.project(mu, &x, &mut b);
            assert!(dist(&a, &b) <= 4.0 * PI / m as f64 * norm(&x), "m = {m}: {a:?} vs {b:?}");
        }
    }
}

#[test]
fn elliptic_linearization_is_inscribed_and_converges() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    // 3-D: O(1/m²).
    let law = Law::Elliptic(vec![2.0, 0.5]);
    let cone = law.build();
    let dirs = unit_dirs(2, 4000, &mut rng);
    let gaps: Vec<f64> =
        [16usize, 32, 64, 128].iter().map(|&m| hausdorff_gap(&law, &cone.linearize(m), 2, &dirs)).collect();
    for w in gaps.windows(2) {
        let ratio = w[0] / w[1];
        assert!((3.0..5.0).contains(&ratio), "3-D gaps {gaps:?}");
    }
    // 4-D (torsion): points spread over a 2-D surface, spacing ~ m^{-1/2}: gap O(1/m).
    let law = Law::Elliptic(vec![1.0, 1.0, 0.4]);
    let cone = law.build();
    let dirs = unit_dirs(3, 4000, &mut rng);
    let mut prev = f64::INFINITY;
    for m in [22usize, 86, 342, 1366] {
        let dcols = cone.linearize(m);
        assert_eq!(dcols.len(), 3 * m);
        let gap = hausdorff_gap(&law, &dcols, 3, &dirs);
        assert!(gap < prev && gap * m as f64 <= 8.0, "m = {m}: gap {gap}");
        prev = gap;
    }
    // Pure torsion and pure sliding are exact directions (Trinkle–Tzitzouris–Pang 2001 eq. 5's columns).
    let dcols = cone.linearize(22);
    assert!(dcols.chunks(3).any(|c| c == [0.0, 0.0, 0.4]));
    assert!(dcols.chunks(3).any(|c| (c[0] - 1.0).abs() < 1e-15 && c[1].abs() < 1e-15 && c[2] == 0.0));
    // Pyramid: its own generators, whatever m is asked; 2-D: ±1; the mixed cone: inscribed.
    let pyr = Pyramid::new(3, 6).unwrap();
    assert_eq!(pyr.linearize(50).len(), 12);
    assert_eq!(Pyramid::new(2, 2).unwrap().linearize(8), vec![1.0, -1.0]);
    let law = Law::Mixed([1.0, 0.5, 0.3]);
    let dirs = unit_dirs(3, 2000, &mut rng);
    let g1 = hausdorff_gap(&law, &law.build().linearize(16), 3, &dirs);
    let g2 = hausdorff_gap(&law, &law.build().linearize(64), 3, &dirs);
    assert!(g2 < g1 / 4.0, "{g1} {g2}");
}

// ---------------------------------------------------------------------------------------------
// Closed forms and bad input.

#[test]
fn soc_maps_preserve_membership_and_complementarity() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for law in [Law::Coulomb(3), Law::Elliptic(vec![0.5]), Law::Elliptic(vec![2.0, 0.3, 0.7])] {
        let cone = law.build();
        let d = cone.dim();
        assert!(cone.soc_map(0.0).is_none());
        for _ in 0..500 {
            let mu = rng.random_range(0.05..2.0);
            let map = cone.soc_map(mu).unwrap();
            let x: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
            let ax: Vec<f64> = x.iter().zip(&map.a).map(|(a, b)| a * b).collect();
            let in_l = norm(&ax[1..]) <= ax[0];
            assert_eq!(in_l, law.member(mu, &x, 0.0), "{law:?}");
            // u ∈ K* ⟺ u_N ≥ h(−u_T) (dual cone by the support function).
            let bx: Vec<f64> = x.iter().zip(&map.b).map(|(a, b)| a * b).collect();
            let neg: Vec<f64> = x[1..].iter().map(|v| -v).collect();
            let margin = x[0] - law.support(mu, &neg);
            if margin.abs() > 1e-9 {
                assert_eq!(norm(&bx[1..]) <= bx[0], margin > 0.0);
            }
            let y: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
            let by: Vec<f64> = y.iter().zip(&map.b).map(|(a, b)| a * b).collect();
            assert!((dot(&ax, &by) - mu * dot(&x, &y)).abs() < 1e-12 * (1.0 + norm(&x) * norm(&y)));
        }
    }
    assert!(Pyramid::new(3, 8).unwrap().soc_map(0.5).is_none());
    assert!(EllipticMixed::new(1.0, 1.0, 1.0).unwrap().soc_map(0.5).is_none());
}

#[test]
fn special_cases_reduce_to_coulomb() {
    let c3 = Coulomb::new(3).unwrap();
    let c2 = Coulomb::new(2).unwrap();
    let e11 = Elliptic::new(&[1.0, 1.0]).unwrap();
    let p2 = Pyramid::new(2, 2).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..1000 {
        let mu = rng.random_range(0.0..2.0);
        let x: Vec<f64> = (0..3).map(|_| rng.random_range(-2.0..2.0)).collect();
        let (mut a, mut b) = ([0.0; 3], [0.0; 3]);
        e11.project(mu, &x, &mut a);
        c3.project(mu, &x, &mut b);
        assert!(dist(&a, &b) <= 1e-14 * norm(&x), "{x:?}");
        let (mut a, mut b) = ([0.0; 2], [0.0; 2]);
        p2.project(mu, &x[..2], &mut a);
        c2.project(mu, &x[..2], &mut b);
        assert_eq!(a, b);
    }
}

#[test]
fn bad_input_is_an_error_naming_the_field() {
    let msg = |r: Result<(), perp_cones::Error>| r.unwrap_err().to_string();
    let e = msg(Elliptic::new(&[1.0, 0.0]).map(|_| ()));
    assert!(e.contains("e[1]") && e.contains('0'), "{e}");
    let e = msg(Elliptic::new(&[-0.5]).map(|_| ()));
    assert!(e.contains("e[0]") && e.contains("-0.5"), "{e}");
    let e = msg(Elliptic::new(&[1.0, 1.0, f64::NAN]).map(|_| ()));
    assert!(e.contains("e[2]") && e.contains("NaN"), "{e}");
    let e = msg(Elliptic::new(&[1.0, f64::INFINITY]).map(|_| ()));
    assert!(e.contains("e[1]") && e.contains("inf"), "{e}");
    let e = msg(Elliptic::new(&[1.0; 4]).map(|_| ()));
    assert!(e.contains("invalid setting e ="), "{e}");
    assert!(msg(Elliptic::new(&[]).map(|_| ())).contains("invalid setting e ="));
    assert!(msg(EllipticMixed::new(f64::NAN, 1.0, 1.0).map(|_| ())).contains("e_t"));
    assert!(msg(EllipticMixed::new(1.0, -1.0, 1.0).map(|_| ())).contains("e_o"));
    assert!(msg(EllipticMixed::new(1.0, 1.0, 0.0).map(|_| ())).contains("e_r"));
    for (d, m) in [(2usize, 4usize), (3, 2), (3, 1)] {
        let e = msg(Pyramid::new(d, m).map(|_| ()));
        assert!(e.contains("facets") && e.contains(&m.to_string()), "{e}");
    }
    assert!(msg(Pyramid::new(4, 8).map(|_| ())).contains("dim"));
    assert!(msg(Coulomb::new(4).map(|_| ())).contains("dim"));
    // Friction coefficient.
    for cone in [
        Arc::new(Elliptic::new(&[1.0, 0.5]).unwrap()) as Arc<dyn Cone>,
        Arc::new(EllipticMixed::new(1.0, 0.5, 0.2).unwrap()),
        Arc::new(Pyramid::new(3, 6).unwrap()),
    ] {
        assert!(cone.check(0.3).is_ok());
        assert!(msg(cone.check(-0.1)).contains("mu"));
        assert!(msg(cone.check(f64::NAN)).contains("mu"));
    }
    // Through ConeSpec: wrong dimension and bad axes.
    let e = ConeSpec::Elliptic { e: vec![1.0, 1.0] }.build(4).unwrap_err().to_string();
    assert!(e.contains("elliptic(1,1)"), "{e}");
    let e = ConeSpec::Elliptic { e: vec![1.0, -1.0, 1.0] }.build(4).unwrap_err().to_string();
    assert!(e.contains("e[1]"), "{e}");
    let e = ConeSpec::Pyramid { facets: 2 }.build(3).unwrap_err().to_string();
    assert!(e.contains("facets"), "{e}");
    assert!(ConeSpec::Pyramid { facets: 2 }.build(2).is_ok());
    assert!(ConeSpec::Elliptic { e: vec![1.0, 1.0, 0.4] }.build(4).is_ok());
}
