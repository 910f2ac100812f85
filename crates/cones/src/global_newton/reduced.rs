//! The Newton system reduced to the velocities: one sparse LU of order `n_dof` (the pattern of
//! the body graph, M's and one clique per contact) instead of the `n_dof + m` of the (v, r)
//! system.
//!
//! With `A = J_r + σ J_u + δ I` (the r columns of the Newton matrix, [`Structure::fill`]),
//! block diagonal, one d × d block per contact (`J_r = I − D`, `J_u = D ρ` with D the
//! derivative of the Alart–Curnier projections, so `A = I + D (σρ − I)`: `σρ I` on a sticking
//! contact, I on a separated one, invertible for σ > 0 in between), the second block row
//! gives `dr = −A⁻¹ (Φ + J_u Hᵀ dv)`, and the first
//!
//! ```text
//!     (M + H G Hᵀ) dv = −(M v − H r − f) − H A⁻¹ Φ,      G = A⁻¹ J_u,
//! ```
//!
//! the Schur complement of the r block (as the interior point's reduced KKT system). A
//! separated contact (`D = 0`) has `G = 0` and drops out; a sticking one has `G = I/σ`. G is
//! not symmetric on sliding contacts (friction's normal-to-tangent coupling), so the matrix
//! is not the body graph's Cholesky's; its *pattern* is symmetric, and it is factored by
//! [`PatternLu`], a block `L D U` with the fill of that Cholesky (AMD order of the bodies'
//! graph, each body's velocities one dense block, pivoting only inside a block). faer's
//! pivoting LU, used before, orders by COLAMD and bounds its fill by `AᵀA`, the graph's second
//! neighbourhood: on `ball-pile 1000`'s harvested step 12 (order 6 000) a factorization took
//! 12 ms there, 5–7 ms with an unblocked `L D U` and 3–4 ms here, and the whole warm
//! `global-ipm` solve 1.05 s instead of 3.1 s with the same 136 iterations. (Iterative refinement with
//! the Cholesky of the symmetric part `M + H sym(G) Hᵀ` was tried: on step 12 it did not
//! converge, and that part turns indefinite as contacts slide.) A pivot that vanishes
//! without pivoting is a breakdown like a singular matrix. The direction is the (v, r)
//! system's in exact arithmetic; the caller checks it against that system by products with
//! M and H ([`Reduced::relative_residual`]) and solves the unreduced system ([`Structure`],
//! built only then), with faer's pivoting LU, when the reduced one breaks down or its solve
//! is not accurate. Reading M and H from the problem instead of from the (v, r) structure
//! (which was built for every solve, about 20 000 small vectors on a pile's island) took a
//! settled step of the exact cones' `ball-pile 1000` from about 19 to 16 ms.
//!
//! On the convex relaxation G is symmetric ([`VelocityFactor`]) and the matrix is the body
//! graph's ([`GraphSystem`]): filled and factored as the interior point's and SAP's are, in
//! the graph's own fill-reducing order, kept while the contact graph repeats. That path reads
//! M and H from the problem and checks its direction against the (v, r) system by products
//! with them, so a settled step's Newton iteration builds no (v, r) structure at all: on
//! `ball-pile 1000` at 1e-8 a settled step's one Newton iteration took 7.4 ms instead of 12.8
//! (temporary timers in the solver, the same steps).

use super::*;
use crate::body_graph::{contact_dofs, BodyGraph};
use crate::global::ContactRows;
use perp_core::linear::{small_lu_solve, small_lu_solve_many, PatternLu, SparseCholesky, SymLower};

/// Iterative refinement steps of a reduced solve at most.
const REFINE_STEPS: usize = 2;

/// The reduced system's relative residual below which a solve is not refined.
const REFINE_TOL: f64 = 1e-12;

/// The convex relaxation's directions ([`GraphSystem::direction`]): refined against the
/// (v, r) system while its relative residual is above this, at most this many times.
const FULL_REFINE_BELOW: f64 = 1e-7;
const FULL_REFINE_STEPS: usize = 3;

