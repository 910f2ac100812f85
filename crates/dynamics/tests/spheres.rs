//! The sphere scenes against their analytic solutions (Trinkle–Tzitzouris–Pang 2001 §4.1) and the physics they must
//! respect: the spin and the slide of a sphere on a plane with both the linearized-cone LCP
//! (aligned directions) and the exact elliptic cone, the weight carried by a resting contact,
//! the final rolling velocity of the bowling ball, the sphere between two spheres, and energy
//! across the impacts of billiards (Stewart 2000 fig. 2.3).

use perp_core::Status;
use perp_dynamics::scenes::spheres::{Billiards, Method, SphereOnPlane, SphereTwoSpheres, G};
use perp_dynamics::scenes::{self, Scene};
use perp_dynamics::{Activation, Simulator, StepOptions, System};

/// One recorded step: time, coordinates, velocities, impulses (per candidate, concatenated).
struct Step {
    t: f64,
    q: Vec<f64>,
    u: Vec<f64>,
    r: Vec<f64>,
}

/// Runs `scene` with its default options for `steps` steps of `dt` from `(q0, u0)`; every
/// solve must report `Solved`.
fn run_from(scene: &dyn Scene, q0: Vec<f64>, u0: Vec<f64>, dt: f64, steps: usize) -> Vec<Step> {
    let sys: &dyn System = scene;
    let mut sim = Simulator::new(sys, q0, u0, dt, scene.default_options()).unwrap();
    let mut out = Vec::with_capacity(steps);
    for _ in 0..steps {
        let rep = sim.step().unwrap();
        if let Some(s) = rep.status {
            assert_eq!(s, Status::Solved, "{} at t = {}: error {:.2e}", scene.name(), sim.t, rep.error);
        }
        out.push(Step { t: sim.t, q: sim.q.clone(), u: sim.u.clone(), r: rep.impulses });
    }
    out
}

fn run(scene: &dyn Scene, dt: f64, t_end: f64) -> Vec<Step> {
    let (q0, u0) = scene.initial_state();
    run_from(scene, q0, u0, dt, (t_end / dt).round() as usize)
}

#[test]
fn sphere_spin_decelerates_at_1_962_and_stops_by_1_05_with_both_cones() {
    for method in [Method::Stewart, Method::Cone, Method::TzitzourisPang] {
        let scene = SphereOnPlane::spin().with_method(method);
        let dt = scene.default_dt();
        assert_eq!(dt, 0.07);
        let steps = run(&scene, dt, scene.default_t_end());
        let mut prev = 1.962;
        for s in &steps {
            let wz = s.u[5];
            let exact = scene.analytic(s.t).unwrap()[5];
            // The time-stepping values sit on the analytic line at every step (Trinkle–Tzitzouris–Pang 2001 fig. 4).
            assert!((wz - exact).abs() < 1e-8, "{method:?} t = {:.2}: ω_z = {wz} vs {exact}", s.t);
            if exact > 0.0 {
                let rate = (prev - wz) / dt;
                assert!((rate - 1.962).abs() < 1e-6, "{method:?} t = {:.2}: rate {rate}", s.t);
            }
            prev = wz;
            for k in 0..5 {
                assert!(s.u[k].abs() < 1e-9, "{method:?} t = {:.2}: u[{k}] = {}", s.t, s.u[k]);
            }
            // The normal impulse is the weight over the step (paper: c_n = mg at all times).
            assert!((s.r[0] - G * dt).abs() < 1e-9, "{method:?}: c_n = {}", s.r[0]);
        }
        let stop = steps.iter().find(|s| s.u[5].abs() < 1e-9).expect("the spin stops").t;
        assert!((stop - 1.05).abs() < 1e-9, "{method:?}: stopped at {stop}");
        assert!((scene.transition_time() - 1.0).abs() < 1e-12);
    }
}

