//! The catalogue itself: every solver perp has, declared once.
//!
//! An entry is one (family, name) pair: `fb-newton` exists three times, as the MCP method, as
//! the same method on an LCP (through the MCP form), and as the unrelated frictional Newton
//! method on the Jordan-algebra Fischer–Burmeister function. Each gives its summary, the paper
//! (and equation) it implements, and the two things its solver's module exports beside the
//! solver: its parameter list (defaults and valid ranges, each default the solver's own named
//! constant) and its constructor from resolved parameters (`from_params`). To add a solver:
//! write it in its crate (one file, or one folder for a big one) with a `params` module
//! holding those two, then add one entry here; `perp list`, `perp solve`, `perp bench`, the
//! stepper and the facade's `solver(…)` functions all read this table.
//!
//! This file holds [`Entry`] and the table [`ENTRIES`]; `names` the lookups.

use crate::params::{Param, Resolved};
use perp_cones::lemke_pyramid::LemkePyramid;
use perp_cones::{
    admm, apgd, global_ipm, global_newton, lemke_pyramid, newton, nsgs, prox, Admm, Apgd, FrictionSolver,
    GlobalIpm, GlobalNewton, GlobalSolver, NewtonFunction, Nsgs, Prox, SemismoothNewton,
};
use perp_core::Error;
use perp_lcp::lemke::{self, Lemke};
use perp_lcp::pgs::{self, Pgs};
use perp_lcp::projected_newton::{self, ProjectedNewton};
use perp_lcp::LcpSolver;
use perp_ncp::bdiff_newton::{self, BdiffNewton};
use perp_ncp::fb_newton::{self, FbNewton};
use perp_ncp::lcp_adapter::NcpAsLcp;
use perp_ncp::schur_lemke::{self, SchurLemke};
use perp_ncp::NcpSolver;

