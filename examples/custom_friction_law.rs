//! A new friction law in one file, solved by perp's solvers unchanged.
//!
//! The law: **orthotropic Coulomb friction** — a surface with a grain, sliding more easily
//! along it (μ_x = μ·a) than across it (μ_y = μ·b). The friction cone is elliptic,
//!
//! ```text
//!     K = { (r_N, r_x, r_y) : (r_x/a)² + (r_y/b)² ≤ μ² r_N² },
//! ```
//!
//! and a law needs only three things from its author (see `perp::cones::Cone`): the
//! projection onto a section of the cone (here an ellipse: one safeguarded 1-D root find), the
//! maximal dissipation `h(v) = max{−t·v : t ∈ section}` with its maximiser (closed form), and,
//! for the Fischer–Burmeister solver, the diagonal map to the Lorentz cone. Everything else —
//! the projection onto K itself, the natural map, the Alart–Curnier function and their
//! Jacobians — comes from the trait's defaults.
//!
//! The example builds a small frictional problem (four contacts of a box pushed sideways on a
//! grained floor), solves it with `nsgs` and `fb-newton` using the law above, checks both
//! answers with the problem's own error measure, and compares with perp's built-in elliptic
//! cone, which must give the same reactions.
//!
//! `cargo run --release --example custom_friction_law`

use perp::cones::{solver, Cone, ConeSpec, FrictionContactProblem, SocMap};
use perp::core::{Error, Matrix, Settings, Status};
use std::sync::Arc;

/// Orthotropic Coulomb friction: semi-axes `a` (along the grain) and `b` (across), times μ.
#[derive(Debug)]
struct Orthotropic {
    a: f64,
    b: f64,
}

impl Orthotropic {
    /// Projection of `y` onto the ellipse `(t_x/α)² + (t_y/β)² ≤ 1`: `t_k = y_k α_k²/(α_k² + λ)`
    /// with λ ≥ 0 the root of `f(λ) = Σ (y_k α_k/(α_k² + λ))² − 1`, which is decreasing and
    /// convex, so Newton from λ = 0 converges monotonically.
    fn ellipse(alpha: [f64; 2], y: &[f64], out: &mut [f64]) {
        if alpha[0] <= 0.0 || alpha[1] <= 0.0 {
            out.iter_mut().for_each(|o| *o = 0.0);
            return;
        }
        let inside = (y[0] / alpha[0]).powi(2) + (y[1] / alpha[1]).powi(2) <= 1.0;
        if inside {
            out.copy_from_slice(y);
            return;
        }
        let mut lam = 0.0;
        for _ in 0..100 {
            let (mut f, mut df) = (-1.0, 0.0);
            for k in 0..2 {
                let den = alpha[k] * alpha[k] + lam;
                let g = y[k] * alpha[k] / den;
                f += g * g;
                df -= 2.0 * g * g / den;
            }
            let step = f / df;
            lam -= step;
            if step.abs() <= 1e-15 * lam.max(1e-300) {
                break;
            }
        }
        for k in 0..2 {
            out[k] = y[k] * alpha[k] * alpha[k] / (alpha[k] * alpha[k] + lam);
        }
    }
}

impl Cone for Orthotropic {
    fn name(&self) -> String {
        format!("orthotropic({}, {})", self.a, self.b)
    }

    fn dim(&self) -> usize {
        3
    }

    fn check(&self, mu: f64) -> Result<(), Error> {
        if !(self.a > 0.0 && self.b > 0.0) {
            return Err(Error::setting(
                "orthotropic semi-axes",
                format!("{} {}", self.a, self.b),
                "must be > 0",
            ));
        }
        if !(mu.is_finite() && mu >= 0.0) {
            return Err(Error::setting("mu", mu, "must be finite and ≥ 0"));
        }
        Ok(())
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
        let s = mu * xi.max(0.0);
        let alpha = [s * self.a, s * self.b];
        Self::ellipse(alpha, t, out);
        // Jacobians by central differences: two more projections per column — fine for a
        // prototype; a production law would differentiate the root find.
        let h = 1e-7 * (t[0].abs() + t[1].abs()).max(1e-8);
        let (mut p, mut m) = ([0.0; 2], [0.0; 2]);
        if let Some(j) = jac_t {
            for c in 0..2 {
                let mut tp = [t[0], t[1]];
                tp[c] += h;
                Self::ellipse(alpha, &tp, &mut p);
                tp[c] -= 2.0 * h;
                Self::ellipse(alpha, &tp, &mut m);
                for r in 0..2 {
                    j[r * 2 + c] = (p[r] - m[r]) / (2.0 * h);
                }
            }
        }
        if let Some(j) = jac_xi {
            // Right derivative in ξ (the trait's convention at ξ = 0).
            let hx = 1e-7 * xi.abs().max(1e-8);
            let s1 = mu * (xi.max(0.0) + hx);
            Self::ellipse([s1 * self.a, s1 * self.b], t, &mut p);
            for r in 0..2 {
                j[r] = (p[r] - out[r]) / hx;
            }
        }
    }

