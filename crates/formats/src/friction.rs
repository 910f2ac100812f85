//! Readers of Siconos frictional contact problem files (`.dat`), local and global, and the
//! contract entry point [`read_friction_contact`] that also reads FCLIB HDF5 files.
//!
//! Token layout (whitespace-separated, read `fscanf` style), as Siconos'
//! `frictionContact_printInFile` and `globalFrictionContact_printInFile` write them
//! (`design/SUITES.md`):
//!
//! ```text
//! local:   d nc   W (NumericsMatrix, d·nc square)   q (d·nc)   μ (nc)   [flag]
//! global:  d nc   M (NumericsMatrix, n_dof square)  H (NumericsMatrix, n_dof × d·nc)
//!          q (n_dof, the free impulse f)   b (d·nc)   μ (nc)   [flag]
//! ```
//!
//! `flag` is the optional `isComplete` integer (0 or 1) that older Siconos versions print
//! last. After it only a comment that does not start with a number may follow: a further
//! number means the file holds more data than `d` and `nc` declare (a W larger than d·nc
//! square, say), and is an error naming the file, the token, its line and what was declared
//! ([`Tokens::expect_end`]) rather than a problem read from the first values.
//!
//! The file does not say which form it holds. The first matrix decides: when it is not
//! `d·nc` square the file is global (and a matrix H of `n_dof` rows and `d·nc` columns must
//! follow); when it is `d·nc` square the file is local, unless the next three tokens are
//! exactly the header of such an H (a storage integer 0–2 and the two sizes) **and** the rest
//! reads as a global problem — q values are printed with `%32.24e`, so a local file never
//! holds such integers in practice. Once such an H has been read the file is global (and any
//! later fault is reported as such); a hand-written local file whose q happens to look like
//! an H header still reads as local because reading that H fails on a value — but not when
//! the text ends early: a truncated global file is reported, never read as a local one.
//!
//! Every size is checked against the tokens left before anything is allocated; every error
//! is an [`Error::Parse`] naming the file, the 1-based token position and the field (`W[3,4]`,
//! `q[7]`, `mu[2]`, …). A negative friction coefficient is an error naming `mu[i]`.

use crate::fclib;
pub use crate::friction_file::FrictionFile;
use crate::read_numerics_matrix;
use crate::tokens::{shorten, Tokens};
use perp_cones::global::GlobalFrictionContactProblem;
use perp_cones::{FrictionContactProblem, MAX_DIM};
use perp_core::{Error, Matrix};
use std::path::Path;

/// Reads a frictional contact problem in the local form from a Siconos `.dat` file or an
/// FCLIB HDF5 file (see [`read_friction_file`]); a global problem is reduced to local form
/// (`W = Hᵀ M⁻¹ H`, `q = Hᵀ M⁻¹ f + b`). This is the contract reader of
/// `design/ARCHITECTURE.md`.
///
/// Errors: [`Error::Io`] when the file cannot be read, [`Error::Parse`] /
/// [`Error::DimensionMismatch`] naming the file and the field or dataset when its content is
/// wrong, [`Error::Requirement`] naming the file when the mass matrix of a global problem
/// cannot be factored.
///
/// ```no_run
/// let p = perp_formats::friction::read_friction_contact(std::path::Path::new(
///     "suites/siconos/fc3d/Capsules-i125-1213.hdf5",
/// ))
/// .unwrap();
/// assert_eq!((p.dim, p.contacts()), (3, 286));
/// ```
pub fn read_friction_contact(path: &Path) -> Result<FrictionContactProblem, Error> {
    read_friction_file(path)?.into_local().map_err(|e| match e {
        Error::Requirement { solver, requirement, suggestion } => Error::Requirement {
            solver,
            requirement: format!("{requirement} (in {})", path.display()),
            suggestion,
        },
        other => other,
    })
}

