//! The parameters of `pgs`, `psor` and `rpgs` (`perp list`, `--param`): one list each, their
//! defaults the constants of [`super`], and the constructor from resolved values.

use super::*;
use perp_core::params::{Bound, Param, Resolved};

/// The list of the entry whose ω and ρ default to `omega` and `rho`.
const fn list(omega: f64, rho: f64) -> [Param; 5] {
    [
        Param::real("omega", omega, Bound::Excl(0.0), Bound::Excl(2.0), "relaxation ω"),
        Param::real("rho", rho, Bound::Incl(0.0), Bound::Open, "proximal weight ρ added to the diagonal"),
        Param::int(
            "inner_sweeps",
            DEFAULT_INNER_SWEEPS,
            1,
            usize::MAX,
            "inner sweeps per proximal step (rho > 0)",
        ),
        Param::real(
            "inner_tol",
            DEFAULT_INNER_TOL,
            Bound::Incl(0.0),
            Bound::Open,
            "inner convergence test (rho > 0)",
        ),
        Param::int(
            "check_every",
            DEFAULT_CHECK_EVERY,
            1,
            usize::MAX,
            "exact error check every this many sweeps",
        ),
    ]
}

/// `pgs`'s parameters (defaults those of [`Pgs::pgs`]).
pub const PGS_PARAMS: &[Param] = &list(DEFAULT_OMEGA, DEFAULT_RHO);
/// `psor`'s parameters (ω defaults to [`DEFAULT_PSOR_OMEGA`]).
pub const PSOR_PARAMS: &[Param] = &list(DEFAULT_PSOR_OMEGA, DEFAULT_RHO);
/// `rpgs`'s parameters (ρ defaults to [`DEFAULT_RPGS_RHO`]).
pub const RPGS_PARAMS: &[Param] = &list(DEFAULT_OMEGA, DEFAULT_RPGS_RHO);

impl Pgs {
    /// The solver with the values of one of the lists above read from `p` (ω and ρ decide
    /// which of `pgs`, `psor` and `rpgs` it is).
    pub fn from_params(p: &Resolved) -> Self {
        Pgs {
            omega: p.real("omega"),
            rho: p.real("rho"),
            inner_sweeps: p.int("inner_sweeps"),
            inner_tol: p.real("inner_tol"),
            check_every: p.int("check_every"),
            ..Pgs::pgs()
        }
    }
}
