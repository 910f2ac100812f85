//! The Fischer–Burmeister Newton method's parameters (`perp list`, `--param`; the MCP entry
//! and the LCP one through the MCP form): their defaults (those of [`FbNewton::new`]), the
//! list and the constructor from resolved values.

use super::FbNewton;
use crate::proximal::{self, Proximal};
use perp_core::params::{Bound, Param, Resolved};

/// Default [`FbNewton::lambda`].
pub const LAMBDA: f64 = 1.0;
/// Default [`FbNewton::nonmonotone`].
pub const NONMONOTONE: usize = 10;
/// Default [`FbNewton::sigma`].
pub const SIGMA: f64 = 1e-4;
/// Default [`FbNewton::rho`].
pub const RHO: f64 = 1e-8;
/// Default [`FbNewton::p`].
pub const P: f64 = 2.1;
/// Default [`FbNewton::min_step`].
pub const MIN_STEP: f64 = 1e-12;

/// The method's parameters.
pub const PARAMS: &[Param] = &[
    Param::real("lambda", LAMBDA, Bound::Excl(0.0), Bound::Incl(1.0), "Chen–Chen–Kanzow weight λ of φ_λ"),
    Param::int(
        "nonmonotone",
        NONMONOTONE,
        0,
        1000,
        "non-monotone window of the Armijo reference (0 = monotone)",
    ),
    Param::real("sigma", SIGMA, Bound::Excl(0.0), Bound::Excl(0.5), "Armijo constant σ"),
    Param::real("rho", RHO, Bound::Excl(0.0), Bound::Open, "descent-test constant ρ (DFK 1996)"),
    Param::real("p", P, Bound::Excl(2.0), Bound::Open, "descent-test exponent p (DFK 1996)"),
    Param::real("min_step", MIN_STEP, Bound::Excl(0.0), Bound::Excl(1.0), "smallest step length tried"),
    proximal::ROUNDS_PARAM,
    proximal::LAMBDA_PARAM,
];

impl FbNewton {
    /// The method with the values of [`PARAMS`] read from `p`, the rest as [`FbNewton::new`].
    pub fn from_params(p: &Resolved) -> Self {
        FbNewton {
            lambda: p.real("lambda"),
            nonmonotone: p.int("nonmonotone"),
            sigma: p.real("sigma"),
            rho: p.real("rho"),
            p: p.real("p"),
            min_step: p.real("min_step"),
            proximal: Proximal::from_params(p),
            ..FbNewton::new()
        }
    }
}
