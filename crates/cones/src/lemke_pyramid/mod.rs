//! `lemke-pyramid`: Lemke's method on the Stewart–Trinkle LCP of a polyhedral friction cone,
//! with pyramid alignment to remove the linearisation error.
//!
//! # The LCP (Stewart 2000 §2.2.1, eq. 2.11–2.16; Trinkle–Tzitzouris–Pang 2001 eq. 5–6)
//!
//! Each contact i of dimension d gets a linearisation `D_i = [d_1 … d_{m_i}]` of its cone
//! (`(d−1) × m_i`, points of the section `S_1(1)`, [`Cone::linearize`]; a pyramid returns its
//! own generators): the friction force is `D_i β_i` with `β_i ≥ 0`, `Σ β_i ≤ μ_i c_{n,i}`
//! (Stewart 2000 fig. 2.2). With the dynamics already condensed into the Delassus operator W (the
//! local problem `u = W r + q`, so that the blocks `nᵀM⁻¹n`, `nᵀM⁻¹D̃`, … of eq. 2.16 are
//! `W_NN`, `W_NT D`, …), eq. 2.13–2.15 become the LCP in `z = (c_n ∈ R^nc, β, λ)`:
//!
//! ```text
//!     u_N = W_NN c_n + W_NT Dβ + q_N        ≥ 0  ⊥  c_n ≥ 0
//!     Dᵀ u_T + E λ                           ≥ 0  ⊥  β   ≥ 0     (u_T = W_TN c_n + W_TT Dβ + q_T)
//!     μ c_n − Eᵀ β                           ≥ 0  ⊥  λ   ≥ 0
//! ```
//!
//! `E` is block-diagonal with blocks `e = (1, …, 1)`; `λ_i = max_j (−d_j·u_{T,i})` is the
//! sliding speed seen by the pyramid. Contacts with μ = 0 have no β and no λ. The LCP matrix
//! is `[[PᵀWP, Ê], [Ĥ, 0]]` with `P` mapping `(c_n, β)` to `r`; it is built dense when W is
//! dense and from triplets, block by block, when W is sparse (Lemke densifies it anyway).
//!
//! A solution gives `r_i = (c_{n,i}, D_i β_i)`. When every cone *is* its pyramid (a pyramid
//! law, or any 2-D law, whose section is an interval) the LCP is the contact problem itself
//! and the answer is exact. For a round cone the answer is exact at every contact that takes
//! off (`c_n = 0`) or sticks (`u_T = 0`, λ = 0: the friction force lies in the pyramid, hence
//! in the cone); only the *sliding* contacts carry an error, because their force lies on the
//! pyramid's boundary, on a generator or an edge, instead of at the maximal-dissipation point
//! for `u_T`. Measured on single 3-D Coulomb contacts with random W (tests), the error measure
//! falls like `1/m` for m evenly spread generators (the force's direction is off by up to
//! π/m), not like the `1/m²` of the cones' Hausdorff distance.
//!
//! # Pyramid alignment (refinement)
//!
//! Seed 002 (sphere experiments) observes that Stewart's method matched the exact solution
//! "only because one of the friction directions … corresponded to the exact solution,
//! thereby eliminating the friction linearization error". This solver turns that remark into
//! an iteration. Every sliding contact (c_n > 0, λ > 0, u_T ≠ 0) gets one extra generator
//! `G(n)`, the point of the *true* section `S_1(1)` with outward unit normal n, i.e. the
//! maximal-dissipation force for a slip along `−n` ([`Cone::support`]); the base pyramid is
//! kept, minus base generators closer to it than a quarter of the base spacing, so that no two
//! columns are nearly parallel. Then the LCP is solved again. When `−n` is the exact slip
//! direction, the LCP answer is exact at that contact: the force sits on the vertex
//! `μ c_n G(n)` and `−u_T` lies in the vertex's normal cone. Where to put n:
//!
//! * One **Newton step** on the slip directions of all sliding contacts together, with the
//!   LCP's active set frozen (lifted: r = 0; sticking: u = 0; sliding: `u_N = 0`,
//!   `r = ρ (1, μ G(n))` with n the unit normal of the section at the force). For given
//!   normals this model is a square linear system in the reactions; the equations are
//!   `F_j = E_jᵀ(−u_{T,j}) = 0` (the slip is along the normal; `E_j` an orthonormal basis of
//!   `n_j`'s complement, so one equation per contact in 3-D, two with torsion), the unknowns
//!   the coordinates θ of each normal in the chart `n(θ) = (n + E θ)/‖n + E θ‖`. The Jacobian
//!   costs one LU of the model and one solve per unknown (`∂G/∂θ` by central differences of
//!   [`Cone::support`]). The step starts from the normal at each contact's current force
//!   (exact when the force sits on its aligned generator) and is capped at π/8. The next LCP
//!   checks the active set: a contact that should stick or lift does so there.
//! * If the model is singular: in 3-D a per-contact secant on (force angle, slip angle)
//!   samples, with torsion the maximal-dissipation force for the current slip,
//!   `argmax {−t·u_T : t ∈ S_1(1)}` (a fixed-point iteration).
//!
//! Pinned by `alignment_reaches_1e8_on_sliding_problems` (random problems with W = J M⁻¹ Jᵀ +
//! 10⁻³ I, 10 contacts of which at least 2 slide, a frictionless one among them): from the
//! plain answer's error above 10⁻⁴ to `Solved` at 10⁻⁸ within 8 LCP solves. When the placement
//! was written, it was measured (not pinned) converging quadratically on 10–200 contacts with
//! 3–117 sliding and on a 4-D round law, to below 10⁻¹⁰ in 3–5 LCP solves. Two simpler
//! placements were tried and dropped: adding the
//! maximal-dissipation generator each round (bisection of the bracketing edge, linear rate
//! ≈ 3 per round, and nearly parallel columns that broke Lemke's accuracy), and rotating the
//! whole pyramid onto it (a fixed-point iteration that stalled on 5 of 6 problems).
//!
//! Each LCP after the first is warm started: the complementary basis of the support of the
//! previous answer (the sliding contacts' force moved onto their new generator) is solved
//! with one dense LU and accepted when it is an LCP solution; near convergence the active set
//! does not change and this replaces the Lemke run. Otherwise Lemke starts cold. The loop ends
//! when the problem's error meets `tol`, when no sliding contact moves, when the error has not
//! improved by 1 % for three rounds, or after `refine` rounds; the best iterate is returned.
//!
//! When Lemke ends on a basis whose answer, recomputed from z, is off (pivots on tiny
//! elements: redundant contacts, as in Capsules and BoxesStack1, make the pyramid LCP
//! degenerate), the solve is repeated once with Harris' ratio test (`Lemke::harris`: the
//! largest pivot among the near-minimal ratios) and the better answer kept. Measured at tol
//! 1e-6: errors 0.24, 0.099, 0.021, 0.42 on Capsules-i101-404, -i100-1090, -i125-1213 and
//! BoxesStack1 become 3.0e-4, 3.6e-4, 1.1e-4, 8.0e-6 — better, not yet solved. When that
//! fails too, proximal rounds on the LCP regularized on its force block ([`proximal_lemke`]:
//! `M + εI`, `q − ε z_k`, Lemke warm from `z_k`, ε raised ×10 while Lemke fails on it) solve
//! BoxesStack1 and Capsules-i101-404 at 1e-6. A solve that ends stalled (at
//! the pyramid's linearisation error) or failed is repeated with twice the facets, warm from
//! its best answer, up to `max_facets`: Capsules-i100 and -i125 are solved
//! with 16 (`lemke_pyramid_survives_the_round_off_files` in `tests/honest_sweep.rs`).
//! Confeti-ex03, whose LCP error stops at 2.4e-6 (its z is large against q), is not. The
//! times of these solves are in `docs/performance.md` ("Frictional contact").
//!
//! Also a one-shot Stewart–Trinkle solver: `refine: 0`.
//!
//! The report's error is always the problem's own measure ([`FrictionContactProblem::error`],
//! Siconos' for Coulomb), recomputed from the returned r: a solve whose LCP succeeded but
//! whose error exceeds `tol` ends `Stalled` with a message naming the linearisation error.

