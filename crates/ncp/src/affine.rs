//! [`AffineFunction`]: F(z) = M z + q, the bridge from LCP, box-LCP and MLCP to the NCP solvers.

use crate::NcpFunction;
use faer::MatMut;
use perp_core::{Error, Matrix};
use perp_lcp::Lcp;
use std::borrow::Cow;

/// F(z) = M z + q with its constant Jacobian M (dense or sparse); owns its data or borrows an
/// [`Lcp`]'s.
#[derive(Clone, Debug)]
pub struct AffineFunction<'a> {
    m: Cow<'a, Matrix>,
    q: Cow<'a, [f64]>,
}

impl<'a> AffineFunction<'a> {
    /// F(z) = Mz + q for the data of an LCP (already checked; nothing is copied).
    pub fn from_lcp(p: &'a Lcp) -> Self {
        AffineFunction { m: Cow::Borrowed(p.m()), q: Cow::Borrowed(p.q()) }
    }

    /// F(z) = Mz + q; M square, sizes agree, values finite.
    ///
    /// ```
    /// use perp_core::Matrix;
    /// use perp_ncp::{AffineFunction, NcpFunction};
    /// let f = AffineFunction::new(Matrix::from_row_major(1, 1, &[2.0]).unwrap(), vec![-1.0]).unwrap();
    /// let mut out = [0.0];
    /// f.eval(&[3.0], &mut out);
    /// assert_eq!(out, [5.0]);
    /// ```
    pub fn new(m: Matrix, q: Vec<f64>) -> Result<AffineFunction<'static>, Error> {
        if m.nrows() != m.ncols() {
            return Err(Error::NotSquare { what: "M".into(), rows: m.nrows(), cols: m.ncols() });
        }
        Error::check_len("q", &q, m.nrows())?;
        m.check_finite("M")?;
        Error::check_finite("q", &q)?;
        Ok(AffineFunction { m: Cow::Owned(m), q: Cow::Owned(q) })
    }

    /// The matrix M.
    pub fn m(&self) -> &Matrix {
        &self.m
    }

    /// The vector q.
    pub fn q(&self) -> &[f64] {
        &self.q
    }
}

impl NcpFunction for AffineFunction<'_> {
    fn dim(&self) -> usize {
        self.q.len()
    }

    fn eval(&self, z: &[f64], f: &mut [f64]) {
        self.m.mul_vec(z, f);
        for (fi, qi) in f.iter_mut().zip(self.q.iter()) {
            *fi += qi;
        }
    }

    fn jacobian(&self, _z: &[f64], mut jac: MatMut<'_, f64>) {
        match self.m.as_ref() {
            Matrix::Dense(m) => jac.copy_from(m),
            Matrix::Sparse(s) => {
                jac.fill(0.0);
                for (v, (i, j)) in s.iter() {
                    jac[(i, j)] += *v;
                }
            }
        }
    }

    fn affine(&self) -> Option<(&Matrix, &[f64])> {
        Some((&self.m, &self.q))
    }

    fn sparse_jacobian(&self, _z: &[f64]) -> Option<sprs::CsMat<f64>> {
        match self.m.as_ref() {
            Matrix::Sparse(s) => Some(s.to_csr()),
            Matrix::Dense(_) => None,
        }
    }
}