/// The factorization of the reduced matrix: [`PatternLu`]'s block `L D U`, or, on the convex
/// relaxation ([`VelocityFactor::symmetric`]), faer's supernodal Cholesky of the lower
/// triangle in the body graph's order ([`BodyGraph`], as the interior point's and SAP's).
///
/// On the relaxation's natural map `Φ = r − P_K(r − ρ u)` with one scalar ρ per contact,
/// `J_r = I − J_P` and `J_u = ρ J_P`, with `J_P` the symmetric Jacobian of the projection on
/// the cone (eigenvalues in [0, 1]); `A = I + δ I + (σρ − 1) J_P` is a polynomial in `J_P`,
/// so `G = A⁻¹ J_u` is symmetric with eigenvalues `ρλ / (1 + δ − λ + σρλ) ≥ 0`, and
/// `M + H G Hᵀ` is symmetric positive definite. Its Cholesky takes half the arithmetic of the
/// `L D U` and reads one triangle.
#[derive(Clone, Debug, Default)]
pub(super) struct VelocityFactor {
    pub(super) lu: PatternLu,
    /// `Some` on the convex relaxation: the Cholesky and the body graph it factors.
    pub(super) chol: Option<(SparseCholesky, Box<GraphSystem>)>,
}

/// The convex relaxation's reduced system on the body graph: the graph, the matrix's values,
/// the contacts' blocks and kept storage. It reads M and H from the problem; the (v, r)
/// system ([`Structure`]) is built only when a direction falls back to it.
#[derive(Clone, Debug, Default)]
pub(super) struct GraphSystem {
    graph: BodyGraph,
    values: Vec<f64>,
    /// Per contact: `G = A⁻¹ J_u` (d × d, row-major) and `A⁻¹ Φ` (d).
    g: Vec<f64>,
    ainv_phi: Vec<f64>,
    /// H's contact rows when H is not kept by columns ([`GraphSystem::prepare`]).
    rows: Vec<Row>,
    /// Scratch: the fill's, a vector in the graph's order and a product there, the
    /// right-hand side, `Hᵀ Δv`, and a velocity vector.
    t: Vec<f64>,
    ordered: Vec<f64>,
    product: Vec<f64>,
    b: Vec<f64>,
    hv: Vec<f64>,
    y: Vec<f64>,
    /// The (v, r) system's residual at the direction, a correction and a trial direction.
    rho: Vec<f64>,
    corr: Vec<f64>,
    trial: Vec<f64>,
}

impl VelocityFactor {
    /// The Cholesky of the convex relaxation's reduced matrix.
    pub(super) fn symmetric() -> Self {
        VelocityFactor { lu: PatternLu::new(), chol: Some((BodyGraph::cholesky(), Box::default())) }
    }

    /// The symbolic analyses so far.
    pub(super) fn analyses(&self) -> usize {
        self.lu.analyses() + self.chol.as_ref().map_or(0, |(c, _)| c.analyses())
    }
}

/// The reduced matrix's pattern and what a fill reads: where M's entries and each contact's
/// clique go, and the contacts' H rows. [`GlobalNewton`] keeps it from solve to solve: a
/// problem whose M and contacts touch the same velocities (a time step whose contact graph
/// repeats) takes it with its values renewed ([`Reduced::renew`]).
#[derive(Clone, Debug)]
pub(super) struct Reduced {
    n: usize,
    d: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    /// M's entries: (position, value), column by column.
    m_pos: Vec<(usize, f64)>,
    /// M's pattern: each column's rows, one column after the other, with the columns' ends.
    m_rows: Vec<usize>,
    m_ends: Vec<usize>,
    /// Per contact, where its velocities start in `dofs` (`contacts + 1` entries).
    starts: Vec<usize>,
    /// The contacts' velocities, one contact after the other (ascending within a contact).
    dofs: Vec<usize>,
    /// `H[dofs[a], c·d + b]` at `a·d + b` from `d · starts[c]`.
    h: Vec<f64>,
    /// Positions of contact c's clique entries `(dofs[a], dofs[b])` at `a·k + b` from the sum
    /// of the earlier contacts' `k²`.
    pos: Vec<usize>,
    values: Vec<f64>,
    /// Per contact: `A⁻¹ Φ` (d), `G = A⁻¹ J_u` (d × d, row-major).
    ainv_phi: Vec<f64>,
    g: Vec<f64>,
    /// Kept storage: a clique's `H_c G_c` (k × d), a residual; the right-hand side; the
    /// (v, r) system's residual's.
    t: Vec<f64>,
    b: Vec<f64>,
    scratch: Scratch,
}

/// What [`Reduced`] reads from a problem: M by columns (all stored entries, rows ascending)
/// and each contact's velocities (ascending, where they start per contact) with its H rows on
/// them (`H[dofs[a], c·d + b]` at `a·d + b` from `d · starts[c]`).
struct Source {
    n: usize,
    d: usize,
    m_ptr: Vec<usize>,
    m_idx: Vec<usize>,
    m_val: Vec<f64>,
    starts: Vec<usize>,
    dofs: Vec<usize>,
    h: Vec<f64>,
}

