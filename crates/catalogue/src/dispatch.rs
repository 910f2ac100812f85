//! The one dispatch: a [`Solver`] built from the catalogue by family and name, and
//! [`Solver::solve`] for any [`Problem`] of its family. `perp solve`, `perp bench` and the
//! stepper go through here; nothing else matches on solver names.

use crate::entries::{entry, wrong_family, Build, Family};
use crate::params::Params;
use crate::problem::{NcpInstance, Problem};
use perp_cones::{FrictionSolutionMut, FrictionSolver, GlobalFrictionContactProblem, GlobalSolver};
use perp_core::{Error, Ray, Settings, SolutionMut, SolveReport, Status};
use perp_lcp::LcpSolver;
use perp_ncp::{Mcp, NcpSolver};

/// A solver built from the catalogue, ready for problems of its family. It keeps its
/// internal state (workspaces, hot-start memory) across calls, so build it once and call
/// [`Solver::solve`] for each problem of a sequence.
pub enum Solver {
    /// An LCP solver.
    Lcp(Box<dyn LcpSolver>),
    /// An MCP/NCP/MLCP solver.
    Mcp(Box<dyn NcpSolver>),
    /// A frictional contact solver.
    Friction(Box<dyn FrictionSolver>),
    /// A solver of the global frictional form (M, H), for global problems.
    Global(Box<dyn GlobalSolver>),
}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Solver({:?}, {})", self.family(), self.name())
    }
}

/// What a solve returns, for any kind of problem.
#[derive(Clone, Debug)]
pub struct Answer {
    /// z (LCP, MLCP, NCP) or the reactions r (frictional contact).
    pub z: Vec<f64>,
    /// w = Mz + q, F(z), or the local velocities u = W r + q.
    pub w: Vec<f64>,
    /// The global velocities v = M⁻¹(f + H r) of a global frictional problem.
    pub v: Option<Vec<f64>>,
    /// Lemke's ray, when it ended on one.
    pub ray: Option<Ray>,
    /// Status, effort, accuracy.
    pub report: SolveReport,
}

impl Answer {
    /// No answer yet: empty buffers for [`Solver::solve_into`] to size and keep.
    pub fn empty() -> Answer {
        Answer { z: Vec::new(), w: Vec::new(), v: None, ray: None, report: SolveReport::new("") }
    }

    /// Sized for an in-place solve of `n` unknowns (z keeps its warm start), `v` and `ray`
    /// cleared; lends the buffers as an LCP solver's output.
    fn prepared(&mut self, n: usize) -> SolutionMut<'_> {
        self.z.resize(n, 0.0);
        self.w.resize(n, 0.0);
        (self.v, self.ray) = (None, None);
        SolutionMut { z: &mut self.z, w: &mut self.w, report: &mut self.report }
    }
}

/// Rounds of [`solve_reduced`] at a tighter local tolerance, at most.
const GLOBAL_ROUNDS: usize = 3;

