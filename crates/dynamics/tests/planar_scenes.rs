//! The planar scenes (`scenes::planar`) do what their sources say: Painlevé's rod stops sliding
//! by an impulse (Stewart 2000 §1.3), the spinning rod's impact dissipates (fig. 2.4), Moreau's
//! frictional catastrophe happens (Moreau 1988 example 15.3), a ball bounces with Newton's law
//! (Glocker–Studer 2005 eq. 11), a block slides down an incline with `g (sin α − μ cos α)`, and a resting
//! block's normal impulses carry its weight exactly.
//!
//! Reference values are computed here from the mechanics (closed forms, the paper's formulas),
//! never taken from the stepper.

use perp_core::Status;
use perp_dynamics::scenes::planar::{
    BlockIncline, BouncingBall, FrictionalCatastrophe, PainleveImpact, PainleveRod, G,
};
use perp_dynamics::scenes::{self, Scene};
use perp_dynamics::{Directions, Formulation, Simulator, StepOptions, System};

/// The contact rows at `q` evaluated on `u`: `(normal velocity, tangential velocity)`.
fn contact_velocity(s: &dyn System, q: &[f64], u: &[f64], i: usize) -> (f64, f64) {
    let c = &s.contacts(q, 0.0)[i];
    (c.normal.dot(u), c.tangents[0].dot(u))
}

fn midpoint(q: &[f64], u: &[f64], dt: f64) -> Vec<f64> {
    q.iter().zip(u).map(|(a, b)| a + 0.5 * dt * b).collect()
}

fn min_gap(s: &dyn System, q: &[f64]) -> f64 {
    s.contacts(q, 0.0).iter().map(|c| c.gap).fold(f64::INFINITY, f64::min)
}

#[test]
fn every_planar_scene_is_in_the_catalog_and_starts() {
    for name in
        ["painleve-rod", "painleve-impact", "frictional-catastrophe", "bouncing-ball", "block-incline"]
    {
        let scene = scenes::scene(name, None).unwrap();
        assert_eq!(scene.name(), name);
        let (q0, u0) = scene.initial_state();
        assert!(scene.energy(&q0, &u0).is_some_and(f64::is_finite), "{name}: energy");
        let (qn, un) = scene.state_names();
        assert_eq!((qn.len(), un.len()), (3, 3));
        let sys: &dyn System = scene.as_ref();
        let mut sim = Simulator::new(sys, q0, u0, scene.default_dt(), scene.default_options()).unwrap();
        for _ in 0..20 {
            sim.step().unwrap();
        }
        assert!(sim.q.iter().chain(&sim.u).all(|x| x.is_finite()), "{name}");
        assert_eq!(sim.stats.unsolved, 0, "{name}");
    }
}

/// Eq. 1.5 of Stewart 2000 written out here, and the same coefficient from the scene's rows and
/// mass matrix: `w_Nᵀ M⁻¹ (w_N + μ w_T)` (friction `+μN` along +x for a rod sliding left).
#[test]
fn painleve_coefficient_is_negative_for_the_chosen_rod() {
    let rod = PainleveRod::new();
    let (m, l, j, mu, th) = (rod.rod.m, rod.rod.l, rod.rod.j, rod.rod.mu, rod.theta0);
    assert!((j - m * l * l / 12.0).abs() < 1e-15, "a uniform rod");
    let eq15 = 1.0 / m - (l * l / (4.0 * j)) * th.cos() * (mu * th.sin() - th.cos());
    assert!(eq15 < 0.0, "eq. 1.5 coefficient {eq15}");
    assert!((rod.painleve_coefficient(th) - eq15).abs() < 1e-12);
    let (q0, u0) = rod.initial_state();
    let c = &rod.contacts(&q0, 0.0)[0];
    assert!(c.gap.abs() < 1e-15, "the lower end touches the table");
    let (_, vt) = contact_velocity(&rod, &q0, &u0, 0);
    assert!(vt < 0.0, "the lower end slides left");
    let minv = [1.0 / m, 1.0 / m, 1.0 / j];
    let n: Vec<f64> = (0..3).map(|k| c.normal.dot(&unit(k))).collect();
    let t: Vec<f64> = (0..3).map(|k| c.tangents[0].dot(&unit(k))).collect();
    let rows = (0..3).map(|k| n[k] * minv[k] * (n[k] + mu * t[k])).sum::<f64>();
    assert!((rows - eq15).abs() < 1e-12, "rows give {rows}, eq. 1.5 gives {eq15}");
}

