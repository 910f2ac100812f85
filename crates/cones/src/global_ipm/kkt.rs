//! The quasi-definite KKT system of an iteration, its factorization and iterative refinement.

use super::*;

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
}

impl<'a> Kkt<'a> {
    pub(super) fn new(g: &'a GlobalFrictionContactProblem, lay: &'a Layout) -> Kkt<'a> {
        let (n, m) = (lay.n, lay.m);
        let mut signs = vec![1i8; n + m];
        signs[n..].iter_mut().for_each(|x| *x = -1);
        Kkt {
            lay,
            g,
            values: lay.base.clone(),
            signs,
            nt: Vec::with_capacity(lay.cones.len()),
            tmp: vec![0.0; n + m],
            res: vec![0.0; n + m],
            rhs: Vec::with_capacity(n + m),
        }
    }

    /// Fills the values for the current scalings (`w2` gives entry (a, b) of cone c's W²)
    /// and factors them. The static regularization is 10⁻¹⁰ of each block's own scale (the
    /// largest diagonal entry of M for the velocities, `omega2` — the Delassus diagonal's —
    /// for the cone rows): the two blocks have different units, and W² spans many orders of
    /// magnitude near the solution.
    pub(super) fn factor(
        &mut self,
        chol: &mut SparseCholesky,
        w2: impl Fn(usize, usize, usize) -> f64,
        omega2: f64,
        report: &mut SolveReport,
    ) -> Result<(), String> {
        let lay = self.lay;
        let n = lay.n;
        self.values.copy_from_slice(&lay.base);
        let m_scale = lay.mdiag.iter().fold(0.0_f64, |a, &k| a.max(lay.base[k].abs()));
        let m_scale = if m_scale > 0.0 && m_scale.is_finite() { m_scale } else { 1.0 };
        let (reg_m, reg_w) = (1e-10 * m_scale, 1e-10 * omega2);
        for &k in &lay.mdiag {
            self.values[k] += reg_m;
        }
        for (c, &(_, p)) in lay.cones.iter().enumerate() {
            let mut k = lay.wstart[c];
            for a in 0..p {
                for b in a..p {
                    self.values[k] = -w2(c, a, b) - if a == b { reg_w } else { 0.0 };
                    k += 1;
                }
            }
        }
        let small = m_scale.min(omega2);
        report.factorizations += 1;
        chol.factor_quasi_definite(
            n + lay.m,
            (&lay.col_ptr, &lay.row_idx, &self.values),
            &self.signs,
            1e-8 * small,
            1e-14 * small,
        )
        .map_err(|e| format!("the KKT matrix cannot be factored ({e})"))
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

    /// Solves `K x = rhs` in place, with two steps of iterative refinement against the
    /// unregularized matrix.
    pub(super) fn solve(&mut self, chol: &mut SparseCholesky, x: &mut [f64]) -> Result<(), String> {
        // The right-hand side and the residual in kept storage, given back on every path.
        let (mut rhs, mut res) = (std::mem::take(&mut self.rhs), std::mem::take(&mut self.res));
        rhs.clear();
        rhs.extend_from_slice(x);
        let out = self.refine(chol, x, &rhs, &mut res);
        (self.rhs, self.res) = (rhs, res);
        out
    }

    pub(super) fn refine(
        &mut self,
        chol: &mut SparseCholesky,
        x: &mut [f64],
        rhs: &[f64],
        res: &mut [f64],
    ) -> Result<(), String> {
        let nm = x.len();
        let fail = |e| format!("the KKT solve failed ({e})");
        chol.solve_in_place(x, nm, 1).map_err(fail)?;
        let rn = norm_inf(rhs);
        for _ in 0..2 {
            self.apply(x, res);
            res.iter_mut().zip(rhs).for_each(|(r, b)| *r = b - *r);
            if norm_inf(res) <= 1e-14 * rn {
                break;
            }
            chol.solve_in_place(res, nm, 1).map_err(fail)?;
            x.iter_mut().zip(res.iter()).for_each(|(a, b)| *a += b);
        }
        Ok(())
    }
}
