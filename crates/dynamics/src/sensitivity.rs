//! Derivatives through one time step: the next `(q, u)` as a function of the current `(q, u)`
//! and of each candidate contact's friction coefficient μ and normal restitution ε_N.
//!
//! One step of Moreau's midpoint scheme with the frictional contact formulation is
//!
//! ```text
//!     q_M = q + ½Δt u,     u⁺ = u_free + Y r,     q⁺ = q_M + ½Δt u⁺,
//!     r solves   u_loc = W r + b ∈ contact law(μ),
//! ```
//!
//! with `u_free, Y = M⁻¹Jᵀ, W = J M⁻¹ Jᵀ, b = J u_free + ŵ + ε_N γ_A` assembled at `q_M`
//! (`crate::assembly`). The contact solve is differentiated exactly, by the implicit
//! differentiation of `perp_cones::sensitivity`; the smooth assembly (geometry, mass, forces,
//! quaternion integration) is differentiated by central differences along the direction
//! (step `1e-6 · max(1, ‖(q, u)‖∞) / ‖direction‖∞`), since a [`crate::System`] gives no
//! derivatives of its contacts. The set of active contacts is held fixed (it changes only
//! where a gap crosses zero, where the step is not differentiable).
//!
//! A JVP costs two assemblies and two triangular solves; a VJP builds the whole Jacobian from
//! one JVP per input (`coords + dofs + 2·contacts` of them), which suits the small systems this
//! is meant for (the sliding sphere of Trinkle–Tzitzouris–Pang 2001 §4, a block on an incline).

use crate::assembly::LocalProblem;
use crate::mass::MassFactor;
use crate::system::{Contact, System};
use perp_cones::{FrictionSensitivity, FrictionSolution};
use perp_core::{measures, Error, Matrix, SolveReport, Status};

/// The linearization of one step, made by [`crate::Simulator::step_with_sensitivity`].
pub struct StepSensitivity<'s> {
    system: &'s dyn System,
    q: Vec<f64>,
    u: Vec<f64>,
    t: f64,
    dt: f64,
    candidates: usize,
    active: Vec<usize>,
    r: Vec<f64>,
    lp: LocalProblem,
    contact: Option<FrictionSensitivity>,
    degenerate: Vec<usize>,
}

impl std::fmt::Debug for StepSensitivity<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StepSensitivity")
            .field("active", &self.active)
            .field("degenerate", &self.degenerate)
            .finish()
    }
}

/// The gradients of `⟨g_q, q⁺⟩ + ⟨g_u, u⁺⟩` with respect to the step's inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct StepCotangent {
    /// With respect to the current coordinates q.
    pub q: Vec<f64>,
    /// With respect to the current velocities u.
    pub u: Vec<f64>,
    /// With respect to each candidate contact's μ.
    pub mu: Vec<f64>,
    /// With respect to each candidate contact's normal restitution ε_N.
    pub restitution: Vec<f64>,
}

/// The step's contact problem assembled at `(q, u)` with the given active contacts and
/// restitution shifts (per candidate contact); returns it with `q_M`.
pub(crate) fn assemble(
    sys: &dyn System,
    q: &[f64],
    u: &[f64],
    t: f64,
    dt: f64,
    active: &[usize],
    restitution_shift: Option<&[f64]>,
) -> Result<(LocalProblem, Vec<f64>), Error> {
    let mut q_m = q.to_vec();
    sys.integrate(&mut q_m, u, 0.5 * dt);
    let t_eval = t + 0.5 * dt;
    let mut h = vec![0.0; sys.dofs()];
    sys.forces(&q_m, u, t_eval, &mut h);
    let all = sys.contacts(&q_m, t_eval);
    let mut contacts: Vec<Contact> = Vec::with_capacity(active.len());
    for &i in active {
        let mut c = all.get(i).ok_or_else(|| Error::dim("contacts(q, t)", active.len(), all.len()))?.clone();
        if let Some(s) = restitution_shift {
            c.restitution_n += s[i];
        }
        contacts.push(c);
    }
    let factor = MassFactor::new(&sys.mass(&q_m, t_eval))?;
    let bil = sys.bilaterals(&q_m, t_eval);
    let lp = LocalProblem::new(&factor, u, &h, dt, active.to_vec(), contacts, &bil)?;
    Ok((lp, q_m))
}

