//! [`GlobalNewton`]: the Alart–Curnier semismooth Newton method on the global form of the
//! frictional contact problem, in the velocities v and reactions r together, without forming
//! the Delassus matrix W.
//!
//! The global problem (`crate::global`) is `M v = f + H r`, `u = Hᵀ v + b`, Coulomb's law
//! between r and u at every contact. With the Alart–Curnier function Φ of each contact
//! ([`Cone::alart_curnier`], Alart & Curnier 1991; its global use is Siconos'
//! `gfc3d_nonsmooth_Newton_AlartCurnier.c`), a solution is a zero of
//!
//! ```text
//!     F(v, r) = ( M v − H r − f ,  Φ(r, Hᵀ v + b) ),
//! ```
//!
//! and a generalized Newton step solves the sparse system of order `n_dof + m`
//!
//! ```text
//!     [ M          −H  ] [dv]     [ M v − H r − f ]
//!     [ J_u Hᵀ     J_r ] [dr] = − [ Φ             ],
//! ```
//!
//! `J_r = ∂Φ/∂r`, `J_u = ∂Φ/∂u` block diagonal (one d×d block per contact). Its pattern is
//! that of M, H and the contacts' blocks: fixed for a problem, so the sparse LU's symbolic
//! analysis is done once and each iteration costs one numeric factorization
//! ([`perp_core::linear::SparseLu`]). The first block row is linear: after one full step
//! `M v − H r − f` is zero to rounding and stays so along later steps.
//!
//! The step length comes from a backtracking (Armijo) line search on `½‖F‖²`; when it finds no
//! decrease the full step is taken, as Siconos does. `ρ_N`, `ρ_T` of each contact are the
//! inverses of its Delassus block's diagonal (`W_ii = H_iᵀ M⁻¹ H_i`, d solves per contact, one
//! dense block per body for a block-diagonal M), as the local `ac-newton` chooses them. When
//! the factorization breaks down (redundant contacts make the matrix singular) a small
//! multiple of the identity is added to the `J_r` block and the factorization retried.
//!
//! "Solved" means Siconos' global error ([`GlobalFrictionContactProblem::error`]) of the
//! returned (r, v) is at most `tol`, recomputed, and that the answer passes the physical check
//! of every frictional solver (penetration, cone and complementarity at the data's scale:
//! the local problem's `‖q‖ = ‖Hᵀ M⁻¹ f + b‖` plus the rounding of `Hᵀ v + b`).

use crate::cone::{Cone, MAX_DIM};
use crate::coulomb::Coulomb;
use crate::global::GlobalFrictionContactProblem;
use crate::problem::physical_figure;
use perp_core::linear::mass::solve_rows;
use perp_core::linear::{MassFactor, Row, SparseLu};
use perp_core::{measures, Error, Settings, SolveReport, Status};
use std::time::Instant;

/// The Alart–Curnier Newton method on the global form (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct GlobalNewton {
    /// Newton iterations at most (when `Settings::max_iter` is 0).
    pub max_iter: usize,
    /// Factor on every contact's `ρ_N`, `ρ_T`.
    pub rho_scale: f64,
    lu: SparseLu,
}

impl Default for GlobalNewton {
    fn default() -> Self {
        GlobalNewton { max_iter: 200, rho_scale: 1.0, lu: SparseLu::new() }
    }
}

/// The answer of a global solver: reactions, both velocities and the report.
#[derive(Clone, Debug)]
pub struct GlobalSolution {
    /// Reactions r (length `dim·nc`).
    pub r: Vec<f64>,
    /// Global velocities v (length `n_dof`).
    pub v: Vec<f64>,
    /// Local velocities `u = Hᵀ v + b`.
    pub u: Vec<f64>,
    /// Status, iterations, Siconos' global error of (r, v), factorizations.
    pub report: SolveReport,
    /// Symbolic analyses the solver's sparse LU has done so far (one per new pattern, kept
    /// across calls on problems of the same structure).
    pub analyses: usize,
}

