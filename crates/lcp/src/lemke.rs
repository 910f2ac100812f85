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
//! # Warm start
//!
//! Given a previous z, the complementary basis implied by its support `S = {i : zᵢ > 0}` is
//! tried first: one dense LU solve of `M_SS z_S = −q_S`; if the result is feasible and meets
//! the tolerance it is returned after 0 pivots. Otherwise Lemke runs from the usual start.
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

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::matmul::matmul;
use faer::reborrow::{Reborrow, ReborrowMut};
use faer::{Accum, MatMut, MatRef, Par};
use perp_core::{Error, Matrix, Ray, Settings, Solution, SolveReport, Status};
use std::time::Instant;

use crate::{Lcp, LcpSolver};

/// Basic values are recomputed from B⁻¹q every this many pivots.
pub const REFRESH: usize = 32;

/// T = S⁻¹ is recomputed from scratch every this many pivots (at least 100, at least n).
fn reinvert_every(n: usize) -> usize {
    n.max(100)
}

/// Relative tolerance under which two candidates of the ratio test, or two entries of the
/// lexicographic comparison, count as tied.
const TIE_TOL: f64 = 1e-9;

/// A pivot element smaller than this times the largest entry of the entering direction
/// triggers an immediate refactorization of T (instead of trusting the rank-one update).
const SMALL_PIVOT: f64 = 1e-4;

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
/// * The pivot limit is `settings.max_iter`, default `100·(n+1)`.
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
    /// Storage reused across solves (sized once per n): a fresh one is
    /// `Workspace::default()`. It also holds the secondary ray of the last solve
    /// ([`Lemke::last_ray`]).
    pub workspace: Workspace,
}

impl Default for Lemke {
    fn default() -> Self {
        Lemke { covering: None, restarts: 4, keep_ready: true, workspace: Workspace::default() }
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
    /// use perp_core::{Matrix, Settings, SolveReport, Status};
    /// use perp_lcp::{lemke::Lemke, Lcp, LcpSolver};
    /// // w = −z − 1 ≥ 0 is infeasible: Lemke ends on a ray.
    /// let p = Lcp::new(Matrix::from_row_major(1, 1, &[-1.0]).unwrap(), vec![-1.0]).unwrap();
    /// let mut lemke = Lemke { restarts: 0, ..Lemke::new() };
    /// let (mut z, mut w, mut r) = ([0.0], [0.0], SolveReport::new(""));
    /// lemke.solve_into(&p, false, &mut z, &mut w, &mut r, &Settings::default()).unwrap();
    /// assert_eq!(r.status, Status::RayTermination);
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

/// The last secondary ray, in reused buffers.
#[derive(Default)]
struct RayStore {
    valid: bool,
    z: Vec<f64>,
    z0: f64,
    dz: Vec<f64>,
    dz0: f64,
    d: Vec<f64>,
}

/// A restart support of one or two indices (see `restart_supports`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Support {
    idx: [usize; 2],
    len: usize,
}

impl Support {
    fn as_slice(&self) -> &[usize] {
        &self.idx[..self.len]
    }
}

/// Supports to restart from after a ray, in the spirit of the first Lemke–Howson pivot: for
/// the columns k in order of increasing qₖ, zₖ alone would have to grow until the last row it
/// helps, r(k) = argmax{−qᵢ/mᵢₖ : mᵢₖ > 0}, becomes feasible; the restart support is {k, r(k)}.
/// On a bimatrix game (M = [[0, A], [Bᵀ, 0]], q = −e) these are the supports of pure-strategy
/// best-response pairs, where Lemke from the all-w start fails (CPS example 4.4.23).
/// Written into `out` (at most `count`), with `order` as scratch.
fn restart_supports(m: &DenseCols, q: &[f64], count: usize, order: &mut Vec<usize>, out: &mut Vec<Support>) {
    let n = m.n;
    order.clear();
    order.extend(0..n);
    // The keys are distinct (ties broken by index), so the unstable sort gives the one order.
    order.sort_unstable_by(|&a, &b| q[a].total_cmp(&q[b]).then(a.cmp(&b)));
    out.clear();
    for &k in order.iter() {
        if out.len() >= count {
            break;
        }
        let col = m.col(k);
        let r =
            (0..n).filter(|&i| col[i] > 0.0).max_by(|&a, &b| (-q[a] / col[a]).total_cmp(&(-q[b] / col[b])));
        let mut sup = Support { idx: [k, 0], len: 1 };
        if let Some(r) = r.filter(|&r| r != k) {
            sup = Support { idx: [k.min(r), k.max(r)], len: 2 };
        }
        if !out.contains(&sup) {
            out.push(sup);
        }
    }
}

/// d = B·e for the complementary basis of `support`: Σ_{i ∉ S} eᵢ − Σ_{j ∈ S} M·ⱼ, into `d`.
fn basis_times_e(m: &DenseCols, support: &[usize], d: &mut Vec<f64>) {
    d.clear();
    d.resize(m.n, 1.0);
    for &j in support {
        d[j] = 0.0;
    }
    for &j in support {
        for (di, mij) in d.iter_mut().zip(m.col(j)) {
            *di -= mij;
        }
    }
}

impl LcpSolver for Lemke {
    fn name(&self) -> &str {
        "lemke"
    }

    fn solve(&mut self, p: &Lcp, warm: Option<&[f64]>, s: &Settings) -> Result<Solution, Error> {
        let mut sol = crate::solve_via_into(self, p, warm, s)?;
        sol.ray = self.last_ray().map(|r| r.to_ray());
        Ok(sol)
    }

