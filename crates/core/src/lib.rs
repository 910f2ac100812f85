//! # perp-core — the problem-independent contract of perp
//!
//! Every solver crate of perp (LCP, NCP, cones, dynamics) builds on the types here:
//!
//! * [`Matrix`] — a dense (`faer`) or sparse (`sprs`, CSR) real matrix;
//! * [`Settings`] — the knobs every solver honours (tolerance, iteration/pivot limit,
//!   time limit, history, observer);
//! * [`Status`], [`SolveReport`], [`Solution`] — how a solve ends and what it returns;
//! * [`Error`] — input that cannot be solved as given, with the offending value named;
//! * [`measures`] — the Siconos-compatible error measures (`design/SUITES.md`), always
//!   computed from the returned vectors, never from a solver's internals;
//! * [`graph`] — connected components by union–find (rigid bodies, islands);
//! * [`iteration`] — the one iteration loop (limits, timing, history, observer, stall rule)
//!   that iterative solvers plug their step into;
//! * [`line_search`] — Armijo backtracking and the non-monotone reference that every Newton
//!   method uses;
//! * [`refine`] — the physics refinement rounds of a solve whose answer the physical check
//!   refused;
//! * [`linear`] — dense and sparse LU and Cholesky that keep their storage and symbolic
//!   analysis between factorizations, and the small stack solve;
//! * [`sensitivity`] — what the implicit differentiation of every problem class shares: the
//!   active-set split of a solution and the one factorization of the reduced system;
//! * [`params`] — the declaration of a solver's parameters (name, default, valid range)
//!   beside the solver, and the checked values its constructor reads;
//! * [`parallel`] — the shared rayon pools and the fixed-chunk loops and reductions that
//!   make a parallel solve's answer independent of the thread count.
//!
//! A solve that runs but does not converge is **not** an error: it returns `Ok` with the best
//! iterate and a [`Status`] saying why it stopped.
#![warn(missing_docs)]

#[cfg(feature = "alloc-count")]
pub mod alloc_count;
mod error;
pub mod graph;
pub mod iteration;
pub mod line_search;
pub mod linear;
mod matrix;
pub mod measures;
pub mod parallel;
pub mod params;
pub mod refine;
mod report;
pub mod sensitivity;
mod settings;

pub use error::Error;
pub use iteration::{Control, Counters, IterativeMethod, LoopOutcome, OnStall, Progress, Stall, StepResult};
pub use matrix::Matrix;
pub use report::{Ray, Solution, SolutionMut, SolveReport, Status, REFINE_ROUNDS};
pub use settings::{Observer, Settings};
/// The faer, sprs and ndarray that [`Matrix`] is built on, re-exported so that a caller builds
/// matrices with the same versions.
pub use {faer, ndarray, sprs};