/// The fixed structure of the Newton matrix of one problem: where each entry goes.
struct Structure {
    n: usize,
    d: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    /// Per dof j: the contacts touching it and `H[j, i·d + b]` for b < d.
    dof_contacts: Vec<Vec<(usize, [f64; MAX_DIM])>>,
    /// H by columns (contact rows): `(dof, value)`.
    h_cols: Vec<Vec<(usize, f64)>>,
    /// M by columns.
    m_cols: Vec<Vec<(usize, f64)>>,
}

impl Structure {
    fn new(g: &GlobalFrictionContactProblem) -> Structure {
        let (n, m, d) = (g.dofs(), g.size(), g.dim);
        let mcsc = g.m.to_csr().to_csc();
        let m_cols: Vec<Vec<(usize, f64)>> = (0..n)
            .map(|j| mcsc.outer_view(j).map(|c| c.iter().map(|(i, &v)| (i, v)).collect()).unwrap_or_default())
            .collect();
        let hcsc = g.h.to_csr().to_csc();
        let h_cols: Vec<Vec<(usize, f64)>> = (0..m)
            .map(|c| {
                hcsc.outer_view(c).map(|col| col.iter().map(|(j, &v)| (j, v)).collect()).unwrap_or_default()
            })
            .collect();
        let mut dof_contacts: Vec<Vec<(usize, [f64; MAX_DIM])>> = vec![Vec::new(); n];
        for (c, col) in h_cols.iter().enumerate() {
            let (i, b) = (c / d, c % d);
            for &(j, v) in col {
                let list = &mut dof_contacts[j];
                match list.last_mut() {
                    Some((k, h)) if *k == i => h[b] += v,
                    _ => {
                        let mut h = [0.0; MAX_DIM];
                        h[b] = v;
                        list.push((i, h));
                    }
                }
            }
        }
        // Contacts in ascending order per dof (H's columns are visited in contact order, so
        // the lists already are; a dof listed twice for one contact was merged above).
        let mut col_ptr = Vec::with_capacity(n + m + 1);
        let mut row_idx = Vec::new();
        col_ptr.push(0);
        for j in 0..n {
            row_idx.extend(m_cols[j].iter().map(|&(i, _)| i));
            for &(i, _) in &dof_contacts[j] {
                row_idx.extend((0..d).map(|a| n + i * d + a));
            }
            col_ptr.push(row_idx.len());
        }
        for (c, col) in h_cols.iter().enumerate() {
            let i = c / d;
            row_idx.extend(col.iter().map(|&(j, _)| j));
            row_idx.extend((0..d).map(|a| n + i * d + a));
            col_ptr.push(row_idx.len());
        }
        Structure { n, d, col_ptr, row_idx, dof_contacts, h_cols, m_cols }
    }

    /// The Newton matrix's values in the order of `row_idx`, with `delta` added to the
    /// diagonal of the `J_r` block.
    fn fill(&self, jr: &[f64], ju: &[f64], delta: f64, values: &mut Vec<f64>) {
        let (n, d, dd) = (self.n, self.d, self.d * self.d);
        values.clear();
        for j in 0..n {
            values.extend(self.m_cols[j].iter().map(|&(_, v)| v));
            for &(i, h) in &self.dof_contacts[j] {
                let blk = &ju[i * dd..(i + 1) * dd];
                values.extend((0..d).map(|a| (0..d).map(|b| blk[a * d + b] * h[b]).sum::<f64>()));
            }
        }
        for (c, col) in self.h_cols.iter().enumerate() {
            let (i, b) = (c / d, c % d);
            values.extend(col.iter().map(|&(_, v)| -v));
            let blk = &jr[i * dd..(i + 1) * dd];
            values.extend((0..d).map(|a| blk[a * d + b] + if a == b { delta } else { 0.0 }));
        }
    }
}

/// γ_k = kε / (1 − kε), Higham's bound on the relative rounding of a k-term sum.
fn gamma(k: usize) -> f64 {
    let ke = k as f64 * f64::EPSILON;
    ke / (1.0 - ke).max(f64::EPSILON)
}

