//! The KKT system of an iteration: its factorization (reduced to the velocities, or
//! quasi-definite) and iterative refinement against the unreduced matrix.

use super::layout::QuasiDefinite;
use super::*;
use perp_core::linear::Supernodal;

/// The relative residual a reduced solve must reach by refinement.
const REDUCED_ACCURACY: f64 = 1e-10;

/// The most refinement steps a reduced solve takes.
const REDUCED_STEPS: usize = 6;

/// The quasi-definite fallback in the reduced form's order is factored supernodally from this
/// order (`n + m`) on ([`Kkt::factor_full`]).
const SUPERNODAL_FALLBACK_FROM: usize = 1000;

/// The KKT system of one iteration: its values, factor and the scalings they came from.
pub(super) struct Kkt<'a> {
    pub(super) lay: &'a Layout,
    pub(super) g: &'a GlobalFrictionContactProblem,
    pub(super) values: Vec<f64>,
    pub(super) signs: Vec<i8>,
    pub(super) nt: Vec<Nt>,
    pub(super) tmp: Vec<f64>,
    pub(super) res: Vec<f64>,
    pub(super) rhs: Vec<f64>,
    /// The reduced system when [`KktForm::Reduced`] is asked (built at the first factorization).
    reduced: Option<Reduced>,
    /// The quasi-definite matrix's pattern, built at its first factorization.
    qd: Option<QuasiDefinite>,
    /// Set when a reduced solve missed its accuracy: the quasi-definite form from then on
    /// (W² only grows more ill-conditioned along the path).
    reduced_failed: bool,
    /// The scale of the dynamic regularization of the last factorization.
    small: f64,
    /// The static regularization of the last factorization: (velocities, cone rows).
    regs: (f64, f64),
    /// Whether `values` holds the last factorization's quasi-definite matrix.
    full_filled: bool,
    /// Whether the last factorization is the reduced one (it falls back to the
    /// quasi-definite `LDLᵀ` when S's Cholesky breaks down).
    via_reduced: bool,
}

/// The factors on the static regularization of a quasi-definite factorization tried in turn
/// when the last broke down ([`Kkt::factor_full`]).
const STATIC_BOOSTS: [f64; 3] = [1.0, 1e3, 1e6];

