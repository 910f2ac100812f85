//! The subcommands of `perp`, one module each.

/// `println!` that returns the write error (a closed pipe, a full disk) as an [`Error::Io`]
/// on `<stdout>` instead of panicking; `main` exits quietly on a closed pipe.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*).map_err($crate::cmd::stdout_error)
    }};
}

pub mod bench;
pub mod convert;
pub mod list;
pub mod simulate;
pub mod solve;

use perp::catalogue::{Problem, ProblemKind};
use perp::core::{Error, Settings};
use std::path::Path;

/// The problem `input` names: a problem file, or, when no such file exists and the name has
/// no extension, a built-in problem of `perp list` (`fc3d-contact-200`, `spd-500`, …), so that
/// the generated problems can be solved and written out like files.
pub fn read_problem(input: &Path, kind: Option<ProblemKind>) -> Result<Problem, Error> {
    if !input.exists() {
        let name = input.to_string_lossy();
        if let Some(p) = perp::suite::builtin::builtin_problem(&name) {
            return Ok(p.problem);
        }
        if input.extension().is_none() {
            return Err(Error::setting(
                "input",
                &name,
                "neither a file nor a built-in problem (`perp list` names them; a file needs its \
                 extension: .dat, .hdf5/.h5, .mtx, .json)",
            ));
        }
    }
    // An unknown extension is named before the file is looked for.
    perp::formats::convert::Format::from_path(input, "input file")?;
    perp::formats::convert::read_with_kind(input, kind)
}

/// A failed write to standard output, as an error naming `<stdout>`.
pub fn stdout_error(source: std::io::Error) -> Error {
    Error::Io { file: "<stdout>".into(), source }
}

/// Whether `e` is a write to a closed standard output (`perp list | head -1`): not a failure
/// of perp's, so `main` exits quietly.
pub fn is_closed_stdout(e: &Error) -> bool {
    matches!(e, Error::Io { file, source } if file.as_os_str() == "<stdout>" && source.kind() == std::io::ErrorKind::BrokenPipe)
}

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

/// `--threads`: the solver's worker threads, all cores when not given, 0 an error.
pub fn threads(given: Option<usize>) -> Result<usize, Error> {
    match given {
        None => Ok(perp::core::parallel::available_threads()),
        Some(0) => Err(Error::setting("--threads", 0, "must be at least 1")),
        Some(n) => Ok(n),
    }
}

/// The solver settings from the shared options.
pub fn settings(common: &Common, max_iter: usize) -> Result<Settings, Error> {
    let time_limit = match common.time_limit {
        None => None,
        // Beyond what a `Duration` holds (1e300): no limit.
        Some(t) if t.is_finite() && t > 0.0 => Settings::limit_from_secs("--time-limit", t)?,
        Some(t) => return Err(Error::setting("--time-limit", t, "must be a positive number of seconds")),
    };
    let s = Settings { tol: common.tol, max_iter, time_limit, ..Settings::default() };
    s.validate()?;
    Ok(s)
}
