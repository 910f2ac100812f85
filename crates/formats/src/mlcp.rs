//! Reader of Siconos numerics MLCP files (`.dat`, `design/SUITES.md`) and kind detection.
//!
//! Token layout (whitespace-separated, read `fscanf` style; after the last expected value, a
//! reference solution of at most n + 2m numbers (u, v, w), which several of Siconos' files
//! keep there — those of the suite hold n + 2m − 1 —, then only a comment that does not start
//! with a number: more numbers are an error saying the file holds more data than it declares):
//!
//! ```text
//! st1 st2 n m                     storage flags (0 or 1, at least one set) and the sizes
//! if st1:
//!   r₀ r₁ … r_k                   block rows: cumulative row starts, read until a value ≥ n+m
//!                                 (here: r₀ = 0, strictly increasing, r_k = n+m exactly)
//!   t₀ … t_{k−1}                  one flag per block: 0 = equality rows, 1 = complementarity
//!   M                             a NumericsMatrix block, (n+m)×(n+m), any storage
//!   q                             n+m values
//! if st2:
//!   A (n×n) B (m×m) C (n×m) D (m×n), each **row-major**, then a (n), b (m)
//!   meaning Au + Cv + a = 0,  w = Du + Bv + b,  0 ≤ v ⊥ w ≥ 0
//! ```
//!
//! **Both flags set** (every file of the Siconos suite): the file holds the problem twice;
//! as in Siconos (`mixedLinearComplementarity_newFromFile` reads both, `mlcp_compute_error`
//! uses M and q whenever storage 1 is present) the M/q form defines the problem. The A…b part
//! is still read and checked (sizes, numbers) so that a truncated file is reported, but its
//! values are not used. With st2 alone, M = [[A, C], [D, B]], q = (a, b) and the first n rows
//! are equalities.
//!
//! As for the LCP reader, every size is checked against the tokens left before anything is
//! allocated, and every error names the file, the token position and the field; no input
//! makes the reader panic.

use crate::read_numerics_matrix;
use crate::tokens::Tokens;
use perp_core::{Error, Matrix};
use perp_ncp::mlcp::Mlcp;
use std::path::Path;

/// Reads an MLCP file (see the [module docs](self)).
///
/// Errors: [`Error::Io`] if the file cannot be read, [`Error::Parse`] (file, token position,
/// field) if its content is wrong.
///
/// ```no_run
/// let p = perp_formats::read_mlcp(std::path::Path::new("suites/siconos/mlcp/m2n1_mlcp.dat")).unwrap();
/// assert_eq!((p.n(), p.n_free()), (3, 1));
/// ```
pub fn read_mlcp(path: &Path) -> Result<Mlcp, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { file: path.to_path_buf(), source })?;
    parse_mlcp(&String::from_utf8_lossy(&bytes), path)
}

