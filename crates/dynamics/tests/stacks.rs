//! The scalable suites run clean: `ball-pile 20` and `box-stack 3` step without NaN, every solve
//! converges, nothing penetrates deeply, the fixed candidate lists miss no contact, energy
//! never rises (inelastic contacts), and at rest the supports carry the weight.

use perp_core::{Matrix, Status};
use perp_dynamics::rigid;
use perp_dynamics::scenes::spheres::G;
use perp_dynamics::scenes::stacks::{BallPile, BoxStack};
use perp_dynamics::scenes::{self, Scene};
use perp_dynamics::{Simulator, System};

#[test]
fn ball_pile_20_settles_without_nan_missed_contacts_or_deep_penetration() {
    let pile = BallPile::new(20).unwrap();
    let (q0, u0) = pile.initial_state();
    let e0 = pile.energy(&q0, &u0).unwrap();
    let sys: &dyn System = &pile;
    let dt = pile.default_dt();
    let mut sim = Simulator::new(sys, q0, u0, dt, pile.default_options()).unwrap();
    assert!(matches!(pile.mass(&sim.q, 0.0), Matrix::Sparse(_)) && pile.constant_mass());
    let (mut prev, mut worst, mut rise) = (e0, 0.0f64, 0.0f64);
    let steps = 150;
    let mut support = Vec::new();
    for _ in 0..steps {
        let rep = sim.step().unwrap();
        assert!(sim.q.iter().chain(&sim.u).all(|x| x.is_finite()), "NaN at t = {}", sim.t);
        if rep.status.is_some_and(|s| s != Status::Solved) {
            // NSGS may stop at its sweep limit on a wedged pile; it must still be close.
            assert!(rep.error < 1e-5, "t = {}: {:?}, error {:.2e}", sim.t, rep.status, rep.error);
        }
        let contacts = pile.contacts(&sim.q, sim.t);
        worst = worst.max(contacts.iter().map(|c| -c.gap).fold(0.0, f64::max));
        assert!(
            pile.missed_overlaps(&sim.q, 0.0).is_empty(),
            "a non-candidate pair touches at t = {}",
            sim.t
        );
        // Inelastic contacts: the energy may only rise by the midpoint rule's contact work
        // ½ rᵀ(γ_A + γ_E) at contacts that open within a step, which is tiny.
        let e = pile.energy(&sim.q, &sim.u).unwrap();
        rise = rise.max(e - prev);
        assert!(e <= prev + 1e-5 * e0, "t = {}: energy rose from {prev} to {e}", sim.t);
        prev = e;
        // Vertical impulse of the contacts on the balls (Σ over rows of r · row[v_z]): the
        // ball–ball terms cancel, so this is what the floor carries.
        let mut up = 0.0;
        for (k, c) in contacts.iter().enumerate() {
            for (row, r) in c.rows().zip(&rep.impulses[3 * k..3 * k + 3]) {
                up += r * row.0.iter().filter(|(i, _)| i % 6 == 2).map(|(_, v)| v).sum::<f64>();
            }
        }
        support.push(up);
    }
    assert!(sim.stats.unsolved * 20 <= sim.stats.solves, "{:?}", sim.stats);
    assert!(worst < 0.05 * BallPile::RADIUS, "penetration {worst}");
    // At rest (the last steps), the supports carry the weight N m g per unit time.
    let speed = (0..20)
        .map(|k| sim.u[6 * k..6 * k + 3].iter().map(|v| v * v).sum::<f64>().sqrt())
        .fold(0.0, f64::max);
    assert!(speed < 1e-3, "still moving: {speed}");
    let weight = 20.0 * BallPile::MASS * G * dt;
    let last = support.last().unwrap();
    assert!((last - weight).abs() < 1e-4 * weight, "support {last} vs weight {weight}");
    assert!(prev < e0);
    eprintln!(
        "ball-pile 20: {:?}, max penetration {worst:.2e} m, largest energy rise {rise:.2e} J of {e0:.1} J",
        sim.stats
    );
}