mod align;
mod lcp;
#[cfg(test)]
mod tests;

use crate::cone::{norm, Cone, MAX_DIM};
use crate::problem::{start, FrictionContactProblem, FrictionSolution, FrictionSolver};
use align::*;
use lcp::*;
use perp_core::iteration::{self, Counters, IterativeMethod, StepResult};
#[cfg(test)]
use perp_core::{Control, Progress}; // the tests' observers
use perp_core::{Error, Settings, SolveReport, Status};
use perp_lcp::lemke::Lemke;
use perp_lcp::LcpSolver;
use std::f64::consts::PI;
use std::time::{Duration, Instant};

/// After this many LCP solves without a 1 % improvement of the error, alignment stops.
const PATIENCE: usize = 3;

/// An LCP answer whose Lemke error (Siconos' `‖min(z, w)‖/‖q‖`) is at most this is used even
/// when Lemke's own check against `tol` downgraded it.
const LCP_ACCEPT: f64 = 1e-6;

/// Lemke on the Stewart–Trinkle pyramid LCP, with pyramid alignment (registry name
/// `"lemke-pyramid"`; see the module documentation).
///
/// * `facets` — generators of each contact's base pyramid (default 8; ≥ 3 in 3-D and
///   above; 2-D contacts always use the two directions ±t, which are exact).
/// * `refine` — at most this many alignment rounds after the first LCP solve (default 20;
///   0 gives Stewart–Trinkle's plain linearised answer).
/// * `max_facets` — when alignment stops at the pyramid's linearisation error (`Stalled`) or
///   Lemke fails (`NumericalFailure`), the solve is repeated with twice the facets, warm from
///   the best answer, while that stays at most `max_facets` (default 32; `facets` or less:
///   never), the time limit and the pivot budget allow and the error improves.
///   Capsules-i100-1090 and -i125-1213 need 16 at 1e-6.
///
/// Settings: `tol` on the problem's error; `max_iter` is the total pivot budget over all LCP
/// solves (0: Lemke's default `100·(n+1)` per solve); the rounds run through the shared loop
/// ([`perp_core::iteration`], one LCP solve a step): `time_limit` is checked after every
/// solve and its remainder handed to Lemke; `record_history` keeps the error after every LCP
/// solve (after a failed one, the error of the best answer kept); the observer is called
/// after every LCP solve that does not meet `tol`; `iterations` are the pivots. A warm start
/// (length `dim · nc`) gives each contact that slides at it an extra generator at its
/// maximal-dissipation force there.
///
/// ```
/// use perp_cones::{lemke_pyramid::LemkePyramid, FrictionContactProblem, FrictionSolver};
/// use perp_core::{Matrix, Settings, Status};
/// // One 2-D contact, W = I: pressed down (q_N = −1) and pushed sideways hard (q_T = 2):
/// // it slides, r = (1, −μ).
/// let w = Matrix::from_row_major(2, 2, &[1.0, 0.0, 0.0, 1.0]).unwrap();
/// let p = FrictionContactProblem::new(2, w, vec![-1.0, 2.0], vec![0.5]).unwrap();
/// let sol = LemkePyramid::new().solve(&p, None, &Settings::default()).unwrap();
/// assert_eq!(sol.report.status, Status::Solved);
/// assert!((sol.r[0] - 1.0).abs() < 1e-14 && (sol.r[1] + 0.5).abs() < 1e-14);
/// ```
#[derive(Clone, Debug)]
pub struct LemkePyramid {
    /// Generators of each contact's base pyramid (default 8).
    pub facets: usize,
    /// Alignment rounds after the first solve (default 20).
    pub refine: usize,
    /// Facets up to which a stalled or failed solve is repeated with twice the facets
    /// (default 32).
    pub max_facets: usize,
}

