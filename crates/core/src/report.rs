//! How a solve ends ([`Status`]) and what it returns ([`SolveReport`], [`Solution`]).

use serde::Serialize;
use std::time::Duration;

/// Why a solver stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Status {
    /// `report.error ≤ settings.tol`, checked on the returned vectors.
    Solved,
    /// The iteration (or pivot) limit was reached first.
    MaxIterations,
    /// The time limit was reached first.
    TimeLimit,
    /// No further progress is possible (a line search failed, the iterates stopped moving).
    Stalled,
    /// Lemke's method ended on a secondary ray (see [`Solution::ray`]): for a copositive-plus
    /// M this certifies that the LCP has no solution; in general the method gave up.
    RayTermination,
    /// The problem was shown to have no solution.
    Infeasible,
    /// The iterates grew without bound while the residual at the data's scale did not fall:
    /// a measure relative to the iterate read small only because the iterate was large (the
    /// relative error falling like 1/‖r‖). The problem most likely has no solution; the
    /// message gives the evidence.
    Diverged,
    /// Arithmetic broke down (singular pivot, NaN), or the returned point failed the final
    /// accuracy check although the method's own test had passed.
    NumericalFailure,
    /// The observer callback asked the solver to stop.
    Interrupted,
}

impl Status {
    /// The snake_case name used in JSON and CSV output (`solved`, `max_iterations`, …).
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::MaxIterations => "max_iterations",
            Status::TimeLimit => "time_limit",
            Status::Stalled => "stalled",
            Status::RayTermination => "ray_termination",
            Status::Infeasible => "infeasible",
            Status::Diverged => "diverged",
            Status::NumericalFailure => "numerical_failure",
            Status::Interrupted => "interrupted",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a solve did: status, effort, accuracy.
#[derive(Clone, Debug, Serialize)]
pub struct SolveReport {
    /// Registry name of the solver.
    pub solver: String,
    /// Why it stopped.
    pub status: Status,
    /// Iterations (pivots for pivoting methods, sweeps for PGS, Newton steps).
    pub iterations: usize,
    /// The peer-compatible error of the problem class (`design/SUITES.md`), computed from the
    /// returned vectors by [`crate::measures`].
    pub error: f64,
    /// `‖min(z, w)‖∞` (or the class's natural-map residual), absolute.
    pub residual_inf: f64,
    /// Wall-clock time of the solve.
    #[serde(serialize_with = "ser_secs")]
    pub elapsed: Duration,
    /// The measured errors, when `settings.record_history` is set: one per iteration whose
    /// error was measured (every iteration of most methods; PGS's and NSGS's exact checks,
    /// not the errors they carry over or estimate between them).
    pub history: Vec<f64>,
    /// The iteration (1-based) of each entry of `history`.
    pub history_iterations: Vec<usize>,
    /// Pivots (pivoting methods).
    pub pivots: usize,
    /// Matrix factorizations.
    pub factorizations: usize,
    /// Line-search steps (trial step lengths evaluated).
    pub line_search_steps: usize,
    /// The physical check that a `Solved` answer must also pass, relative to the problem's own
    /// scales — forces to their own size, velocities (w, F) to the data's scale, never to the
    /// answer's (no choice of units and no answer running off lets a wrong answer through; the
    /// peer measure in `error` can hide one): for frictional answers penetration, friction outside its cone and
    /// complementarity (`FrictionContactProblem::physical_error` in perp-cones), for standard
    /// LCPs infeasibility and complementarity of z and w each in its own unit
    /// ([`crate::measures::lcp_physical_error`]), for MLCPs solved through the catalogue's
    /// dispatch the same with equality rows (`Mlcp::physical_error` in perp-ncp), for MCPs and
    /// NCPs the natural residual with z's distances to its bounds and F each in its own scale
    /// (`Mcp::physical_error` in perp-ncp); bound [`crate::measures::physical_bound`]. `None`
    /// for the other problem classes (box-LCP).
    pub physical_error: Option<f64>,
    /// A human-readable remark on how the solve ended, when there is one to make.
    pub message: Option<String>,
}

fn ser_secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// The most warm rounds a refinement after a physical refusal runs
/// ([`SolveReport::refused_by_physics`]).
pub const REFINE_ROUNDS: usize = 3;

impl SolveReport {
    /// A blank report for `solver` (status `MaxIterations`, error ∞, zero counters).
    pub fn new(solver: &str) -> Self {
        SolveReport {
            solver: solver.to_string(),
            status: Status::MaxIterations,
            iterations: 0,
            error: f64::INFINITY,
            residual_inf: f64::INFINITY,
            elapsed: Duration::ZERO,
            history: Vec::new(),
            history_iterations: Vec::new(),
            pivots: 0,
            factorizations: 0,
            line_search_steps: 0,
            physical_error: None,
            message: None,
        }
    }

