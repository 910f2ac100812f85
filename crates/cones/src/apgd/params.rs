//! `apgd`'s parameters (`perp list`, `--param`): their defaults (those of [`Apgd::new`]), the
//! list and the constructor from resolved values.

use super::Apgd;
use perp_core::params::{Bound, Param, Resolved};

/// Default [`Apgd::s_ratio`].
pub const S_RATIO: f64 = 0.1;
/// Default [`Apgd::s_every`].
pub const S_EVERY: usize = 100;
/// Default [`Apgd::l_shrink`].
pub const L_SHRINK: f64 = 0.9;
/// Default [`Apgd::stick_test`].
pub const STICK_TEST: bool = true;

/// `apgd`'s parameters.
pub const PARAMS: &[Param] = &[
    Param::real(
        "s_ratio",
        S_RATIO,
        Bound::Excl(0.0),
        Bound::Excl(1.0),
        "update the De Saxcé shift when the convex residual has fallen by this factor",
    ),
    Param::int("s_every", S_EVERY, 1, usize::MAX, "update the shift at least every this many iterations"),
    Param::real(
        "l_shrink",
        L_SHRINK,
        Bound::Excl(0.0),
        Bound::Incl(1.0),
        "Lipschitz estimate × this after each iteration",
    ),
    Param::flag(
        "stick_test",
        STICK_TEST,
        "no De Saxcé shift for a contact whose gradient step stays inside its cone",
    ),
];

impl Apgd {
    /// APGD with the values of [`PARAMS`] read from `p`.
    pub fn from_params(p: &Resolved) -> Self {
        Apgd {
            s_ratio: p.real("s_ratio"),
            s_every: p.int("s_every"),
            l_shrink: p.real("l_shrink"),
            stick_test: p.flag("stick_test"),
            ..Apgd::new()
        }
    }
}
