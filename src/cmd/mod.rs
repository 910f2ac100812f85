//! The subcommands of `perp`, one module each.

pub mod bench;
pub mod convert;
pub mod list;
pub mod simulate;
pub mod solve;

use perp::core::{Error, Settings};
use std::time::Duration;

/// Options shared by the solving commands.
#[derive(clap::Args, Clone)]
pub struct Common {
    /// Tolerance on the peer-compatible error measure.
    #[arg(long, default_value_t = 1e-8)]
    pub tol: f64,
    /// Wall-clock limit per solve, in seconds.
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
}

/// The solver settings from the shared options.
pub fn settings(common: &Common, max_iter: usize) -> Result<Settings, Error> {
    let time_limit = match common.time_limit {
        None => None,
        Some(t) if t.is_finite() && t > 0.0 => Some(Duration::from_secs_f64(t)),
        Some(t) => return Err(Error::setting("--time-limit", t, "must be a positive number of seconds")),
    };
    let s = Settings { tol: common.tol, max_iter, time_limit, ..Settings::default() };
    s.validate()?;
    Ok(s)
}
