//! The pivoting engine: the complementary basis kept as T = S⁻¹ on the z-columns in the
//! basis (rank-one updates, refactored every [`REFRESH`]/`reinvert_every` pivots or on a
//! small pivot), the end of a run (solution or ray). This file holds the types and the storage; the basis
//! inverse is in `basis`, the pivoting in `pivot`, the ratio test in `ratio`. A run
//! is driven pivot by pivot from `mod.rs` (through the shared loop): [`Engine::start`],
//! [`Engine::first_pivot`], then [`Engine::prepare`] and [`Engine::make_pivot`] per pivot.

use faer::{MatMut, MatRef};

use super::dense::LuScratch;

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
}
