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
#![warn(missing_docs)]

pub mod lemke;
pub mod pgs;
mod problem;
pub mod projected_newton;

pub use perp_core::{Error, Matrix, Ray, Settings, Solution, SolveReport, Status};
pub use problem::Lcp;

/// An LCP solver.
pub trait LcpSolver {
    /// The registry name (`"lemke"`, `"pgs"`, …).
    fn name(&self) -> &str;
    /// Solves `p`, starting from `warm` when given (pivoting methods use its support as the
    /// starting basis guess; iterative methods start from it).
    fn solve(&mut self, p: &Lcp, warm: Option<&[f64]>, s: &Settings) -> Result<Solution, Error>;
}