    /// The guard every solver passes through: a `Solved` claim whose recomputed `error`
    /// exceeds `tol` (or is NaN) becomes `NumericalFailure`, with a message saying so. A solver
    /// never returns `Solved` with `error > tol`.
    pub fn verify(&mut self, tol: f64) {
        self.verify_with(tol, &mut String::new());
    }

    /// Appends the history of a later solve of the same problem (a restart, a refinement
    /// round) whose iterations follow `offset` iterations of this one.
    pub fn append_history(&mut self, offset: usize, later: &SolveReport) {
        self.history.extend_from_slice(&later.history);
        self.history_iterations.extend(later.history_iterations.iter().map(|k| k + offset));
    }

    /// Resets every field for a new solve by `solver`, as [`SolveReport::new`] would, but in
    /// place: the `solver` String and the history keep their storage (no allocation once they
    /// are large enough). The message is left as it is: callers reusing its storage take it.
    pub fn reset_for(&mut self, solver: &str) {
        self.solver.clear();
        self.solver.push_str(solver);
        self.status = Status::MaxIterations;
        self.iterations = 0;
        self.error = f64::INFINITY;
        self.residual_inf = f64::INFINITY;
        self.elapsed = Duration::ZERO;
        self.history.clear();
        self.history_iterations.clear();
        self.pivots = 0;
        self.factorizations = 0;
        self.line_search_steps = 0;
        self.physical_error = None;
    }

    /// [`SolveReport::verify`] without allocating: the message is written into the storage of
    /// the current `message`, or else of `spare` (taken), so that a caller reusing one report
    /// and one spare String across solves allocates nothing here.
    pub fn verify_with(&mut self, tol: f64, spare: &mut String) {
        if self.status == Status::Solved && (self.error.is_nan() || self.error > tol) {
            self.status = Status::NumericalFailure;
            let error = self.error;
            self.write_message(
                spare,
                format_args!(
                    "the method's own test passed but the recomputed error {error:.3e} exceeds tol {tol:.1e}"
                ),
            );
        }
    }

    /// Records the physical figure `phys` of the answer (`physical_error`) and, when a
    /// `Solved` claim fails it (`phys` NaN or above [`crate::measures::physical_bound`]`(tol)`),
    /// downgrades it to `NumericalFailure` with a message naming `what` was violated.
    pub fn check_physics(&mut self, phys: f64, tol: f64, what: &str) {
        self.check_physics_with(phys, tol, what, &mut String::new());
    }

    /// [`SolveReport::check_physics`] without allocating: the message goes into the storage of
    /// the current `message`, or else of `spare` (as [`SolveReport::write_message`]).
    pub fn check_physics_with(&mut self, phys: f64, tol: f64, what: &str, spare: &mut String) {
        self.physical_error = Some(phys);
        let bound = crate::measures::physical_bound(tol);
        if self.status == Status::Solved && (phys.is_nan() || phys > bound) {
            self.status = Status::NumericalFailure;
            let error = self.error;
            self.write_message(
                spare,
                format_args!(
                    "the error {error:.3e} meets tol but the answer fails the physical check: {what} \
                     {phys:.3e} relative to the problem's own scales exceeds {bound:.1e}"
                ),
            );
        }
    }

    /// Whether this answer met `tol` on the peer measure and was refused by the physical check
    /// alone ([`SolveReport::check_physics`]: status `NumericalFailure`, `error ≤ tol`, a
    /// finite physical figure above the bound): what a warm refinement at a tighter tolerance
    /// can fix (the frictional solvers and the MCP Newton methods run one).
    pub fn refused_by_physics(&self, tol: f64) -> bool {
        self.status == Status::NumericalFailure
            && self.error <= tol
            && self.physical_error.is_some_and(|f| f.is_finite() && f > crate::measures::physical_bound(tol))
    }

    /// The tolerance of the next refinement round after a refusal at `tol` with physical figure
    /// `phys`: `tol · 0.1` down to `tol · 1e-3`, the smaller the further `phys` is from its
    /// bound.
    pub fn refinement_tol(tol: f64, phys: f64) -> f64 {
        tol * (0.1 * crate::measures::physical_bound(tol) / phys).clamp(1e-3, 0.1)
    }

