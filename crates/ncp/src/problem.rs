//! [`NcpFunction`] and [`Mcp`].

use faer::MatMut;
use perp_core::{Error, Solution, SolveReport};

/// The map F of a complementarity problem.
///
/// `jacobian` has a central finite-difference default (step `h = ε^{1/3}·max(1, |zⱼ|)`), so
/// prototyping needs only `eval`; supply the analytic Jacobian for speed and accuracy and
/// check it once with [`crate::check_jacobian`]. `sparse_jacobian` lets a large problem hand
/// its Jacobian over in CSR form (solvers then use a sparse LU).
pub trait NcpFunction: Sync {
    /// Dimension n (F: ℝⁿ → ℝⁿ).
    fn dim(&self) -> usize;
    /// `f = F(z)`.
    fn eval(&self, z: &[f64], f: &mut [f64]);
    /// `jac = ∇F(z)` (n×n, row i = gradient of Fᵢ). Default: central differences.
    fn jacobian(&self, z: &[f64], jac: MatMut<'_, f64>) {
        central_differences(self, z, jac);
    }
    /// The Jacobian in CSR form, for functions whose Jacobian is sparse. Default: `None`
    /// (solvers then call [`NcpFunction::jacobian`]).
    fn sparse_jacobian(&self, _z: &[f64]) -> Option<sprs::CsMat<f64>> {
        None
    }
    /// `Some((M, q))` when `F(z) = Mz + q` exactly (pivoting methods such as
    /// [`crate::schur_lemke`] need the data). Default: `None`.
    fn affine(&self) -> Option<(&perp_core::Matrix, &[f64])> {
        None
    }
}

/// `jac = ∇F(z)` by central differences, step `h = ε^{1/3}·max(1, |zⱼ|)` (error O(h²)).
pub fn central_differences<F: NcpFunction + ?Sized>(f: &F, z: &[f64], mut jac: MatMut<'_, f64>) {
    let n = f.dim();
    let mut zp = z.to_vec();
    let (mut fp, mut fm) = (vec![0.0; n], vec![0.0; n]);
    for j in 0..n {
        let h = f64::EPSILON.cbrt() * z[j].abs().max(1.0);
        zp[j] = z[j] + h;
        f.eval(&zp, &mut fp);
        zp[j] = z[j] - h;
        f.eval(&zp, &mut fm);
        zp[j] = z[j];
        for i in 0..n {
            jac[(i, j)] = (fp[i] - fm[i]) / (2.0 * h);
        }
    }
}

/// The kind of a variable's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundKind {
    /// `(−∞, ∞)`: the row is an equation Fᵢ(z) = 0.
    Free,
    /// `[l, ∞)`.
    Lower,
    /// `(−∞, u]`.
    Upper,
    /// `[l, u]` with both finite (possibly l = u: a fixed variable).
    Box,
}

/// MCP(F, l, u) (see the crate docs). NCP: `l = 0, u = +∞`; equation rows: `l = −∞, u = +∞`.
pub struct Mcp<'a> {
    /// The map F.
    pub f: &'a dyn NcpFunction,
    /// Lower bounds (may be −∞).
    pub lower: Vec<f64>,
    /// Upper bounds (may be +∞).
    pub upper: Vec<f64>,
}

impl<'a> Mcp<'a> {
    /// MCP(F, lower, upper), checked: lengths equal `f.dim()`, no NaN, `lower ≤ upper`,
    /// `lower < +∞`, `upper > −∞`.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// use perp_ncp::{AffineFunction, Mcp};
    /// let f = AffineFunction::new(Matrix::from_row_major(1, 1, &[2.0]).unwrap(), vec![-2.0]).unwrap();
    /// assert!(Mcp::new(&f, vec![0.0], vec![f64::INFINITY]).is_ok());
    /// assert!(Mcp::new(&f, vec![1.0], vec![0.0]).is_err());
    /// ```
    pub fn new(f: &'a dyn NcpFunction, lower: Vec<f64>, upper: Vec<f64>) -> Result<Self, Error> {
        let n = f.dim();
        Error::check_len("lower", &lower, n)?;
        Error::check_len("upper", &upper, n)?;
        Error::check_bounds(&lower, &upper)?;
        Ok(Mcp { f, lower, upper })
    }

    /// The NCP 0 ≤ z ⊥ F(z) ≥ 0.
    pub fn ncp(f: &'a dyn NcpFunction) -> Self {
        let n = f.dim();
        Mcp { f, lower: vec![0.0; n], upper: vec![f64::INFINITY; n] }
    }

