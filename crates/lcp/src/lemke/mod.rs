//! Lemke's complementary pivoting method with a lexicographic minimum-ratio test.
//!
//! # The method (Cottle–Pang–Stone, *The Linear Complementarity Problem*, §4.4; Stewart 2000, §1.4)
//!
//! Lemke's method solves the augmented system
//!
//! ```text
//!     w = q + d z₀ + M z,    w, z ≥ 0,  z₀ ≥ 0,   zᵢ wᵢ = 0,
//! ```
//!
//! with a covering vector d > 0 (default e = (1, …, 1)). It starts from the basis of all
//! w's, brings in z₀ at the value max(−qᵢ/dᵢ) so that every w is nonnegative, and then
//! follows the almost-complementary path: the variable entering the basis is always the
//! complement of the one that just left. It ends when z₀ leaves (a solution of the LCP) or
//! when the entering column has no blocking variable (a *secondary ray*). For a copositive-plus
//! M ray termination certifies that the LCP has no solution (CPS Thm. 4.4.12; Stewart 2000,
//! §1.4: "Lemke's method computes a solution … where M is copositive and qᵀy ≥ 0 whenever y
//! solves the homogeneous LCP").
//!
//! # Degeneracy
//!
//! Ties in the minimum-ratio test are broken lexicographically (CPS §4.9): among the tied
//! rows the leaving one minimises the row of `[B⁻¹q, B⁻¹] / (B⁻¹a)ᵢ` in lexicographic order.
//! Since the rows of B⁻¹ are distinct, the choice is unique, and no basis repeats: the method
//! cannot cycle on degenerate problems. If z₀ is among the tied rows it leaves at once.
//! The columns of B⁻¹ are computed lazily, one at a time and only at the candidates still
//! tied, stopping when one is left (`Engine::lex_break`): a column for a row whose wᵢ is
//! basic is a unit vector (O(1)), one for a row of R₂ costs O(k) per candidate. So M = I
//! with all qᵢ equal, which ties every basic w at every pivot, costs about what the same
//! problem with q perturbed costs (building each tied candidate's whole row of B⁻¹ made it
//! O(n⁴); the times before and after are in `docs/performance.md`, "LCP").
//!
//! # Cost per pivot
//!
//! The basis B has columns `eᵢ` (wᵢ basic), `−M·ⱼ` (zⱼ basic) and `−d` (z₀ basic). Only the
//! k non-unit columns matter: with R₂ the k rows whose wᵢ is non-basic, B is block
//! triangular after a permutation and `B x = a` reduces to `S x_Z = a[R₂]` with the k×k
//! matrix `S = C[R₂, Z]` (C the non-unit columns), then `x_W = a[R₁] − C[R₁, Z] x_Z`.
//! We keep `T = S⁻¹` explicitly and update it at every pivot by a bordering or a rank-one
//! (Sherman–Morrison) formula, so a pivot costs O(k² + n·k) — never a refactorization at
//! every pivot (Drake's Moby refactors, O(n³) a pivot). To stop round-off drift, the basic
//! values are recomputed from T every [`REFRESH`] pivots, T itself is recomputed from a dense
//! LU of S every max(n, 100) pivots (O(k²) a pivot amortized), and the final solution gets two
//! steps of iterative refinement on its support.
//!
//! # The loop
//!
//! The pivots run through [`perp_core::iteration::run_with`], one pivot per step: the loop
//! counts them (the report's `pivots` and `iterations`), records the history and calls the
//! observer after each, and checks the time limit after each. The error a step reports is the
//! artificial variable z₀ (cheap: one basic value; 0 once z₀ has left the basis); Lemke ends
//! exactly, not on a tolerance, so the loop does not compare z₀ with `tol`. Rays, singular
//! pivots and restarts are found before a pivot (`prepare_step`), so a restart's pivots count
//! in the same loop and the same pivot limit.
//!
//! # Warm start
//!
//! Given a previous z, the complementary basis implied by its support `S = {i : zᵢ > 0}` is
//! tried first: one dense LU solve of `M_SS z_S = −q_S`; if the result is feasible and meets
//! the tolerance it is returned after 0 pivots. Otherwise Lemke pivots from that basis, with
//! covering vector B·e and the checks of a crash guess (below), and from the all-w start if
//! that run fails; a warm start replaces the crash.
//!
//! # Crash
//!
//! A cold start on n ≥ [`CRASH_MIN_N`] variables, when every diagonal entry of M is positive
//! (not on a Stewart–Trinkle or pyramid LCP, whose friction-cone rows have a zero diagonal and
//! make most guesses singular), first guesses the solution's support by
//! block principal pivoting (Júdice & Pires 1994; see [`Lemke::crash`]): each round one dense
//! LU of `M_SS`, every infeasible index exchanged at once. A guess that solves the problem is
//! returned after 0 pivots (its error checked against `tol`, as a warm basis is); otherwise
//! Lemke pivots from the complementary basis of the best guess with covering vector B·e, and
//! an answer reached that way is checked too. If that run ends on a ray, a singular basis or
//! an answer that fails the check, the all-w start runs as if there had been no crash, so the
//! ray reported and the restarts are those of the textbook method. On a P-matrix the crash
//! usually solves in 1–6 rounds where the all-w path takes about one pivot per index of the
//! support, each O(n·k) and memory-bound; on Fathi's family, exponential for the all-w path,
//! it ends in a few dozen pivots. It costs up to `crash` LUs of at most n where it does not
//! help (a semidefinite M whose guesses are singular).
//!
//! # Storage
//!
//! Everything a solve needs lives in the solver's [`Workspace`], sized once per n: M by
//! columns, the basis, C[:, Z] and T, the scratch of the lexicographic ratio test, the restart
//! supports and covering vectors, and the last secondary ray ([`Lemke::last_ray`]). The dense
//! LUs (refactorizations of S, warm-start bases of more than 12 indices; smaller ones are
//! factored on the stack) use faer's `lu_in_place` and `solve_in_place_with_conj` — the
//! operations of `partial_piv_lu` and `Solve::solve` — on reused storage, with a `MemBuffer`
//! sized once by their `*_scratch` functions. So once a `Lemke` has solved a problem of size n,
//! [`LcpSolver::solve_into`] on another of size n allocates nothing; `solve` wraps it.
//!
//! # Layout
//!
//! This file holds the options, the workspace and the [`LcpSolver`] impl; `run` the driver and
//! the pivoting state, `engine`, `basis` and `pivot` the pivoting engine, `ratio` the ratio
//! test, `warm_start` the warm start and the crash, `dense` the dense storage of M, `params` the
//! parameters' defaults, list and constructor (`perp list`).