fn unit(k: usize) -> [f64; 3] {
    let mut e = [0.0; 3];
    e[k] = 1.0;
    e
}

/// The velocity-level step resolves Painlevé's paradox by an impulse: the first step stops the
/// sliding of the lower end (stick inside the cone), with a normal impulse of order `m |ẋ₀|`
/// that does not shrink with Δt, equal to the `Δt → 0` impact solution `W Λ = −γ_A`.
#[test]
fn painleve_rod_stops_sliding_in_one_step() {
    let rod = PainleveRod::new();
    let (q0, u0) = rod.initial_state();
    // The impulsive solution for Δt → 0: stick, W Λ = −(γ_N, γ_T) at q0 with W = J M⁻¹ Jᵀ.
    let c = &rod.contacts(&q0, 0.0)[0];
    let minv = [1.0 / rod.rod.m, 1.0 / rod.rod.m, 1.0 / rod.rod.j];
    let rows: Vec<Vec<f64>> =
        [&c.normal, &c.tangents[0]].iter().map(|r| (0..3).map(|k| r.dot(&unit(k))).collect()).collect();
    let w = |a: usize, b: usize| (0..3).map(|k| rows[a][k] * minv[k] * rows[b][k]).sum::<f64>();
    let (ga_n, ga_t) = contact_velocity(&rod, &q0, &u0, 0);
    let det = w(0, 0) * w(1, 1) - w(0, 1) * w(1, 0);
    let lam_n = (-ga_n * w(1, 1) + ga_t * w(0, 1)) / det;
    let lam_t = (-ga_t * w(0, 0) + ga_n * w(1, 0)) / det;
    assert!(lam_n > 0.0 && lam_t.abs() < rod.rod.mu * lam_n, "stick inside the cone: {lam_n}, {lam_t}");
    for formulation in [Formulation::GlockerStuder, Formulation::StewartTrinkle(Directions::Uniform(2))] {
        for dt in [1e-3, 1e-4] {
            let opts = StepOptions { formulation: formulation.clone(), ..rod.default_options() };
            let mut sim = Simulator::new(&rod, q0.clone(), u0.clone(), dt, opts).unwrap();
            let (qa, ua) = (sim.q.clone(), sim.u.clone());
            let rep = sim.step().unwrap();
            assert_eq!(rep.active, vec![0], "{formulation:?}: the lower end is in contact");
            assert_eq!(rep.status, Some(Status::Solved));
            let qm = midpoint(&qa, &ua, dt);
            let (vn_m, vt_m) = contact_velocity(&rod, &qm, &sim.u, 0);
            assert!(vt_m.abs() < 1e-9 && vn_m.abs() < 1e-9, "{formulation:?} dt {dt}: ({vn_m}, {vt_m})");
            // At the end of the step the rows have turned by ½Δt θ̇: the end's velocity is O(Δt).
            let (vn_e, vt_e) = contact_velocity(&rod, &sim.q, &sim.u, 0);
            let bound = dt * rod.rod.l * sim.u[2].powi(2) + 1e-9;
            assert!(vt_e.abs() < bound && vn_e.abs() < bound, "dt {dt}: ({vn_e}, {vt_e}) vs {bound}");
            let (pn, pt) = (rep.impulses[0], rep.impulses[1]);
            assert!(pn > 20.0 * rod.rod.m * G * dt, "an impulse, not a force: Λ_N = {pn}");
            let rel = ((pn - lam_n) / lam_n).abs().max(((pt - lam_t) / lam_t).abs());
            assert!(rel < 10.0 * G * dt, "dt {dt}: ({pn}, {pt}) vs the impact solution ({lam_n}, {lam_t})");
        }
    }
}

