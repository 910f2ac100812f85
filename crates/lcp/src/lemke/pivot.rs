//! A run of the [`Engine`] pivot by pivot: the start from a basis, the first pivot on z₀,
//! each further pivot (`prepare`, `make_pivot`, `pivot`), and the end of a run: the solution
//! (with iterative refinement) or the secondary ray.

use faer::linalg::matmul::matmul;
use faer::{Accum, Par};

use super::dense::DenseCols;
use super::engine::*;

impl Engine {
    /// Sets up a run from `start_basis` (the pivots counter restarts at 0). `Solved` when
    /// the starting complementary basis is already feasible (no pivot needed), `Singular`
    /// when a restart's basis cannot be factored, else `Ready`: the first pivot
    /// ([`Engine::first_pivot`]) is next.
    pub(super) fn start(&mut self, m: &DenseCols, q: &[f64], start_basis: Start<'_>) -> Started {
        let n = self.n;
        self.reset(q);
        if let Start::Support(support, d) = start_basis {
            for (a, &j) in support.iter().enumerate() {
                self.zvars.push(Var::Z(j));
                self.xz.push(0.0);
                self.z_pos[j] = a;
                self.r2.push(j);
                self.r2_pos[j] = a;
                self.set_column(m, d, a, Var::Z(j));
            }
            if !self.reinvert() {
                return Started::Singular;
            }
            self.refresh(q);
        }
        let basic_w = (0..n).filter(|&i| self.r2_pos[i] == usize::MAX);
        if self.xz.iter().all(|&x| x >= 0.0) && basic_w.clone().all(|i| self.xw[i] >= 0.0) {
            return Started::Solved; // the starting complementary basis is feasible
        }
        Started::Ready
    }

    /// The first pivot of a run: z₀ enters; its column is −d with B⁻¹d = e (d = e for the
    /// all-w basis, d = B·e otherwise), so every basic value grows at unit rate and z₀ enters
    /// at max(−xᵢ). Ties go to the largest row index, the lexicographic choice for B = I.
    pub(super) fn first_pivot(&mut self, m: &DenseCols, d: &[f64]) {
        let (n, k) = (self.n, self.k());
        let mut leave = Var::Z0;
        let mut best = f64::NEG_INFINITY;
        for i in (0..n).filter(|&i| self.r2_pos[i] == usize::MAX) {
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
    }

    /// Prepares the next pivot: the direction of the entering variable and the lexicographic
    /// ratio test. `Ray` when nothing blocks it, `Singular` when the pivot element is not
    /// usable, else the pivot to make ([`Engine::make_pivot`]).
    pub(super) fn prepare(&mut self, m: &DenseCols, d: &[f64]) -> Next {
        let e = self.entering;
        self.direction(m, d, e);
        let mut lex = std::mem::take(&mut self.lex);
        let blocking = self.ratio_test(&mut lex);
        self.lex = lex;
        let Some((leave, theta)) = blocking else {
            return Next::Ray;
        };
        let pivot = self.dir_of(leave);
        if !pivot.is_finite() || pivot.abs() < 1e-300 {
            return Next::Singular;
        }
        let dir_max = self.dz[..self.k()].iter().chain(&self.dw).fold(0.0f64, |a, x| a.max(x.abs()));
        Next::Pivot(Prepared { leave, theta, pivot, dir_max })
    }

    /// Makes the pivot [`Engine::prepare`] found, with the refactorizations and refreshes
    /// that keep T and the basic values accurate. `true` when z₀ left: the run is solved.
    pub(super) fn make_pivot(&mut self, m: &DenseCols, q: &[f64], d: &[f64], next: Prepared) -> bool {
        let n = self.n;
        let Prepared { leave, theta, pivot, dir_max } = next;
        self.pivot(m, d, self.entering, leave, theta);
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
            return true;
        }
        self.entering = complement(leave);
        false
    }

    /// The value of z₀ (0 when it is not basic).
    pub(super) fn z0(&self) -> f64 {
        if self.z0_pos == usize::MAX {
            0.0
        } else {
            self.xz[self.z0_pos]
        }
    }

    pub(super) fn value_of(&self, var: Var) -> f64 {
        match var {
            Var::W(i) => self.xw[i],
            _ => self.xz[self.pos_of(var)],
        }
    }

    pub(super) fn dir_of(&self, var: Var) -> f64 {
        match var {
            Var::W(i) => self.dw[i],
            _ => self.dz[self.pos_of(var)],
        }
    }

    /// Pivots `e` into the basis in place of `leave`, at entering value `theta`, using the
    /// direction in `dz`/`dw`. Updates values, index sets, the columns C[:, Z] and T = S⁻¹.
    pub(super) fn pivot(&mut self, m: &DenseCols, d: &[f64], e: Var, leave: Var, theta: f64) {
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
    pub(super) fn current_z_into(&self, z: &mut [f64]) {
        fill_z(&self.zvars, &self.xz, z);
    }

    /// The solution after z₀ has left, with two steps of iterative refinement on its support:
    /// the rows in R₂ have wᵢ non-basic, so (Mz + q)ᵢ = 0 there; correct z_Z by T·(Mz+q)[R₂].
    pub(super) fn solution_into(&mut self, m: &DenseCols, q: &[f64], out: &mut [f64]) {
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
    pub(super) fn ray_into(&self, d: &[f64], ray: &mut RayStore) {
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
pub(super) fn fill_z(zvars: &[Var], xz: &[f64], z: &mut [f64]) {
    z.fill(0.0);
    for (a, var) in zvars.iter().enumerate() {
        if let Var::Z(j) = var {
            z[*j] = xz[a].max(0.0);
        }
    }
}
