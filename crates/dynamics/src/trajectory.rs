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
    pub fn write_csv(&self, path: &Path) -> Result<(), Error> {
        let io = |e| Error::Io { file: path.to_path_buf(), source: e };
        let mut f = std::fs::File::create(path).map_err(io)?;
        f.write_all(self.to_csv().as_bytes()).map_err(io)
    }
}