/// Parses the text of an MLCP file (see [`read_mlcp`]); `file` names it in error messages.
///
/// ```
/// use std::path::Path;
/// // st1 = 1, st2 = 0, n = 1, m = 1; blocks [0, 1) equality, [1, 2) complementarity;
/// // dense M = [[1, -1], [1, 1]] by columns; q = (0, -2).
/// let text = "1 0 1 1\n0 1 2\n0 1\n0 2 2 2 2\n1 1\n-1 1\n0 -2";
/// let p = perp_formats::parse_mlcp(text, Path::new("tiny.dat")).unwrap();
/// assert_eq!(p.free(), &[true, false]);
/// assert_eq!((p.m().get(0, 1), p.q()[1]), (-1.0, -2.0));
/// let e = perp_formats::parse_mlcp("1 0 1 1\n0 1 3", Path::new("bad.dat")).unwrap_err();
/// assert_eq!(e.to_string(), "bad.dat: token 7 (block rows[2]): block row 3 exceeds n + m = 2 (line 2)");
/// ```
pub fn parse_mlcp(text: &str, file: &Path) -> Result<Mlcp, Error> {
    let mut ts = Tokens::new(text, file);
    let st1 = read_flag(&mut ts, "st1 (M/q storage flag)")?;
    let st2 = read_flag(&mut ts, "st2 (A,B,C,D storage flag)")?;
    if !st1 && !st2 {
        return Err(
            ts.error("st2 (A,B,C,D storage flag)", "neither storage flag is set: the file holds no problem")
        );
    }
    let n = ts.read_usize("n")?;
    let n_pos = ts.last_position();
    let m = ts.read_usize("m")?;
    let size = n.checked_add(m).ok_or_else(|| ts.error("m", format!("n + m = {n} + {m} overflows")))?;
    // q (or a and b) alone needs n + m more tokens: refuse absurd sizes before reading on.
    ts.check_available(size, format_args!("n + m = {size}"))?;

    let mut from_m_q = None;
    if st1 {
        let free = read_blocks(&mut ts, size)?;
        let m_pos = ts.position();
        let mm = read_numerics_matrix(&mut ts, "M")?;
        if mm.nrows() != size || mm.ncols() != size {
            return Err(ts.error_at(
                m_pos + 1,
                "M size0",
                format!("M is {}x{} but n + m = {size} (n at token {n_pos})", mm.nrows(), mm.ncols()),
            ));
        }
        let q = ts.read_vector(size, "q")?;
        from_m_q = Some((mm, q, free));
    }
    let from_abcd = if st2 { Some(read_abcd(&mut ts, n, m)?) } else { None };
    // The reference solution some files keep after the data, then the end.
    let solution = n.saturating_add(m.saturating_mul(2));
    let mut kept = 0;
    while kept < solution && ts.next_is_number() {
        ts.next_token();
        kept += 1;
    }
    let parts = match (st1, st2) {
        (true, true) => "block rows, M, q, then A, B, C, D, a, b",
        (true, false) => "block rows, M and q",
        _ => "A, B, C, D, a and b",
    };
    ts.expect_end(format_args!(
        "n = {n}, m = {m}: {parts} for n + m = {size}, and a reference solution of at most n + 2m = {solution} values"
    ))?;
    match from_m_q.or(from_abcd) {
        Some((mm, q, free)) => Mlcp::new(mm, q, free),
        None => Err(ts.error_at(1, "st1 (M/q storage flag)", "neither storage flag is set")),
    }
}

/// A storage flag: 0 or 1.
fn read_flag(ts: &mut Tokens, field: &str) -> Result<bool, Error> {
    match ts.read_i64(field)? {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(ts.error(field, format!("expected 0 or 1, found {v}"))),
    }
}

/// The block rows and their kinds; returns `free[i]` for the `size` rows.
fn read_blocks(ts: &mut Tokens, size: usize) -> Result<Vec<bool>, Error> {
    // Strictly increasing from 0 to `size`: at most size + 1 values, so this never grows
    // beyond what the (already checked) size allows.
    let mut rows: Vec<usize> = Vec::new();
    loop {
        let k = rows.len();
        let field = format!("block rows[{k}]");
        let v = ts.read_i64(&field)?;
        let r = usize::try_from(v)
            .map_err(|_| ts.error(&field, format!("block row must be non-negative, found {v}")))?;
        if k == 0 && r != 0 {
            return Err(ts.error(&field, format!("the first block must start at row 0, found {r}")));
        }
        if let Some(&prev) = rows.last() {
            if r <= prev {
                return Err(ts.error(&field, format!("block rows must increase: {r} after {prev}")));
            }
        }
        if r > size {
            return Err(ts.error(&field, format!("block row {r} exceeds n + m = {size}")));
        }
        rows.push(r);
        if r >= size {
            break;
        }
    }
    let blocks = rows.len() - 1;
    ts.check_available(blocks, format_args!("block kinds (length {blocks})"))?;
    let mut free = vec![false; size];
    for b in 0..blocks {
        let field = format!("block kinds[{b}]");
        let is_comp = match ts.read_i64(&field)? {
            0 => false,
            1 => true,
            v => {
                return Err(
                    ts.error(&field, format!("expected 0 (equality) or 1 (complementarity), found {v}"))
                )
            }
        };
        for f in &mut free[rows[b]..rows[b + 1]] {
            *f = !is_comp;
        }
    }
    Ok(free)
}

/// A block of the A, B, C, D form: its name, its size and where it starts in M.
struct Block {
    name: &'static str,
    rows: usize,
    cols: usize,
    /// Row and column of its first entry in M.
    at: (usize, usize),
}

