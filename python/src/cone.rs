//! A friction law written in Python: any object with `dim` and `project(x, mu)` (a subclass of
//! `perp.Cone`) becomes a Rust [`Cone`], called back under the GIL.
//!
//! The Rust trait asks a law for the projection onto a section of the cone and for the
//! support point of a section (`perp_cones::cone`, Trinkle–Tzitzouris–Pang 2001 (iv) and eq. 2). A Python law may
//! give them (`project_section(t, xi, mu)`, `support(v, mu)`); otherwise both are computed
//! here from the projection onto K alone:
//!
//! * **Section.** `P_K(a, t) = (n*, P_{S(n*)}(t))` (the decomposition behind
//!   `Cone::project`'s default), and `n*(a)` is nondecreasing and 1-Lipschitz in `a`
//!   (projections are monotone and nonexpansive). So `P_{S(ξ)}(t)` is the tangential part of
//!   `P_K(a, t)` at the root of `n*(a) = ξ`, found by bracketing and the Illinois variant of
//!   regula falsi (Dowell & Jarratt 1971; bisection while the left end is in the polar cone,
//!   where `n*` is flat) to ~1e-15 relative.
//! * **Support.** `(y, v) ∈ K*` exactly when `y ≥ h(v) = max{−t·v : t ∈ S(1)}`, and
//!   `x ∈ K°` exactly when `P_K(x) = 0` (Moreau's decomposition, Moreau 1962), so
//!   `h(v) = min{y : P_K(−y, −v) = 0}`: a one-sided root of the convex, decreasing `y ↦ ‖P_K(−y, −v)‖ = dist((−y, −v), K°)`, found
//!   by secants from the left (lower bounds, exact on polyhedral pieces) safeguarded by
//!   bisection. Just below `h`, `P_K(−y, −v)` points along the generator `(1, t*)` of K that
//!   attains the maximum, which gives the maximiser `t*` (exact for Coulomb cones and
//!   pyramids, within ~1e-6 relative on curved sections, where only Jacobians use it).
//!
//! An optional `soc_map(mu)` returning `(a, b)` (see `perp_cones::SocMap`) opens the
//! Fischer–Burmeister solver to ellipsoidal laws. Jacobians of the section projection are
//! central differences. A Python exception (or a
//! result of the wrong length) is kept, every later call returns NaN so that the solver stops,
//! and the caller raises `perp.Error` with the Python message after the solve.

use numpy::PyArray1;
use perp_cones::{Cone, SocMap, MAX_DIM};
use perp_core::Error;
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};

/// The first Python error raised by any cone of one solve.
pub type Failure = Arc<Mutex<Option<PyErr>>>;

const MD: usize = MAX_DIM;

/// A Python friction law (see the module docs).
pub struct PyCone {
    obj: Py<PyAny>,
    name: String,
    dim: usize,
    has_section: bool,
    has_support: bool,
    has_soc_map: bool,
    failure: Failure,
}

impl std::fmt::Debug for PyCone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyCone({}, dim {})", self.name, self.dim)
    }
}

impl PyCone {
    /// Wraps `obj`, checking that it has `dim` (2..=6) and a callable `project`.
    pub fn new(obj: &Bound<'_, PyAny>, failure: Failure) -> PyResult<PyCone> {
        let ty = obj.get_type().name()?.to_string();
        let dim: i64 = obj
            .getattr("dim")
            .and_then(|d| d.extract())
            .map_err(|_| crate::perp_error(format!("cone: {ty} has no integer attribute dim")))?;
        if !(2..=MD as i64).contains(&dim) {
            return Err(crate::perp_error(format!("cone {ty}: dim = {dim}: must be between 2 and {MD}")));
        }
        let callable = |m: &str| obj.getattr(m).map(|a| a.is_callable()).unwrap_or(false);
        if !callable("project") {
            return Err(crate::perp_error(format!(
                "cone: {ty} has no method project(x, mu) (subclass perp.Cone and define it)"
            )));
        }
        let name = match obj.getattr("name").and_then(|n| n.extract::<String>()) {
            Ok(n) => n,
            Err(_) => ty,
        };
        Ok(PyCone {
            obj: obj.clone().unbind(),
            name,
            dim: dim as usize,
            has_section: callable("project_section"),
            has_support: callable("support"),
            has_soc_map: callable("soc_map"),
            failure,
        })
    }

    /// The same law with its optional closed forms ignored: the derivations of the module
    /// docs only (for the tests).
    pub fn projection_only(mut self) -> PyCone {
        self.has_section = false;
        self.has_support = false;
        self.has_soc_map = false;
        self
    }

