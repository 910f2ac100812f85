//! The forecast of a slowly converging method (see the parent module).

#[cfg(doc)]
use super::IterativeMethod;
#[cfg(doc)]
use crate::Status;
use std::time::Duration;

/// The outlook of a slowly converging method: from the errors it measured so far, whether it
/// can still reach its tolerance within its limits (the iteration limit and the time limit).
///
/// The rate is the one of the recent half of the run: the smallest error of the iterations
/// `(k/2, k]` against the smallest of `(k/4, k/2]`, taken `k/2` iterations apart (where the minima of a decreasing error lie).
/// Extrapolated geometrically, it gives the iterations still needed to reach `tol`. A method
/// that converges sublinearly (error ~ 1/k, as Gauss–Seidel on a pile with redundant
/// contacts) slows down further, so the extrapolation is optimistic and the method is given
/// up only when even the optimistic count exceeds what is left. A method stops early by
/// this rule with [`Status::Stalled`], instead of running its last thousands of iterations
/// for nothing (and a time-stepping fallback gets the rest of the step's budget). The loop
/// applies it to a method that lends it one ([`IterativeMethod::outlook`]).
///
/// ```
/// use perp_core::iteration::Outlook;
/// let mut o = Outlook::default();
/// // An error that halves every 100 iterations from 1: at k = 400 the rate is known; 1e-6
/// // needs 2 000 iterations in all.
/// for k in (10..=400).step_by(10) {
///     o.push(k, 0.5f64.powf(k as f64 / 100.0));
/// }
/// let more = o.needed(1e-6).unwrap();
/// assert!((more - 1593.0).abs() < 20.0, "{more}");
/// assert!(!o.hopeless(1e-6, 10_000, None));
/// assert!(o.hopeless(1e-6, 1_500, None));
/// assert!(!o.hopeless(1e-6, 5_000, None), "a quarter of the limit is not spent yet");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Outlook {
    /// (last iteration, smallest error) of consecutive buckets of `stride` measurements each,
    /// at most [`Outlook::KEPT`]: when full, neighbours merge and the stride doubles, so that
    /// memory and the cost of a forecast stay bounded however long the run (a forecast's
    /// windows are a quarter of the run, far wider than a bucket).
    seen: Vec<(usize, f64)>,
    /// Measurements per bucket of `seen` (0 before the first `clear`, taken as 1).
    stride: usize,
    /// The bucket being filled: (last iteration, smallest error, measurements).
    open: (usize, f64, usize),
    /// Time since the start at the last measurement.
    elapsed: Duration,
}

impl Outlook {
    /// Iterations below which no forecast is made.
    pub const MIN_ITERATIONS: usize = 200;

    /// How many buckets are kept (see the field `seen`).
    pub const KEPT: usize = 512;

    /// Forgets every measurement (keeps the storage; the first call allocates it, once).
    pub fn clear(&mut self) {
        self.seen.clear();
        self.seen.reserve(Self::KEPT);
        self.stride = 1;
        self.open = (0, f64::INFINITY, 0);
        self.elapsed = Duration::ZERO;
    }

    /// Records the error measured after iteration `k` (increasing `k`).
    pub fn push(&mut self, k: usize, error: f64) {
        let (_, e, n) = self.open;
        self.open = (k, if n == 0 { error } else { e.min(error) }, n + 1);
        if self.open.2 < self.stride.max(1) {
            return;
        }
        if self.seen.len() == Self::KEPT {
            for i in 0..Self::KEPT / 2 {
                let (a, b) = (self.seen[2 * i], self.seen[2 * i + 1]);
                self.seen[i] = (b.0, a.1.min(b.1));
            }
            self.seen.truncate(Self::KEPT / 2);
            self.stride = self.stride.max(1) * 2;
        }
        self.seen.push((self.open.0, self.open.1));
        self.open = (0, f64::INFINITY, 0);
    }