/// A local solver on a global problem's reduction `u = W r + q` (`W = Hᵀ M⁻¹ H`), judged by
/// the global problem's own measure: Siconos' global error of `(r, v)`, `v = M⁻¹ (f + H r)`
/// ([`GlobalFrictionContactProblem::error`]), as the global solvers are. The local measure
/// normalises the Coulomb residual by ‖q‖ and the global one by `max(‖u‖, ‖r‖)`, so a local
/// answer within `tol` can miss it (admm on GFC3D_Example0: 9.6e-7 locally, 1.03e-6
/// globally). Such an answer is solved again, warm, at a local tolerance tightened by the
/// ratio (at most [`GLOBAL_ROUNDS`] rounds, their effort, time and history added up:
/// [`SolveReport::follow`]). The report's
/// `error` is the global one, and the answer is `Solved` only when its global error is within
/// `tol` (and, after a round that stopped short of its own tolerance, its physical figure
/// within the bound of `tol`); a locally solved answer that misses it is `Stalled`, the
/// message giving both errors.
fn solve_reduced(
    sv: &mut dyn FrictionSolver,
    g: &GlobalFrictionContactProblem,
    warm: Option<&[f64]>,
    s: &Settings,
) -> Result<Answer, Error> {
    let (local, reduction) = g.reduce()?;
    let mut f = sv.solve(&local, warm, s)?;
    let mut v = reduction.velocity(&f.r);
    let mut global = g.error(&f.r, &v);
    let (mut tol, mut rounds) = (s.tol, 0);
    while f.report.status == Status::Solved && global > s.tol && global.is_finite() && rounds < GLOBAL_ROUNDS
    {
        tol *= (s.tol / global).clamp(1e-3, 0.1);
        let next = sv.solve(&local, Some(&f.r), &Settings { tol, ..s.clone() })?;
        let earlier = std::mem::replace(&mut f, next);
        f.report.follow(&earlier.report);
        v = reduction.velocity(&f.r);
        global = g.error(&f.r, &v);
        rounds += 1;
    }
    let local_error = f.report.error;
    f.report.error = global;
    let physical = f.report.physical_error.is_none_or(|e| e <= perp_core::measures::physical_bound(s.tol));
    if f.report.status == Status::Solved && (global.is_nan() || global > s.tol) {
        f.report.status = Status::Stalled;
    } else if rounds > 0 && f.report.status != Status::Solved && global <= s.tol && physical {
        // A round stopped short of its tighter local tolerance but met the caller's.
        f.report.status = Status::Solved;
    }
    if rounds > 0 || (f.report.status == Status::Stalled && local_error <= s.tol) {
        let msg = f.report.message.get_or_insert_with(String::new);
        if !msg.is_empty() {
            msg.push_str("; ");
        }
        use std::fmt::Write as _;
        let _ = write!(
            msg,
            "on the reduction W = HᵀM⁻¹H: local error {local_error:.2e}, Siconos' global error {global:.2e}"
        );
        if rounds > 0 {
            let _ = write!(msg, " after {rounds} round(s) at a tighter local tolerance (last {tol:.1e})");
        }
    }
    Ok(Answer { z: f.r, w: f.u, v: Some(v), ray: None, report: f.report })
}

/// Builds `family`'s solver `name` with `params` (each checked against the entry's declared
/// range). Errors: an unknown name (listing the family's names) or a bad parameter (naming
/// it, its value and its valid values).
///
/// ```
/// use perp_catalogue::{build, Family, Params};
/// assert_eq!(build(Family::Friction, "nsgs", &Params::new()).unwrap().name(), "nsgs");
/// let e = build(Family::Lcp, "nsgs", &Params::new()).unwrap_err().to_string();
/// assert!(e.starts_with("nsgs is a frictional-contact solver; for an LCP use one of lemke, pgs"), "{e}");
/// let e = build(Family::Lcp, "psor", &Params::parse("omega=3").unwrap()).unwrap_err().to_string();
/// assert!(e.contains("psor: parameter omega") && e.contains("(0, 2)"), "{e}");
/// ```
pub fn build(family: Family, name: &str, params: &Params) -> Result<Solver, Error> {
    let e = entry(family, name)?;
    let p = params.resolve(e.name, e.params)?;
    Ok(match e.build {
        Build::Lcp(f) => Solver::Lcp(f(&p)),
        Build::Mcp(f) => Solver::Mcp(f(&p)),
        Build::Friction(f) => Solver::Friction(f(&p)),
        Build::Global(f) => Solver::Global(f(&p)),
    })
}

/// The LCP solver `name` with its defaults (`perp::lcp::solver`).
pub fn lcp_solver(name: &str) -> Result<Box<dyn LcpSolver>, Error> {
    match build(Family::Lcp, name, &Params::new())? {
        Solver::Lcp(s) => Ok(s),
        _ => unreachable!("an Lcp entry builds an LCP solver"),
    }
}

/// The MCP/NCP solver `name` with its defaults (`perp::ncp::solver`).
pub fn mcp_solver(name: &str) -> Result<Box<dyn NcpSolver>, Error> {
    match build(Family::Mcp, name, &Params::new())? {
        Solver::Mcp(s) => Ok(s),
        _ => unreachable!("an Mcp entry builds an MCP solver"),
    }
}

