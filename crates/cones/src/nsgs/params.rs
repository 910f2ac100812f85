//! `nsgs`'s parameters (`perp list`, `--param`): their defaults (those of [`Nsgs::new`]), the
//! list and the constructor from resolved values.

use super::Nsgs;
use crate::local::LocalSolver;
use perp_core::params::{Bound, Param, Resolved};

/// Default [`Nsgs::local`].
pub const LOCAL: LocalSolver = LocalSolver::Auto;
/// Default [`Nsgs::omega`].
pub const OMEGA: f64 = 1.0;
/// Default [`Nsgs::shuffle`]: the natural contact order.
pub const SHUFFLE: Option<u64> = None;
/// Default [`Nsgs::local_max_iter`].
pub const LOCAL_MAX_ITER: usize = 20;
/// Default [`Nsgs::colouring`].
pub const COLOURING: bool = false;
/// Default [`Nsgs::forecast`].
pub const FORECAST: bool = true;

/// The one-contact solvers, in the order `perp list` gives their words.
const LOCALS: [LocalSolver; 5] = [
    LocalSolver::Auto,
    LocalSolver::Projection,
    LocalSolver::AlartCurnier,
    LocalSolver::FischerBurmeister,
    LocalSolver::ClosedForm2d,
];

/// The word of a one-contact solver in `local=…`.
pub const fn local_word(l: LocalSolver) -> &'static str {
    match l {
        LocalSolver::Auto => "auto",
        LocalSolver::Projection => "projection",
        LocalSolver::AlartCurnier => "ac",
        LocalSolver::FischerBurmeister => "fb",
        LocalSolver::ClosedForm2d => "closed-form-2d",
    }
}

const LOCAL_WORDS: [&str; 5] = [
    local_word(LOCALS[0]),
    local_word(LOCALS[1]),
    local_word(LOCALS[2]),
    local_word(LOCALS[3]),
    local_word(LOCALS[4]),
];

/// `shuffle=k`: 0 for the natural order, the seed otherwise.
const fn shuffle_number(s: Option<u64>) -> usize {
    match s {
        None => 0,
        Some(k) => k as usize,
    }
}

/// `nsgs`'s parameters.
pub const PARAMS: &[Param] = &[
    Param::real("omega", OMEGA, Bound::Excl(0.0), Bound::Excl(2.0), "relaxation ω"),
    Param::int(
        "shuffle",
        shuffle_number(SHUFFLE),
        0,
        usize::MAX,
        "0: natural contact order; k ≥ 1: a random order per sweep, seed k",
    ),
    Param::int("local_max_iter", LOCAL_MAX_ITER, 1, usize::MAX, "iteration limit of the one-contact solver"),
    Param::choice("local", local_word(LOCAL), &LOCAL_WORDS, "the one-contact solver"),
    Param::flag(
        "colouring",
        COLOURING,
        "sweep a greedy colouring of the contact graph, each colour in parallel (threads); same answer for any thread count",
    ),
    Param::flag(
        "forecast",
        FORECAST,
        "give up (stalled) when the rate of the recent sweeps cannot reach tol within the sweep or time limit",
    ),
];

impl Nsgs {
    /// NSGS with the values of [`PARAMS`] read from `p`.
    pub fn from_params(p: &Resolved) -> Self {
        let word = p.choice("local");
        Nsgs {
            local: LOCALS.into_iter().find(|&l| local_word(l) == word).unwrap_or(LOCAL),
            omega: p.real("omega"),
            shuffle: match p.int("shuffle") {
                0 => None,
                k => Some(k as u64),
            },
            local_max_iter: p.int("local_max_iter"),
            colouring: p.flag("colouring"),
            forecast: p.flag("forecast"),
            ..Nsgs::new()
        }
    }
}
