//! The stall rule the loop applies to a method that declares one (see the parent module).

#[cfg(doc)]
use super::IterativeMethod;
use crate::Status;

/// What counts as progress for a [`Stall`] rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressTest {
    /// A measure below the smallest so far (the mark): the watchdog of Chamberlain, Powell,
    /// Lemaréchal & Pedersen (1982).
    NewBest,
    /// A measure at most half the mark, the measure at the last progress: the frictional
    /// Newton methods' rule (the error halves, or the method goes proximal).
    Halving,
}

/// A method's stall rule ([`IterativeMethod::stall`]): after `patience` steps without
/// progress by `test`, the loop calls [`IterativeMethod::on_stall`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stall {
    /// Steps without progress before the method is told it stalls (0: never).
    pub patience: usize,
    /// What counts as progress.
    pub test: ProgressTest,
    /// The mark at the start: the measure to beat (`NewBest`) or to halve (`Halving`); ∞
    /// when the first step counts as progress whatever its measure (a finite one).
    pub mark: f64,
}

/// What a stalled method does ([`IterativeMethod::on_stall`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OnStall {
    /// Go on as before (the method has nothing left to try, or has tried it already).
    Continue,
    /// The method changed its strategy or its iterate; `error` is the error at the iterate it
    /// goes on from, which replaces the step's error.
    Switch {
        /// The error at the method's iterate after the switch.
        error: f64,
    },
    /// Go back to the loop's best iterate ([`IterativeMethod::restore_best`]) and go on from
    /// there; the step's error becomes the best error.
    RestoreBest,
    /// End the loop with this status.
    Stop(Status),
}

/// The progress verdict of a [`StallRule`] on one measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Progress: the mark moved to this measure and the count restarts.
    Progress,
    /// No progress, fewer than `patience` steps in a row.
    Wait,
    /// `patience` or more steps in a row without progress.
    Stalled,
}

/// The state of a [`Stall`] rule: the mark and the steps since the last progress. The loop
/// keeps one for a method that declares a rule; a solver that runs its own loop (the global
/// Newton method) keeps one itself.
///
/// ```
/// use perp_core::iteration::{ProgressTest, Stall, StallRule, Verdict};
/// let mut rule = StallRule::new(Stall { patience: 2, test: ProgressTest::Halving, mark: f64::INFINITY });
/// assert_eq!(rule.observe(1.0), Verdict::Progress); // the first finite measure sets the mark
/// assert_eq!(rule.observe(0.6), Verdict::Wait); // not ≤ ½
/// assert_eq!(rule.observe(0.5), Verdict::Progress);
/// assert_eq!((rule.observe(0.4), rule.observe(0.3), rule.since()), (Verdict::Wait, Verdict::Stalled, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StallRule {
    rule: Stall,
    since: usize,
}

impl StallRule {
    /// The rule at its start: the mark of `rule`, no step counted.
    pub fn new(rule: Stall) -> Self {
        StallRule { rule, since: 0 }
    }

    /// Judges the `measure` after a step: progress moves the mark and restarts the count;
    /// otherwise the count grows, and reaches [`Verdict::Stalled`] at `patience` (never when
    /// the patience is 0). A NaN measure is no progress.
    pub fn observe(&mut self, measure: f64) -> Verdict {
        let progress = match self.rule.test {
            ProgressTest::NewBest => measure < self.rule.mark,
            ProgressTest::Halving => measure <= 0.5 * self.rule.mark,
        };
        if progress {
            (self.rule.mark, self.since) = (measure, 0);
            return Verdict::Progress;
        }
        self.since += 1;
        if self.rule.patience > 0 && self.since >= self.rule.patience {
            Verdict::Stalled
        } else {
            Verdict::Wait
        }
    }

    /// Steps in a row without progress.
    pub fn since(&self) -> usize {
        self.since
    }

    /// Restarts the count (the mark stays): a method that changed strategy is given its full
    /// patience again.
    pub fn restart(&mut self) {
        self.since = 0;
    }
}
