//! [`FrictionContactProblem`]: the frictional contact problem in local (Delassus) form, and
//! the solver interface.

use crate::cone::{Cone, ConeSpec, MAX_DIM};
use perp_core::{measures, Error, Matrix, SolveReport, Status};
use std::sync::Arc;

/// The frictional contact problem in local form (Siconos' `FrictionContactProblem`, FCLIB's
/// `fclib_local`): `nc` contacts of dimension `dim`, unknown reactions `r ∈ R^{dim·nc}`,
///
/// ```text
///     u = W r + q,        K_i ∋ r_i  ⊥  ũ_i ∈ K_i*,     ũ_i = u_i + h_i(u_{i,T}) e_N,
/// ```
///
/// per contact i, with K_i the friction cone of coefficient `mu[i]` (De Saxcé's form of
/// Coulomb's law; see [`crate::cone`]). A contact's entries come normal first.
///
/// The fields are public (the contract of `design/ARCHITECTURE.md`); every solver calls
/// [`FrictionContactProblem::validate`] before it starts, and [`FrictionContactProblem::new`]
/// validates at construction.
#[derive(Clone, Debug)]
pub struct FrictionContactProblem {
    /// Contact dimension: 2 or 3 for Coulomb, 4 with torsion (at most [`MAX_DIM`]).
    pub dim: usize,
    /// The Delassus operator W (square, size `dim · nc`).
    pub w: Matrix,
    /// The free velocity q.
    pub q: Vec<f64>,
    /// Friction coefficient per contact (≥ 0).
    pub mu: Vec<f64>,
    /// Friction law per contact; `None` means Coulomb everywhere.
    pub cones: Option<Vec<ConeSpec>>,
}

impl FrictionContactProblem {
    /// A Coulomb problem, validated.
    ///
    /// ```
    /// use perp_cones::FrictionContactProblem;
    /// use perp_core::Matrix;
    /// let w = Matrix::from_row_major(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
    /// let p = FrictionContactProblem::new(3, w.clone(), vec![-1.0, 0.5, 0.0], vec![0.3]).unwrap();
    /// assert_eq!(p.contacts(), 1);
    /// let e = FrictionContactProblem::new(3, w, vec![-1.0, 0.5, 0.0], vec![-0.3]).unwrap_err();
    /// assert!(e.to_string().contains("mu[0]"));
    /// ```
    pub fn new(dim: usize, w: Matrix, q: Vec<f64>, mu: Vec<f64>) -> Result<Self, Error> {
        let p = FrictionContactProblem { dim, w, q, mu, cones: None };
        p.validate()?;
        Ok(p)
    }

    /// The same problem with one friction law per contact, validated.
    pub fn with_cones(mut self, cones: Vec<ConeSpec>) -> Result<Self, Error> {
        self.cones = Some(cones);
        self.validate()?;
        Ok(self)
    }

    /// Number of contacts.
    pub fn contacts(&self) -> usize {
        self.mu.len()
    }

    /// Number of unknowns, `dim · nc`.
    pub fn size(&self) -> usize {
        self.q.len()
    }

    /// True when every contact uses the Coulomb cone (the error is then Siconos' exactly).
    pub fn is_coulomb(&self) -> bool {
        self.cones.as_ref().is_none_or(|c| c.iter().all(ConeSpec::is_coulomb))
    }

    /// Checks sizes, values and friction laws; the error names the field and the value.
    pub fn validate(&self) -> Result<(), Error> {
        let d = self.dim;
        if !(2..=MAX_DIM).contains(&d) {
            return Err(Error::setting("dim", d, "the contact dimension must be between 2 and 6"));
        }
        let (rows, cols) = (self.w.nrows(), self.w.ncols());
        if rows != cols {
            return Err(Error::NotSquare { what: "W".into(), rows, cols });
        }
        if !rows.is_multiple_of(d) {
            return Err(Error::setting(
                "dim",
                d,
                &format!("the contact dimension must divide the size of W, which is {rows}"),
            ));
        }
        Error::check_len("q", &self.q, rows)?;
        Error::check_len("mu", &self.mu, rows / d)?;
        self.w.check_finite("W")?;
        Error::check_finite("q", &self.q)?;
        for (i, &m) in self.mu.iter().enumerate() {
            if !(m.is_finite() && m >= 0.0) {
                return Err(Error::setting(&format!("mu[{i}]"), m, "must be finite and ≥ 0"));
            }
        }
        if let Some(cones) = &self.cones {
            Error::check_len("cones", &vec![0.0; cones.len()], rows / d)?;
            for (i, spec) in cones.iter().enumerate() {
                let cone = spec.build(d).map_err(|e| contact_error(i, e))?;
                cone.check(self.mu[i]).map_err(|e| contact_error(i, e))?;
            }
        }
        Ok(())
    }

    /// The friction cone of every contact (one shared object when all are Coulomb).
    pub fn cone_objects(&self) -> Result<Vec<Arc<dyn Cone>>, Error> {
        match &self.cones {
            None => {
                let c: Arc<dyn Cone> = Arc::new(crate::Coulomb::new(self.dim)?);
                Ok(vec![c; self.contacts()])
            }
            Some(cones) => cones.iter().map(|s| s.build(self.dim)).collect(),
        }
    }

    /// `u = W r + q`.
    pub fn velocity(&self, r: &[f64]) -> Vec<f64> {
        let mut u = vec![0.0; self.size()];
        self.w.mul_vec(r, &mut u);
        u.iter_mut().zip(&self.q).for_each(|(a, b)| *a += b);
        u
    }

