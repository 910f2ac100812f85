//! The Newton direction of the Fischer–Burmeister equation: the Jacobian ∇F and the generalized
//! Jacobian H = diag(dᵃ) + diag(dᵇ) ∇F, factored dense or sparse, solved for `d`.

use super::*;

impl Method<'_, '_> {
    /// Evaluates ∇F at z (sparse when offered), checks it, and stores `∇Ψ = Hᵀ Φ` in `grad`.
    /// `Err(message)` for a non-finite Jacobian; a wrong-shaped sparse one sets `self.error`.
    pub(super) fn jacobian(&mut self) -> Result<(), String> {
        let ws = &mut *self.ws;
        let n = ws.n;
        ws.sjac = self.p.f.sparse_jacobian(&ws.z);
        if let Some(s) = &ws.sjac {
            if s.rows() != n || s.cols() != n {
                let (what, found) = if s.rows() != n {
                    ("rows of sparse_jacobian", s.rows())
                } else {
                    ("columns of sparse_jacobian", s.cols())
                };
                self.error = Some(Error::dim(what, n, found));
                return Err(format!("sparse_jacobian is {}x{}, expected {n}x{n}", s.rows(), s.cols()));
            }
            if let Some(k) = s.data().iter().position(|v| !v.is_finite()) {
                return Err(format!(
                    "sparse_jacobian has the non-finite stored value {} (entry {k})",
                    s.data()[k]
                ));
            }
        } else {
            ws.jac.fill(0.0);
            self.p.f.jacobian(&ws.z, ws.jac.as_mut());
            for j in 0..n {
                if let Some(i) = ws.jac.col_as_slice(j).iter().position(|v| !v.is_finite()) {
                    return Err(format!("the Jacobian has {} at ({i}, {j})", ws.jac[(i, j)]));
                }
            }
        }
        fb_jacobian_diag_lambda(self.p, self.knobs.lambda, &ws.z, &ws.f, &mut ws.da, &mut ws.db);
        // ∇Ψ = Hᵀ Φ = dᵃ∘Φ + ∇Fᵀ (dᵇ∘Φ); d holds dᵇ∘Φ for the moment.
        for i in 0..n {
            ws.grad[i] = ws.da[i] * ws.phi[i];
            ws.d[i] = ws.db[i] * ws.phi[i];
        }
        match &ws.sjac {
            Some(s) => {
                for (v, (i, j)) in s.iter() {
                    ws.grad[j] += v * ws.d[i];
                }
            }
            None => {
                for j in 0..n {
                    let c = ws.jac.col_as_slice(j);
                    ws.grad[j] += c.iter().zip(&ws.d).map(|(a, b)| a * b).sum::<f64>();
                }
            }
        }
        Ok(())
    }
}

impl Method<'_, '_> {
    /// Factorizes H and solves `H d = −Φ`; `false` if the LU broke down.
    pub(super) fn newton_direction(&mut self) -> bool {
        self.factorizations += 1;
        let ws = &mut *self.ws;
        let n = ws.n;
        for i in 0..n {
            ws.d[i] = -ws.phi[i];
        }
        if ws.sjac.is_some() {
            if !sparse_factor_solve(ws) {
                return false;
            }
        } else {
            let mut h = ws.lu.matrix_mut();
            for j in 0..n {
                for i in 0..n {
                    h[(i, j)] = ws.db[i] * ws.jac[(i, j)];
                }
                h[(j, j)] += ws.da[j];
            }
            match ws.lu.factor() {
                Ok(p) if n == 0 || !p.singular(n as f64 * f64::EPSILON) => {}
                _ => return false,
            }
            ws.lu.solve_in_place(&mut ws.d);
        }
        all_finite(&ws.d)
    }
}

/// Builds the sparse H = diag(dᵃ) + diag(dᵇ) ∇F in CSC (diagonal always stored, so the
/// pattern is that of ∇F plus the diagonal), factorizes it with faer's sparse LU (symbolic
/// part reused while the pattern does not change) and solves for `ws.d` in place.
pub(super) fn sparse_factor_solve(ws: &mut Workspace) -> bool {
    let n = ws.n;
    let s = ws.sjac.as_ref().expect("sparse Jacobian present");
    let csc_owned;
    let csc = if s.is_csc() {
        s
    } else {
        csc_owned = s.to_csc();
        &csc_owned
    };
    ws.col_ptr.clear();
    ws.row_idx.clear();
    ws.vals.clear();
    ws.col_ptr.push(0);
    for j in 0..n {
        let mut diag_done = false;
        if let Some(col) = csc.outer_view(j) {
            for (i, &v) in col.iter() {
                if !diag_done && i >= j {
                    if i == j {
                        ws.row_idx.push(j);
                        ws.vals.push(ws.da[j] + ws.db[j] * v);
                        diag_done = true;
                        continue;
                    }
                    ws.row_idx.push(j);
                    ws.vals.push(ws.da[j]);
                    diag_done = true;
                }
                ws.row_idx.push(i);
                ws.vals.push(ws.db[i] * v);
            }
        }
        if !diag_done {
            ws.row_idx.push(j);
            ws.vals.push(ws.da[j]);
        }
        ws.col_ptr.push(ws.row_idx.len());
    }
    ws.sparse.factor(n, &ws.col_ptr, &ws.row_idx, &ws.vals).is_ok()
        && ws.sparse.solve_in_place(&mut ws.d).is_ok()
}
