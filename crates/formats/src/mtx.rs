//! MatrixMarket (`.mtx`) problem files: one matrix file plus one file per vector.
//!
//! # The convention
//!
//! A problem written to `foo.mtx` is a set of MatrixMarket files next to each other:
//!
//! | file | content | MatrixMarket header |
//! |---|---|---|
//! | `foo.mtx` | M (LCP, MLCP) or W (frictional contact) | `matrix coordinate real general` when the matrix is stored sparse, `matrix array real general` (column-major) when it is dense |
//! | `foo_q.mtx` | q, n values | `matrix array real general`, n × 1 |
//! | `foo_mu.mtx` | μ, one per contact (frictional contact only) | `matrix array real general`, nc × 1 |
//! | `foo_free.mtx` | 1 for an equality row (free variable), 0 for a complementarity row (MLCP only) | `matrix array integer general`, n × 1 |
//!
//! The matrix file carries the comment line `%perp kind=lcp` (or `mlcp`, `fc2d`, `fc3d`)
//! right after the banner; the reader takes the kind from it and then requires the companion
//! files of that kind (stale companions of another kind are ignored). A file without that
//! comment — a MatrixMarket file written by another program — gets its kind from the companions
//! present: `foo_mu.mtx` → frictional contact (contact dimension n / nc), `foo_free.mtx` →
//! MLCP, neither → LCP. `foo_q.mtx` is always required.
//!
//! Values are written in the shortest decimal form that reads back to the same `f64`
//! (Rust's `{:?}`), so a round trip is exact; dense matrices stay dense and sparse ones keep
//! their pattern, explicit zeros included.
//!
//! # Reading (untrusted input)
//!
//! The reader accepts the `matrix` object in `coordinate` or `array` format, fields `real`,
//! `double` and `integer` (`pattern` and `complex` are refused), symmetries `general`,
//! `symmetric` and `skew-symmetric` (the stored entries must lie in the lower triangle, as the
//! MatrixMarket specification says; they are mirrored), and duplicate coordinate entries, which
//! are summed. Anything after the last entry is an error. Sizes are checked before anything is
//! allocated: an array needs all its values in the file, a coordinate block needs its `nnz`
//! entries, and the row and column counts of a coordinate block must equal the sizes the
//! problem expects (q, read first, fixes n with its values) or — for a matrix read alone —
//! may not exceed the number of tokens in the file. Errors are [`Error::Parse`] naming the
//! file, the field (`M[3,4]`, `q[7]`, `M size line`, …) and the value; token positions count
//! the tokens after the header (the banner and `%` comment lines are not counted), and the
//! line given in the message is the file's own. No input makes the reader panic.

use crate::tokens::{shorten, Tokens};
use crate::Problem;
use perp_cones::{FrictionContactProblem, MAX_DIM};
use perp_core::{Error, Matrix};
use perp_lcp::Lcp;
use perp_ncp::mlcp::Mlcp;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The comment line that names the problem kind in a matrix file written by perp.
const KIND_TAG: &str = "%perp kind=";

/// The file holding the vector `suffix` (`q`, `mu`, `free`) of the problem whose matrix is in
/// `path`: `foo.mtx` → `foo_q.mtx`.
///
/// ```
/// use std::path::Path;
/// let q = perp_formats::mtx::companion(Path::new("dir/foo.mtx"), "q");
/// assert_eq!(q, Path::new("dir/foo_q.mtx"));
/// ```
pub fn companion(path: &Path, suffix: &str) -> PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!("{stem}_{suffix}.mtx"))
}

/// MatrixMarket storage format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    Coordinate,
    Array,
}

/// MatrixMarket symmetry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Symmetry {
    General,
    Symmetric,
    Skew,
}

/// The banner of a MatrixMarket file and the `%perp kind=` tag, if any.
#[derive(Clone, Debug)]
struct Header {
    layout: Layout,
    symmetry: Symmetry,
    kind: Option<String>,
}