    /// Allocation-free once the workspace has been sized for this n (a tie in the ratio test,
    /// a restart or a ray included); `solve` is this with fresh buffers.
    fn solve_into(
        &mut self,
        p: &Lcp,
        warm: bool,
        z_out: &mut [f64],
        w_out: &mut [f64],
        report: &mut SolveReport,
        s: &Settings,
    ) -> Result<(), Error> {
        s.validate()?;
        p.check_buffers(warm, z_out, w_out)?;
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
        ws.ray.valid = false;
        crate::problem::reset_report(report, "lemke", &mut ws.spare);
        if warm {
            if let Some((error, residual_inf)) =
                try_warm_basis(p, z_out, &mut ws.zs, w_out, s.tol, report, &mut ws.idx, &mut ws.engine.lu)
            {
                z_out.copy_from_slice(&ws.zs);
                report.status = Status::Solved;
                report.elapsed = start.elapsed();
                report.error = error;
                report.residual_inf = residual_inf;
                if self.keep_ready {
                    ws.engine.reserve_refactor();
                }
                return Ok(());
            }
        }
        ws.m.fill(p);
        let max_pivots = s.max_iter_or(100 * (n + 1));
        Self::covering_into(self.covering.as_deref(), n, &mut self.workspace.d)?;
        let ws = &mut self.workspace;
        restart_supports(&ws.m, p.q(), self.restarts, &mut ws.order, &mut ws.supports);
        let attempts = 1 + ws.supports.len();
        // (status, restart that solved) of the attempt that ended the loop, if one did.
        let mut outcome: Option<(Status, Option<usize>)> = None;
        let mut singular = false;
        for k in 0..attempts {
            let (start_basis, d) = if k == 0 {
                (Start::AllW(&ws.d), &ws.d)
            } else {
                basis_times_e(&ws.m, ws.supports[k - 1].as_slice(), &mut ws.restart_d);
                (Start::Support(ws.supports[k - 1].as_slice(), &ws.restart_d), &ws.restart_d)
            };
            let left = max_pivots.saturating_sub(report.pivots);
            let out = ws.engine.run(&ws.m, p.q(), start_basis, left, s, start);
            report.pivots += ws.engine.pivots;
            match out {
                Outcome::Solved => {
                    ws.engine.solution_into(&ws.m, p.q(), z_out);
                    outcome = Some((Status::Solved, (k > 0).then_some(k)));
                    break;
                }
                Outcome::Ray => {
                    if k == 0 {
                        ws.engine.ray_into(d, &mut ws.ray);
                        ws.ray.valid = true;
                    }
                }
                Outcome::Singular if k > 0 => {} // a restart's guessed basis was singular
                Outcome::Limit(status) => {
                    ws.engine.current_z_into(z_out);
                    outcome = Some((status, None));
                    break;
                }
                Outcome::Singular => {
                    ws.engine.current_z_into(z_out);
                    outcome = Some((Status::NumericalFailure, None));
                    singular = true;
                    break;
                }
            }
        }
        let spare = &mut ws.spare;
        let status = match outcome {
            Some((status, restart)) => {
                if let Some(k) = restart {
                    let sup = ws.supports[k - 1].as_slice();
                    crate::problem::set_message(report, spare, format_args!(
                        "ended on a secondary ray from the all-w start; solved by restart {k} from the complementary basis of support {sup:?}"
                    ));
                } else if singular {
                    crate::problem::set_message(
                        report,
                        spare,
                        format_args!(
                            "pivot element too small to continue (the basis is numerically singular)"
                        ),
                    );
                }
                ws.ray.valid = false;
                status
            }
            None if !ws.ray.valid => {
                z_out.fill(0.0);
                crate::problem::set_message(
                    report,
                    spare,
                    format_args!("every start ended on a singular basis"),
                );
                Status::NumericalFailure
            }
            None => {
                z_out.copy_from_slice(&ws.ray.z);
                crate::problem::set_message(
                    report,
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
                Status::RayTermination
            }
        };
        report.iterations = report.pivots;
        report.status = status;
        report.elapsed = start.elapsed();
        p.finish(z_out, w_out, report, s.tol, spare);
        // The refactorization storage is made on first need, and at the latest here, so that
        // the next solve of this structure allocates nothing whatever its pivots.
        if self.keep_ready {
            self.workspace.engine.reserve_refactor();
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
        self.idx.clear();
        self.idx.reserve(n);
    }
}

/// M stored densely by columns, the layout every Lemke operation reads.
#[derive(Default)]
struct DenseCols {
    n: usize,
    data: Vec<f64>,
}

impl DenseCols {
    /// Copies M of `p` (allocates only to grow).
    fn fill(&mut self, p: &Lcp) {
        let n = p.n();
        self.n = n;
        self.data.clear();
        self.data.resize(n * n, 0.0);
        let data = &mut self.data;
        match p.m() {
            Matrix::Dense(m) => {
                for j in 0..n {
                    data[j * n..(j + 1) * n].copy_from_slice(m.col_as_slice(j));
                }
            }
            Matrix::Sparse(s) => {
                for (v, (i, j)) in s.iter() {
                    data[j * n + i] += *v;
                }
            }
        }
    }

    #[inline]
    fn col(&self, j: usize) -> &[f64] {
        &self.data[j * self.n..(j + 1) * self.n]
    }

    #[inline]
    fn at(&self, i: usize, j: usize) -> f64 {
        self.data[j * self.n + i]
    }
}

/// Tries the complementary basis given by the support of `z`: its solution goes to `zs`,
/// `w = M zs + q` to `w`; returns `(error, residual)` if it is feasible and its error meets
/// `tol`. `idx` and `lu` are scratch (no allocation once sized).
#[allow(clippy::too_many_arguments)]
fn try_warm_basis(
    p: &Lcp,
    z: &[f64],
    zs: &mut [f64],
    w: &mut [f64],
    tol: f64,
    report: &mut SolveReport,
    idx: &mut Vec<usize>,
    lu: &mut LuScratch,
) -> Option<(f64, f64)> {
    let m = p.m();
    let k = z.iter().filter(|&&v| v > 0.0).count();
    zs.fill(0.0);
    if k > 0 {
        report.factorizations += 1;
        if k <= SMALL_BASIS {
            // Contact steps warm-start tiny LCPs thousands of times per second: an LU on the
            // stack.
            let mut idx = [0; SMALL_BASIS];
            z.iter().enumerate().filter(|(_, &v)| v > 0.0).zip(&mut idx).for_each(|((i, _), s)| *s = i);
            let support = &idx[..k];
            let mut a = [0.0; SMALL_BASIS * SMALL_BASIS];
            let mut x = [0.0; SMALL_BASIS];
            for (c, &j) in support.iter().enumerate() {
                for (r, &i) in support.iter().enumerate() {
                    a[c * k + r] = m.get(i, j);
                }
                x[c] = -p.q()[j];
            }
            small_lu_solve(&mut a[..k * k], &mut x[..k], k)?;
            for (r, &i) in support.iter().enumerate() {
                zs[i] = x[r];
            }
        } else {
            lu.reserve(p.n());
            idx.clear();
            idx.extend((0..p.n()).filter(|&i| z[i] > 0.0));
            let support = &idx[..];
            for c in 0..k {
                for r in 0..k {
                    lu.a[c * k + r] = m.get(support[r], support[c]);
                }
            }
            for (r, &i) in support.iter().enumerate() {
                lu.x[r] = -p.q()[i];
            }
            let LuScratch { a, x, .. } = lu;
            let (mut a, mut x) = (std::mem::take(a), std::mem::take(x));
            lu.solve(k, &mut a, MatMut::from_column_major_slice_mut(&mut x[..k], k, 1));
            for (r, &i) in support.iter().enumerate() {
                zs[i] = x[r];
            }
            (lu.a, lu.x) = (a, x);
        }
    }
    if zs.iter().any(|v| !v.is_finite() || *v < 0.0) {
        return None;
    }
    p.m().mul_vec(zs, w);
    for (wi, qi) in w.iter_mut().zip(p.q()) {
        *wi += qi;
    }
    let (error, residual_inf) = p.errors(zs, w);
    (error <= tol).then_some((error, residual_inf))
}

/// Dense LU with partial pivoting in reused storage (faer's `lu_in_place` and
/// `solve_in_place_with_conj`, the operations of `Mat::partial_piv_lu` and `Solve::solve`,
/// with their scratch `MemBuffer` sized once for n × n).
struct LuScratch {
    /// A k × k matrix, column-major, stride k (capacity n²).
    a: Vec<f64>,
    /// A right-hand side (capacity n).
    x: Vec<f64>,
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    mem: MemBuffer,
}

impl LuScratch {
    /// Sized for systems up to `n × n` on first use ([`LuScratch::reserve`]): a Lemke run
    /// that never refactors (most short runs) allocates none of it.
    fn empty() -> Self {
        LuScratch {
            a: Vec::new(),
            x: Vec::new(),
            perm: Vec::new(),
            perm_inv: Vec::new(),
            mem: MemBuffer::new(StackReq::EMPTY),
        }
    }

    /// Makes room for systems up to `n × n` (allocates only the first time for a size).
    fn reserve(&mut self, n: usize) {
        if self.perm.len() < n {
            *self = LuScratch::new(n);
        }
    }

    fn new(n: usize) -> Self {
        use faer::linalg::lu::partial_pivoting::{factor, solve};
        let par = faer::get_global_parallelism();
        let req = StackReq::any_of(&[
            factor::lu_in_place_scratch::<usize, f64>(n, n, par, Default::default()),
            solve::solve_in_place_scratch::<usize, f64>(n, n, par),
        ]);
        LuScratch {
            a: vec![0.0; n * n],
            x: vec![0.0; n],
            perm: vec![0; n],
            perm_inv: vec![0; n],
            mem: MemBuffer::new(req),
        }
    }

    /// Solves `A X = rhs` in place in `rhs` (k rows), factoring the k × k column-major `a`
    /// (stride k) in place. No allocation.
    fn solve(&mut self, k: usize, a: &mut [f64], rhs: MatMut<'_, f64>) {
        use faer::linalg::lu::partial_pivoting::{factor, solve};
        let par = faer::get_global_parallelism();
        let mut lu = MatMut::from_column_major_slice_mut(&mut a[..k * k], k, k);
        let stack = MemStack::new(&mut self.mem);
        let (_, perm) = factor::lu_in_place(
            lu.rb_mut(),
            &mut self.perm[..k],
            &mut self.perm_inv[..k],
            par,
            stack,
            Default::default(),
        );
        let lu = lu.rb();
        solve::solve_in_place_with_conj(lu, lu, perm, faer::Conj::No, rhs, par, MemStack::new(&mut self.mem));
    }
}

/// Largest warm-start basis solved by [`small_lu_solve`] rather than faer.
const SMALL_BASIS: usize = 12;

/// Solves `A x = b` in place (A column-major `k × k`, `A[(r, c)]` at `a[c·k + r]`) by Gaussian
/// elimination with partial pivoting; `None` when a pivot is zero or not finite.
fn small_lu_solve(a: &mut [f64], b: &mut [f64], k: usize) -> Option<()> {
    for c in 0..k {
        let p = (c..k).max_by(|&i, &j| a[c * k + i].abs().total_cmp(&a[c * k + j].abs()))?;
        let piv = a[c * k + p];
        if piv == 0.0 || !piv.is_finite() {
            return None;
        }
        if p != c {
            for j in c..k {
                a.swap(j * k + c, j * k + p);
            }
            b.swap(c, p);
        }
        for i in c + 1..k {
            let f = a[c * k + i] / piv;
            if f != 0.0 {
                for j in c + 1..k {
                    a[j * k + i] -= f * a[j * k + c];
                }
                b[i] -= f * b[c];
            }
        }
    }
    for c in (0..k).rev() {
        let s = b[c] / a[c * k + c];
        b[c] = s;
        for i in 0..c {
            b[i] -= s * a[c * k + i];
        }
    }
    Some(())
}

/// How one run of the pivoting engine ended.
enum Outcome {
    Solved,
    Ray,
    Limit(Status),
    Singular,
}

/// The complement of a variable (z₀ has none; it is its own).
fn complement(v: Var) -> Var {
    match v {
        Var::W(i) => Var::Z(i),
        Var::Z(j) => Var::W(j),
        Var::Z0 => Var::Z0,
    }
}

/// Where a run starts: the all-w basis (with the given covering vector d), or the
/// complementary basis of a support S (zⱼ basic for j ∈ S, wᵢ for i ∉ S) with d = B·e.
#[derive(Clone, Copy)]
enum Start<'a> {
    AllW(&'a [f64]),
    Support(&'a [usize], &'a [f64]),
}

/// A basic variable: `W(i)` is wᵢ, `Z(j)` is zⱼ, `Z0` the artificial z₀.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Var {
    W(usize),
    Z(usize),
    Z0,
}

/// The pivoting engine: the basis in Schur form and the basic values.
///
/// Storage (stride n, capacity n columns): `cz` holds the non-unit basic columns C[:, Z]
/// contiguously, column a for the variable at position a; `t` holds T = S⁻¹ column-major,
/// T[a, b] at `t[b·n + a]`. Every O(k²) and O(n·k) kernel is a faer mat-vec or rank-one
/// update on views of these buffers (SIMD chosen at run time); nothing is allocated per pivot.
struct Engine {
    n: usize,
    /// Non-unit basic variables, by position a (the columns of S).
    zvars: Vec<Var>,
    /// Their values.
    xz: Vec<f64>,
    /// Rows whose wᵢ is non-basic, by position b (the rows of S).
    r2: Vec<usize>,
    /// For each row, its position in `r2`, or `usize::MAX` when wᵢ is basic.
    r2_pos: Vec<usize>,
    /// For each zⱼ, its position in `zvars`, or `usize::MAX` when non-basic.
    z_pos: Vec<usize>,
    /// Position of z₀ in `zvars` (`usize::MAX` when non-basic).
    z0_pos: usize,
    /// Values of the basic wᵢ (indexed by row; meaningless for rows in R₂).
    xw: Vec<f64>,
    /// C[:, Z], column-major, stride n.
    cz: Vec<f64>,
    /// T = S⁻¹, column-major, stride n.
    t: Vec<f64>,
    /// Direction B⁻¹a of the entering column: Z part by position, W part by row.
    dz: Vec<f64>,
    dw: Vec<f64>,
    /// Scratch vectors of length n.
    y: Vec<f64>,
    v: Vec<f64>,
    u: Vec<f64>,
    pivots: usize,
    /// The variable that must enter next.
    entering: Var,
    /// Scratch: a z of length n (iterative refinement).
    zc: Vec<f64>,
    /// Scratch of the lexicographic ratio test.
    lex: LexScratch,
    /// LU storage of `reinvert` and the warm start, and the identity/inverse (k × k, stride k).
    lu: LuScratch,
    inv: Vec<f64>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(0)
    }
}

/// Scratch of the lexicographic ratio test: the tied candidates, their scaled rows of B⁻¹
/// (n each, one after the other) and the candidates still in the running.
#[derive(Default)]
struct LexScratch {
    cands: Vec<Var>,
    rows: Vec<f64>,
    alive: Vec<usize>,
}

fn col_view(buf: &[f64], n: usize, rows: usize, cols: usize) -> MatRef<'_, f64> {
    if cols == 0 || rows == 0 {
        return MatRef::from_column_major_slice(&buf[..0], rows, cols);
    }
    MatRef::from_column_major_slice_with_stride(&buf[..(cols - 1) * n + rows], rows, cols, n)
}

