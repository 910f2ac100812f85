//! Mehrotra's predictor–corrector path following on the convex problem.

use super::*;
use perp_core::iteration::{observe, Counters};

impl GlobalIpm {
    /// Mehrotra's predictor–corrector on the convex problem with `b_N + shift`, from `warm`
    /// (v and the cone variables) or CVXOPT's start: returns
    /// (r, v) and the certificate; the status goes into `report` (Solved when the
    /// certificate is at most `s.tol`).
    pub(super) fn interior_point(
        &mut self,
        g: &GlobalFrictionContactProblem,
        lay: &Layout,
        (shift, warm): (&[f64], WarmPoint),
        s: &Settings,
        start: Instant,
        report: &mut SolveReport,
    ) -> Result<(Vec<f64>, Vec<f64>, Certificate), Error> {
        let bt = lay.b_tilde(g, shift);
        let scales = (norm_inf(&g.f), norm_inf(&bt).max(lay.vscale));
        let mut res = Residuals::new(lay.n, lay.m);
        let warm_error = match res.quiescent((g, lay, &bt), warm.as_ref(), scales, s, report) {
            Ok(answer) => return Ok(answer),
            Err(worst) => worst,
        };
        if let Some(answer) =
            self.convex_warm_newton((g, lay, &bt), scales, (&warm, warm_error), s, report, &mut res)
        {
            return Ok(answer);
        }
        let mut kkt = Kkt::new(g, lay);
        self.chol.form = self.kkt;
        let chol = &mut self.chol;
        // ω², an estimate of the Delassus diagonal: the scalings of CVXOPT's start.
        let omega2 = omega2(lay);
        kkt.nt.clear();
        kkt.nt.extend(std::iter::repeat_n(Nt::unit(omega2), lay.cones.len()));
        let start_point = (warm, warm_margin(warm_error));
        let Some(mut it) = Iterates::start(g, lay, &bt, start_point, (&mut kkt, chol), omega2, report) else {
            return Ok((vec![0.0; g.size()], vec![0.0; lay.n], Certificate::default()));
        };
        let limits = (s.max_iter_or(self.max_iter), s.deadline(start), start);
        let nu = lay.cones.len().max(1) as f64;
        report.status = Status::MaxIterations;
        let mut cert = loop {
            let (cert, sz) = res.certificate(g, lay, &bt, (&it.x, &it.sv, &it.z), scales);
            if ended(&cert, s, report, limits) {
                break cert;
            }
            report.iterations += 1;
            let stepped = it
                .factor(lay, (&mut kkt, chol), omega2, report)
                .and_then(|()| it.directions(lay, (&mut kkt, chol), &res, sz / nu, sz, report))
                .and_then(|()| it.step(lay));
            if let Err((status, message)) = stepped {
                report.status = status;
                report.message = Some(message);
                break cert;
            }
        };
        cert.iterations = report.iterations;
        Ok((lay.reactions(g, &it.z), it.x, cert))
    }
}

