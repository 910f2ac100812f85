//! # perp-bench — benchmark problems and the benchmark runner
//!
//! * [`generate`] builds seeded, reproducible LCPs (SPD, PSD of given rank, contact-like
//!   Delassus, P-matrix, Murty's exponential example) and the built-in benchmark suite of
//!   `perp bench`, including problems harvested from the dynamics scenes.
//! * [`mod@bench`] runs the catalogue's solvers over a suite (time limits enforced, panics
//!   caught, shards and merges) and writes `results.csv`, `summary.md`, `results.json` and,
//!   through [`profile`], a Dolan–Moré performance profile `profile.svg`.
//!
//! The problem files are read and written by `perp-formats`, re-exported here under their
//! old paths (`perp_bench::read_problem`, `perp_bench::convert`, …) so that code written
//! against earlier versions keeps compiling.
#![warn(missing_docs)]

pub mod bench;
pub mod generate;
pub mod profile;

pub use perp_formats::{convert, fclib, friction, json, mlcp, mtx, siconos, tokens};
pub use perp_formats::{
    parse_friction_contact, parse_lcp, parse_mlcp, read_fclib, read_fclib_with_extras, read_friction_contact,
    read_friction_file, read_lcp, read_mlcp, read_numerics_matrix, read_problem, suites_dir, FclibExtras,
    FrictionFile, Problem, ProblemKind,
};