/// Sliding ends at `2v₀/(7μg)` (within one step) and the rolling speed is `5v₀/7`.
fn check_slide(method: Method, dt: f64, tol: f64) {
    let scene = SphereOnPlane::slide().with_method(method);
    let v0 = 2.0;
    let t_trn = 2.0 * v0 / (7.0 * scene.mu() * G);
    assert!((scene.transition_time() - t_trn).abs() < 1e-15 && (t_trn - 0.291).abs() < 1e-3);
    let steps = run(&scene, dt, 0.6);
    // Slip of the contact point: v + ω × (0, 0, −1) = (v_x − ω_y, v_y + ω_x).
    let slip = |u: &[f64]| ((u[0] - u[4]).powi(2) + (u[1] + u[3]).powi(2)).sqrt();
    let end = steps.iter().find(|s| slip(&s.u) < 1e-8).expect("sliding ends").t;
    assert!(end >= t_trn - 1e-12 && end < t_trn + dt, "{method:?} h = {dt}: sliding ended at {end}");
    for s in &steps {
        let exact = scene.analytic(s.t).unwrap();
        if s.t < t_trn {
            // Before the transition the steps follow the exact line v_x = v₀ − μ g t.
            assert!(
                (s.u[0] - exact[0]).abs() < tol && (s.u[4] - exact[4]).abs() < tol,
                "{method:?} t = {}",
                s.t
            );
        }
        if s.t >= end {
            assert!((s.u[0] - 5.0 * v0 / 7.0).abs() < tol, "{method:?} h = {dt}: v_x = {}", s.u[0]);
            assert!((s.u[4] - 5.0 * v0 / 7.0).abs() < tol, "{method:?} h = {dt}: ω_y = {}", s.u[4]);
        }
        for k in [1, 2, 3, 5] {
            assert!(s.u[k].abs() < tol, "{method:?} t = {}: u[{k}] = {}", s.t, s.u[k]);
        }
    }
}

#[test]
fn sphere_slide_rolls_at_5_7_v0_after_2v0_over_7_mu_g() {
    for dt in [0.12, 0.01] {
        // Exact cone: 1e-6 as the issue asks. The Stewart LCP is exact too here: one of the
        // eq. 5 directions points along −x (Trinkle–Tzitzouris–Pang 2001 §4.1.3).
        check_slide(Method::Cone, dt, 1e-6);
        check_slide(Method::Stewart, dt, 1e-6);
        check_slide(Method::TzitzourisPang, dt, 1e-6);
    }
}

#[test]
fn a_resting_sphere_carries_m_g_h_per_step() {
    for method in [Method::Cone, Method::Stewart, Method::TzitzourisPang] {
        let scene = SphereOnPlane::slide().with_method(method);
        let (q0, _) = scene.initial_state();
        for dt in [0.07, 0.01] {
            let steps = run_from(&scene, q0.clone(), vec![0.0; 6], dt, 20);
            for s in &steps {
                assert!((s.r[0] - 1.0 * G * dt).abs() < 1e-9 * G * dt, "{method:?} h = {dt}: {}", s.r[0]);
                assert!(s.r[1..].iter().all(|x| x.abs() < 1e-12), "{method:?}: friction {:?}", &s.r[1..]);
                assert!(s.u.iter().all(|x| x.abs() < 1e-12) && (s.q[2] - 1.0).abs() < 1e-12);
            }
        }
    }
    // The three balls lying on the billiards table before the thrown ball arrives.
    let b = Billiards::new();
    let dt = b.default_dt();
    let steps = run(&b, dt, 0.1);
    for s in &steps {
        for k in 1..4 {
            let rn = s.r[3 * k];
            assert!((rn - b.mass * G * dt).abs() < 1e-9 * b.mass * G * dt, "ball {k}: {rn}");
        }
    }
}

#[test]
fn billiards_energy_never_increases_and_the_third_ball_takes_the_momentum() {
    let b = Billiards::new();
    let (q0, u0) = b.initial_state();
    let e0 = b.energy(&q0, &u0).unwrap();
    let steps = run(&b, b.default_dt(), b.default_t_end());
    let mut prev = e0;
    let (mut impacts, mut ball_impacts) = (0, 0);
    let weight_step = b.mass * G * b.default_dt();
    for s in &steps {
        let e = b.energy(&s.q, &s.u).unwrap();
        // Contacts 0–3: ball–table; 4–9: ball–ball (see Billiards::pairs).
        let normal: Vec<f64> = s.r.chunks(3).map(|c| c[0]).collect();
        let impact = normal.iter().any(|&p| p > 5.0 * weight_step);
        if impact {
            impacts += 1;
            ball_impacts += usize::from(normal[4..].iter().any(|&p| p > 5.0 * weight_step));
        }
        assert!(e <= prev + 1e-10 * e0, "t = {:.3}: energy rose from {prev} to {e} (impact: {impact})", s.t);
        prev = e;
    }
    assert!(impacts >= 3 && ball_impacts >= 2, "{impacts} impacts, {ball_impacts} between balls");
    assert!(prev < 0.9 * e0, "ε = 0.9 and friction dissipate: {prev} vs {e0}");
    // Most of the momentum ends in the third ball (Stewart 2000 §2, fig. 2.3).
    let last = steps.last().unwrap();
    let px: Vec<f64> = (0..4).map(|k| last.u[6 * k]).collect();
    assert!(px[3] > 2.0 * px[0].abs().max(px[1].abs()).max(px[2].abs()), "x velocities {px:?}");
    // The impact is oblique: the balls leave the line y = 0.
    assert!(last.q[7 + 1].abs() > 1e-3, "ball 1 stayed on the line");
}

