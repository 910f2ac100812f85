//! A unit sphere driven along the seam between two fixed spheres (Trinkle–Tzitzouris–Pang 2001 §4.2).

use super::*;

/// The unit sphere between two fixed spheres (Trinkle–Tzitzouris–Pang 2001 §4.2, fig. 18, eq. 9): radius 10 at the
/// origin and radius 9 at `(0, 11.4, 0)`, external force `g_obj = [1.0, 2.6, −9.81, 0, 0, 0]`
/// (unit mass), `e = [1, 1, 0.3]`, `μ = 0.2`, two contacts with the nonlinear gaps
/// `‖c − c_i‖ − 1 − R_i`; `h = 0.1`. The sphere starts at rest touching both and rolls and
/// slides along the seam until the contacts break (≈ 3.6 s in the paper; 3.5–3.8 s here).
///
/// Every method here linearizes the gaps at the start of the step (the paper's
/// Tzitzouris–Pang method is implicit in `q`, which the stepper is not), so the curvature of
/// the seam shows: after the first step the linearized constraint leaves a gap of ~1e-6. With
/// Moreau's index set ([`Activation::Gap`]: `g + h γ_N(u^l) ≤ 0`, or `g(q_M) ≤ 0` at the
/// midpoint) both contacts are then dropped for one step, and the sphere sinks `g h² ≈ 0.1`
/// into the seam, where it stays (1e-3 at `h = 0.01`). The scene therefore steps with
/// [`Activation::Persistent`]: loaded contacts stay while the free motion closes them, and the
/// sphere never penetrates (`tests/spheres.rs` checks both). The NCP of
/// [`Method::TzitzourisPang`] solves every step at `h = 0.1`, `0.01` and `0.001`; at the two
/// smaller steps plain `bdiff-newton` stalls on a few solves near `c_n = 0` when a contact
/// opens (5 of 347 and 23 of 3 449), which its proximal-perturbation rescue
/// (`perp_ncp::proximal`) solves (`tests/spheres.rs` pins both counts). [`Method::Cone`]
/// solves all.
#[derive(Clone, Debug)]
pub struct SphereTwoSpheres {
    method: Method,
}

impl Default for SphereTwoSpheres {
    fn default() -> Self {
        Self::new()
    }
}

impl SphereTwoSpheres {
    /// The fixed spheres `(center, radius)`.
    pub const FIXED: [([f64; 3], f64); 2] = [([0.0, 0.0, 0.0], 10.0), ([0.0, 11.4, 0.0], 9.0)];
    /// `g_obj` (eq. 9 text).
    pub const FORCE: [f64; 3] = [1.0, 2.6, -9.81];
    /// μ.
    pub const MU: f64 = 0.2;
    /// `e_r`.
    pub const E_R: f64 = 0.3;

    /// The scene with its default method, [`Method::TzitzourisPang`] (the paper's smooth
    /// solution, fig. 21–22).
    pub fn new() -> SphereTwoSpheres {
        SphereTwoSpheres { method: Method::TzitzourisPang }
    }

    /// The same scene stepped by another [`Method`].
    pub fn with_method(mut self, method: Method) -> SphereTwoSpheres {
        self.method = method;
        self
    }
}

impl System for SphereTwoSpheres {
    one_sphere_system!(1.0, 1.0);
    fn forces(&self, _q: &[f64], _u: &[f64], _t: f64, h: &mut [f64]) {
        h.iter_mut().for_each(|x| *x = 0.0);
        h[..3].copy_from_slice(&Self::FORCE);
    }
    fn contacts(&self, q: &[f64], _t: f64) -> Vec<Contact> {
        let c = rigid::position(q, 0);
        Self::FIXED
            .iter()
            .map(|&(center, radius)| {
                sphere_sphere(0, c, 1.0, Side { body: None, center, radius }, Self::MU, Some(Self::E_R))
            })
            .collect()
    }
    fn contacts_into(&self, q: &[f64], _t: f64, out: &mut Vec<Contact>) {
        let c = rigid::position(q, 0);
        contacts_with(out, Self::FIXED.len(), |k, cont| {
            let (center, radius) = Self::FIXED[k];
            set_sphere_sphere(cont, 0, c, 1.0, Side { body: None, center, radius }, Self::MU, Some(Self::E_R))
        });
    }
}

impl Scene for SphereTwoSpheres {
    fn name(&self) -> String {
        "sphere-two-spheres".into()
    }
    fn description(&self) -> String {
        format!(
            "unit sphere on the seam of two fixed spheres (Trinkle–Tzitzouris–Pang 2001 §4.2, eq. 9; the paper's method: {:?})",
            self.method
        )
    }
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![0.0, 6.62105263157895, 8.78417110772903, 1.0, 0.0, 0.0, 0.0], vec![0.0; 6])
    }
    fn default_dt(&self) -> f64 {
        0.1
    }
    fn default_t_end(&self) -> f64 {
        5.0
    }
    fn default_options(&self) -> StepOptions {
        StepOptions { activation: Activation::Persistent, ..self.method.options(Self::E_R) }
    }
    fn stewart_directions(&self) -> Option<Directions> {
        Some(Directions::Custom(aligned_directions(Self::E_R)))
    }
    fn state_names(&self) -> (Vec<String>, Vec<String>) {
        body_names(1)
    }
    fn energy(&self, q: &[f64], u: &[f64]) -> Option<f64> {
        // The potential of the constant force g_obj.
        let kinetic = sphere_energy(&[(1.0, 1.0)], q, u) - G * q[2];
        Some(kinetic - (0..3).map(|i| Self::FORCE[i] * q[i]).sum::<f64>())
    }
}
