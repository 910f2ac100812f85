//! [`BdiffNewton`]: the B-differentiable (min-map) Newton method with hot start.
//!
//! # The method (Harker & Pang 1990; Pang 1990, *Math. Oper. Res.* 15:311–341)
//!
//! MCP(F, l, u) is the nonsmooth equation `H(z) = 0` with the min-map
//!
//! ```text
//!     H(z) = min(z − l, max(z − u, F(z)))        (NCP: H(z) = min(z, F(z))),
//! ```
//!
//! which is B(ouligand)-differentiable. At the current z the rows split into index sets
//! ([`IndexSet`]):
//!
//! ```text
//!     α = {i : zᵢ − lᵢ < Fᵢ}                 Hᵢ = zᵢ − lᵢ,  H'ᵢ(z; d) = dᵢ
//!     γ = {i : zᵢ − uᵢ > Fᵢ}                 Hᵢ = zᵢ − uᵢ,  H'ᵢ(z; d) = dᵢ
//!     β = {i : zᵢ − uᵢ < Fᵢ < zᵢ − lᵢ}       Hᵢ = Fᵢ,       H'ᵢ(z; d) = ∇Fᵢ d
//!     δ = ties Fᵢ = zᵢ − lᵢ or Fᵢ = zᵢ − uᵢ  H'ᵢ(z; d) = min(dᵢ, ∇Fᵢ d) (resp. max)
//! ```
//!
//! (a tie is `|Fᵢ − (zᵢ − bᵢ)| ≤ degenerate_tol·max(1, |Fᵢ|)`; a fixed variable lᵢ = uᵢ is
//! always in α). The Newton direction solves the B-derivative equation `H'(z; d) = −H(z)`
//! (the Newton equation of Pang 1990): rows in α/γ fix `dᵢ = −(zᵢ − bᵢ)`, rows in β give
//! the linear system `∇F_ββ d_β = −F_β − ∇F_β,α∪γ d_α∪γ − ∇F_βδ d_δ`, and the tied rows give a mixed LCP. After
//! eliminating d_β with the LU of `∇F_ββ` it is the small LCP (for a lower tie, sᵢ = +1;
//! upper, sᵢ = −1)
//!
//! ```text
//!     xᵢ = sᵢ(zᵢ − bᵢ + dᵢ) ≥ 0,   yᵢ = sᵢ(Fᵢ + ∇Fᵢ d) ≥ 0,   xᵢ yᵢ = 0      (i ∈ δ)
//! ```
//!
//! whose matrix is `D S D` with S the Schur complement `∇F_δδ − ∇F_δβ ∇F_ββ⁻¹ ∇F_βδ` and
//! D = diag(s). It is solved with Lemke's method ([`perp_lcp::lemke::Lemke`]); its pivots are
//! added to `report.pivots`.
//!
//! **Degenerate-set rule.** (1) If the δ-LCP's vector is ≥ 0, x = 0 solves it (no pivot).
//! (2) Otherwise Lemke. (3) If Lemke does not solve it (ray, failure), every tied row is put in
//! α/γ (the bound is kept: dᵢ = −(zᵢ − bᵢ)) and the β system is solved again — a
//! conservative rule of this implementation, not taken from the papers; the Armijo test below
//! then decides whether that direction is acceptable. The resolved sets (a tied row whose
//! x > y acts as β, otherwise as α/γ) are what the hot start remembers.
//!
//! **Damping.** Armijo on θ = ½‖H‖²: since θ'(z; d) = −2θ(z) for the Newton direction, a step
//! t (1, ½, ¼, …) is accepted when `θ(z + t d) ≤ (1 − 2σt) θ(z)` (the damped method of
//! Pang 1990).
//! Every trial point counts in `report.line_search_steps`. If ∇F_ββ is singular, or the Newton
//! line search fails, one steepest-descent step on θ along `−Gᵀ H` (G the rows eᵢ for α/γ/δ
//! and ∇Fᵢ for β) is tried with the test `θ(z + t d) ≤ θ(z) − σ t ‖GᵀH‖²`; if that fails too
//! (t < `min_step`) the solve ends [`Status::Stalled`]. Iterates are not projected on the
//! bounds (the min-map is defined on all of ℝⁿ; near a solution the full step is taken).
//!
//! **Linear algebra.** One faer dense partial-pivoting LU of the β-block per iteration (counted
//! in `report.factorizations`; none when β is empty). A sparse Jacobian
//! ([`crate::NcpFunction::sparse_jacobian`] returning `Some`) is scattered into the dense
//! n×n work matrix (densified) and the β-block is then taken from it; a sparse LU of the
//! β-block is not implemented.
//!
//! # Hot start (Trinkle–Tzitzouris–Pang, SAND2001-0076, §4: "hot-starting" B-diff Newton)
//!
//! In time stepping the NCP of step k+1 is a small perturbation of that of step k. With
//! `hot_start = true` the solver remembers, after every *solved* problem, the solution z* and
//! its resolved index sets. [`NcpSolver::solve`] on a problem of the same dimension then
//!
//! 1. starts from z* (projected onto the new bounds) instead of z0 when
//!    `θ(z*) ≤ θ(z0)` (one extra evaluation of F decides), and
//! 2. computes the first direction with the remembered index sets (no classification, no
//!    δ-LCP): when the active set has not changed this is the Newton step of the smooth piece
//!    that holds the new solution, so an LCP is solved in one iteration. If that direction's
//!    full step fails the Armijo test the sets are recomputed at z and the iteration goes on
//!    as usual.
//!
//! [`BdiffNewton::solve_from`] ignores the memory (a cold start from z0) but still records the
//! result; [`BdiffNewton::clear_hot_start`] forgets it.
//!
//! This file holds the options, the hot-start memory and the [`NcpSolver`] impl; `workspace`
//! the storage, the index sets and the run's state, `direction` the B-derivative direction,
//! `step` the line search and the iteration, `params` the parameters' defaults, list and
//! constructor (`perp list`).

