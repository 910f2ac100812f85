//! `global-ac-newton`'s parameters (`perp list`, `--param`): their defaults (those of
//! [`GlobalNewton::new`]), the list and the constructor from resolved values.

use super::{GlobalNewton, NewtonSystem};
use perp_core::params::{Bound, Param, Resolved};

/// Default [`GlobalNewton::max_iter`].
pub const MAX_ITER: usize = 200;
/// Default [`GlobalNewton::rho_scale`].
pub const RHO_SCALE: f64 = 1.0;
/// Default [`GlobalNewton::stall_iterations`].
pub const STALL_ITERATIONS: usize = 20;
/// Default [`GlobalNewton::regularization`]. Measured on the steps of `ball-pile 20, 50, 100`
/// (the first 40, every second for 100; 118 problems, cold, at 1e-8; `docs/performance.md`,
/// Velocity space): `global-ac-newton` solved 73 without the regularisation, 110 with the
/// local ac-newton's c = 0.01, 114 with 0.1; `c · min(1, e)²` did worse (104).
pub const REGULARIZATION: f64 = 0.1;

/// Default [`GlobalNewton::system`].
pub const SYSTEM: NewtonSystem = NewtonSystem::Velocities;

/// The systems, in the order `perp list` gives their words.
const SYSTEMS: [NewtonSystem; 2] = [NewtonSystem::Velocities, NewtonSystem::Full];
const SYSTEM_WORDS: [&str; 2] = [system_word(SYSTEMS[0]), system_word(SYSTEMS[1])];

/// The word of a [`NewtonSystem`] in `system=…`.
pub const fn system_word(s: NewtonSystem) -> &'static str {
    match s {
        NewtonSystem::Velocities => "velocities",
        NewtonSystem::Full => "full",
    }
}

/// `global-ac-newton`'s parameters.
pub const PARAMS: &[Param] = &[
    Param::int("max_iter", MAX_ITER, 1, usize::MAX, "Newton iterations at most (when the settings give none)"),
    Param::real(
        "rho_scale",
        RHO_SCALE,
        Bound::Excl(0.0),
        Bound::Excl(f64::INFINITY),
        "factor on each contact's ρ = 1 / diag(H_iᵀ M⁻¹ H_i)",
    ),
    Param::int(
        "stall_iterations",
        STALL_ITERATIONS,
        0,
        usize::MAX,
        "go on in prox's mode (Φ at u + σ(r − r_ref)) after this many iterations without halving the error (0: never)",
    ),
    Param::real(
        "regularization",
        REGULARIZATION,
        Bound::Incl(0.0),
        Bound::Open,
        "c of the regularised Newton matrix: σ = c · mean diag W · min(1, error) added to the r columns as σ J_u (0: plain)",
    ),
    Param::choice(
        "system",
        system_word(SYSTEM),
        &SYSTEM_WORDS,
        "the Newton system: reduced to the velocities (sparse LU of order n_dof, the (v, r) system when it is singular), or the (v, r) system of order n_dof + m",
    ),
];

impl GlobalNewton {
    /// The method with the values of [`PARAMS`] read from `p`.
    pub fn from_params(p: &Resolved) -> Self {
        GlobalNewton {
            max_iter: p.int("max_iter"),
            rho_scale: p.real("rho_scale"),
            stall_iterations: p.int("stall_iterations"),
            regularization: p.real("regularization"),
            system: SYSTEMS.into_iter().find(|&x| system_word(x) == p.choice("system")).unwrap_or(SYSTEM),
            ..GlobalNewton::new()
        }
    }
}