fn parse_error(file: &Path, position: usize, field: impl Into<String>, message: impl Into<String>) -> Error {
    Error::Parse { file: file.to_path_buf(), position, field: field.into(), message: message.into() }
}

/// Splits off the header (banner and comment lines): returns it and the text with those lines
/// blanked, so that the line numbers of the rest stay those of the file.
fn split_header(text: &str, file: &Path) -> Result<(Header, String), Error> {
    let mut lines = text.split('\n');
    let banner = lines.next().unwrap_or("").trim_end_matches('\r');
    let words: Vec<String> = banner.split_whitespace().map(|w| w.to_ascii_lowercase()).collect();
    let field = "MatrixMarket banner";
    if words.first().map(String::as_str) != Some("%%matrixmarket") {
        return Err(parse_error(
            file,
            1,
            field,
            format!(
                "expected a first line '%%MatrixMarket matrix coordinate real general', found '{}' (line 1)",
                shorten(banner)
            ),
        ));
    }
    if words.len() != 5 {
        return Err(parse_error(
            file,
            1,
            field,
            format!(
                "expected 5 words (%%MatrixMarket object format field symmetry), found {} (line 1)",
                words.len()
            ),
        ));
    }
    if words[1] != "matrix" {
        return Err(parse_error(
            file,
            2,
            field,
            format!("object '{}' is not supported: expected 'matrix' (line 1)", shorten(&words[1])),
        ));
    }
    let layout = match words[2].as_str() {
        "coordinate" => Layout::Coordinate,
        "array" => Layout::Array,
        other => {
            return Err(parse_error(
                file,
                3,
                field,
                format!(
                    "format '{}' is not supported: expected 'coordinate' or 'array' (line 1)",
                    shorten(other)
                ),
            ))
        }
    };
    if !matches!(words[3].as_str(), "real" | "double" | "integer") {
        return Err(parse_error(
            file,
            4,
            field,
            format!(
                "field '{}' is not supported: expected 'real', 'double' or 'integer' (line 1)",
                shorten(&words[3])
            ),
        ));
    }
    let symmetry = match words[4].as_str() {
        "general" => Symmetry::General,
        "symmetric" => Symmetry::Symmetric,
        "skew-symmetric" => Symmetry::Skew,
        other => {
            return Err(parse_error(
                file,
                5,
                field,
                format!(
                    "symmetry '{}' is not supported: expected 'general', 'symmetric' or 'skew-symmetric' (line 1)",
                    shorten(other)
                ),
            ))
        }
    };
    let mut kind = None;
    let mut body = String::with_capacity(text.len());
    body.push('\n');
    let mut in_header = true;
    for line in lines {
        if in_header && line.trim_start().starts_with('%') {
            let t = line.trim();
            if let Some(k) = t.strip_prefix(KIND_TAG) {
                kind = Some(k.trim().to_string());
            }
            body.push('\n');
            continue;
        }
        if !line.trim().is_empty() {
            in_header = false;
        }
        body.push_str(line);
        body.push('\n');
    }
    Ok((Header { layout, symmetry, kind }, body))
}

/// A parsed MatrixMarket block before it becomes a [`Matrix`] or a vector.
enum Block {
    /// Column-major values.
    Dense { rows: usize, cols: usize, data: Vec<f64> },
    /// Entries (duplicates not yet summed).
    Sparse { rows: usize, cols: usize, triplets: Vec<(usize, usize, f64)> },
}

