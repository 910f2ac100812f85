//! Reader of FCLIB frictional contact problems (HDF5), local and global, and of FCLIB's global
//! rolling problems, with the stored solution and initial guesses; pure Rust (the `hdf5-pure`
//! crate, no C library).
//!
//! Layout (`design/SUITES.md`, FCLIB's `fclib.c`):
//!
//! * a matrix is a group with integer datasets `nzmax`, `m`, `n`, `nz` (one value each), `p`,
//!   `i` and the float dataset `x`: `nz ≥ 0` is a triplet list of `nz` entries (`i` = row,
//!   `p` = column); `nz = −1` compressed columns (`p` holds `n + 1` column pointers, `i` the row
//!   of each entry); `nz = −2` compressed rows (`p` holds `m + 1` row pointers, `i` the
//!   column of each entry). The entries used are the first `nz` (triplet) or `p[last]`
//!   (compressed); `x` and `i` may be longer (`nzmax`).
//! * `/fclib_local`: `spacedim` (2 or 3), matrix `W`, `vectors/q` (`W.m` values), `vectors/mu`
//!   (`W.m / spacedim`); the optional `V`, `R`, `vectors/s` (bilateral constraints) are not
//!   supported and give an error rather than being dropped silently.
//! * `/fclib_global`: `spacedim`, matrices `M` (`n_dof` square) and `H` (`n_dof × d·nc`),
//!   `vectors/f` (`n_dof`), `vectors/w` (`H.n`, the term b of `u = Hᵀ v + w`), `vectors/mu`;
//!   the optional `G`, `vectors/b` are not supported (error).
//! * `/fclib_global_rolling` (FCLIB's `fclib_write_global_rolling`, read by Siconos'
//!   `globalRollingFrictionContact_fclib_read`): the global layout with `spacedim` the contact
//!   dimension, 3 (2-D) or 5 (3-D: normal, two tangential, two rolling), and `vectors/mu_r`
//!   (one rolling friction coefficient ≥ 0 per contact) beside `vectors/mu`; read by
//!   [`parse_fclib_problem`] into a [`RollingFile`] (reduced to the local form with its
//!   rolling laws by [`RollingFile::into_local`]); [`parse_fclib`], which returns frictional
//!   problems only, refuses it with an error naming the group. FCLIB has no local rolling
//!   layout.
//! * `/solution` (`r`, `u`, and `v` for a global problem) and `/guesses`
//!   (`number_of_guesses`, groups `1`, `2`, … holding `r`, `u`, `v`) are read by
//!   [`read_fclib_with_extras`].
//!
//! Robustness: every size read from the file is checked against the datasets it describes
//! (which are themselves bounded by the file's length) before anything is allocated, indices
//! are range-checked, values must be finite, and a panic inside the HDF5 crate on a corrupt
//! file is caught and reported as an error naming the file. Errors are [`Error::Parse`] with
//! the dataset path as the field (position 0: an HDF5 file has no token positions) or
//! [`Error::DimensionMismatch`] naming the file and the dataset.

use crate::friction_file::FrictionFile;
use crate::rolling::RollingFile;
use hdf5_pure::{DType, File};
use perp_cones::global::GlobalFrictionContactProblem;
use perp_cones::FrictionContactProblem;
use perp_core::{Error, Matrix};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// The 8-byte signature that opens an HDF5 superblock.
pub const HDF5_SIGNATURE: [u8; 8] = *b"\x89HDF\r\n\x1a\n";

/// A dataset may decode to at most this many times the file's length (plus 1 MiB): bounds
/// what a corrupt dataspace can make the reader allocate, while allowing compressed data.
const MAX_EXPANSION: u64 = 64;

/// Whether `bytes` hold an HDF5 file: the signature at offset 0, 512, 1024, 2048, … (the
/// superblock may follow a user block of such a size).
///
/// ```
/// use perp_formats::fclib::{is_hdf5, HDF5_SIGNATURE};
/// assert!(is_hdf5(&HDF5_SIGNATURE));
/// let mut with_user_block = vec![0u8; 512];
/// with_user_block.extend_from_slice(&HDF5_SIGNATURE);
/// assert!(is_hdf5(&with_user_block));
/// assert!(!is_hdf5(b"3\n1\n0 3 3"));
/// ```
pub fn is_hdf5(bytes: &[u8]) -> bool {
    let mut offset = 0usize;
    loop {
        match bytes.get(offset..offset + 8) {
            Some(s) if s == HDF5_SIGNATURE => return true,
            Some(_) => {}
            None => return false,
        }
        offset = if offset == 0 { 512 } else { offset * 2 };
    }
}

