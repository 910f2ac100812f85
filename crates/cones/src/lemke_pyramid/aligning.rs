//! The alignment rounds as the shared loop [`perp_core::iteration`] sees them (`Aligning`):
//! one step is one LCP solve and the evaluation of its answer; the alignment for the next round
//! and the time and pivot budget checks come in `prepare_step`.

use super::*;

/// The alignment rounds as the shared loop sees them: one step is one LCP solve (Lemke, or
/// the warm basis of the previous answer's support) and the evaluation of its answer; the
/// alignment of the pyramids for the next round, and the checks of the time and the pivot
/// budget left for it, come in `prepare_step`, after the loop has recorded the history and
/// called the observer. The loop counts the pivots and factorizations of the LCP solves
/// (`counters`); the method is pivoting (`is_pivoting`): the report's iterations are the
/// pivots, and the step ends the loop itself when the error meets `tol`. The best answer is
/// kept by the method (it is returned whatever the end).
pub(super) struct Aligning<'a> {
    pub(super) p: &'a FrictionContactProblem,
    pub(super) s: &'a Settings,
    pub(super) cones: &'a [std::sync::Arc<dyn Cone>],
    pub(super) facets: usize,
    pub(super) refine: usize,
    pub(super) t0: Instant,
    pub(super) g: Generators,
    pub(super) st: State,
    pub(super) samples: Vec<Sample>,
    pub(super) wd: Option<faer::Mat<f64>>,
    pub(super) lcp_warm: bool,
    pub(super) lemke: Lemke,
    /// The best answer so far and its error.
    pub(super) best: Option<(Vec<f64>, f64)>,
    pub(super) solves: usize,
    pub(super) since_better: usize,
    pub(super) last_lcp_n: usize,
    /// The velocity at the last answer.
    pub(super) u: Vec<f64>,
    /// Lemke's settings for the next solve (time and pivots left).
    pub(super) lemke_settings: Settings,
    pub(super) counters: Counters,
    pub(super) message: Option<String>,
    pub(super) error: Option<Error>,
}

impl Aligning<'_> {
    /// After an LCP solve that did not meet `tol`: aligns the pyramids of the sliding
    /// contacts for the next round; `Some(message)` when alignment stops instead.
    pub(super) fn align(&mut self) -> Option<String> {
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
    pub(super) fn end(&mut self, status: Status, message: String) -> Option<Status> {
        self.message = Some(message);
        Some(status)
    }

    /// The answer of this round's LCP: the warm basis of the previous answer's support when
    /// it solves the LCP, Lemke's answer otherwise ([`Aligning::rescue_lemke`] when it is off).
    fn solve_lcp(&mut self, lcp: &perp_lcp::Lcp, lay: &Layout) -> Result<perp_core::Solution, Error> {
        let tol = self.s.tol;
        let z0 = self.lcp_warm.then(|| self.st.to_z(lay));
        match z0.as_deref().and_then(|z| support_solution(lcp, z, tol.min(1e-10))) {
            Some(z) => {
                let mut rep = SolveReport::new("lemke");
                rep.status = Status::Solved;
                rep.factorizations = 1;
                Ok(lcp.solution(z, rep, tol))
            }
            None => match self.lemke.solve(lcp, None, &self.lemke_settings) {
                Ok(sol) if sol.report.status == Status::NumericalFailure && sol.report.error > LCP_ACCEPT => {
                    Ok(self.rescue_lemke(lcp, lay, sol))
                }
                other => other,
            },
        }
    }

    /// Lemke ended on a basis whose answer `sol`, recomputed from z, is off: pivots on tiny
    /// elements (redundant contacts make the pyramid LCP degenerate). Once more with Harris'
    /// ratio test, which takes the largest pivot among the near-minimal ratios; the better of
    /// the two answers is kept, and handed to the proximal Lemke when it is not solved.
    fn rescue_lemke(
        &self,
        lcp: &perp_lcp::Lcp,
        lay: &Layout,
        sol: perp_core::Solution,
    ) -> perp_core::Solution {
        let mut harris = Lemke { keep_ready: false, harris: true, ..Lemke::new() };
        let best = match harris.solve(lcp, None, &self.lemke_settings) {
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
            proximal_lemke(lcp, lay.n1, best, &self.lemke_settings)
        } else {
            best
        }
    }

    /// Ends the rounds after an LCP solve that failed (`sol`): keeps the best answer so far
    /// (none on the first solve: Lemke's point then) and says why.
    fn lcp_failed(&mut self, sol: &perp_core::Solution, lay: &Layout) -> StepResult {
        let p = self.p;
        if self.best.is_none() {
            let r = State::from_z(&sol.z, &self.g, lay).reactions(&self.g, p.dim);
            let err = p.error(&r, &p.velocity(&r));
            self.best = Some((r, err));
        }
        let (status, msg) = lemke_failure(sol.report.status, lay.n, sol.report.message.as_deref());
        let kept = self.best.as_ref().map_or(f64::NAN, |b| b.1);
        let solves = self.solves;
        self.message =
            Some(format!("{msg}; LCP solve {solves}, returning the best answer (error {kept:.1e})"));
        StepResult { error: kept, stop: Some(status) }
    }

    /// Takes the LCP's answer `sol` as the new state: its reactions, velocity and error,
    /// whether it improved on the best by 1% (`since_better`), and the best answer.
    fn take_answer(&mut self, sol: &perp_core::Solution, lay: &Layout) -> StepResult {
        let p = self.p;
        self.st = State::from_z(&sol.z, &self.g, lay);
        let r = self.st.reactions(&self.g, p.dim);
        self.u = p.velocity(&r);
        let err = p.error(&r, &self.u);
        let improved = self.best.as_ref().is_none_or(|(_, e)| err < 0.99 * e);
        self.since_better = if improved { 0 } else { self.since_better + 1 };
        if self.best.as_ref().is_none_or(|(_, e)| err < *e) {
            self.best = Some((r, err));
        }
        StepResult { error: err, stop: (err <= self.s.tol).then_some(Status::Solved) }
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
        let lay = Layout::new(&self.g, self.p.contacts());
        self.last_lcp_n = lay.n;
        let sol = match build_lcp(self.p, &self.g, &lay).and_then(|lcp| self.solve_lcp(&lcp, &lay)) {
            Ok(sol) => sol,
            Err(e) => {
                self.error = Some(e);
                return StepResult { error: f64::NAN, stop: Some(Status::NumericalFailure) };
            }
        };
        self.solves += 1;
        self.counters += Counters {
            pivots: sol.report.pivots,
            factorizations: sol.report.factorizations,
            line_search_steps: 0,
        };
        if sol.report.status == Status::Solved || sol.report.error <= LCP_ACCEPT {
            self.take_answer(&sol, &lay)
        } else {
            self.lcp_failed(&sol, &lay)
        }
    }

    fn counters(&self) -> Counters {
        self.counters
    }

    fn is_pivoting(&self) -> bool {
        true
    }
}