impl Default for LemkePyramid {
    fn default() -> Self {
        LemkePyramid { facets: 8, refine: 20, max_facets: 32 }
    }
}

impl LemkePyramid {
    /// 8 facets (up to 32 when the linearisation error stops alignment), at most 20 alignment
    /// rounds.
    pub fn new() -> Self {
        Self::default()
    }

    fn validate(&self, dim: usize) -> Result<(), Error> {
        if dim >= 3 && self.facets < 3 {
            return Err(Error::setting(
                "facets",
                self.facets,
                "a pyramid around a 3-D (or larger) contact needs at least 3 generators",
            ));
        }
        if self.facets > 4096 {
            return Err(Error::setting("facets", self.facets, "at most 4096 generators per contact"));
        }
        Ok(())
    }
}

impl LemkePyramid {
    /// The unit normal of the section at contact i's friction force: its aligned generator's
    /// when the force sits there; for k = 2 by [`normal_angle`]; for k ≥ 3 the force's own
    /// direction (exact for a round section); `−u_T` when the force is 0.
    fn force_normal(g: &Generators, st: &State, i: usize, cone: &dyn Cone, ut: &[f64]) -> Vec<f64> {
        let k = g.k;
        let beta = &st.beta[i];
        let total: f64 = beta.iter().sum();
        if let Some((_, ne)) = &g.extra[i] {
            if beta[beta.len() - 1] >= (1.0 - 1e-12) * total {
                return ne.clone();
            }
        }
        let mut f = vec![0.0; k];
        for (j, b) in beta.iter().enumerate() {
            f.iter_mut().zip(g.col(i, j)).for_each(|(x, c)| *x += b * c);
        }
        let (sf, su) = (norm(&f), norm(ut));
        if sf == 0.0 {
            ut.iter().map(|v| -v / su).collect()
        } else if k == 2 {
            let psi = normal_angle(cone, &f);
            vec![psi.cos(), psi.sin()]
        } else {
            f.iter().map(|v| v / sf).collect()
        }
    }