use crate::proximal::{plain_settings, refine_physics, rescue, wanted, Proximal};
use crate::{Mcp, NcpSolver};
use faer::Mat;
use perp_core::iteration::{self, Counters, IterativeMethod, StepResult};
use perp_core::line_search::{Backtracking, Search};
use perp_core::linear::DenseLu;
use perp_core::{Error, Matrix, Settings, Solution, SolveReport, Status};
use perp_lcp::lemke::Lemke;
use perp_lcp::{Lcp, LcpSolver};

mod workspace;
use workspace::*;
mod direction;
pub mod params;
mod step;

/// Default Newton-step limit (used when `settings.max_iter == 0`).
pub const DEFAULT_MAX_ITER: usize = 100;

/// The role of one row in the B-derivative equation (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexSet {
    /// α: at (or moving to) the lower bound, `dᵢ = −(zᵢ − lᵢ)`; also every fixed variable.
    Lower,
    /// γ: at (or moving to) the upper bound, `dᵢ = −(zᵢ − uᵢ)`.
    Upper,
    /// β: inactive bounds, the equation `∇Fᵢ d = −Fᵢ`.
    Free,
    /// δ at the lower bound: `Fᵢ = zᵢ − lᵢ` (within the tie tolerance).
    TiedLower,
    /// δ at the upper bound: `Fᵢ = zᵢ − uᵢ` (within the tie tolerance).
    TiedUpper,
}

