//! Readers of Siconos numerics problem files (`.dat`), as described in `design/SUITES.md`.
//!
//! A file is a stream of whitespace-separated tokens ([`Tokens`]). Matrices are stored as a
//! Siconos "NumericsMatrix" block: `storage size0 size1`, then
//!
//! * storage 0, **dense**: `size0 size1` again, then `size0·size1` values in column-major
//!   order (one printed line per column);
//! * storage 1, **sparse block (SBM)**: `nbblocks`, `blocknumber0 blocknumber1`, the
//!   cumulative block-row and block-column ends, `filled1 filled2`, the CSR pointer over block
//!   rows (`filled1 = blocknumber0 + 1` entries), the block-column index of every block
//!   (`filled2 = nbblocks` entries), then for every block in storage order its number `k` and
//!   its values in column-major order; `nbblocks = 0` is the zero matrix and ends the block;
//! * storage 2, **CSparse text**: an origin (1 triplet, 2 CSC, 3 CSR) and the rest of its
//!   line, a `CSparse Version …` line, a header `[triplet: |csr: ]m-by-n, nzmax: K nnz: Z, …`,
//!   then for CSC/CSR one `col j : locations a to b` line per outer index (column for CSC, row
//!   for CSR: Siconos prints `col` for both) followed by `b − a + 1` lines `i : value`, and
//!   for a triplet `Z` lines `i j : value`. Values were printed with `%g` (six digits).
//!
//! Every size is checked before anything is allocated: a size may never exceed the number of
//! tokens left in the file, block structures must be consistent, indices in range, values
//! finite. Any violation is an [`Error::Parse`] naming the file, token position and field;
//! no input makes these readers panic.
//!
//! Dense blocks give [`Matrix::Dense`]; SBM and CSparse blocks give [`Matrix::Sparse`] (CSR),
//! keeping the explicit zeros of SBM blocks so the block pattern survives.

use crate::tokens::{shorten, Tokens};
use perp_core::{Error, Matrix};
use perp_lcp::Lcp;
use std::fmt::Display;
use std::path::Path;

/// Reads an LCP file: `n`, the matrix M (any storage), then q (n values), and nothing more but
/// a comment that does not start with a number ([`Tokens::expect_end`]: a further number is
/// an error saying the file holds more data than it declares). `n` must equal both sizes of M.
///
/// Errors: [`Error::Io`] if the file cannot be read, [`Error::Parse`] (file, token position,
/// field) if its content is wrong.
///
/// ```no_run
/// let p = perp_formats::read_lcp(std::path::Path::new("suites/siconos/lcp/lcp_deudeu.dat")).unwrap();
/// assert_eq!(p.n(), 2);
/// ```
pub fn read_lcp(path: &Path) -> Result<Lcp, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { file: path.to_path_buf(), source })?;
    parse_lcp(&String::from_utf8_lossy(&bytes), path)
}

/// Parses the text of an LCP file (see [`read_lcp`]); `file` names it in error messages.
///
/// ```
/// use std::path::Path;
/// // n = 2, dense 2x2 M = [[2, 1], [1, 2]] stored by columns, q = (-5, -6), then a comment.
/// let text = "2\n0\n2\n2\n2 2\n2 1\n1 2\n-5 -6\n\n# a comment";
/// let p = perp_formats::parse_lcp(text, Path::new("deudeu.dat")).unwrap();
/// assert_eq!((p.n(), p.m().get(0, 1), p.q()[1]), (2, 1.0, -6.0));
/// // Truncated: the dense block announces 4 values but only 3 follow.
/// let e = perp_formats::parse_lcp("2\n0\n2\n2\n2 2\n2 1\n1", Path::new("cut.dat")).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "cut.dat: token 6 (M (2x2 dense)): needs 4 more values but only 3 tokens are left in the file (line 5)"
/// );
/// ```
pub fn parse_lcp(text: &str, file: &Path) -> Result<Lcp, Error> {
    let mut ts = Tokens::new(text, file);
    let n = ts.read_usize("n")?;
    let n_pos = ts.last_position();
    // q alone needs n more tokens: refuse an absurd n before reading anything else.
    ts.check_available(n, format_args!("n = {n}"))?;
    let m_pos = ts.position();
    let m = read_numerics_matrix(&mut ts, "M")?;
    if m.nrows() != n || m.ncols() != n {
        return Err(ts.error_at(
            m_pos + 1,
            "M size0",
            format!("M is {}x{} but n = {n} (token {n_pos})", m.nrows(), m.ncols()),
        ));
    }
    let q = ts.read_vector(n, "q")?;
    ts.expect_end(format_args!("n = {n}: M ({n}x{n}) and q (length {n})"))?;
    Lcp::new(m, q)
}