impl Source {
    fn of(g: &GlobalFrictionContactProblem) -> Source {
        let (n, d) = (g.dofs(), g.dim);
        let mcsc = g.m.to_csr().to_csc();
        let (mut m_ptr, mut m_idx, mut m_val) = (Vec::with_capacity(n + 1), Vec::new(), Vec::new());
        m_ptr.push(0);
        for j in 0..n {
            if let Some(c) = mcsc.outer_view(j) {
                for (i, &v) in c.iter() {
                    m_idx.push(i);
                    m_val.push(v);
                }
            }
            m_ptr.push(m_idx.len());
        }
        let mut kept = Vec::new();
        let (starts, dofs, h) = match g.contact_rows_in(&mut kept) {
            ContactRows::Columns(c) => contact_dofs(&c, d, g.contacts()),
            ContactRows::Rows(r) => contact_dofs(r, d, g.contacts()),
        };
        Source { n, d, m_ptr, m_idx, m_val, starts, dofs, h }
    }
}

/// Kept storage of a (v, r) residual ([`vr_residual`]): `Hᵀ Δv`, two velocity vectors and
/// the residual.
#[derive(Clone, Debug, Default)]
struct Scratch {
    hv: Vec<f64>,
    y: Vec<f64>,
    b: Vec<f64>,
    rho: Vec<f64>,
}

impl Reduced {
    /// The pattern of `M + H G Hᵀ` for the problem `g` (columns sorted, both triangles), read
    /// from M and H: no (v, r) [`Structure`] is built.
    pub(super) fn new(g: &GlobalFrictionContactProblem) -> Reduced {
        let src = Source::of(g);
        Self::build(src)
    }

    /// This pattern with the values of `g` when its M and its contacts touch the same
    /// velocities as the last problem's (then only M's values and H's rows are read: the
    /// same numbers in the same places as [`Reduced::new`]'s), else [`Reduced::new`]'s.
    pub(super) fn renew(mut self, g: &GlobalFrictionContactProblem) -> Reduced {
        let src = Source::of(g);
        let same_m = self.n == src.n && src.m_ptr[1..] == self.m_ends[..] && src.m_idx == self.m_rows;
        if !(same_m && self.d == src.d && src.starts == self.starts && src.dofs == self.dofs) {
            return Self::build(src);
        }
        self.m_pos.iter_mut().zip(&src.m_val).for_each(|(e, &v)| e.1 = v);
        // The same contacts and d: the per-contact storage keeps its size.
        self.h = src.h;
        self
    }

    /// [`Reduced::new`] from the problem's [`Source`].
    fn build(src: Source) -> Reduced {
        let Source { n, d, m_ptr, m_idx, m_val, starts, dofs, h } = src;
        let nc = starts.len() - 1;
        // The contacts touching each velocity, ascending (compressed).
        let mut inc_ptr = vec![0usize; n + 1];
        for &j in &dofs {
            inc_ptr[j + 1] += 1;
        }
        for j in 0..n {
            inc_ptr[j + 1] += inc_ptr[j];
        }
        let mut inc = vec![0usize; dofs.len()];
        let mut next = inc_ptr.clone();
        for c in 0..nc {
            for &j in &dofs[starts[c]..starts[c + 1]] {
                inc[next[j]] = c;
                next[j] += 1;
            }
        }
        // Each column's rows: M's column and the cliques of the contacts touching it, each row
        // once (marked by the column that last took it), sorted.
        let mut col_ptr = Vec::with_capacity(n + 1);
        let mut row_idx = Vec::new();
        let mut mark = vec![usize::MAX; n];
        col_ptr.push(0);
        for j in 0..n {
            let first = row_idx.len();
            for &i in &m_idx[m_ptr[j]..m_ptr[j + 1]] {
                if mark[i] != j {
                    mark[i] = j;
                    row_idx.push(i);
                }
            }
            for &c in &inc[inc_ptr[j]..inc_ptr[j + 1]] {
                for &i in &dofs[starts[c]..starts[c + 1]] {
                    if mark[i] != j {
                        mark[i] = j;
                        row_idx.push(i);
                    }
                }
            }
            row_idx[first..].sort_unstable();
            col_ptr.push(row_idx.len());
        }
        let at = |i: usize, j: usize| {
            let s = &row_idx[col_ptr[j]..col_ptr[j + 1]];
            col_ptr[j] + s.binary_search(&i).unwrap_or(0)
        };
        let m_pos = (0..n)
            .flat_map(|j| (m_ptr[j]..m_ptr[j + 1]).map(move |k| (k, j)))
            .map(|(k, j)| (at(m_idx[k], j), m_val[k]))
            .collect();
        let mut pos = Vec::new();
        for c in 0..nc {
            let mine = &dofs[starts[c]..starts[c + 1]];
            for &ja in mine {
                pos.extend(mine.iter().map(|&jb| at(ja, jb)));
            }
        }
        Reduced {
            n,
            d,
            col_ptr,
            row_idx,
            m_pos,
            m_rows: m_idx,
            m_ends: m_ptr[1..].to_vec(),
            starts,
            dofs,
            h,
            pos,
            values: Vec::new(),
            ainv_phi: vec![0.0; nc * d],
            g: vec![0.0; nc * d * d],
            t: Vec::new(),
            b: Vec::new(),
            scratch: Scratch::default(),
        }
    }