/// Reads a frictional contact file as stored, local or global: Siconos `.dat` text, or FCLIB
/// HDF5 ([`fclib::read_fclib`]). The content decides, not the extension: a file that starts
/// with the HDF5 signature `\x89HDF\r\n\x1a\n` (at offset 0, 512, 1024, …) is read as HDF5,
/// any other as text — so `BoxesStack1-i100000-32.hdf5.dat` (text) and an HDF5 file named
/// `.dat` both read.
///
/// Errors as for [`read_friction_contact`]; a file named `.hdf5`/`.h5` that is neither HDF5 nor
/// a valid text file gets an error saying so.
pub fn read_friction_file(path: &Path) -> Result<FrictionFile, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { file: path.to_path_buf(), source })?;
    if fclib::is_hdf5(&bytes) {
        return fclib::parse_fclib(bytes, path).map(|(f, _)| f);
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    match parse_friction_contact(&String::from_utf8_lossy(&bytes), path) {
        Ok(f) => Ok(f),
        Err(e) if matches!(ext.as_str(), "hdf5" | "h5" | "he5" | "hdf") => Err(Error::Parse {
            file: path.to_path_buf(),
            position: 1,
            field: "HDF5 signature".into(),
            message: format!(
                "the name says HDF5 (.{ext}) but the file does not start with the HDF5 signature \
                 \\x89HDF; read as a Siconos text file it fails too: {e}"
            ),
        }),
        Err(e) => Err(e),
    }
}

/// Parses the text of a Siconos frictional contact file, local or global (see the [module
/// docs](self)); `file` names it in error messages.
///
/// ```
/// use perp_formats::friction::{parse_friction_contact, FrictionFile};
/// use std::path::Path;
/// // d = 2, one contact, dense W = [[2, 0], [0, 1]] by columns, q = (-1, 0.5), μ = 0.3.
/// let text = "2 1\n0 2 2 2 2\n2 0\n0 1\n-1 0.5\n0.3\n";
/// let FrictionFile::Local(p) = parse_friction_contact(text, Path::new("one.dat")).unwrap() else {
///     panic!("local")
/// };
/// assert_eq!((p.w.get(0, 0), p.q[1], p.mu[0]), (2.0, 0.5, 0.3));
/// let e = parse_friction_contact(&text.replace("0.3", "-0.3"), Path::new("one.dat")).unwrap_err();
/// assert_eq!(e.to_string(), "one.dat: token 14 (mu[0]): friction coefficient must be ≥ 0, found -0.3");
/// ```
pub fn parse_friction_contact(text: &str, file: &Path) -> Result<FrictionFile, Error> {
    parse_friction_text(text, file, false).map(|(f, _)| f)
}

/// The reader of [`parse_friction_contact`], and with `rolling` of a Siconos rolling
/// frictional contact file (`crate::rolling`): then d must be 3 or 5, μ_r (nc values) follows
/// μ and no flag may follow μ_r (Siconos' `rollingFrictionContact_printInFile` writes none).
/// Returns the file's problem (a local rolling problem has its rolling laws) and, when
/// `rolling`, μ_r.
pub(crate) fn parse_friction_text(
    text: &str,
    file: &Path,
    rolling: bool,
) -> Result<(FrictionFile, Option<Vec<f64>>), Error> {
    let mut ts = Tokens::new(text, file);
    let d = ts.read_usize("d (contact dimension)")?;
    if rolling && d != 3 && d != 5 {
        return Err(ts.error(
            "d (contact dimension)",
            format!("a rolling friction contact has dimension 3 (2-D) or 5 (3-D), found {d}"),
        ));
    }
    if !(2..=MAX_DIM).contains(&d) {
        return Err(ts.error(
            "d (contact dimension)",
            format!("the contact dimension must be 2 or 3 (at most {MAX_DIM}), found {d}"),
        ));
    }
    let nc = ts.read_usize("nc (number of contacts)")?;
    let size = d
        .checked_mul(nc)
        .ok_or_else(|| ts.error("nc (number of contacts)", format!("d·nc = {d}·{nc} overflows")))?;
    // q and μ alone need d·nc + nc more tokens: refuse an absurd nc before reading on.
    let need = size
        .checked_add(if rolling { 2 * nc } else { nc })
        .ok_or_else(|| ts.error("nc (number of contacts)", format!("nc = {nc} overflows")))?;
    ts.check_available(need, format_args!("nc = {nc}"))?;
    let total = ts.remaining() + ts.last_position();

    let local_shape = peek_header(&ts).is_none_or(|(_, s0, s1)| s0 == size && s1 == size);
    if !local_shape {
        return parse_global_rest(&mut ts, d, nc, rolling).map(|(g, r)| (FrictionFile::Global(g), r));
    }
    let w = read_numerics_matrix(&mut ts, "W")?;
    if header_is(&ts, w.nrows(), size) {
        // Ambiguous (n_dof = d·nc): global when an H reads, local when the supposed H header
        // is really q and the H reading fails on a value.
        let mut gts = ts.clone();
        match read_numerics_matrix(&mut gts, "H") {
            Ok(h) => {
                return parse_global_vectors(&mut gts, d, nc, w, h, rolling)
                    .map(|(g, r)| (FrictionFile::Global(g), r))
            }
            // A global file cut short must not pass for a local one.
            Err(e) if ran_out(&e, total) => return Err(e),
            Err(e) => {
                return parse_local_rest(&mut ts, d, nc, w, rolling)
                    .map(|(p, r)| (FrictionFile::Local(p), r))
                    .map_err(|_| e)
            }
        }
    }
    parse_local_rest(&mut ts, d, nc, w, rolling).map(|(p, r)| (FrictionFile::Local(p), r))
}

