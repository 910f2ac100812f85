//! Conversions between problem formats (`perp convert IN OUT`): reading and writing any
//! supported format, chosen by the file's extension.
//!
//! | format | extensions | reads | writes |
//! |---|---|---|---|
//! | Siconos numerics text | `.dat` | LCP, MLCP, frictional contact local and global (reduced to local), any matrix storage | LCP, MLCP, frictional contact (local); dense matrices in dense storage, sparse ones in CSparse compressed-column text |
//! | FCLIB HDF5 | `.hdf5`, `.h5` | frictional contact, local and global, and global rolling frictional contact (`/fclib_global_rolling`), reduced to local | frictional contact, `/fclib_local` with W in compressed rows (`nz = −2`); a global rolling problem by [`fclib_global_rolling_bytes`] (FCLIB has no local rolling layout) |
//! | MatrixMarket | `.mtx` | LCP, MLCP, frictional contact ([`crate::mtx`]: `foo.mtx` + `foo_q.mtx`, `foo_mu.mtx`, `foo_free.mtx`) | the same |
//! | JSON | `.json` | LCP (also box-constrained), MLCP, frictional contact ([`crate::json`]) | the same |
//!
//! Every writer prints values in the shortest decimal form that reads back to the same `f64`
//! (Rust's `{:?}`; binary `f64` in HDF5), so converting a problem and reading it back gives
//! the same matrices and vectors bit for bit. Storage is kept where the format can say it:
//! `.dat`, `.mtx` and `.json` keep a dense matrix dense and a sparse one sparse with its
//! pattern (explicit zeros included); FCLIB stores only sparse matrices, so a dense W comes
//! back sparse with the same values (its +0.0 entries not stored). What a format cannot hold is
//! an error, never dropped silently: FCLIB holds only frictional problems (and spacedim 2 or
//! 3), only JSON holds the bounds of a box-constrained LCP, and no format holds friction laws
//! other than Coulomb.
//!
//! Siconos' own files print values with `%g` or `%.24e`; files written here are read by the
//! readers of this crate ([`crate::read_problem`]) and follow the token layout of
//! `design/SUITES.md`, so Siconos' `*_newFromFile` functions read them too.
//!
//! ```
//! use perp_core::Matrix;
//! use perp_lcp::Lcp;
//! use perp_formats::{convert, Problem};
//! let dir = std::env::temp_dir().join(format!("perp-convert-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let p = Problem::Lcp(Lcp::new(Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap(), vec![-5.0, 0.1]).unwrap());
//! for name in ["p.dat", "p.mtx", "p.json"] {
//!     convert::write_any(&p, &dir.join(name)).unwrap();
//!     let Problem::Lcp(back) = convert::read_any(&dir.join(name)).unwrap() else { panic!() };
//!     assert_eq!((back.m().get(0, 1), back.q()), (1.0, &[-5.0, 0.1][..]));
//! }
//! assert!(convert::write_any(&p, &dir.join("p.hdf5")).unwrap_err().to_string().contains("frictional"));
//! assert!(convert::read_any(&dir.join("p.txt")).unwrap_err().to_string().contains("'.txt'"));
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

use crate::{json, mtx, read_problem, Problem, ProblemKind};
use hdf5_pure::FileBuilder;
use perp_cones::FrictionContactProblem;
use perp_core::{Error, Matrix};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A problem file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Siconos numerics text files (`.dat`).
    Siconos,
    /// FCLIB HDF5 (`.hdf5`, `.h5`).
    Fclib,
    /// MatrixMarket (`.mtx` plus vector files, [`crate::mtx`]).
    MatrixMarket,
    /// JSON ([`crate::json`]).
    Json,
}

impl Format {
    /// Every format, in the order `perp list` shows them.
    pub const ALL: [Format; 4] = [Format::Siconos, Format::Fclib, Format::MatrixMarket, Format::Json];