    fn support(&self, mu: f64, v: &[f64], t_out: &mut [f64]) -> f64 {
        // max −t·v over (t_x/(μa))² + (t_y/(μb))² ≤ 1: t = −μ E² v/‖E v‖, h = μ‖E v‖, E = diag(a, b).
        let ev = ((self.a * v[0]).powi(2) + (self.b * v[1]).powi(2)).sqrt();
        if ev > 0.0 {
            t_out[0] = -mu * self.a * self.a * v[0] / ev;
            t_out[1] = -mu * self.b * self.b * v[1] / ev;
        } else {
            t_out.iter_mut().for_each(|t| *t = 0.0);
        }
        mu * ev
    }

    fn soc_map(&self, mu: f64) -> Option<SocMap> {
        // r ∈ K ⟺ (μ r_N, r_x/a, r_y/b) ∈ Lorentz;  u ∈ K* ⟺ (u_N, μ a u_x, μ b u_y) ∈ Lorentz.
        (mu > 0.0).then(|| SocMap {
            a: vec![mu, 1.0 / self.a, 1.0 / self.b],
            b: vec![1.0, mu * self.a, mu * self.b],
        })
    }
}

fn main() -> Result<(), Error> {
    // Four contacts under a box (Delassus operator of a rigid box: W = J M⁻¹ Jᵀ, computed
    // here for unit mass and inertia, plus a contact compliance 0.05·I), pushed along x and y
    // by the free velocity q.
    let corners = [(0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5), (0.5, -0.5)];
    let n = 12;
    let mut j = vec![0.0; n * 6]; // rows: contact components (N, x, y); columns: body velocity
    for (i, &(px, py)) in corners.iter().enumerate() {
        let (pz, rows) = (-0.5, [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        for (k, dir) in rows.iter().enumerate() {
            let row = 3 * i + k;
            // linear part, then (p × dir) for the angular part
            j[row * 6..row * 6 + 3].copy_from_slice(dir);
            j[row * 6 + 3] = py * dir[2] - pz * dir[1];
            j[row * 6 + 4] = pz * dir[0] - px * dir[2];
            j[row * 6 + 5] = px * dir[1] - py * dir[0];
        }
    }
    let mut w = vec![0.0; n * n];
    for r in 0..n {
        for c in 0..n {
            w[r * n + c] =
                (0..6).map(|k| j[r * 6 + k] * j[c * 6 + k]).sum::<f64>() + if r == c { 0.05 } else { 0.0 };
        }
    }
    let mut q = vec![0.0; n];
    for i in 0..4 {
        q[3 * i] = -1.0; // pressed into the floor
        q[3 * i + 1] = 0.8; // pushed along the grain
        q[3 * i + 2] = 0.6; // and across it
    }
    let law: Arc<dyn Cone> = Arc::new(Orthotropic { a: 1.0, b: 0.4 });
    let base = FrictionContactProblem::new(3, Matrix::from_row_major(n, n, &w)?, q, vec![0.5; 4])?;
    let custom = base.clone().with_cones(vec![ConeSpec::Custom(law); 4])?;
    let builtin = base.with_cones(vec![ConeSpec::Elliptic { e: vec![1.0, 0.4] }; 4])?;

    let s = Settings { tol: 1e-9, ..Settings::default() };
    println!("{:12} {:10} {:>10} {:>6}   r (first contact)", "solver", "law", "error", "iter");
    let mut answers = Vec::new();
    for name in ["nsgs", "fb-newton", "ac-newton"] {
        for (label, p) in [("custom", &custom), ("built-in", &builtin)] {
            let sol = solver(name)?.solve(p, None, &s)?;
            println!(
                "{name:12} {label:10} {:>10.2e} {:>6}   {:.6?}",
                sol.report.error,
                sol.report.iterations,
                &sol.r[..3]
            );
            assert_eq!(
                sol.report.status,
                Status::Solved,
                "{name} on the {label} law: {:?}",
                sol.report.message
            );
            answers.push(sol.r);
        }
    }
    let spread = answers
        .iter()
        .flat_map(|a| a.iter().zip(&answers[0]).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max);
    println!("largest difference between the six answers: {spread:.1e}");
    assert!(spread < 1e-6, "the custom law and the built-in elliptic cone disagree");
    Ok(())
}