    /// The per-contact secant estimate of the exact direction (k = 2; the fallback of the
    /// Newton step): through the last two samples (force angle, gap to the slip's angle).
    fn secant_normal(n_f: &[f64], ut: &[f64], sample: &mut Sample) -> Vec<f64> {
        let psi_f = n_f[1].atan2(n_f[0]);
        let gap = wrap((-ut[1]).atan2(-ut[0]) - psi_f);
        let mut step = gap;
        if let Some((pf0, g0)) = *sample {
            let (dpsi, dg) = (wrap(psi_f - pf0), gap - g0);
            let s = -gap * dpsi / dg;
            if dpsi != 0.0 && s.is_finite() && s.abs() <= PI / 4.0 {
                step = s;
            }
        }
        *sample = Some((psi_f, gap));
        let psi = psi_f + step;
        vec![psi.cos(), psi.sin()]
    }

    /// Makes `G(n)` contact i's aligned generator and puts the warm guess `β_i = μ c_n` on it;
    /// returns whether the generators changed.
    fn place(g: &mut Generators, st: &mut State, i: usize, cone: &dyn Cone, n: &[f64], mu: f64) -> bool {
        let mut t = [0.0; MAX_DIM];
        generator(cone, n, &mut t[..g.k]);
        let t = &t[..g.k];
        if !t.iter().all(|v| v.is_finite()) || norm(t) == 0.0 || !g.set_extra(i, t, n) {
            return false;
        }
        let m = g.count(i);
        st.beta[i] = vec![0.0; m];
        st.beta[i][m - 1] = mu * st.cn[i];
        true
    }

