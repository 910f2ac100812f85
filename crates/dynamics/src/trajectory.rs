//! Recorded trajectories: named columns, one row per recorded step; CSV and `ndarray` out.

use perp_core::Error;
use std::io::Write;
use std::path::Path;

/// A time history: `columns` names, `rows` of equal length.
#[derive(Clone, Debug, Default)]
pub struct Trajectory {
    /// Column names (`t` first).
    pub columns: Vec<String>,
    /// Rows, one per recorded step.
    pub rows: Vec<Vec<f64>>,
}

/// The columns a `--columns` list keeps, as indices into a simulator's `columns` (`t`, then
/// `nq` positions, `nu` velocities, the impulses, `iterations`, `factorizations`; see
/// [`crate::Simulator::columns`]), `t` always first. Each item of `spec` is a group —
/// `positions` (or `q`), `velocities` (`u`), `impulses`, `iterations`, `factorizations` — or a column's name
/// (`b0_z`); each column is kept once, in the simulator's order. An unknown item is an error
/// naming it.
///
/// ```
/// use perp_dynamics::trajectory::select_columns;
/// let c: Vec<String> =
///     ["t", "x", "v", "P0_n", "iterations", "factorizations"].iter().map(|s| s.to_string()).collect();
/// assert_eq!(select_columns(&c, 1, 1, &["positions"]).unwrap(), [0, 1]);
/// assert_eq!(select_columns(&c, 1, 1, &["iterations", "v"]).unwrap(), [0, 2, 4]);
/// assert_eq!(select_columns(&c, 1, 1, &["impulses", "factorizations"]).unwrap(), [0, 3, 5]);
/// assert!(select_columns(&c, 1, 1, &["speed"]).unwrap_err().to_string().contains("speed"));
/// ```
pub fn select_columns(columns: &[String], nq: usize, nu: usize, spec: &[&str]) -> Result<Vec<usize>, Error> {
    let n = columns.len();
    if n < 3 + nq + nu {
        return Err(Error::dim("trajectory columns", 3 + nq + nu, n));
    }
    let mut keep = vec![false; n];
    keep[0] = true;
    for item in spec {
        let range = match *item {
            "t" => 0..1,
            "positions" | "q" => 1..1 + nq,
            "velocities" | "u" => 1 + nq..1 + nq + nu,
            "impulses" => 1 + nq + nu..n - 2,
            "iterations" => n - 2..n - 1,
            "factorizations" => n - 1..n,
            name => match columns.iter().position(|c| c == name) {
                Some(k) => k..k + 1,
                None => {
                    return Err(Error::setting(
                        "--columns",
                        name,
                        "neither a group (positions, velocities, impulses, iterations, factorizations) nor a column of this scene",
                    ))
                }
            },
        };
        keep[range].iter_mut().for_each(|k| *k = true);
    }
    Ok((0..n).filter(|&k| keep[k]).collect())
}

impl Trajectory {
    /// The trajectory with only the columns `keep` (indices, e.g. from [`select_columns`]).
    pub fn select(&self, keep: &[usize]) -> Trajectory {
        Trajectory {
            columns: keep.iter().map(|&k| self.columns[k].clone()).collect(),
            rows: self.rows.iter().map(|r| keep.iter().map(|&k| r[k]).collect()).collect(),
        }
    }

    /// An empty trajectory with these columns.
    pub fn new(columns: Vec<String>) -> Trajectory {
        Trajectory { columns, rows: Vec::new() }
    }

    /// Appends a row (panics if its length differs from the columns': a programming error).
    pub fn push(&mut self, row: Vec<f64>) {
        assert_eq!(row.len(), self.columns.len(), "trajectory row length");
        self.rows.push(row);
    }

    /// Index of a column.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// A column's values (`None` when there is no such column).
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let k = self.column_index(name)?;
        Some(self.rows.iter().map(|r| r[k]).collect())
    }

    /// The trajectory as an `ndarray::Array2<f64>` (time × columns).
    pub fn to_array2(&self) -> ndarray::Array2<f64> {
        let (r, c) = (self.rows.len(), self.columns.len());
        ndarray::Array2::from_shape_fn((r, c), |(i, j)| self.rows[i][j])
    }

    /// CSV text: a header line, then one line per row (shortest round-trip formatting).
    pub fn to_csv(&self) -> String {
        let mut s = self.columns.join(",");
        s.push('\n');
        for r in &self.rows {
            let line: Vec<String> = r.iter().map(|x| format!("{x:?}")).collect();
            s.push_str(&line.join(","));
            s.push('\n');
        }
        s
    }

    /// Writes [`Trajectory::to_csv`] to `path`.
    ///
    /// To write rows as they are made instead, see [`CsvWriter`].
    pub fn write_csv(&self, path: &Path) -> Result<(), Error> {
        let io = |e| Error::Io { file: path.to_path_buf(), source: e };
        let mut f = std::fs::File::create(path).map_err(io)?;
        f.write_all(self.to_csv().as_bytes()).map_err(io)
    }
}

/// A trajectory written to a CSV file row by row (as [`Trajectory::to_csv`] formats it), so
/// that a long run never holds its trajectory in memory.
pub struct CsvWriter {
    path: std::path::PathBuf,
    out: std::io::BufWriter<std::fs::File>,
    line: String,
}

impl CsvWriter {
    /// Creates `path` and writes the header.
    pub fn create(path: &Path, columns: &[String]) -> Result<CsvWriter, Error> {
        let io = |e| Error::Io { file: path.to_path_buf(), source: e };
        let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
        writeln!(out, "{}", columns.join(",")).map_err(io)?;
        Ok(CsvWriter { path: path.to_path_buf(), out, line: String::new() })
    }

    /// Appends one row.
    pub fn row(&mut self, row: &[f64]) -> Result<(), Error> {
        use std::fmt::Write as _;
        self.line.clear();
        for (i, x) in row.iter().enumerate() {
            if i > 0 {
                self.line.push(',');
            }
            let _ = write!(self.line, "{x:?}");
        }
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes()).map_err(|e| Error::Io { file: self.path.clone(), source: e })
    }

    /// Flushes the file (also done on drop, where an error is lost: call this to see it).
    pub fn finish(mut self) -> Result<(), Error> {
        self.out.flush().map_err(|e| Error::Io { file: self.path.clone(), source: e })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_csv_equals_the_held_one() {
        let mut t = Trajectory::new(vec!["t".into(), "x".into()]);
        t.push(vec![0.0, 1.0 / 3.0]);
        t.push(vec![0.1, -2e-300]);
        let path = std::env::temp_dir().join(format!("perp-csv-{}.csv", std::process::id()));
        let mut w = CsvWriter::create(&path, &t.columns).unwrap();
        for r in &t.rows {
            w.row(r).unwrap();
        }
        w.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), t.to_csv());
        std::fs::remove_file(&path).unwrap();
    }
}