#[test]
fn bowling_ball_hooks_and_rolls_with_the_conserved_angular_momentum() {
    let scene = SphereOnPlane::bowling();
    let steps = run(&scene, scene.default_dt(), scene.default_t_end());
    let (_, u0) = scene.initial_state();
    // Friction acts at the contact point, so the angular momentum about it, L = I ω + r × m v
    // with r = (0, 0, 1), keeps its x and y components: L_x = 0.4 ω_x − v_y, L_y = 0.4 ω_y + v_x.
    // Rolling (v_x = ω_y, v_y = −ω_x) then gives v = (L_y, −L_x) / 1.4.
    let (lx, ly) = (0.4 * u0[3] - u0[1], 0.4 * u0[4] + u0[0]);
    for s in &steps {
        assert!((0.4 * s.u[3] - s.u[1] - lx).abs() < 1e-9 && (0.4 * s.u[4] + s.u[0] - ly).abs() < 1e-9);
    }
    let last = steps.last().unwrap();
    assert!((last.u[0] - ly / 1.4).abs() < 1e-6 && (last.u[1] + lx / 1.4).abs() < 1e-6, "{:?}", last.u);
    assert!(last.u[5].abs() < 1e-9, "the twist stops before 8 s: ω_z = {}", last.u[5]);
    // The hook: v_y starts at +0.2 and ends negative.
    assert!(u0[1] > 0.0 && last.u[1] < -0.1);
    // Sliding lasts several seconds (μ = 0.01) but ends: the slip is zero well before 8 s.
    let slip = |u: &[f64]| ((u[0] - u[4]).powi(2) + (u[1] + u[3]).powi(2)).sqrt();
    let end = steps.iter().find(|s| slip(&s.u) < 1e-9).expect("rolling").t;
    assert!(end > 3.0 && end < 6.0, "sliding ended at {end}");
}

#[test]
fn sphere_between_two_spheres_rolls_along_the_seam_and_leaves() {
    for method in [Method::TzitzourisPang, Method::Cone] {
        let scene = SphereTwoSpheres::new().with_method(method);
        let steps = run(&scene, scene.default_dt(), scene.default_t_end());
        // Both contacts carry load at the start (Trinkle–Tzitzouris–Pang 2001 fig. 20, 22).
        let first = &steps[0];
        assert!(first.r[0] > 0.0 && first.r[4] > 0.0, "{method:?}: {:?}", first.r);
        // Pushed by g_obj along +x, the sphere moves round the seam and finally falls off.
        let mid = steps.iter().find(|s| s.t >= 2.0 - 1e-9).unwrap();
        assert!(mid.u[0] > 0.5 && mid.q[0] > 0.5, "{method:?}: {:?}", mid.u);
        let last = steps.last().unwrap();
        let gaps: Vec<f64> = scene.contacts(&last.q, last.t).iter().map(|c| c.gap).collect();
        assert!(gaps.iter().all(|&g| g > 0.0), "{method:?}: still in contact at the end: {gaps:?}");
    }
}

#[test]
fn the_catalog_builds_every_sphere_scene() {
    for name in ["sphere-spin", "sphere-slide", "bowling-ball", "sphere-two-spheres", "billiards"] {
        let s = scenes::scene(name, None).unwrap();
        assert_eq!(s.name(), name);
        let (q, u) = s.initial_state();
        assert_eq!((q.len(), u.len()), (s.coords(), s.dofs()));
        let (qn, un) = s.state_names();
        assert_eq!((qn.len(), un.len()), (q.len(), u.len()));
        assert!(s.energy(&q, &u).unwrap().is_finite());
        assert!(scenes::scene(name, Some(3)).is_err(), "{name} takes no size");
    }
    // The panels of spin and slide carry the dashed analytic series.
    for scene in [SphereOnPlane::spin(), SphereOnPlane::slide()] {
        let sys: &dyn System = &scene;
        let (q0, u0) = scene.initial_state();
        let mut sim = Simulator::new(sys, q0, u0, scene.default_dt(), scene.default_options()).unwrap();
        let (qn, un) = scene.state_names();
        let traj = sim.run(scene.default_t_end(), 1, Some((&qn, &un))).unwrap();
        let panels = scene.panels(&traj);
        assert!(panels[0].series.iter().any(|s| s.dashed && !s.points.is_empty()));
    }
}

