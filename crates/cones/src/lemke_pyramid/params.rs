//! `lemke-pyramid`'s parameters (`perp list`, `--param`): their defaults (those of
//! [`LemkePyramid::new`]), the list and the constructor from resolved values.

use super::LemkePyramid;
use perp_core::params::{Param, Resolved};

/// Default [`LemkePyramid::facets`].
pub const FACETS: usize = 8;
/// Default [`LemkePyramid::refine`].
pub const REFINE: usize = 20;
/// Default [`LemkePyramid::max_facets`].
pub const MAX_FACETS: usize = 32;

/// `lemke-pyramid`'s parameters.
pub const PARAMS: &[Param] = &[
    Param::int("facets", FACETS, 3, 4096, "generators of each contact's base pyramid"),
    Param::int("refine", REFINE, 0, 10_000, "alignment rounds after the first solve"),
    Param::int(
        "max_facets",
        MAX_FACETS,
        0,
        4096,
        "a solve stalled at the linearisation error is repeated with twice the facets up to this",
    ),
];

impl LemkePyramid {
    /// The method with the values of [`PARAMS`] read from `p`.
    pub fn from_params(p: &Resolved) -> Self {
        LemkePyramid { facets: p.int("facets"), refine: p.int("refine"), max_facets: p.int("max_facets") }
    }
}
