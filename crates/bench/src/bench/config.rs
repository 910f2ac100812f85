//! [`BenchConfig`]: how the runner runs (settings, repeats, threads, deadlines).

use perp_core::{Error, Settings};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// How the runner runs.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// Solver settings (tolerance, time limit per solve, …), the same for every run.
    pub settings: Settings,
    /// Solves per (problem, solver); the recorded time is their median. At least 1.
    pub repeat: usize,
    /// Problems solved at the same time (rayon pool size). At least 1; 1 keeps timings clean.
    pub threads: usize,
    /// Added to twice the time limit to give the hard deadline (default 1 s).
    pub grace: Duration,
    /// Set from outside (Ctrl-C) to stop the run: no new solve starts, the solves under way
    /// are abandoned within ~0.1 s and left out of the records, and the runner returns what
    /// finished. (No observer is installed for this: calling one after every iteration would
    /// cost the timed solves a clock read each.)
    pub cancel: Option<Arc<AtomicBool>>,
    /// Log every iteration of every solve to stderr (`PROBLEM SOLVER iteration K error E`),
    /// through an observer added to the settings of each solve, and a last line per run
    /// (`PROBLEM SOLVER end STATUS iterations K error E`) (`perp bench --verbose`). The log
    /// costs the timed solves a line of output per iteration: use it to watch, not to time.
    pub log_iterations: bool,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            settings: Settings::default(),
            repeat: 1,
            threads: 1,
            grace: Duration::from_secs(1),
            cancel: None,
            log_iterations: false,
        }
    }
}

impl BenchConfig {
    /// How long the runner waits for one solve: `2 × time_limit + grace`; `None` (wait for
    /// ever) without a time limit.
    pub fn hard_deadline(&self) -> Option<Duration> {
        self.settings.time_limit.map(|t| t.saturating_mul(2).saturating_add(self.grace))
    }

    /// Whether the run was asked to stop.
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst))
    }

    pub(super) fn validate(&self) -> Result<(), Error> {
        self.settings.validate()?;
        if self.repeat == 0 {
            return Err(Error::setting("repeat", 0, "must be at least 1"));
        }
        if self.threads == 0 {
            return Err(Error::setting("threads", 0, "must be at least 1"));
        }
        Ok(())
    }
}
