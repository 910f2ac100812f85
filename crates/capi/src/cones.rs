//! Friction laws from C: the per-contact laws a [`PerpCone`] describes (checked and built), and
//! `perp_solver_friction_cone` / `perp_solve_friction_cone`, and the frictional solve both
//! they and `perp_solve_friction` / `perp_solver_friction` run.

use super::*;

/// The contact dimension `dim` checked against the law `cone` (NULL: Coulomb), and
/// `dim · n_contacts` (checked for overflow).
pub(super) unsafe fn cone_size(
    cone: Option<&PerpCone>,
    dim: usize,
    n_contacts: usize,
) -> Result<usize, Refusal> {
    let kind = cone.map_or(PerpConeKind::Coulomb as i32, |c| c.kind);
    let dims: &[usize] = if kind == PerpConeKind::Coulomb as i32 || kind == PerpConeKind::Pyramid as i32 {
        &[2, 3]
    } else if kind == PerpConeKind::Elliptic as i32 {
        &[2, 3, 4]
    } else if kind == PerpConeKind::Rolling as i32 {
        &[3, 5]
    } else {
        return Err(Error::setting(
            "cone.kind",
            kind,
            "must be PERP_CONE_COULOMB (0), PERP_CONE_PYRAMID (1), PERP_CONE_ELLIPTIC (2) or PERP_CONE_ROLLING (3)",
        )
        .into());
    };
    if !dims.contains(&dim) {
        let (law, which) = match kind {
            1 => ("a pyramid", "2 (with 2 facets) or 3"),
            2 => ("the elliptic cone", "2, 3 or 4 (with torsion)"),
            3 => ("the rolling cone", "3 (2-D: normal, tangential, rolling) or 5 (3-D)"),
            _ => ("Coulomb's cone", "2 or 3 (for torsion use PERP_CONE_ELLIPTIC, dim 4)"),
        };
        return Err(Error::setting("dim", dim, &format!("contacts of {law} have dimension {which}")).into());
    }
    Ok(dim
        .checked_mul(n_contacts)
        .ok_or_else(|| Error::setting("n_contacts", n_contacts, "dim * n_contacts overflows"))?)
}

/// The local problem of `w`, `q`, `mu` with the law `cone` (NULL: Coulomb) at each of its
/// contacts; the law's data read here (`cone.data`, named so in errors).
pub(super) unsafe fn cone_problem(
    cone: Option<&PerpCone>,
    dim: usize,
    w: Matrix,
    q: Vec<f64>,
    mu: Vec<f64>,
) -> Result<perp_cones::FrictionContactProblem, Refusal> {
    let nc = mu.len();
    let Some(c) = cone else {
        return Ok(perp_cones::FrictionContactProblem::new(dim, w, q, mu)?);
    };
    let specs: Vec<perp_cones::ConeSpec> = match c.kind {
        0 => return Ok(perp_cones::FrictionContactProblem::new(dim, w, q, mu)?),
        1 => {
            // Checked once here so that the error names the field, not a contact.
            perp_cones::Pyramid::new(dim, c.facets).map_err(|e| match e {
                Error::InvalidSetting { name, value, reason } if name == "facets" => {
                    Error::InvalidSetting { name: "cone.facets".into(), value, reason }
                }
                other => other,
            })?;
            vec![perp_cones::ConeSpec::Pyramid { facets: c.facets }; nc]
        }
        2 => {
            let k = dim - 1;
            let len = nc.checked_mul(k).ok_or_else(|| Error::setting("n_contacts", nc, "overflows"))?;
            let e = unsafe { read("cone.data (the semi-axes)", c.data, len)? };
            check_axes(&e, k)?;
            e.chunks(k).map(|a| perp_cones::ConeSpec::Elliptic { e: a.to_vec() }).collect()
        }
        _ => {
            let mu_r = unsafe { read("cone.data (mu_r)", c.data, nc)? };
            check_mu_r(&mu_r)?;
            return Ok(perp_cones::FrictionContactProblem::rolling(dim, w, q, mu, mu_r)?);
        }
    };
    Ok(perp_cones::FrictionContactProblem::new(dim, w, q, mu)?.with_cones(specs)?)
}

/// Refuses a semi-axis (`k` per contact) that is not finite and > 0, naming it.
pub(super) fn check_axes(e: &[f64], k: usize) -> Result<(), Refusal> {
    match e.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
        Some(i) => Err(Error::setting(
            &format!("cone.data[{i}] (semi-axis {} of contact {})", i % k, i / k),
            e[i],
            "must be finite and > 0",
        )
        .into()),
        None => Ok(()),
    }
}