    /// The Newton direction into `step` (velocities, then reactions) for the Jacobian blocks
    /// `jr`, `ju`, the r columns' `delta` and `sigma` ([`Structure::fill`]) and `res = F`:
    /// `Err` when a contact's `A` or the reduced matrix is singular.
    pub(super) fn direction(
        &mut self,
        (jr, ju): (&[f64], &[f64]),
        (delta, sigma): (f64, f64),
        res: &[f64],
        step: &mut [f64],
        lu: &mut PatternLu,
        report: &mut SolveReport,
    ) -> Result<(), ()> {
        let (n, d, dd) = (self.n, self.d, self.d * self.d);
        let nc = self.starts.len() - 1;
        let (e, phi) = res.split_at(n);
        contact_blocks(d, (jr, ju), (delta, sigma), phi, (&mut self.g, &mut self.ainv_phi))?;
        self.fill();
        let (dv, dr) = step.split_at_mut(n);
        dv.iter_mut().zip(e).for_each(|(s, x)| *s = -x);
        for c in 0..nc {
            let (k0, k1) = (self.starts[c], self.starts[c + 1]);
            let w = &self.ainv_phi[c * d..(c + 1) * d];
            for (a, &j) in self.dofs[k0..k1].iter().enumerate() {
                let hr = &self.h[(k0 + a) * d..(k0 + a + 1) * d];
                dv[j] -= hr.iter().zip(w).map(|(x, y)| x * y).sum::<f64>();
            }
        }
        report.factorizations += 1;
        self.lu_solve(lu, dv)?;
        for c in 0..nc {
            let (k0, k1) = (self.starts[c], self.starts[c + 1]);
            let mut hv = [0.0; MAX_DIM];
            for (a, &j) in self.dofs[k0..k1].iter().enumerate() {
                for (b, hb) in hv[..d].iter_mut().enumerate() {
                    *hb += self.h[(k0 + a) * d + b] * dv[j];
                }
            }
            let gc = &self.g[c * dd..(c + 1) * dd];
            for row in 0..d {
                let ghv: f64 = (0..d).map(|b| gc[row * d + b] * hv[b]).sum();
                dr[c * d + row] = -(self.ainv_phi[c * d + row] + ghv);
            }
        }
        Ok(())
    }

    /// The reduced system `(M + H G Hᵀ) x = b` (`b` in `x`) by the block `L D U` of
    /// [`Reduced::fill`]'s matrix, refined against it.
    fn lu_solve(&mut self, lu: &mut PatternLu, dv: &mut [f64]) -> Result<(), ()> {
        lu.factor(self.n, &self.col_ptr, &self.row_idx, &self.values).map_err(|_| ())?;
        self.b.clear();
        self.b.extend_from_slice(dv);
        lu.solve_in_place(dv).map_err(|_| ())?;
        // Iterative refinement: near the answer σ is small, G ~ 1/σ large, and one solve's
        // rounding shows in the (v, r) system's residual.
        let bn = measures::norm2(&self.b);
        for _ in 0..REFINE_STEPS {
            self.t.clear();
            self.t.extend_from_slice(&self.b);
            for (j, &x) in dv.iter().enumerate() {
                for k in self.col_ptr[j]..self.col_ptr[j + 1] {
                    self.t[self.row_idx[k]] -= self.values[k] * x;
                }
            }
            if measures::norm2(&self.t) <= REFINE_TOL * bn {
                break;
            }
            lu.solve_in_place(&mut self.t).map_err(|_| ())?;
            dv.iter_mut().zip(&self.t).for_each(|(x, e)| *x += e);
        }
        Ok(())
    }

