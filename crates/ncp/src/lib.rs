//! # perp-ncp — nonlinear and mixed complementarity problems
//!
//! The mixed complementarity problem MCP(F, l, u): find `l ≤ z ≤ u` such that for every i
//!
//! ```text
//!     zᵢ = lᵢ  ⇒  Fᵢ(z) ≥ 0,     zᵢ = uᵢ  ⇒  Fᵢ(z) ≤ 0,     lᵢ < zᵢ < uᵢ  ⇒  Fᵢ(z) = 0.
//! ```
//!
//! With `l = 0, u = +∞` it is the NCP `0 ≤ z ⊥ F(z) ≥ 0`; a free row (`l = −∞, u = +∞`) is an
//! equation `Fᵢ(z) = 0`; an affine F gives the LCP, the box-LCP and the MLCP.
//!
//! * [`NcpFunction`] — the map F and its Jacobian (finite differences by default);
//!   [`check_jacobian`] compares a user Jacobian with central differences.
//! * [`Mcp`] — F with its bounds, checked once at construction.
//! * [`AffineFunction`] — F(z) = Mz + q with its constant (dense or sparse) Jacobian.
//! * [`NcpSolver`] — the solvers: [`fb_newton`] (Fischer–Burmeister semismooth Newton) and
//!   [`bdiff_newton`] (B-differentiable Newton on the min-map, with hot start);
//!   [`schur_lemke`] (affine MCPs: the equations eliminated, Lemke on the Schur-complement
//!   LCP, polished by block principal pivoting);
//!   [`lcp_adapter`] runs them on LCPs. The catalogue (`perp-catalogue`; `perp::ncp::solver`
//!   in the facade) builds them by name.
//!   Both Newton methods fall back on [`proximal`] perturbation (Billups 1995) when they stall.
//! * [`mlcp`] — the mixed LCP; [`samples`] — small NCPs with known solutions and a seeded MLCP generator.
//! * [`sensitivity`] — derivatives of MCP solutions (additive perturbation of F) and of MLCP
//!   solutions (q and M), by implicit differentiation on the active set.
#![warn(missing_docs)]

mod affine;
pub mod bdiff_newton;
pub mod fb;
pub mod fb_newton;
mod jacobian;
pub mod lcp_adapter;
pub mod mlcp;
mod problem;
pub mod proximal;
pub mod samples;
pub mod schur_lemke;
pub mod sensitivity;

pub use affine::AffineFunction;
pub use jacobian::{check_jacobian, JacobianCheck};
pub use perp_core::{Error, Matrix, Settings, Solution, SolveReport, Status};
pub use problem::{central_differences, BoundKind, Mcp, NcpFunction};
pub use sensitivity::{mlcp_sensitivity, sensitivity, McpSensitivity};

/// An MCP/NCP solver.
pub trait NcpSolver: Send {
    /// The registry name (`"fb-newton"`, `"bdiff-newton"`).
    fn name(&self) -> &str;
    /// Solves `p` from the starting point `z0` (length n; projected onto the bounds).
    /// `Solution::w` holds F at the returned z; `report.error` is [`Mcp::error`] there.
    fn solve(&mut self, p: &Mcp<'_>, z0: &[f64], s: &Settings) -> Result<Solution, Error>;
    /// Drops what the solver remembers of earlier answers (`bdiff-newton`'s hot start), so the
    /// next solve starts only from what it is given; workspaces sized for the problem's
    /// structure stay. Default: nothing is remembered.
    fn forget(&mut self) {}
}
