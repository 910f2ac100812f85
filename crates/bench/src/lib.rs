//! # perp-bench — benchmark problems and the benchmark runner
//!
//! * [`generate`] builds seeded, reproducible LCPs (SPD, PSD of given rank, contact-like
//!   Delassus, P-matrix, Murty's exponential example) and the built-in benchmark suite of
//!   `perp bench`, including problems harvested from the dynamics scenes.
//! * [`mod@bench`] runs the catalogue's solvers over a suite (time limits enforced, panics
//!   caught, shards and merges) and writes `results.csv`, `summary.md`, `results.json` and,
//!   through [`profile`], a Dolan–Moré performance profile `profile.svg`.
//!
//! The problem files are read and written by `perp-formats` (`perp::formats`).
#![warn(missing_docs)]

pub mod bench;
pub mod generate;
pub mod profile;