/// The whole default run: no NaN, no penetration beyond `O(Δt v)`, no energy gain, and the end
/// keeps sticking after the first step.
#[test]
fn painleve_rod_run_stays_admissible() {
    let rod = PainleveRod::new();
    let (q0, u0) = rod.initial_state();
    let dt = rod.default_dt();
    let mut sim = Simulator::new(&rod, q0.clone(), u0.clone(), dt, rod.default_options()).unwrap();
    let e0 = rod.energy(&q0, &u0).unwrap();
    let vmax = u0.iter().map(|x| x.abs()).fold(0.0, f64::max) + G * rod.default_t_end();
    while sim.t < rod.default_t_end() {
        sim.step().unwrap();
        assert!(sim.q.iter().chain(&sim.u).all(|x| x.is_finite()));
        let g = min_gap(&rod, &sim.q);
        assert!(g > -dt * vmax, "t {}: penetration {g}", sim.t);
        let e = rod.energy(&sim.q, &sim.u).unwrap();
        assert!(e <= e0 + 1e-9 * e0.abs(), "t {}: energy {e} > {e0}", sim.t);
    }
    assert_eq!(sim.stats.unsolved, 0);
}

/// Seed 000 fig. 2.4: the spinning rod falls and strikes the table; inelastic impacts. No NaN;
/// penetration bounded by `Δt` times the impact speed and frozen once the rod rests; the
/// energy never above its initial value and dissipated by the impacts. (Step by step the
/// midpoint rule may gain `O(Δt²)` while a contact's rows turn during a step, the rod pivoting
/// on its end: `ΔE = ½ (γ_A + γ_E)·Λ` with `γ_A = O(Δt)` on the new rows.)
#[test]
fn painleve_impact_is_dissipative_and_admissible() {
    let scene = PainleveImpact::new();
    let (q0, u0) = scene.initial_state();
    assert!(u0[0] == 0.0 && u0[1] == 0.0 && u0[2] > 0.0, "spinning counterclockwise, centre at rest");
    let dt = scene.default_dt();
    let mut sim = Simulator::new(&scene, q0.clone(), u0.clone(), dt, scene.default_options()).unwrap();
    let e0 = scene.energy(&q0, &u0).unwrap();
    // Fastest possible end speed: free fall from y0 plus the spin.
    let vmax = (2.0 * G * scene.y0).sqrt() + u0[2].abs() * scene.rod.l / 2.0;
    let (mut e_prev, mut first_contact, mut first_impulse) = (e0, None, None);
    let mut pens = Vec::new();
    while sim.t < scene.default_t_end() {
        let (ua, qa) = (sim.u.clone(), sim.q.clone());
        let rep = sim.step().unwrap();
        assert!(sim.q.iter().chain(&sim.u).all(|x| x.is_finite()), "t {}", sim.t);
        if first_contact.is_none() && !rep.active.is_empty() {
            first_contact = Some(sim.t);
            first_impulse = Some((rep.active[0], rep.impulses.clone(), qa, ua));
        }
        pens.push((-min_gap(&scene, &sim.q)).max(0.0));
        let e = scene.energy(&sim.q, &sim.u).unwrap();
        assert!(e <= e0 + 1e-9 * e0.abs(), "t {}: energy {e} above the initial {e0}", sim.t);
        assert!(
            e <= e_prev + 10.0 * G * scene.rod.l * dt * dt,
            "t {}: energy grew from {e_prev} to {e}",
            sim.t
        );
        e_prev = e;
    }
    let t_hit = first_contact.expect("the rod reaches the table");
    // Free fall of the centre until an end reaches the table: (l/2)|sin θ(t)| = y0 − g t²/2.
    let hit =
        |t: f64| scene.y0 - 0.5 * G * t * t - 0.5 * scene.rod.l * (scene.theta0 + u0[2] * t).sin().abs();
    let mut t_free = 0.0;
    while hit(t_free) > 0.0 {
        t_free += 1e-5;
    }
    assert!((t_hit - t_free).abs() < 2.0 * dt, "first contact at {t_hit}, free flight ends at {t_free}");
    // The impact changes the horizontal velocity of the striking end (Stewart 2000 §2.2).
    let (i, imp, qa, ua) = first_impulse.unwrap();
    let pn = imp[2 * i];
    assert!(pn > 0.0 && imp[2 * i + 1] != 0.0, "a frictional impact: {imp:?}");
    let qm = midpoint(&qa, &ua, dt);
    let (_, vt_before) = contact_velocity(&scene, &qm, &ua, i);
    let u_after = sim_velocity_after(&scene, &qa, &ua, dt);
    let (_, vt_after) = contact_velocity(&scene, &qm, &u_after, i);
    assert!((vt_after - vt_before).abs() > 0.1 * vt_before.abs(), "ẋ_c {vt_before} → {vt_after}");
    let pen_max = pens.iter().cloned().fold(0.0, f64::max);
    assert!(pen_max < dt * vmax, "penetration {pen_max} vs Δt v = {}", dt * vmax);
    let n = pens.len();
    assert!((pens[n - 1] - pens[n - 100]).abs() < 1e-9, "penetration drifts at rest: {:?}", &pens[n - 100..]);
    assert!(sim.u.iter().all(|v| v.abs() < 1e-9), "at rest at the end: {:?}", sim.u);
    let e_end = scene.energy(&sim.q, &sim.u).unwrap();
    assert!(e_end < 0.5 * e0, "inelastic impacts dissipate: {e0} → {e_end}");
    assert_eq!(sim.stats.unsolved, 0);
}