/// Reads one NumericsMatrix block (any of the three storages, see the [module
/// docs](self)) named `what` in error messages (fields such as `"M storage"`, `"M[3,4]"`).
///
/// Later readers (frictional contact, MLCP) call this for each matrix of their files.
///
/// ```
/// use perp_formats::{read_numerics_matrix, tokens::Tokens};
/// use std::path::Path;
/// // A 2x2 SBM with one diagonal block per block row.
/// let text = "1 2 2  2  2 2  1 2  1 2  3 2  0 1 2  0 1  0 4.0  1 5.0";
/// let mut ts = Tokens::new(text, Path::new("w.dat"));
/// let w = read_numerics_matrix(&mut ts, "W").unwrap();
/// assert!(w.is_sparse());
/// assert_eq!((w.get(0, 0), w.get(1, 1), w.get(0, 1)), (4.0, 5.0, 0.0));
/// ```
pub fn read_numerics_matrix(ts: &mut Tokens, what: &str) -> Result<Matrix, Error> {
    let storage = ts.read_i64(format_args!("{what} storage"))?;
    let storage_pos = ts.last_position();
    let size0 = read_size(ts, format_args!("{what} size0"))?;
    let size1 = read_size(ts, format_args!("{what} size1"))?;
    // A matrix costs O(rows + columns) memory even when it holds no value (an empty sparse
    // matrix, or a dense 0 × 10⁸ one), so its sizes must be backed by the file: a matrix in a
    // problem file is followed by vectors of its sizes (q, b), so no honest size exceeds the
    // file's token count. (Found by fuzzing: "4 1 4000000000000 …" asked for a 40 TB row
    // pointer, and a dense 0 × 37 095 516 matrix took 23 s to build.)
    // (A dense block with both sizes positive is caught by its value count instead.)
    let checked = storage != 0 || size0 == 0 || size1 == 0;
    for (name, v) in [("size0", size0), ("size1", size1)] {
        if checked && v > ts.total() {
            return Err(ts.error(
                format_args!("{what} {name}"),
                format!("{v} exceeds the {} values in the whole file", ts.total()),
            ));
        }
    }
    match storage {
        0 => read_dense(ts, what, size0, size1),
        1 => read_sbm(ts, what, size0, size1),
        2 => read_csparse(ts, what, size0, size1),
        other => Err(ts.error_at(
            storage_pos,
            format_args!("{what} storage"),
            format!("unknown storage {other}: expected 0 (dense), 1 (sparse block) or 2 (CSparse)"),
        )),
    }
}

/// A size: a non-negative integer (a negative one is named as such).
fn read_size(ts: &mut Tokens, field: impl Display) -> Result<usize, Error> {
    let v = ts.read_i64(&field)?;
    usize::try_from(v).map_err(|_| ts.error(field, format!("size must be non-negative, found {v}")))
}

/// A dense block: `size0 size1` repeated, then the values by columns.
fn read_dense(ts: &mut Tokens, what: &str, size0: usize, size1: usize) -> Result<Matrix, Error> {
    for (k, expected) in [(0, size0), (1, size1)] {
        let again = read_size(ts, format_args!("{what} size{k} (repeated)"))?;
        if again != expected {
            return Err(ts.error(
                format_args!("{what} size{k} (repeated)"),
                format!("dense sizes repeated as {again}, first given as {expected}"),
            ));
        }
    }
    let count = size0.checked_mul(size1).ok_or_else(|| {
        ts.error(format_args!("{what} size"), format!("{size0}x{size1} overflows the address space"))
    })?;
    ts.check_available(count, format_args!("{what} ({size0}x{size1} dense)"))?;
    let mut data = Vec::with_capacity(count);
    for j in 0..size1 {
        for i in 0..size0 {
            data.push(ts.read_f64(format_args!("{what}[{i},{j}]"))?);
        }
    }
    Matrix::from_col_major(size0, size1, &data)
}