    /// `soc_map(mu)` of the Python law: None, or the pair `(a, b)` of [`SocMap`].
    fn python_soc_map(&self, mu: f64) -> Option<SocMap> {
        if !self.has_soc_map || self.failed() {
            return None;
        }
        let r = Python::attach(|py| -> PyResult<Option<(Vec<f64>, Vec<f64>)>> {
            let res = self.obj.bind(py).call_method1("soc_map", (mu,))?;
            if res.is_none() {
                return Ok(None);
            }
            res.extract().map(Some).map_err(|_| {
                crate::perp_error(format!(
                    "cone {}: soc_map must return None or a pair (a, b) of sequences, returned {res}",
                    self.name
                ))
            })
        });
        match r {
            Ok(Some((a, b))) if a.len() == self.dim && b.len() == self.dim => Some(SocMap { a, b }),
            Ok(Some((a, b))) => {
                self.fail(crate::perp_error(format!(
                    "cone {}: soc_map returned a and b of lengths {} and {}, {} expected",
                    self.name,
                    a.len(),
                    b.len(),
                    self.dim
                )));
                None
            }
            Ok(None) => None,
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }

    fn failed(&self) -> bool {
        self.failure.lock().map(|f| f.is_some()).unwrap_or(true)
    }

    fn fail(&self, e: PyErr) {
        if let Ok(mut f) = self.failure.lock() {
            if f.is_none() {
                *f = Some(e);
            }
        }
    }

    /// Calls `method(x, *scalars)` and writes its result (a sequence of `out.len()` floats)
    /// to `out`; false (and `out` NaN) after any failure.
    fn call(&self, method: &str, x: &[f64], scalars: &[f64], out: &mut [f64]) -> bool {
        if !self.failed() {
            let r = Python::attach(|py| -> PyResult<Vec<f64>> {
                let arr = PyArray1::from_slice(py, x);
                let res = match scalars {
                    [a] => self.obj.bind(py).call_method1(method, (arr, *a))?,
                    [a, b] => self.obj.bind(py).call_method1(method, (arr, *a, *b))?,
                    _ => unreachable!("one or two scalar arguments"),
                };
                res.extract::<Vec<f64>>().map_err(|_| {
                    crate::perp_error(format!(
                        "cone {}: {method} must return a sequence of floats, returned {res}",
                        self.name
                    ))
                })
            });
            match r {
                Ok(v) if v.len() == out.len() => {
                    out.copy_from_slice(&v);
                    return true;
                }
                Ok(v) => self.fail(crate::perp_error(format!(
                    "cone {}: {method} returned {} values, {} expected",
                    self.name,
                    v.len(),
                    out.len()
                ))),
                Err(e) => self.fail(e),
            }
        }
        out.iter_mut().for_each(|o| *o = f64::NAN);
        false
    }

    fn project_k(&self, mu: f64, x: &[f64], out: &mut [f64]) -> bool {
        self.call("project", x, &[mu], out)
    }

    /// The section projection's value (no Jacobians).
    fn section(&self, mu: f64, xi: f64, t: &[f64], out: &mut [f64]) {
        if self.has_section {
            self.call("project_section", t, &[xi, mu], out);
        } else {
            self.section_from_projection(mu, xi, t, out);
        }
    }

    /// `P_{S(ξ)}(t)` from `P_K` alone (module docs).
    fn section_from_projection(&self, mu: f64, xi: f64, t: &[f64], out: &mut [f64]) {
        let k = t.len();
        if xi <= 0.0 || !xi.is_finite() {
            out.iter_mut().for_each(|o| *o = if xi.is_nan() { f64::NAN } else { 0.0 });
            return;
        }
        let mut x = [0.0; MD];
        let mut p = [0.0; MD];
        x[1..=k].copy_from_slice(t);
        // f(a) = n*(a) − ξ, keeping the tangential part of the best point seen.
        let mut best = (f64::INFINITY, [0.0; MD]);
        let mut f = |a: f64| -> Option<f64> {
            x[0] = a;
            if !self.project_k(mu, &x[..=k], &mut p[..=k]) {
                return None;
            }
            let v = p[0] - xi;
            if v.abs() < best.0 {
                best = (v.abs(), p);
            }
            Some(v)
        };
        // n*(a) is computed from a ≈ −μ‖t‖ when t is far outside the section, so it is known
        // to ~ε(ξ + ‖t‖), not to ε ξ; the tangential part is then as accurate in absolute terms.
        let nt = t.iter().map(|v| v * v).sum::<f64>().sqrt();
        let tol = 1e-15 * xi;
        let solved = (|| {
            let f_xi = f(xi)?;
            if f_xi.abs() <= tol {
                return Some(());
            }
            let bracket = bracket(&mut f, xi, f_xi, xi + nt)?;
            illinois(&mut f, bracket, xi, tol)
        })();
        if solved.is_none() || best.0 > 1e-8 * (xi + nt) {
            if !self.failed() {
                self.fail(crate::perp_error(format!(
                    "cone {}: no point of P_K(a, t) has normal part {xi}: project(x, mu) does not behave as \
                     a projection onto a cone (or define project_section)",
                    self.name
                )));
            }
            out.iter_mut().for_each(|o| *o = f64::NAN);
            return;
        }
        out.copy_from_slice(&best.1[1..=k]);
    }

    /// `h(v)` and its maximiser from `P_K` alone (module docs).
    fn support_from_projection(&self, mu: f64, v: &[f64], t_out: &mut [f64]) -> f64 {
        let k = v.len();
        let nv = v.iter().map(|a| a * a).sum::<f64>().sqrt();
        t_out.iter_mut().for_each(|t| *t = 0.0);
        if nv == 0.0 {
            return 0.0;
        }
        let mut x = [0.0; MD];
        let mut p = [0.0; MD];
        for a in 0..k {
            x[a + 1] = -v[a];
        }
        // g(y) = ‖P_K(−y, −v)‖, zero exactly for y ≥ h(v).
        let mut g = |y: f64, p: &mut [f64; MD]| -> Option<f64> {
            x[0] = -y;
            let scale = (y * y + nv * nv).sqrt();
            self.project_k(mu, &x[..=k], &mut p[..=k]).then(|| {
                let n = p[..=k].iter().map(|a| a * a).sum::<f64>().sqrt();
                if n <= 1e-13 * scale {
                    0.0
                } else {
                    n
                }
            })
        };
        let h = first_zero(|y| g(y, &mut p), nv);
        let Some(h) = h else {
            if !self.failed() {
                self.fail(crate::perp_error(format!(
                    "cone {}: project(x, mu) never returns 0 along (-y, -v): it does not behave as a \
                     projection onto a cone with a bounded section (or define support)",
                    self.name
                )));
            }
            t_out.iter_mut().for_each(|t| *t = f64::NAN);
            return f64::NAN;
        };
        if h > 0.0 {
            let y = h * (1.0 - 1e-7);
            if g(y, &mut p).is_some_and(|n| n > 0.0) && p[0] > 0.0 {
                for a in 0..k {
                    t_out[a] = p[a + 1] / p[0];
                }
            }
        }
        h
    }
}

impl Cone for PyCone {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn project(&self, mu: f64, x: &[f64], out: &mut [f64]) {
        self.project_k(mu, x, out);
    }

