//! `global-ipm`'s parameters (`perp list`, `--param`): their defaults (those of
//! [`GlobalIpm::new`]), the list and the constructor from resolved values.

use super::{GlobalIpm, KktForm};
use perp_core::params::{Bound, Param, Resolved};

/// Default [`GlobalIpm::max_iter`].
pub const MAX_ITER: usize = 100;
/// Default [`GlobalIpm::fixed_point`].
pub const FIXED_POINT: usize = 1;
/// Default [`GlobalIpm::polish`].
pub const POLISH: bool = true;

/// Default [`GlobalIpm::warm_newton`].
pub const WARM_NEWTON: usize = 3;

/// Default [`GlobalIpm::warm_newton`] on the convex relaxation ([`GlobalIpm::convex`]), tried
/// from a warm start within 0.3 of the certificate: on `ball-pile 1000` at 1e-8 a step where a contact appears or leaves
/// the settled pile takes two to six iterations, and 6 or 10 cost more over the run than 8
/// (`docs/performance.md`, Velocity space).
pub const CONVEX_WARM_NEWTON: usize = 8;

/// Default [`GlobalIpm::retry_regularization`]: three times `global-ac-newton`'s default
/// ([`crate::global_newton::params::REGULARIZATION`]). On the exact cones' `ball-pile N`
/// steps whose Newton finish stalled at 1–5 · 10⁻⁶ against a tolerance of 10⁻⁶ (200
/// iterations, then the stepper's fallback chain, prox on W, seconds each), a run from the
/// convex answer with 0.3 solved most in 10–200 iterations (`docs/performance.md`, Velocity
/// space). From a warm start (the previous step's impulses) that run starts there, in
/// lockstep with the first from the first's stall, and the run from the convex answer comes
/// third.
pub const RETRY_REGULARIZATION: f64 = 0.3;

/// Default [`GlobalIpm::kkt`].
pub const KKT: KktForm = KktForm::Reduced;

/// The KKT forms, in the order `perp list` gives their words.
const KKT_FORMS: [KktForm; 2] = [KktForm::Reduced, KktForm::QuasiDefinite];
const KKT_WORDS: [&str; 2] = [kkt_word(KKT_FORMS[0]), kkt_word(KKT_FORMS[1])];

/// The word of a [`KktForm`] in `kkt=…`.
pub const fn kkt_word(k: KktForm) -> &'static str {
    match k {
        KktForm::Reduced => "reduced",
        KktForm::QuasiDefinite => "quasi-definite",
    }
}

/// `global-ipm`'s parameters.
pub const PARAMS: &[Param] = &[
    Param::int("max_iter", MAX_ITER, 1, usize::MAX, "interior-point iterations at most per convex solve"),
    Param::int(
        "fixed_point",
        FIXED_POINT,
        1,
        usize::MAX,
        "convex solves at most in the De Saxcé fixed point before the Newton method (1: the convex problem alone)",
    ),
    Param::flag("polish", POLISH, "finish with global-ac-newton from the fixed point's reactions when it stops short of tol"),
    Param::int(
        "warm_newton",
        WARM_NEWTON,
        0,
        usize::MAX,
        "Newton iterations at most from a warm start near the answer before the interior point (global-ac-newton; on the convex relaxation its natural map, from a warm start within 0.3 of the certificate, default 8) (0: never)",
    ),
    Param::real(
        "retry_regularization",
        RETRY_REGULARIZATION,
        Bound::Incl(0.0),
        Bound::Open,
        "second chances for global-ac-newton from the convex answer, with this regularization: a run from the warm start (else from the convex answer) in lockstep with the first once it stalls or reaches 40 iterations, then one from the convex answer (0: never)",
    ),
    Param::choice(
        "kkt",
        kkt_word(KKT),
        &KKT_WORDS,
        "the KKT system: reduced to the velocities (supernodal Cholesky; quasi-definite near the answer), or quasi-definite throughout (sparse LDLᵀ)",
    ),
];

impl GlobalIpm {
    /// The method with the values of [`PARAMS`] read from `p`.
    pub fn from_params(p: &Resolved) -> Self {
        GlobalIpm {
            max_iter: p.int("max_iter"),
            fixed_point: p.int("fixed_point"),
            polish: p.flag("polish"),
            warm_newton: p.int("warm_newton"),
            retry_regularization: p.real("retry_regularization"),
            kkt: KKT_FORMS.into_iter().find(|&k| kkt_word(k) == p.choice("kkt")).unwrap_or(KKT),
            ..GlobalIpm::new()
        }
    }
}