fn col_view_mut(buf: &mut [f64], n: usize, rows: usize, cols: usize) -> MatMut<'_, f64> {
    if cols == 0 || rows == 0 {
        return MatMut::from_column_major_slice_mut(&mut buf[..0], rows, cols);
    }
    MatMut::from_column_major_slice_with_stride_mut(&mut buf[..(cols - 1) * n + rows], rows, cols, n)
}

fn vec_view(v: &[f64]) -> MatRef<'_, f64> {
    MatRef::from_column_major_slice(v, v.len(), 1)
}

fn vec_view_mut(v: &mut [f64]) -> MatMut<'_, f64> {
    let len = v.len();
    MatMut::from_column_major_slice_mut(v, len, 1)
}

impl Engine {
    fn new(n: usize) -> Self {
        Engine {
            n,
            zvars: Vec::with_capacity(n),
            xz: Vec::with_capacity(n),
            r2: Vec::with_capacity(n),
            r2_pos: vec![usize::MAX; n],
            z_pos: vec![usize::MAX; n],
            z0_pos: usize::MAX,
            xw: vec![0.0; n],
            cz: vec![0.0; n * n],
            t: vec![0.0; n * n],
            dz: vec![0.0; n],
            dw: vec![0.0; n],
            y: vec![0.0; n],
            v: vec![0.0; n],
            u: vec![0.0; n],
            pivots: 0,
            entering: Var::Z0,
            zc: vec![0.0; n],
            lex: LexScratch {
                cands: Vec::with_capacity(n + 1),
                rows: Vec::with_capacity((n + 1) * n),
                alive: Vec::with_capacity(n + 1),
            },
            lu: LuScratch::empty(),
            inv: Vec::new(),
        }
    }

