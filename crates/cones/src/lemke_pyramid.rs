//! `lemke-pyramid`: Lemke's method on the Stewart–Trinkle LCP of a polyhedral friction cone,
//! with pyramid alignment to remove the linearisation error.
//!
//! # The LCP (seed 000 §2.2.1, eq. 2.11–2.16; seed 002 eq. 5–6)
//!
//! Each contact i of dimension d gets a linearisation `D_i = [d_1 … d_{m_i}]` of its cone
//! (`(d−1) × m_i`, points of the section `S_1(1)`, [`Cone::linearize`]; a pyramid returns its
//! own generators): the friction force is `D_i β_i` with `β_i ≥ 0`, `Σ β_i ≤ μ_i c_{n,i}`
//! (seed 000 fig. 2.2). With the dynamics already condensed into the Delassus operator W (the
//! local problem `u = W r + q`, so that the blocks `nᵀM⁻¹n`, `nᵀM⁻¹D̃`, … of eq. 2.16 are
//! `W_NN`, `W_NT D`, …), eq. 2.13–2.15 become the LCP in `z = (c_n ∈ R^nc, β, λ)`:
//!
//! ```text
//!     u_N = W_NN c_n + W_NT Dβ + q_N        ≥ 0  ⊥  c_n ≥ 0
//!     Dᵀ u_T + E λ                           ≥ 0  ⊥  β   ≥ 0     (u_T = W_TN c_n + W_TT Dβ + q_T)
//!     μ c_n − Eᵀ β                           ≥ 0  ⊥  λ   ≥ 0
//! ```
//!
//! `E` is block-diagonal with blocks `e = (1, …, 1)`; `λ_i = max_j (−d_j·u_{T,i})` is the
//! sliding speed seen by the pyramid. Contacts with μ = 0 have no β and no λ. The LCP matrix
//! is `[[PᵀWP, Ê], [Ĥ, 0]]` with `P` mapping `(c_n, β)` to `r`; it is built dense when W is
//! dense and from triplets, block by block, when W is sparse (Lemke densifies it anyway).
//!
//! A solution gives `r_i = (c_{n,i}, D_i β_i)`. When every cone *is* its pyramid (a pyramid
//! law, or any 2-D law, whose section is an interval) the LCP is the contact problem itself
//! and the answer is exact. For a round cone the answer is exact at every contact that takes
//! off (`c_n = 0`) or sticks (`u_T = 0`, λ = 0: the friction force lies in the pyramid, hence
//! in the cone); only the *sliding* contacts carry an error, because their force lies on the
//! pyramid's boundary, on a generator or an edge, instead of at the maximal-dissipation point
//! for `u_T`. Measured on single 3-D Coulomb contacts with random W (tests), the error measure
//! falls like `1/m` for m evenly spread generators (the force's direction is off by up to
//! π/m), not like the `1/m²` of the cones' Hausdorff distance.
//!
//! # Pyramid alignment (refinement)
//!
//! Seed 002 (sphere experiments) observes that Stewart's method matched the exact solution
//! "only because one of the friction directions … corresponded to the exact solution,
//! thereby eliminating the friction linearization error". This solver turns that remark into
//! an iteration. Every sliding contact (c_n > 0, λ > 0, u_T ≠ 0) gets one extra generator
//! `G(n)`, the point of the *true* section `S_1(1)` with outward unit normal n, i.e. the
//! maximal-dissipation force for a slip along `−n` ([`Cone::support`]); the base pyramid is
//! kept, minus base generators closer to it than a quarter of the base spacing, so that no two
//! columns are nearly parallel. Then the LCP is solved again. When `−n` is the exact slip
//! direction, the LCP answer is exact at that contact: the force sits on the vertex
//! `μ c_n G(n)` and `−u_T` lies in the vertex's normal cone. Where to put n:
//!
//! * One **Newton step** on the slip directions of all sliding contacts together, with the
//!   LCP's active set frozen (lifted: r = 0; sticking: u = 0; sliding: `u_N = 0`,
//!   `r = ρ (1, μ G(n))` with n the unit normal of the section at the force). For given
//!   normals this model is a square linear system in the reactions; the equations are
//!   `F_j = E_jᵀ(−u_{T,j}) = 0` (the slip is along the normal; `E_j` an orthonormal basis of
//!   `n_j`'s complement, so one equation per contact in 3-D, two with torsion), the unknowns
//!   the coordinates θ of each normal in the chart `n(θ) = (n + E θ)/‖n + E θ‖`. The Jacobian
//!   costs one LU of the model and one solve per unknown (`∂G/∂θ` by central differences of
//!   [`Cone::support`]). The step starts from the normal at each contact's current force
//!   (exact when the force sits on its aligned generator) and is capped at π/8. The next LCP
//!   checks the active set: a contact that should stick or lift does so there.
//! * If the model is singular: in 3-D a per-contact secant on (force angle, slip angle)
//!   samples, with torsion the maximal-dissipation force for the current slip,
//!   `argmax {−t·u_T : t ∈ S_1(1)}` (a fixed-point iteration).
//!
//! Measured (tests, random problems with W = J M⁻¹ Jᵀ + 10⁻³ I, 3–117 sliding contacts out of
//! 10–200, and a 4-D round law): the Newton placement converges quadratically, from the plain
//! answer's 10⁻²–10⁻³ to below 10⁻¹⁰ in 3–5 LCP solves. Two simpler placements were tried and dropped: adding the
//! maximal-dissipation generator each round (bisection of the bracketing edge, linear rate
//! ≈ 3 per round, and nearly parallel columns that broke Lemke's accuracy), and rotating the
//! whole pyramid onto it (a fixed-point iteration that stalled on 5 of 6 problems).
//!
//! Each LCP after the first is warm started: the complementary basis of the support of the
//! previous answer (the sliding contacts' force moved onto their new generator) is solved
//! with one dense LU and accepted when it is an LCP solution; near convergence the active set
//! does not change and this replaces the Lemke run. Otherwise Lemke starts cold. The loop ends
//! when the problem's error meets `tol`, when no sliding contact moves, when the error has not
//! improved by 1 % for three rounds, or after `refine` rounds; the best iterate is returned.
//!
//! Also a one-shot Stewart–Trinkle solver: `refine: 0`.
//!
//! The report's error is always the problem's own measure ([`FrictionContactProblem::error`],
//! Siconos' for Coulomb), recomputed from the returned r: a solve whose LCP succeeded but
//! whose error exceeds `tol` ends `Stalled` with a message naming the linearisation error.

use crate::cone::{norm, Cone, MAX_DIM};
use crate::problem::{start, FrictionContactProblem, FrictionSolution, FrictionSolver};
use perp_core::{Control, Error, Matrix, Progress, Settings, SolveReport, Status};
use perp_lcp::lemke::Lemke;
use perp_lcp::{Lcp, LcpSolver};
use std::borrow::Cow;
use std::f64::consts::PI;
use std::time::{Duration, Instant};

/// Two generators closer than this (relative, in the section) count as the same.
const SAME_GENERATOR: f64 = 1e-13;

/// Base generators closer to the aligned one than this fraction of the smallest distance
/// between base generators are left out while it is there.
const DISPLACE: f64 = 0.25;

/// After this many LCP solves without a 1 % improvement of the error, alignment stops.
const PATIENCE: usize = 3;

/// An LCP answer whose Lemke error (Siconos' `‖min(z, w)‖/‖q‖`) is at most this is used even
/// when Lemke's own check against `tol` downgraded it.
const LCP_ACCEPT: f64 = 1e-6;

/// Lemke on the Stewart–Trinkle pyramid LCP, with pyramid alignment (registry name
/// `"lemke-pyramid"`; see the module documentation).
///
/// * `facets` — generators of each contact's base pyramid (default 8; ≥ 3 in 3-D and
///   above; 2-D contacts always use the two directions ±t, which are exact).
/// * `refine` — at most this many alignment rounds after the first LCP solve (default 20;
///   0 gives Stewart–Trinkle's plain linearised answer).
///
/// Settings: `tol` on the problem's error; `max_iter` is the total pivot budget over all LCP
/// solves (0: Lemke's default `100·(n+1)` per solve); `time_limit` is checked between solves
/// and its remainder handed to Lemke; `record_history` keeps the error after every LCP solve;
/// the observer is called after every LCP solve that does not meet `tol`. A warm start
/// (length `dim · nc`) gives each contact that slides at it an extra generator at its
/// maximal-dissipation force there.
///
/// ```
/// use perp_cones::{lemke_pyramid::LemkePyramid, FrictionContactProblem, FrictionSolver};
/// use perp_core::{Matrix, Settings, Status};
/// // One 2-D contact, W = I: pressed down (q_N = −1) and pushed sideways hard (q_T = 2):
/// // it slides, r = (1, −μ).
/// let w = Matrix::from_row_major(2, 2, &[1.0, 0.0, 0.0, 1.0]).unwrap();
/// let p = FrictionContactProblem::new(2, w, vec![-1.0, 2.0], vec![0.5]).unwrap();
/// let sol = LemkePyramid::new().solve(&p, None, &Settings::default()).unwrap();
/// assert_eq!(sol.report.status, Status::Solved);
/// assert!((sol.r[0] - 1.0).abs() < 1e-14 && (sol.r[1] + 0.5).abs() < 1e-14);
/// ```
#[derive(Clone, Debug)]
pub struct LemkePyramid {
    /// Generators of each contact's base pyramid (default 8).
    pub facets: usize,
    /// Alignment rounds after the first solve (default 20).
    pub refine: usize,
}

