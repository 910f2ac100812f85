//! The C boundary: the panic guard that turns a refusal into a status and the thread's message,
//! and the checked reading of the C arguments (pointers, sizes, matrices, settings, family and
//! solver names, warm starts) and writing of the outputs.

use super::*;

/// Runs `body` for the entry point `name`: clears the thread's message, catches panics,
/// turns a refusal into its code and message, and writes `report` when it is not NULL.
pub(super) fn guard(
    name: &str,
    report: *mut PerpReport,
    body: impl FnOnce() -> Result<PerpReport, Refusal>,
) -> PerpStatus {
    set_message(String::new());
    STOPPED_AT.with(|c| c.set(None));
    let mut out = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(mut r)) => {
            if let Some((k, ret)) = STOPPED_AT.with(|c| c.take()) {
                if r.status == PerpStatus::Interrupted {
                    let note = r.message_text();
                    let text = format!("stopped by settings.callback (it returned {ret} at iteration {k})");
                    let text = if note.is_empty() { text } else { format!("{text}; {note}") };
                    set_text(&mut r.message, &text);
                }
            }
            r
        }
        Ok(Err(Refusal::Null(what))) => {
            set_message(format!("{name}: {what} is a null or misaligned pointer"));
            PerpReport::refused(PerpStatus::NullPointer)
        }
        Ok(Err(Refusal::Input(e))) => {
            set_message(format!("{name}: {e}"));
            PerpReport::refused(PerpStatus::InvalidInput)
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_message(format!("{name}: internal error (please report): {what}"));
            PerpReport::refused(PerpStatus::InternalError)
        }
    };
    if (out.status as i32) < 0 {
        LAST_ERROR.with(|e| set_text(&mut out.message, &e.borrow()));
    }
    if !report.is_null() && report.is_aligned() {
        // SAFETY: non-null and aligned; the caller provides a writable PerpReport.
        unsafe { report.write(out) };
    }
    out.status
}

pub(super) fn set_message(m: String) {
    LAST_ERROR.with(|e| *e.borrow_mut() = m);
}

/// `len` elements at `p`, borrowed, or a refusal naming `what()` if `p` is NULL or misaligned
/// (the name is made only then: a kept solver's call allocates nothing).
pub(super) unsafe fn view<'a, T>(
    what: impl Fn() -> String,
    p: *const T,
    len: usize,
) -> Result<&'a [T], Refusal> {
    if p.is_null() || !p.is_aligned() {
        return Err(Refusal::Null(what()));
    }
    // No buffer is larger than isize::MAX bytes (a slice of more is undefined behaviour).
    if len.checked_mul(size_of::<T>()).is_none_or(|bytes| bytes > isize::MAX as usize) {
        return Err(Error::setting(
            &format!("length of {}", what()),
            len,
            "is more elements than memory holds",
        )
        .into());
    }
    // SAFETY: checked non-null and aligned; the caller promises `len` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// [`view`] copied; an allocation that fails is a refusal, not an abort.
pub(super) unsafe fn read<T: Copy>(what: &str, p: *const T, len: usize) -> Result<Vec<T>, Refusal> {
    let v = unsafe { view(|| what.into(), p, len)? };
    let mut out = Vec::new();
    out.try_reserve_exact(len)
        .map_err(|_| Error::setting(&format!("length of {what}"), len, "cannot be copied: out of memory"))?;
    out.extend_from_slice(v);
    Ok(out)
}

/// The `PerpMatrix` argument behind `m` (plain data), or a refusal naming it.
pub(super) unsafe fn matrix_arg(m: *const PerpMatrix, name: &str) -> Result<PerpMatrix, Refusal> {
    if m.is_null() || !m.is_aligned() {
        return Err(Refusal::Null(name.into()));
    }
    // SAFETY: checked non-null and aligned; PerpMatrix is plain data (its format is an i32).
    Ok(unsafe { *m })
}

/// The warm start at `p` (`n` finite values), or `None` for NULL.
pub(super) unsafe fn warm_view<'a>(p: *const f64, n: usize) -> Result<Option<&'a [f64]>, Refusal> {
    if p.is_null() {
        return Ok(None);
    }
    let w = unsafe { view(|| "warm".into(), p, n)? };
    Error::check_finite("warm", w)?;
    Ok(Some(w))
}