    /// `‖K Δ + F‖ / ‖F‖` of the (v, r) system for `step = Δ` and `res = F` (as
    /// [`Structure::relative_residual`] of its matrix), from M, H and the blocks: the check
    /// of a reduced direction, with no (v, r) structure built.
    #[allow(clippy::type_complexity)]
    pub(super) fn relative_residual(
        &mut self,
        g: &GlobalFrictionContactProblem,
        blocks: ((&[f64], &[f64]), (f64, f64)),
        res: &[f64],
        step: &[f64],
    ) -> f64 {
        let Scratch { hv, y, b, rho } = &mut self.scratch;
        hv.clear();
        hv.resize(res.len() - g.dofs(), 0.0);
        g.h.mul_transpose_add(&step[..g.dofs()], hv);
        let r = vr_residual(g, blocks, (res, step), hv, (y, b, rho));
        let f = measures::norm2(res);
        if f > 0.0 {
            r / f
        } else {
            r
        }
    }

    /// The values of `M + H G Hᵀ` for the contacts' `g`.
    fn fill(&mut self) {
        let d = self.d;
        let dd = d * d;
        self.values.clear();
        self.values.resize(self.row_idx.len(), 0.0);
        for &(p, v) in &self.m_pos {
            self.values[p] += v;
        }
        let mut pos0 = 0;
        for c in 0..self.starts.len() - 1 {
            let (k0, k1) = (self.starts[c], self.starts[c + 1]);
            let k = k1 - k0;
            let gc = &self.g[c * dd..(c + 1) * dd];
            let pos = &self.pos[pos0..pos0 + k * k];
            pos0 += k * k;
            if gc.iter().all(|&x| x == 0.0) {
                continue;
            }
            let hc = &self.h[k0 * d..k1 * d];
            // The common dimensions with the products unrolled (the same sums, in the same
            // order).
            match d {
                3 => add_block::<3>(hc, gc, pos, &mut self.values, &mut self.t),
                2 => add_block::<2>(hc, gc, pos, &mut self.values, &mut self.t),
                _ => add_block_dyn(d, hc, gc, pos, &mut self.values, &mut self.t),
            }
        }
    }
}

impl GraphSystem {
    /// Makes the body graph that of `g` ([`BodyGraph::update`]: its ordering and pattern kept
    /// while the contact graph repeats).
    pub(super) fn prepare(&mut self, g: &GlobalFrictionContactProblem) {
        self.graph.update_global(g, &g.contact_rows_in(&mut self.rows));
    }