/// Reads `count` cumulative block ends, strictly increasing and ending at `size`.
fn read_block_ends(
    ts: &mut Tokens,
    what: &str,
    name: &str,
    count: usize,
    size: usize,
    size_name: &str,
) -> Result<Vec<usize>, Error> {
    ts.check_available(count, format_args!("{what} {name} (length {count})"))?;
    let mut ends = Vec::with_capacity(count);
    let mut prev = 0;
    for i in 0..count {
        let e = read_size(ts, format_args!("{what} {name}[{i}]"))?;
        if e <= prev {
            return Err(ts.error(
                format_args!("{what} {name}[{i}]"),
                format!("cumulative block sizes must increase: {e} after {prev}"),
            ));
        }
        if e > size {
            return Err(
                ts.error(format_args!("{what} {name}[{i}]"), format!("{e} exceeds {size_name} = {size}"))
            );
        }
        ends.push(e);
        prev = e;
    }
    if prev != size {
        return Err(ts.error(
            format_args!("{what} {name}[{}]", count - 1),
            format!("last cumulative block size {prev} must equal {size_name} = {size}"),
        ));
    }
    Ok(ends)
}

/// A sparse-block (SBM) matrix.
fn read_sbm(ts: &mut Tokens, what: &str, size0: usize, size1: usize) -> Result<Matrix, Error> {
    let nbblocks = read_size(ts, format_args!("{what} nbblocks"))?;
    if nbblocks == 0 {
        return Matrix::from_triplets(size0, size1, &[]);
    }
    let bn = read_block_numbers(ts, what)?;
    let ends0 = read_block_ends(ts, what, "blocksize0", bn[0], size0, "size0")?;
    let ends1 = read_block_ends(ts, what, "blocksize1", bn[1], size1, "size1")?;
    let index1 = read_block_rows(ts, what, bn[0], nbblocks)?;
    let index2 = read_block_columns(ts, what, &index1, bn)?;
    let triplets = read_blocks(ts, what, &index1, &index2, [&ends0, &ends1])?;
    Matrix::from_triplets(size0, size1, &triplets)
}

/// An SBM matrix's `blocknumber0 blocknumber1`, both positive and within the tokens left.
fn read_block_numbers(ts: &mut Tokens, what: &str) -> Result<[usize; 2], Error> {
    let bn0 = read_size(ts, format_args!("{what} blocknumber0"))?;
    if bn0 == 0 {
        return Err(ts.error(format_args!("{what} blocknumber0"), "a matrix with blocks needs block rows"));
    }
    ts.check_available(bn0, format_args!("{what} blocknumber0 = {bn0}"))?;
    let bn1 = read_size(ts, format_args!("{what} blocknumber1"))?;
    if bn1 == 0 {
        return Err(ts.error(format_args!("{what} blocknumber1"), "a matrix with blocks needs block columns"));
    }
    ts.check_available(bn0.saturating_add(bn1), format_args!("{what} blocknumber1 = {bn1}"))?;
    Ok([bn0, bn1])
}