    /// Makes the storage of [`Engine::reinvert`] and the warm-start LU (allocates only the
    /// first time for this size).
    fn reserve_refactor(&mut self) {
        self.lu.reserve(self.n);
        if self.inv.len() < self.n * self.n {
            // `vec!` of zeros asks the allocator for zeroed pages (no memset of n² entries).
            self.inv = vec![0.0; self.n * self.n];
        }
    }

    fn reset(&mut self, q: &[f64]) {
        self.zvars.clear();
        self.xz.clear();
        self.r2.clear();
        self.r2_pos.fill(usize::MAX);
        self.z_pos.fill(usize::MAX);
        self.z0_pos = usize::MAX;
        self.xw.copy_from_slice(q);
        self.pivots = 0;
    }

    fn k(&self) -> usize {
        self.zvars.len()
    }

    #[inline]
    fn t_at(&self, a: usize, b: usize) -> f64 {
        self.t[b * self.n + a]
    }

    /// C[i, var] for a non-unit column: −M[i, j] for zⱼ, −dᵢ for z₀.
    #[inline]
    fn c_entry(m: &DenseCols, d: &[f64], i: usize, var: Var) -> f64 {
        match var {
            Var::Z(j) => -m.at(i, j),
            Var::Z0 => -d[i],
            Var::W(_) => unreachable!("unit columns are not stored in S"),
        }
    }

    /// Writes C[:, var] into column `a` of `cz`.
    fn set_column(&mut self, m: &DenseCols, d: &[f64], a: usize, var: Var) {
        let n = self.n;
        let dst = &mut self.cz[a * n..(a + 1) * n];
        let src = match var {
            Var::Z(j) => m.col(j),
            Var::Z0 => d,
            Var::W(_) => unreachable!("unit columns are not stored in S"),
        };
        for (x, s) in dst.iter_mut().zip(src) {
            *x = -s;
        }
    }

    /// y = −C[:, Z]·coef over all rows, with coef = dz or the basic values xz.
    fn minus_c_times(&mut self, coef_is_dz: bool) {
        let (n, k) = (self.n, self.k());
        let coef = if coef_is_dz { &self.dz[..k] } else { &self.xz[..k] };
        matmul(
            vec_view_mut(&mut self.y),
            Accum::Replace,
            col_view(&self.cz, n, n, k),
            vec_view(coef),
            -1.0,
            Par::Seq,
        );
    }

    /// `v = Tᵀ r` with `r = C[i, Z]` (row i of the non-unit columns), into `self.v[..k]`.
    fn row_times_t(&mut self, i: usize) {
        let (n, k) = (self.n, self.k());
        for a in 0..k {
            self.u[a] = self.cz[a * n + i];
        }
        matmul(
            vec_view_mut(&mut self.v[..k]),
            Accum::Replace,
            col_view(&self.t, n, k, k).transpose(),
            vec_view(&self.u[..k]),
            1.0,
            Par::Seq,
        );
    }

    /// T ← T + alpha · x yᵀ (k×k), x and y of length k.
    fn rank_one(t: &mut [f64], n: usize, k: usize, x: &[f64], y: &[f64], alpha: f64) {
        matmul(
            col_view_mut(t, n, k, k),
            Accum::Add,
            vec_view(&x[..k]),
            vec_view(&y[..k]).transpose(),
            alpha,
            Par::Seq,
        );
    }

    /// The direction `B⁻¹ a` of the entering column into `dz` (by position) and `dw` (by row).
    fn direction(&mut self, m: &DenseCols, d: &[f64], e: Var) {
        let (n, k) = (self.n, self.k());
        // dz = T a[R₂]
        match e {
            Var::W(i) => {
                let p = self.r2_pos[i];
                self.dz[..k].copy_from_slice(&self.t[p * n..p * n + k]);
            }
            _ => {
                for b in 0..k {
                    self.v[b] = Self::c_entry(m, d, self.r2[b], e);
                }
                matmul(
                    vec_view_mut(&mut self.dz[..k]),
                    Accum::Replace,
                    col_view(&self.t, n, k, k),
                    vec_view(&self.v[..k]),
                    1.0,
                    Par::Seq,
                );
            }
        }
        // dw = a[R₁] − C[R₁, Z] dz
        self.minus_c_times(true);
        match e {
            Var::W(r) => {
                self.dw.copy_from_slice(&self.y);
                self.dw[r] += 1.0;
            }
            Var::Z(j) => {
                for ((dw, y), mi) in self.dw.iter_mut().zip(&self.y).zip(m.col(j)) {
                    *dw = y - mi;
                }
            }
            Var::Z0 => {
                for ((dw, y), di) in self.dw.iter_mut().zip(&self.y).zip(d) {
                    *dw = y - di;
                }
            }
        }
    }

    /// Recomputes T = S⁻¹ from scratch (dense LU of the k×k matrix S = C[R₂, Z]), so that the
    /// round-off of many rank-one updates cannot accumulate. Costs O(k³) every
    /// [`reinvert_every`] pivots: O(k²) per pivot amortized. `false` if S is singular.
    fn reinvert(&mut self) -> bool {
        let (n, k) = (self.n, self.k());
        if k == 0 {
            return true;
        }
        self.reserve_refactor();
        let mut s = std::mem::take(&mut self.lu.a);
        for a in 0..k {
            for b in 0..k {
                s[a * k + b] = self.cz[a * n + self.r2[b]];
            }
        }
        let inv = &mut self.inv[..k * k];
        inv.fill(0.0);
        for b in 0..k {
            inv[b * k + b] = 1.0;
        }
        self.lu.solve(k, &mut s, MatMut::from_column_major_slice_mut(inv, k, k));
        self.lu.a = s;
        let ok = self.inv[..k * k].iter().all(|x| x.is_finite());
        if ok {
            for b in 0..k {
                self.t[b * n..b * n + k].copy_from_slice(&self.inv[b * k..(b + 1) * k]);
            }
        }
        ok
    }

