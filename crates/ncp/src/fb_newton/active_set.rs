//! The active-set steps for LCPs ([`FbNewton::active_set`]): the Newton step on the guessed
//! active set, and its damped variant.

use super::step::trial_merit;
use super::*;

impl Method<'_, '_> {
    /// The active-set step (module docs): `true` when it was taken (z, F, Φ and Ψ are the new
    /// point's), `false` when it was not tried (F not affine with a dense M, the set already
    /// tried) or failed (singular block, non-finite F, not enough decrease).
    pub(super) fn active_set_step(&mut self) -> bool {
        let Some((Matrix::Dense(m), _)) = self.p.f.affine() else {
            return false;
        };
        let ws = &mut *self.ws;
        let n = ws.n;
        ws.free.clear();
        for i in 0..n {
            let y = ws.z[i] - ws.f[i];
            let (l, u) = (self.p.lower[i], self.p.upper[i]);
            (ws.class[i], ws.zt[i]) = if y <= l {
                (0, l)
            } else if y >= u {
                (1, u)
            } else {
                ws.free.push(i);
                (2, 0.0)
            };
        }
        // Stable: the same set as at the previous iterate.
        let stable = ws.has_prev && ws.class == ws.prev;
        ws.prev.copy_from_slice(&ws.class);
        ws.has_prev = true;
        if (ws.has_tried && ws.class == ws.tried) || !(self.eager || stable) {
            return false;
        }
        ws.tried.copy_from_slice(&ws.class);
        ws.has_tried = true;
        self.active_set_steps.0 += 1;
        // Until this one is taken, wait for a stable set before the next try.
        self.eager = false;
        // F at z_A = bounds, z_I = 0 gives the right-hand side −q_I − M_I,A z_A.
        self.p.f.eval(&ws.zt, &mut ws.ft);
        let k = ws.free.len();
        if k > 0 {
            self.factorizations += 1;
            ws.rlu.resize(k, 1);
            let mut h = ws.rlu.matrix_mut();
            for (b, &j) in ws.free.iter().enumerate() {
                let col = m.col_as_slice(j);
                for (a, &i) in ws.free.iter().enumerate() {
                    h[(a, b)] = col[i];
                }
            }
            match ws.rlu.factor() {
                Ok(piv) if !piv.singular(k as f64 * f64::EPSILON) => {}
                _ => return false,
            }
            for (x, &i) in ws.d.iter_mut().zip(&ws.free) {
                *x = -ws.ft[i];
            }
            ws.rlu.solve_in_place(&mut ws.d[..k]);
            for (&x, &i) in ws.d.iter().zip(&ws.free) {
                ws.zt[i] = x;
            }
            self.p.f.eval(&ws.zt, &mut ws.ft);
        }
        self.line_search_steps += 1;
        if !(all_finite(&ws.zt) && all_finite(&ws.ft)) {
            return false;
        }
        fb_residual_lambda(self.p, self.knobs.lambda, &ws.zt, &ws.ft, &mut ws.phit);
        let psi = half_norm2(&ws.phit);
        if psi <= (1.0 - 2.0 * self.knobs.sigma) * self.psi {
            self.psi = psi;
        } else if !self.damped_active_set_step() {
            return false;
        }
        let ws = &mut *self.ws;
        self.active_set_steps.1 += 1;
        self.eager = true;
        std::mem::swap(&mut ws.z, &mut ws.zt);
        std::mem::swap(&mut ws.f, &mut ws.ft);
        std::mem::swap(&mut ws.phi, &mut ws.phit);
        true
    }

    /// The unit active-set step z⁺ (in `zt`) failed its test: Armijo backtracking along
    /// d = z⁺ − z, t = ½, ¼, ⅛, 1/16, against the true slope ∇Ψ(z)ᵀd when d is a descent
    /// direction of Ψ. `true` (with the point in `zt`, `ft`, `phit` and its merit in
    /// `self.psi`) when a step passed. ∇Ψ is the FB step's (`jacobian`), kept for it.
    pub(super) fn damped_active_set_step(&mut self) -> bool {
        if self.jacobian().is_err() {
            return false;
        }
        self.jac_ready = true;
        let ws = &mut *self.ws;
        let n = ws.n;
        let mut g = 0.0;
        for i in 0..n {
            ws.d[i] = ws.zt[i] - ws.z[i];
            g += ws.grad[i] * ws.d[i];
        }
        if g.is_nan() || g >= 0.0 {
            return false;
        }
        let (p, lambda) = (self.p, self.knobs.lambda);
        let search =
            Backtracking { sigma: self.knobs.sigma, min_step: 0.0, max_trials: 4, ..Backtracking::default() };
        // Step s = 1, ½, … of the search is t = s/2 along d (t = 1 was tried): the test
        // Ψ ≤ Ψ(z) + σ s (g/2) is Armijo's at t.
        let found = search.armijo(self.psi, 0.5 * g, |s| trial_merit(p, lambda, ws, 0.5 * s));
        self.line_search_steps += found.trials();
        match found {
            Search::Accepted { merit, .. } => {
                self.psi = merit;
                true
            }
            Search::Failed(_) => false,
        }
    }
}
