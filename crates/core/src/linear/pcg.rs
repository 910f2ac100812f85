//! Conjugate gradients on a symmetric positive definite matrix held by its lower triangle,
//! preconditioned by a kept [`SparseCholesky`] factor — of the matrix itself, or of an earlier
//! matrix of the same pattern whose values have moved since (the Newton matrices of a time
//! stepper whose contact graph repeats from step to step). When the matrix has moved little,
//! the old factor is nearly its inverse and a few iterations (each a product with the matrix
//! and a pair of triangular solves) replace a numeric factorization.
//!
//! The method is Hestenes–Stiefel's (1952) preconditioned CG (Saad, *Iterative Methods for
//! Sparse Linear Systems*, 2nd ed., Algorithm 9.1), from `x = 0`, stopped when
//! `‖b − A x‖₂ ≤ rel_tol · ‖b‖₂` (the recurrence's residual), after `max_iter` iterations, or
//! as soon as the residual's average rate of decrease so far, kept up, would not reach
//! `rel_tol` within `max_iter` iterations (a factor too stale to help is given up after one
//! iteration instead of `max_iter`).
//! faer's own `conjugate_gradient` takes its preconditioner through `&self` and runs block
//! CG; the factor's solve needs its kept scratch (`&mut`), so the loop is written here.

use super::{Breakdown, SparseCholesky};

/// A symmetric matrix by the lower triangle of its columns (rows sorted or not, the diagonal
/// in the pattern), borrowed: the storage a [`SparseCholesky`] factors.
#[derive(Clone, Copy, Debug)]
pub struct SymLower<'a> {
    /// Column pointers (`n + 1`).
    pub col_ptr: &'a [usize],
    /// Row indices (each ≥ its column).
    pub row_idx: &'a [usize],
    /// Values.
    pub values: &'a [f64],
}

impl SymLower<'_> {
    /// The order n.
    pub fn n(&self) -> usize {
        self.col_ptr.len().saturating_sub(1)
    }

    /// `y = A x`, the products of each column added in storage order (the same bits on
    /// every run).
    pub fn mul(&self, x: &[f64], y: &mut [f64]) {
        y.iter_mut().for_each(|v| *v = 0.0);
        for (j, &xj) in x.iter().enumerate().take(self.n()) {
            let mut yj = 0.0;
            for k in self.col_ptr[j]..self.col_ptr[j + 1] {
                let (i, v) = (self.row_idx[k], self.values[k]);
                if i == j {
                    yj += v * xj;
                } else {
                    y[i] += v * xj;
                    yj += v * x[i];
                }
            }
            y[j] += yj;
        }
    }
}

/// The vectors of a [`SparseCholesky::pcg`] solve, kept between solves.
#[derive(Clone, Debug, Default)]
pub struct PcgWork {
    r: Vec<f64>,
    z: Vec<f64>,
    p: Vec<f64>,
    ap: Vec<f64>,
}

/// What a [`SparseCholesky::pcg`] solve did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PcgOutcome {
    /// Iterations (products with A) done.
    pub iterations: usize,
    /// Whether `‖b − A x‖ ≤ rel_tol ‖b‖` was reached.
    pub converged: bool,
    /// `‖b − A x‖ / ‖b‖` of the last iterate (the recurrence's residual).
    pub rel_residual: f64,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl SparseCholesky {
    /// Solves `A x = b` by conjugate gradients preconditioned with this solver's last
    /// factorization (see the [module docs](self)), A in the order the factorization was given;
    /// `x` holds the last iterate whatever the end. `Err` without a factorization of A's order,
    /// or when a preconditioned residual is not finite; a breakdown of CG itself (a direction
    /// of non-positive curvature: A or the factor not positive definite) ends the solve
    /// unconverged.
    pub fn pcg(
        &mut self,
        a: SymLower<'_>,
        b: &[f64],
        x: &mut [f64],
        (rel_tol, max_iter): (f64, usize),
        work: &mut PcgWork,
    ) -> Result<PcgOutcome, Breakdown> {
        let n = a.n();
        if b.len() != n || x.len() != n {
            return Err(Breakdown::NotFactored);
        }
        let PcgWork { r, z, p, ap } = work;
        for v in [&mut *r, &mut *z, &mut *p, &mut *ap] {
            v.clear();
            v.resize(n, 0.0);
        }
        x.iter_mut().for_each(|v| *v = 0.0);
        r.copy_from_slice(b);
        let bn = dot(b, b).sqrt();
        let mut out = PcgOutcome { iterations: 0, converged: bn == 0.0, rel_residual: 0.0 };
        if out.converged {
            return Ok(out);
        }
        z.copy_from_slice(r);
        self.solve_in_place(z, n, 1)?;
        p.copy_from_slice(z);
        let mut rz = dot(r, z);
        out.rel_residual = 1.0;
        while out.iterations < max_iter {
            out.iterations += 1;
            a.mul(p, ap);
            let pap = dot(p, ap);
            if !(pap > 0.0 && rz > 0.0) {
                break;
            }
            let alpha = rz / pap;
            x.iter_mut().zip(p.iter()).for_each(|(xi, pi)| *xi += alpha * pi);
            r.iter_mut().zip(ap.iter()).for_each(|(ri, api)| *ri -= alpha * api);
            out.rel_residual = dot(r, r).sqrt() / bn;
            if out.rel_residual <= rel_tol {
                out.converged = true;
                break;
            }
            // The average rate so far, kept up, would need more than max_iter in all: stop.
            let k = out.iterations as f64;
            if out.rel_residual.powf(max_iter as f64 / k) > rel_tol {
                break;
            }
            z.copy_from_slice(r);
            self.solve_in_place(z, n, 1)?;
            let rz_next = dot(r, z);
            let beta = rz_next / rz;
            p.iter_mut().zip(z.iter()).for_each(|(pi, zi)| *pi = zi + beta * *pi);
            rz = rz_next;
        }
        Ok(out)
    }
}