    /// Recomputes the basic values `x_B = B⁻¹ q` from T.
    fn refresh(&mut self, q: &[f64]) {
        let (n, k) = (self.n, self.k());
        for b in 0..k {
            self.v[b] = q[self.r2[b]];
        }
        matmul(
            vec_view_mut(&mut self.xz[..k]),
            Accum::Replace,
            col_view(&self.t, n, k, k),
            vec_view(&self.v[..k]),
            1.0,
            Par::Seq,
        );
        self.minus_c_times(false);
        for ((x, qi), yi) in self.xw.iter_mut().zip(q).zip(&self.y) {
            *x = qi + yi;
        }
    }

    /// Row of B⁻¹ belonging to a basic variable, as a dense vector of length n in `out`.
    fn binv_row(&mut self, var: Var, out: &mut [f64]) {
        let k = self.k();
        out.fill(0.0);
        match var {
            Var::W(i) => {
                self.row_times_t(i);
                out[i] = 1.0;
                for b in 0..k {
                    out[self.r2[b]] = -self.v[b];
                }
            }
            _ => {
                let a = self.pos_of(var);
                for b in 0..k {
                    out[self.r2[b]] = self.t_at(a, b);
                }
            }
        }
    }

    fn pos_of(&self, var: Var) -> usize {
        match var {
            Var::Z(j) => self.z_pos[j],
            Var::Z0 => self.z0_pos,
            Var::W(_) => unreachable!(),
        }
    }

    fn set_pos(&mut self, var: Var, a: usize) {
        match var {
            Var::Z(j) => self.z_pos[j] = a,
            Var::Z0 => self.z0_pos = a,
            Var::W(_) => unreachable!(),
        }
    }

    /// Runs Lemke from `start_basis`. On return, `self.pivots` holds the pivots made.
    fn run(
        &mut self,
        m: &DenseCols,
        q: &[f64],
        start_basis: Start<'_>,
        max_pivots: usize,
        s: &Settings,
        start: Instant,
    ) -> Outcome {
        let n = self.n;
        self.reset(q);
        let d = match start_basis {
            Start::AllW(d) => d,
            Start::Support(support, d) => {
                for (a, &j) in support.iter().enumerate() {
                    self.zvars.push(Var::Z(j));
                    self.xz.push(0.0);
                    self.z_pos[j] = a;
                    self.r2.push(j);
                    self.r2_pos[j] = a;
                    self.set_column(m, d, a, Var::Z(j));
                }
                if !self.reinvert() {
                    return Outcome::Singular;
                }
                self.refresh(q);
                d
            }
        };
        let k = self.k();
        let basic_w = (0..n).filter(|&i| self.r2_pos[i] == usize::MAX);
        if self.xz.iter().all(|&x| x >= 0.0) && basic_w.clone().all(|i| self.xw[i] >= 0.0) {
            return Outcome::Solved; // the starting complementary basis is feasible
        }
        if max_pivots == 0 {
            return Outcome::Limit(Status::MaxIterations);
        }
        // First pivot: z₀ enters; its column is −d with B⁻¹d = e (d = e for the all-w basis,
        // d = B·e otherwise), so every basic value grows at unit rate and z₀ enters at
        // max(−xᵢ). Ties go to the largest row index, the lexicographic choice for B = I.
        let mut leave = Var::Z0;
        let mut best = f64::NEG_INFINITY;
        for i in basic_w {
            if -self.xw[i] >= best {
                best = -self.xw[i];
                leave = Var::W(i);
            }
        }
        for a in 0..k {
            if -self.xz[a] > best {
                best = -self.xz[a];
                leave = self.zvars[a];
            }
        }
        self.dz[..k].fill(-1.0);
        self.dw.fill(-1.0);
        self.pivot(m, d, Var::Z0, leave, best);
        self.entering = complement(leave);
        loop {
            if self.pivots >= max_pivots {
                return Outcome::Limit(Status::MaxIterations);
            }
            if s.time_limit.is_some_and(|t| start.elapsed() >= t) {
                return Outcome::Limit(Status::TimeLimit);
            }
            let e = self.entering;
            self.direction(m, d, e);
            let mut lex = std::mem::take(&mut self.lex);
            let blocking = self.ratio_test(&mut lex);
            self.lex = lex;
            let Some((leave, theta)) = blocking else {
                return Outcome::Ray;
            };
            let pivot = self.dir_of(leave);
            if !pivot.is_finite() || pivot.abs() < 1e-300 {
                return Outcome::Singular;
            }
            let dir_max = self.dz[..self.k()].iter().chain(&self.dw).fold(0.0f64, |a, x| a.max(x.abs()));
            self.pivot(m, d, e, leave, theta);
            // A pivot small against the entering direction makes the rank-one update of T
            // lose accuracy (amplified by the conditioning of S; seen on Stewart–Trinkle LCPs
            // with nearly parallel friction directions): refactor at once.
            if pivot.abs() < SMALL_PIVOT * dir_max {
                self.reinvert();
                self.refresh(q);
            }
            if self.pivots.is_multiple_of(reinvert_every(n)) {
                self.reinvert();
            }
            if self.pivots.is_multiple_of(REFRESH) {
                self.refresh(q);
            }
            if leave == Var::Z0 {
                self.refresh(q);
                return Outcome::Solved;
            }
            self.entering = complement(leave);
        }
    }

    fn value_of(&self, var: Var) -> f64 {
        match var {
            Var::W(i) => self.xw[i],
            _ => self.xz[self.pos_of(var)],
        }
    }

    fn dir_of(&self, var: Var) -> f64 {
        match var {
            Var::W(i) => self.dw[i],
            _ => self.dz[self.pos_of(var)],
        }
    }

