//! The solver interface: [`FrictionSolver`] (`solve` over `solve_into`), what it returns
//! ([`FrictionSolution`]) and the solvers that keep a typed workspace between solves
//! ([`Prepares`]).

use super::*;

/// What a frictional solver returns.
#[derive(Clone, Debug)]
pub struct FrictionSolution {
    /// Reactions (length `dim · nc`).
    pub r: Vec<f64>,
    /// Velocities `u = W r + q`, recomputed from `r`.
    pub u: Vec<f64>,
    /// Status, iterations, the error of [`FrictionContactProblem::error`] at `r`, timing.
    pub report: SolveReport,
}

/// A frictional contact solver (the catalogue, `perp-catalogue`, builds them by name).
///
/// A solver implements [`FrictionSolver::solve_into`]; [`FrictionSolver::solve`] is that
/// method on fresh buffers, so both give the same answer bit for bit.
pub trait FrictionSolver: Send {
    /// The registry name.
    fn name(&self) -> &str;

    /// Solves `p` into the caller's buffers `out`: `r` (length dim·nc) holds the warm start on entry
    /// when `warm` is true (else it is ignored and the solve starts cold, as `solve(p, None)`)
    /// and the reactions on return; `u` receives u = W r + q;
    /// `report` is overwritten in place (its `solver` String and `message` reuse their
    /// storage).
    /// A run that does not converge is `Ok` with a status saying why; `Err` is for input that
    /// cannot be solved as given (sizes, values, a law the method cannot handle).
    ///
    /// Once the solver has solved a problem of the same structure (dim, size, storage and
    /// sparsity pattern of W, friction laws), a call allocates nothing (with record_history
    /// off) — for `nsgs`, `ac-newton`, `fb-newton` and `prox` on Coulomb problems with a
    /// dense Newton matrix; see each solver for what still allocates.
    ///
    /// ```
    /// use perp_cones::{FrictionContactProblem, FrictionSolution, FrictionSolver, Nsgs, Status};
    /// use perp_core::{Matrix, Settings};
    /// let w = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])?;
    /// let mut p = FrictionContactProblem::new(3, w, vec![-1.0, 2.0, 0.0], vec![0.5])?;
    /// let mut sv = Nsgs::new();
    /// let mut sol = FrictionSolution::zeros(3); // kept from step to step
    /// for step in 0..3 {
    ///     p.q[1] = 2.0 + step as f64; // new values, same structure
    ///     sv.solve_into(&p, step > 0, sol.view_mut(), &Settings::default())?;
    ///     assert_eq!(sol.report.status, Status::Solved);
    ///     assert!((sol.r[0] - 1.0).abs() < 1e-7 && (sol.r[1] + 0.5).abs() < 1e-7);
    /// }
    /// # Ok::<(), perp_core::Error>(())
    /// ```
    fn solve_into(
        &mut self,
        p: &FrictionContactProblem,
        warm: bool,
        out: FrictionSolutionMut<'_>,
        s: &perp_core::Settings,
    ) -> Result<(), Error>;

    /// Solves `p`, starting from `warm` reactions (length `dim · nc`) or from 0:
    /// [`FrictionSolver::solve_into`] on fresh buffers.
    fn solve(
        &mut self,
        p: &FrictionContactProblem,
        warm: Option<&[f64]>,
        s: &perp_core::Settings,
    ) -> Result<FrictionSolution, Error> {
        let n = p.size();
        // A warm start of the wrong length is passed on: solve_into reports it after checking
        // the problem and the settings, as `start` does.
        let r = warm.map_or_else(|| vec![0.0; n], <[f64]>::to_vec);
        let mut sol = FrictionSolution { r, u: vec![0.0; n], report: SolveReport::new(self.name()) };
        self.solve_into(p, warm.is_some(), sol.view_mut(), s)?;
        Ok(sol)
    }
}

impl FrictionSolution {
    /// Zero reactions and velocities of size `n` (`dim · nc`) with a fresh report: buffers to
    /// solve into and keep from call to call ([`FrictionSolution::view_mut`]).
    pub fn zeros(n: usize) -> FrictionSolution {
        FrictionSolution { r: vec![0.0; n], u: vec![0.0; n], report: SolveReport::new("") }
    }

    /// The buffers of this solution, borrowed for [`FrictionSolver::solve_into`] (`r` holds
    /// the warm start on entry when the solve is warm).
    pub fn view_mut(&mut self) -> FrictionSolutionMut<'_> {
        FrictionSolutionMut { r: &mut self.r, u: &mut self.u, report: &mut self.report }
    }

    /// Copies the answer into a caller's buffers (`solve_into` of a solver that computes a
    /// `FrictionSolution`): `r` and `u` of its length, else `Err` naming the buffer.
    pub(crate) fn copy_into(self, out: FrictionSolutionMut<'_>) -> Result<(), Error> {
        Error::check_len("r", out.r, self.r.len())?;
        Error::check_len("u", out.u, self.u.len())?;
        out.r.copy_from_slice(&self.r);
        out.u.copy_from_slice(&self.u);
        *out.report = self.report;
        Ok(())
    }
}

/// Where [`FrictionSolver::solve_into`] writes: the caller's reactions `r` (the warm start on
/// entry when the solve is warm, the answer on return), the velocities `u = W r + q` and the
/// report, overwritten in place. The buffers may be a kept [`FrictionSolution`]'s
/// ([`FrictionSolution::view_mut`]) or any slices of the problem's size.
#[derive(Debug)]
pub struct FrictionSolutionMut<'a> {
    /// The reactions r (length `dim · nc`).
    pub r: &'a mut [f64],
    /// The velocities `u = W r + q`.
    pub u: &'a mut [f64],
    /// The report.
    pub report: &'a mut SolveReport,
}

