//! The solver interface: [`FrictionSolver`] (`solve` over `solve_into`), what it returns
//! ([`FrictionSolution`]) and the solver-private workspace slot [`Prepared`].

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
pub trait FrictionSolver: Send {
    /// The registry name.
    fn name(&self) -> &str;
    /// Solves `p`, starting from `warm` reactions (length `dim · nc`) or from 0.
    /// A run that does not converge is `Ok` with a status saying why; `Err` is for input that
    /// cannot be solved as given (sizes, values, a law the method cannot handle).
    fn solve(
        &mut self,
        p: &FrictionContactProblem,
        warm: Option<&[f64]>,
        s: &perp_core::Settings,
    ) -> Result<FrictionSolution, Error>;

    /// Solves `p` into the caller's buffers: `r` (length dim·nc) holds the warm start on entry
    /// when `warm` is true (else it is ignored and the solve starts cold, as `solve(p, None)`)
    /// and the reactions on return; `u` receives u = W r + q;
    /// `report` is overwritten in place (its `solver` String and `message` reuse their
    /// storage).
    ///
    /// Once the solver has solved a problem of the same structure (dim, size, storage and
    /// sparsity pattern of W, friction laws), a call allocates nothing (with record_history
    /// off) — for `nsgs`, `ac-newton`, `fb-newton` and `prox` on Coulomb problems with a
    /// dense Newton matrix; see each solver for what still allocates. [`FrictionSolver::solve`]
    /// of those solvers is this method on fresh buffers, so both give the same answer bit for
    /// bit.
    ///
    /// The default calls [`FrictionSolver::solve`] (warm-started from `r` when `warm`) and
    /// copies the answer.
    ///
    /// ```
    /// use perp_cones::{FrictionContactProblem, FrictionSolver, Nsgs, SolveReport, Status};
    /// use perp_core::{Matrix, Settings};
    /// let w = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])?;
    /// let mut p = FrictionContactProblem::new(3, w, vec![-1.0, 2.0, 0.0], vec![0.5])?;
    /// let mut sv = Nsgs::new();
    /// let (mut r, mut u, mut report) = (vec![0.0_f64; 3], vec![0.0; 3], SolveReport::new(""));
    /// for step in 0..3 {
    ///     p.q[1] = 2.0 + step as f64; // new values, same structure
    ///     sv.solve_into(&p, false, &mut r, &mut u, &mut report, &Settings::default())?;
    ///     assert_eq!(report.status, Status::Solved);
    ///     assert!((r[0] - 1.0).abs() < 1e-7 && (r[1] + 0.5).abs() < 1e-7);
    /// }
    /// # Ok::<(), perp_core::Error>(())
    /// ```
    fn solve_into(
        &mut self,
        p: &FrictionContactProblem,
        warm: bool,
        r: &mut [f64],
        u: &mut [f64],
        report: &mut SolveReport,
        s: &perp_core::Settings,
    ) -> Result<(), Error> {
        let warm = warm.then_some(&*r);
        let sol = self.solve(p, warm, s)?;
        Error::check_len("r", r, sol.r.len())?;
        Error::check_len("u", u, sol.u.len())?;
        r.copy_from_slice(&sol.r);
        u.copy_from_slice(&sol.u);
        *report = sol.report;
        Ok(())
    }
}

/// [`FrictionSolver::solve`] by [`FrictionSolver::solve_into`] on fresh buffers.
pub(crate) fn solve_by_into<S: FrictionSolver + ?Sized>(
    sv: &mut S,
    p: &FrictionContactProblem,
    warm: Option<&[f64]>,
    s: &Settings,
) -> Result<FrictionSolution, Error> {
    let n = p.size();
    // A warm start of the wrong length is passed on: solve_into reports it after checking
    // the problem and the settings, as `start` does.
    let mut r = warm.map_or_else(|| vec![0.0; n], <[f64]>::to_vec);
    let mut u = vec![0.0; n];
    let mut report = SolveReport::new(sv.name());
    sv.solve_into(p, warm.is_some(), &mut r, &mut u, &mut report, s)?;
    Ok(FrictionSolution { r, u, report })
}

/// What a solver keeps between calls to [`FrictionSolver::solve_into`]: what depends on a
/// problem's structure only (W's pattern, the cone objects, the iteration vectors, the Newton
/// matrix's storage). Opaque; `Prepared::default()` is empty (the next solve prepares
/// afresh), and cloning a solver gives the clone an empty one.
#[derive(Default)]
pub struct Prepared(Option<Box<dyn std::any::Any + Send + Sync>>);

impl Prepared {
    /// The workspace of type `T`, created empty if there is none yet (or one of another type).
    pub(crate) fn get<T: Default + Send + Sync + 'static>(&mut self) -> &mut T {
        if !self.0.as_ref().is_some_and(|b| b.is::<T>()) {
            self.0 = Some(Box::new(T::default()));
        }
        match self.0.as_mut().and_then(|b| b.downcast_mut::<T>()) {
            Some(t) => t,
            None => unreachable!("set above"),
        }
    }
}

impl Clone for Prepared {
    fn clone(&self) -> Self {
        Prepared::default()
    }
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Prepared(..)" } else { "Prepared(empty)" })
    }
}