/// Whether `e` says the text ended before the value being read (`total` tokens in all).
fn ran_out(e: &Error, total: usize) -> bool {
    match e {
        Error::Parse { position, message, .. } => {
            *position > total || message.contains("left in the file") || message.contains("ends early")
        }
        _ => false,
    }
}

/// The next NumericsMatrix header `(storage, size0, size1)` when the next three tokens are
/// plain integers with a known storage.
fn peek_header(ts: &Tokens) -> Option<(i64, usize, usize)> {
    let mut p = ts.clone();
    let storage = p.next_token()?.parse::<i64>().ok()?;
    let s0 = p.next_token()?.parse::<usize>().ok()?;
    let s1 = p.next_token()?.parse::<usize>().ok()?;
    (0..=2).contains(&storage).then_some((storage, s0, s1))
}

/// Whether the next tokens are the header of an `rows × cols` matrix.
fn header_is(ts: &Tokens, rows: usize, cols: usize) -> bool {
    peek_header(ts).is_some_and(|(_, s0, s1)| s0 == rows && s1 == cols)
}

/// After W: q (d·nc), μ (nc) and, when `rolling`, μ_r (nc).
fn parse_local_rest(
    ts: &mut Tokens,
    d: usize,
    nc: usize,
    w: Matrix,
    rolling: bool,
) -> Result<(FrictionContactProblem, Option<Vec<f64>>), Error> {
    let size = d * nc;
    let q = ts.read_vector(size, "q")?;
    let mu = read_mu(ts, nc, "mu")?;
    let mu_r = if rolling { Some(read_mu(ts, nc, "mu_r")?) } else { None };
    end_of_data(
        ts,
        format_args!("d = {d}, nc = {nc}: W ({size}x{size}), q (length {size}), mu (length {nc})"),
        rolling,
    )?;
    match mu_r {
        Some(mr) => FrictionContactProblem::rolling(d, w, q, mu, mr.clone()).map(|p| (p, Some(mr))),
        None => FrictionContactProblem::new(d, w, q, mu).map(|p| (p, None)),
    }
}

/// From the first matrix on: M, H, q (= f), b, μ.
fn parse_global_rest(
    ts: &mut Tokens,
    d: usize,
    nc: usize,
    rolling: bool,
) -> Result<(GlobalFrictionContactProblem, Option<Vec<f64>>), Error> {
    let size = d * nc;
    let m_pos = ts.position();
    let m = read_numerics_matrix(ts, "M")?;
    let n = m.nrows();
    if m.ncols() != n {
        return Err(ts.error_at(
            m_pos + 1,
            "M size0",
            format!(
                "the first matrix is {n}x{}: it must be W, {size}x{size} (d·nc = {d}·{nc}), for a local \
                 problem or a square mass matrix M for a global one",
                m.ncols()
            ),
        ));
    }
    if !header_is(ts, n, size) {
        let found =
            ts.peek().map_or_else(|| "the end of the file".to_string(), |t| format!("'{}'", shorten(t)));
        return Err(ts.error_at(
            m_pos + 1,
            "W size0",
            format!(
                "W is {n}x{n} but d·nc = {d}·{nc} = {size}; nor is it the mass matrix M of a global \
                 problem: no matrix H ({n}x{size}) follows at token {} (found {found})",
                ts.position()
            ),
        ));
    }
    let h = read_numerics_matrix(ts, "H")?;
    parse_global_vectors(ts, d, nc, m, h, rolling)
}

