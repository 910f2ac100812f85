//! The MatrixMarket writer: matrices (dense as `array`, sparse as `coordinate`), vectors and
//! flags in the shortest round-tripping decimal form, and a problem's set of files.

use super::*;

/// The MatrixMarket text of a matrix: `coordinate real general` (entries in row order,
/// explicit zeros kept) for a sparse matrix, `array real general` (column-major) for a dense
/// one; each of `comments` becomes a `%` line after the banner.
///
/// ```
/// use perp_core::Matrix;
/// let m = Matrix::from_triplets(2, 2, &[(1, 0, 0.1)]).unwrap();
/// let text = perp_formats::mtx::format_matrix(&m, &["M of a test"]);
/// assert_eq!(text, "%%MatrixMarket matrix coordinate real general\n% M of a test\n2 2 1\n2 1 0.1\n");
/// ```
pub fn format_matrix(m: &Matrix, comments: &[&str]) -> String {
    let mut s = String::new();
    match m {
        Matrix::Dense(d) => {
            s.push_str("%%MatrixMarket matrix array real general\n");
            push_comments(&mut s, comments);
            let _ = writeln!(s, "{} {}", d.nrows(), d.ncols());
            for j in 0..d.ncols() {
                for &v in d.col_as_slice(j) {
                    let _ = writeln!(s, "{v:?}");
                }
            }
        }
        Matrix::Sparse(sp) => {
            let csr = sp.to_csr();
            s.push_str("%%MatrixMarket matrix coordinate real general\n");
            push_comments(&mut s, comments);
            let _ = writeln!(s, "{} {} {}", csr.rows(), csr.cols(), csr.nnz());
            for (i, row) in csr.outer_iterator().enumerate() {
                for (j, &v) in row.iter() {
                    let _ = writeln!(s, "{} {} {v:?}", i + 1, j + 1);
                }
            }
        }
    }
    s
}

pub(super) fn push_comments(s: &mut String, comments: &[&str]) {
    for c in comments {
        if c.starts_with('%') {
            let _ = writeln!(s, "{c}");
        } else {
            let _ = writeln!(s, "% {c}");
        }
    }
}

/// The MatrixMarket text of a column vector (`array real general`, n × 1).
///
/// ```
/// let text = perp_formats::mtx::format_vector(&[1.0, -0.5], &[]);
/// assert_eq!(text, "%%MatrixMarket matrix array real general\n2 1\n1.0\n-0.5\n");
/// ```
pub fn format_vector(v: &[f64], comments: &[&str]) -> String {
    let mut s = String::from("%%MatrixMarket matrix array real general\n");
    push_comments(&mut s, comments);
    let _ = writeln!(s, "{} 1", v.len());
    for x in v {
        let _ = writeln!(s, "{x:?}");
    }
    s
}

pub(super) fn format_flags(v: &[bool], comments: &[&str]) -> String {
    let mut s = String::from("%%MatrixMarket matrix array integer general\n");
    push_comments(&mut s, comments);
    let _ = writeln!(s, "{} 1", v.len());
    for &x in v {
        s.push_str(if x { "1\n" } else { "0\n" });
    }
    s
}

/// The files of `p` as MatrixMarket texts, `(path, text)` pairs, the matrix file `path` first
/// (see the [module docs](self)). Errors: a box-constrained LCP or a friction law other than
/// Coulomb, which this format cannot hold.
pub fn format_problem(p: &Problem, path: &Path) -> Result<Vec<(PathBuf, String)>, Error> {
    let name = |suffix: &str| {
        companion(path, suffix).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
    };
    let kind = p.kind_name();
    let tag = format!("{KIND_TAG}{kind}");
    let mut files = Vec::new();
    match p {
        Problem::Ncp(_) | Problem::GlobalFriction(_) => return Err(p.cannot_be_written_as("MatrixMarket")),
        Problem::Lcp(l) => {
            if l.is_box() {
                return Err(Error::setting(
                    "output file",
                    path.display(),
                    "MatrixMarket files cannot hold the bounds of a box-constrained LCP (write .json)",
                ));
            }
            let about = format!("LCP 0 <= z _|_ M z + q >= 0, n = {}; q in {}", l.n(), name("q"));
            files.push((path.to_path_buf(), format_matrix(l.m(), &[&tag, &about])));
            files.push((companion(path, "q"), format_vector(l.q(), &["q of the LCP"])));
        }
        Problem::Mlcp(m) => {
            let about = format!(
                "MLCP w = M z + q, n = {} ({} equality rows); q in {}, row kinds in {}",
                m.n(),
                m.n_free(),
                name("q"),
                name("free")
            );
            files.push((path.to_path_buf(), format_matrix(m.m(), &[&tag, &about])));
            files.push((companion(path, "q"), format_vector(m.q(), &["q of the MLCP"])));
            files.push((
                companion(path, "free"),
                format_flags(
                    m.free(),
                    &["row kinds of the MLCP: 1 = equality (free variable), 0 = complementarity"],
                ),
            ));
        }
        Problem::Friction(f) => {
            if !f.is_coulomb() {
                return Err(Error::setting(
                    "output file",
                    path.display(),
                    "only Coulomb friction can be written: this problem has other friction laws",
                ));
            }
            let about = format!(
                "frictional contact u = W r + q, {} contacts of dimension {}, n = {}; q in {}, mu in {}",
                f.contacts(),
                f.dim,
                f.size(),
                name("q"),
                name("mu")
            );
            files.push((path.to_path_buf(), format_matrix(&f.w, &[&tag, &about])));
            files.push((companion(path, "q"), format_vector(&f.q, &["q of the frictional contact problem"])));
            files.push((
                companion(path, "mu"),
                format_vector(&f.mu, &["friction coefficient of each contact"]),
            ));
        }
    }
    Ok(files)
}

/// Writes `p` as MatrixMarket files (see the [module docs](self)); returns the files written,
/// the matrix file `path` first.
pub fn write_problem(p: &Problem, path: &Path) -> Result<Vec<PathBuf>, Error> {
    let files = format_problem(p, path)?;
    let mut written = Vec::with_capacity(files.len());
    for (file, text) in files {
        std::fs::write(&file, text).map_err(|source| Error::Io { file: file.clone(), source })?;
        written.push(file);
    }
    Ok(written)
}