/// Reads the size line and the values of a MatrixMarket file named `what` in errors.
fn parse_block(
    text: &str,
    file: &Path,
    what: &str,
    expect: Option<(usize, usize)>,
) -> Result<(Header, Block), Error> {
    let (header, body) = split_header(text, file)?;
    let mut ts = Tokens::new(&body, file);
    let rows = ts.read_usize(format_args!("{what} rows (size line)"))?;
    let cols = ts.read_usize(format_args!("{what} columns (size line)"))?;
    let size_field = format!("{what} size line");
    match expect {
        Some((er, ec)) if (rows, cols) != (er, ec) => {
            return Err(ts.error(&size_field, format!("{what} is {rows}x{cols}, expected {er}x{ec}")));
        }
        Some(_) => {}
        None => {
            // A matrix read alone: its sizes must be backed by the file (as for Siconos files;
            // an array with a zero size and a huge other one holds no value but would still
            // cost its size to build).
            for (name, v) in [("rows", rows), ("columns", cols)] {
                if v > ts.total() {
                    return Err(ts.error(
                        &size_field,
                        format!("{v} {name} exceed the {} tokens in the whole file", ts.total()),
                    ));
                }
            }
        }
    }
    if header.symmetry != Symmetry::General && rows != cols {
        return Err(ts.error(
            &size_field,
            format!("a symmetric or skew-symmetric matrix must be square, found {rows}x{cols}"),
        ));
    }
    let block = match header.layout {
        Layout::Array => read_array(&mut ts, what, rows, cols, header.symmetry)?,
        Layout::Coordinate => read_coordinate(&mut ts, what, rows, cols, header.symmetry)?,
    };
    if let Some(t) = ts.next_token() {
        return Err(ts.error(
            format_args!("{what} (end of data)"),
            format!("unexpected '{}' after the last entry", shorten(t)),
        ));
    }
    Ok((header, block))
}

/// Dense column-major values (only the lower triangle for symmetric storage, strictly lower
/// for skew-symmetric).
fn read_array(ts: &mut Tokens, what: &str, rows: usize, cols: usize, sym: Symmetry) -> Result<Block, Error> {
    let n = rows;
    let count = match sym {
        Symmetry::General => rows.checked_mul(cols),
        Symmetry::Symmetric => n.checked_mul(n.saturating_add(1)).map(|c| c / 2),
        Symmetry::Skew => n.checked_mul(n.saturating_sub(1)).map(|c| c / 2),
    }
    .ok_or_else(|| {
        ts.error(format_args!("{what} size line"), format!("{rows}x{cols} overflows the address space"))
    })?;
    ts.check_available(count, format_args!("{what} ({rows}x{cols} array)"))?;
    let total = rows.checked_mul(cols).ok_or_else(|| {
        ts.error(format_args!("{what} size line"), format!("{rows}x{cols} overflows the address space"))
    })?;
    // `count` values back `total` (at most twice as many, plus the diagonal of a skew matrix;
    // a skew-symmetric array of size 1 stores nothing and is 1 value).
    let mut data = vec![0.0; total];
    match sym {
        Symmetry::General => {
            for j in 0..cols {
                for i in 0..rows {
                    data[j * rows + i] = ts.read_f64(format_args!("{what}[{i},{j}]"))?;
                }
            }
        }
        Symmetry::Symmetric | Symmetry::Skew => {
            let skew = sym == Symmetry::Skew;
            for j in 0..n {
                for i in (if skew { j + 1 } else { j })..n {
                    let v = ts.read_f64(format_args!("{what}[{i},{j}]"))?;
                    data[j * n + i] = v;
                    data[i * n + j] = if skew { -v } else { v };
                }
            }
        }
    }
    Ok(Block::Dense { rows, cols, data })
}