    /// The Newton direction into `step` (velocities, then reactions), as
    /// [`Reduced::direction`]'s, for the problem of the last [`GraphSystem::prepare`]: `G`
    /// symmetrised (it is symmetric in exact arithmetic, [`VelocityFactor`]), `M + H G Hᵀ`
    /// by the Cholesky, `Δr = −(A⁻¹ Φ + G Hᵀ Δv)`. Returns the (v, r) system's relative
    /// residual `‖K Δ + F‖ / ‖F‖` ([`Structure::relative_residual`]), computed from M, H
    /// and the blocks; `Err` when an `A` or the reduced matrix is singular.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn direction(
        &mut self,
        chol: &mut SparseCholesky,
        g: &GlobalFrictionContactProblem,
        (jr, ju): (&[f64], &[f64]),
        (delta, sigma): (f64, f64),
        res: &[f64],
        step: &mut [f64],
        report: &mut SolveReport,
    ) -> Result<f64, ()> {
        let (n, d) = (g.dofs(), g.dim);
        let dd = d * d;
        let (e, phi) = res.split_at(n);
        self.g.resize(phi.len() * d, 0.0);
        self.ainv_phi.resize(phi.len(), 0.0);
        contact_blocks(d, (jr, ju), (delta, sigma), phi, (&mut self.g, &mut self.ainv_phi))?;
        for gc in self.g.chunks_exact_mut(dd) {
            for row in 0..d {
                for col in 0..row {
                    let m = 0.5 * (gc[row * d + col] + gc[col * d + row]);
                    (gc[row * d + col], gc[col * d + row]) = (m, m);
                }
            }
        }
        let (dv, dr) = step.split_at_mut(n);
        // Δv: (M + H G Hᵀ) Δv = −e − H A⁻¹ Φ.
        self.y.resize(n, 0.0);
        g.h.mul_vec(&self.ainv_phi, &mut self.y);
        dv.iter_mut().zip(e.iter().zip(&self.y)).for_each(|(s, (x, y))| *s = -x - y);
        report.factorizations += 1;
        self.solve(chol, dv)?;
        // Δr = −(A⁻¹ Φ + G Hᵀ Δv).
        self.hv.clear();
        self.hv.resize(phi.len(), 0.0);
        g.h.mul_transpose_add(dv, &mut self.hv);
        for (c, drc) in dr.chunks_exact_mut(d).enumerate() {
            let gc = &self.g[c * dd..(c + 1) * dd];
            for (row, x) in drc.iter_mut().enumerate() {
                let ghv: f64 = (0..d).map(|b| gc[row * d + b] * self.hv[c * d + b]).sum();
                *x = -(self.ainv_phi[c * d + row] + ghv);
            }
        }
        let blocks = ((jr, ju), (delta, sigma));
        let f = measures::norm2(res);
        let relative = |r: f64| if f > 0.0 { r / f } else { r };
        let mut rr = relative(self.residual(g, blocks, res, step));
        // A direction the (v, r) system does not take (the symmetrised G, rounding where σ is
        // small) is refined against that system, the reduced factor solving each correction.
        for _ in 0..FULL_REFINE_STEPS {
            if rr <= FULL_REFINE_BELOW {
                break;
            }
            let mut corr = std::mem::take(&mut self.corr);
            corr.clone_from(&self.rho);
            self.apply_inverse(chol, g, blocks, &mut corr)?;
            let mut trial = std::mem::take(&mut self.trial);
            trial.clear();
            trial.extend_from_slice(step);
            trial.iter_mut().zip(&corr).for_each(|(x, c)| *x += c);
            self.hv.clear();
            self.hv.resize(res.len() - n, 0.0);
            g.h.mul_transpose_add(&trial[..n], &mut self.hv);
            let next = relative(self.residual(g, blocks, res, &trial));
            let better = next < rr;
            if better {
                step.copy_from_slice(&trial);
                rr = next;
            }
            (self.corr, self.trial) = (corr, trial);
            if !better {
                break;
            }
        }
        Ok(rr)
    }

    /// `ρ = −(K Δ + F)` of the (v, r) system into `self.rho`, and its norm ([`vr_residual`]),
    /// with `self.hv` holding `Hᵀ Δv` on entry.
    #[allow(clippy::type_complexity)]
    fn residual(
        &mut self,
        g: &GlobalFrictionContactProblem,
        blocks: ((&[f64], &[f64]), (f64, f64)),
        res: &[f64],
        step: &[f64],
    ) -> f64 {
        vr_residual(g, blocks, (res, step), &self.hv, (&mut self.y, &mut self.b, &mut self.rho))
    }

    /// `x = K⁻¹ x` (velocities, then reactions) by the block elimination of the reduced
    /// system with its last factorization: `x_v` from `(M + H G Hᵀ) x_v = b_v + H A⁻¹ b_r`,
    /// then `x_r = A⁻¹ (b_r − J_u Hᵀ x_v)`.
    #[allow(clippy::type_complexity)]
    fn apply_inverse(
        &mut self,
        chol: &mut SparseCholesky,
        g: &GlobalFrictionContactProblem,
        ((jr, ju), (delta, sigma)): ((&[f64], &[f64]), (f64, f64)),
        x: &mut [f64],
    ) -> Result<(), ()> {
        let (n, d) = (g.dofs(), g.dim);
        let dd = d * d;
        let (xv, xr) = x.split_at_mut(n);
        let ainv = |c: usize, v: &mut [f64]| {
            let mut a = [0.0; MAX_DIM * MAX_DIM];
            a_block(d, (jr, ju), (delta, sigma), c, &mut a);
            small_lu_solve(d, &mut a[..dd], v).map_err(|_| ())
        };
        for (c, xc) in xr.chunks_exact_mut(d).enumerate() {
            ainv(c, xc)?;
        }
        self.y.resize(n, 0.0);
        g.h.mul_vec(xr, &mut self.y);
        xv.iter_mut().zip(&self.y).for_each(|(a, b)| *a += b);
        self.solve_factored(chol, xv)?;
        // x_r = A⁻¹ b_r − A⁻¹ J_u Hᵀ x_v.
        self.hv.clear();
        self.hv.resize(xr.len(), 0.0);
        g.h.mul_transpose_add(xv, &mut self.hv);
        for (c, xc) in xr.chunks_exact_mut(d).enumerate() {
            let bju = &ju[c * dd..(c + 1) * dd];
            let mut t = [0.0; MAX_DIM];
            for (row, tr) in t[..d].iter_mut().enumerate() {
                *tr = (0..d).map(|b| bju[row * d + b] * self.hv[c * d + b]).sum();
            }
            ainv(c, &mut t[..d])?;
            xc.iter_mut().zip(&t).for_each(|(a, b)| *a -= b);
        }
        Ok(())
    }

    /// `(M + H G Hᵀ) x = b` (`b` in `x`, velocities' order) for the contacts' blocks: the
    /// body graph's fill, its Cholesky and [`GraphSystem::solve_factored`].
    fn solve(&mut self, chol: &mut SparseCholesky, x: &mut [f64]) -> Result<(), ()> {
        let GraphSystem { graph, values, g, t, .. } = self;
        graph.fill(g, values, t);
        graph.factor(chol, values).map_err(|_| ())?;
        self.solve_factored(chol, x)
    }

    /// `(M + H G Hᵀ) x = b` (`b` in `x`) with the last factorization, refined against the
    /// matrix as [`Reduced::lu_solve`]'s.
    fn solve_factored(&mut self, chol: &mut SparseCholesky, x: &mut [f64]) -> Result<(), ()> {
        let GraphSystem { graph, values, t, ordered, product, b, .. } = self;
        b.clear();
        b.extend_from_slice(x);
        graph.solve(chol, x, t).map_err(|_| ())?;
        let bn = measures::norm2(b);
        let a = SymLower { col_ptr: &graph.col_ptr, row_idx: &graph.row_idx, values };
        for _ in 0..REFINE_STEPS {
            // The residual b − A x in the graph's order, solved there.
            graph.to_ordered(x, ordered);
            product.resize(ordered.len(), 0.0);
            a.mul(ordered, product);
            graph.to_ordered(b, ordered);
            ordered.iter_mut().zip(product.iter()).for_each(|(r, y)| *r -= y);
            if measures::norm2(ordered) <= REFINE_TOL * bn {
                break;
            }
            let n = ordered.len();
            chol.solve_in_place(ordered, n, 1).map_err(|_| ())?;
            graph.add_from_ordered(ordered, x);
        }
        Ok(())
    }
}

