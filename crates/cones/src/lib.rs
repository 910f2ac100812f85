//! # perp-cones — friction cones and the frictional contact problem
//!
//! * [`Cone`] — the plug-in point for friction laws: projection, section projection, maximal
//!   dissipation, and, built on them, the natural map, the Alart–Curnier and
//!   Fischer–Burmeister functions with their generalised Jacobians, polyhedral linearisation.
//! * Laws: [`Coulomb`] (2-D, 3-D), [`Elliptic`] (anisotropic, and with torsion: Trinkle–Tzitzouris–Pang 2001
//!   eq. 1), [`EllipticMixed`] (elliptic + |c_r| ≤ e_r σ, Trinkle–Tzitzouris–Pang 2001 example (c)), [`Pyramid`],
//!   [`Rolling`] (rolling resistance, Siconos' `RollingFrictionContactProblem`).
//! * [`FrictionContactProblem`] — the local form u = W r + q with μ and a law per contact.
//! * [`GlobalFrictionContactProblem`] — M v = f + H r, u = Hᵀ v + b, reduced to the local form
//!   by a sparse Cholesky of M; solved in global form by [`GlobalNewton`] (exact Coulomb) and
//!   [`Sap`] (Drake's SAP: a primal Newton on a regularised, compliant convex model).
//! * The solvers: [`Nsgs`], [`SemismoothNewton`] (`ac-newton`, `fb-newton`), [`Prox`],
//!   [`lemke_pyramid::LemkePyramid`], [`Admm`], [`Apgd`]; the catalogue (`perp-catalogue`, or `perp::cones::solver`
//!   in the facade) builds them by name.
//! * [`sensitivity`] — derivatives of a solution with respect to q, μ and W (implicit
//!   differentiation of the natural map; degenerate contacts flagged).
//! * [`samples`] — seeded frictional contact problems for tests and benchmarks.
//!
//! ```
//! use perp_cones::{lemke_pyramid::LemkePyramid, FrictionContactProblem, FrictionSolver};
//! use perp_cones::{Nsgs, Prox, SemismoothNewton};
//! use perp_core::{Matrix, Settings, Status};
//!
//! // One 3-D contact: W = I, pushed into the ground (q_N = −1) and sideways (q_T = 2), μ = 0.5.
//! let w = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])?;
//! let p = FrictionContactProblem::new(3, w, vec![-1.0, 2.0, 0.0], vec![0.5])?;
//! let solvers: [Box<dyn FrictionSolver>; 5] = [
//!     Box::new(Nsgs::new()),
//!     Box::new(SemismoothNewton::alart_curnier()),
//!     Box::new(SemismoothNewton::fischer_burmeister()),
//!     Box::new(Prox::new()),
//!     Box::new(LemkePyramid::new()),
//! ];
//! for mut s in solvers {
//!     let sol = s.solve(&p, None, &Settings::default())?;
//!     assert_eq!(sol.report.status, Status::Solved, "{}", s.name());
//!     // Sliding: r_N = 1 (u_N = 0), r_T = −μ r_N against the sliding velocity u_T = 1.5.
//!     assert!((sol.r[0] - 1.0).abs() < 1e-7 && (sol.r[1] + 0.5).abs() < 1e-7, "{}: {:?}", s.name(), sol.r);
//! }
//! # Ok::<(), perp_core::Error>(())
//! ```
#![warn(missing_docs)]
// Index loops over small blocks read like the formulas they implement.
#![allow(clippy::needless_range_loop)]

pub mod admm;
pub mod apgd;
mod body_graph;
pub mod cone;
mod coulomb;
mod delassus;
mod elliptic;
pub mod global;
pub mod global_ipm;
pub mod global_newton;
pub mod global_sap;
pub mod islands;
pub mod jordan;
pub mod lemke_pyramid;
mod local;
pub mod newton;
pub mod nsgs;
mod problem;
pub mod prox;
mod pyramid;
mod rolling;
pub mod samples;
pub mod sensitivity;

pub use admm::Admm;
pub use apgd::Apgd;
pub use cone::{AcInput, CfunOut, Cone, ConeSpec, SocMap, MAX_DIM};
pub use coulomb::Coulomb;
pub use elliptic::{Elliptic, EllipticMixed};
pub use global::{GlobalFrictionContactProblem, Reduction};
pub use global_ipm::{Certificate, GlobalIpm};
pub use global_newton::{GlobalNewton, GlobalSolution, GlobalSolver};
pub use global_sap::{Compliance, Regularisation, Sap, SapSolution};
pub use islands::{Island, Islands};
pub use local::LocalSolver;
pub use newton::{LinearSolver, NewtonFunction, SemismoothNewton};
pub use nsgs::Nsgs;
pub use perp_core::{Error, Matrix, Settings, SolveReport, Status};
pub use problem::{FrictionContactProblem, FrictionSolution, FrictionSolutionMut, FrictionSolver};
pub use prox::Prox;
pub use pyramid::Pyramid;
pub use rolling::Rolling;
pub use sensitivity::{sensitivity, ContactState, FrictionSensitivity};
