//! Lemke's parameters (`perp list`, `--param`): their defaults, the list and the constructor
//! from resolved values.

use super::Lemke;
use perp_core::params::{Param, Resolved};

/// Default [`Lemke::restarts`].
pub const RESTARTS: usize = 4;
/// Default [`Lemke::crash`].
pub const CRASH: usize = 8;

/// Lemke's parameters.
pub const PARAMS: &[Param] = &[
    Param::int("restarts", RESTARTS, 0, 100, "attempts with other covering vectors after a ray termination"),
    Param::int(
        "crash",
        CRASH,
        0,
        100,
        "block principal pivoting rounds guessing the support before a cold start (n >= 64; 0: the all-w start)",
    ),
];

impl Lemke {
    /// Lemke with the values of [`PARAMS`] read from `p`, the rest as [`Lemke::new`].
    pub fn from_params(p: &Resolved) -> Self {
        Lemke { restarts: p.int("restarts"), crash: p.int("crash"), ..Lemke::new() }
    }
}