/// The state a step starts from: coordinates, velocities, time, and the step's length.
pub(crate) struct StepStart {
    pub(crate) q: Vec<f64>,
    pub(crate) u: Vec<f64>,
    pub(crate) t: f64,
    pub(crate) dt: f64,
}

/// What a step's contact solve found: the active contacts, their local impulses `r`, how the
/// solve ended, and the system's number of candidate contacts.
pub(crate) struct StepContacts {
    pub(crate) active: Vec<usize>,
    pub(crate) r: Vec<f64>,
    pub(crate) status: Option<Status>,
    pub(crate) candidates: usize,
}

impl<'s> StepSensitivity<'s> {
    /// Linearizes the step from `start` whose contacts the stepper solved as `contacts` says.
    pub(crate) fn new(
        system: &'s dyn System,
        start: StepStart,
        contacts: StepContacts,
    ) -> Result<Self, Error> {
        let (StepStart { q, u, t, dt }, StepContacts { active, r, status, candidates }) = (start, contacts);
        let (lp, _) = assemble(system, &q, &u, t, dt, &active, None)?;
        let (contact, degenerate) = if lp.size() == 0 {
            (None, Vec::new())
        } else {
            let fc = lp.friction_problem()?;
            let uu = fc.velocity(&r);
            let mut report = SolveReport::new("step");
            report.status = status.unwrap_or(Status::MaxIterations);
            report.error = fc.error(&r, &uu);
            let sol = FrictionSolution { r: r.clone(), u: uu, report };
            let s = perp_cones::sensitivity(&fc, &sol)?;
            let degenerate = s.degenerate().iter().map(|&k| active[k]).collect();
            (Some(s), degenerate)
        };
        Ok(StepSensitivity { system, q, u, t, dt, candidates, active, r, lp, contact, degenerate })
    }

    fn step_q(&self, q_m: &[f64], u_next: &[f64]) -> Vec<f64> {
        let mut q = q_m.to_vec();
        self.system.integrate(&mut q, u_next, 0.5 * self.dt);
        self.system.normalize(&mut q);
        q
    }

    /// `(dq⁺, du⁺)` for a direction `(dq, du)` of the state and, optionally, `dmu` and
    /// `de` (one per candidate contact) of the friction and restitution coefficients.
    ///
    /// `Err` on wrong lengths or non-finite values, or when the system fails to assemble at
    /// the perturbed states.
    pub fn jvp(
        &self,
        dq: &[f64],
        du: &[f64],
        dmu: Option<&[f64]>,
        de: Option<&[f64]>,
    ) -> Result<(Vec<f64>, Vec<f64>), Error> {
        let nc = self.candidates;
        perp_core::sensitivity::check_vector("dq", dq, self.q.len())?;
        perp_core::sensitivity::check_vector("du", du, self.u.len())?;
        let zeros = vec![0.0; nc];
        let dmu = dmu.unwrap_or(&zeros);
        let de = de.unwrap_or(&zeros);
        perp_core::sensitivity::check_vector("dmu", dmu, nc)?;
        perp_core::sensitivity::check_vector("de", de, nc)?;
        let size = measures::norm_inf(dq).max(measures::norm_inf(du)).max(measures::norm_inf(de));
        let u_next = self.lp.velocity(&self.r);
        if size == 0.0 && measures::norm_inf(dmu) == 0.0 {
            return Ok((vec![0.0; self.q.len()], vec![0.0; self.u.len()]));
        }
        let scale = measures::norm_inf(&self.q).max(measures::norm_inf(&self.u)).max(1.0);
        let eps = if size > 0.0 { 1e-6 * scale / size } else { 1.0 };
        let shifted = |s: f64| {
            let q: Vec<f64> = self.q.iter().zip(dq).map(|(a, b)| a + s * b).collect();
            let u: Vec<f64> = self.u.iter().zip(du).map(|(a, b)| a + s * b).collect();
            let e: Vec<f64> = de.iter().map(|v| s * v).collect();
            assemble(self.system, &q, &u, self.t, self.dt, &self.active, Some(&e))
        };
        let ((lp_p, qm_p), (lp_m, qm_m)) = (shifted(eps)?, shifted(-eps)?);
        // The smooth part with r held: u⁺ = u_free + Y r.
        let (vp, vm) = (lp_p.velocity(&self.r), lp_m.velocity(&self.r));
        let mut du_next: Vec<f64> = vp.iter().zip(&vm).map(|(a, b)| (a - b) / (2.0 * eps)).collect();
        // The contact solve: dr from (dW, db, dμ), exactly.
        if let Some(s) = &self.contact {
            let k = self.lp.size();
            let db: Vec<f64> = lp_p.b.iter().zip(&lp_m.b).map(|(a, b)| (a - b) / (2.0 * eps)).collect();
            let (wp, wm) = (lp_p.w.to_dense(), lp_m.w.to_dense());
            let dw = Matrix::Dense(faer::Mat::from_fn(k, k, |i, j| (wp[(i, j)] - wm[(i, j)]) / (2.0 * eps)));
            let dmu_active: Vec<f64> = self.active.iter().map(|&i| dmu[i]).collect();
            let dr = s.jvp(Some(&db), Some(&dmu_active), Some(&dw)).r;
            // Y dr = velocity(dr) − u_free.
            let ydr = self.lp.velocity(&dr);
            du_next.iter_mut().zip(ydr.iter().zip(&self.lp.u_free)).for_each(|(a, (y, f))| *a += y - f);
        }
        // q⁺ = q_M + ½Δt u⁺ (through the system's own integration and normalization).
        let up: Vec<f64> = u_next.iter().zip(&du_next).map(|(a, b)| a + eps * b).collect();
        let um: Vec<f64> = u_next.iter().zip(&du_next).map(|(a, b)| a - eps * b).collect();
        let (qp, qm) = (self.step_q(&qm_p, &up), self.step_q(&qm_m, &um));
        let dq_next = if size > 0.0 || measures::norm_inf(&du_next) > 0.0 {
            qp.iter().zip(&qm).map(|(a, b)| (a - b) / (2.0 * eps)).collect()
        } else {
            vec![0.0; self.q.len()]
        };
        Ok((dq_next, du_next))
    }