/// Reads `block`'s values in row-major order named `name[i,j]` into the row-major `dst` with
/// row length `ld`.
fn read_block_row_major(ts: &mut Tokens, block: &Block, dst: &mut [f64], ld: usize) -> Result<(), Error> {
    let Block { name, rows, cols, at: (r0, c0) } = *block;
    for i in 0..rows {
        for j in 0..cols {
            dst[(r0 + i) * ld + c0 + j] = ts.read_f64(format_args!("{name}[{i},{j}]"))?;
        }
    }
    Ok(())
}

/// The A, B, C, D, a, b form: M = [[A, C], [D, B]], q = (a, b), the first n rows free.
fn read_abcd(ts: &mut Tokens, n: usize, m: usize) -> Result<(Matrix, Vec<f64>, Vec<bool>), Error> {
    let size = n + m;
    // A, B, C, D fill (n+m)² values, a and b n+m more.
    let count = size
        .checked_mul(size)
        .and_then(|s| s.checked_add(size))
        .ok_or_else(|| ts.error("A,B,C,D", format!("(n + m)² = {size}² overflows the address space")))?;
    if count > ts.remaining() {
        return Err(ts.error_at(
            ts.position(),
            format_args!("A,B,C,D,a,b (n = {n}, m = {m})"),
            format!(
                "needs {count} more values but only {} tokens are left in the file (line {})",
                ts.remaining(),
                ts.next_line()
            ),
        ));
    }
    let mut data = vec![0.0; size * size];
    for block in [
        Block { name: "A", rows: n, cols: n, at: (0, 0) },
        Block { name: "B", rows: m, cols: m, at: (n, n) },
        Block { name: "C", rows: n, cols: m, at: (0, n) },
        Block { name: "D", rows: m, cols: n, at: (n, 0) },
    ] {
        read_block_row_major(ts, &block, &mut data, size)?;
    }
    let mut q = ts.read_vector(n, "a")?;
    q.extend(ts.read_vector(m, "b")?);
    let mm = Matrix::from_row_major(size, size, &data)?;
    let free = (0..size).map(|i| i < n).collect();
    Ok((mm, q, free))
}

/// The problem enum and its kinds are the catalogue's (`perp_catalogue::Problem`): the readers
/// return [`Problem::Lcp`], [`Problem::Mlcp`] or [`Problem::Friction`] (global files reduced
/// to the local form).
pub use perp_catalogue::{Problem, ProblemKind};

