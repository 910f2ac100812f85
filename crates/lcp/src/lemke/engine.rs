//! The pivoting engine: the complementary basis kept as T = S⁻¹ on the z-columns in the
//! basis (rank-one updates, refactored every [`REFRESH`]/`reinvert_every` pivots or on a
//! small pivot), the end of a run (solution or ray); the ratio test is in `ratio`. A run
//! is driven pivot by pivot from `mod.rs` (through the shared loop): [`Engine::start`],
//! [`Engine::first_pivot`], then [`Engine::prepare`] and [`Engine::make_pivot`] per pivot.

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};

use super::dense::{DenseCols, LuScratch};

/// Basic values are recomputed from B⁻¹q every this many pivots.
pub const REFRESH: usize = 32;

/// T = S⁻¹ is recomputed from scratch every this many pivots (at least 100, at least n).
pub(super) fn reinvert_every(n: usize) -> usize {
    n.max(100)
}

/// Relative tolerance under which two candidates of the ratio test, or two entries of the
/// lexicographic comparison, count as tied.
pub(super) const TIE_TOL: f64 = 1e-9;

/// A pivot element smaller than this times the largest entry of the entering direction
/// triggers an immediate refactorization of T (instead of trusting the rank-one update).
pub(super) const SMALL_PIVOT: f64 = 1e-4;

/// The last secondary ray, in reused buffers.
#[derive(Default)]
pub(super) struct RayStore {
    pub(super) valid: bool,
    pub(super) z: Vec<f64>,
    pub(super) z0: f64,
    pub(super) dz: Vec<f64>,
    pub(super) dz0: f64,
    pub(super) d: Vec<f64>,
}

/// A restart support of one or two indices (see `restart_supports`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Support {
    pub(super) idx: [usize; 2],
    pub(super) len: usize,
}

impl Support {
    pub(super) fn as_slice(&self) -> &[usize] {
        &self.idx[..self.len]
    }
}

/// How [`Engine::start`] left the basis.
pub(super) enum Started {
    /// The starting basis is feasible: solved without a pivot.
    Solved,
    /// A restart's basis is singular.
    Singular,
    /// The first pivot is next.
    Ready,
}

/// What [`Engine::prepare`] found.
pub(super) enum Next {
    /// No blocking variable: a secondary ray.
    Ray,
    /// The pivot element is not usable.
    Singular,
    /// The pivot to make.
    Pivot(Prepared),
}

/// A pivot found by the ratio test: the leaving variable, the entering value, the pivot
/// element and the largest entry of the direction.
#[derive(Clone, Copy)]
pub(super) struct Prepared {
    pub(super) leave: Var,
    pub(super) theta: f64,
    pub(super) pivot: f64,
    pub(super) dir_max: f64,
}

/// The complement of a variable (z₀ has none; it is its own).
pub(super) fn complement(v: Var) -> Var {
    match v {
        Var::W(i) => Var::Z(i),
        Var::Z(j) => Var::W(j),
        Var::Z0 => Var::Z0,
    }
}

/// Where a run starts: the all-w basis (d is the covering vector as given), or the
/// complementary basis of a support S (zⱼ basic for j ∈ S, wᵢ for i ∉ S) with d = B·e.
#[derive(Clone, Copy)]
pub(super) enum Start<'a> {
    AllW,
    Support(&'a [usize], &'a [f64]),
}