    /// The gradients of `⟨g_q, q⁺⟩ + ⟨g_u, u⁺⟩` with respect to q, u, μ and ε_N (one JVP per
    /// input: see the module documentation).
    pub fn vjp(&self, g_q: &[f64], g_u: &[f64]) -> Result<StepCotangent, Error> {
        let (nq, nu, nc) = (self.q.len(), self.u.len(), self.candidates);
        perp_core::sensitivity::check_vector("g_q", g_q, nq)?;
        perp_core::sensitivity::check_vector("g_u", g_u, nu)?;
        let pull = |dq: &[f64], du: &[f64], dmu: Option<&[f64]>, de: Option<&[f64]>| -> Result<f64, Error> {
            let (a, b) = self.jvp(dq, du, dmu, de)?;
            Ok(g_q.iter().zip(&a).chain(g_u.iter().zip(&b)).map(|(x, y)| x * y).sum())
        };
        let unit = |n: usize, i: usize| {
            let mut v = vec![0.0; n];
            v[i] = 1.0;
            v
        };
        let (zq, zu) = (vec![0.0; nq], vec![0.0; nu]);
        let q = (0..nq).map(|i| pull(&unit(nq, i), &zu, None, None)).collect::<Result<_, _>>()?;
        let u = (0..nu).map(|i| pull(&zq, &unit(nu, i), None, None)).collect::<Result<_, _>>()?;
        let mu = (0..nc).map(|i| pull(&zq, &zu, Some(&unit(nc, i)), None)).collect::<Result<_, _>>()?;
        let restitution =
            (0..nc).map(|i| pull(&zq, &zu, None, Some(&unit(nc, i)))).collect::<Result<_, _>>()?;
        Ok(StepCotangent { q, u, mu, restitution })
    }

    /// The candidate contacts at a kink of the contact law at this step (see
    /// `perp_cones::sensitivity`): their derivatives are those of a documented element.
    pub fn degenerate(&self) -> &[usize] {
        &self.degenerate
    }

    /// The active contacts (candidate indices), held fixed by the linearization.
    pub fn active(&self) -> &[usize] {
        &self.active
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes;
    use crate::{Formulation, Simulator, StepOptions};
    use perp_core::Settings;

    /// A system whose contacts have μ and ε_N shifted (the finite-difference reference).
    struct Tweak<'a> {
        inner: &'a dyn System,
        dmu: f64,
        de: f64,
    }

