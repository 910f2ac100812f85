//! Proximal perturbation: the rescue of a Newton method that stalls where a solution exists.
//!
//! # The method (Billups 1995; Billups & Ferris 1997)
//!
//! S. C. Billups, *Algorithms for complementarity problems and generalized equations*, PhD
//! thesis, Univ. Wisconsin–Madison, 1995, ch. 3, and S. C. Billups, M. C. Ferris, "QPCOMP: a
//! quadratic programming based solver for mixed complementarity problems", Math. Programming
//! 76 (1997) 533–562: when the local method stalls at x̄ (a stationary point of its merit
//! function that is not a solution, or no progress), solve instead the perturbed problem
//!
//! ```text
//!     MCP(F_λ, l, u),   F_λ(x) = F(x) + λ (x − x̄)         (the proximal-point map, Rockafellar 1976)
//! ```
//!
//! whose Jacobian `∇F + λI` is, for λ large enough, a P-matrix on a neighbourhood, so that
//! the merit functions have no spurious stationary points there. Its solution x_λ becomes the
//! new centre, and the outer loop repeats; as the centres approach a solution of the
//! original problem, the perturbation `λ(x − x̄)` vanishes. This implementation's rules
//! (ours, not the papers' exact constants):
//!
//! 1. The rescue runs only when the plain method ended `Stalled` or `MaxIterations`. With
//!    the rescue on and an explicit limit `Settings::max_iter = B` (PATH's default is
//!    B = 500 major iterations), B is the budget of the **whole** solve: the plain run gets
//!    at most [`PLAIN_MAX_ITER`] of it (the plain method's own default limit, 100), and the
//!    rescue's inner solves share what is left, so the report never counts more than B
//!    iterations. A problem the plain method solves within 100 steps is solved iteration for
//!    iteration as without the rescue; one it would need more for is handed to the rescue,
//!    whose tries resume the plain method near a solution. Without an explicit limit
//!    (`max_iter == 0`) the plain run gets its default 100 and the rescue its own limits.
//! 2. The first centre x̄ is where the plain method stopped; λ starts at `lambda` times twice
//!    the Gershgorin shift of ∇F(x̄) (the smallest λ making every row of `∇F(x̄) + λI`
//!    diagonally dominant, hence a P-matrix), at least `1e-3·max|∇F(x̄)ᵢⱼ|` (1 if ∇F(x̄) = 0).
//! 3. Each round solves the perturbed MCP from x̄ with the same method, to the tolerance
//!    `max(tol, 1e-3·error(x̄))` (an inexact proximal step), in at most [`INNER_MAX_ITER`]
//!    Newton steps. When it is solved, the original problem is tried from x_λ (at most
//!    [`TRY_MAX_ITER`] Newton steps: every try that succeeded on the samples took ≤ 7; a
//!    try whose error fell a hundredfold goes on for [`TRY_EXTEND_ITER`] more, as Siconos'
//!    `deltasigma_mlcp` needs);
//!    solved ends the rescue, else x_λ becomes the next centre (the proximal point
//!    iteration, whatever the try did) and λ is multiplied by 0.2. When the perturbed solve
//!    fails, λ is multiplied by 10 and the centre stays.
//! 4. At most `rounds` rounds (each one perturbed solve and at most one original try); the
//!    time limit of the settings, and an explicit `max_iter`, count for the whole solve
//!    (out of iterations: `MaxIterations`; out of time: `TimeLimit`).
//!
//! An unsolved rescue returns the point with the smallest original residual met. The returned
//! solution is always checked on the original problem ([`Mcp::solution`]): `Solved` only if
//! the original error is within the tolerance.

use crate::{Mcp, NcpFunction};
use faer::{Mat, MatMut};
use perp_core::params::{Bound, Param, Resolved};
use perp_core::refine::Refinable;
use perp_core::{Error, Settings, Solution, SolveReport, Status};
use std::time::Instant;

/// `F(x) + λ (x − x̄)`: the perturbed map of proximal perturbation (module docs).
pub struct Perturbed<'a> {
    /// The original map F.
    pub f: &'a dyn NcpFunction,
    /// The perturbation weight λ ≥ 0.
    pub lambda: f64,
    /// The centre x̄ (length n).
    pub center: &'a [f64],
}

