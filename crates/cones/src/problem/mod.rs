//! [`FrictionContactProblem`]: the frictional contact problem in local (Delassus) form, and
//! the solver interface.
//!
//! **Prepare once, solve many.** A simulator solves thousands of tiny problems per second
//! whose structure (dim, size, storage and sparsity pattern of W, friction laws) does not
//! change from one call to the next; only the values of W, q and μ do. The solvers keep
//! what depends on the structure alone (W's CSR pattern and diagonal blocks, the cone
//! objects, the iteration vectors, the Newton matrix and its LU storage) in a private
//! workspace, and [`FrictionSolver::solve_into`] writes `r`, `u = W r + q` and the report
//! into the caller's buffers: once prepared, a solve of a dense small problem allocates
//! nothing (see each solver for what still allocates).
//!
//! This file holds the problem, its validation and its error measure; `measure` the other
//! measures and the solution, `solver` the solver interface, `driver` the steps every
//! frictional solve shares.

use crate::cone::{Cone, ConeSpec, MAX_DIM};
use perp_core::{measures, Error, Matrix, Settings, SolveReport, Status};
use std::sync::Arc;

mod measure;
pub(crate) use measure::Measured;
mod solver;
pub use solver::*;
mod driver;
pub(crate) use driver::*;

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
        self.validate_values()?;
        let d = self.dim;
        let rows = self.w.nrows();
        if let Some(cones) = &self.cones {
            if cones.len() != rows / d {
                return Err(Error::dim("cones", rows / d, cones.len()));
            }
            // `check` builds no cone object: a stepper validates its problem every step.
            for (i, spec) in cones.iter().enumerate() {
                spec.check(d, self.mu[i]).map_err(|e| contact_error(i, e))?;
            }
        }
        Ok(())
    }

    /// Everything [`FrictionContactProblem::validate`] checks except the friction laws,
    /// without allocating (unless it fails) or copying: sizes, finiteness by a scan, μ.
    fn validate_values(&self) -> Result<(), Error> {
        self.validate_values_with(|w| w.check_finite("W"))
    }

    /// [`FrictionContactProblem::validate_values`] with W's finiteness checked by `check_w`
    /// (called once the sizes are known to be consistent, where the scan was, so that the
    /// errors come in the same order): a solver that copies W's values anyway scans them as
    /// it copies (nsgs), and must return `w.check_finite("W")`'s error for a non-finite W.
    pub(crate) fn validate_values_with(
        &self,
        check_w: impl FnOnce(&Matrix) -> Result<(), Error>,
    ) -> Result<(), Error> {
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
        check_w(&self.w)?;
        Error::check_finite("q", &self.q)?;
        for (i, &m) in self.mu.iter().enumerate() {
            if !(m.is_finite() && m >= 0.0) {
                return Err(Error::setting(&format!("mu[{i}]"), m, "must be finite and ≥ 0"));
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
        match self.cone_objects() {
            Ok(c) => self.error_with(&c, r, u),
            Err(_) => f64::NAN,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer that ran off (admm on FrictionContact3D_1c with W and q scaled by 1e8 and μ =
    /// 1e3 reached these values): Siconos' measure divides by ‖u‖, whose naive square
    /// overflowed to ∞, and read 0; the physical check's F·V overflowed the same way. Both are
    /// finite now and the physical check refuses the answer.
    #[test]
    fn an_answer_that_ran_off_is_not_read_as_solved() {
        let w = [15.0, -1.0, -2.0, -1.0, 14.0, 1.0, -2.0, 1.0, 16.0].map(|v| v * 1e8);
        let p = FrictionContactProblem::new(
            3,
            Matrix::from_row_major(3, 3, &w).unwrap(),
            vec![-1e8, 2e8, 3e8],
            vec![1e3],
        )
        .unwrap();
        let r = [1.832074966347006e145, 5.85275827046531e143, 1.1500220931150616e144];
        let mut u = [0.0; 3];
        let mut report = SolveReport::new("ran-off");
        report.status = Status::Solved;
        p.solution_into(&r, &mut u, &mut report, 1e-8);
        assert!(u[0] > 1e154 && measures::norm2(&u).is_finite());
        assert!(report.error > 0.0, "the peer measure read {:e}", report.error);
        let phys = report.physical_error.unwrap();
        assert!(phys > measures::physical_bound(1e-8), "physical figure {phys:e}");
        assert_eq!(report.status, Status::NumericalFailure);
    }

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

    /// nsgs measures an all-rolling answer in one pass (`rolling_measures`): the same two
    /// figures, bit for bit, as the error and the physical check computed apart, on answers
    /// inside, outside and on the cone, with zero and positive coefficients, in 2-D and 3-D.
    #[test]
    fn rolling_measures_are_the_error_and_the_physical_figure_bit_for_bit() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(35);
        let mut cases = 0;
        for d in [3, 5] {
            for nc in [1, 2, 4] {
                for round in 0..60 {
                    let n = d * nc;
                    let mut t = Vec::new();
                    for i in 0..n {
                        t.push((i, i, rng.random_range(0.5..3.0)));
                        for j in 0..n {
                            if j != i && rng.random_bool(0.3) {
                                t.push((i, j, rng.random_range(-0.2..0.2)));
                            }
                        }
                    }
                    let w = Matrix::from_triplets(n, n, &t).unwrap();
                    // Dense every other round (the storage the Siconos readers give).
                    let w = if round % 2 == 0 { Matrix::Dense(w.to_dense()) } else { w };
                    let q: Vec<f64> = (0..n).map(|_| rng.random_range(-2.0..2.0)).collect();
                    let mu: Vec<f64> = (0..nc)
                        .map(|i| if (round + i) % 5 == 0 { 0.0 } else { rng.random_range(0.0..1.0) })
                        .collect();
                    let specs: Vec<ConeSpec> = (0..nc)
                        .map(|i| ConeSpec::Rolling {
                            mu_r: if (round + i) % 3 == 0 { 0.0 } else { rng.random_range(0.0..0.5) },
                        })
                        .collect();
                    let p = FrictionContactProblem::new(d, w, q, mu).unwrap().with_cones(specs).unwrap();
                    assert!(p.all_rolling());
                    let scale = [0.0, 1e-9, 1.0, 1e6][round % 4];
                    let r: Vec<f64> = (0..n).map(|_| scale * rng.random_range(-1.0..2.0)).collect();
                    let u = p.velocity(&r);
                    let cones = p.cone_objects().unwrap();
                    let w_max = p.w.max_abs();
                    let (e, phys) = p.rolling_measures(&r, &u, w_max);
                    assert_eq!(
                        e.to_bits(),
                        p.error_with(&cones, &r, &u).to_bits(),
                        "d {d} nc {nc} round {round}"
                    );
                    assert_eq!(
                        phys.to_bits(),
                        p.physical_error(&cones, &r, &u).to_bits(),
                        "d {d} nc {nc} round {round}"
                    );
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 360);
        // A law that is not the rolling cone: not all rolling, and no figures.
        let p = FrictionContactProblem::new(3, eye(3), vec![-1.0, 0.0, 0.0], vec![0.3]).unwrap();
        assert!(!p.all_rolling());
        let (e, phys) = p.rolling_measures(&[0.0; 3], &[-1.0, 0.0, 0.0], 1.0);
        assert!(e.is_nan() && phys.is_nan());
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