    /// Minimum-ratio test with lexicographic tie-breaking. `None`: no blocking variable.
    fn ratio_test(&mut self, lex: &mut LexScratch) -> Option<(Var, f64)> {
        let n = self.n;
        let k = self.k();
        let scale = self.dz[..k].iter().chain(&self.dw).fold(0.0f64, |a, x| a.max(x.abs()));
        let tol = 1e-11 * scale.max(1.0);
        let mut theta_min = f64::INFINITY;
        let mut best: Option<Var> = None;
        let mut consider = |var: Var, x: f64, dir: f64| {
            if dir > tol {
                let th = x.max(0.0) / dir;
                if th < theta_min {
                    theta_min = th;
                    best = Some(var);
                }
            }
        };
        for a in 0..k {
            consider(self.zvars[a], self.xz[a], self.dz[a]);
        }
        for i in 0..n {
            if self.r2_pos[i] == usize::MAX {
                consider(Var::W(i), self.xw[i], self.dw[i]);
            }
        }
        let best = best?;
        // Ties: rows whose value after the step, xᵢ − θ_min·dirᵢ, would be zero up to
        // round-off. Comparing the ratios themselves would let noise in degenerate values
        // (1e-13 where exact arithmetic gives 0) decide, and the method could cycle.
        // Relative to the basic values themselves (not to max(1, ·)): contact LCPs of small
        // time steps have q ~ 1e-3 and solutions ~ 1e-6, where an absolute 1e-9 calls rows
        // tied that are not (a sticking/sliding edge of the woodpecker, seed 001).
        let xscale = self.xz[..k].iter().chain(&self.xw).fold(0.0f64, |a, x| a.max(x.abs()));
        let tie = TIE_TOL * if xscale > 0.0 { xscale } else { 1.0 };
        let is_tied = |var: Var| {
            let dir = self.dir_of(var);
            dir > tol && self.value_of(var).max(0.0) - theta_min * dir <= tie
        };
        let basic = || {
            self.zvars[..k]
                .iter()
                .copied()
                .chain((0..n).filter(|&i| self.r2_pos[i] == usize::MAX).map(Var::W))
        };
        // The usual case, no tie.
        if basic().filter(|&v| is_tied(v)).nth(1).is_none() {
            return Some((best, theta_min));
        }
        let LexScratch { cands, rows, alive } = lex;
        cands.clear();
        cands.extend(basic().filter(|&v| is_tied(v)));
        if cands.contains(&Var::Z0) {
            return Some((Var::Z0, theta_min));
        }
        // Lexicographic rule over the rows of B⁻¹ / (B⁻¹a)ᵢ, column by column: row c (at
        // rows[c·n..]) is the scaled row of candidate c, compared entry by entry until one
        // candidate is left.
        rows.clear();
        rows.resize(cands.len() * n, 0.0);
        for (&c, row) in cands.iter().zip(rows.chunks_exact_mut(n.max(1))) {
            self.binv_row(c, row);
            let piv = self.dir_of(c);
            row.iter_mut().for_each(|x| *x /= piv);
        }
        alive.clear();
        alive.extend(0..cands.len());
        let mut col = 0;
        while alive.len() > 1 && col < n {
            let lo = alive.iter().map(|&c| rows[c * n + col]).fold(f64::INFINITY, f64::min);
            let eps = TIE_TOL * (1.0 + lo.abs());
            alive.retain(|&c| rows[c * n + col] <= lo + eps);
            col += 1;
        }
        let chosen = cands[alive[0]];
        Some((chosen, self.value_of(chosen).max(0.0) / self.dir_of(chosen)))
    }

    /// Pivots `e` into the basis in place of `leave`, at entering value `theta`, using the
    /// direction in `dz`/`dw`. Updates values, index sets, the columns C[:, Z] and T = S⁻¹.
    fn pivot(&mut self, m: &DenseCols, d: &[f64], e: Var, leave: Var, theta: f64) {
        let n = self.n;
        let k = self.k();
        // Cases (A) and (B) need v = Tᵀ C[leaving row, Z] at the old basis.
        if let Var::W(l) = leave {
            self.row_times_t(l);
        }
        // Values: x_B ← x_B − θ·(B⁻¹a).
        for a in 0..k {
            self.xz[a] -= theta * self.dz[a];
        }
        for i in 0..n {
            if self.r2_pos[i] == usize::MAX {
                self.xw[i] -= theta * self.dw[i];
            }
        }
        match (e, leave) {
            // (A) a non-unit column enters, wᵢ leaves: border S with row i and column e:
            // S' = [[S, c], [r, cᵢ]], s = cᵢ − r S⁻¹ c = dw[i], u = T c = dz, v = Tᵀ rᵀ;
            // T' = [[T + u vᵀ/s, −u/s], [−vᵀ/s, 1/s]].
            (Var::Z(_) | Var::Z0, Var::W(i)) => {
                let s = self.dw[i];
                Self::rank_one(&mut self.t, n, k, &self.dz, &self.v, 1.0 / s);
                for a in 0..k {
                    self.t[k * n + a] = -self.dz[a] / s; // new column k
                    self.t[a * n + k] = -self.v[a] / s; // new row k
                }
                self.t[k * n + k] = 1.0 / s;
                self.zvars.push(e);
                self.xz.push(theta);
                self.set_pos(e, k);
                self.set_column(m, d, k, e);
                self.r2_pos[i] = k;
                self.r2.push(i);
            }
            // (B) wᵢ enters (row i leaves R₂ at position p), w_l leaves (row l takes position
            // p): a row replacement, T' = T + dz (Tᵀ r_l − e_p)ᵀ / dw[l] (Sherman–Morrison).
            (Var::W(i), Var::W(l)) => {
                let p = self.r2_pos[i];
                let s = self.dw[l];
                self.v[p] -= 1.0;
                Self::rank_one(&mut self.t, n, k, &self.dz, &self.v, 1.0 / s);
                self.r2[p] = l;
                self.r2_pos[l] = p;
                self.r2_pos[i] = usize::MAX;
                self.xw[i] = theta;
            }
            // (C) a non-unit column enters in place of the one at position q:
            // T' = T − (dz − e_q) T[q, :] / dz[q].
            (Var::Z(_) | Var::Z0, Var::Z(_) | Var::Z0) => {
                let q = self.pos_of(leave);
                let uq = self.dz[q];
                for b in 0..k {
                    self.v[b] = self.t[b * n + q];
                }
                self.u[..k].copy_from_slice(&self.dz[..k]);
                self.u[q] -= 1.0;
                Self::rank_one(&mut self.t, n, k, &self.u, &self.v, -1.0 / uq);
                self.set_pos(leave, usize::MAX);
                self.zvars[q] = e;
                self.xz[q] = theta;
                self.set_pos(e, q);
                self.set_column(m, d, q, e);
            }
            // (D) wᵢ enters, the non-unit column at position q leaves: S loses row p and
            // column q, and T' is T without row q and column p after the elimination
            // T − T[:, p] T[q, :] / T[q, p].
            (Var::W(i), Var::Z(_) | Var::Z0) => {
                let p = self.r2_pos[i];
                let q = self.pos_of(leave);
                let tqp = self.t_at(q, p);
                self.u[..k].copy_from_slice(&self.t[p * n..p * n + k]);
                for b in 0..k {
                    self.v[b] = self.t[b * n + q];
                }
                Self::rank_one(&mut self.t, n, k, &self.u, &self.v, -1.0 / tqp);
                // Remove row q and column p of T (and column q of C) by moving the last ones in.
                let last = k - 1;
                if p != last {
                    self.t.copy_within(last * n..last * n + k, p * n);
                }
                if q != last {
                    for b in 0..last {
                        self.t[b * n + q] = self.t[b * n + last];
                    }
                    self.cz.copy_within(last * n..(last + 1) * n, q * n);
                }
                self.set_pos(leave, usize::MAX);
                self.zvars.swap_remove(q);
                self.xz.swap_remove(q);
                if q < self.zvars.len() {
                    let moved = self.zvars[q];
                    self.set_pos(moved, q);
                }
                self.r2.swap_remove(p);
                if p < self.r2.len() {
                    self.r2_pos[self.r2[p]] = p;
                }
                self.r2_pos[i] = usize::MAX;
                self.xw[i] = theta;
            }
        }
        self.pivots += 1;
    }