impl NcpFunction for Perturbed<'_> {
    fn dim(&self) -> usize {
        self.f.dim()
    }
    fn eval(&self, z: &[f64], out: &mut [f64]) {
        self.f.eval(z, out);
        for i in 0..z.len() {
            out[i] += self.lambda * (z[i] - self.center[i]);
        }
    }
    fn jacobian(&self, z: &[f64], mut jac: MatMut<'_, f64>) {
        self.f.jacobian(z, jac.as_mut());
        for i in 0..z.len() {
            jac[(i, i)] += self.lambda;
        }
    }
    fn sparse_jacobian(&self, z: &[f64]) -> Option<sprs::CsMat<f64>> {
        let j = self.f.sparse_jacobian(z)?;
        let eye = sprs::CsMat::<f64>::eye(j.rows()).map(|v| v * self.lambda);
        let j = if j.is_csr() { j } else { j.to_csr() };
        Some(&j + &eye)
    }
}

/// The knobs of the rescue (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Proximal {
    /// Most rounds (perturbed solves); `0` turns the rescue off.
    pub rounds: usize,
    /// The initial λ relative to the largest |∇F(x̄)ᵢⱼ| (at least 1); valid `> 0`, finite.
    pub lambda: f64,
}

impl Default for Proximal {
    fn default() -> Self {
        Proximal { rounds: DEFAULT_ROUNDS, lambda: DEFAULT_LAMBDA }
    }
}

/// Default [`Proximal::rounds`].
pub const DEFAULT_ROUNDS: usize = 20;
/// Default [`Proximal::lambda`].
pub const DEFAULT_LAMBDA: f64 = 1.0;

impl Proximal {
    /// `Err(InvalidSetting)` when `lambda` is not finite and > 0, or `rounds > 1000`.
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.lambda > 0.0 && self.lambda.is_finite()) {
            return Err(Error::setting("proximal_lambda", self.lambda, "must be finite and > 0"));
        }
        if self.rounds > 1000 {
            return Err(Error::setting("proximal_rounds", self.rounds, "must be <= 1000"));
        }
        Ok(())
    }
}

/// Newton steps allowed to each try of the original problem from a perturbed solution.
pub const TRY_MAX_ITER: usize = 10;

/// Newton steps more for a try that is converging (its error fell a hundredfold in its first
/// [`TRY_MAX_ITER`]).
pub const TRY_EXTEND_ITER: usize = 20;

/// Newton steps allowed to each perturbed solve of a round.
pub const INNER_MAX_ITER: usize = 50;

/// The plain run's share of an explicit `max_iter` when the rescue is on (module docs, rule 1).
pub const PLAIN_MAX_ITER: usize = 100;

/// The settings of the plain run: `s` with an explicit `max_iter` above [`PLAIN_MAX_ITER`]
/// cut to it when the rescue is on (the rest of the budget is the rescue's).
pub(crate) fn plain_settings(knobs: Proximal, s: &Settings) -> Settings {
    let mut t = s.clone();
    if knobs.rounds > 0 && s.max_iter > PLAIN_MAX_ITER {
        t.max_iter = PLAIN_MAX_ITER;
    }
    t
}

/// ‖natural residual‖∞ of the original problem at z (∞ for NaN).
fn residual(p: &Mcp<'_>, z: &[f64], f: &mut [f64]) -> f64 {
    p.f.eval(z, f);
    let r = p.residual_inf(z, f);
    if r.is_nan() {
        f64::INFINITY
    } else {
        r
    }
}

/// The Gershgorin shift of ∇F(z): `max(maxᵢ (Σ_{j≠i} |Jᵢⱼ| − Jᵢᵢ), 0)`, the smallest λ with
/// which every row of `∇F + λI` is diagonally dominant (then `∇F + λI` is a P-matrix), and
/// the largest |Jᵢⱼ|. A non-finite Jacobian gives (0, 1).
fn gershgorin(f: &dyn NcpFunction, z: &[f64]) -> (f64, f64) {
    let n = z.len();
    let (mut off, mut diag) = (vec![0.0f64; n], vec![0.0f64; n]);
    let mut big = 0.0f64;
    let mut add = |i: usize, j: usize, v: f64| {
        big = big.max(v.abs());
        if i == j {
            diag[i] += v;
        } else {
            off[i] += v.abs();
        }
    };
    match f.sparse_jacobian(z) {
        Some(s) => {
            for (v, (i, j)) in s.iter() {
                add(i, j, *v);
            }
        }
        None => {
            let mut j = Mat::<f64>::zeros(n, n);
            f.jacobian(z, j.as_mut());
            for c in 0..n {
                for (r, v) in j.col_as_slice(c).iter().enumerate() {
                    add(r, c, *v);
                }
            }
        }
    }
    let shift = (0..n).map(|i| off[i] - diag[i]).fold(0.0f64, f64::max);
    if shift.is_finite() && big.is_finite() {
        (shift, big)
    } else {
        (0.0, 1.0)
    }
}

