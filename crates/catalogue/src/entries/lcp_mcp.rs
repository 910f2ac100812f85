//! The parameter lists of the LCP and MCP solvers (defaults and valid ranges) and their
//! constructors from resolved parameters.

use super::*;

pub(super) const PGS_COMMON: [Param; 3] = [
    Param::int(
        "inner_sweeps",
        pgs::DEFAULT_INNER_SWEEPS,
        1,
        usize::MAX,
        "inner sweeps per proximal step (rho > 0)",
    ),
    Param::real(
        "inner_tol",
        pgs::DEFAULT_INNER_TOL,
        Bound::Incl(0.0),
        Bound::Open,
        "inner convergence test (rho > 0)",
    ),
    Param::int(
        "check_every",
        pgs::DEFAULT_CHECK_EVERY,
        1,
        usize::MAX,
        "exact error check every this many sweeps",
    ),
];

pub(super) const fn pgs_params(omega: f64, rho: f64) -> [Param; 5] {
    [
        Param::real("omega", omega, Bound::Excl(0.0), Bound::Excl(2.0), "relaxation ω"),
        Param::real("rho", rho, Bound::Incl(0.0), Bound::Open, "proximal weight ρ added to the diagonal"),
        PGS_COMMON[0],
        PGS_COMMON[1],
        PGS_COMMON[2],
    ]
}

pub(super) const PGS_PARAMS: [Param; 5] = pgs_params(1.0, 0.0);
pub(super) const PSOR_PARAMS: [Param; 5] = pgs_params(pgs::DEFAULT_PSOR_OMEGA, 0.0);
pub(super) const RPGS_PARAMS: [Param; 5] = pgs_params(1.0, pgs::DEFAULT_RPGS_RHO);

pub(super) fn pgs_from(p: &Resolved) -> Box<dyn LcpSolver> {
    let mut s = Pgs::pgs();
    s.omega = p.real("omega");
    s.rho = p.real("rho");
    s.inner_sweeps = p.int("inner_sweeps");
    s.inner_tol = p.real("inner_tol");
    s.check_every = p.int("check_every");
    Box::new(s)
}

pub(super) const LEMKE_PARAMS: [Param; 2] = [
    Param::int("restarts", 4, 0, 100, "attempts with other covering vectors after a ray termination"),
    Param::int(
        "crash",
        8,
        0,
        100,
        "block principal pivoting rounds guessing the support before a cold start (n >= 64; 0: the all-w start)",
    ),
];

pub(super) const PROJECTED_NEWTON_PARAMS: [Param; 7] = [
    Param::real("sigma", 1e-4, Bound::Excl(0.0), Bound::Excl(0.5), "Armijo constant σ"),
    Param::real("beta", 0.5, Bound::Excl(0.0), Bound::Excl(1.0), "backtracking factor β"),
    Param::real("eps_bar", 1e-3, Bound::Excl(0.0), Bound::Open, "cap on the ε of the ε-active set"),
    Param::real("min_step", 1e-12, Bound::Excl(0.0), Bound::Excl(1.0), "smallest step before Stalled"),
    Param::real(
        "reg_min",
        1e-12,
        Bound::Excl(0.0),
        Bound::Open,
        "first regularization tried when Cholesky fails",
    ),
    Param::real("reg_max", 1e-8, Bound::Excl(0.0), Bound::Open, "largest regularization (M not PSD beyond)"),
    Param::int("dense_limit", 100, 0, usize::MAX, "sparse M: free blocks up to this size are densified"),
];

pub(super) fn projected_newton_from(p: &Resolved) -> ProjectedNewton {
    let mut s = ProjectedNewton::new();
    s.sigma = p.real("sigma");
    s.beta = p.real("beta");
    s.eps_bar = p.real("eps_bar");
    s.min_step = p.real("min_step");
    s.reg_min = p.real("reg_min");
    s.reg_max = p.real("reg_max");
    s.dense_limit = p.int("dense_limit");
    s
}

/// The proximal-perturbation rescue of the MCP Newton methods (`perp_ncp::proximal`).
pub(super) const PROXIMAL_ROUNDS: Param = Param::int(
    "proximal_rounds",
    20,
    0,
    1000,
    "proximal-perturbation rounds after a stall (Billups 1995); 0 = off",
);
pub(super) const PROXIMAL_LAMBDA: Param = Param::real(
    "proximal_lambda",
    1.0,
    Bound::Excl(0.0),
    Bound::Open,
    "initial perturbation λ relative to twice the Gershgorin shift of ∇F",
);

pub(super) fn proximal_from(p: &Resolved) -> perp_ncp::proximal::Proximal {
    perp_ncp::proximal::Proximal { rounds: p.int("proximal_rounds"), lambda: p.real("proximal_lambda") }
}

pub(super) const FB_NEWTON_PARAMS: [Param; 8] = [
    Param::real("lambda", 1.0, Bound::Excl(0.0), Bound::Incl(1.0), "Chen–Chen–Kanzow weight λ of φ_λ"),
    Param::int("nonmonotone", 10, 0, 1000, "non-monotone window of the Armijo reference (0 = monotone)"),
    Param::real("sigma", 1e-4, Bound::Excl(0.0), Bound::Excl(0.5), "Armijo constant σ"),
    Param::real("rho", 1e-8, Bound::Excl(0.0), Bound::Open, "descent-test constant ρ (DFK 1996)"),
    Param::real("p", 2.1, Bound::Excl(2.0), Bound::Open, "descent-test exponent p (DFK 1996)"),
    Param::real("min_step", 1e-12, Bound::Excl(0.0), Bound::Excl(1.0), "smallest step length tried"),
    PROXIMAL_ROUNDS,
    PROXIMAL_LAMBDA,
];

pub(super) fn fb_newton_from(p: &Resolved) -> FbNewton {
    let mut s = FbNewton::new();
    s.lambda = p.real("lambda");
    s.nonmonotone = p.int("nonmonotone");
    s.sigma = p.real("sigma");
    s.rho = p.real("rho");
    s.p = p.real("p");
    s.min_step = p.real("min_step");
    s.proximal = proximal_from(p);
    s
}

pub(super) const SCHUR_LEMKE_PARAMS: [Param; 1] = [Param::int(
    "polish_rounds",
    100,
    0,
    100_000,
    "most rounds of block principal pivoting after Lemke (0: none)",
)];

pub(super) const BDIFF_NEWTON_PARAMS: [Param; 6] = [
    Param::real("sigma", 1e-4, Bound::Excl(0.0), Bound::Excl(0.5), "Armijo constant σ"),
    Param::real("min_step", 1e-12, Bound::Excl(0.0), Bound::Excl(1.0), "smallest trial step"),
    Param::real("degenerate_tol", 1e-10, Bound::Incl(0.0), Bound::Open, "relative tie tolerance defining δ"),
    Param::flag(
        "hot_start",
        true,
        "start the next solve of the same size at the last solution and index sets",
    ),
    PROXIMAL_ROUNDS,
    PROXIMAL_LAMBDA,
];

pub(super) fn bdiff_newton_from(p: &Resolved) -> BdiffNewton {
    let mut s = BdiffNewton::new();
    s.sigma = p.real("sigma");
    s.min_step = p.real("min_step");
    s.degenerate_tol = p.real("degenerate_tol");
    s.hot_start = p.flag("hot_start");
    s.proximal = proximal_from(p);
    s
}