/// `ρ = −(K Δ + F)` of the (v, r) system into `rho`, and its norm, from M, H and the
/// contacts' blocks (no [`Structure`]): with `A = J_r + σ J_u + δ I`, `K Δ + F = (M Δv − H Δr
/// + e, J_u Hᵀ Δv + A Δr + Φ)` for `res = (e, Φ)`, `step = (Δv, Δr)` and `hv = Hᵀ Δv`; `y` and
/// `b` are kept storage.
#[allow(clippy::type_complexity)]
fn vr_residual(
    g: &GlobalFrictionContactProblem,
    ((jr, ju), (delta, sigma)): ((&[f64], &[f64]), (f64, f64)),
    (res, step): (&[f64], &[f64]),
    hv: &[f64],
    (y, b, rho): (&mut Vec<f64>, &mut Vec<f64>, &mut Vec<f64>),
) -> f64 {
    let (n, d) = (g.dofs(), g.dim);
    let dd = d * d;
    let (e, phi) = res.split_at(n);
    let (dv, dr) = step.split_at(n);
    y.resize(n, 0.0);
    g.m.mul_vec(dv, y);
    b.clear();
    b.resize(n, 0.0);
    g.h.mul_vec(dr, b);
    rho.clear();
    let mut r2: f64 = 0.0;
    for ((y, hdr), x) in y.iter().zip(b.iter()).zip(e) {
        let k = y - hdr + x;
        r2 += k * k;
        rho.push(-k);
    }
    let mut a = [0.0; MAX_DIM * MAX_DIM];
    for c in 0..phi.len() / d.max(1) {
        let bju = &ju[c * dd..(c + 1) * dd];
        a_block(d, (jr, ju), (delta, sigma), c, &mut a);
        for row in 0..d {
            let mut k = phi[c * d + row];
            for bb in 0..d {
                let p = row * d + bb;
                k += bju[p] * hv[c * d + bb];
                k += a[p] * dr[c * d + bb];
            }
            r2 += k * k;
            rho.push(-k);
        }
    }
    r2.sqrt()
}

