//! `Result.sensitivity()`: derivatives of a solution with respect to the problem's data, thin
//! over the Rust sensitivities of issue 16 (`perp_lcp::sensitivity`,
//! `perp_ncp::mlcp_sensitivity`, `perp_cones::sensitivity`; implicit differentiation on the
//! active set, one factorization when the object is made, two triangular solves per JVP/VJP).
//!
//! The Rust methods panic on wrong lengths; every length and shape is checked here first and
//! a mismatch raises `perp.Error` naming the argument.

use crate::cone::Failure;
use crate::{convert, perp_error, to_py};
use numpy::{PyArray1, PyArrayMethods};
use perp_catalogue::Problem as Any;
use perp_cones::sensitivity::{ContactState, FrictionSensitivity};
use perp_cones::FrictionSolution;
use perp_core::{Matrix, SolveReport};
use perp_lcp::LcpSensitivity;
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;

enum Inner {
    /// LCP, box-LCP or MLCP.
    Affine(LcpSensitivity),
    /// Local frictional contact.
    Friction(FrictionSensitivity),
}

/// The derivatives of a solution (see `Result.sensitivity`).
#[pyclass(module = "perp", name = "Sensitivity", frozen)]
pub struct Sensitivity {
    inner: Inner,
    /// The problem kind: `lcp`, `mlcp`, `fc2d`, `fc3d`, ….
    #[pyo3(get)]
    kind: String,
    /// Number of unknowns (z, or the reactions r).
    #[pyo3(get)]
    n: usize,
}

fn array(py: Python<'_>, v: Vec<f64>) -> Py<PyAny> {
    PyArray1::from_vec(py, v).into_any().unbind()
}

/// A matrix of the problem's storage as numpy: a 2-D array when dense; when sparse, the CSR
/// triple `(data, indices, indptr)` of its n × n pattern (scipy-free;
/// `scipy.sparse.csr_matrix((data, indices, indptr), shape=(n, n))` takes it).
fn matrix_out(py: Python<'_>, m: &Matrix) -> PyResult<Py<PyAny>> {
    let (rows, cols) = (m.nrows(), m.ncols());
    if !m.is_sparse() {
        let v: Vec<f64> = (0..rows).flat_map(|i| (0..cols).map(move |j| m.get(i, j))).collect();
        return Ok(PyArray1::from_vec(py, v).reshape([rows, cols])?.into_any().unbind());
    }
    let csr = m.to_csr();
    let mut indptr = vec![0i64; rows + 1];
    let (mut data, mut indices) = (Vec::with_capacity(m.nnz()), Vec::with_capacity(m.nnz()));
    for (x, (i, j)) in csr.iter() {
        data.push(*x);
        indices.push(j as i64);
        indptr[i + 1] += 1;
    }
    for i in 0..rows {
        indptr[i + 1] += indptr[i];
    }
    let t = (array(py, data), PyArray1::from_vec(py, indices), PyArray1::from_vec(py, indptr));
    Ok(t.into_pyobject(py)?.into_any().unbind())
}