    fn project_section(
        &self,
        mu: f64,
        xi: f64,
        t: &[f64],
        out: &mut [f64],
        jac_t: Option<&mut [f64]>,
        jac_xi: Option<&mut [f64]>,
    ) {
        let k = t.len();
        self.section(mu, xi, t, out);
        let (mut pp, mut pm) = ([0.0; MD], [0.0; MD]);
        if let Some(j) = jac_t {
            let nt = t.iter().map(|v| v * v).sum::<f64>().sqrt();
            let h = 1e-7 * nt.max(xi.abs() * mu).max(1e-8);
            let mut tp = [0.0; MD];
            tp[..k].copy_from_slice(t);
            for c in 0..k {
                tp[c] = t[c] + h;
                self.section(mu, xi, &tp[..k], &mut pp[..k]);
                tp[c] = t[c] - h;
                self.section(mu, xi, &tp[..k], &mut pm[..k]);
                tp[c] = t[c];
                for r in 0..k {
                    j[r * k + c] = (pp[r] - pm[r]) / (2.0 * h);
                }
            }
        }
        if let Some(j) = jac_xi {
            // Central where ξ − h stays positive, else the right derivative (the trait's
            // convention at ξ ≤ 0).
            let nt = t.iter().map(|v| v * v).sum::<f64>().sqrt();
            let h = 1e-7 * xi.abs().max(1e-3 * nt).max(1e-8);
            let x0 = xi.max(0.0);
            self.section(mu, x0 + h, t, &mut pp[..k]);
            if x0 - h > 0.0 {
                self.section(mu, x0 - h, t, &mut pm[..k]);
                for r in 0..k {
                    j[r] = (pp[r] - pm[r]) / (2.0 * h);
                }
            } else {
                self.section(mu, x0, t, &mut pm[..k]);
                for r in 0..k {
                    j[r] = (pp[r] - pm[r]) / h;
                }
            }
        }
    }

    fn support(&self, mu: f64, v: &[f64], t_out: &mut [f64]) -> f64 {
        if self.has_support {
            if !self.call("support", v, &[mu], t_out) {
                return f64::NAN;
            }
            -v.iter().zip(t_out.iter()).map(|(a, b)| a * b).sum::<f64>()
        } else {
            self.support_from_projection(mu, v, t_out)
        }
    }

