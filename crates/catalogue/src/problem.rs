//! [`Problem`]: the one enum of problems every entry point solves (LCP, MLCP, NCP/MCP,
//! frictional contact in local and in global form), with its kind names.

use perp_cones::{FrictionContactProblem, GlobalFrictionContactProblem};
use perp_lcp::Lcp;
use perp_ncp::mlcp::Mlcp;
use perp_ncp::samples::Sample;
use std::sync::Arc;

use crate::entries::Family;

/// An NCP (or MCP) problem given by a constructor of a [`perp_ncp::samples::Sample`].
///
/// A `Sample` holds its map as `Box<dyn NcpFunction>`, which need not be `Send`; the bench
/// runner solves on worker threads, so this keeps the (thread-safe) constructor and builds
/// the sample where it is solved. Solves start from the sample's first standard start (0 if
/// it has none).
#[derive(Clone)]
pub struct NcpInstance {
    n: usize,
    build: Arc<dyn Fn() -> Sample + Send + Sync>,
}

impl NcpInstance {
    /// The problem built by `build` (called once here to learn n, then once per solve).
    pub fn new(build: impl Fn() -> Sample + Send + Sync + 'static) -> NcpInstance {
        let n = build().n();
        NcpInstance { n, build: Arc::new(build) }
    }

    /// The sample of `perp_ncp::samples` called `name`, if there is one.
    ///
    /// ```
    /// let p = perp_catalogue::NcpInstance::sample("josephy").unwrap();
    /// assert_eq!(p.n(), 4);
    /// assert!(perp_catalogue::NcpInstance::sample("nope").is_none());
    /// ```
    pub fn sample(name: &str) -> Option<NcpInstance> {
        perp_ncp::samples::by_name(name)?;
        let owned = name.to_string();
        Some(NcpInstance::new(move || {
            perp_ncp::samples::by_name(&owned).expect("the sample existed when the instance was made")
        }))
    }

    /// Dimension n.
    pub fn n(&self) -> usize {
        self.n
    }

    /// A fresh copy of the sample.
    pub fn build(&self) -> Sample {
        (self.build)()
    }

    /// The starting point of the solves: the sample's first standard start, or 0.
    pub fn start(sample: &Sample) -> Vec<f64> {
        sample.starts.first().cloned().unwrap_or_else(|| vec![0.0; sample.n()])
    }
}

impl std::fmt::Debug for NcpInstance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NcpInstance").field("n", &self.n).finish_non_exhaustive()
    }
}

/// The kind of a [`Problem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// An LCP or box-LCP.
    Lcp,
    /// An MLCP (equality and complementarity rows).
    Mlcp,
    /// An NCP/MCP given by its map.
    Ncp,
    /// A frictional contact problem in local form, 2-D or 3-D (or with torsion).
    Friction,
    /// A frictional contact problem in global form (M, H, f, b, μ).
    GlobalFriction,
}

impl ProblemKind {
    /// The solver family that takes problems of this kind.
    pub fn family(self) -> Family {
        match self {
            ProblemKind::Lcp => Family::Lcp,
            ProblemKind::Mlcp | ProblemKind::Ncp => Family::Mcp,
            ProblemKind::Friction | ProblemKind::GlobalFriction => Family::Friction,
        }
    }

    /// The default solver: its family's ([`Family::default_solver`]).
    pub fn default_solver(self) -> &'static str {
        self.family().default_solver()
    }
}

/// A problem of any kind perp solves.
#[derive(Clone, Debug)]
pub enum Problem {
    /// An LCP (solvers of [`Family::Lcp`]).
    Lcp(Lcp),
    /// An MLCP (solvers of [`Family::Mcp`], on `Mcp(Mz + q, bounds)`, from z = 0).
    Mlcp(Mlcp),
    /// An NCP/MCP (solvers of [`Family::Mcp`], from the sample's first start).
    Ncp(NcpInstance),
    /// A frictional contact problem in local form (solvers of [`Family::Friction`]).
    Friction(FrictionContactProblem),
    /// A frictional contact problem in global form, reduced to the local form to be solved.
    GlobalFriction(GlobalFrictionContactProblem),
}

impl Problem {
    /// Its kind.
    pub fn kind(&self) -> ProblemKind {
        match self {
            Problem::Lcp(_) => ProblemKind::Lcp,
            Problem::Mlcp(_) => ProblemKind::Mlcp,
            Problem::Ncp(_) => ProblemKind::Ncp,
            Problem::Friction(_) => ProblemKind::Friction,
            Problem::GlobalFriction(_) => ProblemKind::GlobalFriction,
        }
    }

    /// The solver family that takes it.
    pub fn family(&self) -> Family {
        self.kind().family()
    }

    /// `lcp`, `mlcp`, `ncp`, `fc2d`, `fc3d` (`fcNd` for other contact dimensions), `gfc2d`,
    /// `gfc3d`; `rfc2d` / `rfc3d` for rolling frictional contact (every law rolling, d = 3 / 5).
    pub fn kind_name(&self) -> String {
        match self {
            Problem::Lcp(_) => "lcp".into(),
            Problem::Mlcp(_) => "mlcp".into(),
            Problem::Ncp(_) => "ncp".into(),
            Problem::Friction(p) if p.rolling_mu().is_some() => format!("rfc{}d", p.dim.div_ceil(2)),
            Problem::Friction(p) => format!("fc{}d", p.dim),
            Problem::GlobalFriction(p) => format!("gfc{}d", p.dim),
        }
    }

    /// Number of unknowns (z, or the reactions r of a frictional problem).
    pub fn n(&self) -> usize {
        match self {
            Problem::Lcp(p) => p.n(),
            Problem::Mlcp(p) => p.n(),
            Problem::Ncp(p) => p.n(),
            Problem::Friction(p) => p.size(),
            Problem::GlobalFriction(p) => p.size(),
        }
    }

    /// Whether the catalogue has a solver `name` for this problem.
    pub fn accepts(&self, name: &str) -> bool {
        self.solvers().contains(&name)
    }

    /// The catalogue's solvers for this problem: its family's, and for a global frictional
    /// problem also the solvers of the global form ([`crate::GLOBAL_NAMES`]).
    pub fn solvers(&self) -> &'static [&'static str] {
        match self {
            Problem::GlobalFriction(_) => crate::GLOBAL_PROBLEM_NAMES,
            _ => crate::names(self.family()),
        }
    }

    /// The error for a file format that cannot hold this problem: an NCP is given by code,
    /// and the writers take a global frictional problem only in its reduced local form.
    pub fn cannot_be_written_as(&self, format: &str) -> perp_core::Error {
        perp_core::Error::setting(
            "output file",
            format,
            &format!(
                "{format} cannot hold this {} problem (NCPs are given by code; global frictional problems \
                 are written in local form after reduction)",
                self.kind_name()
            ),
        )
    }

    /// The default solver for this problem ([`ProblemKind::default_solver`]).
    pub fn default_solver(&self) -> &'static str {
        self.kind().default_solver()
    }
}
