//! # perp-cones — friction cones and the frictional contact problem
//!
//! * [`Cone`] — the plug-in point for friction laws: projection, section projection, maximal
//!   dissipation, and, built on them, the natural map, the Alart–Curnier and
//!   Fischer–Burmeister functions with their generalised Jacobians, polyhedral linearisation.
//! * Laws: [`Coulomb`] (2-D, 3-D), [`Elliptic`] (anisotropic, and with torsion: seed 002
//!   eq. 1), [`EllipticMixed`] (elliptic + |c_r| ≤ e_r σ, seed 002 example (c)), [`Pyramid`].
//! * [`FrictionContactProblem`] — the local form u = W r + q with μ and a law per contact.
//! * [`solver`] — the solvers by name.
#![warn(missing_docs)]

pub mod cone;
mod coulomb;
mod elliptic;
pub mod global;
pub mod jordan;
pub mod lemke_pyramid;
mod problem;
mod pyramid;

pub use cone::{Cone, ConeSpec, SocMap, MAX_DIM};
pub use coulomb::Coulomb;
pub use elliptic::{Elliptic, EllipticMixed};
pub use perp_core::{Error, Matrix, Settings, SolveReport, Status};
pub use problem::{FrictionContactProblem, FrictionSolution, FrictionSolver};
pub use pyramid::Pyramid;
