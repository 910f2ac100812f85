//! # perp-bench — the built-in suite and the benchmark runner
//!
//! * [`builtin`] is the built-in benchmark suite of `perp bench`: seeded problems from the
//!   solver crates' `samples` modules (`perp_lcp::samples`, `perp_ncp::samples`,
//!   `perp_cones::samples`) and problems harvested from the dynamics scenes.
//! * [`mod@bench`] runs the catalogue's solvers over a suite (time limits enforced, panics
//!   caught, shards and merges) and writes `results.csv`, `summary.md`, `results.json` and,
//!   through [`profile`], a Dolan–Moré performance profile `profile.svg`.
//!
//! The problem files are read and written by `perp-formats` (`perp::formats`).
#![warn(missing_docs)]

pub mod bench;
pub mod builtin;
pub mod profile;