/// `nnz` then `nnz` lines `i j value` (1-based).
fn read_coordinate(
    ts: &mut Tokens,
    what: &str,
    rows: usize,
    cols: usize,
    sym: Symmetry,
) -> Result<Block, Error> {
    let nnz = ts.read_usize(format_args!("{what} entries (size line)"))?;
    let need = nnz.checked_mul(3).ok_or_else(|| {
        ts.error(format_args!("{what} entries (size line)"), format!("nnz = {nnz} overflows"))
    })?;
    ts.check_available(need, format_args!("{what} entries (nnz = {nnz})"))?;
    let mirrored = if sym == Symmetry::General { 1 } else { 2 };
    let mut triplets = Vec::with_capacity(nnz * mirrored);
    for k in 0..nnz {
        let i = read_index(ts, format_args!("{what} entry {k} row"), rows, "rows")?;
        let j = read_index(ts, format_args!("{what} entry {k} column"), cols, "columns")?;
        let v = ts.read_f64(format_args!("{what}[{},{}]", i, j))?;
        match sym {
            Symmetry::General => triplets.push((i, j, v)),
            Symmetry::Symmetric | Symmetry::Skew => {
                let skew = sym == Symmetry::Skew;
                if i < j || (skew && i == j) {
                    let rule = if skew {
                        "strictly below the diagonal (row > column)"
                    } else {
                        "in the lower triangle (row ≥ column)"
                    };
                    return Err(ts.error(
                        format_args!("{what} entry {k}"),
                        format!(
                            "entry ({}, {}) of a {} matrix must be {rule}",
                            i + 1,
                            j + 1,
                            if skew { "skew-symmetric" } else { "symmetric" }
                        ),
                    ));
                }
                triplets.push((i, j, v));
                if i != j {
                    triplets.push((j, i, if skew { -v } else { v }));
                }
            }
        }
    }
    Ok(Block::Sparse { rows, cols, triplets })
}

/// A 1-based index in `1..=bound`, returned 0-based.
fn read_index(
    ts: &mut Tokens,
    field: impl std::fmt::Display,
    bound: usize,
    name: &str,
) -> Result<usize, Error> {
    let t = ts.token(&field)?;
    match t.parse::<usize>() {
        Ok(i) if (1..=bound).contains(&i) => Ok(i - 1),
        _ => Err(ts.error(
            field,
            format!("expected an index between 1 and {bound} ({name}), found '{}'", shorten(t)),
        )),
    }
}

/// Parses a MatrixMarket matrix; `file` names it in error messages. A `coordinate` file gives
/// a sparse (CSR) matrix, an `array` file a dense one. With `expect = Some((rows, cols))` the
/// sizes must be those (checked before anything is allocated); with `None` the row and column
/// counts of a coordinate file may not exceed the file's token count.
///
/// ```
/// use std::path::Path;
/// let text = "%%MatrixMarket matrix coordinate real general\n% a comment\n2 2 2\n1 1 4.0\n2 1 -1e-3\n";
/// let m = perp_formats::mtx::parse_matrix(text, Path::new("m.mtx"), None).unwrap();
/// assert!(m.is_sparse());
/// assert_eq!((m.get(0, 0), m.get(1, 0), m.get(0, 1)), (4.0, -1e-3, 0.0));
/// let e = perp_formats::mtx::parse_matrix(&text.replace("2 1 -1e-3", "3 1 5"), Path::new("m.mtx"), None);
/// assert_eq!(
///     e.unwrap_err().to_string(),
///     "m.mtx: token 7 (M entry 1 row): expected an index between 1 and 2 (rows), found '3' (line 5)"
/// );
/// ```
pub fn parse_matrix(text: &str, file: &Path, expect: Option<(usize, usize)>) -> Result<Matrix, Error> {
    let (_, block) = parse_block(text, file, "M", expect)?;
    block_to_matrix(block)
}

fn block_to_matrix(block: Block) -> Result<Matrix, Error> {
    match block {
        Block::Dense { rows, cols, data } => Matrix::from_col_major(rows, cols, &data),
        Block::Sparse { rows, cols, triplets } => Matrix::from_triplets(rows, cols, &triplets),
    }
}