/// The plain method (cold start, no rescue): `solve(p, z0, settings)`.
pub(crate) type PlainSolve<'s> = dyn FnMut(&Mcp<'_>, &[f64], &Settings) -> Result<Solution, Error> + 's;

/// Whether the rescue runs after `first` (run with [`plain_settings`]): it ended `Stalled` or
/// `MaxIterations`, with some of an explicit budget `settings.max_iter` left.
pub(crate) fn wanted(knobs: Proximal, first: &Solution, s: &Settings) -> bool {
    knobs.rounds > 0
        && matches!(first.report.status, Status::Stalled | Status::MaxIterations)
        && (s.max_iter == 0 || first.report.iterations < s.max_iter)
}

/// The state of a [`rescue`]: the problem, the caller's settings, the plain method and the
/// report its inner solves are summed into.
struct Rescue<'a, 'p, 's> {
    p: &'a Mcp<'p>,
    s: &'a Settings,
    solve: &'a mut PlainSolve<'s>,
    default_max_iter: usize,
    /// The plain solve's report, then every inner solve's counters added.
    report: SolveReport,
    /// How long the plain solve took, and when the rescue started.
    before: std::time::Duration,
    clock: Instant,
    /// Scratch for F(z).
    f: Vec<f64>,
    /// Whether the rescue stopped at the end of an explicit iteration budget.
    out_of_budget: bool,
}

impl Rescue<'_, '_, '_> {
    /// Adds an inner solve's iterations, counters and history to the report.
    fn add(&mut self, sub: &Solution) {
        let report = &mut self.report;
        report.append_history(report.iterations, &sub.report);
        report.iterations += sub.report.iterations;
        report.pivots += sub.report.pivots;
        report.factorizations += sub.report.factorizations;
        report.line_search_steps += sub.report.line_search_steps;
    }

    /// The caller's settings with what is left of the time limit; `None` when none is left.
    fn remaining(&self) -> Option<Settings> {
        let mut t = self.s.clone();
        if let Some(limit) = self.s.time_limit {
            let spent = self.before + self.clock.elapsed();
            t.time_limit = Some(limit.checked_sub(spent).filter(|d| !d.is_zero())?);
        }
        Some(t)
    }

    /// Iterations left of an explicit budget (`None`: no budget), given the report so far.
    fn left(&self) -> Option<usize> {
        (self.s.max_iter > 0).then(|| self.s.max_iter.saturating_sub(self.report.iterations))
    }

    /// The settings of the next inner solve ([`Self::remaining`]); `None` when out of time or
    /// (then `out_of_budget` is set) out of an explicit iteration budget.
    fn next(&mut self) -> Option<Settings> {
        let t = self.remaining()?;
        if self.left() == Some(0) {
            self.out_of_budget = true;
            return None;
        }
        Some(t)
    }

    /// One inexact proximal step (Rockafellar 1976, criterion A) from `center` with weight
    /// `lambda`: the perturbed problem is solved to a thousandth of the original error at the
    /// centre (F_λ(x̄) = F(x̄)). `None` when the inner solve did not meet that tolerance.
    fn proximal_step(
        &mut self,
        mut inner: Settings,
        center: &[f64],
        lambda: f64,
    ) -> Result<Option<Solution>, Error> {
        let p = self.p;
        inner.max_iter = self.left().unwrap_or(INNER_MAX_ITER).min(INNER_MAX_ITER);
        p.f.eval(center, &mut self.f);
        inner.tol = self.s.tol.max(1e-3 * p.error(center, &self.f));
        let fp = Perturbed { f: p.f, lambda, center };
        let pp = Mcp { f: &fp, lower: p.lower.clone(), upper: p.upper.clone() };
        let sub = (self.solve)(&pp, center, &inner)?;
        self.add(&sub);
        // An inner step is judged on the measure it was asked to meet: the physical check
        // (`Mcp::verify_physics`) is for the answer returned, and at the loose inner tolerance
        // it can refuse a perturbed solution that is a good enough proximal step.
        let inner_met = sub.report.status == Status::Solved
            || (sub.report.status == Status::NumericalFailure && sub.report.error <= inner.tol);
        Ok(inner_met.then_some(sub))
    }

    /// A try of the plain method on the original problem from `z`, with the settings `t`.
    fn try_plain(&mut self, mut t: Settings, z: &[f64]) -> Result<Solution, Error> {
        let p = self.p;
        t.max_iter = self.left().unwrap_or(self.default_max_iter).min(TRY_MAX_ITER);
        p.f.eval(z, &mut self.f);
        let start_error = p.error(z, &self.f);
        let mut tried = (self.solve)(p, z, &t)?;
        self.add(&tried);
        // A try that is converging (its error fell a hundredfold) goes on from where it
        // stopped, for at most TRY_EXTEND_ITER more steps.
        if tried.report.status == Status::MaxIterations && tried.report.error <= 1e-2 * start_error {
            if let Some(mut t) = self.remaining().filter(|_| self.left() != Some(0)) {
                t.max_iter = self.left().unwrap_or(self.default_max_iter).min(TRY_EXTEND_ITER);
                let more = (self.solve)(p, &tried.z, &t)?;
                self.add(&more);
                tried = more;
            }
        }
        Ok(tried)
    }

    /// The answer after `rounds` rounds: the try that `solved` the problem with the summed
    /// report, or else `best_z`, ending as the plain solve (`first`) did unless out of time or
    /// of the budget.
    fn finish(
        mut self,
        first: &SolveReport,
        solved: Option<Solution>,
        best_z: Vec<f64>,
        rounds: usize,
    ) -> Solution {
        self.report.elapsed = self.before + self.clock.elapsed();
        let how = format!("proximal perturbation (Billups 1995), {rounds} rounds");
        match solved {
            Some(mut sol) => {
                let mut report = self.report;
                report.status = Status::Solved;
                report.error = sol.report.error;
                report.residual_inf = sol.report.residual_inf;
                report.message = Some(format!("solved by {how}"));
                sol.report = report;
                sol
            }
            None => {
                // Out of time: TimeLimit; out of the budget: MaxIterations; out of rounds: the
                // plain method's own ending.
                let status = if self.remaining().is_none() {
                    Status::TimeLimit
                } else if self.out_of_budget || self.left() == Some(0) {
                    Status::MaxIterations
                } else {
                    first.status
                };
                let mut report = self.report;
                report.status = status;
                let tail = match &first.message {
                    Some(m) => format!("; the plain method: {m}"),
                    None => String::new(),
                };
                report.message = Some(format!("not solved after {how}{tail}"));
                self.p.solution(best_z, report, self.s.tol)
            }
        }
    }
}