/// An SBM matrix's `filled1 filled2` and its CSR pointer over the `bn0` block rows
/// (`index1_data`, ending at `nbblocks`).
fn read_block_rows(ts: &mut Tokens, what: &str, bn0: usize, nbblocks: usize) -> Result<Vec<usize>, Error> {
    let filled1 = read_size(ts, format_args!("{what} filled1"))?;
    if filled1 != bn0 + 1 {
        return Err(ts.error(
            format_args!("{what} filled1"),
            format!("must be blocknumber0 + 1 = {}, found {filled1}", bn0 + 1),
        ));
    }
    ts.check_available(filled1, format_args!("{what} filled1 = {filled1}"))?;
    let filled2 = read_size(ts, format_args!("{what} filled2"))?;
    if filled2 != nbblocks {
        return Err(ts.error(
            format_args!("{what} filled2"),
            format!("must be nbblocks = {nbblocks}, found {filled2}"),
        ));
    }
    ts.check_available(filled1.saturating_add(filled2), format_args!("{what} index1_data, index2_data"))?;
    let mut index1 = Vec::with_capacity(filled1);
    for r in 0..filled1 {
        let field = format_args!("{what} index1_data[{r}]");
        let v = read_size(ts, field)?;
        let lo = index1.last().copied().unwrap_or(0);
        let ok = if r == 0 { v == 0 } else { v >= lo && v <= filled2 };
        if !ok {
            let want = if r == 0 { "0".to_string() } else { format!("between {lo} and filled2 = {filled2}") };
            return Err(ts.error(
                format_args!("{what} index1_data[{r}]"),
                format!("{v} out of range: must be {want}"),
            ));
        }
        index1.push(v);
    }
    if index1[bn0] != filled2 {
        return Err(ts.error(
            format_args!("{what} index1_data[{bn0}]"),
            format!("last block pointer {} must equal filled2 = {filled2}", index1[bn0]),
        ));
    }
    Ok(index1)
}

/// An SBM matrix's block column of every block (`index2_data`), each in range and at most
/// once per block row of the pointer `index1`; `bn` is `[blocknumber0, blocknumber1]`.
fn read_block_columns(
    ts: &mut Tokens,
    what: &str,
    index1: &[usize],
    bn: [usize; 2],
) -> Result<Vec<usize>, Error> {
    let filled2 = index1[bn[0]];
    let mut index2 = Vec::with_capacity(filled2);
    for k in 0..filled2 {
        let c = read_size(ts, format_args!("{what} index2_data[{k}]"))?;
        if c >= bn[1] {
            return Err(ts.error(
                format_args!("{what} index2_data[{k}]"),
                format!("block column {c} out of range: blocknumber1 = {}", bn[1]),
            ));
        }
        index2.push(c);
    }
    let index2_pos = ts.last_position() + 1 - filled2;
    let mut seen = vec![usize::MAX; bn[1]];
    for r in 0..bn[0] {
        for (k, &c) in index2.iter().enumerate().take(index1[r + 1]).skip(index1[r]) {
            if seen[c] == r {
                return Err(ts.error_at(
                    index2_pos + k,
                    format_args!("{what} index2_data[{k}]"),
                    format!("block column {c} appears twice in block row {r}"),
                ));
            }
            seen[c] = r;
        }
    }
    Ok(index2)
}

/// An SBM matrix's blocks in storage order, each its number then its values by columns, as
/// triplets (explicit zeros kept); `ends` are the cumulative block-row and block-column ends.
fn read_blocks(
    ts: &mut Tokens,
    what: &str,
    index1: &[usize],
    index2: &[usize],
    ends: [&[usize]; 2],
) -> Result<Vec<(usize, usize, f64)>, Error> {
    let [ends0, ends1] = ends;
    let mut triplets = Vec::new();
    for r in 0..index1.len() - 1 {
        let (r0, r1) = (if r == 0 { 0 } else { ends0[r - 1] }, ends0[r]);
        for (k, &c) in index2.iter().enumerate().take(index1[r + 1]).skip(index1[r]) {
            let (c0, c1) = (if c == 0 { 0 } else { ends1[c - 1] }, ends1[c]);
            let number = read_size(ts, format_args!("{what} block number"))?;
            if number != k {
                return Err(ts.error(
                    format_args!("{what} block number"),
                    format!("expected block {k}, found {number}"),
                ));
            }
            let count = (r1 - r0).saturating_mul(c1 - c0);
            ts.check_available(count, format_args!("{what} block {k} ({}x{})", r1 - r0, c1 - c0))?;
            for j in c0..c1 {
                for i in r0..r1 {
                    triplets.push((i, j, ts.read_f64(format_args!("{what}[{i},{j}]"))?));
                }
            }
        }
    }
    Ok(triplets)
}

/// Compressed (CSC or CSR) or triplet CSparse text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CsKind {
    Triplet,
    Csc,
    Csr,
}

