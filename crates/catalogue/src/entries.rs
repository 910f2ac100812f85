//! The catalogue itself: every solver perp has, declared once.
//!
//! An entry is one (family, name) pair: `fb-newton` exists three times, as the MCP method, as
//! the same method on an LCP (through the MCP form), and as the unrelated frictional Newton
//! method on the Jordan-algebra Fischer–Burmeister function. Each gives its summary, the paper
//! (and equation) it implements, its parameters with defaults and valid ranges, and how to
//! build it. To add a solver: write it in its crate (one file, or one folder for a big one),
//! then add one entry here; `perp list`, `perp solve`, `perp bench`, the stepper and the
//! facade's `solver(…)` functions all read this table.

use crate::params::{Bound, Param, Resolved};
use perp_cones::admm::{RhoStrategy, Shift};
use perp_cones::lemke_pyramid::LemkePyramid;
use perp_cones::{
    Admm, Apgd, FrictionSolver, GlobalIpm, GlobalNewton, GlobalSolver, LinearSolver, LocalSolver, Nsgs, Prox,
    SemismoothNewton,
};
use perp_core::Error;
use perp_lcp::lemke::Lemke;
use perp_lcp::pgs::{self, Pgs};
use perp_lcp::projected_newton::ProjectedNewton;
use perp_lcp::LcpSolver;
use perp_ncp::bdiff_newton::BdiffNewton;
use perp_ncp::fb_newton::FbNewton;
use perp_ncp::lcp_adapter::NcpAsLcp;
use perp_ncp::schur_lemke::SchurLemke;
use perp_ncp::NcpSolver;

/// Which problems a solver takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// LCP and box-LCP, `0 ≤ z ⊥ Mz + q ≥ 0` ([`perp_lcp::Lcp`]).
    Lcp,
    /// MCP/NCP and MLCP ([`perp_ncp::Mcp`]).
    Mcp,
    /// Frictional contact, local form `u = W r + q` (global problems are reduced to it).
    Friction,
}

impl Family {
    /// Every family, in the order `perp list` prints them.
    pub const ALL: [Family; 3] = [Family::Lcp, Family::Mcp, Family::Friction];

    /// `lcp`, `mcp`, `friction`.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Lcp => "lcp",
            Family::Mcp => "mcp",
            Family::Friction => "friction",
        }
    }

    /// What its solvers are, with the article, as in "nsgs is *a frictional-contact* solver".
    pub fn solver_noun(self) -> &'static str {
        match self {
            Family::Lcp => "an LCP",
            Family::Mcp => "an MCP/NCP/MLCP",
            Family::Friction => "a frictional-contact",
        }
    }

    /// Its problems, with the article, as in "for *an LCP* use one of …".
    pub fn problem_noun(self) -> &'static str {
        match self {
            Family::Lcp => "an LCP",
            Family::Mcp => "an MCP/NCP/MLCP",
            Family::Friction => "a frictional-contact problem",
        }
    }

    /// One line for `perp list`.
    pub fn title(self) -> &'static str {
        match self {
            Family::Lcp => "LCP solvers (0 ≤ z ⊥ Mz + q ≥ 0, box-LCP; perp solve on an LCP file)",
            Family::Mcp => "NCP / MCP / MLCP solvers (perp solve on an MLCP file, perp bench on NCPs)",
            Family::Friction => {
                "Frictional contact solvers (u = W r + q, K ∋ r ⊥ ũ ∈ K*; global problems reduced)"
            }
        }
    }
}

/// How an entry builds its solver from checked parameters.
#[derive(Clone, Copy)]
pub enum Build {
    /// An LCP solver.
    Lcp(fn(&Resolved) -> Box<dyn LcpSolver>),
    /// An MCP solver.
    Mcp(fn(&Resolved) -> Box<dyn NcpSolver>),
    /// A frictional contact solver.
    Friction(fn(&Resolved) -> Box<dyn FrictionSolver>),
    /// A frictional contact solver of the global form (M, H): family `Friction`, applied to
    /// global problems only.
    Global(fn(&Resolved) -> Box<dyn GlobalSolver>),
}

/// One solver of the catalogue.
#[derive(Clone, Copy)]
pub struct Entry {
    /// The name (`perp solve --solver NAME`).
    pub name: &'static str,
    /// The problems it takes.
    pub family: Family,
    /// One line: what it does.
    pub summary: &'static str,
    /// The paper (and equation) it implements.
    pub citation: &'static str,
    /// Its parameters.
    pub params: &'static [Param],
    /// Its builder.
    pub build: Build,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.name)
            .field("family", &self.family)
            .finish_non_exhaustive()
    }
}