/// Runs the rescue after the plain solve `first` (module docs). `solve(p, z0, s)` is the plain
/// method (cold start). Counters, iterations and histories of every inner solve are summed
/// into the returned report; `elapsed` covers the whole solve.
pub(crate) fn rescue(
    p: &Mcp<'_>,
    first: Solution,
    s: &Settings,
    knobs: Proximal,
    default_max_iter: usize,
    solve: &mut PlainSolve<'_>,
) -> Result<Solution, Error> {
    if !wanted(knobs, &first, s) {
        return Ok(first);
    }
    let mut r = Rescue {
        p,
        s,
        solve,
        default_max_iter,
        report: first.report.clone(),
        before: first.report.elapsed,
        clock: Instant::now(),
        f: vec![0.0; p.n()],
        out_of_budget: false,
    };
    let mut best_z = first.z;
    let (shift, big) = gershgorin(p.f, &best_z);
    let base = (2.0 * shift).max(1e-3 * big);
    let mut lambda = knobs.lambda * if base > 0.0 { base } else { 1.0 };
    let mut center = best_z.clone();
    let mut best_r = residual(p, &best_z, &mut r.f);
    let mut rounds = 0;
    let mut solved: Option<Solution> = None;
    while rounds < knobs.rounds {
        let Some(inner) = r.next() else { break };
        rounds += 1;
        // An inexact proximal step; a step that missed its tolerance raises λ.
        let Some(sub) = r.proximal_step(inner, &center, lambda)? else {
            lambda *= 10.0;
            continue;
        };
        let r_sub = residual(p, &sub.z, &mut r.f);
        if r_sub < best_r {
            (best_z, best_r) = (sub.z.clone(), r_sub);
        }
        // The proximal iteration: the next centre is the perturbed solution.
        center.copy_from_slice(&sub.z);
        lambda *= 0.2;
        // Then a try of the plain method from there.
        let Some(t) = r.next() else { break };
        let tried = r.try_plain(t, &sub.z)?;
        if tried.report.status == Status::Solved {
            solved = Some(tried);
            break;
        }
        let r_try = residual(p, &tried.z, &mut r.f);
        if r_try < best_r {
            (best_z, best_r) = (tried.z, r_try);
        }
    }
    Ok(r.finish(&first.report, solved, best_z, rounds))
}

