//! The physics refinement every solver family shares (issue 15's "large r, small q"): when the
//! physical check refused an answer that met the peer measure ([`SolveReport::refused_by_physics`]
//! — the peer error's units hide a penetration or a cone violation, and iterating further is
//! what fixes it), the solve is repeated warm from the last answer at a tighter tolerance
//! ([`SolveReport::refinement_tol`]), within what is left of the iteration limit and of the
//! time limit, at most [`REFINE_ROUNDS`] rounds. The report adds up the rounds' iterations,
//! counters, time and history ([`SolveReport::follow`]), and
//! [`SolveReport::end_refinement`] says so and judges the answer at the caller's `tol`.
//!
//! A solver family supplies a [`Refinable`]: its current answer's report, "solve again from
//! here", and, where it has one, a test that the rounds are running off.

use crate::{Error, Settings, SolveReport, REFINE_ROUNDS};

/// A solve the refinement can repeat (see the [module docs](self)).
pub trait Refinable {
    /// The report of the answer so far (after a round: that round's, following the earlier
    /// ones).
    fn report(&mut self) -> &mut SolveReport;
    /// Solves again, warm from the answer so far, with `s` (the tighter tolerance and what is
    /// left of the limits); the new answer and its own report replace the old ones (the
    /// refinement then makes the report follow the earlier rounds').
    fn solve_again(&mut self, s: &Settings) -> Result<(), Error>;
    /// Whether the answer after a round is running off (the rounds stop). Default `false`.
    fn runs_off(&mut self) -> bool {
        false
    }
}

/// Refines `solve`'s answer when the physical check refused it at `s.tol` (see the
/// [module docs](self)); the iteration limit is `s.max_iter`, or `default_max_iter` when it is
/// 0. Returns the rounds run, `None` when the answer was not refused (nothing done).
pub fn refine_physics(
    solve: &mut impl Refinable,
    s: &Settings,
    default_max_iter: usize,
) -> Result<Option<usize>, Error> {
    let report = solve.report();
    if !report.refused_by_physics(s.tol) {
        return Ok(None);
    }
    let limit = s.max_iter_or(default_max_iter);
    let first = (report.error, report.physical_error.unwrap_or(f64::NAN));
    let (mut tol, mut rounds) = (s.tol, 0);
    while rounds < REFINE_ROUNDS && solve.report().refused_by_physics(tol) {
        let report = solve.report();
        let left = limit.saturating_sub(report.iterations);
        let time_left = match s.time_limit {
            Some(t) if t <= report.elapsed => break,
            Some(t) => Some(t - report.elapsed),
            None => None,
        };
        let next = SolveReport::refinement_tol(tol, report.physical_error.unwrap_or(f64::INFINITY));
        if left == 0 || next.is_nan() || next <= 0.0 {
            break;
        }
        let s2 = Settings { tol: next, max_iter: left, time_limit: time_left, ..s.clone() };
        // A refinement round is rare: its report's copy is no cost in the solve loop.
        let earlier = report.clone();
        solve.solve_again(&s2)?;
        solve.report().follow(&earlier);
        tol = next;
        rounds += 1;
        if solve.runs_off() {
            break;
        }
    }
    solve.report().end_refinement(s.tol, rounds, tol, first);
    Ok(Some(rounds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Status;
    use std::time::Duration;

    /// A solve whose physical figure drops tenfold a round (error 0 throughout), 7
    /// iterations and 1 ms a round; each round records the settings it was given.
    struct Tenfold {
        report: SolveReport,
        rounds: Vec<Settings>,
        run_off_after: Option<usize>,
    }

    impl Tenfold {
        fn round(phys: f64) -> SolveReport {
            let mut r = SolveReport::new("tenfold");
            (r.status, r.iterations, r.error, r.physical_error, r.elapsed) =
                (Status::NumericalFailure, 7, 0.0, Some(phys), Duration::from_millis(1));
            (r.history, r.history_iterations) = (vec![phys], vec![7]);
            r
        }
    }

    impl Refinable for Tenfold {
        fn report(&mut self) -> &mut SolveReport {
            &mut self.report
        }
        fn solve_again(&mut self, s: &Settings) -> Result<(), Error> {
            self.rounds.push(s.clone());
            let phys = self.report.physical_error.unwrap() / 10.0;
            self.report = Tenfold::round(phys);
            if phys <= crate::measures::physical_bound(s.tol) {
                self.report.status = Status::Solved;
            }
            Ok(())
        }
        fn runs_off(&mut self) -> bool {
            self.run_off_after.is_some_and(|k| self.rounds.len() >= k)
        }
    }

    #[test]
    fn rounds_sum_their_counters_within_the_limits_and_stop_when_running_off() {
        let s = Settings { tol: 1e-8, max_iter: 100, ..Settings::default() };
        let bound = crate::measures::physical_bound(s.tol);
        let mut t = Tenfold { report: Tenfold::round(50.0 * bound), rounds: Vec::new(), run_off_after: None };
        let rounds = refine_physics(&mut t, &s, 10).unwrap();
        // 50·bound → 5·bound (round 1) → 0.5·bound: met at the caller's tol after 2 rounds.
        assert_eq!(rounds, Some(2));
        assert_eq!(
            (t.report.status, t.report.iterations, t.report.elapsed),
            (Status::Solved, 21, Duration::from_millis(3))
        );
        assert_eq!(t.report.history_iterations, vec![7, 14, 21]);
        // Each round gets what is left of the iteration limit and a tighter tolerance.
        assert_eq!(t.rounds.iter().map(|s| s.max_iter).collect::<Vec<_>>(), vec![93, 86]);
        assert!(t.rounds[0].tol < s.tol && t.rounds[1].tol < t.rounds[0].tol);
        // Running off after the first round: one round.
        let mut t =
            Tenfold { report: Tenfold::round(50.0 * bound), rounds: Vec::new(), run_off_after: Some(1) };
        assert_eq!(refine_physics(&mut t, &s, 10).unwrap(), Some(1));
        // Not refused: nothing done.
        let mut t = Tenfold { report: Tenfold::round(0.5 * bound), rounds: Vec::new(), run_off_after: None };
        assert_eq!(refine_physics(&mut t, &s, 10).unwrap(), None);
        assert!(t.rounds.is_empty());
    }
}