mod basis;
mod dense;
mod engine;
pub mod params;
mod pivot;
mod ratio;
mod run;
#[cfg(test)]
mod tests;
mod warm_start;

use perp_core::iteration::{self, Counters, IterativeMethod, StepResult};
use perp_core::{Error, Ray, Settings, SolutionMut, SolveReport, Status};
use std::time::Instant;

use crate::{Lcp, LcpSolver};
use dense::DenseCols;
use engine::*;
use warm_start::*;

pub use engine::REFRESH;

/// The smallest problem on which [`Lemke::crash`] runs: below it a pivot is cheap and the
/// all-w start wins.
pub const CRASH_MIN_N: usize = 64;

/// Lemke's method (registry name `"lemke"`).
///
/// * `covering` — the covering vector d (every entry finite and > 0); `None` means e.
/// * `restarts` — after a ray termination, how many further starts to try (default 4). Each
///   restarts Lemke on the same problem from the complementary basis B of a guessed support
///   S (zⱼ basic for j ∈ S) with covering vector d = B·e, so that B⁻¹d = e and z₀ can enter
///   as usual; the supports come from the first Lemke–Howson pivot (see `restart_supports`).
///   This solves bimatrix games such as CPS example 4.4.23 (Siconos' `lcp_CPS_3`), on which
///   Lemke from the all-w basis ends on a ray at its second pivot with *any* positive
///   covering vector. For copositive-plus M a ray already proves infeasibility, so restarts
///   only cost time; `restarts: 0` skips them. The ray reported is the one of the all-w start.
/// * The pivot limit is `settings.max_iter`, default `100·(n+1)`, over all starts.
/// * The pivoting runs through the shared loop ([`perp_core::iteration`]), one pivot a step:
///   `time_limit` and the observer are checked after every pivot, `record_history` records
///   the artificial variable z₀ after every pivot (0 once it has left), and
///   `report.iterations` is `report.pivots` plus the crash's block-pivoting rounds (each one
///   LU; see "Crash"). The observer's `Progress::error` is that z₀ too.
///
/// Sparse M is densified once per solve, into the workspace (Lemke's tableau fills in anyway).
///
/// ```
/// use perp_core::{Matrix, Settings, Status};
/// use perp_lcp::{lemke::Lemke, Lcp, LcpSolver};
/// let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
/// let p = Lcp::new(m, vec![-5.0, -6.0]).unwrap();
/// let sol = Lemke::new().solve(&p, None, &Settings::default()).unwrap();
/// assert_eq!(sol.report.status, Status::Solved);
/// assert!((sol.z[0] - 4.0 / 3.0).abs() < 1e-14 && (sol.z[1] - 7.0 / 3.0).abs() < 1e-14);
/// ```
#[derive(Clone, Debug)]
pub struct Lemke {
    /// The covering vector d; `None` for e = (1, …, 1).
    pub covering: Option<Vec<f64>>,
    /// Attempts with other covering vectors after a ray termination (default 4).
    pub restarts: usize,
    /// After each solve, make the storage of refactorizations ready even if this solve did not
    /// need it, so that the next solve of the same structure allocates nothing whatever its
    /// pivots (default `true`, what a simulator wants). `false` suits one-shot solves of
    /// changing sizes, such as lemke-pyramid's alignment rounds, which then pay for that
    /// storage only when a refactorization happens.
    pub keep_ready: bool,
    /// Harris' two-pass ratio test instead of the exact minimum ratio with its lexicographic
    /// tie-break (default `false`): among the rows whose ratio is within a feasibility
    /// tolerance of the minimum (`1e-9` of the largest basic value), the largest pivot element
    /// leaves, z₀ first (Harris 1973, "Pivot selection methods of the Devex LP code", Math.
    /// Programming 5, §4; the textbook two-pass form: Chvátal, *Linear Programming*, ch. 8).
    /// Basic values may then go below 0 by that tolerance. It trades the exact-degeneracy
    /// guarantee of the lexicographic rule for pivots that keep the basis well conditioned:
    /// lemke-pyramid retries with it when a plain run ends on a basis whose answer is off.
    pub harris: bool,
    /// Rounds of the crash before a cold start on a problem of at least [`CRASH_MIN_N`]
    /// variables whose M has a positive diagonal (default 8; 0: none, Lemke from the all-w
    /// basis as in the textbook). Block principal pivoting (Júdice & Pires 1994) guesses the
    /// solution's support, one dense LU of `M_SS` a round; a guess that solves the problem is
    /// returned after 0 pivots, otherwise Lemke starts from the complementary basis of the best
    /// guess with covering vector B·e (the start of the restarts), and from the all-w basis if
    /// that run ends on a ray, a singular basis or an answer that fails its check. So every
    /// guarantee of the all-w start stays; the crash is in the spirit of PATH's crash (Dirkse
    /// & Ferris 1995, "The PATH solver", Optim. Methods Softw. 5).
    pub crash: usize,
    /// Storage reused across solves (sized once per n): a fresh one is
    /// `Workspace::default()`. It also holds the secondary ray of the last solve
    /// ([`Lemke::last_ray`]).
    pub workspace: Workspace,
}