/// Warm rounds at a tighter tolerance after [`Mcp::verify_physics`] refused an answer that met
/// `tol` on the MCP measure (badly scaled data, where that measure does not see an answer
/// still off in the problem's own scales): the rounds of [`perp_core::refine::refine_physics`],
/// each asking `solve` for the answer from the last one, within what is left of the iteration
/// limit (`max_iter`, or `default_max_iter`) and of the time limit. A solve the check did not
/// refuse is returned as it is.
pub(crate) fn refine_physics(
    p: &Mcp<'_>,
    first: Solution,
    s: &Settings,
    default_max_iter: usize,
    solve: &mut PlainSolve<'_>,
) -> Result<Solution, Error> {
    let mut rounds = Rounds { p, sol: first, solve };
    perp_core::refine::refine_physics(&mut rounds, s, default_max_iter)?;
    Ok(rounds.sol)
}

/// An MCP solve as the refinement repeats it: from the answer so far.
struct Rounds<'a, 'p, 's> {
    p: &'a Mcp<'p>,
    sol: Solution,
    solve: &'a mut PlainSolve<'s>,
}

impl Refinable for Rounds<'_, '_, '_> {
    fn report(&mut self) -> &mut SolveReport {
        &mut self.sol.report
    }

    fn solve_again(&mut self, s: &Settings) -> Result<(), Error> {
        self.sol = (self.solve)(self.p, &self.sol.z, s)?;
        Ok(())
    }
}

/// `proximal_rounds`, [`Proximal::rounds`] as a parameter of the Newton methods that have the
/// rescue (`fb-newton`, `bdiff-newton`).
pub const ROUNDS_PARAM: Param = Param::int(
    "proximal_rounds",
    DEFAULT_ROUNDS,
    0,
    1000,
    "proximal-perturbation rounds after a stall (Billups 1995); 0 = off",
);
/// `proximal_lambda`, [`Proximal::lambda`] as a parameter.
pub const LAMBDA_PARAM: Param = Param::real(
    "proximal_lambda",
    DEFAULT_LAMBDA,
    Bound::Excl(0.0),
    Bound::Open,
    "initial perturbation λ relative to twice the Gershgorin shift of ∇F",
);

impl Proximal {
    /// The rescue with [`ROUNDS_PARAM`] and [`LAMBDA_PARAM`] read from `p`.
    pub fn from_params(p: &Resolved) -> Self {
        Proximal { rounds: p.int("proximal_rounds"), lambda: p.real("proximal_lambda") }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check_jacobian;
    use crate::samples::Hs71;

    #[test]
    fn perturbed_map_and_its_jacobian() {
        let center = [1.0, 4.0, 4.0, 1.5, 0.0, 0.5];
        let fp = Perturbed { f: &Hs71, lambda: 3.0, center: &center };
        let z = [1.2, 4.5, 3.5, 1.4, -0.1, 0.4];
        let (mut a, mut b) = ([0.0; 6], [0.0; 6]);
        Hs71.eval(&z, &mut a);
        fp.eval(&z, &mut b);
        for i in 0..6 {
            assert!((b[i] - a[i] - 3.0 * (z[i] - center[i])).abs() < 1e-14);
        }
        assert!(check_jacobian(&fp, &z).relative_error < 1e-7);
        // A sparse Jacobian gets λ on its diagonal too (stored or not).
        let m = perp_core::Matrix::from_triplets(2, 2, &[(0, 1, 2.0), (1, 0, -1.0), (1, 1, 4.0)]).unwrap();
        let g = crate::AffineFunction::new(m, vec![1.0, -1.0]).unwrap();
        let c = [0.5, 0.5];
        let gp = Perturbed { f: &g, lambda: 3.0, center: &c };
        let sj = gp.sparse_jacobian(&[0.0, 0.0]).expect("sparse");
        let at = |i, j| sj.get(i, j).copied().unwrap_or(0.0);
        assert_eq!((at(0, 0), at(0, 1), at(1, 0), at(1, 1)), (3.0, 2.0, -1.0, 7.0));
        // The dense path agrees.
        let mut dj = Mat::<f64>::zeros(2, 2);
        gp.jacobian(&[0.0, 0.0], dj.as_mut());
        assert_eq!((dj[(0, 0)], dj[(0, 1)], dj[(1, 0)], dj[(1, 1)]), (3.0, 2.0, -1.0, 7.0));
        assert!(Proximal { lambda: 0.0, ..Proximal::default() }.validate().is_err());
        assert!(Proximal::default().validate().is_ok());
    }
}