impl GlobalIpm {
    /// The convex relaxation's warm Newton ([`GlobalIpm::warm_newton`]): from a warm start
    /// that misses the certificate by at most [`CONVEX_WARM_NEWTON_BELOW`], at most
    /// `warm_newton` iterations of the global Newton method on the relaxation's
    /// natural map ([`GlobalNewton::convex_finishing`]), from the warm start's reactions; its
    /// answer is returned when it meets the interior point's certificate (the quiescence
    /// exit's measure, [`Residuals::quiescent`]), with its effort in `report`. `None`: the
    /// interior point runs (the Newton's iterations and factorizations counted).
    fn convex_warm_newton(
        &mut self,
        (g, lay, bt): (&GlobalFrictionContactProblem, &Layout, &[f64]),
        scales: (f64, f64),
        (warm, warm_error): (&WarmPoint, f64),
        s: &Settings,
        report: &mut SolveReport,
        res: &mut Residuals,
    ) -> Option<Answer> {
        let near = warm_error <= CONVEX_WARM_NEWTON_BELOW.max(coulomb::WARM_NEWTON_FROM * s.tol);
        // The Newton method's cones are Coulomb's, of dimension 2 or 3.
        let coulomb = (2..=3).contains(&g.dim);
        let (_, z) = warm
            .as_ref()
            .filter(|_| self.model == Model::Convex && self.warm_newton > 0 && near && coulomb)?;
        let r0 = lay.reactions(g, z);
        // Its own tolerance 100× finer: the certificate and the Newton's error weigh the
        // residuals differently, and one more quadratic iteration costs less than the
        // interior point.
        let first = Settings { max_iter: self.warm_newton, tol: s.tol * 1e-2, ..s.clone() };
        // The problem was checked: a Newton that cannot start leaves the solve to the
        // interior point.
        let sol = self.convex_newton.solve(g, Some(&r0), &first).ok()?;
        report.iterations += sol.report.iterations;
        report.factorizations += sol.report.factorizations;
        report.line_search_steps += sol.report.line_search_steps;
        // Its own target is tol/100; an answer that stops short of it may still meet the
        // certificate, which is checked below either way.
        let (e, solved) = (sol.report.error, sol.report.status == Status::Solved);
        if !solved && (e.is_nan() || e > s.tol) {
            return None;
        }
        let point = (sol.v, lay.cone_variables(g, &sol.r));
        let mut answer = res.quiescent((g, lay, bt), Some(&point), scales, s, report).ok()?;
        answer.2.iterations = sol.report.iterations;
        report.message = Some(format!(
            "convex relaxation: the global Newton method from the warm start in {} iterations \
             (primal {:.1e}, dual {:.1e}, gap {:.1e}); no interior-point iteration",
            sol.report.iterations, answer.2.primal, answer.2.dual, answer.2.gap
        ));
        Some(answer)
    }
}

/// A convex solve's answer: r, v and the certificate.
type Answer = (Vec<f64>, Vec<f64>, Certificate);

/// The convex relaxation's warm Newton is tried from a warm start whose certificate figure is
/// at most this (or 100 tol): a settled pile's (about 3 · 10⁻⁴ on `ball-pile 1000`) and one
/// where a contact appears or leaves it (10⁻² to 0.2), not most landing steps' (0.3 to 2,
/// where the Newton method ran its iterations and the interior point after it). On
/// `ball-pile 1000` at 1e-8, three runs each (`docs/performance.md`, Velocity space): the
/// first 60 steps 6.5–6.8 s against 7.1–8.4 s when every warm start is tried, the p95 step
/// 148–162 ms against 194–237, the settled steps the same.
pub(super) const CONVEX_WARM_NEWTON_BELOW: f64 = 0.3;

/// Whether the iterations end before another one, the report's status set when they do
/// (the certificate recorded first): iterates not finite, the certificate met, the iteration
/// limit (the status stays `MaxIterations`), the time limit, or the observer's stop.
fn ended(
    cert: &Certificate,
    s: &Settings,
    report: &mut SolveReport,
    (max_iter, deadline, start): (usize, Option<Instant>, Instant),
) -> bool {
    if s.record_history {
        report.history.push(cert.worst());
        report.history_iterations.push(report.iterations);
    }
    let status = if !cert.worst().is_finite() {
        report.message = Some("global-ipm: the iterates are not finite".into());
        Status::NumericalFailure
    } else if cert.worst() <= s.tol {
        Status::Solved
    } else if report.iterations >= max_iter {
        return true;
    } else if deadline.is_some_and(|t| Instant::now() >= t) {
        Status::TimeLimit
    } else {
        let counters = Counters { pivots: 0, factorizations: report.factorizations, line_search_steps: 0 };
        if report.iterations > 0 && observe(s, report.iterations, cert.worst(), start, counters, None) {
            Status::Interrupted
        } else {
            return false;
        }
    };
    report.status = status;
    true
}

/// Why an iteration could not be taken: the status and the message.
type Failed = (Status, String);

/// A KKT factorization or solve that failed, as an iteration's failure.
fn numerical(e: String) -> Failed {
    (Status::NumericalFailure, format!("global-ipm: {e}"))
}

/// The iterates (x, s, z) of the path and the storage of its directions.
struct Iterates {
    x: Vec<f64>,
    sv: Vec<f64>,
    z: Vec<f64>,
    /// The scaled point `λ = W z`.
    lambda: Vec<f64>,
    /// The affine Δs and Δz, then (Δs only) the combined step's.
    ds: Vec<f64>,
    dz_a: Vec<f64>,
    /// `W (λ \ d)` of the combined direction.
    dvec: Vec<f64>,
    /// The KKT right-hand side and solution (Δx, Δz).
    sol: Vec<f64>,
}