/// The frictional contact solver `name` with its defaults (`perp::cones::solver`).
pub fn friction_solver(name: &str) -> Result<Box<dyn FrictionSolver>, Error> {
    match build(Family::Friction, name, &Params::new())? {
        Solver::Friction(s) => Ok(s),
        Solver::Global(_) => Err(global_only(name)),
        _ => unreachable!("a Friction entry builds a frictional solver"),
    }
}

/// Solves `problem` with the solver `name` (its kind's default when `None`) and `params`,
/// from `warm` when given: the one-call form of [`build`] and [`Solver::solve`].
///
/// ```
/// use perp_catalogue::{solve, Params, Problem};
/// use perp_core::{Matrix, Settings, Status};
/// let lcp = perp_lcp::Lcp::new(Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0])?, vec![-5.0, -6.0])?;
/// let a = solve(&Problem::Lcp(lcp), None, &Params::new(), None, &Settings::default())?;
/// assert_eq!((a.report.solver.as_str(), a.report.status), ("lemke", Status::Solved));
/// # Ok::<(), perp_core::Error>(())
/// ```
pub fn solve(
    problem: &Problem,
    name: Option<&str>,
    params: &Params,
    warm: Option<&[f64]>,
    s: &Settings,
) -> Result<Answer, Error> {
    build(problem.family(), name.unwrap_or(problem.default_solver()), params)?.solve(problem, warm, s)
}

/// The error for a solver of the global form given a local problem.
fn global_only(name: &str) -> Error {
    Error::Requirement {
        solver: name.into(),
        requirement:
            "a frictional problem in global form (M, H, f, b: a global Siconos .dat or FCLIB file); \
                      this one is local (u = W r + q)"
                .into(),
        suggestion: Some(format!("for a local problem use one of: {}", crate::FRICTION_NAMES.join(", "))),
    }
}

/// Whether some contact of `p` has the rolling friction law.
fn is_rolling(p: &perp_cones::FrictionContactProblem) -> bool {
    p.cones.as_ref().is_some_and(|c| c.iter().any(|s| matches!(s, perp_cones::ConeSpec::Rolling { .. })))
}

/// The error for a solver of the global form given a rolling problem: the global solvers take
/// the Coulomb law only (their global problem carries no other law), and a global rolling file
/// (`GRFC3D_*`, FCLIB's `/fclib_global_rolling`) is read reduced to the local form.
fn global_rolling(name: &str) -> Error {
    Error::Requirement {
        solver: name.into(),
        requirement: "the Coulomb law in global form; the rolling friction law (rolling resistance, \
                      rfc3d/rfc2d) has no global form in perp, and a global rolling file (GRFC3D_*) \
                      is read reduced to the local form u = W r + q"
            .into(),
        suggestion: Some(
            "solve it with a local solver (nsgs, the default; `perp list` gives the others)".into(),
        ),
    }
}

impl Solver {
    /// The solver's name.
    pub fn name(&self) -> &str {
        match self {
            Solver::Lcp(s) => s.name(),
            Solver::Mcp(s) => s.name(),
            Solver::Friction(s) => s.name(),
            Solver::Global(s) => s.name(),
        }
    }

    /// Drops what the solver remembers of earlier answers (`bdiff-newton`'s hot start) and
    /// keeps what it prepared for the problem's structure: the next solve of the same problem
    /// costs what a prepared solve of new values costs.
    pub fn forget(&mut self) {
        match self {
            Solver::Lcp(s) => s.forget(),
            Solver::Mcp(s) => s.forget(),
            Solver::Friction(_) | Solver::Global(_) => {}
        }
    }

    /// The family of problems it takes.
    pub fn family(&self) -> Family {
        match self {
            Solver::Lcp(_) => Family::Lcp,
            Solver::Mcp(_) => Family::Mcp,
            Solver::Friction(_) | Solver::Global(_) => Family::Friction,
        }
    }