/// The velocity after one step from `(q, u)`.
fn sim_velocity_after(scene: &PainleveImpact, q: &[f64], u: &[f64], dt: f64) -> Vec<f64> {
    let mut sim = Simulator::new(scene, q.to_vec(), u.to_vec(), dt, scene.default_options()).unwrap();
    sim.step().unwrap();
    sim.u
}

/// Seed 003 example 15.3: persistent sliding to the right, then in one step the sliding
/// velocity drops, the clockwise spin grows, and the contact breaks with (nearly) zero normal
/// velocity, as the sliding coefficient of N reaches zero.
#[test]
fn frictional_catastrophe_happens() {
    let fc = FrictionalCatastrophe::new();
    let (q0, u0) = fc.initial_state();
    assert!(fc.gap(&q0).abs() < 1e-15 && fc.normal_velocity(&q0, &u0).abs() < 1e-15);
    assert!(u0[2] < 0.0 && fc.slip_velocity(&q0, &u0) > 0.0, "Moreau's initial conditions");
    let coef0 = fc.sliding_coefficient(q0[2]);
    assert!(coef0 > 0.0, "sliding is consistent at the start");
    let dt = fc.default_dt();
    let mut sim = Simulator::new(&fc, q0, u0, dt, fc.default_options()).unwrap();
    // (t, slip before, slip after, ω before, ω after, Λ_N, coefficient, gap after, v_N after)
    let mut steps = Vec::new();
    while sim.t < fc.default_t_end() {
        let (q, u) = (sim.q.clone(), sim.u.clone());
        let rep = sim.step().unwrap();
        assert!(sim.q.iter().chain(&sim.u).all(|x| x.is_finite()));
        steps.push((
            sim.t,
            fc.slip_velocity(&q, &u),
            fc.slip_velocity(&sim.q, &sim.u),
            u[2],
            sim.u[2],
            rep.impulses[0],
            fc.sliding_coefficient(q[2]),
            fc.gap(&sim.q),
            fc.normal_velocity(&sim.q, &sim.u),
        ));
    }
    assert_eq!(sim.stats.unsolved, 0);
    let k = (0..steps.len()).max_by(|&a, &b| {
        let d = |s: &(f64, f64, f64, f64, f64, f64, f64, f64, f64)| s.1 - s.2;
        d(&steps[a]).total_cmp(&d(&steps[b]))
    });
    let k = k.unwrap();
    let (t, s_before, s_after, w_before, w_after, pn, coef, _, vn) = steps[k];
    eprintln!(
        "catastrophe at t = {t:.4}: slip {s_before:.4} → {s_after:.4}, ω {w_before:.4} → {w_after:.4}, \
         Λ_N = {pn:.4}, coefficient {coef:.4}, v_N after {vn:.2e}"
    );
    // An episode of sliding of constant direction before it.
    assert!(t > 0.02, "sliding lasts a while first");
    assert!(steps[..k].iter().all(|s| s.2 > 0.5 * s_before), "sliding to the right until then");
    let smooth = steps[..k].iter().map(|s| (s.1 - s.2).abs()).fold(0.0, f64::max);
    let drop = s_before - s_after;
    assert!(drop > 0.5 * s_before, "the sliding velocity drops by {drop} of {s_before}");
    assert!(drop > 10.0 * smooth, "a jump ({drop}), not the smooth deceleration (≤ {smooth} a step)");
    assert!(w_after < w_before && w_after.abs() > w_before.abs() + 0.1, "|ω| grows: {w_before} → {w_after}");
    assert!(pn > 100.0 * fc.m * G * dt, "a percussion: Λ_N = {pn}");
    assert!(coef.abs() < 0.05 * fc.sliding_coefficient(fc.theta0), "at the vanishing coefficient: {coef}");
    assert!(vn.abs() < 0.01 * drop, "contact breaks with zero normal velocity: {vn}");
    // Contact-free afterwards: the gap opens and keeps growing for a while.
    let after = &steps[k + 1..(k + 1 + (0.05 / dt) as usize).min(steps.len())];
    assert!(after.iter().all(|s| s.5 == 0.0), "no more contact impulses just after");
    assert!(after.last().unwrap().7 > 1e-3, "the tip lifts off: gap {}", after.last().unwrap().7);
}