impl Default for Lemke {
    fn default() -> Self {
        Lemke {
            covering: None,
            restarts: params::RESTARTS,
            keep_ready: true,
            harris: false,
            crash: params::CRASH,
            workspace: Workspace::default(),
        }
    }
}

impl Lemke {
    /// Lemke with covering vector e and 4 restarts.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lemke with a given covering vector d (checked at solve time: length n, entries > 0).
    ///
    /// ```
    /// use perp_lcp::lemke::Lemke;
    /// let l = Lemke::with_covering(vec![1.0, 2.0]);
    /// assert_eq!(l.covering.as_deref(), Some(&[1.0, 2.0][..]));
    /// ```
    pub fn with_covering(d: Vec<f64>) -> Self {
        Lemke { covering: Some(d), ..Self::default() }
    }

    /// The covering vector d into `d`: the given one (checked: length n, entries finite and
    /// > 0) or e.
    fn covering_into(covering: Option<&[f64]>, n: usize, d: &mut Vec<f64>) -> Result<(), Error> {
        d.clear();
        match covering {
            None => d.resize(n, 1.0),
            Some(c) => {
                Error::check_len("covering vector d", c, n)?;
                if let Some(i) = c.iter().position(|&x| !(x.is_finite() && x > 0.0)) {
                    return Err(Error::setting(
                        &format!("covering vector d[{i}]"),
                        c[i],
                        "must be finite and > 0",
                    ));
                }
                d.extend_from_slice(c);
            }
        }
        Ok(())
    }