    /// Solves `problem`, starting from `warm` (z, or r) when given; otherwise LCPs and
    /// frictional problems start cold, MLCPs from z = 0 and NCPs from the sample's first start.
    /// `Err` when the problem is not of the solver's family (listing the names that are), or
    /// for input the solver cannot take (see each solver).
    pub fn solve(&mut self, problem: &Problem, warm: Option<&[f64]>, s: &Settings) -> Result<Answer, Error> {
        if problem.family() != self.family() {
            // Built for another family (`fb-newton` exists in three): say which one it is.
            return Err(wrong_family(self.name(), self.family().solver_noun(), problem.family()));
        }
        let plain = |sol: perp_core::Solution| Answer {
            z: sol.z,
            w: sol.w,
            v: None,
            ray: sol.ray,
            report: sol.report,
        };
        match (self, problem) {
            (Solver::Lcp(sv), Problem::Lcp(p)) => sv.solve(p, warm, s).map(plain),
            (Solver::Mcp(sv), Problem::Mlcp(p)) => {
                let f = p.to_function();
                let (lower, upper) = p.bounds();
                let mcp = Mcp::new(&f, lower, upper)?;
                let z0 = warm.map_or_else(|| vec![0.0; p.n()], <[f64]>::to_vec);
                // The physical check of the MLCP (issue 15): the MCP measure can pass an answer
                // that is wrong in the problem's own scales.
                sv.solve(&mcp, &z0, s).map(|mut sol| {
                    p.verify_physics(&sol.z, &sol.w, &mut sol.report, s.tol);
                    plain(sol)
                })
            }
            (Solver::Mcp(sv), Problem::Ncp(p)) => {
                let sample = p.build();
                let z0 = warm.map_or_else(|| NcpInstance::start(&sample), <[f64]>::to_vec);
                sv.solve(&sample.mcp(), &z0, s).map(plain)
            }
            (Solver::Friction(sv), Problem::Friction(p)) => {
                sv.solve(p, warm, s).map(|f| Answer { z: f.r, w: f.u, v: None, ray: None, report: f.report })
            }
            (Solver::Friction(sv), Problem::GlobalFriction(g)) => solve_reduced(sv.as_mut(), g, warm, s),
            (Solver::Global(sv), Problem::GlobalFriction(g)) => {
                let f = sv.solve_global(g, warm, s)?;
                Ok(Answer { z: f.r, w: f.u, v: Some(f.v), ray: None, report: f.report })
            }
            (Solver::Global(sv), Problem::Friction(p)) if is_rolling(p) => Err(global_rolling(sv.name())),
            (Solver::Global(sv), Problem::Friction(_)) => Err(global_only(sv.name())),
            _ => unreachable!("the families were checked above"),
        }
    }

    /// [`Solver::solve`] into an answer kept from call to call (start from
    /// [`Answer::empty`]): `out.z` (z, or r) holds the start when `warm` (of the problem's
    /// size) and the answer on return, `out.w` the matching w (or u), and `out.report` is
    /// overwritten in place. For LCPs and local frictional problems this is the solver's
    /// prepared `solve_into`: once it has solved a problem of the same structure, a call
    /// allocates nothing, and `z`, `w` and the report equal [`Solver::solve`]'s bit for bit
    /// (`v` and `ray` are then `None`: Lemke's ray is [`perp_lcp::lemke::Lemke::last_ray`]).
    /// Other kinds call `solve` and move its answer in.
    pub fn solve_into(
        &mut self,
        problem: &Problem,
        warm: bool,
        out: &mut Answer,
        s: &Settings,
    ) -> Result<(), Error> {
        if problem.family() != self.family() {
            // Built for another family (`fb-newton` exists in three): say which one it is.
            return Err(wrong_family(self.name(), self.family().solver_noun(), problem.family()));
        }
        let n = problem.n();
        if warm {
            // A warm start of another length is refused, not padded.
            Error::check_len("warm start", &out.z, n)?;
        }
        match (self, problem) {
            (Solver::Lcp(sv), Problem::Lcp(p)) => sv.solve_into(p, warm, out.prepared(n), s),
            (Solver::Friction(sv), Problem::Friction(p)) => {
                let SolutionMut { z, w, report } = out.prepared(n);
                sv.solve_into(p, warm, FrictionSolutionMut { r: z, u: w, report }, s)
            }
            (sv, problem) => {
                *out = sv.solve(problem, warm.then_some(out.z.as_slice()), s)?;
                Ok(())
            }
        }
    }
}
