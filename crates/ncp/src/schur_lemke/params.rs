//! The Schur-complement Lemke method's parameters (`perp list`, `--param`): the default (that
//! of [`SchurLemke::new`]), the list and the constructor from resolved values.

use super::SchurLemke;
use perp_core::params::{Param, Resolved};

/// Default [`SchurLemke::polish_rounds`].
pub const POLISH_ROUNDS: usize = 100;

/// The method's parameters.
pub const PARAMS: &[Param] = &[Param::int(
    "polish_rounds",
    POLISH_ROUNDS,
    0,
    100_000,
    "most rounds of block principal pivoting after Lemke (0: none)",
)];

impl SchurLemke {
    /// The method with the values of [`PARAMS`] read from `p`.
    pub fn from_params(p: &Resolved) -> Self {
        SchurLemke { polish_rounds: p.int("polish_rounds") }
    }
}