/// Parses a MatrixMarket column vector (n × 1, `array` or `coordinate`) named `what` in error
/// messages; with `expect = Some(n)` it must have n rows.
///
/// ```
/// use std::path::Path;
/// let text = "%%MatrixMarket matrix array real general\n3 1\n1.5\n-2\n0.1\n";
/// let q = perp_formats::mtx::parse_vector(text, Path::new("q.mtx"), "q", Some(3)).unwrap();
/// assert_eq!(q, vec![1.5, -2.0, 0.1]);
/// assert!(perp_formats::mtx::parse_vector(text, Path::new("q.mtx"), "q", Some(2)).is_err());
/// ```
pub fn parse_vector(text: &str, file: &Path, what: &str, expect: Option<usize>) -> Result<Vec<f64>, Error> {
    let (header, block) = parse_block(text, file, what, expect.map(|n| (n, 1)))?;
    let not_a_column = |rows: usize, cols: usize| {
        parse_error(
            file,
            1,
            format!("{what} size line"),
            format!("{what} must be a column vector (n x 1), found {rows}x{cols}"),
        )
    };
    match block {
        Block::Dense { rows, cols, data } => {
            if cols != 1 {
                return Err(not_a_column(rows, cols));
            }
            Ok(data)
        }
        Block::Sparse { rows, cols, triplets } => {
            if cols != 1 || header.symmetry != Symmetry::General {
                return Err(not_a_column(rows, cols));
            }
            // `rows` is backed by `expect` or by the file's token count.
            let mut v = vec![0.0; rows];
            for (i, _, x) in triplets {
                v[i] += x;
            }
            Ok(v)
        }
    }
}

/// Parses the MLCP row kinds: a vector of 0 (complementarity) and 1 (equality, free variable).
fn parse_free(text: &str, file: &Path, n: usize) -> Result<Vec<bool>, Error> {
    let v = parse_vector(text, file, "free", Some(n))?;
    v.iter()
        .enumerate()
        .map(|(i, &x)| {
            if x == 0.0 {
                Ok(false)
            } else if x == 1.0 {
                Ok(true)
            } else {
                Err(parse_error(
                    file,
                    0,
                    format!("free[{i}]"),
                    format!("expected 0 (complementarity row) or 1 (equality row), found {x}"),
                ))
            }
        })
        .collect()
}

/// The problem kind named by a `%perp kind=` tag: `lcp`, `mlcp` or `fc<d>d`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Lcp,
    Mlcp,
    Friction(usize),
}

fn parse_kind(name: &str) -> Option<Kind> {
    match name {
        "lcp" => Some(Kind::Lcp),
        "mlcp" => Some(Kind::Mlcp),
        _ => {
            let d = name.strip_prefix("fc")?.strip_suffix('d')?.parse::<usize>().ok()?;
            (2..=MAX_DIM).contains(&d).then_some(Kind::Friction(d))
        }
    }
}

/// The texts of the files of one MatrixMarket problem (see the [module docs](self)); `None`
/// for a companion file that does not exist.
#[derive(Clone, Copy, Debug)]
pub struct MtxTexts<'a> {
    /// The matrix file (`foo.mtx`).
    pub matrix: &'a str,
    /// `foo_q.mtx`.
    pub q: Option<&'a str>,
    /// `foo_mu.mtx`.
    pub mu: Option<&'a str>,
    /// `foo_free.mtx`.
    pub free: Option<&'a str>,
}

