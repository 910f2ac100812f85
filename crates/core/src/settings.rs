//! [`Settings`]: the knobs every solver honours.

use crate::iteration::{Control, Progress};
use crate::Error;
use std::sync::Arc;
use std::time::Duration;

/// A callback told of every iteration of an iterative solver; it may ask the solver to stop.
///
/// `Fn` rather than `FnMut` so that [`Settings`] stays `Clone + Send + Sync`; keep state in
/// atomics or a `Mutex` if you need to accumulate.
pub type Observer = Arc<dyn Fn(&Progress) -> Control + Send + Sync>;

/// Settings shared by every solver. Solver-specific knobs (relaxation ω, covering vector …)
/// live on the solver types.
///
/// Build with struct-update syntax so that new fields do not break your code:
///
/// ```
/// use perp_core::Settings;
/// let s = Settings { tol: 1e-10, max_iter: 500, ..Settings::default() };
/// assert!(s.validate().is_ok());
/// assert_eq!(s.max_iter_or(10), 500);
/// assert_eq!(Settings::default().max_iter_or(10), 10);
/// ```
#[derive(Clone)]
pub struct Settings {
    /// Tolerance on `report.error`, the peer-compatible error measure of the problem class
    /// (`design/SUITES.md`). Default `1e-8`; valid: finite and `≥ 0`.
    pub tol: f64,
    /// Iteration limit (sweeps for PGS-type methods, pivots for pivoting methods, Newton
    /// steps for Newton methods). Default `0`, meaning "the solver's own default", which each
    /// solver documents.
    pub max_iter: usize,
    /// Wall-clock limit for the solve. Default: none.
    pub time_limit: Option<Duration>,
    /// Record the error after every iteration in `report.history`. Default `false`.
    pub record_history: bool,
    /// Called after every iteration of iterative solvers. Default: none.
    pub observer: Option<Observer>,
    /// Worker threads for the solvers' parallel parts (`crate::parallel`; NSGS with
    /// colouring, APGD, the sparse products). Default `1`: a library call runs on the calling
    /// thread, since callers such as the bench runner or a C program already run solves
    /// side by side; the `perp` command defaults to all cores. The answer does not depend on
    /// it, bit for bit. Valid: `≥ 1`.
    pub threads: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            tol: 1e-8,
            max_iter: 0,
            time_limit: None,
            record_history: false,
            observer: None,
            threads: 1,
        }
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("tol", &self.tol)
            .field("max_iter", &self.max_iter)
            .field("time_limit", &self.time_limit)
            .field("record_history", &self.record_history)
            .field("observer", &self.observer.as_ref().map(|_| "<callback>"))
            .field("threads", &self.threads)
            .finish()
    }
}

impl Settings {
    /// `Err(InvalidSetting)` if a field is out of its documented range.
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.tol.is_finite() && self.tol >= 0.0) {
            return Err(Error::setting("tol", self.tol, "must be finite and >= 0"));
        }
        if self.threads == 0 {
            return Err(Error::setting("threads", 0, "must be at least 1"));
        }
        Ok(())
    }

    /// `max_iter`, or `default` when it is 0.
    pub fn max_iter_or(&self, default: usize) -> usize {
        if self.max_iter == 0 {
            default
        } else {
            self.max_iter
        }
    }
}
