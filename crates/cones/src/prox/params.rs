//! `prox`'s parameters (`perp list`, `--param`): its defaults (those of [`Prox::new`], the
//! inner method's those of `ac-newton` but for the line search), the list and the constructor
//! from resolved values.

use super::Prox;
use crate::newton::params::knobs;
use perp_core::params::{Bound, Param, Resolved};

/// Default [`Prox::sigma0`].
pub const SIGMA0: f64 = 1.0;
/// Default [`Prox::nu`].
pub const NU: f64 = 100.0;
/// Default [`Prox::inner_max`].
pub const INNER_MAX: usize = 10;
/// Default line search of the inner method (full steps: see [`Prox`]).
pub const INNER_LINE_SEARCH: bool = false;

const KNOBS: [Param; 5] = knobs(
    INNER_LINE_SEARCH,
    [
        "inner Newton: sparse LU (yes), dense (no), or by size and fill",
        "inner Newton: scale of every ρ",
        "inner Newton: Armijo backtracking",
        "inner Newton: c of the regularised Newton matrix",
    ],
);

/// `prox`'s parameters.
pub const PARAMS: &[Param] = &[
    Param::real(
        "sigma0",
        SIGMA0,
        Bound::Excl(0.0),
        Bound::Open,
        "σ₀ relative to the largest diagonal entry of W",
    ),
    Param::real("nu", NU, Bound::Excl(1.0), Bound::Open, "adaptation factor of σ"),
    Param::int("inner_max", INNER_MAX, 1, usize::MAX, "inner iterations before the centre moves anyway"),
    KNOBS[0],
    KNOBS[1],
    KNOBS[2],
    KNOBS[3],
    KNOBS[4],
];

impl Prox {
    /// `prox` with the values of [`PARAMS`] read from `p`.
    pub fn from_params(p: &Resolved) -> Self {
        let mut s =
            Prox { sigma0: p.real("sigma0"), nu: p.real("nu"), inner_max: p.int("inner_max"), ..Prox::new() };
        s.inner.set_knobs(p);
        s
    }
}