/// An integer printed by CSparse: `%lld` in recent Siconos, `%g` in CSparse's own `cs_print`
/// (so `1e+06` is accepted when it is an exact integer).
fn read_cs_int(ts: &mut Tokens, field: impl Display) -> Result<i64, Error> {
    let t = ts.token(&field)?;
    if let Ok(v) = t.parse::<i64>() {
        return Ok(v);
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15 => Ok(v as i64),
        _ => Err(ts.error(field, format!("expected an integer, found '{}'", shorten(t)))),
    }
}

/// An index in `0..bound`.
fn read_cs_index(
    ts: &mut Tokens,
    field: impl Display,
    bound: usize,
    bound_name: &str,
) -> Result<usize, Error> {
    let v = read_cs_int(ts, &field)?;
    match usize::try_from(v) {
        Ok(i) if i < bound => Ok(i),
        _ => Err(ts.error(field, format!("index {v} out of range: {bound_name} = {bound}"))),
    }
}

/// A CSparse-text matrix (storage 2).
fn read_csparse(ts: &mut Tokens, what: &str, size0: usize, size1: usize) -> Result<Matrix, Error> {
    let (origin, origin_pos) = read_cs_preamble(ts, what)?;
    let h = read_cs_header(ts, what, (origin, origin_pos), [size0, size1])?;
    let triplets = match h.kind {
        CsKind::Triplet => read_cs_triplets(ts, what, &h)?,
        CsKind::Csc | CsKind::Csr => read_cs_compressed(ts, what, &h)?,
    };
    Matrix::from_triplets(size0, size1, &triplets)
}

/// A CSparse block's origin (1, 2 or 3) with its token position, and the `CSparse Version …`
/// line after the rest of the origin's line.
fn read_cs_preamble(ts: &mut Tokens, what: &str) -> Result<(i64, usize), Error> {
    let origin = ts.read_i64(format_args!("{what} CSparse origin"))?;
    let origin_pos = ts.last_position();
    if !(1..=3).contains(&origin) {
        return Err(ts.error(
            format_args!("{what} CSparse origin"),
            format!("unknown origin {origin}: expected 1 (triplet), 2 (CSC) or 3 (CSR)"),
        ));
    }
    // The rest of the origin line carries nothing.
    ts.rest_of_line();
    let version_pos = ts.position();
    let version = ts.rest_of_line().ok_or_else(|| cs_eof(ts, what, "CSparse version line"))?;
    if !version.trim_start().starts_with("CSparse") {
        return Err(ts.error_at(
            version_pos,
            format_args!("{what} CSparse version line"),
            format!("expected a line 'CSparse Version …', found '{}'", shorten(version.trim())),
        ));
    }
    Ok((origin, origin_pos))
}

/// The error of a CSparse block whose `field` line is missing: the file ends early.
fn cs_eof(ts: &Tokens, what: &str, field: &str) -> Error {
    ts.error_at(ts.position(), format_args!("{what} {field}"), "file ends early")
}

/// What a CSparse header line says: the storage, the sizes and the number of entries.
struct CsHeader {
    kind: CsKind,
    m: usize,
    n: usize,
    nnz: usize,
    /// The token position of the number of entries, for the errors about it.
    nnz_pos: usize,
}