    /// The current z (basic zⱼ at their values, the rest 0) into `z`.
    fn current_z_into(&self, z: &mut [f64]) {
        fill_z(&self.zvars, &self.xz, z);
    }

    /// The solution after z₀ has left, with two steps of iterative refinement on its support:
    /// the rows in R₂ have wᵢ non-basic, so (Mz + q)ᵢ = 0 there; correct z_Z by T·(Mz+q)[R₂].
    fn solution_into(&mut self, m: &DenseCols, q: &[f64], out: &mut [f64]) {
        let (n, k) = (self.n, self.k());
        for _ in 0..2 {
            if k == 0 {
                break;
            }
            fill_z(&self.zvars, &self.xz, &mut self.zc);
            let z = &self.zc;
            for b in 0..k {
                let i = self.r2[b];
                let mut wi = q[i];
                for var in &self.zvars {
                    if let Var::Z(j) = var {
                        wi += m.at(i, *j) * z[*j];
                    }
                }
                self.v[b] = wi;
            }
            matmul(
                vec_view_mut(&mut self.u[..k]),
                Accum::Replace,
                col_view(&self.t, n, k, k),
                vec_view(&self.v[..k]),
                1.0,
                Par::Seq,
            );
            for a in 0..k {
                self.xz[a] += self.u[a];
            }
        }
        self.current_z_into(out);
    }

    /// The secondary ray at the current basis, for the entering variable in `dz`/`dw`.
    fn ray_into(&self, d: &[f64], ray: &mut RayStore) {
        let dz = &mut ray.dz;
        dz.fill(0.0);
        let mut dz0 = 0.0;
        let mut z0 = 0.0;
        for (a, var) in self.zvars.iter().enumerate() {
            match var {
                Var::Z(j) => dz[*j] = -self.dz[a],
                Var::Z0 => {
                    dz0 = -self.dz[a];
                    z0 = self.xz[a].max(0.0);
                }
                Var::W(_) => {}
            }
        }
        match self.entering {
            Var::Z(j) => dz[j] = 1.0,
            Var::Z0 => dz0 = 1.0,
            Var::W(_) => {}
        }
        self.current_z_into(&mut ray.z);
        ray.d.copy_from_slice(d);
        (ray.z0, ray.dz0) = (z0, dz0);
    }
}

