//! Solvers for one contact: `u = W_ii r + b`, `K ∋ r ⊥ ũ ∈ K*` (the local step of the
//! nonsmooth Gauss–Seidel; Moreau 1988 §15–16, solves it as a nearest-point
//! problem).

use crate::cone::{AcInput, CfunOut, Cone, MAX_DIM};
use perp_core::line_search::{Backtracking, Search, Verdict};
use perp_core::linear::{small_lu_solve as small_solve, small_lu_solve_fixed as small_solve_fixed};

const MD: usize = MAX_DIM;
const MD2: usize = MAX_DIM * MAX_DIM;

/// The local Newton's backtracking: halving from 1 down to 1e-10, then projection takes over.
const LOCAL_SEARCH: Backtracking = Backtracking {
    sigma: 1e-4,
    shrink: 0.5,
    min_step: 1e-10,
    max_trials: usize::MAX,
    stop_on_nonfinite: false,
};

/// How NSGS solves the one-contact problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LocalSolver {
    /// The closed form in 2-D; in 3-D on the Coulomb cone the closed take-off and stick
    /// cases, then Alart–Curnier Newton for sliding; Alart–Curnier Newton otherwise (the
    /// default).
    #[default]
    Auto,
    /// Fixed-point projection `r ← P_K(r − ρ ũ)` with `ρ = 1/‖W_ii‖_F`, iterated locally.
    Projection,
    /// Semismooth Newton on the Alart–Curnier function of the contact, with a line search;
    /// falls back to projection when the d×d Newton matrix is singular.
    AlartCurnier,
    /// Semismooth Newton on the Fischer–Burmeister function (ellipsoidal cones); falls back to
    /// Alart–Curnier for cones without a map to the Lorentz cone.
    FischerBurmeister,
    /// 2-D only: enumerate take-off, stick, slide± and keep the case that satisfies the law.
    ClosedForm2d,
}

/// One contact's problem.
pub(crate) struct Local<'a> {
    pub cone: &'a dyn Cone,
    pub mu: f64,
    /// `W_ii`, `d×d` row-major.
    pub w: &'a [f64],
    /// `b = q_i + Σ_{j≠i} W_ij r_j`.
    pub b: &'a [f64],
    /// `cone` is the built-in [`crate::Coulomb`] cone: its Alart–Curnier function is then
    /// called directly (inlined, the same code as through the trait).
    pub coulomb: bool,
    /// `cone` is this [`crate::Rolling`] cone: its Alart–Curnier function is then called
    /// directly (inlined; the same code as through the trait, which returns its results
    /// through memory).
    pub rolling: Option<crate::Rolling>,
}