/// Makes the sensitivity of the answer `(z, w, report)` of `problem` with the degeneracy
/// threshold `tol`, the GIL released (a Python friction law takes it back for each
/// projection; an exception it raised is kept in `failure` and raised here).
pub fn make(
    py: Python<'_>,
    problem: &Any,
    z: &[f64],
    w: &[f64],
    report: &SolveReport,
    tol: f64,
    failure: &Failure,
) -> PyResult<Sensitivity> {
    if !(tol.is_finite() && tol > 0.0) {
        return Err(perp_error(format!("tol = {tol}: the degeneracy threshold must be finite and > 0")));
    }
    let kind = problem.kind_name();
    let core_solution =
        || perp_core::Solution { z: z.to_vec(), w: w.to_vec(), report: report.clone(), ray: None };
    let inner = match problem {
        Any::Lcp(p) => {
            let sol = core_solution();
            let s = py.detach(|| perp_lcp::sensitivity::sensitivity_with(p, &sol, tol));
            Inner::Affine(s.map_err(to_py)?)
        }
        Any::Mlcp(p) => {
            let sol = core_solution();
            let s = py.detach(|| perp_ncp::sensitivity::mlcp_sensitivity_with(p, &sol, tol));
            Inner::Affine(s.map_err(to_py)?)
        }
        Any::Friction(p) => {
            let sol = FrictionSolution { r: z.to_vec(), u: w.to_vec(), report: report.clone() };
            let s = py.detach(|| perp_cones::sensitivity::sensitivity_with(p, &sol, tol));
            if let Some(e) = failure.lock().ok().and_then(|mut f| f.take()) {
                if e.is_instance_of::<crate::Error>(py) {
                    return Err(e);
                }
                let err = perp_error(format!(
                    "the friction law raised {}: {}",
                    e.get_type(py).name()?,
                    e.value(py)
                ));
                err.set_cause(py, Some(e));
                return Err(err);
            }
            Inner::Friction(s.map_err(to_py)?)
        }
        _ => {
            return Err(perp_error(format!(
                "sensitivity: not available for a {kind} problem (LCP, MLCP and local frictional \
                 problems have one)"
            )))
        }
    };
    Ok(Sensitivity { inner, kind, n: z.len() })
}

impl Sensitivity {
    fn affine(&self, method: &str) -> PyResult<&LcpSensitivity> {
        match &self.inner {
            Inner::Affine(s) => Ok(s),
            Inner::Friction(_) => Err(PyAttributeError::new_err(format!(
                "{method}: not defined for a {} problem (it has jvp_q, vjp_q, jvp_mu, vjp_mu, \
                 jvp_mu_r, vjp_mu_r, jvp_w, vjp_w, jvp, vjp, vjp_all, states)",
                self.kind
            ))),
        }
    }

    fn friction(&self, method: &str) -> PyResult<&FrictionSensitivity> {
        match &self.inner {
            Inner::Friction(s) => Ok(s),
            Inner::Affine(_) => Err(PyAttributeError::new_err(format!(
                "{method}: frictional problems only; this is a {} problem (it has jvp_q, vjp_q, \
                 jvp_m, vjp_m, free)",
                self.kind
            ))),
        }
    }

    fn contacts(&self) -> usize {
        match &self.inner {
            Inner::Friction(s) => s.states().len(),
            Inner::Affine(_) => 0,
        }
    }

    /// A vector of length n named `field`.
    fn vec_n(&self, py: Python<'_>, obj: &Bound<'_, PyAny>, field: &str) -> PyResult<Vec<f64>> {
        let v = convert::vector(py, obj, field)?;
        if v.len() != self.n {
            return Err(perp_error(format!(
                "{field}: has {} entries, the problem has n = {}",
                v.len(),
                self.n
            )));
        }
        Ok(v)
    }

    /// One value per contact (a number is the same for every contact).
    fn per_contact(&self, py: Python<'_>, obj: &Bound<'_, PyAny>, field: &str) -> PyResult<Vec<f64>> {
        let nc = self.contacts();
        let v = match obj.extract::<f64>() {
            Ok(x) if x.is_finite() => vec![x; nc],
            Ok(x) => return Err(perp_error(format!("{field} = {x}: must be finite"))),
            Err(_) => convert::vector(py, obj, field)?,
        };
        if v.len() != nc {
            return Err(perp_error(format!(
                "{field}: has {} entries, the problem has {nc} contacts",
                v.len()
            )));
        }
        Ok(v)
    }

    /// An n × n matrix named `field` (dense or sparse, as the solvers take).
    fn mat_n(&self, py: Python<'_>, obj: &Bound<'_, PyAny>, field: &str) -> PyResult<Matrix> {
        let m = convert::matrix(py, obj, field)?;
        if m.nrows() != self.n || m.ncols() != self.n {
            return Err(perp_error(format!(
                "{field}: is {} × {}, the problem's matrix is {2} × {2}",
                m.nrows(),
                m.ncols(),
                self.n
            )));
        }
        Ok(m)
    }
}