    /// The error measure (`design/SUITES.md`) of reactions `r` with velocities `u = W r + q`:
    /// Siconos' exactly for Coulomb problems; for other laws the same formula with the law's
    /// own projection and De Saxcé term (`e = r − P_K(r − ũ)`, the natural map with ρ = 1).
    pub fn error(&self, r: &[f64], u: &[f64]) -> f64 {
        if self.is_coulomb() && self.dim <= 3 {
            return measures::friction_contact_error(self.dim, &self.q, &self.mu, r, u);
        }
        let cones = match self.cone_objects() {
            Ok(c) => c,
            Err(_) => return f64::NAN,
        };
        let d = self.dim;
        let mut phi = [0.0; MAX_DIM];
        let mut sum = 0.0;
        for (i, cone) in cones.iter().enumerate() {
            let s = d * i..d * (i + 1);
            cone.natural_map(self.mu[i], 1.0, &r[s.clone()], &u[s], &mut phi[..d], None);
            sum += phi[..d].iter().map(|v| v * v).sum::<f64>();
        }
        let scale = measures::norm2(&self.q).max(measures::norm2(r)).max(measures::norm2(u));
        measures::normalize(sum.sqrt(), scale)
    }

    /// Packs a solver's answer: recomputes `u = W r + q` and the error from `r` alone, then
    /// passes the report through [`SolveReport::verify`] (a `Solved` claim above `tol` is
    /// downgraded to `NumericalFailure`).
    pub fn solution(&self, r: Vec<f64>, mut report: SolveReport, tol: f64) -> FrictionSolution {
        let u = self.velocity(&r);
        report.error = self.error(&r, &u);
        report.residual_inf = report.error;
        if !report.error.is_finite() && report.status == Status::Solved {
            report.status = Status::NumericalFailure;
        }
        report.verify(tol);
        FrictionSolution { r, u, report }
    }
}

fn contact_error(i: usize, e: Error) -> Error {
    match e {
        Error::InvalidSetting { name, value, reason } => {
            Error::InvalidSetting { name: format!("contact {i}: {name}"), value, reason }
        }
        other => other,
    }
}

/// What a frictional solver returns.
#[derive(Clone, Debug)]
pub struct FrictionSolution {
    /// Reactions (length `dim · nc`).
    pub r: Vec<f64>,
    /// Velocities `u = W r + q`, recomputed from `r`.
    pub u: Vec<f64>,
    /// Status, iterations, the error of [`FrictionContactProblem::error`] at `r`, timing.
    pub report: SolveReport,
}

/// A frictional contact solver (the catalogue, `perp-catalogue`, builds them by name).
pub trait FrictionSolver {
    /// The registry name.
    fn name(&self) -> &str;
    /// Solves `p`, starting from `warm` reactions (length `dim · nc`) or from 0.
    /// A run that does not converge is `Ok` with a status saying why; `Err` is for input that
    /// cannot be solved as given (sizes, values, a law the method cannot handle).
    fn solve(
        &mut self,
        p: &FrictionContactProblem,
        warm: Option<&[f64]>,
        s: &perp_core::Settings,
    ) -> Result<FrictionSolution, Error>;
}

/// Checks the problem, the settings and the warm start every solver receives; returns the
/// starting reactions.
pub(crate) fn start(
    p: &FrictionContactProblem,
    warm: Option<&[f64]>,
    s: &perp_core::Settings,
) -> Result<Vec<f64>, Error> {
    p.validate()?;
    s.validate()?;
    match warm {
        Some(r0) => {
            Error::check_len("warm start", r0, p.size())?;
            Error::check_finite("warm start", r0)?;
            Ok(r0.to_vec())
        }
        None => Ok(vec![0.0; p.size()]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eye(n: usize) -> Matrix {
        let t: Vec<(usize, usize, f64)> = (0..n).map(|i| (i, i, 1.0)).collect();
        Matrix::from_triplets(n, n, &t).unwrap()
    }

    #[test]
    fn bad_input_names_the_field() {
        let e = FrictionContactProblem::new(3, eye(4), vec![0.0; 4], vec![0.1]).unwrap_err();
        assert!(e.to_string().contains("divide the size of W, which is 4"), "{e}");
        let e = FrictionContactProblem::new(3, eye(3), vec![0.0; 3], vec![f64::NAN]).unwrap_err();
        assert!(e.to_string().contains("mu[0]"), "{e}");
        let e = FrictionContactProblem::new(3, eye(3), vec![0.0; 3], vec![0.1, 0.2]).unwrap_err();
        assert!(e.to_string().contains("mu"), "{e}");
        let e = FrictionContactProblem::new(7, eye(7), vec![0.0; 7], vec![0.1]).unwrap_err();
        assert!(e.to_string().contains("dim"), "{e}");
    }

    #[test]
    fn general_error_equals_siconos_on_coulomb() {
        let w = Matrix::from_row_major(3, 3, &[2.0, 0.1, 0.0, 0.1, 1.0, 0.2, 0.0, 0.2, 1.5]).unwrap();
        let p = FrictionContactProblem::new(3, w, vec![-1.0, 0.5, -0.2], vec![0.4]).unwrap();
        let r = [0.7, -0.1, 0.3];
        let u = p.velocity(&r);
        let siconos = p.error(&r, &u);
        let custom =
            p.clone().with_cones(vec![ConeSpec::Custom(Arc::new(crate::Coulomb::new(3).unwrap()))]).unwrap();
        assert!(!custom.is_coulomb());
        assert!((custom.error(&r, &u) - siconos).abs() < 1e-14 * siconos.max(1.0));
        assert!(siconos > 1e-3);
    }
}
