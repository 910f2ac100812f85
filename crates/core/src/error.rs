//! The error type shared by the perp crates.

use std::path::PathBuf;

/// Why a problem cannot be solved as given.
///
/// Every variant names the offending object and value so that a one-line message is enough to
/// find the fault. A solve that merely fails to converge is *not* an error (see
/// [`crate::Status`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Two sizes that must agree do not.
    #[error("dimension mismatch: {what} has length {found}, expected {expected}")]
    DimensionMismatch {
        /// What was measured (e.g. `"q"`, `"warm start"`).
        what: String,
        /// The length required.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A matrix that must be square is not.
    #[error("{what} must be square, got {rows}x{cols}")]
    NotSquare {
        /// Which matrix.
        what: String,
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
    },
    /// A NaN or infinite value where a finite number is required.
    #[error("{what}[{index}] = {value} is not finite")]
    NonFinite {
        /// Which object.
        what: String,
        /// Position (row-major flat index for matrices).
        index: usize,
        /// The value found.
        value: f64,
    },
    /// Box bounds with lower > upper, or a bound that excludes every real value.
    #[error(
        "bounds at index {index}: lower {lower} > upper {upper} (or an infinite bound on the wrong side)"
    )]
    InvalidBounds {
        /// Variable index.
        index: usize,
        /// Its lower bound.
        lower: f64,
        /// Its upper bound.
        upper: f64,
    },
    /// A setting or solver parameter out of its valid range.
    #[error("invalid setting {name} = {value}: {reason}")]
    InvalidSetting {
        /// The setting's name.
        name: String,
        /// Its value, as text.
        value: String,
        /// The valid range.
        reason: String,
    },
    /// A solver was asked for by a name no solver has.
    #[error("unknown solver '{name}'; valid names: {}", valid.join(", "))]
    UnknownSolver {
        /// The name asked for.
        name: String,
        /// The names that exist.
        valid: Vec<String>,
    },
    /// A solver was asked for by a name that exists, but for problems of another kind
    /// (`nsgs` for an LCP).
    #[error("{name} is {is} solver; for {wanted} use one of {}", valid.join(", "))]
    WrongFamily {
        /// The name asked for.
        name: String,
        /// What the name's solvers are for, with its article (`a frictional-contact`).
        is: String,
        /// The kind of problem asked for, with its article (`an LCP`).
        wanted: String,
        /// The names of that kind's solvers.
        valid: Vec<String>,
    },
    /// The problem lacks a property the chosen method needs (symmetry, positive diagonal …).
    #[error("solver '{solver}' requires {requirement}{}", suggestion.as_ref().map(|s| format!("; {s}")).unwrap_or_default())]
    Requirement {
        /// The solver.
        solver: String,
        /// What it requires, with the value that violates it.
        requirement: String,
        /// What to do instead.
        suggestion: Option<String>,
    },
    /// A file could not be read.
    #[error("{}: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The operating-system error.
        source: std::io::Error,
    },
    /// A file could be read but its content is not what its format requires.
    #[error("{}: token {position} ({field}): {message}", file.display())]
    Parse {
        /// The file.
        file: PathBuf,
        /// 1-based position of the offending token in the whitespace-separated token stream
        /// (one past the last token when the file ends early).
        position: usize,
        /// The field being read (e.g. `"n"`, `"M[3,4]"`).
        field: String,
        /// What is wrong, with the value found.
        message: String,
    },
    /// A numerical breakdown with no iterate to return.
    #[error("numerical breakdown in {solver}: {message}")]
    Numerical {
        /// The solver.
        solver: String,
        /// What broke.
        message: String,
    },
}

impl Error {
    /// Shorthand for [`Error::DimensionMismatch`].
    pub fn dim(what: impl Into<String>, expected: usize, found: usize) -> Self {
        Error::DimensionMismatch { what: what.into(), expected, found }
    }

    /// Shorthand for [`Error::InvalidSetting`].
    pub fn setting(name: &str, value: impl ToString, reason: &str) -> Self {
        Error::InvalidSetting { name: name.to_string(), value: value.to_string(), reason: reason.to_string() }
    }

    /// `Ok` when `ok`, else [`Error::setting`] of `name`, `value` and `reason` (the value is
    /// formatted only then: a solver validates its options on every solve without allocating).
    pub fn require(ok: bool, name: &str, value: impl ToString, reason: &str) -> Result<(), Error> {
        if ok {
            Ok(())
        } else {
            Err(Error::setting(name, value, reason))
        }
    }

    /// Checks that every entry of `v` is finite.
    pub fn check_finite(what: &str, v: &[f64]) -> Result<(), Error> {
        match v.iter().position(|x| !x.is_finite()) {
            Some(index) => Err(Error::NonFinite { what: what.to_string(), index, value: v[index] }),
            None => Ok(()),
        }
    }

    /// Checks box bounds: `lower[i] ≤ upper[i]`, no NaN, `lower[i] < +∞`, `upper[i] > −∞`
    /// (lengths are the caller's to check).
    pub fn check_bounds(lower: &[f64], upper: &[f64]) -> Result<(), Error> {
        for (index, (&l, &u)) in lower.iter().zip(upper).enumerate() {
            if l.is_nan() || u.is_nan() || l > u || l == f64::INFINITY || u == f64::NEG_INFINITY {
                return Err(Error::InvalidBounds { index, lower: l, upper: u });
            }
        }
        Ok(())
    }

    /// [`Error::UnknownSolver`] for `name`, listing `valid`.
    pub fn unknown_solver(name: &str, valid: &[&str]) -> Self {
        Error::UnknownSolver { name: name.to_string(), valid: valid.iter().map(|s| s.to_string()).collect() }
    }

    /// Checks that `v` has length `n`.
    pub fn check_len(what: &str, v: &[f64], n: usize) -> Result<(), Error> {
        if v.len() == n {
            Ok(())
        } else {
            Err(Error::dim(what, n, v.len()))
        }
    }
}
