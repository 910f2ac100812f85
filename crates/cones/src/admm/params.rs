//! `admm`'s parameters (`perp list`, `--param`): their defaults (those of [`Admm::new`]), the
//! list and the constructor from resolved values.

use super::{Admm, FirstRescale, RhoStrategy, Shift};
use perp_core::params::{Bound, Param, Resolved};

/// Default [`Admm::rho0`].
pub const RHO0: f64 = 1.0;
/// Default [`Admm::strategy`].
pub const STRATEGY: RhoStrategy = RhoStrategy::Balancing;
/// Default [`Admm::tau`].
pub const TAU: f64 = 2.0;
/// Default [`Admm::phi`].
pub const PHI: f64 = 3.0;
/// Default [`Admm::adapt_every`].
pub const ADAPT_EVERY: usize = 20;
/// Default [`Admm::acceleration`].
pub const ACCELERATION: bool = true;
/// Default [`Admm::eta`].
pub const ETA: f64 = 0.999;
/// Default [`Admm::shift`].
pub const SHIFT: Shift = Shift::Multiplier;
/// Default [`Admm::first_rescale`].
pub const FIRST_RESCALE: FirstRescale = FirstRescale::Rolling;

/// The strategies, in the order `perp list` gives their words.
const STRATEGIES: [RhoStrategy; 2] = [RhoStrategy::Balancing, RhoStrategy::Constant];

/// The word of a [`RhoStrategy`] in `rho_strategy=…`.
pub const fn strategy_word(s: RhoStrategy) -> &'static str {
    match s {
        RhoStrategy::Balancing => "balancing",
        RhoStrategy::Constant => "constant",
    }
}

const STRATEGY_WORDS: [&str; 2] = [strategy_word(STRATEGIES[0]), strategy_word(STRATEGIES[1])];

/// The rescale rules, in the order `perp list` gives their words.
const RESCALES: [FirstRescale; 3] = [FirstRescale::Rolling, FirstRescale::Never, FirstRescale::Always];

/// The word of a [`FirstRescale`] in `first_rescale=…`.
pub const fn rescale_word(r: FirstRescale) -> &'static str {
    match r {
        FirstRescale::Rolling => "rolling",
        FirstRescale::Never => "never",
        FirstRescale::Always => "always",
    }
}

const RESCALE_WORDS: [&str; 3] =
    [rescale_word(RESCALES[0]), rescale_word(RESCALES[1]), rescale_word(RESCALES[2])];

/// The shifts, in the order `perp list` gives their words.
const SHIFTS: [Shift; 2] = [Shift::Multiplier, Shift::Velocity];

/// The word of a [`Shift`] in `shift=…`.
pub const fn shift_word(s: Shift) -> &'static str {
    match s {
        Shift::Multiplier => "multiplier",
        Shift::Velocity => "velocity",
    }
}

const SHIFT_WORDS: [&str; 2] = [shift_word(SHIFTS[0]), shift_word(SHIFTS[1])];

/// `admm`'s parameters.
pub const PARAMS: &[Param] = &[
    Param::real("rho0", RHO0, Bound::Excl(0.0), Bound::Open, "ρ₀ relative to the mean diagonal entry of W"),
    Param::choice(
        "rho_strategy",
        strategy_word(STRATEGY),
        &STRATEGY_WORDS,
        "penalty adaptation: scaled residual balancing, or none",
    ),
    Param::choice(
        "first_rescale",
        rescale_word(FIRST_RESCALE),
        &RESCALE_WORDS,
        "rescale ρ once after the first iteration by √(primal/dual residual) (OSQP's rule; balancing only): on rolling laws, never, or always",
    ),
    Param::real("tau", TAU, Bound::Excl(1.0), Bound::Open, "factor of a change of ρ"),
    Param::real("phi", PHI, Bound::Excl(1.0), Bound::Open, "residual imbalance that changes ρ"),
    Param::int("adapt_every", ADAPT_EVERY, 1, usize::MAX, "reconsider ρ every this many iterations"),
    Param::flag("acceleration", ACCELERATION, "Nesterov acceleration with restart (Goldstein et al. 2014 §4.3)"),
    Param::real("eta", ETA, Bound::Excl(0.0), Bound::Incl(1.0), "restart threshold η"),
    Param::choice(
        "shift",
        shift_word(SHIFT),
        &SHIFT_WORDS,
        "De Saxcé shift from the multiplier's velocity −ρξ, or from u = W r + q (Siconos)",
    ),
];

impl Admm {
    /// ADMM with the values of [`PARAMS`] read from `p`.
    pub fn from_params(p: &Resolved) -> Self {
        let (strategy, rescale, shift) =
            (p.choice("rho_strategy"), p.choice("first_rescale"), p.choice("shift"));
        Admm {
            rho0: p.real("rho0"),
            strategy: STRATEGIES.into_iter().find(|&s| strategy_word(s) == strategy).unwrap_or(STRATEGY),
            tau: p.real("tau"),
            phi: p.real("phi"),
            adapt_every: p.int("adapt_every"),
            acceleration: p.flag("acceleration"),
            eta: p.real("eta"),
            shift: SHIFTS.into_iter().find(|&s| shift_word(s) == shift).unwrap_or(SHIFT),
            first_rescale: RESCALES
                .into_iter()
                .find(|&r| rescale_word(r) == rescale)
                .unwrap_or(FIRST_RESCALE),
            ..Admm::new()
        }
    }
}
