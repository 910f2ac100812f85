//! The minimum-ratio test of a pivot and its lexicographic tie-break (CPS §4.9), on the
//! engine's basis (see `engine`).

use faer::linalg::matmul::matmul;
use faer::{Accum, Par};

use super::engine::{col_view, vec_view, vec_view_mut, Engine, LexScratch, Var, TIE_TOL};

impl Engine {
    /// Minimum-ratio test with lexicographic tie-breaking. `None`: no blocking variable.
    pub(super) fn ratio_test(&mut self, lex: &mut LexScratch) -> Option<(Var, f64)> {
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
        if self.harris {
            return Some(self.harris_pick(tol).unwrap_or((best, theta_min)));
        }
        // Ties: rows whose value after the step, xᵢ − θ_min·dirᵢ, would be zero up to
        // round-off. Comparing the ratios themselves would let noise in degenerate values
        // (1e-13 where exact arithmetic gives 0) decide, and the method could cycle.
        // Relative to the basic values themselves (not to max(1, ·)): contact LCPs of small
        // time steps have q ~ 1e-3 and solutions ~ 1e-6, where an absolute 1e-9 calls rows
        // tied that are not (a sticking/sliding edge of the woodpecker, Glocker–Studer 2005).
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
        let LexScratch { cands, entry, alive, slot } = lex;
        cands.clear();
        cands.extend(basic().filter(|&v| is_tied(v)));
        if cands.contains(&Var::Z0) {
            return Some((Var::Z0, theta_min));
        }
        self.lex_break(cands, entry, alive, slot);
        let chosen = cands[alive[0]];
        // The unit tests check every tie-break against the rule it replaced.
        #[cfg(test)]
        assert_eq!(chosen, self.lex_break_by_rows(cands), "lazy and row-by-row tie-breaks differ");
        Some((chosen, self.value_of(chosen).max(0.0) / self.dir_of(chosen)))
    }

    /// Harris' second pass (`Lemke::harris`): the bound `θ_H = min (xᵢ⁺ + δ)/dirᵢ` over the
    /// rows with `dirᵢ > tol`, δ = 1e-9 of the largest basic value; among the rows whose ratio
    /// is at most θ_H, z₀ if it is one, else the largest pivot element `dirᵢ`. Called once the
    /// first pass found a blocking row.
    fn harris_pick(&self, tol: f64) -> Option<(Var, f64)> {
        let n = self.n;
        let k = self.k();
        let xscale = self.xz[..k].iter().chain(&self.xw).fold(0.0f64, |a, x| a.max(x.abs()));
        let delta = 1e-9 * if xscale > 0.0 { xscale } else { 1.0 };
        let basic = || {
            self.zvars[..k]
                .iter()
                .copied()
                .chain((0..n).filter(|&i| self.r2_pos[i] == usize::MAX).map(Var::W))
        };
        let bound = basic()
            .filter(|&v| self.dir_of(v) > tol)
            .map(|v| (self.value_of(v).max(0.0) + delta) / self.dir_of(v))
            .fold(f64::INFINITY, f64::min);
        let mut chosen: Option<Var> = None;
        for v in basic() {
            let dir = self.dir_of(v);
            if dir <= tol || self.value_of(v).max(0.0) / dir > bound {
                continue;
            }
            if v == Var::Z0 {
                chosen = Some(v);
                break;
            }
            if chosen.is_none_or(|c| dir > self.dir_of(c)) {
                chosen = Some(v);
            }
        }
        // The first pass's blocking row passes the test, so there is a choice (`None` only
        // through NaN; the caller then keeps the first pass's row).
        chosen.map(|v| (v, self.value_of(v).max(0.0) / self.dir_of(v)))
    }

