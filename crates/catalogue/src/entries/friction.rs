//! The parameter lists of the frictional solvers, local and global, and their constructors
//! from resolved parameters.

use super::*;

pub(super) const LOCAL_SOLVERS: &[&str] = &["auto", "projection", "ac", "fb", "closed-form-2d"];

pub(super) const NSGS_PARAMS: [Param; 6] = [
    Param::real("omega", 1.0, Bound::Excl(0.0), Bound::Excl(2.0), "relaxation ω"),
    Param::int(
        "shuffle",
        0,
        0,
        usize::MAX,
        "0: natural contact order; k ≥ 1: a random order per sweep, seed k",
    ),
    Param::int("local_max_iter", 20, 1, usize::MAX, "iteration limit of the one-contact solver"),
    Param::choice("local", "auto", LOCAL_SOLVERS, "the one-contact solver"),
    Param::flag(
        "colouring",
        false,
        "sweep a greedy colouring of the contact graph, each colour in parallel (threads); same answer for any thread count",
    ),
    Param::flag(
        "forecast",
        true,
        "give up (stalled) when the rate of the recent sweeps cannot reach tol within the sweep or time limit",
    ),
];

pub(super) fn nsgs_from(p: &Resolved) -> Box<dyn FrictionSolver> {
    let mut s = Nsgs::new();
    s.omega = p.real("omega");
    s.shuffle = match p.int("shuffle") {
        0 => None,
        k => Some(k as u64),
    };
    s.local_max_iter = p.int("local_max_iter");
    s.colouring = p.flag("colouring");
    s.forecast = p.flag("forecast");
    s.local = match p.choice("local") {
        "projection" => LocalSolver::Projection,
        "ac" => LocalSolver::AlartCurnier,
        "fb" => LocalSolver::FischerBurmeister,
        "closed-form-2d" => LocalSolver::ClosedForm2d,
        _ => LocalSolver::Auto,
    };
    Box::new(s)
}

/// The `linear` parameter of the Newton methods and prox.
pub(super) const LINEAR: Param = Param::choice(
    "linear",
    "auto",
    &["auto", "direct", "iterative"],
    "sparse Newton systems: LU (direct), BiCGSTAB (iterative), or by size and predicted fill",
);

pub(super) const NEWTON_PARAMS: [Param; 6] = [
    Param::choice(
        "sparse",
        "auto",
        &["auto", "yes", "no"],
        "sparse LU (yes), dense LU (no), or by size and W's fill",
    ),
    LINEAR,
    Param::real("rho_scale", 1.0, Bound::Excl(0.0), Bound::Open, "scale of every ρ"),
    Param::flag("line_search", true, "Armijo backtracking on ½‖Φ‖²"),
    Param::real(
        "regularization",
        perp_cones::newton::REGULARIZATION,
        Bound::Incl(0.0),
        Bound::Open,
        "c of the regularised Newton matrix D_r + D_u (W + σI); 0 = plain",
    ),
    Param::int(
        "stall_iterations",
        perp_cones::newton::STALL_ITERATIONS,
        0,
        usize::MAX,
        "iterations without halving the best error (or a failed line search) after which it goes on as prox from its best iterate; 0 = never",
    ),
];

/// [`newton_knobs`] and the stagnation rule, which `prox` (already proximal) does not have.
pub(super) fn newton_and_stall_knobs(s: &mut SemismoothNewton, p: &Resolved) {
    newton_knobs(s, p);
    s.stall_iterations = p.int("stall_iterations");
}

pub(super) fn newton_knobs(s: &mut SemismoothNewton, p: &Resolved) {
    s.sparse = match p.choice("sparse") {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    };
    s.linear = match p.choice("linear") {
        "direct" => LinearSolver::Direct,
        "iterative" => LinearSolver::Iterative,
        _ => LinearSolver::Auto,
    };
    s.rho_scale = p.real("rho_scale");
    s.line_search = p.flag("line_search");
    s.regularization = p.real("regularization");
}

pub(super) const PROX_PARAMS: [Param; 8] = [
    Param::real(
        "sigma0",
        1.0,
        Bound::Excl(0.0),
        Bound::Open,
        "σ₀ relative to the largest diagonal entry of W",
    ),
    Param::real("nu", 100.0, Bound::Excl(1.0), Bound::Open, "adaptation factor of σ"),
    Param::int("inner_max", 10, 1, usize::MAX, "inner iterations before the centre moves anyway"),
    Param::choice(
        "sparse",
        "auto",
        &["auto", "yes", "no"],
        "inner Newton: sparse LU (yes), dense (no), or by size and fill",
    ),
    LINEAR,
    Param::real("rho_scale", 1.0, Bound::Excl(0.0), Bound::Open, "inner Newton: scale of every ρ"),
    Param::flag("line_search", false, "inner Newton: Armijo backtracking"),
    Param::real(
        "regularization",
        perp_cones::newton::REGULARIZATION,
        Bound::Incl(0.0),
        Bound::Open,
        "inner Newton: c of the regularised Newton matrix",
    ),
];