#[pymethods]
impl Sensitivity {
    /// The degenerate indices (LCP, MLCP: `z_i` at its bound with `w_i = 0`) or contacts
    /// (frictional: at the stick/slip boundary, or separating with zero force), where the
    /// solution map has only directional derivatives. There the derivatives returned are those
    /// of a documented piece: the index stays at its bound (LCP, MLCP); for a Coulomb contact,
    /// the sticking piece on the cone's surface and the separated piece at the polar's.
    #[getter]
    fn degenerate(&self) -> Vec<usize> {
        match &self.inner {
            Inner::Affine(s) => s.degenerate().to_vec(),
            Inner::Friction(s) => s.degenerate().to_vec(),
        }
    }

    /// LCP, MLCP: the free indices (strictly between their bounds, `w_i = 0`).
    #[getter]
    fn free(&self) -> PyResult<Vec<usize>> {
        Ok(self.affine("free")?.free().to_vec())
    }

    /// Frictional problems: each contact's state, `"separated"`, `"sticking"`, `"sliding"` or
    /// `"degenerate"`.
    #[getter]
    fn states(&self) -> PyResult<Vec<&'static str>> {
        let s = self.friction("states")?;
        Ok(s.states()
            .iter()
            .map(|c| match c {
                ContactState::Separated => "separated",
                ContactState::Sticking => "sticking",
                ContactState::Sliding => "sliding",
                ContactState::Degenerate => "degenerate",
            })
            .collect())
    }

    /// `dz` (frictional: `dr`) for a perturbation `dq` of q (length n).
    fn jvp_q(&self, py: Python<'_>, dq: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let dq = self.vec_n(py, dq, "dq")?;
        Ok(array(
            py,
            match &self.inner {
                Inner::Affine(s) => s.jvp_q(&dq),
                Inner::Friction(s) => s.jvp_q(&dq),
            },
        ))
    }

    /// The gradient with respect to q of `<g, z>` (frictional: `<g, r>`); g of length n.
    fn vjp_q(&self, py: Python<'_>, g: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let g = self.vec_n(py, g, "g")?;
        Ok(array(
            py,
            match &self.inner {
                Inner::Affine(s) => s.vjp_q(&g),
                Inner::Friction(s) => s.vjp_q(&g),
            },
        ))
    }

    /// LCP, MLCP: `dz` for a perturbation `dM` of M (n × n, dense or sparse).
    #[allow(non_snake_case)]
    fn jvp_m(&self, py: Python<'_>, dM: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let s = self.affine("jvp_m")?;
        let dm = self.mat_n(py, dM, "dM")?;
        Ok(array(py, s.jvp_m(&dm)))
    }

    /// LCP, MLCP: the gradient with respect to M of `<g, z>`, `vjp_q(g) zᵀ`. A 2-D array when
    /// M is dense; when M is sparse, the gradient with respect to its stored entries only, as
    /// the CSR triple `(data, indices, indptr)` of M's pattern.
    fn vjp_m(&self, py: Python<'_>, g: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let s = self.affine("vjp_m")?;
        let g = self.vec_n(py, g, "g")?;
        matrix_out(py, &s.vjp_m(&g))
    }

    /// Frictional: `dr` for a perturbation `dmu` of the friction coefficients (one per contact,
    /// or one number for all).
    fn jvp_mu(&self, py: Python<'_>, dmu: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let s = self.friction("jvp_mu")?;
        let dmu = self.per_contact(py, dmu, "dmu")?;
        Ok(array(py, s.jvp_mu(&dmu)))
    }

    /// Frictional: the gradient with respect to μ (one value per contact) of `<g, r>`.
    fn vjp_mu(&self, py: Python<'_>, g: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let s = self.friction("vjp_mu")?;
        let g = self.vec_n(py, g, "g")?;
        Ok(array(py, s.vjp_mu(&g)))
    }

    /// Frictional: `dr` for a perturbation `dmu_r` of the rolling coefficients μ_r (one per
    /// contact, or one number for all; a contact whose law is not rolling ignores its entry).
    fn jvp_mu_r(&self, py: Python<'_>, dmu_r: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let s = self.friction("jvp_mu_r")?;
        let dmu_r = self.per_contact(py, dmu_r, "dmu_r")?;
        Ok(array(py, s.jvp_mu_r(&dmu_r)))
    }

    /// Frictional: the gradient with respect to μ_r (one value per contact; 0 for a contact
    /// whose law is not rolling) of `<g, r>`.
    fn vjp_mu_r(&self, py: Python<'_>, g: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let s = self.friction("vjp_mu_r")?;
        let g = self.vec_n(py, g, "g")?;
        Ok(array(py, s.vjp_mu_r(&g)))
    }

    /// Frictional: `dr` for a perturbation `dW` of W (n × n, dense or sparse).
    #[allow(non_snake_case)]
    fn jvp_w(&self, py: Python<'_>, dW: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let s = self.friction("jvp_w")?;
        let dw = self.mat_n(py, dW, "dW")?;
        Ok(array(py, s.jvp_w(&dw)))
    }

    /// Frictional: the gradient with respect to W of `<g, r>`, `vjp_q(g) rᵀ`, in W's storage
    /// (as `vjp_m`: a 2-D array, or the CSR triple of W's pattern when W is sparse).
    fn vjp_w(&self, py: Python<'_>, g: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let s = self.friction("vjp_w")?;
        let g = self.vec_n(py, g, "g")?;
        matrix_out(py, &s.vjp_w(&g))
    }

    /// Frictional: `(dr, du)` for any of `dq`, `dmu`, `dW` and `dmu_r` (the rolling
    /// coefficients) together (None: not perturbed).
    #[pyo3(signature = (dq=None, dmu=None, dW=None, dmu_r=None))]
    #[allow(non_snake_case)]
    fn jvp(
        &self,
        py: Python<'_>,
        dq: Option<&Bound<'_, PyAny>>,
        dmu: Option<&Bound<'_, PyAny>>,
        dW: Option<&Bound<'_, PyAny>>,
        dmu_r: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        let s = self.friction("jvp")?;
        let dq = dq.map(|v| self.vec_n(py, v, "dq")).transpose()?;
        let dmu = dmu.map(|v| self.per_contact(py, v, "dmu")).transpose()?;
        let dw = dW.map(|m| self.mat_n(py, m, "dW")).transpose()?;
        let dmu_r = dmu_r.map(|v| self.per_contact(py, v, "dmu_r")).transpose()?;
        let t = s.jvp_all(dq.as_deref(), dmu.as_deref(), dmu_r.as_deref(), dw.as_ref());
        Ok((array(py, t.r), array(py, t.u)))
    }

    /// Frictional: the gradients `(grad_q, grad_mu)` of `<g_r, r> + <g_u, u>` (`g_u` optional).
    #[pyo3(signature = (g_r, g_u=None))]
    fn vjp(
        &self,
        py: Python<'_>,
        g_r: &Bound<'_, PyAny>,
        g_u: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        let s = self.friction("vjp")?;
        let g_r = self.vec_n(py, g_r, "g_r")?;
        let g_u = g_u.map(|v| self.vec_n(py, v, "g_u")).transpose()?;
        let c = s.vjp(&g_r, g_u.as_deref());
        Ok((array(py, c.q), array(py, c.mu)))
    }

    /// Frictional: [`vjp`](Self::vjp) with the gradient with respect to the rolling
    /// coefficients too: `(grad_q, grad_mu, grad_mu_r)` (`grad_mu_r` 0 for a contact whose
    /// law is not rolling).
    #[pyo3(signature = (g_r, g_u=None))]
    fn vjp_all(
        &self,
        py: Python<'_>,
        g_r: &Bound<'_, PyAny>,
        g_u: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(Py<PyAny>, Py<PyAny>, Py<PyAny>)> {
        let s = self.friction("vjp_all")?;
        let g_r = self.vec_n(py, g_r, "g_r")?;
        let g_u = g_u.map(|v| self.vec_n(py, v, "g_u")).transpose()?;
        let c = s.vjp(&g_r, g_u.as_deref());
        Ok((array(py, c.q), array(py, c.mu), array(py, c.mu_r)))
    }

    fn __repr__(&self) -> String {
        format!("perp.Sensitivity(kind={:?}, n={}, degenerate={:?})", self.kind, self.n, self.degenerate())
    }
}