impl Iterates {
    /// The starting point, moved into the cones' interior: a warm start (v and the cone
    /// variables z of an earlier answer) by `warm_margin` of its scale ([`warm_margin`]);
    /// otherwise CVXOPT's: x minimising ½xᵀMx − fᵀx + ‖H̃ᵀx + b̃‖²/(2ω²), then s = H̃ᵀx + b̃
    /// and z = −s/ω², moved in by its whole scale. `None` (the report's status and message
    /// set) when its KKT system fails.
    fn start(
        g: &GlobalFrictionContactProblem,
        lay: &Layout,
        bt: &[f64],
        (warm, warm_margin): (WarmPoint, f64),
        (kkt, chol): (&mut Kkt<'_>, &mut Factors),
        omega2: f64,
        report: &mut SolveReport,
    ) -> Option<Iterates> {
        let (n, m) = (lay.n, lay.m);
        let mut sol = vec![0.0; n + m];
        let (x, mut sv, mut z, margin) = match warm {
            Some((x, z)) => {
                let sv = slacks(lay, &x, bt);
                (x, sv, z, warm_margin)
            }
            None => {
                sol[..n].copy_from_slice(&g.f);
                sol[n..].copy_from_slice(bt);
                let started = kkt
                    .factor(
                        chol,
                        (
                            |_, a, b| if a == b { omega2 } else { 0.0 },
                            |_, p, delta, out: &mut [f64]| {
                                out.iter_mut().for_each(|v| *v = 0.0);
                                (0..p).for_each(|a| out[a * p + a] = 1.0 / (omega2 + delta));
                            },
                        ),
                        omega2,
                        report,
                    )
                    .and_then(|()| kkt.solve(chol, &mut sol, &mut report.factorizations));
                if let Err(e) = started {
                    (report.status, report.message) = (Status::NumericalFailure, Some(numerical(e).1));
                    return None;
                }
                let x = sol[..n].to_vec();
                let sv = slacks(lay, &x, bt);
                let z: Vec<f64> = sv.iter().map(|v| -v / omega2).collect();
                (x, sv, z, 1.0)
            }
        };
        push_into_cones(lay, &mut sv, lay.vscale, margin);
        push_into_cones(lay, &mut z, 0.0, margin);
        let zeros = || vec![0.0; m];
        Some(Iterates { x, sv, z, lambda: zeros(), ds: zeros(), dz_a: zeros(), dvec: zeros(), sol })
    }

    /// The Nesterov–Todd scalings at (s, z), `λ = W z`, and the KKT factorization both
    /// directions share.
    fn factor(
        &mut self,
        lay: &Layout,
        (kkt, chol): (&mut Kkt<'_>, &mut Factors),
        omega2: f64,
        report: &mut SolveReport,
    ) -> Result<(), Failed> {
        kkt.nt.clear();
        for &(off, p) in &lay.cones {
            let nt = Nt::new(&self.sv[off..off + p], &self.z[off..off + p]);
            nt.apply(&self.z[off..off + p], &mut self.lambda[off..off + p], false);
            kkt.nt.push(nt);
        }
        // The scalings lent to the fill (no copy per iteration), given back after.
        let nts = std::mem::take(&mut kkt.nt);
        let factored = kkt.factor(
            chol,
            (|c, a, b| nts[c].w2(a, b), |c, p, delta, out: &mut [f64]| nts[c].w2_reg_inv(p, delta, out)),
            omega2,
            report,
        );
        kkt.nt = nts;
        factored.map_err(numerical)
    }

    /// The affine (predictor) direction, the centring σ from its step, and the combined
    /// (corrector) direction into `sol` (Δx, Δz) and `ds` (Δs), with `μ = sᵀz / ν`.
    fn directions(
        &mut self,
        lay: &Layout,
        (kkt, chol): (&mut Kkt<'_>, &mut Factors),
        res: &Residuals,
        mu: f64,
        sz: f64,
        report: &mut SolveReport,
    ) -> Result<(), Failed> {
        let (n, m) = (lay.n, lay.m);
        let Iterates { sv, z, lambda, ds, dz_a, dvec, sol, .. } = self;
        let (sv, z, lambda) = (&sv[..], &z[..], &lambda[..]);
        // The affine direction: d = −λ∘λ, so W(λ \ d) = −s.
        sol[..n].iter_mut().zip(&res.rx).for_each(|(a, b)| *a = -b);
        for k in 0..m {
            sol[n + k] = -res.rz[k] + sv[k];
        }
        kkt.solve(chol, sol, &mut report.factorizations).map_err(numerical)?;
        dz_a.copy_from_slice(&sol[n..]);
        slack_step(lay, &kkt.nt, (-1.0, sv), dz_a, ds);
        let alpha_a = max_step(lay, 1.0, (sv, &ds[..]), (z, &dz_a[..]));
        let sz_a: f64 = (0..m).map(|k| (sv[k] + alpha_a * ds[k]) * (z[k] + alpha_a * dz_a[k])).sum();
        let sigma = (sz_a / sz).clamp(0.0, 1.0).powi(3);

        // The combined direction: d = −λ∘λ − (W⁻¹Δs_a)∘(WΔz_a) + σμe.
        let (mut t1, mut t2, mut t3) = ([0.0; MAX_DIM], [0.0; MAX_DIM], [0.0; MAX_DIM]);
        for (c, &(off, p)) in lay.cones.iter().enumerate() {
            let nt = &kkt.nt[c];
            let l = &lambda[off..off + p];
            nt.apply(&ds[off..off + p], &mut t1[..p], true);
            nt.apply(&dz_a[off..off + p], &mut t2[..p], false);
            jordan(&t1[..p], &t2[..p], &mut t3[..p]);
            jordan(l, l, &mut t1[..p]);
            for a in 0..p {
                t2[a] = -t1[a] - t3[a] + if a == 0 { sigma * mu } else { 0.0 };
            }
            jordan_div(l, &t2[..p], &mut t1[..p]);
            nt.apply(&t1[..p], &mut dvec[off..off + p], false);
        }
        sol[..n].iter_mut().zip(&res.rx).for_each(|(a, b)| *a = -b);
        for k in 0..m {
            sol[n + k] = -res.rz[k] - dvec[k];
        }
        kkt.solve(chol, sol, &mut report.factorizations).map_err(numerical)?;
        // Δs = W(λ \ d) − W²Δz, into ds (the affine one is no longer needed).
        slack_step(lay, &kkt.nt, (1.0, &dvec[..]), &sol[n..], ds);
        Ok(())
    }

    /// The step along the combined direction: 0.99 of the way to the cones' boundary, at
    /// most 1.
    fn step(&mut self, lay: &Layout) -> Result<(), Failed> {
        let (dx, dz) = self.sol.split_at(lay.n);
        let alpha_max = max_step(lay, f64::INFINITY, (&self.sv, &self.ds), (&self.z, dz));
        let alpha = (0.99 * alpha_max).min(1.0);
        if alpha.is_nan() || alpha <= 0.0 {
            return Err((Status::Stalled, "global-ipm: no step length keeps the iterates interior".into()));
        }
        self.x.iter_mut().zip(dx).for_each(|(a, b)| *a += alpha * b);
        self.sv.iter_mut().zip(&self.ds).for_each(|(a, b)| *a += alpha * b);
        self.z.iter_mut().zip(dz).for_each(|(a, b)| *a += alpha * b);
        Ok(())
    }
}

/// How far into the cones' interior a warm start is moved, relative to its scale: its own
/// certificate's figure ([`Residuals::quiescent`]) within `[10⁻⁴, 10⁻¹]`. A start far from
/// the answer (a settling pile's: the previous step's impulses miss by 10⁻² and more) is moved
/// by 10⁻¹ — `ball-pile 1000`'s first 60 steps took 592 iterations in all so, against 652 and
/// 674 with 10⁻³ and 10⁻⁵ for every start, and 649 cold: an interior point gains little from
/// a poor start near the boundary. A start that almost meets the certificate (a resting pile's,
/// 10⁻⁵–10⁻⁴ off when the quiescence exit does not take it) is moved by about its own error:
/// on `ball-pile 1000 --formulation convex --tol 1e-8` to t = 3 the steps after t = 1 took
/// 421 iterations in all, against 640 with 10⁻¹ (most now 4, before 5 or 9), and the whole
/// run 12 850 against 13 260. A floor of 10⁻⁵ took 423 and 12 793; a fixed 10⁻⁵ left a step
/// unsolved.
pub(super) fn warm_margin(warm_error: f64) -> f64 {
    if warm_error.is_nan() {
        return 1e-1;
    }
    warm_error.clamp(1e-4, 1e-1)
}

/// CVXOPT's ω²: the Delassus diagonal estimated as `Σ_j H̃_jk² / M_jj` averaged over the cone
/// rows (1 when that is not positive and finite).
fn omega2(lay: &Layout) -> f64 {
    let mdiag = &lay.m_diag;
    let sum: f64 = (0..lay.m)
        .map(|k| lay.row(k).iter().map(|&(j, v)| v * v / mdiag[j].abs().max(f64::MIN_POSITIVE)).sum::<f64>())
        .sum();
    let w = sum / lay.m.max(1) as f64;
    if w > 0.0 && w.is_finite() {
        w
    } else {
        1.0
    }
}

/// The slacks `s = H̃ᵀx + b̃`.
fn slacks(lay: &Layout, x: &[f64], bt: &[f64]) -> Vec<f64> {
    let mut sv = vec![0.0; lay.m];
    lay.ht_mul(x, &mut sv);
    sv.iter_mut().zip(bt).for_each(|(a, b)| *a += b);
    sv
}

/// Moves every cone's part of `v` into the cone's interior when it is not already inside by
/// 10⁻⁸ of v's size (`‖v‖∞`, at least `floor`): its first entry raised by the violation plus
/// `margin` of the size.
fn push_into_cones(lay: &Layout, v: &mut [f64], floor: f64, margin: f64) {
    let worst = lay.cones.iter().fold(f64::NEG_INFINITY, |a, &(off, p)| {
        let c = &v[off..off + p];
        let t = c[1..].iter().map(|q| q * q).sum::<f64>().sqrt();
        a.max(t - c[0])
    });
    let size = norm_inf(v).max(floor);
    let size = if size > 0.0 { size } else { 1.0 };
    if worst >= -1e-8 * size {
        let add = worst.max(0.0) + margin * size;
        for &(off, _) in &lay.cones {
            v[off] += add;
        }
    }
}

/// The slacks' step `Δs = sign · rhs − W² Δz`, cone by cone, into `ds`.
fn slack_step(lay: &Layout, nts: &[Nt], (sign, rhs): (f64, &[f64]), dz: &[f64], ds: &mut [f64]) {
    for (c, &(off, p)) in lay.cones.iter().enumerate() {
        let nt = &nts[c];
        for a in 0..p {
            let w2dz: f64 = (0..p).map(|b| nt.w2(a, b) * dz[off + b]).sum();
            ds[off + a] = sign * rhs[off + a] - w2dz;
        }
    }
}

/// The longest step, at most `cap`, that keeps s + α Δs and z + α Δz in the cones.
fn max_step(lay: &Layout, cap: f64, (sv, ds): (&[f64], &[f64]), (z, dz): (&[f64], &[f64])) -> f64 {
    lay.cones.iter().fold(cap, |a, &(off, p)| {
        a.min(step_to_boundary(&sv[off..off + p], &ds[off..off + p]))
            .min(step_to_boundary(&z[off..off + p], &dz[off..off + p]))
    })
}

/// The residuals' storage of the [`Certificate`]'s evaluations.
pub(super) struct Residuals {
    pub(super) rx: Vec<f64>,
    pub(super) rz: Vec<f64>,
    hz: Vec<f64>,
    htx: Vec<f64>,
    mx: Vec<f64>,
}

impl Residuals {
    /// Storage for n velocities and m cone rows.
    fn new(n: usize, m: usize) -> Residuals {
        Residuals {
            rx: vec![0.0; n],
            rz: vec![0.0; m],
            hz: vec![0.0; n],
            htx: vec![0.0; m],
            mx: vec![0.0; n],
        }
    }

    /// The quiescence exit: a warm start that already meets the certificate — its cone
    /// variables and its velocities' H̃ᵀv + b̃ projected onto the (closed) cones, the
    /// residuals of the projection counted in the certificate — is the answer, for one
    /// residual evaluation and no factorization (a resting stack's steps). `Ok` answer
    /// (r, v, certificate) then, the report's status and message set; otherwise `Err` with
    /// the warm start's certificate figure ([`Certificate::worst`]; ∞ without a warm start).
    fn quiescent(
        &mut self,
        (g, lay, bt): (&GlobalFrictionContactProblem, &Layout, &[f64]),
        warm: Option<&(Vec<f64>, Vec<f64>)>,
        scales: (f64, f64),
        s: &Settings,
        report: &mut SolveReport,
    ) -> Result<(Vec<f64>, Vec<f64>, Certificate), f64> {
        let Some((x, z0)) = warm else { return Err(f64::INFINITY) };
        let mut zp = z0.clone();
        let mut sp = slacks(lay, x, bt);
        for &(off, p) in &lay.cones {
            project_lorentz(&mut zp[off..off + p]);
            project_lorentz(&mut sp[off..off + p]);
        }
        let (cert, _) = self.certificate(g, lay, bt, (x, &sp, &zp), scales);
        if s.record_history {
            report.history.push(cert.worst());
            report.history_iterations.push(0);
        }
        if cert.worst() > s.tol {
            return Err(cert.worst());
        }
        report.status = Status::Solved;
        report.message = Some(format!(
            "convex relaxation: the warm start meets the certificate (primal {:.1e}, dual \
             {:.1e}, gap {:.1e}); no interior-point iteration",
            cert.primal, cert.dual, cert.gap
        ));
        Ok((lay.reactions(g, &zp), x.clone(), cert))
    }

    /// The certificate of the point (x, s, z) (its `iterations` 0): `rx = M x − f − H̃ z`,
    /// `rz = s − H̃ᵀ x − b̃` and the gap `sᵀz`, each relative to its own scale; and `sᵀz`.
    pub(super) fn certificate(
        &mut self,
        g: &GlobalFrictionContactProblem,
        lay: &Layout,
        bt: &[f64],
        (x, sv, z): (&[f64], &[f64], &[f64]),
        (f_inf, b_inf): (f64, f64),
    ) -> (Certificate, f64) {
        let (n, m) = (lay.n, lay.m);
        g.m.mul_vec(x, &mut self.mx);
        lay.h_mul(z, &mut self.hz);
        lay.ht_mul(x, &mut self.htx);
        for k in 0..n {
            self.rx[k] = self.mx[k] - g.f[k] - self.hz[k];
        }
        for k in 0..m {
            self.rz[k] = sv[k] - self.htx[k] - bt[k];
        }
        let sz: f64 = sv.iter().zip(z).map(|(a, b)| a * b).sum();
        let xmx: f64 = x.iter().zip(self.mx.iter()).map(|(a, b)| a * b).sum();
        let fx: f64 = x.iter().zip(&g.f).map(|(a, b)| a * b).sum();
        let bz: f64 = bt.iter().zip(z).map(|(a, b)| a * b).sum();
        let (pobj, dobj) = (0.5 * xmx - fx, -0.5 * xmx - bz);
        let cert = Certificate {
            primal: ratio(norm_inf(&self.rz), b_inf.max(norm_inf(&self.htx)).max(norm_inf(sv))),
            dual: ratio(norm_inf(&self.rx), f_inf.max(norm_inf(&self.mx)).max(norm_inf(&self.hz))),
            gap: ratio(sz, pobj.abs().max(dobj.abs()).max(b_inf * norm_inf(z))),
            iterations: 0,
        };
        (cert, sz)
    }
}

/// Projects x onto the Lorentz cone `{x₀ ≥ ‖x₁‖}` (onto `x₀ ≥ 0` for a cone of dimension 1),
/// in place.
pub(super) fn project_lorentz(x: &mut [f64]) {
    if x.len() == 1 {
        x[0] = x[0].max(0.0);
        return;
    }
    let t = x[1..].iter().map(|v| v * v).sum::<f64>().sqrt();
    if t <= x[0] {
        return;
    }
    if t <= -x[0] {
        x.iter_mut().for_each(|v| *v = 0.0);
        return;
    }
    let a = 0.5 * (x[0] + t);
    x[0] = a;
    let k = a / t;
    x[1..].iter_mut().for_each(|v| *v *= k);
}
