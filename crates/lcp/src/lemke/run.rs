//! A run of Lemke's method: the driver [`Lemke`]`::pivot` (warm start, crash, covering vector,
//! restarts, the answer's measure) and the pivoting state (`Pivoting`) that the shared loop
//! [`perp_core::iteration`] drives pivot by pivot.

use super::*;
use std::ops::ControlFlow::{self, Break, Continue};

impl Lemke {
    /// [`LcpSolver::solve_into`] on `p` as given; `finish`: measure and verify the answer
    /// (else the caller does, on the problem before scaling).
    pub(super) fn pivot(
        &mut self,
        p: &Lcp,
        warm: bool,
        out: SolutionMut<'_>,
        s: &Settings,
        finish: bool,
    ) -> Result<(), Error> {
        let SolutionMut { z: z_out, w: w_out, report } = out;
        if p.is_box() {
            return Err(Error::Requirement {
                solver: "lemke".into(),
                requirement: "a standard LCP without bounds".into(),
                suggestion: Some("for a box-LCP use pgs, psor, rpgs or projected-newton".into()),
            });
        }
        let start = Instant::now();
        let n = p.n();
        let ws = &mut self.workspace;
        ws.prepare(n);
        ws.engine.harris = self.harris;
        ws.ray.valid = false;
        ws.crash.rounds = 0;
        crate::problem::reset_report(report, "lemke", &mut ws.spare);
        let mut method = Pivoting {
            p,
            ws,
            covering: self.covering.as_deref(),
            restarts: self.restarts,
            tol: s.tol,
            z: z_out,
            w: w_out,
            phase: if warm { Phase::Warm } else { Phase::Setup },
            crash: if warm || n < CRASH_MIN_N { 0 } else { self.crash },
            guessing: false,
            warm_guess: false,
            attempt: 0,
            attempts: 1,
            next: None,
            end: None,
            covering_error: None,
            pivots: 0,
            factorizations: 0,
        };
        let history = std::mem::take(&mut report.history);
        let out = iteration::run_with(&mut method, s, 100 * (n + 1), start, history);
        if let Some(e) = method.covering_error.take() {
            return Err(e);
        }
        let status = out.status;
        out.record(report);
        // The crash's block-pivoting rounds are iterations too (one LU each): a problem the
        // crash solves took them, not 0 (issue 34, item 7).
        report.iterations += method.ws.crash.rounds;
        let measured = method.write_answer(status, warm, report);
        let spare = &mut method.ws.spare;
        if finish {
            // w and the error measures of a measured answer are those of the answer just checked.
            if measured {
                p.finish_measured(method.z, method.w, report, s.tol, spare);
            } else {
                p.finish(method.z, method.w, report, s.tol, spare);
            }
        }
        // The refactorization storage is made on first need, and at the latest here, so that
        // the next solve of this structure allocates nothing whatever its pivots.
        if self.keep_ready {
            method.ws.engine.reserve_refactor();
        }
        Ok(())
    }
}

/// Where the pivoting stands (see [`Pivoting`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// The warm basis is to be tried.
    Warm,
    /// M, the covering vector and the restart supports are to be set up.
    Setup,
    /// The run from the crash's guess is to be started.
    Guess,
    /// Attempt k is to be started (0: the all-w start; k ≥ 1: restart k).
    Start(usize),
    /// The first pivot of the current attempt is next.
    First,
    /// Pivoting: the next pivot is prepared before each step.
    Running,
}

/// How the pivoting itself ended (the loop's limits and observer aside).
#[derive(Clone, Copy, Debug)]
pub(super) enum End {
    /// An answer already measured: in `zs`, with `w = M zs + q` in the output and its
    /// (error, residual). The warm basis, the crash, or a run from a guess (after its check).
    Measured(f64, f64),
    /// z₀ left the basis (or a starting basis was feasible) in the current attempt.
    Solved,
    /// The all-w start met an unusable pivot element.
    Singular,
    /// Every attempt ended on a ray or a singular basis.
    Exhausted,
}

