//! The parameters of `ac-newton`, `fb-newton` and `nm-newton` (`perp list`, `--param`; `prox`
//! shares most of them for its inner method): their defaults (those of
//! [`SemismoothNewton::alart_curnier`] and its siblings), the list and the constructor from
//! resolved values.

use super::{LinearSolver, NewtonFunction, SemismoothNewton, REGULARIZATION, STALL_ITERATIONS};
use perp_core::params::{Bound, Param, Resolved};

/// Default [`SemismoothNewton::sparse`]: by size and W's fill.
pub const SPARSE: Option<bool> = None;
/// Default [`SemismoothNewton::rho_scale`].
pub const RHO_SCALE: f64 = 1.0;
/// Default [`SemismoothNewton::line_search`].
pub const LINE_SEARCH: bool = true;
/// Default [`SemismoothNewton::linear`].
pub const LINEAR: LinearSolver = LinearSolver::Auto;

/// The values of `sparse=…`, in the order `perp list` gives their words.
const SPARSES: [Option<bool>; 3] = [None, Some(true), Some(false)];

/// The word of a choice of [`SemismoothNewton::sparse`] in `sparse=…`.
pub const fn sparse_word(s: Option<bool>) -> &'static str {
    match s {
        None => "auto",
        Some(true) => "yes",
        Some(false) => "no",
    }
}

const SPARSE_WORDS: [&str; 3] = [sparse_word(SPARSES[0]), sparse_word(SPARSES[1]), sparse_word(SPARSES[2])];

/// The linear solvers, in the order `perp list` gives their words.
const LINEARS: [LinearSolver; 3] = [LinearSolver::Auto, LinearSolver::Direct, LinearSolver::Iterative];

/// The word of a [`LinearSolver`] in `linear=…`.
pub const fn linear_word(l: LinearSolver) -> &'static str {
    match l {
        LinearSolver::Auto => "auto",
        LinearSolver::Direct => "direct",
        LinearSolver::Iterative => "iterative",
    }
}

const LINEAR_WORDS: [&str; 3] = [linear_word(LINEARS[0]), linear_word(LINEARS[1]), linear_word(LINEARS[2])];

/// The `linear` parameter of the Newton methods and prox.
pub const LINEAR_PARAM: Param = Param::choice(
    "linear",
    linear_word(LINEAR),
    &LINEAR_WORDS,
    "sparse Newton systems: LU (direct), BiCGSTAB (iterative), or by size and predicted fill",
);

/// The knobs `prox` shares with the Newton methods, in `perp list`'s order: `sparse`,
/// `linear`, `rho_scale`, `line_search` (defaulting to `line_search`) and `regularization`,
/// described by `texts` (sparse, rho_scale, line_search, regularization).
pub(crate) const fn knobs(line_search: bool, texts: [&'static str; 4]) -> [Param; 5] {
    [
        Param::choice("sparse", sparse_word(SPARSE), &SPARSE_WORDS, texts[0]),
        LINEAR_PARAM,
        Param::real("rho_scale", RHO_SCALE, Bound::Excl(0.0), Bound::Open, texts[1]),
        Param::flag("line_search", line_search, texts[2]),
        Param::real("regularization", REGULARIZATION, Bound::Incl(0.0), Bound::Open, texts[3]),
    ]
}

const KNOBS: [Param; 5] = knobs(
    LINE_SEARCH,
    [
        "sparse LU (yes), dense LU (no), or by size and W's fill",
        "scale of every ρ",
        "Armijo backtracking on ½‖Φ‖²",
        "c of the regularised Newton matrix D_r + D_u (W + σI); 0 = plain",
    ],
);

/// The parameters of `ac-newton`, `fb-newton` and `nm-newton`.
pub const PARAMS: &[Param] = &[
    KNOBS[0],
    KNOBS[1],
    KNOBS[2],
    KNOBS[3],
    KNOBS[4],
    Param::int(
        "stall_iterations",
        STALL_ITERATIONS,
        0,
        usize::MAX,
        "iterations without halving the best error (or a failed line search) after which it goes on as prox from its best iterate; 0 = never",
    ),
];

impl SemismoothNewton {
    /// The method on `function` with the values of [`PARAMS`] read from `p`.
    pub fn from_params(function: NewtonFunction, p: &Resolved) -> Self {
        let mut s = match function {
            NewtonFunction::AlartCurnier => SemismoothNewton::alart_curnier(),
            NewtonFunction::FischerBurmeister => SemismoothNewton::fischer_burmeister(),
            NewtonFunction::NaturalMap => SemismoothNewton::natural_map(),
        };
        s.set_knobs(p);
        s.stall_iterations = p.int("stall_iterations");
        s
    }

    /// The knobs `prox` shares with the Newton methods (`sparse`, `linear`, `rho_scale`,
    /// `line_search`, `regularization`) from `p`.
    pub(crate) fn set_knobs(&mut self, p: &Resolved) {
        let (sparse, linear) = (p.choice("sparse"), p.choice("linear"));
        self.sparse = SPARSES.into_iter().find(|&s| sparse_word(s) == sparse).unwrap_or(SPARSE);
        self.linear = LINEARS.into_iter().find(|&l| linear_word(l) == linear).unwrap_or(LINEAR);
        self.rho_scale = p.real("rho_scale");
        self.line_search = p.flag("line_search");
        self.regularization = p.real("regularization");
    }
}