impl GlobalNewton {
    /// The method with its defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// The catalogue name.
    pub fn name(&self) -> &'static str {
        "global-ac-newton"
    }

    /// Solves the global problem `g` from the reactions `warm` (zero when `None`; v is then
    /// `M⁻¹ (f + H r)`). Errors: the problem's validation errors, a warm start of the wrong
    /// length, or a mass matrix that cannot be factored (named).
    pub fn solve(
        &mut self,
        g: &GlobalFrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<GlobalSolution, Error> {
        let start = Instant::now();
        g.validate()?;
        let (n, m, d) = (g.dofs(), g.size(), g.dim);
        let nc = g.contacts();
        if let Some(w) = warm {
            Error::check_len("warm start", w, m)?;
            Error::check_finite("warm start", w)?;
        }
        let cone = Coulomb::new(d)?;
        let factor = MassFactor::new_or_lu(&g.m)?;
        let st = Structure::new(g);
        let deadline = s.deadline(start);
        let max_iter = s.max_iter_or(self.max_iter);

        // ρ per contact from W_ii = H_iᵀ M⁻¹ H_i, and the data's velocity scale ‖q‖ with
        // q = Hᵀ M⁻¹ f + b (the local problem's, for the physical check).
        let rows: Vec<Row> = st.h_cols.iter().map(|c| Row(c.clone())).collect();
        let refs: Vec<&Row> = rows.iter().collect();
        let y = solve_rows(&factor, n, &refs);
        let rho: Vec<(f64, f64)> = (0..nc)
            .map(|i| {
                let w = |a: usize| y.row_dot_column(&rows[i * d + a], i * d + a);
                let wn = w(0);
                let rn = if wn > 0.0 && wn.is_finite() { 1.0 / wn } else { 1.0 };
                let wt = (1..d).map(w).sum::<f64>() / (d - 1) as f64;
                let rt = if wt > 0.0 && wt.is_finite() { 1.0 / wt } else { rn };
                (rn * self.rho_scale, rt * self.rho_scale)
            })
            .collect();
        let mut vfree = g.f.clone();
        factor.solve(&mut vfree, n, 1);
        let qn = measures::norm2(&g.local_velocity(&vfree));
        let h_max = g.h.max_abs();

        let mut r = warm.map_or_else(|| vec![0.0; m], <[f64]>::to_vec);
        let mut v = vec![0.0; n];
        g.h.mul_vec(&r, &mut v);
        v.iter_mut().zip(&g.f).for_each(|(a, b)| *a += b);
        factor.solve(&mut v, n, 1);

        let mut report = SolveReport::new(self.name());
        let (mut jr, mut ju) = (vec![0.0; nc * d * d], vec![0.0; nc * d * d]);
        let mut res = vec![0.0; n + m];
        let mut values = Vec::new();
        let mut step = vec![0.0; n + m];
        let (mut rt, mut vt) = (vec![0.0; m], vec![0.0; n]);
        let mut res_t = vec![0.0; n + m];
        let mut best: Option<(f64, Vec<f64>, Vec<f64>)> = None;
        report.status = Status::MaxIterations;
        loop {
            let psi = self.residual(g, &cone, &rho, &r, &v, &mut res, Some((&mut jr, &mut ju)));
            report.error = g.error(&r, &v);
            if s.record_history {
                report.history.push(report.error);
            }
            if best.as_ref().is_none_or(|b| report.error < b.0) {
                best = Some((report.error, r.clone(), v.clone()));
            }
            if report.error <= s.tol {
                report.status = Status::Solved;
                break;
            }
            if !psi.is_finite() {
                report.status = Status::NumericalFailure;
                report.message = Some("the residual is not finite".into());
                break;
            }
            if report.iterations >= max_iter {
                report.status = Status::MaxIterations;
                break;
            }
            if deadline.is_some_and(|t| Instant::now() >= t) {
                report.status = Status::TimeLimit;
                break;
            }
            report.iterations += 1;
            // The Newton direction, regularizing the J_r block when the LU breaks down.
            let mut solved = false;
            for delta in [0.0, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2] {
                st.fill(&jr, &ju, delta, &mut values);
                report.factorizations += 1;
                if self.lu.factor(n + m, &st.col_ptr, &st.row_idx, &values).is_err() {
                    continue;
                }
                step.iter_mut().zip(&res).for_each(|(a, b)| *a = -b);
                if self.lu.solve_in_place(&mut step).is_ok() {
                    solved = true;
                    break;
                }
            }
            if !solved {
                report.status = Status::NumericalFailure;
                report.message = Some("the Newton matrix stayed singular after regularization".into());
                break;
            }
            // Armijo backtracking on ψ = ½‖F‖² (the Newton direction's slope is −2ψ); the full
            // step when no trial decreases it.
            let mut t = 1.0;
            let mut accepted = false;
            for _ in 0..30 {
                report.line_search_steps += 1;
                for k in 0..n {
                    vt[k] = v[k] + t * step[k];
                }
                for k in 0..m {
                    rt[k] = r[k] + t * step[n + k];
                }
                let psi_t = self.residual(g, &cone, &rho, &rt, &vt, &mut res_t, None);
                if psi_t <= (1.0 - 2e-4 * t) * psi {
                    accepted = true;
                    break;
                }
                t *= 0.5;
            }
            if !accepted {
                t = 1.0;
            }
            for k in 0..n {
                v[k] += t * step[k];
            }
            for k in 0..m {
                r[k] += t * step[n + k];
            }
        }
        // The best iterate met (by the global error) is the answer when the last is worse.
        if report.status != Status::Solved {
            if let Some((e, rb, vb)) = best {
                if e < report.error {
                    (report.error, r, v) = (e, rb, vb);
                }
            }
        }
        let u = g.local_velocity(&v);
        report.residual_inf = report.error;
        // The physical check at the data's scale: ‖q‖ plus the rounding of Hᵀ v + b.
        let rn = measures::norm2(&r);
        let v1: f64 = v.iter().map(|x| x.abs()).sum();
        let un = qn + gamma(n + 1) * h_max * v1;
        let phys = if rn.is_finite() && un.is_finite() {
            physical_figure(d, &g.mu, None, &r, &u, rn, un)
        } else {
            f64::NAN
        };
        report.check_physics(phys, s.tol, "penetration, cone or complementarity violation");
        report.elapsed = start.elapsed();
        Ok(GlobalSolution { r, v, u, report, analyses: self.lu.analyses() })
    }

    /// `F(v, r)` into `res` (`M v − H r − f`, then Φ), the Jacobian blocks of Φ when asked;
    /// returns `½‖F‖²`.
    #[allow(clippy::too_many_arguments)]
    fn residual(
        &self,
        g: &GlobalFrictionContactProblem,
        cone: &Coulomb,
        rho: &[(f64, f64)],
        r: &[f64],
        v: &[f64],
        res: &mut [f64],
        mut jac: Option<(&mut [f64], &mut [f64])>,
    ) -> f64 {
        let (n, d) = (g.dofs(), g.dim);
        let dd = d * d;
        let (eq, phi) = res.split_at_mut(n);
        g.m.mul_vec(v, eq);
        let mut hr = vec![0.0; n];
        g.h.mul_vec(r, &mut hr);
        for k in 0..n {
            eq[k] -= hr[k] + g.f[k];
        }
        let u = g.local_velocity(v);
        for (i, &(rn, rt)) in rho.iter().enumerate() {
            let s = d * i;
            let j =
                jac.as_mut().map(|(jr, ju)| (&mut jr[i * dd..(i + 1) * dd], &mut ju[i * dd..(i + 1) * dd]));
            cone.alart_curnier(g.mu[i], rn, rt, &r[s..s + d], &u[s..s + d], &mut phi[s..s + d], j);
        }
        0.5 * res.iter().map(|x| x * x).sum::<f64>()
    }
}
