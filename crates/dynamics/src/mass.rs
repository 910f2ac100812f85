//! The factorization of the mass matrix and the Delassus operator `W = J M⁻¹ Jᵀ`.
//!
//! M is factored by Cholesky (faer; sparse when M is sparse) and never inverted explicitly:
//! `Y = M⁻¹ Jᵀ` is obtained by solves, column by column, and `W = J Y`. A mass matrix that is
//! not symmetric positive definite is an `Err` naming M.

use crate::system::Row;
use faer::linalg::solvers::{Solve, SolveCore};
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, Mat, MatMut, Side};
use perp_core::{Error, Matrix};

/// A Cholesky factorization of M.
#[derive(Clone, Debug)]
pub enum MassFactor {
    /// Dense M.
    Dense(faer::linalg::solvers::Llt<f64>),
    /// Sparse M.
    Sparse(Box<Llt<usize, f64>>),
}

fn not_spd(n: usize, why: impl std::fmt::Display) -> Error {
    Error::Requirement {
        solver: "perp-dynamics".into(),
        requirement: format!("a symmetric positive definite mass matrix M ({n}×{n}): {why}"),
        suggestion: Some("check the system's mass(q, t)".into()),
    }
}

impl MassFactor {
    /// Factors `m`; `Err` when M is not square, not finite, not symmetric or not positive definite.
    pub fn new(m: &Matrix) -> Result<MassFactor, Error> {
        let n = m.nrows();
        if m.ncols() != n {
            return Err(Error::NotSquare { what: "M".into(), rows: n, cols: m.ncols() });
        }
        m.check_finite("M")?;
        if let Some((i, j, _)) = m.asymmetry(1e-10) {
            return Err(not_spd(n, format!("M[{i},{j}] ≠ M[{j},{i}]")));
        }
        match m {
            Matrix::Dense(d) => faer::linalg::solvers::Llt::new(d.as_ref(), Side::Lower)
                .map(MassFactor::Dense)
                .map_err(|e| not_spd(n, format!("Cholesky failed ({e:?})"))),
            Matrix::Sparse(_) => {
                let csc = m.to_csr().to_csc();
                let indptr = csc.proper_indptr();
                let sym = SymbolicSparseColMatRef::new_checked(n, n, &indptr, None, csc.indices());
                let mat = SparseColMatRef::new(sym, csc.data());
                SymbolicLlt::try_new(sym, Side::Lower)
                    .map_err(|e| format!("{e:?}"))
                    .and_then(|s| {
                        Llt::try_new_with_symbolic(s, mat, Side::Lower).map_err(|e| format!("{e:?}"))
                    })
                    .map(|f| MassFactor::Sparse(Box::new(f)))
                    .map_err(|e| not_spd(n, format!("sparse Cholesky failed ({e})")))
            }
        }
    }

    /// Solves `M X = B` in place, B column-major `n × k`.
    pub fn solve(&self, b: &mut [f64], n: usize, k: usize) {
        let rhs = MatMut::from_column_major_slice_mut(b, n, k);
        match self {
            MassFactor::Dense(f) => f.solve_in_place(rhs),
            MassFactor::Sparse(f) => f.solve_in_place_with_conj(Conj::No, rhs),
        }
    }
}

/// `Y = M⁻¹ Jᵀ` for constraint rows `J` (one column per row), dense `n × m` column-major.
pub fn solve_rows(factor: &MassFactor, n: usize, rows: &[&Row]) -> Vec<f64> {
    let m = rows.len();
    let mut y = vec![0.0; n * m];
    for (c, r) in rows.iter().enumerate() {
        for &(i, v) in &r.0 {
            y[c * n + i] += v;
        }
    }
    factor.solve(&mut y, n, m);
    y
}

