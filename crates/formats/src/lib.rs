//! # perp-formats — problem files
//!
//! Readers and writers for the problem files perp exchanges with its peers. This crate
//! depends only on the problem types (`perp-core`, `perp-lcp`, `perp-ncp`, `perp-cones` and
//! the catalogue's `Problem` enum), never on time stepping or the bench runner.
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
//! * [`rolling`] reads Siconos rolling frictional contact files (local or global, d = 5 or 3:
//!   the frictional layout with μ_r after μ) and FCLIB's global rolling HDF5
//!   (`/fclib_global_rolling`, [`fclib`]) into a problem with `ConeSpec::Rolling` laws.
//! * [`mtx`] reads and writes MatrixMarket problems: `foo.mtx` (M or W) with `foo_q.mtx` and,
//!   by kind, `foo_mu.mtx` or `foo_free.mtx`.
//! * [`json`] reads and writes one self-describing JSON object per problem (schema in its
//!   module docs); [`convert`] picks the format by extension (`read_any`, `write_any`).
//!
//! No input file can make a reader panic or allocate beyond what the file can hold: every size
//! is checked against the tokens left before anything is allocated.
#![warn(missing_docs)]

pub mod convert;
pub mod fclib;
pub mod friction;
pub mod friction_file;
pub mod json;
pub mod mlcp;
pub mod mtx;
pub mod rolling;
pub mod siconos;
pub mod tokens;

pub use fclib::{read_fclib, read_fclib_with_extras, FclibExtras};
pub use friction::{parse_friction_contact, read_friction_contact, read_friction_file};
pub use friction_file::FrictionFile;
pub use mlcp::{parse_mlcp, read_mlcp, read_problem, Problem, ProblemKind};
pub use rolling::{parse_rolling_friction_contact, read_rolling_friction_contact, RollingFile};
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
