//! The direction on the free set: the Cholesky factorizations of `M_FF` (dense in place, or
//! faer's sparse one), the regularization of singular blocks, the energy-ratio test and the
//! search for a ray of unboundedness.

use super::workspace::Workspace;
use super::*;
use faer::dyn_stack::MemStack;
use faer::linalg::cholesky::llt::{factor as llt_factor, solve as llt_solve};
use faer::linalg::solvers::SolveCore;
use faer::reborrow::ReborrowMut;
use faer::sparse::linalg::solvers::{Llt as SparseLlt, SymbolicLlt};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side};
use perp_core::iteration::StepResult;

/// One solve: the problem, the parameters, the workspace and the counters.
pub(super) struct Method<'a> {
    pub(super) p: &'a Lcp,
    pub(super) prm: Params,
    pub(super) ws: &'a mut Workspace,
    /// Error at the current iterate.
    pub(super) error: f64,
    pub(super) factorizations: usize,
    pub(super) line_search_steps: usize,
    /// The accepted α of the last step along the projection arc (the observer's log).
    pub(super) last_alpha: Option<f64>,
    pub(super) message: Option<String>,
}

impl Method<'_> {
    /// Ends the loop with `status` and `message`, keeping the current iterate.
    pub(super) fn stop(&mut self, status: Status, message: String) -> StepResult {
        self.message = Some(message);
        StepResult { error: self.error, stop: Some(status) }
    }

    /// Whether the free block goes through faer's sparse Cholesky.
    pub(super) fn sparse_path(&self) -> bool {
        self.p.m().is_sparse() && self.ws.free.len() > self.prm.dense_limit
    }

    /// One attempt: factors `M_FF + δ diag(r_F)` (counted in `factorizations`) and, on
    /// success, solves `(M_FF + δ diag(r_F)) d_F = −w_F` into `d`. `false` when the
    /// factorization fails.
    pub(super) fn try_direction(&mut self, delta: f64) -> bool {
        let sparse = self.sparse_path();
        self.factorizations += 1;
        let ok = if sparse { self.factor_sparse(delta) } else { self.factor_dense(delta) };
        if !ok {
            return false;
        }
        let ws = &mut *self.ws;
        for (k, &i) in ws.free.iter().enumerate() {
            ws.rhs[k] = -ws.w[i];
        }
        self.solve_free(sparse);
        let ws = &mut *self.ws;
        for (k, &i) in ws.free.iter().enumerate() {
            ws.d[i] = ws.rhs[k];
        }
        true
    }

    /// The energy ratio of the current free direction in the Jacobi-scaled metric
    /// (`S = diag(r_F)^{-1/2}`, `ŵ = S w_F`, `M̂ = S M_FF S`):
    /// `ρ = −w_Fᵀ d_F / ‖ŵ‖² = ŵᵀ (M̂ + δI)⁻¹ ŵ / ‖ŵ‖² ∈ [1/λ_max, 1/λ_min]`.
    /// A large ρ means the step is dominated by a (numerically) null direction of `M_FF`;
    /// this also catches the tiny positive pivots a sparse Cholesky of a singular block
    /// may produce.
    pub(super) fn energy_ratio(&self) -> f64 {
        let ws = &*self.ws;
        let lin: f64 = ws.free.iter().map(|&i| -ws.w[i] * ws.d[i]).sum();
        let w2: f64 = ws.free.iter().map(|&i| ws.w[i] * ws.w[i] / ws.scale[i]).sum();
        if w2 > 0.0 {
            lin / w2
        } else {
            0.0
        }
    }

    /// The direction on the free set: the Newton step when `M_FF` is numerically positive
    /// definite (its energy ratio ρ ≤ 1/SINGULAR_REL). Otherwise (singular PSD block) the
    /// step with the smallest working shift `δ ∈ {reg_min, 100·reg_min, …, reg_max}`; if that
    /// step has `ρ > 1/δ_k` it is dominated by the null space of `M_FF`: it is checked for an
    /// unbounded ray ([`Method::find_ray`]) and replaced by the step with the
    /// Levenberg–Marquardt-type shift `δ_k = max(SINGULAR_REL, min(1, error_k))`, which keeps
    /// `D_FF` bounded (`ρ ≤ 1/δ_k ≤ 1e8`, as Bertsekas' convergence theory requires) and
    /// shrinks as the error does. `Err` ends the loop (not PSD, or no solution).
    pub(super) fn free_direction(&mut self) -> Result<f64, StepResult> {
        if self.try_direction(0.0) && self.energy_ratio() * SINGULAR_REL <= 1.0 {
            return Ok(0.0);
        }
        let mut delta = self.prm.reg_min;
        while !self.try_direction(delta) {
            delta *= REG_GROWTH;
            if delta > self.prm.reg_max * (1.0 + 1e-12) {
                let nf = self.ws.free.len();
                let tried = delta / REG_GROWTH;
                return Err(self.stop(
                    Status::NumericalFailure,
                    format!(
                        "M is not positive semidefinite: Cholesky of the {nf}x{nf} free block \
                         M_FF + δ·diag(M_FF) failed up to δ = {tried:.0e}; projected Newton needs a \
                         symmetric PSD M (use lemke for other matrices)"
                    ),
                ));
            }
        }
        let lm = self.error.clamp(SINGULAR_REL, 1.0);
        if self.energy_ratio() * lm <= 1.0 {
            return Ok(delta);
        }
        if let Some(msg) = self.find_ray(delta) {
            return Err(self.stop(Status::Infeasible, msg));
        }
        if !self.try_direction(lm) {
            return Err(self.stop(
                Status::NumericalFailure,
                format!(
                    "Cholesky of M_FF + δ·diag(M_FF) failed at δ = {lm:.1e} after succeeding at {delta:.0e}"
                ),
            ));
        }
        Ok(lm)
    }

    /// Looks for a ray of unboundedness starting from the current shifted direction (shift
    /// `delta`). When clipping into the box's recession cone spoils the ray, the clipped
    /// variables are fixed and the direction is recomputed on the smaller free set, for up to
    /// `RAY_ROUNDS` rounds; the free set is restored before returning.
    pub(super) fn find_ray(&mut self, delta: f64) -> Option<String> {
        self.ws.free_saved.clone_from(&self.ws.free);
        let mut found = None;
        for round in 0..RAY_ROUNDS {
            match self.ray_test() {
                RayTest::Found(msg) => {
                    found = Some(msg);
                    break;
                }
                RayTest::NotRay => break,
                RayTest::Clipped if round + 1 < RAY_ROUNDS => {
                    let ws = &mut *self.ws;
                    // Keep the entries the clipped ray uses; fix the clipped and negligible ones.
                    let (ray, pos) = (&ws.ray, &mut ws.pos);
                    ws.free.retain(|&i| {
                        pos[i] = NOT_FREE;
                        ray[i] != 0.0
                    });
                    for (k, &i) in ws.free.iter().enumerate() {
                        ws.pos[i] = k;
                    }
                    if ws.free.is_empty() || !self.try_direction(delta) {
                        break;
                    }
                }
                RayTest::Clipped => break,
            }
        }
        let ws = &mut *self.ws;
        std::mem::swap(&mut ws.free, &mut ws.free_saved);
        for &i in &ws.free_saved {
            ws.pos[i] = NOT_FREE;
        }
        for (k, &i) in ws.free.iter().enumerate() {
            ws.pos[i] = k;
        }
        found
    }

    /// Dense path: gathers the lower triangle of `M_FF + δ diag(r_F)` into the buffer and
    /// factors it in place. `false` on a non-positive or negligible pivot.
    pub(super) fn factor_dense(&mut self, delta: f64) -> bool {
        let ws = &mut *self.ws;
        let nf = ws.free.len();
        let free = &ws.free;
        let mut a = ws.dense.as_mut().submatrix_mut(0, 0, nf, nf);
        match self.p.m() {
            Matrix::Dense(m) => {
                for (c, &j) in free.iter().enumerate() {
                    let col = m.col_as_slice(j);
                    for (r, &i) in free.iter().enumerate().skip(c) {
                        a[(r, c)] = col[i];
                    }
                }
            }
            Matrix::Sparse(m) => {
                for c in 0..nf {
                    for r in c..nf {
                        a[(r, c)] = 0.0;
                    }
                }
                // Outer slice `free[c]` is row (CSR) or column (CSC) `free[c]`; by symmetry
                // both are column `free[c]` of M.
                for (c, &j) in free.iter().enumerate() {
                    if let Some(outer) = m.outer_view(j) {
                        for (i, &v) in outer.iter() {
                            let r = ws.pos[i];
                            if r != NOT_FREE && r >= c {
                                a[(r, c)] += v;
                            }
                        }
                    }
                }
            }
        }
        for (c, &j) in free.iter().enumerate() {
            a[(c, c)] += delta * ws.scale[j];
        }
        let stack = MemStack::new(ws.stack.as_mut().expect("workspace prepared"));
        let res = llt_factor::cholesky_in_place(
            a.rb_mut(),
            Default::default(),
            Par::Seq,
            stack,
            Default::default(),
        );
        // Without a shift, a negligible pivot means a singular block (see `free_direction`).
        res.is_ok()
            && (delta > 0.0
                || free.iter().enumerate().all(|(c, &j)| a[(c, c)] * a[(c, c)] > PIVOT_REL * ws.scale[j]))
    }

    /// Sparse path: builds the lower triangle of `M_FF + δ diag(r_F)` in CSC (diagonal
    /// always stored) and factors it with faer's sparse Cholesky, reusing the symbolic
    /// analysis while the free set is unchanged. `false` on a non-positive pivot.
    pub(super) fn factor_sparse(&mut self, delta: f64) -> bool {
        let ws = &mut *self.ws;
        let Matrix::Sparse(m) = self.p.m() else { return false };
        let nf = ws.free.len();
        ws.col_ptr.clear();
        ws.row_idx.clear();
        ws.vals.clear();
        ws.col_ptr.push(0);
        for (c, &j) in ws.free.iter().enumerate() {
            let diag_at = ws.vals.len();
            ws.row_idx.push(c);
            ws.vals.push(delta * ws.scale[j]);
            if let Some(outer) = m.outer_view(j) {
                // Inner indices are sorted and `pos` is increasing on F: rows come out sorted.
                for (i, &v) in outer.iter() {
                    let r = ws.pos[i];
                    if r == NOT_FREE || r < c {
                        continue;
                    }
                    if r == c {
                        ws.vals[diag_at] += v;
                    } else {
                        ws.row_idx.push(r);
                        ws.vals.push(v);
                    }
                }
            }
            ws.col_ptr.push(ws.row_idx.len());
        }
        let sym = SymbolicSparseColMatRef::new_checked(nf, nf, &ws.col_ptr, None, &ws.row_idx);
        if ws.symbolic.is_none() || ws.symbolic_free != ws.free {
            match SymbolicLlt::try_new(sym, Side::Lower) {
                Ok(s) => {
                    ws.symbolic = Some(s);
                    ws.symbolic_free.clone_from(&ws.free);
                }
                Err(_) => return false,
            }
        }
        let symbolic = ws.symbolic.clone().expect("symbolic factorization just built");
        let mat = SparseColMatRef::new(sym, &ws.vals);
        match SparseLlt::try_new_with_symbolic(symbolic, mat, Side::Lower) {
            Ok(llt) => {
                ws.sparse_llt = Some(llt);
                true
            }
            Err(_) => false,
        }
    }

    /// Solves `M_FF x = rhs[..|F|]` in place with the factor just computed.
    pub(super) fn solve_free(&mut self, sparse: bool) {
        let ws = &mut *self.ws;
        let nf = ws.free.len();
        let rhs = MatMut::from_column_major_slice_mut(&mut ws.rhs[..nf], nf, 1);
        if sparse {
            ws.sparse_llt.as_ref().expect("sparse factor computed").solve_in_place_with_conj(Conj::No, rhs);
        } else {
            let l = ws.dense.as_ref().submatrix(0, 0, nf, nf);
            let stack = MemStack::new(ws.stack.as_mut().expect("workspace prepared"));
            llt_solve::solve_in_place_with_conj(l, Conj::No, rhs, Par::Seq, stack);
        }
    }

    /// One ray test: `r = d_F` with tiny entries dropped and clipped into the recession cone
    /// of the box (no positive entry where `hi < ∞`, no negative one where `lo > −∞`). If
    /// `wᵀr ≤ −RAY_SLOPE ‖q‖∞ ‖r‖∞` and `‖M r‖∞ ≤ RAY_TOL max|M| ‖r‖∞`, the QP is unbounded
    /// below along `z + t r`; for the standard LCP, `r ≥ 0`, `M r = 0`, `qᵀr = wᵀr < 0` is
    /// the Farkas certificate that no `z ≥ 0` has `M z + q ≥ 0`.
    pub(super) fn ray_test(&mut self) -> RayTest {
        let ws = &mut *self.ws;
        let dmax = ws.free.iter().fold(0.0_f64, |a, &i| a.max(ws.d[i].abs()));
        if !(dmax > 0.0 && dmax.is_finite()) {
            return RayTest::NotRay;
        }
        ws.ray.fill(0.0);
        let (mut rmax, mut slope, mut clipped) = (0.0_f64, 0.0, false);
        for &i in &ws.free {
            let v = ws.d[i];
            if v.abs() <= RAY_DROP * dmax {
                continue;
            }
            let c = if ws.lo[i] > f64::NEG_INFINITY { v.max(0.0) } else { v };
            let c = if ws.hi[i] < f64::INFINITY { c.min(0.0) } else { c };
            clipped |= c != v;
            ws.ray[i] = c;
            rmax = rmax.max(c.abs());
            slope += ws.w[i] * c;
        }
        let q_max = self.p.q().iter().fold(0.0_f64, |a, v| a.max(v.abs()));
        let verdict = if clipped { RayTest::Clipped } else { RayTest::NotRay };
        if !(rmax > 0.0 && slope < -RAY_SLOPE * q_max * rmax) {
            return verdict;
        }
        self.p.m().mul_vec(&ws.ray, &mut ws.m_ray);
        let curv = ws.m_ray.iter().fold(0.0_f64, |a, v| a.max(v.abs())) / rmax;
        if curv <= RAY_TOL * ws.m_max {
            RayTest::Found(format!(
                "the objective ½zᵀMz + qᵀz is unbounded below on the feasible set: along a feasible ray r \
                 the slope is wᵀr/‖r‖∞ = {:.3e} < 0 with ‖Mr‖∞/‖r‖∞ = {curv:.1e} (zero curvature); \
                 for a symmetric positive semidefinite M the LCP has no solution",
                slope / rmax
            ))
        } else {
            verdict
        }
    }
}

/// The outcome of [`Method::ray_test`].
pub(super) enum RayTest {
    /// A certified ray; the message describes it.
    Found(String),
    /// Not a ray, and clipping played no part.
    NotRay,
    /// Not a ray, but some entries had to be clipped: retry on a smaller free set.
    Clipped,
}