/// A basic variable: `W(i)` is wᵢ, `Z(j)` is zⱼ, `Z0` the artificial z₀.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Var {
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
pub(super) struct Engine {
    pub(super) n: usize,
    /// Non-unit basic variables, by position a (the columns of S).
    pub(super) zvars: Vec<Var>,
    /// Their values.
    pub(super) xz: Vec<f64>,
    /// Rows whose wᵢ is non-basic, by position b (the rows of S).
    pub(super) r2: Vec<usize>,
    /// For each row, its position in `r2`, or `usize::MAX` when wᵢ is basic.
    pub(super) r2_pos: Vec<usize>,
    /// For each zⱼ, its position in `zvars`, or `usize::MAX` when non-basic.
    pub(super) z_pos: Vec<usize>,
    /// Position of z₀ in `zvars` (`usize::MAX` when non-basic).
    pub(super) z0_pos: usize,
    /// Values of the basic wᵢ (indexed by row; meaningless for rows in R₂).
    pub(super) xw: Vec<f64>,
    /// C[:, Z], column-major, stride n.
    pub(super) cz: Vec<f64>,
    /// T = S⁻¹, column-major, stride n.
    pub(super) t: Vec<f64>,
    /// Direction B⁻¹a of the entering column: Z part by position, W part by row.
    pub(super) dz: Vec<f64>,
    pub(super) dw: Vec<f64>,
    /// Scratch vectors of length n.
    pub(super) y: Vec<f64>,
    pub(super) v: Vec<f64>,
    pub(super) u: Vec<f64>,
    pub(super) pivots: usize,
    /// The variable that must enter next.
    pub(super) entering: Var,
    /// Scratch: a z of length n (iterative refinement).
    pub(super) zc: Vec<f64>,
    /// Scratch of the lexicographic ratio test.
    pub(super) lex: LexScratch,
    /// LU storage of `reinvert` and the warm start, and the identity/inverse (k × k, stride k).
    pub(super) lu: LuScratch,
    pub(super) inv: Vec<f64>,
    /// Harris' two-pass ratio test (`Lemke::harris`).
    pub(super) harris: bool,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(0)
    }
}

/// Scratch of the lexicographic ratio test: the tied candidates, the entry of the current
/// column of B⁻¹ for each (scaled by its direction), the candidates still in the running, and
/// for each row i the index in `cands` of the candidate wᵢ while it is in the running
/// (`usize::MAX` otherwise; all `usize::MAX` between ratio tests).
#[derive(Default)]
pub(super) struct LexScratch {
    pub(super) cands: Vec<Var>,
    pub(super) entry: Vec<f64>,
    pub(super) alive: Vec<usize>,
    pub(super) slot: Vec<usize>,
}

pub(super) fn col_view(buf: &[f64], n: usize, rows: usize, cols: usize) -> MatRef<'_, f64> {
    if cols == 0 || rows == 0 {
        return MatRef::from_column_major_slice(&buf[..0], rows, cols);
    }
    MatRef::from_column_major_slice_with_stride(&buf[..(cols - 1) * n + rows], rows, cols, n)
}

pub(super) fn col_view_mut(buf: &mut [f64], n: usize, rows: usize, cols: usize) -> MatMut<'_, f64> {
    if cols == 0 || rows == 0 {
        return MatMut::from_column_major_slice_mut(&mut buf[..0], rows, cols);
    }
    MatMut::from_column_major_slice_with_stride_mut(&mut buf[..(cols - 1) * n + rows], rows, cols, n)
}

pub(super) fn vec_view(v: &[f64]) -> MatRef<'_, f64> {
    MatRef::from_column_major_slice(v, v.len(), 1)
}

pub(super) fn vec_view_mut(v: &mut [f64]) -> MatMut<'_, f64> {
    let len = v.len();
    MatMut::from_column_major_slice_mut(v, len, 1)
}

impl Engine {
    pub(super) fn new(n: usize) -> Self {
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
                entry: Vec::with_capacity(n + 1),
                alive: Vec::with_capacity(n + 1),
                slot: vec![usize::MAX; n],
            },
            lu: LuScratch::empty(),
            inv: Vec::new(),
            harris: false,
        }
    }

    /// Makes the storage of [`Engine::reinvert`] and the warm-start LU (allocates only the
    /// first time for this size).
    pub(super) fn reserve_refactor(&mut self) {
        self.lu.reserve(self.n);
        if self.inv.len() < self.n * self.n {
            // `vec!` of zeros asks the allocator for zeroed pages (no memset of n² entries).
            self.inv = vec![0.0; self.n * self.n];
        }
    }

    pub(super) fn reset(&mut self, q: &[f64]) {
        self.zvars.clear();
        self.xz.clear();
        self.r2.clear();
        self.r2_pos.fill(usize::MAX);
        self.z_pos.fill(usize::MAX);
        self.z0_pos = usize::MAX;
        self.xw.copy_from_slice(q);
        self.pivots = 0;
    }

    pub(super) fn k(&self) -> usize {
        self.zvars.len()
    }

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