const PGS_COMMON: [Param; 3] = [
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

const fn pgs_params(omega: f64, rho: f64) -> [Param; 5] {
    [
        Param::real("omega", omega, Bound::Excl(0.0), Bound::Excl(2.0), "relaxation ω"),
        Param::real("rho", rho, Bound::Incl(0.0), Bound::Open, "proximal weight ρ added to the diagonal"),
        PGS_COMMON[0],
        PGS_COMMON[1],
        PGS_COMMON[2],
    ]
}

const PGS_PARAMS: [Param; 5] = pgs_params(1.0, 0.0);
const PSOR_PARAMS: [Param; 5] = pgs_params(pgs::DEFAULT_PSOR_OMEGA, 0.0);
const RPGS_PARAMS: [Param; 5] = pgs_params(1.0, pgs::DEFAULT_RPGS_RHO);

fn pgs_from(p: &Resolved) -> Box<dyn LcpSolver> {
    let mut s = Pgs::pgs();
    s.omega = p.real("omega");
    s.rho = p.real("rho");
    s.inner_sweeps = p.int("inner_sweeps");
    s.inner_tol = p.real("inner_tol");
    s.check_every = p.int("check_every");
    Box::new(s)
}

const LEMKE_PARAMS: [Param; 2] = [
    Param::int("restarts", 4, 0, 100, "attempts with other covering vectors after a ray termination"),
    Param::int(
        "crash",
        8,
        0,
        100,
        "block principal pivoting rounds guessing the support before a cold start (n >= 64; 0: the all-w start)",
    ),
];

const PROJECTED_NEWTON_PARAMS: [Param; 7] = [
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

fn projected_newton_from(p: &Resolved) -> ProjectedNewton {
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
const PROXIMAL_ROUNDS: Param = Param::int(
    "proximal_rounds",
    20,
    0,
    1000,
    "proximal-perturbation rounds after a stall (Billups 1995); 0 = off",
);
const PROXIMAL_LAMBDA: Param = Param::real(
    "proximal_lambda",
    1.0,
    Bound::Excl(0.0),
    Bound::Open,
    "initial perturbation λ relative to twice the Gershgorin shift of ∇F",
);

fn proximal_from(p: &Resolved) -> perp_ncp::proximal::Proximal {
    perp_ncp::proximal::Proximal { rounds: p.int("proximal_rounds"), lambda: p.real("proximal_lambda") }
}

const FB_NEWTON_PARAMS: [Param; 8] = [
    Param::real("lambda", 1.0, Bound::Excl(0.0), Bound::Incl(1.0), "Chen–Chen–Kanzow weight λ of φ_λ"),
    Param::int("nonmonotone", 10, 0, 1000, "non-monotone window of the Armijo reference (0 = monotone)"),
    Param::real("sigma", 1e-4, Bound::Excl(0.0), Bound::Excl(0.5), "Armijo constant σ"),
    Param::real("rho", 1e-8, Bound::Excl(0.0), Bound::Open, "descent-test constant ρ (DFK 1996)"),
    Param::real("p", 2.1, Bound::Excl(2.0), Bound::Open, "descent-test exponent p (DFK 1996)"),
    Param::real("min_step", 1e-12, Bound::Excl(0.0), Bound::Excl(1.0), "smallest step length tried"),
    PROXIMAL_ROUNDS,
    PROXIMAL_LAMBDA,
];

fn fb_newton_from(p: &Resolved) -> FbNewton {
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

const ADMM_PARAMS: [Param; 8] = [
    Param::real("rho0", 1.0, Bound::Excl(0.0), Bound::Open, "ρ₀ relative to the mean diagonal entry of W"),
    Param::choice(
        "rho_strategy",
        "balancing",
        &["balancing", "constant"],
        "penalty adaptation: scaled residual balancing, or none",
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

fn admm_from(p: &Resolved) -> Box<dyn FrictionSolver> {
    let mut s = Admm::new();
    s.rho0 = p.real("rho0");
    s.strategy = match p.choice("rho_strategy") {
        "constant" => RhoStrategy::Constant,
        _ => RhoStrategy::Balancing,
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

const APGD_PARAMS: [Param; 4] = [
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

fn apgd_from(p: &Resolved) -> Box<dyn FrictionSolver> {
    let mut s = Apgd::new();
    s.s_ratio = p.real("s_ratio");
    s.s_every = p.int("s_every");
    s.l_shrink = p.real("l_shrink");
    s.stick_test = p.flag("stick_test");
    Box::new(s)
}

const SCHUR_LEMKE_PARAMS: [Param; 1] = [Param::int(
    "polish_rounds",
    100,
    0,
    100_000,
    "most rounds of block principal pivoting after Lemke (0: none)",
)];

const BDIFF_NEWTON_PARAMS: [Param; 6] = [
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

fn bdiff_newton_from(p: &Resolved) -> BdiffNewton {
    let mut s = BdiffNewton::new();
    s.sigma = p.real("sigma");
    s.min_step = p.real("min_step");
    s.degenerate_tol = p.real("degenerate_tol");
    s.hot_start = p.flag("hot_start");
    s.proximal = proximal_from(p);
    s
}

const LOCAL_SOLVERS: &[&str] = &["auto", "projection", "ac", "fb", "closed-form-2d"];

const NSGS_PARAMS: [Param; 6] = [
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

fn nsgs_from(p: &Resolved) -> Box<dyn FrictionSolver> {
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
const LINEAR: Param = Param::choice(
    "linear",
    "auto",
    &["auto", "direct", "iterative"],
    "sparse Newton systems: LU (direct), BiCGSTAB (iterative), or by size and predicted fill",
);

const NEWTON_PARAMS: [Param; 6] = [
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
fn newton_and_stall_knobs(s: &mut SemismoothNewton, p: &Resolved) {
    newton_knobs(s, p);
    s.stall_iterations = p.int("stall_iterations");
}

fn newton_knobs(s: &mut SemismoothNewton, p: &Resolved) {
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

const PROX_PARAMS: [Param; 8] = [
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

const LEMKE_PYRAMID_PARAMS: [Param; 3] = [
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

/// Every solver, LCP first, then MCP, then frictional; within a family in the order
/// `perp list` and `perp bench` use.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "lemke",
        family: Family::Lcp,
        summary: "complementary pivoting with lexicographic degeneracy resolution; ray termination reported",
        citation: "Lemke 1965; Cottle–Pang–Stone 1992 §4.4 (Algorithm 4.4.5), §4.9; crash: Júdice–Pires 1994",
        params: &LEMKE_PARAMS,
        build: Build::Lcp(|p| {
            let mut s = Lemke::new();
            s.restarts = p.int("restarts");
            s.crash = p.int("crash");
            Box::new(s)
        }),
    },
    Entry {
        name: "pgs",
        family: Family::Lcp,
        summary: "projected Gauss–Seidel sweeps (also box-LCP)",
        citation: "Cottle–Pang–Stone 1992 ch. 5 (Algorithm 5.2.1)",
        params: &PGS_PARAMS,
        build: Build::Lcp(pgs_from),
    },
    Entry {
        name: "psor",
        family: Family::Lcp,
        summary: "projected successive over-relaxation, 0 < ω < 2",
        citation: "Mangasarian 1977; Cottle–Pang–Stone 1992 ch. 5",
        params: &PSOR_PARAMS,
        build: Build::Lcp(pgs_from),
    },
    Entry {
        name: "rpgs",
        family: Family::Lcp,
        summary: "regularized (proximal-point) PGS, for PSD M with zero diagonal entries",
        citation: "Rockafellar 1976; Siconos lcp_rpgs (Acary–Brogliato 2008)",
        params: &RPGS_PARAMS,
        build: Build::Lcp(pgs_from),
    },
    Entry {
        name: "projected-newton",
        family: Family::Lcp,
        summary: "projected Newton on the QP of a symmetric positive semidefinite M",
        citation: "Bertsekas 1982 (eq. 31–33)",
        params: &PROJECTED_NEWTON_PARAMS,
        build: Build::Lcp(|p| Box::new(projected_newton_from(p))),
    },
    Entry {
        name: "fb-newton",
        family: Family::Lcp,
        summary: "Fischer–Burmeister semismooth Newton (through the MCP form)",
        citation: "De Luca–Facchinei–Kanzow 1996 (Algorithm 3.1)",
        params: &FB_NEWTON_PARAMS,
        build: Build::Lcp(|p| Box::new(NcpAsLcp { inner: fb_newton_from(p) })),
    },
    Entry {
        name: "bdiff-newton",
        family: Family::Lcp,
        summary: "B-differentiable min-map Newton with hot start (through the MCP form)",
        citation: "Harker–Pang 1990; Pang 1990; Trinkle–Tzitzouris–Pang 2001",
        params: &BDIFF_NEWTON_PARAMS,
        build: Build::Lcp(|p| Box::new(NcpAsLcp { inner: bdiff_newton_from(p) })),
    },
    Entry {
        name: "fb-newton",
        family: Family::Mcp,
        summary: "Fischer–Burmeister semismooth Newton with a non-monotone Armijo search",
        citation: "De Luca–Facchinei–Kanzow 1996 (cited by Glocker–Studer 2005); Grippo–Lampariello–Lucidi 1986",
        params: &FB_NEWTON_PARAMS,
        build: Build::Mcp(|p| Box::new(fb_newton_from(p))),
    },
    Entry {
        name: "bdiff-newton",
        family: Family::Mcp,
        summary: "B-differentiable (min-map) Newton, degenerate rows by a small Lemke LCP, hot start",
        citation: "Harker–Pang 1990; Pang 1990; Trinkle–Tzitzouris–Pang 2001",
        params: &BDIFF_NEWTON_PARAMS,
        build: Build::Mcp(|p| Box::new(bdiff_newton_from(p))),
    },
    Entry {
        name: "schur-lemke",
        family: Family::Mcp,
        summary: "MLCP by pivoting: equations eliminated (nonsingular block), Lemke on the Schur LCP, block-pivoting polish",
        citation: "Cottle–Pang–Stone 1992 §1.5 (mixed LCP); Lemke 1965; Júdice–Pires 1994 (block principal pivoting)",
        params: &SCHUR_LEMKE_PARAMS,
        build: Build::Mcp(|p| Box::new(SchurLemke { polish_rounds: p.int("polish_rounds") })),
    },
    Entry {
        name: "nsgs",
        family: Family::Friction,
        summary: "nonsmooth Gauss–Seidel over contacts, each one-contact problem solved exactly",
        citation: "Moreau 1988 §15–16; Jean 1999",
        params: &NSGS_PARAMS,
        build: Build::Friction(nsgs_from),
    },
    Entry {
        name: "ac-newton",
        family: Family::Friction,
        summary: "semismooth Newton on the Alart–Curnier function",
        citation: "Alart–Curnier 1991",
        params: &NEWTON_PARAMS,
        build: Build::Friction(|p| {
            let mut s = SemismoothNewton::alart_curnier();
            newton_and_stall_knobs(&mut s, p);
            Box::new(s)
        }),
    },
    Entry {
        name: "fb-newton",
        family: Family::Friction,
        summary: "semismooth Newton on the Jordan-algebra Fischer–Burmeister function of the De Saxcé pair",
        citation: "Fukushima–Luo–Tseng 2001",
        params: &NEWTON_PARAMS,
        build: Build::Friction(|p| {
            let mut s = SemismoothNewton::fischer_burmeister();
            newton_and_stall_knobs(&mut s, p);
            Box::new(s)
        }),
    },
    Entry {
        name: "nm-newton",
        family: Family::Friction,
        summary: "semismooth Newton on the natural map r − P_K(r − ρ ũ): any friction law given by its projection",
        citation: "Facchinei–Pang 2003 §1.5; Acary–Brémond–Huber 2018",
        params: &NEWTON_PARAMS,
        build: Build::Friction(|p| {
            let mut s = SemismoothNewton::natural_map();
            newton_and_stall_knobs(&mut s, p);
            Box::new(s)
        }),
    },
    Entry {
        name: "prox",
        family: Family::Friction,
        summary: "proximal-point outer loop (W + σI) around the Alart–Curnier Newton",
        citation: "Acary–Brémond–Huber 2018",
        params: &PROX_PARAMS,
        build: Build::Friction(|p| {
            let mut s = Prox::new();
            s.sigma0 = p.real("sigma0");
            s.nu = p.real("nu");
            s.inner_max = p.int("inner_max");
            newton_knobs(&mut s.inner, p);
            Box::new(s)
        }),
    },
    Entry {
        name: "lemke-pyramid",
        family: Family::Friction,
        summary: "Lemke on the LCP of a polyhedral friction cone, with pyramid alignment",
        citation: "Stewart–Trinkle 1996 (Stewart 2000 eq. 2.11–2.16); Trinkle–Tzitzouris–Pang 2001 eq. 5–6",
        params: &LEMKE_PYRAMID_PARAMS,
        build: Build::Friction(|p| {
            let mut s = LemkePyramid::new();
            s.facets = p.int("facets");
            s.refine = p.int("refine");
            s.max_facets = p.int("max_facets");
            Box::new(s)
        }),
    },
    Entry {
        name: "admm",
        family: Family::Friction,
        summary: "ADMM on the De Saxcé-shifted convex problem, W + ρI factorized, adaptive ρ, accelerated",
        citation: "Siconos fc3d_admm; Acary–Brémond–Huber 2018; Boyd et al. 2011 eq. 3.5–3.7, 3.13; Goldstein et al. 2014 §4.3",
        params: &ADMM_PARAMS,
        build: Build::Friction(admm_from),
    },
    Entry {
        name: "apgd",
        family: Family::Friction,
        summary: "accelerated projected gradient (Nesterov, backtracking, restart) in a De Saxcé fixed-point loop",
        citation: "Mazhar–Heyn–Negrut–Tasora 2015 (ACM ToG 34(3)), APGD; De Saxcé fixed point as in Acary–Brémond–Huber 2018",
        params: &APGD_PARAMS,
        build: Build::Friction(apgd_from),
    },
    Entry {
        name: "global-ac-newton",
        family: Family::Friction,
        summary: "Alart–Curnier semismooth Newton in (v, r) on the global form M v = f + H r: one sparse LU a \
                  step, W never formed (global problems only)",
        citation: "Alart–Curnier 1991; global form as Siconos' gfc3d_nonsmooth_Newton_AlartCurnier (Acary–Brémond–Huber 2018 §4)",
        params: &GLOBAL_NEWTON_PARAMS,
        build: Build::Global(|p| {
            let mut s = GlobalNewton::new();
            s.max_iter = p.int("max_iter");
            s.rho_scale = p.real("rho_scale");
            s.stall_iterations = p.int("stall_iterations");
            Box::new(s)
        }),
    },
    Entry {
        name: "global-ipm",
        family: Family::Friction,
        summary: "primal-dual interior point (Nesterov–Todd scaling, Mehrotra predictor–corrector, sparse \
                  quasi-definite LDLᵀ) on the convex relaxation, then global-ac-newton from its answer to exact \
                  Coulomb (global problems only)",
        citation: "Vandenberghe 2010 (CVXOPT coneqp) §§2–5; De Saxcé–Feng 1998; Acary–Cadoux–Lemaréchal–Malick 2011 §3",
        params: &GLOBAL_IPM_PARAMS,
        build: Build::Global(|p| {
            let mut s = GlobalIpm::new();
            s.max_iter = p.int("max_iter");
            s.fixed_point = p.int("fixed_point");
            s.polish = p.flag("polish");
            Box::new(s)
        }),
    },
];

const GLOBAL_IPM_PARAMS: [Param; 3] = [
    Param::int("max_iter", 100, 1, usize::MAX, "interior-point iterations at most per convex solve"),
    Param::int("fixed_point", 1, 1, usize::MAX, "convex solves at most in the De Saxcé fixed point before the Newton method (1: the convex problem alone)"),
    Param::flag(
        "polish",
        true,
        "finish with global-ac-newton from the fixed point's reactions when it stops short of tol",
    ),
];

const GLOBAL_NEWTON_PARAMS: [Param; 3] = [
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

/// Whether entry `i` is of `family`, and of the global form (`Some(true)`), the local one
/// (`Some(false)`) or either (`None`).
const fn takes(i: usize, family: Family, global: Option<bool>) -> bool {
    let is_global = matches!(ENTRIES[i].build, Build::Global(_));
    ENTRIES[i].family as u8 == family as u8
        && match global {
            Some(g) => g == is_global,
            None => true,
        }
}

const fn count(family: Family, global: Option<bool>) -> usize {
    let (mut i, mut c) = (0, 0);
    while i < ENTRIES.len() {
        if takes(i, family, global) {
            c += 1;
        }
        i += 1;
    }
    c
}

const fn names_of<const N: usize>(family: Family, global: Option<bool>) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut i, mut c) = (0, 0);
    while i < ENTRIES.len() {
        if takes(i, family, global) {
            out[c] = ENTRIES[i].name;
            c += 1;
        }
        i += 1;
    }
    out
}

const LCP_ARRAY: [&str; count(Family::Lcp, None)] = names_of(Family::Lcp, None);
const MCP_ARRAY: [&str; count(Family::Mcp, None)] = names_of(Family::Mcp, None);
const FRICTION_ARRAY: [&str; count(Family::Friction, Some(false))] = names_of(Family::Friction, Some(false));
const GLOBAL_ARRAY: [&str; count(Family::Friction, Some(true))] = names_of(Family::Friction, Some(true));
const FRICTION_ALL_ARRAY: [&str; count(Family::Friction, None)] = names_of(Family::Friction, None);

/// The LCP solvers' names, in catalogue order (derived from [`ENTRIES`] at compile time).
pub const LCP_NAMES: &[&str] = &LCP_ARRAY;
/// The MCP/NCP/MLCP solvers' names.
pub const MCP_NAMES: &[&str] = &MCP_ARRAY;
/// The frictional contact solvers' names: those of the local form `u = W r + q`, which also
/// take global problems (reduced to it).
pub const FRICTION_NAMES: &[&str] = &FRICTION_ARRAY;
/// The solvers of the global form (M, H) only, which take global problems natively.
pub const GLOBAL_NAMES: &[&str] = &GLOBAL_ARRAY;
/// Every solver of a global frictional problem: the local ones (on its reduction) then the
/// global ones, in catalogue order.
pub const GLOBAL_PROBLEM_NAMES: &[&str] = &FRICTION_ALL_ARRAY;

/// The names of `family`'s solvers, in catalogue order.
pub fn names(family: Family) -> &'static [&'static str] {
    match family {
        Family::Lcp => LCP_NAMES,
        Family::Mcp => MCP_NAMES,
        Family::Friction => FRICTION_NAMES,
    }
}

/// Every name of every family, each once, in catalogue order.
pub fn all_names() -> Vec<&'static str> {
    let mut all: Vec<&str> = Vec::new();
    for e in ENTRIES {
        if !all.contains(&e.name) {
            all.push(e.name);
        }
    }
    all
}

/// The entry `name` of `family`; otherwise [`not_in_family`]'s error.
pub fn entry(family: Family, name: &str) -> Result<&'static Entry, Error> {
    ENTRIES.iter().find(|e| e.family == family && e.name == name).ok_or_else(|| not_in_family(name, family))
}

/// The families that have a solver called `name`, in [`Family::ALL`]'s order (empty for a
/// name no solver has; three for `fb-newton`).
pub fn families_of(name: &str) -> Vec<Family> {
    // Every entry, those of the global form (`global-ac-newton`, family friction) included.
    Family::ALL.into_iter().filter(|&f| ENTRIES.iter().any(|e| e.family == f && e.name == name)).collect()
}

/// The one family of `name`: `Some` when the name belongs to exactly one family (`lemke`,
/// `nsgs`), `None` when it belongs to none or to several (`fb-newton`, `bdiff-newton`).
///
/// ```
/// use perp_catalogue::{family_of, Family};
/// assert_eq!(family_of("lemke"), Some(Family::Lcp));
/// assert_eq!(family_of("nsgs"), Some(Family::Friction));
/// assert_eq!(family_of("fb-newton"), None);
/// ```
pub fn family_of(name: &str) -> Option<Family> {
    match families_of(name).as_slice() {
        [f] => Some(*f),
        _ => None,
    }
}

/// The error for `name` asked for problems of `family` when `family` has no solver of that
/// name: [`Error::WrongFamily`] ("nsgs is a frictional-contact solver; for an LCP use one of
/// lemke, pgs, …") when another family has it, [`Error::UnknownSolver`] (listing `family`'s
/// names) when none has.
///
/// ```
/// use perp_catalogue::{not_in_family, Family};
/// let e = not_in_family("nsgs", Family::Lcp).to_string();
/// assert!(e.starts_with("nsgs is a frictional-contact solver; for an LCP use one of lemke, pgs"), "{e}");
/// let e = not_in_family("nope", Family::Lcp).to_string();
/// assert!(e.starts_with("unknown solver 'nope'; valid names: lemke"), "{e}");
/// ```
pub fn not_in_family(name: &str, family: Family) -> Error {
    let others = families_of(name);
    if others.is_empty() {
        return Error::unknown_solver(name, names(family));
    }
    let is = others.iter().map(|f| f.solver_noun()).collect::<Vec<_>>().join(" and ");
    wrong_family(name, &is, family)
}

/// [`Error::WrongFamily`] for the solver `name`, which is `is` (`"a frictional-contact"`),
/// asked to solve a problem of `family`.
pub(crate) fn wrong_family(name: &str, is: &str, family: Family) -> Error {
    Error::WrongFamily {
        name: name.to_string(),
        is: is.to_string(),
        wanted: family.problem_noun().to_string(),
        valid: names(family).iter().map(|s| s.to_string()).collect(),
    }
}