    /// The buckets, the one being filled included.
    fn entries(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        let open = (self.open.2 > 0).then_some((self.open.0, self.open.1));
        self.seen.iter().copied().chain(open)
    }

    /// Records the time since the start at the last measurement, for the time forecast.
    pub fn set_elapsed(&mut self, elapsed: Duration) {
        self.elapsed = elapsed;
    }

    /// The iterations still needed to reach `tol` at the recent rate (∞ when the error did
    /// not decrease over the recent half); `None` before [`Outlook::MIN_ITERATIONS`], while
    /// a window is empty, or when the error is already within `tol` or not finite.
    pub fn needed(&self, tol: f64) -> Option<f64> {
        let (k, _) = self.entries().last()?;
        if k < Self::MIN_ITERATIONS {
            return None;
        }
        let min_in = |lo: usize, hi: usize| {
            self.entries().filter(|(j, _)| *j > lo && *j <= hi).map(|e| e.1).fold(f64::INFINITY, f64::min)
        };
        let (recent, older) = (min_in(k / 2, k), min_in(k / 4, k / 2));
        if !(recent.is_finite() && older.is_finite()) || recent <= tol {
            return None;
        }
        if recent >= older {
            return Some(f64::INFINITY);
        }
        let per_iteration = (recent / older).ln() / (k - k / 2) as f64;
        Some((tol / recent).ln() / per_iteration)
    }

    /// `true` when, at the recent rate, `tol` cannot be reached within `max_iter` iterations
    /// in all, or within `time_limit` (at the time per iteration so far). No verdict before
    /// a quarter of the limit is spent, nor before [`Outlook::MIN_ITERATIONS`]: an error can
    /// creep up for hundreds of iterations and then collapse (NSGS on a generated problem of
    /// 10 000 contacts: from 8.6e-6 at sweep 310 up to 1.36e-5 at sweep 860, then solved at
    /// sweep 895, when a contact changed status), which no rate foresees; with a tenth, a
    /// 10 s limit gave that solve up at sweep 850.
    pub fn hopeless(&self, tol: f64, max_iter: usize, time_limit: Option<Duration>) -> bool {
        let (Some(more), Some((k, _))) = (self.needed(tol), self.entries().last()) else {
            return false;
        };
        if k >= max_iter / 4 && k as f64 + more > max_iter as f64 {
            return true;
        }
        time_limit.is_some_and(|t| {
            let (spent, limit) = (self.elapsed.as_secs_f64(), t.as_secs_f64());
            spent >= limit / 4.0 && spent + more * spent / k as f64 > limit
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outlook_stays_bounded_and_keeps_its_verdicts_on_long_runs() {
        // An error halving every 100 iterations, measured every iteration for a million
        // iterations: the storage stays at KEPT entries, and the forecast is that of the
        // exact rate (1e-300 is far below what the run reaches).
        let mut o = Outlook::default();
        o.clear();
        let cap = o.seen.capacity();
        for k in 1..=1_000_000 {
            o.push(k, 0.5f64.powf(k as f64 / 100.0).max(1e-290));
            assert!(o.seen.len() <= Outlook::KEPT);
        }
        assert_eq!(o.seen.capacity(), cap, "no growth");
        // The floor 1e-290 was reached long ago: no progress over the last half.
        assert_eq!(o.needed(1e-300), Some(f64::INFINITY));
        let mut o = Outlook::default();
        o.clear();
        for k in 1..=100_000 {
            o.push(k, 0.5f64.powf(k as f64 / 10_000.0));
        }
        // 1e-6 is at k ≈ 199 316: about 99 316 more, within an entry's width of the truth.
        let more = o.needed(1e-6).unwrap();
        assert!((more - 99_316.0).abs() < 1_000.0, "{more}");
        assert!(!o.hopeless(1e-6, 300_000, None) && o.hopeless(1e-6, 150_000, None));
    }
}