mod names;
pub use names::*;
#[cfg(test)]
mod tests;

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

    /// The solver used when none is named: `lemke` for LCPs, `fb-newton` for MLCPs and NCPs,
    /// `prox` for frictional contact.
    pub fn default_solver(self) -> &'static str {
        match self {
            Family::Lcp => "lemke",
            Family::Mcp => "fb-newton",
            Family::Friction => "prox",
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

/// Every solver, LCP first, then MCP, then frictional; within a family in the order
/// `perp list` and `perp bench` use.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "lemke",
        family: Family::Lcp,
        summary: "complementary pivoting with lexicographic degeneracy resolution; ray termination reported",
        citation: "Lemke 1965; Cottle–Pang–Stone 1992 §4.4 (Algorithm 4.4.5), §4.9; crash: Júdice–Pires 1994",
        params: lemke::params::PARAMS,
        build: Build::Lcp(|p| Box::new(Lemke::from_params(p))),
    },
    Entry {
        name: "pgs",
        family: Family::Lcp,
        summary: "projected Gauss–Seidel sweeps (also box-LCP)",
        citation: "Cottle–Pang–Stone 1992 ch. 5 (Algorithm 5.2.1)",
        params: pgs::params::PGS_PARAMS,
        build: Build::Lcp(|p| Box::new(Pgs::from_params(p))),
    },
    Entry {
        name: "psor",
        family: Family::Lcp,
        summary: "projected successive over-relaxation, 0 < ω < 2",
        citation: "Mangasarian 1977; Cottle–Pang–Stone 1992 ch. 5",
        params: pgs::params::PSOR_PARAMS,
        build: Build::Lcp(|p| Box::new(Pgs::from_params(p))),
    },
    Entry {
        name: "rpgs",
        family: Family::Lcp,
        summary: "regularized (proximal-point) PGS, for PSD M with zero diagonal entries",
        citation: "Rockafellar 1976; Siconos lcp_rpgs (Acary–Brogliato 2008)",
        params: pgs::params::RPGS_PARAMS,
        build: Build::Lcp(|p| Box::new(Pgs::from_params(p))),
    },
    Entry {
        name: "projected-newton",
        family: Family::Lcp,
        summary: "projected Newton on the QP of a symmetric positive semidefinite M",
        citation: "Bertsekas 1982 (eq. 31–33)",
        params: projected_newton::params::PARAMS,
        build: Build::Lcp(|p| Box::new(ProjectedNewton::from_params(p))),
    },
    Entry {
        name: "fb-newton",
        family: Family::Lcp,
        summary: "Fischer–Burmeister semismooth Newton (through the MCP form)",
        citation: "De Luca–Facchinei–Kanzow 1996 (Algorithm 3.1)",
        params: fb_newton::params::PARAMS,
        build: Build::Lcp(|p| Box::new(NcpAsLcp { inner: FbNewton::from_params(p) })),
    },
    Entry {
        name: "bdiff-newton",
        family: Family::Lcp,
        summary: "B-differentiable min-map Newton with hot start (through the MCP form)",
        citation: "Harker–Pang 1990; Pang 1990; Trinkle–Tzitzouris–Pang 2001",
        params: bdiff_newton::params::PARAMS,
        build: Build::Lcp(|p| Box::new(NcpAsLcp { inner: BdiffNewton::from_params(p) })),
    },
    Entry {
        name: "fb-newton",
        family: Family::Mcp,
        summary: "Fischer–Burmeister semismooth Newton with a non-monotone Armijo search",
        citation: "De Luca–Facchinei–Kanzow 1996 (cited by Glocker–Studer 2005); Grippo–Lampariello–Lucidi 1986",
        params: fb_newton::params::PARAMS,
        build: Build::Mcp(|p| Box::new(FbNewton::from_params(p))),
    },
    Entry {
        name: "bdiff-newton",
        family: Family::Mcp,
        summary: "B-differentiable (min-map) Newton, degenerate rows by a small Lemke LCP, hot start",
        citation: "Harker–Pang 1990; Pang 1990; Trinkle–Tzitzouris–Pang 2001",
        params: bdiff_newton::params::PARAMS,
        build: Build::Mcp(|p| Box::new(BdiffNewton::from_params(p))),
    },
    Entry {
        name: "schur-lemke",
        family: Family::Mcp,
        summary: "MLCP by pivoting: equations eliminated (nonsingular block), Lemke on the Schur LCP, block-pivoting polish",
        citation: "Cottle–Pang–Stone 1992 §1.5 (mixed LCP); Lemke 1965; Júdice–Pires 1994 (block principal pivoting)",
        params: schur_lemke::params::PARAMS,
        build: Build::Mcp(|p| Box::new(SchurLemke::from_params(p))),
    },
    Entry {
        name: "nsgs",
        family: Family::Friction,
        summary: "nonsmooth Gauss–Seidel over contacts, each one-contact problem solved exactly",
        citation: "Moreau 1988 §15–16; Jean 1999",
        params: nsgs::params::PARAMS,
        build: Build::Friction(|p| Box::new(Nsgs::from_params(p))),
    },
    Entry {
        name: "ac-newton",
        family: Family::Friction,
        summary: "semismooth Newton on the Alart–Curnier function",
        citation: "Alart–Curnier 1991",
        params: newton::params::PARAMS,
        build: Build::Friction(|p| Box::new(SemismoothNewton::from_params(NewtonFunction::AlartCurnier, p))),
    },
    Entry {
        name: "fb-newton",
        family: Family::Friction,
        summary: "semismooth Newton on the Jordan-algebra Fischer–Burmeister function of the De Saxcé pair",
        citation: "Fukushima–Luo–Tseng 2001",
        params: newton::params::PARAMS,
        build: Build::Friction(|p| Box::new(SemismoothNewton::from_params(NewtonFunction::FischerBurmeister, p))),
    },
    Entry {
        name: "nm-newton",
        family: Family::Friction,
        summary: "semismooth Newton on the natural map r − P_K(r − ρ ũ): any friction law given by its projection",
        citation: "Facchinei–Pang 2003 §1.5; Acary–Brémond–Huber 2018",
        params: newton::params::PARAMS,
        build: Build::Friction(|p| Box::new(SemismoothNewton::from_params(NewtonFunction::NaturalMap, p))),
    },
    Entry {
        name: "prox",
        family: Family::Friction,
        summary: "proximal-point outer loop (W + σI) around the Alart–Curnier Newton",
        citation: "Acary–Brémond–Huber 2018",
        params: prox::params::PARAMS,
        build: Build::Friction(|p| Box::new(Prox::from_params(p))),
    },
    Entry {
        name: "lemke-pyramid",
        family: Family::Friction,
        summary: "Lemke on the LCP of a polyhedral friction cone, with pyramid alignment",
        citation: "Stewart–Trinkle 1996 (Stewart 2000 eq. 2.11–2.16); Trinkle–Tzitzouris–Pang 2001 eq. 5–6",
        params: lemke_pyramid::params::PARAMS,
        build: Build::Friction(|p| Box::new(LemkePyramid::from_params(p))),
    },
    Entry {
        name: "admm",
        family: Family::Friction,
        summary: "ADMM on the De Saxcé-shifted convex problem, W + ρI factorized, adaptive ρ, accelerated",
        citation: "Siconos fc3d_admm; Acary–Brémond–Huber 2018; Boyd et al. 2011 eq. 3.5–3.7, 3.13; Goldstein et al. 2014 §4.3",
        params: admm::params::PARAMS,
        build: Build::Friction(|p| Box::new(Admm::from_params(p))),
    },
    Entry {
        name: "apgd",
        family: Family::Friction,
        summary: "accelerated projected gradient (Nesterov, backtracking, restart) in a De Saxcé fixed-point loop",
        citation: "Mazhar–Heyn–Negrut–Tasora 2015 (ACM ToG 34(3)), APGD; De Saxcé fixed point as in Acary–Brémond–Huber 2018",
        params: apgd::params::PARAMS,
        build: Build::Friction(|p| Box::new(Apgd::from_params(p))),
    },
    Entry {
        name: "global-ac-newton",
        family: Family::Friction,
        summary: "Alart–Curnier semismooth Newton in (v, r) on the global form M v = f + H r: one sparse LU a \
                  step, of the Newton system reduced to the velocities, W never formed (global problems only)",
        citation: "Alart–Curnier 1991; global form as Siconos' gfc3d_nonsmooth_Newton_AlartCurnier (Acary–Brémond–Huber 2018 §4)",
        params: global_newton::params::PARAMS,
        build: Build::Global(|p| Box::new(GlobalNewton::from_params(p))),
    },
    Entry {
        name: "global-ipm",
        family: Family::Friction,
        summary: "primal-dual interior point (Nesterov–Todd scaling, Mehrotra predictor–corrector, the KKT \
                  system reduced to the velocities by a supernodal Cholesky) on the convex relaxation, then global-ac-newton from its answer to exact \
                  Coulomb (global problems only)",
        citation: "Vandenberghe 2010 (CVXOPT coneqp) §§2–5; De Saxcé–Feng 1998; Acary–Cadoux–Lemaréchal–Malick 2011 §3",
        params: global_ipm::params::PARAMS,
        build: Build::Global(|p| Box::new(GlobalIpm::from_params(p))),
    },
];
