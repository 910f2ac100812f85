//! # perp-suite — problem readers and generated problems
//!
//! * [`read_lcp`] / [`parse_lcp`] read a Siconos numerics LCP file (`n`, the matrix M, q) into
//!   an [`perp_lcp::Lcp`]; [`read_numerics_matrix`] reads one Siconos "NumericsMatrix" block
//!   (dense, sparse-block or CSparse text) and serves the other readers. Formats:
//!   `design/SUITES.md` and the [`siconos`] module docs.
//! * [`tokens::Tokens`] is the `fscanf`-style token stream they share: every error names the
//!   file, the 1-based token position, the field being read and the offending token.
//! * [`read_friction_contact`] reads a frictional contact problem: Siconos FrictionContact
//!   `.dat` (local or global, any matrix storage) or FCLIB `.hdf5` (through the pure-Rust
//!   `hdf5-pure`, no C library); global problems are reduced to the local form
//!   (`perp_cones::global`). [`read_problem`] detects the kind of any supported file.
//! * [`generate`] builds seeded, reproducible LCPs (SPD, PSD of given rank, contact-like
//!   Delassus, P-matrix, Murty's exponential example) and the built-in benchmark suite of
//!   `perp bench`.
//! * [`mod@bench`] runs solvers over a suite (time limits enforced, panics caught, shards and
//!   merges) and writes `results.csv`, `summary.md`, `results.json` and, through [`profile`],
//!   a Dolan–Moré performance profile `profile.svg`.
//! * [`mtx`] reads and writes MatrixMarket problems: `foo.mtx` (M or W) with `foo_q.mtx` and,
//!   by kind, `foo_mu.mtx` or `foo_free.mtx`.
//! * [`json`] reads and writes one self-describing JSON object per problem (schema in its
//!   module docs); [`convert`] picks the format by extension (`read_any`, `write_any`).
//!
//! No input file can make a reader panic or allocate beyond what the file can hold: every size
//! is checked against the tokens left before anything is allocated.
#![warn(missing_docs)]

pub mod bench;
pub mod convert;
pub mod fclib;
pub mod friction;
pub mod generate;
pub mod json;
pub mod mlcp;
pub mod mtx;
pub mod profile;
pub mod siconos;
pub mod tokens;

pub use fclib::{read_fclib, read_fclib_with_extras, FclibExtras};
pub use friction::{parse_friction_contact, read_friction_contact, read_friction_file, FrictionFile};
pub use mlcp::{parse_mlcp, read_mlcp, read_problem, Problem, ProblemKind};
pub use siconos::{parse_lcp, read_lcp, read_numerics_matrix};

/// The peer-suite folder (the one holding `siconos/`) named by the `PERP_SUITES` environment
/// variable, as tests and benches that need `../shared/suites` read it. Panics with a message
/// saying what to set when the variable is absent: callers are tests marked
/// `#[ignore = "needs PERP_SUITES"]`.
pub fn suites_dir() -> std::path::PathBuf {
    match std::env::var_os("PERP_SUITES") {
        Some(p) => std::path::PathBuf::from(p),
        None => panic!(
            "this test reads the peer suites: set PERP_SUITES to the folder holding siconos/ \
             (e.g. PERP_SUITES=$PWD/../shared/suites)"
        ),
    }
}