/// Refuses a rolling coefficient that is not finite and >= 0, naming it.
pub(super) fn check_mu_r(mu_r: &[f64]) -> Result<(), Refusal> {
    match mu_r.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
        Some(i) => {
            Err(Error::setting(&format!("mu_r[{i}] (cone.data)"), mu_r[i], "must be finite and >= 0").into())
        }
        None => Ok(()),
    }
}

/// Refills the laws of the kept problem `p` from `cone` in place when they are of the same
/// kind (and, for pyramids, facets): μ_r or the semi-axes are copied (checked first).
/// `false` when the kinds differ (nothing changed).
pub(super) unsafe fn refill_laws(
    p: &mut perp_cones::FrictionContactProblem,
    cone: Option<&PerpCone>,
) -> Result<bool, Refusal> {
    use perp_cones::ConeSpec;
    let nc = p.contacts();
    let k = p.dim - 1;
    let kind = cone.map_or(PerpConeKind::Coulomb as i32, |c| c.kind);
    let Some(laws) = p.cones.as_mut() else {
        return Ok(kind == PerpConeKind::Coulomb as i32);
    };
    let Some(c) = cone else { return Ok(false) };
    if kind == PerpConeKind::Pyramid as i32 {
        return Ok(laws.iter().all(|l| matches!(l, ConeSpec::Pyramid { facets } if *facets == c.facets)));
    }
    if kind == PerpConeKind::Elliptic as i32 {
        if !laws.iter().all(|l| matches!(l, ConeSpec::Elliptic { e } if e.len() == k)) {
            return Ok(false);
        }
        let e = unsafe { view(|| "cone.data (the semi-axes)".into(), c.data, nc * k)? };
        check_axes(e, k)?;
        for (law, axes) in laws.iter_mut().zip(e.chunks(k)) {
            if let ConeSpec::Elliptic { e } = law {
                e.copy_from_slice(axes);
            }
        }
        return Ok(true);
    }
    if kind == PerpConeKind::Rolling as i32 {
        if !laws.iter().all(|l| matches!(l, ConeSpec::Rolling { .. })) {
            return Ok(false);
        }
        let v = unsafe { view(|| "cone.data (mu_r)".into(), c.data, nc)? };
        check_mu_r(v)?;
        for (law, &m) in laws.iter_mut().zip(v) {
            *law = ConeSpec::Rolling { mu_r: m };
        }
        return Ok(true);
    }
    Ok(false)
}

/// `perp_solve_friction_cone` with a kept solver of the frictional family: the law, W, q, μ
/// and the warm start as there. While W keeps its shape, `dim` and `n_contacts` their values
/// and the law its kind (and facets), the problem is refilled in place (μ_r and semi-axes
/// included); otherwise it is built afresh. The answer equals `perp_solve_friction_cone`'s
/// with the same solver and settings, bit for bit (for a solver without memory of earlier
/// answers).
#[no_mangle]
pub unsafe extern "C" fn perp_solver_friction_cone(
    s: *mut PerpSolver,
    cone: *const PerpCone,
    dim: usize,
    w_mat: *const PerpMatrix,
    q: *const f64,
    mu: *const f64,
    n_contacts: usize,
    warm: *const f64,
    r: *mut f64,
    u: *mut f64,
    report: *mut PerpReport,
) -> PerpStatus {
    guard("perp_solver_friction_cone", report, || unsafe {
        let h = handle(s, Family::Friction)?;
        let cone = cone_arg(cone)?;
        let size = cone_size(cone.as_ref(), dim, n_contacts)?;
        let a = FrictionArgs { dim, size, w: w_mat, q, mu, n_contacts, warm };
        keep_friction(h, cone.as_ref(), &a, r, u)
    })
}

/// Solves the frictional contact problem `u = W r + q` with the friction law `cone` at each
/// of the `n_contacts` contacts of dimension `dim` (normal component first),
/// `size = dim * n_contacts`: Coulomb's cone (dim 2, 3), a pyramid (dim 2, 3), the elliptic
/// cone (dim 2–4, torsion at 4) or Siconos' rolling friction cone (dim 3, 5; μ_r per
/// contact), see `PerpConeKind`.
///
/// * `cone`: the law (`perp_cone_rolling(mu_r)`, …), or NULL for Coulomb; a kind and `dim`
///   that do not fit, a negative μ_r, a semi-axis <= 0 or too few facets are refused naming
///   the field and value;
/// * the other arguments as for `perp_solve_friction`. Solvers that work from a cone's
///   projection or natural map (nsgs, prox, fb-newton, ac-newton, admm, apgd, …) take every
///   law; a solver that cannot take one refuses the call with a message saying which to use.
///
/// Returns the status (see `PerpStatus`).
#[no_mangle]
pub unsafe extern "C" fn perp_solve_friction_cone(
    solver: *const c_char,
    cone: *const PerpCone,
    dim: usize,
    w_mat: *const PerpMatrix,
    q: *const f64,
    mu: *const f64,
    n_contacts: usize,
    warm: *const f64,
    settings: *const PerpSettings,
    r: *mut f64,
    u: *mut f64,
    report: *mut PerpReport,
) -> PerpStatus {
    guard("perp_solve_friction_cone", report, || unsafe {
        let name = solver_name(solver, Family::Friction)?;
        let cone = cone_arg(cone)?;
        let size = cone_size(cone.as_ref(), dim, n_contacts)?;
        let a = FrictionArgs { dim, size, w: w_mat, q, mu, n_contacts, warm };
        solve_friction(name, cone.as_ref(), &a, settings, r, u)
    })
}