impl Default for LemkePyramid {
    fn default() -> Self {
        LemkePyramid { facets: 8, refine: 20 }
    }
}

impl LemkePyramid {
    /// 8 facets, at most 20 alignment rounds.
    pub fn new() -> Self {
        Self::default()
    }

    fn validate(&self, dim: usize) -> Result<(), Error> {
        if dim >= 3 && self.facets < 3 {
            return Err(Error::setting(
                "facets",
                self.facets,
                "a pyramid around a 3-D (or larger) contact needs at least 3 generators",
            ));
        }
        if self.facets > 4096 {
            return Err(Error::setting("facets", self.facets, "at most 4096 generators per contact"));
        }
        Ok(())
    }
}

/// The linearisation of every contact: a base pyramid, and at sliding contacts one aligned
/// generator. `gens[i]` is the assembled `D_i` (`(d−1) × m_i`, column-major): the base columns
/// not displaced by the aligned one, then the aligned one (last).
struct Generators {
    k: usize,
    base: Vec<Vec<f64>>,
    /// Smallest distance between two base columns of each contact (∞ with fewer than two).
    spacing: Vec<f64>,
    /// The aligned generator `G(n)` and its unit normal n.
    extra: Vec<Option<(Vec<f64>, Vec<f64>)>>,
    gens: Vec<Vec<f64>>,
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt()
}

impl Generators {
    fn new(k: usize, base: Vec<Vec<f64>>) -> Generators {
        // All pairs up to 64 columns, consecutive ones (neighbours in the default orders)
        // beyond.
        let spacing = base
            .iter()
            .map(|b| {
                let cols: Vec<&[f64]> = b.chunks(k).collect();
                let m = cols.len();
                let mut s = f64::INFINITY;
                for a in 0..m {
                    let others = if m <= 64 { a + 1..m } else { a + 1..(a + 2).min(m) };
                    for c in others {
                        s = s.min(dist(cols[a], cols[c]));
                    }
                }
                s
            })
            .collect();
        let gens = base.clone();
        let nc = base.len();
        Generators { k, base, spacing, extra: vec![None; nc], gens }
    }

    fn count(&self, i: usize) -> usize {
        self.gens[i].len() / self.k.max(1)
    }

    fn col(&self, i: usize, j: usize) -> &[f64] {
        &self.gens[i][j * self.k..(j + 1) * self.k]
    }

    /// Sets contact i's aligned generator `t = G(n)` and reassembles `D_i`; `false` when `t`
    /// is already its aligned generator or a base one.
    fn set_extra(&mut self, i: usize, t: &[f64], n: &[f64]) -> bool {
        let same = SAME_GENERATOR * norm(t).max(1e-300);
        if self.extra[i].as_ref().is_some_and(|(e, _)| dist(e, t) <= same) {
            return false;
        }
        if self.extra[i].is_none() && self.base[i].chunks(self.k).any(|c| dist(c, t) <= same) {
            return false;
        }
        let keep = DISPLACE * self.spacing[i];
        let mut d: Vec<f64> =
            self.base[i].chunks(self.k).filter(|c| dist(c, t) >= keep).flatten().copied().collect();
        d.extend_from_slice(t);
        self.gens[i] = d;
        self.extra[i] = Some((t.to_vec(), n.to_vec()));
        true
    }
}

/// Where each unknown of the LCP lives: `z = (c_n, β_0, …, β_{nc−1}, λ)`.
struct Layout {
    beta_off: Vec<usize>,
    lam: Vec<Option<usize>>,
    n1: usize,
    n: usize,
}

impl Layout {
    fn new(g: &Generators, nc: usize) -> Layout {
        let mut beta_off = Vec::with_capacity(nc);
        let mut off = nc;
        for i in 0..nc {
            beta_off.push(off);
            off += g.count(i);
        }
        let n1 = off;
        let mut lam = vec![None; nc];
        for i in 0..nc {
            if g.count(i) > 0 {
                lam[i] = Some(off);
                off += 1;
            }
        }
        Layout { beta_off, lam, n1, n: off }
    }

    /// LCP index of local column a of contact i (a = 0: c_n; a ≥ 1: β_{a−1}).
    fn idx(&self, i: usize, a: usize) -> usize {
        if a == 0 {
            i
        } else {
            self.beta_off[i] + a - 1
        }
    }
}

/// Local column a of `P_i` (`d` entries): `e_N` for a = 0, `(0, d_{a−1})` otherwise.
fn local_col(g: &Generators, i: usize, a: usize, out: &mut [f64; MAX_DIM]) {
    out.fill(0.0);
    if a == 0 {
        out[0] = 1.0;
    } else {
        out[1..=g.k].copy_from_slice(g.col(i, a - 1));
    }
}

/// The Stewart–Trinkle LCP matrix and vector (module docs).
fn build_lcp(p: &FrictionContactProblem, g: &Generators, lay: &Layout) -> Result<Lcp, Error> {
    let (d, nc, n) = (p.dim, p.contacts(), lay.n);
    let mut qv = vec![0.0; n];
    let mut pc = [0.0; MAX_DIM];
    for i in 0..nc {
        for a in 0..=g.count(i) {
            local_col(g, i, a, &mut pc);
            qv[lay.idx(i, a)] = (0..d).map(|l| pc[l] * p.q[d * i + l]).sum();
        }
    }
    let m = match &p.w {
        Matrix::Dense(w) => {
            let dn = d * nc;
            // Y = W P, column by column (P's columns are sparse: one contact each).
            let mut y = vec![0.0; dn * lay.n1];
            for j in 0..nc {
                for b in 0..=g.count(j) {
                    local_col(g, j, b, &mut pc);
                    let col = lay.idx(j, b);
                    let ycol = &mut y[col * dn..(col + 1) * dn];
                    for l in 0..d {
                        if pc[l] != 0.0 {
                            for (yv, wv) in ycol.iter_mut().zip(w.col_as_slice(d * j + l)) {
                                *yv += pc[l] * wv;
                            }
                        }
                    }
                }
            }
            let mut m = faer::Mat::<f64>::zeros(n, n);
            for col in 0..lay.n1 {
                let ycol = &y[col * dn..(col + 1) * dn];
                for i in 0..nc {
                    for a in 0..=g.count(i) {
                        local_col(g, i, a, &mut pc);
                        m[(lay.idx(i, a), col)] = (0..d).map(|l| pc[l] * ycol[d * i + l]).sum();
                    }
                }
            }
            for i in 0..nc {
                if let Some(l) = lay.lam[i] {
                    m[(l, i)] = p.mu[i];
                    for a in 1..=g.count(i) {
                        m[(lay.idx(i, a), l)] = 1.0;
                        m[(l, lay.idx(i, a))] = -1.0;
                    }
                }
            }
            Matrix::Dense(m)
        }
        Matrix::Sparse(_) => {
            let csr = match &p.w {
                Matrix::Sparse(s) if s.is_csr() => Cow::Borrowed(s),
                other => Cow::Owned(other.to_csr()),
            };
            let mut t: Vec<(usize, usize, f64)> = Vec::new();
            let mut slot = vec![usize::MAX; nc];
            let mut blocks: Vec<(usize, [f64; MAX_DIM * MAX_DIM])> = Vec::new();
            let mut wb = [0.0; MAX_DIM];
            for i in 0..nc {
                // Gather the d×d blocks W_ij of block row i.
                for l in 0..d {
                    if let Some(row) = csr.outer_view(d * i + l) {
                        for (col, &v) in row.iter() {
                            let j = col / d;
                            if slot[j] == usize::MAX {
                                slot[j] = blocks.len();
                                blocks.push((j, [0.0; MAX_DIM * MAX_DIM]));
                            }
                            blocks[slot[j]].1[l * d + col % d] += v;
                        }
                    }
                }
                for (j, blk) in &blocks {
                    for b in 0..=g.count(*j) {
                        local_col(g, *j, b, &mut pc);
                        for l in 0..d {
                            wb[l] = (0..d).map(|c| blk[l * d + c] * pc[c]).sum();
                        }
                        for a in 0..=g.count(i) {
                            let mut pa = [0.0; MAX_DIM];
                            local_col(g, i, a, &mut pa);
                            let v: f64 = (0..d).map(|l| pa[l] * wb[l]).sum();
                            if v != 0.0 {
                                t.push((lay.idx(i, a), lay.idx(*j, b), v));
                            }
                        }
                    }
                }
                for (j, _) in &blocks {
                    slot[*j] = usize::MAX;
                }
                blocks.clear();
            }
            for i in 0..nc {
                if let Some(l) = lay.lam[i] {
                    t.push((l, i, p.mu[i]));
                    for a in 1..=g.count(i) {
                        t.push((lay.idx(i, a), l, 1.0));
                        t.push((l, lay.idx(i, a), -1.0));
                    }
                }
            }
            Matrix::from_triplets(n, n, &t)?
        }
    };
    Lcp::new(m, qv)
}

/// The LCP unknowns by contact.
struct State {
    cn: Vec<f64>,
    beta: Vec<Vec<f64>>,
    lam: Vec<f64>,
}

impl State {
    fn from_z(z: &[f64], g: &Generators, lay: &Layout) -> State {
        let nc = lay.beta_off.len();
        State {
            cn: z[..nc].to_vec(),
            // `Σβ ≤ μ c_n`: a lifted contact's β is 0 (round-off or a degenerate marker otherwise).
            beta: (0..nc)
                .map(|i| {
                    let b = &z[lay.beta_off[i]..lay.beta_off[i] + g.count(i)];
                    if z[i] > 0.0 {
                        b.to_vec()
                    } else {
                        vec![0.0; b.len()]
                    }
                })
                .collect(),
            lam: lay.lam.iter().map(|l| l.map_or(0.0, |l| z[l])).collect(),
        }
    }