pub(super) const LEMKE_PYRAMID_PARAMS: [Param; 3] = [
    Param::int("facets", 8, 3, 4096, "generators of each contact's base pyramid"),
    Param::int("refine", 20, 0, 10_000, "alignment rounds after the first solve"),
    Param::int(
        "max_facets",
        32,
        0,
        4096,
        "a solve stalled at the linearisation error is repeated with twice the facets up to this",
    ),
];

pub(super) const GLOBAL_IPM_PARAMS: [Param; 3] = [
    Param::int("max_iter", 100, 1, usize::MAX, "interior-point iterations at most per convex solve"),
    Param::int("fixed_point", 1, 1, usize::MAX, "convex solves at most in the De Saxcé fixed point before the Newton method (1: the convex problem alone)"),
    Param::flag(
        "polish",
        true,
        "finish with global-ac-newton from the fixed point's reactions when it stops short of tol",
    ),
];

pub(super) const GLOBAL_NEWTON_PARAMS: [Param; 3] = [
    Param::int("max_iter", 200, 1, usize::MAX, "Newton iterations at most (when the settings give none)"),
    Param::real(
        "rho_scale",
        1.0,
        Bound::Excl(0.0),
        Bound::Excl(f64::INFINITY),
        "factor on each contact's ρ = 1 / diag(H_iᵀ M⁻¹ H_i)",
    ),
    Param::int(
        "stall_iterations",
        20,
        0,
        usize::MAX,
        "go on in prox's mode (Φ at u + σ(r − r_ref)) after this many iterations without halving the error (0: never)",
    ),
];

pub(super) const ADMM_PARAMS: [Param; 9] = [
    Param::real("rho0", 1.0, Bound::Excl(0.0), Bound::Open, "ρ₀ relative to the mean diagonal entry of W"),
    Param::choice(
        "rho_strategy",
        "balancing",
        &["balancing", "constant"],
        "penalty adaptation: scaled residual balancing, or none",
    ),
    Param::choice(
        "first_rescale",
        "rolling",
        &["rolling", "never", "always"],
        "rescale ρ once after the first iteration by √(primal/dual residual) (OSQP's rule; balancing only): on rolling laws, never, or always",
    ),
    Param::real("tau", 2.0, Bound::Excl(1.0), Bound::Open, "factor of a change of ρ"),
    Param::real("phi", 3.0, Bound::Excl(1.0), Bound::Open, "residual imbalance that changes ρ"),
    Param::int("adapt_every", 20, 1, usize::MAX, "reconsider ρ every this many iterations"),
    Param::flag("acceleration", true, "Nesterov acceleration with restart (Goldstein et al. 2014 §4.3)"),
    Param::real("eta", 0.999, Bound::Excl(0.0), Bound::Incl(1.0), "restart threshold η"),
    Param::choice(
        "shift",
        "multiplier",
        &["multiplier", "velocity"],
        "De Saxcé shift from the multiplier's velocity −ρξ, or from u = W r + q (Siconos)",
    ),
];

pub(super) fn admm_from(p: &Resolved) -> Box<dyn FrictionSolver> {
    let mut s = Admm::new();
    s.rho0 = p.real("rho0");
    s.strategy = match p.choice("rho_strategy") {
        "constant" => RhoStrategy::Constant,
        _ => RhoStrategy::Balancing,
    };
    s.first_rescale = match p.choice("first_rescale") {
        "never" => FirstRescale::Never,
        "always" => FirstRescale::Always,
        _ => FirstRescale::Rolling,
    };
    s.tau = p.real("tau");
    s.phi = p.real("phi");
    s.adapt_every = p.int("adapt_every");
    s.acceleration = p.flag("acceleration");
    s.eta = p.real("eta");
    s.shift = match p.choice("shift") {
        "velocity" => Shift::Velocity,
        _ => Shift::Multiplier,
    };
    Box::new(s)
}

pub(super) const APGD_PARAMS: [Param; 4] = [
    Param::real(
        "s_ratio",
        0.1,
        Bound::Excl(0.0),
        Bound::Excl(1.0),
        "update the De Saxcé shift when the convex residual has fallen by this factor",
    ),
    Param::int("s_every", 100, 1, usize::MAX, "update the shift at least every this many iterations"),
    Param::real(
        "l_shrink",
        0.9,
        Bound::Excl(0.0),
        Bound::Incl(1.0),
        "Lipschitz estimate × this after each iteration",
    ),
    Param::flag(
        "stick_test",
        true,
        "no De Saxcé shift for a contact whose gradient step stays inside its cone",
    ),
];

pub(super) fn apgd_from(p: &Resolved) -> Box<dyn FrictionSolver> {
    let mut s = Apgd::new();
    s.s_ratio = p.real("s_ratio");
    s.s_every = p.int("s_every");
    s.l_shrink = p.real("l_shrink");
    s.stick_test = p.flag("stick_test");
    Box::new(s)
}
