//! Rolling resistance in the plane (`disk-rolling`, 2-D rolling contacts of dimension 3): a
//! disk rolling on a line decelerates at `μ_r g / (1 + k)` (k = ½) and stops after
//! `(1 + k) v₀² / (2 μ_r g)`; the derivation is in `scenes::disk_rolling`.

use perp_dynamics::scenes::disk_rolling::DiskRolling;
use perp_dynamics::scenes::planar::G;
use perp_dynamics::scenes::{self, Scene};
use perp_dynamics::{Simulator, StepOptions, System};

mod common;
use common::{run_with, Step};

/// Largest deviation of the velocities (ω as R ω) from the analytic motion, with what must
/// hold at every step: rolling without slipping, on the line, the normal impulse `m g Δt`,
/// the rolling impulse at most μ_r times it.
fn max_velocity_error(scene: &DiskRolling, steps: &[Step], dt: f64) -> f64 {
    let (m, r) = (scene.mass_kg(), scene.radius());
    let mut worst: f64 = 0.0;
    for s in steps {
        let exact = scene.analytic(s.t);
        for (k, (u, e)) in s.u.iter().zip(exact).enumerate() {
            worst = worst.max((u - e).abs() * if k == 2 { r } else { 1.0 });
        }
        assert!(
            (s.u[0] + r * s.u[2]).abs() < 1e-9,
            "t = {}: slips, v = {}, R ω = {}",
            s.t,
            s.u[0],
            r * s.u[2]
        );
        assert!((s.q[1] - r).abs() < 1e-9, "t = {}: y = {}", s.t, s.q[1]);
        let n = m * G * dt;
        assert!((s.r[0] - n).abs() < 1e-9 * n.max(1.0), "t = {}: r_N = {} vs {n}", s.t, s.r[0]);
        assert!(s.r[2].abs() <= scene.mu_r() * s.r[0] * (1.0 + 1e-8), "t = {}: |r_R| = {}", s.t, s.r[2]);
    }
    worst
}

#[test]
fn the_scene_is_registered_with_a_2d_rolling_contact() {
    let s = scenes::scene("disk-rolling", None).unwrap();
    assert_eq!(s.name(), "disk-rolling");
    assert!(scenes::names().contains(&"disk-rolling"));
    let (q, _) = s.initial_state();
    assert_eq!(s.contacts(&q, 0.0)[0].dim(), 3);
}

/// The trajectory names each contact's impulse columns after its rows: the planar rolling
/// contact's third is the rolling moment (`P0_roll_t`, the name of the spatial contact's
/// first rolling row; it was `P0_o`, the spatial second tangent's), the spatial one's last two
/// `P0_roll_t`, `P0_roll_o`; the contacts of other scenes keep their names (planar, and
/// spatial with torsion).
#[test]
fn the_impulse_columns_name_the_rolling_rows() {
    let impulses = |name: &str| {
        let scene = scenes::scene(name, None).unwrap();
        let (q0, u0) = scene.initial_state();
        let sys: &dyn System = scene.as_ref();
        let sim = Simulator::new(sys, q0, u0, 0.01, StepOptions::default()).unwrap();
        sim.columns(None).into_iter().filter(|c| c.starts_with("P0_")).collect::<Vec<_>>()
    };
    assert_eq!(impulses("disk-rolling"), ["P0_n", "P0_t", "P0_roll_t"]);
    assert_eq!(impulses("sphere-rolling"), ["P0_n", "P0_t", "P0_o", "P0_roll_t", "P0_roll_o"]);
    assert_eq!(impulses("bouncing-ball"), ["P0_n", "P0_t"]);
    assert_eq!(impulses("sphere-spin"), ["P0_n", "P0_t", "P0_o", "P0_r"]);
}

/// The stopping distance against the closed form `(1 + k) v₀²/(2 μ_r g)` (k = ½: `3 v₀²/(4
/// μ_r g)`), at three steps: the velocity exact at every step (it is linear in t and the
/// midpoint step reproduces it), the deceleration `⅔ μ_r g`, the stop in the step that holds
/// t* and rest after it, and the distance within `|a| Δt² / 8` of the closed form (the
/// midpoint rule's overshoot in the stopping step), so within 1e-6 at Δt = 1e-3.
#[test]
fn disk_rolling_stops_at_the_closed_form_distance() {
    let scene = DiskRolling::disk();
    let mu_r = scene.mu_r();
    let a = 2.0 / 3.0 * mu_r * G;
    assert!((scene.acceleration() + a).abs() < 1e-15);
    let (t_star, d_star) = (1.5 / (mu_r * G), 0.75 / (mu_r * G));
    assert!((scene.stop_time() - t_star).abs() < 1e-13 && (scene.stopping_distance() - d_star).abs() < 1e-13);
    for dt in [0.01, 0.005, 1e-3] {
        let steps = run_with(&scene, scene.default_options(), dt, t_star + 0.5);
        let worst = max_velocity_error(&scene, &steps, dt);
        assert!(worst < 1e-9, "dt = {dt}: velocity off the analytic line by {worst}");
        let mut prev = 1.0;
        for s in steps.iter().filter(|s| s.t < t_star) {
            let rate = (prev - s.u[0]) / dt;
            assert!((rate - a).abs() < 1e-6, "dt = {dt}, t = {}: deceleration {rate} vs {a}", s.t);
            prev = s.u[0];
        }
        let stop = steps.iter().find(|s| s.u[0].abs() < 1e-12).expect("the disk stops");
        assert!(stop.t >= t_star && stop.t < t_star + dt, "dt = {dt}: stopped at {} (t* = {t_star})", stop.t);
        for s in steps.iter().filter(|s| s.t >= stop.t) {
            assert!(
                s.u.iter().all(|x| x.abs() < 1e-12),
                "dt = {dt}, t = {}: moves again, u = {:?}",
                s.t,
                s.u
            );
        }
        // At rest on the level line no moment is needed.
        let last = steps.last().unwrap();
        assert!(last.r[1..].iter().all(|x| x.abs() < 1e-12), "r = {:?}", last.r);
        let err = last.q[0] - d_star;
        eprintln!("disk-rolling dt = {dt}: velocity error {worst:.2e}, stopping distance error {err:.3e}");
        assert!(
            (0.0..=a * dt * dt / 8.0 + 1e-12).contains(&err),
            "dt = {dt}: stopping distance off by {err}"
        );
    }
}

/// Other speeds: the distance grows as v₀² (`(1 + k) v₀²/(2 μ_r g)`), and a disk at rest
/// stays at rest with no rolling moment.
#[test]
fn the_stopping_distance_goes_as_v0_squared() {
    let dt = 1e-3;
    for v0 in [0.0, 0.5, 2.0] {
        let scene = DiskRolling::disk().with_v0(v0).unwrap();
        let d = 0.75 * v0 * v0 / (scene.mu_r() * G);
        let steps = run_with(&scene, scene.default_options(), dt, scene.stop_time() + 0.2);
        let last = steps.last().unwrap();
        assert!(last.u.iter().all(|x| x.abs() < 1e-12), "v₀ = {v0}: u = {:?}", last.u);
        let err = last.q[0] - d;
        assert!(
            (0.0..=-scene.acceleration() * dt * dt / 8.0 + 1e-12).contains(&err),
            "v₀ = {v0}: distance {} vs {d}",
            last.q[0]
        );
    }
}