/// Checks, before any array is read, that the size `n` passed as the argument `arg` is the
/// order of the square matrix `m` (named `name`), and that a dense matrix's `nrows · ncols`
/// does not overflow (a CSR matrix's own sizes are checked by [`matrix`] before it reads).
pub(super) fn check_order(m: &PerpMatrix, name: &str, arg: &str, n: usize) -> Result<(), Refusal> {
    if m.nrows != m.ncols {
        return Err(Error::NotSquare { what: name.into(), rows: m.nrows, cols: m.ncols }.into());
    }
    if m.nrows != n {
        return Err(Error::setting(
            arg,
            n,
            &format!("{name} is {}x{}; {arg} must be its order", m.nrows, m.ncols),
        )
        .into());
    }
    if m.format == PerpFormat::DenseColMajor as i32 {
        dense_len(m, name)?;
    }
    Ok(())
}

/// `nrows · ncols` of `m`, or a refusal when it overflows.
pub(super) fn dense_len(m: &PerpMatrix, name: &str) -> Result<usize, Refusal> {
    let (r, c) = (m.nrows, m.ncols);
    Ok(r.checked_mul(c).ok_or_else(|| {
        Error::setting(&format!("{name}.nrows * {name}.ncols"), format!("{r} * {c}"), "overflows")
    })?)
}

/// `dim · n_contacts` for a frictional call, with `dim` checked (2 or 3).
pub(super) fn friction_size(dim: usize, n_contacts: usize) -> Result<usize, Refusal> {
    if !(2..=3).contains(&dim) {
        return Err(Error::setting("dim", dim, "the contact dimension must be 2 or 3").into());
    }
    Ok(dim
        .checked_mul(n_contacts)
        .ok_or_else(|| Error::setting("n_contacts", n_contacts, "dim * n_contacts overflows"))?)
}

pub(super) fn check_out(what: &str, p: *mut f64) -> Result<(), Refusal> {
    if p.is_null() || !p.is_aligned() {
        return Err(Refusal::Null(what.into()));
    }
    Ok(())
}

/// [`check_out`] on each output buffer, in order.
pub(super) fn check_outs(outs: &[(&str, *mut f64)]) -> Result<(), Refusal> {
    outs.iter().try_for_each(|&(what, p)| check_out(what, p))
}

/// The square matrix argument `m` (named `name`) of order `n`, the size passed as `arg`:
/// [`matrix_arg`] then [`check_order`].
pub(super) unsafe fn ordered_matrix(
    m: *const PerpMatrix,
    name: &str,
    arg: &str,
    n: usize,
) -> Result<PerpMatrix, Refusal> {
    let mm = unsafe { matrix_arg(m, name)? };
    check_order(&mm, name, arg, n)?;
    Ok(mm)
}

/// The matrix `M` (square, of order `n`) and `q` (`n` values) of an LCP or MLCP call, read
/// and checked in that order.
pub(super) unsafe fn m_and_q(
    m: *const PerpMatrix,
    q: *const f64,
    n: usize,
) -> Result<(Matrix, Vec<f64>), Refusal> {
    let mm = unsafe { ordered_matrix(m, "M", "n", n)? };
    let m = unsafe { matrix(&mm, "M")? };
    Ok((m, unsafe { read("q", q, n)? }))
}

/// Refuses an MLCP's `n_eq` (its number of equations) above its size `n`.
pub(super) fn check_n_eq(n_eq: usize, n: usize) -> Result<(), Refusal> {
    if n_eq > n {
        return Err(Error::setting("n_eq", n_eq, &format!("must be at most n = {n}")).into());
    }
    Ok(())
}

/// Builds the catalogue solver `name` of `family` with `params` and solves `problem` once.
pub(super) fn solve_once(
    family: Family,
    name: &str,
    params: &Params,
    problem: Problem,
    warm: Option<&[f64]>,
    s: &Settings,
) -> Result<perp_catalogue::Answer, Refusal> {
    Ok(perp_catalogue::build(family, name, params)?.solve(&problem, warm, s)?)
}

/// Writes the first `n` values of an answer's z and w to the caller's buffers `x` and `y`
/// (checked by `check_out`) and returns its report.
pub(super) unsafe fn written(a: &perp_catalogue::Answer, x: *mut f64, y: *mut f64, n: usize) -> PerpReport {
    unsafe {
        write(x, &a.z[..n]);
        write(y, &a.w[..n]);
    }
    PerpReport::of(&a.report)
}

/// Copies `v` to the caller's buffer `p` (checked by `check_out`, `v.len()` elements long).
pub(super) unsafe fn write(p: *mut f64, v: &[f64]) {
    // SAFETY: `v` is perp's own vector, so it cannot overlap the caller's buffer.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
}