    /// The secondary ray on which the last [`LcpSolver::solve_into`] (or `solve`) ended, when
    /// its status was [`Status::RayTermination`]; borrowed from the workspace (no allocation).
    /// `solve` returns the same ray, owned, as [`Solution::ray`].
    ///
    /// ```
    /// use perp_core::{Matrix, Settings, Solution, Status};
    /// use perp_lcp::{lemke::Lemke, Lcp, LcpSolver};
    /// // w = −z − 1 ≥ 0 is infeasible: Lemke ends on a ray.
    /// let p = Lcp::new(Matrix::from_row_major(1, 1, &[-1.0]).unwrap(), vec![-1.0]).unwrap();
    /// let mut lemke = Lemke { restarts: 0, ..Lemke::new() };
    /// let mut sol = Solution::zeros(1);
    /// lemke.solve_into(&p, false, sol.view_mut(), &Settings::default()).unwrap();
    /// assert_eq!(sol.report.status, Status::RayTermination);
    /// let ray = lemke.last_ray().unwrap();
    /// assert!(ray.to_ray().violation(p.m(), p.q(), 10.0) < 1e-12);
    /// ```
    pub fn last_ray(&self) -> Option<RayRef<'_>> {
        let r = &self.workspace.ray;
        r.valid.then_some(RayRef { z: &r.z, z0: r.z0, dz: &r.dz, dz0: r.dz0, d: &r.d })
    }
}

/// A borrowed [`Ray`] (see [`Lemke::last_ray`]): the same fields, in the solver's storage.
#[derive(Clone, Copy, Debug)]
pub struct RayRef<'a> {
    /// Base point of the ray, z part.
    pub z: &'a [f64],
    /// Base point, artificial variable z0.
    pub z0: f64,
    /// Direction, z part.
    pub dz: &'a [f64],
    /// Direction, z0 part.
    pub dz0: f64,
    /// The covering vector d used.
    pub d: &'a [f64],
}

impl RayRef<'_> {
    /// An owned copy.
    pub fn to_ray(&self) -> Ray {
        Ray { z: self.z.to_vec(), z0: self.z0, dz: self.dz.to_vec(), dz0: self.dz0, d: self.d.to_vec() }
    }
}

