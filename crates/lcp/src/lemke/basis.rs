//! The basis inverse T = S⁻¹ of the [`Engine`]: the columns of C, the rank-one updates of a
//! pivot, the direction B⁻¹a of the entering column, the refactorization (`reinvert`) and the
//! refresh of the basic values, and the positions of the basic variables.

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, Par};

use super::dense::DenseCols;
use super::engine::*;

impl Engine {
    #[inline]
    pub(super) fn t_at(&self, a: usize, b: usize) -> f64 {
        self.t[b * self.n + a]
    }

    /// C[i, var] for a non-unit column: −M[i, j] for zⱼ, −dᵢ for z₀.
    #[inline]
    pub(super) fn c_entry(m: &DenseCols, d: &[f64], i: usize, var: Var) -> f64 {
        match var {
            Var::Z(j) => -m.at(i, j),
            Var::Z0 => -d[i],
            Var::W(_) => unreachable!("unit columns are not stored in S"),
        }
    }

    /// Writes C[:, var] into column `a` of `cz`.
    pub(super) fn set_column(&mut self, m: &DenseCols, d: &[f64], a: usize, var: Var) {
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
    pub(super) fn minus_c_times(&mut self, coef_is_dz: bool) {
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
    pub(super) fn row_times_t(&mut self, i: usize) {
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
    pub(super) fn rank_one(t: &mut [f64], n: usize, k: usize, x: &[f64], y: &[f64], alpha: f64) {
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
    pub(super) fn direction(&mut self, m: &DenseCols, d: &[f64], e: Var) {
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
    pub(super) fn reinvert(&mut self) -> bool {
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
    pub(super) fn refresh(&mut self, q: &[f64]) {
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

    pub(super) fn pos_of(&self, var: Var) -> usize {
        match var {
            Var::Z(j) => self.z_pos[j],
            Var::Z0 => self.z0_pos,
            Var::W(_) => unreachable!(),
        }
    }

    pub(super) fn set_pos(&mut self, var: Var, a: usize) {
        match var {
            Var::Z(j) => self.z_pos[j] = a,
            Var::Z0 => self.z0_pos = a,
            Var::W(_) => unreachable!(),
        }
    }
}
