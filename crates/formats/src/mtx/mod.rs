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
//!
//! # Layout
//!
//! This file holds the problem level (the kind, the companion files, [`read_problem`]);
//! `parse` reads MatrixMarket text, `write` writes it.

use crate::tokens::{shorten, Tokens};
use crate::Problem;
use perp_cones::{FrictionContactProblem, MAX_DIM};
use perp_core::{Error, Matrix};
use perp_lcp::Lcp;
use perp_ncp::mlcp::Mlcp;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

mod parse;
pub use parse::*;
mod write;
pub use write::*;

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
    let (q_file, free_file) = (companion(path, "q"), companion(path, "free"));
    let (header, _) = split_header(texts.matrix, path)?;
    let kind = problem_kind(header.kind.as_deref(), texts, path)?;
    let q_text = texts.q.ok_or_else(|| missing(&q_file, "the vector q", path))?;
    let q = parse_vector(q_text, &q_file, "q", None)?;
    let n = q.len();
    let (_, block) = parse_block(texts.matrix, path, "M", Some((n, n)))?;
    let m = block_to_matrix(block)?;
    match kind {
        Kind::Lcp => Lcp::new(m, q).map(Problem::Lcp).map_err(|e| wrap(path, e)),
        Kind::Mlcp => {
            let free_text = texts.free.ok_or_else(|| missing(&free_file, "the row kinds (free)", path))?;
            let free = parse_free(free_text, &free_file, n)?;
            Mlcp::new(m, q, free).map(Problem::Mlcp).map_err(|e| wrap(path, e))
        }
        Kind::Friction(d) => friction_problem(texts, path, d, m, q),
    }
}

/// The problem kind: the matrix file's `%perp kind=` tag (`tag`) when it has one, else the
/// one the companion files present say (`Kind::Friction(0)`: dimension from the sizes).
fn problem_kind(tag: Option<&str>, texts: MtxTexts<'_>, path: &Path) -> Result<Kind, Error> {
    Ok(match tag {
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
                        companion(path, "mu").display(),
                        companion(path, "free").display()
                    ),
                ))
            }
            (true, false) => Kind::Friction(0),
            (false, true) => Kind::Mlcp,
            (false, false) => Kind::Lcp,
        },
    })
}

/// The error of a missing companion `file` holding `what` of the problem of `path`.
fn missing(file: &Path, what: &str, path: &Path) -> Error {
    Error::Io {
        file: file.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{what} of {} is missing", path.display()),
        ),
    }
}

/// The frictional contact problem of W = `m` and `q` with the coefficients of `foo_mu.mtx`;
/// its contact dimension is `d`, or, for `d = 0`, n over the number of coefficients.
fn friction_problem(
    texts: MtxTexts<'_>,
    path: &Path,
    d: usize,
    m: Matrix,
    q: Vec<f64>,
) -> Result<Problem, Error> {
    let (q_file, mu_file) = (companion(path, "q"), companion(path, "mu"));
    let n = q.len();
    let mu_text = texts.mu.ok_or_else(|| missing(&mu_file, "the friction coefficients mu", path))?;
    let mu = if d > 0 {
        if !n.is_multiple_of(d) {
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
    } else if nc > 0 && n.is_multiple_of(nc) && (2..=MAX_DIM).contains(&(n / nc)) {
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