/// z from the basic values: zⱼ = max(xz[a], 0) for the basic zⱼ at position a, the rest 0.
fn fill_z(zvars: &[Var], xz: &[f64], z: &mut [f64]) {
    z.fill(0.0);
    for (a, var) in zvars.iter().enumerate() {
        if let Var::Z(j) = var {
            z[*j] = xz[a].max(0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perp_core::Matrix;

    fn lcp(n: usize, row_major: &[f64], q: &[f64]) -> Lcp {
        Lcp::new(Matrix::from_row_major(n, n, row_major).unwrap(), q.to_vec()).unwrap()
    }

    fn solve(p: &Lcp, s: &Settings) -> Solution {
        Lemke::new().solve(p, None, s).unwrap()
    }

    #[test]
    fn small_lu_solve_matches_the_product_and_refuses_singular_matrices() {
        // A = [[0, 2, 1], [1, 1, 0], [3, 0, 4]] needs a row swap at the first column.
        let rows = [[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 4.0]];
        let x_true = [1.5, -2.0, 0.25];
        let mut a = [0.0; 9];
        let mut b = [0.0; 3];
        for r in 0..3 {
            for c in 0..3 {
                a[c * 3 + r] = rows[r][c];
                b[r] += rows[r][c] * x_true[c];
            }
        }
        small_lu_solve(&mut a, &mut b, 3).unwrap();
        for (x, t) in b.iter().zip(x_true) {
            assert!((x - t).abs() < 1e-14, "{b:?}");
        }
        let mut singular = [1.0, 2.0, 2.0, 4.0];
        assert!(small_lu_solve(&mut singular, &mut [1.0, 1.0], 2).is_none());
    }

    /// Murty's example (Murty 1988 ch. 6): M upper triangular, 1 on the diagonal and 2 above,
    /// qᵢ = −(2ⁿ⁺¹ − 2ⁱ), i = 1..n; its solution is z = (0, …, 0, 2ⁿ⁺¹ − 2ⁿ).
    pub(crate) fn murty(n: usize) -> Lcp {
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            m[i * n + i] = 1.0;
            for j in i + 1..n {
                m[i * n + j] = 2.0;
            }
        }
        let q: Vec<f64> = (1..=n).map(|i| -(2f64.powi(n as i32 + 1) - 2f64.powi(i as i32))).collect();
        lcp(n, &m, &q)
    }

    #[test]
    fn first_pivot_brings_z0_in_at_the_most_negative_q() {
        // One pivot on M = [2], q = (−4): z₀ enters (value 4, w leaves), then z enters and
        // z₀ leaves: z = 2 after 2 pivots.
        let p = lcp(1, &[2.0], &[-4.0]);
        let s = solve(&p, &Settings::default());
        assert_eq!(s.report.status, Status::Solved);
        assert_eq!(s.report.pivots, 2);
        assert_eq!(s.z, vec![2.0]);
    }

    #[test]
    fn nonnegative_q_needs_no_pivot() {
        let s = solve(&lcp(2, &[1.0, 0.0, 0.0, 1.0], &[0.0, 3.0]), &Settings::default());
        assert_eq!((s.report.status, s.report.pivots), (Status::Solved, 0));
        assert_eq!(s.z, vec![0.0, 0.0]);
    }

    #[test]
    fn cps_example_4_4_7_is_solved() {
        // CPS 2009 example 4.4.7 (Siconos lcp_CPS_2): M = [[0,−1,2],[2,0,−2],[−1,1,0]].
        let p = lcp(3, &[0.0, -1.0, 2.0, 2.0, 0.0, -2.0, -1.0, 1.0, 0.0], &[-3.0, 6.0, -1.0]);
        let s = solve(&p, &Settings { tol: 1e-12, ..Settings::default() });
        assert_eq!(s.report.status, Status::Solved, "{:?}", s.report);
        assert!(s.z.iter().all(|&z| z >= 0.0) && s.w.iter().all(|&w| w >= -1e-12));
    }

    #[test]
    fn murty_pivot_counts_are_exponential() {
        for (n, pivots) in [(2, 4), (3, 8), (4, 16), (6, 64), (8, 256), (10, 1024)] {
            let p = murty(n);
            let s = solve(&p, &Settings { tol: 1e-12, ..Settings::default() });
            assert_eq!(s.report.status, Status::Solved, "n = {n}");
            assert_eq!(s.report.pivots, pivots, "n = {n}");
            let mut expect = vec![0.0; n];
            expect[n - 1] = 2f64.powi(n as i32 + 1) - 2f64.powi(n as i32);
            assert_eq!(s.z, expect, "n = {n}");
        }
    }

    #[test]
    fn pivot_limit_is_honoured() {
        let s = solve(&murty(8), &Settings { max_iter: 50, ..Settings::default() });
        assert_eq!((s.report.status, s.report.pivots), (Status::MaxIterations, 50));
    }

    #[test]
    fn degenerate_ties_terminate_with_the_lexicographic_rule() {
        // q has all entries equal (a tie in the first ratio test) and M has equal rows,
        // so later ratio tests tie too: M = ones + I, q = −e. Solution: zᵢ = 1/(n+1).
        let n = 5;
        let m: Vec<f64> = (0..n * n).map(|k| if k / n == k % n { 2.0 } else { 1.0 }).collect();
        let p = lcp(n, &m, &vec![-1.0; n]);
        let s = solve(&p, &Settings { tol: 1e-14, ..Settings::default() });
        assert_eq!(s.report.status, Status::Solved);
        for z in &s.z {
            assert!((z - 1.0 / (n as f64 + 1.0)).abs() < 1e-15);
        }
        // A fully degenerate problem: q = 0 except one entry, M with zero rows.
        let p = lcp(3, &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0], &[0.0, 0.0, -1.0]);
        let s = solve(&p, &Settings { tol: 1e-14, ..Settings::default() });
        assert_eq!(s.report.status, Status::Solved, "{:?}", s.report);
    }

    #[test]
    fn infeasible_problem_ends_on_a_ray_that_checks() {
        // w = −z − 1 can never be ≥ 0: M = −1 is copositive-plus? No (−1 < 0), but Lemke
        // still ends on a ray. Check the ray's defining properties.
        let p = lcp(2, &[-1.0, 0.0, 0.0, -1.0], &[-1.0, -1.0]);
        let mut lemke = Lemke { restarts: 0, ..Lemke::new() };
        let s = lemke.solve(&p, None, &Settings::default()).unwrap();
        assert_eq!(s.report.status, Status::RayTermination);
        let ray = s.ray.expect("a ray");
        check_ray(&p, &ray);
    }

    fn check_ray(p: &Lcp, ray: &Ray) {
        for t in [0.0, 1.0, 10.0, 1e3] {
            let v = ray.violation(p.m(), p.q(), t);
            assert!(v <= 1e-9 * (1.0 + t), "t = {t}: violation {v}, {ray:?}");
        }
    }

    #[test]
    fn warm_start_at_the_solution_costs_no_pivot() {
        let p = lcp(2, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
        let s = Lemke::new().solve(&p, Some(&[1.0, 1.0]), &Settings::default()).unwrap();
        assert_eq!((s.report.status, s.report.pivots, s.report.factorizations), (Status::Solved, 0, 1));
        // A wrong support falls back to Lemke.
        let s = Lemke::new().solve(&p, Some(&[1.0, 0.0]), &Settings::default()).unwrap();
        assert_eq!(s.report.status, Status::Solved);
        assert!(s.report.pivots > 0);
    }

    #[test]
    fn bad_covering_vector_and_box_problems_are_errors() {
        let p = lcp(2, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
        let e = Lemke::with_covering(vec![1.0, 0.0]).solve(&p, None, &Settings::default()).unwrap_err();
        assert!(e.to_string().contains("d[1]"), "{e}");
        let b = Lcp::with_bounds(p.m().clone(), p.q().to_vec(), vec![0.0; 2], vec![1.0; 2]).unwrap();
        let e = Lemke::new().solve(&b, None, &Settings::default()).unwrap_err();
        assert!(e.to_string().contains("pgs"), "{e}");
    }

    #[test]
    fn agrees_with_enumeration_on_small_p_matrices() {
        // Deterministic pseudo-random P-matrices: diagonally dominant, non-symmetric.
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        for n in 1..=6 {
            for _ in 0..20 {
                let mut m: Vec<f64> = (0..n * n).map(|_| rnd()).collect();
                for i in 0..n {
                    let off: f64 = (0..n).filter(|&j| j != i).map(|j| m[i * n + j].abs()).sum();
                    m[i * n + i] = off + 0.1 + rnd().abs();
                }
                let q: Vec<f64> = (0..n).map(|_| rnd()).collect();
                let p = lcp(n, &m, &q);
                let s = solve(&p, &Settings { tol: 1e-12, ..Settings::default() });
                assert_eq!(s.report.status, Status::Solved);
                let z = enumerate(&p).expect("a P-matrix LCP has a solution");
                for i in 0..n {
                    assert!((s.z[i] - z[i]).abs() < 1e-9, "{:?} vs {:?}", s.z, z);
                }
            }
        }
    }

    /// Solves a small LCP by trying every complementary basis.
    fn enumerate(p: &Lcp) -> Option<Vec<f64>> {
        let n = p.n();
        let m = p.m().to_dense();
        for mask in 0..(1usize << n) {
            let s: Vec<usize> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
            let a = faer::Mat::from_fn(s.len(), s.len(), |r, c| m[(s[r], s[c])]);
            let b = faer::Mat::from_fn(s.len(), 1, |r, _| -p.q()[s[r]]);
            let x = faer::linalg::solvers::Solve::solve(&a.partial_piv_lu(), &b);
            let mut z = vec![0.0; n];
            for (r, &i) in s.iter().enumerate() {
                z[i] = x[(r, 0)];
            }
            let w = p.w(&z);
            if z.iter().all(|&v| v >= -1e-10) && w.iter().all(|&v| v >= -1e-10) {
                return Some(z);
            }
        }
        None
    }

    #[test]
    fn tiny_scaled_contact_lcp_is_solved_not_stopped_on_a_false_tie() {
        // A woodpecker step's Glocker–Studer LCP (seed 001 eq. 33) at dt = 1e-5: with an
        // absolute tie tolerance Lemke left z₀ on a false tie and returned friction 0.2 %
        // outside the cone. The same problem with q × 1e3 was always solved.
        let m = Matrix::from_row_major(
            3,
            3,
            &[
                1403.102609273718,
                -1035.5173674588614,
                0.0,
                -1470.2087751371048,
                1448.971358927478,
                1.0,
                0.6,
                -1.0,
                0.0,
            ],
        )
        .unwrap();
        let q = vec![-0.0011266971749658112, 0.0008654467211374384, 0.0];
        let s = Settings { tol: 1e-12, ..Settings::default() };
        let small = Lemke::default().solve(&Lcp::new(m.clone(), q.clone()).unwrap(), None, &s).unwrap();
        let big = Lemke::default()
            .solve(&Lcp::new(m, q.iter().map(|x| x * 1e3).collect()).unwrap(), None, &s)
            .unwrap();
        assert_eq!(small.report.status, Status::Solved, "{:?}", small.report);
        assert_eq!(big.report.status, Status::Solved);
        for (a, b) in small.z.iter().zip(&big.z) {
            assert!((a * 1e3 - b).abs() <= 1e-9 * b.abs().max(1e-6), "{:?} vs {:?}", small.z, big.z);
        }
    }
}