/// The reusable storage of [`Lemke`]: M by columns, the pivoting engine (basis, T = S⁻¹, LU
/// workspace), covering vectors, restart supports, the warm-start basis and the last ray. Sized
/// once per n; a solve of a problem of the same n allocates nothing. Cloning gives a fresh one.
#[derive(Default)]
pub struct Workspace {
    m: DenseCols,
    engine: Engine,
    /// The covering vector of the all-w start.
    d: Vec<f64>,
    /// d = B·e of a restart.
    restart_d: Vec<f64>,
    /// Column order of `restart_supports`.
    order: Vec<usize>,
    supports: Vec<Support>,
    /// The warm-start support and its solution.
    idx: Vec<usize>,
    zs: Vec<f64>,
    /// The crash's support and its covering vector d = B·e.
    crash: CrashScratch,
    guess_d: Vec<f64>,
    ray: RayStore,
    /// Storage for the next report message.
    spare: String,
}

impl Clone for Workspace {
    fn clone(&self) -> Self {
        Workspace::default()
    }
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace").field("n", &self.engine.n).finish_non_exhaustive()
    }
}

impl LcpSolver for Lemke {
    fn name(&self) -> &str {
        "lemke"
    }

    /// The secondary ray of a run that ended on one ([`Lemke::last_ray`], owned), which
    /// [`LcpSolver::solve`] returns in its [`Solution`](perp_core::Solution).
    fn ray(&self) -> Option<Ray> {
        self.last_ray().map(|r| r.to_ray())
    }

    /// Allocation-free once the workspace has been sized for this n (a tie in the ratio test,
    /// a restart or a ray included), unless the data's scale is far from 1 (see
    /// [`Lcp::unit_scaling`]: the problem is then copied, scaled); `solve` is this with fresh
    /// buffers.
    fn solve_into(&mut self, p: &Lcp, warm: bool, out: SolutionMut<'_>, s: &Settings) -> Result<(), Error> {
        s.validate()?;
        p.check_buffers(warm, out.z, out.w)?;
        // Data far from 1 are pivoted scaled (`Lcp::unit_scaling`): LCP(γq, γδM) for z' = z/δ
        // (w' = γw) has the same pivots in exact arithmetic, and its data are near 1, where the
        // pivoting tolerances (absolute floors on the smallest direction entry and on ties)
        // are set — with M and q scaled by 1e-12 and 1e-6, every direction looked like 0 and
        // 8 of 10 test LCPs ended on rays.
        let scaling = p.solve_into_unit_scaled(warm, out, s.tol, |p, warm, out, finish| {
            self.pivot(p, warm, out, s, finish)
        });
        let ray = &mut self.workspace.ray;
        if let (Some((gamma, delta)), true) = (scaling?, ray.valid) {
            ray.z.iter_mut().chain(ray.dz.iter_mut()).for_each(|z| *z *= delta);
            ray.z0 /= gamma;
            ray.dz0 /= gamma;
        }
        Ok(())
    }
}

impl Workspace {
    /// Sizes the engine and the vectors for n (allocates only when n changes or grows).
    fn prepare(&mut self, n: usize) {
        if self.engine.n != n || self.engine.t.len() != n * n {
            self.engine = Engine::new(n);
        }
        for v in [&mut self.zs, &mut self.ray.z, &mut self.ray.dz, &mut self.ray.d] {
            v.clear();
            v.resize(n, 0.0);
        }
        // The crash's and the warm guess's storage, so that their first use allocates nothing.
        for v in [&mut self.crash.guess, &mut self.idx] {
            v.clear();
            v.reserve(n);
        }
        self.crash.in_s.clear();
        self.crash.in_s.reserve(n);
        self.guess_d.clear();
        self.guess_d.reserve(n);
    }
}