impl Local<'_> {
    fn d(&self) -> usize {
        self.b.len()
    }

    fn velocity(&self, r: &[f64], u: &mut [f64]) {
        let d = self.d();
        for a in 0..d {
            let mut s = self.b[a];
            for k in 0..d {
                s += self.w[a * d + k] * r[k];
            }
            u[a] = s;
        }
    }

    /// `‖r − P_K(r − ũ)‖`, the contact's share of the error measure.
    pub fn residual(&self, r: &[f64]) -> f64 {
        let d = self.d();
        let (mut u, mut phi) = ([0.0; MD], [0.0; MD]);
        self.velocity(r, &mut u[..d]);
        self.cone.natural_map(self.mu, 1.0, r, &u[..d], &mut phi[..d], None);
        norm(&phi[..d])
    }

    fn scale(&self, r: &[f64]) -> f64 {
        let wmax = self.w.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        norm(self.b) + wmax * norm(r) + f64::MIN_POSITIVE
    }

    /// The local Newton stops when `‖φ‖ ≤ 1e-15 · scale / divisor`. φ (Alart–Curnier or
    /// Fischer–Burmeister) is in the units of r while [`Local::scale`] is in those of u
    /// (`‖b‖ + max|W_ii| ‖r‖`): for a law other than the built-in Coulomb cone the scale is
    /// divided by `max(max|W_ii|, 1)`, back to r's units and never looser than before. A
    /// badly scaled block (the rolling rows of `rfc3d_sphere_from_grfc3d`, max|W_ii| ≈ 1e7)
    /// otherwise stops each local solve at ~1e-8 relative, and NSGS stalls there. The
    /// Coulomb cone keeps the undivided scale (its answers and pinned counts unchanged).
    fn stop_divisor(&self, wmax: f64) -> f64 {
        if self.coulomb {
            1.0
        } else {
            wmax.max(1.0)
        }
    }

    /// Solves in place from the current `r`; returns the local iterations spent.
    pub fn solve(&self, kind: LocalSolver, r: &mut [f64], max_iter: usize) -> usize {
        let d = self.d();
        match kind {
            LocalSolver::Auto if d == 2 => {
                self.closed_form_2d(r).unwrap_or_else(|| self.newton(false, r, max_iter))
            }
            LocalSolver::Auto if d == 3 && self.coulomb => {
                self.take_off_or_stick_3d(r).unwrap_or_else(|| self.newton(false, r, max_iter))
            }
            LocalSolver::ClosedForm2d if d == 2 => {
                self.closed_form_2d(r).unwrap_or_else(|| self.newton(false, r, max_iter))
            }
            LocalSolver::Projection => self.projection(r, 25 * max_iter),
            LocalSolver::FischerBurmeister if self.cone.soc_map(self.mu).is_some() => {
                self.newton(true, r, max_iter)
            }
            _ => self.newton(false, r, max_iter),
        }
    }

    /// `r ← P_K(r − ρ ũ(W r + b))` until the step is below `1e-15·scale` or `max_iter`.
    fn projection(&self, r: &mut [f64], max_iter: usize) -> usize {
        let d = self.d();
        let fro = self.w.iter().map(|v| v * v).sum::<f64>().sqrt();
        let rho = if fro > 0.0 { 1.0 / fro } else { 1.0 };
        let (mut u, mut ut, mut x) = ([0.0; MD], [0.0; MD], [0.0; MD]);
        for it in 1..=max_iter {
            self.velocity(r, &mut u[..d]);
            self.cone.modified_velocity(self.mu, &u[..d], &mut ut[..d], None);
            for k in 0..d {
                x[k] = r[k] - rho * ut[k];
            }
            let mut p = [0.0; MD];
            self.cone.project(self.mu, &x[..d], &mut p[..d]);
            let step = (0..d).map(|k| (p[k] - r[k]).powi(2)).sum::<f64>().sqrt();
            r.copy_from_slice(&p[..d]);
            if step <= 1e-15 * self.scale(r) {
                return it;
            }
        }
        max_iter
    }

    fn cfun(
        &self,
        fb: bool,
        rho: (f64, f64),
        r: &[f64],
        phi: &mut [f64],
        jac: Option<(&mut [f64], &mut [f64])>,
    ) {
        let d = self.d();
        let mut u = [0.0; MD];
        self.velocity(r, &mut u[..d]);
        if fb {
            // soc_map checked by the caller
            let _ = self.cone.fischer_burmeister(self.mu, r, &u[..d], phi, jac);
        } else {
            let x = AcInput { mu: self.mu, rho_n: rho.0, rho_t: rho.1, r, u: &u[..d] };
            self.cone.alart_curnier(x, CfunOut { phi, jac });
        }
    }

    /// Semismooth Newton on the Alart–Curnier (or FB) function with an Armijo line search on
    /// ½‖φ‖²; projection takes over when the Newton matrix is singular or the search fails.
    ///
    /// Runs [`Local::newton_fixed`] for the contact's dimension: [`Local::newton_dyn`]'s
    /// operations in the same order on stack arrays of constant size (the same bits).
    fn newton(&self, fb: bool, r: &mut [f64], max_iter: usize) -> usize {
        match self.d() {
            2 => self.newton_fixed::<2>(fb, r, max_iter),
            3 => self.newton_fixed::<3>(fb, r, max_iter),
            4 => self.newton_fixed::<4>(fb, r, max_iter),
            5 => self.newton_fixed::<5>(fb, r, max_iter),
            6 => self.newton_fixed::<6>(fb, r, max_iter),
            _ => self.newton_dyn(fb, r, max_iter),
        }
    }

    /// [`Local::newton_dyn`] for `d = N`. `‖b‖` and `max|W_ii|` of the stopping scale are
    /// computed once (they do not change during the solve).
    fn newton_fixed<const N: usize>(&self, fb: bool, r: &mut [f64], max_iter: usize) -> usize {
        let mut w = [[0.0; N]; N];
        for (a, row) in w.iter_mut().enumerate() {
            row.copy_from_slice(&self.w[a * N..(a + 1) * N]);
        }
        let mut b = [0.0; N];
        b.copy_from_slice(&self.b[..N]);
        let rho_n = if w[0][0] > 0.0 { 1.0 / w[0][0] } else { 1.0 };
        let tdiag: f64 = (1..N).map(|k| w[k][k]).sum::<f64>() / (N - 1) as f64;
        let rho_t = if tdiag > 0.0 { 1.0 / tdiag } else { rho_n };
        let (nb, wmax) = (norm(&b), self.w.iter().fold(0.0_f64, |m, v| m.max(v.abs())));
        // `Local::scale`, over `Local::stop_divisor`.
        let div = self.stop_divisor(wmax);
        let scale = |r: &[f64; N]| (nb + wmax * norm(r) + f64::MIN_POSITIVE) / div;
        let cfun = |r: &[f64; N], phi: &mut [f64; N], jac: Option<(&mut [f64], &mut [f64])>| {
            self.cfun_fixed(fb, (rho_n, rho_t), (&w, &b), r, CfunOut { phi, jac })
        };
        let mut x = [0.0; N];
        x.copy_from_slice(&r[..N]);
        let (mut phi, mut jr, mut ju) = ([0.0; N], [[0.0; N]; N], [[0.0; N]; N]);
        let mut trial = [0.0; N];
        let (mut phit, mut jrt, mut jut) = ([0.0; N], [[0.0; N]; N], [[0.0; N]; N]);
        // The line search evaluates the full step with the Jacobians (φ does not depend on
        // whether they are asked for): when it is accepted they are the next iteration's.
        let mut ready = false;
        for it in 1..=max_iter {
            if !ready {
                cfun(&x, &mut phi, Some((jr.as_flattened_mut(), ju.as_flattened_mut())));
            }
            let f0 = norm(&phi);
            if f0 <= 1e-15 * scale(&x) {
                r[..N].copy_from_slice(&x);
                return it;
            }
            // J = Jr + Ju W
            let mut j = [[0.0; N]; N];
            for a in 0..N {
                for c in 0..N {
                    let mut s = jr[a][c];
                    for k in 0..N {
                        s += ju[a][k] * w[k][c];
                    }
                    j[a][c] = s;
                }
            }
            let mut dir = [0.0; N];
            for a in 0..N {
                dir[a] = -phi[a];
            }
            if small_solve_fixed(&mut j, &mut dir).is_err() {
                r[..N].copy_from_slice(&x);
                return it + self.projection(r, 10 * max_iter);
            }
            if negligible(&dir, &x) {
                r[..N].copy_from_slice(&x);
                return it;
            }
            // Armijo on ‖φ‖² (the shared backtracking; the test written as before).
            let found = LOCAL_SEARCH.search(|t| {
                for k in 0..N {
                    trial[k] = x[k] + t * dir[k];
                }
                let jac = (t == 1.0).then_some((jrt.as_flattened_mut(), jut.as_flattened_mut()));
                cfun(&trial, &mut phit, jac);
                let ft = norm(&phit);
                if ft * ft <= (1.0 - 1e-4 * t) * f0 * f0 {
                    Verdict::Accept
                } else {
                    Verdict::Reject
                }
            });
            let Search::Accepted { step: t, .. } = found else {
                r[..N].copy_from_slice(&x);
                return it + self.projection(r, 10 * max_iter);
            };
            ready = t == 1.0;
            (x, phi) = (trial, phit);
            if ready {
                (jr, ju) = (jrt, jut);
            }
        }
        r[..N].copy_from_slice(&x);
        max_iter
    }

    /// [`Local::cfun`] for `d = N`, on the copies `w`, `b` of `W_ii`, `b`.
    #[inline(always)]
    fn cfun_fixed<const N: usize>(
        &self,
        fb: bool,
        rho: (f64, f64),
        (w, b): (&[[f64; N]; N], &[f64; N]),
        r: &[f64; N],
        out: CfunOut<'_>,
    ) {
        let mut u = [0.0; N];
        for a in 0..N {
            let mut s = b[a];
            for k in 0..N {
                s += w[a][k] * r[k];
            }
            u[a] = s;
        }
        let x = AcInput { mu: self.mu, rho_n: rho.0, rho_t: rho.1, r, u: &u };
        if fb {
            // soc_map checked by the caller
            let _ = self.cone.fischer_burmeister(self.mu, r, &u, out.phi, out.jac);
        } else if self.coulomb && N == 3 {
            crate::coulomb::alart_curnier_fixed::<2>(x, out);
        } else if self.coulomb && N == 2 {
            crate::coulomb::alart_curnier_fixed::<1>(x, out);
        } else if let (Some(c), 5) = (&self.rolling, N) {
            c.alart_curnier_fixed::<2>(x, out);
        } else if let (Some(c), 3) = (&self.rolling, N) {
            c.alart_curnier_fixed::<1>(x, out);
        } else {
            self.cone.alart_curnier(x, out);
        }
    }

    /// The size-generic local Newton (any d; the reference of [`Local::newton_fixed`]).
    fn newton_dyn(&self, fb: bool, r: &mut [f64], max_iter: usize) -> usize {
        let d = self.d();
        let w = self.w;
        let rho_n = if w[0] > 0.0 { 1.0 / w[0] } else { 1.0 };
        let tdiag: f64 = (1..d).map(|k| w[k * d + k]).sum::<f64>() / (d - 1) as f64;
        let rho_t = if tdiag > 0.0 { 1.0 / tdiag } else { rho_n };
        let rho = (rho_n, rho_t);
        let div = self.stop_divisor(w.iter().fold(0.0_f64, |m, v| m.max(v.abs())));
        let (mut phi, mut jr, mut ju) = ([0.0; MD], [0.0; MD2], [0.0; MD2]);
        let mut trial = [0.0; MD];
        let mut phit = [0.0; MD];
        for it in 1..=max_iter {
            self.cfun(fb, rho, r, &mut phi[..d], Some((&mut jr[..d * d], &mut ju[..d * d])));
            let f0 = norm(&phi[..d]);
            if f0 <= 1e-15 * self.scale(r) / div {
                return it;
            }
            // J = Jr + Ju W
            let mut j = [0.0; MD2];
            for a in 0..d {
                for c in 0..d {
                    let mut s = jr[a * d + c];
                    for k in 0..d {
                        s += ju[a * d + k] * w[k * d + c];
                    }
                    j[a * d + c] = s;
                }
            }
            let mut dir = [0.0; MD];
            for a in 0..d {
                dir[a] = -phi[a];
            }
            if small_solve(d, &mut j[..d * d], &mut dir[..d]).is_err() {
                return it + self.projection(r, 10 * max_iter);
            }
            if negligible(&dir[..d], r) {
                return it;
            }
            let found = LOCAL_SEARCH.search(|t| {
                for k in 0..d {
                    trial[k] = r[k] + t * dir[k];
                }
                self.cfun(fb, rho, &trial[..d], &mut phit[..d], None);
                let ft = norm(&phit[..d]);
                if ft * ft <= (1.0 - 1e-4 * t) * f0 * f0 {
                    Verdict::Accept
                } else {
                    Verdict::Reject
                }
            });
            if !matches!(found, Search::Accepted { .. }) {
                return it + self.projection(r, 10 * max_iter);
            }
            r.copy_from_slice(&trial[..d]);
        }
        max_iter
    }

    /// 3-D Coulomb: the two cases with a closed form, tried before Newton — take-off (r = 0
    /// when b_N ≥ 0: then u = b and the modified velocity b + μ‖b_T‖e_N lies in the dual cone)
    /// and stick (u = 0: r = −W_ii⁻¹ b when it lies in the cone). The local problem's solution
    /// is unique for a positive definite W_ii, so a case that fits is the answer. `None`
    /// (sliding, W_ii singular, or a current r on the cone's surface: the contact slid at its
    /// last solve, and the stick solve is skipped): Newton takes over from the current r.
    fn take_off_or_stick_3d(&self, r: &mut [f64]) -> Option<usize> {
        let b = self.b;
        if b[0] >= 0.0 {
            r[..3].fill(0.0);
            return Some(1);
        }
        // A contact that slid at its last solve (r on the cone's surface) most likely slides
        // again: Newton at once, without the stick solve.
        let rt = (r[1] * r[1] + r[2] * r[2]).sqrt();
        if r[0] > 0.0 && rt >= self.mu * r[0] * (1.0 - 1e-12) {
            return None;
        }
        let mut w = [[0.0; 3]; 3];
        for (a, row) in w.iter_mut().enumerate() {
            row.copy_from_slice(&self.w[a * 3..a * 3 + 3]);
        }
        let mut rs = [-b[0], -b[1], -b[2]];
        if small_solve_fixed(&mut w, &mut rs).is_err() {
            return None;
        }
        // Inside the cone, with a margin: a stick answer on the cone's edge is left to Newton,
        // whose sliding branch is then as good.
        let t = (rs[1] * rs[1] + rs[2] * rs[2]).sqrt();
        if rs[0] > 0.0 && t <= self.mu * rs[0] * (1.0 - 1e-12) {
            r[..3].copy_from_slice(&rs);
            return Some(1);
        }
        None
    }

    /// 2-D: take-off (r = 0 if b_N ≥ 0), stick (u = 0, r ∈ K), slide in either direction
    /// (r = r_N (1, g_s) with g_s the section's extreme point against the sliding sign s,
    /// u_N = 0, s·u_T ≥ 0). `None` when no case fits (singular or non-monotone W_ii).
    fn closed_form_2d(&self, r: &mut [f64]) -> Option<usize> {
        let (w, b) = (self.w, self.b);
        let tol = 1e-14 * self.scale(r);
        if b[0] >= 0.0 {
            r[0] = 0.0;
            r[1] = 0.0;
            return Some(1);
        }
        // Stick: W r = −b.
        let det = w[0] * w[3] - w[1] * w[2];
        if det.abs() > 1e-14 * (w[0].abs() * w[3].abs()).max(f64::MIN_POSITIVE) {
            let rs = [(-b[0] * w[3] + b[1] * w[1]) / det, (-b[1] * w[0] + b[0] * w[2]) / det];
            let mut pr = [0.0; 2];
            self.cone.project(self.mu, &rs, &mut pr);
            let dist = ((pr[0] - rs[0]).powi(2) + (pr[1] - rs[1]).powi(2)).sqrt();
            if rs[0] >= 0.0 && dist <= 1e-13 * norm(&rs) {
                r.copy_from_slice(&rs);
                return Some(1);
            }
        }
        let mut best: Option<([f64; 2], f64)> = None;
        for s in [1.0, -1.0] {
            let mut g = [0.0];
            self.cone.support(self.mu, &[s], &mut g);
            let g = g[0];
            let den = w[0] + w[1] * g;
            if den <= 0.0 {
                continue;
            }
            let rn = -b[0] / den;
            if rn < 0.0 {
                continue;
            }
            let ut = (w[2] + w[3] * g) * rn + b[1];
            let cand = [rn, g * rn];
            if s * ut >= -tol {
                let res = self.residual(&cand);
                if best.is_none_or(|(_, e)| res < e) {
                    best = Some((cand, res));
                }
            }
        }
        let (cand, _) = best?;
        r.copy_from_slice(&cand);
        Some(1)
    }
}

