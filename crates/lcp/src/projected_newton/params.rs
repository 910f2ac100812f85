//! The projected Newton method's parameters (`perp list`, `--param`): their defaults (those of
//! [`ProjectedNewton::new`]), the list and the constructor from resolved values.

use super::ProjectedNewton;
use perp_core::params::{Bound, Param, Resolved};

/// Default [`ProjectedNewton::sigma`].
pub const SIGMA: f64 = 1e-4;
/// Default [`ProjectedNewton::beta`].
pub const BETA: f64 = 0.5;
/// Default [`ProjectedNewton::eps_bar`].
pub const EPS_BAR: f64 = 1e-3;
/// Default [`ProjectedNewton::min_step`].
pub const MIN_STEP: f64 = 1e-12;
/// Default [`ProjectedNewton::reg_min`].
pub const REG_MIN: f64 = 1e-12;
/// Default [`ProjectedNewton::reg_max`].
pub const REG_MAX: f64 = 1e-8;
/// Default [`ProjectedNewton::dense_limit`].
pub const DENSE_LIMIT: usize = 100;

/// The projected Newton method's parameters.
pub const PARAMS: &[Param] = &[
    Param::real("sigma", SIGMA, Bound::Excl(0.0), Bound::Excl(0.5), "Armijo constant σ"),
    Param::real("beta", BETA, Bound::Excl(0.0), Bound::Excl(1.0), "backtracking factor β"),
    Param::real("eps_bar", EPS_BAR, Bound::Excl(0.0), Bound::Open, "cap on the ε of the ε-active set"),
    Param::real("min_step", MIN_STEP, Bound::Excl(0.0), Bound::Excl(1.0), "smallest step before Stalled"),
    Param::real(
        "reg_min",
        REG_MIN,
        Bound::Excl(0.0),
        Bound::Open,
        "first regularization tried when Cholesky fails",
    ),
    Param::real(
        "reg_max",
        REG_MAX,
        Bound::Excl(0.0),
        Bound::Open,
        "largest regularization (M not PSD beyond)",
    ),
    Param::int(
        "dense_limit",
        DENSE_LIMIT,
        0,
        usize::MAX,
        "sparse M: free blocks up to this size are densified",
    ),
];

impl ProjectedNewton {
    /// The method with the values of [`PARAMS`] read from `p`.
    pub fn from_params(p: &Resolved) -> Self {
        ProjectedNewton {
            sigma: p.real("sigma"),
            beta: p.real("beta"),
            eps_bar: p.real("eps_bar"),
            min_step: p.real("min_step"),
            reg_min: p.real("reg_min"),
            reg_max: p.real("reg_max"),
            dense_limit: p.int("dense_limit"),
            ..ProjectedNewton::new()
        }
    }
}
