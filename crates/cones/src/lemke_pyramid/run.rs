//! The run of [`LemkePyramid`]: the placement of each contact's pyramid on the section's normal
//! at the friction force (`force_normal`, `secant_normal`, `place`), the driver `run` (build the
//! pyramid LCP, solve, align, repeat), and the proximal-point fallback `proximal_lemke`.

use super::*;
use std::sync::Arc;

impl LemkePyramid {
    /// The unit normal of the section at contact i's friction force: its aligned generator's
    /// when the force sits there; for k = 2 by [`normal_angle`]; for k ≥ 3 the force's own
    /// direction (exact for a round section); `−u_T` when the force is 0.
    pub(super) fn force_normal(
        g: &Generators,
        st: &State,
        i: usize,
        cone: &dyn Cone,
        ut: &[f64],
    ) -> Vec<f64> {
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
    pub(super) fn secant_normal(n_f: &[f64], ut: &[f64], sample: &mut Sample) -> Vec<f64> {
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
    pub(super) fn place(
        g: &mut Generators,
        st: &mut State,
        i: usize,
        cone: &dyn Cone,
        n: &[f64],
        mu: f64,
    ) -> bool {
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
    /// The base pyramid of every contact: `facets` generators of its cone's section (none
    /// where μ = 0), or an error naming a contact whose linearisation is not finite columns
    /// of `k`.
    fn base_pyramids(
        &self,
        p: &FrictionContactProblem,
        cones: &[Arc<dyn Cone>],
        k: usize,
    ) -> Result<Vec<Vec<f64>>, Error> {
        let mut base = Vec::with_capacity(p.contacts());
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
        Ok(base)
    }

    pub(super) fn run(
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
        if let Some(sol) = solved_start(p, warm.is_some(), &r0, &u0, s, t0) {
            return Ok(sol);
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
        let report = SolveReport::new("lemke-pyramid");

        let mut g = Generators::new(k, self.base_pyramids(p, &cones, k)?);
        let mut st = State {
            cn: vec![0.0; nc],
            beta: (0..nc).map(|i| vec![0.0; g.count(i)]).collect(),
            lam: vec![0.0; nc],
        };
        let mut lcp_warm = false;
        if warm.is_some() {
            // The warm start orients the pyramids (a contact sliding there gets its aligned
            // generator) and gives the first LCP its guessed support.
            orient_warm(p, &cones, &mut g, &mut st, &r0, &u0);
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
        method.finish(out, report)
    }
}

/// The answer when the start `r0` (velocities `u0`) already solves the problem: no pivot is
/// made (a warm start, or r = 0 when q is admissible, as for the iterative solvers: the
/// pyramid LCP's own start is not complementary there, and on large problems reaching it
/// again by pivoting takes seconds). `None` when it does not, by the verified measure.
fn solved_start(
    p: &FrictionContactProblem,
    warm: bool,
    r0: &[f64],
    u0: &[f64],
    s: &Settings,
    t0: Instant,
) -> Option<FrictionSolution> {
    if p.error(r0, u0) <= s.tol {
        let mut report = SolveReport::new("lemke-pyramid");
        report.status = Status::Solved;
        report.message = Some(format!("the {} start solves the problem", if warm { "warm" } else { "zero" }));
        let sol = p.solution(r0.to_vec(), report, s.tol);
        if sol.report.status == Status::Solved {
            return Some(FrictionSolution {
                report: SolveReport { elapsed: t0.elapsed(), ..sol.report },
                ..sol
            });
        }
    }
    None
}

/// Orients the pyramids at the warm start `r0` (velocities `u0`): a contact sliding there
/// gets its aligned generator, a sticking one the coefficients of its force, and the state
/// `st` the first LCP's guessed support.
fn orient_warm(
    p: &FrictionContactProblem,
    cones: &[Arc<dyn Cone>],
    g: &mut Generators,
    st: &mut State,
    r0: &[f64],
    u0: &[f64],
) {
    let (d, nc, k) = (p.dim, p.contacts(), p.dim - 1);
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
            LemkePyramid::place(g, st, i, cones[i].as_ref(), &n, p.mu[i]);
        } else if cn > 0.0 {
            if let Some(b) = express(g, i, rt) {
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
    mark_degenerate(g, st, u0, d);
}

/// Rounds of [`proximal_lemke`] at most.
pub(super) const PROX_ROUNDS: usize = 20;

/// Proximal point on the pyramid LCP (Rockafellar's proximal point algorithm on the LCP,
/// Cottle–Pang–Stone §5.6 "regularization"): `z_{k+1}` solves the LCP with `M + εI` on the
/// force block (the first `n1` variables: W's part, singular for redundant contacts) and
/// `q − ε z_k` there, by Lemke warm from `z_k`; a fixed point solves the pyramid LCP. ε starts
/// at `1e-6·max|M|` and grows ×10 (to `1e-1·max|M|`) whenever Lemke fails on the regularized
/// LCP, whose bases are then better conditioned. Returns the best answer by the LCP's error,
/// `start` if no round improves on it; the pivots of every round are added to its report.
pub(super) fn proximal_lemke(
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

impl Aligning<'_> {
    /// The answer after the loop `out`: an error the method met, else the best reactions (the
    /// state's when no LCP answer was kept), measured, with the loop's record and a message
    /// naming why it stopped and the last LCP's size.
    fn finish(
        &mut self,
        out: iteration::LoopOutcome,
        mut report: SolveReport,
    ) -> Result<FrictionSolution, Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let solves = self.solves;
        let message = self.message.take().unwrap_or_else(|| match out.status {
            Status::Interrupted => format!("stopped by the observer after {solves} LCP solve(s)"),
            Status::TimeLimit => format!("time limit reached after {solves} LCP solve(s)"),
            _ => String::new(),
        });
        let r = match self.best.take() {
            Some((r, _)) => r,
            None => self.st.reactions(&self.g, self.p.dim),
        };
        out.record(&mut report);
        let last_lcp_n = self.last_lcp_n;
        report.message = (!message.is_empty()).then(|| format!("{message} [last LCP size {last_lcp_n}]"));
        Ok(self.p.solution(r, report, self.s.tol))
    }
}
