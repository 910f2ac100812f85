//! The woodpecker toy (Glocker–Studer 2005 §4, Table I) with the paper's method (midpoint rule, LCP of
//! eq. 33, Lemke) settles on a limit cycle along which the toy descends the pole, and the
//! cycle's period and descent velocity converge as the step shrinks.

use perp_dynamics::scenes::woodpecker::{LimitCycle, Woodpecker};
use perp_dynamics::scenes::Scene;
use perp_dynamics::{Simulator, Stats, Trajectory};

const T_END: f64 = 1.5;
const TRANSIENT: f64 = 0.3;
const CYCLES: usize = 6;

fn run(w: &Woodpecker, dt: f64) -> (Trajectory, Stats) {
    let (q0, u0) = w.initial_state();
    let (qn, un) = w.state_names();
    let mut sim = Simulator::new(w, q0, u0, dt, w.default_options()).unwrap();
    let traj = sim.run(T_END, 1, Some((&qn, &un))).unwrap();
    (traj, sim.stats)
}

/// A column linearly interpolated at time `s`.
fn at(traj: &Trajectory, name: &str, s: f64) -> f64 {
    let (t, v) = (traj.column("t").unwrap(), traj.column(name).unwrap());
    let k = t.partition_point(|&x| x < s).clamp(1, t.len() - 1);
    v[k - 1] + (s - t[k - 1]) / (t[k] - t[k - 1]) * (v[k] - v[k - 1])
}

#[test]
fn limit_cycle_is_reached_and_converges_as_the_step_shrinks() {
    let w = Woodpecker::new();
    let m_total = w.params.m_s + w.params.m_m;
    let mut figures: Vec<(f64, LimitCycle)> = Vec::new();
    for dt in [1e-4, 1e-5, 5e-6] {
        let (traj, stats) = run(&w, dt);
        let lc = w.limit_cycle(&traj, TRANSIENT, CYCLES).unwrap();
        eprintln!(
            "dt {dt:e}: period {:.6} s (spread {:.1e}), descent {:.6} m/s, {} cycles; LCPs unsolved {}/{}, \
             max size {}, max error {:.1e}",
            lc.period,
            lc.spread,
            lc.descent_velocity,
            lc.cycles,
            stats.unsolved,
            stats.solves,
            stats.max_size,
            stats.max_error
        );
        assert_eq!(lc.cycles, CYCLES, "{dt:e}: enough whole cycles after the transient: {:?}", lc.marks);
        // A limit cycle: the last periods agree, and the state (but y) repeats at the markers.
        assert!(lc.spread < 0.02, "{dt:e}: periods {:?}", lc.periods);
        let marks = &lc.marks[lc.marks.len() - 1 - CYCLES..];
        for name in ["phi_M", "omega_M", "omega_S"] {
            let v: Vec<f64> = marks.iter().map(|&s| at(&traj, name, s)).collect();
            let scale = traj.column(name).unwrap().iter().fold(0.0f64, |a, x| a.max(x.abs()));
            let dev = v.iter().map(|x| (x - v[0]).abs()).fold(0.0, f64::max);
            assert!(dev < 0.05 * scale, "{dt:e}: {name} at the markers {v:?}");
        }
        // The toy descends, the same height every cycle, and the energy lost per cycle is the
        // potential energy of that height (the rest of the state repeats).
        assert!(lc.descent_velocity < 0.0, "{dt:e}: the woodpecker descends");
        let y: Vec<f64> = marks.iter().map(|&s| at(&traj, "y", s)).collect();
        assert!(y.windows(2).all(|p| p[1] < p[0]), "{dt:e}: y at the markers {y:?}");
        let e = |s: f64| {
            let q = [at(&traj, "y", s), at(&traj, "phi_M", s), at(&traj, "phi_S", s)];
            let u = [at(&traj, "v", s), at(&traj, "omega_M", s), at(&traj, "omega_S", s)];
            w.energy(&q, &u).unwrap()
        };
        let (s0, s1) = (marks[0], marks[CYCLES]);
        let de = e(s1) - e(s0);
        let dv = m_total * w.params.g * (at(&traj, "y", s1) - at(&traj, "y", s0));
        assert!((de - dv).abs() < 0.05 * dv.abs(), "{dt:e}: ΔE = {de:e}, m g Δy = {dv:e}");
        // At most two closed contacts (LCP size 6), never both sleeve edges (Glocker–Studer 2005 §4).
        assert!(stats.max_size <= 6);
        // Every LCP along the way is solved (Lemke's tie test is relative to the basic values;
        // with an absolute 1e-9 it failed on ~0.1 % of the dt ≤ 1e-5 steps, whose q ~ 1e-3).
        assert_eq!(stats.unsolved, 0, "{dt:e}: {} of {} LCPs unsolved", stats.unsolved, stats.solves);
        figures.push((dt, lc));
    }
    // Convergence: the differences shrink with the step, and the two finest agree closely.
    let p: Vec<f64> = figures.iter().map(|(_, lc)| lc.period).collect();
    let v: Vec<f64> = figures.iter().map(|(_, lc)| lc.descent_velocity).collect();
    assert!((p[1] - p[2]).abs() < (p[0] - p[1]).abs(), "periods {p:?}");
    assert!((v[1] - v[2]).abs() < (v[0] - v[1]).abs(), "descent velocities {v:?}");
    assert!(((p[1] - p[2]) / p[2]).abs() < 2e-3, "periods {p:?}");
    assert!(((v[1] - v[2]) / v[2]).abs() < 5e-3, "descent velocities {v:?}");
    assert!(((p[0] - p[2]) / p[2]).abs() < 0.02, "the default step is within 2 %: {p:?}");
}

#[test]
fn table_i_starts_jammed_and_the_beak_is_open() {
    let w = Woodpecker::new();
    let (q0, _) = w.initial_state();
    let g = w.gaps(&q0);
    // Eq. 15 at Table I's initial angles, written out.
    let p = &w.params;
    let g2 = (p.r_m - p.r_o) + p.h_m * q0[1];
    assert!((g[1] - g2).abs() < 1e-18 && g2 <= 0.0, "the lower sleeve edge touches the pole: {g2}");
    assert!(g[0] > 0.0 && g[2] > 0.0, "beak and upper edge open: {g:?}");
    // The sleeve edges cannot both close: g_N2 + g_N3 = 2 (r_M − r_O) > 0.
    assert!(((g[1] + g[2]) - 2.0 * (p.r_m - p.r_o)).abs() < 1e-15);
}

/// Warm starts (Lemke from the previous step's basis) cut the pivots of the default run by
/// far more than 20× (measured 2026-11-26: 319 pivots warm, 12 253 cold over the 3 542 solves
/// of `perp simulate woodpecker`, 38×), with the same solves all solved.
#[test]
fn warm_starts_cut_the_pivots_by_over_20x() {
    let w = Woodpecker::new();
    let (q0, u0) = w.initial_state();
    let pivots = |warm: bool| {
        let opts = perp_dynamics::StepOptions { warm_start: warm, ..w.default_options() };
        let mut sim = Simulator::new(&w, q0.clone(), u0.clone(), w.default_dt(), opts).unwrap();
        sim.run(w.default_t_end(), 1000, None).unwrap();
        assert_eq!(sim.stats.unsolved, 0, "warm {warm}");
        (sim.stats.solves, sim.stats.iterations)
    };
    let ((solves_w, warm), (solves_c, cold)) = (pivots(true), pivots(false));
    assert_eq!(solves_w, solves_c);
    assert!(warm * 20 < cold, "{warm} pivots warm, {cold} cold");
}