/// The B-differentiable Newton method on the min-map with Armijo damping and hot start
/// (registry name `"bdiff-newton"`); see the module docs for the method and its rules.
///
/// Knobs (defaults in parentheses; checked by [`BdiffNewton::validate`]):
/// * `sigma` (1e-4) — Armijo constant, in (0, ½).
/// * `min_step` (1e-12) — the line search fails below this step, in (0, 1).
/// * `degenerate_tol` (1e-10) — relative tie tolerance of the δ set, finite and ≥ 0.
/// * `hot_start` (true) — remember solutions and start the next solve there.
///
/// The Newton-step limit is `settings.max_iter`, default [`DEFAULT_MAX_ITER`] = 100.
///
/// ```
/// use perp_core::{Matrix, Settings, Status};
/// use perp_ncp::bdiff_newton::BdiffNewton;
/// use perp_ncp::{AffineFunction, Mcp, NcpSolver};
/// let f = AffineFunction::new(Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap(), vec![-5.0, -6.0]).unwrap();
/// let p = Mcp::ncp(&f);
/// let mut solver = BdiffNewton::new();
/// let sol = solver.solve(&p, &[0.0, 0.0], &Settings { tol: 1e-12, ..Settings::default() }).unwrap();
/// assert_eq!(sol.report.status, Status::Solved);
/// assert!((sol.z[0] - 4.0 / 3.0).abs() < 1e-14 && (sol.z[1] - 7.0 / 3.0).abs() < 1e-14);
/// ```
#[derive(Clone, Debug)]
pub struct BdiffNewton {
    /// Armijo constant σ in `θ(z + t d) ≤ (1 − 2σt) θ(z)`; default 1e-4, valid (0, ½).
    pub sigma: f64,
    /// Smallest trial step before the line search fails; default 1e-12, valid (0, 1).
    pub min_step: f64,
    /// Relative tie tolerance defining δ; default 1e-10, valid finite ≥ 0.
    pub degenerate_tol: f64,
    /// Remember each solved problem's solution and index sets and start the next solve of
    /// the same dimension there; default `true`.
    pub hot_start: bool,
    /// The rescue when the method ends `Stalled` or `MaxIterations`: proximal perturbation
    /// ([`crate::proximal`], Billups 1995); default 20 rounds, λ = 1 (relative); `rounds = 0`
    /// turns it off. The perturbed problems never enter the hot-start memory.
    pub proximal: Proximal,
    memory: Option<Memory>,
    ws: Work,
}

/// What the hot start remembers.
#[derive(Clone, Debug)]
struct Memory {
    z: Vec<f64>,
    sets: Vec<IndexSet>,
}

impl Default for BdiffNewton {
    fn default() -> Self {
        BdiffNewton {
            sigma: params::SIGMA,
            min_step: params::MIN_STEP,
            degenerate_tol: params::DEGENERATE_TOL,
            hot_start: params::HOT_START,
            proximal: Proximal::default(),
            memory: None,
            ws: Work::default(),
        }
    }
}

