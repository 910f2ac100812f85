//! # perp — complementarity solvers for contact mechanics
//!
//! The facade over perp's crates:
//!
//! * [`core`] — `Matrix`, `Settings`, `Status`, `SolveReport`, `Solution`, `Error`, the
//!   Siconos-compatible error measures and the shared iteration loop;
//! * [`lcp`] — LCP and box-LCP: Lemke (lexicographic), PGS/PSOR/RPGS, projected Newton;
//!   `perp::ncp::lcp_solver` also reaches the Newton solvers of [`ncp`] by name;
//! * [`ncp`] — NCP/MCP/MLCP: Fischer–Burmeister and B-differentiable Newton;
//! * [`cones`] — friction cones (Coulomb, elliptic with torsion, pyramids, your own law) and
//!   the frictional contact problem: NSGS, Alart–Curnier / Fischer–Burmeister Newton, PROX,
//!   Lemke on pyramids;
//! * [`dynamics`] — systems, contact problems assembled from M and Jacobians, time stepping
//!   (Moreau midpoint, Stewart–Trinkle) and the papers' scenes;
//! * [`suite`] — readers (Siconos `.dat`), generated problems, the benchmark runner.
//!
//! ```
//! use perp::core::{Matrix, Settings, Status};
//! use perp::lcp::Lcp;
//! let p = Lcp::new(Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0])?, vec![-5.0, -6.0])?;
//! let sol = perp::lcp::solver("lemke")?.solve(&p, None, &Settings::default())?;
//! assert_eq!(sol.report.status, Status::Solved);
//! # Ok::<(), perp::core::Error>(())
//! ```
#![warn(missing_docs)]

pub use perp_cones as cones;
pub use perp_core as core;
pub use perp_dynamics as dynamics;
pub use perp_ncp as ncp;

/// [`perp_lcp`] with the full LCP registry: [`lcp::solver`] and [`lcp::SOLVER_NAMES`] also
/// cover the NCP solvers (`fb-newton`, `bdiff-newton`), which perp-lcp itself cannot depend on.
pub mod lcp {
    pub use perp_lcp::*;
    pub use perp_ncp::{lcp_solver as solver, LCP_SOLVER_NAMES as SOLVER_NAMES};
}
pub use perp_suite as suite;

/// The README's Rust examples, compiled and run as doc-tests so the README cannot drift from the
/// library.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