impl<'a> Kkt<'a> {
    pub(super) fn new(g: &'a GlobalFrictionContactProblem, lay: &'a Layout) -> Kkt<'a> {
        let (n, m) = (lay.n, lay.m);
        let mut signs = vec![1i8; n + m];
        signs[n..].iter_mut().for_each(|x| *x = -1);
        Kkt {
            lay,
            g,
            values: Vec::new(),
            signs,
            nt: Vec::with_capacity(lay.cones.len()),
            tmp: vec![0.0; n + m],
            res: vec![0.0; n + m],
            rhs: Vec::with_capacity(n + m),
            reduced: None,
            qd: None,
            reduced_failed: false,
            small: 1.0,
            regs: (0.0, 0.0),
            full_filled: false,
            via_reduced: false,
        }
    }

    /// Fills the values for the current scalings (`w2` gives entry (a, b) of cone c's W²,
    /// `w2inv` the p × p inverse of cone c's `W² + δI` for the reduced form) and factors them. The static regularization is 10⁻¹⁰ of each block's own scale (the
    /// largest diagonal entry of M for the velocities, `omega2` — the Delassus diagonal's —
    /// for the cone rows): the two blocks have different units, and W² spans many orders of
    /// magnitude near the solution.
    pub(super) fn factor(
        &mut self,
        chols: &mut Factors,
        (w2, w2inv): (impl Fn(usize, usize, usize) -> f64, impl Fn(usize, usize, f64, &mut [f64])),
        omega2: f64,
        report: &mut SolveReport,
    ) -> Result<(), String> {
        let lay = self.lay;
        let m_scale = lay.m_diag.iter().fold(0.0_f64, |a, &v| a.max(v.abs()));
        let m_scale = if m_scale > 0.0 && m_scale.is_finite() { m_scale } else { 1.0 };
        let (reg_m, reg_w) = (1e-10 * m_scale, 1e-10 * omega2);
        self.regs = (reg_m, reg_w);
        self.small = m_scale.min(omega2);
        report.factorizations += 1;
        if chols.form == KktForm::Reduced && !self.reduced_failed {
            let red = self.reduced.get_or_insert_with(|| Reduced::new(self.g, lay, &mut chols.graph));
            red.fill(&chols.graph, lay, &|c, p, out: &mut [f64]| w2inv(c, p, reg_w, out), reg_m);
            if chols.graph.factor(&mut chols.reduced, &red.values).is_ok() {
                self.via_reduced = true;
                // The quasi-definite values are filled only if a fallback needs them.
                self.full_filled = false;
                return Ok(());
            }
            // S's Cholesky broke down (M not positive definite, or rounding): the
            // quasi-definite factorization follows, a second one this iteration.
            report.factorizations += 1;
        }
        self.fill_full(&w2);
        let ran = self.factor_full(chols, &w2);
        report.factorizations += ran.as_ref().map_or(STATIC_BOOSTS.len(), |k| *k) - 1;
        ran.map(|_| ())
    }

    /// The quasi-definite KKT values for the scalings `w2` (entry (a, b) of cone c's W²)
    /// and the last [`Kkt::factor`]'s regularization.
    fn fill_full(&mut self, w2: impl Fn(usize, usize, usize) -> f64) {
        let (lay, g) = (self.lay, self.g);
        let (reg_m, reg_w) = self.regs;
        let qd = self.qd.get_or_insert_with(|| lay.quasi_definite(g));
        self.values.clear();
        self.values.extend_from_slice(&qd.base);
        for &k in &qd.mdiag {
            self.values[k] += reg_m;
        }
        for (c, &(_, p)) in lay.cones.iter().enumerate() {
            let mut k = qd.wstart[c];
            for a in 0..p {
                for b in a..p {
                    self.values[k] = -w2(c, a, b) - if a == b { reg_w } else { 0.0 };
                    k += 1;
                }
            }
        }
        self.full_filled = true;
    }

    /// The quasi-definite `LDLᵀ` of the values [`Kkt::fill_full`] filled; filled first, from
    /// the scalings `w2` (entry (a, b) of cone c's W²), when the last factorization was the
    /// reduced one. A factorization that breaks down (near the answer W² spans ten and more
    /// orders of magnitude, and the dynamic regularization's pivots can leave the factor
    /// without a finite value) is retried with the static regularization raised by
    /// [`STATIC_BOOSTS`]: the solves refine against the unregularized matrix
    /// ([`Kkt::refine`]). Returns the factorizations run.
    fn factor_full(
        &mut self,
        chols: &mut Factors,
        w2: impl Fn(usize, usize, usize) -> f64,
    ) -> Result<usize, String> {
        // The cone rows first, then the velocities in the body graph's fill-reducing order:
        // the reduced form's elimination, here by the LDLᵀ's scalar pivots (with its dynamic
        // regularization and refinement), which stays accurate where the reduced Cholesky
        // did not, and needs no AMD of this matrix (a new pattern at each time step). Without
        // the reduced form's graph (the quasi-definite form throughout), AMD.
        let (n, m) = (self.lay.n, self.lay.m);
        let order =
            self.reduced.as_ref().map(|_| (n..n + m).chain(chols.graph.order().iter().copied()).collect());
        // In that order the velocities' part is the reduced factor's, whose supernodes are
        // wide: faer's rule (flops per nonzero, diluted by the cone rows' short columns)
        // would take the scalar factorization, at about twice the time on a pile's islands.
        chols.full.set_supernodal(if order.is_some() && n + m >= SUPERNODAL_FALLBACK_FROM {
            Supernodal::Always
        } else {
            Supernodal::Auto
        });
        chols.full.set_order(order);
        let regs = self.regs;
        let mut broke = String::new();
        for (k, &boost) in STATIC_BOOSTS.iter().enumerate() {
            if !self.full_filled || k > 0 {
                self.regs = (regs.0 * boost, regs.1 * boost);
                self.fill_full(&w2);
            }
            self.via_reduced = false;
            let small = self.small;
            let Some(qd) = &self.qd else { unreachable!("fill_full builds the pattern") };
            let out = chols.full.factor_quasi_definite(
                self.lay.n + self.lay.m,
                (&qd.col_ptr, &qd.row_idx, &self.values),
                &self.signs,
                1e-8 * small,
                1e-14 * small,
            );
            self.regs = regs;
            match out {
                Ok(()) => return Ok(k + 1),
                Err(e) => broke = e.to_string(),
            }
        }
        Err(format!("the KKT matrix cannot be factored ({broke})"))
    }

    /// `y = K x` with the unregularized KKT matrix of the current scalings.
    pub(super) fn apply(&mut self, x: &[f64], y: &mut [f64]) {
        let (lay, n) = (self.lay, self.lay.n);
        let (x1, x2) = x.split_at(n);
        let (y1, y2) = y.split_at_mut(n);
        self.g.m.mul_vec(x1, y1);
        let hz = &mut self.tmp[..n];
        lay.h_mul(x2, hz);
        y1.iter_mut().zip(hz.iter()).for_each(|(a, b)| *a -= b);
        lay.ht_mul(x1, y2);
        for (c, &(off, p)) in lay.cones.iter().enumerate() {
            let nt = &self.nt[c];
            for a in 0..p {
                let w2x: f64 = (0..p).map(|b| nt.w2(a, b) * x2[off + b]).sum();
                y2[off + a] = -y2[off + a] - w2x;
            }
        }
    }

    /// Solves `K x = rhs` in place, with iterative refinement against the unregularized
    /// matrix ([`Kkt::refine`]).
    pub(super) fn solve(
        &mut self,
        chol: &mut Factors,
        x: &mut [f64],
        factorizations: &mut usize,
    ) -> Result<(), String> {
        // The right-hand side and the residual in kept storage, given back on every path.
        let (mut rhs, mut res) = (std::mem::take(&mut self.rhs), std::mem::take(&mut self.res));
        rhs.clear();
        rhs.extend_from_slice(x);
        let out = self.refine(chol, x, &rhs, &mut res, factorizations);
        (self.rhs, self.res) = (rhs, res);
        out
    }

    /// `K x = rhs` by the last factorization and iterative refinement; a reduced solve that
    /// refinement cannot bring within [`REDUCED_ACCURACY`] of `rhs` (relative) is redone with the
    /// quasi-definite factor, factored then (`factorizations` counts it).
    pub(super) fn refine(
        &mut self,
        chols: &mut Factors,
        x: &mut [f64],
        rhs: &[f64],
        res: &mut [f64],
        factorizations: &mut usize,
    ) -> Result<(), String> {
        let rn = norm_inf(rhs);
        let residual = self.refine_with(chols, x, rhs, res, rn)?;
        if self.via_reduced && (residual > REDUCED_ACCURACY * rn || residual.is_nan()) {
            self.reduced_failed = true;
            let nt = std::mem::take(&mut self.nt);
            let ran = self.factor_full(chols, |c, a, b| nt[c].w2(a, b));
            self.nt = nt;
            *factorizations += ran?;
            x.copy_from_slice(rhs);
            self.refine_with(chols, x, rhs, res, rn)?;
        }
        Ok(())
    }

    /// Solve and iterative refinement; returns the last residual's norm for the reduced
    /// factor (0 when it met its accuracy), and always 0 for the quasi-definite factor.
    ///
    /// The quasi-definite factor takes up to two refinement steps, stopping once the
    /// residual is within 10⁻¹⁴ of `rn`; its last correction is not checked. The reduced
    /// factor refines until its residual is within [`REDUCED_ACCURACY`] of `rn`, up to
    /// [`REDUCED_STEPS`] steps, and stops early when a step does not shrink the residual
    /// fivefold (the insufficient-progress rule of Clarabel's refinement): refinement against
    /// a factor that lost its accuracy (W² ill-conditioned near the answer) converges slowly
    /// or not at all, and the caller then factors the quasi-definite matrix.
    fn refine_with(
        &mut self,
        chols: &mut Factors,
        x: &mut [f64],
        rhs: &[f64],
        res: &mut [f64],
        rn: f64,
    ) -> Result<f64, String> {
        self.factor_solve(chols, x)?;
        if !self.via_reduced {
            for _ in 0..2 {
                self.residual(x, rhs, res);
                if norm_inf(res) <= 1e-14 * rn {
                    break;
                }
                self.factor_solve(chols, res)?;
                x.iter_mut().zip(res.iter()).for_each(|(a, b)| *a += b);
            }
            return Ok(0.0);
        }
        let mut last = f64::INFINITY;
        for step in 0..=REDUCED_STEPS {
            self.residual(x, rhs, res);
            let r = norm_inf(res);
            if r <= REDUCED_ACCURACY * rn {
                return Ok(0.0);
            }
            if step == REDUCED_STEPS || r.is_nan() || r > last / 5.0 {
                return Ok(r);
            }
            last = r;
            self.factor_solve(chols, res)?;
            x.iter_mut().zip(res.iter()).for_each(|(a, b)| *a += b);
        }
        Ok(last)
    }

    /// `res = rhs − K x`.
    fn residual(&mut self, x: &[f64], rhs: &[f64], res: &mut [f64]) {
        self.apply(x, res);
        res.iter_mut().zip(rhs).for_each(|(r, b)| *r = b - *r);
    }

    /// Solves with the last factorization in place: the quasi-definite factor directly, or
    /// the reduced one by `S Δv = r₁ − H̃ B⁻¹ r₂`, `Δz = −B⁻¹ (r₂ + H̃ᵀ Δv)`.
    fn factor_solve(&mut self, chols: &mut Factors, x: &mut [f64]) -> Result<(), String> {
        let nm = x.len();
        let fail = |e| format!("the KKT solve failed ({e})");
        let red = match (&mut self.reduced, self.via_reduced) {
            (Some(red), true) => red,
            _ => return chols.full.solve_in_place(x, nm, 1).map_err(fail),
        };
        let (lay, n) = (self.lay, self.lay.n);
        let (x1, x2) = x.split_at_mut(n);
        // tmp[n..] = B⁻¹ r₂, then x₁ = r₁ − H̃ B⁻¹ r₂.
        let (t1, t2) = self.tmp.split_at_mut(n);
        let graph = &chols.graph;
        for (c, &(off, p)) in lay.cones.iter().enumerate() {
            red.apply_ginv(graph, c, &x2[off..off + p], &mut t2[off..off + p]);
        }
        lay.h_mul(t2, t1);
        x1.iter_mut().zip(t1.iter()).for_each(|(a, b)| *a -= b);
        graph.solve(&mut chols.reduced, x1, &mut red.t).map_err(fail)?;
        // x₂ = −B⁻¹ (r₂ + H̃ᵀ x₁).
        lay.ht_mul(x1, t2);
        t2.iter_mut().zip(x2.iter()).for_each(|(a, b)| *a += b);
        for (c, &(off, p)) in lay.cones.iter().enumerate() {
            red.apply_ginv(graph, c, &t2[off..off + p], &mut x2[off..off + p]);
        }
        x2.iter_mut().for_each(|v| *v = -*v);
        Ok(())
    }
}