/// A solver that keeps a typed workspace between calls to [`FrictionSolver::solve_into`]:
/// what depends on a problem's structure only (W's pattern, the cone objects, the iteration
/// vectors, the Newton matrix's storage). Its `solve_into` is [`Prepares::solve_prepared`].
pub(crate) trait Prepares: FrictionSolver + Sized {
    /// The solver's workspace type.
    type Workspace: Default;
    /// The iteration limit when `Settings::max_iter` is 0 (the budget of the refinement
    /// rounds of [`solve_refined`]).
    const DEFAULT_MAX_ITER: usize;
    /// The solver's workspace field.
    fn workspace(&mut self) -> &mut Self::Workspace;
    /// One solve of `p` in `ws` (one round of [`solve_refined`]).
    fn solve_in(
        &self,
        ws: &mut Self::Workspace,
        p: &FrictionContactProblem,
        warm: bool,
        out: FrictionSolutionMut<'_>,
        s: &Settings,
    ) -> Result<(), Error>;

    /// [`FrictionSolver::solve_into`] by [`Prepares::solve_in`] under [`solve_refined`]. The
    /// workspace leaves the solver while it runs (`solve_in` reads the options through
    /// `&self`) and comes back after, also when the solve fails.
    fn solve_prepared(
        &mut self,
        p: &FrictionContactProblem,
        warm: bool,
        out: FrictionSolutionMut<'_>,
        s: &Settings,
    ) -> Result<(), Error> {
        let mut ws = std::mem::take(self.workspace());
        let done = solve_refined(p, warm, out, s, Self::DEFAULT_MAX_ITER, |warm, out, s| {
            self.solve_in(&mut ws, p, warm, out, s)
        });
        *self.workspace() = ws;
        done
    }
}

/// One solve as a solver written with [`prepared_solver!`] receives it: the problem, whether
/// `out.r` holds a warm start, where to write, and the settings (the arguments of
/// [`Prepares::solve_in`] in one value).
pub(crate) struct Job<'a> {
    pub(crate) p: &'a FrictionContactProblem,
    pub(crate) warm: bool,
    pub(crate) out: FrictionSolutionMut<'a>,
    pub(crate) s: &'a Settings,
}

/// The [`FrictionSolver`] impl of a solver that [`Prepares`]: its name (a literal, or
/// `field f` for `self.f`) and `solve_into` as [`Prepares::solve_prepared`], after the
/// solver's own `check` method (its options' validation) when one is named.
/// `friction_solver!(Nsgs, "nsgs");` replaces a hand-written impl of that shape.
///
/// A solver whose `solve` builds a [`FrictionSolution`] names it with `solution = f`
/// (`f(&mut self, p, warm: Option<&[f64]>, s)`): `solve_into` copies its answer into the
/// buffers.
macro_rules! friction_solver {
    ($t:ty, $($name:literal)? $(field $field:ident)? $(, check $check:ident)?
     $(, solution = $solve:path)?) => {
        impl $crate::problem::FrictionSolver for $t {
            fn name(&self) -> &str {
                $($name)? $(self.$field)?
            }

            fn solve_into(&mut self, p: &$crate::problem::FrictionContactProblem, warm: bool,
                out: $crate::problem::FrictionSolutionMut<'_>,
                s: &perp_core::Settings) -> Result<(), perp_core::Error> {
                $(self.$check()?;)?
                $crate::problem::friction_solver!(@run self, p, warm, out, s $(, $solve)?)
            }
        }
    };
    (@run $this:expr, $p:ident, $warm:ident, $out:ident, $s:ident) => {
        $crate::problem::Prepares::solve_prepared($this, $p, $warm, $out, $s)
    };
    (@run $this:expr, $p:ident, $warm:ident, $out:ident, $s:ident, $solve:path) => {{
        let warm = $warm.then_some(&*$out.r);
        $solve($this, $p, warm, $s)?.copy_into($out)
    }};
}
pub(crate) use friction_solver;

/// A solver that [`Prepares`], in one line: [`friction_solver!`] and the [`Prepares`] impl,
/// with the workspace in `self.workspace` (of type `workspace`), the default iteration limit
/// `max_iter`, and a round of the solve in `solve` (`fn(&self, &mut Workspace, Job<'_>)`).
macro_rules! prepared_solver {
    ($t:ty, $($name:literal)? $(field $field:ident)?, workspace: $ws:ty, max_iter: $max:expr,
     solve: $solve:path $(, check $check:ident)?) => {
        $crate::problem::friction_solver!($t, $($name)? $(field $field)? $(, check $check)?);

        impl $crate::problem::Prepares for $t {
            type Workspace = $ws;
            const DEFAULT_MAX_ITER: usize = $max;

            fn workspace(&mut self) -> &mut $ws {
                &mut self.workspace
            }

            fn solve_in(&self, ws: &mut $ws, p: &$crate::problem::FrictionContactProblem,
                warm: bool, out: $crate::problem::FrictionSolutionMut<'_>, s: &perp_core::Settings,
            ) -> Result<(), perp_core::Error> {
                $solve(self, ws, $crate::problem::Job { p, warm, out, s })
            }
        }
    };
}
pub(crate) use prepared_solver;

/// The `Clone` (an empty workspace: the clone prepares afresh) and `Debug` (opaque) of a
/// solver's workspace type.
macro_rules! opaque_workspace {
    ($t:ty) => {
        impl Clone for $t {
            fn clone(&self) -> Self {
                Self::default()
            }
        }

        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("Workspace(..)")
            }
        }
    };
}
pub(crate) use opaque_workspace;