/// What an FCLIB file may hold besides the problem.
#[derive(Clone, Debug, Default)]
pub struct FclibExtras {
    /// The stored solution `(r, u)` (`/solution/r`, `/solution/u`), if any.
    pub solution: Option<(Vec<f64>, Vec<f64>)>,
    /// The global velocity of the stored solution (`/solution/v`, global problems only).
    pub solution_v: Option<Vec<f64>>,
    /// The reactions r of each initial guess (`/guesses/1/r`, `/guesses/2/r`, …).
    pub guesses: Vec<Vec<f64>>,
    /// `info/title`, if present.
    pub title: Option<String>,
    /// `info/description`, if present.
    pub description: Option<String>,
}

/// Reads an FCLIB HDF5 file: its local or global problem (see the [module docs](self)).
///
/// ```no_run
/// use perp_formats::fclib::read_fclib;
/// let f = read_fclib(std::path::Path::new("suites/siconos/fc3d/Box_Stacks-i0122-82-5.hdf5")).unwrap();
/// assert!(f.is_global());
/// ```
pub fn read_fclib(path: &Path) -> Result<FrictionFile, Error> {
    read_fclib_with_extras(path).map(|(f, _)| f)
}

/// Reads an FCLIB HDF5 file with its stored solution, guesses and info strings.
pub fn read_fclib_with_extras(path: &Path) -> Result<(FrictionFile, FclibExtras), Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { file: path.to_path_buf(), source })?;
    parse_fclib(bytes, path)
}

/// What an FCLIB file holds: a frictional contact problem (`/fclib_local` or `/fclib_global`)
/// or a rolling one (`/fclib_global_rolling`).
#[derive(Clone, Debug)]
pub enum FclibProblem {
    /// A frictional contact problem, local or global.
    Friction(FrictionFile),
    /// A global rolling frictional contact problem with its μ_r.
    Rolling(RollingFile),
}

/// The field of the error [`parse_fclib`] returns on a rolling file: the readers that also
/// accept rolling problems (`crate::read_problem`) try the rolling reader after it.
pub(crate) const ROLLING_GROUP: &str = "/fclib_global_rolling";

/// Reads FCLIB HDF5 content held in memory; `file` names it in error messages. A rolling
/// file (`/fclib_global_rolling`) is an error naming that group: read it with
/// [`parse_fclib_problem`] or [`crate::rolling::read_rolling_friction_contact`].
pub fn parse_fclib(bytes: Vec<u8>, file: &Path) -> Result<(FrictionFile, FclibExtras), Error> {
    match parse_fclib_problem(bytes, file)? {
        (FclibProblem::Friction(f), x) => Ok((f, x)),
        (FclibProblem::Rolling(_), _) => Err(Error::Parse {
            file: file.to_path_buf(),
            position: 0,
            field: ROLLING_GROUP.into(),
            message: "this file holds a rolling frictional contact problem (μ and μ_r), not a \
                      frictional one: perp reads it as rolling frictional contact in the local \
                      form (kind rfc3d/rfc2d: no --kind, or --kind fc); the global form (--kind \
                      gfc) has no rolling laws"
                .into(),
        }),
    }
}

/// Reads FCLIB HDF5 content held in memory, frictional or rolling (see the [module
/// docs](self)); `file` names it in error messages.
pub fn parse_fclib_problem(bytes: Vec<u8>, file: &Path) -> Result<(FclibProblem, FclibExtras), Error> {
    match catch_unwind(AssertUnwindSafe(|| parse_inner(bytes, file))) {
        Ok(result) => result,
        Err(payload) => {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".into());
            Err(Error::Parse {
                file: file.to_path_buf(),
                position: 0,
                field: "HDF5 structure".into(),
                message: format!("the HDF5 reader failed on this file (panic: {why}): the file is corrupt"),
            })
        }
    }
}

