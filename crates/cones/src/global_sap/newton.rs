//! The steps of [`Sap::solve`]: the Newton direction, the step length and the answer's
//! measures, with the storage the iterations keep.

use super::*;
use perp_core::linear::PcgWork;

/// The storage of SAP's iterations (allocated once): the evaluation at the iterate, the
/// Newton matrix's pattern and values, the direction Δv with `M Δv` and `Hᵀ Δv`.
pub(super) struct Newton {
    pub(super) e: Eval,
    pub(super) pat: BodyGraph,
    values: Vec<f64>,
    pub(super) dv: Vec<f64>,
    mdv: Vec<f64>,
    du: Vec<f64>,
    ordered: Vec<f64>,
    /// The kept factor's conjugate gradients: their vectors, the ordered right-hand side, and
    /// whether they have failed once in this solve (then every later direction is factored).
    pcg: PcgWork,
    rhs: Vec<f64>,
    pub(super) reuse_failed: bool,
    /// Whether the last direction came from the kept factor's conjugate gradients.
    pub(super) reused: bool,
}

/// The relative residual at which a Newton direction from the kept factor's conjugate
/// gradients is taken ([`Sap::factor_reuse`]).
pub(super) const REUSE_TOLERANCE: f64 = 1e-3;

/// The fewest velocities of a problem whose Newton directions try the kept factor: on smaller
/// ones a factorization costs less than the iterations' products, and an inexact direction
/// can cost a Newton iteration more ([`Sap::factor_reuse`]).
pub(super) const REUSE_MIN_DOFS: usize = 100;

/// The Newton matrix could not be factored, or its direction is no descent direction.
pub(super) struct NoDirection(pub(super) String);

impl Newton {
    /// The storage for `g`, with `pat` its Newton matrix's pattern ([`BodyGraph::update`]).
    pub(super) fn new(g: &GlobalFrictionContactProblem, pat: BodyGraph) -> Self {
        let n = g.dofs();
        Newton {
            e: Eval::new(g),
            pat,
            values: Vec::new(),
            dv: vec![0.0; n],
            mdv: vec![0.0; n],
            du: Vec::with_capacity(g.size()),
            ordered: Vec::with_capacity(n),
            pcg: PcgWork::default(),
            rhs: Vec::with_capacity(n),
            reuse_failed: false,
            reused: false,
        }
    }

    /// The Newton direction `(M + H G Hᵀ) Δv = −∇ℓ` into `dv`, with `M Δv` and `Hᵀ Δv`: by
    /// up to `reuse` conjugate-gradient iterations preconditioned with `chol`'s kept factor
    /// when `current` says it is of this pattern (to [`REUSE_TOLERANCE`]; see
    /// [`Sap::factor_reuse`]), else by a factorization, after which `current` says whether it
    /// succeeded.
    pub(super) fn direction(
        &mut self,
        g: &GlobalFrictionContactProblem,
        chol: &mut SparseCholesky,
        (reuse, current): (usize, &mut bool),
        report: &mut SolveReport,
    ) -> Result<(), NoDirection> {
        let Newton { e, pat, values, dv, mdv, du, ordered, pcg, rhs, reuse_failed, reused: last } = self;
        pat.fill(&e.g, values, &mut e.hg);
        dv.iter_mut().zip(&e.grad).for_each(|(a, b)| *a = -b);
        let tried = reuse > 0 && g.dofs() >= REUSE_MIN_DOFS && *current && !*reuse_failed;
        *last = tried
            && matches!(pat.pcg(chol, values, dv, (ordered, rhs, pcg), (REUSE_TOLERANCE, reuse)), Ok(o) if o.converged);
        if !*last {
            if tried {
                // CG's last iterate overwrote the right-hand side.
                *reuse_failed = true;
                dv.iter_mut().zip(&e.grad).for_each(|(a, b)| *a = -b);
            }
            report.factorizations += 1;
            let solved = pat.factor(chol, values).and_then(|()| pat.solve(chol, dv, ordered));
            *current = solved.is_ok();
            if let Err(b) = solved {
                return Err(NoDirection(format!("the Newton matrix M + H G Hᵀ could not be factored: {b}")));
            }
        }
        g.m.mul_vec(dv, mdv);
        du.clear();
        du.resize(g.size(), 0.0);
        g.h.mul_transpose_add(dv, du);
        Ok(())
    }

    /// The step length along `dv` (the exact line search, or 1 when the slope is below the
    /// cost tolerances), and whether the cost stalled (SAP's cost criterion: a decrease below
    /// the tolerances in a step longer than ½). Errors: `dv` is not a descent direction.
    pub(super) fn step_length(
        &self,
        sap: &Sap,
        (contacts, d): (&[SapContact], usize),
        report: &mut SolveReport,
    ) -> Result<(f64, bool), NoDirection> {
        let (e, dv) = (&self.e, &self.dv);
        let a: f64 = dv.iter().zip(&self.mdv).map(|(x, y)| x * y).sum();
        // g0 = Δvᵀ (M v − f) = Δvᵀ (∇ℓ + H γ).
        let slope: f64 = dv.iter().zip(&e.grad).map(|(x, y)| x * y).sum();
        let g0 = slope + self.du.iter().zip(&e.gamma).map(|(x, y)| x * y).sum::<f64>();
        if slope.is_nan() || slope >= 0.0 {
            return Err(NoDirection(format!(
                "the Newton direction is not a descent direction (slope {slope:.3e}): rounding"
            )));
        }
        let cost_a0 = e.cost
            - contacts.iter().enumerate().map(|(i, c)| c.cost(&e.gamma[i * d..(i + 1) * d])).sum::<f64>();
        let line = Line { contacts, d, u: &e.u, du: &self.du, a, g0, cost_a0, gamma0: Some(&e.gamma) };
        let search = if -slope < sap.cost_abs_tolerance + sap.cost_rel_tolerance * e.cost {
            Search { alpha: 1.0, evals: 0, cost: None }
        } else {
            exact_line_search(&line, sap.alpha_max, sap.line_search_tolerance, sap.line_search_max_iter)
        };
        report.line_search_steps += search.evals;
        let alpha = search.alpha;
        let cost_new = search.cost.unwrap_or_else(|| line.eval(alpha).0);
        let decrement = (e.cost - cost_new).abs();
        let cost_stalled = alpha > 0.5
            && decrement < sap.cost_abs_tolerance + sap.cost_rel_tolerance * 0.5 * (e.cost + cost_new);
        Ok((alpha, cost_stalled))
    }
}