/// Newton's law (Glocker–Studer 2005 eq. 11) on a dropped ball: every step with a contact loses energy
/// (`ε ≤ 1`), the rebound speed is ε times the impact speed (free fall: `√(2 g h)`), and the
/// apex after the first bounce is `ε² h`.
#[test]
fn bouncing_ball_obeys_newtons_law() {
    let ball = BouncingBall::new();
    let (q0, u0) = ball.initial_state();
    let dt = ball.default_dt();
    let mut sim = Simulator::new(&ball, q0.clone(), u0, dt, ball.default_options()).unwrap();
    let v_impact = (2.0 * G * ball.h0).sqrt();
    let mut impacts = Vec::new();
    let mut apex: Option<f64> = None;
    let mut bounced = 0;
    while sim.t < ball.default_t_end() {
        let (q, u) = (sim.q.clone(), sim.u.clone());
        let e_before = ball.energy(&q, &u).unwrap();
        let rep = sim.step().unwrap();
        let e_after = ball.energy(&sim.q, &sim.u).unwrap();
        if !rep.active.is_empty() {
            assert!(e_after <= e_before + 1e-9 * e_before.abs(), "t {}: {e_before} → {e_after}", sim.t);
            if rep.impulses[0] > 0.0 && u[1] < 0.0 && sim.u[1] > 0.0 {
                impacts.push((u[1], sim.u[1]));
                bounced += 1;
            }
        }
        if bounced == 1 && u[1] > 0.0 && sim.u[1] <= 0.0 {
            apex.get_or_insert(sim.q[1].max(q[1]) - ball.r);
        }
    }
    assert!(impacts.len() >= 3, "{impacts:?}");
    let (v_in, v_out) = impacts[0];
    assert!((v_in + v_impact).abs() < 2.0 * G * dt, "impact speed {v_in} vs √(2gh) = {v_impact}");
    assert!(
        (v_out - ball.eps_n * v_impact).abs() < 2.0 * G * dt,
        "rebound {v_out} vs ε v = {}",
        ball.eps_n * v_impact
    );
    for (v_in, v_out) in &impacts {
        assert!((v_out / -v_in - ball.eps_n).abs() < 2.0 * G * dt / v_in.abs(), "{v_in} → {v_out}");
    }
    eprintln!(
        "ball: first impact {v_in:.5} → {v_out:.5} (√(2gh) = {v_impact:.5}), {} impacts",
        impacts.len()
    );
    let h1 = apex.expect("an apex after the first bounce");
    eprintln!("ball: apex after the first bounce {h1:.5}, ε² h = {:.5}", ball.eps_n.powi(2) * ball.h0);
    let want = ball.eps_n.powi(2) * ball.h0;
    assert!((h1 - want).abs() < 2.0 * v_impact * dt, "apex {h1} vs ε² h = {want}");
    assert_eq!(sim.stats.unsolved, 0);
}

