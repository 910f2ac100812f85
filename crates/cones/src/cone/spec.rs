//! [`ConeSpec`]: the friction law of one contact as a problem stores it (a built-in law and
//! its parameters, or a custom [`Cone`]), and the checks that build it for a contact's dimension.

use super::{Cone, MAX_DIM};
use perp_core::Error;
use std::sync::Arc;

/// The friction law of one contact, as a problem stores it.
#[derive(Debug)]
pub enum ConeSpec {
    /// Isotropic Coulomb cone ‖r_T‖ ≤ μ r_N, of the problem's dimension (2 or 3).
    Coulomb,
    /// A pyramid with `facets` faces inscribed in the Coulomb cone (d = 3); in 2-D the
    /// two-sided `Sgn` law of Glocker–Studer 2005 eq. 4–5 (`facets` must be 2).
    Pyramid {
        /// Number of faces (≥ 3 in 3-D, 2 in 2-D).
        facets: usize,
    },
    /// Elliptic cone `Σ (r_k/e_k)² ≤ μ² r_N²` with `e = [e_t, e_o]` (d = 3) or
    /// `[e_t, e_o, e_r]` (d = 4, torsion: Trinkle–Tzitzouris–Pang 2001 eq. 1).
    Elliptic {
        /// The positive semi-axes, one per tangential/rotational component.
        e: Vec<f64>,
    },
    /// The rolling friction cone `‖r_T‖ ≤ μ r_N, ‖r_R‖ ≤ μ_r r_N` of Siconos'
    /// `RollingFrictionContactProblem` (d = 5, or 3 in 2-D; see [`crate::Rolling`]).
    Rolling {
        /// The rolling friction coefficient μ_r ≥ 0.
        mu_r: f64,
    },
    /// Any other law: the plug-in point for friction-law research.
    Custom(Arc<dyn Cone>),
}

impl Clone for ConeSpec {
    fn clone(&self) -> ConeSpec {
        match self {
            ConeSpec::Coulomb => ConeSpec::Coulomb,
            ConeSpec::Pyramid { facets } => ConeSpec::Pyramid { facets: *facets },
            ConeSpec::Elliptic { e } => ConeSpec::Elliptic { e: e.clone() },
            ConeSpec::Rolling { mu_r } => ConeSpec::Rolling { mu_r: *mu_r },
            ConeSpec::Custom(c) => ConeSpec::Custom(c.clone()),
        }
    }

    /// Reuses the semi-axes' storage when both are elliptic (contacts copied every step).
    fn clone_from(&mut self, source: &ConeSpec) {
        match (self, source) {
            (ConeSpec::Elliptic { e }, ConeSpec::Elliptic { e: from }) => e.clone_from(from),
            (this, _) => *this = source.clone(),
        }
    }
}

impl ConeSpec {
    /// The cone object for a contact of dimension `dim`; `Err` naming the field when the
    /// specification does not fit (wrong dimension, e ≤ 0, too few facets).
    pub fn build(&self, dim: usize) -> Result<Arc<dyn Cone>, Error> {
        let cone: Arc<dyn Cone> = match self {
            ConeSpec::Coulomb => Arc::new(crate::Coulomb::new(dim)?),
            ConeSpec::Pyramid { facets } => Arc::new(crate::Pyramid::new(dim, *facets)?),
            ConeSpec::Elliptic { e } => Arc::new(crate::Elliptic::new(e)?),
            ConeSpec::Rolling { mu_r } => Arc::new(crate::Rolling::new(dim, *mu_r)?),
            ConeSpec::Custom(c) => c.clone(),
        };
        fits(cone.as_ref(), dim)?;
        Ok(cone)
    }

    /// The checks of [`ConeSpec::build`] and the law's [`Cone::check`] of `mu`, without
    /// allocating for the built-in smooth laws (a stepper checks every contact of every step).
    pub fn check(&self, dim: usize, mu: f64) -> Result<(), Error> {
        let check = |cone: &dyn Cone| fits(cone, dim).and_then(|()| cone.check(mu));
        match self {
            ConeSpec::Coulomb => check(&crate::Coulomb::new(dim)?),
            ConeSpec::Pyramid { facets } => check(&crate::Pyramid::new(dim, *facets)?),
            ConeSpec::Elliptic { e } => check(&crate::Elliptic::new(e)?),
            ConeSpec::Rolling { mu_r } => check(&crate::Rolling::new(dim, *mu_r)?),
            ConeSpec::Custom(c) => check(c.as_ref()),
        }
    }

    /// True for [`ConeSpec::Coulomb`].
    pub fn is_coulomb(&self) -> bool {
        matches!(self, ConeSpec::Coulomb)
    }
}

/// `Err` unless `cone` is of dimension `dim`, itself between 2 and [`MAX_DIM`].
fn fits(cone: &dyn Cone, dim: usize) -> Result<(), Error> {
    if !(2..=MAX_DIM).contains(&dim) {
        return Err(Error::setting("contact dimension", dim, "must be between 2 and 6"));
    }
    if cone.dim() != dim {
        return Err(Error::dim(format!("cone {} of a {dim}-D contact", cone.name()), dim, cone.dim()));
    }
    Ok(())
}