impl BdiffNewton {
    /// The solver with the default knobs (σ = 1e-4, min step 1e-12, tie tolerance 1e-10, hot
    /// start on).
    ///
    /// ```
    /// use perp_ncp::bdiff_newton::BdiffNewton;
    /// let s = BdiffNewton::new();
    /// assert!(s.hot_start && s.validate().is_ok());
    /// assert!(s.hot_start_point().is_none());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// `Err(InvalidSetting)` naming the first knob out of its documented range.
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.sigma > 0.0 && self.sigma < 0.5) {
            return Err(Error::setting("sigma", self.sigma, "must be in (0, 0.5)"));
        }
        if !(self.min_step > 0.0 && self.min_step < 1.0) {
            return Err(Error::setting("min_step", self.min_step, "must be in (0, 1)"));
        }
        if !(self.degenerate_tol.is_finite() && self.degenerate_tol >= 0.0) {
            return Err(Error::setting("degenerate_tol", self.degenerate_tol, "must be finite and >= 0"));
        }
        self.proximal.validate()
    }

    /// Forgets the remembered solution: the next [`NcpSolver::solve`] is a cold start.
    pub fn clear_hot_start(&mut self) {
        self.memory = None;
    }

    /// The remembered solution (the hot-start point), if any.
    pub fn hot_start_point(&self) -> Option<&[f64]> {
        self.memory.as_ref().map(|m| m.z.as_slice())
    }

    /// The remembered resolved index sets (only `Lower`, `Upper`, `Free`), if any.
    pub fn hot_start_sets(&self) -> Option<&[IndexSet]> {
        self.memory.as_ref().map(|m| m.sets.as_slice())
    }

    /// A cold start: solves `p` from exactly `z0` (projected onto the bounds), ignoring the
    /// remembered point, and — when `hot_start` is on and the solve succeeds — remembers the
    /// result for the next [`NcpSolver::solve`].
    pub fn solve_from(&mut self, p: &Mcp<'_>, z0: &[f64], s: &Settings) -> Result<Solution, Error> {
        self.run(p, z0, s, false)
    }

    /// The plain run, then the [`crate::proximal`] rescue when it stalls. The rescue's inner
    /// solves are cold and leave the memory alone; a rescued solution is remembered.
    fn run(&mut self, p: &Mcp<'_>, z0: &[f64], s: &Settings, use_memory: bool) -> Result<Solution, Error> {
        s.validate()?;
        self.validate()?;
        let first = self.run_plain(p, z0, &plain_settings(self.proximal, s), use_memory)?;
        if !wanted(self.proximal, &first, s) && !first.report.refused_by_physics(s.tol) {
            return Ok(first);
        }
        let (knobs, hot) = (self.proximal, self.hot_start);
        self.hot_start = false;
        let out = if wanted(knobs, &first, s) {
            rescue(p, first, s, knobs, DEFAULT_MAX_ITER, &mut |pp, z, st| self.run_plain(pp, z, st, false))
        } else {
            Ok(first)
        }
        .and_then(|sol| {
            refine_physics(p, sol, s, DEFAULT_MAX_ITER, &mut |pp, z, st| self.run_plain(pp, z, st, false))
        });
        self.hot_start = hot;
        let sol = out?;
        if hot && sol.report.status == Status::Solved {
            let mut sets = vec![IndexSet::Free; p.n()];
            classify(p, &sol.z, &sol.w, self.degenerate_tol, &mut sets);
            for st in sets.iter_mut() {
                *st = resolve_to_bound(*st);
            }
            self.memory = Some(Memory { z: sol.z.clone(), sets });
        }
        Ok(sol)
    }

    /// One run of the method (no rescue); knobs and settings already validated.
    fn run_plain(
        &mut self,
        p: &Mcp<'_>,
        z0: &[f64],
        s: &Settings,
        use_memory: bool,
    ) -> Result<Solution, Error> {
        let n = p.n();
        let z0 = p.start(z0)?;
        self.ws.resize(n);
        let ws = &mut self.ws;
        ws.z.copy_from_slice(&z0);
        p.f.eval(&ws.z, &mut ws.f);
        Error::check_finite("F(z0)", &ws.f)?;
        p.natural_residual(&ws.z, &ws.f, &mut ws.h);
        let mut hot_sets = None;
        let mut message = None;
        if use_memory && self.hot_start {
            if let Some(m) = self.memory.as_ref().filter(|m| m.z.len() == n) {
                let zh = p.start(&m.z)?;
                p.f.eval(&zh, &mut ws.ft);
                if ws.ft.iter().all(|v| v.is_finite()) {
                    p.natural_residual(&zh, &ws.ft, &mut ws.ht);
                    if sq(&ws.ht) <= sq(&ws.h) {
                        ws.z.copy_from_slice(&zh);
                        ws.f.copy_from_slice(&ws.ft);
                        ws.h.copy_from_slice(&ws.ht);
                        hot_sets = Some(m.sets.clone());
                        message = Some("hot start from the previous solution".to_string());
                    }
                }
            }
        }
        // A sparse Jacobian of the wrong shape is bad input: check it once, at the start.
        if let Some(c) = p.f.sparse_jacobian(&ws.z) {
            if c.rows() != n || c.cols() != n {
                return Err(Error::dim(
                    "sparse Jacobian rows/cols",
                    n,
                    if c.rows() != n { c.rows() } else { c.cols() },
                ));
            }
        }
        let mut report = SolveReport::new("bdiff-newton");
        let mut method = Method {
            p,
            ws,
            sigma: self.sigma,
            min_step: self.min_step,
            tie: self.degenerate_tol,
            hot_sets,
            last_sets: None,
            factorizations: 0,
            line_search_steps: 0,
            last_t: None,
            pivots: 0,
            message: None,
        };
        let out = iteration::run(&mut method, s, DEFAULT_MAX_ITER);
        out.record(&mut report);
        report.message = method.message.take().or(message);
        let last_sets = method.last_sets.take().or(method.hot_sets.take());
        let z = self.ws.z.clone();
        let sol = p.solution(z, report, s.tol);
        if self.hot_start && sol.report.status == Status::Solved {
            let sets = last_sets.unwrap_or_else(|| {
                // Solved at the start: classify there, ties resolved to the bound.
                let mut sets = vec![IndexSet::Free; n];
                classify(p, &sol.z, &sol.w, self.degenerate_tol, &mut sets);
                for st in sets.iter_mut() {
                    *st = resolve_to_bound(*st);
                }
                sets
            });
            self.memory = Some(Memory { z: sol.z.clone(), sets });
        }
        Ok(sol)
    }
}

