//! The global form from C: `perp_solve_global`, `M v = f + H r`, `u = Hᵀ v + b` (Coulomb).

use super::*;

/// Solves the frictional contact problem in global form (Siconos' and FCLIB's
/// `GlobalFrictionContactProblem`), `M v = f + H r`, `u = Hᵀ v + b`, Coulomb friction at
/// `n_contacts` contacts of dimension `dim` (2 or 3; normal component first),
/// `size = dim * n_contacts`, without forming W by the global solvers.
///
/// * `solver`: `global-ipm` (NULL: interior point on the convex relaxation, then Newton to
///   the exact problem), `global-ac-newton`, or a local frictional solver's name (run on the
///   reduction `W = Hᵀ M⁻¹ H`);
/// * `m_mat`: M, `n_dof`×`n_dof` symmetric positive definite (its order gives `n_dof`);
///   `h_mat`: H, `n_dof`×`size`; `f`: `n_dof` values; `b`: `size` values; `mu`: `n_contacts`
///   friction coefficients (>= 0);
/// * `warm`: `size` reactions to start from, or NULL;
/// * `settings`: NULL for `perp_settings_default()`;
/// * `r`, `u` (`size` values) and `v` (`n_dof` values): the caller's buffers, written when
///   the result is >= 0;
/// * `report`: written when not NULL (also when the call is refused); its error is Siconos'
///   global measure.
///
/// Returns the status (see `PerpStatus`).
#[no_mangle]
pub unsafe extern "C" fn perp_solve_global(
    solver: *const c_char,
    dim: usize,
    m_mat: *const PerpMatrix,
    h_mat: *const PerpMatrix,
    f: *const f64,
    b: *const f64,
    mu: *const f64,
    n_contacts: usize,
    warm: *const f64,
    settings: *const PerpSettings,
    r: *mut f64,
    v: *mut f64,
    u: *mut f64,
    report: *mut PerpReport,
) -> PerpStatus {
    guard("perp_solve_global", report, || unsafe {
        let name = if solver.is_null() { "global-ipm" } else { solver_name(solver, Family::Friction)? };
        if !(2..=3).contains(&dim) {
            return Err(Error::setting(
                "dim",
                dim,
                "the global problem takes Coulomb contacts of dimension 2 or 3 (perp's global form \
                 has no rolling or torsional cones yet: form W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + b and call \
                 perp_solve_friction_cone)",
            )
            .into());
        }
        let size = friction_size(dim, n_contacts)?;
        let mm = matrix_arg(m_mat, "M")?;
        let n_dof = mm.nrows;
        check_order(&mm, "M", "n_dof (M's order)", n_dof)?;
        let hm = matrix_arg(h_mat, "H")?;
        if (hm.nrows, hm.ncols) != (n_dof, size) {
            return Err(Error::setting(
                "H",
                format!("{}x{}", hm.nrows, hm.ncols),
                &format!("H must be n_dof x (dim * n_contacts) = {n_dof}x{size}"),
            )
            .into());
        }
        let m = matrix(&mm, "M")?;
        let h = matrix(&hm, "H")?;
        let f = read("f", f, n_dof)?;
        let b = read("b", b, size)?;
        let mu = read("mu", mu, n_contacts)?;
        let warm = warm_start(warm, size)?;
        let (s, params) = self::settings(settings, Family::Friction, name)?;
        check_outs(&[("r", r), ("v", v), ("u", u)])?;
        let g = perp_cones::GlobalFrictionContactProblem::new(dim, m, h, f, b, mu)?;
        let a = solve_once(Family::Friction, name, &params, Problem::GlobalFriction(g), warm.as_deref(), &s)?;
        let report = written(&a, r, u, size);
        if let Some(vel) = &a.v {
            write(v, &vel[..n_dof]);
        }
        Ok(report)
    })
}