fn parse_inner(bytes: Vec<u8>, file: &Path) -> Result<(FclibProblem, FclibExtras), Error> {
    let limit = (bytes.len() as u64).saturating_mul(MAX_EXPANSION).saturating_add(1 << 20);
    let h5 = File::from_bytes(bytes).map_err(|e| Error::Parse {
        file: file.to_path_buf(),
        position: 0,
        field: "HDF5 structure".into(),
        message: format!("not a readable HDF5 file: {e}"),
    })?;
    let r = Reader { h5: &h5, file, limit };
    let (problem, info) = if r.h5.group("/fclib_global").is_ok() {
        (FclibProblem::Friction(FrictionFile::Global(r.global("/fclib_global", false)?.0)), "/fclib_global")
    } else if r.h5.group("/fclib_local").is_ok() {
        (FclibProblem::Friction(FrictionFile::Local(r.local()?)), "/fclib_local")
    } else if r.h5.group(ROLLING_GROUP).is_ok() {
        let (g, mu_r) = r.global(ROLLING_GROUP, true)?;
        let mu_r = mu_r.unwrap_or_default();
        (FclibProblem::Rolling(RollingFile { problem: FrictionFile::Global(g), mu_r }), ROLLING_GROUP)
    } else {
        return Err(r.parse_error(
            "/fclib_local",
            "none of /fclib_local, /fclib_global, /fclib_global_rolling is present",
        ));
    };
    let file_problem = match &problem {
        FclibProblem::Friction(f) => f,
        FclibProblem::Rolling(rf) => &rf.problem,
    };
    let extras = r.extras(file_problem, info)?;
    Ok((problem, extras))
}

/// The header of an FCLIB matrix group.
#[derive(Clone, Copy, Debug)]
struct Head {
    m: usize,
    n: usize,
    nz: i64,
    nzmax: usize,
}

struct Reader<'a> {
    h5: &'a File,
    file: &'a Path,
    /// Most bytes a dataset may decode to.
    limit: u64,
}