    /// This report, of a further round of a solve warm-started where `earlier`'s round ended,
    /// becomes the report of both: iterations, pivots, factorizations, line-search steps and
    /// time summed, and the history `earlier`'s followed by this round's (its iterations
    /// counted on from `earlier`'s).
    pub fn follow(&mut self, earlier: &SolveReport) {
        let k = earlier.iterations;
        self.iterations += k;
        self.pivots += earlier.pivots;
        self.factorizations += earlier.factorizations;
        self.line_search_steps += earlier.line_search_steps;
        self.elapsed += earlier.elapsed;
        let mut history = earlier.history.clone();
        history.append(&mut self.history);
        self.history = history;
        let mut its = earlier.history_iterations.clone();
        its.extend(self.history_iterations.iter().map(|i| i + k));
        self.history_iterations = its;
    }

    /// Closes a refinement of `rounds` rounds (down to `last_tol`) after a first answer with
    /// error and physical figure `first` was refused at the caller's `tol`: the report, that of
    /// the last round with the counters summed, becomes `Solved` when its answer passes both
    /// checks at `tol` (a round may stop short of its own tighter tolerance and still meet the
    /// caller's), and its message says what happened.
    pub fn end_refinement(&mut self, tol: f64, rounds: usize, last_tol: f64, first: (f64, f64)) {
        let met = self.status != Status::Solved
            && self.error <= tol
            && self.physical_error.is_some_and(|f| f <= crate::measures::physical_bound(tol));
        let short = self.status;
        if met {
            self.status = Status::Solved;
        }
        let msg = self.message.get_or_insert_with(String::new);
        let w = |msg: &mut String, args: std::fmt::Arguments<'_>| {
            let _ = std::fmt::Write::write_fmt(msg, args);
        };
        if met {
            w(msg, format_args!("; solved at tol {tol:.1e} (the last round ended {short})"));
        }
        let (err0, phys0) = first;
        if rounds == 0 {
            w(msg, format_args!("; no iteration or time left to refine it"));
        } else {
            w(
                msg,
                format_args!(
                    "; refined in {rounds} warm round(s) down to tol {last_tol:.1e}, after the answer at \
                     error {err0:.2e} failed the physical check ({phys0:.2e})"
                ),
            );
        }
    }

    /// Sets `message` to the formatted `args`, writing into the storage of the current message
    /// or else of `spare` (taken): no allocation once a String of sufficient capacity is in use.
    pub fn write_message(&mut self, spare: &mut String, args: std::fmt::Arguments<'_>) {
        let mut msg = self.message.take().unwrap_or_else(|| std::mem::take(spare));
        msg.clear();
        let _ = std::fmt::Write::write_fmt(&mut msg, args);
        self.message = Some(msg);
    }
}

/// A secondary ray of Lemke's method: for every `t ≥ 0` the point
/// `(z + t·dz, z0 + t·dz0)` satisfies `w = M z + q + d z0 ≥ 0`, `z ≥ 0`, `z0 ≥ 0` and
/// `zᵢ wᵢ = 0` (Cottle–Pang–Stone §4.4). With `dz0 = 0`, `dz` is a nonzero vector with
/// `dz ≥ 0`, `M dz ≥ 0`, `dzᵀ M dz = 0`: for copositive-plus M the LCP is infeasible.
#[derive(Clone, Debug, Serialize)]
pub struct Ray {
    /// Base point of the ray, z part.
    pub z: Vec<f64>,
    /// Base point, artificial variable z0.
    pub z0: f64,
    /// Direction, z part.
    pub dz: Vec<f64>,
    /// Direction, z0 part.
    pub dz0: f64,
    /// The covering vector d used.
    pub d: Vec<f64>,
}

impl Ray {
    /// How far the ray point at parameter `t ≥ 0` is from satisfying the ray's defining
    /// conditions for LCP(q, M): with `z = self.z + t·dz`, `z₀ = self.z0 + t·dz0` and
    /// `w = M z + q + d z₀`, the largest of `−zᵢ`, `−wᵢ`, `−z₀` and `|min(zᵢ, wᵢ)|`
    /// (0 on an exact ray). Also `∞` when the direction is zero or has a negative entry
    /// below `−1e-12`.
    ///
    /// ```
    /// use perp_core::{Matrix, Ray};
    /// // LCP(q = −1, M = −1) is infeasible: w = −z − 1 + z₀ = 0 for z₀ = 1 + z, so
    /// // (z, z₀) = (0, 1) + t·(1, 1) is a secondary ray.
    /// let ray = Ray { z: vec![0.0], z0: 1.0, dz: vec![1.0], dz0: 1.0, d: vec![1.0] };
    /// let m = Matrix::from_row_major(1, 1, &[-1.0]).unwrap();
    /// assert_eq!(ray.violation(&m, &[-1.0], 10.0), 0.0);
    /// ```
    pub fn violation(&self, m: &crate::Matrix, q: &[f64], t: f64) -> f64 {
        if self.dz.iter().any(|&x| x < -1e-12) || self.dz0 < -1e-12 {
            return f64::INFINITY;
        }
        if self.dz.iter().all(|&x| x <= 0.0) && self.dz0 <= 0.0 {
            return f64::INFINITY;
        }
        let z: Vec<f64> = self.z.iter().zip(&self.dz).map(|(z, dz)| z + t * dz).collect();
        let z0 = self.z0 + t * self.dz0;
        let mut w = vec![0.0; q.len()];
        m.mul_vec(&z, &mut w);
        let mut worst = (-z0).max(0.0);
        for i in 0..q.len() {
            let wi = w[i] + q[i] + self.d[i] * z0;
            worst = worst.max(-z[i]).max(-wi).max(z[i].min(wi).abs());
        }
        worst
    }
}