    /// The lexicographic tie-break (CPS §4.9) among the tied candidates `cands` (z₀ not among
    /// them): the survivor, `cands[alive[0]]`, minimises its row of B⁻¹ divided by its
    /// direction entry (B⁻¹a)ᵢ in lexicographic order, compared column by column with the
    /// relative tolerance [`TIE_TOL`] — the rule of the perturbed right-hand side
    /// q + (ε, ε², …, εⁿ) (CPS §4.9, eq. 4.9.4 and Thm 4.9.5), so no basis repeats.
    ///
    /// The columns of B⁻¹ are computed lazily, one at a time and only at the candidates still
    /// in the running, and the comparison stops as soon as one candidate is left. With B's
    /// structure (module docs of `engine`): column j of B⁻¹ for a row j whose wⱼ is basic is
    /// the unit vector at wⱼ — zero at every other candidate, so it costs O(1) and only ever
    /// eliminates wⱼ; for j at position b of R₂ the entries are T[a, b] at the basic
    /// non-unit variable of position a and −C[i, Z]·T[:, b] at a basic wᵢ (O(k) each, or one
    /// O(n·k) product when many wᵢ are in the running). The old rule built a whole row of
    /// B⁻¹ per candidate (O(k²) each): on M = I with q = −e every pivot ties all the wᵢ, and
    /// the run cost O(n⁴).
    pub(super) fn lex_break(
        &mut self,
        cands: &[Var],
        entry: &mut Vec<f64>,
        alive: &mut Vec<usize>,
        slot: &mut [usize],
    ) {
        let (n, k) = (self.n, self.k());
        entry.clear();
        entry.resize(cands.len(), 0.0);
        alive.clear();
        alive.extend(0..cands.len());
        for (c, &var) in cands.iter().enumerate() {
            if let Var::W(i) = var {
                slot[i] = c;
            }
        }
        let mut col = 0;
        while alive.len() > 1 && col < n {
            let j = col;
            col += 1;
            let b = self.r2_pos[j];
            if b == usize::MAX {
                // Column j of B⁻¹ is the unit vector at wⱼ: 1/dir at wⱼ, 0 at every other
                // candidate; the minimum is 0, so only wⱼ can drop out (when 1/dir > TIE_TOL).
                let c = slot[j];
                if c != usize::MAX && 1.0 / self.dir_of(cands[c]) > TIE_TOL {
                    alive.retain(|&a| a != c);
                    slot[j] = usize::MAX;
                }
                continue;
            }
            let tb = &self.t[b * n..b * n + k];
            let w_alive = alive.iter().filter(|&&c| matches!(cands[c], Var::W(_))).count();
            let full = w_alive * 8 > n;
            if full {
                // −C[:, Z]·T[:, b] for every row at once.
                matmul(
                    vec_view_mut(&mut self.y),
                    Accum::Replace,
                    col_view(&self.cz, n, n, k),
                    vec_view(tb),
                    -1.0,
                    Par::Seq,
                );
            }
            for &c in alive.iter() {
                let var = cands[c];
                let x = match var {
                    Var::W(i) if full => self.y[i],
                    Var::W(i) => -(0..k).map(|a| self.cz[a * n + i] * tb[a]).sum::<f64>(),
                    _ => tb[self.pos_of(var)],
                };
                entry[c] = x / self.dir_of(var);
            }
            let lo = alive.iter().map(|&c| entry[c]).fold(f64::INFINITY, f64::min);
            let eps = TIE_TOL * (1.0 + lo.abs());
            alive.retain(|&c| {
                let keep = entry[c] <= lo + eps;
                if let (false, Var::W(i)) = (keep, cands[c]) {
                    slot[i] = usize::MAX;
                }
                keep
            });
        }
        for &var in cands {
            if let Var::W(i) = var {
                slot[i] = usize::MAX;
            }
        }
    }

    /// The tie-break as it was before `lex_break`: the whole row of B⁻¹ of every candidate,
    /// divided by its direction entry, compared column by column (O(k²) a candidate). Kept for
    /// the unit tests, which check that the lazy rule makes the same choice at every tie.
    #[cfg(test)]
    fn lex_break_by_rows(&mut self, cands: &[Var]) -> Var {
        let n = self.n;
        let mut rows = vec![0.0; cands.len() * n];
        for (&c, row) in cands.iter().zip(rows.chunks_exact_mut(n.max(1))) {
            row.fill(0.0);
            match c {
                Var::W(i) => {
                    self.row_times_t(i);
                    row[i] = 1.0;
                    for b in 0..self.k() {
                        row[self.r2[b]] = -self.v[b];
                    }
                }
                _ => {
                    let a = self.pos_of(c);
                    for b in 0..self.k() {
                        row[self.r2[b]] = self.t_at(a, b);
                    }
                }
            }
            let piv = self.dir_of(c);
            row.iter_mut().for_each(|x| *x /= piv);
        }
        let mut alive: Vec<usize> = (0..cands.len()).collect();
        let mut col = 0;
        while alive.len() > 1 && col < n {
            let lo = alive.iter().map(|&c| rows[c * n + col]).fold(f64::INFINITY, f64::min);
            let eps = TIE_TOL * (1.0 + lo.abs());
            alive.retain(|&c| rows[c * n + col] <= lo + eps);
            col += 1;
        }
        cands[alive[0]]
    }
}