impl Reader<'_> {
    fn parse_error(&self, field: &str, message: impl Into<String>) -> Error {
        Error::Parse {
            file: self.file.to_path_buf(),
            position: 0,
            field: field.into(),
            message: message.into(),
        }
    }

    fn mismatch(&self, path: &str, expected: usize, found: usize) -> Error {
        Error::dim(format!("{}: {path}", self.file.display()), expected, found)
    }

    fn exists(&self, path: &str) -> bool {
        self.h5.dataset(path).is_ok()
    }

    /// The dataset, its element count (checked against the size bound) and its type.
    fn open(&self, path: &str) -> Result<(hdf5_pure::Dataset, usize, DType), Error> {
        let ds =
            self.h5.dataset(path).map_err(|e| self.parse_error(path, format!("missing dataset ({e})")))?;
        let shape = ds.shape().map_err(|e| self.parse_error(path, format!("unreadable shape ({e})")))?;
        let count = shape.iter().try_fold(1u64, |a, &s| a.checked_mul(s));
        let count = match count {
            Some(c) if c.saturating_mul(8) <= self.limit => c as usize,
            _ => {
                return Err(self.parse_error(
                    path,
                    format!("shape {shape:?} is larger than the file can hold ({} bytes)", self.limit),
                ))
            }
        };
        let dtype = ds.dtype().map_err(|e| self.parse_error(path, format!("unreadable datatype ({e})")))?;
        Ok((ds, count, dtype))
    }

    /// The number of elements of a dataset.
    fn len(&self, path: &str) -> Result<usize, Error> {
        Ok(self.open(path)?.1)
    }

    /// The first `need` integers of an integer dataset (which must hold at least `need`).
    fn ints(&self, path: &str, need: usize) -> Result<Vec<i64>, Error> {
        let (ds, count, dtype) = self.open(path)?;
        if !matches!(
            dtype,
            DType::I8
                | DType::I16
                | DType::I32
                | DType::I64
                | DType::U8
                | DType::U16
                | DType::U32
                | DType::U64
        ) {
            return Err(self.parse_error(path, format!("expected integers, found {dtype}")));
        }
        if count < need {
            return Err(self.mismatch(path, need, count));
        }
        let mut v = ds.read_i64().map_err(|e| self.parse_error(path, format!("unreadable data ({e})")))?;
        if v.len() < need {
            return Err(self.mismatch(path, need, v.len()));
        }
        v.truncate(need);
        Ok(v)
    }

    /// A one-value integer dataset.
    fn scalar(&self, path: &str) -> Result<i64, Error> {
        Ok(self.ints(path, 1)?[0])
    }

    /// A size (`m`, `n`, `nzmax`): a non-negative integer.
    fn size(&self, path: &str) -> Result<usize, Error> {
        let v = self.scalar(path)?;
        usize::try_from(v)
            .map_err(|_| self.parse_error(path, format!("size must be non-negative, found {v}")))
    }

    /// The first `need` finite reals of a float dataset; with `exact`, the dataset must hold
    /// exactly `need`.
    fn reals(&self, path: &str, need: usize, exact: bool) -> Result<Vec<f64>, Error> {
        let (ds, count, dtype) = self.open(path)?;
        if !matches!(dtype, DType::F32 | DType::F64) {
            return Err(self.parse_error(path, format!("expected floating-point values, found {dtype}")));
        }
        if count < need || (exact && count != need) {
            return Err(self.mismatch(path, need, count));
        }
        let mut v = ds.read_f64().map_err(|e| self.parse_error(path, format!("unreadable data ({e})")))?;
        if v.len() < need {
            return Err(self.mismatch(path, need, v.len()));
        }
        v.truncate(need);
        if let Some(k) = v.iter().position(|x| !x.is_finite()) {
            return Err(self.parse_error(&format!("{path}[{k}]"), format!("value {} is not finite", v[k])));
        }
        Ok(v)
    }

    /// `spacedim` of a rolling problem: the contact dimension, 3 (2-D) or 5 (3-D), as FCLIB's
    /// `fclib_write_global_rolling` asserts.
    fn rolling_dim(&self, path: &str) -> Result<usize, Error> {
        match self.scalar(path)? {
            d @ (3 | 5) => Ok(d as usize),
            d => Err(self.parse_error(
                path,
                format!("a rolling problem's spacedim (its contact dimension) must be 3 or 5, found {d}"),
            )),
        }
    }

    /// `spacedim`: 2 or 3.
    fn spacedim(&self, path: &str) -> Result<usize, Error> {
        match self.scalar(path)? {
            d @ (2 | 3) => Ok(d as usize),
            d => Err(self.parse_error(path, format!("spacedim must be 2 or 3, found {d}"))),
        }
    }

    fn head(&self, group: &str) -> Result<Head, Error> {
        let m = self.size(&format!("{group}/m"))?;
        let n = self.size(&format!("{group}/n"))?;
        let nzmax = self.size(&format!("{group}/nzmax"))?;
        let nz = self.scalar(&format!("{group}/nz"))?;
        if nz < -2 {
            return Err(self.parse_error(
                &format!("{group}/nz"),
                format!("nz = {nz}: expected ≥ 0 (triplet), −1 (compressed columns) or −2 (compressed rows)"),
            ));
        }
        if nz > 0 && nz as u64 > nzmax as u64 {
            return Err(
                self.parse_error(&format!("{group}/nz"), format!("nz = {nz} exceeds nzmax = {nzmax}"))
            );
        }
        Ok(Head { m, n, nz, nzmax })
    }

    /// The matrix of group `group` with header `h` (whose sizes the caller has already checked
    /// against the vectors of the problem).
    fn matrix(&self, group: &str, h: Head) -> Result<Matrix, Error> {
        let (pp, ip, xp) = (format!("{group}/p"), format!("{group}/i"), format!("{group}/x"));
        let mut triplets = Vec::new();
        if h.nz >= 0 {
            let nz = h.nz as usize;
            let p = self.ints(&pp, nz)?;
            let i = self.ints(&ip, nz)?;
            let x = self.reals(&xp, nz, false)?;
            triplets.reserve(nz);
            for k in 0..nz {
                let row = self.index(&ip, k, i[k], h.m, "rows")?;
                let col = self.index(&pp, k, p[k], h.n, "columns")?;
                triplets.push((row, col, x[k]));
            }
        } else {
            // −1: p over columns, i = rows; −2: p over rows, i = columns.
            let csc = h.nz == -1;
            let (outer, inner) = if csc { (h.n, h.m) } else { (h.m, h.n) };
            let outer_len = outer.checked_add(1).ok_or_else(|| self.parse_error(&pp, "size overflows"))?;
            let p = self.ints(&pp, outer_len)?;
            if p[0] != 0 {
                return Err(self
                    .parse_error(&format!("{pp}[0]"), format!("pointers must start at 0, found {}", p[0])));
            }
            for k in 1..outer_len {
                if p[k] < p[k - 1] {
                    return Err(self.parse_error(
                        &format!("{pp}[{k}]"),
                        format!("pointers must not decrease: {} after {}", p[k], p[k - 1]),
                    ));
                }
            }
            let used = p[outer];
            if used as u64 > h.nzmax as u64 {
                return Err(self.parse_error(
                    &format!("{pp}[{outer}]"),
                    format!("{used} entries exceed nzmax = {}", h.nzmax),
                ));
            }
            let used = used as usize;
            let i = self.ints(&ip, used)?;
            let x = self.reals(&xp, used, false)?;
            triplets.reserve(used);
            let inner_name = if csc { "rows" } else { "columns" };
            for o in 0..outer {
                for k in p[o] as usize..p[o + 1] as usize {
                    let idx = self.index(&ip, k, i[k], inner, inner_name)?;
                    triplets.push(if csc { (idx, o, x[k]) } else { (o, idx, x[k]) });
                }
            }
        }
        Matrix::from_triplets(h.m, h.n, &triplets)
    }

    /// An index in `0..bound`.
    fn index(&self, path: &str, k: usize, v: i64, bound: usize, name: &str) -> Result<usize, Error> {
        match usize::try_from(v) {
            Ok(i) if i < bound => Ok(i),
            _ => Err(self
                .parse_error(&format!("{path}[{k}]"), format!("index {v} out of range: {name} = {bound}"))),
        }
    }

    /// μ, each ≥ 0.
    fn mu(&self, path: &str, nc: usize) -> Result<Vec<f64>, Error> {
        let mu = self.reals(path, nc, true)?;
        if let Some(i) = mu.iter().position(|&m| m < 0.0) {
            return Err(self.parse_error(
                &format!("{path}[{i}]"),
                format!("friction coefficient must be ≥ 0, found {}", mu[i]),
            ));
        }
        Ok(mu)
    }

    fn unsupported(&self, path: &str, what: &str) -> Result<(), Error> {
        if self.h5.group(path).is_ok() || self.exists(path) {
            return Err(self.parse_error(path, format!("{what} are not supported")));
        }
        Ok(())
    }

    fn local(&self) -> Result<FrictionContactProblem, Error> {
        let d = self.spacedim("/fclib_local/spacedim")?;
        let wh = self.head("/fclib_local/W")?;
        if wh.n != wh.m {
            return Err(self.mismatch("/fclib_local/W/n (W must be square)", wh.m, wh.n));
        }
        if wh.m % d != 0 {
            return Err(self.parse_error(
                "/fclib_local/W/m",
                format!("W has {} rows, not a multiple of spacedim = {d}", wh.m),
            ));
        }
        let q_len = self.len("/fclib_local/vectors/q")?;
        if q_len != wh.m {
            return Err(self.mismatch("/fclib_local/vectors/q (length must equal W.m)", wh.m, q_len));
        }
        let nc = wh.m / d;
        let mu_len = self.len("/fclib_local/vectors/mu")?;
        if mu_len != nc {
            return Err(self.mismatch(
                "/fclib_local/vectors/mu (length must equal W.m / spacedim)",
                nc,
                mu_len,
            ));
        }
        self.unsupported("/fclib_local/R", "bilateral constraints (V, R, s)")?;
        self.unsupported("/fclib_local/V", "bilateral constraints (V, R, s)")?;
        let w = self.matrix("/fclib_local/W", wh)?;
        let q = self.reals("/fclib_local/vectors/q", wh.m, true)?;
        let mu = self.mu("/fclib_local/vectors/mu", nc)?;
        FrictionContactProblem::new(d, w, q, mu)
    }

    /// The global problem of group `g` (`/fclib_global`, or `/fclib_global_rolling` with
    /// `rolling`: then also `vectors/mu_r`, returned beside the problem).
    fn global(
        &self,
        g: &str,
        rolling: bool,
    ) -> Result<(GlobalFrictionContactProblem, Option<Vec<f64>>), Error> {
        let d = if rolling {
            self.rolling_dim(&format!("{g}/spacedim"))?
        } else {
            self.spacedim(&format!("{g}/spacedim"))?
        };
        let mh = self.head(&format!("{g}/M"))?;
        let hh = self.head(&format!("{g}/H"))?;
        if mh.n != mh.m {
            return Err(self.mismatch(&format!("{g}/M/n (M must be square)"), mh.m, mh.n));
        }
        let f_len = self.len(&format!("{g}/vectors/f"))?;
        if f_len != mh.m {
            return Err(self.mismatch(&format!("{g}/vectors/f (length must equal M.m)"), mh.m, f_len));
        }
        if hh.m != mh.m {
            return Err(self.mismatch(&format!("{g}/H/m (H must have as many rows as M)"), mh.m, hh.m));
        }
        if hh.n % d != 0 {
            return Err(self.parse_error(
                &format!("{g}/H/n"),
                format!("H has {} columns, not a multiple of spacedim = {d}", hh.n),
            ));
        }
        let w_len = self.len(&format!("{g}/vectors/w"))?;
        if w_len != hh.n {
            return Err(self.mismatch(&format!("{g}/vectors/w (length must equal H.n)"), hh.n, w_len));
        }
        let nc = hh.n / d;
        let mu_len = self.len(&format!("{g}/vectors/mu"))?;
        if mu_len != nc {
            return Err(self.mismatch(
                &format!("{g}/vectors/mu (length must equal H.n / spacedim)"),
                nc,
                mu_len,
            ));
        }
        self.unsupported(&format!("{g}/G"), "bilateral constraints (G, b)")?;
        let m = self.matrix(&format!("{g}/M"), mh)?;
        let h = self.matrix(&format!("{g}/H"), hh)?;
        let f = self.reals(&format!("{g}/vectors/f"), mh.m, true)?;
        let w = self.reals(&format!("{g}/vectors/w"), hh.n, true)?;
        let mu = self.mu(&format!("{g}/vectors/mu"), nc)?;
        let mu_r = if rolling {
            let path = format!("{g}/vectors/mu_r");
            let len = self.len(&path)?;
            if len != nc {
                return Err(self.mismatch(&format!("{path} (length must equal H.n / spacedim)"), nc, len));
            }
            let mu_r = self.reals(&path, nc, true)?;
            if let Some(i) = mu_r.iter().position(|&m| m < 0.0) {
                return Err(self.parse_error(
                    &format!("{path}[{i}]"),
                    format!("rolling friction coefficient must be ≥ 0, found {}", mu_r[i]),
                ));
            }
            Some(mu_r)
        } else {
            None
        };
        Ok((GlobalFrictionContactProblem::new(d, m, h, f, w, mu)?, mu_r))
    }

    fn string(&self, path: &str) -> Option<String> {
        let ds = self.h5.dataset(path).ok()?;
        ds.read_string().ok()?.into_iter().next()
    }

    /// The solution, guesses and info strings (`{group}/info`) of `problem`.
    fn extras(&self, problem: &FrictionFile, group: &str) -> Result<FclibExtras, Error> {
        let (size, dofs) = match problem {
            FrictionFile::Local(p) => (p.size(), None),
            FrictionFile::Global(g) => (g.size(), Some(g.dofs())),
        };
        let info = format!("{group}/info");
        let mut x = FclibExtras {
            title: self.string(&format!("{info}/title")),
            description: self.string(&format!("{info}/description")),
            ..FclibExtras::default()
        };
        if self.exists("/solution/r") {
            let r = self.reals("/solution/r", size, true)?;
            let u = self.reals("/solution/u", size, true)?;
            x.solution = Some((r, u));
            if let Some(n) = dofs {
                if self.exists("/solution/v") {
                    x.solution_v = Some(self.reals("/solution/v", n, true)?);
                }
            }
        }
        if self.exists("/guesses/number_of_guesses") {
            let count = self.scalar("/guesses/number_of_guesses")?;
            if count < 0 {
                return Err(self.parse_error(
                    "/guesses/number_of_guesses",
                    format!("must be non-negative, found {count}"),
                ));
            }
            // Each guess must exist: a wrong count stops at the first missing group.
            for k in 1..=count {
                x.guesses.push(self.reals(&format!("/guesses/{k}/r"), size, true)?);
            }
        }
        Ok(x)
    }
}
