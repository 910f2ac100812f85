//! [`check_jacobian`]: a user Jacobian against central differences.

use crate::NcpFunction;
use faer::Mat;

/// The worst disagreement between a Jacobian and central differences.
#[derive(Clone, Copy, Debug)]
pub struct JacobianCheck {
    /// Row of the worst entry.
    pub row: usize,
    /// Column of the worst entry.
    pub col: usize,
    /// The Jacobian's value there.
    pub analytic: f64,
    /// The central-difference value there.
    pub finite_difference: f64,
    /// `|analytic − fd| / max(1, |fd|)` at the worst entry.
    pub relative_error: f64,
}

/// Compares `f.jacobian(z)` with central differences of `f.eval` (step
/// `h = ε^{1/3}·max(1, |zⱼ|)`, error O(h²)) and reports the worst entry. Expect
/// `relative_error` around 1e-8 or below for a correct smooth Jacobian away from kinks.
///
/// ```
/// use perp_ncp::{check_jacobian, NcpFunction};
/// struct Sq;
/// impl NcpFunction for Sq {
///     fn dim(&self) -> usize { 1 }
///     fn eval(&self, z: &[f64], f: &mut [f64]) { f[0] = z[0] * z[0]; }
///     fn jacobian(&self, z: &[f64], mut j: faer::MatMut<'_, f64>) { j[(0, 0)] = 2.0 * z[0]; }
/// }
/// assert!(check_jacobian(&Sq, &[1.5]).relative_error < 1e-8);
/// ```
pub fn check_jacobian(f: &dyn NcpFunction, z: &[f64]) -> JacobianCheck {
    let n = f.dim();
    let mut analytic = Mat::<f64>::zeros(n, n);
    f.jacobian(z, analytic.as_mut());
    let mut fd = Mat::<f64>::zeros(n, n);
    crate::problem::central_differences(f, z, fd.as_mut());
    let mut worst =
        JacobianCheck { row: 0, col: 0, analytic: 0.0, finite_difference: 0.0, relative_error: 0.0 };
    for j in 0..n {
        for i in 0..n {
            let (a, d) = (analytic[(i, j)], fd[(i, j)]);
            let rel = (a - d).abs() / d.abs().max(1.0);
            if rel > worst.relative_error || rel.is_nan() {
                worst =
                    JacobianCheck { row: i, col: j, analytic: a, finite_difference: d, relative_error: rel };
            }
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    /// F(z) = (z₀² z₁, sin z₀ + z₁), with a deliberately wrong entry when `wrong`.
    struct Two {
        wrong: bool,
    }
    impl NcpFunction for Two {
        fn dim(&self) -> usize {
            2
        }
        fn eval(&self, z: &[f64], f: &mut [f64]) {
            f[0] = z[0] * z[0] * z[1];
            f[1] = z[0].sin() + z[1];
        }
        fn jacobian(&self, z: &[f64], mut j: faer::MatMut<'_, f64>) {
            j[(0, 0)] = 2.0 * z[0] * z[1];
            j[(0, 1)] = z[0] * z[0];
            j[(1, 0)] = z[0].cos() + if self.wrong { 0.1 } else { 0.0 };
            j[(1, 1)] = 1.0;
        }
    }

    #[test]
    fn finds_the_wrong_entry() {
        let z = [0.7, -1.3];
        assert!(check_jacobian(&Two { wrong: false }, &z).relative_error < 1e-9);
        let c = check_jacobian(&Two { wrong: true }, &z);
        assert_eq!((c.row, c.col), (1, 0));
        assert!((c.relative_error - 0.1 / 1f64.max(0.7f64.cos().abs())).abs() < 1e-6);
    }

    #[test]
    fn default_jacobian_is_central_differences() {
        struct NoJac;
        impl NcpFunction for NoJac {
            fn dim(&self) -> usize {
                2
            }
            fn eval(&self, z: &[f64], f: &mut [f64]) {
                Two { wrong: false }.eval(z, f)
            }
        }
        let z = [0.7, -1.3];
        let mut a = Mat::<f64>::zeros(2, 2);
        let mut b = Mat::<f64>::zeros(2, 2);
        NoJac.jacobian(&z, a.as_mut());
        Two { wrong: false }.jacobian(&z, b.as_mut());
        for i in 0..2 {
            for j in 0..2 {
                assert!((a[(i, j)] - b[(i, j)]).abs() < 1e-9);
            }
        }
    }
}