    fn soc_map(&self, mu: f64) -> Option<SocMap> {
        self.python_soc_map(mu)
    }

    fn check(&self, mu: f64) -> Result<(), Error> {
        if !(mu.is_finite() && mu >= 0.0) {
            return Err(Error::setting("mu", mu, "the friction coefficient must be finite and ≥ 0"));
        }
        Ok(())
    }
}

/// Widens `[lo, hi]`, from `lo = hi = xi` with `f(xi) = f_xi`, by steps from `step` doubling
/// each time until `f` changes sign across it (at most 200 times): `[lo, f(lo), hi, f(hi)]`
/// with `f(lo) ≤ 0 ≤ f(hi)`, or `None` when `f` fails or no sign change is found.
fn bracket(f: &mut impl FnMut(f64) -> Option<f64>, xi: f64, f_xi: f64, mut step: f64) -> Option<[f64; 4]> {
    let (mut lo, mut hi, mut f_lo, mut f_hi) = (xi, xi, f_xi, f_xi);
    for _ in 0..200 {
        if (f_lo <= 0.0) == (f_hi >= 0.0) {
            break;
        }
        if f_lo > 0.0 {
            hi = lo;
            f_hi = f_lo;
            lo -= step;
            f_lo = f(lo)?;
        } else {
            lo = hi;
            f_lo = f_hi;
            hi += step;
            f_hi = f(hi)?;
        }
        step *= 2.0;
    }
    (f_lo <= 0.0 && f_hi >= 0.0).then_some([lo, f_lo, hi, f_hi])
}

/// Illinois: regula falsi on the bracket `[lo, f(lo), hi, f(hi)]` of `f(a) = n*(a) − ξ`,
/// halving the weight of an end kept twice; bisection while the left end lies where n* = 0
/// (the polar cone, where f carries no slope). Stops at `|f| ≤ tol` or a bracket of a few ulps;
/// `None` when `f` fails.
fn illinois(
    f: &mut impl FnMut(f64) -> Option<f64>,
    [mut lo, mut f_lo, mut hi, mut f_hi]: [f64; 4],
    xi: f64,
    tol: f64,
) -> Option<()> {
    let mut side = 0;
    let mut lo_flat = f_lo + xi == 0.0;
    for _ in 0..300 {
        if f_hi - f_lo <= 0.0 || hi - lo <= 4.0 * f64::EPSILON * hi.abs().max(lo.abs()) {
            break;
        }
        let a = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
        let a = if !lo_flat && a > lo && a < hi { a } else { 0.5 * (lo + hi) };
        let fa = f(a)?;
        if fa.abs() <= tol {
            break;
        }
        if fa < 0.0 {
            lo = a;
            lo_flat = fa + xi == 0.0;
            f_lo = fa;
            if side == -1 {
                f_hi *= 0.5;
            }
            side = -1;
        } else {
            hi = a;
            f_hi = fa;
            if side == 1 {
                f_lo *= 0.5;
            }
            side = 1;
        }
    }
    Some(())
}

/// `h = min{y ≥ 0 : g(y) = 0}` of a convex, decreasing `g ≥ 0` (`g(y) = ‖P_K(−y, −v)‖`, with
/// `nv = ‖v‖ > 0` the first trial upper end, doubled until `g` is 0): secants from the left
/// (two points where `g > 0`) on every other step, bisection otherwise, to a few ulps of `h`.
/// `None` when `g` fails or no zero is found.
fn first_zero(mut g: impl FnMut(f64) -> Option<f64>, nv: f64) -> Option<f64> {
    let (mut lo, mut g_lo) = (0.0, g(0.0)?);
    if g_lo == 0.0 {
        return Some(0.0);
    }
    let mut hi = nv;
    let mut doublings = 0;
    loop {
        let g_hi = g(hi)?;
        if g_hi == 0.0 {
            break;
        }
        (lo, g_lo) = (hi, g_hi);
        hi *= 2.0;
        doublings += 1;
        if doublings > 1100 || !hi.is_finite() {
            return None;
        }
    }
    // (prev, g_prev), (lo, g_lo): two points left of h for the secant.
    let (mut prev, mut g_prev) = (f64::NAN, f64::NAN);
    for it in 0..200 {
        if hi - lo <= 4.0 * f64::EPSILON * hi {
            break;
        }
        let secant = lo + g_lo * (lo - prev) / (g_prev - g_lo);
        let y = if it % 2 == 0 && secant.is_finite() && secant > lo && secant < hi {
            secant
        } else {
            0.5 * (lo + hi)
        };
        let gy = g(y)?;
        if gy > 0.0 {
            (prev, g_prev) = (lo, g_lo);
            (lo, g_lo) = (y, gy);
        } else {
            hi = y;
        }
    }
    Some(hi)
}