/// A CSparse header line (`[triplet: |csr: ]m-by-n, nzmax: K nnz: Z, …`): its sizes must be
/// `sizes` and its entries fit in the tokens left; `origin` is the origin and its position.
fn read_cs_header(
    ts: &mut Tokens,
    what: &str,
    origin: (i64, usize),
    sizes: [usize; 2],
) -> Result<CsHeader, Error> {
    let [size0, size1] = sizes;
    let header_pos = ts.position();
    let header = ts.rest_of_line().ok_or_else(|| cs_eof(ts, what, "CSparse header"))?;
    let words: Vec<&str> = header.split_whitespace().collect();
    let field = format!("{what} CSparse header");
    let bad = |ts: &Tokens, k: usize, msg: String| ts.error_at(header_pos + k, &field, msg);
    let (kind, first) = match words.first().copied() {
        Some("triplet:") => (CsKind::Triplet, 1),
        Some("csr:") => (CsKind::Csr, 1),
        _ => match origin.0 {
            2 => (CsKind::Csc, 0),
            3 => (CsKind::Csr, 0),
            _ => {
                return Err(ts.error_at(
                    origin.1,
                    format_args!("{what} CSparse origin"),
                    "origin 1 (triplet) but the header does not start with 'triplet:'",
                ))
            }
        },
    };
    let dims = words.get(first).copied().unwrap_or("");
    let parsed = dims
        .trim_end_matches(',')
        .split_once("-by-")
        .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)));
    let (m, n) =
        parsed.ok_or_else(|| bad(ts, first, format!("expected 'm-by-n,', found '{}'", shorten(dims))))?;
    if (m, n) != (size0, size1) {
        return Err(bad(ts, first, format!("CSparse matrix is {m}x{n} but the block says {size0}x{size1}")));
    }
    let k_nnz = words
        .iter()
        .position(|w| *w == "nnz:")
        .ok_or_else(|| bad(ts, words.len(), format!("no 'nnz:' in header '{}'", shorten(header.trim()))))?;
    let nnz_word = words.get(k_nnz + 1).copied().unwrap_or("");
    let nnz = nnz_word.trim_end_matches(',').parse::<usize>().map_err(|_| {
        bad(ts, k_nnz + 1, format!("expected the number of entries, found '{}'", shorten(nnz_word)))
    })?;
    // Each entry takes at least 3 tokens (`i : v`; 4 for a triplet), each outer line 7.
    let need = match kind {
        CsKind::Triplet => nnz.checked_mul(4),
        CsKind::Csc => nnz.checked_mul(3).and_then(|a| a.checked_add(n.checked_mul(7)?)),
        CsKind::Csr => nnz.checked_mul(3).and_then(|a| a.checked_add(m.checked_mul(7)?)),
    };
    let need = need.ok_or_else(|| bad(ts, k_nnz + 1, format!("nnz = {nnz} overflows")))?;
    if need > ts.remaining() {
        return Err(bad(
            ts,
            k_nnz + 1,
            format!("nnz = {nnz} needs {need} more tokens but only {} are left in the file", ts.remaining()),
        ));
    }
    Ok(CsHeader { kind, m, n, nnz, nnz_pos: header_pos + k_nnz + 1 })
}

/// The `nnz` entries `i j : value` of a triplet CSparse block.
fn read_cs_triplets(ts: &mut Tokens, what: &str, h: &CsHeader) -> Result<Vec<(usize, usize, f64)>, Error> {
    let mut triplets = Vec::with_capacity(h.nnz);
    for p in 0..h.nnz {
        let i = read_cs_index(ts, format_args!("{what} triplet {p} row"), h.m, "rows")?;
        let j = read_cs_index(ts, format_args!("{what} triplet {p} column"), h.n, "columns")?;
        ts.expect(":", format_args!("{what} triplet {p} separator"))?;
        triplets.push((i, j, ts.read_f64(format_args!("{what}[{i},{j}]"))?));
    }
    Ok(triplets)
}