/// `H_c G_c H_cᵀ` of one contact (dimension `D`, its `k` velocities' H rows `hc`, k × D)
/// added at `pos` (k × k, row-major) in `values`: `T = H_c G_c` (k × D, into `t`), then
/// `T H_cᵀ`.
fn add_block<const D: usize>(hc: &[f64], gc: &[f64], pos: &[usize], values: &mut [f64], t: &mut Vec<f64>) {
    let k = hc.len() / D;
    let mut g = [[0.0; D]; D];
    for (l, row) in g.iter_mut().enumerate() {
        row.copy_from_slice(&gc[l * D..(l + 1) * D]);
    }
    t.clear();
    t.resize(k * D, 0.0);
    for (ta, ha) in t.chunks_exact_mut(D).zip(hc.chunks_exact(D)) {
        for (b, x) in ta.iter_mut().enumerate() {
            *x = (0..D).map(|l| ha[l] * g[l][b]).sum();
        }
    }
    for (ta, pa) in t.chunks_exact(D).zip(pos.chunks_exact(k)) {
        for (hb, &p) in hc.chunks_exact(D).zip(pa) {
            values[p] += ta.iter().zip(hb).map(|(x, y)| x * y).sum::<f64>();
        }
    }
}

/// [`add_block`] for any dimension `d`.
fn add_block_dyn(d: usize, hc: &[f64], gc: &[f64], pos: &[usize], values: &mut [f64], t: &mut Vec<f64>) {
    let k = hc.len() / d;
    t.clear();
    for a in 0..k {
        for b in 0..d {
            t.push((0..d).map(|l| hc[a * d + l] * gc[l * d + b]).sum());
        }
    }
    for a in 0..k {
        let ta = &t[a * d..(a + 1) * d];
        for bb in 0..k {
            let hb = &hc[bb * d..(bb + 1) * d];
            values[pos[a * k + bb]] += ta.iter().zip(hb).map(|(x, y)| x * y).sum::<f64>();
        }
    }
}

/// Contact c's `A = J_r + σ J_u + δ I` (d × d, row-major) into `a`: the r columns of the
/// Newton matrix ([`Structure::fill`]).
fn a_block(d: usize, (jr, ju): (&[f64], &[f64]), (delta, sigma): (f64, f64), c: usize, a: &mut [f64]) {
    let dd = d * d;
    let (bjr, bju) = (&jr[c * dd..(c + 1) * dd], &ju[c * dd..(c + 1) * dd]);
    for (p, ap) in a[..dd].iter_mut().enumerate() {
        *ap = bjr[p] + sigma * bju[p] + if p / d == p % d { delta } else { 0.0 };
    }
}

/// Per contact, `G = A⁻¹ J_u` (d × d, row-major, into `g`) and `A⁻¹ Φ` (into `ainv_phi`),
/// `A = J_r + σ J_u + δ I` ([`Reduced`]'s module docs): `Err` when an `A` is singular.
fn contact_blocks(
    d: usize,
    (jr, ju): (&[f64], &[f64]),
    (delta, sigma): (f64, f64),
    phi: &[f64],
    (g, ainv_phi): (&mut [f64], &mut [f64]),
) -> Result<(), ()> {
    let (dd, k) = (d * d, d + 1);
    let mut a = [0.0; MAX_DIM * MAX_DIM];
    let mut x = [0.0; MAX_DIM * (MAX_DIM + 1)];
    for c in 0..phi.len() / d.max(1) {
        let bju = &ju[c * dd..(c + 1) * dd];
        // A⁻¹ [J_u | Φ]: one elimination of A for its d + 1 columns (each column the bits
        // of its own small solve).
        a_block(d, (jr, ju), (delta, sigma), c, &mut a);
        for row in 0..d {
            x[row * k..row * k + d].copy_from_slice(&bju[row * d..(row + 1) * d]);
            x[row * k + d] = phi[c * d + row];
        }
        small_lu_solve_many(d, &mut a[..dd], &mut x[..d * k], k).map_err(|_| ())?;
        for row in 0..d {
            g[c * dd + row * d..c * dd + (row + 1) * d].copy_from_slice(&x[row * k..row * k + d]);
            ainv_phi[c * d + row] = x[row * k + d];
        }
    }
    Ok(())
}