impl NcpSolver for BdiffNewton {
    fn name(&self) -> &str {
        "bdiff-newton"
    }

    /// [`BdiffNewton::clear_hot_start`].
    fn forget(&mut self) {
        self.clear_hot_start();
    }

    /// Solves `p`; with `hot_start` on and a remembered solution of the same dimension whose
    /// merit θ is no larger than that of `z0`, starts there with the remembered index sets
    /// (module docs).
    fn solve(&mut self, p: &Mcp<'_>, z0: &[f64], s: &Settings) -> Result<Solution, Error> {
        self.run(p, z0, s, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AffineFunction, NcpFunction};
    use faer::MatMut;

    fn affine(m: &[f64], q: &[f64]) -> AffineFunction<'static> {
        let n = q.len();
        AffineFunction::new(Matrix::from_row_major(n, n, m).unwrap(), q.to_vec()).unwrap()
    }

    fn tight() -> Settings {
        Settings { tol: 1e-12, record_history: true, ..Settings::default() }
    }

    #[test]
    fn one_step_by_hand_on_a_2x2_lcp() {
        // M = [[2,1],[1,2]], q = (−1, 3), z0 = (1, 1): F = (2, 6) > z, so α = {1, 2} and
        // d = −z: z1 = (0, 0), θ: ½(1 + 1) = 1 → ½ (full step, one trial, no LU).
        let f = affine(&[2.0, 1.0, 1.0, 2.0], &[-1.0, 3.0]);
        let p = Mcp::ncp(&f);
        let mut s = BdiffNewton::new();
        let one = Settings { max_iter: 1, ..tight() };
        let sol = s.solve_from(&p, &[1.0, 1.0], &one).unwrap();
        assert_eq!(sol.report.status, Status::MaxIterations);
        assert_eq!(sol.z, vec![0.0, 0.0]);
        assert_eq!((sol.report.line_search_steps, sol.report.factorizations), (1, 0));
        assert_eq!(sol.report.history, vec![1.0]); // ‖min(0, −1), min(0, 3)‖ = 1.
                                                   // Second step: β = {1} (0 > −1), α = {2}: 2 d₁ = 1 → z = (½, 0), F = (0, 3.5).
        let sol = s.solve_from(&p, &[1.0, 1.0], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert_eq!(sol.z, vec![0.5, 0.0]);
        assert_eq!((sol.report.iterations, sol.report.factorizations), (2, 1));
    }

    #[test]
    fn lcp_2x2_solved_in_one_newton_step() {
        let f = affine(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
        let p = Mcp::ncp(&f);
        let sol = BdiffNewton::new().solve(&p, &[0.0, 0.0], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!(sol.report.error <= 1e-12);
        assert!((sol.z[0] - 4.0 / 3.0).abs() < 1e-14 && (sol.z[1] - 7.0 / 3.0).abs() < 1e-14);
        assert_eq!(
            (sol.report.iterations, sol.report.factorizations, sol.report.line_search_steps),
            (1, 1, 1)
        );
    }

    #[test]
    fn tied_row_goes_through_the_delta_lcp() {
        // q = (0, −6), z0 = 0: row 1 has z₁ = F₁ = 0 (δ), row 2 is β. Schur complement:
        // d₂ = (6 − d₁)/2, y = 3 + 1.5 d₁ ⇒ x = d₁ = 0: z = (0, 3), F = (3, 0) in one step.
        let f = affine(&[2.0, 1.0, 1.0, 2.0], &[0.0, -6.0]);
        let p = Mcp::ncp(&f);
        let mut s = BdiffNewton::new();
        let sol = s.solve(&p, &[0.0, 0.0], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert_eq!(sol.z, vec![0.0, 3.0]);
        assert_eq!(sol.report.iterations, 1);
        assert_eq!(s.hot_start_sets().unwrap(), &[IndexSet::Lower, IndexSet::Free]);
        assert_eq!(sol.report.pivots, 0, "q_δ = 3 ≥ 0: x = 0 without Lemke");
    }

    #[test]
    fn tied_rows_solved_with_lemke() {
        // M = [[1, 2], [2, 1]], q = (−2, −2), z0 = (1, 1): F = (1, 1) = z, both rows tie. The
        // δ-LCP is x = 1 + d ≥ 0, y = 1 + M d = q' + M x with q' = 1 − M·1 = (−2, −2) — Lemke.
        let f = affine(&[1.0, 2.0, 2.0, 1.0], &[-2.0, -2.0]);
        let p = Mcp::ncp(&f);
        let sol = BdiffNewton::new().solve(&p, &[1.0, 1.0], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!(sol.report.pivots > 0);
        assert!(sol.report.error <= 1e-12);
        // Solutions of this LCP: (2, 0), (0, 2), (2/3, 2/3); Lemke (2 pivots) picks x = (0, 1),
        // i.e. d = (−1, 1): z = (0, 2), F = (2, 0), in one Newton step.
        assert!(dist(&sol.z, &[0.0, 2.0]) < 1e-14, "{:?}", sol.z);
        assert_eq!((sol.report.iterations, sol.report.pivots), (1, 2));
    }

    /// Kojima–Shindo NCP: solutions (√6/2, 0, 0, ½) (degenerate: z₃ = F₃ = 0) and (1, 0, 3, 0).
    use crate::samples::KojimaShindo;

    fn dist(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
    }

    #[test]
    fn kojima_shindo_both_solutions() {
        let degenerate = [6f64.sqrt() / 2.0, 0.0, 0.0, 0.5];
        let regular = [1.0, 0.0, 3.0, 0.0];
        let p = Mcp::ncp(&KojimaShindo);
        let s = Settings { tol: 1e-10, ..tight() };
        let mut found = Vec::new();
        for z0 in [[0.0; 4], [1.0; 4], [1.2, 0.0, 0.1, 0.4], [0.9, 0.1, 2.5, 0.1]] {
            let sol = BdiffNewton::new().solve(&p, &z0, &s).unwrap();
            assert_eq!(sol.report.status, Status::Solved, "from {z0:?}: {:?}", sol.report);
            assert!(p.residual_inf(&sol.z, &sol.w) <= 1e-10);
            let which = if dist(&sol.z, &degenerate) < 1e-8 {
                "degenerate"
            } else {
                assert!(dist(&sol.z, &regular) < 1e-8, "{:?}", sol.z);
                "regular"
            };
            found.push((which, sol.report.iterations, sol.report.factorizations));
        }
        // Pinned (iterations, factorizations): the degenerate solution from 0 costs the most.
        assert_eq!(
            found,
            vec![("degenerate", 11, 7), ("regular", 7, 5), ("degenerate", 3, 3), ("regular", 4, 4)]
        );
    }

    #[test]
    fn box_mcp_with_known_solution() {
        // F = Mz + q, M = [[2,1],[1,2]], q = (−5,−6), l = (−1, 3), u = (½, 10):
        // z = (½, 3) with F = (−1, ½): row 1 at its upper bound (F ≤ 0), row 2 at its lower.
        let f = affine(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
        let p = Mcp::new(&f, vec![-1.0, 3.0], vec![0.5, 10.0]).unwrap();
        let sol = BdiffNewton::new().solve(&p, &[0.0, 5.0], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!(dist(&sol.z, &[0.5, 3.0]) < 1e-14, "{:?}", sol.z);
        assert!(dist(&sol.w, &[-1.0, 0.5]) < 1e-14);
    }

    #[test]
    fn free_row_mcp_with_known_solution() {
        // Row 1 free: 2z₁ + z₂ = 5; row 2: 0 ≤ z₂ ⊥ z₁ + 2z₂ + 6 ≥ 0 ⇒ z = (5/2, 0), F₂ = 8.5.
        let f = affine(&[2.0, 1.0, 1.0, 2.0], &[-5.0, 6.0]);
        let inf = f64::INFINITY;
        let p = Mcp::new(&f, vec![-inf, 0.0], vec![inf, inf]).unwrap();
        let sol = BdiffNewton::new().solve(&p, &[-3.0, 4.0], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!(dist(&sol.z, &[2.5, 0.0]) < 1e-14, "{:?}", sol.z);
        assert!(sol.w[0].abs() < 1e-14 && (sol.w[1] - 8.5).abs() < 1e-14);
    }

    #[test]
    fn nan_mid_solve_is_a_numerical_failure_with_a_finite_iterate() {
        // F(z) = z − 2 for z < 1.5, NaN beyond: the Newton step from 0 goes to 2.
        struct Cliff;
        impl NcpFunction for Cliff {
            fn dim(&self) -> usize {
                1
            }
            fn eval(&self, z: &[f64], f: &mut [f64]) {
                f[0] = if z[0] < 1.5 { z[0] - 2.0 } else { f64::NAN };
            }
            fn jacobian(&self, _z: &[f64], mut j: MatMut<'_, f64>) {
                j[(0, 0)] = 1.0;
            }
        }
        let p = Mcp::ncp(&Cliff);
        let mut s = BdiffNewton::new();
        let sol = s.solve(&p, &[0.0], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::NumericalFailure);
        // The searches backtrack from the NaN trials: the iterate ends at the cliff's edge,
        // inside the domain (the solution 2 is outside it).
        assert!((0.0..1.5).contains(&sol.z[0]), "{:?}", sol.z);
        assert!(sol.w.iter().all(|v| v.is_finite()));
        assert!(s.hot_start_point().is_none(), "failures are not remembered");
        // NaN at the start is bad input.
        assert!(matches!(s.solve(&p, &[2.0], &tight()), Err(Error::NonFinite { .. })));
    }

    #[test]
    fn quadratic_convergence_on_a_nondegenerate_solution() {
        let p = Mcp::ncp(&KojimaShindo);
        let sol =
            BdiffNewton::new().solve(&p, &[0.9, 0.1, 2.5, 0.1], &Settings { tol: 1e-14, ..tight() }).unwrap();
        assert!(dist(&sol.z, &[1.0, 0.0, 3.0, 0.0]) < 1e-12);
        let h = &sol.report.history;
        assert_eq!(h.len(), 4, "{h:?}"); // 5.2e-2, 5.2e-5, 1.6e-10, 0
                                         // e_{k+1} ≤ C e_k² over the last steps with e_k < 1e-2.
        let mut checked = 0;
        for k in 1..h.len() {
            if h[k - 1] < 1e-2 && h[k] > 1e-15 {
                assert!(h[k] <= 10.0 * h[k - 1] * h[k - 1], "{h:?}");
                checked += 1;
            }
        }
        assert!(checked >= 1, "{h:?}");
    }

    /// A deterministic n×n positive definite M = AᵀA + I and q for the hot-start test.
    fn family(n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let a: Vec<f64> = (0..n * n).map(|k| (((k * 7919) % 101) as f64 / 101.0) - 0.5).collect();
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                m[i * n + j] =
                    (0..n).map(|k| a[k * n + i] * a[k * n + j]).sum::<f64>() + if i == j { 1.0 } else { 0.0 };
            }
        }
        let q: Vec<f64> = (0..n).map(|i| (((i * 31) % 17) as f64 - 8.0) / 4.0).collect();
        let v: Vec<f64> = (0..n).map(|i| ((i * 13) % 7) as f64 / 7.0 - 0.5).collect();
        (m, q, v)
    }

    #[test]
    fn hot_start_beats_cold_start_on_perturbed_lcps() {
        let n = 30;
        let (m, q, v) = family(n);
        let s = tight();
        let (mut hot, mut cold) =
            (BdiffNewton::new(), BdiffNewton { hot_start: false, ..BdiffNewton::new() });
        let (mut it_hot, mut it_cold, mut lu_hot, mut lu_cold) = (0, 0, 0, 0);
        for k in 0..20 {
            let qk: Vec<f64> = q.iter().zip(&v).map(|(qi, vi)| qi + 0.01 * k as f64 * vi).collect();
            let f = affine(&m, &qk);
            let p = Mcp::ncp(&f);
            let a = hot.solve(&p, &vec![0.0; n], &s).unwrap();
            let b = cold.solve(&p, &vec![0.0; n], &s).unwrap();
            assert_eq!((a.report.status, b.report.status), (Status::Solved, Status::Solved));
            assert!(dist(&a.z, &b.z) < 1e-10);
            it_hot += a.report.iterations;
            it_cold += b.report.iterations;
            lu_hot += a.report.factorizations;
            lu_cold += b.report.factorizations;
        }
        // Hot: 3 iterations for the first problem, then 1 each (the remembered active set
        // gives the exact Newton step of the new LCP).
        assert_eq!((it_hot, lu_hot, it_cold, lu_cold), (23, 23, 62, 62));
        assert!(2 * it_hot <= it_cold, "hot {it_hot}, cold {it_cold}");
    }

    #[test]
    fn hot_start_on_a_nonlinear_parameter_sequence() {
        // Kojima–Shindo with F₁ shifted by a parameter: F₁ − 0.002k.
        struct Shifted(f64);
        impl NcpFunction for Shifted {
            fn dim(&self) -> usize {
                4
            }
            fn eval(&self, z: &[f64], f: &mut [f64]) {
                KojimaShindo.eval(z, f);
                f[0] -= self.0;
            }
            fn jacobian(&self, z: &[f64], j: MatMut<'_, f64>) {
                KojimaShindo.jacobian(z, j);
            }
        }
        let s = Settings { tol: 1e-10, ..tight() };
        let (mut hot, mut cold) = (BdiffNewton::new(), BdiffNewton::new());
        let (mut it_hot, mut it_cold) = (0, 0);
        for k in 0..20 {
            let f = Shifted(0.002 * k as f64);
            let p = Mcp::ncp(&f);
            let a = hot.solve(&p, &[1.0; 4], &s).unwrap();
            let b = cold.solve_from(&p, &[1.0; 4], &s).unwrap();
            assert_eq!((a.report.status, b.report.status), (Status::Solved, Status::Solved));
            it_hot += a.report.iterations;
            it_cold += b.report.iterations;
        }
        assert_eq!((it_hot, it_cold), (45, 140));
        assert!(2 * it_hot <= it_cold, "hot {it_hot}, cold {it_cold}");
    }

    #[test]
    fn sparse_jacobian_path_matches_dense() {
        let m = Matrix::from_triplets(
            3,
            3,
            &[(0, 0, 4.0), (0, 1, -1.0), (1, 0, -1.0), (1, 1, 4.0), (1, 2, -1.0), (2, 1, -1.0), (2, 2, 4.0)],
        )
        .unwrap();
        let f = AffineFunction::new(m, vec![-1.0, 2.0, -3.0]).unwrap();
        let sol = BdiffNewton::new().solve(&Mcp::ncp(&f), &[0.0; 3], &tight()).unwrap();
        let d = affine(&[4.0, -1.0, 0.0, -1.0, 4.0, -1.0, 0.0, -1.0, 4.0], &[-1.0, 2.0, -3.0]);
        let sd = BdiffNewton::new().solve(&Mcp::ncp(&d), &[0.0; 3], &tight()).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!(dist(&sol.z, &sd.z) < 1e-15);
        assert_eq!(sol.report.iterations, sd.report.iterations);
    }

    #[test]
    fn bad_input_and_knobs_are_errors() {
        let f = affine(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
        let p = Mcp::ncp(&f);
        let mut s = BdiffNewton::new();
        assert!(matches!(s.solve(&p, &[0.0], &tight()), Err(Error::DimensionMismatch { .. })));
        assert!(s.solve(&p, &[0.0, f64::NAN], &tight()).is_err());
        s.sigma = 0.7;
        assert!(matches!(s.validate(), Err(Error::InvalidSetting { .. })));
        assert!(s.solve(&p, &[0.0, 0.0], &tight()).is_err());
        let t = BdiffNewton { degenerate_tol: f64::NAN, ..BdiffNewton::new() };
        assert!(t.validate().is_err());
        let mut u = BdiffNewton::new();
        u.solve(&p, &[0.0, 0.0], &tight()).unwrap();
        assert!(u.hot_start_point().is_some());
        u.clear_hot_start();
        assert!(u.hot_start_point().is_none());
        assert_eq!(u.name(), "bdiff-newton");
    }
}
