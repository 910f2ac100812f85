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

impl Trajectory {
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