    fn to_z(&self, lay: &Layout) -> Vec<f64> {
        let mut z = vec![0.0; lay.n];
        z[..self.cn.len()].copy_from_slice(&self.cn);
        for (i, b) in self.beta.iter().enumerate() {
            z[lay.beta_off[i]..lay.beta_off[i] + b.len()].copy_from_slice(b);
            if let Some(l) = lay.lam[i] {
                z[l] = self.lam[i];
            }
        }
        z
    }

    /// `r_i = (c_{n,i}, D_i β_i)`.
    fn reactions(&self, g: &Generators, d: usize) -> Vec<f64> {
        let nc = self.cn.len();
        let mut r = vec![0.0; d * nc];
        for i in 0..nc {
            r[d * i] = self.cn[i];
            for (j, b) in self.beta[i].iter().enumerate() {
                for (rv, gv) in r[d * i + 1..d * (i + 1)].iter_mut().zip(g.col(i, j)) {
                    *rv += b * gv;
                }
            }
        }
        r
    }
}

/// The warm start of an LCP solve: the complementary basis of the guess's support S, i.e.
/// `M_SS z_S = −q_S`, `z = 0` off S (one dense LU). Accepted when `z ≥ 0` up to round-off
/// (entries down to `−1e-12·max z` are set to 0; a degenerate basic variable comes out as
/// ±1e-16) and Siconos' LCP error is at most `tol`. Near convergence alignment keeps the
/// active set, and this replaces the whole Lemke run.
fn support_solution(lcp: &Lcp, guess: &[f64], tol: f64) -> Option<Vec<f64>> {
    use faer::linalg::solvers::Solve;
    let n = lcp.n();
    let sup: Vec<usize> = (0..n).filter(|&i| guess[i] > 0.0).collect();
    let k = sup.len();
    if k == 0 {
        return None;
    }
    let entry = |i: usize, j: usize| match lcp.m() {
        Matrix::Dense(m) => m[(i, j)],
        other => other.get(i, j),
    };
    let a = faer::Mat::from_fn(k, k, |r, c| entry(sup[r], sup[c]));
    let b = faer::Mat::from_fn(k, 1, |r, _| -lcp.q()[sup[r]]);
    let x = a.partial_piv_lu().solve(&b);
    let mut z = vec![0.0; n];
    let zmax = (0..k).map(|r| x[(r, 0)].abs()).fold(0.0f64, f64::max);
    for (r, &i) in sup.iter().enumerate() {
        let v = x[(r, 0)];
        if !v.is_finite() || v < -1e-12 * zmax {
            return None;
        }
        z[i] = v.max(0.0);
    }
    let w = lcp.w(&z);
    (lcp.errors(&z, &w).0 <= tol).then_some(z)
}

/// A contact with λ > 0 and β = 0 (lifted, or μ c_n = 0) is degenerate: its tightest β row
/// has a basic β at 0. Marks that β (with the smallest positive number) so that the warm
/// start's complementary basis of the support is not singular.
fn mark_degenerate(g: &Generators, st: &mut State, u: &[f64], d: usize) {
    for i in 0..st.cn.len() {
        if st.lam[i] > 0.0 && g.count(i) > 0 && st.beta[i].iter().all(|&b| b == 0.0) {
            let ut = &u[d * i + 1..d * (i + 1)];
            let dot = |j: usize| -g.col(i, j).iter().zip(ut).map(|(a, b)| a * b).sum::<f64>();
            let j = (0..g.count(i)).max_by(|&a, &b| dot(a).total_cmp(&dot(b))).unwrap_or(0);
            st.beta[i][j] = f64::MIN_POSITIVE;
        }
    }
}

/// Contact i's friction force `t` as `D_i β` with β ≥ 0 on one generator (k = 1) or two
/// (k = 2), for a warm start's sticking contacts; `None` when it is not in the pyramid's span
/// that way (or k ≥ 3).
fn express(g: &Generators, i: usize, t: &[f64]) -> Option<Vec<f64>> {
    let m = g.count(i);
    let mut beta = vec![0.0; m];
    if norm(t) == 0.0 {
        return Some(beta);
    }
    match g.k {
        1 => {
            let j = (0..m).find(|&j| g.col(i, j)[0] * t[0] > 0.0)?;
            beta[j] = t[0] / g.col(i, j)[0];
            Some(beta)
        }
        2 => {
            let mut best: Option<(f64, usize, usize, f64, f64)> = None;
            for a in 0..m {
                for b in a + 1..m {
                    let (ga, gb) = (g.col(i, a), g.col(i, b));
                    let det = ga[0] * gb[1] - ga[1] * gb[0];
                    if det.abs() <= 1e-12 * norm(ga) * norm(gb) {
                        continue;
                    }
                    let ca = (t[0] * gb[1] - t[1] * gb[0]) / det;
                    let cb = (ga[0] * t[1] - ga[1] * t[0]) / det;
                    if ca >= 0.0 && cb >= 0.0 && best.is_none_or(|bb| ca + cb < bb.0) {
                        best = Some((ca + cb, a, b, ca, cb));
                    }
                }
            }
            let (_, a, b, ca, cb) = best?;
            beta[a] = ca;
            beta[b] = cb;
            Some(beta)
        }
        _ => None,
    }
}

/// Memory of the secant alignment at one contact: the force's normal angle ψ_f at the last
/// solve and the gap `ψ_u − ψ_f` to the slip's normal angle.
type Sample = Option<(f64, f64)>;

/// An angle brought to (−π, π].
fn wrap(a: f64) -> f64 {
    let r = a.rem_euclid(2.0 * PI);
    if r > PI {
        r - 2.0 * PI
    } else {
        r
    }
}

/// The point of the section `S_1(1)` (k = 2) with outward normal `(cos ψ, sin ψ)`: the
/// maximal-dissipation force for a slip in direction `−(cos ψ, sin ψ)`.
fn generator_at(cone: &dyn Cone, psi: f64, out: &mut [f64]) {
    cone.support(1.0, &[-psi.cos(), -psi.sin()], out);
}