/// A solver's answer: the returned point, `w = M z + q` (or `F(z)`), and the report.
#[derive(Clone, Debug, Serialize)]
pub struct Solution {
    /// The solution (or the best iterate when not solved).
    pub z: Vec<f64>,
    /// `w = M z + q` (or `F(z)`) at the returned `z`.
    pub w: Vec<f64>,
    /// How the solve went.
    pub report: SolveReport,
    /// Lemke's secondary ray when `status == RayTermination`.
    pub ray: Option<Ray>,
}

impl Solution {
    /// A zero answer of size `n` with a fresh report: buffers to solve into and keep from
    /// call to call ([`Solution::view_mut`]).
    pub fn zeros(n: usize) -> Solution {
        Solution { z: vec![0.0; n], w: vec![0.0; n], report: SolveReport::new(""), ray: None }
    }

    /// The buffers of this solution, borrowed for an in-place solve (`z` holds the warm
    /// start on entry when the solve is warm).
    pub fn view_mut(&mut self) -> SolutionMut<'_> {
        SolutionMut { z: &mut self.z, w: &mut self.w, report: &mut self.report }
    }

    /// Moves the answer into a caller's buffers (the `solve_into` of a solver that builds a
    /// `Solution`): `z` and `w` must have its length, else `Err` naming the buffer.
    pub fn copy_into(self, out: SolutionMut<'_>) -> Result<(), crate::Error> {
        crate::Error::check_len("z", out.z, self.z.len())?;
        crate::Error::check_len("w", out.w, self.w.len())?;
        out.z.copy_from_slice(&self.z);
        out.w.copy_from_slice(&self.w);
        *out.report = self.report;
        Ok(())
    }
}

/// Where an in-place solve writes (an LCP's or MCP's `solve_into`): the caller's `z` (the
/// warm start on entry when the solve is warm, the answer on return), `w = M z + q` (or
/// `F(z)`) and the report, overwritten in place. The buffers may be a kept [`Solution`]'s
/// ([`Solution::view_mut`]) or any slices of the problem's size.
///
/// ```
/// use perp_core::{Solution, SolutionMut, SolveReport};
/// let (mut z, mut w, mut report) = (vec![0.0; 2], vec![0.0; 2], SolveReport::new(""));
/// let out = SolutionMut { z: &mut z, w: &mut w, report: &mut report };
/// assert_eq!(out.z.len(), 2);
/// let mut kept = Solution::zeros(2);
/// assert_eq!(kept.view_mut().w.len(), 2);
/// ```
#[derive(Debug)]
pub struct SolutionMut<'a> {
    /// The unknowns z.
    pub z: &'a mut [f64],
    /// `w = M z + q` (or `F(z)`).
    pub w: &'a mut [f64],
    /// The report.
    pub report: &'a mut SolveReport,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_downgrades_a_false_solved_claim() {
        let mut r = SolveReport::new("x");
        r.status = Status::Solved;
        r.error = 1e-6;
        r.verify(1e-8);
        assert_eq!(r.status, Status::NumericalFailure);
        r.status = Status::Solved;
        r.error = f64::NAN;
        r.verify(1e-8);
        assert_eq!(r.status, Status::NumericalFailure);
        r.status = Status::Solved;
        r.error = 1e-9;
        r.verify(1e-8);
        assert_eq!(r.status, Status::Solved);
    }

    #[test]
    fn status_names_are_snake_case() {
        assert_eq!(Status::RayTermination.to_string(), "ray_termination");
        assert_eq!(Status::MaxIterations.as_str(), "max_iterations");
    }
}
