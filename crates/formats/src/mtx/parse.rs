//! The MatrixMarket text reader: the banner and size line (`split_header`), the `array` and
//! `coordinate` data blocks with their symmetries, and the matrices, vectors and flags built
//! from them. Every malformed token is an error naming the file, position and field.

use super::*;

/// MatrixMarket storage format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Layout {
    Coordinate,
    Array,
}

/// MatrixMarket symmetry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Symmetry {
    General,
    Symmetric,
    Skew,
}

/// The banner of a MatrixMarket file and the `%perp kind=` tag, if any.
#[derive(Clone, Debug)]
pub(super) struct Header {
    pub(super) layout: Layout,
    pub(super) symmetry: Symmetry,
    pub(super) kind: Option<String>,
}

pub(super) fn parse_error(
    file: &Path,
    position: usize,
    field: impl Into<String>,
    message: impl Into<String>,
) -> Error {
    Error::Parse { file: file.to_path_buf(), position, field: field.into(), message: message.into() }
}

/// Splits off the header (banner and comment lines): returns it and the text with those lines
/// blanked, so that the line numbers of the rest stay those of the file.
pub(super) fn split_header(text: &str, file: &Path) -> Result<(Header, String), Error> {
    let mut lines = text.split('\n');
    let banner = lines.next().unwrap_or("").trim_end_matches('\r');
    let (layout, symmetry) = parse_banner(banner, file)?;
    let (kind, body) = blank_header(lines, text.len());
    Ok((Header { layout, symmetry, kind }, body))
}

/// The layout and symmetry of the first line `banner` (`%%MatrixMarket matrix FORMAT FIELD
/// SYMMETRY`), refusing what the reader does not take.
fn parse_banner(banner: &str, file: &Path) -> Result<(Layout, Symmetry), Error> {
    let words = banner_words(banner, file)?;
    let field = "MatrixMarket banner";
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
    Ok((layout, symmetry))
}

/// The five words of the banner, lowercased, the first `%%matrixmarket` and the second
/// `matrix`.
fn banner_words(banner: &str, file: &Path) -> Result<Vec<String>, Error> {
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
    Ok(words)
}

/// The `lines` after the banner with the header's comment lines (those before the first
/// non-blank data line) blanked, in a text of capacity `len`, and the kind of the
/// `%perp kind=` tag among them, if any.
fn blank_header<'a>(lines: impl Iterator<Item = &'a str>, len: usize) -> (Option<String>, String) {
    let mut kind = None;
    let mut body = String::with_capacity(len);
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
    (kind, body)
}

/// A parsed MatrixMarket block before it becomes a [`Matrix`] or a vector.
pub(super) enum Block {
    /// Column-major values.
    Dense { rows: usize, cols: usize, data: Vec<f64> },
    /// Entries (duplicates not yet summed).
    Sparse { rows: usize, cols: usize, triplets: Vec<(usize, usize, f64)> },
}

/// Reads the size line and the values of a MatrixMarket file named `what` in errors.
pub(super) fn parse_block(
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

/// The error of a size line whose `rows`×`cols` values cannot be addressed.
fn overflow(ts: &Tokens, what: &str, rows: usize, cols: usize) -> Error {
    ts.error(format_args!("{what} size line"), format!("{rows}x{cols} overflows the address space"))
}

/// Dense column-major values (only the lower triangle for symmetric storage, strictly lower
/// for skew-symmetric).
pub(super) fn read_array(
    ts: &mut Tokens,
    what: &str,
    rows: usize,
    cols: usize,
    sym: Symmetry,
) -> Result<Block, Error> {
    let n = rows;
    let count = match sym {
        Symmetry::General => rows.checked_mul(cols),
        Symmetry::Symmetric => n.checked_mul(n.saturating_add(1)).map(|c| c / 2),
        Symmetry::Skew => n.checked_mul(n.saturating_sub(1)).map(|c| c / 2),
    }
    .ok_or_else(|| overflow(ts, what, rows, cols))?;
    ts.check_available(count, format_args!("{what} ({rows}x{cols} array)"))?;
    let total = rows.checked_mul(cols).ok_or_else(|| overflow(ts, what, rows, cols))?;
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
pub(super) fn read_coordinate(
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
pub(super) fn read_index(
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

pub(super) fn block_to_matrix(block: Block) -> Result<Matrix, Error> {
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
pub(super) fn parse_free(text: &str, file: &Path, n: usize) -> Result<Vec<bool>, Error> {
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