/// The block's acceleration along the incline, `(v(T) − v(0)) / T`, for a formulation.
fn incline_acceleration(block: &BlockIncline, formulation: Formulation, solver: Option<&str>) -> (f64, f64) {
    let (q0, u0) = block.initial_state();
    let opts = StepOptions { formulation, solver: solver.map(String::from), ..block.default_options() };
    let dt = 1e-3;
    let mut sim = Simulator::new(block, q0, u0.clone(), dt, opts).unwrap();
    for _ in 0..200 {
        let rep = sim.step().unwrap();
        assert_eq!(rep.active, vec![0, 1], "both bottom corners stay in contact");
    }
    assert_eq!(sim.stats.unsolved, 0);
    let tilt = sim.u[1].abs().max(sim.u[2].abs());
    ((sim.u[0] - u0[0]) / sim.t, tilt)
}

/// Sliding (`μ < tan α`) with `a = g (sin α − μ cos α)` and sticking (`μ > tan α`) with `a = 0`,
/// with the Glocker–Studer LCP (Lemke) and with the exact cone (prox and nsgs).
#[test]
fn block_on_incline_slides_or_sticks() {
    let cases = [(30f64.to_radians(), 0.3), (20f64.to_radians(), 0.5), (45f64.to_radians(), 0.6)];
    for (alpha, mu) in cases {
        let block = BlockIncline::new(alpha, mu);
        let want = if mu < alpha.tan() { G * (alpha.sin() - mu * alpha.cos()) } else { 0.0 };
        for (f, solver) in [
            (Formulation::GlockerStuder, None),
            (Formulation::Cone, Some("prox")),
            (Formulation::Cone, Some("nsgs")),
        ] {
            let (a, tilt) = incline_acceleration(&block, f.clone(), solver);
            eprintln!(
                "α = {:.0}°, μ = {mu}, {f:?} {solver:?}: a = {a:.12}, want {want:.12}",
                alpha.to_degrees()
            );
            assert!(
                (a - want).abs() < 1e-6 * G,
                "α = {:.0}°, μ = {mu}, {f:?} {solver:?}: a = {a}, want {want}",
                alpha.to_degrees()
            );
            assert!(tilt < 1e-8, "the block stays flat: {tilt}");
        }
    }
}

/// Rapier-style invariant: a block resting on level ground, the normal impulses of every step
/// sum to `m g Δt` (to round-off with Lemke, to 1e-9 with nsgs at tol 1e-12).
#[test]
fn resting_block_normal_impulses_carry_its_weight() {
    let block = BlockIncline::resting();
    let (q0, u0) = block.initial_state();
    for (f, solver, tol) in
        [(Formulation::GlockerStuder, None, 1e-9), (Formulation::Cone, Some("nsgs"), 1e-9)]
    {
        for dt in [1e-2, 1e-3] {
            let opts = StepOptions {
                formulation: f.clone(),
                solver: solver.map(String::from),
                ..block.default_options()
            };
            let mut sim = Simulator::new(&block, q0.clone(), u0.clone(), dt, opts).unwrap();
            for _ in 0..200 {
                let rep = sim.step().unwrap();
                let total: f64 = rep.impulses.chunks(2).map(|c| c[0]).sum();
                let want = block.m * G * dt;
                assert!(
                    ((total - want) / want).abs() < tol,
                    "{f:?} dt {dt}: Σ Λ_N = {total} vs m g Δt = {want}"
                );
                // Two contacts may squeeze each other tangentially (Λ_T1 = −Λ_T2 is free), but
                // the net friction of a body at rest on level ground is zero.
                let friction: f64 = rep.impulses.chunks(2).map(|c| c[1]).sum();
                assert!(friction.abs() < tol * want, "{f:?} dt {dt}: net friction {friction}");
            }
            assert!(sim.u.iter().all(|v| v.abs() < 1e-12), "{:?}", sim.u);
        }
    }
}