    /// Dimension n.
    pub fn n(&self) -> usize {
        self.f.dim()
    }

    /// The kind of variable i's bounds.
    pub fn kind(&self, i: usize) -> BoundKind {
        match (self.lower[i].is_finite(), self.upper[i].is_finite()) {
            (false, false) => BoundKind::Free,
            (true, false) => BoundKind::Lower,
            (false, true) => BoundKind::Upper,
            (true, true) => BoundKind::Box,
        }
    }

    /// Whether every row is free or `[0, ∞)` (an NCP with equations: Siconos' MCP form).
    pub fn is_siconos_mcp(&self) -> bool {
        (0..self.n()).all(|i| {
            self.kind(i) == BoundKind::Free || (self.lower[i] == 0.0 && self.upper[i] == f64::INFINITY)
        })
    }

    /// The natural residual `rᵢ = zᵢ − mid(lᵢ, uᵢ, zᵢ − Fᵢ)`: zero exactly at solutions; for an
    /// NCP row it is `min(zᵢ, Fᵢ)`, for a free row `Fᵢ`.
    /// A NaN in z or F gives a NaN residual (`f64::max`/`min` alone would drop it).
    pub fn natural_residual(&self, z: &[f64], f: &[f64], r: &mut [f64]) {
        for (i, ri) in r.iter_mut().enumerate().take(z.len()) {
            *ri = self.residual_at(i, z, f);
        }
    }

    #[inline]
    fn residual_at(&self, i: usize, z: &[f64], f: &[f64]) -> f64 {
        // z − mid(l, u, z − F) computed as mid(z − u, z − l, F): the same number, without the
        // cancellation of z − (z − F) that reads F as 0 once |z| ≫ |F|/ε (a z running off to
        // 1e16 with F = −0.5 measured 0, issue 36). For l = 0, u = ∞ it is min(z, F) exactly.
        if z[i].is_nan() || f[i].is_nan() {
            f64::NAN
        } else {
            f[i].max(z[i] - self.upper[i]).min(z[i] - self.lower[i])
        }
    }

    /// The peer-compatible error at (z, F(z)): for NCP/MCP with rows that are free or
    /// `[0, ∞)`, Siconos' `‖F_free‖₂ + ‖min(z, F)‖₂` over the complementarity rows
    /// (`design/SUITES.md`; for a pure NCP `‖min(z, F)‖₂`); with general bounds the 2-norm of
    /// the natural residual, which agrees with it when there are no free rows.
    /// Allocates nothing: solvers call it every iteration.
    pub fn error(&self, z: &[f64], f: &[f64]) -> f64 {
        let (mut free, mut comp) = (0.0, 0.0);
        for i in 0..z.len() {
            let ri = self.residual_at(i, z, f);
            if self.kind(i) == BoundKind::Free {
                free += ri * ri;
            } else {
                comp += ri * ri;
            }
        }
        if self.is_siconos_mcp() {
            free.sqrt() + comp.sqrt()
        } else {
            (free + comp).sqrt()
        }
    }

    /// `‖natural residual‖∞` at (z, F(z)) (NaN if any entry is NaN).
    pub fn residual_inf(&self, z: &[f64], f: &[f64]) -> f64 {
        (0..z.len()).fold(0.0, |a: f64, i| {
            let r = self.residual_at(i, z, f);
            if r.is_nan() || a.is_nan() {
                f64::NAN
            } else {
                a.max(r.abs())
            }
        })
    }

    /// Checks a starting point (length n, finite) and returns it projected onto the bounds.
    pub fn start(&self, z0: &[f64]) -> Result<Vec<f64>, Error> {
        Error::check_len("starting point", z0, self.n())?;
        Error::check_finite("starting point", z0)?;
        Ok((0..z0.len()).map(|i| z0[i].max(self.lower[i]).min(self.upper[i])).collect())
    }