#[test]
fn box_stack_3_stays_upright_and_rests_on_the_ground() {
    let stack = BoxStack::new(3).unwrap();
    let (q0, u0) = stack.initial_state();
    let e0 = stack.energy(&q0, &u0).unwrap();
    let sys: &dyn System = &stack;
    let dt = stack.default_dt();
    let mut sim = Simulator::new(sys, q0, u0, dt, stack.default_options()).unwrap();
    assert!(!stack.constant_mass());
    let (mut prev, mut worst) = (e0, 0.0f64);
    let mut ground = 0.0;
    for _ in 0..150 {
        let rep = sim.step().unwrap();
        assert!(sim.q.iter().chain(&sim.u).all(|x| x.is_finite()), "NaN at t = {}", sim.t);
        if let Some(s) = rep.status {
            assert_eq!(s, Status::Solved, "t = {}: error {:.2e}", sim.t, rep.error);
        }
        worst = worst.max(stack.contacts(&sim.q, sim.t).iter().map(|c| -c.gap).fold(0.0, f64::max));
        let e = stack.energy(&sim.q, &sim.u).unwrap();
        assert!(e <= prev + 1e-7 * e0, "t = {}: energy rose from {prev} to {e}", sim.t);
        prev = e;
        // Contacts 0–3: the bottom box's corners on the ground.
        ground = (0..4).map(|k| rep.impulses[3 * k]).sum::<f64>();
    }
    assert_eq!(sim.stats.unsolved, 0);
    let c = BoxStack::HALF[2];
    assert!(worst < 0.05 * c, "penetration {worst}");
    for k in 0..3 {
        let z = sim.q[7 * k + 2];
        assert!((z - c - 2.0 * c * k as f64).abs() < 0.05 * c, "box {k} at z = {z}");
        let r = rigid::rotation(rigid::orientation(&sim.q, k));
        assert!(r[2][2] > 0.999, "box {k} tilted: {}", r[2][2]);
    }
    let weight = 3.0 * BoxStack::MASS * G * dt;
    assert!((ground - weight).abs() < 1e-4 * weight, "ground impulse {ground} vs weight {weight}");
    eprintln!("box-stack 3: {:?}, max penetration {worst:.2e} m", sim.stats);
}

#[test]
fn the_catalog_builds_the_suites_at_any_size() {
    for (name, n) in [("ball-pile", 7), ("ball-pile", 64), ("box-stack", 1), ("box-stack", 4)] {
        let s = scenes::scene(name, Some(n)).unwrap();
        let (q, u) = s.initial_state();
        assert_eq!((q.len(), u.len()), (7 * n, 6 * n), "{name} {n}");
        let (qn, un) = s.state_names();
        assert_eq!((qn[0].as_str(), un[0].as_str()), ("b0_x", "b0_v_x"));
        if n > 1 {
            assert_eq!((qn[7].as_str(), un[6].as_str()), ("b1_x", "b1_v_x"));
        }
        assert!(s.contacts(&q, 0.0).iter().all(|c| c.dim() == 3 && c.gap > 0.0));
    }
    assert!(scenes::scene("ball-pile", Some(0)).is_err());
    assert!(scenes::scene("ball-pile", None).is_ok());
}

/// `ball-pile`'s default: nsgs on W below `VELOCITY_SPACE_FROM` balls, global-ipm in velocity
/// space from it, the chain prox, ac-newton either way; `scenes::harvest` still steps on W
/// (the local problems of the built-in suite), and the velocity-space default solves the
/// first steps of a pile at that size.
#[test]
fn ball_pile_solves_in_velocity_space_from_its_threshold_and_harvests_on_w() {
    let from = BallPile::VELOCITY_SPACE_FROM;
    let chain = ["prox".to_string(), "ac-newton".to_string()];
    let below = BallPile::new(from - 1).unwrap().default_options();
    assert_eq!((below.solver.as_deref(), below.fallback.as_slice()), (Some("nsgs"), &chain[..]));
    let pile = BallPile::new(from).unwrap();
    let at = pile.default_options();
    assert_eq!((at.solver.as_deref(), at.fallback.as_slice()), (Some("global-ipm"), &chain[..]));
    let harvested = scenes::harvest(&pile, 20, 1).unwrap();
    assert!(harvested.len() >= 5, "{} local problems harvested", harvested.len());
    let (q0, u0) = pile.initial_state();
    let sys: &dyn System = &pile;
    let mut sim = Simulator::new(sys, q0, u0, pile.default_dt(), at).unwrap();
    assert_eq!(sim.method(), "cone (exact friction cones), solver global-ipm, fallback prox, ac-newton");
    let mut solved = 0;
    for _ in 0..20 {
        let rep = sim.step().unwrap();
        if let Some(status) = rep.status {
            assert_eq!(status, Status::Solved, "t = {}: error {:e}", sim.t, rep.error);
            assert!(rep.error <= 1e-6, "t = {}: error {:e}", sim.t, rep.error);
            solved += 1;
        }
    }
    assert!(solved >= 5, "{solved} steps with contacts");
}
