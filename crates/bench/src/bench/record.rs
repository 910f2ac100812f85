//! [`BenchRecord`]: one solver on one problem, and its CSV form (`results.csv`).

use perp_core::{Error, Status};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

/// The status of a run whose solver cannot take the problem ([`BenchRecord::not_applicable`]).
pub const NOT_APPLICABLE: &str = "not_applicable";

/// `serde` for f64 fields that may be NaN or infinite: those are written as `null` (JSON has
/// no NaN) and read back as NaN.
pub(super) mod nan_as_null {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        if x.is_finite() {
            s.serialize_f64(*x)
        } else {
            s.serialize_none()
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

/// One solver on one problem.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchRecord {
    /// Problem name.
    pub problem: String,
    /// Problem class.
    pub kind: String,
    /// Dimension.
    pub n: usize,
    /// Solver registry name.
    pub solver: String,
    /// How the solve ended: a [`Status`] name (`solved`, `time_limit`, `numerical_failure`, …),
    /// or `error` when the solver returned `Err` (it refused the problem).
    pub status: String,
    /// Iterations (pivots for pivoting methods).
    pub iterations: usize,
    /// `report.error` (NaN when there is no report: `error`, a panic, a missed deadline).
    #[serde(with = "nan_as_null")]
    pub error: f64,
    /// Seconds spent in `solve` (median over the repeats).
    #[serde(with = "nan_as_null")]
    pub seconds: f64,
    /// Seconds of one dense LU of the problem's matrix in the same run (NaN: not measured).
    #[serde(with = "nan_as_null")]
    pub reference_seconds: f64,
    /// Why the run failed, when it did: the `Err` text, the panic message, the missed deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl BenchRecord {
    /// Whether the solver reported `Solved`.
    pub fn solved(&self) -> bool {
        self.status == Status::Solved.as_str()
    }

    /// Whether the solver cannot take this problem (its status is [`NOT_APPLICABLE`]: the
    /// solver refused it by a requirement, e.g. schur-lemke on a nonlinear NCP). Such a run is
    /// neither solved nor failed: the profiles, solve counts and curves leave it out.
    pub fn not_applicable(&self) -> bool {
        self.status == NOT_APPLICABLE
    }

    /// Whether two records are the same run with the same outcome: everything equal except
    /// the times (`error` bit for bit, or both not finite).
    pub fn same_outcome(&self, other: &BenchRecord) -> bool {
        let same_error = if self.error.is_finite() || other.error.is_finite() {
            self.error.to_bits() == other.error.to_bits()
        } else {
            true
        };
        (&self.problem, &self.kind, self.n, &self.solver, &self.status, self.iterations, &self.message)
            == (
                &other.problem,
                &other.kind,
                other.n,
                &other.solver,
                &other.status,
                other.iterations,
                &other.message,
            )
            && same_error
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The header of `results.csv`.
pub const CSV_HEADER: &str = "problem,kind,n,solver,status,iterations,error,seconds";

/// `results.csv`: `problem,kind,n,solver,status,iterations,error,seconds` (ARCHITECTURE.md);
/// numbers in Rust's shortest round-trip form, `NaN` when absent.
pub fn results_csv(records: &[BenchRecord]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for r in records {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{:e},{:e}",
            csv_field(&r.problem),
            csv_field(&r.kind),
            r.n,
            csv_field(&r.solver),
            csv_field(&r.status),
            r.iterations,
            r.error,
            r.seconds
        );
    }
    out
}

/// Splits one CSV line into fields (RFC 4180 quotes); `None` on an unterminated quote.
pub(super) fn split_csv_line(line: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if cur.is_empty() => quoted = true,
            (false, ',') => fields.push(std::mem::take(&mut cur)),
            (_, c) => cur.push(c),
        }
    }
    if quoted {
        return None;
    }
    fields.push(cur);
    Some(fields)
}

/// Reads the records of a `results.csv` written by [`results_csv`] (`file` names it in
/// errors). Reference times and messages are not in the CSV: they come back NaN and `None`.
pub fn parse_results_csv(text: &str, file: &Path) -> Result<Vec<BenchRecord>, Error> {
    let parse_err = |line: usize, field: &str, message: String| Error::Parse {
        file: file.to_path_buf(),
        position: line,
        field: field.to_string(),
        message,
    };
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.trim_end() == CSV_HEADER => {}
        other => {
            return Err(parse_err(
                1,
                "header",
                format!("expected '{CSV_HEADER}', found '{}'", other.map_or("", |(_, h)| h)),
            ))
        }
    }
    let mut records = Vec::new();
    for (i, line) in lines {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let f = split_csv_line(line)
            .ok_or_else(|| parse_err(line_no, "line", format!("unterminated quote in line {line_no}")))?;
        if f.len() != 8 {
            return Err(parse_err(
                line_no,
                "line",
                format!("line {line_no} has {} fields, expected 8", f.len()),
            ));
        }
        let num = |k: usize, name: &str| -> Result<f64, Error> {
            f[k].parse::<f64>()
                .map_err(|_| parse_err(line_no, name, format!("line {line_no}: '{}' is not a number", f[k])))
        };
        let int = |k: usize, name: &str| -> Result<usize, Error> {
            f[k].parse::<usize>().map_err(|_| {
                parse_err(line_no, name, format!("line {line_no}: '{}' is not a non-negative integer", f[k]))
            })
        };
        records.push(BenchRecord {
            problem: f[0].clone(),
            kind: f[1].clone(),
            n: int(2, "n")?,
            solver: f[3].clone(),
            status: f[4].clone(),
            iterations: int(5, "iterations")?,
            error: num(6, "error")?,
            seconds: num(7, "seconds")?,
            reference_seconds: f64::NAN,
            message: None,
        });
    }
    Ok(records)
}

/// The median of `v` (the mean of the middle two for an even count); `None` when empty.
pub(super) fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let k = v.len();
    Some(if k % 2 == 1 { v[k / 2] } else { 0.5 * (v[k / 2 - 1] + v[k / 2]) })
}