/// The matrix described by `m` (from [`matrix_arg`]), copied.
pub(super) unsafe fn matrix(m: &PerpMatrix, name: &str) -> Result<Matrix, Refusal> {
    let (r, c) = (m.nrows, m.ncols);
    if m.format == PerpFormat::DenseColMajor as i32 {
        let len = dense_len(m, name)?;
        let values = unsafe { view(|| format!("{name}.values"), m.values, len)? };
        Ok(Matrix::from_col_major(r, c, values).map_err(|e| rename(e, name))?)
    } else if m.format == PerpFormat::Csr as i32 {
        let len = r.checked_add(1).ok_or_else(|| Error::setting(&format!("{name}.nrows"), r, "too large"))?;
        if dense_len(m, name).is_ok_and(|all| m.nnz > all) {
            return Err(Error::setting(
                &format!("{name}.nnz"),
                m.nnz,
                &format!("is more entries than a {r}x{c} matrix has"),
            )
            .into());
        }
        let row_ptr = unsafe { read(&format!("{name}.row_ptr"), m.row_ptr, len)? };
        if row_ptr[0] != 0 || row_ptr[r] != m.nnz {
            return Err(Error::setting(
                &format!("{name}.row_ptr"),
                format!("[{}, …, {}]", row_ptr[0], row_ptr[r]),
                &format!("must start at 0 and end at nnz = {}", m.nnz),
            )
            .into());
        }
        // sprs slices rows by these offsets before checking them: a decreasing pair must be
        // refused here, or it would panic there.
        if let Some(i) = (0..r).find(|&i| row_ptr[i + 1] < row_ptr[i]) {
            return Err(Error::setting(
                &format!("{name}.row_ptr[{}]", i + 1),
                row_ptr[i + 1],
                &format!("row offsets must not decrease ({name}.row_ptr[{i}] = {})", row_ptr[i]),
            )
            .into());
        }
        let col_idx = unsafe { read(&format!("{name}.col_idx"), m.col_idx, m.nnz)? };
        let values = unsafe { read(&format!("{name}.values"), m.values, m.nnz)? };
        Error::check_finite(&format!("{name}.values"), &values)?;
        let csr = sprs::CsMat::new_from_unsorted((r, c), row_ptr, col_idx, values).map_err(|(.., e)| {
            Error::setting(&format!("{name} (CSR)"), format!("{r}x{c}, nnz = {}", m.nnz), &e.to_string())
        })?;
        Ok(Matrix::Sparse(csr))
    } else {
        Err(Error::setting(
            &format!("{name}.format"),
            m.format,
            "must be PERP_FORMAT_DENSE_COL_MAJOR (0) or PERP_FORMAT_CSR (1)",
        )
        .into())
    }
}

/// Names the C argument in the core's messages ("matrix (column-major)[3]" → "M.values[3]").
pub(super) fn rename(e: Error, name: &str) -> Error {
    match e {
        Error::NonFinite { index, value, .. } => {
            Error::NonFinite { what: format!("{name}.values (column-major)"), index, value }
        }
        Error::DimensionMismatch { expected, found, .. } => {
            Error::DimensionMismatch { what: format!("{name}.values"), expected, found }
        }
        other => other,
    }
}

/// The settings behind `s` for the solver `name` of `family`.
pub(super) unsafe fn settings(
    s: *const PerpSettings,
    family: Family,
    name: &str,
) -> Result<(Settings, Params), Refusal> {
    if s.is_null() {
        return Ok((Settings::default(), Params::new()));
    }
    if !s.is_aligned() {
        return Err(Refusal::Null("settings".into()));
    }
    // SAFETY: checked non-null and aligned; PerpSettings is plain data.
    let s = unsafe { *s };
    if !(s.time_limit.is_finite() && s.time_limit >= 0.0) {
        return Err(Error::setting(
            "settings.time_limit",
            s.time_limit,
            "must be finite and >= 0 seconds (0: none)",
        )
        .into());
    }
    let out = Settings {
        tol: s.tol,
        max_iter: s.max_iter,
        // 0: none; beyond what a `Duration` holds (1e300): none either.
        time_limit: if s.time_limit > 0.0 {
            Settings::limit_from_secs("settings.time_limit", s.time_limit)?
        } else {
            None
        },
        observer: s.callback.map(|f| c_observer(f, s.user)),
        ..Settings::default()
    };
    out.validate().map_err(|e| match e {
        Error::InvalidSetting { name, value, reason } => {
            Error::InvalidSetting { name: format!("settings.{name}"), value, reason }
        }
        other => other,
    })?;
    let params = if s.n_params > 0 { unsafe { params(&s, family, name)? } } else { Params::new() };
    Ok((out, params))
}