/// A Newton step below the rounding of the iterate, `‖Δ‖ ≤ 10⁻¹⁵ ‖x‖`: the local problem is
/// solved as far as doubles allow. The residual test `‖φ‖ ≤ 10⁻¹⁵·scale` alone is not
/// enough: its scale (`‖b‖ + max|W_ii|·‖r‖`) is in the units of u and φ in those of r, so
/// with a small W_ii (a large ρ = 1/W_nn) φ's rounding floor lies above it. Such a contact
/// ended in a failed search of 34 halvings and a projection loop (8 of the 42 local Newton
/// solves of a Rover1040 nsgs solve, with `‖Δ‖/‖x‖` about 1.5·10⁻¹⁶; on W ~ 10⁻⁵ up to the
/// projection's 10 × max_iter iterations).
fn negligible(dir: &[f64], x: &[f64]) -> bool {
    let sq = |v: &[f64]| v.iter().map(|a| a * a).sum::<f64>();
    sq(dir) <= 1e-30 * sq(x)
}

fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Coulomb;

    fn check(kind: LocalSolver, d: usize, w: &[f64], b: &[f64], mu: f64) -> Vec<f64> {
        let cone = Coulomb::new(d).unwrap();
        let lp = Local { cone: &cone, mu, w, b, coulomb: true, rolling: None };
        let mut r = vec![0.0; d];
        lp.solve(kind, &mut r, 50);
        let res = lp.residual(&r);
        assert!(res <= 1e-12 * (1.0 + norm(b)), "{kind:?} residual {res:e} at r = {r:?}");
        r
    }

    /// The Coulomb law for any d (a ball section), through the trait's defaults.
    #[derive(Debug)]
    struct Ball(usize);
    impl Cone for Ball {
        fn name(&self) -> String {
            format!("ball-{}", self.0)
        }
        fn dim(&self) -> usize {
            self.0
        }
        fn project_section(
            &self,
            mu: f64,
            xi: f64,
            t: &[f64],
            out: &mut [f64],
            jt: Option<&mut [f64]>,
            jx: Option<&mut [f64]>,
        ) {
            let k = t.len();
            let rad = mu * xi.max(0.0);
            let s = norm(t);
            let inside = s <= rad;
            for a in 0..k {
                out[a] = if inside { t[a] } else { rad * t[a] / s };
            }
            if let Some(j) = jt {
                for a in 0..k {
                    for b in 0..k {
                        let delta = f64::from(u8::from(a == b));
                        j[a * k + b] = if inside { delta } else { rad / s * (delta - t[a] * t[b] / (s * s)) };
                    }
                }
            }
            if let Some(j) = jx {
                for a in 0..k {
                    j[a] = if inside { 0.0 } else { mu * t[a] / s };
                }
            }
        }
        fn support(&self, mu: f64, v: &[f64], t: &mut [f64]) -> f64 {
            let s = norm(v);
            for (o, x) in t.iter_mut().zip(v) {
                *o = if s > 0.0 { -mu * x / s } else { 0.0 };
            }
            mu * s
        }
    }

    #[test]
    fn fixed_size_newton_matches_the_generic_one_bit_for_bit() {
        use crate::Elliptic;
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let cones: Vec<Box<dyn Cone>> = vec![
            Box::new(Coulomb::new(2).unwrap()),
            Box::new(Coulomb::new(3).unwrap()),
            Box::new(Elliptic::new(&[1.0, 0.5]).unwrap()),
            Box::new(Elliptic::new(&[1.0, 0.5, 0.2]).unwrap()),
            Box::new(Ball(5)),
            Box::new(Ball(6)),
        ];
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for cone in &cones {
            let d = cone.dim();
            for trial in 0..300 {
                let a: Vec<f64> = (0..d * d).map(|_| rng.random_range(-1.0..1.0)).collect();
                // W = A Aᵀ + δ I (δ = 0 now and then: possibly singular Newton matrices).
                let delta = if trial % 10 == 0 { 0.0 } else { 0.1 };
                let mut w = vec![0.0; d * d];
                for i in 0..d {
                    for j in 0..d {
                        w[i * d + j] = (0..d).map(|k| a[i * d + k] * a[j * d + k]).sum::<f64>()
                            + if i == j { delta } else { 0.0 };
                    }
                }
                let b: Vec<f64> = (0..d).map(|_| rng.random_range(-2.0..2.0)).collect();
                let r0: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
                let mu = rng.random_range(0.0..1.5);
                let coulomb = cone.name().starts_with("coulomb");
                let lp = Local { cone: &**cone, mu, w: &w, b: &b, coulomb, rolling: None };
                for fb in [false, true] {
                    if fb && cone.soc_map(mu).is_none() {
                        continue;
                    }
                    let max_iter = [3, 20][trial % 2];
                    let (mut r1, mut r2) = (r0.clone(), r0.clone());
                    let it1 = lp.newton(fb, &mut r1, max_iter);
                    let it2 = lp.newton_dyn(fb, &mut r2, max_iter);
                    assert_eq!((it1, bits(&r1)), (it2, bits(&r2)), "{} fb={fb} w={w:?} b={b:?}", cone.name());
                }
            }
        }
    }

    /// 3-D Coulomb, `Auto`: take-off and stick in one closed-form step, the answer Newton
    /// finds; sliding (and a stick point on the cone's edge) left to Newton.
    #[test]
    fn auto_closes_take_off_and_stick_in_3d() {
        let w3 = [2.0, 0.2, 0.1, 0.2, 1.5, 0.0, 0.1, 0.0, 1.0];
        let cone = Coulomb::new(3).unwrap();
        for (b, mu, closed) in [
            ([1.0, 0.5, 0.0], 0.3, true),
            ([0.0, 0.5, -0.2], 0.3, true),
            ([-1.0, 0.01, 0.0], 0.5, true),
            ([-1.0, 0.01, 0.0], 1e8, true),
            ([-1.0, 3.0, -2.0], 0.3, false),
        ] {
            let lp = Local { cone: &cone, mu, w: &w3, b: &b, coulomb: true, rolling: None };
            let (mut ra, mut rn) = ([0.0; 3], [0.0; 3]);
            let it = lp.solve(LocalSolver::Auto, &mut ra, 50);
            lp.solve(LocalSolver::AlartCurnier, &mut rn, 50);
            assert_eq!(lp.take_off_or_stick_3d(&mut [0.0; 3]).is_some(), closed, "{b:?}");
            if closed {
                assert_eq!(it, 1);
            }
            for k in 0..3 {
                assert!((ra[k] - rn[k]).abs() <= 1e-12 * (1.0 + norm(&rn)), "{b:?}: {ra:?} vs {rn:?}");
            }
        }
        // W_ii singular: no closed case, Newton (then projection) decides.
        let lp = Local {
            cone: &cone,
            mu: 0.3,
            w: &[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            b: &[-1.0, 0.0, 0.0],
            coulomb: true,
            rolling: None,
        };
        assert!(lp.take_off_or_stick_3d(&mut [0.0; 3]).is_none());
    }

    /// Sliding 3-D contacts, W and b each in a scale of its own, solved, then solved again
    /// from their answer: Newton's first step there is below the answer's rounding, so the
    /// second solve ends at once (one evaluation, the same r). Without the step test 21 of
    /// the 199 sliding contacts took 2 to 505 iterations: φ's rounding floor lay above the
    /// residual test, and a failed search handed over to the projection loop.
    #[test]
    fn a_solve_from_the_answer_stops_at_its_first_newton_step() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let cone = Coulomb::new(3).unwrap();
        let mut sliding = 0;
        for _ in 0..200 {
            let a: Vec<f64> = (0..9).map(|_| rng.random_range(-1.0..1.0)).collect();
            // W and b in scales of their own (φ is in the units of r, the scale of the
            // residual test in those of u).
            let wscale = 10f64.powi(rng.random_range(-4..4));
            let mut w = [0.0; 9];
            for i in 0..3 {
                for j in 0..3 {
                    let aat = (0..3).map(|k| a[i * 3 + k] * a[j * 3 + k]).sum::<f64>();
                    w[i * 3 + j] = wscale * (aat + 0.1 * f64::from(u8::from(i == j)));
                }
            }
            // A large tangential load against a small μ: sliding.
            let scale = 10f64.powi(rng.random_range(-6..6));
            let b = [-scale, scale * rng.random_range(-5.0..5.0), scale * rng.random_range(-5.0..5.0)];
            let mu = rng.random_range(0.05..0.5);
            let lp = Local { cone: &cone, mu, w: &w, b: &b, coulomb: true, rolling: None };
            let mut r = [0.0; 3];
            lp.solve(LocalSolver::Auto, &mut r, 50);
            // The natural map's rounding is of ‖r‖ and ‖u‖ alike.
            assert!(lp.residual(&r) <= 1e-12 * (norm(&r) + lp.scale(&r)), "{b:?}: {r:?}");
            if (norm(&r[1..]) - mu * r[0]).abs() > 1e-9 * r[0] {
                continue;
            }
            sliding += 1;
            let again = r;
            let its = lp.solve(LocalSolver::Auto, &mut r, 50);
            assert_eq!(its, 1, "w = {w:?}, b = {b:?}, mu = {mu}");
            assert_eq!(r, again);
        }
        assert!(sliding >= 100, "{sliding} sliding contacts of 200");
    }

    #[test]
    fn every_local_solver_solves_the_three_regimes() {
        let w3 = [2.0, 0.2, 0.1, 0.2, 1.5, 0.0, 0.1, 0.0, 1.0];
        for kind in [LocalSolver::Auto, LocalSolver::AlartCurnier, LocalSolver::Projection] {
            // take-off
            let r = check(kind, 3, &w3, &[1.0, 0.5, 0.0], 0.3);
            assert!(norm(&r) < 1e-12);
            // stick: small tangential load
            check(kind, 3, &w3, &[-1.0, 0.01, 0.0], 0.5);
            // slide: large tangential load
            let r = check(kind, 3, &w3, &[-1.0, 3.0, -2.0], 0.3);
            assert!((norm(&r[1..]) - 0.3 * r[0]).abs() < 1e-10);
        }
        let w2 = [2.0, 0.3, 0.3, 1.0];
        for kind in [LocalSolver::ClosedForm2d, LocalSolver::AlartCurnier, LocalSolver::Projection] {
            check(kind, 2, &w2, &[1.0, 0.5], 0.3);
            check(kind, 2, &w2, &[-1.0, 0.01], 0.5);
            let r = check(kind, 2, &w2, &[-1.0, 3.0], 0.3);
            assert!((r[1] + 0.3 * r[0]).abs() < 1e-12, "{r:?}");
            let r = check(kind, 2, &w2, &[-1.0, -3.0], 0.3);
            assert!((r[1] - 0.3 * r[0]).abs() < 1e-12, "{r:?}");
        }
    }
}