/// The outer lines (`col j : locations a to b`) and entries (`i : value`) of a CSC or CSR
/// CSparse block, as triplets; they must hold the header's `nnz` entries exactly.
fn read_cs_compressed(ts: &mut Tokens, what: &str, h: &CsHeader) -> Result<Vec<(usize, usize, f64)>, Error> {
    let (kind, nnz) = (h.kind, h.nnz);
    let mut triplets = Vec::with_capacity(nnz);
    let (outer, inner) = if kind == CsKind::Csc { (h.n, h.m) } else { (h.m, h.n) };
    let (outer_name, inner_name) = if kind == CsKind::Csc { ("column", "rows") } else { ("row", "columns") };
    let mut next = 0usize;
    for j in 0..outer {
        let f = format!("{what} {outer_name} {j} header");
        let word = ts.token(&f)?;
        if word != "col" && word != "row" {
            return Err(ts.error(&f, format!("expected 'col', found '{}'", shorten(word))));
        }
        let jj = read_cs_int(ts, &f)?;
        if jj != j as i64 {
            return Err(ts.error(&f, format!("expected {outer_name} {j}, found {jj}")));
        }
        ts.expect(":", &f)?;
        ts.expect("locations", &f)?;
        let a = read_cs_int(ts, &f)?;
        if a != next as i64 {
            return Err(ts.error(&f, format!("locations start at {a}, expected {next}")));
        }
        ts.expect("to", &f)?;
        let b = read_cs_int(ts, &f)?;
        // In i128: `b` may be any i64, `b + 1` must not overflow.
        let count = i128::from(b) + 1 - i128::from(a);
        if count < 0 || next as i128 + count > nnz as i128 {
            return Err(ts.error(&f, format!("locations {a} to {b} do not fit in nnz = {nnz}")));
        }
        for _ in 0..count {
            let i = read_cs_index(ts, format_args!("{what} {outer_name} {j} index"), inner, inner_name)?;
            ts.expect(":", format_args!("{what} {outer_name} {j} separator"))?;
            let (r, c) = if kind == CsKind::Csc { (i, j) } else { (j, i) };
            triplets.push((r, c, ts.read_f64(format_args!("{what}[{r},{c}]"))?));
        }
        next += count as usize;
    }
    if next != nnz {
        return Err(ts.error_at(
            h.nnz_pos,
            format_args!("{what} CSparse header"),
            format!("header says nnz = {nnz} but the {outer_name}s hold {next}"),
        ));
    }
    Ok(triplets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Lcp, Error> {
        parse_lcp(text, Path::new("x.dat"))
    }

    fn matrix(text: &str) -> Result<Matrix, Error> {
        read_numerics_matrix(&mut Tokens::new(text, Path::new("m.dat")), "M")
    }

    fn dense_rows(m: &Matrix) -> Vec<Vec<f64>> {
        (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m.get(i, j)).collect()).collect()
    }

    #[test]
    fn dense_is_column_major_and_may_be_rectangular() {
        // Rectangular_mlcp style: 3x2, columns (1, 2, 3) and (4, 5, 6).
        let m = matrix("0 3 2 3 2 1 2 3 4 5 6").unwrap();
        assert!(!m.is_sparse());
        assert_eq!(dense_rows(&m), vec![vec![1.0, 4.0], vec![2.0, 5.0], vec![3.0, 6.0]]);
        let e = matrix("0 3 2 3 3 1").unwrap_err();
        assert!(e.to_string().contains("repeated as 3, first given as 2"), "{e}");
    }

    #[test]
    fn sbm_places_blocks_by_cumulative_sizes() {
        // 3x3 with block rows/cols {0}, {1, 2}: block 0 = (0,0) 1x1 [7], block 1 = (0,1)
        // 1x2 [1 2], block 2 = (1,1) 2x2 column-major (3, 4, 5, 6) = [[3 5], [4 6]].
        let text = "1 3 3  3  2 2  1 3  1 3  3 3  0 2 3  0 1 1  0 7  1 1 2  2 3 4 5 6";
        let m = matrix(text).unwrap();
        assert!(m.is_sparse());
        assert_eq!(dense_rows(&m), vec![vec![7.0, 1.0, 2.0], vec![0.0, 3.0, 5.0], vec![0.0, 4.0, 6.0]]);
        // nbblocks = 0: the zero matrix, nothing more read.
        let mut ts = Tokens::new("1 2 2 0 9", Path::new("m.dat"));
        let z = read_numerics_matrix(&mut ts, "M").unwrap();
        assert_eq!((z.nrows(), z.nnz(), ts.remaining()), (2, 0, 1));
    }

    #[test]
    fn sbm_inconsistencies_are_named() {
        let cases = [
            // blocksize0 not increasing
            ("1 3 3 3 2 2 2 1 1 3 3 3 0 2 3 0 1 1", "cumulative block sizes must increase: 1 after 2"),
            // blocksize1 not ending at size1
            ("1 3 3 3 2 2 1 3 1 2 3 3 0 2 3 0 1 1", "must equal size1 = 3"),
            // filled1 wrong
            ("1 3 3 3 2 2 1 3 1 3 4 3 0 2 3 0 1 1", "must be blocknumber0 + 1 = 3, found 4"),
            // index1 decreasing
            ("1 3 3 3 2 2 1 3 1 3 3 3 0 2 1 0 1 1", "index1_data[2]): 1 out of range"),
            // index2 out of range
            ("1 3 3 3 2 2 1 3 1 3 3 3 0 2 3 0 1 2", "block column 2 out of range"),
            // duplicate block column in a row
            ("1 3 3 3 2 2 1 3 1 3 3 3 0 2 3 0 0 1", "appears twice in block row 0"),
            // wrong block number
            ("1 3 3 3 2 2 1 3 1 3 3 3 0 2 3 0 1 1 0 7 2 1 2", "expected block 1, found 2"),
            // negative count
            ("1 3 3 -3", "size must be non-negative, found -3"),
        ];
        for (text, want) in cases {
            let e = matrix(text).unwrap_err();
            assert!(e.to_string().contains(want), "{text}: {e}");
            assert!(e.to_string().starts_with("m.dat: token "), "{e}");
        }
    }

    #[test]
    fn csparse_csc_csr_and_triplet() {
        let csc = "2 2 3 2\nCSparse Version 3.1.9, May 4, 2016.  Copyright\n\
                   2-by-3, nzmax: 3 nnz: 3, 1-norm: 5\n\
                   col 0 : locations 0 to 1\n 0 : 1\n 1 : 2\n\
                   col 1 : locations 2 to 1\n\
                   col 2 : locations 2 to 2\n 1 : 3\n";
        let m = matrix(&format!("2 2 3 {csc}")).unwrap();
        assert_eq!(dense_rows(&m), vec![vec![1.0, 0.0, 0.0], vec![2.0, 0.0, 3.0]]);
        let csr = "3\nCSparse Version 3\n2-by-2, nzmax: 2 nnz: 2, 1-norm: 3\n\
                   col 0 : locations 0 to 0\n 1 : 2\n col 1 : locations 1 to 1\n 0 : 1e+00\n";
        let m = matrix(&format!("2 2 2 {csr}")).unwrap();
        assert_eq!(dense_rows(&m), vec![vec![0.0, 2.0], vec![1.0, 0.0]]);
        let tri = "1\nCSparse Version 3\ntriplet: 2-by-2, nzmax: 3 nnz: 3\n 0 0 : 1\n 1 0 : 2\n 1 0 : 0.5\n";
        let m = matrix(&format!("2 2 2 {tri}")).unwrap();
        assert_eq!(dense_rows(&m), vec![vec![1.0, 0.0], vec![2.5, 0.0]]);
        let e = matrix("2 2 2 2\nCSparse Version 3\n2-by-2, nzmax: 1000 nnz: 1000\n").unwrap_err();
        assert!(e.to_string().contains("nnz = 1000 needs"), "{e}");
        let e = matrix(&format!("2 2 2 {}", tri.replace("1 0 : 2", "2 0 : 2"))).unwrap_err();
        assert!(e.to_string().contains("index 2 out of range"), "{e}");
        let e = matrix("2 2 2 4\n").unwrap_err();
        assert!(e.to_string().contains("unknown origin 4"), "{e}");
        let e = matrix("2 2 2 2\nversion\n").unwrap_err();
        assert!(e.to_string().contains("expected a line 'CSparse Version"), "{e}");
    }

    #[test]
    fn lcp_reader_checks_n_against_the_matrix() {
        let p = parse("1 0 1 1 1 1 3.5 -2 trailing").unwrap();
        assert_eq!((p.n(), p.m().get(0, 0), p.q()), (1, 3.5, &[-2.0][..]));
        let e = parse("2 0 1 1 1 1 3.5 -2 -1").unwrap_err();
        assert_eq!(e.to_string(), "x.dat: token 3 (M size0): M is 1x1 but n = 2 (token 1)");
        let e = parse("1 7 1 1 1 1 3.5 -2").unwrap_err();
        assert!(e.to_string().starts_with("x.dat: token 2 (M storage): unknown storage 7"), "{e}");
    }
}