    fn run(
        &self,
        p: &FrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<FrictionSolution, Error> {
        let r0 = start(p, warm, s)?;
        self.validate(p.dim)?;
        let t0 = Instant::now();
        // A start that already solves the problem (a warm start, or r = 0 when q is admissible)
        // costs no pivot, as for the iterative solvers: the pyramid LCP's own start is not
        // complementary there (its sliding variables must enter), and on large problems
        // reaching it again by pivoting takes seconds.
        let u0 = p.velocity(&r0);
        if p.error(&r0, &u0) <= s.tol {
            let mut report = SolveReport::new("lemke-pyramid");
            report.status = Status::Solved;
            report.message = Some(format!(
                "the {} start solves the problem",
                if warm.is_some() { "warm" } else { "zero" }
            ));
            let sol = p.solution(r0.clone(), report, s.tol);
            if sol.report.status == Status::Solved {
                return Ok(FrictionSolution {
                    report: SolveReport { elapsed: t0.elapsed(), ..sol.report },
                    ..sol
                });
            }
        }
        let (d, nc) = (p.dim, p.contacts());
        let k = d - 1;
        let cones = p.cone_objects()?;
        if let Some(c) = cones.iter().find(|c| !c.scales_with_mu()) {
            return Err(Error::Requirement {
                solver: "lemke-pyramid".into(),
                requirement: format!(
                    "friction cones whose section scales with μ (a pyramid inscribed in μ·S_1(1)); {} does not",
                    c.name()
                ),
                suggestion: Some("use nsgs, prox, ac-newton, admm or apgd".into()),
            });
        }
        let mut report = SolveReport::new("lemke-pyramid");

        // Base pyramids.
        let mut base = Vec::with_capacity(nc);
        for (i, cone) in cones.iter().enumerate() {
            let dm = if p.mu[i] > 0.0 { cone.linearize(self.facets) } else { Vec::new() };
            if dm.len() % k != 0 || dm.iter().any(|v| !v.is_finite()) {
                return Err(Error::Numerical {
                    solver: "lemke-pyramid".into(),
                    message: format!(
                        "contact {i}: the linearisation of cone {} has {} entries, not finite values \
                         in columns of {k}",
                        cone.name(),
                        dm.len()
                    ),
                });
            }
            base.push(dm);
        }
        let mut g = Generators::new(k, base);
        let mut st = State {
            cn: vec![0.0; nc],
            beta: (0..nc).map(|i| vec![0.0; g.count(i)]).collect(),
            lam: vec![0.0; nc],
        };
        let mut lcp_warm = false;
        if warm.is_some() {
            // The warm start orients the pyramids (a contact sliding there gets its aligned
            // generator) and gives the first LCP its guessed support.
            let scale = u0.iter().chain(&p.q).fold(0.0f64, |a, v| a.max(v.abs())).max(f64::MIN_POSITIVE);
            let frictional: Vec<usize> = (0..nc).filter(|&i| g.count(i) > 0).collect();
            for i in frictional {
                let ut = &u0[d * i + 1..d * (i + 1)];
                let (cn, rt) = (r0[d * i].max(0.0), &r0[d * i + 1..d * (i + 1)]);
                st.cn[i] = cn;
                let slides = cn > 0.0 && norm(ut) > 1e-9 * scale;
                if slides {
                    st.lam[i] = cones[i].support(1.0, ut, &mut [0.0; MAX_DIM][..k]);
                }
                if slides && k >= 2 {
                    let n: Vec<f64> = ut.iter().map(|v| -v / norm(ut)).collect();
                    Self::place(&mut g, &mut st, i, cones[i].as_ref(), &n, p.mu[i]);
                } else if cn > 0.0 {
                    if let Some(b) = express(&g, i, rt) {
                        st.beta[i] = b;
                    }
                } else {
                    st.lam[i] = (0..g.count(i))
                        .map(|j| -g.col(i, j).iter().zip(ut).map(|(a, b)| a * b).sum::<f64>())
                        .fold(0.0, f64::max);
                }
            }
            for i in (0..nc).filter(|&i| g.count(i) == 0) {
                st.cn[i] = r0[d * i].max(0.0);
            }
            mark_degenerate(&g, &mut st, &u0, d);
            lcp_warm = true;
        }

        // One Lemke for every LCP of the alignment rounds: its workspace is reused while the
        // LCP keeps its size.
        let mut method = Aligning {
            p,
            s,
            cones: &cones,
            facets: self.facets,
            refine: self.refine,
            t0,
            g,
            st,
            samples: vec![None; nc],
            wd: None,
            lcp_warm,
            lemke: Lemke { keep_ready: false, ..Lemke::new() },
            best: None,
            solves: 0,
            since_better: 0,
            last_lcp_n: 0,
            u: Vec::new(),
            lemke_settings: Settings::default(),
            counters: Counters::default(),
            message: None,
            error: None,
        };
        // The pivot budget (`s.max_iter`) and the number of rounds (`refine`) are the method's
        // own limits; the loop's step limit is lifted.
        let ls = Settings { max_iter: usize::MAX, ..s.clone() };
        let out = iteration::run_with(&mut method, &ls, usize::MAX, t0, Vec::new());
        if let Some(e) = method.error.take() {
            return Err(e);
        }
        let solves = method.solves;
        let message = method.message.take().unwrap_or_else(|| match out.status {
            Status::Interrupted => format!("stopped by the observer after {solves} LCP solve(s)"),
            Status::TimeLimit => format!("time limit reached after {solves} LCP solve(s)"),
            _ => String::new(),
        });
        let r = match method.best.take() {
            Some((r, _)) => r,
            None => method.st.reactions(&method.g, d),
        };
        out.record(&mut report);
        let last_lcp_n = method.last_lcp_n;
        report.message = (!message.is_empty()).then(|| format!("{message} [last LCP size {last_lcp_n}]"));
        Ok(p.solution(r, report, s.tol))
    }
}

/// The alignment rounds as the shared loop sees them: one step is one LCP solve (Lemke, or
/// the warm basis of the previous answer's support) and the evaluation of its answer; the
/// alignment of the pyramids for the next round, and the checks of the time and the pivot
/// budget left for it, come in `prepare_step`, after the loop has recorded the history and
/// called the observer. The loop counts the pivots and factorizations of the LCP solves
/// (`counters`); the method is pivoting (`is_pivoting`): the report's iterations are the
/// pivots, and the step ends the loop itself when the error meets `tol`. The best answer is
/// kept by the method (it is returned whatever the end).
struct Aligning<'a> {
    p: &'a FrictionContactProblem,
    s: &'a Settings,
    cones: &'a [std::sync::Arc<dyn Cone>],
    facets: usize,
    refine: usize,
    t0: Instant,
    g: Generators,
    st: State,
    samples: Vec<Sample>,
    wd: Option<faer::Mat<f64>>,
    lcp_warm: bool,
    lemke: Lemke,
    /// The best answer so far and its error.
    best: Option<(Vec<f64>, f64)>,
    solves: usize,
    since_better: usize,
    last_lcp_n: usize,
    /// The velocity at the last answer.
    u: Vec<f64>,
    /// Lemke's settings for the next solve (time and pivots left).
    lemke_settings: Settings,
    counters: Counters,
    message: Option<String>,
    error: Option<Error>,
}