/// The deepest penetration over a run of `scene` with its options but `activation`, and the
/// number of steps some loaded contact was dropped.
fn penetration_with(scene: &SphereTwoSpheres, activation: Activation, dt: f64, t_end: f64) -> (f64, usize) {
    let sys: &dyn System = scene;
    let (q0, u0) = scene.initial_state();
    let opts = StepOptions { activation, ..scene.default_options() };
    let mut sim = Simulator::new(sys, q0, u0, dt, opts).unwrap();
    let (mut deepest, mut drops) = (0.0f64, 0);
    let mut loaded: Vec<usize> = Vec::new();
    for _ in 0..(t_end / dt).round() as usize {
        let rep = sim.step().unwrap();
        drops += loaded.iter().filter(|i| !rep.active.contains(i)).count();
        loaded = (0..2).filter(|&i| rep.impulses[4 * i] > 0.0).collect();
        for c in scene.contacts(&sim.q, sim.t) {
            deepest = deepest.max(-c.gap);
        }
    }
    (deepest, drops)
}

#[test]
fn persistent_activation_keeps_curved_resting_contacts() {
    // With Moreau's index set, the contacts of the sphere on the seam open by the curvature
    // error after each resolved step, are dropped, and the sphere sinks ~g h² before the next
    // step catches it; kept while the free motion closes them, they hold the sphere.
    for method in [Method::Cone, Method::TzitzourisPang] {
        let scene = SphereTwoSpheres::new().with_method(method);
        let (gap_depth, gap_drops) = penetration_with(&scene, Activation::Gap, 0.1, 1.0);
        let (kept_depth, kept_drops) = penetration_with(&scene, Activation::Persistent, 0.1, 1.0);
        println!(
            "{method:?}: Gap {gap_depth:.3e} ({gap_drops} drops), Persistent {kept_depth:.3e} ({kept_drops})"
        );
        assert!(gap_depth > 0.05 && gap_drops > 0, "{method:?}: the index set no longer drops contacts");
        assert!(kept_depth < 1e-3, "{method:?}: sank {kept_depth:.3e} with persistent contacts");
        assert_eq!(kept_drops, 0, "{method:?}");
    }
}

/// `(unsolved, solves)` of a Tzitzouris–Pang run of the seam scene with step `dt` to its end,
/// with the proximal-perturbation rounds of its NCP solver set to `rounds`.
fn seam_unsolved(dt: f64, rounds: usize) -> (usize, usize) {
    let scene = SphereTwoSpheres::new().with_method(Method::TzitzourisPang);
    let sys: &dyn System = &scene;
    let (q0, u0) = scene.initial_state();
    let mut opts = scene.default_options();
    opts.params = std::mem::take(&mut opts.params).set("proximal_rounds", rounds);
    let mut sim = Simulator::new(sys, q0, u0, dt, opts).unwrap();
    for _ in 0..(scene.default_t_end() / dt).round() as usize {
        sim.step().unwrap();
    }
    (sim.stats.unsolved, sim.stats.solves)
}

#[test]
fn tzitzouris_pang_solves_every_step_on_the_seam_at_small_steps() {
    // Issue 15: at h = 1e-3, 23 of 3 449 NCP solves ended unsolved (bdiff-newton stalling
    // where a contact opens) and 5 of 347 at h = 1e-2; the proximal-perturbation rescue of
    // the MCP Newton methods (perp_ncp::proximal) solves every one. Without it the counts
    // depend on rounding: (4, 348) and (27, 3438) since DenseLu's own kernel for n ≤ 16
    // (faer's LU, the same pivots with other rounding, gave the figures), (28, 3451)
    // at h = 1e-3 since the MCP measure's natural residual is computed as mid(z − u, z − l, F)
    // (issue 36: the same number, rounded otherwise).
    assert_eq!(seam_unsolved(0.01, 0), (4, 348), "without the rescue");
    assert_eq!(seam_unsolved(0.01, 20).0, 0, "with the rescue (default)");
    assert_eq!(seam_unsolved(0.001, 0), (28, 3451), "without the rescue");
    assert_eq!(seam_unsolved(0.001, 20), (0, 3456), "with the rescue (default)");
}