/// The observer that calls the C callback `f` (with `user`) at each measured iteration and
/// stops the solve, noting where in `STOPPED_AT`, when it returns nonzero.
fn c_observer(f: PerpCallback, user: *mut c_void) -> perp_core::Observer {
    let cb = CCallback { f, user };
    let observer: perp_core::Observer = std::sync::Arc::new(move |p: &perp_core::Progress| {
        if !p.measured {
            return perp_core::Control::Continue;
        }
        let cb = cb;
        // SAFETY: the caller's function, with the caller's pointer.
        let ret = unsafe { (cb.f)(cb.user, p.iteration, p.error) };
        if ret == 0 {
            perp_core::Control::Continue
        } else {
            STOPPED_AT.with(|c| c.set(Some((p.iteration, ret))));
            perp_core::Control::Stop
        }
    });
    observer
}

/// The solver parameters of `s.params` (`s.n_params` strings `name=value`, each name at
/// most once) for the solver `name` of `family`.
unsafe fn params(s: &PerpSettings, family: Family, name: &str) -> Result<Params, Refusal> {
    // Checked before `params` is read: with each name at most once, no solver takes more
    // strings than it has parameters.
    let declared = perp_catalogue::entry(family, name)?.params.len();
    if s.n_params > declared {
        return Err(Error::setting(
            "settings.n_params",
            s.n_params,
            &format!("{name} has {declared} parameter(s), each to be given at most once"),
        )
        .into());
    }
    let mut params = Params::new();
    let texts = unsafe { view(|| "settings.params".into(), s.params, s.n_params)? };
    let mut names: Vec<&str> = Vec::with_capacity(texts.len());
    for (i, &t) in texts.iter().enumerate() {
        let what = format!("settings.params[{i}]");
        let text = unsafe { c_str(&what, t)? };
        let Some((key, _)) = text.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
            return Err(Error::setting(&what, text, "must be \"name=value\", e.g. \"omega=1.3\"").into());
        };
        let key = key.trim();
        if let Some(j) = names.iter().position(|&n| n == key) {
            return Err(Error::setting(
                &what,
                text,
                &format!("parameter {key} is given twice (settings.params[{j}] too)"),
            )
            .into());
        }
        names.push(key);
        params = params.push_pair(text)?;
    }
    Ok(params)
}

pub(super) unsafe fn c_str<'a>(what: &str, p: *const c_char) -> Result<&'a str, Refusal> {
    if p.is_null() {
        return Err(Refusal::Null(what.into()));
    }
    // SAFETY: non-null; the caller promises a NUL-terminated string.
    let s = unsafe { CStr::from_ptr(p) };
    Ok(s.to_str().map_err(|_| Error::setting(what, s.to_string_lossy(), "is not valid UTF-8"))?)
}

/// The one family of the C API (LCP or frictional; MCP for a name of that family only) with
/// a solver called by the C string `p`: `PERP_FAMILY_ANY`'s rule.
pub(super) unsafe fn family_of_name(p: *const c_char) -> Result<Family, Refusal> {
    if p.is_null() {
        return Err(Error::setting("solver", "NULL", "PERP_FAMILY_ANY needs a solver name").into());
    }
    let name = unsafe { c_str("solver", p) }?;
    let all = perp_catalogue::families_of(name);
    let families: Vec<Family> = all.iter().copied().filter(|f| *f != Family::Mcp).collect();
    match families.as_slice() {
        [f] => Ok(*f),
        // An MCP solver only (schur-lemke).
        [] if all.contains(&Family::Mcp) => Ok(Family::Mcp),
        [] => Err(Error::unknown_solver(name, &perp_catalogue::all_names()).into()),
        _ => Err(Error::setting(
            "solver",
            name,
            "is both an LCP and a frictional-contact solver; give PERP_FAMILY_LCP or PERP_FAMILY_FRICTION",
        )
        .into()),
    }
}

pub(super) unsafe fn solver_name<'a>(p: *const c_char, family: Family) -> Result<&'a str, Refusal> {
    if p.is_null() {
        return Ok(family.default_solver());
    }
    unsafe { c_str("solver", p) }
}

pub(super) fn warm_start(p: *const f64, n: usize) -> Result<Option<Vec<f64>>, Refusal> {
    Ok(unsafe { warm_view(p, n)? }.map(<[f64]>::to_vec))
}
