//! # perp-lcp — linear complementarity problems
//!
//! Find z with `0 ≤ z ⊥ w = M z + q ≥ 0` ([`Lcp`]), or its box-constrained variant
//! (`lo ≤ z ≤ hi`, as in ODE/Bullet friction).
//!
//! Solvers (all implement [`LcpSolver`], all honour [`Settings`], accept a warm start and fill
//! the [`SolveReport`]); the catalogue (`perp-catalogue`, or `perp::lcp::solver` in the
//! facade) builds them by name:
//!
//! | name | module | method |
//! |---|---|---|
//! | `lemke` | [`lemke`] | Lemke's complementary pivoting, lexicographic ratio test (CPS §4.4) |
//! | `pgs`, `psor`, `rpgs` | [`pgs`] | projected Gauss–Seidel, over-relaxed, proximal-regularized |
//! | `projected-newton` | [`projected_newton`] | Bertsekas (1982) on ½zᵀMz + qᵀz, symmetric PSD M |
//!
//! [`sensitivity`] differentiates a solution with respect to q and M (implicit
//! differentiation on the active set: JVPs, VJPs, and the degenerate indices flagged).
//!
//! [`samples`] builds seeded test LCPs (SPD, PSD, contact Delassus, P-matrix, Murty, Fathi,
//! degenerate).
#![warn(missing_docs)]

pub mod lemke;
pub mod pgs;
mod problem;
pub mod projected_newton;
pub mod samples;
pub mod sensitivity;

pub use perp_core::{Error, Matrix, Ray, Settings, Solution, SolutionMut, SolveReport, Status};
pub use problem::Lcp;
pub use sensitivity::{sensitivity, LcpSensitivity};

/// An LCP solver.
///
/// # Prepare once, solve many
///
/// A simulator solves thousands of small LCPs of one structure per second. [`LcpSolver::solve`]
/// returns fresh vectors and a fresh report; [`LcpSolver::solve_into`] writes into the
/// caller's, and `lemke`, `pgs`, `psor` and `rpgs` keep their internal storage between calls, so
/// that once a solver has solved a problem of the same structure, a call allocates nothing
/// (with `record_history` off). Update the problem in place with [`Lcp::set_q`] and
/// [`Lcp::set_m_values`]. A solver implements `solve_into`; `solve` is `solve_into` on fresh
/// buffers, so both give bit-identical results.
///
/// ```
/// use perp_core::{Matrix, Settings, Solution, SolutionMut, SolveReport, Status};
/// use perp_lcp::{pgs::Pgs, Lcp, LcpSolver};
/// let m = Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap();
/// let mut p = Lcp::new(m, vec![-5.0, -6.0]).unwrap();
/// let (mut solver, s) = (Pgs::pgs(), Settings { tol: 1e-12, ..Settings::default() });
/// let mut sol = Solution::zeros(2); // kept from call to call
/// solver.solve_into(&p, false, sol.view_mut(), &s).unwrap();
/// assert_eq!((sol.report.solver.as_str(), sol.report.status), ("pgs", Status::Solved));
/// p.set_q(&[-4.0, -6.0]).unwrap(); // the next step: new values, warm start from z
/// let warm = sol.z.clone();
/// solver.solve_into(&p, true, sol.view_mut(), &s).unwrap();
/// assert_eq!(sol.z, solver.solve(&p, Some(&warm), &s).unwrap().z);
/// // Any buffers of the problem's size will do.
/// let (mut z, mut w, mut report) = (vec![0.0; 2], vec![0.0; 2], SolveReport::new(""));
/// solver.solve_into(&p, false, SolutionMut { z: &mut z, w: &mut w, report: &mut report }, &s).unwrap();
/// assert_eq!(report.status, Status::Solved);
/// ```
pub trait LcpSolver: Send {
    /// The registry name (`"lemke"`, `"pgs"`, …).
    fn name(&self) -> &str;
    /// Drops what the solver remembers of earlier answers (hot-start memory), so the next
    /// solve starts only from what it is given; workspaces sized for the problem's structure
    /// stay. Default: nothing is remembered.
    fn forget(&mut self) {}

    /// Solves `p` into the caller's buffers `out`: `z` holds the warm start on entry when `warm` is
    /// true (else it is ignored and the solve starts cold) and the solution on return; `w`
    /// receives Mz + q; `report` is overwritten in place (its `solver` String and `message`
    /// reuse their storage). Once the solver has solved a problem of the same structure (n,
    /// storage and sparsity pattern of M, bounds present or not), a call allocates nothing
    /// (with record_history off) for `lemke`, `pgs`, `psor` and `rpgs`.
    ///
    /// `z` and `w` must have length n (else `Err`). On `Err`, `z`, `w` and `report` are
    /// unspecified. Lemke's secondary ray is not returned here: see
    /// [`lemke::Lemke::last_ray`].
    fn solve_into(&mut self, p: &Lcp, warm: bool, out: SolutionMut<'_>, s: &Settings) -> Result<(), Error>;

    /// Solves `p`, starting from `warm` when given (pivoting methods use its support as the
    /// starting basis guess; iterative methods start from it): [`LcpSolver::solve_into`] on
    /// fresh buffers (the warm start copied into z) and a fresh report.
    fn solve(&mut self, p: &Lcp, warm: Option<&[f64]>, s: &Settings) -> Result<Solution, Error> {
        let z = warm.map_or_else(|| vec![0.0; p.n()], <[f64]>::to_vec);
        let mut sol = Solution { z, w: vec![0.0; p.n()], report: SolveReport::new(self.name()), ray: None };
        self.solve_into(p, warm.is_some(), sol.view_mut(), s)?;
        sol.ray = self.ray();
        Ok(sol)
    }

    /// The secondary ray the last solve ended on, owned ([`Solution::ray`]; Lemke's, see
    /// [`lemke::Lemke::last_ray`] for a borrowed view). Default: none.
    fn ray(&self) -> Option<perp_core::Ray> {
        None
    }
}