/// After M and H: q (= f, n_dof values), b (d·nc), μ (nc), and μ_r (nc) when `rolling`.
fn parse_global_vectors(
    ts: &mut Tokens,
    d: usize,
    nc: usize,
    m: Matrix,
    h: Matrix,
    rolling: bool,
) -> Result<(GlobalFrictionContactProblem, Option<Vec<f64>>), Error> {
    let (n, size) = (m.nrows(), d * nc);
    let need = n.saturating_add(size).saturating_add(if rolling { 2 * nc } else { nc });
    ts.check_available(need, format_args!("H ({n}x{size})"))?;
    let f = ts.read_vector(n, "q")?;
    let b = ts.read_vector(size, "b")?;
    let mu = read_mu(ts, nc, "mu")?;
    let mu_r = if rolling { Some(read_mu(ts, nc, "mu_r")?) } else { None };
    end_of_data(
        ts,
        format_args!(
            "d = {d}, nc = {nc}, n_dof = {n}: M ({n}x{n}), H ({n}x{size}), q (length {n}), b (length {size}), \
             mu (length {nc})"
        ),
        rolling,
    )?;
    GlobalFrictionContactProblem::new(d, m, h, f, b, mu).map(|g| (g, mu_r))
}

/// After μ: the optional `isComplete` flag (0 or 1), then the end of the data
/// ([`Tokens::expect_end`]; `declared` lists what the header declared). A rolling file
/// (`rolling`) ends after μ_r, with no flag.
fn end_of_data(ts: &mut Tokens, declared: std::fmt::Arguments<'_>, rolling: bool) -> Result<(), Error> {
    if rolling {
        return ts.expect_end(format_args!("{declared}, mu_r (as long as mu)"));
    }
    if matches!(ts.peek(), Some("0" | "1")) {
        ts.next_token();
    }
    ts.expect_end(format_args!("{declared} and an optional flag 0 or 1"))
}