/// `W = J Y` (`m × m`) from rows `J` and `Y = M⁻¹ Jᵀ` (dense column-major `n × m`), symmetrized;
/// dense when `m` is small or W fills up, sparse otherwise.
pub fn delassus(rows: &[&Row], y: &[f64], n: usize) -> Result<Matrix, Error> {
    let m = rows.len();
    if m <= 64 {
        let mut w = Mat::<f64>::zeros(m, m);
        for j in 0..m {
            let col = &y[j * n..(j + 1) * n];
            for (i, r) in rows.iter().enumerate() {
                w[(i, j)] = r.dot(col);
            }
        }
        for j in 0..m {
            for i in 0..j {
                let s = 0.5 * (w[(i, j)] + w[(j, i)]);
                w[(i, j)] = s;
                w[(j, i)] = s;
            }
        }
        return Ok(Matrix::Dense(w));
    }
    // Large: W_ij = J_i · Y_j over the nonzeros of Y_j only (rows of contacts between far-apart
    // bodies give exact zeros, and block-diagonal M keeps Y sparse).
    let mut by_dof: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for (i, r) in rows.iter().enumerate() {
        for &(d, v) in &r.0 {
            by_dof[d].push((i, v));
        }
    }
    let mut acc = vec![0.0; m];
    let mut touched: Vec<usize> = Vec::new();
    let mut triplets = Vec::new();
    for j in 0..m {
        for (d, &yv) in y[j * n..(j + 1) * n].iter().enumerate() {
            if yv == 0.0 {
                continue;
            }
            for &(i, v) in &by_dof[d] {
                if acc[i] == 0.0 {
                    touched.push(i);
                }
                acc[i] += v * yv;
            }
        }
        for &i in &touched {
            if i <= j {
                let v = acc[i];
                triplets.push((i, j, v));
                if i != j {
                    triplets.push((j, i, v));
                }
            }
            acc[i] = 0.0;
        }
        touched.clear();
    }
    let w = Matrix::from_triplets(m, m, &triplets)?;
    if w.nnz() as f64 > 0.3 * (m * m) as f64 {
        return Ok(Matrix::Dense(w.to_dense()));
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delassus_matches_dense_algebra_dense_and_sparse() {
        let m = Matrix::from_row_major(3, 3, &[4.0, 1.0, 0.0, 1.0, 3.0, 0.5, 0.0, 0.5, 2.0]).unwrap();
        let rows = [Row::dense(&[1.0, 0.0, 2.0]), Row::dense(&[0.0, -1.0, 1.0])];
        let refs: Vec<&Row> = rows.iter().collect();
        use faer::linalg::solvers::DenseSolveCore;
        let md = m.to_dense();
        let inv = md.partial_piv_lu().inverse();
        for mat in [m.clone(), Matrix::Sparse(m.to_csr())] {
            let f = MassFactor::new(&mat).unwrap();
            let y = solve_rows(&f, 3, &refs);
            let w = delassus(&refs, &y, 3).unwrap();
            for i in 0..2 {
                for j in 0..2 {
                    let mut e = 0.0;
                    for a in 0..3 {
                        for b in 0..3 {
                            e += rows[i].dot(&unit(3, a)) * inv[(a, b)] * rows[j].dot(&unit(3, b));
                        }
                    }
                    assert!((w.get(i, j) - e).abs() < 1e-12, "W[{i},{j}] = {} vs {e}", w.get(i, j));
                }
            }
        }
    }

    fn unit(n: usize, k: usize) -> Vec<f64> {
        let mut v = vec![0.0; n];
        v[k] = 1.0;
        v
    }

    #[test]
    fn non_spd_mass_is_an_error_naming_m() {
        let m = Matrix::from_row_major(2, 2, &[1.0, 2.0, 2.0, 1.0]).unwrap();
        let e = MassFactor::new(&m).unwrap_err().to_string();
        assert!(e.contains("mass matrix M"), "{e}");
        let m = Matrix::from_row_major(2, 2, &[1.0, 2.0, 0.0, 1.0]).unwrap();
        assert!(MassFactor::new(&m).unwrap_err().to_string().contains("M[0,1]"));
        let sparse = Matrix::from_triplets(2, 2, &[(0, 0, 1.0), (1, 1, -1.0)]).unwrap();
        assert!(MassFactor::new(&sparse).is_err());
    }
}
