//! The B-differentiable Newton method's parameters (`perp list`, `--param`; the MCP entry and
//! the LCP one through the MCP form): their defaults (those of [`BdiffNewton::new`]), the list
//! and the constructor from resolved values.

use super::BdiffNewton;
use crate::proximal::{self, Proximal};
use perp_core::params::{Bound, Param, Resolved};

/// Default [`BdiffNewton::sigma`].
pub const SIGMA: f64 = 1e-4;
/// Default [`BdiffNewton::min_step`].
pub const MIN_STEP: f64 = 1e-12;
/// Default [`BdiffNewton::degenerate_tol`].
pub const DEGENERATE_TOL: f64 = 1e-10;
/// Default [`BdiffNewton::hot_start`].
pub const HOT_START: bool = true;

/// The method's parameters.
pub const PARAMS: &[Param] = &[
    Param::real("sigma", SIGMA, Bound::Excl(0.0), Bound::Excl(0.5), "Armijo constant σ"),
    Param::real("min_step", MIN_STEP, Bound::Excl(0.0), Bound::Excl(1.0), "smallest trial step"),
    Param::real(
        "degenerate_tol",
        DEGENERATE_TOL,
        Bound::Incl(0.0),
        Bound::Open,
        "relative tie tolerance defining δ",
    ),
    Param::flag(
        "hot_start",
        HOT_START,
        "start the next solve of the same size at the last solution and index sets",
    ),
    proximal::ROUNDS_PARAM,
    proximal::LAMBDA_PARAM,
];

impl BdiffNewton {
    /// The method with the values of [`PARAMS`] read from `p`, the rest as [`BdiffNewton::new`].
    pub fn from_params(p: &Resolved) -> Self {
        BdiffNewton {
            sigma: p.real("sigma"),
            min_step: p.real("min_step"),
            degenerate_tol: p.real("degenerate_tol"),
            hot_start: p.flag("hot_start"),
            proximal: Proximal::from_params(p),
            ..BdiffNewton::new()
        }
    }
}