/// μ or μ_r (`name`, nc values), each ≥ 0; a negative one is named with its token position.
fn read_mu(ts: &mut Tokens, nc: usize, name: &str) -> Result<Vec<f64>, Error> {
    let mu_pos = ts.position();
    let mu = ts.read_vector(nc, name)?;
    if let Some(i) = mu.iter().position(|&m| m < 0.0) {
        let what = if name == "mu" { "friction coefficient" } else { "rolling friction coefficient" };
        return Err(ts.error_at(
            mu_pos + i,
            format_args!("{name}[{i}]"),
            format!("{what} must be ≥ 0, found {}", mu[i]),
        ));
    }
    Ok(mu)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<FrictionFile, Error> {
        parse_friction_contact(text, Path::new("fc.dat"))
    }

    /// A global file: d = 2, nc = 1, n_dof = 3; M dense diag(2, 2, 4), H dense 3x2
    /// [[1, 0], [0, 1], [1, 1]] (by columns), q = f = (1, 0, -2), b = (0.5, 0), μ = 0.3.
    const GLOBAL: &str =
        "2\n1\n0 3 3 3 3\n2 0 0\n0 2 0\n0 0 4\n0 3 2 3 2\n1 0 1\n0 1 1\n1 0 -2\n0.5 0\n0.3\n";

    #[test]
    fn local_and_global_are_told_apart() {
        let FrictionFile::Global(g) = parse(GLOBAL).unwrap() else { panic!("global expected") };
        assert_eq!((g.dim, g.dofs(), g.size(), g.contacts()), (2, 3, 2, 1));
        assert_eq!((g.m.get(2, 2), g.h.get(2, 1), g.f[2], g.b[0], g.mu[0]), (4.0, 1.0, -2.0, 0.5, 0.3));
        let p = parse(GLOBAL).unwrap().into_local().unwrap();
        // W = Hᵀ M⁻¹ H = [[3/4, 1/4], [1/4, 3/4]], q = Hᵀ M⁻¹ f + b = (1/2 − 1/2 + 1/2, −1/2).
        assert!((p.w.get(0, 0) - 0.75).abs() < 1e-15 && (p.w.get(0, 1) - 0.25).abs() < 1e-15);
        assert!((p.q[0] - 0.5).abs() < 1e-15 && (p.q[1] + 0.5).abs() < 1e-15, "{:?}", p.q);

        // Local with trailing text.
        let f = parse("2 1 0 2 2 2 2 2 0 0 1 -1 0.5 0.3 reference solution: 1 2").unwrap();
        assert!(!f.is_global());
        assert_eq!((f.dim(), f.contacts()), (2, 1));

        // Ambiguous: n_dof = d·nc = 2, q looks like an H header "0 2 2" but the rest is local
        // (a comment after μ, where H's sizes would be repeated).
        let FrictionFile::Local(p) = parse("2 1 0 2 2 2 2 2 0 0 1 0 2 2 # note").unwrap() else { panic!() };
        assert_eq!((p.q.clone(), p.mu.clone()), (vec![0.0, 2.0], vec![2.0]));
        // With a number there instead it is neither: a local problem with more data than it
        // declares, or a global one whose H is not one.
        assert!(parse("2 1 0 2 2 2 2 2 0 0 1 0 2 2 0.3").is_err());
        // Ambiguous the other way: a global problem with n_dof = d·nc.
        let g = "2 1 0 2 2 2 2 2 0 0 2  0 2 2 2 2 1 0 0 1  1 1  0 0  0.1";
        let FrictionFile::Global(g) = parse(g).unwrap() else { panic!("global expected") };
        assert_eq!((g.dofs(), g.f.clone(), g.mu.clone()), (2, vec![1.0, 1.0], vec![0.1]));
    }

    #[test]
    fn errors_name_the_field_and_the_position() {
        let e = parse("3 1 0 2 2 2 2 1 0 0 1 -1 0.5 0.3").unwrap_err();
        assert!(e.to_string().contains("W is 2x2 but d·nc = 3·1 = 3"), "{e}");
        assert!(e.to_string().starts_with("fc.dat: token 4 (W size0)"), "{e}");
        let e = parse("2 1 0 2 3 2 3 1 1 1 1 1 1 0 0 0").unwrap_err();
        assert!(e.to_string().contains("the first matrix is 2x3"), "{e}");
        let e = parse("7 1 0").unwrap_err();
        assert!(e.to_string().contains("must be 2 or 3"), "{e}");
        let e = parse("3 1000000 0 3 3").unwrap_err();
        assert!(e.to_string().contains("needs 4000000 more values"), "{e}");
        // H with the wrong number of columns is caught as "no H follows".
        let e = parse(&GLOBAL.replace("0 3 2 3 2", "0 3 3 3 3")).unwrap_err();
        assert!(e.to_string().contains("no matrix H (3x2) follows"), "{e}");
        // Negative μ in a global file names mu[0] and its token.
        let e = parse(&GLOBAL.replace("0.3", "-0.3")).unwrap_err();
        assert!(
            e.to_string().starts_with("fc.dat: token 33 (mu[0]): friction coefficient must be ≥ 0"),
            "{e}"
        );
    }

    #[test]
    fn every_truncation_is_an_error_naming_the_file() {
        for text in [GLOBAL, "2 1 0 2 2 2 2 2 0 0 1 -1 0.5 0.3"] {
            let tokens: Vec<&str> = text.split_whitespace().collect();
            for k in 0..tokens.len() {
                let cut = tokens[..k].join(" ");
                let e = parse(&cut).expect_err(&format!("{k} tokens must not parse"));
                assert!(e.to_string().starts_with("fc.dat: token "), "{k}: {e}");
            }
        }
    }
}
