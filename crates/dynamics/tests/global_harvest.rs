//! A step's contact problem in global form (`Simulator::last_global_problem`, issue 31 item 6):
//! reduced again, it is the step's local problem (same W and q to rounding), and the global
//! solver solves it, cold at 1e-8, the error recomputed: all 33 steps of `ball-pile 20`'s first
//! 40 with contacts (before its non-monotone line search and proximal mode it solved 29: the
//! redundant stick network of a ball on four supports).

use perp_cones::GlobalNewton;
use perp_core::{Settings, Status};
use perp_dynamics::scenes;
use perp_dynamics::{Simulator, StepOptions, System};

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()))
}

#[test]
fn a_ball_pile_step_in_global_form_reduces_to_its_local_problem() {
    let pile = scenes::scene("ball-pile", Some(20)).unwrap();
    let opts = StepOptions { keep_problem: true, ..pile.default_options() };
    let (q0, u0) = pile.initial_state();
    let sys: &dyn System = &*pile;
    let mut sim = Simulator::new(sys, q0, u0, pile.default_dt(), opts).unwrap();
    let (mut checked, mut solved) = (0, 0);
    for _ in 0..40 {
        sim.step().unwrap();
        let (Some(lp), Some(g)) = (sim.last_problem(), sim.last_global_problem()) else { continue };
        let g = g.unwrap();
        let local = lp.friction_problem().unwrap();
        let (back, red) = g.reduce().unwrap();
        assert_eq!(red.factorization(), "block Cholesky");
        let n = local.size();
        let (w1, w2) = (local.w.to_dense(), back.w.to_dense());
        let scale = w1.norm_max();
        for i in 0..n {
            for j in 0..n {
                assert!((w1[(i, j)] - w2[(i, j)]).abs() <= 1e-12 * scale, "W[{i},{j}]");
            }
        }
        let qs = local.q.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        assert!(max_diff(&local.q, &back.q) <= 1e-12 * qs.max(1e-300), "q");
        // The global solver: "solved" only with the error recomputed below tol.
        let s = Settings { tol: 1e-8, ..Settings::default() };
        let sol = GlobalNewton::new().solve(&g, None, &s).unwrap();
        let e = g.error(&sol.r, &sol.v);
        if sol.report.status == Status::Solved {
            assert!(e <= 1e-8, "solved at {e:e}");
            solved += 1;
        } else {
            assert!(e > 1e-8 || sol.report.status == Status::NumericalFailure, "{:?}", sol.report);
            println!(
                "t = {:.3}: {:?} at {e:.2e} after {} iterations",
                sim.t, sol.report.status, sol.report.iterations
            );
        }
        checked += 1;
    }
    println!("global-ac-newton solved {solved} of {checked} steps at 1e-8");
    assert!(checked >= 10, "steps with contacts: {checked}");
    assert_eq!(solved, checked, "global-ac-newton solved {solved} of {checked} steps");
}

/// The global problem written into the storage of the last one (`global_problem_into`, as
/// the stepper builds it every step) is the one built afresh, bit for bit, whatever the slot
/// held: nothing, the previous step's problem (other sizes as contacts come), or a problem
/// of another scene.
#[test]
fn a_global_problem_in_reused_storage_is_the_fresh_one() {
    let same = |a: &perp_cones::GlobalFrictionContactProblem,
                b: &perp_cones::GlobalFrictionContactProblem| {
        let bits = |x: &[f64], y: &[f64]| {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
        };
        a.dim == b.dim
            && a.m.same_bits(&b.m)
            && a.h.same_bits(&b.h)
            && bits(&a.f, &b.f)
            && bits(&a.b, &b.b)
            && bits(&a.mu, &b.mu)
    };
    // A problem of another size: the first with contacts of a pile of 40.
    let other = {
        let big = scenes::scene("ball-pile", Some(40)).unwrap();
        let opts = StepOptions { keep_problem: true, ..big.default_options() };
        let (q0, u0) = big.initial_state();
        let mut sim = Simulator::new(&*big, q0, u0, big.default_dt(), opts).unwrap();
        loop {
            sim.step().unwrap();
            if let Some(g) = sim.last_global_problem() {
                break g.unwrap();
            }
        }
    };
    let pile = scenes::scene("ball-pile", Some(20)).unwrap();
    let opts = StepOptions { keep_problem: true, ..pile.default_options() };
    let (q0, u0) = pile.initial_state();
    let mut sim = Simulator::new(&*pile, q0, u0, pile.default_dt(), opts).unwrap();
    let (mut slot, mut checked) = (None, 0);
    for _ in 0..30 {
        sim.step().unwrap();
        let (Some(lp), Some(fresh)) = (sim.last_problem(), sim.last_global_problem()) else { continue };
        let fresh = fresh.unwrap();
        let m = fresh.m.clone();
        for start in [slot.take(), None, Some(other.clone())] {
            let mut s = start;
            lp.global_problem_into(&m, &mut s).unwrap();
            assert!(same(s.as_ref().unwrap(), &fresh), "t = {}", sim.t);
            slot = s;
        }
        checked += 1;
    }
    assert!(checked >= 10, "steps with contacts: {checked}");
}