/// The law argument `cone`: `None` for NULL (Coulomb), refused when misaligned.
unsafe fn cone_arg(cone: *const PerpCone) -> Result<Option<PerpCone>, Refusal> {
    if !cone.is_null() && !cone.is_aligned() {
        return Err(Refusal::Null("cone".into()));
    }
    // SAFETY: checked aligned; NULL is None. PerpCone is plain data.
    Ok(if cone.is_null() { None } else { Some(unsafe { *cone }) })
}

/// The arguments of a frictional call that describe its problem, as C passes them (read and
/// checked by [`solve_friction`] and [`keep_friction`]); `size = dim · n_contacts`, checked.
pub(super) struct FrictionArgs {
    pub(super) dim: usize,
    pub(super) size: usize,
    pub(super) w: *const PerpMatrix,
    pub(super) q: *const f64,
    pub(super) mu: *const f64,
    pub(super) n_contacts: usize,
    pub(super) warm: *const f64,
}

/// Solves the frictional problem of `a` with the law `cone` (NULL: Coulomb) once, by the
/// catalogue solver `name`, into the caller's `r` and `u` (`perp_solve_friction` and
/// `perp_solve_friction_cone`).
pub(super) unsafe fn solve_friction(
    name: &str,
    cone: Option<&PerpCone>,
    a: &FrictionArgs,
    settings: *const PerpSettings,
    r: *mut f64,
    u: *mut f64,
) -> Result<PerpReport, Refusal> {
    let wm = unsafe { ordered_matrix(a.w, "W", "dim * n_contacts", a.size)? };
    let w = unsafe { matrix(&wm, "W")? };
    let q = unsafe { read("q", a.q, a.size)? };
    let mu = unsafe { read("mu", a.mu, a.n_contacts)? };
    let warm = warm_start(a.warm, a.size)?;
    let (s, params) = unsafe { self::settings(settings, Family::Friction, name)? };
    check_outs(&[("r", r), ("u", u)])?;
    let p = unsafe { cone_problem(cone, a.dim, w, q, mu)? };
    let ans = solve_once(Family::Friction, name, &params, Problem::Friction(p), warm.as_deref(), &s)?;
    Ok(unsafe { written(&ans, r, u, a.size) })
}

/// Solves the frictional problem of `a` with the law `cone` (NULL: Coulomb) by the kept
/// solver `h` into the caller's `r` and `u`. While W keeps its shape, `dim` and `n_contacts`
/// their values and the law its kind (see [`refill_laws`]), the kept problem is refilled in
/// place; otherwise it is built afresh (`perp_solver_friction` and
/// `perp_solver_friction_cone`).
pub(super) unsafe fn keep_friction(
    h: &mut PerpSolver,
    cone: Option<&PerpCone>,
    a: &FrictionArgs,
    r: *mut f64,
    u: *mut f64,
) -> Result<PerpReport, Refusal> {
    let (dim, size) = (a.dim, a.size);
    let wm = unsafe { ordered_matrix(a.w, "W", "dim * n_contacts", size)? };
    let qs = unsafe { view(|| "q".into(), a.q, size)? };
    let mus = unsafe { view(|| "mu".into(), a.mu, a.n_contacts)? };
    let start = unsafe { warm_view(a.warm, size)? };
    check_outs(&[("r", r), ("u", u)])?;
    // The values are checked by the solve (`solve_into` validates the problem).
    let kept = match &mut h.problem {
        Some(Problem::Friction(p)) if p.dim == dim && p.size() == size => {
            match unsafe { same_shape(&wm, &p.w, "W")? } {
                Some(values) if unsafe { refill_laws(p, cone)? } => {
                    refill(&mut p.w, values);
                    p.q.copy_from_slice(qs);
                    p.mu.copy_from_slice(mus);
                    true
                }
                _ => false,
            }
        }
        _ => false,
    };
    if !kept {
        h.problem = None;
        let w = unsafe { matrix(&wm, "W")? };
        let p = unsafe { cone_problem(cone, dim, w, qs.to_vec(), mus.to_vec())? };
        h.problem = Some(Problem::Friction(p));
    }
    unsafe { h.solve_kept(start, r, u) }
}