    impl System for Tweak<'_> {
        fn dofs(&self) -> usize {
            self.inner.dofs()
        }
        fn coords(&self) -> usize {
            self.inner.coords()
        }
        fn mass(&self, q: &[f64], t: f64) -> Matrix {
            self.inner.mass(q, t)
        }
        fn forces(&self, q: &[f64], u: &[f64], t: f64, h: &mut [f64]) {
            self.inner.forces(q, u, t, h)
        }
        fn contacts(&self, q: &[f64], t: f64) -> Vec<Contact> {
            let mut c = self.inner.contacts(q, t);
            for x in &mut c {
                x.mu += self.dmu;
                x.restitution_n += self.de;
            }
            c
        }
        fn integrate(&self, q: &mut [f64], u: &[f64], dt: f64) {
            self.inner.integrate(q, u, dt)
        }
        fn normalize(&self, q: &mut [f64]) {
            self.inner.normalize(q)
        }
    }

    fn options() -> StepOptions {
        StepOptions {
            solver: Some("ac-newton".into()),
            settings: Settings { tol: 1e-13, ..Settings::default() },
            warm_start: false,
            ..StepOptions::default()
        }
    }

    fn one_step(sys: &dyn System, q: &[f64], u: &[f64], dt: f64) -> (Vec<f64>, Vec<f64>) {
        let mut sim = Simulator::new(sys, q.to_vec(), u.to_vec(), dt, options()).unwrap();
        sim.step().unwrap();
        (sim.q, sim.u)
    }

    /// The sliding sphere of Trinkle–Tzitzouris–Pang 2001 §4.1.3, slightly pressed into the plane (so that small
    /// perturbations keep its contact active), falling onto it and spinning a little (so that
    /// it slides obliquely and every component is exercised). Stepped with ε_N = 0.5 (see
    /// [`Tweak`]).
    fn start() -> (Box<dyn scenes::Scene>, Vec<f64>, Vec<f64>) {
        let scene = scenes::scene("sphere-slide", None).unwrap();
        let (mut q, mut u) = scene.initial_state();
        q[2] -= 1e-3;
        u[1] = 0.3;
        u[2] = -0.2;
        u[3] = 0.5;
        u[5] = 0.2;
        (scene, q, u)
    }

    #[test]
    fn friction_derivative_of_a_sliding_sphere_is_minus_g_dt() {
        // Sliding along x with normal impulse m g Δt (u_N⁺ = 0): the friction impulse is
        // −μ m g Δt along x, so ∂v_x⁺/∂μ = −g Δt exactly.
        let scene = scenes::scene("sphere-slide", None).unwrap();
        let (q, u) = scene.initial_state();
        let sys: &dyn System = scene.as_ref();
        let dt = 1e-3;
        let mut sim = Simulator::new(sys, q.clone(), u.clone(), dt, options()).unwrap();
        let (rep, lin) = sim.step_with_sensitivity().unwrap();
        assert_eq!(rep.active, vec![0]);
        assert!(lin.degenerate().is_empty());
        let (_, du) = lin.jvp(&[0.0; 7], &[0.0; 6], Some(&[1.0]), None).unwrap();
        assert!((du[0] + scenes::spheres::G * dt).abs() < 1e-9, "{du:?}");
        assert!(du[1].abs() < 1e-9 && du[2].abs() < 1e-9);
    }

    #[test]
    fn jvp_matches_differences_of_whole_steps() {
        let (scene, q, u) = start();
        let base = Tweak { inner: scene.as_ref(), dmu: 0.0, de: 0.5 };
        let sys: &dyn System = &base;
        let dt = 1e-3;
        let mut sim = Simulator::new(sys, q.clone(), u.clone(), dt, options()).unwrap();
        let (_, lin) = sim.step_with_sensitivity().unwrap();
        assert!(lin.degenerate().is_empty());
        let dq = [0.3, -0.2, 0.1, 0.05, -0.1, 0.2, 0.1];
        let du = [0.5, -0.3, 0.2, 0.4, -0.6, 0.3];
        let h = 1e-6;
        let shifted = |s: f64| {
            let qs: Vec<f64> = q.iter().zip(&dq).map(|(a, b)| a + s * b).collect();
            let us: Vec<f64> = u.iter().zip(&du).map(|(a, b)| a + s * b).collect();
            one_step(sys, &qs, &us, dt)
        };
        let ((qp, up), (qm, um)) = (shifted(h), shifted(-h));
        let (aq, au) = lin.jvp(&dq, &du, None, None).unwrap();
        for i in 0..7 {
            let fd = (qp[i] - qm[i]) / (2.0 * h);
            assert!((aq[i] - fd).abs() < 1e-6 * (1.0 + fd.abs()), "dq⁺[{i}]: {} vs {fd}", aq[i]);
        }
        for i in 0..6 {
            let fd = (up[i] - um[i]) / (2.0 * h);
            assert!((au[i] - fd).abs() < 1e-6 * (1.0 + fd.abs()), "du⁺[{i}]: {} vs {fd}", au[i]);
        }
        // μ and ε_N through the shifted system.
        for (dmu, de) in [(1.0, 0.0), (0.0, 1.0)] {
            let step = |s: f64| {
                one_step(&Tweak { inner: scene.as_ref(), dmu: s * dmu, de: 0.5 + s * de }, &q, &u, dt)
            };
            let ((qp, up), (qm, um)) = (step(h), step(-h));
            let (aq, au) = lin.jvp(&[0.0; 7], &[0.0; 6], Some(&[dmu]), Some(&[de])).unwrap();
            for i in 0..6 {
                let fd = (up[i] - um[i]) / (2.0 * h);
                assert!((au[i] - fd).abs() < 1e-6 * (1.0 + fd.abs()), "μ/ε: du⁺[{i}]: {} vs {fd}", au[i]);
            }
            for i in 0..7 {
                let fd = (qp[i] - qm[i]) / (2.0 * h);
                assert!((aq[i] - fd).abs() < 1e-6 * (1.0 + fd.abs()), "μ/ε: dq⁺[{i}]: {} vs {fd}", aq[i]);
            }
        }
    }

    #[test]
    fn vjp_is_the_adjoint_of_the_jvp() {
        let (scene, q, u) = start();
        let base = Tweak { inner: scene.as_ref(), dmu: 0.0, de: 0.5 };
        let sys: &dyn System = &base;
        let mut sim = Simulator::new(sys, q, u, 1e-3, options()).unwrap();
        let (_, lin) = sim.step_with_sensitivity().unwrap();
        let (gq, gu) = ([1.0, -2.0, 0.5, 0.3, 0.0, -0.4, 1.0], [0.2, 0.7, -1.0, 0.5, 0.1, -0.3]);
        let (dq, du, dmu, de) =
            ([0.1, 0.2, -0.1, 0.0, 0.3, -0.2, 0.1], [1.0, -0.5, 0.2, 0.3, -0.1, 0.4], [0.7], [0.2]);
        let (aq, au) = lin.jvp(&dq, &du, Some(&dmu), Some(&de)).unwrap();
        let lhs: f64 = gq.iter().zip(&aq).chain(gu.iter().zip(&au)).map(|(a, b)| a * b).sum();
        let c = lin.vjp(&gq, &gu).unwrap();
        let rhs: f64 = c.q.iter().zip(&dq).chain(c.u.iter().zip(&du)).map(|(a, b)| a * b).sum::<f64>()
            + c.mu[0] * dmu[0]
            + c.restitution[0] * de[0];
        assert!((lhs - rhs).abs() < 1e-6 * (1.0 + lhs.abs()), "{lhs} vs {rhs}");
    }

    #[test]
    fn other_formulations_and_bad_directions_are_errors() {
        let (scene, q, u) = start();
        let sys: &dyn System = scene.as_ref();
        let opts = StepOptions { formulation: Formulation::TzitzourisPang, ..StepOptions::default() };
        let mut sim = Simulator::new(sys, q.clone(), u.clone(), 1e-3, opts).unwrap();
        assert!(sim.step_with_sensitivity().unwrap_err().to_string().contains("Formulation::Cone"));
        let mut sim = Simulator::new(sys, q, u, 1e-3, options()).unwrap();
        let (_, lin) = sim.step_with_sensitivity().unwrap();
        assert!(lin.jvp(&[0.0; 6], &[0.0; 6], None, None).is_err());
        assert!(lin.jvp(&[0.0; 7], &[f64::NAN; 6], None, None).is_err());
        assert!(lin.vjp(&[0.0; 7], &[0.0; 5]).is_err());
    }
}