/// Parses a MatrixMarket problem from the texts of its files; `path` is the matrix file, and
/// errors name it or the companion file at fault.
///
/// ```
/// use perp_formats::{mtx::{parse_problem, MtxTexts}, Problem};
/// use std::path::Path;
/// let texts = MtxTexts {
///     matrix: "%%MatrixMarket matrix array real general\n%perp kind=lcp\n1 1\n2.0\n",
///     q: Some("%%MatrixMarket matrix array real general\n1 1\n-1.0\n"),
///     mu: None,
///     free: None,
/// };
/// let Problem::Lcp(p) = parse_problem(texts, Path::new("p.mtx")).unwrap() else { panic!() };
/// assert_eq!((p.m().get(0, 0), p.q()[0]), (2.0, -1.0));
/// ```
pub fn parse_problem(texts: MtxTexts<'_>, path: &Path) -> Result<Problem, Error> {
    let (q_file, mu_file, free_file) = (companion(path, "q"), companion(path, "mu"), companion(path, "free"));
    let (header, _) = split_header(texts.matrix, path)?;
    let kind = match &header.kind {
        Some(name) => parse_kind(name).ok_or_else(|| {
            parse_error(
                path,
                0,
                "%perp kind",
                format!("unknown problem kind '{}': expected lcp, mlcp, fc2d or fc3d", shorten(name)),
            )
        })?,
        None => match (texts.mu.is_some(), texts.free.is_some()) {
            (true, true) => {
                return Err(parse_error(
                    path,
                    0,
                    "%perp kind",
                    format!(
                        "both {} and {} exist and no '%perp kind=' line says which problem this is",
                        mu_file.display(),
                        free_file.display()
                    ),
                ))
            }
            (true, false) => Kind::Friction(0),
            (false, true) => Kind::Mlcp,
            (false, false) => Kind::Lcp,
        },
    };
    let missing = |file: &Path, what: &str| Error::Io {
        file: file.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{what} of {} is missing", path.display()),
        ),
    };
    let q_text = texts.q.ok_or_else(|| missing(&q_file, "the vector q"))?;
    let q = parse_vector(q_text, &q_file, "q", None)?;
    let n = q.len();
    let (_, block) = parse_block(texts.matrix, path, "M", Some((n, n)))?;
    let m = block_to_matrix(block)?;
    match kind {
        Kind::Lcp => Lcp::new(m, q).map(Problem::Lcp).map_err(|e| wrap(path, e)),
        Kind::Mlcp => {
            let free_text = texts.free.ok_or_else(|| missing(&free_file, "the row kinds (free)"))?;
            let free = parse_free(free_text, &free_file, n)?;
            Mlcp::new(m, q, free).map(Problem::Mlcp).map_err(|e| wrap(path, e))
        }
        Kind::Friction(d) => {
            let mu_text = texts.mu.ok_or_else(|| missing(&mu_file, "the friction coefficients mu"))?;
            let mu = if d > 0 {
                if n % d != 0 {
                    return Err(parse_error(
                        &q_file,
                        0,
                        "q",
                        format!("q has {n} entries, not a multiple of the contact dimension {d}"),
                    ));
                }
                parse_vector(mu_text, &mu_file, "mu", Some(n / d))?
            } else {
                parse_vector(mu_text, &mu_file, "mu", None)?
            };
            let nc = mu.len();
            let d = if d > 0 {
                d
            } else if nc > 0 && n % nc == 0 && (2..=MAX_DIM).contains(&(n / nc)) {
                n / nc
            } else {
                return Err(parse_error(
                    &mu_file,
                    0,
                    "mu",
                    format!(
                        "{nc} friction coefficients for {n} unknowns: the contact dimension n / nc must be \
                         an integer between 2 and {MAX_DIM} (or say it with a '%perp kind=fc3d' line in {})",
                        path.display()
                    ),
                ));
            };
            if let Some(i) = mu.iter().position(|&x| x < 0.0) {
                return Err(parse_error(
                    &mu_file,
                    0,
                    format!("mu[{i}]"),
                    format!("friction coefficient must be ≥ 0, found {}", mu[i]),
                ));
            }
            FrictionContactProblem::new(d, m, q, mu).map(Problem::Friction).map_err(|e| wrap(path, e))
        }
    }
}

/// A problem constructor's error, named with the matrix file.
fn wrap(path: &Path, e: Error) -> Error {
    match e {
        e @ (Error::Parse { .. } | Error::Io { .. }) => e,
        other => parse_error(path, 0, "problem", other.to_string()),
    }
}

fn read_text(path: &Path) -> Result<String, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { file: path.to_path_buf(), source })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn read_if_exists(path: &Path) -> Result<Option<String>, Error> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(Error::Io { file: path.to_path_buf(), source }),
    }
}

