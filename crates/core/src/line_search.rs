//! The line searches every Newton method of perp uses: backtracking on a step length
//! `t ∈ {1, β, β², …}` with an Armijo sufficient-decrease test (Nocedal & Wright 2006, eq. 3.4;
//! Bertsekas 1982 for its projected form) and a non-monotone reference (Grippo, Lampariello &
//! Lucidi 1986). The watchdog that returns to the best iterate when the non-monotone search
//! wanders (Chamberlain, Powell, Lemaréchal & Pedersen 1982) is a configuration of the
//! iteration loop's stall rule ([`crate::iteration::Stall`]).
//!
//! The solver owns its iterate and evaluates trial points itself: [`Backtracking`] only
//! chooses the step lengths, applies the test and counts the trials. A search never
//! allocates.
//!
//! * [`Backtracking::armijo`] — accept the first `t` with `ψ(t) ≤ ψ_ref + σ t s`, where `s < 0`
//!   is the slope (the directional derivative of the merit, or the solver's model of it) and
//!   `ψ_ref` the current merit or a [`NonMonotone`] reference. The best finite trial merit
//!   is reported when no step passes, for solvers that take it anyway.
//! * [`Backtracking::search`] — the same backtracking with the solver's own acceptance test,
//!   for tests that are not of that form (the projection-arc rule of projected Newton).
//! * [`NonMonotone`] — the reference `max(ψ_k, ψ_{k−1}, …)` over a window of remembered merits.

/// Step lengths `1, β, β², …` while `t ≥ min_step` and at most `max_trials` of them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backtracking {
    /// Armijo constant σ of [`Backtracking::armijo`], in (0, ½).
    pub sigma: f64,
    /// Shrink factor β, in (0, 1).
    pub shrink: f64,
    /// The search fails once `t` falls below this (0: only `max_trials` limits it).
    pub min_step: f64,
    /// Most trial points per search.
    pub max_trials: usize,
    /// Whether a non-finite trial ends the search at once ([`Failure::nonfinite`] set) rather
    /// than shrinking the step (a function defined only near the solution is backtracked into
    /// its domain).
    pub stop_on_nonfinite: bool,
}

impl Default for Backtracking {
    /// σ = 10⁻⁴, β = ½, `min_step` = 10⁻¹², no trial limit, non-finite trials shrink the step.
    fn default() -> Self {
        Backtracking {
            sigma: 1e-4,
            shrink: 0.5,
            min_step: 1e-12,
            max_trials: usize::MAX,
            stop_on_nonfinite: false,
        }
    }
}

/// A trial point as the solver's acceptance test judges it ([`Backtracking::search`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// The step is taken.
    Accept,
    /// Not enough decrease: shrink the step.
    Reject,
    /// The function was not finite at the trial point.
    NonFinite,
}

/// Why a search found no step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Failure {
    /// Trials evaluated.
    pub trials: usize,
    /// The step length at which the search stopped (below `min_step`, or the non-finite trial's).
    pub last_step: f64,
    /// Whether some trial was not finite.
    pub nonfinite: bool,
    /// The trial with the smallest finite merit, `(t, ψ(t))` ([`Backtracking::armijo`] only).
    pub best: Option<(f64, f64)>,
}

/// The outcome of a search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Search {
    /// Step `step` passed the test after `trials` trials (its merit when the search knew it).
    Accepted {
        /// The accepted step length.
        step: f64,
        /// Its merit ([`Backtracking::armijo`]; NaN from [`Backtracking::search`]).
        merit: f64,
        /// Trials evaluated, the accepted one included.
        trials: usize,
    },
    /// No step passed.
    Failed(Failure),
}

impl Search {
    /// Trials evaluated, whatever the outcome.
    pub fn trials(&self) -> usize {
        match self {
            Search::Accepted { trials, .. } => *trials,
            Search::Failed(f) => f.trials,
        }
    }
}

impl Backtracking {
    /// Backtracks with the caller's acceptance test: `judge(t)` evaluates the trial point at
    /// step `t` and says whether it passes.
    #[inline]
    pub fn search(&self, mut judge: impl FnMut(f64) -> Verdict) -> Search {
        let mut t = 1.0;
        let mut trials = 0;
        let mut nonfinite = false;
        while t >= self.min_step && trials < self.max_trials {
            trials += 1;
            match judge(t) {
                Verdict::Accept => return Search::Accepted { step: t, merit: f64::NAN, trials },
                Verdict::Reject => {}
                Verdict::NonFinite => {
                    nonfinite = true;
                    if self.stop_on_nonfinite {
                        return Search::Failed(Failure { trials, last_step: t, nonfinite, best: None });
                    }
                }
            }
            t *= self.shrink;
        }
        Search::Failed(Failure { trials, last_step: t, nonfinite, best: None })
    }

    /// Armijo backtracking: `merit(t)` evaluates the trial point at step `t` and returns its
    /// merit ψ(t), or `None` when the function is not finite there; the first `t` with
    /// `ψ(t) ≤ reference + σ t slope` is accepted. `slope` is negative for a descent direction.
    #[inline]
    pub fn armijo(&self, reference: f64, slope: f64, mut merit: impl FnMut(f64) -> Option<f64>) -> Search {
        let mut best: Option<(f64, f64)> = None;
        let mut last = f64::NAN;
        let sigma = self.sigma;
        let out = self.search(|t| match merit(t) {
            None => Verdict::NonFinite,
            Some(psi) => {
                if psi.is_finite() && best.is_none_or(|(_, b)| psi < b) {
                    best = Some((t, psi));
                }
                last = psi;
                if psi <= reference + sigma * t * slope {
                    Verdict::Accept
                } else {
                    Verdict::Reject
                }
            }
        });
        match out {
            Search::Accepted { step, trials, .. } => Search::Accepted { step, merit: last, trials },
            Search::Failed(f) => Search::Failed(Failure { best, ..f }),
        }
    }
}

