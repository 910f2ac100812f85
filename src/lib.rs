//! # perp — complementarity solvers for contact mechanics
//!
//! The facade over perp's crates:
//!
//! * [`core`] — `Matrix`, `Settings`, `Status`, `SolveReport`, `Solution`, `Error`, the
//!   Siconos-compatible error measures and the shared iteration loop;
//! * [`catalogue`] — every solver declared once (name, family, summary, paper, parameters),
//!   the one `Problem` enum and the one dispatch (`catalogue::solve`); the `solver(name)`
//!   functions below read it;
//! * [`lcp`] — LCP and box-LCP: Lemke (lexicographic), PGS/PSOR/RPGS, projected Newton;
//!   `perp::lcp::solver` also reaches the Newton solvers of [`ncp`] by name;
//! * [`ncp`] — NCP/MCP/MLCP: Fischer–Burmeister and B-differentiable Newton;
//! * [`cones`] — friction cones (Coulomb, elliptic with torsion, pyramids, your own law) and
//!   the frictional contact problem: NSGS, Alart–Curnier / Fischer–Burmeister Newton, PROX,
//!   Lemke on pyramids;
//! * [`dynamics`] — systems, contact problems assembled from M and Jacobians, time stepping
//!   (Moreau midpoint, Stewart–Trinkle) and the papers' scenes;
//! * `formats` (feature `formats`) — problem files: Siconos `.dat`, FCLIB `.hdf5`,
//!   MatrixMarket, JSON, convert;
//! * `suite` (feature `suite`, crate `perp-bench`) — the built-in benchmark suite, the
//!   benchmark runner and profiles;
//! * [`faer`], [`sprs`], [`ndarray`] — the versions perp's public types use, so a caller
//!   builds matrices without pinning matching versions.
//!
//! Features: `cli` (default) builds the `perp` command and enables `suite`, which enables
//! `formats`. `perp = { version = "0.1", default-features = false }` is the solvers alone.
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

pub use perp_catalogue as catalogue;
pub use perp_core as core;
pub use perp_dynamics as dynamics;

/// [`perp_lcp`] with the catalogue's LCP solvers by name: [`lcp::solver`] and
/// [`lcp::SOLVER_NAMES`] also cover the NCP solvers (`fb-newton`, `bdiff-newton`), which
/// perp-lcp itself cannot depend on.
pub mod lcp {
    pub use perp_catalogue::{lcp_solver as solver, LCP_NAMES as SOLVER_NAMES};
    pub use perp_lcp::*;
}

/// [`perp_ncp`] with the catalogue's MCP solvers by name ([`ncp::solver`],
/// [`ncp::SOLVER_NAMES`]); [`ncp::lcp_solver`] and [`ncp::LCP_SOLVER_NAMES`] are the LCP
/// ones, as [`lcp::solver`].
pub mod ncp {
    pub use perp_catalogue::{
        lcp_solver, mcp_solver as solver, LCP_NAMES as LCP_SOLVER_NAMES, MCP_NAMES as SOLVER_NAMES,
    };
    pub use perp_ncp::*;
}

/// [`perp_cones`] with the catalogue's frictional solvers by name ([`cones::solver`],
/// [`cones::SOLVER_NAMES`]).
pub mod cones {
    pub use perp_catalogue::{friction_solver as solver, FRICTION_NAMES as SOLVER_NAMES};
    pub use perp_cones::*;
}
#[cfg(feature = "suite")]
pub use perp_bench as suite;
pub use perp_core::{faer, ndarray, sprs};
#[cfg(feature = "formats")]
pub use perp_formats as formats;

/// The README's Rust examples, compiled and run as doc-tests so the README cannot drift from the
/// library.
#[cfg(all(doctest, feature = "cli"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of `docs/cli.md` (a frictional problem in a program), run as doc-tests.
#[cfg(all(doctest, feature = "cli"))]
#[doc = include_str!("../docs/cli.md")]
pub struct CliDocDoctests;

/// The Rust examples of `docs/simulation.md` (a system of one's own), run as doc-tests.
#[cfg(all(doctest, feature = "cli"))]
#[doc = include_str!("../docs/simulation.md")]
pub struct SimulationDocDoctests;

/// The Rust examples of `docs/solvers.md` (derivatives of a solution), run as doc-tests.
#[cfg(all(doctest, feature = "cli"))]
#[doc = include_str!("../docs/solvers.md")]
pub struct SolversDocDoctests;
