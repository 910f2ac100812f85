//! [`Settings`]: the knobs every solver honours.

use crate::iteration::{Control, Progress};
use crate::Error;
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    /// Wall-clock limit for the solve. Default: none. Any `Duration` is valid, `Duration::MAX`
    /// included (a deadline that would overflow an `Instant` is no deadline, see
    /// [`Settings::deadline`]); front ends convert seconds with [`Settings::limit_from_secs`].
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

    /// A number of seconds as a time limit or budget: the one conversion of every front end
    /// (`perp solve --time-limit`, `perp simulate --step-budget`, Python's `time_limit`, C's
    /// `settings.time_limit`). `Err(InvalidSetting)` naming `name` for NaN, a negative or an
    /// infinite value; `Ok(None)`, **no limit**, for a finite value beyond what a `Duration`
    /// holds (`u64::MAX` seconds, some 5.8·10¹¹ years); never panics
    /// (`Duration::from_secs_f64` does there).
    ///
    /// ```
    /// use perp_core::Settings;
    /// use std::time::Duration;
    /// assert_eq!(Settings::limit_from_secs("t", 1.5).unwrap(), Some(Duration::from_millis(1500)));
    /// assert_eq!(Settings::limit_from_secs("t", 1e300).unwrap(), None);
    /// assert!(Settings::limit_from_secs("t", -1.0).is_err());
    /// ```
    pub fn limit_from_secs(name: &str, secs: f64) -> Result<Option<Duration>, Error> {
        if !(secs.is_finite() && secs >= 0.0) {
            return Err(Error::setting(name, secs, "must be a finite number of seconds >= 0"));
        }
        Ok(Duration::try_from_secs_f64(secs).ok())
    }

    /// The instant `start + time_limit`, or `None` without a time limit or when the sum does
    /// not fit in an `Instant` (`Instant + Duration` panics there): no deadline.
    pub fn deadline(&self, start: Instant) -> Option<Instant> {
        self.time_limit.and_then(|t| start.checked_add(t))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finite_number_of_seconds_converts_without_panicking() {
        // Every binade from the smallest subnormal to the largest double, and its neighbours.
        let mut secs = f64::from_bits(1);
        while secs.is_finite() {
            for x in [secs, secs * 1.5, secs.next_down(), secs.next_up()] {
                let d = Settings::limit_from_secs("t", x).unwrap();
                if x < u64::MAX as f64 {
                    let d = d.unwrap_or_else(|| panic!("{x} s fits in a Duration"));
                    assert!((d.as_secs_f64() - x).abs() <= 1e-9 + x * 1e-15, "{x} -> {d:?}");
                }
                if x > 2f64.powi(64) {
                    assert_eq!(d, None, "{x} s is beyond a Duration: no limit");
                }
                let s = Settings { time_limit: d, ..Settings::default() };
                let now = Instant::now();
                assert!(s.deadline(now).is_none_or(|t| t >= now));
            }
            secs *= 2.0;
        }
        assert_eq!(Settings::limit_from_secs("t", 0.0).unwrap(), Some(Duration::ZERO));
        assert_eq!(Settings::limit_from_secs("t", f64::MAX).unwrap(), None);
    }

    #[test]
    fn nan_negative_and_infinite_seconds_are_refused_by_name() {
        for x in [f64::NAN, -1.0, -f64::MIN_POSITIVE, f64::INFINITY, f64::NEG_INFINITY] {
            let e = Settings::limit_from_secs("--time-limit", x).unwrap_err().to_string();
            assert!(e.contains("--time-limit") && e.contains(&format!("{x}")), "{e}");
        }
    }

    #[test]
    fn a_limit_beyond_an_instant_is_no_deadline() {
        let now = Instant::now();
        let s = Settings { time_limit: Some(Duration::MAX), ..Settings::default() };
        assert_eq!(s.deadline(now), None);
        let s = Settings { time_limit: Some(Duration::from_secs(1)), ..Settings::default() };
        assert_eq!(s.deadline(now), Some(now + Duration::from_secs(1)));
        assert_eq!(Settings::default().deadline(now), None);
    }
}
