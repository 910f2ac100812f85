//! # perp-dynamics — contact problems from mass matrices and Jacobians, and time stepping
//!
//! A thin layer: a simulator implements [`System`] (M(q,t), h(q,u,t), candidate [`Contact`]s
//! with their rows, μ, restitution and cone); [`assembly`] forms each step's contact problem
//! (Glocker–Studer LCP, Stewart–Trinkle LCP, the frictional contact problem with exact cones,
//! the Tzitzouris–Pang NCP); [`Simulator`] steps time (Moreau midpoint, Stewart–Trinkle
//! semi-implicit Euler) with warm starts; the solving is the other crates' job.
//! [`Simulator::step_with_sensitivity`] also linearizes a step ([`sensitivity`]): derivatives of
//! the next state with respect to the current one and to friction and restitution.
#![warn(missing_docs)]

pub mod assembly;
pub mod mass;
pub mod sensitivity;
pub mod stepper;
pub mod system;
pub mod trajectory;

pub use assembly::{Directions, LocalProblem};
pub use sensitivity::{StepCotangent, StepSensitivity};
pub use stepper::{Activation, Compliant, Formulation, Scheme, Simulator, Stats, StepOptions, StepReport};
pub use system::{Bilateral, Contact, Row, System};
pub use trajectory::{CsvWriter, Trajectory};
pub mod rigid;
pub mod scenes;