/// The non-monotone reference of Grippo, Lampariello & Lucidi (1986): the largest of the
/// current merit and the last `window` remembered ones (`window = 0`: monotone). The memory
/// is a ring in storage kept across solves ([`NonMonotone::reset`] does not allocate once the
/// window fits).
#[derive(Clone, Debug, Default)]
pub struct NonMonotone {
    window: usize,
    merits: Vec<f64>,
    next: usize,
}

impl NonMonotone {
    /// An empty memory of `window` merits.
    pub fn new(window: usize) -> Self {
        let mut m = NonMonotone::default();
        m.reset(window);
        m
    }

    /// Forgets the remembered merits; the window becomes `window`.
    pub fn reset(&mut self, window: usize) {
        self.window = window;
        self.merits.clear();
        self.merits.reserve(window);
        self.next = 0;
    }

    /// Forgets the remembered merits and keeps the window (the search turns monotone until
    /// merits are remembered again).
    pub fn clear(&mut self) {
        self.merits.clear();
        self.next = 0;
    }

    /// `max(current, remembered merits)`.
    pub fn reference(&self, current: f64) -> f64 {
        self.merits.iter().copied().fold(current, f64::max)
    }

    /// Remembers `merit`, dropping the oldest once the window is full.
    pub fn remember(&mut self, merit: f64) {
        if self.window == 0 {
            return;
        }
        if self.merits.len() < self.window {
            self.merits.push(merit);
        } else {
            self.merits[self.next] = merit;
            self.next = (self.next + 1) % self.window;
        }
    }

    /// Merits remembered.
    pub fn len(&self) -> usize {
        self.merits.len()
    }

    /// Whether no merit is remembered.
    pub fn is_empty(&self) -> bool {
        self.merits.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ψ(x) = ½x² from x = 1 along d = −2 (overshoots: ψ(1 + t d) = ½(1 − 2t)²).
    fn psi(t: f64) -> f64 {
        0.5 * (1.0 - 2.0 * t).powi(2)
    }

    #[test]
    fn armijo_takes_the_first_step_with_sufficient_decrease() {
        // Slope ψ'(0)·d = 1·(−2) = −2. t = 1: ψ = ½, not ≤ ½ − 2σ. t = ½: ψ = 0. Accepted.
        let s = Backtracking::default().armijo(0.5, -2.0, |t| Some(psi(t)));
        assert_eq!(s, Search::Accepted { step: 0.5, merit: 0.0, trials: 2 });
    }

    #[test]
    fn a_larger_reference_accepts_earlier() {
        // Non-monotone reference 1.0: ψ(1) = ½ ≤ 1 − 2σ is accepted at once.
        let s = Backtracking::default().armijo(1.0, -2.0, |t| Some(psi(t)));
        assert_eq!(s.trials(), 1);
        assert!(matches!(s, Search::Accepted { step, .. } if step == 1.0));
    }

    #[test]
    fn failure_reports_the_best_trial_and_the_last_step() {
        // An ascent direction: ψ(t) = 1 + t never passes; the best trial is the smallest t.
        let b = Backtracking { min_step: 0.1, ..Backtracking::default() };
        let Search::Failed(f) = b.armijo(1.0, -1.0, |t| Some(1.0 + t)) else { panic!("accepted") };
        // t = 1, ½, ¼, ⅛ are tried; ¹⁄₁₆ < 0.1 ends the search.
        assert_eq!((f.trials, f.last_step, f.nonfinite), (4, 0.0625, false));
        assert_eq!(f.best, Some((0.125, 1.125)));
    }

    #[test]
    fn non_finite_trials_shrink_or_stop() {
        let mut calls = Vec::new();
        let s = Backtracking::default().armijo(0.5, -2.0, |t| {
            calls.push(t);
            (t < 0.3).then(|| psi(t))
        });
        // t = 1, ½ not finite; ¼: ψ = ⅛ ≤ ½ − ½σ.
        assert_eq!(calls, [1.0, 0.5, 0.25]);
        assert!(matches!(s, Search::Accepted { step, trials: 3, .. } if step == 0.25));
        let stop = Backtracking { stop_on_nonfinite: true, ..Backtracking::default() };
        let Search::Failed(f) = stop.armijo(0.5, -2.0, |_| None) else { panic!("accepted") };
        assert_eq!((f.trials, f.last_step, f.nonfinite), (1, 1.0, true));
    }

    #[test]
    fn max_trials_limits_the_search() {
        let b = Backtracking { max_trials: 1, ..Backtracking::default() };
        let s = b.search(|_| Verdict::Reject);
        assert_eq!(s, Search::Failed(Failure { trials: 1, last_step: 0.5, nonfinite: false, best: None }));
    }

    #[test]
    fn non_monotone_reference_is_the_window_maximum() {
        let mut m = NonMonotone::new(3);
        assert_eq!(m.reference(2.0), 2.0);
        for v in [5.0, 1.0, 4.0, 3.0] {
            m.remember(v);
        }
        // The window holds 1, 4, 3 (5 dropped).
        assert_eq!((m.len(), m.reference(0.5)), (3, 4.0));
        m.clear();
        assert_eq!(m.reference(0.5), 0.5);
        let mut monotone = NonMonotone::new(0);
        monotone.remember(9.0);
        assert!(monotone.is_empty());
    }
}