/// Reads the MatrixMarket problem whose matrix file is `path` (`foo.mtx`, with `foo_q.mtx`
/// and, by kind, `foo_mu.mtx` or `foo_free.mtx`; see the [module docs](self)).
pub fn read_problem(path: &Path) -> Result<Problem, Error> {
    let matrix = read_text(path)?;
    let q = read_if_exists(&companion(path, "q"))?;
    let mu = read_if_exists(&companion(path, "mu"))?;
    let free = read_if_exists(&companion(path, "free"))?;
    let texts = MtxTexts { matrix: &matrix, q: q.as_deref(), mu: mu.as_deref(), free: free.as_deref() };
    parse_problem(texts, path)
}

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

fn push_comments(s: &mut String, comments: &[&str]) {
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

fn format_flags(v: &[bool], comments: &[&str]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(m: &'a str, q: &'a str) -> MtxTexts<'a> {
        MtxTexts { matrix: m, q: Some(q), mu: None, free: None }
    }

    const Q2: &str = "%%MatrixMarket matrix array real general\n2 1\n-1\n0.5\n";

    #[test]
    fn symmetric_and_skew_entries_are_mirrored() {
        let sym = "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 2\n2 1 -1\n";
        let m = parse_matrix(sym, Path::new("s.mtx"), None).unwrap();
        assert_eq!((m.get(0, 1), m.get(1, 0), m.get(1, 1)), (-1.0, -1.0, 0.0));
        let skew = "%%MatrixMarket matrix array real skew-symmetric\n2 2\n3\n";
        let m = parse_matrix(skew, Path::new("k.mtx"), None).unwrap();
        assert_eq!((m.get(1, 0), m.get(0, 1), m.get(0, 0)), (3.0, -3.0, 0.0));
        let e = parse_matrix(&sym.replace("2 1 -1", "1 2 -1"), Path::new("s.mtx"), None).unwrap_err();
        assert!(e.to_string().contains("must be in the lower triangle"), "{e}");
    }

    #[test]
    fn kind_comes_from_the_tag_or_from_the_companions() {
        let m = "%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n";
        let mu = "%%MatrixMarket matrix array real general\n1 1\n0.3\n";
        let p = parse_problem(MtxTexts { mu: Some(mu), ..texts(m, Q2) }, Path::new("f.mtx")).unwrap();
        assert_eq!(p.kind_name(), "fc2d");
        // The tag wins over a stale companion.
        let tagged = m.replace("general\n", "general\n%perp kind=lcp\n");
        let p = parse_problem(MtxTexts { mu: Some(mu), ..texts(&tagged, Q2) }, Path::new("f.mtx")).unwrap();
        assert_eq!(p.kind_name(), "lcp");
        let e = parse_problem(
            texts(&m.replace("general\n", "general\n%perp kind=mlcp\n"), Q2),
            Path::new("f.mtx"),
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("f_free.mtx: the row kinds"), "{e}");
        let e =
            parse_problem(texts(&m.replace("general\n", "general\n%perp kind=qp\n"), Q2), Path::new("f.mtx"))
                .unwrap_err();
        assert!(e.to_string().contains("unknown problem kind 'qp'"), "{e}");
        let free = "%%MatrixMarket matrix array integer general\n2 1\n1\n2\n";
        let e = parse_problem(MtxTexts { free: Some(free), ..texts(m, Q2) }, Path::new("f.mtx")).unwrap_err();
        assert!(e.to_string().starts_with("f_free.mtx: token 0 (free[1]): expected 0"), "{e}");
    }

    #[test]
    fn sizes_are_checked_against_q_before_allocating() {
        let m = "%%MatrixMarket matrix coordinate real general\n100000000000 100000000000 0\n";
        let e = parse_problem(texts(m, Q2), Path::new("big.mtx")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "big.mtx: token 2 (M size line): M is 100000000000x100000000000, expected 2x2 (line 2)"
        );
        let e = parse_matrix(m, Path::new("big.mtx"), None).unwrap_err();
        assert!(e.to_string().contains("exceed the 3 tokens"), "{e}");
        let q = "%%MatrixMarket matrix array real general\n99999999999 1\n1\n";
        let e = parse_vector(q, Path::new("q.mtx"), "q", None).unwrap_err();
        assert!(e.to_string().contains("99999999999 rows exceed the 3 tokens"), "{e}");
        let e = parse_matrix(
            "%%MatrixMarket matrix coordinate real general\n2 2 9\n1 1 1\n",
            Path::new("m.mtx"),
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("needs 27 more values"), "{e}");
    }

    #[test]
    fn bad_banners_and_trailing_data_are_named() {
        for (text, want) in [
            ("2 2 0\n", "expected a first line '%%MatrixMarket"),
            ("%%MatrixMarket matrix coordinate pattern general\n2 2 0\n", "field 'pattern' is not supported"),
            ("%%MatrixMarket matrix coordinate complex general\n2 2 0\n", "field 'complex' is not supported"),
            ("%%MatrixMarket vector coordinate real general\n2 2 0\n", "object 'vector' is not supported"),
            ("%%MatrixMarket matrix coordinate real hermitian\n2 2 0\n", "symmetry 'hermitian'"),
            ("%%MatrixMarket matrix coordinate real\n2 2 0\n", "expected 5 words"),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 0\n1 1 1\n",
                "unexpected '1' after the last entry",
            ),
            ("%%MatrixMarket matrix array real symmetric\n2 3\n1\n", "must be square"),
            ("%%MatrixMarket matrix array real general\n1 1\nnan\n", "value 'nan' is not finite"),
        ] {
            let e = parse_matrix(text, Path::new("b.mtx"), None).unwrap_err().to_string();
            assert!(e.starts_with("b.mtx: token ") && e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn every_truncation_and_corruption_is_a_clean_error() {
        let p = Problem::Friction(
            FrictionContactProblem::new(
                2,
                Matrix::from_triplets(
                    4,
                    4,
                    &[(0, 0, 2.0), (1, 1, 1.0), (2, 2, 3.0), (3, 0, -0.25), (3, 3, 1.0)],
                )
                .unwrap(),
                vec![-1.0, 0.5, 0.25, 1e-300],
                vec![0.3, 0.0],
            )
            .unwrap(),
        );
        let files = format_problem(&p, Path::new("t.mtx")).unwrap();
        let (m, q, mu) = (&files[0].1, &files[1].1, &files[2].1);
        let whole = MtxTexts { matrix: m, q: Some(q), mu: Some(mu), free: None };
        assert_eq!(parse_problem(whole, Path::new("t.mtx")).unwrap().kind_name(), "fc2d");
        for k in 0..3 {
            let text = [m, q, mu][k];
            let cuts: Vec<usize> =
                text.char_indices().filter(|(_, c)| c.is_whitespace()).map(|(i, _)| i).collect();
            for &cut in &cuts[..cuts.len() - 1] {
                let short = &text[..cut];
                let t = match k {
                    0 => MtxTexts { matrix: short, ..whole },
                    1 => MtxTexts { q: Some(short), ..whole },
                    _ => MtxTexts { mu: Some(short), ..whole },
                };
                let e = parse_problem(t, Path::new("t.mtx")).expect_err(&format!("cut {k} at {cut}"));
                assert!(e.to_string().starts_with("t"), "{e}");
            }
            let toks: Vec<&str> = text.split('\n').collect();
            for i in 0..toks.len() {
                for junk in ["", "-1", "0", "7", "x", "1e999", "99999999999 1", "%%MatrixMarket", "1 1 1 1"] {
                    let mut t2 = toks.clone();
                    t2[i] = junk;
                    let bad = t2.join("\n");
                    let t = match k {
                        0 => MtxTexts { matrix: &bad, ..whole },
                        1 => MtxTexts { q: Some(&bad), ..whole },
                        _ => MtxTexts { mu: Some(&bad), ..whole },
                    };
                    let _ = parse_problem(t, Path::new("t.mtx"));
                }
            }
        }
    }
}