impl Aligning<'_> {
    /// After an LCP solve that did not meet `tol`: aligns the pyramids of the sliding
    /// contacts for the next round; `Some(message)` when alignment stops instead.
    fn align(&mut self) -> Option<String> {
        let (p, cones) = (self.p, self.cones);
        let (d, nc) = (p.dim, p.contacts());
        let k = d - 1;
        let solves = self.solves;
        let why_stop = if solves > self.refine {
            Some(format!("{} alignment round(s) done", self.refine))
        } else if self.since_better >= PATIENCE {
            Some(format!("the error stopped improving over {PATIENCE} alignment rounds"))
        } else {
            None
        };
        let (g, st, u) = (&mut self.g, &mut self.st, &self.u);
        mark_degenerate(g, st, u, d);
        let mut changed = 0;
        if why_stop.is_none() && k >= 2 {
            let slip = |i: usize| &u[d * i + 1..d * (i + 1)];
            let sliding: Vec<bool> = (0..nc)
                .map(|i| g.count(i) > 0 && st.cn[i] > 0.0 && st.lam[i] > 0.0 && norm(slip(i)) > 0.0)
                .collect();
            for i in (0..nc).filter(|&i| !sliding[i]) {
                self.samples[i] = None;
            }
            let normals: Vec<Option<Vec<f64>>> = (0..nc)
                .map(|i| sliding[i].then(|| LemkePyramid::force_normal(g, st, i, cones[i].as_ref(), slip(i))))
                .collect();
            let wd = self.wd.get_or_insert_with(|| p.w.to_dense());
            let samples = &mut self.samples;
            let target = newton_normals(p, wd, cones, &st.cn, &normals).unwrap_or_else(|| {
                (0..nc)
                    .map(|i| {
                        let nf = normals[i].as_ref()?;
                        Some(if k == 2 {
                            LemkePyramid::secant_normal(nf, slip(i), &mut samples[i])
                        } else {
                            slip(i).iter().map(|v| -v / norm(slip(i))).collect()
                        })
                    })
                    .collect()
            });
            for i in (0..nc).filter(|&i| sliding[i]) {
                if let Some(nv) = &target[i] {
                    changed += usize::from(LemkePyramid::place(g, st, i, cones[i].as_ref(), nv, p.mu[i]));
                }
            }
            self.lcp_warm = true;
        }
        if why_stop.is_none() && changed > 0 {
            return None;
        }
        let why = why_stop.unwrap_or_else(|| "no sliding contact left to align".into());
        let best_err = self.best.as_ref().map_or(f64::NAN, |b| b.1);
        Some(format!(
            "pyramid LCP solved ({} facets, {solves} LCP solve(s); {why}) but the {} error is \
             {best_err:.1e}: linearisation error; raise facets or refine, or use nsgs/ac-newton",
            self.facets,
            if p.is_coulomb() { "Coulomb" } else { "problem's" },
        ))
    }

    /// Ends the loop with `status` and `message`.
    fn end(&mut self, status: Status, message: String) -> Option<Status> {
        self.message = Some(message);
        Some(status)
    }
}