    /// The format's name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Siconos => "Siconos numerics text",
            Format::Fclib => "FCLIB HDF5",
            Format::MatrixMarket => "MatrixMarket",
            Format::Json => "JSON",
        }
    }

    /// The extensions that select it (lower case, without the dot).
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Format::Siconos => &["dat"],
            Format::Fclib => &["hdf5", "h5"],
            Format::MatrixMarket => &["mtx"],
            Format::Json => &["json"],
        }
    }

    /// What it reads, in words.
    pub fn reads(self) -> &'static str {
        match self {
            Format::Siconos => "LCP, MLCP, frictional contact local and global (global reduced to local), rolling frictional contact local and global (rfc3d/rfc2d); dense, SBM and CSparse storage",
            Format::Fclib => "frictional contact, local and global (global reduced to local), global rolling frictional contact (/fclib_global_rolling, reduced to local: rfc3d/rfc2d)",
            Format::MatrixMarket => "LCP, MLCP, frictional contact: foo.mtx (M or W) + foo_q.mtx (+ foo_mu.mtx, foo_free.mtx)",
            Format::Json => "LCP (and box-LCP), MLCP, frictional contact: one object, see perp_formats::json",
        }
    }

    /// What it writes, in words.
    pub fn writes(self) -> &'static str {
        match self {
            Format::Siconos => {
                "LCP, MLCP, frictional contact (local, Coulomb or rolling); dense or CSparse storage as the matrix is stored"
            }
            Format::Fclib => "frictional contact (local, spacedim 2 or 3), W in compressed rows",
            Format::MatrixMarket => "LCP, MLCP, frictional contact; sparse M as coordinate, dense M as array",
            Format::Json => "LCP (and box-LCP), MLCP, frictional contact",
        }
    }

    /// Whether it can hold a problem of this kind.
    pub fn holds(self, kind: ProblemKind) -> bool {
        self != Format::Fclib || kind == ProblemKind::Friction
    }

    /// The format chosen by the extension of `path` (case-insensitive); an unknown or missing
    /// extension is an error naming the file and the extension. `role` (`"input file"`,
    /// `"output file"`) names the file in the error.
    ///
    /// ```
    /// use perp_formats::convert::Format;
    /// use std::path::Path;
    /// assert_eq!(Format::from_path(Path::new("a/B.H5"), "input file").unwrap(), Format::Fclib);
    /// let e = Format::from_path(Path::new("p.csv"), "output file").unwrap_err();
    /// assert!(e.to_string().starts_with("invalid setting output file = p.csv: unknown extension '.csv'"));
    /// ```
    pub fn from_path(path: &Path, role: &str) -> Result<Format, Error> {
        let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        let known = || {
            Format::ALL
                .iter()
                .map(|f| {
                    let exts: Vec<String> = f.extensions().iter().map(|e| format!(".{e}")).collect();
                    format!("{} ({})", exts.join("/"), f.name())
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        match ext {
            Some(e) => {
                Format::ALL.into_iter().find(|f| f.extensions().contains(&e.as_str())).ok_or_else(|| {
                    Error::setting(
                        role,
                        path.display(),
                        &format!("unknown extension '.{e}': expected {}", known()),
                    )
                })
            }
            None => Err(Error::setting(role, path.display(), &format!("no extension: expected {}", known()))),
        }
    }
}

/// Reads a problem of any supported format, chosen by the extension (see the [module
/// docs](self)): `.dat` by [`read_problem`] (kind detected), `.hdf5`/`.h5` as FCLIB
/// frictional contact, `.mtx` by [`mtx::read_problem`], `.json` by [`json::read_problem`].
/// A global frictional problem is reduced to its local form.
pub fn read_any(path: &Path) -> Result<Problem, Error> {
    match Format::from_path(path, "input file")? {
        Format::Siconos => read_problem(path, None),
        Format::Fclib => read_problem(path, Some(ProblemKind::Friction)),
        Format::MatrixMarket => mtx::read_problem(path),
        Format::Json => json::read_problem(path),
    }
}

/// Reads a problem as `perp solve` does: `.mtx` and `.json` files by their extension, any
/// other file by [`read_problem`] (Siconos text or FCLIB HDF5 whatever its name, the kind
/// detected unless `kind` says it). With `kind` given, a `.mtx`/`.json` problem of another
/// kind is an error.
pub fn read_with_kind(path: &Path, kind: Option<ProblemKind>) -> Result<Problem, Error> {
    let p = match Format::from_path(path, "input file") {
        Ok(Format::MatrixMarket) => mtx::read_problem(path)?,
        Ok(Format::Json) => json::read_problem(path)?,
        _ => return read_problem(path, kind),
    };
    match kind {
        Some(k) if k != p.kind() => Err(Error::setting(
            "kind",
            format!("{k:?}").to_lowercase(),
            &format!("{} holds a {} problem", path.display(), p.kind_name()),
        )),
        _ => Ok(p),
    }
}

/// Writes `p` in the format chosen by the extension of `path`; returns the files written
/// (several for MatrixMarket, `path` first). Errors: an unknown extension, a problem the
/// format cannot hold (see the [module docs](self)), or a file that cannot be written.
pub fn write_any(p: &Problem, path: &Path) -> Result<Vec<PathBuf>, Error> {
    match Format::from_path(path, "output file")? {
        Format::Siconos => write_siconos(p, path).map(|_| vec![path.to_path_buf()]),
        Format::Fclib => match p {
            Problem::Friction(f) => write_fclib(f, path).map(|_| vec![path.to_path_buf()]),
            _ => Err(Error::setting(
                "output file",
                path.display(),
                &format!(
                    "FCLIB (.hdf5) holds frictional contact problems only, this is an {}: write .dat, .mtx or .json",
                    p.kind_name()
                ),
            )),
        },
        Format::MatrixMarket => mtx::write_problem(p, path),
        Format::Json => json::write_problem(p, path).map(|_| vec![path.to_path_buf()]),
    }
}

/// Writes `text` to `path`, naming the file in an error.
fn write_text(path: &Path, text: &str) -> Result<(), Error> {
    std::fs::write(path, text).map_err(|source| Error::Io { file: path.to_path_buf(), source })
}

/// Appends `values`, `per_line` to a line.
fn push_values(s: &mut String, values: &[f64], per_line: usize) {
    for chunk in values.chunks(per_line.max(1)) {
        for (k, v) in chunk.iter().enumerate() {
            if k > 0 {
                s.push(' ');
            }
            let _ = write!(s, "{v:?}");
        }
        s.push('\n');
    }
}

/// The Siconos "NumericsMatrix" text of `m` (`design/SUITES.md`): storage 0 (dense,
/// column-major, one line per column) for a dense matrix, storage 2 (CSparse compressed
/// columns, origin 2, as CSparse's `cs_print` lays it out) for a sparse one, explicit zeros
/// kept. Values in shortest round-trip form.
///
/// ```
/// use perp_core::Matrix;
/// use perp_formats::{convert::format_numerics_matrix, read_numerics_matrix, tokens::Tokens};
/// use std::path::Path;
/// let m = Matrix::from_triplets(2, 3, &[(0, 0, 1.5), (1, 2, -0.1)]).unwrap();
/// let text = format_numerics_matrix(&m);
/// assert!(text.contains("    col 2 : locations 1 to 1\n      1 : -0.1\n"), "{text}");
/// let back = read_numerics_matrix(&mut Tokens::new(&text, Path::new("m.dat")), "M").unwrap();
/// assert_eq!((back.get(0, 0), back.get(1, 2), back.nnz()), (1.5, -0.1, 2));
/// ```
pub fn format_numerics_matrix(m: &Matrix) -> String {
    let mut s = String::new();
    let (r, c) = (m.nrows(), m.ncols());
    match m {
        Matrix::Dense(d) => {
            let _ = writeln!(s, "0 {r} {c}\n{r} {c}");
            for j in 0..c {
                push_values(&mut s, d.col_as_slice(j), r);
            }
        }
        Matrix::Sparse(sp) => {
            let csc = sp.to_csc();
            let nnz = csc.nnz();
            let norm1 = csc
                .outer_iterator()
                .map(|col| col.iter().map(|(_, v)| v.abs()).sum::<f64>())
                .fold(0.0, f64::max);
            let _ = writeln!(s, "2 {r} {c}\n2");
            let _ = writeln!(
                s,
                "CSparse Version 3.1.9 layout, written by perp (values in shortest round-trip form)"
            );
            let _ = writeln!(s, "{r}-by-{c}, nzmax: {nnz} nnz: {nnz}, 1-norm: {norm1:?}");
            let mut next = 0i64;
            for (j, col) in csc.outer_iterator().enumerate() {
                let count = col.nnz() as i64;
                let _ = writeln!(s, "    col {j} : locations {next} to {}", next + count - 1);
                for (i, v) in col.iter() {
                    let _ = writeln!(s, "      {i} : {v:?}");
                }
                next += count;
            }
        }
    }
    s
}

/// The Siconos `.dat` text of `p` (`design/SUITES.md`):
///
/// * LCP: `n`, M, q;
/// * MLCP: `1 0 n m` (M/q storage only; n equality rows, m complementarity rows), the block
///   rows (a new block wherever the row kind changes, ending at n + m), one kind per block
///   (0 equality, 1 complementarity), M, q;
/// * frictional contact: `d nc`, W, q, μ; rolling frictional contact (every law
///   `ConeSpec::Rolling`) as Siconos' `rollingFrictionContact_printInFile`: then μ_r; in
///   global form (`Problem::GlobalFriction`, as Siconos' `globalFrictionContact_printInFile`)
///   `d nc`, M, H, f, b, μ.
///
/// Errors: a box-constrained LCP or a friction law other than Coulomb or rolling (not
/// representable).
pub fn format_siconos(p: &Problem) -> Result<String, Error> {
    let mut s = String::new();
    match p {
        Problem::Ncp(_) => return Err(p.cannot_be_written_as("Siconos .dat")),
        Problem::GlobalFriction(g) => {
            // Siconos' globalFrictionContact_printInFile: d, nc, M, H, q (= f), b, μ.
            let _ = writeln!(s, "{} {}", g.dim, g.contacts());
            s.push_str(&format_numerics_matrix(&g.m));
            s.push_str(&format_numerics_matrix(&g.h));
            push_values(&mut s, &g.f, 1);
            push_values(&mut s, &g.b, g.dim);
            push_values(&mut s, &g.mu, 1);
        }
        Problem::Lcp(l) => {
            if l.is_box() {
                return Err(Error::setting(
                    "output file",
                    "Siconos .dat",
                    "a Siconos LCP file cannot hold the bounds of a box-constrained LCP (write .json)",
                ));
            }
            let _ = writeln!(s, "{}", l.n());
            s.push_str(&format_numerics_matrix(l.m()));
            push_values(&mut s, l.q(), 1);
        }
        Problem::Mlcp(m) => {
            let free = m.free();
            let n = m.n();
            let _ = writeln!(s, "1 0 {} {}", m.n_free(), n - m.n_free());
            let mut starts = vec![0usize];
            let mut kinds = Vec::new();
            for i in 0..n {
                if i > 0 && free[i] != free[i - 1] {
                    starts.push(i);
                }
                if i == 0 || free[i] != free[i - 1] {
                    kinds.push(if free[i] { "0" } else { "1" });
                }
            }
            if n > 0 {
                starts.push(n);
            }
            let starts: Vec<String> = starts.iter().map(usize::to_string).collect();
            let _ = writeln!(s, "{}\n{}", starts.join(" "), kinds.join(" "));
            s.push_str(&format_numerics_matrix(m.m()));
            push_values(&mut s, m.q(), 1);
        }
        Problem::Friction(f) => {
            let mu_r = f.rolling_mu();
            if mu_r.is_none() {
                check_coulomb(f)?;
            }
            let _ = writeln!(s, "{} {}", f.dim, f.contacts());
            s.push_str(&format_numerics_matrix(&f.w));
            push_values(&mut s, &f.q, f.dim);
            push_values(&mut s, &f.mu, 1);
            if let Some(mu_r) = mu_r {
                push_values(&mut s, &mu_r, 1);
            }
        }
    }
    Ok(s)
}

fn check_coulomb(f: &FrictionContactProblem) -> Result<(), Error> {
    if f.is_coulomb() {
        Ok(())
    } else {
        Err(Error::setting(
            "output file",
            "problem",
            "only Coulomb friction can be written: this problem has other friction laws",
        ))
    }
}

/// Writes `p` as a Siconos `.dat` file ([`format_siconos`]).
pub fn write_siconos(p: &Problem, path: &Path) -> Result<(), Error> {
    write_text(path, &format_siconos(p)?)
}

/// The bytes of an FCLIB file holding `p` as `/fclib_local` (FCLIB's `fclib_write_local`
/// layout, `design/SUITES.md`): `spacedim` (int32), the matrix group `W` with int32
/// `nzmax, m, n, nz = −2` (compressed rows), `p` (m + 1 row pointers), `i` (column of each
/// entry) and float64 `x`; `vectors/q`, `vectors/mu` (float64); `info/title`,
/// `info/description`, `info/math_info` (strings). A sparse W keeps its stored entries, a
/// dense one stores every entry except +0.0.
///
/// Errors: a contact dimension other than 2 or 3, a friction law other than Coulomb, sizes
/// beyond FCLIB's 32-bit integers, or a failure of the HDF5 writer (`hdf5-pure`).
///
/// ```
/// use perp_cones::FrictionContactProblem;
/// use perp_core::Matrix;
/// use perp_formats::{convert::fclib_bytes, fclib::parse_fclib, friction::FrictionFile};
/// use std::path::Path;
/// let w = Matrix::from_row_major(2, 2, &[2.0, 0.0, 0.5, 1.0]).unwrap();
/// let p = FrictionContactProblem::new(2, w, vec![-1.0, 0.25], vec![0.3]).unwrap();
/// let (FrictionFile::Local(back), _) = parse_fclib(fclib_bytes(&p).unwrap(), Path::new("p.hdf5")).unwrap() else {
///     panic!("local")
/// };
/// assert_eq!((back.w.get(1, 0), back.w.nnz(), back.q.clone(), back.mu.clone()), (0.5, 3, p.q, p.mu));
/// ```
pub fn fclib_bytes(p: &FrictionContactProblem) -> Result<Vec<u8>, Error> {
    if p.rolling_mu().is_some() {
        return Err(Error::setting(
            "output file",
            "FCLIB",
            "FCLIB holds rolling problems in the global form only (/fclib_global_rolling, \
             fclib_global_rolling_bytes), this is the local form: write .dat, the layout of Siconos' \
             rollingFrictionContact_printInFile",
        ));
    }
    check_coulomb(p)?;
    if !(2..=3).contains(&p.dim) {
        return Err(Error::setting(
            "output file",
            "FCLIB",
            &format!("FCLIB holds contact dimensions 2 and 3 only, this problem has {}", p.dim),
        ));
    }
    let mut b = FileBuilder::new();
    let mut local = b.create_group("fclib_local");
    local.create_dataset("spacedim").with_i32_data(&[p.dim as i32]);
    fclib_matrix_group(&mut local, "W", &p.w)?;
    let mut v = local.create_group("vectors");
    v.create_dataset("q").with_f64_data(&p.q);
    v.create_dataset("mu").with_f64_data(&p.mu);
    local.add_group(v.finish());
    let description = format!("{} contacts of dimension {}, written by perp convert", p.contacts(), p.dim);
    fclib_info_group(
        &mut local,
        "perp frictional contact problem",
        &description,
        "local form u = W r + q, Coulomb friction (De Saxce), normal component first",
    )?;
    b.add_group(local.finish());
    b.finish().map_err(|e| hdf5_error("file", e))
}

/// The bytes of an FCLIB file holding the global rolling problem `g` with rolling friction
/// coefficients `mu_r` as `/fclib_global_rolling`, FCLIB's `fclib_write_global_rolling`
/// layout (FCLIB has no local rolling layout): `spacedim` (the contact dimension, 3 or 5),
/// the matrix groups `M` and `H` (compressed rows, as [`fclib_bytes`] writes W),
/// `vectors/f`, `vectors/w` (the b of `u = Hᵀ v + b`), `vectors/mu`, `vectors/mu_r`, `info`.
///
/// Errors: a contact dimension other than 3 or 5, `mu_r` not one value per contact, sizes
/// beyond FCLIB's 32-bit integers, or a failure of the HDF5 writer.
///
/// ```
/// use perp_cones::global::GlobalFrictionContactProblem;
/// use perp_core::Matrix;
/// use perp_formats::{convert::fclib_global_rolling_bytes, rolling::RollingFile};
/// use perp_formats::fclib::{parse_fclib_problem, FclibProblem};
/// use std::path::Path;
/// let eye = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
/// let g = GlobalFrictionContactProblem::new(3, eye.clone(), eye, vec![1.0, 0.0, -2.0], vec![0.5, 0.0, 0.0], vec![0.3]).unwrap();
/// let bytes = fclib_global_rolling_bytes(&g, &[0.05]).unwrap();
/// let (FclibProblem::Rolling(RollingFile { mu_r, .. }), _) = parse_fclib_problem(bytes, Path::new("g.hdf5")).unwrap() else {
///     panic!("rolling")
/// };
/// assert_eq!(mu_r, [0.05]);
/// ```
pub fn fclib_global_rolling_bytes(
    g: &perp_cones::global::GlobalFrictionContactProblem,
    mu_r: &[f64],
) -> Result<Vec<u8>, Error> {
    if g.dim != 3 && g.dim != 5 {
        return Err(Error::setting(
            "output file",
            "FCLIB",
            &format!("FCLIB's rolling problems have contact dimension 3 or 5, this problem has {}", g.dim),
        ));
    }
    Error::check_len("mu_r", mu_r, g.contacts())?;
    let mut b = FileBuilder::new();
    let mut top = b.create_group("fclib_global_rolling");
    top.create_dataset("spacedim").with_i32_data(&[g.dim as i32]);
    fclib_matrix_group(&mut top, "M", &g.m)?;
    fclib_matrix_group(&mut top, "H", &g.h)?;
    let mut v = top.create_group("vectors");
    v.create_dataset("f").with_f64_data(&g.f);
    v.create_dataset("w").with_f64_data(&g.b);
    v.create_dataset("mu").with_f64_data(&g.mu);
    v.create_dataset("mu_r").with_f64_data(mu_r);
    top.add_group(v.finish());
    let description = format!(
        "{} contacts of dimension {}, {} degrees of freedom, written by perp",
        g.contacts(),
        g.dim,
        g.dofs()
    );
    fclib_info_group(
        &mut top,
        "perp global rolling frictional contact problem",
        &description,
        "global form M v = H r + f, u = H^T v + w, rolling friction (mu, mu_r), normal component first",
    )?;
    b.add_group(top.finish());
    b.finish().map_err(|e| hdf5_error("file", e))
}

/// Adds to `parent` the FCLIB matrix group `name` holding `a` in compressed rows (`nz = −2`): int32 `nzmax`,
/// `m`, `n`, `nz`, `p` (m + 1 row pointers), `i` (column of each entry), float64 `x`. A sparse
/// matrix keeps its stored entries, a dense one stores every entry except +0.0.
fn fclib_matrix_group(parent: &mut hdf5_pure::GroupBuilder, name: &str, a: &Matrix) -> Result<(), Error> {
    let csr = match a {
        Matrix::Sparse(sp) => sp.to_csr(),
        Matrix::Dense(d) => {
            let mut t = Vec::new();
            for i in 0..d.nrows() {
                for j in 0..d.ncols() {
                    let v = d[(i, j)];
                    if v.to_bits() != 0 {
                        t.push((i, j, v));
                    }
                }
            }
            Matrix::from_triplets(d.nrows(), d.ncols(), &t)?.to_csr()
        }
    };
    let int = |v: usize, what: &str| {
        i32::try_from(v).map_err(|_| {
            Error::setting(
                "output file",
                "FCLIB",
                &format!("{name}.{what} = {v} exceeds FCLIB's 32-bit integers"),
            )
        })
    };
    let (m, n, nnz) = (int(csr.rows(), "m")?, int(csr.cols(), "n")?, int(csr.nnz(), "nzmax")?);
    // Every pointer is at most nnz, which fits in i32 (checked above).
    let pointers: Vec<i32> = csr.indptr().to_proper().iter().map(|&k| k as i32).collect();
    let columns: Vec<i32> = csr.indices().iter().map(|&j| j as i32).collect();
    let mut w = parent.create_group(name);
    w.create_dataset("nzmax").with_i32_data(&[nnz]);
    w.create_dataset("m").with_i32_data(&[m]);
    w.create_dataset("n").with_i32_data(&[n]);
    w.create_dataset("nz").with_i32_data(&[-2]);
    w.create_dataset("p").with_i32_data(&pointers);
    w.create_dataset("i").with_i32_data(&columns);
    w.create_dataset("x").with_f64_data(csr.data());
    parent.add_group(w.finish());
    Ok(())
}

/// Adds to `parent` the FCLIB `info` group: `title`, `description`, `math_info` strings.
fn fclib_info_group(
    parent: &mut hdf5_pure::GroupBuilder,
    title: &str,
    description: &str,
    math_info: &str,
) -> Result<(), Error> {
    let mut info = parent.create_group("info");
    for (name, text) in [("title", title), ("description", description), ("math_info", math_info)] {
        // A scalar string, as FCLIB's H5LTmake_dataset_string writes it, one byte wider than
        // the text so that the zero padding ends it as a C string.
        info.create_dataset(name)
            .with_ascii_strings_sized(&[text], text.len() as u32 + 1)
            .map_err(|e| hdf5_error(&format!("info/{name}"), e))?
            .with_shape(&[]);
    }
    parent.add_group(info.finish());
    Ok(())
}

fn hdf5_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::setting("output file", "FCLIB", &format!("the HDF5 writer failed on {what}: {e}"))
}

/// Writes `p` as an FCLIB HDF5 file ([`fclib_bytes`]).
pub fn write_fclib(p: &FrictionContactProblem, path: &Path) -> Result<(), Error> {
    let bytes = fclib_bytes(p).map_err(|e| match e {
        Error::InvalidSetting { name, reason, .. } => {
            Error::InvalidSetting { name, value: path.display().to_string(), reason }
        }
        other => other,
    })?;
    std::fs::write(path, bytes).map_err(|source| Error::Io { file: path.to_path_buf(), source })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::friction::{parse_friction_contact, FrictionFile};
    use crate::{parse_lcp, parse_mlcp};
    use perp_lcp::Lcp;
    use perp_ncp::mlcp::Mlcp;

    fn same_matrix(a: &Matrix, b: &Matrix) {
        assert_eq!(
            (a.nrows(), a.ncols(), a.is_sparse(), a.nnz()),
            (b.nrows(), b.ncols(), b.is_sparse(), b.nnz())
        );
        if let (Matrix::Sparse(x), Matrix::Sparse(y)) = (a, b) {
            let (x, y) = (x.to_csr(), y.to_csr());
            assert_eq!(x.indptr().to_proper(), y.indptr().to_proper());
            assert_eq!(x.indices(), y.indices());
        }
        for i in 0..a.nrows() {
            for j in 0..a.ncols() {
                assert_eq!(a.get(i, j).to_bits(), b.get(i, j).to_bits(), "({i}, {j})");
            }
        }
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    const AWKWARD: [f64; 8] = [0.1, -1.0 / 3.0, 1e-300, 5e-324, -0.0, 123456789.12345679, f64::MAX, 1e22];

    #[test]
    fn siconos_text_round_trips_every_kind_and_storage() {
        let dense = Matrix::from_col_major(3, 3, &[AWKWARD[..].to_vec(), vec![7.0]].concat()).unwrap();
        let sparse = Matrix::from_triplets(
            3,
            3,
            &[(0, 0, AWKWARD[1]), (2, 0, 0.0), (1, 2, AWKWARD[5]), (2, 2, AWKWARD[4])],
        )
        .unwrap();
        for m in [dense, sparse] {
            let lcp = Lcp::new(m.clone(), AWKWARD[2..5].to_vec()).unwrap();
            let text = format_siconos(&Problem::Lcp(lcp.clone())).unwrap();
            let back = parse_lcp(&text, Path::new("l.dat")).unwrap();
            same_matrix(lcp.m(), back.m());
            assert_eq!(bits(lcp.q()), bits(back.q()));

            for free in [vec![true, false, true], vec![false, false, false], vec![true, true, false]] {
                let mlcp = Mlcp::new(m.clone(), AWKWARD[5..8].to_vec(), free).unwrap();
                let text = format_siconos(&Problem::Mlcp(mlcp.clone())).unwrap();
                let back = parse_mlcp(&text, Path::new("m.dat")).unwrap();
                same_matrix(mlcp.m(), back.m());
                assert_eq!((bits(mlcp.q()), mlcp.free()), (bits(back.q()), back.free()));
            }
        }
        let w =
            Matrix::from_triplets(4, 4, &[(0, 0, 2.0), (1, 1, 1.0), (3, 2, -0.5), (2, 2, 1.0), (3, 3, 0.1)])
                .unwrap();
        let f = FrictionContactProblem::new(2, w, vec![0.0, 1.0, 2.0, -1e-9], vec![0.0, 0.7]).unwrap();
        let text = format_siconos(&Problem::Friction(f.clone())).unwrap();
        let FrictionFile::Local(back) = parse_friction_contact(&text, Path::new("f.dat")).unwrap() else {
            panic!("local expected")
        };
        same_matrix(&f.w, &back.w);
        assert_eq!((bits(&f.q), bits(&f.mu), f.dim), (bits(&back.q), bits(&back.mu), back.dim));
    }

    #[test]
    fn empty_problems_round_trip() {
        let m = Mlcp::new(Matrix::from_triplets(0, 0, &[]).unwrap(), vec![], vec![]).unwrap();
        let text = format_siconos(&Problem::Mlcp(m)).unwrap();
        assert_eq!(parse_mlcp(&text, Path::new("e.dat")).unwrap().n(), 0);
        let l = Lcp::new(Matrix::from_row_major(0, 0, &[]).unwrap(), vec![]).unwrap();
        let text = format_siconos(&Problem::Lcp(l)).unwrap();
        assert_eq!(parse_lcp(&text, Path::new("e.dat")).unwrap().n(), 0);
    }

    #[test]
    fn fclib_round_trips_sparse_and_dense_w() {
        let sparse =
            Matrix::from_triplets(6, 6, &[(0, 0, 1.0), (5, 1, AWKWARD[1]), (3, 3, 0.0), (4, 4, AWKWARD[3])])
                .unwrap();
        let dense = Matrix::from_col_major(3, 3, &[1.0, 0.0, -0.0, 0.5, 2.0, 0.0, 0.0, 0.0, 3.0]).unwrap();
        for (d, w) in [(3, sparse), (3, dense), (2, Matrix::from_triplets(4, 4, &[]).unwrap())] {
            let nc = w.nrows() / d;
            let q: Vec<f64> = AWKWARD.iter().copied().cycle().take(w.nrows()).collect();
            let mu: Vec<f64> = (0..nc).map(|k| 0.1 * k as f64).collect();
            let p = FrictionContactProblem::new(d, w.clone(), q, mu).unwrap();
            let bytes = fclib_bytes(&p).unwrap();
            let (FrictionFile::Local(back), extras) =
                crate::fclib::parse_fclib(bytes, Path::new("p.hdf5")).unwrap()
            else {
                panic!("local expected")
            };
            assert!(back.w.is_sparse());
            for i in 0..w.nrows() {
                for j in 0..w.ncols() {
                    assert_eq!(w.get(i, j).to_bits(), back.w.get(i, j).to_bits(), "({i}, {j})");
                }
            }
            if w.is_sparse() {
                same_matrix(&w, &back.w);
            }
            assert_eq!((bits(&p.q), bits(&p.mu), p.dim), (bits(&back.q), bits(&back.mu), back.dim));
            assert_eq!(extras.title.as_deref(), Some("perp frictional contact problem"));
        }
        let p4 = FrictionContactProblem::new(
            4,
            Matrix::from_triplets(4, 4, &[]).unwrap(),
            vec![0.0; 4],
            vec![0.1],
        );
        if let Ok(p4) = p4 {
            assert!(fclib_bytes(&p4).unwrap_err().to_string().contains("dimensions 2 and 3 only"));
        }
    }
}