/// Reads a problem file of the given kind, or detects the kind when `kind` is `None`:
///
/// 1. an HDF5 file (by its signature, whatever the extension) is an FCLIB frictional problem;
///    a file name containing `mlcp` (any case) is read as an MLCP (Siconos names every MLCP
///    file `*_mlcp.dat`), reporting the MLCP reader's error if it fails;
/// 2. a text file that the frictional contact reader accepts (`d nc` with d ∈ {2, 3}, then a
///    matrix of size d·nc, q, μ — or the global layout) is a frictional problem; the error of
///    that reader is the one reported for a file whose name says `fc`/`friction`; else one
///    that the rolling reader accepts (d ∈ {3, 5}, μ_r after μ: [`crate::rolling`]) is a
///    rolling frictional problem (a 2-D rolling file of one contact whose μ_r is 0 or 1 reads
///    as a frictional file with its optional flag: the layouts coincide there);
/// 3. otherwise the LCP and MLCP readers are tried: if the MLCP reader accepts the text it is an MLCP
///    (its layout — two 0/1 flags, block rows from 0 to n+m, their kinds, an (n+m)-square M —
///    is far more specific than the LCP's: an MLCP file's first tokens often read as a small
///    nonsense LCP, which the LCP reader then refuses for the data left over, while no LCP
///    file of the suite parses as an MLCP); else it is read as an LCP, and if that fails too
///    the **LCP** error is returned — but the frictional reader's when that reader read a
///    whole problem and found more data than its header declares and the LCP reader did not.
///
/// ```
/// use perp_formats::{read_problem, Problem, ProblemKind};
/// let dir = std::env::temp_dir().join(format!("perp-read-problem-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("tiny.dat");
/// std::fs::write(&path, "1 0 1 1\n0 1 2\n0 1\n0 2 2 2 2\n1 1\n-1 1\n0 -2").unwrap();
/// assert!(matches!(read_problem(&path, None).unwrap(), Problem::Mlcp(_)));
/// assert!(read_problem(&path, Some(ProblemKind::Lcp)).is_err());
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn read_problem(path: &Path, kind: Option<ProblemKind>) -> Result<Problem, Error> {
    let named_mlcp =
        path.file_name().is_some_and(|f| f.to_string_lossy().to_ascii_lowercase().contains("mlcp"));
    let lower = path.file_name().map(|f| f.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let named_fc = lower.starts_with("fc") || lower.contains("friction") || lower.contains("_fc");
    match kind {
        Some(ProblemKind::Lcp) => crate::read_lcp(path).map(Problem::Lcp),
        Some(ProblemKind::Mlcp) => read_mlcp(path).map(Problem::Mlcp),
        Some(ProblemKind::Friction) => read_friction_or_rolling(path).map(Problem::Friction),
        // The global form as the file holds it (M, H, f, b), for the solvers of that form.
        Some(ProblemKind::GlobalFriction) => match crate::read_friction_file(path)? {
            crate::FrictionFile::Global(g) => Ok(Problem::GlobalFriction(g)),
            crate::FrictionFile::Local(_) => Err(Error::setting(
                "kind",
                "gfc",
                &format!(
                    "{} holds a local frictional problem (W, q), not a global one (M, H, f, b)",
                    path.display()
                ),
            )),
        },
        Some(k @ ProblemKind::Ncp) => Err(Error::setting(
            "kind",
            format!("{k:?}").to_lowercase(),
            &format!(
                "{}: no problem file holds this kind (read lcp, mlcp, friction or global friction)",
                path.display()
            ),
        )),
        None if named_mlcp => read_mlcp(path).map(Problem::Mlcp),
        None => {
            let bytes =
                std::fs::read(path).map_err(|source| Error::Io { file: path.to_path_buf(), source })?;
            if crate::fclib::is_hdf5(&bytes) {
                return read_friction_or_rolling(path).map(Problem::Friction);
            }
            let text = String::from_utf8_lossy(&bytes);
            let fc = crate::read_friction_contact(path);
            if let Ok(p) = fc {
                return Ok(Problem::Friction(p));
            }
            if let Ok(p) = crate::rolling::parse_rolling_friction_contact(&text, path) {
                return p.into_local().map(Problem::Friction);
            }
            match parse_mlcp(&text, path) {
                Ok(p) => Ok(Problem::Mlcp(p)),
                Err(_) => match crate::parse_lcp(&text, path) {
                    Ok(p) => Ok(Problem::Lcp(p)),
                    // A file that holds a whole frictional problem and more data than its header
                    // declares gets that reader's error, unless the LCP reader read it whole too.
                    Err(e) if !named_fc && (!is_surplus(fc.as_ref().err()) || is_surplus(Some(&e))) => Err(e),
                    Err(_) => fc.map(Problem::Friction),
                },
            }
        }
    }
}

/// A frictional contact file, or else a rolling one ([`crate::rolling`]); the frictional
/// reader's error when neither reads it, but the rolling reader's for an FCLIB file holding a
/// rolling problem (`/fclib_global_rolling`).
fn read_friction_or_rolling(path: &Path) -> Result<perp_cones::FrictionContactProblem, Error> {
    crate::read_friction_contact(path).or_else(|e| {
        let rolling_fclib = matches!(&e, Error::Parse { field, .. } if field == crate::fclib::ROLLING_GROUP);
        crate::read_rolling_friction_contact(path).map_err(|r| if rolling_fclib { r } else { e })
    })
}

/// Whether `e` is a reader's "more data than the header declares" ([`Tokens::expect_end`]).
///
/// [`Tokens::expect_end`]: crate::tokens::Tokens::expect_end
fn is_surplus(e: Option<&Error>) -> bool {
    matches!(e, Some(Error::Parse { field, .. }) if field == "end of data")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Mlcp, Error> {
        parse_mlcp(text, Path::new("t.dat"))
    }

    fn rows(m: &Matrix) -> Vec<Vec<f64>> {
        (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m.get(i, j)).collect()).collect()
    }

    /// m2n1_mlcp.dat in both storages (tokens as in the file, minus its trailing solution).
    const M2N1: &str = "1 1 1 2\n0 1 3\n0 1\n0 3 3 3 3\n1 0 0\n2 1 0\n0 1.3333 1\n-1 1 -3\n\
                        1\n1 1.3333\n0 1\n2 0\n0\n0\n-1\n1 -3";

    #[test]
    fn m_q_form_is_column_major_with_blocks() {
        let p = parse(M2N1).unwrap();
        assert_eq!(rows(p.m()), vec![vec![1.0, 2.0, 0.0], vec![0.0, 1.0, 1.3333], vec![0.0, 0.0, 1.0]]);
        assert_eq!(p.q(), &[-1.0, 1.0, -3.0]);
        assert_eq!(p.free(), &[true, false, false]);
    }

    #[test]
    fn abcd_form_is_row_major_and_agrees_with_m_q() {
        // The same file with st1 = 0: only the A, B, C, D, a, b part.
        let abcd = "0 1 1 2\n1\n1 1.3333\n0 1\n2 0\n0\n0\n-1\n1 -3";
        let p = parse(abcd).unwrap();
        let both = parse(M2N1).unwrap();
        assert_eq!(rows(p.m()), rows(both.m()));
        assert_eq!(p.q(), both.q());
        assert_eq!(p.free(), both.free());
    }

    #[test]
    fn bad_headers_and_blocks_are_named() {
        let e = parse("2 1 1 1").unwrap_err().to_string();
        assert_eq!(e, "t.dat: token 1 (st1 (M/q storage flag)): expected 0 or 1, found 2 (line 1)");
        let e = parse("0 0 1 1").unwrap_err().to_string();
        assert!(e.starts_with("t.dat: token 2 (st2 (A,B,C,D storage flag)): neither storage flag"), "{e}");
        let e = parse("1 0 1 1 0 1 1 2").unwrap_err().to_string();
        assert_eq!(e, "t.dat: token 7 (block rows[2]): block rows must increase: 1 after 1 (line 1)");
        let e = parse("1 0 1 1 1 2 0 0").unwrap_err().to_string();
        assert_eq!(
            e,
            "t.dat: token 5 (block rows[0]): the first block must start at row 0, found 1 (line 1)"
        );
        let e = parse("1 0 1 1 0 1 2 0 2 0 2 2 2 2 1 1 -1 1 0 -2").unwrap_err().to_string();
        assert_eq!(
            e,
            "t.dat: token 9 (block kinds[1]): expected 0 (equality) or 1 (complementarity), found 2 (line 1)"
        );
        let e = parse("1 0 99999999999 1 0").unwrap_err().to_string();
        assert!(
            e.starts_with("t.dat: token 4 (n + m = 100000000000): needs 100000000000 more values"),
            "{e}"
        );
        let e = parse("1 0 18446744073709551615 1").unwrap_err().to_string();
        assert!(e.contains("token 4 (m)") && e.contains("overflows"), "{e}");
    }

    #[test]
    fn wrong_matrix_size_and_truncated_abcd() {
        // M 3x2 (as in Rectangular_mlcp.dat) with n + m = 2.
        let e = parse("1 0 1 1 0 1 2 0 1 0 3 2 3 2 1 -1 1 -1 -1 1 0 1").unwrap_err().to_string();
        assert_eq!(e, "t.dat: token 11 (M size0): M is 3x2 but n + m = 2 (n at token 3)");
        let e = parse("0 1 1 2 1 1 1.3333 0 1 2 0 0").unwrap_err().to_string();
        assert!(
            e.starts_with("t.dat: token 5 (A,B,C,D,a,b (n = 1, m = 2)): needs 12 more values but only 8"),
            "{e}"
        );
        let e = parse("0 1 1 1 1 x 1 1 0 0").unwrap_err().to_string();
        assert_eq!(e, "t.dat: token 6 (B[0,0]): expected a number, found 'x' (line 1)");
    }

    #[test]
    fn no_truncation_or_corruption_panics() {
        let full = parse(M2N1).unwrap();
        assert_eq!(full.n(), 3);
        let bounds: Vec<usize> =
            M2N1.char_indices().filter(|(_, c)| c.is_whitespace()).map(|(i, _)| i).collect();
        for &cut in &bounds {
            let e = parse(&M2N1[..cut]).unwrap_err();
            assert!(e.to_string().starts_with("t.dat: token "), "{e}");
        }
        let toks: Vec<&str> = M2N1.split_whitespace().collect();
        for k in 0..toks.len() {
            for junk in ["-1", "0", "1", "2", "7", "x", "nan", "1e300", "99999999999", "9223372036854775807"]
            {
                let mut t = toks.clone();
                t[k] = junk;
                let _ = parse(&t.join(" "));
            }
        }
    }
}