impl IterativeMethod for Aligning<'_> {
    fn prepare_step(&mut self) -> Option<Status> {
        let (s, solves) = (self.s, self.solves);
        if solves > 0 {
            if let Some(msg) = self.align() {
                return self.end(Status::Stalled, msg);
            }
        }
        // The time and the pivots left for the next LCP solve.
        let time_left = match s.time_limit {
            Some(tl) => {
                let left = tl.saturating_sub(self.t0.elapsed());
                if left == Duration::ZERO {
                    return self
                        .end(Status::TimeLimit, format!("time limit reached after {solves} LCP solve(s)"));
                }
                Some(left)
            }
            None => None,
        };
        let pivot_budget = if s.max_iter > 0 {
            let left = s.max_iter.saturating_sub(self.counters.pivots);
            if left == 0 {
                return self.end(
                    Status::MaxIterations,
                    format!("pivot budget {} spent after {solves} LCP solve(s)", s.max_iter),
                );
            }
            left
        } else {
            0
        };
        self.lemke_settings = Settings {
            tol: s.tol,
            max_iter: pivot_budget,
            time_limit: time_left,
            record_history: false,
            observer: None,
            threads: s.threads,
        };
        None
    }

    fn step(&mut self) -> StepResult {
        let p = self.p;
        let (d, nc) = (p.dim, p.contacts());
        let tol = self.s.tol;
        let lay = Layout::new(&self.g, nc);
        self.last_lcp_n = lay.n;
        let fail = |this: &mut Self, e: Error| {
            this.error = Some(e);
            StepResult { error: f64::NAN, stop: Some(Status::NumericalFailure) }
        };
        let lcp = match build_lcp(p, &self.g, &lay) {
            Ok(lcp) => lcp,
            Err(e) => return fail(self, e),
        };
        let z0 = self.lcp_warm.then(|| self.st.to_z(&lay));
        let sol = match z0.as_deref().and_then(|z| support_solution(&lcp, z, tol.min(1e-10))) {
            Some(z) => {
                let mut rep = SolveReport::new("lemke");
                rep.status = Status::Solved;
                rep.factorizations = 1;
                lcp.solution(z, rep, tol)
            }
            None => match self.lemke.solve(&lcp, None, &self.lemke_settings) {
                Ok(sol) if sol.report.status == Status::NumericalFailure && sol.report.error > LCP_ACCEPT => {
                    // Lemke ended on a basis whose answer, recomputed from z, is off: pivots on
                    // tiny elements (redundant contacts make the pyramid LCP degenerate). Once
                    // more with Harris' ratio test, which takes the largest pivot among the
                    // near-minimal ratios; the better of the two answers is kept.
                    let mut harris = Lemke { keep_ready: false, harris: true, ..Lemke::new() };
                    let best = match harris.solve(&lcp, None, &self.lemke_settings) {
                        Ok(mut h) => {
                            h.report.pivots += sol.report.pivots;
                            h.report.factorizations += sol.report.factorizations;
                            if h.report.error < sol.report.error {
                                h
                            } else {
                                sol
                            }
                        }
                        Err(_) => sol,
                    };
                    if best.report.status != Status::Solved {
                        proximal_lemke(&lcp, lay.n1, best, &self.lemke_settings)
                    } else {
                        best
                    }
                }
                Ok(sol) => sol,
                Err(e) => return fail(self, e),
            },
        };
        self.solves += 1;
        let solves = self.solves;
        self.counters += Counters {
            pivots: sol.report.pivots,
            factorizations: sol.report.factorizations,
            line_search_steps: 0,
        };
        let lcp_ok = sol.report.status == Status::Solved || sol.report.error <= LCP_ACCEPT;
        if !lcp_ok {
            // Keep the best answer so far (none on the first solve: Lemke's point then).
            if self.best.is_none() {
                let r = State::from_z(&sol.z, &self.g, &lay).reactions(&self.g, d);
                let err = p.error(&r, &p.velocity(&r));
                self.best = Some((r, err));
            }
            let (status, msg) = lemke_failure(sol.report.status, lay.n, sol.report.message.as_deref());
            let kept = self.best.as_ref().map_or(f64::NAN, |b| b.1);
            self.message =
                Some(format!("{msg}; LCP solve {solves}, returning the best answer (error {kept:.1e})"));
            return StepResult { error: kept, stop: Some(status) };
        }
        self.st = State::from_z(&sol.z, &self.g, &lay);
        let r = self.st.reactions(&self.g, d);
        self.u = p.velocity(&r);
        let err = p.error(&r, &self.u);
        let improved = self.best.as_ref().is_none_or(|(_, e)| err < 0.99 * e);
        self.since_better = if improved { 0 } else { self.since_better + 1 };
        if self.best.as_ref().is_none_or(|(_, e)| err < *e) {
            self.best = Some((r, err));
        }
        StepResult { error: err, stop: (err <= tol).then_some(Status::Solved) }
    }

    fn counters(&self) -> Counters {
        self.counters
    }

    fn is_pivoting(&self) -> bool {
        true
    }
}

impl FrictionSolver for LemkePyramid {
    fn name(&self) -> &str {
        "lemke-pyramid"
    }