/// Lemke's method as the shared loop sees it: one step is one pivot, so the loop counts the
/// pivots and honours the observer, `record_history` and the time limit between pivots.
/// What ends the pivoting before a pivot — a secondary ray (then the next restart is set up
/// in place), a singular pivot, a feasible starting basis, the warm basis — is found by
/// `prepare_step`. The error reported after each pivot is the artificial variable z₀ (the
/// almost-complementary point solves the LCP with q replaced by q + d·z₀; 0 once z₀ has
/// left); the method is pivoting (`is_pivoting`), so the loop does not stop on it.
pub(super) struct Pivoting<'a> {
    pub(super) p: &'a Lcp,
    pub(super) ws: &'a mut Workspace,
    pub(super) covering: Option<&'a [f64]>,
    pub(super) restarts: usize,
    pub(super) tol: f64,
    /// The warm start (read by the warm basis) and the output buffers.
    pub(super) z: &'a mut [f64],
    pub(super) w: &'a mut [f64],
    pub(super) phase: Phase,
    /// Rounds of the crash (0: none; the setup, which runs once, runs it).
    pub(super) crash: usize,
    /// The current run started from the crash's guess (or the warm start's support).
    pub(super) guessing: bool,
    /// The guess is the support of a warm start whose basis did not solve.
    pub(super) warm_guess: bool,
    /// The current attempt and the number of attempts (1 + restart supports).
    pub(super) attempt: usize,
    pub(super) attempts: usize,
    /// The pivot prepared for the next step.
    pub(super) next: Option<Prepared>,
    pub(super) end: Option<End>,
    pub(super) covering_error: Option<Error>,
    pub(super) pivots: usize,
    pub(super) factorizations: usize,
}

impl Pivoting<'_> {
    /// The answer of a run from a guess (the crash's or the warm start's), measured into `zs`
    /// and the output w: `Some((error, residual))` if it meets the tolerance. Its basis can be
    /// ill-conditioned where the all-w path's is not (a guess on a nearly singular M_SS of a
    /// semidefinite M): then the all-w start runs.
    pub(super) fn guess_holds(&mut self) -> Option<(f64, f64)> {
        let ws = &mut *self.ws;
        let q = self.p.q();
        ws.engine.solution_into(&ws.m, q, &mut ws.zs);
        self.p.m().mul_vec(&ws.zs, self.w);
        for (wi, qi) in self.w.iter_mut().zip(q) {
            *wi += qi;
        }
        let (error, residual) = self.p.errors(&ws.zs, self.w);
        (error <= self.tol).then_some((error, residual))
    }
}

/// What a phase of `prepare_step` leads to: the next phase (`Continue`), or the end of
/// `prepare_step` with its answer (`Break`: `None`, a pivot is ready; `Some`, the loop ends).
type Flow = ControlFlow<Option<Status>>;