    /// Wraps up a solve: evaluates F at the returned z, computes the error measures from it,
    /// and applies [`SolveReport::verify`] (never `Solved` with error > tol; a NaN in F(z) makes
    /// the error NaN and so never `Solved`). Newton iterates may sit a rounding error outside
    /// the bounds: z is replaced by its projection onto them when that keeps the error within
    /// `max(error at z, tol)` — clamping an entry of 1e-8 can change F by ‖∇F‖·1e-8, which on
    /// a badly scaled problem is worse than the infeasibility it removes.
    pub fn solution(&self, z: Vec<f64>, mut report: SolveReport, tol: f64) -> Solution {
        let mut w = vec![0.0; z.len()];
        self.f.eval(&z, &mut w);
        let mut error = self.error(&z, &w);
        let mut z = z;
        let projected: Vec<f64> = (0..z.len())
            .map(|i| if z[i].is_nan() { z[i] } else { z[i].max(self.lower[i]).min(self.upper[i]) })
            .collect();
        if projected != z {
            let mut wp = vec![0.0; z.len()];
            self.f.eval(&projected, &mut wp);
            let ep = self.error(&projected, &wp);
            if ep <= error.max(tol) {
                (z, w, error) = (projected, wp, ep);
            }
        }
        report.error = error;
        report.residual_inf = self.residual_inf(&z, &w);
        if report.error.is_nan() && report.status == perp_core::Status::Solved {
            report.status = perp_core::Status::NumericalFailure;
        }
        report.verify(tol);
        self.verify_physics(&z, &w, &mut report, tol);
        Solution { z, w, report, ray: None }
    }

    /// The velocity-like scale V of [`Mcp::physical_error`] at z with `fnorm = ‖F(z)‖`. For an
    /// affine F = Mz + q, the data's: `max(‖q‖, ‖F(z)‖) + ρ`, ρ what computing Mz + q may round
    /// ([`perp_core::Matrix::rounding_bound`]), as for the LCP and the MLCP (issue 36: not
    /// `max|M|·‖z‖`, which grows with a z running off along M's null space and made every
    /// figure vanish like 1/‖z‖). A nonlinear F has no data apart from the iterate: there V is
    /// `max(‖F(z)‖, max|∇F(z)|·‖z‖)`, what F is made of near z (its round-off level; ‖F(z)‖
    /// alone is 0 at an interior solution).
    fn velocity_scale(&self, z: &[f64], fnorm: f64) -> f64 {
        use perp_core::measures::norm2;
        if let Some((m, q)) = self.f.affine() {
            let qn = norm2(q);
            return qn.max(fnorm) + m.rounding_bound(z, 1e-6 * qn);
        }
        let jmax = if let Some(j) = self.f.sparse_jacobian(z) {
            perp_core::Matrix::Sparse(j).max_abs()
        } else {
            let n = self.n();
            let mut j = faer::Mat::<f64>::zeros(n, n);
            self.f.jacobian(z, j.as_mut());
            perp_core::Matrix::Dense(j).max_abs()
        };
        fnorm.max(jmax * norm2(z))
    }

    /// The answer checked in the problem's own scales, as `Lcp`'s and `Mlcp`'s are (issue 15):
    /// the natural residual `zᵢ − mid(lᵢ, uᵢ, zᵢ − Fᵢ) = mid(zᵢ − uᵢ, zᵢ − lᵢ, Fᵢ)` with its
    /// distances to the bounds divided by `Z = max(‖z‖, ‖finite bounds‖)` and F by
    /// V the data's scale for an affine F, `max(‖q‖, ‖F(z)‖)` plus what computing F may round,
    /// and `max(‖F(z)‖, max|∇F(z)|·‖z‖)` (what F is made of near z, so its round-off level)
    /// for a nonlinear F (see `velocity_scale`):
    /// `max_i |mid((zᵢ − uᵢ)/Z, (zᵢ − lᵢ)/Z, Fᵢ/V)|`. Unchanged under `F → s_F F` and
    /// `z → z/s_z` (bounds too), unlike the MCP measure the Newton methods stop on, which adds z
    /// and F as if they had one unit. Absolute when `V ≤ ε` (round-off dust); NaN when a scale
    /// overflows.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// use perp_ncp::{AffineFunction, Mcp};
    /// // F(z) = 1e-8 z − 1e-8: the answer is z = 1. At z = 0.5, F = −5e-9 and the MCP measure
    /// // |min(z, F)| = 5e-9 meets tol 1e-8, but F is half the data's scale ‖q‖: figure 0.5.
    /// let f = AffineFunction::new(Matrix::from_row_major(1, 1, &[1e-8]).unwrap(), vec![-1e-8]).unwrap();
    /// let p = Mcp::ncp(&f);
    /// assert_eq!(p.physical_error(&[1.0], &[0.0]), 0.0);
    /// assert!(p.error(&[0.5], &[-0.5e-8]) < 1e-8);
    /// assert!((p.physical_error(&[0.5], &[-0.5e-8]) - 0.5).abs() < 1e-12);
    /// ```
    pub fn physical_error(&self, z: &[f64], f: &[f64]) -> f64 {
        use perp_core::measures::norm2;
        let bounds = (0..z.len())
            .flat_map(|i| [self.lower[i], self.upper[i]])
            .filter(|b| b.is_finite())
            .fold(0.0_f64, |a, b| a.hypot(b));
        let zn = norm2(z).max(bounds);
        let v = self.velocity_scale(z, norm2(f));
        if !(zn.is_finite() && v.is_finite()) {
            return f64::NAN;
        }
        let dust = v <= f64::EPSILON;
        let rel = |x: f64, s: f64| {
            if x == 0.0 || x.is_nan() || dust || s <= 0.0 || x.is_infinite() {
                x
            } else {
                x / s
            }
        };
        let mut worst = 0.0_f64;
        for i in 0..z.len().min(f.len()) {
            let (a, b, c) = (rel(z[i] - self.upper[i], zn), rel(z[i] - self.lower[i], zn), rel(f[i], v));
            if a.is_nan() || b.is_nan() || c.is_nan() {
                return f64::NAN;
            }
            // mid(a, b, c) with a ≤ b (a = −∞ without an upper bound, b = +∞ without a lower).
            let e = c.max(a).min(b);
            worst = worst.max(e.abs());
        }
        worst
    }