    fn solve(
        &mut self,
        p: &FrictionContactProblem,
        warm: Option<&[f64]>,
        s: &Settings,
    ) -> Result<FrictionSolution, Error> {
        let t0 = Instant::now();
        let mut sol = self.run(p, warm, s)?;
        let mut facets = self.facets;
        // Stalled: alignment stopped at the pyramid's linearisation error; a numerical failure:
        // Lemke's bases broke down on this pyramid (a finer one has other bases).
        let retry = |st: Status| matches!(st, Status::Stalled | Status::NumericalFailure);
        while retry(sol.report.status) && self.refine > 0 && 2 * facets <= self.max_facets {
            let time_limit = match s.time_limit {
                Some(t) => match t.checked_sub(t0.elapsed()) {
                    Some(left) if !left.is_zero() => Some(left),
                    _ => break,
                },
                None => None,
            };
            let max_iter = if s.max_iter > 0 {
                match s.max_iter.checked_sub(sol.report.iterations) {
                    Some(left) if left > 0 => left,
                    _ => break,
                }
            } else {
                0
            };
            facets *= 2;
            let finer = LemkePyramid { facets, ..self.clone() };
            let mut next = finer.run(p, Some(&sol.r), &Settings { time_limit, max_iter, ..s.clone() })?;
            let better = next.report.error < sol.report.error;
            let (pivots, its, facts) = (sol.report.pivots, sol.report.iterations, sol.report.factorizations);
            let (before, after) = (sol.report.error, next.report.error);
            if better {
                std::mem::swap(&mut sol, &mut next);
            }
            sol.report.pivots = pivots + next.report.pivots;
            sol.report.iterations = its + next.report.iterations;
            sol.report.factorizations = facts + next.report.factorizations;
            sol.report.elapsed = t0.elapsed();
            let note = if better {
                format!("answer from {facets} facets ({} ended at error {before:.1e})", facets / 2)
            } else {
                format!("{facets} facets tried, no better (error {after:.1e})")
            };
            sol.report.message = Some(match sol.report.message.take() {
                Some(m) if !m.is_empty() => format!("{m}; {note}"),
                _ => note,
            });
            if !better {
                break;
            }
        }
        Ok(sol)
    }
}

/// Rounds of [`proximal_lemke`] at most.
const PROX_ROUNDS: usize = 20;

/// Proximal point on the pyramid LCP (Rockafellar's proximal point algorithm on the LCP,
/// Cottle–Pang–Stone §5.6 "regularization"): `z_{k+1}` solves the LCP with `M + εI` on the
/// force block (the first `n1` variables: W's part, singular for redundant contacts) and
/// `q − ε z_k` there, by Lemke warm from `z_k`; a fixed point solves the pyramid LCP. ε starts
/// at `1e-6·max|M|` and grows ×10 (to `1e-1·max|M|`) whenever Lemke fails on the regularized
/// LCP, whose bases are then better conditioned. Returns the best answer by the LCP's error,
/// `start` if no round improves on it; the pivots of every round are added to its report.
fn proximal_lemke(
    lcp: &perp_lcp::Lcp,
    n1: usize,
    start: perp_core::Solution,
    s: &Settings,
) -> perp_core::Solution {
    let (n, q) = (lcp.n(), lcp.q());
    let mmax = lcp.m().max_abs();
    // A limit beyond what an `Instant` holds is no deadline (`Instant + Duration` panics there).
    let deadline = s.deadline(Instant::now());
    let (mut best, mut z) = (start.clone(), start.z);
    let mut pivots = best.report.pivots;
    // ε = 10^(level − 6)·max|M|, level 0 to 5.
    let (mut level, mut sub): (i32, Option<perp_lcp::Lcp>) = (0, None);
    let mut qk = vec![0.0; n];
    for _ in 0..PROX_ROUNDS {
        let eps = 10f64.powi(level - 6) * mmax;
        if sub.is_none() {
            let mut m = lcp.m().to_dense();
            for i in 0..n1 {
                m[(i, i)] += eps;
            }
            sub = perp_lcp::Lcp::new(perp_core::Matrix::Dense(m), q.to_vec()).ok();
        }
        let Some(lp) = sub.as_mut() else { break };
        for i in 0..n {
            qk[i] = q[i] - if i < n1 { eps * z[i] } else { 0.0 };
        }
        if lp.set_q(&qk).is_err() {
            break;
        }
        let time_limit = match deadline {
            Some(d) => match d.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Some(left),
                _ => break,
            },
            None => None,
        };
        let ls = Settings { time_limit, ..s.clone() };
        let Ok(sol) = (Lemke { keep_ready: false, ..Lemke::new() }).solve(lp, Some(&z), &ls) else { break };
        pivots += sol.report.pivots;
        if sol.report.status != Status::Solved {
            // Too ill-conditioned still: regularize more (the iterate stays).
            if level == 5 {
                break;
            }
            level += 1;
            sub = None;
            continue;
        }
        let moved = z.iter().zip(&sol.z).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
        let size = norm(&sol.z);
        z = sol.z;
        let mut report = SolveReport::new("lemke");
        report.status = Status::Solved;
        let cand = lcp.solution(z.clone(), report, s.tol);
        if cand.report.error < best.report.error {
            best = cand;
        }
        if best.report.status == Status::Solved || moved <= 1e-14 * size {
            break;
        }
    }
    best.report.pivots = pivots;
    best
}