impl Pivoting<'_> {
    /// The pivoting ends on an answer already measured (error, residual).
    fn measured(&mut self, (error, residual_inf): (f64, f64)) -> Flow {
        self.end = Some(End::Measured(error, residual_inf));
        Break(Some(Status::Solved))
    }

    /// The storage a basis try writes into (with the output w and the factorization count),
    /// beside M, the crash's state and the warm start.
    fn basis_try(&mut self) -> (BasisTry<'_>, &DenseCols, &mut CrashScratch, &[f64]) {
        let ws = &mut *self.ws;
        let out = BasisTry {
            zs: &mut ws.zs,
            w: self.w,
            idx: &mut ws.idx,
            lu: &mut ws.engine.lu,
            factorizations: &mut self.factorizations,
        };
        (out, &ws.m, &mut ws.crash, self.z)
    }

    /// [`Phase::Warm`]: the warm basis, measured; when it does not solve, the warm start's
    /// support becomes the guess to pivot from (rather than from scratch).
    fn try_warm(&mut self) -> Flow {
        let (p, tol) = (self.p, self.tol);
        let (out, _, _, z) = self.basis_try();
        if let Some(answer) = try_warm_basis(p, z, tol, out) {
            return self.measured(answer);
        }
        let ws = &mut *self.ws;
        ws.crash.guess.clear();
        ws.crash.guess.extend((0..p.n()).filter(|&i| self.z[i] > 0.0));
        self.warm_guess = !ws.crash.guess.is_empty();
        self.phase = Phase::Setup;
        Continue(())
    }

    /// [`Phase::Setup`]: M, the covering vector, the restart supports, and the crash (or the
    /// warm start's guess).
    fn set_up(&mut self) -> Flow {
        let (p, ws) = (self.p, &mut *self.ws);
        ws.m.fill(p);
        if let Err(e) = Lemke::covering_into(self.covering, p.n(), &mut ws.d) {
            self.covering_error = Some(e);
            return Break(Some(Status::NumericalFailure));
        }
        restart_supports(&ws.m, p.q(), self.restarts, &mut ws.order, &mut ws.supports);
        self.attempts = 1 + ws.supports.len();
        self.phase = Phase::Start(0);
        // A zero or negative diagonal entry (the friction-cone rows of a
        // Stewart–Trinkle or pyramid LCP) makes most guesses singular: no crash.
        if self.crash > 0 && (0..p.n()).all(|i| ws.m.at(i, i) > 0.0) {
            let (tol, rounds) = (self.tol, self.crash);
            let (out, m, scratch, _) = self.basis_try();
            match crash(p, m, tol, rounds, scratch, out) {
                Crash::Solved(error, residual_inf) => return self.measured((error, residual_inf)),
                Crash::Guess => self.phase = Phase::Guess,
                Crash::Nothing => {}
            }
        } else if self.warm_guess {
            self.phase = Phase::Guess;
        }
        Continue(())
    }

    /// [`Phase::Guess`]: the run from the guess's basis, or its answer when that basis is
    /// already feasible and its answer holds; else the all-w start.
    fn start_guess(&mut self) -> Flow {
        let ws = &mut *self.ws;
        basis_times_e(&ws.m, &ws.crash.guess, &mut ws.guess_d);
        match ws.engine.start(&ws.m, self.p.q(), Start::Support(&ws.crash.guess, &ws.guess_d)) {
            Started::Solved => match self.guess_holds() {
                Some(answer) => return self.measured(answer),
                None => self.phase = Phase::Start(0),
            },
            Started::Singular => self.phase = Phase::Start(0),
            Started::Ready => {
                self.guessing = true;
                self.phase = Phase::First;
                return Break(None);
            }
        }
        Continue(())
    }

    /// [`Phase::Start`]`(k)`: attempt k from the all-w basis (k = 0) or restart k's support;
    /// past the last attempt, the end (on the first attempt's ray when it met one).
    fn start_attempt(&mut self, k: usize) -> Flow {
        let ws = &mut *self.ws;
        if k == self.attempts {
            self.end = Some(End::Exhausted);
            return Break(Some(if ws.ray.valid { Status::RayTermination } else { Status::NumericalFailure }));
        }
        self.attempt = k;
        self.guessing = false;
        let start_basis = if k == 0 {
            Start::AllW
        } else {
            basis_times_e(&ws.m, ws.supports[k - 1].as_slice(), &mut ws.restart_d);
            Start::Support(ws.supports[k - 1].as_slice(), &ws.restart_d)
        };
        match ws.engine.start(&ws.m, self.p.q(), start_basis) {
            Started::Solved => {
                self.end = Some(End::Solved);
                return Break(Some(Status::Solved));
            }
            // A restart's guessed basis was singular (the all-w basis never is).
            Started::Singular => self.phase = Phase::Start(k + 1),
            Started::Ready => {
                self.phase = Phase::First;
                return Break(None);
            }
        }
        Continue(())
    }

    /// [`Phase::Running`]: the next pivot; on a ray or a singular pivot, the next attempt
    /// (the first attempt's ray kept), or the end.
    fn prepare_pivot(&mut self) -> Flow {
        let ws = &mut *self.ws;
        let d = covering(&ws.d, &ws.restart_d, &ws.guess_d, self.guessing, self.attempt);
        match ws.engine.prepare(&ws.m, d) {
            Next::Pivot(next) => {
                self.next = Some(next);
                return Break(None);
            }
            Next::Ray | Next::Singular if self.guessing => self.phase = Phase::Start(0),
            Next::Ray => {
                if self.attempt == 0 {
                    ws.engine.ray_into(d, &mut ws.ray);
                    ws.ray.valid = true;
                }
                self.phase = Phase::Start(self.attempt + 1);
            }
            Next::Singular if self.attempt > 0 => self.phase = Phase::Start(self.attempt + 1),
            Next::Singular => {
                self.end = Some(End::Singular);
                return Break(Some(Status::NumericalFailure));
            }
        }
        Continue(())
    }
}

