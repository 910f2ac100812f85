//! `System::contacts_into`'s contract: `out` holds the previous call's contacts. The stepper
//! moves the active contacts into its local problem for the solve (no copy of their rows)
//! and must hand them back, whatever the formulation, the activation rule or an error.

use perp_dynamics::scenes::stacks::BallPile;
use perp_dynamics::scenes::Scene;
use perp_dynamics::{Activation, Compliant, Contact, Directions, Formulation, Simulator, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// `ball-pile`'s system, checking on each `contacts_into` that `out` is what the last call
/// left there (compared by their `Debug` text, every field); `bad_from`: from that call on,
/// every contact penetrates and the last one's normal row names a velocity past the last, so
/// the step fails after moving the others. `gaps`: whether it offers the gaps alone
/// ([`System::gaps_into`], as `ball-pile` does), and `lie`: a candidate whose gap it then
/// gives wrong.
struct Checked {
    pile: BallPile,
    last: Mutex<Option<String>>,
    calls: AtomicUsize,
    bad_from: usize,
    gaps: bool,
    lie: Option<usize>,
}

impl System for Checked {
    fn coords(&self) -> usize {
        self.pile.coords()
    }
    fn dofs(&self) -> usize {
        self.pile.dofs()
    }
    fn mass(&self, q: &[f64], t: f64) -> perp_core::Matrix {
        self.pile.mass(q, t)
    }
    fn constant_mass(&self) -> bool {
        self.pile.constant_mass()
    }
    fn forces(&self, q: &[f64], u: &[f64], t: f64, h: &mut [f64]) {
        self.pile.forces(q, u, t, h)
    }
    fn contacts(&self, q: &[f64], t: f64) -> Vec<Contact> {
        self.pile.contacts(q, t)
    }
    fn contacts_into(&self, q: &[f64], t: f64, out: &mut Vec<Contact>) {
        let call = self.calls.fetch_add(1, Relaxed);
        let mut last = self.last.lock().unwrap();
        if let Some(last) = last.as_ref() {
            assert!(format!("{out:?}") == *last, "call {call}: out is not the last call's contacts");
        }
        self.pile.contacts_into(q, t, out);
        if call >= self.bad_from {
            out.iter_mut().for_each(|c| c.gap = -1e-3);
            let last = out.last_mut().expect("the pile has contacts");
            last.normal.0.push((self.dofs(), 1.0));
        }
        *last = Some(format!("{out:?}"));
    }
    fn gaps_into(&self, q: &[f64], t: f64, gaps: &mut Vec<f64>) -> bool {
        if !self.gaps {
            return false;
        }
        self.pile.gaps_into(q, t, gaps);
        if let Some(i) = self.lie {
            gaps[i] = -1.0;
        }
        true
    }
    fn contact_into(&self, i: usize, q: &[f64], t: f64, out: &mut Contact) {
        self.pile.contact_into(i, q, t, out)
    }
    fn integrate(&self, q: &mut [f64], u: &[f64], dt: f64) {
        self.pile.integrate(q, u, dt)
    }
    fn normalize(&self, q: &mut [f64]) {
        self.pile.normalize(q)
    }
}

fn checked(bad_from: usize) -> Checked {
    pile(8, bad_from, false, None)
}

fn pile(n: usize, bad_from: usize, gaps: bool, lie: Option<usize>) -> Checked {
    let pile = BallPile::new(n).unwrap();
    Checked { pile, last: Mutex::new(None), calls: AtomicUsize::new(0), bad_from, gaps, lie }
}

#[test]
fn contacts_into_finds_its_last_contacts_in_every_formulation() {
    let formulations = [
        Formulation::StewartTrinkle(Directions::Uniform(8)),
        Formulation::Cone,
        Formulation::Convex,
        Formulation::Compliant(Compliant::default()),
    ];
    for f in formulations {
        for activation in [Activation::Gap, Activation::Persistent] {
            let sys = checked(usize::MAX);
            let (q0, u0) = sys.pile.initial_state();
            let mut opts = sys.pile.default_options();
            opts.set_formulation(f.clone());
            opts.activation = activation;
            let mut sim = Simulator::new(&sys, q0, u0, sys.pile.default_dt(), opts).unwrap();
            let mut active = 0;
            for _ in 0..40 {
                active += sim.step().unwrap().active.len();
            }
            // The balls land: contacts were active, so moved and handed back.
            assert!(active > 0 && sys.calls.load(Relaxed) >= 40, "{f:?} {activation:?}: {active} active");
        }
    }
}

#[test]
fn a_step_that_fails_on_a_bad_contact_hands_the_contacts_back() {
    let sys = checked(2);
    let (q0, u0) = sys.pile.initial_state();
    let mut sim = Simulator::new(&sys, q0, u0, sys.pile.default_dt(), sys.pile.default_options()).unwrap();
    let last = sys.pile.contacts(&sim.q, 0.0).len() - 1;
    // Each step calls `contacts_into` once: steps 0 and 1 run, the later ones fail (and the
    // next call checks what the failed step left in `out`).
    for k in 0..5 {
        let step = sim.step();
        if k < 2 {
            step.unwrap();
        } else {
            let e = step.expect_err("the last contact's normal row is out of range").to_string();
            assert!(e.contains(&format!("contact {last}: normal row")), "{e}");
        }
    }
    assert_eq!(sys.calls.load(Relaxed), 5);
}

/// A step that activates by gap builds only the active candidates when the system offers
/// the gaps alone: the same trajectory, bit for bit, as from the whole candidate list.
#[test]
fn building_only_the_active_candidates_steps_the_same_bit_for_bit() {
    let formulations = [Formulation::Cone, Formulation::Convex, Formulation::Compliant(Compliant::default())];
    for f in formulations {
        let run = |offer: bool| {
            let sys = pile(30, usize::MAX, offer, None);
            let (q0, u0) = sys.pile.initial_state();
            let mut opts = sys.pile.default_options();
            opts.set_formulation(f.clone());
            let mut sim = Simulator::new(&sys, q0, u0, sys.pile.default_dt(), opts).unwrap();
            let mut out = Vec::new();
            for _ in 0..45 {
                let r = sim.step().unwrap();
                out.push((r.active.clone(), r.impulses.iter().map(|x| x.to_bits()).collect::<Vec<_>>()));
            }
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            (out, bits(&sim.q), bits(&sim.u))
        };
        let (with, without) = (run(true), run(false));
        // The pile lands: contacts open and close over the run.
        let counts: Vec<usize> = with.0.iter().map(|(a, _)| a.len()).collect();
        assert!(counts.iter().max() > counts.iter().find(|&&c| c > 0), "{f:?}: {counts:?}");
        assert!(with == without, "{f:?}: the trajectories differ");
    }
}

#[test]
fn a_gap_that_differs_from_the_contacts_is_an_error_naming_the_candidate() {
    let sys = pile(8, usize::MAX, true, Some(5));
    let (q0, u0) = sys.pile.initial_state();
    let opts = sys.pile.default_options();
    // Candidate 5 starts open, so its contact's gap is positive where `gaps_into` says −1.
    assert!(sys.pile.contacts(&q0, 0.0)[5].gap > 0.0);
    let mut sim = Simulator::new(&sys, q0, u0, sys.pile.default_dt(), opts).unwrap();
    let e = sim.step().expect_err("the gaps disagree").to_string();
    assert!(e.contains("contact 5: gap") && e.contains("differs"), "{e}");
}