    /// A `Solved` report whose answer fails [`Mcp::physical_error`] by more than
    /// `perp_core::measures::physical_bound(tol)` becomes `NumericalFailure`, saying so; the
    /// figure goes into `report.physical_error` whatever the status.
    pub fn verify_physics(&self, z: &[f64], f: &[f64], report: &mut SolveReport, tol: f64) {
        report.check_physics(self.physical_error(z, f), tol, "infeasibility or complementarity of z and F");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AffineFunction;
    use perp_core::Matrix;

    fn f2() -> AffineFunction<'static> {
        AffineFunction::new(Matrix::from_row_major(2, 2, &[2.0, 1.0, 1.0, 2.0]).unwrap(), vec![-5.0, -6.0])
            .unwrap()
    }

    #[test]
    fn error_is_siconos_ncp_and_mcp_measure() {
        let f = f2();
        let p = Mcp::ncp(&f);
        // z = (1, 0): F = (−3, −5): min = (−3, −5).
        assert!((p.error(&[1.0, 0.0], &[-3.0, -5.0]) - 34f64.sqrt()).abs() < 1e-15);
        let inf = f64::INFINITY;
        let m = Mcp::new(&f, vec![f64::NEG_INFINITY, 0.0], vec![inf, inf]).unwrap();
        // Free row: |F₁| = 3; comp row: |min(0, −5)| = 5 → 3 + 5.
        assert_eq!(m.error(&[1.0, 0.0], &[-3.0, -5.0]), 8.0);
        let b = Mcp::new(&f, vec![0.0, 0.0], vec![1.0, inf]).unwrap();
        // Box row at its upper bound with F < 0: residual 0.
        assert_eq!(b.error(&[1.0, 0.0], &[-3.0, 0.0]), 0.0);
    }

    #[test]
    fn bad_bounds_and_starts_are_errors() {
        let f = f2();
        assert!(matches!(Mcp::new(&f, vec![0.0], vec![1.0]), Err(Error::DimensionMismatch { .. })));
        assert!(matches!(
            Mcp::new(&f, vec![0.0, 2.0], vec![1.0, 1.0]),
            Err(Error::InvalidBounds { index: 1, .. })
        ));
        let p = Mcp::ncp(&f);
        assert!(p.start(&[1.0, f64::NAN]).is_err());
        assert_eq!(p.start(&[-1.0, 2.0]).unwrap(), vec![0.0, 2.0]);
    }

    #[test]
    fn nan_in_f_is_never_solved() {
        struct NanF;
        impl NcpFunction for NanF {
            fn dim(&self) -> usize {
                1
            }
            fn eval(&self, _z: &[f64], f: &mut [f64]) {
                f[0] = f64::NAN;
            }
        }
        let p = Mcp::ncp(&NanF);
        let mut r = SolveReport::new("x");
        r.status = perp_core::Status::Solved;
        let s = p.solution(vec![0.0], r, 1e-8);
        assert_eq!(s.report.status, perp_core::Status::NumericalFailure);
    }
}