impl IterativeMethod for Pivoting<'_> {
    fn prepare_step(&mut self) -> Option<Status> {
        loop {
            let flow = match self.phase {
                Phase::Warm => self.try_warm(),
                Phase::Setup => self.set_up(),
                Phase::Guess => self.start_guess(),
                Phase::Start(k) => self.start_attempt(k),
                Phase::First => return None,
                Phase::Running => self.prepare_pivot(),
            };
            if let Break(status) = flow {
                return status;
            }
        }
    }

    fn step(&mut self) -> StepResult {
        let ws = &mut *self.ws;
        let d = covering(&ws.d, &ws.restart_d, &ws.guess_d, self.guessing, self.attempt);
        self.pivots += 1;
        if self.phase == Phase::First {
            ws.engine.first_pivot(&ws.m, d);
            self.phase = Phase::Running;
            return StepResult::go(ws.engine.z0());
        }
        let next = self.next.take().expect("prepare_step prepared the pivot");
        let solved = ws.engine.make_pivot(&ws.m, self.p.q(), d, next);
        let z0 = ws.engine.z0();
        if solved {
            if self.guessing {
                let Some((error, residual_inf)) = self.guess_holds() else {
                    self.phase = Phase::Start(0);
                    return StepResult::go(z0);
                };
                self.end = Some(End::Measured(error, residual_inf));
                return StepResult { error: z0, stop: Some(Status::Solved) };
            }
            self.end = Some(End::Solved);
            return StepResult { error: z0, stop: Some(Status::Solved) };
        }
        StepResult::go(z0)
    }

    fn counters(&self) -> Counters {
        Counters { pivots: self.pivots, factorizations: self.factorizations, line_search_steps: 0 }
    }

    fn is_pivoting(&self) -> bool {
        true
    }
}

/// The covering vector of the current run: the crash guess's, the all-w start's (`d`) or a
/// restart's.
pub(super) fn covering<'a>(
    d: &'a [f64],
    restart: &'a [f64],
    guess: &'a [f64],
    guessing: bool,
    attempt: usize,
) -> &'a [f64] {
    if guessing {
        guess
    } else if attempt == 0 {
        d
    } else {
        restart
    }
}

impl Pivoting<'_> {
    /// Writes the answer of the run that ended with `status` to `z`, and why it ended to
    /// `report`'s message; `true` when that answer was measured already (`End::Measured`: the
    /// warm basis, the crash, or a run from a guess).
    fn write_answer(&mut self, status: Status, warm: bool, report: &mut SolveReport) -> bool {
        let (p, attempts, attempt) = (self.p, self.attempts, self.attempt);
        let (guessing, warm_guess) = (self.guessing, self.warm_guess);
        let ws = &mut *self.ws;
        let z_out = &mut *self.z;
        let spare = &mut ws.spare;
        match self.end.take() {
            Some(End::Measured(error, residual_inf)) => {
                z_out.copy_from_slice(&ws.zs);
                report.error = error;
                report.residual_inf = residual_inf;
                let rounds = ws.crash.rounds;
                // A warm start that pivots from its own basis, the usual case of a simulator's
                // steps, says nothing (as one whose basis solves).
                if guessing && !warm_guess {
                    let k = ws.crash.guess.len();
                    report.write_message(spare, format_args!(
                        "pivoted from the complementary basis of the crash's guess ({k} indices, after {rounds} block-pivoting rounds)"
                    ));
                } else if !warm {
                    report.write_message(
                        spare,
                        format_args!("solved by the crash ({rounds} block-pivoting rounds)"),
                    );
                }
                return true;
            }
            Some(End::Solved) => {
                ws.engine.solution_into(&ws.m, p.q(), z_out);
                if attempt > 0 {
                    let sup = ws.supports[attempt - 1].as_slice();
                    report.write_message(spare, format_args!(
                        "ended on a secondary ray from the all-w start; solved by restart {attempt} from the complementary basis of support {sup:?}"
                    ));
                }
                ws.ray.valid = false;
            }
            Some(End::Singular) => {
                ws.engine.current_z_into(z_out);
                report.write_message(
                    spare,
                    format_args!("pivot element too small to continue (the basis is numerically singular)"),
                );
                ws.ray.valid = false;
            }
            Some(End::Exhausted) if !ws.ray.valid => {
                z_out.fill(0.0);
                report.write_message(spare, format_args!("every start ended on a singular basis"));
            }
            Some(End::Exhausted) => {
                z_out.copy_from_slice(&ws.ray.z);
                report.write_message(
                    spare,
                    format_args!(
                        "secondary ray (covering vector d as given); {} restart(s) failed too{}",
                        attempts - 1,
                        if ws.ray.dz0 == 0.0 {
                            "; dz0 = 0: for copositive-plus M the LCP is infeasible"
                        } else {
                            ""
                        }
                    ),
                );
            }
            // The loop's own ends: pivot or time limit, observer, a NaN z₀.
            None => {
                ws.engine.current_z_into(z_out);
                if status == Status::NumericalFailure {
                    report.write_message(spare, format_args!("the artificial variable z0 became NaN"));
                }
                ws.ray.valid = false;
            }
        }
        false
    }
}