/// The normal angle of the section's boundary (k = 2) where the ray through `t ≠ 0` leaves
/// it: the ψ at which [`generator_at`] turns past `t` (for a vertex or an edge of a polygon,
/// one of its normals), by bisection on the sign of `generator_at(ψ) × t` over
/// `atan2(t) ± π/2`. One support call for a round cone.
fn normal_angle(cone: &dyn Cone, t: &[f64]) -> f64 {
    let psi0 = t[1].atan2(t[0]);
    let cross = |psi: f64| {
        let mut gp = [0.0; 2];
        generator_at(cone, psi, &mut gp);
        (gp[0] * t[1] - gp[1] * t[0], norm(&gp))
    };
    let (c0, n0) = cross(psi0);
    if c0.abs() <= 1e-15 * n0 * norm(t) {
        return psi0;
    }
    let (mut lo, mut hi) = (psi0 - PI / 2.0, psi0 + PI / 2.0);
    if cross(lo).0 <= 0.0 || cross(hi).0 >= 0.0 {
        return psi0;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if cross(mid).0 > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Maps Lemke's failure statuses to the report's, with a message.
fn lemke_failure(status: Status, lcp_n: usize, msg: Option<&str>) -> (Status, String) {
    let detail = msg.map(|m| format!(": {m}")).unwrap_or_default();
    let what = match status {
        Status::RayTermination => "Lemke ended on a secondary ray of the pyramid LCP",
        Status::MaxIterations => "Lemke reached the pivot limit on the pyramid LCP",
        Status::TimeLimit => "Lemke reached the time limit on the pyramid LCP",
        _ => "Lemke failed on the pyramid LCP",
    };
    let status = if status == Status::Solved { Status::NumericalFailure } else { status };
    (status, format!("{what} (size {lcp_n}){detail}"))
}

/// The point of the section `S_1(1)` with outward unit normal `n`: the maximal-dissipation
/// force for a slip along `−n` ([`Cone::support`]).
fn generator(cone: &dyn Cone, n: &[f64], out: &mut [f64]) {
    let mut v = [0.0; MAX_DIM];
    v.iter_mut().zip(n).for_each(|(a, b)| *a = -b);
    cone.support(1.0, &v[..n.len()], out);
}

/// `n + Σ θ_b e_b`, normalised: the directions near `n` (unit) in the chart of an
/// orthonormal tangent basis `e` (`k − 1` vectors of length k, flattened).
fn chart(n: &[f64], e: &[f64], theta: &[f64]) -> Vec<f64> {
    let k = n.len();
    let mut v = n.to_vec();
    for (b, th) in theta.iter().enumerate() {
        v.iter_mut().zip(&e[b * k..(b + 1) * k]).for_each(|(x, eb)| *x += th * eb);
    }
    let s = norm(&v);
    v.iter_mut().for_each(|x| *x /= s);
    v
}

/// An orthonormal basis of the complement of the unit vector `n` (`k − 1` vectors, flattened):
/// `(−n_y, n_x)` for k = 2, Gram–Schmidt on the coordinate axes otherwise.
fn tangent_basis(n: &[f64]) -> Vec<f64> {
    let k = n.len();
    if k == 2 {
        return vec![-n[1], n[0]];
    }
    let mut basis: Vec<Vec<f64>> = vec![n.to_vec()];
    let mut axes: Vec<usize> = (0..k).collect();
    axes.sort_by(|&a, &b| n[a].abs().total_cmp(&n[b].abs()));
    for &ax in axes.iter().take(k - 1) {
        let mut v = vec![0.0; k];
        v[ax] = 1.0;
        for bv in &basis {
            let c: f64 = v.iter().zip(bv).map(|(x, y)| x * y).sum();
            v.iter_mut().zip(bv).for_each(|(x, y)| *x -= c * y);
        }
        let s = norm(&v);
        v.iter_mut().for_each(|x| *x /= s);
        basis.push(v);
    }
    basis[1..].concat()
}

/// What the LCP answer says a contact does, for the Newton model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `c_n = 0`: `r_i = 0`.
    Lift,
    /// `u_i = 0`, `r_i` free.
    Stick,
    /// `u_N = 0`, `r_i = ρ (1, μ G(n))` (or `ρ e_N` without friction).
    Slide,
}

/// One Newton step on the slip directions of the sliding contacts with the LCP's active set
/// frozen (see the module docs). `normal[i]` is the unit normal of the section at each sliding
/// contact's force (`None` elsewhere). The unknowns are the chart coordinates θ of each normal
/// ([`chart`]); the equations `F = Eᵀ(−u_T) = 0` say that the slip is along the normal.
/// Returns the new normals, or `None` when a linear system of the model is singular.
fn newton_normals(
    p: &FrictionContactProblem,
    wd: &faer::Mat<f64>,
    cones: &[std::sync::Arc<dyn Cone>],
    cn: &[f64],
    normal: &[Option<Vec<f64>>],
) -> Option<Vec<Option<Vec<f64>>>> {
    use faer::linalg::solvers::Solve;
    let (d, nc) = (p.dim, p.contacts());
    let (k, n) = (d - 1, d * nc);
    let kind = |i: usize| {
        if cn[i] <= 0.0 {
            Kind::Lift
        } else if normal[i].is_some() || p.mu[i] == 0.0 {
            Kind::Slide
        } else {
            Kind::Stick
        }
    };
    // Unknowns (columns): a vector of r-space each; equations (rows): a component of u each.
    let mut cols: Vec<(usize, [f64; MAX_DIM])> = Vec::new();
    let mut rows: Vec<usize> = Vec::new();
    let mut slides: Vec<(usize, usize, Vec<f64>, Vec<f64>)> = Vec::new(); // (contact, column, n, E)
    for i in 0..nc {
        match kind(i) {
            Kind::Lift => {}
            Kind::Stick => {
                for c in 0..d {
                    let mut v = [0.0; MAX_DIM];
                    v[c] = 1.0;
                    cols.push((i, v));
                    rows.push(d * i + c);
                }
            }
            Kind::Slide => {
                let mut v = [0.0; MAX_DIM];
                v[0] = 1.0;
                if let Some(nv) = &normal[i] {
                    generator(cones[i].as_ref(), nv, &mut v[1..d]);
                    v[1..d].iter_mut().for_each(|x| *x *= p.mu[i]);
                    slides.push((i, cols.len(), nv.clone(), tangent_basis(nv)));
                }
                cols.push((i, v));
                rows.push(d * i);
            }
        }
    }
    let m = cols.len();
    if slides.is_empty() {
        return None;
    }
    let wcol = |row: usize, (i, v): &(usize, [f64; MAX_DIM])| {
        (0..d).map(|l| wd[(row, d * i + l)] * v[l]).sum::<f64>()
    };
    let lu = faer::Mat::from_fn(m, m, |r, c| wcol(rows[r], &cols[c])).partial_piv_lu();
    let x = lu.solve(faer::Mat::from_fn(m, 1, |r, _| -p.q[rows[r]]));
    let mut r = faer::Mat::<f64>::zeros(n, 1);
    for (c, (i, v)) in cols.iter().enumerate() {
        for l in 0..d {
            r[(d * i + l, 0)] += x[(c, 0)] * v[l];
        }
    }
    let mut u = wd * &r;
    for j in 0..n {
        u[(j, 0)] += p.q[j];
    }
    // Derivatives: θ_{l,b} turns column l's friction part: e = ρ_l μ_l ∂G/∂θ_b (central
    // differences of the support function in the chart).
    let nt = slides.len() * (k - 1);
    let h = 1e-7;
    let mut e = faer::Mat::<f64>::zeros(n, nt);
    for (s, (i, c, nv, basis)) in slides.iter().enumerate() {
        for b in 0..k - 1 {
            let mut th = vec![0.0; k - 1];
            let (mut gp, mut gm) = ([0.0; MAX_DIM], [0.0; MAX_DIM]);
            th[b] = h;
            generator(cones[*i].as_ref(), &chart(nv, basis, &th), &mut gp[..k]);
            th[b] = -h;
            generator(cones[*i].as_ref(), &chart(nv, basis, &th), &mut gm[..k]);
            for l in 0..k {
                e[(d * i + 1 + l, s * (k - 1) + b)] = x[(*c, 0)] * p.mu[*i] * (gp[l] - gm[l]) / (2.0 * h);
            }
        }
    }
    let we = wd * &e;
    let dx = lu.solve(faer::Mat::from_fn(m, nt, |rr, s| -we[(rows[rr], s)]));
    let mut dr = e;
    for (c, (i, v)) in cols.iter().enumerate() {
        for s in 0..nt {
            for l in 0..d {
                dr[(d * i + l, s)] += dx[(c, s)] * v[l];
            }
        }
    }
    let du = wd * &dr;
    // F_{j,a} = e_a·(−u_T,j); ∂e_a/∂θ_b = −δ_ab n at θ = 0 gives the diagonal term n·u_T.
    let mut f = faer::Mat::<f64>::zeros(nt, 1);
    let mut jac = faer::Mat::<f64>::zeros(nt, nt);
    for (jj, (j, _, nv, basis)) in slides.iter().enumerate() {
        let ut: Vec<f64> = (0..k).map(|l| u[(d * j + 1 + l, 0)]).collect();
        let n_dot_u: f64 = nv.iter().zip(&ut).map(|(a, b)| a * b).sum();
        for a in 0..k - 1 {
            let ea = &basis[a * k..(a + 1) * k];
            let row = jj * (k - 1) + a;
            f[(row, 0)] = -ea.iter().zip(&ut).map(|(x, y)| x * y).sum::<f64>();
            for col in 0..nt {
                jac[(row, col)] = -(0..k).map(|l| ea[l] * du[(d * j + 1 + l, col)]).sum::<f64>();
            }
            jac[(row, row)] += n_dot_u;
        }
    }
    let step = jac.partial_piv_lu().solve(&f);
    let big = (0..nt).map(|s| step[(s, 0)].abs()).fold(0.0f64, f64::max);
    if !big.is_finite() || !(0..m).all(|c| x[(c, 0)].is_finite()) {
        return None;
    }
    let scale = if big > PI / 8.0 { PI / 8.0 / big } else { 1.0 };
    let mut out = vec![None; nc];
    for (s, (i, _, nv, basis)) in slides.iter().enumerate() {
        let th: Vec<f64> = (0..k - 1).map(|b| -scale * step[(s * (k - 1) + b, 0)]).collect();
        out[*i] = Some(chart(nv, basis, &th));
    }
    Some(out)
}

impl LemkePyramid {
    /// The unit normal of the section at contact i's friction force: its aligned generator's
    /// when the force sits there; for k = 2 by [`normal_angle`]; for k ≥ 3 the force's own
    /// direction (exact for a round section); `−u_T` when the force is 0.
    fn force_normal(g: &Generators, st: &State, i: usize, cone: &dyn Cone, ut: &[f64]) -> Vec<f64> {
        let k = g.k;
        let beta = &st.beta[i];
        let total: f64 = beta.iter().sum();
        if let Some((_, ne)) = &g.extra[i] {
            if beta[beta.len() - 1] >= (1.0 - 1e-12) * total {
                return ne.clone();
            }
        }
        let mut f = vec![0.0; k];
        for (j, b) in beta.iter().enumerate() {
            f.iter_mut().zip(g.col(i, j)).for_each(|(x, c)| *x += b * c);
        }
        let (sf, su) = (norm(&f), norm(ut));
        if sf == 0.0 {
            ut.iter().map(|v| -v / su).collect()
        } else if k == 2 {
            let psi = normal_angle(cone, &f);
            vec![psi.cos(), psi.sin()]
        } else {
            f.iter().map(|v| v / sf).collect()
        }
    }

    /// The per-contact secant estimate of the exact direction (k = 2; the fallback of the
    /// Newton step): through the last two samples (force angle, gap to the slip's angle).
    fn secant_normal(n_f: &[f64], ut: &[f64], sample: &mut Sample) -> Vec<f64> {
        let psi_f = n_f[1].atan2(n_f[0]);
        let gap = wrap((-ut[1]).atan2(-ut[0]) - psi_f);
        let mut step = gap;
        if let Some((pf0, g0)) = *sample {
            let (dpsi, dg) = (wrap(psi_f - pf0), gap - g0);
            let s = -gap * dpsi / dg;
            if dpsi != 0.0 && s.is_finite() && s.abs() <= PI / 4.0 {
                step = s;
            }
        }
        *sample = Some((psi_f, gap));
        let psi = psi_f + step;
        vec![psi.cos(), psi.sin()]
    }

    /// Makes `G(n)` contact i's aligned generator and puts the warm guess `β_i = μ c_n` on it;
    /// returns whether the generators changed.
    fn place(g: &mut Generators, st: &mut State, i: usize, cone: &dyn Cone, n: &[f64], mu: f64) -> bool {
        let mut t = [0.0; MAX_DIM];
        generator(cone, n, &mut t[..g.k]);
        let t = &t[..g.k];
        if !t.iter().all(|v| v.is_finite()) || norm(t) == 0.0 || !g.set_extra(i, t, n) {
            return false;
        }
        let m = g.count(i);
        st.beta[i] = vec![0.0; m];
        st.beta[i][m - 1] = mu * st.cn[i];
        true
    }

    fn run(
        &self,
        p: &FrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<FrictionSolution, Error> {
        let r0 = start(p, warm, s)?;
        self.validate(p.dim)?;
        let t0 = Instant::now();
        let (d, nc) = (p.dim, p.contacts());
        let k = d - 1;
        let cones = p.cone_objects()?;
        let mut report = SolveReport::new("lemke-pyramid");

        // Base pyramids.
        let mut base = Vec::with_capacity(nc);
        for (i, cone) in cones.iter().enumerate() {
            let dm = if p.mu[i] > 0.0 { cone.linearize(self.facets) } else { Vec::new() };
            if dm.len() % k != 0 || dm.iter().any(|v| !v.is_finite()) {
                return Err(Error::Numerical {
                    solver: "lemke-pyramid".into(),
                    message: format!(
                        "contact {i}: the linearisation of cone {} has {} entries, not finite values \
                         in columns of {k}",
                        cone.name(),
                        dm.len()
                    ),
                });
            }
            base.push(dm);
        }
        let mut g = Generators::new(k, base);
        let mut st = State {
            cn: vec![0.0; nc],
            beta: (0..nc).map(|i| vec![0.0; g.count(i)]).collect(),
            lam: vec![0.0; nc],
        };
        let mut samples: Vec<Sample> = vec![None; nc];
        let mut wd: Option<faer::Mat<f64>> = None;
        let mut lcp_warm = false;
        if warm.is_some() {
            // The warm start orients the pyramids (a contact sliding there gets its aligned
            // generator) and gives the first LCP its guessed support.
            let u0 = p.velocity(&r0);
            let scale = u0.iter().chain(&p.q).fold(0.0f64, |a, v| a.max(v.abs())).max(f64::MIN_POSITIVE);
            let frictional: Vec<usize> = (0..nc).filter(|&i| g.count(i) > 0).collect();
            for i in frictional {
                let ut = &u0[d * i + 1..d * (i + 1)];
                let (cn, rt) = (r0[d * i].max(0.0), &r0[d * i + 1..d * (i + 1)]);
                st.cn[i] = cn;
                let slides = cn > 0.0 && norm(ut) > 1e-9 * scale;
                if slides {
                    st.lam[i] = cones[i].support(1.0, ut, &mut [0.0; MAX_DIM][..k]);
                }
                if slides && k >= 2 {
                    let n: Vec<f64> = ut.iter().map(|v| -v / norm(ut)).collect();
                    Self::place(&mut g, &mut st, i, cones[i].as_ref(), &n, p.mu[i]);
                } else if cn > 0.0 {
                    if let Some(b) = express(&g, i, rt) {
                        st.beta[i] = b;
                    }
                } else {
                    st.lam[i] = (0..g.count(i))
                        .map(|j| -g.col(i, j).iter().zip(ut).map(|(a, b)| a * b).sum::<f64>())
                        .fold(0.0, f64::max);
                }
            }
            for i in (0..nc).filter(|&i| g.count(i) == 0) {
                st.cn[i] = r0[d * i].max(0.0);
            }
            mark_degenerate(&g, &mut st, &u0, d);
            lcp_warm = true;
        }

        let mut best: Option<(Vec<f64>, f64)> = None;
        let mut solves = 0usize;
        let mut since_better = 0usize;
        let mut last_lcp_n = 0;
        let (status, message) = loop {
            // Limits, checked between LCP solves.
            let time_left = match s.time_limit {
                Some(tl) => {
                    let left = tl.saturating_sub(t0.elapsed());
                    if left == Duration::ZERO {
                        break (Status::TimeLimit, format!("time limit reached after {solves} LCP solve(s)"));
                    }
                    Some(left)
                }
                None => None,
            };
            let pivot_budget = if s.max_iter > 0 {
                let left = s.max_iter.saturating_sub(report.pivots);
                if left == 0 {
                    break (
                        Status::MaxIterations,
                        format!("pivot budget {} spent after {solves} LCP solve(s)", s.max_iter),
                    );
                }
                left
            } else {
                0
            };
            let lay = Layout::new(&g, nc);
            last_lcp_n = lay.n;
            let lcp = build_lcp(p, &g, &lay)?;
            let z0 = lcp_warm.then(|| st.to_z(&lay));
            let ls = Settings {
                tol: s.tol,
                max_iter: pivot_budget,
                time_limit: time_left,
                record_history: false,
                observer: None,
            };
            let sol = match z0.as_deref().and_then(|z| support_solution(&lcp, z, s.tol.min(1e-10))) {
                Some(z) => {
                    let mut rep = SolveReport::new("lemke");
                    rep.status = Status::Solved;
                    rep.factorizations = 1;
                    lcp.solution(z, rep, s.tol)
                }
                None => Lemke::new().solve(&lcp, None, &ls)?,
            };
            solves += 1;
            report.pivots += sol.report.pivots;
            report.factorizations += sol.report.factorizations;
            let lcp_ok = sol.report.status == Status::Solved || sol.report.error <= LCP_ACCEPT;
            if !lcp_ok {
                // Keep the best answer so far (none on the first solve: Lemke's point then).
                if best.is_none() {
                    let r = State::from_z(&sol.z, &g, &lay).reactions(&g, d);
                    let err = p.error(&r, &p.velocity(&r));
                    best = Some((r, err));
                }
                let (status, msg) = lemke_failure(sol.report.status, lay.n, sol.report.message.as_deref());
                let kept = best.as_ref().map_or(f64::NAN, |b| b.1);
                break (
                    status,
                    format!("{msg}; LCP solve {solves}, returning the best answer (error {kept:.1e})"),
                );
            }
            st = State::from_z(&sol.z, &g, &lay);
            let r = st.reactions(&g, d);
            let u = p.velocity(&r);
            let err = p.error(&r, &u);
            if s.record_history {
                report.history.push(err);
            }
            let improved = best.as_ref().is_none_or(|(_, e)| err < 0.99 * e);
            since_better = if improved { 0 } else { since_better + 1 };
            if best.as_ref().is_none_or(|(_, e)| err < *e) {
                best = Some((r, err));
            }
            if err <= s.tol {
                break (Status::Solved, String::new());
            }
            if let Some(obs) = &s.observer {
                let pr = Progress { iteration: solves, error: err, elapsed: t0.elapsed() };
                if obs(&pr) == Control::Stop {
                    break (
                        Status::Interrupted,
                        format!("stopped by the observer after {solves} LCP solve(s)"),
                    );
                }
            }
            let why_stop = if solves > self.refine {
                Some(format!("{} alignment round(s) done", self.refine))
            } else if since_better >= PATIENCE {
                Some(format!("the error stopped improving over {PATIENCE} alignment rounds"))
            } else {
                None
            };
            mark_degenerate(&g, &mut st, &u, d);
            let mut changed = 0;
            if why_stop.is_none() && k >= 2 {
                let slip = |i: usize| &u[d * i + 1..d * (i + 1)];
                let sliding: Vec<bool> = (0..nc)
                    .map(|i| g.count(i) > 0 && st.cn[i] > 0.0 && st.lam[i] > 0.0 && norm(slip(i)) > 0.0)
                    .collect();
                for i in (0..nc).filter(|&i| !sliding[i]) {
                    samples[i] = None;
                }
                let normals: Vec<Option<Vec<f64>>> = (0..nc)
                    .map(|i| sliding[i].then(|| Self::force_normal(&g, &st, i, cones[i].as_ref(), slip(i))))
                    .collect();
                let wd = wd.get_or_insert_with(|| p.w.to_dense());
                let target = newton_normals(p, wd, &cones, &st.cn, &normals).unwrap_or_else(|| {
                    (0..nc)
                        .map(|i| {
                            let nf = normals[i].as_ref()?;
                            Some(if k == 2 {
                                Self::secant_normal(nf, slip(i), &mut samples[i])
                            } else {
                                slip(i).iter().map(|v| -v / norm(slip(i))).collect()
                            })
                        })
                        .collect()
                });
                for i in (0..nc).filter(|&i| sliding[i]) {
                    if let Some(nv) = &target[i] {
                        changed +=
                            usize::from(Self::place(&mut g, &mut st, i, cones[i].as_ref(), nv, p.mu[i]));
                    }
                }
                lcp_warm = true;
            }
            if why_stop.is_some() || changed == 0 {
                let why = why_stop.unwrap_or_else(|| "no sliding contact left to align".into());
                let best_err = best.as_ref().map_or(f64::NAN, |b| b.1);
                break (
                    Status::Stalled,
                    format!(
                        "pyramid LCP solved ({} facets, {solves} LCP solve(s); {why}) but the {} error is \
                         {best_err:.1e}: linearisation error; raise facets or refine, or use nsgs/ac-newton",
                        self.facets,
                        if p.is_coulomb() { "Coulomb" } else { "problem's" },
                    ),
                );
            }
        };
        let r = match best {
            Some((r, _)) => r,
            None => st.reactions(&g, d),
        };
        report.status = status;
        report.iterations = report.pivots;
        report.message = (!message.is_empty()).then(|| format!("{message} [last LCP size {last_lcp_n}]"));
        report.elapsed = t0.elapsed();
        Ok(p.solution(r, report, s.tol))
    }
}

impl FrictionSolver for LemkePyramid {
    fn name(&self) -> &str {
        "lemke-pyramid"
    }

    fn solve(
        &mut self,
        p: &FrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<FrictionSolution, Error> {
        self.run(p, warm, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ConeSpec;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::sync::Arc;

    /// A random problem `W = J M⁻¹ Jᵀ + εI` (J: `d·nc × ndof`, M diagonal), `q_N ∈ [−1, 0.5]`,
    /// `q_T ∈ [−ts, ts]`, μ ∈ [0.2, 0.8]; W sparse (block pattern kept) when asked.
    pub(super) fn random_problem(
        seed: u64,
        d: usize,
        nc: usize,
        ndof: usize,
        ts: f64,
        sparse: bool,
    ) -> FrictionContactProblem {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = d * nc;
        let j: Vec<f64> = (0..n * ndof).map(|_| rng.random_range(-1.0..=1.0)).collect();
        let minv: Vec<f64> = (0..ndof).map(|_| rng.random_range(0.5..=2.0)).collect();
        let mut w = vec![0.0; n * n];
        for a in 0..n {
            for b in 0..n {
                w[a * n + b] = (0..ndof).map(|k| j[a * ndof + k] * minv[k] * j[b * ndof + k]).sum::<f64>();
            }
            w[a * n + a] += 1e-3;
        }
        let q: Vec<f64> = (0..n)
            .map(|i| if i % d == 0 { rng.random_range(-1.0..=0.5) } else { rng.random_range(-ts..=ts) })
            .collect();
        let mu: Vec<f64> = (0..nc).map(|_| rng.random_range(0.2..=0.8)).collect();
        let wm = if sparse {
            let t: Vec<(usize, usize, f64)> =
                (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).map(|(a, b)| (a, b, w[a * n + b])).collect();
            Matrix::from_triplets(n, n, &t).unwrap()
        } else {
            Matrix::from_row_major(n, n, &w).unwrap()
        };
        FrictionContactProblem::new(d, wm, q, mu).unwrap()
    }

    /// A regular pyramid with `f` faces (turned by 0.3 rad), written here for the tests: its
    /// own projection (by enumeration of the faces), section projection and support.
    #[derive(Debug)]
    struct TestPyramid {
        f: usize,
    }

    impl TestPyramid {
        fn vertex(&self, j: usize) -> [f64; 2] {
            let a = 2.0 * PI * j as f64 / self.f as f64 + 0.3;
            [a.cos(), a.sin()]
        }
        fn normal(&self, j: usize) -> [f64; 2] {
            let a = 2.0 * PI * (j as f64 + 0.5) / self.f as f64 + 0.3;
            [a.cos(), a.sin()]
        }
        fn section(&self, mu: f64, xi: f64, t: &[f64]) -> [f64; 2] {
            let rad = mu * xi.max(0.0);
            let apothem = (PI / self.f as f64).cos();
            if (0..self.f).all(|j| {
                let n = self.normal(j);
                n[0] * t[0] + n[1] * t[1] <= rad * apothem
            }) {
                return [t[0], t[1]];
            }
            let mut best = ([0.0, 0.0], f64::INFINITY);
            for j in 0..self.f {
                let (a, b) = (self.vertex(j), self.vertex((j + 1) % self.f));
                let (a, b) = ([rad * a[0], rad * a[1]], [rad * b[0], rad * b[1]]);
                let e = [b[0] - a[0], b[1] - a[1]];
                let ee = e[0] * e[0] + e[1] * e[1];
                let s = if ee > 0.0 {
                    (((t[0] - a[0]) * e[0] + (t[1] - a[1]) * e[1]) / ee).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let c = [a[0] + s * e[0], a[1] + s * e[1]];
                let dist = (t[0] - c[0]).hypot(t[1] - c[1]);
                if dist < best.1 {
                    best = (c, dist);
                }
            }
            best.0
        }
    }

    impl Cone for TestPyramid {
        fn name(&self) -> String {
            format!("test-pyramid-{}", self.f)
        }
        fn dim(&self) -> usize {
            3
        }
        fn project(&self, mu: f64, x: &[f64], out: &mut [f64]) {
            let apothem = (PI / self.f as f64).cos();
            let inside = x[0] >= 0.0
                && (0..self.f).all(|j| {
                    let n = self.normal(j);
                    n[0] * x[1] + n[1] * x[2] <= mu * apothem * x[0]
                });
            if inside {
                out.copy_from_slice(x);
                return;
            }
            let gen = |j: usize| {
                let v = self.vertex(j % self.f);
                [1.0, mu * v[0], mu * v[1]]
            };
            let dot = |a: &[f64; 3], b: &[f64]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
            let mut best = ([0.0; 3], dot(&[x[0], x[1], x[2]], x));
            let mut consider = |c: [f64; 3]| {
                let dd = (0..3).map(|l| (x[l] - c[l]).powi(2)).sum::<f64>();
                if dd < best.1 {
                    best = (c, dd);
                }
            };
            for j in 0..self.f {
                let (g, h) = (gen(j), gen(j + 1));
                let s = (dot(&g, x) / dot(&g, &g)).max(0.0);
                consider([s * g[0], s * g[1], s * g[2]]);
                let (gg, gh, hh) = (dot(&g, &g), dot(&g, &h), dot(&h, &h));
                let det = gg * hh - gh * gh;
                if det > 1e-14 * gg * hh {
                    let (bx, by) = (dot(&g, x), dot(&h, x));
                    let a = (hh * bx - gh * by) / det;
                    let b = (gg * by - gh * bx) / det;
                    if a >= 0.0 && b >= 0.0 {
                        consider([a * g[0] + b * h[0], a * g[1] + b * h[1], a * g[2] + b * h[2]]);
                    }
                }
            }
            out.copy_from_slice(&best.0);
        }
        fn project_section(
            &self,
            mu: f64,
            xi: f64,
            t: &[f64],
            out: &mut [f64],
            jac_t: Option<&mut [f64]>,
            jac_xi: Option<&mut [f64]>,
        ) {
            out.copy_from_slice(&self.section(mu, xi, t));
            let h = 1e-7;
            if let Some(j) = jac_t {
                for c in 0..2 {
                    let (mut tp, mut tm) = ([t[0], t[1]], [t[0], t[1]]);
                    tp[c] += h;
                    tm[c] -= h;
                    let (p, m) = (self.section(mu, xi, &tp), self.section(mu, xi, &tm));
                    for r in 0..2 {
                        j[r * 2 + c] = (p[r] - m[r]) / (2.0 * h);
                    }
                }
            }
            if let Some(j) = jac_xi {
                let (p, m) = (self.section(mu, xi + h, t), self.section(mu, (xi - h).max(0.0), t));
                let dx = xi + h - (xi - h).max(0.0);
                j[0] = (p[0] - m[0]) / dx;
                j[1] = (p[1] - m[1]) / dx;
            }
        }
        fn support(&self, mu: f64, v: &[f64], t_out: &mut [f64]) -> f64 {
            if v[0] == 0.0 && v[1] == 0.0 {
                t_out.fill(0.0);
                return 0.0;
            }
            let (mut best, mut val) = (0, f64::NEG_INFINITY);
            for j in 0..self.f {
                let p = self.vertex(j);
                let s = -(p[0] * v[0] + p[1] * v[1]);
                if s > val {
                    (best, val) = (j, s);
                }
            }
            let p = self.vertex(best);
            t_out[0] = mu * p[0];
            t_out[1] = mu * p[1];
            mu * val
        }
        fn linearize(&self, _m: usize) -> Vec<f64> {
            (0..self.f).flat_map(|j| self.vertex(j)).collect()
        }
    }

    fn settings(tol: f64) -> Settings {
        Settings { tol, ..Settings::default() }
    }

    /// Whether contact i slides (pushed, with a tangential velocity) in `sol`.
    fn sliding(p: &FrictionContactProblem, sol: &FrictionSolution, i: usize) -> bool {
        let d = p.dim;
        sol.r[d * i] > 1e-12 && norm(&sol.u[d * i + 1..d * (i + 1)]) > 1e-9
    }

    #[test]
    fn test_pyramid_projection_is_a_moreau_decomposition() {
        let c = TestPyramid { f: 5 };
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let x: Vec<f64> = (0..3).map(|_| rng.random_range(-2.0..=2.0)).collect();
            let mut p = [0.0; 3];
            c.project(0.6, &x, &mut p);
            let y: Vec<f64> = (0..3).map(|l| x[l] - p[l]).collect();
            // y ⟂ P(x) and y in the polar cone (y·g ≤ 0 for every generator g).
            assert!((0..3).map(|l| y[l] * p[l]).sum::<f64>().abs() < 1e-12, "{x:?}");
            for j in 0..5 {
                let v = c.vertex(j);
                assert!(y[0] + 0.6 * (v[0] * y[1] + v[1] * y[2]) < 1e-12, "{x:?}");
            }
            assert!(c.contains(0.6, &p, 1e-12));
        }
    }

    #[test]
    fn one_sticking_contact_by_hand() {
        // W = I, q = (−1, 0, 0.1), μ = 0.5: r = (1, 0, −0.1) sticks, well inside the pyramid.
        let w = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
        let p = FrictionContactProblem::new(3, w, vec![-1.0, 0.0, 0.1], vec![0.5]).unwrap();
        let sol = LemkePyramid::new().solve(&p, None, &settings(1e-12)).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        for (a, b) in sol.r.iter().zip([1.0, 0.0, -0.1]) {
            assert!((a - b).abs() < 1e-14, "{:?}", sol.r);
        }
    }

    #[test]
    fn two_d_coulomb_is_solved_exactly() {
        for seed in 0..6 {
            let sparse = seed % 2 == 1;
            let p = random_problem(seed, 2, 12, 10, 1.0, sparse);
            for refine in [0, 20] {
                let sol =
                    LemkePyramid { refine, ..LemkePyramid::new() }.solve(&p, None, &settings(1e-10)).unwrap();
                assert_eq!(sol.report.status, Status::Solved, "seed {seed}: {:?}", sol.report);
                assert!(sol.report.error <= 1e-10);
            }
            let sol = LemkePyramid::new().solve(&p, None, &settings(1e-10)).unwrap();
            assert!((0..12).any(|i| sliding(&p, &sol, i)), "seed {seed}: no sliding contact, a weak test");
        }
    }

    #[test]
    fn pyramid_law_3d_is_solved_exactly_without_alignment() {
        for seed in 0..4 {
            let p = random_problem(100 + seed, 3, 8, 12, 1.0, seed % 2 == 0);
            let cone: Arc<dyn Cone> = Arc::new(TestPyramid { f: 5 });
            let p = p.with_cones(vec![ConeSpec::Custom(cone); 8]).unwrap();
            let sol =
                LemkePyramid { refine: 0, ..LemkePyramid::new() }.solve(&p, None, &settings(1e-10)).unwrap();
            assert_eq!(sol.report.status, Status::Solved, "seed {seed}: {:?}", sol.report);
            assert!((0..8).any(|i| sliding(&p, &sol, i)), "seed {seed}: no sliding contact");
        }
    }

    #[test]
    fn sticking_or_lifting_coulomb_3d_is_exact() {
        // Full-rank W, μ = 2 and small tangential loads: every contact sticks or lifts off, so
        // the first pyramid answer is the Coulomb answer, with no alignment.
        for seed in 0..4 {
            // W' = I + W/20: the normal forces barely push the contacts sideways.
            let p0 = random_problem(200 + seed, 3, 10, 40, 0.05, false);
            let wd = p0.w.to_dense();
            let t: Vec<(usize, usize, f64)> = (0..30)
                .flat_map(|a| (0..30).map(move |b| (a, b)))
                .map(|(a, b)| (a, b, wd[(a, b)] / 20.0 + f64::from(u8::from(a == b))))
                .collect();
            let w = Matrix::from_triplets(30, 30, &t).unwrap();
            let w = if seed % 2 == 0 { w } else { Matrix::Dense(w.to_dense()) };
            let p = FrictionContactProblem::new(3, w, p0.q.clone(), vec![2.0; 10]).unwrap();
            let sol =
                LemkePyramid { refine: 0, ..LemkePyramid::new() }.solve(&p, None, &settings(1e-10)).unwrap();
            assert_eq!(sol.report.status, Status::Solved, "seed {seed}: {:?}", sol.report);
            assert!((0..10).all(|i| !sliding(&p, &sol, i)));
            let pressed = (0..10).filter(|&i| sol.r[3 * i] > 0.0).count();
            assert!((3..10).contains(&pressed), "seed {seed}: {pressed} pressed contacts");
            assert!((0..10).any(|i| norm(&sol.r[3 * i + 1..3 * i + 3]) > 1e-3), "no friction at all");
        }
    }

    /// One contact with a full 3×3 W, pushed sideways hard: it slides.
    fn one_sliding_contact() -> FrictionContactProblem {
        let w = Matrix::from_row_major(3, 3, &[1.5, 0.2, -0.1, 0.2, 1.0, 0.3, -0.1, 0.3, 0.8]).unwrap();
        FrictionContactProblem::new(3, w, vec![-1.0, 1.3, 0.7], vec![0.4]).unwrap()
    }

    #[test]
    fn unaligned_error_falls_like_one_over_m() {
        // Mean Siconos error of the plain Stewart–Trinkle answer over 60 random sliding
        // contacts: the force's direction is off by up to π/m, so the error halves when m
        // doubles (the cones' Hausdorff distance would fall by 4).
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let ms = [8usize, 16, 32, 64];
        let mut mean = [0.0; 4];
        for _ in 0..60 {
            let a: Vec<f64> = (0..9).map(|_| rng.random_range(-1.0..=1.0)).collect();
            let mut w = vec![0.0; 9];
            for i in 0..3 {
                for j in 0..3 {
                    w[i * 3 + j] = (0..3).map(|k| a[i * 3 + k] * a[j * 3 + k]).sum::<f64>();
                }
                w[i * 4] += 0.1;
            }
            let th: f64 = rng.random_range(0.0..2.0 * PI);
            let q = vec![-1.0, 2.0 * th.cos(), 2.0 * th.sin()];
            let p = FrictionContactProblem::new(3, Matrix::from_row_major(3, 3, &w).unwrap(), q, vec![0.3])
                .unwrap();
            for (k, &facets) in ms.iter().enumerate() {
                let sol = LemkePyramid { facets, refine: 0 }.solve(&p, None, &settings(1e-12)).unwrap();
                assert!(sol.report.status != Status::Solved || sol.report.error <= 1e-12);
                mean[k] += sol.report.error / 60.0;
            }
        }
        for k in 1..4 {
            let ratio = mean[k] / mean[k - 1];
            assert!((0.35..0.65).contains(&ratio), "m = {}: ratio {ratio:.3}, means {mean:?}", ms[k]);
        }
        // One sliding contact: Stalled with the linearisation message, then alignment removes it.
        let p = one_sliding_contact();
        let sol = LemkePyramid { facets: 8, refine: 0 }.solve(&p, None, &settings(1e-12)).unwrap();
        assert_eq!(sol.report.status, Status::Stalled, "{:?}", sol.report);
        assert!(sol.report.message.as_deref().unwrap_or("").contains("linearisation error"));
        assert!(sliding(&p, &sol, 0) && sol.report.error > 1e-4);
        let sol = LemkePyramid::new().solve(&p, None, &settings(1e-13)).unwrap();
        assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report);
        // The exact answer: ‖r_T‖ = μ r_N with r_T opposite to u_T.
        let (rt, ut) = (&sol.r[1..3], &sol.u[1..3]);
        assert!((norm(rt) - 0.4 * sol.r[0]).abs() < 1e-12);
        assert!((rt[0] * ut[1] - rt[1] * ut[0]).abs() < 1e-12 && rt[0] * ut[0] + rt[1] * ut[1] < 0.0);
    }

    #[test]
    fn normal_angles_of_round_and_polygonal_sections() {
        let c = crate::Coulomb::new(3).unwrap();
        for a in [0.3, -2.0, 3.0] {
            assert!((normal_angle(&c, &[0.5 * f64::cos(a), 0.5 * f64::sin(a)]) - a).abs() < 1e-15);
        }
        let pyr = TestPyramid { f: 5 };
        // An edge's midpoint: the edge's normal; a vertex: a normal of its cone.
        let (v0, v1) = (pyr.vertex(0), pyr.vertex(1));
        let mid = [0.4 * (v0[0] + v1[0]), 0.4 * (v0[1] + v1[1])];
        let nrm = pyr.normal(0);
        assert!((normal_angle(&pyr, &mid) - nrm[1].atan2(nrm[0])).abs() < 1e-12);
        let mut t = [0.0; 2];
        generator_at(&pyr, normal_angle(&pyr, &[0.3 * v1[0], 0.3 * v1[1]]), &mut t);
        assert!((t[0] - v1[0]).abs() < 1e-12 && (t[1] - v1[1]).abs() < 1e-12);
        assert!((wrap(3.0 * PI) - PI).abs() < 1e-15 && (wrap(-0.5) + 0.5).abs() < 1e-15);
    }

    #[test]
    fn secant_fallback_finds_the_root_of_a_linear_gap() {
        // φ(ψ) = 0.5 + 2(ψ − 0.5): the exact direction is ψ = 0.5.
        let phi = |psi: f64| 0.5 + 2.0 * (psi - 0.5);
        let slip = |psi: f64| [-phi(psi).cos(), -phi(psi).sin()];
        let mut sample = None;
        let n1 = LemkePyramid::secant_normal(&[0.3f64.cos(), 0.3f64.sin()], &slip(0.3), &mut sample);
        assert!((n1[1].atan2(n1[0]) - phi(0.3)).abs() < 1e-14, "first step: the slip's direction");
        let psi1 = n1[1].atan2(n1[0]);
        let n2 = LemkePyramid::secant_normal(&n1, &slip(psi1), &mut sample);
        assert!((n2[1].atan2(n2[0]) - 0.5).abs() < 1e-13);
    }

    #[test]
    fn charts_and_tangent_bases() {
        for n in [vec![0.6, 0.8], vec![0.0, 0.6, 0.8], vec![0.5, -0.5, 0.5, 0.5]] {
            let k = n.len();
            let e = tangent_basis(&n);
            for a in 0..k - 1 {
                let ea = &e[a * k..(a + 1) * k];
                assert!((norm(ea) - 1.0).abs() < 1e-14);
                assert!(ea.iter().zip(&n).map(|(x, y)| x * y).sum::<f64>().abs() < 1e-14);
                for b in 0..a {
                    let eb = &e[b * k..(b + 1) * k];
                    assert!(ea.iter().zip(eb).map(|(x, y)| x * y).sum::<f64>().abs() < 1e-14);
                }
            }
            assert_eq!(chart(&n, &e, &vec![0.0; k - 1]), n);
        }
    }

    #[test]
    fn alignment_reaches_1e8_on_sliding_problems() {
        for seed in 0..4 {
            let mut p = random_problem(300 + seed, 3, 10, 16, 1.0, seed % 2 == 1);
            p.mu[0] = 0.0; // a frictionless contact: no β, no λ
            let s = Settings { tol: 1e-8, record_history: true, ..Settings::default() };
            let plain = LemkePyramid { refine: 0, ..LemkePyramid::new() }.solve(&p, None, &s).unwrap();
            let sol = LemkePyramid::new().solve(&p, None, &s).unwrap();
            assert!(plain.report.error > 1e-4, "seed {seed}: the linearisation error should show");
            assert_eq!(sol.report.status, Status::Solved, "seed {seed}: {:?}", sol.report);
            assert!((0..10).filter(|&i| sliding(&p, &sol, i)).count() >= 2, "seed {seed}");
            assert!(sol.report.history.len() <= 8, "seed {seed}: {:?}", sol.report.history);
        }
    }

    /// The cone `‖r_T‖ ≤ μ r_N` with `d − 1` tangential components (a 4-D stand-in for a round
    /// law with torsion).
    #[derive(Debug)]
    struct Ball {
        d: usize,
    }

    impl Cone for Ball {
        fn name(&self) -> String {
            format!("ball-{}", self.d)
        }
        fn dim(&self) -> usize {
            self.d
        }
        fn project(&self, mu: f64, x: &[f64], out: &mut [f64]) {
            let s = norm(&x[1..]);
            if s <= mu * x[0] {
                out.copy_from_slice(x);
            } else if mu * s <= -x[0] {
                out.fill(0.0);
            } else {
                let a = (mu * s + x[0]) / (mu * mu + 1.0);
                out[0] = a;
                for (o, t) in out[1..].iter_mut().zip(&x[1..]) {
                    *o = mu * a * t / s;
                }
            }
        }
        fn project_section(
            &self,
            mu: f64,
            xi: f64,
            t: &[f64],
            out: &mut [f64],
            _: Option<&mut [f64]>,
            _: Option<&mut [f64]>,
        ) {
            let (rad, s) = (mu * xi.max(0.0), norm(t));
            for (o, v) in out.iter_mut().zip(t) {
                *o = if s <= rad { *v } else { rad * v / s };
            }
        }
        fn support(&self, mu: f64, v: &[f64], t_out: &mut [f64]) -> f64 {
            let s = norm(v);
            for (o, x) in t_out.iter_mut().zip(v) {
                *o = if s > 0.0 { -mu * x / s } else { 0.0 };
            }
            mu * s
        }
    }

    #[test]
    fn four_d_round_law_is_aligned_too() {
        let p = random_problem(700, 4, 6, 12, 1.0, false);
        let cone: Arc<dyn Cone> = Arc::new(Ball { d: 4 });
        let p = p.with_cones(vec![ConeSpec::Custom(cone); 6]).unwrap();
        let s = Settings { tol: 1e-10, record_history: true, ..Settings::default() };
        let plain = LemkePyramid { facets: 20, refine: 0 }.solve(&p, None, &s).unwrap();
        let aligned = LemkePyramid { facets: 20, refine: 20 }.solve(&p, None, &s).unwrap();
        assert!((0..6).any(|i| sliding(&p, &plain, i)));
        assert!(plain.report.error > 1e-4 && plain.report.status == Status::Stalled, "{:?}", plain.report);
        eprintln!(
            "4D plain {:e} aligned {:?} {:e} {:?}",
            plain.report.error, aligned.report.status, aligned.report.error, aligned.report.history
        );
        assert_eq!(aligned.report.status, Status::Solved, "{:?}", aligned.report);
        assert!(aligned.report.history.len() <= 8, "{:?}", aligned.report.history);
    }

    #[test]
    fn trivial_problems() {
        let s = settings(1e-12);
        // No contact at all.
        let p = FrictionContactProblem::new(3, Matrix::from_triplets(0, 0, &[]).unwrap(), vec![], vec![])
            .unwrap();
        let sol = LemkePyramid::new().solve(&p, None, &s).unwrap();
        assert!(sol.r.is_empty() && sol.report.status == Status::Solved);
        // Nothing pressed: r = 0.
        let mut q = random_problem(800, 3, 4, 8, 1.0, false);
        q.q.iter_mut().step_by(3).for_each(|v| *v = v.abs() + 0.1);
        let sol = LemkePyramid::new().solve(&q, None, &s).unwrap();
        assert_eq!(sol.report.status, Status::Solved);
        assert!(sol.r.iter().all(|&v| v == 0.0), "{:?} {:?}", sol.r, q.q);
        // Frictionless everywhere: the LCP is the problem.
        let mut f = random_problem(801, 3, 6, 10, 1.0, true);
        f.mu.iter_mut().for_each(|m| *m = 0.0);
        let sol = LemkePyramid { refine: 0, ..LemkePyramid::new() }.solve(&f, None, &s).unwrap();
        assert_eq!(sol.report.status, Status::Solved, "{:?}", sol.report);
        assert!((0..6).any(|i| sol.r[3 * i] > 0.0));
    }

    #[test]
    fn wrong_warm_start_and_bad_facets_are_errors() {
        let p = one_sliding_contact();
        let e = LemkePyramid::new().solve(&p, Some(&[1.0, 0.0]), &Settings::default()).unwrap_err();
        assert!(e.to_string().contains("warm start"), "{e}");
        let e = LemkePyramid { facets: 2, refine: 0 }.solve(&p, None, &Settings::default()).unwrap_err();
        assert!(e.to_string().contains("facets"), "{e}");
    }

    #[test]
    fn warm_start_at_the_solution_is_cheap() {
        let p = random_problem(400, 3, 10, 16, 1.0, false);
        let s = settings(1e-9);
        let cold = LemkePyramid::new().solve(&p, None, &s).unwrap();
        assert_eq!(cold.report.status, Status::Solved);
        let warm = LemkePyramid::new().solve(&p, Some(&cold.r), &s).unwrap();
        assert_eq!(warm.report.status, Status::Solved, "{:?}", warm.report);
        assert_eq!(warm.report.pivots, 0, "{:?}", warm.report);
        assert!(cold.report.pivots > 0);
        // A 2-D problem too (±t generators).
        let p = random_problem(401, 2, 10, 12, 1.0, false);
        let cold = LemkePyramid::new().solve(&p, None, &s).unwrap();
        let warm = LemkePyramid::new().solve(&p, Some(&cold.r), &s).unwrap();
        assert_eq!(warm.report.status, Status::Solved, "{:?}", warm.report);
        assert_eq!(warm.report.pivots, 0, "{:?}", warm.report);
    }

    #[test]
    fn never_solved_above_tol_and_limits_are_honoured() {
        let p = random_problem(500, 3, 8, 12, 1.0, false);
        for tol in [1e-2, 1e-6, 1e-12, 0.0] {
            for (facets, refine) in [(3, 0), (8, 0), (8, 2), (16, 20)] {
                let sol = LemkePyramid { facets, refine }.solve(&p, None, &settings(tol)).unwrap();
                assert!(sol.report.status != Status::Solved || sol.report.error <= tol, "{:?}", sol.report);
                let again = p.error(&sol.r, &p.velocity(&sol.r));
                assert_eq!(again, sol.report.error);
            }
        }
        let s = Settings { time_limit: Some(Duration::ZERO), ..Settings::default() };
        let sol = LemkePyramid::new().solve(&p, None, &s).unwrap();
        assert_eq!(sol.report.status, Status::TimeLimit);
        let s = Settings { max_iter: 2, ..Settings::default() };
        let sol = LemkePyramid::new().solve(&p, None, &s).unwrap();
        assert_eq!(sol.report.status, Status::MaxIterations, "{:?}", sol.report);
        assert!(sol.report.pivots <= 2);
        let s = Settings {
            tol: 1e-14,
            observer: Some(Arc::new(|_: &Progress| Control::Stop)),
            ..Settings::default()
        };
        let sol = LemkePyramid::new().solve(&p, None, &s).unwrap();
        assert_eq!(sol.report.status, Status::Interrupted);
    }

    #[test]
    fn sparse_and_dense_lcps_agree() {
        let pd = random_problem(600, 3, 5, 8, 1.0, false);
        let ps = random_problem(600, 3, 5, 8, 1.0, true);
        let cones = pd.cone_objects().unwrap();
        let base: Vec<Vec<f64>> = cones
            .iter()
            .enumerate()
            .map(|(i, c)| if i == 2 { Vec::new() } else { c.linearize(4 + i) })
            .collect();
        let mut g = Generators::new(2, base);
        // An aligned generator at contact 3 displaces its nearby base generator.
        assert!(g.set_extra(3, &[0.6, 0.8], &[0.6, 0.8]));
        assert_eq!(g.count(3), 7);
        let lay = Layout::new(&g, 5);
        let (a, b) = (build_lcp(&pd, &g, &lay).unwrap(), build_lcp(&ps, &g, &lay).unwrap());
        assert_eq!(a.q(), b.q());
        let (a, b) = (a.m().to_dense(), b.m().to_dense());
        for i in 0..lay.n {
            for j in 0..lay.n {
                assert!((a[(i, j)] - b[(i, j)]).abs() <= 1e-13, "({i}, {j})");
            }
        }
        // Spot check one entry by hand: row c_n of contact 0, column β_0 of contact 1.
        let d1 = g.col(1, 0);
        let want = pd.w.get(0, 4) * d1[0] + pd.w.get(0, 5) * d1[1];
        assert!((a[(0, lay.idx(1, 1))] - want).abs() < 1e-13);
    }
}
